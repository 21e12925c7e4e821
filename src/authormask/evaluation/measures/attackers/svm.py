"""The PAN 2018 authorship-attribution baseline (Kestemont et al. 2018, pan18-cdaa-baseline).

Character 3-gram counts over the n-grams that occur at least ``min_count`` times (default 5) in
the known texts, divided by the text's length, scaled by maximum absolute value, and a one-vs-rest
linear SVM (``C = 0.1``). Closed set: every query gets an author.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import MaxAbsScaler
from sklearn.svm import LinearSVC

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_positive_int

__all__ = ["SVMAttacker"]


class SVMAttacker:
    """PAN 2018 baseline: char 3-gram frequencies + one-vs-rest linear SVM.

    Parameters
    ----------
    ngram
        The character n-gram order.
    min_count
        The least number of occurrences of an n-gram in the known texts.
    c
        The SVM's ``C`` (> 0).
    random_state
        The seed of the SVM.

    Raises
    ------
    InvalidParameterError
        If ``c`` is not above 0.
    """

    def __init__(
        self,
        *,
        ngram: int = 3,
        min_count: int = 5,
        c: float = 0.1,
        random_state: RandomState = None,
    ) -> None:
        if not c > 0:
            raise InvalidParameterError(f"SVM C must be > 0, got {c!r}")
        self.ngram = check_positive_int(ngram, name="n-gram size")
        self.min_count = check_positive_int(min_count, name="minimum n-gram count")
        self.c = float(c)
        self.random_state = random_state
        self.name = "svm"
        self._vectorizer: CountVectorizer | None = None
        self._scaler = MaxAbsScaler()
        self._model: OneVsRestClassifier | None = None

    def _features(self, texts: Sequence[str]) -> np.ndarray:
        assert self._vectorizer is not None
        counts = self._vectorizer.transform(texts).astype(np.float64).toarray()
        lengths = np.array([max(len(t), 1) for t in texts], dtype=np.float64)
        return np.asarray(counts / lengths[:, None])

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> SVMAttacker:
        """Keep the n-grams seen ``min_count`` times in the known texts and train the SVM.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        SVMAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes, or no
            n-gram occurs ``min_count`` times.
        """
        check_training(items, labels, "SVM attacker")
        texts = [item.text for item in items]
        counter = CountVectorizer(
            analyzer="char", ngram_range=(self.ngram, self.ngram), lowercase=False
        )
        totals = np.asarray(counter.fit_transform(texts).sum(axis=0)).ravel()
        vocab = [
            g
            for g, i in sorted(counter.vocabulary_.items(), key=lambda kv: kv[1])
            if totals[i] >= self.min_count
        ]
        if not vocab:
            raise InputError(
                f"SVM attacker: no character {self.ngram}-gram occurs {self.min_count} times "
                "in the known texts"
            )
        self._vectorizer = CountVectorizer(
            analyzer="char",
            ngram_range=(self.ngram, self.ngram),
            lowercase=False,
            vocabulary=vocab,
        )
        x = self._scaler.fit_transform(self._features(texts))
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
            raise InvalidParameterError("SVM attacker: call fit before predict")
        x = self._scaler.transform(self._features([item.text for item in items]))
        decision = np.asarray(self._model.decision_function(x), dtype=np.float64)
        classes = list(self._model.classes_)
        if decision.ndim == 1:  # two classes: one score per item, positive = classes[1]
            decision = np.stack([-decision, decision], axis=1)
        best = np.argmax(decision, axis=1)
        return Predictions(
            tuple(str(classes[int(b)]) for b in best),
            tuple(float(decision[i, b]) for i, b in enumerate(best)),
        )
