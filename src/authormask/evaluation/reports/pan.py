"""The reports of the PAN protocol (:mod:`authormask.evaluation.protocols.pan`): PAN's macro-F1
per mechanism and epsilon (mean over problems) and per problem in table.md, with the MiniLM
similarity of the released texts beside it, one row per cell in table.csv, macro-F1 and
similarity against epsilon in plot.png, the privacy-utility frontier in frontier.png (where the
run measured similarity), the recommended epsilon for a target accuracy on request, and
report.html: all of it on one page."""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from authormask.evaluation.frontier import (
    FrontierPoint,
    Recommendation,
    pan_frontier,
    pan_headlines,
    recommend_pan,
)
from authormask.evaluation.protocols.pan import PanCell, PanResult
from authormask.evaluation.reports.files import FRONTIER_FILE, run_files, write_run_reports
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
    headline_lines,
    interval_text,
    markdown_table,
    point_text,
    row_order,
    statement_lines,
    sweep_label,
    sweeps_rate,
)

__all__ = [
    "pan_csv",
    "pan_frontier_png",
    "pan_markdown",
    "pan_plot",
    "pan_results",
    "write_pan_reports",
]


def _best_text(best: dict[str, Any]) -> str:
    low, high = best["wilson95"]
    return (
        f"{best['macro_f1']:.3f} {best['attacker']} (accuracy {best['correct']}/{best['total']}"
        f" = {best['accuracy']:.0%}, {interval_text(low, high)})"
    )


def _accuracy_text(best: dict[str, Any]) -> str:
    low, high = best["wilson95"]
    return (
        f"{best['attacker']}: {best['correct']}/{best['total']} = {best['accuracy']:.0%} "
        f"({interval_text(low, high)})"
    )


def _similarity_text(sim: dict[str, Any] | None, *, interval: bool = True) -> str:
    if sim is None:
        return ""
    if not interval or sim["texts"] < 2:
        return f"{sim['mean']:.3f}"
    return f"{sim['mean']:.3f} (95% {sim['low']:.3f}-{sim['high']:.3f}, {sim['texts']} texts)"


def _measured_similarity(result: PanResult) -> bool:
    return "similarity" in result.config.utilities


def _has_frontier(result: PanResult) -> bool:
    return _measured_similarity(result) and bool(result.config.attackers)


def pan_markdown(result: PanResult, *, target_accuracy: float | None = None) -> str:
    """Mean macro-F1 over problems per mechanism and epsilon (one column per attacker, the
    strongest attacker by macro-F1, the most accurate attacker with its accuracy's Wilson
    interval, and the MiniLM similarity with its interval), then every problem's macro-F1 and
    similarity; the frontier and, with ``target_accuracy``, the recommended epsilon per
    mechanism (:func:`~authormask.evaluation.frontier.recommend_pan`)."""
    cfg = result.config
    recommendations = None if target_accuracy is None else recommend_pan(result, target_accuracy)
    sim = _measured_similarity(result)
    problems = [p["name"] for p in result.collection["problems"]]
    lines = [
        f"# authormask evaluate --protocol pan: {result.collection['name']}",
        "",
        f"{len(problems)} problem(s), each scored on its own; seed {cfg.seed}; "
        f"{cfg.repetitions} repetition(s); {result.seconds:.0f} s. Values are PAN's macro-F1 "
        "(mean over problems); 'none' is the mechanism with its noise switched off.",
        "",
    ]
    columns = [*cfg.attackers, "strongest attacker", "highest accuracy"]
    if sim:
        columns.append("MiniLM similarity")
    for m in cfg.mechanisms:
        header = [sweep_label(m), *columns]
        epsilons = row_order(m, cfg.points(m))
        summary = []
        for e in epsilons:
            row = [
                epsilon_text(e),
                *(f"{result.mean_f1(m, e, a):.3f}" for a in cfg.attackers),
                _best_text(result.best(m, e)),
                _accuracy_text(result.most_accurate(m, e)),
            ]
            if sim:
                row.append(_similarity_text(result.similarity(m, e)))
            summary.append(row)
        per_problem = []
        for p in problems:
            for e in epsilons:
                row = [
                    p,
                    epsilon_text(e),
                    *(
                        f"{np.mean([c.macro_f1 for c in result.cells_of(m, e, a, p)]):.3f}"
                        for a in cfg.attackers
                    ),
                ]
                if sim:
                    row.append(_similarity_text(result.similarity(m, e, p), interval=False))
                per_problem.append(row)
        lines += [f"## {m}", ""]
        lines += markdown_table(header, summary)
        lines += ["", f"Per problem ({m}):", ""]
        lines += markdown_table(
            ["problem", sweep_label(m), *cfg.attackers, *(["MiniLM similarity"] if sim else [])],
            per_problem,
        )
        lines.append("")
    lines.append(
        "The strongest attacker has the largest mean macro-F1; the highest accuracy is the most "
        "accurate attacker's over every unknown text of every problem (an answer of <UNK> is "
        "right for a text by none of the candidates), with its Wilson 95% interval; a uniform "
        f"guess among each problem's candidates scores {result.chance_accuracy:.0%}."
    )
    if sim:
        k = cfg.similarity_texts
        sample = "every unknown text" if k is None else f"{k} unknown texts per problem (fixed)"
        lines.append(
            "MiniLM similarity: mean cosine between each released unknown text and the original "
            f"text, over {sample}, with its 95% interval; at 'none' it shows what the "
            "mechanism's preparation alone changes."
        )
    lines.append("")
    if result.statements:
        lines.append("Privacy of every released text (full statements in results.json):")
        lines.append("")
        lines += statement_lines(result.statements)
        lines.append("")
    if _has_frontier(result):
        lines += ["## Privacy-utility frontier", "", f"![frontier]({FRONTIER_FILE})", ""]
        lines.append(
            "The strongest attacker's mean macro-F1 and the most accurate attacker's accuracy "
            "(Wilson 95%) against MiniLM similarity (95% interval), one curve per mechanism, "
            "each point labelled with its epsilon; the data is under 'frontier' in results.json."
        )
        lines.append("")
    heads = pan_headlines(result)
    if heads:
        lines += [*headline_lines(heads), ""]
    if recommendations:
        lines += [*_recommendation_lines(recommendations), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _recommendation_lines(recommendations: list[Recommendation]) -> list[str]:
    first = recommendations[0]
    return [
        f"## Recommended epsilon: attacker accuracy at or below {first.target_accuracy:.0%}",
        "",
        "Per mechanism, the epsilon with the best MiniLM similarity among those whose most "
        "accurate attacker's Wilson 95% upper bound (over every unknown text of every problem, "
        "not its point estimate) is at or below the target; the noise-off row is never "
        "recommended.",
        "",
        *(f"- {r.describe()}" for r in recommendations),
    ]


def pan_results(result: PanResult, *, target_accuracy: float | None = None) -> dict[str, Any]:
    """results.json: :meth:`PanResult.to_dict`, the frontier (``{"similarity": mechanism ->
    points}``; ``{}`` without similarity) and, with ``target_accuracy``, the recommendations."""
    data = result.to_dict()
    data["frontier"] = (
        {
            "similarity": {
                m: [p.to_dict() for p in points] for m, points in pan_frontier(result).items()
            }
        }
        if _has_frontier(result)
        else {}
    )
    data["headline"] = [h.to_dict() for h in pan_headlines(result)]
    if target_accuracy is not None:
        data["recommendation"] = [r.to_dict() for r in recommend_pan(result, target_accuracy)]
    return data


def pan_csv(result: PanResult) -> str:
    """One row per cell: the attackers' cells, then the similarity cells (``attacker`` =
    ``similarity``, ``macro_f1`` = its mean, ``total`` = the texts it read)."""
    names = [f.name for f in fields(PanCell)]
    rows = []
    for c in result.cells:
        row = asdict(c)
        row["epsilon"] = epsilon_text(c.epsilon)
        rows.append([row[f] for f in names])
    for u in result.utilities:
        row = {f: "" for f in names}
        row.update(
            problem=u.problem,
            mechanism=u.mechanism,
            epsilon=epsilon_text(u.epsilon),
            repetition=u.repetition,
            attacker=u.measure,
            macro_f1=f"{u.mean:.6f}",
            total=u.texts,
            seconds=f"{u.seconds:.3f}",
        )
        rows.append([row[f] for f in names])
    return csv_text(names, rows)


def pan_plot(result: PanResult) -> bytes:
    """Mean macro-F1 against epsilon, one panel per mechanism; dashed = noise off; black =
    the strongest attacker; grey dash-dot = MiniLM similarity (where measured)."""
    cfg = result.config
    fig, axes, colours = panels(len(cfg.mechanisms))
    for ax, m in zip(axes, cfg.mechanisms, strict=True):
        numeric = sorted(e for e in cfg.points(m) if e is not None)
        for i, a in enumerate(cfg.attackers):
            colour = colours[i % len(colours)]
            if numeric:
                ax.plot(
                    numeric, [result.mean_f1(m, e, a) for e in numeric], marker="o",
                    color=colour, label=a,
                )  # fmt: skip
            if None in cfg.points(m):
                ax.axhline(result.mean_f1(m, None, a), color=colour, linestyle="--", lw=0.8)
        if numeric:
            ax.plot(
                numeric, [result.best(m, e)["macro_f1"] for e in numeric], color="black",
                linewidth=2.0, label="strongest",
            )  # fmt: skip
        if _measured_similarity(result):
            sims = {e: result.similarity(m, e) for e in cfg.points(m)}
            if numeric:
                ax.plot(
                    numeric, [(sims[e] or {"mean": np.nan})["mean"] for e in numeric],
                    color="grey", linestyle="-.", marker="s", label="MiniLM similarity",
                )  # fmt: skip
            off = sims.get(None)
            if off is not None:
                ax.axhline(off["mean"], color="grey", linestyle="--", lw=0.8)
        if sweeps_rate(m):
            ax.set_xlabel("rate (no differential privacy)")
        else:
            epsilon_axis(ax, numeric)
            ax.set_xlabel("epsilon")
        ax.set_title(m)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("PAN macro-F1, mean over problems; similarity (dashed: noise off)")
    legend(axes[-1])
    fig.tight_layout()
    return png_bytes(fig)


def _curve(ax: Any, points: list[FrontierPoint], y: list[float], colour: str, mechanism: str,
           yerr: list[tuple[float, float]] | None) -> None:  # fmt: skip
    colour, style, label = curve_style(mechanism, colour)
    frontier_curve(
        ax,
        [p.utility for p in points],
        y,
        labels=[point_text(mechanism, p.epsilon) for p in points],
        linestyle=style,
        colour=colour,
        label=label,
        xerr=[
            (
                p.utility if p.utility_low is None else p.utility_low,
                p.utility if p.utility_high is None else p.utility_high,
            )
            for p in points
        ],
        yerr=yerr,
    )  # fmt: skip


def pan_frontier_png(result: PanResult, *, target_accuracy: float | None = None) -> bytes:
    """The privacy-utility frontier of a PAN run: against MiniLM similarity (with its 95%
    interval), the strongest attacker's mean macro-F1 (left) and the most accurate attacker's
    accuracy with its Wilson 95% interval (right), one curve per mechanism, each point labelled
    with its epsilon; dotted grey = a uniform guess's accuracy, dashed red = ``target_accuracy``
    if given. Raises ``InvalidParameterError`` when the run measured no similarity."""
    frontiers = pan_frontier(result)
    marks = {h.mechanism: h for h in pan_headlines(result)}
    fig, axes, colours = panels(2, height=4.6)
    f1_ax, acc_ax = axes
    for i, (mechanism, points) in enumerate(frontiers.items()):
        if not points:
            continue
        colour = colours[i % len(colours)]
        f1 = [result.best(mechanism, p.epsilon)["macro_f1"] for p in points]
        _curve(f1_ax, points, f1, colour, mechanism, None)
        accuracy = [p.strongest_accuracy for p in points]
        _curve(acc_ax, points, accuracy, colour, mechanism, [(p.low, p.high) for p in points])
        if mechanism in marks:
            headline_mark(acc_ax, marks[mechanism], curve_style(mechanism, colour)[0])
    hline(acc_ax, result.chance_accuracy, "uniform guess")
    if target_accuracy is not None:
        hline(
            acc_ax, target_accuracy, f"target {target_accuracy:.0%}", colour="tab:red",
            style="--", left=True,
        )  # fmt: skip
    f1_ax.set_ylabel("strongest attacker: PAN macro-F1 (mean over problems)")
    acc_ax.set_ylabel("most accurate attacker: accuracy (95% Wilson)")
    acc_ax.yaxis.set_tick_params(labelleft=True)
    for ax, title in ((f1_ax, "macro-F1"), (acc_ax, "accuracy")):
        ax.set_xlabel("MiniLM similarity to the original (better →)")
        ax.set_title(f"privacy-utility frontier: {title}")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    legend(acc_ax)
    fig.tight_layout()
    return png_bytes(fig)


def write_pan_reports(
    result: PanResult,
    folder: str | Path,
    *,
    force: bool = False,
    target_accuracy: float | None = None,
) -> list[Path]:
    """results.json, table.md, table.csv, plot.png, frontier.png (with attackers and
    similarity) and report.html in ``folder``; with ``target_accuracy`` the recommendation goes
    into table.md and results.json. A frontier.png left by an earlier report is removed when
    this run has no frontier."""
    figures = {"plot.png": pan_plot(result)}
    if _has_frontier(result):
        figures[FRONTIER_FILE] = pan_frontier_png(result, target_accuracy=target_accuracy)
    files = run_files(
        results=pan_results(result, target_accuracy=target_accuracy),
        markdown=pan_markdown(result, target_accuracy=target_accuracy),
        csv=pan_csv(result),
        figures=figures,
        config={"protocol": "pan", **asdict(result.config)},
        statements=result.statements,
    )
    return write_run_reports(folder, files, force=force)
