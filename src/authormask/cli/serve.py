"""``authormask serve``: a local page where a person pastes a text, picks a privacy level and
gets the rewritten text with its guarantee (see :mod:`authormask.serve`)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import click

from authormask.cli.options import cache_option, embeddings_option, vocab_option

__all__ = ["register"]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
#: addresses that listen on every interface
WILDCARDS = ("0.0.0.0", "::")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def ready_line(host: str, port: int) -> str:
    """The line printed once the server accepts requests, with a URL to open: on a wildcard
    address (0.0.0.0, ::), this computer's loopback address, and where it listens."""
    if host in WILDCARDS:
        url = f"http://127.0.0.1:{port}/"
        where = f" (listening on all interfaces: {host} port {port})"
    else:
        url = f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
        where = ""
    return f"authormask serve: ready: open {url}{where} (Ctrl-C to stop)"


def _with_port(host: str, port: int) -> str:
    """``host`` as a Host header names it: with ``:port`` unless it has one."""
    tail = host.rsplit("]", 1)[-1] if host.startswith("[") else host
    if ":" in tail and tail.rsplit(":", 1)[1].isdigit() and tail.count(":") == 1:
        return host
    return f"{host}:{port}"


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on. The default answers this computer only; another "
    "address makes the page (and every text sent to it) reachable from the network.",
)
@click.option(
    "--port",
    type=click.IntRange(min=0, max=65535),
    default=8765,
    show_default=True,
    help="The port (0: any free port; the URL printed says which).",
)
@click.option(
    "--model",
    "models",
    type=click.Path(path_type=Path),
    multiple=True,
    help="An ER-AE (or AE-DP) model directory of `authormask train erae`, to offer the "
    "erae (ae-dp) mechanism; loaded once at start. Repeatable (one of each kind).",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="Another name the page may be reached by (its Host header); requests naming any "
    "other host are refused (DNS rebinding).",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="The longest text released (characters); a larger request is refused.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1, max=64),
    default=None,
    help="Releases run at once (default: the CPU cores, at most 4); 32 more may wait, and a "
    "request beyond those is refused (503).",
)
@embeddings_option
@vocab_option
@cache_option
def serve(
    host: str,
    port: int,
    models: tuple[Path, ...],
    allow_hosts: tuple[str, ...],
    max_chars: int,
    workers: int | None,
    embeddings: str,
    vocab_size: int,
    cache_dir: Path | None,
) -> None:
    """Serve a local page (and JSON API) that releases pasted texts with their public
    statement. Texts are never logged or written to disk."""
    import socket

    from authormask.serve.app import ServeSettings, create_app, load
    from authormask.serve.server import serve as run_server

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if host == "::" and hasattr(socket, "IPV6_V6ONLY"):  # all interfaces: IPv4 too
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise click.UsageError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    extra = [_with_port(h, port) for h in allow_hosts]
    if _is_loopback(host) or host in WILDCARDS:  # the URL printed names this computer
        extra += [f"{name}:{port}" for name in LOOPBACK_NAMES]
    settings = ServeSettings(
        host=host,
        port=port,
        embeddings=embeddings,
        vocab_size=vocab_size,
        cache_dir=str(cache_dir) if cache_dir else None,
        models=models,
        max_chars=max_chars,
        extra_hosts=tuple(extra),
    )
    if workers is not None:
        settings.workers = workers
    click.echo("loading the embeddings and models ...", err=True)
    try:
        loaded = load(settings)
        _warm(loaded)
        app = create_app(settings, loaded)
    except BaseException:
        sock.close()
        raise
    if not _is_loopback(host):
        names = (
            " (from another computer, by a name given with --allow-host)"
            if host in WILDCARDS and not allow_hosts
            else ""
        )
        click.echo(
            f"authormask: warning: listening on {host}: anyone who can reach this address "
            f"can send texts to this server{names}",
            err=True,
        )
    run_server(app, sock, settings, on_ready=lambda: click.echo(ready_line(host, port)))


def _warm(loaded: Any) -> None:
    """Build what the page asks for first (its default mechanism at the recommended epsilon,
    and that setting's change estimate), so that "ready" means ready: the first request does
    not wait for the mechanism's own models (emp-write's writer and decoder: ~20 s). A default
    that cannot be built here is left to the request, which reports why."""
    import logging

    from authormask.core import lineup
    from authormask.defaults import RECOMMENDED_EPSILON
    from authormask.serve.state import _available, expected_change

    for name in lineup("serve"):
        if name not in _available(loaded):
            continue
        try:
            expected_change(loaded, name, RECOMMENDED_EPSILON)
        except Exception as exc:  # the page's request will say it in its own words
            logging.getLogger(__name__).warning("could not prepare %s: %s", name, exc)


def register(cli: click.Group) -> None:
    cli.add_command(serve)
