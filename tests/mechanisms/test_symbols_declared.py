"""What an in-place text mechanism releases unchanged beyond punctuation is declared (the
independent audit of issue 30: flags, skin-tone modifiers and currency signs passed emp-text and
its peers at any epsilon while the statement named only punctuation and whitespace)."""

from __future__ import annotations

import pytest

import authormask as am
from authormask.audit.case_spec import core_mechanism
from authormask.embeddings import Embeddings

TEXT = "Paid \u20b9 500 \U0001f1f3\U0001f1ec for the report \U0001f44d\U0001f3ff \u00a9 2024."


@pytest.mark.parametrize("name", ["emp-text", "mahalanobis"])
def test_symbols_and_emoji_outside_words_are_declared_as_released(
    glove_20k: Embeddings, name: str
) -> None:
    mech = core_mechanism(name, epsilon=1.0, embeddings=glove_20k, vocab_size=None)
    out = am.release([TEXT], mech, random_state=0)
    kept = [c for c in ("\u20b9", "\U0001f1f3", "\U0001f3ff", "\u00a9") if c in out.texts[0]]
    assert kept  # what the skeleton keeps ...
    unchanged = out.statement.released_unchanged
    assert "emoji" in unchanged and "symbols" in unchanged  # ... the statement names
