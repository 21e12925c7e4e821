"""The privacy/utility sweep of Fernandes et al. (2019), Table 1, on any corpus.

For every mechanism, every epsilon (``None`` = unmodified snippets) and every repetition, the
study's query snippets are released through :func:`authormask.release.release` with their own
seed; attackers trained on the known texts (or, for ``adaptive-*`` attackers, on known texts
released with the same mechanism and epsilon) then try to name each snippet's author, and utility
measures check what the released snippets still say.

Which mechanisms: every registered mechanism that perturbs the study's content words through word
vectors, as a bag of N words (``emp-bag``: Algorithm 2) or in place (``emp-text``, and the peers
``mahalanobis``, ``tem``, ``santext``, ``emp-doc``): those whose registry spec takes
``epsilon``, ``embeddings`` and ``stopwords`` (:func:`sweep_mechanisms`). Their parameters are
read from the spec, never from the name: the study's stopwords, unknown-word policy and N go to
the mechanisms whose spec takes them, and a mechanism whose ``oov`` choices exclude the study's
policy (an in-place mechanism cannot drop unknown words: the gaps would show) maps them instead.

What an attacker sees: the mechanism's outputs, and texts in the same form to learn from. The
unmodified row (``epsilon=None``) is the mechanism with its noise switched off (its own
deterministic preparation and rendering, every word released as itself:
:mod:`authormask.evaluation.protocols._releases`), so at a very large epsilon every measure
converges to it, and a measure compares noise with no noise, never preparation with none.
Attackers are trained on the known texts in that noise-off form (``adaptive-*`` attackers: as
released at the cell's epsilon), so they are always trained on texts in the form of the texts
they are tested on: for a bag mechanism (its spec takes N, ``length``: :func:`releases_bag`)
sorted bags of N words, for an in-place mechanism prepared text (unknown words mapped,
contractions split). 1-NN and 5-NN read the released words; fastText
the released words; similarity compares each released snippet with its noise-off release.

Seeds never depend on the order in which mechanisms are listed: each cell's seed derives from
the base seed, the mechanism's fixed code (its index in
:func:`authormask.release.mechanism_names`), the repetition, epsilon and the role.

A PAN collection (:func:`run_collection_sweep`) is one author study per problem
(:func:`~authormask.evaluation.study.build_pan_study`: the problem's known texts are the known
material, each unknown text by a candidate a query), swept on its own with a seed of its own;
the problems are then pooled by summing each measure's counts (correct and total) over problems,
never by merging their candidate sets into one task.

Obfuscated snippets and measurement results are cached (one JSON file each, written atomically,
keyed by everything they depend on), so an interrupted sweep resumes where it stopped.

The sweep runs in this process or on a Dask cluster (``engine``,
:class:`authormask.release.executors.Engine`). Its unit of work is a *group*: one (mechanism,
epsilon, repetition) with all its measures, which read the same release of the snippets (the
unmodified row is one group per mechanism). Groups are independent: a cell depends only on its
seeds, never on the process or the order in which groups run, so the cells are the same
whichever engine measured them, and the cache written under one engine resumes under the other.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from authormask._process import process_memo
from authormask._version import __version__
from authormask.datasets.pan import PanCollection
from authormask.embeddings._base import Embeddings
from authormask.evaluation.measures import (
    AttackerSettings,
    Measure,
    attacker_names,
    measure,
    utility_names,
)
from authormask.evaluation.measures.attackers.typed import EmbeddingMemo
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols._common import (
    check_epsilons,
    derive_seed,
    mechanism_code,
    package_versions,
    problem_code,
)
from authormask.evaluation.protocols._releases import (
    DEFAULT_RATES,
    NOISE_OFF_EPSILONS,
    build_mechanism,
    check_rates,
    mechanism_parameters,
    noise_off_by_sampler,
    rate_labelled,
    sweeps_rate,
)
from authormask.evaluation.reports.cache import ResultsCache, cache_key
from authormask.evaluation.study import Item, Study, build_pan_study
from authormask.exceptions import InvalidParameterError
from authormask.release import (
    Mechanism,
    create_mechanism,
    mechanism_names,
    mechanism_spec,
    release,
)
from authormask.release.executors import Engine, check_engine, open_executor
from authormask.text.prepare import TextPreparer
from authormask.text.stopwords import default_stopwords
from authormask.validation import check_positive_int

__all__ = [
    "ATTACKERS",
    "DEFAULT_SWEEP_MECHANISMS",
    "SWEEP_MECHANISMS",
    "UTILITIES",
    "Cell",
    "CollectionSweep",
    "SweepConfig",
    "SweepResult",
    "applicable_measures",
    "cell_seeds",
    "check_applicable",
    "mechanism_code",
    "pool_sweeps",
    "problem_seed",
    "releases_bag",
    "run_collection_sweep",
    "run_sweep",
    "sweep_cells",
    "sweep_mechanisms",
]

logger = logging.getLogger(__name__)

ATTACKERS = attacker_names()
UTILITIES = utility_names()
CACHE_FORMAT = 4

#: the registry parameters through which a mechanism reads the study's words: word vectors and
#: the stopwords it passes through (or perturbs within their class)
_WORD_LEVEL = frozenset({"embeddings", "stopwords"})


def sweep_mechanisms() -> tuple[str, ...]:
    """The registered mechanisms the sweep can run, in registry order: the word-level ones,
    which release text or a bag over the study's words (their spec takes ``embeddings`` and
    ``stopwords``) and take ``epsilon``, or, as a baseline without privacy, a ``rate``
    (:func:`~authormask.evaluation.protocols._releases.sweeps_rate`: ``random-sub``, swept over
    rates); decided from the registry spec, not the name. Whether they take ``oov`` (``emp-doc``
    always maps unknown words) does not matter.

    >>> sweep_mechanisms()
    ('emp-bag', 'emp-text', 'mahalanobis', 'tem', 'santext', 'emp-doc', 'random-sub')
    """
    return tuple(
        name
        for name in mechanism_names()
        if _WORD_LEVEL <= set(mechanism_spec(name).parameter_names)
        and ("epsilon" in mechanism_spec(name).parameter_names or sweeps_rate(name))
    )


def releases_bag(name: str) -> bool:
    """Whether mechanism ``name`` releases a bag of N words (its spec takes N, ``length``), so
    attackers see sorted bags; otherwise it releases text in place, and attackers read text.

    >>> releases_bag("emp-bag"), releases_bag("tem")
    (True, False)
    """
    return any(p.name == "length" for p in mechanism_spec(name).parameters)


#: the registry mechanisms the sweep runs (:func:`sweep_mechanisms`)
SWEEP_MECHANISMS = sweep_mechanisms()
#: the sweep's default: the two releases of Fernandes et al. (2019), Table 1
DEFAULT_SWEEP_MECHANISMS = ("emp-bag", "emp-text")


@dataclass(frozen=True)
class SweepConfig:
    """What to sweep. ``epsilons`` may contain ``None`` (unmodified snippets); ``mechanisms``
    are registry names of :data:`SWEEP_MECHANISMS` (default ``emp-bag``, ``emp-text``); their
    order is only the order of the report. A baseline without privacy (``random-sub``,
    :func:`~authormask.evaluation.protocols._releases.sweeps_rate`) is swept over ``rates``
    (each in [0, 1]) instead; ``mechanism_epsilons`` gives a mechanism epsilons of its own
    (``--epsilons auto``), in place of ``epsilons``. :meth:`points` is a mechanism's rows."""

    epsilons: tuple[float | None, ...] = (None, 30.0, 25.0, 20.0, 15.0, 10.0)
    mechanisms: tuple[str, ...] = DEFAULT_SWEEP_MECHANISMS
    attackers: tuple[str, ...] = ("koppel-cosine", "svm", "1nn-emd")
    utilities: tuple[str, ...] = ()
    repetitions: int = 1
    seed: int = 0
    koppel_iterations: int = 100
    n_jobs: int = 2
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
        for m in self.mechanisms:
            if m not in SWEEP_MECHANISMS:
                hint = {"bag": " (now emp-bag)", "text": " (now emp-text)"}.get(m, "")
                if m in mechanism_names():
                    takes = ", ".join(p.name for p in mechanism_spec(m).parameters)
                    hint = (
                        f" ({m} takes {takes}: it does not perturb the study's words through "
                        "epsilon, embeddings and stopwords)"
                    )
                raise InvalidParameterError(
                    f"mechanism must be one of {', '.join(SWEEP_MECHANISMS)}, got {m!r}{hint}"
                )
        if not self.mechanisms:
            raise InvalidParameterError("give at least one mechanism")
        if len(set(self.mechanisms)) != len(self.mechanisms):
            raise InvalidParameterError("mechanisms must not repeat")
        for a in self.attackers:
            if a not in ATTACKERS:
                raise InvalidParameterError(
                    f"unknown attacker {a!r}; choose from {', '.join(ATTACKERS)}"
                )
        for u in self.utilities:
            if u not in UTILITIES:
                raise InvalidParameterError(
                    f"unknown utility measure {u!r}; choose from {', '.join(UTILITIES)}"
                )
        if not self.attackers and not self.utilities:
            raise InvalidParameterError("give at least one attacker or utility measure")
        check_positive_int(self.repetitions, name="repetitions")
        check_positive_int(self.koppel_iterations, name="Koppel iterations")
        check_positive_int(self.n_jobs, name="n_jobs")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise InvalidParameterError(f"seed must be an integer >= 0, got {self.seed!r}")

    @property
    def measures(self) -> tuple[str, ...]:
        return self.attackers + self.utilities

    def points(self, mechanism: str) -> tuple[float | None, ...]:
        """The rows of ``mechanism``: its rates for a rate-swept baseline, else its own
        epsilons (``mechanism_epsilons``) or the sweep's."""
        if sweeps_rate(mechanism):
            return tuple(self.rates)
        return tuple(self.mechanism_epsilons.get(mechanism, self.epsilons))


@dataclass(frozen=True)
class Cell:
    """One measurement: a measure at one mechanism, epsilon and repetition."""

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
    """Everything a sweep measured and everything needed to reproduce it."""

    config: SweepConfig
    study: dict[str, Any]
    cells: tuple[Cell, ...]
    baselines: dict[str, float]
    statements: dict[str, Any]
    provenance: dict[str, Any]
    seconds: float

    def cell(self, mechanism: str, epsilon: float | None, measure: str) -> list[Cell]:
        return [
            c
            for c in self.cells
            if c.mechanism == mechanism and c.epsilon == epsilon and c.measure == measure
        ]

    def strongest(self, mechanism: str, epsilon: float | None) -> dict[str, Any] | None:
        """The best attacker at ``(mechanism, epsilon)``: the largest accuracy over every
        snippet and repetition (ties to the name), with its Wilson 95% interval; ``None``
        without attackers. Chosen after the fact on the same snippets, so if anything it
        flatters the attacker, never the mechanism."""
        best: tuple[float, str, int, int] | None = None
        for name in self.config.attackers:
            cells = self.cell(mechanism, epsilon, name)
            correct = sum(int(c.correct or 0) for c in cells)
            total = sum(c.total for c in cells)
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

    @property
    def cell_seconds(self) -> float:
        """Time spent measuring the cells, including cells restored from the cache."""
        return float(sum(c.seconds for c in self.cells))

    def to_dict(self) -> dict[str, Any]:
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


def applicable_measures(study: Study) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The default attackers and utility measures a study supports: the utilities that can run
    on it (:func:`_runs_on`: a topic measure needs topic labels, 5-NN five reference texts,
    fastText topic-labelled training texts of two topics)."""
    attackers: tuple[str, ...] = ()
    if study.task == "author":
        per_author: dict[str, int] = {}
        for i in study.known:
            per_author[str(i.author)] = per_author.get(str(i.author), 0) + 1
        if max(per_author.values()) == 1:  # one known text per author (appendix B.1)
            attackers = ("koppel-cosine", "koppel-minmax", "svm", "typed-svm", "1nn-emd")
        else:
            # many known texts (--all-known): Koppel's per-text windows, exact 1-NN, MiniLM
            # (about 13 chunks/s on 2 cores) and the PAN baseline's kernel SVM (quadratic in
            # the known pieces: 19,046 on C50) cost too much; each can be asked for by name
            attackers = ("svm", "typed-svm", "typed-lr")
    return attackers, tuple(u for u in UTILITIES if _runs_on(measure(u), study))


def _runs_on(m: Measure, study: Study) -> bool:
    """Whether measure ``m`` can run on ``study``: it has the labels the measure predicts and
    what the measure needs (:meth:`~authormask.evaluation.measures.Measure.problem`)."""
    labelled = {"author": study.task == "author", "topic": study.has_topics, None: True}
    return labelled[m.task] and m.problem(study) is None


def check_applicable(study: Study, config: SweepConfig) -> None:
    """Raise ``InvalidParameterError`` if a measure of ``config`` cannot run on ``study``,
    saying what the study lacks."""
    if config.attackers and study.task != "author":
        raise InvalidParameterError(
            f"attackers {', '.join(config.attackers)} need an author study; this dataset has no "
            "authors (choose utility measures only, e.g. --attackers none)"
        )
    measures = [measure(name) for name in config.measures]
    topical = [m.name for m in measures if m.task == "topic"]
    if topical and not study.has_topics:
        raise InvalidParameterError(
            f"{', '.join(topical)} need topic labels on every snippet; this dataset has none"
        )
    for m in measures:
        problem = m.problem(study)
        if problem is not None:
            raise InvalidParameterError(problem)


def sweep_cells(config: SweepConfig) -> int:
    """How many cells (measurements) a sweep of ``config`` has: one per mechanism, measure,
    epsilon and repetition (the unmodified row once)."""
    rows = sum(
        1 if e is None else config.repetitions for m in config.mechanisms for e in config.points(m)
    )
    return rows * len(config.measures)


#: one unit of work: (mechanism, epsilon, repetition)
_GroupKey = tuple[str, float | None, int]


def _groups(config: SweepConfig) -> list[_GroupKey]:
    """The sweep's groups in the order of its report (the order of the local run)."""
    return [
        (mechanism, epsilon, rep)
        for mechanism in config.mechanisms
        for epsilon in config.points(mechanism)
        for rep in range(1 if epsilon is None else config.repetitions)
    ]


@dataclass(frozen=True)
class _Group:
    """The cells of one group, in the order of ``config.measures``, and the public statement of
    its release (``None`` for the unmodified row)."""

    cells: tuple[Cell, ...]
    statement: dict[str, Any] | None


def cell_seeds(
    base: int, mechanism: str, epsilon: float | None, repetition: int
) -> tuple[int, int, int]:
    """The seeds of one (mechanism, epsilon, repetition) cell: snippets, known texts (adaptive
    attackers) and the attacker. They derive from the mechanism's fixed code
    (:func:`mechanism_code`), never from its position in the configuration, so listing the
    mechanisms in another order gives the same numbers."""
    code = mechanism_code(mechanism)
    eps_key = 0 if epsilon is None else round(epsilon * 1000)
    q, k, a = (derive_seed(base, code, repetition, eps_key, role) for role in (0, 1, 2))
    return q, k, a


def _oov_policy(policy: str, choices: tuple[str, ...] | None, mechanism: str) -> str:
    """The study's unknown-word ``policy`` if the mechanism's ``oov`` ``choices`` allow it,
    else ``"map"`` (every word-level mechanism can map: it perturbs a fixed word instead)."""
    if choices is None or policy in choices:
        return policy
    if "map" in choices:
        return "map"
    raise InvalidParameterError(  # pragma: no cover - no registered mechanism is like that
        f"{mechanism} takes oov {', '.join(choices)}: neither the study's {policy!r} nor map"
    )


class _Runner:
    def __init__(
        self,
        study: Study,
        embeddings: Embeddings,
        preparer: TextPreparer,
        config: SweepConfig,
        cache_dir: Path | None,
    ) -> None:
        self.study = study
        self.embeddings = embeddings
        self.preparer = preparer
        self.config = config
        self.cache = ResultsCache(cache_dir)
        # the measures of this run: each keeps what it computes once per run
        self.measures = {name: measure(name) for name in config.measures}
        self._similarity: SentenceSimilarity | None = None
        self._settings: AttackerSettings | None = None
        self._memo: dict[str, Any] = {}
        self._mechanisms: dict[tuple[str, float | None], Mechanism] = {}
        self._noise_off: dict[str, float | None] = {}
        self.statements: dict[str, Any] = {}
        self.base_key = {
            "format": CACHE_FORMAT,
            "authormask": __version__,
            "embeddings": embeddings.identity.to_dict(),
            "study": {
                "queries": [[i.item_id, i.text, list(i.words)] for i in study.queries],
                "known": [[i.item_id, i.text, list(i.words)] for i in study.known],
            },
            "preparer": {
                "oov": preparer.oov,
                "oov_map_to": preparer.oov_map_to,
                "stopwords": sorted(preparer.stopwords),
            },
        }
        self.base_hash = cache_key(self.base_key)

    def parameters(self, mechanism: str, epsilon: float | None) -> dict[str, Any]:
        """The registry parameters of ``mechanism`` in this sweep (all but the embeddings, which
        are this sweep's Embeddings object as is, so every epsilon shares one search index);
        ``epsilon=None``: the noise switched off (:meth:`noise_off_epsilon`; no epsilon at all
        for a mechanism whose samplers are switched off).

        The study's preparation goes to the parameters the mechanism's registry spec takes:
        its stopwords, its unknown-word policy and word (``oov``, ``oov_map_to``), its N
        (``length``). A mechanism whose ``oov`` choices exclude the study's policy (an in-place
        mechanism cannot drop unknown words: the gaps would show) maps them instead. Parameters
        of the mechanism's own (``regularization``, ``gamma``) keep their registry defaults."""
        spec = {p.name: p for p in mechanism_spec(mechanism).parameters}
        p = self.preparer
        study: dict[str, Any] = {
            "vocab_size": None,  # the sweep's Embeddings object as is
            "stopwords": "english" if p.stopwords == default_stopwords() else set(p.stopwords),
            "oov_map_to": p.oov_map_to,
        }
        if "oov" in spec:
            study["oov"] = _oov_policy(p.oov, spec["oov"].choices, mechanism)
        if epsilon is None and not (sweeps_rate(mechanism) or noise_off_by_sampler(mechanism)):
            epsilon = self.noise_off_epsilon(mechanism)  # the limit epsilon it accepts
        return mechanism_parameters(
            mechanism,
            epsilon,
            length=self.study.length,
            extra={k: v for k, v in study.items() if k in spec},
        )

    def noise_off_epsilon(self, name: str) -> float | None:
        """The epsilon of ``name``'s noise-off release: ``None`` when its samplers are switched
        off (:func:`~authormask.evaluation.protocols._releases.noise_off_by_sampler`: every
        word-level mechanism, no noise drawn), else the first of
        :data:`~authormask.evaluation.protocols._releases.NOISE_OFF_EPSILONS` at which the
        registry builds it (0, its rate, for a rate-swept baseline)."""
        if (name, None) in self._mechanisms:
            return self._noise_off[name]
        chosen: float | None = None
        if sweeps_rate(name):  # a baseline: rate 0 is its noise-off form
            chosen = 0.0
            mech = create_mechanism(name, embeddings=self.embeddings, **self.parameters(name, 0.0))
        elif noise_off_by_sampler(name):
            mech = build_mechanism(
                name, {"embeddings": self.embeddings, **self.parameters(name, None)}
            )
        else:
            for i, eps in enumerate(NOISE_OFF_EPSILONS):
                try:
                    mech = create_mechanism(
                        name, embeddings=self.embeddings, **self.parameters(name, eps)
                    )
                except InvalidParameterError:
                    if i == len(NOISE_OFF_EPSILONS) - 1:
                        raise
                    continue
                chosen = eps
                break
        self._mechanisms[(name, None)] = mech
        self._noise_off[name] = chosen
        return chosen

    def mechanism(self, name: str, epsilon: float | None) -> Mechanism:
        if epsilon is None:
            self.noise_off_epsilon(name)  # builds it
        mech = self._mechanisms.get((name, epsilon))
        if mech is None:
            mech = build_mechanism(
                name, {"embeddings": self.embeddings, **self.parameters(name, epsilon)}
            )
            self._mechanisms[(name, epsilon)] = mech
        return mech

    def _release_key(
        self, role: str, mechanism: str, epsilon: float | None, seed: int
    ) -> dict[str, Any]:
        params = {
            k: sorted(v) if isinstance(v, set) else v
            for k, v in self.parameters(mechanism, epsilon).items()
        }
        return {
            "base": self.base_hash,
            "role": role,
            "mechanism": mechanism,
            "parameters": params,
            "seed": seed,
        }

    def noise_off(self, role: str, mechanism: str) -> list[Item]:
        """The study's queries or known texts released by ``mechanism`` with the noise off."""
        items = self.study.queries if role == "queries" else self.study.known
        seed = cell_seeds(self.config.seed, mechanism, None, 0)[0 if role == "queries" else 1]
        return self.obfuscated(items, role, mechanism, None, seed)

    def obfuscated(
        self, items: Sequence[Item], role: str, mechanism: str, epsilon: float | None, seed: int
    ) -> list[Item]:
        """``items`` released by ``mechanism`` at ``epsilon`` (``None``: noise off), cached."""
        key = self._release_key(role, mechanism, epsilon, seed)
        digest = cache_key(key)
        cached = self._memo.get(digest)
        if cached is None:
            cached = self.cache.get("obf", key)
        if cached is None:
            rel = release(
                [i.text for i in items],
                self.mechanism(mechanism, epsilon),
                random_state=seed,
                sources=[i.item_id for i in items],
            )
            cached = {
                "texts": [d.text for d in rel.documents],
                "words": [list(d.words) for d in rel.documents],
                # the public statement: the same for every document of the release
                "statement": rel.statement.to_dict(),
            }
            self.cache.put("obf", key, cached)
        self._memo[digest] = cached  # every measure of a cell reads the same release
        # one statement per (mechanism, epsilon): it depends on the public parameters only
        if epsilon is not None:
            self.statements.setdefault(f"{mechanism}/{epsilon:g}", cached["statement"])
        return [
            Item(i.item_id, t, tuple(w), i.author, i.topic)
            for i, t, w in zip(items, cached["texts"], cached["words"], strict=True)
        ]

    @property
    def settings(self) -> AttackerSettings:
        """What the measures share: the embeddings, the settings, one MiniLM encoder (loaded
        on first use; ``minilm-lr`` reads it through a memo that embeds each distinct text
        once)."""
        if self._settings is None:
            similarity = self.similarity()
            self._settings = AttackerSettings(
                embeddings=self.embeddings,
                koppel_iterations=self.config.koppel_iterations,
                n_jobs=self.config.n_jobs,
                encoder=EmbeddingMemo(similarity),
                similarity=similarity,
            )
        return self._settings

    def similarity(self) -> SentenceSimilarity:
        if self._similarity is None:
            self._similarity = SentenceSimilarity()
        return self._similarity

    def cell_key(
        self, name: str, mechanism: str, epsilon: float | None, rep: int
    ) -> dict[str, Any]:
        """What the cell of measure ``name`` depends on (its key in the cache)."""
        cfg = self.config
        return {
            "base": self.base_hash,
            "measure": name,
            "mechanism": mechanism,
            "epsilon": epsilon,
            "rep": rep,
            "seeds": list(cell_seeds(cfg.seed, mechanism, epsilon, rep)),
            "config": {"koppel_iterations": cfg.koppel_iterations, "N": self.study.length},
        }

    def is_cached(self, group: _GroupKey) -> bool:
        """Whether every cell of ``group`` is in the cache."""
        return all(
            self.cache.get("cell", self.cell_key(name, *group)) is not None
            for name in self.config.measures
        )

    def group(self, group: _GroupKey, on_cell: Callable[[Cell], None] | None = None) -> _Group:
        """Every measure of ``group`` (``on_cell`` is called after each); the group's releases
        are then forgotten (no other group reads them)."""
        mechanism, epsilon, rep = group
        cells: list[Cell] = []
        try:
            for name in self.config.measures:
                cell = self.measure(name, mechanism, epsilon, rep)
                cells.append(cell)
                if on_cell is not None:
                    on_cell(cell)
        finally:
            if epsilon is not None:
                q_seed, k_seed, _ = cell_seeds(self.config.seed, mechanism, epsilon, rep)
                for role, seed in (("queries", q_seed), ("known", k_seed)):
                    self._memo.pop(
                        cache_key(self._release_key(role, mechanism, epsilon, seed)), None
                    )
        statement = None if epsilon is None else self.statements.get(f"{mechanism}/{epsilon:g}")
        return _Group(tuple(cells), statement)

    def measure(self, name: str, mechanism: str, epsilon: float | None, rep: int) -> Cell:
        """The cell of measure ``name`` (from the cache, or measured on the group's releases)."""
        q_seed = cell_seeds(self.config.seed, mechanism, epsilon, rep)[0]
        key = self.cell_key(name, mechanism, epsilon, rep)
        cached = self.cache.get("cell", key)
        if cached is not None:
            if epsilon is not None:  # make sure the statement is recorded
                self.obfuscated(self.study.queries, "queries", mechanism, epsilon, q_seed)
            return Cell(**cached)
        start = time.perf_counter()
        m = self.measures[name]
        score = m.score(_Inputs(self, mechanism, epsilon, rep))
        cell = Cell(
            mechanism=mechanism,
            epsilon=epsilon,
            repetition=rep,
            measure=name,
            kind=m.kind,
            correct=score.correct,
            total=score.total,
            value=score.value,
            abstained=score.abstained,
            seed=None if epsilon is None else q_seed,
            seconds=time.perf_counter() - start,
        )
        self.cache.put("cell", key, asdict(cell))
        return cell


class _Inputs:
    """What the sweep hands a measure for one cell (:class:`~authormask.evaluation.measures.
    MeasureInputs`): the study's snippets and known texts released by the cell's mechanism, on
    demand, through the runner's memo and cache."""

    def __init__(self, runner: _Runner, mechanism: str, epsilon: float | None, rep: int) -> None:
        self._runner = runner
        self.mechanism = mechanism
        self.epsilon = epsilon
        self._q_seed, self._k_seed, self.seed = cell_seeds(
            runner.config.seed, mechanism, epsilon, rep
        )
        self.run_seed = runner.config.seed
        self.settings = runner.settings

    def released(self) -> list[Item]:
        if self.epsilon is None:
            return self.noise_off()
        study = self._runner.study
        return self._runner.obfuscated(
            study.queries, "queries", self.mechanism, self.epsilon, self._q_seed
        )

    def noise_off(self) -> list[Item]:
        return self._runner.noise_off("queries", self.mechanism)

    def known(self, *, adaptive: bool) -> list[Item]:
        if adaptive and self.epsilon is not None:
            study = self._runner.study
            return self._runner.obfuscated(
                study.known, "known", self.mechanism, self.epsilon, self._k_seed
            )
        return self._runner.noise_off("known", self.mechanism)

    def training(self) -> Sequence[Item]:
        return self._runner.study.train


@dataclass(frozen=True)
class _Shared:
    """What every worker needs to measure any group: sent to each worker once. The embeddings
    travel as their recipe (each process loads them once, memory-mapped)."""

    study: Study
    embeddings: Embeddings
    preparer: TextPreparer
    config: SweepConfig
    cache_dir: str | None
    key: str  # a digest of everything above: the worker's runner is built once per key


def _shared_key(runner: _Runner, cache_dir: Path | None) -> str:
    """A digest of everything a runner depends on (the cache's base key holds the texts, the
    embeddings and the preparation; the labels, the training texts and the settings are added)."""

    def items(seq: Sequence[Item]) -> list[list[Any]]:
        return [[i.item_id, i.text, list(i.words), i.author, i.topic] for i in seq]

    study = runner.study
    return cache_key(
        {
            "base": runner.base_hash,
            "task": study.task,
            "length": study.length,
            "known": items(study.known),
            "queries": items(study.queries),
            "train": items(study.train),
            "config": asdict(runner.config),
            "cache_dir": None if cache_dir is None else str(cache_dir),
        }
    )


def _measure_group(shared: _Shared, group: _GroupKey) -> _Group:
    """A worker's task: the cells of one group. Its runner (study, classifiers, fastText) is
    built once per process and sweep, the sentence encoder once per process; nearest-neighbour
    attackers search with one thread (a Dask worker runs one task per thread; the distances,
    hence the cells, are the same)."""

    def build() -> _Runner:
        runner = _Runner(
            shared.study,
            shared.embeddings,
            shared.preparer,
            replace(shared.config, n_jobs=1),
            Path(shared.cache_dir) if shared.cache_dir is not None else None,
        )
        runner._similarity = process_memo("sweep-sentence-similarity", SentenceSimilarity)
        return runner

    return process_memo("sweep-runner:" + shared.key, build).group(group)


def _log_cell(cell: Cell) -> None:
    logger.info(
        "%s eps=%s rep=%d %s: %.3f",
        cell.mechanism,
        cell.epsilon,
        cell.repetition,
        cell.measure,
        cell.value,
    )


def _run_groups(
    runner: _Runner,
    groups: list[_GroupKey],
    engine: Engine,
    progress: Callable[[int], None] | None,
) -> list[_Group]:
    """Every group's cells, in the order of ``groups``: in this process (local), or on the
    cluster for those not entirely in the cache."""
    if engine.kind == "local":

        def on_cell(cell: Cell) -> None:
            _log_cell(cell)
            if progress is not None:
                progress(1)

        return [runner.group(g, on_cell) for g in groups]
    done: dict[int, _Group] = {}
    todo: list[int] = []
    for index, group in enumerate(groups):
        if runner.is_cached(group):
            done[index] = runner.group(group)  # read back here, statement included
            if progress is not None:
                progress(len(done[index].cells))
        else:
            todo.append(index)
    if todo:
        cache_dir = runner.cache.folder.absolute() if runner.cache.folder is not None else None
        shared = _Shared(
            runner.study,
            runner.embeddings,
            runner.preparer,
            runner.config,
            None if cache_dir is None else str(cache_dir),
            _shared_key(runner, cache_dir),
        )
        logger.info(
            "measuring %d of %d groups on %s (%d from the cache)",
            len(todo),
            len(groups),
            engine.describe(),
            len(groups) - len(todo),
        )
        with open_executor(engine) as executor:
            for k, result in executor.map(_measure_group, [groups[i] for i in todo], shared=shared):
                index = todo[k]
                for cell in result.cells:  # the worker cached them too, if it can reach the folder
                    runner.cache.put(
                        "cell",
                        runner.cell_key(
                            cell.measure, cell.mechanism, cell.epsilon, cell.repetition
                        ),
                        asdict(cell),
                    )
                    _log_cell(cell)
                done[index] = result
                if progress is not None:
                    progress(len(result.cells))
    return [done[i] for i in range(len(groups))]


def run_sweep(
    study: Study,
    *,
    embeddings: Embeddings,
    preparer: TextPreparer,
    config: SweepConfig,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    engine: str | Engine | None = None,
) -> SweepResult:
    """Run every (mechanism, epsilon, repetition, measure) cell of ``config`` on ``study``.

    Parameters
    ----------
    study : Study
        Known texts, query snippets and training texts (:func:`build_study`).
    embeddings, preparer
        The mechanisms' metric space (one Embeddings object, so every epsilon shares one search
        index) and the preparation the study was built with: every mechanism uses its
        stopwords and unknown-word policy, as far as its registry spec takes them; an in-place
        mechanism (``emp-text``, ``mahalanobis``, ``tem``, ``santext``) maps unknown words where
        the preparer drops them (it cannot drop them).
    config : SweepConfig
        Epsilons (``None`` = unmodified), mechanisms (:data:`SWEEP_MECHANISMS`), measures,
        repetitions and the base seed; every cell's seed derives from it and from the
        mechanism's fixed code, so the sweep is reproducible and independent of the order of
        ``config.mechanisms``.
    cache_dir : path, optional
        Where obfuscated snippets and finished cells are cached; a rerun resumes from it, under
        either engine.
    progress : callable, optional
        Called with the number of cells finished (1 after each cell on the local engine; a
        group's cells at once on Dask).
    on_total : callable, optional
        Called once, first, with the number of cells (:func:`sweep_cells`).
    engine : "local", "dask" or Engine, optional
        Where the cells are measured (:class:`~authormask.release.executors.Engine`): in this
        process, one after the other (default), or on a Dask cluster
        (``Engine("dask", workers=2)`` starts a local cluster of two worker processes,
        ``Engine("dask", scheduler=ADDRESS)`` uses an existing one). On Dask each task is one
        (mechanism, epsilon, repetition) group with all its measures; groups whose cells are
        all in the cache are read here and not sent. The study, the preparation and the
        embeddings' recipe go to every worker once; each worker builds its classifiers once and
        writes the cells it measures to ``cache_dir`` (which the workers must be able to reach:
        a local cluster can), and this process records them too. The cells, their order and
        the statements are those of the local run; only the timings differ.
    """
    check_applicable(study, config)
    chosen = check_engine(engine)
    if on_total is not None:
        on_total(sweep_cells(config))
    start = time.perf_counter()
    runner = _Runner(study, embeddings, preparer, config, Path(cache_dir) if cache_dir else None)
    cells: list[Cell] = []
    statements: dict[str, Any] = {}
    groups = _groups(config)
    for (mechanism, epsilon, _), group in zip(
        groups, _run_groups(runner, groups, chosen, progress), strict=True
    ):
        cells.extend(group.cells)
        if group.statement is not None:
            statements.setdefault(f"{mechanism}/{epsilon:g}", group.statement)
    baselines: dict[str, float] = {}
    if study.task == "author":
        baselines["author"] = len(study.queries) / len(study.authors)
    if study.has_topics:
        baselines["topic"] = len(study.queries) / len(study.topics)
    provenance = {
        "versions": package_versions(),
        "embeddings": embeddings.identity.to_dict(),
        "oov": preparer.oov,
        "stopwords": len(preparer.stopwords),
        "engine": chosen.describe(),
        # the epsilon of each mechanism's unmodified row (noise off; None: its samplers
        # switched off, no noise drawn)
        "noise_off_epsilon": {m: runner.noise_off_epsilon(m) for m in config.mechanisms},
        "noise_off": "each mechanism's own preparation and rendering with its samplers switched "
        "off (authormask.release.registry.create_noise_off), where noise_off_epsilon is None; "
        "else the release at that epsilon (a rate-swept baseline: rate 0)",
        "seeds": "cell seed = SeedSequence(entropy=config.seed, "
        "spawn_key=(mechanism code, repetition, round(1000*epsilon), role)); mechanism code = "
        "index in authormask.release.mechanism_names() ("
        + ", ".join(f"{m} {mechanism_code(m)}" for m in config.mechanisms)
        + "), independent of the order of config.mechanisms; "
        "role 0 = snippets, 1 = known texts (adaptive), 2 = attacker",
    }
    return SweepResult(
        config=config,
        study=study.describe(),
        cells=tuple(cells),
        baselines=baselines,
        statements=statements,
        provenance=provenance,
        seconds=time.perf_counter() - start,
    )


# --- a PAN collection: one author study per problem, pooled ------------------------------------


@dataclass(frozen=True)
class CollectionSweep:
    """The sweep of a PAN collection: one :class:`SweepResult` per problem (its own closed-set
    author study, in the collection's order) and ``pooled``, the problems pooled
    (:func:`pool_sweeps`), on which the tables' first section, the frontier and the
    recommendation are read."""

    collection: dict[str, Any]
    problems: tuple[SweepResult, ...]
    pooled: SweepResult

    @property
    def problem_names(self) -> tuple[str, ...]:
        return tuple(str(r.study["problem"]) for r in self.problems)


def problem_seed(base: int, problem: str) -> int:
    """The base seed of one problem's sweep: ``SeedSequence(entropy=base,
    spawn_key=(sha256(problem)[:4],))``'s first word, so no two problems draw the same noise
    and a problem's numbers do not depend on which other problems the collection holds."""
    return derive_seed(base, problem_code(problem))


def pool_sweeps(results: Sequence[SweepResult], *, name: str, seed: int) -> SweepResult:
    """The problems of a collection pooled into one :class:`SweepResult` of the same shape:
    per mechanism, epsilon, repetition and measure, an attacker's correct answers and queries
    are summed over problems (its pooled accuracy is correct / total), a utility's value is the
    mean over every query of every problem (each problem's mean weighted by its queries). The
    chance baseline is the sum of the problems' expected correct guesses (each problem's
    queries / its candidates). Candidate sets are never merged: every count was made within its
    own problem."""
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


def run_collection_sweep(
    collection: PanCollection,
    *,
    embeddings: Embeddings,
    preparer: TextPreparer,
    config: SweepConfig,
    length: int | None = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    engine: str | Engine | None = None,
) -> CollectionSweep:
    """The sweep of ``config`` on every problem of a PAN collection, and the problems pooled.

    Each problem is its own closed-set author study
    (:func:`~authormask.evaluation.study.build_pan_study`: known texts in pieces of N content
    words, every unknown text by a candidate a query of its first N; ``length`` = N, default the
    problem's shortest query) and is swept by :func:`run_sweep` with its own base seed
    (:func:`problem_seed`); every study is built, and checked against ``config``, before any
    release. ``pooled`` sums the counts over problems (:func:`pool_sweeps`). ``progress``,
    ``on_total``, ``cache_dir`` and ``engine`` are as in :func:`run_sweep` (``on_total`` once,
    with the cells of every problem)."""
    studies = [build_pan_study(p, preparer, length=length) for p in collection.problems]
    for problem, study in zip(collection.problems, studies, strict=True):
        try:
            check_applicable(study, config)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"PAN problem {problem.name}: {exc}") from None
    if on_total is not None:
        on_total(sweep_cells(config) * len(studies))
    results = [
        run_sweep(
            study,
            embeddings=embeddings,
            preparer=preparer,
            config=replace(config, seed=problem_seed(config.seed, problem.name)),
            cache_dir=cache_dir,
            progress=progress,
            engine=engine,
        )
        for problem, study in zip(collection.problems, studies, strict=True)
    ]
    return CollectionSweep(
        collection=collection.summary(),
        problems=tuple(results),
        pooled=pool_sweeps(results, name=collection.name, seed=config.seed),
    )
