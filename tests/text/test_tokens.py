from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from authormask.text import CLITICS, default_stopwords, tokenize

# Characters that exercise the tokenizer: letters, digits, apostrophes, hyphens, underscores,
# punctuation and every kind of whitespace.
TRICKY = st.text(
    alphabet=st.sampled_from(
        list("aAnNtTsSdDmMlLrReEvV0'\u2019-_.,!? \t\n\r\u00a0\u2009\u00e9\u00df")
    ),
    max_size=60,
)
ANY_TEXT = st.one_of(TRICKY, st.text(max_size=60))


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("don't", ["do", "n't"]),
        ("can't", ["ca", "n't"]),
        ("won't", ["wo", "n't"]),
        ("shan't", ["sha", "n't"]),
        ("President's", ["President", "'s"]),
        ("I'm", ["I", "'m"]),
        ("we'll", ["we", "'ll"]),
        ("they're", ["they", "'re"]),
        ("I've", ["I", "'ve"]),
        ("he'd", ["he", "'d"]),
        ("DON'T", ["DO", "N'T"]),
        ("It'S", ["It", "'S"]),
        ("don\u2019t", ["do", "n\u2019t"]),
        ("Reuters\u2019s", ["Reuters", "\u2019s"]),
        ("shouldn't've", ["should", "n't", "'ve"]),
        ("O'Neill's", ["O'Neill", "'s"]),
        ("mother-in-law's", ["mother-in-law", "'s"]),
        ("O'Neill", ["O'Neill"]),
        ("o'clock", ["o'clock"]),
        ("rock'n'roll", ["rock'n'roll"]),
        ("y'all", ["y'all"]),
        ("state-of-the-art", ["state-of-the-art"]),
        ("n't", ["n't"]),
        ("x-n't", ["x-n't"]),
        ("investors'", ["investors", "'"]),
        ("'s", ["'", "s"]),
    ],
)
def test_clitics_split_with_exact_spans(text: str, pieces: list[str]) -> None:
    doc = f"<{text}>"
    toks = tokenize(doc)[1:-1]
    assert [t.text for t in toks] == pieces
    assert all(doc[t.start : t.end] == t.text for t in toks)
    assert toks[0].start == 1 and toks[-1].end == len(doc) - 1
    assert all(a.end == b.start for a, b in itertools.pairwise(toks))


def test_clitics_lookup_form_is_ascii_and_a_stopword() -> None:
    toks = tokenize(
        "Don\u2019t, I\u2019M, it\u2019s, we\u2019LL, you\u2019re, I\u2019ve, he\u2019d"
    )
    clitics = [t.lower for t in toks if t.lower in CLITICS]
    assert clitics == ["n't", "'m", "'s", "'ll", "'re", "'ve", "'d"]
    assert set(CLITICS) <= default_stopwords()


def test_default_stopword_count() -> None:
    assert len(default_stopwords()) == 160


@given(ANY_TEXT)
def test_tokens_cover_every_non_space_character_in_order(text: str) -> None:
    cursor = 0
    for tok in tokenize(text):
        assert tok.start >= cursor and tok.end > tok.start
        assert re.fullmatch(r"\s*", text[cursor : tok.start])
        assert text[tok.start : tok.end] == tok.text
        assert not re.search(r"\s", tok.text)
        assert tok.is_word == any(ch.isalnum() for ch in tok.text)
        cursor = tok.end
    assert re.fullmatch(r"\s*", text[cursor:])
