"""The PAN protocol: PAN's macro-F1, the PAN baseline as published, and every problem of a
collection (written from real essays) scored on its own, with obfuscation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from authormask.datasets import UNKNOWN_AUTHOR, read_pan_collection
from authormask.embeddings import Embeddings
from authormask.evaluation.measures.attackers.pan_baseline import PanBaselineAttacker
from authormask.evaluation.metrics import pan_macro_f1, wilson_interval
from authormask.evaluation.protocols import PanConfig, run_pan
from authormask.evaluation.protocols import pan as pan_module
from authormask.evaluation.reports.pan import write_pan_reports
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.release import create_mechanism


def test_macro_f1_is_pans(pan_root: Path) -> None:
    """Against scikit-learn's F1 on the classes of the truth: <UNK> left out (the tasks' rule)
    or kept (what the distributed evaluator scripts compute); unanswered texts, rejections and
    answers that are no candidate all count as <UNK>."""
    from sklearn.metrics import f1_score

    problem = read_pan_collection(pan_root).problems[0]
    rng = np.random.default_rng(0)
    choices = [*problem.candidates, UNKNOWN_AUTHOR, None, "not-a-candidate"]
    for _ in range(20):
        answers = {t.name: choices[int(rng.integers(len(choices)))] for t in problem.unknown}
        del answers[problem.unknown[0].name]  # unanswered
        score = pan_macro_f1(problem.truth, answers, problem.candidates)
        gold = [problem.truth[n] for n in sorted(problem.truth)]
        silver = [
            a if a in problem.candidates else UNKNOWN_AUTHOR
            for a in (answers.get(n) for n in sorted(problem.truth))
        ]
        authors = sorted(set(gold) - {UNKNOWN_AUTHOR})
        expected = f1_score(gold, silver, labels=authors, average="macro", zero_division=0)
        assert score.macro_f1 == pytest.approx(expected)
        scripts = f1_score(gold, silver, labels=sorted(set(gold)), average="macro", zero_division=0)
        assert score.macro_f1_with_unk == pytest.approx(scripts)
        assert score.correct == sum(g == s for g, s in zip(gold, silver, strict=True))
    perfect = pan_macro_f1(problem.truth, problem.truth, problem.candidates)
    assert perfect.macro_f1 == 1.0 and perfect.accuracy == 1.0


def test_wilson_interval() -> None:
    i = wilson_interval(30, 100)
    assert (round(i.low, 4), round(i.high, 4)) == (0.2189, 0.3958)  # Brown et al. 2001
    assert wilson_interval(50, 50).high == 1.0 and wilson_interval(50, 50).low > 0.92
    with pytest.raises(InvalidParameterError):
        wilson_interval(3, 2)


def _items(texts) -> list[Item]:
    return [Item(t.name, t.text, (), t.author) for t in texts]


def test_pan_baseline_is_the_published_pipeline(pan_root: Path) -> None:
    """The same probabilities as the PAN 2019 script's scikit-learn pipeline (char 3-grams
    seen 5+ times, counts / length, max-abs, calibrated one-vs-rest SVC(C=1)), and its reject
    rule: <UNK> exactly where the two most probable candidates differ by less than 0.1."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.preprocessing import MaxAbsScaler
    from sklearn.svm import SVC

    problem = read_pan_collection(pan_root).problems[0]
    known, unknown = _items(problem.known), _items(problem.unknown)
    labels = [str(i.author) for i in known]
    attacker = PanBaselineAttacker(random_state=0).fit(known, labels)
    texts = [i.text for i in known]
    seen: dict[str, int] = {}
    for t in texts:  # the script's vocabulary: raw n-grams seen 5+ times in the known texts
        for k in range(len(t) - 2):
            seen[t[k : k + 3]] = seen.get(t[k : k + 3], 0) + 1
    assert set(attacker.vocabulary) == {g for g, c in seen.items() if c >= 5}
    assert any("\n\n" in g for g in attacker.vocabulary)  # never counted, but there
    vectorizer = CountVectorizer(
        analyzer="char", ngram_range=(3, 3), lowercase=False, vocabulary=list(attacker.vocabulary)
    )

    def features(batch: list[str]) -> np.ndarray:
        x = vectorizer.transform(batch).toarray().astype(float)
        return x / np.array([len(t) for t in batch])[:, None]

    scaler = MaxAbsScaler()
    reference = CalibratedClassifierCV(OneVsRestClassifier(SVC(C=1, gamma="auto")), cv=3)
    reference.fit(scaler.fit_transform(features(texts)), labels)
    expected = reference.predict_proba(scaler.transform(features([i.text for i in unknown])))
    classes, proba = attacker.probabilities(unknown)
    assert classes == list(reference.classes_)
    np.testing.assert_allclose(proba, expected, atol=1e-9)
    preds = attacker.predict(unknown)
    top2 = np.sort(proba, axis=1)[:, -2:]
    rejected = (top2[:, 1] - top2[:, 0]) < 0.1
    assert [p is None for p in preds.labels] == list(rejected)
    assert 0 < preds.abstained < len(unknown)
    score = pan_macro_f1(
        problem.truth, {t.name: p for t, p in zip(problem.unknown, preds.labels, strict=True)},
        problem.candidates,
    )  # fmt: skip
    assert score.macro_f1 > 0.4  # 6 candidates: chance is about 0.17 (measured: 0.497)
    closed = PanBaselineAttacker(reject=0.0, random_state=0).fit(known, labels).predict(unknown)
    assert closed.abstained == 0
    with pytest.raises(InputError, match="candidate 'candidate00001' has 2 known text"):
        PanBaselineAttacker().fit(known[4:], labels[4:])


def test_each_problem_is_scored_on_its_own(
    pan_root: Path, glove_20k: Embeddings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collection = read_pan_collection(pan_root)
    config = PanConfig(
        mechanisms=("emp-text",),
        epsilons=(None, 1e6, 5.0),
        attackers=("pan-baseline", "adaptive-pan-baseline"),
        seed=1,
    )
    result = run_pan(collection, config=config, embeddings=glove_20k, cache_dir=tmp_path)
    assert len(result.cells) == 2 * 3 * 2
    for problem in collection.problems:
        cells = [c for c in result.cells if c.problem == problem.name]
        assert {c.total for c in cells} == {len(problem.unknown)}
    # noise off is the mechanism's own preparation: every content word released as itself
    mech = create_mechanism("emp-text", epsilon=1.0, embeddings=glove_20k)
    runner = pan_module._Runner(collection, glove_20k, config, tmp_path)
    first = collection.problems[0]
    seed = pan_module._seeds(1, first.name, "emp-text", None, 0)[0]
    _, unknown = runner.released(first, "emp-text", None, seed)
    for item, text in zip(unknown, first.unknown, strict=True):
        assert item.words == mech.prepare(text.text).content_words
    # at a very large epsilon every score converges to the noise-off row
    for problem in collection.problems:
        for attacker in config.attackers:
            (off,) = result.cells_of("emp-text", None, attacker, problem.name)
            (large,) = result.cells_of("emp-text", 1e6, attacker, problem.name)
            assert large.macro_f1 == pytest.approx(off.macro_f1)
    # noise hurts the attacker trained on clean texts more than the adaptive one
    assert result.mean_f1("emp-text", 5.0, "pan-baseline") < result.mean_f1(
        "emp-text", None, "pan-baseline"
    )
    best = result.best("emp-text", 5.0)
    assert best["attacker"] in config.attackers and best["total"] == 42
    assert best["wilson95"][0] <= best["accuracy"] <= best["wilson95"][1]
    assert set(result.statements) == {"emp-text/1e+06", "emp-text/5"}
    # a rerun reads every release and score from the cache
    monkeypatch.setattr(pan_module, "release", _refuse)
    again = run_pan(collection, config=config, embeddings=glove_20k, cache_dir=tmp_path)
    assert [c.macro_f1 for c in again.cells] == [c.macro_f1 for c in result.cells]
    paths = write_pan_reports(result, tmp_path / "report")
    assert [p.name for p in paths] == [
        "results.json", "table.md", "table.csv", "plot.png", "report.html",
    ]  # fmt: skip
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<td>problem00002</td>" in page and "<h3>emp-text/5</h3>" in page
    md = (tmp_path / "report" / "table.md").read_text()
    assert "| problem00002 | 5 |" in md and "strongest attacker" in md


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("released again despite the cache")


def test_what_cannot_run_is_refused_first(pan_root: Path, glove_20k: Embeddings) -> None:
    collection = read_pan_collection(pan_root)
    with pytest.raises(InvalidParameterError, match="unknown attacker 'koppel'"):
        PanConfig(attackers=("koppel",))
    with pytest.raises(InvalidParameterError, match="unknown mechanism 'emp'"):
        PanConfig(mechanisms=("emp",))
    problem = collection.problems[1]
    known = tuple(
        t for t in problem.known if t.author != "candidate00004" or t.name < "known00003.txt"
    )
    thin = replace(collection, problems=(replace(problem, known=known),))
    with pytest.raises(InputError, match="'candidate00004' has 2 known text"):
        run_pan(thin, config=PanConfig(), embeddings=glove_20k)
    # other attackers can run on it
    run_pan(
        thin,
        config=PanConfig(epsilons=(None,), attackers=("svm",)),
        embeddings=glove_20k,
    )
