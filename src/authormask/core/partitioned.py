"""Releasing a dataset in partitions, on the local engine or on Dask, with identical results.

The client reads the dataset record by record and cuts it into partitions of a fixed number of
records, ``partition_records``: a public rule, so two datasets with the same number of records
give the same partitions whatever their texts (a cut by characters would let the part files of
a Parquet output reveal the lengths of the original texts). Each partition is a task:
:func:`release_partition` releases its records through the release layer
(:class:`~authormask.core.stream.ReleaseStream`, the one way a mechanism is run) and returns the
partition's output file as bytes. Record i draws from the generator of position i (and of its
words' digest) derived from the release's secret root
(:func:`~authormask.randomness.document_generator`), so a seeded
release gives the same bytes with the local engine, with any number of workers and with any
partition size.

The partitions of a dataset are written by :mod:`authormask.core.table_outputs`; those of
documents released in memory on an engine (:func:`release_on`) come back as records.
"""

from __future__ import annotations

import hashlib
import io
import logging
import math
import pickle
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from authormask._process import process_memo
from authormask.core.executors import Engine, open_executor
from authormask.core.journal import (
    jsonl,
)
from authormask.core.registry import Recipe, recipe_of
from authormask.core.sources import Source, TextSource
from authormask.core.stream import Done, Piece, release_stream
from authormask.core.tables import Record, TableInput
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import Mechanism

__all__ = [
    "DEFAULT_PARTITION_RECORDS",
    "OUTPUT_FORMATS",
    "PART_FILE",
    "Job",
    "Partition",
    "PartitionResult",
    "job_key",
    "partitions",
    "release_on",
    "release_partition",
]

logger = logging.getLogger(__name__)

OUTPUT_FORMATS = ("jsonl", "parquet")
#: records per partition, by default (a public number, never taken from the data)
DEFAULT_PARTITION_RECORDS = 1000
#: the name of a part file
PART_FILE = re.compile(r"^part-(\d{5,})\.(jsonl|parquet)$")


@dataclass(frozen=True)
class Partition:
    """Consecutive records of a dataset: positions ``start`` to ``start + len(ids) - 1``.

    Attributes
    ----------
    index
        The partition's number, from 0.
    start
        The position of its first record.
    ids
        The records' ids.
    texts
        The records' texts.
    keep
        The values of the kept columns, per record.
    wheres
        Where each record is in the input (for errors).
    """

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

    Parameters
    ----------
    records
        The dataset's records, in order.
    size
        The number of records per partition, >= 1.

    Yields
    ------
    Partition
        The partitions, in order.

    Raises
    ------
    InvalidParameterError
        If ``size`` is not an integer >= 1.
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
    """What every partition task needs (sent to each worker once).

    Attributes
    ----------
    recipe
        How to build the mechanism in a worker (None on the local engine).
    key
        What identifies the recipe (:func:`job_key`).
    root
        The release's secret root.
    seeded
        Whether the release is seeded.
    output_format
        ``"jsonl"``, ``"parquet"`` or ``"records"`` (an in-memory release).
    id_name
        The id column's name in the output.
    text_name
        The text column's name in the output.
    keep_names
        The names of the columns kept as they are.
    table
        The input table, for a Parquet output's schema.
    statement_json
        The privacy statement, written into a Parquet part's metadata.
    local
        The mechanism itself, for the local engine (never pickled: a worker builds its own).
    """

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
        """The mechanism: the local one, or the one this process built from ``recipe``.

        Returns
        -------
        Mechanism
            The mechanism, built once per process.
        """
        if self.local is not None:
            return self.local
        recipe = self.recipe
        assert recipe is not None
        return process_memo("mechanism:" + self.key, recipe.build)


@dataclass(frozen=True)
class PartitionResult:
    """A released partition: the part file's bytes (or the records, in memory), its record
    count, and private diagnostics and warnings for the report.

    Attributes
    ----------
    index
        The partition's number.
    records
        The number of records released.
    characters
        The number of characters read.
    payload
        The part file's bytes, or the records (an in-memory release).
    diagnostics
        The partition's private diagnostics, summed over its documents.
    warnings
        The warnings of its documents.
    """

    index: int
    records: int
    characters: int
    payload: bytes | list[dict[str, Any]]
    diagnostics: dict[str, Any]
    warnings: tuple[str, ...]


def release_partition(job: Job, part: Partition) -> PartitionResult:
    """Release one partition (the task the engines run; see the module docstring).

    Parameters
    ----------
    job
        What every partition needs.
    part
        The partition.

    Returns
    -------
    PartitionResult
        The released partition.
    """
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
        keep = part.keep[i]
        if job.output_format == "jsonl":  # JSON has no NaN or infinity: null, as pandas writes
            keep = tuple(_json_safe(v) for v in keep)
        row.update(zip(job.keep_names, keep, strict=True))
        rows.append(row)
    payload: bytes | list[dict[str, Any]]
    if job.output_format == "jsonl":
        payload = "".join(jsonl(r) + "\n" for r in rows).encode("utf-8")
    elif job.output_format == "parquet":
        payload = _parquet_bytes(job, rows)
    else:
        payload = rows
    return PartitionResult(part.index, len(rows), part.characters, payload, totals, tuple(warnings))


def _json_safe(value: Any) -> Any:
    """``value`` with every float that is NaN or infinite (a Parquet value) as None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    return value


def _stream(
    sources: Sequence[Source],
    mechanism: Mechanism,
    root: np.random.SeedSequence,
    start: int,
    collect_words: bool,
) -> Iterable[Piece | Done]:
    # ``root`` is the release's root, already keyed by its public parameters: used as it is
    return release_stream(
        sources, mechanism, random_state=root, root=root, start=start, collect_words=collect_words
    )


def _parquet_bytes(job: Job, rows: list[dict[str, Any]]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = job.table
    assert table is not None
    schema = table.arrow_schema()
    columns: dict[str, list[Any]] = {
        job.id_name: [
            table.arrow_value(job.id_name, r[job.id_name])
            if table.published_ids
            else r[job.id_name]
            for r in rows
        ],
        job.text_name: [r[job.text_name] for r in rows],
    }
    extra = [k for k in rows[0] if k not in schema.names]  # bag and per-output figures
    for name in job.keep_names:
        columns[name] = [table.arrow_value(name, r[name]) for r in rows]
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


def job_key(recipe: Recipe) -> str:
    """What identifies a recipe in a worker process: the SHA-256 of its pickle.

    Parameters
    ----------
    recipe
        The mechanism's recipe.

    Returns
    -------
    str
        The hex digest.
    """
    return hashlib.sha256(pickle.dumps(recipe)).hexdigest()


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
    result)`` per partition, in the order they finish (for :func:`authormask.release`).

    Parameters
    ----------
    engine
        The engine to run on.
    sources
        The documents.
    mechanism
        The mechanism to release with.
    root
        The release's secret root.
    seeded
        Whether the release is seeded.
    partition_records
        The number of documents per partition.

    Yields
    ------
    tuple[int, list[dict[str, Any]], PartitionResult]
        The partition's first position, its released rows and its result.
    """

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
        job.key = job_key(job.recipe)
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
