"""Packaged sets, file formats, vocabulary restriction, identities and the cache."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from authormask.embeddings import Embeddings, load_embeddings
from authormask.exceptions import EmbeddingsError


def test_glove_default_is_frequency_ordered_and_restricted(glove_20k: Embeddings) -> None:
    assert glove_20k.dimension == 50
    assert len(glove_20k) == 20_000
    assert glove_20k.words[0] == "the"
    assert "president" in glove_20k and "chicago" in glove_20k


def test_spacy_md_rows_are_distinct_lowercase_words(spacy_md: Embeddings) -> None:
    assert spacy_md.dimension == 300
    assert 12_000 < len(spacy_md) <= 20_000
    assert all(re.fullmatch(r"[a-z]+(?:-[a-z]+)*", w) for w in spacy_md.words)
    assert len(np.unique(spacy_md.vectors, axis=0)) == len(spacy_md)
    # semantic sanity: "king" is closer to "queen" than to "carrot"
    v = {w: spacy_md.vectors[spacy_md.index_of(w)] for w in ("king", "queen", "carrot")}
    assert np.linalg.norm(v["king"] - v["queen"]) < np.linalg.norm(v["king"] - v["carrot"])


def test_identity_depends_on_vocabulary(glove_20k: Embeddings) -> None:
    small = glove_20k.restrict(1000)
    assert small.identity.vocab_size == 1000
    assert small.identity.words_sha256 != glove_20k.identity.words_sha256
    again = glove_20k.restrict(1000)
    assert again.identity == small.identity


def _write_text(path: Path, emb: Embeddings, n: int, header: bool) -> None:
    lines = [f"{n} {emb.dimension}"] if header else []
    for w, v in zip(emb.words[:n], emb.vectors[:n], strict=False):
        lines.append(w + " " + " ".join(repr(float(x)) for x in v))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_w2v_bin(path: Path, emb: Embeddings, n: int) -> None:
    with path.open("wb") as fh:
        fh.write(f"{n} {emb.dimension}\n".encode())
        for w, v in zip(emb.words[:n], emb.vectors[:n], strict=False):
            fh.write(w.encode() + b" " + v.astype("<f4").tobytes() + b"\n")


@pytest.mark.parametrize("kind", ["glove.txt", "fasttext.vec", "word2vec.bin"])
def test_file_formats_round_trip(tmp_path: Path, glove_20k: Embeddings, kind: str) -> None:
    path = tmp_path / kind
    if kind.endswith(".bin"):
        _write_w2v_bin(path, glove_20k, 300)
    else:
        _write_text(path, glove_20k, 300, header=kind.endswith(".vec"))
    emb = load_embeddings(path, vocab_size=200, cache_dir=None)
    assert emb.words == glove_20k.words[:200]
    assert np.array_equal(emb.vectors, glove_20k.vectors[:200])


def test_second_load_comes_from_cache(tmp_path: Path, glove_20k: Embeddings) -> None:
    path = tmp_path / "vectors.txt"
    _write_text(path, glove_20k, 100, header=False)
    cache = tmp_path / "cache"
    first = load_embeddings(path, cache_dir=cache)
    assert len(list(cache.glob("*.vocab"))) == 1
    path.write_text("garbage that would not parse\n")  # the entry is bound to the content
    with pytest.raises(EmbeddingsError):
        load_embeddings(path, cache_dir=cache)
    _write_text(path, glove_20k, 100, header=False)
    second = load_embeddings(path, cache_dir=cache)
    assert second.identity.words_sha256 == first.identity.words_sha256
    assert len(list(cache.glob("*.vocab"))) == 1  # re-read after the edit, the entry rebuilt


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a 1.0 2.0\nb 1.0\n", "expected 2 values"),
        ("a 1.0 x\n", "non-numeric"),
        ("", "no word vectors"),
        ("3 2\na 1 2\nb 1\n", "expected 2 values"),
        ("3 2\na 1 2\nb 1 2\n", "header declares 3 words but the file has 2 records"),
    ],
)
def test_malformed_text_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(EmbeddingsError, match=message):
        load_embeddings(path, cache_dir=None)


def test_truncated_binary_file(tmp_path: Path, glove_20k: Embeddings) -> None:
    path = tmp_path / "vectors.bin"
    _write_w2v_bin(path, glove_20k, 10)
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(EmbeddingsError, match="truncated"):
        load_embeddings(path, cache_dir=None)


def test_unknown_name() -> None:
    with pytest.raises(EmbeddingsError, match="unknown embeddings 'nope'"):
        load_embeddings("nope")


def _vec(v: np.ndarray) -> str:
    return " ".join(repr(float(x)) for x in v)


@pytest.mark.parametrize("header", [False, True])
def test_words_with_spaces_are_split_from_the_right(
    tmp_path: Path, glove_20k: Embeddings, header: bool
) -> None:
    """``new york 0.1 ... 0.5``: the last n fields are the vector, the rest is one entry. The
    multi-word entry comes first, so a headerless file must not take its dimension from it."""
    real = [w for w in glove_20k.words[:30] if w not in {"new", "york"}][:8]
    lines = [f"new york {_vec(glove_20k.lookup(['york'])[0])}"]
    lines += [f"{w} {_vec(v)}" for w, v in zip(real, glove_20k.lookup(real), strict=True)]
    lines.insert(4, f"los  angeles   {_vec(glove_20k.lookup(['angeles'])[0])}")  # runs of spaces
    if header:
        lines.insert(0, f"{len(lines)} {glove_20k.dimension}")
    path = tmp_path / "vectors.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    raw = load_embeddings(path, cache_dir=None, filter=None)
    assert raw.dimension == 50
    assert raw.words[0] == "new york" and "los  angeles" in raw
    assert np.array_equal(raw.lookup(["new york"]), glove_20k.lookup(["york"]))
    assert np.array_equal(raw.lookup(real), glove_20k.lookup(real))
    # a token never contains a space: word-like/2 (as /1) keeps such entries out of the
    # vocabulary, and vocab_size counts the words that are kept
    emb = load_embeddings(path, vocab_size=8, cache_dir=tmp_path / "cache")
    assert emb.words == tuple(real)
    assert emb.identity.vocabulary_filter == "word-like/2"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "3 2\na 1 2\nb 1 2\n",
            r"^\S+: the header declares 3 words but the file has 2 records$",
        ),
        (
            "1 2\na 1 2\nb 1 2\nc 3 4\n",
            r"^\S+: the header declares 1 words but the file has 3 records$",
        ),
        (
            "2 2\na 1 2 3\nb 1 2 3\n",
            "header declares dimension 2 but most of the first 2 records have 3 values",
        ),
    ],
)
def test_header_disagreements_are_one_line_errors(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.vec"
    path.write_text(content)
    with pytest.raises(EmbeddingsError, match=message) as info:
        load_embeddings(path, cache_dir=None)
    assert "\n" not in str(info.value)


def test_binary_header_count_too_small(tmp_path: Path, glove_20k: Embeddings) -> None:
    path = tmp_path / "vectors.bin"
    _write_w2v_bin(path, glove_20k, 10)
    data = path.read_bytes()
    path.write_bytes(b"8" + data[data.index(b" ") :])  # header says 8 of the 10 records
    with pytest.raises(EmbeddingsError, match="header declares 8 words but the file has more"):
        load_embeddings(path, cache_dir=None)
    assert len(load_embeddings(path, vocab_size=5, cache_dir=None)) == 5  # stops before


def test_tabs_runs_of_spaces_and_whitespace_words(tmp_path: Path) -> None:
    """Fields may be separated by any whitespace; a record whose word is whitespace only (some
    fastText files have them) is skipped; a trailing space (fastText) is no extra field."""
    path = tmp_path / "vectors.vec"
    path.write_text("4 2\nbudget\t1 2\n\u00a0 9 9\ntaxes  3   4 \nnew york 5 6\n", encoding="utf-8")
    raw = load_embeddings(path, cache_dir=None, filter=None)
    assert raw.words == ("budget", "taxes", "new york")
    assert raw.vectors.tolist() == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert load_embeddings(path, cache_dir=None).words == ("budget", "taxes")
