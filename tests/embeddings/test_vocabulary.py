"""The vocabulary filter ``word-like/1``: its rules on real GloVe entries, its place before the K
most frequent words are taken, the identity that names it and the cache that keeps it apart."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from authormask.embeddings import Embeddings, is_word_like, load_embeddings
from authormask.embeddings.prepared import read_entry
from authormask.embeddings.vocabulary import VOCABULARY_FILTERS, resolve_filter
from authormask.exceptions import EmbeddingsError


@pytest.fixture(scope="module")
def glove_raw() -> Embeddings:
    """All 400,000 GloVe 6B entries, unfiltered."""
    return load_embeddings("glove-6b-50d", cache_dir=None, filter=None)


# Real entries of GloVe 6B (each is checked to be in it), by the rule that removes them.
DROPPED = {
    "punctuation": [",", ".", "--", "...", "$", ":)", "“", "…"],
    "letterless digits": ["1,000", "2.5", "1/2", "8:30", "6-3", "202-547-4512", "(212)"],
    "long digit runs": ["90210", "10000", "02107-2378", "20003", "55-11-30233331"],
    "e-mail": ["mikell@nytimes.com", "latwp@ldc.upenn.edu", "loren.steffy@chron.com", "@"],
    "hashtag / colour": ["#ffffff", "#ukqeqtqszb", "#e"],
    "markup": ["formula_1", "codice_1", "period_1", "___"],
    "url": ["http://www.nytimes.com", "http://en.wikipedia.org/wiki/wikipedia:footnotes"],
    "www": ["www.boston.com", "www.star", "www.nytsyn"],
    "host": [
        "nytimes.com",
        "moveon.org",
        "whitehouse.gov",
        "bbc.co.uk",
        "gazeta.ru",
        "justin.tv",
        "index.html",
        "sicheianytimes.com",  # an e-mail address with its "@" lost
        "parents[at]coxnews.com",
    ],
}
KEPT = [
    "the",
    "'s",
    "n't",
    "\u2019s",
    "7",
    "1990",
    "0001",
    "1990s",
    "19th",
    "3rd",
    "mp3",
    "f-16",
    "b-52",
    "747-400s",
    "10,000-strong",
    "1-800-flowers",
    "state-of-the-art",
    "o'neill",
    "at&t",
    "and/or",
    "km/h",
    "u.s.",
    "ph.d.",
    "a.m.",
    "e.coli",
    "st.louis",
    "b.sc",
    "will.i.am",
    "www",
    "naïve",
    "के",
]


@pytest.mark.parametrize(
    ("rule", "word"), [(rule, w) for rule, words in DROPPED.items() for w in words]
)
def test_policy_drops_real_glove_non_words(glove_raw: Embeddings, rule: str, word: str) -> None:
    assert word in glove_raw
    assert not is_word_like(word), rule


@pytest.mark.parametrize("word", KEPT)
def test_policy_keeps_real_glove_words(glove_raw: Embeddings, word: str) -> None:
    assert word in glove_raw
    assert is_word_like(word)


@pytest.mark.parametrize(
    "word", ["new york", "new\u00a0york", "tab\tword", "", "a\x00b", "line\nbreak"]
)
def test_policy_drops_whitespace_and_control_characters(word: str) -> None:
    assert not is_word_like(word)


def test_policy_counts_on_glove(glove_raw: Embeddings) -> None:
    """How much of GloVe 6B the policy removes (reported in the README)."""
    first_100k = sum(not is_word_like(w) for w in glove_raw.words[:100_000])
    everything = sum(not is_word_like(w) for w in glove_raw.words)
    assert (first_100k, everything) == (4_329, 32_818)


def test_filtered_vocabulary_of_size_k(glove_raw: Embeddings, glove_20k: Embeddings) -> None:
    """The filter runs before the K most frequent are taken: K words, none failing the policy,
    exactly the first K of GloVe's frequency order that pass it."""
    assert len(glove_20k) == 20_000
    assert glove_20k.identity.vocabulary_filter == "word-like/1"
    assert all(is_word_like(w) for w in glove_20k.words)
    assert not any(("@" in w or "://" in w or w.startswith("www.")) for w in glove_20k.words)
    expected = [w for w in glove_raw.words[:25_000] if is_word_like(w)][:20_000]
    assert list(glove_20k.words) == expected
    last = glove_raw.index_of(glove_20k.words[-1])
    assert last > 20_000  # reaches beyond the raw 20k to make up for what was left out
    rows = [glove_raw.index_of(w) for w in glove_20k.words[:500]]
    assert np.array_equal(glove_20k.vectors[:500], glove_raw.vectors[rows])
    raw_20k = glove_raw.restrict(20_000)
    assert {",", ".", "nytimes.com"} <= set(raw_20k.words)
    assert not {",", ".", "nytimes.com"} & set(glove_20k.words)


def test_identity_names_the_filter(glove_20k: Embeddings) -> None:
    raw = load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=None, filter=None)
    assert raw.identity.vocabulary_filter == "none"
    assert raw.identity.to_dict()["vocabulary_filter"] == "none"
    assert glove_20k.identity.to_dict()["vocabulary_filter"] == "word-like/1"
    assert "vocabulary filter word-like/1" in glove_20k.identity.describe()
    assert "vocabulary filter none" in raw.identity.describe()
    assert raw.identity.words_sha256 != glove_20k.identity.words_sha256
    assert raw.identity != glove_20k.identity
    # restricting keeps the filter's name
    assert glove_20k.restrict(100).identity.vocabulary_filter == "word-like/1"


def test_identity_differs_even_when_nothing_is_filtered(spacy_md: Embeddings) -> None:
    """spaCy's rows are all lowercase words: the filter removes nothing, yet the identity still
    says which policy was applied."""
    raw = load_embeddings("spacy-md-300d", cache_dir=None, filter=None)
    assert raw.words == spacy_md.words
    assert raw.identity.words_sha256 == spacy_md.identity.words_sha256
    assert raw.identity != spacy_md.identity
    assert spacy_md.identity.vocabulary_filter == "word-like/1"


def test_filter_names() -> None:
    assert resolve_filter("word-like") == resolve_filter("word-like/1") == "word-like/1"
    assert resolve_filter(None) is None and resolve_filter("none") is None
    assert set(VOCABULARY_FILTERS.values()) == {"word-like/1"}
    with pytest.raises(EmbeddingsError, match="unknown vocabulary filter 'words'"):
        load_embeddings("glove-6b-50d", vocab_size=10, cache_dir=None, filter="words")


def test_embeddings_refuse_a_filter_their_words_do_not_pass() -> None:
    vectors = np.eye(3, dtype=np.float32)
    ok = Embeddings("toy", "test", ("cat", "dog", "1990"), vectors, vocabulary_filter="word-like")
    assert ok.identity.vocabulary_filter == "word-like/1"
    with pytest.raises(EmbeddingsError, match=r"'a@b\.org' does not pass vocabulary filter"):
        Embeddings("toy", "test", ("cat", "a@b.org", "dog"), vectors, vocabulary_filter="word-like")
    plain = Embeddings("toy", "test", ("cat", "a@b.org", "dog"), vectors)
    assert plain.identity.vocabulary_filter == "none"


def _write_glove_text(path: Path, raw: Embeddings, n: int) -> None:
    lines = [
        w + " " + " ".join(repr(float(x)) for x in v)
        for w, v in zip(raw.words[:n], raw.vectors[:n], strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_file_vocab_size_counts_filtered_words(tmp_path: Path, glove_raw: Embeddings) -> None:
    path = tmp_path / "glove.txt"
    _write_glove_text(path, glove_raw, 400)  # includes , . " ( ) -- $ ...
    emb = load_embeddings(path, vocab_size=300, cache_dir=None)
    expected = [w for w in glove_raw.words[:400] if is_word_like(w)][:300]
    assert list(emb.words) == expected and len(emb) == 300
    assert np.array_equal(emb.vectors, glove_raw.lookup(expected))
    raw = load_embeddings(path, vocab_size=300, cache_dir=None, filter=None)
    assert raw.words == glove_raw.words[:300]


def test_cache_keeps_filtered_and_unfiltered_apart(
    tmp_path: Path, glove_raw: Embeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "glove.txt"
    _write_glove_text(path, glove_raw, 200)
    cache = tmp_path / "cache"
    filtered = load_embeddings(path, cache_dir=cache)
    raw = load_embeddings(path, cache_dir=cache, filter=None)
    assert len(list(cache.glob("*.vocab"))) == 2
    assert "," in raw and "," not in filtered

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("the file was parsed again instead of read from the cache")

    monkeypatch.setattr("authormask.embeddings.registry.read_vectors_file", no_parsing)
    again_filtered = load_embeddings(path, cache_dir=cache, filter="word-like/1")
    again_raw = load_embeddings(path, cache_dir=cache, filter="none")
    assert again_filtered.identity == filtered.identity
    assert again_raw.identity == raw.identity


def test_cache_never_replaces_a_symlink(
    tmp_path: Path, glove_raw: Embeddings, caplog: pytest.LogCaptureFixture
) -> None:
    """Cache files are written through ``_io.commit``: a symlink at a cache path is left
    alone (one warning), the load still works and no temporary file is left behind."""
    path = tmp_path / "glove.txt"
    _write_glove_text(path, glove_raw, 50)
    probe = tmp_path / "probe"
    load_embeddings(path, cache_dir=probe)
    (name,) = [p.name for p in probe.iterdir()]
    cache = tmp_path / "cache"
    cache.mkdir()
    elsewhere = tmp_path / "elsewhere.vocab"
    elsewhere.write_bytes(b"not mine")
    os.symlink(elsewhere, cache / name)
    with caplog.at_level(logging.WARNING, logger="authormask.embeddings.prepared"):
        emb = load_embeddings(path, cache_dir=cache)
    assert len(emb) == len([w for w in glove_raw.words[:50] if is_word_like(w)])
    assert elsewhere.read_bytes() == b"not mine"
    assert "cannot write the prepared-vocabulary cache" in caplog.text
    assert sorted(p.name for p in cache.iterdir()) == [name]


def test_cache_files_are_complete_and_use_the_umask(tmp_path: Path, glove_raw: Embeddings) -> None:
    path = tmp_path / "glove.txt"
    _write_glove_text(path, glove_raw, 50)
    cache = tmp_path / "cache"
    load_embeddings(path, cache_dir=cache, filter=None)
    files = sorted(cache.iterdir())
    assert [p.suffix for p in files] == [".vocab"]
    mask = os.umask(0)
    os.umask(mask)
    assert all((p.stat().st_mode & 0o777) == (0o666 & ~mask) for p in files)
    found = read_entry(files[0], {})
    assert found is not None
    header, arrays = found.header, found.arrays
    words = arrays["words"].tobytes().decode("utf-8").split("\n")
    assert words == list(glove_raw.words[:50])
    assert np.array_equal(arrays["vectors"], glove_raw.vectors[:50])
    assert header["identity"]["words_sha256"] == glove_raw.restrict(50).identity.words_sha256
