"""The statement in plain words: built from the public statement, with a worked example from
the named embeddings and the packaged measurement nearest the epsilon."""

from __future__ import annotations

import math

from authormask.accounting.plain import EXAMPLE_PAIRS, explain, measured_near, odds_factor
from authormask.core import create_mechanism


def test_worked_example_uses_the_stated_epsilon_and_the_vectors(glove_20k) -> None:
    mech = create_mechanism("emp-text", epsilon=3.0, embeddings=glove_20k, vocab_size=None)
    text = explain(mech.statement(seeded=False), embeddings=glove_20k)
    dists = []
    for a, b in EXAMPLE_PAIRS:
        if a not in glove_20k.words or b not in glove_20k.words:
            continue
        va, vb = glove_20k.vectors[glove_20k.index_of(a)], glove_20k.vectors[glove_20k.index_of(b)]
        dists.append((math.dist(va.tolist(), vb.tolist()), a, b))
    d, a, b = min(dists)
    assert f"'{a}'" in text and f"'{b}'" in text
    assert odds_factor(3.0 * d) in text
    assert "epsilons add" in text
    assert "bounds nothing in practice" in text


def test_a_baseline_says_it_gives_no_guarantee() -> None:
    text = explain(create_mechanism("random-sub", rate=0.3).statement(seeded=False))
    assert "NO privacy guarantee" in text
    assert "epsilon" not in text.split("\n\n")[0].lower().replace("no privacy", "")


def test_the_measurement_is_the_row_nearest_the_epsilon() -> None:
    row = measured_near("emp-write", 7.0)
    assert row is not None
    assert 0.0 <= row["macro_f1"] <= 1.0 and 0.0 < row["chance"] < row["macro_f1"] + 1
    others = [measured_near("emp-write", e) for e in (1.0, 100.0)]
    assert all(o is not None for o in others)
    assert others[0]["epsilon"] <= row["epsilon"] <= others[1]["epsilon"]
    assert measured_near("syntf", 7.0) is None


def test_the_statement_in_plain_words_does_not_depend_on_the_input(glove_20k) -> None:
    mech = create_mechanism("emp-write", epsilon=7.0, embeddings=glove_20k, vocab_size=None)
    a = explain(mech.statement(seeded=True), embeddings=glove_20k)
    b = explain(mech.statement(seeded=True), embeddings=glove_20k)
    assert a == b
    assert "macro-F1" in a


def _read_factor(shown: str) -> float:
    """The number ``odds_factor`` wrote (``260``, ``8 x 10^6``), as a log10."""
    if " x 10^" in shown:
        mantissa, exponent = shown.split(" x 10^")
        return math.log10(float(mantissa)) + int(exponent)
    return math.log10(float(shown))


def test_the_factor_in_words_is_never_below_the_bound() -> None:
    # it states a bound: "at most 10^6 times likelier" for exp(7 x 2.27) = 8.0e6 claimed more
    # privacy than the formula gives (the exponent was rounded down)
    for log_factor in [0.0, 0.01, 0.47, 1.0, 2.3, 2.31, 5.5, 6.9, 7 * 2.27, 50.0, 110.6, 1500.0]:
        shown = _read_factor(odds_factor(log_factor))
        true = log_factor / math.log(10)
        assert true - 1e-9 <= shown <= true + math.log10(1.11), (
            log_factor,
            odds_factor(log_factor),
        )
    assert odds_factor(7 * 2.27) == "8 x 10^6"


def test_the_blind_guess_beside_a_macro_f1_is_a_macro_f1(glove_20k) -> None:
    # --explain said "macro-F1 0.17, where a blind guess scores 0.08": 0.08 was a uniform
    # guess's accuracy; its macro-F1 (the published run's chance_macro_f1) is 0.070
    import json
    from pathlib import Path

    run = Path(__file__).resolve().parents[2] / "docs/results/pan19-en-defaults/results.json"
    chance = json.loads(run.read_text(encoding="utf-8"))["chance_macro_f1"]["mean"]
    row = measured_near("emp-write", 7.0)
    assert row is not None and row["chance"] == chance
    mech = create_mechanism("emp-write", epsilon=7.0, embeddings=glove_20k, vocab_size=None)
    assert f"where a blind guess scores {chance:.2f}" in explain(mech.statement(seeded=False))
