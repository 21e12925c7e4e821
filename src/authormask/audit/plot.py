"""A picture of an audit: stated epsilon beside the empirical lower bound, case by case."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from authormask._io import atomic_path
from authormask.audit.core import AuditResult

__all__ = ["plot_audit"]


def plot_audit(results: Sequence[AuditResult], path: str | Path, *, force: bool = True) -> Path:
    """Draw stated epsilon vs the lower bound of every case as horizontal bars (PNG at ``path``,
    written atomically; an existing file is replaced only if ``force``, never a link or folder).

    matplotlib is imported here only, with the non-interactive Agg backend.

    Parameters
    ----------
    results
        The audited cases, drawn in this order from the top.
    path
        The PNG file to write.
    force
        Whether an existing file may be replaced.

    Returns
    -------
    Path
        ``path``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(path)
    labels = [f"{r.mechanism} / {r.case}" for r in results]
    height = 0.38
    fig, ax = plt.subplots(figsize=(8.0, 1.6 + 0.45 * max(len(results), 1)))
    try:
        ys = list(range(len(results)))
        ax.barh(
            [y + height / 2 for y in ys],
            [r.epsilon_stated for r in results],
            height=height,
            color="#9ecae1",
            label="stated epsilon",
        )
        ax.barh(
            [y - height / 2 for y in ys],
            [r.epsilon_lower_bound for r in results],
            height=height,
            color=["#31a354" if r.passed else "#de2d26" for r in results],
            label="empirical lower bound (red: exceeds the statement)",
        )
        for y, r in zip(ys, results, strict=True):
            ax.text(
                r.epsilon_lower_bound,
                y - height / 2,
                f" {r.epsilon_lower_bound:.3g}",
                va="center",
                fontsize=7,
            )
            ax.text(
                r.epsilon_stated,
                y + height / 2,
                f" {r.epsilon_stated:.3g}",
                va="center",
                fontsize=7,
            )
        ax.set_yticks(ys)
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel("epsilon between the two neighbouring inputs (symlog scale)")
        conf = min((r.confidence for r in results), default=0.95)
        ax.set_title(
            f"Privacy audit: Clopper-Pearson lower bounds (each case at {100 * conf:.3g}%)",
            fontsize=10,
        )
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
        fig.tight_layout()
        png = io.BytesIO()
        fig.savefig(png, format="png", dpi=120)
    finally:
        plt.close(fig)
    with atomic_path(out, force=force) as tmp:
        tmp.write_bytes(png.getvalue())
    return out
