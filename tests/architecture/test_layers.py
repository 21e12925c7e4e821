"""The shape of the house (issue 21, issue 31 D): the import graph of ``src/authormask``, read
from the source with ``ast``.

An arrow A -> B means that importing A may run B: every import counts, those inside functions
too (a function-level import that closes a circle only moves it to run time), and so does each
package an import passes through (``from pkg.sub import x`` runs ``pkg/__init__.py`` first,
unless ``pkg`` is a package of A itself, already running when A is). Imports under ``if
TYPE_CHECKING:`` never run and are not arrows; nor are a package's lazy attributes (PEP 562),
which load only when used, after every import has finished."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "authormask"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _packages(name: str) -> set[str]:
    """The packages ``name`` lies in (``a.b.c``: ``a``, ``a.b``)."""
    parts = name.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree`` that can run (anywhere: in functions too), those
    under ``if TYPE_CHECKING:`` left out."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if _type_checking(node):
            stack.extend(node.orelse)  # type: ignore[attr-defined]
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module -> the modules of ``root``'s package that importing it may run."""
    modules = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                # `from pkg import sub` imports the submodule sub; `from mod import name`, mod
                named = [f"{base}.{a.name}" for a in node.names]
                targets = [t if t in modules else base for t in named]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if not target:
                    continue
                for ran in {target} | _packages(target):
                    if ran in modules and ran != name and ran not in _packages(name):
                        graph[name].add(ran)
    return graph


def _circle(graph: dict[str, set[str]], prefix: str = "") -> list[str] | None:
    """An import circle among the modules named ``prefix...`` (``""``: every module), as the
    modules in order with the first repeated at the end; ``None`` when there is none."""
    nodes = {m for m in graph if m.startswith(prefix)}
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


def _arrows(graph: dict[str, set[str]], source: str, target: str) -> list[str]:
    """The arrows from a module under ``source`` (a module or package) to one under
    ``target``."""

    def under(m: str, p: str) -> bool:
        return m == p or m.startswith(p + ".")

    return sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if under(m, source)
        for t in targets
        if under(t, target)
    )


PACKAGES = sorted(p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").is_file())


def test_no_import_circle_in_the_house() -> None:
    """No circle anywhere in src/authormask, across packages and inside them."""
    circle = _circle(_graph())
    assert circle is None, " -> ".join(circle or [])


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle_inside_a_package(package: str) -> None:
    circle = _circle(_graph(), f"authormask.{package}.")
    assert circle is None, " -> ".join(circle or [])


def test_results_are_data_that_the_reports_read() -> None:
    """Reports import the protocols' results, never the reverse: no protocol, measure, study,
    cache or frontier imports a report (nor does the frontier, which the reports read)."""
    graph = _graph()
    assert _arrows(graph, "authormask.evaluation.reports", "authormask.evaluation.protocols")
    for below in ("protocols", "measures", "study", "metrics", "cache", "frontier", "calibration"):
        assert (
            _arrows(graph, f"authormask.evaluation.{below}", "authormask.evaluation.reports") == []
        )
    assert _arrows(graph, "authormask.evaluation.protocols", "authormask.evaluation.tradeoff") == []


def test_the_results_cache_lives_outside_the_reports() -> None:
    graph = _graph()
    assert "authormask.evaluation.cache" in graph
    assert not [m for m in graph if m.startswith("authormask.evaluation.reports.cache")]
    for protocol in ("fernandes2019", "bo2021", "pan"):
        runner = f"authormask.evaluation.protocols.{protocol}.runner"
        assert "authormask.evaluation.cache" in graph[runner]


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
        if t.startswith(("authormask.core", "authormask.cli", "authormask.serve"))
        or t.startswith("authormask.evaluation")
    )
    assert upward == []


def test_the_graph_is_read() -> None:
    """The checker sees real edges (a test of the test): stream imports the sources; a
    function-level import is an arrow (bo2021's plan loads the ER-AE model when asked)."""
    graph = _graph()
    assert "authormask.core.sources" in graph["authormask.core.stream"]
    assert "authormask.models.erae" in graph["authormask.evaluation.protocols.bo2021.protocol"]


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_the_checker_finds_the_circles_that_run(tmp_path: Path) -> None:
    """A circle closed inside a function is found; so is one through a package's
    ``__init__`` (importing ``pkg.two.b.x`` runs ``pkg/two/b/__init__.py``, which imports
    ``pkg.two.d``); a module importing its own package is not one, nor is an import under
    TYPE_CHECKING."""
    pkg = _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/one/__init__.py": "",
            "pkg/one/a.py": "def f():\n    from pkg.one.c import g\n",
            "pkg/one/c.py": "from pkg.one import a\n",
            "pkg/two/__init__.py": "",
            "pkg/two/d.py": "from pkg.two.b.x import y\n",
            "pkg/two/b/__init__.py": "from pkg.two.d import z\n",
            "pkg/two/b/x.py": "from pkg.two.b import w\n",
            "pkg/three/__init__.py": "",
            "pkg/three/e.py": "import typing\n\nif typing.TYPE_CHECKING:\n    import pkg.three.f\n",
            "pkg/three/f.py": "import pkg.three.e\n",
        },
    )  # fmt: skip
    graph = _graph(pkg)
    assert _circle(graph, "pkg.one.") == ["pkg.one.a", "pkg.one.c", "pkg.one.a"]
    assert graph["pkg.two.d"] == {"pkg.two.b", "pkg.two.b.x"}
    assert _circle(graph, "pkg.two.") == ["pkg.two.b", "pkg.two.d", "pkg.two.b"]
    assert graph["pkg.two.b.x"] == set() and graph["pkg.three.e"] == set()
    assert _circle(graph, "pkg.three.") is None


# --- the spec declares, nobody guesses (issue 31 A) -------------------------------------------

#: where a mechanism's name may be written in code: its spec and factory, and its own module
NAMED_IN = ("core/registry.py", "core/factories.py", "mechanisms/")


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _exported(tree: ast.AST) -> set[int]:
    """The strings of ``__all__`` (names of functions, which may be a mechanism's)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            out |= {id(n) for n in ast.walk(node.value)}
    return out


def _names_in_code(text: str, names: frozenset[str]) -> list[tuple[int, str]]:
    """The lines of ``text`` whose code (not a docstring, not ``__all__``) holds one of
    ``names`` as a string."""
    tree = ast.parse(text)
    skip = _docstrings(tree) | _exported(tree)
    return sorted(
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in skip
        and node.value in names
    )


def test_no_mechanism_is_named_outside_its_spec_and_module() -> None:
    """A front end, the audit or a protocol that compares a mechanism's name guesses what it is:
    they read its registry spec instead (``grep '"emp-'`` finds specs, factories, mechanism
    modules and docstrings only)."""
    from authormask.core import mechanism_names

    names = frozenset(mechanism_names())
    found = [
        f"{path.relative_to(SRC)}:{line} {name!r}"
        for path in sorted(SRC.rglob("*.py"))
        if not str(path.relative_to(SRC)).startswith(NAMED_IN)
        for line, name in _names_in_code(path.read_text(encoding="utf-8"), names)
    ]
    assert found == []


def test_the_name_checker_sees_a_name_in_code() -> None:
    """A test of the test: a comparison with a name is found; a docstring and ``__all__`` are
    not."""
    text = (
        '"""emp-bag in a docstring."""\n\n__all__ = ["tem"]\n\n\n'
        'def f(kind):\n    """tem."""\n    return kind == "emp-bag"\n'
    )
    assert _names_in_code(text, frozenset({"emp-bag", "tem"})) == [(8, "emp-bag")]


def test_no_mechanism_forwards_what_it_does_not_declare() -> None:
    """``NoiseOff`` handed every unknown attribute to the mechanism it wrapped (a catch-all
    ``__getattr__``), so a front end could read a mechanism's internals through it."""
    catch_all = [
        f"{path.name}:{node.lineno}"
        for path in sorted((SRC / "mechanisms").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
    ]
    assert catch_all == []


def test_the_calibration_reads_what_lies_below_the_protocols() -> None:
    """``evaluation/calibration.py`` imported ``protocols._releases`` (issue 31): the helpers it
    needs live in ``evaluation.releases``, which imports no protocol."""
    graph = _graph()
    for module in ("calibration", "releases"):
        source = f"authormask.evaluation.{module}"
        assert _arrows(graph, source, "authormask.evaluation.protocols") == []
