"""Theorem 2: radius ~ Gamma(n, 1/eps), direction uniform on the sphere, density bound."""

from __future__ import annotations

import numpy as np
import pytest
from forced_streams import ONES, pcg64_starting_with
from scipy import stats

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.laplace import (
    sample_laplace_radius,
    sample_nd_laplace,
    sample_unit_directions,
)

P_MIN = 1e-6  # fixed seeds + this threshold: the tests cannot flake


@pytest.mark.parametrize(("n", "eps"), [(1, 3.0), (2, 1.0), (50, 10.0), (300, 0.5)])
def test_radius_follows_gamma_n_over_eps(n: int, eps: float) -> None:
    r = sample_laplace_radius(20_000, dimension=n, epsilon=eps, random_state=11)
    p = stats.kstest(r, stats.gamma(a=n, scale=1 / eps).cdf).pvalue
    assert p > P_MIN


def test_radius_test_has_power_against_wrong_shape() -> None:
    r = sample_laplace_radius(20_000, dimension=50, epsilon=10.0, random_state=11)
    p = stats.kstest(r, stats.gamma(a=49, scale=1 / 10.0).cdf).pvalue
    assert p < P_MIN


def test_radius_tail_mass_beyond_a_far_quantile() -> None:
    # P(r > q) for the 1 - 1e-4 quantile: 2e6 draws, binomial count of exceedances
    n, eps, tail = 50, 10.0, 1e-4
    q = stats.gamma(a=n, scale=1 / eps).isf(tail)
    r = sample_laplace_radius(2_000_000, dimension=n, epsilon=eps, random_state=12)
    hits = int((r > q).sum())
    assert stats.binomtest(hits, r.size, tail).pvalue > P_MIN


def test_radius_has_no_cap() -> None:
    # A real PCG64 Generator whose first 64-bit word is all ones and whose second word ends in
    # ...0111: the geometric part counts 64 + 3 ones, so r = (68 ln 2 - log V) / eps with V in
    # [1, 2). An ideal Exp(1) exceeds 64 ln 2 with probability 2^-64; a sampler that stops at one
    # word (or numpy's gamma(1), whose exponential cannot exceed about 7.7 + 53 ln 2 = 44.4)
    # never returns this value.
    r = sample_laplace_radius(
        1, dimension=1, epsilon=1.0, random_state=pcg64_starting_with(ONES, 7)
    )
    assert 67 * np.log(2) < r[0] <= 68 * np.log(2)
    r = sample_laplace_radius(
        1, dimension=1, epsilon=2.0, random_state=pcg64_starting_with(ONES, 7)
    )
    assert 67 * np.log(2) / 2 < r[0] <= 68 * np.log(2) / 2


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_radius_size_validated(bad: object) -> None:
    with pytest.raises(InvalidParameterError, match="size"):
        sample_laplace_radius(bad, dimension=2, epsilon=1.0)  # type: ignore[arg-type]


@pytest.mark.parametrize("n", [2, 3, 50, 300])
def test_direction_is_uniform_on_sphere(n: int) -> None:
    u = sample_unit_directions(20_000, dimension=n, random_state=5)
    assert np.allclose(np.linalg.norm(u, axis=1), 1.0)
    # For u uniform on S^{n-1} and any fixed unit axis e, (1 + u.e)/2 ~ Beta((n-1)/2, (n-1)/2).
    axes = np.random.default_rng(99).standard_normal((3, n))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    for e in axes:
        t = (1 + u @ e) / 2
        p = stats.kstest(t, stats.beta((n - 1) / 2, (n - 1) / 2).cdf).pvalue
        assert p > P_MIN
    # Octant/sign balance: chi-square on the signs of the first coordinate pair.
    cells = (u[:, 0] > 0).astype(int) * 2 + (u[:, 1] > 0).astype(int)
    counts = np.bincount(cells, minlength=4)
    assert stats.chisquare(counts).pvalue > P_MIN


def test_direction_test_has_power_against_non_uniform() -> None:
    # Normalised *uniform-cube* vectors are not uniform on the sphere: the test must notice.
    g = np.random.default_rng(5).uniform(-1, 1, (20_000, 3))
    u = g / np.linalg.norm(g, axis=1, keepdims=True)
    e = np.ones(3) / np.sqrt(3)
    p = stats.kstest((1 + u @ e) / 2, stats.beta(1, 1).cdf).pvalue
    assert p < P_MIN


def test_noise_norm_and_centering() -> None:
    x = np.tile(np.arange(5.0), (30_000, 1))
    z = sample_nd_laplace(x, epsilon=2.0, random_state=3)
    noise = z - x
    p = stats.kstest(np.linalg.norm(noise, axis=1), stats.gamma(a=5, scale=0.5).cdf).pvalue
    assert p > P_MIN
    # mean zero: each coordinate's sample mean within 5 standard errors
    se = noise.std(axis=0) / np.sqrt(len(noise))
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * se)


def test_seed_reproducible_and_unseeded_differs() -> None:
    a = sample_nd_laplace(np.zeros((4, 3)), epsilon=1.0, random_state=42)
    b = sample_nd_laplace(np.zeros((4, 3)), epsilon=1.0, random_state=42)
    c = sample_nd_laplace(np.zeros((4, 3)), epsilon=1.0)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "x", None, True])
def test_bad_epsilon_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="epsilon must be"):
        sample_nd_laplace(np.zeros((1, 2)), epsilon=bad)  # type: ignore[arg-type]
