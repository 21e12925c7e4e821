"""What the two protocols that sweep a grid share (fernandes2019 and pan): the rows of a
mechanism (its epsilons, or its rates for a baseline swept over rates; each repeated, the
noise-off row once), how a config checks them, their order in a report or along a frontier,
how an epsilon reads and how a row of a baseline swept over rates is labelled in results.json,
and the strongest attacker at one row, pooled over the row's cells."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols._common import check_epsilons
from authormask.evaluation.releases import check_rates, sweeps_rate
from authormask.exceptions import InvalidParameterError

__all__ = ["Grid", "epsilon_text", "rate_labelled", "row_order", "strongest_attacker"]


class Grid:
    """The rows of a config swept over epsilons (a frozen dataclass with the fields
    ``epsilons``, ``rates``, ``mechanism_epsilons``, ``repetitions`` and ``seed`` mixes this
    in)."""

    if TYPE_CHECKING:

        @property
        def epsilons(self) -> tuple[float | None, ...]: ...
        @property
        def rates(self) -> tuple[float, ...]: ...
        @property
        def mechanism_epsilons(self) -> Mapping[str, tuple[float | None, ...]]: ...
        @property
        def repetitions(self) -> int: ...
        @property
        def seed(self) -> int: ...

    def points(self, mechanism: str) -> tuple[float | None, ...]:
        """The rows of ``mechanism``: its rates for a rate-swept baseline (``random-sub``),
        else its own epsilons (``mechanism_epsilons``) or the run's."""
        if sweeps_rate(mechanism):
            return tuple(self.rates)
        return tuple(self.mechanism_epsilons.get(mechanism, self.epsilons))

    def rows(self, mechanism: str) -> list[tuple[float | None, int]]:
        """``(point, repetition)`` of every row of ``mechanism``, in the order of the report:
        every repetition of each point, the noise-off row (``None``) once."""
        return [
            (e, rep)
            for e in self.points(mechanism)
            for rep in range(1 if e is None else self.repetitions)
        ]

    def check_grid(self) -> None:
        """Refuse bad epsilons (the run's or a mechanism's own) and rates."""
        for epsilons in (self.epsilons, *self.mechanism_epsilons.values()):
            check_epsilons(epsilons)
        check_rates(self.rates)

    def check_seed(self) -> None:
        """Refuse a base seed that is not an integer >= 0."""
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InvalidParameterError(f"seed must be an integer >= 0, got {self.seed!r}")


def row_order(name: str, values: Sequence[float | None]) -> list[float | None]:
    """The rows of ``name`` in a table or along a frontier: rates from 0 up (from no change to
    every word replaced); epsilons with ``None`` first, then from the largest to the smallest.

    Parameters
    ----------
    name
        The registered name of the mechanism.
    values
        Its rows' epsilons (or rates).

    Returns
    -------
    list[float | None]
        The values, in order.

    Examples
    --------
    >>> row_order("random-sub", [1.0, 0.0, 0.5]), row_order("emp-text", [2.0, None, 10.0])
    ([0.0, 0.5, 1.0], [None, 10.0, 2.0])
    """
    if sweeps_rate(name):
        return sorted(values, key=lambda v: v or 0.0)
    return sorted(values, key=lambda e: (e is not None, -(e or 0.0)))


def epsilon_text(epsilon: float | None) -> str:
    """An epsilon as the tables show it; ``None`` (noise off) is ``none``.

    Parameters
    ----------
    epsilon
        The epsilon, or ``None``.

    Returns
    -------
    str
        Its text.

    Examples
    --------
    >>> epsilon_text(None), epsilon_text(10.0), epsilon_text(1e6)
    ('none', '10', '1e+06')
    """
    return "none" if epsilon is None else f"{epsilon:g}"


def rate_labelled(name: str, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (a results.json entry with an ``epsilon`` key) labelled by rate for a
    rate-swept baseline: ``rate`` holds the value and ``epsilon`` is ``None`` (it has none);
    any other mechanism's row as it is."""
    if not sweeps_rate(name) or "epsilon" not in row:
        return row
    return {**row, "epsilon": None, "rate": row["epsilon"]}


def strongest_attacker(
    mechanism: str,
    epsilon: float | None,
    attackers: Iterable[str],
    counts: Callable[[str], tuple[int, int]],
) -> dict[str, Any] | None:
    """The attacker with the largest accuracy at ``(mechanism, epsilon)``: ``counts(name)`` is
    its correct answers and queries, pooled over the row's cells; ties go to the name; with
    its Wilson 95% interval. ``None`` when no attacker answered a query."""
    best: tuple[float, str, int, int] | None = None
    for name in attackers:
        correct, total = counts(name)
        if total and (best is None or (correct / total, name) > (best[0], best[1])):
            best = (correct / total, name, correct, total)
    if best is None:
        return None
    interval = wilson_interval(best[2], best[3])
    return {
        "mechanism": mechanism,
        "epsilon": epsilon,
        "attacker": best[1],
        "correct": best[2],
        "total": best[3],
        "accuracy": best[0],
        "wilson95": [interval.low, interval.high],
    }
