"""Attackers by name, for every protocol: ``make_attacker("typed-svm", ...)``.

``adaptive-<name>`` is not an attacker of its own: a protocol trains ``<name>`` on known texts
released with the same mechanism and epsilon as the texts it attacks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from authormask.evaluation.attackers._base import Classifier
from authormask.exceptions import InvalidParameterError

__all__ = ["BASE_ATTACKERS", "AttackerSettings", "attacker_names", "base_name", "make_attacker"]

#: every attacker, with what it reads
BASE_ATTACKERS: dict[str, str] = {
    "koppel-cosine": "Koppel et al. 2011, 4-grams within words, cosine",
    "koppel-minmax": "Koppel et al. 2011, 4-grams within words, min-max",
    "svm": "char 3-grams seen 5+ times, length-normalised, max-abs, linear SVM C=0.1",
    "pan-baseline": "PAN 2019 baseline: char 3-grams, calibrated one-vs-rest SVM, <UNK> "
    "reject at a 0.1 margin",
    "typed-svm": "Sapkota et al. 2015 typed char 3-grams, linear SVM",
    "typed-lr": "Sapkota et al. 2015 typed char 3-grams, logistic regression",
    "minilm-lr": "MiniLM sentence embeddings, logistic regression",
    "1nn-emd": "nearest known text by Earth Mover's distance",
}


def attacker_names() -> tuple[str, ...]:
    """Every attacker name a protocol accepts, ``adaptive-`` variants included."""
    return tuple(BASE_ATTACKERS) + tuple(f"adaptive-{a}" for a in BASE_ATTACKERS)


def base_name(name: str) -> str:
    """The attacker behind ``name`` (``adaptive-svm`` -> ``svm``)."""
    return name.removeprefix("adaptive-")


@dataclass(frozen=True)
class AttackerSettings:
    """What some attackers need beyond their seed."""

    embeddings: Any = None  # 1nn-emd
    koppel_iterations: int = 100
    n_jobs: int = 2
    encoder: Any = None  # minilm-lr: a shared SentenceSimilarity


def make_attacker(name: str, *, seed: int, settings: AttackerSettings) -> Classifier:
    """A fresh, untrained attacker ``name`` (a key of :data:`BASE_ATTACKERS`)."""
    from authormask.evaluation.attackers.koppel import KoppelAttacker
    from authormask.evaluation.attackers.nearest import NearestNeighbourClassifier
    from authormask.evaluation.attackers.pan_baseline import PanBaselineAttacker
    from authormask.evaluation.attackers.svm import SVMAttacker
    from authormask.evaluation.attackers.typed import SentenceEmbeddingAttacker, TypedNgramAttacker

    if name in ("koppel-cosine", "koppel-minmax"):
        return KoppelAttacker(
            similarity=name.split("-", 1)[1],
            iterations=settings.koppel_iterations,
            random_state=seed,
        )
    if name == "svm":
        return SVMAttacker(random_state=seed)
    if name == "pan-baseline":
        return PanBaselineAttacker(random_state=seed)
    if name in ("typed-svm", "typed-lr"):
        return TypedNgramAttacker(classifier=name.split("-", 1)[1], random_state=seed)
    if name == "minilm-lr":
        return SentenceEmbeddingAttacker(settings.encoder)
    if name == "1nn-emd":
        if settings.embeddings is None:
            raise InvalidParameterError("1nn-emd needs the embeddings")
        return NearestNeighbourClassifier(settings.embeddings, k=1, n_jobs=settings.n_jobs)
    raise InvalidParameterError(
        f"unknown attacker {name!r}; choose from {', '.join(attacker_names())}"
    )
