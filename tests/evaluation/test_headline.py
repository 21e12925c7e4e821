"""The headline of a frontier (issue 20, F): the similarity at which the strongest attacker's
Wilson 95% upper bound comes within 10 points of chance, interpolated, with its interval."""

from __future__ import annotations

import pytest

from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.tradeoff import HEADLINE_MARGIN, FrontierPoint, headline


def _point(similarity: float, correct: int, total: int, epsilon: float | None) -> FrontierPoint:
    interval = wilson_interval(correct, total)
    return FrontierPoint(
        mechanism="emp-text",
        epsilon=epsilon,
        utility=similarity,
        utility_measure="similarity",
        utility_low=None,
        utility_high=None,
        strongest_accuracy=correct / total,
        low=interval.low,
        high=interval.high,
        strongest_attacker="svm",
        correct=correct,
        total=total,
    )


CHANCE = 0.1


def _frontier() -> list[FrontierPoint]:
    # from the least noise: the attack falls as similarity falls
    return [
        _point(1.0, 160, 200, None),
        _point(0.8, 100, 200, 10.0),
        _point(0.6, 30, 200, 5.0),
        _point(0.3, 18, 200, 2.0),
    ]


def test_the_headline_is_interpolated_between_the_bracketing_points() -> None:
    points = _frontier()
    head = headline(points, CHANCE)
    line = CHANCE + HEADLINE_MARGIN
    assert head.threshold == pytest.approx(line)
    # the first point whose upper bound is at or below the line, and the one before it
    j = next(i for i, p in enumerate(points) if p.high <= line)
    before, after = points[j - 1], points[j]
    assert head.utility is not None
    assert after.utility <= head.utility <= before.utility
    # on the straight line between them, the upper bound is at the threshold
    t = (head.utility - before.utility) / (after.utility - before.utility)
    assert before.high + t * (after.high - before.high) == pytest.approx(line)
    # the interval: where the upper and the lower bound cross, around the point estimate
    low, high = head.interval
    assert low is not None and high is not None
    assert low == pytest.approx(head.utility) and high >= low
    assert head.point is not None and low <= head.point <= high
    data = head.to_dict()
    assert data["reached"] and data["utility"] == head.utility
    assert f"{head.utility:.3f}" in data["text"]


def test_not_reached_when_no_point_gets_there() -> None:
    points = _frontier()[:2]  # the attack stays far above chance
    head = headline(points, CHANCE)
    assert head.utility is None and not head.to_dict()["reached"]
    assert "not reached" in head.describe()


def test_reached_at_the_first_point_takes_its_similarity() -> None:
    points = [_point(0.9, 20, 200, None), _point(0.5, 19, 200, 3.0)]
    head = headline(points, CHANCE)
    assert head.utility == pytest.approx(0.9)
