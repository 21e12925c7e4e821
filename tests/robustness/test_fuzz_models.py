"""Model mechanisms (ER-AE, AE-DP) on arbitrary text and epsilons, with a tiny trained model:
a release with its statement or a one-line AuthormaskError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fuzzing import EPSILON, RAW_BYTES, TEXTS, fuzz, release_or_refuse
from hypothesis import event, given
from hypothesis import strategies as st

import authormask as am


@pytest.fixture(scope="module")
def erae_model(tiny_erae_dir: Path) -> Any:
    from authormask.models.erae import load_model

    return load_model(tiny_erae_dir)


@fuzz(30)
@given(texts=TEXTS, epsilon=EPSILON)
def test_erae_releases_or_refuses(erae_model: Any, texts: list[str], epsilon: float) -> None:
    release_or_refuse(texts, lambda: am.create_mechanism("erae", epsilon=epsilon, model=erae_model))


@fuzz(20)
@given(
    data=RAW_BYTES,
    mechanism=st.sampled_from(["erae", "ae-dp", "random-r"]),
    fmt=st.sampled_from(["txt", "jsonl"]),
)
def test_model_mechanisms_on_random_bytes(
    authormask, tiny_erae_dir: Path, tmp_path: Path, data: bytes, mechanism: str, fmt: str
) -> None:
    """From the CLI: ae-dp refuses an ER-AE model in one line; erae and random-r (taking the
    model's vocabulary) release the bytes or refuse them in one line."""
    doc = tmp_path / "doc.bin"
    doc.write_bytes(data)
    args = ["obfuscate", str(doc), "-m", mechanism, "--model", str(tiny_erae_dir), "--format", fmt]
    if mechanism != "random-r":
        args += ["-e", "5"]
    result = authormask(*args).check()
    event(f"{mechanism}: {result}")
    assert result == "refused" or mechanism != "ae-dp"
