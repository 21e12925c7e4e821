"""The recogniser in a second process, reading the documents of a release ahead of it (issue 50).

A release of many documents spends most of its time in two steps that follow each other: the
recogniser finds a document's names (spaCy, :mod:`authormask.text.entities`), then the
mechanism perturbs a batch of documents. On a machine with a second core the two can overlap:
the release hands the next documents' texts to a second process as it reads on
(:meth:`RecognitionAhead.submit`), and when it comes to a document, takes the entities found
there (:meth:`RecognitionAhead.take`) instead of running the recogniser itself.

Nothing a release publishes changes: the second process runs the same pipeline on the same
texts, and the recogniser reads each text on its own (a text's spans do not depend on the
texts read beside it; ``tests/text/test_ahead.py`` compares a release with and without it byte
for byte). The second process reads only texts of releases of the process that started it,
one release at a time. It is started by the first release of many documents of the
``authormask`` command (a library call starts none unless told, :func:`allow_second_process`),
never where no children can be started (a daemonic process, such as a Dask worker's, or a
machine with one core). It ignores Ctrl-C (the release's own process handles it), is stopped
when a release fails or is interrupted, and is otherwise kept for the process's next release
(it holds about 300 MB while idle) until the process ends (it ends with it, even when killed).
If it dies, the release goes on with the recogniser in its own process.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import queue
import signal
import threading
from collections.abc import Callable, Sequence
from typing import Any

from authormask._process import allow_second_process, second_process_allowed

__all__ = [
    "AheadFailed",
    "RecognitionAhead",
    "allow_second_process",
    "end_ahead",
    "start_ahead",
    "text_key",
]

#: a text's entities (:class:`~authormask.text.entities.Entity`), as the recogniser gives them
Found = tuple[Any, ...]
#: what the second process calls on a job's texts: their entities (a function of a module, or
#: a ``functools.partial`` of one, so that it can be handed to a new process); called on no
#: text first, to load what it reads with
Find = Callable[[list[str]], list[Found]]

log = logging.getLogger(__name__)

#: seconds between two looks, while waiting, at whether the other process is still there
_POLL = 1.0


def text_key(text: str) -> bytes:
    """The digest a text's spans are kept under.

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    bytes
        Its BLAKE2b digest.
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass")).digest()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _worker(jobs: Any, results: Any, parent: int, find: Find) -> None:  # pragma: no cover
    """The second process: ignores Ctrl-C (the release's process stops it), loads what
    ``find`` reads with at once (while the release prepares its mechanism), then finds each
    job's texts' entities as the release's own process would and hands them back; it ends at a
    ``None`` job, or when the release's process is gone (killed: no job would come)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        find([])
    except Exception as exc:  # said in the release, which recognises on its own
        results.put((0, f"{type(exc).__name__}: {exc}"))
        return
    while True:
        try:
            job = jobs.get(timeout=_POLL)
        except queue.Empty:
            if os.getppid() != parent:
                return
            continue
        if job is None:
            return
        number, texts = job
        try:
            results.put((number, find(texts)))
        except Exception as exc:
            results.put((number, f"{type(exc).__name__}: {exc}"))


class AheadFailed(RuntimeError):
    """The second process died or failed; the release recognises on its own."""


class RecognitionAhead:
    """A second process that recognises the names of texts handed to it, in the order given
    (:func:`start_ahead` starts it).

    Parameters
    ----------
    context
        The ``spawn`` multiprocessing context it starts in.
    find
        What it calls on each job's texts (:data:`Find`).
    key
        What tells one ``find`` from another (the recogniser's function words): a release
        whose ``key`` is another does not take it.
    """

    def __init__(self, context: Any, find: Find, key: object) -> None:
        self._jobs = context.Queue()
        self._results = context.Queue()
        self._process = context.Process(
            target=_worker,
            args=(self._jobs, self._results, os.getpid(), find),
            name="authormask-recogniser",
            daemon=True,
        )
        self._process.start()
        self.key = key
        #: whether a release holds it (:func:`start_ahead`)
        self.in_use = False
        self._open = True
        self._number = 0
        self._pending: dict[bytes, tuple[int, int]] = {}
        self._done: dict[int, list[Found]] = {}

    def submit(self, texts: Sequence[str]) -> None:
        """Hand ``texts`` (one document's) to the second process; their entities wait there
        for :meth:`take`.

        Parameters
        ----------
        texts
            The texts, each read on its own.
        """
        if not self._open:
            return
        todo: dict[bytes, str] = {}
        for t in texts:
            key = text_key(t)
            if key not in self._pending:
                todo.setdefault(key, t)
        if not todo:
            return
        self._number += 1
        self._jobs.put((self._number, list(todo.values())))
        for i, key in enumerate(todo):
            self._pending[key] = (self._number, i)

    def take(self, texts: Sequence[str], keys: Sequence[bytes]) -> list[Found]:
        """The entities of ``texts``: those handed on before, as found there; the others
        found there now.

        Parameters
        ----------
        texts
            The texts.
        keys
            Their digests (:func:`text_key`).

        Returns
        -------
        list[Found]
            Each text's entities, as the recogniser in this process would find them.

        Raises
        ------
        AheadFailed
            If the second process is gone or failed; it is stopped, and nothing more is
            handed to it.
        """
        if not self._open:
            raise AheadFailed("the second process was stopped")
        self.submit([t for t, k in zip(texts, keys, strict=True) if k not in self._pending])
        places = [self._pending[k] for k in keys]
        out = [self._results_of(number)[i] for number, i in places]
        for key in keys:
            self._pending.pop(key, None)
        waiting = {number for number, _ in self._pending.values()}
        for number in [n for n in self._done if n not in waiting]:
            del self._done[number]
        return out

    def _results_of(self, number: int) -> list[Found]:
        while number not in self._done:
            try:
                got, found = self._results.get(timeout=_POLL)
            except queue.Empty:
                if not self._process.is_alive():
                    self.close()
                    raise AheadFailed("the second process ended") from None
                continue
            except (OSError, EOFError, ValueError) as exc:
                self.close()
                raise AheadFailed(str(exc)) from None
            if isinstance(found, str):
                self.close()
                raise AheadFailed(found)
            self._done[got] = found
        return self._done[number]

    def reusable(self, key: object) -> bool:
        """Whether a release can take it as it is: running, holding nothing unread, its
        ``key`` the release's.

        Parameters
        ----------
        key
            The key of the release that would take it.

        Returns
        -------
        bool
            Whether it can be taken.
        """
        return self._open and not self._pending and self._process.is_alive() and self.key == key

    def close(self) -> None:
        """Stop the second process at once (what it was reading is dropped)."""
        if not self._open:
            return
        self._open = False
        self._pending.clear()
        self._done.clear()
        self._process.terminate()
        self._process.join(timeout=10)
        for q in (self._jobs, self._results):
            q.cancel_join_thread()  # nothing left to hand on: never wait on it at exit
            q.close()


#: the second process of this one, kept from one release to the next (a library that releases
#: folder after folder loads the recogniser once), and whether a release holds it now
_SHARED: RecognitionAhead | None = None
_SHARED_LOCK = threading.Lock()


def start_ahead(find: Find, key: object, *, start: bool = True) -> RecognitionAhead | None:
    """The second process for a release's recogniser: the one an earlier release of this
    process left (or :meth:`~authormask.text.entities.Recogniser.start_elsewhere` started),
    where it is idle and has the same ``key``, else, with ``start``, a new one calling ``find``;
    None where this process may not start one (:func:`allow_second_process`), where there is
    no second core, where it cannot (a daemonic process: a Dask worker's), or where another
    release of this process holds it (that release recognises here). Give it back with
    :func:`end_ahead`.

    Parameters
    ----------
    find
        What the second process calls on each job's texts (:data:`Find`).
    key
        What tells one ``find`` from another (:class:`RecognitionAhead`).
    start
        Whether to start one where none is idle (a release of one document does not: the
        recogniser loads as fast here, and ``authormask serve``'s releases stay in its own
        process, where a client that leaves stops its recognition).

    Returns
    -------
    RecognitionAhead | None
        The second process (loading the recogniser's pipeline if new), or None.
    """
    global _SHARED
    if not second_process_allowed() or _cores() < 2 or multiprocessing.current_process().daemon:
        return None
    with _SHARED_LOCK:
        shared = _SHARED
        if shared is not None and shared.in_use:
            return None
        if shared is not None and shared.reusable(key):
            shared.in_use = True
            return shared
        if not start:
            return None
        if shared is not None:
            shared.close()
            _SHARED = None
        try:
            started = RecognitionAhead(multiprocessing.get_context("spawn"), find, key)
        except (OSError, ValueError, AssertionError) as exc:  # no processes to be had
            log.info("the recogniser runs in this process: %s", exc)
            return None
        started.in_use = True
        _SHARED = started
        return started


def end_ahead(ahead: RecognitionAhead) -> None:
    """A release is done with ``ahead``: it is kept for the next release of this process if it
    holds nothing unread (the release read every text it handed on), else stopped (a release
    that failed or was interrupted: what it handed on is dropped with it).

    Parameters
    ----------
    ahead
        The second process :func:`start_ahead` gave.
    """
    with _SHARED_LOCK:
        ahead.in_use = False
        if not ahead.reusable(ahead.key):
            ahead.close()
