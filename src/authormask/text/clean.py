"""Invisible and control characters, removed before any mechanism reads a text.

A zero-width space, a soft hyphen, a byte-order mark or a bidi override inside a word is not
seen by a reader but is kept by a copy: a watermark written with them in a source text (one bit
per gap between words) would survive a release that copies the skeleton, and a soft hyphen
(``com\\u00admittee``) would cut one word into two tokens. :func:`clean_text` is the one step
every text mechanism (``emp-text`` and its peers, ``emp-bag``, ``emp-doc``, ``random-sub``,
``emp-write``, and the ER-AE family: ``erae``, ``ae-dp``, ``syntf``, ``random-r``) applies to a
text before it tokenises it, and :data:`INVISIBLE_CHARACTERS_POLICY` is the line every one of
their statements carries about it. In order:

1. line breaks: ``\\r\\n``, ``\\r``, ``\\v``, ``\\f``, the separators ``\\x1c``-``\\x1e``, NEL
   (``\\x85``) and LINE SEPARATOR (U+2028) are written as ``\\n``, PARAGRAPH SEPARATOR (U+2029)
   as a blank line (``\\n\\n``);
2. spaces: every space character (category Zs: no-break, thin, ideographic, ...) and the unit
   separator ``\\x1f`` are written as a plain space;
3. removed: every format character (category Cf: zero-width space, non-joiner and joiner,
   word joiner, soft hyphen, byte-order mark, the bidi embeddings, overrides, isolates and
   marks, tag characters, ...), every control character (Cc) but tab and newline, every
   private-use (Co), surrogate (Cs) and unassigned (Cn, in the running Python's Unicode
   version) code point, and the default-ignorable characters of other categories
   (:data:`OTHER_IGNORABLE`: variation selectors, the combining grapheme joiner, the Hangul
   fillers, the Mongolian free variation selectors, the Khmer inherent vowels);
4. Unicode NFKC (full-width forms, ligatures and other compatibility characters as their plain
   spelling); steps 1-3 are applied again to its result, and NFKC again if they changed it, so
   the result is a fixed point (tested over the whole code space).

Nothing is written in place of a removed character, so a soft hyphen or a zero-width joiner
inside a word leaves one word. Every step works character by character, except ``\\r\\n``,
which :mod:`authormask.text.parts` never cuts in two, so cleaning a document part by part gives
the text that cleaning it whole does.
"""

from __future__ import annotations

import bisect
import re
import unicodedata

__all__ = ["INVISIBLE_CHARACTERS_POLICY", "OTHER_IGNORABLE", "clean_text"]

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

#: the categories removed (Cc: all but tab and newline, which step 1 and 2 leave alone)
_REMOVED_CATEGORIES = frozenset(("Cc", "Cf", "Co", "Cs", "Cn"))
_KEPT_CONTROLS = frozenset("\t\n")

INVISIBLE_CHARACTERS_POLICY = (
    "removed before tokenising: format characters (Unicode category Cf: zero-width spaces and "
    "joiners, soft hyphens, byte-order marks, bidi controls, tags), control characters (Cc) "
    "other than tab and line breaks, private-use (Co), surrogate (Cs) and unassigned (Cn, "
    f"Unicode {unicodedata.unidata_version}) code points, variation selectors and the other "
    "default-ignorable characters, with nothing in their place (a word they split stays one "
    "word); every line break written as \\n, every other space character as a plain space; "
    "then Unicode NFKC"
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
        "\x1f": " ",
        **{chr(cp): " " for cp in (0xA0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000)},
    }
)


def _removed_code_points() -> str:
    """Every code point step 3 removes (module notes), as the body of a regex character class,
    from a scan of the whole code space (about 0.4 s: :mod:`authormask.text._invisible` holds
    it precomputed for one Unicode version)."""
    other = {cp for first, last in OTHER_IGNORABLE for cp in range(first, last + 1)}
    removed = [
        cp
        for cp in range(0x110000)
        if cp in other
        or (unicodedata.category(chr(cp)) in _REMOVED_CATEGORIES and chr(cp) not in _KEPT_CONTROLS)
    ]
    from authormask.text.tokenize import class_body

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
_REMOVED = re.compile(f"[{_escaped(_BMP)}]+")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
#: a character that steps 1-3 may change (to skip their work on a text that has none)
_ANY = re.compile(
    f"[{_escaped(_BMP)}\r\v\f\x1c-\x1f\x85\u2028\u2029\u00a0\u1680\u2000-\u200a\u202f"
    "\u205f\u3000\U00010000-\U0010ffff]"
)


def _astral(match: re.Match[str]) -> str:
    """A character above U+FFFF, or nothing if step 3 removes it."""
    cp = ord(match.group(0))
    i = bisect.bisect_right(_ASTRAL_FIRSTS, cp) - 1
    return "" if i >= 0 and cp <= _ASTRAL_RANGES[i][1] else match.group(0)


def _strip(text: str) -> str:
    """Steps 1-3 (module notes)."""
    if _ANY.search(text) is None:
        return text
    text = _REMOVED.sub("", text.replace("\r\n", "\n").translate(_LINE_BREAKS))
    return _ASTRAL.sub(_astral, text) if _ASTRAL.search(text) else text


def clean_text(text: str) -> str:
    """``text`` without invisible and control characters, line breaks and spaces written
    plainly, in Unicode NFKC (module notes).

    >>> clean_text("com\\u00admit\\u200btee\\ufeff met\\u00a0\\u202etoday\\u202c\\x07.\\r\\n")
    'committee met today.\\n'
    >>> clean_text("\\uff37\\uff4f\\uff52\\uff44 \\ufb01ne")
    'Word fine'
    """
    if text.isascii():
        return _strip(text)  # ASCII is its own NFKC
    out = unicodedata.normalize("NFKC", _strip(text))
    again = _strip(out)
    return out if again == out else unicodedata.normalize("NFKC", again)
