"""Fused float32 k-nearest kernel: the candidates of posterior decoding.

The same register tile and panel layout as :mod:`authormask.embeddings._fused` (read its notes):
for a block of queries ``y = -2 z`` the kernel computes every score ``||w||^2 - 2 z.w`` and
keeps, per query, the ``k`` smallest scores and their words in increasing order. A tile is first
checked with a branch-free count of scores below the current k-th score and skipped when there
is none, so after the first panels almost no tile costs more than its multiply-adds.

The kernel's float32 scores are a screen: two words whose scores are within rounding of each
other can swap at the k-th place. :meth:`~authormask.embeddings.neighbours.NearestWordIndex.
k_nearest` asks it for more words than it needs and certifies, with the proven error bound,
that no word left out can be among the k nearest (deciding the rest in float64 and by exact
rationals), so the candidates of posterior decoding are exactly the k nearest whichever screen
ran.

Imported lazily, on the first posterior decoding; never by ``import authormask``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numba
import numpy as np
from numba.np.numpy_support import carray

from authormask.embeddings._fused import _OPTIONS, PANEL, QUERY_TILE, _stack_f32

_SIGNATURE = (
    "void(float32[:, ::1], float32[:, :, ::1], float32[:, ::1], float32[:, ::1], int64[:, ::1])"
)


def _make_topk(panel: int, on_stack: bool) -> Any:
    tile = QUERY_TILE
    tile_size = tile * panel

    def _topk(y: Any, panels: Any, sq: Any, top: Any, arg: Any) -> None:  # pragma: no cover
        """``top[q]``/``arg[q]``: the k smallest scores of query q and their words, ascending
        (k = ``top.shape[1]``); ``y``: (B, n) float32, B a multiple of QUERY_TILE."""
        b, n = y.shape
        k = top.shape[1]
        n_panels = panels.shape[0]
        if on_stack:
            acc = carray(_stack_f32(tile_size), (tile, panel))
        else:
            acc = np.empty((tile, panel), np.float32)
        top[:b, :] = np.inf
        arg[:b, :] = -1
        for p in range(n_panels):
            w = panels[p]
            s = sq[p]
            base = p * panel
            for q0 in range(0, b, tile):
                y0 = y[q0]
                y1 = y[q0 + 1]
                y2 = y[q0 + 2]
                y3 = y[q0 + 3]
                for j in range(panel):
                    acc[0, j] = s[j]
                    acc[1, j] = s[j]
                    acc[2, j] = s[j]
                    acc[3, j] = s[j]
                for c in range(n):
                    r = w[c]
                    u0 = y0[c]
                    u1 = y1[c]
                    u2 = y2[c]
                    u3 = y3[c]
                    for j in range(panel):
                        e = r[j]
                        acc[0, j] += u0 * e
                        acc[1, j] += u1 * e
                        acc[2, j] += u2 * e
                        acc[3, j] += u3 * e
                for q in range(tile):
                    row = q0 + q
                    last = top[row, k - 1]
                    hits = np.int32(0)
                    for j in range(panel):
                        hits += np.int32(acc[q, j] < last)
                    if hits == 0:
                        continue
                    for j in range(panel):
                        score = acc[q, j]
                        if score < top[row, k - 1]:
                            i = k - 1
                            while i > 0 and top[row, i - 1] > score:
                                top[row, i] = top[row, i - 1]
                                arg[row, i] = arg[row, i - 1]
                                i -= 1
                            top[row, i] = score
                            arg[row, i] = base + j

    return _topk


def _compile() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for on_stack in (_stack_f32 is not None, False):
            for cache in (True, False):
                try:
                    return numba.njit(_SIGNATURE, cache=cache, **_OPTIONS)(
                        _make_topk(PANEL, on_stack)
                    )
                except Exception:  # pragma: no cover - no cache folder / no stack intrinsic
                    continue
    raise RuntimeError("cannot compile the k-nearest kernel")  # pragma: no cover


#: ``topk(y, panels, sq, top, arg)``: see :func:`_make_topk`
topk = _compile()
