"""Tokenisation that keeps character offsets, so text mode can rewrite words in place."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Token", "tokenize"]

# A word: letters/digits with inner apostrophes or hyphens ("don't", "state-of-the-art").
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019\-][^\W_]+)*|[^\w\s]|_+", re.UNICODE)


@dataclass(frozen=True)
class Token:
    """A token and its span ``text[start:end]``; ``is_word`` is False for punctuation."""

    text: str
    start: int
    end: int
    is_word: bool

    @property
    def lower(self) -> str:
        return self.text.lower()


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into word and punctuation tokens (whitespace is not a token).

    >>> [t.text for t in tokenize("The President's press-conference, in Chicago!")]
    ['The', "President's", 'press-conference', ',', 'in', 'Chicago', '!']
    """
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        s = m.group(0)
        out.append(Token(s, m.start(), m.end(), is_word=any(ch.isalnum() for ch in s)))
    return out
