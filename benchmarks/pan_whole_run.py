"""The whole ``pan19-en`` run of issue 46, timed: every text-writing release, 8 points each.

Runs the PAN protocol on a PAN 2019 collection (default ``../shared/data/pan19-en``, every
problem) as the user releases (default entities: surrogates), with the sixteen default
attackers and every utility, for

* ``emp-sentence`` at ``none`` and seven epsilons,
* ``emp-write`` at ``none`` and seven epsilons (the README's row),
* ``random-sub`` at eight rates (the baseline without a guarantee),
* ``erae`` at eight epsilons (its ``none`` row is its release at epsilon 1e12), with the model
  folder ``--erae-model`` (``authormask train erae``; without one erae is left out and said so).

It prints the seconds of the whole run beside the 60-minute budget (``budget ratio``: run
seconds / 3600, at most 1 meets it) and the seconds each part took (summed over the workers:
releases with the first attacker of each row, the other attackers, utilities, floors), writes
the reports to ``--output`` and leaves the resume cache there (a rerun is a resume: delete the
folder for a cold run).

    python benchmarks/pan_whole_run.py --output /tmp/pan-whole --erae-model /tmp/models/erae-prose
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

from authormask.core.executors import Engine
from authormask.datasets.pan import read_pan_collection
from authormask.embeddings.registry import load_embeddings
from authormask.evaluation.protocols._common import VOCAB_SIZE
from authormask.evaluation.protocols.pan import PanConfig, run_pan
from authormask.evaluation.reports.pan import write_pan_reports

POINTS: dict[str, tuple[float | None, ...]] = {
    "emp-sentence": (None, 12.5, 10.0, 8.4, 7.0, 6.0, 5.0, 4.0),
    "emp-write": (None, 16.0, 14.0, 12.5, 11.0, 9.5, 8.4, 7.0),
    "erae": (None, 300.0, 100.0, 50.0, 30.0, 20.0, 15.0, 10.0),
}
RATES = (0.0, 0.05, 0.1, 0.15, 0.25, 0.5, 0.75, 1.0)
BUDGET_S = 3600.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/pan19-en")
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--erae-model", default=None, help="an erae model folder")
    ap.add_argument("--workers", type=int, default=2, help="Dask workers (0: this process)")
    ap.add_argument(
        "--mechanisms",
        default="emp-sentence,emp-write,random-sub,erae",
        help="comma-separated, a subset of the default",
    )
    ap.add_argument(
        "--points",
        action="append",
        default=[],
        help="MECHANISM=none,7,...: its points instead of the default (repeatable; random-sub: "
        "its rates)",
    )
    args = ap.parse_args()
    mechanisms = [m for m in args.mechanisms.split(",") if m]
    points = dict(POINTS)
    rates = RATES
    for given in args.points:
        name, _, values = given.partition("=")
        parsed = tuple(None if v == "none" else float(v) for v in values.split(","))
        if name == "random-sub":
            rates = tuple(float(v) for v in parsed if v is not None)
        else:
            points[name] = parsed
    if "erae" in mechanisms and args.erae_model is None:
        print("no --erae-model: erae left out of the run")
        mechanisms.remove("erae")
    config = PanConfig(
        mechanisms=tuple(mechanisms),
        epsilons=points["emp-write"],
        rates=rates,
        mechanism_epsilons={m: points[m] for m in mechanisms if m in points},
    )
    engine = Engine("dask", workers=args.workers) if args.workers else None
    start = time.perf_counter()
    result = run_pan(
        read_pan_collection(args.collection),
        config=config,
        embeddings=load_embeddings("glove-6b-50d", vocab_size=VOCAB_SIZE),
        cache_dir=args.output / "cache",
        engine=engine,
        erae_model=args.erae_model,
    )
    seconds = time.perf_counter() - start
    write_pan_reports(result, args.output, force=True)
    parts: collections.Counter[str] = collections.Counter()
    first: set[tuple[str, str, object]] = set()
    for c in result.cells:
        row = (c.problem, c.mechanism, c.epsilon)
        parts["releases + first attacker" if row not in first else "attackers"] += c.seconds
        first.add(row)
    parts["utilities"] = sum(u.seconds for u in result.utilities)
    parts["floors"] = sum(f.seconds for f in result.floors)
    rows = sum(len(config.points(m)) for m in mechanisms)
    problems = len(result.collection.get("problems", ()))
    print(f"mechanisms: {', '.join(mechanisms)}; {rows} rows x {problems} problems")
    for name, s in parts.items():
        print(f"  {name:28s} {s:8.0f} s (summed over workers)")
    print(f"whole run: {seconds:.0f} s; budget ratio {seconds / BUDGET_S:.2f} (<= 1 meets 60 min)")


if __name__ == "__main__":
    main()
