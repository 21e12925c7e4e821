"""The single gateway for randomness in authormask.

No module draws from ``numpy.random`` globals; every sampler takes ``random_state`` and passes
it through :func:`check_random_state`. ``None`` means fresh OS entropy (unseeded, the secure
default); an ``int`` seed makes a run reproducible and the privacy statement says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from authormask.exceptions import InvalidParameterError

__all__ = ["RandomState", "SeedInfo", "check_random_state", "describe_seed"]

RandomState = None | int | np.random.Generator


@dataclass(frozen=True)
class SeedInfo:
    """How the randomness of an output was seeded (goes into the privacy statement)."""

    seeded: bool
    seed: int | None

    def describe(self) -> str:
        return f"seeded ({self.seed})" if self.seeded else "unseeded (OS entropy)"


def check_random_state(random_state: RandomState = None) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` draws a fresh seed from the operating system's entropy pool, an ``int`` >= 0 seeds a
    PCG64 generator deterministically, and a ``Generator`` is returned unchanged.

    >>> a = check_random_state(7).standard_normal()
    >>> b = check_random_state(7).standard_normal()
    >>> a == b
    True
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if int(random_state) < 0:
            raise InvalidParameterError(f"seed must be an integer >= 0, got {random_state!r}")
        return np.random.default_rng(int(random_state))
    raise InvalidParameterError(
        f"random_state must be None, an integer seed or a numpy Generator, got {random_state!r}"
    )


def describe_seed(random_state: RandomState) -> SeedInfo:
    """Describe ``random_state`` for a privacy statement."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return SeedInfo(seeded=True, seed=int(random_state))
    if isinstance(random_state, np.random.Generator):
        return SeedInfo(seeded=True, seed=None)
    return SeedInfo(seeded=False, seed=None)
