"""One BLAS thread while a block runs: process-wide and reference-counted.

The nearest-word search runs its own threads (or one), and a single-threaded product is also what
makes a float product independent of the machine's BLAS threading (ER-AE's ratings). A threaded
OpenBLAS is worse than useless for the thin products here: waking its threads for a product of a
few queries against the vocabulary cost 100-300 ms on this project's 2-core machine, against
4 ms on one thread. ``threadpoolctl.threadpool_limits`` scans every loaded library on each call
(about 7 ms); here the libraries are found once per process, and the limit is set when the first
block enters and restored when the last one leaves, so blocks on several threads never restore
each other's limits early.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["single_threaded_blas"]

_LOCK = threading.Lock()
_DEPTH = 0
_CONTROLLER: Any = None
_LIMITER: Any = None


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Inside the block, every BLAS library loaded in the process runs on one thread."""
    global _DEPTH, _CONTROLLER, _LIMITER
    with _LOCK:
        if _DEPTH == 0:
            if _CONTROLLER is None:
                from threadpoolctl import ThreadpoolController

                _CONTROLLER = ThreadpoolController()
            _LIMITER = _CONTROLLER.limit(limits=1, user_api="blas")
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0 and _LIMITER is not None:
                _LIMITER.restore_original_limits()
                _LIMITER = None
