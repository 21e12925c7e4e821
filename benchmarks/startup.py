"""Start-up time of the CLI against ``python -c "import numpy"``, in the same run.

Each command runs ``--repeat`` times in a fresh interpreter; the median wall time is printed
with its ratio to the reference (target: at most 2x for every ``--help``).

    python benchmarks/startup.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def median_seconds(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("authormask"))
    reference = median_seconds([sys.executable, "-c", "import numpy"], args.repeat)
    label = "python -c 'import numpy'"
    print(f"{label:>34}: {reference:.3f} s (reference)")
    for cmd in (
        [exe, "--help"],
        [exe, "obfuscate", "--help"],
        [exe, "audit", "--help"],
        [exe, "evaluate", "--help"],
        [sys.executable, "-c", "import authormask"],
    ):
        seconds = median_seconds(cmd, args.repeat)
        label = " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))
        print(f"{label[:34]:>34}: {seconds:.3f} s = {seconds / reference:.2f}x")


if __name__ == "__main__":
    main()
