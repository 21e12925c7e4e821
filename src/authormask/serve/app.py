"""``authormask serve``: a local page and JSON API over the release layer.

The page (``GET /``) and the API call the same :func:`authormask.core.release` as the CLI and
return the same public statement. What the server holds is loaded once, at start: the
embeddings, and the ER-AE / AE-DP models given with ``--model``.

Safe by default:

* it listens on 127.0.0.1 unless told otherwise, and answers only requests whose ``Host`` header
  names the address it serves (a page on another site cannot reach it through DNS rebinding);
* it answers only its own page: a request whose ``Origin`` (or, without one, ``Referer``) is not
  the server itself, ``null`` included, or that the browser marks ``Sec-Fetch-Site: cross-site``
  or ``same-site`` is refused (403), except a plain navigation to the page; an API call that
  sends a body must say ``Content-Type: application/json`` (415 otherwise), which a form or a
  ``no-cors`` fetch of another site cannot send without asking first;
* every malformed request (not JSON, not UTF-8, nested too deep, the wrong types, too large)
  gets a one-line 4xx JSON error ``{"error": "..."}``, and nothing is logged for it;
* a request body is capped (``max_chars`` characters of text; a larger body is refused with a
  one-line error before it is read);
* the texts are never logged or written anywhere: a release is unseeded and held in memory only,
  the private run report is dropped, and there is no access log;
* every response carries a strict Content-Security-Policy (scripts and styles from this server
  only, no inline script, no other origin), ``X-Content-Type-Options: nosniff``,
  ``Referrer-Policy: no-referrer`` and ``Cache-Control: no-store``; the page writes every text
  with ``textContent``, so an output that contains HTML shows as text;
* releases run on a small fixed pool of threads (``workers``), with ``waiting`` more queued and
  a 503 for a request past both, and a release whose client hangs up stops at its next unit of
  work (:mod:`authormask.serve.work`); slow requests and surplus connections are dropped where
  it listens (:mod:`authormask.serve.server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from authormask.exceptions import AuthormaskError, InvalidParameterError
from authormask.serve.requests import (
    STATIC,
    _content_refusal,
    _origin_refusal,
    _parameters,
    _Refused,
    server_fixed,
)
from authormask.serve.state import (
    DEFAULT_MAX_CHARS,
    ServeSettings,
    _available,
    _Loaded,
    _release,
    _total_work,
    expected_change,
    load,
)
from authormask.serve.work import Busy, Cancelled, ReleasePool, checked

if TYPE_CHECKING:
    from authormask.core.specs import MechanismSpec

__all__ = ["DEFAULT_MAX_CHARS", "ServeSettings", "create_app", "load"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)


def create_app(settings: ServeSettings, loaded: _Loaded | None = None) -> FastAPI:
    """The ASGI app (FastAPI). ``loaded``: what :func:`load` loaded (loaded now if None).

    Parameters
    ----------
    settings
        What the app serves and its limits.
    loaded
        What :func:`load` loaded, or ``None`` to load it now.

    Returns
    -------
    FastAPI
        The app.
    """
    state = loaded if loaded is not None else load(settings)
    _remember_nothing()
    app = FastAPI(title="authormask", docs_url=None, redoc_url=None, openapi_url=None)
    serving = _serving(settings, state)
    app.state.pool = serving.pool  # the releases running and waiting (read by tests and the server)
    # a plain ASGI middleware (not @app.middleware): the endpoints see the server's own
    # receive, so that a release sees its client hang up (Request.is_disconnected)
    app.add_middleware(_Guard, refusal=serving.refusal, error=_error)
    _add_error_handlers(app)
    _add_pages(app)
    _add_mechanism_routes(app, serving)
    _add_release_route(app, serving)
    return app


def _remember_nothing() -> None:
    """One user's text must not make another's release faster (a timing side channel) nor
    move its sentence points: the page remembers no text and no sentence."""
    from authormask.mechanisms.events import remember_events
    from authormask.models.sentence_bank import remember_sentences
    from authormask.text.entities import remember_texts

    remember_texts(0)
    remember_sentences(0)
    remember_events(0)


def _error(status: int, message: str) -> Response:
    """The one-line JSON answer ``{"error": message}`` with ``status``."""
    # a body too large is refused before it is read: the rest of it is still coming on the
    # connection, so the connection closes with the answer (it answered 413, then 408)
    headers = {"Connection": "close"} if status == 413 else None
    return JSONResponse({"error": _shown(message)}, status_code=status, headers=headers)


@dataclass(frozen=True)
class _Serving:
    """What the routes share: the settings, what was loaded, the ``Host`` headers answered,
    the largest body read and the pool the releases run on."""

    settings: ServeSettings
    state: _Loaded
    hosts: frozenset[str]
    max_body: int
    pool: ReleasePool

    def refusal(self, request: Request) -> Response | None:
        """The answer to a request refused on its head alone (None: it goes on)."""
        hosts, max_body, settings, error = self.hosts, self.max_body, self.settings, _error
        host = request.headers.get("host", "")
        length = request.headers.get("content-length")
        if host not in hosts:
            return error(
                400,
                f"this server answers requests for {sorted(hosts)[0]} only (Host {host[:80]!r})",
            )
        if (why := _origin_refusal(request)) is not None:
            return error(403, why)
        if (why := _content_refusal(request)) is not None:
            return error(415, why)
        if length is not None and (not length.isdigit() or int(length) > max_body):
            return error(
                413,
                f"the request is too large: this server releases texts of at most "
                f"{settings.max_chars:,} characters",
            )
        return None

    async def read_body(self, request: Request) -> Any:
        """The request's body as JSON, read up to the largest body (refused past it)."""
        max_body, settings = self.max_body, self.settings
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in request.stream():
                size += len(chunk)
                if size > max_body:
                    raise _Refused(
                        413,
                        f"the request is too large: this server releases texts of at most "
                        f"{settings.max_chars:,} characters",
                    )
                chunks.append(chunk)
        except ClientDisconnect:  # the client hung up before the body ended: nobody to answer
            raise _Refused(400, "the request ended before its body") from None
        try:
            body = b"".join(chunks).decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused(400, "the request body is not UTF-8") from None
        try:
            return json.loads(body)
        except RecursionError:  # the decoder stops at Python's recursion limit, cleanly
            raise _Refused(400, "the request body nests too deeply") from None
        except ValueError:
            raise _Refused(400, "the request body is not JSON") from None

    def check_size(self, text: str) -> None:
        """Refuse a text longer than the server's ``max_chars``."""
        if len(text) > self.settings.max_chars:
            raise _Refused(
                413,
                f"the text has {len(text):,} characters; this server releases at most "
                f"{self.settings.max_chars:,} (start it with --max-chars to allow more)",
            )


def _serving(settings: ServeSettings, state: _Loaded) -> _Serving:
    """What the routes share (:class:`_Serving`): the hosts answered (the address served, with
    IPv6 brackets too, and ``extra_hosts``), the largest body, and the release pool."""
    hosts = {f"{settings.host}:{settings.port}", *settings.extra_hosts}
    if settings.host.count(":") > 1:  # IPv6: [::1]:port
        hosts.add(f"[{settings.host}]:{settings.port}")
    max_body = settings.max_chars * 4 + 65_536  # UTF-8 and JSON escapes, and the parameters
    pool = ReleasePool(workers=settings.workers, waiting=settings.waiting)
    return _Serving(settings, state, frozenset(hosts), max_body, pool)


def _add_error_handlers(app: FastAPI) -> None:
    """Answer an HTTP error and an invalid request in one line of JSON."""
    error = _error

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, exc: HTTPException) -> Response:
        message = {404: "no such page", 405: "method not allowed"}.get(exc.status_code)
        return error(exc.status_code, message or _one_line(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> Response:
        problems = [
            f"{'.'.join(str(p) for p in e.get('loc', ())[1:]) or 'request'}: {e.get('msg', '')}"
            for e in exc.errors()
        ]
        return error(400, "; ".join(problems)[:200] or "invalid request")


def _add_pages(app: FastAPI) -> None:
    """The page and its static files (``GET`` and ``HEAD``)."""
    for path, (name, media) in STATIC.items():
        content = files("authormask.serve").joinpath("static", name).read_bytes()

        def page(content: bytes = content, media: str = media) -> Response:
            return Response(content, media_type=media)

        app.add_api_route(path, page, methods=["GET", "HEAD"], include_in_schema=False)


def _add_mechanism_routes(app: FastAPI, serving: _Serving) -> None:
    """``GET /api/mechanisms`` (what the page offers) and ``GET /api/calibrate`` (the change
    expected at an epsilon)."""
    settings, state, error = serving.settings, serving.state, _error

    @app.get("/api/mechanisms")
    def mechanisms() -> Any:
        from authormask.core import lineup, mechanism_spec

        out = []
        for name in _available(state):
            registered = mechanism_spec(name)
            spec = registered.to_dict()
            spec["parameters"] = [p.to_dict() for p in registered.parameters if not server_fixed(p)]
            out.append(spec)
        return {
            "mechanisms": out,
            "default": lineup("serve")[0],
            "embeddings": state.embeddings.identity.to_dict(),
            "max_chars": settings.max_chars,
        }

    @app.get("/api/calibrate")
    def calibrate(mechanism: str | None = None, epsilon: float | None = None) -> Any:
        from authormask.core import lineup, mechanism_spec
        from authormask.evaluation.calibration import CHANGE_RATE_RULE

        mechanism = lineup("serve")[0] if mechanism is None else mechanism
        try:
            if mechanism not in _available(state):
                raise _Refused(400, f"unknown mechanism {mechanism!r}")
            spec = mechanism_spec(mechanism)
            if not spec.takes_epsilon:
                return {"mechanism": mechanism, "epsilon": None, "changed": expected_change(
                    state, mechanism, 0.0), "measure": CHANGE_RATE_RULE}  # fmt: skip
            epsilon = _spec_epsilon(spec, epsilon)
            changed = expected_change(state, mechanism, epsilon)
        except _Refused as exc:
            return error(exc.status, exc.message)
        except AuthormaskError as exc:
            return error(400, str(exc))
        from authormask.serve.measured import measured_at

        return {
            "mechanism": mechanism,
            "epsilon": epsilon,
            "changed": changed,
            "measure": CHANGE_RATE_RULE,
            "measured": measured_at(mechanism, epsilon),
        }


def _spec_epsilon(spec: MechanismSpec, epsilon: float | None) -> float:
    """``epsilon`` as the mechanism's spec reads it (its epsilon parameter's check, the one check
    of every front end's epsilon), or the page's one-line refusal."""
    parameter = spec.parameter(spec.noise_parameter or "")
    if epsilon is None or parameter is None:
        raise _Refused(400, "epsilon must be a number > 0")
    try:
        return float(parameter.check(epsilon))
    except InvalidParameterError:
        raise _Refused(400, "epsilon must be a number > 0") from None


def _add_release_route(app: FastAPI, serving: _Serving) -> None:
    """``POST /api/release``: a release on the pool, answered whole or streamed as JSON lines."""
    state, pool, error = serving.state, serving.pool, _error
    read_body, check_size = serving.read_body, serving.check_size

    @app.post("/api/release")
    async def release_endpoint(request: Request) -> Any:
        try:
            body = await read_body(request)
            text, name, params = _parameters(state, body)
            check_size(text)
        except _Refused as exc:
            return error(exc.status, exc.message)
        streaming = "application/x-ndjson" in request.headers.get("accept", "")
        loop = asyncio.get_running_loop()
        events: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        def job(cancel: threading.Event) -> Any:
            if streaming:
                return _stream_job(state, text, name, params, cancel, loop, events)
            return _release(state, text, name, params, checked(cancel, lambda _n: None))

        try:
            future, cancel = pool.submit(job)
        except Busy as exc:
            response = error(503, str(exc))
            response.headers["Retry-After"] = "5"
            return response
        if streaming:
            return StreamingResponse(
                _stream(request, events, cancel), media_type="application/x-ndjson"
            )
        try:
            return await _until_done(request, future, cancel)
        except _Refused as exc:
            return error(exc.status, exc.message)
        except (AuthormaskError, ValueError) as exc:
            return error(400, _one_line(exc))
        except Cancelled:  # the client has gone: nobody reads this
            return error(400, "the client closed the connection")


def _shown(message: str) -> str:
    """An error message as sent: one line of valid Unicode, at most 300 characters."""
    line = " ".join(message.split()) or "error"
    line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    return line if len(line) <= 300 else line[:297] + "..."


def _log_internal(exc: BaseException) -> None:
    """Log a bug in one line: the exception's type and where it was raised, never its message
    (which may quote the text) and no traceback."""
    where = exc.__traceback__
    while where is not None and where.tb_next is not None:
        where = where.tb_next
    at = (
        f" at {Path(where.tb_frame.f_code.co_filename).name}:{where.tb_lineno}"
        if where is not None
        else ""
    )
    logger.error("internal error: %s%s", type(exc).__name__, at)


class _Guard:
    """Every request's gate: the refusals of its head (``refusal``), a bug answered 500 in one
    line (logged by :func:`_log_internal`), and the security headers on every response."""

    def __init__(
        self,
        app: ASGIApp,
        refusal: Callable[[Request], Response | None],
        error: Callable[[int, str], Response],
    ) -> None:
        self.app = app
        self.refusal = refusal
        self.error = error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_secured(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = CSP
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                headers["Cache-Control"] = "no-store"
                headers["X-Frame-Options"] = "DENY"
            await send(message)

        refused = self.refusal(Request(scope))
        if refused is not None:
            await refused(scope, receive, send_secured)
            return
        try:
            await self.app(scope, receive, send_secured)
        except Exception as exc:
            _log_internal(exc)
            if not started:
                response = self.error(500, "internal error (see the server's log)")
                await response(scope, receive, send_secured)


def _one_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


#: seconds between two checks that the client of a release is still there
DISCONNECT_POLL = 0.25


async def _until_done(request: Request, future: Future[T], cancel: threading.Event) -> T:
    """The result of a release job, checking between whiles that its client is still there:
    once it has gone, the job is cancelled (it stops at its next unit of work)."""
    waiting = asyncio.wrap_future(future)
    try:
        while True:
            done, _ = await asyncio.wait({waiting}, timeout=DISCONNECT_POLL)
            if done:
                return waiting.result()
            if await request.is_disconnected():
                cancel.set()
    except BaseException:
        cancel.set()  # cancelled itself (the server stops, the client has gone): stop the job
        raise


def _stream_job(
    loaded: _Loaded,
    text: str,
    name: str,
    params: dict[str, Any],
    cancel: threading.Event,
    loop: asyncio.AbstractEventLoop,
    events: asyncio.Queue[dict[str, Any] | None],
) -> None:
    """A streamed release, on a worker: its events handed to the event loop's ``events``
    (``{"progress": share, "total": 1}`` as it goes, the share done to the percent, never a
    count of the text's words; then ``{"result": ...}`` or ``{"error": "..."}``, then None)."""

    def put(event: dict[str, Any] | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody to tell
            loop.call_soon_threadsafe(events.put_nowait, event)

    try:
        total = _total_work(loaded, text, name, params)
        if cancel.is_set():
            raise Cancelled
        done = 0
        last = 0.0
        put({"progress": 0, "total": 1})

        def step(n: int) -> None:
            nonlocal done, last
            done += n
            now = time.monotonic()
            if now - last >= 0.1 or done >= total:  # at most ten a second
                last = now
                share = min(done, total) / total if total else 1.0
                put({"progress": math.floor(100 * share) / 100, "total": 1})

        put({"result": _release(loaded, text, name, params, checked(cancel, step))})
    except Cancelled:
        pass
    except (AuthormaskError, ValueError) as exc:
        put({"error": _shown(_one_line(exc))})
    except Exception as exc:  # never the text in a log line
        _log_internal(exc)
        put({"error": "internal error (see the server's log)"})
    finally:
        put(None)


async def _stream(
    request: Request, events: asyncio.Queue[dict[str, Any] | None], cancel: threading.Event
) -> AsyncIterator[bytes]:
    """The events of a streamed release as JSON lines. When the client hangs up (the response
    is cancelled, or a check finds it gone) the release is cancelled."""
    try:
        while True:
            try:
                event = await asyncio.wait_for(events.get(), timeout=DISCONNECT_POLL)
            except TimeoutError:
                if await request.is_disconnected():
                    return
                continue
            if event is None:
                return
            yield (json.dumps(event) + "\n").encode("utf-8")
    finally:
        cancel.set()
