"""The one results cache of every evaluation protocol (fernandes2019, bo2021, pan), which lets
an interrupted run resume: one JSON object per file in one folder, named
``<kind>-<hash of its key>.json``. A file holds its whole key and answers for exactly that key,
so a changed setting (seed, corpus, parameters, package version...) is a miss and a damaged
file is recomputed, never trusted. Files are written atomically
(:func:`authormask._io.write_atomic`): an interrupted run leaves whole files only."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from authormask._io import write_atomic

__all__ = ["ResultsCache", "cache_key"]

logger = logging.getLogger(__name__)

_KEY = "_key"


def cache_key(key: Mapping[str, Any]) -> str:
    """A short, stable digest of a JSON-serialisable key (the same on every machine).

    Parameters
    ----------
    key
        A JSON-serialisable mapping.

    Returns
    -------
    str
        The first 24 hexadecimal digits of the SHA-256 of its sorted JSON.
    """
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


class ResultsCache:
    """JSON results in ``folder`` (``None``: a cache that holds nothing).

    Parameters
    ----------
    folder
        The folder of the JSON files, or ``None`` for a cache that holds nothing.
    """

    def __init__(self, folder: str | Path | None) -> None:
        self.folder = Path(folder) if folder is not None else None

    def path(self, kind: str, key: Mapping[str, Any]) -> Path | None:
        """The file that holds the value of ``kind`` stored under ``key`` (whether or not it
        exists).

        Parameters
        ----------
        kind
            What the value is (the file name's prefix).
        key
            The value's whole key (JSON-serialisable).

        Returns
        -------
        Path | None
            ``<folder>/<kind>-<hash of key>.json``, or ``None`` when the cache has no folder.
        """
        return self.folder / f"{kind}-{cache_key(key)}.json" if self.folder else None

    def get(self, kind: str, key: Mapping[str, Any]) -> dict[str, Any] | None:
        """The value stored under exactly ``key``, or ``None`` (absent, unreadable or another
        key).

        Parameters
        ----------
        kind
            What the value is (the file name's prefix).
        key
            The value's whole key (JSON-serialisable).

        Returns
        -------
        dict[str, Any] | None
            The stored JSON object (its key left out), or ``None``.
        """
        path = self.path(kind, key)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            logger.warning("ignoring unreadable cache file %s", path)
            return None
        if not isinstance(data, dict) or data.pop(_KEY, None) != json.loads(json.dumps(key)):
            return None
        return data

    def put(self, kind: str, key: Mapping[str, Any], value: Mapping[str, Any]) -> None:
        """Store ``value`` (a JSON object) under ``key``, replacing what was there.

        Parameters
        ----------
        kind
            What the value is (the file name's prefix).
        key
            The value's whole key (JSON-serialisable); stored in the file with it.
        value
            The JSON object to store.
        """
        path = self.path(kind, key)
        if path is not None:
            write_atomic({path: json.dumps({_KEY: key, **value})}, force=True)
