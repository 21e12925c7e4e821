"""Snapping throughput in one run: the paper's per-word scan, both exact batched screens, and an
end-to-end ``emp-text`` release, with their ratios.

* **reference**: one full float64 vocabulary scan per word (``argmin ||W - z||``), as the
  paper's implementation does (section 6, footnote 14), on the first ``--reference-words``
  queries;
* **blas** and **fused**: the exact batched search (:class:`NearestWordIndex`) with its two
  float32 screens, the blocked BLAS products and the fused numba kernel (the default), on all
  ``--words`` queries; both must return exactly the reference's words (checked);
* **emp-text**: the end-to-end rate of an ``emp-text`` release of the same words (200-word
  documents) through ``create_mechanism`` + ``release`` (preparation, noise, search, rendering)
  with the index every mechanism shares (``shared_index``), once with each screen.

Queries are real noisy word vectors: frequent GloVe words with Laplace noise at a few epsilons.
The JIT line gives the first-use cost of the fused kernel: a cold compile (a fresh, empty
``NUMBA_CACHE_DIR``, in a subprocess) and the load in this process (usually from numba's on-disk
cache). Each rate is the best of ``--repeat`` runs, the methods taking turns; timings on a
shared machine still vary from run to run, so compare the ratios, which are taken within one
run. ``fallbacks`` is the share of queries the float32 screen could not certify (decided by the
exact path).

    python benchmarks/snapping.py [--words 100000] [--reference-words 200] [--vocab-size 100000]
                                  [--epsilons 5 10 20] [--repeat 2] [--spacy]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from authormask.core import create_mechanism, release
from authormask.embeddings import brute_force_nearest, load_embeddings
from authormask.embeddings.neighbours import NearestWordIndex, set_search_backend, shared_index
from authormask.mechanisms import sample_nd_laplace

DOC_WORDS = 200


def jit_times() -> tuple[float, float, bool]:
    """(cold compile seconds in a subprocess, seconds to get the kernel here, from the cache?)"""
    code = (
        "import time; t = time.perf_counter(); from authormask.embeddings import _fused; "
        "print(time.perf_counter() - t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
    cold = float(out.stdout.strip().splitlines()[-1])
    t0 = time.perf_counter()
    from authormask.embeddings import _fused

    return cold, time.perf_counter() - t0, bool(_fused.CACHED)


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def bench(
    name: str,
    vocab_size: int | None,
    epsilons: list[float],
    n_words: int,
    n_ref: int,
    repeat: int,
) -> None:
    emb = load_embeddings(name, vocab_size=vocab_size)
    # a second copy of the same vectors, whose shared index uses the BLAS screen
    set_search_backend("blas")
    emb_blas = load_embeddings(name, vocab_size=vocab_size)
    shared_index(emb_blas)
    set_search_backend("auto")
    fused = shared_index(emb)
    assert fused.backend == "fused" and shared_index(emb_blas).backend == "blas"
    blas = NearestWordIndex(emb.vectors, backend="blas")
    rng = np.random.default_rng(0)
    rows = rng.integers(0, min(20_000, len(emb)), n_words)
    words = [emb.words[int(r)] for r in rows]
    docs = [" ".join(words[i : i + DOC_WORDS]) for i in range(0, n_words, DOC_WORDS)]
    print(f"\n{emb.identity.describe()}; {n_words} words, reference on the first {n_ref}")
    print(
        f"  {'eps':>5} {'changed':>7} | {'reference':>9} | {'blas':>7} {'fused':>7} | "
        f"{'emp-text blas':>13} {'emp-text fused':>14} | {'fused/ref':>9} {'e2e/ref':>8} "
        f"{'fused/blas':>10} {'e2e fused/blas':>14} | fallbacks"
    )
    for eps in epsilons:
        z = sample_nd_laplace(emb.vectors[rows], epsilon=eps, random_state=1)
        for index in (blas, fused):
            index.nearest(z[:256])  # warm-up
            index.n_fallback = 0
        # every measurement is the best of `repeat`, the methods taking turns (a shared machine)
        t_blas = t_fused = t_ref = np.inf
        t_rel = {"blas": np.inf, "fused": np.inf}
        mechs = {
            key: create_mechanism("emp-text", epsilon=eps, embeddings=e, vocab_size=None)
            for key, e in (("blas", emb_blas), ("fused", emb))
        }
        for mech in mechs.values():
            release(docs[:2], mech, random_state=3)  # warm-up
        for _ in range(repeat):
            got_blas, t = timed(blas.nearest, z)
            t_blas = min(t_blas, t)
            fused.n_fallback = 0
            got, t = timed(fused.nearest, z)
            t_fused = min(t_fused, t)
            fallbacks = fused.n_fallback / n_words  # before the releases use the same index
            ref, t = timed(brute_force_nearest, emb.vectors, z[:n_ref])
            t_ref = min(t_ref, t)
            assert np.array_equal(got, got_blas), "the two screens disagree"
            assert np.array_equal(got[:n_ref], ref), "batched search disagrees with the reference"
            for key, mech in mechs.items():
                rel, t = timed(release, docs, mech, random_state=2)
                t_rel[key] = min(t_rel[key], t)
                released = sum(len(d.words) for d in rel.documents)
        rates = {key: released / t for key, t in t_rel.items()}
        ref_wps = n_ref / t_ref
        fused_wps = n_words / t_fused
        print(
            f"  {eps:>5g} {np.mean(got != rows):>7.1%} | {ref_wps:>9.1f} | "
            f"{n_words / t_blas:>7.0f} {fused_wps:>7.0f} | "
            f"{rates['blas']:>13.0f} {rates['fused']:>14.0f} | "
            f"{fused_wps / ref_wps:>8.0f}x {rates['fused'] / ref_wps:>7.0f}x "
            f"{t_blas / t_fused:>9.2f}x {rates['fused'] / rates['blas']:>13.2f}x | "
            f"{fallbacks:.2%}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--words", type=int, default=100_000)
    p.add_argument("--reference-words", type=int, default=200)
    p.add_argument("--vocab-size", type=int, default=100_000)
    p.add_argument("--epsilons", type=float, nargs="+", default=[5.0, 10.0, 20.0])
    p.add_argument("--repeat", type=int, default=2, help="best of this many runs (default 2)")
    p.add_argument("--spacy", action="store_true", help="also spacy-md-300d (eps 0.1, 0.3, 1)")
    a = p.parse_args()
    cold, here, cached = jit_times()
    print(
        f"fused kernel, first use: cold compile {cold:.2f} s (empty cache, incl. numba import); "
        f"this process {here:.2f} s ({'from the on-disk cache' if cached else 'compiled'}); "
        f"{os.cpu_count()} CPUs"
    )
    bench("glove-6b-50d", a.vocab_size, a.epsilons, a.words, a.reference_words, a.repeat)
    if a.spacy:
        bench("spacy-md-300d", None, [0.1, 0.3, 1.0], a.words, a.reference_words, a.repeat)


if __name__ == "__main__":
    main()
