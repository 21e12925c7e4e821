"""What the entity step alone leaves of a fan-fiction text's fandom (issue 46's "topic holds").

For every problem of a PAN collection with ``fandom-info.json``, the fandom classifiers of the
PAN protocol's ``topic-holds`` measure (per candidate a linear SVM on the names of the other
candidates' original known texts, :mod:`authormask.evaluation.measures.utilities.topic`) read
the original known texts (the reference) and the same texts *entity-stepped* as a user's
release steps them (``entities="surrogate"``, the default: every recognised name, place,
number and link replaced by a random surrogate before any mechanism runs; no mechanism noise).
A release can keep of the fandom at most what survives this step, whatever the mechanism::

    python benchmarks/topic_after_entities.py --collection ../shared/data/pan19-en
"""

from __future__ import annotations

import argparse

from authormask.core import create_mechanism
from authormask.datasets.pan import read_pan_collection
from authormask.evaluation.measures.utilities.topic import read_fandoms, topic_holds
from authormask.evaluation.stepped import entity_stepped_texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/pan19-en")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    collection = read_pan_collection(args.collection)
    # the entity step is the same for every mechanism behind it: emp-write's is used here
    mech = create_mechanism("emp-write", epsilon=7.0)
    totals = [0, 0, 0]  # originals right, stepped right, scorable
    print("problem        originals   entity-stepped")
    for problem in collection.problems:
        fandoms = read_fandoms(problem.source)
        if fandoms is None:
            continue
        authors = [t.author for t in problem.known]
        originals = [t.text for t in problem.known]
        labels = [fandoms[(t.author, t.name)] for t in problem.known]
        stepped = entity_stepped_texts(originals, mech, random_state=args.seed)
        ref = topic_holds(authors, originals, originals, labels)
        out = topic_holds(authors, originals, stepped, labels)
        totals[0] += ref.correct
        totals[1] += out.correct
        totals[2] += ref.scorable
        print(
            f"{problem.name}   {ref.correct:3d}/{ref.scorable:<3d}      "
            f"{out.correct:3d}/{out.scorable}",
            flush=True,
        )
    right, stepped_right, scorable = totals
    if scorable:
        print(
            f"all            {right:3d}/{scorable:<3d}      {stepped_right:3d}/{scorable}  "
            f"(stepped / originals = {stepped_right / max(right, 1):.2f})"
        )


if __name__ == "__main__":
    main()
