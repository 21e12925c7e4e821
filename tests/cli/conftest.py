from __future__ import annotations

from collections.abc import Callable

import pytest

from authormask.cli.main import main

Invoke = Callable[[list[str]], tuple[int, str, str]]


@pytest.fixture()
def invoke(capsys: pytest.CaptureFixture[str]) -> Invoke:
    """Run ``authormask ARGV`` in this process: (exit status, stdout, stderr)."""

    def _invoke(argv: list[str]) -> tuple[int, str, str]:
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return _invoke
