"""Names that say one thing (issue 31 E): no public name of a package is both one of its
submodules and something else (a function, a class), so importing a submodule never changes
what the package's attribute is, and no module swaps a package's class to hide it."""

from __future__ import annotations

import importlib
import pkgutil
import types

import pytest

import authormask


def _packages() -> list[str]:
    names = ["authormask"]
    for info in pkgutil.walk_packages(authormask.__path__, "authormask."):
        if info.ispkg:
            names.append(info.name)
    return names


def _submodules(package: types.ModuleType) -> set[str]:
    return {info.name for info in pkgutil.iter_modules(package.__path__)}


@pytest.mark.parametrize("name", _packages())
def test_no_public_name_is_also_a_submodule(name: str) -> None:
    package = importlib.import_module(name)
    public = set(getattr(package, "__all__", ()))
    clashes = {
        n
        for n in public & _submodules(package)
        if not isinstance(getattr(package, n), types.ModuleType)
    }
    assert not clashes, f"{name}: {sorted(clashes)} name both a submodule and something else"
    assert type(package) is types.ModuleType, f"{name} swaps its module class"


def test_the_release_function_and_the_core_package_are_apart() -> None:
    import authormask.core as core

    assert isinstance(core, types.ModuleType)
    assert core.FileSource.__name__ == "FileSource"
    assert callable(authormask.release) and not isinstance(authormask.release, types.ModuleType)
    assert authormask.release is core.release


def test_the_frontier_function_is_not_shadowed_by_a_module() -> None:
    import authormask.evaluation as evaluation
    import authormask.evaluation.tradeoff  # noqa: F401 - the import must not change the name

    assert callable(evaluation.frontier)
    assert not isinstance(evaluation.frontier, types.ModuleType)
