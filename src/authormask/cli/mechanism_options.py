"""The mechanism options of ``obfuscate``, generated from the registry: one option per
parameter of any :class:`~authormask.core.MechanismSpec` (``length`` becomes ``--length``),
its help text the specs' own, naming the mechanisms that take it.

The options only read text into values (a number, a whole number, a path, one of the choices);
whether a mechanism takes a parameter, needs it, and which values it accepts is checked by the
registry (:func:`~authormask.core.registry.check_parameters`, then the mechanism when it is
built), the one validator every front end shares. The registry imports no numpy, so building
these options keeps ``--help`` instant.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from authormask.cli.options import NumberType
from authormask.core import registry

__all__ = ["COMMON", "as_options", "count_value", "mechanism_options", "parameter_flag"]

F = TypeVar("F", bound=Callable[..., Any])

#: parameters with an option of their own, shared by every command (cli/options.py)
COMMON = frozenset({"epsilon", "embeddings", "vocab_size", "cache_dir"})
#: short aliases
_ALIASES = {"length": ("-N",)}
#: text read as the value of a parameter of each kind (its range is the registry's to check)
_TYPES: dict[str, Any] = {
    "int": click.INT,
    "number": NumberType(),
    "path": click.Path(path_type=Path),
    "text": click.STRING,
    "count": click.STRING,  # a whole number or 'shortest': read by count_value
}


def parameter_flag(name: str) -> str:
    """The option of parameter ``name`` (``fixed_length`` -> ``--fixed-length``)."""
    return "--" + name.replace("_", "-")


#: a parameter named in a spec's text, between backquotes
_NAMED = re.compile(r"`([a-z][a-z0-9_]*)`")


def as_options(text: str) -> str:
    """A spec's text (:attr:`~authormask.core.specs.MechanismSpec.help`) with each parameter
    it names between backquotes written as its option.

    >>> as_options("elliptical noise (`regularization`)")
    'elliptical noise (--regularization)'
    """
    return _NAMED.sub(lambda m: parameter_flag(m.group(1)), text)


def count_value(name: str, value: str | None) -> int | str | None:
    """The value of a ``count`` parameter (``length``): a whole number, or ``shortest``."""
    if value is None or value == "shortest":
        return value
    try:
        return int(value)
    except ValueError:
        raise click.UsageError(
            f"{parameter_flag(name)} must be an integer >= 1 or 'shortest', got {value!r}"
        ) from None


def _help(specs: list[tuple[str, registry.Parameter]]) -> str:
    """One help text from every mechanism's spec of a parameter: the mechanisms that share a
    text, then the text and its default."""
    groups: dict[tuple[str, str], list[str]] = {}
    for mechanism, p in specs:
        default = "" if p.required or p.default is None else f" (default {p.default})"
        groups.setdefault((p.help, default), []).append(mechanism)
    return "; ".join(
        f"{', '.join(names)}: {text}{default}" for (text, default), names in groups.items()
    )


def _parameters() -> dict[str, list[tuple[str, registry.Parameter]]]:
    out: dict[str, list[tuple[str, registry.Parameter]]] = {}
    for name, spec in registry.MECHANISMS.items():
        for p in spec.parameters:
            if p.name not in COMMON:
                out.setdefault(p.name, []).append((name, p))
    return out


def mechanism_options(command: F) -> F:
    """Add an option for every mechanism parameter of the registry to ``command`` (in the
    registry's order; a choice option offers every value any mechanism accepts)."""
    for name, specs in reversed(_parameters().items()):
        choices = [c for _, p in specs for c in (p.choices or ())]
        kinds = {p.kind for _, p in specs}
        if len(kinds) != 1:  # pragma: no cover - a registry error, caught by the tests
            raise TypeError(f"parameter {name} has kinds {sorted(kinds)} in the registry")
        kind = kinds.pop()
        type_: Any = click.Choice(list(dict.fromkeys(choices))) if choices else _TYPES[kind]
        command = click.option(
            parameter_flag(name),
            *_ALIASES.get(name, ()),
            name,
            type=type_,
            default=None,
            help=_help(specs) + ".",
        )(command)
    return command


def mechanism_parameters(values: dict[str, Any]) -> dict[str, Any]:
    """The parameters given on the command line (``None``: not given), each read as its kind
    (``count`` values as :func:`count_value`)."""
    kinds = {name: specs[0][1].kind for name, specs in _parameters().items()}
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name in kinds:
            out[name] = count_value(name, value) if kinds[name] == "count" else value
    return out
