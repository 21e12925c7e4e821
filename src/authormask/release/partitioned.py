"""Releasing a dataset in partitions, on the local engine or on Dask, with identical results.

The client reads the dataset record by record and cuts it into partitions of a fixed number of
records, ``partition_records``: a public rule, so two datasets with the same number of records
give the same partitions whatever their texts (a cut by characters would let the part files of
a Parquet output reveal the lengths of the original texts). Each partition is a task:
:func:`release_partition` releases its records through the release layer
(:class:`~authormask.release.stream.ReleaseStream`, the one way a mechanism is run) and returns the
partition's output file as bytes. Record i draws from the generator of position i derived from
the release's secret root (:func:`~authormask.randomness.document_generator`), so a seeded
release gives the same bytes with the local engine, with any number of workers and with any
partition size.

Files:

* the output is a JSONL file or a Parquet dataset (a folder of ``part-NNNNN.parquet`` files, one
  per partition); the public statement is written once, beside it (``<output>.privacy.json``),
  and in each Parquet file's metadata (``authormask.privacy``);
* finished partitions are written, each complete (temporary file and rename), into a hidden
  folder beside the output (``.<output>.partial``); the output appears only when every
  partition is done (a rename for Parquet, a concatenation then a rename for JSONL);
* the private report (mode 0600) is the journal: its parameters, then a line per finished
  partition, then a last line when the release is complete. Running the same command again
  after a crash or a SIGKILL (of the client or of a worker) keeps the finished partitions and
  releases the others; Dask itself retries a partition whose worker died.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import pickle
import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from authormask._io import (
    atomic_path,
    check_not_inputs,
    check_target,
    commit,
    temporary_beside,
    umask_mode,
    write_atomic,
)
from authormask._process import process_memo
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism
from authormask.randomness import RandomState, describe_seed, root_seed_sequence
from authormask.release.executors import Engine, open_executor
from authormask.release.journal import (
    TABLE_REPORT_SCHEMA,
    Journal,
    cleanup_on_failure,
    fingerprint,
    jsonl,
)
from authormask.release.registry import Recipe, recipe_of
from authormask.release.sources import Source, TextSource
from authormask.release.stream import Done, Piece, release_stream, resolve_length
from authormask.release.tables import Record, TableInput

__all__ = [
    "DEFAULT_PARTITION_RECORDS",
    "OUTPUT_FORMATS",
    "Partition",
    "PartitionResult",
    "TableSummary",
    "partitions",
    "release_partition",
    "write_table_release",
]

logger = logging.getLogger(__name__)

OUTPUT_FORMATS = ("jsonl", "parquet")
#: records per partition, by default (a public number, never taken from the data)
DEFAULT_PARTITION_RECORDS = 1000
#: the report's schema (2: partitions are cut by records, no longer by characters)
_PART = re.compile(r"^part-(\d{5,})\.(jsonl|parquet)$")


@dataclass(frozen=True)
class Partition:
    """Consecutive records of a dataset: positions ``start`` to ``start + len(ids) - 1``."""

    index: int
    start: int
    ids: tuple[Any, ...]
    texts: tuple[str, ...]
    keep: tuple[tuple[Any, ...], ...]
    wheres: tuple[str, ...]

    @property
    def characters(self) -> int:
        return sum(len(t) for t in self.texts)


def partitions(
    records: Iterable[Record], *, size: int = DEFAULT_PARTITION_RECORDS
) -> Iterator[Partition]:
    """Cut ``records`` into partitions of ``size`` records (the last one may be shorter): a
    public rule, so the partitions depend on the number of records alone, never on the texts.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise InvalidParameterError(f"partition size must be an integer >= 1, got {size!r}")
    buf: list[Record] = []
    index = 0

    def cut() -> Partition:
        return Partition(
            index,
            buf[0].position,
            tuple(r.id for r in buf),
            tuple(r.text for r in buf),
            tuple(r.keep for r in buf),
            tuple(r.where for r in buf),
        )

    for rec in records:
        buf.append(rec)
        if len(buf) >= size:
            yield cut()
            index += 1
            buf = []
    if buf:
        yield cut()


# --- the task -------------------------------------------------------------------------------


@dataclass
class Job:
    """What every partition task needs (sent to each worker once)."""

    recipe: Recipe | None
    key: str
    root: np.random.SeedSequence
    seeded: bool
    output_format: str  # "jsonl", "parquet" or "records" (in-memory release)
    id_name: str = "id"
    text_name: str = "text"
    keep_names: tuple[str, ...] = ()
    table: TableInput | None = None
    statement_json: str = ""
    #: the mechanism itself, for the local engine (never pickled: a worker builds its own)
    local: Mechanism | None = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["local"] = None
        return state

    def mechanism(self) -> Mechanism:
        if self.local is not None:
            return self.local
        recipe = self.recipe
        assert recipe is not None
        return process_memo("mechanism:" + self.key, recipe.build)


@dataclass(frozen=True)
class PartitionResult:
    """A released partition: the part file's bytes (or the records, in memory), its record
    count, and private diagnostics and warnings for the report."""

    index: int
    records: int
    characters: int
    payload: bytes | list[dict[str, Any]]
    diagnostics: dict[str, Any]
    warnings: tuple[str, ...]


def release_partition(job: Job, part: Partition) -> PartitionResult:
    """Release one partition (the task the engines run; see the module docstring)."""
    mechanism = job.mechanism()
    sources: list[Source] = [
        TextSource(f"{where} (id {ident!r})", str(ident), len(text), text)
        for ident, text, where in zip(part.ids, part.texts, part.wheres, strict=True)
    ]
    stream = _stream(sources, mechanism, job.root, part.start, job.output_format == "records")
    pieces: list[list[str]] = [[] for _ in sources]
    dones: list[Done | None] = [None] * len(sources)
    for event in stream:
        i = event.position - part.start
        if isinstance(event, Piece):
            pieces[i].append(event.text)
        else:
            dones[i] = event
    totals: dict[str, Any] = {}
    warnings: list[str] = []
    rows: list[dict[str, Any]] = []
    for i, done in enumerate(dones):
        assert done is not None
        warnings.extend(done.warnings)
        for k, v in done.diagnostics.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                totals[k] = totals.get(k, 0) + v
        row: dict[str, Any] = {job.id_name: part.ids[i], job.text_name: "".join(pieces[i])}
        if done.bag is not None:
            row["bag"] = done.bag
        row.update(done.figures)
        if job.output_format == "records":
            row["words"] = done.words
            row["diagnostics"] = done.diagnostics
        row.update(zip(job.keep_names, part.keep[i], strict=True))
        rows.append(row)
    payload: bytes | list[dict[str, Any]]
    if job.output_format == "jsonl":
        payload = "".join(jsonl(r) + "\n" for r in rows).encode("utf-8")
    elif job.output_format == "parquet":
        payload = _parquet_bytes(job, rows)
    else:
        payload = rows
    return PartitionResult(part.index, len(rows), part.characters, payload, totals, tuple(warnings))


def _stream(
    sources: Sequence[Source],
    mechanism: Mechanism,
    root: np.random.SeedSequence,
    start: int,
    collect_words: bool,
) -> Iterable[Piece | Done]:
    return release_stream(
        sources, mechanism, random_state=root, start=start, collect_words=collect_words
    )


def _parquet_bytes(job: Job, rows: list[dict[str, Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = job.table
    assert table is not None
    schema = table.arrow_schema()
    columns: dict[str, list[Any]] = {
        job.id_name: [
            table.arrow_value(r[job.id_name]) if table.id_column else r[job.id_name] for r in rows
        ],
        job.text_name: [r[job.text_name] for r in rows],
    }
    extra = [k for k in rows[0] if k not in schema.names]  # bag and per-output figures
    for name in job.keep_names:
        columns[name] = [table.arrow_value(r[name]) for r in rows]
    arrays = [pa.array(columns[f.name], type=f.type) for f in schema]
    fields = list(schema)
    for name in extra:
        values = [r.get(name) for r in rows]
        if name == "bag":
            typ: Any = pa.map_(pa.string(), pa.int64())
            values = [list(v.items()) if v is not None else None for v in values]
        elif all(isinstance(v, int) for v in values):
            typ = pa.int64()
        else:
            typ = pa.float64()
        arrays.append(pa.array(values, type=typ))
        fields.append(pa.field(name, typ))
    out = pa.Table.from_arrays(
        arrays, schema=pa.schema(fields, metadata={"authormask.privacy": job.statement_json})
    )
    buf = io.BytesIO()
    pq.write_table(out, buf)
    return buf.getvalue()


# --- the driver -----------------------------------------------------------------------------


@dataclass
class TableSummary:
    """What the CLI prints after a dataset release (never published)."""

    statement: Any
    records: int = 0
    partitions: int = 0
    resumed: int = 0
    warnings: list[str] = field(default_factory=list)
    report_path: Path | None = None
    statement_path: Path | None = None


def staging_path(output: Path) -> Path:
    """The hidden folder beside ``output`` where finished partitions wait."""
    return output.with_name(f".{output.name}.partial")


def statement_path(output: Path) -> Path:
    return output.with_name(output.name + ".privacy.json")


def _job_key(recipe: Recipe) -> str:
    return hashlib.sha256(pickle.dumps(recipe)).hexdigest()


def _fingerprint(
    statement_json: str,
    seed: int | None,
    table: TableInput,
    output: Path,
    fmt: str,
    partition_records: int,
) -> str:
    items = (
        statement_json,
        ("seed", seed),
        table.fingerprint(),
        (table.text_column, table.id_column, table.keep_columns),
        (str(output.resolve()), fmt, ("records", partition_records)),
    )
    return fingerprint(repr(item).encode() for item in items)


def _clear_staging(staging: Path) -> None:
    """Remove a staging folder of ours: only part files and temporary files, then the folder."""
    if not staging.is_dir() or staging.is_symlink():
        return
    for entry in os.scandir(staging):
        name = entry.name
        if entry.is_file(follow_symlinks=False) and (_PART.match(name) or name.endswith(".tmp")):
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
    foreign = [e.name for e in os.scandir(output) if not _PART.match(e.name)]
    if foreign:
        raise InputError(
            f"output folder {output} holds {foreign[0]!r}, which authormask did not write; "
            "refusing to replace it (even with `force`)"
        )


def write_table_release(
    table: TableInput,
    mechanism: Mechanism,
    output: Path,
    *,
    fmt: str = "jsonl",
    engine: Engine | None = None,
    random_state: RandomState = None,
    report_path: Path | None = None,
    force: bool = False,
    partition_records: int = DEFAULT_PARTITION_RECORDS,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> TableSummary:
    """Release the text column of ``table`` into ``output`` (JSONL file or Parquet folder) on
    ``engine`` (see the module docstring), in partitions of ``partition_records`` records
    (a Parquet output has one part file per partition). ``progress`` is called with the records
    released; ``on_start`` with the number of partitions kept from an unfinished run.
    """
    if fmt not in OUTPUT_FORMATS:
        raise InvalidParameterError(f"output format must be one of {', '.join(OUTPUT_FORMATS)}")
    engine = engine or Engine()
    output = Path(output)
    if not output.name:
        raise InputError(f"output path {output} has no name")
    seed = describe_seed(random_state)
    root = root_seed_sequence(random_state)
    mechanism = _resolved(mechanism, table)
    statement = mechanism.statement(seeded=seed.seeded)
    statement_json = statement.to_json(indent=2) + "\n"
    stmt_path = statement_path(output)
    staging = staging_path(output)
    run_id = _fingerprint(statement_json, seed.seed, table, output, fmt, partition_records)

    # nothing the user owns is replaced by its own release, not even with --force
    check_not_inputs(
        table.input_files(),
        files=[report_path, stmt_path, *([output] if fmt == "jsonl" else [])],
        folders=[output, staging],
    )
    lines = Journal.resumable(
        report_path, fingerprint=run_id, force=force, schema=TABLE_REPORT_SCHEMA
    )
    done: dict[int, dict[str, Any]] = {
        int(r["partition"]): r
        for r in lines or []
        if "partition" in r and (staging / str(r.get("file"))).is_file()
    }
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
    summary = TableSummary(
        statement=statement,
        resumed=len(done),
        report_path=report_path,
        statement_path=stmt_path,
    )
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
                output=str(output),
                format=fmt,
                engine=engine.describe(),
                partition_records=partition_records,
            ),
            [done[k] for k in sorted(done)],
        )
    created = not staging.exists()
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
        job.key = _job_key(job.recipe)
    count = 0
    for info in done.values():
        summary.records += int(info.get("records", 0))
        summary.warnings.extend(info.get("warnings", []))

    def todo() -> Iterator[Partition]:
        nonlocal count
        for part in partitions(table.records(), size=partition_records):
            count = part.index + 1
            if part.index not in done:
                yield part

    def leave_nothing() -> None:
        if created:
            with contextlib.suppress(OSError):
                _clear_staging(staging)

    with cleanup_on_failure(
        journal, report_path, released=lambda: bool(done), leave_nothing=leave_nothing
    ):
        with open_executor(engine) as executor:
            for _, result in executor.map(release_partition, todo(), shared=job):
                name = f"part-{result.index:05d}.{fmt}"
                assert isinstance(result.payload, bytes)
                with atomic_path(staging / name, force=True) as tmp:
                    tmp.write_bytes(result.payload)
                record = {
                    "partition": result.index,
                    "file": name,
                    "records": result.records,
                    "characters": result.characters,
                    **result.diagnostics,
                    "warnings": list(result.warnings),
                }
                done[result.index] = record
                if journal is not None:
                    journal.add(record)
                summary.records += result.records
                summary.warnings.extend(result.warnings)
                if progress is not None:
                    progress(result.records)
        if count == 0:
            raise InputError(f"dataset {table.path} has no records")
        summary.partitions = count
        _finish(staging, output, fmt, count, force=force)
    write_atomic({stmt_path: statement_json}, force=True)
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
        if not _PART.match(entry.name):
            os.unlink(entry.path)
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


def release_on(
    engine: Engine,
    sources: Sequence[Source],
    mechanism: Mechanism,
    *,
    root: np.random.SeedSequence,
    seeded: bool,
    partition_records: int = DEFAULT_PARTITION_RECORDS,
) -> Iterator[tuple[int, list[dict[str, Any]], PartitionResult]]:
    """In-memory documents released on ``engine`` in partitions: ``(first position, rows,
    result)`` per partition, in the order they finish (for :func:`authormask.release`)."""

    def records() -> Iterator[Record]:
        for i, s in enumerate(sources):
            text = "".join(s.parts())
            yield Record(i, s.relpath, text, (), s.name)

    job = Job(
        recipe=recipe_of(mechanism) if engine.kind == "dask" else None,
        key="",
        root=root,
        seeded=seeded,
        output_format="records",
        local=mechanism if engine.kind == "local" else None,
    )
    if job.recipe is not None:
        job.key = _job_key(job.recipe)
    parts = partitions(records(), size=partition_records)
    starts: dict[int, int] = {}

    def tracked() -> Iterator[Partition]:
        for p in parts:
            starts[p.index] = p.start
            yield p

    with open_executor(engine) as executor:
        for _, result in executor.map(release_partition, tracked(), shared=job):
            assert isinstance(result.payload, list)
            yield starts[result.index], result.payload, result
