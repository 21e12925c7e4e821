"""Issue 30, part E: no invisible or control character of the input reaches any mechanism's
output (a zero-width watermark, a soft hyphen inside a word, a byte-order mark, bidi overrides,
C0 and C1 controls), with the noise on and off, and every statement says so in one line."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

from authormask.core import create_mechanism, mechanism_names, release
from authormask.core.registry import create_noise_off
from authormask.embeddings import Embeddings
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY

#: one bit after each word: a zero-width space for 0, a zero-width joiner for 1
WATERMARK = " ".join(
    w + ("\u200d" if b else "\u200b")
    for w, b in zip(
        "The committee approved the budget on Tuesday".split(), (1, 0, 1, 1, 0, 1, 0), strict=True
    )
)
TEXT = (
    f"\ufeff{WATERMARK} afternoon. Critics said the com\u00admittee's plan would raise "
    "taxes.\ufeff\n\n"
    "Supporters \u202eargued\u202c that \u2066schools\u2069 and \u200fhospitals\u200e needed "
    "the money.\x00\x07\x1b\x7f\x80\x9b\x9f Everyone\x08 agreed\u2060 at\u180e last.\n"
)
#: what must not come out (the text's invisible and control characters)
INVISIBLE = frozenset(ch for ch in TEXT if unicodedata.category(ch) in ("Cf", "Cc")) - {"\n"}


def _mechanisms(emb: Embeddings, erae: Any, aedp: Any) -> list[tuple[str, Any]]:
    """Every registered text mechanism, with its noise on and (where it has one) off; a token
    mechanism's noise is all but off at a huge epsilon."""
    e = {"embeddings": emb}
    built = [
        ("emp-bag", create_mechanism("emp-bag", epsilon=5, length=5, **e)),
        ("emp-bag off", create_noise_off("emp-bag", length=5, **e)),
        ("emp-text", create_mechanism("emp-text", epsilon=5, **e)),
        ("emp-text posterior", create_mechanism("emp-text", epsilon=5, decoder="posterior", **e)),
        ("emp-text off", create_noise_off("emp-text", **e)),
        ("mahalanobis", create_mechanism("mahalanobis", epsilon=5, **e)),
        ("tem", create_mechanism("tem", epsilon=5, **e)),
        ("santext", create_mechanism("santext", epsilon=5, **e)),
        ("emp-doc", create_mechanism("emp-doc", epsilon=8, marks="canonical", **e)),
        ("emp-doc minimal", create_mechanism("emp-doc", epsilon=8, marks="minimal", **e)),
        ("emp-doc off", create_noise_off("emp-doc", marks="canonical", **e)),
        ("random-sub", create_mechanism("random-sub", rate=0.5, marks="canonical", **e)),
        ("random-sub off", create_mechanism("random-sub", rate=0.0, marks="canonical", **e)),
        ("emp-write", create_mechanism("emp-write", epsilon=8, **e)),
        ("emp-write off", create_noise_off("emp-write", **e)),
        ("emp-sentence", create_mechanism("emp-sentence", epsilon=8, **e)),
        ("emp-sentence off", create_noise_off("emp-sentence", **e)),
        ("emp-event", create_mechanism("emp-event", epsilon=8, **e)),
        ("emp-event off", create_noise_off("emp-event", **e)),
        ("syntf", create_mechanism("syntf", epsilon=5, output_size=5000, **e)),
        ("syntf off", create_mechanism("syntf", epsilon=1e4, output_size=5000, **e)),
        ("random-r", create_mechanism("random-r", output_size=1000, **e)),
        ("erae", create_mechanism("erae", epsilon=5, model=erae)),
        ("erae off", create_mechanism("erae", epsilon=1e4, model=erae)),
        ("ae-dp", create_mechanism("ae-dp", epsilon=5, model=aedp)),
    ]
    names = {label.split()[0] for label, _ in built}
    assert names == set(mechanism_names())  # every registered mechanism is here
    return built


def _unwrapped(mech: Any) -> Any:
    """The mechanism itself, inside any step that hands it its texts."""
    while hasattr(mech, "inner"):
        mech = mech.inner
    return mech


@pytest.fixture(scope="module")
def mechanisms(glove_20k: Embeddings, tiny_erae_dir: Any, tiny_aedp_dir: Any) -> list[Any]:
    return _mechanisms(glove_20k, tiny_erae_dir, tiny_aedp_dir)


def test_the_text_has_what_we_test_for() -> None:
    assert {"\u200b", "\u200d", "\u00ad", "\ufeff", "\u202e", "\u2066", "\x07", "\x9b"} <= (
        INVISIBLE
    )


def test_no_invisible_or_control_character_reaches_any_output(mechanisms: list[Any]) -> None:
    for label, mech in mechanisms:
        for seed in (1, 2):
            out = release([TEXT], mech, random_state=seed).documents[0].text
            assert not set(out) & INVISIBLE, (label, out)
            assert all(ch.isprintable() or ch in "\n\t" for ch in out), (label, out)


def test_every_statement_names_the_step_in_one_line(mechanisms: list[Any]) -> None:
    for label, mech in mechanisms:
        statement = release([TEXT], mech, random_state=1).statement
        assert statement.policies["invisible characters"] == INVISIBLE_CHARACTERS_POLICY, label


def test_a_soft_hyphen_does_not_cut_a_word_in_two(mechanisms: list[Any]) -> None:
    """With the noise off the words come back: ``com\\u00admittee`` as one word, never as
    ``com`` and ``mittee``."""
    by_label = dict(mechanisms)
    for label in ("emp-text off", "emp-doc off", "random-sub off"):
        out = release([TEXT], by_label[label], random_state=1).documents[0].text
        words = out.lower().replace(".", " ").split()
        assert "committee's" in words and "com" not in words, (label, out)
    syntf = _unwrapped(by_label["syntf off"]).prepare(TEXT)
    assert ("critics", "said", "the", "committee", "'s", "plan") == syntf.segments[1][:6]


def test_the_watermark_is_gone_with_the_noise_off(mechanisms: list[Any]) -> None:
    """The skeleton mechanisms copy what lies between words; the watermark's bits lay there."""
    by_label = dict(mechanisms)
    out = release([TEXT], by_label["emp-text off"], random_state=1).documents[0].text
    assert out.startswith("The committee approved the ")
    assert "\u200b" not in out and "\u200d" not in out
