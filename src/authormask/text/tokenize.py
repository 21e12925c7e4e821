"""Tokenisation that keeps character offsets, so text mode can rewrite words in place.

English clitics are split off a word as separate word tokens, as the Penn Treebank (and so GloVe's
vocabulary) does: ``n't``, ``'s``, ``'m``, ``'ll``, ``'re``, ``'ve`` and ``'d``, with an ASCII
``'`` or a typographic ``\u2019`` apostrophe. ``don't`` becomes ``do`` + ``n't``, ``can't``
``ca`` + ``n't``, ``won't`` ``wo`` + ``n't``, ``President's`` ``President`` + ``'s`` and
``shouldn't've`` ``should`` + ``n't`` + ``'ve``. Each piece keeps its exact span in the text.
Other inner apostrophes (``O'Neill``, ``o'clock``) and hyphens (``state-of-the-art``) stay inside
one token, and so do combining marks (an accent written as its own code point, Indic vowel
signs): they belong to the word they are written on, are perturbed with it, and are never
released as punctuation.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["CLITICS", "Token", "tokenize"]


def _combining_marks() -> str:
    """Every combining mark (Unicode category M: accents written as separate code points,
    Indic vowel signs, ...) as the body of a regex character class. They all lie below U+20000
    or in U+E0000-U+E0FFF (checked by a test against the whole code space)."""
    marks = [
        cp
        for cp in itertools.chain(range(0x20000), range(0xE0000, 0xE1000))
        if unicodedata.category(chr(cp))[0] == "M"
    ]
    body: list[str] = []
    for _, run in itertools.groupby(enumerate(marks), lambda p: p[1] - p[0]):
        cps = [cp for _, cp in run]
        body.append(f"\\U{cps[0]:08x}" + (f"-\\U{cps[-1]:08x}" if len(cps) > 1 else ""))
    return "".join(body)


#: a letter or digit, or a combining mark attached to one (a mark is part of its word: "cafe"
#: + U+0301, Devanagari vowel signs), never a punctuation token of its own
def _marks() -> str:
    from authormask.text import _marks as precomputed

    if precomputed.UNIDATA_VERSION == unicodedata.unidata_version:
        return precomputed.MARKS
    return _combining_marks()


_MARKS = _marks()
_W = rf"(?:[^\W_]|[{_MARKS}])"
#: a run of letters/digits and their marks, starting with a letter or digit
_RUN = rf"[^\W_]+(?:[{_MARKS}]+[^\W_]*)*"

# A word: runs joined by inner apostrophes or hyphens ("don't", "state-of-the-art").
_TOKEN = re.compile(rf"{_RUN}(?:['\u2019\-]{_RUN})*|[^\w\s]|_+", re.UNICODE)

#: The clitics split off the end of a word, in their normalised (lower-case, ASCII ') form.
CLITICS = ("n't", "'s", "'m", "'ll", "'re", "'ve", "'d")

# A word ending in a clitic: group 1 the stem (at least one character, ending in a letter or
# digit), group 2 the clitic. Greedy stem, so only the last clitic is taken; repeat for more.
_CLITIC_END = re.compile(
    rf"(.*{_W})(n['\u2019]t|['\u2019](?:s|m|ll|re|ve|d))", re.UNICODE | re.IGNORECASE
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
        # a word run starts with a letter or digit; a punctuation token is one character or a
        # run of underscores (the any() only runs for those)
        if not (s[0].isalnum() or any(ch.isalnum() for ch in s)):
            out.append(Token(s, m.start(), m.end(), is_word=False))
        elif "'" in s or "\u2019" in s:
            out.extend(_split_clitics(s, m.start()))
        else:
            out.append(Token(s, m.start(), m.end(), is_word=True))
    return out
