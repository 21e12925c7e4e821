"""The exponential mechanism (McSherry & Talwar 2007), sampled with a proven error bound.

Given ratings ``rho(x, v)`` of every output ``v`` of a *fixed* output range of ``K`` outputs, with
sensitivity ``Delta = max_v max_{x, x'} |rho(x, v) - rho(x', v)|``, the ideal mechanism outputs
``v`` with probability

    p(v) = exp(epsilon * rho(x, v) / (2 Delta)) / sum_v' exp(epsilon * rho(x, v') / (2 Delta))

(Bo et al. 2021, Definition 3 / Eq. 4 and Eq. 6; Weggenmann & Kerschbaum 2018, section 3). It is
``epsilon``-differentially private for any two inputs, provided the output range does not depend
on the input. :func:`exponential_probabilities` computes ``p`` in float64 (for tests and audits).

Why not the textbook sampler
----------------------------
Computing ``p`` in float64 and drawing by inverse CDF with one uniform double (the sampler used
here before) makes every output whose probability falls below ~1e-16 next to the largest one
*unreachable*: its probability is 0 under one input and positive under a neighbouring one, so the
privacy loss of the implementation is unbounded (Mironov 2012, "On significance of the least
significant bits for differential privacy"; Ilvento 2020, "Implementing the exponential mechanism
with base-2 differential privacy"). :func:`sample_exponential` below has no unreachable output and
a proven bound instead.

What is implemented (one row; rows are independent)
---------------------------------------------------
Let ``c = epsilon / (2 Delta)`` and ``m`` the row's largest rating. In float64:

1. ``z_v = c * (rho_v - m)`` (``<= 0``; ``0`` at the maximum), clamped below at ``-700``;
   ``e_v = exp(z_v)``; ``x_v = e_v * 2^S`` (exact scaling) with ``S = min(52, 62 - ceil(log2 K))``.
2. Integer *proposal* weights ``q_v = floor(x_v) + 1`` (exact integers ``>= x_v`` and ``>= 1``,
   ``sum_v q_v < 2^63``). Their int64 cumulative sums are exact; a proposal ``v`` is drawn with
   probability exactly ``q_v / sum q`` by one unbiased ``rng.integers(0, sum q)`` and a binary
   search.
3. The proposal is *accepted* with probability ``alpha_v``; otherwise the row starts again at
   step 2 with fresh randomness. Then ``P(output v) = q_v alpha_v / sum_w q_w alpha_w`` exactly.

   * Normal case, ``e_v >= 2^-1000``: ``alpha_v = a_v = x_v / q_v`` rounded to a double, realised
     exactly by :func:`~authormask.mechanisms._exact.bernoulli_double` (a uniform drawn to full
     precision: ``P(U < a) = a`` for every double ``a``).
   * Tiny case, ``e_v < 2^-1000`` (``z_v < -693``; ``exp`` would lose precision or underflow; here
     ``q_v = 1``): ``alpha_v = 2^S exp(c (rho_v - m))`` is written as ``2^-k * a`` in 60-digit
     decimal arithmetic from the exact values of ``epsilon``, ``Delta``, ``rho_v`` and ``m``, and
     realised by ``k`` fair bits (Bernoulli(``2^-k``), read 64 at a time) times Bernoulli(``a``)
     (:func:`~authormask.mechanisms._exact.bernoulli_exp_decimal`). This is how an output of
     probability ``exp(-5e5)`` (epsilon ``1e6``) stays reachable with the right probability.

   The rejection probability is at most ``K / 2^S <= 2^-9`` (``~2^-32`` for ``K = 20,000``). The
   common path is vectorised over rows; only rare proposals of tiny outputs run in Python.

The sparse path (same law, less ``exp``)
----------------------------------------
Steps 1-2 take ``exp`` of every output of every row: with ``K = 20,000`` that was half of ER-AE's
generation time, although a model's softmax puts almost every output near 0. A row of at least
2,048 outputs of which at most 1/8 lie *above its low band* ``rho_v > tau``,
``tau = rho_min + (1/16) / c`` (``rho_min`` the row's smallest rating), is drawn instead with
other integer proposal weights; which path a row takes depends on its own ratings only:

* an output above the band keeps ``q_v = floor(x_v) + 1`` and its acceptance, as above;
* every output in the band gets the *same* proposal weight ``Q = floor(x_tau (1 + 2^-36)) + 1``,
  ``x_tau`` computed from ``tau`` exactly as ``x_v`` from ``rho_v``; a proposal in the band is
  located by integer division (``Q`` units each, in index order) and accepted with probability
  ``x_v / Q`` (rounded, :func:`~authormask.mechanisms._exact.bernoulli_double`), or, for a tiny
  output, ``2^S exp(c (rho_v - m)) / Q`` in decimals (``- ln Q`` added to the log above).

``Q`` is above every ``x_v`` of the band: ``rho_v <= tau`` gives ``z_v <= z_tau`` (rounded
subtraction, multiplication by ``c > 0`` and the clamp are monotone), so
``x_v <= 2^S exp(z_tau) (1 + E) <= x_tau (1 + E) / (1 - E) < fl(x_tau (1 + 2^-36)) < Q``
(``z_tau`` may exceed 0 by up to 1/8 nat when a row spans less than its band: ``E`` is assumed
of ``np.exp`` on ``[-700, 1]``). Each
acceptance is therefore a probability and the realised weight of a band output is
``Q fl(x_v / Q) = x_v (1 + delta)``, ``|delta| <= u``: the same relation as ``q_v a_v`` on the
dense path, so the proof below and ``gamma`` hold unchanged on both paths. ``exp`` runs on the
outputs above the band and on the proposed ones only. A band proposal is accepted with
probability at least ``exp(-(tau - rho_min) c - 2^-12) (1 - 2^-35)``: above 0.88, since a band
is at most 1/8 nat wide once rounded (a row whose band is not, near the float64 limit, is drawn
on the dense path), and the rounding of ``rho - m`` adds at most ``2^40 * 2^-53`` nats. ``Q``
stays below ``1.14 * 2^S + 1 < 2^53`` (so ``x_v / Q`` divides by the exact integer) and each
row's ``sum q`` below ``K (1.14 * 2^S + 2) < 2^63``. Each row's running sums are its own: the
running sum over a block of rows, which can pass ``2^63``, is taken modulo ``2^64`` and each
row's start subtracted modulo ``2^64``, which leaves the row's exact sums.

Proof of the bound
------------------
Write ``u = 2^-53`` and ``lambda(t) = -log(1 - t)``. Let ``w_v = q_v alpha_v`` be the realised
weight and ``z*_v = c (rho_v - m)`` in exact arithmetic. We show
``|log w_v - (S log 2 + z*_v)| <= Theta`` for every output; since ``p(v)`` is proportional to
``exp(z*_v)``, the realised probability ``w_v / sum w`` is then within ``exp(+-2 Theta)`` of
``p(v)``, so ``gamma = 2 Theta``.

* Scores: ``c`` is one correctly rounded division (``2 Delta`` is exact; ``c`` must be a normal
  double), ``rho_v - m`` one correctly rounded subtraction (exact if subnormal), the product one
  more rounding (absolute error ``<= 2^-1075`` if subnormal). So
  ``|z_v - z*_v| <= ((1 + u)^3 - 1) |z*_v| + 2^-1075``.
* Normal case: ``e_v >= 2^-1000`` implies ``z_v >= -1000 log 2 - lambda(E)``, so
  ``|z*_v| <= 693.2`` and ``|z_v - z*_v| <= 693.2 ((1 + u)^3 - 1) + 2^-1075``; ``z_v`` was not
  clamped. ``e_v = exp(z_v) (1 + eps_v)`` with ``|eps_v| <= E``, the relative error of ``np.exp``
  (assumed ``E = 2^-40``: about 4000 times the 4 ulp maximum stated for NumPy's AVX-512 SVML
  routines, numpy PR #19478, and far above glibc's < 1 ulp; ``tests/mechanisms/test_exact.py``
  checks ``np.exp`` against correctly rounded decimal ``exp``). ``x_v = 2^S e_v`` exactly,
  ``a_v = (x_v / q_v)(1 + delta)`` with ``|delta| <= u`` (exact when ``q_v = 1``), and the
  realised acceptance is exactly ``a_v``. Hence
  ``|log w_v - (S log 2 + z*_v)| <= 693.2 ((1 + u)^3 - 1) + 2^-1075 + lambda(E) + lambda(u)``.
* Tiny case: ``log alpha_v = S log 2 + z*_v - ln q_v`` (``q_v = 1``, or ``Q`` in the band) is
  evaluated in 60-digit decimals (correctly rounded ``/``, ``*``, ``+``, ``-``, ``ln``, ``exp``;
  error below ``1e-40`` relative for ``|log alpha| <= 2^50``) and ``a`` is rounded once to a
  double, so ``|log w_v - (S log 2 + z*_v)| <= lambda(u) + 1e-40``.

So ``Theta = 693.2 ((1 + u)^3 - 1) + 2^-1074 + lambda(2^-40) + lambda(2^-53)`` and
``gamma = 2 Theta ~= 2.3e-12`` (:data:`EXACT_SAMPLER_GAMMA`, rounded up), for every output, every
row and every accepted parameter. Then for neighbouring inputs the implemented probabilities
satisfy ``P(v) / P'(v) <= exp(epsilon + 2 gamma)``: the per-draw privacy loss as implemented is
at most ``epsilon + 2 gamma`` (:func:`exponential_privacy_slack` returns ``gamma``).
The bound holds for any finite ratings; the *caller* guarantees the rating range it claims (1 for
ER-AE probabilities in [0, 1], 2 for cosine similarities in [-1, 1]); pass ``rating_range`` to
:func:`sample_exponential` to have every row checked against it.

Refusals (:class:`~authormask.exceptions.InvalidParameterError`, naming the reason): a scale
``epsilon / (2 Delta)`` that is not a finite normal double (the relative-error step above needs
it); a score spread ``epsilon * rating_range / (2 Delta)`` above ``2^40`` nats (the decimal tail
step is proven up to ``2^50``; authormask keeps a wide margin, ER-AE at ``epsilon = 1e6`` spans
5e5 nats); more than ``2^26`` outputs (the int64 proposal would have a rejection rate above
``2^-9``). Randomness: only 64-bit words and unbiased bounded integers from the numpy Generator
(:mod:`authormask.mechanisms._exact`).

:func:`implemented_weights` / :func:`implemented_probabilities` reproduce the sampler's arithmetic
for one row and return the exact law it realises (for tests and audits);
:func:`sample_uniform_index` is the exact uniform draw of the Random-R baseline.

One module on purpose (a little over the project's ~500 lines): the sampler and the proof of
its error bound are one argument and are read together.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._exact import (
    DECIMAL_CONTEXT,
    DECIMAL_RELATIVE_ERROR,
    LN2_DECIMAL,
    bernoulli_double,
    bernoulli_exp_decimal,
    decompose_log_probability,
)
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_epsilon, check_positive_int

__all__ = [
    "EXACT_SAMPLER_GAMMA",
    "EXP_RELATIVE_ERROR",
    "MAX_OUTPUTS",
    "MAX_SCORE_SPREAD",
    "check_exponential_parameters",
    "exponential_privacy_slack",
    "exponential_probabilities",
    "implemented_probabilities",
    "implemented_weights",
    "sample_exponential",
    "sample_uniform_index",
]

_U = 2.0**-53
#: Assumed bound on the relative error of ``np.exp`` on ``[-700, 0]`` (see the module notes).
EXP_RELATIVE_ERROR = 2.0**-40
#: Largest accepted ``epsilon * rating_range / (2 * sensitivity)`` (nats of score spread).
MAX_SCORE_SPREAD = 2.0**40
#: Largest accepted number of outputs.
MAX_OUTPUTS = 2**26
#: Below ``e = 2^-1000`` an output's acceptance is computed in decimal arithmetic.
_TINY_E = 2.0**-1000
#: Scores are clamped here before ``exp`` (``exp(-700) < 2^-1000``: such outputs are "tiny").
_Z_CLAMP = -700.0
#: Bound on ``|z*|`` of a normal-case output (``1000 ln 2 + lambda(E)``, rounded up).
_Z_NORMAL_MAX = 693.2
#: Elements per block of rows (the block's work arrays stay in cache), at least one row.
_BLOCK_ELEMENTS = 1 << 17
#: Up to this many outputs the proposal is located by a vectorised comparison, not a search.
_SMALL_K = 1024
#: Width in nats of the low band of scores that shares one proposal weight (sparse path).
_BAND_NATS = 1.0 / 16.0
#: Rows with fewer outputs are always drawn on the dense path (it is the faster one there:
#: ~19-33 against ~50 microseconds a row for 256-1,024 outputs; 55 against 50 at 2,048).
_SPARSE_MIN_K = 2048
#: A row takes the sparse path when at most ``1 / _SPARSE_SHARE`` of its outputs are above the band.
_SPARSE_SHARE = 8
#: Safety factor of the band's proposal weight over the band's largest computed weight:
#: ``(1 + 2^-36)(1 - 2^-53) > (1 + E) / (1 - E)`` for ``E = 2^-40``.
_BAND_MARGIN = 1.0 + 2.0**-36


def _lam(t: float) -> float:
    return -math.log1p(-t)


def _gamma_bound() -> float:
    three_roundings = 3.0 * _U + 3.0 * _U**2 + _U**3  # (1 + u)^3 - 1
    theta_normal = (
        _Z_NORMAL_MAX * three_roundings + 2.0**-1074 + _lam(EXP_RELATIVE_ERROR) + _lam(_U)
    )
    theta_tiny = _lam(_U) + DECIMAL_RELATIVE_ERROR
    theta = max(theta_normal, theta_tiny)
    return 2.0 * theta * (1.0 + 1e-6)  # rounded up generously


#: The proven ``gamma``: implemented and ideal probabilities differ by a factor in exp(+-gamma).
EXACT_SAMPLER_GAMMA = _gamma_bound()


def _check_sensitivity(sensitivity: float) -> float:
    if isinstance(sensitivity, bool) or not (
        isinstance(sensitivity, (int, float, np.floating)) and math.isfinite(sensitivity)
    ):
        raise InvalidParameterError(f"sensitivity must be a finite number > 0, got {sensitivity!r}")
    if sensitivity <= 0:
        raise InvalidParameterError(f"sensitivity must be a finite number > 0, got {sensitivity!r}")
    return float(sensitivity)


def _scale(epsilon: float, sensitivity: float) -> tuple[float, float, float]:
    """Validated ``epsilon``, ``sensitivity`` and ``c = epsilon / (2 sensitivity)`` (normal)."""
    eps = check_epsilon(epsilon)
    sens = _check_sensitivity(sensitivity)
    c = eps / (2.0 * sens)
    if not (math.isfinite(c) and c >= 2.0**-1022):
        raise InvalidParameterError(
            f"epsilon / (2 * sensitivity) = {c!r} is not a finite normal float64 "
            "(between 2^-1022 and 1.8e308): the sampler's error bound needs it"
        )
    return eps, sens, c


def _check_outputs(n_outputs: int) -> int:
    k = check_positive_int(n_outputs, name="n_outputs")
    if k > MAX_OUTPUTS:
        raise InvalidParameterError(
            f"n_outputs = {k} exceeds 2^26 = {MAX_OUTPUTS}: the 63-bit integer proposal of the "
            "exact sampler would reject too often"
        )
    return k


def _check_spread(c: float, spread: float, *, what: str) -> None:
    if not c * spread <= MAX_SCORE_SPREAD:  # also catches inf and NaN
        raise InvalidParameterError(
            f"epsilon * {what} / (2 * sensitivity) = {c * spread!r} exceeds 2^40 nats: the exact "
            "sampler's decimal tail step is only proven well inside that range, so it refuses"
        )


def check_exponential_parameters(
    *, epsilon: float, sensitivity: float, rating_range: float, n_outputs: int
) -> None:
    """Raise :class:`InvalidParameterError` (naming the reason) where the bound is not proven.

    Checks ``epsilon`` and ``sensitivity`` (finite, > 0), that ``epsilon / (2 sensitivity)`` is a
    finite normal double, that ``rating_range`` is finite and >= 0, that
    ``epsilon * rating_range / (2 sensitivity) <= 2^40`` and that ``1 <= n_outputs <= 2^26``.

    Parameters
    ----------
    epsilon
        The privacy parameter, > 0.
    sensitivity
        The ratings' sensitivity, > 0.
    rating_range
        The most a row's ratings may span (max - min), >= 0.
    n_outputs
        The number of outputs of a row.

    Raises
    ------
    InvalidParameterError
        If a parameter lies outside the range where the bound is proven.

    Examples
    --------
    >>> check_exponential_parameters(epsilon=1e4, sensitivity=1, rating_range=1, n_outputs=20_000)
    >>> try:
    ...     check_exponential_parameters(epsilon=1e13, sensitivity=1, rating_range=1, n_outputs=2)
    ... except InvalidParameterError as err:
    ...     print(str(err)[:60])
    epsilon * rating_range / (2 * sensitivity) = 5000000000000.0
    """
    _, _, c = _scale(epsilon, sensitivity)
    if isinstance(rating_range, bool) or not (
        isinstance(rating_range, (int, float, np.floating))
        and math.isfinite(rating_range)
        and rating_range >= 0
    ):
        raise InvalidParameterError(
            f"rating_range must be a finite number >= 0, got {rating_range!r}"
        )
    _check_spread(c, float(rating_range), what="rating_range")
    _check_outputs(n_outputs)


def exponential_privacy_slack(
    *, epsilon: float, sensitivity: float, rating_range: float, n_outputs: int
) -> float:
    """The proven ``gamma`` of :func:`sample_exponential` at these parameters (or a refusal).

    For every output ``v`` of every row whose ratings span at most ``rating_range``, the
    probability that :func:`sample_exponential` returns ``v`` lies within a factor
    ``exp(+-gamma)`` of the ideal ``p(v)``, so the implemented per-draw privacy loss is at most
    ``epsilon + 2 * gamma``. Derivation (module docstring):
    ``gamma = 2 * (693.2 * ((1 + 2^-53)^3 - 1) + 2^-1074 + lambda(2^-40) + lambda(2^-53))``
    with ``lambda(t) = -log(1 - t)``: rounding of ``c``, of ``rho_v - max`` and of their product on
    scores down to ``-693.2`` nats, the relative error of ``np.exp`` (assumed <= 2^-40) and the
    rounding of the acceptance probability. Exact integer proposals, exact Bernoulli draws and
    60-digit decimals below ``-693`` nats add nothing larger. The value does not depend on
    ``rating_range`` or ``n_outputs`` inside the accepted ranges
    (:func:`check_exponential_parameters`).

    Parameters
    ----------
    epsilon
        The privacy parameter, > 0.
    sensitivity
        The ratings' sensitivity, > 0.
    rating_range
        The most a row's ratings may span (max - min), >= 0.
    n_outputs
        The number of outputs of a row.

    Returns
    -------
    float
        gamma.

    Examples
    --------
    >>> g = exponential_privacy_slack(epsilon=10, sensitivity=1, rating_range=1, n_outputs=20_000)
    >>> bool(0 < g < 1e-11)
    True
    """
    check_exponential_parameters(
        epsilon=epsilon, sensitivity=sensitivity, rating_range=rating_range, n_outputs=n_outputs
    )
    return EXACT_SAMPLER_GAMMA


def _as_scores(ratings: ArrayLike, *, check_finite: bool = True) -> NDArray[np.float64]:
    scores = np.asarray(ratings, dtype=np.float64)
    if scores.ndim not in (1, 2) or scores.shape[-1] == 0:
        raise InvalidParameterError(
            f"ratings must be a non-empty vector or matrix, got shape {scores.shape}"
        )
    if check_finite and not np.all(np.isfinite(scores)):
        raise _not_finite()
    return scores


def _not_finite() -> InvalidParameterError:
    return InvalidParameterError("ratings must all be finite (got NaN or infinity)")


def exponential_probabilities(
    ratings: ArrayLike, *, epsilon: float, sensitivity: float
) -> NDArray[np.float64]:
    """Ideal output probabilities of the exponential mechanism, row by row, in float64.

    ``ratings`` has shape ``(n_outputs,)`` or ``(n_queries, n_outputs)``; every entry must be
    finite. Returns float64 probabilities of the same shape (each row sums to 1). Probabilities
    below the float64 range come out as 0 here; the sampler does not use this function.

    Parameters
    ----------
    ratings
        The ratings, one row per query.
    epsilon
        The privacy parameter, > 0.
    sensitivity
        The ratings' sensitivity, > 0.

    Returns
    -------
    NDArray[np.float64]
        The probabilities, of the shape of ``ratings``.

    Examples
    --------
    >>> p = exponential_probabilities([0.0, 1.0], epsilon=2.0, sensitivity=1.0)
    >>> bool(np.isclose(p[1] / p[0], np.e))
    True
    """
    epsilon = check_epsilon(epsilon)
    sensitivity = _check_sensitivity(sensitivity)
    scores = _as_scores(ratings)
    s = scores * (epsilon / (2.0 * sensitivity))
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    return np.asarray(w / w.sum(axis=-1, keepdims=True))


def _scale_bits(n_outputs: int) -> int:
    """``S``: the largest weight is ``2^S`` and ``sum q < K (2^S + 1) <= 2^62 + 2^26``."""
    return min(52, 62 - math.ceil(math.log2(n_outputs)) if n_outputs > 1 else 52)


def _proposal_weights(
    block: NDArray[np.float64], top: NDArray[np.float64], c: float, s_bits: int
) -> NDArray[np.float64]:
    """``x = 2^S exp(max(c (rho - top), -700))`` in float64, row by row (steps 1 of the notes).

    The scaling by ``2^S`` is a multiplication by a power of two: exact, as ``ldexp`` is, since
    ``exp(-700) * 2^S`` is a normal double and ``2^S <= 2^52`` cannot overflow (numpy's
    ``ldexp`` is a scalar loop, 3 to 4 times slower than the multiplication here).
    """
    with np.errstate(over="ignore", under="ignore"):
        x = np.subtract(block, top[:, None])
        x *= c
        np.maximum(x, _Z_CLAMP, out=x)
        np.exp(x, out=x)
        x *= math.ldexp(1.0, s_bits)
    return x


def _tiny_log_weight(
    rho_v: float,
    rho_top: float,
    epsilon: float,
    sensitivity: float,
    s_bits: int,
    proposal: int = 1,
) -> Decimal:
    """``S ln 2 + epsilon (rho_v - rho_top) / (2 sensitivity) - ln(proposal)`` in 60-digit
    decimals: the log of a tiny output's acceptance probability under its integer proposal
    weight (1 on the dense path, the band's ``Q`` on the sparse path)."""
    ctx = DECIMAL_CONTEXT
    c = ctx.divide(Decimal(epsilon), ctx.multiply(Decimal(2), Decimal(sensitivity)))
    z = ctx.multiply(c, ctx.subtract(Decimal(rho_v), Decimal(rho_top)))
    log_alpha = ctx.add(z, ctx.multiply(Decimal(s_bits), LN2_DECIMAL))
    if proposal != 1:
        log_alpha = ctx.subtract(log_alpha, ctx.ln(Decimal(proposal)))
    return log_alpha


def _band_top(bottom: NDArray[np.float64], c: float) -> NDArray[np.float64]:
    """``tau``: the upper end of each row's low band ``[bottom, bottom + _BAND_NATS / c]``."""
    with np.errstate(over="ignore"):
        return np.asarray(bottom + _BAND_NATS / c)


def _sparse_rows(
    block: NDArray[np.float64],
    tau: NDArray[np.float64],
    bottom: NDArray[np.float64],
    c: float,
) -> tuple[NDArray[np.bool_], NDArray[np.int64]] | None:
    """Which rows of ``block`` take the sparse path, and the flat indices (row-major) of all
    outputs above each row's band (None when no row does). Only the speed depends on it,
    never the law (module notes). Rounding to nearest moves ``bottom + _BAND_NATS / c`` by at
    most half an ulp, which is no more than ``_BAND_NATS / c`` whenever it moves it at all, so
    a finite band is at most ``2 * _BAND_NATS`` wide; a row whose band overflowed (ratings near
    the float64 limit) or is wider than ``4 * _BAND_NATS`` anyway stays on the dense path."""
    k = block.shape[1]
    if k < _SPARSE_MIN_K:
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = (tau - bottom) * c <= 4.0 * _BAND_NATS  # False for inf and NaN
    above = np.flatnonzero(block > tau[:, None])
    counts = np.bincount(above // k, minlength=block.shape[0])
    sparse = narrow & (counts * _SPARSE_SHARE <= k)
    return (sparse, above) if sparse.any() else None


def _band_weight(
    tau: NDArray[np.float64], top: NDArray[np.float64], c: float, s_bits: int
) -> NDArray[np.int64]:
    """``Q``: one integer proposal weight above every computed ``x_v`` of the band (notes)."""
    x_tau = _proposal_weights(tau[:, None], top, c, s_bits)[:, 0]
    q: NDArray[np.int64] = np.floor(x_tau * _BAND_MARGIN).astype(np.int64) + 1
    return q


def _accept(
    block: NDArray[np.float64],
    top: NDArray[np.float64],
    pending: NDArray[np.int64],
    idx: NDArray[np.int64],
    xs: NDArray[np.float64],
    proposal: NDArray[np.int64],
    epsilon: float,
    sensitivity: float,
    s_bits: int,
    rng: np.random.Generator,
) -> NDArray[np.bool_]:
    """Step 3 for the proposals ``idx`` of the rows ``pending``, with weights ``x`` and integer
    proposal weights ``q``: accept with probability ``x / q`` (rounded, drawn exactly), or, for
    a tiny output, with ``2^S exp(c (rho - m)) / q`` in decimals."""
    accept = np.zeros(pending.size, dtype=bool)
    normal = xs >= math.ldexp(_TINY_E, s_bits)
    accept[normal] = bernoulli_double(xs[normal] / proposal[normal], rng)
    for t in np.flatnonzero(~normal):
        row = pending[t]
        log_alpha = _tiny_log_weight(
            float(block[row, idx[t]]),
            float(top[row]),
            epsilon,
            sensitivity,
            s_bits,
            int(proposal[t]),
        )
        accept[t] = bernoulli_exp_decimal(log_alpha, rng)
    return accept


def _draw_block(
    block: NDArray[np.float64],
    top: NDArray[np.float64],
    x: NDArray[np.float64],
    cum: NDArray[np.int64],
    epsilon: float,
    sensitivity: float,
    s_bits: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Steps 2-3 of the notes for every row of a block: propose, accept or start again."""
    out = np.empty(block.shape[0], dtype=np.int64)
    pending = np.arange(block.shape[0])
    while pending.size:
        draws = rng.integers(0, cum[pending, -1])  # exact uniform on [0, sum q) per row
        # proposal = first index whose cumulative weight exceeds the draw
        if cum.shape[1] <= _SMALL_K:
            idx = (cum[pending] <= draws[:, None]).sum(axis=1)
        else:
            idx = np.fromiter(
                (
                    np.searchsorted(cum[i], d, side="right")
                    for i, d in zip(pending, draws, strict=True)
                ),
                dtype=np.int64,
                count=pending.size,
            )
        xs = x[pending, idx]
        proposal = xs.astype(np.int64) + 1  # q = floor(x) + 1 (1 for a tiny output)
        accept = _accept(block, top, pending, idx, xs, proposal, epsilon, sensitivity, s_bits, rng)
        out[pending[accept]] = idx[accept]
        pending = pending[~accept]
    return out


def _draw_sparse(
    block: NDArray[np.float64],
    top: NDArray[np.float64],
    tau: NDArray[np.float64],
    above: NDArray[np.int64],
    epsilon: float,
    sensitivity: float,
    c: float,
    s_bits: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Steps 2-3 on the sparse path (module notes) for every row of a block: the outputs above
    the band keep their own proposal weights ``q_v``; those in the band share one weight ``Q``
    each, so ``exp`` runs only on the outputs above the band and on the proposed ones."""
    n_rows, k = block.shape
    rows, cols = np.divmod(above, k)  # row-major: each row's outputs above the band, in order
    x_above = _proposal_weights(block[rows, cols][:, None], top[rows], c, s_bits)[:, 0]
    q_above = x_above.astype(np.int64) + 1  # floor(x) + 1, as on the dense path
    counts = np.bincount(rows, minlength=n_rows)
    ends = np.cumsum(counts)
    starts = ends - counts
    # each row's own running sums, below 2^63: a running sum over the whole block can pass 2^63,
    # so it is taken modulo 2^64 (uint64) and each row's start is subtracted, modulo 2^64 too
    run = np.cumsum(q_above.astype(np.uint64))
    before = np.zeros(n_rows, dtype=np.uint64)
    later = starts > 0
    before[later] = run[starts[later] - 1]
    cum = (run - before[rows]).astype(np.int64)
    above_total = np.zeros(n_rows, dtype=np.int64)
    some = counts > 0
    above_total[some] = cum[ends[some] - 1]
    band_q = _band_weight(tau, top, c, s_bits)
    total = above_total + (k - counts) * band_q
    # the j-th output of a row's band is j + #(its outputs above the band that precede it):
    # gaps are non-decreasing within a row, and rows are kept apart by row * k
    gaps = rows * k + cols - (np.arange(rows.size) - starts[rows])
    out = np.empty(n_rows, dtype=np.int64)
    pending = np.arange(n_rows)
    while pending.size:
        draws = rng.integers(0, total[pending])  # exact uniform on [0, total) per row
        in_above = draws < above_total[pending]
        idx = np.empty(pending.size, dtype=np.int64)
        xs = np.empty(pending.size)
        proposal = np.empty(pending.size, dtype=np.int64)
        if in_above.any():
            r = pending[in_above]
            # the proposal is the first output of the row whose running sum exceeds the draw:
            # the row's output number #(running sums <= draw)
            target = np.full(n_rows, -1, dtype=np.int64)
            target[r] = draws[in_above]
            below = np.bincount(rows, weights=cum <= target[rows], minlength=n_rows)
            flat = starts[r] + below[r].astype(np.int64)
            idx[in_above] = cols[flat]
            xs[in_above] = x_above[flat]
            proposal[in_above] = q_above[flat]
        band = ~in_above
        if band.any():
            r = pending[band]
            j = (draws[band] - above_total[r]) // band_q[r]
            preceding = np.searchsorted(gaps, r * k + j, side="right") - starts[r]
            v = j + preceding
            idx[band] = v
            xs[band] = _proposal_weights(block[r, v][:, None], top[r], c, s_bits)[:, 0]
            proposal[band] = band_q[r]
        accept = _accept(block, top, pending, idx, xs, proposal, epsilon, sensitivity, s_bits, rng)
        out[pending[accept]] = idx[accept]
        pending = pending[~accept]
    return out


def sample_exponential(
    ratings: ArrayLike,
    *,
    epsilon: float,
    sensitivity: float,
    random_state: RandomState = None,
    rating_range: float | None = None,
) -> NDArray[np.int64]:
    """Draw one output index per row of ``ratings`` with the exponential mechanism.

    ``ratings`` has shape ``(n_rows, K)`` or ``(K,)`` (one row); returns ``n_rows`` indices. Each
    row is an independent draw whose probabilities are within ``exp(+-gamma)`` of the ideal Eq. 6
    probabilities (Bo et al.), ``gamma = EXACT_SAMPLER_GAMMA`` (module notes), with no unreachable
    output; ``n`` rows released together are ``n * (epsilon + 2 gamma)``-DP by sequential
    composition (their Theorem 1).

    ``rating_range``: the range the caller guarantees for every row (``max - min``). When given,
    the refusal for too large a spread depends only on the parameters, and a row that spans more
    raises :class:`InvalidParameterError` (the caller's guarantee, on which ``epsilon`` rests,
    failed). When omitted, the observed spread of each row is checked against ``2^40`` nats.

    Parameters
    ----------
    ratings
        The ratings, one row per draw.
    epsilon
        The privacy parameter, > 0.
    sensitivity
        The ratings' sensitivity, > 0.
    random_state
        The randomness: None, an int seed or a numpy Generator.
    rating_range
        The range the caller guarantees for every row, or None.

    Returns
    -------
    NDArray[np.int64]
        One output index per row.

    Raises
    ------
    InvalidParameterError
        If a row spans more than ``rating_range`` (or the parameters are refused).

    Examples
    --------
    >>> sample_exponential([[0.0, 1e9]], epsilon=1.0, sensitivity=1.0, random_state=0).tolist()
    [1]
    """
    eps, sens, c = _scale(epsilon, sensitivity)
    # finiteness is checked block by block below, on each row's maximum and minimum (NaN
    # propagates through both, an infinity shows in one): one pass over the ratings fewer
    scores = np.atleast_2d(_as_scores(ratings, check_finite=False))
    n_rows, n_outputs = scores.shape
    _check_outputs(n_outputs)
    if rating_range is not None:
        check_exponential_parameters(
            epsilon=eps, sensitivity=sens, rating_range=rating_range, n_outputs=n_outputs
        )
    rng = check_random_state(random_state)
    s_bits = _scale_bits(n_outputs)
    out = np.empty(n_rows, dtype=np.int64)
    step = max(1, _BLOCK_ELEMENTS // n_outputs)
    for a in range(0, n_rows, step):
        block = scores[a : a + step]
        top = block.max(axis=1)
        bottom = block.min(axis=1)
        if not (np.all(np.isfinite(top)) and np.all(np.isfinite(bottom))):
            raise _not_finite()
        with np.errstate(over="ignore"):
            spread = float(np.max(top - bottom))
        if rating_range is not None and not spread <= rating_range:
            raise InvalidParameterError(
                f"a row of ratings spans {spread!r}, more than the declared rating_range "
                f"{rating_range!r}"
            )
        _check_spread(c, spread, what="(max rating - min rating)")
        tau = _band_top(bottom, c)
        split = _sparse_rows(block, tau, bottom, c)
        if split is None:
            out[a : a + step] = _draw_dense(block, top, eps, sens, c, s_bits, rng)
            continue
        sparse, above = split
        if sparse.all():
            out[a : a + step] = _draw_sparse(block, top, tau, above, eps, sens, c, s_bits, rng)
            continue
        dense = ~sparse
        out[a : a + step][dense] = _draw_dense(block[dense], top[dense], eps, sens, c, s_bits, rng)
        k = block.shape[1]
        row = above // k
        keep = sparse[row]
        renumber = np.cumsum(sparse) - 1  # row of the block -> row among the sparse ones
        out[a : a + step][sparse] = _draw_sparse(
            block[sparse],
            top[sparse],
            tau[sparse],
            renumber[row[keep]] * k + above[keep] % k,
            eps,
            sens,
            c,
            s_bits,
            rng,
        )
    return out


def _draw_dense(
    block: NDArray[np.float64],
    top: NDArray[np.float64],
    epsilon: float,
    sensitivity: float,
    c: float,
    s_bits: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """The dense path: every output's own proposal weight (steps 1-3 of the notes)."""
    x = _proposal_weights(block, top, c, s_bits)
    # q = floor(x) + 1: x > 0 (at least 2^S exp(-700)) and about 2^S at most, so the cast to
    # int64 truncates to floor(x) and + 1 is exact (the same integers as np.floor, + 1.0 and
    # a cast, in two passes instead of three)
    cum = x.astype(np.int64)
    cum += 1
    np.cumsum(cum, axis=1, out=cum)
    return _draw_block(block, top, x, cum, epsilon, sensitivity, s_bits, rng)


def implemented_weights(
    ratings: ArrayLike, *, epsilon: float, sensitivity: float
) -> list[tuple[int, float, int]]:
    """Exact realised weights of one row: :func:`sample_exponential` returns output ``v`` with
    probability ``w_v / sum_u w_u``, ``w_v = q_v * a_v * 2^-k_v``, for the returned ``(q, a, k)``.

    Reproduces the sampler's arithmetic: for a normal-case output ``q_v = floor(x_v) + 1`` (its
    integer proposal weight), ``a_v = x_v / q_v`` rounded (its acceptance probability) and
    ``k_v = 0``; for a tiny output ``q_v = 1`` and ``2^-k_v a_v`` is its decimal decomposition.
    On the sparse path (module notes) an output in the row's low band has ``q_v = Q``, the
    band's shared proposal weight, and its acceptance ``x_v / Q`` (or its decomposition).
    For tests and audits (module notes).

    Parameters
    ----------
    ratings
        One row of ratings.
    epsilon
        The privacy parameter, > 0.
    sensitivity
        The ratings' sensitivity, > 0.

    Returns
    -------
    list[tuple[int, float, int]]
        ``(q, a, k)`` per output.

    Raises
    ------
    InvalidParameterError
        If ``ratings`` is not one row.

    Examples
    --------
    >>> implemented_weights([0.0], epsilon=1.0, sensitivity=1.0)
    [(4503599627370497, 0.9999999999999998, 0)]
    """
    eps, sens, c = _scale(epsilon, sensitivity)
    scores = _as_scores(ratings)
    if scores.ndim != 1:
        raise InvalidParameterError("implemented_weights takes one row (a vector)")
    n_outputs = _check_outputs(scores.shape[0])
    _check_spread(c, float(scores.max() - scores.min()), what="(max rating - min rating)")
    s_bits = _scale_bits(n_outputs)
    block = scores[None, :]
    top = block.max(axis=1)
    bottom = block.min(axis=1)
    tau = _band_top(bottom, c)
    split = _sparse_rows(block, tau, bottom, c)
    in_band = np.ones(n_outputs, dtype=bool) if split is not None else np.zeros(n_outputs, bool)
    if split is not None:
        in_band[split[1]] = False
    band_q = int(_band_weight(tau, top, c, s_bits)[0]) if split is not None else 1
    x = _proposal_weights(block, top, c, s_bits)[0]
    tiny_x = math.ldexp(_TINY_E, s_bits)
    weights: list[tuple[int, float, int]] = []
    for v in range(n_outputs):
        xv = float(x[v])
        if xv >= tiny_x:
            qv = band_q if in_band[v] else math.floor(xv) + 1
            weights.append((qv, xv / float(qv), 0))
        else:
            qv = band_q if in_band[v] else 1
            k, a = decompose_log_probability(
                _tiny_log_weight(float(scores[v]), float(top[0]), eps, sens, s_bits, qv)
            )
            weights.append((qv, a, k))
    return weights


def implemented_probabilities(
    ratings: ArrayLike, *, epsilon: float, sensitivity: float
) -> list[Fraction]:
    """The exact probabilities with which :func:`sample_exponential` returns each output of a row.

    ``w_v / sum w`` of :func:`implemented_weights` as exact fractions, given fair bits (the cost
    grows with the number of bits of tiny probabilities: use the weights for huge gaps).

    Parameters
    ----------
    ratings
        One row of ratings.
    epsilon
        The privacy parameter, > 0.
    sensitivity
        The ratings' sensitivity, > 0.

    Returns
    -------
    list[Fraction]
        The exact probability of each output.

    Examples
    --------
    >>> p = implemented_probabilities([0.0, -1e4], epsilon=2.0, sensitivity=1.0)
    >>> sum(p) == 1, p[1] > 0
    (True, True)
    """
    terms = []
    for q, a, k in implemented_weights(ratings, epsilon=epsilon, sensitivity=sensitivity):
        num, den = a.as_integer_ratio()  # den is a power of two
        terms.append((q * num, den.bit_length() - 1 + k))
    top = max(e for _, e in terms)
    ints = [m << (top - e) for m, e in terms]  # all weights times 2^top, exactly
    total = sum(ints)
    return [Fraction(m, total) for m in ints]


def sample_uniform_index(
    n_rows: int, n_outputs: int, *, random_state: RandomState = None
) -> NDArray[np.int64]:
    """``n_rows`` independent indices uniform on ``{0, ..., n_outputs - 1}`` (exact).

    ``rng.integers`` draws bounded integers without bias, so every index has probability exactly
    ``1 / n_outputs`` (the Random-R baseline).

    Parameters
    ----------
    n_rows
        The number of indices, >= 0.
    n_outputs
        The number of outputs, >= 1.
    random_state
        The randomness: None, an int seed or a numpy Generator.

    Returns
    -------
    NDArray[np.int64]
        The indices.

    Raises
    ------
    InvalidParameterError
        If ``n_rows`` is not an integer >= 0.

    Examples
    --------
    >>> sample_uniform_index(3, 1, random_state=0).tolist()
    [0, 0, 0]
    """
    if isinstance(n_rows, bool) or not isinstance(n_rows, (int, np.integer)) or n_rows < 0:
        raise InvalidParameterError(f"n_rows must be an integer >= 0, got {n_rows!r}")
    k = check_positive_int(n_outputs, name="n_outputs")
    rng = check_random_state(random_state)
    idx: NDArray[np.int64] = rng.integers(0, k, size=int(n_rows), dtype=np.int64)
    return idx
