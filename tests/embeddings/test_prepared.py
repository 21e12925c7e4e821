"""Prepared vocabularies on disk (issue 22 A): built once, memory-mapped, checked on every load,
rebuilt (never misread) when damaged, written atomically, and a folder that cannot be written
costs one warning line."""

from __future__ import annotations

import logging
import mmap
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from authormask.embeddings import Embeddings, brute_force_nearest, load_embeddings
from authormask.embeddings.neighbours import SMALL_QUERIES, NearestWordIndex, shared_index
from authormask.embeddings.prepared import read_entry, write_entry
from authormask.embeddings.registry import prepare_embeddings
from authormask.mechanisms import sample_nd_laplace

N_WORDS = 300


def _write_vectors(path: Path, emb: Embeddings, n: int = N_WORDS) -> None:
    lines = [
        w + " " + " ".join(repr(float(x)) for x in v)
        for w, v in zip(emb.words[:n], emb.vectors[:n], strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture()
def vectors_file(tmp_path: Path, glove_20k: Embeddings) -> Path:
    path = tmp_path / "vectors.txt"
    _write_vectors(path, glove_20k)
    return path


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the source was read again instead of the prepared entry")

    monkeypatch.setattr("authormask.embeddings.registry.read_vectors_file", refuse)
    monkeypatch.setattr("authormask.embeddings.registry._load_glove", refuse)


def _entry(cache: Path) -> Path:
    (entry,) = cache.glob("*.vocab")
    return entry


def test_second_load_is_memory_mapped_from_the_entry(
    tmp_path: Path, vectors_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    built = load_embeddings(vectors_file, cache_dir=cache)
    _no_parsing(monkeypatch)
    loaded = load_embeddings(vectors_file, cache_dir=cache)
    assert loaded.identity == built.identity
    assert loaded.words == built.words
    assert np.array_equal(loaded.vectors, built.vectors)
    base = loaded.vectors
    while isinstance(base, np.ndarray):
        base = base.base
    base = base.obj if isinstance(base, memoryview) else base
    assert isinstance(base, mmap.mmap)  # a (copy-on-write) map of the file, not a copy
    assert loaded.vectors.flags.writeable  # as vectors built in memory (torch needs that)
    assert np.array_equal(loaded.squared_norms(), built.squared_norms())
    assert loaded.index_of(built.words[7]) == 7
    # another K or another filter is another entry, never this one
    monkeypatch.undo()
    load_embeddings(vectors_file, vocab_size=100, cache_dir=cache)
    load_embeddings(vectors_file, cache_dir=cache, filter=None)
    assert len(list(cache.glob("*.vocab"))) == 3


def test_packaged_set_comes_from_the_entry(
    tmp_path: Path, glove_20k: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    first = load_embeddings("glove-6b-50d", vocab_size=2_000, cache_dir=cache)
    assert first.identity == glove_20k.restrict(2_000).identity
    _no_parsing(monkeypatch)
    again = load_embeddings("glove-6b-50d", vocab_size=2_000, cache_dir=cache)
    assert again.identity == first.identity


@pytest.mark.parametrize("where", ["payload", "header", "magic"])
def test_a_flipped_byte_is_detected_and_rebuilt(
    tmp_path: Path,
    vectors_file: Path,
    where: str,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    built = load_embeddings(vectors_file, cache_dir=cache)
    entry = _entry(cache)
    data = bytearray(entry.read_bytes())
    offset = {"magic": 3, "header": 60, "payload": len(data) - 4 * 25}[where]
    data[offset] ^= 0x01
    entry.write_bytes(bytes(data))
    assert read_entry(entry, {}) is None
    parsed: list[int] = []
    original = load_embeddings.__globals__["read_vectors_file"]

    def counting(*args: object, **kwargs: object) -> object:
        parsed.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr("authormask.embeddings.registry.read_vectors_file", counting)
    with caplog.at_level(logging.WARNING, logger="authormask.embeddings.prepared"):
        again = load_embeddings(vectors_file, cache_dir=cache)
    assert parsed == [1]  # rebuilt from the source
    assert again.identity == built.identity
    assert np.array_equal(again.vectors, built.vectors)
    assert "damaged prepared vocabulary" in caplog.text
    assert read_entry(entry, {}) is not None  # and written again, whole


def test_a_truncated_entry_is_rebuilt(tmp_path: Path, vectors_file: Path) -> None:
    cache = tmp_path / "cache"
    built = load_embeddings(vectors_file, cache_dir=cache)
    entry = _entry(cache)
    data = entry.read_bytes()
    for cut in (len(data) - 1, len(data) // 2, 20, 0):
        entry.write_bytes(data[:cut])
        assert read_entry(entry, {}) is None
        again = load_embeddings(vectors_file, cache_dir=cache)
        assert again.identity == built.identity
        assert entry.read_bytes() == data


def test_an_entry_made_for_another_recipe_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "x.vocab"
    assert write_entry(path, {"recipe": {"a": 1}}, {"v": np.arange(5, dtype=np.float32)})
    assert read_entry(path, {"recipe": {"a": 2}}) is None
    found = read_entry(path, {"recipe": {"a": 1}})
    assert found is not None
    assert found.arrays["v"].tolist() == [0, 1, 2, 3, 4]


def _entry_of_two(path: Path) -> dict[str, np.ndarray]:
    arrays = {
        "v": np.arange(300_000, dtype=np.float32).reshape(-1, 3),
        "w": np.frombuffer(b"alpha\nbeta", dtype=np.uint8),
    }
    assert write_entry(path, {"recipe": {"a": 1}}, arrays)
    return arrays


def test_what_a_reader_makes_meanwhile_is_handed_out_with_a_whole_entry(tmp_path: Path) -> None:
    """``meanwhile`` is called on the header and the arrays, read-only (even those handed out
    writable), while they are hashed; what it returns is the entry's ``made``."""
    path = tmp_path / "x.vocab"
    arrays = _entry_of_two(path)
    seen: list[object] = []

    def meanwhile(header: dict, stored: dict[str, np.ndarray]) -> tuple[str, ...]:
        seen.append(
            (header["recipe"], sorted(stored), [a.flags.writeable for a in stored.values()])
        )
        return tuple(bytes(stored["w"]).decode().split("\n"))

    found = read_entry(path, {"recipe": {"a": 1}}, writable=frozenset({"v"}), meanwhile=meanwhile)
    assert found is not None
    assert found.made == ("alpha", "beta")
    assert seen == [({"a": 1}, ["v", "w"], [False, False])]
    assert found.arrays["v"].flags.writeable and not found.arrays["w"].flags.writeable
    assert np.array_equal(found.arrays["v"], arrays["v"])
    plain = read_entry(path, {"recipe": {"a": 1}})
    assert plain is not None and plain.made is None and plain.sha256 == found.sha256


@pytest.mark.parametrize("raises", [False, True])
def test_nothing_made_of_a_damaged_entry_is_handed_out(tmp_path: Path, raises: bool) -> None:
    """A byte of an array flipped: what ``meanwhile`` made of it (or the error it raised) is
    dropped and the entry is damaged (None), whatever it made."""
    path = tmp_path / "x.vocab"
    _entry_of_two(path)
    data = bytearray(path.read_bytes())
    data[-20] ^= 0xFF  # in the payload's last array
    path.write_bytes(bytes(data))

    def meanwhile(header: dict, stored: dict[str, np.ndarray]) -> str:
        if raises:
            raise ValueError("made of what was read")
        return "made"

    assert read_entry(path, {}, meanwhile=meanwhile) is None


def test_an_error_of_what_a_reader_makes_of_a_whole_entry_is_raised(tmp_path: Path) -> None:
    """... and the interpreter's switch interval, shortened while the reader and the hashing
    thread run, is given back (here and after a whole read)."""
    path = tmp_path / "x.vocab"
    _entry_of_two(path)
    before = sys.getswitchinterval()
    during: list[float] = []

    def meanwhile(header: dict, stored: dict[str, np.ndarray]) -> None:
        during.append(sys.getswitchinterval())
        raise KeyError("no such array")

    with pytest.raises(KeyError, match="no such array"):
        read_entry(path, {}, meanwhile=meanwhile)
    assert sys.getswitchinterval() == before
    assert during and during[0] < before
    assert read_entry(path, {}, meanwhile=lambda header, stored: None) is not None
    assert sys.getswitchinterval() == before


def test_unwritable_cache_builds_in_memory_with_one_warning(
    tmp_path: Path, vectors_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    cache = blocker / "cache"  # cannot be created (read-only folders behave alike)
    with caplog.at_level(logging.WARNING):
        first = load_embeddings(vectors_file, cache_dir=cache)
        shared_index(first).prepare_index()
        second = load_embeddings(vectors_file, vocab_size=200, cache_dir=cache)
        shared_index(second).prepare_index()
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert "building in memory" in lines[0].getMessage()
    assert first.identity == load_embeddings(vectors_file, cache_dir=None).identity
    assert second.words == first.words[:200]


def test_concurrent_first_runs_leave_one_whole_entry(tmp_path: Path, vectors_file: Path) -> None:
    cache = tmp_path / "cache"
    barrier = threading.Barrier(4)
    results: list[Embeddings] = []

    def first_run() -> None:
        barrier.wait()
        results.append(load_embeddings(vectors_file, cache_dir=cache))

    threads = [threading.Thread(target=first_run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({r.identity for r in results}) == 1
    assert [p.suffix for p in cache.iterdir()] == [".vocab"]  # no temporary file left
    assert read_entry(_entry(cache), {}) is not None


def test_search_index_is_prepared_on_disk_and_checked(
    tmp_path: Path, vectors_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "cache"
    emb = prepare_embeddings(vectors_file, cache_dir=cache)
    (index_file,) = cache.glob("*.index")
    queries = sample_nd_laplace(emb.vectors[:200].astype(np.float64), epsilon=5, random_state=3)
    expected = brute_force_nearest(emb.vectors, queries)
    for damage in (False, True):
        if damage:
            data = bytearray(index_file.read_bytes())
            data[-9] ^= 0x40
            index_file.write_bytes(bytes(data))
        again = load_embeddings(vectors_file, cache_dir=cache)
        index = NearestWordIndex(
            again.vectors,
            backend="fused",
            norms=again.squared_norms(),
            index_path=again.index_path,
            vectors_sha256=again.identity.vectors_sha256,
        )
        with caplog.at_level(logging.WARNING, logger="authormask.embeddings.prepared"):
            got = index.nearest(queries)
        assert np.array_equal(got, expected)
        assert ("damaged" in caplog.text) == damage
    assert read_entry(index_file, {}) is not None  # rebuilt whole


def test_small_requests_screen_without_the_kernel_and_agree(glove_20k: Embeddings) -> None:
    """An ``auto`` index screens its first SMALL_QUERIES queries with BLAS (no numba import),
    then switches to the fused kernel; both are certified, so every answer is the exact one."""
    rows = np.random.default_rng(0).integers(0, len(glove_20k), SMALL_QUERIES + 600)
    z = sample_nd_laplace(glove_20k.vectors[rows].astype(np.float64), epsilon=8, random_state=1)
    index = NearestWordIndex(glove_20k.vectors)
    small = index.nearest(z[:SMALL_QUERIES])
    assert index._backend is None  # still not chosen: the kernel was not needed
    rest = index.nearest(z[SMALL_QUERIES:])
    assert index._backend in ("fused", "blas")
    fused = NearestWordIndex(glove_20k.vectors, backend="fused").nearest(z)
    assert np.array_equal(np.concatenate([small, rest]), fused)
    assert np.array_equal(small[:50], brute_force_nearest(glove_20k.vectors, z[:50]))


def test_pickled_prepared_embeddings_reload_by_recipe(tmp_path: Path, vectors_file: Path) -> None:
    cache = tmp_path / "cache"
    emb = load_embeddings(vectors_file, cache_dir=cache)
    load_embeddings(vectors_file, cache_dir=cache)  # prepared
    copy = pickle.loads(pickle.dumps(emb))
    assert copy.identity == emb.identity
    assert len(pickle.dumps(emb)) < 2_000  # the recipe travels, never the matrix


def test_one_sentence_release_imports_only_what_it_needs(tmp_path: Path) -> None:
    """A one-sentence emp-text release from a prepared cache, its entities kept, imports neither
    the fused kernel (numba) nor any heavy library of other mechanisms or front ends. (The
    default entity step loads the spaCy recogniser, and spaCy's thinc imports torch.)"""
    cache = tmp_path / "cache"
    code = (
        "import sys\n"
        "from authormask.cli.main import main\n"
        "rc = main(['obfuscate', sys.argv[1], '--mechanism', 'emp-text', '--epsilon', '10',"
        " '--seed', '1', '--vocab-size', '20000', '--cache-dir', sys.argv[2],"
        " '--entities', 'keep', '--no-history'])\n"
        "heavy = {'numba', 'torch', 'sklearn', 'scipy', 'fastapi', 'matplotlib', 'dask',"
        " 'pyarrow', 'pandas', 'ot', 'transformers'}\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & heavy))\n"
        "sys.exit(rc)\n"
    )
    text = tmp_path / "s.txt"
    text.write_text("The ship sailed down the river.\n", encoding="utf-8")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    outs = []
    for _ in range(2):  # the first run builds the prepared vocabulary
        run = subprocess.run(
            [sys.executable, "-c", code, str(text), str(cache)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr
        outs.append(run.stdout)
    assert "LOADED []" in outs[1], outs[1]
    assert outs[0].split("LOADED")[0] == outs[1].split("LOADED")[0]  # same seeded release


def test_cli_prepare_builds_the_entry_and_index(
    tmp_path: Path, vectors_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from authormask.cli.main import main

    cache = tmp_path / "cache"
    args = ["embeddings", "--prepare", "--embeddings", str(vectors_file), "--cache-dir", str(cache)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("prepared custom-vectors (K=") and str(cache) in out
    assert sorted(p.suffix for p in cache.iterdir()) == [".index", ".vocab"]
    assert main(args) == 0  # a second time only checks
    assert capsys.readouterr().out.splitlines()[0] == out.splitlines()[0]


def test_readers_of_two_threads_give_back_the_switch_interval_they_found(tmp_path: Path) -> None:
    """Two readers at once (``serve``'s threads), the first to start ending first: the interval
    is the one found before either (each giving back what it found left the second's short
    one for good)."""
    path = tmp_path / "x.vocab"
    _entry_of_two(path)
    before = sys.getswitchinterval()
    first_in, second_in = threading.Event(), threading.Event()

    def first_meanwhile(header: dict, stored: dict[str, np.ndarray]) -> str:
        first_in.set()
        assert second_in.wait(30)
        return "first"

    found: list[object] = []
    first = threading.Thread(
        target=lambda: found.append(read_entry(path, {}, meanwhile=first_meanwhile))
    )
    first.start()
    assert first_in.wait(30)

    def second_meanwhile(header: dict, stored: dict[str, np.ndarray]) -> str:
        second_in.set()
        first.join(30)  # the first reader ends while this one still reads
        assert not first.is_alive()
        return "second"

    second = read_entry(path, {}, meanwhile=second_meanwhile)
    assert second is not None and second.made == "second"
    assert len(found) == 1 and getattr(found[0], "made", None) == "first"
    assert sys.getswitchinterval() == before
