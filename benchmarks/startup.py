"""Start-up time of the CLI against ``python -c "import numpy"``, in the same run.

Each command runs ``--repeat`` times in a fresh interpreter, the commands taking turns; the
median wall time is printed with its ratio to the reference and the spread (min-max). Targets:
at most 2x for every ``--help``; at most 4x for a one-sentence ``emp-text`` release
(``echo "The ship sailed down the river." | authormask obfuscate - --mechanism emp-text
--epsilon 10``) once its prepared vocabulary is in the cache (a first, untimed run builds it in
``--cache-dir``, default a temporary folder, so the user's cache is not touched).

    python benchmarks/startup.py [--repeat 7] [--cache-dir DIR] [--release-only]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SENTENCE = "The ship sailed down the river.\n"


def seconds(cmd: list[str], stdin: str | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, input=stdin, text=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--release-only", action="store_true", help="skip the --help commands")
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("authormask"))
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.cache_dir or Path(tmp)
        release = [exe, "obfuscate", "-", "--mechanism", "emp-text", "--epsilon", "10"]
        release += ["--cache-dir", str(cache)]
        first = seconds(release, SENTENCE)  # builds the prepared vocabulary if missing
        print(f"first release (may build the cache in {cache}): {first:.3f} s")
        commands: dict[str, tuple[list[str], str | None]] = {
            "python -c 'import numpy'": ([sys.executable, "-c", "import numpy"], None),
            "one-sentence emp-text release": (release, SENTENCE),
        }
        if not args.release_only:
            for cmd in (
                [exe, "--help"],
                [exe, "obfuscate", "--help"],
                [exe, "audit", "--help"],
                [exe, "evaluate", "--help"],
                [sys.executable, "-c", "import authormask"],
            ):
                label = " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))
                commands[label] = (cmd, None)
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.repeat):  # the commands take turns: load changes hit all alike
            for label, (cmd, stdin) in commands.items():
                times[label].append(seconds(cmd, stdin))
    reference = statistics.median(times["python -c 'import numpy'"])
    for label, ts in times.items():
        med = statistics.median(ts)
        print(
            f"{label[:34]:>34}: {med:.3f} s (min {min(ts):.3f}, max {max(ts):.3f}) = "
            f"{med / reference:.2f}x"
        )


if __name__ == "__main__":
    main()
