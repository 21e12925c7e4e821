"""What a bo2021 evaluation measured: one :class:`ReleaseRow` per mechanism and epsilon (and
the original text), in the :class:`ReleaseResult`: plain data. Its reports read it
(:func:`authormask.evaluation.reports.write_reports`); nothing here knows the reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from authormask.evaluation.metrics import Interval, wilson_interval

__all__ = ["ReleaseResult", "ReleaseRow"]


@dataclass(frozen=True)
class ReleaseRow:
    """One mechanism at one epsilon, over the released documents. ``correct`` holds, per
    classifier, how many released documents it labelled correctly (author, or topic on a
    corpus without authors)."""

    mechanism: str
    epsilon: float | None
    epsilon_unit: str
    similarity: float
    similarity_sd: float
    correct: dict[str, int]
    documents: int
    stylometric: float
    stylometric_sd: float
    tokens: int
    total_epsilon_mean: float | None
    seconds: float

    @property
    def strongest(self) -> str:
        """The classifier with the most correct labels (the first listed on a tie)."""
        return max(self.correct, key=lambda a: self.correct[a])

    @property
    def best_correct(self) -> int:
        return self.correct[self.strongest]

    @property
    def best_accuracy(self) -> float:
        return self.best_correct / self.documents

    def interval(self, attacker: str | None = None) -> Interval:
        """Wilson 95% interval of ``attacker``'s accuracy (default: the strongest's)."""
        return wilson_interval(self.correct[attacker or self.strongest], self.documents)


@dataclass(frozen=True)
class ReleaseResult:
    config: dict[str, Any]
    corpus: dict[str, Any]
    rows: tuple[ReleaseRow, ...]
    statements: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    @property
    def task(self) -> str:
        """``author``, or ``topic`` on a corpus without authors."""
        return str(self.corpus.get("task", "author"))

    @property
    def chance(self) -> float:
        return 1.0 / int(self.corpus["classes"])

    def to_dict(self) -> dict[str, Any]:
        rows = []
        for r in self.rows:
            iv = r.interval()
            rows.append(
                asdict(r)
                | {
                    "accuracy": {a: c / r.documents for a, c in r.correct.items()},
                    "strongest": {
                        "attacker": r.strongest,
                        "correct": r.best_correct,
                        "accuracy": r.best_accuracy,
                        "wilson95": [iv.low, iv.high],
                    },
                }
            )
        return {
            "config": self.config,
            "corpus": self.corpus,
            "rows": rows,
            "statements": self.statements,
            "provenance": self.provenance,
        }
