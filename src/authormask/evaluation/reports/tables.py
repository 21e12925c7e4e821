"""The text every report shares: how an epsilon (:func:`epsilon_text`) and an interval read, how
a pooled utility mean and its interval read, the order of a table's epsilon rows (and of a
mechanism's rows, :func:`row_order`), how a baseline swept over rates
(:func:`~authormask.evaluation.releases.sweeps_rate`) labels its rows, Markdown
pipe tables (and a cell's text made safe for one), CSV text and the list of privacy
statements. ``epsilon_text`` and ``row_order`` are the rows' own
(:mod:`~authormask.evaluation.protocols._grid`), shown here as every report reads them."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from authormask.core import mechanism_names
from authormask.evaluation.protocols._grid import epsilon_text, row_order
from authormask.evaluation.releases import sweeps_rate

__all__ = [
    "csv_text",
    "epsilon_text",
    "interval_text",
    "markdown_cell",
    "markdown_table",
    "point_text",
    "pooled_text",
    "row_order",
    "statement_lines",
    "sweep_label",
    "table_order",
]


def sweep_label(name: str) -> str:
    """What a row of ``name`` is labelled by: ``rate`` or ``epsilon``.

    Parameters
    ----------
    name
        The registered name of the mechanism.

    Returns
    -------
    str
        ``"rate"`` or ``"epsilon"``.
    """
    return "rate" if sweeps_rate(name) else "epsilon"


def point_text(name: str, value: float | None) -> str:
    """A row's label: ``rate 0.25`` for a rate-swept baseline, else the epsilon (``none``:
    noise off).

    Parameters
    ----------
    name
        The registered name of the mechanism.
    value
        The row's epsilon or rate, ``None`` for noise off.

    Returns
    -------
    str
        The label.

    Examples
    --------
    >>> point_text("random-sub", 0.25), point_text("emp-text", 10.0), point_text("tem", None)
    ('rate 0.25', '10', 'none')
    """
    if sweeps_rate(name):
        return "rate " + ("0" if value is None else f"{value:g}")
    return "none" if value is None else f"{value:g}"


def table_order(epsilons: Iterable[float | None]) -> list[float | None]:
    """The rows of a table: ``None`` first, then from the largest epsilon to the smallest.

    Parameters
    ----------
    epsilons
        The epsilons.

    Returns
    -------
    list[float | None]
        The epsilons, in order.

    Examples
    --------
    >>> table_order([2.0, None, 10.0])
    [None, 10.0, 2.0]
    """
    return sorted(epsilons, key=lambda e: (e is not None, -(e or 0.0)))


def interval_text(low: float, high: float) -> str:
    """A Wilson 95% interval as the tables show it.

    Parameters
    ----------
    low
        The interval's lower end.
    high
        The interval's upper end.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> interval_text(0.1, 0.35)
    '95% 10%-35%'
    """
    return f"95% {low:.0%}-{high:.0%}"


def pooled_text(pooled: Mapping[str, Any] | None, *, interval: bool = True) -> str:
    """A pooled utility mean (``mean``, ``low``, ``high``, ``texts``, as
    :func:`~authormask.evaluation.protocols.pan.pooled_mean` returns it) as the tables show
    it: with its 95% interval and texts (``interval``, from two texts on); ``""`` for ``None``.

    Parameters
    ----------
    pooled
        The pooled mean, or ``None``.
    interval
        Whether to show the interval and the texts.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> pooled_text({"mean": 0.5, "low": 0.45, "high": 0.55, "texts": 20})
    '0.500 (95% 0.450-0.550, 20 texts)'
    >>> pooled_text({"mean": 0.5, "low": 0.45, "high": 0.55, "texts": 20}, interval=False)
    '0.500'
    """
    if pooled is None:
        return ""
    if not interval or pooled["texts"] < 2:
        return f"{pooled['mean']:.3f}"
    return (
        f"{pooled['mean']:.3f} (95% {pooled['low']:.3f}-{pooled['high']:.3f}, "
        f"{pooled['texts']} texts)"
    )


def markdown_cell(text: str) -> str:
    r"""``text`` as one cell of a Markdown pipe table: on one line, its pipes escaped.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    str
        The cell.

    Examples
    --------
    >>> print(markdown_cell("a | b\n c"))
    a \| b c
    """
    return " ".join(text.split()).replace("|", "\\|")


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown pipe table.

    Parameters
    ----------
    header
        The column titles.
    rows
        The rows' cells.

    Returns
    -------
    list[str]
        The lines.

    Examples
    --------
    >>> markdown_table(["epsilon", "svm"], [["none", "3/8"]])
    ['| epsilon | svm |', '|---|---|', '| none | 3/8 |']
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """CSV with a header row, ``\\n`` line ends.

    Parameters
    ----------
    header
        The column titles.
    rows
        The rows' values.

    Returns
    -------
    str
        The CSV.
    """
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def statement_lines(statements: Mapping[str, Any], *, unit: str = "") -> list[str]:
    """One list item per public privacy statement (key ``<mechanism>/<epsilon>``, or
    ``<problem>: <mechanism>/<epsilon>``): its document-level bound, epsilon read ``unit``
    (e.g. ``" per word"``); a rate-swept baseline's value is its rate.

    Parameters
    ----------
    statements
        The statements by key.
    unit
        What epsilon is read per, appended to it.

    Returns
    -------
    list[str]
        The lines.

    Examples
    --------
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
