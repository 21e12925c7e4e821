"""Stylometric features and the character n-gram fastText authorship classifier."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from authormask.datasets import load_dataset
from authormask.evaluation.measures.attackers.fasttext_author import (
    FastTextAuthorship,
    char_ngrams,
)
from authormask.evaluation.measures.utilities.stylometry import (
    feature_names,
    stylometric_change,
    stylometric_vector,
)
from authormask.evaluation.protocols.bo2021 import select_documents
from authormask.evaluation.study import Item

TEXT = "The cat sat on the mat. It was happy; the dog was not!"


def test_feature_vector_has_the_documented_features():
    v = stylometric_vector(TEXT)
    names = feature_names()
    # 20 lexical + 31 character + 160 function words (the stopword list) + 11 punctuation + 3
    # structural, as the module docstring documents
    assert v.shape == (len(names),) == (20 + 31 + 160 + 11 + 3,)
    f = dict(zip(names, v, strict=True))
    words = [
        "The",
        "cat",
        "sat",
        "on",
        "the",
        "mat",
        "It",
        "was",
        "happy",
        "the",
        "dog",
        "was",
        "not",
    ]
    assert f["fw_the"] == pytest.approx(100 * 3 / len(words))
    assert f["word_length_mean"] == pytest.approx(np.mean([len(w) for w in words]))
    assert f["words_of_length_3"] == pytest.approx(100 * 10 / 13)
    assert f["punct_;"] == pytest.approx(100 * 1 / len(TEXT))
    assert f["sentences"] == 2
    assert f["type_token_ratio"] == pytest.approx(100 * 10 / 13)


def test_change_is_zero_for_identical_text_and_grows_with_edits():
    assert stylometric_change([TEXT], [TEXT])[0] == 0.0
    small = TEXT.replace("happy", "glad")
    large = "ZEBRAS!!! QUICKLY JUMPED... over 12,345 fences?"
    d = stylometric_change([TEXT, TEXT], [small, large])
    assert 0 < d[0] < d[1]


def test_char_ngrams_keep_punctuation_and_spacing():
    assert char_ngrams("a, b", 2) == ["a,", ",_", "_b"]


def _items(docs, label):
    return [Item(d.doc_id, d.text, (), getattr(d, label), None) for d in docs]


def test_fasttext_char_ngrams_learn_real_labels():
    """The classifier machinery on a real corpus with enough test texts for a p < 1e-6 check:
    BBC News topics (5 classes; 20 training texts a topic and 20 epochs name 58 of 100, p 1e-16)."""
    corpus = load_dataset("bbc-news")
    by_topic: dict[str, list] = {}
    for d in sorted(corpus.documents, key=lambda d: d.doc_id):
        by_topic.setdefault(str(d.topic), []).append(d)
    train = [d for docs in by_topic.values() for d in docs[:20]]
    test = [d for docs in by_topic.values() for d in docs[40:60]]
    clf = FastTextAuthorship(epochs=20, lr=1.0, random_state=0)
    clf.fit(_items(train, "topic"), [str(d.topic) for d in train])
    pred = clf.predict(_items(test, "topic"))
    correct = pred.correct([d.topic for d in test])
    p = stats.binomtest(correct, len(test), 1 / 5, alternative="greater").pvalue
    assert p < 1e-6, (correct, len(test))
    # deterministic with one thread and a seed
    again = FastTextAuthorship(epochs=20, lr=1.0, random_state=0)
    again.fit(_items(train, "topic"), [str(d.topic) for d in train])
    assert again.predict(_items(test, "topic")).labels == pred.labels


def test_fasttext_authorship_on_reuters_c50():
    """Authorship proper, on the corpus of the results page (skipped where C50 is absent)."""
    from authormask.datasets import find_reuters_c50
    from authormask.exceptions import InputError

    try:
        corpus = load_dataset("reuters-c50", path=find_reuters_c50())
    except InputError:
        pytest.skip("Reuters C50 is not in ../shared/data/reuters-c50 on this machine")
    train, test = select_documents(corpus, docs_per_author=5, max_authors=10)
    clf = FastTextAuthorship(epochs=40, lr=1.0, random_state=0)  # p ~ 1e-12
    clf.fit(_items(train, "author"), [str(d.author) for d in train])
    correct = clf.predict(_items(test, "author")).correct([d.author for d in test])
    p = stats.binomtest(correct, len(test), 1 / 10, alternative="greater").pvalue
    assert p < 1e-6, (correct, len(test))
