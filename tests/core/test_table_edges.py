"""Issue 32 D and issue 31, the library's side: ids typed as written (or refused), what cannot be
published faithfully refused naming the record, Parquet columns that keep their types, a pandas
category text column, NUL and NaN alike everywhere; one writer per output; the declared bounds of
the parameters; progress on Dask; parameter errors that name their parameter."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import authormask as am
from authormask.core import mechanism_spec
from authormask.core.executors import Engine
from authormask.core.journal import OutputBusyError, describe_change, output_lock
from authormask.core.specs import EPSILON
from authormask.core.table_outputs import staging_path, write_table_release
from authormask.core.tables import TableInput
from authormask.exceptions import InputError, InvalidParameterError

TEXTS = ["The ship sailed down the river.", "A cold wind came over the hills.", "Birds sang."]


@pytest.fixture(scope="module")
def mechanism(glove_20k: am.Embeddings) -> Any:
    return am.create_mechanism("emp-text", epsilon=8, embeddings=glove_20k)


def _jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _records(path: Path, **kw: Any) -> list[Any]:
    kw.setdefault("id_column", "id")
    return list(TableInput.open(path, text_column="text", **kw).records())


# --- ids ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        (['1', '"1"'], "line 2: the id \\('id'\\) is a string, but the id at line 1 is an integer"),
        (['"a"', "2"], "line 2: the id \\('id'\\) is an integer, but the id at line 1 is a str"),
        (['"a"', "true"], "line 2: the id \\('id'\\) is true: an id must be a string or an int"),
        (["1", "1.0"], "line 2: the id \\('id'\\) is the number 1.0: an id must be a string or"),
        (["1", "NaN"], "line 2: NaN is not JSON"),
        (["1", "-Infinity"], "line 2: -Infinity is not JSON"),
        (["1", "[1]"], "line 2: the id \\('id'\\) must be a string or an integer, got list"),
    ],
)  # fmt: skip
def test_jsonl_ids_are_of_one_type_as_written_or_refused(
    tmp_path: Path, ids: list[str], message: str
) -> None:
    path = _jsonl(tmp_path / "d.jsonl", [f'{{"id": {i}, "text": "x"}}' for i in ids])
    with pytest.raises(InputError, match=message):
        _records(path)


def test_ids_that_are_one_type_keep_it_and_duplicates_are_typed(tmp_path: Path) -> None:
    ints = _jsonl(tmp_path / "i.jsonl", ['{"id": 1, "text": "x"}', '{"id": 2, "text": "y"}'])
    assert [r.id for r in _records(ints)] == [1, 2]
    strs = _jsonl(tmp_path / "s.jsonl", ['{"id": "1", "text": "x"}', '{"id": "1", "text": "y"}'])
    with pytest.raises(InputError, match="line 2: duplicate id '1'"):
        _records(strs)


def test_a_parquet_id_that_is_nan_or_infinite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"id": [1.5, math.nan], "text": ["x", "y"]}), path)
    with pytest.raises(InputError, match="row 2: the id \\('id'\\) is nan: an id must be a finite"):
        _records(path)
    pq.write_table(pa.table({"id": [1.5, math.inf], "text": ["x", "y"]}), path)
    with pytest.raises(InputError, match="row 2: the id \\('id'\\) is inf"):
        _records(path)
    pq.write_table(pa.table({"id": [1.5, 2.0], "text": ["x", "y"]}), path)
    assert [r.id for r in _records(path)] == [1.5, 2.0]


# --- what cannot be published faithfully --------------------------------------------------


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ('{"id": "\\ud800", "text": "x", "k": 1}', "the id \\('id'\\) holds a lone surrogate"),
        ('{"id": "b", "text": "a \\udfff b", "k": 1}', "the text \\('text'\\) holds a lone surr"),
        ('{"id": "b", "text": "x", "k": {"\\ud800": 1}}', "the kept column \\('k'\\) holds a lo"),
        ('{"id": "b", "text": "x\\u0000y", "k": 1}', "the text \\('text'\\) contains a NUL"),
        ('{"id": "b\\u0000", "text": "x", "k": 1}', "the id \\('id'\\) contains a NUL"),
        ('{"id": "b", "text": "x", "k": "\\u0000"}', "the kept column \\('k'\\) contains a NUL"),
        ('{"id": "b", "text": "x", "k": Infinity}', "Infinity is not JSON"),
    ],
)  # fmt: skip
def test_a_value_no_release_can_hold_is_refused_naming_the_record(
    tmp_path: Path, record: str, message: str
) -> None:
    path = _jsonl(tmp_path / "d.jsonl", ['{"id": "a", "text": "x", "k": 1}', record])
    with pytest.raises(InputError, match=f"d.jsonl: line 2: {message}"):
        _records(path, keep_columns=("k",))


def test_nul_is_refused_in_csv_and_parquet_as_in_text_files(tmp_path: Path) -> None:
    csv_path = tmp_path / "d.csv"
    csv_path.write_bytes(b'id,text\n1,"a\x00b"\n')
    with pytest.raises(InputError, match="line 2: the text \\('text'\\) contains a NUL"):
        _records(csv_path)
    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.table({"id": [1], "text": ["a\x00b"]}), parquet)
    with pytest.raises(InputError, match="row 1: the text \\('text'\\) contains a NUL"):
        _records(parquet)


# --- Parquet columns keep their types --------------------------------------------------------


def test_jsonl_to_parquet_keeps_every_column_typed(
    tmp_path: Path, mechanism: Any, glove_20k: am.Embeddings
) -> None:
    rows = [
        {"id": 10, "text": TEXTS[0], "n": 1, "f": 0.5, "b": True, "s": "x", "mix": 1,
         "o": {"a": 1}},
        {"id": 11, "text": TEXTS[1], "n": None, "f": 2, "b": False, "s": None, "mix": "1",
         "o": [1]},
        {"id": 12, "text": TEXTS[2], "n": 3, "f": 1.5, "b": None, "s": "z", "mix": 2.5, "o": None},
    ]  # fmt: skip
    path = _jsonl(tmp_path / "d.jsonl", [json.dumps(r) for r in rows])
    keep = ("n", "f", "b", "s", "mix", "o")
    table = TableInput.open(path, text_column="text", id_column="id", keep_columns=keep)
    out = tmp_path / "out.parquet"
    write_table_release(table, mechanism, out, fmt="parquet", partition_records=1)
    released = pq.read_table(out)
    types = dict(zip(released.schema.names, released.schema.types, strict=True))
    assert types["id"] == pa.int64() and types["n"] == pa.int64()
    assert types["f"] == pa.float64() and types["b"] == pa.bool_() and types["s"] == pa.string()
    assert types["mix"] == pa.string() and types["o"] == pa.string()  # mixed, nested: JSON text
    got = released.to_pylist()
    assert [r["id"] for r in got] == [10, 11, 12] and [r["n"] for r in got] == [1, None, 3]
    assert [r["f"] for r in got] == [0.5, 2.0, 1.5] and [r["b"] for r in got] == [True, False, None]
    assert [r["mix"] for r in got] == ["1", '"1"', "2.5"]  # as written, never one "1" for two
    assert [r["o"] for r in got] == ['{"a": 1}', "[1]", None]
    # every part file has the same schema
    for part in sorted(out.iterdir()):
        assert pq.read_schema(part).types == released.schema.types


def test_a_category_text_column_is_accepted_and_nan_is_null_in_jsonl(
    tmp_path: Path, mechanism: Any
) -> None:
    path = tmp_path / "d.parquet"
    data = pa.table(
        {
            "id": [1, 2, 3],
            "text": pa.array(TEXTS).dictionary_encode(),  # what a pandas category becomes
            "user": pa.array(["u1", "u2", "u1"]).dictionary_encode(),
            "score": [1.5, math.nan, -math.inf],
        }
    )
    pq.write_table(data, path)
    table = TableInput.open(
        path, text_column="text", id_column="id", keep_columns=("user", "score")
    )
    out = tmp_path / "out.parquet"
    write_table_release(table, mechanism, out, fmt="parquet")
    released = pq.read_table(out)
    assert released.column("user").to_pylist() == ["u1", "u2", "u1"]
    assert released.schema.field("user").type == data.schema.field("user").type
    assert released.column("id").to_pylist() == [1, 2, 3]
    lines = tmp_path / "out.jsonl"
    write_table_release(table, mechanism, lines)
    records = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    assert [r["score"] for r in records] == [1.5, None, None]  # valid JSON, as pandas writes it


# --- one writer per output -------------------------------------------------------------------


class _Stop(Exception):
    pass


def test_a_second_writer_is_refused_and_touches_nothing(tmp_path: Path, mechanism: Any) -> None:
    path = _jsonl(
        tmp_path / "d.jsonl",
        [json.dumps({"id": i, "text": TEXTS[i % 3]}) for i in range(6)],
    )
    table = TableInput.open(path, text_column="text", id_column="id")
    out = tmp_path / "out.jsonl"
    report = tmp_path / "report.txt"

    def stop(_n: int) -> None:
        raise _Stop

    with pytest.raises(_Stop):  # an unfinished release, to be resumed
        write_table_release(
            table, mechanism, out, report_path=report, partition_records=2, progress=stop
        )
    before = report.read_bytes(), sorted(p.name for p in staging_path(out).iterdir())
    with output_lock(out), pytest.raises(OutputBusyError, match="another release is writing"):
        write_table_release(table, mechanism, out, report_path=report, partition_records=2)
    assert (report.read_bytes(), sorted(p.name for p in staging_path(out).iterdir())) == before
    summary = write_table_release(table, mechanism, out, report_path=report, partition_records=2)
    assert summary.resumed == 1 and len(out.read_text().splitlines()) == 6


# --- what differs --------------------------------------------------------------------------------


def test_describe_change_names_the_parameter_and_never_the_seed() -> None:
    old = {"seed": 1234, "statement": {"epsilon": 10.0, "embeddings": {"vocab_size": 20000}}}
    assert describe_change(old, {**old, "seed": 99}) == "another seed"
    assert "1234" not in str(describe_change(old, {**old, "seed": 99}))
    new = {"seed": 1234, "statement": {"epsilon": 10.0, "embeddings": {"vocab_size": 5000}}}
    assert describe_change(old, new) == "another `vocab_size` (20000 then, 5000 now)"
    assert describe_change(old, old) is None and describe_change(None, old) is None


# --- issue 31: declared bounds, progress on Dask, parameter names ------------------------------


def test_declared_bounds_say_what_is_checked() -> None:
    assert EPSILON.to_dict()["exclusive_minimum"] == 0.0 and "minimum" not in EPSILON.to_dict()
    assert EPSILON.describe_range() == "> 0"
    for name in ("emp-text", "erae", "syntf", "emp-doc", "tem", "emp-write"):
        spec = mechanism_spec(name)
        epsilon = next(p for p in spec.parameters if p.name == "epsilon")
        assert epsilon.exclusive_minimum and epsilon.minimum == 0.0
    params = {p.name: p for n in ("tem", "emp-doc", "emp-write", "random-sub", "mahalanobis")
              for p in mechanism_spec(n).parameters}  # fmt: skip
    assert params["function_epsilon"].describe_range() == "> 0"
    assert params["gamma"].describe_range() == "in (0, 1e+06]"
    assert params["prior_weight"].describe_range() == "in (0, 100]"
    for name in ("rate", "regularization"):
        assert params[name].describe_range() == "in [0, 1]", name


def test_a_factory_error_names_its_parameter(glove_20k: am.Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match=r"^`max_length` must be an integer >= 1"):
        am.create_mechanism("syntf", epsilon=1, embeddings=glove_20k, max_length=0)


def test_release_on_dask_reports_progress_as_the_local_engine(
    mechanism: Any, dask_cluster: Any
) -> None:
    cluster, _ = dask_cluster
    engine = Engine("dask", scheduler=cluster.scheduler_address)
    counted: dict[str, list[int]] = {"local": [], "dask": []}
    am.release(TEXTS, mechanism, random_state=1, progress=counted["local"].append)
    am.release(TEXTS, mechanism, random_state=1, progress=counted["dask"].append, engine=engine)
    assert sum(counted["dask"]) == sum(counted["local"]) == sum(len(t) for t in TEXTS)
    with pytest.raises(InvalidParameterError, match="work_progress is reported by the local"):
        am.release(TEXTS, mechanism, work_progress=lambda n: None, engine=engine)


def test_other_inputs_are_named_without_calling_the_recorded_release_finished() -> None:
    """A report may record an unfinished release (a killed one, to resume): the message said
    "the finished one read ..." of it (a newcomer's finding)."""
    old = {"inputs": [["long.txt", 10, 1]]}
    new = {"inputs": [["other.txt", 10, 1]]}
    said = describe_change(old, new)
    assert said is not None and "long.txt" in said and "other.txt" in said
    assert "finished" not in said
