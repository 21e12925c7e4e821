"""Objects built once per process: the embeddings, models and mechanisms a worker of the Dask
engine loads on its first task and keeps for the next ones; and whether this process may start
a second one (:func:`allow_second_process`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["allow_second_process", "process_memo", "second_process_allowed"]

T = TypeVar("T")

_MEMO: dict[str, Any] = {}
_MEMO_LOCK = threading.Lock()
_KEY_LOCKS: dict[str, threading.Lock] = {}


def process_memo(key: str, build: Callable[[], T]) -> T:
    """``build()`` once per process for ``key`` (thread-safe), then the same object.

    Parameters
    ----------
    key
        The name of the object in this process.
    build
        Builds the object, called at most once per process and key.

    Returns
    -------
    T
        The object built first for ``key`` in this process.

    Examples
    --------
    >>> calls = []
    >>> a = process_memo("doctest-key", lambda: calls.append(1) or [1])
    >>> b = process_memo("doctest-key", lambda: calls.append(1) or [2])
    >>> a is b, len(calls)
    (True, 1)
    """
    with _MEMO_LOCK:
        if key in _MEMO:
            return _MEMO[key]  # type: ignore[no-any-return]
        lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with lock:
        with _MEMO_LOCK:
            if key in _MEMO:
                return _MEMO[key]  # type: ignore[no-any-return]
        value = build()
        with _MEMO_LOCK:
            _MEMO[key] = value
        return value


#: whether this process may start a second one (:func:`allow_second_process`)
_SECOND_PROCESS = [False]


def allow_second_process(allowed: bool = True) -> None:
    """Let this process's releases of many documents run their recogniser in a second process
    (:mod:`authormask.text.ahead`); the ``authormask`` command does this as it starts. A library
    call does not on its own: that process holds about 90 MB and the texts it last read for as
    long as the caller's process lives, which a program that uses the library should choose.

    Parameters
    ----------
    allowed
        Whether it may.
    """
    _SECOND_PROCESS[0] = bool(allowed)


def second_process_allowed() -> bool:
    """Whether :func:`allow_second_process` allowed it.

    Returns
    -------
    bool
        Whether this process may start a second one.
    """
    return _SECOND_PROCESS[0]
