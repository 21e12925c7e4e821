"""The vocabulary filters ``word-like/1`` and ``word-like/2`` (the default since issue 47): their
rules on real GloVe entries, their place before the K most frequent words are taken, the
identity that names them and the cache that keeps them apart."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np
import pytest

from authormask.embeddings import Embeddings, is_plain_word, is_word_like, load_embeddings
from authormask.embeddings.prepared import read_entry
from authormask.embeddings.registry import PINNED_IDENTITIES
from authormask.embeddings.vocabulary import (
    VOCABULARY_FILTERS,
    describe_filter,
    resolve_filter,
    word_predicate,
)
from authormask.exceptions import EmbeddingsError
from authormask.text.tokens import CLITICS, tokenize


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


# word-like/2 (issue 47, item 4): real GloVe entries that word-like/1 keeps and that came out of a
# decoder as released "nouns" (or are of their kind), by the rule of word-like/2 that removes them
DROPPED_2 = {
    "not one word for the tokeniser": [
        "&amp;",  # an HTML entity
        ";p",
        "at&t",
        "r&b",
        "and/or",
        "km/h",
        "c++",
        "us$",
        "u.s.",
        "mr.",
        "ph.d.",
        "'70s",
        "'em",
        "anti-",
        "\u2019s",  # a typographic apostrophe: a token's lookup key writes it as '
        "o\u2019brien",
    ],
    "letters and digits mixed": [
        "u2019t",  # an escaped apostrophe
        "u2019s",
        "u201d",
        "u2014",
        "67s",
        "mp3",
        "co2",
        "h1n1",
        "g8",
        "a380",
        "100m",
        "update1",
        "49ers",
    ],
}
KEPT_2 = [
    "the",
    "'s",
    "n't",
    "7",
    "1990",
    "1990s",
    "60s",
    "19th",
    "3rd",
    "21st",
    "22nd",
    "11th",
    "10-year",
    "mid-1990s",
    "19th-century",
    "f-16",
    "3-d",
    "10,000-strong",
    "1.5-inch",
    "state-of-the-art",
    "o'neill",
    "o'clock",
    "naïve",
    "के",
    # brand names written as one word are words by these rules (no packaged list tells them)
    "directv",
    "hewlett-packard",
]


@pytest.mark.parametrize(
    ("rule", "word"), [(rule, w) for rule, words in DROPPED_2.items() for w in words]
)
def test_word_like_2_drops_markup_escapes_and_codes(
    glove_raw: Embeddings, rule: str, word: str
) -> None:
    assert word in glove_raw
    assert is_word_like(word)  # word-like/1 let it through
    assert not is_plain_word(word), rule
    assert word_predicate("word-like") is is_plain_word


@pytest.mark.parametrize("word", KEPT_2)
def test_word_like_2_keeps_words_numbers_ordinals_and_decades(
    glove_raw: Embeddings, word: str
) -> None:
    assert word in glove_raw
    assert is_plain_word(word)


@pytest.mark.parametrize(
    "word", ["u00e9", "he's", "don't", "22th", "1rd", "a--b", "-a", "1990s.", "ﬁ&"]
)
def test_word_like_2_drops_constructed_non_words(word: str) -> None:
    assert not is_plain_word(word)


def test_word_like_2_is_what_the_tokeniser_reads_as_one_word(glove_raw: Embeddings) -> None:
    """Every GloVe entry word-like/2 keeps is one word token of the tokeniser (numbers read as
    emp-doc and emp-write read them), or a clitic; an entry that is one and that word-like/1
    keeps is dropped only for mixing letters and digits."""

    def one_word(w: str) -> bool:
        tokens = tokenize(w, compounds=True)
        return len(tokens) == 1 and tokens[0].is_word and tokens[0].text == w

    others = [w for w in glove_raw.words if not w.isalpha() and is_word_like(w)]
    kept = [w for w in others if is_plain_word(w)]
    assert kept and all(one_word(w) or w in CLITICS for w in kept)
    dropped_one_words = [w for w in others if not is_plain_word(w) and one_word(w)]
    assert all(
        "\u2019" in w or (any(c.isdigit() for c in w) and any(c.isalpha() for c in w))
        for w in dropped_one_words
    )


def test_word_like_2_counts_on_glove(glove_raw: Embeddings) -> None:
    """How much of what word-like/1 keeps word-like/2 removes (the module docstring says it):
    1,360 of the first 100,000 and 8,612 of all 367,182."""
    first = [w for w in glove_raw.words if is_word_like(w)]
    assert len(first) == 367_182
    assert sum(not is_plain_word(w) for w in first[:100_000]) == 1_360
    assert sum(not is_plain_word(w) for w in first) == 8_612
    assert sum(is_plain_word(w) for w in glove_raw.words) == 358_570


def test_default_vocabulary_holds_no_markup_escape_or_code(cache_dir: Path) -> None:
    """The default vocabulary (K = 100,000, the command line's) held ``&amp;``, ``u2019t`` and
    ``67s`` under word-like/1, so every decoder could release them; it holds none now, and it
    is pinned."""
    emb = load_embeddings("glove-6b-50d", vocab_size=100_000, cache_dir=cache_dir)
    assert emb.identity.vocabulary_filter == "word-like/2"
    junk = [w for words in DROPPED_2.values() for w in words]
    assert not [w for w in junk if w in emb]
    assert {"19th", "1990s", "o'neill", "10-year"} <= set(emb.words)
    pin = PINNED_IDENTITIES[("glove-6b-50d", "word-like/2", 100_000)]
    assert (emb.identity.words_sha256, emb.identity.vectors_sha256) == pin
    old = load_embeddings("glove-6b-50d", vocab_size=100_000, cache_dir=None, filter="word-like/1")
    assert {"&amp;", "u2019t", "67s"} <= set(old.words)


def test_describe_filter_names_the_rule() -> None:
    line = describe_filter("word-like")
    assert line.startswith("word-like/2: ")
    for what in ("&", ";", "u2019t", "67s", "19th", "1970s", "tokeniser"):
        assert what in line
    assert describe_filter("word-like/1").startswith("word-like/1: ")
    assert describe_filter("none").startswith("none")


def test_a_vocabulary_prepared_under_word_like_1_is_not_served_for_word_like_2(
    tmp_path: Path, glove_raw: Embeddings
) -> None:
    """The policy is part of a prepared entry's name and recipe: a cache filled under
    word-like/1 gets a second entry for the default, whose words are word-like/2's."""
    path = tmp_path / "glove.txt"
    rows = [glove_raw.index_of(w) for w in ("the", "&amp;", "u2019t", "67s", "house", "19th")]
    lines = [
        glove_raw.words[i] + " " + " ".join(repr(float(x)) for x in glove_raw.vectors[i])
        for i in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cache = tmp_path / "cache"
    old = load_embeddings(path, cache_dir=cache, filter="word-like/1")
    assert old.words == ("the", "&amp;", "u2019t", "67s", "house", "19th")
    new = load_embeddings(path, cache_dir=cache)
    assert new.words == ("the", "house", "19th")
    assert new.identity.vocabulary_filter == "word-like/2"
    assert new.identity.words_sha256 != old.identity.words_sha256
    assert len(list(cache.glob("*.vocab"))) == 2
    assert load_embeddings(path, cache_dir=cache).words == new.words


def test_filtered_vocabulary_of_size_k(glove_raw: Embeddings, glove_20k: Embeddings) -> None:
    """The filter runs before the K most frequent are taken: K words, none failing the policy,
    exactly the first K of GloVe's frequency order that pass it."""
    assert len(glove_20k) == 20_000
    assert glove_20k.identity.vocabulary_filter == "word-like/2"
    assert all(is_plain_word(w) for w in glove_20k.words)
    assert not any(("@" in w or "://" in w or w.startswith("www.")) for w in glove_20k.words)
    expected = [w for w in glove_raw.words[:25_000] if is_plain_word(w)][:20_000]
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
    assert glove_20k.identity.to_dict()["vocabulary_filter"] == "word-like/2"
    assert "vocabulary filter word-like/2" in glove_20k.identity.describe()
    assert "vocabulary filter none" in raw.identity.describe()
    assert raw.identity.words_sha256 != glove_20k.identity.words_sha256
    assert raw.identity != glove_20k.identity
    # restricting keeps the filter's name
    assert glove_20k.restrict(100).identity.vocabulary_filter == "word-like/2"


def test_identity_differs_even_when_nothing_is_filtered(spacy_md: Embeddings) -> None:
    """spaCy's rows are all lowercase words: the filter removes nothing, yet the identity still
    says which policy was applied."""
    raw = load_embeddings("spacy-md-300d", cache_dir=None, filter=None)
    assert raw.words == spacy_md.words
    assert raw.identity.words_sha256 == spacy_md.identity.words_sha256
    assert raw.identity != spacy_md.identity
    assert spacy_md.identity.vocabulary_filter == "word-like/2"


def test_filter_names() -> None:
    assert resolve_filter("word-like") == resolve_filter("word-like/2") == "word-like/2"
    assert resolve_filter("word-like/1") == "word-like/1"  # the earlier policy, unchanged
    assert resolve_filter(None) is None and resolve_filter("none") is None
    assert set(VOCABULARY_FILTERS.values()) == {"word-like/1", "word-like/2"}
    with pytest.raises(EmbeddingsError, match="unknown vocabulary filter 'words'"):
        load_embeddings("glove-6b-50d", vocab_size=10, cache_dir=None, filter="words")


def test_embeddings_refuse_a_filter_their_words_do_not_pass() -> None:
    vectors = np.eye(3, dtype=np.float32)
    ok = Embeddings("toy", "test", ("cat", "dog", "1990"), vectors, vocabulary_filter="word-like")
    assert ok.identity.vocabulary_filter == "word-like/2"
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
    expected = [w for w in glove_raw.words[:400] if is_plain_word(w)][:300]
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
    again_filtered = load_embeddings(path, cache_dir=cache, filter="word-like/2")
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
    assert len(emb) == len([w for w in glove_raw.words[:50] if is_plain_word(w)])
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
