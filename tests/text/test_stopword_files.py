"""A stopword list given as a path that is not a regular file (a FIFO, a device, a folder) is
refused in one line naming it, without blocking: found by an independent review, ``--stopwords
FIFO`` waited forever for a writer (``--embeddings FIFO`` was already refused)."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from authormask.exceptions import InputError
from authormask.text import load_stopwords

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")

DOC = "The committee approved the budget on Tuesday.\n"


def _within(seconds: float, fn: Callable[[], Any], fifo: Path | None = None) -> Any:
    """``fn()`` run in a thread: its result, or what it raised; fails if it is still running
    after ``seconds`` (a reader blocked on ``fifo`` is then let go by opening it for writing)."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        if fifo is not None:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
        pytest.fail(f"still running after {seconds} s (blocked on a special file)")
    if "error" in box:
        raise box["error"]
    return box["result"]


@needs_fifo
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "words"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as info:
        _within(20, lambda: load_stopwords(fifo), fifo)
    message = str(info.value)
    assert "stopword file" in message and str(fifo) in message and "FIFO" in message
    assert "\n" not in message


@pytest.mark.parametrize("kind", ["folder", "device"])
def test_a_folder_or_a_device_is_refused(tmp_path: Path, kind: str) -> None:
    if kind == "folder":
        path = tmp_path / "words"
        path.mkdir()
    else:
        path = Path("/dev/null")
        if not path.exists():
            pytest.skip("no /dev/null")
    with pytest.raises(InputError, match=f"stopword file .* is a {kind}, not a file"):
        _within(20, lambda: load_stopwords(path))


def test_a_regular_file_and_a_link_to_one_are_read(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("The\n  of \n\nAND\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    for spec in (path, str(link)):
        words, described = load_stopwords(spec)
        assert words == frozenset({"the", "of", "and"})
        assert described.startswith("a custom list, 3 words, sha256 ")
    with pytest.raises(InputError, match="stopword file not found"):
        load_stopwords(tmp_path / "missing.txt")
    (tmp_path / "latin1.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(InputError, match="cannot read stopword file"):
        load_stopwords(tmp_path / "latin1.txt")


@needs_fifo
def test_cli_refuses_a_fifo_as_stopwords_in_one_line(invoke, tmp_path: Path) -> None:
    doc = tmp_path / "t.txt"
    doc.write_text(DOC, encoding="utf-8")
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("committee 0.1 0.2\nbudget 0.3 0.1\ntuesday 0.2 0.2\n", encoding="utf-8")
    fifo = tmp_path / "words"
    os.mkfifo(fifo)
    argv = [
        "obfuscate",
        str(doc),
        "-m",
        "emp-text",
        "-e",
        "9",
        "--embeddings",
        str(vectors),
        "--cache-dir",
        str(tmp_path / "cache"),
        "--stopwords",
        str(fifo),
    ]
    code, out, err = _within(60, lambda: invoke(argv), fifo)
    assert code != 0 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("authormask: error:"), err
    assert "stopwords" in lines[0] and str(fifo) in lines[0] and "FIFO" in lines[0]
