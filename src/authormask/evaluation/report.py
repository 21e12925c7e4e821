"""The report writer of the evaluations, and the reports of a sweep: JSON, a Markdown and a CSV
table in the layout of Fernandes et al. (2019) Table 1, and a PNG plot of accuracy against
epsilon, and the privacy-utility frontier (frontier.png: strongest attacker against utility, one
curve per mechanism; :mod:`authormask.evaluation.frontier`) with, on request, the recommended
epsilon per mechanism, and report.html: all of it on one self-contained page
(:mod:`authormask.evaluation.html_report`). Every report (the sweep's here, Bo et al.'s in
:mod:`authormask.evaluation.protocols.bo2021`) is written by :func:`write_report_files`: atomically
(:mod:`authormask._io`), never over existing reports unless asked."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from authormask._io import atomic_path, write_atomic
from authormask.evaluation.frontier import (
    FrontierPoint,
    Recommendation,
    frontier,
    frontier_dict,
    frontier_utilities,
    recommend,
)
from authormask.evaluation.html_report import HTML_FILE, report_html
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols.fernandes2019 import Cell, SweepResult
from authormask.exceptions import InputError

__all__ = [
    "FRONTIER_FILE",
    "REPORT_FILES",
    "check_output_dir",
    "frontier_png",
    "plot_png",
    "png_bytes",
    "recommendation_text",
    "run_html",
    "to_csv",
    "to_dict",
    "to_markdown",
    "write_plot",
    "write_report_files",
    "write_reports",
]

REPORT_FILES = ("results.json", "table.md", "table.csv", "plot.png", HTML_FILE)
#: the frontier plot, written beside them when the sweep has attackers and a frontier utility
FRONTIER_FILE = "frontier.png"

_LABELS = {
    "koppel-cosine": "Koppel (cosine)",
    "koppel-minmax": "Koppel (min-max)",
    "svm": "PAN18 SVM",
    "pan-baseline": "PAN19 baseline",
    "typed-svm": "typed 3-grams SVM",
    "typed-lr": "typed 3-grams LR",
    "minilm-lr": "MiniLM LR",
    "1nn-emd": "1-NN EMD",
    "fasttext": "fastText topic",
    "5nn-emd": "5-NN EMD topic",
    "similarity": "MiniLM similarity",
}


def _label(measure: str) -> str:
    if measure.startswith("adaptive-"):
        return "adaptive " + _LABELS.get(measure.removeprefix("adaptive-"), measure)
    return _LABELS.get(measure, measure)


def _eps(e: float | None) -> str:
    return "none" if e is None else f"{e:g}"


def _ordered_eps(result: SweepResult) -> list[float | None]:
    eps = list(result.config.epsilons)
    return sorted(eps, key=lambda e: (e is not None, -(e or 0.0)))


def _summary(cells: list[Cell]) -> tuple[float, float, float | None, float | None, int]:
    values = np.array([c.value for c in cells])
    counts = [c.correct for c in cells if c.correct is not None]
    mean_count = float(np.mean(counts)) if counts else None
    sd_count = float(np.std(counts, ddof=1)) if len(counts) > 1 else None
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return float(np.mean(values)), sd, mean_count, sd_count, cells[0].total


def _interval(correct: int, total: int) -> str:
    i = wilson_interval(correct, total)
    return f"95% {i.low:.0%}-{i.high:.0%}"


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
        f"({best['accuracy']:.0%}; 95% {low:.0%}-{high:.0%})"
    )


def to_markdown(result: SweepResult, *, target_accuracy: float | None = None) -> str:
    """One table per mechanism: rows = epsilon (none first), columns = measures, counts
    correct; then the frontier (where the sweep has one) and, with ``target_accuracy``, the
    recommended epsilon per mechanism (:func:`~authormask.evaluation.frontier.recommend`)."""
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
        f"(this run: {result.seconds:.0f} s; cached cells keep their first time).",
        "",
    ]
    for mechanism in cfg.mechanisms:
        lines.append(f"## {mechanism}")
        lines.append("")
        header = ["epsilon", *(_label(m) for m in cfg.measures)]
        if cfg.attackers:
            header.append("strongest attacker")
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "---|" * len(header))
        for eps in _ordered_eps(result):
            row = [_eps(eps)]
            for m in cfg.measures:
                cells = result.cell(mechanism, eps, m)
                row.append(_format(cells) if cells else "")
            if cfg.attackers:
                row.append(_strongest(result.strongest(mechanism, eps)))
            lines.append("| " + " | ".join(row) + " |")
        chance = ["random guess"]
        for m in cfg.measures:
            task = "topic" if m in ("fasttext", "5nn-emd") else "author"
            base = result.baselines.get(task) if m != "similarity" else None
            total = result.study["queries"]
            chance.append(f"{base:.1f}/{total} ({base / total:.0%})" if base is not None else "")
        if cfg.attackers:
            base = result.baselines.get("author")
            total = result.study["queries"]
            chance.append(f"{base:.1f}/{total} ({base / total:.0%})" if base is not None else "")
        lines.append("| " + " | ".join(chance) + " |")
        lines.append("")
    if result.statements:
        lines.append(
            "Privacy of every released snippet (one public statement per mechanism and epsilon, "
            "the same for every snippet; full statements in results.json):"
        )
        lines.append("")
        for key, statement in result.statements.items():
            name, eps_text = key.split("/", 1)
            bound = statement.get("document_bound", "")
            lines.append(f"- {name}, epsilon {eps_text} per word: {bound}")
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
    if recommendations:
        lines += ["", *_recommendation_lines(recommendations)]
    return "\n".join(lines) + "\n"


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
    """The recommendation section of :func:`to_markdown` on its own."""
    return "\n".join(_recommendation_lines(recommend(result, target_accuracy))) + "\n"


def to_dict(result: SweepResult, *, target_accuracy: float | None = None) -> dict[str, Any]:
    """results.json: :meth:`SweepResult.to_dict`, the frontier (utility measure -> mechanism
    -> points; ``{}`` without one) and, with ``target_accuracy``, the recommendations."""
    data = result.to_dict()
    data["frontier"] = frontier_dict(result)
    if target_accuracy is not None:
        data["recommendation"] = [r.to_dict() for r in recommend(result, target_accuracy)]
    return data


def to_csv(result: SweepResult) -> str:
    """Long format: one row per cell."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
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
        ]
    )
    for c in result.cells:
        writer.writerow(
            [
                c.mechanism,
                _eps(c.epsilon),
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
        )
    return buf.getvalue()


def mechanism_panels(n: int) -> tuple[Any, Any, list[str]]:
    """A figure of ``n`` side-by-side panels (one per mechanism, a shared y axis), its axes and
    the colour cycle (matplotlib's Agg backend: no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, n, figsize=(6.0 * n, 4.2), squeeze=False, sharey=True)
    colours: list[str] = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return fig, axes[0], colours


def png_bytes(fig: Any) -> bytes:
    """A matplotlib figure as PNG bytes (120 dpi); the figure is closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=120)
    finally:
        plt.close(fig)
    return buf.getvalue()


def write_plot(result: SweepResult, path: Path) -> None:
    """Write :func:`plot_png` to ``path`` (atomically)."""
    write_report_files(Path(path).parent, {Path(path).name: plot_png(result)}, force=True)


def plot_png(result: SweepResult) -> bytes:
    """Accuracy (and similarity) against epsilon, one panel per mechanism; dashed = unmodified,
    dotted grey = random guess."""
    cfg = result.config
    numeric = sorted(e for e in cfg.epsilons if e is not None)
    fig, axes, colours = mechanism_panels(len(cfg.mechanisms))
    for ax, mechanism in zip(axes, cfg.mechanisms, strict=True):
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
        if numeric and numeric[-1] / max(numeric[0], 1e-12) > 20:
            ax.set_xscale("log")
        ax.set_xlabel("epsilon (per word)")
        ax.set_title(mechanism)
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy / similarity (dashed: unmodified)")
    axes[-1].legend(fontsize=8, loc="best")
    fig.tight_layout()
    return png_bytes(fig)


def _frontier_curve(ax: Any, points: list[FrontierPoint], colour: str, label: str) -> None:
    xs = np.array([p.utility for p in points])
    ys = np.array([p.strongest_accuracy for p in points])
    yerr = np.array([[y - p.low for y, p in zip(ys, points, strict=True)],
                     [p.high - y for y, p in zip(ys, points, strict=True)]])  # fmt: skip
    xerr = None
    if all(p.utility_low is not None and p.utility_high is not None for p in points):
        xerr = np.array(
            [
                [x - float(p.utility_low or 0.0) for x, p in zip(xs, points, strict=True)],
                [float(p.utility_high or 0.0) - x for x, p in zip(xs, points, strict=True)],
            ]
        )
    ax.errorbar(
        xs, ys, xerr=xerr, yerr=yerr, marker="o", color=colour, label=label, capsize=3,
        elinewidth=0.9,
    )  # fmt: skip
    for x, y, p in zip(xs, ys, points, strict=True):
        ax.annotate(
            _eps(p.epsilon),
            (x, y),
            textcoords="offset points",
            xytext=(5, 5),
            fontsize=8,
            color=colour,
        )


def frontier_png(result: SweepResult, *, target_accuracy: float | None = None) -> bytes:
    """The privacy-utility frontier: strongest-attacker accuracy (Wilson 95% error bars)
    against each frontier utility (one panel each: MiniLM similarity, fastText topic
    accuracy, with its interval or spread over repetitions), one curve per mechanism, each
    point labelled with its epsilon ("none": unmodified); dotted grey = chance, dashed red =
    ``target_accuracy`` if given. Raises ``InvalidParameterError`` without attackers or a
    frontier utility."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    utilities = frontier_utilities(result)
    if not utilities:
        frontier(result, "similarity")  # raises, saying what is missing
    fig, axes = plt.subplots(
        1, len(utilities), figsize=(6.0 * len(utilities), 4.6), squeeze=False, sharey=True
    )
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    chance = result.baselines.get("author")
    for ax, utility in zip(axes[0], utilities, strict=True):
        for i, (mechanism, points) in enumerate(frontier(result, utility).items()):
            if points:
                _frontier_curve(ax, points, colours[i % len(colours)], mechanism)
        if chance is not None:
            rate = chance / result.study["queries"]
            ax.axhline(rate, color="grey", linestyle=":", linewidth=1.0)
            ax.text(0.99, rate, "chance", fontsize=7, color="grey", va="bottom", ha="right",
                    transform=ax.get_yaxis_transform())  # fmt: skip
        if target_accuracy is not None:
            ax.axhline(target_accuracy, color="tab:red", linestyle="--", linewidth=0.9)
            ax.text(0.01, target_accuracy, f"target {target_accuracy:.0%}", fontsize=7,
                    color="tab:red", va="bottom", transform=ax.get_yaxis_transform())  # fmt: skip
        ax.set_xlabel(_label(utility) + " (better →)")
        ax.set_title(f"privacy-utility frontier: {_label(utility)}")
        ax.set_ylim(0, 1.05)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("strongest-attacker accuracy (95% Wilson)")
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.tight_layout()
    return png_bytes(fig)


def check_output_dir(folder: Path, *, force: bool) -> None:
    """Refuse a folder that already holds reports, unless ``force``."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"output {folder} exists and is not a folder")
    existing = [n for n in (*REPORT_FILES, FRONTIER_FILE) if (folder / n).exists()]
    if existing and not force:
        raise InputError(f"{folder} already holds {', '.join(existing)}; use --force to overwrite")


def write_report_files(
    folder: str | Path, files: Mapping[str, str | bytes], *, force: bool = False
) -> list[Path]:
    """Write ``files`` (name -> text or bytes) into ``folder``, refusing existing reports
    unless ``force`` (:func:`check_output_dir`) and never replacing a link, folder, FIFO or
    device.

    Everything is rendered before this is called; every file is written to a temporary name
    beside its target and renamed only once all are written, so an error leaves no
    half-written report.
    """
    out = Path(folder)
    check_output_dir(out, force=force)
    texts = {out / name: data for name, data in files.items() if isinstance(data, str)}
    with ExitStack() as stack:
        for name, data in files.items():
            if isinstance(data, bytes):
                tmp = stack.enter_context(atomic_path(out / name, force=True))
                tmp.write_bytes(data)
        write_atomic(texts, force=True)
    return [out / name for name in files]


def run_html(
    files: Mapping[str, str | bytes],
    config: Mapping[str, Any],
    statements: Mapping[str, Any],
    *,
    title: str | None = None,
) -> str:
    """report.html of a run whose other report ``files`` (name -> text or bytes; table.md and
    the PNGs) are rendered: ``title`` (default: table.md's ``# `` heading), ``config``, the
    tables, every PNG embedded and the ``statements``
    (:func:`~authormask.evaluation.html_report.report_html`)."""
    markdown = str(files.get("table.md", ""))
    if title is None:
        first = markdown.splitlines()[0] if markdown else ""
        title = first.removeprefix("# ") if first.startswith("# ") else "authormask evaluate"
    images = {n: d for n, d in files.items() if isinstance(d, bytes) and n.endswith(".png")}
    return report_html(
        title=title, markdown=markdown, config=config, images=images, statements=statements
    )


def write_reports(
    result: SweepResult,
    folder: str | Path,
    *,
    force: bool = False,
    target_accuracy: float | None = None,
) -> list[Path]:
    """Write results.json, table.md, table.csv, plot.png and report.html into ``folder``
    (:func:`write_report_files`), and frontier.png where the sweep has attackers and a
    frontier utility; with ``target_accuracy`` the recommendation goes into table.md and
    results.json. A frontier.png left by an earlier report in ``folder`` is removed when this
    sweep has no frontier (it would describe another sweep)."""
    files: dict[str, str | bytes] = {
        "results.json": json.dumps(to_dict(result, target_accuracy=target_accuracy), indent=2)
        + "\n",
        "table.md": to_markdown(result, target_accuracy=target_accuracy),
        "table.csv": to_csv(result),
        "plot.png": plot_png(result),
    }
    if frontier_utilities(result):
        files[FRONTIER_FILE] = frontier_png(result, target_accuracy=target_accuracy)
    files[HTML_FILE] = run_html(
        files, {"protocol": "fernandes2019", **asdict(result.config)}, result.statements
    )
    paths = write_report_files(folder, files, force=force)
    stale = Path(folder) / FRONTIER_FILE
    if FRONTIER_FILE not in files and stale.is_file() and not stale.is_symlink():
        stale.unlink()
    return paths
