"""The releases ``authormask serve`` runs: on a small fixed pool of threads, with a bounded queue,
each stopped when its client has gone.

A release is CPU work of seconds to minutes. The server runs at most ``workers`` at once; up to
``waiting`` more wait their turn; a request beyond those is refused at once (503, "busy") rather
than queued without end. Each job is given a cancellation flag: the server sets it when the
client hangs up, and the job's progress callback (:func:`checked`) stops the release at its next
unit of work, so an abandoned release gives its thread back within moments instead of running
to its end. Before a release's first unit of work comes its preparation, whose long step is the
entity recogniser (over the whole text, about 0.3 s per 64 KiB of characters on one core):
every job runs under :func:`~authormask.text.entities.checked_between`, so the recogniser too
stops before its next part once the flag is set.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from authormask.text.entities import checked_between

__all__ = ["Busy", "Cancelled", "ReleasePool", "checked"]

T = TypeVar("T")


class Busy(Exception):
    """Every worker is busy and the queue is full: the request is refused (503)."""


class Cancelled(Exception):
    """The job's client has gone: the job stopped before its end."""


def _stop_if_set(cancel: threading.Event) -> None:
    """Raise :class:`Cancelled` if ``cancel`` is set."""
    if cancel.is_set():
        raise Cancelled


def checked(cancel: threading.Event, progress: Callable[[int], None]) -> Callable[[int], None]:
    """``progress``, which first raises :class:`Cancelled` once ``cancel`` is set (a release
    calls it between its units of work).

    Parameters
    ----------
    cancel
        The job's cancellation flag.
    progress
        The progress callback to wrap.

    Returns
    -------
    Callable[[int], None]
        The wrapped callback.
    """

    def step(n: int) -> None:
        _stop_if_set(cancel)
        progress(n)

    return step


class ReleasePool:
    """``workers`` threads, and room for ``waiting`` jobs more; :meth:`submit` refuses the rest.

    ``active``: jobs running now; ``admitted``: jobs running or waiting.

    Parameters
    ----------
    workers
        The threads (at least 1).
    waiting
        The jobs that may wait for a thread (at least 0).

    Raises
    ------
    ValueError
        If ``workers`` is below 1 or ``waiting`` below 0.
    """

    def __init__(self, *, workers: int, waiting: int) -> None:
        if workers < 1 or waiting < 0:
            raise ValueError(f"workers must be >= 1 and waiting >= 0, got {workers}, {waiting}")
        self.workers = workers
        self.waiting = waiting
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="authormask-release")
        self._lock = threading.Lock()
        self._active = 0
        self._admitted = 0
        self._flags: set[threading.Event] = set()

    @property
    def active(self) -> int:
        with self._lock:
            return self._active

    @property
    def admitted(self) -> int:
        with self._lock:
            return self._admitted

    def submit(self, job: Callable[[threading.Event], T]) -> tuple[Future[T], threading.Event]:
        """Run ``job(cancel)`` on a worker; its future and its cancellation flag. A job whose
        flag is set before a worker takes it does not run (its future raises
        :class:`Cancelled`).

        Parameters
        ----------
        job
            The job, called with its cancellation flag.

        Returns
        -------
        tuple[Future[T], threading.Event]
            The job's future and its cancellation flag.

        Raises
        ------
        Busy
            If ``workers + waiting`` jobs are already in.
        """
        cancel = threading.Event()
        with self._lock:
            if self._admitted >= self.workers + self.waiting:
                raise Busy(
                    f"the server is busy: {self.workers} releases are running and "
                    f"{self.waiting} waiting; try again in a moment"
                )
            self._admitted += 1
            self._flags.add(cancel)

        def run() -> T:
            with self._lock:
                self._active += 1
            try:
                if cancel.is_set():
                    raise Cancelled
                with checked_between(functools.partial(_stop_if_set, cancel)):
                    return job(cancel)
            finally:
                with self._lock:
                    self._active -= 1
                    self._admitted -= 1
                    self._flags.discard(cancel)

        try:
            return self._executor.submit(run), cancel
        except BaseException:
            with self._lock:
                self._admitted -= 1
                self._flags.discard(cancel)
            raise

    def cancel_all(self) -> None:
        """Cancel every job running or waiting (the server stops)."""
        with self._lock:
            for flag in self._flags:
                flag.set()
