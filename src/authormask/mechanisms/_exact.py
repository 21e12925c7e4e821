"""Exact random primitives built from the fair bits of a numpy ``Generator``.

Every primitive takes a :class:`numpy.random.Generator` and draws only

* 64-bit words ``rng.integers(0, 2**64 - 1, endpoint=True, dtype=np.uint64)`` (the full range:
  numpy returns the bit generator's raw 64-bit outputs, i.e. 64 fair bits each), and
* bounded integers ``rng.integers(0, high)``, which numpy generates without bias (rejection).

No primitive uses ``rng.random()`` or another floating-point generator, so the distributions
below hold *exactly* (as distributions over the doubles or integers returned), given fair bits.
Bits of a word are read from the least significant bit upwards; which end is read first does
not matter for fair independent bits.

Primitives
----------
:func:`geometric_fair_bits`
    ``G`` = number of 1-bits before the first 0-bit of an *unbounded* stream of fair bits, so
    ``P(G = g) = 2^-(g+1)`` for every ``g >= 0``. Words that are all ones are consumed and the
    count continues in a fresh word: there is no cap at 64 (or at any other value).
:func:`negative_binomial_half`
    The number of 1-bits before the ``n``-th 0-bit of an unbounded stream: the sum of ``n``
    independent :func:`geometric_fair_bits` (negative binomial ``NB(n, 1/2)``), unbounded.
:func:`uniform_full_precision`
    ``U`` = a real ``V ~ Uniform[0, 1)`` rounded *down* to the nearest double. Then
    ``P(U < d) = d`` for every double ``d`` in ``[0, 1]``, every double in ``(0, 1)`` is reachable
    (subnormals included) and ``P(U = 0) = 2^-1074``. The binade ``[2^-(J+1), 2^-J)`` is chosen by
    ``J = geometric_fair_bits`` (``P = 2^-(J+1)``, exactly the mass of that binade) and the 52-bit
    mantissa is uniform; below ``2^-1022`` the grid is ``2^-1074`` (subnormals).
:func:`bernoulli_double`
    ``U < p`` with ``U = uniform_full_precision``: success with probability exactly ``p`` for any
    double ``p`` in ``[0, 1]``.
:func:`bernoulli_pow2` (one draw), :func:`bernoulli_pow2_array` (many)
    Success iff the first ``k`` fair bits are all ones: probability exactly ``2^-k`` for any
    integer ``k >= 0``. Bits are read 64 at a time and reading stops at the first word that is
    not all ones, so the expected cost is O(1) words even for ``k`` in the millions.
:func:`bernoulli_exp_decimal` / :func:`bernoulli_exp`
    Bernoulli(``exp(log_p)``). ``log_p = -k ln 2 + r`` with ``r`` in ``(-ln 2, 0]``, computed in
    60-digit decimal arithmetic (``decimal`` rounds ``ln``, ``exp``, ``*``, ``+``, ``/`` correctly);
    success iff ``bernoulli_pow2(k)`` and ``bernoulli_double(a)`` with ``a = float(exp(r))`` in
    ``[1/2, 1]``. The realised probability is exactly ``2^-k * a``, within a factor
    ``exp(+-(2^-53 + 1e-40))`` of ``exp(log_p)`` (``a`` is ``exp(r)`` correctly rounded to a
    double; the decimal error of ``r`` is below ``1e-44`` for ``|log_p| <= 2^50``). This is what
    makes probabilities far below the double range (``exp(-5e5)``, say) exact up to a relative
    ``2^-53``. :func:`bernoulli_exp` takes float64 ``log_p`` and, where ``log_p >= -700``, uses
    ``bernoulli_double(np.exp(log_p))`` (relative error: that of ``np.exp``).
:func:`exponential_unbounded`
    ``E = ln 2 * G + R`` with ``G = geometric_fair_bits`` and ``R = -log W``, ``W`` uniform on the
    doubles ``j 2^-53`` of ``[1/2, 1)``, so ``R`` has density proportional to ``exp(-r)`` on
    ``(0, ln 2]``. By memorylessness (``P(E in [g ln 2, (g+1) ln 2)) = 2^-(g+1)`` and the
    conditional law of ``E - g ln 2`` is the same for every ``g``) ``E ~ Exp(1)`` with unbounded
    support; the only approximation is floating-point rounding of ``R`` and of the sum.
:func:`sum_of_exponentials`
    ``Gamma(n, 1)`` for integer ``n``: the sum of ``n`` independent :func:`exponential_unbounded`,
    drawn as ``ln 2 * (NB(n, 1/2) + n) - log(prod V_i)`` with ``V_i = 2 W_i`` uniform on the
    doubles of ``[1, 2)``; unbounded support.
"""

from __future__ import annotations

import math
from decimal import (
    MAX_EMAX,
    MIN_EMIN,
    ROUND_FLOOR,
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    InvalidOperation,
    Overflow,
)

import numpy as np
from numpy.typing import ArrayLike, NDArray

from authormask.exceptions import InvalidParameterError

__all__ = [
    "DECIMAL_CONTEXT",
    "DECIMAL_RELATIVE_ERROR",
    "LN2_DECIMAL",
    "LOG_P_LIMIT",
    "bernoulli_double",
    "bernoulli_exp",
    "bernoulli_exp_decimal",
    "bernoulli_pow2",
    "bernoulli_pow2_array",
    "decompose_log_probability",
    "exponential_unbounded",
    "geometric_fair_bits",
    "negative_binomial_half",
    "random_words",
    "sum_of_exponentials",
    "uniform_full_precision",
]

_ONES64 = 2**64 - 1
_U64_ONES = np.uint64(_ONES64)
_U64_ONE = np.uint64(1)
_EXP_ONE = np.uint64(0x3FF0000000000000)  # bit pattern of 1.0
_TWO_POW_M52 = 2.0**-52
_LN2 = math.log(2.0)

#: Decimal context of the exact Bernoulli: 60 significant digits, unlimited exponent range.
DECIMAL_CONTEXT = _CTX = Context(
    prec=60,
    rounding=ROUND_HALF_EVEN,
    Emin=MIN_EMIN,
    Emax=MAX_EMAX,
    traps=[InvalidOperation, DivisionByZero, Overflow],
)
#: ln 2 correctly rounded to 60 digits.
LN2_DECIMAL = _LN2_DEC = _CTX.ln(Decimal(2))
#: ``|log_p|`` up to which the 60-digit decomposition is proven (error of ``r`` < 1e-44).
LOG_P_LIMIT = 2.0**50
#: Bound on the relative error of ``2^-k * exp(r)`` from the decimal steps (before rounding ``a``).
DECIMAL_RELATIVE_ERROR = 1e-40


def random_words(rng: np.random.Generator, size: int | tuple[int, ...]) -> NDArray[np.uint64]:
    """``size`` independent uniform 64-bit words (64 fair bits each)."""
    words: NDArray[np.uint64] = rng.integers(0, _ONES64, size=size, dtype=np.uint64, endpoint=True)
    return words


def _trailing_ones(words: NDArray[np.uint64]) -> NDArray[np.int64]:
    """Number of consecutive 1-bits from the least significant bit (64 for an all-ones word)."""
    # (w ^ (w + 1)) sets the trailing ones and the first zero; an all-ones word wraps to 0.
    count = np.bitwise_count(words ^ (words + _U64_ONE)).astype(np.int64) - 1
    count[words == _U64_ONES] = 64
    return count


def geometric_fair_bits(rng: np.random.Generator, size: int) -> NDArray[np.int64]:
    """``size`` draws of ``G`` with ``P(G = g) = 2^-(g+1)``, ``g = 0, 1, 2, ...`` (no cap).

    ``G`` counts the 1-bits before the first 0-bit of a stream of fair bits; whenever a whole
    64-bit word is ones, another word is read (unbounded).

    >>> g = geometric_fair_bits(np.random.default_rng(0), 100_000)
    >>> bool(abs(g.mean() - 1.0) < 0.02)
    True
    """
    total = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        t = _trailing_ones(random_words(rng, active.size))
        total[active] += t
        active = active[t == 64]
    return total


def _select_zero_table() -> NDArray[np.int64]:
    """``table[8 * b + r]``: position (from the lowest bit) of the (r+1)-th 0-bit of byte b."""
    table = np.zeros(256 * 8, dtype=np.int64)
    for byte in range(256):
        zero_positions = [i for i in range(8) if not (byte >> i) & 1]
        for rank, position in enumerate(zero_positions):
            table[8 * byte + rank] = position
    return table


_SELECT_ZERO = _select_zero_table()


def negative_binomial_half(n: int, size: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """``size`` draws of the number of 1-bits before the ``n``-th 0-bit (``NB(n, 1/2)``).

    Equal in law to the sum of ``n`` independent :func:`geometric_fair_bits`, with unbounded
    support: a draw whose ``n``-th zero bit is not in the words read so far reads more words.
    The zero is located by population counts of the words, then of the bytes of its word, then a
    table of zero-bit positions within a byte.

    >>> x = negative_binomial_half(50, 50_000, np.random.default_rng(1))
    >>> bool(abs(x.mean() - 50) < 0.5)
    True
    """
    if n < 1:
        raise InvalidParameterError(f"n must be an integer >= 1, got {n!r}")
    result = np.zeros(size, dtype=np.int64)
    need = np.full(size, n, dtype=np.int64)  # 0-bits still to be read
    active = np.arange(size)
    # words per round: 2n bits plus ~6 standard deviations, so a second round is rare
    per_round = max(1, math.ceil((2 * n + 6 * math.sqrt(2 * n)) / 64))
    while active.size:
        words = random_words(rng, (active.size, per_round))
        cum = np.cumsum(64 - np.bitwise_count(words), axis=1, dtype=np.int64)
        target = need[active]
        done = cum[:, -1] >= target
        if done.all():  # the common case: no row needs another round
            result[active] += _ones_before_target_zero(words, cum, target)
            break
        more = ~done
        # the n-th zero is further on: every bit of this round is consumed
        result[active[more]] += 64 * per_round - cum[more, -1]
        need[active[more]] -= cum[more, -1]
        rows = np.flatnonzero(done)
        result[active[rows]] += _ones_before_target_zero(words[rows], cum[rows], target[rows])
        active = active[more]
    return result


def _ones_before_target_zero(
    words: NDArray[np.uint64], cum: NDArray[np.int64], target: NDArray[np.int64]
) -> NDArray[np.int64]:
    """1-bits before the ``target``-th 0-bit of each row of words (``cum``: cumulative zeros)."""
    rows = np.arange(words.shape[0])
    jw = (cum < target[:, None]).sum(axis=1)  # word holding the target zero
    rank = target - np.where(jw > 0, cum[rows, np.maximum(jw - 1, 0)], 0)
    by = np.ascontiguousarray(words[rows, jw]).view(np.uint8).reshape(rows.size, 8)
    cb = np.cumsum(8 - np.bitwise_count(by), axis=1, dtype=np.int64)
    jb = (cb < rank[:, None]).sum(axis=1)  # its byte
    rank_b = rank - np.where(jb > 0, cb[rows, np.maximum(jb - 1, 0)], 0)
    pos = _SELECT_ZERO[by[rows, jb].astype(np.int64) * 8 + rank_b - 1]  # its bit
    bits_before = 64 * jw + 8 * jb + pos
    ones: NDArray[np.int64] = bits_before - (target - 1)  # minus the 0-bits before it
    return ones


def uniform_full_precision(rng: np.random.Generator, size: int) -> NDArray[np.float64]:
    """``size`` uniforms on ``[0, 1)`` rounded down to doubles: ``P(U < d) = d`` for every double.

    >>> u = uniform_full_precision(np.random.default_rng(2), 200_000)
    >>> bool(np.all((u >= 0) & (u < 1))), bool(abs((u < 0.25).mean() - 0.25) < 0.01)
    (True, True)
    """
    j = geometric_fair_bits(rng, size)  # binade [2^-(j+1), 2^-j), probability 2^-(j+1)
    mantissa = rng.integers(0, 2**52, size=size, dtype=np.int64)
    normal = j < 1022
    out = np.empty(size, dtype=np.float64)
    frac = 1.0 + mantissa[normal].astype(np.float64) * _TWO_POW_M52  # exact: < 2^53 grid
    out[normal] = np.ldexp(frac, -(j[normal] + 1).astype(np.int32))
    # below 2^-1022 the doubles are the multiples of 2^-1074: uniform 52-bit multiple
    out[~normal] = np.ldexp(mantissa[~normal].astype(np.float64), -1074)
    return out


def bernoulli_double(p: ArrayLike, rng: np.random.Generator) -> NDArray[np.bool_]:
    """Independent Bernoulli(``p_i``) for doubles ``p_i`` in ``[0, 1]``, exactly.

    >>> bernoulli_double([0.0, 1.0], np.random.default_rng(0)).tolist()
    [False, True]
    """
    prob = np.asarray(p, dtype=np.float64)
    if prob.size and not (np.all(prob >= 0.0) and np.all(prob <= 1.0)):
        raise InvalidParameterError("probabilities must lie in [0, 1]")
    flat = prob.reshape(-1)
    result: NDArray[np.bool_] = (uniform_full_precision(rng, flat.size) < flat).reshape(prob.shape)
    return result


def bernoulli_pow2(k: int, rng: np.random.Generator) -> bool:
    """One Bernoulli(``2^-k``) draw for an integer ``k >= 0``: the first ``k`` fair bits are ones.

    >>> bernoulli_pow2(0, np.random.default_rng(0))
    True
    """
    if k < 0:
        raise InvalidParameterError(f"k must be an integer >= 0, got {k!r}")
    while k >= 64:
        if int(random_words(rng, 1)[0]) != _ONES64:
            return False
        k -= 64
    if k == 0:
        return True
    mask = (1 << k) - 1
    return (int(random_words(rng, 1)[0]) & mask) == mask


def bernoulli_pow2_array(k: int, size: int, rng: np.random.Generator) -> NDArray[np.bool_]:
    """``size`` independent Bernoulli(``2^-k``) draws (vectorised :func:`bernoulli_pow2`)."""
    if k < 0:
        raise InvalidParameterError(f"k must be an integer >= 0, got {k!r}")
    result = np.ones(size, dtype=bool)
    active = np.arange(size)
    remaining = k
    while remaining > 0 and active.size:
        take = min(remaining, 64)
        mask = _U64_ONES if take == 64 else np.uint64((1 << take) - 1)
        ok = (random_words(rng, active.size) & mask) == mask
        result[active[~ok]] = False
        active = active[ok]
        remaining -= take
    return result


def decompose_log_probability(log_p: Decimal) -> tuple[int, float]:
    """Write ``exp(log_p)`` as ``2^-k * a``: an integer ``k >= 0``, a double ``a`` in [1/2, 1].

    ``k = floor(-log_p / ln 2)``, ``r = log_p + k ln 2`` in ``(-ln 2, 0]`` and ``a = exp(r)``
    rounded to the nearest double (clamped to ``[1/2, 1]``, which moves it by less than ``1e-50``
    relative when ``r`` lies within decimal rounding of an end point). For ``|log_p| <= 2^50``,
    ``2^-k * a`` is within a factor ``exp(+-(2^-53 + 1e-40))`` of ``exp(log_p)``.

    >>> decompose_log_probability(Decimal(0))
    (0, 1.0)
    >>> decompose_log_probability(-Decimal(2).ln())
    (1, 1.0)
    """
    if log_p.is_nan() or log_p > 0:
        raise InvalidParameterError(f"log_p must be <= 0, got {log_p}")
    if -log_p > Decimal(LOG_P_LIMIT):
        raise InvalidParameterError(
            f"log_p = {log_p} is below -2^50: the 60-digit decomposition is not proven there"
        )
    k = int(_CTX.divide(-log_p, _LN2_DEC).to_integral_value(rounding=ROUND_FLOOR, context=_CTX))
    k = max(k, 0)
    r = _CTX.add(log_p, _CTX.multiply(Decimal(k), _LN2_DEC))
    a = float(_CTX.exp(r))
    return k, min(max(a, 0.5), 1.0)


def bernoulli_exp_decimal(log_p: Decimal, rng: np.random.Generator) -> bool:
    """One Bernoulli(``exp(log_p)``) draw for a decimal ``log_p <= 0`` (see the module notes).

    Realised probability: exactly ``2^-k * a`` of :func:`decompose_log_probability`.

    >>> bernoulli_exp_decimal(Decimal(0), np.random.default_rng(0))
    True
    >>> bernoulli_exp_decimal(Decimal(-100000), np.random.default_rng(0))
    False
    """
    k, a = decompose_log_probability(log_p)
    if not bernoulli_pow2(k, rng):
        return False
    return bool(bernoulli_double(np.array([a]), rng)[0])


def bernoulli_exp(log_p: ArrayLike, rng: np.random.Generator) -> NDArray[np.bool_]:
    """Independent Bernoulli(``exp(log_p_i)``) for float64 ``log_p_i <= 0`` (``-inf``: never).

    ``log_p >= -700``: ``bernoulli_double(np.exp(log_p))``, realised probability exactly the
    double ``np.exp(log_p)``. Below: :func:`bernoulli_exp_decimal` of the exact decimal value of
    the double, realised probability within ``exp(+-(2^-53 + 1e-40))`` of ``exp(log_p)``.

    >>> bernoulli_exp([0.0, -np.inf], np.random.default_rng(0)).tolist()
    [True, False]
    """
    lp = np.asarray(log_p, dtype=np.float64)
    flat = lp.reshape(-1)
    if np.any(np.isnan(flat)) or np.any(flat > 0):
        raise InvalidParameterError("log_p must be <= 0 (and not NaN)")
    out = np.zeros(flat.size, dtype=bool)
    high = flat >= -700.0
    out[high] = bernoulli_double(np.exp(flat[high]), rng)
    for i in np.flatnonzero(~high & np.isfinite(flat)):
        out[i] = bernoulli_exp_decimal(Decimal(float(flat[i])), rng)
    result: NDArray[np.bool_] = out.reshape(lp.shape)
    return result


def _unit_mantissas(rng: np.random.Generator, shape: tuple[int, ...]) -> NDArray[np.float64]:
    """Doubles uniform on ``{1 + m 2^-52 : 0 <= m < 2^52}`` (exactly; from 52 fair bits)."""
    words = random_words(rng, shape)
    words >>= np.uint64(12)
    words |= _EXP_ONE
    mantissas: NDArray[np.float64] = words.view(np.float64)
    return mantissas


def exponential_unbounded(rng: np.random.Generator, size: int) -> NDArray[np.float64]:
    """``size`` draws of ``Exp(1)`` as ``ln 2 * G + R`` (unbounded; see the module notes).

    >>> e = exponential_unbounded(np.random.default_rng(3), 100_000)
    >>> bool(abs(e.mean() - 1.0) < 0.02)
    True
    """
    g = geometric_fair_bits(rng, size)
    w = _unit_mantissas(rng, (size,)) * 0.5  # exact: uniform on the doubles of [1/2, 1)
    result: NDArray[np.float64] = np.log(w)
    result *= -1.0
    result += _LN2 * g.astype(np.float64)
    return result


#: Columns per partial product in :func:`sum_of_exponentials` (``prod V_i < 2^512``: no overflow).
_PRODUCT_BLOCK = 512
_CHUNK_ELEMENTS = 1 << 18


def sum_of_exponentials(n: int, size: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """``size`` draws of ``Gamma(n, 1)`` (integer ``n >= 1``): sums of ``n`` unbounded ``Exp(1)``.

    ``sum_i (ln 2 * G_i + R_i)`` with ``sum_i G_i = NB(n, 1/2)`` (:func:`negative_binomial_half`)
    and ``sum_i R_i = sum_i -log(V_i / 2) = n ln 2 - log(prod_i V_i)``, ``V_i`` uniform on the
    doubles of ``[1, 2)``. Floating point enters only in the rounding of the product, its
    logarithm and the final sum (relative error of order ``n * 2^-53``).

    >>> x = sum_of_exponentials(5, 100_000, np.random.default_rng(4))
    >>> bool(abs(x.mean() - 5.0) < 0.05)
    True
    """
    if n < 1:
        raise InvalidParameterError(f"n must be an integer >= 1, got {n!r}")
    out = _LN2 * (negative_binomial_half(n, size, rng) + n).astype(np.float64)
    rows = max(1, _CHUNK_ELEMENTS // n)  # row blocks small enough to stay in cache
    for a in range(0, size, rows):
        b = min(size, a + rows)
        for start in range(0, n, _PRODUCT_BLOCK):
            cols = min(_PRODUCT_BLOCK, n - start)
            out[a:b] -= np.log(np.prod(_unit_mantissas(rng, (b - a, cols)), axis=1))
    return out
