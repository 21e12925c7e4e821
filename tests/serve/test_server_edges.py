"""The edges of ``authormask serve`` as a real server meets them (issue 32 D): slow and
incomplete requests are dropped in bounded time, a flood of slow sockets under a low
file-descriptor limit neither blocks real requests nor floods the log, releases run on a bounded
pool and stop when their client hangs up, and the server says when it is ready, with a URL to
open. Real sockets against real servers on free ports."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import authormask as am
from authormask.cli.serve import ready_line
from authormask.evaluation.calibration import REFERENCE_TEXT
from authormask.serve.app import ServeSettings, _Loaded, create_app
from authormask.serve.server import make_server

EXE = str(Path(sys.executable).with_name("authormask"))

#: a server in a process of its own: argv = descriptor limit (0: as it is), request timeout
SERVER = r"""
import resource, socket, sys
limit, timeout = int(sys.argv[1]), float(sys.argv[2])
if limit:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
from authormask.serve.app import ServeSettings, _Loaded, create_app
from authormask.serve.server import serve
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
port = sock.getsockname()[1]
settings = ServeSettings(port=port, request_timeout=timeout, keep_alive_timeout=1.0)
app = create_app(settings, _Loaded(None, {}))
try:
    serve(app, sock, settings, on_ready=lambda: print(port, flush=True))
except KeyboardInterrupt:
    pass
"""


@contextlib.contextmanager
def _server_process(tmp_path: Path, *, limit: int, timeout: float) -> Iterator[tuple[int, Path]]:
    """A real server in a subprocess (no embeddings: it serves its page); its port and the
    file its stderr goes to."""
    stderr = tmp_path / f"stderr-{limit}-{timeout}.txt"
    with stderr.open("w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(limit), str(timeout)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline()
        assert line.strip().isdigit(), stderr.read_text(encoding="utf-8")
        yield int(line), stderr
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        proc.stdout.close()


def _read_until_closed(sock: socket.socket, limit: float) -> tuple[bytes, float]:
    """What the server sends until it closes the connection, and after how many seconds
    (``limit`` at most: a socket timeout raises)."""
    sock.settimeout(limit)
    start = time.monotonic()
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data, time.monotonic() - start


def _get(port: int, path: str = "/", timeout: float = 5.0) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
        response.read()
        return int(response.status)


def test_slow_and_incomplete_requests_are_dropped_in_bounded_time(tmp_path: Path) -> None:
    with _server_process(tmp_path, limit=0, timeout=1.0) as (port, stderr):
        host = f"Host: 127.0.0.1:{port}\r\n".encode()
        # a request head that never ends (slowloris): 408, then closed, after about 1 second
        slow_head = socket.create_connection(("127.0.0.1", port))
        slow_head.sendall(b"GET / HTTP/1.1\r\n" + host)
        # a body that never ends
        slow_body = socket.create_connection(("127.0.0.1", port))
        slow_body.sendall(
            b"POST /api/release HTTP/1.1\r\n" + host + b"Content-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"text": "The ship'
        )
        # a connection that sends nothing at all
        silent = socket.create_connection(("127.0.0.1", port))
        for sock in (slow_head, slow_body, silent):
            with sock:
                data, took = _read_until_closed(sock, 5.0)
                assert took < 3.0
                assert data.startswith(b"HTTP/1.1 408 "), data
        # a kept-alive connection left idle is closed after the keep-alive timeout (1 s)
        with socket.create_connection(("127.0.0.1", port)) as idle:
            idle.sendall(b"GET / HTTP/1.1\r\n" + host + b"\r\n")
            data, took = _read_until_closed(idle, 5.0)
            assert data.startswith(b"HTTP/1.1 200 ") and took < 3.0
        assert _get(port) == 200  # and the server answers as before
        assert "Traceback" not in stderr.read_text(encoding="utf-8")


def test_a_flood_of_slow_sockets_neither_blocks_requests_nor_floods_the_log(
    tmp_path: Path,
) -> None:
    """The issue's probe: 300 slow sockets against a server limited to 256 file descriptors.
    The request timeout is long (30 s): real requests get in because a new connection closes
    the oldest one still waiting for its request head."""
    with _server_process(tmp_path, limit=256, timeout=30.0) as (port, stderr):
        slow: list[socket.socket] = []
        try:
            for _ in range(300):
                with contextlib.suppress(OSError):
                    sock = socket.create_connection(("127.0.0.1", port), timeout=2.0)
                    slow.append(sock)
                    sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            start = time.monotonic()
            assert [_get(port) for _ in range(3)] == [200, 200, 200]
            assert time.monotonic() - start < 10.0
        finally:
            for sock in slow:
                sock.close()
        time.sleep(0.3)
        assert _get(port) == 200
        log = stderr.read_text(encoding="utf-8")
        assert "Traceback" not in log and len(log.splitlines()) <= 3, log[:2000]


# --- releases on a bounded pool, stopped when their client hangs up ---------------------------


@pytest.fixture()
def live(glove_20k: am.Embeddings) -> Iterator[tuple[int, Any]]:
    """A real server in a thread of this process (one worker, no queue); its port and app."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    settings = ServeSettings(port=port, workers=1, waiting=0, max_chars=2_000_000)
    app = create_app(settings, _Loaded(glove_20k, {}))
    ready = threading.Event()
    server = make_server(app, settings, on_ready=ready.set)
    sock.listen(16)
    sock.setblocking(False)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    assert ready.wait(10)
    yield port, app
    server.should_exit = True
    thread.join(10)
    sock.close()


#: a release of about 10 seconds (TEM, GloVe K=20,000; the entity step left out: it is stopped
#: between the parts it reads, below), with progress every 0.1 second
LONG = {"text": REFERENCE_TEXT * 60, "mechanism": "tem", "epsilon": 10, "entities": "keep"}


def _post_raw(port: int, body: dict[str, Any], *, stream: bool) -> socket.socket:
    content = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    accept = b"Accept: application/x-ndjson\r\n" if stream else b""
    sock.sendall(
        b"POST /api/release HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
        + b"Content-Type: application/json\r\n"
        + accept
        + b"Content-Length: %d\r\n\r\n" % len(content)
        + content
    )
    return sock


def _post(port: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/release",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _wait_for(condition: Callable[[], bool], limit: float) -> float:
    """Seconds until ``condition()`` holds (fails past ``limit``)."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < limit, "not within the time allowed"
        time.sleep(0.02)
    return time.monotonic() - start


def test_an_oversized_chunked_upload_gets_one_413_and_the_connection_closes(
    live: tuple[int, Any],
) -> None:
    """issue 49, item 15: an oversized chunked upload got a 413 and then a 408 on the same
    connection (the rest of the body was still coming)."""
    port, _ = live
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(30)
    sock.sendall(
        b"POST /api/release HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
        + b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b'{"text": "' + b"a" * (1 << 20)
    received = b""
    with contextlib.suppress(OSError):  # the server may close while the body is still sent
        for _ in range(12):  # 12 MiB: over the 8 MB this server reads
            sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
    with contextlib.suppress(OSError):
        while True:
            data = sock.recv(65536)
            if not data:
                break  # closed by the server
            received += data
    sock.close()
    assert received.startswith(b"HTTP/1.1 413 "), received[:200]
    assert received.count(b"HTTP/1.1 ") == 1, received[:400]  # no 408 after it
    assert b"connection: close" in received.lower()


@pytest.mark.parametrize("stream", [True, False])
def test_an_abandoned_release_stops_and_frees_its_worker(
    live: tuple[int, Any], stream: bool
) -> None:
    port, app = live
    pool = app.state.pool
    sock = _post_raw(port, LONG, stream=stream)
    start = time.monotonic()
    with sock:
        _wait_for(lambda: pool.active == 1, 10)
        if stream:  # the release reports its progress as it goes
            sock.settimeout(10)
            received = b""
            while b'"progress": ' not in received.split(b"\r\n\r\n", 1)[-1]:
                received += sock.recv(65536)
            assert received.startswith(b"HTTP/1.1 200 ")
        time.sleep(0.5)
        # the one worker is busy and nothing may wait: another release is refused at once
        small = {"text": "The ship sailed.", "mechanism": "emp-text", "epsilon": 5}
        code, answer = _post(port, small)
        assert code == 503 and "busy" in answer["error"]
        assert pool.active == 1
    # the client has hung up
    # the release stops at its next unit of work: long before its end (about 10 s)
    assert _wait_for(lambda: pool.active == 0 and pool.admitted == 0, 3.0) < 3.0
    assert time.monotonic() - start < 8.0
    code, answer = _post(port, small)
    assert code == 200 and answer["statement"]["mechanism"] == "emp-text"


@pytest.mark.parametrize("stream", [True, False])
def test_an_abandoned_release_stops_while_its_entities_are_recognised(
    live: tuple[int, Any], aaac_texts: list[str], stream: bool
) -> None:
    """The issue: the entity step (spaCy over the whole text) ran to its end after the client
    had gone, about 3 s per 64 KiB part (twice for a stream, which counts its work first). It
    now stops before its next part: within a few parts' time, not the text's."""
    from authormask.text import entities
    from authormask.text.entities import load_recogniser
    from authormask.text.parts import split_parts

    text = "\n\n".join(aaac_texts)  # real essays, with their names, places and dates
    while len(text) < 12 * 65_536:
        text += "\n\n" + text
    parts = list(split_parts(text[: 12 * 65_536]))
    assert len(parts) >= 12
    recogniser = load_recogniser()
    entities._SEEN.clear()  # texts read before (the other parametrisation) are remembered
    start = time.monotonic()
    assert recogniser.find(parts[0])  # a name or a date in every part
    one_part = time.monotonic() - start  # the pipeline was loaded by the first call
    start = time.monotonic()
    recogniser.find(parts[1])
    one_part = min(one_part, time.monotonic() - start)
    whole = one_part * len(parts)  # what recognising the text takes, at the least
    entities._SEEN.clear()  # the release reads every part afresh
    port, app = live
    pool = app.state.pool
    body = {"text": "".join(parts), "mechanism": "emp-text", "epsilon": 10}
    with _post_raw(port, body, stream=stream):
        _wait_for(lambda: pool.active == 1, 10)
        time.sleep(one_part)  # well inside the recognition of the first parts
    hung_up = time.monotonic()
    # the client has hung up: the recogniser stops before its next part
    _wait_for(lambda: pool.active == 0 and pool.admitted == 0, whole)
    stopped = time.monotonic() - hung_up
    assert stopped < 2 * one_part + 1.0, (stopped, one_part, whole)
    assert stopped < whole / 3, (stopped, one_part, whole)


def test_the_recogniser_finds_the_same_entities_however_it_batches(aaac_texts: list[str]) -> None:
    """A batch of the recogniser now closes at 64 KiB of characters as well as at 16 texts (so
    that a cancellation check comes between parts): the entities it finds do not depend on the
    batches (short texts batched with a long part, or each read alone)."""
    from authormask.text.entities import checked_between, load_recogniser

    recogniser = load_recogniser()
    long = ("\n\n".join(aaac_texts) * 2)[:70_000]
    texts = [*aaac_texts[:6], long, *aaac_texts[6:10]]
    checks: list[int] = []
    with checked_between(lambda: checks.append(1)):
        batched = list(recogniser.find_all(texts))
    assert len(checks) == 2  # the first six with the long one, then the rest
    alone = [recogniser.find(t) for t in texts]
    assert batched == alone
    assert sum(len(e) for e in batched) > 100


# --- ready, with a URL to open ----------------------------------------------------------------


def test_serve_says_when_it_is_ready_with_a_url_to_open(cache_dir: Path) -> None:
    proc = subprocess.Popen(
        [EXE, "serve", "--host", "0.0.0.0", "--port", "0", "--vocab-size", "2000",
         "--cache-dir", str(cache_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    try:
        line = proc.stdout.readline()
        match = re.search(r"ready: open (http://127\.0\.0\.1:(\d+)/) \(listening on all", line)
        assert match, line
        assert "0.0.0.0" in line and "all interfaces" in line
        # ready means ready: the URL answers at once, by the name it was printed with
        assert _get(int(match.group(2))) == 200
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
    assert "listening on 0.0.0.0" in err and "--allow-host" in err


def test_the_ready_line_names_a_url_for_every_address() -> None:
    assert "open http://127.0.0.1:80/ (listening on all interfaces: :: port 80)" in ready_line(
        "::", 80
    )
    assert ready_line("127.0.0.1", 8765) == (
        "authormask serve: ready: open http://127.0.0.1:8765/ (Ctrl-C to stop)"
    )
    assert "open http://[::1]:8765/ (Ctrl-C" in ready_line("::1", 8765)


def test_running_out_of_descriptors_is_one_line_not_a_traceback_each_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """asyncio reports every accept() that finds no descriptor, with its traceback, up to a
    backlog's worth per turn of the loop (the issue: 34,927 lines in seconds)."""
    import asyncio
    import errno

    from authormask.serve import server

    loop = asyncio.new_event_loop()
    try:
        caplog.set_level("DEBUG")
        server._shortage.last = -server.LOG_EVERY  # due now
        for _ in range(500):
            exc = OSError(errno.EMFILE, "Too many open files")
            server._loop_errors(
                loop, {"message": "socket.accept() out of system resource", "exception": exc}
            )
    finally:
        loop.close()
    lines = [r for r in caplog.records if r.levelno >= 30]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert lines[0].getMessage() == (
        "cannot accept connections: Too many open files (new connections wait until some close)"
    )


def test_a_bug_is_a_one_line_500_with_the_security_headers(
    glove_20k: am.Embeddings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from fastapi.testclient import TestClient

    from authormask.serve import app as serve_app

    def broken(*_args: Any) -> Any:
        raise RuntimeError("The secret text")

    monkeypatch.setattr(serve_app, "_release", broken)
    client = TestClient(
        create_app(ServeSettings(port=8765), _Loaded(glove_20k, {})),
        base_url="http://127.0.0.1:8765",
    )
    caplog.set_level("DEBUG")
    r = client.post(
        "/api/release",
        content=json.dumps({"text": "The secret text", "epsilon": 5}),
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 500 and r.json() == {"error": "internal error (see the server's log)"}
    assert r.headers["content-security-policy"] == serve_app.CSP
    assert r.headers["x-frame-options"] == "DENY"
    logged = [rec.getMessage() for rec in caplog.records if rec.levelno >= 30]
    assert logged == [logged[0]] and logged[0].startswith("internal error: RuntimeError at ")
    assert "secret" not in logged[0]


def test_serve_builds_the_page_s_first_setting_before_it_says_ready(glove_20k: Any) -> None:
    # a newcomer's first release through the page took 21 s after "ready": the page's default
    # (emp-write at the recommended epsilon, and its change estimate) is now built first
    from authormask.cli.serve import _warm
    from authormask.core import lineup
    from authormask.defaults import RECOMMENDED_EPSILON

    loaded = _Loaded(glove_20k, {})
    _warm(loaded)
    assert (lineup("serve")[0], RECOMMENDED_EPSILON) in loaded.calibration
    assert any(lineup("serve")[0] in key for key in loaded.mechanisms)
