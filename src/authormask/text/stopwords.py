"""Stopword lists. The default is the English list distributed with NLTK (153 words) plus the
seven English clitics (n't, 's, 'm, 'll, 're, 've, 'd) that the tokenizer splits off: 160 words."""

from __future__ import annotations

import hashlib
import os
import stat
from functools import lru_cache
from importlib.resources import files
from pathlib import Path

from authormask.exceptions import InputError

__all__ = ["default_stopwords", "describe_stopwords", "list_words", "load_stopwords"]


@lru_cache(maxsize=1)
def default_stopwords() -> frozenset[str]:
    """The packaged English stopword list (NLTK-derived), lower-cased.

    Returns
    -------
    frozenset[str]
        The words.
    """
    text = files("authormask").joinpath("data/stopwords_en.txt").read_text(encoding="utf-8")
    return frozenset(w.strip().lower() for w in text.splitlines() if w.strip())


def describe_stopwords(words: frozenset[str], kind: str) -> str:
    """Public identity of a stopword list: its kind, size and the sha256 of its sorted words
    (never a file name, which could identify the user).

    Parameters
    ----------
    words
        The list's words.
    kind
        What the list is (``"english (NLTK-derived list)"``, ``"a custom list"``).

    Returns
    -------
    str
        The list's kind, size and hash.

    Examples
    --------
    >>> describe_stopwords(frozenset({"the", "a"}), "a custom list")  # doctest: +ELLIPSIS
    'a custom list, 2 words, sha256 ...'
    """
    return f"{kind}, {len(words)} words, sha256 {_digest(words)}"


def _digest(words: frozenset[str]) -> str:
    return hashlib.sha256("\n".join(sorted(words)).encode("utf-8")).hexdigest()[:16]


def list_words(words: frozenset[str]) -> str:
    """A class of words as a statement names it: its size, the sha256 of its sorted words (as
    :func:`describe_stopwords` computes it) and every word, sorted, one space between two. A
    statement builds it from the very set the mechanism uses, never from a second list.

    Parameters
    ----------
    words
        The class's words.

    Returns
    -------
    str
        Its size, hash and words.

    Examples
    --------
    >>> list_words(frozenset({"the", "a", "n't"}))  # doctest: +ELLIPSIS
    "3 words, sha256 ...: a n't the"
    """
    return f"{len(words)} words, sha256 {_digest(words)}: {' '.join(sorted(words))}"


def load_stopwords(spec: str | Path | None) -> tuple[frozenset[str], str]:
    """Resolve a stopword spec to ``(words, description)``.

    ``None`` or ``"english"``: the default list; ``"none"``: no stopwords; otherwise a UTF-8 file
    with one word per line.

    Parameters
    ----------
    spec
        None, ``"english"``, ``"none"``, or the path of a word list.

    Returns
    -------
    tuple[frozenset[str], str]
        The words and their public description.

    Raises
    ------
    InputError
        If the file is missing, is not a regular file (a FIFO, a device, a socket or a folder,
        refused without blocking) or cannot be read as UTF-8.
    """
    if spec is None or str(spec) == "english":
        words = default_stopwords()
        return words, describe_stopwords(words, "english (NLTK-derived list)")
    if str(spec) == "none":
        return frozenset(), "none"
    text = _read_regular(Path(spec))
    words = frozenset(w.strip().lower() for w in text.splitlines() if w.strip())
    return words, describe_stopwords(words, "a custom list")


def _special_kind(mode: int) -> str:
    """What a file that is not a regular one is, for an error message (the embeddings cache's
    words for special files, :func:`~authormask.embeddings.cache.special_file_kind`)."""
    from authormask.embeddings.cache import special_file_kind

    if stat.S_ISDIR(mode):
        return "a folder"
    return special_file_kind(mode) or "not a regular file"


def _read_regular(path: Path) -> str:
    """The UTF-8 text of the stopword file ``path``: opened without blocking (opening a FIFO
    for reading would wait for a writer) and refused, before anything is read, unless the
    descriptor is a regular file (links followed).

    Raises
    ------
    InputError
        One line naming ``path``: missing, not a regular file, or unreadable.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise InputError(f"stopword file not found: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read stopword file {path}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputError(
            f"stopword file {path} is {_special_kind(mode)}, not a file: refusing to read it"
        )
    with os.fdopen(fd, "rb") as fh:
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        try:
            return fh.read().decode("utf-8")
        except OSError as exc:
            raise InputError(f"cannot read stopword file {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise InputError(f"cannot read stopword file {path}: {exc}") from None
