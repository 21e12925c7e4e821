"""Readers for word-vector files: word2vec binary, word2vec/GloVe text and fastText ``.vec``."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import EmbeddingsError

__all__ = ["detect_format", "read_vectors_file"]

logger = logging.getLogger(__name__)

FORMATS = ("word2vec-binary", "text")


def detect_format(path: Path) -> str:
    """Guess the format: a file whose first record after the header is not UTF-8 text is binary."""
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
    path: Path, *, fmt: str | None = None, limit: int | None = None
) -> tuple[list[str], NDArray[np.float32]]:
    """Read words and vectors from ``path``, keeping at most ``limit`` words (file order).

    Text files may start with a ``"<count> <dimension>"`` header (word2vec text, fastText
    ``.vec``) or not (GloVe). Repeated words keep their first vector. Raises
    :class:`EmbeddingsError` naming the file and line for malformed content.
    """
    if not path.exists():
        raise EmbeddingsError(f"embeddings file not found: {path}")
    if not path.is_file():
        raise EmbeddingsError(f"embeddings path is not a file: {path}")
    fmt = fmt or detect_format(path)
    if fmt == "word2vec-binary":
        return _read_word2vec_binary(path, limit)
    if fmt == "text":
        return _read_text(path, limit)
    raise EmbeddingsError(f"unknown embeddings file format {fmt!r}; known: {', '.join(FORMATS)}")


def _read_text(path: Path, limit: int | None) -> tuple[list[str], NDArray[np.float32]]:
    """Text vectors: one ``word v1 ... vn`` record per line, after an optional header.

    A word that contains a space (``new york 0.1 ...``: the last n fields are the vector) can
    never match a token nor be released as one word, so it is skipped, not a reason to fail; a
    header whose word count disagrees with the records read is refused.
    """
    words: list[str] = []
    rows: list[NDArray[np.float32]] = []
    seen: set[str] = set()
    dim: int | None = None
    declared: int | None = None
    records = 0
    skipped = 0
    stopped_early = False
    try:
        with path.open("r", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                line = line.rstrip("\n").rstrip("\r")
                if not line.strip():
                    continue
                if lineno == 1 and _is_header(line):
                    declared, dim = (int(x) for x in line.split())
                    if dim < 1:
                        raise EmbeddingsError(f"{path}:1: dimension must be >= 1, got {dim}")
                    continue
                parts = line.rstrip().split(" ")
                if dim is None:
                    dim = len(parts) - 1
                    if dim < 1:
                        raise EmbeddingsError(f"{path}:{lineno}: line has a word but no vector")
                if len(parts) < dim + 1:
                    raise EmbeddingsError(
                        f"{path}:{lineno}: expected {dim} values after {parts[0]!r}, "
                        f"found {len(parts) - 1}"
                    )
                word, values = " ".join(parts[: len(parts) - dim]), parts[len(parts) - dim :]
                try:
                    vec = np.array(values, dtype=np.float32)
                except ValueError:
                    raise EmbeddingsError(
                        f"{path}:{lineno}: non-numeric vector value for {word!r}"
                    ) from None
                records += 1
                if any(ch.isspace() for ch in word) or not word:
                    skipped += 1
                    continue
                if word in seen:
                    continue
                seen.add(word)
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
    if skipped:
        logger.info("%s: skipped %d words that contain spaces", path, skipped)
    if not words or dim is None:
        raise EmbeddingsError(f"{path}: no word vectors found")
    return words, np.vstack(rows).astype(np.float32)


def _read_word2vec_binary(path: Path, limit: int | None) -> tuple[list[str], NDArray[np.float32]]:
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
            vectors[len(words)] = np.frombuffer(data, dtype="<f4")
            words.append(word)
    if not words:
        raise EmbeddingsError(f"{path}: no word vectors found")
    return words, vectors[: len(words)]
