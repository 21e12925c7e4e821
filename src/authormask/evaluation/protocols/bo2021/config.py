"""What a bo2021 evaluation runs: the mechanisms it can compare (every registry mechanism
that releases text), the classifiers, its configuration with its defaults and ``--quick``'s,
and the (mechanism, epsilon) settings and seeds it releases with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from authormask.core import lineup, mechanism_names, mechanism_spec
from authormask.evaluation.measures import BASE_ATTACKERS, attacker
from authormask.evaluation.protocols._common import ProtocolConfig, epsilon_key, mechanism_code
from authormask.exceptions import InvalidParameterError
from authormask.validation import check_epsilon

__all__ = [
    "BO2021_ATTACKERS",
    "DEFAULT_ATTACKERS",
    "FASTTEXT_CHAR",
    "ORIGINAL",
    "RELEASE_MECHANISMS",
    "ReleaseConfig",
    "label_of",
    "release_mechanisms",
    "release_seed",
    "release_settings",
    "releases_text",
    "thousandths",
]

#: the comparison of Bo et al. (2021, Table 1), the default, in the order of the table
RELEASE_MECHANISMS = lineup("bo2021")
#: the paper's authorship classifier (Sari et al. 2017), built into this protocol
FASTTEXT_CHAR = "fasttext-char"
#: attackers this protocol cannot feed: those that read the words a word-level release keeps
#: beside its text (:attr:`~authormask.evaluation.measures._base.Attacker.reads_released_words`),
#: which this protocol does not keep
NOT_BO2021 = tuple(a for a in BASE_ATTACKERS if attacker(a).reads_released_words)
#: the classifiers this protocol runs: the paper's and every non-adaptive registry attacker but
#: :data:`NOT_BO2021` (adaptive attackers would need released training texts, which this
#: protocol does not make)
BO2021_ATTACKERS = (FASTTEXT_CHAR, *(a for a in BASE_ATTACKERS if a not in NOT_BO2021))
#: the paper's classifier and a stronger one (Sapkota et al. typed character 3-grams)
DEFAULT_ATTACKERS = (FASTTEXT_CHAR, "typed-svm")
#: how the table names the original text
ORIGINAL = "original"


def releases_text(name: str) -> bool:
    """Whether this protocol can run mechanism ``name``: its registry spec declares that it
    releases text, in place or generated (:attr:`~authormask.core.specs.MechanismSpec.
    release`), not a bag of words.

    Parameters
    ----------
    name
        A registered mechanism's name.

    Returns
    -------
    bool
        True unless the mechanism releases a bag of words.
    """
    return mechanism_spec(name).release != "bag"


def release_mechanisms() -> tuple[str, ...]:
    """The registry mechanisms this protocol can run, in registry order: those that release
    text (:func:`releases_text`) with their noise set by epsilon or with none (random-sub's
    rate is not: ``_unset_noise``).

    Returns
    -------
    tuple[str, ...]
        Their names.
    """
    return tuple(n for n in mechanism_names() if releases_text(n) and not _unset_noise(n))


def _unset_noise(name: str) -> str:
    """Why this protocol cannot run mechanism ``name``, or "": its registry spec declares that
    another parameter than epsilon sets its noise (:attr:`~authormask.core.specs.MechanismSpec.
    noise_parameter`: random-sub's ``rate``), which this protocol has no values of (a
    mechanism without noise, random-r, runs once)."""
    spec = mechanism_spec(name)
    if spec.noise_parameter in (None, "epsilon"):
        return ""
    what = " (a baseline with no privacy guarantee)" if spec.baseline else ""
    where = " (the fernandes2019 and pan protocols sweep its rates)" if spec.sweeps_rate else ""
    noise = spec.noise_parameter
    return f"{name}{what} takes no epsilon: its parameter {noise!r} sets its noise{where}"


def label_of(name: str) -> str:
    """The table's name of a mechanism (its registry label), or of the original text.

    Parameters
    ----------
    name
        A registered mechanism's name, or :data:`ORIGINAL`.

    Returns
    -------
    str
        Its label (its name where the spec has none).
    """
    return "Original text" if name == ORIGINAL else mechanism_spec(name).label or name


@dataclass(frozen=True)
class ReleaseConfig(ProtocolConfig):
    """What to run. ``mechanisms`` are registry names (any that release text); each takes its
    epsilons by the kind of guarantee its registry spec declares: ``epsilons`` for pure DP per
    output token (erae, ae-dp, syntf), ``em_epsilons`` for metric DP per word with the
    embeddings' distance (emp-text, mahalanobis, tem, santext); the two scales are not
    comparable. A mechanism without epsilon (random-r) runs once; one whose noise another
    parameter sets (the baseline random-sub's ``rate``) is refused, as this protocol sets
    epsilons only. ``attackers`` are the classifiers that predict each released document's
    author (or, on a corpus without authors, its topic): :data:`BO2021_ATTACKERS`.

    Attributes
    ----------
    mechanisms
        The mechanisms, by registry name (default :data:`RELEASE_MECHANISMS`).
    epsilons
        The epsilons of the mechanisms with pure DP per output token.
    em_epsilons
        The epsilons of the mechanisms with metric DP per word.
    docs_per_author
        The documents drawn per author (at least 1).
    max_authors
        The most authors drawn (None: all of them).
    seed
        The base seed (see :func:`release_seed`).
    syntf_output
        The size of syntf's output vocabulary.
    classifier_epochs
        The training epochs of the fastText classifier.
    attackers
        The classifiers, by name among :data:`BO2021_ATTACKERS`.

    Raises
    ------
    InvalidParameterError
        If a mechanism is unknown, releases no text, repeats or takes no epsilon, an epsilon
        is not finite and > 0, ``docs_per_author`` is below 1, or an attacker is unknown or
        repeats.
    """

    OPTIONS: ClassVar[tuple[str, ...]] = (
        "attackers",
        "erae_model",
        "aedp_model",
        "em_epsilons",
        "docs_per_author",
        "max_authors",
        "dataset_path",
    )

    mechanisms: tuple[str, ...] = RELEASE_MECHANISMS
    epsilons: tuple[float, ...] = (10.0, 30.0, 100.0, 300.0)
    em_epsilons: tuple[float, ...] = (2.0, 5.0, 10.0)
    docs_per_author: int = 4
    max_authors: int | None = None
    seed: int = 0
    syntf_output: int = 20_000
    classifier_epochs: int = 100
    attackers: tuple[str, ...] = DEFAULT_ATTACKERS

    def __post_init__(self) -> None:
        registered = set(mechanism_names())
        unset = [
            _unset_noise(m)
            for m in self.mechanisms
            if m in registered and releases_text(m) and _unset_noise(m)
        ]
        if unset:
            raise InvalidParameterError(
                f"bo2021 compares mechanisms by epsilon only: {'; '.join(unset)}"
            )
        allowed = release_mechanisms()
        unknown = [m for m in self.mechanisms if m not in allowed]
        if unknown:
            bags = [n for n in mechanism_names() if not releases_text(n)]
            raise InvalidParameterError(
                f"unknown mechanism(s) {', '.join(unknown)} (choose from "
                f"{', '.join(allowed)}; {', '.join(bags)} "
                f"release{'s' if len(bags) == 1 else ''} a bag of words, not text)"
            )
        if not self.mechanisms:
            raise InvalidParameterError("give at least one mechanism")
        if len(set(self.mechanisms)) != len(self.mechanisms):
            raise InvalidParameterError("mechanisms must not repeat")
        for name in ("epsilons", "em_epsilons"):
            values = getattr(self, name)
            if not values or not _all_epsilons(values):
                raise InvalidParameterError(f"{name} must be finite and > 0, got {values}")
        if self.docs_per_author < 1:
            raise InvalidParameterError("docs_per_author must be >= 1")
        bad = [a for a in self.attackers if a not in BO2021_ATTACKERS]
        if bad or not self.attackers or len(set(self.attackers)) != len(self.attackers):
            raise InvalidParameterError(
                f"attackers must be distinct names among {', '.join(BO2021_ATTACKERS)}"
                + (f"; unknown: {', '.join(bad)}" if bad else "")
                + (
                    "; adaptive attackers are fernandes2019 and pan only"
                    if any(a.startswith("adaptive-") for a in bad)
                    else ""
                )
                + (
                    f"; {', '.join(a for a in bad if a in NOT_BO2021)}: fernandes2019 and pan "
                    "only (this protocol keeps no released words beside the text)"
                    if any(a in NOT_BO2021 for a in bad)
                    else ""
                )
            )

    @classmethod
    def quick(cls) -> ReleaseConfig:
        """``--quick``: 8 authors, 2 documents each, epsilons 10 and 100, emp-text's 5 (and
        20k words).

        Returns
        -------
        ReleaseConfig
            The config of ``--quick``.
        """
        return cls(epsilons=(10.0, 100.0), em_epsilons=(5.0,), docs_per_author=2, max_authors=8)


def _all_epsilons(values: tuple[float, ...]) -> bool:
    """Whether every one of ``values`` passes the one check of an epsilon
    (:func:`~authormask.validation.check_epsilon`)."""
    try:
        for e in values:
            check_epsilon(e)
    except InvalidParameterError:
        return False
    return True


def release_settings(config: ReleaseConfig) -> list[tuple[str, float | None]]:
    """Every (mechanism, epsilon) the evaluation releases with, in the order of the table: each
    mechanism with the epsilons of the guarantee its spec declares (:attr:`~authormask.core.
    specs.MechanismSpec.guarantee`, whose epsilons are on their own scale): ``epsilons`` for
    pure DP (the exponential mechanism per token), ``em_epsilons`` for metric DP (per word),
    none (one release) without epsilon.

    Parameters
    ----------
    config
        The evaluation's config.

    Returns
    -------
    list[tuple[str, float | None]]
        The (mechanism, epsilon) pairs; epsilon None for a mechanism without epsilon.
    """
    grids: dict[str, tuple[float | None, ...]] = {
        "pure": config.epsilons,
        "metric": config.em_epsilons,
        "none": (None,),
    }
    return [(m, e) for m in config.mechanisms for e in grids[mechanism_spec(m).guarantee]]


#: the word after the mechanism code in the seed key of an epsilon that is not a whole number
#: of thousandths (:func:`release_seed`), a key of four 32-bit words. Odd, so that it never
#: equals a whole-thousandths key: ``(code, int(1000 * epsilon))`` has four words only when
#: ``int(1000 * epsilon) >= 2**64``, and then its low word, the one after the code, is even
#: (so is every double >= 2**53)
_EXACT = 0xFFFF_FFFF


def thousandths(epsilon: float | None) -> int | None:
    """``epsilon`` as a whole number of thousandths, ``int(1000 * epsilon)``, when that is
    exact in floating point (``1000 * epsilon`` is a whole number, and that number of
    thousandths is ``epsilon`` again: 7, 8.4, 0.5); None otherwise (7.0001, 1.001, whose
    ``1000 * epsilon`` is 1000.9999999999999) and for no epsilon.

    Parameters
    ----------
    epsilon
        An epsilon, or None.

    Returns
    -------
    int | None
        ``int(1000 * epsilon)`` where exact, else None.

    Examples
    --------
    >>> thousandths(8.4), thousandths(7.0001), thousandths(None)
    (8400, None, None)
    """
    if epsilon is None:
        return None
    scaled = 1000 * float(epsilon)
    if not scaled.is_integer() or int(scaled) / 1000 != epsilon:
        return None
    return int(scaled)


def release_seed(base: int, mechanism: str, epsilon: float | None) -> int:
    """The seed of the release of ``mechanism`` at ``epsilon``: ``SeedSequence(base,
    spawn_key=key).generate_state(1)[0]``, a function of the base seed, the mechanism's fixed
    code (the seed code its registry spec declares,
    :func:`~authormask.evaluation.protocols._common.mechanism_code`) and epsilon, so it never
    depends on the order of the configured mechanisms.

    ``key`` is ``(code, thousandths(epsilon))`` (:func:`thousandths`) where epsilon is a whole
    number of thousandths, ``(code, 0)`` without epsilon (the keys, and so the seeds, of
    earlier versions), else ``(code, 0xFFFFFFFF, *exact)``, ``exact`` the epsilon's IEEE-754
    double as two 32-bit words (:func:`~authormask.evaluation.protocols._common.epsilon_key`):
    two different epsilons never share a key, however close (the earlier key, ``int(1000 *
    epsilon)`` for every epsilon, gave 7.0001 and 7.0004 the same noise, and 1.0 and 1.001).

    Parameters
    ----------
    base
        The evaluation's base seed.
    mechanism
        A registered mechanism's name.
    epsilon
        The release's epsilon, or None.

    Returns
    -------
    int
        The release's seed (a 32-bit word).
    """
    whole = thousandths(epsilon)
    if epsilon is None or whole is not None:
        key: tuple[int, ...] = (mechanism_code(mechanism), 0 if whole is None else whole)
    else:
        key = (mechanism_code(mechanism), _EXACT, *epsilon_key(epsilon)[1:])
    return int(np.random.SeedSequence(base, spawn_key=key).generate_state(1)[0])
