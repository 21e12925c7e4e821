"""CLI fuzz: ``authormask obfuscate`` on random bytes, text in every encoding, and random option
values ends with a valid output and its statement, or with one ``authormask: error:`` line; never
a traceback. Runs in-process through :func:`authormask.cli.main.main`."""

from __future__ import annotations

import codecs
import json
import re
import tempfile
from pathlib import Path

import pytest
from fuzzing import RAW_BYTES, TEXT, fuzz
from hypothesis import event, given
from hypothesis import strategies as st

from authormask.core.sources import decode_bytes
from authormask.text.clean import clean_text

WS = re.compile(r"\s+")

#: how a document may be stored: (name, bytes of a text)
ENCODINGS = {
    "utf-8": lambda t: t.encode("utf-8"),
    "utf-8 with BOM": lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    "utf-16-le with BOM": lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
    "utf-16-be with BOM": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    "utf-32-le with BOM": lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"),
    "utf-32-be with BOM": lambda t: codecs.BOM_UTF32_BE + t.encode("utf-32-be"),
    "utf-16-le without BOM": lambda t: t.encode("utf-16-le"),
    "utf-16-be without BOM": lambda t: t.encode("utf-16-be"),
    "utf-32-le without BOM": lambda t: t.encode("utf-32-le"),
    "latin-1": lambda t: t.encode("latin-1", errors="replace"),
    "cp1252": lambda t: t.encode("cp1252", errors="replace"),
}

#: where the release goes: extra arguments, and the output path relative to the run's folder
OUTPUTS = {
    "stdout": ([], None),
    "stdout jsonl": (["--format", "jsonl"], None),
    "file": (["-o", "out.txt"], "out.txt"),
    "jsonl file": (["--format", "jsonl", "-o", "out.jsonl"], "out.jsonl"),
    "folder": (["-o", "outdir", "--layout", "ids"], "outdir"),
}

MECHANISMS = {
    "emp-text": ["-m", "emp-text", "-e", "5"],
    "emp-bag": ["-m", "emp-bag", "-e", "5", "--length", "3", "--fixed-length", "sample"],
    "syntf": ["-m", "syntf", "-e", "5", "--output-size", "2000"],
    "random-r": ["-m", "random-r", "--output-size", "2000"],
}


def _check_written(output: Path, kind: str) -> None:
    """A released output is complete: every JSONL line parses, no temporary file is left."""
    if "jsonl" in kind:
        for line in output.read_text(encoding="utf-8").splitlines():
            assert json.loads(line)["text"] is not None
    folder = output if output.is_dir() else output.parent
    assert not [p for p in folder.iterdir() if p.name.endswith((".tmp", ".partial"))]


def _run_on(
    authormask, folder: Path, contents: list[bytes], mechanism: str, output: str, seed: bool
) -> tuple[str, Path | None]:
    inputs = []
    for i, data in enumerate(contents):
        path = folder / f"doc{i}.txt"
        path.write_bytes(data)
        inputs.append(str(path))
    extra, out_name = OUTPUTS[output]
    extra = [a if a not in ("out.txt", "out.jsonl", "outdir") else str(folder / a) for a in extra]
    args = ["obfuscate", *inputs, *MECHANISMS[mechanism], *extra]
    if seed:
        args += ["--seed", "7"]
    outcome = authormask(*args)
    out_path = folder / out_name if out_name is not None else None
    result = outcome.check(out_path)
    event(f"{mechanism}: {result}")
    if result == "released":
        if out_path is not None:
            _check_written(out_path, output)
        elif output == "stdout jsonl":
            for line in outcome.out.splitlines():
                assert json.loads(line)["privacy"]["mechanism"] == mechanism
    elif out_path is not None and output in ("file", "jsonl file"):
        assert not out_path.exists()  # a refused release leaves no output behind
    return result, out_path


@fuzz(60)
@given(
    contents=st.lists(RAW_BYTES, min_size=1, max_size=2),
    mechanism=st.sampled_from(sorted(MECHANISMS)),
    output=st.sampled_from(sorted(OUTPUTS)),
    seed=st.booleans(),
)
def test_random_bytes(authormask, contents: list[bytes], mechanism: str, output: str, seed: bool):
    with tempfile.TemporaryDirectory() as tmp:
        _run_on(authormask, Path(tmp), contents, mechanism, output, seed)


@fuzz(60)
@given(text=TEXT, encoding=st.sampled_from(sorted(ENCODINGS)))
def test_text_in_any_encoding(authormask, text: str, encoding: str) -> None:
    """Text in an encoding with a byte order mark is read as its text; any other encoding is
    read as UTF-8 or refused. A released emp-text output keeps the layout (CRLF read as LF)."""
    data = ENCODINGS[encoding](text)
    with tempfile.TemporaryDirectory() as tmp:
        result, out = _run_on(authormask, Path(tmp), [data], "emp-text", "file", False)
        if result != "released":
            return
        assert out is not None
        released = out.read_bytes().decode("utf-8")  # not read_text: it turns \r into \n
        read = decode_bytes(data, "input")
        # the layout kept is the cleaned text's (the statement's invisible-characters policy:
        # a tab, a \x1f or any other space character becomes one plain space)
        assert WS.findall(released) == WS.findall(clean_text(read))
        if "BOM" in encoding and "without" not in encoding:
            assert read == text.replace("\r\n", "\n")


def mostly(valid: st.SearchStrategy[str | None], *others: st.SearchStrategy[str]):
    """``valid`` 4 times in 5, else any of ``others``: every option is often valid, so that
    many runs with a few odd values get through to the release."""
    invalid = st.one_of(*others)
    return st.integers(0, 4).flatmap(lambda i: valid if i < 4 else invalid)


_ANY_NUMBER = st.floats().map(repr)
EPSILON_VALUES = mostly(
    st.sampled_from(["5", "0.5", "1e-3", "100", " 5 ", "1_0", "1e-40", "1e300"]),
    st.sampled_from(
        ["abc", "-1", "0", "-0", "nan", "inf", "-inf", "1e-320", "1e400", "", " ", "0x10"]
    ),
    st.sampled_from(["\u0665", "5\x00", "--5", "-e", "1e-300", str(10**400)]),
    _ANY_NUMBER,
    st.text(max_size=6),
)
_ANY_INT = st.one_of(
    st.sampled_from(["0", "-1", "abc", "", "1.5", "1e3", str(10**30), str(2**64), str(10**400)]),
    st.integers(-(2**70), 2**70).map(str),
    st.text(max_size=4),
)
MECHANISM_NAMES = mostly(
    st.sampled_from(["emp-text", "emp-bag", "syntf", "random-r", "erae", "ae-dp"]),
    st.sampled_from(["EMP-TEXT", "", "nope", "emp_text", "-e"]),
    st.text(max_size=8),
)


@fuzz(100)
@given(
    mechanism=MECHANISM_NAMES,
    epsilon=mostly(EPSILON_VALUES, st.none()),
    seed=mostly(st.sampled_from([None, "1", str(2**128)]), _ANY_INT),
    length=mostly(st.none(), st.sampled_from(["2", "shortest"]), _ANY_INT),
    output_size=mostly(st.none(), st.just("2000"), _ANY_INT),
    fmt=mostly(st.sampled_from([None, "txt", "jsonl"]), st.just("xml"), st.text(max_size=4)),
)
def test_option_values(
    authormask,
    tmp_path: Path,
    mechanism: str,
    epsilon: str | None,
    seed: str | None,
    length: str | None,
    output_size: str | None,
    fmt: str | None,
) -> None:
    doc = tmp_path / "doc.txt"
    if not doc.exists():
        doc.write_text(
            "The committee approved the budget on Tuesday. Critics said the plan would raise "
            "taxes, while supporters argued that schools and hospitals needed the money.\n",
            encoding="utf-8",
        )
    args = ["obfuscate", str(doc), "--mechanism", mechanism]
    for flag, value in (
        ("--epsilon", epsilon),
        ("--seed", seed),
        ("--length", length),
        ("--output-size", output_size),
        ("--format", fmt),
    ):
        if value is not None:
            args.append(f"{flag}={value}")
    outcome = authormask(*args)
    result = outcome.check()
    event(result if result == "released" else " ".join(outcome.err.split()[2:8])[:70])


@pytest.mark.parametrize(
    "args",
    [
        *(["-m", "emp-text", "-e", eps] for eps in ("abc", "-1", "0", "nan", "inf", "1e-320")),
        *(["-m", "emp-bag", "-e", eps] for eps in ("1e400", "-inf", "", "1e-300")),
        ["-m", "syntf", "-e", "1e300"],
        ["-m", "syntf", "-e", "1e-320"],
        ["-m", "emp-text", "-e", "5", "--seed", "-1"],
        ["-m", "emp-text", "-e", "5", "--seed", "abc"],
        ["-m", "emp-bag", "-e", "5", "--length", "0"],
        ["-m", "emp-bag", "-e", "5", "--length", "-3"],
        ["-m", "emp-bag", "-e", "5", "--length", str(10**30)],
        ["-m", "emp-bag", "-e", "5", "--length", "1e3"],
        ["-m", "emp-text", "-e", "5", "--length", "3"],
        ["-m", "no-such-mechanism", "-e", "5"],
        ["-m", "", "-e", "5"],
        ["-m", "random-r", "-e", "5"],
        ["-m", "erae", "-e", "5"],
        ["-m", "emp-text"],
        ["-m", "emp-text", "-e", "5", "--oov", "drop"],
        ["-m", "emp-text", "-e", "5", "--format", "xml"],
        ["-m", "emp-text", "-e", "5", "--stopwords", "/nonexistent/stopwords.txt"],
        ["-m", "emp-text", "-e", "5", "--embeddings", "/nonexistent/vectors.vec"],
        ["-m", "emp-text", "-e", "5", "--oov-map-to", "zzzqqqxxx"],
    ],
    ids=" ".join,
)
def test_bad_option_values_are_one_line(authormask, tmp_path: Path, args: list[str]) -> None:
    doc = tmp_path / "doc.txt"
    doc.write_text("The committee approved the budget on Tuesday.\n", encoding="utf-8")
    assert authormask("obfuscate", str(doc), *args).check() == "refused"
