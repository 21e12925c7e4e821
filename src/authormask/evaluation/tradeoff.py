"""The privacy-utility frontier of a run and the epsilon it recommends (issue 14, part F).

For each mechanism, every epsilon of a
:class:`~authormask.evaluation.protocols.fernandes2019.SweepResult` is one point:
x = a utility measure (MiniLM similarity, or fastText topic accuracy), y = the strongest
attacker's accuracy (:meth:`SweepResult.strongest`, the number of the tables' "strongest
attacker" column) with its Wilson 95% interval. A PAN run
(:class:`~authormask.evaluation.protocols.pan.PanResult`, :func:`pan_frontier`) has the same
points against each utility it measured (:func:`pan_frontier_utilities`): x = the MiniLM
similarity, content recall, retrieval or fluency ratio of the released unknown texts against
the originals (with its 95% interval), y = the most accurate attacker's accuracy over every
unknown text of every problem (:meth:`PanResult.most_accurate`) with its Wilson interval. A
PAN run's recommendation and headline read the similarity frontier.

:func:`recommend` reads the frontier conservatively: an epsilon *qualifies* for a target
accuracy X when the **upper end of the strongest attacker's Wilson 95% interval** is at or below
X (not merely its point estimate: a privacy tool should claim only what the data cannot
contradict), and among those it recommends the epsilon with the best utility. Only epsilons
with noise are candidates: the unmodified row (``epsilon=None``) carries no guarantee, so it is
never recommended, even where the attackers fail on it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from authormask.core import mechanism_spec
from authormask.evaluation.measures import measure
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols._grid import epsilon_text, rate_labelled, row_order
from authormask.evaluation.protocols.fernandes2019 import SweepResult
from authormask.evaluation.protocols.pan import PanResult
from authormask.exceptions import InvalidParameterError

__all__ = [
    "FRONTIER_UTILITIES",
    "HEADLINE_MARGIN",
    "PAN_FRONTIER_UTILITIES",
    "FrontierPoint",
    "Headline",
    "Recommendation",
    "check_target_accuracy",
    "frontier",
    "frontier_dict",
    "frontier_utilities",
    "headline",
    "headlines",
    "pan_frontier",
    "pan_frontier_utilities",
    "pan_headlines",
    "recommend",
    "recommend_pan",
    "recommend_points",
]

#: utility measures a frontier can be drawn against, in order of preference for :func:`recommend`
FRONTIER_UTILITIES = ("similarity", "fasttext")


@dataclass(frozen=True)
class FrontierPoint:
    """One (mechanism, epsilon) of the frontier.

    ``utility`` is the mean of the utility measure's cells (as in the tables); ``utility_low``
    and ``utility_high`` its Wilson 95% interval for an accuracy (fastText, pooled over
    repetitions), mean -/+ one standard deviation over repetitions for similarity, ``None``
    where there is one repetition of similarity. ``strongest_accuracy``, ``low`` and ``high``
    are the strongest attacker's pooled accuracy and its Wilson 95% interval.

    Attributes
    ----------
    mechanism
        The registered name of the mechanism.
    epsilon
        The epsilon (the rate of a baseline), ``None`` for the unmodified row.
    utility
        The mean of the utility measure's cells.
    utility_measure
        The utility measure's name.
    utility_low
        The lower end of the utility's interval, or ``None``.
    utility_high
        The upper end of the utility's interval, or ``None``.
    strongest_accuracy
        The strongest attacker's pooled accuracy.
    low
        The lower end of its Wilson 95% interval.
    high
        The upper end of its Wilson 95% interval.
    strongest_attacker
        The strongest attacker's name.
    correct
        The strongest attacker's correct answers.
    total
        The queries it answered.
    """

    mechanism: str
    epsilon: float | None
    utility: float
    utility_measure: str
    utility_low: float | None
    utility_high: float | None
    strongest_accuracy: float
    low: float
    high: float
    strongest_attacker: str
    correct: int
    total: int

    def to_dict(self) -> dict[str, Any]:
        """As results.json holds it (a baseline's point labelled by ``rate``).

        Returns
        -------
        dict[str, Any]
            The fields by name.
        """
        return rate_labelled(self.mechanism, asdict(self))


@dataclass(frozen=True)
class Recommendation:
    """The epsilon :func:`recommend` picks for one mechanism.

    ``point`` is the recommended point, ``None`` when no epsilon qualifies; then ``closest``
    is the point with the lowest upper bound (the nearest miss), ``None`` only without any
    noisy epsilon.

    Attributes
    ----------
    mechanism
        The registered name of the mechanism.
    target_accuracy
        The target attacker accuracy.
    utility_measure
        The utility measure the recommendation maximises.
    point
        The recommended point, or ``None``.
    closest
        The nearest miss when no point qualifies, or ``None``.
    chance
        The accuracy of a uniform guess, or ``None`` when unknown.
    """

    mechanism: str
    target_accuracy: float
    utility_measure: str
    point: FrontierPoint | None
    closest: FrontierPoint | None
    chance: float | None

    @property
    def epsilon(self) -> float | None:
        """The recommended epsilon, ``None`` when none qualifies."""
        return None if self.point is None else self.point.epsilon

    def describe(self) -> str:
        """One line: the recommended epsilon and why, or why there is none.

        Returns
        -------
        str
            The line.
        """
        target = f"{self.target_accuracy:.0%}"
        if self.point is not None:
            p = self.point
            return (
                f"{self.mechanism}: epsilon {epsilon_text(p.epsilon)} "
                f"({measure(p.utility_measure).value_label} "
                f"{p.utility:.3f}; strongest attacker {p.strongest_attacker} "
                f"{p.correct}/{p.total} = {p.strongest_accuracy:.0%}, 95% upper bound "
                f"{p.high:.0%} <= {target})"
            )
        line = (
            f"{self.mechanism}: no epsilon keeps the strongest attacker's 95% upper bound at "
            f"or below {target}"
        )
        if self.closest is not None:
            c = self.closest
            lowest = f"lowest: {c.high:.0%} at epsilon {epsilon_text(c.epsilon)}"
            line += f" ({lowest}; try smaller epsilons"
            if self.chance is not None and self.target_accuracy < self.chance:
                line += f", though the target is below chance, {self.chance:.0%}"
            line += ")"
        return line

    def to_dict(self) -> dict[str, Any]:
        """The recommendation, JSON-ready, with its rule and its line of text.

        Returns
        -------
        dict[str, Any]
            The fields by name, with ``rule``, ``epsilon``, ``qualified`` and ``text``.
        """
        return {
            "mechanism": self.mechanism,
            "target_accuracy": self.target_accuracy,
            "rule": "the best utility among epsilons whose strongest attacker's Wilson 95% "
            "upper bound is <= target_accuracy; the unmodified row is never recommended",
            "utility_measure": self.utility_measure,
            "epsilon": self.epsilon,
            "qualified": self.point is not None,
            "point": None if self.point is None else self.point.to_dict(),
            "closest": None if self.closest is None else self.closest.to_dict(),
            "text": self.describe(),
        }


def frontier_utilities(result: SweepResult) -> tuple[str, ...]:
    """The utility measures of ``result`` a frontier is drawn against (none without
    attackers).

    Parameters
    ----------
    result
        The sweep.

    Returns
    -------
    tuple[str, ...]
        The measures, in :data:`FRONTIER_UTILITIES` order.
    """
    if not result.config.attackers:
        return ()
    return tuple(u for u in FRONTIER_UTILITIES if u in result.config.utilities)


def frontier(result: SweepResult, utility: str) -> dict[str, list[FrontierPoint]]:
    """The frontier of ``result`` against ``utility`` (``similarity`` or ``fasttext``):
    per mechanism, one point per epsilon (``None`` first, then from the largest epsilon to the
    smallest) that has both an attacker and a utility cell.

    Parameters
    ----------
    result
        The sweep (with attackers).
    utility
        ``"similarity"`` or ``"fasttext"``, a utility the sweep measured.

    Returns
    -------
    dict[str, list[FrontierPoint]]
        Mechanism -> its points, in frontier order.

    Raises
    ------
    InvalidParameterError
        If the sweep has no attackers or did not measure ``utility``.
    """
    if utility not in frontier_utilities(result):
        have = ", ".join(frontier_utilities(result)) or "none"
        raise InvalidParameterError(
            f"no frontier against {utility!r}: the sweep needs attackers and that utility "
            f"measure (frontier utilities of this sweep: {have})"
        )
    out: dict[str, list[FrontierPoint]] = {}
    for mechanism in result.config.mechanisms:
        points: list[FrontierPoint] = []
        for eps in row_order(mechanism, result.config.points(mechanism)):
            best = result.strongest(mechanism, eps)
            cells = result.cell(mechanism, eps, utility)
            if best is None or not cells:
                continue
            values = np.array([c.value for c in cells])
            low: float | None = None
            high: float | None = None
            if measure(utility).task is None:  # a score (similarity): its spread, if any
                if len(cells) > 1:
                    sd = float(np.std(values, ddof=1))
                    low, high = float(values.mean()) - sd, float(values.mean()) + sd
            else:  # an accuracy: its Wilson interval, pooled over repetitions
                interval = wilson_interval(
                    sum(int(c.correct or 0) for c in cells), sum(c.total for c in cells)
                )
                low, high = interval.low, interval.high
            points.append(
                FrontierPoint(
                    mechanism=mechanism,
                    epsilon=eps,
                    utility=float(values.mean()),
                    utility_measure=utility,
                    utility_low=low,
                    utility_high=high,
                    strongest_accuracy=float(best["accuracy"]),
                    low=float(best["wilson95"][0]),
                    high=float(best["wilson95"][1]),
                    strongest_attacker=str(best["attacker"]),
                    correct=int(best["correct"]),
                    total=int(best["total"]),
                )
            )
        out[mechanism] = points
    return out


def frontier_dict(result: SweepResult) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Every frontier of ``result`` for results.json: utility measure -> mechanism -> points
    (``{}`` when the sweep has no attackers or no frontier utility).

    Parameters
    ----------
    result
        The sweep.

    Returns
    -------
    dict[str, dict[str, list[dict[str, Any]]]]
        Utility measure -> mechanism -> its points as dicts.
    """
    return {
        u: {m: [p.to_dict() for p in points] for m, points in frontier(result, u).items()}
        for u in frontier_utilities(result)
    }


def check_target_accuracy(target_accuracy: float) -> float:
    """``target_accuracy`` as a float in (0, 1], or ``InvalidParameterError``.

    Parameters
    ----------
    target_accuracy
        The target accuracy to check.

    Returns
    -------
    float
        ``target_accuracy`` as a float.

    Raises
    ------
    InvalidParameterError
        If it is not a finite number in (0, 1] (or is a bool).
    """
    if (
        isinstance(target_accuracy, bool)
        or not isinstance(target_accuracy, int | float)
        or not math.isfinite(target_accuracy)
        or not 0.0 < target_accuracy <= 1.0
    ):
        raise InvalidParameterError(f"target accuracy must be in (0, 1], got {target_accuracy!r}")
    return float(target_accuracy)


def recommend(
    result: SweepResult, target_accuracy: float, *, utility: str | None = None
) -> list[Recommendation]:
    """Per mechanism, the epsilon that keeps the strongest attacker at or below
    ``target_accuracy`` with the best utility.

    Parameters
    ----------
    result : SweepResult
        A sweep with at least one attacker and a frontier utility (``similarity`` or
        ``fasttext``).
    target_accuracy : float
        In (0, 1]. An epsilon qualifies when the upper end of the strongest attacker's Wilson
        95% interval (:meth:`SweepResult.strongest`) is ``<= target_accuracy``: conservative,
        the attacker's true accuracy is above the target with at most about 2.5% chance, given
        the snippets measured. The unmodified row never qualifies (no guarantee).
    utility : str | None
        The utility to maximise: ``similarity`` or ``fasttext``; default the first of those
        the sweep measured (``similarity`` before ``fasttext``). Ties go to the smaller
        epsilon (the stronger guarantee).

    Returns
    -------
    list[Recommendation]
        One per mechanism, in the order of ``result.config.mechanisms``; ``point`` is ``None``
        when no epsilon qualifies, and ``closest`` then names the lowest upper bound measured.

    Raises
    ------
    InvalidParameterError
        If ``target_accuracy`` is not in (0, 1], or the sweep has no attackers or no such
        utility.
    """
    target = check_target_accuracy(target_accuracy)
    available = frontier_utilities(result)
    if not available:
        raise InvalidParameterError(
            "a recommendation needs a sweep with attackers and a utility measure "
            f"({' or '.join(FRONTIER_UTILITIES)})"
        )
    measure = available[0] if utility is None else utility
    chance = result.baselines.get("author")
    chance_rate = None if chance is None else chance / int(result.study["queries"])
    return recommend_points(frontier(result, measure), target, utility=measure, chance=chance_rate)


def recommend_points(
    frontiers: Mapping[str, Sequence[FrontierPoint]],
    target_accuracy: float,
    *,
    utility: str,
    chance: float | None = None,
) -> list[Recommendation]:
    """:func:`recommend`'s rule on frontiers already drawn (mechanism -> points, any protocol):
    per mechanism, among the noisy points whose ``high`` (the Wilson 95% upper bound of the
    attacker's accuracy) is ``<= target_accuracy``, the one with the best utility (ties to the
    smaller epsilon); else the nearest miss. ``chance`` (an accuracy) is only mentioned when
    the target lies below it.

    Parameters
    ----------
    frontiers
        Mechanism -> its points, in frontier order.
    target_accuracy
        The target accuracy, in (0, 1].
    utility
        The utility measure the points are drawn against.
    chance
        The accuracy of a uniform guess, or ``None``.

    Returns
    -------
    list[Recommendation]
        One per mechanism with a guarantee, in the order of ``frontiers``.
    """
    target = check_target_accuracy(target_accuracy)
    out = []
    for mechanism, points in frontiers.items():
        if mechanism_spec(mechanism).baseline:  # no guarantee: never recommended
            continue
        noisy = [p for p in points if p.epsilon is not None]
        qualified = [p for p in noisy if p.high <= target]
        best = max(qualified, key=lambda p: (p.utility, -(p.epsilon or 0.0)), default=None)
        closest = (
            None
            if best is not None or not noisy
            else min(noisy, key=lambda p: (p.high, p.epsilon or 0.0))
        )
        out.append(Recommendation(mechanism, target, utility, best, closest, chance))
    return out


#: the utilities a PAN run's frontier is drawn against, where measured: the reader's four
#: against the original, retrieval against the entity-stepped original and fluency under the
#: cross-fitted judge (the other utilities are in its tables and plot only)
PAN_FRONTIER_UTILITIES = (
    "similarity",
    "content-recall",
    "retrieval",
    "fluency",
    "retrieval-stepped",
    "fluency-xfit",
)


def pan_frontier_utilities(result: PanResult) -> tuple[str, ...]:
    """The utilities a PAN run's frontier is drawn against: those of
    :data:`PAN_FRONTIER_UTILITIES` it measured (a configured one no problem could measure,
    ``fluency-xfit`` of a single problem, has no frontier), in the order of its configuration
    (none without attackers).

    Parameters
    ----------
    result
        The PAN run.

    Returns
    -------
    tuple[str, ...]
        The utilities.
    """
    if not result.config.attackers:
        return ()
    measured = {c.measure for c in result.utilities}
    return tuple(
        u for u in result.config.utilities if u in PAN_FRONTIER_UTILITIES and u in measured
    )


def pan_frontier(result: PanResult, utility: str = "similarity") -> dict[str, list[FrontierPoint]]:
    """The frontier of a PAN run (module docstring) against ``utility`` (default MiniLM
    similarity; or ``content-recall``, ``retrieval``, ``fluency``): per mechanism, one point
    per epsilon (``None`` first, then from the largest to the smallest) with x = the utility
    of the released unknown texts against the originals (for fluency the geometric mean of the
    perplexity ratios: lower is better) and its 95% interval, y = the most accurate attacker's
    pooled accuracy and its Wilson 95% interval.

    Parameters
    ----------
    result
        The PAN run.
    utility
        A utility the run measured.

    Returns
    -------
    dict[str, list[FrontierPoint]]
        Mechanism -> its points, in frontier order.

    Raises
    ------
    InvalidParameterError
        If the run did not measure ``utility``.
    """
    if utility not in result.config.utilities:
        measured = ", ".join(result.config.utilities) or "none"
        raise InvalidParameterError(
            f"no frontier: the PAN run measured no {utility} (utilities: {measured})"
        )
    out: dict[str, list[FrontierPoint]] = {}
    for mechanism in result.config.mechanisms:
        points = []
        for eps in row_order(mechanism, result.config.points(mechanism)):
            value = result.utility(mechanism, eps, utility)
            if value is None:
                continue
            best = result.most_accurate(mechanism, eps)
            points.append(
                FrontierPoint(
                    mechanism=mechanism,
                    epsilon=eps,
                    utility=float(value["mean"]),
                    utility_measure=utility,
                    utility_low=float(value["low"]),
                    utility_high=float(value["high"]),
                    strongest_accuracy=float(best["accuracy"]),
                    low=float(best["wilson95"][0]),
                    high=float(best["wilson95"][1]),
                    strongest_attacker=str(best["attacker"]),
                    correct=int(best["correct"]),
                    total=int(best["total"]),
                )
            )
        out[mechanism] = points
    return out


def recommend_pan(result: PanResult, target_accuracy: float) -> list[Recommendation]:
    """Per mechanism of a PAN run, the epsilon with the best MiniLM similarity among those
    whose most accurate attacker's Wilson 95% upper bound (over every unknown text of every
    problem) is ``<= target_accuracy`` (:func:`recommend_points`); the noise-off row is never
    recommended.

    Parameters
    ----------
    result
        The PAN run.
    target_accuracy
        The target accuracy, in (0, 1].

    Returns
    -------
    list[Recommendation]
        One per mechanism with a guarantee.

    Raises
    ------
    InvalidParameterError
        If ``target_accuracy`` is not in (0, 1] or the run measured no similarity.
    """
    check_target_accuracy(target_accuracy)
    return recommend_points(
        pan_frontier(result),
        target_accuracy,
        utility="similarity",
        chance=result.chance_accuracy,
    )


# --- the headline: where the strongest attacker comes within 10 points of chance --------------

#: how close to chance the headline asks the strongest attacker's upper bound to come
HEADLINE_MARGIN = 0.10


@dataclass(frozen=True)
class Headline:
    """A mechanism's headline (issue 20, F): the utility (similarity) at which the strongest
    attacker's Wilson 95% **upper** bound comes within ``margin`` of chance, interpolated
    linearly between the two frontier points that bracket it; ``interval`` is the utilities at
    which the upper and the lower bound cross the same line (lowest first), ``point`` where the
    accuracy itself does. ``None`` where no point of the frontier gets there ("not reached").

    Attributes
    ----------
    mechanism
        The registered name of the mechanism.
    utility_measure
        The utility measure of the frontier.
    chance
        The accuracy of a uniform guess.
    margin
        How close to chance the upper bound must come.
    utility
        The utility at which the upper bound crosses ``chance + margin``, or ``None``.
    interval
        The utilities at which the upper and the lower bound cross it, lowest first.
    point
        The utility at which the accuracy itself crosses it, or ``None``.
    """

    mechanism: str
    utility_measure: str
    chance: float
    margin: float
    utility: float | None
    interval: tuple[float | None, float | None]
    point: float | None

    @property
    def threshold(self) -> float:
        return self.chance + self.margin

    def describe(self) -> str:
        """The headline in one line of text.

        Returns
        -------
        str
            The line ("not reached" where no point gets there).
        """
        label = measure(self.utility_measure).value_label
        line = (
            f"{self.mechanism}: the strongest attacker's 95% upper bound comes within "
            f"{self.margin * 100:.0f} points of chance ({self.threshold:.0%})"
        )
        if self.utility is None:
            return line + " at no point measured: not reached"
        low, high = self.interval
        span = "" if low is None or high is None else f" (interval {low:.3f}-{high:.3f})"
        return f"{line} at {label} {self.utility:.3f}{span}"

    def to_dict(self) -> dict[str, Any]:
        """The headline, JSON-ready, with its rule and its line of text.

        Returns
        -------
        dict[str, Any]
            The fields by name, with ``threshold``, ``reached``, ``rule`` and ``text``.
        """
        return {
            "mechanism": self.mechanism,
            "utility_measure": self.utility_measure,
            "chance": self.chance,
            "margin": self.margin,
            "threshold": self.threshold,
            "utility": self.utility,
            "reached": self.utility is not None,
            "interval": list(self.interval),
            "point": self.point,
            "rule": "the utility at which the strongest attacker's Wilson 95% upper bound first "
            "falls to chance + margin along the frontier (from the least noise), linearly "
            "interpolated between the two points that bracket it; interval: the same for the "
            "lower and the upper bound; point: for the accuracy itself",
            "text": self.describe(),
        }


def _crossing(xs: Sequence[float], ys: Sequence[float], threshold: float) -> float | None:
    """The x at which ``ys`` (in frontier order) first falls to ``threshold`` or below,
    linearly interpolated from the point before; ``None`` if it never does.

    >>> _crossing([1.0, 0.8, 0.4], [0.9, 0.5, 0.1], 0.3)
    0.6
    >>> _crossing([1.0, 0.5], [0.2, 0.1], 0.3), _crossing([1.0, 0.5], [0.9, 0.8], 0.3)
    (1.0, None)
    """
    for j, y in enumerate(ys):
        if y <= threshold:
            if j == 0:
                return float(xs[0])
            x0, x1, y0 = xs[j - 1], xs[j], ys[j - 1]
            t = (y0 - threshold) / (y0 - y)
            return float(round(x0 + t * (x1 - x0), 12))
    return None


def headline(
    points: Sequence[FrontierPoint], chance: float, *, margin: float = HEADLINE_MARGIN
) -> Headline:
    """The :class:`Headline` of one mechanism's frontier ``points`` (in frontier order, from
    the least noise), ``chance`` the accuracy of a uniform guess.

    Parameters
    ----------
    points
        The mechanism's frontier, in frontier order (at least one point).
    chance
        The accuracy of a uniform guess.
    margin
        How close to chance the upper bound must come.

    Returns
    -------
    Headline
        The headline.

    Raises
    ------
    InvalidParameterError
        If ``points`` is empty.
    """
    if not points:
        raise InvalidParameterError("a headline needs at least one frontier point")
    xs = [p.utility for p in points]
    line = chance + margin
    upper = _crossing(xs, [p.high for p in points], line)
    lower = _crossing(xs, [p.low for p in points], line)
    ends = sorted(x for x in (upper, lower) if x is not None)
    interval: tuple[float | None, float | None] = (
        (ends[0], ends[-1]) if len(ends) == 2 else (upper, lower)
    )
    return Headline(
        mechanism=points[0].mechanism,
        utility_measure=points[0].utility_measure,
        chance=chance,
        margin=margin,
        utility=upper,
        interval=interval,
        point=_crossing(xs, [p.strongest_accuracy for p in points], line),
    )


def headlines(result: SweepResult, *, margin: float = HEADLINE_MARGIN) -> list[Headline]:
    """Per mechanism of a sweep, its :class:`Headline` on the first frontier utility
    (similarity before fastText); ``[]`` without a frontier or a chance rate.

    Parameters
    ----------
    result
        The sweep.
    margin
        How close to chance the upper bound must come.

    Returns
    -------
    list[Headline]
        One per mechanism with a frontier.
    """
    available = frontier_utilities(result)
    chance = result.baselines.get("author")
    if not available or chance is None:
        return []
    rate = chance / int(result.study["queries"])
    return [
        headline(points, rate, margin=margin)
        for points in frontier(result, available[0]).values()
        if points
    ]


def pan_headlines(result: PanResult, *, margin: float = HEADLINE_MARGIN) -> list[Headline]:
    """Per mechanism of a PAN run, its :class:`Headline` on the similarity frontier (the most
    accurate attacker's accuracy against a uniform guess among each problem's candidates);
    ``[]`` without similarity.

    Parameters
    ----------
    result
        The PAN run.
    margin
        How close to chance the upper bound must come.

    Returns
    -------
    list[Headline]
        One per mechanism with a frontier.
    """
    if "similarity" not in result.config.utilities:
        return []
    return [
        headline(points, result.chance_accuracy, margin=margin)
        for points in pan_frontier(result).values()
        if points
    ]
