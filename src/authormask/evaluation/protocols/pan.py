"""The PAN cross-domain authorship attribution protocol (Kestemont et al. 2018, 2019), with
obfuscation.

Every problem of a PAN 2018/2019 collection is its own attribution task and is scored on its
own; problems are never pooled. For each problem, mechanism, epsilon and repetition, the
problem's known and unknown texts are released together through
:func:`authormask.release.release` (one release, so a mechanism that fixes N from its inputs,
``emp-bag`` with ``length="shortest"``, fixes one N for the problem). Then each attacker

* is trained on the known texts in the mechanism's *noise-off* form (its own preparation with
  the noise switched off, :mod:`authormask.evaluation.protocols._releases`), or, for
  ``adaptive-<name>``, on the known texts as released at this epsilon; so an attacker is always
  trained on texts in the form of the texts it is tested on;
* answers for every released unknown text a candidate or ``<UNK>`` (an attacker that never
  rejects is closed-set, as PAN 2018's problems were);
* is scored by PAN's macro-F1 (:func:`authormask.evaluation.metrics.pan_macro_f1`).

The default attackers are the strongest measured on fan fiction (``pan19-en``): the typed
character 3-gram SVM and logistic regression (Sapkota et al. 2015) and PAN 2019's own baseline
(:data:`PAN_ATTACKERS`); every table's headline is the strongest of those asked for.

Utility (``utilities=("similarity",)``, the default): the MiniLM similarity
(:class:`~authormask.evaluation.measures.utilities.similarity.SentenceSimilarity`) between each
released unknown text and the **original** unknown text as read from the collection, so the
noise-off row shows what the mechanism's preparation alone changes (unknown words mapped,
contractions split, a canonical skeleton), and a mechanism is never credited for what its
preparation removes. MiniLM reads about 30 chunks of 100 words a second on two cores, so it
reads a fixed sample of ``similarity_texts`` unknown texts per problem (default 50; ``None``:
all), drawn once per problem from the base seed and the problem's name, the same texts at every
mechanism, epsilon and repetition (differences between rows are paired). Its mean comes with a
95% interval (mean +- 1.96 standard errors over the sampled texts).

The row ``epsilon = None`` ("none") is the noise-off release of both known and unknown texts.
Releases and scores are cached (:class:`~authormask.evaluation.reports.cache.ResultsCache`), so an
interrupted run resumes. Seeds derive from the base seed, the problem's name, the mechanism's
fixed code, the repetition, epsilon and the role (texts or attacker), never from the order of
the configuration.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.datasets.pan import PanCollection, PanProblem
from authormask.evaluation.measures import AttackerSettings, attacker_names
from authormask.evaluation.measures import attacker as attacker_measure
from authormask.evaluation.measures.attackers.typed import EmbeddingMemo
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.metrics import UNKNOWN, pan_macro_f1, wilson_interval
from authormask.evaluation.protocols._common import (
    check_epsilons,
    derive_seed,
    mechanism_code,
    package_versions,
    problem_code,
)
from authormask.evaluation.protocols._releases import (
    DEFAULT_RATES,
    build_mechanism,
    check_rates,
    mechanism_parameters,
    public_parameters,
    rate_labelled,
    sweeps_rate,
)
from authormask.evaluation.reports.cache import ResultsCache, cache_key
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.release import mechanism_names, mechanism_spec, release
from authormask.validation import check_positive_int

__all__ = [
    "PAN_ATTACKERS",
    "PAN_UTILITIES",
    "PanCell",
    "PanConfig",
    "PanResult",
    "PanUtilityCell",
    "check_pan",
    "run_pan",
]

logger = logging.getLogger(__name__)

#: the default attackers: the strongest on fan fiction (typed character 3-grams, Sapkota et al.
#: 2015, with a linear SVM and with logistic regression) and PAN 2019's own baseline
PAN_ATTACKERS = ("typed-svm", "typed-lr", "pan-baseline")
#: the utility measures the PAN protocol reads (MiniLM similarity to the original texts)
PAN_UTILITIES = ("similarity",)
#: unknown texts per problem whose similarity is measured (module docstring)
SIMILARITY_TEXTS = 50
CACHE_FORMAT = 1
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class PanConfig:
    """What to run on every problem. ``epsilons`` may hold ``None`` (noise off);
    ``mechanisms`` are registry names; ``length`` is N for mechanisms that release N words
    (default ``"shortest"``: the smallest content-word count of the problem's texts);
    ``parameters`` adds registry parameters per mechanism; ``utilities`` is ``("similarity",)``
    or ``()``; ``similarity_texts`` the unknown texts per problem whose similarity is measured
    (``None``: all)."""

    mechanisms: tuple[str, ...] = ("emp-text",)
    epsilons: tuple[float | None, ...] = (None, 20.0, 10.0, 5.0)
    attackers: tuple[str, ...] = PAN_ATTACKERS
    utilities: tuple[str, ...] = PAN_UTILITIES
    similarity_texts: int | None = SIMILARITY_TEXTS
    repetitions: int = 1
    seed: int = 0
    length: int | str = "shortest"
    koppel_iterations: int = 100
    parameters: dict[str, dict[str, Any]] = field(default_factory=dict)
    rates: tuple[float, ...] = DEFAULT_RATES
    mechanism_epsilons: dict[str, tuple[float | None, ...]] = field(default_factory=dict)
    #: how ``mechanism_epsilons`` were chosen, when ``--epsilons auto`` chose them (per
    #: mechanism: the target change rates and the rates measured, :func:`~authormask.
    #: evaluation.calibration.auto_epsilons`); recorded in results.json, read by nothing
    epsilon_calibration: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for epsilons in (self.epsilons, *self.mechanism_epsilons.values()):
            check_epsilons(epsilons)
        check_rates(self.rates)
        if not self.mechanisms:
            raise InvalidParameterError("give at least one mechanism")
        for m in self.mechanisms:
            if m not in mechanism_names():
                raise InvalidParameterError(
                    f"unknown mechanism {m!r}; choose one of {', '.join(mechanism_names())}"
                )
        if len(set(self.mechanisms)) != len(self.mechanisms):
            raise InvalidParameterError("mechanisms must not repeat")
        for m in self.mechanisms:
            takes = mechanism_spec(m).parameter_names
            if "epsilon" not in takes and not sweeps_rate(m):
                raise InvalidParameterError(
                    f"mechanism {m} takes no epsilon (it takes {', '.join(takes)}); the PAN "
                    "protocol releases at each epsilon (or, for a baseline, at each rate)"
                )
        for u in self.utilities:
            if u not in PAN_UTILITIES:
                raise InvalidParameterError(
                    f"the PAN protocol's utility measure is {', '.join(PAN_UTILITIES)} "
                    f"(MiniLM, released vs original text), got {u!r}"
                )
        if len(set(self.utilities)) != len(self.utilities):
            raise InvalidParameterError("utilities must not repeat")
        if self.similarity_texts is not None:
            check_positive_int(self.similarity_texts, name="similarity texts per problem")
        if not self.attackers:
            raise InvalidParameterError("give at least one attacker")
        for a in self.attackers:
            if a not in attacker_names():
                raise InvalidParameterError(
                    f"unknown attacker {a!r}; choose from {', '.join(attacker_names())}"
                )
        if len(set(self.attackers)) != len(self.attackers):
            raise InvalidParameterError("attackers must not repeat")
        check_positive_int(self.repetitions, name="repetitions")
        check_positive_int(self.koppel_iterations, name="Koppel iterations")
        if self.length != "shortest":
            check_positive_int(self.length, name="length N")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InvalidParameterError(f"seed must be an integer >= 0, got {self.seed!r}")

    def points(self, mechanism: str) -> tuple[float | None, ...]:
        """The rows of ``mechanism``: its rates for a rate-swept baseline (``random-sub``),
        else its own epsilons (``mechanism_epsilons``) or the run's."""
        if sweeps_rate(mechanism):
            return tuple(self.rates)
        return tuple(self.mechanism_epsilons.get(mechanism, self.epsilons))


@dataclass(frozen=True)
class PanCell:
    """One attacker's answers on one problem at one mechanism, epsilon and repetition."""

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


@dataclass(frozen=True)
class PanUtilityCell:
    """A utility measure on one problem at one mechanism, epsilon and repetition: the mean,
    the standard deviation (``ddof=1``; 0 for one text) and the number of texts it read."""

    problem: str
    mechanism: str
    epsilon: float | None
    repetition: int
    measure: str
    mean: float
    sd: float
    texts: int
    seconds: float


def pooled_mean(cells: list[PanUtilityCell]) -> dict[str, Any] | None:
    """The mean over every text of ``cells`` (each cell's mean weighted by its texts), the
    pooled standard deviation, and the 95% interval of the mean (mean +- 1.96 standard errors;
    the mean itself for one text); ``None`` without cells."""
    n = sum(c.texts for c in cells)
    if not cells or n == 0:
        return None
    mean = sum(c.mean * c.texts for c in cells) / n
    squares = sum((c.texts - 1) * c.sd**2 + c.texts * (c.mean - mean) ** 2 for c in cells)
    sd = math.sqrt(squares / (n - 1)) if n > 1 else 0.0
    half = _Z95 * sd / math.sqrt(n)
    return {"mean": mean, "sd": sd, "texts": n, "low": mean - half, "high": mean + half}


@dataclass(frozen=True)
class PanResult:
    """Every cell of a run, each release's public statement and what reproduces them."""

    config: PanConfig
    collection: dict[str, Any]
    cells: tuple[PanCell, ...]
    utilities: tuple[PanUtilityCell, ...]
    statements: dict[str, Any]
    provenance: dict[str, Any]
    seconds: float

    def cells_of(
        self, mechanism: str, epsilon: float | None, attacker: str, problem: str | None = None
    ) -> list[PanCell]:
        return [
            c
            for c in self.cells
            if c.mechanism == mechanism
            and c.epsilon == epsilon
            and c.attacker == attacker
            and (problem is None or c.problem == problem)
        ]

    def mean_f1(self, mechanism: str, epsilon: float | None, attacker: str) -> float:
        """Macro-F1 averaged over problems and repetitions (PAN's overall score)."""
        return float(np.mean([c.macro_f1 for c in self.cells_of(mechanism, epsilon, attacker)]))

    def best(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        """The strongest attacker at ``(mechanism, epsilon)``: the largest mean macro-F1, with
        its accuracy over every unknown text of every problem and repetition and that
        accuracy's Wilson 95% interval."""
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
        (:mod:`authormask.evaluation.frontier`). Macro-F1 and accuracy may pick different
        attackers (an attacker that answers <UNK> well gains accuracy, not macro-F1)."""

        def pooled(name: str) -> tuple[int, int]:
            cells = self.cells_of(mechanism, epsilon, name)
            return sum(c.correct for c in cells), sum(c.total for c in cells)

        name = max(self.config.attackers, key=lambda a: (pooled(a)[0] / pooled(a)[1], a))
        correct, total = pooled(name)
        interval = wilson_interval(correct, total)
        return {
            "mechanism": mechanism,
            "epsilon": epsilon,
            "attacker": name,
            "correct": correct,
            "total": total,
            "accuracy": interval.value,
            "wilson95": [interval.low, interval.high],
        }

    def utility_cells(
        self, mechanism: str, epsilon: float | None, measure: str, problem: str | None = None
    ) -> list[PanUtilityCell]:
        return [
            c
            for c in self.utilities
            if c.mechanism == mechanism
            and c.epsilon == epsilon
            and c.measure == measure
            and (problem is None or c.problem == problem)
        ]

    def similarity(
        self, mechanism: str, epsilon: float | None, problem: str | None = None
    ) -> dict[str, Any] | None:
        """The mean MiniLM similarity of the released unknown texts to the originals, over the
        sampled texts of every problem (or of ``problem``) and repetition, with its 95%
        interval (:func:`pooled_mean`); ``None`` when similarity was not measured."""
        return pooled_mean(self.utility_cells(mechanism, epsilon, "similarity", problem))

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
                        },
                    )
                )
        return {
            "authormask": __version__,
            "protocol": "pan",
            "config": asdict(self.config),
            "collection": self.collection,
            "chance_accuracy": self.chance_accuracy,
            "summary": summary,
            "cells": [rate_labelled(c.mechanism, asdict(c)) for c in self.cells],
            "utility_cells": [asdict(c) for c in self.utilities],
            "statements": self.statements,
            "provenance": self.provenance,
            "seconds": round(self.seconds, 2),
        }


def _seeds(
    base: int, problem: str, mechanism: str, epsilon: float | None, rep: int
) -> tuple[int, int]:
    """(texts, attacker) seeds of one cell group."""
    eps_key = 0 if epsilon is None else round(epsilon * 1000)
    key = (problem_code(problem), mechanism_code(mechanism), rep, eps_key)
    return derive_seed(base, *key, 0), derive_seed(base, *key, 1)


def check_pan(collection: PanCollection, config: PanConfig) -> None:
    """Refuse, before any work, what cannot run on ``collection`` (saying what is missing): an
    attacker that needs several known texts per candidate (``pan-baseline`` calibrates on 3
    folds) on a problem with fewer."""
    strictest = max(
        (attacker_measure(a) for a in config.attackers), key=lambda m: m.known_per_author
    )
    need = strictest.known_per_author
    if need <= 1:
        return
    for p in collection.problems:
        counts = {c: 0 for c in p.candidates}
        for t in p.known:
            counts[t.author] += 1
        fewest = min(p.candidates, key=lambda c: (counts[c], c))
        if counts[fewest] < need:
            raise InputError(
                f"{p.name}: candidate {fewest!r} has {counts[fewest]} known text(s); "
                f"{strictest.base_name} {strictest.needs_known_because} and needs at least "
                f"{need} per candidate (choose other --attackers)"
            )


class _Runner:
    def __init__(
        self,
        collection: PanCollection,
        embeddings: Any,
        config: PanConfig,
        cache_dir: Path | None,
    ) -> None:
        self.collection = collection
        self.embeddings = embeddings
        self.config = config
        self.cache = ResultsCache(cache_dir)
        self.attackers = {name: attacker_measure(name) for name in config.attackers}
        similarity = SentenceSimilarity()  # loads MiniLM on first use only
        self.similarity = similarity
        self._originals: dict[str, np.ndarray] = {}  # problem -> the sampled originals' vectors
        self.settings = AttackerSettings(
            embeddings=embeddings,
            koppel_iterations=config.koppel_iterations,
            encoder=EmbeddingMemo(similarity),
            similarity=similarity,
        )
        self.statements: dict[str, Any] = {}

    def parameters(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        return mechanism_parameters(
            mechanism,
            epsilon,
            embeddings=self.embeddings,
            length=self.config.length,
            extra=self.config.parameters.get(mechanism),
        )

    def problem_key(self, problem: PanProblem) -> str:
        return cache_key(
            {
                "candidates": list(problem.candidates),
                "known": [[t.name, t.author, t.text] for t in problem.known],
                "unknown": [[t.name, t.author, t.text] for t in problem.unknown],
            }
        )

    def released(
        self, problem: PanProblem, mechanism: str, epsilon: float | None, seed: int
    ) -> tuple[list[Item], list[Item]]:
        """The problem's known and unknown texts released together at ``epsilon`` (``None``:
        noise off), as items; the release is cached."""
        params = self.parameters(mechanism, epsilon)
        key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "problem": self.problem_key(problem),
            "mechanism": mechanism,
            "parameters": public_parameters(params),
            "seed": seed,
        }
        cached = self.cache.get("pan-release", key)
        if cached is None:
            texts = [t.text for t in problem.known] + [t.text for t in problem.unknown]
            sources = [f"{problem.name}/{t.author}/{t.name}" for t in problem.known] + [
                f"{problem.name}/unknown/{t.name}" for t in problem.unknown
            ]
            try:
                rel = release(
                    texts,
                    build_mechanism(mechanism, params),
                    random_state=seed,
                    sources=sources,
                )
            except InputError as exc:
                raise InputError(f"{problem.name}, {mechanism}: {exc}") from None
            cached = {
                "texts": [d.text for d in rel.documents],
                "words": [list(d.words) for d in rel.documents],
                "statement": rel.statement.to_dict(),
            }
            self.cache.put("pan-release", key, cached)
        if epsilon is not None:
            self.statements.setdefault(f"{mechanism}/{epsilon:g}", cached["statement"])
        items = [
            Item(f"{problem.name}/{i}", text, tuple(words), author)
            for i, (text, words, author) in enumerate(
                zip(
                    cached["texts"],
                    cached["words"],
                    [t.author for t in problem.known] + [t.author for t in problem.unknown],
                    strict=True,
                )
            )
        ]
        return items[: len(problem.known)], items[len(problem.known) :]

    def cell(
        self,
        problem: PanProblem,
        mechanism: str,
        epsilon: float | None,
        rep: int,
        attacker: str,
        base: tuple[list[Item], list[Item]],
    ) -> PanCell:
        text_seed, attacker_seed = _seeds(self.config.seed, problem.name, mechanism, epsilon, rep)
        key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "problem": self.problem_key(problem),
            "mechanism": mechanism,
            "parameters": public_parameters(self.parameters(mechanism, epsilon)),
            "epsilon": epsilon,
            "rep": rep,
            "attacker": attacker,
            "seeds": [text_seed, attacker_seed],
            "koppel_iterations": self.config.koppel_iterations,
        }
        cached = self.cache.get("pan-cell", key)
        if cached is not None:
            if epsilon is not None:  # the statement of the release
                self.released(problem, mechanism, epsilon, text_seed)
            return PanCell(**cached)
        start = time.perf_counter()
        known, unknown = (
            base if epsilon is None else self.released(problem, mechanism, epsilon, text_seed)
        )
        preds = self.attackers[attacker].predict(
            _PanInputs(
                mechanism=mechanism,
                epsilon=epsilon,
                seed=attacker_seed,
                run_seed=self.config.seed,
                settings=self.settings,
                texts=(known, unknown),
                base=base,
            )
        )
        names = [t.name for t in problem.unknown]
        answers = {
            n: (p if p is not None else UNKNOWN) for n, p in zip(names, preds.labels, strict=True)
        }
        score = pan_macro_f1(problem.truth, answers, problem.candidates)
        cell = PanCell(
            problem=problem.name,
            mechanism=mechanism,
            epsilon=epsilon,
            repetition=rep,
            attacker=attacker,
            macro_f1=score.macro_f1,
            macro_f1_with_unk=score.macro_f1_with_unk,
            accuracy=score.accuracy,
            correct=score.correct,
            total=score.total,
            abstained=preds.abstained,
            seed=text_seed,
            seconds=time.perf_counter() - start,
        )
        self.cache.put("pan-cell", key, asdict(cell))
        return cell

    def similarity_sample(self, problem: PanProblem) -> list[int]:
        """The unknown texts of ``problem`` whose similarity is measured (module docstring):
        ``similarity_texts`` of them drawn without replacement, in order; all if fewer."""
        n = len(problem.unknown)
        k = self.config.similarity_texts
        if k is None or k >= n:
            return list(range(n))
        rng = np.random.default_rng(derive_seed(self.config.seed, problem_code(problem.name)))
        return sorted(int(i) for i in rng.choice(n, size=k, replace=False))

    def utility(
        self,
        problem: PanProblem,
        mechanism: str,
        epsilon: float | None,
        rep: int,
        base: tuple[list[Item], list[Item]],
    ) -> PanUtilityCell:
        """MiniLM similarity of the sampled released unknown texts to the originals (cached)."""
        text_seed, _ = _seeds(self.config.seed, problem.name, mechanism, epsilon, rep)
        sample = self.similarity_sample(problem)
        key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "problem": self.problem_key(problem),
            "mechanism": mechanism,
            "parameters": public_parameters(self.parameters(mechanism, epsilon)),
            "epsilon": epsilon,
            "rep": rep,
            "seed": text_seed,
            "measure": "similarity",
            "encoder": [self.similarity.name, self.similarity.chunk_words],
            "sample": sample,
        }
        cached = self.cache.get("pan-utility", key)
        if cached is not None:
            return PanUtilityCell(**cached)
        start = time.perf_counter()
        _, unknown = (
            base if epsilon is None else self.released(problem, mechanism, epsilon, text_seed)
        )
        originals = self._originals.get(problem.name)
        if originals is None:
            originals = self.similarity.embed([problem.unknown[i].text for i in sample])
            self._originals[problem.name] = originals
        scores = np.sum(
            originals * self.similarity.embed([unknown[i].text for i in sample]), axis=1
        )
        cell = PanUtilityCell(
            problem=problem.name,
            mechanism=mechanism,
            epsilon=epsilon,
            repetition=rep,
            measure="similarity",
            mean=float(np.mean(scores)),
            sd=float(np.std(scores, ddof=1)) if len(scores) > 1 else 0.0,
            texts=len(scores),
            seconds=time.perf_counter() - start,
        )
        self.cache.put("pan-utility", key, asdict(cell))
        return cell


@dataclass(frozen=True)
class _PanInputs:
    """What PAN hands an attacker for one cell (:class:`~authormask.evaluation.measures.
    MeasureInputs`): the problem's unknown texts under test and its known texts to learn from,
    as released at the cell's epsilon (``texts``) and with the noise off (``base``)."""

    mechanism: str
    epsilon: float | None
    seed: int
    run_seed: int
    settings: AttackerSettings
    texts: tuple[list[Item], list[Item]]
    base: tuple[list[Item], list[Item]]

    def released(self) -> list[Item]:
        return self.texts[1]

    def noise_off(self) -> list[Item]:
        return self.base[1]

    def known(self, *, adaptive: bool) -> list[Item]:
        return self.texts[0] if adaptive else self.base[0]

    def training(self) -> list[Item]:
        return []


def _rows(config: PanConfig, mechanism: str) -> list[tuple[float | None, int]]:
    return [
        (e, rep)
        for e in config.points(mechanism)
        for rep in range(1 if e is None else config.repetitions)
    ]


def run_pan(
    collection: PanCollection,
    *,
    config: PanConfig,
    embeddings: Any = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
) -> PanResult:
    """Run the PAN protocol (module docstring) on every problem of ``collection``.

    ``embeddings`` are passed to the mechanisms that take them (one Embeddings object, so every
    epsilon shares its search index). ``progress`` is called with 1 after each cell;
    ``on_total`` once, first, with the number of cells.
    """
    check_pan(collection, config)
    per_row = len(config.attackers) + len(config.utilities)
    rows = sum(len(_rows(config, m)) for m in config.mechanisms)
    total = len(collection.problems) * rows * per_row
    if on_total is not None:
        on_total(total)
    start = time.perf_counter()
    runner = _Runner(collection, embeddings, config, Path(cache_dir) if cache_dir else None)
    cells: list[PanCell] = []
    utilities: list[PanUtilityCell] = []
    for problem in collection.problems:
        for mechanism in config.mechanisms:
            off_seed, _ = _seeds(config.seed, problem.name, mechanism, None, 0)
            base = runner.released(problem, mechanism, None, off_seed)
            for epsilon, rep in _rows(config, mechanism):
                for attacker in config.attackers:
                    cell = runner.cell(problem, mechanism, epsilon, rep, attacker, base)
                    logger.info(
                        "%s %s eps=%s rep=%d %s: macro-F1 %.3f",
                        problem.name,
                        mechanism,
                        epsilon,
                        rep,
                        attacker,
                        cell.macro_f1,
                    )
                    cells.append(cell)
                    if progress is not None:
                        progress(1)
                if config.utilities:
                    utility = runner.utility(problem, mechanism, epsilon, rep, base)
                    logger.info(
                        "%s %s eps=%s rep=%d similarity: %.3f (%d texts)",
                        problem.name,
                        mechanism,
                        epsilon,
                        rep,
                        utility.mean,
                        utility.texts,
                    )
                    utilities.append(utility)
                    if progress is not None:
                        progress(1)
    provenance = {
        "versions": package_versions(),
        "embeddings": None if embeddings is None else embeddings.identity.to_dict(),
        "attackers": {m.base_name: m.description for m in runner.attackers.values()},
        "measure": "PAN macro-F1: F1 per true author of the problem's ground truth, averaged; "
        "<UNK> answers, rejections and non-candidates count as <UNK>, which is left out of the "
        "average (macro_f1_with_unk keeps it as a class when the truth has it)",
        "baseline_row": "epsilon none = the mechanism with its noise switched off: its own "
        "preparation and rendering with its samplers switched off (authormask.release.registry."
        "create_noise_off), every word released as itself (the text of its release at epsilon "
        "1e12)",
        "similarity": "mean cosine of all-MiniLM-L6-v2 document vectors (mean of <=100-word "
        "chunks), released unknown text vs the original unknown text as read from the "
        "collection; over a fixed sample of similarity_texts unknown texts per problem (the "
        "same texts in every row), drawn with SeedSequence(entropy=config.seed, "
        "spawn_key=(sha256(problem)[:4],)); interval: mean +- 1.96 standard errors",
        "seeds": "SeedSequence(entropy=config.seed, spawn_key=(sha256(problem)[:4], mechanism "
        "code, repetition, round(1000*epsilon), role)); role 0 = texts, 1 = attacker",
    }
    return PanResult(
        config=config,
        collection=collection.summary(),
        cells=tuple(cells),
        utilities=tuple(utilities),
        statements=runner.statements,
        provenance=provenance,
        seconds=time.perf_counter() - start,
    )
