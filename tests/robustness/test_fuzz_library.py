"""Library fuzz: ``authormask.core`` on arbitrary Unicode text and arbitrary epsilons either
returns a release with its statement or raises an :class:`AuthormaskError` with a one-line message.
Any other exception is a bug.

Examples are derandomized (the same every run, never flaky) and small, so the suite stays fast.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from fuzzing import EPSILON, TEXTS, fuzz, one_line_error, release_or_refuse
from hypothesis import given
from hypothesis import strategies as st

import authormask as am
from authormask.embeddings import Embeddings
from authormask.exceptions import AuthormaskError
from authormask.text.clean import clean_text

WS = re.compile(r"\s+")


@fuzz(200)
@given(texts=TEXTS, epsilon=EPSILON, oov=st.sampled_from([None, None, None, "map", "keep", "drop"]))
def test_emp_text_keeps_layout_or_refuses(
    glove_20k: Embeddings, texts: list[str], epsilon: float, oov: str | None
) -> None:
    released = release_or_refuse(
        texts,
        lambda: am.create_mechanism(
            "emp-text",
            epsilon=epsilon,
            embeddings=glove_20k,
            vocab_size=20_000,
            oov=oov,
            entities="keep",  # the layout of the words given; surrogates keep it too
        ),
    )
    if released is None:
        return
    for text, out in zip(texts, released.texts, strict=True):
        # the same sequence of whitespace runs as the text every mechanism reads (invisible
        # characters removed, line breaks and spaces written plainly)
        assert WS.findall(out) == WS.findall(clean_text(text))


@fuzz(80)  # each example builds a mechanism and releases: the slowest fuzz test
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
    released = release_or_refuse(
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
    release_or_refuse(
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
    release_or_refuse(
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
    one_line_error(info.value)


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
    one_line_error(info.value)
    assert "`length` N must be" in str(info.value)
