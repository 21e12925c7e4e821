"""Throughput of the exact samplers against the float64 samplers they replace, in the same run.

1. The exponential mechanism on ER-AE-sized blocks (256 rows x 20,000 outputs, sensitivity 1;
   ratings uniform in [0, 1], and rows shaped like a model's softmax, on which the exact sampler
   takes its sparse path) at epsilon 10, 100 and 1e4: the old float inverse-CDF sampler (a private
   copy below: probabilities in float64, one uniform double per row) against
   :func:`authormask.mechanisms.exponential.sample_exponential` (exact integer proposals, exact
   acceptance). Prints rows/s of each and the ratio new/old.
2. The Laplace radius ``Gamma(n, 1/epsilon)`` for 100,000 words in 50 and 300 dimensions:
   numpy's ``Generator.gamma`` (capped) against
   :func:`authormask.mechanisms.laplace.sample_laplace_radius` (sum of unbounded exponentials),
   and, for scale, the direction sampler that the same mechanism runs on the same words.

Each timing is the best of ``--repeat`` runs (the machine may be shared).

    python benchmarks/exponential.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from authormask.mechanisms.exponential import sample_exponential
from authormask.mechanisms.laplace import sample_laplace_radius, sample_unit_directions


def old_float_sampler(
    ratings: NDArray[np.float64], epsilon: float, rng: np.random.Generator
) -> NDArray[np.int64]:
    """The sampler authormask used before (reference only: outputs below ~1e-16 unreachable)."""
    s = ratings * (epsilon / 2.0)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    probs = w / w.sum(axis=-1, keepdims=True)
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    idx = (cdf <= u[:, None]).sum(axis=1)
    return np.asarray(np.minimum(idx, probs.shape[1] - 1), dtype=np.int64)


def best_time(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def model_like_ratings(rows: int, k: int, seed: int = 0) -> NDArray[np.float64]:
    """Rows shaped like a language model's softmax (normal logits, sd 3): most outputs near 0."""
    logits = np.random.default_rng(seed).normal(0.0, 3.0, (rows, k))
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(p / p.sum(axis=1, keepdims=True))


def bench_exponential(repeat: int) -> None:
    rows, k = 256, 20_000
    cases = (
        ("ratings uniform in [0, 1] (the dense path)", np.random.default_rng(0).random((rows, k))),
        ("model-like softmax rows (the sparse path)", model_like_ratings(rows, k)),
    )
    for label, ratings in cases:
        print(f"\nexponential mechanism, {rows} rows x {k:,} outputs, {label}")
        _bench_rows(ratings, repeat)


def _bench_rows(ratings: NDArray[np.float64], repeat: int) -> None:
    rows = ratings.shape[0]
    for eps in (10.0, 100.0, 1e4):
        rng_old = np.random.default_rng(1)
        rng_new = np.random.default_rng(1)
        t_old = best_time(lambda: old_float_sampler(ratings, eps, rng_old), repeat)  # noqa: B023
        t_new = best_time(
            lambda: sample_exponential(ratings, epsilon=eps, sensitivity=1.0, random_state=rng_new),  # noqa: B023
            repeat,
        )
        old_rps, new_rps = rows / t_old, rows / t_new
        print(
            f"  eps={eps:<7g} old float {old_rps:9.0f} rows/s ({1e3 * t_old / rows:.3f} ms/row)"
            f" | exact {new_rps:9.0f} rows/s ({1e3 * t_new / rows:.3f} ms/row)"
            f" | new/old time {t_new / t_old:5.2f}"
        )


def bench_radius(repeat: int) -> None:
    size = 100_000
    print(f"\nLaplace radius Gamma(n, 1/eps), {size:,} words")
    for n in (50, 300):
        rng = np.random.default_rng(2)
        t_old = best_time(lambda: rng.gamma(float(n), 1.0, size=size), repeat)  # noqa: B023
        t_new = best_time(
            lambda: sample_laplace_radius(size, dimension=n, epsilon=1.0, random_state=rng),  # noqa: B023
            repeat,
        )
        t_dir = best_time(
            lambda: sample_unit_directions(size, dimension=n, random_state=rng),  # noqa: B023
            max(1, repeat // 2),
        )
        print(
            f"  n={n:<4d} numpy gamma {1e3 * t_old:7.1f} ms | exact sum of exponentials"
            f" {1e3 * t_new:7.1f} ms | new/old time {t_new / t_old:6.1f}"
            f" | (direction, unchanged: {1e3 * t_dir:7.1f} ms; radius+direction"
            f" {(t_new + t_dir) / (t_old + t_dir):4.2f}x before)"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    a = p.parse_args()
    bench_exponential(a.repeat)
    bench_radius(a.repeat)


if __name__ == "__main__":
    main()
