"""Empirical check of eps*d-privacy: P[o | w1] <= exp(eps * d(w1, w2)) * P[o | w2] for all o."""

from __future__ import annotations

import numpy as np
import pytest

from authormask.embeddings import Embeddings
from authormask.mechanisms import EarthMoversMechanism

Z = 5.0  # one-sided z = 5  ->  p ~ 3e-7 per comparison: cannot flake with fixed seeds
M = 100_000


def _output_frequencies(mech: EarthMoversMechanism, row: int, seed: int) -> np.ndarray:
    out = mech.perturb_indices(np.full(M, row), random_state=seed)
    return np.bincount(out, minlength=len(mech.embeddings)) / M


def _max_excess(p1: np.ndarray, p2: np.ndarray, bound: float) -> float:
    """Largest (p1 - bound * p2) in units of its standard error (> Z means a violation)."""
    se = np.sqrt(p1 * (1 - p1) / M + bound**2 * p2 * (1 - p2) / M) + 1e-12
    return float(np.max((p1 - bound * p2) / se))


@pytest.fixture(scope="module")
def six_words(glove_20k: Embeddings) -> Embeddings:
    words = ["king", "queen", "prince", "royal", "man", "woman"]
    return Embeddings(
        name="glove-six", source="test", words=tuple(words), vectors=glove_20k.lookup(words)
    )


@pytest.mark.parametrize("epsilon", [0.2, 0.5])
def test_real_embeddings_obey_bound(six_words: Embeddings, epsilon: float) -> None:
    mech = EarthMoversMechanism(six_words, epsilon=epsilon)
    d = float(np.linalg.norm(six_words.vectors[0] - six_words.vectors[1]))
    p1 = _output_frequencies(mech, 0, seed=1)
    p2 = _output_frequencies(mech, 1, seed=2)
    bound = np.exp(epsilon * d)
    assert _max_excess(p1, p2, bound) < Z
    assert _max_excess(p2, p1, bound) < Z
    assert p1[0] > p2[0]  # the input itself is favoured: the mechanism is not ignoring its input


@pytest.fixture(scope="module")
def line_vocab() -> Embeddings:
    """Words on a line in R^1: the 1-D Laplace ratio is exactly exp(eps*d) beyond both inputs."""
    return Embeddings(
        name="line",
        source="test",
        words=("a", "b", "c", "d", "e"),
        vectors=np.array([[0.0], [1.0], [2.0], [3.0], [4.0]], dtype=np.float32),
    )


def test_bound_is_tight_in_one_dimension_and_test_has_power(line_vocab: Embeddings) -> None:
    epsilon = 0.7
    mech = EarthMoversMechanism(line_vocab, epsilon=epsilon)
    p1 = _output_frequencies(mech, 0, seed=3)  # input "a" at 0
    p2 = _output_frequencies(mech, 1, seed=4)  # input "b" at 1
    true_bound = np.exp(epsilon * 1.0)
    assert _max_excess(p1, p2, true_bound) < Z
    assert _max_excess(p2, p1, true_bound) < Z
    # A claimed epsilon half as large is violated (output "a"), so the check can fail.
    assert _max_excess(p1, p2, np.exp(epsilon / 2)) > Z
