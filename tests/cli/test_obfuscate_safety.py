"""Issue 22 C, release outputs and inputs: nothing the user owns is lost (an output is never an
input, even with --force, through a link or a folder), ids follow a secret random order drawn
from the release's root (never the sorted private names), a folder is named by ids unless the
user asks for mirroring (and then the statement and stderr say so), and a normal run prints no
library warning."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from authormask.core.outputs import MIRRORED_NAMES

EXE = str(Path(sys.executable).with_name("authormask"))
TEXT = "The ship sailed down the river at dawn.\n"


@pytest.fixture()
def run(cache_dir: Path, invoke: Any) -> Any:
    def _run(*args: str) -> tuple[int, str, str]:
        return invoke(
            ["obfuscate", *args, "-m", "emp-text", "-e", "10", "--cache-dir", str(cache_dir),
             "--vocab-size", "20000"]
        )  # fmt: skip

    return _run


@pytest.fixture()
def letters(tmp_path: Path) -> Path:
    """A folder whose names identify the authors, in subfolders (one per author)."""
    root = tmp_path / "letters"
    for author in ("alice_smith", "bob_jones", "carol_white"):
        for i in range(4):
            path = root / author / f"{author}_letter{i}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"Dear friend, the river {author} wrote {i} was cold.\n", "utf-8")
    return root


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("authormask: error")]
    assert len(lines) == 1, err
    return lines[0]


# --- an output is never an input ------------------------------------------------------------


def test_an_input_is_never_replaced_by_its_own_release_even_with_force(
    run: Any, tmp_path: Path
) -> None:
    s = tmp_path / "s.txt"
    s.write_text(TEXT, encoding="utf-8")
    (tmp_path / "link.txt").symlink_to(s)
    os.link(s, tmp_path / "hard.txt")
    cases = [
        ([str(s), "-o", str(s)], "is the input"),  # the issue: exit 0, the original gone
        ([str(tmp_path / "link.txt"), "-o", str(s)], "through a link"),
        ([str(tmp_path / "hard.txt"), "-o", str(s)], "through a link"),
        # issue 49, item 15: the report was called "output"
        ([str(s), "-o", str(tmp_path / "o.txt"), "--report", str(s)],
         f"the private report {s} is the input"),
        ([str(s), "-o", str(tmp_path / "o.jsonl"), "--report", str(tmp_path / "hard.txt")],
         "the private report"),
    ]  # fmt: skip
    for args, message in cases:
        code, _, err = run(*args, "--force")
        assert code != 0, args
        line = _one_error_line(err)
        assert message in line and "even with --force" in line
        assert s.read_text(encoding="utf-8") == TEXT
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.txt", "link.txt", "s.txt"]


def test_standard_input_redirected_from_the_output_file_is_refused(
    tmp_path: Path, cache_dir: Path
) -> None:
    s = tmp_path / "s.txt"
    s.write_text(TEXT, encoding="utf-8")
    for mechanism in ("emp-text", "emp-bag"):  # emp-bag -N shortest reads stdin into memory
        extra = ["-N", "shortest"] if mechanism == "emp-bag" else []
        with open(s, "rb") as stdin:
            proc = subprocess.run(
                [EXE, "obfuscate", "-", "-m", mechanism, "-e", "10", *extra, "-o", str(s),
                 "--force", "--cache-dir", str(cache_dir), "--vocab-size", "20000"],
                stdin=stdin, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
        assert proc.returncode != 0
        assert "is the file standard input is read from" in _one_error_line(proc.stderr)
        assert s.read_text(encoding="utf-8") == TEXT


def test_an_output_folder_that_holds_an_input_is_refused(
    run: Any, letters: Path, tmp_path: Path
) -> None:
    before = {p: p.read_bytes() for p in letters.rglob("*") if p.is_file()}
    (tmp_path / "alias").symlink_to(letters, target_is_directory=True)
    for args in (
        [str(letters), "-o", str(letters), "--layout", "mirror"],  # each input over itself
        [str(letters), "-o", str(letters)],
        [str(letters), "-o", str(letters / "alice_smith")],
        [str(letters / "bob_jones" / "bob_jones_letter1.txt"), str(letters / "alice_smith"),
         "-o", str(tmp_path / "alias" / "bob_jones")],
    ):  # fmt: skip
        code, _, err = run(*args, "--force")
        assert code != 0, args
        assert "holds the input" in _one_error_line(err)
    after = {p: p.read_bytes() for p in letters.rglob("*") if p.is_file()}
    assert after == before


def test_a_dataset_is_never_replaced_by_its_own_release(
    invoke: Any, tmp_path: Path, cache_dir: Path
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"text": TEXT}) + "\n", encoding="utf-8")
    folder = tmp_path / "parts"
    folder.mkdir()
    code, _, err = invoke(
        ["obfuscate", str(data), "--text-column", "text", "-m", "emp-text", "-e", "10",
         "-o", str(folder / "part-00000.parquet"), "--cache-dir", str(cache_dir)]
    )  # fmt: skip
    assert code == 0, err
    inputs = [
        (data, data),
        (folder, folder),  # a Parquet folder (part files of a release) released over itself
    ]
    for given, out in inputs:
        before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
        code, _, err = invoke(
            ["obfuscate", str(given), "--text-column", "text", "-m", "emp-text", "-e", "10",
             "-o", str(out), "--force", "--cache-dir", str(cache_dir)]
        )  # fmt: skip
        assert code != 0
        assert "even with --force" in _one_error_line(err)
        assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


# --- ids and layouts ------------------------------------------------------------------------


def _manifest(out: Path) -> dict[str, str]:
    report = out.with_name(out.name + ".DO-NOT-PUBLISH.report.txt")
    lines = report.read_text(encoding="utf-8").splitlines()[2:]
    return {r["id"]: r["input"] for r in map(json.loads, lines) if "id" in r}


def test_a_folder_is_named_by_ids_in_a_secret_order_by_default(
    run: Any, letters: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, _, err = run(str(letters), "-o", str(out), "--seed", "7")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{i}.txt" for i in range(1, 13)] + ["PRIVACY-STATEMENT.json"]
    )
    published = (
        " ".join(p.name for p in out.rglob("*")) + (out / "PRIVACY-STATEMENT.json").read_text()
    )
    # no input name (the statement's own words may hold "letter": "a mark on a letter")
    assert "alice" not in published and "_letter" not in published and "mirror" not in err
    assert str(letters) not in published and "letters/" not in published
    # the ids do not follow the sorted private paths (they did: id k was the k-th name)
    by_id = _manifest(out)
    inputs = [by_id[str(i)] for i in range(1, 13)]
    assert sorted(inputs) == sorted(str(p) for p in letters.rglob("*.txt"))
    assert inputs != sorted(inputs)
    authors = [Path(i).parent.name for i in inputs]
    assert authors[:4] != [authors[0]] * 4 or authors[4:8] != [authors[4]] * 4
    # same seed, same ids and same bytes; another seed, another order
    again = tmp_path / "again"
    assert run(str(letters), "-o", str(again), "--seed", "7")[0] == 0
    assert _manifest(again) == by_id
    assert all((again / f"{i}.txt").read_bytes() == (out / f"{i}.txt").read_bytes()
               for i in range(1, 13))  # fmt: skip
    other = tmp_path / "other"
    assert run(str(letters), "-o", str(other), "--seed", "8")[0] == 0
    assert _manifest(other) != by_id


def test_jsonl_records_follow_the_ids_not_the_sorted_names(
    run: Any, letters: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    code, _, err = run(str(letters), "-o", str(out), "--seed", "7")
    assert code == 0, err
    ids = [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert ids == [str(i) for i in range(1, 13)]
    inputs = [_manifest(out)[i] for i in ids]
    assert inputs != sorted(inputs)


def test_mirroring_is_asked_for_and_announced_in_the_statement_and_once_on_stderr(
    run: Any, letters: Path, tmp_path: Path
) -> None:
    mirrored, by_id = tmp_path / "mirrored", tmp_path / "by-id"
    code, _, err = run(str(letters), "-o", str(mirrored), "--layout", "mirror", "--seed", "3")
    assert code == 0, err
    assert (mirrored / "alice_smith" / "alice_smith_letter0.txt").is_file()
    assert err.count("--layout mirror publishes every input's file and folder name") == 1
    statement = json.loads((mirrored / "PRIVACY-STATEMENT.json").read_text())
    assert statement["released_unchanged"].endswith("; " + MIRRORED_NAMES)
    # the terminal shows the statement in short and names the file that holds it whole
    assert str(mirrored / "PRIVACY-STATEMENT.json") in err
    code, _, err = run(str(letters), "-o", str(by_id), "--seed", "3")
    assert code == 0, err
    plain = json.loads((by_id / "PRIVACY-STATEMENT.json").read_text())
    assert MIRRORED_NAMES not in plain["released_unchanged"]
    # the layout is a public parameter: the statement depends on it and on nothing else
    assert {k: v for k, v in statement.items() if k != "released_unchanged"} == {
        k: v for k, v in plain.items() if k != "released_unchanged"
    }
    single = tmp_path / "single.txt"
    assert run(str(letters / "bob_jones" / "bob_jones_letter0.txt"), "-o", str(single),
               "--seed", "3")[0] == 0  # fmt: skip
    assert json.loads((tmp_path / "single.txt.privacy.json").read_text()) == plain


# --- no library warnings --------------------------------------------------------------------


def test_normal_runs_print_no_library_warning(
    letters: Path, tmp_path: Path, cache_dir: Path
) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(
        "".join(json.dumps({"text": f"The ship {i} sailed down the river."}) + "\n"
                for i in range(12)),
        encoding="utf-8",
    )  # fmt: skip
    common = ["--cache-dir", str(cache_dir), "--vocab-size", "20000"]
    runs = [
        [str(letters), "-m", "emp-text", "-e", "10", "-o", str(tmp_path / "a")],
        [str(letters), "-m", "emp-bag", "-e", "10", "-N", "3", "-o", str(tmp_path / "b.jsonl")],
        [str(data), "--text-column", "text", "-m", "emp-text", "-e", "10",
         "-o", str(tmp_path / "c.parquet"), "--partition-size", "5"],
    ]  # fmt: skip
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    for args in runs:
        proc = subprocess.run(
            [EXE, "obfuscate", *args, *common], capture_output=True, text=True, timeout=120,
            env=env,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert "Warning" not in proc.stderr and "warnings.warn" not in proc.stderr, proc.stderr


def test_a_refused_run_of_several_inputs_prints_its_error_only(run: Any, tmp_path: Path) -> None:
    """The note on the secret order of ids was printed before the inputs were read, so a refused
    run of several inputs printed two lines (found by tests/robustness/test_fuzz_cli.py)."""
    (tmp_path / "a.txt").write_text("", encoding="utf-8")
    (tmp_path / "b.txt").write_text("", encoding="utf-8")
    code, _, err = run(str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))  # to stdout, no report
    assert code != 0
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "empty" in lines[0], err
