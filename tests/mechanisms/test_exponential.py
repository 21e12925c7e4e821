"""The exponential mechanism: exact probabilities, sampling, privacy ratio, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.exponential import (
    exponential_probabilities,
    sample_exponential,
    sample_rows,
)

P_MIN = 1e-6


def _chi2_p(counts: np.ndarray, probs: np.ndarray) -> float:
    expected = probs * counts.sum()
    keep = expected >= 5
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp).pvalue)


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


def test_samples_match_exact_probabilities_chi_square():
    rng = np.random.default_rng(12)
    ratings = rng.random(40)
    probs = exponential_probabilities(ratings, epsilon=8.0, sensitivity=1.0)
    draws = sample_exponential(
        np.tile(ratings, (200_000, 1)), epsilon=8.0, sensitivity=1.0, random_state=3
    )
    counts = np.bincount(draws, minlength=40)
    assert _chi2_p(counts, probs) > P_MIN


def test_sample_rows_never_picks_zero_probability_outputs():
    probs = np.tile([0.0, 0.5, 0.0, 0.5, 0.0], (50_000, 1))
    draws = sample_rows(probs, random_state=0)
    assert set(np.unique(draws)) == {1, 3}
    # and the two halves are balanced (binomial, p < 1e-6 bound ~ 5.3 sd)
    assert abs((draws == 1).mean() - 0.5) < 5.3 * np.sqrt(0.25 / 50_000)


def test_neighbouring_ratings_change_probabilities_by_at_most_exp_epsilon():
    rng = np.random.default_rng(5)
    eps = 4.0
    for _ in range(200):
        a = rng.random(30)
        b = np.clip(a + rng.uniform(-1, 1, 30), 0.0, 1.0)  # any two inputs: |a - b| <= 1
        pa = exponential_probabilities(a, epsilon=eps, sensitivity=1.0)
        pb = exponential_probabilities(b, epsilon=eps, sensitivity=1.0)
        assert np.max(np.abs(np.log(pa) - np.log(pb))) <= eps + 1e-9


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_rejects_bad_epsilon(bad):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        exponential_probabilities([0.0, 1.0], epsilon=bad, sensitivity=1.0)


@pytest.mark.parametrize("bad", [0.0, -2.0, float("nan")])
def test_rejects_bad_sensitivity(bad):
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        exponential_probabilities([0.0, 1.0], epsilon=1.0, sensitivity=bad)


@pytest.mark.parametrize("ratings", [[0.0, float("nan")], [float("inf"), 0.0], []])
def test_rejects_non_finite_or_empty_ratings(ratings):
    with pytest.raises(InvalidParameterError):
        exponential_probabilities(ratings, epsilon=1.0, sensitivity=1.0)
