"""The figures every report shares: side-by-side panels, an epsilon axis, PNG bytes
(matplotlib's Agg backend: no display)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

__all__ = ["epsilon_axis", "panels", "png_bytes"]


def panels(n: int, *, height: float = 4.2) -> tuple[Any, Any, list[str]]:
    """A figure of ``n`` side-by-side panels (6 inches wide each, a shared y axis), its axes
    and the colour cycle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, n, figsize=(6.0 * n, height), squeeze=False, sharey=True)
    colours: list[str] = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return fig, axes[0], colours


def epsilon_axis(ax: Any, epsilons: Sequence[float]) -> None:
    """A log scale for ``epsilons`` (ascending) that span more than a factor of 20."""
    if epsilons and epsilons[-1] / max(epsilons[0], 1e-12) > 20:
        ax.set_xscale("log")


def png_bytes(fig: Any) -> bytes:
    """A matplotlib figure as PNG bytes (120 dpi); the figure is closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=120)
    finally:
        plt.close(fig)
    return buf.getvalue()
