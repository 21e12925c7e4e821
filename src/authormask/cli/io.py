"""Turning command-line inputs into release sources (files, folders, ``-`` for stdin), read
lazily, and naming their outputs."""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from authormask.core.markers import authormask_kind, never_released
from authormask.core.sources import (
    FileSource,
    Source,
    StdinSource,
    TextSource,
    decode_bytes,
)
from authormask.exceptions import InputError

__all__ = [
    "Document",
    "Inputs",
    "example_source",
    "passed_over_note",
    "read_inputs",
    "skipped_note",
    "sources_of",
]

#: files that mark a folder as a PAN authorship-attribution collection or problem
PAN_MARKERS = ("collection-info.json", "problem-info.json", "ground-truth.json")


@dataclass(frozen=True)
class Document:
    """A whole document read into memory (for commands that compare a few documents)."""

    name: str
    text: str


@dataclass(frozen=True)
class Inputs:
    """The sources of a release and, for each, its path relative to the folder it was found in
    (for mirrored output folders) and whether any input was a folder."""

    sources: tuple[Source, ...]
    relpaths: tuple[str, ...]
    any_folder: bool
    #: the folders given as inputs (an output, statement or report must never go inside one)
    folders: tuple[Path, ...] = ()
    #: files and folders found in an input folder and skipped as authormask's own (reports,
    #: statements, outputs: :func:`authormask.core.markers.authormask_kind`), with their kind
    skipped: tuple[tuple[str, str], ...] = ()
    #: entries of an input folder that are not regular files or folders it can read (a dangling
    #: symbolic link, a FIFO, a socket, a device, a link to a folder, which is not followed, an
    #: unreadable folder), passed over, with what each is
    passed_over: tuple[tuple[str, str], ...] = ()


def example_source() -> TextSource:
    text = files("authormask").joinpath("data/example.txt").read_text(encoding="utf-8")
    return TextSource("example.txt", "example.txt", len(text), text)


def _check_not_pan(path: Path) -> None:
    for marker in PAN_MARKERS:
        if (path / marker).is_file():
            raise InputError(
                f"input folder {path} is a PAN authorship-attribution collection or problem "
                f"(it has {marker}); its texts are in the problem folders' candidate and "
                "'unknown' subfolders: give those folders (e.g. problem00001/unknown), or "
                "evaluate it with `authormask evaluate`"
            )


def _what(path: Path) -> str | None:
    """What a folder's entry is when it is not a document to read: ``"a dangling symbolic
    link"``, ``"a FIFO"``, ... (see :attr:`Inputs.passed_over`); None for a regular file (or a
    link to one)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "a dangling symbolic link" if os.path.islink(path) else "gone"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if stat.S_ISREG(st.st_mode):
        return None
    if stat.S_ISFIFO(st.st_mode):
        kind = "a FIFO (named pipe)"
    elif stat.S_ISSOCK(st.st_mode):
        kind = "a socket"
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        kind = "a device"
    else:
        kind = "not a regular file"
    return ("a symbolic link to " if os.path.islink(path) else "") + kind


def _folder_files(
    path: Path, skipped: list[tuple[str, str]], passed_over: list[tuple[str, str]]
) -> list[Path]:
    """The non-hidden files of ``path``, recursively, in sorted order, without authormask's own
    files (reports, statements, outputs), which are added to ``skipped``, and without what is
    not a regular file or a folder it can read, which is added to ``passed_over``."""
    _check_not_pan(path)
    found: list[Path] = []
    if (kind := authormask_kind(path)) is not None:  # an output folder given as input
        raise InputError(
            f"input folder {path} is an authormask {kind} (it holds or has beside it a privacy "
            "statement); give the files to release one by one"
        )

    def unreadable(exc: OSError) -> None:
        passed_over.append((str(exc.filename), f"an unreadable folder ({exc.strerror or exc})"))

    for root, dirs, names in os.walk(path, onerror=unreadable):
        kept = []
        for d in sorted(d for d in dirs if not d.startswith(".")):
            if os.path.islink(Path(root) / d):  # os.walk does not follow it
                passed_over.append(
                    (str(Path(root) / d), "a symbolic link to a folder (not followed)")
                )
            elif (kind := authormask_kind(Path(root) / d)) is not None:
                skipped.append((str(Path(root) / d), kind))
            else:
                kept.append(d)
        dirs[:] = kept
        for n in sorted(names):
            p = Path(root) / n
            if n.startswith("."):
                continue
            if (what := _what(p)) is not None:
                passed_over.append((str(p), what))
            elif (kind := authormask_kind(p)) is not None:
                skipped.append((str(p), kind))
            else:
                found.append(p)
    if not found:
        if skipped:
            raise InputError(
                f"input folder {path} holds only authormask's own files (reports, statements "
                f"or outputs), which are never released: {skipped[0][0]}"
                + (f" and {len(skipped) - 1} more" if len(skipped) > 1 else "")
            )
        passed = f" (passed over: {_listed(passed_over)})" if passed_over else ""
        raise InputError(f"input folder contains no files: {path}{passed}")
    return found


def _listed(entries: tuple[tuple[str, str], ...] | list[tuple[str, str]], most: int = 10) -> str:
    shown = ", ".join(f"{name} ({what})" for name, what in entries[:most])
    return shown + (f" and {len(entries) - most} more" if len(entries) > most else "")


def _stdin_size() -> int:
    """The bytes left on standard input where it is redirected from a file (``< FILE``): for
    progress, and for the choice of a second process for a long text; 0 where it is a pipe or
    a terminal (unknown)."""
    try:
        fd = sys.stdin.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return 0
        return max(0, st.st_size - os.lseek(fd, 0, os.SEEK_CUR))
    except (OSError, ValueError, AttributeError):  # closed, replaced or not a file
        return 0


def sources_of(inputs: tuple[str, ...]) -> Inputs:
    """Files, folders (their non-hidden files, recursively, in sorted order, without
    authormask's own reports, statements and outputs: see :attr:`Inputs.skipped`) or ``-`` for
    stdin. Nothing is read yet: each document is read when it is released."""
    sources: list[Source] = []
    relpaths: list[str] = []
    folders: list[Path] = []
    skipped: list[tuple[str, str]] = []
    passed_over: list[tuple[str, str]] = []
    any_folder = False
    for item in inputs:
        if item == "-":
            sources.append(StdinSource("<stdin>", "stdin.txt", _stdin_size()))
            relpaths.append("stdin.txt")
            continue
        if not item:  # Path("") is the current folder: never release it by accident
            raise InputError("an input path is empty ('')")
        path = Path(item)
        if path.is_dir():
            any_folder = True
            folders.append(path)
            for p in _folder_files(path, skipped, passed_over):
                rel = p.relative_to(path).as_posix()
                sources.append(FileSource.of(p, rel))
                relpaths.append(rel)
        elif not os.path.lexists(path):
            raise InputError(f"input file not found: {path}")
        elif _what(path) is None and (kind := authormask_kind(path)) is not None:
            # named as a file: refused before anything is read (a pipe is checked as it is
            # read, never here: a look would take its bytes)
            raise InputError(never_released(f"input file {path}", kind))
        else:
            sources.append(FileSource.of(path))
            relpaths.append(path.name)
    if sum(1 for s in sources if isinstance(s, StdinSource)) > 1:
        raise InputError("standard input (-) can be given only once")
    return Inputs(
        tuple(sources),
        tuple(relpaths),
        any_folder,
        tuple(folders),
        tuple(skipped),
        tuple(passed_over),
    )


def _beside_statement() -> bool:
    """Whether this command releases to standard output (``-o -``, or no ``-o``): its public
    statement then goes to stderr, beside these notes, and may be published with them."""
    import click

    ctx = click.get_current_context(silent=True)
    if ctx is None or "output" not in ctx.params:
        return False
    output = ctx.params["output"]
    return output is None or str(output) == "-"


def _folders_of(found: Inputs, entries: tuple[tuple[str, str], ...]) -> str:
    """The input folders, as the user typed them, that hold ``entries``."""
    held = [
        str(folder)
        for folder in found.folders
        if any(Path(name) == folder or Path(folder) in Path(name).parents for name, _ in entries)
    ]
    return ", ".join(held) if held else ", ".join(str(f) for f in found.folders)


def _kinds(entries: tuple[tuple[str, str], ...]) -> str:
    """``a FIFO (named pipe): 2, a socket: 1``: what the entries are, with their counts."""
    counts: dict[str, int] = {}
    for _, what in entries:
        counts[what] = counts.get(what, 0) + 1
    return ", ".join(f"{what}: {n}" for what, n in counts.items())


def skipped_note(found: Inputs, *, names: bool | None = None) -> str | None:
    """The one stderr line that names what a folder input skipped, or None.

    ``names``: name each entry (its path). By default they are named unless the release goes
    to standard output, where stderr carries the public statement and may be published with
    it: then the line gives the kinds and counts and the input folders as typed, never a path
    inside them (a file or folder name can name the author)."""
    if not found.skipped:
        return None
    if names is None:
        names = not _beside_statement()
    head = (
        f"authormask: note: skipped {len(found.skipped)} file(s) or folder(s) of authormask "
        "found in the input folder(s)"
    )
    if not names:
        return (
            f"{head} {_folders_of(found, found.skipped)} ({_kinds(found.skipped)}), never "
            "released as inputs; their names are not printed beside a release on standard "
            "output"
        )
    shown = ", ".join(f"{name} ({kind})" for name, kind in found.skipped[:10])
    more = f" and {len(found.skipped) - 10} more" if len(found.skipped) > 10 else ""
    return f"{head}, never released as inputs: {shown}{more}"


def passed_over_note(found: Inputs, *, names: bool | None = None) -> str | None:
    """The one stderr warning that names what the input folders held but that is not a
    document (:attr:`Inputs.passed_over`), or None. It names paths (unless the release goes to
    standard output: see :func:`skipped_note`): it goes to stderr only, never into the public
    statement."""
    if not found.passed_over:
        return None
    if names is None:
        names = not _beside_statement()
    n = len(found.passed_over)
    head = (
        f"authormask: warning: passed over {n} entr{'y' if n == 1 else 'ies'} of the input "
        "folder(s)"
    )
    if not names:
        return (
            f"{head} {_folders_of(found, found.passed_over)} that {'is' if n == 1 else 'are'} "
            f"not a file to release ({_kinds(found.passed_over)}); their names are not printed "
            "beside a release on standard output"
        )
    return (
        f"{head} that {'is' if n == 1 else 'are'} not a file to release: "
        f"{_listed(found.passed_over)}"
    )


def read_inputs(inputs: tuple[str, ...]) -> list[Document]:
    """Every input read whole (for commands that compare a few documents, e.g. ``distance``)."""
    docs: list[Document] = []
    for source in sources_of(inputs).sources:
        if isinstance(source, StdinSource):
            import sys

            docs.append(
                Document(source.name, decode_bytes(sys.stdin.buffer.read(), "standard input"))
            )
        else:
            docs.append(Document(source.name, "".join(source.parts())))
    return docs
