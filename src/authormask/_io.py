"""Writing files the way a Unix tool should: atomically, never over something that is not a
regular file, with the permissions the user's umask gives; and writing to standard output so
that a failure is never silent (:func:`checked_stdout`)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from authormask.exceptions import InputError

if TYPE_CHECKING:
    _ConcretePath = Path
else:
    _ConcretePath = type(Path())  # PosixPath or WindowsPath: Path itself cannot be subclassed

__all__ = [
    "AtomicTextFile",
    "FolderPath",
    "InputFile",
    "atomic_path",
    "check_file_output",
    "check_not_inputs",
    "check_outside_folders",
    "check_stdout_open",
    "check_target",
    "checked_stdout",
    "commit",
    "file_identity",
    "flush_or_discard_stdout",
    "lock_folder",
    "same_times",
    "temporary_beside",
    "umask_mode",
    "write_atomic",
    "write_stdout_bytes",
]


class FolderPath(_ConcretePath):
    """An output path the user wrote ending in a separator (``out/``): it names a folder, so
    it is never written as a file (:func:`check_file_output`). Paths made from it (``out /
    "1.txt"``) are of this class too, but only the path given says so (:attr:`written`)."""

    written = False

    @classmethod
    def given(cls, path: Path | str) -> FolderPath:
        out = cls(path)
        out.written = True
        return out


def check_file_output(path: Path | None, *, what: str, instead: str | None = None) -> None:
    """Refuse to write ``what`` (one file) at a path the user wrote as a folder (``out/``):
    a file named ``out`` is not what ``out/`` asks for (``cp`` and ``mv`` refuse it too).
    ``instead``: what to do to write into a folder (default: create it first)."""
    if path is None or not getattr(path, "written", False):
        return
    if os.path.lexists(path) and not os.path.isdir(path):
        raise InputError(
            f"output {path}/ ends in '/', which names a folder, but {path} is a file; give "
            "the file's name without the '/'"
        )
    instead = instead or f"to write into the folder, create it first (mkdir {path})"
    raise InputError(
        f"output {path}/ ends in '/', which names a folder, and {what} is one file: "
        f"{instead}; or give a file name"
    )


def umask_mode(base: int = 0o666) -> int:
    """``base`` masked by the process umask (what ``open()`` would give a new file)."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def check_target(path: Path, *, force: bool) -> None:
    """Refuse a target that exists (unless ``force``) or that is not a regular file (always:
    a symlink, a folder, a FIFO or a device is never replaced, even with ``force``)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"cannot use output path {path}: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"output path is a folder: {path}")
    if not stat.S_ISREG(st.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise InputError(
            f"output path is {kind}; refusing to replace it (even with `force`): {path}"
        )
    if not force:
        raise InputError(f"output path already exists (use `force` to overwrite): {path}")


def file_identity(path: Path | str) -> tuple[int, int] | None:
    """``(device, inode)`` of the file at ``path`` (links followed), or None if there is none:
    two paths name the same file, through a symbolic or a hard link, when these are equal."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


@dataclass(frozen=True)
class InputFile:
    """A file a run reads: how to name it in an error, its identity (:func:`file_identity`)
    and its path (None for standard input redirected from a file)."""

    label: str
    identity: tuple[int, int]
    path: Path | None = None


def check_not_inputs(
    inputs: Sequence[InputFile],
    *,
    files: Iterable[Path | None],
    folders: Iterable[Path] = (),
    report: Path | None = None,
) -> None:
    """Refuse, even with ``--force``, to write over an input: an output file that is an input
    file (the same path, or a symbolic or hard link to it), or an output folder that holds an
    input (at any depth, or through a link to a folder). Nothing the user owns may be replaced
    by its own release. ``report``: the private report's path among ``files``, named so in the
    error."""
    if not inputs:
        return
    by_identity = {f.identity: f for f in inputs}
    for path in files:
        if path is None:
            continue
        found = by_identity.get(file_identity(path))  # type: ignore[arg-type]
        if found is None:
            continue
        if found.path is None:
            what = "the file standard input is read from"
        elif _same_name(path, found.path):
            what = f"the input {found.label} (the same file)"
        else:
            what = f"the input {found.label} (the same file, through a link)"
        role = "the private report" if report is not None and path == report else "output"
        raise InputError(
            f"{role} {path} is {what}; refusing to write over an input, even with `force`"
        )
    wanted = {ident: folder for folder in folders if (ident := file_identity(folder))}
    if not wanted:
        return
    seen: dict[str, tuple[int, int] | None] = {}
    for f in inputs:
        if f.path is None:
            continue
        for parent in Path(os.path.realpath(f.path)).parents:
            key = str(parent)
            if key not in seen:
                seen[key] = file_identity(parent)
            folder = wanted.get(seen[key])  # type: ignore[arg-type]
            if folder is not None:
                raise InputError(
                    f"output folder {folder} holds the input {f.label}; refusing to write the "
                    "release among its inputs, even with `force` (choose another folder)"
                )


def check_outside_folders(
    folders: Sequence[Path], paths: Iterable[tuple[str, Path | None]]
) -> None:
    """Refuse, even with ``--force``, to write any of ``paths`` (``(what, path)``: an output, a
    statement, a private report, a partial file or folder) inside one of ``folders``, the
    folders a release reads its inputs from (at any depth, or through a link): the next release
    of that folder would read it as a document and publish it (a private report holds the
    seed)."""
    wanted = {ident: folder for folder in folders if (ident := file_identity(folder))}
    if not wanted:
        return
    for what, path in paths:
        if path is None:
            continue
        real = Path(os.path.realpath(path))
        for parent in (real, *real.parents):
            folder = wanted.get(file_identity(parent))  # type: ignore[arg-type]
            if folder is not None:
                raise InputError(
                    f"{what} {path} would be written inside the input folder {folder}, where "
                    "a later release of that folder would read it as a document; refusing, "
                    "even with `force` (write it outside the input folders)"
                )


def check_report_apart(
    report: Path | None, *, published: Iterable[Path | None], folders: Iterable[Path | None]
) -> None:
    """Refuse, even with ``--force``, a private report that is one of the ``published`` files
    (the output, the statement: one would overwrite the other, and until then the public name
    holds the seed) or lies inside a ``published`` folder (an output folder or a Parquet
    dataset folder, at any depth or through a link): whatever is there is handed out."""
    if report is None:
        return
    real = Path(os.path.realpath(report))
    for path in published:
        if path is not None and Path(os.path.realpath(path)) == real:
            raise InputError(
                f"the private report {report} is the path of a published file ({path}); "
                "refusing, even with `force` (give --report a path of its own)"
            )
    for folder in folders:
        if folder is None:
            continue
        top = Path(os.path.realpath(folder))
        if real == top or top in real.parents:
            raise InputError(
                f"the private report {report} would be written inside the output folder "
                f"{folder}, which is published; refusing, even with `force` (write it outside)"
            )


def _same_name(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)


def temporary_beside(path: Path) -> tuple[int, Path]:
    """A new temporary file ``.<name>.XXXXXXXX.tmp`` in ``path``'s folder (created if needed):
    ``(file descriptor, path)``. Stale ones are recognised by that name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    return fd, Path(tmp)


def commit(tmp: Path, path: Path, *, private: bool = False, synced: bool = False) -> None:
    """Move the finished temporary file ``tmp`` over ``path``: fsync (unless ``synced``), the
    umask's permissions (0600 if ``private``), a last check that ``path`` is still not a link or
    special file, then an atomic rename."""
    if not synced:
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
    os.chmod(tmp, 0o600 if private else umask_mode())
    check_target(path, force=True)
    os.replace(tmp, path)


class AtomicTextFile:
    """A text file written piece by piece that appears at ``path`` only when complete
    (:meth:`commit`), or never (:meth:`abort`)."""

    def __init__(self, path: Path, *, private: bool = False) -> None:
        fd, self.tmp = temporary_beside(path)
        self.path, self.private = path, private
        self.fh = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, text: str) -> None:
        self.fh.write(text)

    def commit(self) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())
        self.fh.close()
        commit(self.tmp, self.path, private=self.private, synced=True)

    def abort(self) -> None:
        self.fh.close()
        self.tmp.unlink(missing_ok=True)


def write_atomic(
    contents: dict[Path, str], *, force: bool, private: frozenset[Path] = frozenset()
) -> None:
    """Write every file atomically; check every target first (see :func:`check_target`).

    Each file is written to a temporary file in its destination folder, flushed to disk, given
    the umask's permissions (``private`` paths: owner-only, 0600) and renamed over the target,
    so a failure leaves no partial output.
    """
    for path in contents:
        check_target(path, force=force)
    files: list[AtomicTextFile] = []
    try:
        for path, text in contents.items():
            f = AtomicTextFile(path, private=path in private)
            files.append(f)
            f.write(text)
            f.fh.flush()
            os.fsync(f.fh.fileno())
            f.fh.close()
        for f in files:
            commit(f.tmp, f.path, private=f.private, synced=True)
    except (OSError, InputError) as exc:
        for f in files:
            if not f.fh.closed:
                f.fh.close()
            f.tmp.unlink(missing_ok=True)
        if isinstance(exc, InputError):
            raise
        raise InputError(f"cannot write output: {exc}") from None


@contextmanager
def atomic_path(path: Path, *, force: bool = True, private: bool = False) -> Iterator[Path]:
    """A temporary path beside ``path`` to write in any way (``np.save``, ``torch.save``, a
    PNG...); on success it is fsynced, given the umask's permissions (or 0600 if ``private``)
    and renamed over ``path``; on failure it is removed. ``path`` is checked as by
    :func:`check_target` before and just before the rename."""
    path = Path(path)
    check_target(path, force=force)
    fd, tmp = temporary_beside(path)
    os.close(fd)
    try:
        yield tmp
        commit(tmp, path, private=private)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# --- standard output ---------------------------------------------------------------------------


def flush_or_discard_stdout() -> None:
    """Flush standard output; where it cannot be written (a full disk, a closed pipe), point it
    at the null device (:func:`_discard_stdout`) so that nothing fails again as the process
    ends."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        _discard_stdout()


def _discard_stdout() -> None:
    """Point standard output at the null device after it failed (a broken pipe, a full disk, a
    file-size limit), so that the text still buffered for it is not written, and failed, once
    more as the process exits (``Exception ignored ... OSError`` after the error line)."""
    try:
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)
    except (AttributeError, OSError, ValueError):  # no file descriptor (a test's capture)
        pass


def _stdout_closed() -> InputError:
    """The error of a release whose standard output's reader has gone (a pipe to ``head``)."""
    _discard_stdout()
    return InputError(
        "standard output was closed before the release was complete (its reader stopped, "
        "as head -c 10 does): what it received is part of the release only"
    )


def _stdout() -> IO[str]:
    check_stdout_open()
    return sys.stdout


def check_stdout_open() -> None:
    """Refuse a release to standard output when there is none (``>&-``: Python then has no
    ``sys.stdout``), before anything is read or written."""
    if sys.stdout is None:
        raise InputError(
            "standard output is closed: there is nowhere to write the release; give -o FILE"
        )


class _WholeWrites(io.TextIOBase):
    """Standard output whose every write is written whole or fails (:func:`checked_stdout`).

    Over an unbuffered file (PYTHONUNBUFFERED, ``python -u``) Python's text layer ignores a
    partial write of the file below it: past a file-size limit, the rest of the text was lost
    without an error. Here a partial write is followed by another, which fails (``File too
    large``) where the first could not finish. A reader that has gone (a broken pipe) is one
    error naming standard output."""

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self._stream = stream
        buffer = getattr(stream, "buffer", None)
        self._raw = buffer if isinstance(buffer, io.RawIOBase) else None

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self._stream, "errors", None)

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._stream.fileno()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def write(self, text: str) -> int:
        try:
            if self._raw is None:
                return self._stream.write(text)
            _write_all(self._raw, text.encode(self.encoding, self.errors or "strict"))
            return len(text)
        except BrokenPipeError:
            raise _stdout_closed() from None
        except OSError:
            _discard_stdout()
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise _stdout_closed() from None
        except OSError:
            _discard_stdout()
            raise

    def close(self) -> None:  # the stream below is not this one's to flush or close
        pass


def _write_all(raw: io.RawIOBase, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = raw.write(view)
        if n is None:  # a non-blocking standard output that would block
            raise OSError(errno.EAGAIN, "standard output would block")
        view = view[n:]


@contextmanager
def checked_stdout() -> Iterator[None]:
    """Within the block, ``sys.stdout`` writes every text whole or raises (:class:`_WholeWrites`):
    a closed standard output (``>&-``), one past a file-size limit or on a full disk, and one
    whose reader has gone are each one error, never a release that exits 0 with part of its
    text. What was written to standard output before is flushed first."""
    stream = _stdout()
    try:
        stream.flush()
    except BrokenPipeError:
        raise _stdout_closed() from None
    sys.stdout = _WholeWrites(stream)
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = stream


def write_stdout_bytes(payload: bytes) -> None:
    """``payload`` (UTF-8) on standard output, whole (:func:`checked_stdout`)."""
    stream = _stdout()
    try:
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # a text-only stream (a test's capture)
            stream.write(payload.decode("utf-8"))
            stream.flush()
        elif isinstance(buffer, io.RawIOBase):
            _write_all(buffer, payload)
        else:
            buffer.write(payload)
            buffer.flush()
    except BrokenPipeError:
        raise _stdout_closed() from None
    except OSError:
        _discard_stdout()
        raise


def same_times(paths: Iterable[Path]) -> None:
    """Give every file of ``paths`` that exists one modification and access time (now).

    The files of an output folder (a document each, or a Parquet part each) are written as
    their work ends, so their times would show how long each took, and a release takes time in
    proportion to its text: the times of the published files would tell the texts' lengths.

    Parameters
    ----------
    paths
        The files (missing ones are passed over).
    """
    now = time.time()
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            os.utime(path, (now, now))


@contextlib.contextmanager
def lock_folder(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` (POSIX ``flock``; none elsewhere), so two processes
    that need the same cached model (a fluency judge, the sentence bank) build it once."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle = (folder / ".lock").open("a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
