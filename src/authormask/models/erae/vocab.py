"""The fixed token vocabulary of an ER-AE model (Bo et al. 2021: 20,000 tokens per dataset)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from authormask.exceptions import InputError

__all__ = ["BOS", "PAD", "SPECIALS", "UNK", "EncodedSegments", "Vocabulary"]

PAD, UNK, BOS = "<pad>", "<unk>", "<bos>"
SPECIALS = (PAD, UNK, BOS)


@dataclass(frozen=True)
class EncodedSegments:
    """Token ids of segments, and how many tokens were unknown (mapped to ``<unk>``).

    Attributes
    ----------
    ids
        The token ids of each segment.
    unknown
        The tokens mapped to ``<unk>``.
    """

    ids: tuple[tuple[int, ...], ...]
    unknown: int


class Vocabulary:
    """``<pad>``, ``<unk>``, ``<bos>`` followed by the output words, most frequent first.

    The output range of every generator is ``words`` (the specials are never generated), so it is
    fixed once the model is trained and does not depend on the text being released.

    Parameters
    ----------
    tokens
        The tokens, the specials first.

    Raises
    ------
    InputError
        If ``tokens`` does not start with the specials or has a duplicate.
    """

    def __init__(self, tokens: Sequence[str]) -> None:
        if tuple(tokens[: len(SPECIALS)]) != SPECIALS:
            raise InputError(f"vocabulary must start with {', '.join(SPECIALS)}")
        if len(set(tokens)) != len(tokens):
            raise InputError("vocabulary has duplicate tokens")
        self.tokens: tuple[str, ...] = tuple(tokens)
        self.index = {t: i for i, t in enumerate(self.tokens)}

    @classmethod
    def build(cls, segments: Iterable[Sequence[str]], *, size: int, min_words: int) -> Vocabulary:
        """The ``size`` most frequent tokens of ``segments`` (ties broken alphabetically).

        Parameters
        ----------
        segments
            The tokenised segments.
        size
            The words kept.
        min_words
            The fewest distinct tokens a corpus must have.

        Returns
        -------
        Vocabulary
            The vocabulary.

        Raises
        ------
        InputError
            If the segments have fewer than ``min_words`` distinct tokens.
        """
        counts: Counter[str] = Counter()
        for seg in segments:
            counts.update(seg)
        for special in SPECIALS:
            counts.pop(special, None)
        if len(counts) < min_words:
            raise InputError(
                f"corpus too small to build the vocabulary: {len(counts)} distinct tokens, "
                f"need at least {min_words}"
            )
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:size]
        return cls(SPECIALS + tuple(w for w, _ in ranked))

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def first_word(self) -> int:
        """Index of the first generable word (after the specials)."""
        return len(SPECIALS)

    @property
    def words(self) -> tuple[str, ...]:
        return self.tokens[len(SPECIALS) :]

    def sha256(self) -> str:
        """A short digest of the tokens (the first 16 hexadecimal digits of their SHA-256).

        Returns
        -------
        str
            The digest.
        """
        return hashlib.sha256("\n".join(self.tokens).encode("utf-8")).hexdigest()[:16]

    def encode(self, segments: Iterable[Sequence[str]]) -> EncodedSegments:
        """The ids of each segment's tokens, an unknown token as ``<unk>``.

        Parameters
        ----------
        segments
            The tokenised segments.

        Returns
        -------
        EncodedSegments
            The ids and the count of unknown tokens.
        """
        unk = self.index[UNK]
        out: list[tuple[int, ...]] = []
        unknown = 0
        for seg in segments:
            ids = tuple(self.index.get(t, unk) for t in seg)
            unknown += sum(1 for t in seg if t not in self.index)
            out.append(ids)
        return EncodedSegments(tuple(out), unknown)

    def decode(self, ids: Iterable[int]) -> list[str]:
        """The tokens of ``ids``.

        Parameters
        ----------
        ids
            Token ids.

        Returns
        -------
        list[str]
            The tokens.
        """
        return [self.tokens[i] for i in ids]
