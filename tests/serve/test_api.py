"""The JSON API of ``authormask serve``: the same release and statement as the CLI, one-line 4xx
errors, the Host check, the size cap, the security headers, streaming progress, and nothing
written to disk. In-process, through FastAPI's test client."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import authormask as am
from authormask.core import mechanism_spec
from authormask.serve.app import CSP, ServeSettings, _Loaded, create_app

TEXT = "The committee met on Tuesday to discuss the budget and the new library building."


@pytest.fixture(scope="module")
def client(glove_20k: am.Embeddings) -> TestClient:
    settings = ServeSettings(port=8765, max_chars=5_000, extra_hosts=("localhost:8765",))
    app = create_app(settings, _Loaded(glove_20k, {}))
    return TestClient(app, base_url="http://127.0.0.1:8765")


JSON = {"Content-Type": "application/json"}


def _post(client: TestClient, body: Any, headers: dict[str, str] | None = None) -> Any:
    return client.post(
        "/api/release", content=json.dumps(body), headers={**JSON, **(headers or {})}
    )


def test_a_release_returns_the_text_and_the_clis_statement(
    client: TestClient, glove_20k: am.Embeddings
) -> None:
    # epsilon 2: a word stays with probability ~0.002, all 9 content words ~1e-24
    r = _post(client, {"text": TEXT, "mechanism": "emp-text", "epsilon": 2})
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"text", "statement", "statement_text"}
    assert body["text"] != TEXT and body["text"].startswith("The ")
    mech = am.create_mechanism("emp-text", epsilon=2, embeddings=glove_20k)
    assert body["statement"] == mech.statement(seeded=False).to_dict()
    assert body["statement_text"] == mech.statement(seeded=False).describe()
    # and the same statement in plain words, with its worked example from the vectors
    from authormask.accounting.plain import explain

    plain = explain(mech.statement(seeded=False), embeddings=glove_20k)
    assert body["statement_plain"] == plain and "times likelier" in plain


def test_bag_mode_takes_n(client: TestClient) -> None:
    r = _post(client, {"text": TEXT, "mechanism": "emp-bag", "epsilon": 10, "length": 5})
    assert r.status_code == 200
    body = r.json()
    assert sum(body["bag"].values()) == 5 and len(body["text"].split()) == 5
    assert body["statement"]["mechanism"] == "emp-bag"


def test_mechanisms_lists_what_the_server_can_release(client: TestClient) -> None:
    info = client.get("/api/mechanisms").json()
    names = [m["name"] for m in info["mechanisms"]]
    expected = [n for n in am.mechanism_names() if n not in ("erae", "ae-dp", "random-sub")]
    # no model: no erae, no ae-dp; never a baseline without a guarantee
    assert names == expected and "emp-text" in names and "emp-doc" in names
    emp = next(m for m in info["mechanisms"] if m["name"] == "emp-text")
    params = {p["name"] for p in emp["parameters"]}
    assert "epsilon" in params and not params & {"embeddings", "vocab_size", "cache_dir"}
    assert info["max_chars"] == 5_000


#: every registered mechanism the page offers without a model (read from the specs, so a new
#: mechanism is tested by being registered): no baseline, none that requires a trained model
PAGE_MECHANISMS = [
    n
    for n in am.mechanism_names()
    if not mechanism_spec(n).baseline and mechanism_spec(n).model_kind is None
]


@pytest.mark.parametrize("mechanism", PAGE_MECHANISMS)
def test_every_mechanism_calibrates_and_releases(client: TestClient, mechanism: str) -> None:
    spec = mechanism_spec(mechanism)
    body: dict[str, Any] = {"text": TEXT, "mechanism": mechanism}
    if spec.takes_epsilon:
        low = client.get("/api/calibrate", params={"mechanism": mechanism, "epsilon": 1}).json()
        high = client.get("/api/calibrate", params={"mechanism": mechanism, "epsilon": 200})
        assert 0.0 <= high.json()["changed"] < low["changed"] <= 1.0
        body["epsilon"] = 10
    else:  # no epsilon: one change rate, whatever epsilon is asked
        answer = client.get("/api/calibrate", params={"mechanism": mechanism}).json()
        assert answer["epsilon"] is None and 0.0 <= answer["changed"] <= 1.0
    if spec.release == "bag":
        body["length"] = 4
    r = _post(client, body)
    assert r.status_code == 200, r.text
    assert r.json()["statement"]["mechanism"] == mechanism


def test_real_valued_parameters_are_taken(client: TestClient) -> None:
    body = {"text": TEXT, "mechanism": "mahalanobis", "epsilon": 10, "regularization": 0.5}
    assert _post(client, body).status_code == 200
    body = {"text": TEXT, "mechanism": "emp-bag", "epsilon": 10, "length": 2.5}
    assert "whole number" in _post(client, body).json()["error"]


def test_calibration_falls_as_epsilon_grows(client: TestClient) -> None:
    low = client.get("/api/calibrate", params={"mechanism": "emp-text", "epsilon": 2}).json()
    high = client.get("/api/calibrate", params={"mechanism": "emp-text", "epsilon": 40}).json()
    # a share of all the words of a text: emp-text keeps the function words (about half of a
    # running text), so at epsilon 2, where nearly every content word changes, about half
    assert 0.4 < low["changed"] < 0.6
    assert 0.0 <= high["changed"] < 0.1
    assert "share of all of a text's words" in low["measure"]
    r = client.get("/api/calibrate", params={"mechanism": "emp-text", "epsilon": -1})
    assert r.status_code == 400 and "epsilon" in r.json()["error"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ("not json", 400, "not JSON"),
        ([1, 2], 400, "JSON object"),
        ({"mechanism": "emp-text", "epsilon": 5}, 400, "'text' must be a string"),
        ({"text": TEXT, "mechanism": "nope"}, 400, "unknown mechanism 'nope'"),
        ({"text": TEXT, "mechanism": "erae", "epsilon": 5}, 400, "--model"),
        ({"text": TEXT, "epsilon": 5, "seed": 3}, 400, "does not take 'seed'"),
        ({"text": TEXT, "epsilon": -2}, 400, "epsilon"),
        ({"text": TEXT, "epsilon": "ten"}, 400, "epsilon must be a number"),
        ({"text": TEXT, "epsilon": 5, "stopwords": "/etc/passwd"}, 400, "'english' or 'none'"),
        ({"text": TEXT, "mechanism": "emp-bag", "epsilon": 5, "length": "shortest"}, 400,
         "give N"),
        ({"text": TEXT, "mechanism": "emp-bag", "epsilon": 5, "length": 500}, 400, "fewer than"),
        ({"text": "   ", "epsilon": 5}, 400, "empty"),
        ({"text": "x" * 5_001, "epsilon": 5}, 413, "at most 5,000"),
    ],
)  # fmt: skip
def test_bad_requests_get_a_4xx_with_one_line(
    client: TestClient, body: Any, status: int, message: str
) -> None:
    content = body if isinstance(body, str) else json.dumps(body)
    r = client.post("/api/release", content=content, headers=JSON)
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert message in error and "\n" not in error and "Traceback" not in error


def test_a_huge_body_is_refused_before_it_is_read(client: TestClient) -> None:
    r = client.post("/api/release", content=b"{" + b" " * 200_000 + b"}", headers=JSON)
    assert r.status_code == 413 and "at most 5,000 characters" in r.json()["error"]


def test_requests_for_another_host_are_refused(client: TestClient) -> None:
    r = client.get("/api/mechanisms", headers={"Host": "attacker.example:8765"})
    assert r.status_code == 400 and "answers requests for" in r.json()["error"]
    assert client.get("/api/mechanisms", headers={"Host": "localhost:8765"}).status_code == 200


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    for r in (client.get("/"), client.get("/app.js"), client.get("/api/mechanisms")):
        assert r.status_code == 200
        assert r.headers["content-security-policy"] == CSP
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["cache-control"] == "no-store"
    page = client.get("/").text
    assert '<script src="/app.js" defer></script>' in page
    assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP
    assert "innerHTML" not in client.get("/app.js").text  # texts go in as textContent


def test_streaming_reports_progress_then_the_result(client: TestClient) -> None:
    r = _post(
        client,
        {"text": TEXT * 40, "mechanism": "emp-text", "epsilon": 10},
        headers={"Accept": "application/x-ndjson"},
    )
    events = [json.loads(line) for line in r.text.splitlines()]
    # the share done, never a count of the text's words (an independent review: "total": 60)
    progress = [e for e in events if "progress" in e]
    assert progress[0] == {"progress": 0, "total": 1} and len(progress) >= 2
    assert all(e["total"] == 1 and 0 <= e["progress"] <= 1 for e in progress)
    assert progress[-1]["progress"] == 1
    assert "result" in events[-1] and events[-1]["result"]["statement"]["mechanism"] == "emp-text"
    bad = _post(client, {"text": "   ", "epsilon": 5}, headers={"Accept": "application/x-ndjson"})
    assert "empty" in json.loads(bad.text.splitlines()[-1])["error"]


def test_the_page_remembers_no_users_text(client: TestClient) -> None:
    """A privacy review: the recogniser's and the sentence encoder's memos are process-wide, so
    on the page one user's text would make another's release answer faster (a timing side
    channel) and fix its sentence points; the page remembers none."""
    import authormask.models.sentence_bank as sb
    import authormask.text.entities as entities

    body = {"text": "Olga Ivanova met Peter Smith in Oslo.", "mechanism": "emp-text", "epsilon": 9}
    for _ in range(2):
        assert client.post("/api/release", json=body).status_code == 200
    assert entities._SEEN_TEXTS == 0 and not entities._SEEN
    assert sb._SEEN_SENTENCES == 0 and not sb._SEEN


def test_nothing_is_written_to_disk(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    home = Path(os.path.expanduser("~/.cache/authormask"))
    before = {p: p.stat().st_mtime_ns for p in home.rglob("*")} if home.exists() else {}
    secret = "My secret manuscript about the river and the satellite images."
    for mech in ("emp-text", "emp-bag", "syntf"):
        body = {"text": secret, "mechanism": mech, "epsilon": 10}
        if mech == "emp-bag":
            body["length"] = 3
        assert _post(client, body).status_code == 200
    assert list(tmp_path.iterdir()) == []
    after = {p: p.stat().st_mtime_ns for p in home.rglob("*")} if home.exists() else {}
    assert after == before


def test_an_erae_model_is_offered_when_given(glove_20k: am.Embeddings, tiny_erae_dir: Path) -> None:
    from authormask.models.erae import load_model

    model = load_model(tiny_erae_dir)
    app = create_app(ServeSettings(port=8765), _Loaded(glove_20k, {"reward": model}))
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    names = [m["name"] for m in client.get("/api/mechanisms").json()["mechanisms"]]
    assert "erae" in names and "ae-dp" not in names
    r = _post(client, {"text": TEXT, "mechanism": "erae", "epsilon": 5})
    assert r.status_code == 200
    body = r.json()
    assert body["statement"]["mechanism"] == "erae" and body["figures"]["tokens"] > 0
    c = client.get("/api/calibrate", params={"mechanism": "erae", "epsilon": 5}).json()
    assert 0.0 <= c["changed"] <= 1.0


def test_a_baseline_without_a_guarantee_is_never_served(client: TestClient) -> None:
    r = _post(client, {"text": TEXT, "mechanism": "random-sub", "rate": 0.5})
    assert r.status_code == 400
    assert "unknown mechanism 'random-sub'" in r.json()["error"]


# --- malformed bodies and requests from other sites (issue 22) ------------------------------

DEEP = 100_000


@pytest.fixture(scope="module")
def roomy(glove_20k: am.Embeddings) -> TestClient:
    """A client of a server with the default cap (1,000,000 characters): room for a body nested
    100,000 levels deep, which then has to be refused for what it is, not for its size."""
    app = create_app(ServeSettings(port=8765), _Loaded(glove_20k, {}))
    return TestClient(app, base_url="http://127.0.0.1:8765")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[" * DEEP + b"]" * DEEP, "nests too deeply"),
        (b'{"a":' * DEEP + b"1" + b"}" * DEEP, "nests too deeply"),
        (b'{"text": "x", "epsilon": ' + b"[" * DEEP + b"]" * DEEP + b"}", "nests too deeply"),
        (b'{"text": "x", "epsilon": ' + b"[" * 500 + b"]" * 500 + b"}", "got a list"),
        (b'{"text": "x", "epsilon": {"a": {"b": 1}}}', "got an object"),
        ('{"text": "caf\xe9", "epsilon": 5}'.encode("latin-1"), "not UTF-8"),
        ('{"text": "ship", "epsilon": 5}'.encode("utf-16"), "not UTF-8"),
        ('{"text": "ship", "epsilon": 5}'.encode("utf-32"), "not UTF-8"),
        (b'{"text": "\xed\xa0\x80", "epsilon": 5}', "not UTF-8"),  # an encoded surrogate
        (b'{"text": "The ship \\ud800 sailed.", "epsilon": 5}', "not valid Unicode"),
        # issue 49, item 15: the command line refuses NUL bytes, the page took them
        (b'{"text": "The ship \\u0000 sailed.", "epsilon": 5}', "NUL character"),
        ('\ufeff{"text": "ship", "epsilon": 5}'.encode(), "not JSON"),  # a UTF-8 BOM
        (b"", "not JSON"),
        (b'{"text": "ship", "epsilon": 5', "not JSON"),
        (b'{"text": "ship", "epsilon": ' + b"9" * 5_000 + b"}", "not JSON"),
        (b"null", "JSON object"),
        (b'"text"', "JSON object"),
        (b"3.5", "JSON object"),
        (b'{"text": ["ship"], "epsilon": 5}', "'text' must be a string"),
        (b'{"text": "ship", "mechanism": {"name": "emp-text"}}', "'mechanism' must be"),
        (b'{"text": "ship", "epsilon": true}', "got true"),
        (b'{"text": "ship", "stopwords": ["english"], "epsilon": 5}', "'english' or 'none'"),
        (b'{"text": "ship", "mechanism": "emp-bag", "epsilon": 5, "length": 1e308}', "length"),
    ],
)  # fmt: skip
def test_every_malformed_body_gets_a_one_line_4xx_and_no_log(
    roomy: TestClient, content: bytes, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    r = roomy.post("/api/release", content=content, headers=JSON)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert message in error and "\n" not in error and len(error) <= 300
    assert [rec for rec in caplog.records if rec.levelno >= 30] == []


def test_a_malformed_query_or_path_gets_a_one_line_json_error(client: TestClient) -> None:
    r = client.get("/api/calibrate", params={"mechanism": "emp-text", "epsilon": "abc"})
    assert r.status_code == 400 and "epsilon" in r.json()["error"]
    assert "\n" not in r.json()["error"]
    r = client.get("/api/calibrate", params={"mechanism": "x" * 10_000, "epsilon": 5})
    assert r.status_code == 400 and len(r.json()["error"]) <= 300
    assert client.get("/nowhere").json() == {"error": "no such page"}
    r = client.delete("/api/release", headers=JSON)
    assert r.status_code == 405 and r.json() == {"error": "method not allowed"}


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},  # a sandboxed frame, a data: URL, a file
        {"Origin": "http://127.0.0.1:9999"},  # another local server: another origin
        {"Origin": "http://localhost:8765"},  # the request names 127.0.0.1:8765
        {"Origin": "http://127.0.0.1:8765.evil.example"},
        {"Referer": "http://evil.example/page.html"},
        {"Referer": "http://127.0.0.1:87650/"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://127.0.0.1:8765"},
    ],
)
def test_requests_from_another_site_are_refused(
    client: TestClient, headers: dict[str, str]
) -> None:
    r = _post(client, {"text": TEXT, "epsilon": 5}, headers=headers)
    assert r.status_code == 403, r.text
    assert "another site" in r.json()["error"]
    for path in ("/api/mechanisms", "/api/calibrate?epsilon=5", "/app.js"):
        assert client.get(path, headers=headers).status_code == 403


@pytest.mark.parametrize(
    "content_type",
    [None, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
     "multipart/form-data; boundary=x", "application/json-seq", "application/json; charset=utf-16"],
)  # fmt: skip
def test_an_api_call_that_is_not_json_is_refused(
    client: TestClient, content_type: str | None
) -> None:
    body = json.dumps({"text": TEXT, "epsilon": 5})
    headers = {"Content-Type": content_type} if content_type else {}
    r = client.post("/api/release", content=body, headers=headers)
    assert r.status_code == 415, r.text
    assert "application/json" in r.json()["error"] or "UTF-8" in r.json()["error"]


def test_the_cross_site_text_plain_post_of_the_issue_is_refused(client: TestClient) -> None:
    # what a form or a no-cors fetch on any web page can send without asking the server first
    r = client.post(
        "/api/release",
        content=json.dumps({"text": TEXT, "epsilon": 5}),
        headers={"Content-Type": "text/plain", "Origin": "http://evil.example",
                 "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"},
    )  # fmt: skip
    assert r.status_code == 403 and "text" not in r.json()


def test_the_pages_own_requests_are_served(client: TestClient) -> None:
    own = {"Origin": "http://127.0.0.1:8765", "Sec-Fetch-Site": "same-origin"}
    r = _post(client, {"text": TEXT, "epsilon": 5}, headers=own)
    assert r.status_code == 200 and r.json()["statement"]["mechanism"] == "emp-write"
    r = _post(
        client,
        {"text": TEXT, "epsilon": 5},
        headers={"Content-Type": "Application/JSON; charset=UTF-8"},
    )
    assert r.status_code == 200
    local = {"Host": "localhost:8765", "Origin": "http://localhost:8765"}  # an allowed alias
    assert _post(client, {"text": TEXT, "epsilon": 5}, headers=local).status_code == 200
    for path in ("/", "/app.js", "/style.css", "/api/mechanisms"):
        assert client.get(path, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 200
    # typed into the address bar, or a link followed from another site: the page opens
    assert client.get("/", headers={"Sec-Fetch-Site": "none"}).status_code == 200
    link = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    assert client.get("/", headers=link).status_code == 200
    assert client.get("/api/mechanisms", headers=link).status_code == 403


def test_the_pages_script_sends_json() -> None:
    from importlib.resources import files

    script = files("authormask.serve").joinpath("static", "app.js").read_text(encoding="utf-8")
    posts = script.count('method: "POST"')
    assert posts >= 1
    assert script.count('"Content-Type": "application/json"') == posts


def test_a_client_that_hangs_up_mid_body_is_not_logged_as_an_error(
    roomy: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    import anyio

    sent: list[dict[str, Any]] = []
    parts = [
        {"type": "http.request", "body": b'{"text": "The ship', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> dict[str, Any]:
        return parts.pop(0) if parts else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": "/api/release", "raw_path": b"/api/release",
        "query_string": b"", "root_path": "", "server": ("127.0.0.1", 8765),
        "client": ("127.0.0.1", 50000),
        "headers": [(b"host", b"127.0.0.1:8765"), (b"content-type", b"application/json"),
                    (b"content-length", b"100")],
    }  # fmt: skip
    caplog.set_level("DEBUG")
    anyio.run(roomy.app, scope, receive, send)
    assert sent[0]["status"] == 400
    assert [rec for rec in caplog.records if rec.levelno >= 30] == []
