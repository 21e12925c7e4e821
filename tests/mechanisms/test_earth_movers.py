"""Earth Mover's privacy through the release layer: behaviour, statements, and tests written to
fail on specific wrong implementations (non-uniform direction, input-dependent snapping, the
input word copied to the output, OOV words released verbatim, sampling without replacement,
a wrong bound in the statement, an unseeded default that is secretly seeded)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats

import authormask as am
from authormask.audit.case_spec import core_mechanism
from authormask.core.sources import words_digest
from authormask.embeddings import Embeddings
from authormask.embeddings.neighbours import brute_force_nearest
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms import EarthMoversMechanism, sample_nd_laplace
from authormask.randomness import document_generator, mechanism_root
from authormask.text import TextPreparer

P_MIN = 1e-6

TEXT = (
    "The committee approved the budget on Tuesday. Critics said the plan would raise taxes, "
    "while supporters argued that schools and hospitals needed the money."
)


def _mech(name: str, emb: Embeddings, **params):
    return core_mechanism(name, embeddings=emb, vocab_size=None, **params)


def test_large_epsilon_keeps_words_small_epsilon_changes_them(glove_20k: Embeddings) -> None:
    big = am.release([TEXT], _mech("emp-text", glove_20k, epsilon=500.0), random_state=0)
    assert big.texts[0] == TEXT
    small = am.release([TEXT], _mech("emp-text", glove_20k, epsilon=1.0), random_state=0)
    doc = TextPreparer(glove_20k).prepare(TEXT)
    released = small.documents[0].words
    assert len(released) == len(doc.content_words)
    changed = sum(a != b for a, b in zip(doc.content_words, released, strict=True))
    assert changed >= len(doc.content_words) * 0.8


def test_text_mode_keeps_skeleton_exactly(glove_20k: Embeddings) -> None:
    text = "The  Budget,\n\tapproved on TUESDAY -- by Zxqvbnm's committee.\n\n"
    res = am.release([text], _mech("emp-text", glove_20k, epsilon=5.0), random_state=3)
    out = res.texts[0]
    assert out.startswith("The  ")  # stopword and double space of the input kept
    assert re.findall(r"\s+", out) == re.findall(
        r"\s+", text.replace("\t", " ")
    )  # every run kept (a tab as a space)
    assert out.count(",") == 1 and out.endswith(".\n\n") and "--" in out
    assert "  " not in out.replace("The  ", "", 1)  # no hole where a word was


def test_text_mode_perturbs_unknown_words_instead_of_releasing_or_dropping_them(
    glove_20k: Embeddings,
) -> None:
    text = "Zxqvbnm approved the Qwrtplk budget."
    for seed in range(20):
        out = am.release([text], _mech("emp-text", glove_20k, epsilon=2.0), random_state=seed)
        low = out.texts[0].lower()
        assert "zxqvbnm" not in low and "qwrtplk" not in low
        assert len(out.documents[0].words) == 4  # every content position released perturbed
    with pytest.raises(InvalidParameterError, match="leave holes"):
        _mech("emp-text", glove_20k, epsilon=2.0, oov="drop")


def test_kept_oov_words_are_declared(glove_20k: Embeddings) -> None:
    res = am.release(
        ["Zxqvbnm approved the budget"],
        _mech("emp-bag", glove_20k, epsilon=5.0, oov="keep", length=2),
        random_state=0,
    )
    assert "zxqvbnm" in res.texts[0].split()
    assert res.report.documents[0]["oov_kept_unprotected"] == 1
    assert any("NOT protected" in c for c in res.statement.caveats)


def test_bag_mode_n_is_public_and_output_sorted(glove_20k: Embeddings) -> None:
    longer = TEXT + " Extra words appear here."
    res = am.release([TEXT, longer], _mech("emp-bag", glove_20k, epsilon=10.0, length=7))
    for doc in res.documents:
        assert doc.words == tuple(sorted(doc.words)) and len(doc.words) == 7
        assert doc.bag is not None and sum(doc.bag.values()) == 7
    d = res.statement.to_dict()
    assert d["parameters"]["N"] == 7 and d["mechanism"] == "emp-bag"
    assert d["embeddings"]["words_sha256"] == glove_20k.identity.words_sha256


def test_default_n_does_not_look_at_the_data(glove_20k: Embeddings) -> None:
    long_a = " ".join(["budget committee taxes schools"] * 20)
    long_b = " ".join(["bridge cables towers rain engineers"] * 30)
    mech = _mech("emp-bag", glove_20k, epsilon=10.0)
    one = am.release([long_a], mech, random_state=1)
    two = am.release([long_a, long_b], mech, random_state=1)
    assert one.statement.parameters["N"] == am.mechanisms.DEFAULT_LENGTH
    assert one.statement == two.statement
    assert len(two.documents[1].words) == am.mechanisms.DEFAULT_LENGTH


def test_truncate_refuses_short_documents_and_sample_covers_them(glove_20k: Embeddings) -> None:
    with pytest.raises(InputError, match=r"fewer than N=40.*`length`"):
        am.release([TEXT], _mech("emp-bag", glove_20k, epsilon=10.0))
    res = am.release(
        ["budget taxes"], _mech("emp-bag", glove_20k, epsilon=10.0, fixed_length="sample")
    )
    assert len(res.documents[0].words) == 40


def test_sample_variant_draws_with_replacement(glove_20k: Embeddings) -> None:
    """At a huge epsilon the released bag is the sampled bag: its counts are multinomial draws
    from the document's words (with replacement), not a permutation of them."""
    words = ["budget", "taxes", "schools", "hospitals"]
    text = " ".join(words)
    mech = _mech("emp-bag", glove_20k, epsilon=1e4, length=4, fixed_length="sample")
    res = am.release([text] * 400, mech, random_state=5)
    counts = np.array([[d.words.count(w) for w in words] for d in res.documents])
    assert np.all(counts.sum(axis=1) == 4)
    # without replacement every bag would be exactly one of each word
    assert np.mean(np.all(counts == 1, axis=1)) < 0.2  # with replacement: 4!/4^4 = 0.094
    assert stats.chisquare(counts.sum(axis=0)).pvalue > P_MIN


def test_shortest_length_is_asked_for_by_name_and_declared(glove_20k: Embeddings) -> None:
    short = "budget taxes schools hospitals money plan"
    res = am.release([TEXT, short], _mech("emp-bag", glove_20k, epsilon=10.0, length="shortest"))
    assert res.statement.parameters["N"] == 6
    assert any("reveals" in c for c in res.statement.caveats)


def test_output_is_exactly_laplace_noise_then_nearest_word(glove_20k: Embeddings) -> None:
    """Each released word is Vec^-1(Vec(w) + r p), with the noise the document's generator
    draws: the snapping depends on the noisy vector only, never on the input word, and the
    input word is never copied."""
    mech = _mech("emp-text", glove_20k, epsilon=3.0)
    text = "budget committee taxes schools hospitals budget budget"
    res = am.release([text], mech, random_state=11)
    doc = mech.prepare(text)
    rows = [glove_20k.index_of(w) for w in doc.content_words]
    x = glove_20k.vectors[rows].astype(np.float64)

    def drawn(mechanism: object) -> tuple[str, ...]:
        # the release's root: the seed and the mechanism's public statement (issue 30 B)
        # ... and the digest of the text's words (a seeded release: issue 30's re-audit)
        gen = document_generator(mechanism_root(11, mechanism), 0, words_digest([text]))
        noisy = sample_nd_laplace(x, epsilon=3.0, random_state=gen)
        return tuple(glove_20k.words[int(i)] for i in brute_force_nearest(glove_20k.vectors, noisy))

    expected = drawn(mech)
    assert res.documents[0].words == expected
    assert res.texts[0].lower().split() == list(expected)  # what is rendered is what was drawn
    bag = _mech("emp-bag", glove_20k, epsilon=3.0, length=len(expected))
    assert am.release([text], bag, random_state=11).texts[0].split() == sorted(drawn(bag))


def test_noise_direction_is_uniform_end_to_end() -> None:
    """A word at the centre of a ring of 8 words in R^2: by rotation symmetry of the Laplace
    noise, the ring words are released equally often. A biased direction breaks this."""
    angles = np.arange(8) * np.pi / 4
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    vectors = np.vstack([[0.0, 0.0], ring]).astype(np.float32)
    words = ("centre", *(f"w{i}" for i in range(8)))
    emb = Embeddings(name="ring", source="test", words=words, vectors=vectors)
    mech = core_mechanism(
        "emp-text",
        epsilon=1.0,
        embeddings=emb,
        vocab_size=None,
        stopwords="none",
        oov_map_to="centre",
    )
    res = am.release(["centre " * 5000], mech, random_state=2)
    out = res.documents[0].words
    counts = np.array([out.count(w) for w in words[1:]])
    assert counts.sum() > 3000
    assert stats.chisquare(counts).pvalue > P_MIN


def test_unseeded_release_is_not_secretly_seeded(glove_20k: Embeddings) -> None:
    mech = _mech("emp-text", glove_20k, epsilon=2.0)
    text = " ".join(["budget committee taxes schools hospitals"] * 4)
    a, b = am.release([text], mech), am.release([text], mech)
    zero = am.release([text], mech, random_state=0)
    assert a.texts[0] != b.texts[0]
    assert a.texts[0] != zero.texts[0]
    assert a.statement.randomness == "unseeded (OS entropy)" and a.report.seed is None
    s1, s2 = am.release([text], mech, random_state=9), am.release([text], mech, random_state=9)
    assert s1.texts == s2.texts and s1.report.seed == 9


def test_outputs_do_not_depend_on_batching(glove_20k: Embeddings) -> None:
    mech = _mech("emp-text", glove_20k, epsilon=4.0)
    texts = [f"The {w} approved the budget on Tuesday." for w in ("committee", "board", "mayor")]
    together = am.release(texts, mech, random_state=4)
    alone = [am.release(texts[: i + 1], mech, random_state=4).texts[i] for i in range(3)]
    assert together.texts == alone


def test_statement_formulas_match_direct_computation(glove_20k: Embeddings) -> None:
    for eps, n in ((10.0, 7), (0.5, 3), (2.5, 40)):
        st = _mech("emp-bag", glove_20k, epsilon=eps, length=n).statement(seeded=False)
        coef = float(
            re.fullmatch(r"epsilon_doc\(b, b'\) = (\S+) \* E\(b, b'\)", st.document_bound)[1]
        )
        assert coef == pytest.approx(eps * n, rel=1e-5)
        assert f"exp({eps:g} * {n} * E(b, b'))" in st.guarantee
        assert f"N={n} words" in st.guarantee and st.parameters["N"] == n
    st = _mech("emp-bag", glove_20k, epsilon=1.0000004, length=40).statement(seeded=False)
    assert "exp(1.0000004 * 40 * E(b, b'))" in st.guarantee  # never rounded down
    assert float(st.document_bound.split(" = ")[1].split(" ")[0]) >= 1.0000004 * 40
    st = _mech("emp-text", glove_20k, epsilon=3.5).statement(seeded=True)
    assert st.document_bound.startswith("epsilon_doc(v, v') = 3.5 * sum")
    assert "exp(3.5 * sum_i d(v_i, v'_i))" in st.guarantee
    assert st.randomness == "seeded (reproducible; keep the seed secret)"


def test_bad_parameters(glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match="does not take 'length'"):
        _mech("emp-text", glove_20k, epsilon=1.0, length=3)
    with pytest.raises(InvalidParameterError, match="fixed_length"):
        _mech("emp-bag", glove_20k, epsilon=1.0, fixed_length="poem")
    with pytest.raises(InvalidParameterError, match="epsilon"):
        _mech("emp-bag", glove_20k, epsilon=float("nan"))
    with pytest.raises(InvalidParameterError, match="`length` must be an integer >= 1"):
        _mech("emp-bag", glove_20k, epsilon=1.0, length=0)
    with pytest.raises(InvalidParameterError, match="unknown mechanism"):
        core_mechanism("earth-movers", epsilon=1.0)


def test_output_distribution_of_one_word_changes_with_epsilon(glove_20k: Embeddings) -> None:
    row = glove_20k.index_of("budget")
    same = []
    for eps in (5.0, 15.0, 40.0):
        out = EarthMoversMechanism(glove_20k, epsilon=eps).perturb_indices(
            np.full(2000, row), random_state=0
        )
        same.append(float(np.mean(out == row)))
    assert same[0] < same[1] < same[2] and same[2] > 0.95


def test_shared_index_must_match_embeddings(glove_20k: Embeddings) -> None:
    from authormask.embeddings import NearestWordIndex

    index = NearestWordIndex(glove_20k.vectors)
    a = EarthMoversMechanism(glove_20k, epsilon=5.0, index=index)
    b = EarthMoversMechanism(glove_20k, epsilon=50.0, index=index)
    assert a.index is b.index
    assert (
        EarthMoversMechanism(glove_20k, epsilon=1.0).index
        is EarthMoversMechanism(glove_20k, epsilon=2.0).index
    )  # one shared index per embeddings by default
    with pytest.raises(InvalidParameterError, match="other embeddings"):
        EarthMoversMechanism(glove_20k.restrict(100), epsilon=5.0, index=index)
