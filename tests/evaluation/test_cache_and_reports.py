"""The evaluations' one results cache and one report writer: both write through
authormask._io (atomic, umask permissions, never over a link), and answer only for their key."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from authormask._io import umask_mode
from authormask.evaluation.cache import ResultsCache, cache_key
from authormask.evaluation.report import png_bytes, write_report_files
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
