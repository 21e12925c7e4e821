"""Recognising the files authormask writes, so that none of them is ever read back as an input.

A release leaves files that must never be released as a document: the private run report (it
holds the seed, which undoes the privacy), the local release history, the public statement, and
the outputs themselves. A folder given as an input is searched for them, and every one found is
skipped (the command names it on stderr). A file is recognised

* by its **name**: ``*.DO-NOT-PUBLISH.report.txt`` (a private report), ``PRIVACY-STATEMENT.json``
  or ``*.privacy.json`` (a statement);
* by its **content**: the first line of every private file authormask writes is a marker
  (:data:`~authormask.core.journal.PRIVATE_BANNER` for run reports, :data:`HISTORY_BANNER`
  for the release history), a run report's JSON names its ``"authormask.run-report/..."``
  schema, every statement is a JSON object with its ``"schema":
  "authormask.privacy-statement/..."``, and every JSONL output record starts with its ``id``
  and ``mechanism``; so a report written under another name (``--report notes.txt``) is still
  recognised. The banners and schemas are looked for *anywhere* in the text
  (:class:`OwnFileScan`, as a document is read), not only at its start, so a report with a blank
  line, spaces or an invisible character before its banner, a statement whose keys were sorted
  or re-indented (``jq -S .``), or either pasted into a longer text is still refused;
* as an **output**: a file or folder ``X`` with a statement ``X.privacy.json`` beside it, or a
  folder that holds a ``PRIVACY-STATEMENT.json`` (an output folder, skipped whole).
"""

from __future__ import annotations

import re
from pathlib import Path

from authormask.text.clean import clean_text

__all__ = [
    "FOLDER_STATEMENT",
    "HISTORY_BANNER",
    "PRIVATE_MARKER",
    "REPORT_SUFFIX",
    "STATEMENT_SUFFIX",
    "OwnFileScan",
    "authormask_kind",
    "is_statement",
]

#: the public statement's name inside an output folder
FOLDER_STATEMENT = "PRIVACY-STATEMENT.json"
#: the suffix of a statement beside a file output
STATEMENT_SUFFIX = ".privacy.json"
#: the suffix of a private run report's default name
REPORT_SUFFIX = ".DO-NOT-PUBLISH.report.txt"
#: how the first line of every private file authormask writes begins
PRIVATE_MARKER = "# PRIVATE "
#: the first line of the local release history (:mod:`authormask.core.history`)
HISTORY_BANNER = (
    "# PRIVATE release history of authormask: DO NOT PUBLISH. Keyed hashes of released texts "
    "and the public parameters they were released with, to warn when a text is released again."
)

#: bytes read from the start of a file to find a marker
_HEAD = 65536
_STATEMENT = re.compile(r'\A\{.*?"schema"\s*:\s*"authormask\.privacy-statement/', re.DOTALL)
_JSONL_OUTPUT = re.compile(
    r'\A\{"id": (?:"(?:[^"\\]|\\.)*"|-?[0-9.eE+-]+), "mechanism": "[a-z0-9-]+"'
)
#: what marks a private file or a statement wherever it stands in a text
_OWN_MARK = re.compile(
    r"PRIVATE (?:run report|release history) of authormask"
    r'|"authormask(?:\.|\\u002[eE])(?:run-report|privacy-statement)/'
)
#: the longest mark, less one: what a scan keeps of a chunk's end for the next chunk
_OVERLAP = 48


def _kind_of_mark(mark: str) -> str:
    return "privacy statement" if "privacy-statement" in mark else "private report"


def _cleaned(head: str) -> str:
    """``head`` as cleaning writes it (no byte order mark, zero-width or other invisible
    character, NFKC), without its leading whitespace."""
    return clean_text(head).lstrip()


class OwnFileScan:
    """Looks for authormask's banners and schemas (module docstring) in a text read chunk by
    chunk: :meth:`feed` each decoded chunk in order; a mark split between two chunks is found.

    Examples
    --------
    >>> scan = OwnFileScan()
    >>> scan.feed("Some notes.\\n# PRIVATE run report of auth") is None
    True
    >>> scan.feed("ormask: DO NOT PUBLISH")
    'private report'
    """

    def __init__(self) -> None:
        self._tail = ""

    def feed(self, text: str) -> str | None:
        """The kind of authormask file a mark in the text read so far shows, or None.

        Parameters
        ----------
        text
            The next decoded chunk of the text.

        Returns
        -------
        str | None
            ``"private report"`` or ``"privacy statement"``, or None.
        """
        # cleaned (no zero-width or other invisible character, NFKC: no fullwidth letter), so
        # that what cleaning would remove from the released text cannot hide a mark from it
        window = self._tail + clean_text(text)
        found = _OWN_MARK.search(window)
        self._tail = window[-_OVERLAP:]
        return _kind_of_mark(found.group(0)) if found is not None else None


def _head(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(_HEAD)
    except OSError:
        return None
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff")


def kind_of_text(head: str) -> str | None:
    """What authormask file a text is, from its first characters (its first 4 KiB suffice):
    ``"private report"`` (its first line is a private file's banner), ``"privacy statement"``,
    ``"release output"`` (a JSONL release), or None. The content rules of
    :func:`authormask_kind`, for a text that comes with no name (standard input, a file under
    another name, through a link or a pipe).

    Parameters
    ----------
    head
        The start of the text, decoded.

    Returns
    -------
    str | None
        Its kind, or None.

    Examples
    --------
    >>> kind_of_text("# PRIVATE run report of authormask: DO NOT PUBLISH\\nseed: 5")
    'private report'
    >>> kind_of_text("# PRIVATE notes on the budget") is None
    True
    """
    head = _cleaned(head)
    first = head.split("\n", 1)[0]
    if first.startswith(PRIVATE_MARKER) and "authormask" in first:
        return "private report"
    if (found := _OWN_MARK.search(head)) is not None:
        return _kind_of_mark(found.group(0))
    if _JSONL_OUTPUT.match(head):
        return "release output"
    return None


def never_released(what: str, kind: str) -> str:
    """The one error line refusing ``what`` (an input, as the user gave it), an authormask file
    of ``kind`` (:func:`authormask_kind`, :func:`kind_of_text`).

    Parameters
    ----------
    what
        The input in words (``input file notes.txt``, ``standard input``).
    kind
        What authormask file it is.

    Returns
    -------
    str
        The message.
    """
    why = " (it holds the seed and the inputs' paths)" if kind == "private report" else ""
    return f"{what} is an authormask {kind}, which is never released{why}"


def is_statement(path: Path) -> bool:
    """Whether ``path`` is a regular file holding an authormask privacy statement.

    Parameters
    ----------
    path
        The file to look at.

    Returns
    -------
    bool
        True for a privacy statement.
    """
    if not path.is_file():
        return False
    head = _head(path)
    return head is not None and bool(_STATEMENT.match(_cleaned(head)))


def authormask_kind(path: Path) -> str | None:
    """What authormask file ``path`` is: ``"private report"`` (a run report or the release
    history), ``"privacy statement"``, ``"release output"``, or None (not one of ours). See the
    module docstring for the rules; a folder is an output when a statement is inside it or
    beside it.

    Parameters
    ----------
    path
        The file or folder to look at.

    Returns
    -------
    str | None
        Its kind, or None.
    """
    name = path.name
    if path.is_dir():
        if (path / FOLDER_STATEMENT).is_file() or is_statement(
            path.with_name(name + STATEMENT_SUFFIX)
        ):
            return "release output"
        return None
    if name.endswith(REPORT_SUFFIX):
        return "private report"
    if name == FOLDER_STATEMENT or name.endswith(STATEMENT_SUFFIX):
        return "privacy statement"
    head = _head(path)
    if head is not None and (kind := kind_of_text(head)) is not None:
        return kind
    if is_statement(path.with_name(name + STATEMENT_SUFFIX)):
        return "release output"
    return None
