"""Issue 30 B: every release draws its own noise, from the secret seed *and* its public
parameters, so two releases of one text with one seed at two epsilons compose as two
independent releases do (the epsilons add), and no more."""

from __future__ import annotations

import math

import pytest

from authormask.accounting.statement import COMPOSITION
from authormask.core import create_mechanism, release
from authormask.evaluation.protocols._common import point_seeds
from authormask.randomness import document_generator, release_root


def _content_repeat(text: str, first, second, seeds: tuple[int, int]) -> tuple[int, int]:
    """(content positions the first release changed, of which the second release gave the
    same wrong word)."""
    original = first.inner.prepare(text).content_words  # the words before any noise
    a = release([text], first, random_state=seeds[0]).documents[0].words
    b = release([text], second, random_state=seeds[1]).documents[0].words
    assert len(a) == len(b) == len(original)
    changed = [i for i, (w, o) in enumerate(zip(a, original, strict=True)) if w != o]
    same = sum(1 for i in changed if b[i] == a[i])
    return len(changed), same


@pytest.fixture(scope="module")
def long_text(aaac_texts: list[str]) -> str:
    return " ".join(aaac_texts[:12])


def test_one_seed_two_epsilons_repeat_no_more_than_independent_draws(long_text, glove_20k):
    # found: with one seed the Gamma radius and the direction were the same at both epsilons
    # (only scaled by 1/epsilon), so 65% of the words changed at 7 came out as the same wrong
    # word at 8; independent draws repeat far less
    params = {
        "embeddings": glove_20k,
        "vocab_size": None,
        "decoder": "nearest",
        "entities": "keep",  # every content position is a word of the text
    }
    seven = create_mechanism("emp-text", epsilon=7.0, **params)
    eight = create_mechanism("emp-text", epsilon=8.0, **params)
    n_same, r_same = _content_repeat(long_text, seven, eight, (11, 11))
    n_ind, r_ind = _content_repeat(long_text, seven, eight, (11, 12))
    assert n_same == n_ind  # the first release is the same one
    assert n_same > 500
    p_same, p_ind = r_same / n_same, r_ind / n_ind
    # both are proportions over the same n; two-proportion z bound at about p = 1e-6
    pooled = (r_same + r_ind) / (2 * n_same)
    sd = math.sqrt(2 * pooled * (1 - pooled) / n_same)
    assert abs(p_same - p_ind) < 5 * sd, (p_same, p_ind)


def _shared_repeat(mech, texts: tuple[str, str], seeds: tuple[int, int]) -> tuple[int, int]:
    """(content positions of the first text that its release changed, of which the release
    of the second text, which begins with the first, gave the same wrong word)."""
    original = mech.inner.prepare(texts[0]).content_words
    a = release([texts[0]], mech, random_state=seeds[0]).documents[0].words
    b = release([texts[1]], mech, random_state=seeds[1]).documents[0].words
    assert len(a) == len(original) < len(b)
    changed = [i for i, (w, o) in enumerate(zip(a, original, strict=True)) if w != o]
    return len(changed), sum(1 for i in changed if b[i] == a[i])


def test_one_seed_two_texts_repeat_no_more_than_independent_draws(long_text, glove_20k):
    # found (independent audit, F5): a document's noise was keyed by the seed, the public
    # parameters and its position only, so two different texts released with one seed shared
    # their noise word for word: every word of the common beginning came out the same, and a
    # text known to an attacker gave away the noise of the other
    mech = create_mechanism(
        "emp-text",
        epsilon=7.0,
        embeddings=glove_20k,
        vocab_size=None,
        decoder="nearest",
        entities="keep",
    )
    texts = (long_text, long_text + " The harbour was quiet that morning.")
    n_same, r_same = _shared_repeat(mech, texts, (11, 11))
    n_ind, r_ind = _shared_repeat(mech, texts, (11, 12))
    assert n_same == n_ind > 500
    pooled = (r_same + r_ind) / (2 * n_same)
    sd = math.sqrt(2 * pooled * (1 - pooled) / n_same)
    assert abs(r_same - r_ind) / n_same < 5 * sd, (r_same / n_same, r_ind / n_ind)
    # and a copy that differs only in spacing and invisible characters is the same text
    copy = long_text.replace(" ", "  ", 3) + "\u200b\n"
    a = release([long_text], mech, random_state=11).documents[0].words
    b = release([copy], mech, random_state=11).documents[0].words
    assert a == b


def test_same_seed_same_parameters_is_still_reproducible(glove_20k):
    mech = create_mechanism("emp-text", epsilon=9.0, embeddings=glove_20k, vocab_size=None)
    text = "The committee met on a quiet morning to discuss the harbour and its ships."
    a = release([text], mech, random_state=5).documents[0].text
    b = release([text], mech, random_state=5).documents[0].text
    assert a == b


def test_release_root_depends_on_every_public_parameter(glove_20k):
    # the root is keyed by the whole public statement: epsilon, decoder, parameters
    made = [
        create_mechanism("emp-text", epsilon=7.0, embeddings=glove_20k, vocab_size=None),
        create_mechanism("emp-text", epsilon=7.0000001, embeddings=glove_20k, vocab_size=None),
        create_mechanism(
            "emp-text", epsilon=7.0, embeddings=glove_20k, vocab_size=None, decoder="posterior"
        ),
        create_mechanism(
            "emp-text", epsilon=7.0, embeddings=glove_20k, vocab_size=None, oov="keep"
        ),
    ]
    firsts = {
        int(
            document_generator(release_root(3, m.statement(seeded=True).to_json()), 0).integers(
                2**62
            )
        )
        for m in made
    }
    assert len(firsts) == len(made)


def test_protocol_seeds_differ_for_epsilons_closer_than_a_thousandth():
    # found: the key round(1000 * epsilon) gave 7.0001 and 7.0004 the same noise
    a = point_seeds(0, "emp-text", 7.0001, 0, roles=2)
    b = point_seeds(0, "emp-text", 7.0004, 0, roles=2)
    assert set(a).isdisjoint(b)


def test_every_statement_says_that_releases_compose(glove_20k):
    mech = create_mechanism("emp-text", epsilon=7.0, embeddings=glove_20k, vocab_size=None)
    stmt = mech.statement(seeded=False)
    assert stmt.composition == COMPOSITION
    assert "epsilons add" in stmt.describe()
    assert stmt.to_dict()["composition"] == COMPOSITION
