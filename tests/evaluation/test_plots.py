"""Where a plot's legend goes (issue 32: the ``--quick`` plot's legend of a dozen attackers
covered the curves)."""

from __future__ import annotations

from typing import Any

import numpy as np

from authormask.evaluation.reports.plots import legend, panels


def _panel_of_curves(n: int) -> tuple[Any, Any]:
    fig, axes, colours = panels(2)
    x = np.array([2.0, 5.0, 10.0])
    for ax in axes:
        for i in range(n):  # curves over the whole panel, as a sweep's attackers are
            ax.plot(x, 0.05 + 0.9 * i / n + 0.02 * x, color=colours[i % 10], label=f"a{i}")
        ax.set_ylim(0, 1.05)
    return fig, axes


def _overlap(a: Any, b: Any) -> float:
    """The area two display boxes share."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(w, 0.0) * max(h, 0.0)


def test_a_legend_of_many_curves_goes_beside_the_panel() -> None:
    import matplotlib.pyplot as plt

    fig, axes = _panel_of_curves(12)
    legend(axes[-1], outside=True)
    fig.tight_layout()
    fig.canvas.draw()
    box = axes[-1].get_legend().get_window_extent()
    assert _overlap(box, axes[-1].get_window_extent()) == 0.0
    # inside the figure: tight_layout narrowed the panels to make room
    assert box.x1 <= fig.bbox.x1 + 1
    # inside the panel ("best"), the same legend covers the curves
    inside, axes_in = _panel_of_curves(12)
    legend(axes_in[-1])
    inside.canvas.draw()
    box = axes_in[-1].get_legend().get_window_extent()
    assert _overlap(box, axes_in[-1].get_window_extent()) > 0.0
    plt.close("all")


def test_no_labelled_curve_no_legend() -> None:
    import matplotlib.pyplot as plt

    fig, axes, _ = panels(1)
    axes[0].plot([1, 2], [0.1, 0.2])
    legend(axes[0], outside=True)
    assert axes[0].get_legend() is None
    plt.close(fig)
