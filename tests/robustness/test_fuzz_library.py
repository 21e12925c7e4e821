"""Library fuzz: ``authormask.release`` on arbitrary Unicode text and arbitrary epsilons either
returns a release with its statement or raises an :class:`AuthormaskError` with a one-line message.
Any other exception is a bug.

Examples are derandomized (the same every run, never flaky) and small, so the suite stays fast.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from fuzzing import TEXTS, fuzz
from hypothesis import event, given
from hypothesis import strategies as st

import authormask as am
from authormask.accounting import PrivacyStatement
from authormask.embeddings import Embeddings
from authormask.exceptions import AuthormaskError

SPECIAL_EPSILONS = [
    1e-320,
    5e-324,
    1e-300,
    1e-40,
    1e300,
    1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
    -1.0,
    0.0,
    -0.0,
]
_VALID_EPSILON = st.one_of(
    st.sampled_from([1e-40, 1e-3, 1.0, 10.0, 1e10, 1e300]), st.floats(min_value=1e-6, max_value=1e6)
)
#: ordinary epsilons (first: the branch examples start from), tiny, huge, invalid, any float
EPSILON = st.one_of(_VALID_EPSILON, st.sampled_from(SPECIAL_EPSILONS), st.floats())

WS = re.compile(r"\s+")


def _one_line_error(exc: AuthormaskError) -> None:
    message = str(exc)
    assert message.strip(), f"{type(exc).__name__} with an empty message"
    assert "\n" not in message and "\r" not in message, message


def _release(texts: list[str], build: Any) -> am.Release | None:
    """The release, or None after checking the AuthormaskError it raised (any other exception
    propagates and fails the test)."""
    try:
        mechanism = build()
    except AuthormaskError as exc:
        _one_line_error(exc)
        event("parameters refused")
        return None
    try:
        released = am.release(texts, mechanism, random_state=0)
    except AuthormaskError as exc:
        _one_line_error(exc)
        event("documents refused")
        return None
    event("released")
    assert isinstance(released.statement, PrivacyStatement)
    assert released.statement.to_json()  # serialisable
    assert len(released.texts) == len(texts)
    assert all(isinstance(t, str) for t in released.texts)
    return released


@fuzz(200)
@given(texts=TEXTS, epsilon=EPSILON, oov=st.sampled_from([None, None, None, "map", "keep", "drop"]))
def test_emp_text_keeps_layout_or_refuses(
    glove_20k: Embeddings, texts: list[str], epsilon: float, oov: str | None
) -> None:
    released = _release(
        texts,
        lambda: am.create_mechanism(
            "emp-text", epsilon=epsilon, embeddings=glove_20k, vocab_size=20_000, oov=oov
        ),
    )
    if released is None:
        return
    for text, out in zip(texts, released.texts, strict=True):
        assert WS.findall(out) == WS.findall(text)  # the same sequence of whitespace runs


@fuzz(200)
@given(
    texts=TEXTS,
    epsilon=EPSILON,
    length=st.sampled_from([None, 1, 2, 3, "shortest"]),
    fixed_length=st.sampled_from([None, "truncate", "sample", "sample"]),
    oov=st.sampled_from([None, None, "drop", "keep", "map"]),
)
def test_emp_bag_releases_n_words_or_refuses(
    glove_20k: Embeddings,
    texts: list[str],
    epsilon: float,
    length: int | str | None,
    fixed_length: str | None,
    oov: str | None,
) -> None:
    released = _release(
        texts,
        lambda: am.create_mechanism(
            "emp-bag",
            epsilon=epsilon,
            embeddings=glove_20k,
            vocab_size=20_000,
            length=length,
            fixed_length=fixed_length,
            oov=oov,
        ),
    )
    if released is None or oov == "keep":
        return
    n = released.statement.parameters["N"]
    for doc in released:
        assert len(doc.text.split(" ")) == n and doc.bag is not None
        assert sum(doc.bag.values()) == n


@fuzz(40)
@given(texts=TEXTS, epsilon=EPSILON)
def test_syntf_releases_or_refuses(glove_20k: Embeddings, texts: list[str], epsilon: float) -> None:
    _release(
        texts,
        lambda: am.create_mechanism(
            "syntf", epsilon=epsilon, embeddings=glove_20k, vocab_size=20_000, output_size=2000
        ),
    )


@fuzz(60)
@given(texts=TEXTS, max_length=st.sampled_from([None, 1, 3, 50]))
def test_random_r_releases_or_refuses(
    glove_20k: Embeddings, texts: list[str], max_length: int | None
) -> None:
    _release(
        texts,
        lambda: am.create_mechanism(
            "random-r", embeddings=glove_20k, vocab_size=20_000, max_length=max_length
        ),
    )


@pytest.mark.parametrize(
    "value",
    [10**400, -(10**400), "1e400", "abc", "", [1.0], None, True, 1 + 2j, float("nan")],
    ids=repr,
)
def test_epsilon_of_any_type_is_refused_in_one_line(glove_20k: Embeddings, value: Any) -> None:
    """Found by this suite: ``epsilon=10**400`` (an int too large for a float) raised
    OverflowError from check_epsilon."""
    with pytest.raises(AuthormaskError) as info:
        am.create_mechanism("emp-text", epsilon=value, embeddings=glove_20k)
    _one_line_error(info.value)


@pytest.mark.parametrize("fixed_length", ["truncate", "sample"])
@pytest.mark.parametrize(
    "length", [10**7 + 1, 10**30, 1e300, 10**400], ids=["1e7+1", "1e30", "1e300-float", "1e400"]
)
def test_huge_bag_length_is_refused_in_one_line(
    glove_20k: Embeddings, length: Any, fixed_length: str
) -> None:
    """Found by this suite: N=10**30 with ``sample`` raised numpy's ValueError, N=10**10 asked
    for 80 GB, and N=10**400 raised OverflowError while writing the statement."""
    with pytest.raises(AuthormaskError) as info:
        mech = am.create_mechanism(
            "emp-bag", epsilon=1.0, embeddings=glove_20k, length=length, fixed_length=fixed_length
        )
        am.release(["The committee approved the budget."], mech, random_state=0)
    _one_line_error(info.value)
    assert "length N must be" in str(info.value)
