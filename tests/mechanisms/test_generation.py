"""Token-by-token release: ER-AE / AE-DP / SynTF / Random-R distributions and accounting."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms.generation import (
    ERAEMechanism,
    RandomReplacement,
    SynTFMechanism,
    generate_texts,
    output_probabilities,
)
from authormask.models.erae import load_model
from authormask.text.sentences import word_tokens

P_MIN = 1e-6
SENTENCE = "The committee approved the new budget on Monday."
REPEATS = 3000


def _chi2_p(counts: np.ndarray, probs: np.ndarray) -> float:
    expected = probs * counts.sum()
    keep = expected >= 5
    obs, exp = counts[keep], expected[keep]
    if (~keep).any():
        obs = np.append(obs, counts[~keep].sum())
        exp = np.append(exp, expected[~keep].sum())
    return float(stats.chisquare(obs, exp).pvalue)


def _position_counts(mechanism, position: int) -> tuple[np.ndarray, np.ndarray]:
    """Release one text of REPEATS identical sentences: every sentence is an independent draw
    from the same per-token distributions, so position ``position`` gives REPEATS samples."""
    text = " ".join([SENTENCE] * REPEATS)
    result = generate_texts([text], mechanism=mechanism, random_state=11)[0]
    assert len(result.segments) == REPEATS
    index = {w: i for i, w in enumerate(mechanism.output_words)}
    counts = np.bincount(
        [index[s[position]] for s in result.segments], minlength=len(mechanism.output_words)
    )
    segment = tuple(word_tokens(SENTENCE))
    probs = next(output_probabilities(mechanism, [segment]))[position]
    return counts, probs


@pytest.fixture(scope="module")
def erae_model(tiny_erae_dir):
    return load_model(tiny_erae_dir, device="cpu")


@pytest.mark.parametrize("position", [0, 3])
def test_erae_tokens_follow_the_exponential_mechanism(erae_model, position):
    mech = ERAEMechanism(erae_model, epsilon=20.0)
    counts, probs = _position_counts(mech, position)
    # Eq. 6 computed here from the model's own softmax (Eq. 5), not from the sampler
    segment = tuple(word_tokens(SENTENCE))
    rho = next(erae_model.ratings(erae_model.vocab.encode([segment]).ids))[position]
    assert rho.min() >= 0 and rho.max() <= 1 and rho.sum() == pytest.approx(1.0)
    w = np.exp(20.0 * rho / 2.0)
    assert np.allclose(probs, w / w.sum(), rtol=1e-10)
    assert _chi2_p(counts, probs) > P_MIN


def test_syntf_tokens_follow_the_exponential_mechanism(glove_20k):
    mech = SynTFMechanism(glove_20k, epsilon=30.0, output_size=500)
    counts, probs = _position_counts(mech, 1)
    unit = glove_20k.vectors[:500] / np.linalg.norm(glove_20k.vectors[:500], axis=1, keepdims=True)
    v = glove_20k.vectors[glove_20k.index_of("committee")]
    cos = unit @ (v / np.linalg.norm(v))
    w = np.exp(30.0 * cos / (2 * 2.0))  # sensitivity 2: cosine ranges over [-1, 1]
    assert np.allclose(probs, w / w.sum(), rtol=1e-6)
    assert _chi2_p(counts, probs) > P_MIN


def test_random_replacement_is_uniform(glove_20k):
    mech = RandomReplacement(glove_20k.words[:200])
    counts, probs = _position_counts(mech, 2)
    assert np.allclose(probs, 1 / 200)
    assert _chi2_p(counts, probs) > P_MIN


def test_sequence_accounting_is_epsilon_times_length(erae_model):
    text = "One short sentence here. " + " ".join(["Word"] + ["word"] * 119) + "."
    res = generate_texts([text], mechanism=ERAEMechanism(erae_model, epsilon=3.0), random_state=0)[
        0
    ]
    st = res.statement
    n_tokens = len(word_tokens(text))
    assert st.tokens == n_tokens == sum(len(s) for s in res.segments)  # nothing truncated
    assert st.total_epsilon == pytest.approx(3.0 * n_tokens)
    m = erae_model.config.max_length
    assert m < 121
    cuts = [m] * (121 // m) + ([121 % m] if 121 % m else [])  # consecutive pieces of m tokens
    assert st.segments == 1 + len(cuts)
    assert st.split_sentences == 1
    assert [len(s) for s in res.segments] == [5, *cuts]
    assert st.epsilon == 3.0 and st.epsilon_unit == "per output token"
    assert st.mechanism == "ER-AE" and st.sensitivity == 1.0


def test_sequence_guarantee_bounds_the_probability_ratio(erae_model):
    """For two inputs segmented alike, log Pr[y | x] - log Pr[y | x'] <= epsilon * l for any y."""
    mech = ERAEMechanism(erae_model, epsilon=2.0)
    a = [tuple(word_tokens("The bank raised its rates again."))]
    b = [tuple(word_tokens("Our team lost every single game."))]
    assert len(a[0]) == len(b[0])
    pa = next(output_probabilities(mech, a))
    pb = next(output_probabilities(mech, b))
    rng = np.random.default_rng(1)
    for _ in range(500):
        y = rng.integers(0, pa.shape[1], size=pa.shape[0])
        rows = np.arange(pa.shape[0])
        gap = np.sum(np.log(pa[rows, y])) - np.sum(np.log(pb[rows, y]))
        assert abs(gap) <= 2.0 * len(a[0]) + 1e-9
    # the worst case per token is exactly bounded by epsilon
    assert np.max(np.abs(np.log(pa) - np.log(pb))) <= 2.0 + 1e-9


def test_unknown_words_are_counted(erae_model):
    res = generate_texts(
        ["Zxqvbn flurbished the qwertyuiop."],
        mechanism=ERAEMechanism(erae_model, epsilon=5.0),
        random_state=0,
    )[0]
    assert res.statement.unknown_tokens == 3


def test_training_overlap_is_reported(erae_model, aaac_texts):
    from authormask.models.erae.checkpoint import segment_hash
    from authormask.models.erae.training import prepare_segments
    from authormask.text.sentences import detokenize, segment_text

    seen = None
    for seg in prepare_segments(aaac_texts, max_length=50):
        text = detokenize(seg)
        if segment_hash(list(seg)) in erae_model.training_hashes and segment_text(
            text, max_length=50
        ).segments == (seg,):
            seen = text
            break
    assert seen is not None
    res = generate_texts(
        [seen, "Nobody wrote this exact sentence about purple zebras."],
        mechanism=ERAEMechanism(erae_model, epsilon=5.0),
        random_state=0,
    )
    assert res[0].statement.training_overlap == 1
    assert any("training corpus" in c for c in res[0].statement.caveats)
    assert res[1].statement.training_overlap == 0


def test_seeded_runs_are_reproducible(erae_model):
    mech = ERAEMechanism(erae_model, epsilon=10.0)
    a = generate_texts([SENTENCE], mechanism=mech, random_state=4)[0]
    b = generate_texts([SENTENCE], mechanism=mech, random_state=4)[0]
    assert a.text == b.text
    assert a.statement.seed == "seeded (4)"
    assert generate_texts([SENTENCE], mechanism=mech)[0].statement.seed.startswith("unseeded")


def test_bad_inputs(erae_model):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        ERAEMechanism(erae_model, epsilon=0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        ERAEMechanism(erae_model, epsilon=-3)
    with pytest.raises(InputError, match="no tokens"):
        generate_texts(["   "], mechanism=ERAEMechanism(erae_model, epsilon=1.0))
    with pytest.raises(InputError, match="not one string"):
        generate_texts("a text", mechanism=ERAEMechanism(erae_model, epsilon=1.0))
    with pytest.raises(InvalidParameterError, match="ERAEModel"):
        ERAEMechanism("model-dir", epsilon=1.0)
