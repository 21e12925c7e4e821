"""Tokenisation that keeps character offsets, so text mode can rewrite words in place.

English clitics are split off a word as separate word tokens, as the Penn Treebank (and so GloVe's
vocabulary) does: ``n't``, ``'s``, ``'m``, ``'ll``, ``'re``, ``'ve`` and ``'d``, with an ASCII
``'`` or a typographic ``\u2019`` apostrophe. ``don't`` becomes ``do`` + ``n't``, ``can't``
``ca`` + ``n't``, ``won't`` ``wo`` + ``n't``, ``President's`` ``President`` + ``'s`` and
``shouldn't've`` ``should`` + ``n't`` + ``'ve``. Each piece keeps its exact span in the text.
Other inner apostrophes (``O'Neill``, ``o'clock``) and hyphens (``state-of-the-art``) stay inside
one token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CLITICS", "Token", "tokenize"]

# A word: letters/digits with inner apostrophes or hyphens ("don't", "state-of-the-art").
_TOKEN = re.compile(r"[^\W_]+(?:['\u2019\-][^\W_]+)*|[^\w\s]|_+", re.UNICODE)

#: The clitics split off the end of a word, in their normalised (lower-case, ASCII ') form.
CLITICS = ("n't", "'s", "'m", "'ll", "'re", "'ve", "'d")

# A word ending in a clitic: group 1 the stem (at least one character, ending in a letter or
# digit), group 2 the clitic. Greedy stem, so only the last clitic is taken; repeat for more.
_CLITIC_END = re.compile(
    r"(.*[^\W_])(n['\u2019]t|['\u2019](?:s|m|ll|re|ve|d))", re.UNICODE | re.IGNORECASE
)


@dataclass(frozen=True)
class Token:
    """A token and its span ``text[start:end]``; ``is_word`` is False for punctuation."""

    text: str
    start: int
    end: int
    is_word: bool

    @property
    def lower(self) -> str:
        """Lower-cased, with the typographic apostrophe ``\u2019`` as ASCII ``'`` (the lookup key).

        >>> Token("N\u2019T", 2, 5, True).lower
        "n't"
        """
        return self.text.lower().replace("\u2019", "'")


def _split_clitics(word: str, start: int) -> list[Token]:
    """``word`` (at offset ``start``) as its stem followed by its clitics, spans kept."""
    tail: list[Token] = []
    stem = word
    while (m := _CLITIC_END.fullmatch(stem)) is not None:
        stem = m.group(1)
        tail.append(Token(m.group(2), start + len(stem), start + m.end(2), is_word=True))
    return [Token(stem, start, start + len(stem), is_word=True), *reversed(tail)]


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into word and punctuation tokens (whitespace is not a token).

    Every token is ``text[token.start:token.end]``; clitics are split off (module docstring).

    >>> [t.text for t in tokenize("The President's press-conference, in Chicago! Don't.")]
    ['The', 'President', "'s", 'press-conference', ',', 'in', 'Chicago', '!', 'Do', "n't", '.']
    """
    out: list[Token] = []
    for m in _TOKEN.finditer(text):
        s = m.group(0)
        if not any(ch.isalnum() for ch in s):
            out.append(Token(s, m.start(), m.end(), is_word=False))
        elif "'" in s or "\u2019" in s:
            out.extend(_split_clitics(s, m.start()))
        else:
            out.append(Token(s, m.start(), m.end(), is_word=True))
    return out
