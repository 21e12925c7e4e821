"""Invisible and control characters removed before tokenising (authormask.text.clean)."""

from __future__ import annotations

import itertools
import unicodedata
from pathlib import Path

import pytest

from authormask.core.sources import _decoded_parts, decode_bytes
from authormask.datasets.loaders import read_text_file
from authormask.datasets.pan import _read_text
from authormask.embeddings import Embeddings
from authormask.text import TextPreparer, tokenize
from authormask.text import _invisible as precomputed
from authormask.text import clean as clean_module
from authormask.text import parts as parts_module
from authormask.text.canonical import CanonicalPreparer, canonical_tokens
from authormask.text.clean import (
    OTHER_IGNORABLE,
    OTHER_INVISIBLE,
    SPACE_LIKE,
    clean_text,
    join_line_breaks,
)
from authormask.text.parts import PART_CHARS, PartSplitter, split_parts
from authormask.text.sentences import segment_text

#: one of each kind the module removes or rewrites, inside and between words
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\u180e"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
C0 = "".join(chr(c) for c in range(0x20) if chr(c) not in "\t\n\r\v\f\x1c\x1d\x1e\x1f")
C1 = "".join(chr(c) for c in range(0x7F, 0xA0) if c != 0x85)
DIRTY = (
    f"The com\u00admittee\u200b met{ZERO_WIDTH}on Tues\u200dday.\ufeff It\u00a0was "
    f"{BIDI[:5]}late{BIDI[5:]}.{C0}{C1} Budget\ufe0f cuts\U000e0041\U000f0000 follow."
)


def _leftover(text: str) -> set[str]:
    """Characters the module promises never to leave (module notes, steps 1-4): no format,
    private-use, surrogate or unassigned code point, no control character but the line break,
    no space character but the plain space (no tab), none of the other invisible characters,
    and no combining mark that is not written on a letter or a digit."""
    other = {
        cp for first, last in (*OTHER_IGNORABLE, *OTHER_INVISIBLE) for cp in range(first, last + 1)
    }
    out = set()
    for ch in set(text):
        cat = unicodedata.category(ch)
        if (
            cat in ("Cf", "Co", "Cs", "Cn")
            or (cat == "Cc" and ch != "\n")
            or (cat[0] == "Z" and ch != " ")
            or ord(ch) in other
            or ch in SPACE_LIKE
        ):
            out.add(ch)
    for i, ch in enumerate(text):
        if unicodedata.category(ch)[0] == "M":
            j = i - 1
            while j >= 0 and unicodedata.category(text[j])[0] == "M":
                j -= 1
            if j < 0 or not text[j].isalnum():
                out.add(ch)
    return out


def test_precomputed_table_equals_the_scan() -> None:
    if precomputed.UNIDATA_VERSION != unicodedata.unidata_version:
        pytest.skip("another Unicode version: the scan is used")
    assert precomputed.REMOVED == clean_module._removed_code_points()


def test_the_ascii_test_of_a_change_is_the_whole_class_on_ascii() -> None:
    # an ASCII text is tested by a small class (the whole one is compiled on first use by a
    # text that is not ASCII): the two agree on every ASCII character, alone and in a text
    whole = clean_module._any()
    for cp in range(128):
        char = chr(cp)
        assert (clean_module._ASCII_ANY.search(char) is None) == (whole.search(char) is None)
        assert clean_module._may_change(f"plain {char} text") == (whole.search(char) is not None)
    assert not clean_module._may_change("a plain line\n")
    assert clean_module._may_change("caf\u00e9\u00a0ok") and clean_module._may_change("x\ty")


def test_nothing_invisible_is_left_anywhere_in_the_code_space() -> None:
    """Every code point, each after a letter: the result holds none of them, and cleaning is a
    fixed point (so doing it twice, in two layers, changes nothing)."""
    text = "".join("a" + chr(cp) for cp in range(0x110000))
    out = clean_text(text)
    assert _leftover(out) == set()
    assert clean_text(out) == out
    assert out == unicodedata.normalize("NFKC", out)


def test_the_dirty_text_is_cleaned_and_words_are_not_cut() -> None:
    out = clean_text(DIRTY)
    # zero-width characters have no width: none becomes a space ("meton")
    assert out == "The committee meton Tuesday. It was late. Budget cuts follow."
    assert _leftover(out) == set()
    words = [t.text for t in tokenize(out) if t.is_word]
    assert "committee" in words and "Tuesday" in words and "com" not in words


def test_line_breaks_and_spaces_are_written_plainly() -> None:
    assert clean_text("a\r\nb\rc\vd\fe\x85f\u2028g\u2029h") == "a\nb\nc\nd\ne\nf\ng\n\nh"
    # a tab is a space character like the others: one plain space (it would otherwise pass into
    # a release that copies the skeleton, where tabs against spaces are a writer's habit)
    assert clean_text("a\u00a0b\u2009c\u3000d\u1680e\x1ff\tg") == "a b c d e f g"
    # a removed character between \r and \n leaves them one line break (independent audit)
    assert clean_text("a\r\u200b\nb") == "a\nb"


def test_a_soft_hyphen_inside_a_word_leaves_one_word_in_every_preparation(
    glove_20k: Embeddings,
) -> None:
    text = "The com\u00admittee met\u200b."
    doc = TextPreparer(glove_20k, oov="map").prepare(text)
    assert "committee" in doc.content_words and doc.text == "The committee met."
    toks, _ = canonical_tokens(text)
    assert [t for _, t in toks] == ["the", "committee", "met", "."]
    assert segment_text(text, max_length=50).segments == (("the", "committee", "met", "."),)


def test_empty_after_cleaning_is_an_empty_document(glove_20k: Embeddings) -> None:
    from authormask.exceptions import InputError

    with pytest.raises(InputError):
        TextPreparer(glove_20k, oov="map").prepare("\u200b\ufeff\u202e\x07")


def test_a_part_never_ends_between_cr_and_lf() -> None:
    """Parts are cleaned one by one: a cut between the two halves of a CRLF would make one
    line break two (a blank line)."""
    text = "x" * PART_CHARS + "\r\nnext line\r\nand more"
    parts = list(split_parts(text))
    assert len(parts) == 2 and parts[0].endswith("\r\n")
    assert "".join(clean_text(p) for p in parts) == clean_text(text)
    # the same however the text arrives, even with the \r last in a piece
    splitter = PartSplitter()
    pieces = [*splitter.feed(text[: PART_CHARS + 1]), *splitter.feed(text[PART_CHARS + 1 :])]
    assert [*pieces, *splitter.close()] == parts


def test_canonical_reading_of_a_crlf_cut_in_two_is_one_line_break(glove_20k: Embeddings) -> None:
    prep = CanonicalPreparer(glove_20k, function_words=frozenset({"me"}))
    text = "\"Tell me.\r\nJames' hat\u200b,\r\n\r\nHe\u00adllo."
    whole = list(prep.units([text]))
    cuts = [i for i in range(1, len(text)) if text[i - 1].isspace()]  # parts end after one
    assert len(cuts) == 8 and text[cuts[1] - 1 : cuts[1] + 1] == "\r\n"
    for cut in cuts:
        assert list(prep.units([text[:cut], text[cut:]])) == whole, cut


def test_blank_symbols_and_unattached_marks_are_not_left() -> None:
    """Found by an independent audit: the braille blank (U+2800, a symbol that shows as a
    space), the object replacement character (U+FFFC), combining marks written on a
    punctuation mark or a space, and tabs passed cleaning, so a release that copies the
    skeleton carried them: a place for a signature or a hidden message."""
    text = (
        "The\u2800committee met.\u0301 It\tvoted \u0308\ufffcyes,\u20dd\u0301 then left\U0001d159."
    )
    out = clean_text(text)
    assert out == "The committee met. It voted yes, then left."
    assert _leftover(out) == set()
    # a mark on a letter or a digit is part of its word and stays (NFKC composes it)
    assert clean_text("cafe\u0301 1\u20e3 \u0928\u092e\u0938\u094d\u0924\u0947") == (
        "caf\u00e9 1\u20e3 \u0928\u092e\u0938\u094d\u0924\u0947"
    )
    # a mark after a removed invisible character is on the letter before it
    assert clean_text("e\u200b\u0301") == "\u00e9"
    # a spacing accent is, in NFKC, a space and a mark: the space is what is left
    assert clean_text("a\u00a8b") == "a b"


def test_no_mark_is_left_unattached_anywhere_in_the_code_space() -> None:
    """Every code point after a space and after a full stop, and at the start: no combining
    mark is left on anything but a letter or a digit, and cleaning is a fixed point."""
    for before in (" ", ".", "", "\u2800", "_"):
        text = "".join(before + chr(cp) + "x" for cp in range(0x110000))
        out = clean_text(text)
        assert _leftover(out) == set(), repr(before)
        assert clean_text(out) == out


def test_cleaning_part_by_part_is_cleaning_whole_with_marks_and_tabs() -> None:
    """Parts end after whitespace, so a mark at the start of a part followed whitespace in the
    whole text: it is removed either way, and a tab is a space either way."""
    unit = "Tab\there, \u0301mark. Cafe\u0301 ok.\u2800\ufffc \u0308x "
    text = unit * (PART_CHARS // len(unit) + 3)
    parts = list(split_parts(text))
    assert len(parts) >= 2
    assert "".join(clean_text(p) for p in parts) == clean_text(text)
    for cut in range(1, len(unit)):  # every cut after a whitespace character
        if unit[cut - 1].isspace():
            pieces = (unit[:cut], unit[cut:])
            assert "".join(clean_text(p) for p in pieces) == clean_text(unit), cut


def test_a_cr_and_lf_with_only_removed_characters_between_are_one_line_break(
    tmp_path: Path,
) -> None:
    """Found by an independent audit: ``"a\\r\\u200b\\nb"`` was cleaned to ``"a\\n\\nb"``
    (the \\r and the \\n each a line break, once the zero-width space between them was
    removed), where ``"a\\r\\nb"`` gives one: an invisible character made a blank line, so a
    paragraph, that a copy of the skeleton and the paragraph counts carried."""
    for gap in ("\u200b", "\u00ad", "\ufeff\u2060", "\x07", "\U000e0041", "\u200b\u0301\u00ad"):
        assert clean_text(f"a\r{gap}\nb") == "a\nb", repr(gap)
        assert clean_text(f"a\r{gap}b") == "a\nb", repr(gap)  # a \r alone: one line break
    assert clean_text("a\rb") == "a\nb" and clean_text("a\r\nb") == "a\nb"
    # a mark between them was after a line break: removed, never put on the letter before
    assert clean_text("e\r\u0301\nb") == "e\nb"
    # what cleaning keeps still separates them: two line breaks
    assert clean_text("a\r\r\nb") == "a\n\nb"
    assert clean_text("a\r \nb") == "a\n \nb"
    assert clean_text("a\r\vb") == clean_text("a\r\u200b\vb") == "a\n\nb"
    assert clean_text("a\r\u2029b") == "a\n\n\nb"
    # the same through every way in: a file source (read in blocks of any size), the corpus
    # readers (which write line endings as \\n first), and part by part
    text = "One.\r\u200b\nTwo.\r\u00ad\nThree.\r\u200b\u0301\n\r\nFour."
    expected = "One.\nTwo.\nThree.\n\nFour."
    assert clean_text(text) == expected
    raw = text.encode("utf-8")
    assert clean_text(decode_bytes(raw, "t")) == expected
    for size in (1, 2, 3, 5):
        blocks = iter([raw[i : i + size] for i in range(0, len(raw), size)])
        assert "".join(clean_text(p) for p in _decoded_parts(blocks, "t")) == expected
    path = tmp_path / "doc.txt"
    path.write_bytes(raw)
    assert clean_text(read_text_file(path)) == expected
    assert clean_text(_read_text(path, "utf-8")) == expected
    assert join_line_breaks(text) == "One.\n\u200bTwo.\n\u00adThree.\n\u200b\u0301\nFour."


def test_cleaning_part_by_part_is_cleaning_whole_around_a_carriage_return(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every text of up to five characters over line breaks, removed characters, a mark and a
    letter, cut into parts after every whitespace character the rule allows (a part length of
    one): the parts cleaned one by one give the text cleaned whole; and the corpus readers'
    line endings clean to what the text does."""
    monkeypatch.setattr(parts_module, "PART_CHARS", 1)
    alphabet = "\r\n\u200b\u00ad\u0301 e\u2029"
    for n in range(1, 6):
        for chars in itertools.product(alphabet, repeat=n):
            text = "a" + "".join(chars)
            whole = clean_text(text)
            assert "".join(clean_text(p) for p in split_parts(text)) == whole, repr(text)
            splitter = PartSplitter()  # the same when the text arrives a character at a time
            pieces = [q for ch in text for q in splitter.feed(ch)]
            assert "".join(clean_text(p) for p in [*pieces, *splitter.close()]) == whole
            assert clean_text(join_line_breaks(text)) == whole, repr(text)


def test_the_rarely_needed_expressions_are_compiled_on_first_use() -> None:
    """Importing the text modules compiles none of the expressions only some texts need (a
    ``\\r``, a removed character, a part over 64K characters; issue 50: 15 ms of every start),
    and they work when needed."""
    import subprocess
    import sys

    probe = (
        "from authormask.text import clean, parts, tokens\n"
        "sizes = lambda *fs: [f.cache_info().currsize for f in fs]\n"
        "before = sizes(clean._cr_lf, clean._removed_run, parts._ws, tokens._compiled)\n"
        "assert clean.clean_text('a\\r\\u200b\\nb\\u200bc') == 'a\\nbc'\n"
        "print(before, *sizes(clean._cr_lf, clean._removed_run))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split("]")[0] == "[0, 0, 0, 0"
    assert out.stdout.split("]")[1].split() == ["1", "1"]
