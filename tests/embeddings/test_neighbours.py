"""Exact batched snapping equals the paper-style brute-force reference."""

from __future__ import annotations

import numpy as np
import pytest

from authormask.embeddings import Embeddings, NearestWordIndex, brute_force_nearest
from authormask.mechanisms import sample_nd_laplace


@pytest.mark.parametrize("epsilon", [3.0, 10.0, 40.0])
def test_glove_noisy_queries_match_reference(glove_20k: Embeddings, epsilon: float) -> None:
    rng = np.random.default_rng(7)
    rows = rng.integers(0, len(glove_20k), 300)
    z = sample_nd_laplace(glove_20k.vectors[rows], epsilon=epsilon, random_state=8)
    index = NearestWordIndex(glove_20k.vectors, query_block=128, vocab_block=3000)
    assert np.array_equal(index.nearest(z), brute_force_nearest(glove_20k.vectors, z))


def test_spacy_300d_matches_reference(spacy_md: Embeddings) -> None:
    rows = np.random.default_rng(1).integers(0, len(spacy_md), 150)
    z = sample_nd_laplace(spacy_md.vectors[rows], epsilon=2.0, random_state=2)
    index = NearestWordIndex(spacy_md.vectors)
    assert np.array_equal(index.nearest(z), brute_force_nearest(spacy_md.vectors, z))


def test_exact_ties_and_near_ties_resolved_like_reference(glove_20k: Embeddings) -> None:
    v = glove_20k.vectors.astype(np.float64)
    pairs = np.random.default_rng(3).integers(0, 2000, (100, 2))
    mid = (v[pairs[:, 0]] + v[pairs[:, 1]]) / 2  # equidistant from two words (up to rounding)
    nudge = mid + 1e-7 * (v[pairs[:, 1]] - v[pairs[:, 0]])
    queries = np.vstack([mid, nudge, v[:50]])  # also: queries exactly on vocabulary words
    index = NearestWordIndex(glove_20k.vectors)
    got = index.nearest(queries)
    assert np.array_equal(got, brute_force_nearest(glove_20k.vectors, queries))
    assert index.n_fallback > 0  # the float32 screen did defer the near-ties to float64
    assert np.array_equal(got[200:], np.arange(50))


def test_bad_queries_rejected(glove_20k: Embeddings) -> None:
    index = NearestWordIndex(glove_20k.vectors)
    with pytest.raises(ValueError, match="dimension"):
        index.nearest(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        index.nearest(np.full((1, 50), np.nan))


def test_huge_queries_are_snapped_exactly() -> None:
    """A noisy vector too long for the float32 screen (tiny epsilon) is decided in float64 and,
    where float64 cannot tell the candidates apart, with exact rationals: never the first word
    by overflow."""
    from fractions import Fraction

    rng = np.random.default_rng(3)
    vocab = rng.standard_normal((300, 5)).astype(np.float32)
    index = NearestWordIndex(vocab, n_jobs=1)
    for scale in (1e20, 1e45, 1e120, 1e200):
        z = rng.standard_normal((20, 5)) * scale
        got = index.nearest(z)
        w = vocab.astype(np.float64)
        for q, g in zip(z, got, strict=True):
            exact = [
                sum(
                    (Fraction(float(a)) - Fraction(float(b))) ** 2
                    for a, b in zip(row, q, strict=True)
                )
                for row in w
            ]
            assert exact[g] == min(exact)
