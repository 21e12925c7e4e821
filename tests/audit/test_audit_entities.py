"""`authormask audit` includes the entity step (issue 47): emp-write as the user runs it."""

from __future__ import annotations

import pytest

from authormask.audit.by_mechanism import emp_write
from authormask.audit.case_spec import Context
from authormask.audit.core import audit_case


@pytest.mark.parametrize("name", ["entities-casing", "entities-unreleased"])
def test_the_entity_step_holds_its_statement(cache_dir, name: str) -> None:
    (spec,) = [c for c in emp_write("emp-write") if c.case == name]
    case = spec.build(Context(cache_dir=cache_dir))
    result = audit_case(case, samples=1000, random_state=3)
    assert result.passed, result
    if name == "entities-unreleased":
        # the two texts differ only in a word emp-write never releases: the same words are
        # given to the mechanism, with the same draws of listed words (an organisation of one
        # word and one of two drew from other patterns before: lower bound 3.9 against 0)
        assert case.epsilon_stated == 0.0 and result.epsilon_lower_bound == 0.0
    else:
        assert 0.0 < result.epsilon_lower_bound < case.epsilon_stated
