"""Loaders for corpora the user gives: a folder per author, JSONL, CSV, and the PAN layout."""

from __future__ import annotations

import io
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask._csv import strict_csv
from authormask.datasets._base import SPLITS, Corpus, Document, make_corpus
from authormask.exceptions import InputError
from authormask.text.clean import join_line_breaks

__all__ = ["Columns", "check_dir", "load_csv", "load_folder", "load_jsonl", "read_text_file"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Columns:
    """Which JSONL/CSV columns hold the text and its labels (``None``: the corpus has none).

    Attributes
    ----------
    text
        The column of the texts.
    author
        The column of the authors, or None.
    topic
        The column of the topics, or None.
    split
        The column of the splits, or None.
    doc_id
        The column of the document ids, or None (ids from the file and line).
    """

    text: str = "text"
    author: str | None = "author"
    topic: str | None = None
    split: str | None = None
    doc_id: str | None = None

    @property
    def wanted(self) -> list[str]:
        return [c for c in (self.text, self.author, self.topic, self.split, self.doc_id) if c]


def read_text_file(path: Path) -> str:
    """Read a corpus file: UTF-8 (with or without BOM), else Windows-1252, else Latin-1.

    Line endings become ``\\n`` (:func:`~authormask.text.clean.join_line_breaks`: a ``\\r`` and
    a ``\\n`` with only invisible characters between them are one). Corpora such as Reuters C50
    and the AAAC problems are not UTF-8.

    Parameters
    ----------
    path
        The file.

    Returns
    -------
    str
        Its text.

    Raises
    ------
    InputError
        If the file is missing, unreadable or binary.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"file not found: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if b"\x00" in raw[:8192]:
        raise InputError(f"{path} looks like a binary file (contains NUL bytes)")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    else:
        text = raw.decode("latin-1")
    return join_line_breaks(text)


def check_dir(path: Path, what: str) -> Path:
    """``path`` if it is a folder; else an error that calls it ``what``.

    Parameters
    ----------
    path
        The folder.
    what
        What it is, for the error message.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        If ``path`` is missing or not a folder.
    """
    if not path.exists():
        raise InputError(f"{what} not found: {path}")
    if not path.is_dir():
        raise InputError(f"{what} is not a folder: {path}")
    return path


def _text_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))


PAN_MARKERS = ("collection-info.json", "problem-info.json")


def _refuse_pan(root: Path, folders: list[Path]) -> None:
    """A PAN collection where a folder of ``<author>/*.txt`` is expected: say so, and what to
    give instead (its files would otherwise be read as the texts of one author)."""
    for marker in PAN_MARKERS:
        if (root / marker).is_file():
            raise InputError(
                f"{root} is a PAN 2018/2019 folder ({marker}), not a folder of <author>/*.txt; "
                "read it with load_pan or load_dataset"
            )
    for folder in folders:
        if (folder / "collection-info.json").is_file():
            raise InputError(
                f"{root}: {folder.name}/ is a PAN 2018/2019 collection (collection-info.json), "
                f"not an author; give the collection itself: {folder}"
            )
        if (folder / "problem-info.json").is_file():
            raise InputError(
                f"{root}: {folder.name}/ is a PAN 2018/2019 problem (problem-info.json), not "
                f"an author; give the collection with its collection-info.json, or one problem: "
                f"{folder}"
            )


def load_folder(path: str | Path, *, name: str | None = None) -> Corpus:
    """A folder of ``<author>/*.txt`` (any non-hidden file counts as a text).

    If the folder holds ``train/`` and ``test/`` (or ``C50train/`` and ``C50test/``) each with
    ``<author>/`` folders, the documents get that split. A folder in the PAN layout (or holding
    PAN collections or problems where authors are expected) is refused, naming the layout.

    Parameters
    ----------
    path
        The folder.
    name
        The corpus's name (default: the folder's).

    Returns
    -------
    Corpus
        The corpus.

    Raises
    ------
    InputError
        If the folder holds no text.
    """
    root = check_dir(Path(path), "dataset folder")
    split_dirs = {
        split: d for split in SPLITS for d in (root / split, root / f"C50{split}") if d.is_dir()
    }
    docs: list[Document] = []
    layouts = split_dirs.items() if split_dirs else [(None, root)]
    for split, base in layouts:
        authors = sorted(p for p in base.iterdir() if p.is_dir() and not p.name.startswith("."))
        _refuse_pan(base, authors)
        for author_dir in authors:
            for f in _text_files(author_dir):
                doc_id = (
                    f"{split}/{author_dir.name}/{f.name}"
                    if split
                    else (f"{author_dir.name}/{f.name}")
                )
                docs.append(
                    Document(doc_id, read_text_file(f), author=author_dir.name, split=split)
                )
    if not docs:
        raise InputError(
            f"no texts found in {root}: expected <author>/<file>.txt folders "
            "(optionally under train/ and test/)"
        )
    return make_corpus(name or root.name, str(root.resolve()), docs)


def _record_value(record: dict[str, Any], column: str | None, where: str) -> str | None:
    if column is None:
        return None
    value = record.get(column)
    if value is None or value == "":
        return None
    if not isinstance(value, str | int | float):
        raise InputError(f"{where}: column {column!r} must be text, got {type(value).__name__}")
    return str(value)


def _records_to_corpus(
    records: list[tuple[str, dict[str, Any]]], *, path: Path, name: str | None, columns: Columns
) -> Corpus:
    if not records:
        raise InputError(f"{path} has no records")
    present = set().union(*(r.keys() for _, r in records))
    missing = [c for c in columns.wanted if c not in present]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {', '.join(repr(c) for c in missing)}; "
            f"found {', '.join(sorted(map(repr, present)))}"
        )
    docs: list[Document] = []
    for where, rec in records:
        text = _record_value(rec, columns.text, where)
        if text is None or not text.strip():
            raise InputError(f"{where}: empty document (column {columns.text!r})")
        split = _record_value(rec, columns.split, where)
        if split is not None and split not in SPLITS:
            raise InputError(f"{where}: split {split!r} is not one of {', '.join(SPLITS)}")
        doc_id = _record_value(rec, columns.doc_id, where) or where
        docs.append(
            Document(
                doc_id,
                text,
                author=_record_value(rec, columns.author, where),
                topic=_record_value(rec, columns.topic, where),
                split=split,
            )
        )
    return make_corpus(name or path.stem, str(path.resolve()), docs)


def load_jsonl(
    path: str | Path,
    *,
    columns: Columns | None = None,
    name: str | None = None,
) -> Corpus:
    """One JSON object per line; the column names are configurable.

    Parameters
    ----------
    path
        The JSONL file.
    columns
        Which fields hold the text and its labels (default: :class:`Columns`).
    name
        The corpus's name (default: the file's).

    Returns
    -------
    Corpus
        The corpus.

    Raises
    ------
    InputError
        If a line is not a JSON object.
    """
    p = Path(path)
    content = read_text_file(p)
    records: list[tuple[str, dict[str, Any]]] = []
    # lines end at "\n" only: str.splitlines would also cut at U+2028, U+0085, ... which JSON
    # strings may hold raw
    for lineno, line in enumerate(content.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{p}:{lineno}: not valid JSON ({exc.msg})") from None
        except RecursionError:
            raise InputError(f"{p}:{lineno}: JSON nested too deep to read") from None
        if not isinstance(obj, dict):
            raise InputError(f"{p}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        records.append((f"{p.name}:{lineno}", obj))
    return _records_to_corpus(records, path=p, name=name, columns=columns or Columns())


def load_csv(
    path: str | Path,
    *,
    columns: Columns | None = None,
    name: str | None = None,
) -> Corpus:
    """A CSV file with a header row; the column names are configurable.

    The file is read strictly: a quote that never closes, a character after a closing quote or
    a row with another number of fields than the header is an error naming the line where the
    record starts, never a record merged with the rows after it.

    Parameters
    ----------
    path
        The CSV file.
    columns
        Which columns hold the text and its labels (default: :class:`Columns`).
    name
        The corpus's name (default: the file's).

    Returns
    -------
    Corpus
        The corpus.

    Raises
    ------
    InputError
        If the file has no header row, or lacks a column named.
    """
    p = Path(path)
    content = read_text_file(p)
    rows = strict_csv(io.StringIO(content, newline=""), locate=lambda line: f"{p}:{line}")
    _, header = next(rows, (1, None))
    if header is None:
        raise InputError(f"{p} is empty (no header row)")
    records: list[tuple[str, dict[str, Any]]] = [
        (f"{p.name}:{line}", dict(zip(header, row, strict=True))) for line, row in rows
    ]
    if not records:
        # report the columns even when there are no rows
        cols = columns or Columns()
        missing = [c for c in cols.wanted if c not in header]
        if missing:
            raise InputError(f"{p}: missing column(s) {', '.join(map(repr, missing))}")
    return _records_to_corpus(records, path=p, name=name, columns=columns or Columns())
