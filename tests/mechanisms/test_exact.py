"""Exact random primitives: geometric, negative binomial, full-precision uniform, Bernoulli."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from forced_streams import ONES, ForcedOnes, pcg64_starting_with
from scipy import stats

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._exact import (
    DECIMAL_CONTEXT,
    LN2_DECIMAL,
    bernoulli_double,
    bernoulli_exp,
    bernoulli_exp_decimal,
    bernoulli_pow2,
    bernoulli_pow2_array,
    decompose_log_probability,
    exponential_unbounded,
    geometric_fair_bits,
    negative_binomial_half,
    sum_of_exponentials,
    uniform_full_precision,
)

P_MIN = 1e-6  # fixed seeds + this threshold: the tests cannot flake


def forced_ones(seed: int, n_forced: int) -> ForcedOnes:
    g = ForcedOnes(np.random.PCG64(seed))
    g.n_forced = n_forced
    return g


def test_crafted_generator_is_what_it_claims() -> None:
    g = pcg64_starting_with(ONES, 0b0111)
    assert g.bit_generator.random_raw(2).tolist() == [ONES, 7]


# --- geometric and negative binomial ------------------------------------------------------------


def test_geometric_distribution_chi_square() -> None:
    g = geometric_fair_bits(np.random.default_rng(1), 1_000_000)
    counts = np.bincount(np.minimum(g, 20), minlength=21)
    probs = np.array([2.0 ** -(k + 1) for k in range(20)] + [2.0**-20])
    assert stats.chisquare(counts, probs * g.size).pvalue > P_MIN


def test_geometric_has_no_cap_at_64() -> None:
    # first word all ones (64 ones), second word ...0111 (3 more ones, then a zero)
    assert geometric_fair_bits(pcg64_starting_with(ONES, 0b0111), 1).tolist() == [67]
    # and a conditioned run through many all-ones words keeps counting
    assert geometric_fair_bits(forced_ones(0, 5), 1)[0] >= 5 * 64


@pytest.mark.parametrize("n", [1, 2, 3, 50, 300])
def test_negative_binomial_chi_square(n: int) -> None:
    x = negative_binomial_half(n, 200_000, np.random.default_rng(n))
    d = stats.nbinom(n, 0.5)
    lo, hi = int(d.ppf(1e-4)), int(d.ppf(1 - 1e-4))
    ks = np.arange(lo, hi + 1)
    counts = np.array([(x == k).sum() for k in ks] + [int((x < lo).sum() + (x > hi).sum())])
    probs = np.append(d.pmf(ks), 1.0 - d.pmf(ks).sum())
    assert stats.chisquare(counts, probs * x.size).pvalue > P_MIN


def test_negative_binomial_reads_more_words_when_needed() -> None:
    # n = 1 reads one word per round; an all-ones first word forces a second round
    assert negative_binomial_half(1, 1, pcg64_starting_with(ONES, 0b0111)).tolist() == [67]
    # n = 50 reads 4 words per round; 4 forced all-ones words: at least 256 ones come first
    assert negative_binomial_half(50, 1, forced_ones(1, 4))[0] >= 256


def _chi2_counts(x: np.ndarray, d: Any) -> float:
    lo, hi = int(d.ppf(1e-3)), int(d.ppf(1 - 1e-3))
    ks = np.arange(lo, hi + 1)
    counts = np.array([(x == k).sum() for k in ks] + [int((x < lo).sum() + (x > hi).sum())])
    probs = np.append(d.pmf(ks), 1.0 - d.pmf(ks).sum())
    return float(stats.chisquare(counts, probs * x.size).pvalue)


def test_conditioned_continuation_is_memoryless() -> None:
    # Conditioned on an all-ones first word, the geometric count continues afresh: G - 64 ~ G.
    g = np.array([geometric_fair_bits(forced_ones(s, 1), 1)[0] for s in range(3000)])
    assert g.min() >= 64
    assert _chi2_counts(g - 64, stats.geom(0.5, loc=-1)) > P_MIN
    # NB(50): rows of one call where only the first row's 3-word round is all ones (mixed path):
    # that row continues (192 ones, then a fresh NB(50)); the other row is an ordinary NB(50).
    x = np.array([negative_binomial_half(50, 2, forced_ones(s, 3)) for s in range(3000)])
    assert x[:, 0].min() >= 192
    assert _chi2_counts(x[:, 0] - 192, stats.nbinom(50, 0.5)) > P_MIN
    assert _chi2_counts(x[:, 1], stats.nbinom(50, 0.5)) > P_MIN


def test_negative_binomial_power_against_wrong_n() -> None:
    x = negative_binomial_half(50, 200_000, np.random.default_rng(7))
    assert stats.ks_2samp(x, stats.nbinom(49, 0.5).rvs(200_000, random_state=1)).pvalue < P_MIN


# --- full-precision uniform and Bernoulli -------------------------------------------------------


def test_uniform_exponents_are_geometric() -> None:
    # P(u < 2^-j) = 2^-j: the binade index j = floor(-log2 u) has P(j) = 2^-(j+1)
    u = uniform_full_precision(np.random.default_rng(2), 1_000_000)
    assert np.all((u >= 0.0) & (u < 1.0))
    j = np.minimum(np.floor(-np.log2(u)).astype(np.int64), 30)
    counts = np.bincount(j, minlength=31)
    probs = np.array([2.0 ** -(k + 1) for k in range(30)] + [2.0**-30])
    assert stats.chisquare(counts, probs * u.size).pvalue > P_MIN
    # within a binade the mantissa is uniform: top 4 bits of the significand
    m, _ = np.frexp(u)
    top = np.floor((m * 2 - 1) * 16).astype(np.int64)
    assert stats.chisquare(np.bincount(top, minlength=16)).pvalue > P_MIN


def test_uniform_reaches_deep_binades_and_subnormals() -> None:
    # conditioned on 5 all-ones words (J >= 320): u < 2^-320, still a normal double
    u = uniform_full_precision(forced_ones(3, 5), 1)[0]
    assert 0.0 <= u < 2.0**-320
    # conditioned on 16 all-ones words (J >= 1024): u is a multiple of 2^-1074 below 2^-1022
    u = uniform_full_precision(forced_ones(3, 16), 1)[0]
    assert 0.0 <= u < 2.0**-1022
    assert float(np.ldexp(u, 1074)).is_integer()


@pytest.mark.parametrize("p", [0.3, 0.5, 1e-3, 2.0**-10 * 1.75])
def test_bernoulli_double_frequency(p: float) -> None:
    hits = int(bernoulli_double(np.full(1_000_000, p), np.random.default_rng(4)).sum())
    assert stats.binomtest(hits, 1_000_000, p).pvalue > P_MIN


def test_bernoulli_double_endpoints_and_range() -> None:
    rng = np.random.default_rng(0)
    assert not bernoulli_double(np.zeros(10_000), rng).any()
    assert bernoulli_double(np.ones(10_000), rng).all()
    with pytest.raises(InvalidParameterError):
        bernoulli_double([1.5], rng)


@pytest.mark.parametrize("k", range(1, 71))
def test_bernoulli_pow2_counts(k: int) -> None:
    n = 1_000_000
    hits = int(bernoulli_pow2_array(k, n, np.random.default_rng(1000 + k)).sum())
    assert stats.binomtest(hits, n, 2.0**-k).pvalue > P_MIN


def test_bernoulli_pow2_scalar_frequency_and_conditioning() -> None:
    rng = np.random.default_rng(9)
    hits = sum(bernoulli_pow2(3, rng) for _ in range(20_000))
    assert stats.binomtest(hits, 20_000, 1 / 8).pvalue > P_MIN
    # k = 64 succeeds exactly when the first word is all ones; k = 67 needs 3 more ones
    assert bernoulli_pow2(64, pcg64_starting_with(ONES, 0))
    assert bernoulli_pow2(67, pcg64_starting_with(ONES, 0b0111))
    assert not bernoulli_pow2(68, pcg64_starting_with(ONES, 0b0111))
    # a huge k stops at the first word that is not all ones (expected O(1) cost)
    assert not bernoulli_pow2(10**9, np.random.default_rng(0))
    with pytest.raises(InvalidParameterError):
        bernoulli_pow2(-1, rng)


def test_bernoulli_exp_frequency_above_the_double_range_threshold() -> None:
    log_p = np.full(1_000_000, math.log(0.3))
    hits = int(bernoulli_exp(log_p, np.random.default_rng(6)).sum())
    assert stats.binomtest(hits, 1_000_000, 0.3).pvalue > P_MIN


@pytest.mark.parametrize("log_p", ["-50", "-700.5", "-800", "-1000", "-500000", "-0.25"])
def test_decomposition_is_exact_to_rounding(log_p: str) -> None:
    lp = Decimal(log_p)
    k, a = decompose_log_probability(lp)
    assert 0.5 <= a <= 1.0 and k >= 0
    # 2^-k a versus exp(log_p), in 60-digit decimals: relative error <= 2^-53
    err = abs(DECIMAL_CONTEXT.ln(Decimal(a)) - k * LN2_DECIMAL - lp)
    assert err <= Decimal(2.0**-53)


def test_decomposition_refuses_positive_and_out_of_range() -> None:
    with pytest.raises(InvalidParameterError):
        decompose_log_probability(Decimal("0.1"))
    with pytest.raises(InvalidParameterError):
        decompose_log_probability(Decimal(-(2.0**51)))


def test_tiny_bernoulli_conditioned_on_its_bits_has_frequency_a() -> None:
    # exp(-800): k = 1154 fair bits must all be ones (19 words), then Bernoulli(a).
    k, a = decompose_log_probability(Decimal(-800))
    words = math.ceil(k / 64)
    assert words == 19
    hits = sum(bernoulli_exp_decimal(Decimal(-800), forced_ones(s, words)) for s in range(2000))
    assert stats.binomtest(hits, 2000, a).pvalue > P_MIN
    # one forced word short: the last chunk is real bits, success needs 2 more ones (p = a / 4)
    hits = sum(bernoulli_exp_decimal(Decimal(-800), forced_ones(s, words - 1)) for s in range(2000))
    assert stats.binomtest(hits, 2000, a / 4).pvalue > P_MIN
    # unconditioned: never (probability 1e-348)
    rng = np.random.default_rng(0)
    assert not any(bernoulli_exp_decimal(Decimal(-800), rng) for _ in range(1000))


def test_bernoulli_exp_routes_tiny_probabilities_through_decimals() -> None:
    assert bernoulli_exp([-np.inf, 0.0], np.random.default_rng(0)).tolist() == [False, True]
    # log_p = -800 < -700 goes through the decimal decomposition: conditioned on its 19 words
    # of fair bits being ones, it succeeds with probability a
    _, a = decompose_log_probability(Decimal(-800))
    hits = sum(bool(bernoulli_exp([-800.0], forced_ones(s, 19))[0]) for s in range(1000))
    assert stats.binomtest(hits, 1000, a).pvalue > P_MIN
    with pytest.raises(InvalidParameterError):
        bernoulli_exp([0.5], np.random.default_rng(0))


# --- unbounded exponential and gamma ------------------------------------------------------------


def test_exponential_unbounded_ks_and_no_cap() -> None:
    e = exponential_unbounded(np.random.default_rng(8), 200_000)
    assert stats.kstest(e, stats.expon().cdf).pvalue > P_MIN
    # G >= 67 when the first word is all ones and the next has 3 trailing ones
    e = exponential_unbounded(pcg64_starting_with(ONES, 0b0111), 1)[0]
    assert 67 * math.log(2) < e <= 68 * math.log(2)


@pytest.mark.parametrize("n", [1, 2, 50, 300, 700])
def test_sum_of_exponentials_ks(n: int) -> None:
    x = sum_of_exponentials(n, 50_000, np.random.default_rng(n))
    assert stats.kstest(x, stats.gamma(a=n).cdf).pvalue > P_MIN


# --- the exp() accuracy the exponential mechanism's bound assumes -------------------------------


def test_numpy_exp_is_far_inside_the_assumed_error() -> None:
    # The bound of mechanisms.exponential assumes |np.exp relative error| <= 2^-40 on [-700, 0].
    # Check np.exp (the same contiguous float64 call the sampler makes) against correctly rounded
    # 60-digit decimal exp: it must be within 2^-48 (a few ulp), far inside 2^-40.
    rng = np.random.default_rng(10)
    z = np.concatenate([-rng.random(3000) * 700.0, -rng.random(3000) * 40.0, -rng.random(1000)])
    e = np.exp(z)
    worst = 0.0
    for zi, ei in zip(z.tolist(), e.tolist(), strict=True):
        ref = DECIMAL_CONTEXT.exp(Decimal(zi))
        worst = max(worst, float(abs(Decimal(ei) - ref) / ref))
    assert worst < 2.0**-48
