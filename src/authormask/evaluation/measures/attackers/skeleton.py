"""``class-seq``: an attacker that reads only the skeleton of a text, never its content words.

What it reads: the text is lower-cased and split by the project's tokenizer
(:func:`authormask.text.tokens`: clitics such as ``n't`` and ``'s`` are tokens of their own);
each token becomes one symbol of the *class sequence*:

* ``F``: a function word, a word of the project's default function-word list (the English
  stopword list of :func:`authormask.text.stopwords.default_stopwords`, 160 words, the list
  ``emp-doc`` keeps as its function-word class by default);
* ``C``: a content word, any other word (numbers included);
* a punctuation token stands for itself (``,``, ``.``, ``"`` ...).

``"The cat's on the mat, isn't it?"`` is ``F C F F F C , F F F ?``.

How it decides: the text is the tf-idf vector (sublinear tf, ``1 + log tf``; smoothed idf; L2
norm) of the 1- to 4-grams of its class sequence, and a one-vs-rest linear SVM names the author.
This is the "text distortion" view of Stamatatos (2017, "Authorship attribution using text
distortion", EACL, section 3: mask every word outside the most frequent ones and keep the
punctuation) with every content word masked to one symbol, and the function-word n-grams of
stylometry (Argamon & Levitan 2005; Stamatatos 2009, "A survey of modern authorship attribution
methods", section 3.2) read as syntax. A released text whose mechanism keeps the writer's
skeleton (replaces content words by content words, keeps function words and punctuation in
place) is named by this attacker as well as the original is, even when every content word is
replaced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.text.stopwords import default_stopwords
from authormask.text.tokens import tokenize
from authormask.validation import check_positive_int

__all__ = ["CONTENT", "FUNCTION", "ClassSequenceAttacker", "class_sequence"]

#: the symbol of a content word
CONTENT = "C"
#: the symbol of a function word
FUNCTION = "F"


def class_sequence(text: str, function_words: frozenset[str] | None = None) -> list[str]:
    """The class sequence of ``text`` (module docstring): ``F`` for a word of
    ``function_words`` (default: the project's default stopword list), ``C`` for any other
    word, a punctuation token as itself.

    Parameters
    ----------
    text
        The text.
    function_words
        The words of the ``F`` class, or ``None`` for the default stopwords.

    Returns
    -------
    list[str]
        One symbol per token.

    Examples
    --------
    >>> " ".join(class_sequence("The cat's on the mat, isn't it?"))
    'F C F F F C , F F F ?'
    """
    words = default_stopwords() if function_words is None else function_words
    return [
        (FUNCTION if t.lower in words else CONTENT) if t.is_word else t.lower
        for t in tokenize(text.lower())
    ]


def _given(grams: list[str]) -> list[str]:
    """The analyser of the vectoriser: the n-grams are made beforehand."""
    return grams


def _ngrams(sequence: Sequence[str], low: int, high: int) -> list[str]:
    return [
        " ".join(sequence[i : i + n])
        for n in range(low, high + 1)
        for i in range(len(sequence) - n + 1)
    ]


class ClassSequenceAttacker:
    """tf-idf of class-sequence n-grams and a one-vs-rest linear SVM (see module docstring).

    Parameters
    ----------
    ngram_range
        The n-gram orders ``(low, high)``, ``1 <= low <= high``.
    c
        The SVM's ``C`` (> 0).
    function_words
        The words of the ``F`` class, or ``None`` for the default stopwords.
    random_state
        The seed of the SVM.

    Raises
    ------
    InvalidParameterError
        If the orders are not positive or ``low > high``, or ``c`` is not above 0.
    """

    def __init__(
        self,
        *,
        ngram_range: tuple[int, int] = (1, 4),
        c: float = 1.0,
        function_words: frozenset[str] | None = None,
        random_state: RandomState = None,
    ) -> None:
        low, high = ngram_range
        check_positive_int(low, name="smallest n-gram order")
        check_positive_int(high, name="largest n-gram order")
        if low > high:
            raise InvalidParameterError(
                f"n-gram orders must satisfy low <= high, got {ngram_range!r}"
            )
        if not c > 0:
            raise InvalidParameterError(f"SVM C must be > 0, got {c!r}")
        self.ngram_range = (low, high)
        self.c = float(c)
        self.function_words = default_stopwords() if function_words is None else function_words
        self.random_state = random_state
        self.name = "class-seq"
        self._vectorizer: Any = None
        self._model: Any = None

    def sequences(self, texts: Sequence[str]) -> list[list[str]]:
        """The n-grams (as space-joined symbols) of each text's class sequence.

        Parameters
        ----------
        texts
            The texts.

        Returns
        -------
        list[list[str]]
            The n-grams of each text.
        """
        low, high = self.ngram_range
        return [_ngrams(class_sequence(t, self.function_words), low, high) for t in texts]

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> ClassSequenceAttacker:
        """Fit the tf-idf of the known texts' class-sequence n-grams and train the SVM.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        ClassSequenceAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes.
        """
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.svm import LinearSVC

        check_training(items, labels, "class-seq attacker")
        self._vectorizer = TfidfVectorizer(analyzer=_given, sublinear_tf=True, lowercase=False)
        x = self._vectorizer.fit_transform(self.sequences([i.text for i in items]))
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        self._model = OneVsRestClassifier(LinearSVC(C=self.c, random_state=seed))
        self._model.fit(x, list(labels))
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the author with the largest SVM decision value for each text.

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
            raise InvalidParameterError("class-seq attacker: call fit before predict")
        x = self._vectorizer.transform(self.sequences([i.text for i in items]))
        decision = np.asarray(self._model.decision_function(x), dtype=np.float64)
        classes = [str(c) for c in self._model.classes_]
        if decision.ndim == 1:  # two classes: one score per item, positive = classes[1]
            decision = np.stack([-decision, decision], axis=1)
        best = np.argmax(decision, axis=1)
        return Predictions(
            tuple(classes[int(b)] for b in best),
            tuple(float(decision[i, b]) for i, b in enumerate(best)),
        )
