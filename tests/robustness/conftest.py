"""Running ``authormask`` in-process and checking what every run must end with: a valid output
with its privacy statement (exit 0), or exactly one line ``authormask: error: ...`` (exit != 0),
never a traceback."""

from __future__ import annotations

import io
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzzing import Outcome

from authormask.cli.main import main

#: mechanisms that take word vectors (the runner points them at the session's 20k GloVe cache)
_EMBEDDINGS_MECHANISMS = ("emp-bag", "emp-text", "syntf", "random-r")

Runner = Callable[..., Outcome]


@pytest.fixture()
def authormask(cache_dir: Path) -> Runner:
    """``authormask(*argv, stdin=None)`` runs ``main(argv)`` in-process, with standard streams
    like a real interpreter's (UTF-8; stderr with backslash escapes for what it cannot encode).
    ``obfuscate`` with a mechanism that takes word vectors gets the session cache and
    ``--vocab-size 20000`` (fast), unless ``fast=False``."""

    def run(*args: str, stdin: bytes | None = None, fast: bool = True) -> Outcome:
        argv = list(args)
        if fast and argv[:1] == ["obfuscate"]:
            mechanism = "emp-bag"
            for flag, value in itertools.pairwise(argv):
                if flag in ("-m", "--mechanism"):
                    mechanism = value
            if mechanism in _EMBEDDINGS_MECHANISMS:
                argv += ["--cache-dir", str(cache_dir)]
                if "--vocab-size" not in argv:
                    argv += ["--vocab-size", "20000"]
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin or b"")))
            mp.setattr(sys, "stdout", out)
            mp.setattr(sys, "stderr", err)
            code = main(argv)
            out.flush()
            err.flush()
        return Outcome(
            code,
            out.buffer.getvalue().decode("utf-8"),  # type: ignore[attr-defined]
            err.buffer.getvalue().decode("utf-8"),  # type: ignore[attr-defined]
        )

    return run
