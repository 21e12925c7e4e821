"""What a bo2021 evaluation runs: the mechanisms it can compare (every registry mechanism
that releases text), the classifiers, its configuration with its defaults and ``--quick``'s,
and the (mechanism, epsilon) settings and seeds it releases with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from authormask.core import lineup, mechanism_names, mechanism_spec
from authormask.evaluation.measures import BASE_ATTACKERS
from authormask.evaluation.protocols._common import ProtocolConfig, mechanism_code
from authormask.exceptions import InvalidParameterError

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
]

#: the comparison of Bo et al. (2021, Table 1), the default, in the order of the table
RELEASE_MECHANISMS = lineup("bo2021")
#: the paper's authorship classifier (Sari et al. 2017), built into this protocol
FASTTEXT_CHAR = "fasttext-char"
#: the classifiers this protocol runs: the paper's and every non-adaptive registry attacker
#: (adaptive attackers would need released training texts, which this protocol does not make)
BO2021_ATTACKERS = (FASTTEXT_CHAR, *BASE_ATTACKERS)
#: the paper's classifier and a stronger one (Sapkota et al. typed character 3-grams)
DEFAULT_ATTACKERS = (FASTTEXT_CHAR, "typed-svm")
#: how the table names the original text
ORIGINAL = "original"


def releases_text(name: str) -> bool:
    """Whether this protocol can run mechanism ``name``: its registry spec declares that it
    releases text, in place or generated (:attr:`~authormask.core.specs.MechanismSpec.
    release`), not a bag of words."""
    return mechanism_spec(name).release != "bag"


def release_mechanisms() -> tuple[str, ...]:
    """The registry mechanisms this protocol can run (:func:`releases_text`), in registry
    order."""
    return tuple(n for n in mechanism_names() if releases_text(n))


def label_of(name: str) -> str:
    """The table's name of a mechanism (its registry label), or of the original text."""
    return "Original text" if name == ORIGINAL else mechanism_spec(name).label or name


@dataclass(frozen=True)
class ReleaseConfig(ProtocolConfig):
    """What to run. ``mechanisms`` are registry names (any that release text); each takes its
    epsilons by the kind of guarantee its registry spec declares: ``epsilons`` for pure DP per
    output token (erae, ae-dp, syntf), ``em_epsilons`` for metric DP per word with the
    embeddings' distance (emp-text, mahalanobis, tem, santext); the two scales are not
    comparable. A mechanism without epsilon (random-r) runs once. ``attackers`` are the
    classifiers that predict each released document's author (or, on a corpus without
    authors, its topic): :data:`BO2021_ATTACKERS`."""

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
            if not values or any(not (e > 0 and np.isfinite(e)) for e in values):
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
            )

    @classmethod
    def quick(cls) -> ReleaseConfig:
        """``--quick``: 8 authors, 2 documents each, epsilons 10 and 100, emp-text's 5 (and
        20k words)."""
        return cls(epsilons=(10.0, 100.0), em_epsilons=(5.0,), docs_per_author=2, max_authors=8)


def release_settings(config: ReleaseConfig) -> list[tuple[str, float | None]]:
    """Every (mechanism, epsilon) the evaluation releases with, in the order of the table: each
    mechanism with the epsilons of what its epsilon measures (registry spec ``epsilon_per``):
    ``epsilons`` per token, ``em_epsilons`` per word, none (one release) without epsilon."""
    grids: dict[str, tuple[float | None, ...]] = {
        "token": config.epsilons,
        "word": config.em_epsilons,
        "none": (None,),
    }
    return [(m, e) for m in config.mechanisms for e in grids[mechanism_spec(m).epsilon_per]]


def release_seed(base: int, mechanism: str, epsilon: float | None) -> int:
    """The seed of the release of ``mechanism`` at ``epsilon``: a function of the base seed,
    the mechanism's fixed code (the seed code its registry spec declares,
    :func:`~authormask.evaluation.protocols._common.mechanism_code`) and epsilon, so it never
    depends on the order of the configured mechanisms."""
    seq = np.random.SeedSequence(
        base, spawn_key=(mechanism_code(mechanism), int(1000 * (epsilon or 0)))
    )
    return int(seq.generate_state(1)[0])
