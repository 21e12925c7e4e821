"""fernandes2019 on a PAN collection (issue 20, part A): one closed-set author study per problem
(the candidates' known texts train the attackers, every unknown text by a candidate is a query),
each swept with a seed of its own, then pooled by summing counts, never by merging candidate
sets; on a collection written from real essays, and on the shared pan19-en where present."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from authormask.datasets import UNKNOWN_AUTHOR, read_pan_collection
from authormask.embeddings import Embeddings
from authormask.evaluation import SweepConfig, frontier, recommend
from authormask.evaluation.protocols.fernandes2019 import (
    CollectionSweep,
    pool_sweeps,
    problem_seed,
    run_collection_sweep,
)
from authormask.evaluation.reports.fernandes2019 import write_collection_reports
from authormask.evaluation.study import build_pan_study
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text import TextPreparer
from authormask.text.clean import clean_text

CONFIG = SweepConfig(
    epsilons=(None, 5.0),
    mechanisms=("emp-text",),
    attackers=("svm", "typed-svm"),
    utilities=("similarity",),
    seed=4,
)


def test_a_problem_is_a_closed_set_author_study(pan_root: Path, preparer: TextPreparer) -> None:
    problem = read_pan_collection(pan_root).problems[0]
    study = build_pan_study(problem, preparer, length=40)
    assert study.task == "author" and study.length == 40
    assert study.authors == problem.candidates  # every candidate, even one without queries
    attributed = [t for t in problem.unknown if t.author != UNKNOWN_AUTHOR]
    assert [q.author for q in study.queries] == [t.author for t in attributed]
    assert len(study.queries) == 18 and all(len(q.words) == 40 for q in study.queries)
    for q, t in zip(study.queries, attributed, strict=True):
        # each query is its (cleaned) text's first N content words
        assert clean_text(t.text).startswith(q.text)
    known_authors = {k.author for k in study.known}
    assert known_authors == set(problem.candidates) and all(len(k.words) == 40 for k in study.known)
    assert study.settings["problem"] == problem.name
    assert study.settings["unknown_by_no_candidate"] == 6
    with pytest.raises(InputError, match=r"problem00001: .*fewer than N=5000"):
        build_pan_study(problem, preparer, length=5000)


@pytest.fixture(scope="module")
def swept(pan_short_root: Path, glove_20k: Embeddings, preparer: TextPreparer, tmp_path_factory):
    cache = tmp_path_factory.mktemp("collection-cache")
    collection = read_pan_collection(pan_short_root)
    result = run_collection_sweep(
        collection,
        embeddings=glove_20k,
        preparer=preparer,
        config=CONFIG,
        length=40,
        cache_dir=cache,
    )
    return collection, result, cache


def test_each_problem_is_swept_and_the_counts_are_pooled(swept) -> None:
    collection, result, _ = swept
    assert isinstance(result, CollectionSweep)
    assert result.problem_names == ("problem00001", "problem00002")
    seeds = [r.config.seed for r in result.problems]
    assert seeds == [problem_seed(4, p.name) for p in collection.problems]
    assert len(set(seeds)) == 2 and result.pooled.config.seed == 4
    pooled = result.pooled
    assert pooled.study["queries"] == 36 and pooled.study["authors"] == 12
    assert pooled.baselines["author"] == pytest.approx(18 / 6 + 18 / 6)
    for eps in CONFIG.epsilons:
        for name in CONFIG.attackers:
            (cell,) = pooled.cell("emp-text", eps, name)
            parts = [c for r in result.problems for c in r.cell("emp-text", eps, name)]
            assert cell.correct == sum(int(c.correct or 0) for c in parts)
            assert cell.total == 36 and cell.value == pytest.approx(cell.correct / 36)
        (sim,) = pooled.cell("emp-text", eps, "similarity")
        parts = [c for r in result.problems for c in r.cell("emp-text", eps, "similarity")]
        assert sim.value == pytest.approx(sum(c.value * c.total for c in parts) / 36)
    # the strongest attacker of the pooled counts, its frontier and its recommendation
    best = pooled.strongest("emp-text", 5.0)
    assert best is not None and best["total"] == 36
    assert best["correct"] == max(
        pooled.cell("emp-text", 5.0, a)[0].correct for a in CONFIG.attackers
    )
    (_, point) = frontier(pooled, "similarity")["emp-text"]
    assert point.correct == best["correct"] and point.utility < 1.0
    (rec,) = recommend(pooled, 1.0)
    assert rec.epsilon == 5.0 and rec.chance == pytest.approx(6 / 36)


def test_a_problems_numbers_do_not_depend_on_the_others(
    swept, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    collection, result, cache = swept
    alone = run_collection_sweep(
        replace(collection, problems=collection.problems[1:]),
        embeddings=glove_20k,
        preparer=preparer,
        config=CONFIG,
        length=40,
        cache_dir=cache,
    )
    (only,) = alone.problems
    assert [(c.measure, c.epsilon, c.correct, c.value) for c in only.cells] == [
        (c.measure, c.epsilon, c.correct, c.value) for c in result.problems[1].cells
    ]
    assert [c.value for c in alone.pooled.cells] == [c.value for c in only.cells]


def test_pooling_refuses_problems_that_measured_other_cells(swept) -> None:
    _, result, _ = swept
    first, second = result.problems
    thinner = replace(second, cells=tuple(c for c in second.cells if c.measure != "svm"))
    with pytest.raises(InvalidParameterError, match="svm is not in every problem"):
        pool_sweeps([first, thinner], name="x", seed=0)


def test_the_reports_show_the_pooled_counts_and_every_problem(swept, tmp_path: Path) -> None:
    _, result, _ = swept
    paths = write_collection_reports(result, tmp_path, target_accuracy=0.9)
    assert [p.name for p in paths] == [
        "results.json", "table.md", "table.csv", "plot.png", "frontier.png", "report.html",
    ]  # fmt: skip
    data = json.loads((tmp_path / "results.json").read_text())
    assert set(data["problems"]) == {"problem00001", "problem00002"}
    assert data["study"]["queries"] == 36 and data["recommendation"][0]["epsilon"] == 5.0
    assert [p["name"] for p in data["collection"]["problems"]] == ["problem00001", "problem00002"]
    md = (tmp_path / "table.md").read_text()
    for heading in ("## Pooled over 2 problems", "### emp-text, pooled", "## problem00001",
                    "### emp-text, problem00002", "## Recommended epsilon"):  # fmt: skip
        assert heading in md, heading
    rows = list(csv.DictReader(io.StringIO((tmp_path / "table.csv").read_text())))
    assert {r["problem"] for r in rows} == {"problem00001", "problem00002", "pooled"}
    pooled_rows = [r for r in rows if r["problem"] == "pooled" and r["measure"] == "svm"]
    assert {int(r["total"]) for r in pooled_rows} == {36}


#: the shared copy of pan19-en, beside the repository (never copied into it)
PAN19_EN = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pan19-en"


def test_pan19_en_author_studies(preparer: TextPreparer) -> None:
    """Each problem of the shared fan fiction is a study of its candidates, with every unknown
    text by a candidate as a query."""
    if not (PAN19_EN / "collection-info.json").is_file():
        pytest.skip(f"pan19-en is not in {PAN19_EN} on this machine")
    problem = read_pan_collection(PAN19_EN).problems[1]
    study = build_pan_study(problem, preparer)
    assert study.settings["problem"] == "problem00002"
    assert len(study.authors) == 9 and len(study.queries) == 98
    assert study.length >= 150  # fan fiction of 500-900 words: N is the shortest query's
    assert min(len(q.words) for q in study.queries) == study.length
