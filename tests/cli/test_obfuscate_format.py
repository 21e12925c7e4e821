"""``-o NAME.jsonl`` without --format writes JSONL (it used to make a folder named NAME.jsonl
when the input was a folder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def test_a_jsonl_output_name_means_jsonl(invoke: Any, tmp_path: Path, cache_dir: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text("The river was near the old bridge in winter.", "utf-8")
    (folder / "b.txt").write_text("The doctor walked to the station in the rain.", "utf-8")
    out = tmp_path / "out.jsonl"
    args = ["obfuscate", str(folder), "-m", "emp-text", "-e", "10", "--vocab-size", "20000",
            "--cache-dir", str(cache_dir), "-o", str(out)]  # fmt: skip
    code, _, err = invoke(args)
    assert code == 0, err
    assert out.is_file()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in records] == ["1", "2"]
