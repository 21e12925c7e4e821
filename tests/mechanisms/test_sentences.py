"""emp-sentence: Earth Mover's privacy on sentences (a public bank's) and on their nouns."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from authormask.audit.by_mechanism import emp_sentence
from authormask.audit.case_spec import Context
from authormask.audit.core import audit_case
from authormask.core import create_mechanism, release
from authormask.core.registry import create_noise_off
from authormask.embeddings import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.names import NameKernel, redraw_probability
from authormask.mechanisms.sentences import (
    SentenceKernel,
    choose_templates,
    document_sentences,
    fill_template,
)
from authormask.models.sentence_bank import DIMENSION, bank_sentences, load_sentence_bank

P_FLOOR = 1e-6  # statistical tests fail only below this p-value (fixed seeds: never flaky)

STORY = (
    "The old captain walked to the harbour at dawn. He found the boat and the nets!\n\n"
    "Did the storm break the mast? His daughter waited at the door with a lamp."
)


@pytest.fixture(scope="module")
def bank():
    return load_sentence_bank()


@pytest.fixture(scope="module")
def mech(glove_20k: Embeddings):
    return create_mechanism(
        "emp-sentence", epsilon=7.0, embeddings=glove_20k, entities="keep", sentence_weight=5.0
    )


def test_the_bank_is_real_prose(bank) -> None:
    assert len(bank.sentences) > 10_000
    assert bank.points.shape == (len(bank.sentences), DIMENSION)
    slots = bank.slots
    assert slots.shape == (len(bank.sentences), 2)
    assert (slots.sum(axis=1) > 0).mean() > 0.8  # most sentences have a noun or a name to fill
    assert all(s[0].isupper() and s[-1] in ".!?" for s in bank.sentences[:500])
    # the projection is a contraction of unit vectors: no two points more than 2 apart
    rng = np.random.default_rng(0)
    i, j = rng.integers(0, len(bank.sentences), (2, 2000))
    assert np.linalg.norm(bank.points[i] - bank.points[j], axis=1).max() <= 2.0


def test_bank_rule_drops_headings_digits_and_fragments() -> None:
    text = "CHAPTER IV. He had 3 dogs. Yes. \u201cCome here, my friend!\u201d she cried. but no"
    # the heading, the sentence with a digit, the one-word sentence and the uncapitalised
    # fragment are dropped; quotes are removed (a quoted speech and its tag stay one sentence)
    assert bank_sentences(text) == ["Come here, my friend! she cried."]


def test_sentence_noise_is_theorem_2(bank) -> None:
    """The noise radius ||z - x|| follows Gamma(16, 1/epsilon) (eq. 12) and the direction is
    uniform (its mean is near 0 in every coordinate)."""
    eps = 35.0
    kernel = SentenceKernel(bank.points, eps)
    x = np.repeat(bank.points[:1], 20_000, axis=0)
    z = kernel.noisy(x, np.random.default_rng(12345))
    r = np.linalg.norm(z - x, axis=1)
    p = stats.kstest(r, stats.gamma(a=DIMENSION, scale=1 / eps).cdf).pvalue
    assert p > P_FLOOR
    directions = (z - x) / r[:, None]
    # each coordinate of a uniform direction has mean 0 and variance 1/n
    t = directions.mean(axis=0) / np.sqrt(1 / DIMENSION / len(r))
    assert np.abs(t).max() < 5.5


def test_nearest_is_exact(bank) -> None:
    kernel = SentenceKernel(bank.points, 35.0)
    z = kernel.noisy(bank.points[:50], np.random.default_rng(3))
    got = kernel.nearest(z, k=5)
    d = np.linalg.norm(z[:, None, :] - bank.points[None, :, :], axis=2)
    want = np.argsort(d, axis=1, kind="stable")[:, :5]
    assert np.array_equal(got, want)


def test_layout_changes_nothing(mech) -> None:
    """The same sentences with another layout (spaces, line breaks) give the same cuts and the
    same release with the same noise."""
    other = STORY.replace("\n\n", " ").replace(" ", "   ").replace(". He", ".\nHe")
    assert document_sentences(other) == document_sentences(STORY)
    assert len(document_sentences(STORY)) == 4
    a = release([STORY], mech, random_state=11).documents[0]
    b = release([other], mech, random_state=11).documents[0]
    assert a.text == b.text and a.words == b.words
    c = release([STORY.replace("boat", "horse")], mech, random_state=11).documents[0]
    assert c.text != a.text


def test_noise_off_keeps_nouns_in_order_in_real_sentences(glove_20k: Embeddings, bank) -> None:
    off = create_noise_off("emp-sentence", embeddings=glove_20k, entities="keep")
    out = release([STORY], off, random_state=1).documents[0]
    nouns = off.prepare(STORY).words
    assert out.words == nouns and "captain" in nouns and "lamp" in nouns
    # every released noun stands in the text, in order
    text = out.text.lower()
    at = 0
    for w in nouns:
        at = text.index(w, at)
    # each output sentence is a bank template (a sentence with the same words outside its slots)
    assert len(document_sentences(out.text)) >= 3


def test_templates_follow_the_nouns_left() -> None:
    # three copies of a bank of five sentences with 0-4 slots; each sentence's candidates are
    # one copy, nearest first
    slots = np.tile(np.arange(5), 3)
    candidates = np.array([[4, 3, 2, 1, 0], [9, 8, 7, 6, 5], [14, 13, 12, 11, 10]])
    # 6 nouns over 3 sentences: 2 each
    assert choose_templates(candidates, slots, (6,)) == [2, 7, 12]
    # none: the sentences without slots
    assert choose_templates(candidates, slots, (0,)) == [0, 5, 10]
    # 9 over 3: 3, then 6 over 2: 3, then 3
    assert choose_templates(candidates, slots, (9,)) == [3, 8, 13]


def test_templates_follow_the_names_left_too() -> None:
    # (noun slots, name slots) of five bank sentences, twice
    slots = np.tile(np.array([[2, 0], [1, 1], [0, 2], [2, 1], [0, 0]]), (2, 1))
    candidates = np.array([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    # 2 nouns and 2 names over 2 sentences: one of each per sentence
    assert choose_templates(candidates, slots, (2, 2)) == [1, 6]
    # 4 nouns, no name: the nearest with two noun slots and no name slot
    assert choose_templates(candidates, slots, (4, 0)) == [0, 5]
    # 0 nouns, 4 names
    assert choose_templates(candidates, slots, (0, 4)) == [2, 7]


def test_a_template_comes_back_only_when_every_candidate_has_been_used() -> None:
    slots = np.array([1, 1, 1])
    candidates = np.array([[2, 0, 1]] * 4)
    # the nearest first, then the next nearest unused, then the last; then all are used
    assert choose_templates(candidates, slots, (4,)) == [2, 0, 1, 2]


def test_fill_template_articles_capitals_and_leftover_slots() -> None:
    tokens = [
        ("An", " ", ""),
        ("apple", " ", "noun"),
        ("fell", " ", ""),
        ("on", " ", ""),
        ("a", " ", ""),
        ("table", " ", "noun"),
        ("near", " ", ""),
        ("Moscow", "", "name"),
        (".", "", ""),
    ]
    # no name released yet: the name slot keeps the bank's own
    text, used, named = fill_template(tokens, ["pear", "owl"], frozenset({"anna"}))
    assert (text, used, named) == ("A pear fell on an owl near Moscow.", 2, 0)
    # nouns in noun slots only, names in name slots only
    text, used, named = fill_template(
        tokens, ["egg", "box", "extra"], frozenset({"anna", "oslo"}), ["oslo", "anna"]
    )
    assert (text, used, named) == ("An egg fell on a box near Oslo.", 2, 1)
    # a name slot left over takes the name released last
    text, used, named = fill_template(tokens, ["egg"], frozenset({"anna"}), [], "anna")
    assert (text, used, named) == ("An egg fell on a table near Anna.", 1, 0)


def test_a_noun_takes_the_number_of_its_slot() -> None:
    """'He lay three hand in the type' (issue 46): a released noun is written in the number
    of the bank's noun it stands for, both ways; other words are left alone."""
    tokens = [
        ("Three", " ", ""),
        ("dogs", " ", "noun"),
        ("saw", " ", ""),
        ("a", " ", ""),
        ("cat", "", "noun"),
        (".", "", ""),
    ]
    text, used, _ = fill_template(tokens, ["hand", "boxes"], frozenset())
    assert (text, used) == ("Three hands saw a box.", 2)
    text, _, _ = fill_template(tokens, ["children", "mouse"], frozenset())
    assert text == "Three children saw a mouse."
    text, _, _ = fill_template(tokens, ["man", "qwzx"], frozenset())
    assert text == "Three men saw a qwzx."  # a word the table does not know stays


def test_statement_names_every_epsilon_and_the_bank(mech, bank) -> None:
    s = mech.statement(seeded=False)
    assert s.epsilon == 7.0
    assert "35" in s.epsilon_unit and "per noun" in s.epsilon_unit
    assert "8.75 per name changed" in s.epsilon_unit and s.parameters["name epsilon"] == 8.75
    assert "M of names" in s.guarantee and "a name 8.75" in s.guarantee
    assert bank.identity["sha256"][:16] in s.parameters["sentence space"]
    assert "number S of sentences" in s.released_unchanged


def test_bad_sentence_weight_is_refused(glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match="sentence_weight"):
        create_mechanism("emp-sentence", epsilon=7.0, embeddings=glove_20k, sentence_weight=0)


@pytest.mark.parametrize("case", ["sentence-line-1d", "sentence-bank", "names-rr"])
def test_audit_lower_bound_below_the_statement(case: str) -> None:
    spec = next(c for c in emp_sentence("emp-sentence") if c.case == case)
    built = spec.build(Context())
    result = audit_case(built, samples=20_000, random_state=5)
    assert result.passed
    assert result.epsilon_lower_bound <= built.epsilon_stated
    if case in ("sentence-line-1d", "names-rr"):  # tight: the bound is approached
        assert result.epsilon_lower_bound > 0.5 * built.epsilon_stated


def test_audit_of_the_nouns_is_below_the_statement(cache_dir) -> None:
    spec = next(c for c in emp_sentence("emp-sentence") if c.case == "nouns-glove")
    built = spec.build(Context(cache_dir=cache_dir))
    result = audit_case(built, samples=2_000, random_state=5)
    assert result.passed and result.epsilon_lower_bound <= built.epsilon_stated


# --- names: k-ary randomized response on the public name lists --------------------------------


def test_redraw_probability_keeps_the_ratio_within_epsilon() -> None:
    """The realised ratio P[x | x] / P[y | x] = 1 + k (1 - lambda) / lambda is at most
    exp(epsilon), and lambda is the smallest double that does it (the double below it gives a
    ratio above exp(epsilon)); computed in 80-digit decimals."""
    import math
    from decimal import Decimal, localcontext

    for k in (2, 5, 627):
        for eps in (1e-3, 0.5, 1.0, 8.75, 30.0, 700.0, 744.9, 745.0, 751.0, 1e6):
            lam = redraw_probability(eps, k)
            assert 0.0 < lam <= 1.0
            with localcontext() as ctx:
                ctx.prec = 80

                def log_ratio(x: float, k: int = k) -> Decimal:
                    return (1 + Decimal(k) * (1 - Decimal(x)) / Decimal(x)).ln()

                assert log_ratio(lam) <= Decimal(eps)
                below = math.nextafter(lam, 0.0)
                if below > 0.0 and eps < 1000.0:
                    assert log_ratio(below) > Decimal(eps)
    with pytest.raises(InvalidParameterError, match="at least 2 names"):
        redraw_probability(1.0, 1)


def test_randomized_response_has_its_analytic_law() -> None:
    """Chi-square of 200,000 releases of one name against P[x | x] = 1 - lambda + lambda / k,
    P[y | x] = lambda / k."""
    alphabet = ("anna", "boris", "clara", "dmitri", "elena")
    eps = 1.3
    kernel = NameKernel(alphabet, eps)
    n = 200_000
    out = kernel.release(["clara"] * n, np.random.default_rng(8))
    observed = np.array([out.count(w) for w in alphabet])
    lam = kernel.redraw
    expected = np.full(5, n * lam / 5)
    expected[2] = n * (1 - lam + lam / 5)
    assert stats.chisquare(observed, expected).pvalue > P_FLOOR
    # the analytic ratio is exp(eps)
    assert expected[2] / expected[0] == pytest.approx(np.exp(eps), rel=1e-12)
    assert kernel.keep_probability() == pytest.approx(expected[2] / n)
    with pytest.raises(InvalidParameterError, match="not a name"):
        kernel.release(["zed"], np.random.default_rng(0))
    assert NameKernel(alphabet, None).release(["boris", "anna"], np.random.default_rng(0)) == [
        "boris",
        "anna",
    ]


def test_names_go_to_name_slots_and_survive_the_noise(glove_20k: Embeddings) -> None:
    """A text's surrogate cast (names of the public lists) comes out capitalised in name slots,
    most names kept at the default weight; the noise-off form keeps every one."""
    story = (
        "Anna walked to the harbour with James. James found the boat. "
        "Anna waited at the door with a lamp. Later Anna and James sailed to Oslo."
    )
    mech = create_mechanism(
        "emp-sentence", epsilon=7.0, embeddings=glove_20k, entities="keep", sentence_weight=5.0
    )
    inner = mech
    while hasattr(inner, "inner"):
        inner = inner.inner
    unit = inner.prepare(story)
    assert unit.names == ("anna", "james", "james", "anna", "anna", "james", "oslo")
    assert "anna" not in unit.words and "harbour" in unit.words
    assert inner.name_kernel.keep_probability() > 0.85
    kept = placed_all = people_all = 0
    for seed in range(20):
        doc = release([story], mech, random_state=seed).documents[0]
        people = doc.words[len(doc.words) - len(unit.names) :]
        kept += sum(a == b for a, b in zip(people, unit.names, strict=True))
        # the name slots of the templates take the released names in order (the last
        # templates may have fewer slots than names are left)
        placed = sum(doc.text.count(n.capitalize()) for n in set(people))
        assert placed >= len(people) - 3
        placed_all += placed
        people_all += len(people)
    assert placed_all / people_all > 0.85
    assert kept / (20 * len(unit.names)) > 0.75
    off = create_noise_off("emp-sentence", embeddings=glove_20k, entities="keep")
    doc = release([story], off, random_state=1).documents[0]
    assert doc.words[len(doc.words) - len(unit.names) :] == unit.names
    for name in ("Anna", "James", "Oslo"):
        assert name in doc.text


def test_bad_name_weight_is_refused(glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match="name_weight"):
        create_mechanism("emp-sentence", epsilon=7.0, embeddings=glove_20k, name_weight=-1)


def test_the_encoder_reads_list_names_and_digits_masked(glove_20k: Embeddings) -> None:
    """A sentence's point does not read which surrogate the entity step drew (nor a number's
    digits): two stories that differ only there release the same sentence points, so with one
    generator the same templates; a name outside the lists is read as written."""
    from authormask.mechanisms.sentences import encoder_text

    assert encoder_text("Maria met Johnson in Paris at 9.") == encoder_text(
        "Olga met Garcia in Tokyo at 71."
    )
    assert encoder_text("Castiel waited.") == "Castiel waited."
    assert encoder_text("the brown dog") == "the brown dog"  # lower case: not a name
    mech = create_mechanism("emp-sentence", epsilon=7.0, embeddings=glove_20k, entities="keep")
    inner = mech
    while hasattr(inner, "inner"):
        inner = inner.inner
    a = inner.bank.encoder.points([encoder_text("Maria walked to Paris with Johnson.")])
    b = inner.bank.encoder.points([encoder_text("Olga walked to Tokyo with Garcia.")])
    c = inner.bank.encoder.points(["Maria walked to Paris with Johnson."])
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_a_sentence_met_again_is_not_encoded_again(bank, monkeypatch) -> None:
    """The same sentence at the next epsilon of an evaluation costs no second encoding, and
    gets the point it got the first time."""
    import authormask.models.sentence_bank as sb

    sb.remember_sentences(65536)  # a page built in this process remembers none
    sentences = ["The ferry left the harbour at noon.", "A gull cried over the water."]
    first = bank.encoder.points(sentences)
    read: list[str] = []
    model = sb._model()

    class Counting:
        def encode(self, texts, **kwargs):
            read.extend(texts)
            return model.encode(texts, **kwargs)

    monkeypatch.setattr(sb, "_model", lambda: Counting())
    again = bank.encoder.points([sentences[1], "The gull slept.", sentences[0], sentences[1]])
    assert read == ["The gull slept."]
    assert np.array_equal(again[[2, 0, 3]], first[[0, 1, 1]])
