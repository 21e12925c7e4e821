"""Writing files the way a Unix tool should: atomically, never over something that is not a
regular file, with the permissions the user's umask gives."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from authormask.exceptions import InputError

__all__ = ["atomic_path", "check_target", "umask_mode", "write_atomic"]


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
            f"output path is {kind}; refusing to replace it (even with --force): {path}"
        )
    if not force:
        raise InputError(f"output path already exists (use --force to overwrite): {path}")


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
    mode = umask_mode()
    temps: list[tuple[str, Path]] = []
    try:
        for path, text in contents.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            temps.append((tmp, path))
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600 if path in private else mode)
        for tmp, path in temps:
            check_target(path, force=True)  # still not replaced by a link or FIFO meanwhile
            os.replace(tmp, path)
    except (OSError, InputError) as exc:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
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
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600 if private else umask_mode())
        check_target(path, force=True)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
