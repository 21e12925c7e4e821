"""Datasets (JSONL, CSV, Parquet) released in partitions: the same bytes whatever the engine, the
number of workers or the partition size; resumable; Parquet in and out; clear errors.

The Dask tests run a real ``distributed.LocalCluster`` of two single-threaded worker processes
(the session's, used through its scheduler's address like any existing cluster)."""

from __future__ import annotations

import csv
import json
import os
import signal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import authormask as am
from authormask.core.executors import Engine
from authormask.core.partitioned import partitions
from authormask.core.table_outputs import (
    TableSummary,
    staging_path,
    statement_path,
    write_table_release,
)
from authormask.core.tables import Record, TableInput
from authormask.exceptions import InputError, InvalidParameterError


@pytest.fixture(scope="module")
def rows(aaac_texts: list[str]) -> list[dict[str, Any]]:
    """90 real paragraphs (lines of at least 20 words) with an id, a user and a score."""
    paragraphs = [p for t in aaac_texts for p in t.splitlines() if len(p.split()) >= 20]
    assert len(paragraphs) >= 30
    return [
        {"rid": f"r{i:03d}", "body": paragraphs[i % len(paragraphs)], "user": f"u{i % 7}",
         "score": i % 5}
        for i in range(90)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]]) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tables")
    jsonl = root / "in.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    csv_path = root / "in.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    parquet = root / "in.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet, row_group_size=13)
    folder = root / "parts"
    folder.mkdir()
    table = pa.Table.from_pylist(rows)
    pq.write_table(table.slice(0, 40), folder / "a.parquet")
    pq.write_table(table.slice(40), folder / "b.parquet")
    return {"jsonl": jsonl, "csv": csv_path, "parquet": parquet, "folder": folder}


@pytest.fixture(scope="module")
def mechanism(glove_20k: am.Embeddings) -> Any:
    return am.create_mechanism("emp-text", epsilon=8, embeddings=glove_20k)


def _release(table: TableInput, mechanism: Any, out: Path, **kw: Any) -> TableSummary:
    kw.setdefault("random_state", 11)
    kw.setdefault("report_path", out.with_name(out.name + ".report"))
    return write_table_release(table, mechanism, out, **kw)


def _table(path: Path, **kw: Any) -> TableInput:
    return TableInput.open(path, text_column="body", id_column="rid", **kw)


# --- reading ----------------------------------------------------------------------------------


def test_the_three_formats_read_the_same_records(files: dict[str, Path]) -> None:
    seen = []
    for name in ("jsonl", "csv", "parquet", "folder"):
        records = list(_table(files[name]).records())
        seen.append([(r.position, r.id, r.text) for r in records])
        assert [r.position for r in records] == list(range(90))
    assert seen[0] == seen[1] == seen[2] == seen[3]


def test_without_an_id_column_records_are_numbered(files: dict[str, Path]) -> None:
    records = list(TableInput.open(files["csv"], text_column="body").records())
    assert [r.id for r in records[:3]] == [1, 2, 3]


def test_partitions_cut_by_records_and_cover_every_record(files: dict[str, Path]) -> None:
    records = list(_table(files["jsonl"]).records())
    parts = list(partitions(iter(records), size=20))
    assert [len(p.ids) for p in parts] == [20, 20, 20, 20, 10]
    assert [p.index for p in parts] == list(range(len(parts)))
    assert [i for p in parts for i in p.ids] == [r.id for r in records]
    with pytest.raises(InvalidParameterError, match="partition size must be an integer >= 1"):
        list(partitions(iter(records), size=0))


def test_partitions_depend_on_the_number_of_records_never_on_the_texts() -> None:
    """The cut is a public rule: 12 texts of 120k characters and 12 of 68 characters give the
    same partitions (a cut by characters gave 5+5+2 rows against 12: it revealed lengths)."""

    def records(length: int) -> list[Record]:
        return [Record(i, i + 1, "w " * (length // 2), (), f"line {i + 1}") for i in range(12)]

    for size in (1, 5, 1000):
        long_ = [len(p.ids) for p in partitions(iter(records(120_000)), size=size)]
        short = [len(p.ids) for p in partitions(iter(records(68)), size=size)]
        assert long_ == short
    assert [len(p.ids) for p in partitions(iter(records(120_000)))] == [12]


@pytest.mark.parametrize(
    ("content", "kw", "message"),
    [
        ('{"body": "a b"}\nnot json\n', {}, "line 2: not JSON"),
        ('["body"]\n', {}, "not a JSON object"),
        ('{"body": 3}\n', {}, "is a int, not a string"),
        ('{"body": "x", "rid": 1}\n{"body": "y", "rid": 1}\n', {"id_column": "rid"},
         "line 2: duplicate id 1"),
        ('{"body": "x"}\n', {"id_column": "rid"}, "no column 'rid'"),
        ('{"body": "x"}\n', {"keep_columns": ("bag",)}, "cannot keep column 'bag'"),
        ('{"body": "x"}\n', {"keep_columns": ("body",)}, "must be different columns"),
        ('{"other": "x"}\n{"body": "y"}\n', {"text": "other"}, "line 2: no field 'other'"),
        ('{"body": "x"}\n{"body": "y", "body": "z"}\n', {}, "line 2: .* names field 'body' twice"),
        ('{"body": "x"}\n{"body": "y"\n{"body": "z"}\n', {}, "line 2: not JSON"),
    ],
)  # fmt: skip
def test_bad_jsonl_gets_a_clear_error(
    tmp_path: Path, content: str, kw: dict[str, Any], message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    text = kw.pop("text", "body")
    with pytest.raises(InputError, match=message):
        list(TableInput.open(path, text_column=text, **kw).records())


@pytest.mark.parametrize(
    ("content", "message"),
    [
        # the quote of line 2 never closes: once read as ONE record that swallowed line 3
        ('id,text\n1,"hello there\n2,ok\n', "line 2: a quoted field is not closed"),
        ('id,text\n1,"ok"\n2,"multi\nline"\n3,"never closed\n', "line 5: a quoted field is not"),
        # the quote closes inside the next row: a character follows it
        ('id,text\n1,"hello there\n2,"ok"\n', "line 2: a character follows a closing quote"),
        ('id,text\n1,"ab"c\n', "line 2: a character follows a closing quote"),
        ('id,text\n1,a\n2,b,c\n', "line 3: 3 field\\(s\\), the header has 2"),
        ('id,text\n1,"a\nb",c\n', "line 2: 3 field\\(s\\), the header has 2"),
        ('id,text,text\n1,a,b\n', "line 1: the header names column 'text' twice"),
    ],
)  # fmt: skip
def test_a_csv_that_does_not_parse_cleanly_is_an_error_naming_the_line(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        list(TableInput.open(path, text_column="text", id_column="id").records())


def test_a_clean_csv_with_quoted_multiline_fields_reads_every_record(tmp_path: Path) -> None:
    path = tmp_path / "good.csv"
    path.write_text('id,text\n1,"two\nlines"\n\n2,"say ""hi"""\n3,plain\n', encoding="utf-8")
    records = list(TableInput.open(path, text_column="text", id_column="id").records())
    assert [(r.id, r.text, r.where) for r in records] == [
        ("1", "two\nlines", "line 2"),
        ("2", 'say "hi"', "line 5"),
        ("3", "plain", "line 6"),
    ]


def test_bad_csv_and_parquet_get_clear_errors(tmp_path: Path) -> None:
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("body,rid\nhello,1\nworld\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 3: 1 field\\(s\\), the header has 2"):
        list(TableInput.open(ragged, text_column="body").records())
    numbers = tmp_path / "numbers.parquet"
    pq.write_table(pa.table({"body": [1, 2]}), numbers)
    with pytest.raises(InputError, match="holds int64, not text"):
        TableInput.open(numbers, text_column="body")
    unknown = tmp_path / "data.txt"
    unknown.write_text("x", encoding="utf-8")
    with pytest.raises(InputError, match="cannot tell the format"):
        TableInput.open(unknown, text_column="body")


# --- identical results ------------------------------------------------------------------------


def test_partition_size_does_not_change_the_output(
    tmp_path: Path, files: dict[str, Path], mechanism: Any
) -> None:
    table = _table(files["jsonl"], keep_columns=("user",))
    one = _release(table, mechanism, tmp_path / "one.jsonl", partition_records=1000)
    small = _release(table, mechanism, tmp_path / "small.jsonl", partition_records=1)
    assert one.partitions == 1 and small.partitions == 90
    a, b = (tmp_path / "one.jsonl").read_bytes(), (tmp_path / "small.jsonl").read_bytes()
    assert a == b
    out = [json.loads(line) for line in a.decode().splitlines()]
    assert [r["rid"] for r in out] == [f"r{i:03d}" for i in range(90)]
    assert set(out[0]) == {"rid", "body", "user"}  # score dropped: not kept
    assert out[0]["body"] != json.loads(files["jsonl"].read_text().splitlines()[0])["body"]
    # the statement once, beside the output; no staging left
    assert json.loads(statement_path(tmp_path / "one.jsonl").read_text())["mechanism"] == "emp-text"
    assert not staging_path(tmp_path / "one.jsonl").exists()


def test_dask_workers_give_the_same_bytes_as_the_local_engine(
    tmp_path: Path, files: dict[str, Path], mechanism: Any, dask_cluster: Any
) -> None:
    cl, _ = dask_cluster
    table = _table(files["jsonl"])
    _release(table, mechanism, tmp_path / "local.jsonl", partition_records=20)
    engine = Engine("dask", scheduler=cl.scheduler_address)
    summary = _release(
        table, mechanism, tmp_path / "dask.jsonl", engine=engine, partition_records=5
    )
    assert summary.partitions > 10
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.jsonl.privacy.json").read_text() == (
        tmp_path / "local.jsonl.privacy.json"
    ).read_text()


def test_parquet_in_and_out(
    tmp_path: Path, files: dict[str, Path], mechanism: Any, dask_cluster: Any, glove_20k: Any
) -> None:
    cl, _ = dask_cluster
    jsonl = _table(files["jsonl"], keep_columns=("score",))
    _release(jsonl, mechanism, tmp_path / "ref.jsonl")
    table = _table(files["folder"], keep_columns=("score",))
    out = tmp_path / "out.parquet"
    engine = Engine("dask", scheduler=cl.scheduler_address)
    summary = _release(table, mechanism, out, fmt="parquet", engine=engine, partition_records=25)
    parts = sorted(p.name for p in out.iterdir())
    assert parts == [f"part-{i:05d}.parquet" for i in range(summary.partitions)]
    released = pq.read_table(out)
    assert released.schema.field("score").type == pa.int64()  # Parquet types are kept
    assert released.schema.field("rid").type == pa.string()
    ref = [json.loads(line) for line in (tmp_path / "ref.jsonl").read_text().splitlines()]
    assert released.to_pylist() == ref
    meta = pq.ParquetFile(out / parts[0]).schema_arrow.metadata
    statement = json.loads(meta[b"authormask.privacy"])
    assert statement == json.loads((tmp_path / "out.parquet.privacy.json").read_text())
    assert statement["mechanism"] == "emp-text"


def test_emp_bag_writes_the_bag_and_shortest_n_resolves_on_the_client(
    tmp_path: Path, files: dict[str, Path], glove_20k: Any, dask_cluster: Any
) -> None:
    cl, _ = dask_cluster
    mech = am.create_mechanism("emp-bag", epsilon=5, embeddings=glove_20k, length="shortest")
    table = _table(files["parquet"])
    local = _release(table, mech, tmp_path / "l.parquet", fmt="parquet", partition_records=20)
    engine = Engine("dask", scheduler=cl.scheduler_address)
    _release(table, mech, tmp_path / "d.parquet", fmt="parquet", engine=engine)
    a, b = pq.read_table(tmp_path / "l.parquet"), pq.read_table(tmp_path / "d.parquet")
    assert a.to_pylist() == b.to_pylist()
    assert pa.types.is_map(a.schema.field("bag").type)
    n = {sum(c for _, c in bag) for bag in a.column("bag").to_pylist()}
    assert len(n) == 1  # every bag has the same N, the shortest record's word count
    assert "shortest" in json.dumps(local.statement.to_dict())


def test_the_library_release_takes_the_engine(
    mechanism: Any, dask_cluster: Any, rows: list[dict[str, Any]]
) -> None:
    cl, _ = dask_cluster
    texts = [r["body"] for r in rows[:30]]
    local = am.release(texts, mechanism, random_state=4)
    dask = am.release(
        texts, mechanism, random_state=4, engine=Engine("dask", scheduler=cl.scheduler_address)
    )
    assert dask.texts == local.texts
    assert dask.statement == local.statement
    assert [d.words for d in dask] == [d.words for d in local]


def test_a_worker_killed_mid_run_is_replaced_and_the_release_completes(
    tmp_path: Path, files: dict[str, Path], mechanism: Any, dask_cluster: Any
) -> None:
    cl, client = dask_cluster
    table = _table(files["jsonl"])
    _release(table, mechanism, tmp_path / "ref.jsonl")
    pids = list(client.run(os.getpid).values())
    killed: list[int] = []

    def kill_one(_n: int) -> None:
        if not killed:
            killed.append(pids[0])
            os.kill(pids[0], signal.SIGKILL)

    engine = Engine("dask", scheduler=cl.scheduler_address)
    _release(
        table, mechanism, tmp_path / "out.jsonl", engine=engine, partition_records=5,
        progress=kill_one,
    )  # fmt: skip
    assert killed
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    client.wait_for_workers(2, timeout=60)


# --- resuming and files -----------------------------------------------------------------------


class _Stop(Exception):
    pass


def test_an_interrupted_release_resumes_to_the_same_bytes(
    tmp_path: Path, files: dict[str, Path], mechanism: Any
) -> None:
    table = _table(files["csv"])
    _release(table, mechanism, tmp_path / "ref.parquet", fmt="parquet", partition_records=10)
    out = tmp_path / "out.parquet"
    done: list[int] = []

    def stop_after_three(n: int) -> None:
        done.append(n)
        if len(done) == 3:
            raise _Stop

    with pytest.raises(_Stop):
        _release(table, mechanism, out, fmt="parquet", partition_records=10,
                 progress=stop_after_three)  # fmt: skip
    assert not out.exists()  # nothing partial is visible
    assert len(list(staging_path(out).iterdir())) == 3
    summary = _release(table, mechanism, out, fmt="parquet", partition_records=10)
    assert summary.resumed == 3
    assert pq.read_table(out).to_pylist() == pq.read_table(tmp_path / "ref.parquet").to_pylist()
    assert not staging_path(out).exists()
    # the same command again (a kill landed after the output was complete): nothing to do
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    again = _release(table, mechanism, out, fmt="parquet", partition_records=10)
    assert again.already_complete and again.records == 0
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    # another command is refused, naming what differs
    with pytest.raises(InputError, match=r"a finished release is already there.*another seed"):
        _release(table, mechanism, out, fmt="parquet", partition_records=10, random_state=12)
    with pytest.raises(InputError, match=r"another partition size.*10 then, 20 now"):
        _release(table, mechanism, out, fmt="parquet", partition_records=20)


def test_a_rerun_with_other_parameters_is_refused_until_force(
    tmp_path: Path, files: dict[str, Path], mechanism: Any
) -> None:
    table = _table(files["jsonl"])
    out = tmp_path / "out.jsonl"

    def stop(_n: int) -> None:
        raise _Stop

    with pytest.raises(_Stop):
        _release(table, mechanism, out, partition_records=10, progress=stop)
    with pytest.raises(InputError, match=r"unfinished release with other parameters.*another seed"):
        _release(table, mechanism, out, partition_records=10, random_state=12)
    _release(table, mechanism, out, partition_records=10, random_state=12, force=True)
    assert len(out.read_text().splitlines()) == 90


def test_outputs_are_never_overwritten_without_force(
    tmp_path: Path, files: dict[str, Path], mechanism: Any
) -> None:
    table = _table(files["jsonl"])
    out = tmp_path / "taken.jsonl"
    out.write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="already exists"):
        _release(table, mechanism, out)
    assert out.read_text() == "mine"
    folder = tmp_path / "theirs.parquet"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    with pytest.raises(InputError, match="did not write"):
        _release(table, mechanism, folder, fmt="parquet", force=True)
    assert (folder / "notes.txt").read_text() == "keep me"


def test_an_erae_model_goes_to_the_workers_as_its_directory(
    tmp_path: Path, files: dict[str, Path], tiny_erae_dir: Path, dask_cluster: Any
) -> None:
    cl, _ = dask_cluster
    mech = am.create_mechanism("erae", epsilon=20, model=str(tiny_erae_dir))
    table = _table(files["jsonl"])
    _release(table, mech, tmp_path / "local.jsonl", partition_records=20)
    engine = Engine("dask", scheduler=cl.scheduler_address)
    _release(table, mech, tmp_path / "dask.jsonl", engine=engine, partition_records=20)
    local = [json.loads(line) for line in (tmp_path / "local.jsonl").read_text().splitlines()]
    dask = [json.loads(line) for line in (tmp_path / "dask.jsonl").read_text().splitlines()]
    assert dask == local
    assert {"tokens", "epsilon_total"} <= set(local[0])


def test_syntf_gives_the_same_bytes_on_the_workers(
    tmp_path: Path, files: dict[str, Path], glove_20k: Any, dask_cluster: Any
) -> None:
    cl, _ = dask_cluster
    mech = am.create_mechanism("syntf", epsilon=30, embeddings=glove_20k, output_size=5_000)
    lines = files["jsonl"].read_text(encoding="utf-8").splitlines()[:24]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = _table(tmp_path / "in.jsonl")
    _release(table, mech, tmp_path / "local.jsonl", partition_records=1000)
    engine = Engine("dask", scheduler=cl.scheduler_address)
    _release(table, mech, tmp_path / "dask.jsonl", engine=engine, partition_records=20)
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
