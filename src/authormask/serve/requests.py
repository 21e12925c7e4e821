"""The requests ``authormask serve`` answers: a release request's parameters, checked against the
registry's specs, and the refusal of anything that is not a JSON call of its own page."""

from __future__ import annotations

import json
import math
from typing import Any

from fastapi import Request

from authormask.core.specs import Parameter
from authormask.serve.state import _available, _Loaded

__all__ = ["SAFE_METHODS", "STATIC", "server_fixed"]
#: methods that only read (every other method must come from the page, with a JSON body)
SAFE_METHODS = frozenset({"GET", "HEAD"})
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
}


def server_fixed(p: Parameter) -> bool:
    """Whether the server fixes parameter ``p`` (never taken from a request): a resource it
    loaded (:attr:`~authormask.core.specs.Parameter.resource`: the embeddings, the vocabulary,
    the cache, a model), or a file path.

    Parameters
    ----------
    p
        A mechanism's parameter.

    Returns
    -------
    bool
        Whether a request may not set it.
    """
    return p.resource is not None or p.kind == "path"


class _Refused(Exception):
    """A request the server refuses: its status and one line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _parameters(loaded: _Loaded, body: Any) -> tuple[str, str, dict[str, Any]]:
    """``(text, mechanism, parameters)`` of a release request, checked."""
    from authormask.core import MECHANISMS, lineup, mechanism_spec

    if not isinstance(body, dict):
        raise _Refused(400, "the request must be a JSON object")
    text = body.get("text")
    if not isinstance(text, str):
        raise _Refused(400, "'text' must be a string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # an escaped lone surrogate ("\ud800") is JSON, not Unicode
        raise _Refused(400, "'text' is not valid Unicode (a lone surrogate escape)") from None
    if "\x00" in text:  # the command line refuses a file with NUL bytes: so does the page
        raise _Refused(
            400,
            "'text' contains a NUL character: binary data, or UTF-16/UTF-32 text read as bytes "
            "(send UTF-8 text)",
        )
    name = body.get("mechanism", lineup("serve")[0])
    if not isinstance(name, str):
        raise _Refused(400, "'mechanism' must be a string")
    available = _available(loaded)
    if name not in available:
        needs_model = name in MECHANISMS and MECHANISMS[name].model_kind is not None
        hint = " (start the server with --model MODEL_DIR to use it)" if needs_model else ""
        raise _Refused(400, f"unknown mechanism {name!r}{hint}; available: {', '.join(available)}")
    spec = mechanism_spec(name)
    allowed = {p.name: p for p in spec.parameters if not server_fixed(p)}
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
    """A request value, typed by the kind its spec declares (:attr:`~authormask.core.specs.
    Parameter.kind`: a string, a real number or a whole number); its range and choices are the
    registry's to check, as for every front end."""
    from authormask.core.specs import COUNT_WORDS

    name = param.name
    if name == "stopwords":  # the server reads no file a request names
        if value not in ("english", "none"):
            raise _Refused(400, "stopwords must be 'english' or 'none'")
        return value
    if param.kind == "count" and value in COUNT_WORDS:
        raise _Refused(
            400,
            f"{name} {value!r} would take N from the text itself, which the output would "
            "then reveal: give N",
        )
    if param.kind in ("text", "path"):
        if not isinstance(value, str):
            raise _Refused(400, f"{name} must be a string")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Refused(400, f"{name} must be a number, got {_kind(value)}")
    if param.kind == "number":
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
            and request.url.path in STATIC
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
