"""Every tokeniser rule that changes K is in the statement (issue 47, item 3): ``The dog
house.`` and ``The dog-house.`` gave emp-write K 2 and 0, and no statement said why."""

from __future__ import annotations

import pytest

from authormask.core import create_mechanism


@pytest.mark.parametrize("name", ["emp-write", "emp-text", "emp-doc", "emp-sentence"])
def test_the_statement_names_the_rules_that_change_k(name: str) -> None:
    m = create_mechanism(name, epsilon=7)
    policies = m.statement(seeded=False).policies
    rules = policies.get("tokens") or policies.get("nouns", "")
    for said in ("dog-house", "inner hyphens", "clitic", "changes K"):
        assert said in rules, (name, said)
    kinds = m.inner.content_kinds
    joined, split = kinds("The dog-house."), kinds("The dog house.")
    if name in ("emp-write", "emp-sentence"):  # unknown words dropped: K 0 against 2
        assert len(joined) == 0 and len(split) == 2
    else:  # unknown words mapped: the joined word is one content position
        assert len(joined) == 1 and len(split) == 2
    assert len(kinds("The dog/house.")) == len(split)  # cut at every other mark, as stated
