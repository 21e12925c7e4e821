"""The shape of the house (issue 21): the import graph of ``src/authormask``, every import
counted (those inside functions too), read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "authormask"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in SRC.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                targets = [base, *(f"{base}.{a.name}" for a in node.names)]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def _cycle_within(graph: dict[str, set[str]], prefix: str) -> list[str] | None:
    """A cycle among the modules under ``prefix`` (their package ``__init__`` aside: it only
    re-exports), or None."""
    nodes = {m for m in graph if m.startswith(prefix + ".")}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m] & nodes):
            if state.get(n) == 1:
                return [*stack[stack.index(n) :], n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(nodes):
        if m not in state and (found := visit(m)):
            return found
    return None


@pytest.mark.parametrize("package", ["release", "datasets", "embeddings", "mechanisms", "text"])
def test_no_import_circle_inside_a_package(package: str) -> None:
    cycle = _cycle_within(_graph(), f"authormask.{package}")
    assert cycle is None, " -> ".join(cycle or [])


@pytest.mark.parametrize(
    "lower",
    ["accounting", "embeddings", "text", "datasets", "mechanisms", "models", "randomness"],
)
def test_nothing_below_the_release_layer_imports_it(lower: str) -> None:
    graph = _graph()
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if m == f"authormask.{lower}" or m.startswith(f"authormask.{lower}.")
        for t in targets
        if t.startswith(("authormask.release", "authormask.cli", "authormask.serve"))
        or t.startswith("authormask.evaluation")
    )
    assert upward == []


def test_the_graph_is_read() -> None:
    """The checker sees real edges (a test of the test): stream imports the sources."""
    assert "authormask.release.sources" in _graph()["authormask.release.stream"]
