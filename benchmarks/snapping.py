"""Snapping throughput: exact batched search vs the paper-style reference, in the same run.

The reference scans the whole vocabulary once per word (``argmin ||W - z||``, float64), as the
paper's implementation does (section 6, footnote 14). Queries are real noisy word vectors: the
Laplace mechanism applied to frequent words at a few epsilons. Both methods must return the same
words; the script checks that on the reference's subset and prints words/s and the ratio. The
batched search is the shared index of the embeddings (``shared_index``), the one every ``emp-bag``
and ``emp-text`` mechanism uses; the last column is the end-to-end rate of an ``emp-text``
release of the same words through the release layer (``create_mechanism`` + ``release``:
preparation, noise, search and rendering).

    python benchmarks/snapping.py [--words 20000] [--reference-words 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from authormask.embeddings import brute_force_nearest, load_embeddings
from authormask.embeddings.neighbours import shared_index
from authormask.mechanisms import sample_nd_laplace
from authormask.release import create_mechanism, release

DOC_WORDS = 200


def bench(
    name: str, vocab_size: int | None, epsilons: list[float], n_words: int, n_ref: int
) -> None:
    emb = load_embeddings(name, vocab_size=vocab_size)
    index = shared_index(emb)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, min(20_000, len(emb)), n_words)
    words = [emb.words[int(r)] for r in rows]
    docs = [" ".join(words[i : i + DOC_WORDS]) for i in range(0, n_words, DOC_WORDS)]
    print(f"\n{emb.identity.describe()}")
    for eps in epsilons:
        z = sample_nd_laplace(emb.vectors[rows], epsilon=eps, random_state=1)
        index.nearest(z[:256])  # warm-up
        index.n_fallback = 0
        t0 = time.perf_counter()
        fast = index.nearest(z)
        t_fast = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref = brute_force_nearest(emb.vectors, z[:n_ref])
        t_ref = time.perf_counter() - t0
        assert np.array_equal(fast[:n_ref], ref), "batched search disagrees with the reference"
        fast_wps = n_words / t_fast
        ref_wps = n_ref / t_ref
        changed = float(np.mean(fast != rows))
        fallbacks = index.n_fallback / n_words
        mech = create_mechanism("emp-text", epsilon=eps, embeddings=emb, vocab_size=None)
        t0 = time.perf_counter()
        rel = release(docs, mech, random_state=2)
        t_rel = time.perf_counter() - t0
        released = sum(len(d.words) for d in rel.documents)
        print(
            f"  eps={eps:<5g} words changed {changed:6.1%} | batched exact {fast_wps:9.0f} words/s"
            f" | reference {ref_wps:7.1f} words/s | ratio {fast_wps / ref_wps:6.1f}x"
            f" | float64 fallbacks {fallbacks:.2%}"
            f" | emp-text release {released / t_rel:9.0f} words/s"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--words", type=int, default=20_000)
    p.add_argument("--reference-words", type=int, default=200)
    a = p.parse_args()
    bench("glove-6b-50d", 100_000, [5.0, 10.0, 20.0], a.words, a.reference_words)
    bench("spacy-md-300d", None, [0.1, 0.3, 1.0], a.words, a.reference_words)


if __name__ == "__main__":
    main()
