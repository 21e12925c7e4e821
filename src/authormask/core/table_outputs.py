"""Writing a dataset release: the text column of a JSONL, CSV or Parquet dataset released in
partitions (:mod:`authormask.core.partitioned`) on the local engine or on Dask, into a JSONL
file or a Parquet dataset, with its public statement beside it and a private report that is its
journal.

* the output is a JSONL file or a Parquet dataset (a folder of ``part-NNNNN.parquet`` files, one
  per partition); the public statement is written once, beside it (``<output>.privacy.json``),
  and in each Parquet file's metadata (``authormask.privacy``);
* finished partitions are written, each complete (temporary file and rename), into a hidden
  folder beside the output (``.<output>.partial``); the output appears only when every
  partition is done (a rename for Parquet, a concatenation then a rename for JSONL);
* the private report (mode 0600) is the journal: its parameters, then a line per finished
  partition, then a last line when the release is complete. Running the same command again
  after a crash or a SIGKILL (of the client or of a worker) keeps the finished partitions and
  releases the others; Dask itself retries a partition whose worker died;
* every record is read and checked once before anything is written or released
  (:meth:`~authormask.core.tables.TableInput.records`: JSON or CSV syntax, the text a
  string, ids present, unique and of one type, no NUL nor lone surrogate): a bad record deep
  in the file is refused in one line with no partial output, report or record on standard
  output (a partition released before the bad record was found could not be resumed once
  the record was fixed, as the input had changed). What only the mechanism can refuse (an
  empty text, a text without a content word) is still found as its partition is released:
  the partitions before it wait in the hidden folder, and no output file appears.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from authormask._io import (
    atomic_path,
    check_file_output,
    check_not_inputs,
    check_outside_folders,
    check_report_apart,
    check_stdout_open,
    check_target,
    commit,
    same_times,
    temporary_beside,
    umask_mode,
    write_stdout_bytes,
)
from authormask.core.executors import Engine, open_executor
from authormask.core.journal import (
    TABLE_REPORT_SCHEMA,
    Journal,
    append_complete,
    cleanup_on_failure,
    deferred_interrupt,
    fingerprint,
    output_lock,
    write_text_atomic,
)
from authormask.core.partitioned import (
    DEFAULT_PARTITION_RECORDS,
    OUTPUT_FORMATS,
    PART_FILE,
    Job,
    Partition,
    PartitionResult,
    job_key,
    partitions,
    release_partition,
)
from authormask.core.registry import recipe_of
from authormask.core.sources import TextSource
from authormask.core.stream import resolve_length
from authormask.core.tables import TableInput
from authormask.core.targets import file_sha256
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism
from authormask.randomness import (
    RandomState,
    SeedInfo,
    describe_seed,
    mechanism_root,
    release_order,
)

__all__ = [
    "TableSummary",
    "declare_columns",
    "staging_path",
    "statement_path",
    "write_table_release",
]


@dataclass
class TableSummary:
    """What the CLI prints after a dataset release (never published).

    Attributes
    ----------
    statement
        The release's privacy statement.
    records
        The number of records released.
    partitions
        The number of partitions.
    resumed
        The number of partitions kept from an unfinished run.
    warnings
        The warnings of the run.
    report_path
        Where the private report was written, if anywhere.
    statement_path
        Where the statement was written beside the output (None: standard output).
    already_complete
        The same command had already finished this release: nothing was released or written.
    """

    statement: Any
    records: int = 0
    partitions: int = 0
    resumed: int = 0
    warnings: list[str] = field(default_factory=list)
    report_path: Path | None = None
    #: beside the output (None: standard output, where no file goes beside it)
    statement_path: Path | None = None
    #: the same command had already finished this release: nothing was released or written
    already_complete: bool = False


def staging_path(output: Path) -> Path:
    """The hidden folder beside ``output`` where finished partitions wait.

    Parameters
    ----------
    output
        The release's output path.

    Returns
    -------
    Path
        ``.<name>.partial`` beside it.
    """
    return output.with_name(f".{output.name}.partial")


def statement_path(output: Path) -> Path:
    """The statement file beside a dataset release ``output``.

    Parameters
    ----------
    output
        The release's output path.

    Returns
    -------
    Path
        ``<name>.privacy.json`` beside it.
    """
    return output.with_name(output.name + ".privacy.json")


def _fingerprint(
    statement_json: str,
    seed: int | None,
    table: TableInput,
    output: Path | None,
    fmt: str,
    partition_records: int,
) -> str:
    where = str(output.resolve()) if output is not None else "<stdout>"
    items = (
        statement_json,
        ("seed", seed),
        table.fingerprint(),
        (table.text_column, table.id_column, table.keep_columns, table.secret_ids),
        (where, fmt, ("records", partition_records)),
    )
    return fingerprint(repr(item).encode() for item in items)


def _clear_staging(staging: Path) -> None:
    """Remove a staging folder of ours: only part files and temporary files, then the folder."""
    if not staging.is_dir() or staging.is_symlink():
        return
    for entry in os.scandir(staging):
        name = entry.name
        ours = PART_FILE.match(name) or name.endswith(".tmp")
        if ours and entry.is_file(follow_symlinks=False):
            os.unlink(entry.path)
    with contextlib.suppress(OSError):
        staging.rmdir()


def _check_output(output: Path, fmt: str, *, force: bool) -> None:
    if fmt == "jsonl":
        check_target(output, force=force)
        return
    if not os.path.lexists(output):
        return
    if output.is_symlink() or not output.is_dir():
        raise InputError(f"output path {output} exists and is not a Parquet output folder")
    if not force:
        raise InputError(f"output folder already exists (use `force` to replace it): {output}")
    foreign = [e.name for e in os.scandir(output) if not PART_FILE.match(e.name)]
    if foreign:
        raise InputError(
            f"output folder {output} holds {foreign[0]!r}, which authormask did not write; "
            "refusing to replace it (even with `force`)"
        )


def write_table_release(
    table: TableInput,
    mechanism: Mechanism,
    output: Path | None,
    *,
    fmt: str = "jsonl",
    engine: Engine | None = None,
    random_state: RandomState = None,
    report_path: Path | None = None,
    force: bool = False,
    partition_records: int = DEFAULT_PARTITION_RECORDS,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    on_text: Callable[[str], None] | None = None,
) -> TableSummary:
    """Release the text column of ``table`` into ``output`` (JSONL file or Parquet folder) on
    ``engine`` (see the module docstring), in partitions of ``partition_records`` records
    (a Parquet output has one part file per partition).

    ``output`` None: JSONL on standard output, partition after partition in the input's order
    (nothing to resume, and no statement file: the caller shows the statement, which
    :attr:`TableSummary.statement` holds). A Parquet release is a folder: it needs ``output``.

    The public statement names what is published beside the texts (:func:`declare_columns`):
    the ids, the kept columns and the records' order. With ``table.secret_ids`` the records are
    numbered 1..n in a secret random order drawn from the release's root
    (:func:`~authormask.randomness.release_order`; the dataset is read once more to count its
    records), and each partition's line of the private report maps its numbers to the input's
    ids.

    Running the same command again after it finished writes nothing and returns a summary with
    ``already_complete``; another command into the same output is refused, naming what differs
    (:func:`~authormask.core.journal.describe_change`). Only one release at a time writes
    into one output (:func:`~authormask.core.journal.output_lock`). A failure to write (disk
    full, file too large, ...) raises :class:`~authormask.exceptions.InputError` naming the
    output; what was released stays to be resumed, and no temporary file is left.

    Parameters
    ----------
    table
        The dataset to release (:meth:`TableInput.open`).
    mechanism
        The mechanism to release with.
    output
        The JSONL file or Parquet folder to write, or None (JSONL on standard output).
    fmt
        The output format: ``"jsonl"`` or ``"parquet"``.
    engine
        The engine to run on (None: local).
    random_state
        The secret seed: None (fresh OS entropy), an int, or a numpy Generator.
    report_path
        Where to write the private report (the journal a rerun resumes from), or None.
    force
        Whether to release over a finished release or another command's unfinished one.
    partition_records
        The number of records per partition.
    progress
        Called with the records released.
    on_start
        Called with the number of partitions kept from an unfinished run.
    on_text
        Called with the text of every record, as this process reads it.

    Returns
    -------
    TableSummary
        What the CLI prints after the release.

    Raises
    ------
    InputError
        If ``output`` has no name, or writing fails.
    InvalidParameterError
        If ``fmt`` is unknown, or a Parquet release has no ``output``.
    """
    output = _checked_output(output, fmt)
    where = _Where(output, fmt, report_path, force, partition_records)
    hooks = _Hooks(progress=progress, on_start=on_start, on_text=on_text)
    return _locked_release(table, mechanism, random_state, engine or Engine(), where, hooks)


@dataclass(frozen=True)
class _Where:
    """Where a dataset release goes (:func:`write_table_release`'s parameters of the same
    names): the output (None: standard output), its format, the private report, ``force`` and
    the records per partition."""

    output: Path | None
    fmt: str
    report_path: Path | None
    force: bool
    partition_records: int


@dataclass(frozen=True)
class _Hooks:
    """What the caller is told as a dataset release runs (:func:`write_table_release`)."""

    progress: Callable[[int], None] | None
    on_start: Callable[[int], None] | None
    on_text: Callable[[str], None] | None


def _checked_output(output: Path | None, fmt: str) -> Path | None:
    """The output as a path, checked before anything is read: a known format, a folder for
    Parquet, a file for JSONL, a name; standard output open where it goes there."""
    if fmt not in OUTPUT_FORMATS:
        raise InvalidParameterError(f"output format must be one of {', '.join(OUTPUT_FORMATS)}")
    if output is None and fmt != "jsonl":
        raise InvalidParameterError(
            "a Parquet release is a folder of part files: it cannot go to standard output; "
            "give `output`"
        )
    if fmt == "jsonl":
        check_file_output(
            output,
            what="a JSONL release",
            instead="a dataset goes into a folder with --format parquet",
        )
    if output is not None:
        output = Path(output)
        if not output.name:
            raise InputError(f"output path {output} has no name")
    else:
        check_stdout_open()
    return output


def _locked_release(
    table: TableInput,
    mechanism: Mechanism,
    random_state: RandomState,
    engine: Engine,
    where: _Where,
    hooks: _Hooks,
) -> TableSummary:
    """The release, holding the output's lock; a failure to write raises
    :class:`~authormask.exceptions.InputError` naming the output."""
    output = where.output
    named = str(output) if output is not None else "standard output"
    try:
        with output_lock(output) if output is not None else contextlib.nullcontext():
            return _write_table(table, mechanism, random_state, engine, where, hooks)
    except BrokenPipeError:
        raise
    except OSError as exc:  # disk full, file too large, quota, I/O error...
        at = f" (writing {exc.filename})" if exc.filename else ""
        raise InputError(
            f"cannot complete the release to {named}: {exc.strerror or exc}{at}"
        ) from None


def _identity(
    statement: Any,
    seed: int | None,
    table: TableInput,
    output: Path | None,
    fmt: str,
    partition_records: int,
) -> dict[str, Any]:
    """What the report's header keeps to name what differs when a rerun is not the same
    command (:func:`~authormask.core.journal.describe_change`)."""
    return {
        "mechanism": statement.mechanism,
        "seed": seed,
        "inputs": [list(f) for f in table.fingerprint()],
        "columns": {
            "text_column": table.text_column,
            "id_column": table.id_column,
            "keep_columns": list(table.keep_columns),
            "secret_ids": table.secret_ids,
        },
        "output": str(output.resolve()) if output is not None else "<stdout>",
        "format": fmt,
        "partition_records": partition_records,
        "statement": statement.to_dict(),
    }


@dataclass(frozen=True)
class _TablePlan:
    """What a dataset release is, decided before anything is written: where it goes, the
    mechanism (its N resolved), the seed and its root, the statement (and its text as
    written), the paths beside the output, and what names the command (its fingerprint and
    identity)."""

    where: _Where
    mechanism: Mechanism
    seed: SeedInfo
    root: np.random.SeedSequence
    statement: Any
    statement_json: str
    stmt_path: Path | None
    staging: Path | None
    run_id: str
    identity: dict[str, Any]


def _write_table(
    table: TableInput,
    mechanism: Mechanism,
    random_state: RandomState,
    engine: Engine,
    where: _Where,
    hooks: _Hooks,
) -> TableSummary:
    """A dataset release under its output's lock: its plan and the checks of its paths,
    nothing to do where the same command finished it, else its partitions not kept from an
    unfinished run released and the output published."""
    plan = _plan(table, mechanism, random_state, where)
    _check_paths(plan, table)
    prior = Journal.resumable(
        where.report_path,
        fingerprint=plan.run_id,
        force=where.force,
        schema=TABLE_REPORT_SCHEMA,
        identity=plan.identity,
    )
    if prior.complete:
        assert where.report_path is not None
        _check_complete(where.output, where.fmt, plan.stmt_path, where.report_path)
        return _already_complete(plan)
    # every record checked before anything is written (module notes)
    count_records = sum(1 for _ in table.records())
    if count_records == 0:
        raise InputError(f"dataset {table.path} has no records")
    if _ended_published(plan, prior.records or [], count_records):
        return _already_complete(plan)
    done = _kept_partitions(plan, prior.records or [])
    if where.fmt == "parquet":  # every part file's columns typed as the whole input's values are
        table = table.typed()
    return _release_partitions(plan, table, engine, hooks, done, count_records)


def _plan(
    table: TableInput, mechanism: Mechanism, random_state: RandomState, where: _Where
) -> _TablePlan:
    """The release's plan (:class:`_TablePlan`): the mechanism resolved, its statement with
    the dataset's columns declared, and the command's fingerprint and identity."""
    output, fmt, partition_records = where.output, where.fmt, where.partition_records
    seed = describe_seed(random_state)
    mechanism = _resolved(mechanism, table)
    root = mechanism_root(random_state, mechanism)  # the seed and the public parameters
    statement = declare_columns(mechanism.statement(seeded=seed.seeded), table)
    statement_json = statement.to_json(indent=2) + "\n"
    return _TablePlan(
        where=where,
        mechanism=mechanism,
        seed=seed,
        root=root,
        statement=statement,
        statement_json=statement_json,
        stmt_path=statement_path(output) if output is not None else None,
        staging=staging_path(output) if output is not None else None,
        run_id=_fingerprint(statement_json, seed.seed, table, output, fmt, partition_records),
        identity=_identity(statement, seed.seed, table, output, fmt, partition_records),
    )


def _check_paths(plan: _TablePlan, table: TableInput) -> None:
    """Nothing the user owns is replaced by its own release, not even with ``force``: no
    input, the report apart from what is published, nothing inside an input folder."""
    output, fmt, report_path = plan.where.output, plan.where.fmt, plan.where.report_path
    stmt_path, staging = plan.stmt_path, plan.staging
    check_not_inputs(
        table.input_files(),
        files=[report_path, stmt_path, *([output] if fmt == "jsonl" else [])],
        folders=[p for p in (output, staging) if p is not None],
        report=report_path,
    )
    check_report_apart(
        report_path,
        published=[stmt_path, *([output] if fmt == "jsonl" else [])],
        folders=[output if fmt != "jsonl" else None, staging],
    )
    if table.path.is_dir():  # a folder of Parquet files: nothing of the release goes inside
        check_outside_folders(
            [table.path],
            [
                ("the output", output),
                ("the privacy statement", stmt_path),
                ("the private report", report_path),
                ("the partial output", staging),
            ],
        )


def _already_complete(plan: _TablePlan) -> TableSummary:
    """The summary of a release the same command had already finished (nothing written)."""
    return TableSummary(
        statement=plan.statement,
        report_path=plan.where.report_path,
        statement_path=plan.stmt_path,
        already_complete=True,
    )


def _ended_published(plan: _TablePlan, records: list[dict[str, Any]], count_records: int) -> bool:
    """Whether the release was killed after its output appeared, before the report's last
    line (``records``: the report's lines): then the report is ended, and nothing released."""
    output, fmt, report_path = plan.where.output, plan.where.fmt, plan.where.report_path
    stmt_path, staging = plan.stmt_path, plan.staging
    if (
        report_path is not None
        and output is not None
        and staging is not None
        and stmt_path is not None
        and _made_by(records, output, fmt, count_records, plan.where.partition_records)
        and stmt_path.is_file()
        and not stmt_path.is_symlink()
        and stmt_path.read_bytes() == plan.statement_json.encode("utf-8")
    ):  # killed after the output appeared, before the report's last line: end the report
        _clear_staging(staging)
        parts = [r for r in records if "partition" in r]
        append_complete(
            report_path,
            {
                "complete": True,
                "records": count_records,
                "partitions": len(parts),
                "resumed": len(parts),
                "warnings": [w for r in parts for w in r.get("warnings", [])],
            },
        )
        return True
    return False


def _kept_partitions(plan: _TablePlan, records: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The partitions of an unfinished run of this command (``records``: the report's lines)
    whose files are still staged, by index; without any, the output and statement are
    checked and the staging folder is cleared, else the killed run's temporary files go."""
    output, fmt, force = plan.where.output, plan.where.fmt, plan.where.force
    stmt_path, staging = plan.stmt_path, plan.staging
    done: dict[int, dict[str, Any]] = {}
    if staging is not None:
        done = {
            int(r["partition"]): r
            for r in records
            if "partition" in r and (staging / str(r.get("file"))).is_file()
        }
    if output is not None and staging is not None:
        assert stmt_path is not None
        if not done:
            _check_output(output, fmt, force=force)
            check_target(stmt_path, force=force)
            _clear_staging(staging)
        else:  # temporary files of the killed run
            for entry in os.scandir(staging):
                if entry.name.endswith(".tmp") and entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
        if os.path.lexists(staging) and (staging.is_symlink() or not staging.is_dir()):
            raise InputError(f"{staging} is in the way (it is not a folder authormask made)")
    return done


def _release_partitions(
    plan: _TablePlan,
    table: TableInput,
    engine: Engine,
    hooks: _Hooks,
    done: dict[int, dict[str, Any]],
    count_records: int,
) -> TableSummary:
    """Release the partitions not ``done`` (kept from an unfinished run) and publish the
    output: the report started, the staging folder made, each partition released, then the
    statement, the output and the report's last line."""
    report_path, staging = plan.where.report_path, plan.staging
    summary = TableSummary(
        statement=plan.statement,
        resumed=len(done),
        report_path=report_path,
        statement_path=plan.stmt_path,
    )
    numbers: list[int] | None = None
    secret: dict[str, Any] = {}
    if table.secret_ids:
        entropy = _ids_entropy(plan.root) if not done else _resumed_ids_entropy(report_path)
        numbers = _secret_numbers(entropy, count_records)
        secret["ids_entropy"] = entropy  # private: the order of the ids, to resume it
    if hooks.on_start is not None:
        hooks.on_start(len(done))
    journal = _started_journal(plan, table, engine, done, secret)
    created = staging is not None and not staging.exists()
    if staging is not None:
        staging.mkdir(parents=True, exist_ok=True)
    job = _job(plan, table, engine)
    for info in done.values():
        summary.records += int(info.get("records", 0))
        summary.warnings.extend(info.get("warnings", []))
    run = _Partitions(table, plan.where.partition_records, hooks, done, numbers, journal, summary)

    def leave_nothing() -> None:
        if created and staging is not None:
            with contextlib.suppress(OSError):
                _clear_staging(staging)

    with cleanup_on_failure(
        journal, report_path, released=lambda: bool(done), leave_nothing=leave_nothing
    ):
        _run_partitions(run, engine, job, staging, plan.where.fmt)
        if run.count == 0:
            raise InputError(f"dataset {table.path} has no records")
        summary.partitions = run.count
        _publish(plan, journal, summary, run.count)
    return summary


def _started_journal(
    plan: _TablePlan,
    table: TableInput,
    engine: Engine,
    done: dict[int, dict[str, Any]],
    secret: dict[str, Any],
) -> Journal | None:
    """The private report, started: its header, then the lines of the partitions kept."""
    report_path, output = plan.where.report_path, plan.where.output
    journal = Journal(report_path) if report_path is not None else None
    if journal is not None:
        journal.start(
            Journal.header(
                TABLE_REPORT_SCHEMA,
                plan.run_id,
                plan.statement,
                plan.seed,
                input=str(table.path),
                output=str(output) if output is not None else "<stdout>",
                format=plan.where.fmt,
                engine=engine.describe(),
                partition_records=plan.where.partition_records,
                identity=plan.identity,
                **secret,
            ),
            [done[k] for k in sorted(done)],
        )
    return journal


def _job(plan: _TablePlan, table: TableInput, engine: Engine) -> Job:
    """What every partition's task is given: the mechanism (its recipe on Dask, itself
    here), the root, the format and the columns."""
    job = Job(
        recipe=recipe_of(plan.mechanism) if engine.kind == "dask" else None,
        key="",
        root=plan.root,
        seeded=plan.seed.seeded,
        output_format=plan.where.fmt,
        id_name=table.id_name,
        text_name=table.text_column,
        keep_names=table.keep_columns,
        table=table,
        statement_json=plan.statement_json,
        local=plan.mechanism if engine.kind == "local" else None,
    )
    if job.recipe is not None:
        job.key = job_key(job.recipe)
    return job


class _Partitions:
    """The partitions of a dataset release as they run: those to release, read in the input's
    order (:meth:`todo`), and each finished one recorded (:meth:`finished`)."""

    def __init__(
        self,
        table: TableInput,
        partition_records: int,
        hooks: _Hooks,
        done: dict[int, dict[str, Any]],
        numbers: list[int] | None,
        journal: Journal | None,
        summary: TableSummary,
    ) -> None:
        self.table = table
        self.partition_records = partition_records
        self.hooks = hooks
        #: the finished partitions' report lines, by index (those kept, then those released)
        self.done = done
        #: the secret numbers of the records, by position (None: not secret)
        self.numbers = numbers
        self.journal = journal
        self.summary = summary
        #: the partitions read so far
        self.count = 0
        #: private: which input record each number is, per partition released
        self.originals: dict[int, list[list[Any]]] = {}

    def todo(self) -> Iterator[Partition]:
        """The partitions to release: every text read shown to ``on_text``, the partitions
        kept skipped, the secret numbers put in place of the ids (the private map kept)."""
        on_text = self.hooks.on_text
        for part in partitions(self.table.records(), size=self.partition_records):
            self.count = part.index + 1
            if on_text is not None:
                for text in part.texts:
                    on_text(text)
            if part.index in self.done:
                continue
            if self.numbers is not None:  # the secret numbers replace the ids (private map kept)
                numbers = self.numbers
                ids = tuple(numbers[part.start + i] for i in range(len(part.ids)))
                self.originals[part.index] = [
                    [k, _json_id(i)] for k, i in zip(ids, part.ids, strict=True)
                ]
                part = dataclasses.replace(part, ids=ids)
            yield part

    def finished(self, result: PartitionResult, name: str | None) -> None:
        """Record a released partition (staged as ``name``, or written to standard output):
        its report line, the summary and the progress."""
        record = {
            "partition": result.index,
            **({"file": name} if name is not None else {}),
            "records": result.records,
            "characters": result.characters,
            **result.diagnostics,
            "warnings": list(result.warnings),
        }
        if result.index in self.originals:  # private: which input record each number is
            record["ids"] = self.originals.pop(result.index)
        self.done[result.index] = record
        if self.journal is not None:
            self.journal.add(record)
        self.summary.records += result.records
        self.summary.warnings.extend(result.warnings)
        if self.hooks.progress is not None:
            self.hooks.progress(result.records)


def _run_partitions(
    run: _Partitions, engine: Engine, job: Job, staging: Path | None, fmt: str
) -> None:
    """Release every partition of ``run`` on ``engine``: each staged whole (temporary file and
    rename), or, without a staging folder, written to standard output in the input's order."""
    waiting: dict[int, PartitionResult] = {}  # standard output: written in the input's order
    with open_executor(engine) as executor:
        for _, result in executor.map(release_partition, run.todo(), shared=job):
            assert isinstance(result.payload, bytes)
            if staging is None:
                waiting[result.index] = result
                while len(run.done) in waiting:  # the next partition in the input's order
                    ready = waiting.pop(len(run.done))
                    assert isinstance(ready.payload, bytes)
                    _write_stdout(ready.payload)
                    run.finished(ready, None)
                continue
            name = f"part-{result.index:05d}.{fmt}"
            with atomic_path(staging / name, force=True) as tmp:
                tmp.write_bytes(result.payload)
            run.finished(result, name)


def _publish(plan: _TablePlan, journal: Journal | None, summary: TableSummary, count: int) -> None:
    """The last steps, never cut in two by Ctrl-C: the statement (a rerun writes it again),
    then the output appears, then the report says the release is complete."""
    output, fmt, force = plan.where.output, plan.where.fmt, plan.where.force
    stmt_path, staging = plan.stmt_path, plan.staging
    with deferred_interrupt():
        if output is not None and staging is not None:
            assert stmt_path is not None
            write_text_atomic(stmt_path, plan.statement_json)
            if journal is not None:  # a rerun after a kill checks the output against it
                journal.add({"publishing": _staged_digests(staging, fmt, count)})
            _finish(staging, output, fmt, count, force=force)
        if journal is not None:
            journal.finish(
                {
                    "complete": True,
                    "records": summary.records,
                    "partitions": summary.partitions,
                    "resumed": summary.resumed,
                    "warnings": summary.warnings,
                }
            )


def _write_stdout(payload: bytes) -> None:
    """A partition's JSONL lines on standard output (UTF-8, whatever its text encoding), whole
    or an error (:func:`~authormask._io.write_stdout_bytes`)."""
    write_stdout_bytes(payload)


def _staged_digests(folder: Path, fmt: str, count: int) -> list[str]:
    """The SHA-256 of what the output will hold: the JSONL of every staged partition in
    order (one digest), or each Parquet part file (one digest each)."""
    names = [f"part-{i:05d}.{fmt}" for i in range(count)]
    if fmt != "jsonl":
        return [file_sha256(folder / n) for n in names]
    digest = hashlib.sha256()
    for n in names:
        with open(folder / n, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return [digest.hexdigest()]


def _made_by(
    records: list[dict[str, Any]], output: Path, fmt: str, count: int, per_partition: int
) -> bool:
    """Whether ``output`` is the complete output of the run whose report lines are ``records``
    (the same command: the report's fingerprint matched): every partition is recorded, their
    records add up to the dataset's ``count``, and the output has the SHA-256 digests the report
    recorded just before it appeared (another release's output is not accepted)."""
    parts = {int(r["partition"]): r for r in records if "partition" in r}
    expected = -(-count // per_partition)
    if sorted(parts) != list(range(expected)):
        return False
    if sum(int(r.get("records", 0)) for r in parts.values()) != count:
        return False
    published: list[list[str]] = [list(r["publishing"]) for r in records if "publishing" in r]
    if not published or output.is_symlink():
        return False
    if fmt == "jsonl":
        return output.is_file() and [file_sha256(output)] == published[-1]
    if not output.is_dir():
        return False
    names = sorted(e.name for e in os.scandir(output))
    if names != [f"part-{i:05d}.{fmt}" for i in range(expected)]:
        return False
    return [file_sha256(output / n) for n in names] == published[-1]


def _check_complete(output: Path | None, fmt: str, stmt: Path | None, report_path: Path) -> None:
    """A finished release of the same command: its output and statement must still be there
    (nothing is written again); standard output cannot hold a finished release."""
    if output is None or stmt is None:
        raise InputError(
            f"a finished release is already there ({report_path} says so); use `force` to "
            "release again over it"
        )
    if fmt == "jsonl":
        there = output.is_file() and not output.is_symlink()
    else:
        there = output.is_dir() and not output.is_symlink()
        if there:
            with os.scandir(output) as entries:
                there = any(PART_FILE.match(e.name) for e in entries)
    missing = output if not there else stmt if not stmt.is_file() else None
    if missing is not None:
        raise InputError(
            f"{report_path} records a finished release of this command, but {missing} is gone; "
            "use `force` to release again"
        )


def declare_columns(statement: Any, table: TableInput) -> Any:
    """``statement`` with what a dataset release publishes beside the texts: how the records
    are named (the id column's values, published unchanged; the record's number; or numbers in
    a secret random order), the kept columns (published unchanged) and the records' order (the
    input's). Public parameters only: the column names and the choices, never a value.

    Parameters
    ----------
    statement
        The mechanism's privacy statement.
    table
        The dataset released.

    Returns
    -------
    Any
        The statement with the dataset's policies and what it publishes unchanged.
    """
    policies = dict(statement.policies)
    published: list[str] = []
    if table.secret_ids:
        policies["ids"] = (
            "every record is named by a number 1..n (n: the number of records) drawn in a "
            "secret random order, independent of the texts and of the input's ids"
        )
    elif table.id_column is None:
        policies["ids"] = "every record is named by its number in the input (1, 2, ...)"
    else:
        policies["ids"] = (
            f"the input's column {table.id_column!r}, published unchanged as every record's id "
            "(NOT protected: an id such as a user name or an e-mail address can identify the "
            "author)"
        )
        published.append(f"the id column {table.id_column!r}")
    if table.keep_columns:
        names = ", ".join(repr(c) for c in table.keep_columns)
        policies["kept columns"] = (
            f"{names}: copied from the input unchanged beside every released text (NOT "
            "protected: a user name, a date or a place can identify the author)"
        )
        published.append(f"the kept column(s) {names}")
    policies["text column"] = (
        f"{table.text_column!r}: its name is published as the key of every released text (a "
        "column name can say who wrote the texts: rename it before the release if it does)"
    )
    policies["record order"] = (
        "the input's order, published: the k-th output record is the k-th input record (an "
        "order that follows the authors or the time can identify them; shuffle such a dataset "
        "before releasing it)"
    )
    unchanged = statement.released_unchanged
    if published:
        unchanged = (
            f"{unchanged}; {' and '.join(published)} of every record, published beside its "
            "text (NOT protected)"
        )
    return dataclasses.replace(statement, policies=policies, released_unchanged=unchanged)


#: the spawn key under which a dataset release draws the secret order of its records' numbers
#: (above any record position, and not the order key of a text release)
_IDS_KEY = 2**64 + int.from_bytes(b"record ids", "big")


def _ids_entropy(root: np.random.SeedSequence) -> int:
    """128 bits drawn from the release's root for the secret order of the records' numbers: the
    same for the same seed; kept in the private report, so that a resumed release (of an
    unseeded run too) numbers its records in the same order."""
    child = np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, _IDS_KEY))
    return int.from_bytes(child.generate_state(4, np.uint32).tobytes(), "little")


def _resumed_ids_entropy(report_path: Path | None) -> int:
    header = Journal.read(report_path, TABLE_REPORT_SCHEMA)[0] if report_path else None
    entropy = header.get("ids_entropy") if header is not None else None
    if not isinstance(entropy, int) or isinstance(entropy, bool) or entropy < 0:
        raise InputError(
            f"{report_path} records an unfinished release without the secret order of its "
            "ids; add `force` to start over"
        )
    return entropy


def _secret_numbers(entropy: int, n: int) -> list[int]:
    """``numbers[position]``: the public number (1..n) of the record at ``position``, in the
    secret order :func:`~authormask.randomness.release_order` draws."""
    numbers = [0] * n
    for k, position in enumerate(release_order(np.random.SeedSequence(entropy), n)):
        numbers[position] = k + 1
    return numbers


def _json_id(value: Any) -> Any:
    """An input id as the private report holds it (a value JSON has no type for, as text)."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return value
    return str(value)


def _resolved(mechanism: Mechanism, table: TableInput) -> Mechanism:
    """``emp-bag`` with ``length="shortest"``: N from a first pass over the texts."""
    if not mechanism.needs_all_documents:
        return mechanism
    sources = (
        TextSource(f"{r.where} (id {r.id!r})", str(r.id), len(r.text), r.text)
        for r in table.records()
    )  # read once, in order
    return resolve_length(mechanism, sources, progress=None)


def _finish(staging: Path, output: Path, fmt: str, count: int, *, force: bool) -> None:
    """Make the output appear, complete, from the staged partitions."""
    names = [f"part-{i:05d}.{fmt}" for i in range(count)]
    missing = [n for n in names if not (staging / n).is_file()]
    if missing:  # pragma: no cover - every partition was released above
        raise InputError(f"partition file {staging / missing[0]} is missing")
    if fmt == "jsonl":
        check_target(output, force=force)
        fd, tmp = temporary_beside(output)
        try:
            with os.fdopen(fd, "wb") as out:
                for n in names:
                    with open(staging / n, "rb") as part:
                        shutil.copyfileobj(part, out, 1 << 20)
                out.flush()
                os.fsync(out.fileno())
            commit(tmp, output, synced=True)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _clear_staging(staging)
        return
    for entry in os.scandir(staging):  # only the part files go out
        if not PART_FILE.match(entry.name):
            os.unlink(entry.path)
    same_times([staging / n for n in names])
    os.chmod(staging, umask_mode(0o777))
    if os.path.lexists(output):
        _check_output(output, fmt, force=force)
        old = output.with_name(f".{output.name}.replaced")
        _clear_staging(old)
        os.replace(output, old)
        os.replace(staging, output)
        _clear_staging(old)
    else:
        os.replace(staging, output)
