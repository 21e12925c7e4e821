"""What every mechanism returns for one document."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Output"]


@dataclass(frozen=True)
class Output:
    """One released document.

    ``text`` is what is published; ``words`` the released words or tokens (the sorted bag for a
    bag, the perturbed content words or generated tokens in reading order otherwise); ``bag`` the
    released bag as counts (bag mechanisms only). ``figures`` are public per-output numbers that
    are functions of the released output alone (ER-AE's ``tokens`` l and ``epsilon_total``), so
    publishing them reveals nothing beyond the output; the statement's ``per_output`` names them.
    """

    text: str
    words: tuple[str, ...]
    bag: dict[str, int] | None = None
    figures: dict[str, float] = field(default_factory=dict)
