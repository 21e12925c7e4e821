"""Every ``authormask`` command the manual shows in a ``bash`` block parses: each option is one
the command knows, so a renamed or removed option cannot stay documented (issue 32 B). The blocks
a test can run as they stand (a page marks them with ``<!-- test: run -->`` just above the block:
they make their own input) are run, in order, in a fresh folder, and must succeed.

The README's own commands are checked in :mod:`test_readme`; this checks every page of ``docs/``.
Commands run in this process through click's test runner with ``--help`` appended (eager: the
arguments are parsed, the help printed, nothing run), so no corpus, model or input is needed.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from authormask.cli.app import cli

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^```(?:bash|sh|shell)\n(.*?)^```", re.M | re.S)
#: placeholders the pages use for "your mechanism" (a tutorial's NAME, the plugin page's my-mech)
PLACEHOLDERS = {"NAME": "emp-text", "my-mech": "emp-text"}


def documented_commands(text: str) -> list[list[str]]:
    """The argument lists (after ``authormask``) of the authormask commands in ``text``'s bash
    blocks: continuation lines joined, comments, redirections and ``&`` dropped, placeholders
    replaced by a registered mechanism."""
    commands = []
    for block in BLOCK.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if "&&" in words:  # an install line: the command after the last &&
                words = words[len(words) - words[::-1].index("&&") :]
            if not words or not words[0].endswith("authormask"):
                continue
            args = []
            for word in words[1:]:
                if word in ("&", "|") or re.match(r"^\d?>", word):
                    break
                args.append(",".join(PLACEHOLDERS.get(part, part) for part in word.split(",")))
            commands.append(args)
    return commands


def manual_commands() -> list[tuple[str, list[str]]]:
    out = []
    for path in sorted(DOCS.rglob("*.md")):
        for args in documented_commands(path.read_text(encoding="utf-8")):
            out.append((str(path.relative_to(ROOT)), args))
    return out


COMMANDS = manual_commands()


def test_the_manual_has_commands_to_check() -> None:
    # the check below must not pass by finding nothing: the tutorials, how-to pages and results
    # pages each show commands
    pages = {page for page, _ in COMMANDS}
    assert len(COMMANDS) >= 25
    assert {"docs/tutorials/first-release.md", "docs/how-to/evaluate.md"} <= pages


@pytest.mark.parametrize(
    ("page", "args"), COMMANDS, ids=[f"{p}:{' '.join(a[:2])}" for p, a in COMMANDS]
)
def test_documented_command_parses(page: str, args: list[str]) -> None:
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code == 0, f"{page}: authormask {' '.join(args)}\n{result.output}"
    assert "Usage:" in result.output


def test_a_stale_option_is_caught() -> None:
    # the check has power: an option the command does not know fails to parse, and the
    # extraction keeps options, joins continuation lines and drops comments and redirections
    text = (
        "```bash\n.venv/bin/authormask obfuscate a.txt --epsilon 7 \\\n"
        "    --no-such-option -o - > out.txt  # a comment\n```\n"
    )
    [args] = documented_commands(text)
    assert args == ["obfuscate", "a.txt", "--epsilon", "7", "--no-such-option", "-o", "-"]
    result = CliRunner().invoke(cli, [*args, "--help"])
    assert result.exit_code != 0
    assert "no-such-option" in result.output


RUN_MARK = "<!-- test: run -->\n"


def runnable_blocks() -> list[tuple[str, list[str]]]:
    """Per page, the lines (continuations joined) of its bash blocks marked to be run."""
    pages = []
    for path in sorted(DOCS.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        lines: list[str] = []
        for block in re.findall(re.escape(RUN_MARK) + r"```bash\n(.*?)^```", text, re.M | re.S):
            lines += [ln for ln in block.replace("\\\n", " ").splitlines() if ln.strip()]
        if lines:
            pages.append((str(path.relative_to(ROOT)), lines))
    return pages


RUNNABLE = runnable_blocks()


def test_the_tutorials_mark_blocks_to_run() -> None:
    pages = {page for page, _ in RUNNABLE}
    assert {"docs/tutorials/first-release.md", "docs/tutorials/dataset-on-dask.md"} <= pages


@pytest.mark.parametrize(("page", "lines"), RUNNABLE, ids=[p for p, _ in RUNNABLE])
def test_runnable_blocks_run(
    page: str,
    lines: list[str],
    invoke: Callable[[list[str]], tuple[int, str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each line in a fresh folder: an ``authormask`` command in this process (its ``>`` and
    ``2>`` redirections written to their files), anything else by bash; every one exits 0, and
    every file a command names after ``-o`` or a redirection exists and is not empty."""
    monkeypatch.chdir(tmp_path)
    for line in lines:
        words = shlex.split(line, comments=True)
        if not words[0].endswith("authormask"):
            done = subprocess.run(
                ["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True
            )
            assert done.returncode == 0, f"{page}: {line}\n{done.stderr}"
            continue
        args, redirects = [], {}
        words = words[1:]
        while words:
            word = words.pop(0)
            if word in (">", "2>"):
                redirects[word] = words.pop(0)
            else:
                args.append(word)
        code, out, err = invoke(args)
        assert code == 0, f"{page}: {line}\n{err}"
        for stream, text in ((">", out), ("2>", err)):
            if stream in redirects:
                (tmp_path / redirects[stream]).write_text(text, encoding="utf-8")
        named = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-o", "--output")]
        for name in [*named, *redirects.values()]:
            if name != "-":
                assert (tmp_path / name).stat().st_size > 0, f"{page}: {line}: {name} is empty"
