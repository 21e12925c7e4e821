"""Prepared vocabularies on disk: built once, then memory-mapped and checked on every load.

Loading a vocabulary from its source is slow (GloVe: read 400k entries, run the vocabulary
filter, convert, hash; then build the search index), and it was paid on every run. A prepared
entry keeps the result: the filtered words, the float32 vectors and their float64 squared norms
in one ``.vocab`` file, and the search kernel's panel layout of those vectors in one ``.index``
file beside it. A later load maps them read-only (``mmap``), so processes on one machine (Dask
workers, ``serve``, repeated CLI runs) share their pages.

**Key.** An entry is named by what made it: the source (a packaged set's name and its files'
sizes and modification times; a file's resolved path, size, modification time and format), the
vocabulary size K and the versioned vocabulary filter (:mod:`authormask.embeddings.vocabulary`),
and this format's version. Its header records the identity hashes of the result
(:class:`~authormask.embeddings.EmbeddingsIdentity`); an ``.index`` file names the vectors hash it
was built from and is used only with exactly those vectors.

**Checked, never misread.** A file is: 8 magic bytes, the header's length (8 bytes, little
endian), the SHA-256 of the header (32 bytes), the JSON header, then the arrays, each at a
64-byte aligned offset. The header lists every array (offset, dtype, shape and the SHA-256 of its
bytes) and the file's total length. A load checks all of it, hashing every array it hands out; a
file that is truncated, has a flipped byte, another layout or another key is reported (one log
line) and rebuilt, never used. The hashes are *computed* on every load and returned with the
arrays (:class:`PreparedEntry`), so a caller names what it uses by those, never by what a header
says: nothing here is signed, and whoever can write the cache folder can write a file whose
header agrees with itself (:mod:`authormask.embeddings.cache` keeps the folder private).

**Hashed while read.** A reader that makes Python objects of an entry (the vocabulary's words
and their rows, the recogniser's tokenizer and network, the writer's tables: each as long as
hashing its file) makes them in the calling thread while a second thread hashes the arrays
(``meanwhile`` of :func:`read_entry`; hashing releases the interpreter's lock): nothing made is
handed out unless every hash is the header's. The entity recogniser
(:mod:`authormask.text.ner.prepared`) and emp-write's writer (:mod:`authormask.models.writer`)
keep their prepared files in this format too (issue 50: a zip of arrays read by copying took a
one-sentence release 0.03-0.04 s).

**Never a special file.** A FIFO, device or socket where an entry should be is refused with one
line (:class:`~authormask.exceptions.EmbeddingsError`) before it is opened, and the file opened
is checked to be the regular file that was looked at, so a load never blocks on it.

**Written atomically.** Each file is written to a temporary file in the cache folder, flushed to
disk (``fsync``) and renamed into place (:mod:`authormask._io`), so two first runs at once each
write a complete file and the last rename wins (both are the same bytes); a reader sees either no
file or a whole one. A cache folder that cannot be written (read-only, full, a path that is a
symbolic link) costs one warning line per process; the vocabulary is then built in memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import stat
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask._io import commit, temporary_beside
from authormask.embeddings.cache import special_file_kind
from authormask.exceptions import EmbeddingsError, InputError

__all__ = ["FORMAT_VERSION", "PreparedEntry", "entry_name", "read_entry", "write_entry"]

logger = logging.getLogger(__name__)

#: the layout version; a change of layout or of what is stored gets a new one
FORMAT_VERSION = 2
_MAGIC = b"AMPREP\x00\x02"
_ALIGN = 64
_PREFIX = len(_MAGIC) + 8 + 32

#: the interpreter's switch interval (seconds) while a reader and the hashing thread run
_SWITCH_INTERVAL = 1e-4

_WARNED: set[tuple[str, str]] = set()
_WARN_LOCK = threading.Lock()


def entry_name(label: str, recipe: Mapping[str, Any]) -> str:
    """The file stem of the entry made by ``recipe`` (a JSON-able description of its source,
    K, filter...): ``label`` for people, then a hash of the recipe.

    Parameters
    ----------
    label
        A name for people (made safe for a file name, at most 80 characters).
    recipe
        What the entry is made from, as JSON.

    Returns
    -------
    str
        The file stem.
    """
    blob = json.dumps({"format": FORMAT_VERSION, **recipe}, sort_keys=True).encode("utf-8")
    safe = "".join(c if c.isalnum() or c in "-." else "-" for c in label)[:80]
    return f"{safe}.{hashlib.sha256(blob).hexdigest()[:24]}"


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def _bytes_of(array: NDArray[Any]) -> memoryview:
    """The bytes of a C-contiguous array without Python objects, whatever its type and shape
    (``array.data.cast("B")`` refuses a date type and an empty array of two dimensions)."""
    return array.reshape(-1).view(np.uint8).data


def write_entry(
    path: Path,
    header: Mapping[str, Any],
    arrays: Mapping[str, NDArray[Any]],
    *,
    what: str = "prepared vocabulary",
) -> bool:
    """Write ``arrays`` and ``header`` to ``path`` atomically; False (one warning per cache
    folder and process) when the folder cannot be written.

    Parameters
    ----------
    path
        The entry's file.
    header
        Its header fields.
    arrays
        Its arrays, by name.
    what
        What the file is, for the log lines (the recogniser and the writer keep theirs in this
        format too).

    Returns
    -------
    bool
        True if written.

    Raises
    ------
    TypeError
        If an array holds Python objects.
    """
    layout: dict[str, dict[str, Any]] = {}
    pieces: list[bytes | memoryview] = []
    end = 0
    for name, array in arrays.items():
        a = np.ascontiguousarray(array)
        if a.dtype.hasobject:
            raise TypeError(f"array {name!r} holds Python objects")
        start = _aligned(end)
        data = _bytes_of(a)
        layout[name] = {
            "offset": start,
            "dtype": a.dtype.str,
            "shape": list(a.shape),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        pieces += [b"\x00" * (start - end), data]
        end = start + a.nbytes
    full = {**header, "format": FORMAT_VERSION, "arrays": layout, "payload_bytes": end}
    head = json.dumps(full, sort_keys=True).encode("utf-8")
    head += b" " * (_aligned(_PREFIX + len(head)) - _PREFIX - len(head))  # payload aligned
    try:
        fd, tmp = temporary_beside(path)
    except OSError as exc:
        _warn_once(path.parent, exc, what)
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC)
            fh.write(len(head).to_bytes(8, "little"))
            fh.write(hashlib.sha256(head).digest())
            fh.write(head)
            for piece in pieces:
                fh.write(piece)
            fh.flush()
            os.fsync(fh.fileno())
        commit(tmp, path, synced=True)
    except (OSError, InputError) as exc:
        tmp.unlink(missing_ok=True)
        _warn_once(path.parent, exc, what)
        return False
    logger.info("%s written to %s", what, path)
    return True


def _warn_once(folder: Path, exc: Exception, what: str) -> None:
    with _WARN_LOCK:
        if (str(folder), what) in _WARNED:
            return
        _WARNED.add((str(folder), what))
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    logger.warning(
        "warning: cannot write the %s cache in %s (%s); building in memory",
        what.replace(" ", "-"),
        folder,
        reason,
    )


@dataclass(frozen=True)
class PreparedEntry:
    """A checked entry: its ``header``, its memory-mapped ``arrays``, the SHA-256 (hex) of
    each array's bytes, computed on this load (``sha256``), and what the reader's ``meanwhile``
    made of them (:func:`read_entry`; None without one).

    Attributes
    ----------
    header
        The entry's header.
    arrays
        Its memory-mapped arrays, by name.
    sha256
        The SHA-256 (hex) of each array's bytes, computed on this load.
    made
        What ``meanwhile`` returned, or None.
    """

    header: dict[str, Any]
    arrays: dict[str, NDArray[Any]]
    sha256: dict[str, str]
    made: Any = None


def _open_regular(path: Path, what: str = "prepared vocabulary") -> Any:
    """``path`` opened for reading if it is a regular file (links followed); None if there is
    nothing (or nothing we may read) there; :class:`EmbeddingsError` for a FIFO, device or
    socket, refused before it is opened (and checked again on the descriptor, without
    blocking)."""
    try:
        st = os.stat(path)
    except OSError as exc:  # no entry (or no folder, or none we may read): build it
        logger.debug("no %s at %s (%s)", what, path, exc)
        return None
    kind = special_file_kind(st.st_mode)
    if kind is not None:
        raise EmbeddingsError(
            f"{what} {path} is {kind}, not a file: refusing to read it (remove it)"
        )
    if not stat.S_ISREG(st.st_mode):
        logger.debug("no %s at %s (not a file)", what, path)
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        logger.debug("no %s at %s (%s)", what, path, exc)
        return None
    now = os.fstat(fd)
    if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        os.close(fd)
        raise EmbeddingsError(f"{what} {path} changed while it was opened; run again")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_entry(
    path: Path,
    expect: Mapping[str, Any],
    *,
    writable: frozenset[str] = frozenset(),
    meanwhile: Callable[[dict[str, Any], dict[str, NDArray[Any]]], Any] | None = None,
    what: str = "prepared vocabulary",
) -> PreparedEntry | None:
    """The header, memory-mapped arrays and computed hashes of the entry at ``path``, or None
    when there is none, or it is damaged (one log line) or was made for something else (a header
    value differs from ``expect``). Arrays are read-only but those named in ``writable``
    (private copy-on-write pages: nothing written reaches the file). A FIFO, device or socket at
    ``path`` raises :class:`EmbeddingsError` (one line) without being opened.

    With ``meanwhile``, the arrays are hashed in a second thread (hashing releases the
    interpreter's lock) while this one calls ``meanwhile(header, arrays)`` on them, read-only
    and not yet checked (issue 50: what a reader makes of a file, Python objects, costs about
    as long as hashing it). Nothing it makes is handed out unless every hash is the header's:
    where one is not, what it made is dropped (an error it raised too) and the entry is
    damaged; where all are, an error it raised is raised here, else what it returned is the
    entry's ``made``.

    Parameters
    ----------
    path
        The entry's file.
    expect
        The header values it must have.
    writable
        The names of the arrays handed out writable (copy-on-write).
    meanwhile
        What to make of the header and arrays while they are hashed (it must not write them).
    what
        What the file is, for the log lines.

    Returns
    -------
    PreparedEntry | None
        The entry, or None.
    """
    fh = _open_regular(path, what)
    if fh is None:
        return None
    try:
        with fh:
            size = os.fstat(fh.fileno()).st_size
            if size < _PREFIX:
                return _damaged(path, "shorter than its header", what)
            # private (copy-on-write) map: pages are shared with the page cache and every other
            # process until written, and a write could never reach the file; the arrays are
            # handed out read-only except where a compiled kernel's signature needs otherwise
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY)
    except (OSError, ValueError) as exc:
        return _damaged(path, str(exc), what)
    if mm[: len(_MAGIC)] != _MAGIC:
        if mm[: len(_MAGIC) - 1] == _MAGIC[:-1]:
            logger.info("%s %s has another format version: rebuilding", what, path)
            return None
        return _damaged(path, f"not a {what} file of this version", what)
    head_len = int.from_bytes(mm[len(_MAGIC) : len(_MAGIC) + 8], "little")
    if head_len <= 0 or _PREFIX + head_len > size:
        return _damaged(path, "truncated header", what)
    head = mm[_PREFIX : _PREFIX + head_len]
    if hashlib.sha256(head).digest() != mm[len(_MAGIC) + 8 : _PREFIX]:
        return _damaged(path, "header checksum mismatch", what)
    try:
        header = json.loads(head)
        start = _PREFIX + head_len
        payload = int(header["payload_bytes"])
        if size != start + payload:
            return _damaged(path, "truncated or extended payload", what)
        layout = dict(header["arrays"])
    except (ValueError, KeyError, TypeError):
        return _damaged(path, "unreadable header", what)
    if header.get("format") != FORMAT_VERSION:
        return None
    for key, value in expect.items():
        if header.get(key) != value:
            logger.info("%s %s was made for another %s: rebuilding", what, path, key)
            return None
    arrays: dict[str, NDArray[Any]] = {}
    named: dict[str, Any] = {}
    try:
        for name, spec in layout.items():
            dtype = np.dtype(spec["dtype"])
            shape = tuple(int(s) for s in spec["shape"])
            count = int(np.prod(shape, dtype=np.int64))
            offset = int(spec["offset"])
            if dtype.hasobject or offset < 0 or offset + count * dtype.itemsize > payload:
                return _damaged(path, f"bad array layout ({name})", what)
            array = np.frombuffer(mm, dtype=dtype, count=count, offset=start + offset).reshape(
                shape
            )
            array.flags.writeable = False
            arrays[name] = array
            named[name] = spec.get("sha256")
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        return _damaged(path, f"bad array layout ({exc})", what)
    digests, made, failed = _hashed(arrays, None if meanwhile is None else (header, meanwhile))
    for name in arrays:
        digest = digests.get(name)
        if digest is None or not isinstance(named[name], str) or digest != named[name]:
            return _damaged(path, f"checksum mismatch in {name}", what)
    if failed is not None:
        raise failed
    for name in writable & arrays.keys():
        arrays[name].flags.writeable = True
    return PreparedEntry(header=header, arrays=arrays, sha256=digests, made=made)


def _hashed(
    arrays: dict[str, NDArray[Any]],
    meanwhile: tuple[dict[str, Any], Callable[[dict[str, Any], dict[str, NDArray[Any]]], Any]]
    | None,
) -> tuple[dict[str, str], Any, Exception | None]:
    """The SHA-256 of each array, and what ``meanwhile`` (a header and a function of it and the
    arrays) made of them meanwhile, or the error it raised; without it, hashed here."""
    digests: dict[str, str] = {}

    def hash_all() -> None:
        for name, array in arrays.items():
            try:
                digests[name] = hashlib.sha256(_bytes_of(array)).hexdigest()
            except Exception:  # an array without bytes to hash: no digest, so damaged
                return

    if meanwhile is None:
        hash_all()
        return digests, None, None
    with _short_switches():
        hashing = threading.Thread(target=hash_all, name="authormask-prepared-hash", daemon=True)
        hashing.start()
        made, failed = None, None
        try:
            made = meanwhile[1](meanwhile[0], arrays)
        except Exception as exc:  # held until the hashes say whether the file is whole
            failed = exc
        hashing.join()
    return digests, made, failed


#: readers hashing now, and the switch interval before the first of them
_SWITCHING: list[Any] = [0, None]
_SWITCHING_LOCK = threading.Lock()


@contextmanager
def _short_switches() -> Iterator[None]:
    """The interpreter's switch interval shortened (:data:`_SWITCH_INTERVAL`) while a reader and
    its hashing thread run: between two arrays the hashing thread waits for the interpreter's
    lock, which the reader holds until the interval (5 ms) has passed (a file of 26 arrays was
    hashed in 15 ms instead of 8). Readers of several threads at once (``serve``) share it: the
    first shortens it, the last gives back what the first found."""
    with _SWITCHING_LOCK:
        if _SWITCHING[0] == 0:
            _SWITCHING[1] = sys.getswitchinterval()
            sys.setswitchinterval(min(_SWITCHING[1], _SWITCH_INTERVAL))
        _SWITCHING[0] += 1
    try:
        yield
    finally:
        with _SWITCHING_LOCK:
            _SWITCHING[0] -= 1
            if _SWITCHING[0] == 0:
                sys.setswitchinterval(_SWITCHING[1])


def _damaged(path: Path, why: str, what: str) -> PreparedEntry | None:
    logger.warning("warning: ignoring damaged %s %s (%s); rebuilding", what, path, why)
    return None
