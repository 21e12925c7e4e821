"""Attackers on real text: they must beat chance where the signal is strong, and their
arithmetic must match the definitions they cite."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from authormask.embeddings import Embeddings
from authormask.evaluation import Item, Study
from authormask.evaluation.measures.attackers import (
    KoppelAttacker,
    NearestNeighbourClassifier,
    SVMAttacker,
    bag_distances,
)
from authormask.evaluation.measures.attackers.nearest import _histogram, _nearest
from authormask.exceptions import InputError, InvalidParameterError

# correct answers needed out of 50 for p < 1e-6 against guessing one of 5 topics
CHANCE_P = 1e-6


def _beats_chance(correct: int, total: int, classes: int) -> bool:
    return bool(binom.sf(correct - 1, total, 1 / classes) < CHANCE_P)


def _labels(items: tuple[Item, ...]) -> list[str]:
    return [str(i.topic) for i in items]


@pytest.mark.parametrize(
    "attacker",
    [
        KoppelAttacker(similarity="cosine", iterations=30, random_state=1),
        KoppelAttacker(similarity="minmax", iterations=30, random_state=1),
        SVMAttacker(random_state=1),
    ],
    ids=["koppel-cosine", "koppel-minmax", "svm"],
)
def test_text_attackers_beat_chance_on_bbc_topics(bbc_study: Study, attacker: object) -> None:
    clf = attacker.fit(bbc_study.known, _labels(bbc_study.known))  # type: ignore[attr-defined]
    preds = clf.predict(bbc_study.queries)
    correct = preds.correct(_labels(bbc_study.queries))
    assert _beats_chance(correct, len(bbc_study.queries), 5), correct


def test_nearest_neighbour_beats_chance(bbc_study: Study, glove_20k: Embeddings) -> None:
    clf = NearestNeighbourClassifier(glove_20k, k=5).fit(bbc_study.known, _labels(bbc_study.known))
    correct = clf.predict(bbc_study.queries).correct(_labels(bbc_study.queries))
    assert _beats_chance(correct, 50, 5), correct


@pytest.mark.parametrize("similarity", ["cosine", "minmax"])
def test_koppel_attributes_a_copied_text_with_full_vote(aaac_study: Study, similarity: str) -> None:
    labels = [str(i.author) for i in aaac_study.known]
    clf = KoppelAttacker(similarity=similarity, iterations=25, random_state=0)
    preds = clf.fit(aaac_study.known, labels).predict(aaac_study.known)
    assert list(preds.labels) == labels
    assert all(s == 1.0 for s in preds.scores)


def test_koppel_threshold_gives_dont_know(aaac_study: Study) -> None:
    labels = [str(i.author) for i in aaac_study.known]
    clf = KoppelAttacker(iterations=20, threshold=1.0, random_state=0).fit(aaac_study.known, labels)
    preds = clf.predict(aaac_study.queries)
    # a snippet is answered only when every round agrees; "don't know" is never correct
    assert preds.abstained == sum(1 for s in preds.scores if s < 1.0)
    assert preds.correct([q.author for q in aaac_study.queries]) <= len(preds.labels) - (
        preds.abstained
    )


def test_minmax_identity_matches_definition() -> None:
    rng = np.random.default_rng(3)
    q = rng.poisson(1.0, size=(4, 30)).astype(float)
    k = rng.poisson(1.0, size=(5, 30)).astype(float)
    got = KoppelAttacker(similarity="minmax")._similarities(q, k)
    want = np.array([[np.minimum(a, b).sum() / np.maximum(a, b).sum() for b in k] for a in q])
    assert np.allclose(got, want)


def test_koppel_keeps_words_apart() -> None:
    """The reproduction's bug joined words without spaces; n-grams must not span words."""
    known = [Item("a", "ab cd", ("ab", "cd")), Item("b", "xy zw", ("xy", "zw"))]
    clf = KoppelAttacker(ngram=3, iterations=1, random_state=0).fit(known, ["A", "B"])
    assert set(clf._features) == {"ab", "cd", "xy", "zw"}


def test_pruned_knn_equals_full_computation(bbc_study: Study, glove_20k: Embeddings) -> None:
    queries = bbc_study.queries[:12]
    refs = bbc_study.known
    full = bag_distances([q.words for q in queries], [r.words for r in refs], glove_20k)
    hist_refs = [_histogram(r.words, glove_20k) for r in refs]
    for row, q in zip(full, queries, strict=True):
        got = _nearest(_histogram(q.words, glove_20k), hist_refs, 5)
        want = sorted((float(d), j) for j, d in enumerate(row))[:5]
        assert [j for _, j in got] == [j for _, j in want]
        assert np.allclose([d for d, _ in got], [d for d, _ in want])


def test_bag_distance_matches_assignment_emd(glove_20k: Embeddings) -> None:
    from authormask.accounting import word_movers_distance

    a = ("market", "shares", "bank", "bank", "profit")
    b = ("film", "actor", "bank", "award", "award")
    got = bag_distances([a], [b], glove_20k)[0, 0]
    assert got == pytest.approx(word_movers_distance(a, b, glove_20k).distance, rel=1e-9)


def test_bad_training_sets(glove_20k: Embeddings) -> None:
    items = [Item("a", "some words here", ("some", "words"))]
    with pytest.raises(InputError, match="at least 2 classes"):
        SVMAttacker().fit(items, ["x"])
    with pytest.raises(InputError, match="1 texts but 2 labels"):
        KoppelAttacker().fit(items, ["x", "y"])
    with pytest.raises(InvalidParameterError, match="call fit before predict"):
        NearestNeighbourClassifier(glove_20k).predict(items)
    with pytest.raises(InvalidParameterError, match="similarity must be one of"):
        KoppelAttacker(similarity="euclid")


def test_svm_with_two_authors_predicts_every_item(aaac_study: Study) -> None:
    """Binary one-vs-rest SVM scores are one column per item (this crashed with two authors)."""
    authors = sorted({i.author for i in aaac_study.known})[:2]
    known = [i for i in aaac_study.known if i.author in authors]
    queries = [i for i in aaac_study.queries if i.author in authors]
    model = SVMAttacker(random_state=1).fit(known, [str(i.author) for i in known])
    pred = model.predict(queries)
    assert len(pred.labels) == len(queries) >= 2
    assert set(pred.labels) <= set(map(str, authors))
    assert pred.correct([str(i.author) for i in queries]) >= 1
