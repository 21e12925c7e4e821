"""How much meaning may survive? (issue 46's goal, measured from below.)

Issue 46 asks for one point of a release where, on the held-out ``pan19-en`` problems, the
strongest attacker is within 0.10 of a uniform guess while the release's MiniLM vector keeps a
similarity to its entity-stepped original of at least the floor + 0.15 (the floor: two different
stories of a problem) and finds its own original among the problem's (retrieval >= 0.8). Both
utility bars are read off one vector per text: the similarity is the cosine between the release's
MiniLM vector and its original's, retrieval asks whether that original is the nearest. So a
release that meets them hands an attacker a MiniLM vector within that cosine of the writer's
own. This script asks how little such a vector can say about the writer, at best: it writes no
text at all. It takes each text's vector ``v`` (the texts as the default entity step gives them to
the mechanism, with its surrogates: :func:`~authormask.evaluation.stepped.entity_stepped_texts`)
and draws an **ideal release** at similarity exactly ``s``::

    r = s * v + sqrt(1 - s^2) * u,   u a unit vector orthogonal to v, drawn at random

Noise (the direction ``u``), drawn afresh for every text and repetition:

* ``text-shaped``: ``u`` from a Gaussian with the covariance of *other* problems' text vectors
  (cross-fitted: never the problem's own texts), its part along ``v`` removed: the release moves
  the way texts differ from each other, which is where a release that is a text must move, and
  spreads its change over what separates writers as much as over anything else;
* ``writer-aimed``: ``u`` from a Gaussian with the covariance of the *writers' means* in other
  problems (each candidate's mean known vector less its problem's mean): the change goes where
  writers differ from each other, as far as public text can show a mechanism where that is (a
  design a mechanism could use: it needs no answer of the problem it releases);
* ``isotropic``: ``u`` uniform on the sphere (orthogonal to ``v``): most of it points where no
  text lies, which no release that is a text can do (shown for contrast).

Attackers that read only the vector, trained both ways (on the known texts' vectors, and on the
known texts' ideal releases at the same ``s`` and noise: an attacker who knows the mechanism):
nearest centroid (cosine to each candidate's mean known vector) and logistic regression
(scikit-learn, ``C`` 10, on the unit vectors). The strongest is the attacker with the highest
macro-F1 averaged over the problems of a group (the protocol's rule), over ``--repeats`` draws.

Printed per ``s`` and noise: the strongest attacker on all four problems, the tuning ones (2 and
4) and the held-out ones (1 and 5), the retrieval of the ideal releases (the own original is the
nearest of the problem's unknown originals), and the floor and the bars measured here. A
release whose vector keeps similarity ``s`` and whose difference looks like a text's gives a
reader of its meaning at least the ``text-shaped`` row's score, unless its change is aimed, with
knowledge of who wrote what, at what separates the writers (which no mechanism can know).

    python benchmarks/meaning_limit.py [--collection ../shared/data/pan19-en]
        [--mechanism emp-sentence] [--epsilon 6] [--repeats 5] [--vectors FILE.npz]

``--vectors`` keeps the MiniLM vectors (read if the file exists, else written) so a second
run skips the entity step and the encoder. Runs in about 26 minutes on the 2-core machine (1,556
s), nearly all of it the entity step and the encoder; 34 s from saved vectors. Results:
docs/emp-sentence.md ("How much meaning may survive").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

from authormask.datasets.pan import PanProblem, read_pan_collection
from authormask.evaluation.measures.utilities.similarity import SentenceSimilarity
from authormask.evaluation.metrics import pan_macro_f1
from authormask.evaluation.protocols.pan.runner import uniform_guess
from authormask.evaluation.releases import build_mechanism, mechanism_parameters
from authormask.evaluation.stepped import entity_stepped_texts

TUNE = ("problem00002", "problem00004")
GRID = (1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6)


def vectors_of(
    problems: Sequence[PanProblem], mechanism: str, epsilon: float, seed: int, path: str | None
) -> dict[str, np.ndarray]:
    """Each problem's MiniLM vectors of its known then its unknown texts, entity-stepped."""
    if path and Path(path).exists():
        with np.load(path) as saved:
            return {p.name: saved[p.name] for p in problems}
    sim = SentenceSimilarity()
    out = {}
    for p in problems:
        texts = [t.text for t in p.known] + [t.text for t in p.unknown]
        made = build_mechanism(mechanism, mechanism_parameters(mechanism, epsilon))
        stepped = entity_stepped_texts(texts, made, random_state=seed)
        out[p.name] = sim.embed(stepped)
        print(f"{p.name}: {len(texts)} texts stepped and encoded", flush=True)
    if path:
        np.savez(path, **out)  # type: ignore[arg-type]
    return out


def ideal(
    v: np.ndarray, s: float, noise: str, cov_root: np.ndarray | None, rng: np.random.Generator
) -> np.ndarray:
    """Rows at cosine exactly ``s`` to the unit rows of ``v`` (module docstring)."""
    if s >= 1.0:
        return v.copy()
    if cov_root is None:
        g = rng.standard_normal(v.shape)
    else:
        g = rng.standard_normal((v.shape[0], cov_root.shape[0])) @ cov_root
    g -= np.sum(g * v, axis=1, keepdims=True) * v
    u = g / np.linalg.norm(g, axis=1, keepdims=True)
    return np.asarray(s * v + np.sqrt(1.0 - s * s) * u)


def attack(
    train: np.ndarray, authors: Sequence[str], test: np.ndarray, kind: str, seed: int
) -> list[str]:
    names = sorted(set(authors))
    if kind == "centroid":
        cents = np.stack([train[[a == n for a in authors]].mean(axis=0) for n in names])
        cents /= np.linalg.norm(cents, axis=1, keepdims=True)
        return [names[i] for i in np.argmax(test @ cents.T, axis=1)]
    clf = LogisticRegression(C=10.0, max_iter=2000, random_state=seed)
    clf.fit(train, list(authors))
    return [str(x) for x in clf.predict(test)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/pan19-en")
    ap.add_argument("--mechanism", default="emp-sentence")
    ap.add_argument("--epsilon", type=float, default=6.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--vectors", default=None)
    ap.add_argument("--grid", type=float, nargs="*", default=list(GRID))
    args = ap.parse_args()
    start = time.perf_counter()
    coll = read_pan_collection(args.collection)
    problems = list(coll.problems)
    chance = uniform_guess(coll, seed=args.seed)["per_problem"]
    vecs = vectors_of(problems, args.mechanism, args.epsilon, args.seed, args.vectors)
    names = [p.name for p in problems]
    groups = {
        "all": names,
        "tuning": [n for n in names if n in TUNE],
        "held out": [n for n in names if n not in TUNE],
    }
    floor = {}
    for p in problems:
        u = vecs[p.name][len(p.known) :]
        c = u @ u.T
        floor[p.name] = float(c[np.triu_indices(len(u), k=1)].mean())
    means = {}
    for q in problems:
        k = len(q.known)
        authors = [t.author for t in q.known]
        centre = vecs[q.name][:k].mean(axis=0)
        means[q.name] = np.stack(
            [
                vecs[q.name][:k][[a == c for a in authors]].mean(axis=0) - centre
                for c in sorted(set(authors))
            ]
        )
    roots: dict[str, dict[str, np.ndarray]] = {"text-shaped": {}, "writer-aimed": {}}
    for p in problems:
        pool = np.concatenate([vecs[q] for q in names if q != p.name])
        spread = np.concatenate([means[q] for q in names if q != p.name])
        for noise, cov in (
            ("text-shaped", np.cov(pool, rowvar=False)),
            ("writer-aimed", spread.T @ spread / len(spread)),
        ):
            w, e = np.linalg.eigh(cov)
            roots[noise][p.name] = (e * np.sqrt(np.clip(w, 0.0, None))).T
    print(
        "\nfloor (two different stepped stories of a problem): "
        + ", ".join(f"{n} {floor[n]:.3f}" for n in names)
    )
    for g, ns in groups.items():
        fl = np.mean([floor[n] for n in ns])
        ch = np.mean([chance[n] for n in ns])
        print(f"  {g}: floor {fl:.3f}, similarity bar {fl + 0.15:.3f}; attacker bar {ch + 0.1:.3f}")
    print(
        "\n| noise | similarity s | strongest attacker: all | tuning | held out "
        "| its kind | retrieval (stepped) |"
    )
    print("|---|---|---|---|---|---|---|")
    attackers = [
        (kind, way) for kind in ("centroid", "logistic") for way in ("noise-off", "adaptive")
    ]
    for noise in ("text-shaped", "writer-aimed", "isotropic"):
        for s in args.grid:
            if noise != "text-shaped" and s >= 1.0:
                continue
            score: dict[tuple[str, str], dict[str, list[float]]] = {
                a: {n: [] for n in names} for a in attackers
            }
            hits = []
            for rep in range(args.repeats if s < 1.0 else 1):
                for p in problems:
                    rng = np.random.default_rng([args.seed, rep, names.index(p.name)])
                    v = vecs[p.name]
                    k = len(p.known)
                    r = ideal(v, s, noise, roots.get(noise, {}).get(p.name), rng)
                    unk = r[k:]
                    sims = unk @ v[k:].T
                    hits.extend(np.argmax(sims, axis=1) == np.arange(len(unk)))
                    answered = [i for i, t in enumerate(p.unknown) if t.author]
                    authors = [t.author for t in p.known]
                    for kind, way in attackers:
                        train = v[:k] if way == "noise-off" else r[:k]
                        guess = attack(train, authors, unk[answered], kind, args.seed)
                        pred = {p.unknown[i].name: g for i, g in zip(answered, guess, strict=True)}
                        score[(kind, way)][p.name].append(
                            pan_macro_f1(p.truth, pred, p.candidates).macro_f1
                        )
            row = []
            for ns in groups.values():
                f1 = {a: float(np.mean([np.mean(score[a][n]) for n in ns])) for a in attackers}
                best = max(f1, key=lambda a: f1[a])
                row.append((f1[best], best))
            print(
                f"| {noise} | {s:.2f} | "
                + " | ".join(f"{m:.3f}" for m, _ in row)
                + f" | {row[2][1][0]}, {row[2][1][1]} | {np.mean(hits):.2f} |",
                flush=True,
            )
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
