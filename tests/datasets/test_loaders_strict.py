"""The corpus loaders read CSV and JSONL strictly: a file that does not parse cleanly is an error
naming the line, never fewer (merged) records (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest

from authormask.datasets.loaders import load_csv, load_jsonl
from authormask.exceptions import InputError


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('text,author\n"hello there,alice\nok,bob\n', r"docs.csv:2: .*quoted field is not"),
        ('text,author\n"hello there,alice\n"ok",bob\n', r"docs.csv:2: a character follows a"),
        ("text,author\nhello,alice\nok\n", r"docs.csv:3: 1 field\(s\), the header has 2"),
        ("text,author\nhello,alice,extra\n", r"docs.csv:2: 3 field\(s\), the header has 2"),
        ("text,author,text\nhello,alice,x\n", "names column 'text' twice"),
    ],
)  # fmt: skip
def test_a_broken_csv_is_an_error_naming_the_line(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "docs.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        load_csv(path)


def test_a_clean_csv_keeps_every_record_and_names_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "docs.csv"
    path.write_text(
        'text,author\n"a letter\nover two lines",alice\nline\u2028separator,bob\n',
        encoding="utf-8",
    )
    corpus = load_csv(path)
    assert [d.text for d in corpus.documents] == [
        "a letter\nover two lines",
        "line\u2028separator",
    ]
    assert corpus.authors == ("alice", "bob")


def test_jsonl_lines_end_at_newlines_only(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text(
        '{"text": "a line\u2028separator and a\x85next line", "author": "alice"}\n',
        encoding="utf-8",
    )
    corpus = load_jsonl(path)
    assert [d.text for d in corpus.documents] == ["a line\u2028separator and a\x85next line"]
