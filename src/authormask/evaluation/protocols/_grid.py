"""What the two protocols that sweep a grid share (fernandes2019 and pan): the rows of a
mechanism (its epsilons, or its rates for a baseline swept over rates; each repeated, the
noise-off row once), how a config checks them, and the strongest attacker at one row, pooled
over the row's cells."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols._common import check_epsilons
from authormask.evaluation.protocols._releases import check_rates, sweeps_rate
from authormask.exceptions import InvalidParameterError

__all__ = ["Grid", "strongest_attacker"]


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
