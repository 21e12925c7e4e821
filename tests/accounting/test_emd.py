from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial.distance import cdist

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

    def one_minus_series(k: int) -> float:  # 1 - exp(-x) e_{k-1}(x), written out
        return 1 - math.exp(-x) * sum(x**i / math.factorial(i) for i in range(k))

    ub = utility_bound(epsilon=eps, length=n_len, dimension=dim, delta=delta)
    assert ub.as_printed == pytest.approx(one_minus_series(dim), rel=1e-12)
    assert ub.bound == pytest.approx(one_minus_series(n_len * dim), rel=1e-12)
    assert not ub.as_printed_valid
    single = utility_bound(epsilon=eps, length=1, dimension=dim, delta=delta)
    assert single.as_printed_valid and single.bound == single.as_printed


def test_theorem_3_as_printed_overstates_the_probability_for_n_above_1() -> None:
    """Monte Carlo of P[E(b, Z) <= delta] for a bag of N=2 far-apart vectors in R^2 (so the
    optimal matching is the identity): the printed bound exceeds the true probability, the
    corrected bound does not."""
    eps, n_len, dim, delta = 1.0, 2, 2, 0.35  # x = 0.7 <= n/e: inside the printed range
    rng = np.random.default_rng(4)
    bag = np.eye(n_len, dim) * 1000.0
    m = 200_000
    g = rng.standard_normal((m, n_len, dim))
    dirs = g / np.linalg.norm(g, axis=2, keepdims=True)
    radii = rng.gamma(dim, 1 / eps, size=(m, n_len, 1))
    noisy = bag[None] + radii * dirs
    # identity matching is optimal: noise radii are tiny next to the 1000-apart vectors
    emd = np.linalg.norm(noisy - bag[None], axis=2).mean(axis=1)
    p_hat = float(np.mean(emd <= delta))
    se = math.sqrt(p_hat * (1 - p_hat) / m)
    ub = utility_bound(epsilon=eps, length=n_len, dimension=dim, delta=delta)
    assert ub.as_printed > p_hat + 10 * se  # the printed Theorem 3 is not a lower bound
    assert abs(p_hat - ub.bound) < 5 * se  # the corrected one is exact here
    check = earth_movers_distance(bag, noisy[0])
    assert check.distance == pytest.approx(float(emd[0]), rel=1e-9)


def test_pot_is_imported_once_with_its_numpy_backend_only() -> None:
    """POT without torch (2 s and 200 MB of its import), its switches restored after, and
    threads that first use it at once all get the whole module (one saw a module still being
    initialised: ``'ot' has no attribute 'emd2'``)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        """
        import os, sys, threading
        os.environ["POT_BACKEND_DISABLE_JAX"] = "0"  # the user's own: left as it is
        from authormask.accounting.emd import pot
        results, errors = [], []
        def use():
            try:
                results.append(float(pot().emd2([1.0], [1.0], [[0.0]])))
            except Exception as exc:
                errors.append(repr(exc))
        threads = [threading.Thread(target=use) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(len(results), errors, "torch" in sys.modules)
        print(sorted((k, v) for k, v in os.environ.items() if k.startswith("POT_")))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    used, switches = done.stdout.strip().splitlines()
    assert used == "8 [] False"
    assert switches == "[('POT_BACKEND_DISABLE_JAX', '0')]"
