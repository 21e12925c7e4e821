"""Where documents come from, read part by part so no document has to fit in memory.

A document is read as a sequence of parts (:mod:`authormask.text.parts`): a document read from
a file block by block, or given as one string, is cut at the same places, and a seeded release
gives the same output either way.

Files are decoded incrementally: UTF-8 (a byte order mark is accepted), or UTF-16/UTF-32 when
they start with their byte order mark; CRLF line ends become LF. Without a byte order mark, NUL
bytes in the first 8 KiB mean UTF-16/32 (or a binary file), and the error says so.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask._io import file_identity
from authormask.core.markers import OwnFileScan, kind_of_text, never_released
from authormask.exceptions import InputError
from authormask.text.clean import clean_text
from authormask.text.parts import PART_CHARS, PartSplitter, split_parts

__all__ = [
    "PART_CHARS",
    "FileSource",
    "Source",
    "StdinSource",
    "TextSource",
    "digest_words",
    "split_parts",
    "words_digest",
]

#: bytes read from a file at a time
_BLOCK = 1 << 18
#: the bytes a file's decoder holds back before its first text (its start is checked on them)
_FIRST_TEXT = 8192

_BOMS = (  # UTF-32 first: its little-endian BOM starts like UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
    (codecs.BOM_UTF8, "utf-8-sig"),
)


@dataclass(frozen=True)
class Source:
    """A document to release: ``name`` (for the private report), ``relpath`` (its path inside the
    folder it was found in, for mirrored outputs) and ``size`` (bytes, for progress; 0 if
    unknown).

    Attributes
    ----------
    name
        The document's name, for the private report.
    relpath
        Its path inside the folder it was found in, for mirrored outputs.
    size
        Its size in bytes, for progress (0 if unknown).
    """

    name: str
    relpath: str
    size: int

    def parts(self) -> Iterator[str]:  # pragma: no cover - abstract
        """The document's text, part by part (:mod:`authormask.text.parts`).

        Returns
        -------
        Iterator[str]
            The parts, in order.

        Raises
        ------
        NotImplementedError
            Here: each kind of source reads its own text.
        """
        raise NotImplementedError

    @property
    def rereadable(self) -> bool:
        """Whether :meth:`parts` can be read more than once (standard input cannot)."""
        return True

    @property
    def identity(self) -> tuple[int, int] | None:
        """The file it is read from as ``(device, inode)``, or None (not a file): an output
        with that identity would replace the input (:func:`authormask._io.check_not_inputs`).
        Read when asked (a file's inode as it is now)."""
        return None


@dataclass(frozen=True)
class TextSource(Source):
    """A document given as a string (``origin``: the identity of the file it was read from,
    if any).

    Attributes
    ----------
    name
        The document's name, for the private report.
    relpath
        Its path inside the folder it was found in, for mirrored outputs.
    size
        Its size in bytes, for progress (0 if unknown).
    text
        The document.
    origin
        The ``(device, inode)`` of the file it was read from, or None.
    """

    text: str = ""
    origin: tuple[int, int] | None = None

    @property
    def identity(self) -> tuple[int, int] | None:
        return self.origin

    def parts(self) -> Iterator[str]:
        """The text, cut into parts.

        Returns
        -------
        Iterator[str]
            The parts, in order.

        Raises
        ------
        InputError
            If the text is empty or whitespace only.
        """
        if not self.text.strip():
            raise InputError(f"{self.name}: document is empty or whitespace only")
        # an authormask report or statement is never released, however it was handed over
        # (its start as a file's first decoded text is read, then a mark anywhere)
        head = self.text[:_FIRST_TEXT]
        if (kind := kind_of_text(head) or OwnFileScan().feed(self.text)) is not None:
            raise InputError(never_released(self.name, kind))
        return split_parts(self.text)


class _Decoder:
    """Incremental decoding with the checks of the module docstring."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._decoder: codecs.IncrementalDecoder | None = None
        self._encoding = "utf-8"
        self._head = b""
        self._offset = 0
        self._cr = False
        self._nonblank = False

    def _start(self, head: bytes) -> None:
        for bom, encoding in _BOMS:
            if head.startswith(bom):
                self._encoding = encoding
                break
        else:
            if b"\x00" in head[:_FIRST_TEXT]:
                raise InputError(
                    f"{self.label} contains NUL bytes: a binary file, or UTF-16/UTF-32 text "
                    "without a byte order mark (convert it to UTF-8)"
                )
            self._encoding = "utf-8"
        self._decoder = codecs.getincrementaldecoder(self._encoding)()

    def decode(self, data: bytes, *, final: bool = False) -> str:
        if self._decoder is None:
            self._head += data
            if len(self._head) < _FIRST_TEXT and not final:
                return ""
            data, self._head = self._head, b""
            self._start(data)
        assert self._decoder is not None
        try:
            text = self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            if self._encoding.startswith("utf-8"):
                at = self._offset + exc.start
                raise InputError(
                    f"{self.label} is not valid UTF-8 (byte {at}: "
                    f"{exc.object[exc.start : exc.start + 1]!r}); convert it first, e.g. "
                    "iconv -f latin1 -t utf-8 (for a Latin-1 text)"
                ) from None
            raise InputError(
                f"{self.label} starts with a {self._encoding} byte order mark but is not valid "
                f"{self._encoding}"
            ) from None
        self._offset += len(data)
        if self._cr:
            text = "\r" + text
        self._cr = text.endswith("\r") and not final
        if self._cr:
            text = text[:-1]
        text = text.replace("\r\n", "\n")
        if not self._nonblank and text.strip():
            self._nonblank = True
        return text

    def finish(self) -> str:
        text = self.decode(b"", final=True)
        if not self._nonblank:
            raise InputError(f"{self.label} is empty or whitespace only")
        return text


def _decoded_parts(blocks: Iterator[bytes], label: str) -> Iterator[str]:
    decoder = _Decoder(label)
    splitter = PartSplitter()
    checked = False
    scan = OwnFileScan()

    def first_checked(text: str) -> str:
        # authormask's own files are never released, whatever their name or way in
        # (standard input, a copy, a link): their first characters say what they are (the
        # decoder gives its first text after 8 KiB, or at the end of a shorter input), and
        # a banner or schema anywhere in the text (a report after a blank line, a statement
        # with its keys sorted, either pasted into notes) is found as the text is read
        nonlocal checked
        if not checked and text:
            checked = True
            _refuse_own_file(text, label)
        if text and (kind := scan.feed(text)) is not None:
            raise InputError(never_released(label, kind))
        return text

    for block in blocks:
        yield from splitter.feed(first_checked(decoder.decode(block)))
    yield from splitter.feed(first_checked(decoder.finish()))
    yield from splitter.close()


def _refuse_own_file(head: str, label: str) -> None:
    if (kind := kind_of_text(head)) is not None:
        raise InputError(never_released(label, kind))


@dataclass(frozen=True)
class FileSource(Source):
    """A document in a file, read block by block.

    Attributes
    ----------
    name
        The document's name, for the private report.
    relpath
        Its path inside the folder it was found in, for mirrored outputs.
    size
        Its size in bytes, for progress (0 if unknown).
    path
        The file.
    """

    path: Path = Path()

    @classmethod
    def of(cls, path: Path, relpath: str | None = None) -> FileSource:
        """The source of the file at ``path``, named by it, with its size as it is now.

        Parameters
        ----------
        path
            The file.
        relpath
            Its path inside the folder it was found in (default: its name).

        Returns
        -------
        FileSource
            The source (size 0 where the file cannot be read now).
        """
        try:
            size = os.stat(path).st_size
        except OSError:
            size = 0
        return cls(str(path), relpath if relpath is not None else path.name, size, path)

    def _blocks(self) -> Iterator[bytes]:
        label = f"input file {self.path}"
        try:
            fh = open(self.path, "rb")
        except FileNotFoundError:
            raise InputError(f"input file not found: {self.path}") from None
        except PermissionError:
            raise InputError(
                f"input file is not readable (permission denied): {self.path}"
            ) from None
        except IsADirectoryError:
            raise InputError(f"input is a folder, not a file: {self.path}") from None
        except OSError as exc:
            raise InputError(f"cannot read {label}: {exc.strerror}") from None
        with fh:
            while True:
                try:
                    block = fh.read(_BLOCK)
                except OSError as exc:
                    raise InputError(f"cannot read {label}: {exc.strerror}") from None
                if not block:
                    return
                yield block

    def parts(self) -> Iterator[str]:
        """The file's text, decoded block by block (see the module docstring).

        Returns
        -------
        Iterator[str]
            The parts, in order; reading them raises
            :class:`~authormask.exceptions.InputError` for a file that cannot be read or
            decoded, or is empty.
        """
        return _decoded_parts(self._blocks(), f"input file {self.path}")

    @property
    def rereadable(self) -> bool:
        """A regular file can be read again; a named pipe, a process substitution
        (``/dev/fd/N``) or a device cannot: it is read once, as standard input is (the state
        of the path now: looking takes no byte)."""
        try:
            return stat.S_ISREG(os.stat(self.path).st_mode)
        except OSError:  # reading it says what is wrong
            return True

    @property
    def identity(self) -> tuple[int, int] | None:
        return file_identity(self.path)


@dataclass(frozen=True)
class StdinSource(Source):
    """Standard input (read once: a release that needs two passes reads it into memory).

    Attributes
    ----------
    name
        The document's name, for the private report.
    relpath
        Its path inside the folder it was found in, for mirrored outputs.
    size
        Its size in bytes, for progress (0 if unknown).
    """

    @property
    def rereadable(self) -> bool:
        return False

    def parts(self) -> Iterator[str]:
        """Standard input's text, decoded block by block (see the module docstring).

        Returns
        -------
        Iterator[str]
            The parts, in order; reading them raises
            :class:`~authormask.exceptions.InputError` for input that cannot be decoded, or is
            empty.
        """
        stream = sys.stdin.buffer
        return _decoded_parts(iter(lambda: stream.read(_BLOCK), b""), "standard input")

    @property
    def identity(self) -> tuple[int, int] | None:
        return stdin_identity()


def digest_words(h: Any, part: str) -> None:
    """Feed one part of a text to the digest ``h``: its words after cleaning
    (:func:`~authormask.text.clean.clean_text`), each followed by one space. A part ends right
    after a whitespace character (:mod:`authormask.text.parts`), so its words are whole and the
    digest of the parts is the digest of the whole: two copies of a text that differ only in
    invisible characters, spacing or a final newline have one digest.

    Parameters
    ----------
    h
        A hashlib (or hmac) object, updated in place.
    part
        The next part of the text.
    """
    for word in clean_text(part).split():
        h.update(word.encode("utf-8", "surrogatepass") + b" ")


def words_digest(parts: Iterable[str]) -> bytes:
    """The SHA-256 of a text's cleaned words (:func:`digest_words` over its parts).

    Parameters
    ----------
    parts
        The text's parts, in order.

    Returns
    -------
    bytes
        The 32-byte digest.

    Examples
    --------
    >>> words_digest(["Hello,  world ", "again"]) == words_digest(["Hello, world again"])
    True
    """
    h = hashlib.sha256()
    for part in parts:
        digest_words(h, part)
    return h.digest()


def stdin_identity() -> tuple[int, int] | None:
    """The file standard input is redirected from (``< FILE``), or None (a pipe, a terminal)."""
    try:
        st = os.fstat(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def decode_bytes(raw: bytes, label: str) -> str:
    """Decode a whole byte string by the rules above (one string)."""
    return "".join(_decoded_parts(iter([raw]), label))
