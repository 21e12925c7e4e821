"""The exponential mechanism (McSherry & Talwar 2007), in log space.

Given ratings ``rho(x, v)`` of every output ``v`` of a *fixed* output range, with sensitivity
``Delta = max_v max_{x, x'} |rho(x, v) - rho(x', v)|``, the mechanism outputs ``v`` with probability

    Pr[v] = exp(epsilon * rho(x, v) / (2 Delta)) / sum_v' exp(epsilon * rho(x, v') / (2 Delta))

(Bo et al. 2021, Definition 3 / Eq. 4 and Eq. 6; Weggenmann & Kerschbaum 2018, section 3). It is
``epsilon``-differentially private for any two inputs, provided the output range does not depend
on the input.

Floating point: probabilities are computed as ``exp(s - logsumexp(s))`` in float64 after
subtracting the maximum score, and a token is drawn by comparing one uniform double with the
cumulative sum. Like every textbook implementation this is exposed to the floating-point
side channels of Mironov (2012) / Ilvento (2020) at the level of ~1e-16 per probability; authormask
does not implement base-2 exact sampling.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_epsilon

__all__ = ["exponential_probabilities", "sample_exponential", "sample_rows"]


def _check_sensitivity(sensitivity: float) -> float:
    if isinstance(sensitivity, bool) or not (
        isinstance(sensitivity, (int, float, np.floating)) and math.isfinite(sensitivity)
    ):
        raise InvalidParameterError(f"sensitivity must be a finite number > 0, got {sensitivity!r}")
    if sensitivity <= 0:
        raise InvalidParameterError(f"sensitivity must be a finite number > 0, got {sensitivity!r}")
    return float(sensitivity)


def exponential_probabilities(
    ratings: ArrayLike, *, epsilon: float, sensitivity: float
) -> NDArray[np.float64]:
    """Exact output probabilities of the exponential mechanism, row by row.

    ``ratings`` has shape ``(n_outputs,)`` or ``(n_queries, n_outputs)``; every entry must be
    finite. Returns float64 probabilities of the same shape (each row sums to 1).

    >>> p = exponential_probabilities([0.0, 1.0], epsilon=2.0, sensitivity=1.0)
    >>> bool(np.isclose(p[1] / p[0], np.e))
    True
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = _check_sensitivity(sensitivity)
    scores = np.asarray(ratings, dtype=np.float64)
    if scores.ndim not in (1, 2) or scores.shape[-1] == 0:
        raise InvalidParameterError(
            f"ratings must be a non-empty vector or matrix, got shape {scores.shape}"
        )
    if not np.all(np.isfinite(scores)):
        raise InvalidParameterError("ratings must all be finite (got NaN or infinity)")
    s = scores * (epsilon / (2.0 * sensitivity))
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    return np.asarray(w / w.sum(axis=-1, keepdims=True))


def sample_exponential(
    ratings: ArrayLike,
    *,
    epsilon: float,
    sensitivity: float,
    random_state: RandomState = None,
) -> NDArray[np.int64]:
    """Draw one output index per row of ``ratings`` with the exponential mechanism.

    Each row is an independent ``epsilon``-DP release (Eq. 6 of Bo et al.); ``n`` rows released
    together are ``n * epsilon``-DP by sequential composition (their Theorem 1).

    >>> sample_exponential([[0.0, 1e9]], epsilon=1.0, sensitivity=1.0, random_state=0).tolist()
    [1]
    """
    probs = exponential_probabilities(ratings, epsilon=epsilon, sensitivity=sensitivity)
    return sample_rows(probs, random_state=random_state)


def sample_rows(probabilities: ArrayLike, *, random_state: RandomState = None) -> NDArray[np.int64]:
    """One index per row of a probability matrix, by inverse CDF with one uniform per row.

    >>> sample_rows([[0.0, 1.0, 0.0]], random_state=3).tolist()
    [1]
    """
    rng = check_random_state(random_state)
    matrix = np.atleast_2d(np.asarray(probabilities, dtype=np.float64))
    cdf = np.cumsum(matrix, axis=1)
    u = rng.random(matrix.shape[0]) * cdf[:, -1]
    idx = (cdf <= u[:, None]).sum(axis=1)
    idx = np.minimum(idx, matrix.shape[1] - 1)  # u == total only through rounding
    return np.asarray(idx, dtype=np.int64)
