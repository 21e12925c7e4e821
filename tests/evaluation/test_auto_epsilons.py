"""``--epsilons auto`` (issue 20, part F): per mechanism, epsilons whose expected change rates
cover about 5% to 95% of content words, calibrated on the mechanism's own scale."""

from __future__ import annotations

import pytest

from authormask.audit.case_spec import core_mechanism
from authormask.embeddings import Embeddings
from authormask.evaluation.calibration import (
    AUTO_TARGETS,
    auto_epsilons,
    change_rate,
    probe_words,
)
from authormask.evaluation.protocols._releases import mechanism_parameters
from authormask.exceptions import InvalidParameterError
from authormask.release import create_mechanism


@pytest.mark.parametrize("name", ["emp-text", "emp-doc", "emp-bag"])
def test_auto_epsilons_hit_their_change_rates(name: str, glove_20k: Embeddings) -> None:
    choice = auto_epsilons(name, glove_20k, seed=0)
    assert len(choice.epsilons) >= 7 and len(choice.epsilons) == len(AUTO_TARGETS)
    assert list(choice.epsilons) == sorted(set(choice.epsilons), reverse=True)
    rates = choice.change_rates
    # largest epsilon changes least; the range covers about 5% to 95%
    assert list(rates) == sorted(rates)
    assert rates[0] <= 0.1 and rates[-1] >= 0.9
    for target, measured in zip(sorted(AUTO_TARGETS), rates, strict=True):
        assert abs(measured - target) < 0.08, (target, measured)
    # deterministic: the same epsilons again
    assert auto_epsilons(name, glove_20k, seed=0).epsilons == choice.epsilons
    assert choice.to_dict()["epsilons"] == list(choice.epsilons)


def test_change_rate_reads_the_release(glove_20k: Embeddings) -> None:
    probe = probe_words(glove_20k, 100)
    assert len(probe) == 100 and len(set(probe)) == 100
    off = core_mechanism("emp-text", embeddings=glove_20k, epsilon=1e12)
    assert change_rate(off, probe) == 0.0
    loud = core_mechanism("emp-text", embeddings=glove_20k, epsilon=0.01)
    assert change_rate(loud, probe) > 0.9


def test_the_scale_is_the_mechanism_own(glove_20k: Embeddings) -> None:
    """TEM's epsilon is on another scale than Earth Mover's: the same change rate falls at
    another epsilon, found without knowing the mechanism."""
    emp = auto_epsilons("emp-text", glove_20k, targets=(0.5, 0.6))
    tem = auto_epsilons("tem", glove_20k, targets=(0.5, 0.6))
    for choice in (emp, tem):  # largest epsilon first: the 50% one
        assert abs(choice.change_rates[0] - 0.5) < 0.08
    assert abs(emp.epsilons[0] / tem.epsilons[0] - 1.0) > 0.5


@pytest.mark.parametrize("name", ["random-sub", "random-r"])
def test_a_mechanism_without_epsilon_is_refused(name: str, glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match=f"mechanism {name} takes no epsilon"):
        auto_epsilons(name, glove_20k)


def test_the_rates_reported_are_measured_at_the_epsilons_chosen(glove_20k: Embeddings) -> None:
    """Every epsilon is measured as it is returned (3 significant digits), and the search
    takes far fewer releases than a bisection per target (about 6 each over 7 targets)."""
    choice = auto_epsilons("emp-text", glove_20k, seed=0)
    probe = probe_words(glove_20k)
    for epsilon, measured in zip(choice.epsilons, choice.change_rates, strict=True):
        assert float(f"{epsilon:.3g}") == epsilon
        # built as the calibration builds it (entities kept, the fixed word for unknown words:
        # the statement keys the draws)
        mech = create_mechanism(
            "emp-text", **mechanism_parameters("emp-text", epsilon, embeddings=glove_20k)
        )
        assert change_rate(mech, probe, seed=0) == measured
    assert choice.releases <= 35  # 32 with these draws
    assert choice.to_dict()["releases"] == choice.releases
