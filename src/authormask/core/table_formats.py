"""Which files are datasets (:mod:`authormask.core.tables`): by their suffix, or a folder of
Parquet part files. Apart from the readers, so that ``obfuscate``'s check that a plain input is
no dataset imports no reader (issue 50)."""

from __future__ import annotations

import os
from pathlib import Path

from authormask.exceptions import InputError

__all__ = ["TABLE_FORMATS", "detect_table_format", "parquet_files"]

TABLE_FORMATS = ("jsonl", "csv", "parquet")
_SUFFIXES = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def detect_table_format(path: Path) -> str | None:
    """``jsonl``, ``csv`` or ``parquet`` from a file's suffix, ``parquet`` for a folder of
    ``.parquet`` files; ``None`` otherwise.

    Parameters
    ----------
    path
        The dataset's file or folder.

    Returns
    -------
    str | None
        The format, or None.
    """
    if path.is_dir():
        return "parquet" if parquet_files(path, required=False) else None
    return _SUFFIXES.get(path.suffix.lower())


def parquet_files(path: Path, *, required: bool = True) -> list[Path]:
    """The Parquet files of ``path``: itself where it is a file, else every ``.parquet`` or
    ``.pq`` file in it, its sub-folders read in order (names starting with ``.`` or ``_`` left
    out).

    Parameters
    ----------
    path
        A file or a folder.
    required
        Whether a folder without any is an error.

    Returns
    -------
    list[Path]
        The files, in order.

    Raises
    ------
    InputError
        If ``required`` and the folder holds none.
    """
    if path.is_file():
        return [path]
    found: list[Path] = []
    for root, dirs, names in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
        found.extend(
            Path(root) / n
            for n in sorted(names)
            if n.endswith((".parquet", ".pq")) and not n.startswith((".", "_"))
        )
    if required and not found:
        raise InputError(f"no .parquet files in folder {path}")
    return found
