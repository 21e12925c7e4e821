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
from authormask.randomness import RandomState, describe_seed, mechanism_root, release_order

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
    (a Parquet output has one part file per partition). ``progress`` is called with the records
    released; ``on_start`` with the number of partitions kept from an unfinished run;
    ``on_text`` with the text of every record, as this process reads it.

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
    where = str(output) if output is not None else "standard output"
    try:
        with output_lock(output) if output is not None else contextlib.nullcontext():
            return _write_table(
                table,
                mechanism,
                output,
                fmt=fmt,
                engine=engine or Engine(),
                random_state=random_state,
                report_path=report_path,
                force=force,
                partition_records=partition_records,
                progress=progress,
                on_start=on_start,
                on_text=on_text,
            )
    except BrokenPipeError:
        raise
    except OSError as exc:  # disk full, file too large, quota, I/O error...
        named = f" (writing {exc.filename})" if exc.filename else ""
        raise InputError(
            f"cannot complete the release to {where}: {exc.strerror or exc}{named}"
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


def _write_table(
    table: TableInput,
    mechanism: Mechanism,
    output: Path | None,
    *,
    fmt: str,
    engine: Engine,
    random_state: RandomState,
    report_path: Path | None,
    force: bool,
    partition_records: int,
    progress: Callable[[int], None] | None,
    on_start: Callable[[int], None] | None,
    on_text: Callable[[str], None] | None,
) -> TableSummary:
    seed = describe_seed(random_state)
    mechanism = _resolved(mechanism, table)
    root = mechanism_root(random_state, mechanism)  # the seed and the public parameters
    statement = declare_columns(mechanism.statement(seeded=seed.seeded), table)
    statement_json = statement.to_json(indent=2) + "\n"
    stmt_path = statement_path(output) if output is not None else None
    staging = staging_path(output) if output is not None else None
    run_id = _fingerprint(statement_json, seed.seed, table, output, fmt, partition_records)
    identity = _identity(statement, seed.seed, table, output, fmt, partition_records)

    # nothing the user owns is replaced by its own release, not even with --force
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
    prior = Journal.resumable(
        report_path,
        fingerprint=run_id,
        force=force,
        schema=TABLE_REPORT_SCHEMA,
        identity=identity,
    )
    if prior.complete:
        assert report_path is not None
        _check_complete(output, fmt, stmt_path, report_path)
        return TableSummary(
            statement=statement,
            report_path=report_path,
            statement_path=stmt_path,
            already_complete=True,
        )
    # every record checked before anything is written (module notes)
    count_records = sum(1 for _ in table.records())
    if count_records == 0:
        raise InputError(f"dataset {table.path} has no records")
    if (
        report_path is not None
        and output is not None
        and staging is not None
        and stmt_path is not None
        and _made_by(prior.records or [], output, fmt, count_records, partition_records)
        and stmt_path.is_file()
        and not stmt_path.is_symlink()
        and stmt_path.read_bytes() == statement_json.encode("utf-8")
    ):  # killed after the output appeared, before the report's last line: end the report
        _clear_staging(staging)
        parts = [r for r in prior.records or [] if "partition" in r]
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
        return TableSummary(
            statement=statement,
            report_path=report_path,
            statement_path=stmt_path,
            already_complete=True,
        )
    done: dict[int, dict[str, Any]] = {}
    if staging is not None:
        done = {
            int(r["partition"]): r
            for r in prior.records or []
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
    if fmt == "parquet":  # every part file's columns typed as the whole input's values are
        table = table.typed()
    summary = TableSummary(
        statement=statement,
        resumed=len(done),
        report_path=report_path,
        statement_path=stmt_path,
    )
    numbers: list[int] | None = None
    secret: dict[str, Any] = {}
    if table.secret_ids:
        entropy = _ids_entropy(root) if not done else _resumed_ids_entropy(report_path)
        numbers = _secret_numbers(entropy, count_records)
        secret["ids_entropy"] = entropy  # private: the order of the ids, to resume it
    if on_start is not None:
        on_start(len(done))
    journal = Journal(report_path) if report_path is not None else None
    if journal is not None:
        journal.start(
            Journal.header(
                TABLE_REPORT_SCHEMA,
                run_id,
                statement,
                seed,
                input=str(table.path),
                output=str(output) if output is not None else "<stdout>",
                format=fmt,
                engine=engine.describe(),
                partition_records=partition_records,
                identity=identity,
                **secret,
            ),
            [done[k] for k in sorted(done)],
        )
    created = staging is not None and not staging.exists()
    if staging is not None:
        staging.mkdir(parents=True, exist_ok=True)
    job = Job(
        recipe=recipe_of(mechanism) if engine.kind == "dask" else None,
        key="",
        root=root,
        seeded=seed.seeded,
        output_format=fmt,
        id_name=table.id_name,
        text_name=table.text_column,
        keep_names=table.keep_columns,
        table=table,
        statement_json=statement_json,
        local=mechanism if engine.kind == "local" else None,
    )
    if job.recipe is not None:
        job.key = job_key(job.recipe)
    count = 0
    for info in done.values():
        summary.records += int(info.get("records", 0))
        summary.warnings.extend(info.get("warnings", []))

    originals: dict[int, list[list[Any]]] = {}

    def todo() -> Iterator[Partition]:
        nonlocal count
        for part in partitions(table.records(), size=partition_records):
            count = part.index + 1
            if on_text is not None:
                for text in part.texts:
                    on_text(text)
            if part.index in done:
                continue
            if numbers is not None:  # the secret numbers replace the ids (private map kept)
                ids = tuple(numbers[part.start + i] for i in range(len(part.ids)))
                originals[part.index] = [
                    [k, _json_id(i)] for k, i in zip(ids, part.ids, strict=True)
                ]
                part = dataclasses.replace(part, ids=ids)
            yield part

    def leave_nothing() -> None:
        if created and staging is not None:
            with contextlib.suppress(OSError):
                _clear_staging(staging)

    def finished(result: PartitionResult, name: str | None) -> None:
        record = {
            "partition": result.index,
            **({"file": name} if name is not None else {}),
            "records": result.records,
            "characters": result.characters,
            **result.diagnostics,
            "warnings": list(result.warnings),
        }
        if result.index in originals:  # private: which input record each number is
            record["ids"] = originals.pop(result.index)
        done[result.index] = record
        if journal is not None:
            journal.add(record)
        summary.records += result.records
        summary.warnings.extend(result.warnings)
        if progress is not None:
            progress(result.records)

    waiting: dict[int, PartitionResult] = {}  # standard output: written in the input's order
    with cleanup_on_failure(
        journal, report_path, released=lambda: bool(done), leave_nothing=leave_nothing
    ):
        with open_executor(engine) as executor:
            for _, result in executor.map(release_partition, todo(), shared=job):
                assert isinstance(result.payload, bytes)
                if staging is None:
                    waiting[result.index] = result
                    while len(done) in waiting:  # the next partition in the input's order
                        ready = waiting.pop(len(done))
                        assert isinstance(ready.payload, bytes)
                        _write_stdout(ready.payload)
                        finished(ready, None)
                    continue
                name = f"part-{result.index:05d}.{fmt}"
                with atomic_path(staging / name, force=True) as tmp:
                    tmp.write_bytes(result.payload)
                finished(result, name)
        if count == 0:
            raise InputError(f"dataset {table.path} has no records")
        summary.partitions = count
        # the last steps are never cut in two by Ctrl-C: the statement (a rerun writes it
        # again), then the output appears, then the report says the release is complete
        with deferred_interrupt():
            if output is not None and staging is not None:
                assert stmt_path is not None
                write_text_atomic(stmt_path, statement_json)
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
    return summary


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
