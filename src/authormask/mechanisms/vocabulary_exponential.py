"""Exponential mechanisms over the vocabulary: the per-word kernels of TEM and SanText, drawn
exactly on certified distances.

* **TEM** (Carvalho, Vasiloudis, Feyisetan & Wang, "TEM: High Utility Metric Differential
  Privacy on Text", arXiv 2107.07928 / SDM 2023, Algorithm 1):
  :class:`TruncatedExponentialMechanism`. Candidates ``L_w = {w' : d(w, w') <= gamma}`` scored
  ``-d(w, w')``, one extra element ``bottom`` scored ``-gamma + 2 ln|V \\ L_w| / epsilon``,
  Gumbel noise of scale ``2 / epsilon`` on every score, the argmax released (a uniform word of
  ``V \\ L_w`` when ``bottom`` wins). Guarantee: ``epsilon * d``-privacy per word (Euclidean
  ``d``), and in fact ``epsilon * min(d, gamma)``.
* **SanText** (Yue, Du, Wang, Li, Sun & Chow, "Differential Privacy for Text Analytics via
  Natural Text Sanitization", Findings of ACL-IJCNLP 2021, the SANTEXT sampling distribution):
  :class:`SanTextMechanism`. ``P[y | x] proportional to exp(-epsilon * d_euc(x, y) / 2)`` over
  the whole vocabulary. Guarantee: ``epsilon * d_euc``-privacy per word (their metric local DP
  theorem).

Their releases in place (``tem``, ``santext``) are in :mod:`~authormask.mechanisms.peer_texts`.

How each is kept exact
----------------------
* TEM and SanText are exponential mechanisms over the fixed vocabulary, drawn with the exact
  sampler of :mod:`authormask.mechanisms.exponential` (every word reachable; each implemented
  probability within ``exp(+-gamma_exp)`` of the ideal one, ``gamma_exp ~ 2.3e-12``). For TEM
  this replaces the floating-point Gumbel noise of Algorithm 1 by its exact law (the Gumbel-max
  identity, below). Distances are certified: :class:`WordDistances` returns every Euclidean
  distance with relative error at most ``rho = 2^-40 + (n + 3) 2^-53``, so each released
  word's probability is within ``exp(+-(gamma_exp + epsilon * rho * D))`` of the ideal, ``D`` the
  largest score magnitude (``gamma`` for TEM, a bound on the vocabulary's diameter for SanText),
  and one word is at most ``epsilon * d + slack`` private as implemented, with
  ``slack = 2 gamma_exp + 2 epsilon rho D`` (printed in the statement; ~1e-11 for GloVe).

TEM's law (why one exact draw is Algorithm 1)
---------------------------------------------
The argmax of ``f_i + G_i`` with ``G_i`` i.i.d. Gumbel of scale ``b`` is ``i`` with probability
``exp(f_i / b) / sum_j exp(f_j / b)`` (the Gumbel-max identity, which the paper's proof uses).
With ``b = 2 / epsilon``: ``P[w'] proportional to exp(-epsilon d(w, w') / 2)`` for ``w'`` in
``L_w`` and ``P[bottom] proportional to |V \\ L_w| exp(-epsilon gamma / 2)``, shared uniformly by
the ``|V \\ L_w|`` words outside ``L_w``. So every output ``y`` of ``V`` has probability
proportional to ``exp(-epsilon * min(d(w, y), gamma) / 2)``: the exponential mechanism with
rating ``-min(d, gamma)`` (sensitivity in the metric sense: ``|min(d(w, y), gamma) -
min(d(w', y), gamma)| <= min(d(w, w'), gamma)``), drawn here in one exact step. Hence
``P[y | w] <= exp(epsilon * min(d(w, w'), gamma)) P[y | w']``, which is the paper's
``epsilon * d``-privacy and, as the ratings lie in ``[-gamma, 0]``, also ``epsilon * gamma``-DP
between any two words. The default ``gamma = (2 / epsilon) ln((1 - beta)(K - 1) / beta)`` with
``beta = 0.001`` (the paper's choice of threshold, as its public implementations use it) makes
``P[output not in L_w] <= beta``: ``|V \\ L_w| <= K - 1`` and the input itself has weight 1, so
``P[bottom] <= (K - 1) e^{-epsilon gamma / 2} / (1 + (K - 1) e^{-epsilon gamma / 2}) = beta``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.accounting.statement import upper
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.earth_movers_kernel import words_perturbed
from authormask.mechanisms.exponential import (
    EXACT_SAMPLER_GAMMA,
    check_exponential_parameters,
    exponential_probabilities,
    sample_exponential,
)
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_epsilon

__all__ = [
    "TEM_BETA",
    "SanTextMechanism",
    "TruncatedExponentialMechanism",
    "WordDistances",
    "diameter_bound",
    "distance_relative_error",
    "tem_default_gamma",
]

_U = 2.0**-53
#: ``beta`` of TEM's default threshold: ``P[output outside L_w] <= beta``
TEM_BETA = 0.001
#: float64 elements of one block of distances / ratings (8 MiB)
_BLOCK_ELEMENTS = 1 << 20


# --- certified distances ------------------------------------------------------------------------


def distance_relative_error(dimension: int) -> float:
    """``rho = 2^-40 + (n + 3) 2^-53``: the relative error bound of :class:`WordDistances`.

    Parameters
    ----------
    dimension
        n, the vectors' dimension.

    Returns
    -------
    float
        rho.

    Examples
    --------
    >>> distance_relative_error(50) < 1e-12
    True
    """
    return 2.0**-40 + (dimension + 3) * _U


class WordDistances:
    """Euclidean distances from vocabulary words to every vocabulary word, each with relative
    error at most :attr:`relative_error` ``rho = 2^-40 + (n + 3) 2^-53``.

    Distances are screened with one float64 matrix product,
    ``s = ||x||^2 + ||y||^2 - 2 x.y``. The inputs are float32, so every product ``x_i y_i`` is
    exact in float64, and the error of ``s`` is at most ``E = gamma_{n+3} (||x|| + ||y||)^2``
    for any summation order (Higham, Accuracy and Stability of Numerical Algorithms, eq. 3.5;
    ``gamma_k = k u / (1 - k u)``; a 1% margin covers the computed norms). Where ``s >= 2^40 E``,
    ``sqrt(s)`` is within relative ``2^-40 (1 + 2^-39) + u`` of the distance; every other pair
    (the word itself, near duplicates: here ``||x|| + max ||y||`` replaces ``||x|| + ||y||``)
    is recomputed directly as ``sqrt(sum (x_i - y_i)^2)``, relative error at most
    ``(n/2 + 2) u``.

    Parameters
    ----------
    vectors
        The vocabulary's vectors, one row per word (float32 values).
    """

    def __init__(self, vectors: NDArray[np.floating[Any]]) -> None:
        v = np.ascontiguousarray(vectors, dtype=np.float64)
        self.vectors = v
        self.dimension = int(v.shape[1])
        self.squares: NDArray[np.float64] = np.einsum("ij,ij->i", v, v)
        self.norms: NDArray[np.float64] = np.sqrt(self.squares)
        k = self.dimension + 3
        self._gamma = 1.01 * k * _U / (1.0 - k * _U)
        self._max_norm = float(self.norms.max())
        #: the proven bound on the relative error of every distance returned
        self.relative_error = distance_relative_error(self.dimension)

    def __call__(self, rows: NDArray[np.intp]) -> NDArray[np.float64]:
        """Distances from each row's word to every word, shape ``(len(rows), K)``."""
        x = self.vectors[rows]
        d = x @ self.vectors.T  # in place from here: s = ||x||^2 + ||y||^2 - 2 x.y, then sqrt
        d *= -2.0
        d += self.squares[rows][:, None]
        d += self.squares[None, :]
        bound = self._gamma * (self.norms[rows] + self._max_norm) ** 2  # E, per row
        ii, jj = np.nonzero(d < bound[:, None] * 2.0**40)
        np.maximum(d, 0.0, out=d)
        np.sqrt(d, out=d)
        if ii.size:
            diff = x[ii] - self.vectors[jj]
            d[ii, jj] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        return d


# --- exponential mechanisms over the vocabulary -------------------------------------------------


class _VocabularyExponential:
    """A per-word exponential mechanism over the whole vocabulary with rating
    ``-score(d(w, y))``: ``P[y | w]`` proportional to ``exp(-epsilon * score / 2)``, drawn with
    the exact sampler (sensitivity 1 in the metric sense: the score is 1-Lipschitz in ``w``)."""

    def __init__(self, embeddings: Embeddings, *, epsilon: float) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        if len(embeddings) < 2:
            raise InvalidParameterError(
                f"the vocabulary has {len(embeddings)} word: a word-level mechanism needs at "
                "least 2 outputs"
            )
        self._distances: WordDistances | None = None

    @property
    def distances(self) -> WordDistances:
        """Built on first use (a process that only states a release never computes them)."""
        if self._distances is None:
            self._distances = WordDistances(self.embeddings.vectors)
        return self._distances

    @property
    def rating_range(self) -> float:
        """The largest score (the ratings span ``[-rating_range, 0]``)."""
        raise NotImplementedError

    def scores(self, distances: NDArray[np.float64]) -> NDArray[np.float64]:
        """The score of every output (distances may be overwritten)."""
        raise NotImplementedError

    def _check(self) -> None:
        check_exponential_parameters(
            epsilon=self.epsilon,
            sensitivity=1.0,
            rating_range=self.rating_range,
            n_outputs=len(self.embeddings),
        )

    def slack(self) -> float:
        """``2 gamma_exp + 2 epsilon rho D``: one word is at most ``epsilon * d + slack``
        private as implemented (module notes)."""
        rho = distance_relative_error(self.embeddings.dimension)
        scale = self.epsilon * rho * self.rating_range * (1.0 + 2.0 * rho)
        return 2.0 * EXACT_SAMPLER_GAMMA + 2.0 * scale

    def ratings(self, rows: Sequence[int] | np.ndarray) -> NDArray[np.float64]:
        """The ratings ``-score`` of every output for each input row (float64)."""
        rows_arr = np.asarray(rows, dtype=np.intp)
        ratings = self.scores(self.distances(rows_arr))
        np.negative(ratings, out=ratings)
        return ratings

    def probabilities(self, word: str) -> NDArray[np.float64]:
        """The ideal output distribution of ``word`` over the vocabulary (float64)."""
        row = self.ratings([self.embeddings.index_of(word)])[0]
        return exponential_probabilities(row, epsilon=self.epsilon, sensitivity=1.0)

    def perturb_indices(
        self,
        rows: Sequence[int] | np.ndarray,
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> NDArray[np.intp]:
        """One draw per input row, in blocks whose size depends on the vocabulary only."""
        rng = check_random_state(random_state)
        rows_arr = np.asarray(rows, dtype=np.intp)
        out = np.empty(rows_arr.size, dtype=np.intp)
        step = max(1, _BLOCK_ELEMENTS // len(self.embeddings))
        for a in range(0, rows_arr.size, step):
            block = rows_arr[a : a + step]
            out[a : a + step] = sample_exponential(
                self.ratings(block),
                epsilon=self.epsilon,
                sensitivity=1.0,
                random_state=rng,
                rating_range=self.rating_range,
            )
            if progress is not None:
                progress(block.size)
        return out

    def perturb_words(
        self, words: Sequence[str], *, random_state: RandomState = None
    ) -> tuple[str, ...]:
        return words_perturbed(self, words, random_state=random_state)

    def perturb_documents(
        self,
        documents: Sequence[Sequence[str]],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        """Each document's words with its own generator (its output does not depend on the
        batch)."""
        return [
            words_perturbed(self, doc, random_state=rng, progress=progress)
            for doc, rng in zip(documents, rngs, strict=True)
        ]


def _check_gamma(value: Any) -> float:
    message = f"`gamma` must be a finite number > 0, got {value!r}"
    if isinstance(value, bool):
        raise InvalidParameterError(message)
    try:
        gamma = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(message) from None
    if not (math.isfinite(gamma) and gamma > 0):
        raise InvalidParameterError(message)
    return gamma


def tem_default_gamma(epsilon: float, n_words: int, beta: float = TEM_BETA) -> float:
    """TEM's threshold ``gamma = (2 / epsilon) ln((1 - beta)(K - 1) / beta)``, rounded up to 4
    significant digits (a larger gamma only lowers ``P[bottom]``; the rounded value prints
    exactly and the same on every machine): the output lies in ``L_w`` with probability at
    least ``1 - beta`` (module notes).

    Parameters
    ----------
    epsilon
        The privacy parameter, > 0.
    n_words
        K, the vocabulary's size, >= 2.
    beta
        The probability bound of falling outside ``L_w``.

    Returns
    -------
    float
        gamma.

    Raises
    ------
    InvalidParameterError
        If ``n_words`` < 2.

    Examples
    --------
    >>> tem_default_gamma(10.0, 100_000)
    3.684
    """
    eps = check_epsilon(epsilon)
    if n_words < 2:
        raise InvalidParameterError(f"TEM needs at least 2 words, got {n_words}")
    return float(upper((2.0 / eps) * math.log((1.0 - beta) * (n_words - 1) / beta), 4))


class TruncatedExponentialMechanism(_VocabularyExponential):
    """TEM (Carvalho et al.), Algorithm 1, drawn exactly: ``P[y | w]`` proportional to
    ``exp(-epsilon * min(d(w, y), gamma) / 2)`` over the vocabulary, which is the law of the
    paper's Gumbel-argmax over ``L_w`` and ``bottom`` followed by a uniform word of
    ``V \\ L_w`` (module notes). ``epsilon * min(d, gamma)``-private per word (Euclidean ``d``).

    ``gamma`` (> 0): the truncation threshold; ``None`` gives :func:`tem_default_gamma`.

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per word.
    gamma
        The truncation threshold, > 0; None: :func:`tem_default_gamma`.
    """

    def __init__(
        self, embeddings: Embeddings, *, epsilon: float, gamma: float | None = None
    ) -> None:
        super().__init__(embeddings, epsilon=epsilon)
        self.gamma_from_epsilon = gamma is None
        if gamma is None:
            self.gamma = tem_default_gamma(self.epsilon, len(embeddings))
        else:
            self.gamma = _check_gamma(gamma)
        self._check()

    @property
    def rating_range(self) -> float:
        return self.gamma

    def scores(self, distances: NDArray[np.float64]) -> NDArray[np.float64]:
        """``min(d, gamma)`` (in place).

        Parameters
        ----------
        distances
            Distances (overwritten).

        Returns
        -------
        NDArray[np.float64]
            ``min(d, gamma)``.
        """
        out: NDArray[np.float64] = np.minimum(distances, self.gamma, out=distances)
        return out

    def candidates(self, word: str) -> NDArray[np.intp]:
        """``L_w``: the rows within distance ``gamma`` of ``word`` (for tests and reports).

        Parameters
        ----------
        word
            A vocabulary word.

        Returns
        -------
        NDArray[np.intp]
            The rows of ``L_w``.
        """
        d = self.distances(np.array([self.embeddings.index_of(word)], dtype=np.intp))[0]
        found: NDArray[np.intp] = np.flatnonzero(d <= self.gamma)
        return found


class SanTextMechanism(_VocabularyExponential):
    """SANTEXT (Yue et al. 2021): ``P[y | x]`` proportional to ``exp(-epsilon * d(x, y) / 2)``
    over the whole vocabulary, Euclidean ``d`` between word vectors; ``epsilon * d``-private per
    word, and at most ``epsilon * D``-private between any two words, ``D`` the vocabulary's
    diameter.

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per word.
    """

    def __init__(self, embeddings: Embeddings, *, epsilon: float) -> None:
        super().__init__(embeddings, epsilon=epsilon)
        #: an upper bound on every distance between two words of the vocabulary
        self.diameter = diameter_bound(embeddings)
        self._check()

    @property
    def rating_range(self) -> float:
        return self.diameter

    def scores(self, distances: NDArray[np.float64]) -> NDArray[np.float64]:
        """The distances themselves (SANTEXT scores ``d``).

        Parameters
        ----------
        distances
            Distances.

        Returns
        -------
        NDArray[np.float64]
            ``distances``.
        """
        return distances


def diameter_bound(embeddings: Embeddings) -> float:
    """An upper bound on the distance between any two words: twice the largest distance to the
    centroid (triangle inequality), rounded up by a relative 1e-9, far above float64 rounding.

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.

    Returns
    -------
    float
        The bound.

    Examples
    --------
    >>> from authormask.embeddings import Embeddings
    >>> e = Embeddings("line", "doctest", ("a", "b", "c"), np.array([[0.0], [1.0], [2.0]]))
    >>> 2.0 <= diameter_bound(e) < 2.000001
    True
    """
    v = embeddings.vectors.astype(np.float64)
    diff = v - v.mean(axis=0)
    radius = float(np.sqrt(np.max(np.einsum("ij,ij->i", diff, diff))))
    return 2.0 * radius * (1.0 + 1e-9)
