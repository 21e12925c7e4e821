"""Saying that a file is prepared once (issue 50, a newcomer's report: a first release spent
eight seconds in silence). The vocabulary, emp-write's writer and noun lexicon and the entity
recogniser are each prepared into the cache folder the first time they are needed, in seconds,
and read in a fraction of a second after; where preparing one takes longer than
:data:`NOTE_AFTER`, the library says so on the ``authormask.preparing`` logger, at ``INFO``, and
a front end shows it (the command line prints it, unless ``--quiet``). A preparation that fails
at once (a malformed vector file) says nothing: its error stays the only line."""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from collections.abc import Iterator

__all__ = ["LOGGER_NAME", "NOTE_AFTER", "preparing"]

#: the logger the notes go to
LOGGER_NAME = "authormask.preparing"
#: seconds a preparation runs before it is said
NOTE_AFTER = 0.5

_log = logging.getLogger(LOGGER_NAME)


@contextlib.contextmanager
def preparing(what: str, folder: str | os.PathLike[str] | None) -> Iterator[None]:
    """Within the block, ``what`` is prepared once into ``folder``: said if the block runs
    longer than :data:`NOTE_AFTER` seconds (nothing is said where there is no folder: it is
    built in memory, for this process only).

    Parameters
    ----------
    what
        What is prepared (``"the noun lexicon"``).
    folder
        The cache folder it is prepared into, or None.

    Yields
    ------
    None
        Nothing; the block prepares.
    """
    if folder is None:
        yield
        return
    note = threading.Timer(
        NOTE_AFTER,
        _log.info,
        args=("preparing %s once, into %s (seconds; later releases read it)", what, folder),
    )
    note.daemon = True
    note.start()
    try:
        yield
    finally:
        note.cancel()
