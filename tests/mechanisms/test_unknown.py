"""Unknown words under oov 'map' (issue 30 D): never released as a fixed placeholder such as the
literal ``unknown``; by default each is a content word drawn by Zipf's law, independently of the
unknown word, then perturbed (:mod:`authormask.mechanisms.unknown`)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import authormask as am
from authormask.audit.case_spec import core_mechanism
from authormask.embeddings import Embeddings
from authormask.mechanisms.unknown import UnknownWords

P_MIN = 1e-6
TEXT = "Hi Zxqvbnm, the Qwrtplk meeting is at noon; call Vbnmzx. Best, Plkjhg"
OTHER = "Hi Wqazxs, the Edcrfv meeting is at noon; call Tgbyhn. Best, Ujmikl"
# mechanisms with an unknown-word policy 'map', each with a parameter set where the noise is
# negligible (a placeholder fed in comes back as itself)
MECHANISMS = {
    "emp-text": {"epsilon": 1e6},
    "emp-doc": {"epsilon": 1e6, "function_epsilon": 1e6},
    "emp-bag": {"epsilon": 1e6, "length": 6, "oov": "map"},
    "random-sub": {"rate": 0.0},
}


def _mech(name: str, emb: Embeddings, **params):
    return core_mechanism(name, embeddings=emb, vocab_size=None, **params)


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_unknown_words_are_never_released_as_a_fixed_placeholder(
    glove_20k: Embeddings, name: str
) -> None:
    mech = _mech(name, glove_20k, **MECHANISMS[name])
    released = [am.release([TEXT], mech, random_state=s).documents[0].words for s in range(30)]
    words = [w for doc in released for w in doc]
    assert "unknown" not in words
    # each of the 4 unknown words is a draw: across 30 releases they take many values
    assert len(set(words)) > 40


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_a_fixed_oov_map_to_keeps_the_paper_era_policy(glove_20k: Embeddings, name: str) -> None:
    mech = _mech(name, glove_20k, oov_map_to="unknown", **MECHANISMS[name])
    words = am.release([TEXT], mech, random_state=0).documents[0].words
    assert words.count("unknown") == (2 if name == "emp-bag" else 4)  # the bag: first 6 words


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_two_texts_that_differ_in_unknown_words_only_give_the_same_release(
    glove_20k: Embeddings, name: str, same_noise
) -> None:
    """The drawn word does not depend on the unknown word: the two documents are at distance
    0, so with one seed their releases are identical (the statement does not change either)."""
    mech = _mech(name, glove_20k, epsilon=3.0) if name != "random-sub" else None
    mech = mech or _mech(name, glove_20k, rate=0.5)
    if name == "emp-bag":
        mech = _mech(name, glove_20k, epsilon=3.0, length=6, oov="map")
    for seed in range(5):
        a = am.release([TEXT], mech, random_state=seed)
        b = am.release([OTHER], mech, random_state=seed)
        assert a.texts == b.texts


def test_the_draw_follows_zipf_over_content_words(glove_20k: Embeddings) -> None:
    """Chi-square of 200,000 draws against ``P(rank r) ∝ 1/(r+1)`` over the non-excluded words,
    on the 50 most frequent words (the rest pooled)."""
    excluded = frozenset(glove_20k.words[:10:2])  # every other of the top 10 never drawn
    unknown = UnknownWords(glove_20k, excluded=excluded, fixed=None)
    n = 200_000
    out = unknown.replace(["x"] * n, range(n), np.random.default_rng(7))
    row = {w: i for i, w in enumerate(glove_20k.words)}
    rows = np.array([row[w] for w in out])
    assert not any(w in excluded for w in set(out))
    weights = 1.0 / np.arange(1, len(glove_20k) + 1)
    weights[[row[w] for w in excluded]] = 0.0
    p = weights / weights.sum()
    top = 50
    observed = np.bincount(np.minimum(rows, top), minlength=top + 1)
    expected = np.append(p[:top], p[top:].sum()) * n
    keep = expected > 0
    chi = stats.chisquare(observed[keep], expected[keep])
    assert chi.pvalue > P_MIN
    assert observed[~keep].sum() == 0


def test_no_unknown_word_no_draw(glove_20k: Embeddings) -> None:
    """A document without an unknown word leaves the generator untouched (its release is what
    it was before unknown words were drawn)."""
    unknown = UnknownWords(glove_20k, excluded=frozenset(), fixed=None)
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    assert unknown.replace(("cat", "sat"), (), rng) == ("cat", "sat")
    assert rng.bit_generator.state == before
    assert rng.random() == np.random.default_rng(3).random()


def test_the_statement_says_what_an_unknown_word_becomes(glove_20k: Embeddings) -> None:
    drawn = _mech("emp-text", glove_20k, epsilon=3.0).statement(seeded=False).to_dict()
    fixed = _mech("emp-text", glove_20k, epsilon=3.0, oov_map_to="unknown").statement(seeded=False)
    text = str(drawn)
    assert "drawn at random" in text and "max_u d(u, v)" in text
    assert "'unknown'" in str(fixed.to_dict())
