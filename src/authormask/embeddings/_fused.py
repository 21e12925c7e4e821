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

How it is fast (no score matrix is written or read back):

* a register tile: 4 queries x :data:`PANEL` words of partial scores live in vector registers
  for the whole loop over the coordinates (AVX-512: 4 x 64 words = 16 registers; AVX2 or less:
  4 x 16 words = 8 registers); each step loads one coordinate of the panel's words and of the 4
  queries and issues 4 x PANEL / lanes fused multiply-adds. The tile is a stack array
  (:func:`_stack_f32`): LLVM then knows it cannot alias the inputs and keeps it in registers; a
  heap array is used instead if that intrinsic cannot be compiled (same results, slower);
* panel-major order: one panel (50-d, 64 words: 12.8 KB) stays in the L1 cache while every
  query tile of the block uses it;
* a thresholded top-2: each query keeps its best score, its word and the runner-up as scalars;
  a tile is first checked with a branch-free count of scores below the runner-up and skipped
  when there is none, which is almost always (after ``m`` panels the chance that a panel holds
  a new top-2 score is about ``2 / m``).

``fastmath`` is limited to ``contract`` (fusing a multiply and an add into one rounding); no
reassociation is allowed.

Padding: the caller pads the vocabulary to a whole number of panels with words whose squared
norm is ``+inf`` (score ``+inf``, never the minimum) and the queries to a multiple of
:data:`QUERY_TILE`.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.np.numpy_support import carray

logger = logging.getLogger(__name__)

#: queries screened together by the kernel's register tile
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


def _target_features() -> set[str]:
    """The CPU features numba compiles for (NUMBA_CPU_FEATURES, else the host's)."""
    configured = getattr(numba.config, "CPU_FEATURES", None)
    if configured:
        return {f[1:] for f in str(configured).split(",") if f.startswith("+")}
    import llvmlite.binding as ll

    return {name for name, on in ll.get_host_cpu_features().items() if on}


def _panel_width() -> int:
    """Words per panel: 4 queries x PANEL words must fit the vector registers."""
    return 64 if "avx512f" in _target_features() else 16


def _define_stack_array() -> Any:
    """``_stack_f32(n)``: a pointer to ``n`` float32 on the stack (``n`` a literal), or None
    where numba's internals do not allow it."""
    try:
        from numba.core import cgutils, types
        from numba.core.extending import intrinsic

        @intrinsic
        def stack_f32(typingctx: Any, size: Any) -> Any:
            if not isinstance(size, types.IntegerLiteral):
                return None
            count = size.literal_value

            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                ty = context.get_value_type(types.float32)
                n = context.get_constant(types.intp, count)
                return cgutils.alloca_once(builder, ty, size=n)  # type: ignore[no-untyped-call]

            pointer = types.CPointer(types.float32)  # type: ignore[no-untyped-call]
            return pointer(size), codegen

        return stack_f32
    except Exception as exc:  # pragma: no cover - depends on the numba version
        logger.debug("no stack arrays in this numba (%s)", exc)
        return None


# a module global, not a closure variable: numba's cache key hashes closure variables
_stack_f32 = _define_stack_array()


def _make_screen(panel: int, on_stack: bool) -> Callable[..., None]:
    """The kernel's Python source for a panel width (numba compiles it; see the module notes)."""
    tile = QUERY_TILE
    tile_size = tile * panel

    def _screen(
        y: Any, panels: Any, sq: Any, best: Any, second: Any, arg: Any, scores: Any
    ) -> None:  # pragma: no cover - runs compiled (the tests use the compiled kernel)
        """Best score, its word and second-best score of every query.

        ``y``: (B, n) float32, ``B`` a multiple of QUERY_TILE; ``panels``: (P, n, PANEL);
        ``sq``: (P, PANEL); outputs of length ``>= B``. Ties keep the first word as best and put
        the tied score in ``second`` (a zero gap, never certified). ``scores``: (0, 0), or
        (B, P * PANEL) to also receive every score (the candidates of uncertified queries).
        """
        b, n = y.shape
        n_panels = panels.shape[0]
        keep = scores.shape[0] > 0
        if on_stack:
            acc = carray(_stack_f32(tile_size), (tile, panel))
        else:
            acc = np.empty((tile, panel), np.float32)
        best[:b] = np.inf
        second[:b] = np.inf
        arg[:b] = 0
        for p in range(n_panels):
            w = panels[p]  # stays in L1 while every query tile of the block uses it
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
                for k in range(n):
                    r = w[k]
                    u0 = y0[k]
                    u1 = y1[k]
                    u2 = y2[k]
                    u3 = y3[k]
                    for j in range(panel):
                        e = r[j]
                        acc[0, j] += u0 * e
                        acc[1, j] += u1 * e
                        acc[2, j] += u2 * e
                        acc[3, j] += u3 * e
                if keep:
                    for q in range(tile):
                        for j in range(panel):
                            scores[q0 + q, base + j] = acc[q, j]
                for q in range(tile):
                    runner = second[q0 + q]
                    # a branch-free count first: most tiles hold no score below the runner-up
                    hits = np.int32(0)
                    for j in range(panel):
                        hits += np.int32(acc[q, j] < runner)
                    if hits == 0:
                        continue
                    top = best[q0 + q]
                    top_arg = arg[q0 + q]
                    for j in range(panel):
                        score = acc[q, j]
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

    return _screen


def _jit(function: Callable[..., None]) -> tuple[Any, bool]:
    """Compile with numba's on-disk cache where there is one; (kernel, cached)."""
    try:
        # numba caches next to this file, else in NUMBA_CACHE_DIR or the user's cache folder;
        # a cache it cannot write is reported as a warning, which is no reason to fail here
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return numba.njit(_SIGNATURE, cache=True, **_OPTIONS)(function), True
    except Exception as exc:  # no writable cache location at all: compile in memory
        logger.debug("numba cache unavailable (%s); compiling without it", exc)
    return numba.njit(_SIGNATURE, cache=False, **_OPTIONS)(function), False


def _compile() -> tuple[Any, int, bool, bool, float]:
    """(kernel, panel width, on the stack?, cached?, seconds it took)."""
    t0 = time.perf_counter()
    panel = _panel_width()
    on_stack = _stack_f32 is not None
    try:
        kernel, cached = _jit(_make_screen(panel, on_stack=on_stack))
    except Exception as exc:
        if not on_stack:
            raise
        # the stack intrinsic relies on numba internals: a heap tile gives the same results
        logger.warning("fused search: register tile unavailable (%s); using a heap tile", exc)
        kernel, cached = _jit(_make_screen(panel, on_stack=False))
        on_stack = False
    return kernel, panel, on_stack, cached, time.perf_counter() - t0


#: the compiled kernel (``screen(y, panels, sq, best, second, arg, scores)``), the words per
#: panel it was compiled for, whether its tile is on the stack, whether numba's on-disk cache is
#: in use, and the seconds the first use took (compiling, or loading from the cache)
screen, PANEL, ON_STACK, CACHED, COMPILE_SECONDS = _compile()
logger.debug(
    "fused nearest-word kernel ready in %.2f s (%d-word panels, %s)",
    COMPILE_SECONDS,
    PANEL,
    "on-disk cache" if CACHED else "no cache",
)
