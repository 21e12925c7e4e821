"""Strict CSV reading, one rule for every reader (datasets and dataset releases).

A quote that never closes, a character after a closing quote, a header that names a column twice
or a row with another number of fields than the header is an error naming the line where the
record starts, never a guess: the standard module would otherwise merge a record with the rows
after it (issue 22).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator

from authormask.exceptions import InputError

__all__ = ["csv_problem", "strict_csv"]


def strict_csv(
    lines: Iterable[str], *, locate: Callable[[int], str]
) -> Iterator[tuple[int, list[str]]]:
    """``(line, fields)`` of the header (line 1) and of every non-empty record after it, ``line``
    being where the record starts (a quoted field may span lines). ``lines`` is a file opened
    with ``newline=""`` (or its text in a ``StringIO``); an error is an :class:`InputError`
    ``"{locate(line)}: <what is wrong>"``."""
    reader = csv.reader(lines, strict=True)
    header: list[str] | None = None
    line = 1  # the line where the record being read starts
    try:
        while True:
            line = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                return
            if header is None:
                twice = [name for i, name in enumerate(row) if name in row[:i]]
                if twice:
                    raise InputError(f"{locate(1)}: the header names column {twice[0]!r} twice")
                header = row
            elif not row:
                continue
            elif len(row) != len(header):
                raise InputError(
                    f"{locate(line)}: {len(row)} field(s), the header has {len(header)} "
                    "(a ragged row, or a quote that is not closed)"
                )
            yield line, row
    except csv.Error as exc:
        raise InputError(f"{locate(line)}: {csv_problem(exc)}") from None


def csv_problem(exc: csv.Error) -> str:
    """A CSV error in words: the module's "unexpected end of data" is a quote never closed."""
    text = str(exc)
    if "unexpected end of data" in text:
        return "a quoted field is not closed (its quote runs to the end of the file)"
    if "expected after" in text:
        return (
            f"a character follows a closing quote ({text}); a quote inside a quoted field "
            'is written twice ("")'
        )
    return text
