"""``authormask evaluate``: an evaluation protocol run on a corpus, as one command (thin wrapper
over :func:`authormask.evaluation.run_sweep` for ``--protocol fernandes2019``, or
:func:`~authormask.evaluation.protocols.fernandes2019.run_collection_sweep` when the dataset is a
PAN collection: one author study per problem, reported per problem and pooled;
:func:`authormask.evaluation.protocols.bo2021.run_release_evaluation` for ``--protocol bo2021``;
:func:`authormask.evaluation.protocols.pan.run_pan` for ``--protocol pan``).

Every protocol takes the same corpus, output, seed, embeddings and ``--quick`` options; its
defaults, ``--quick``'s and the options it reads are the protocol's own (its config:
:class:`~authormask.evaluation.protocols._common.ProtocolConfig`). An option that the chosen
protocol (or, for fernandes2019, the chosen study) does not read is refused with one line
naming the option and the protocol, never silently ignored.

The command's options, with their help texts, are in :mod:`authormask.cli.evaluate_options`.
This module is the one command and reads best whole (a little over the project's ~500 lines):
it turns the options into each protocol's config, one function per protocol, and prints what
the run did.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from authormask.cli.evaluate_options import AUTO, PROTOCOLS, evaluate_options
from authormask.cli.options import (
    engine_from_options,
    load_embeddings_from_options,
)
from authormask.cli.progress import Progress

__all__ = ["PROTOCOLS", "evaluate", "register"]


COLUMNS = ("text_column", "author_column", "topic_column", "split_column", "id_column")
TABLE_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv")


def _is_auto(options: _Options) -> bool:
    return bool(options["epsilons"] == (AUTO,))


def _check_auto(options: _Options, mechanisms: tuple[str, ...]) -> None:
    """``--epsilons auto``: refused for bo2021, for a mechanism that takes neither an epsilon nor
    a rate, and when every mechanism is a baseline swept over its rates (nothing to calibrate),
    in one line, before anything is written. A rate-swept baseline beside calibrated mechanisms
    keeps its ``--rates``."""
    from authormask.evaluation.protocols._releases import sweeps_rate
    from authormask.release import mechanism_names, mechanism_spec

    if not _is_auto(options):
        return
    if options.protocol == "bo2021":
        raise click.UsageError(
            "--epsilons auto applies to --protocol fernandes2019 and pan; give bo2021 numbers"
        )
    known = [m for m in mechanisms if m in mechanism_names()]
    for m in known:
        if "epsilon" not in mechanism_spec(m).parameter_names and not sweeps_rate(m):
            raise click.UsageError(
                f"--epsilons auto: mechanism {m} takes no epsilon; leave it out or list epsilons"
            )
    if known and all(sweeps_rate(m) for m in known):
        raise click.UsageError(
            f"--epsilons auto: mechanism {', '.join(known)} takes no epsilon (it is swept over "
            "its rates: --rates); add a mechanism with an epsilon or leave auto out"
        )


def _auto_epsilons(options: _Options, mechanisms: tuple[str, ...], emb: Any) -> dict[str, Any]:
    """``epsilons=``, ``mechanism_epsilons=`` and ``epsilon_calibration=`` of a config under
    ``--epsilons auto`` (each mechanism calibrated, its epsilons printed); ``{}`` otherwise."""
    from authormask.evaluation.calibration import auto_epsilons
    from authormask.evaluation.protocols._releases import sweeps_rate

    if not _is_auto(options):
        return {}
    chosen: dict[str, tuple[float | None, ...]] = {}
    calibration: dict[str, Any] = {}
    for m in mechanisms:
        if sweeps_rate(m):
            continue
        t0 = time.perf_counter()
        choice = auto_epsilons(m, emb, seed=options["seed"] or 0)
        chosen[m] = (None, *choice.epsilons)
        calibration[m] = choice.to_dict()
        pairs = ", ".join(
            f"{e:g} ({r:.0%})" for e, r in zip(choice.epsilons, choice.change_rates, strict=True)
        )
        click.echo(
            f"--epsilons auto: {m}: {pairs} (epsilon (expected change rate); "
            f"{time.perf_counter() - t0:.0f} s)",
            err=True,
        )
    return {"epsilons": (None,), "mechanism_epsilons": chosen, "epsilon_calibration": calibration}


def _rates(value: str | None) -> tuple[float, ...] | None:
    """``--rates 0,0.5,1``: the rates of a baseline without privacy (``random-sub``), each in
    [0, 1]; a bad one is a one-line usage error."""
    from authormask.evaluation.protocols._releases import check_rates
    from authormask.exceptions import InvalidParameterError

    if value is None:
        return None
    out: list[float] = []
    for part in _split(value):
        try:
            out.append(float(part))
        except ValueError:
            raise click.UsageError(f"--rates: {part!r} is not a number in [0, 1]") from None
    try:
        return check_rates(out)
    except InvalidParameterError as exc:
        raise click.UsageError(f"--rates: {exc}") from None


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _measures(value: str, default: tuple[str, ...]) -> tuple[str, ...]:
    if value == "auto":
        return default
    if value == "none":
        return ()
    return tuple(_split(value))


class _Options:
    """The command's options, what was given explicitly, and the protocol's defaults."""

    def __init__(self, ctx: click.Context, opts: dict[str, Any]) -> None:
        self.opts = opts
        self.protocol: str = opts["protocol"]
        self.flags = {p.name: p.opts[0] for p in ctx.command.params if p.name}
        self.given = {
            name
            for name in opts
            if ctx.get_parameter_source(name)
            not in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP)
        }

    def __getitem__(self, name: str) -> Any:
        return self.opts[name]

    def pick(self, name: str) -> Any:
        """The option's value if given, else the protocol's default (``--quick``'s with
        --quick: :meth:`~authormask.evaluation.protocols._common.ProtocolConfig.default`)."""
        from authormask.evaluation.protocols import PROTOCOLS as CONFIGS

        if self.opts.get(name) is not None:
            return self.opts[name]
        return CONFIGS[self.protocol].Config.default(name, quick=bool(self.opts["quick"]))

    def refuse(self, names: Any, reason: str) -> None:
        given = [n for n in names if n in self.given]
        if given:
            flags = ", ".join(self.flags[n] for n in given)
            raise click.UsageError(f"{flags} {'does' if len(given) == 1 else 'do'} not {reason}")

    def check(self) -> None:
        """Refuse what the protocol or the dataset does not read (before any work): an option
        some protocols read (their ``Config.OPTIONS``) and this one does not."""
        from authormask.evaluation.protocols import PROTOCOLS as CONFIGS

        groups: dict[tuple[str, ...], list[str]] = {}
        for name in self.flags:
            readers = tuple(p for p, m in CONFIGS.items() if name in m.Config.OPTIONS)
            if readers and self.protocol not in readers:
                groups.setdefault(readers, []).append(name)
        for protocols, names in groups.items():
            only = " and ".join(f"--protocol {p}" for p in protocols)
            self.refuse(names, f"apply to --protocol {self.protocol} (only to {only})")
        if not str(self.opts["dataset"]).lower().endswith(TABLE_SUFFIXES):
            self.refuse(
                COLUMNS,
                f"apply to --dataset {self.opts['dataset']} (only to .jsonl and .csv files)",
            )

    def check_task(self, task: str) -> None:
        from authormask.evaluation.protocols.fernandes2019 import SweepConfig

        self.refuse(
            [n for n, t in SweepConfig.TASK_OPTIONS.items() if t != task],
            f"apply to {'an' if task == 'author' else 'a'} {task} study (--protocol "
            f"{self.protocol}, --task {task})",
        )


@click.command()
@evaluate_options
def evaluate(**opts: Any) -> None:
    """Run an evaluation protocol on a corpus. fernandes2019 (the default): the
    privacy/utility sweep of Fernandes et al. (2019, Table 1): attackers try to identify
    each obfuscated snippet's author, utility measures check its topic and meaning, for
    each epsilon. bo2021: the text-release comparison of Bo et al. (2021, Table 1).
    Rerunning the same command resumes an interrupted run.

    fernandes2019 runs in this process, or with --engine dask on a Dask cluster (--workers
    N: a local cluster of N worker processes; --scheduler: an existing cluster), one task
    per mechanism, epsilon and repetition, with the same results; the resume cache in
    --output is shared by both engines (a run stopped under one resumes under the other).
    The workers write to that cache too: with --scheduler, --output must be reachable at
    the same path from every worker."""
    options = _Options(click.get_current_context(), opts)
    options.check()
    _rates(opts["rates"])  # a bad rate: one line, before anything is written
    _check_auto(options, tuple(_split(opts["mechanisms"] or "")))
    target = opts["target_accuracy"]
    if target is not None and not 0.0 < target <= 1.0:  # NaN fails too
        raise click.UsageError(f"--target-accuracy must be in (0, 1], got {target:g}")
    engine = engine_from_options(opts["engine"], opts["workers"], opts["scheduler"])
    if options.protocol == "bo2021":
        _run_release(options)
    elif options.protocol == "pan":
        _run_pan(options)
    else:
        _run_sweep(options, engine)


def register(cli: click.Group) -> None:
    """Add :func:`evaluate` to ``cli``."""
    cli.add_command(evaluate)


def _refuse_pan_collection(options: _Options) -> None:
    """A PAN collection of several problems given to a protocol that pools a corpus (bo2021):
    refused (PAN problems are separate tasks; pooling them would score another task)."""
    import json

    from authormask.datasets import is_pan_folder

    root = Path(options["dataset"])
    info = root / "collection-info.json"
    if not is_pan_folder(root) or not info.is_file():
        return
    try:
        problems = json.loads(info.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError):
        return  # the loader names what is wrong with it
    if isinstance(problems, list) and len(problems) > 1:
        raise click.UsageError(
            f"{root} is a PAN collection of {len(problems)} problems, each its own attribution "
            f"task: evaluate it with --protocol pan or --protocol fernandes2019 (one author "
            f"study per problem), or give one problem folder to --protocol {options.protocol}"
        )


def _load_corpus(options: _Options) -> Any:
    from authormask.datasets import Columns, load_dataset

    _refuse_pan_collection(options)
    return load_dataset(
        options["dataset"],
        path=options["dataset_path"],
        columns=Columns(
            text=options["text_column"],
            author=options["author_column"] or None,
            topic=options["topic_column"],
            split=options["split_column"],
            doc_id=options["id_column"],
        ),
    )


def _finish(paths: list[Path], table: str, output: Path, t0: float) -> None:
    click.echo(table.rstrip("\n"))
    click.echo(
        f"wrote {', '.join(p.name for p in paths)} to {output} ({time.perf_counter() - t0:.0f} s)",
        err=True,
    )


def _run_sweep(options: _Options, engine: Any) -> None:
    from authormask.evaluation import build_study, run_sweep
    from authormask.evaluation.protocols.fernandes2019 import DEFAULT_SWEEP_MECHANISMS
    from authormask.evaluation.reports import check_output_dir
    from authormask.text import TextPreparer

    output: Path = options["output"]
    check_output_dir(output, force=options["force"])
    mechanisms = tuple(_split(options["mechanisms"] or ",".join(DEFAULT_SWEEP_MECHANISMS)))
    if _is_pan(options):
        _run_collection_sweep(options, engine, mechanisms)
        return
    t0 = time.perf_counter()
    corpus = _load_corpus(options)
    task = options["task"]
    if task == "auto":
        task = "author" if corpus.authors else "topic"
    options.check_task(task)
    if options["all_known"]:
        options.refuse(
            ["known_words", "snippet_words"],
            "apply with --all-known (every training and test document is used)",
        )
    emb = load_embeddings_from_options(
        options["embeddings"], options.pick("vocab_size"), options["cache_dir"]
    )
    preparer = TextPreparer(emb, oov=options["oov"])
    study = build_study(
        corpus,
        preparer,
        task=task,
        known_words=options.pick("known_words"),
        snippet_words=options.pick("snippet_words"),
        length=options.pick("length"),
        max_authors=options.pick("max_authors"),
        per_topic=options.pick("per_topic"),
        random_state=options["seed"],
        all_known=bool(options["all_known"]),
    )
    config = _sweep_config(options, study, mechanisms, emb)
    target = options["target_accuracy"]
    d = study.describe()
    click.echo(
        f"{corpus.name}: {d['task']} study, {d['queries']} snippets and {d['known_texts']} known "
        f"texts of N={d['length_N']} words; {len(config.mechanisms)} mechanism(s) x "
        f"{len(config.epsilons)} epsilon(s) x {len(config.measures)} measure(s)",
        err=True,
    )
    if engine.kind != "local":
        click.echo(f"engine: {engine.describe()}", err=True)
    with Progress("measuring", "cell") as bar:
        result = run_sweep(
            study,
            embeddings=emb,
            preparer=preparer,
            config=config,
            cache_dir=output / "cache",
            progress=bar.update,
            on_total=lambda total: setattr(bar, "total", total),
            engine=engine,
        )
    paths = result.write_reports(output, force=options["force"], target_accuracy=target)
    _finish(paths, result.markdown(target_accuracy=target), output, t0)


def _sweep_config(options: _Options, study: Any, mechanisms: tuple[str, ...], emb: Any) -> Any:
    """The SweepConfig of the options on ``study`` (a PAN collection's first problem stands for
    every problem), checked against the study, with ``--epsilons auto`` calibrated."""
    from authormask.evaluation import SweepConfig, check_applicable

    default_attackers, default_utilities = _default_utilities(study, mechanisms)
    config = SweepConfig(
        epsilons=(None,) if _is_auto(options) else options.pick("epsilons"),
        mechanisms=mechanisms,
        attackers=_measures(options["attackers"], default_attackers),
        utilities=_measures(options["utilities"], default_utilities),
        repetitions=options["repetitions"],
        seed=options["seed"],
        koppel_iterations=options.pick("koppel_iterations"),
        **_rate_option(options),
    )
    check_applicable(study, config)
    _check_target(options, config.attackers, config.utilities)
    return replace(config, **_auto_epsilons(options, mechanisms, emb))


def _rate_option(options: _Options) -> dict[str, Any]:
    """``rates=`` for a config, where --rates was given."""
    rates = _rates(options["rates"])
    return {} if rates is None else {"rates": rates}


def _is_pan(options: _Options) -> bool:
    from authormask.datasets import is_pan_folder

    return is_pan_folder(Path(options["dataset"]))


def _default_utilities(study: Any, mechanisms: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The default attackers and utilities of a fernandes2019 study (MiniLM similarity only
    where some mechanism releases text in place)."""
    from authormask.evaluation import applicable_measures
    from authormask.evaluation.protocols.fernandes2019 import SWEEP_MECHANISMS, releases_bag

    attackers, utilities = applicable_measures(study)
    if all(releases_bag(m) for m in mechanisms if m in SWEEP_MECHANISMS):
        # MiniLM similarity is meant for readable text: of a mechanism that releases in place
        utilities = tuple(u for u in utilities if u != "similarity")
    return attackers, utilities


def _check_target(
    options: _Options, attackers: tuple[str, ...], utilities: tuple[str, ...]
) -> None:
    if options["target_accuracy"] is not None and (
        not attackers or not {"similarity", "fasttext"} & set(utilities)
    ):
        what = "this sweep" if options.protocol == "fernandes2019" else "this run"
        raise click.UsageError(
            "--target-accuracy needs attackers and a similarity or fasttext utility measure; "
            f"{what} has attackers: {', '.join(attackers) or 'none'}; utilities: "
            f"{', '.join(utilities) or 'none'}"
        )


def _run_collection_sweep(options: _Options, engine: Any, mechanisms: tuple[str, ...]) -> None:
    """fernandes2019 on a PAN folder: one closed-set author study per problem, then pooled
    (:func:`~authormask.evaluation.protocols.fernandes2019.run_collection_sweep`)."""
    from authormask.datasets import read_pan_collection
    from authormask.evaluation.protocols.fernandes2019 import run_collection_sweep
    from authormask.evaluation.study import build_pan_study
    from authormask.text import TextPreparer

    options.refuse(
        ["max_authors", "known_words", "snippet_words", "per_topic", "dataset_path"],
        "apply to a PAN collection (--protocol fernandes2019 runs one author study per "
        "problem: its candidates, every known text, every unknown text by a candidate)",
    )
    if options["task"] == "topic":
        raise click.UsageError(
            "--task topic does not apply to a PAN collection: its problems are author studies"
        )
    output: Path = options["output"]
    t0 = time.perf_counter()
    collection = read_pan_collection(Path(options["dataset"]))
    emb = load_embeddings_from_options(
        options["embeddings"], options.pick("vocab_size"), options["cache_dir"]
    )
    preparer = TextPreparer(emb, oov=options["oov"])
    length = options.pick("length")
    first = build_pan_study(collection.problems[0], preparer, length=length)
    config = _sweep_config(options, first, mechanisms, emb)
    click.echo(
        f"{collection.name}: {len(collection.problems)} PAN problem(s), one author study each; "
        f"{len(config.mechanisms)} mechanism(s) x {len(config.epsilons)} epsilon(s) x "
        f"{len(config.measures)} measure(s)",
        err=True,
    )
    if engine.kind != "local":
        click.echo(f"engine: {engine.describe()}", err=True)
    with Progress("measuring", "cell") as bar:
        result = run_collection_sweep(
            collection,
            embeddings=emb,
            preparer=preparer,
            config=config,
            length=length,
            cache_dir=output / "cache",
            progress=bar.update,
            on_total=lambda total: setattr(bar, "total", total),
            engine=engine,
        )
    target = options["target_accuracy"]
    paths = result.write_reports(output, force=options["force"], target_accuracy=target)
    _finish(paths, result.markdown(target_accuracy=target), output, t0)


def _run_release(options: _Options) -> None:
    from authormask.evaluation.protocols.bo2021 import (
        DEFAULT_ATTACKERS,
        RELEASE_MECHANISMS,
        ReleaseConfig,
        run_release_evaluation,
    )
    from authormask.evaluation.reports import check_output_dir
    from authormask.models.erae import load_model

    output: Path = options["output"]
    check_output_dir(output, force=options["force"])
    epsilons, em_epsilons = options.pick("epsilons"), options.pick("em_epsilons")
    if None in epsilons:
        raise click.UsageError(
            "--epsilons: 'none' applies to --protocol fernandes2019 only (bo2021 always "
            "measures the original text); give numbers"
        )
    config = ReleaseConfig(
        mechanisms=tuple(_split(options["mechanisms"] or ",".join(RELEASE_MECHANISMS))),
        epsilons=epsilons,
        em_epsilons=em_epsilons,
        docs_per_author=options.pick("docs_per_author"),
        max_authors=options.pick("max_authors"),
        seed=options["seed"],
        attackers=_measures(options["attackers"], DEFAULT_ATTACKERS),
    )
    erae = load_model(options["erae_model"]) if options["erae_model"] is not None else None
    aedp = load_model(options["aedp_model"]) if options["aedp_model"] is not None else None
    t0 = time.perf_counter()
    corpus = _load_corpus(options)
    emb = load_embeddings_from_options(
        options["embeddings"], options.pick("vocab_size"), options["cache_dir"]
    )
    with Progress("releasing", "document") as bar:
        result = run_release_evaluation(
            corpus,
            config=config,
            embeddings=emb,
            erae_model=erae,
            aedp_model=aedp,
            cache_dir=output / "cache",
            progress=bar.update,
            on_total=lambda total: setattr(bar, "total", total),
        )
    paths = result.write_reports(output, force=options["force"])
    _finish(paths, result.markdown(), output, t0)


def _run_pan(options: _Options) -> None:
    from authormask.datasets import is_pan_folder, read_pan_collection
    from authormask.evaluation.protocols.pan import (
        PAN_ATTACKERS,
        PAN_UTILITIES,
        PanConfig,
        check_pan,
        run_pan,
    )
    from authormask.evaluation.reports import check_output_dir
    from authormask.exceptions import InputError
    from authormask.release import lineup

    output: Path = options["output"]
    check_output_dir(output, force=options["force"])
    dataset = Path(options["dataset"])
    if not is_pan_folder(dataset):
        raise InputError(
            f"--protocol pan needs a PAN 2018/2019 folder (collection-info.json or "
            f"problem-info.json); {dataset} is not one"
        )
    config = PanConfig(
        mechanisms=tuple(_split(options["mechanisms"] or ",".join(lineup("pan")))),
        epsilons=(None,) if _is_auto(options) else options.pick("epsilons"),
        attackers=_measures(options["attackers"], PAN_ATTACKERS),
        utilities=_measures(options["utilities"], PAN_UTILITIES),
        similarity_texts=_similarity_texts(options.pick("similarity_texts")),
        repetitions=options["repetitions"],
        seed=options["seed"],
        length=options["length"] or "shortest",
        koppel_iterations=options.pick("koppel_iterations"),
        **_rate_option(options),
    )
    _check_target(options, config.attackers, config.utilities)
    t0 = time.perf_counter()
    collection = read_pan_collection(dataset)
    check_pan(collection, config)
    emb = load_embeddings_from_options(
        options["embeddings"], options.pick("vocab_size"), options["cache_dir"]
    )
    config = replace(config, **_auto_epsilons(options, config.mechanisms, emb))
    click.echo(
        f"{collection.name}: {len(collection.problems)} PAN problem(s); "
        f"{len(config.mechanisms)} mechanism(s) x {len(config.epsilons)} epsilon(s) x "
        f"{len(config.attackers)} attacker(s)",
        err=True,
    )
    with Progress("measuring", "cell") as bar:
        result = run_pan(
            collection,
            config=config,
            embeddings=emb,
            cache_dir=output / "cache",
            progress=bar.update,
            on_total=lambda total: setattr(bar, "total", total),
        )
    target = options["target_accuracy"]
    paths = result.write_reports(output, force=options["force"], target_accuracy=target)
    _finish(paths, result.markdown(target_accuracy=target), output, t0)


def _similarity_texts(value: Any) -> int | None:
    """``--similarity-texts``: a positive count, or ``all`` (``None``)."""
    if isinstance(value, int) or value is None:
        return value
    if str(value).strip().lower() == "all":
        return None
    try:
        count = int(str(value))
    except ValueError:
        count = 0
    if count < 1:
        raise click.UsageError(f"--similarity-texts must be a count >= 1 or 'all', got {value!r}")
    return count
