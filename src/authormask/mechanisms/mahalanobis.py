"""The Mahalanobis per-word mechanism (Xu, Aggarwal, Feyisetan & Teissier, "A Differentially
Private Text Perturbation Method Using a Regularized Mahalanobis Metric", PrivateNLP 2020,
Algorithm 1).

Elliptical noise ``Z = Y * Sigma_lambda^(1/2) * X``, ``X`` uniform on the unit sphere,
``Y ~ Gamma(n, 1/epsilon)``, ``Sigma_lambda = lambda * Sigma + (1 - lambda) * I`` with ``Sigma``
the covariance of the vocabulary's vectors scaled to trace n; the noisy vector snaps to the
Euclidean-nearest vocabulary word. Guarantee: ``epsilon * d_R``-privacy per word with the
regularized Mahalanobis distance ``d_R(x, y) = sqrt((x - y)^T Sigma_lambda^-1 (x - y))``.

How it is kept exact: it reuses the project's exact Laplace radius (an uncapped sum of n
``Exp(1)``, :func:`~authormask.mechanisms.laplace.sample_laplace_radius`), its uniform direction
and its certified-exact nearest-word search; only the linear map ``S`` (a float64 symmetric square
root of ``Sigma_lambda``) is new. ``Y * S * X`` has density proportional to
``exp(-epsilon * ||S^-1 z||_2)``: the guarantee holds exactly for the metric of the matrix ``S``
used, ``||S^-1 (x - y)||``, whose square ``S S`` equals ``Sigma_lambda`` up to float64 rounding of
the eigendecomposition (relative ~1e-15).

Its release in place (``mahalanobis``) is
:class:`~authormask.mechanisms.peer_texts.MahalanobisText`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.defaults import DEFAULT_REGULARIZATION
from authormask.embeddings._base import Embeddings
from authormask.embeddings.neighbours import NearestWordIndex
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.earth_movers_kernel import EarthMoversMechanism
from authormask.mechanisms.laplace import sample_laplace_radius, sample_unit_directions
from authormask.randomness import RandomState, check_random_state

__all__ = [
    "DEFAULT_REGULARIZATION",
    "MahalanobisMechanism",
    "check_regularization",
    "regularized_covariance",
]

#: an eigenvalue of ``Sigma_lambda`` below this fraction of the largest is treated as 0
_SINGULAR = 1e-10


def check_regularization(value: Any) -> float:
    """``lambda`` as a float in ``[0, 1]``, or a one-line refusal naming the value.

    Parameters
    ----------
    value
        The value given.

    Returns
    -------
    float
        lambda.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a number in [0, 1].

    Examples
    --------
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

    Parameters
    ----------
    vectors
        The vocabulary's vectors, one row per word.
    regularization
        lambda, in [0, 1].

    Returns
    -------
    NDArray[np.float64]
        ``Sigma_lambda``, n x n.

    Raises
    ------
    InvalidParameterError
        If the covariance cannot be scaled (its trace is 0).

    Examples
    --------
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

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per word (the distance ``d_R``).
    regularization
        lambda, in [0, 1].
    index
        The vocabulary's search index (default: the shared one).
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
        generator.

        Parameters
        ----------
        size
            The number of noise vectors.
        random_state
            The randomness: None, an int seed or a numpy Generator.

        Returns
        -------
        NDArray[np.float64]
            One noise vector per row.
        """
        rng = check_random_state(random_state)
        n = self.embeddings.dimension
        radius = sample_laplace_radius(size, dimension=n, epsilon=self.epsilon, random_state=rng)
        direction = sample_unit_directions(size, dimension=n, random_state=rng)
        z: NDArray[np.float64] = radius[:, None] * (direction @ self.root)  # rows of (S X)^T
        return z

    def add_noise(self, x: np.ndarray, *, random_state: RandomState = None) -> np.ndarray:
        """``x + Z`` for every row of ``x`` (``Vec(w) + Z`` of Algorithm 1).

        Parameters
        ----------
        x
            Vectors, one per row.
        random_state
            The randomness: None, an int seed or a numpy Generator.

        Returns
        -------
        np.ndarray
            The noisy vectors.
        """
        return x + self.noise(x.shape[0], random_state=random_state)

    def distance(self, a: str, b: str) -> float:
        """``d_R(Vec(a), Vec(b)) = ||S^-1 (Vec(a) - Vec(b))||_2``, the metric of the guarantee.

        Parameters
        ----------
        a
            A vocabulary word.
        b
            Another.

        Returns
        -------
        float
            Their distance.
        """
        diff = self.embeddings.lookup([a])[0].astype(np.float64) - self.embeddings.lookup([b])[
            0
        ].astype(np.float64)
        return float(np.linalg.norm(self._inverse_root @ diff))
