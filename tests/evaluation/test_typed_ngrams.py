"""Typed character n-grams (Sapkota et al. 2015): the array implementation against the rules
written one n-gram at a time, on real news text and on random strings of awkward characters."""

from __future__ import annotations

import random
import unicodedata

import pytest

from authormask.datasets import load_dataset
from authormask.evaluation.measures.attackers.typed import TYPES, typed_ngrams


def _punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith(("P", "S"))


def _typed_ngrams_reference(text: str, n: int = 3) -> list[str]:
    """The typing rules of the module notes, one n-gram at a time."""
    s = " ".join(text.split())
    out: list[str] = []
    for i in range(len(s) - n + 1):
        g = s[i : i + n]
        first = next((k for k, ch in enumerate(g) if _punct(ch)), None)
        if first is not None:
            kind = "beg-punct" if first == 0 else "end-punct" if first == n - 1 else "mid-punct"
        elif g[0] == " ":
            kind = "space-prefix"
        elif g[-1] == " ":
            kind = "space-suffix"
        elif " " in g:
            kind = "multi-word"
        else:
            starts = i == 0 or s[i - 1] == " " or _punct(s[i - 1])
            ends = i + n == len(s) or s[i + n] == " " or _punct(s[i + n])
            if starts and ends:
                kind = "whole-word"
            elif starts:
                kind = "prefix"
            elif ends:
                kind = "suffix"
            else:
                kind = "mid-word"
        out.append(f"{kind}:{g}")
    return out


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_typed_ngrams_follow_the_rules_one_by_one(n: int) -> None:
    corpus = load_dataset("bbc-news")
    texts = [d.text for d in corpus.documents[:40]]
    rng = random.Random(n)
    alphabet = "ab c.,'!\u00e9  \n\t-\u20ac\U0001f600\u03a9x1\u00a0"
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(800)]
    for text in texts:
        assert typed_ngrams(text, n) == _typed_ngrams_reference(text, n), text


def test_every_type_occurs_and_punctuation_wins() -> None:
    grams = typed_ngrams("an (old) cat sat, said the thirteenth owl.", 3)
    assert {g.split(":", 1)[0] for g in grams} == set(TYPES)
    assert "beg-punct:(ol" in grams and "end-punct:at," in grams and "mid-punct:l. " not in grams


def test_a_text_read_again_is_not_cut_into_ngrams_again(monkeypatch) -> None:
    """The typed attackers of a cell, and the plain ones at every epsilon, read the same texts:
    their n-grams are counted once, and the counts are those of the text."""
    from collections import Counter

    import authormask.evaluation.measures.attackers.typed as typed

    cut: list[str] = []
    real = typed.typed_ngrams

    def counting(text: str, n: int) -> list[str]:
        cut.append(text)
        return real(text, n)

    monkeypatch.setattr(typed, "typed_ngrams", counting)
    text = "The ferry left Bergen at noon; the gulls followed it, crying."
    first = typed.typed_counts(text, 3)
    assert first == Counter(real(text, 3))
    assert typed.typed_counts(text, 3) is first and cut == [text]
    assert typed.typed_counts(text, 4) == Counter(real(text, 4)) and cut == [text, text]
