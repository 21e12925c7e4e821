"""The packaged entity recogniser's network in numpy: ``en_core_web_md`` 3.7.1's ``ner``
component (a ``spacy.TransitionBasedParser.v2`` over a ``spacy.Tok2Vec.v2``), computed as spaCy
3.8 computes it with thinc's ``NumpyOps(use_blis=False)``, without importing either.

What it computes, as the pipeline does (``config.cfg`` of the package; thinc 8.3, spaCy 3.8):

1. **Features of each token.** Its ``NORM``, ``PREFIX`` (first character), ``SUFFIX`` (last
   three) and ``SHAPE`` (spaCy's ``word_shape``) strings, each as spaCy's string id (0 for the
   empty string, a symbol's own number for the few strings spaCy reserves, else MurmurHash64A of
   the UTF-8 bytes with seed 1). ``NORM`` is a special case's norm where the tokenizer made the
   token from one, else the pipeline's ``lexeme_norm`` table, else spaCy's ``BASE_NORMS``, else
   the lower case.
2. **Embedding** (``MultiHashEmbed.v2``): each feature hashed with MurmurHash3 x86 128 (the
   8 bytes of the id, the table's seed) into four rows of its table, summed; the token's static
   vector (its ``ORTH`` id's row of the pipeline's vectors, zero where it has none) times a
   projection; the five concatenated, a maxout of 3 pieces and a layer norm. Each is a row's
   own, so a batch's distinct tokens are embedded once each (prose repeats its words).
3. **Encoding** (``MaxoutWindowEncoder.v2``): four residual layers, each the token with its two
   neighbours (zero rows at a document's ends: the documents of a batch are read as one array
   with four zero rows around each, as thinc's ``with_array`` pads them), a maxout of 3 pieces
   and a layer norm; then a linear projection to 64.
4. **The transition parser** (BILUO): each token's three feature vectors precomputed
   (``PrecomputableAffine``); a state reads the token at its buffer's head, the first token of
   its open entity and the token before the head (the padding vector where there is none),
   sums them (in that order, in float32), adds the bias, takes the maximum of 2 pieces and
   scores the 74 moves (``Begin``, ``In``, ``Last``, ``Unit`` of each of the 18 labels, the
   unlabelled ``Unit`` and ``Out``); the best valid move is taken (the first of equal scores).
   A document read fresh has no preset entities and no sentence boundaries, so a move is valid
   as spaCy's ``ner.pyx`` says then: ``Begin`` with no entity open, at least two tokens left and
   not on whitespace; ``In`` of the open entity's label with at least two tokens left; ``Last``
   of its label; ``Unit`` (labelled) with none open and not on whitespace; ``Out`` with none
   open; the unlabelled ``Unit`` never.

Every array operation is the one thinc and spaCy make, on arrays of the same shapes and layouts
(the embedding's on the batch's distinct tokens, at least 64 rows: a row of numpy's product is
the same bits whatever rows are beside it in a product of more than 16 rows), so its float32
results are the same bits: the token vectors are numpy's products, as thinc's
``NumpyOps(use_blis=False)`` makes them (``tests/text/ner`` compares them bit for bit), and the
moves' scores BLIS's, the product spaCy's Cython parser loop makes with BLIS whatever thinc's
ops (BLIS gives a row the same bits whatever the rows multiplied beside it, which numpy's
OpenBLAS does not for 16 rows or fewer). The states with no entity open depend on their token
alone, so they are scored for a whole document at once; within an entity, state by state, as
each depends on the moves before it. On every text of C50 and PAN 2019 (6,472 texts, 379,212
entities) the spans and labels are spaCy's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import blis.py
import numpy as np
from numpy.typing import NDArray

__all__ = ["ARRAYS", "Network", "hash_string", "murmurhash3_128", "word_shape"]

_M64 = (1 << 64) - 1
_M = 0xC6A4A7935BD1E995


def hash_string(text: str) -> int:
    """MurmurHash64A (Austin Appleby) of ``text``'s UTF-8 bytes with seed 1: spaCy's
    ``hash_string``, the id of a string that is not one of spaCy's symbols.

    Parameters
    ----------
    text
        The string.

    Returns
    -------
    int
        The 64-bit hash.
    """
    data = text.encode("utf-8")
    n = len(data)
    h = (1 ^ (n * _M)) & _M64
    end = n - n % 8
    for k in np.frombuffer(data[:end], dtype="<u8").tolist():
        k = (k * _M) & _M64
        k ^= k >> 47
        k = (k * _M) & _M64
        h ^= k
        h = (h * _M) & _M64
    tail = data[end:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * _M) & _M64
    h ^= h >> 47
    h = (h * _M) & _M64
    h ^= h >> 47
    return h


def _fmix64(h: NDArray[np.uint64]) -> NDArray[np.uint64]:
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xFF51AFD7ED558CCD)
    h = h ^ (h >> np.uint64(33))
    h = h * np.uint64(0xC4CEB9FE1A85EC53)
    return h ^ (h >> np.uint64(33))


def murmurhash3_128(ids: NDArray[np.uint64], seed: int) -> NDArray[np.uint32]:
    """MurmurHash3 x64 128 (Austin Appleby) of each 64-bit id with ``seed``, in the form thinc
    writes it for one 8-byte key (``MurmurHash3_x86_128_uint64`` of ``numpy_ops.pyx``, which
    ``NumpyOps.hash`` calls and ``HashEmbed`` reduces modulo its rows).

    Parameters
    ----------
    ids
        The 64-bit ids.
    seed
        The seed (32 bits).

    Returns
    -------
    NDArray[np.uint32]
        The four 32-bit words of each hash (low and high word of each half), shape
        ``(len(ids), 4)``.
    """
    h1 = np.array(ids, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h1 *= np.uint64(0x87C37B91114253D5)
        h1 = (h1 << np.uint64(31)) | (h1 >> np.uint64(33))
        h1 *= np.uint64(0x4CF5AD432745937F)
        h1 ^= np.uint64(seed) ^ np.uint64(8)
        h2 = np.full(len(h1), np.uint64(seed) ^ np.uint64(8), dtype=np.uint64)
        h1 += h2
        h2 += h1
        h1 = _fmix64(h1)
        h2 = _fmix64(h2)
        h1 += h2
        h2 += h1
    low = np.uint64(0xFFFFFFFF)
    return np.stack([h1 & low, h1 >> np.uint64(32), h2 & low, h2 >> np.uint64(32)], axis=1).astype(
        np.uint32
    )


def word_shape(text: str) -> str:
    """spaCy's ``word_shape``: ``X``/``x`` for an upper/lower-case letter, ``d`` for a digit,
    any other character itself, at most four of the same in a row; ``LONG`` for 100 characters
    or more.

    Parameters
    ----------
    text
        A token's text.

    Returns
    -------
    str
        Its shape.

    Examples
    --------
    >>> word_shape("Stephen"), word_shape("C-3PO"), word_shape("1,000,000")
    ('Xxxxx', 'X-dXX', 'd,ddd,ddd')
    """
    if len(text) >= 100:
        return "LONG"
    shape: list[str] = []
    last = ""
    seq = 0
    for char in text:
        if char.isalpha():
            kind = "X" if char.isupper() else "x"
        elif char.isdigit():
            kind = "d"
        else:
            kind = char
        if kind == last:
            seq += 1
        else:
            seq = 0
            last = kind
        if seq < 4:
            shape.append(kind)
    return "".join(shape)


#: each array of the network, its kind of number and number of dimensions
ARRAYS: dict[str, tuple[str, int]] = {
    "embed_norm": ("f", 2),
    "embed_prefix": ("f", 2),
    "embed_suffix": ("f", 2),
    "embed_shape": ("f", 2),
    "embed_seeds": ("u", 1),
    "static_W": ("f", 2),
    "vectors": ("f", 2),
    "vector_keys": ("u", 1),
    "vector_rows": ("i", 1),
    "reduce_W": ("f", 3),
    "reduce_b": ("f", 2),
    "reduce_G": ("f", 1),
    "reduce_beta": ("f", 1),
    "encode_W": ("f", 4),
    "encode_b": ("f", 3),
    "encode_G": ("f", 2),
    "encode_beta": ("f", 2),
    "project_W": ("f", 2),
    "project_b": ("f", 1),
    "lower_W": ("f", 4),
    "lower_b": ("f", 2),
    "lower_pad": ("f", 4),
    "upper_W": ("f", 2),
    "upper_b": ("f", 1),
    "seen": ("f", 1),
    "norm_keys": ("u", 1),
}

_BEGIN, _IN, _LAST, _UNIT, _OUT = "B", "I", "L", "U", "O"
#: the longest word whose features are kept (:meth:`Network.remember`), and how many words'
#: features and strings' ids are kept at most (the first met; a few megabytes each)
_KEPT_CHARS = 64
_KEPT_WORDS = 1 << 16
_KEPT_IDS = 1 << 17
#: the fewest rows the embedding's products are made of when a batch's distinct tokens are
#: embedded once each (:meth:`Network._embed`): well above the 16 rows or fewer that OpenBLAS
#: may round otherwise than a row of a larger product
_DISTINCT_ROWS = 64
#: the windows (first row, rows) of a longer product that :meth:`Network.rows_stand_alone`
#: computes apart: of the fewest rows and more, at offsets within and across OpenBLAS's tiles
_PROBES = ((0, 64), (1, 64), (7, 65), (13, 100), (31, 77), (200, 120), (3, 257))


@dataclass(frozen=True)
class _Moves:
    """The moves by kind: label index of each move, and the moves of each kind."""

    labels: tuple[str, ...]
    begin: NDArray[np.intp]  # move index of B-label i
    inside: NDArray[np.intp]
    last: NDArray[np.intp]
    unit: NDArray[np.intp]
    out: int
    kind: tuple[str, ...]  # each move's kind
    label: tuple[int, ...]  # each move's label index (-1 for none)


def _moves(names: Sequence[str]) -> _Moves:
    labels: list[str] = []
    kinds: list[str] = []
    label_of: list[int] = []
    for name in names:
        kind, _, label = name.partition("-")
        if kind not in (_BEGIN, _IN, _LAST, _UNIT, _OUT):
            raise ValueError(f"unknown move {name!r}")
        kinds.append(kind)
        if label:
            if label not in labels:
                labels.append(label)
            label_of.append(labels.index(label))
        else:
            label_of.append(-1)
    by_kind: dict[str, NDArray[np.intp]] = {}
    for kind in (_BEGIN, _IN, _LAST, _UNIT):
        table = np.full(len(labels), -1, dtype=np.intp)
        for i, (k, lab) in enumerate(zip(kinds, label_of, strict=True)):
            if k == kind and lab >= 0:
                table[lab] = i
        if (table < 0).any():
            raise ValueError(f"a label lacks its {kind} move")
        by_kind[kind] = table
    outs = [i for i, k in enumerate(kinds) if k == _OUT]
    if len(outs) != 1:
        raise ValueError("the moves need exactly one Out")
    return _Moves(
        labels=tuple(labels),
        begin=by_kind[_BEGIN],
        inside=by_kind[_IN],
        last=by_kind[_LAST],
        unit=by_kind[_UNIT],
        out=outs[0],
        kind=tuple(kinds),
        label=tuple(label_of),
    )


def _layer_norm(x: NDArray[np.float32], g: NDArray[np.float32], b: NDArray[np.float32]) -> Any:
    """thinc's ``LayerNorm`` forward, operation for operation."""
    mu = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True) + 1e-08
    y = (x - mu) * var ** (-1.0 / 2.0)
    y = y * g
    y += b
    return y


def _maxout(x: NDArray[np.float32], w: NDArray[np.float32], b: NDArray[np.float32]) -> Any:
    """thinc's ``Maxout`` forward: ``x W^T + b``, the largest of each output's pieces."""
    n_out, n_pieces, n_in = w.shape
    y = np.dot(x, w.reshape(n_out * n_pieces, n_in).T)
    y += b.reshape(n_out * n_pieces)
    z = y.reshape(y.shape[0], n_out, n_pieces)
    # the largest piece (a maximum is exact, so the same bits as thinc's loop); slices
    # rather than a reduction over an axis of 3, which numpy makes slow
    best = z[:, :, 0].copy()
    for piece in range(1, n_pieces):
        np.maximum(best, z[:, :, piece], out=best)
    return best


def _seq2col(x: NDArray[np.float32]) -> NDArray[np.float32]:
    """thinc's ``seq2col`` with a window of 1 over one sequence: each row with the row before
    and after it (zeros beyond the ends)."""
    n, d = x.shape
    out = np.zeros((n, 3 * d), dtype=x.dtype)
    out[1:, :d] = x[:-1]
    out[:, d : 2 * d] = x
    out[:-1, 2 * d :] = x[1:]
    return out


class Network:
    """The recogniser's network over prepared arrays (:data:`ARRAYS`), its moves' names, the
    string ids spaCy reserves (its symbols), its ``lexeme_norm`` table's norms (by the key's
    string id, in ``norm_keys`` order) and spaCy's ``BASE_NORMS``.

    Parameters
    ----------
    arrays
        The arrays.
    moves
        The moves' names (``B-ORG``, ..., ``U-``, ``O``), in the model's order.
    symbols
        spaCy's reserved strings and their ids.
    norm_values
        The ``lexeme_norm`` table's values, in ``arrays["norm_keys"]`` order.
    base_norms
        spaCy's ``BASE_NORMS``.
    """

    def __init__(
        self,
        arrays: Mapping[str, NDArray[Any]],
        moves: Sequence[str],
        symbols: Mapping[str, int],
        norm_values: Sequence[str],
        base_norms: Mapping[str, str],
    ) -> None:
        self._a = {name: arrays[name] for name in ARRAYS}
        self._moves = _moves(moves)
        self._symbols = dict(symbols)
        keys = self._a["norm_keys"]
        if len(keys) != len(norm_values):
            raise ValueError("the norm table's keys and values differ in number")
        self._norm_table = dict(zip(keys.tolist(), norm_values, strict=True))
        self._base_norms = dict(base_norms)
        self._ids: dict[str, int] = {}
        self._lexemes: dict[str, tuple[int, int, int, int, int, bool]] = {}
        self._stand_alone: bool | None = None  # rows_stand_alone(), probed on first use
        self._keep = True
        self._tables = [
            self._a["embed_norm"],
            self._a["embed_prefix"],
            self._a["embed_suffix"],
            self._a["embed_shape"],
        ]
        self._seeds = [int(s) for s in self._a["embed_seeds"].tolist()]
        if len(self._seeds) != 4:
            raise ValueError("the network needs four embedding seeds")
        self._upper_w = np.ascontiguousarray(self._a["upper_W"], dtype=np.float32)
        n = self._a["upper_W"].shape[0]
        if len(moves) != n or self._a["seen"].shape != (n,):
            raise ValueError("the moves and the network's outputs differ in number")
        if not bool(np.all(self._a["seen"] == 1)):
            # spaCy scores a move it never saw in training as the batch's lowest score; the
            # packaged recogniser has none, and that rule is not written here
            raise ValueError("the network has moves it never saw in training")

    def remember(self, keep: bool) -> None:
        """Keep the features of the words read from now on, or keep none and forget those kept
        (``authormask serve`` keeps none: one user's text must not make another's read faster).

        Parameters
        ----------
        keep
            Whether words are kept from now on (if not, those kept so far are forgotten).
        """
        if not keep:
            self._ids.clear()
            self._lexemes.clear()
        self._keep = keep

    @property
    def labels(self) -> tuple[str, ...]:
        """The entity labels, in the model's order."""
        return self._moves.labels

    def string_id(self, text: str) -> int:
        """spaCy's id of ``text``: 0 for the empty string, a symbol's number, else
        :func:`hash_string`.

        Parameters
        ----------
        text
            The string.

        Returns
        -------
        int
            Its id.
        """
        found = self._ids.get(text)
        if found is None:
            if not text:
                found = 0
            else:
                symbol = self._symbols.get(text)
                found = hash_string(text) if symbol is None else symbol
            if self._keep and len(text) <= _KEPT_CHARS and len(self._ids) < _KEPT_IDS:
                self._ids[text] = found
        return found

    def _lexeme(self, word: str) -> tuple[int, int, int, int, int, bool]:
        """A word's ORTH, NORM, PREFIX, SUFFIX and SHAPE ids, and whether it is whitespace."""
        found = self._lexemes.get(word)
        if found is None:
            orth = self.string_id(word)
            norm = self._norm_table.get(orth)
            if norm is None:
                norm = self._base_norms.get(word)
                if norm is None:
                    norm = word.lower()
            sid = self.string_id
            found = (
                orth,
                sid(norm),
                sid(word[:1]),
                sid(word[-3:]),
                sid(word_shape(word)),
                word.isspace(),
            )
            if self._keep and len(word) <= _KEPT_CHARS and len(self._lexemes) < _KEPT_WORDS:
                self._lexemes[word] = found
        return found

    def features(
        self, words: Sequence[str], norms: Sequence[str | None]
    ) -> tuple[NDArray[np.uint64], NDArray[np.uint64], NDArray[np.bool_]]:
        """A document's features: its tokens' ``NORM``, ``PREFIX``, ``SUFFIX``, ``SHAPE`` ids
        (``(n, 4)``), their ``ORTH`` ids and whether each is whitespace.

        Parameters
        ----------
        words
            The tokens' texts.
        norms
            The norm a special case of the tokenizer gave each token, else None.

        Returns
        -------
        tuple
            The feature ids, the ORTH ids and the whitespace flags.
        """
        n = len(words)
        feats = np.empty((n, 4), dtype=np.uint64)
        orth = np.empty(n, dtype=np.uint64)
        space = np.empty(n, dtype=np.bool_)
        rows = [self._lexeme(w) for w in words]
        if n:
            table = np.array([r[:5] for r in rows], dtype=np.uint64)
            orth[:] = table[:, 0]
            feats[:] = table[:, 1:5]
            space[:] = [r[5] for r in rows]
            for i, norm in enumerate(norms):
                if norm is not None:
                    feats[i, 0] = self.string_id(norm)
        return feats, orth, space

    def _embed(self, feats: NDArray[np.uint64], orth: NDArray[np.uint64]) -> Any:
        """``MultiHashEmbed.v2`` over a batch's tokens (step 2 of the module notes), as spaCy
        computes it: one product of every token's row.

        Where this machine's float32 products give a row the same bits whatever rows are
        beside it (:meth:`rows_stand_alone`: OpenBLAS's AVX-512 kernels, in a product of more
        than 16 rows), each distinct token is embedded once (a token's row depends on its five
        ids alone): prose repeats its words,
        77,601 tokens of C50 stories hold 6,928 distinct ones, and this step took 0.47 s of
        their 1.3 s. Elsewhere (OpenBLAS's AVX2 kernels: half the rows of a batch of C50 prose
        differ in their last bits from the same rows embedded apart) every row is computed in
        the batch's own product, as spaCy does, and the vectors are spaCy's bit for bit."""
        n = len(orth)
        if n > _DISTINCT_ROWS and self.rows_stand_alone():
            ids = np.empty((n, 5), dtype=np.uint64)
            ids[:, :4] = feats
            ids[:, 4] = orth
            keys = ids.view(np.dtype((np.void, 40))).ravel()
            _, first, back = np.unique(keys, return_index=True, return_inverse=True)
            if len(first) < n:
                return self._embedded_rows(feats, orth, first)[back.ravel()]
        return self._embedded(feats, orth)

    def rows_stand_alone(self) -> bool:
        """Whether a row of this machine's products of the embedding's shapes has the same bits
        in a product of :data:`_DISTINCT_ROWS` rows or more whatever rows are beside it and
        wherever it stands (probed once: pseudo-random rows through the embedding's two
        products, each window of rows compared with the same rows of one longer product).

        Returns
        -------
        bool
            Whether the embedding may compute each distinct token once.
        """
        if self._stand_alone is None:
            a = self._a
            rng = np.random.default_rng(20261201)
            products = [
                a["reduce_W"].reshape(-1, a["reduce_W"].shape[-1]),
                np.ascontiguousarray(a["static_W"]),
            ]
            alone = True
            for w in products:
                x = rng.standard_normal((320, w.shape[1])).astype(np.float32)
                whole = np.dot(x, w.T)
                for start, count in _PROBES:
                    part = np.dot(np.ascontiguousarray(x[start : start + count]), w.T)
                    alone = alone and bool(np.array_equal(part, whole[start : start + count]))
            self._stand_alone = alone
        return self._stand_alone

    def _embedded_rows(
        self, feats: NDArray[np.uint64], orth: NDArray[np.uint64], rows: NDArray[np.intp]
    ) -> Any:
        """:meth:`_embedded` of ``rows`` (distinct tokens), made of at least
        :data:`_DISTINCT_ROWS` rows (the first repeated where fewer), so that each row has the
        bits it has in any other product."""
        if len(rows) < _DISTINCT_ROWS:
            pad = np.full(_DISTINCT_ROWS - len(rows), rows[0], dtype=rows.dtype)
            padded = np.concatenate([rows, pad])
            return self._embedded(feats[padded], orth[padded])[: len(rows)]
        return self._embedded(feats[rows], orth[rows])

    def _embedded(self, feats: NDArray[np.uint64], orth: NDArray[np.uint64]) -> Any:
        """:meth:`_embed` of every row of ``feats`` and ``orth``, as spaCy computes it."""
        a = self._a
        parts = []
        for column, (table, seed) in enumerate(zip(self._tables, self._seeds, strict=True)):
            keys = murmurhash3_128(np.ascontiguousarray(feats[:, column]), seed) % np.uint32(
                table.shape[0]
            )
            out = np.zeros((len(keys), table.shape[1]), dtype=np.float32)
            for j in range(4):
                out += table[keys[:, j]]
            parts.append(out)
        at = np.searchsorted(a["vector_keys"], orth)
        at = np.minimum(at, len(a["vector_keys"]) - 1)
        found = a["vector_keys"][at] == orth
        rows = np.where(found, a["vector_rows"][at], -1)
        vectors = np.ascontiguousarray(a["vectors"][rows])
        static = np.dot(vectors, np.ascontiguousarray(a["static_W"]).T)
        static[rows < 0] = 0
        x = np.hstack([*parts, static])
        return _layer_norm(
            _maxout(x, a["reduce_W"], a["reduce_b"]), a["reduce_G"], a["reduce_beta"]
        )

    def _encode(self, xs: list[NDArray[np.float32]]) -> list[NDArray[np.float32]]:
        """``MaxoutWindowEncoder.v2`` over a batch's documents, read as thinc's ``with_array``
        reads them (four zero rows around each; step 3)."""
        a = self._a
        pad = 4
        lengths = [len(x) for x in xs]
        kept = [x for x in xs if x.size]
        if not kept:
            return [x for x in xs]
        pieces: list[NDArray[np.float32]] = []
        for x in kept:
            pieces.append(np.zeros((pad, x.shape[1]), dtype=x.dtype))
            pieces.append(x)
        pieces.append(np.zeros((pad, kept[-1].shape[1]), dtype=kept[-1].dtype))
        y = np.concatenate(pieces)
        for layer in range(a["encode_W"].shape[0]):
            h = _maxout(_seq2col(y), a["encode_W"][layer], a["encode_b"][layer])
            y = y + _layer_norm(h, a["encode_G"][layer], a["encode_beta"][layer])
        out: list[NDArray[np.float32]] = []
        at = 0
        for n in lengths:
            if n == 0:
                out.append(y[:0])
                continue
            out.append(y[at + pad : at + pad + n])
            at += pad + n
        return out

    def token_vectors(
        self, docs: Sequence[tuple[Sequence[str], Sequence[str | None]]]
    ) -> NDArray[np.float32]:
        """The token vectors the parser reads (steps 1-3: the ``tok2vec`` of the recogniser,
        its last linear projection included) of a batch of tokenized documents, read together
        as spaCy reads a batch: every document's tokens in order, in one array.

        Parameters
        ----------
        docs
            Each document's tokens' texts and special-case norms.

        Returns
        -------
        NDArray[np.float32]
            One row of 64 per token.
        """
        return self._vectors(docs)[0]

    def _vectors(
        self, docs: Sequence[tuple[Sequence[str], Sequence[str | None]]]
    ) -> tuple[NDArray[np.float32], list[int], list[NDArray[np.bool_]]]:
        a = self._a
        feats, orths, spaces, lengths = [], [], [], []
        for words, norms in docs:
            f, o, s = self.features(words, norms)
            feats.append(f)
            orths.append(o)
            spaces.append(s)
            lengths.append(len(words))
        if sum(lengths) == 0:
            return np.zeros((0, a["project_W"].shape[0]), dtype=np.float32), lengths, spaces
        embedded = self._embed(np.concatenate(feats), np.concatenate(orths))
        bounds = np.cumsum([0, *lengths])
        encoded = self._encode([embedded[bounds[i] : bounds[i + 1]] for i in range(len(lengths))])
        x = np.dot(np.concatenate(encoded), a["project_W"].T)
        x += a["project_b"]
        return x, lengths, spaces

    def entities(
        self, docs: Sequence[tuple[Sequence[str], Sequence[str | None]]]
    ) -> list[list[tuple[int, int, str]]]:
        """The entities of a batch of tokenized documents, each ``(first token, end token,
        label)``, as the packaged recogniser finds them reading the batch together.

        Parameters
        ----------
        docs
            Each document's tokens' texts and special-case norms.

        Returns
        -------
        list[list[tuple[int, int, str]]]
            Each document's entities in order.
        """
        x, lengths, spaces = self._vectors(docs)
        total = len(x)
        if total == 0:
            return [[] for _ in docs]
        lower_w = self._a["lower_W"]
        n_f, n_o, n_p, n_i = lower_w.shape
        cached = np.empty((total + 1, n_f * n_o * n_p), dtype=np.float32)
        np.dot(x, lower_w.reshape(n_f * n_o * n_p, n_i).T, out=cached[1:])
        cached = cached.reshape(total + 1, n_f, n_o * n_p)
        cached[0] = self._a["lower_pad"].reshape(n_f, n_o * n_p)
        bounds = np.cumsum([0, *lengths]).tolist()
        return [self._parse(cached, bounds[i], lengths[i], spaces[i]) for i in range(len(docs))]

    def _scores(self, unmaxed: NDArray[np.float32]) -> NDArray[np.float32]:
        """The moves' scores of states from their summed features (bias added here)."""
        a = self._a
        n_o, n_p = a["lower_b"].shape
        z = unmaxed + a["lower_b"].reshape(n_o * n_p)
        pieces = z.reshape(len(z), n_o, n_p)
        hidden = pieces[:, :, 0].copy()
        for piece in range(1, n_p):
            np.maximum(hidden, pieces[:, :, piece], out=hidden)
        # BLIS's product, as spaCy's parser loop makes it (thinc's CBlas is BLIS's sgemm): the
        # same bits, and a row's value the same whatever the rows beside it (numpy's OpenBLAS
        # rounds a row of 16 rows or fewer otherwise than one of a larger product)
        scores = blis.py.gemm(hidden, self._upper_w, trans2=True, beta=0.0)
        scores += a["upper_b"]
        return np.asarray(scores, dtype=np.float32)

    def _parse(
        self, cached: NDArray[np.float32], offset: int, n: int, space: NDArray[np.bool_]
    ) -> list[tuple[int, int, str]]:
        """The BILUO parse of one document of ``n`` tokens whose precomputed features are
        ``cached[1 + offset : 1 + offset + n]`` (step 4)."""
        if n == 0:
            return []
        mv = self._moves
        pad = cached[0]
        own = cached[1 + offset : 1 + offset + n]
        # every state with no entity open: features (head, none, none)
        closed = np.zeros((n, own.shape[2]), dtype=np.float32)
        closed += own[:, 0]
        closed += pad[1]
        closed += pad[2]
        scores = self._scores(closed)
        valid = np.zeros(scores.shape, dtype=np.bool_)
        valid[:, mv.out] = True
        speak = ~space
        valid[:, mv.unit] = speak[:, None]
        valid[:-1, mv.begin] = speak[:-1, None]
        masked = np.where(valid, scores, -np.inf)
        best = masked.argmax(axis=1).tolist()
        kind, label_of = mv.kind, mv.label
        out: list[tuple[int, int, str]] = []
        b = 0
        while b < n:
            move = best[b]
            k = kind[move]
            if k == _UNIT:
                out.append((b, b + 1, mv.labels[label_of[move]]))
                b += 1
                continue
            if k != _BEGIN:
                b += 1
                continue
            label = label_of[move]
            start = b
            b += 1
            while b < n:
                state = np.zeros((1, own.shape[2]), dtype=np.float32)
                state += own[b, 0]
                state += own[start, 1]
                state += own[b - 1, 2]
                row = self._scores(state)[0]
                # In (with two tokens left) or Last of the label: the higher score, the first
                # move of equal ones (spaCy's arg_max_if_valid)
                inside, last = int(mv.inside[label]), int(mv.last[label])
                go_on = n - b >= 2 and (
                    row[inside] > row[last] or (row[inside] == row[last] and inside < last)
                )
                b += 1
                if not go_on:
                    out.append((start, b, mv.labels[label]))
                    break
        return out
