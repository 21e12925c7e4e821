"""What a fernandes2019 sweep measured: one :class:`Cell` per measure, mechanism, epsilon and
repetition, the :class:`SweepResult` of a study, and the :class:`CollectionSweep` of a PAN
collection (one sweep per problem and the problems pooled, :func:`pool_sweeps`): plain data.
Their reports read them (:func:`authormask.evaluation.reports.write_reports`); nothing here
knows the reports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from authormask._version import __version__
from authormask.evaluation.protocols._grid import rate_labelled, strongest_attacker
from authormask.evaluation.protocols.fernandes2019.config import SweepConfig
from authormask.exceptions import InvalidParameterError

__all__ = ["Cell", "CollectionSweep", "SweepResult", "pool_sweeps"]


@dataclass(frozen=True)
class Cell:
    """One measurement: a measure at one mechanism, epsilon and repetition.

    Attributes
    ----------
    mechanism
        The registered name of the mechanism.
    epsilon
        The epsilon (a baseline's rate), ``None`` for the unmodified row.
    repetition
        The repetition.
    measure
        The measure's name.
    kind
        ``"attacker"`` or ``"utility"``.
    correct
        The texts labelled right, ``None`` for a measure that labels nothing.
    total
        The texts measured.
    value
        The accuracy, or the mean score.
    abstained
        The texts the measure answered "don't know" on.
    seed
        The measure's seed, ``None`` in a pooled cell.
    seconds
        The time the measurement took.
    """

    mechanism: str
    epsilon: float | None
    repetition: int
    measure: str
    kind: str  # "attacker" or "utility"
    correct: int | None
    total: int
    value: float  # accuracy, or mean similarity
    abstained: int
    seed: int | None
    seconds: float


@dataclass(frozen=True)
class SweepResult:
    """Everything a sweep measured and everything needed to reproduce it.

    Attributes
    ----------
    config
        The sweep's config.
    study
        The study, in numbers (:meth:`~authormask.evaluation.study.Study.describe`).
    cells
        Every measurement.
    baselines
        The expected correct answers of a uniform guess, by task.
    statements
        The mechanisms' privacy statements, by row.
    provenance
        What reproduces the run (versions, seeds, the measures' descriptions).
    seconds
        The run's wall time.
    """

    config: SweepConfig
    study: dict[str, Any]
    cells: tuple[Cell, ...]
    baselines: dict[str, float]
    statements: dict[str, Any]
    provenance: dict[str, Any]
    seconds: float

    def cell(self, mechanism: str, epsilon: float | None, measure: str) -> list[Cell]:
        """The cells of one measure at ``(mechanism, epsilon)``, one per repetition.

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the unmodified row.
        measure
            The measure's name.

        Returns
        -------
        list[Cell]
            The cells, in the order measured.
        """
        return [
            c
            for c in self.cells
            if c.mechanism == mechanism and c.epsilon == epsilon and c.measure == measure
        ]

    def strongest(self, mechanism: str, epsilon: float | None) -> dict[str, Any] | None:
        """The best attacker at ``(mechanism, epsilon)``: the largest accuracy over every
        snippet and repetition (ties to the name), with its Wilson 95% interval; ``None``
        without attackers. Chosen after the fact on the same snippets, so if anything it
        flatters the attacker, never the mechanism.

        Parameters
        ----------
        mechanism
            The registered name of the mechanism.
        epsilon
            The epsilon (a baseline's rate), ``None`` for the unmodified row.

        Returns
        -------
        dict[str, Any] | None
            The attacker, its counts, accuracy and ``wilson95`` interval, or ``None``.
        """

        def counts(name: str) -> tuple[int, int]:
            cells = self.cell(mechanism, epsilon, name)
            return sum(int(c.correct or 0) for c in cells), sum(c.total for c in cells)

        return strongest_attacker(mechanism, epsilon, self.config.attackers, counts)

    @property
    def cell_seconds(self) -> float:
        """Time spent measuring the cells, including cells restored from the cache."""
        return float(sum(c.seconds for c in self.cells))

    def to_dict(self) -> dict[str, Any]:
        """The result as results.json holds it.

        Returns
        -------
        dict[str, Any]
            The config, study, baselines, cells, strongest attackers, statements, provenance and
            timings.
        """
        return {
            "authormask": __version__,
            "config": asdict(self.config),
            "study": self.study,
            "baselines": self.baselines,
            "cells": [rate_labelled(c.mechanism, asdict(c)) for c in self.cells],
            "strongest": [
                rate_labelled(m, best)
                for m in self.config.mechanisms
                for e in self.config.points(m)
                if (best := self.strongest(m, e)) is not None
            ],
            "statements": self.statements,
            "provenance": self.provenance,
            "seconds": round(self.seconds, 2),
            "cell_seconds": round(self.cell_seconds, 2),
        }


@dataclass(frozen=True)
class CollectionSweep:
    """The sweep of a PAN collection: one :class:`SweepResult` per problem (its own closed-set
    author study, in the collection's order) and ``pooled``, the problems pooled
    (:func:`pool_sweeps`), on which the tables' first section, the frontier and the
    recommendation are read.

    Attributes
    ----------
    collection
        The collection's summary.
    problems
        One result per problem, in the collection's order.
    pooled
        The problems pooled.
    """

    collection: dict[str, Any]
    problems: tuple[SweepResult, ...]
    pooled: SweepResult

    @property
    def problem_names(self) -> tuple[str, ...]:
        return tuple(str(r.study["problem"]) for r in self.problems)


def pool_sweeps(results: Sequence[SweepResult], *, name: str, seed: int) -> SweepResult:
    """The problems of a collection pooled into one :class:`SweepResult` of the same shape:
    per mechanism, epsilon, repetition and measure, an attacker's correct answers and queries
    are summed over problems (its pooled accuracy is correct / total), a utility's value is the
    mean over every query of every problem (each problem's mean weighted by its queries). The
    chance baseline is the sum of the problems' expected correct guesses (each problem's
    queries / its candidates). Candidate sets are never merged: every count was made within its
    own problem.

    Parameters
    ----------
    results
        The problems' results (at least one), each with the same cells.
    name
        The pooled study's corpus name.
    seed
        The pooled config's seed (the collection's base seed).

    Returns
    -------
    SweepResult
        The pooled result.

    Raises
    ------
    InvalidParameterError
        If ``results`` is empty or a cell is not in every problem.
    """
    if not results:
        raise InvalidParameterError("pooling needs at least one problem's sweep")
    first = results[0]
    keys = [(c.mechanism, c.epsilon, c.repetition, c.measure) for c in first.cells]
    cells: list[Cell] = []
    for mechanism, epsilon, rep, name_ in keys:
        parts = [
            c
            for r in results
            for c in r.cells
            if (c.mechanism, c.epsilon, c.repetition, c.measure) == (mechanism, epsilon, rep, name_)
        ]
        if len(parts) != len(results):
            raise InvalidParameterError(
                f"cannot pool: {mechanism} epsilon {epsilon} {name_} is not in every problem"
            )
        total = sum(c.total for c in parts)
        correct: int | None = None
        if parts[0].correct is not None:
            correct = sum(int(c.correct or 0) for c in parts)
            value = correct / total
        else:
            value = sum(c.value * c.total for c in parts) / total
        cells.append(
            Cell(
                mechanism=mechanism,
                epsilon=epsilon,
                repetition=rep,
                measure=name_,
                kind=parts[0].kind,
                correct=correct,
                total=total,
                value=value,
                abstained=sum(c.abstained for c in parts),
                seed=None,
                seconds=sum(c.seconds for c in parts),
            )
        )
    lengths = sorted({int(r.study["length_N"]) for r in results})
    study: dict[str, Any] = {
        "task": "author",
        "corpus_name": name,
        "known_texts": sum(int(r.study["known_texts"]) for r in results),
        "queries": sum(int(r.study["queries"]) for r in results),
        "training_texts": 0,
        "length_N": lengths[0] if len(lengths) == 1 else f"{lengths[0]}-{lengths[-1]}",
        "authors": sum(int(r.study["authors"]) for r in results),
        "topics": [],
        "problems": [r.study for r in results],
        "pooled": "counts summed over problems, each problem its own closed-set task",
    }
    baselines: dict[str, float] = {}
    if all("author" in r.baselines for r in results):
        baselines["author"] = float(sum(r.baselines["author"] for r in results))
    statements: dict[str, Any] = {}
    for key in dict.fromkeys(k for r in results for k in r.statements):
        variants = [r.statements[key] for r in results if key in r.statements]
        if all(v == variants[0] for v in variants):
            statements[key] = variants[0]
        else:  # N (emp-bag) differs between problems: one statement each
            for r in results:
                if key in r.statements:
                    statements[f"{r.study['problem']}: {key}"] = r.statements[key]
    provenance = dict(first.provenance)
    provenance["seeds"] = (
        "each problem is swept with its own base seed, SeedSequence(entropy=config.seed, "
        "spawn_key=(sha256(problem)[:4],)); within it: " + str(first.provenance.get("seeds", ""))
    )
    return SweepResult(
        config=replace(first.config, seed=seed),
        study=study,
        cells=tuple(cells),
        baselines=baselines,
        statements=statements,
        provenance=provenance,
        seconds=sum(r.seconds for r in results),
    )
