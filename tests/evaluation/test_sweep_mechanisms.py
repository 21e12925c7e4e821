"""Which registry mechanisms the fernandes2019 sweep runs, and the parameters it gives them: both
read from the registry's specs (issue 14), never from a mechanism's name."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from authormask.core import mechanism_spec, release
from authormask.embeddings import Embeddings
from authormask.evaluation import (
    DEFAULT_SWEEP_MECHANISMS,
    SWEEP_MECHANISMS,
    Study,
    SweepConfig,
    releases_bag,
    run_sweep,
    sweep_mechanisms,
)
from authormask.evaluation.protocols.fernandes2019 import cell_seeds, mechanism_code
from authormask.evaluation.protocols.fernandes2019 import runner as sweep_module
from authormask.exceptions import InvalidParameterError
from authormask.text import TextPreparer
from authormask.text.stopwords import default_stopwords

PEERS = ("mahalanobis", "tem", "santext")


def test_membership_and_codes_come_from_the_registry() -> None:
    assert SWEEP_MECHANISMS == sweep_mechanisms()
    assert SWEEP_MECHANISMS == (
        "emp-bag",
        "emp-text",
        *PEERS,
        "emp-doc",
        "random-sub",
        "emp-write",
        "emp-sentence",
        "emp-event",
    )
    assert DEFAULT_SWEEP_MECHANISMS == ("emp-bag", "emp-text")
    for name in SWEEP_MECHANISMS:
        takes = set(mechanism_spec(name).parameter_names)
        assert {"embeddings", "stopwords"} <= takes
        # an epsilon, or a baseline without privacy swept over its rate
        assert "epsilon" in takes or (mechanism_spec(name).privacy is None and "rate" in takes)
    # emp-doc takes no oov (it always maps unknown words) and still joins
    assert "oov" not in mechanism_spec("emp-doc").parameter_names
    assert [releases_bag(m) for m in SWEEP_MECHANISMS] == [True] + [False] * 9
    # the peers were appended: the seeds of emp-bag and emp-text keep their codes
    assert [mechanism_code(m) for m in SWEEP_MECHANISMS][:5] == [0, 1, 6, 7, 8]
    SweepConfig(mechanisms=SWEEP_MECHANISMS)  # every one is accepted
    for name in ("erae", "ae-dp", "syntf", "random-r"):  # what their specs declare, said
        with pytest.raises(
            InvalidParameterError,
            match=rf"got '{name}' \({name} releases a generated sequence, not the study's own",
        ):
            SweepConfig(mechanisms=(name,))


EPSILON_MECHANISMS = tuple(m for m in SWEEP_MECHANISMS if m != "random-sub")


def _runner(study: Study, emb: Embeddings, preparer: TextPreparer) -> sweep_module._Runner:
    config = SweepConfig(mechanisms=SWEEP_MECHANISMS, attackers=("svm",))
    return sweep_module._Runner(study, emb, preparer, config, None)


def test_parameters_follow_the_spec(aaac_study: Study, glove_20k: Embeddings) -> None:
    drop = _runner(aaac_study, glove_20k, TextPreparer(glove_20k, oov="drop"))
    # entities kept: an evaluation measures the mechanism on the words it is given
    common = {
        "vocab_size": None,
        "stopwords": "english",
        "oov_map_to": "unknown",  # a fixed word in every evaluation (evaluation/releases.py)
        "entities": "keep",
    }
    assert TextPreparer(glove_20k).stopwords == default_stopwords()
    # the dictionaries the sweep gives emp-bag and emp-text (emp-bag drops unknown words: it
    # reads no word for them, and is given none)
    assert drop.parameters("emp-bag", 5.0) == {
        "epsilon": 5.0,
        **{k: v for k, v in common.items() if k != "oov_map_to"},
        "length": aaac_study.length,
        "oov": "drop",
    }
    # the noise off: no epsilon at all (the samplers are switched off)
    assert drop.parameters("emp-text", None) == {**common, "oov": "map"}
    for name in PEERS:  # in place: no N, unknown words mapped, their own parameters default
        assert drop.parameters(name, 5.0) == {"epsilon": 5.0, **common, "oov": "map"}
    # emp-doc: no oov, no N; its function_epsilon keeps its default (epsilon / 4)
    assert drop.parameters("emp-doc", 5.0) == {"epsilon": 5.0, **common}
    keep = _runner(aaac_study, glove_20k, TextPreparer(glove_20k, oov="keep"))
    for name in SWEEP_MECHANISMS:
        if "oov" in mechanism_spec(name).parameter_names:
            assert keep.parameters(name, 5.0)["oov"] == "keep"


def test_noise_off_switches_every_sampler_off(
    aaac_study: Study, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    runner = _runner(aaac_study, glove_20k, preparer)
    # every word-level mechanism declares its samplers: no epsilon, no noise drawn (santext
    # too, whose exact sampler refused 1e12 and was released at 1e10 before)
    assert {m: runner.noise_off_epsilon(m) for m in EPSILON_MECHANISMS} == dict.fromkeys(
        EPSILON_MECHANISMS
    )
    # emp-doc's noise-off form: function words as well, so every word is itself
    doc = runner.mechanism("emp-doc", None)
    text = ["The cat sat on the mat and it was happy."]
    first, second = (release(text, doc, random_state=s).texts for s in (0, 1))
    assert first == second
    for name in EPSILON_MECHANISMS:  # its statement claims no guarantee
        statement = runner.mechanism(name, None).statement(seeded=True)
        assert statement.epsilon is None and statement.guarantee.startswith("NONE")
    # random-sub's noise-off form is rate 0: the same canonical text as emp-doc's
    assert runner.parameters("random-sub", None)["rate"] == 0.0
    assert runner.noise_off_epsilon("random-sub") == 0.0
    assert "epsilon" not in runner.parameters("random-sub", 0.5)
    canonical = release(text, runner.mechanism("random-sub", None), random_state=3).texts
    assert canonical == first


def test_peer_mechanisms_in_a_sweep(
    aaac_study: Study,
    glove_20k: Embeddings,
    preparer: TextPreparer,
    cut_study: Callable[[Study, int], Study],
) -> None:
    study = cut_study(aaac_study, 30)
    config = SweepConfig(epsilons=(None, 1e6, 5.0), mechanisms=PEERS, attackers=("svm",), seed=2)
    result = run_sweep(study, embeddings=glove_20k, preparer=preparer, config=config)
    assert len(result.cells) == 3 * 3
    assert set(result.statements) == {f"{m}/{e:g}" for m in PEERS for e in (1e6, 5.0)}
    for name in PEERS:
        assert result.statements[f"{name}/5"]["mechanism"] == name
        noisy = result.cell(name, 5.0, "svm")[0]
        assert noisy.seed == cell_seeds(2, name, 5.0, 0)[0]
    assert result.provenance["noise_off_epsilon"] == dict.fromkeys(PEERS)
    assert "mahalanobis 6, tem 7, santext 8" in result.provenance["seeds"]
