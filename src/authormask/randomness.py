"""The single gateway for randomness in authormask.

No module draws from ``numpy.random`` globals; every sampler takes ``random_state`` and passes
it through :func:`check_random_state`. ``None`` means fresh OS entropy (unseeded, the secure
default); an ``int`` seed makes a run reproducible and the privacy statement says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from authormask.exceptions import InvalidParameterError

__all__ = [
    "SEEDED",
    "UNSEEDED",
    "RandomState",
    "SeedInfo",
    "check_random_state",
    "describe_seed",
    "document_generator",
    "release_order",
    "root_seed_sequence",
]

SEEDED = "seeded (reproducible; keep the seed secret)"
UNSEEDED = "unseeded (OS entropy)"

RandomState = None | int | np.random.Generator


@dataclass(frozen=True)
class SeedInfo:
    """How the randomness of an output was seeded.

    :meth:`describe` is what the public statement says: whether the run was seeded, never the
    seed (anyone who has the seed can rerun the mechanism on candidate inputs and undo the
    privacy). The seed itself belongs in the private run report only.
    """

    seeded: bool
    seed: int | None

    def describe(self) -> str:
        return SEEDED if self.seeded else UNSEEDED


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


def describe_seed(random_state: RandomState | np.random.SeedSequence) -> SeedInfo:
    """Describe ``random_state``: seeded or not (public) and the seed (private report only)."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return SeedInfo(seeded=True, seed=int(random_state))
    if isinstance(random_state, (np.random.Generator, np.random.SeedSequence)):
        return SeedInfo(seeded=True, seed=None)
    return SeedInfo(seeded=False, seed=None)


def root_seed_sequence(
    random_state: RandomState | np.random.SeedSequence = None,
) -> np.random.SeedSequence:
    """The secret root of a release: ``SeedSequence(seed)``, or fresh OS entropy when unseeded.

    A ``Generator`` contributes 128 bits drawn from it (reproducible if it was seeded).
    """
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(
            [int(x) for x in random_state.integers(0, 2**32, size=4, dtype=np.uint64)]
        )
    check_random_state(random_state)  # validates the int
    return np.random.SeedSequence(int(random_state))


def document_generator(root: np.random.SeedSequence, position: int) -> np.random.Generator:
    """The generator of the document at ``position`` of a release.

    It depends only on the root and the position, so a document's output does not depend on how
    the release is batched, partitioned or ordered across workers.

    >>> root = np.random.SeedSequence(5)
    >>> a = document_generator(root, 3).integers(1000)
    >>> b = document_generator(np.random.SeedSequence(5), 3).integers(1000)
    >>> bool(a == b)
    True
    """
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, int(position)))
    return np.random.Generator(np.random.PCG64(child))


#: the spawn key under which a release draws the order of its documents: larger than any
#: document position, so it never names a document's generator
_ORDER_KEY = 2**64 + int.from_bytes(b"order", "big")


def release_order(root: np.random.SeedSequence, n: int) -> list[int]:
    """A secret random order of ``n`` documents, drawn from the release's root: ``order[k]`` is
    the input position of the document that gets the k-th public id.

    Public ids then follow neither the inputs' order nor their (private) names; a seeded
    release draws the same order every time, an unseeded one a fresh order.

    >>> release_order(np.random.SeedSequence(5), 4) == release_order(np.random.SeedSequence(5), 4)
    True
    >>> sorted(release_order(np.random.SeedSequence(5), 4))
    [0, 1, 2, 3]
    """
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, _ORDER_KEY))
    return [int(i) for i in np.random.Generator(np.random.PCG64(child)).permutation(n)]
