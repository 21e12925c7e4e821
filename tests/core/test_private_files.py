"""Issue 30 A and B (side line), in the library: every private file and statement authormask
writes carries a marker that :func:`authormask_kind` recognises, and the local release history
keys texts by content alone and says when a release composes with an earlier one."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from authormask.core import create_mechanism, release
from authormask.core.history import ReleaseHistory, parameters_key
from authormask.core.markers import authormask_kind
from authormask.core.outputs import Target, write_release
from authormask.core.sources import TextSource
from authormask.core.table_outputs import write_table_release
from authormask.core.tables import TableInput
from authormask.embeddings import Embeddings

TEXT = "The committee met in the old library at dawn.\n"


@pytest.fixture(scope="module")
def mech(glove_20k: Embeddings) -> Any:
    return create_mechanism("emp-text", epsilon=10, embeddings=glove_20k)


def test_every_private_file_and_statement_carries_a_marker(mech: Any, tmp_path: Path) -> None:
    source = TextSource("a", "a.txt", len(TEXT), TEXT)
    write_release([source], mech, Target("jsonl", tmp_path / "o.jsonl"),
                  report_path=tmp_path / "r1", random_state=1)  # fmt: skip
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"text": TEXT}) + "\n", encoding="utf-8")
    table = TableInput.open(data, text_column="text")
    write_table_release(table, mech, tmp_path / "t.jsonl", report_path=tmp_path / "r2")
    (tmp_path / "r3").write_text(release([TEXT], mech).report.to_text(), encoding="utf-8")
    # under names that say nothing, each is found by its content
    assert authormask_kind(tmp_path / "r1") == "private report"  # a text release's report
    assert authormask_kind(tmp_path / "r2") == "private report"  # a dataset release's report
    assert authormask_kind(tmp_path / "r3") == "private report"  # the library's RunReport
    for name in ("o.jsonl.privacy.json", "t.jsonl.privacy.json"):
        renamed = tmp_path / f"{name}.renamed"
        renamed.write_bytes((tmp_path / name).read_bytes())
        assert authormask_kind(renamed) == "privacy statement"
    assert authormask_kind(tmp_path / "o.jsonl") == "release output"
    assert authormask_kind(tmp_path / "t.jsonl") == "release output"  # its statement beside it
    history = ReleaseHistory.open(tmp_path / "state")
    history.record([history.digests().of([TEXT])], release([TEXT], mech).statement)
    assert authormask_kind(history.path) == "private report"
    # a user's own files are not ours
    (tmp_path / "notes.json").write_text('{"schema": "mine", "id": 1}\n', encoding="utf-8")
    (tmp_path / "letter.txt").write_text(TEXT, encoding="utf-8")
    assert authormask_kind(tmp_path / "notes.json") is None
    assert authormask_kind(tmp_path / "letter.txt") is None
    assert authormask_kind(data) is None


def test_the_history_keys_texts_by_content_and_composes_releases(mech: Any, tmp_path: Path) -> None:
    history = ReleaseHistory.open(tmp_path / "state")
    digests = history.digests()
    whole = digests.of([TEXT])
    assert digests.of([TEXT[:7], TEXT[7:20], TEXT[20:]]) == whole  # however the text is cut
    assert ReleaseHistory.open(tmp_path / "state").digests().of([TEXT]) == whole  # one key
    assert ReleaseHistory.open(tmp_path / "other").digests().of([TEXT]) != whole  # keyed
    seeded = mech.statement(seeded=True)
    unseeded = mech.statement(seeded=False)
    assert history.check([whole], seeded) is None  # nothing recorded yet
    history.record([whole], seeded)
    assert history.check([whole], seeded) is None  # a seeded rerun: the same output
    assert history.check([digests.of(["Another text."])], seeded) is None
    found = history.check([whole], unseeded)  # fresh randomness: a second draw
    assert found is not None and found.epsilons == (10.0, 10.0) and found.unit == "per word"
    other = dataclasses.replace(seeded, epsilon=7.0)
    assert parameters_key(other) != parameters_key(seeded)
    found = history.check([whole, digests.of(["x"])], other)
    assert found is not None and (found.repeated, found.texts) == (1, 2)
    assert "10 + 7 = 17 per word" in found.describe()
    history.record([whole], unseeded)
    history.record([whole], unseeded)  # two unseeded releases: two draws
    found = history.check([whole], other)
    assert found is not None and found.epsilons == (10.0, 10.0, 10.0, 7.0)
    # what a dataset release declares beside the texts is not a parameter of the noise
    declared = dataclasses.replace(seeded, policies={**seeded.policies, "ids": "x"})
    assert parameters_key(declared) == parameters_key(seeded)
    # a cut-off last line (a kill while writing) is skipped
    with open(history.path, "a", encoding="utf-8") as fh:
        fh.write('{"parameters": "abc", "texts": [')
    assert history.check([whole], seeded) is not None


def test_a_composition_in_different_units_names_each_release() -> None:
    # a newcomer mixing emp-bag and emp-write releases of one text read "at least in different
    # units: 7, 7, 7, 7": each release is now named, and nothing claims the units add
    from authormask.core.history import Composition

    line = Composition(
        repeated=1,
        texts=1,
        epsilons=(7.0, 7.0, 7.0),
        mechanisms=("emp-bag", "emp-write", "emp-write"),
        unit=None,
    ).describe()
    assert "emp-bag 7, emp-write 7 (2 releases)" in line
    assert "at least" not in line and "do not add" in line
    same = Composition(1, 1, (10.0, 7.0), ("emp-text", "emp-text"), "per word").describe()
    assert "10 + 7 = 17 per word" in same
    # the same parameters again: the new noise of an unseeded release is what composes, said
    # first (a newcomer who had changed nothing read "other public parameters" as wrong)
    assert "released again with new noise (every unseeded release draws its own)" in same
    assert "fresh randomness" not in same
    # a text released again and again is said once with its count, not once per release
    many = Composition(1, 1, (7.0,) * 14 + (10.0, 7.0), ("emp-write",) * 16, "per word")
    line = many.describe()
    assert "(emp-write epsilon 7 (14 releases), emp-write epsilon 10)" in line
    assert "14 x 7 + 10 + 7 = 115 per word" in line
    assert line.count("emp-write") == 2


def test_the_library_never_releases_a_report_or_statement_given_as_a_string(mech: Any) -> None:
    # the content check ran on files and standard input only: a report or a statement handed
    # to release() as a string (the page, a script) went to the mechanism
    from authormask.exceptions import InputError

    out = release([TEXT], mech, random_state=1)
    report = out.report.to_text()
    statement = json.dumps(out.statement.to_dict(), sort_keys=True, indent=2)
    for text, kind in [
        (report, "private report"),
        ("Notes.\n\n" + report, "private report"),
        (statement, "privacy statement"),
    ]:
        with pytest.raises(InputError, match=f"authormask {kind}, which is never released"):
            release([text], mech)


def test_a_mark_hidden_by_what_cleaning_removes_deep_in_a_text_is_found(
    mech: Any, tmp_path: Path
) -> None:
    # a re-audit: past the cleaned head the scan read the raw text, so a zero-width space or a
    # fullwidth letter inside a report's banner, or a JSON escape in a statement's schema,
    # 300 KB into a file, let the report or statement be released
    from authormask.core.sources import FileSource
    from authormask.exceptions import InputError

    out = release([TEXT], mech, random_state=1)
    report = out.report.to_text()
    statement = json.dumps(out.statement.to_dict())
    filler = "The committee met in the old library at dawn. " * 7000
    hidden = {
        "zwsp.txt": report.replace("PRIVATE ", "PRIVATE\u200b ").replace(
            "authormask.run-report", "authormask.\u200brun-report"
        ),
        "fullwidth.txt": report.replace("authormask", "author\uff4dask"),
        "escaped.txt": statement.replace(
            "authormask.privacy-statement", "authormask\\u002eprivacy-statement"
        ),
    }
    for name, text in hidden.items():
        path = tmp_path / name
        path.write_text(filler + "\n" + text, encoding="utf-8")
        with pytest.raises(InputError, match="which is never released"):
            list(FileSource.of(path).parts())  # as a release reads it
        with pytest.raises(InputError, match="which is never released"):
            release([path.read_text(encoding="utf-8")], mech)
