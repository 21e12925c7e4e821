"""A cache that cannot lie (issue 30 C): the statement names the vectors actually used, an entry
is bound to its source's content, the cache folder is private, and a special file in place of an
entry or a source is refused in one line without hanging.

Everything here uses the packaged GloVe vectors and real files; a forgery is written the way a
reviewer wrote one: the entry's arrays replaced, its (unsigned) checksums recomputed.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from prepared_files import forge_header

from authormask.embeddings import Embeddings, brute_force_nearest, load_embeddings
from authormask.embeddings.neighbours import NearestWordIndex
from authormask.embeddings.prepared import read_entry, write_entry
from authormask.embeddings.registry import prepare_embeddings
from authormask.exceptions import EmbeddingsError

#: what write_entry adds to a header (a forger writes the rest back)
_COMPUTED = {"format", "arrays", "payload_bytes", "payload_sha256"}


def _sha16(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).data.cast("B")).hexdigest()[:16]


def _forge(entry: Path, *, scale: float, rename: bool) -> str:
    """Replace the entry's vectors by ``scale`` times them, its checksums recomputed; with
    ``rename`` the header's identity names the new vectors too. The new vectors' hash."""
    found = read_entry(entry, {})
    assert found is not None
    header = {k: v for k, v in found.header.items() if k not in _COMPUTED}
    arrays: dict[str, Any] = {k: np.array(v) for k, v in found.arrays.items()}
    arrays["vectors"] = (arrays["vectors"] * np.float32(scale)).astype(np.float32)
    forged = _sha16(arrays["vectors"])
    if rename:
        header["identity"] = {**header["identity"], "vectors_sha256": forged}
    assert write_entry(entry, header, arrays)
    return forged


def _write_vectors(path: Path, emb: Embeddings, n: int = 300) -> None:
    lines = [
        w + " " + " ".join(repr(float(x)) for x in v)
        for w, v in zip(emb.words[:n], emb.vectors[:n], strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _swap_first_rows(path: Path) -> os.stat_result:
    """Swap the file's first two rows, keeping its size and modification time; its status
    before."""
    before = os.stat(path)
    data = path.read_bytes()
    cut = data.index(b"\n") + 1
    second = data.index(b"\n", cut) + 1
    path.write_bytes(data[cut:second] + data[:cut] + data[second:])  # rows 0 and 1 swapped
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    return before


def _only(cache: Path, suffix: str = ".vocab") -> Path:
    (entry,) = cache.glob(f"*{suffix}")
    return entry


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``authormask obfuscate`` of one short text in a fresh process (never hangs the suite)."""
    text = tmp_path / "short.txt"
    text.write_text("The committee met on Tuesday.\n", encoding="utf-8")
    code = "import sys\nfrom authormask.cli.main import main\nsys.exit(main(sys.argv[1:]))\n"
    argv = ["obfuscate", str(text), "-m", "emp-text", "--epsilon", "10", "--seed", "1", "-q"]
    return subprocess.run(
        [sys.executable, "-c", code, *argv, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")},
    )


def _one_line_error(run: subprocess.CompletedProcess[str], *words: str) -> None:
    assert run.returncode != 0
    assert "Traceback" not in run.stderr, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, run.stderr
    assert all(w in lines[0] for w in words), lines[0]


# -- the statement names the vectors used ---------------------------------------------------------


def test_a_forged_entry_is_never_named_by_its_header(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The reviewer's forgery: vectors scaled (noise then barely moves a word), the header's
    identity kept. Before: the statement named the genuine hash while the forged vectors were
    used. Now the held vectors are hashed on load, the mismatch is one warning and the entry is
    rebuilt from the package."""
    cache = tmp_path / "cache"
    genuine = load_embeddings("glove-6b-50d", vocab_size=2_000, cache_dir=cache)
    forged = _forge(_only(cache), scale=40.0, rename=False)
    assert forged != genuine.identity.vectors_sha256
    with caplog.at_level(logging.WARNING):
        loaded = load_embeddings("glove-6b-50d", vocab_size=2_000, cache_dir=cache)
    assert loaded.identity.vectors_sha256 == _sha16(loaded.vectors)  # names what it uses
    assert loaded.identity == genuine.identity
    assert np.array_equal(loaded.vectors, genuine.vectors)
    assert "names vectors" in caplog.text and "rebuilding" in caplog.text
    again = load_embeddings("glove-6b-50d", vocab_size=2_000, cache_dir=cache)  # rebuilt entry
    assert again.identity == genuine.identity


def test_a_consistent_forgery_of_a_packaged_set_is_refused_by_its_pin(tmp_path: Path) -> None:
    """A forgery whose header names its own vectors: for a packaged set at a pinned size the
    vectors must be the package's, so the entry is rebuilt."""
    cache = tmp_path / "cache"
    genuine = load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=cache)
    _forge(_only(cache), scale=40.0, rename=True)
    loaded = load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=cache)
    assert loaded.identity == genuine.identity
    assert np.array_equal(loaded.vectors, genuine.vectors)


def test_a_consistent_forgery_of_a_file_is_named(tmp_path: Path, glove_20k: Embeddings) -> None:
    """Without a pin (a user's own file) a forgery that names its own vectors is named: the
    statement's hash is that of the vectors used, never of the file's."""
    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k)
    cache = tmp_path / "cache"
    genuine = load_embeddings(path, cache_dir=cache)
    forged = _forge(_only(cache), scale=3.0, rename=True)
    loaded = load_embeddings(path, cache_dir=cache)
    assert loaded.identity.vectors_sha256 == _sha16(loaded.vectors) == forged
    assert forged != genuine.identity.vectors_sha256


def test_a_forged_search_index_is_rebuilt(
    tmp_path: Path, glove_20k: Embeddings, caplog: pytest.LogCaptureFixture
) -> None:
    """The index file's header names the vectors it was built from; its panels are compared
    with the vectors on load, so panels of other vectors under the right name are not used."""
    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k)
    cache = tmp_path / "cache"
    emb = prepare_embeddings(path, cache_dir=cache)
    index_file = _only(cache, ".index")
    found = read_entry(index_file, {})
    assert found is not None
    header = {k: v for k, v in found.header.items() if k not in _COMPUTED}
    panels = np.array(found.arrays["panels"])
    panels[0, :, [0, 1]] = panels[0, :, [1, 0]]  # the words of rows 0 and 1 swap places
    assert write_entry(index_file, header, {**found.arrays, "panels": panels})
    loaded = load_embeddings(path, cache_dir=cache)
    index = NearestWordIndex(
        loaded.vectors,
        backend="fused",
        norms=loaded.squared_norms(),
        index_path=loaded.index_path,
        vectors_sha256=loaded.identity.vectors_sha256,
    )
    queries = loaded.vectors[:2].astype(np.float64)
    with caplog.at_level(logging.WARNING):
        got = index.nearest(queries)
    assert got.tolist() == brute_force_nearest(emb.vectors, queries).tolist() == [0, 1]
    assert "not using search index" in caplog.text


# -- an entry is bound to its source's content ----------------------------------------------------


def test_a_source_replaced_with_its_size_and_time_is_read_again(
    tmp_path: Path, glove_20k: Embeddings
) -> None:
    """Before: same size and the modification time set back, the stale entry was used and the
    statement named the old vectors."""
    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k)
    cache = tmp_path / "cache"
    first = load_embeddings(path, cache_dir=cache)
    before = os.stat(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[0], lines[1] = lines[1], lines[0]  # the same bytes in another order: the same size
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns
    again = load_embeddings(path, cache_dir=cache)
    fresh = load_embeddings(path, cache_dir=None)
    assert again.identity == fresh.identity != first.identity
    assert again.words[:2] == (first.words[1], first.words[0])


def test_the_entry_records_its_source_content(tmp_path: Path, glove_20k: Embeddings) -> None:
    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k)
    cache = tmp_path / "cache"
    load_embeddings(path, cache_dir=cache)
    found = read_entry(_only(cache), {})
    assert found is not None
    (record,) = found.header["source_files"]
    assert record["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


# -- a private cache folder -----------------------------------------------------------------------


def test_the_cache_folder_is_created_private(tmp_path: Path) -> None:
    cache = tmp_path / "new" / "cache"
    old = os.umask(0o022)
    try:
        load_embeddings("glove-6b-50d", vocab_size=500, cache_dir=cache)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700


@pytest.mark.parametrize("mode", [0o775, 0o777, 0o1777])
def test_a_cache_folder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    cache = tmp_path / "shared"
    cache.mkdir()
    os.chmod(cache, mode)
    with pytest.raises(EmbeddingsError, match="another user could plant"):
        load_embeddings("glove-6b-50d", vocab_size=500, cache_dir=cache)
    assert list(cache.iterdir()) == []  # nothing read, nothing written
    run = _cli(tmp_path, "--cache-dir", str(cache))
    _one_line_error(run, str(cache), "chmod 700")
    # the error names the option that chose the folder, not --embeddings (a newcomer's report)
    assert run.stderr.startswith("authormask: error: --cache-dir: cache folder"), run.stderr


# -- special files are refused, never waited on ---------------------------------------------------


def test_a_fifo_in_place_of_an_entry_is_refused_in_one_line(tmp_path: Path) -> None:
    """Before: opening the FIFO blocked every release for ever."""
    probe = tmp_path / "probe"
    assert _cli(tmp_path, "--cache-dir", str(probe)).returncode == 0
    name = _only(probe).name
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    os.mkfifo(cache / name)
    run = _cli(tmp_path, "--cache-dir", str(cache))
    _one_line_error(run, "FIFO", name)
    assert stat.S_ISFIFO(os.lstat(cache / name).st_mode)  # left as it was


def test_a_fifo_as_embeddings_source_is_refused_in_one_line(tmp_path: Path) -> None:
    fifo = tmp_path / "vectors.txt"
    os.mkfifo(fifo)
    with pytest.raises(EmbeddingsError, match="FIFO"):
        load_embeddings(fifo, cache_dir=tmp_path / "cache")
    run = _cli(tmp_path, "--embeddings", str(fifo), "--cache-dir", str(tmp_path / "cache"))
    _one_line_error(run, "FIFO")


def test_a_large_source_is_checked_by_its_status_then_its_content(
    tmp_path: Path, glove_20k: Embeddings
) -> None:
    """Above FULL_HASH_BYTES (as the packaged GloVe is) the source is hashed when its status
    changed: a replacement with the same size and modification time still has a new change
    time, so it is hashed, found different and read again."""
    from authormask.embeddings.registry import FULL_HASH_BYTES

    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k, n=len(glove_20k))
    assert path.stat().st_size > FULL_HASH_BYTES
    cache = tmp_path / "cache"
    first = load_embeddings(path, vocab_size=100, cache_dir=cache)
    assert load_embeddings(path, vocab_size=100, cache_dir=cache).identity == first.identity
    before = _swap_first_rows(path)
    assert (os.stat(path).st_size, os.stat(path).st_mtime_ns) == (
        before.st_size,
        before.st_mtime_ns,
    )
    again = load_embeddings(path, vocab_size=100, cache_dir=cache)
    assert again.identity != first.identity
    assert again.words[:2] == (first.words[1], first.words[0])


def test_a_source_whose_status_changed_but_not_its_content_is_hashed_once(
    tmp_path: Path, glove_20k: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hard link made to a large source (another install's, as pip and uv make them) gives
    it a new change time, not new content: the next load hashes it and finds it the same, and
    the loads after do not hash it again (before, every load did: 0.1 s of every release with
    the packaged GloVe once another virtual environment linked its files)."""
    from authormask.embeddings import registry
    from authormask.embeddings.registry import FULL_HASH_BYTES

    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k, n=len(glove_20k))
    assert path.stat().st_size > FULL_HASH_BYTES
    cache = tmp_path / "cache"
    first = load_embeddings(path, vocab_size=100, cache_dir=cache)
    hashed: list[Path] = []
    real = registry._file_sha256

    def counting(p: Path) -> str:
        hashed.append(p)
        return real(p)

    monkeypatch.setattr(registry, "_file_sha256", counting)
    assert load_embeddings(path, vocab_size=100, cache_dir=cache).identity == first.identity
    assert hashed == []  # the status recorded with the entry
    os.link(path, tmp_path / "another-install.txt")  # a new change time, the same bytes
    for _ in range(3):
        assert load_embeddings(path, vocab_size=100, cache_dir=cache).identity == first.identity
    assert len(hashed) == 1
    # and a change of content after that is still found (its status is new again)
    _swap_first_rows(path)
    again = load_embeddings(path, vocab_size=100, cache_dir=cache)
    assert again.words[:2] == (first.words[1], first.words[0])


def test_a_damaged_record_of_the_sources_statuses_only_costs_a_hash(
    tmp_path: Path, glove_20k: Embeddings
) -> None:
    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k, n=len(glove_20k))
    cache = tmp_path / "cache"
    first = load_embeddings(path, vocab_size=100, cache_dir=cache)
    os.link(path, tmp_path / "another-install.txt")
    load_embeddings(path, vocab_size=100, cache_dir=cache)
    (kept,) = cache.glob("*.sources")
    junks = (b"", b"\xff\xfe", b"[1, 2]", b'{"x": 1}', b"{" * 100, b"[" * 5000, b'{"a": [' * 3000)
    for junk in junks:  # the deeply nested ones raised RecursionError (a review's finding)
        kept.write_bytes(junk)
        assert load_embeddings(path, vocab_size=100, cache_dir=cache).identity == first.identity
    kept.unlink()
    os.mkfifo(kept)  # never read, never blocking
    assert load_embeddings(path, vocab_size=100, cache_dir=cache).identity == first.identity
    assert stat.S_ISFIFO(os.lstat(kept).st_mode)


@pytest.mark.parametrize("damage", ["words not UTF-8", "no words", "a date array", "no hash"])
def test_a_whole_entry_whose_arrays_are_not_a_vocabulary_is_rebuilt(
    tmp_path: Path, glove_20k: Embeddings, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Whole, its checksums its own, but its words not UTF-8, or missing; an array without
    bytes to hash (a date type) or without its hash in the header: one warning line and the
    vocabulary built again, never an error (the words are made while the arrays are hashed,
    issue 50: an error there was raised)."""
    path, cache = tmp_path / "vectors.txt", tmp_path / "cache"
    _write_vectors(path, glove_20k)
    built = load_embeddings(path, cache_dir=cache)
    (entry,) = cache.glob("*.vocab")
    found = read_entry(entry, {})
    assert found is not None
    header = {k: v for k, v in found.header.items() if k not in _COMPUTED}
    arrays: dict[str, Any] = {k: np.array(v) for k, v in found.arrays.items()}
    if damage == "words not UTF-8":
        arrays["words"] = np.frombuffer(b"\xff\xfe" + arrays["words"].tobytes(), dtype=np.uint8)
    elif damage == "no words":
        del arrays["words"]
    assert write_entry(entry, header, arrays)
    if damage in ("a date array", "no hash"):  # the header rewritten, its checksum made to match

        def edit(full: dict) -> None:
            if damage == "a date array":
                full["arrays"]["words"]["dtype"] = "<M8[s]"
                full["arrays"]["words"]["shape"] = [full["arrays"]["words"]["shape"][0] // 8]
            else:
                del full["arrays"]["words"]["sha256"]

        forge_header(entry, edit)
    with caplog.at_level(logging.WARNING):
        again = load_embeddings(path, cache_dir=cache)
    assert again.identity == built.identity
    assert "prepared vocabulary" in caplog.text
    assert read_entry(entry, {}) is not None  # written again, whole
