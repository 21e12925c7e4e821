"""The exponential mechanism: ideal probabilities, the exact sampler and its proven bound."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from forced_streams import ForcedOnes
from scipy import stats

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._exact import DECIMAL_CONTEXT
from authormask.mechanisms.exponential import (
    EXACT_SAMPLER_GAMMA,
    check_exponential_parameters,
    exponential_privacy_slack,
    exponential_probabilities,
    implemented_probabilities,
    implemented_weights,
    sample_exponential,
    sample_uniform_index,
)

P_MIN = 1e-6

LN2 = math.log(2.0)


def _chi2_p(counts: np.ndarray, probs: np.ndarray) -> float:
    expected = probs * counts.sum()
    keep = expected >= 5
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp).pvalue)


def _ideal_log_probabilities(ratings: list[float], epsilon: float, sensitivity: float) -> list[Any]:
    """log p(v) of Eq. 6 in 60-digit decimals (exact values of the double inputs)."""
    ctx = DECIMAL_CONTEXT
    c = ctx.divide(Decimal(epsilon), ctx.multiply(Decimal(2), Decimal(sensitivity)))
    top = max(ratings)
    z = [ctx.multiply(c, ctx.subtract(Decimal(r), Decimal(top))) for r in ratings]
    log_total = ctx.ln(sum((ctx.exp(v) for v in z), Decimal(0)))
    return [ctx.subtract(v, log_total) for v in z]


def _implemented_log_probabilities(
    ratings: list[float], epsilon: float, sensitivity: float
) -> list[Decimal]:
    """log of the realised probabilities, from the exact weights, in 60-digit decimals."""
    ctx = DECIMAL_CONTEXT
    weights = implemented_weights(ratings, epsilon=epsilon, sensitivity=sensitivity)
    w = [
        ctx.multiply(ctx.multiply(Decimal(q), Decimal(a)), ctx.power(Decimal(2), -k))
        for q, a, k in weights
    ]
    log_total = ctx.ln(sum(w, Decimal(0)))
    return [ctx.subtract(ctx.ln(v), log_total) for v in w]


def _max_log_ratio(ratings: list[float], epsilon: float, sensitivity: float) -> float:
    impl = _implemented_log_probabilities(ratings, epsilon, sensitivity)
    ideal = _ideal_log_probabilities(ratings, epsilon, sensitivity)
    return max(float(abs(p - q)) for p, q in zip(impl, ideal, strict=True))


def _old_float_sampler_implied(probabilities: np.ndarray) -> list[Fraction]:
    """Exact output law of the textbook sampler removed from authormask, for one row.

    It drew ``u = U * cdf[-1]`` with ``U = k 2^-53`` (numpy's ``random()``) and returned
    ``#(cdf <= u)``; ``u`` is monotone in ``k``, so each output's set of ``k`` is an interval,
    found by binary search.
    """
    cdf = np.cumsum(probabilities)
    total = cdf[-1]

    def out(k: int) -> int:
        u = (k * 2.0**-53) * total
        return min(int((cdf <= u).sum()), len(cdf) - 1)

    def first_k_with_output_at_least(v: int) -> int:
        lo, hi = 0, 2**53  # smallest k with out(k) >= v (2^53 if none)
        while lo < hi:
            mid = (lo + hi) // 2
            if out(mid) >= v:
                hi = mid
            else:
                lo = mid + 1
        return lo

    bounds = [first_k_with_output_at_least(v) for v in range(len(cdf))] + [2**53]
    return [Fraction(bounds[v + 1] - bounds[v], 2**53) for v in range(len(cdf))]


def _old_float_sampler(ratings: np.ndarray, epsilon: float, rng: np.random.Generator) -> int:
    probs = exponential_probabilities(ratings, epsilon=epsilon, sensitivity=1.0)
    cdf = np.cumsum(probs)
    u = rng.random() * cdf[-1]
    return min(int((cdf <= u).sum()), len(cdf) - 1)


class Steered(ForcedOnes):
    """A numpy Generator (PCG64) steered towards the *least likely* end of every draw.

    * the first proposal draw ``integers(0, high_array)`` returns ``high - 1`` (the last unit of
      the cumulative weight: the last output), later ones are real;
    * the first ``n_forced`` 64-bit fair words are all ones (Bernoulli(2^-k) succeeds, and a
      full-precision uniform lands below ``2^-64``);
    * ``random()`` returns the largest double below 1, the value most favourable to the last
      output under an inverse-CDF sampler.
    """

    steer_proposal = True

    def integers(self, low: Any, high: Any = None, size: Any = None, **kw: Any) -> Any:
        if self.steer_proposal and isinstance(high, np.ndarray):
            self.steer_proposal = False
            return high - 1
        return super().integers(low, high, size=size, **kw)

    def random(self, *args: Any, **kw: Any) -> Any:
        return 1.0 - 2.0**-53


def steered(seed: int, n_forced: int, *, steer_proposal: bool = True) -> Steered:
    g = Steered(np.random.PCG64(seed))
    g.n_forced = n_forced
    g.steer_proposal = steer_proposal
    return g


# --- ideal probabilities ------------------------------------------------------------------------


def test_probabilities_follow_the_definition():
    ratings = np.array([0.0, 0.25, 0.5, 1.0])
    eps, delta = 3.0, 1.0
    # Eq. 4 written out directly: exp(eps * rho / (2 delta)) / sum
    w = np.exp(eps * ratings / (2 * delta))
    assert np.allclose(
        exponential_probabilities(ratings, epsilon=eps, sensitivity=delta), w / w.sum(), rtol=1e-12
    )


def test_log_space_handles_huge_ratings():
    p = exponential_probabilities([1e6, 1e6 - 1.0, -1e6], epsilon=2.0, sensitivity=1.0)
    assert np.all(np.isfinite(p))
    assert p[0] / p[1] == pytest.approx(np.e)
    assert p[2] == 0.0


def test_neighbouring_ratings_change_probabilities_by_at_most_exp_epsilon():
    rng = np.random.default_rng(5)
    eps = 4.0
    for _ in range(200):
        a = rng.random(30)
        b = np.clip(a + rng.uniform(-1, 1, 30), 0.0, 1.0)  # any two inputs: |a - b| <= 1
        pa = exponential_probabilities(a, epsilon=eps, sensitivity=1.0)
        pb = exponential_probabilities(b, epsilon=eps, sensitivity=1.0)
        assert np.max(np.abs(np.log(pa) - np.log(pb))) <= eps + 1e-9


# --- the sampler follows the ideal law ----------------------------------------------------------


def test_samples_match_exact_probabilities_chi_square():
    rng = np.random.default_rng(12)
    ratings = rng.random(40)
    probs = exponential_probabilities(ratings, epsilon=8.0, sensitivity=1.0)
    draws = sample_exponential(
        np.tile(ratings, (200_000, 1)), epsilon=8.0, sensitivity=1.0, random_state=3
    )
    counts = np.bincount(draws, minlength=40)
    assert _chi2_p(counts, probs) > P_MIN


@pytest.mark.parametrize(("eps", "k"), [(100.0, 60), (30.0, 3000)])
def test_chi_square_peaked_rows_and_large_k(eps: float, k: int) -> None:
    # peaked rows (many outputs in the far tail) and the binary-search path (K > 1024)
    rng = np.random.default_rng(13)
    ratings = rng.random(k)
    probs = exponential_probabilities(ratings, epsilon=eps, sensitivity=1.0)
    n = 100_000 if k <= 1024 else 20_000
    draws = sample_exponential(
        np.tile(ratings, (n, 1)), epsilon=eps, sensitivity=1.0, random_state=4
    )
    assert _chi2_p(np.bincount(draws, minlength=k), probs) > P_MIN


def test_chi_square_test_has_power():
    rng = np.random.default_rng(12)
    ratings = rng.random(40)
    draws = sample_exponential(
        np.tile(ratings, (200_000, 1)), epsilon=8.0, sensitivity=1.0, random_state=3
    )
    wrong = exponential_probabilities(ratings, epsilon=8.4, sensitivity=1.0)
    assert _chi2_p(np.bincount(draws, minlength=40), wrong) < P_MIN


def test_rows_are_independent_draws_of_their_own_row():
    a = np.array([0.0, 1.0, 0.5])
    b = np.array([1.0, 0.0, 0.25])
    rows = np.tile(np.stack([a, b]), (50_000, 1))
    draws = sample_exponential(rows, epsilon=3.0, sensitivity=1.0, random_state=8)
    for start, r in ((0, a), (1, b)):
        p = exponential_probabilities(r, epsilon=3.0, sensitivity=1.0)
        assert _chi2_p(np.bincount(draws[start::2], minlength=3), p) > P_MIN
    # consecutive draws of the same row are not correlated (2 x 3 contingency)
    pair = draws[0::2][:-1] * 3 + draws[0::2][1:]
    table = np.bincount(pair, minlength=9).reshape(3, 3)
    assert stats.chi2_contingency(table).pvalue > P_MIN


def test_vector_input_seed_and_shape():
    r = [0.1, 0.9, 0.4]
    a = sample_exponential(r, epsilon=1.0, sensitivity=1.0, random_state=5)
    b = sample_exponential(r, epsilon=1.0, sensitivity=1.0, random_state=5)
    assert a.shape == (1,) and a.dtype == np.int64 and np.array_equal(a, b)
    assert sample_exponential(np.zeros((0, 3)), epsilon=1.0, sensitivity=1.0).shape == (0,)


# --- no unreachable outputs, and the proven bound -----------------------------------------------


@pytest.mark.parametrize(
    ("ratings", "eps"),
    [
        ([0.0, -69.0], 2.0),  # ideal p ~ 1e-30
        ([0.0, -60 * LN2], 2.0),  # ideal p ~ 2^-60
        ([0.0, -1000.0], 2.0),  # ideal p ~ exp(-1000)
        ([0.0, -700.0, -693.0, -694.0, -1.0], 2.0),  # both sides of the decimal threshold
        ([1.0, 0.999, 0.5, 0.0], 1e6),  # epsilon 1e6: exp(-500), exp(-2.5e5), exp(-5e5)
        ([0.3, 0.3, 0.3], 5.0),  # ties
        ([1.0], 5.0),
    ],
)
def test_implemented_probabilities_within_gamma_of_ideal(ratings: list[float], eps: float) -> None:
    weights = implemented_weights(ratings, epsilon=eps, sensitivity=1.0)
    assert all(q >= 1 and a > 0 for q, a, _ in weights)  # every output reachable
    if max(k for _, _, k in weights) < 5000:  # exact fractions stay cheap
        impl = implemented_probabilities(ratings, epsilon=eps, sensitivity=1.0)
        assert sum(impl) == 1 and all(p > 0 for p in impl)
    assert _max_log_ratio(ratings, eps, 1.0) <= EXACT_SAMPLER_GAMMA


def test_implemented_probabilities_within_gamma_on_random_rows() -> None:
    rng = np.random.default_rng(21)
    for eps in (0.5, 10.0, 100.0, 1e4, 1e6):
        for _ in range(4):
            ratings = rng.random(12).tolist()
            assert _max_log_ratio(ratings, eps, 1.0) <= EXACT_SAMPLER_GAMMA
    for _ in range(4):  # cosine-like ratings in [-1, 1], sensitivity 2
        ratings = rng.uniform(-1, 1, 12).tolist()
        assert _max_log_ratio(ratings, 1e3, 2.0) <= EXACT_SAMPLER_GAMMA


def test_old_float_sampler_has_unreachable_outputs_the_new_one_does_not() -> None:
    ratings = [0.0, -60 * LN2]  # ideal p(1) ~ 2^-60
    ideal = exponential_probabilities(ratings, epsilon=2.0, sensitivity=1.0)
    old = _old_float_sampler_implied(ideal)
    assert old[1] == 0  # no uniform double reaches output 1: an infinite privacy loss
    new = implemented_probabilities(ratings, epsilon=2.0, sensitivity=1.0)
    assert new[1] > 0
    assert abs(math.log(float(new[1])) - (-60 * LN2)) < 1e-12
    # a 2^-40 output is reached by the old sampler, but with the wrong probability (grid 2^-53)
    ratings = [0.0, -40 * LN2 - 1e-3]
    ideal = exponential_probabilities(ratings, epsilon=2.0, sensitivity=1.0)
    old_ratio = float(_old_float_sampler_implied(ideal)[1]) / ideal[1]
    assert abs(math.log(old_ratio)) > 1e-6
    assert _max_log_ratio(ratings, 2.0, 1.0) <= EXACT_SAMPLER_GAMMA


def test_steered_stream_reaches_the_tiny_output_old_sampler_never_does() -> None:
    ratings = np.array([[0.0, -60 * LN2]])  # ideal p(1) = 2^-60 / (1 + 2^-60)
    # old inverse CDF, with the largest uniform double below 1: still output 0
    assert _old_float_sampler(ratings[0], 2.0, steered(0, 0)) == 0
    # exact sampler: proposal steered to output 1 (prob 1 / 2^52), acceptance a = 2^-8 succeeds
    # because the full-precision uniform's first 64 bits are ones (U < 2^-64): output 1
    assert (
        sample_exponential(ratings, epsilon=2.0, sensitivity=1.0, random_state=steered(0, 1))[0]
        == 1
    )
    # the decimal path: exp(-800) needs 1102 ones (18 words) and then U < a (19th word of ones)
    tiny = np.array([[0.0, -800.0]])
    assert (
        sample_exponential(tiny, epsilon=2.0, sensitivity=1.0, random_state=steered(0, 40))[0] == 1
    )
    # ... with one word too few forced, the 18th word is real: 14 more ones needed (2^-14)
    hits = sum(
        int(sample_exponential(tiny, epsilon=2.0, sensitivity=1.0, random_state=steered(s, 17))[0])
        for s in range(2000)
    )
    assert stats.binomtest(hits, 2000, 2.0**-14).pvalue > P_MIN


def test_conditioned_on_the_proposal_acceptance_has_the_right_frequency() -> None:
    # output 1 has ideal p ~ 0.3 * 2^-52 (old sampler: unreachable); conditioned on the proposal
    # (probability 1 / (2^52 + 2)), it is accepted with probability a = 0.3 (rounded once)
    ratings = np.array([[0.0, math.log(0.3) - 52 * LN2]])
    a = float(np.ldexp(np.exp(ratings[0, 1:]), 52)[0])  # x_1 = 2^52 exp(z_1), q_1 = 1
    assert a == pytest.approx(0.3, rel=1e-9)
    impl = implemented_probabilities(ratings[0].tolist(), epsilon=2.0, sensitivity=1.0)
    # realised weights: q_1 a_1 = a and q_0 a_0 = (2^52 + 1) fl(2^52 / (2^52 + 1)) = 2^52 - 2^-52
    assert impl[1] / impl[0] == Fraction(a) / (2**52 - Fraction(1, 2**52))
    n = 3000
    hits = sum(
        int(
            sample_exponential(ratings, epsilon=2.0, sensitivity=1.0, random_state=steered(s, 0))[0]
        )
        for s in range(n)
    )
    assert stats.binomtest(hits, n, 0.3).pvalue > P_MIN


def test_conditioned_tail_frequency_on_the_decimal_path() -> None:
    # output 1 at -800 nats: alpha = 2^52 e^-800 = 2^-1102 * a; conditioned on the proposal and
    # on its 1102 fair bits (18 forced words), output 1 appears with frequency a
    from authormask.mechanisms._exact import decompose_log_probability

    k, a = decompose_log_probability(Decimal(-800) + 52 * DECIMAL_CONTEXT.ln(Decimal(2)))
    assert math.ceil(k / 64) == 18
    n = 1500
    hits = sum(
        int(
            sample_exponential(
                np.array([[0.0, -800.0]]), epsilon=2.0, sensitivity=1.0, random_state=steered(s, 18)
            )[0]
        )
        for s in range(n)
    )
    assert stats.binomtest(hits, n, a).pvalue > P_MIN


# --- the sparse path (a low band of outputs shares one proposal weight) -------------------------


@pytest.fixture()
def sparse_from_256(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows of 256 outputs or more may take the sparse path (from 2,048 otherwise, where it is
    the faster one): which path a row takes changes the speed only, so small rows test it."""
    from authormask.mechanisms import exponential as em

    monkeypatch.setattr(em, "_SPARSE_MIN_K", 256)


def _softmax_row(k: int, seed: int, spread: float = 3.0) -> np.ndarray:
    """A model-like rating row: the softmax of normal logits (most outputs near 0)."""
    logits = np.random.default_rng(seed).normal(0.0, spread, k)
    p = np.exp(logits - logits.max())
    return np.asarray(p / p.sum())


def _takes_sparse_path(row: np.ndarray, eps: float) -> bool:
    from authormask.mechanisms import exponential as em

    bottom = np.array([row.min()])
    tau = em._band_top(bottom, eps / 2.0)
    split = em._sparse_rows(row[None, :], tau, bottom, eps / 2.0)
    return split is not None and bool(split[0][0])


def test_model_sized_rows_take_the_sparse_path_and_small_ones_the_dense_path() -> None:
    assert _takes_sparse_path(_softmax_row(20_000, seed=0), 30.0)  # ER-AE's output vocabulary
    assert not _takes_sparse_path(_softmax_row(400, seed=0), 30.0)  # the dense path is faster
    assert not _takes_sparse_path(np.random.default_rng(0).random(20_000), 30.0)  # no low band


@pytest.mark.parametrize(
    ("eps", "k", "spread"), [(30.0, 300, 3.0), (30.0, 3000, 3.0), (1e3, 2000, 6.0)]
)
def test_sparse_path_samples_the_exponential_mechanism(
    eps: float, k: int, spread: float, sparse_from_256: None
) -> None:
    row = _softmax_row(k, seed=int(eps) + k, spread=spread)
    assert _takes_sparse_path(row, eps)
    n = 200_000 if k <= 1024 else 20_000
    draws = sample_exponential(np.tile(row, (n, 1)), epsilon=eps, sensitivity=1.0, random_state=6)
    counts = np.bincount(draws, minlength=k)
    assert _chi2_p(counts, exponential_probabilities(row, epsilon=eps, sensitivity=1.0)) > P_MIN
    # ... and the test has power: a 5% larger epsilon is told apart
    wrong = exponential_probabilities(row, epsilon=eps * 1.05, sensitivity=1.0)
    if eps == 30.0 and k == 300:
        assert _chi2_p(counts, wrong) < P_MIN


@pytest.mark.parametrize("eps", [0.5, 30.0, 1e4, 1e6])
def test_sparse_path_realised_probabilities_within_gamma_of_ideal(
    eps: float, sparse_from_256: None
) -> None:
    for seed in range(3):
        row = _softmax_row(300, seed=seed, spread=2.0 + seed)
        row[seed] = 0.0  # a zero rating: tiny weights at large epsilon
        weights = implemented_weights(row.tolist(), epsilon=eps, sensitivity=1.0)
        assert all(q >= 1 and 0 < a <= 1 for q, a, _ in weights)  # proper acceptances
        if _takes_sparse_path(row, eps):  # at least 7/8 of the outputs share the band's weight
            shared = max(np.unique([q for q, _, _ in weights], return_counts=True)[1])
            assert shared * 8 >= 7 * len(weights)
        assert _max_log_ratio(row.tolist(), eps, 1.0) <= EXACT_SAMPLER_GAMMA
    flat = [0.25] * 300  # every output in the band: one shared weight, uniform law
    weights = implemented_weights(flat, epsilon=30.0, sensitivity=1.0)
    assert len({q for q, _, _ in weights}) == 1 and len({a for _, a, _ in weights}) == 1
    assert _max_log_ratio(flat, 30.0, 1.0) <= EXACT_SAMPLER_GAMMA


def test_sparse_and_dense_rows_of_one_block_each_follow_their_own_law(
    sparse_from_256: None,
) -> None:
    sparse_row = _softmax_row(400, seed=3)
    dense_row = np.random.default_rng(4).random(400)  # most outputs above any band
    assert _takes_sparse_path(sparse_row, 20.0) and not _takes_sparse_path(dense_row, 20.0)
    rows = np.tile(np.stack([sparse_row, dense_row]), (40_000, 1))
    draws = sample_exponential(rows, epsilon=20.0, sensitivity=1.0, random_state=9)
    for start, r in ((0, sparse_row), (1, dense_row)):
        p = exponential_probabilities(r, epsilon=20.0, sensitivity=1.0)
        assert _chi2_p(np.bincount(draws[start::2], minlength=400), p) > P_MIN


def test_a_block_of_heavy_sparse_rows_draws_each_row_on_its_own(sparse_from_256: None) -> None:
    # 512 rows of K = 256 (one block), each with 32 outputs at the top (weights ~2^52 each): the
    # rows' above-band weights add up past 2^63, which must not mix the rows' draws
    k, n = 256, 512
    rng = np.random.default_rng(5)
    rows = np.zeros((n, k))
    tops = [rng.choice(k, 32, replace=False) for _ in range(n)]
    for i, t in enumerate(tops):
        rows[i, t] = 1.0
    assert _takes_sparse_path(rows[0], 1e3)
    draws = sample_exponential(rows, epsilon=1e3, sensitivity=1.0, random_state=2)
    assert all(d in set(t.tolist()) for d, t in zip(draws, tops, strict=True))
    alone = [
        int(sample_exponential(rows[i], epsilon=1e3, sensitivity=1.0, random_state=2)[0])
        for i in range(4)
    ]
    assert all(a in set(tops[i].tolist()) for i, a in enumerate(alone))
    # and one softmax row repeated in a block: the law still that of the row
    row = _softmax_row(300, seed=1, spread=0.5)
    assert _takes_sparse_path(row, 30.0)
    draws = sample_exponential(
        np.tile(row, (20_000, 1)), epsilon=30.0, sensitivity=1.0, random_state=3
    )
    probs = exponential_probabilities(row, epsilon=30.0, sensitivity=1.0)
    assert _chi2_p(np.bincount(draws, minlength=300), probs) > P_MIN


def test_rows_far_from_zero_and_near_the_float_limit(sparse_from_256: None) -> None:
    # far from 0, bottom + (1/16) / c rounds: the band stays at most 1/8 nat wide and the law holds
    base = _softmax_row(300, seed=8, spread=8.0)
    for offset, eps in ((1e6, 30.0), (3e3, 1e3)):
        row = base + offset
        assert _takes_sparse_path(row, eps)
        assert _max_log_ratio(row.tolist(), eps, 1.0) <= EXACT_SAMPLER_GAMMA
        draws = sample_exponential(
            np.tile(row, (50_000, 1)), epsilon=eps, sensitivity=1.0, random_state=4
        )
        probs = exponential_probabilities(row, epsilon=eps, sensitivity=1.0)
        assert _chi2_p(np.bincount(draws, minlength=300), probs) > P_MIN
    # near the float64 limit the band overflows: the row is drawn on the dense path
    huge = np.full((1, 300), np.finfo(np.float64).max)
    assert not _takes_sparse_path(huge[0], 1e-300)  # c = 1 / (2e300), as below
    got = sample_exponential(huge, epsilon=1.0, sensitivity=1e300, random_state=0)
    assert 0 <= got[0] < 300
    weights = implemented_weights(huge[0].tolist(), epsilon=1.0, sensitivity=1e300)
    assert all(q >= 1 and 0 < a <= 1 for q, a, _ in weights)


def test_steered_band_proposal_reaches_the_last_tiny_output(sparse_from_256: None) -> None:
    # output 0 is the only one above the band; the 299 others sit at -800 nats in the band. The
    # proposal steered to the last unit of the cumulative weight lands on the last band output,
    # which is accepted on the decimal path once its 1102 fair bits (18 forced words) are ones
    ratings = np.zeros((1, 300))
    ratings[0, 0] = 1.0
    assert _takes_sparse_path(ratings[0], 1600.0)
    got = sample_exponential(ratings, epsilon=1600.0, sensitivity=1.0, random_state=steered(0, 40))
    assert got[0] == 299
    unsteered = sample_exponential(
        np.tile(ratings, (2000, 1)), epsilon=1600.0, sensitivity=1.0, random_state=1
    )
    assert np.all(unsteered == 0)  # exp(-800): never drawn without steering


# --- gamma and refusals -------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [10.0, 100.0, 1e3, 1e4, 1e6])
@pytest.mark.parametrize(("rating_range", "sensitivity"), [(1.0, 1.0), (2.0, 2.0)])
def test_slack_is_tiny_for_text_settings(eps: float, rating_range: float, sensitivity: float):
    g = exponential_privacy_slack(
        epsilon=eps, sensitivity=sensitivity, rating_range=rating_range, n_outputs=20_000
    )
    assert 0 < g < 1e-6
    assert g == EXACT_SAMPLER_GAMMA < 1e-11


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 1e13, "rating_range": 1.0}, "2\\^40"),
        ({"epsilon": 1.0, "rating_range": 2.0**41 * 2.1}, "2\\^40"),
        ({"epsilon": 1.0, "n_outputs": 2**26 + 1}, "n_outputs"),
        ({"epsilon": 1e-300, "sensitivity": 1e10}, "normal float64"),
        ({"epsilon": 1.0, "rating_range": float("inf")}, "rating_range"),
        ({"epsilon": 1.0, "rating_range": -1.0}, "rating_range"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": 1.0, "sensitivity": 0.0}, "sensitivity"),
    ],
)
def test_slack_refuses_where_no_bound_is_proven(kwargs: dict[str, Any], match: str) -> None:
    args: dict[str, Any] = {"sensitivity": 1.0, "rating_range": 1.0, "n_outputs": 100} | kwargs
    with pytest.raises(InvalidParameterError, match=match):
        exponential_privacy_slack(**args)
    with pytest.raises(InvalidParameterError, match=match):
        check_exponential_parameters(**args)


def test_sampler_refuses_unrepresentable_spreads_and_broken_ranges() -> None:
    with pytest.raises(InvalidParameterError, match="2\\^40"):
        sample_exponential([[0.0, 1e13]], epsilon=1.0, sensitivity=1.0, random_state=0)
    with pytest.raises(InvalidParameterError, match="2\\^40"):
        sample_exponential([[-1e308, 1e308]], epsilon=1.0, sensitivity=1.0, random_state=0)
    with pytest.raises(InvalidParameterError, match="rating_range"):
        sample_exponential(
            [[0.0, 1.5]], epsilon=1.0, sensitivity=1.0, random_state=0, rating_range=1.0
        )
    # with a declared range the refusal depends on the parameters only
    with pytest.raises(InvalidParameterError, match="2\\^40"):
        sample_exponential(
            [[0.0, 0.0]], epsilon=1e13, sensitivity=1.0, random_state=0, rating_range=1.0
        )
    ok = sample_exponential([[0.0, 1.0]], epsilon=1.0, sensitivity=1.0, rating_range=1.0)
    assert ok.shape == (1,)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_rejects_bad_epsilon(bad):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        exponential_probabilities([0.0, 1.0], epsilon=bad, sensitivity=1.0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        sample_exponential([0.0, 1.0], epsilon=bad, sensitivity=1.0)


@pytest.mark.parametrize("bad", [0.0, -2.0, float("nan")])
def test_rejects_bad_sensitivity(bad):
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        exponential_probabilities([0.0, 1.0], epsilon=1.0, sensitivity=bad)
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        sample_exponential([0.0, 1.0], epsilon=1.0, sensitivity=bad)


@pytest.mark.parametrize("ratings", [[0.0, float("nan")], [float("inf"), 0.0], []])
def test_rejects_non_finite_or_empty_ratings(ratings):
    with pytest.raises(InvalidParameterError):
        exponential_probabilities(ratings, epsilon=1.0, sensitivity=1.0)
    with pytest.raises(InvalidParameterError):
        sample_exponential(ratings, epsilon=1.0, sensitivity=1.0)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_rejects_a_non_finite_rating_in_any_row_and_block(bad):
    """Finiteness is checked on each block's row maxima and minima: a NaN or an infinity
    anywhere (here in the last row of a later block, in the middle of the row) is refused."""
    ratings = np.zeros((40, 20_000))
    ratings[-1, 12_345] = bad
    with pytest.raises(InvalidParameterError, match="finite"):
        sample_exponential(ratings, epsilon=1.0, sensitivity=1.0, random_state=0)
    ratings[-1, 12_345] = 0.5
    assert sample_exponential(ratings, epsilon=1.0, sensitivity=1.0, random_state=0).shape == (40,)


# --- uniform baseline ---------------------------------------------------------------------------


def test_uniform_index_is_uniform_and_validated():
    idx = sample_uniform_index(300_000, 7, random_state=2)
    assert idx.dtype == np.int64 and idx.min() == 0 and idx.max() == 6
    assert stats.chisquare(np.bincount(idx, minlength=7)).pvalue > P_MIN
    assert sample_uniform_index(0, 3, random_state=0).shape == (0,)
    with pytest.raises(InvalidParameterError):
        sample_uniform_index(3, 0)
    with pytest.raises(InvalidParameterError):
        sample_uniform_index(-1, 3)
