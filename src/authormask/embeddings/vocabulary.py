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

Policy ``word-like/1`` (the default; :func:`is_word_like`) keeps an entry if and only if all of
these hold:

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
    "VOCABULARY_FILTERS",
    "is_word_like",
    "resolve_filter",
    "word_predicate",
]

#: The versioned name of the default policy.
WORD_LIKE = "word-like/1"
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


#: Accepted names of each policy (the plain name means its current version).
VOCABULARY_FILTERS: dict[str, str] = {"word-like": WORD_LIKE, WORD_LIKE: WORD_LIKE}
_PREDICATES: dict[str, Callable[[str], bool]] = {WORD_LIKE: is_word_like}


def resolve_filter(name: str | None) -> str | None:
    """The versioned name of filter ``name`` (``"word-like"`` -> ``"word-like/1"``); ``None``
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
