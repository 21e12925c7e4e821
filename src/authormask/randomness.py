"""The single gateway for randomness in authormask.

No module draws from ``numpy.random`` globals; every sampler takes ``random_state`` and passes
it through :func:`check_random_state`. ``None`` means fresh OS entropy (unseeded, the secure
default); an ``int`` seed makes a run reproducible and the privacy statement says so.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

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
    "mechanism_root",
    "public_key",
    "release_order",
    "release_root",
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

    Attributes
    ----------
    seeded
        Whether the randomness was seeded (an int, a Generator or a SeedSequence was given).
    seed
        The int seed when one was given, else None; private.
    """

    seeded: bool
    seed: int | None

    def describe(self) -> str:
        """What the public statement says of the seeding.

        Returns
        -------
        str
            The public wording: seeded or unseeded, never the seed.
        """
        return SEEDED if self.seeded else UNSEEDED


def check_random_state(random_state: RandomState = None) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    ``None`` draws a fresh seed from the operating system's entropy pool, an ``int`` >= 0 seeds a
    PCG64 generator deterministically, and a ``Generator`` is returned unchanged.

    Parameters
    ----------
    random_state
        None, an int seed >= 0, or a numpy Generator.

    Returns
    -------
    np.random.Generator
        A new generator (fresh or seeded), or ``random_state`` itself.

    Raises
    ------
    InvalidParameterError
        If the seed is negative or ``random_state`` is of another type.

    Examples
    --------
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
    """Describe ``random_state``: seeded or not (public) and the seed (private report only).

    Parameters
    ----------
    random_state
        None, an int seed, a numpy Generator or a SeedSequence.

    Returns
    -------
    SeedInfo
        Seeded or not, and the int seed if one was given.
    """
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

    Parameters
    ----------
    random_state
        None, an int seed, a numpy Generator or a SeedSequence (returned unchanged).

    Returns
    -------
    np.random.SeedSequence
        The release's secret root.
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


def public_key(public: str | bytes) -> tuple[int, ...]:
    """The public parameters of a release as eight 32-bit words: the SHA-256 of their text (a
    privacy statement's JSON), mixed into the release's root by :func:`release_root`.

    Parameters
    ----------
    public
        The public parameters' text (str, encoded as UTF-8) or bytes.

    Returns
    -------
    tuple[int, ...]
        The SHA-256 digest as eight 32-bit words.

    Examples
    --------
    >>> len(public_key("{}")), public_key("a") == public_key(b"a")
    (8, True)
    """
    data = public.encode() if isinstance(public, str) else bytes(public)
    digest = hashlib.sha256(data).digest()
    return tuple(int.from_bytes(digest[i : i + 4], "big") for i in range(0, 32, 4))


def release_root(
    random_state: RandomState | np.random.SeedSequence, public: str | bytes
) -> np.random.SeedSequence:
    """The secret root of one release: the secret seed *and* every public parameter of the
    release (``public``: the text of its privacy statement: mechanism, epsilon, decoder,
    parameters, vocabulary identity, policies, version).

    Two releases with one seed but different public parameters (epsilon 7 and 8, say) then draw
    independent noise, so releasing a text twice costs what basic composition says (the
    epsilons add) and no more. Drawn from one root, the Gamma radius and the direction scaled
    by ``1/epsilon`` would be the *same* noise at both epsilons, and the two outputs together
    would reveal far more than either (``v = 8 z8 - 7 z7`` recovers the input vector). A
    release with the same seed and the same public parameters is still byte-identical (a
    resumed or repeated run).

    Parameters
    ----------
    random_state
        The secret seed: None, an int, a numpy Generator or a SeedSequence.
    public
        The release's public parameters: the text of its privacy statement.

    Returns
    -------
    np.random.SeedSequence
        The root keyed by both the seed and the public parameters.

    Raises
    ------
    InvalidParameterError
        If the root has no entropy (cannot happen with :func:`root_seed_sequence`).

    Examples
    --------
    >>> a = release_root(5, "epsilon 7").generate_state(1)
    >>> b = release_root(5, "epsilon 8").generate_state(1)
    >>> bool(a[0] != b[0]), bool(release_root(5, "x").generate_state(1)[0] ==
    ...     release_root(5, "x").generate_state(1)[0])
    (True, True)
    """
    root = root_seed_sequence(random_state)
    entropy = root.entropy
    if entropy is None:  # pragma: no cover - root_seed_sequence always sets it
        raise InvalidParameterError("a release's root has no entropy")
    words = [int(w) for w in entropy] if not isinstance(entropy, int) else [entropy]
    # the key first: it has a fixed length (8 words), so (key, seed) pairs never collide
    return np.random.SeedSequence(
        [*public_key(public), *(int(w) for w in words)], spawn_key=root.spawn_key
    )


def mechanism_root(
    random_state: RandomState | np.random.SeedSequence, mechanism: Any
) -> np.random.SeedSequence:
    """:func:`release_root` of a mechanism's release: keyed by its public statement (as a
    seeded release states it, so only its public parameters count).

    Parameters
    ----------
    random_state
        The secret seed: None, an int, a numpy Generator or a SeedSequence.
    mechanism
        The mechanism to be released (its ``statement(seeded=True)`` is the key).

    Returns
    -------
    np.random.SeedSequence
        The release's root.
    """
    return release_root(random_state, mechanism.statement(seeded=True).to_json())


def document_generator(
    root: np.random.SeedSequence, position: int, content: bytes | None = None
) -> np.random.Generator:
    """The generator of the document at ``position`` of a release, keyed by ``content`` too
    when it is given (the digest of the document's words: a seeded release gives it).

    It depends only on the root, the position and the content, so a document's output does not
    depend on how the release is batched, partitioned or ordered across workers. Keyed by its
    content, a document's noise is its own: two *different* texts released with one secret seed
    and the same public parameters (each the first document of its release, say) draw
    independent noise, where keyed by the position alone they would share it word for word, and
    one text known to an attacker would give away the noise of the other. A text released again
    with the same seed and the same public parameters is still byte-identical; what a reused
    seed shows is whether two texts have the same words, nothing of their noise.

    Parameters
    ----------
    root
        The release's root (:func:`release_root`).
    position
        The document's position in the release's input.
    content
        The digest of the document's words (:func:`authormask.core.sources.words_digest`), or
        None (an unseeded release: its root is fresh entropy already).

    Returns
    -------
    np.random.Generator
        A PCG64 generator of that document alone.

    Examples
    --------
    >>> root = np.random.SeedSequence(5)
    >>> a = document_generator(root, 3).integers(1000)
    >>> b = document_generator(np.random.SeedSequence(5), 3).integers(1000)
    >>> bool(a == b)
    True
    >>> c = document_generator(root, 0, b"one text").integers(2**62)
    >>> d = document_generator(root, 0, b"another text").integers(2**62)
    >>> bool(c != d)
    True
    """
    key: tuple[int, ...] = (*root.spawn_key, int(position))
    if content is not None:
        # the position first, then the content's 32-bit words after a marker that no position
        # reaches: (position, content) pairs never collide with a bare position
        words = public_key(content)
        key = (*key, _CONTENT_KEY, *words)
    child = np.random.SeedSequence(root.entropy, spawn_key=key)
    return np.random.Generator(np.random.PCG64(child))


#: the spawn-key word before a document's content digest: larger than any 32-bit word
_CONTENT_KEY = 2**64 + int.from_bytes(b"content", "big")


#: the spawn key under which a release draws the order of its documents: larger than any
#: document position, so it never names a document's generator
_ORDER_KEY = 2**64 + int.from_bytes(b"order", "big")


def release_order(root: np.random.SeedSequence, n: int) -> list[int]:
    """A secret random order of ``n`` documents, drawn from the release's root: ``order[k]`` is
    the input position of the document that gets the k-th public id.

    Public ids then follow neither the inputs' order nor their (private) names; a seeded
    release draws the same order every time, an unseeded one a fresh order.

    Parameters
    ----------
    root
        The release's root (:func:`release_root`).
    n
        The number of documents.

    Returns
    -------
    list[int]
        A permutation of ``range(n)``.

    Examples
    --------
    >>> release_order(np.random.SeedSequence(5), 4) == release_order(np.random.SeedSequence(5), 4)
    True
    >>> sorted(release_order(np.random.SeedSequence(5), 4))
    [0, 1, 2, 3]
    """
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, _ORDER_KEY))
    return [int(i) for i in np.random.Generator(np.random.PCG64(child)).permutation(n)]
