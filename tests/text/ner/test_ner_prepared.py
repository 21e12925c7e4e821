"""The recogniser is prepared once into the cache folder and read after without spaCy, thinc or
torch (issue 50: spaCy's import and pipeline were 1.4 s and 150 MB of a one-sentence release);
a damaged file, or one prepared for another pipeline, is not read but prepared again."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from authormask.text.ner import prepared


def _run(code: str, cache: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "AUTHORMASK_CACHE_DIR": str(cache)},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


_FIND = """
    import sys
    from authormask.text.entities import load_recogniser
    found = load_recogniser().find("Alice Walker flew to Paris with Bob Dylan.")
    print([(e.kind, e.text) for e in found])
    print(sorted(m for m in ("spacy", "thinc", "torch") if m in sys.modules))
"""


def test_prepared_once_then_read_without_spacy(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _run(_FIND, cache).strip().splitlines()
    files = sorted(p.name for p in cache.iterdir())
    assert len(files) == 1 and files[0].startswith("ner-") and files[0].endswith(".npz")
    assert first[1] == "['spacy', 'thinc']"  # preparing loads the pipeline with spaCy
    stamp = (cache / files[0]).stat().st_mtime_ns
    again = _run(_FIND, cache).strip().splitlines()
    expected = str([("person", "Alice Walker"), ("place", "Paris"), ("person", "Bob Dylan")])
    assert first[0] == again[0] == expected
    assert again[1] == "[]"  # read: neither spaCy nor thinc nor torch
    assert (cache / files[0]).stat().st_mtime_ns == stamp  # not written again


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each load prepares or reads anew (the process keeps its recogniser otherwise)."""
    monkeypatch.setattr(prepared, "_LOADED", [])


def _damaged(path: Path, kind: str) -> None:
    data = bytearray(path.read_bytes())
    if kind == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif kind == "a weight changed":
        with np.load(path, allow_pickle=False) as found:
            arrays = {name: np.asarray(found[name]) for name in found.files}
        arrays["upper_b"] = arrays["upper_b"] + np.float32(1.0)
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)
    elif kind == "not a zip":
        path.write_bytes(b"\x00" * 64)
    else:  # "another key": whole, but prepared for another pipeline or spaCy
        with np.load(path, allow_pickle=False) as found:
            arrays = {name: np.asarray(found[name]) for name in found.files}
        meta = json.loads(bytes(arrays.pop("meta_json")))
        del arrays["digest"], meta["key"]
        prepared._write(path, arrays, meta, "0" * 32)


@pytest.mark.parametrize("kind", ["truncated", "a weight changed", "not a zip", "another key"])
def test_a_damaged_file_is_not_read_but_prepared_again(
    tmp_path: Path, fresh: None, kind: str
) -> None:
    text = "Alice Walker flew to Paris with Bob Dylan on Monday."
    good = prepared.load_recogniser_files(tmp_path).pipe([text])
    (path,) = list(tmp_path.iterdir())
    key = prepared._key(prepared.pipeline_dir())
    assert prepared._read(path, key) is not None
    _damaged(path, kind)
    assert prepared._read(path, key) is None
    prepared._LOADED.clear()
    assert prepared.load_recogniser_files(tmp_path).pipe([text]) == good
    assert prepared._read(path, key) is not None  # written again, whole


def test_a_folder_that_cannot_be_written_prepares_in_memory(
    tmp_path: Path, fresh: None, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="authormask.text.ner.prepared"):
        found = prepared.load_recogniser_files(blocked / "cache").pipe(["Bob Dylan sang."])
    assert found == [[(0, 9, "PERSON")]]
    assert "not prepared" in caplog.text
    assert blocked.read_text(encoding="utf-8") == "not a folder"
