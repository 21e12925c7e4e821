"""The protocol every release mechanism implements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from authormask.accounting.statement import PrivacyStatement
from authormask.mechanisms._base import Output

__all__ = ["Mechanism", "Output"]


@runtime_checkable
class Mechanism(Protocol):
    """A mechanism as the release layer sees it (EMP bag and text, ER-AE, AE-DP, SynTF,
    Random-R).

    * ``prepare(text)`` is deterministic and public-parameter-only: it turns a text into the
      units the mechanism perturbs, or raises :class:`~authormask.exceptions.InputError`;
    * ``perturb(prepared, rngs)`` releases each prepared document with its own generator, so a
      document's output never depends on the batch it was released in;
    * ``statement(seeded=...)`` is the public statement, a function of the parameters only;
    * ``diagnostics(prepared)`` gives private per-document counts for the run report;
    * ``units(prepared)`` the work it takes, for progress bars.
    """

    name: str

    def prepare(self, text: str) -> Any: ...

    def perturb(
        self,
        documents: Sequence[Any],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]: ...

    def statement(self, *, seeded: bool) -> PrivacyStatement: ...

    def diagnostics(self, document: Any) -> dict[str, Any]: ...

    def units(self, document: Any) -> int:
        """Units of work of a prepared document (words snapped or tokens drawn), for progress."""
        ...
