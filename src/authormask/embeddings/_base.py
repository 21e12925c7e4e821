"""Word vectors with a stable identity."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.embeddings.vocabulary import resolve_filter, word_predicate
from authormask.exceptions import EmbeddingsError

__all__ = ["Embeddings", "EmbeddingsIdentity", "set_reloader"]

#: how embeddings with an ``origin`` are loaded again in another process (a Dask worker):
#: :func:`authormask.embeddings.registry.reload_embeddings`, set by the registry, which is the
#: only maker of embeddings with an origin (so it is always set when one is pickled)
_RELOADER: Callable[[tuple[Any, ...], dict[str, Any]], Embeddings] | None = None
#: the rows whose squared norms are computed together (:meth:`Embeddings.squared_norms`)
_NORM_BLOCK = 4096


def set_reloader(reloader: Callable[[tuple[Any, ...], dict[str, Any]], Embeddings]) -> None:
    """Set the function that loads pickled embeddings again from their origin."""
    global _RELOADER
    _RELOADER = reloader


@dataclass(frozen=True)
class EmbeddingsIdentity:
    """What a privacy statement needs to pin down the metric space the guarantee is stated in.

    ``words_sha256`` hashes the ordered word list (one word per line, UTF-8) and
    ``vectors_sha256`` the float32 vector bytes, both truncated to 16 hex digits.
    ``vocabulary_filter`` names the versioned policy that chose which entries of the source may
    be outputs (``"word-like/2"``, see :mod:`authormask.embeddings.vocabulary`), or ``"none"``.

    Attributes
    ----------
    name
        The embeddings' name.
    source
        Where they were loaded from.
    vocab_size
        How many words they have (K).
    dimension
        The length of each vector (n).
    words_sha256
        The hash of the ordered word list.
    vectors_sha256
        The hash of the float32 vector bytes.
    vocabulary_filter
        The versioned vocabulary policy, or ``"none"``.
    """

    name: str
    source: str
    vocab_size: int
    dimension: int
    words_sha256: str
    vectors_sha256: str
    vocabulary_filter: str = "none"

    def to_dict(self) -> dict[str, Any]:
        """The identity as a JSON-ready mapping (for the privacy statement).

        Returns
        -------
        dict[str, Any]
            Every field, by name.
        """
        return {
            "name": self.name,
            "source": self.source,
            "vocab_size": self.vocab_size,
            "dimension": self.dimension,
            "words_sha256": self.words_sha256,
            "vectors_sha256": self.vectors_sha256,
            "vocabulary_filter": self.vocabulary_filter,
        }

    def describe(self) -> str:
        """The identity in one human-readable line.

        Returns
        -------
        str
            Name, size, dimension, hashes and vocabulary filter.
        """
        return (
            f"{self.name} (K={self.vocab_size} words, {self.dimension}-d, "
            f"words sha256 {self.words_sha256}, vectors sha256 {self.vectors_sha256}, "
            f"vocabulary filter {self.vocabulary_filter})"
        )


@dataclass(frozen=True, eq=False)
class Embeddings:
    """A word -> vector mapping ``Vec: S -> R^n`` (Definition 2) over a fixed vocabulary.

    Words are kept in frequency order when the source is ordered that way (GloVe, word2vec,
    fastText and spaCy all are), so :meth:`restrict` keeps the K most frequent words.
    ``vocabulary_filter`` is the versioned name of the filter the words passed
    (:mod:`authormask.embeddings.vocabulary`; ``None``: unfiltered). It is checked, not applied,
    here (a word failing it is an error, so the identity never names a filter the words did not
    pass); :func:`~authormask.embeddings.load_embeddings` applies it before restricting.

    Attributes
    ----------
    name
        The embeddings' name.
    source
        Where they were loaded from.
    words
        The vocabulary, in row order (most frequent first where the source is ordered so).
    vectors
        One float32 row per word, shape ``(len(words), n)``.
    vocabulary_filter
        The versioned name of the filter the words passed, or None (unfiltered).
    origin
        How :func:`~authormask.embeddings.load_embeddings` made them, or None.

    Raises
    ------
    EmbeddingsError
        If the vectors do not match the words, are empty or not finite, a word repeats, or a
        word does not pass ``vocabulary_filter``.
    """

    name: str
    source: str
    words: tuple[str, ...]
    vectors: NDArray[np.float32]
    vocabulary_filter: str | None = None
    #: how :func:`~authormask.embeddings.load_embeddings` made them (name or path, vocab_size,
    #: format, cache folder, filter): a copy sent to another process (a Dask worker) is this
    #: recipe, loaded there once per process and checked against the identity, never the matrix
    origin: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)
    _index: dict[str, int] = field(init=False, repr=False)
    _identity: EmbeddingsIdentity = field(init=False, repr=False)
    #: float64 squared norms of the vectors (from a prepared entry, or computed on first use)
    _norms: NDArray[np.float64] | None = field(init=False, repr=False, default=None)
    #: where the search index of these vectors is kept (beside their prepared entry), if anywhere
    _index_path: Path | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        vectors = np.ascontiguousarray(self.vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(self.words):
            raise EmbeddingsError(
                f"embeddings {self.name!r}: {len(self.words)} words but vectors of shape "
                f"{vectors.shape}"
            )
        if vectors.shape[0] == 0:
            raise EmbeddingsError(f"embeddings {self.name!r} contain no words")
        if not np.all(np.isfinite(vectors)):
            raise EmbeddingsError(f"embeddings {self.name!r} contain NaN or infinite values")
        object.__setattr__(self, "vectors", vectors)
        index: dict[str, int] = {}
        for i, w in enumerate(self.words):
            index.setdefault(w, i)
        if len(index) != len(self.words):
            raise EmbeddingsError(f"embeddings {self.name!r} contain duplicate words")
        object.__setattr__(self, "_index", index)
        if self.vocabulary_filter is not None:
            policy = resolve_filter(self.vocabulary_filter)
            object.__setattr__(self, "vocabulary_filter", policy)
            keep = word_predicate(policy)
            bad = next((w for w in self.words if keep is not None and not keep(w)), None)
            if bad is not None:
                raise EmbeddingsError(
                    f"embeddings {self.name!r}: word {bad!r} does not pass vocabulary filter "
                    f"{policy}"
                )
        words_hash = hashlib.sha256("\n".join(self.words).encode("utf-8")).hexdigest()[:16]
        vectors_hash = hashlib.sha256(vectors.data.cast("B")).hexdigest()[:16]
        identity = EmbeddingsIdentity(
            name=self.name,
            source=self.source,
            vocab_size=len(self.words),
            dimension=int(vectors.shape[1]),
            words_sha256=words_hash,
            vectors_sha256=vectors_hash,
            vocabulary_filter=self.vocabulary_filter or "none",
        )
        object.__setattr__(self, "_identity", identity)

    @classmethod
    def _from_prepared(
        cls,
        *,
        name: str,
        source: str,
        words: tuple[str, ...],
        vectors: NDArray[np.float32],
        vocabulary_filter: str | None,
        origin: tuple[Any, ...] | None,
        identity: EmbeddingsIdentity,
        index_path: Path | None,
        index: dict[str, int] | None = None,
    ) -> Embeddings:
        """Embeddings from a prepared entry (:mod:`authormask.embeddings.prepared`).

        ``identity`` must hold the hashes of ``words`` and ``vectors`` computed as they were
        loaded (the registry computes them; a header's claim is never an identity); ``index``,
        where given, is ``words``' own (each word's row: made while the entry was hashed). The other
        checks of ``__post_init__`` (finite values, the vocabulary filter) were made when the
        entry was built; the squared norms are computed from these vectors on first use."""
        if (
            vectors.dtype != np.float32
            or vectors.ndim != 2
            or vectors.shape != (identity.vocab_size, identity.dimension)
            or len(words) != identity.vocab_size
        ):
            raise EmbeddingsError(f"prepared embeddings {name!r} do not match their identity")
        if index is None:
            index = dict(zip(words, range(len(words)), strict=True))
        obj = object.__new__(cls)
        for key, value in (
            ("name", name),
            ("source", source),
            ("words", words),
            ("vectors", vectors),
            ("vocabulary_filter", vocabulary_filter),
            ("origin", origin),
            ("_index", index),
            ("_identity", identity),
            ("_norms", None),
            ("_index_path", index_path),
        ):
            object.__setattr__(obj, key, value)
        if len(obj._index) != len(words):
            raise EmbeddingsError(f"embeddings {name!r} contain duplicate words")
        return obj

    def squared_norms(self) -> NDArray[np.float64]:
        """``||Vec(w)||^2`` of every word, in float64 (exact for float32 inputs up to one
        rounding per addition).

        Returns
        -------
        NDArray[np.float64]
            One squared norm per word (computed on first use, then kept).
        """
        if self._norms is None:
            # in blocks of rows: the same sums, bit for bit, without a float64 copy of the whole
            # matrix (40 MB for 100,000 50-d words, whose fresh pages took 0.07-0.1 s of a
            # one-sentence release; the blocks take 0.013 s)
            vectors = self.vectors
            norms = np.empty(len(vectors), dtype=np.float64)
            for start in range(0, len(vectors), _NORM_BLOCK):
                w = np.asarray(vectors[start : start + _NORM_BLOCK], dtype=np.float64)
                norms[start : start + len(w)] = np.einsum("ij,ij->i", w, w)
            object.__setattr__(self, "_norms", norms)
        assert self._norms is not None
        return self._norms

    @property
    def index_path(self) -> Path | None:
        """Where the search index of these vectors is cached, if anywhere."""
        return self._index_path

    def _attach_index_path(self, path: Path) -> None:
        object.__setattr__(self, "_index_path", path)

    @property
    def identity(self) -> EmbeddingsIdentity:
        return self._identity

    def __reduce__(self) -> tuple[Any, ...]:
        if self.origin is None:
            return (
                Embeddings,
                (self.name, self.source, self.words, np.asarray(self.vectors)),
                {"vocabulary_filter": self.vocabulary_filter},
            )
        assert _RELOADER is not None  # set by the registry, the maker of every origin
        return (_RELOADER, (self.origin, self._identity.to_dict()))

    def __setstate__(self, state: dict[str, Any]) -> None:  # pragma: no cover - via __reduce__
        for key, value in state.items():
            object.__setattr__(self, key, value)

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self._index

    def index_of(self, word: str) -> int:
        """Row of ``word``; raises ``KeyError`` if it is not in the vocabulary.

        Parameters
        ----------
        word
            A word of the vocabulary.

        Returns
        -------
        int
            Its row in :attr:`vectors`.
        """
        return self._index[word]

    def lookup(self, words: list[str] | tuple[str, ...]) -> NDArray[np.float32]:
        """Vectors of ``words`` (all must be in the vocabulary), shape ``(len(words), n)``.

        Parameters
        ----------
        words
            Words of the vocabulary.

        Returns
        -------
        NDArray[np.float32]
            Their vectors, in the order given.
        """
        return self.vectors[[self._index[w] for w in words]]

    def restrict(self, vocab_size: int | None) -> Embeddings:
        """The embeddings of the ``vocab_size`` most frequent words (the first rows).

        The paper used K = 100,000 (20-author set) and K = 30,000 (50-author set), appendix B.1.

        Parameters
        ----------
        vocab_size
            How many words to keep; None, or at least the vocabulary's size, keeps them all.

        Returns
        -------
        Embeddings
            The restricted embeddings (these ones where nothing is cut).

        Raises
        ------
        EmbeddingsError
            If ``vocab_size`` is below 1.
        """
        if vocab_size is None or vocab_size >= len(self.words):
            return self
        if vocab_size < 1:
            raise EmbeddingsError(f"vocabulary size must be >= 1, got {vocab_size}")
        origin = None
        if self.origin is not None:
            origin = (self.origin[0], vocab_size, *self.origin[2:])
        return Embeddings(
            name=self.name,
            source=self.source,
            words=self.words[:vocab_size],
            vectors=self.vectors[:vocab_size],
            vocabulary_filter=self.vocabulary_filter,
            origin=origin,
        )
