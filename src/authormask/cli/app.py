"""The ``authormask`` command group: global options and the commands, each a thin wrapper over
one library call in its own module. Command modules import click and :mod:`authormask.cli.options`
only; their heavy dependencies are imported when they run, so ``authormask --help`` is instant.
A command's module is imported when the command is named (``authormask obfuscate`` imports no
other command's module, issue 50), or when the commands are listed (``--help``, or a name that
is no command)."""

from __future__ import annotations

import importlib
import logging
import threading

import click

from authormask._preparing import LOGGER_NAME
from authormask._version import __version__
from authormask.cli.options import quiet_option
from authormask.cli.progress import QUIET_KEY

__all__ = ["cli"]

#: each command's name and the module of ``authormask.cli`` that registers it
COMMAND_MODULES = {
    "obfuscate": "obfuscate",
    "explain": "explain",
    "distance": "distance",
    "embeddings": "embeddings",
    "calibrate": "calibrate",
    "evaluate": "evaluate",
    "train": "train",
    "audit": "audit",
    "serve": "serve",
}


class _Commands(click.Group):
    """The command group, each command added (from its module, with ``-q/--quiet``) when it is
    first named or the commands are listed (a name that is no command lists them: click's
    "Did you mean" reads the commands added)."""

    _lock = threading.Lock()

    def get_command(self, ctx: click.Context | None, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            self._add(cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in COMMAND_MODULES:
            self.load_all()
        return super().resolve_command(ctx, args)

    def list_commands(self, ctx: click.Context | None) -> list[str]:
        self.load_all()
        return sorted(self.commands)

    def load_all(self) -> None:
        """Add every command not added yet."""
        for name in COMMAND_MODULES:
            if name not in self.commands:
                self._add(name)

    def _add(self, name: str) -> None:
        with self._lock:  # one thread adds a command and its -q/--quiet
            if name in self.commands:
                return
            module = importlib.import_module(f"authormask.cli.{COMMAND_MODULES[name]}")
            module.register(self)
            _with_quiet(self.commands[name])


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="authormask")
@click.option("-v", "--verbose", is_flag=True, help="Log what the library does (to stderr).")
@quiet_option
def cli(verbose: bool) -> None:
    """Rewrite text so its author cannot be identified, with a stated differential-privacy
    guarantee (Earth Mover's privacy, Fernandes, Dras & McIver 2019)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_Prefixed("%(message)s"))
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, handlers=[handler])
    notes = logging.getLogger(LOGGER_NAME)  # "preparing ... once": printed unless --quiet
    notes.setLevel(logging.INFO)
    notes.propagate = False
    notes.handlers = [_Said(click.get_current_context())]


class _Said(logging.Handler):
    """The library's notes that it prepares a file once, printed as the command's own
    informative lines, not under ``--quiet`` (read from the command's context: a note comes
    from a timer's thread, where click has no context)."""

    def __init__(self, ctx: click.Context) -> None:
        super().__init__()
        self.ctx = ctx

    def emit(self, record: logging.LogRecord) -> None:
        if not self.ctx.meta.get(QUIET_KEY):
            click.echo(f"authormask: {record.getMessage()}", err=True)


class _Prefixed(logging.Formatter):
    """The library's warnings and errors read as the command's own (``authormask: warning:
    ...``); what ``--verbose`` adds stays as logged."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        if record.levelno < logging.WARNING or text.startswith("authormask: "):
            return text
        level = record.levelname.lower()
        return f"authormask: {level}: {text.removeprefix(f'{level}: ')}"


def _with_quiet(command: click.Command) -> None:
    """Every command takes -q/--quiet itself too (``authormask evaluate -q ...``)."""
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _with_quiet(sub)
    elif not any(p.name == "quiet" for p in command.params):
        quiet_option(command)
