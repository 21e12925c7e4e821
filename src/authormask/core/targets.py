"""Where a text release goes (:class:`Target`: standard output, a file, a folder or a JSONL file)
and the writer that puts each released document there as it streams (:class:`Writer`):
folder files and JSONL records appear complete (temporary file and rename), and a JSONL release
killed half-way keeps its complete records to be resumed."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from authormask._io import AtomicTextFile, commit, same_times
from authormask.core.journal import jsonl
from authormask.core.stream import Done
from authormask.exceptions import InputError

__all__ = [
    "FOLDER_STATEMENT",
    "LAYOUTS",
    "MIRRORED_NAMES",
    "Target",
    "Writer",
    "output_paths",
    "partial_path",
    "resume_jsonl",
    "where",
    "write_error",
]

#: the public statement's name inside an output folder
FOLDER_STATEMENT = "PRIVACY-STATEMENT.json"
#: how a folder output names its files: by public id (default) or by the inputs' own names
LAYOUTS = ("ids", "mirror")
#: what the statement adds to ``released_unchanged`` when a folder mirrors the inputs' names
MIRRORED_NAMES = (
    "the input files' names and subfolders, published as the output files' names (layout "
    "mirror; NOT protected: a name can identify the author)"
)


@dataclass(frozen=True)
class Target:
    """Where a release goes.

    ``kind`` is ``"stdout"``, ``"file"`` (one document, text), ``"folder"`` (one text file per
    document inside ``path``) or ``"jsonl"`` (``path`` is a JSONL file, or stdout when ``path``
    is None: there each record carries the statement under ``privacy``, as no file beside it
    can). ``ids`` are the public ids of the inputs, in input order (JSONL records, stdout
    headers); by default (empty) the ids "1", "2", ... are assigned in a secret random order
    drawn from the release's root, and the documents are released in id order.

    A folder names its files ``<id>.txt`` (``layout="ids"``, the default), or mirrors the
    inputs' relative paths given in ``names`` (``layout="mirror"``: those names are published,
    and the statement says so).

    Attributes
    ----------
    kind
        ``"stdout"``, ``"file"``, ``"folder"`` or ``"jsonl"``.
    path
        The output file or folder, or None (standard output).
    ids
        The inputs' public ids, in input order (empty: drawn in a secret random order).
    names
        The inputs' relative paths, for ``layout="mirror"``.
    layout
        ``"ids"`` (``<id>.txt``) or ``"mirror"`` (the inputs' relative paths).
    """

    kind: str
    path: Path | None
    ids: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    layout: str = "ids"

    @property
    def mirrored(self) -> bool:
        return self.kind == "folder" and self.layout == "mirror"

    def statement_path(self) -> Path | None:
        """Where the statement goes beside the output (None: standard output).

        Returns
        -------
        Path | None
            The statement file, or None.
        """
        if self.path is None or self.kind == "stdout":
            return None
        if self.kind == "folder":
            return self.path / FOLDER_STATEMENT
        return self.path.with_name(self.path.name + ".privacy.json")


def write_error(exc: OSError | UnicodeEncodeError, target: Target) -> InputError:
    """An error of the system (disk full, permission denied, ...) or of the output's encoding,
    as one line.

    Parameters
    ----------
    exc
        The error.
    target
        The release's target.

    Returns
    -------
    InputError
        The one-line error to raise.
    """
    if isinstance(exc, UnicodeEncodeError):
        where = "standard output" if target.path is None else "the output"
        hint = (
            ": write to a file with -o, or set PYTHONIOENCODING=utf-8"
            if target.path is None
            else ""
        )
        return InputError(
            f"{where} cannot take the released text ({exc.encoding} cannot encode "
            f"{exc.object[exc.start : exc.start + 1]!r}){hint}"
        )
    if exc.filename is not None:
        return InputError(f"cannot write output {exc.filename}: {exc.strerror or exc}")
    where = f" to {target.path}" if target.path is not None else " to standard output"
    return InputError(f"cannot complete the release{where}: {exc.strerror or exc}")


def partial_path(path: Path) -> Path:
    """The hidden partial file beside ``path`` that a JSONL release writes first.

    Parameters
    ----------
    path
        The JSONL output.

    Returns
    -------
    Path
        ``.<name>.partial`` beside it.
    """
    return path.with_name(f".{path.name}.partial")


def resume_jsonl(partial: Path, ids: Sequence[str]) -> set[int]:
    """Keep the complete records of a partial JSONL file; cut off a half-written last line.

    Parameters
    ----------
    partial
        The partial JSONL file (cut in place).
    ids
        The public ids, in input order.

    Returns
    -------
    set[int]
        The input positions of the records kept.
    """
    position = {id_: i for i, id_ in enumerate(ids)}
    done: set[int] = set()
    good = 0
    with open(partial, "rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                break
            try:
                rec = json.loads(line)
                pos = position[rec["id"]]
            except (ValueError, KeyError, TypeError):
                break
            if pos in done:
                break
            done.add(pos)
            good += len(line)
    with open(partial, "rb+") as fh:
        fh.truncate(good)
    return done


def output_paths(target: Target) -> list[Path]:
    """The files a release writes (a folder's: one per document).

    Parameters
    ----------
    target
        The release's target.

    Returns
    -------
    list[Path]
        The paths (none for standard output).
    """
    if target.path is None:
        return []
    if target.kind == "folder":
        return [target.path / name for name in target.names]
    return [target.path]


def where(target: Target, paths: Sequence[Path], pos: int) -> str:
    """The output of the document at ``pos``, for an error message.

    Parameters
    ----------
    target
        The release's target.
    paths
        Its output paths (:func:`output_paths`).
    pos
        The document's position.

    Returns
    -------
    str
        The file, or the JSONL file and id.
    """
    if target.kind == "folder":
        return str(paths[pos])
    if target.kind == "jsonl":
        return f"{target.path or '<stdout>'} id={target.ids[pos]}"
    return str(target.path) if target.path is not None else "<stdout>"


def file_sha256(path: Path) -> str:
    """The SHA-256 (hex) of the file at ``path``, read in blocks.

    Parameters
    ----------
    path
        The file.

    Returns
    -------
    str
        Its digest.
    """
    import hashlib

    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


class Writer:
    """Hands each piece to its output as it comes.

    Parameters
    ----------
    target
        Where the release goes.
    paths
        The output paths (:func:`output_paths`).
    statement
        The privacy statement (JSONL on standard output carries it in every record).
    """

    def __init__(self, target: Target, paths: Sequence[Path], statement: Any) -> None:
        self.target, self.paths, self.mechanism = target, paths, statement.mechanism
        # JSONL on stdout has no file beside it for the statement: each record carries it
        self.inline = (
            statement.to_dict() if target.kind == "jsonl" and target.path is None else None
        )
        self.current: AtomicTextFile | None = None
        #: the one document of a file output, finished: it appears at :meth:`close`, with the
        #: statement and the report's last line (never cut in two by Ctrl-C)
        self.finished: AtomicTextFile | None = None
        self.position = -1
        self.jsonl: IO[str] | None = None
        self.partial: Path | None = None
        self.started = False
        if target.kind == "jsonl":
            if target.path is None:
                self.jsonl = sys.stdout
            else:
                self.partial = partial_path(target.path)
                self.jsonl = open(self.partial, "a", encoding="utf-8")

    def _begin(self, pos: int) -> None:
        if pos == self.position:
            return
        self.position = pos
        self.started = True
        t = self.target
        if t.kind == "jsonl":
            assert self.jsonl is not None
            head = jsonl({"id": t.ids[pos], "mechanism": self.mechanism})
            self.jsonl.write(head[:-1] + ', "text": "')
        elif t.kind == "stdout":
            if len(t.ids) > 1:
                sys.stdout.write(f"==> {t.ids[pos]} <==\n")
        else:
            self.current = AtomicTextFile(self.paths[pos] if t.kind == "folder" else self.paths[0])

    def piece(self, pos: int, text: str) -> None:
        """Write the next piece of the document at ``pos``.

        Parameters
        ----------
        pos
            The document's position.
        text
            The piece of released text.
        """
        self._begin(pos)
        if self.target.kind == "jsonl":
            assert self.jsonl is not None
            self.jsonl.write(jsonl(text)[1:-1])
        elif self.target.kind == "stdout":
            sys.stdout.write(text)
        else:
            assert self.current is not None
            self.current.write(text)
        self._last = text

    def done(self, event: Done) -> None:
        """End the document of ``event``: its JSONL record's tail, or its file.

        Parameters
        ----------
        event
            The document's :class:`~authormask.core.stream.Done`.
        """
        self._begin(event.position)
        t = self.target
        if t.kind == "jsonl":
            assert self.jsonl is not None
            rest: dict[str, Any] = {}
            if event.bag is not None:
                rest["bag"] = event.bag
            rest.update(event.figures)
            if self.inline is not None:
                rest["privacy"] = self.inline
            tail = jsonl(rest)
            self.jsonl.write('"' + (", " + tail[1:] if rest else "}") + "\n")
            self.jsonl.flush()
        elif t.kind == "stdout":
            if not getattr(self, "_last", "\n").endswith("\n"):
                sys.stdout.write("\n")
            sys.stdout.flush()
        elif t.kind == "file":
            assert self.current is not None
            self.finished, self.current = self.current, None
        else:
            assert self.current is not None
            self.current.commit()
            self.current = None
        self._last = "\n"
        self.position = -1

    def pending_digest(self) -> str | None:
        """The SHA-256 of what :meth:`close` makes appear: a file output's finished document
        or a JSONL output's records (flushed first); None for a folder (each document appears
        as it is done) or standard output. The report records it before the output appears,
        so a rerun after a kill tells its own output from another's.

        Returns
        -------
        str | None
            The digest (hex), or None.
        """
        if self.finished is not None:
            self.finished.fh.flush()
            return file_sha256(self.finished.tmp)
        if self.jsonl is not None and self.partial is not None and self.target.path is not None:
            self.jsonl.flush()
            return file_sha256(self.partial)
        return None

    def close(self) -> None:
        if self.finished is not None:
            self.finished.commit()
            self.finished = None
        if self.target.kind == "folder":
            same_times(self.paths)
        if self.jsonl is not None and self.partial is not None and self.target.path is not None:
            self.jsonl.flush()
            os.fsync(self.jsonl.fileno())
            self.jsonl.close()
            commit(self.partial, self.target.path, synced=True)
            self.jsonl = None

    def abort(self) -> None:
        for current in (self.current, self.finished):
            if current is None:
                continue
            try:
                current.abort()
            finally:  # closing may fail (disk full): the temporary file goes anyway
                current.tmp.unlink(missing_ok=True)
        self.current = self.finished = None
        if self.jsonl is not None and self.partial is not None:
            self.jsonl.flush()  # kept: a rerun of the same command resumes from it
            self.jsonl.close()
            self.jsonl = None
