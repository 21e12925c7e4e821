"""The test suite itself leaves nothing behind: the temporary folder it keeps the release history
in is removed when pytest ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_the_suites_history_folder_is_removed_when_pytest_ends(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AUTHORMASK_STATE_DIR"}
    env["TMPDIR"] = str(tmp_path)
    here = Path(__file__).parent
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            "0",
            "-p",
            "no:cacheprovider",
            str(here / "architecture" / "test_package_names.py"),
        ],
        env=env,
        cwd=here.parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.glob("authormask-state-*")) == []
