"""Peer word-level mechanisms that the field compares against, released in place like ``emp-text``.

Each replaces every content word of a text independently (stopwords, punctuation and layout are
the released skeleton, exactly as in :class:`~authormask.mechanisms.earth_movers.EMPText`, whose
text handling they share) and states its own guarantee:

* **Mahalanobis** (``mahalanobis``; Xu, Aggarwal, Feyisetan & Teissier, "A Differentially
  Private Text Perturbation Method Using a Regularized Mahalanobis Metric", PrivateNLP 2020,
  Algorithm 1): elliptical noise ``Z = Y * Sigma_lambda^(1/2) * X``, ``X`` uniform on the unit
  sphere, ``Y ~ Gamma(n, 1/epsilon)``, ``Sigma_lambda = lambda * Sigma + (1 - lambda) * I`` with
  ``Sigma`` the covariance of the vocabulary's vectors scaled to trace n; the noisy vector snaps
  to the Euclidean-nearest vocabulary word. Guarantee: ``epsilon * d_R``-privacy per word with
  the regularized Mahalanobis distance ``d_R(x, y) = sqrt((x - y)^T Sigma_lambda^-1 (x - y))``.
* **TEM** (``tem``; Carvalho, Vasiloudis, Feyisetan & Wang, "TEM: High Utility Metric
  Differential Privacy on Text", arXiv 2107.07928 / SDM 2023, Algorithm 1): candidates
  ``L_w = {w' : d(w, w') <= gamma}`` scored ``-d(w, w')``, one extra element ``bottom`` scored
  ``-gamma + 2 ln|V \\ L_w| / epsilon``, Gumbel noise of scale ``2 / epsilon`` on every score,
  the argmax released (a uniform word of ``V \\ L_w`` when ``bottom`` wins). Guarantee:
  ``epsilon * d``-privacy per word (Euclidean ``d``), and in fact ``epsilon * min(d, gamma)``.
* **SanText** (``santext``; Yue, Du, Wang, Li, Sun & Chow, "Differential Privacy for Text
  Analytics via Natural Text Sanitization", Findings of ACL-IJCNLP 2021, the SANTEXT sampling
  distribution): ``P[y | x] proportional to exp(-epsilon * d_euc(x, y) / 2)`` over the whole
  vocabulary. Guarantee: ``epsilon * d_euc``-privacy per word (their metric local DP theorem).

How each is kept exact
----------------------
* Mahalanobis reuses the project's exact Laplace radius (an uncapped sum of n ``Exp(1)``,
  :func:`~authormask.mechanisms.laplace.sample_laplace_radius`), its uniform direction and its
  certified-exact nearest-word search; only the linear map ``S`` (a float64 symmetric square root
  of ``Sigma_lambda``) is new. ``Y * S * X`` has density proportional to
  ``exp(-epsilon * ||S^-1 z||_2)``: the guarantee holds exactly for the metric of the matrix
  ``S`` used, ``||S^-1 (x - y)||``, whose square ``S S`` equals ``Sigma_lambda`` up to float64
  rounding of the eigendecomposition (relative ~1e-15).
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

from authormask.accounting.statement import PrivacyStatement, exact, upper
from authormask.defaults import DEFAULT_REGULARIZATION
from authormask.embeddings._base import Embeddings
from authormask.embeddings.neighbours import NearestWordIndex
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.earth_movers import EarthMoversMechanism, EMPText, words_perturbed
from authormask.mechanisms.exponential import (
    EXACT_SAMPLER_GAMMA,
    check_exponential_parameters,
    exponential_probabilities,
    sample_exponential,
)
from authormask.mechanisms.laplace import sample_laplace_radius, sample_unit_directions
from authormask.randomness import RandomState, check_random_state
from authormask.text.prepare import TextPreparer
from authormask.validation import check_epsilon

__all__ = [
    "DEFAULT_REGULARIZATION",
    "TEM_BETA",
    "MahalanobisMechanism",
    "MahalanobisText",
    "SanText",
    "SanTextMechanism",
    "TEMText",
    "TruncatedExponentialMechanism",
    "WordDistances",
    "check_regularization",
    "diameter_bound",
    "distance_relative_error",
    "regularized_covariance",
    "tem_default_gamma",
]

_U = 2.0**-53
#: ``beta`` of TEM's default threshold: ``P[output outside L_w] <= beta``
TEM_BETA = 0.001
#: an eigenvalue of ``Sigma_lambda`` below this fraction of the largest is treated as 0
_SINGULAR = 1e-10
#: float64 elements of one block of distances / ratings (8 MiB)
_BLOCK_ELEMENTS = 1 << 20

XU2020 = (
    "Xu, Aggarwal, Feyisetan & Teissier, A Differentially Private Text Perturbation Method Using "
    "a Regularized Mahalanobis Metric, PrivateNLP 2020: Algorithm 1 (regularized Mahalanobis "
    "norm, elliptical noise) and its epsilon*d_R metric-DP theorem"
)
CARVALHO2021 = (
    "Carvalho, Vasiloudis, Feyisetan & Wang, TEM: High Utility Metric Differential Privacy on "
    "Text, arXiv 2107.07928 (SDM 2023): Algorithm 1 (truncated exponential mechanism, Gumbel "
    "scale 2/epsilon, bottom score -gamma + 2 ln|V \\ L_w|/epsilon) and its epsilon*d "
    "metric-DP theorem"
)
YUE2021 = (
    "Yue, Du, Wang, Li, Sun & Chow, Differential Privacy for Text Analytics via Natural Text "
    "Sanitization, Findings of ACL-IJCNLP 2021: SANTEXT, Pr[y | x] proportional to "
    "exp(-epsilon * d_euc(x, y) / 2), and its epsilon*d_euc metric local DP theorem"
)


# --- Mahalanobis --------------------------------------------------------------------------------


def check_regularization(value: Any) -> float:
    """``lambda`` as a float in ``[0, 1]``, or a one-line refusal naming the value.

    >>> check_regularization(0.25)
    0.25
    """
    if isinstance(value, bool):
        raise InvalidParameterError(f"`regularization` must be a number in [0, 1], got {value!r}")
    try:
        lam = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InvalidParameterError(
            f"`regularization` must be a number in [0, 1], got {value!r}"
        ) from None
    if not 0.0 <= lam <= 1.0:  # also refuses NaN
        raise InvalidParameterError(f"`regularization` must be a number in [0, 1], got {value!r}")
    return lam


def regularized_covariance(
    vectors: NDArray[np.floating[Any]], regularization: float
) -> NDArray[np.float64]:
    """``Sigma_lambda = lambda * Sigma + (1 - lambda) * I`` (Xu et al. 2020, the regularized
    Mahalanobis norm), ``Sigma`` the sample covariance of the vocabulary's vectors scaled to
    trace n (``Sigma = C / (tr(C) / n)``, so its eigenvalues average 1 like those of ``I``; the
    scaling makes the covariance's degrees of freedom irrelevant). ``lambda = 0`` gives ``I``,
    Earth Mover's Laplace noise.

    >>> regularized_covariance(np.array([[0.0, 0.0], [2.0, 0.0]]), 1.0).tolist()
    [[2.0, 0.0], [0.0, 0.0]]
    """
    lam = check_regularization(regularization)
    v = np.asarray(vectors, dtype=np.float64)
    n = v.shape[1]
    eye = np.eye(n)
    if lam == 0.0:
        return eye
    c = np.cov(v, rowvar=False, ddof=0).reshape(n, n)
    trace = float(np.trace(c))
    if not trace > 0.0:
        raise InvalidParameterError(
            "the vectors have no variance (fewer than two distinct words): the Mahalanobis "
            "covariance is undefined; use regularization 0"
        )
    sigma = c * (n / trace)
    out: NDArray[np.float64] = lam * sigma + (1.0 - lam) * eye
    return out


class MahalanobisMechanism(EarthMoversMechanism):
    """The per-word mechanism of Xu et al. (2020), Algorithm 1, composed with snapping.

    Each word ``w`` becomes the Euclidean-nearest vocabulary word of ``Vec(w) + Z`` with
    ``Z = Y * S * X``: ``X`` uniform on the unit sphere of R^n
    (:func:`~authormask.mechanisms.laplace.sample_unit_directions`), ``Y ~ Gamma(n, 1/epsilon)``
    drawn exactly and uncapped (:func:`~authormask.mechanisms.laplace.sample_laplace_radius`),
    ``S = Sigma_lambda^(1/2)`` the symmetric square root of :func:`regularized_covariance`
    (float64 eigendecomposition). ``Y X`` has density proportional to ``exp(-epsilon ||u||_2)``
    (Fernandes et al. 2019, Theorem 2), so ``Z`` has density proportional to
    ``exp(-epsilon ||S^-1 z||_2) = exp(-epsilon ||z||_RM)``, the paper's noise; the release is
    ``epsilon * d_R``-private per word, ``d_R(x, y) = ||S^-1 (x - y)||_2`` (the paper's
    theorem; snapping is post-processing). Every eigenvalue of ``Sigma_lambda`` is at least
    ``1 - lambda``, so ``d_R <= d_2 / sqrt(1 - lambda)`` and the release is also
    ``epsilon / sqrt(1 - lambda) * d_2``-private for ``lambda < 1``.

    ``regularization`` (lambda) must lie in [0, 1]; ``lambda = 1`` is refused where the
    covariance is singular (the noise would never move along some direction).
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        regularization: float = DEFAULT_REGULARIZATION,
        index: NearestWordIndex | None = None,
    ) -> None:
        super().__init__(embeddings, epsilon=epsilon, index=index)
        self.regularization = check_regularization(regularization)
        cov = regularized_covariance(embeddings.vectors, self.regularization)
        values, vecs = np.linalg.eigh(cov)
        if not values[0] > _SINGULAR * values[-1]:
            raise InvalidParameterError(
                f"regularization {self.regularization:g} leaves the Mahalanobis covariance "
                f"singular (smallest eigenvalue {values[0]:.3g}, largest {values[-1]:.3g}): the "
                "noise would never move along some direction, so no epsilon*d_R bound holds; "
                "use a regularization below 1"
            )
        root = (vecs * np.sqrt(values)) @ vecs.T
        self.covariance: NDArray[np.float64] = cov
        #: ``S``, the symmetric square root of ``Sigma_lambda`` the noise is multiplied by
        self.root: NDArray[np.float64] = (root + root.T) / 2.0  # exactly symmetric
        self._inverse_root = np.linalg.inv(self.root)

    def noise(self, size: int, *, random_state: RandomState = None) -> NDArray[np.float64]:
        """``size`` noise vectors ``Z = Y * Sigma_lambda^(1/2) * X`` of Algorithm 1 (rows; density
        proportional to ``exp(-epsilon ||z||_RM)``), radius first, then direction, from one
        generator."""
        rng = check_random_state(random_state)
        n = self.embeddings.dimension
        radius = sample_laplace_radius(size, dimension=n, epsilon=self.epsilon, random_state=rng)
        direction = sample_unit_directions(size, dimension=n, random_state=rng)
        z: NDArray[np.float64] = radius[:, None] * (direction @ self.root)  # rows of (S X)^T
        return z

    def add_noise(self, x: np.ndarray, *, random_state: RandomState = None) -> np.ndarray:
        """``x + Z`` for every row of ``x`` (``Vec(w) + Z`` of Algorithm 1)."""
        return x + self.noise(x.shape[0], random_state=random_state)

    def distance(self, a: str, b: str) -> float:
        """``d_R(Vec(a), Vec(b)) = ||S^-1 (Vec(a) - Vec(b))||_2``, the metric of the guarantee."""
        diff = self.embeddings.lookup([a])[0].astype(np.float64) - self.embeddings.lookup([b])[
            0
        ].astype(np.float64)
        return float(np.linalg.norm(self._inverse_root @ diff))


# --- certified distances ------------------------------------------------------------------------


def distance_relative_error(dimension: int) -> float:
    """``rho = 2^-40 + (n + 3) 2^-53``: the relative error bound of :class:`WordDistances`.

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
        """``min(d, gamma)`` (in place)."""
        out: NDArray[np.float64] = np.minimum(distances, self.gamma, out=distances)
        return out

    def candidates(self, word: str) -> NDArray[np.intp]:
        """``L_w``: the rows within distance ``gamma`` of ``word`` (for tests and reports)."""
        d = self.distances(np.array([self.embeddings.index_of(word)], dtype=np.intp))[0]
        found: NDArray[np.intp] = np.flatnonzero(d <= self.gamma)
        return found


class SanTextMechanism(_VocabularyExponential):
    """SANTEXT (Yue et al. 2021): ``P[y | x]`` proportional to ``exp(-epsilon * d(x, y) / 2)``
    over the whole vocabulary, Euclidean ``d`` between word vectors; ``epsilon * d``-private per
    word, and at most ``epsilon * D``-private between any two words, ``D`` the vocabulary's
    diameter."""

    def __init__(self, embeddings: Embeddings, *, epsilon: float) -> None:
        super().__init__(embeddings, epsilon=epsilon)
        #: an upper bound on every distance between two words of the vocabulary
        self.diameter = diameter_bound(embeddings)
        self._check()

    @property
    def rating_range(self) -> float:
        return self.diameter

    def scores(self, distances: NDArray[np.float64]) -> NDArray[np.float64]:
        return distances


def diameter_bound(embeddings: Embeddings) -> float:
    """An upper bound on the distance between any two words: twice the largest distance to the
    centroid (triangle inequality), rounded up by a relative 1e-9, far above float64 rounding.

    >>> from authormask.embeddings import Embeddings
    >>> e = Embeddings("line", "doctest", ("a", "b", "c"), np.array([[0.0], [1.0], [2.0]]))
    >>> 2.0 <= diameter_bound(e) < 2.000001
    True
    """
    v = embeddings.vectors.astype(np.float64)
    diff = v - v.mean(axis=0)
    radius = float(np.sqrt(np.max(np.einsum("ij,ij->i", diff, diff))))
    return 2.0 * radius * (1.0 + 1e-9)


# --- release-layer mechanisms (in place, like emp-text) -----------------------------------------

_SKELETON_NOTE = (
    "as in emp-text, stopwords and punctuation are the released skeleton and only content "
    "words are replaced (the paper replaces every word of its vocabulary: --stopwords none "
    "replaces every word that has a vector)"
)
_SAMPLER_NOTE = (
    "exact exponential-mechanism sampler (every word reachable, each probability within "
    f"exp(+-{upper(EXACT_SAMPLER_GAMMA)}) of the ideal one) on Euclidean distances certified to "
    "a relative error of {rho} (one float64 product screen; near pairs recomputed from the "
    "differences)"
)


class MahalanobisText(EMPText):
    """``mahalanobis``: :class:`MahalanobisMechanism` applied in place to every content word.

    Guarantee per word: ``epsilon * d_R`` (Xu et al. 2020); between two texts with the same
    skeleton, ``epsilon * sum_i d_R(v_i, v'_i)`` (sequential composition over positions).
    """

    name = "mahalanobis"
    title = (
        "Mahalanobis mechanism: elliptical noise Y * Sigma_lambda^(1/2) * X on word vectors "
        "(Y ~ Gamma(n, 1/epsilon), X uniform on the unit sphere), snapped to the Euclidean-"
        "nearest vocabulary word"
    )
    reference = XU2020
    floating_point = (
        "the noisy vector is never released, only its nearest vocabulary word (certified-exact "
        "search); the Gamma radius is an exact sum of n unbounded Exp(1) draws (no cap); the "
        "guarantee holds exactly for the metric ||S^-1 (x - y)|| of the float64 square root S "
        "of Sigma_lambda used (S S = Sigma_lambda up to rounding of its eigendecomposition, "
        "relative ~1e-15); float64 rounding of the noisy vector can only move outputs whose "
        "noisy vector lies that close to a boundary between two words' cells"
    )

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        regularization: float = DEFAULT_REGULARIZATION,
    ) -> None:
        self.regularization = check_regularization(regularization)
        super().__init__(
            embeddings=embeddings,
            epsilon=epsilon,
            preparer=preparer,
            stopwords_description=stopwords_description,
        )

    def _make_kernel(self) -> MahalanobisMechanism:
        return MahalanobisMechanism(
            self.embeddings, epsilon=self.epsilon, regularization=self.regularization
        )

    def _unit(self) -> str:
        e = self.embeddings.identity
        return (
            f"per word (regularized Mahalanobis distance d_R between {e.dimension}-d word "
            f"vectors of {e.name}, lambda={exact(self.regularization)})"
        )

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        eps, lam = exact(self.epsilon), self.regularization
        euclid = (
            f"; every eigenvalue of Sigma_lambda is at least 1 - lambda = {exact(1.0 - lam)}, "
            f"so this is also {upper(self.epsilon / math.sqrt(1.0 - lam))}*d_2-privacy in the "
            "Euclidean distance d_2"
            if lam < 1.0
            else ""
        )
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{eps}*d_R-privacy per word (Xu et al., Algorithm 1 and its theorem): for any "
                f"two words w, w' and any output y, P[y | w] <= exp({eps} * d_R(w, w')) * "
                "P[y | w'], d_R(x, y) = sqrt((x - y)^T Sigma_lambda^-1 (x - y)), "
                f"Sigma_lambda = {exact(lam)}*Sigma + {exact(1.0 - lam)}*I, Sigma the "
                f"covariance of the K={len(self.embeddings)} vocabulary vectors scaled to trace "
                f"n={self.embeddings.dimension}; between texts v, v' with the same skeleton the "
                f"per-word bounds add up{euclid}"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {eps} * sum over content positions i of d_R(v_i, v'_i)"
            ),
            parameters={
                "content words": "every content position, perturbed in place",
                "lambda": f"{exact(lam)} (regularization: Sigma_lambda = lambda*Sigma + "
                "(1 - lambda)*I; 0 is Earth Mover's Laplace noise)",
            },
            caveats=(_SKELETON_NOTE,),
        )


class TEMText(EMPText):
    """``tem``: :class:`TruncatedExponentialMechanism` applied in place to every content word.

    Guarantee per word: ``epsilon * min(d, gamma)`` (Carvalho et al.: ``epsilon * d``); between
    two texts with the same skeleton, the sum over content positions.
    """

    name = "tem"
    title = (
        "TEM, truncated exponential mechanism: words within Euclidean distance gamma scored "
        "-d, the others sharing one bottom element scored -gamma + 2 ln|V \\ L_w|/epsilon, the "
        "argmax under Gumbel(2/epsilon) noise released (drawn exactly as its law: P[y | w] "
        "proportional to exp(-epsilon * min(d(w, y), gamma) / 2))"
    )
    reference = CARVALHO2021

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        gamma: float | None = None,
    ) -> None:
        self._gamma = gamma
        super().__init__(
            embeddings=embeddings,
            epsilon=epsilon,
            preparer=preparer,
            stopwords_description=stopwords_description,
        )

    def _make_kernel(self) -> TruncatedExponentialMechanism:
        return TruncatedExponentialMechanism(
            self.embeddings, epsilon=self.epsilon, gamma=self._gamma
        )

    @property
    def gamma(self) -> float:
        return float(self.kernel.gamma)

    @property
    def floating_point(self) -> str:  # type: ignore[override]
        rho = distance_relative_error(self.embeddings.dimension)
        return (
            _SAMPLER_NOTE.format(rho=upper(rho))
            + f"; one word is at most epsilon*min(d, gamma) + {upper(self.kernel.slack())} "
            "private as implemented; Algorithm 1's floating-point Gumbel noise is not drawn"
        )

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        eps, g = exact(self.epsilon), exact(self.gamma)
        how = (
            "(2/epsilon) * ln((1 - beta)(K - 1)/beta) rounded up to 4 digits, beta = "
            f"{exact(TEM_BETA)}, K = {len(self.embeddings)}: the output is within gamma of the "
            "input with "
            f"probability >= {exact(1.0 - TEM_BETA)}"
            if self.kernel.gamma_from_epsilon
            else "given"
        )
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{eps}*d-privacy per word (Carvalho et al., Algorithm 1 and its theorem), in "
                f"fact {eps}*min(d, gamma): for any two words w, w' and any output y, "
                f"P[y | w] <= exp({eps} * min(d(w, w'), {g})) * P[y | w'], d the Euclidean "
                f"distance between word vectors; so any two words are at most "
                f"{upper(self.epsilon * self.gamma)}-indistinguishable (epsilon*gamma-DP per "
                "word); between texts v, v' with the same skeleton the per-word bounds add up"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {eps} * sum over content positions i of "
                f"min(d(v_i, v'_i), {g}); as implemented at most {upper(self.kernel.slack())} "
                "more per content position"
            ),
            parameters={
                "content words": "every content position, perturbed in place",
                "gamma": f"{g} ({how})",
            },
            caveats=(_SKELETON_NOTE,),
        )


class SanText(EMPText):
    """``santext``: :class:`SanTextMechanism` applied in place to every content word.

    Guarantee per word: ``epsilon * d_euc`` (Yue et al. 2021); between two texts with the same
    skeleton, the sum over content positions.
    """

    name = "santext"
    title = (
        "SanText: every content word replaced by a vocabulary word y drawn with probability "
        "proportional to exp(-epsilon * d_euc(x, y) / 2) (exponential mechanism over Euclidean "
        "distances of word vectors)"
    )
    reference = YUE2021

    def _make_kernel(self) -> SanTextMechanism:
        return SanTextMechanism(self.embeddings, epsilon=self.epsilon)

    @property
    def floating_point(self) -> str:  # type: ignore[override]
        rho = distance_relative_error(self.embeddings.dimension)
        return (
            _SAMPLER_NOTE.format(rho=upper(rho))
            + f"; one word is at most epsilon*d + {upper(self.kernel.slack())} private as "
            "implemented"
        )

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        eps = exact(self.epsilon)
        diameter = upper(self.kernel.diameter)
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{eps}*d_euc-privacy per word (Yue et al., SANTEXT and its theorem): for any "
                f"two words w, w' and any output y, P[y | w] <= exp({eps} * d_euc(w, w')) * "
                "P[y | w'], d_euc the Euclidean distance between word vectors; every distance "
                f"is at most D <= {diameter}, so any two words are at most "
                f"{upper(self.epsilon * self.kernel.diameter)}-indistinguishable; between texts "
                "v, v' with the same skeleton the per-word bounds add up"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {eps} * sum over content positions i of "
                f"d_euc(v_i, v'_i); as implemented at most {upper(self.kernel.slack())} more per "
                "content position"
            ),
            parameters={"content words": "every content position, perturbed in place"},
            caveats=(_SKELETON_NOTE,),
        )
