"""Real prose and the uniform input against the exhaustive-search limit, in one run (issue 22 B).

Two inputs, each released end to end by the CLI in a fresh process (start-up included, the
prepared vocabulary already in ``--cache-dir``; an untimed first run builds it):

* **prose**: the first ``--prose-bytes`` (700 KB) of Reuters C50 training stories (authors and
  files in sorted order, one text file), ``emp-text`` at ``--epsilon`` 10, GloVe 100k;
* **uniform**: ``--uniform-words`` (100k) words drawn uniformly from the 20,000 most frequent
  vocabulary words, 200 per line (the input of ``benchmarks/snapping.py``); its release is also
  timed in this process through ``am.release`` (no start-up), as ``snapping.py`` does.

References, over the same number of noisy vectors (the input's content words with Laplace noise
at the same epsilon), in this process:

* **sgemm**: a plain numpy exhaustive search: blocks of 256 queries, ``||w||^2 - 2 z.W^T`` by one
  float32 ``sgemm`` per block computed in place, then ``argmin`` (every BLAS thread; not
  certified: its answers are compared with the exact ones and the agreement printed);
* **faiss**: ``faiss.IndexFlatL2`` (exact exhaustive search, every thread); install the ``bench``
  extra (``pip install -e '.[bench]'``) - the line says so when faiss is absent;
* **scan**: the paper's per-word float64 scan (``brute_force_nearest``) on the first
  ``--reference-words`` queries.

Each timing is repeated ``--repeat`` times, the methods taking turns; the median and the spread
(min-max) are printed, and the ratios are of medians from this run. Goals: prose end to end
>= 1.0x sgemm; the uniform input (in process) >= 145x the scan.

    python benchmarks/search_limit.py [--prose-bytes 700000] [--uniform-words 100000]
        [--epsilon 10] [--vocab-size 100000] [--repeat 3] [--dataset-path DIR] [--cache-dir DIR]
    [--inputs prose uniform] [--entities keep]

The CLI releases run with the default entity step (``surrogate``: names found and replaced
before the noise) unless ``--entities`` says otherwise; the references search the same number of
noisy vectors either way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from authormask.core import create_mechanism, release
from authormask.embeddings import Embeddings, brute_force_nearest, load_embeddings
from authormask.embeddings.neighbours import shared_index
from authormask.mechanisms import sample_nd_laplace

EXE = str(Path(sys.executable).with_name("authormask"))
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "reuters-c50"
LINE_WORDS = 200


def prose_file(dataset: Path, n_bytes: int, out: Path) -> int:
    """The first ``n_bytes`` of C50 training stories in ``out``; returns the stories used."""
    stories = sorted((dataset / "C50train").glob("*/*.txt"))
    if not stories:
        raise SystemExit(f"no C50 training stories under {dataset}/C50train (--dataset-path)")
    chunks: list[str] = []
    size = 0
    for path in stories:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        chunks.append(text)
        size += len(text.encode("utf-8")) + 2
        if size >= n_bytes:
            break
    out.write_text("\n\n".join(chunks) + "\n", encoding="utf-8")
    return len(chunks)


def uniform_file(emb: Embeddings, n_words: int, out: Path) -> list[str]:
    rng = np.random.default_rng(0)
    rows = rng.integers(0, min(20_000, len(emb)), n_words)
    words = [emb.words[int(r)] for r in rows]
    lines = [" ".join(words[i : i + LINE_WORDS]) for i in range(0, n_words, LINE_WORDS)]
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def content_rows(mech: Any, emb: Embeddings, text: str) -> np.ndarray:
    """The rows of the content words the release perturbs (under the default entity step, those
    of its masked units where the document holds them, the surrogates standing where the names
    were; else the text's own units, as many as the release perturbs: the surrogates keep the
    mechanism's kinds, and the document holds only their count)."""
    doc = mech.prepare(text)
    units = getattr(doc, "masked", (doc,))
    if units is None:
        units = mech.inner.prepare_parts(doc.parts)
    return np.array([emb.index_of(w) for u in units for w in u.content_words], dtype=np.intp)


def sgemm_search(w: np.ndarray, sq: np.ndarray, z: np.ndarray, block: int = 256) -> np.ndarray:
    """Exhaustive float32 search: distances (up to ||z||^2) and argmin, in blocks."""
    out = np.empty(z.shape[0], dtype=np.intp)
    wt = np.ascontiguousarray(w.T)
    buf = np.empty((block, w.shape[0]), dtype=np.float32)
    for s in range(0, z.shape[0], block):
        zb = z[s : s + block]
        scores = buf[: zb.shape[0]]
        np.matmul(zb, wt, out=scores)
        scores *= -2.0
        scores += sq
        out[s : s + zb.shape[0]] = np.argmin(scores, axis=1)
    return out


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def cli_release(path: Path, args: argparse.Namespace, cache: Path, out: Path) -> float:
    cmd = [EXE, "obfuscate", str(path), "--mechanism", "emp-text", "--epsilon", str(args.epsilon)]
    cmd += ["--vocab-size", str(args.vocab_size), "--seed", "1", "--cache-dir", str(cache)]
    cmd += ["-o", str(out), "--force", "-q"]
    if args.entities is not None:
        cmd += ["--entities", args.entities]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def fmt(ts: list[float], n: int) -> str:
    med = statistics.median(ts)
    return f"{n / med:>9,.0f}/s ({n / max(ts):,.0f}-{n / min(ts):,.0f})"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--prose-bytes", type=int, default=700_000)
    p.add_argument("--uniform-words", type=int, default=100_000)
    p.add_argument("--epsilon", type=float, default=10.0)
    p.add_argument("--vocab-size", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--reference-words", type=int, default=200)
    p.add_argument("--dataset-path", type=Path, default=DEFAULT_DATA)
    p.add_argument("--cache-dir", type=Path, default=None)
    p.add_argument(
        "--entities",
        choices=("surrogate", "mask", "keep"),
        default=None,
        help="the CLI release's entity step (default: the release's own default, surrogate)",
    )
    p.add_argument(
        "--inputs", nargs="+", choices=("prose", "uniform"), default=["prose", "uniform"]
    )
    a = p.parse_args()
    try:
        import faiss
    except ImportError:
        faiss = None
        print("faiss is not installed: its column is left out (pip install -e '.[bench]')")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cache = a.cache_dir or tmp / "cache"
        emb = load_embeddings("glove-6b-50d", vocab_size=a.vocab_size, cache_dir=cache)
        mech = create_mechanism("emp-text", epsilon=a.epsilon, embeddings=emb, vocab_size=None)
        prose = tmp / "prose.txt"
        n_stories = prose_file(a.dataset_path, a.prose_bytes, prose)
        uniform = tmp / "uniform.txt"
        lines = uniform_file(emb, a.uniform_words, uniform)
        inputs = {n: f for n, f in (("prose", prose), ("uniform", uniform)) if n in a.inputs}
        rows = {
            name: content_rows(mech, emb, path.read_text("utf-8")) for name, path in inputs.items()
        }
        w = np.ascontiguousarray(emb.vectors, dtype=np.float32)
        sq = emb.squared_norms().astype(np.float32)
        search = shared_index(emb)
        index = None
        if faiss is not None:
            index = faiss.IndexFlatL2(w.shape[1])
            index.add(w)
        sizes = ", ".join(f"{n}: {rows[n].size:,} content words" for n in inputs)
        print(
            f"{emb.identity.describe()}; epsilon {a.epsilon:g}; {os.cpu_count()} CPUs; "
            f"prose: {prose.stat().st_size:,} bytes of {n_stories} C50 training stories; {sizes}"
        )
        for path in inputs.values():  # warm: the prepared vocabulary and the kernel's cache
            cli_release(path, a, cache, tmp / "warm.txt")
        release(lines[:2], mech, random_state=3)
        times: dict[str, dict[str, list[float]]] = {name: {} for name in inputs}
        agree: dict[str, float] = {}
        for _ in range(a.repeat):
            for name, path in inputs.items():
                t = times[name]
                t.setdefault("e2e", []).append(cli_release(path, a, cache, tmp / f"{name}.out"))
                z = sample_nd_laplace(emb.vectors[rows[name]], epsilon=a.epsilon, random_state=1)
                z32 = z.astype(np.float32)
                got, dt = timed(lambda z32=z32: sgemm_search(w, sq, z32))
                t.setdefault("sgemm", []).append(dt)
                exact, dt = timed(lambda z=z: search.nearest(z))
                t.setdefault("search", []).append(dt)
                agree[name] = float(np.mean(got == exact))
                if index is not None:
                    _, dt = timed(lambda z32=z32: index.search(z32, 1))
                    t.setdefault("faiss", []).append(dt)
                ref, dt = timed(
                    lambda z=z: brute_force_nearest(emb.vectors, z[: a.reference_words])
                )
                assert np.array_equal(ref, exact[: a.reference_words]), "search is not exact"
                t.setdefault("scan", []).append(dt)
                if name == "uniform":
                    _, dt = timed(lambda: release(lines, mech, random_state=2))
                    t.setdefault("in-process", []).append(dt)
        for name in inputs:
            n = int(rows[name].size)
            t = times[name]
            med = {k: statistics.median(v) for k, v in t.items()}
            rate = {k: (a.reference_words if k == "scan" else n) / v for k, v in med.items()}
            print(f"\n{name}: {n:,} content words, median of {a.repeat} (min-max)")
            print(f"  end to end (CLI, start-up included): {fmt(t['e2e'], n)}")
            if "in-process" in t:
                print(f"  end to end in process (am.release): {fmt(t['in-process'], n)}")
            print(f"  exact search alone (certified):      {fmt(t['search'], n)}")
            print(f"  numpy sgemm exhaustive (roofline):   {fmt(t['sgemm'], n)}")
            print(f"    (agrees with the exact answer on {agree[name]:.4%} of queries)")
            if "faiss" in t:
                print(f"  faiss IndexFlatL2 (exact):           {fmt(t['faiss'], n)}")
            scan = [s * n / a.reference_words for s in t["scan"]]
            print(f"  per-word float64 scan (paper):       {fmt(scan, n)}")
            for key in ("e2e", "in-process", "search"):
                if key not in rate:
                    continue
                ratios = [f"{rate[key] / rate['sgemm']:.2f}x sgemm"]
                if "faiss" in rate:
                    ratios.append(f"{rate[key] / rate['faiss']:.2f}x faiss")
                ratios.append(f"{rate[key] / rate['scan']:.0f}x scan")
                print(f"  {key:>10}: " + ", ".join(ratios))
        print(
            json.dumps(
                {n: {k: [round(x, 4) for x in v] for k, v in t.items()} for n, t in times.items()}
            )
        )


if __name__ == "__main__":
    main()
