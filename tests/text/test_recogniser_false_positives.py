"""Issue 47, item 5: the recogniser's known false positives are no names. A repeated common word
(``house house house ...``) was taken for an organisation of as many words, and emp-text then
released surnames in its place (``ikeda brokers wang lew ...``)."""

from __future__ import annotations

import random
import re

import pytest

from authormask.audit.case_spec import core_mechanism
from authormask.core import create_mechanism, release
from authormask.embeddings import Embeddings
from authormask.text.entities import NAMED_KINDS, _run_length, load_recogniser
from authormask.text.entities import _common_words as common_words

HOUSES = " ".join(["house"] * 40) + "."


@pytest.fixture(scope="module")
def recogniser():
    return load_recogniser()


def _names(recogniser, text: str) -> list[tuple[str, str]]:
    return [(e.kind, e.text) for e in recogniser.find(text) if e.kind in NAMED_KINDS]


@pytest.mark.parametrize(
    "text",
    [
        HOUSES,
        " ".join(["house"] * 10),
        "House house house house",  # the first one capitalised, at the start of a sentence
        "I went to the house. house house house house.",
        "sales sales sales sales sales",  # a word the tag counts do not know, repeated
        "Sales Sales Sales Sales",
        "love love love love love love love love",
    ],
)
def test_a_run_of_one_repeated_word_is_no_name(recogniser, text: str) -> None:
    assert _names(recogniser, text) == []


def test_a_lower_case_span_of_common_words_is_no_name(recogniser) -> None:
    """``house`` and ``of`` are common words of the packaged tag counts; a lower-case span of
    them only is not replaced, while a lower-case name the counts do not know stays one."""
    assert {"house", "dog", "of"} <= common_words()
    assert not {"negan", "castiel", "ivan", "england", "maurice"} & common_words()  # maurice: once
    assert _names(recogniser, "house house") == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Sirhan Sirhan shot him.", [("person", "Sirhan Sirhan")]),
        ("negan smiled at rick.", [("person", "negan"), ("person", "rick")]),
        (
            "John Smith met Mary in Paris.",
            [("person", "John Smith"), ("person", "Mary"), ("place", "Paris")],
        ),
        ("the bank of england said so", [("organisation", "bank of england")]),
    ],
)
def test_names_are_still_names(recogniser, text: str, names: list[tuple[str, str]]) -> None:
    assert _names(recogniser, text) == names


def test_emp_text_releases_no_surname_for_a_repeated_word(glove_20k: Embeddings) -> None:
    """At an epsilon where every word comes back as itself, the default entity step
    (surrogates) left the text as it was: no surname in place of a common word."""
    mech = create_mechanism("emp-text", epsilon=1e6, embeddings=glove_20k, vocab_size=None)
    plain = core_mechanism("emp-text", epsilon=1e6, embeddings=glove_20k, vocab_size=None)
    for seed in range(3):
        out = release([HOUSES], mech, random_state=seed).texts[0]
        assert out == release([HOUSES], plain, random_state=seed).texts[0] == HOUSES


def _run_length_by_search(text: str, start: int, end: int) -> int:
    """The run's length as two expressions compiled per word find it (the reference)."""
    words = text[start:end].split()
    if len({w.casefold() for w in words}) != 1:
        return 0
    word = re.escape(words[0])
    before = re.search(rf"(?:(?<!\w){word}[ \t]+)+$", text[max(0, start - 4096) : start], re.I)
    after = re.match(rf"(?:[ \t]+{word}(?!\w))+", text[end : end + 4096], re.I)
    return len(words) + sum(len(m.group(0).split()) for m in (before, after) if m is not None)


def test_a_run_is_counted_as_the_expressions_count_it() -> None:
    # words that re takes for the same in any case (dotless i for i, long s for s, the Kelvin
    # sign for k),
    # word characters beside them, spaces, tabs and newlines, spans anywhere
    words = [
        "is",
        "IS",
        "\u0131s",
        "i\u017f",
        "\u0130s",
        "Kit",
        "\u212ait",
        "kit",
        "x",
        "_",
        "é",
        "is_",
        "Éé",
    ]
    gaps = [" ", "  ", "\t", " \t", "\n", " \n", "\t\n", "", "-", "1"]
    rng = random.Random(50)
    checked = 0
    for _ in range(20_000):
        chosen = rng.sample(words, 3)
        spans, text = [], ""
        for _ in range(rng.randint(1, 10)):
            text += rng.choice(gaps) if text else ""
            w = rng.choice(chosen)
            spans.append((len(text), len(text) + len(w)))
            text += w
        start, end = rng.choice(spans)
        if rng.random() < 0.3:  # or any span at all
            start = rng.randrange(len(text))
            end = rng.randint(start + 1, len(text))
        run = _run_length(text, start, end)
        assert run == _run_length_by_search(text, start, end), (text, start, end)
        checked += run > 1
    assert checked > 2_000  # runs found, not only single words
    # the window: a run longer than 4,096 characters before and after the span
    text = "is " * 3000 + "Is" + " is" * 3000
    start = 3 * 3000
    assert _run_length(text, start, start + 2) == _run_length_by_search(text, start, start + 2)
