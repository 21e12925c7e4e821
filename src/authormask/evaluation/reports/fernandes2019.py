"""The reports of a fernandes2019 sweep: JSON, a Markdown and a CSV table in the layout of
Fernandes et al. (2019) Table 1, a PNG plot of accuracy against epsilon, and the
privacy-utility frontier (frontier.png: strongest attacker against utility, one curve per
mechanism; :mod:`authormask.evaluation.tradeoff`) with, on request, the recommended epsilon
per mechanism, and report.html: all of it on one self-contained page. Written together by
:func:`~authormask.evaluation.reports.files.write_report_files`."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from authormask.evaluation.measures import measure
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols.fernandes2019 import Cell, CollectionSweep, SweepResult
from authormask.evaluation.protocols.fernandes2019.config import STUDY_ENTITIES
from authormask.evaluation.releases import sweeps_rate
from authormask.evaluation.reports.files import (
    FRONTIER_FILE,
    REPORT_FILES,
    run_files,
    write_report_files,
    write_run_reports,
)
from authormask.evaluation.reports.headline import headline_lines
from authormask.evaluation.reports.plots import (
    curve_style,
    epsilon_axis,
    frontier_curve,
    headline_mark,
    hline,
    legend,
    panels,
    png_bytes,
)
from authormask.evaluation.reports.tables import (
    csv_text,
    epsilon_text,
    interval_text,
    markdown_table,
    point_text,
    row_order,
    statement_lines,
    sweep_label,
)
from authormask.evaluation.tradeoff import (
    FrontierPoint,
    Recommendation,
    frontier,
    frontier_dict,
    frontier_utilities,
    headlines,
    recommend,
)

__all__ = [
    "FRONTIER_FILE",
    "REPORT_FILES",
    "collection_csv",
    "collection_markdown",
    "collection_terminal",
    "frontier_png",
    "plot_png",
    "recommendation_text",
    "to_csv",
    "to_dict",
    "to_markdown",
    "to_terminal",
    "write_collection_reports",
    "write_plot",
    "write_reports",
]

#: what every table of the protocol says of entities (:data:`~authormask.evaluation.protocols.
#: fernandes2019.config.STUDY_ENTITIES`)
_ENTITIES_LINE = (
    f"Entities: {STUDY_ENTITIES} (names, numbers and links given to the mechanism like any "
    "word, not the user's default 'surrogate': a snippet holds exactly N content words, which "
    "surrogates outside the vocabulary would change)."
)


def _label(name: str) -> str:
    """A measure's column in the tables (its registry label)."""
    return measure(name).label


def _summary(cells: list[Cell]) -> tuple[float, float, float | None, float | None, int]:
    values = np.array([c.value for c in cells])
    counts = [c.correct for c in cells if c.correct is not None]
    mean_count = float(np.mean(counts)) if counts else None
    sd_count = float(np.std(counts, ddof=1)) if len(counts) > 1 else None
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return float(np.mean(values)), sd, mean_count, sd_count, cells[0].total


def _interval(correct: int, total: int) -> str:
    i = wilson_interval(correct, total)
    return interval_text(i.low, i.high)


def _format(cells: list[Cell]) -> str:
    mean, sd, count, sd_count, total = _summary(cells)
    if count is None:
        return f"{mean:.3f}" + (f" ± {sd:.3f}" if len(cells) > 1 else "")
    pooled = _interval(sum(int(c.correct or 0) for c in cells), sum(c.total for c in cells))
    if len(cells) > 1:
        return f"{count:.1f} ± {sd_count or 0:.1f} / {total} ({mean:.0%}; {pooled})"
    return f"{count:.0f}/{total} ({mean:.0%}; {pooled})"


def _strongest(best: dict[str, Any] | None) -> str:
    if best is None:
        return ""
    low, high = best["wilson95"]
    return (
        f"{_label(best['attacker'])}: {best['correct']}/{best['total']} "
        f"({best['accuracy']:.0%}; {interval_text(low, high)})"
    )


def _mechanism_tables(
    result: SweepResult, *, heading: str = "##", suffix: str = "", compact: bool = False
) -> list[str]:
    """One table per mechanism (rows = epsilon, none first; columns = measures; the strongest
    attacker; a random-guess row), each under ``<heading> <mechanism><suffix>``; ``compact``:
    the utilities and the strongest attacker only (a table a terminal shows)."""
    cfg = result.config
    shown = cfg.utilities if compact else cfg.measures
    columns = [_label(m) for m in shown]
    if cfg.attackers:
        columns.append("strongest attacker")
    # the chance row: what a random guess scores, per measure that labels (author or topic)
    tasks = [measure(m).task for m in shown] + (["author"] if cfg.attackers else [])
    total = result.study["queries"]
    chance = ["random guess"]
    for task in tasks:
        base = None if task is None else result.baselines.get(task)
        chance.append(f"{base:.1f}/{total} ({base / total:.0%})" if base is not None else "")
    lines: list[str] = []
    for mechanism in cfg.mechanisms:
        header = [sweep_label(mechanism), *columns]
        rows = []
        for eps in row_order(mechanism, cfg.points(mechanism)):
            row = [epsilon_text(eps)]
            for m in shown:
                cells = result.cell(mechanism, eps, m)
                row.append(_format(cells) if cells else "")
            if cfg.attackers:
                row.append(_strongest(result.strongest(mechanism, eps)))
            rows.append(row)
        lines += [f"{heading} {mechanism}{suffix}", "", *markdown_table(header, [*rows, chance])]
        lines.append("")
    return lines


def _closing_lines(result: SweepResult, recommendations: list[Recommendation] | None) -> list[str]:
    """The statements, the note on what the numbers are, the frontier and the recommendation."""
    lines: list[str] = []
    if result.statements:
        lines.append(
            "Privacy of every released snippet (one public statement per mechanism and epsilon, "
            "the same for every snippet; full statements in results.json):"
        )
        lines.append("")
        lines += statement_lines(result.statements, unit=" per word")
        lines.append("")
    lines.append(
        "Counts are correct predictions out of the snippets (accuracy and its Wilson 95% "
        "interval in brackets); the strongest attacker is the best of the attackers at each "
        "epsilon. 'none' is the mechanism with its noise switched off; attackers learn from "
        "known texts in the form of the texts they attack. Similarity is the mean MiniLM "
        "cosine between each released snippet and its noise-off release."
    )
    if frontier_utilities(result):
        lines += ["", "## Privacy-utility frontier", "", f"![frontier]({FRONTIER_FILE})", ""]
        lines.append(
            "Strongest-attacker accuracy (with its Wilson 95% interval) against "
            + " and ".join(_label(u) for u in frontier_utilities(result))
            + ", one curve per mechanism, each point labelled with its epsilon; the data is "
            "under 'frontier' in results.json."
        )
    heads = headlines(result)
    if heads:
        lines += ["", *headline_lines(heads)]
    if recommendations:
        lines += ["", *_recommendation_lines(recommendations)]
    return lines


def to_markdown(result: SweepResult, *, target_accuracy: float | None = None) -> str:
    """One table per mechanism: rows = epsilon (none first), columns = measures, counts
    correct; then the frontier (where the sweep has one) and, with ``target_accuracy``, the
    recommended epsilon per mechanism (:func:`~authormask.evaluation.tradeoff.recommend`).

    Parameters
    ----------
    result
        The sweep's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        table.md.
    """
    recommendations = None if target_accuracy is None else recommend(result, target_accuracy)
    cfg = result.config
    lines = [
        f"# authormask evaluate: {result.study.get('task')} study on "
        f"{result.study.get('corpus_name', '')}".rstrip(),
        "",
        f"{result.study['queries']} snippets of N={result.study['length_N']} content words, "
        f"{result.study['known_texts']} known texts; embeddings "
        f"{result.provenance['embeddings']['name']} "
        f"(K={result.provenance['embeddings']['vocab_size']}); seed {cfg.seed}; "
        f"{cfg.repetitions} repetition(s); {result.cell_seconds:.0f} s of measurement "
        f"(this run: {result.seconds:.0f} s; cached cells keep their first time). "
        f"{_ENTITIES_LINE}",
        "",
    ]
    lines += _mechanism_tables(result)
    lines += _closing_lines(result, recommendations)
    return "\n".join(lines) + "\n"


def collection_markdown(result: CollectionSweep, *, target_accuracy: float | None = None) -> str:
    """A PAN collection's sweep: the problems pooled first (one table per mechanism: counts
    summed over problems), then every problem's own tables, then the statements, the frontier
    (of the pooled counts) and, with ``target_accuracy``, the recommendation read on them.

    Parameters
    ----------
    result
        The collection's sweep.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        table.md.
    """
    pooled = result.pooled
    recommendations = None if target_accuracy is None else recommend(pooled, target_accuracy)
    cfg = pooled.config
    emb = pooled.provenance["embeddings"]
    problems = ", ".join(
        f"{r.study['problem']} ({r.study['authors']} candidates, {r.study['queries']} queries, "
        f"N={r.study['length_N']})"
        for r in result.problems
    )
    lines = [
        f"# authormask evaluate: author study per problem on {pooled.study['corpus_name']}",
        "",
        f"{len(result.problems)} PAN problem(s), each its own closed-set author study: the "
        "candidates' known texts (in pieces of N content words) train the attackers, every "
        "unknown text by a candidate is a query (its first N content words; texts by none of "
        f"the candidates are left out): {problems}. Embeddings {emb['name']} "
        f"(K={emb['vocab_size']}); seed {cfg.seed} (each problem its own, derived from it); "
        f"{cfg.repetitions} repetition(s); {pooled.cell_seconds:.0f} s of measurement. "
        f"{_ENTITIES_LINE}",
        "",
        f"## Pooled over {len(result.problems)} problems",
        "",
        "Correct answers and queries summed over problems (never one task over the union of "
        "their candidates); the random-guess row sums each problem's queries / candidates; "
        "similarity is the mean over every query.",
        "",
    ]
    lines += _mechanism_tables(pooled, heading="###", suffix=", pooled")
    for r in result.problems:
        lines += [f"## {r.study['problem']}", ""]
        lines += _mechanism_tables(r, heading="###", suffix=f", {r.study['problem']}")
    lines += _closing_lines(pooled, recommendations)
    return "\n".join(lines) + "\n"


def _terminal_closing(result: SweepResult, target_accuracy: float | None) -> list[str]:
    """What the terminal shows under the compact tables: the headline, the recommendation and
    where every attacker's column is."""
    lines: list[str] = []
    heads = headlines(result)
    if heads:
        lines += ["", *headline_lines(heads)]
    if target_accuracy is not None:
        lines += ["", *_recommendation_lines(recommend(result, target_accuracy))]
    attackers = len(result.config.attackers)
    lines += [
        "",
        f"Each attacker's own column ({attackers} attacker{'s' * (attackers != 1)}), the "
        "privacy statements and the frontier: table.md, results.json and report.html in the "
        "output folder.",
    ]
    return lines


def to_terminal(result: SweepResult, *, target_accuracy: float | None = None) -> str:
    """What ``evaluate`` prints for a sweep: per mechanism a table a terminal shows (epsilon,
    the utilities and the strongest attacker, a random-guess row), the headline and the
    recommendation; every attacker's own column is in :func:`to_markdown` (table.md).

    Parameters
    ----------
    result
        The sweep's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        The text.
    """
    lines = [
        f"# {result.study.get('task')} study on {result.study.get('corpus_name', '')}".rstrip(),
        "",
        f"{result.study['queries']} snippets of N={result.study['length_N']} content words; "
        f"seed {result.config.seed}; {result.seconds:.0f} s.",
        "",
    ]
    lines += _mechanism_tables(result, compact=True)
    lines += _terminal_closing(result, target_accuracy)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


def collection_terminal(result: CollectionSweep, *, target_accuracy: float | None = None) -> str:
    """What ``evaluate`` prints for a PAN collection's sweep: the pooled compact tables
    (:func:`to_terminal`'s); each problem's are in :func:`collection_markdown` (table.md).

    Parameters
    ----------
    result
        The collection's sweep.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    str
        The text.
    """
    pooled = result.pooled
    lines = [
        f"# author study per problem on {pooled.study['corpus_name']}",
        "",
        f"{len(result.problems)} PAN problem(s), pooled (each problem's tables: table.md).",
        "",
    ]
    lines += _mechanism_tables(pooled, suffix=", pooled", compact=True)
    lines += _terminal_closing(pooled, target_accuracy)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


def _recommendation_lines(recommendations: list[Recommendation]) -> list[str]:
    first = recommendations[0]
    return [
        f"## Recommended epsilon: strongest attacker at or below {first.target_accuracy:.0%}",
        "",
        "Per mechanism, the epsilon with the best "
        f"{_label(first.utility_measure)} among those whose strongest attacker's Wilson 95% "
        "upper bound (not its point estimate) is at or below the target; the unmodified row "
        "is never recommended.",
        "",
        *(f"- {r.describe()}" for r in recommendations),
    ]


def recommendation_text(result: SweepResult, target_accuracy: float) -> str:
    """The recommendation section of :func:`to_markdown` on its own.

    Parameters
    ----------
    result
        The sweep's result.
    target_accuracy
        The target attacker accuracy.

    Returns
    -------
    str
        The section.
    """
    return "\n".join(_recommendation_lines(recommend(result, target_accuracy))) + "\n"


def to_dict(result: SweepResult, *, target_accuracy: float | None = None) -> dict[str, Any]:
    """results.json: :meth:`SweepResult.to_dict`, the frontier (utility measure -> mechanism
    -> points; ``{}`` without one) and, with ``target_accuracy``, the recommendations.

    Parameters
    ----------
    result
        The sweep's result.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    dict[str, Any]
        results.json's object.
    """
    data = result.to_dict()
    data["frontier"] = frontier_dict(result)
    data["headline"] = [h.to_dict() for h in headlines(result)]
    if target_accuracy is not None:
        data["recommendation"] = [r.to_dict() for r in recommend(result, target_accuracy)]
    return data


#: the columns of table.csv
_CSV_FIELDS = (
    "mechanism",
    "epsilon",
    "repetition",
    "measure",
    "kind",
    "correct",
    "total",
    "value",
    "abstained",
    "seed",
    "seconds",
)


def _csv_row(c: Cell) -> list[Any]:
    return [
        c.mechanism,
        epsilon_text(c.epsilon),
        c.repetition,
        c.measure,
        c.kind,
        "" if c.correct is None else c.correct,
        c.total,
        f"{c.value:.6f}",
        c.abstained,
        "" if c.seed is None else c.seed,
        f"{c.seconds:.3f}",
    ]


def to_csv(result: SweepResult) -> str:
    """Long format: one row per cell.

    Parameters
    ----------
    result
        The sweep's result.

    Returns
    -------
    str
        table.csv.
    """
    return csv_text(_CSV_FIELDS, (_csv_row(c) for c in result.cells))


def collection_csv(result: CollectionSweep) -> str:
    """Long format with a ``problem`` column: every problem's cells, then the pooled ones
    (problem ``pooled``).

    Parameters
    ----------
    result
        The collection's sweep.

    Returns
    -------
    str
        table.csv.
    """
    rows = [[r.study["problem"], *_csv_row(c)] for r in result.problems for c in r.cells]
    rows += [["pooled", *_csv_row(c)] for c in result.pooled.cells]
    return csv_text(("problem", *_CSV_FIELDS), rows)


def write_plot(result: SweepResult, path: Path) -> None:
    """Write :func:`plot_png` to ``path`` (atomically).

    Parameters
    ----------
    result
        The sweep's result.
    path
        The PNG file to write.
    """
    write_report_files(Path(path).parent, {Path(path).name: plot_png(result)}, force=True)


def plot_png(result: SweepResult) -> bytes:
    """Accuracy (and similarity) against epsilon, one panel per mechanism; dashed = unmodified,
    dotted grey = random guess.

    Parameters
    ----------
    result
        The sweep's result.

    Returns
    -------
    bytes
        The PNG.
    """
    cfg = result.config
    fig, axes, colours = panels(len(cfg.mechanisms))
    for ax, mechanism in zip(axes, cfg.mechanisms, strict=True):
        numeric = sorted(e for e in cfg.points(mechanism) if e is not None)
        for i, m in enumerate(cfg.measures):
            colour = colours[i % len(colours)]
            if numeric:
                means = [_summary(result.cell(mechanism, e, m))[0] for e in numeric]
                sds = [_summary(result.cell(mechanism, e, m))[1] for e in numeric]
                ax.errorbar(
                    numeric, means, yerr=sds, marker="o", color=colour, label=_label(m), capsize=3
                )
            none = result.cell(mechanism, None, m)
            if none:
                ax.axhline(none[0].value, color=colour, linestyle="--", linewidth=0.8)
        if cfg.attackers and numeric:
            bests = [result.strongest(mechanism, e) for e in numeric]
            ax.plot(
                numeric, [b["accuracy"] if b else np.nan for b in bests], color="black",
                linewidth=2.2, label="strongest attacker",
            )  # fmt: skip
            ax.fill_between(
                numeric,
                [b["wilson95"][0] if b else np.nan for b in bests],
                [b["wilson95"][1] if b else np.nan for b in bests],
                color="black", alpha=0.12, linewidth=0, label="95% Wilson interval",
            )  # fmt: skip
        for task, base in result.baselines.items():
            ax.axhline(base / result.study["queries"], color="grey", linestyle=":", linewidth=1.0)
            ax.text(
                0.01,
                base / result.study["queries"],
                f"chance ({task})",
                fontsize=7,
                color="grey",
                va="bottom",
                transform=ax.get_yaxis_transform(),
            )
        if sweeps_rate(mechanism):
            ax.set_xlabel("rate (no differential privacy)")
        else:
            epsilon_axis(ax, numeric)
            ax.set_xlabel("epsilon (per word)")
        ax.set_title(mechanism)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy / similarity (dashed: unmodified)")
    legend(axes[-1], outside=True)
    fig.tight_layout()
    return png_bytes(fig)


def _frontier_curve(ax: Any, points: list[FrontierPoint], colour: str, mechanism: str) -> None:
    colour, style, label = curve_style(mechanism, colour)
    xerr = None
    if all(p.utility_low is not None and p.utility_high is not None for p in points):
        xerr = [(float(p.utility_low or 0.0), float(p.utility_high or 0.0)) for p in points]
    frontier_curve(
        ax,
        [p.utility for p in points],
        [p.strongest_accuracy for p in points],
        labels=[point_text(p.mechanism, p.epsilon) for p in points],
        colour=colour,
        label=label,
        xerr=xerr,
        yerr=[(p.low, p.high) for p in points],
        linestyle=style,
    )


def frontier_png(result: SweepResult, *, target_accuracy: float | None = None) -> bytes:
    """The privacy-utility frontier: strongest-attacker accuracy (Wilson 95% error bars)
    against each frontier utility (one panel each: MiniLM similarity, fastText topic
    accuracy, with its interval or spread over repetitions), one curve per mechanism, each
    point labelled with its epsilon ("none": unmodified); dotted grey = chance, dashed red =
    ``target_accuracy`` if given.

    Parameters
    ----------
    result
        The sweep's result.
    target_accuracy
        The target attacker accuracy to draw, or ``None``.

    Returns
    -------
    bytes
        The PNG.

    Raises
    ------
    InvalidParameterError
        If the sweep has no attackers or no frontier utility.
    """
    utilities = frontier_utilities(result)
    if not utilities:
        frontier(result, "similarity")  # raises, saying what is missing
    fig, axes, colours = panels(len(utilities), height=4.6)
    chance = result.baselines.get("author")
    for ax, utility in zip(axes, utilities, strict=True):
        marks = {h.mechanism: h for h in headlines(result)} if utility == utilities[0] else {}
        for i, (mechanism, points) in enumerate(frontier(result, utility).items()):
            colour = colours[i % len(colours)]
            if points:
                _frontier_curve(ax, points, colour, mechanism)
                if mechanism in marks:
                    headline_mark(ax, marks[mechanism], curve_style(mechanism, colour)[0])
        if chance is not None:
            hline(ax, chance / result.study["queries"], "chance")
        if target_accuracy is not None:
            hline(
                ax, target_accuracy, f"target {target_accuracy:.0%}", colour="tab:red",
                style="--", left=True,
            )  # fmt: skip
        ax.set_xlabel(_label(utility) + " (better →)")
        ax.set_title(f"privacy-utility frontier: {_label(utility)}")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("strongest-attacker accuracy (95% Wilson)")
    legend(axes[-1])
    fig.tight_layout()
    return png_bytes(fig)


def write_reports(
    result: SweepResult,
    folder: str | Path,
    *,
    force: bool = False,
    target_accuracy: float | None = None,
) -> list[Path]:
    """Write results.json, table.md, table.csv, plot.png and report.html into ``folder``
    (:func:`~authormask.evaluation.reports.files.write_report_files`), and frontier.png where
    the sweep has attackers and a frontier utility; with ``target_accuracy`` the
    recommendation goes into table.md and results.json. A frontier.png left by an earlier
    report in ``folder`` is removed when this sweep has no frontier (it would describe another
    sweep).

    Parameters
    ----------
    result
        The sweep's result.
    folder
        The output folder (created if missing).
    force
        Whether existing reports may be replaced.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    list[Path]
        The paths written.
    """
    figures = {"plot.png": plot_png(result)}
    if frontier_utilities(result):
        figures[FRONTIER_FILE] = frontier_png(result, target_accuracy=target_accuracy)
    files = run_files(
        results=to_dict(result, target_accuracy=target_accuracy),
        markdown=to_markdown(result, target_accuracy=target_accuracy),
        csv=to_csv(result),
        figures=figures,
        config={"protocol": "fernandes2019", **asdict(result.config)},
        statements=result.statements,
    )
    return write_run_reports(folder, files, force=force)


def write_collection_reports(
    result: CollectionSweep,
    folder: str | Path,
    *,
    force: bool = False,
    target_accuracy: float | None = None,
) -> list[Path]:
    """The reports of a PAN collection's sweep, in the files of :func:`write_reports`:
    results.json (the pooled result as :func:`to_dict` writes it, with ``collection`` and
    ``problems``: each problem's own), table.md (:func:`collection_markdown`), table.csv
    (:func:`collection_csv`), plot.png and frontier.png of the pooled counts, report.html.

    Parameters
    ----------
    result
        The collection's sweep.
    folder
        The output folder (created if missing).
    force
        Whether existing reports may be replaced.
    target_accuracy
        The target attacker accuracy of the recommendation, or ``None``.

    Returns
    -------
    list[Path]
        The paths written.
    """
    pooled = result.pooled
    figures = {"plot.png": plot_png(pooled)}
    if frontier_utilities(pooled):
        figures[FRONTIER_FILE] = frontier_png(pooled, target_accuracy=target_accuracy)
    data = to_dict(pooled, target_accuracy=target_accuracy)
    data["collection"] = result.collection
    data["problems"] = {str(r.study["problem"]): to_dict(r) for r in result.problems}
    files = run_files(
        results=data,
        markdown=collection_markdown(result, target_accuracy=target_accuracy),
        csv=collection_csv(result),
        figures=figures,
        config={"protocol": "fernandes2019", "dataset": "PAN collection", **asdict(pooled.config)},
        statements=pooled.statements,
    )
    return write_run_reports(folder, files, force=force)
