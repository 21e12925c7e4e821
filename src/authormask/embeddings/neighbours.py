"""Exact nearest-vocabulary-word search, batched (the ``Vec^-1`` step of Algorithm 2).

The paper computes ``Vec^-1(z)`` as the word minimising ``||z - Vec(w)||_2`` with one scan of
the whole vocabulary per word (section 6, footnote 14). Here all query vectors of a request are
screened together in float32 on the score ``||w||^2 - 2 z.w`` (the ``||z||^2`` term does not
change the argmin), keeping the best and second-best score per query. A proven bound on the
float32 rounding error (:meth:`NearestWordIndex._error_bound`, valid for any summation order and
for fused multiply-adds) certifies the winner whenever the gap to the runner-up exceeds twice
that bound. For the (rare) uncertified queries every word that could be the nearest is listed
(a score within twice the bound of the smallest: from the fused kernel's float32 scores, or from
a float64 product with its own bound for queries too long to screen in float32 and for the BLAS
screen), and those candidates are compared with the float64 reference formula, and by exact
rational arithmetic where float64 cannot separate them (ties go to the lowest row). The result
is therefore the exact argmin, identical to :func:`brute_force_nearest` wherever that float64
scan is itself exact.

Two float32 screens compute the same certified quantities (``backend``):

``fused`` (the default when numba can be imported)
    :mod:`authormask.embeddings._fused`: one compiled loop keeps the partial scores of 4 queries
    x 64 words (AVX-512; 16 words otherwise) in vector registers over all coordinates, reading
    each vocabulary panel from the L1 cache, and keeps a thresholded best/runner-up per query,
    so no score matrix is ever written or read back. numba is imported, and the kernel compiled
    or loaded from numba's on-disk cache, on the first search, never by ``import authormask``;
    where no cache can be written it is compiled in memory (about 1.1 s cold here, 0.6 s from
    the cache, plus 0.5 s to import numba).
    On x86 with AVX2 an integer screen runs first (:mod:`authormask.embeddings._fused16`,
    ``integer_screen=True``, the default): 16-bit coordinates, exact int32 products, the 4
    smallest approximate scores of each query listed; their words' scores are computed in
    float64, and the best is the nearest word when a proven bound on every word's
    approximation error (:meth:`NearestWordIndex._integer_bound`) leaves no word outside the
    list able to beat it. It certifies more than 99% of noisy GloVe queries and runs 1.4x the
    float32 kernel's rate; the float32 screen takes the rest, so the answers are the same.
``blas``
    Blocked matrix products (256 queries x 4,096 words, OpenBLAS ``sgemm``) followed by NumPy
    ``argmin``/``min`` passes over each score block. Used when numba is missing, or on request
    (``backend="blas"``, or ``AUTHORMASK_NEAREST_BACKEND=blas`` for the shared indexes).

Why fused: measured on the 2-core machine of this project (AMD EPYC with AVX-512, 100k-word 50-d
GloVe vocabulary, one thread, CPU time, best of 15, same run): the bare ``sgemm`` of the blas
screen reaches 11,100 queries/s (113 GFLOP/s: K = 51 is too thin for OpenBLAS's packing to
pay), the whole blas screen 9,700 queries/s, the fused kernel 19,200 queries/s (196 GFLOP/s).
Variants measured on the way: the same loop with its tile in a heap array (LLVM must assume it
may alias the inputs, so every multiply-add also loads and stores its partial sum) reached
10-12,000 queries/s; per-SIMD-lane best/second-best tracking cost about 20 % more than the
thresholded count; fully unrolled coordinates were slower still (about 7,000). A blocked BLAS
approach cannot beat the bare ``sgemm`` rate, so the fused kernel is the choice.
``python benchmarks/snapping.py`` prints both screens, the paper's per-word scan and the
end-to-end ``emp-text`` rate in one run.

Threads: :meth:`NearestWordIndex.nearest` splits the queries into blocks and runs them on
``n_jobs`` Python threads; the compiled kernel releases the GIL and BLAS is limited to one thread
per worker, so the same code is safe to call from several threads at once (no numba threading
layer is involved).

One module on purpose (longer than the project's ~500 lines): the float32 screen, its proven
error bound, the float64 decision and the exact rational fallback are one argument for
exactness, and a reader checks it by reading them together.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import weakref
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from authormask.embeddings._base import Embeddings
from authormask.embeddings._blas import single_threaded_blas
from authormask.exceptions import InvalidParameterError

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = [
    "BACKENDS",
    "NearestWordIndex",
    "brute_force_nearest",
    "search_backend",
    "set_search_backend",
    "set_search_threads",
    "shared_index",
]

#: the float32 screens: ``fused`` (numba kernel), ``blas`` (matrix products); ``auto``: fused
#: when numba can be imported
BACKENDS = ("auto", "fused", "blas")

logger = logging.getLogger(__name__)

_U32 = float(np.finfo(np.float32).eps) / 2  # unit roundoff of float32
_U64 = float(np.finfo(np.float64).eps) / 2  # unit roundoff of float64
#: longer queries are not screened in float32 (scores would overflow) but decided in float64
_FLOAT32_SAFE_NORM = 1e15
#: nor one whose score bound 2 ||z|| M + M^2 exceeds this (far below float32's 3.4e38)
_FLOAT32_SAFE_SCORE = 1e36
#: smallest subnormals: the absolute rounding error of an underflowing result is at most half
_TINY32 = float(np.finfo(np.float32).smallest_subnormal)
_TINY64 = float(np.finfo(np.float64).smallest_subnormal)
#: uncertain queries decided together by one float64 product with the whole vocabulary
_RESOLVE_BLOCK = 64
#: queries an ``auto`` index screens with BLAS before it loads the fused kernel (and numba)
SMALL_QUERIES = 2048
#: the same for :meth:`NearestWordIndex.k_nearest` (its BLAS screen scores and partitions a
#: query's words: about 0.3 ms a query on a 100k vocabulary against the kernel's 0.08, so the
#: kernel pays off sooner)
SMALL_K_QUERIES = 512
#: the words :meth:`NearestWordIndex.k_nearest`'s screen lists beyond the ``k`` asked for (the
#: margin that certifies that no word left out is among the ``k`` nearest)
K_MARGIN = 16
#: queries whose BLAS top-k scores are held at once (16 x a 100k vocabulary: 6 MB of scores,
#: 13 MB of their partition)
_TOP_BLOCK = 16
#: queries whose candidates' float64 distances are computed at once (each holds candidates x
#: dimension float64 a few times: 64 x 48 x 50 x 8 bytes is 1.2 MB; with 256, on each of two
#: threads, a long text's peak was 8 MB higher)
_EXACT_BLOCK = 64
#: :func:`_smallest_columns` bounds each row's ``listed`` smallest by the ``listed``-th smallest
#: of every ``_SAMPLE_STRIDE``-th score (about ``listed x _SAMPLE_STRIDE`` are then partitioned)
_SAMPLE_STRIDE = 32
#: the fused kernel's ``scores`` argument when no score is to be kept
_NO_SCORES = np.empty((0, 0), dtype=np.float32)
#: beyond this float64 products overflow; mechanisms refuse epsilons that get anywhere near it
_FLOAT64_SAFE_NORM = 1e290


@dataclass(frozen=True)
class _IntegerPanels:
    """The integer screen's vocabulary (:func:`._fused16.quantise_vocabulary`): its panels,
    ``||w||^2`` in float32 by panel (padding +inf), the scale ``s_w``, the largest
    quantisation error and the largest ``||w||_1``."""

    panels: NDArray[np.int16]
    sq: NDArray[np.float32]
    scale: float
    error: float
    l1: float


def brute_force_nearest(vocab: ArrayLike, queries: ArrayLike) -> NDArray[np.intp]:
    """Reference: for each query, one full float64 scan ``argmin_w ||z - w||_2`` (paper style).

    Parameters
    ----------
    vocab
        The vocabulary's vectors, one row per word.
    queries
        The query vectors, one row each.

    Returns
    -------
    NDArray[np.intp]
        The row of the nearest word of each query.
    """
    w = np.asarray(vocab, dtype=np.float64)
    z = np.atleast_2d(np.asarray(queries, dtype=np.float64))
    out = np.empty(z.shape[0], dtype=np.intp)
    for i, q in enumerate(z):
        out[i] = int(np.argmin(np.linalg.norm(w - q, axis=1)))
    return out


def _smallest_columns(scores: NDArray[np.floating[Any]], listed: int) -> NDArray[np.intp]:
    """The columns of the ``listed`` smallest scores of each row, in no order, as
    ``np.argpartition(scores, listed - 1, axis=1)[:, :listed]`` gives them (where several
    scores tie with the ``listed``-th, which of them is given may differ).

    numpy partitions a row of 100,000 float32 scores in about a millisecond. Here the
    ``listed``-th smallest of every :data:`_SAMPLE_STRIDE`-th score of a row bounds the row's
    ``listed`` smallest (at least ``listed`` scores of the row are at or below it, so every one
    of them is, ties included), and only the scores at or below it are partitioned (about
    ``listed x _SAMPLE_STRIDE``: a tenth of a millisecond). A row where fewer than ``listed``
    scores are at or below it (a NaN) is partitioned whole.

    Parameters
    ----------
    scores
        The scores, one row per query.
    listed
        How many columns per row (at least 1, at most the number of columns).

    Returns
    -------
    NDArray[np.intp]
        Shape ``(rows, listed)``.

    Examples
    --------
    >>> rows = np.array([[5.0, 1.0, 4.0, 2.0, 3.0]], dtype=np.float32)
    >>> sorted(_smallest_columns(rows, 2)[0].tolist())
    [1, 3]
    """
    n = scores.shape[1]
    if n < 8 * _SAMPLE_STRIDE * listed:  # a short row: as numpy does
        return np.argpartition(scores, listed - 1, axis=1)[:, :listed]
    out = np.empty((scores.shape[0], listed), dtype=np.intp)
    for i, row in enumerate(scores):
        bound = np.partition(row[::_SAMPLE_STRIDE], listed - 1)[listed - 1]
        kept = np.flatnonzero(row <= bound)
        if kept.size < listed:  # a NaN compares false: the whole row
            out[i] = np.argpartition(row, listed - 1)[:listed]
        else:
            out[i] = kept[np.argpartition(row[kept], listed - 1)[:listed]]
    return out


class NearestWordIndex:
    """Exact batched Euclidean nearest-neighbour search over a fixed vocabulary.

    Parameters
    ----------
    vectors
        The vocabulary's vectors, one row per word (kept as float32; the float64 check upcasts
        rows on demand).
    query_block : int
        Queries screened together (memory ~ ``query_block * vocab_block * 4`` bytes).
    vocab_block : int
        Vocabulary rows per matrix product.
    n_jobs
        Worker threads, each screening its own query blocks with a single-threaded BLAS (the
        argmin passes then run in parallel too). Default: the number of CPUs.
    backend : str
        The float32 screen: ``"auto"`` (``fused`` when numba can be imported, else ``blas``),
        ``"fused"`` or ``"blas"`` (module docstring).
    norms
        The float64 squared norms of ``vectors``, when already computed (else computed here).
    index_path
        Where the fused screen's panels are kept, beside the prepared vocabulary (memory-mapped
        and checked, :mod:`authormask.embeddings.prepared`); None: built in memory.
    vectors_sha256
        The SHA-256 of ``vectors``, as the index file's header names them (else computed).
    finite
        Whether the caller knows every value of ``vectors`` to be finite as float32 (an
        :class:`~authormask.embeddings.Embeddings`' own vectors, checked when they were made or
        loaded): not tested again where ``norms`` are given (without ``norms``, the squared
        norms computed here test them: finite exactly where every value of the row is).
    integer_screen
        Whether the ``fused`` screen first runs the integer screen where the CPU has AVX2
        (module docstring; the answers are the same either way, only the time differs).

    Raises
    ------
    ValueError
        If ``vectors`` is not a non-empty 2-D finite array, ``backend`` is unknown, or
        ``norms`` has another shape.
    """

    def __init__(
        self,
        vectors: ArrayLike,
        *,
        query_block: int = 256,
        vocab_block: int = 4096,
        n_jobs: int | None = None,
        backend: str = "auto",
        norms: ArrayLike | None = None,
        index_path: Path | None = None,
        vectors_sha256: str | None = None,
        finite: bool = False,
        integer_screen: bool = True,
    ) -> None:
        with np.errstate(over="ignore"):  # beyond float32's range: refused just below
            w = np.ascontiguousarray(np.asarray(vectors), dtype=np.float32)
        if w.ndim != 2 or w.shape[0] == 0:
            raise ValueError(f"vectors must be a non-empty 2-D array, got shape {w.shape}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
        self._w = w
        if norms is None:
            w64 = w.astype(np.float64)
            sq = np.einsum("ij,ij->i", w64, w64)
            # a row's squared norm (a sum of squares of float32 values, in float64: it cannot
            # overflow) is finite exactly where every value of the row is: one test a word
            checked = sq
        else:  # the float64 squared norms of these vectors, computed the same way elsewhere
            sq = np.asarray(norms, dtype=np.float64)
            if sq.shape != (w.shape[0],):
                raise ValueError(f"norms must have shape ({w.shape[0]},), got {sq.shape}")
            # norms handed in say nothing of the values (they may be of other vectors, or of
            # values beyond float32's range): each value is tested, unless known (3 ms)
            checked = sq if finite else w
        if not np.all(np.isfinite(checked)):
            raise ValueError("vectors contain NaN or infinite values (as float32)")
        self._sq = sq
        self._index_path = index_path
        self._vectors_sha256 = vectors_sha256
        self._sq32: NDArray[np.float32] | None = None  # ||w||^2 for the float32 screens
        self._small_screened = 0  # queries screened with BLAS before the fused kernel loaded
        self._max_norm = float(np.sqrt(sq.max()))
        self._query_block = int(query_block)
        self._vocab_block = int(vocab_block)
        self._n_jobs = max(1, int(n_jobs if n_jobs is not None else (os.cpu_count() or 1)))
        self._requested_backend = backend
        self._backend: str | None = None  # chosen on the first search (imports numba lazily)
        self._panels: NDArray[np.float32] | None = None  # fused: words in panels of 64
        self._panel_sq: NDArray[np.float32] | None = None
        self._integer_screen = bool(integer_screen)
        self._int16: _IntegerPanels | None = None  # fused with AVX2: the integer screen's words
        self.n_fallback = 0  # queries that needed the float64 reference (for diagnostics)
        self._lock = threading.Lock()
        self._w64: NDArray[np.float64] | None = None  # built on the first float64 fallback
        self._sq64: NDArray[np.float64] | None = None

    @property
    def size(self) -> int:
        return int(self._w.shape[0])

    @property
    def vectors(self) -> NDArray[np.float32]:
        """The vocabulary's vectors as searched (float32, one row per word; do not modify)."""
        return self._w

    @property
    def dimension(self) -> int:
        return int(self._w.shape[1])

    @property
    def backend(self) -> str:
        """The float32 screen in use, ``"fused"`` or ``"blas"`` (chosen on first use)."""
        return self._prepare()

    def _prepare(self) -> str:
        """Choose the screen and build its data, once (thread-safe)."""
        backend = self._backend
        if backend is not None:
            return backend
        with self._lock:
            if self._backend is not None:
                return self._backend
            backend = self._requested_backend
            if backend in ("auto", "fused"):
                try:
                    from authormask.embeddings import _fused  # imports numba: compiles or loads
                except Exception as exc:  # no numba, or it cannot compile here
                    if backend == "fused":
                        raise
                    logger.warning("fused nearest-word search unavailable (%s): using BLAS", exc)
                    backend = "blas"
                else:
                    backend = "fused"
                    self._panels, self._panel_sq = self._load_panels(_fused.PANEL)
            self._backend = backend
            return backend

    def warm(self, queries: int, *, integer: bool = True) -> None:
        """Build now what the first search of about ``queries`` queries would build: the fused
        screen's compiled kernels (importing numba and loading them takes most of a second)
        and, with ``integer``, the integer screen's words (what :meth:`nearest` reads;
        :meth:`k_nearest` needs none). Nothing where that search would screen with BLAS (an
        ``auto`` index's first :data:`SMALL_QUERIES` queries, :data:`SMALL_K_QUERIES` without
        ``integer``, or a ``blas`` one). A release
        calls it from a second thread while its other work runs (thread-safe); it changes no
        answer, only when the first search can start. Where the fused screen cannot load, an
        ``auto`` index falls back to BLAS here (with its warning), as its first search would.

        Parameters
        ----------
        queries
            About how many queries the first search will have.
        integer
            Whether the integer screen's words are made too.
        """
        if self._requested_backend == "blas":
            return
        if self._requested_backend == "auto" and self._backend is None:
            small = SMALL_QUERIES if integer else SMALL_K_QUERIES
            with self._lock:
                if self._small_screened + int(queries) <= small:
                    return
        if self._prepare() == "fused" and integer:
            self._integer_words()

    def _screen_sq(self) -> NDArray[np.float32]:
        """||w||^2 for the float32 screens, capped where it could overflow float32: a query is
        only screened when 2 ||z|| M + M^2 <= _FLOAT32_SAFE_SCORE, so the cap never applies to
        a score that is used."""
        if self._sq32 is None:
            self._sq32 = np.minimum(self._sq, _FLOAT32_SAFE_SCORE).astype(np.float32)
        return self._sq32

    def _integer_words(self) -> _IntegerPanels | None:
        """The integer screen's words, made on the first :meth:`nearest` that screens with the
        fused kernel (thread-safe; :meth:`k_nearest` alone never needs them: 10 MB for GloVe
        100k); None where the integer screen does not run."""
        if not self._integer_screen:
            return None
        if self._int16 is None:
            with self._lock:
                if self._int16 is None:
                    self._int16 = self._integer_panels()
                    if self._int16 is None:
                        self._integer_screen = False
        return self._int16

    def _integer_panels(self) -> _IntegerPanels | None:
        """The integer screen's words (:mod:`._fused16`), or None where it does not run (no
        AVX2, or it cannot be compiled here)."""
        from authormask.embeddings import _fused16

        if not _fused16.AVAILABLE:
            return None
        panels, scale, error, l1 = _fused16.quantise_vocabulary(self._w)
        return _IntegerPanels(panels, self._padded_sq(_fused16.PANEL), scale, error, l1)

    def _padded_sq(self, panel: int) -> NDArray[np.float32]:
        """``||w||^2`` for the screens (:meth:`_screen_sq`) by panel of ``panel`` words, the
        padding words +inf (score +inf: never the nearest)."""
        n_panels = -(-self.size // panel)
        sq = np.full(n_panels * panel, np.inf, dtype=np.float32)
        sq[: self.size] = self._screen_sq()
        return sq.reshape(n_panels, panel)

    def _build_panels(self, panel: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """The fused kernel's layout: words in panels of ``panel``, coordinates major."""
        v, n = self._w.shape
        n_panels = -(-v // panel)
        padded = np.zeros((n_panels * panel, n), dtype=np.float32)
        padded[:v] = self._w
        panels = np.ascontiguousarray(padded.reshape(n_panels, panel, n).transpose(0, 2, 1))
        return panels, self._padded_sq(panel)

    def _load_panels(self, panel: int) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
        """The panels from the index file beside the prepared vocabulary (memory-mapped and
        checked, :mod:`authormask.embeddings.prepared`), built and written there if missing."""
        if self._index_path is None:
            return self._build_panels(panel)
        from authormask.embeddings.prepared import read_entry, write_entry

        path = self._index_path.with_suffix(f".p{panel}.index")
        expect = {
            "panel": panel,
            "shape": list(self._w.shape),
            "vectors_sha256": self._vectors_sha256 or _sha256(self._w),
        }
        # the compiled kernel's signature takes writable arrays (copy-on-write pages here)
        found = read_entry(path, expect, writable=frozenset({"panels", "panel_sq"}))
        if found is not None:
            panels, panel_sq = found.arrays["panels"], found.arrays["panel_sq"]
            # its header's vectors hash is a claim: the panels must be these vectors' panels
            if self._panels_match(panels, panel_sq, panel):
                return panels, panel_sq
            logger.warning(
                "warning: not using search index %s (it does not hold these vectors); rebuilding",
                path,
            )
        panels, panel_sq = self._build_panels(panel)
        write_entry(path, expect, {"panels": panels, "panel_sq": panel_sq})
        return panels, panel_sq

    def _panels_match(
        self, panels: NDArray[np.float32], panel_sq: NDArray[np.float32], panel: int
    ) -> bool:
        """Whether ``panels``/``panel_sq`` are exactly :meth:`_build_panels` of these vectors
        (compared a block of panels at a time: no copy of the whole matrix)."""
        v, n = self._w.shape
        n_panels = -(-v // panel)
        if panels.shape != (n_panels, n, panel) or panel_sq.shape != (n_panels, panel):
            return False
        sq = self._screen_sq()
        block = 256
        for p0 in range(0, n_panels, block):
            p1 = min(n_panels, p0 + block)
            rows = panels[p0:p1].transpose(0, 2, 1).reshape(-1, n)
            r0, r1 = p0 * panel, min(v, p1 * panel)
            if not np.array_equal(rows[: r1 - r0], self._w[r0:r1]):
                return False
            if r1 - r0 < rows.shape[0] and np.any(rows[r1 - r0 :] != 0):
                return False
            flat = panel_sq[p0:p1].reshape(-1)
            if not np.array_equal(flat[: r1 - r0], sq[r0:r1]) or not np.all(
                np.isposinf(flat[r1 - r0 :])
            ):
                return False
        return True

    def prepare_index(self) -> str:
        """Choose the screen and build (or load) its index now; the screen's name.

        Returns
        -------
        str
            ``"fused"`` or ``"blas"``.
        """
        return self._prepare()

    def _error_bound(
        self, qnorm: NDArray[np.float64], unit_roundoff: float = _U32, tiny: float = _TINY32
    ) -> NDArray[np.float64]:
        """Bound on |computed score - exact score| for every word, per query.

        The score is a length-(n+1) dot product of [z, 1] with [-2w, ||w||^2], evaluated in any
        order with one rounding per multiply, add or fused multiply-add. Rounding the inputs to
        the working precision costs at most u per entry, the dot product gamma_{n+1} *
        sum|x_i y_i| (Higham, Accuracy and Stability of Numerical Algorithms, eq. 3.5, which holds
        for every summation order); with sum|x_i y_i| <= 2||z|| ||w|| + ||w||^2 and ||w|| <= max
        norm M, a safe bound is (gamma_{n+1} + 3u) * (2 ||z|| M + M^2), doubled for good measure.
        Gradual underflow adds at most half the smallest subnormal per rounding (relative bounds
        do not cover subnormal results): (n + 2) * 4 * tiny * (1 + M) covers every such term.
        ``unit_roundoff`` and ``tiny`` are u and the smallest subnormal of the arithmetic used
        (float32 for the screen, float64 for the fallback).
        """
        u = unit_roundoff
        n = self.dimension + 1
        gamma = n * u / (1 - n * u)
        m = self._max_norm
        bound: NDArray[np.float64] = 2.0 * (gamma + 3 * u) * (2.0 * qnorm * m + m * m)
        return bound + (n + 2) * 4 * tiny * (1.0 + m)

    def nearest(
        self, queries: ArrayLike, *, progress: Callable[[int], None] | None = None
    ) -> NDArray[np.intp]:
        """Row index of the nearest vocabulary vector for each query (exact).

        ``progress``, if given, is called with the number of queries finished after each block.

        Parameters
        ----------
        queries
            The query vectors, one row each.
        progress
            Called with the number of queries finished after each block.

        Returns
        -------
        NDArray[np.intp]
            The row of the nearest word of each query.

        Raises
        ------
        ValueError
            If the queries have another dimension, or are not finite.
        """
        z = np.atleast_2d(np.asarray(queries, dtype=np.float64))
        if z.ndim != 2 or z.shape[1] != self.dimension:
            raise ValueError(
                f"queries must have dimension {self.dimension}, got shape {np.shape(queries)}"
            )
        if not np.all(np.isfinite(z)):
            raise ValueError("queries contain NaN or infinite values")
        out = np.empty(z.shape[0], dtype=np.intp)
        if z.shape[0] == 0:
            return out
        fused = self._use_fused(z.shape[0])
        uncertain = np.zeros(z.shape[0], dtype=bool)
        starts = list(range(0, z.shape[0], self._query_block))

        def screen(start: int) -> int:
            """Screen one block; returns how many of its queries are decided."""
            sl = slice(start, start + self._query_block)
            out[sl], uncertain[sl] = self._screen_block(z[sl], fused)
            return int(z[sl].shape[0] - np.count_nonzero(uncertain[sl]))

        def resolve(idx: NDArray[np.intp]) -> int:
            out[idx] = self._resolve_exactly(z[idx])
            return int(idx.size)

        def run(map_: Callable[..., Iterable[int]]) -> None:
            for done in map_(screen, starts):
                if progress is not None and done:
                    progress(done)
            # the uncertain queries of all blocks, together: listing their candidates scans the
            # whole vocabulary once per chunk of queries rather than once per block
            idx = np.flatnonzero(uncertain)
            if idx.size == 0:
                return
            with self._lock:
                self.n_fallback += int(idx.size)
            chunks = [idx[i : i + _RESOLVE_BLOCK] for i in range(0, idx.size, _RESOLVE_BLOCK)]
            for done in map_(resolve, chunks):
                if progress is not None:
                    progress(done)

        with single_threaded_blas():
            if self._n_jobs == 1 or len(starts) == 1:
                run(map)
                return out
            with ThreadPoolExecutor(self._n_jobs) as pool:
                run(pool.map)
        return out

    def _use_fused(self, n_queries: int, small: int = SMALL_QUERIES) -> bool:
        """Whether to screen these queries with the fused kernel. Before the kernel is loaded
        (importing numba costs more than screening a few thousand queries with BLAS), the first
        ``small`` queries of an ``auto`` index (:data:`SMALL_QUERIES`; :data:`SMALL_K_QUERIES`
        for :meth:`k_nearest`, whose BLAS screen sorts every score) are screened with BLAS; both
        screens are certified, so the answers are the same."""
        if self._backend is None and self._requested_backend == "auto":
            with self._lock:
                if self._small_screened + n_queries <= small:
                    self._small_screened += n_queries
                    return False
        return self._prepare() == "fused"

    def k_nearest(
        self, queries: ArrayLike, k: int, *, among: NDArray[np.bool_] | None = None
    ) -> NDArray[np.intp]:
        """The ``k`` words nearest to each query, nearest first (shape ``(len(queries),
        min(k, size))``): exactly the ``k`` smallest Euclidean distances in real arithmetic,
        ties to the lowest row, whichever screen runs. With ``among`` (one flag per word), the
        ``k`` nearest of the flagged words alone (``min(k, flagged)`` of them): the BLAS screen
        scores every other word +inf, so nothing is built or kept for the subset (for a few
        queries: :func:`~authormask.mechanisms.decoding.candidate_rows`).

        Certified as :meth:`nearest` is: a float32 screen (the fused kernel, or BLAS for the
        first :data:`SMALL_QUERIES` queries of an ``auto`` index and for a ``blas`` one) lists
        the :data:`K_MARGIN` more than ``k`` smallest scores; when the last of them exceeds the
        ``k``-th by more than twice the proven error bound, no word left out can be among the
        ``k`` nearest, and the listed words are ranked by float64 distance, with exact rationals
        where float64 cannot order the ``k``-th and the next. Queries the screen cannot certify
        (or too long for float32) get their candidates from a float64 scan of the whole
        vocabulary with its own bound. So the result is a function of the query and the
        vocabulary alone: the same with the fused kernel, with BLAS and on any number of
        threads (the order within the ``k`` is that of float64 distances).

        Parameters
        ----------
        queries
            The query vectors, one row each.
        k
            The number of words per query.
        among
            One flag per word: the words to search among, or None (every word).

        Returns
        -------
        NDArray[np.intp]
            The rows of the words, nearest first, one row of them per query.

        Raises
        ------
        ValueError
            If ``among`` does not hold one flag per word.
        """
        z = np.atleast_2d(np.asarray(queries, dtype=np.float64))
        sq: NDArray[np.float32] | None = None
        searched = self.size
        if among is not None:
            among = np.asarray(among, dtype=bool)
            if among.shape != (self.size,):
                raise ValueError(f"among must hold one flag per word ({self.size})")
            searched = int(np.count_nonzero(among))
        k = min(int(k), searched)
        out = np.empty((z.shape[0], k), dtype=np.intp)
        if z.shape[0] == 0 or k == 0:
            return out
        if among is not None and searched <= k + K_MARGIN:
            # as few words as a screen would list: each query ranks them all, exactly (a
            # screen could certify none of its queries, and a float64 scan of the whole
            # vocabulary would follow for each)
            _checked_norms(z)
            rows = np.flatnonzero(among)
            for s in range(0, z.shape[0], _EXACT_BLOCK):
                part = z[s : s + _EXACT_BLOCK]
                out[s : s + part.shape[0]] = self._exact_k(
                    part, np.broadcast_to(rows, (part.shape[0], rows.size)), k
                )
            return out
        if among is not None:  # the BLAS screen, every word not searched scored +inf
            fused = False
            sq = np.where(among, self._screen_sq(), np.float32(np.inf)).astype(np.float32)
        else:
            fused = self._use_fused(z.shape[0], SMALL_K_QUERIES)
        starts = list(range(0, z.shape[0], self._query_block))

        def block(start: int) -> None:
            zb = z[start : start + self._query_block]
            out[start : start + zb.shape[0]] = self._k_nearest_block(
                zb, k, fused, among=among, sq=sq, searched=searched
            )

        with single_threaded_blas():
            if self._n_jobs == 1 or len(starts) == 1:
                for s in starts:
                    block(s)
            else:
                with ThreadPoolExecutor(self._n_jobs) as pool:
                    list(pool.map(block, starts))
        return out

    def _k_nearest_block(
        self,
        z: NDArray[np.float64],
        k: int,
        fused: bool,
        *,
        among: NDArray[np.bool_] | None = None,
        sq: NDArray[np.float32] | None = None,
        searched: int | None = None,
    ) -> NDArray[np.intp]:
        """The exact ``k`` nearest of one block of queries (:meth:`k_nearest`), among the
        ``searched`` words flagged by ``among`` (scored ``sq`` by the screen) where given: the
        certificate is the same, since every word left out of the listed ones, flagged or
        not, scores at least the last of them."""
        qnorm = _checked_norms(z)
        m = self._max_norm
        unsafe = (qnorm > _FLOAT32_SAFE_NORM) | (2.0 * qnorm * m + m * m > _FLOAT32_SAFE_SCORE)
        n = self.size if searched is None else searched
        listed = min(n, k + K_MARGIN)
        out = np.empty((z.shape[0], k), dtype=np.intp)
        certified = np.zeros(z.shape[0], dtype=bool)
        if listed < n and not np.all(unsafe):
            zs = np.where(unsafe[:, None], 0.0, z)
            top, arg = self._top_fused(zs, listed) if fused else self._top_blas(zs, listed, sq)
            gap = top[:, listed - 1].astype(np.float64) - top[:, k - 1].astype(np.float64)
            certified = (gap > 2.0 * self._error_bound(qnorm)) & ~unsafe  # NaN: not certified
            idx = np.flatnonzero(certified)
            for s in range(0, idx.size, _EXACT_BLOCK):  # bounded memory: see _EXACT_BLOCK
                part = idx[s : s + _EXACT_BLOCK]
                out[part] = self._exact_k(z[part], arg[part], k)
        rest = np.flatnonzero(~certified)
        for i in rest:
            cand = self._k_candidates_float64(z[i], qnorm[i], k, among)
            out[i] = self._exact_k(z[i : i + 1], cand[None, :], k)[0]
        return out

    def _top_fused(
        self, z: NDArray[np.float64], listed: int
    ) -> tuple[NDArray[np.float32], NDArray[np.intp]]:
        """The ``listed`` smallest float32 scores per query, ascending, and their words (the
        fused kernel: every word left out scores at least the last of them)."""
        from authormask.embeddings import _fused, _fused_topk

        assert self._panels is not None and self._panel_sq is not None
        b = z.shape[0]
        tile = _fused.QUERY_TILE
        y = np.zeros((-(-b // tile) * tile, self.dimension), dtype=np.float32)
        y[:b] = z
        y *= -2.0  # exact: a power of two
        top = np.empty((y.shape[0], listed), dtype=np.float32)
        arg = np.empty((y.shape[0], listed), dtype=np.int64)
        _fused_topk.topk(y, self._panels, self._panel_sq, top, arg)
        return top[:b], arg[:b].astype(np.intp)

    def _top_blas(
        self, z: NDArray[np.float64], listed: int, sq: NDArray[np.float32] | None = None
    ) -> tuple[NDArray[np.float32], NDArray[np.intp]]:
        """The same by BLAS: float32 scores ``(-2 z) . w + ||w||^2`` (the error bound covers
        any summation order), :data:`_TOP_BLOCK` queries at a time, partitioned (``sq``: the
        squared norms to add, +inf for a word not searched)."""
        b = z.shape[0]
        top = np.empty((b, listed), dtype=np.float32)
        arg = np.empty((b, listed), dtype=np.intp)
        if sq is None:
            sq = self._screen_sq()
        for s in range(0, b, _TOP_BLOCK):
            y = np.asarray(z[s : s + _TOP_BLOCK], dtype=np.float32) * np.float32(-2.0)
            scores = y @ self._w.T
            scores += sq
            part = _smallest_columns(scores, listed)
            values = np.take_along_axis(scores, part, axis=1)
            order = np.lexsort((part, values), axis=1)
            arg[s : s + _TOP_BLOCK] = np.take_along_axis(part, order, axis=1)
            top[s : s + _TOP_BLOCK] = np.take_along_axis(values, order, axis=1)
        return top, arg

    def _k_candidates_float64(
        self,
        z: NDArray[np.float64],
        qnorm: float,
        k: int,
        among: NDArray[np.bool_] | None = None,
    ) -> NDArray[np.intp]:
        """Every word that can be among the ``k`` nearest of one query, from a float64 scan of
        the whole vocabulary: those within twice the float64 bound of the ``k``-th score (of
        the words flagged by ``among`` alone, where given)."""
        w64, sq = self._float64_vocabulary()
        tol = 2.0 * float(self._error_bound(np.array([qnorm]), _U64, _TINY64)[0])
        scores = w64 @ z
        scores *= -2.0
        scores += sq
        if among is not None:
            scores[~among] = np.inf
        kth = float(np.partition(scores, k - 1)[k - 1])
        keep = scores <= kth + 2.0 * tol
        if among is not None:
            keep &= among  # (a bound that overflows to inf would take the others too)
        return np.flatnonzero(keep)

    def _exact_k(self, z: NDArray[np.float64], cand: NDArray[np.intp], k: int) -> NDArray[np.intp]:
        """The ``k`` nearest of each query among its candidates (a set that holds them all),
        nearest first, ties to the lowest row: float64 distances, and exact rationals wherever
        float64 cannot order two words (at the ``k``-th place, which decides the set, and
        between two of the ``k``, which decides their order)."""
        diff = self._w[cand].astype(np.float64) - z[:, None, :]  # (queries, candidates, dim)
        dist = _norms(diff.reshape(-1, diff.shape[2])).reshape(cand.shape)
        order = np.lexsort((cand, dist), axis=1)
        ranked = np.take_along_axis(cand, order, axis=1)
        d = np.take_along_axis(dist, order, axis=1)
        out = ranked[:, :k].copy()
        # each float64 distance is within a relative 1e-13 of the exact one (a correctly
        # rounded difference per coordinate, then the norm): 1e-12 separates them
        margin = 1e-12 * (d[:, k - 1] + 1.0)
        if cand.shape[1] > k:
            unsure = ~(d[:, k] - d[:, k - 1] > margin)
            for i in np.flatnonzero(unsure):
                low, high = d[i, k - 1] - margin[i], d[i, k - 1] + margin[i]
                sure = int(np.count_nonzero(d[i] < low))
                between = np.flatnonzero((d[i] >= low) & (d[i] <= high))
                exact = [
                    (_exact_sq_distance(self._w[r], z[i]), int(r))
                    for r in ranked[i, between].tolist()
                ]
                chosen = [r for _, r in sorted(exact)[: k - sure]]
                out[i] = np.concatenate([ranked[i, :sure], np.array(chosen, dtype=np.intp)])
        # the order within the k: where two neighbours are within float64's error of each
        # other, their run is ordered exactly (so the order, too, is the same on every path)
        close = ~(np.diff(d[:, :k], axis=1) > margin[:, None])
        for i in np.flatnonzero(np.any(close, axis=1)):
            out[i] = self._exactly_ordered(z[i], out[i])
        return out

    def _exactly_ordered(self, z: NDArray[np.float64], rows: NDArray[np.intp]) -> NDArray[np.intp]:
        """``rows`` (nearest first by float64) with each run of neighbours that float64 cannot
        order put in exact order (ties to the lowest row)."""
        w = self._w[rows].astype(np.float64)
        d = _norms(w - z)
        margin = 1e-12 * (float(d.max()) + 1.0)
        out = rows.copy()
        start = 0
        while start < len(rows):
            stop = start + 1
            while stop < len(rows) and not d[stop] - d[stop - 1] > margin:
                stop += 1
            if stop - start > 1:
                run = [(_exact_sq_distance(self._w[r], z), int(r)) for r in rows[start:stop]]
                out[start:stop] = [r for _, r in sorted(run)]
            start = stop
        return out

    def _screen_block(
        self, z: NDArray[np.float64], fused: bool
    ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
        """The screens of one block (the integer screen first where it runs, then the float32
        screen, fused kernel or BLAS, for what it leaves): the best row per query and which of
        them are not certified (to be decided by :meth:`_resolve_exactly`)."""
        qnorm = _norms(z)
        # float32 cannot screen a query this long (its scores could overflow): float64 decides
        m = self._max_norm
        unsafe = (qnorm > _FLOAT32_SAFE_NORM) | (2.0 * qnorm * m + m * m > _FLOAT32_SAFE_SCORE)
        if np.all(unsafe):
            return np.zeros(z.shape[0], dtype=np.intp), unsafe
        zs = np.where(unsafe[:, None], 0.0, z)
        words = self._integer_words() if fused else None
        if words is not None:
            # the integer screen first; the float32 screen takes what it cannot certify
            arg, left = self._screen_integer(zs, qnorm, words)
            redo = np.flatnonzero(left & ~unsafe)
            if redo.size:
                arg[redo], left[redo] = self._screen_float32(zs[redo], qnorm[redo], True)
            return arg, left | unsafe
        arg, uncertain = self._screen_float32(zs, qnorm, fused)
        return arg, uncertain | unsafe

    def _screen_float32(
        self, z: NDArray[np.float64], qnorm: NDArray[np.float64], fused: bool
    ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
        """The float32 screen (fused kernel or BLAS) of queries safe for it: the best row of
        each and whether it is not certified (a gap to the runner-up within twice the bound)."""
        if fused:
            best, second, arg = self._screen_fused(z)
        else:
            best, second, arg = self._screen_blas(z)
        tol = self._error_bound(qnorm)
        gap = second.astype(np.float64) - best.astype(np.float64)
        uncertain: NDArray[np.bool_] = ~(gap > 2.0 * tol)  # a NaN gap is uncertain
        return arg, uncertain

    def _integer_bound(
        self,
        z: NDArray[np.float64],
        qnorm: NDArray[np.float64],
        s_q: NDArray[np.float64],
        words: _IntegerPanels,
    ) -> NDArray[np.float64]:
        """Bound on |approximate - exact score| of every word under the integer screen.

        With ``y = -2 z = s_q Y + d`` (|d_k| <= e_q = s_q / 2) and ``w = s_w W + e``
        (|e_k| <= e_w, the vocabulary's largest quantisation error),
        ``|y.w - s_q s_w Y.W| <= e_q ||w||_1 + e_w ||y||_1 + n e_q e_w`` (expand the product),
        with ``||w||_1`` at most the vocabulary's largest (``l1``). ``D = Y.W`` is exact in
        int32 (no overflow, by the choice of the limit); ``float32(D)`` rounds once, the product
        by the power of two ``s_q s_w`` is exact (a normal float32, checked by the caller) and
        the addition of ``||w||^2`` (rounded to float32 once; its float64 sum's error is far
        below that) rounds once more: at most ``4 u (P + M^2)`` together, with
        ``P = sum |s_q Y_k| |s_w W_k| <= ||y|| M + e_q l1 + e_w ||y||_1 + n e_q e_w``. The sum,
        doubled for good measure, plus :meth:`_error_bound`'s term for gradual underflow.
        """
        u = _U32
        n = self.dimension
        m = self._max_norm
        e_q = s_q / 2.0
        e_w = words.error
        y1 = 2.0 * np.abs(z).sum(axis=1)
        quantised = e_q * words.l1 + e_w * y1 + n * e_q * e_w
        products = 2.0 * qnorm * m + quantised
        bound: NDArray[np.float64] = 2.0 * (quantised + 4.0 * u * (products + m * m))
        return bound + (n + 3) * 4 * _TINY32 * (1.0 + m)

    def _screen_integer(
        self, z: NDArray[np.float64], qnorm: NDArray[np.float64], words: _IntegerPanels
    ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
        """The integer screen (:mod:`._fused16`) of queries safe for float32: the exact nearest
        word of each query it certifies, and which it does not (to be screened in float32).

        The kernel lists each query's :data:`~._fused16.LISTED` smallest approximate scores;
        every word left out scores at least the last listed ``a``, so at least ``a - E``
        exactly (``E``: :meth:`_integer_bound`). The listed words' scores are computed in
        float64 (bound ``t``, :meth:`_error_bound`); the best of them is the exact nearest word
        when it is below ``a - E`` by more than ``t`` and below the second listed by more than
        ``2 t``. Anything else, a near-tie among the listed included, is left to the float32
        screen and, past it, to the exact decision."""
        from authormask.embeddings import _fused16

        b = z.shape[0]
        y, s_q = _fused16.quantise_queries(z, words.panels.shape[1])
        scale = s_q * words.scale  # a power of two: exact in float32 where it is normal
        usable = (scale >= 2.0**-120) & (scale <= 2.0**60)
        scale32 = np.zeros(y.shape[0], dtype=np.float32)
        scale32[:b] = np.where(usable, scale, 0.0)
        top = np.empty((y.shape[0], _fused16.LISTED), dtype=np.float32)
        rows = np.empty((y.shape[0], _fused16.LISTED), dtype=np.int64)
        _fused16.screen(y, words.panels, words.sq, scale32, top, rows, _NO_SCORES)
        top, rows = top[:b], rows[:b]
        listed = rows >= 0
        cand = np.where(listed, rows, 0)
        w64 = self._w[cand].astype(np.float64)  # (b, LISTED, n)
        exact = self._sq[cand] - 2.0 * np.einsum("bln,bn->bl", w64, z)
        exact[~listed] = np.inf
        order = np.argsort(exact, axis=1, kind="stable")
        first = np.take_along_axis(exact, order[:, :1], axis=1)[:, 0]
        second = np.take_along_axis(exact, order[:, 1:2], axis=1)[:, 0]
        t = self._error_bound(qnorm, _U64, _TINY64)
        bound = self._integer_bound(z, qnorm, s_q, words)
        last = top[:, -1].astype(np.float64)
        with np.errstate(invalid="ignore"):  # inf - inf where fewer words than listed
            certified = (
                usable
                & np.isfinite(first)
                & (first + t < last - bound)
                & (second - first > 2.0 * t)
            )
        arg = np.take_along_axis(cand, order[:, :1], axis=1)[:, 0].astype(np.intp)
        return arg, ~certified

    def _screen_fused(
        self, z: NDArray[np.float64]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.intp]]:
        """Best and second-best float32 score and best word per query (fused kernel)."""
        from authormask.embeddings import _fused

        assert self._panels is not None and self._panel_sq is not None
        b = z.shape[0]
        tile = _fused.QUERY_TILE
        y = np.zeros((-(-b // tile) * tile, self.dimension), dtype=np.float32)
        y[:b] = z
        y *= -2.0  # exact: a power of two
        best = np.empty(y.shape[0], dtype=np.float32)
        second = np.empty(y.shape[0], dtype=np.float32)
        arg = np.empty(y.shape[0], dtype=np.int64)
        _fused.screen(y, self._panels, self._panel_sq, best, second, arg, _NO_SCORES)
        return best[:b], second[:b], arg[:b].astype(np.intp)

    def _screen_blas(
        self, z: NDArray[np.float64]
    ) -> tuple[NDArray[np.float32], NDArray[np.float32], NDArray[np.intp]]:
        """Best and second-best float32 score and best word per query (blocked BLAS product).

        Each score is ``(-2 z) . w`` by ``sgemm`` plus ``||w||^2`` in one more rounding: a
        length-(n+1) float32 dot product summed in one particular order, which the error bound
        covers (the factor -2 is exact)."""
        b = z.shape[0]
        y = np.empty((b, self.dimension), dtype=np.float32)
        y[:] = z
        y *= -2.0  # exact: a power of two
        sq = self._screen_sq()
        best = np.full(b, np.inf, dtype=np.float32)
        second = np.full(b, np.inf, dtype=np.float32)
        arg = np.zeros(b, dtype=np.intp)
        rows = np.arange(b)
        buf = np.empty((b, self._vocab_block), dtype=np.float32)
        v = self.size
        for s in range(0, v, self._vocab_block):
            e = min(s + self._vocab_block, v)
            scores = buf[:, : e - s]
            np.matmul(y, self._w[s:e].T, out=scores)
            scores += sq[s:e]
            a = np.argmin(scores, axis=1)
            m1 = scores[rows, a]
            scores[rows, a] = np.inf
            m2 = np.min(scores, axis=1) if e - s > 1 else np.full(b, np.inf, np.float32)
            # merge (best, second) with this block's (m1, m2)
            better = m1 < best
            new_second = np.where(better, np.minimum(best, m2), np.minimum(second, m1))
            best = np.where(better, m1, best)
            arg = np.where(better, a + s, arg)
            second = new_second
        return best, second, arg

    def _resolve_exactly(self, z: NDArray[np.float64]) -> NDArray[np.intp]:
        """Decide queries the screen could not certify: find every word that could be the
        minimum (a screen with a proven error bound), then compare those words' distances in
        float64 and, where float64 cannot separate them, with exact rationals."""
        qnorm = _norms(z)
        if np.any(qnorm > _FLOAT64_SAFE_NORM):
            raise ValueError(
                f"a noisy vector of length {qnorm.max():.3g} is beyond what float64 can snap "
                "exactly"
            )
        m = self._max_norm
        unsafe = (qnorm > _FLOAT32_SAFE_NORM) | (2.0 * qnorm * m + m * m > _FLOAT32_SAFE_SCORE)
        out = np.empty(z.shape[0], dtype=np.intp)
        if self._backend == "fused" and not np.all(unsafe):
            safe = np.flatnonzero(~unsafe)
            out[safe] = self._decide(z[safe], self._candidates_fused(z[safe], qnorm[safe]))
        else:
            unsafe[:] = True
        if np.any(unsafe):
            rest = np.flatnonzero(unsafe)
            out[rest] = self._decide(z[rest], self._candidates_float64(z[rest], qnorm[rest]))
        return out

    def _candidates_fused(
        self, z: NDArray[np.float64], qnorm: NDArray[np.float64]
    ) -> list[NDArray[np.intp]]:
        """Words whose float32 score is within twice the error bound of the smallest: every
        word that can be nearest is among them (|computed - exact| <= bound for each score)."""
        from authormask.embeddings import _fused

        assert self._panels is not None and self._panel_sq is not None
        tol = self._error_bound(qnorm)
        tile = _fused.QUERY_TILE
        y = np.zeros((tile, self.dimension), dtype=np.float32)
        scores = np.empty((tile, self._panels.shape[0] * _fused.PANEL), dtype=np.float32)
        best = np.empty(tile, dtype=np.float32)
        second = np.empty(tile, dtype=np.float32)
        arg = np.empty(tile, dtype=np.int64)
        out: list[NDArray[np.intp]] = []
        for start in range(0, z.shape[0], tile):
            part = z[start : start + tile]
            y[:] = 0.0
            y[: part.shape[0]] = part
            y *= -2.0
            _fused.screen(y, self._panels, self._panel_sq, best, second, arg, scores)
            for i in range(part.shape[0]):
                row = scores[i, : self.size].astype(np.float64)  # compared in float64
                out.append(np.flatnonzero(row <= row.min() + 2.0 * tol[start + i]))
        return out

    def _float64_vocabulary(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The vocabulary in float64 and its squared norms, made on first use (thread-safe)."""
        with self._lock:
            if self._w64 is None or self._sq64 is None:
                self._w64 = self._w.astype(np.float64)
                self._sq64 = np.einsum("ij,ij->i", self._w64, self._w64)
            return self._w64, self._sq64

    def _candidates_float64(
        self, z: NDArray[np.float64], qnorm: NDArray[np.float64]
    ) -> list[NDArray[np.intp]]:
        """The same from a float64 product with the whole vocabulary (long queries, BLAS)."""
        w64, sq = self._float64_vocabulary()
        tol = 2.0 * self._error_bound(qnorm, _U64, _TINY64)
        out: list[NDArray[np.intp]] = []
        for start in range(0, z.shape[0], _RESOLVE_BLOCK):
            scores = z[start : start + _RESOLVE_BLOCK] @ w64.T
            scores *= -2.0
            scores += sq
            for i in range(scores.shape[0]):
                out.append(np.flatnonzero(scores[i] <= scores[i].min() + 2.0 * tol[start + i]))
        return out

    def _decide(
        self, z: NDArray[np.float64], candidates: list[NDArray[np.intp]]
    ) -> NDArray[np.intp]:
        """The nearest candidate of each query: float64 distances, exact rationals where two
        are too close for float64 to order (ties to the lowest row)."""
        out = np.empty(z.shape[0], dtype=np.intp)
        for i, cand in enumerate(candidates):
            w = self._w[cand].astype(np.float64)
            dist = _norms(w - z[i])
            order = np.argsort(dist, kind="stable")
            best = int(order[0])
            if len(cand) > 1 and not dist[order[1]] - dist[best] > 1e-12 * (dist[best] + 1.0):
                best = _exactly_nearest(w, z[i])  # too close for float64: rationals
            out[i] = cand[best]
        return out


def _sha256(a: NDArray[Any]) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).data.cast("B")).hexdigest()[:16]


def _checked_norms(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """The queries' norms; ``ValueError`` where one is not finite or too long to compare."""
    qnorm = _norms(z)
    if np.any(qnorm > _FLOAT64_SAFE_NORM) or not np.all(np.isfinite(z)):
        raise ValueError("queries must be finite and shorter than float64 can compare")
    return qnorm


def _norms(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Row norms without overflow for rows whose squares would exceed float64's range."""
    scale = np.max(np.abs(z), axis=1)
    safe = np.where(scale > 0, scale, 1.0)
    out: NDArray[np.float64] = np.linalg.norm(z / safe[:, None], axis=1) * safe
    return out


def _exact_sq_distance(word: NDArray[Any], query: NDArray[np.float64]) -> Fraction:
    """The squared distance of a word and a query, exactly (rationals of the float inputs)."""
    from fractions import Fraction  # here: exact ties are rare, and a release imports less

    return sum(
        ((Fraction(float(a)) - Fraction(float(b))) ** 2 for a, b in zip(word, query, strict=True)),
        Fraction(0),
    )


def _exactly_nearest(words: NDArray[np.float64], query: NDArray[np.float64]) -> int:
    """Index of the row nearest to ``query`` by exact rational arithmetic on the float64 inputs
    (ties to the lowest index)."""
    best, best_d = 0, None
    for j, w in enumerate(words):
        d = _exact_sq_distance(w, query)
        if best_d is None or d < best_d:
            best, best_d = j, d
    return best


_SHARED: weakref.WeakKeyDictionary[Embeddings, NearestWordIndex] = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


#: the search threads and the screen of shared indexes, set explicitly (the command line sets
#: them from ``AUTHORMASK_THREADS`` and ``AUTHORMASK_NEAREST_BACKEND``; the library never reads
#: the environment)
_THREADS: int | None = None
_BACKEND = "auto"


def _search_threads() -> int | None:
    return _THREADS


def set_search_threads(n: int | None) -> None:
    """The threads every shared index searches with (``None``: every CPU). A Dask worker sets
    1: it runs one task per thread.

    Parameters
    ----------
    n
        The number of threads, >= 1, or None (every CPU).

    Raises
    ------
    InvalidParameterError
        If ``n`` is not None or an integer >= 1.
    """
    global _THREADS
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise InvalidParameterError(f"search threads must be an integer >= 1, got {n!r}")
    with _SHARED_LOCK:
        _THREADS = n
        for index in _SHARED.values():
            index._n_jobs = max(1, n or (os.cpu_count() or 1))


def set_search_backend(backend: str) -> None:
    """The screen of the shared indexes built from now on: ``auto`` (default), ``fused`` or
    ``blas`` (see :class:`NearestWordIndex`).

    Parameters
    ----------
    backend
        ``"auto"``, ``"fused"`` or ``"blas"``.

    Raises
    ------
    InvalidParameterError
        If ``backend`` is unknown.
    """
    global _BACKEND
    if backend not in BACKENDS:
        raise InvalidParameterError(
            f"search backend must be one of {', '.join(BACKENDS)}, got {backend!r}"
        )
    _BACKEND = backend


def search_backend() -> str:
    """The screen of the shared indexes built from now on (:func:`set_search_backend`).

    Returns
    -------
    str
        ``"auto"``, ``"fused"`` or ``"blas"``.
    """
    return _BACKEND


def shared_index(embeddings: Embeddings) -> NearestWordIndex:
    """The search index of ``embeddings``, built once and shared by every mechanism using them
    (it depends on the vectors only, not on epsilon). Its screen is :func:`search_backend`.

    Parameters
    ----------
    embeddings
        The embeddings.

    Returns
    -------
    NearestWordIndex
        Their shared index.
    """
    with _SHARED_LOCK:
        index = _SHARED.get(embeddings)
        if index is None:
            index = NearestWordIndex(
                embeddings.vectors,
                backend=_BACKEND,
                n_jobs=_search_threads(),
                norms=embeddings.squared_norms(),
                index_path=embeddings.index_path,
                vectors_sha256=embeddings.identity.vectors_sha256,
                finite=True,  # an Embeddings' vectors are finite (checked when made or loaded)
            )
            _SHARED[embeddings] = index
        return index
