"""Stronger attackers: typed character n-grams (Sapkota, Bethard, Montes-y-Gómez & Solorio 2015)
with a linear classifier, and a classifier on MiniLM sentence embeddings.

Typed character n-grams (Sapkota et al. 2015, "Not all character n-grams are created equal",
NAACL, section 3) give every character n-gram (n = 3) one of ten types by where it sits:

* affix: ``prefix`` (the first n characters of a word longer than n), ``suffix`` (its last n),
  ``space-prefix`` (begins with a space), ``space-suffix`` (ends with a space);
* word: ``whole-word`` (a whole word of n characters), ``mid-word`` (inside a word, touching
  neither end), ``multi-word`` (a space in the middle: spans two words);
* punctuation: ``beg-punct``, ``mid-punct``, ``end-punct`` (the first punctuation character is
  the n-gram's first, a middle or its last character).

The same n-gram with two types is two features. Features seen at least ``min_count`` times in
the known texts are kept; a text is its sublinear (1 + log) term frequencies, L2-normalised;
the classifier is a one-vs-rest linear SVM (``typed-svm``) or multinomial logistic regression
(``typed-lr``). Sapkota et al. report their typed 3-grams beat untyped ones on CCAT50 (Reuters
C50) with a linear SVM.

``minilm-lr``: each text is the mean of its chunks' normalised all-MiniLM-L6-v2 vectors (the
packaged encoder of :class:`~authormask.evaluation.measures.utilities.SentenceSimilarity`),
classified by multinomial logistic regression: an attacker that reads meaning rather than
spelling.
"""

from __future__ import annotations

import hashlib
import math
import threading
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_positive_int

__all__ = [
    "CLASSIFIERS",
    "TYPES",
    "SentenceEmbeddingAttacker",
    "TypedNgramAttacker",
    "typed_ngrams",
]

TYPES = (
    "prefix",
    "suffix",
    "space-prefix",
    "space-suffix",
    "whole-word",
    "mid-word",
    "multi-word",
    "beg-punct",
    "mid-punct",
    "end-punct",
)
CLASSIFIERS = ("svm", "lr")


def _punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith(("P", "S"))


_KIND_OF_CODE = (
    "beg-punct",
    "mid-punct",
    "end-punct",
    "space-prefix",
    "space-suffix",
    "multi-word",
    "whole-word",
    "prefix",
    "suffix",
    "mid-word",
)


def typed_ngrams(text: str, n: int = 3) -> list[str]:
    """Every character n-gram of ``text`` as ``type:ngram`` (whitespace runs become one space).

    The type of each n-gram follows the module notes, in this order of precedence: a
    punctuation (or symbol) character anywhere makes it ``beg-punct``, ``end-punct`` or
    ``mid-punct`` by the first one's place; else a space at its start or end makes it
    ``space-prefix`` or ``space-suffix``, a space inside ``multi-word``; else the characters
    around it decide between ``whole-word``, ``prefix``, ``suffix`` and ``mid-word`` (a word
    ends at a space, at punctuation or at the text's end). The rules run on whole arrays of
    positions; only the strings are made one by one.

    Parameters
    ----------
    text
        The text.
    n
        The n-gram order.

    Returns
    -------
    list[str]
        The typed n-grams, in order.

    Examples
    --------
    >>> typed_ngrams("the cat's", 3)  # doctest: +NORMALIZE_WHITESPACE
    ['whole-word:the', 'space-suffix:he ', 'multi-word:e c', 'space-prefix: ca',
     'whole-word:cat', "end-punct:at'", "mid-punct:t's"]
    """
    s = " ".join(text.split())
    m = len(s) - n + 1
    if m <= 0:
        return []
    punct_of = {ch: _punct(ch) for ch in set(s)}
    punct = np.fromiter((punct_of[ch] for ch in s), dtype=bool, count=len(s))
    space = np.frombuffer(s.encode("utf-32-le"), dtype="<u4") == ord(" ")
    window = np.stack([punct[k : k + m] for k in range(n)])  # window[k, i]: s[i + k]
    has_punct = window.any(axis=0)
    first = window.argmax(axis=0)
    inner = (
        np.stack([space[k : k + m] for k in range(1, n - 1)]).any(axis=0)
        if n > 2
        else np.zeros(m, dtype=bool)
    )
    # a word starts after a space or punctuation (or at 0) and ends before one (or at the end)
    edge = space | punct
    starts = np.concatenate(([True], edge[: m - 1]))
    ends = np.concatenate((edge[n:], [True]))
    word = np.where(starts & ends, 6, np.where(starts, 7, np.where(ends, 8, 9)))
    code = np.where(
        has_punct,
        np.where(first == 0, 0, np.where(first == n - 1, 2, 1)),
        np.where(
            space[:m],
            3,
            np.where(space[n - 1 : n - 1 + m], 4, np.where(inner, 5, word)),
        ),
    )
    kinds = _KIND_OF_CODE
    return [f"{kinds[c]}:{s[i : i + n]}" for i, c in enumerate(code.tolist())]


#: the typed n-gram counts of the texts read last ((n, digest) -> counts), oldest first: the
#: typed attackers (SVM and LR, plain and adaptive, the released-words ones) read the same
#: texts in a cell, and the plain ones the same known texts at every epsilon
_COUNTS: dict[tuple[int, bytes], Counter[str]] = {}
_COUNTS_TEXTS = 1024
_COUNTS_LOCK = threading.Lock()


def typed_counts(text: str, n: int) -> Counter[str]:
    """How often each typed ``n``-gram of ``text`` occurs (:func:`typed_ngrams`), remembered for
    the texts read last; the counts are shared: never change them.

    Parameters
    ----------
    text
        The text.
    n
        The n-gram order.

    Returns
    -------
    Counter[str]
        Typed n-gram -> its count.

    Examples
    --------
    >>> typed_counts("aa aa", 2)["whole-word:aa"]
    2
    """
    key = (n, hashlib.blake2b(text.encode("utf-8", "surrogatepass")).digest())
    with _COUNTS_LOCK:
        found = _COUNTS.get(key)
    if found is not None:
        return found
    counts = Counter(typed_ngrams(text, n))
    with _COUNTS_LOCK:
        _COUNTS[key] = counts
        while len(_COUNTS) > _COUNTS_TEXTS:
            del _COUNTS[next(iter(_COUNTS))]
    return counts


def _linear(kind: str, c: float, seed: int) -> Any:
    if kind == "svm":
        from sklearn.svm import LinearSVC

        return LinearSVC(C=c, random_state=seed)
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, max_iter=2000)


def _predict(model: Any, x: Any) -> Predictions:
    decision = np.asarray(model.decision_function(x), dtype=np.float64)
    classes = [str(c) for c in model.classes_]
    if decision.ndim == 1:  # two classes: positive = classes[1]
        decision = np.stack([-decision, decision], axis=1)
    best = np.argmax(decision, axis=1)
    return Predictions(
        tuple(classes[int(b)] for b in best),
        tuple(float(decision[i, b]) for i, b in enumerate(best)),
    )


class TypedNgramAttacker:
    """Typed character n-grams and a linear classifier (see module docstring).

    Parameters
    ----------
    classifier
        ``"svm"`` or ``"lr"`` (:data:`CLASSIFIERS`).
    ngram
        The character n-gram order.
    min_count
        The least number of occurrences of a typed n-gram in the known texts.
    c
        The classifier's ``C`` (> 0), or ``None`` for 1 (SVM) or 100 (LR).
    random_state
        The seed of the SVM.

    Raises
    ------
    InvalidParameterError
        If ``classifier`` is unknown or ``c`` is not above 0.
    """

    def __init__(
        self,
        *,
        classifier: str = "svm",
        ngram: int = 3,
        min_count: int = 2,
        c: float | None = None,
        random_state: RandomState = None,
    ) -> None:
        if classifier not in CLASSIFIERS:
            raise InvalidParameterError(
                f"classifier must be one of {', '.join(CLASSIFIERS)}, got {classifier!r}"
            )
        self.classifier = classifier
        self.ngram = check_positive_int(ngram, name="n-gram order")
        self.min_count = check_positive_int(min_count, name="minimum feature count")
        self.c = float(c) if c is not None else (1.0 if classifier == "svm" else 100.0)
        if not self.c > 0:
            raise InvalidParameterError(f"C must be > 0, got {c!r}")
        self.random_state = random_state
        self.name = f"typed-{classifier}"
        self.vocabulary: dict[str, int] = {}
        self._model: Any = None

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Sublinear term frequencies of the known features, each row L2-normalised.

        Parameters
        ----------
        texts
            The texts.

        Returns
        -------
        sp.csr_matrix
            One row per text, one column per typed n-gram kept.
        """
        return self._matrix([typed_counts(text, self.ngram) for text in texts])

    def _matrix(self, per_text: Sequence[Counter[str]]) -> sp.csr_matrix:
        indptr = [0]
        cols: list[int] = []
        data: list[float] = []
        for counts in per_text:
            row = sorted(
                (self.vocabulary[g], 1.0 + math.log(c))
                for g, c in counts.items()
                if g in self.vocabulary
            )
            norm = math.sqrt(sum(v * v for _, v in row)) or 1.0
            cols.extend(j for j, _ in row)
            data.extend(v / norm for _, v in row)
            indptr.append(len(cols))
        return sp.csr_matrix((data, cols, indptr), shape=(len(per_text), len(self.vocabulary)))

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> TypedNgramAttacker:
        """Keep the typed n-grams seen ``min_count`` times in the known texts and train the
        classifier.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        TypedNgramAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes, or no
            typed n-gram occurs ``min_count`` times.
        """
        check_training(items, labels, f"{self.name} attacker")
        per_text = [typed_counts(item.text, self.ngram) for item in items]
        totals: Counter[str] = Counter()
        for counts in per_text:
            totals.update(counts)
        kept = sorted(g for g, c in totals.items() if c >= self.min_count)
        if not kept:
            raise InputError(
                f"{self.name} attacker: no typed {self.ngram}-gram occurs {self.min_count} "
                "times in the known texts"
            )
        self.vocabulary = {g: i for i, g in enumerate(kept)}
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        self._model = _linear(self.classifier, self.c, seed).fit(
            self._matrix(per_text), list(labels)
        )
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the author with the largest decision value for each text.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            The author of each text and its decision value.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if self._model is None:
            raise InvalidParameterError(f"{self.name} attacker: call fit before predict")
        return _predict(self._model, self.features([i.text for i in items]))


class EmbeddingMemo:
    """An encoder (anything with ``embed(texts) -> array``) that embeds each distinct text
    once: a protocol's known texts are the same at every epsilon."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            for text, vector in zip(missing, self.encoder.embed(missing), strict=True):
                self._memo[text] = vector
        return np.stack([self._memo[t] for t in texts]) if texts else np.zeros((0, 0))


class SentenceEmbeddingAttacker:
    """MiniLM document vectors and multinomial logistic regression (see module docstring).

    Parameters
    ----------
    encoder
        A :class:`~authormask.evaluation.measures.utilities.SentenceSimilarity` (shared, so
        the model is loaded once), or ``None`` for a new one.
    c
        The inverse L2 penalty of the logistic regression (> 0).

    Raises
    ------
    InvalidParameterError
        If ``c`` is not above 0.
    """

    def __init__(self, encoder: Any = None, *, c: float = 10.0) -> None:
        if not c > 0:
            raise InvalidParameterError(f"C must be > 0, got {c!r}")
        if encoder is None:
            from authormask.evaluation.measures.utilities import SentenceSimilarity

            encoder = SentenceSimilarity()
        self.encoder = encoder
        self.c = float(c)
        self.name = "minilm-lr"
        self._model: Any = None

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> SentenceEmbeddingAttacker:
        """Embed the known texts and train the logistic regression.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        SentenceEmbeddingAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes.
        """
        from sklearn.linear_model import LogisticRegression

        check_training(items, labels, "MiniLM attacker")
        x = self.encoder.embed([i.text for i in items])
        self._model = LogisticRegression(C=self.c, max_iter=2000).fit(x, list(labels))
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the author with the largest decision value for each text.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            The author of each text and its decision value.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if self._model is None:
            raise InvalidParameterError("MiniLM attacker: call fit before predict")
        return _predict(self._model, self.encoder.embed([i.text for i in items]))
