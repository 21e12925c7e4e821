"""The n-dimensional Laplace mechanism of Fernandes, Dras & McIver (2019), Theorem 2.

The density is ``Lap^n_eps(v) = c^eps_n * exp(-eps * ||v||)`` (Definition 5). Theorem 2 shows that
``x -> x + r * p`` with ``r ~ Gamma(shape=n, scale=1/eps)`` (Definition 6, eq. 12) and ``p``
uniform on the unit sphere ``B^n`` (Definition 7, eq. 13) samples from it, and that the mechanism
satisfies ``eps * d_2``-privacy for the Euclidean distance ``d_2`` on R^n.

The radius is drawn as the sum of ``n`` exponential variables with *unbounded* support
(:func:`sample_laplace_radius`), not with ``numpy.random.Generator.gamma``, whose output cannot
exceed a finite value (a tail of positive probability under the ideal law would be missing: an
undeclared delta).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._exact import sum_of_exponentials
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_epsilon, check_positive_int

__all__ = ["sample_laplace_radius", "sample_nd_laplace", "sample_unit_directions"]


def sample_laplace_radius(
    size: int, *, dimension: int, epsilon: float, random_state: RandomState = None
) -> NDArray[np.float64]:
    """Draw ``size`` noise radii ``r ~ Gamma(shape=dimension, scale=1/epsilon)`` (eq. 12).

    Implemented exactly as the sum of ``dimension`` independent ``Exp(1)`` variables divided by
    ``epsilon``, each ``Exp(1) = ln 2 * G + R``: ``G`` counts the 1-bits before the first 0-bit of
    a stream of fair bits (``P(G = g) = 2^-(g+1)``, with no cap: all-ones words are consumed and
    counting continues) and ``R`` has density proportional to ``exp(-r)`` on ``(0, ln 2]``
    (``R = -log W``, ``W`` uniform on the doubles ``j 2^-53`` of ``[1/2, 1)``). By the memoryless
    property this is ``Exp(1)``; the sum is drawn as ``ln 2 * (NB + n) - log(prod_i V_i)`` with
    ``NB`` the number of 1-bits before the ``n``-th 0-bit (the sum of the ``G``) and
    ``V_i = 2 W_i`` (``sum_of_exponentials`` in :mod:`authormask.mechanisms._exact`). The support
    is unbounded: no radius is capped and the tail beyond any value has its
    probability. The only floating-point effect is the rounding of ``R`` (53-bit uniforms), of the
    product and logarithm and of the final sum (relative error of order ``dimension * 2^-53``).

    Parameters
    ----------
    size
        The number of radii, >= 0.
    dimension
        n, the vectors' dimension.
    epsilon
        The privacy parameter, > 0.
    random_state
        The randomness: None, an int seed or a numpy Generator.

    Returns
    -------
    NDArray[np.float64]
        The radii.

    Raises
    ------
    InvalidParameterError
        If ``epsilon`` is too small for float64, or ``size`` is not an integer >= 0.

    Examples
    --------
    >>> r = sample_laplace_radius(4, dimension=3, epsilon=2.0, random_state=0)
    >>> r.shape, bool(np.all(r > 0))
    ((4,), True)
    """
    epsilon = check_epsilon(epsilon)
    if not math.isfinite(1.0 / epsilon):
        raise InvalidParameterError(
            f"epsilon {epsilon!r} is too small: the noise scale 1/epsilon overflows float64"
        )
    dimension = check_positive_int(dimension, name="dimension")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise InvalidParameterError(f"size must be an integer >= 0, got {size!r}")
    rng = check_random_state(random_state)
    radius: NDArray[np.float64] = sum_of_exponentials(dimension, int(size), rng) / epsilon
    return radius


def sample_unit_directions(
    size: int, *, dimension: int, random_state: RandomState = None
) -> NDArray[np.float64]:
    """Draw ``size`` directions uniform on the unit sphere in R^dimension (eq. 13).

    Uses the normalised-Gaussian method cited by the paper (Marsaglia/Muller, ref. [34]): the
    standard normal in R^n is rotation invariant, so ``g / ||g||`` is uniform on the sphere. A draw
    with ``||g|| == 0`` (probability zero, but possible in floating point) is redrawn.

    Parameters
    ----------
    size
        The number of directions.
    dimension
        n, the dimension.
    random_state
        The randomness: None, an int seed or a numpy Generator.

    Returns
    -------
    NDArray[np.float64]
        One unit vector per row.
    """
    dimension = check_positive_int(dimension, name="dimension")
    rng = check_random_state(random_state)
    g = rng.standard_normal((size, dimension))
    norms = np.linalg.norm(g, axis=1)
    bad = norms == 0.0
    while np.any(bad):  # pragma: no cover - probability zero
        g[bad] = rng.standard_normal((int(bad.sum()), dimension))
        norms = np.linalg.norm(g, axis=1)
        bad = norms == 0.0
    unit: NDArray[np.float64] = g / norms[:, None]
    return unit


def sample_nd_laplace(
    vectors: ArrayLike, *, epsilon: float, random_state: RandomState = None
) -> NDArray[np.float64]:
    """Add n-dimensional Laplace noise to each row of ``vectors`` (Theorem 2, Algorithm 1).

    For every row ``x`` in R^n this returns ``x + r * p`` with ``r ~ Gamma(n, 1/epsilon)`` and
    ``p ~ Uniform(B^n)``, independently per row (GenerateNoisyVector of Algorithm 1). The output
    density around ``x`` is ``Lap^n_eps(z - x) proportional to exp(-epsilon * ||z - x||_2)``, so
    each row is released with ``epsilon * d_2``-privacy (Theorem 2) and a bag of N rows with
    ``epsilon * N * E_d2``-privacy (Corollary 2).

    Parameters
    ----------
    vectors
        The points to perturb, one per row (shape (m, n), or (n,) for one point); computed in
        float64.
    epsilon : float
        Privacy parameter per vector, ``> 0``; the unit is one vector and the metric is the
        Euclidean distance of R^n (so the scale of epsilon depends on the embedding's scale).
    random_state
        See :func:`authormask.randomness.check_random_state`.

    Returns
    -------
    NDArray[np.float64]
        The noisy vectors, of the shape of ``vectors``.

    Raises
    ------
    ValueError
        If ``vectors`` is neither 1-D nor 2-D.

    Notes
    -----
    What is implemented: the radius is ``Gamma(n, 1/epsilon)`` drawn as an exact sum of unbounded
    exponentials (:func:`sample_laplace_radius`; no cap, so no tail mass is missing); the
    direction is a normalised vector of ``n`` NumPy standard normals
    (:func:`sample_unit_directions`; a direction is bounded, so no tail can be lost, and its
    deviation from uniform is that of the float64 normal generator); the two are combined in
    float64. The remaining floating-point caveat is only the rounding
    of the radius, of the direction and of ``x + r * p`` (Mironov, "On significance of the least
    significant bits for differential privacy", CCS 2012, shows why *releasing* such a float can
    leak through its low-order bits). authormask never releases the noisy vector: Algorithm 2
    post-processes it by exact snapping to the nearest vocabulary word (float32 screening with a
    proven error margin, float64 fallback), so the released value is a word and rounding can only
    move mass between neighbouring words near Voronoi boundaries, at the level of float64
    rounding (~1e-16 relative). Callers who use this function directly and release its
    real-valued output are outside that argument.

    Examples
    --------
    >>> z = sample_nd_laplace([[0.0, 0.0, 0.0]], epsilon=1.0, random_state=0)
    >>> z.shape
    (1, 3)
    """
    epsilon = check_epsilon(epsilon)
    x = np.asarray(vectors, dtype=np.float64)
    single = x.ndim == 1
    x2 = np.atleast_2d(x)
    if x2.ndim != 2:
        raise ValueError(f"vectors must be 1-D or 2-D, got shape {x.shape}")
    rng = check_random_state(random_state)
    m, n = x2.shape
    radius = sample_laplace_radius(m, dimension=n, epsilon=epsilon, random_state=rng)
    direction = sample_unit_directions(m, dimension=n, random_state=rng)
    noisy = x2 + radius[:, None] * direction
    return noisy[0] if single else noisy
