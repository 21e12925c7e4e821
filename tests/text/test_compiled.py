"""Expressions kept compiled (``authormask.text._compiled``): the very program ``re`` makes,
made without compiling where the entry is this interpreter's for this pattern, compiled where it
is anything else."""

from __future__ import annotations

import json
import re
from re import _compiler  # type: ignore[attr-defined]
from typing import Any

import pytest

from authormask.text import _compiled
from authormask.text._compiled import INTERPRETER, restored, stored

_PATTERNS = [
    (r"(?P<word>[^\W\d_]+)|(?P<number>\d+(?:[.,]\d+)*)", 0),
    (r"^(?:[\u00c0-\u024f\u0370-\u03ff]+|\.\.+|…)", 0),
    (r"(?i)monday|tuesday|(?<=\d)st\b", 0),
    (r"[a-z]+\s*$", re.IGNORECASE | re.MULTILINE),
    (r"", 0),
    (r"(?P<later>x)(?P<earlier>y)?", 0),  # named groups not in the order of their names
]
_TEXTS = [
    "xy x",
    "Monday 21st",
    "ÀÉÎ... 3.14,5 words",
    "café 12 μέρα",
    "",
    "AbC  \nxyz  ",
    "…tuesday",
]


def _through_json(entry: Any) -> Any:
    return json.loads(json.dumps(entry, sort_keys=True))  # as a prepared file writes it


@pytest.mark.parametrize(("pattern", "flags"), _PATTERNS)
def test_restored_is_the_program_re_makes_without_compiling(
    pattern: str, flags: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = _through_json(stored(pattern, flags))
    expected = re.compile(pattern, flags)

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("compiled")

    monkeypatch.setattr(_compiler, "compile", refuse)
    monkeypatch.setattr(re, "_compile", refuse)
    made = restored(entry, pattern, flags)
    monkeypatch.undo()
    assert made is not expected
    # CPython's patterns are equal only if their flags, pattern and code are
    assert made == expected
    assert (made.flags, made.groups, made.groupindex) == (
        expected.flags,
        expected.groups,
        expected.groupindex,
    )
    for text in _TEXTS:
        found, wanted = list(made.finditer(text)), list(expected.finditer(text))
        assert [(m.span(), list(m.groupdict().items())) for m in found] == [
            (m.span(), list(m.groupdict().items())) for m in wanted
        ]
    assert list(made.groupindex.items()) == list(expected.groupindex.items())


def _altered(entry: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    return {**entry, field: value}


_DAMAGES = [
    lambda e: None,
    lambda e: "not an entry",
    lambda e: _altered(e, "interpreter", "cpython|3.99.0|other"),
    lambda e: _altered(e, "pattern", "[a-z]+"),
    lambda e: _altered(e, "flags", re.ASCII),
    lambda e: _altered(e, "flags", True),  # a bool is not the int it equals
    lambda e: _altered(e, "code", e["code"][:-3]),  # a program the engine refuses
    lambda e: _altered(e, "code", [*e["code"][:-1], "1"]),
    lambda e: _altered(e, "code", [10**30]),
    lambda e: _altered(e, "groups", 0),
    lambda e: _altered(e, "groups", 10**6),  # more groups than the program marks
    lambda e: _altered(e, "groups", 2**40),
    lambda e: _altered(e, "groupindex", {"word": 7}),
    lambda e: _altered(e, "groupindex", [["word", 7]]),
    lambda e: _altered(e, "groupindex", [["word", 1, 2]]),
    lambda e: {k: v for k, v in e.items() if k != "code"},
    lambda e: {**e, "extra": 1},
]


@pytest.mark.parametrize("damage", _DAMAGES, ids=[str(i) for i in range(len(_DAMAGES))])
def test_anything_but_this_interpreters_entry_is_compiled(damage: Any) -> None:
    pattern, flags = _PATTERNS[0]
    entry = damage(_through_json(stored(pattern, flags)))
    compiled: list[str] = []
    original = _compiler.compile

    def counting(p: Any, f: int = 0) -> Any:
        compiled.append(p)
        return original(p, f)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_compiler, "compile", counting)
        re.purge()
        made = restored(entry, pattern, flags)
    assert compiled == [pattern]
    assert made == re.compile(pattern, flags)


def test_entries_are_kept_by_and_for_this_interpreter_only() -> None:
    entry = stored(*_PATTERNS[0])
    assert entry is not None and INTERPRETER is not None
    assert entry["interpreter"] == INTERPRETER
    assert _compiled._made(entry, *_PATTERNS[0]) is not None
    assert _compiled._made(entry, _PATTERNS[1][0], 0) is None
