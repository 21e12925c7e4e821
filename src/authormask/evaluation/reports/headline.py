"""The headline section of a sweep's or a PAN run's report: per mechanism, where the strongest
attacker comes within a margin of chance (:class:`~authormask.evaluation.tradeoff.Headline`)."""

from __future__ import annotations

from authormask.evaluation.measures import measure
from authormask.evaluation.tradeoff import Headline

__all__ = ["headline_lines"]


def headline_lines(heads: list[Headline]) -> list[str]:
    """The headline section of a report: one line per mechanism.

    Parameters
    ----------
    heads
        The mechanisms' headlines (at least one, all on one utility measure).

    Returns
    -------
    list[str]
        The section's lines.
    """
    first = heads[0]
    utility = measure(first.utility_measure).label
    return [
        f"## Headline: where the strongest attacker comes within {first.margin * 100:.0f} "
        "points of chance",
        "",
        f"Per mechanism, the {utility} at which the strongest attacker's "
        f"Wilson 95% upper bound falls to chance + {first.margin * 100:.0f} points "
        f"({first.threshold:.0%}), interpolated linearly between the two frontier points that "
        "bracket it; the interval runs to where the lower bound crosses the same line; 'not "
        "reached' when no point measured gets there (under 'headline' in results.json).",
        "",
        *(f"- {h.describe()}" for h in heads),
    ]
