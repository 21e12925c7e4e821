"""Issue 30, part E: the function words a statement names are exactly the ones the code uses.

Before, emp-doc's statement named the stopword list (160 words) while 11 of the 22 negation
auxiliaries it adds (ai, ca, could, dare, might, must, need, ought, sha, wo, would) were function
words that no line named; emp-write said "the auxiliaries before n't" of words that are function
words wherever they stand. Each statement now lists the set its preparer classifies with.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest

from authormask.core import create_mechanism, release
from authormask.embeddings import Embeddings
from authormask.text.prepare import NEGATION_AUXILIARIES
from authormask.text.stopwords import default_stopwords


def _unwrapped(mech: Any) -> Any:
    """The mechanism itself, inside any step that hands it its texts."""
    while hasattr(mech, "inner"):
        mech = mech.inner
    return mech


def _listed(line: str) -> frozenset[str]:
    """The words a statement line lists (after its last ': '), checked against the count and
    the sha256 it gives for them."""
    head, words_text = line.rsplit(": ", 1)
    words = words_text.split(" ")
    named = re.search(r"(\d+) words, sha256 ([0-9a-f]{16})$", head)
    assert named is not None, line
    assert words == sorted(words) and len(set(words)) == len(words)
    assert int(named.group(1)) == len(words)
    assert hashlib.sha256("\n".join(words).encode()).hexdigest()[:16] == named.group(2)
    return frozenset(words)


def _statement(mech: Any) -> Any:
    return release(["The cat didn't sleep."], mech, random_state=1).statement


@pytest.mark.parametrize("stopwords", ["english", {"the", "of", "n't", "could"}])
@pytest.mark.parametrize("name", ["emp-doc", "random-sub"])
def test_the_function_word_class_stated_is_the_class_used(
    glove_20k: Embeddings, name: str, stopwords: Any
) -> None:
    params = {"epsilon": 8} if name == "emp-doc" else {"rate": 0.5}
    mech = create_mechanism(name, embeddings=glove_20k, stopwords=stopwords, **params)
    inner = _unwrapped(mech)
    stated = _listed(_statement(mech).policies["function words"])
    assert stated == inner.preparer.function_words
    assert stated == frozenset(inner.function_embeddings.words)  # the class decoded into
    if stopwords == "english":
        assert NEGATION_AUXILIARIES & frozenset(glove_20k.words) <= stated
        assert {"could", "would", "might", "must", "need", "ca", "wo"} <= stated
        assert not default_stopwords() >= {"could", "would", "might", "must", "need"}


def test_emp_write_states_every_word_it_never_takes_for_content(glove_20k: Embeddings) -> None:
    mech = create_mechanism("emp-write", epsilon=8, embeddings=glove_20k)
    stated = _listed(_statement(mech).policies["function words"])
    assert stated == _unwrapped(mech).preparer.function_words
    assert {"could", "would", "ca", "wo", "n't", "'s"} <= stated


@pytest.mark.parametrize("name", ["emp-text", "emp-bag", "mahalanobis", "tem", "santext"])
@pytest.mark.parametrize("stopwords", ["english", "none", {"the", "a"}])
def test_the_stopwords_and_auxiliaries_stated_are_those_used(
    glove_20k: Embeddings, name: str, stopwords: Any
) -> None:
    extra = {"length": 2} if name == "emp-bag" else {}
    mech = create_mechanism(name, epsilon=5, embeddings=glove_20k, stopwords=stopwords, **extra)
    inner = _unwrapped(mech)
    policies = _statement(mech).policies
    used = inner.preparer.stopwords
    if used:
        assert _listed(policies["stopwords"]) == used
    else:
        assert policies["stopwords"].startswith("none")
    contractions = policies["contractions"]
    if "n't" in used:  # the word before n't is a stopword when it is one of the auxiliaries
        stated = frozenset(contractions.split("auxiliaries ", 1)[1].split(";")[0].split(" "))
        assert stated == NEGATION_AUXILIARIES
        doc = inner.preparer.prepare("They wouldn't and couldn't go.")
        assert doc.roles[1] == doc.roles[4] == "stopword"
    else:
        assert "auxiliaries" not in contractions
        doc = inner.preparer.prepare("They wouldn't go.")
        assert doc.roles[1] == "content"
