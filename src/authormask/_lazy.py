"""Attributes of a package imported on first use (PEP 562), so that importing the package (and
the command line's start) loads no heavy module until one of them is used."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

__all__ = ["lazy_attributes"]


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
