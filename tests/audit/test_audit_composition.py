"""The audit case of one text released twice with one seed (issue 30 B): the joint output of
two releases at epsilon 2 and 3 stays within 2 + 3, and a root keyed by the seed alone (the
bug it guards against) is flagged."""

from __future__ import annotations

from authormask.audit.case_spec import Context
from authormask.audit.cases import AUDITORS
from authormask.audit.cases_composition import (
    TWICE_EPSILONS,
    TWO_TEXTS_EPSILON,
    twice_mechanisms,
    twice_sampler,
)
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


def _two_texts_case():
    (spec,) = [s for s in AUDITORS["emp-text"] if s.case == "line-1d-two-texts"]
    return spec.build(Context())


def test_two_texts_with_one_seed_stay_within_one_release() -> None:
    case = _two_texts_case()
    assert case.epsilon_stated == TWO_TEXTS_EPSILON  # d(zero, one) = 1
    result = audit_case(case, samples=40_000, confidence=0.999, random_state=7)
    assert result.passed, result.epsilon_lower_bound


def test_noise_shared_by_position_across_texts_is_flagged(monkeypatch) -> None:
    # the bug of the independent audit (F5): a document's generator keyed by the seed, the
    # public parameters and its position only, so two texts released with one seed shared
    # their noise; the case must find it
    import authormask.core.stream as stream

    keyed = stream.document_generator
    monkeypatch.setattr(
        stream, "document_generator", lambda root, pos, content=None: keyed(root, pos)
    )
    case = _two_texts_case()
    result = audit_case(case, samples=40_000, confidence=0.999, random_state=7)
    assert not result.passed
    assert result.epsilon_lower_bound > result.epsilon_stated
