"""Benchmark: the full Reuters C50 sweep of issue 3, and the reference numbers it is read against.

Prints, in one run:

1. the clean document-level accuracy of the PAN 2018 SVM on the standard C50 protocol
   (2,500 training stories -> 2,500 test stories), the figure comparable with published results;
2. the 1-NN Earth Mover's attacker, pruned and threaded, against the reference (every distance,
   one thread) on the unmodified C50 snippets: same predictions, time ratio;
3. the wall time of the full sweep (none + epsilon 30, 25, 20, 15, 10; Koppel cosine, Koppel
   min-max, SVM and 1-NN attackers; the emp-bag and emp-text mechanisms, run through the
   release layer; one seed) against the 15-minute budget.

Usage: python benchmarks/evaluate_c50.py [--dataset-path ../shared/data/reuters-c50] [--skip-sweep]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from authormask.datasets import load_reuters_c50
from authormask.embeddings import load_embeddings
from authormask.evaluation import Item, SweepConfig, build_author_study, run_sweep
from authormask.evaluation.measures.attackers import (
    NearestNeighbourClassifier,
    SVMAttacker,
    bag_distances,
)
from authormask.text import TextPreparer

BUDGET_S = 15 * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset-path", default=None)
    parser.add_argument("--skip-sweep", action="store_true")
    args = parser.parse_args()

    corpus = load_reuters_c50(args.dataset_path)
    emb = load_embeddings("glove-6b-50d", vocab_size=100_000)
    preparer = TextPreparer(emb)

    # 1. standard protocol, clean
    train = corpus.select(split="train")
    test = corpus.select(split="test")
    t0 = time.perf_counter()
    svm = SVMAttacker(random_state=0).fit(
        [Item(d.doc_id, d.text, ()) for d in train], [str(d.author) for d in train]
    )
    preds = svm.predict([Item(d.doc_id, d.text, ()) for d in test])
    correct = preds.correct([d.author for d in test])
    print(
        f"standard C50 protocol, PAN18 SVM (char 3-grams): {correct}/{len(test)} = "
        f"{correct / len(test):.1%} ({time.perf_counter() - t0:.0f} s)"
    )

    # 2. 1-NN: pruned + threaded vs every distance on one thread
    study = build_author_study(corpus, preparer)
    labels = [str(i.author) for i in study.known]
    t0 = time.perf_counter()
    full = bag_distances([q.words for q in study.queries], [k.words for k in study.known], emb)
    ref_labels = [labels[int(np.argmin(row))] for row in full]
    t_ref = time.perf_counter() - t0
    t0 = time.perf_counter()
    fast = NearestNeighbourClassifier(emb, k=1).fit(study.known, labels).predict(study.queries)
    t_fast = time.perf_counter() - t0
    same = list(fast.labels) == ref_labels
    print(
        f"1-NN EMD on {len(study.queries)} snippets x {len(study.known)} texts (N="
        f"{study.length}): reference {t_ref:.1f} s, pruned+2 threads {t_fast:.1f} s, "
        f"ratio {t_ref / t_fast:.2f}x, identical predictions: {same}"
    )

    if args.skip_sweep:
        return
    # 3. the full sweep
    config = SweepConfig(
        epsilons=(None, 30.0, 25.0, 20.0, 15.0, 10.0),
        mechanisms=("emp-bag", "emp-text"),
        attackers=("koppel-cosine", "koppel-minmax", "svm", "1nn-emd"),
        utilities=(),
        seed=0,
    )
    t0 = time.perf_counter()
    result = run_sweep(study, embeddings=emb, preparer=preparer, config=config)
    took = time.perf_counter() - t0
    print(
        f"full C50 sweep ({len(result.cells)} cells, no cache): {took:.0f} s = "
        f"{took / BUDGET_S:.2f} of the 15-minute budget"
    )


if __name__ == "__main__":
    main()
