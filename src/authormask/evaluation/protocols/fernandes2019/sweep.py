"""Running a fernandes2019 sweep: :func:`run_sweep` measures every group of a study's sweep
(:mod:`.runner`) in this process or on a Dask cluster and gathers the cells, the statements
and the provenance; :func:`run_collection_sweep` sweeps every problem of a PAN collection with a
seed of its own (:func:`problem_seed`) and pools them."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from authormask._process import process_memo
from authormask.core.executors import Engine, check_engine, open_executor
from authormask.datasets.pan import PanCollection
from authormask.embeddings._base import Embeddings
from authormask.evaluation.cache import cache_key
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.protocols._common import (
    derive_seed,
    mechanism_code,
    package_versions,
    problem_code,
)
from authormask.evaluation.protocols.fernandes2019.config import (
    SweepConfig,
    check_applicable,
    sweep_cells,
)
from authormask.evaluation.protocols.fernandes2019.results import (
    Cell,
    CollectionSweep,
    SweepResult,
    pool_sweeps,
)
from authormask.evaluation.protocols.fernandes2019.runner import (
    _Group,
    _GroupKey,
    _groups,
    _Runner,
)
from authormask.evaluation.study import Item, Study, build_pan_study
from authormask.exceptions import InvalidParameterError
from authormask.text.prepare import TextPreparer

__all__ = ["problem_seed", "run_collection_sweep", "run_sweep"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Shared:
    """What every worker needs to measure any group: sent to each worker once. The embeddings
    travel as their recipe (each process loads them once, memory-mapped)."""

    study: Study
    embeddings: Embeddings
    preparer: TextPreparer
    config: SweepConfig
    cache_dir: str | None
    key: str  # a digest of everything above: the worker's runner is built once per key


def _shared_key(runner: _Runner, cache_dir: Path | None) -> str:
    """A digest of everything a runner depends on (the cache's base key holds the texts, the
    embeddings and the preparation; the labels, the training texts and the settings are added)."""

    def items(seq: Sequence[Item]) -> list[list[Any]]:
        return [[i.item_id, i.text, list(i.words), i.author, i.topic] for i in seq]

    study = runner.study
    return cache_key(
        {
            "base": runner.base_hash,
            "task": study.task,
            "length": study.length,
            "known": items(study.known),
            "queries": items(study.queries),
            "train": items(study.train),
            "config": asdict(runner.config),
            "cache_dir": None if cache_dir is None else str(cache_dir),
        }
    )


def _measure_group(shared: _Shared, group: _GroupKey) -> _Group:
    """A worker's task: the cells of one group. Its runner (study, classifiers, fastText) is
    built once per process and sweep, the sentence encoder once per process; nearest-neighbour
    attackers search with one thread (a Dask worker runs one task per thread; the distances,
    hence the cells, are the same)."""

    def build() -> _Runner:
        runner = _Runner(
            shared.study,
            shared.embeddings,
            shared.preparer,
            replace(shared.config, n_jobs=1),
            Path(shared.cache_dir) if shared.cache_dir is not None else None,
        )
        runner._similarity = process_memo("sweep-sentence-similarity", SentenceSimilarity)
        return runner

    return process_memo("sweep-runner:" + shared.key, build).group(group)


def _log_cell(cell: Cell) -> None:
    logger.info(
        "%s eps=%s rep=%d %s: %.3f",
        cell.mechanism,
        cell.epsilon,
        cell.repetition,
        cell.measure,
        cell.value,
    )


def _run_groups(
    runner: _Runner,
    groups: list[_GroupKey],
    engine: Engine,
    progress: Callable[[int], None] | None,
) -> list[_Group]:
    """Every group's cells, in the order of ``groups``: in this process (local), or on the
    cluster for those not entirely in the cache."""
    if engine.kind == "local":

        def on_cell(cell: Cell) -> None:
            _log_cell(cell)
            if progress is not None:
                progress(1)

        return [runner.group(g, on_cell) for g in groups]
    done: dict[int, _Group] = {}
    todo: list[int] = []
    for index, group in enumerate(groups):
        if runner.is_cached(group):
            done[index] = runner.group(group)  # read back here, statement included
            if progress is not None:
                progress(len(done[index].cells))
        else:
            todo.append(index)
    if todo:
        cache_dir = runner.cache.folder.absolute() if runner.cache.folder is not None else None
        shared = _Shared(
            runner.study,
            runner.embeddings,
            runner.preparer,
            runner.config,
            None if cache_dir is None else str(cache_dir),
            _shared_key(runner, cache_dir),
        )
        logger.info(
            "measuring %d of %d groups on %s (%d from the cache)",
            len(todo),
            len(groups),
            engine.describe(),
            len(groups) - len(todo),
        )
        with open_executor(engine) as executor:
            for k, result in executor.map(_measure_group, [groups[i] for i in todo], shared=shared):
                index = todo[k]
                for cell in result.cells:  # the worker cached them too, if it can reach the folder
                    runner.cache.put(
                        "cell",
                        runner.cell_key(
                            cell.measure, cell.mechanism, cell.epsilon, cell.repetition
                        ),
                        asdict(cell),
                    )
                    _log_cell(cell)
                done[index] = result
                if progress is not None:
                    progress(len(result.cells))
    return [done[i] for i in range(len(groups))]


def run_sweep(
    study: Study,
    *,
    embeddings: Embeddings,
    preparer: TextPreparer,
    config: SweepConfig,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    engine: str | Engine | None = None,
) -> SweepResult:
    """Run every (mechanism, epsilon, repetition, measure) cell of ``config`` on ``study``.

    Parameters
    ----------
    study : Study
        Known texts, query snippets and training texts (:func:`build_study`).
    embeddings : Embeddings
        The mechanisms' metric space (one Embeddings object, so every epsilon shares one search
        index).
    preparer : TextPreparer
        The preparation the study was built with: every mechanism uses its stopwords and
        unknown-word policy, as far as its registry spec takes them; an in-place mechanism
        (``emp-text``, ``mahalanobis``, ``tem``, ``santext``) maps unknown words where the
        preparer drops them (it cannot drop them).
    config : SweepConfig
        Epsilons (``None`` = unmodified), mechanisms (:data:`SWEEP_MECHANISMS`), measures,
        repetitions and the base seed; every cell's seed derives from it and from the
        mechanism's fixed code, so the sweep is reproducible and independent of the order of
        ``config.mechanisms``.
    cache_dir : str | Path | None
        Where obfuscated snippets and finished cells are cached; a rerun resumes from it, under
        either engine.
    progress : Callable[[int], None] | None
        Called with the number of cells finished (1 after each cell on the local engine; a
        group's cells at once on Dask).
    on_total : Callable[[int], None] | None
        Called once, first, with the number of cells (:func:`sweep_cells`).
    engine : str | Engine | None
        ``"local"``, ``"dask"`` or an :class:`~authormask.core.executors.Engine`: where the
        cells are measured: in this process, one after the other (default), or on a Dask
        cluster (``Engine("dask", workers=2)`` starts a local cluster of two worker processes,
        ``Engine("dask", scheduler=ADDRESS)`` uses an existing one). On Dask each task is one
        (mechanism, epsilon, repetition) group with all its measures; groups whose cells are
        all in the cache are read here and not sent. The study, the preparation and the
        embeddings' recipe go to every worker once; each worker builds its classifiers once and
        writes the cells it measures to ``cache_dir`` (which the workers must be able to reach:
        a local cluster can), and this process records them too. The cells, their order and
        the statements are those of the local run; only the timings differ.

    Returns
    -------
    SweepResult
        Every cell, the chance baselines, the mechanisms' statements and the provenance.
    """
    check_applicable(study, config)
    chosen = check_engine(engine)
    if on_total is not None:
        on_total(sweep_cells(config))
    start = time.perf_counter()
    runner = _Runner(study, embeddings, preparer, config, Path(cache_dir) if cache_dir else None)
    cells: list[Cell] = []
    statements: dict[str, Any] = {}
    groups = _groups(config)
    for (mechanism, epsilon, _), group in zip(
        groups, _run_groups(runner, groups, chosen, progress), strict=True
    ):
        cells.extend(group.cells)
        if group.statement is not None:
            statements.setdefault(f"{mechanism}/{epsilon:g}", group.statement)
    baselines: dict[str, float] = {}
    if study.task == "author":
        baselines["author"] = len(study.queries) / len(study.authors)
    if study.has_topics:
        baselines["topic"] = len(study.queries) / len(study.topics)
    provenance = {
        "versions": package_versions(),
        "embeddings": embeddings.identity.to_dict(),
        "oov": preparer.oov,
        "stopwords": len(preparer.stopwords),
        "engine": chosen.describe(),
        # the epsilon of each mechanism's unmodified row (noise off; None: its samplers
        # switched off, no noise drawn)
        "noise_off_epsilon": {m: runner.noise_off_epsilon(m) for m in config.mechanisms},
        "noise_off": "each mechanism's own preparation and rendering with its samplers switched "
        "off (authormask.core.registry.create_noise_off), where noise_off_epsilon is None; "
        "else the release at that epsilon (a rate-swept baseline: rate 0)",
        "seeds": "cell seed = SeedSequence(entropy=config.seed, "
        "spawn_key=(mechanism code, repetition, *epsilon_key(epsilon), role)); epsilon_key = "
        "(1, the two 32-bit halves of epsilon's IEEE-754 double), or (0, 0, 0) for none; "
        "mechanism code = the seed code of its registry spec, MechanismSpec.seed_code ("
        + ", ".join(f"{m} {mechanism_code(m)}" for m in config.mechanisms)
        + "), independent of the order of config.mechanisms; "
        "role 0 = snippets, 1 = known texts (adaptive), 2 = attacker",
    }
    return SweepResult(
        config=config,
        study=study.describe(),
        cells=tuple(cells),
        baselines=baselines,
        statements=statements,
        provenance=provenance,
        seconds=time.perf_counter() - start,
    )


# --- a PAN collection: one author study per problem, pooled ------------------------------------


def problem_seed(base: int, problem: str) -> int:
    """The base seed of one problem's sweep: ``SeedSequence(entropy=base,
    spawn_key=(sha256(problem)[:4],))``'s first word, so no two problems draw the same noise
    and a problem's numbers do not depend on which other problems the collection holds.

    Parameters
    ----------
    base
        The collection's base seed.
    problem
        The problem's name.

    Returns
    -------
    int
        The problem's base seed.
    """
    return derive_seed(base, problem_code(problem))


def run_collection_sweep(
    collection: PanCollection,
    *,
    embeddings: Embeddings,
    preparer: TextPreparer,
    config: SweepConfig,
    length: int | None = None,
    cache_dir: str | Path | None = None,
    progress: Callable[[int], None] | None = None,
    on_total: Callable[[int], None] | None = None,
    engine: str | Engine | None = None,
) -> CollectionSweep:
    """The sweep of ``config`` on every problem of a PAN collection, and the problems pooled.

    Each problem is its own closed-set author study
    (:func:`~authormask.evaluation.study.build_pan_study`: known texts in pieces of N content
    words, every unknown text by a candidate a query of its first N; ``length`` = N, default the
    problem's shortest query) and is swept by :func:`run_sweep` with its own base seed
    (:func:`problem_seed`); every study is built, and checked against ``config``, before any
    release. ``pooled`` sums the counts over problems (:func:`pool_sweeps`). ``progress``,
    ``on_total``, ``cache_dir`` and ``engine`` are as in :func:`run_sweep` (``on_total`` once,
    with the cells of every problem).

    Parameters
    ----------
    collection
        The PAN collection.
    embeddings
        The mechanisms' metric space.
    preparer
        The preparation of the studies.
    config
        The sweep's config (its seed is each problem's base seed's root).
    length
        N, or ``None`` for each problem's shortest query.
    cache_dir
        The results cache's folder, or ``None``.
    progress
        Called with the number of cells finished, or ``None``.
    on_total
        Called once, first, with the cells of every problem, or ``None``.
    engine
        Where the cells are measured (as in :func:`run_sweep`).

    Returns
    -------
    CollectionSweep
        Each problem's result and the problems pooled.

    Raises
    ------
    InvalidParameterError
        If a measure of ``config`` cannot run on a problem's study (the message names the
        problem).
    """
    studies = [build_pan_study(p, preparer, length=length) for p in collection.problems]
    for problem, study in zip(collection.problems, studies, strict=True):
        try:
            check_applicable(study, config)
        except InvalidParameterError as exc:
            raise InvalidParameterError(f"PAN problem {problem.name}: {exc}") from None
    if on_total is not None:
        on_total(sweep_cells(config) * len(studies))
    results = [
        run_sweep(
            study,
            embeddings=embeddings,
            preparer=preparer,
            config=replace(config, seed=problem_seed(config.seed, problem.name)),
            cache_dir=cache_dir,
            progress=progress,
            engine=engine,
        )
        for problem, study in zip(collection.problems, studies, strict=True)
    ]
    return CollectionSweep(
        collection=collection.summary(),
        problems=tuple(results),
        pooled=pool_sweeps(results, name=collection.name, seed=config.seed),
    )
