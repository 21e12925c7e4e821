"""Turning command-line inputs into release sources (files, folders, ``-`` for stdin), read
lazily, and naming their outputs."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from authormask.exceptions import InputError
from authormask.release.markers import authormask_kind
from authormask.release.sources import (
    FileSource,
    Source,
    StdinSource,
    TextSource,
    decode_bytes,
)

__all__ = ["Document", "Inputs", "example_source", "read_inputs", "skipped_note", "sources_of"]

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
    #: statements, outputs: :func:`authormask.release.markers.authormask_kind`), with their kind
    skipped: tuple[tuple[str, str], ...] = ()


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


def _folder_files(path: Path, skipped: list[tuple[str, str]]) -> list[Path]:
    """The non-hidden files of ``path``, recursively, in sorted order, without authormask's own
    files (reports, statements, outputs), which are added to ``skipped``."""
    _check_not_pan(path)
    found: list[Path] = []
    if (kind := authormask_kind(path)) is not None:  # an output folder given as input
        raise InputError(
            f"input folder {path} is an authormask {kind} (it holds or has beside it a privacy "
            "statement); give the files to release one by one"
        )
    for root, dirs, names in os.walk(path):
        kept = []
        for d in sorted(d for d in dirs if not d.startswith(".")):
            if (kind := authormask_kind(Path(root) / d)) is not None:
                skipped.append((str(Path(root) / d), kind))
            else:
                kept.append(d)
        dirs[:] = kept
        for n in sorted(names):
            p = Path(root) / n
            if n.startswith(".") or not p.is_file():
                continue
            if (kind := authormask_kind(p)) is not None:
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
        raise InputError(f"input folder contains no files: {path}")
    return found


def sources_of(inputs: tuple[str, ...]) -> Inputs:
    """Files, folders (their non-hidden files, recursively, in sorted order, without
    authormask's own reports, statements and outputs: see :attr:`Inputs.skipped`) or ``-`` for
    stdin. Nothing is read yet: each document is read when it is released."""
    sources: list[Source] = []
    relpaths: list[str] = []
    folders: list[Path] = []
    skipped: list[tuple[str, str]] = []
    any_folder = False
    for item in inputs:
        if item == "-":
            sources.append(StdinSource("<stdin>", "stdin.txt", 0))
            relpaths.append("stdin.txt")
            continue
        if not item:  # Path("") is the current folder: never release it by accident
            raise InputError("an input path is empty ('')")
        path = Path(item)
        if path.is_dir():
            any_folder = True
            folders.append(path)
            for p in _folder_files(path, skipped):
                rel = p.relative_to(path).as_posix()
                sources.append(FileSource.of(p, rel))
                relpaths.append(rel)
        elif not os.path.lexists(path):
            raise InputError(f"input file not found: {path}")
        else:
            sources.append(FileSource.of(path))
            relpaths.append(path.name)
    if sum(1 for s in sources if isinstance(s, StdinSource)) > 1:
        raise InputError("standard input (-) can be given only once")
    return Inputs(tuple(sources), tuple(relpaths), any_folder, tuple(folders), tuple(skipped))


def skipped_note(found: Inputs) -> str | None:
    """The one stderr line that names what a folder input skipped, or None."""
    if not found.skipped:
        return None
    shown = ", ".join(f"{name} ({kind})" for name, kind in found.skipped[:10])
    more = f" and {len(found.skipped) - 10} more" if len(found.skipped) > 10 else ""
    return (
        f"authormask: note: skipped {len(found.skipped)} file(s) or folder(s) of authormask "
        f"found in the input folder(s), never released as inputs: {shown}{more}"
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
