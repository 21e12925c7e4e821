"""The figures every report shares: side-by-side panels (or a grid of them), an epsilon axis, a
frontier curve (points labelled with their epsilon, error bars both ways), a labelled
horizontal line (chance, a target) or vertical line (a utility's floor), a legend only where
something is labelled, PNG bytes (matplotlib's Agg backend: no display)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any, Literal

from authormask.exceptions import InvalidParameterError

__all__ = [
    "CURVE_PALETTE",
    "curve_colours",
    "curve_style",
    "epsilon_axis",
    "frontier_curve",
    "headline_mark",
    "hline",
    "legend",
    "panel_grid",
    "panels",
    "png_bytes",
    "vline",
]


#: the curves' colours (:func:`curve_colours`): matplotlib's default cycle, tab10 (so a plot of
#: up to 10 curves looks as it did with the default cycle), then Dark2's 8 colours; 18 distinct
CURVE_PALETTE: tuple[str, ...] = (
    # tab10
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    # Dark2
    "#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666",
)  # fmt: skip


def curve_colours(n: int) -> list[str]:
    """The colours of ``n`` curves, as hex strings: all distinct for ``n`` up to 18
    (:data:`CURVE_PALETTE`: tab10, then Dark2), cycling through them beyond (matplotlib's
    default cycle repeats after 10, so an eleventh curve would share the first's colour).

    Parameters
    ----------
    n
        The number of curves (an integer >= 0).

    Returns
    -------
    list[str]
        One colour per curve.

    Raises
    ------
    InvalidParameterError
        If ``n`` is not an integer >= 0.

    Examples
    --------
    >>> curve_colours(3)
    ['#1f77b4', '#ff7f0e', '#2ca02c']
    >>> curve_colours(19)[18] == curve_colours(1)[0]
    True
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidParameterError(f"the number of curves must be an integer >= 0, got {n!r}")
    return [CURVE_PALETTE[i % len(CURVE_PALETTE)] for i in range(n)]


def panels(n: int, *, height: float = 4.2) -> tuple[Any, Any, list[str]]:
    """A figure of ``n`` side-by-side panels (6 inches wide each, a shared y axis), its axes
    and the curves' colours (:data:`CURVE_PALETTE`; curve ``i`` takes colour
    ``i % len(colours)``).

    Parameters
    ----------
    n
        The number of panels.
    height
        The figure's height in inches.

    Returns
    -------
    tuple[Any, Any, list[str]]
        The figure, its ``n`` axes and the colours.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, n, figsize=(6.0 * n, height), squeeze=False, sharey=True)
    return fig, axes[0], curve_colours(len(CURVE_PALETTE))


def panel_grid(
    rows: int,
    cols: int,
    *,
    height: float = 4.2,
    sharey: bool | Literal["none", "all", "row", "col"] = True,
) -> tuple[Any, Any, list[str]]:
    """A figure of ``rows`` x ``cols`` panels (6 inches wide and ``height`` high each), its
    axes as a ``rows`` x ``cols`` array, and the curves' colours (as :func:`panels`); ``sharey``
    as matplotlib's (``"row"``: one y axis per row).

    Parameters
    ----------
    rows
        The number of rows of panels.
    cols
        The number of columns.
    height
        Each panel's height in inches.
    sharey
        Which panels share a y axis, as matplotlib's ``sharey``.

    Returns
    -------
    tuple[Any, Any, list[str]]
        The figure, its axes and the colours.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(
        rows, cols, figsize=(6.0 * cols, height * rows), squeeze=False, sharey=sharey
    )
    return fig, axes, curve_colours(len(CURVE_PALETTE))


def epsilon_axis(ax: Any, epsilons: Sequence[float]) -> None:
    """A log scale for ``epsilons`` (ascending) that span more than a factor of 20.

    Parameters
    ----------
    ax
        The panel (matplotlib axes).
    epsilons
        The epsilons on the x axis, ascending.
    """
    if epsilons and epsilons[-1] / max(epsilons[0], 1e-12) > 20:
        ax.set_xscale("log")


def frontier_curve(
    ax: Any,
    xs: Sequence[float],
    ys: Sequence[float],
    *,
    labels: Sequence[str],
    colour: str,
    label: str,
    xerr: Sequence[tuple[float, float]] | None = None,
    yerr: Sequence[tuple[float, float]] | None = None,
    linestyle: str = "-",
) -> None:
    """One mechanism's frontier: points ``(xs, ys)`` joined in order, each annotated with its
    label (its epsilon); ``xerr`` / ``yerr`` are ``(low, high)`` per point (an interval, not
    a distance), drawn as error bars; ``linestyle`` ``"--"`` for a baseline.

    Parameters
    ----------
    ax
        The panel (matplotlib axes).
    xs
        The points' x values.
    ys
        Their y values.
    labels
        Each point's annotation (its epsilon).
    colour
        The curve's colour.
    label
        The curve's legend label.
    xerr
        Each point's x interval ``(low, high)``, or None.
    yerr
        Each point's y interval ``(low, high)``, or None.
    linestyle
        The line's matplotlib style.
    """
    import numpy as np

    x = np.asarray(xs, dtype=float)
    y = np.asarray(ys, dtype=float)

    def bars(values: np.ndarray, bounds: Sequence[tuple[float, float]] | None) -> Any:
        if bounds is None:
            return None
        lows = np.array([b[0] for b in bounds], dtype=float)
        highs = np.array([b[1] for b in bounds], dtype=float)
        return np.vstack([np.maximum(values - lows, 0.0), np.maximum(highs - values, 0.0)])

    ax.errorbar(
        x, y, xerr=bars(x, xerr), yerr=bars(y, yerr), marker="o", color=colour, label=label,
        capsize=3, elinewidth=0.9, linestyle=linestyle,
    )  # fmt: skip
    for xi, yi, text in zip(x, y, labels, strict=True):
        ax.annotate(
            text, (xi, yi), textcoords="offset points", xytext=(5, 5), fontsize=8, color=colour
        )


#: how a baseline without privacy (``random-sub``) is drawn on every frontier
BASELINE_COLOUR = "grey"


def curve_style(mechanism: str, colour: str) -> tuple[str, str, str]:
    """``(colour, linestyle, label)`` of ``mechanism``'s frontier curve: a baseline without
    differential privacy (its registry spec says ``baseline``) is a dashed grey line labelled
    'baseline (no DP)', every other mechanism a solid line in ``colour``.

    Parameters
    ----------
    mechanism
        A registered mechanism's name.
    colour
        The colour of a mechanism that is not a baseline.

    Returns
    -------
    tuple[str, str, str]
        The curve's colour, linestyle and label.
    """
    from authormask.core import mechanism_spec

    if mechanism_spec(mechanism).baseline:
        return BASELINE_COLOUR, "--", f"baseline (no DP): {mechanism}"
    return colour, "-", mechanism


def headline_mark(ax: Any, head: Any, colour: str) -> None:
    """A mechanism's headline (:class:`~authormask.evaluation.tradeoff.Headline`) on a
    frontier panel: a star at (its utility, chance + margin) with its interval as a horizontal
    bar; nothing when not reached.

    Parameters
    ----------
    ax
        The panel (matplotlib axes).
    head
        The mechanism's headline.
    colour
        The mechanism's colour.
    """
    if head.utility is None:
        return
    low, high = head.interval
    xerr = None
    if low is not None and high is not None:
        xerr = [[max(head.utility - low, 0.0)], [max(high - head.utility, 0.0)]]
    ax.errorbar(
        [head.utility], [head.threshold], xerr=xerr, marker="*", markersize=11, color=colour,
        capsize=3, linestyle="none",
    )  # fmt: skip


def hline(
    ax: Any, y: float, text: str, *, colour: str = "grey", style: str = ":", left: bool = False
) -> None:
    """A horizontal line at ``y`` across the panel, labelled ``text`` at its right end (its
    left with ``left``), outside the legend.

    Parameters
    ----------
    ax
        The panel (matplotlib axes).
    y
        Where the line is.
    text
        Its label.
    colour
        Its colour.
    style
        Its matplotlib linestyle.
    left
        Whether the label is at the line's left end.
    """
    ax.axhline(y, color=colour, linestyle=style, linewidth=1.0)
    ax.text(
        0.01 if left else 0.99, y, text, fontsize=7, color=colour, va="bottom",
        ha="left" if left else "right", transform=ax.get_yaxis_transform(),
    )  # fmt: skip


def vline(ax: Any, x: float, text: str, *, colour: str = "grey", style: str = ":") -> None:
    """A vertical line at ``x`` across the panel, labelled ``text`` near its top, outside the
    legend (a utility's floor on a frontier).

    Parameters
    ----------
    ax
        The panel (matplotlib axes).
    x
        Where the line is.
    text
        Its label.
    colour
        Its colour.
    style
        Its matplotlib linestyle.
    """
    ax.axvline(x, color=colour, linestyle=style, linewidth=1.0)
    ax.text(
        x, 0.99, f" {text}", fontsize=7, color=colour, va="top", ha="left", rotation=90,
        transform=ax.get_xaxis_transform(),
    )  # fmt: skip


def legend(ax: Any, *, outside: bool = False, **kwargs: Any) -> None:
    """The panel's legend, only when some artist has a label (matplotlib warns otherwise): at
    the place in the panel that covers the fewest points, or, ``outside``, beside the panel on
    its right (a legend of a dozen attackers covers the curves wherever it is put inside;
    ``tight_layout`` narrows the panels to make room).

    Parameters
    ----------
    ax
        The panel (matplotlib axes).
    outside
        Whether the legend goes beside the panel.
    **kwargs
        Further arguments of matplotlib's ``legend``; they override these.
    """
    handles, _ = ax.get_legend_handles_labels()
    if handles:
        place: dict[str, Any] = {"loc": "best"}
        if outside:
            place = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "borderaxespad": 0.0}
        ax.legend(**{"fontsize": 8, **place, **kwargs})


def png_bytes(fig: Any) -> bytes:
    """A matplotlib figure as PNG bytes (120 dpi); the figure is closed.

    Parameters
    ----------
    fig
        The figure.

    Returns
    -------
    bytes
        The PNG image.
    """
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=120)
    finally:
        plt.close(fig)
    return buf.getvalue()
