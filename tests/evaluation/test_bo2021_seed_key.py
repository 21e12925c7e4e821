"""bo2021's release seeds: an exact key for every epsilon (``int(1000 * epsilon)`` gave 7.0001
and 7.0004 the same noise, and truncated 1.001 to 1.0's), while an epsilon that is a whole
number of thousandths (every published and ``--quick`` one) and no epsilon keep the seeds of
earlier versions."""

from __future__ import annotations

import numpy as np
import pytest

from authormask.evaluation.protocols.bo2021.config import release_seed, thousandths


def _old_seed(base: int, code: int, epsilon: float | None) -> int:
    """The seed of earlier versions, written out: the mechanism's seed code and
    ``int(1000 * epsilon)``, 0 without epsilon."""
    key = (code, int(1000 * (epsilon or 0)))
    return int(np.random.SeedSequence(base, spawn_key=key).generate_state(1)[0])


# the seed codes the registry declares (never change: every seeded output depends on them)
CODES = {"emp-text": 1, "erae": 2, "syntf": 4, "random-r": 5, "emp-write": 11}


@pytest.mark.parametrize("base", [0, 3, 2**40])
@pytest.mark.parametrize("mechanism", ["emp-text", "erae", "syntf", "emp-write"])
@pytest.mark.parametrize(
    "epsilon", [0.5, 2.0, 5.0, 7.0, 8.4, 10.0, 30.0, 100.0, 300.0, 0.125, 1e7, 2.0**70]
)
def test_whole_thousandths_keep_their_seeds(base: int, mechanism: str, epsilon: float) -> None:
    assert release_seed(base, mechanism, epsilon) == _old_seed(base, CODES[mechanism], epsilon)


@pytest.mark.parametrize("base", [0, 7])
def test_no_epsilon_keeps_its_seed(base: int) -> None:
    assert release_seed(base, "random-r", None) == _old_seed(base, CODES["random-r"], None)


def test_close_epsilons_draw_different_noise() -> None:
    assert release_seed(0, "emp-text", 7.0001) != release_seed(0, "emp-text", 7.0004)
    # int(1000 * 1.001) is 1000 (1000 * 1.001 == 1000.9999999999999): 1.0's key before
    assert release_seed(0, "emp-text", 1.001) != release_seed(0, "emp-text", 1.0)
    assert release_seed(0, "emp-text", 7.0001) != release_seed(1, "emp-text", 7.0001)
    assert release_seed(0, "emp-text", 7.0001) != release_seed(0, "erae", 7.0001)


def test_every_epsilon_of_a_sweep_has_its_own_seed() -> None:
    # what a calibration chooses (any doubles) beside whole thousandths and close neighbours
    sweep = {
        *np.geomspace(0.05, 500.0, 400).tolist(),
        *(7.0 + i * 1e-4 for i in range(10)),
        *(k / 1000 for k in range(995, 1010)),
        7.0,
        8.4,
        np.nextafter(7.0, 8.0),
    }
    seeds = {release_seed(0, "emp-text", e) for e in sweep}
    assert len(seeds) == len(sweep)


def test_thousandths_is_exact() -> None:
    assert thousandths(8.4) == 8400 and thousandths(0.5) == 500 and thousandths(7.0) == 7000
    assert thousandths(7.0001) is None and thousandths(1.001) is None
    assert thousandths(np.nextafter(7.0, 8.0)) is None and thousandths(None) is None
