"""The evaluations' one results cache and one report writer: both write through
authormask._io (atomic, umask permissions, never over a link), and answer only for their key."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from authormask._io import umask_mode
from authormask.evaluation.cache import ResultsCache, cache_key
from authormask.evaluation.reports import HTML_FILE, png_bytes, run_html, write_report_files
from authormask.exceptions import InputError


def test_cache_answers_for_exactly_its_key(tmp_path: Path) -> None:
    cache = ResultsCache(tmp_path / "cache")
    key = {"seed": 1, "epsilons": (None, 2.5), "docs": ["a", "b"]}
    assert cache.get("cell", key) is None
    cache.put("cell", key, {"value": 0.5, "texts": ["x"]})
    assert cache.get("cell", key) == {"value": 0.5, "texts": ["x"]}
    assert cache.get("cell", {**key, "seed": 2}) is None
    assert cache.get("obf", key) is None  # another kind, another file
    (path,) = (tmp_path / "cache").iterdir()  # no temporary file left behind
    assert path.name == f"cell-{cache_key(key)}.json"
    assert stat.S_IMODE(path.stat().st_mode) == umask_mode()
    # a damaged file is a miss, never an error
    path.write_text("{not json")
    assert cache.get("cell", key) is None
    # a file whose stored key differs (e.g. a hash collision or a hand edit) is a miss
    cache.put("cell", key, {"value": 1})
    path.write_text(path.read_text().replace('"seed": 1', '"seed": 3'))
    assert cache.get("cell", key) is None
    assert ResultsCache(None).get("cell", key) is None
    ResultsCache(None).put("cell", key, {"value": 1})  # holds nothing, writes nothing


def _png() -> bytes:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    return png_bytes(fig)


def test_report_writer(tmp_path: Path) -> None:
    out = tmp_path / "report"
    files = {"results.json": "{}\n", "table.md": "# t\n", "table.csv": "a\n", "plot.png": _png()}
    paths = write_report_files(out, files)
    assert [p.name for p in paths] == list(files)
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.iterdir()) == sorted(files)  # nothing temporary left
    assert all(stat.S_IMODE(p.stat().st_mode) == umask_mode() for p in paths)
    with pytest.raises(InputError, match=r"already holds results\.json, table\.md"):
        write_report_files(out, {**files, "table.md": "# changed\n"})
    assert (out / "table.md").read_text() == "# t\n"
    write_report_files(out, {**files, "table.md": "# changed\n"}, force=True)
    assert (out / "table.md").read_text() == "# changed\n"


def test_report_writer_never_replaces_a_link(tmp_path: Path) -> None:
    out = tmp_path / "report"
    out.mkdir()
    target = tmp_path / "elsewhere.md"
    target.write_text("keep me\n")
    os.symlink(target, out / "table.md")
    with pytest.raises(InputError, match="symbolic link"):
        write_report_files(out, {"table.md": "# t\n", "plot.png": _png()}, force=True)
    assert target.read_text() == "keep me\n"
    assert sorted(p.name for p in out.iterdir()) == ["table.md"]  # the PNG was not published


def test_report_page_escapes_every_text_and_embeds_every_png(tmp_path: Path) -> None:
    png = _png()
    markdown = (
        "# authormask evaluate: author study on <corpus>\n\nA line\nwrapped & joined.\n\n"
        "## emp-text\n\n| epsilon | <b>attacker</b> | strongest attacker |\n|---|---|---|\n"
        "| 2 | 3/8 | <b>attacker</b>: 3/8 |\n\n- emp-text, epsilon 2 per word: <bound>\n\n"
        "![frontier](frontier.png)\n"
    )
    statement = {"document_bound": "epsilon_doc <= 2 * N", "reference": "https://x.org/<p>"}
    page = run_html(
        {"table.md": markdown, "plot.png": png, "frontier.png": png},
        {"corpus": "<script>alert(1)</script>"},
        {"emp-text/2": statement},
    )
    assert "<h1>authormask evaluate: author study on &lt;corpus&gt;</h1>" in page
    assert page.count("<h1>") == 1 and "<p>A line wrapped &amp; joined.</p>" in page
    assert "<th>&lt;b&gt;attacker&lt;/b&gt;</th><th>strongest attacker</th>" in page
    assert "<td>&lt;b&gt;attacker&lt;/b&gt;: 3/8</td>" in page
    assert "<li>emp-text, epsilon 2 per word: &lt;bound&gt;</li>" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script" not in page
    assert "epsilon_doc &lt;= 2 * N" in page and "https://x.org/&lt;p&gt;" in page
    # both PNGs embedded once each (frontier.png where table.md places it), none linked
    embedded = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    assert page.count(embedded) == 2 and 'src="frontier.png"' not in page
    assert page.index("<h2>emp-text</h2>") < page.index(embedded)
    # a folder holding only an earlier report.html is refused like any report, unless forced
    out = tmp_path / "report"
    write_report_files(out, {HTML_FILE: page})
    with pytest.raises(InputError, match=r"already holds report\.html.*`force`"):
        write_report_files(out, {HTML_FILE: "changed"})
    write_report_files(out, {HTML_FILE: "changed"}, force=True)
    assert (out / HTML_FILE).read_text() == "changed"
