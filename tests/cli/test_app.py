"""The shape of the CLI: one app assembling thin command modules, shared options validated the
same way everywhere, one-line errors and exit codes, an instant --help, and `distance`'s
multiplier past the float range."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

import authormask.cli
from authormask.cli.app import cli

CLI_DIR = Path(authormask.cli.__file__).parent
COMMANDS = (
    "audit", "calibrate", "distance", "embeddings", "evaluate", "explain", "obfuscate", "serve",
    "train",
)  # fmt: skip
DOC = (
    "The committee approved the budget on Tuesday. Critics said the plan would raise taxes, "
    "while supporters argued that schools and hospitals needed the money.\n"
)
OTHER = (
    "Engineers tested the new bridge design in heavy rain. The results showed strong cables "
    "and stable towers.\n"
)


@pytest.fixture()
def run(invoke):
    return lambda *args: invoke(list(args))


@pytest.fixture()
def docs(tmp_path: Path) -> tuple[str, str]:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(DOC)
    b.write_text(OTHER)
    return str(a), str(b)


def _leaves(group: click.Group) -> list[click.Command]:
    out: list[click.Command] = []
    ctx = click.Context(group)
    for command in (group.get_command(ctx, name) for name in group.list_commands(ctx)):
        assert command is not None
        out.extend(_leaves(command) if isinstance(command, click.Group) else [command])
    return out


def test_the_app_assembles_every_command(run) -> None:
    assert set(cli.list_commands(click.Context(cli))) == set(COMMANDS)
    code, out, _ = run("--help")
    assert code == 0 and all(name in out for name in COMMANDS)
    code, out, _ = run()  # no command: the help, not an error
    assert code == 0 and "Commands:" in out


def test_every_command_takes_quiet() -> None:
    for command in _leaves(cli):
        assert any(p.name == "quiet" for p in command.params), command.name


def test_no_cli_module_imports_another_ones_private_helpers() -> None:
    for path in sorted(CLI_DIR.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "authormask.cli"
            ):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"


def test_help_imports_nothing_heavy() -> None:
    """`authormask --help` and every command's --help load click and the options only."""
    heavy = ("torch", "sklearn", "ot", "scipy", "matplotlib", "fasttext", "numpy", "tqdm")
    code = (
        "import sys\n"
        "from authormask.cli.main import main\n"
        "for argv in ([], ['evaluate'], ['train', 'erae'], ['audit'], ['distance'], "
        "['calibrate'], ['obfuscate'], ['embeddings']):\n"
        "    assert main([*argv, '--help']) == 0\n"
        f"print('HEAVY=' + ','.join(m for m in {heavy!r} if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "HEAVY="


@pytest.mark.parametrize(
    "argv",
    [
        ["distance", "a", "b", "-e"],
        ["calibrate", "--epsilons"],
        ["evaluate", "--dataset", "x", "-o", "out", "--epsilons"],
        ["evaluate", "--dataset", "x", "-o", "out", "--protocol", "bo2021", "--em-epsilons"],
    ],
)
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "epsilon must be a finite number > 0, got 0.0"),
        ("-2", "epsilon must be a finite number > 0, got -2.0"),
        ("nan", "epsilon must be a finite number > 0, got nan"),
        ("inf", "epsilon must be a finite number > 0, got inf"),
        # helper-26: said "got inf" of 1e400
        ("1e400", "'1e400' is out of range: it reads as inf"),
        ("1e-400", "'1e-400' is out of range: it reads as 0"),
    ],
)
def test_every_epsilon_is_validated_the_same_way(
    run, argv: list[str], value: str, message: str
) -> None:
    code, out, err = run(*argv, value)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("authormask: error:") and message in err


@pytest.mark.parametrize(
    "argv",
    [
        ["calibrate"],
        ["audit"],
        ["evaluate", "--dataset", "x", "-o", "out"],
        ["train", "erae", "--corpus", "x", "-o", "out"],
    ],
)
def test_every_seed_is_validated_the_same_way(run, argv: list[str]) -> None:
    code, _, err = run(*argv, "--seed", "-1")
    assert code == 2 and err.count("\n") == 1
    assert "Invalid value for '--seed': -1 is not in the range x>=0" in err


def test_distance_overflow_prints_a_power_of_ten(run, docs, cache_dir: Path) -> None:
    opts = ("--cache-dir", str(cache_dir), "--vocab-size", "20000")
    code, out, err = run("distance", *docs, "-e", "1000", *opts)
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if "times more likely" in ln)
    code, js, _ = run("distance", *docs, "-e", "1000", "--format", "json", *opts)
    res = json.loads(js)
    assert res["multiplier"] is None and res["document_epsilon"] > 710
    exponent = res["document_epsilon"]
    assert f"exp({exponent:.4g}) ~ 10^{res['log10_multiplier']:.1f}" in line
    assert res["log10_multiplier"] == pytest.approx(exponent / 2.302585092994046)
    # within the float range: the number itself
    code, out, _ = run("distance", *docs, "-e", "0.01", *opts)
    assert "~ 10^" not in out and "times more likely" in out


def test_distance_refuses_length_without_epsilon(run, docs) -> None:
    code, out, err = run("distance", *docs, "-N", "5")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--length applies only with --epsilon" in err


def test_interrupt_is_one_line_and_130(run, docs, monkeypatch: pytest.MonkeyPatch) -> None:
    from authormask.cli import distance

    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(distance, "load_embeddings_from_options", interrupted)
    code, out, err = run("distance", *docs)
    assert code == 130 and out == "" and err == "authormask: interrupted\n"


def test_console_script_entry_point() -> None:
    exe = Path(sys.executable).with_name("authormask")
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "authormask" in proc.stdout
    proc = subprocess.run([str(exe), "nope"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("authormask: error: No such command")


def test_a_library_warning_reads_as_the_commands_own() -> None:
    """A newcomer's report: the recogniser's warning (logged by the library) was printed bare,
    unlike the command's own ``authormask: warning:`` lines."""
    import logging

    from authormask.cli.app import _Prefixed

    form = _Prefixed("%(message)s")

    def line(level: int, message: str) -> str:
        return form.format(logging.LogRecord("authormask.x", level, __file__, 1, message, (), None))

    assert line(logging.WARNING, "prepared in memory") == "authormask: warning: prepared in memory"
    assert line(logging.ERROR, "gone") == "authormask: error: gone"
    assert line(logging.INFO, "loaded") == "loaded"  # --verbose's lines stay as logged
    said = "authormask: warning: a plugin skipped"
    assert line(logging.WARNING, said) == said  # never twice
    stale = "warning: not using prepared vocabulary x (stale); rebuilding"
    assert line(logging.WARNING, stale) == "authormask: " + stale


def test_a_first_release_says_what_it_prepares_once(tmp_path: Path) -> None:
    """A newcomer's first release spent eight seconds in silence: each file whose preparation
    into the cache folder takes noticeable time is said once (not under --quiet), and a later
    release prepares nothing. (A preparation that fails at once says nothing: the malformed
    vector file's error stays one line, tests/cli/test_cli.py.)"""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    argv = [sys.executable, "-m", "authormask", "obfuscate", "-", "-m", "emp-text", "-e", "10"]
    argv += ["--vocab-size", "20000", "--cache-dir", str(cache), "--no-history"]

    def run(*extra: str) -> list[str]:
        done = subprocess.run(
            [*argv, *extra],
            input="John Smith met Mary in London.\n",
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return [line for line in done.stderr.splitlines() if "preparing" in line]

    assert run("-q") == []  # quiet: only errors and warnings (the files are prepared all the same)
    for name in list(cache.iterdir()):
        name.unlink()
    first = run()
    # the recogniser (seconds) is said; the vocabulary where it takes more than NOTE_AFTER
    assert 1 <= len(first) <= 2, first
    assert all(line.startswith("authormask: preparing ") for line in first)
    assert all(str(cache) in line and "once" in line for line in first)
    assert any("entity recogniser" in line for line in first)
    assert run() == []  # read, not prepared


def test_a_preparation_is_said_only_when_it_takes_time(caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import time

    from authormask import _preparing

    with caplog.at_level(logging.INFO, logger=_preparing.LOGGER_NAME):
        with _preparing.preparing("a quick thing", "/cache"):
            pass
        time.sleep(_preparing.NOTE_AFTER + 0.3)  # a timer left running would have said it
        assert caplog.records == []
        with _preparing.preparing("a slow thing", "/cache"):
            time.sleep(_preparing.NOTE_AFTER + 0.5)
    (record,) = caplog.records
    assert record.getMessage().startswith("preparing a slow thing once, into /cache")


def test_a_command_imports_no_other_commands_module() -> None:
    """``authormask obfuscate`` imports obfuscate's module, not evaluate's or audit's (issue 50:
    evaluate's options cost every release 0.03 s); ``--help`` lists every command."""
    probe = (
        "import sys\nfrom authormask.cli.main import main\nsys.argv = ['authormask', "
        "'obfuscate', '--help']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('authormask.cli.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = out.stdout.splitlines()[-1]
    assert "authormask.cli.obfuscate" in loaded
    for other in ("evaluate", "audit", "train", "serve", "calibrate", "distance"):
        assert f"authormask.cli.{other}'" not in loaded, other


def test_a_default_release_imports_no_distribution_metadata(
    cache_dir: Path, tmp_path: Path
) -> None:
    """A release with the defaults (emp-write, names replaced) reads the versions and plugins
    it needs without importing ``importlib.metadata`` (0.03 s of its start, issue 50)."""
    source = tmp_path / "in.txt"
    source.write_text("Maria walked to the harbour in Lisbon with her brother.\n")
    probe = (
        "import sys\nfrom authormask.cli.main import main\n"
        f"sys.argv = ['authormask', 'obfuscate', {str(source)!r}, '-o', "
        f"{str(tmp_path / 'out.txt')!r}, '-q', '--force', '--cache-dir', {str(cache_dir)!r}]\n"
        "code = 0\ntry:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "print(code, 'importlib.metadata' in sys.modules)"
    )
    env = {**os.environ, "AUTHORMASK_STATE_DIR": str(tmp_path / "state")}
    for _ in range(2):  # the first prepares what the cache lacks (which may read them)
        out = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            timeout=600,
            env=env,
        )
        assert out.stdout.split()[-2] == "0", out.stderr
    assert out.stdout.split()[-1] == "False", out.stderr
    assert (tmp_path / "out.txt").read_text().strip()


def test_a_mistyped_command_is_told_the_nearest(run) -> None:
    """The commands are imported when named; a name that is none still gets click's "Did you
    mean" (helper-27: it had no commands to suggest from)."""
    code, _, err = run("obfuscat")
    assert code == 2 and "Did you mean 'obfuscate'" in err
