"""Real numpy PCG64 generators whose first outputs are chosen: tests condition on events of
probability 2^-64 and below (e.g. a first 64-bit word of all ones) without mocking numpy."""

from __future__ import annotations

from typing import Any

import numpy as np

ONES = 2**64 - 1
_MULT = 0x2360ED051FC65DA44385DF649FCCF645  # numpy's PCG64 multiplier
_M128 = (1 << 128) - 1


def pcg64_starting_with(first: int, second: int) -> np.random.Generator:
    """A real numpy Generator (PCG64) whose first two 64-bit outputs are ``first``, ``second``.

    PCG64 steps ``s <- s * MULT + inc`` and outputs ``rotr(hi ^ lo, s >> 122)`` of the new state;
    we pick the two states (rotation 0) and solve for ``inc`` and the starting state.
    """
    s1 = first
    s2 = (1 << 64) | (second ^ 1)
    inc = (s2 - s1 * _MULT) & _M128
    if inc % 2 == 0:
        s2 = (2 << 64) | (second ^ 2)
        inc = (s2 - s1 * _MULT) & _M128
    s0 = ((s1 - inc) * pow(_MULT, -1, 1 << 128)) & _M128
    bg = np.random.PCG64()
    bg.state = {
        "bit_generator": "PCG64",
        "state": {"state": s0, "inc": inc},
        "has_uint32": 0,
        "uinteger": 0,
    }
    gen = np.random.Generator(bg)
    assert gen.bit_generator.random_raw(2).tolist() == [first, second]
    bg.state = {
        "bit_generator": "PCG64",
        "state": {"state": s0, "inc": inc},
        "has_uint32": 0,
        "uinteger": 0,
    }
    return gen


class ForcedOnes(np.random.Generator):
    """A numpy Generator (PCG64) whose first ``n_forced`` 64-bit words are all ones.

    Only full-range ``uint64`` requests (how :mod:`authormask.mechanisms._exact` reads fair bits)
    are affected; everything else comes from the real PCG64 stream. Used to *condition* on events
    of probability ``2^-64`` and below.
    """

    n_forced = 0

    def integers(self, low: Any, high: Any = None, size: Any = None, **kw: Any) -> Any:
        out = super().integers(low, high, size=size, **kw)
        full = kw.get("dtype") is np.uint64 and kw.get("endpoint") and high == ONES
        if full and self.n_forced > 0:
            flat = out.reshape(-1)
            m = min(self.n_forced, flat.size)
            flat[:m] = np.uint64(ONES)
            self.n_forced -= m
        return out
