"""Regular expressions kept compiled: the code :mod:`re` compiles a pattern to, kept in a prepared
file and handed back to the regular-expression engine, so that a process does not compile it
again.

The recogniser's tokenizer (:mod:`authormask.text.ner.tokenizer`) has four expressions of 3,000
to 15,000 characters, mostly classes of thousands of code points: compiling them took 40-60 ms
of every release's start (a one-sentence release is 0.5 s). :mod:`re` compiles a pattern in two
steps, both in Python (``re._parser.parse``, then ``re._compiler._code``), to a list of integers,
and hands the list to the engine (``_sre.compile``), which checks it (``_validate``: a list that
is not a well-formed program is refused, never run) and makes the pattern. :func:`stored` keeps
what the second step is given; :func:`restored` gives it to the engine again, in 0.1-0.2 ms.

The list is the interpreter's own: it is kept with the interpreter's identity
(:data:`INTERPRETER`: its version and build, the engine's ``MAGIC`` and code size, the largest
code point) and the pattern and flags it was made from, and it is used only by that very
interpreter for that very pattern; anything else (another interpreter, a damaged entry, an
engine that refuses it, an implementation without ``_sre``) compiles the pattern as :mod:`re`
does. Two patterns compare equal in CPython only if their flags, pattern and code are equal
(``pattern_richcompare``), so a restored pattern that equals ``re.compile(pattern, flags)`` is
the very program :mod:`re` makes (``tests/text/test_compiled.py`` checks this for every
expression kept). The entries come from a prepared file, and are handed to the engine while its
arrays are still being hashed (:func:`~authormask.embeddings.prepared.read_entry`'s
``meanwhile``): what is made of them is used only where every hash is the file's, and until
then the engine's own check keeps a damaged program from running (it does not tell a
well-formed program of another pattern; the hashes, and the file's key, do).
"""

from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["INTERPRETER", "restored", "stored"]

try:  # CPython's engine and compiler; elsewhere nothing is kept
    import _sre
    from re import _compiler, _parser  # type: ignore[attr-defined]  # CPython 3.11+

    INTERPRETER: str | None = (
        f"{sys.implementation.name}|{sys.version}|{sys.implementation.cache_tag}|"
        f"{_sre.MAGIC}|{_sre.CODESIZE}|{sys.maxunicode}"
    )
except (ImportError, AttributeError):  # pragma: no cover - not CPython
    INTERPRETER = None

#: the fields of an entry, in order, as :func:`stored` writes them
_FIELDS = ("interpreter", "pattern", "flags", "compiled_flags", "code", "groups", "groupindex")


def stored(pattern: str, flags: int = 0) -> dict[str, Any] | None:
    """What :func:`restored` needs to make ``re.compile(pattern, flags)`` without compiling:
    the steps of ``re._compiler.compile``, kept before the last.

    Parameters
    ----------
    pattern
        The expression.
    flags
        Its :mod:`re` flags.

    Returns
    -------
    dict or None
        A JSON-able entry (the interpreter, the pattern and flags, the flags the engine is given,
        the code, the number of groups and the named groups), or None where this interpreter
        has no such steps.
    """
    if INTERPRETER is None:  # pragma: no cover - not CPython
        return None
    try:
        parsed = _parser.parse(pattern, flags)
        code = _compiler._code(parsed, flags)
        state = parsed.state
        entry = {
            "interpreter": INTERPRETER,
            "pattern": pattern,
            "flags": int(flags),
            "compiled_flags": int(flags | state.flags),
            "code": [int(c) for c in code],
            "groups": int(state.groups),
            # the named groups as pairs, in their order (a JSON object written with sorted
            # keys would give them back in another order: groupdict()'s)
            "groupindex": [[str(k), int(v)] for k, v in state.groupdict.items()],
        }
    except Exception:  # pragma: no cover - a compiler of another shape: nothing kept
        return None
    made = _made(entry, pattern, flags)
    return entry if made is not None and made == re.compile(pattern, flags) else None


def restored(entry: object, pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, made from ``entry`` (:func:`stored`) where it was kept by
    this interpreter for this pattern and flags and the engine takes it, else compiled.

    Parameters
    ----------
    entry
        What :func:`stored` returned (read back from JSON), or anything else (None, damaged).
    pattern
        The expression.
    flags
        Its :mod:`re` flags.

    Returns
    -------
    re.Pattern
        The compiled expression.
    """
    made = _made(entry, pattern, flags)
    return re.compile(pattern, flags) if made is None else made


def _made(entry: object, pattern: str, flags: int) -> re.Pattern[str] | None:
    """The pattern the engine makes of a well-formed entry of this interpreter, else None."""
    if (
        INTERPRETER is None
        or not isinstance(entry, dict)
        or tuple(sorted(entry)) != tuple(sorted(_FIELDS))
    ):
        return None
    if (
        entry["interpreter"] != INTERPRETER
        or entry["pattern"] != pattern
        or type(entry["flags"]) is not int
        or entry["flags"] != flags
    ):
        return None
    code, groups, index = entry["code"], entry["groups"], entry["groupindex"]
    compiled_flags = entry["compiled_flags"]
    if (
        type(compiled_flags) is not int
        or type(groups) is not int
        or not isinstance(code, list)
        # every group is opened and closed by a MARK of the program: no more groups than that
        or not 1 <= groups <= len(code) // 2 + 1
        or not all(type(c) is int for c in code)
        or not isinstance(index, list)
        or not all(_is_named_group(pair, groups) for pair in index)
    ):
        return None
    try:  # the engine checks the program (``_validate``) and refuses one that is not well formed
        names: list[str | None] = [None] * groups
        for name, at in index:
            names[at] = name
        made: re.Pattern[str] = _sre.compile(
            pattern, compiled_flags, code, groups - 1, dict(index), tuple(names)
        )
    except Exception:
        return None
    return made


def _is_named_group(pair: object, groups: int) -> bool:
    """Whether ``pair`` is a named group as :func:`stored` keeps it: ``[name, number]``, the
    number one of the pattern's groups."""
    return (
        isinstance(pair, list)
        and len(pair) == 2
        and type(pair[0]) is str
        and type(pair[1]) is int
        and 0 < pair[1] < groups
    )
