"""Shared by the robustness tests: derandomized fuzz settings, text strategies full of what
breaks text tools, and the check of a CLI run's end (a valid output with its statement, or one
error line, never a traceback).

The examples are the same on every run (CI never flakes). To hunt for new failures, set
``AUTHORMASK_FUZZ=N``: N times as many examples, drawn at random (a failure prints the example
to add as a test).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

import authormask as am
from authormask.accounting import PrivacyStatement
from authormask.exceptions import AuthormaskError
from authormask.text.parts import PART_CHARS

#: stderr lines that may come with an error: the seeded-release warning (printed before the
#: release starts) and a progress line (printed about every 10 s when stderr is not a terminal)
_ALLOWED = ("authormask: warning: seeded release", "releasing: ")

_FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)


_SCALE = int(os.environ.get("AUTHORMASK_FUZZ", "0") or 0)


def fuzz(examples: int) -> settings:
    """Settings of a fuzz test: ``examples`` derandomized examples (the same every run, never
    flaky), no deadline, no example database; see the module docstring for ``AUTHORMASK_FUZZ``."""
    if _SCALE > 0:
        return settings(_FUZZ, max_examples=examples * _SCALE, derandomize=False)
    return settings(_FUZZ, max_examples=examples)


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    def check(self, output: Path | None = None) -> str:
        """Assert a valid end; return ``"released"`` or ``"refused"``.

        Released: exit 0, "Privacy statement" on stderr, and the output on stdout or, with
        ``output``, the written file or folder with its public statement beside or inside it.
        Refused: exit != 0 and one line ``authormask: error: ...`` on stderr (besides the lines
        of :data:`_ALLOWED`).
        """
        assert "Traceback" not in self.err and "Traceback" not in self.out, self.err
        if self.code == 0:
            assert "Privacy statement" in self.err, self.err
            if output is None:
                assert self.out.strip(), "exit 0 without output"
            else:
                statement = (
                    output / "PRIVACY-STATEMENT.json"
                    if output.is_dir()
                    else output.with_name(output.name + ".privacy.json")
                )
                assert output.exists(), f"exit 0 but {output} was not written"
                assert statement.is_file(), f"exit 0 but no statement at {statement}"
                assert json.loads(statement.read_text(encoding="utf-8"))["mechanism"]
            return "released"
        lines = [
            line for line in self.err.splitlines() if line.strip() and not line.startswith(_ALLOWED)
        ]
        assert len(lines) == 1, f"exit {self.code} with stderr:\n{self.err}"
        assert lines[0].startswith("authormask: error: "), self.err
        assert self.code not in (0, None)
        return "refused"


#: pieces that tokenisers, decoders and renderers get wrong: vocabulary words, stopwords,
#: clitics, every kind of whitespace and line end, control characters, NUL, emoji (with joiners
#: and modifiers), right-to-left text and marks, combining marks, lone punctuation
PIECES = [
    "budget",
    "Committee",
    "APPROVED",
    "the",
    "don't",
    "President\u2019s",
    "state-of-the-art",
    "o'clock",
    "__init__",
    "42",
    "3.14",
    "e-mail@example.com",
    "https://example.com/a?b=c",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x1c",
    "\x85",
    "\u00a0",
    "\u2003",
    "\u2028",
    "\u2029",
    "\u3000",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x7f",
    "\ufeff",
    "\u200b",
    "\u200d",
    "\U0001f600",
    "\U0001f468\u200d\U0001f469\u200d\U0001f467",
    "\U0001f44d\U0001f3fd",
    "\U0001f1eb\U0001f1f7",
    "\u0645\u0631\u062d\u0628\u0627",
    "\u05e9\u05dc\u05d5\u05dd",
    "\u202e",
    "\u200f",
    "e\u0301",
    "caf\u00e9",
    "cafe\u0301",
    "\u0301",
    "\u0928\u092e\u0938\u094d\u0924\u0947",
    "\u4f60\u597d",
    "\uff21\uff22",
    "\ufb01",
    "\u00df",
    "\u0130",
    "\U0001d400",
    "'",
    "\u2019",
    "-",
    "...",
    "!?",
    "_",
    '"',
]

#: any character but surrogates (a Python str from a file or JSON never has them)
CHARS = st.characters(exclude_categories=("Cs",))

_RAW = st.one_of(
    st.just(""),
    st.lists(
        st.sampled_from([" ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\x0b"]), max_size=8
    ).map("".join),
    st.text(CHARS, max_size=40),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(CHARS, max_size=6)), max_size=16).map(
        "".join
    ),
    # very long runs without whitespace (one token, longer than a part: PART_CHARS) and many
    # empty lines
    st.builds(
        lambda piece, n, tail: piece * n + tail,
        st.sampled_from(["x", "budget", "\u00e9", "\U0001f600", "e\u0301", "-", "\n", "\r\n"]),
        st.sampled_from([1, 1000, PART_CHARS // 6 + 7]),
        st.sampled_from(["", " budget", "\n"]),
    ),
)
#: arbitrary text, and arbitrary text around a content word (so that many documents are released)
_AROUND_A_WORD = st.builds(
    lambda a, word, b: a + word + b,
    _RAW,
    st.sampled_from(["budget", " committee ", "\nApproved", "Tuesday\r\n"]),
    _RAW,
)
TEXT = st.sampled_from([_AROUND_A_WORD, _AROUND_A_WORD, _RAW]).flatmap(lambda strategy: strategy)
TEXTS = st.lists(TEXT, min_size=1, max_size=2)

#: content that is valid UTF-8 with words in it, so that binary and text cases both occur
_SOME_TEXT = TEXT.map(lambda t: t.encode("utf-8"))
RAW_BYTES = st.one_of(
    st.binary(max_size=600),
    _SOME_TEXT,
    st.builds(lambda a, b: a + b, _SOME_TEXT, st.binary(max_size=8)),
    st.builds(lambda a, b: a + b, st.binary(max_size=8), _SOME_TEXT),
)

SPECIAL_EPSILONS = [
    1e-320,
    5e-324,
    1e-300,
    1e-40,
    1e300,
    1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
    -1.0,
    0.0,
    -0.0,
]
_VALID_EPSILON = st.one_of(
    st.sampled_from([1e-40, 1e-3, 1.0, 10.0, 1e10, 1e300]), st.floats(min_value=1e-6, max_value=1e6)
)
#: ordinary epsilons (first: the branch examples start from), tiny, huge, invalid, any float
EPSILON = st.one_of(_VALID_EPSILON, st.sampled_from(SPECIAL_EPSILONS), st.floats())


def one_line_error(exc: AuthormaskError) -> None:
    message = str(exc)
    assert message.strip(), f"{type(exc).__name__} with an empty message"
    assert "\n" not in message and "\r" not in message, message


def release_or_refuse(texts: list[str], build: Callable[[], Any]) -> am.Release | None:
    """The release, or None after checking the AuthormaskError it raised (any other exception
    propagates and fails the test)."""
    try:
        mechanism = build()
    except AuthormaskError as exc:
        one_line_error(exc)
        event("parameters refused")
        return None
    try:
        released = am.release(texts, mechanism, random_state=0)
    except AuthormaskError as exc:
        one_line_error(exc)
        event("documents refused")
        return None
    event("released")
    assert isinstance(released.statement, PrivacyStatement)
    assert released.statement.to_json()  # serialisable
    assert len(released.texts) == len(texts)
    assert all(isinstance(t, str) for t in released.texts)
    return released
