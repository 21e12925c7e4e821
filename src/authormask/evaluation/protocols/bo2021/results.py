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
    corpus without authors).

    Attributes
    ----------
    mechanism
        The mechanism's registry name (or ``original``, the original text).
    epsilon
        The epsilon released with, or None (the original text, a mechanism without epsilon).
    epsilon_unit
        What the epsilon measures (``per token (pure DP)``, ``per word (metric DP)``, or "").
    similarity
        The mean cosine similarity of each released document to its original (sentence
        embeddings).
    similarity_sd
        The standard deviation of that similarity.
    correct
        Per classifier, how many released documents it labelled correctly.
    documents
        How many documents were released.
    stylometric
        The mean stylometric change of the released documents from their originals.
    stylometric_sd
        The standard deviation of that change.
    tokens
        The output tokens (generated text) or released content words, in all.
    total_epsilon_mean
        The mean per-document bound ``epsilon * l`` of generated text, else None.
    seconds
        How long the release took.
    """

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
        """Wilson 95% interval of ``attacker``'s accuracy (default: the strongest's).

        Parameters
        ----------
        attacker
            A classifier's name, or None for :attr:`strongest`.

        Returns
        -------
        Interval
            The interval of its accuracy over :attr:`documents`.
        """
        return wilson_interval(self.correct[attacker or self.strongest], self.documents)


@dataclass(frozen=True)
class ReleaseResult:
    """What a bo2021 evaluation measured: its rows, and what they were measured on.

    Attributes
    ----------
    config
        The evaluation's config, as a mapping.
    corpus
        What was drawn from the corpus: its name, the task, the classes and the counts of
        training and test documents.
    rows
        The original text's row, then one per (mechanism, epsilon).
    statements
        The privacy statement of each release, by ``"mechanism@epsilon"``.
    provenance
        The versions, identities and settings the measurements depend on.
    """

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
        """The result as a JSON-ready mapping, each row with its accuracies and strongest
        classifier.

        Returns
        -------
        dict[str, Any]
            ``config``, ``corpus``, ``rows``, ``statements`` and ``provenance``.
        """
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
