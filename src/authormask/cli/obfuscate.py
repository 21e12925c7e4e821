"""``authormask obfuscate``: release documents with a mechanism of the registry."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from authormask.cli.mechanism_options import (
    as_options,
    mechanism_options,
    mechanism_parameters,
    parameter_flag,
)
from authormask.cli.options import (
    EPS_HELP,
    cache_option,
    embeddings_option,
    engine_from_options,
    engine_options,
    epsilon_option,
    force_option,
    format_option,
    output_option,
    report_option,
    seed_option,
    vocab_option,
)
from authormask.cli.progress import Progress, is_quiet, on_interrupt, say
from authormask.core.registry import MECHANISMS, lineup
from authormask.defaults import RECOMMENDED_EPSILON, SENTENCE_EPSILON

if TYPE_CHECKING:
    from authormask.cli.io import Inputs

#: ``--mechanism``'s help: every registered mechanism's line, as its registry spec gives it
#: (:meth:`~authormask.core.specs.MechanismSpec.describe`), each parameter it names written
#: as its option
MECHANISM_HELP = " ".join(as_options(spec.describe()) for spec in MECHANISMS.values())


#: what the ``interrupted`` line adds where the output is a file or a folder
FINISH_HINT = "run the same command again to finish the release (what is done is kept)"


@click.command()
@click.argument("inputs", nargs=-1)
@click.option(
    "--mechanism", "-m", default=lineup("obfuscate")[0], show_default=True, help=MECHANISM_HELP
)
@epsilon_option(
    help=EPS_HELP + f" [default: {RECOMMENDED_EPSILON:g} for emp-write, {SENTENCE_EPSILON:g} for "
    "emp-sentence, the recommended starts, said on stderr when used; every other mechanism "
    "that takes one needs it]"
)
@mechanism_options
@embeddings_option
@vocab_option
@seed_option()
@output_option(
    folder=True,
    help="Output file, or folder (for several inputs or a folder input, in txt format). "
    "Default, or '-': standard output (txt or jsonl; a dataset as jsonl only, since Parquet "
    "is a folder). The public statement is written once: <output>.privacy.json beside a "
    "file, PRIVACY-STATEMENT.json inside a folder; with standard output no file goes beside "
    "the text, so the statement is printed on stderr (even with -q) and, in jsonl, each "
    "record of documents carries it under 'privacy'. The PRIVATE report never goes to "
    "standard output (--report FILE keeps one). A killed folder, jsonl or dataset release is "
    "completed by running the same command again; once it is complete, the same command "
    "again says so and writes nothing.",
)
@format_option(
    "txt",
    "jsonl",
    "parquet",
    default="txt",
    help="txt: the text; jsonl: one JSON object per document (id, mechanism, text, and the "
    "public per-output figures). A dataset (--text-column) is written as jsonl or parquet "
    "(a folder of part files), by default as -o's suffix says (.parquet: parquet).",
)
@report_option(
    help="Where to write the PRIVATE run report (seed, sources, counts, warnings; never "
    "publish it). Default: <output>.DO-NOT-PUBLISH.report.txt beside a written output; none "
    "for standard output. Never '-' (standard output).",
)
@click.option(
    "--layout",
    type=click.Choice(["ids", "mirror"]),
    default="ids",
    show_default=True,
    help="Output folder only: name the outputs 1.txt, 2.txt, ... with the ids in a secret "
    "random order (default), or mirror the input files' names and subfolders (they are "
    "then published with the texts, a name can identify the author, and the statement "
    "says so). The private report maps every input to its output.",
)
@force_option(
    help="Overwrite existing output files (never a link, folder or device), and start over "
    "an unfinished release instead of completing it.",
)
@click.option(
    "--text-column",
    default=None,
    metavar="NAME",
    help="The input is a dataset (one JSONL, CSV or Parquet file, or a folder of Parquet "
    "files): release this column of every record. Needs -o.",
)
@click.option(
    "--input-format",
    type=click.Choice(["jsonl", "csv", "parquet"]),
    default=None,
    help="Dataset: the input's format, when its name does not say it (.jsonl or .ndjson, "
    ".csv, .parquet or .pq, or a folder of .parquet files).",
)
@click.option(
    "--id-column",
    default=None,
    metavar="NAME",
    help="Dataset: the column that names each record in the output (default: the record's "
    "number, 1, 2, ...). Its values are published unchanged (the statement and stderr say "
    "so); --ids secret numbers the records instead.",
)
@click.option(
    "--ids",
    "id_order",
    type=click.Choice(["given", "secret"]),
    default="given",
    show_default=True,
    help="Dataset: how the output records are named: given (the --id-column's values, "
    "published unchanged, or else each record's number in the input, 1, 2, ...) or secret "
    "(numbers 1..n drawn in a secret random order, in a column 'id'; the private report maps "
    "each number to its input record). Either way the records keep the input's order, and "
    "the statement says so.",
)
@click.option(
    "--keep-column",
    "keep_columns",
    multiple=True,
    metavar="NAME",
    help="Dataset: copy this column to the output unchanged (repeatable). Every other "
    "column is dropped: a column such as a user name, a date or a place may identify the "
    "author, so keeping it is your explicit choice (the statement and stderr say so).",
)
@click.option(
    "--partition-size",
    type=click.IntRange(min=1),
    default=None,
    metavar="RECORDS",
    help="Dataset: records per partition (the unit of work, of resuming and of a Parquet "
    "part file; default 1000). A public number: the part files depend on it and on the "
    "number of records, never on the texts. The released records do not depend on it.",
)
@engine_options(what="the dataset's partitions")
@cache_option
@click.option(
    "--history/--no-history",
    default=True,
    show_default=True,
    help="Warn when a text was released before on this machine with other public parameters "
    "(releasing a text again composes: the epsilons add), from a private local history of "
    "keyed hashes of the texts released (never the texts; in $AUTHORMASK_STATE_DIR, else "
    "$XDG_STATE_HOME/authormask or ~/.local/state/authormask). --no-history neither reads "
    "nor extends it.",
)
@click.option(
    "--explain",
    is_flag=True,
    help="After the statement, print it in plain words: what is protected and against whom, "
    "what epsilon means here with a worked example, what is released unchanged, and what an "
    "attacker achieved in the project's own measurement near this epsilon.",
)
def obfuscate(**options: Any) -> None:
    """Obfuscate documents (files, folders or - for stdin; default: a bundled example) and print
    or write each output with its public privacy statement."""
    from authormask.core import create_mechanism

    request = _Request.of(click.get_current_context(), options)
    explicit = _plan(request)  # the mechanism's parameters, checked once, before any input
    found = _check(request)  # the options agree, and the inputs are found
    _say_default_epsilon(request)  # after the checks: an error stays the only line
    if len(found.sources) > 1 or sum(s.size for s in found.sources) >= _SHARED_BYTES:
        _recognise_elsewhere(request, explicit)
    mech = create_mechanism(request.mechanism, **explicit)
    if request.spec.baseline:
        click.echo(
            f"authormask: warning: {request.mechanism} is a baseline with NO privacy "
            "guarantee: use it to compare mechanisms, never to protect a text",
            err=True,
        )
    if request.options["text_column"] is not None:
        _release_dataset(request, mech)
    else:
        _release_files(request, mech, found)


def _say_default_epsilon(request: _Request) -> None:
    """Say the epsilon the mechanism takes when none is given (its recommended start)."""
    eps = request.spec.parameter("epsilon")
    if request.options["epsilon"] is None and eps is not None and eps.default is not None:
        say(
            f"epsilon {eps.default:g}: {request.mechanism}'s default (the recommended start); "
            "give --epsilon to choose"
        )


#: a release of one document this long (bytes) or longer shares its recognition with a second
#: process (:meth:`~authormask.text.entities.Recogniser.find_document`): it has several parts
_SHARED_BYTES = 1 << 16


def _recognise_elsewhere(request: _Request, explicit: dict[str, Any]) -> None:
    """With the entity step and the local engine, a release of many documents, or of one long
    one, starts its recogniser's second process now, which loads the pipeline while this one
    builds the mechanism (:mod:`authormask.text.ahead`; where no second core or process is to
    be had, the recogniser loads here when the release needs it); a long document's parts are
    then read half there, half here. A release of one short document recognises here: a second
    process would make it a few tenths of a second faster, for about 40 MB more in all."""
    from authormask.core.specs import ENTITIES

    entities = request.spec.parameter(ENTITIES.name)  # the shared entity-step parameter
    mode = explicit.get(ENTITIES.name, None if entities is None else entities.default)
    if mode in (None, "keep") or request.options["text_column"] is not None:
        return
    if request.engine is None or request.engine.kind != "local":
        return
    from authormask.text.entities import load_recogniser

    load_recogniser().start_elsewhere()


@dataclass
class _Request:
    """What ``obfuscate`` was asked: every option by its parameter's name (:meth:`of`), which
    of them the command line gave, and the mechanism's spec."""

    options: dict[str, Any]
    given: frozenset[str]
    spec: Any
    engine: Any = None

    @classmethod
    def of(cls, ctx: click.Context, options: dict[str, Any]) -> _Request:
        from click.core import ParameterSource

        from authormask.core import mechanism_names, mechanism_spec

        mechanism = options["mechanism"]
        if mechanism not in mechanism_names():
            raise click.UsageError(
                f"unknown --mechanism {mechanism!r}; choose one of {', '.join(mechanism_names())}"
            )
        given = frozenset(
            name
            for name in options
            if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
        )
        return cls(dict(options), given, mechanism_spec(mechanism))

    @property
    def mechanism(self) -> str:
        """The mechanism's registry name."""
        return str(self.options["mechanism"])


#: the options of ``obfuscate`` itself: every other one is a mechanism's parameter
_OWN_OPTIONS = frozenset(
    (
        "inputs mechanism epsilon embeddings vocab_size seed output fmt report_path layout force "
        "text_column input_format id_column id_order keep_columns partition_size engine workers "
        "scheduler cache_dir history explain"
    ).split()
)


def _plan(request: _Request) -> dict[str, Any]:
    """The mechanism's parameters: what the user gave, then the resources its spec declares it
    needs (the options' defaults among them), checked once by the registry. ``--embeddings`` or
    ``--vocab-size`` given on the command line to a mechanism that declares no such resource
    is refused."""
    from authormask.core.registry import ParameterMismatchError, check_parameters
    from authormask.core.resources import UNSET, Resources, resource_parameters

    spec, mechanism, o = request.spec, request.mechanism, request.options
    params = {k: v for k, v in o.items() if k not in _OWN_OPTIONS}
    chosen = {"epsilon": o["epsilon"], **mechanism_parameters(params)}
    for resource, option in (("embeddings", "embeddings"), ("vocabulary", "vocab_size")):
        if option not in request.given:
            continue
        takes = spec.resource_parameter(resource)
        if takes is None:
            raise click.UsageError(
                f"{parameter_flag(option)} does not apply to --mechanism {mechanism}"
            )
        chosen[takes.name] = o[option]
    chosen = {k: v for k, v in chosen.items() if v is not None}
    resources = Resources(
        embeddings=o["embeddings"],
        vocabulary=UNSET if o["vocab_size"] is None else o["vocab_size"],
        cache=o["cache_dir"],
    )
    explicit = {**resource_parameters(spec, resources, given=chosen), **chosen}
    try:
        check_parameters(mechanism, **explicit)
    except ParameterMismatchError as exc:
        flags = ", ".join(parameter_flag(k) for k in exc.unknown or exc.missing)
        if exc.unknown:
            raise click.UsageError(f"{flags} does not apply to --mechanism {mechanism}") from None
        raise click.UsageError(f"--mechanism {mechanism} needs {flags}") from None
    return explicit


def _check(request: _Request) -> Inputs:
    """The options agree with each other and with the inputs, and the inputs are found (a
    missing file is one line at once), before the mechanism is built (which can load word
    vectors and models for seconds). Sets the engine, and ``-o -`` as standard output."""
    from authormask.cli.io import Inputs, example_source, passed_over_note, skipped_note, sources_of

    o = request.options
    request.engine = engine_from_options(o["engine"], o["workers"], o["scheduler"])
    if o["report_path"] is not None and str(o["report_path"]) == "-":
        raise click.UsageError(
            "--report - would print the PRIVATE run report on standard output, beside what "
            "is published: give it a file"
        )
    o["to_stdout"] = o["output"] is not None and str(o["output"]) == "-"
    if o["to_stdout"]:
        o["output"] = None  # -o -: standard output, as without -o
    if o["text_column"] is None:
        _refuse_dataset_options(request)
    elif o["output"] is not None:  # Ctrl-C from now on: the same command finishes the release
        on_interrupt(FINISH_HINT)
    inputs = o["inputs"]
    if inputs and o["text_column"] is None:
        found = sources_of(inputs)
        if o["output"] is not None and len(found.sources) > 1:
            # Ctrl-C from now on: the same command finishes the release (one document is
            # released whole or not at all: nothing of it would be kept)
            on_interrupt(FINISH_HINT)
        if (note := skipped_note(found)) is not None:
            say(note)
        if (warning := passed_over_note(found)) is not None:
            click.echo(warning, err=True)
        _read_first_text(found.sources)
        return found
    if inputs:
        _check_dataset_call(inputs, output=o["output"], to_stdout=o["to_stdout"])
        return Inputs((), (), False)
    say("(no input given: obfuscating the bundled example document)")
    return Inputs((example_source(),), ("example.txt",), False)


def _refuse_dataset_options(request: _Request) -> None:
    """An option of a dataset input given without ``--text-column`` is one line; so is a
    dataset file given without it."""
    o = request.options
    dataset_only = {
        "--input-format": o["input_format"] is not None,
        "--id-column": o["id_column"] is not None,
        "--ids": "id_order" in request.given,
        "--keep-column": bool(o["keep_columns"]),
        "--partition-size": o["partition_size"] is not None,
        "--engine dask": request.engine.kind != "local",
        "--format parquet": o["fmt"] == "parquet",
    }
    given_flags = [flag for flag, on in dataset_only.items() if on]
    if given_flags:
        raise click.UsageError(
            f"{given_flags[0]} applies to a dataset input: name its text column with --text-column"
        )
    _refuse_datasets(o["inputs"])


def _release_dataset(request: _Request, mech: Any) -> None:
    """Release a dataset's text column (:func:`_release_table`)."""
    o = request.options
    if "layout" in request.given:
        raise click.UsageError("--layout applies only to an output folder (txt format)")
    _release_table(
        o["inputs"],
        mech,
        text_column=o["text_column"],
        input_format=o["input_format"],
        id_column=o["id_column"],
        secret_ids=o["id_order"] == "secret",
        keep_columns=o["keep_columns"],
        history=_open_history() if o["history"] else None,
        output=o["output"],
        to_stdout=o["to_stdout"],
        fmt=o["fmt"] if "fmt" in request.given else None,
        engine=request.engine,
        seed=o["seed"],
        report_path=o["report_path"],
        force=o["force"],
        partition_size=o["partition_size"],
        explain=o["explain"],
    )


def _release_files(request: _Request, mech: Any, found: Inputs) -> None:
    """Release files, a folder or standard input, then report: the statement, where each
    output went, the plain words (``--explain``) and the history's warning."""
    from authormask.core.outputs import default_report_path

    o = request.options
    output, fmt, report_path = o["output"], o["fmt"], o["report_path"]
    if mech.needs_all_documents:  # two passes: stdin is read once
        found = _buffer_stdin(found)
    if output is not None and output.suffix.lower() in (".jsonl", ".ndjson"):
        if "fmt" not in request.given:
            fmt = "jsonl"  # -o x.jsonl means JSONL, never a folder named x.jsonl
    target = _target(found, output=output, fmt=fmt, layout=o["layout"])
    if target.kind != "folder" and "layout" in request.given:
        raise click.UsageError("--layout applies only to an output folder (txt format)")
    if report_path is None and output is not None:
        report_path = default_report_path(output)
    _warn_seed(o["seed"])
    if target.mirrored:
        click.echo(
            "authormask: warning: --layout mirror publishes every input's file and folder "
            "name with the released texts (a name can identify the author; the statement "
            "says so)",
            err=True,
        )
    past = _open_history() if o["history"] and o["inputs"] else None
    digests = past.digests() if past is not None else None
    sources = digests.sources(found.sources) if digests is not None else list(found.sources)
    summary = _write(sources, mech, target, seed=o["seed"], report_path=report_path,
                     force=o["force"], folders=found.folders)  # fmt: skip
    on_interrupt(None)
    if summary.already_complete:
        _complete(target.path, target.statement_path(), summary.report_path)
        return
    _report(summary, target, several=len(found.sources) > 1)
    if o["explain"]:
        _explain(summary.statement, mech)
    if past is not None and digests is not None:
        _check_history(past, digests.all(), summary.statement)


def _write(
    sources: Any, mech: Any, target: Any, *, seed: Any, report_path: Any, force: bool, folders: Any
) -> Any:
    """The release written (:func:`~authormask.core.outputs.write_release`) under a progress
    bar of the share done only: the characters read are the inputs' sizes, which the
    statement printed beside it does not cover."""
    from authormask.core.outputs import write_release

    with Progress("releasing", "character", counts=False) as bar:

        def started(characters: int, resumed: int) -> None:
            bar.total = characters or None
            if resumed:
                say(
                    f"resuming an unfinished release: {resumed} document(s) already "
                    "released are kept"
                )

        return write_release(
            sources,
            mech,
            target,
            random_state=seed,
            report_path=report_path,
            force=force,
            progress=bar.update,
            on_start=started,
            input_folders=folders,
        )


def register(cli: click.Group) -> None:
    cli.add_command(obfuscate)


def _open_history() -> Any:
    """The local release history (:mod:`authormask.core.history`), or None with one warning
    when it cannot be used safely."""
    from authormask.core.history import HistoryError, ReleaseHistory, default_history_dir

    try:
        return ReleaseHistory.open(default_history_dir())
    except HistoryError as exc:
        click.echo(
            f"authormask: warning: the local release history cannot be used ({exc}); releasing "
            "without it: a text released again is not warned about",
            err=True,
        )
        return None


def _check_history(past: Any, digests: list[str], statement: Any) -> None:
    """Warn (one line) when a text of this release was released before with other public
    parameters; then add this release to the history."""
    from authormask.core.history import HistoryError

    try:
        found = past.check(digests, statement)
        past.record(digests, statement)
    except HistoryError as exc:
        click.echo(f"authormask: warning: the local release history: {exc}", err=True)
        return
    if found is not None:
        click.echo(f"authormask: warning: {found.describe()}", err=True)


def _warn_seed(seed: int | None) -> None:
    if seed is not None:
        click.echo(
            "authormask: warning: seeded release: anyone who has or guesses the seed can "
            "recompute the noise and undo the privacy; keep it secret and random "
            "(128 bits, e.g. python -c 'import secrets; print(secrets.randbits(128))') "
            "or leave it out, and use it for one release only (texts with the same words "
            "released with one seed and the same parameters come out identical)",
            err=True,
        )


def _refuse_datasets(inputs: tuple[str, ...]) -> None:
    """A JSONL, CSV or Parquet file given without --text-column would be released as one text,
    its structure and every column with it: refused."""
    from authormask.core.table_formats import detect_table_format

    for item in inputs:
        if item in ("", "-"):
            continue
        path = Path(item)
        fmt = detect_table_format(path) if path.is_file() else None
        if fmt is not None:
            raise click.UsageError(
                f"{item} looks like a {fmt.upper() if fmt != 'jsonl' else 'JSONL'} dataset: "
                "give --text-column NAME to release that column of each record (to release "
                "the file as one plain text, give it on standard input: - < FILE)"
            )


def _check_dataset_call(inputs: tuple[str, ...], *, output: Path | None, to_stdout: bool) -> None:
    """One dataset and an output, checked before the mechanism is built (which can load word
    vectors and models for seconds)."""
    if len(inputs) != 1 or inputs[0] in ("", "-"):
        raise click.UsageError(
            "--text-column takes one dataset: a JSONL, CSV or Parquet file, "
            "or a folder of Parquet files"
        )
    if output is None and not to_stdout:
        raise click.UsageError(
            "a dataset release needs -o: a .jsonl file or a Parquet folder (e.g. -o out.parquet), "
            "or - for JSONL on standard output"
        )


def _release_table(
    inputs: tuple[str, ...],
    mech: Any,
    *,
    text_column: str,
    input_format: str | None,
    id_column: str | None,
    secret_ids: bool,
    keep_columns: tuple[str, ...],
    history: Any,
    output: Path | None,
    to_stdout: bool,
    fmt: str | None,
    engine: Any,
    seed: int | None,
    report_path: Path | None,
    force: bool,
    partition_size: int | None,
    explain: bool = False,
) -> None:
    """``obfuscate --text-column``: a dataset released in partitions (see
    :mod:`authormask.core.partitioned`), into a JSONL file, a Parquet folder or, with
    ``-o -``, JSONL on standard output."""
    from authormask.core.outputs import default_report_path

    fmt = _dataset_format(inputs, output=output, to_stdout=to_stdout, fmt=fmt)
    table = _open_table(
        inputs,
        text_column=text_column,
        input_format=input_format,
        id_column=id_column,
        keep_columns=keep_columns,
        secret_ids=secret_ids,
    )
    if report_path is None and output is not None:
        report_path = default_report_path(output)
    _warn_seed(seed)
    _warn_published(table, id_column=id_column, keep_columns=keep_columns)
    digests = history.digests() if history is not None else None
    summary = _write_dataset(
        table,
        mech,
        output,
        fmt=fmt,
        engine=engine,
        seed=seed,
        report_path=report_path,
        force=force,
        partition_size=partition_size,
        digests=digests,
    )
    on_interrupt(None)
    if summary.already_complete:
        _complete(output, summary.statement_path, summary.report_path)
        return
    _report_dataset(summary, mech, output=output, fmt=fmt, explain=explain)
    if history is not None and digests is not None:
        _check_history(history, digests.all(), summary.statement)


def _dataset_format(
    inputs: tuple[str, ...], *, output: Path | None, to_stdout: bool, fmt: str | None
) -> str:
    """The dataset's output format (``--format``, else from the output's suffix), checked
    with the call; a dataset whose format its name does not tell needs ``--input-format``."""
    _check_dataset_call(inputs, output=output, to_stdout=to_stdout)
    if fmt is None:
        parquet = output is not None and output.suffix.lower() in (".parquet", ".pq")
        fmt = "parquet" if parquet else "jsonl"
    if fmt == "txt":
        raise click.UsageError("a dataset is written as --format jsonl or parquet")
    if to_stdout and fmt != "jsonl":
        raise click.UsageError(
            "-o - (standard output) takes a dataset as --format jsonl only: a Parquet release "
            "is a folder of part files; give -o FOLDER"
        )
    return fmt


def _open_table(
    inputs: tuple[str, ...],
    *,
    text_column: str,
    input_format: str | None,
    id_column: str | None,
    keep_columns: tuple[str, ...],
    secret_ids: bool,
) -> Any:
    """The dataset opened (:meth:`~authormask.core.tables.TableInput.open`), its format told
    by its name or ``--input-format``."""
    from authormask.core.tables import TableInput, detect_table_format

    path = Path(inputs[0])
    if input_format is None and path.exists() and detect_table_format(path) is None:
        raise click.UsageError(
            f"cannot tell the format of dataset {path} from its name (.jsonl, .ndjson, .csv, "
            ".parquet or .pq, or a folder of .parquet files): give --input-format"
        )
    return TableInput.open(
        inputs[0],
        text_column=text_column,
        id_column=id_column,
        keep_columns=keep_columns,
        format=input_format,
        secret_ids=secret_ids,
    )


def _warn_published(table: Any, *, id_column: str | None, keep_columns: tuple[str, ...]) -> None:
    """Warn of what a dataset release publishes unchanged: the ids, the kept columns."""
    if table.published_ids:
        click.echo(
            f"authormask: warning: --id-column publishes every record's {id_column!r} value "
            "unchanged beside its released text (an id can identify the author; the statement "
            "says so); --ids secret numbers the records instead",
            err=True,
        )
    if keep_columns:
        click.echo(
            f"authormask: warning: --keep-column publishes the column(s) "
            f"{', '.join(repr(c) for c in keep_columns)} unchanged beside the released texts (a "
            "user name, a date or a place can identify the author; the statement says so)",
            err=True,
        )


def _write_dataset(
    table: Any,
    mech: Any,
    output: Path | None,
    *,
    fmt: str,
    engine: Any,
    seed: int | None,
    report_path: Path | None,
    force: bool,
    partition_size: int | None,
    digests: Any,
) -> Any:
    """The dataset released (:func:`~authormask.core.table_outputs.write_table_release`)
    with a progress bar; its summary."""
    from authormask.core.partitioned import DEFAULT_PARTITION_RECORDS
    from authormask.core.table_outputs import write_table_release

    with Progress("releasing", "record", counts=False) as bar:

        def started(resumed: int) -> None:
            if resumed:
                say(
                    f"resuming an unfinished release: {resumed} partition(s) already released "
                    "are kept"
                )

        return write_table_release(
            table,
            mech,
            output,
            fmt=fmt,
            engine=engine,
            random_state=seed,
            report_path=report_path,
            force=force,
            partition_records=partition_size or DEFAULT_PARTITION_RECORDS,
            progress=bar.update,
            on_start=started,
            on_text=digests.add_text if digests is not None else None,
        )


def _report_dataset(
    summary: Any, mech: Any, *, output: Path | None, fmt: str, explain: bool
) -> None:
    """Report a dataset release: its statement, where it went, the plain words
    (``--explain``), its warnings and the private report."""
    if summary.statement_path is None:  # standard output: no statement file beside it
        click.echo(summary.statement.describe(), err=True)
    elif not is_quiet():  # the file holds every field: the terminal shows the short form
        click.echo(summary.statement.summary(shlex.quote(str(summary.statement_path))), err=True)
    if explain:
        _explain(summary.statement, mech)
    say(
        f"wrote {summary.records} record(s) in {summary.partitions} partition(s) to "
        f"{output if output is not None else 'standard output'} ({fmt})"
        + (
            f", {summary.resumed} partition(s) kept from the unfinished run"
            if summary.resumed
            else ""
        )
        + (
            f"; the public privacy statement to {summary.statement_path}"
            if summary.statement_path is not None
            else "; the public privacy statement above goes with it (no file beside it)"
        )
    )
    for warning in summary.warnings:
        click.echo(f"authormask: warning: {warning}", err=True)
    if summary.report_path is not None:
        say(
            f"wrote the PRIVATE run report (do not publish; it holds the seed and "
            f"per-partition counts) to {summary.report_path}"
        )


def _complete(output: Path | None, statement: Path | None, report: Path | None) -> None:
    """A rerun of a command whose release is complete: one line (unless -q), exit 0."""
    say(
        f"the release to {output} is already complete ({report} says so: the same command, "
        "with the same parameters and inputs, finished it); nothing was released or written"
        + (f"; its public privacy statement is {statement}" if statement is not None else "")
    )


def _buffer_stdin(found: Inputs) -> Inputs:
    """Standard input read into memory (a release that reads its documents twice)."""
    import dataclasses
    import sys

    from authormask.core.sources import StdinSource, TextSource, decode_bytes

    sources = []
    for s in found.sources:
        if isinstance(s, StdinSource):
            origin = s.identity  # an output must not replace the file stdin came from
            text = decode_bytes(sys.stdin.buffer.read(), "standard input")
            s = TextSource(s.name, s.relpath, len(text), text, origin)
        sources.append(s)
    return dataclasses.replace(found, sources=tuple(sources))


def _target(found: Inputs, *, output: Path | None, fmt: str, layout: str) -> Any:
    """Where the release goes; the ids are assigned by the release, in a secret random order."""
    from authormask.core.outputs import FOLDER_STATEMENT, Target

    n = len(found.sources)
    if fmt == "jsonl":
        return Target("jsonl", output)
    if output is None:
        return Target("stdout", None)
    if n == 1 and not found.any_folder and not output.is_dir():
        return Target("file", output)
    if layout == "ids":
        return Target("folder", output, layout="ids")
    names = found.relpaths
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        if name in seen or name == FOLDER_STATEMENT:
            other = found.sources[seen[name]].name if name in seen else "the privacy statement"
            raise click.UsageError(
                f"{found.sources[i].name} and {other} would both be written to "
                f"{output / name}; give them separately or use --layout ids"
            )
        seen[name] = i
    return Target("folder", output, names=names, layout="mirror")


def _explain(statement: Any, mech: Any) -> None:
    """The statement in plain words (stderr, after the statement itself)."""
    from authormask.accounting.plain import explain, mechanism_embeddings

    click.echo("\nIn plain words:\n", err=True)
    click.echo(explain(statement, embeddings=mechanism_embeddings(mech)), err=True)


def _read_first_text(sources: Any) -> None:
    """Each input that can be read again, read up to its first text (its first part: 64 KiB
    or less), so an empty, undecodable or refused file is one line before any model loads
    (issue 50: an empty file loaded 885 MB of models first). Standard input and pipes are
    read once, by the release."""
    for source in sources:
        if source.rereadable:
            for part in source.parts():
                if part.strip():
                    break


def _report(summary: Any, target: Any, *, several: bool) -> None:
    """What the command prints once the release is written (stderr; with -q only what is
    needed: the statement where no file holds it, and the warnings); a refused run prints its
    one error line only."""
    where = None if target.path is None else target.statement_path()
    if where is None:  # standard output: no statement file beside it, so all of it
        click.echo(summary.statement.describe(), err=True)
    elif not is_quiet():  # the file holds every field: the terminal shows the short form
        click.echo(summary.statement.summary(shlex.quote(str(where))), err=True)
    if target.path is not None:
        where = target.statement_path()
        say(
            f"wrote {summary.released} document(s) to {target.path}"
            + (f" ({summary.resumed} kept from the unfinished run)" if summary.resumed else "")
            + (f"; the public privacy statement to {where}" if where is not None else "")
        )
    from authormask.core.stream import EMPTY_RELEASE

    empty = sum(w.endswith(EMPTY_RELEASE) for w in summary.warnings)
    if empty and target.path is not None:  # on standard output an empty text shows itself
        click.echo(
            f"authormask: warning: {empty} of the {summary.released} document(s) "
            f"{'was' if empty == 1 else 'were'} released as an empty text: nothing in "
            f"{'it' if empty == 1 else 'them'} is what {summary.statement.mechanism} releases "
            "(only marks, emoji or symbols, words without a vector, or no noun); the private "
            "report names " + ("it" if empty == 1 else "them"),
            err=True,
        )
    if summary.report_path is not None:
        say(
            f"wrote the PRIVATE run report and manifest (do not publish; it holds the seed, "
            f"which input became which output, the counts and any warnings, such as "
            f"training-data overlap) to {summary.report_path}"
        )
    else:  # the same line whatever the input: stderr may be published with the statement
        say(
            "authormask: note: no private run report written (counts, warnings such as "
            "training-data overlap); add --report FILE to keep one"
        )
        if several:
            say(
                "authormask: note: the outputs are numbered in a secret random order; add "
                "--report FILE to keep the private map of which input each id is"
            )
