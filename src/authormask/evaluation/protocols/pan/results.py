"""What a PAN run measured: one :class:`PanCell` per problem, mechanism, epsilon, repetition
and attacker, one :class:`PanUtilityCell` per problem, row and utility, one :class:`PanFloor`
per problem and utility (what unrelated originals already score), the :class:`PanExcerpt` of
the sample sheet, and the :class:`PanResult` that holds and summarises them: plain data. Its
reports read it (:func:`authormask.evaluation.reports.write_reports`); nothing here knows the
reports."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols._grid import rate_labelled, strongest_attacker
from authormask.evaluation.protocols.pan.config import PanConfig
from authormask.exceptions import InvalidParameterError

__all__ = ["PanCell", "PanExcerpt", "PanFloor", "PanResult", "PanUtilityCell", "pooled_mean"]

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class PanCell:
    """One attacker's answers on one problem at one mechanism, epsilon and repetition.

    Attributes
    ----------
    problem
        The problem's name.
    mechanism
        The registered name of the mechanism.
    epsilon
        The epsilon (a baseline's rate), ``None`` for the noise-off row.
    repetition
        The repetition.
    attacker
        The attacker's name.
    macro_f1
        PAN's macro-F1 of its answers.
    macro_f1_with_unk
        The same with ``<UNK>`` counted as a class.
    accuracy
        The share of its answers equal to the truth.
    correct
        Its answers equal to the truth.
    total
        The unknown texts it answered.
    abstained
        The texts it answered ``<UNK>`` on.
    seed
        The attacker's seed.
    seconds
        The time the measurement took.
    """

    problem: str
    mechanism: str
    epsilon: float | None
    repetition: int
    attacker: str
    macro_f1: float
    macro_f1_with_unk: float
    accuracy: float
    correct: int
    total: int
    abstained: int
    seed: int
    seconds: float


#: how a utility's per-text values are summarised: their mean, or (a ratio, fluency) their
#: geometric mean
SCALES = ("arithmetic", "geometric")


@dataclass(frozen=True)
class PanUtilityCell:
    """A utility measure on one problem at one mechanism, epsilon and repetition: the mean,
    the standard deviation (``ddof=1``; 0 for one text) and the number of texts it read.

    ``scale`` ``"geometric"`` (fluency, a ratio): ``mean`` is the geometric mean of the
    per-text values (``exp`` of the mean log) and ``sd`` the standard deviation of their
    natural logs.

    Attributes
    ----------
    problem
        The problem's name.
    mechanism
        The registered name of the mechanism.
    epsilon
        The epsilon (a baseline's rate), ``None`` for the noise-off row.
    repetition
        The repetition.
    measure
        The utility measure's name.
    mean
        The mean (the geometric mean on the ``"geometric"`` scale).
    sd
        The standard deviation (of the logs on the ``"geometric"`` scale).
    texts
        The texts it read.
    seconds
        The time the measurement took.
    scale
        ``"arithmetic"`` or ``"geometric"`` (:data:`SCALES`).
    """

    problem: str
    mechanism: str
    epsilon: float | None
    repetition: int
    measure: str
    mean: float
    sd: float
    texts: int
    seconds: float
    scale: str = "arithmetic"


@dataclass(frozen=True)
class PanFloor:
    """What a utility measure scores on one problem without any release, so a reader sees
    what its value is worth (:mod:`authormask.evaluation.protocols.pan`): for ``similarity``
    the mean MiniLM cosine of two different sampled originals (over ``pairs`` = every pair);
    for ``content-recall`` the mean recall of one original's content words by another (every
    ordered pair, or a fixed seeded sample of 5,000 of them); for ``retrieval`` a uniform
    guess among every original unknown text of the problem (1 / their number, no pairs;
    ``texts`` is the sampled releases it is the floor of, so a pooled floor weighs each problem
    as its pooled retrieval does). ``sd`` is over the pairs (``ddof=1``).

    Attributes
    ----------
    problem
        The problem's name.
    measure
        The utility measure's name.
    mean
        The floor.
    sd
        Its standard deviation over the pairs.
    texts
        The sampled originals (retrieval: the sampled releases).
    pairs
        The pairs read.
    seconds
        The time it took.
    """

    problem: str
    measure: str
    mean: float
    sd: float
    texts: int
    pairs: int
    seconds: float


@dataclass(frozen=True)
class PanExcerpt:
    """One row of the sample sheet (samples.md): the start of one sampled unknown text of
    ``problem``, as read from the collection (``mechanism`` ``None``) or as ``mechanism``
    released it at ``epsilon`` (``None``: noise off; repetition 0), with the whole text's
    ``words``, its content recall and fluency ratio against the original (``None`` when the
    run did not measure fluency).

    Attributes
    ----------
    problem
        The problem's name.
    text
        The unknown text's name.
    mechanism
        The mechanism that released it, or ``None`` for the original.
    epsilon
        The epsilon, or ``None`` for noise off.
    excerpt
        The start of the text.
    words
        The whole text's words.
    content_recall
        Its content recall against the original.
    fluency
        Its fluency ratio against the original, or ``None``.
    """

    problem: str
    text: str
    mechanism: str | None
    epsilon: float | None
    excerpt: str
    words: int
    content_recall: float
    fluency: float | None


def pooled_mean(cells: list[PanUtilityCell]) -> dict[str, Any] | None:
    """The mean over every text of ``cells`` (each cell's mean weighted by its texts), the
    pooled standard deviation, and the 95% interval of the mean (mean +- 1.96 standard errors;
    the mean itself for one text); ``None`` without cells. Cells of ``scale`` ``"geometric"``
    are pooled on the log scale: ``mean``, ``low`` and ``high`` are then the geometric mean and
    its interval (``exp`` of the log mean's), ``sd`` the standard deviation of the logs.
    ``scale`` says which.

    Parameters
    ----------
    cells
        The cells, all of one scale.

    Returns
    -------
    dict[str, Any] | None
        ``mean``, ``sd``, ``texts``, ``low``, ``high`` and ``scale``, or ``None``.

    Raises
    ------
    InvalidParameterError
        If the cells are of several scales, or of an unknown one.
    """
    n = sum(c.texts for c in cells)
    if not cells or n == 0:
        return None
    scales = {c.scale for c in cells}
    if len(scales) > 1 or not scales <= set(SCALES):
        raise InvalidParameterError(f"cannot pool cells of scales {sorted(scales)}")
    (scale,) = scales
    geometric = scale == "geometric"
    means = [math.log(c.mean) if geometric else c.mean for c in cells]
    mean = sum(m * c.texts for m, c in zip(means, cells, strict=True)) / n
    squares = sum(
        (c.texts - 1) * c.sd**2 + c.texts * (m - mean) ** 2
        for m, c in zip(means, cells, strict=True)
    )
    sd = math.sqrt(squares / (n - 1)) if n > 1 else 0.0
    half = _Z95 * sd / math.sqrt(n)
    low, high = mean - half, mean + half
    if geometric:
        mean, low, high = math.exp(mean), math.exp(low), math.exp(high)
    return {"mean": mean, "sd": sd, "texts": n, "low": low, "high": high, "scale": scale}


@dataclass(frozen=True)
class PanResult:
    """Every cell of a run, each release's public statement and what reproduces them.

    Attributes
    ----------
    config
        The run's config.
    collection
        The collection's summary.
    cells
        Every attacker's cell.
    utilities
        Every utility measure's cell.
    statements
        The releases' privacy statements, by row.
    provenance
        What reproduces the run.
    seconds
        The run's wall time.
    floors
        The utility measures' floors.
    samples
        The rows of the sample sheet.
    chance
        A uniform guess's macro-F1.
    """

    config: PanConfig
    collection: dict[str, Any]
    cells: tuple[PanCell, ...]
    utilities: tuple[PanUtilityCell, ...]
    statements: dict[str, Any]
    provenance: dict[str, Any]
    seconds: float
    floors: tuple[PanFloor, ...] = ()
    samples: tuple[PanExcerpt, ...] = ()
    #: a uniform guess's macro-F1 (:func:`~authormask.evaluation.protocols.pan.runner.
    #: uniform_guess`): the line an attacker is read against
    chance: dict[str, Any] = field(default_factory=dict)

    def cells_of(
        self, mechanism: str, epsilon: float | None, attacker: str, problem: str | None = None
    ) -> list[PanCell]:
        """The cells of one attacker at ``(mechanism, epsilon)``.

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.
        attacker
            The attacker's name.
        problem
            Only this problem's cells, or ``None`` for every problem's.

        Returns
        -------
        list[PanCell]
            The cells, in the order measured.
        """
        return [
            c
            for c in self.cells
            if c.mechanism == mechanism
            and c.epsilon == epsilon
            and c.attacker == attacker
            and (problem is None or c.problem == problem)
        ]

    def mean_f1(self, mechanism: str, epsilon: float | None, attacker: str) -> float:
        """Macro-F1 averaged over problems and repetitions (PAN's overall score).

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.
        attacker
            The attacker's name.

        Returns
        -------
        float
            The mean macro-F1.
        """
        return float(np.mean([c.macro_f1 for c in self.cells_of(mechanism, epsilon, attacker)]))

    def best(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        """The strongest attacker at ``(mechanism, epsilon)``: the largest mean macro-F1, with
        its accuracy over every unknown text of every problem and repetition and that
        accuracy's Wilson 95% interval.

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.

        Returns
        -------
        dict[str, Any]
            The attacker, its mean macro-F1, accuracy, counts and ``wilson95`` interval.
        """
        name = max(self.config.attackers, key=lambda a: (self.mean_f1(mechanism, epsilon, a), a))
        cells = self.cells_of(mechanism, epsilon, name)
        correct = sum(c.correct for c in cells)
        total = sum(c.total for c in cells)
        interval = wilson_interval(correct, total)
        return {
            "attacker": name,
            "macro_f1": self.mean_f1(mechanism, epsilon, name),
            "accuracy": interval.value,
            "correct": correct,
            "total": total,
            "wilson95": [interval.low, interval.high],
        }

    def most_accurate(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        """The attacker with the largest accuracy at ``(mechanism, epsilon)``, pooled over every
        unknown text of every problem and repetition (correct and total summed; ties to the
        name), with its Wilson 95% interval: the attacker a target accuracy is read against
        (:mod:`authormask.evaluation.tradeoff`). Macro-F1 and accuracy may pick different
        attackers (an attacker that answers <UNK> well gains accuracy, not macro-F1).

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.

        Returns
        -------
        dict[str, Any]
            The attacker, its counts, accuracy and ``wilson95`` interval.

        Raises
        ------
        InvalidParameterError
            If no attacker answered a text at that row.
        """

        def pooled(name: str) -> tuple[int, int]:
            cells = self.cells_of(mechanism, epsilon, name)
            return sum(c.correct for c in cells), sum(c.total for c in cells)

        best = strongest_attacker(mechanism, epsilon, self.config.attackers, pooled)
        if best is None:
            raise InvalidParameterError(f"no attacker answered at {mechanism} {epsilon}")
        return best

    def utility_cells(
        self, mechanism: str, epsilon: float | None, measure: str, problem: str | None = None
    ) -> list[PanUtilityCell]:
        """The cells of one utility measure at ``(mechanism, epsilon)``.

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.
        measure
            The utility measure's name.
        problem
            Only this problem's cells, or ``None`` for every problem's.

        Returns
        -------
        list[PanUtilityCell]
            The cells, in the order measured.
        """
        return [
            c
            for c in self.utilities
            if c.mechanism == mechanism
            and c.epsilon == epsilon
            and c.measure == measure
            and (problem is None or c.problem == problem)
        ]

    def utility(
        self, mechanism: str, epsilon: float | None, measure: str, problem: str | None = None
    ) -> dict[str, Any] | None:
        """Utility ``measure`` of the released unknown texts against the originals, over the
        sampled texts of every problem (or of ``problem``) and repetition, with its 95%
        interval (:func:`pooled_mean`; fluency's is a geometric mean); ``None`` when it was
        not measured.

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.
        measure
            The utility measure's name.
        problem
            Only this problem, or ``None`` for every problem.

        Returns
        -------
        dict[str, Any] | None
            As :func:`pooled_mean` gives it.
        """
        return pooled_mean(self.utility_cells(mechanism, epsilon, measure, problem))

    def similarity(
        self, mechanism: str, epsilon: float | None, problem: str | None = None
    ) -> dict[str, Any] | None:
        """The mean MiniLM similarity of the released unknown texts to the originals
        (:meth:`utility`).

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the noise-off row.
        problem
            Only this problem, or ``None`` for every problem.

        Returns
        -------
        dict[str, Any] | None
            As :func:`pooled_mean` gives it.
        """
        return self.utility(mechanism, epsilon, "similarity", problem)

    def floor(self, measure: str, problem: str | None = None) -> dict[str, Any] | None:
        """The floor of utility ``measure`` (:class:`PanFloor`) of ``problem``, or over every
        problem (each problem's floor weighted by its sampled texts, as the utilities pool
        them), with the pairs it read; ``None`` when there is none (the measure was not run,
        or a problem had one sampled text).

        Parameters
        ----------
        measure
            The utility measure's name.
        problem
            Only this problem, or ``None`` for every problem.

        Returns
        -------
        dict[str, Any] | None
            ``mean``, ``texts``, ``pairs`` and ``problems``, or ``None``.
        """
        floors = [
            f
            for f in self.floors
            if f.measure == measure and (problem is None or f.problem == problem)
        ]
        texts = sum(f.texts for f in floors)
        if not floors or texts == 0:
            return None
        return {
            "mean": sum(f.mean * f.texts for f in floors) / texts,
            "texts": texts,
            "pairs": sum(f.pairs for f in floors),
            "problems": len(floors),
        }

    @property
    def chance_accuracy(self) -> float:
        """The accuracy of a uniform guess among each problem's candidates (never <UNK>),
        over every unknown text of every problem."""
        problems = self.collection["problems"]
        expected = sum(
            (p["unknown_texts"] - p["unknown_by_no_candidate"]) / p["candidates"] for p in problems
        )
        return float(expected / sum(p["unknown_texts"] for p in problems))

    def to_dict(self) -> dict[str, Any]:
        """The result as results.json holds it.

        Returns
        -------
        dict[str, Any]
            The config, collection, chance, a summary per row, every cell, the floors, statements,
            provenance and the wall time.
        """
        summary = []
        for m in self.config.mechanisms:
            for e in self.config.points(m):
                summary.append(
                    rate_labelled(
                        m,
                        {
                            "mechanism": m,
                            "epsilon": e,
                            "mean_macro_f1": {
                                a: self.mean_f1(m, e, a) for a in self.config.attackers
                            },
                            "best": self.best(m, e),
                            "most_accurate": self.most_accurate(m, e),
                            "similarity": self.similarity(m, e),
                            **{
                                u: self.utility(m, e, u)
                                for u in self.config.utilities
                                if u != "similarity"
                            },
                        },
                    )
                )
        return {
            "authormask": __version__,
            "protocol": "pan",
            "config": asdict(self.config),
            "collection": self.collection,
            "chance_accuracy": self.chance_accuracy,
            "chance_macro_f1": self.chance,
            "summary": summary,
            "cells": [rate_labelled(c.mechanism, asdict(c)) for c in self.cells],
            "utility_cells": [asdict(c) for c in self.utilities],
            "floors": {
                u: {
                    "all": self.floor(u),
                    "per_problem": {f.problem: f.mean for f in self.floors if f.measure == u},
                }
                for u in self.config.utilities
                if any(f.measure == u for f in self.floors)
            },
            "floor_cells": [asdict(f) for f in self.floors],
            "statements": self.statements,
            "provenance": self.provenance,
            "seconds": round(self.seconds, 2),
        }
