"""``authormask serve`` as a user runs it: a real server on 127.0.0.1, 20 concurrent requests,
and the page driven in Debian's chromium (headless, through Playwright): paste, slide, release,
the highlighted output and the statement, both downloads, errors, HTML shown as text.

Browser tests need /usr/bin/chromium (`apt-get install -y chromium`; `.ci/run` installs it and
sets AUTHORMASK_REQUIRE_BROWSER=1, so there they fail rather than skip when it is missing)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

EXE = str(Path(sys.executable).with_name("authormask"))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture(scope="module")
def server(cache_dir: Path) -> Iterator[str]:
    """A real ``authormask serve --port 0`` (GloVe K=20,000); yields its URL."""
    proc = subprocess.Popen(
        [EXE, "serve", "--port", "0", "--vocab-size", "20000", "--cache-dir", str(cache_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:\d+/", line)
    assert match, f"no URL printed: {line!r} {proc.stderr.read() if proc.stderr else ''}"
    url = match.group(0)
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "api/mechanisms", timeout=5).read()
            break
        except OSError:
            time.sleep(0.1)
    yield url
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:  # pragma: no cover
        proc.kill()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _release(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        url + "api/release",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        result: dict[str, Any] = json.loads(response.read())
        return result


def test_twenty_concurrent_requests_each_get_their_own_answer(server: str) -> None:
    words = ["river", "garden", "music", "winter", "doctor", "station", "market", "forest",
             "letter", "window", "bridge", "island", "engine", "silver", "candle", "harbor",
             "valley", "pocket", "ticket", "castle"]  # fmt: skip
    texts = [f"The {w} was near the old {words[(i + 7) % 20]}." for i, w in enumerate(words)]
    bodies: list[dict[str, Any]] = [
        {"text": t, "mechanism": "emp-text", "epsilon": 1e6} for t in texts
    ]
    bodies[3] = {"text": texts[3], "mechanism": "emp-bag", "epsilon": 1e6, "length": 2}
    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(lambda b: _release(server, b), bodies))
    for body, answer in zip(bodies, answers, strict=True):
        if body["mechanism"] == "emp-bag":  # "The winter was near ...": its first two
            assert answer["text"].split() == ["near", "winter"]  # content words, sorted
        else:  # at epsilon 1e6 every word stays: each answer is its own request's text
            assert answer["text"] == body["text"]
        assert answer["statement"]["mechanism"] == body["mechanism"]


# --- the page in a real browser ------------------------------------------------------------


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("AUTHORMASK_REQUIRE_BROWSER"):
            pytest.fail(f"chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")
        pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser: Any, server: str) -> Iterator[Any]:
    context = browser.new_context(accept_downloads=True)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    pg.goto(server)
    pg.wait_for_selector("body[data-ready=true]")
    yield pg
    context.close()
    assert errors == []  # no script error, no CSP violation


def test_paste_slide_release_and_download(page: Any, tmp_path: Path) -> None:
    text = (
        "I have reviewed the submitted manuscript carefully. The authors propose an "
        "interesting method for estimating rainfall from satellite images."
    )
    page.get_by_label("Your text").fill(text)
    assert page.get_by_label("Mechanism").input_value() == "emp-text"
    slider = page.locator("#epsilon-slider")
    slider.fill("400")  # epsilon ~ 4: most words change
    assert page.locator("#epsilon-value").text_content() == "3.98"
    expect(page.locator("#calibration")).to_have_text(
        re.compile(r"^About \d+% of words will change\.$")
    )
    page.get_by_role("button", name="Release").click()
    page.wait_for_selector("#result:not([hidden])")
    output = page.locator("#output").inner_text()
    assert output != text and output.startswith("I have ")
    assert page.locator("#output mark").count() >= 3  # changed words highlighted
    for mark in page.locator("#output mark").all_inner_texts():
        assert mark in output
    statement = page.locator("#statement").inner_text()
    assert "emp-text" in statement and "guarantee" in statement
    with page.expect_download() as info:
        page.get_by_role("button", name="Download text").click()
    saved = tmp_path / "out.txt"
    info.value.save_as(saved)
    assert saved.read_text(encoding="utf-8") == output
    with page.expect_download() as info:
        page.get_by_role("button", name="Download statement (JSON)").click()
    info.value.save_as(tmp_path / "statement.json")
    assert json.loads((tmp_path / "statement.json").read_text())["mechanism"] == "emp-text"
    page.locator("summary").click()
    assert json.loads(page.locator("#statement-json").inner_text())["mechanism"] == "emp-text"


def test_bag_mode_shows_n_and_errors_show_as_one_line(page: Any) -> None:
    page.get_by_role("button", name="Release").click()
    assert "Paste a text" in page.get_by_role("alert").inner_text()
    page.get_by_label("Mechanism").select_option("emp-bag")
    assert page.get_by_label("Words in the bag (N)").is_visible()
    page.get_by_label("Your text").fill("A short note about rivers.")
    page.get_by_label("Words in the bag (N)").fill("40")
    page.get_by_role("button", name="Release").click()
    expect(page.get_by_role("alert")).to_have_text(re.compile("fewer than"))
    error = page.get_by_role("alert").inner_text()
    assert "fewer than N=40" in error and "\n" not in error
    page.get_by_label("Words in the bag (N)").fill("2")
    page.get_by_role("button", name="Release").click()
    page.wait_for_selector("#result:not([hidden])")
    assert len(page.locator("#output").inner_text().split()) == 2
    assert page.get_by_role("alert").inner_text() == ""


def test_html_in_the_output_shows_as_text(page: Any) -> None:
    text = "<script>window.pwned = 1</script> <b>bold</b> <img src=x onerror=alert(1)>"
    page.get_by_label("Your text").fill(text)
    page.locator("#epsilon-slider").fill("1000")  # epsilon 1000: the words stay
    page.get_by_role("button", name="Release").click()
    page.wait_for_selector("#result:not([hidden])")
    shown = page.locator("#output").inner_text()
    assert shown.startswith("<script>window.") and "<b>bold</b>" in shown  # as text
    assert page.locator("#output script, #output b, #output img").count() == 0
    assert page.evaluate("window.pwned") is None


def test_the_page_is_usable_by_keyboard(page: Any) -> None:
    page.get_by_label("Your text").fill("The river was near the old bridge in winter.")
    page.get_by_label("Your text").press("Control+Enter")  # release from the text area
    page.wait_for_selector("#result:not([hidden])")
    page.keyboard.press("Tab")
    focused = page.evaluate("document.activeElement.id")
    assert focused  # focus moves on to a labelled control
