"""What every attacker and classifier returns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from authormask.evaluation.study import Item

__all__ = ["Classifier", "Predictions", "check_training"]


@dataclass(frozen=True)
class Predictions:
    """One predicted label per query (``None`` = "don't know") and the score behind it."""

    labels: tuple[str | None, ...]
    scores: tuple[float, ...]

    def correct(self, truth: Sequence[str | None]) -> int:
        """How many predictions equal the true label ("don't know" is never correct)."""
        return sum(1 for p, t in zip(self.labels, truth, strict=True) if p is not None and p == t)

    @property
    def abstained(self) -> int:
        return sum(1 for p in self.labels if p is None)


class Classifier(Protocol):
    """Trained on labelled reference items, predicts the label of query items."""

    name: str

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> Classifier: ...

    def predict(self, items: Sequence[Item]) -> Predictions: ...


def check_training(items: Sequence[Item], labels: Sequence[str], who: str) -> None:
    from authormask.exceptions import InputError

    if len(items) != len(labels):
        raise InputError(f"{who}: {len(items)} texts but {len(labels)} labels")
    if len(set(labels)) < 2:
        raise InputError(f"{who}: needs texts of at least 2 classes, got {len(set(labels))}")
