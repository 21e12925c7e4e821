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
    assert len(list(cache.glob("*.npy"))) == 1
    path.write_text("garbage that would not parse\n")  # same size? no: key includes size+mtime
    with pytest.raises(EmbeddingsError):
        load_embeddings(path, cache_dir=cache)
    _write_text(path, glove_20k, 100, header=False)
    second = load_embeddings(path, cache_dir=cache)
    assert second.identity.words_sha256 == first.identity.words_sha256
    assert len(list(cache.glob("*.npy"))) == 2  # re-read after the edit, cached again


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


def test_words_with_spaces_are_skipped_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "vectors.txt"
    path.write_text("3 2\nbudget 1 2\nnew york 3 4\ntaxes 5 6\n")
    emb = load_embeddings(path, cache_dir=tmp_path / "cache")
    assert emb.words == ("budget", "taxes")
    assert emb.lookup(["taxes"]).tolist() == [[5.0, 6.0]]
