"""Rendering defects of the canonical skeleton (emp-doc, random-sub), each reproduced first:
quotation marks placed by parity over the whole document, questions released as statements,
numbers split at their decimal point into sentences, URLs and e-mail addresses split into
sentences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from authormask.audit.case_spec import core_mechanism, core_noise_off
from authormask.core import release
from authormask.embeddings import Embeddings
from authormask.exceptions import InputError
from authormask.mechanisms._base import Mechanism
from authormask.text.canonical import (
    CLOSE_QUOTE,
    INCH_MARK,
    OPEN_QUOTE,
    CanonicalPreparer,
    canonical_tokens,
    render_canonical,
)
from authormask.text.tokens import tokenize

QUOTES = 'It was late, 5" of snow. "Hello," she said. "Are you coming?" "No," he replied.'
NUMBERS = "Sales rose 12.4% to 1,000 units at 10:30 today."
LINKS = "See https://example.com/a?b=c or www.example.org, or write to jane.doe@example.com now."


@pytest.fixture(scope="module")
def noise_off(glove_20k: Embeddings) -> Mechanism:
    # marks: minimal; unknown words as the fixed word 'unknown' so the rendering shows where
    # they stood (the default draws a word: tests/mechanisms/test_unknown.py)
    return core_noise_off("emp-doc", embeddings=glove_20k, oov_map_to="unknown")


def _text(mech: Mechanism, text: str, seed: int = 0) -> str:
    return release([text], mech, random_state=seed).documents[0].text


def _marks(text: str, marks: str = "canonical") -> list[str]:
    toks, _ = canonical_tokens(text, marks=marks)
    return [t for is_word, t in toks if not is_word]


# --- 1. quotation marks decided by their own surroundings -----------------------------------


def test_an_unpaired_quote_does_not_flip_the_quotations_after_it(noise_off: Mechanism) -> None:
    assert _text(noise_off, QUOTES) == QUOTES


def test_quotes_are_distinct_opening_and_closing_tokens() -> None:
    assert _marks(QUOTES) == [
        *(",", INCH_MARK, "."),
        *(OPEN_QUOTE, ",", CLOSE_QUOTE, "."),
        *(OPEN_QUOTE, "?", CLOSE_QUOTE),
        *(OPEN_QUOTE, ",", CLOSE_QUOTE, "."),
    ]
    # nested and adjacent quotes look past each other; a dash or bracket opens like a space
    assert _marks('He said "\'Hi,\' she said." -"Go" ("x")') == [
        *(OPEN_QUOTE, OPEN_QUOTE, ",", CLOSE_QUOTE, ".", CLOSE_QUOTE),
        *("-", OPEN_QUOTE, CLOSE_QUOTE),
        *("(", OPEN_QUOTE, CLOSE_QUOTE, ")"),
    ]


def test_an_ambiguous_quote_is_decided_by_the_open_quotation() -> None:
    # spaces on both sides: the first opens, the second closes
    assert _marks('a " b " c') == [OPEN_QUOTE, CLOSE_QUOTE]
    assert _marks('say "" now') == [OPEN_QUOTE, CLOSE_QUOTE]


def test_the_open_quotation_is_forgotten_at_a_paragraph_boundary(glove_20k: Embeddings) -> None:
    # an apostrophe after a word is a closing quote inside a quotation, else a possessive
    inside = "\"Tell me. James' hat"
    assert "'s" not in [t for _, t in canonical_tokens(inside)[0]]
    for brk in ("\n\n", "\r\n\r\n", "\n  \n", "\u2029"):
        toks, _ = canonical_tokens(inside.replace(" James", brk + "James"))
        assert [t for _, t in toks][-2:] == ["'s", "hat"], repr(brk)
    # one line break is no paragraph boundary
    toks, _ = canonical_tokens(inside.replace(" James", "\r\nJames"))
    assert "'s" not in [t for _, t in toks]
    # nor does it depend on where the document is cut (a part ends after a whitespace)
    prep = CanonicalPreparer(glove_20k, function_words=frozenset({"me"}))
    for text, cut in (
        ("\"Tell me.\r\n\r\nJames' hat", len('"Tell me.\r\n')),
        ("\"Tell me.\r\nJames' hat", len('"Tell me.\r')),
        ("\"Tell me.\n\nJames' hat", len('"Tell me.\n')),
        ('It was 5" of snow', len("It was ")),
    ):
        assert list(prep.units([text[:cut], text[cut:]])) == list(prep.units([text])), text


def test_a_quote_after_a_digit_is_an_inch_mark_kept_under_minimal_marks() -> None:
    assert _marks('a 5" pipe', marks="minimal") == [INCH_MARK]
    toks, _ = canonical_tokens('A 5" pipe; "ok"', marks="minimal")
    assert [t for _, t in toks] == ["a", "5", INCH_MARK, "pipe", ",", OPEN_QUOTE, "ok", CLOSE_QUOTE]


def test_a_unit_boundary_inside_a_quotation_renders_as_the_whole(glove_20k: Embeddings) -> None:
    prep = CanonicalPreparer(glove_20k, function_words=frozenset({"the"}))
    text = ' "the cat" said the dog, "the end." ' * 3000
    units = list(prep.units([text]))
    assert len(units) > 1
    joined = "".join(render_canonical(u, u.content_words, u.function_words) for u in units)
    assert joined == ('"The cat" said the dog, "the end." ' * 3000).strip()


# --- 2. questions stay questions -------------------------------------------------------------


def test_minimal_marks_keep_question_marks(noise_off: Mechanism, glove_20k: Embeddings) -> None:
    assert _text(noise_off, "Are you coming? I am! Go. Why?!") == "Are you coming? I am. Go. Why?"
    for name, params in (("emp-doc", {"epsilon": 5}), ("random-sub", {"rate": 0.5})):
        policy = core_mechanism(name, embeddings=glove_20k, **params).statement(seeded=True)
        assert "'?' released as '?'" in policy.policies["marks"]


# --- 3. numbers ------------------------------------------------------------------------------


def test_a_number_is_one_token_with_its_separators_and_percent_sign() -> None:
    words = [t.text for t in tokenize(NUMBERS + " v1.2.3, .5 and 1,000's", compounds=True)]
    assert words == [
        *("Sales", "rose", "12.4%", "to", "1,000", "units", "at", "10:30", "today", "."),
        *("v1.2.3", ",", ".5", "and", "1,000", "'s"),
    ]
    # a sentence end after a number is still one
    assert [t.text for t in tokenize("It was 12. Then 3,", compounds=True)] == [
        *("It", "was", "12", ".", "Then", "3", ","),
    ]


def test_numbers_are_content_words_and_no_sentence_ends(noise_off: Mechanism) -> None:
    assert _text(noise_off, NUMBERS) == "Sales rose unknown to unknown units at unknown today."
    assert _marks(NUMBERS) == ["."]


def test_a_number_is_perturbed_like_any_unknown_word(glove_20k: Embeddings) -> None:
    mech = core_mechanism("emp-doc", embeddings=glove_20k, epsilon=5)
    for text in (NUMBERS, "12.4%", "1,000,000,000.5% 10:30:15"):
        out = _text(mech, text, seed=1)
        assert out and "%" not in out and ":" not in out


def test_random_sub_keeps_a_number_or_replaces_it(glove_20k: Embeddings) -> None:
    """random-sub (no guarantee) keeps a number without a vector as written where it keeps the
    word, and replaces it by a vocabulary word where it replaces it (issue 47, item 5: its
    noise-off form keeps numbers as numbers; tests/mechanisms/test_random_sub_numbers.py)."""
    mech = core_mechanism("random-sub", embeddings=glove_20k, rate=0.5)
    for text in (NUMBERS, "12.4%", "1,000,000,000.5% 10:30:15"):
        numbers = [t for t in text.rstrip(".").split() if t[0].isdigit()]
        words = release([text], mech, random_state=1).documents[0].words
        assert words
        assert all(w in glove_20k or w in numbers for w in words)


# --- 4. URLs and e-mail addresses ------------------------------------------------------------


def test_links_and_addresses_are_one_token_each() -> None:
    more = " (https://x.org/it's). HTTP://w.org/Foo_(bar), e-mail: a@b.co!"
    words = [t.text for t in tokenize(LINKS + more, compounds=True)]
    assert words == [
        *("See", "https://example.com/a?b=c", "or", "www.example.org", ","),
        *("or", "write", "to", "jane.doe@example.com", "now", "."),
        *("(", "https://x.org/it's", ")", "."),
        *("HTTP://w.org/Foo_(bar)", ",", "e-mail", ":", "a@b.co", "!"),
    ]


def test_links_are_content_words_and_no_sentence_ends(noise_off: Mechanism) -> None:
    assert _text(noise_off, LINKS) == "See unknown or unknown, or write to unknown now."


# --- what stays as it was --------------------------------------------------------------------


def test_emp_text_tokenisation_is_unchanged() -> None:
    assert [t.text for t in tokenize("12.4% of jane@x.org")] == [
        *("12", ".", "4", "%", "of", "jane", "@", "x", ".", "org"),
    ]


def test_long_runs_without_a_link_tokenise_in_linear_time() -> None:
    """Every token start tries the link patterns: bounded, so a long run of punctuated text is
    read about as fast as without them (unbounded, this text took minutes)."""
    import time

    text = "a." * 20_000 + "a@" * 20_000 + "9," * 20_000 + "ab://" * 10_000
    seconds = {}
    for compounds in (False, True):
        t0 = time.perf_counter()
        toks = tokenize(text, compounds=compounds)
        seconds[compounds] = time.perf_counter() - t0
        assert len(toks) > 80_000
    assert seconds[True] < 10 * seconds[False]


def test_ordinary_prose_keeps_its_canonical_tokens() -> None:
    toy = Embeddings("toy", "t", ("the", "cat", "unknown"), np.eye(3, dtype=np.float32))
    prep = CanonicalPreparer(toy, function_words=frozenset({"the"}))
    unit = prep.prepare("The cat!!! The cat?")
    assert render_canonical(unit, unit.content_words, unit.function_words) == "The cat! The cat?"


TOY = Embeddings("toy", "t", ("the", "a", "unknown", "b"), np.eye(4, dtype=np.float32))


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("ab9 .,:%@/'\"\u201c\u201d\u2029()-?!\n\r")), max_size=60
    ),
    st.integers(0, 60),
    st.sampled_from(["canonical", "minimal"]),
)
def test_the_skeleton_does_not_depend_on_where_a_document_is_cut(
    text: str, at: int, marks: str
) -> None:
    """A part ends right after a whitespace character (:mod:`authormask.text.parts`): the
    reading state carried across the cut (the open quotation, the last character, the line
    breaks since the last token) makes the units those of the whole."""
    cuts = [i + 1 for i, ch in enumerate(text) if ch.isspace()]
    assume(cuts)
    cut = cuts[at % len(cuts)]
    prep = CanonicalPreparer(TOY, function_words=frozenset({"the", "a"}), marks=marks)
    try:
        whole = list(prep.units([text]))
    except InputError:
        assume(False)
        raise
    assert list(prep.units([text[:cut], text[cut:]])) == whole
    out = "".join(render_canonical(u, u.content_words, u.function_words) for u in whole)
    assert "\n" not in out and "  " not in out
