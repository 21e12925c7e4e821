"""How ``authormask serve`` listens: uvicorn with bounded time and bounded connections.

uvicorn on its own waits for a request head without end and takes every connection it is
offered, so a few hundred slow sockets hold every file descriptor, real requests wait behind
them, and asyncio logs a traceback for each ``accept()`` that finds no descriptor. Here:

* a client has ``request_timeout`` seconds to send a whole request (head and body); a slower one
  is answered ``408`` if nothing was answered yet, and its connection is closed; an idle
  kept-alive connection is closed after ``keep_alive_timeout`` seconds;
* at most ``max_connections`` connections are open, and fewer where the process's
  file-descriptor limit is lower (the descriptors the process already holds and a batch of
  accepts are kept free): past it, a new connection closes the oldest connection that is not in
  a request (waiting for its head, or idle), or, when every one is, is closed itself;
* a descriptor shortage all the same is logged in one line, at most once every 10 seconds,
  never as a traceback;
* ``on_ready`` is called once the server accepts requests (the CLI prints its URL then).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from authormask.serve.state import ServeSettings

__all__ = ["connection_limit", "make_server", "serve"]

logger = logging.getLogger(__name__)

#: connections accepted in one turn of the event loop at most; a new connection is counted a
#: turn or two after its accept, so descriptors for a few batches are kept free
ACCEPT_BATCH = 16
ACCEPT_BATCHES_KEPT = 4
#: connections the kernel queues before they are accepted
LISTEN_BACKLOG = 128
#: descriptors kept free besides those the process holds and a batch of accepts
SPARE_DESCRIPTORS = 16
#: seconds between two log lines about the same shortage
LOG_EVERY = 10.0
#: the errors of an accept() that found no descriptor (or no memory) free
OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
_TIMEOUT_BODY = b'{"error": "the request took too long to arrive"}\n'
TIMEOUT_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_TIMEOUT_BODY), _TIMEOUT_BODY)
)


class _Every:
    """Whether a message is due: at most once every ``seconds``."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.last = -seconds

    def due(self) -> bool:
        now = time.monotonic()
        if now - self.last >= self.seconds:
            self.last = now
            return True
        return False


def _open_descriptors() -> int | None:
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return None


def connection_limit(wanted: int) -> int:
    """``wanted``, or fewer where the file-descriptor limit leaves less room: the limit less
    the descriptors open now, a few batches of accepts and a few spare (at least 1).

    Parameters
    ----------
    wanted
        The connections asked for.

    Returns
    -------
    int
        The limit.
    """
    try:
        import resource
    except ImportError:  # not POSIX: no limit to read
        return wanted
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    held = _open_descriptors()
    if soft == resource.RLIM_INFINITY or held is None:
        return wanted
    room = soft - held - ACCEPT_BATCH * ACCEPT_BATCHES_KEPT - SPARE_DESCRIPTORS
    return max(1, min(wanted, room))


def _protocol(settings: ServeSettings, limit: int) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with a request deadline and a connection cap."""
    crowded = _Every(LOG_EVERY)

    class Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.opened = time.monotonic()
            self.deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            open_now = sum(not c.transport.is_closing() for c in self.connections)
            if open_now > limit and not self._make_room():
                if crowded.due():
                    logger.warning(
                        "%d connections open (the limit): a new one is refused while every one "
                        "is in a request",
                        open_now - 1,
                    )
                self.transport.close()
                return
            self._arm()

        def _make_room(self) -> bool:
            """Close the oldest connection not in a request; False if there is none."""
            idle = [
                c
                for c in self.connections
                if c is not self
                and isinstance(c, Protocol)
                and not c.transport.is_closing()  # closed already, not yet gone
                and c.between_requests()
            ]
            if not idle:
                return False
            oldest = min(idle, key=lambda c: c.opened)
            oldest.expire(answer=False)
            return True

        def between_requests(self) -> bool:
            """Waiting for (the rest of) a request head, or idle after a response."""
            return self.conn.their_state is h11.IDLE and (
                self.cycle is None or self.cycle.response_complete
            )

        def _arm(self) -> None:
            self._disarm()
            self.deadline = self.loop.call_later(settings.request_timeout, self.expire)

        def _disarm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
                self.deadline = None

        def expire(self, answer: bool = True) -> None:
            """The request did not arrive in time (or room is needed): close the connection,
            answering 408 first where nothing of a response was sent."""
            self._disarm()
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if answer and (cycle is None or cycle.response_complete or not cycle.response_started):
                self.transport.write(TIMEOUT_RESPONSE)
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                self._disarm()
            elif self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
                self._disarm()  # the whole request is in: the answer may take its time
            elif self.deadline is None:
                self._arm()  # the next request on a kept-alive connection has begun

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return Protocol


def _loop_errors(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The event loop's error handler: a descriptor shortage in one line (at most once every
    :data:`LOG_EVERY` seconds), anything else as asyncio logs it."""
    exc = context.get("exception")
    if isinstance(exc, OSError) and exc.errno in OUT_OF_RESOURCES:
        if _shortage.due():
            logger.error(
                "cannot accept connections: %s (new connections wait until some close)",
                exc.strerror or type(exc).__name__,
            )
        return
    loop.default_exception_handler(context)


_shortage = _Every(LOG_EVERY)


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_ready = on_ready

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # the releases under way stop at their next unit of work, so that the requests
        # uvicorn waits for end at once
        pool = getattr(getattr(self.config.app, "state", None), "pool", None)
        if pool is not None:
            pool.cancel_all()
        await super().shutdown(sockets=sockets)

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        asyncio.get_running_loop().set_exception_handler(_loop_errors)
        await super().serve(sockets=sockets)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        # asyncio listens with its accept batch as the backlog: the kernel may queue more
        for sock in sockets or ():
            with contextlib.suppress(OSError):
                sock.listen(LISTEN_BACKLOG)
        if self.started and not self.should_exit:
            self.on_ready()


def make_server(
    app: Any, settings: ServeSettings, *, on_ready: Callable[[], None] = lambda: None
) -> uvicorn.Server:
    """The uvicorn server of ``app``, with the limits of ``settings``; it calls ``on_ready``
    once it accepts requests.

    Parameters
    ----------
    app
        The ASGI app.
    settings
        The server's limits.
    on_ready
        Called once the server accepts requests.

    Returns
    -------
    uvicorn.Server
        The server.
    """
    limit = connection_limit(settings.max_connections)
    config = uvicorn.Config(
        app,
        http=_protocol(settings, limit),
        log_level="warning",
        access_log=False,
        server_header=False,
        lifespan="off",
        timeout_keep_alive=max(1, round(settings.keep_alive_timeout)),
        backlog=ACCEPT_BATCH,
        h11_max_incomplete_event_size=16 * 1024,  # a request head of 16 KiB at most
    )
    return _Server(config, on_ready)


def serve(
    app: Any,
    sock: socket.socket,
    settings: ServeSettings,
    *,
    on_ready: Callable[[], None] = lambda: None,
) -> None:
    """Serve ``app`` on the bound socket ``sock`` until interrupted (Ctrl-C, SIGTERM); call
    ``on_ready`` once it accepts requests.

    Parameters
    ----------
    app
        The ASGI app.
    sock
        The bound socket.
    settings
        The server's limits.
    on_ready
        Called once the server accepts requests.
    """
    server = make_server(app, settings, on_ready=on_ready)
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    server.run(sockets=[sock])
