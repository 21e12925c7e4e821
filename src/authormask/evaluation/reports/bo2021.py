"""The reports of a bo2021 evaluation (:mod:`authormask.evaluation.protocols.bo2021`): Table 1
of Bo et al. (2021) in table.md (per classifier its accuracy with a Wilson 95% interval, and
the strongest attacker's), one line per row and classifier in table.csv, Figure 2 in plot.png,
and report.html: all of it on one page. Written together by
:func:`~authormask.evaluation.reports.files.write_report_files`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from authormask.core import mechanism_spec
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols.bo2021.config import FASTTEXT_CHAR, label_of
from authormask.evaluation.protocols.bo2021.results import ReleaseResult, ReleaseRow
from authormask.evaluation.reports.files import write_report_files
from authormask.evaluation.reports.html import run_html
from authormask.evaluation.reports.plots import curve_colours, png_bytes

__all__ = [
    "release_csv",
    "release_markdown",
    "release_plot",
    "release_plot_png",
    "write_release_reports",
]


def _accuracy(correct: int, documents: int) -> str:
    iv = wilson_interval(correct, documents)
    return f"{correct / documents:.3f} [{iv.low:.3f}, {iv.high:.3f}] ({correct}/{documents})"


def _classifier_label(name: str) -> str:
    return "fastText char" if name == FASTTEXT_CHAR else name


def release_markdown(result: ReleaseResult) -> str:
    """Table 1 of Bo et al. for this corpus: per classifier its accuracy with a Wilson 95%
    interval and, on an author corpus, the strongest attacker's (the headline: the maximum
    over the classifiers, per row).

    Parameters
    ----------
    result
        The release comparison's result.

    Returns
    -------
    str
        table.md.
    """
    c = result.corpus
    attackers = list(result.rows[0].correct) if result.rows else []
    author = result.task == "author"
    arrow = "↓" if author else "↑"
    what = "authors" if author else "topics"
    lines = [
        f"{c['name']}: {c['test_documents']} released test documents of "
        f"{c.get('released_classes', c['classes'])} {what}; the classifiers choose among "
        f"{c['classes']} (chance {result.chance:.3f}), trained on {c['train_documents']} "
        "original documents. Accuracies with Wilson 95% intervals.",
        "",
    ]
    heads = [f"{_classifier_label(a)} {arrow}" for a in attackers]
    if author:
        heads.append("Strongest attacker ↓")
    else:
        heads = [f"Topic: {h}" for h in heads]
    lines += [
        "| Model | epsilon | unit | Similarity (MiniLM) ↑ | "
        + " | ".join(heads)
        + " | Stylometric ↑ |",
        "|---|---|---|---|" + "---|" * len(heads) + "---|",
    ]
    for r in result.rows:
        eps = "" if r.epsilon is None else f"{r.epsilon:g}"
        cells = [_accuracy(r.correct[a], r.documents) for a in attackers]
        if author:
            cells.append(f"**{_accuracy(r.best_correct, r.documents)}** {r.strongest}")
        lines.append(
            f"| {label_of(r.mechanism)} | {eps} | {r.epsilon_unit} | {r.similarity:.3f} "
            f"± {r.similarity_sd:.3f} | " + " | ".join(cells) + f" | {r.stylometric:.2f} "
            f"± {r.stylometric_sd:.2f} |"
        )
    return "\n".join(lines) + "\n"


def release_csv(result: ReleaseResult) -> str:
    """One line per row and classifier, then the strongest (``attacker`` = ``strongest``).

    Parameters
    ----------
    result
        The release comparison's result.

    Returns
    -------
    str
        table.csv.
    """
    import csv
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        [
            "mechanism",
            "epsilon",
            "epsilon_unit",
            "similarity",
            "similarity_sd",
            "attacker",
            "accuracy",
            "accuracy_low95",
            "accuracy_high95",
            "correct",
            "documents",
            "stylometric",
            "stylometric_sd",
            "tokens",
            "total_epsilon_mean",
            "seconds",
        ]
    )
    for r in result.rows:
        named = [(a, a, r.correct[a]) for a in r.correct]
        named.append(("strongest", r.strongest, r.best_correct))
        for shown, _, correct in named:
            iv = wilson_interval(correct, r.documents)
            w.writerow(
                [
                    r.mechanism,
                    "" if r.epsilon is None else r.epsilon,
                    r.epsilon_unit,
                    f"{r.similarity:.4f}",
                    f"{r.similarity_sd:.4f}",
                    shown,
                    f"{correct / r.documents:.4f}",
                    f"{iv.low:.4f}",
                    f"{iv.high:.4f}",
                    correct,
                    r.documents,
                    f"{r.stylometric:.3f}",
                    f"{r.stylometric_sd:.3f}",
                    r.tokens,
                    "" if r.total_epsilon_mean is None else f"{r.total_epsilon_mean:.1f}",
                    f"{r.seconds:.1f}",
                ]
            )
    return buf.getvalue()


def release_plot(result: ReleaseResult, path: Path) -> None:
    """Write :func:`release_plot_png` to ``path`` (atomically).

    Parameters
    ----------
    result
        The release comparison's result.
    path
        The PNG file to write.
    """
    write_report_files(Path(path).parent, {Path(path).name: release_plot_png(result)}, force=True)


def release_plot_png(result: ReleaseResult) -> bytes:
    """Figure 2 of Bo et al.: similarity, the strongest attacker's error rate (with its Wilson
    95% interval; topic accuracy on a corpus without authors) and stylometric change against
    epsilon, one line per mechanism; pure-DP mechanisms (per token) on the left axis scale,
    metric-DP ones (per word) dashed, since the two epsilons are not comparable.

    Parameters
    ----------
    result
        The release comparison's result.

    Returns
    -------
    bytes
        The PNG.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    author = result.task == "author"
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    panels: tuple[tuple[str, Callable[[ReleaseRow], float], bool], ...] = (
        ("similarity (MiniLM)", lambda r: r.similarity, False),
        (
            "strongest attacker's error rate" if author else "topic accuracy (best classifier)",
            (lambda r: 1.0 - r.best_accuracy) if author else (lambda r: r.best_accuracy),
            True,
        ),
        ("stylometric L2 change", lambda r: r.stylometric, False),
    )
    mechanisms = list(dict.fromkeys(r.mechanism for r in result.rows if r.epsilon))
    colours = curve_colours(len(mechanisms))
    for ax, (title, value, interval) in zip(axes, panels, strict=True):
        for mech, colour in zip(mechanisms, colours, strict=True):
            rows = sorted(
                (r for r in result.rows if r.mechanism == mech and r.epsilon),
                key=lambda r: float(r.epsilon or 0),
            )
            xs = [float(r.epsilon or 0) for r in rows]
            ys = [value(r) for r in rows]
            style = "--" if mechanism_spec(mech).privacy == "metric" else "-"
            ax.plot(xs, ys, marker="o", linestyle=style, color=colour, label=label_of(mech))
            if interval:
                ivs = [r.interval() for r in rows]
                lo = [1.0 - i.high if author else i.low for i in ivs]
                hi = [1.0 - i.low if author else i.high for i in ivs]
                ax.fill_between(xs, lo, hi, color=colour, alpha=0.15)
        flat = [r for r in result.rows if r.epsilon is None]
        for r, style in zip(flat, ("--", ":", "-."), strict=False):
            ax.axhline(
                value(r), color="grey", linestyle=style, linewidth=1, label=label_of(r.mechanism)
            )
        ax.set_xscale("log")
        ax.set_xlabel(
            "epsilon (solid: per token, pure DP; dashed: per word, metric DP)", fontsize=8
        )
        ax.set_title(title)
        ax.grid(alpha=0.3)
    if author:
        axes[1].axhline(
            1.0 - result.chance, color="black", linestyle="-.", linewidth=0.8, label="chance"
        )
    axes[0].legend(fontsize=7, loc="best")
    fig.tight_layout()
    return png_bytes(fig)


def write_release_reports(
    result: ReleaseResult, folder: str | Path, *, force: bool = False
) -> list[Path]:
    """results.json, table.md, table.csv, plot.png and report.html, written atomically
    together (:func:`authormask.evaluation.reports.write_report_files`).

    Parameters
    ----------
    result
        The release comparison's result.
    folder
        The output folder (created if missing).
    force
        Whether existing reports may be replaced.

    Returns
    -------
    list[Path]
        The paths written.
    """
    files: dict[str, str | bytes] = {
        "results.json": json.dumps(result.to_dict(), indent=2) + "\n",
        "table.md": release_markdown(result),
        "table.csv": release_csv(result),
        "plot.png": release_plot_png(result),
    }
    files["report.html"] = run_html(
        files,
        {"protocol": "bo2021", **result.config},
        result.statements,
        title=f"authormask evaluate --protocol bo2021: {result.corpus.get('name', '')}",
    )
    return write_report_files(folder, files, force=force)
