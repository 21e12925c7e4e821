"""The text every report shares: how an epsilon and an interval read, how a pooled utility mean
and its interval read, the order of a table's epsilon rows, how a baseline swept over rates
labels its rows (:func:`sweeps_rate`), Markdown pipe tables (and a cell's text made safe for
one), CSV text, the list of privacy statements and the headline section of a sweep's or a PAN
run's report."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from authormask.evaluation.measures import measure
from authormask.release import mechanism_names, mechanism_spec

if TYPE_CHECKING:
    from authormask.evaluation.frontier import Headline

__all__ = [
    "csv_text",
    "epsilon_text",
    "headline_lines",
    "interval_text",
    "markdown_cell",
    "markdown_table",
    "point_text",
    "pooled_text",
    "rate_labelled",
    "row_order",
    "statement_lines",
    "sweep_label",
    "sweeps_rate",
    "table_order",
]


def sweeps_rate(name: str) -> bool:
    """Whether mechanism ``name`` is a baseline swept over rates instead of epsilons: its spec
    carries no privacy guarantee (``privacy`` None) and takes a ``rate`` (``random-sub``; not
    ``random-r``, which takes neither epsilon nor rate). Read from the registry spec.

    >>> sweeps_rate("random-sub"), sweeps_rate("random-r"), sweeps_rate("emp-text")
    (True, False, False)
    """
    spec = mechanism_spec(name)
    return spec.privacy is None and "rate" in spec.parameter_names


def sweep_label(name: str) -> str:
    """What a row of ``name`` is labelled by: ``rate`` or ``epsilon``."""
    return "rate" if sweeps_rate(name) else "epsilon"


def row_order(name: str, values: Sequence[float | None]) -> list[float | None]:
    """The rows of ``name`` in a table or along a frontier: rates from 0 up (from no change to
    every word replaced); epsilons with ``None`` first, then from the largest to the smallest.

    >>> row_order("random-sub", [1.0, 0.0, 0.5]), row_order("emp-text", [2.0, None, 10.0])
    ([0.0, 0.5, 1.0], [None, 10.0, 2.0])
    """
    if sweeps_rate(name):
        return sorted(values, key=lambda v: v or 0.0)
    return sorted(values, key=lambda e: (e is not None, -(e or 0.0)))


def rate_labelled(name: str, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (a results.json entry with an ``epsilon`` key) labelled by rate for a
    rate-swept baseline: ``rate`` holds the value and ``epsilon`` is ``None`` (it has none);
    any other mechanism's row as it is."""
    if not sweeps_rate(name) or "epsilon" not in row:
        return row
    return {**row, "epsilon": None, "rate": row["epsilon"]}


def point_text(name: str, value: float | None) -> str:
    """A row's label: ``rate 0.25`` for a rate-swept baseline, else the epsilon (``none``:
    noise off).

    >>> point_text("random-sub", 0.25), point_text("emp-text", 10.0), point_text("tem", None)
    ('rate 0.25', '10', 'none')
    """
    if sweeps_rate(name):
        return "rate " + ("0" if value is None else f"{value:g}")
    return "none" if value is None else f"{value:g}"


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


def pooled_text(pooled: Mapping[str, Any] | None, *, interval: bool = True) -> str:
    """A pooled utility mean (``mean``, ``low``, ``high``, ``texts``, as
    :func:`~authormask.evaluation.protocols.pan.pooled_mean` returns it) as the tables show
    it: with its 95% interval and texts (``interval``, from two texts on); ``""`` for ``None``.

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

    >>> print(markdown_cell("a | b\n c"))
    a \| b c
    """
    return " ".join(text.split()).replace("|", "\\|")


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


def headline_lines(heads: list[Headline]) -> list[str]:
    """The headline section of a report: one line per mechanism."""
    first = heads[0]
    utility = measure(first.utility_measure).label
    return [
        f"## Headline: where the strongest attacker comes within {first.margin * 100:.0f} "
        "points of chance",
        "",
        f"Per mechanism, the {utility} at which the strongest attacker's "
        f"Wilson 95% upper bound falls to chance + {first.margin * 100:.0f} points "
        f"({first.threshold:.0%}), interpolated linearly between the two frontier points that "
        "bracket it; the interval runs to where the lower bound crosses the same line; 'not "
        "reached' when no point measured gets there (under 'headline' in results.json).",
        "",
        *(f"- {h.describe()}" for h in heads),
    ]
