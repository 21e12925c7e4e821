"""The reports of the PAN protocol (:mod:`authormask.evaluation.protocols.pan`): PAN's macro-F1
per mechanism and epsilon (mean over problems) and per problem in table.md, one row per cell in
table.csv, macro-F1 against epsilon in plot.png, and report.html: all of it on one page."""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import numpy as np

from authormask.evaluation.protocols.pan import PanCell, PanResult
from authormask.evaluation.reports.files import run_files, write_report_files
from authormask.evaluation.reports.plots import epsilon_axis, panels, png_bytes
from authormask.evaluation.reports.tables import (
    csv_text,
    epsilon_text,
    interval_text,
    markdown_table,
    statement_lines,
    table_order,
)

__all__ = ["pan_csv", "pan_markdown", "pan_plot", "write_pan_reports"]


def _best_text(best: dict[str, Any]) -> str:
    low, high = best["wilson95"]
    return (
        f"{best['macro_f1']:.3f} {best['attacker']} (accuracy {best['correct']}/{best['total']}"
        f" = {best['accuracy']:.0%}, {interval_text(low, high)})"
    )


def pan_markdown(result: PanResult) -> str:
    """Mean macro-F1 over problems per mechanism and epsilon (one column per attacker, and the
    strongest attacker with its accuracy's Wilson interval), then every problem's macro-F1."""
    cfg = result.config
    problems = [p["name"] for p in result.collection["problems"]]
    epsilons = table_order(cfg.epsilons)
    lines = [
        f"# authormask evaluate --protocol pan: {result.collection['name']}",
        "",
        f"{len(problems)} problem(s), each scored on its own; seed {cfg.seed}; "
        f"{cfg.repetitions} repetition(s); {result.seconds:.0f} s. Values are PAN's macro-F1 "
        "(mean over problems); 'none' is the mechanism with its noise switched off.",
        "",
    ]
    for m in cfg.mechanisms:
        summary = [
            [
                epsilon_text(e),
                *(f"{result.mean_f1(m, e, a):.3f}" for a in cfg.attackers),
                _best_text(result.best(m, e)),
            ]
            for e in epsilons
        ]
        per_problem = [
            [
                p,
                epsilon_text(e),
                *(
                    f"{np.mean([c.macro_f1 for c in result.cells_of(m, e, a, p)]):.3f}"
                    for a in cfg.attackers
                ),
            ]
            for p in problems
            for e in epsilons
        ]
        lines += [f"## {m}", ""]
        lines += markdown_table(["epsilon", *cfg.attackers, "strongest attacker"], summary)
        lines += ["", f"Per problem ({m}):", ""]
        lines += markdown_table(["problem", "epsilon", *cfg.attackers], per_problem)
        lines.append("")
    if result.statements:
        lines.append("Privacy of every released text (full statements in results.json):")
        lines.append("")
        lines += statement_lines(result.statements)
        lines.append("")
    return "\n".join(lines) + "\n"


def pan_csv(result: PanResult) -> str:
    """One row per cell."""
    names = [f.name for f in fields(PanCell)]
    rows = []
    for c in result.cells:
        row = asdict(c)
        row["epsilon"] = epsilon_text(c.epsilon)
        rows.append([row[f] for f in names])
    return csv_text(names, rows)


def pan_plot(result: PanResult) -> bytes:
    """Mean macro-F1 against epsilon, one panel per mechanism; dashed = noise off; black =
    the strongest attacker."""
    cfg = result.config
    numeric = sorted(e for e in cfg.epsilons if e is not None)
    fig, axes, colours = panels(len(cfg.mechanisms))
    for ax, m in zip(axes, cfg.mechanisms, strict=True):
        for i, a in enumerate(cfg.attackers):
            colour = colours[i % len(colours)]
            if numeric:
                ax.plot(
                    numeric, [result.mean_f1(m, e, a) for e in numeric], marker="o",
                    color=colour, label=a,
                )  # fmt: skip
            if None in cfg.epsilons:
                ax.axhline(result.mean_f1(m, None, a), color=colour, linestyle="--", lw=0.8)
        if numeric:
            ax.plot(
                numeric, [result.best(m, e)["macro_f1"] for e in numeric], color="black",
                linewidth=2.0, label="strongest",
            )  # fmt: skip
        epsilon_axis(ax, numeric)
        ax.set_xlabel("epsilon")
        ax.set_title(m)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("PAN macro-F1, mean over problems (dashed: noise off)")
    axes[-1].legend(fontsize=8, loc="best")
    fig.tight_layout()
    return png_bytes(fig)


def write_pan_reports(result: PanResult, folder: str | Path, *, force: bool = False) -> list[Path]:
    """results.json, table.md, table.csv, plot.png and report.html in ``folder``."""
    files = run_files(
        results=result.to_dict(),
        markdown=pan_markdown(result),
        csv=pan_csv(result),
        figures={"plot.png": pan_plot(result)},
        config={"protocol": "pan", **asdict(result.config)},
        statements=result.statements,
    )
    return write_report_files(folder, files, force=force)
