"""Issue 30 A and E: no private file is ever an input or beside one (an output, statement,
report or partial file inside an input folder is refused; a folder input skips authormask's own
files, by name and by content), what a dataset release publishes beside the texts is declared
(id and kept columns, record order; ids can be secret numbers), the progress line shows no input
size, and releasing a text again with other parameters is warned about (the epsilons add)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from authormask.core.markers import HISTORY_BANNER

SEED = "123456789"
COMMON = ["-m", "emp-text", "--cache-dir", "{cache}", "--vocab-size", "20000"]


@pytest.fixture()
def obfuscate(cache_dir: Path, invoke: Any) -> Any:
    def _run(*args: str) -> tuple[int, str, str]:
        common = [a.format(cache=cache_dir) for a in COMMON]
        return invoke(["obfuscate", *args, *common])

    return _run


def _one_error_line(code: int, err: str, *must: str) -> str:
    assert code != 0
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("authormask: error")]
    assert len(lines) == 1, err
    for text in must:
        assert text in lines[0], lines[0]
    return lines[0]


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# --- A: no private file is ever an input or beside one ------------------------------------


def test_the_issue_s_private_report_is_never_released_as_a_document(
    obfuscate: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Item 1: `obfuscate in -o in/out` wrote the private report into the input folder, and the
    next release of `in` published it (with --oov keep, the seed verbatim)."""
    monkeypatch.chdir(tmp_path)
    Path("in").mkdir()
    Path("in/a.txt").write_text("The committee met.\n", encoding="utf-8")
    code, _, err = obfuscate("in", "--epsilon", "10", "--seed", SEED, "-o", "in/out")
    _one_error_line(code, err, "inside the input folder in", "even with --force")
    assert sorted(os.listdir("in")) == ["a.txt"]  # nothing written beside the input
    # a report (and an output folder) left there anyway, e.g. by an older version or by hand
    assert obfuscate("in", "--epsilon", "10", "--seed", SEED, "-o", "out")[0] == 0
    shutil.copy("out.DO-NOT-PUBLISH.report.txt", "in/out.DO-NOT-PUBLISH.report.txt")
    shutil.copy("out.DO-NOT-PUBLISH.report.txt", "in/notes.txt")  # renamed: found by content
    shutil.copytree("out", "in/out")
    code, _, err = obfuscate(
        "in", "--epsilon", "10", "--oov", "keep", "-o", "rel.jsonl", "--format", "jsonl"
    )
    assert code == 0, err
    released = Path("rel.jsonl").read_text(encoding="utf-8")
    assert SEED not in released and "PRIVATE" not in released
    assert len(released.splitlines()) == 1  # a.txt alone
    notes = [line for line in err.splitlines() if "skipped" in line]
    assert len(notes) == 1, err
    for name in ("in/out.DO-NOT-PUBLISH.report.txt", "in/notes.txt", "in/out (release output)"):
        assert name in notes[0], notes[0]


def test_a_private_report_named_piped_copied_or_linked_is_never_released(
    obfuscate: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An independent review: the content check ran for folder inputs only; a report named as
    a file, under another name, through a link or on standard input was released (its words
    and paths went to the mechanism)."""
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text("The committee met.\n", encoding="utf-8")
    assert obfuscate("a.txt", "--epsilon", "10", "--seed", SEED, "-o", "out.txt")[0] == 0
    report = Path("out.txt.DO-NOT-PUBLISH.report.txt")
    shutil.copy(report, "notes.txt")
    Path("link.txt").symlink_to(report)
    for name, kind in [
        (str(report), "private report"),
        ("notes.txt", "private report"),
        ("link.txt", "private report"),
        ("out.txt.privacy.json", "privacy statement"),
    ]:
        code, out, err = obfuscate(name, "--epsilon", "10", "--oov", "keep", "-o", "-")
        _one_error_line(code, err, name, f"an authormask {kind}", "never released")
        assert out == "" and SEED not in out
    # standard input: refused as it is read, from its first characters
    stdin = io.TextIOWrapper(io.BytesIO(report.read_bytes()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, err = obfuscate("-", "--epsilon", "10", "--oov", "keep", "-o", "-")
    _one_error_line(code, err, "standard input is an authormask private report")
    assert SEED not in out


def test_a_report_or_statement_changed_at_its_start_or_pasted_into_notes_is_never_released(
    obfuscate: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A re-audit: the check read only the first characters, so a report after a blank line,
    spaces or a zero-width space, and a statement whose keys were sorted (``jq -S .``), were
    released as documents (files, folder inputs and standard input)."""
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text("The committee met.\n", encoding="utf-8")
    assert obfuscate("a.txt", "--epsilon", "10", "--seed", SEED, "-o", "out.txt")[0] == 0
    report = Path("out.txt.DO-NOT-PUBLISH.report.txt").read_text(encoding="utf-8")
    statement = json.loads(Path("out.txt.privacy.json").read_text(encoding="utf-8"))
    variants = {
        "blank.txt": ("\n" + report, "private report"),
        "spaces.txt": ("   \n  " + report, "private report"),
        "zwsp.txt": ("\u200b" + report, "private report"),
        "pasted.txt": ("My notes on the run.\n\n" + report + "\nEnd.", "private report"),
        "sorted.json": (json.dumps(statement, sort_keys=True, indent=2), "privacy statement"),
        "quoted.txt": ("Here it is:\n" + json.dumps(statement), "privacy statement"),
    }
    Path("in").mkdir()
    Path("in/a.txt").write_text("The committee met.\n", encoding="utf-8")
    for name, (text, kind) in variants.items():
        Path(name).write_text(text, encoding="utf-8")
        Path("in", name).write_text(text, encoding="utf-8")
        code, out, err = obfuscate(name, "--epsilon", "10", "--oov", "keep", "-o", "-")
        _one_error_line(code, err, name, f"an authormask {kind}", "never released")
        assert out == ""
        stdin = io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stdin)
        code, out, err = obfuscate("-", "--epsilon", "10", "--oov", "keep", "-o", "-")
        _one_error_line(code, err, f"standard input is an authormask {kind}")
    # a folder input skips every one of them, by content, and releases a.txt alone
    code, _, err = obfuscate("in", "--epsilon", "10", "--oov", "keep", "-o", "rel.jsonl")
    assert code == 0, err
    assert len(Path("rel.jsonl").read_text(encoding="utf-8").splitlines()) == 1
    assert f"skipped {len(variants)} file(s)" in err, err


def test_an_output_statement_report_or_partial_inside_an_input_folder_is_refused(
    obfuscate: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "in"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("The ship sailed at dawn.\n", encoding="utf-8")
    (folder / "sub" / "b.txt").write_text("The river was cold.\n", encoding="utf-8")
    (tmp_path / "alias").symlink_to(folder, target_is_directory=True)
    before = _tree(folder)
    cases = [
        (["-o", str(folder / "sub" / "out")], "the output"),
        (["-o", str(folder / "o.jsonl")], "the output"),
        (["-o", str(tmp_path / "o.jsonl"), "--report", str(folder / "r.txt")], "private report"),
        (["-o", str(tmp_path / "alias" / "deep" / "out")], "the output"),  # through a link
        (["-o", str(tmp_path / "x"), "--report", str(tmp_path / "alias" / "r")], "report"),
    ]
    for args, what in cases:
        code, _, err = obfuscate(str(folder), "-e", "10", *args, "--force")
        _one_error_line(code, err, what, "inside the input folder")
        assert _tree(folder) == before, args
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alias", "in"]
    # a file input: an output beside it is fine (the folder is not an input)
    code, _, err = obfuscate(str(folder / "a.txt"), "-e", "10", "-o", str(folder / "a.out.txt"))
    assert code == 0, err


def test_a_dataset_folder_gets_no_release_file_inside_it(
    invoke: Any, tmp_path: Path, cache_dir: Path
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    folder = tmp_path / "data"
    folder.mkdir()
    pq.write_table(pa.table({"text": ["The ship sailed.", "The river ran."]}), folder / "a.parquet")
    before = _tree(folder)
    for args in (["-o", str(folder / "out.jsonl")],
                 ["-o", str(tmp_path / "o.jsonl"), "--report", str(folder / "r.txt")]):  # fmt: skip
        code, _, err = invoke(
            ["obfuscate", str(folder), "--text-column", "text", "-m", "emp-text", "-e", "10",
             "--cache-dir", str(cache_dir), "--vocab-size", "20000", *args]
        )  # fmt: skip
        _one_error_line(code, err, "inside the input folder")
        assert _tree(folder) == before


def test_a_folder_input_skips_authormask_files_by_name_and_by_content(
    obfuscate: Any, tmp_path: Path
) -> None:
    src = tmp_path / "made"
    src.mkdir()
    (src / "a.txt").write_text("The committee met.\n", encoding="utf-8")
    assert obfuscate(str(src / "a.txt"), "-e", "10", "-o", str(tmp_path / "o.jsonl"))[0] == 0
    assert obfuscate(str(src / "a.txt"), "-e", "10", "-o", str(tmp_path / "o.txt"))[0] == 0
    folder = tmp_path / "in"
    (folder / "deep").mkdir(parents=True)
    (folder / "doc.txt").write_text("The ship sailed down the river.\n", encoding="utf-8")
    report = (tmp_path / "o.jsonl.DO-NOT-PUBLISH.report.txt").read_bytes()
    statement = (tmp_path / "o.jsonl.privacy.json").read_bytes()
    files = {
        "x.DO-NOT-PUBLISH.report.txt": report,  # by name
        "deep/notes.txt": report,  # a report by content
        "PRIVACY-STATEMENT.json": statement,  # a statement by name
        "deep/terms.json": statement,  # by content
        "copy.jsonl": (tmp_path / "o.jsonl").read_bytes(),  # a JSONL output, by its records
        "o.txt": (tmp_path / "o.txt").read_bytes(),  # an output, by the statement beside it
        "o.txt.privacy.json": (tmp_path / "o.txt.privacy.json").read_bytes(),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    (folder / "PRIVACY-STATEMENT.json").unlink()  # the folder itself is an input, not an output
    del files["PRIVACY-STATEMENT.json"]
    shutil.copytree(src, folder / "released")  # a folder with a statement inside: an output
    (folder / "released" / "PRIVACY-STATEMENT.json").write_bytes(statement)
    out = tmp_path / "mirror"
    code, _, err = obfuscate(str(folder), "-e", "10", "-o", str(out), "--layout", "mirror")
    assert code == 0, err
    assert sorted(_tree(out)) == ["PRIVACY-STATEMENT.json", "doc.txt"]
    note = [line for line in err.splitlines() if line.startswith("authormask: note: skipped")]
    assert len(note) == 1, err
    for name in [*files, "released"]:
        assert str(folder / name) in note[0], name
    # a folder holding only such files is refused in one line
    (folder / "doc.txt").unlink()
    code, _, err = obfuscate(str(folder), "-e", "10", "-o", str(tmp_path / "again"))
    _one_error_line(code, err, "holds only authormask's own files")
    # an output folder given as the input is refused
    code, _, err = obfuscate(str(out), "-e", "10", "-o", str(tmp_path / "again"))
    _one_error_line(code, err, "is an authormask release output")


# --- E: the side lines declared -----------------------------------------------------------


@pytest.fixture()
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "posts.jsonl"
    rows = [
        {"user": f"user{i}@example.org", "year": 2000 + i, "text": f"The ship {i} sailed away."}
        for i in range(8)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _table(invoke: Any, cache_dir: Path, data: Path, out: Path, *args: str) -> str:
    code, _, err = invoke(
        ["obfuscate", str(data), "--text-column", "text", "-m", "emp-text", "-e", "10",
         "--cache-dir", str(cache_dir), "--vocab-size", "20000", "-o", str(out), *args]
    )  # fmt: skip
    assert code == 0, err
    return str(err)


def test_id_and_kept_columns_and_record_order_are_declared(
    invoke: Any, cache_dir: Path, dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    err = _table(invoke, cache_dir, dataset, out, "--id-column", "user", "--keep-column", "year")
    statement = json.loads((tmp_path / "out.jsonl.privacy.json").read_text())
    policies = statement["policies"]
    assert "'user'" in policies["ids"] and "NOT protected" in policies["ids"]
    assert "'year'" in policies["kept columns"] and "NOT protected" in policies["kept columns"]
    assert "input's order" in policies["record order"]
    # the text column's name is published too (the independent audit: it was not declared)
    assert policies["text column"].startswith("'text': its name is published")
    assert "'user'" in statement["released_unchanged"]
    assert "'year'" in statement["released_unchanged"]
    assert err.count("--id-column publishes") == 1 and err.count("--keep-column publishes") == 1
    # the terminal shows the statement in short and where the whole of it is (issue 47)
    assert "out.jsonl.privacy.json" in err and "record order" not in err
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["user"] for r in records] == [f"user{i}@example.org" for i in range(8)]
    # without them: the ids are the records' numbers, and that is said too
    plain = tmp_path / "plain.jsonl"
    err = _table(invoke, cache_dir, dataset, plain)
    statement = json.loads((tmp_path / "plain.jsonl.privacy.json").read_text())
    assert "number in the input" in statement["policies"]["ids"]
    assert "kept columns" not in statement["policies"]
    assert "NOT protected" not in statement["released_unchanged"]
    assert "publishes" not in err


def test_secret_ids_replace_the_id_column(
    invoke: Any, cache_dir: Path, dataset: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    args = ("--id-column", "user", "--ids", "secret", "--seed", "5", "--partition-size", "3")
    err = _table(invoke, cache_dir, dataset, out, *args)
    assert "--id-column publishes" not in err
    published = out.read_text()
    assert "example.org" not in published
    ids = [json.loads(line)["id"] for line in published.splitlines()]
    assert sorted(ids) == list(range(1, 9)) and ids != sorted(ids)
    statement = json.loads((tmp_path / "out.jsonl.privacy.json").read_text())
    assert "secret random order" in statement["policies"]["ids"]
    assert "example.org" not in json.dumps(statement) and "'user'" not in json.dumps(statement)
    # the private report maps every number to its input id
    report = (tmp_path / "out.jsonl.DO-NOT-PUBLISH.report.txt").read_text().splitlines()
    pairs = [p for line in report[2:] for p in json.loads(line).get("ids", [])]
    assert sorted(pairs) == sorted([k, f"user{i}@example.org"] for i, k in enumerate(ids))
    # the same seed, the same numbers; Parquet: an integer column "id"
    again = tmp_path / "again.jsonl"
    _table(invoke, cache_dir, dataset, again, *args)
    assert [json.loads(line)["id"] for line in again.read_text().splitlines()] == ids
    pq = pytest.importorskip("pyarrow.parquet")
    folder = tmp_path / "out.parquet"
    _table(invoke, cache_dir, dataset, folder, *args)
    table = pq.read_table(folder)
    assert table.column_names[0] == "id" and str(table.schema.field("id").type) == "int64"
    assert table.column("id").to_pylist() == ids


def test_ids_secret_needs_a_dataset(obfuscate: Any, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("The ship sailed.\n", encoding="utf-8")
    code, _, err = obfuscate(str(tmp_path / "a.txt"), "-e", "10", "--ids", "secret")
    assert code != 0 and "--ids applies to a dataset" in err


def test_the_progress_line_shows_no_input_size(obfuscate: Any, tmp_path: Path) -> None:
    """Two texts with the same release printed "19 characters" and "40 characters"."""
    lines = []
    for name, text in (("short.txt", "The committee met.\n"),
                       ("long.txt", "The committee met and the ship sailed.\n")):  # fmt: skip
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        code, _, err = obfuscate(str(path), "-e", "10", "-o", str(tmp_path / f"{name}.out"))
        assert code == 0, err
        shown = [line for line in err.splitlines() if line.startswith("releasing")]
        assert len(shown) == 1, err
        lines.append(shown[0])
    for line in lines:
        assert "character" not in line and "19" not in line and "40" not in line, line
        assert line.startswith("releasing: 100%")


def test_the_progress_line_ends_at_100_percent_whatever_the_bytes(
    obfuscate: Any, tmp_path: Path
) -> None:
    """An independent review: the last line gave characters read over bytes (curly quotes: 86%,
    zero-width spaces: 87%), beside a statement that says punctuation is not released and
    invisible characters are removed."""
    texts = {
        "straight.txt": 'She said "yes" and left.\n',
        "curly.txt": "She said \u201cyes\u201d and left, caf\u00e9 \u00e0 la cr\u00e8me.\n",
        "hidden.txt": "She\u200b said\u200b yes\u200b and\u200b left.\r\n",
    }
    for name, text in texts.items():
        path = tmp_path / name
        path.write_bytes(text.encode("utf-8"))
        code, _, err = obfuscate(str(path), "-e", "10", "-o", "-")
        assert code == 0, err
        shown = [line for line in err.splitlines() if line.startswith("releasing")]
        assert shown and shown[-1].startswith("releasing: 100%"), (name, shown)


# --- B (side line): releasing a text again is warned about ---------------------------------


def _history() -> Path:
    return Path(os.environ["AUTHORMASK_STATE_DIR"])


def _composition_lines(err: str) -> list[str]:
    return [
        line
        for line in err.splitlines()
        if line.startswith("authormask: warning:") and "the epsilons add" in line
    ]


def test_a_text_released_again_with_another_epsilon_is_warned_about(
    obfuscate: Any, tmp_path: Path, invoke: Any, cache_dir: Path
) -> None:
    text = "The committee met in the old library.\n"
    doc = tmp_path / "letter.txt"
    doc.write_text(text, encoding="utf-8")

    def release(*args: str) -> str:
        code, _, err = obfuscate(*args, "-o", str(tmp_path / f"o{len(list(tmp_path.iterdir()))}"))
        assert code == 0, err
        return err

    assert _composition_lines(release(str(doc), "-e", "10", "--seed", "3")) == []
    assert _composition_lines(release(str(doc), "-e", "10", "--seed", "3")) == []  # rerun
    lines = _composition_lines(release(str(doc), "-e", "7", "--seed", "3"))
    assert len(lines) == 1 and lines[0].startswith("authormask: warning:")
    assert "emp-text epsilon 10" in lines[0] and "10 + 7 = 17 per word" in lines[0]
    # the content counts, not the name: the same text under another name, unseeded, warns
    copy = tmp_path / "copy.txt"
    copy.write_text(text, encoding="utf-8")
    lines = _composition_lines(release(str(copy), "-e", "10"))
    assert len(lines) == 1 and "10 + 7 + 10 = 27" in lines[0]
    # --no-history neither reads nor extends it
    history = _history() / "releases.jsonl"
    size = history.stat().st_size
    assert _composition_lines(release(str(doc), "-e", "3", "--no-history")) == []
    assert history.stat().st_size == size
    # another text: no warning
    other = tmp_path / "other.txt"
    other.write_text("A different letter entirely.\n", encoding="utf-8")
    assert _composition_lines(release(str(other), "-e", "2")) == []
    # a dataset's records are texts too
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"text": text}) + "\n", encoding="utf-8")
    code, _, err = invoke(
        ["obfuscate", str(data), "--text-column", "text", "-m", "emp-text", "-e", "5",
         "--cache-dir", str(cache_dir), "--vocab-size", "20000", "-o", str(tmp_path / "d.out")]
    )  # fmt: skip
    assert code == 0, err
    assert len(_composition_lines(err)) == 1


def test_a_copy_that_differs_only_in_invisible_characters_or_spacing_is_the_same_text(
    obfuscate: Any, tmp_path: Path
) -> None:
    """An independent review: the history hashed the text before cleaning, so a copy with a
    zero-width space or a fullwidth letter (which the mechanism reads identically: the same
    seed gave byte-identical output), a double space or a final line break was not warned
    about."""
    text = "The committee met in the old library."
    variants = [
        text + "\n",
        text.replace("old", "o\u200bld") + "\n",  # a zero-width space inside a word
        text.replace("T", "\uff34", 1) + "\n",  # a fullwidth letter (NFKC: T)
        text.replace(" in ", "  in "),  # a double space, no final line break
    ]
    warned = []
    for i, variant in enumerate(variants):
        doc = tmp_path / f"v{i}.txt"
        doc.write_text(variant, encoding="utf-8")
        code, _, err = obfuscate(str(doc), "-e", str(5 + i), "-o", str(tmp_path / f"o{i}"))
        assert code == 0, err
        warned.append(len(_composition_lines(err)))
    assert warned == [0, 1, 1, 1]


def test_the_history_is_private_and_holds_no_text(obfuscate: Any, tmp_path: Path) -> None:
    doc = tmp_path / "letter.txt"
    doc.write_text("The committee met in the old library.\n", encoding="utf-8")
    assert obfuscate(str(doc), "-e", "10", "-o", str(tmp_path / "o1"))[0] == 0
    folder = _history()
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
    for name in ("history.key", "releases.jsonl"):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
    raw = (folder / "releases.jsonl").read_text(encoding="utf-8")
    assert raw.startswith(HISTORY_BANNER + "\n")
    for secret in ("committee", "library", "letter", str(tmp_path)):
        assert secret not in raw
    (entry,) = [json.loads(line) for line in raw.splitlines()[1:]]
    assert set(entry) == {"parameters", "mechanism", "epsilon", "unit", "seeded", "texts"}
    assert len(entry["texts"]) == 1 and len(entry["texts"][0]) == 32
    # a history folder other users can write is not used: one warning, the release goes on
    os.chmod(folder, 0o777)
    code, _, err = obfuscate(str(doc), "-e", "7", "-o", str(tmp_path / "o2"))
    assert code == 0, err
    warned = [line for line in err.splitlines() if "release history" in line]
    assert len(warned) == 1 and "open to other users" in warned[0]
    assert _composition_lines(err) == []


def test_the_files_of_an_output_folder_share_one_time(
    obfuscate: Any, invoke: Any, cache_dir: Path, dataset: Path, tmp_path: Path
) -> None:
    """A re-audit: each file of an output folder (a document, a Parquet part) kept the time it
    was written, so the gaps between them showed how long each took, that is how long its text
    was (a partition of 15x longer texts appeared 12 s after the one before, 0.7 s for the
    next)."""
    import time

    folder = tmp_path / "in"
    folder.mkdir()
    for i, words in enumerate((5, 4000, 5)):
        (folder / f"{i}.txt").write_text(" ".join(["The ship sailed."] * words) + "\n")
    code, _, err = obfuscate(str(folder), "-e", "10", "-o", str(tmp_path / "out"))
    assert code == 0, err
    times = {p.stat().st_mtime_ns for p in (tmp_path / "out").glob("*.txt")}
    assert len(list((tmp_path / "out").glob("*.txt"))) == 3 and len(times) == 1
    pytest.importorskip("pyarrow")
    slow = tmp_path / "slow.jsonl"
    rows = [{"text": "The ship sailed. " * (3000 if i < 2 else 1)} for i in range(6)]
    slow.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    before = time.time()
    _table(invoke, cache_dir, slow, tmp_path / "out.parquet", "--partition-size", "2")
    parts = sorted((tmp_path / "out.parquet").glob("part-*.parquet"))
    assert len(parts) == 3
    assert len({p.stat().st_mtime_ns for p in parts}) == 1
    assert min(p.stat().st_mtime for p in parts) >= before
