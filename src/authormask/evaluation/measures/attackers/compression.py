"""``ppm``: a character-level compression attacker (Teahan & Harper 2003).

Teahan & Harper (2003, "Using compression-based language models for text categorization", in
*Language Modeling for Information Retrieval*, section 3) give each category a PPM character
model trained on its texts and send a text to the category whose model compresses it best, i.e.
gives it the smallest cross-entropy. Here a category is a candidate author.

What it reads: every character of the text, lower-cased and with every run of whitespace made
one space (:func:`normalise`). A candidate's model is trained on the concatenation of its known
texts (joined by a space).

The model: orders ``-1 .. order`` (default 5). Order -1 is uniform over the alphabet (every
character of the known texts of all candidates) plus one symbol for characters never seen, and
each order ``k >= 0`` interpolates with the order below it using PPM-C's escape estimate
(Moffat 1990, "Implementing the PPM data compression scheme"), the number ``u`` of distinct
characters seen after the context, i.e. Witten-Bell interpolation::

    P(c | ctx_k) = (n(ctx_k c) + u(ctx_k) * P(c | ctx_{k-1})) / (n(ctx_k) + u(ctx_k))

where ``n(ctx_k c)`` counts ``c`` after the context of the previous ``k`` characters and
``n(ctx_k)`` counts the context; a context never seen (``n(ctx_k) = 0``) passes the order below
on unchanged, and so does a context that would reach back before the start of the text. Unlike
PPM proper there is no exclusion, and the model is static: it is not updated while it reads the
query (Teahan & Harper's "static" variant).

How it decides: a text goes to the candidate whose model gives it the smallest cross-entropy,
``-mean(log2 P(c_i | c_{i-order} .. c_{i-1}))`` bits per character; the prediction's score is the
negative cross-entropy. It is closed-set (never answers "don't know").

Computation: no Python loop per character. Characters become dense integer codes; the context
of length ``k`` before each position is one 64-bit key, a polynomial in the codes (base: the
alphabet size + 2, which is exact, i.e. one key per context, while ``base ** (order + 1) <
2 ** 64``: alphabets of up to 1,623 characters at order 5; beyond that a multiplicative hash
mod ``2 ** 64``, where two contexts may share a key with negligible probability). Counts come
from ``np.unique`` over the keys of all candidates together, and a query's contexts are looked
up once per order with ``np.searchsorted``; queries are scored in blocks of about half a million
characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState
from authormask.validation import check_positive_int

__all__ = ["CrossEntropies", "PPMAttacker", "normalise"]

#: the odd 64-bit multiplier of the hash used when the exact key would overflow
_MIX = np.uint64(0x9E3779B97F4A7C15)
#: characters of queries scored together (bounds the memory of one block)
_BLOCK = 1 << 19


def normalise(text: str) -> str:
    """``text`` lower-cased, every run of whitespace one space, no space at either end.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    str
        The normalised text.

    Examples
    --------
    >>> normalise("  The\\n\\tCat  SAT ")
    'the cat sat'
    """
    return " ".join(text.lower().split())


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le"), dtype="<u4").astype(np.uint64)


@dataclass(frozen=True)
class CrossEntropies:
    """The cross-entropy (bits per character) of each query (rows) under each candidate's
    model (columns, in the order of ``candidates``).

    Attributes
    ----------
    candidates
        The candidates, in column order.
    bits
        The cross-entropies, one row per query and one column per candidate.
    """

    candidates: tuple[str, ...]
    bits: np.ndarray


@dataclass(frozen=True)
class _Table:
    """The counts of one order for every candidate: context keys and joint (context,
    character) keys, each sorted, and the counts aligned with them, one column per candidate
    (a lookup reads every candidate's count of a key at once)."""

    contexts: np.ndarray  # sorted unique context keys (uint64)
    joints: np.ndarray  # sorted unique (context, character) keys (uint64)
    n_context: np.ndarray  # (contexts, candidates): n(ctx), as floats
    distinct: np.ndarray  # (contexts, candidates): u(ctx), as floats
    n_joint: np.ndarray  # (joints + 1, candidates): n(ctx c), as floats; last row 0


class PPMAttacker:
    """One PPM-C-style character model per candidate, cross-entropy decides (see module
    docstring).

    Parameters
    ----------
    order
        The longest context, in characters (1 to 32).
    random_state
        Kept for the common interface (the attacker draws no randomness).
    """

    def __init__(self, *, order: int = 5, random_state: RandomState = None) -> None:
        self.order = check_positive_int(order, name="PPM order", maximum=32)
        self.random_state = random_state  # deterministic: no randomness is drawn
        self.name = "ppm"
        self.candidates: tuple[str, ...] = ()
        self._alphabet = np.zeros(0, dtype=np.uint64)  # sorted code points
        self._base = np.uint64(2)
        self._exact = True
        self._tables: list[_Table] = []

    # -- keys -----------------------------------------------------------------------------

    def _codes(self, text: str) -> np.ndarray:
        """Dense codes of ``text``'s characters: 1 .. A for the alphabet's, A + 1 for others."""
        points = _code_points(text)
        a = len(self._alphabet)
        if a == 0 or len(points) == 0:
            return np.full(len(points), a + 1, dtype=np.uint64)
        idx = np.minimum(np.searchsorted(self._alphabet, points), a - 1)
        seen = self._alphabet[idx] == points
        return np.where(seen, idx.astype(np.uint64) + np.uint64(1), np.uint64(a + 1))

    def _keys(self, codes: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each order ``k = 0 .. order``: the key of the ``k`` characters before each
        position and the key of those and the character itself (positions whose context would
        start before index 0 get keys of their own and are masked by the caller)."""
        base = int(self._base) if self._exact else int(_MIX)
        mult = np.uint64(base)
        out: list[tuple[np.ndarray, np.ndarray]] = []
        context = np.zeros(len(codes), dtype=np.uint64)
        for k in range(self.order + 1):
            if k > 0:  # add the character k places back, weighted base ** (k - 1) mod 2 ** 64
                shifted = np.zeros(len(codes), dtype=np.uint64)
                shifted[k:] = codes[: max(len(codes) - k, 0)]
                context = context + shifted * np.uint64(pow(base, k - 1, 2**64))
            out.append((context, context * mult + codes))
        return out

    # -- training ---------------------------------------------------------------------------

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> PPMAttacker:
        """Train one character model per candidate on its known texts, joined by a space.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        PPMAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes.
        """
        check_training(items, labels, "PPM attacker")
        self.candidates = tuple(sorted(set(labels)))
        by_author: dict[str, list[str]] = {c: [] for c in self.candidates}
        for item, label in zip(items, labels, strict=True):
            by_author[label].append(normalise(item.text))
        texts = [" ".join(by_author[c]) for c in self.candidates]
        alphabet = set().union(*(set(t) for t in texts))
        self._alphabet = np.array(sorted(ord(ch) for ch in alphabet), dtype=np.uint64)
        base = len(alphabet) + 2
        self._base = np.uint64(base)
        self._exact = base ** (self.order + 1) < 2**64
        per_author = [self._keys(self._codes(t)) for t in texts]
        self._tables = []
        n = len(self.candidates)
        for k in range(self.order + 1):
            ctxs = [keys[k][0][k:] for keys in per_author]
            joints = [keys[k][1][k:] for keys in per_author]
            contexts = np.unique(np.concatenate(ctxs))
            joint_keys = np.unique(np.concatenate(joints))
            n_context = np.zeros((len(contexts), n))
            distinct = np.zeros((len(contexts), n))
            n_joint = np.zeros((len(joint_keys) + 1, n))  # the last row stays 0: not seen
            for a, (ctx, joint) in enumerate(zip(ctxs, joints, strict=True)):
                if len(ctx) == 0:
                    continue
                n_context[:, a] = np.bincount(
                    np.searchsorted(contexts, ctx), minlength=len(contexts)
                )
                n_joint[:-1, a] = np.bincount(
                    np.searchsorted(joint_keys, joint), minlength=len(joint_keys)
                )
                _, first = np.unique(joint, return_index=True)
                distinct[:, a] = np.bincount(
                    np.searchsorted(contexts, ctx[first]), minlength=len(contexts)
                )
            self._tables.append(_Table(contexts, joint_keys, n_context, distinct, n_joint))
        return self

    # -- scoring ----------------------------------------------------------------------------

    def _block(self, codes: list[np.ndarray]) -> np.ndarray:
        """Bits per character of each text of ``codes`` (rows) under each model (columns)."""
        lengths = np.array([len(c) for c in codes], dtype=np.int64)
        x = np.concatenate(codes) if codes else np.zeros(0, dtype=np.uint64)
        query = np.repeat(np.arange(len(codes)), lengths)
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        position = np.arange(len(x)) - np.repeat(starts, lengths)
        uniform = 1.0 / (len(self._alphabet) + 1)
        p = np.full((len(x), len(self.candidates)), uniform)  # P(c_i | ...) per model
        for k, (context, joint) in enumerate(self._keys(x)):
            table = self._tables[k]
            if len(table.contexts) == 0:
                continue
            ci = np.minimum(np.searchsorted(table.contexts, context), len(table.contexts) - 1)
            where = np.flatnonzero((table.contexts[ci] == context) & (position >= k))
            ci, joint = ci[where], joint[where]
            ji = np.searchsorted(table.joints, joint)
            ji[table.joints[np.minimum(ji, len(table.joints) - 1)] != joint] = len(table.joints)
            nj = table.n_joint[ji]  # its last row: zeros, for a pair never seen
            n, u = table.n_context[ci], table.distinct[ci]  # (positions, candidates)
            lower = p[where]
            # (nj + u * lower) / (n + u), rewritten so that a model that never saw the context
            # (n = u = nj = 0) passes the order below on unchanged
            p[where] = lower + (nj - n * lower) / np.maximum(n + u, 1.0)
        bits = -np.log2(p)
        totals = np.stack(
            [
                np.bincount(query, weights=bits[:, a], minlength=len(codes))
                for a in range(p.shape[1])
            ],
            axis=1,
        )
        per_text = np.maximum(lengths, 1)[:, None]
        return np.where(lengths[:, None] > 0, totals / per_text, -np.log2(uniform))

    def cross_entropies(self, items: Sequence[Item]) -> CrossEntropies:
        """The cross-entropy of every item's text under every candidate's model.

        Parameters
        ----------
        items
            The texts to score.

        Returns
        -------
        CrossEntropies
            One row per item, one column per candidate.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if not self._tables:
            raise InvalidParameterError("PPM attacker: call fit before predict")
        codes = [self._codes(normalise(i.text)) for i in items]
        rows: list[np.ndarray] = []
        block: list[np.ndarray] = []
        size = 0
        for c in codes:
            if block and size + len(c) > _BLOCK:
                rows.append(self._block(block))
                block, size = [], 0
            block.append(c)
            size += len(c)
        if block:
            rows.append(self._block(block))
        bits = np.concatenate(rows) if rows else np.zeros((0, len(self.candidates)))
        return CrossEntropies(self.candidates, bits)

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the candidate whose model gives each text the smallest cross-entropy.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            A candidate per text (never "don't know"); the score is the negative cross-entropy.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        bits = self.cross_entropies(items).bits
        best = np.argmin(bits, axis=1)
        return Predictions(
            tuple(self.candidates[int(b)] for b in best),
            tuple(-float(bits[i, b]) for i, b in enumerate(best)),
        )
