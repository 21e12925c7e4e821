"""Token-by-token release: ER-AE / AE-DP / SynTF / Random-R distributions and accounting."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import authormask as am
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms.generation import ERAEMechanism, RandomReplacement, SynTFMechanism
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
    result = am.release([text], mechanism, random_state=11).documents[0]
    segment = tuple(word_tokens(SENTENCE))
    assert len(result.words) == REPEATS * len(segment)
    index = {w: i for i, w in enumerate(mechanism.output_words)}
    tokens = np.array([index[w] for w in result.words]).reshape(REPEATS, len(segment))
    counts = np.bincount(tokens[:, position], minlength=len(mechanism.output_words))
    probs = next(mechanism.probabilities([segment]))[position]
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
    mech = ERAEMechanism(erae_model, epsilon=3.0)
    res = am.release([text], mech, random_state=0)
    doc = res.documents[0]
    n_tokens = len(word_tokens(text))
    assert doc.figures["tokens"] == n_tokens == len(doc.words)  # nothing truncated
    assert doc.figures["epsilon_total"] == pytest.approx(3.0 * n_tokens)
    m = erae_model.config.max_length
    assert m < 121
    cuts = [m] * (121 // m) + ([121 % m] if 121 % m else [])  # consecutive pieces of m tokens
    seg = mech.prepare(text)
    assert len(seg.segments) == 1 + len(cuts) and seg.split_sentences == 1
    assert [len(s) for s in seg.segments] == [5, *cuts]
    st = res.statement
    assert st.epsilon == 3.0 and st.epsilon_unit == "per output token"
    assert st.mechanism == "erae" and st.parameters["sensitivity"] == 1.0
    assert st.document_bound.startswith("epsilon_doc = 3 * l")
    assert "exp(3 * l)" in st.guarantee


def test_sequence_guarantee_bounds_the_probability_ratio(erae_model):
    """For two inputs segmented alike, log Pr[y | x] - log Pr[y | x'] <= epsilon * l for any y."""
    mech = ERAEMechanism(erae_model, epsilon=2.0)
    a = [tuple(word_tokens("The bank raised its rates again."))]
    b = [tuple(word_tokens("Our team lost every single game."))]
    assert len(a[0]) == len(b[0])
    pa = next(mech.probabilities(a))
    pb = next(mech.probabilities(b))
    rng = np.random.default_rng(1)
    for _ in range(500):
        y = rng.integers(0, pa.shape[1], size=pa.shape[0])
        rows = np.arange(pa.shape[0])
        gap = np.sum(np.log(pa[rows, y])) - np.sum(np.log(pb[rows, y]))
        assert abs(gap) <= 2.0 * len(a[0]) + 1e-9
    # the worst case per token is exactly bounded by epsilon
    assert np.max(np.abs(np.log(pa) - np.log(pb))) <= 2.0 + 1e-9


def test_unknown_words_are_counted_privately(erae_model):
    mech = ERAEMechanism(erae_model, epsilon=5.0)
    res = am.release(["Zxqvbn flurbished the qwertyuiop."], mech)
    assert res.report.documents[0]["unknown_tokens"] == 3
    assert res.statement == am.release(["The committee met."], mech).statement


def test_training_overlap_is_reported_privately(erae_model, aaac_texts):
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
    mech = ERAEMechanism(erae_model, epsilon=5.0)
    res = am.release([seen, "Nobody wrote this exact sentence about purple zebras."], mech)
    assert res.report.documents[0]["training_overlap_segments"] == 1
    assert res.report.documents[1]["training_overlap_segments"] == 0
    assert len(res.report.warnings) == 1 and "training corpus" in res.report.warnings[0]
    assert any("not trained on the text" in c for c in res.statement.caveats)
    assert am.release([seen], mech).statement == res.statement


def test_seeded_runs_are_reproducible_and_the_seed_is_not_published(erae_model):
    mech = ERAEMechanism(erae_model, epsilon=10.0)
    a = am.release([SENTENCE], mech, random_state=4)
    b = am.release([SENTENCE], mech, random_state=4)
    assert a.texts == b.texts
    assert a.statement.randomness == "seeded (reproducible; keep the seed secret)"
    assert am.release([SENTENCE], mech).statement.randomness.startswith("unseeded")
    from_generator = am.release([SENTENCE], mech, random_state=np.random.default_rng(3))
    assert from_generator.statement.randomness == a.statement.randomness  # never "seeded (None)"


def test_bad_inputs(erae_model):
    with pytest.raises(InvalidParameterError, match="epsilon"):
        ERAEMechanism(erae_model, epsilon=0)
    with pytest.raises(InvalidParameterError, match="epsilon"):
        ERAEMechanism(erae_model, epsilon=-3)
    mech = ERAEMechanism(erae_model, epsilon=1.0)
    with pytest.raises(InputError, match="empty or whitespace only"):
        am.release(["   "], mech)
    with pytest.raises(InvalidParameterError, match="not one string"):
        am.release("a text", mech)
    with pytest.raises(InvalidParameterError, match="model directory or a loaded model"):
        am.create_mechanism("erae", model=42, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="it is an erae model, not ae-dp"):
        am.create_mechanism("ae-dp", model=erae_model, epsilon=1.0)


def test_model_identity_publishes_no_private_corpus_details(erae_model):
    st = ERAEMechanism(erae_model, epsilon=5.0).statement(seeded=False)
    published = st.to_json()
    corpus = erae_model.identity.training_corpus
    assert corpus["name"] == "aaac-a"  # the fixture's (non-packaged) corpus name
    assert "aaac-a" not in published and corpus["sha256"] not in published
    assert st.model is not None and st.model["training_corpus"].startswith("not named")
    assert st.model["weights_sha256"] == erae_model.identity.weights_sha256
    assert "path" not in st.model


def test_each_model_pass_reads_one_document_only(erae_model, monkeypatch):
    """Padding in a shared batch could move one document's ratings by another's text."""
    mech = ERAEMechanism(erae_model, epsilon=5.0)
    texts = ["The committee met on Monday.", "Critics said the plan was bad. It failed."]
    by_doc = [set(mech.prepare(t).segments) for t in texts]
    calls: list[list[tuple[str, ...]]] = []
    original = mech.ratings

    def spy(segments):
        calls.append(list(segments))
        return original(segments)

    monkeypatch.setattr(mech, "ratings", spy)
    am.release(texts, mech, random_state=1)
    assert len(calls) == 2
    assert all(any(set(c) <= doc for doc in by_doc) for c in calls)


def test_released_text_keeps_the_paragraphs(erae_model):
    text = (
        "The committee met on Monday. It approved the budget.\n\nCritics were unhappy."
        "\n\n\nThey said so."
    )
    out = am.release([text], ERAEMechanism(erae_model, epsilon=5.0), random_state=2).texts[0]
    paragraphs = out.split("\n\n")
    assert len(paragraphs) == 3 and all(p.strip() and "\n" not in p for p in paragraphs)
    st = ERAEMechanism(erae_model, epsilon=5.0).statement(seeded=False)
    assert "paragraphs" in st.released_unchanged
