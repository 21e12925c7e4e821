"""Reading documents and writing outputs safely (temporary file + rename, no overwrite)."""

from __future__ import annotations

import codecs
import os
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from authormask._io import write_atomic
from authormask.exceptions import InputError

__all__ = ["Document", "example_document", "read_inputs", "write_outputs"]


@dataclass(frozen=True)
class Document:
    name: str
    text: str


def example_document() -> Document:
    text = files("authormask").joinpath("data/example.txt").read_text(encoding="utf-8")
    return Document("example.txt", text)


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _decode(raw: bytes, label: str) -> str:
    for bom, encoding in _BOMS:  # UTF-32 first: its little-endian BOM starts like UTF-16's
        if raw.startswith(bom):
            try:
                return _checked(raw.decode(encoding), label)
            except UnicodeDecodeError:
                raise InputError(
                    f"{label} starts with a {encoding} byte order mark but is not valid {encoding}"
                ) from None
    if b"\x00" in raw[:8192]:
        raise InputError(
            f"{label} contains NUL bytes: a binary file, or UTF-16/UTF-32 text without a byte "
            "order mark (convert it to UTF-8)"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{label} is not valid UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r})"
        ) from None
    return _checked(text, label)


def _checked(text: str, label: str) -> str:
    if not text.strip():
        raise InputError(f"{label} is empty or whitespace only")
    return text.replace("\r\n", "\n")


def _read_file(path: Path) -> Document:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"input file not found: {path}") from None
    except PermissionError:
        raise InputError(f"input file is not readable (permission denied): {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read input file {path}: {exc.strerror}") from None
    return Document(str(path), _decode(raw, f"input file {path}"))


def read_inputs(inputs: tuple[str, ...]) -> list[Document]:
    """Files, folders (their non-hidden files, recursively, sorted) or ``-`` for stdin."""
    docs: list[Document] = []
    for item in inputs:
        if item == "-":
            docs.append(Document("<stdin>", _decode(sys.stdin.buffer.read(), "standard input")))
            continue
        path = Path(item)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                raise InputError(f"input folder contains no files: {path}")
            docs.extend(_read_file(p) for p in found)
        elif not os.path.lexists(path):
            raise InputError(f"input file not found: {path}")
        else:
            docs.append(_read_file(path))
    return docs


def write_outputs(
    contents: dict[Path, str], *, force: bool, private: frozenset[Path] = frozenset()
) -> None:
    """Write every file atomically; see :func:`authormask._io.write_atomic`."""
    write_atomic(contents, force=force, private=private)
