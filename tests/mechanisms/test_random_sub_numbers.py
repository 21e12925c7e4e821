"""Issue 47, item 5: the noise-off form of ``random-sub`` (``rate=0``) keeps numbers as numbers.
A number such as ``12.4%`` is one canonical word without a vector, which the unknown-word policy
used to replace by a drawn word (``Sales rose male in 2023.``); with surrogates, whose numbers are
random ones of the same form and so rarely have a vector, both numbers went (``Sales rose 5 in
every.``)."""

from __future__ import annotations

import re

import numpy as np

from authormask.audit.case_spec import core_mechanism
from authormask.core import release
from authormask.embeddings import Embeddings
from authormask.text.canonical import is_number
from authormask.text.entities import Surrogates, load_recogniser

TEXT = "Sales rose 12.4% in 2023."


def test_noise_off_keeps_a_number_without_a_vector(glove_20k: Embeddings) -> None:
    assert "12.4%" not in glove_20k
    mech = core_mechanism("random-sub", rate=0.0, embeddings=glove_20k)  # entities: keep
    for seed in range(3):
        assert release([TEXT], mech, random_state=seed).texts == [TEXT]
    other = "It cost 1,000 dollars at 10:30, up .5 and 3189 more."
    assert release([other], mech, random_state=0).texts == [other]


def test_with_surrogates_numbers_are_random_numbers_of_the_same_form(
    glove_20k: Embeddings,
) -> None:
    """The entity step writes each number as a random one of its form; the noise-off release
    keeps them (they have no vector: ``75.9%``, ``3189``)."""
    mech = core_mechanism("random-sub", rate=0.0, embeddings=glove_20k)
    found = load_recogniser().find(TEXT)
    assert [e.kind for e in found] == ["number", "number"]
    for seed in range(5):
        surrogate = Surrogates(np.random.default_rng(seed)).text(TEXT, found)
        out = release([surrogate], mech, random_state=seed).texts[0]
        assert out == surrogate
        assert re.fullmatch(r"Sales rose [1-9]\d\.\d% in [1-9]\d{3}\.", out), out


def test_a_number_is_replaced_or_kept_like_any_word(glove_20k: Embeddings) -> None:
    """At rate 0.5 a number is kept as written or replaced by a vocabulary word; an unknown word
    that is no number is still fed as a drawn word (never released as written)."""
    mech = core_mechanism("random-sub", rate=0.5, embeddings=glove_20k)
    text = " ".join(["12.4%"] * 200 + ["zxqvbnm"] * 200)
    words = release([text], mech, random_state=3).documents[0].words
    numbers, unknown = words[:200], words[200:]
    kept = sum(w == "12.4%" for w in numbers)
    assert 60 < kept < 140
    assert all(w == "12.4%" or w in glove_20k for w in numbers)
    assert "zxqvbnm" not in unknown and all(w in glove_20k for w in unknown)


def test_the_statement_says_numbers_are_kept(glove_20k: Embeddings) -> None:
    mech = core_mechanism("random-sub", rate=0.0, embeddings=glove_20k)
    policy = mech.statement(seeded=True).policies["unknown words"]
    assert "except a number" in policy and "released as written" in policy


def test_what_a_number_is() -> None:
    assert all(is_number(t) for t in ("12.4%", "1,000", "10:30", ".5", "2023", "7"))
    assert not any(is_number(t) for t in ("1990s", "19th", "v1.2", "12.", "%", "1,,0", "x"))


def test_cli_noise_off_keeps_numbers(invoke, cache_dir, tmp_path) -> None:
    """The issue's command: ``random-sub --rate 0 --entities keep``."""
    doc = tmp_path / "sales.txt"
    doc.write_text(TEXT + "\n", encoding="utf-8")
    code, out, err = invoke(
        [
            "obfuscate",
            str(doc),
            "-m",
            "random-sub",
            "--rate",
            "0",
            "--entities",
            "keep",
            "--seed",
            "1",
            "--vocab-size",
            "20000",
            "--cache-dir",
            str(cache_dir),
            "-o",
            "-",
            "-q",
        ]
    )
    assert code == 0, err
    assert out.strip() == TEXT
