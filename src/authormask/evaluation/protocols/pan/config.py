"""What a PAN run runs: its default attackers and utilities, and its configuration with its
defaults and ``--quick``'s."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from authormask.core import lineup, mechanism_names, mechanism_spec
from authormask.evaluation.measures import attacker_names
from authormask.evaluation.measures.registry import plain_and_adaptive
from authormask.evaluation.protocols._common import ProtocolConfig
from authormask.evaluation.protocols._grid import Grid
from authormask.evaluation.releases import (
    DEFAULT_RATES,
    noise_off_by_sampler,
    releases_bag,
    sweeps_rate,
)
from authormask.exceptions import InvalidParameterError
from authormask.text.entities import check_entities_mode
from authormask.validation import check_positive_int

__all__ = [
    "PAN_ATTACKERS",
    "PAN_ENTITIES",
    "PAN_LABELS",
    "PAN_UTILITIES",
    "RATIO_UTILITIES",
    "SIMILARITY_TEXTS",
    "STEPPED",
    "PanConfig",
    "limit_mechanisms",
]

#: the default attackers, each both plain and ``adaptive-`` (trained on the known texts released
#: by the same mechanism at the same epsilon: an attacker who knows the mechanism): the strongest
#: on fan fiction (typed character 3-grams, Sapkota et al. 2015, with a linear SVM and with
#: logistic regression), PAN 2019's own baseline, and five that read what a release keeps: the
#: class sequence (content word / function word / punctuation), the released words alone (what
#: the mechanism drew from the writer's words, never the text written around them: for
#: emp-write its statement's whole release), the same words each once (which words, not how
#: often), function-word stylometry and PPM character compression (Teahan & Harper 2003)
PAN_ATTACKERS = plain_and_adaptive(
    (
        "typed-svm",
        "typed-lr",
        "pan-baseline",
        "class-seq",
        "released-words",
        "released-vocabulary",
        "stylometry",
        "ppm",
    )
)
#: the utility measures the PAN protocol reads, each released unknown text against its original:
#: MiniLM similarity, content recall, retrieval of the own original among every original of the
#: problem, and fluency (unigram-normalised perplexity ratio under the public LSTM judge); the
#: first three again against the *entity-stepped* original (``-stepped``: the original with
#: the surrogates the release drew, what the mechanism was given); fluency under the
#: cross-fitted in-domain judge (``fluency-xfit``); the share of sentences with a finite verb
#: (``sentences``); and fandom accuracy of the released known texts (``topic-holds``). All by
#: default (module docstring of :mod:`authormask.evaluation.protocols.pan`)
PAN_UTILITIES = (
    "similarity",
    "content-recall",
    "retrieval",
    "fluency",
    "similarity-stepped",
    "content-recall-stepped",
    "retrieval-stepped",
    "fluency-xfit",
    "sentences",
    "topic-holds",
)
#: the suffix of a utility read against the entity-stepped original
STEPPED = "-stepped"
#: the title of each PAN utility that is not a registered measure (the others': their
#: registry label)
PAN_LABELS = {
    "similarity-stepped": "MiniLM similarity (stepped)",
    "content-recall-stepped": "content recall (stepped)",
    "retrieval-stepped": "retrieval (stepped)",
    "fluency-xfit": "fluency (cross-fitted judge)",
    "topic-holds": "topic holds (fandom accuracy)",
}
#: the utilities read as ratios (geometric means, lower is better, 1 = the original)
RATIO_UTILITIES = ("fluency", "fluency-xfit")
#: what a release does with names, numbers and links when the config says nothing: the user's
#: default (the registry's, ``"surrogate"``)
PAN_ENTITIES = "surrogate"
#: unknown texts per problem that every utility measure reads (module docstring)
SIMILARITY_TEXTS = 50


@dataclass(frozen=True)
class PanConfig(ProtocolConfig, Grid):
    """What to run on every problem. ``epsilons`` may hold ``None`` (noise off);
    ``mechanisms`` are registry names, each releasing a text (its spec's
    :attr:`~authormask.core.specs.MechanismSpec.release` "text" or "generated": a bag of words
    is refused, since every measure reads the released text); ``length`` is N for mechanisms
    that release N words (default ``"shortest"``: the smallest content-word count of the
    problem's texts);
    ``entities`` what every release does with names, numbers and links (default the user's,
    ``"surrogate"``; ``"keep"`` or ``"mask"``);
    ``parameters`` adds registry parameters per mechanism (a mechanism that needs a trained
    model, erae or ae-dp, gets it from the run's inputs, :class:`~.protocol.PanInputs`, unless
    its parameters give one); ``utilities`` any of
    :data:`PAN_UTILITIES` (default all of them) or ``()``; ``similarity_texts`` the unknown
    texts per problem that every utility measure reads (``None``: all).

    Attributes
    ----------
    mechanisms
        The mechanisms, by registry name.
    epsilons
        The epsilons of every mechanism (``None``: noise off).
    attackers
        The attackers, by name.
    utilities
        The utility measures (of :data:`PAN_UTILITIES`), or ``()``.
    similarity_texts
        The unknown texts per problem every utility measure reads (``None``: all).
    repetitions
        The repetitions of each epsilon (the noise-off row once).
    seed
        The base seed (an integer >= 0).
    length
        N for the mechanisms that release N words, or ``"shortest"``.
    koppel_iterations
        The random rounds of the Koppel attackers.
    parameters
        Mechanism -> further registry parameters.
    rates
        The rates of a baseline swept over rates.
    mechanism_epsilons
        Mechanism -> its own epsilons, in place of ``epsilons``.
    epsilon_calibration
        How ``mechanism_epsilons`` were chosen, when ``--epsilons auto`` chose them.
    entities
        What every release does with entities: ``"surrogate"`` (the user's default),
        ``"keep"`` or ``"mask"``.
    """

    AUTO_EPSILONS: ClassVar[bool] = True
    OPTIONS: ClassVar[tuple[str, ...]] = (
        "attackers",
        "utilities",
        "similarity_texts",
        "repetitions",
        "length",
        "koppel_iterations",
        "target_accuracy",
        "rates",
        "engine",
        "workers",
        "scheduler",
        "entities",
        "erae_model",
        "aedp_model",
    )

    mechanisms: tuple[str, ...] = lineup("pan")
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
    entities: str = PAN_ENTITIES

    def __post_init__(self) -> None:
        self.check_grid()
        check_entities_mode(self.entities)
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
            spec = mechanism_spec(m)
            takes = spec.parameter_names
            if releases_bag(m):
                raise InvalidParameterError(
                    f"mechanism {m} releases a bag of words, not a text: the PAN protocol "
                    "reads released texts (fluency, similarity, sentences, and attackers "
                    "trained on them); --protocol fernandes2019 runs it"
                )
            if not spec.takes_epsilon and not sweeps_rate(m):
                raise InvalidParameterError(
                    f"mechanism {m} takes no epsilon (it takes {', '.join(takes)}); the PAN "
                    "protocol releases at each epsilon (or, for a baseline, at each rate)"
                )
        for u in self.utilities:
            if u not in PAN_UTILITIES:
                raise InvalidParameterError(
                    f"the PAN protocol's utility measures are {', '.join(PAN_UTILITIES)} "
                    f"(each released unknown text against its original), got {u!r}"
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
        self.check_seed()

    @classmethod
    def quick(cls) -> PanConfig:
        """``--quick``: epsilons none and 10, 20 Koppel rounds, the utilities of 5 unknown
        texts per problem (and 20k words). It keeps every default attacker, plain and adaptive
        (the command line runs :data:`PAN_ATTACKERS` with and without ``--quick``): on a PAN
        problem each costs seconds per cell.

        Returns
        -------
        PanConfig
            The config.
        """
        return cls(epsilons=(None, 10.0), koppel_iterations=20, similarity_texts=5)


def limit_mechanisms(config: PanConfig) -> list[str]:
    """The mechanisms of ``config`` without a noise-off form (no sampler their registry spec
    declares, nor a rate: erae, ae-dp, syntf), whose ``none`` row is their release at
    :data:`~authormask.evaluation.releases.NOISE_OFF_EPSILON`.

    Parameters
    ----------
    config
        The run's config.

    Returns
    -------
    list[str]
        Their names, in the config's order.
    """
    return [m for m in config.mechanisms if not noise_off_by_sampler(m) and not sweeps_rate(m)]
