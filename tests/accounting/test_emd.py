from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial.distance import cdist
from scipy.special import gammainc

from authormask.accounting import (
    earth_movers_distance,
    privacy_multiplier,
    utility_bound,
    word_movers_distance,
)
from authormask.embeddings import Embeddings
from authormask.exceptions import InputError, InvalidParameterError


def _lp_reference(x: np.ndarray, y: np.ndarray) -> float:
    """Definition 3 solved directly as the LP of eqs. (1)-(2) with scipy's HiGHS."""
    k, l_ = len(x), len(y)
    cost = cdist(x, y).ravel()
    a_eq = []
    b_eq = []
    for i in range(k):
        row = np.zeros(k * l_)
        row[i * l_ : (i + 1) * l_] = 1
        a_eq.append(row)
        b_eq.append(1 / k)
    for j in range(l_):
        row = np.zeros(k * l_)
        row[j::l_] = 1
        a_eq.append(row)
        b_eq.append(1 / l_)
    res = linprog(cost, A_eq=np.array(a_eq), b_eq=b_eq, bounds=(0, None), method="highs")
    return float(res.fun)


def test_equal_sizes_use_assignment_and_match_lp_and_permutations() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    res = earth_movers_distance(x, y)
    assert res.method == "assignment"
    brute = min(
        sum(np.linalg.norm(x[i] - y[p[i]]) for i in range(5)) / 5
        for p in itertools.permutations(range(5))
    )
    assert res.distance == pytest.approx(brute, rel=1e-12)
    assert res.distance == pytest.approx(_lp_reference(x, y), rel=1e-7)


def test_unequal_sizes_use_transport_and_match_lp() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(7, 3))
    res = earth_movers_distance(x, y)
    assert res.method == "transport"
    assert res.distance == pytest.approx(_lp_reference(x, y), rel=1e-7)


def test_word_movers_distance_is_a_metric_on_equal_bags(glove_20k: Embeddings) -> None:
    b1 = ["president", "meets", "press", "chicago"]
    b2 = ["chief", "speaks", "media", "illinois"]
    b3 = ["chef", "breaks", "cooking", "record"]
    d12 = word_movers_distance(b1, b2, glove_20k).distance
    d13 = word_movers_distance(b1, b3, glove_20k).distance
    d23 = word_movers_distance(b2, b3, glove_20k).distance
    assert word_movers_distance(b1, b1, glove_20k).distance == 0.0
    assert d12 <= d13 + d23 + 1e-9
    assert d12 < d13  # the paper's observation (section 2): b1, b2 are the closer pair


def test_missing_words_and_empty_bags(glove_20k: Embeddings) -> None:
    with pytest.raises(InputError, match="without a vector"):
        word_movers_distance(["zxqvbnm"], ["press"], glove_20k)
    with pytest.raises(InputError, match="non-empty"):
        earth_movers_distance(np.zeros((0, 2)), np.zeros((1, 2)))


def test_paper_worked_multipliers() -> None:
    assert round(privacy_multiplier(epsilon=1 / 16, length=4, distance=2.816), 2) == 2.02
    assert round(privacy_multiplier(epsilon=1 / 32, length=4, distance=2.816), 2) == 1.42
    assert privacy_multiplier(epsilon=1.0, length=3, distance=0.0) == 1.0
    with pytest.raises(InvalidParameterError):
        privacy_multiplier(epsilon=1.0, length=3, distance=-1.0)


def test_utility_bound_matches_series_definition() -> None:
    eps, n_len, dim, delta = 0.5, 2, 6, 1.3
    x = eps * n_len * delta
    series = 1 - math.exp(-x) * sum(x**i / math.factorial(i) for i in range(dim))
    ub = utility_bound(epsilon=eps, length=n_len, dimension=dim, delta=delta)
    assert ub.paper_bound == pytest.approx(series, rel=1e-12)
    assert ub.manhattan_bound == pytest.approx(gammainc(n_len * dim, x))
    assert ub.in_stated_range == (x <= dim / math.e)


def test_manhattan_bound_is_the_probability_of_z_m_and_a_valid_lower_bound() -> None:
    # Monte Carlo: sum of N independent Gamma(n, 1/eps) radii <= N*delta.
    eps, n_len, dim, delta = 1.0, 3, 4, 1.2
    rng = np.random.default_rng(4)
    radii = rng.gamma(dim, 1 / eps, size=(200_000, n_len)).sum(axis=1)
    p_hat = float(np.mean(radii <= n_len * delta))
    ub = utility_bound(epsilon=eps, length=n_len, dimension=dim, delta=delta)
    se = math.sqrt(p_hat * (1 - p_hat) / 200_000)
    assert abs(p_hat - ub.manhattan_bound) < 5 * se
    # The printed Theorem 3 is larger than P(Z_M) for N > 1 (its proof approximates).
    assert ub.paper_bound > ub.manhattan_bound
