"""Vocabulary filters: which entries of a vector file may be mechanism outputs.

At a small epsilon the Earth Mover's mechanism releases close to uniformly random vocabulary
entries, so every entry of the vocabulary is a possible output. Raw vector sets are not clean word
lists: GloVe 6B contains e-mail addresses of journalists (``mikell@nytimes.com``), URLs
(``http://www.nytimes.com``), web hosts (``nytimes.com``), ZIP codes and other long numbers
(``90210``), Wikipedia markup placeholders (``formula_1``) and punctuation (``,``, ``--``,
``:)``). None of them is a word a text could be rewritten to, and some identify people. A filter is
applied when the vocabulary is built, *before* the K most frequent entries are taken (so
``vocab_size=K`` still yields K output words), and its versioned name is part of the embeddings'
public identity. Input words outside the filtered vocabulary are out-of-vocabulary words for the
text preparation (its OOV policy applies).

Policy ``word-like/1`` (:func:`is_word_like`; the default until issue 47) keeps an entry if and
only if all of these hold:

1. it is not empty and contains no whitespace (``str.isspace``) and no control character
   (Unicode category ``Cc``). Entries read from a text file whose word contains spaces
   (``new york 0.1 ...``) are dropped here: a token never contains whitespace, so such an entry
   could never be an input, and as an output it would put two words where the text had one;
2. it contains at least one letter (``str.isalpha``: any script), **or** it is a number of one to
   four ASCII digits (``7``, ``42``, ``1990``: counts and years are ordinary words of a text).
   Pure punctuation and symbols (``,``, ``--``, ``$``, ``:)``) and letterless digit patterns
   (``555-1234``, ``1/2``, ``2.5``) fail this rule;
3. it contains no run of five or more consecutive digits (``\\d``, any script): long digit
   strings are ZIP codes, phone, account or record numbers (``90210``, ``02107-2378``,
   ``a12345``); ``10,000-strong``, ``747-400s`` and ``1990s`` are kept;
4. it contains no ``@`` (e-mail addresses, handles) and no ``#`` (hashtags, colour codes);
5. it contains no ``_`` (markup placeholders such as ``formula_1``/``codice_1``; word tokens
   never contain an underscore);
6. it is not URL-like: it does not contain ``://`` and does not start with ``www.``
   (case-insensitive);
7. it is not host-like: it contains no ``label.tld`` where ``tld`` (case-insensitive, not followed
   by a letter, digit, ``_`` or ``-``) is a generic top-level domain (``com``, ``org``, ``net``,
   ``edu``, ``gov``, ``mil``, ``int``, ``info``, ``biz``, ``name``, ``pro``, ``mobi``, ``aero``,
   ``coop``, ``museum``, ``jobs``, ``travel``, ``asia``, ``tel``) or a web page extension
   (``html``, ``htm``, ``shtml``, ``php``, ``asp``, ``aspx``, ``jsp``, ``cfm``, ``cgi``), or
   a two-letter country code after a label of at least three characters (``gazeta.ru``,
   ``bbc.co.uk``, ``justin.tv``). Abbreviations with one- or two-letter labels
   (``u.s.``, ``e.coli``, ``b.sc``, ``st.louis``, ``ph.d.``) are kept.

Everything else is kept, including hyphenated words, clitics (``'s``, ``n't``), words with
digits (``mp3``, ``19th``, ``covid-19``), ``and/or`` and ``at&t``. The policy is a pure function of
the entry's characters; ``word-like/1`` will never change meaning: a different rule gets a new
version.

Policy ``word-like/2`` (the default since issue 47; :func:`is_plain_word`) keeps an entry if and
only if it passes ``word-like/1`` and all of these hold:

8. it is one word as the tokeniser reads it (:func:`authormask.text.tokens.tokenize`, with the
   numbers of ``compounds=True``), or one of the clitics ``n't``, ``'s``, ``'m``, ``'ll``,
   ``'re``, ``'ve``, ``'d``: runs of letters and digits (each run may carry combining marks, and
   a ``.``, ``,`` or ``:`` may stand between two digits: ``10,000-strong``, ``1.5-inch``) joined
   by single inner hyphens ``-`` or ASCII apostrophes ``'``, not ending in a clitic the
   tokeniser splits off (``he's``). An entry the tokeniser never reads as one word can never be
   an input word, and as an output it is markup or an abbreviation's punctuation, not a word:
   HTML entities (``&amp;``), ``at&t``, ``r&b``, ``;p``, ``and/or``, ``km/h``, ``c++``,
   ``us$``, abbreviations with their dots (``u.s.``, ``mr.``, ``ph.d.``), a leading or trailing
   apostrophe or hyphen (``'70s``, ``'em``, ``ol'``, ``anti-``) and the typographic apostrophe
   (``\\u2019s``: a token's lookup key writes it as ``'``) fail this rule;
9. letters and digits are not mixed inside one part between hyphens or apostrophes, except in an
   English ordinal with its right suffix (``1st``, ``22nd``, ``103rd``, ``19th``, ``11th``) or a
   decade (``1970s``, ``60s``: digits ending in ``0``, then ``s``). Escaped characters
   (``u2019t``: an apostrophe written as its code, ``u201d``, ``u00e9``), codes and model
   numbers (``67s``, ``mp3``, ``co2``, ``h1n1``, ``g8``, ``a380``, ``100m``, ``update1``)
   fail this rule; ``10-year``, ``mid-1990s``, ``19th-century``, ``f-16`` and ``3-d`` are kept
   (each of their parts is a word or a number).

On GloVe 6B, ``word-like/2`` removes 8,612 of the 367,182 entries ``word-like/1`` keeps
(358,570 remain), 1,360 of them among its first 100,000. Brand names written as one word
(``directv``, ``hewlett-packard``) are words by these rules and are kept: no packaged public
list tells a brand from a name, and the names are released like any noun. A word's characters
alone decide; ``word-like/2`` will never change meaning either.

``None`` (or ``"none"``) turns filtering off: every parsed entry, including words with spaces,
may then be an output; the identity says ``vocabulary_filter: none``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from authormask.exceptions import EmbeddingsError

__all__ = [
    "DEFAULT_FILTER",
    "FILTER_RULES",
    "VOCABULARY_FILTERS",
    "describe_filter",
    "is_plain_word",
    "is_word_like",
    "resolve_filter",
    "word_predicate",
]

#: The versioned names of the policies; ``word-like`` names the newest.
WORD_LIKE_1 = "word-like/1"
WORD_LIKE_2 = "word-like/2"
WORD_LIKE = WORD_LIKE_2
DEFAULT_FILTER = "word-like"

_GENERIC_TLDS = (
    "com|org|net|edu|gov|mil|int|info|biz|name|pro|mobi|aero|coop|museum|jobs|travel|asia|tel"
)
_PAGE_EXTENSIONS = "html|htm|shtml|php|asp|aspx|jsp|cfm|cgi"
# rule 7: "<label>.<gtld or page extension>" or "<label of >= 3 chars>.<two letters>", where a
# label starts with a letter or digit and the suffix is not followed by a word character or "-"
_HOST = re.compile(
    rf"(?:[^\W_][\w-]*\.(?:{_GENERIC_TLDS}|{_PAGE_EXTENSIONS})"
    r"|[^\W_][\w-]{2,}\.[a-z]{2})(?![\w-])",
    re.IGNORECASE,
)
_SHORT_NUMBER = re.compile(r"[0-9]{1,4}")
_LONG_DIGITS = re.compile(r"\d{5,}")


def is_word_like(word: str) -> bool:
    """Whether ``word`` passes policy ``word-like/1`` (module docstring, rules 1-7).

    Parameters
    ----------
    word
        A vocabulary entry.

    Returns
    -------
    bool
        True if it passes.

    Examples
    --------
    >>> [w for w in ["budget", "n't", "1990", "90210", ",", "a@b.org", "nytimes.com"]
    ...  if is_word_like(w)]
    ['budget', "n't", '1990']
    """
    if word.isalpha():  # letters only (most entries): every rule holds
        return True
    if not word:
        return False
    if any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in word):
        return False
    if not any(ch.isalpha() for ch in word) and not _SHORT_NUMBER.fullmatch(word):
        return False
    if _LONG_DIGITS.search(word):
        return False
    if "@" in word or "#" in word or "_" in word:
        return False
    low = word.lower()
    if "://" in low or low.startswith("www."):
        return False
    return _HOST.search(word) is None


#: the clitics the tokeniser splits off a word (``authormask.text.tokens.CLITICS``), each a word
#: token of its own
_CLITICS = frozenset({"n't", "'s", "'m", "'ll", "'re", "'ve", "'d"})
# a word ending in a clitic that the tokeniser splits off (at least one character before it)
_CLITIC_END = re.compile(r".+(?:n't|'(?:s|m|ll|re|ve|d))", re.IGNORECASE | re.DOTALL)
_NUMBER_SEPARATORS = frozenset(".,:")
_ORDINAL = re.compile(r"([0-9]+)(st|nd|rd|th)")
_DECADE = re.compile(r"[0-9]*0s")


def _is_mark(ch: str) -> bool:
    return unicodedata.category(ch)[0] == "M"


def _tokeniser_part(part: str) -> bool:
    """Whether ``part`` is one run of the tokeniser (rule 8): it starts with a letter or digit;
    every other character is a letter, a digit, a combining mark, or a ``.``, ``,`` or ``:``
    between two digits."""
    if not part or not part[0].isalnum():
        return False
    for i, ch in enumerate(part):
        if ch.isalnum() or _is_mark(ch):
            continue
        if (
            ch in _NUMBER_SEPARATORS
            and 0 < i < len(part) - 1
            and part[i - 1].isdigit()
            and part[i + 1].isdigit()
        ):
            continue
        return False
    return True


def _unmixed(part: str) -> bool:
    """Rule 9: ``part`` does not mix letters and digits, unless it is an ordinal with its right
    suffix or a decade."""
    if not (any(ch.isdigit() for ch in part) and any(ch.isalpha() for ch in part)):
        return True
    if _DECADE.fullmatch(part):
        return True
    m = _ORDINAL.fullmatch(part)
    if m is None:
        return False
    n = int(m.group(1))
    right = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return m.group(2) == right


def is_plain_word(word: str) -> bool:
    """Whether ``word`` passes policy ``word-like/2`` (module docstring, rules 1-9): it passes
    ``word-like/1``, the tokeniser reads it as one word, and it mixes letters and digits only in
    an ordinal or a decade.

    Parameters
    ----------
    word
        A vocabulary entry.

    Returns
    -------
    bool
        True if it passes.

    Examples
    --------
    >>> words = ["budget", "n't", "1990", "19th", "1970s", "state-of-the-art", "o'neill",
    ...          "&amp;", "u2019t", "67s", "mp3", "u.s.", "and/or", "'70s"]
    >>> [w for w in words if is_plain_word(w)]
    ['budget', "n't", '1990', '19th', '1970s', 'state-of-the-art', "o'neill"]
    """
    if word.isalpha():  # letters only (most entries): every rule holds
        return True
    if not is_word_like(word):
        return False
    if word in _CLITICS:
        return True
    if _CLITIC_END.fullmatch(word):
        return False
    parts = re.split(r"['\-]", word)
    return all(_tokeniser_part(p) and _unmixed(p) for p in parts)


#: Accepted names of each policy (the plain name means its current version).
VOCABULARY_FILTERS: dict[str, str] = {
    "word-like": WORD_LIKE,
    WORD_LIKE_1: WORD_LIKE_1,
    WORD_LIKE_2: WORD_LIKE_2,
}
_PREDICATES: dict[str, Callable[[str], bool]] = {
    WORD_LIKE_1: is_word_like,
    WORD_LIKE_2: is_plain_word,
}
#: What each policy keeps, in one line (for a privacy statement or a reader; the module
#: docstring has the rules in full).
FILTER_RULES: dict[str, str] = {
    WORD_LIKE_1: (
        "no whitespace or control character, a letter or a number of 1-4 digits, no run of 5+ "
        "digits, no @, #, _, URL or host name"
    ),
    WORD_LIKE_2: (
        "one word as the tokeniser reads it (letters and digits joined by inner - or ', or a "
        "clitic: no &, ;, /, @, #, _, URL or host name), a letter or a number of 1-4 digits, no "
        "run of 5+ digits, letters and digits mixed only in an ordinal (19th) or a decade "
        "(1970s), never in an escape or a code (u2019t, 67s, mp3)"
    ),
}


def describe_filter(name: str | None) -> str:
    """The versioned name of filter ``name`` and what it keeps, in one line (``"none"``: no
    filter).

    Parameters
    ----------
    name
        A filter's name, ``"none"`` or None.

    Returns
    -------
    str
        The line.

    Examples
    --------
    >>> describe_filter(None)
    'none (every entry of the vectors may be an output)'
    """
    resolved = resolve_filter(name)
    if resolved is None:
        return "none (every entry of the vectors may be an output)"
    return f"{resolved}: {FILTER_RULES[resolved]}"


def resolve_filter(name: str | None) -> str | None:
    """The versioned name of filter ``name`` (``"word-like"`` -> ``"word-like/2"``); ``None``
    for ``None`` or ``"none"`` (no filter). Raises :class:`EmbeddingsError` for an unknown name.

    Parameters
    ----------
    name
        A filter's name, ``"none"`` or None.

    Returns
    -------
    str | None
        The versioned name, or None.

    Raises
    ------
    EmbeddingsError
        If no filter has that name.
    """
    if name is None or name == "none":
        return None
    try:
        return VOCABULARY_FILTERS[name]
    except (KeyError, TypeError):
        known = ", ".join([*VOCABULARY_FILTERS, "none"])
        raise EmbeddingsError(f"unknown vocabulary filter {name!r}; known: {known}") from None


def word_predicate(name: str | None) -> Callable[[str], bool] | None:
    """The test an entry must pass under filter ``name`` (``None``: no filter, no test).

    Parameters
    ----------
    name
        A filter's name, ``"none"`` or None.

    Returns
    -------
    Callable[[str], bool] | None
        The test, or None.
    """
    resolved = resolve_filter(name)
    return None if resolved is None else _PREDICATES[resolved]
