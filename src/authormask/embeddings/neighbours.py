"""Exact nearest-vocabulary-word search, batched (the ``Vec^-1`` step of Algorithm 2).

The paper computes ``Vec^-1(z)`` as the word minimising ``||z - Vec(w)||_2`` with one scan of
the whole vocabulary per word (section 6, footnote 14). Here all query vectors of a request are
screened together with a float32 matrix product, ``||w||^2 - 2 z.w`` (the ``||z||^2`` term does
not change the argmin), keeping the best and second-best word per query. A proven bound on the
float32 rounding error certifies the winner whenever the gap to the runner-up exceeds twice that
bound; the (rare) uncertified queries are recomputed with the float64 reference formula. The
result is therefore identical to :func:`brute_force_nearest`, the per-word reference.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

from authormask.embeddings._base import Embeddings

__all__ = ["NearestWordIndex", "brute_force_nearest", "shared_index"]

logger = logging.getLogger(__name__)

_U32 = float(np.finfo(np.float32).eps) / 2  # unit roundoff of float32
_U64 = float(np.finfo(np.float64).eps) / 2  # unit roundoff of float64
#: longer queries are not screened in float32 (scores would overflow) but decided in float64
_FLOAT32_SAFE_NORM = 1e15
#: beyond this float64 products overflow; mechanisms refuse epsilons that get anywhere near it
_FLOAT64_SAFE_NORM = 1e290


def brute_force_nearest(vocab: ArrayLike, queries: ArrayLike) -> NDArray[np.intp]:
    """Reference: for each query, one full float64 scan ``argmin_w ||z - w||_2`` (paper style)."""
    w = np.asarray(vocab, dtype=np.float64)
    z = np.atleast_2d(np.asarray(queries, dtype=np.float64))
    out = np.empty(z.shape[0], dtype=np.intp)
    for i, q in enumerate(z):
        out[i] = int(np.argmin(np.linalg.norm(w - q, axis=1)))
    return out


class NearestWordIndex:
    """Exact batched Euclidean nearest-neighbour search over a fixed vocabulary.

    Parameters
    ----------
    vectors : array (V, n)
        The vocabulary's vectors (kept as float32; the float64 check upcasts rows on demand).
    query_block : int
        Queries screened together (memory ~ ``query_block * vocab_block * 4`` bytes).
    vocab_block : int
        Vocabulary rows per matrix product.
    n_jobs : int, optional
        Worker threads, each screening its own query blocks with a single-threaded BLAS (the
        argmin passes then run in parallel too). Default: the number of CPUs.
    """

    def __init__(
        self,
        vectors: ArrayLike,
        *,
        query_block: int = 256,
        vocab_block: int = 4096,
        n_jobs: int | None = None,
    ) -> None:
        w = np.ascontiguousarray(np.asarray(vectors), dtype=np.float32)
        if w.ndim != 2 or w.shape[0] == 0:
            raise ValueError(f"vectors must be a non-empty 2-D array, got shape {w.shape}")
        self._w = w
        sq = np.einsum("ij,ij->i", w.astype(np.float64), w.astype(np.float64))
        # Augmented rows [-2w, ||w||^2]: one product gives ||w||^2 - 2 z.w for [z, 1].
        aug = np.empty((w.shape[0], w.shape[1] + 1), dtype=np.float32)
        aug[:, :-1] = -2.0 * w
        aug[:, -1] = sq
        self._aug_t = np.ascontiguousarray(aug.T)
        self._max_norm = float(np.sqrt(sq.max()))
        self._query_block = int(query_block)
        self._vocab_block = int(vocab_block)
        self._n_jobs = max(1, int(n_jobs if n_jobs is not None else (os.cpu_count() or 1)))
        self.n_fallback = 0  # queries that needed the float64 reference (for diagnostics)
        self._lock = threading.Lock()
        self._w64: NDArray[np.float64] | None = None  # built on the first float64 fallback
        self._sq64: NDArray[np.float64] | None = None

    @property
    def size(self) -> int:
        return int(self._w.shape[0])

    @property
    def dimension(self) -> int:
        return int(self._w.shape[1])

    def _error_bound(
        self, qnorm: NDArray[np.float64], unit_roundoff: float = _U32
    ) -> NDArray[np.float64]:
        """Bound on |computed score - exact score| for every word, per query.

        The score is a length-(n+1) dot product of [z, 1] with [-2w, ||w||^2]. Rounding the
        inputs to float32 costs at most u per entry, the dot product gamma_{n+1} * sum|x_i y_i|
        (Higham, Accuracy and Stability of Numerical Algorithms, eq. 3.5); with
        sum|x_i y_i| <= 2||z|| ||w|| + ||w||^2 and ||w|| <= max norm, a safe bound is
        (gamma_{n+1} + 3u) * (2 ||z|| M + M^2), doubled for good measure. ``unit_roundoff`` is u
        of the arithmetic used (float32 for the screen, float64 for the fallback).
        """
        u = unit_roundoff
        n = self.dimension + 1
        gamma = n * u / (1 - n * u)
        m = self._max_norm
        return 2.0 * (gamma + 3 * u) * (2.0 * qnorm * m + m * m)

    def nearest(
        self, queries: ArrayLike, *, progress: Callable[[int], None] | None = None
    ) -> NDArray[np.intp]:
        """Row index of the nearest vocabulary vector for each query (exact).

        ``progress``, if given, is called with the number of queries finished after each block.
        """
        z = np.atleast_2d(np.asarray(queries, dtype=np.float64))
        if z.ndim != 2 or z.shape[1] != self.dimension:
            raise ValueError(
                f"queries must have dimension {self.dimension}, got shape {np.shape(queries)}"
            )
        if not np.all(np.isfinite(z)):
            raise ValueError("queries contain NaN or infinite values")
        out = np.empty(z.shape[0], dtype=np.intp)
        starts = list(range(0, z.shape[0], self._query_block))

        def run(start: int) -> int:
            block = z[start : start + self._query_block]
            out[start : start + self._query_block] = self._nearest_block(block)
            return int(block.shape[0])

        if self._n_jobs == 1 or len(starts) == 1:
            for start in starts:
                done = run(start)
                if progress is not None:
                    progress(done)
            return out
        with threadpool_limits(limits=1), ThreadPoolExecutor(self._n_jobs) as pool:
            for done in pool.map(run, starts):
                if progress is not None:
                    progress(done)
        return out

    def _nearest_block(self, z: NDArray[np.float64]) -> NDArray[np.intp]:
        b = z.shape[0]
        qnorm = _norms(z)
        # float32 cannot screen a query this long (its scores would overflow): float64 decides
        too_long = qnorm > _FLOAT32_SAFE_NORM
        za = np.empty((b, self.dimension + 1), dtype=np.float32)
        za[:, :-1] = np.where(too_long[:, None], 0.0, z)
        za[:, -1] = 1.0
        best = np.full(b, np.inf, dtype=np.float32)
        second = np.full(b, np.inf, dtype=np.float32)
        arg = np.zeros(b, dtype=np.intp)
        rows = np.arange(b)
        buf = np.empty((b, self._vocab_block), dtype=np.float32)
        v = self.size
        for s in range(0, v, self._vocab_block):
            e = min(s + self._vocab_block, v)
            scores = buf[:, : e - s]
            np.matmul(za, self._aug_t[:, s:e], out=scores)
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
        tol = self._error_bound(qnorm)
        gap = second.astype(np.float64) - best.astype(np.float64)
        uncertain = ~(gap > 2.0 * tol) | too_long  # a NaN gap is uncertain too
        if np.any(uncertain):
            idx = np.flatnonzero(uncertain)
            with self._lock:
                self.n_fallback += len(idx)
            arg[idx] = self._resolve_exactly(z[idx])
        return arg

    def _resolve_exactly(self, z: NDArray[np.float64]) -> NDArray[np.intp]:
        """Float64 screen, then the reference formula on every word that could be the minimum."""
        with self._lock:
            if self._w64 is None or self._sq64 is None:
                self._w64 = self._w.astype(np.float64)
                self._sq64 = np.einsum("ij,ij->i", self._w64, self._w64)
            w64, sq = self._w64, self._sq64
        qnorm = _norms(z)
        if np.any(qnorm > _FLOAT64_SAFE_NORM):
            raise ValueError(
                f"a noisy vector of length {qnorm.max():.3g} is beyond what float64 can snap "
                "exactly"
            )
        scores = sq[None, :] - 2.0 * (z @ w64.T)
        tol = 2.0 * self._error_bound(qnorm, _U64)
        out = np.empty(z.shape[0], dtype=np.intp)
        for i in range(z.shape[0]):
            cand = np.flatnonzero(scores[i] <= scores[i].min() + 2.0 * tol[i])
            dist = _norms(w64[cand] - z[i])
            order = np.argsort(dist, kind="stable")
            best = int(order[0])
            if len(cand) > 1 and not dist[order[1]] - dist[best] > 1e-12 * (dist[best] + 1.0):
                best = _exactly_nearest(w64[cand], z[i])  # too close for float64: rationals
            out[i] = cand[best]
        return out


def _norms(z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Row norms without overflow for rows whose squares would exceed float64's range."""
    scale = np.max(np.abs(z), axis=1)
    safe = np.where(scale > 0, scale, 1.0)
    out: NDArray[np.float64] = np.linalg.norm(z / safe[:, None], axis=1) * safe
    return out


def _exactly_nearest(words: NDArray[np.float64], query: NDArray[np.float64]) -> int:
    """Index of the row nearest to ``query`` by exact rational arithmetic on the float64 inputs
    (ties to the lowest index)."""
    q = [Fraction(float(x)) for x in query]
    best, best_d = 0, None
    for j, w in enumerate(words):
        d = sum((Fraction(float(a)) - b) ** 2 for a, b in zip(w, q, strict=True))
        if best_d is None or d < best_d:
            best, best_d = j, d
    return best


_SHARED: weakref.WeakKeyDictionary[Embeddings, NearestWordIndex] = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


def shared_index(embeddings: Embeddings) -> NearestWordIndex:
    """The search index of ``embeddings``, built once and shared by every mechanism using them
    (it depends on the vectors only, not on epsilon)."""
    with _SHARED_LOCK:
        index = _SHARED.get(embeddings)
        if index is None:
            index = NearestWordIndex(embeddings.vectors)
            _SHARED[embeddings] = index
        return index
