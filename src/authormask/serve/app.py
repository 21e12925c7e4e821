"""``authormask serve``: a local page and JSON API over the release layer.

The page (``GET /``) and the API call the same :func:`authormask.release.release` as the CLI and
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
  with ``textContent``, so an output that contains HTML shows as text.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from authormask.exceptions import AuthormaskError, InputError

__all__ = ["DEFAULT_MAX_CHARS", "ServeSettings", "create_app"]

logger = logging.getLogger(__name__)

#: the largest text the server releases, by default (characters)
DEFAULT_MAX_CHARS = 1_000_000
#: parameters that count things (every other number is a real number)
WHOLE_NUMBERS = frozenset({"length", "output_size", "max_length", "batch_size"})
#: parameters the server fixes (never taken from a request): what it loaded, and file paths
SERVER_PARAMETERS = frozenset({"embeddings", "vocab_size", "cache_dir", "model"})
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)
#: methods that only read (every other method must come from the page, with a JSON body)
SAFE_METHODS = frozenset({"GET", "HEAD"})
_STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}


@dataclass
class ServeSettings:
    """What ``authormask serve`` loads and how it listens."""

    host: str = "127.0.0.1"
    port: int = 8765
    embeddings: str = "glove-6b-50d"
    vocab_size: int | None = 100_000
    cache_dir: str | None = None
    models: tuple[Path, ...] = ()
    max_chars: int = DEFAULT_MAX_CHARS
    #: Host header values accepted besides host:port (set by the CLI for localhost aliases)
    extra_hosts: tuple[str, ...] = ()


@dataclass
class _Loaded:
    embeddings: Any
    models: dict[str, Any]
    mechanisms: OrderedDict[str, Any] = field(default_factory=OrderedDict)
    calibration: dict[tuple[str, float], float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: torch models are run one release at a time (they set torch's global thread count)
    model_lock: threading.Lock = field(default_factory=threading.Lock)


class _Refused(Exception):
    """A request the server refuses: its status and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def load(settings: ServeSettings) -> _Loaded:
    """Load the embeddings and models once (at start)."""
    from authormask.embeddings import load_embeddings
    from authormask.models.erae import load_model

    emb = load_embeddings(
        settings.embeddings,
        vocab_size=settings.vocab_size,
        cache_dir=settings.cache_dir if settings.cache_dir else "default",
    )
    models: dict[str, Any] = {}  # by kind (MechanismSpec.model_kind): "reward" or "plain"
    for path in settings.models:
        model = load_model(path)
        kind = "reward" if model.config.uses_reward else "plain"
        if kind in models:
            what = "with" if kind == "reward" else "without"
            raise InputError(
                f"two models trained {what} the embedding reward given (`models`); give one "
                "of each kind"
            )
        models[kind] = model
    return _Loaded(emb, models)


def _available(loaded: _Loaded) -> list[str]:
    """The mechanisms the page offers: every registered one but the baselines, which give no
    guarantee (``random-sub``), and the model mechanisms without their kind of model."""
    from authormask.release import MECHANISMS

    return [
        name
        for name, spec in MECHANISMS.items()
        if not spec.baseline and (spec.model_kind is None or spec.model_kind in loaded.models)
    ]


def _mechanism(loaded: _Loaded, name: str, params: dict[str, Any]) -> Any:
    """The mechanism ``name`` with the request's ``params`` and the server's embeddings and
    models (built once per parameter set, a few kept)."""
    from authormask.release import create_mechanism, mechanism_spec

    key = json.dumps([name, params], sort_keys=True)
    with loaded.lock:
        mech = loaded.mechanisms.get(key)
        if mech is not None:
            loaded.mechanisms.move_to_end(key)
            return mech
    spec = mechanism_spec(name)
    fixed: dict[str, Any] = {}
    if spec.model_kind is not None:
        fixed["model"] = loaded.models[spec.model_kind]
    elif "model" in spec.parameter_names and "reward" in loaded.models:
        # a model it may take (random-r: its output vocabulary): the server's ER-AE model
        fixed["model"] = loaded.models["reward"]
    else:
        fixed["embeddings"] = loaded.embeddings
    mech = create_mechanism(name, **fixed, **params)
    with loaded.lock:
        loaded.mechanisms[key] = mech
        while len(loaded.mechanisms) > 16:
            loaded.mechanisms.popitem(last=False)
    return mech


def _parameters(loaded: _Loaded, body: Any) -> tuple[str, str, dict[str, Any]]:
    """``(text, mechanism, parameters)`` of a release request, checked."""
    from authormask.release import MECHANISMS, lineup, mechanism_spec

    if not isinstance(body, dict):
        raise _Refused(400, "the request must be a JSON object")
    text = body.get("text")
    if not isinstance(text, str):
        raise _Refused(400, "'text' must be a string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # an escaped lone surrogate ("\ud800") is JSON, not Unicode
        raise _Refused(400, "'text' is not valid Unicode (a lone surrogate escape)") from None
    name = body.get("mechanism", lineup("serve")[0])
    if not isinstance(name, str):
        raise _Refused(400, "'mechanism' must be a string")
    available = _available(loaded)
    if name not in available:
        needs_model = name in MECHANISMS and MECHANISMS[name].model_kind is not None
        hint = " (start the server with --model MODEL_DIR to use it)" if needs_model else ""
        raise _Refused(400, f"unknown mechanism {name!r}{hint}; available: {', '.join(available)}")
    spec = mechanism_spec(name)
    allowed = {p.name: p for p in spec.parameters if p.name not in SERVER_PARAMETERS}
    params: dict[str, Any] = {}
    for key, value in body.items():
        if key in ("text", "mechanism"):
            continue
        if key not in allowed:
            takes = ", ".join(allowed) or "no parameters"
            raise _Refused(400, f"{name} does not take {key!r}; it takes: {takes}")
        if value is None:
            continue
        params[key] = _value(name, allowed[key], value)
    return text, name, params


def _value(mechanism: str, param: Any, value: Any) -> Any:
    """A request value, typed and checked against the parameter's spec."""
    name = param.name
    if name == "stopwords":
        if value not in ("english", "none"):
            raise _Refused(400, "stopwords must be 'english' or 'none'")
        return value
    if name == "length" and value == "shortest":
        raise _Refused(
            400,
            "length 'shortest' would take N from the text itself, which the output would "
            "then reveal: give N",
        )
    if param.choices is not None or name == "oov_map_to":
        if not isinstance(value, str):
            raise _Refused(400, f"{name} must be a string")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Refused(400, f"{name} must be a number, got {_kind(value)}")
    if name not in WHOLE_NUMBERS:
        return float(value)
    if not math.isfinite(value) or float(value) != int(value):
        raise _Refused(400, f"{name} must be a whole number, got {value}")
    return int(value)


def _kind(value: Any) -> str:
    """A request value, shown short in an error (never a whole list or object)."""
    if isinstance(value, str):
        return json.dumps(value[:30]) + ("..." if len(value) > 30 else "")
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return json.dumps(value)


def _origin_refusal(request: Request) -> str | None:
    """Why ``request`` did not come from this server's own page (None: it did).

    The page's origin is ``http://`` (or ``https://`` behind a proxy) and the request's own
    ``Host`` header, which the caller has already checked names this server."""
    headers = request.headers
    host = headers.get("host", "")
    own = {f"http://{host}", f"https://{host}"}
    origin = headers.get("origin")
    if origin is not None:
        if origin not in own:
            return f"requests from another site are refused (Origin {origin[:80]!r})"
    else:
        referer = headers.get("referer")
        if referer is not None:
            parts = referer.split("/", 3)
            if len(parts) < 3 or f"{parts[0]}//{parts[2]}" not in own:
                return "requests from another site are refused (Referer of another site)"
    site = headers.get("sec-fetch-site", "same-origin")
    if site not in ("same-origin", "none"):
        navigation = (
            request.method in SAFE_METHODS
            and request.url.path in _STATIC
            and headers.get("sec-fetch-mode") == "navigate"
        )
        if not navigation:  # a link to the page is followed; nothing else from another site
            return f"requests from another site are refused (Sec-Fetch-Site {site[:40]!r})"
    return None


def _content_refusal(request: Request) -> str | None:
    """Why a request that may change something (every method but GET and HEAD) is not a JSON
    call of the page (None: it is)."""
    if request.method in SAFE_METHODS:
        return None
    kind, _, params = request.headers.get("content-type", "").partition(";")
    if kind.strip().lower() != "application/json":
        return f"the API takes Content-Type application/json only (got {kind.strip()[:60]!r})"
    charset = [p.split("=", 1)[1].strip().strip('"').lower() for p in params.split(";")
               if p.strip().lower().startswith("charset=")]  # fmt: skip
    if charset and charset[0] not in ("utf-8", "utf8"):
        return f"the API takes UTF-8 JSON only (got charset {charset[0][:20]!r})"
    return None


def expected_change(loaded: _Loaded, name: str, epsilon: float) -> float:
    """The expected fraction of words (word mechanisms) or tokens (token mechanisms) that
    change at ``epsilon`` (:func:`authormask.evaluation.calibration.expected_change`: exact for
    the token mechanisms on the bundled example text, measured on a probe of frequent words for
    the others, a bag on its in-place form). Cached."""
    from authormask.evaluation.calibration import expected_change as calibrated
    from authormask.release import mechanism_spec

    spec = mechanism_spec(name)
    key = (name, float(f"{epsilon:.3g}"))
    with loaded.lock:
        if key in loaded.calibration:
            return loaded.calibration[key]
    params = {"epsilon": key[1]} if "epsilon" in spec.parameter_names else {}
    mech = _mechanism(loaded, name, params)
    in_place = _mechanism(loaded, spec.per_word_form, params) if spec.per_word_form else None
    example = files("authormask").joinpath("data/example.txt").read_text(encoding="utf-8")
    with _model_lock(loaded, name):
        changed = calibrated(mech, example=example, embeddings=loaded.embeddings, in_place=in_place)
    with loaded.lock:
        loaded.calibration[key] = changed
    return changed


def _model_lock(loaded: _Loaded, name: str) -> Any:
    """The lock of the server's models for a mechanism that runs one (one pass at a time), or
    a context that holds nothing."""
    from authormask.release import mechanism_spec

    return loaded.model_lock if mechanism_spec(name).model_kind else contextlib.nullcontext()


def _release(
    loaded: _Loaded, text: str, name: str, params: dict[str, Any], work: Callable[[int], None]
) -> dict[str, Any]:
    from authormask.release import release

    mech = _mechanism(loaded, name, params)
    with _model_lock(loaded, name):
        rel = release([text], mech, random_state=None, work_progress=work)
    doc = rel.documents[0]
    result: dict[str, Any] = {
        "text": doc.text,
        "statement": rel.statement.to_dict(),
        "statement_text": rel.statement.describe(),
        "figures": dict(doc.figures),
    }
    if doc.bag is not None:
        result["bag"] = doc.bag
    return result


def _total_work(loaded: _Loaded, text: str, name: str, params: dict[str, Any]) -> int:
    """The units of work a release of ``text`` does (for the progress bar)."""
    from authormask.release.stream import units_of

    mech = _mechanism(loaded, name, params)
    try:
        return sum(max(mech.units(u), 0) for u in units_of(mech, iter([text])))
    except AuthormaskError:
        return 0


def create_app(settings: ServeSettings, loaded: _Loaded | None = None) -> FastAPI:
    """The ASGI app (FastAPI). ``loaded``: what :func:`load` loaded (loaded now if None)."""
    state = loaded if loaded is not None else load(settings)
    app = FastAPI(title="authormask", docs_url=None, redoc_url=None, openapi_url=None)
    hosts = {f"{settings.host}:{settings.port}", *settings.extra_hosts}
    if settings.host.count(":") > 1:  # IPv6: [::1]:port
        hosts.add(f"[{settings.host}]:{settings.port}")
    max_body = settings.max_chars * 4 + 65_536  # UTF-8 and JSON escapes, and the parameters

    def error(status: int, message: str) -> Response:
        return JSONResponse({"error": _shown(message)}, status_code=status)

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Any]) -> Response:
        host = request.headers.get("host", "")
        length = request.headers.get("content-length")
        if host not in hosts:
            response = error(
                400,
                f"this server answers requests for {sorted(hosts)[0]} only (Host {host[:80]!r})",
            )
        elif (refusal := _origin_refusal(request)) is not None:
            response = error(403, refusal)
        elif (refusal := _content_refusal(request)) is not None:
            response = error(415, refusal)
        elif length is not None and (not length.isdigit() or int(length) > max_body):
            response = error(
                413,
                f"the request is too large: this server releases texts of at most "
                f"{settings.max_chars:,} characters",
            )
        else:
            try:
                response = await call_next(request)
            except Exception as exc:
                _log_internal(exc)
                response = error(500, "internal error (see the server's log)")
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Frame-Options"] = "DENY"
        return response

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

    async def read_body(request: Request) -> Any:
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

    def check_size(text: str) -> None:
        if len(text) > settings.max_chars:
            raise _Refused(
                413,
                f"the text has {len(text):,} characters; this server releases at most "
                f"{settings.max_chars:,} (start it with --max-chars to allow more)",
            )

    for path, (name, media) in _STATIC.items():
        content = files("authormask.serve").joinpath("static", name).read_bytes()

        def page(content: bytes = content, media: str = media) -> Response:
            return Response(content, media_type=media)

        app.add_api_route(path, page, methods=["GET", "HEAD"], include_in_schema=False)

    @app.get("/api/mechanisms")
    def mechanisms() -> Any:
        from authormask.release import mechanism_spec

        out = []
        for name in _available(state):
            spec = mechanism_spec(name).to_dict()
            spec["parameters"] = [
                p for p in spec["parameters"] if p["name"] not in SERVER_PARAMETERS
            ]
            out.append(spec)
        return {
            "mechanisms": out,
            "embeddings": state.embeddings.identity.to_dict(),
            "max_chars": settings.max_chars,
        }

    @app.get("/api/calibrate")
    def calibrate(mechanism: str | None = None, epsilon: float | None = None) -> Any:
        from authormask.release import lineup, mechanism_spec

        mechanism = lineup("serve")[0] if mechanism is None else mechanism
        try:
            if mechanism not in _available(state):
                raise _Refused(400, f"unknown mechanism {mechanism!r}")
            if "epsilon" not in mechanism_spec(mechanism).parameter_names:
                return {"mechanism": mechanism, "epsilon": None, "changed": expected_change(
                    state, mechanism, 0.0)}  # fmt: skip
            if epsilon is None or not math.isfinite(epsilon) or epsilon <= 0:
                raise _Refused(400, "epsilon must be a number > 0")
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
            "measured": measured_at(mechanism, epsilon),
        }

    @app.post("/api/release")
    async def release_endpoint(request: Request) -> Any:
        from starlette.concurrency import run_in_threadpool

        try:
            body = await read_body(request)
            text, name, params = _parameters(state, body)
            check_size(text)
        except _Refused as exc:
            return error(exc.status, exc.message)
        if "application/x-ndjson" in request.headers.get("accept", ""):
            return StreamingResponse(
                _stream(state, text, name, params), media_type="application/x-ndjson"
            )
        try:
            return await run_in_threadpool(_release, state, text, name, params, lambda _n: None)
        except _Refused as exc:
            return error(exc.status, exc.message)
        except (AuthormaskError, ValueError) as exc:
            return error(400, _one_line(exc))

    return app


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


def _one_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _stream(loaded: _Loaded, text: str, name: str, params: dict[str, Any]) -> Iterator[bytes]:
    """A release as JSON lines: ``{"progress": done, "total": n}`` as it goes, then
    ``{"result": ...}`` or ``{"error": "..."}``."""
    events: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def work() -> None:
        try:
            total = _total_work(loaded, text, name, params)
            done = 0
            events.put({"progress": 0, "total": total})

            def step(n: int) -> None:
                nonlocal done
                done += n
                events.put({"progress": min(done, total), "total": total})

            events.put({"result": _release(loaded, text, name, params, step)})
        except (AuthormaskError, ValueError) as exc:
            events.put({"error": _shown(_one_line(exc))})
        except Exception as exc:  # never the text in a log line
            _log_internal(exc)
            events.put({"error": "internal error (see the server's log)"})
        finally:
            events.put(None)

    threading.Thread(target=work, daemon=True).start()
    last = 0.0
    while True:
        event = events.get()
        if event is None:
            return
        if "progress" in event:
            now = time.monotonic()
            if now - last < 0.1 and event["progress"] < event["total"]:
                continue
            last = now
        yield (json.dumps(event) + "\n").encode("utf-8")
