"""The sweep on a Dask cluster (a real LocalCluster of two single-threaded worker processes):
the same cells, in the same order, with the same statements as the local run, including the
measures that train a model in each worker (fastText) or read a neural encoder (MiniLM); and
one resume cache for both engines."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest

from authormask.core.executors import Engine
from authormask.embeddings import Embeddings
from authormask.evaluation import Study, SweepConfig, SweepResult, run_sweep
from authormask.evaluation.protocols.fernandes2019 import runner as sweep_module
from authormask.text import TextPreparer

AUTHOR = SweepConfig(
    epsilons=(None, 5.0),
    mechanisms=("emp-bag", "emp-text"),
    attackers=("koppel-cosine", "svm", "adaptive-svm", "1nn-emd"),
    utilities=("similarity",),
    repetitions=2,
    seed=3,
    koppel_iterations=20,
)
TOPIC = SweepConfig(
    epsilons=(None, 10.0),
    mechanisms=("emp-bag",),
    attackers=(),
    utilities=("fasttext",),
    seed=0,
)


@pytest.fixture(scope="module")
def dask_engine(dask_cluster: tuple[Any, Any]) -> Engine:
    """The session's local cluster (its workers keep what they loaded)."""
    cluster, _ = dask_cluster
    return Engine("dask", scheduler=cluster.scheduler_address)


@pytest.fixture(scope="module")
def small_study(aaac_study: Study, cut_study: Callable[[Study, int], Study]) -> Study:
    """AAAC problem A cut to N = 40 content words per text (13 snippets, 13 known texts)."""
    return cut_study(aaac_study, 40)


@pytest.fixture(scope="module")
def local_result(small_study: Study, glove_20k: Embeddings, preparer: TextPreparer) -> SweepResult:
    return run_sweep(small_study, embeddings=glove_20k, preparer=preparer, config=AUTHOR)


def values(result: SweepResult) -> list[dict[str, object]]:
    """Every field of every cell but its timing, in the result's order."""
    return [{k: v for k, v in asdict(c).items() if k != "seconds"} for c in result.cells]


def test_dask_cells_are_the_local_cells(
    small_study: Study,
    glove_20k: Embeddings,
    preparer: TextPreparer,
    local_result: SweepResult,
    dask_engine: Engine,
) -> None:
    ticks: list[int] = []
    result = run_sweep(
        small_study,
        embeddings=glove_20k,
        preparer=preparer,
        config=AUTHOR,
        engine=dask_engine,
        progress=ticks.append,
    )
    assert values(result) == values(local_result)  # float values compared exactly
    assert result.statements == local_result.statements
    assert list(result.statements) == list(local_result.statements) == ["emp-bag/5", "emp-text/5"]
    assert sum(ticks) == len(local_result.cells) == 2 * 3 * 5
    assert result.provenance["engine"].startswith("dask")
    assert local_result.provenance["engine"] == "local (in-process)"


def test_fasttext_topics_on_dask(
    bbc_study: Study, glove_20k: Embeddings, preparer: TextPreparer, dask_engine: Engine
) -> None:
    """fastText trains in each worker (one thread, seeded): the same predictions as here."""
    local = run_sweep(bbc_study, embeddings=glove_20k, preparer=preparer, config=TOPIC)
    result = run_sweep(
        bbc_study, embeddings=glove_20k, preparer=preparer, config=TOPIC, engine=dask_engine
    )
    assert values(result) == values(local)
    assert result.statements == local.statements
    assert {c.measure for c in result.cells} == {"fasttext"}


def test_one_cache_for_both_engines(
    small_study: Study,
    glove_20k: Embeddings,
    preparer: TextPreparer,
    local_result: SweepResult,
    dask_engine: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def sweep(config: SweepConfig, engine: Engine | None = None) -> SweepResult:
        return run_sweep(
            small_study,
            embeddings=glove_20k,
            preparer=preparer,
            config=config,
            cache_dir=tmp_path,
            engine=engine,
        )

    config = replace(AUTHOR, utilities=())
    expected = [v for v in values(local_result) if v["measure"] != "similarity"]
    # a sweep stopped after the first repetition, locally ...
    first = sweep(replace(config, repetitions=1))
    # ... resumes on the cluster: only the second repetition's groups are sent
    with caplog.at_level(logging.INFO, logger="authormask.evaluation.protocols.fernandes2019"):
        resumed = sweep(config, dask_engine)
    assert "measuring 2 of 6 groups" in caplog.text
    assert values(resumed) == expected
    assert resumed.statements == local_result.statements
    seconds = {(c.mechanism, c.epsilon, c.repetition, c.measure): c.seconds for c in first.cells}
    restored = [c for c in resumed.cells if c.repetition == 0]
    assert len(restored) == len(first.cells)
    assert all(c.seconds == seconds[c.mechanism, c.epsilon, 0, c.measure] for c in restored)

    # what the workers measured (releases and cells) is in the cache: a local rerun computes
    # nothing, and every cell keeps the timing it was measured with
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a release ran again despite the cache")

    monkeypatch.setattr(sweep_module, "release", refuse)
    again = sweep(config)
    assert values(again) == expected
    assert again.statements == local_result.statements
    assert [c.seconds for c in again.cells] == [c.seconds for c in resumed.cells]
