"""Front doors in steps (issue 48, item 5): a command is a request, then plan, check, release
and report, each a function a reader can hold in view (at most 80 lines). Measured with ``ast``
on the source (``def`` and ``async def``). Every door is listed with its steps: ``obfuscate``
(files and datasets), :func:`~authormask.core.release`, the stream, the file and dataset writers,
``evaluate``'s bo2021 and PAN runners and the page's app."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "authormask"
LONGEST = 80
#: module -> its front door and the steps it calls
DOORS = {
    "cli/obfuscate.py": (
        "obfuscate",
        "_plan",
        "_check",
        "_release_dataset",
        "_release_files",
        "_release_table",
        "_dataset_format",
        "_open_table",
        "_warn_published",
        "_write_dataset",
        "_report_dataset",
    ),
    "evaluation/protocols/bo2021/runner.py": (
        "run_release_evaluation",
        "_check_models",
        "_plan",
        "_measure",
        "_release_key",
        "_released",
        "_release_setting",
        "_report",
    ),
    "evaluation/protocols/pan/runner.py": (
        "run_pan",
        "_announce",
        "_measure_all",
        "_provenance",
        "_closeness_described",
        "_utilities_described",
        "utility",
        "_utility_scores",
    ),
    "core/table_outputs.py": (
        "write_table_release",
        "_checked_output",
        "_locked_release",
        "_write_table",
        "_plan",
        "_check_paths",
        "_ended_published",
        "_kept_partitions",
        "_release_partitions",
        "_started_journal",
        "_job",
        "todo",
        "finished",
        "_run_partitions",
        "_publish",
    ),
    "core/outputs.py": (
        "write_release",
        "_write_release",
        "_plan",
        "_check_paths",
        "_write_locked",
        "_ordered",
        "_ended_published",
        "_kept",
        "_fresh",
        "_started_journal",
        "_stream",
        "_write_documents",
        "_publish",
    ),
    "core/stream.py": ("run", "_open", "_read", "add", "end", "flush"),
    "core/api.py": ("release", "_inputs", "_chosen_engine", "_collected"),
    "serve/app.py": (
        "create_app",
        "_remember_nothing",
        "_serving",
        "refusal",
        "read_body",
        "check_size",
        "_add_error_handlers",
        "_add_pages",
        "_add_mechanism_routes",
        "_add_release_route",
    ),
}


def _lengths(path: Path) -> dict[str, int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: (node.end_lineno or node.lineno) - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


@pytest.mark.parametrize("module", sorted(DOORS))
def test_a_front_door_and_its_steps_are_short(module: str) -> None:
    lengths = _lengths(SRC / module)
    for name in DOORS[module]:
        assert name in lengths, f"{module}: no function {name}"
        assert lengths[name] <= LONGEST, f"{module}: {name} is {lengths[name]} lines"


def test_the_measure_counts_a_function_s_lines(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n" + "    x = 1\n" * 81 + "\n\ndef g():\n    return 1\n")
    assert _lengths(source) == {"f": 82, "g": 2}
