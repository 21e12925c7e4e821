"""Prepared files (:mod:`authormask.embeddings.prepared`) as a forger writes them, for the tests
of the vocabulary, the recogniser and the writer: the header read and rewritten with its own
checksum, so that only what a reader checks beyond the checksum can refuse the file."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from authormask.embeddings.prepared import _MAGIC, _PREFIX


def header_of(path: Path) -> tuple[dict[str, Any], int]:
    """The file's header as written and where its arrays start."""
    data = path.read_bytes()
    head_len = int.from_bytes(data[len(_MAGIC) : len(_MAGIC) + 8], "little")
    return json.loads(data[_PREFIX : _PREFIX + head_len]), _PREFIX + head_len


def forge_header(
    path: Path, edit: Callable[[dict[str, Any]], None], out: Path | None = None
) -> Path:
    """``path`` with its header edited by ``edit`` (in place) and its checksum made to match,
    the header the same length (padded with spaces, as written), to ``out`` (default: itself)."""
    data = path.read_bytes()
    header, start = header_of(path)
    edit(header)
    head = json.dumps(header, sort_keys=True).encode("utf-8")
    head_len = start - _PREFIX
    assert len(head) <= head_len, "the edited header is longer than the written one"
    head += b" " * (head_len - len(head))
    prefix = data[: len(_MAGIC) + 8]
    target = path if out is None else out
    target.write_bytes(prefix + hashlib.sha256(head).digest() + head + data[start:])
    return target
