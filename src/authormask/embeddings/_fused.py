"""Fused float32 distance + best/second-best kernel for :mod:`authormask.embeddings.neighbours`.

Imported lazily (on the first search), never by ``import authormask``: it imports numba and
compiles the kernel (or loads it from numba's on-disk cache).

For a block of queries ``y = -2 z`` (float32) and a vocabulary packed in panels of
:data:`PANEL` words (``panels[p, k, j]`` = coordinate ``k`` of word ``p * PANEL + j``, with
``sq[p, j] = ||w||^2`` rounded to float32), the kernel computes every score
``||w||^2 - 2 z.w`` as a plain float32 dot product of length ``n + 1`` (multiplies and adds, or
fused multiply-adds: each step rounds once, so the error bound of the caller holds whatever the
order) and keeps, per query, the smallest score, its word and the second-smallest score. Nothing
is approximated here: the caller certifies the winner with a proven rounding-error bound and
sends every query it cannot certify to the exact path.

How it is fast (no score matrix is written or read back): the vocabulary is taken one panel of
128 words at a time (50-d: 25 KB, so it stays in the L1 cache while every query of the block
uses it); 4 queries at a time accumulate 4 coordinates per pass over the panel, so every loaded
word vector feeds 4 fused multiply-adds and each partial sum is loaded and stored once per 4
coordinates (LLVM vectorises the 128-word loop: 8 AVX-512 or 16 AVX2 vectors). Each query keeps
its best score, its word and the runner-up as scalars; a panel is first checked with a
branch-free count of scores below the runner-up and skipped when there is none, which is almost
always (after ``m`` panels the chance that a panel holds a new top-2 score is about ``2 / m``).
``fastmath`` is limited to ``contract`` (fusing a multiply and an add into one rounding); no
reassociation is allowed.

Padding: the caller pads the vocabulary to a whole number of panels with words whose squared
norm is ``+inf`` (score ``+inf``, never the minimum) and the queries to a multiple of 4.
"""

from __future__ import annotations

import logging
import time
import warnings
from typing import Any

import numpy as np

logger = logging.getLogger(__name__)

#: words per panel (a multiple of the SIMD width; 50-d: 25 KB, inside the L1 cache)
PANEL = 128
#: queries screened together by the kernel's inner loop
QUERY_TILE = 4

_OPTIONS: dict[str, Any] = {
    "nogil": True,
    "boundscheck": False,
    "error_model": "numpy",
    "fastmath": {"contract"},
}

_SIGNATURE = (
    "void(float32[:, ::1], float32[:, :, ::1], float32[:, ::1], float32[::1], float32[::1], "
    "int64[::1], float32[:, ::1])"
)


def _screen(y: Any, panels: Any, sq: Any, best: Any, second: Any, arg: Any, scores: Any) -> None:
    """Best score, its word and second-best score of every query (see the module notes).

    ``y``: (B, n) float32, ``B`` a multiple of :data:`QUERY_TILE`; ``panels``: (P, n, PANEL);
    ``sq``: (P, PANEL); outputs of length ``>= B``. Ties keep the first word as best and put the
    tied score in ``second`` (a zero gap, never certified). ``scores``: (0, 0), or (B, P * PANEL)
    to also receive every score (used to list the candidates of uncertified queries).
    """
    keep = scores.shape[0] > 0
    b, n = y.shape
    n_panels = panels.shape[0]
    n4 = n - n % 4
    acc = np.empty((QUERY_TILE, PANEL), np.float32)
    best[:b] = np.inf
    second[:b] = np.inf
    arg[:b] = 0
    for p in range(n_panels):
        w = panels[p]  # stays in L1 while every query tile of the block uses it
        s = sq[p]
        base = p * PANEL
        for q0 in range(0, b, QUERY_TILE):
            y0 = y[q0]
            y1 = y[q0 + 1]
            y2 = y[q0 + 2]
            y3 = y[q0 + 3]
            a0 = acc[0]
            a1 = acc[1]
            a2 = acc[2]
            a3 = acc[3]
            for j in range(PANEL):
                a0[j] = s[j]
                a1[j] = s[j]
                a2[j] = s[j]
                a3[j] = s[j]
            for k in range(0, n4, 4):
                r0 = w[k]
                r1 = w[k + 1]
                r2 = w[k + 2]
                r3 = w[k + 3]
                u0, u1, u2, u3 = y0[k], y0[k + 1], y0[k + 2], y0[k + 3]
                v0, v1, v2, v3 = y1[k], y1[k + 1], y1[k + 2], y1[k + 3]
                x0, x1, x2, x3 = y2[k], y2[k + 1], y2[k + 2], y2[k + 3]
                t0, t1, t2, t3 = y3[k], y3[k + 1], y3[k + 2], y3[k + 3]
                for j in range(PANEL):
                    e0 = r0[j]
                    e1 = r1[j]
                    e2 = r2[j]
                    e3 = r3[j]
                    h = a0[j]
                    h += u0 * e0
                    h += u1 * e1
                    h += u2 * e2
                    h += u3 * e3
                    a0[j] = h
                    h = a1[j]
                    h += v0 * e0
                    h += v1 * e1
                    h += v2 * e2
                    h += v3 * e3
                    a1[j] = h
                    h = a2[j]
                    h += x0 * e0
                    h += x1 * e1
                    h += x2 * e2
                    h += x3 * e3
                    a2[j] = h
                    h = a3[j]
                    h += t0 * e0
                    h += t1 * e1
                    h += t2 * e2
                    h += t3 * e3
                    a3[j] = h
            for k in range(n4, n):
                r0 = w[k]
                u0 = y0[k]
                v0 = y1[k]
                x0 = y2[k]
                t0 = y3[k]
                for j in range(PANEL):
                    e0 = r0[j]
                    a0[j] += u0 * e0
                    a1[j] += v0 * e0
                    a2[j] += x0 * e0
                    a3[j] += t0 * e0
            if keep:
                for q in range(QUERY_TILE):
                    for j in range(PANEL):
                        scores[q0 + q, base + j] = acc[q, j]
            for q in range(QUERY_TILE):
                a = acc[q]
                runner = second[q0 + q]
                # a branch-free count first: most panels hold no word below the runner-up
                hits = np.int32(0)
                for j in range(PANEL):
                    hits += np.int32(a[j] < runner)
                if hits == 0:
                    continue
                top = best[q0 + q]
                top_arg = arg[q0 + q]
                for j in range(PANEL):
                    score = a[j]
                    if score < runner:
                        if score < top:
                            runner = top
                            top = score
                            top_arg = base + j
                        else:
                            runner = score
                best[q0 + q] = top
                second[q0 + q] = runner
                arg[q0 + q] = top_arg


def _compile() -> tuple[Any, bool, float]:
    """The compiled kernel, whether it is cached on disk, and the seconds it took to get it."""
    import numba

    t0 = time.perf_counter()
    try:
        # numba caches next to this file, else in NUMBA_CACHE_DIR or the user's cache folder;
        # a cache it cannot write is reported as a warning, which is no reason to fail here
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kernel = numba.njit(_SIGNATURE, cache=True, **_OPTIONS)(_screen)
        return kernel, True, time.perf_counter() - t0
    except Exception as exc:  # no writable cache location at all: compile in memory
        logger.debug("numba cache unavailable (%s); compiling without it", exc)
    kernel = numba.njit(_SIGNATURE, cache=False, **_OPTIONS)(_screen)
    return kernel, False, time.perf_counter() - t0


#: the compiled kernel (``screen(y, panels, sq, best, second, arg, scores)``)
screen, CACHED, COMPILE_SECONDS = _compile()
logger.debug(
    "fused nearest-word kernel ready in %.2f s (%s)",
    COMPILE_SECONDS,
    "on-disk cache" if CACHED else "no cache",
)
