"""The audit case of one text released twice with one seed (issue 30 B): the joint output of
two releases at epsilon 2 and 3 stays within 2 + 3, and a root keyed by the seed alone (the
bug it guards against) is flagged."""

from __future__ import annotations

from authormask.audit.case_spec import Context
from authormask.audit.cases import AUDITORS
from authormask.audit.cases_composition import TWICE_EPSILONS, twice_mechanisms, twice_sampler
from authormask.audit.core import audit_case, audit_sampler
from authormask.randomness import root_seed_sequence


def _case():
    (spec,) = [s for s in AUDITORS["emp-text"] if s.case == "line-1d-twice"]
    return spec.build(Context())


def test_two_releases_with_one_seed_compose() -> None:
    case = _case()
    assert case.epsilon_stated == sum(TWICE_EPSILONS)  # d(zero, one) = 1
    result = audit_case(case, samples=60_000, confidence=0.999, random_state=7)
    assert result.passed
    # the bound is attained by the pair (right, right): the audit has power
    assert result.epsilon_lower_bound >= 0.6 * result.epsilon_stated


def test_shared_noise_across_epsilons_is_flagged() -> None:
    case = _case()
    broken = twice_sampler(
        twice_mechanisms("emp-text"), root=lambda seed, _key: root_seed_sequence(seed)
    )
    result = audit_sampler(
        broken,
        case.neighbours,
        epsilon_stated=case.epsilon_stated,
        samples=40_000,
        confidence=0.999,
        random_state=7,
        labels=case.labels,
    )
    assert not result.passed
    assert result.epsilon_lower_bound > result.epsilon_stated
