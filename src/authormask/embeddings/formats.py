"""Readers for word-vector files: word2vec binary, word2vec/GloVe text and fastText ``.vec``."""

from __future__ import annotations

import itertools
import logging
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import EmbeddingsError

__all__ = ["detect_format", "read_vectors_file"]

logger = logging.getLogger(__name__)

FORMATS = ("word2vec-binary", "text")


def detect_format(path: Path) -> str:
    """Guess the format: a file whose first record after the header is not UTF-8 text is binary.

    Parameters
    ----------
    path
        The vectors file.

    Returns
    -------
    str
        ``"word2vec-binary"`` or ``"text"``.
    """
    if path.suffix.lower() == ".bin":
        return "word2vec-binary"
    with path.open("rb") as fh:
        head = fh.read(4096)
    try:
        first_line, _, rest = head.partition(b"\n")
        first_line.decode("utf-8")
        if _is_header(first_line.decode("utf-8")):
            rest[:256].decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return "word2vec-binary"
    return "text"


def _is_header(line: str) -> bool:
    parts = line.split()
    return len(parts) == 2 and all(p.isdigit() for p in parts)


def read_vectors_file(
    path: Path,
    *,
    fmt: str | None = None,
    limit: int | None = None,
    keep: Callable[[str], bool] | None = None,
) -> tuple[list[str], NDArray[np.float32]]:
    """Read words and vectors from ``path``, keeping at most ``limit`` words (file order).

    Text files may start with a ``"<count> <dimension>"`` header (word2vec text, fastText
    ``.vec``) or not (GloVe). Repeated words keep their first vector. ``keep`` (a vocabulary
    filter, :mod:`authormask.embeddings.vocabulary`) is applied while reading, so ``limit``
    counts the words that pass it. Raises :class:`EmbeddingsError` naming the file and line for
    malformed content, and for a header whose word count disagrees with the records read.

    Parameters
    ----------
    path
        The vectors file.
    fmt
        ``"word2vec-binary"`` or ``"text"``; None: detected (:func:`detect_format`).
    limit
        The most words to keep, or None (all).
    keep
        The test a word must pass to be kept, or None (every word).

    Returns
    -------
    tuple[list[str], NDArray[np.float32]]
        The words and their vectors, one row per word.

    Raises
    ------
    EmbeddingsError
        If the file is missing, of an unknown format, malformed, or holds no vector.
    """
    if not path.exists():
        raise EmbeddingsError(f"embeddings file not found: {path}")
    if not path.is_file():
        raise EmbeddingsError(f"embeddings path is not a file: {path}")
    fmt = fmt or detect_format(path)
    if fmt == "word2vec-binary":
        words, vectors, dropped = _read_word2vec_binary(path, limit, keep)
    elif fmt == "text":
        words, vectors, dropped = _read_text(path, limit, keep)
    else:
        raise EmbeddingsError(
            f"unknown embeddings file format {fmt!r}; known: {', '.join(FORMATS)}"
        )
    if dropped:
        logger.info("%s: the vocabulary filter left out %d entries", path, dropped)
    if not words:
        raise EmbeddingsError(
            f"{path}: no word vectors found"
            + (f" ({dropped} entries left out by the vocabulary filter)" if dropped else "")
        )
    return words, vectors


#: Records looked at to find (or, after a header, check) the dimension of a text file.
_DIMENSION_PEEK = 100


def _read_text(
    path: Path, limit: int | None, keep: Callable[[str], bool] | None
) -> tuple[list[str], NDArray[np.float32], int]:
    """Text vectors: one ``word v1 ... vn`` record per line, after an optional header.

    A record is split from the right: the last n whitespace-separated fields are the vector and
    everything before them, without surrounding whitespace but with its inner spaces as they are,
    is the word, so ``new york 0.1 ... 0.5`` is the entry ``"new york"``. Such an entry is read
    like any other; whether it may be an output is the vocabulary filter's decision
    (``word-like/1`` and ``/2`` leave it out: a token never contains a space).
    Without a header, n is the most common count of whitespace-separated fields among the first
    100 records (ties: the larger) minus one, so a first line whose word contains spaces does not
    set it; with a header, a declared dimension smaller than that (most records would get a word
    with spaces) is refused. Records whose word is empty or whitespace are skipped. A header's
    word count must equal the records read (unless ``limit`` stopped early).
    """
    words: list[str] = []
    rows: list[NDArray[np.float32]] = []
    seen: set[str] = set()
    dim: int | None = None
    declared: int | None = None
    records = 0
    empty = 0
    dropped = 0
    stopped_early = False
    try:
        with path.open("r", encoding="utf-8") as fh:
            numbered = enumerate(fh, start=1)
            first = next(((n, ln) for n, ln in numbered if ln.strip()), None)
            if first is None:
                return [], np.empty((0, 0), np.float32), 0
            if _is_header(first[1]):
                declared, dim = (int(x) for x in first[1].split())
                if dim < 1:
                    raise EmbeddingsError(f"{path}:{first[0]}: dimension must be >= 1, got {dim}")
                pending = list(itertools.islice(numbered, _DIMENSION_PEEK))
            else:
                pending = [first, *itertools.islice(numbered, _DIMENSION_PEEK - 1)]
            fields = Counter(len(ln.split()) for _, ln in pending if ln.strip())
            if fields:
                # the most common field count (ties: the larger), minus the one word field
                inferred = max(fields, key=lambda k: (fields[k], k)) - 1
                if dim is None:
                    dim = inferred
                    if dim < 1:
                        raise EmbeddingsError(f"{path}:{first[0]}: line has a word but no vector")
                elif inferred > dim:
                    raise EmbeddingsError(
                        f"{path}: the header declares dimension {dim} but most of the first "
                        f"{fields.total()} records have {inferred} values after their word"
                    )
            assert dim is not None
            for lineno, line in itertools.chain(pending, numbered):
                if not line.strip():
                    continue
                parts = line.rsplit(None, dim)
                if len(parts) == dim and line[0].isspace():
                    parts.insert(0, "")  # the word is whitespace only: skipped below
                if len(parts) < dim + 1:
                    raise EmbeddingsError(
                        f"{path}:{lineno}: expected {dim} values after {parts[0]!r}, "
                        f"found {len(parts) - 1}"
                    )
                word, values = parts[0].strip(), parts[1:]
                try:
                    vec = np.array(values, dtype=np.float32)
                except ValueError:
                    raise EmbeddingsError(
                        f"{path}:{lineno}: non-numeric vector value for {word!r}"
                    ) from None
                records += 1
                if not word:
                    empty += 1
                    continue
                if word in seen:
                    continue
                seen.add(word)
                if keep is not None and not keep(word):
                    dropped += 1
                    continue
                words.append(word)
                rows.append(vec)
                if limit is not None and len(words) >= limit:
                    stopped_early = True
                    break
    except UnicodeDecodeError as exc:
        raise EmbeddingsError(f"{path}: not UTF-8 text ({exc.reason})") from None
    if declared is not None and not stopped_early and records != declared:
        raise EmbeddingsError(
            f"{path}: the header declares {declared} words but the file has {records} records"
        )
    if empty:
        logger.info("%s: skipped %d records with an empty word", path, empty)
    if not words:
        return [], np.empty((0, dim), np.float32), dropped
    return words, np.vstack(rows).astype(np.float32), dropped


def _read_word2vec_binary(
    path: Path, limit: int | None, keep: Callable[[str], bool] | None
) -> tuple[list[str], NDArray[np.float32], int]:
    """word2vec binary: a ``"<count> <dimension>"`` line, then ``count`` records ``word`` + space
    + ``dimension`` little-endian float32 (+ an optional newline). Data after the last declared
    record is refused like a short file: the header's count must be right."""
    with path.open("rb") as fh:
        header = fh.readline()
        try:
            count_s, dim_s = header.decode("ascii").split()
            count, dim = int(count_s), int(dim_s)
        except (UnicodeDecodeError, ValueError):
            raise EmbeddingsError(
                f"{path}: not a word2vec binary file (bad header {header[:40]!r})"
            ) from None
        if count < 1 or dim < 1:
            raise EmbeddingsError(f"{path}: header declares {count} words of dimension {dim}")
        n = count if limit is None else min(count, limit)
        words: list[str] = []
        vectors = np.empty((n, dim), dtype=np.float32)
        seen: set[str] = set()
        nbytes = 4 * dim
        dropped = 0
        for i in range(count):
            if len(words) >= n:
                break
            raw = bytearray()
            while True:
                ch = fh.read(1)
                if not ch:
                    raise EmbeddingsError(
                        f"{path}: file ends inside record {i + 1} of {count} (truncated?)"
                    )
                if ch == b" ":
                    break
                if ch != b"\n":
                    raw += ch
            try:
                word = raw.decode("utf-8")
            except UnicodeDecodeError:
                word = raw.decode("latin-1")
            data = fh.read(nbytes)
            if len(data) != nbytes:
                raise EmbeddingsError(
                    f"{path}: file ends inside the vector of record {i + 1} of {count} (truncated?)"
                )
            if not word or word in seen:
                continue
            seen.add(word)
            if keep is not None and not keep(word):
                dropped += 1
                continue
            vectors[len(words)] = np.frombuffer(data, dtype="<f4")
            words.append(word)
        else:
            if fh.read(64).strip():
                raise EmbeddingsError(
                    f"{path}: the header declares {count} words but the file has more records"
                )
    return words, vectors[: len(words)], dropped
