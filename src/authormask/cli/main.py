"""The ``authormask`` entry point: runs :data:`authormask.cli.app.cli` and turns every error
into one line on stderr with a non-zero exit status, never a traceback.

Exit status: 0 success; 1 a library error (bad input, bad parameter, failed audit); 2 a usage
error (unknown option, value of the wrong type, option that does not apply); 130 interrupted.
"""

from __future__ import annotations

import atexit
import os
import re
import sys
import threading
from typing import NoReturn

import click

from authormask._process import allow_second_process
from authormask.cli.app import cli
from authormask.cli.progress import INTERRUPT_HINT_KEY
from authormask.exceptions import AuthormaskError

__all__ = ["as_flags", "cli", "main", "run"]

_NAMED = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def _error(message: str) -> None:
    click.echo(f"authormask: error: {' '.join(message.split())}", err=True)


def _command_of(args: list[str]) -> click.Command:
    """The (sub)command ``args`` run: the group's command named by the first word that is one,
    down the groups (``train erae``); the group itself when none is named."""
    command: click.Command = cli
    for word in args:
        if not isinstance(command, click.Group):
            break
        sub = command.get_command(click.Context(command), word)
        if sub is not None:
            command = sub
    return command


def as_flags(message: str, command: click.Command) -> str:
    """A library message with each parameter it names between backquotes (`` `force` ``)
    written as the command's option for it (``--force``): the option whose destination is that
    name, else the name with dashes (``vocab_size`` -> ``--vocab-size``).

    >>> as_flags("use `force` to overwrite", _command_of(["obfuscate"]))
    'use --force to overwrite'
    """
    flags = {
        p.name: max(p.opts, key=len)
        for p in command.params
        if isinstance(p, click.Option) and p.name is not None
    }

    def flag(match: re.Match[str]) -> str:
        name = match.group(1)
        return flags.get(name, "--" + name.replace("_", "-"))

    return _NAMED.sub(flag, message)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


#: the environment variables of the nearest-word search, read here at the edge and handed to
#: the library (which never reads the environment for them)
THREADS_ENV = "AUTHORMASK_THREADS"
BACKEND_ENV = "AUTHORMASK_NEAREST_BACKEND"


def _search_from_environment() -> None:
    """``AUTHORMASK_THREADS`` (search threads, default every CPU) and
    ``AUTHORMASK_NEAREST_BACKEND`` (``auto``, ``fused`` or ``blas``), when set."""
    threads = os.environ.get(THREADS_ENV, "").strip()
    backend = os.environ.get(BACKEND_ENV, "").strip().lower()
    if not threads and not backend:
        return  # nothing to hand on: the search module is not even imported
    from authormask.embeddings.neighbours import set_search_backend, set_search_threads

    if threads:
        try:
            n = int(threads)
        except ValueError:
            n = 0
        if n < 1:
            raise click.UsageError(f"{THREADS_ENV} must be an integer >= 1, got {threads!r}")
        set_search_threads(n)
    if backend:
        try:
            set_search_backend(backend)
        except AuthormaskError:
            raise click.UsageError(
                f"{BACKEND_ENV} must be auto, fused or blas, got {backend!r}"
            ) from None


def main(argv: list[str] | None = None) -> int:
    """Run ``authormask`` with ``argv`` (default: the process arguments); return the exit
    status."""
    args = sys.argv[1:] if argv is None else list(argv)
    ctx: click.Context | None = None
    try:
        _search_from_environment()
        allow_second_process()  # the command's own main: a second process may import it
        with cli.make_context("authormask", args) as ctx:
            rv = cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code
    except (KeyboardInterrupt, click.exceptions.Abort):
        hint = ctx.meta.get(INTERRUPT_HINT_KEY) if ctx is not None else None
        # on a terminal, end the line that shows ^C first
        click.echo(
            ("\n" if _isatty(sys.stderr) else "")
            + "authormask: interrupted"
            + (f"; {hint}" if hint else ""),
            err=True,
        )
        return 130
    except click.exceptions.NoArgsIsHelpError as exc:  # plain `authormask`
        click.echo(exc.ctx.get_help() if exc.ctx is not None else exc.format_message())
        return 0
    except click.ClickException as exc:
        _error(exc.format_message())
        return exc.exit_code if exc.exit_code else 2
    except AuthormaskError as exc:
        _error(as_flags(str(exc), _command_of(args)))
        return 1
    except BrokenPipeError:
        return 0
    except OSError as exc:  # output that cannot be written (a full disk, /dev/full): one line
        from authormask._io import flush_or_discard_stdout

        flush_or_discard_stdout()
        _error(f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""))
        return 1
    return rv if isinstance(rv, int) else 0


def run() -> NoReturn:
    """The ``authormask`` command (and ``python -m authormask``): :func:`main` on the process
    arguments, then the process ends with its status: at once (:func:`end`) where the command
    is the program itself, else by ``SystemExit``. It does not return."""
    status = main()
    caller = sys._getframe(1).f_globals
    main_module = sys.modules.get("__main__")
    end(status, at_once=main_module is not None and caller is vars(main_module))


def end(status: int, *, at_once: bool = True) -> NoReturn:
    """End the process with ``status``, without Python's own end where that is safe.

    Python frees every object and module one by one as it ends: 50-60 ms after a release (its
    vocabulary's 100,000-word index, the writer's tables, the recogniser's), a tenth of a
    one-sentence release. Nothing of what it does then is needed where only the main thread
    is left: what it would do that counts is done here first, in its order (the exit handlers
    :mod:`atexit` holds: logging's, ``weakref.finalize``'s, temporary folders', a second
    process's; then the standard streams flushed), and the process ends with ``os._exit``
    (the technique of "Dismissing Python Garbage Collection at Instagram", 2017). Every file
    the command writes is closed (and renamed into place) before :func:`main` returns; what a
    third-party object would do only as it is freed is not done.

    ``SystemExit`` ends the process instead (Python's own end) where the command runs inside
    another program that must go on or finish its work (``at_once`` False: :func:`run` called
    from anything but the ``__main__`` module, as ``runpy.run_module`` or ``cProfile -m`` do),
    under a tracer or profiler (coverage, a debugger), in interactive mode (``python -i``),
    while another thread that Python would wait for runs, or where a stream cannot be flushed
    (a closed pipe, a full disk: Python then reports it and ends with 120).

    Parameters
    ----------
    status
        The exit status (:func:`main`'s).
    at_once
        Whether the process may end without Python's own end.
    """
    if (
        not at_once
        or sys.flags.inspect
        or sys.gettrace() is not None
        or sys.getprofile() is not None
        or "coverage" in sys.modules
        or _waited()
    ):
        sys.exit(status)
    atexit._run_exitfuncs()
    if _waited():  # an exit handler started one: Python waits for it
        sys.exit(status)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:  # Python's own end reports it (and ends with 120)
        sys.exit(status)
    os._exit(status)


def _waited() -> bool:
    """Whether a thread that Python waits for as it ends (not a daemon) still runs."""
    main_thread = threading.main_thread()
    return any(t is not main_thread and not t.daemon for t in threading.enumerate())


if __name__ == "__main__":  # pragma: no cover
    run()
