"""The recogniser in a second process, reading the documents of a release ahead of it (issue 50).

A release of many documents spends most of its time in two steps that follow each other: the
recogniser finds a document's names (:mod:`authormask.text.entities`), then the
mechanism perturbs a batch of documents. On a machine with a second core the two can overlap:
the release hands the next documents' texts to a second process as it reads on
(:meth:`RecognitionAhead.submit`), and when it comes to a document, takes the entities found
there (:meth:`RecognitionAhead.take`) instead of running the recogniser itself.

Nothing a release publishes changes: the second process runs the same recogniser on the same
texts, and the recogniser reads each text on its own (a text's spans do not depend on the
texts read beside it; ``tests/text/test_ahead.py`` compares a release with and without it byte
for byte). The second process reads only texts of releases of the process that started it,
one release at a time. It is started by the first release of many documents of the
``authormask`` command (a library call starts none unless told, :func:`allow_second_process`),
never where no children can be started (a daemonic process, such as a Dask worker's, or a
machine with one core). It runs in a session of its own (a terminal's Ctrl-C reaches the
release's process only, which stops it), is stopped when a release fails or is interrupted, and
is otherwise kept for the process's next release (it holds about 90 MB, and the texts it read
last, while idle) until the process ends; the kernel kills it then, however the process ends
(Linux). If it dies, the release goes on with the recogniser in its own process.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import pickle
import queue
import select
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from authormask._process import allow_second_process, second_process_allowed
from authormask.text._ahead_process import frame, read_frame

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
    """The digest a text's entities are kept under.

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


class AheadFailed(RuntimeError):
    """The second process died or failed; the release recognises on its own."""


class RecognitionAhead:
    """A second process that recognises the names of texts handed to it, in the order given
    (:func:`start_ahead` starts it).

    Parameters
    ----------
    find
        What it calls on each job's texts (:data:`Find`).
    key
        What tells one ``find`` from another (the recogniser's function words): a release
        whose ``key`` is another does not take it.

    Notes
    -----
    It is ``python -m authormask.text._ahead_process`` (which imports nothing of the main
    script), in a session of its own (a terminal's Ctrl-C reaches the release's process only),
    its standard error discarded; the kernel kills it when this process ends, however it ends
    (Linux; elsewhere its input ends and it ends). Jobs are written to it by a thread of this
    process, so handing on never waits for it.
    """

    def __init__(self, find: Find, key: object) -> None:
        import subprocess  # here: a release that starts no second process does not import it

        self._process = subprocess.Popen(
            [sys.executable, "-m", "authormask.text._ahead_process", str(os.getpid())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
            start_new_session=True,
        )
        self._frames: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._writer = threading.Thread(
            target=self._write, name="authormask-recogniser-feed", daemon=True
        )
        self._writer.start()
        self._frames.put(frame(find))
        self.key = key
        #: whether a release holds it (:func:`start_ahead`)
        self.in_use = False
        self._open = True
        self._number = 0
        self._pending: dict[bytes, tuple[int, int]] = {}
        self._done: dict[int, list[Found]] = {}

    def _write(self) -> None:
        """Write the frames handed on to the second process, in order, until it is stopped."""
        pipe = self._process.stdin
        assert pipe is not None
        while (data := self._frames.get()) is not None:
            try:
                pipe.write(data)
            except (OSError, ValueError):  # stopped or gone: what is left is dropped
                return

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
        self._frames.put(frame((self._number, list(todo.values()))))
        for i, key in enumerate(todo):
            self._pending[key] = (self._number, i)

    def holds(self, key: bytes) -> bool:
        """Whether a text handed on and not yet taken has the digest ``key``.

        Parameters
        ----------
        key
            A text's digest (:func:`text_key`).

        Returns
        -------
        bool
            Whether its entities wait here for :meth:`take`.
        """
        return key in self._pending

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

    def found(self, keys: Sequence[bytes]) -> list[bytes]:
        """Which of ``keys`` (texts handed on, not yet taken) have their entities here now,
        without waiting: what :meth:`take` would give at once.

        Parameters
        ----------
        keys
            Digests of texts handed on (:func:`text_key`).

        Returns
        -------
        list[bytes]
            Those whose entities came back, in the order given.

        Raises
        ------
        AheadFailed
            If the second process is gone or failed (it is stopped).
        """
        if not self._open:
            raise AheadFailed("the second process was stopped")
        while self._receive(0.0):
            pass
        return [k for k in keys if k in self._pending and self._pending[k][0] in self._done]

    def _results_of(self, number: int) -> list[Found]:
        while number not in self._done:
            self._receive(_POLL)
        return self._done[number]

    def _receive(self, timeout: float) -> bool:
        """Read one answer of the second process if one comes within ``timeout`` seconds;
        whether one came."""
        out = self._process.stdout
        assert out is not None
        try:
            ready, _, _ = select.select([out], [], [], timeout)
            if not ready:
                if self._process.poll() is not None:
                    raise AheadFailed("the second process ended")
                return False
            payload = read_frame(out)
            if payload is None:
                raise AheadFailed("the second process ended")
            got, found = pickle.loads(payload)
        except AheadFailed:
            self.close()
            raise
        except Exception as exc:  # a broken pipe or frame: stop it, recognise here
            self.close()
            raise AheadFailed(f"{type(exc).__name__}: {exc}") from None
        if isinstance(found, str):
            self.close()
            raise AheadFailed(found)
        self._done[got] = found
        return True

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
        return self._open and not self._pending and self._process.poll() is None and self.key == key

    def close(self) -> None:
        """Stop the second process at once (what it was reading is dropped)."""
        if not self._open:
            return
        self._open = False
        self._pending.clear()
        self._done.clear()
        self._frames.put(None)
        self._process.kill()
        import subprocess

        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=10)
        self._writer.join(timeout=10)
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()


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
        The second process (loading the recogniser if new), or None.
    """
    global _SHARED
    # a daemon process of multiprocessing's (which cannot have children) has it imported: a
    # process that has not is no such process, and need not import it (8 ms) to know
    multiprocessing = sys.modules.get("multiprocessing")
    if not second_process_allowed() or _cores() < 2:
        return None
    if multiprocessing is not None and multiprocessing.current_process().daemon:
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
            started = RecognitionAhead(find, key)
        except OSError as exc:  # no processes to be had
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
