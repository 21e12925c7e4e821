"""Datasets as release inputs: JSON Lines, CSV and Parquet (a file or a folder of part files),
read record by record, with a text column, an optional id column and the columns to keep.

Only the text column is released. The id column names each output record (default: the record's
number, 1, 2, ...); with ``secret_ids`` the records are numbered 1..n in a secret random order
instead, and the id column's values go to the private report only. Every other column is dropped
unless it is named to be kept: a column such as a user name, a time or a location may identify
the author, so keeping it is explicit. The release's public statement says which columns are
published and that the records keep the input's order
(:func:`~authormask.core.table_outputs.declare_columns`).

Values keep their type in JSONL output (a Parquet float that is NaN or infinite, which JSON
cannot hold, is written as null). In Parquet output the id and kept columns keep their Parquet
type when the input is Parquet, and their type when the input is CSV (strings, as written) or
JSONL (:meth:`TableInput.typed`: a column of strings, of integers, of numbers or of booleans is
typed so, the same in every part file; a column that mixes them, or holds objects or arrays,
holds every value's JSON text, so that the string ``"1"`` and the number ``1`` stay apart).

Ids are compared as they are typed: the id column of JSONL holds strings or integers, all of one
type (``1`` and ``"1"`` in one column, a boolean, a float, NaN or infinity are refused), CSV ids
are strings, and Parquet ids keep their type (NaN and infinity refused). What no release can
publish faithfully is refused, with one line naming the record: a lone surrogate escape
(``"\\ud800"``, not Unicode text) or a NUL character (U+0000, refused in text files too) in the
text, an id or a kept column, and NaN or Infinity in JSONL (not JSON).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask._csv import strict_csv
from authormask._io import InputFile, file_identity
from authormask.core.table_formats import TABLE_FORMATS, detect_table_format, parquet_files
from authormask.exceptions import InputError

__all__ = [
    "RESERVED_COLUMNS",
    "TABLE_FORMATS",
    "Record",
    "TableInput",
    "detect_table_format",
]

#: columns the release writes besides the id and the text (public per-output figures)
RESERVED_COLUMNS = ("bag", "tokens", "epsilon_total")
#: the largest CSV field read (a text column holds whole documents)
_CSV_FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Record:
    """One record of a dataset: its position (0-based, in file order), id, text, the values of
    the kept columns, and where it is in the input (for errors).

    Attributes
    ----------
    position
        The record's position, 0-based, in file order.
    id
        Its id.
    text
        Its text.
    keep
        The values of the kept columns.
    where
        Where it is in the input (for errors).
    """

    position: int
    id: Any
    text: str
    keep: tuple[Any, ...]
    where: str


@dataclass(frozen=True)
class TableInput:
    """A dataset to release: ``path`` in ``format``, with the columns to read.

    Use :meth:`open`, which checks the file and the columns.

    Attributes
    ----------
    path
        The dataset's file or folder.
    format
        ``"jsonl"``, ``"csv"`` or ``"parquet"``.
    text_column
        The column of the texts to release.
    id_column
        The column of the records' ids, or None (records are numbered).
    keep_columns
        The columns copied to the output unchanged.
    arrow_types
        The Parquet types of the columns read, for the output schema.
    secret_ids
        Name the output records 1..n in a secret random order instead.
    json_columns
        The JSONL columns whose values a Parquet output holds as their JSON text.
    """

    path: Path
    format: str
    text_column: str
    id_column: str | None = None
    keep_columns: tuple[str, ...] = ()
    #: the Parquet types of the columns read (Parquet input only), for the output schema
    arrow_types: tuple[tuple[str, Any], ...] = ()
    #: name the output records 1..n in a secret random order (column ``id``) instead of by the
    #: id column's values or the record's number
    secret_ids: bool = False
    #: the JSONL columns whose values a Parquet output holds as their JSON text
    #: (:meth:`typed`: they mix types, or hold objects or arrays)
    json_columns: tuple[str, ...] = ()

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        text_column: str,
        id_column: str | None = None,
        keep_columns: tuple[str, ...] | list[str] = (),
        format: str | None = None,
        secret_ids: bool = False,
    ) -> TableInput:
        """Check ``path`` and the columns (the header of a CSV file, the schema of Parquet, the
        first record of JSONL; later JSONL records are checked as they are read).

        Parameters
        ----------
        path
            The dataset's file or folder.
        text_column
            The column of the texts to release.
        id_column
            The column of the records' ids, or None.
        keep_columns
            The columns copied to the output unchanged.
        format
            ``"jsonl"``, ``"csv"`` or ``"parquet"``; None: from the file's name.
        secret_ids
            Name the output records 1..n in a secret random order.

        Returns
        -------
        TableInput
            The checked input.

        Raises
        ------
        InputError
            If the dataset is missing, of an unknown format, or lacks a column named.
        """
        p = Path(path)
        if not p.exists():
            raise InputError(f"input dataset not found: {p}")
        fmt = format or detect_table_format(p)
        if fmt is None:
            raise InputError(
                f"cannot tell the format of dataset {p} from its name: name it .jsonl, .ndjson, "
                ".csv, .parquet or .pq, or give its `format` (jsonl, csv or parquet)"
            )
        if fmt not in TABLE_FORMATS:
            raise InputError(f"dataset format must be one of {', '.join(TABLE_FORMATS)}")
        if fmt != "parquet" and not p.is_file():
            raise InputError(f"input dataset is not a file: {p}")
        keep = tuple(keep_columns)
        named = [text_column, *([id_column] if id_column else []), *keep]
        if not text_column:
            raise InputError("the text column name is empty")
        if len(set(named)) != len(named):
            raise InputError(
                "the text, id and kept columns must be different columns: "
                + ", ".join(repr(c) for c in named)
            )
        out_names = {"id" if secret_ids else id_column or "id", text_column}
        clash = [c for c in keep if c in RESERVED_COLUMNS or c in out_names]
        if clash:
            raise InputError(
                f"cannot keep column {clash[0]!r}: the release writes a column of that name"
            )
        table = cls(p, fmt, text_column, id_column, keep, secret_ids=secret_ids)
        columns = table._columns()
        if columns is not None:
            missing = [c for c in named if c not in columns]
            if missing:
                raise InputError(
                    f"dataset {p} has no column {missing[0]!r} (its columns: "
                    f"{', '.join(repr(c) for c in columns[:20])})"
                )
        if fmt == "parquet":
            import pyarrow as pa

            schema = _parquet_schema(p)
            text_type = schema.field(text_column).type
            if pa.types.is_dictionary(text_type):  # a pandas category: strings, encoded
                text_type = text_type.value_type
            if not (pa.types.is_string(text_type) or pa.types.is_large_string(text_type)):
                raise InputError(
                    f"column {text_column!r} of {p} holds {text_type}, not text (strings)"
                )
            types = tuple((c, schema.field(c).type) for c in named[1:])
            table = cls(p, fmt, text_column, id_column, keep, types, secret_ids)
        return table

    def describe(self) -> str:
        """The input in words: its path, format and text column.

        Returns
        -------
        str
            Such as ``data.csv (csv, text column 'text')``.
        """
        return f"{self.path} ({self.format}, text column {self.text_column!r})"

    def fingerprint(self) -> list[tuple[str, int, int]]:
        """What identifies the input of a resumable release: every file's path, size and
        modification time.

        Returns
        -------
        list[tuple[str, int, int]]
            ``(resolved path, size, modification time in ns)`` per file.
        """
        files = parquet_files(self.path) if self.format == "parquet" else [self.path]
        out = []
        for f in files:
            st = f.stat()
            out.append((str(f.resolve()), st.st_size, st.st_mtime_ns))
        return out

    def input_files(self) -> list[InputFile]:
        """The files the dataset is read from (an output must never replace one).

        Returns
        -------
        list[InputFile]
            The files, with their identities.
        """
        files = parquet_files(self.path) if self.format == "parquet" else [self.path]
        return [
            InputFile(str(f), ident, f) for f in files if (ident := file_identity(f)) is not None
        ]

    # --- reading ----------------------------------------------------------------------------

    def _columns(self) -> list[str] | None:
        if self.format == "csv":
            with _open_text(self.path) as fh:
                try:
                    _, header = next(strict_csv(fh, locate=self._line), (1, None))
                except UnicodeDecodeError as exc:
                    raise InputError(f"{self.path}: not UTF-8 ({exc.reason})") from None
            if header is None:
                raise InputError(f"dataset {self.path} is empty (no header line)")
            return header
        if self.format == "parquet":
            return list(_parquet_schema(self.path).names)
        for rec in self._jsonl_objects():  # the first record's fields
            return list(rec[1])
        raise InputError(f"dataset {self.path} has no records")

    def records(self) -> Iterator[Record]:
        """Every record, in file order, checked: the text is a string, the id is present, unique
        and typed as the module docstring says, and no value holds what cannot be released (a
        lone surrogate, a NUL character).

        Yields
        ------
        Record
            The records, in file order.

        Raises
        ------
        InputError
            If a text is missing or not a string, or an id is missing, of another type or duplicate.
        """
        seen: set[Any] = set()
        first: tuple[str, str] | None = None  # JSONL: the type of the first id, and where
        position = 0
        for where, ident, text, keep in self._rows():
            if not isinstance(text, str):
                kind = "missing" if text is None else f"a {type(text).__name__}, not a string"
                raise InputError(f"{self.path}: {where}: the text ({self.text_column!r}) is {kind}")
            self._check_value(where, "text", self.text_column, text)
            if self.id_column is None:
                ident = position + 1
            elif ident is None:
                raise InputError(f"{self.path}: {where}: no id ({self.id_column!r})")
            else:
                self._check_value(where, "id", self.id_column, ident)
                first = self._check_id(where, ident, first)
            for column, value in zip(self.keep_columns, keep, strict=True):
                self._check_value(where, "kept column", column, value)
            try:
                key = (type(ident).__name__, ident)
                dup = key in seen
                seen.add(key)
            except TypeError:
                raise InputError(
                    f"{self.path}: {where}: the id ({self.id_column!r}) must be a string or an "
                    f"integer, got {type(ident).__name__}"
                ) from None
            if dup:
                raise InputError(f"{self.path}: {where}: duplicate id {ident!r}")
            yield Record(position, ident, text, tuple(keep), where)
            position += 1

    def _check_id(
        self, where: str, ident: Any, first: tuple[str, str] | None
    ) -> tuple[str, str] | None:
        """Refuse an id that cannot be published as the user wrote it (see the module
        docstring); return the type of the JSONL ids and where it was first seen."""
        column = self.id_column
        if isinstance(ident, bool):
            raise InputError(
                f"{self.path}: {where}: the id ({column!r}) is {json.dumps(ident)}: an id must "
                "be a string or an integer"
            )
        if isinstance(ident, float) and not math.isfinite(ident):
            raise InputError(
                f"{self.path}: {where}: the id ({column!r}) is {ident!r}: an id must be a "
                "finite number or a string"
            )
        if self.format != "jsonl":
            return first
        if isinstance(ident, float):
            raise InputError(
                f"{self.path}: {where}: the id ({column!r}) is the number {ident!r}: an id "
                "must be a string or an integer (write it as one)"
            )
        kind = "a string" if isinstance(ident, str) else "an integer"
        if first is None:
            return kind, where
        if kind != first[0]:
            raise InputError(
                f"{self.path}: {where}: the id ({column!r}) is {kind}, but the id at "
                f"{first[1]} is {first[0]}: every id of a column must be of one type (all "
                'strings or all integers), as 1 and "1" would be published as one id'
            )
        return first

    def _check_value(self, where: str, what: str, column: str, value: Any) -> None:
        """Refuse a value (text, id or kept column, nested values included) that holds a lone
        surrogate or a NUL character."""
        found = _unreleasable(value)
        if found is None:
            return
        if found == "\x00":
            raise InputError(
                f"{self.path}: {where}: the {what} ({column!r}) contains a NUL character "
                "(U+0000): a binary value, or text in UTF-16/UTF-32; remove it"
            )
        raise InputError(
            f"{self.path}: {where}: the {what} ({column!r}) holds a lone surrogate "
            f"({found.encode('unicode_escape').decode()}), half of a pair: not Unicode text"
        )

    def _rows(self) -> Iterator[tuple[str, Any, Any, list[Any]]]:
        cols = [self.text_column, self.id_column, *self.keep_columns]
        if self.format == "jsonl":
            for line_no, rec in self._jsonl_objects():
                if self.text_column not in rec:
                    raise InputError(f"{self.path}: line {line_no}: no field {self.text_column!r}")
                yield (
                    f"line {line_no}",
                    rec.get(self.id_column) if self.id_column else None,
                    rec[self.text_column],
                    [rec.get(c) for c in self.keep_columns],
                )
        elif self.format == "csv":
            yield from self._csv_rows()
        else:
            import pyarrow.parquet as pq

            wanted = [c for c in cols if c is not None]
            for f in parquet_files(self.path):
                try:
                    reader = pq.ParquetFile(f)
                    row = 0
                    for batch in reader.iter_batches(batch_size=1024, columns=wanted):
                        data = {name: batch.column(name).to_pylist() for name in wanted}
                        for i in range(batch.num_rows):
                            row += 1
                            yield (
                                f"{f.name}: row {row}" if f != self.path else f"row {row}",
                                data[self.id_column][i] if self.id_column else None,
                                data[self.text_column][i],
                                [data[c][i] for c in self.keep_columns],
                            )
                except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
                    raise InputError(f"cannot read Parquet file {f}: {exc}") from None

    def _jsonl_objects(self) -> Iterator[tuple[int, dict[str, Any]]]:
        with open(self.path, "rb") as fh:
            for line_no, raw in enumerate(fh, start=1):
                if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if not raw.strip():
                    continue
                try:
                    rec = json.loads(
                        raw.decode("utf-8"),
                        object_pairs_hook=_unique_keys,
                        parse_constant=_no_constant,
                    )
                except UnicodeDecodeError as exc:
                    raise InputError(
                        f"{self.path}: line {line_no}: not UTF-8 (byte {exc.start + 1})"
                    ) from None
                except _DuplicateKey as exc:
                    raise InputError(
                        f"{self.path}: line {line_no}: an object names field {exc.key!r} twice"
                    ) from None
                except _Constant as exc:
                    raise InputError(
                        f"{self.path}: line {line_no}: {exc.name} is not JSON (write null, or "
                        "the value as a string)"
                    ) from None
                except ValueError as exc:
                    raise InputError(f"{self.path}: line {line_no}: not JSON ({exc})") from None
                except RecursionError:
                    raise InputError(
                        f"{self.path}: line {line_no}: JSON nested too deep to read (a record "
                        "holds arrays or objects inside one another thousands of levels deep)"
                    ) from None
                if not isinstance(rec, dict):
                    raise InputError(f"{self.path}: line {line_no}: not a JSON object")
                yield line_no, rec

    def _csv_rows(self) -> Iterator[tuple[str, Any, Any, list[Any]]]:
        """The rows of a CSV file, read strictly: a quote that never closes, a character after
        a closing quote or a row with another number of fields than the header is an error
        naming the line where the record starts (never a record merged with the next rows)."""
        csv.field_size_limit(_CSV_FIELD_LIMIT)
        with _open_text(self.path) as fh:
            rows = strict_csv(fh, locate=self._line)
            try:
                _, header = next(rows)
                index = {name: i for i, name in enumerate(header)}
                t = index[self.text_column]
                d = index[self.id_column] if self.id_column else None
                k = [index[c] for c in self.keep_columns]
                for line, row in rows:
                    yield (
                        f"line {line}",
                        row[d] if d is not None else None,
                        row[t],
                        [row[i] for i in k],
                    )
            except UnicodeDecodeError as exc:
                raise InputError(f"{self.path}: not UTF-8 ({exc.reason})") from None

    def _line(self, line: int) -> str:
        return f"{self.path}: line {line}"

    # --- the output's columns ---------------------------------------------------------------

    @property
    def id_name(self) -> str:
        return "id" if self.secret_ids else self.id_column or "id"

    @property
    def published_ids(self) -> bool:
        """Whether the output's ids are the id column's values, as the input has them."""
        return self.id_column is not None and not self.secret_ids

    def arrow_schema(self) -> Any:
        """The Parquet schema of the id, text and kept columns of the output.

        Returns
        -------
        Any
            A ``pyarrow.Schema``.
        """
        import pyarrow as pa

        types = dict(self.arrow_types)
        if self.id_column is None or self.secret_ids:
            id_type = pa.int64()
        else:
            id_type = types.get(self.id_column, pa.string())
        fields = [pa.field(self.id_name, id_type), pa.field(self.text_column, pa.string())]
        fields += [pa.field(c, types.get(c, pa.string())) for c in self.keep_columns]
        return pa.schema(fields)

    def typed(self) -> TableInput:
        """This input with the Parquet types of its published id and kept columns (for a
        Parquet output; see the module docstring): Parquet input has them already, CSV values
        are strings, and the values of JSONL are read once to type each column.

        Returns
        -------
        TableInput
            This input, typed.
        """
        if self.format != "jsonl":
            return self
        import pyarrow as pa

        ids = [self.id_column] if self.published_ids and self.id_column is not None else []
        columns = [*ids, *self.keep_columns]
        if not columns:
            return self
        kinds: dict[str, set[str]] = {c: set() for c in columns}
        for rec in self.records():
            values = [*([rec.id] if ids else []), *rec.keep]
            for column, value in zip(columns, values, strict=True):
                kinds[column].add(_json_kind(value))
        simple = {
            frozenset({"str"}): pa.string(),
            frozenset({"int"}): pa.int64(),
            frozenset({"float"}): pa.float64(),
            frozenset({"int", "float"}): pa.float64(),
            frozenset({"bool"}): pa.bool_(),
        }
        found = {c: simple.get(frozenset(kinds[c] - {"null"})) for c in columns}
        return dataclasses.replace(
            self,
            arrow_types=tuple((c, t if t is not None else pa.string()) for c, t in found.items()),
            json_columns=tuple(c for c, t in found.items() if t is None),
        )

    def arrow_value(self, column: str, value: Any) -> Any:
        """A JSONL or CSV value as the output's Parquet column holds it (see the module
        docstring): as it is in a typed column, as its JSON text in a column of strings.

        Parameters
        ----------
        column
            The column's name.
        value
            Its value in the input.

        Returns
        -------
        Any
            The value as the Parquet column holds it.
        """
        if self.format == "parquet" or value is None:
            return value
        if column in self.json_columns:
            return json.dumps(value, ensure_ascii=False)
        if isinstance(value, str):
            return value
        import pyarrow as pa

        typ = dict(self.arrow_types).get(column)
        if typ is not None and not pa.types.is_string(typ):
            return value
        return json.dumps(value, ensure_ascii=False)


def _json_kind(value: Any) -> str:
    """The type of a JSON value, for :meth:`TableInput.typed` (an integer beyond 64 bits, which
    Parquet's int64 cannot hold, is ``json``: written as its text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int" if -(2**63) <= value < 2**63 else "json"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    return "json"


def _unreleasable(value: Any) -> str | None:
    """The first character of ``value`` (a string, or the strings inside lists and objects)
    that no release can hold: a NUL (``"\\x00"``) or a lone surrogate; None if there is none."""
    if isinstance(value, str):
        if "\x00" in value:
            return "\x00"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return value[exc.start]
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _unreleasable(k) or _unreleasable(v)
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for v in value:
            found = _unreleasable(v)
            if found is not None:
                return found
    return None


class _Constant(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _no_constant(name: str) -> Any:
    """NaN, Infinity and -Infinity: Python's JSON reader takes them, JSON does not."""
    raise _Constant(name)


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are unique (JSON leaves a repeated key's value undefined)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _open_text(path: Path) -> io.TextIOWrapper:
    return open(path, encoding="utf-8-sig", newline="")


def _parquet_schema(path: Path) -> Any:
    import pyarrow.parquet as pq

    files = parquet_files(path)
    try:
        schema = pq.read_schema(files[0])
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read Parquet file {files[0]}: {exc}") from None
    return schema
