"""The integer screen of the nearest-word search (:mod:`authormask.embeddings._fused16`).

It lists candidates only; the search certifies them with a proven bound on how far a word's
approximate score can be from its exact score. These tests check that bound on every word of
real vocabularies (computed independently, in float64 from the float32 vectors), that the
integer products are exact at the largest coordinates allowed, that the kernel lists the
smallest approximate scores, and that the search answers what the float32 screen alone
answers while certifying nearly every query itself.
"""

from __future__ import annotations

from typing import Any

import llvmlite.binding as ll
import numpy as np
import pytest

from authormask.embeddings import Embeddings, NearestWordIndex, brute_force_nearest
from authormask.mechanisms import sample_nd_laplace

AVX2 = bool(ll.get_host_cpu_features().get("avx2"))
pytestmark = pytest.mark.skipif(not AVX2, reason="the integer screen needs AVX2")


def _fused16() -> Any:
    from authormask.embeddings import _fused16

    return _fused16


def _scores(index: NearestWordIndex, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every word's approximate score under the integer screen, and each query's scale."""
    f16 = _fused16()
    words = index._integer_words()
    assert words is not None
    y, s_q = f16.quantise_queries(z, words.panels.shape[1])
    scale = np.zeros(y.shape[0], dtype=np.float32)
    scale[: z.shape[0]] = s_q * words.scale
    top = np.empty((y.shape[0], f16.LISTED), dtype=np.float32)
    rows = np.empty((y.shape[0], f16.LISTED), dtype=np.int64)
    scores = np.empty((y.shape[0], words.panels.shape[0] * f16.PANEL), dtype=np.float32)
    f16.screen(y, words.panels, words.sq, scale, top, rows, scores)
    return scores[: z.shape[0], : index.size], s_q


def _prepared(vocab: np.ndarray) -> NearestWordIndex:
    index = NearestWordIndex(vocab, backend="fused", n_jobs=1)
    index.prepare_index()
    return index


def test_the_integer_screen_runs_on_an_avx2_machine(glove_20k: Embeddings) -> None:
    """Made on the first search by the fused kernel, and never for :meth:`k_nearest` alone
    (posterior decoding: 10 MB it would not read)."""
    assert _fused16().AVAILABLE
    index = NearestWordIndex(glove_20k.vectors, backend="fused")
    index.k_nearest(glove_20k.vectors[:3000].astype(np.float64) + 0.01, 4)
    assert index._int16 is None
    index.nearest(glove_20k.vectors[:3000].astype(np.float64) + 0.01)
    assert index._int16 is not None and index._integer_words() is index._int16
    off = NearestWordIndex(np.eye(3, dtype=np.float32), backend="fused", integer_screen=False)
    off.prepare_index()
    assert off._integer_words() is None


@pytest.mark.parametrize("epsilon", [0.5, 5.0, 20.0, 1e3])
def test_the_bound_holds_for_every_word(glove_20k: Embeddings, epsilon: float) -> None:
    """|approximate - exact| <= the bound, for every word and query; and the bound is not
    vacuous (within 16 times the largest error seen: doubled, and with the largest ||w||_1)."""
    vocab = glove_20k.vectors
    index = _prepared(vocab)
    rows = np.random.default_rng(31).integers(0, len(vocab), 24)
    z = sample_nd_laplace(vocab[rows], epsilon=epsilon, random_state=32)
    approx, s_q = _scores(index, z)
    w64 = vocab.astype(np.float64)
    exact = (w64 * w64).sum(axis=1)[None, :] - 2.0 * z @ w64.T
    qnorm = np.linalg.norm(z, axis=1)
    assert index._integer_words() is not None
    bound = index._integer_bound(z, qnorm, s_q, index._integer_words())
    # the float64 reference's own error is below 1e-9 here
    error = np.abs(approx.astype(np.float64) - exact).max(axis=1)
    assert np.all(error + 1e-9 <= bound)
    assert np.all(bound < 16.0 * error + 1e-3)


def test_the_bound_holds_in_300_dimensions(spacy_md: Embeddings) -> None:
    """300-d vectors: a smaller coordinate limit (no int32 overflow in 150 pairs)."""
    vocab = spacy_md.vectors[:4000]
    index = _prepared(vocab)
    rows = np.random.default_rng(33).integers(0, len(vocab), 12)
    z = sample_nd_laplace(vocab[rows], epsilon=1.0, random_state=34)
    approx, s_q = _scores(index, z)
    w64 = vocab.astype(np.float64)
    exact = (w64 * w64).sum(axis=1)[None, :] - 2.0 * z @ w64.T
    assert index._integer_words() is not None
    bound = index._integer_bound(z, np.linalg.norm(z, axis=1), s_q, index._integer_words())
    assert np.all(np.abs(approx.astype(np.float64) - exact).max(axis=1) + 1e-9 <= bound)
    assert np.array_equal(index.nearest(z), brute_force_nearest(vocab, z))


@pytest.mark.parametrize("n", [1, 7, 50, 300])
def test_products_are_exact_at_the_largest_coordinates(n: int) -> None:
    """Coordinates at +-limit (all products of one sign, and mixed): the integer sums are exact
    (scale 1, no squared norm: the score is float32(D), compared with int64 arithmetic)."""
    f16 = _fused16()
    pairs = -(-n // 2)
    lim = f16.limit(pairs)
    assert 2 * pairs * lim * lim < 2**31
    rng = np.random.default_rng(n)
    panel = f16.PANEL
    words = np.vstack(
        [
            np.full((1, n), lim),
            np.full((1, n), -lim),
            rng.choice([-lim, lim], size=(panel - 2, n)),
        ]
    ).astype(np.int64)
    queries = np.vstack(
        [np.full((1, n), lim), np.full((1, n), -lim), rng.integers(-lim, lim + 1, (2, n))]
    ).astype(np.int64)
    panels = np.zeros((1, pairs, 2 * panel), dtype=np.int16)
    by_word = panels.reshape(1, pairs, panel, 2)
    padded = np.zeros((panel, 2 * pairs), dtype=np.int16)
    padded[:, :n] = words
    by_word[0] = padded.reshape(panel, pairs, 2).transpose(1, 0, 2)
    y = np.zeros((4, 2 * pairs), dtype=np.int16)
    y[:, :n] = queries
    sq = np.zeros((1, panel), dtype=np.float32)
    scale = np.ones(4, dtype=np.float32)
    top = np.empty((4, f16.LISTED), dtype=np.float32)
    rows = np.empty((4, f16.LISTED), dtype=np.int64)
    scores = np.empty((4, panel), dtype=np.float32)
    f16.screen(y.view(np.int32), panels, sq, scale, top, rows, scores)
    expected = (queries @ words.T).astype(np.float32)
    assert np.array_equal(scores, expected)
    assert scores[0, 0] == np.float32(n * lim * lim) and scores[0, 1] == -scores[0, 0]


def test_the_kernel_lists_the_smallest_approximate_scores(glove_20k: Embeddings) -> None:
    """The listed words are the LISTED smallest approximate scores, ascending, whatever the
    panel the query's own word is in (padding words never listed)."""
    f16 = _fused16()
    vocab = glove_20k.vectors[: 50 * f16.PANEL + 5]  # a last panel with padding
    index = _prepared(vocab)
    rows = np.random.default_rng(35).integers(0, len(vocab), 30)
    z = sample_nd_laplace(vocab[rows], epsilon=8.0, random_state=36)
    words = index._integer_words()
    assert words is not None
    y, s_q = f16.quantise_queries(z, words.panels.shape[1])
    scale = np.zeros(y.shape[0], dtype=np.float32)
    scale[:30] = s_q * words.scale
    top = np.empty((y.shape[0], f16.LISTED), dtype=np.float32)
    listed = np.empty((y.shape[0], f16.LISTED), dtype=np.int64)
    scores = np.empty((y.shape[0], words.panels.shape[0] * f16.PANEL), dtype=np.float32)
    f16.screen(y, words.panels, words.sq, scale, top, listed, scores)
    assert np.all(np.isposinf(scores[:30, len(vocab) :]))
    for q in range(30):
        order = np.sort(scores[q])
        assert np.array_equal(top[q], order[: f16.LISTED])
        assert np.array_equal(scores[q, listed[q]], top[q])
        assert np.all(listed[q] < len(vocab))


@pytest.mark.parametrize("epsilon", [1.0, 10.0, 50.0])
def test_the_search_answers_as_the_float32_screen_alone(
    glove_20k: Embeddings, epsilon: float
) -> None:
    """The same words with and without the integer screen, the reference's on a part; and the
    integer screen certifies nearly every query itself (else it would only cost time)."""
    vocab = glove_20k.vectors
    rows = np.random.default_rng(37).integers(0, len(vocab), 1500)
    z = sample_nd_laplace(vocab[rows], epsilon=epsilon, random_state=38)
    both = NearestWordIndex(vocab, backend="fused", query_block=128)
    alone = NearestWordIndex(vocab, backend="fused", query_block=128, integer_screen=False)
    got = both.nearest(z)
    assert np.array_equal(got, alone.nearest(z))
    assert np.array_equal(got[:200], brute_force_nearest(vocab, z[:200]))
    assert both._integer_words() is not None
    _, left = both._screen_integer(z, np.linalg.norm(z, axis=1), both._integer_words())
    assert left.mean() < 0.02


def test_near_ties_among_the_listed_go_to_the_exact_decision(glove_20k: Embeddings) -> None:
    """Queries at the exact midpoint of two words (and on a duplicated word): the integer
    screen cannot order them and certifies none; the lowest row wins, as everywhere."""
    base = glove_20k.vectors[:2000]
    vocab = np.vstack([base, base[:10]])  # rows 2000..2009 duplicate rows 0..9
    mid = (base[10:20].astype(np.float64) + base[20:30].astype(np.float64)) / 2.0
    z = np.vstack([base[:10].astype(np.float64), mid])
    index = _prepared(vocab)
    assert index._integer_words() is not None
    _, left = index._screen_integer(z, np.linalg.norm(z, axis=1), index._integer_words())
    assert np.all(left[:10])  # an exact tie is never certified
    got = index.nearest(z)
    assert np.array_equal(got[:10], np.arange(10))
    alone = NearestWordIndex(vocab, backend="fused", integer_screen=False)
    assert np.array_equal(got, alone.nearest(z))


def test_a_generic_numba_target_gets_no_avx2_intrinsic(tmp_path) -> None:
    """``NUMBA_CPU_NAME=generic`` (numba then compiles for no CPU feature at all): the integer
    screen is not built, and the search answers (it aborted the process: LLVM cannot lower the
    AVX2 intrinsic for that target; a review's finding)."""
    import os
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from authormask.embeddings import _fused16, NearestWordIndex, brute_force_nearest\n"
        "rng = np.random.default_rng(0)\n"
        "w = rng.standard_normal((300, 7)).astype(np.float32)\n"
        "z = rng.standard_normal((40, 7))\n"
        "ok = np.array_equal(NearestWordIndex(w, backend='fused').nearest(z),"
        " brute_force_nearest(w, z))\n"
        "print(_fused16.AVAILABLE, ok)"
    )
    env = {**os.environ, "NUMBA_CPU_NAME": "generic", "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "False True"
