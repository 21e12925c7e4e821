"""What the Dask engine reports when the cluster, not the task, fails: one line (InputError,
which every front end prints as ``authormask: error: ...``), never a traceback."""

from __future__ import annotations

import pytest
from distributed.client import FutureCancelledError

from authormask.core.executors import _task_error
from authormask.exceptions import InputError


def test_a_task_the_cluster_forgot_is_one_line_saying_how_to_resume() -> None:
    # seen on a pan run whose processes were paused: the scheduler forgot a task, and the
    # FutureCancelledError reached the command line as a traceback
    error = _task_error(FutureCancelledError("_task-1", "already forgotten"))
    assert isinstance(error, InputError)
    assert "cancelled a task" in str(error) and "run the same command again" in str(error)
    assert "\n" not in str(error)


def test_a_task_own_error_is_its_own() -> None:
    own = ValueError("bad input")
    assert _task_error(own) is own
    with pytest.raises(ValueError, match="bad input"):
        raise _task_error(own)
