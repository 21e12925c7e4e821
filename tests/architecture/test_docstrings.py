"""One docstring style (issue 31 E): every public function, class and method of
``src/authormask`` documents its parameters, what it returns and what it raises in numpydoc
sections, read by griffe's numpy parser (the one mkdocs renders the reference with).

Public: a module whose dotted path has no component starting with ``_``, the package
``authormask.cli`` left out (its docstrings are the command line's ``--help``); in it, the names
of ``__all__`` (without one, the names not starting with ``_``) that are functions or classes
defined there, or re-exported by its ``__all__`` (checked where they are defined, a private
module too); and the methods of those classes defined in the class body whose names do not start
with ``_``, properties left out. FastAPI route handlers of ``authormask.serve.app`` are the API's
description and are left out too.

Per object:

- parameters (other than ``self``/``cls``): a ``Parameters`` section naming exactly them;
- a return annotation other than ``None``: a ``Returns`` section (a generator: ``Yields``);
- a ``raise X`` in the function's own body: ``X`` in its ``Raises`` section (a re-raise of a
  caught variable, or an exception built by a function call, need not be listed);
- a class whose constructor takes parameters (its own ``__init__``, or a dataclass's fields): a
  ``Parameters`` section in the class docstring naming exactly them (a dataclass may list them
  under ``Attributes``); exceptions, enums and protocols need none.

The check reads the source statically (nothing is imported) and runs once per top-level package,
so ``-k core`` checks ``authormask.core`` only; ``top`` is the modules of ``authormask`` itself.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import logging
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import griffe
import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
LEFT_OUT = ("authormask.cli",)  # packages whose docstrings are not reference docs
ROUTES = ("authormask.serve.app",)  # modules whose route handlers describe the API
_ROUTE_METHODS = {"get", "post", "put", "delete", "patch", "head", "options", "api_route"}
_NO_CONSTRUCTOR_DOCS = {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "Protocol"}
_NO_RETURN = {"None", "NoReturn", "Never"}
TOP = "top"  # the parametrize id of the modules directly under authormask/


@dataclass(frozen=True)
class Offence:
    package: str
    where: str  # file:line
    path: str  # the object's dotted path
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.path}: {self.problem}"


@contextlib.contextmanager
def _quiet_griffe() -> Iterator[None]:
    """Griffe logs what it cannot resolve or parse; this check says what matters itself."""
    logger = logging.getLogger("griffe")
    disabled, logger.disabled = logger.disabled, True
    try:
        yield
    finally:
        logger.disabled = disabled


def _private(path: str) -> bool:
    return any(part.startswith("_") for part in path.split("."))


def _left_out(path: str) -> bool:
    return any(path == p or path.startswith(p + ".") for p in LEFT_OUT)


def _public_modules(module: griffe.Module) -> Iterator[griffe.Module]:
    if _private(module.path) or _left_out(module.path):
        return
    yield module
    for sub in module.members.values():
        if isinstance(sub, griffe.Module):  # an alias is not a griffe.Module
            yield from _public_modules(sub)


def _public_names(module: griffe.Module) -> list[str]:
    if module.exports is not None:
        return [str(name) for name in module.exports]
    return [name for name in module.members if not name.startswith("_")]


def _public_objects(root: griffe.Module) -> Iterator[griffe.Function | griffe.Class]:
    """The public functions and classes (each once), then each class's public methods."""
    seen: dict[str, griffe.Function | griffe.Class] = {}
    for module in _public_modules(root):
        for name in _public_names(module):
            member = module.members.get(name)
            if member is None:
                continue
            if member.is_alias:
                try:
                    target = member.final_target
                except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                    continue  # defined outside the package
                if module.exports is None or _left_out(target.module.path):
                    continue  # an import, not an export (or one of the command line's)
            else:
                target = member
            if isinstance(target, griffe.Function | griffe.Class):
                seen.setdefault(target.path, target)
    for obj in seen.values():
        if isinstance(obj, griffe.Function):
            if not _route_handler(obj):
                yield obj
            continue
        yield obj
        for name, method in obj.members.items():
            if (
                not name.startswith("_")
                and not method.is_alias
                and isinstance(method, griffe.Function)
                and "property" not in method.labels
            ):
                yield method


def _route_handler(function: griffe.Function) -> bool:
    return function.module.path in ROUTES and any(
        isinstance(d.value, griffe.ExprCall)
        and str(d.value.function).rpartition(".")[2] in _ROUTE_METHODS
        for d in function.decorators
    )


def _package_of(obj: griffe.Object, root: griffe.Module) -> str:
    """The top-level package ``obj`` is defined in (``top``: a module of ``root`` itself)."""
    parts = obj.module.path.split(".")
    sub = root.members.get(parts[1]) if len(parts) > 1 else None
    return parts[1] if isinstance(sub, griffe.Module) and sub.is_init_module else TOP


@functools.cache
def _file_syntax(path: str) -> dict[int, ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions of a file by line: that of ``def`` and that of each decorator."""
    lines: dict[int, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            lines[node.lineno] = node
            for decorator in node.decorator_list:
                lines.setdefault(decorator.lineno, node)
    return lines


def _syntax(function: griffe.Function) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function's syntax tree: its own source parsed (fast), or its file's if a string of
    it is indented less than the ``def`` (``dedent`` cannot take such a source)."""
    try:
        tree = ast.parse(textwrap.dedent(function.source))
        node = tree.body[0]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
    except (SyntaxError, IndexError):
        pass
    return _file_syntax(str(function.filepath)).get(function.lineno or 0)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of the function's own body: nested functions, lambdas and classes left out."""
    stack = [node for node in function.body if not isinstance(node, _SCOPES)]
    while stack:
        node = stack.pop()
        yield node
        stack += [c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES)]


def _raised(node: ast.Raise) -> str | None:
    """The class a ``raise`` names, or None: a bare ``raise``, a variable (lower case), or an
    exception a function builds (``raise _error(...)``)."""
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    if isinstance(exc, ast.Attribute):
        name = exc.attr
    elif isinstance(exc, ast.Name):
        name = exc.id
    else:
        return None
    return name if name.lstrip("_")[:1].isupper() else None


def _sections(obj: griffe.Object) -> dict[str, list[griffe.DocstringSection]]:
    sections: dict[str, list[griffe.DocstringSection]] = {}
    if obj.docstring is not None:
        for section in obj.docstring.parsed:
            sections.setdefault(section.kind.value, []).append(section)
    return sections


def _names(sections: dict[str, list[griffe.DocstringSection]], *kinds: str) -> list[str]:
    return [item.name for kind in kinds for s in sections.get(kind, ()) for item in s.value]


def _bare(name: str) -> str:
    return name.lstrip("*")


def _compare(expected: list[str], documented: list[str], allowed_extra: list[str]) -> list[str]:
    missing = [n for n in expected if _bare(n) not in {_bare(d) for d in documented}]
    extra = [
        d for d in documented if _bare(d) not in {_bare(n) for n in [*expected, *allowed_extra]}
    ]
    problems = []
    if missing:
        problems.append(f"not in Parameters: {', '.join(missing)}")
    if extra:
        problems.append(f"in Parameters but not in the signature: {', '.join(extra)}")
    return problems


def _function_problems(function: griffe.Function) -> list[str]:
    sections = _sections(function)
    parameters = [p.name for p in function.parameters]
    if function.parent is not None and function.parent.is_class and parameters:
        if "staticmethod" not in function.labels and parameters[0] in ("self", "cls"):
            parameters = parameters[1:]
    problems = []
    if parameters and "parameters" not in sections:
        problems.append(f"no Parameters section (takes {', '.join(parameters)})")
    else:
        problems += _compare(parameters, _names(sections, "parameters", "other_parameters"), [])
    node = _syntax(function)
    own = list(_own_nodes(node)) if node is not None else []
    generator = any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own)
    returns = function.returns
    if generator:
        if "yields" not in sections:
            problems.append("a generator without a Yields section")
    elif returns is not None and str(returns).rpartition(".")[2] not in _NO_RETURN:
        if "returns" not in sections:
            problems.append(f"no Returns section (returns {returns})")
    raised = {r for n in own if isinstance(n, ast.Raise) for r in [_raised(n)] if r is not None}
    documented = {
        str(item.annotation).strip("`~").rpartition(".")[2]
        for s in sections.get("raises", ())
        for item in s.value
    }
    missing = sorted(raised - documented)
    if missing:
        problems.append(f"raises {', '.join(missing)} not named in Raises")
    return problems


def _exempt_class(cls: griffe.Class, seen: frozenset[str] = frozenset()) -> bool:
    """An exception, an enum or a protocol: no Parameters section needed."""
    for base in cls.bases:
        name = str(base).partition("[")[0].rpartition(".")[2]
        builtin = getattr(builtins, name, None)
        if name in _NO_CONSTRUCTOR_DOCS or name.endswith(("Error", "Exception", "Warning")):
            return True
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            return True
    return any(
        _exempt_class(base, seen | {cls.path})
        for base in cls.resolved_bases
        if base.path not in seen
    )


def _class_problems(cls: griffe.Class) -> list[str]:
    init = cls.members.get("__init__")
    if isinstance(init, griffe.Function) and not init.is_alias:
        parameters = [p.name for p in init.parameters][1:]
    elif "dataclass" in cls.labels:
        parameters = [p.name for p in cls.parameters if p.name != "self"]
    else:
        return []
    if not parameters or _exempt_class(cls):
        return []
    sections = _sections(cls)
    dataclass_ = "dataclass" in cls.labels
    attributes = _names(sections, "attributes") if dataclass_ else []
    if "parameters" not in sections and not attributes:
        where = "Parameters (or Attributes) section" if dataclass_ else "Parameters section"
        return [f"no {where} in the class docstring (takes {', '.join(parameters)})"]
    documented = _names(sections, "parameters", "other_parameters")
    return _compare(parameters, [*documented, *attributes], attributes)


def offences(root: griffe.Module) -> list[Offence]:
    """Every object of ``root`` (a loaded package) that breaks the rule, with what it breaks."""
    found = []
    with _quiet_griffe():
        for obj in _public_objects(root):
            if isinstance(obj, griffe.Class):
                problems = _class_problems(obj)
            else:
                problems = _function_problems(obj)
            where = f"{obj.relative_filepath}:{obj.lineno}"
            found += [Offence(_package_of(obj, root), where, obj.path, p) for p in problems]
    return found


@functools.cache
def _authormask() -> griffe.Module:
    with _quiet_griffe():
        root = griffe.load(
            "authormask", search_paths=[SRC], docstring_parser="numpy", allow_inspection=False
        )
    assert isinstance(root, griffe.Module)
    return root


@functools.cache
def _all_offences() -> tuple[Offence, ...]:
    return tuple(offences(_authormask()))


def _packages() -> list[str]:
    top = SRC / "authormask"
    names = [
        p.name
        for p in sorted(top.iterdir())
        if (p / "__init__.py").is_file()
        and not _private(p.name)
        and not _left_out(f"authormask.{p.name}")
    ]
    return [TOP, *names]


@pytest.mark.parametrize("package", _packages())
def test_public_docstrings_have_numpydoc_sections(package: str) -> None:
    found = [o for o in _all_offences() if o.package == package]
    if found:
        found.sort(key=lambda o: (o.where.rpartition(":")[0], int(o.where.rpartition(":")[2])))
        pytest.fail(
            f"{len(found)} docstring problem(s) in {package} (numpydoc sections, see this "
            "module's docstring):\n" + "\n".join(map(str, found)),
            pytrace=False,
        )


def test_the_check_sees_the_public_api() -> None:
    """Not vacuous: the release entry point, a class re-exported from a private module, its
    methods, and a re-export of a public module's unlisted function are all checked."""
    with _quiet_griffe():
        paths = {obj.path for obj in _public_objects(_authormask())}
    assert {
        "authormask.core.api.release",
        "authormask.mechanisms._base.Mechanism",
        "authormask.embeddings._base.Embeddings",
        "authormask.accounting.statement.PrivacyStatement.to_json",
        "authormask.datasets.packaged.find_reuters_c50",  # exported by authormask.datasets
    } <= paths
    assert not any(p.startswith("authormask.cli.") for p in paths)
    assert len(paths) > 500


_FAKE = {
    "__init__.py": """
from fake._hidden import Hidden
from fake.sub.mod import good
__all__ = ["Hidden", "good"]
""",
    "_hidden.py": """
class Hidden:
    \"\"\"Defined in a private module, exported by the package.\"\"\"

    def __init__(self, size: int) -> None:
        self.size = size
""",
    "sub/__init__.py": "",
    "sub/mod.py": """
from dataclasses import dataclass
from typing import Iterator

from fake.sub.other import imported

__all__ = ["Bad", "Fields", "Oops", "Shape", "bad", "good", "items", "nested", "wrong"]


class Oops(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)


def good(a: int, *args: int, b: str = "", **kwargs: int) -> int:
    \"\"\"Good.

    Parameters
    ----------
    a : int
        First.
    *args
        More.
    b
        Second.
    **kwargs
        Rest.

    Returns
    -------
    int
        A number.

    Raises
    ------
    Oops
        When.
    \"\"\"
    try:
        pass
    except KeyError as exc:
        raise exc
    except IndexError:
        raise
    raise Oops("x")


def bad(a: int, b: int) -> int:
    \"\"\"Bad.

    Parameters
    ----------
    a
        First.
    c
        Not a parameter.
    \"\"\"
    raise Oops("x")


def wrong(a: int) -> None:
    \"\"\"No sections at all.\"\"\"


def nested() -> None:
    \"\"\"Raises only in a function it defines.\"\"\"

    def inner() -> None:
        raise Oops("x")


def items() -> Iterator[int]:
    \"\"\"A generator.

    Returns
    -------
    Iterator[int]
        Numbers.
    \"\"\"
    yield 1


@dataclass
class Fields:
    \"\"\"Listed as attributes.

    Attributes
    ----------
    x
        One.
    extra
        Not a field: allowed under Attributes.
    \"\"\"

    x: int


@dataclass
class Shape:
    \"\"\"Says nothing of its fields.\"\"\"

    width: int

    @property
    def area(self) -> int:
        return self.width

    def scaled(self, k: int) -> "Shape":
        \"\"\"Scaled.

        Parameters
        ----------
        k
            Factor.

        Returns
        -------
        Shape
            A new shape.
        \"\"\"
        return Shape(self.width * k)

    def grow(self, k: int) -> None:
        \"\"\"No Parameters.\"\"\"


class Bad:
    \"\"\"Takes parameters it does not name.\"\"\"

    def __init__(self, n: int) -> None:
        self.n = n
""",
    "sub/other.py": """
__all__ = []


def imported(x: int) -> int:
    return x
""",
    "sub/plain.py": """
from fake.sub.other import imported


def visible(x: int) -> int:
    return imported(x)


def _helper(x: int) -> int:
    return x
""",
}


def test_the_check_finds_each_kind_of_problem() -> None:
    with griffe.temporary_visited_package("fake", _FAKE, docstring_parser="numpy") as root:
        found = {(o.path.removeprefix("fake."), o.problem) for o in offences(root)}
    assert found == {
        ("_hidden.Hidden", "no Parameters section in the class docstring (takes size)"),
        ("sub.mod.bad", "not in Parameters: b"),
        ("sub.mod.bad", "in Parameters but not in the signature: c"),
        ("sub.mod.bad", "no Returns section (returns int)"),
        ("sub.mod.bad", "raises Oops not named in Raises"),
        ("sub.mod.wrong", "no Parameters section (takes a)"),
        ("sub.mod.items", "a generator without a Yields section"),
        (
            "sub.mod.Shape",
            "no Parameters (or Attributes) section in the class docstring (takes width)",
        ),
        ("sub.mod.Shape.grow", "no Parameters section (takes k)"),
        ("sub.mod.Bad", "no Parameters section in the class docstring (takes n)"),
        ("sub.plain.visible", "no Parameters section (takes x)"),
        ("sub.plain.visible", "no Returns section (returns int)"),
    }
