"""emp-doc, emp-write and their decoders against emp-text, in one run: words/s end to end.

Each configuration releases the same real prose (fan fiction of ``pan19-en`` when it is beside
the repository, else the bundled example repeated) through ``create_mechanism`` + ``release``
with the shared search index already built, so the rates compare the mechanisms, not start-up.
The ratio to ``emp-text`` (nearest decoder) is the figure of merit: the goal is at least 0.5x.
Memory: the peak RSS of a release of ``--big``x the text against 1x, in fresh processes
(flat in the input size: a long document is released unit by unit).

    python benchmarks/emp_doc.py [--words 60000] [--epsilon 10] [--repeat 2] [--big 64]
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import subprocess
import sys
import time
from importlib.resources import files
from pathlib import Path

from authormask.core import create_mechanism, release
from authormask.embeddings import load_embeddings

ROOT = Path(__file__).resolve().parents[1]
PAN = ROOT.parent / "shared" / "data" / "pan19-en"

CONFIGS = (
    ("emp-text", {}),
    ("emp-text", {"decoder": "posterior"}),
    ("emp-doc", {"decoder": "nearest"}),
    ("emp-doc", {"decoder": "posterior"}),  # emp-doc's default
    ("emp-write", {"decoder": "nearest"}),
    ("emp-write", {}),  # emp-write's default: the context decoder and the writer
)


def prose(words: int) -> tuple[list[str], str]:
    texts: list[str] = []
    count = 0
    paths = sorted(glob.glob(str(PAN / "problem*" / "unknown" / "*.txt")))
    source = "pan19-en unknown texts"
    if not paths:
        example = files("authormask").joinpath("data/example.txt").read_text(encoding="utf-8")
        paths, source = [], "the bundled example, repeated"
        while count < words:
            texts.append(example)
            count += len(example.split())
        return texts, source
    for p in paths:
        text = Path(p).read_text(encoding="utf-8")
        texts.append(text)
        count += len(text.split())
        if count >= words:
            break
    return texts, source


def peak_rss(mechanism: str, copies: int, texts_words: int) -> float:
    code = (
        "import sys, resource; from authormask.core import create_mechanism, release; "
        "from benchmarks.emp_doc import prose; "
        f"texts, _ = prose({texts_words}); text = ' '.join(texts) * {copies}; "
        f"m = create_mechanism({mechanism!r}, epsilon=10); "
        "release([text], m, random_state=0); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--words", type=int, default=60_000)
    ap.add_argument("--epsilon", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--big", type=int, default=64, help="copies for the memory check (0: skip)")
    args = ap.parse_args()
    texts, source = prose(args.words)
    n_words = sum(len(t.split()) for t in texts)
    emb = load_embeddings("glove-6b-50d", vocab_size=100_000)
    mechs = [
        (name, params, create_mechanism(name, epsilon=args.epsilon, embeddings=emb, **params))
        for name, params in CONFIGS
    ]
    for _, _, m in mechs:  # build the index and compile the kernels outside the timings
        release(texts[:1], m, random_state=0)
    best: dict[int, float] = {}
    for _ in range(args.repeat):
        for i, (_, _, m) in enumerate(mechs):
            t0 = time.perf_counter()
            release(texts, m, random_state=1)
            rate = n_words / (time.perf_counter() - t0)
            best[i] = max(best.get(i, 0.0), rate)
    print(f"{len(texts)} texts, {n_words:,} whitespace words ({source}), epsilon {args.epsilon:g}")
    base = best[0]
    for i, (name, params, _) in enumerate(mechs):
        label = name + (f" ({params['decoder']})" if params else "")
        print(f"  {label:<24} {best[i]:>9,.0f} words/s   {best[i] / base:5.2f}x emp-text")
    if args.big:
        small = args.words // 8
        for name in ("emp-text", "emp-doc"):
            one = peak_rss(name, 1, small)
            many = peak_rss(name, args.big, small)
            print(
                f"  peak RSS {name}: {one:,.0f} MB (1x) vs {many:,.0f} MB ({args.big}x): "
                f"{many / one:.2f}x"
            )
    print(f"  (this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB)")


if __name__ == "__main__":
    main()
