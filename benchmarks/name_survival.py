"""Name survival (issue 30, D): how many of an original's names a release still shows, with the
entities kept and with them replaced by surrogates, for emp-text (epsilon 10), emp-doc (8) and
emp-write (7).

Two corpora: a sample of ``pan19-en`` fan fiction (``../shared/data/pan19-en`` beside the
repository, read in place: the first ``--pan`` known texts in path order, spread over the four
problems) and the sixteen short e-mails of ``benchmarks/data/emails.json`` (names, numbers,
dates, addresses and phone numbers; released ``--runs`` times with different seeds).

Name survival (:func:`authormask.evaluation.measures.utilities.names.name_survival`) is the
share of the original's named-entity occurrences (people, places, organisations, by the
recogniser that replaces them) whose words stand in the release. Beside it, for reference, the
share of the original's other content words the release keeps (content recall over the words
that are not in a name), and on the e-mails the survival of the pattern entities (numbers,
dates, e-mail addresses, URLs, phone numbers). Under ``surrogate`` no recognised entity reaches
the mechanism: the first rows (``given to the mechanism``: emp-text with its noise off and
unknown words kept, the text every mechanism is given) count what is left by chance (a surrogate
drawn equal to the name, a one-digit number drawn equal, a name that is also a common word
standing in lower case elsewhere); the rest is the noise writing a name back.

    python benchmarks/name_survival.py [--pan 60] [--runs 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from authormask.core import create_mechanism, release
from authormask.core.registry import create_noise_off
from authormask.embeddings import load_embeddings
from authormask.evaluation.measures.utilities.content import content_words
from authormask.evaluation.measures.utilities.names import name_survival
from authormask.text.entities import NAMED_KINDS, PATTERN_KINDS, load_recogniser, mask_entities

ROOT = Path(__file__).resolve().parents[1]
PAN = ROOT.parent / "shared" / "data" / "pan19-en"
EMAILS = ROOT / "benchmarks" / "data" / "emails.json"
CONFIGS = (("emp-text", 10.0), ("emp-doc", 8.0), ("emp-write", 7.0))
MODES = ("keep", "surrogate")


def pan_sample(n: int) -> list[str]:
    """The first ``n`` known texts of pan19-en, taken in turn from each problem."""
    problems = sorted(PAN.glob("problem*"))
    if not problems:
        raise SystemExit(f"pan19-en is not at {PAN}")
    per = [sorted(p.glob("candidate*/known*.txt")) for p in problems]
    out: list[str] = []
    for i in range(max(len(x) for x in per)):
        for paths in per:
            if i < len(paths) and len(out) < n:
                out.append(paths[i].read_text(encoding="utf-8"))
    return out


def other_words_kept(originals: list[str], releases: list[str]) -> float:
    """The share of the originals' content words outside any entity that the releases keep (as
    a multiset, lower-cased), for comparison with the names."""
    recogniser = load_recogniser()
    wanted = kept = 0
    for original, released, entities in zip(
        originals, releases, recogniser.find_all(originals), strict=True
    ):
        words = Counter(content_words(mask_entities(original, entities)))
        for label in ("person", "place", "organisation", "email", "url", "phone", "date"):
            words.pop(label, None)
        words.pop("number", None)
        out = Counter(content_words(released))
        wanted += sum(words.values())
        kept += sum(min(c, out[w]) for w, c in words.items())
    return kept / wanted if wanted else 0.0


def row(label: str, originals: list[str], releases: list[str], kinds: tuple[str, ...]) -> str:
    result = name_survival(originals, releases, kinds=kinds)
    parts = [f"{label:<24} {result.share:6.1%} ({result.survived}/{result.found})"]
    for kind, (found, survived) in result.by_kind.items():
        if found:
            parts.append(f"{kind} {survived / found:.0%} of {found}")
    return "  ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pan", type=int, default=60, help="pan19-en texts (default 60)")
    parser.add_argument("--runs", type=int, default=3, help="releases of the e-mails (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    emb = load_embeddings("glove-6b-50d")
    pan = pan_sample(args.pan)
    emails = json.loads(EMAILS.read_text(encoding="utf-8"))["texts"]
    print(
        f"pan19-en: {len(pan)} known texts ({sum(len(t.split()) for t in pan)} words); "
        f"e-mails: {len(emails)} x {args.runs} runs; glove-6b-50d, 100k words; seed {args.seed}"
    )
    print("name survival: share of the original's named-entity occurrences found in the release")
    # what a mechanism is given: emp-text with its noise off and unknown words kept
    given = create_noise_off("emp-text", embeddings=emb, oov="keep", entities="surrogate")
    runs_in = [t for _ in range(args.runs) for t in emails]
    runs_out = [
        t
        for r in range(args.runs)
        for t in release(emails, given, random_state=args.seed + 1000 + r).texts
    ]
    label = "given to the mechanism"
    print(row(f"{label} pan", pan, release(pan, given, random_state=args.seed).texts, NAMED_KINDS))
    print(row(f"{label} e-mail", runs_in, runs_out, NAMED_KINDS))
    print(row(f"{'':<17}patterns", runs_in, runs_out, PATTERN_KINDS))
    for name, epsilon in CONFIGS:
        for mode in MODES:
            start = time.perf_counter()
            mech = create_mechanism(name, epsilon=epsilon, embeddings=emb, entities=mode)
            label = f"{name} eps {epsilon:g} {mode}"
            pan_out = release(pan, mech, random_state=args.seed).texts
            print(row(f"{label} pan", pan, pan_out, NAMED_KINDS))
            print(f"{'':<24} other content words kept: {other_words_kept(pan, pan_out):.1%}")
            runs_in = [t for _ in range(args.runs) for t in emails]
            runs_out = [
                t
                for r in range(args.runs)
                for t in release(emails, mech, random_state=args.seed + 1000 + r).texts
            ]
            print(row(f"{label} e-mail", runs_in, runs_out, NAMED_KINDS))
            print(row(f"{'':<17}patterns", runs_in, runs_out, PATTERN_KINDS))
            print(f"{'':<24} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
