"""Word sets whose SHA-256 this process computed from them, or checked against them: the noun
lexicons :func:`~authormask.models.lexicon.load_noun_lexicon` loaded or built. The writer names
released words by a lexicon's description only where they are the very set kept here
(:func:`~authormask.models.writer.load_writer`): words from elsewhere, even as many under the
same description, are never taken for a lexicon's (helper-25). A module of its own, so that the
writer reads it without importing the lexicon (which imports the writer)."""

from __future__ import annotations

import threading

__all__ = ["vouch", "vouched_digest"]

_LOCK = threading.Lock()
#: each set (kept alive here, so its identity cannot be reused) and its SHA-256, by identity
_VOUCHED: dict[int, tuple[frozenset[str], str]] = {}


def vouch(words: frozenset[str], sha256: str) -> None:
    """Keep ``words`` as a set whose SHA-256 (of the sorted words, one per line) is ``sha256``,
    computed from them or checked against them by the caller.

    Parameters
    ----------
    words
        The words.
    sha256
        Their SHA-256.
    """
    with _LOCK:
        _VOUCHED[id(words)] = (words, sha256)


def vouched_digest(words: frozenset[str]) -> str | None:
    """The SHA-256 of ``words`` where they are (the very set of) one vouched for, else None.

    Parameters
    ----------
    words
        The words.

    Returns
    -------
    str or None
        Their SHA-256.
    """
    with _LOCK:
        found = _VOUCHED.get(id(words))
    return found[1] if found is not None and found[0] is words else None
