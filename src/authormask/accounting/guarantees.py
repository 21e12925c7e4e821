"""Document-level guarantees of Earth Mover's privacy: multipliers and utility bounds."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.special import gammainc

from authormask.exceptions import InvalidParameterError
from authormask.validation import check_epsilon, check_positive_int

__all__ = ["UtilityBound", "privacy_multiplier", "utility_bound"]


def privacy_multiplier(*, epsilon: float, length: int, distance: float) -> float:
    """``exp(epsilon * N * E(b, b'))``: how much more likely any output is under b than b'.

    Theorem 4 (Algorithm 2 is ``epsilon * N * E``-private over bags of N words). The paper's
    worked example (section 3.1): E = 2.816, N = 4 gives 2.02 at epsilon 1/16 and 1.42 at 1/32.

    >>> round(privacy_multiplier(epsilon=1/16, length=4, distance=2.816), 2)
    2.02
    """
    epsilon = check_epsilon(epsilon)
    length = check_positive_int(length, name="length N")
    if not math.isfinite(distance) or distance < 0:
        raise InvalidParameterError(f"distance must be a finite number >= 0, got {distance!r}")
    return math.exp(epsilon * length * distance)


@dataclass(frozen=True)
class UtilityBound:
    """Lower bounds on ``P[E(b, output) <= delta]`` for Algorithm 1 on a bag of N vectors in R^n.

    ``paper_bound`` is Theorem 3 as printed, ``1 - exp(-x) e_{n-1}(x)`` with
    ``x = epsilon * N * delta``, stated for ``x <= n / e`` (``in_stated_range``). Its proof
    (appendix A.2, eqs. 35-36) ends with approximations, and for N > 1 it can exceed the true
    probability. ``manhattan_bound`` is exact and always valid: the output lies in
    ``Z_M = {v : sum_i ||b_i - v_i|| <= N delta}`` (a subset of the target set, eq. 16) with
    probability ``P(sum of N Gamma(n, 1/eps) radii <= N delta) = P(N n, eps N delta)``, the
    regularised lower incomplete gamma function.
    """

    paper_bound: float
    manhattan_bound: float
    in_stated_range: bool


def utility_bound(*, epsilon: float, length: int, dimension: int, delta: float) -> UtilityBound:
    """Utility lower bounds of Theorem 3 (see :class:`UtilityBound`).

    ``1 - exp(-x) e_{n-1}(x)`` equals ``P(n, x)``, the regularised lower incomplete gamma
    function (``e_{n-1}(x) exp(-x)`` is the Poisson(x) CDF at n - 1), computed stably by scipy.
    """
    epsilon = check_epsilon(epsilon)
    length = check_positive_int(length, name="length N")
    dimension = check_positive_int(dimension, name="dimension")
    if not math.isfinite(delta) or delta < 0:
        raise InvalidParameterError(f"delta must be a finite number >= 0, got {delta!r}")
    x = epsilon * length * delta
    return UtilityBound(
        paper_bound=float(gammainc(dimension, x)),
        manhattan_bound=float(gammainc(length * dimension, x)),
        in_stated_range=x <= dimension / math.e,
    )
