"""The command's end (``authormask.cli.main.end``): the process ends with its status without
Python freeing every object, after what Python's own end would do that counts (exit handlers,
threads it would wait for, the standard streams flushed); where that cannot be done, Python
ends it as before."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_SCRIPT = """
import atexit, sys, threading, time
from pathlib import Path
from authormask.cli.main import end

out = Path(sys.argv[1])
atexit.register(lambda: out.with_suffix(".atexit").write_text("ran"))
{body}
"""


def _run(
    tmp_path: Path, body: str, *, how: str = "end", closed: bool = False
) -> tuple[int, bytes, str]:
    code = textwrap.dedent(_SCRIPT).format(body=textwrap.dedent(body))
    if how == "exit":  # Python's own end, to compare with
        code = code.replace("from authormask.cli.main import end", "end = sys.exit")
    (tmp_path / how).mkdir(exist_ok=True)
    script = tmp_path / how / "command.py"
    script.write_text(code, encoding="utf-8")
    cmd = [sys.executable, str(script), str(tmp_path / "marker")]
    proc = subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    return proc.returncode, proc.stdout, proc.stderr.decode()


@pytest.mark.parametrize("status", [0, 1, 2, 130])
def test_the_status_the_exit_handlers_and_every_byte_written(tmp_path: Path, status: int) -> None:
    body = f"""
    sys.stdout.write("x" * 3_000_000)  # more than any pipe holds: flushed as the process ends
    sys.stderr.write("said")
    end({status})
    """
    code, out, err = _run(tmp_path, body)
    assert code == status
    assert out == b"x" * 3_000_000 and err == "said"
    assert (tmp_path / "marker.atexit").read_text() == "ran"


def test_a_thread_python_would_wait_for_is_waited_for(tmp_path: Path) -> None:
    body = """
    def late():
        time.sleep(0.5)
        out.with_suffix(".thread").write_text("done")

    threading.Thread(target=late).start()
    end(4)
    """
    code, _, _ = _run(tmp_path, body)
    assert code == 4
    assert (tmp_path / "marker.thread").read_text() == "done"
    assert (tmp_path / "marker.atexit").read_text() == "ran"


def test_a_stream_that_cannot_be_flushed_ends_as_python_ends(tmp_path: Path) -> None:
    # standard output whose every write fails (a pipe whose reader has gone): Python reports
    # it and ends with 120
    body = """
    import io

    class Gone(io.RawIOBase):
        def writable(self):
            return True

        def write(self, data):
            raise BrokenPipeError(32, "Broken pipe")

    sys.stdout = io.TextIOWrapper(io.BufferedWriter(Gone()))
    sys.stdout.write("unflushed")
    end(0)
    """
    ours = _run(tmp_path, body)
    python = _run(tmp_path, body, how="exit")
    assert ours[0] == python[0] == 120
    said = ours[2].replace(str(tmp_path / "end"), str(tmp_path / "exit"))
    assert said == python[2] and "Exception ignored" in said
    assert (tmp_path / "marker.atexit").read_text() == "ran"


def test_the_console_script_and_python_m_end_through_it(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("authormask")
    assert "from authormask.cli.main import run" in exe.read_text(encoding="utf-8")
    for cmd in ([str(exe)], [sys.executable, "-m", "authormask"]):
        proc = subprocess.run([*cmd, "--version"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0 and proc.stdout.startswith("authormask")
        proc = subprocess.run([*cmd, "nope"], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and proc.stderr.startswith("authormask: error: No such command")


_FREED = """
import sys
from pathlib import Path


class Freed:
    def __init__(self):
        self.marker = sys.argv[1]  # sys.argv is the command's below

    def __del__(self):
        Path(self.marker).write_text("freed")


kept = Freed()
sys.argv = ["authormask", "--version"]
from authormask.cli.main import run

run()
"""


def test_the_command_as_the_program_ends_at_once_and_inside_another_goes_on(
    tmp_path: Path,
) -> None:
    script = tmp_path / "program.py"
    script.write_text(_FREED, encoding="utf-8")
    marker = tmp_path / "freed"
    # the program itself: nothing is freed one by one (the object's __del__ never runs)
    proc = subprocess.run([sys.executable, str(script), str(marker)], capture_output=True)
    assert proc.returncode == 0 and proc.stdout.startswith(b"authormask")
    assert not marker.exists()
    # under a profiler, Python's own end: the profiler writes its profile after the program
    profile = tmp_path / "profile.out"
    cmd = [sys.executable, "-m", "cProfile", "-o", str(profile), str(script), str(marker)]
    proc = subprocess.run(cmd, capture_output=True, cwd=tmp_path)
    assert proc.returncode == 0 and profile.stat().st_size > 0
    # what the program frees at its end goes where it was told, never beside it (the marker
    # was written to "--version", the command's argument, in the folder the suite ran in)
    assert not (tmp_path / "--version").exists()
    assert marker.read_text() == "freed"  # Python's own end freed it, where it was told
    # run inside another program: SystemExit, which that program may catch and go on after
    host = (
        "import runpy, sys\n"
        "sys.argv = ['authormask', '--version']\n"
        "try:\n"
        "    runpy.run_module('authormask', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    print('the program goes on', exc.code)\n"
    )
    proc = subprocess.run([sys.executable, "-c", host], capture_output=True, text=True)
    assert proc.stdout.splitlines()[-1] == "the program goes on 0"


def test_output_that_cannot_be_written_is_one_line_and_status_1() -> None:
    exe = Path(sys.executable).with_name("authormask")
    for args in (["--help"], ["embeddings"]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [str(exe), *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
            )
        assert proc.returncode == 1, args
        assert proc.stderr == "authormask: error: No space left on device\n", proc.stderr
