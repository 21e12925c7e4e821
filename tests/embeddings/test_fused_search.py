"""The fused (numba) screen of the nearest-word search returns the exact argmin.

Every result is compared with an independent reference: the paper-style float64 scan
(:func:`brute_force_nearest`) where that scan is itself exact (ordinary noisy queries), and exact
integer arithmetic on the float inputs where it is not (near-ties, crafted exact ties, queries of
huge norm). Ties go to the lowest row, as they always have.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from authormask.embeddings import Embeddings, NearestWordIndex, brute_force_nearest
from authormask.mechanisms import sample_nd_laplace


def exact_nearest(vocab: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Exact argmin of the squared distances (Python integers), ties to the lowest row."""
    w64 = np.asarray(vocab, dtype=np.float32).astype(np.float64)
    z64 = np.atleast_2d(np.asarray(queries, dtype=np.float64))
    values = np.concatenate([w64.ravel(), z64.ravel()])
    assert np.all(np.isfinite(values))
    # every double is an integer over a power of two: scale all by the largest denominator
    scale = max(float(x).as_integer_ratio()[1].bit_length() - 1 for x in values)

    def ints(a: np.ndarray) -> list[list[int]]:
        out = []
        for row in a:
            r = []
            for x in row:
                num, den = float(x).as_integer_ratio()
                r.append(num * (2**scale // den))
            out.append(r)
        return out

    wi, zi = ints(w64), ints(z64)
    result = np.empty(len(zi), dtype=np.intp)
    for i, q in enumerate(zi):
        best, best_d = 0, None
        for j, w in enumerate(wi):
            d = sum((a - b) * (a - b) for a, b in zip(w, q, strict=True))
            if best_d is None or d < best_d:
                best, best_d = j, d
        result[i] = best
    return result


def both(vocab: np.ndarray, **kwargs: object) -> list[NearestWordIndex]:
    return [NearestWordIndex(vocab, backend=b, **kwargs) for b in ("fused", "blas")]  # type: ignore[arg-type]


def test_default_backend_is_fused(glove_20k: Embeddings) -> None:
    assert NearestWordIndex(glove_20k.vectors[:100]).backend == "fused"


@pytest.mark.parametrize("epsilon", [1.0, 5.0, 20.0, 1e3, 1e9])
def test_noisy_glove_words_match_reference(glove_20k: Embeddings, epsilon: float) -> None:
    vocab = glove_20k.vectors[:5000]
    rng = np.random.default_rng(11)
    rows = rng.integers(0, len(vocab), 400)
    z = sample_nd_laplace(vocab[rows], epsilon=epsilon, random_state=12)
    ref = brute_force_nearest(vocab, z)
    for index in both(vocab, query_block=64):
        assert np.array_equal(index.nearest(z), ref), index.backend
    if epsilon >= 1e9:  # noise far below the gaps between words: every word maps to itself
        assert np.array_equal(ref, rows)


def test_full_glove_20k_fused_equals_blas_and_reference(glove_20k: Embeddings) -> None:
    rows = np.random.default_rng(5).integers(0, len(glove_20k), 600)
    z = sample_nd_laplace(glove_20k.vectors[rows], epsilon=8.0, random_state=6)
    fused, blas = both(glove_20k.vectors)
    got = fused.nearest(z)
    assert np.array_equal(got, blas.nearest(z))
    assert np.array_equal(got[:150], brute_force_nearest(glove_20k.vectors, z[:150]))


def test_spacy_300d(spacy_md: Embeddings) -> None:
    vocab = spacy_md.vectors[:3000]
    rows = np.random.default_rng(3).integers(0, len(vocab), 120)
    z = sample_nd_laplace(vocab[rows], epsilon=1.0, random_state=4)
    fused = NearestWordIndex(vocab, backend="fused")
    assert np.array_equal(fused.nearest(z), brute_force_nearest(vocab, z))


@pytest.mark.parametrize("epsilon", [1e-30, 1e-12, 1e-3])
def test_tiny_epsilon_huge_queries_are_exact(glove_20k: Embeddings, epsilon: float) -> None:
    """Noise so large that the query norm exceeds what float32 can screen (1e-30: ~5e31): the
    float64 screen and exact rationals decide; compared with exact integer arithmetic."""
    vocab = glove_20k.vectors[:300]
    rows = np.random.default_rng(21).integers(0, len(vocab), 12)
    z = sample_nd_laplace(vocab[rows], epsilon=epsilon, random_state=22)
    expected = exact_nearest(vocab, z)
    for index in both(vocab, n_jobs=1):
        assert np.array_equal(index.nearest(z), expected), index.backend


def test_float32_unsafe_norms_go_to_the_exact_path(glove_20k: Embeddings) -> None:
    vocab = glove_20k.vectors[:200]
    rng = np.random.default_rng(8)
    directions = rng.standard_normal((16, 50))
    z = np.vstack([directions * s for s in (1e14, 1e16, 1e40, 1e150, 1e250)])
    index = NearestWordIndex(vocab, backend="fused")
    got = index.nearest(z)
    assert np.array_equal(got, exact_nearest(vocab, z))
    assert index.n_fallback >= 4 * 16  # every query of norm > 1e15 was decided in float64


def test_exact_ties_go_to_the_lowest_row(glove_20k: Embeddings) -> None:
    """Duplicated words (exactly equal vectors) and exact midpoints between two words."""
    base = glove_20k.vectors[:400]
    vocab = np.vstack([base, base[:40]])  # rows 400..439 duplicate rows 0..39
    rng = np.random.default_rng(9)
    z_dup = sample_nd_laplace(base[:40], epsilon=50.0, random_state=10)
    w64 = base.astype(np.float64)
    # midpoints of a word and its nearest other word: exactly equidistant (float32 inputs, so
    # the float64 sum and halving are exact); the two are also the nearest words
    pairs = []
    for i in rng.choice(400, 30, replace=False):
        d = np.linalg.norm(w64 - w64[i], axis=1)
        d[i] = np.inf
        pairs.append((i, int(np.argmin(d))))
    mid = np.array([(w64[i] + w64[j]) / 2 for i, j in pairs])
    queries = np.vstack([z_dup, w64[:40], mid])
    expected = exact_nearest(vocab, queries)
    assert np.all(expected[:80] < 400)  # duplicates never win a tie
    assert np.array_equal(expected[80:], [min(p) for p in pairs])
    for index in both(vocab):
        got = index.nearest(queries)
        assert np.array_equal(got, expected), index.backend
        assert index.n_fallback >= 70  # ties cannot be certified in float32


def test_near_ties_match_exact_arithmetic(glove_20k: Embeddings) -> None:
    vocab = glove_20k.vectors[:500]
    w64 = vocab.astype(np.float64)
    pairs = np.random.default_rng(13).integers(0, 500, (40, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    mid = (w64[pairs[:, 0]] + w64[pairs[:, 1]]) / 2
    diff = w64[pairs[:, 1]] - w64[pairs[:, 0]]
    queries = np.vstack([mid + 1e-9 * diff, mid - 1e-9 * diff, mid + 1e-15 * diff])
    expected = exact_nearest(vocab, queries)
    for index in both(vocab):
        assert np.array_equal(index.nearest(queries), expected), index.backend


def test_empty_batch_and_one_word_vocabulary(glove_20k: Embeddings) -> None:
    for index in both(glove_20k.vectors[:50]):
        out = index.nearest(np.zeros((0, 50)))
        assert out.shape == (0,) and out.dtype == np.intp
    one = glove_20k.vectors[7:8]
    z = sample_nd_laplace(np.repeat(one, 9, axis=0), epsilon=0.5, random_state=1)
    for index in both(one):
        assert np.array_equal(index.nearest(z), np.zeros(9, dtype=np.intp))


def test_odd_shapes(glove_20k: Embeddings) -> None:
    """Vocabulary sizes around the panel width (16 or 64 words), any dimension, query counts
    not a multiple of the 4-query tile."""
    rng = np.random.default_rng(17)
    shapes = [(15, 50, 1), (16, 3, 5), (17, 7, 6), (63, 1, 7), (64, 13, 3), (65, 4, 9)]
    for v, n, b in [*shapes, (129, 50, 2), (2049, 2, 11)]:
        vocab = glove_20k.vectors[:v, :n]
        rows = rng.integers(0, v, b)
        z = vocab[rows] + rng.standard_normal((b, n)) * 0.5
        expected = exact_nearest(vocab, z)
        index = NearestWordIndex(vocab, backend="fused", query_block=4)
        assert np.array_equal(index.nearest(z), expected), (v, n, b)


def test_vocabulary_of_extreme_scale() -> None:
    """Vectors so long that float32 scores could overflow, or so short that they underflow:
    the screen must not certify anything it cannot bound."""
    rng = np.random.default_rng(4)
    base = rng.standard_normal((150, 6))
    for scale in (1e19, 1e-20, 1e-21, 3e-22, 1e-30):
        vocab = (base * scale).astype(np.float32)
        z = vocab[rng.integers(0, 150, 10)].astype(np.float64) + rng.standard_normal((10, 6)) * (
            0.3 * scale
        )
        expected = exact_nearest(vocab, z)
        assert np.array_equal(NearestWordIndex(vocab, backend="fused").nearest(z), expected)


def test_non_finite_vocabulary_rejected() -> None:
    vocab = np.ones((3, 4))
    vocab[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN or infinite"):
        NearestWordIndex(vocab)
    with pytest.raises(ValueError, match="NaN or infinite"):
        NearestWordIndex(np.full((2, 2), 1e39))  # not finite as float32
    # tested by the rows' squared norms: one infinite value, one NaN, whatever else the row holds
    for bad in (np.inf, -np.inf, np.nan):
        for row in ([bad, 0.0, 1.0, -1.0], [1e38, bad, -1e38, 3.4e38]):
            vectors = np.array([[1.0, 2.0, 3.0, 4.0], row], dtype=np.float32)
            with pytest.raises(ValueError, match="NaN or infinite"):
                NearestWordIndex(vectors)
    finite_extremes = np.array([[3.4e38, -3.4e38, 1e-45, 0.0]], dtype=np.float32)
    assert NearestWordIndex(finite_extremes).size == 1  # squares of float32 do not overflow
    # norms handed in are not the values' test (a review's finding): values beyond float32's
    # range with their float64 norms, and NaN with finite norms of other vectors
    beyond = np.array([[1e39, 0.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="NaN or infinite"):
        NearestWordIndex(beyond, norms=np.einsum("ij,ij->i", beyond, beyond))
    with pytest.raises(ValueError, match="NaN or infinite"):
        NearestWordIndex(np.array([[np.nan, 1.0]]), norms=np.array([1.0]))
    with pytest.raises(ValueError, match="backend"):
        NearestWordIndex(np.ones((2, 2)), backend="gpu")


def test_threads_share_one_index(glove_20k: Embeddings) -> None:
    """Several threads searching the same index at once (the kernel releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    vocab = glove_20k.vectors[:3000]
    index = NearestWordIndex(vocab, backend="fused", query_block=32)
    batches = [
        sample_nd_laplace(vocab[np.arange(i, i + 100)], epsilon=5.0, random_state=i)
        for i in range(0, 800, 100)
    ]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(index.nearest, batches))
    for z, got in zip(batches, results, strict=True):
        assert np.array_equal(got, brute_force_nearest(vocab, z))


def _run(code: str, **env: str) -> str:
    import os

    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **env},
    )
    return out.stdout.strip()


def test_import_and_help_do_not_load_numba() -> None:
    code = (
        "import sys, authormask, authormask.embeddings.neighbours\n"
        "from authormask.cli.main import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('numba' in sys.modules, 'authormask.embeddings._fused' in sys.modules)"
    )
    assert _run(code).splitlines()[-1] == "False False"


def test_no_usable_numba_cache_compiles_in_memory() -> None:
    """Where numba can write no cache (read-only site-packages, no home), the kernel is
    compiled without one and still searches exactly."""
    code = (
        "import numba.core.caching as c\n"
        "def refuse(self):\n"
        "    raise OSError('read-only file system')\n"
        "c._CacheLocator.ensure_cache_path = refuse\n"
        "import numpy as np\n"
        "from authormask.embeddings import _fused, NearestWordIndex, brute_force_nearest\n"
        "rng = np.random.default_rng(0)\n"
        "w = rng.standard_normal((300, 8)).astype(np.float32)\n"
        "z = rng.standard_normal((20, 8))\n"
        "ok = np.array_equal(NearestWordIndex(w, backend='fused').nearest(z),"
        " brute_force_nearest(w, z))\n"
        "print(_fused.CACHED, ok, _fused.COMPILE_SECONDS > 0)"
    )
    assert _run(code).splitlines()[-1] == "False True True"


def test_backend_is_set_explicitly_and_from_the_command_line_environment() -> None:
    """The library never reads the environment: set_search_backend sets the screen of the
    shared indexes built next; the command line hands AUTHORMASK_NEAREST_BACKEND and
    AUTHORMASK_THREADS to it at its start."""
    code = (
        "from authormask.embeddings import load_embeddings\n"
        "from authormask.embeddings import neighbours as n\n"
        "e = load_embeddings('glove-6b-50d', vocab_size=1000)\n"
        "first = n.shared_index(e).backend\n"
        "n.set_search_backend('blas')\n"
        "second = n.shared_index(load_embeddings('glove-6b-50d', vocab_size=900)).backend\n"
        "from authormask.cli.main import _search_from_environment\n"
        "n.set_search_backend('auto')\n"
        "_search_from_environment()\n"
        "print(first, second, n.search_backend(), n._search_threads())"
    )
    out = _run(code, AUTHORMASK_NEAREST_BACKEND="blas", AUTHORMASK_THREADS="1").splitlines()[-1]
    first, *rest = out.split()
    assert first != "blas" and rest == ["blas", "blas", "1"]  # env read by the CLI's start only
    code = (
        "from authormask.embeddings import neighbours as n\n"
        "from authormask.embeddings import load_embeddings\n"
        "print(n.shared_index(load_embeddings('glove-6b-50d', vocab_size=800)).backend)"
    )
    assert _run(code, AUTHORMASK_NEAREST_BACKEND="blas").splitlines()[-1] != "blas"


def test_a_bad_search_setting_in_the_environment_is_one_line() -> None:
    code = "import sys\nfrom authormask.cli.main import main\nsys.exit(main(['embeddings']))"
    for env, shown in (
        ({"AUTHORMASK_THREADS": "many"}, "AUTHORMASK_THREADS must be an integer >= 1"),
        ({"AUTHORMASK_NEAREST_BACKEND": "gpu"}, "AUTHORMASK_NEAREST_BACKEND must be auto"),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
        )
        assert proc.returncode == 2 and shown in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1


def test_default_kernel_has_the_vector_tile() -> None:
    """The vector-IR tile compiles with the pinned numba (the loop tile is only a fallback)."""
    from authormask.embeddings import _fused

    assert _fused.TILE == "vector"
    assert _fused.ON_STACK is False


def _kernel(tile: str, panel: int) -> Any:
    from authormask.embeddings import _fused

    if tile == "vector":
        return _fused._jit(_fused._make_vector_screen(panel))[0]
    return _fused._jit(_fused._make_screen(panel, on_stack=tile == "stack"))[0]


@pytest.mark.parametrize(
    ("tile", "panel"), [("vector", 16), ("vector", 64), ("stack", 16), ("heap", 64)]
)
def test_kernel_variants(glove_20k: Embeddings, tile: str, panel: int) -> None:
    """The kernel compiled for either panel width (AVX2 machines use 16 words, AVX-512 64),
    with its tile in vector IR (the default) or as a Python loop on the stack or the heap (the
    fallbacks), finds the same best word and scores."""
    kernel = _kernel(tile, panel)
    rng = np.random.default_rng(23)
    v, n, b = 3 * panel, 50, 8
    w = glove_20k.vectors[:v]
    z = w[rng.integers(0, v, b)].astype(np.float64) + rng.standard_normal((b, n)) * 0.4
    panels = np.ascontiguousarray(w.reshape(3, panel, n).transpose(0, 2, 1))
    sq = (w.astype(np.float64) ** 2).sum(axis=1).astype(np.float32).reshape(3, panel)
    y = (-2.0 * z).astype(np.float32)
    best = np.empty(b, dtype=np.float32)
    second = np.empty(b, dtype=np.float32)
    arg = np.empty(b, dtype=np.int64)
    scores = np.empty((b, v), dtype=np.float32)
    kernel(y, panels, sq, best, second, arg, scores)
    expected = sq.reshape(-1)[None, :].astype(np.float64) + y.astype(np.float64) @ w.T
    assert np.allclose(scores, expected, rtol=1e-5, atol=1e-4)
    assert np.array_equal(arg, np.argmin(scores, axis=1))
    assert np.array_equal(best, scores.min(axis=1))
    order = np.sort(scores, axis=1)
    assert np.array_equal(second, order[:, 1])
    assert np.array_equal(arg, exact_nearest(w, z))


@pytest.mark.parametrize("panel", [16, 64])
def test_vector_and_loop_tiles_agree_bit_for_bit(glove_20k: Embeddings, panel: int) -> None:
    """The vector tile issues the loop tile's multiply-adds in the same order: the same float32
    scores, best words and runners-up, with and without the score matrix, on blocks of several
    query tiles where runners-up change across panels (and with a tie and a padding word)."""
    rng = np.random.default_rng(5)
    v, n, b = 7 * panel, 50, 24
    w = glove_20k.vectors[:v].copy()
    w[5] = w[3]  # an exact tie
    z = w[rng.integers(0, v, b)].astype(np.float64) + rng.standard_normal((b, n)) * 0.5
    z[0] = w[3]
    panels = np.ascontiguousarray(w.reshape(7, panel, n).transpose(0, 2, 1))
    sq = (w.astype(np.float64) ** 2).sum(axis=1).astype(np.float32).reshape(7, panel)
    sq[-1, -1] = np.inf  # a padding word: never the best
    y = (-2.0 * z).astype(np.float32)
    results: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]] = []
    for tile in ("vector", "stack"):
        for keep in (False, True):
            best = np.empty(b, dtype=np.float32)
            second = np.empty(b, dtype=np.float32)
            arg = np.empty(b, dtype=np.int64)
            scores = np.empty((b, v) if keep else (0, 0), dtype=np.float32)
            _kernel(tile, panel)(y, panels, sq, best, second, arg, scores)
            results.append((best, second, arg, scores if keep else None))
    ref = results[0]
    assert ref[2][0] == 3 and ref[0][0] == ref[1][0]  # the tie: lowest row, zero gap
    assert np.all(ref[2] != v - 1)
    for other in results[1:]:
        for a, c in zip(ref[:3], other[:3], strict=True):
            assert np.array_equal(a, c)
    assert results[1][3] is not None and results[3][3] is not None
    assert np.array_equal(results[1][3], results[3][3])
    assert np.array_equal(results[1][2], np.argmin(results[1][3], axis=1))


def test_a_one_sentence_default_release_loads_no_numba_and_no_torch(tmp_path) -> None:
    """emp-write's default release of one sentence (entities replaced) searches with BLAS and
    decodes with the numpy Viterbi, both the same words as the compiled kernels (issue 50:
    loading numba and its caches was a second of every small release), and imports no torch."""
    source = tmp_path / "one.txt"
    source.write_text("Anna met Boris in Paris last winter.\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from authormask.cli.main import main\n"
        "try:\n"
        f"    main(['obfuscate', {str(source)!r}, '-o', {str(tmp_path / 'out.txt')!r},"
        " '--epsilon', '7'])\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print('numba' in sys.modules, 'torch' in sys.modules)"
    )
    assert _run(code).splitlines()[-1] == "False False"
    assert (tmp_path / "out.txt").read_text(encoding="utf-8").strip()


def test_warming_builds_what_the_first_search_needs_and_changes_no_answer(
    glove_20k: Embeddings,
) -> None:
    """``warm`` loads the fused kernels and the integer screen's words before the first search
    (a release does it in a second thread while it reads names, issue 50), only where that
    search would use them; the answers are those of an index never warmed."""
    vocab = glove_20k.vectors[:5000]
    z = sample_nd_laplace(vocab[:3000], epsilon=10.0, random_state=7)
    cold = NearestWordIndex(vocab).nearest(z)
    few = z[:300]
    never = NearestWordIndex(vocab)
    few_cold = never.nearest(few)  # an auto index's first small search: BLAS
    assert never._backend is None
    small = NearestWordIndex(vocab)
    small.warm(100)  # an auto index screens its first small searches with BLAS: nothing loads
    assert small._backend is None and small._int16 is None
    blas = NearestWordIndex(vocab, backend="blas")
    blas.warm(100_000)
    assert blas._backend is None
    warm = NearestWordIndex(vocab)
    warm.warm(len(z), integer=False)  # k_nearest alone needs no integer words
    assert warm._backend == "fused" and warm._int16 is None
    warm.warm(len(z))
    from authormask.embeddings import _fused16

    assert (warm._int16 is not None) == bool(_fused16.AVAILABLE)
    assert np.array_equal(warm.nearest(few), few_cold)  # now the fused screens: same words
    assert np.array_equal(warm.nearest(z), cold)
    assert np.array_equal(cold, brute_force_nearest(vocab, z))
