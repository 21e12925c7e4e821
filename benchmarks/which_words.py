"""Which 40% of a writer's content words may survive? (issue 29's goal, measured from below.)

Issue 29 asks for one point of a release where the strongest attacker is within 0.10 of a
uniform guess while *content recall* (the share of the original's content words the release
keeps, as a multiset) is at least 0.4. Whatever else a release does, a point with recall 0.4
shows the attacker 40% of the writer's own content words, exactly. This script asks how little
those words can say about the writer, at best: it keeps a chosen 40% or so of each text's
content words, **with no noise at all and nothing else in the text**, and attacks that.

Selections (each keeps the chosen tokens of a text in order):

* ``all``: every content word (recall 1).
* ``random``: each token kept with probability 0.4 (seeded): what noise that spares words at
  random would leave.
* ``nouns+names``: the tokens spaCy's tagger (``en_core_web_md``, in context) calls NOUN or
  PROPN: the topical class, which across fandoms should say least of a writer's habits.
* ``nouns``: NOUN only (below 0.4: shown for the names' part).
* ``lexicon``: the words of ``emp-write``'s public noun lexicon (by word, not in context:
  :mod:`authormask.models.lexicon`, over its default vocabulary): what ``emp-write`` releases
  by default, with the noise off.
* ``lexicon&context``: the lexicon's words where spaCy's tagger also calls them NOUN or PROPN
  (a rule by use: what a release would keep if the tagger ran on the input).
* ``lexicon-rare`` / ``lexicon-common``: the lexicon's words below GloVe rank 20,000 only
  (the rarest nouns, most of them a story's own, dropped), and without its 400 commonest words
  (``eyes``, ``hand``, ``room``...).
* ``lexicon-cap2``: the lexicon's words, each at most twice a text (a name repeated fifty times
  counts twice).
* ``rarest`` / ``commonest``: per text, the tokens of its words rarest (commonest) by the public
  GloVe frequency rank, until 40% of its tokens.
* ``oracle``: the 40% of tokens whose words are spread most evenly over the writers of the
  problem's unknown texts (the lowest chi-square dispersion, computed with the answers: no
  mechanism could choose so; a bound, not a design).

Attackers: typed character 3-grams with an SVM and with logistic regression (the attackers that
were strongest against emp-write), each trained both ways: on the known texts' content words
(noise-off) and on the same selection of the known texts (an attacker who knows the mechanism).
Each reads a selection as it stands and, in a second column, each word once (where it is first
used), as ``released-vocabulary`` reads a release: which words, not how often. The strongest of
the four is reported per problem (each way of reading), with the mean over all four problems, over
the tuning problems (2 and 4) and over the held-out ones (1 and 5), beside a uniform guess's
macro-F1 measured in the same run (the protocol's :func:`uniform_guess`). Shares are over spaCy's
tokens that the content-recall measure would count (alphabetic or numeric, not a stopword).

    python benchmarks/which_words.py [--collection ../shared/data/pan19-en] [--share 0.4]

Runs in about seven minutes (396 s) on the 2-core machine. Results: docs/emp-write.md.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from authormask.datasets.pan import read_pan_collection
from authormask.embeddings.registry import load_embeddings
from authormask.evaluation.measures.attackers.typed import TypedNgramAttacker
from authormask.evaluation.metrics import pan_macro_f1
from authormask.evaluation.protocols.pan.runner import uniform_guess
from authormask.evaluation.releases import with_defaults
from authormask.evaluation.study import Item
from authormask.mechanisms.written import all_function_words
from authormask.models.lexicon import load_noun_lexicon
from authormask.text.pipeline import load_pipeline
from authormask.text.stopwords import load_stopwords

TUNE = ("problem00002", "problem00004")
Tagged = list[tuple[str, str]]  # (lower-cased word, POS)


def tag(nlp: object, text: str, stop: frozenset[str]) -> Tagged:
    doc = nlp(text)  # type: ignore[operator]
    return [
        (t.text.lower(), t.pos_)
        for t in doc
        if (t.is_alpha or t.like_num) and t.text.lower() not in stop
    ]


def by_rank(tokens: Tagged, rank: Callable[[str], int], share: float, rare: bool) -> list[str]:
    order = sorted(range(len(tokens)), key=lambda i: rank(tokens[i][0]), reverse=rare)
    keep = set(order[: round(share * len(tokens))])
    return [w for i, (w, _) in enumerate(tokens) if i in keep]


def capped(tokens: Tagged, words: frozenset[str] | set[str], most: int) -> list[str]:
    seen: Counter[str] = Counter()
    out = []
    for w, _ in tokens:
        if w in words:
            seen[w] += 1
            if seen[w] <= most:
                out.append(w)
    return out


def read(words: Sequence[str], once: bool) -> str:
    """What an attacker reads of a selection: its words in order, or each word once (where it is
    first used), as ``released-vocabulary`` reads a release."""
    return " ".join(dict.fromkeys(words) if once else words)


def dispersion(docs: Sequence[tuple[Tagged, str]]) -> dict[str, float]:
    """Each word's chi-square over writers (expected counts by each writer's token total), per
    occurrence: low for a word every writer uses at the same rate."""
    total: Counter[str] = Counter()
    count: dict[str, Counter[str]] = defaultdict(Counter)
    for tokens, author in docs:
        total[author] += len(tokens)
        for w, _ in tokens:
            count[w][author] += 1
    n = sum(total.values())
    out = {}
    for w, per in count.items():
        cw = sum(per.values())
        out[w] = sum((per[a] - cw * total[a] / n) ** 2 / (cw * total[a] / n) for a in total) / cw
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", default="../shared/data/pan19-en")
    ap.add_argument("--share", type=float, default=0.4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    nlp = load_pipeline(exclude=["ner", "parser", "lemmatizer", "senter"], purpose="tagging")
    stop = load_stopwords(None)[0]
    emb = load_embeddings("glove-6b-50d")

    def rank(w: str) -> int:
        return emb.index_of(w) if w in emb else len(emb)

    vocabulary = emb.restrict(with_defaults("emp-write", {})["vocab_size"])
    lexicon = load_noun_lexicon(vocabulary, all_function_words(stop)).nouns
    common = set(sorted(lexicon, key=rank)[:400])
    coll = read_pan_collection(args.collection)
    chance = uniform_guess(coll, seed=args.seed)["per_problem"]
    share = args.share
    rng = random.Random(args.seed)
    selections: dict[str, Callable[[Tagged], list[str]]] = {
        "all": lambda ts: [w for w, _ in ts],
        "random": lambda ts: [w for w, _ in ts if rng.random() < share],
        "nouns+names": lambda ts: [w for w, p in ts if p in ("NOUN", "PROPN")],
        "nouns": lambda ts: [w for w, p in ts if p == "NOUN"],
        "lexicon": lambda ts: [w for w, _ in ts if w in lexicon],
        "lexicon&context": lambda ts: [w for w, p in ts if w in lexicon and p in ("NOUN", "PROPN")],
        "lexicon-rare": lambda ts: [w for w, _ in ts if w in lexicon and rank(w) < 20_000],
        "lexicon-common": lambda ts: [w for w, _ in ts if w in lexicon and w not in common],
        "lexicon-cap2": lambda ts: capped(ts, lexicon, 2),
        "rarest": lambda ts: by_rank(ts, rank, share, rare=True),
        "commonest": lambda ts: by_rank(ts, rank, share, rare=False),
    }
    rows: dict[str, dict[str, tuple[float, float]]] = defaultdict(dict)
    for p in coll.problems:
        known = [tag(nlp, t.text, stop) for t in p.known]
        authors = [t.author for t in p.known]
        unknown = [(tag(nlp, t.text, stop), t.author) for t in p.unknown if t.author]
        spread = dispersion(unknown)
        ucount = Counter(w for ts, _ in unknown for w, _ in ts)
        total = sum(ucount.values())
        keep: set[str] = set()
        got = 0
        for w in sorted(ucount, key=lambda w: spread[w]):
            if got >= share * total:
                break
            keep.add(w)
            got += ucount[w]
        sel = dict(selections)
        sel["oracle"] = lambda ts, keep=keep: [w for w, _ in ts if w in keep]  # type: ignore[misc]
        names = [t.name for t in p.unknown if t.author]
        for name, pick in sel.items():
            shown = [pick(ts) for ts, _ in unknown]
            kept = sum(len(s) for s in shown) / total
            trained = {
                "noise-off": [[w for w, _ in ts] for ts in known],
                "adaptive": [pick(ts) for ts in known],
            }
            best = [0.0, 0.0]  # each word as often as it stands; each word once
            for words in trained.values():
                for once in (False, True):
                    for kind in ("svm", "lr"):
                        att = TypedNgramAttacker(classifier=kind, random_state=args.seed)
                        att.fit(
                            [Item(f"k{i}", read(s, once), ()) for i, s in enumerate(words)],
                            authors,
                        )
                        got_labels = att.predict(
                            [Item(n, read(s, once), ()) for n, s in zip(names, shown, strict=True)]
                        )
                        labels = list(got_labels.labels)
                        f1 = pan_macro_f1(
                            p.truth, dict(zip(names, labels, strict=True)), p.candidates
                        ).macro_f1
                        best[once] = max(best[once], f1)
            rows[name][p.name] = (best[0], kept, best[1])
            print(
                f"{p.name} {name:12s} share {kept:.3f} strongest {best[0]:.3f} "
                f"each word once {best[1]:.3f}",
                flush=True,
            )

    def mean(name: str, group: Sequence[str], i: int) -> float:
        return sum(rows[name][g][i] for g in group) / len(group)

    problems = [p.name for p in coll.problems]
    held = [g for g in problems if g not in TUNE]
    tune = [g for g in problems if g in TUNE]
    print()
    print(
        "| selection | share of content words | strongest, all problems | tuning | held out "
        "| each word once: all | tuning | held out |"
    )
    print("|---|---|---|---|---|---|---|---|")
    line = [sum(chance[g] for g in grp) / len(grp) for grp in (problems, tune, held)]
    print(
        "| uniform guess (the goal's line: +0.10) | | "
        + " | ".join(f"{x:.3f}" for x in line)
        + " | | | |"
    )
    for name in rows:
        print(
            f"| {name} | {mean(name, problems, 1):.2f} | "
            + " | ".join(f"{mean(name, g, i):.3f}" for i in (0, 2) for g in (problems, tune, held))
            + " |"
        )
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
