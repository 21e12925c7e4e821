"""The baseline of the PAN cross-domain authorship attribution tasks, as published.

Stamatatos's baseline for PAN 2018 (``pan18-cdaa-baseline.py``) and its open-set version for
PAN 2019 (``pan19-cdaa-baseline.py``; Kestemont et al. 2019, section 4):

1. the vocabulary is every character ``n``-gram (n = 3) that occurs at least ``min_count``
   times (5) in the known texts together (case kept, spaces and punctuation included);
2. a text is the vector of its counts of those n-grams divided by the text's length in
   characters; the script counts with scikit-learn's character analyser, which first turns
   every run of two or more whitespace characters into one space, so the vocabulary's n-grams
   holding such a run are never counted (they stay in the vocabulary, and in ``n_features``);
   that is kept here;
3. features are scaled by their maximum absolute value over the known texts;
4. a one-vs-rest SVM (``C = 1``) is trained; in the 2019 version its probabilities are
   calibrated (Platt's sigmoid, 3-fold cross-validation, the folds' calibrated models averaged)
   and a text is left unattributed (``<UNK>``) when its two most probable candidates differ by
   less than ``reject`` (0.1).

The 2019 script's SVM is scikit-learn's ``SVC(C=1)``, whose kernel is the RBF; at the time its
``gamma`` defaulted to ``1 / n_features`` (``"auto"``), which is kept here (``kernel`` and
``gamma`` can be changed). ``calibrated=False, reject=0`` is the 2018 script's closed-set
classifier (a linear one-vs-rest SVM, ``LinearSVC(C=1)``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_positive_int

__all__ = ["PanBaselineAttacker", "char_ngram_vocabulary"]

#: what scikit-learn's character analyser replaces by one space before counting
_WHITESPACE_RUN = re.compile(r"\s\s+")


def char_ngram_vocabulary(texts: Sequence[str], n: int, min_count: int) -> list[str]:
    """Character n-grams occurring at least ``min_count`` times in ``texts`` together, in order
    of first appearance.

    Parameters
    ----------
    texts
        The texts.
    n
        The n-gram order.
    min_count
        The least number of occurrences kept.

    Returns
    -------
    list[str]
        The n-grams kept.

    Examples
    --------
    >>> char_ngram_vocabulary(["abab", "ab"], 2, 2)
    ['ab']
    """
    counts: dict[str, int] = {}
    for text in texts:
        for i in range(len(text) - n + 1):
            g = text[i : i + n]
            counts[g] = counts.get(g, 0) + 1
    return [g for g, c in counts.items() if c >= min_count]


class PanBaselineAttacker:
    """The PAN 2019 baseline (see module docstring); ``predict`` answers ``None`` (``<UNK>``)
    for texts it rejects, and gives the margin between the two most probable candidates as
    the score.

    Parameters
    ----------
    ngram
        The character n-gram order.
    min_count
        The least number of occurrences of an n-gram in the known texts.
    c
        The SVM's ``C`` (> 0).
    calibrated
        Calibrate the probabilities (Platt scaling by cross-validation).
    reject
        The margin below which the answer is ``<UNK>``, in [0, 1] (0: never; needs
        ``calibrated``).
    folds
        The folds of the calibration.
    kernel
        ``"rbf"`` or ``"linear"``.
    gamma
        The RBF kernel's ``gamma``.
    random_state
        The seed of the linear SVM.

    Raises
    ------
    InvalidParameterError
        If ``c``, ``reject`` or ``kernel`` is out of range, or ``reject`` is given without
        ``calibrated``.
    """

    def __init__(
        self,
        *,
        ngram: int = 3,
        min_count: int = 5,
        c: float = 1.0,
        calibrated: bool = True,
        reject: float = 0.1,
        folds: int = 3,
        kernel: str = "rbf",
        gamma: str | float = "auto",
        random_state: RandomState = None,
    ) -> None:
        if not c > 0:
            raise InvalidParameterError(f"SVM C must be > 0, got {c!r}")
        if not 0.0 <= reject <= 1.0:
            raise InvalidParameterError(f"reject threshold must be in [0, 1], got {reject!r}")
        if reject > 0 and not calibrated:
            raise InvalidParameterError("the reject option needs calibrated probabilities")
        if kernel not in ("rbf", "linear"):
            raise InvalidParameterError(f"kernel must be rbf or linear, got {kernel!r}")
        self.ngram = check_positive_int(ngram, name="n-gram order")
        self.min_count = check_positive_int(min_count, name="frequency threshold")
        self.c = float(c)
        self.calibrated = bool(calibrated)
        self.reject = float(reject)
        self.folds = check_positive_int(folds, name="calibration folds")
        self.kernel = kernel
        self.gamma = gamma
        self.random_state = random_state
        self.name = "pan-baseline"
        self.vocabulary: dict[str, int] = {}
        self._scale: np.ndarray | None = None
        self._model: Any = None

    def features(self, texts: Sequence[str]) -> sp.csr_matrix:
        """Counts of the vocabulary's n-grams (whitespace runs made one space first) divided by
        each text's length, max-abs scaled (once fitted).

        Parameters
        ----------
        texts
            The texts.

        Returns
        -------
        sp.csr_matrix
            One row per text, one column per n-gram of the vocabulary.
        """
        n = self.ngram
        rows: list[int] = []
        cols: list[int] = []
        for r, raw in enumerate(texts):
            text = _WHITESPACE_RUN.sub(" ", raw)
            for i in range(len(text) - n + 1):
                j = self.vocabulary.get(text[i : i + n])
                if j is not None:
                    rows.append(r)
                    cols.append(j)
        m = sp.csr_matrix(
            (np.ones(len(rows)), (rows, cols)), shape=(len(texts), len(self.vocabulary))
        )
        m.sum_duplicates()
        lengths = np.array([max(len(t), 1) for t in texts], dtype=np.float64)
        m = sp.csr_matrix(sp.diags(1.0 / lengths) @ m)
        if self._scale is not None:
            m = sp.csr_matrix(m @ sp.diags(self._scale))
        return m

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> PanBaselineAttacker:
        """Build the n-gram vocabulary of the known texts and train the SVM (calibrated by
        ``folds``-fold cross-validation when ``calibrated``).

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        PanBaselineAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes, no
            n-gram occurs ``min_count`` times, or a candidate has fewer than ``folds`` known
            texts for calibration.
        """
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.multiclass import OneVsRestClassifier
        from sklearn.svm import SVC, LinearSVC

        check_training(items, labels, "PAN baseline")
        texts = [item.text for item in items]
        vocab = char_ngram_vocabulary(texts, self.ngram, self.min_count)
        if not vocab:
            raise InputError(
                f"PAN baseline: no character {self.ngram}-gram occurs {self.min_count} times in "
                "the known texts"
            )
        self.vocabulary = {g: i for i, g in enumerate(vocab)}
        self._scale = None
        x = self.features(texts)
        peak = np.asarray(abs(x).max(axis=0).todense()).ravel()
        self._scale = np.divide(1.0, peak, out=np.ones_like(peak), where=peak > 0)
        x = sp.csr_matrix(x @ sp.diags(self._scale))
        seed = int(check_random_state(self.random_state).integers(2**31 - 1))
        svm: Any
        if self.kernel == "linear" and not self.calibrated:
            svm = LinearSVC(C=self.c, random_state=seed)
        else:
            svm = SVC(C=self.c, kernel=self.kernel, gamma=self.gamma)
        model: Any = OneVsRestClassifier(svm)
        if self.calibrated:
            counts: dict[str, int] = {}
            for lab in labels:
                counts[lab] = counts.get(lab, 0) + 1
            fewest = min(counts, key=lambda k: (counts[k], k))
            if counts[fewest] < self.folds:
                raise InputError(
                    f"PAN baseline: candidate {fewest!r} has {counts[fewest]} known text(s); "
                    f"calibration by {self.folds}-fold cross-validation needs at least "
                    f"{self.folds} per candidate"
                )
            model = CalibratedClassifierCV(model, method="sigmoid", cv=self.folds)
        model.fit(self._for_model(x), list(labels))
        self._model = model
        return self

    def _for_model(self, x: sp.csr_matrix) -> Any:
        """What the SVM reads: the matrix as it is for a linear kernel, dense for any other
        (libsvm's sparse kernel evaluation was 3.4 of the 5.5 s of a pan19-en cell; the dense
        one computes the same sums in another order)."""
        return x if self.kernel == "linear" else x.toarray()

    def probabilities(self, items: Sequence[Item]) -> tuple[list[str], np.ndarray]:
        """The candidates and, per text, their calibrated probabilities.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        tuple[list[str], np.ndarray]
            The candidates and the probabilities, one row per text.

        Raises
        ------
        InvalidParameterError
            If no calibrated model is fitted.
        """
        if self._model is None or not self.calibrated:
            raise InvalidParameterError("PAN baseline: fit a calibrated model first")
        x = self._for_model(self.features([i.text for i in items]))
        proba = np.asarray(self._model.predict_proba(x))
        return [str(c) for c in self._model.classes_], proba

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the most probable candidate of each text, or ``None`` (``<UNK>``) when the
        margin between the two most probable is below ``reject``.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            The answer for each text and the margin (0 for an uncalibrated model).

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if self._model is None:
            raise InvalidParameterError("PAN baseline: call fit before predict")
        if not self.calibrated:
            x = self._for_model(self.features([i.text for i in items]))
            return Predictions(
                tuple(str(p) for p in self._model.predict(x)), tuple(0.0 for _ in items)
            )
        classes, proba = self.probabilities(items)
        labels: list[str | None] = []
        margins: list[float] = []
        for row in proba:
            order = np.argsort(-row, kind="stable")
            margin = float(row[order[0]] - row[order[1]]) if len(row) > 1 else 1.0
            margins.append(margin)
            labels.append(None if margin < self.reject else classes[int(order[0])])
        return Predictions(tuple(labels), tuple(margins))
