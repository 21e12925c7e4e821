"""Special files, odd paths and failing disks: ``authormask obfuscate`` releases with a statement or
refuses in one line, never with a traceback, and a refused release leaves nothing behind."""

from __future__ import annotations

import errno
import importlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fuzzing import Outcome

from authormask.cli.main import main

DOC = (
    "The committee approved the budget on Tuesday. Critics said the plan would raise taxes, "
    "while supporters argued that schools and hospitals needed the money.\n"
)
EMP_TEXT = ["-m", "emp-text", "-e", "5", "--seed", "1"]


@pytest.fixture()
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.txt"
    path.write_text(DOC, encoding="utf-8")
    return path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".partial")))


# --- inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "message"),
    [("/dev/null", "empty"), ("/dev/zero", "NUL bytes"), ("/dev/urandom", "")],
)
def test_device_inputs_are_refused_at_once(authormask, device: str, message: str) -> None:
    """An endless device is refused from its first block, not read forever."""
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    start = time.monotonic()
    outcome = authormask("obfuscate", device, *EMP_TEXT)
    assert outcome.check() == "refused" and message in outcome.err
    assert time.monotonic() - start < 30


def test_input_paths_that_are_not_documents(authormask, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / ".secret.txt").write_text(DOC)
    pan = tmp_path / "pan"
    (pan / "problem00001" / "unknown").mkdir(parents=True)
    (pan / "collection-info.json").write_text("[]")
    (pan / "problem00001" / "unknown" / "unknown00001.txt").write_text(DOC)
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "nowhere.txt")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    cases = {
        str(tmp_path / "missing.txt"): "not found",
        str(empty): "contains no files",
        str(hidden): "contains no files",
        str(pan): "PAN",
        str(dangling): "not found",
        str(tmp_path / "loop1"): "symbolic links",
        "": "empty",  # Path("") is the current folder: found by this suite
    }
    if hasattr(os, "mkfifo"):
        fifos = tmp_path / "fifos"
        fifos.mkdir()
        os.mkfifo(fifos / "pipe")
        cases[str(fifos)] = "contains no files"  # a folder's FIFO is never opened (it would block)
    for path, message in cases.items():
        outcome = authormask("obfuscate", path, *EMP_TEXT)
        assert outcome.check() == "refused" and message in outcome.err, (path, outcome.err)


def test_pan_problem_folders_and_symlinked_inputs_are_released(authormask, tmp_path: Path) -> None:
    unknown = tmp_path / "problem00001" / "unknown"
    unknown.mkdir(parents=True)
    (unknown / "unknown00001.txt").write_text(DOC)
    (tmp_path / "link.txt").symlink_to(unknown / "unknown00001.txt")
    (tmp_path / "linked-folder").symlink_to(unknown)
    for path in (unknown, tmp_path / "link.txt", tmp_path / "linked-folder"):
        assert authormask("obfuscate", str(path), *EMP_TEXT).check() == "released"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "refused"),
        (b"\n\n \t\n", "refused"),
        (b"\xef\xbb\xbf", "refused"),
        (b"\xff\xfe", "refused"),
        ("\ufeffThe budget".encode("utf-16-le"), "released"),
        ("\ufeffThe budget".encode("utf-16-be"), "released"),
        ("\ufeffThe budget".encode("utf-32-le"), "released"),
        (b"The budget\xff", "refused"),
        (b"\x00\x01\x02", "refused"),
        (DOC.encode(), "released"),
    ],
    ids=repr,
)
def test_standard_input(authormask, data: bytes, expected: str) -> None:
    for mechanism in (EMP_TEXT, ["-m", "emp-bag", "-e", "5", "--length", "shortest"]):
        outcome = authormask("obfuscate", "-", *mechanism, stdin=data)
        assert outcome.check() == expected, outcome.err


def test_huge_line_and_many_empty_lines_are_released(authormask, tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    huge.write_text("budget" * 500_000, encoding="utf-8")  # 3 MB, no whitespace
    empty_lines = tmp_path / "lines.txt"
    empty_lines.write_text("\n" * 100_000 + "budget\r\n" + "\r\n" * 1000, encoding="utf-8")
    out = tmp_path / "out"
    outcome = authormask(
        "obfuscate", str(huge), str(empty_lines), *EMP_TEXT, "-o", str(out), "--layout", "mirror"
    )
    assert outcome.check(out) == "released"
    assert "\n" not in (out / "huge.txt").read_text()
    assert (out / "lines.txt").read_text(encoding="utf-8").count("\n") == 101_001


def test_file_names_that_are_not_utf8(authormask, tmp_path: Path) -> None:
    """Found by this suite: an input or output name with bytes that are not UTF-8 crashed the
    private report (UnicodeEncodeError) after the output was written."""
    name = os.fsdecode(b"caf\xe9 \xff.txt")
    folder = tmp_path / "in"
    folder.mkdir()
    try:
        (folder / name).write_text(DOC, encoding="utf-8")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system refuses names that are not UTF-8")
    for args, out in [
        ([str(folder / name)], tmp_path / os.fsdecode(b"out \xfe.txt")),
        ([str(folder / name)], tmp_path / "out.jsonl"),
        ([str(folder)], tmp_path / "out-folder"),
    ]:
        fmt = ["--format", "jsonl"] if out.suffix == ".jsonl" else []
        outcome = authormask("obfuscate", *args, *EMP_TEXT, *fmt, "-o", str(out))
        assert outcome.check(out) == "released", outcome.err
        report = Path(str(out.resolve()) + ".DO-NOT-PUBLISH.report.txt").read_bytes()
        lines = report.decode("utf-8").splitlines()  # valid UTF-8, and it reads back
        assert any(json.loads(line).get("input") == str(folder / name) for line in lines[1:])
        # the same command again: the finished release is recognised as complete (exit 0),
        # not resumed or written again
        again = authormask("obfuscate", *args, *EMP_TEXT, *fmt, "-o", str(out))
        assert again.code == 0 and "already complete" in again.err, again.err
        assert "Traceback" not in again.err


def test_jsonl_records_stay_on_one_line(authormask, tmp_path: Path) -> None:
    """Found by this suite: U+0085, U+2028 and U+2029 were written raw inside JSONL strings
    (valid JSON, but ``str.splitlines`` and some JSONL readers cut the record there)."""
    doc = tmp_path / "doc.txt"
    doc.write_text("The budget\x85was\u2028approved\u2029on Tuesday.\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    for args in (["-o", str(out)], []):
        outcome = authormask("obfuscate", str(doc), *EMP_TEXT, "--format", "jsonl", *args)
        assert outcome.check(out if args else None) == "released"
        text = out.read_text(encoding="utf-8") if args else outcome.out
        (line,) = text.splitlines()
        released = json.loads(line)["text"]
        # every line break is written as \n before any mechanism (text/clean.py: U+2029, a
        # paragraph separator, as a blank line), and escaped inside the JSON string
        assert [c for c in released if c in "\x85\u2028\u2029\n"] == list("\n" * 5)


# --- outputs --------------------------------------------------------------------------------


def test_special_output_paths_are_refused(authormask, doc: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_text("keep me")
    (tmp_path / "link.txt").symlink_to(target)
    (tmp_path / "dangling.txt").symlink_to(tmp_path / "nowhere.txt")
    cases = [
        (["-o", str(tmp_path / "link.txt"), "--force"], "symbolic link"),
        (["-o", str(tmp_path / "link.txt")], "symbolic link"),
        (["-o", str(tmp_path / "dangling.txt"), "--force"], "symbolic link"),
        (["-o", str(target)], "already exists"),
        (["-o", str(doc / "out.txt")], "Not a directory"),
        (["-o", "/"], "report"),  # found by this suite: ValueError, "'/' has an empty name"
        (["-o", str(tmp_path / "r"), "--report", str(tmp_path)], ""),  # a folder
    ]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo")
        cases.append((["-o", str(tmp_path / "fifo"), "--force"], "not a regular file"))
        cases.append((["--format", "jsonl", "-o", str(tmp_path / "fifo")], "not a regular file"))
    if os.path.exists("/dev/null"):
        cases.append((["-o", "/dev/null", "--force"], "not a regular file"))
    for args, message in cases:
        outcome = authormask("obfuscate", str(doc), *EMP_TEXT, *args)
        assert outcome.check() == "refused" and message in outcome.err, (args, outcome.err)
    assert target.read_text() == "keep me"
    assert _leftovers(tmp_path) == []


def test_empty_output_path_is_refused(
    authormask, doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """-o '' was taken as the current folder (Path('') is '.'): the release went into the working
    directory and the private report into its parent (fixed in the --output option type)."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    outcome = authormask("obfuscate", str(doc), *EMP_TEXT, "-o", "")
    assert list(work.iterdir()) == [] and not list(tmp_path.glob("*.report.txt"))
    assert outcome.check() == "refused"


def test_folder_output_for_one_input_and_read_only_folder(
    authormask, doc: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "existing"
    folder.mkdir()
    outcome = authormask("obfuscate", str(doc), *EMP_TEXT, "-o", str(folder))
    assert outcome.check(folder) == "released" and (folder / "1.txt").is_file()  # named by id

    read_only = tmp_path / "read-only"
    read_only.mkdir()
    read_only.chmod(0o555)
    try:
        out = read_only / "out.txt"
        result = authormask("obfuscate", str(doc), *EMP_TEXT, "-o", str(out)).check(out)
        if os.access(read_only, os.W_OK):  # root writes anyway
            assert result == "released"
        else:
            assert result == "refused" and _leftovers(read_only) == []
            assert not list(read_only.iterdir())
    finally:
        read_only.chmod(0o755)


@pytest.mark.parametrize("kind", ["file", "folder", "jsonl"])
def test_disk_full_while_writing_is_one_line(
    authormask, doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Found by this suite: an OSError while writing an output (disk full, permission denied
    with --report elsewhere) was a traceback."""
    from authormask._io import AtomicTextFile

    targets = importlib.import_module("authormask.core.targets")  # the writer's module

    def full(self: object, text: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(AtomicTextFile, "write", full)
    out = tmp_path / "out"
    args = {
        "file": [str(doc), "-o", str(out)],
        "folder": [str(doc), str(doc), "-o", str(out), "--layout", "ids"],
        "jsonl": [str(doc), "--format", "jsonl", "-o", str(out)],
    }[kind]
    if kind == "jsonl":

        class Full(io.StringIO):
            def write(self, text: str) -> int:
                raise OSError(errno.ENOSPC, "No space left on device")

        real_open = open

        def open_full(path, mode="r", *a, **k):  # type: ignore[no-untyped-def]
            if str(path).endswith(".partial") and "a" in mode:
                return Full()
            return real_open(path, mode, *a, **k)

        monkeypatch.setattr(targets, "open", open_full, raising=False)
    outcome = authormask("obfuscate", *args, *EMP_TEXT)
    assert outcome.check() == "refused" and "No space left on device" in outcome.err
    assert not out.exists() and _leftovers(tmp_path) == []
    assert not list(tmp_path.glob("*.DO-NOT-PUBLISH.report.txt"))


def test_permission_denied_where_the_output_goes(
    authormask, doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    targets = importlib.import_module("authormask.core.targets")  # the writer's module

    def denied(path: Path, **_: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(targets, "AtomicTextFile", denied)
    report = tmp_path / "elsewhere" / "report.txt"
    out = tmp_path / "out.txt"
    outcome = authormask("obfuscate", str(doc), *EMP_TEXT, "-o", str(out), "--report", str(report))
    assert outcome.check() == "refused" and "Permission denied" in outcome.err
    assert not out.exists() and not report.exists()


def test_standard_output_that_cannot_encode_the_text(
    doc: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by this suite: with an ASCII standard output (PYTHONIOENCODING=ascii, a C locale on
    an old system) any non-ASCII output was a UnicodeEncodeError traceback."""
    doc.write_text("The caf\u00e9 \U0001f600 approved the budget.\n", encoding="utf-8")
    common = ["--cache-dir", str(cache_dir), "--vocab-size", "20000"]
    for fmt in ("txt", "jsonl"):
        stdout = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
        monkeypatch.setattr(sys, "stdout", stdout)
        code = main(["obfuscate", str(doc), *EMP_TEXT, "--format", fmt, *common])
        monkeypatch.undo()
        err = capsys.readouterr().err
        Outcome(code, "", err).check()
        if code != 0:
            assert "PYTHONIOENCODING" in err


def test_console_script_on_random_bytes_and_a_closed_pipe(tmp_path: Path, cache_dir: Path) -> None:
    """Two real processes: random bytes, then a reader that goes away after 10 bytes (an
    error: the release is incomplete). The long text is 156,000 characters: its release is more
    than twice what a pipe holds (64 KiB), so it cannot all be written before the reader goes."""
    exe = Path(sys.executable).with_name("authormask")
    (tmp_path / "random.bin").write_bytes(os.urandom(5000))
    common = ["-m", "emp-text", "-e", "5", "--cache-dir", str(cache_dir), "--vocab-size", "20000"]
    proc = subprocess.run(
        [str(exe), "obfuscate", str(tmp_path / "random.bin"), *common],
        capture_output=True,
        text=True,
        timeout=120,
    )
    Outcome(proc.returncode, proc.stdout, proc.stderr).check()
    (tmp_path / "long.txt").write_text(DOC * 1000)
    with subprocess.Popen(
        [str(exe), "obfuscate", str(tmp_path / "long.txt"), *common],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as writer:
        assert writer.stdout is not None and writer.stderr is not None
        writer.stdout.read(10)
        writer.stdout.close()
        err = writer.stderr.read().decode()
        # the release did not reach its reader: one line and a non-zero exit (it was 0)
        assert writer.wait(timeout=120) == 1, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith("authormask: error: standard output was closed before the release was complete")
    )
