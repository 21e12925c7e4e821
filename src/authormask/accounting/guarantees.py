"""Document-level guarantees of Earth Mover's privacy: multipliers and utility bounds."""

from __future__ import annotations

import math
from dataclasses import dataclass

from authormask.exceptions import InvalidParameterError
from authormask.validation import check_epsilon, check_positive_int

__all__ = ["UtilityBound", "privacy_multiplier", "utility_bound"]


def privacy_multiplier(*, epsilon: float, length: int, distance: float) -> float:
    """``exp(epsilon * N * E(b, b'))``: how much more likely any output is under b than b'.

    Returns ``inf`` when the multiplier exceeds the float range (exponent above 709).

    Theorem 4 (Algorithm 2 is ``epsilon * N * E``-private over bags of N words). The paper's
    worked example (section 3.1): E = 2.816, N = 4 gives 2.02 at epsilon 1/16 and 1.42 at 1/32.

    Parameters
    ----------
    epsilon
        The privacy parameter, > 0.
    length
        N, the number of words in a bag, >= 1.
    distance
        The Earth Mover's distance ``E(b, b')``, >= 0.

    Returns
    -------
    float
        The multiplier (``inf`` beyond the float range).

    Raises
    ------
    InvalidParameterError
        If a parameter is out of its range.

    Examples
    --------
    >>> round(privacy_multiplier(epsilon=1/16, length=4, distance=2.816), 2)
    2.02
    """
    epsilon = check_epsilon(epsilon)
    length = check_positive_int(length, name="length N")
    if not math.isfinite(distance) or distance < 0:
        raise InvalidParameterError(f"distance must be a finite number >= 0, got {distance!r}")
    exponent = epsilon * length * distance
    return math.exp(exponent) if exponent < 709.0 else math.inf


@dataclass(frozen=True)
class UtilityBound:
    """Lower bound on ``P[E(b, output) <= delta]`` for Algorithm 1 on a bag of N vectors in R^n.

    ``bound`` is exact and always valid: the output lies in
    ``Z_M = {v : sum_i ||b_i - v_i|| <= N delta}`` (a subset of the target set ``Z_E``, eq. 16)
    with probability ``P(sum of N Gamma(n, 1/eps) radii <= N delta) = P(N n, eps N delta)``, the
    regularised lower incomplete gamma function, so ``P[Z_E] >= bound``.

    ``as_printed`` is Theorem 3 as printed, ``1 - exp(-x) e_{n-1}(x) = P(n, x)`` with
    ``x = eps N delta``. For N = 1 it equals ``bound`` (and is exact); for N > 1 it is NOT a
    valid bound: its proof (appendix A.2, eqs. 33-36) ends with approximations, and when the
    bag's vectors are far apart (so the optimal matching is the identity and ``Z_E = Z_M``) the
    true probability is ``P(N n, x) < P(n, x)``. ``as_printed_valid`` is True only for N = 1.

    Attributes
    ----------
    bound
        The valid lower bound ``P(N n, eps N delta)``.
    as_printed
        Theorem 3's value as printed, ``P(n, eps N delta)``.
    as_printed_valid
        Whether ``as_printed`` is a valid bound (N = 1 only).
    """

    bound: float
    as_printed: float
    as_printed_valid: bool


def utility_bound(*, epsilon: float, length: int, dimension: int, delta: float) -> UtilityBound:
    """Utility lower bound for Theorem 3's question (see :class:`UtilityBound`).

    ``1 - exp(-x) e_{k-1}(x)`` equals ``P(k, x)`` (``e_{k-1}(x) exp(-x)`` is the Poisson(x) CDF
    at k - 1), computed stably by scipy.

    Parameters
    ----------
    epsilon
        The privacy parameter, > 0.
    length
        N, the number of vectors in the bag, >= 1.
    dimension
        n, the vectors' dimension, >= 1.
    delta
        The distance ``delta`` of the question, >= 0.

    Returns
    -------
    UtilityBound
        The valid bound and the bound as printed.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of its range.

    Examples
    --------
    >>> b = utility_bound(epsilon=1.0, length=3, dimension=4, delta=0.4)
    >>> b.bound < b.as_printed, b.as_printed_valid
    (True, False)
    """
    epsilon = check_epsilon(epsilon)
    length = check_positive_int(length, name="length N")
    dimension = check_positive_int(dimension, name="dimension")
    if not math.isfinite(delta) or delta < 0:
        raise InvalidParameterError(f"delta must be a finite number >= 0, got {delta!r}")
    x = epsilon * length * delta
    from scipy.special import gammainc  # imported when a bound is computed

    return UtilityBound(
        bound=float(gammainc(length * dimension, x)),
        as_printed=float(gammainc(dimension, x)),
        as_printed_valid=length == 1,
    )
