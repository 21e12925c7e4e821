"""Attributes of a package imported on first use (PEP 562), so that importing the package (and
the command line's start) loads no heavy module until one of them is used."""

from __future__ import annotations

import importlib
import types
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

__all__ = ["keep_over_submodules", "lazy_attributes"]


def lazy_attributes(
    package: str,
    table: Mapping[str, str],
    namespace: MutableMapping[str, Any],
    public: Sequence[str],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``: an attribute named in
    ``table`` is imported from its module on first use and kept in ``namespace`` (the package's
    globals); ``dir()`` lists ``public``."""

    def getattr_(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(public)

    return getattr_, dir_


def keep_over_submodules(package: types.ModuleType, names: Sequence[str]) -> None:
    """Keep the attributes ``names`` of ``package`` (functions it provides on first use) when a
    submodule of the same name is imported: the import system would set the package's
    attribute to the submodule when it is first loaded, so that assignment is ignored and the
    name stays the function (as with an eager ``from package.name import name``)."""
    kept = frozenset(names)

    class _Package(types.ModuleType):
        def __setattr__(self, name: str, value: Any) -> None:
            if name in kept and isinstance(value, types.ModuleType):
                return
            super().__setattr__(name, value)

    package.__class__ = _Package
