"""Progress on stderr: a tqdm bar on a terminal, and plain lines (every 10% or 30 s, with the
rate and an ETA once the total is known) when stderr is a file or a pipe, so scripts and logs
see progress too."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any, TextIO

__all__ = ["Progress"]


class Progress:
    """``update(n)`` adds n units; ``total`` may be set at any time (then the ETA appears)."""

    def __init__(self, desc: str, unit: str, *, file: TextIO | None = None) -> None:
        self.desc, self.unit = desc, unit
        self.file = file if file is not None else sys.stderr
        self.n = 0
        self._total: int | None = None
        self._start = time.monotonic()
        self._last_line = self._start
        self._last_fraction = 0.0
        self._printed = 0
        self._bar: Any = None
        if self.file.isatty():
            from tqdm import tqdm

            self._bar = tqdm(desc=desc, unit=unit, file=self.file, leave=False)

    @property
    def total(self) -> int | None:
        return self._total

    @total.setter
    def total(self, value: int | None) -> None:
        self._total = value
        if self._bar is not None:
            self._bar.total = value
            self._bar.refresh()

    def update(self, n: int = 1) -> None:
        self.n += n
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        fraction = self.n / self._total if self._total else 0.0
        if now - self._last_line >= 30.0 or fraction - self._last_fraction >= 0.1:
            self._line(now)
            self._last_line, self._last_fraction = now, fraction

    def _line(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = self.n / elapsed
        text = f"{self.desc}: {self.n:,} {self.unit}s"
        if self._total:
            left = (self._total - self.n) / rate if rate > 0 else float("inf")
            text += f" of {self._total:,} ({100 * self.n / self._total:.0f}%), ETA {left:.0f} s"
        text += f", {rate:,.0f} {self.unit}s/s"
        print(text, file=self.file, flush=True)
        self._printed = self.n

    def close(self) -> None:
        """Close the bar (terminal) or print the final line (file or pipe)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.n != self._printed:
            self._line(time.monotonic())

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
