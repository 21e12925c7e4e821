"""The recogniser is prepared once into the cache folder and read after without spaCy, thinc or
torch (issue 50: spaCy's import and pipeline were 1.4 s and 150 MB of a one-sentence release);
a damaged file, or one prepared for another pipeline, is not read but prepared again."""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from prepared_files import header_of

from authormask.embeddings.prepared import read_entry
from authormask.text.ner import prepared

_FIND = """
    import sys
    from authormask.text.entities import load_recogniser
    found = load_recogniser().find("Alice Walker flew to Paris with Bob Dylan.")
    print([(e.kind, e.text) for e in found])
    print(sorted(m for m in ("spacy", "thinc", "torch") if m in sys.modules))
"""


def test_prepared_once_then_read_without_spacy(tmp_path: Path, run_python: Any) -> None:
    cache = tmp_path / "cache"
    first = run_python(_FIND, AUTHORMASK_CACHE_DIR=str(cache)).strip().splitlines()
    files = sorted(p.name for p in cache.iterdir())
    assert len(files) == 1 and files[0].startswith("ner-") and files[0].endswith(".prepared")
    assert first[1] == "['spacy', 'thinc']"  # preparing loads the pipeline with spaCy
    stamp = (cache / files[0]).stat().st_mtime_ns
    again = run_python(_FIND, AUTHORMASK_CACHE_DIR=str(cache)).strip().splitlines()
    expected = str([("person", "Alice Walker"), ("place", "Paris"), ("person", "Bob Dylan")])
    assert first[0] == again[0] == expected
    assert again[1] == "[]"  # read: neither spaCy nor thinc nor torch
    assert (cache / files[0]).stat().st_mtime_ns == stamp  # not written again


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each load prepares or reads anew (the process keeps its recogniser otherwise)."""
    monkeypatch.setattr(prepared, "_LOADED", [])


def _stored(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray], int]:
    """A prepared file's header (with its metadata, ``meta``), its arrays (copies, the metadata's
    left out) and where its arrays start."""
    found = read_entry(path, {})
    assert found is not None
    arrays = {k: np.array(v) for k, v in found.arrays.items()}
    meta = json.loads(bytes(arrays.pop("meta_json")))
    return {**found.header, "meta": meta}, arrays, header_of(path)[1]


def _damaged(path: Path, kind: str) -> None:
    data = bytearray(path.read_bytes())
    header, arrays, start = _stored(path)
    if kind == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif kind == "a weight changed":  # a byte of an array: its hash is no longer the header's
        data[start + header["arrays"]["upper_b"]["offset"]] ^= 0xFF
        path.write_bytes(bytes(data))
    elif kind == "a header changed":  # a byte of the header: its checksum no longer matches
        data[60] ^= 0x01
        path.write_bytes(bytes(data))
    elif kind == "not a prepared file":
        path.write_bytes(b"\x00" * 64)
    elif kind == "a FIFO":
        path.unlink()
        os.mkfifo(path)  # opening it for reading would wait for a writer for ever
    elif kind == "a shape changed":  # whole and hashed, but not a network (planted)
        arrays["upper_W"] = arrays["upper_W"][:-1]
        prepared._write(path, arrays, header["meta"], header["key"])
    elif kind == "an array missing":  # whole and hashed, but not a network (planted)
        del arrays["upper_b"]
        prepared._write(path, arrays, header["meta"], header["key"])
    elif kind == "not its format":  # whole and hashed, of another version of this code
        prepared._write(
            path, arrays, {**header["meta"], "format": "authormask-ner/0"}, header["key"]
        )
    else:  # "another key": whole, but prepared for another pipeline or spaCy
        prepared._write(path, arrays, header["meta"], "0" * 32)


def _read_soon(path: Path, key: str) -> object:
    """``prepared._read``, which must answer within seconds (a FIFO must not make it wait)."""
    out: list[object] = []
    reader = threading.Thread(target=lambda: out.append(prepared._read(path, key)), daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "reading the prepared file waits"
    return out[0]


@pytest.mark.parametrize(
    "kind",
    [
        "truncated",
        "a weight changed",
        "a header changed",
        "not a prepared file",
        "another key",
        "a FIFO",
        "a shape changed",
        "an array missing",
        "not its format",
    ],
)
def test_a_damaged_file_is_not_read_but_prepared_again(
    tmp_path: Path, fresh: None, kind: str
) -> None:
    text = "Alice Walker flew to Paris with Bob Dylan on Monday."
    good = prepared.load_recogniser_files(tmp_path).pipe([text])
    (path,) = list(tmp_path.iterdir())
    key = prepared._key(prepared.pipeline_dir())
    assert prepared._read(path, key) is not None
    _damaged(path, kind)
    assert _read_soon(path, key) is None
    prepared._LOADED.clear()
    assert prepared.load_recogniser_files(tmp_path).pipe([text]) == good
    if kind == "a FIFO":  # not a file of ours: left as it is (prepared in memory, a warning)
        assert stat.S_ISFIFO(path.stat().st_mode)
    else:
        assert prepared._read(path, key) is not None  # written again, whole


def test_a_folder_that_cannot_be_written_prepares_in_memory(
    tmp_path: Path, fresh: None, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        found = prepared.load_recogniser_files(blocked / "cache").pipe(["Bob Dylan sang."])
    assert found == [[(0, 9, "PERSON")]]
    assert "cannot write the prepared-recogniser cache" in caplog.text
    assert blocked.read_text(encoding="utf-8") == "not a folder"


def test_the_commands_cache_folder_holds_the_recogniser_too(
    tmp_path: Path, run_python: Any
) -> None:
    """``--cache-dir`` names where the recogniser is prepared, in the release's process and in
    its second process (the newcomer's run: it went to the default folder)."""
    named, default = tmp_path / "named", tmp_path / "default"
    inputs = tmp_path / "in"
    inputs.mkdir()
    for i, who in enumerate(["Alice Walker flew to Paris.", "Bob Dylan sang in Rome."]):
        (inputs / f"{i}.txt").write_text(who * 3, encoding="utf-8")
    argv = ["obfuscate", str(inputs), "-m", "emp-text", "-e", "10", "--vocab-size", "20000"]
    argv += ["--seed", "1", "--cache-dir", str(named), "-o", str(tmp_path / "out")]
    code = f"""
        from authormask.cli.main import main
        print(main({argv!r}))
    """
    assert run_python(code, AUTHORMASK_CACHE_DIR=str(default)).strip().splitlines()[-1] == "0"
    assert [p.name for p in named.glob("ner-*.prepared")] != []
    assert not default.exists() or not list(default.glob("ner-*.prepared"))


def test_a_named_cache_folder_lasts_one_command_and_serve_keeps_no_word_apart(
    tmp_path: Path,
) -> None:
    """A folder ``--cache-dir`` named is not kept for the next command of the process, even one
    that failed (review, helper-22); the second process is told where the recogniser lives and
    whether it may keep the words it reads (``remember_texts(0)``: it kept them)."""
    from authormask.cli.main import main
    from authormask.text import entities

    named = tmp_path / "named"
    code = main(["obfuscate", str(tmp_path / "missing.txt"), "--cache-dir", str(named)])
    assert code != 0
    assert entities._CACHE_DIR[0] == named
    recogniser = entities.Recogniser()
    assert recogniser._apart().args[1:] == (named, True)
    main(["obfuscate", str(tmp_path / "missing.txt")])
    assert entities._CACHE_DIR[0] == "default"
    keeping = recogniser._apart_key()
    try:
        entities.remember_texts(0)
        assert recogniser._apart().args[1:] == ("default", False)
        assert recogniser._apart_key() != keeping  # a second process that keeps is not taken
    finally:
        entities.remember_texts(entities._SEEN_TEXTS_DEFAULT)


def test_the_second_process_keeps_no_word_where_it_is_told_so() -> None:
    from authormask.text import entities

    stopwords = entities.load_recogniser().stopwords
    try:
        found = entities._find_apart(stopwords, "default", False, ["Alice Walker saw Paris."])
        assert [e.text for e in found[0]] == ["Alice Walker", "Paris"]
        recogniser = prepared.load_recogniser_files()
        assert not recogniser.network._lexemes and not recogniser.tokenizer._cache
    finally:
        entities.remember_texts(entities._SEEN_TEXTS_DEFAULT)
