from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from authormask.datasets import find_reuters_c50
from authormask.embeddings import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text import PreparedDocument, TextPreparer, match_case, render_text
from authormask.text.clean import clean_text

TOY = Embeddings(
    "toy",
    "test",
    ("unknown", "do", "ca", "say", "president", "replacement"),
    np.eye(6, dtype=np.float32),
)
TEXTS = st.one_of(
    st.text(
        alphabet=st.sampled_from(
            list("aAdDoOnNtTsSyY09'\u2019-_.,;!?()\"$ \t\n\r\u00a0\u2009\u00e9\u00c9")
        ),
        max_size=80,
    ),
    st.text(max_size=80),
)


def _prepare(preparer: TextPreparer, text: str) -> PreparedDocument:
    try:
        return preparer.prepare(text)
    except InputError:
        assume(False)
        raise


def _originals(doc: PreparedDocument) -> list[str]:
    return [doc.tokens[i].text for i in doc.content_positions]


def _runs(text: str) -> list[str]:
    return re.findall(r"\s+", text)


@settings(max_examples=300)
@given(TEXTS, st.sampled_from(["map", "keep"]), st.booleans())
def test_rendering_the_original_words_gives_back_the_text(
    text: str, oov: str, stopwords: bool
) -> None:
    preparer = TextPreparer(TOY, oov=oov, stopwords=None if stopwords else set())
    doc = _prepare(preparer, text)
    # the text as cleaned (invisible and control characters removed, line breaks and spaces
    # written plainly, NFKC: authormask.text.clean) is what the skeleton is copied from
    assert doc.text == clean_text(text)
    assert render_text(doc, _originals(doc)) == clean_text(text)


@settings(max_examples=300)
@given(TEXTS, st.sampled_from(["replacement", "x", "Ca", "AB-CD's", "\u00e9t\u00e9"]))
def test_rendering_keeps_every_whitespace_run(text: str, word: str) -> None:
    doc = _prepare(TextPreparer(TOY, oov="map", stopwords=set()), text)
    out = render_text(doc, [word] * len(doc.content_positions))
    assert _runs(out) == _runs(clean_text(text))
    assert out.count("\n") == clean_text(text).count("\n")


def test_case_pattern_and_clitics() -> None:
    doc = TextPreparer(TOY, oov="map").prepare("DON'T say Zoe's President can\u2019t.")
    assert doc.content_words == ("say", "unknown", "president")
    out = render_text(doc, ["ca", "president", "say"])
    assert out == "DON'T ca President's Say can\u2019t."
    assert match_case("I", "we") == "We" and match_case("USA", "uk") == "UK"
    assert match_case("eBay", "amazon") == "amazon"


def test_dropped_words_are_refused() -> None:
    doc = TextPreparer(TOY, oov="drop").prepare("say Zoe and Zed")
    with pytest.raises(InvalidParameterError, match="cannot drop words without leaving holes"):
        render_text(doc, ["say"])


def test_bad_replacements_are_refused() -> None:
    doc = TextPreparer(TOY, oov="map").prepare("say Zoe")
    with pytest.raises(InvalidParameterError, match="1 replacements for 2 content positions"):
        render_text(doc, ["say"])
    for bad in ["", "two words", "tab\t"]:
        with pytest.raises(InvalidParameterError, match="non-empty and contain no whitespace"):
            render_text(doc, ["say", bad])


def _reuters_documents(n_per_author: int) -> list[str]:
    try:
        root = find_reuters_c50()
    except InputError:
        pytest.skip("Reuters C50 is not in ../shared/data/reuters-c50 on this machine")
    texts = []
    for author in sorted((root / "C50train").iterdir()):
        for path in sorted(author.glob("*.txt"))[:n_per_author]:
            # newline="" keeps the files' CRLF line endings, so they are checked too.
            with path.open(encoding="latin-1", newline="") as fh:
                texts.append(fh.read())
    return texts


def test_reuters_layout_is_kept_exactly(glove_20k: Embeddings) -> None:
    """The layout of the cleaned text is kept exactly: every whitespace run, each CRLF line
    break as one newline."""
    texts = _reuters_documents(5)
    assert len(texts) == 250
    preparer = TextPreparer(glove_20k, oov="map")
    for text in texts:
        doc = preparer.prepare(text)
        assert "oov-dropped" not in doc.roles
        assert render_text(doc, _originals(doc)) == clean_text(text)
        out = render_text(doc, ["replacement"] * len(doc.content_positions))
        assert _runs(out) == _runs(clean_text(text))
        assert out.count("\n") == text.count("\n") and "\r" not in out
        # a tab is written as a space by cleaning (the corpus has tables laid out with tabs)
        assert out.count("  ") == clean_text(text).count("  ") >= text.count("  ")
        assert "\t" not in out
        assert len(out.split()) == len(text.split())
