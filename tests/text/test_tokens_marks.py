"""Combining marks belong to the word they are written on (found by the robustness suite: they
were punctuation tokens, released unchanged in text mode and splitting words apart)."""

from __future__ import annotations

import sys
import unicodedata

import authormask as am
from authormask.text.tokens import tokenize


def test_every_combining_mark_stays_inside_its_word() -> None:
    marks = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c))[0] == "M"]
    assert len(marks) > 2000
    for mark in marks:
        tokens = tokenize(f"a{mark}b, x{mark}")
        assert [t.text for t in tokens] == [f"a{mark}b", ",", f"x{mark}"], hex(ord(mark))


def test_decomposed_accents_and_indic_vowel_signs() -> None:
    text = "नमस्ते दुनिया, the cafe\u0301's menu"
    assert [t.text for t in tokenize(text)] == [
        "नमस्ते",
        "दुनिया",
        ",",
        "the",
        "cafe\u0301",
        "'s",
        "menu",
    ]


def test_text_mode_releases_no_mark_of_the_input(cache_dir) -> None:
    mech = am.create_mechanism("emp-text", epsilon=5.0, vocab_size=20_000, cache_dir=cache_dir)
    text = "नमस्ते दुनिया, the cafe\u0301 is open"
    out = am.release([text], mech, random_state=0).documents[0].text
    released_marks = [ch for ch in out if unicodedata.category(ch)[0] == "M"]
    assert released_marks == []  # every word with marks was mapped and perturbed whole
    assert out.count(" ") == text.count(" ") and "," in out


def test_precomputed_marks_equal_the_scan() -> None:
    """The start-up shortcut (:mod:`authormask.text._marks`) is the scan's result for this
    Python's Unicode version, and the tokenizer uses it only for that version."""
    import sys
    import unicodedata

    from authormask.text import _marks

    tokenize_module = sys.modules["authormask.text.tokens"]
    if _marks.UNIDATA_VERSION == unicodedata.unidata_version:
        assert _marks.MARKS == tokenize_module._combining_marks()
    assert tokenize_module._MARKS == tokenize_module._combining_marks()
