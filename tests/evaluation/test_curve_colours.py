"""Every curve of a report's plot has its own colour (18 distinct: tab10, then Dark2): before,
matplotlib's default cycle repeated after 10, so PAN's 12 default attackers (14 now) drew two
pairs of curves in one colour."""

from __future__ import annotations

from typing import Any

import pytest

from authormask.evaluation.protocols import PanConfig
from authormask.evaluation.protocols.pan import PAN_ATTACKERS, PanCell, PanResult
from authormask.evaluation.reports import pan as pan_reports
from authormask.evaluation.reports.plots import curve_colours, panel_grid, panels
from authormask.exceptions import InvalidParameterError


def test_eighteen_distinct_colours_the_first_ten_tab10s() -> None:
    import matplotlib as mpl
    from matplotlib.colors import to_hex

    colours = curve_colours(18)
    assert len(set(colours)) == 18
    assert all(c.startswith("#") and len(c) == 7 for c in colours)
    tab10 = [to_hex(c) for c in mpl.colormaps["tab10"].colors]
    assert colours[:10] == tab10
    assert colours[10:] == [to_hex(c) for c in mpl.colormaps["Dark2"].colors]
    # tab10 is matplotlib's default cycle: a plot of up to 10 curves keeps its colours
    default = [to_hex(c) for c in mpl.rcParamsDefault["axes.prop_cycle"].by_key()["color"]]
    assert colours[:10] == default
    # beyond 18 the colours cycle; fewer are a prefix
    assert curve_colours(20)[18:] == colours[:2]
    assert curve_colours(3) == colours[:3] and curve_colours(0) == []
    with pytest.raises(InvalidParameterError, match="number of curves"):
        curve_colours(-1)
    # the panels' colours are the same list
    import matplotlib.pyplot as plt

    for fig, _, given in (panels(1), panel_grid(1, 1)):
        assert given == colours
        plt.close(fig)


def _default_attackers() -> PanResult:
    """A hand-made PAN run of PAN's default attackers (plain and adaptive), no utility."""
    config = PanConfig(
        mechanisms=("emp-text",), epsilons=(10.0, 5.0), attackers=PAN_ATTACKERS, utilities=()
    )
    cells = [
        PanCell("problem00001", "emp-text", eps, 0, a, f1, f1, f1, int(100 * f1), 100, 0, 0, 0.0)
        for eps in (10.0, 5.0)
        for k, a in enumerate(PAN_ATTACKERS)
        for f1 in [0.1 + 0.05 * k * eps / 10]
    ]
    collection = {
        "name": "hand",
        "source": "",
        "problems": [
            {"name": "problem00001", "language": "en", "candidates": 5, "known_texts": 25,
             "unknown_texts": 100, "unknown_by_no_candidate": 50}
        ],
    }  # fmt: skip
    return PanResult(config, collection, tuple(cells), (), {}, {}, 0.0)


def test_a_plot_of_every_default_attacker_has_a_colour_each(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    figures: list[Any] = []
    monkeypatch.setattr(pan_reports, "png_bytes", lambda fig: figures.append(fig) or b"")
    n = len(PAN_ATTACKERS)
    assert 12 <= n <= 18  # more than the default cycle's 10, within the 18 distinct colours
    pan_reports.pan_plot(_default_attackers())
    (fig,) = figures
    ax = fig.axes[0]
    colours = {line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()}
    attackers = {a: colours[a] for a in PAN_ATTACKERS}
    assert len(set(attackers.values())) == n, attackers
    assert [attackers[a] for a in PAN_ATTACKERS] == curve_colours(n)
    assert to_hex(colours["strongest"]) == "#000000"
    plt.close(fig)


def test_a_utility_without_its_own_colour_is_not_black() -> None:
    from matplotlib.colors import to_hex

    given = pan_reports._utility_colours(["similarity", "fluency", "other-a", "other-b"])
    assert given["similarity"] == "grey" and given["fluency"] == "tab:brown"
    hexes = {u: to_hex(c) for u, c in given.items()}
    assert len(set(hexes.values())) == 4 and "#000000" not in hexes.values()
