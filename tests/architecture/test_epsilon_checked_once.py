"""Epsilon is checked once, where the spec reads it (issue 48, item 5): one function,
:func:`authormask.validation.check_number`, decides whether a number is finite and in its
interval; a spec's :meth:`~authormask.core.specs.Parameter.check` calls it with the declared
interval, and a mechanism's or sampler's guard (:func:`~authormask.validation.check_epsilon`)
with epsilon's. No front end (the command line, the page, an evaluation) has a rule of its own.
Read from the source with ``ast``, as the other architecture tests."""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from authormask.core.registry import MECHANISMS, check_parameters
from authormask.core.specs import EPSILON
from authormask.exceptions import InvalidParameterError
from authormask.validation import check_epsilon

SRC = Path(__file__).resolve().parents[2] / "src" / "authormask"
#: the names an epsilon goes by in the source
EPSILON_NAMES = frozenset({"epsilon", "eps", "e"})


def _functions(path: Path) -> Iterator[tuple[str, ast.AST]]:
    """``(qualified name, node)`` of every function of ``path``, methods as ``Class.name``."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield f"{prefix}{child.name}", child
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), "")


def _calls_isfinite(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Attribute) and n.func.attr == "isfinite")
            or (isinstance(n.func, ast.Name) and n.func.id == "isfinite")
        )
        for n in ast.walk(node)
    )


def _is_epsilon(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and node.id in EPSILON_NAMES) or (
        isinstance(node, ast.Attribute) and node.attr in EPSILON_NAMES
    )


def _judges_an_epsilon(test: ast.AST) -> bool:
    """Whether condition ``test`` compares an epsilon with a number or asks if it is finite."""
    for n in ast.walk(test):
        if isinstance(n, ast.Compare):
            sides = [n.left, *n.comparators]
            numbers = [
                s for s in sides if isinstance(s, ast.Constant) and type(s.value) in (int, float)
            ]
            if numbers and any(_is_epsilon(s) for s in sides):
                return True
        if isinstance(n, ast.Call) and _calls_isfinite(n) and any(map(_is_epsilon, n.args)):
            return True
    return False


def _own_epsilon_rules(root: Path = SRC) -> list[str]:
    """Every ``if`` of ``root``'s source that refuses (raises) on its own comparison of an
    epsilon, as ``module:line``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.If)
                and _judges_an_epsilon(node.test)
                and any(isinstance(s, ast.Raise) for s in node.body)
            ):
                found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return found


def _number_checkers(root: Path = SRC) -> list[str]:
    """The functions of the validation module and of the spec that ask whether a number is
    finite: the one check of a number, and nothing beside it."""
    return [
        f"{path.name}:{name}"
        for path in (root / "validation.py", root / "mechanisms" / "_spec.py")
        for name, node in _functions(path)
        if _calls_isfinite(node)
    ]


def test_one_function_decides_whether_a_number_is_valid() -> None:
    """The spec's parameter check and the mechanisms' guard share one function, not two
    versions of one rule (a ``Parameter`` had its own, beside ``check_epsilon``)."""
    assert _number_checkers() == ["validation.py:check_number"]


def test_no_front_end_refuses_an_epsilon_by_a_rule_of_its_own() -> None:
    """The page's calibration and the bo2021 configuration compared epsilon with 0 themselves;
    every refusal now goes through the spec's parameter or the one check."""
    assert _own_epsilon_rules() == []


def test_the_checkers_see_what_they_look_for(tmp_path: Path) -> None:
    """A test of the tests: a rule of one's own is found; a branch on epsilon that refuses
    nothing (the noise-off form's ``if epsilon == 0``) is not one."""
    (tmp_path / "validation.py").write_text(
        "import math\ndef check_number(x):\n    return math.isfinite(x)\n"
        "def check_epsilon(x):\n    return math.isfinite(x)\n"
    )
    (tmp_path / "mechanisms").mkdir()
    (tmp_path / "mechanisms" / "_spec.py").write_text("")
    (tmp_path / "front.py").write_text(
        "def f(epsilon):\n"
        "    if epsilon == 0:\n        return 1\n"
        "    if not math.isfinite(epsilon) or epsilon <= 0:\n        raise ValueError\n"
        "def g(values):\n"
        "    if any(not (e > 0) for e in values):\n        raise ValueError\n"
    )
    assert _number_checkers(tmp_path) == [
        "validation.py:check_number",
        "validation.py:check_epsilon",
    ]
    assert _own_epsilon_rules(tmp_path) == ["front.py:4", "front.py:7"]


BAD = [0, -1, 0.0, -2.5, math.nan, math.inf, -math.inf, "ten", None, True, 10**400]


@pytest.mark.parametrize("value", BAD, ids=repr)
def test_the_spec_and_the_guard_refuse_alike(value: object) -> None:
    """The spec's reading of an epsilon and a mechanism's guard give one refusal, word for
    word (the spec names the parameter between backquotes)."""
    with pytest.raises(InvalidParameterError) as spec:
        EPSILON.check(value)
    with pytest.raises(InvalidParameterError) as guard:
        check_epsilon(value)
    assert str(spec.value) == str(guard.value).replace("epsilon", "`epsilon`", 1)


@pytest.mark.parametrize("name", [n for n, s in MECHANISMS.items() if s.takes_epsilon])
def test_every_epsilon_of_the_registry_is_read_by_its_spec(name: str) -> None:
    """Every registered mechanism's epsilon is refused by its spec's parameter, in the one
    check's words, before anything is built."""
    spec = MECHANISMS[name]
    given = {p.name: "given" for p in spec.parameters if p.required and p.name != "epsilon"}
    with pytest.raises(InvalidParameterError, match=r"^`epsilon` must be a finite number > 0"):
        check_parameters(name, epsilon=-1.0, **given)
