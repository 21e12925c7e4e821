"""The default-path benchmark (``benchmarks/default_path.py``) reads the entity step's share
of a release round by round: each default run beside the ``--entities keep`` run of its round,
which saw the same load. On a noisy machine the ratio of the two medians, from runs of other
minutes, gave 31% and 37% where the two commands taking turns gave 19-28% (nineteenth
session)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "default_path.py"


def _benchmark() -> Any:
    spec = importlib.util.spec_from_file_location("default_path_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_entity_share_pairs_the_runs_of_a_round() -> None:
    bench = _benchmark()
    default, keep = bench.Runs(), bench.Runs()
    # a slow minute in the second round slows both of its runs: its pair still says 20%
    for d, k in ((20.0, 16.0), (30.0, 24.0), (21.0, 16.8)):
        default.add(d, 0.0)
        keep.add(k, 0.0)
    mid, low, high = bench.entity_share(default, keep)
    assert mid == pytest.approx(0.2) and low == pytest.approx(0.2) and high == pytest.approx(0.2)
    # the ratio of the medians would have read (21 - 16.8) / 21 = 20% here too, but not when
    # the slow minute falls on one command only
    default.add(30.0, 0.0)
    keep.add(17.0, 0.0)
    mid, low, high = bench.entity_share(default, keep)
    assert low == pytest.approx(0.2) and high == pytest.approx(13 / 30)
    assert mid == pytest.approx(0.2)
