"""fernandes2019 as an :class:`~authormask.evaluation.protocols._interface.EvaluationProtocol`:
its inputs (:class:`SweepInputs`: one study, or a PAN collection swept problem by problem), its
reading of the options (:meth:`Fernandes2019.plan`: the study's settings, the measures the study
supports, the epsilons ``auto`` calibrates) and its run (:func:`~.sweep.run_sweep`, or
:func:`~.sweep.run_collection_sweep` on a collection)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from authormask.core.executors import Engine
from authormask.datasets import PanCollection, is_pan_folder, read_pan_collection
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols._interface import EvaluationProtocol, Plan
from authormask.evaluation.protocols._options import OptionError, Options
from authormask.evaluation.protocols.fernandes2019.config import (
    DEFAULT_SWEEP_MECHANISMS,
    SWEEP_MECHANISMS,
    SweepConfig,
    applicable_measures,
    check_applicable,
    releases_bag,
)
from authormask.evaluation.protocols.fernandes2019.results import CollectionSweep, SweepResult
from authormask.evaluation.protocols.fernandes2019.sweep import run_collection_sweep, run_sweep
from authormask.evaluation.study import Study, build_pan_study, build_study
from authormask.text.prepare import TextPreparer

__all__ = ["PROTOCOL", "Fernandes2019", "SweepInputs"]


@dataclass(frozen=True)
class SweepInputs:
    """What a sweep runs on besides its config.

    Attributes
    ----------
    data
        One study (:func:`~authormask.evaluation.study.build_study`) or a PAN collection (one
        closed-set author study per problem).
    embeddings
        The embeddings the studies are built with.
    preparer
        The preparation the studies are built with.
    length
        N, the content words of a PAN problem's study, or ``None`` for each problem's
        shortest query.
    engine
        Where the cells are measured, or ``None`` for this process.
    """

    data: Study | PanCollection
    embeddings: Embeddings
    preparer: TextPreparer
    length: int | None = None
    engine: str | Engine | None = None


def _default_measures(
    study: Study, mechanisms: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The default attackers and utilities of ``study`` (MiniLM similarity only where some
    mechanism releases text in place)."""
    attackers, utilities = applicable_measures(study)
    if all(releases_bag(m) for m in mechanisms if m in SWEEP_MECHANISMS):
        # MiniLM similarity is meant for readable text: of a mechanism that releases in place
        utilities = tuple(u for u in utilities if u != "similarity")
    return attackers, utilities


def _preparer(options: Options, embeddings: Embeddings) -> TextPreparer:
    """The preparation of the study: the unknown-word policy ``oov`` (default the preparer's)."""
    oov = options["oov"]
    return TextPreparer(embeddings) if oov is None else TextPreparer(embeddings, oov=oov)


class Fernandes2019:
    """The privacy/utility sweep of Fernandes et al. (2019, Table 1) on any corpus, or on every
    problem of a PAN collection, pooled (:mod:`authormask.evaluation.protocols.fernandes2019`)."""

    name: str = "fernandes2019"
    Config: type[SweepConfig] = SweepConfig
    results: tuple[type, ...] = (SweepResult, CollectionSweep)
    progress_units: tuple[str, str] = ("measuring", "cell")

    def plan(self, options: Options) -> Plan[SweepConfig, SweepInputs]:
        """The study of the corpus ``dataset`` names (its task, N and which texts, from the
        options or the protocol's defaults), the measures it supports, and the config; on a
        PAN collection, every problem's study is built when the sweep runs (the first stands
        for all in the checks here).

        Parameters
        ----------
        options
            The options of the run.

        Returns
        -------
        Plan[SweepConfig, SweepInputs]
            The config and the inputs.
        """
        mechanisms = options.mechanisms(
            SweepConfig.QUICK_MECHANISMS if options.quick else DEFAULT_SWEEP_MECHANISMS
        )
        if is_pan_folder(Path(options["dataset"])):
            return self._plan_collection(options, mechanisms)
        corpus = options.corpus(self.name)
        task = options["task"] or "auto"
        if task == "auto":
            task = "author" if corpus.authors else "topic"
        options.refuse(
            [n for n, t in SweepConfig.TASK_OPTIONS.items() if t != task],
            f"apply to {'an' if task == 'author' else 'a'} {task} study (`protocol` "
            f"{self.name}, `task` {task})",
        )
        all_known = options["all_known"]
        if all_known is None and not options.given & {"known_words", "snippet_words"}:
            # --quick: every known text where the corpus has splits (SweepConfig.QUICK_SETTINGS)
            pick = bool(options.pick("all_known", SweepConfig))
            all_known = pick and task == "author" and corpus.has_splits
        if all_known:
            options.refuse(
                ["known_words", "snippet_words"],
                "apply with `all_known` (every training and test document is used)",
            )
        emb = options.embeddings(SweepConfig)
        preparer = _preparer(options, emb)
        study = build_study(
            corpus,
            preparer,
            task=task,
            known_words=options.pick("known_words", SweepConfig),
            snippet_words=options.pick("snippet_words", SweepConfig),
            length=options.pick("length", SweepConfig),
            max_authors=options.pick("max_authors", SweepConfig),
            per_topic=options.pick("per_topic", SweepConfig),
            random_state=options.pick("seed", SweepConfig),
            all_known=bool(all_known),
        )
        config = self._config(options, study, mechanisms, emb)
        d = study.describe()
        options.echo(
            f"{corpus.name}: {d['task']} study, {d['queries']} snippets and {d['known_texts']} "
            f"known texts of N={d['length_N']} words; {len(config.mechanisms)} mechanism(s) x "
            f"{len(config.epsilons)} epsilon(s) x {len(config.measures)} measure(s)"
        )
        self._echo_engine(options)
        return Plan(config, SweepInputs(study, emb, preparer, engine=options.engine))

    def _plan_collection(
        self, options: Options, mechanisms: tuple[str, ...]
    ) -> Plan[SweepConfig, SweepInputs]:
        """A PAN folder: one closed-set author study per problem, then pooled."""
        options.refuse(
            ["max_authors", "known_words", "snippet_words", "per_topic", "dataset_path"],
            f"apply to a PAN collection (`protocol` {self.name} runs one author study per "
            "problem: its candidates, every known text, every unknown text by a candidate)",
        )
        if options["task"] == "topic":
            raise OptionError(
                "`task` topic does not apply to a PAN collection: its problems are author studies"
            )
        collection = read_pan_collection(Path(options["dataset"]))
        emb = options.embeddings(SweepConfig)
        preparer = _preparer(options, emb)
        length = options.pick("length", SweepConfig)
        first = build_pan_study(collection.problems[0], preparer, length=length)
        config = self._config(options, first, mechanisms, emb)
        options.echo(
            f"{collection.name}: {len(collection.problems)} PAN problem(s), one author study "
            f"each; {len(config.mechanisms)} mechanism(s) x {len(config.epsilons)} epsilon(s) "
            f"x {len(config.measures)} measure(s)"
        )
        self._echo_engine(options)
        inputs = SweepInputs(collection, emb, preparer, length=length, engine=options.engine)
        return Plan(config, inputs)

    @staticmethod
    def _config(
        options: Options, study: Study, mechanisms: tuple[str, ...], emb: Embeddings
    ) -> SweepConfig:
        """The config of the options on ``study``, checked against it, with ``epsilons`` auto
        calibrated."""
        default_attackers, default_utilities = _default_measures(study, mechanisms)
        if options.quick:
            left_out = SweepConfig.QUICK_LEFT_OUT
            default_attackers = tuple(a for a in default_attackers if a not in left_out)
        config = SweepConfig(
            epsilons=(None,) if options.auto else options.pick("epsilons", SweepConfig),
            mechanisms=mechanisms,
            attackers=options.measures("attackers", default_attackers),
            utilities=options.measures("utilities", default_utilities),
            repetitions=options.pick("repetitions", SweepConfig),
            seed=options.pick("seed", SweepConfig),
            koppel_iterations=options.pick("koppel_iterations", SweepConfig),
            **options.rate_option(),
        )
        check_applicable(study, config)
        options.check_target(config.attackers, config.utilities, what="this sweep")
        return replace(config, **options.auto_epsilons(mechanisms, emb))

    @staticmethod
    def _echo_engine(options: Options) -> None:
        engine = options.engine
        if engine is not None and engine.kind != "local":
            options.echo(f"engine: {engine.describe()}")

    def run(
        self,
        config: SweepConfig,
        inputs: SweepInputs,
        *,
        cache_dir: str | Path | None = None,
        progress: Callable[[int], None] | None = None,
        on_total: Callable[[int], None] | None = None,
    ) -> SweepResult | CollectionSweep:
        """The sweep of ``config`` on the study (a :class:`SweepResult`), or on every problem of
        the collection (a :class:`CollectionSweep`).

        Parameters
        ----------
        config
            The sweep's config.
        inputs
            The study or collection, and what it is built with.
        cache_dir
            The results cache's folder, or ``None``.
        progress
            Called with the number of cells finished, or ``None``.
        on_total
            Called once, first, with the number of cells, or ``None``.

        Returns
        -------
        SweepResult | CollectionSweep
            The result.
        """
        if isinstance(inputs.data, PanCollection):
            return run_collection_sweep(
                inputs.data,
                embeddings=inputs.embeddings,
                preparer=inputs.preparer,
                config=config,
                length=inputs.length,
                cache_dir=cache_dir,
                progress=progress,
                on_total=on_total,
                engine=inputs.engine,
            )
        return run_sweep(
            inputs.data,
            embeddings=inputs.embeddings,
            preparer=inputs.preparer,
            config=config,
            cache_dir=cache_dir,
            progress=progress,
            on_total=on_total,
            engine=inputs.engine,
        )


#: the protocol, as :data:`authormask.evaluation.protocols.PROTOCOLS` holds it (typed as the
#: interface, so that mypy checks it implements it)
PROTOCOL: EvaluationProtocol[SweepConfig, SweepInputs, SweepResult | CollectionSweep] = (
    Fernandes2019()
)
