"""On-disk cache of parsed vector files (``.npy`` + word list), so a second load is fast.

Entries are keyed by the file's absolute path, size and modification time, so an edited file is
re-read. Writes go to a temporary file in the cache folder and are renamed into place.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

__all__ = ["cache_key", "default_cache_dir", "load_cached", "store_cached"]

logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/authormask`` or ``~/.cache/authormask``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "authormask"


def cache_key(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:24]


def file_cache_key(path: Path, fmt: str) -> str:
    st = path.stat()
    return cache_key(str(path.resolve()), str(st.st_size), str(st.st_mtime_ns), fmt)


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


def _atomic_write(
    path: Path, data: bytes | None = None, array: NDArray[np.float32] | None = None
) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            if array is not None:
                np.save(fh, array, allow_pickle=False)
            elif data is not None:
                fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store_cached(
    cache_dir: Path | None, key: str, words: list[str], vectors: NDArray[np.float32]
) -> None:
    if cache_dir is None:
        return
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write(cache_dir / f"{key}.npy", array=np.ascontiguousarray(vectors, np.float32))
        _atomic_write(cache_dir / f"{key}.words.txt", data="\n".join(words).encode("utf-8"))
    except OSError as exc:  # a read-only cache must not break obfuscation
        logger.warning("could not write embeddings cache in %s: %s", cache_dir, exc)
