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
  queries and issues 4 x PANEL / lanes fused multiply-adds;
* panel-major order: one panel (50-d, 64 words: 12.8 KB) stays in the L1 cache while every
  query tile of the block uses it;
* a thresholded top-2: each query keeps its best score, its word and the runner-up as scalars;
  a tile is first checked against the 4 runners-up and skipped when none of its scores is
  below, which is almost always (after ``m`` panels the chance that a panel holds a new top-2
  score is about ``2 / m``).

The tile is written in LLVM vector IR (:func:`_tile_any_below`, a numba intrinsic): one
``<PANEL x float>`` value per query, ``llvm.fmuladd`` per coordinate, and the skip test as one
vector comparison per query and a single branch per tile. The same loop written in Python (the
fallback, :func:`_make_screen`, used where the intrinsic cannot be compiled) gets the same
multiply-adds from LLVM's vectoriser, but its skip test and the tile's initialisation come out
as scalar code: measured on this project's AVX2 machine (Zen 3, one thread, 100k x 50-d GloVe,
noisy queries at epsilon 10) 4,500 queries/s against 8,100 for the vector tile, with identical
scores, best words and runners-up (the multiply-adds are issued in the same order). In the
Python loop the tile is a stack array (:func:`_stack_f32`), so that LLVM knows it cannot alias
the inputs and keeps it in registers; a heap array is used where that intrinsic cannot be
compiled either (same results, slower).

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
    """The CPU features numba compiles for, as its code generator reads them: its
    ``CPU_FEATURES`` wherever that is set (even empty: ``NUMBA_CPU_NAME=generic`` sets it to
    no feature at all, and an AVX2 intrinsic compiled there aborts the process), else the
    host's."""
    configured = getattr(numba.config, "CPU_FEATURES", None)
    if configured is not None:
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


def _define_vector_tile() -> Any:
    """``_tile_any_below(w, s, y, n, acc, r, PANEL, TILE)``: the scores of one tile, in LLVM
    vector IR; None where numba's internals do not allow it.

    Addresses are integers (``array.ctypes.data`` plus byte offsets): ``w`` the panel
    (``n`` x PANEL float32, coordinate major), ``s`` its PANEL squared norms, ``y`` the first
    of TILE consecutive query rows of ``n`` float32, ``acc`` TILE x PANEL float32 receiving the
    scores, ``r`` the TILE runners-up. Score ``[q, j]`` starts at ``s[j]`` and adds
    ``y[q, k] * w[k, j]`` for ``k = 0 .. n-1`` in that order, each by ``llvm.fmuladd`` (one
    rounding if fused, two if not: the caller's error bound allows either). Returns whether any
    score is below its query's runner-up (an ordered comparison: NaN is never below).
    """
    try:
        from llvmlite import ir
        from numba.core import cgutils, types
        from numba.core.extending import intrinsic

        @intrinsic
        def tile_any_below(
            typingctx: Any,
            w_addr: Any,
            s_addr: Any,
            y_addr: Any,
            n: Any,
            acc_addr: Any,
            r_addr: Any,
            width: Any,
            tile: Any,
        ) -> Any:
            if not (
                isinstance(width, types.IntegerLiteral) and isinstance(tile, types.IntegerLiteral)
            ):
                return None
            panel = int(width.literal_value)
            rows = int(tile.literal_value)

            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                wa, sa, ya, nn, aa, ra = args[:6]
                f32 = ir.FloatType()
                i32 = ir.IntType(32)
                vec = ir.VectorType(f32, panel)
                vptr = vec.as_pointer()
                fptr = f32.as_pointer()
                intp = context.get_value_type(types.intp)
                fmuladd = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
                    builder.module,
                    ir.FunctionType(vec, [vec, vec, vec]),
                    f"llvm.fmuladd.v{panel}f32",
                )
                zeros = ir.Constant(ir.VectorType(i32, panel), [0] * panel)

                def splat(x: Any) -> Any:
                    v = builder.insert_element(ir.Constant(vec, ir.Undefined), x, i32(0))
                    return builder.shuffle_vector(v, v, zeros)

                def const(i: int) -> Any:
                    return ir.Constant(intp, i)

                w = builder.inttoptr(wa, fptr)
                y = builder.inttoptr(ya, fptr)
                acc = builder.inttoptr(aa, fptr)
                runner = builder.inttoptr(ra, fptr)
                s = builder.load(builder.inttoptr(sa, vptr), align=4)
                # one slot per query (entry-block allocas: promoted to registers by LLVM)
                slots = [cgutils.alloca_once(builder, vec) for _ in range(rows)]  # type: ignore[no-untyped-call]
                for slot in slots:
                    builder.store(s, slot)
                with cgutils.for_range(builder, nn) as loop:
                    k = loop.index
                    row = builder.gep(w, [builder.mul(k, const(panel))])
                    r = builder.load(builder.bitcast(row, vptr), align=4)
                    for q, slot in enumerate(slots):
                        u = builder.load(
                            builder.gep(y, [builder.add(builder.mul(const(q), nn), k)])
                        )
                        builder.store(
                            builder.call(fmuladd, [splat(u), r, builder.load(slot)]), slot
                        )
                hit = None
                for q, slot in enumerate(slots):
                    a = builder.load(slot)
                    out = builder.bitcast(builder.gep(acc, [const(q * panel)]), vptr)
                    builder.store(a, out, align=4)
                    below = builder.fcmp_ordered(
                        "<", a, splat(builder.load(builder.gep(runner, [const(q)])))
                    )
                    hit = below if hit is None else builder.or_(hit, below)
                bits = builder.bitcast(hit, ir.IntType(panel))
                return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(panel), 0))

            sig = types.boolean(w_addr, s_addr, y_addr, n, acc_addr, r_addr, width, tile)
            return sig, codegen

        return tile_any_below
    except Exception as exc:  # pragma: no cover - depends on the numba version
        logger.debug("no vector tile in this numba (%s)", exc)
        return None


_tile_any_below = _define_vector_tile()


def _make_vector_screen(panel: int) -> Callable[..., None]:
    """The kernel with its tile in LLVM vector IR (:func:`_tile_any_below`); the same
    arguments and results as :func:`_make_screen`."""
    tile = QUERY_TILE

    def _screen(
        y: Any, panels: Any, sq: Any, best: Any, second: Any, arg: Any, scores: Any
    ) -> None:  # pragma: no cover - runs compiled (the tests use the compiled kernel)
        """See :func:`_make_screen`."""
        b, n = y.shape
        n_panels = panels.shape[0]
        keep = scores.shape[0] > 0
        acc = np.empty((tile, panel), np.float32)
        best[:b] = np.inf
        second[:b] = np.inf
        arg[:b] = 0
        w0 = panels.ctypes.data
        s0 = sq.ctypes.data
        y0 = y.ctypes.data
        r0 = second.ctypes.data
        a0 = acc.ctypes.data
        for p in range(n_panels):
            wa = w0 + p * (n * panel * 4)
            sa = s0 + p * (panel * 4)
            base = p * panel
            for q0 in range(0, b, tile):
                hit = _tile_any_below(wa, sa, y0 + q0 * n * 4, n, a0, r0 + q0 * 4, panel, tile)
                if keep:
                    for q in range(tile):
                        for j in range(panel):
                            scores[q0 + q, base + j] = acc[q, j]
                if not hit:
                    continue
                for q in range(tile):
                    runner = second[q0 + q]
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


def _jit(function: Callable[..., None], signature: str = _SIGNATURE) -> tuple[Any, bool]:
    """Compile with numba's on-disk cache where there is one; (kernel, cached)."""
    try:
        # numba caches next to this file, else in NUMBA_CACHE_DIR or the user's cache folder;
        # a cache it cannot write is reported as a warning, which is no reason to fail here
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return numba.njit(signature, cache=True, **_OPTIONS)(function), True
    except Exception as exc:  # no writable cache location at all: compile in memory
        logger.debug("numba cache unavailable (%s); compiling without it", exc)
    return numba.njit(signature, cache=False, **_OPTIONS)(function), False


def _compile() -> tuple[Any, int, str, bool, float]:
    """(kernel, panel width, its tile (:data:`TILE`), cached?, seconds it took)."""
    t0 = time.perf_counter()
    panel = _panel_width()
    if _tile_any_below is not None:
        try:
            kernel, cached = _jit(_make_vector_screen(panel))
            return kernel, panel, "vector", cached, time.perf_counter() - t0
        except Exception as exc:  # the intrinsic relies on numba internals
            logger.warning("fused search: vector tile unavailable (%s); using a loop tile", exc)
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
    return kernel, panel, "stack" if on_stack else "heap", cached, time.perf_counter() - t0


#: the compiled kernel (``screen(y, panels, sq, best, second, arg, scores)``), the words per
#: panel it was compiled for, its tile (``"vector"``: LLVM vector IR; ``"stack"`` or ``"heap"``:
#: the Python loop with its tile on the stack or the heap), whether numba's on-disk cache is in
#: use, and the seconds the first use took (compiling, or loading from the cache)
screen, PANEL, TILE, CACHED, COMPILE_SECONDS = _compile()
#: whether the loop tile (if that is the kernel) is a stack array
ON_STACK = TILE == "stack"
logger.debug(
    "fused nearest-word kernel ready in %.2f s (%d-word panels, %s tile, %s)",
    COMPILE_SECONDS,
    PANEL,
    TILE,
    "on-disk cache" if CACHED else "no cache",
)
