"""Topic holds: whether a release still says what its text is about, read as Fernandes et al.
(2019) read it, by a topic classifier trained on original texts and applied to releases. On a
PAN collection the topic is the *fandom* of a fan-fiction text (``fandom-info.json`` of each
problem names the fandom of every known text).

**The measure** (:func:`topic_holds`), on one problem: for each candidate ``c``, a classifier
(:data:`CLASSIFIER`: a linear SVM on sublinear tf-idf, scikit-learn) is trained on the
*original* known texts of the other candidates, labelled by their fandom, and applied to the
releases of ``c``'s known texts. Its words are the names of the training originals: the words
they write capitalised within a sentence, read lower-cased in any text (so a release that
lower-cases is read alike). A fandom is named by its characters and places: on ``pan19-en``'s
36 scorable known texts (originals) this classifier is right on 25, the same SVM on every word
but English stopwords on 14, on word 1-2-grams on 8 (measured with the classifier trained as
here). A release that replaces names (``entities="surrogate"``) loses this by design; the
measure says how much of the topic is left in the other words. A text is *scorable* when its
fandom is one the other candidates write in (no classifier can name a fandom it was never
shown); the accuracy is the share of scorable texts whose fandom is predicted right, pooled
over candidates. Training on the other candidates keeps the author out of the classifier: it
can only recognise the fandom, not the writer's style. The same classifiers applied to the
originals give the reference, the originals' accuracy (read beside the releases'; Fernandes'
claim is that the topic holds).

Few texts are scorable on ``pan19-en`` (most fandoms are written by one candidate only): the
count is reported with every value.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask.exceptions import InputError

__all__ = [
    "CLASSIFIER",
    "FANDOM_FILE",
    "TopicHolds",
    "read_fandoms",
    "topic_holds",
]

#: the file of a PAN problem that names each known text's fandom
FANDOM_FILE = "fandom-info.json"
#: the classifier, in words (its identity in a cache key)
CLASSIFIER = (
    "scikit-learn TfidfVectorizer(sublinear_tf, lower-cased, vocabulary = the words the "
    "training originals write capitalised after a lower-case word, comma or semicolon and a "
    "space, lower-cased) + LinearSVC(C=1, random_state=0), trained per candidate on the "
    "original known texts of the other candidates, labelled by fandom"
)
#: a word written capitalised within a sentence (after a lower-case letter, a comma or a
#: semicolon and a space): a name, in fan fiction mostly the fandom's characters and places
_NAME = re.compile(r"(?<=[a-z,;] )([A-Z][a-z]+)")


@dataclass(frozen=True)
class TopicHolds:
    """The fandom accuracy of a problem's texts (module docstring).

    Attributes
    ----------
    correct
        The scorable texts whose fandom was predicted right.
    scorable
        The texts whose fandom another candidate writes in.
    texts
        Every text read.
    """

    correct: int
    scorable: int
    texts: int

    @property
    def accuracy(self) -> float | None:
        """``correct / scorable``, or ``None`` without a scorable text."""
        return self.correct / self.scorable if self.scorable else None


def read_fandoms(problem_folder: str | Path) -> dict[tuple[str, str], str] | None:
    """The fandom of each known text of the PAN problem in ``problem_folder``, by
    ``(candidate, text file name)`` (``known00001.txt``, as the problem names its texts), from
    its ``fandom-info.json``; ``None`` when the problem has none (PAN 2018's problems).

    Parameters
    ----------
    problem_folder
        The problem's folder.

    Returns
    -------
    dict[tuple[str, str], str] | None
        ``(candidate, file name) -> fandom``, or ``None``.

    Raises
    ------
    InputError
        If the file is there but not a list of ``{"true-author", "known-text", "fandom"}``.
    """
    path = Path(problem_folder) / FANDOM_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
        out = {}
        for entry in data:
            name = str(entry["known-text"])
            name = name if name.endswith(".txt") else f"{name}.txt"
            out[(str(entry["true-author"]), name)] = str(entry["fandom"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        raise InputError(
            f'{path} must be a list of {{"true-author", "known-text", "fandom"}} objects'
        ) from None
    return out


def _classifier(texts: Sequence[str], labels: Sequence[str]) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import make_pipeline
    from sklearn.svm import LinearSVC

    if len(set(labels)) == 1:
        return _Constant(labels[0])
    names = sorted({m.group(1).lower() for t in texts for m in _NAME.finditer(t)})
    if not names:
        return _Constant(max(sorted(set(labels)), key=list(labels).count))
    model = make_pipeline(
        TfidfVectorizer(lowercase=True, sublinear_tf=True, vocabulary=names),
        LinearSVC(C=1.0, random_state=0),
    )
    with warnings.catch_warnings():  # many fandoms of one or two texts: as it should be
        warnings.filterwarnings(
            "ignore", message=".*number of unique classes", category=UserWarning
        )
        return model.fit(list(texts), list(labels))


class _Constant:
    """What a classifier shown one fandom predicts: that fandom."""

    def __init__(self, label: str) -> None:
        self.label = label

    def predict(self, texts: Sequence[str]) -> list[str]:
        return [self.label] * len(texts)


class FandomClassifiers:
    """One fandom classifier per candidate of a problem, each trained on the original known
    texts of the other candidates (module docstring); trained on first use.

    Parameters
    ----------
    authors
        The author of each known text.
    originals
        The original known texts.
    fandoms
        The fandom of each known text.
    """

    def __init__(
        self, authors: Sequence[str], originals: Sequence[str], fandoms: Sequence[str]
    ) -> None:
        if not len(authors) == len(originals) == len(fandoms):
            raise InputError("give one author and one fandom per known text")
        self.authors = list(authors)
        self.originals = list(originals)
        self.fandoms = list(fandoms)
        self._models: dict[str, Any] = {}

    def _model(self, candidate: str) -> Any:
        model = self._models.get(candidate)
        if model is None:
            rows = [i for i, a in enumerate(self.authors) if a != candidate]
            model = _classifier([self.originals[i] for i in rows], [self.fandoms[i] for i in rows])
            self._models[candidate] = model
        return model

    def score(self, texts: Sequence[str]) -> TopicHolds:
        """The fandom accuracy of ``texts``, the known texts in the order given (released, or
        the originals themselves for the reference).

        Parameters
        ----------
        texts
            One text per known text, in the same order.

        Returns
        -------
        TopicHolds
            The correct, scorable and read texts.
        """
        if len(texts) != len(self.authors):
            raise InputError(f"{len(texts)} texts for {len(self.authors)} known texts")
        correct = scorable = 0
        for candidate in dict.fromkeys(self.authors):
            seen = {f for a, f in zip(self.authors, self.fandoms, strict=True) if a != candidate}
            mine = [
                i for i, a in enumerate(self.authors) if a == candidate and self.fandoms[i] in seen
            ]
            if not mine or not seen:
                continue
            predicted = self._model(candidate).predict([texts[i] for i in mine])
            correct += sum(p == self.fandoms[i] for p, i in zip(predicted, mine, strict=True))
            scorable += len(mine)
        return TopicHolds(correct=int(correct), scorable=scorable, texts=len(texts))


def topic_holds(
    authors: Sequence[str],
    originals: Sequence[str],
    released: Sequence[str],
    fandoms: Sequence[str] | Mapping[int, str],
) -> TopicHolds:
    """The fandom accuracy of ``released`` (module docstring): per candidate a classifier
    trained on the other candidates' ``originals``, applied to the candidate's releases.

    Parameters
    ----------
    authors
        The author of each known text.
    originals
        The original known texts.
    released
        Their releases, in the same order (or the originals, for the reference).
    fandoms
        The fandom of each known text.

    Returns
    -------
    TopicHolds
        The correct, scorable and read texts.
    """
    labels = [fandoms[i] for i in range(len(authors))]
    return FandomClassifiers(authors, originals, labels).score(released)
