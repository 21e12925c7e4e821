"""The recogniser's second process (:mod:`authormask.text.ahead`), run as
``python -m authormask.text._ahead_process PARENT_PID``.

It reads frames from standard input and writes frames to standard output (each an 8-byte
big-endian length, then a pickle): first what to call (``find``, a function of a module or a
``functools.partial`` of one), then jobs ``(number, texts)``, each answered by
``(number, entities)``, or ``(number, "Error: why")`` where ``find`` failed (number 0: it could
not start). It ends at the end of its input, when its parent is gone (the kernel kills it with
its parent on Linux; elsewhere its input ends), and ignores Ctrl-C, which its parent handles.
Nothing else goes to its standard output (``print`` goes to its standard error).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
from typing import IO, Any

#: Linux's ``prctl`` option: the signal a process gets when its parent ends
_PR_SET_PDEATHSIG = 1


def read_frame(stream: IO[bytes]) -> bytes | None:
    """One frame's payload from ``stream``, or None at its end.

    Parameters
    ----------
    stream
        An unbuffered binary stream.

    Returns
    -------
    bytes | None
        The payload, or None where the stream ended (even within a frame).
    """
    header = _exactly(stream, 8)
    if header is None:
        return None
    return _exactly(stream, int.from_bytes(header, "big"))


def _exactly(stream: IO[bytes], n: int) -> bytes | None:
    chunks: list[bytes] = []
    while n > 0:
        chunk = stream.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def frame(obj: Any) -> bytes:
    """``obj`` pickled as one frame.

    Parameters
    ----------
    obj
        What to send.

    Returns
    -------
    bytes
        The frame: its length, then the pickle.
    """
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(8, "big") + data


def _die_with(parent: int) -> bool:
    """Ask the kernel to kill this process when its parent ends (Linux); whether the parent is
    still there."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (AttributeError, OSError):  # pragma: no cover - not Linux: the input ends instead
        pass
    return os.getppid() == parent


def main(argv: list[str]) -> int:  # pragma: no cover - runs in the second process
    """Serve the parent ``argv[0]`` (module docstring).

    Parameters
    ----------
    argv
        The parent's process id.

    Returns
    -------
    int
        The exit status.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _die_with(int(argv[0])):
        return 0
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print must not break a frame
    sys.stdout = sys.stderr
    source = os.fdopen(0, "rb", buffering=0)
    try:
        first = read_frame(source)
        if first is None:
            return 0
        find = pickle.loads(first)
        find([])  # load what it reads with, while the parent builds its mechanism
    except Exception as exc:
        out.write(frame((0, f"{type(exc).__name__}: {exc}")))
        return 1
    while (payload := read_frame(source)) is not None:
        number, texts = pickle.loads(payload)
        try:
            answer: Any = find(texts)
        except Exception as exc:
            answer = f"{type(exc).__name__}: {exc}"
        out.write(frame((number, answer)))
    return 0


if __name__ == "__main__":  # pragma: no cover
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # the parent is gone
        os._exit(0)
