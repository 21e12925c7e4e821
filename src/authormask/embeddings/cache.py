"""Where authormask keeps what it builds once: the user's cache folder.

Prepared vocabularies (:mod:`authormask.embeddings.prepared`) live there, one ``.vocab`` file
and its ``.index`` files per embeddings, vocabulary size and filter, with a ``.sources`` file
where a large source was hashed again and found unchanged (its status then, so it is not hashed
on every load: :meth:`authormask.embeddings.registry._Sources.mismatch`); and the other files
prepared once: the writer's tables, the noun lexicon, the recogniser's arrays.

**Private.** The folder is created owner-only (0700). An existing folder that another user can
write (owned by someone else, or group- or world-writable, as ``/tmp`` is) is refused with one
line: whoever can write it could plant an entry. A folder that cannot be created (read-only, a
file in the way) is left to the writer, which warns once and builds in memory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from authormask.exceptions import EmbeddingsError

__all__ = ["CACHE_ENV", "check_cache_dir", "default_cache_dir", "special_file_kind"]

#: environment variable naming the cache folder (a container image, CI or a cluster sets it once)
CACHE_ENV = "AUTHORMASK_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$AUTHORMASK_CACHE_DIR``, else ``$XDG_CACHE_HOME/authormask``, else
    ``~/.cache/authormask`` (the platform's user cache folder on Linux).

    Returns
    -------
    Path
        The cache folder (not created).
    """
    explicit = os.environ.get(CACHE_ENV, "").strip()
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "authormask"


def special_file_kind(mode: int) -> str | None:
    """``"a FIFO"``, ``"a device"`` or ``"a socket"`` for such a file mode, else None (opening
    a FIFO for reading blocks until someone writes; a device may do anything).

    Parameters
    ----------
    mode
        A file's ``st_mode``.

    Returns
    -------
    str | None
        The kind of special file, or None.
    """
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def check_cache_dir(folder: Path) -> None:
    """Create ``folder`` owner-only (0700) if it is missing; refuse it (:class:`EmbeddingsError`,
    one line) if another user can write it. A folder that cannot be created is left alone (the
    writer warns once and the vocabulary is built in memory).

    Parameters
    ----------
    folder
        The cache folder.

    Raises
    ------
    EmbeddingsError
        If another user can write the folder.
    """
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError:
        return
    try:
        st = os.stat(folder)
    except OSError:
        return
    if not stat.S_ISDIR(st.st_mode):
        return
    others = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    uid = os.geteuid() if hasattr(os, "geteuid") else st.st_uid
    foreign = st.st_uid not in (uid, 0)  # root can write every folder anyway
    if foreign or others:
        who = (
            f"owned by user id {st.st_uid}, not you"
            if foreign
            else f"writable by {'others' if st.st_mode & stat.S_IWOTH else 'its group'}, "
            f"mode {stat.S_IMODE(st.st_mode):04o}"
        )
        raise EmbeddingsError(
            f"cache folder {folder} is {who}: another user could plant a prepared vocabulary "
            f"there; make it private (chmod 700) or choose another `cache_dir`"
        )
