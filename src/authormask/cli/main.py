"""The ``authormask`` entry point: runs :data:`authormask.cli.app.cli` and turns every error
into one line on stderr with a non-zero exit status, never a traceback.

Exit status: 0 success; 1 a library error (bad input, bad parameter, failed audit); 2 a usage
error (unknown option, value of the wrong type, option that does not apply); 130 interrupted.
"""

from __future__ import annotations

import sys

import click

from authormask.cli.app import cli
from authormask.exceptions import AuthormaskError

__all__ = ["cli", "main"]


def _error(message: str) -> None:
    click.echo(f"authormask: error: {' '.join(message.split())}", err=True)


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def main(argv: list[str] | None = None) -> int:
    """Run ``authormask`` with ``argv`` (default: the process arguments); return the exit
    status."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        with cli.make_context("authormask", args) as ctx:
            rv = cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code
    except (KeyboardInterrupt, click.exceptions.Abort):
        # on a terminal, end the line that shows ^C first
        click.echo(("\n" if _isatty(sys.stderr) else "") + "authormask: interrupted", err=True)
        return 130
    except click.exceptions.NoArgsIsHelpError as exc:  # plain `authormask`
        click.echo(exc.ctx.get_help() if exc.ctx is not None else exc.format_message())
        return 0
    except click.ClickException as exc:
        _error(exc.format_message())
        return exc.exit_code if exc.exit_code else 2
    except AuthormaskError as exc:
        _error(str(exc))
        return 1
    except BrokenPipeError:
        return 0
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
