"""Where authormask keeps what it builds once: the user's cache folder.

Prepared vocabularies (:mod:`authormask.embeddings.prepared`) live there, one ``.vocab`` file
and its ``.index`` files per embeddings, vocabulary size and filter.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_ENV", "default_cache_dir"]

#: environment variable naming the cache folder (a container image, CI or a cluster sets it once)
CACHE_ENV = "AUTHORMASK_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$AUTHORMASK_CACHE_DIR``, else ``$XDG_CACHE_HOME/authormask``, else
    ``~/.cache/authormask`` (the platform's user cache folder on Linux)."""
    explicit = os.environ.get(CACHE_ENV, "").strip()
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "authormask"
