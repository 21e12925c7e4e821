"""emp-sentence against emp-write, as the user releases (default entities), on a PAN problem.

For ``--texts`` unknown texts of one problem (default: problem00002, a tuning problem of
``pan19-en``), releases each text with emp-sentence and with emp-write (the reference, in the
same run) at each epsilon (``none``: the noise-off form) and prints per row: MiniLM similarity
to the raw original (the mean cosine of two different originals of the problem, the *floor*,
beside it), retrieval (the release's MiniLM-nearest original among all the problem's unknown
texts is its own), both again against the *entity-stepped* original (the original with the
surrogates the release drew: what the mechanism was given; the pool's other texts as read),
the share of output sentences with a finite verb (spaCy's tagger: a token
tagged VBD, VBP, VBZ or MD) beside the originals', release seconds, and the first 400
characters of one release. No attacker runs here: the PAN protocol (``authormask evaluate
--protocol pan``) measures them.

    python benchmarks/emp_sentence.py --collection ../shared/data/pan19-en \\
        --problem problem00002 --texts 40 --epsilons none,12.5,7
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from authormask.core import create_mechanism, release
from authormask.core.registry import create_noise_off
from authormask.embeddings.registry import load_embeddings
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.stepped import entity_stepped_texts
from authormask.text.pipeline import load_pipeline
from authormask.text.sentences import split_sentences

FINITE = {"VBD", "VBP", "VBZ", "MD"}


def finite_share(texts: list[str], nlp: object) -> float:
    sentences = [s for t in texts for s in split_sentences(" ".join(t.split()))]
    docs = nlp.pipe(sentences, batch_size=256)  # type: ignore[attr-defined]
    flags = [any(t.tag_ in FINITE for t in d) for d in docs]
    return float(np.mean(flags)) if flags else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/pan19-en")
    ap.add_argument("--problem", default="problem00002")
    ap.add_argument("--texts", type=int, default=40)
    ap.add_argument("--epsilons", default="none,12.5,7")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--mechanisms", default="emp-write,emp-sentence", help="comma-separated registry names"
    )
    ap.add_argument(
        "--param",
        action="append",
        default=[],
        help="NAME=VALUE for emp-sentence (a number), e.g. name_weight=1.5; repeatable",
    )
    args = ap.parse_args()

    files = sorted((Path(args.collection) / args.problem / "unknown").glob("*.txt"))
    pool = [f.read_text(encoding="utf-8") for f in files]
    originals = pool[: args.texts]
    emb = load_embeddings("glove-6b-50d")
    sim = SentenceSimilarity()
    pv = sim.embed(pool)
    off_diagonal = ~np.eye(len(pool), dtype=bool)
    floor = float((pv @ pv.T)[off_diagonal].mean())
    nlp = load_pipeline(exclude=["parser", "ner", "lemmatizer"], purpose="the benchmark")
    print(
        f"{args.problem}: {len(originals)} texts, pool {len(pool)}; similarity floor "
        f"{floor:.3f}; originals' finite-verb share {finite_share(originals, nlp):.2f}"
    )
    extra = {k: float(v) for k, v in (p.split("=", 1) for p in args.param)}
    print(
        "mechanism     epsilon  similarity  retrieval  sim-stepped  retr-stepped  finite-verb  "
        "seconds"
    )
    for eps_text in args.epsilons.split(","):
        eps = None if eps_text == "none" else float(eps_text)
        for name in args.mechanisms.split(","):
            params = {"embeddings": emb, **(extra if name == "emp-sentence" else {})}
            mech = (
                create_noise_off(name, **params)
                if eps is None
                else create_mechanism(name, epsilon=eps, **params)
            )
            t0 = time.perf_counter()
            out = release(originals, mech, random_state=args.seed).texts
            seconds = time.perf_counter() - t0
            rv = sim.embed(out)
            s = float((rv * pv[: len(out)]).sum(axis=1).mean())
            hits = float(((rv @ pv.T).argmax(axis=1) == np.arange(len(out))).mean())
            stepped = entity_stepped_texts(originals, mech, random_state=args.seed)
            sv = sim.embed(stepped)
            s_step = float((rv * sv).sum(axis=1).mean())
            mixed = np.concatenate([sv, pv[len(out) :]])
            hits_step = float(((rv @ mixed.T).argmax(axis=1) == np.arange(len(out))).mean())
            print(
                f"{name:13} {eps_text:>7}  {s:10.3f}  {hits:9.2f}  {s_step:11.3f}  "
                f"{hits_step:12.2f}  {finite_share(out, nlp):11.2f}  {seconds:7.1f}",
                flush=True,
            )
            print(f"    {out[0][:400]!r}", flush=True)


if __name__ == "__main__":
    main()
