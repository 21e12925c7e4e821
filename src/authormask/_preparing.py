"""Saying that a file is prepared once (issue 50, a newcomer's report: a first release spent
eight seconds in silence). The vocabulary, emp-write's writer and noun lexicon and the entity
recogniser are each prepared into the cache folder the first time they are needed, in seconds,
and read in a fraction of a second after; the library says so on the ``authormask.preparing``
logger, at ``INFO``, and a front end shows it (the command line prints it, unless
``--quiet``)."""

from __future__ import annotations

import logging
import os

__all__ = ["LOGGER_NAME", "preparing"]

#: the logger the notes go to
LOGGER_NAME = "authormask.preparing"

_log = logging.getLogger(LOGGER_NAME)


def preparing(what: str, folder: str | os.PathLike[str]) -> None:
    """Say that ``what`` is being prepared once into ``folder``.

    Parameters
    ----------
    what
        What is prepared (``"the noun lexicon"``).
    folder
        The cache folder it is prepared into.
    """
    _log.info("preparing %s once, into %s (seconds; later releases read it)", what, folder)
