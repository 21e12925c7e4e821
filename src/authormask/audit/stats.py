"""Statistics of an empirical privacy audit: event selection and Clopper-Pearson bounds.

A mechanism ``M`` is ``epsilon``-DP between two neighbouring inputs ``x, x'`` when every output
event ``A`` satisfies ``P[M(x) in A] <= exp(epsilon) P[M(x') in A]`` (and the same with ``x, x'``
swapped; for the metric guarantees of Fernandes, Dras & McIver 2019, Definition 4, ``epsilon`` is
``eps * d(x, x')``). Following Jagielski, Ullman & Oprea (2020, "Auditing differentially private
machine learning: how private is private SGD?"), an audit draws many outputs under each input and
turns the observed frequencies of one event into a statistically valid *lower* bound on
``epsilon``: if ``p_lo <= P[A | x]`` and ``p_hi >= P[A | x']`` then

    epsilon >= ln(p_lo / p_hi).

``p_lo`` and ``p_hi`` are one-sided Clopper-Pearson bounds (exact binomial intervals via the beta
distribution). The event must not be chosen on the data it is evaluated on: here the draws are
split in two halves, the best event of each direction is chosen on the first (DP-Auditorium's
"estimate, then test" split, Kong et al. 2024) and evaluated on the second. Two events are
evaluated, each with two bounds, so each bound is taken at ``(1 - confidence) / 4``
(Bonferroni): the reported bound exceeds the true epsilon with probability at most
``1 - confidence``, whatever the mechanism.

The candidate events are the unions of the outputs with the largest estimated likelihood ratio
(thresholds on the ratio, as in the likelihood-ratio tests of Jagielski et al. and of the one-run
audit of Steinke, Nasr & Jagielski 2023): for discrete outputs every optimal event of the
Neyman-Pearson lemma is of this form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import beta

from authormask.exceptions import InvalidParameterError

__all__ = [
    "EpsilonBound",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "epsilon_lower_bound",
    "log_ratio_lower_bound",
]

#: Final events evaluated on the second half (one per direction), each with two bounds.
_BOUNDS_PER_AUDIT = 4


def clopper_pearson_lower(
    successes: ArrayLike, trials: ArrayLike, alpha: float
) -> NDArray[np.float64]:
    """One-sided Clopper-Pearson lower bound: ``P[p >= bound] >= 1 - alpha``.

    Parameters
    ----------
    successes
        The number of successes (array-like).
    trials
        The number of trials (array-like, broadcast with ``successes``).
    alpha
        The probability that the bound fails.

    Returns
    -------
    NDArray[np.float64]
        The lower bound (0 where there is no success).

    Examples
    --------
    >>> float(clopper_pearson_lower(0, 100, 0.05)[()])
    0.0
    >>> round(float(clopper_pearson_lower(50, 100, 0.05)[()]), 4)
    0.4136
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = beta.ppf(alpha, k, n - k + 1.0)
    return np.asarray(np.where(k <= 0, 0.0, bound), dtype=np.float64)


def clopper_pearson_upper(
    successes: ArrayLike, trials: ArrayLike, alpha: float
) -> NDArray[np.float64]:
    """One-sided Clopper-Pearson upper bound: ``P[p <= bound] >= 1 - alpha``.

    Parameters
    ----------
    successes
        The number of successes (array-like).
    trials
        The number of trials (array-like, broadcast with ``successes``).
    alpha
        The probability that the bound fails.

    Returns
    -------
    NDArray[np.float64]
        The upper bound (1 where every trial succeeded).

    Examples
    --------
    >>> round(float(clopper_pearson_upper(0, 100, 0.05)[()]), 4)
    0.0295
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        bound = beta.ppf(1.0 - alpha, k + 1.0, n - k)
    return np.asarray(np.where(k >= n, 1.0, bound), dtype=np.float64)


def log_ratio_lower_bound(
    count_likely: ArrayLike,
    count_unlikely: ArrayLike,
    trials: int,
    alpha: float,
) -> NDArray[np.float64]:
    """``ln(CP_lower(count_likely) / CP_upper(count_unlikely))``; ``-inf`` when the numerator
    bound is 0. Each of the two bounds holds with probability ``1 - alpha``.

    Parameters
    ----------
    count_likely
        The event's count under the input it favours (array-like).
    count_unlikely
        Its count under the other input (array-like).
    trials
        The draws under each input.
    alpha
        The probability that each of the two bounds fails.

    Returns
    -------
    NDArray[np.float64]
        The lower bound on the log ratio.
    """
    lo = clopper_pearson_lower(count_likely, trials, alpha)
    hi = clopper_pearson_upper(count_unlikely, trials, alpha)
    with np.errstate(divide="ignore"):
        return np.asarray(np.log(lo) - np.log(hi), dtype=np.float64)


@dataclass(frozen=True)
class EpsilonBound:
    """The outcome of :func:`epsilon_lower_bound`.

    ``epsilon_lower_bound`` is ``max(0, ...)`` over the two evaluated events; ``event`` holds the
    output codes of the event that gave it and ``direction`` says under which input it is likelier
    (``"x"``: ``P[A | x] > P[A | x']``). ``count_likely``/``count_unlikely`` are its counts among
    the ``evaluation_samples`` held-out draws of each input; ``p_lower``/``p_upper`` the
    Clopper-Pearson bounds; ``estimate`` the plain log ratio of the held-out frequencies (``inf``
    when the unlikely count is 0), which is not a bound.

    Attributes
    ----------
    epsilon_lower_bound
        The lower bound on epsilon (at least 0).
    confidence
        The probability with which the bound holds.
    samples
        The draws per input.
    evaluation_samples
        The held-out draws per input the events were evaluated on.
    direction
        The input the event is likelier under (``"x"`` or ``"x'"``).
    event
        The output codes of the event that gave the bound.
    count_likely
        The event's held-out count under the input it favours.
    count_unlikely
        Its held-out count under the other input.
    p_lower
        The Clopper-Pearson lower bound on the event's probability under the input it favours.
    p_upper
        The Clopper-Pearson upper bound on its probability under the other input.
    estimate
        The plain log ratio of the held-out frequencies (not a bound).
    """

    epsilon_lower_bound: float
    confidence: float
    samples: int
    evaluation_samples: int
    direction: str
    event: tuple[int, ...]
    count_likely: int
    count_unlikely: int
    p_lower: float
    p_upper: float
    estimate: float


def _best_prefix(
    counts_a: NDArray[np.int64], counts_b: NDArray[np.int64], trials: int, alpha: float
) -> NDArray[np.intp]:
    """Outputs (dense ids) of the union maximising the lower bound of ``ln P_a[A]/P_b[A]``."""
    candidates = np.flatnonzero(counts_a > 0)
    if candidates.size == 0:
        return candidates
    ratio = (counts_a[candidates] + 0.5) / (counts_b[candidates] + 0.5)
    order = candidates[np.lexsort((-counts_a[candidates], -ratio))]
    cum_a = np.cumsum(counts_a[order])
    cum_b = np.cumsum(counts_b[order])
    lbs = log_ratio_lower_bound(cum_a, cum_b, trials, alpha)
    best = int(np.argmax(lbs))
    return order[: best + 1]


def epsilon_lower_bound(
    outputs_x: ArrayLike, outputs_xprime: ArrayLike, *, confidence: float = 0.95
) -> EpsilonBound:
    """A lower bound on the privacy loss between two inputs from i.i.d. draws under each.

    ``outputs_x`` and ``outputs_xprime`` hold integer codes of the outputs of the mechanism (one
    per draw, the same number under each input). The first half of each is used to choose, for
    each direction, the union of outputs with the largest estimated likelihood ratio whose
    Clopper-Pearson log-ratio bound is highest; the second half evaluates the two chosen events
    with Bonferroni-corrected one-sided Clopper-Pearson bounds. With probability at least
    ``confidence`` the returned ``epsilon_lower_bound`` is at most the true ``epsilon`` between
    the two inputs (Jagielski et al. 2020, section 3).

    Parameters
    ----------
    outputs_x
        The output codes of the draws under ``x``.
    outputs_xprime
        The output codes of the draws under ``x'`` (as many as under ``x``).
    confidence
        The probability with which the bound holds, in (0, 1).

    Returns
    -------
    EpsilonBound
        The bound, its event and its counts.

    Raises
    ------
    InvalidParameterError
        If ``confidence`` is not in (0, 1), the two inputs have different numbers of draws, or
        fewer than 4 each.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(20000) < 0.5).astype(int)  # a fair coin under both inputs
    >>> b = (rng.random(20000) < 0.5).astype(int)
    >>> epsilon_lower_bound(a, b).epsilon_lower_bound
    0.0
    """
    if not 0.0 < confidence < 1.0:
        raise InvalidParameterError(f"confidence must be in (0, 1), got {confidence!r}")
    x = np.asarray(outputs_x).reshape(-1)
    xp = np.asarray(outputs_xprime).reshape(-1)
    if x.shape != xp.shape:
        raise InvalidParameterError(
            f"need as many draws under each input, got {x.size} and {xp.size}"
        )
    if x.size < 4:
        raise InvalidParameterError(f"need at least 4 draws per input, got {x.size}")
    codes, dense = np.unique(np.concatenate([x, xp]), return_inverse=True)
    dense = dense.reshape(-1)
    size = codes.size
    n = x.size
    half = n // 2
    held_out = n - half
    dx, dxp = dense[:n], dense[n:]
    sel_x = np.bincount(dx[:half], minlength=size).astype(np.int64)
    sel_xp = np.bincount(dxp[:half], minlength=size).astype(np.int64)
    ev_x = np.bincount(dx[half:], minlength=size).astype(np.int64)
    ev_xp = np.bincount(dxp[half:], minlength=size).astype(np.int64)
    alpha = (1.0 - confidence) / _BOUNDS_PER_AUDIT
    evaluated: list[tuple[float, EpsilonBound]] = []
    for direction, (s_a, s_b, e_a, e_b) in (
        ("x", (sel_x, sel_xp, ev_x, ev_xp)),
        ("x'", (sel_xp, sel_x, ev_xp, ev_x)),
    ):
        event = _best_prefix(s_a, s_b, half, alpha)
        k_a = int(e_a[event].sum())
        k_b = int(e_b[event].sum())
        p_lo = float(clopper_pearson_lower(k_a, held_out, alpha)[()])
        p_hi = float(clopper_pearson_upper(k_b, held_out, alpha)[()])
        lb = math.log(p_lo / p_hi) if p_lo > 0.0 else -math.inf
        estimate = math.log(k_a / k_b) if k_a > 0 and k_b > 0 else (math.inf if k_a else -math.inf)
        result = EpsilonBound(
            epsilon_lower_bound=max(lb, 0.0),
            confidence=confidence,
            samples=n,
            evaluation_samples=held_out,
            direction=direction,
            event=tuple(int(c) for c in codes[np.sort(event)]),
            count_likely=k_a,
            count_unlikely=k_b,
            p_lower=p_lo,
            p_upper=p_hi,
            estimate=estimate,
        )
        evaluated.append((lb, result))
    return max(evaluated, key=lambda item: item[0])[1]
