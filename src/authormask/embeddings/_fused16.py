"""Integer screen of the nearest-word search: int16 coordinates, exact int32 dot products.

The float32 kernel (:mod:`authormask.embeddings._fused`) runs at this machine's float32 peak
(two fused multiply-adds of 8 lanes a cycle on AVX2), so a narrower product is the only way to
screen a vocabulary with less CPU. Here every coordinate is a 16-bit integer: a word's
``W = rint(w / s_w)`` (one power of two ``s_w`` for the whole vocabulary) and a query's
``Y = rint(y / s_q)`` (``y = -2 z``, a power of two ``s_q`` per query), both within
``+-LIMIT``, so that ``D = sum_k Y_k W_k`` is computed exactly in int32 (``vpmaddwd``: 16
products a 256-bit instruction, two coordinates summed per lane; no rounding and, by the choice
of ``LIMIT``, no overflow in any order). A word's approximate score is then
``a = fma(float32(D), s_q s_w, ||w||^2)``. Its distance from the exact score
``||w||^2 - 2 z.w`` is bounded for every word (:func:`error_bound`), so the kernel's list of the
:data:`LISTED` smallest approximate scores holds every word that can be nearest whenever the
best exact score among them is below the ``LISTED``-th approximate score by more than the bound:
the caller (:meth:`~authormask.embeddings.neighbours.NearestWordIndex.nearest`) checks exactly
that, decides among the listed words in float64 where it can order the best two, and sends
every other query (a near-tie among the listed included) to the float32 screen and, past it, to
the exact decision. Nothing here decides a word: it only lists candidates, with a proof that no
other word can win.

The register tile is :mod:`._fused`'s: 4 queries x :data:`PANEL` words of int32 partial sums in
vector registers over all coordinate pairs, a panel (25 pairs x 16 words x 4 bytes: 1.6 KB)
read from the L1 cache by every query tile of a block, and a tile skipped when none of its
scores is below its queries' current ``LISTED``-th score. Measured on this project's AVX2
machine (Zen 3, one thread, 100k x 50-d GloVe, 4,096 noisy queries at epsilon 10): 12,600
queries/s against 8,400 for the float32 kernel (1.5x; the whole search, its float64
re-scoring included, 1.4x); every query certified with 4 listed words. Wider tiles were slower
(6 queries: 9,800/s; 8: 7,000/s: they spill registers).

Built only where numba compiles for x86 with AVX2 (``llvm.x86.avx2.pmadd.wd``; its target's
features, ``NUMBA_CPU_NAME``/``NUMBA_CPU_FEATURES`` included); elsewhere :data:`AVAILABLE` is
false and the float32 screen works alone. Imported lazily, with :mod:`._fused`.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

import numpy as np

from authormask.embeddings._fused import _jit, _target_features

logger = logging.getLogger(__name__)

#: queries screened together (the register tile's rows)
QUERY_TILE = 4
#: words per panel (two 8-lane int32 vectors per query)
PANEL = 16
#: the smallest approximate scores listed per query
LISTED = 4
_LANES = 8
#: words quantised at a time (a multiple of PANEL)
_ROWS = 8192

_SIGNATURE = (
    "void(int32[:, ::1], int16[:, :, ::1], float32[:, ::1], float32[::1], float32[:, ::1], "
    "int64[:, ::1], float32[:, ::1])"
)


def limit(n_pairs: int) -> int:
    """The largest |coordinate| for ``n_pairs`` pairs of coordinates: ``2 n_pairs LIMIT^2``
    stays below 2^31, so no partial sum of ``D`` (of two products per lane, in any order)
    overflows int32."""
    return math.isqrt((2**31 - 1) // (2 * n_pairs)) - 1


def _define_tile() -> Any:
    """``_tile16(w, s, y, pairs, acc, r, c)``: one tile's approximate scores (LLVM vector IR
    with ``llvm.x86.avx2.pmadd.wd``); None where numba's internals do not allow it.

    Addresses are integers: ``w`` the panel (``pairs`` x PANEL x 2 int16: word ``j``'s
    coordinates ``2k, 2k+1`` side by side), ``s`` its PANEL squared norms (float32), ``y`` the
    first of QUERY_TILE query rows of ``pairs`` int32 (two int16 each, the same pairs), ``acc``
    QUERY_TILE x PANEL float32 receiving the scores, ``r`` the queries' thresholds, ``c`` their
    scales ``s_q s_w``. The integer sums are exact; score ``[q, j]`` is
    ``fmuladd(float(D), c[q], s[j])``. Returns whether any score is below its query's threshold
    (an ordered comparison)."""
    try:
        from llvmlite import ir
        from numba.core import cgutils, types
        from numba.core.extending import intrinsic

        chunks = PANEL // _LANES

        @intrinsic
        def tile16(
            typingctx: Any,
            w_addr: Any,
            s_addr: Any,
            y_addr: Any,
            pairs: Any,
            acc_addr: Any,
            r_addr: Any,
            c_addr: Any,
        ) -> Any:
            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                wa, sa, ya, nn, aa, ra, ca = args
                f32 = ir.FloatType()
                i32 = ir.IntType(32)
                v_i32 = ir.VectorType(i32, _LANES)
                v_i16 = ir.VectorType(ir.IntType(16), 2 * _LANES)
                v_f32 = ir.VectorType(f32, _LANES)
                intp = context.get_value_type(types.intp)
                pmadd = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
                    builder.module,
                    ir.FunctionType(v_i32, [v_i16, v_i16]),
                    "llvm.x86.avx2.pmadd.wd",
                )
                fmuladd = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
                    builder.module,
                    ir.FunctionType(v_f32, [v_f32, v_f32, v_f32]),
                    f"llvm.fmuladd.v{_LANES}f32",
                )
                zeros = ir.Constant(v_i32, [0] * _LANES)
                lanes0 = ir.Constant(ir.VectorType(i32, _LANES), [0] * _LANES)

                def splat(x: Any, vec: Any) -> Any:
                    v = builder.insert_element(ir.Constant(vec, ir.Undefined), x, i32(0))
                    return builder.shuffle_vector(v, v, lanes0)

                def const(i: int) -> Any:
                    return ir.Constant(intp, i)

                w = builder.inttoptr(wa, v_i16.as_pointer())
                y = builder.inttoptr(ya, i32.as_pointer())
                acc = builder.inttoptr(aa, v_f32.as_pointer())
                s = builder.inttoptr(sa, v_f32.as_pointer())
                thresholds = builder.inttoptr(ra, f32.as_pointer())
                scales = builder.inttoptr(ca, f32.as_pointer())
                # one slot per query and chunk (entry-block allocas: promoted to registers)
                slots = [
                    [cgutils.alloca_once(builder, v_i32) for _ in range(chunks)]  # type: ignore[no-untyped-call]
                    for _ in range(QUERY_TILE)
                ]
                for row in slots:
                    for slot in row:
                        builder.store(zeros, slot)
                with cgutils.for_range(builder, nn) as loop:
                    k = loop.index
                    words = [
                        builder.load(
                            builder.gep(w, [builder.add(builder.mul(k, const(chunks)), const(c))]),
                            align=2,
                        )
                        for c in range(chunks)
                    ]
                    for q, row in enumerate(slots):
                        at = builder.add(builder.mul(const(q), nn), k)
                        u = builder.load(builder.gep(y, [at]))
                        pair = builder.bitcast(splat(u, v_i32), v_i16)
                        for c, slot in enumerate(row):
                            product = builder.call(pmadd, [words[c], pair])
                            builder.store(builder.add(product, builder.load(slot)), slot)
                hit = None
                for q, row in enumerate(slots):
                    scale = splat(builder.load(builder.gep(scales, [const(q)])), v_f32)
                    limit = splat(builder.load(builder.gep(thresholds, [const(q)])), v_f32)
                    for c, slot in enumerate(row):
                        d = builder.sitofp(builder.load(slot), v_f32)
                        sq = builder.load(builder.gep(s, [const(c)]), align=4)
                        a = builder.call(fmuladd, [d, scale, sq])
                        builder.store(a, builder.gep(acc, [const(q * chunks + c)]), align=4)
                        below = builder.fcmp_ordered("<", a, limit)
                        hit = below if hit is None else builder.or_(hit, below)
                bits = builder.bitcast(hit, ir.IntType(_LANES))
                return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(_LANES), 0))

            sig = types.boolean(w_addr, s_addr, y_addr, pairs, acc_addr, r_addr, c_addr)
            return sig, codegen

        return tile16
    except Exception as exc:  # pragma: no cover - depends on the numba version
        logger.debug("no integer tile in this numba (%s)", exc)
        return None


# a module global, not a closure variable: numba's cache key hashes closure variables
_tile16 = _define_tile()


def _make_screen() -> Any:
    tile = QUERY_TILE
    panel = PANEL
    listed = LISTED

    def _screen16(
        y: Any, panels: Any, sq: Any, scale: Any, top: Any, arg: Any, scores: Any
    ) -> None:  # pragma: no cover - runs compiled (the tests use the compiled kernel)
        """The LISTED smallest approximate scores of every query and their words, ascending.

        ``y``: (B, pairs) int32 (two int16 coordinates each), ``B`` a multiple of QUERY_TILE;
        ``panels``: (P, pairs, 2 PANEL) int16; ``sq``: (P, PANEL) float32 (padding words
        +inf); ``scale``: (B,) float32; ``top``/``arg``: (B, LISTED) float32/int64, filled
        (+inf and -1 where fewer words than LISTED); ``scores``: (0, 0), or (B, P * PANEL) to
        also receive every approximate score (the tests check the bound on each). A word is
        listed when its score is below the query's current LISTED-th: a word left out scores
        at least the final LISTED-th, which is what the caller's certificate needs.
        """
        b, pairs = y.shape
        n_panels = panels.shape[0]
        keep = scores.shape[0] > 0
        acc = np.empty((tile, panel), np.float32)
        threshold = np.empty(b, np.float32)
        top[:b, :] = np.inf
        arg[:b, :] = -1
        threshold[:] = np.inf
        w0 = panels.ctypes.data
        s0 = sq.ctypes.data
        y0 = y.ctypes.data
        a0 = acc.ctypes.data
        c0 = scale.ctypes.data
        t0 = threshold.ctypes.data
        for p in range(n_panels):
            wa = w0 + p * (pairs * panel * 4)
            sa = s0 + p * (panel * 4)
            base = p * panel
            for q0 in range(0, b, tile):
                hit = _tile16(wa, sa, y0 + q0 * pairs * 4, pairs, a0, t0 + q0 * 4, c0 + q0 * 4)
                if keep:
                    for q in range(tile):
                        for j in range(panel):
                            scores[q0 + q, base + j] = acc[q, j]
                if not hit:
                    continue
                for q in range(tile):
                    row = q0 + q
                    t = threshold[row]
                    for j in range(panel):
                        v = acc[q, j]
                        if v < t:  # insert, keeping the list ascending
                            i = listed - 1
                            while i > 0 and top[row, i - 1] > v:
                                top[row, i] = top[row, i - 1]
                                arg[row, i] = arg[row, i - 1]
                                i -= 1
                            top[row, i] = v
                            arg[row, i] = base + j
                            t = top[row, listed - 1]
                    threshold[row] = t

    return _screen16


def _compile() -> tuple[Any, bool, float]:
    """(kernel or None, cached?, seconds): None where the CPU has no AVX2 or it cannot be
    built (the float32 screen then works alone)."""
    t0 = time.perf_counter()
    if _tile16 is None or "avx2" not in _target_features():
        return None, False, time.perf_counter() - t0
    try:
        kernel, cached = _jit(_make_screen(), _SIGNATURE)
    except Exception as exc:  # the intrinsic relies on numba internals
        logger.warning("integer screen unavailable (%s); using the float32 screen alone", exc)
        return None, False, time.perf_counter() - t0
    return kernel, cached, time.perf_counter() - t0


#: the compiled kernel (``screen(y, panels, sq, scale, top, arg, scores)``) or None, whether
#: numba's on-disk cache is in use, and the seconds its first use took
screen, CACHED, COMPILE_SECONDS = _compile()
#: whether the integer screen runs on this machine
AVAILABLE = screen is not None
logger.debug("integer nearest-word screen: %s", "ready" if AVAILABLE else "unavailable")


def quantise_vocabulary(
    w: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], float, float, float]:
    """``(panels, s_w, error, l1)``: the words of ``w`` (V x n float32) as :func:`screen`
    reads them, their scale ``s_w`` (a power of two), the largest quantisation error
    ``max |w - s_w W|`` (at most ``s_w / 2``) and the largest ``||w||_1``. Made
    :data:`_ROWS` words at a time (a vocabulary's float64 copy is never held whole)."""
    v, n = w.shape
    pairs = -(-n // 2)
    lim = limit(pairs)
    top = max((float(np.abs(w[r : r + _ROWS]).max()) for r in range(0, v, _ROWS)), default=0.0)
    s_w = _power_of_two_at_least(top / lim)
    n_panels = -(-v // PANEL)
    panels = np.zeros((n_panels, pairs, 2 * PANEL), dtype=np.int16)
    by_word = panels.reshape(n_panels, pairs, PANEL, 2)
    error = l1 = 0.0
    for r in range(0, v, _ROWS):  # _ROWS is a multiple of PANEL
        w64 = w[r : r + _ROWS].astype(np.float64)
        quantised = np.rint(w64 / s_w)
        error = max(error, float(np.abs(w64 - s_w * quantised).max(initial=0.0)))
        l1 = max(l1, float(np.abs(w64).sum(axis=1).max(initial=0.0)))
        rows = np.zeros((-(-w64.shape[0] // PANEL) * PANEL, 2 * pairs), dtype=np.int16)
        rows[: w64.shape[0], :n] = quantised
        p0 = r // PANEL
        # word j of panel p, pair k: by_word[p, k, j, :]
        by_word[p0 : p0 + rows.shape[0] // PANEL] = rows.reshape(-1, PANEL, pairs, 2).transpose(
            0, 2, 1, 3
        )
    return panels, s_w, error, l1


def _power_of_two_at_least(x: float) -> float:
    """The smallest power of two at least ``x`` (finite); 2^-126 where ``x`` is not positive
    (a vocabulary of zeros: every ``W`` is 0, exact)."""
    if not x > 0.0:
        return 2.0**-126
    m, e = math.frexp(x)  # x = m 2^e, 0.5 <= m < 1
    return math.ldexp(1.0, e - 1) if m == 0.5 else math.ldexp(1.0, e)


def quantise_queries(
    z: np.ndarray[Any, Any], n_pairs: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``(Y, s_q)``: the queries ``y = -2 z`` (float64, B x n) as int16 pairs (B' x n_pairs
    int32, B' the next multiple of QUERY_TILE; padding rows zero) and each row's scale (a power
    of two, ``|y - s_q Y| <= s_q / 2`` coordinate by coordinate)."""
    b, n = z.shape
    lim = limit(n_pairs)
    y = -2.0 * z  # exact: a power of two
    top = np.abs(y).max(axis=1) if n else np.zeros(b)
    # the smallest power of two with top / s_q <= lim (so |Y| <= lim)
    with np.errstate(divide="ignore"):
        e = np.ceil(np.log2(np.maximum(top, 2.0**-1000) / lim))
    s_q = np.exp2(e)
    s_q = np.where(top / s_q > lim, s_q * 2.0, s_q)  # log2 rounding, to be sure
    rows = -(-b // QUERY_TILE) * QUERY_TILE
    out = np.zeros((rows, 2 * n_pairs), dtype=np.int16)
    out[:b, :n] = np.rint(y / s_q[:, None])
    return out.view(np.int32), s_q
