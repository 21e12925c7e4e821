"""What the ``authormask evaluate`` tests share: the command runner and the checks of a one-line
error and of a self-contained report page."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _private_history(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Each test's ``authormask obfuscate`` keeps its local release history in a folder of its
    own (never the user's ~/.local/state), so no test sees another's releases."""
    monkeypatch.setenv("AUTHORMASK_STATE_DIR", str(tmp_path_factory.mktemp("state")))


@pytest.fixture()
def run(cache_dir: Path, invoke: Callable[[list[str]], tuple[int, str, str]]) -> Run:
    """``authormask evaluate ARGS`` in this process, with the session's vector cache."""
    return lambda *args: invoke(["evaluate", *args, "--cache-dir", str(cache_dir)])


def _one_line_error(code: int, err: str, *patterns: str) -> None:
    assert code != 0
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("authormask: error:"), err
    for pattern in patterns:
        assert pattern in lines[0], lines[0]


def _check_page(page: str, *must: str) -> None:
    assert page.startswith("<!DOCTYPE html>") and "data:image/png;base64,iVBORw0KGgo" in page
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.IGNORECASE)
    for text in must:
        assert text in page, text


@pytest.fixture()
def one_line_error() -> Callable[..., None]:
    """``one_line_error(code, err, *patterns)``: a non-zero exit and one line on stderr, an
    ``authormask: error:`` holding every pattern."""
    return _one_line_error


@pytest.fixture()
def check_page() -> Callable[..., None]:
    """``check_page(page, *must)``: report.html is self-contained (an embedded PNG, no script,
    nothing fetched) and holds ``must``."""
    return _check_page
