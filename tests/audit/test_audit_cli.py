"""``authormask audit`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.cli.main import main
from authormask.core import mechanism_names

KEYS = {"mechanism", "case", "epsilon_stated", "epsilon_lower_bound", "confidence", "samples"}


def test_audit_json_every_mechanism_passes(
    cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["audit", "--json", "--samples", "4000", "--seed", "1", "--cache-dir", str(cache_dir)]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = json.loads(out)
    assert isinstance(rows, list) and rows
    assert {r["mechanism"] for r in rows} == set(mechanism_names())
    for r in rows:
        assert KEYS | {"passed"} <= set(r)
        assert r["passed"] is True
        assert r["epsilon_lower_bound"] <= r["epsilon_stated"]
        assert r["samples"] == 4000
        assert 0.95 < r["confidence"] < 1


def test_audit_table_plot_and_narrowing(
    tmp_path: Path, cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "audit.png"
    code = main(
        [
            "audit",
            "-m",
            "emp-bag,random-r",
            "--mechanism",
            "random-r",
            "--samples",
            "2000",
            "--seed",
            "2",
            "--plot",
            str(plot),
            "--cache-dir",
            str(cache_dir),
        ]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "mechanism",
        "case",
        "epsilon_stated",
        "epsilon_lower_bound",
        "confidence",
        "samples",
        "passed",
    ]
    body = [line.split() for line in lines[1:] if line.startswith(("emp-", "random-"))]
    assert [row[:2] for row in body] == [
        ["emp-bag", "line-1d"],
        ["emp-bag", "line-1d-N2"],
        ["emp-bag", "line-1d-posterior"],
        ["emp-bag", "glove"],
        ["random-r", "uniform-K1000"],
    ]
    assert all(row[-1] == "yes" for row in body)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unknown_mechanism_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["audit", "--mechanism", "bogus", "--samples", "100"])
    out, err = capsys.readouterr()
    assert code != 0
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert "bogus" in err and err.startswith("authormask: error:")


def test_failed_audit_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mechanism whose statement understates its epsilon fails the run with exit status 1."""
    import dataclasses

    from authormask.audit import AUDITORS

    (spec,) = [s for s in AUDITORS["emp-text"] if s.case == "line-1d"]

    def understated(ctx: object) -> object:
        case = spec.build(ctx)  # type: ignore[arg-type]
        return dataclasses.replace(case, epsilon_stated=case.epsilon_stated / 4)

    monkeypatch.setitem(AUDITORS, "emp-text", (dataclasses.replace(spec, build=understated),))
    code = main(["audit", "-m", "emp-text", "--samples", "5000", "--seed", "0"])
    out, err = capsys.readouterr()
    assert code == 1
    assert "NO" in out
    # one error line (after the progress line that a non-terminal stderr gets at the end)
    errors = [line for line in err.splitlines() if not line.startswith("auditing: ")]
    assert len(errors) == 1 and errors[0].startswith("authormask: error:")
    assert "emp-text/line-1d" in errors[0]


def test_help_shows_the_real_default_sample_count() -> None:
    from authormask.audit import DEFAULT_SAMPLES
    from authormask.cli.audit import SAMPLES_HELP_DEFAULT

    assert SAMPLES_HELP_DEFAULT == f"{DEFAULT_SAMPLES:,}"
