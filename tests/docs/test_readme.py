"""The front door and the manual: the README stays short, its links and the manual's resolve, its
test command is the one CI runs, and the commands of its "I want to..." section parse."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
TEST_COMMAND = "./scripts/install-dev && .venv/bin/python -m pytest -q -n 2"

#: [label](target) and ![alt](target); the target up to a space (a title) or the closing bracket
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def relative_links(path: Path) -> list[str]:
    """The relative link targets of a markdown file, outside code blocks and code spans."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # http:, mailto:, an anchor in the same page
        targets.append(target.split("#", 1)[0])
    return targets


def markdown_files() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 220, f"README.md has {len(lines)} lines; the manual is in docs/"


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve_to_files(path: Path) -> None:
    broken = [target for target in relative_links(path) if not (path.parent / target).is_file()]
    assert broken == [], f"{path.relative_to(ROOT)} links to missing files: {broken}"


def test_link_checker_sees_links() -> None:
    # the check above must not pass by finding nothing
    assert "docs/index.md" in relative_links(README)
    assert len(relative_links(DOCS / "index.md")) >= 10


def test_readme_test_command_is_the_one_ci_runs() -> None:
    quick_start = section("Quick start")
    assert f"```bash\n{TEST_COMMAND}\n```" in quick_start
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    install, run = TEST_COMMAND.split(" && ")
    assert install in ci
    assert run in ci
    assert ci.index(install) < ci.index(run)


def test_ci_builds_the_manual_strictly() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"\.venv/bin/mkdocs build --strict\b.*-d \"\$SITE\"", ci)
    assert 'SITE="$(mktemp -d)"' in ci
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "strict: true" in config
    assert re.search(r"^  font: false$", config, re.M)  # no web fonts fetched


def test_the_manual_writes_sphinx_roles_as_code() -> None:
    """issue 49, item 3: the API reference showed `:func:` and `:class: ~authormask...` raw."""
    import importlib.util

    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^hooks:\n  - scripts/mkdocs_roles\.py$", config, re.M)
    spec = importlib.util.spec_from_file_location("roles", ROOT / "scripts" / "mkdocs_roles.py")
    assert spec is not None and spec.loader is not None
    roles = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(roles)
    used = set()  # every role the sources' docstrings use, as mkdocstrings renders it
    for path in (ROOT / "src").rglob("*.py"):
        used |= set(re.findall(r":(\w+):`~?[\w.]+`", path.read_text(encoding="utf-8")))
    assert {"func", "class", "mod"} <= used
    for role in used:
        page = f"see :{role}:<code>~authormask.core.api.release</code> and :{role}:<code>x.y</code>"
        assert roles.on_page_content(page) == "see <code>release</code> and <code>x.y</code>", role


def i_want_to_commands() -> list[list[str]]:
    """The shell commands of the README's "I want to..." section, one argument list each."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", section("I want to..."), re.S):
        command = block.replace("\\\n", " ").strip()
        commands.append(shlex.split(command))
    return commands


def test_i_want_to_has_one_command_per_purpose() -> None:
    commands = i_want_to_commands()
    assert len(commands) == 6
    assert all(c[0] == ".venv/bin/authormask" for c in commands)


@pytest.mark.parametrize("argv", i_want_to_commands(), ids=lambda a: " ".join(a[1:3]))
def test_i_want_to_commands_parse(argv: list[str]) -> None:
    # every option is one the command knows (--help is eager: the command parses its arguments,
    # prints its help and stops, so no input file or data set is needed)
    args = [*argv[1:], "--help"]
    done = subprocess.run(
        [sys.executable, "-m", "authormask.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout


def test_a_wrong_option_does_not_parse() -> None:
    # the check above has power: --help does not hide an option the command does not know
    done = subprocess.run(
        [sys.executable, "-m", "authormask.cli.main", "obfuscate", "--no-such-option", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode != 0
    assert "no-such-option" in done.stderr
