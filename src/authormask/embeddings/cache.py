"""On-disk cache of parsed vector files (``.npy`` + word list), so a second load is fast.

Entries are keyed by the file's absolute path, size and modification time, so an edited file is
re-read, and by what was read: the format, the word limit and the vocabulary filter
(:mod:`authormask.embeddings.vocabulary`), so an unfiltered entry is never served for a filtered
load or the other way round. Each file is written with :func:`authormask._io.atomic_path`: a
temporary file in the cache folder, flushed to disk and renamed into place; a cache path that is
a symlink or not a regular file is left alone. The vectors are written before the word list and
an entry is used only when both exist and agree in length.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from authormask._io import atomic_path
from authormask.exceptions import InputError

__all__ = ["cache_key", "default_cache_dir", "file_cache_key", "load_cached", "store_cached"]

logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/authormask`` or ``~/.cache/authormask``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "authormask"


def cache_key(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:24]


def file_cache_key(
    path: Path, fmt: str, limit: int | None = None, vocabulary_filter: str | None = None
) -> str:
    """The key of ``path`` read as ``fmt``, at most ``limit`` words passing ``vocabulary_filter``
    (a versioned name such as ``"word-like/1"``; ``None``: unfiltered)."""
    st = path.stat()
    return cache_key(
        str(path.resolve()),
        str(st.st_size),
        str(st.st_mtime_ns),
        f"{fmt}:{limit}",
        f"filter={vocabulary_filter or 'none'}",
    )


def load_cached(cache_dir: Path | None, key: str) -> tuple[list[str], NDArray[np.float32]] | None:
    if cache_dir is None:
        return None
    words_path = cache_dir / f"{key}.words.txt"
    vec_path = cache_dir / f"{key}.npy"
    if not (words_path.is_file() and vec_path.is_file()):
        return None
    try:
        words = words_path.read_text(encoding="utf-8").split("\n")
        vectors = np.load(vec_path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        logger.warning("ignoring unreadable cache entry %s: %s", key, exc)
        return None
    if vectors.ndim != 2 or vectors.shape[0] != len(words):
        logger.warning("ignoring inconsistent cache entry %s", key)
        return None
    logger.info("loaded %d vectors from cache %s", len(words), vec_path)
    return words, vectors


def store_cached(
    cache_dir: Path | None, key: str, words: list[str], vectors: NDArray[np.float32]
) -> None:
    if cache_dir is None:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with atomic_path(cache_dir / f"{key}.npy") as tmp, tmp.open("wb") as fh:
            np.save(fh, np.ascontiguousarray(vectors, np.float32), allow_pickle=False)
        with atomic_path(cache_dir / f"{key}.words.txt") as tmp:
            tmp.write_bytes("\n".join(words).encode("utf-8"))
    except (OSError, InputError) as exc:  # a read-only cache must not break obfuscation
        logger.warning("could not write embeddings cache in %s: %s", cache_dir, exc)
