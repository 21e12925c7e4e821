"""Throughput of a dataset release on each engine, in one run: the local engine, and Dask with 1
and with 2 single-threaded workers, on a synthetic JSONL corpus (default 1M words).

Every configuration is the same command, ``authormask obfuscate corpus.jsonl --text-column text
--id-column id -m emp-text ... --seed S``, run in a fresh process, so each pays what a user pays:
starting Python, loading the embeddings (the workers too) and, for Dask, starting the cluster.
The local engine is run twice: as it runs by default (its nearest-word search on every CPU) and
with one search thread (``AUTHORMASK_THREADS=1``), the same compute as one single-threaded Dask
worker. The outputs must be byte-identical (checked). Peak memory (VmHWM) is sampled from
``/proc`` for the client and each worker process; it counts the pages of the memory-mapped
vectors, which the workers share through the page cache.

    python benchmarks/dask_engine.py [--words 1000000] [--doc-words 200] [--epsilon 10]
                                     [--vocab-size 100000] [--partition-size 2500]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from authormask.embeddings import load_embeddings
from authormask.text.stopwords import default_stopwords

EXE = str(Path(sys.executable).with_name("authormask"))


def make_corpus(path: Path, words: int, doc_words: int, seed: int = 0) -> int:
    """Documents of ``doc_words`` words: a third stopwords, the rest frequent GloVe words drawn
    with Zipf-like weights, with a full stop every 20 words. Returns the number of documents."""
    rng = np.random.default_rng(seed)
    vocab = [w for w in load_embeddings("glove-6b-50d", vocab_size=30_000).words if w.isalpha()]
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    stops = sorted(w for w in default_stopwords() if w.isalpha())
    n_docs = words // doc_words
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(n_docs):
            content = rng.choice(len(vocab), size=doc_words, p=weights)
            is_stop = rng.random(doc_words) < 1 / 3
            stop_ids = rng.integers(len(stops), size=doc_words)
            toks = [
                stops[s] if st else vocab[c]
                for c, st, s in zip(content, is_stop, stop_ids, strict=True)
            ]
            text = " ".join(t + ("." if (j + 1) % 20 == 0 else "") for j, t in enumerate(toks))
            fh.write(json.dumps({"id": i, "user": f"user{i % 97}", "text": text}) + "\n")
    return n_docs


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def _peak_mb(pid: int) -> tuple[float, str]:
    """(VmHWM in MB, the process's command line) of a live process."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as fh:
            hwm = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
        return hwm / 1024, cmd
    except (OSError, StopIteration):
        return 0.0, ""


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, list[float]]:
    """(wall seconds, client peak MB, each worker's peak MB) of one command."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks: dict[int, tuple[float, str]] = {}
    while proc.poll() is None:
        for pid in [proc.pid, *_descendants(proc.pid)]:
            mb, cmd = _peak_mb(pid)
            if mb:
                peaks[pid] = (max(mb, peaks.get(pid, (0.0, ""))[0]), cmd or peaks[pid][1])
        time.sleep(0.25)
    wall = time.perf_counter() - t0
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(args)}\n{err}")
    client = peaks.get(proc.pid, (0.0, ""))[0]
    workers = [mb for pid, (mb, cmd) in peaks.items() if pid != proc.pid and "spawn_main" in cmd]
    workers = [mb for mb in workers if mb > 100]  # the worker processes, not the tracker
    return wall, client, workers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--doc-words", type=int, default=200)
    ap.add_argument("--epsilon", type=float, default=10.0)
    ap.add_argument("--vocab-size", type=int, default=100_000)
    ap.add_argument("--partition-size", type=int, default=2_500)  # records (~500k characters)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        corpus = root / "corpus.jsonl"
        docs = make_corpus(corpus, opts.words, opts.doc_words)
        words = docs * opts.doc_words
        size = corpus.stat().st_size / 1e6
        print(f"corpus: {docs} documents, {words} words, {size:.1f} MB of JSONL")
        print(
            f"cpus: {os.cpu_count()}; mechanism emp-text, epsilon {opts.epsilon:g}, "
            f"K={opts.vocab_size} GloVe 50-d; partitions of {opts.partition_size} records"
        )
        configs = {
            "local (default threads)": ([], {}),
            "local (1 search thread)": ([], {"AUTHORMASK_THREADS": "1"}),
            "dask, 1 worker": (["--engine", "dask", "--workers", "1"], {}),
            "dask, 2 workers": (["--engine", "dask", "--workers", "2"], {}),
        }
        results: dict[str, tuple[float, float, list[float]]] = {}
        digests: dict[str, str] = {}
        for name, (extra, env_extra) in configs.items():
            out = root / f"{len(results)}.jsonl"
            args = [
                EXE, "obfuscate", str(corpus), "--text-column", "text", "--id-column", "id",
                "-m", "emp-text", "-e", f"{opts.epsilon:g}", "--vocab-size",
                str(opts.vocab_size), "--seed", "1", "-q", "-o", str(out),
                "--partition-size", str(opts.partition_size), *extra,
            ]  # fmt: skip
            env = {**os.environ, **env_extra}
            results[name] = run(args, env)
            digests[name] = hashlib.sha256(out.read_bytes()).hexdigest()
            wall, client, workers = results[name]
            mem = f"client peak {client:.0f} MB"
            if workers:
                mem += ", workers " + ", ".join(f"{w:.0f}" for w in workers) + " MB"
            print(f"  {name:26s} {wall:7.1f} s  {words / wall:8,.0f} words/s   {mem}")
        same = len(set(digests.values())) == 1
        print(f"outputs byte-identical across engines: {same}")
        rate = {k: words / v[0] for k, v in results.items()}
        d1, d2 = rate["dask, 1 worker"], rate["dask, 2 workers"]
        print("ratios (throughput):")
        print(f"  dask 2 workers / dask 1 worker           {d2 / d1:5.2f}x   (goal >= 1.6x)")
        one = rate["local (1 search thread)"]
        print(f"  dask 1 worker / local, 1 search thread   {d1 / one:5.2f}x   (goal >= 0.85x)")
        default = rate["local (default threads)"]
        print(f"  dask 1 worker / local, default threads   {d1 / default:5.2f}x")
        print(f"  dask 2 workers / local, default threads  {d2 / default:5.2f}x")
        if not same:
            raise SystemExit("the engines' outputs differ")


if __name__ == "__main__":
    main()
