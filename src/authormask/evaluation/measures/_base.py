"""What every measure shares: the interface of a measure (:class:`Measure`), what a protocol hands
it for one cell (:class:`MeasureInputs`) and what it returns (:class:`Score`); and what every
attacker and classifier returns (:class:`Predictions`).

A measure is a small class registered by name (:mod:`authormask.evaluation.measures.registry`):
an *attacker* names the author of each released text, a *utility* says what a release still
carries (its topic, its meaning). A protocol asks the release layer for the texts, wraps them
in a :class:`MeasureInputs` and calls :meth:`Measure.score`; it never asks which measure it
holds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from authormask.evaluation.study import Item, Study

__all__ = [
    "Adaptive",
    "Attacker",
    "AttackerSettings",
    "Classifier",
    "ClassifierMeasure",
    "Measure",
    "MeasureInputs",
    "Predictions",
    "Score",
    "check_training",
]


@dataclass(frozen=True)
class Predictions:
    """One predicted label per query (``None`` = "don't know") and the score behind it.

    Attributes
    ----------
    labels
        The predicted label of each query, ``None`` for "don't know".
    scores
        The score behind each label.
    """

    labels: tuple[str | None, ...]
    scores: tuple[float, ...]

    def correct(self, truth: Sequence[str | None]) -> int:
        """How many predictions equal the true label ("don't know" is never correct).

        Parameters
        ----------
        truth
            The true label of each query.

        Returns
        -------
        int
            The number of correct predictions.
        """
        return sum(1 for p, t in zip(self.labels, truth, strict=True) if p is not None and p == t)

    @property
    def abstained(self) -> int:
        return sum(1 for p in self.labels if p is None)


class Classifier(Protocol):
    """Trained on labelled reference items, predicts the label of query items."""

    name: str

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> Classifier:
        """Train on labelled reference items.

        Parameters
        ----------
        items
            The reference items.
        labels
            The label of each item (at least 2 classes).

        Returns
        -------
        Classifier
            The classifier itself, trained.
        """
        ...

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Label query items.

        Parameters
        ----------
        items
            The query items.

        Returns
        -------
        Predictions
            One label (or "don't know") and score per item.
        """
        ...


def check_training(items: Sequence[Item], labels: Sequence[str], who: str) -> None:
    from authormask.exceptions import InputError

    if len(items) != len(labels):
        raise InputError(f"{who}: {len(items)} texts but {len(labels)} labels")
    if len(set(labels)) < 2:
        raise InputError(f"{who}: needs texts of at least 2 classes, got {len(set(labels))}")


@dataclass(frozen=True)
class AttackerSettings:
    """What the measures of one run share beyond their seeds.

    Attributes
    ----------
    embeddings
        The word vectors of the Earth Mover's distance (``1nn-emd``, ``5nn-emd``), or ``None``.
    koppel_iterations
        The random feature subsets of Koppel et al.'s impostors method.
    n_jobs
        The processes a measure may use.
    encoder
        An ``EmbeddingMemo`` over the shared sentence encoder (``minilm-lr``), or ``None``.
    similarity
        The shared ``SentenceSimilarity`` of the similarity utility, or ``None``.
    """

    embeddings: Any = None  # 1nn-emd, 5nn-emd: the word vectors of the Earth Mover's distance
    koppel_iterations: int = 100
    n_jobs: int = 2
    encoder: Any = None  # minilm-lr: an EmbeddingMemo over the shared sentence encoder
    similarity: Any = None  # the similarity utility: the shared SentenceSimilarity itself


@dataclass(frozen=True)
class Score:
    """A measure's result on one cell: ``correct`` of ``total`` released texts labelled right
    (``None`` for a measure that labels nothing, such as similarity), ``value`` (the accuracy,
    or the mean score) and how many texts it ``abstained`` on ("don't know").

    Attributes
    ----------
    correct
        The released texts labelled right, ``None`` for a measure that labels nothing.
    total
        The released texts measured.
    value
        The accuracy, or the mean score.
    abstained
        The texts it answered "don't know" on.
    """

    correct: int | None
    total: int
    value: float
    abstained: int = 0


class MeasureInputs(Protocol):
    """What a protocol hands a measure for one cell (one mechanism, epsilon and repetition).
    Texts are released on demand, so a measure pays only for what it reads."""

    @property
    def mechanism(self) -> str:
        """The registry name of the mechanism that released the texts."""
        ...

    @property
    def epsilon(self) -> float | None:
        """The cell's epsilon; ``None``: the noise-off row."""
        ...

    @property
    def seed(self) -> int:
        """The measure's own seed in this cell (an attacker's)."""
        ...

    @property
    def run_seed(self) -> int:
        """The protocol's base seed, for what a measure trains once per run."""
        ...

    @property
    def settings(self) -> AttackerSettings: ...

    def released(self) -> Sequence[Item]:
        """The texts under test, as this cell's release made them.

        Returns
        -------
        Sequence[Item]
            The released texts.
        """
        ...

    def noise_off(self) -> Sequence[Item]:
        """The same texts released by the same mechanism with its noise switched off.

        Returns
        -------
        Sequence[Item]
            The texts released with the noise off.
        """
        ...

    def known(self, *, adaptive: bool) -> Sequence[Item]:
        """The labelled texts to learn from, in the form of the texts under test: released
        with the noise off, or (``adaptive``) released like the texts under test.

        Parameters
        ----------
        adaptive
            Release them like the texts under test (else with the noise off).

        Returns
        -------
        Sequence[Item]
            The labelled texts.
        """
        ...

    def training(self) -> Sequence[Item]:
        """Original (unreleased) labelled training texts, disjoint from the texts under test.

        Returns
        -------
        Sequence[Item]
            The training texts.
        """
        ...


class Measure(ABC):
    """A measure, by registry name. One object serves one run: it may keep what it computes once
    per run (a model trained on the original texts, the original texts' vectors)."""

    #: the registry name (``--attackers``, ``--utilities``)
    name: str
    #: its column in the tables and its legend in the plots
    label: str
    #: what it reads and how it decides, for the provenance of a run
    description: str
    #: ``"attacker"`` (names the author) or ``"utility"`` (what the release still carries)
    kind: str
    #: the labels its predictions are scored against (``"author"``, ``"topic"``); ``None``: a
    #: score that labels nothing
    task: str | None

    @property
    def value_label(self) -> str:
        """What its value is (an axis title): the accuracy of a labelling measure, else its
        label."""
        return self.label if self.task is None else f"{self.label} accuracy"

    def problem(self, study: Study) -> str | None:
        """Why it cannot run on ``study`` (what the study lacks), or ``None``.

        Parameters
        ----------
        study
            The study the run is on.

        Returns
        -------
        str | None
            What the study lacks, or ``None`` when the measure can run.
        """
        return None

    @abstractmethod
    def score(self, inputs: MeasureInputs) -> Score:
        """Its result on one cell.

        Parameters
        ----------
        inputs
            The cell's inputs.

        Returns
        -------
        Score
            The result.
        """


class ClassifierMeasure(Measure):
    """A measure that trains a classifier on labelled texts and counts the released texts it
    labels right."""

    task: str
    #: whether it learns from texts released like the texts under test (``adaptive-<name>``)
    adaptive: bool = False

    @abstractmethod
    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        """A fresh, untrained classifier.

        Parameters
        ----------
        seed
            The classifier's seed.
        settings
            What the measures of the run share.

        Returns
        -------
        Classifier
            The untrained classifier.
        """

    def fitted(self, inputs: MeasureInputs) -> Classifier:
        """The classifier trained on :meth:`MeasureInputs.known`.

        Parameters
        ----------
        inputs
            The cell's inputs.

        Returns
        -------
        Classifier
            The trained classifier.
        """
        refs = inputs.known(adaptive=self.adaptive)
        clf = self.classifier(seed=inputs.seed, settings=inputs.settings)
        return clf.fit(refs, [str(i.label(self.task)) for i in refs])

    def predict(self, inputs: MeasureInputs) -> Predictions:
        """Its label for every released text of the cell.

        Parameters
        ----------
        inputs
            The cell's inputs.

        Returns
        -------
        Predictions
            The labels of the released texts.
        """
        return self.fitted(inputs).predict(inputs.released())

    def score(self, inputs: MeasureInputs) -> Score:
        """The released texts the classifier labels right (:meth:`fitted`, then its predictions).

        Parameters
        ----------
        inputs
            The cell's inputs.

        Returns
        -------
        Score
            The correct labels among the released texts, their accuracy and the abstentions.
        """
        queries = inputs.released()
        preds = self.fitted(inputs).predict(queries)
        correct = preds.correct([i.label(self.task) for i in queries])
        return Score(correct, len(queries), correct / len(queries), preds.abstained)


class Attacker(ClassifierMeasure):
    """An attacker: names the author of each released text."""

    kind = "attacker"
    task = "author"
    #: the known texts it needs per author, and why
    known_per_author: int = 1
    needs_known_because: str = ""
    #: it reads the words a release keeps beside its text (``Item.words``), which a protocol
    #: that keeps none (bo2021) cannot give it
    reads_released_words: bool = False

    @property
    def base_name(self) -> str:
        """The attacker behind the name (``adaptive-svm``: ``svm``)."""
        return self.name

    def problem(self, study: Study) -> str | None:
        """Why the attacker cannot run on ``study``: an author with fewer known texts than
        ``known_per_author``.

        Parameters
        ----------
        study
            The study the run is on.

        Returns
        -------
        str | None
            The reason, or ``None`` when it can run.
        """
        if self.known_per_author <= 1:
            return None
        per_author: dict[str, int] = {}
        for i in study.known:
            per_author[str(i.author)] = per_author.get(str(i.author), 0) + 1
        fewest = min(per_author, key=lambda a: (per_author[a], a))
        if per_author[fewest] >= self.known_per_author:
            return None
        return (
            f"{self.base_name} {self.needs_known_because} and needs {self.known_per_author} "
            f"known texts per author; author {fewest!r} has {per_author[fewest]} (use "
            "`all_known`, which gives every training document as a known text)"
        )


class Adaptive(Attacker):
    """``adaptive-<name>``: attacker ``<name>`` trained on known texts released with the same
    mechanism and epsilon as the texts it attacks (at the noise-off row, as the plain one).

    Parameters
    ----------
    base
        The plain attacker.
    """

    adaptive = True

    def __init__(self, base: Attacker) -> None:
        self.base = base
        self.name = f"adaptive-{base.name}"
        self.label = f"adaptive {base.label}"
        self.description = base.description
        self.known_per_author = base.known_per_author
        self.needs_known_because = base.needs_known_because
        self.reads_released_words = base.reads_released_words

    @property
    def base_name(self) -> str:
        return self.base.name

    def classifier(self, *, seed: int, settings: AttackerSettings) -> Classifier:
        """The plain attacker's classifier.

        Parameters
        ----------
        seed
            The classifier's seed.
        settings
            What the measures of the run share.

        Returns
        -------
        Classifier
            The untrained classifier.
        """
        return self.base.classifier(seed=seed, settings=settings)
