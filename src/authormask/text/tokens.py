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

With ``compounds=True`` (the canonical skeleton of ``emp-doc``; ``emp-text`` tokenises without
it), three more things are one word token each, so no sentence end or other mark is read inside
them: a URL (``https://example.com/a?b=c``, ``www.example.org``; a scheme of up to 32
characters; without the punctuation that ends it; with a bracket only when it is closed in it),
an e-mail address (``jane.doe@example.com``, a local part of up to 64 characters), and a number
with its inner ``.``, ``,`` and ``:`` between digits (``12.4``, ``1,000``, ``10:30``,
``v1.2.3``), a leading ``.`` after a space (``.5``) and a ``%`` right after it (``12.4%``). A URL
or address is never split into clitics.
"""

from __future__ import annotations

import functools
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
    return class_body(marks)


def class_body(code_points: list[int]) -> str:
    """Sorted code points as the body of a regex character class, runs written as ranges.

    >>> import re
    >>> re.findall(f"[{class_body([0x41, 0x42, 0x43, 0x5F])}]+", "ABC_D")
    ['ABC_']
    """
    body: list[str] = []
    for _, run in itertools.groupby(enumerate(code_points), lambda p: p[1] - p[0]):
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
_TOKEN = rf"{_RUN}(?:['\u2019\-]{_RUN})*|[^\w\s]|_+"

# compounds=True: a run may go on across a '.', ',' or ':' between two digits; a number may
# start with a '.' after a space or an opening mark and end in '%'. Links first, each bounded
# where it is tried at every token start (scheme 32, local part 64 characters), so the scan stays
# linear on long runs of punctuated text without a link.
_RUN_NUMBER = rf"[^\W_]+(?:(?:[{_MARKS}]+|(?<=\d)[.,:](?=\d))[^\W_]*)*"
_URL = (
    r"(?:[A-Za-z][A-Za-z0-9+.\-]{0,31}://|[Ww]{3}\.)"
    r"(?:[^\s<>\"()]|\([^\s<>\"()]*\))+(?<![.,;:!?'\]}])"
)
_LABEL = r"[^\W_](?:[\w\-]*[^\W_])?"
_EMAIL = rf"[^\W_][\w.+\-]{{0,63}}@{_LABEL}(?:\.{_LABEL})+"
_TOKEN_COMPOUND = (
    rf"(?P<link>{_URL}|{_EMAIL})"
    rf"|(?:(?<![^\s(\[{{$])\.(?=\d))?{_RUN_NUMBER}(?:['\u2019\-]{_RUN_NUMBER})*(?:(?<=\d)%)?"
    r"|[^\w\s]|_+"
)

#: The clitics split off the end of a word, in their normalised (lower-case, ASCII ') form.
CLITICS = ("n't", "'s", "'m", "'ll", "'re", "'ve", "'d")

# A word ending in a clitic: group 1 the stem (at least one character, ending in a letter or
# digit), group 2 the clitic. Greedy stem, so only the last clitic is taken; repeat for more.
_CLITIC_END = rf"(.*{_W})(n['\u2019]t|['\u2019](?:s|m|ll|re|ve|d))"


@functools.cache
def _compiled(pattern: str, flags: int = re.UNICODE) -> re.Pattern[str]:
    """One of the expressions above, compiled on first use (2-4 ms each at import before:
    importing the module no longer costs them; a release compiles those it uses)."""
    return re.compile(pattern, flags)


@dataclass(frozen=True)
class Token:
    """A token and its span ``text[start:end]``; ``is_word`` is False for punctuation.

    Attributes
    ----------
    text
        The token as written.
    start
        Its start in the text.
    end
        Its end in the text.
    is_word
        False for punctuation.
    """

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
    clitic_end = _compiled(_CLITIC_END, re.UNICODE | re.IGNORECASE)
    while (m := clitic_end.fullmatch(stem)) is not None:
        stem = m.group(1)
        tail.append(Token(m.group(2), start + len(stem), start + m.end(2), is_word=True))
    return [Token(stem, start, start + len(stem), is_word=True), *reversed(tail)]


def tokenize(text: str, *, compounds: bool = False) -> list[Token]:
    """Split ``text`` into word and punctuation tokens (whitespace is not a token).

    Every token is ``text[token.start:token.end]``; clitics are split off (module docstring).
    ``compounds``: URLs, e-mail addresses and numbers are one word token each (module docstring).

    Parameters
    ----------
    text
        The text.
    compounds
        Whether URLs, e-mail addresses and numbers are one token each.

    Returns
    -------
    list[Token]
        The tokens, in order.

    Examples
    --------
    >>> [t.text for t in tokenize("The President's press-conference, in Chicago! Don't.")]
    ['The', 'President', "'s", 'press-conference', ',', 'in', 'Chicago', '!', 'Do', "n't", '.']
    >>> [t.text for t in tokenize("Up 12.4% at 10:30, see www.x.org.", compounds=True)]
    ['Up', '12.4%', 'at', '10:30', ',', 'see', 'www.x.org', '.']
    """
    out: list[Token] = []
    for m in _compiled(_TOKEN_COMPOUND if compounds else _TOKEN).finditer(text):
        s = m.group(0)
        # a word run starts with a letter or digit; a punctuation token is one character or a
        # run of underscores (the any() only runs for those)
        if not (s[0].isalnum() or any(ch.isalnum() for ch in s)):
            out.append(Token(s, m.start(), m.end(), is_word=False))
        elif compounds and m.group("link") is not None:
            out.append(Token(s, m.start(), m.end(), is_word=True))
        elif "'" in s or "\u2019" in s:
            out.extend(_split_clitics(s, m.start()))
        else:
            out.append(Token(s, m.start(), m.end(), is_word=True))
    return out
