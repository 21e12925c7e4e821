"""Text mode's output: the input with each content word replaced in place.

The released text is the input's *skeleton* - every stopword, punctuation mark, kept
out-of-vocabulary word and every character between tokens (spaces, tabs, newlines), copied
verbatim from the text as cleaned (:mod:`authormask.text.clean`: no invisible or control
character is ever copied) - with a replacement at each content position. Nothing is deleted,
so the layout of the output (its sequence of whitespace runs, so its line breaks and word count)
is exactly the cleaned input's and says nothing about which words were out of vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence

from authormask.exceptions import InvalidParameterError
from authormask.text.prepare import PreparedDocument

__all__ = ["match_case", "render_text"]


def match_case(original: str, replacement: str) -> str:
    """``replacement`` with the capitalisation pattern of ``original``.

    ALL CAPS (two or more cased letters, all upper) gives upper case, a capitalised word gives a
    capitalised replacement, anything else leaves ``replacement`` as it is.

    Parameters
    ----------
    original
        The word replaced.
    replacement
        The word that replaces it.

    Returns
    -------
    str
        ``replacement``, capitalised as ``original``.

    Examples
    --------
    >>> match_case("NASA", "agency"), match_case("Chicago", "boston"), match_case("iPhone", "ipad")
    ('AGENCY', 'Boston', 'ipad')
    """
    if original.isupper() and len(original) > 1:
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def render_text(document: PreparedDocument, replacements: Sequence[str]) -> str:
    """Rebuild ``document.text`` with ``replacements[k]`` at content position ``k``.

    ``replacements`` are in ``document.content_positions`` order (the order of
    ``document.content_words``); each takes the capitalisation pattern of the token it replaces
    (:func:`match_case`). Every other token and every character between tokens is copied verbatim,
    so rendering each content token's own text gives back the input exactly.

    Raises ``InvalidParameterError`` if the document has an ``oov-dropped`` token (text mode
    cannot drop a word without leaving a hole that shows where it was), if the number of
    replacements differs from the number of content positions, or if a replacement is empty or
    contains whitespace (it would change the text's layout).

    Parameters
    ----------
    document
        The prepared document.
    replacements
        One word per content position.

    Returns
    -------
    str
        The released text.

    Raises
    ------
    InvalidParameterError
        On an ``oov-dropped`` token, a count that differs, or an empty or spaced replacement.

    Examples
    --------
    >>> from authormask.embeddings import Embeddings
    >>> from authormask.text import TextPreparer
    >>> import numpy as np
    >>> words = ("unknown", "president", "stop", "go")
    >>> emb = Embeddings("toy", "doctest", words, np.eye(4, dtype=np.float32))
    >>> prep = TextPreparer(emb, stopwords={"the", "'s"}, oov="map")
    >>> doc = prep.prepare("The President's  STOP,\\nZoe!")
    >>> doc.content_words
    ('president', 'stop', 'unknown')
    >>> render_text(doc, ["go", "president", "x"])
    "The Go's  PRESIDENT,\\nX!"
    """
    if "oov-dropped" in document.roles:
        raise InvalidParameterError(
            f"text mode cannot drop words without leaving holes: {document.count('oov-dropped')} "
            "out-of-vocabulary word(s) were dropped; prepare the document with oov 'map' or 'keep'"
        )
    if len(replacements) != len(document.content_positions):
        raise InvalidParameterError(
            f"{len(replacements)} replacements for {len(document.content_positions)} content "
            "positions"
        )
    for word in dict.fromkeys(replacements):  # each distinct word once, in order
        if not word or any(ch.isspace() for ch in word):
            raise InvalidParameterError(
                f"a replacement must be non-empty and contain no whitespace, got {word!r}"
            )
    # every token is text[start:end], so everything between two content tokens is copied as one
    # slice: the same characters as copying each token and gap in turn
    text = document.text
    tokens = document.tokens
    pieces: list[str] = []
    cursor = 0
    for i, replacement in zip(document.content_positions, replacements, strict=True):
        tok = tokens[i]
        pieces.append(text[cursor : tok.start])
        pieces.append(match_case(tok.text, replacement))
        cursor = tok.end
    pieces.append(text[cursor:])
    return "".join(pieces)
