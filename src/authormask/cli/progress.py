"""Progress of long work, on stderr.

On a terminal: a tqdm bar with the count, the total, the rate and an ETA. When stderr is a
file or a pipe (scripts, CI logs): one plain line about every 10 seconds and one at the end,
each with done/total, the percentage, an ETA and the rate. ``-q/--quiet`` (on ``authormask``
or on any command) silences both.

The library never prints: it reports work through ``progress(n)`` callbacks (and ``on_total``
where the total is known only inside it), which commands connect to :meth:`Progress.update`.

Where the amount of work is private (``counts=False``: a release, whose stderr, printed beside
the public statement, may be published with the text), a file or pipe gets one line, at the
end (``releasing: 100%``, or ``releasing: done`` without a total), never a count, a total, a
rate, an ETA or the time elapsed: each of those would tell how long the texts are (a release
takes time in proportion to its input; a line every 10 seconds would too, by their number). On
a terminal the bar shows the share and its ETA while it runs and leaves nothing behind.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, TextIO

import click

__all__ = ["INTERRUPT_HINT_KEY", "QUIET_KEY", "Progress", "is_quiet", "on_interrupt", "say"]

#: key of ``click.Context.meta`` (shared by a command and its parent group) set by --quiet
QUIET_KEY = "authormask.quiet"
#: seconds between two drawings of a terminal bar when nothing is counted
TICK = 1.0
#: key of ``click.Context.meta``: what the interrupted line adds (how to finish the job)
INTERRUPT_HINT_KEY = "authormask.on-interrupt"


def is_quiet() -> bool:
    """Whether ``-q/--quiet`` was given to the running ``authormask`` command."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(QUIET_KEY))


def say(message: str) -> None:
    """Print an informative line on stderr, unless ``-q/--quiet`` (which leaves errors and
    warnings only)."""
    if not is_quiet():
        click.echo(message, err=True)


def on_interrupt(hint: str | None) -> None:
    """What the ``authormask: interrupted`` line adds if Ctrl-C stops the running command from
    now on (None: nothing), e.g. that the same command finishes the job."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[INTERRUPT_HINT_KEY] = hint


def _plural(unit: str) -> str:
    return unit + ("es" if unit.endswith(("s", "x", "ch", "sh")) else "s")


def _duration(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):
        return "?"
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    """``update(n)`` adds n units of work; ``total`` may be set at any time (the ETA then
    appears). Use as a context manager: leaving it closes the bar or prints the last line
    (not after an error, so an error stays the only line)."""

    #: seconds between two plain lines when stderr is not a terminal
    interval: float = 10.0

    def __init__(
        self,
        desc: str,
        unit: str,
        *,
        total: int | None = None,
        file: TextIO | None = None,
        quiet: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        counts: bool = True,
    ) -> None:
        self.desc, self.unit = desc, unit
        self.counts = counts
        self.file = file if file is not None else sys.stderr
        self.quiet = is_quiet() if quiet is None else quiet
        self.n = 0
        self._clock = clock
        self._start = self._last_line = clock()
        self._printed = 0
        self._total: int | None = None
        self._bar: Any = None
        if not self.quiet and _isatty(self.file):
            from tqdm import tqdm

            self._bar = tqdm(
                desc=desc,
                unit=unit,
                file=self.file,
                leave=False,
                dynamic_ncols=True,
                bar_format=None if counts else _SHARE_ONLY[False],
            )
        self._ticking: tuple[threading.Event, threading.Thread] | None = None
        if self._bar is not None:
            # the bar is drawn again every second, so its time runs while nothing is counted
            # (a long document's names are found before any of it is released: seconds)
            stop = threading.Event()
            ticker = threading.Thread(target=self._tick, args=(self._bar, stop), daemon=True)
            ticker.start()
            self._ticking = (stop, ticker)
        if total is not None:
            self.total = total

    @staticmethod
    def _tick(bar: Any, stop: threading.Event) -> None:
        while not stop.wait(TICK):
            # (never lock_args=(False,): tqdm's lock then answers None, is taken and never
            # given back, and every update after hung: a newcomer's finding)
            bar.refresh()

    @property
    def total(self) -> int | None:
        return self._total

    @total.setter
    def total(self, value: int | None) -> None:
        self._total = value
        if self._bar is not None:
            self._bar.total = value
            if not self.counts:
                self._bar.bar_format = _SHARE_ONLY[bool(value)]
            self._bar.refresh()

    def update(self, n: int = 1) -> None:
        """Add ``n`` units of work (the ``progress`` callback of library functions)."""
        self.n += n
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        if not self.counts:  # one line at the end (module docstring)
            return
        now = self._clock()
        if now - self._last_line >= self.interval:
            self._line(now)

    def write(self, message: str) -> None:
        """Print a message on the progress stream without breaking the bar."""
        if self._bar is not None:
            self._bar.write(message, file=self.file)
        else:
            click.echo(message, file=self.file)

    def line(self, now: float | None = None) -> str:
        """The plain progress line: done/total, percentage, ETA and rate."""
        if not self.counts:  # the end alone: no time, rate or count (module docstring)
            return f"{self.desc}: 100%" if self._total else f"{self.desc}: done"
        now = self._clock() if now is None else now
        elapsed = max(now - self._start, 1e-9)
        rate = self.n / elapsed
        units = _plural(self.unit)
        text = f"{self.desc}: {self.n:,} {units}"
        if self._total:
            left = (self._total - self.n) / rate if rate > 0 else float("inf")
            text += (
                f" of {self._total:,} ({100 * self.n / self._total:.0f}%), "
                f"ETA {_duration(max(left, 0.0))}"
            )
        if rate >= 1 or rate == 0:
            text += f", {rate:,.{0 if rate >= 100 else 1}f} {units}/s"
        else:
            text += f", {1 / rate:,.1f} s/{self.unit}"
        return text + f", {_duration(elapsed)} elapsed"

    def _line(self, now: float) -> None:
        print(self.line(now), file=self.file, flush=True)
        self._last_line, self._printed = now, self.n

    def close(self, *, failed: bool = False) -> None:
        """Close the bar (terminal) or print the last line (file or pipe) unless ``failed``."""
        if self._bar is not None:
            if self._ticking is not None:
                stop, ticker = self._ticking
                stop.set()
                ticker.join()  # no drawing after the bar is closed
                self._ticking = None
            self._bar.close()
            self._bar = None
        elif not self.quiet and not failed and self.n != self._printed:
            self._line(self._clock())

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(failed=exc_type is not None)


#: the terminal bar where counts are private: with a total (share, bar, elapsed < remaining) and
#: without one (elapsed only); it is left on the screen by nobody (``leave=False``)
_SHARE_ONLY = {
    True: "{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]",
    False: "{desc}: [{elapsed}]",
}


def _isatty(file: TextIO) -> bool:
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError):
        return False
