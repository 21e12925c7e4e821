"""The text every report shares: how an epsilon and an interval read, the order of a table's
epsilon rows, Markdown pipe tables, CSV text and the list of privacy statements."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from authormask.evaluation.protocols._releases import sweeps_rate
from authormask.release import mechanism_names

__all__ = [
    "csv_text",
    "epsilon_text",
    "interval_text",
    "markdown_table",
    "statement_lines",
    "table_order",
]


def epsilon_text(epsilon: float | None) -> str:
    """An epsilon as the tables show it; ``None`` (noise off) is ``none``.

    >>> epsilon_text(None), epsilon_text(10.0), epsilon_text(1e6)
    ('none', '10', '1e+06')
    """
    return "none" if epsilon is None else f"{epsilon:g}"


def table_order(epsilons: Iterable[float | None]) -> list[float | None]:
    """The rows of a table: ``None`` first, then from the largest epsilon to the smallest.

    >>> table_order([2.0, None, 10.0])
    [None, 10.0, 2.0]
    """
    return sorted(epsilons, key=lambda e: (e is not None, -(e or 0.0)))


def interval_text(low: float, high: float) -> str:
    """A Wilson 95% interval as the tables show it.

    >>> interval_text(0.1, 0.35)
    '95% 10%-35%'
    """
    return f"95% {low:.0%}-{high:.0%}"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown pipe table.

    >>> markdown_table(["epsilon", "svm"], [["none", "3/8"]])
    ['| epsilon | svm |', '|---|---|', '| none | 3/8 |']
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV with a header row, ``\\n`` line ends."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def statement_lines(statements: Mapping[str, Any], *, unit: str = "") -> list[str]:
    """One list item per public privacy statement (key ``<mechanism>/<epsilon>``, or
    ``<problem>: <mechanism>/<epsilon>``): its document-level bound, epsilon read ``unit``
    (e.g. ``" per word"``); a rate-swept baseline's value is its rate.

    >>> statement_lines({"p1: random-sub/0.5": {"document_bound": "none"}})
    ['- p1: random-sub, rate 0.5: none']
    """
    lines = []
    for key, statement in statements.items():
        name, eps = key.split("/", 1)
        mechanism = name.rsplit(": ", 1)[-1]  # a pooled key may name its problem first
        rated = mechanism in mechanism_names() and sweeps_rate(mechanism)
        where = f"rate {eps}" if rated else f"epsilon {eps}{unit}"
        lines.append(f"- {name}, {where}: {statement.get('document_bound', '')}")
    return lines
