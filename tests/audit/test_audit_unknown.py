"""The audit case of an unknown word under oov 'map' (issue 30 D): the word drawn in its place
keeps emp-text within ``eps * max_u d(u, v)``; an implementation that feeds a fixed word far
from the line (what a placeholder outside the vocabulary's range does) is flagged."""

from __future__ import annotations

import numpy as np

from authormask.audit.case_spec import Context, core_mechanism
from authormask.audit.cases import AUDITORS
from authormask.audit.cases_earth_movers import emp_text_sampler
from authormask.audit.core import audit_case, audit_sampler
from authormask.embeddings import Embeddings


def _case():
    (spec,) = [s for s in AUDITORS["emp-text"] if s.case == "line-1d-unknown"]
    return spec.build(Context())


def test_an_unknown_word_stays_within_its_stated_distance() -> None:
    case = _case()
    assert np.isclose(case.epsilon_stated, 2.0 * 1.2)  # left is 1.2 from one
    result = audit_case(case, samples=60_000, confidence=0.999, random_state=3)
    assert result.passed
    assert result.epsilon_lower_bound >= 0.5 * result.epsilon_stated  # the audit has power


def test_a_fixed_far_placeholder_is_flagged() -> None:
    case = _case()
    far = Embeddings(
        name="audit-line-1d+far",
        source="test",
        words=("left", "zero", "one", "right", "far"),
        vectors=np.array([[-0.2], [0.0], [1.0], [1.2], [-3.0]], dtype=np.float32),
    )
    mech = core_mechanism(
        "emp-text",
        epsilon=2.0,
        embeddings=far,
        vocab_size=None,
        stopwords="none",
        oov_map_to="far",
    )
    result = audit_sampler(
        emp_text_sampler(mech),
        case.neighbours,
        epsilon_stated=case.epsilon_stated,
        samples=60_000,
        confidence=0.999,
        random_state=3,
    )
    assert not result.passed
