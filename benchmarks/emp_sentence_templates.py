"""What emp-sentence's template choice tells an attacker, on one PAN problem.

emp-sentence chooses each sentence's template among the bank sentences nearest to its noisy
point so that its noun and name slots hold the released nouns and names left over the sentences
left (``choose_templates``): the templates' lengths then follow K/S and M/S, public counts of the
writer's own text. This benchmark releases one problem (default: problem00001 of ``pan19-en``,
a held-out problem) at one epsilon twice, with the shipped choice (the reference, in the same
run) and with the nearest unused candidate alone (the counts ignored), and prints the strongest
attackers of the PAN protocol's line-up (as the user releases: default entities) for each. No
utility is measured: the nearest-only choice leaves nouns without a slot, so it is a probe of
the channel, not a design.

    python benchmarks/emp_sentence_templates.py --collection ../shared/data/pan19-en \\
        --problem problem00001 --epsilon 6 --cache /tmp/templates-cache
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import authormask.mechanisms.sentences as sentences
from authormask.datasets.pan import read_pan_collection
from authormask.embeddings.registry import load_embeddings
from authormask.evaluation.protocols._common import VOCAB_SIZE
from authormask.evaluation.protocols.pan import PanConfig, run_pan

SHIPPED = sentences.choose_templates


def nearest_unused(candidates: Any, slots: Any, words: Any) -> list[int]:
    """The nearest candidate the document has not used yet (the counts ignored)."""
    out: list[int] = []
    used: set[int] = set()
    for row in candidates:
        pick = next((int(r) for r in row if int(r) not in used), int(row[0]))
        used.add(pick)
        out.append(pick)
    return out


def one_problem(collection: Path, problem: str, folder: Path) -> Path:
    """A PAN collection folder holding ``problem`` of ``collection`` alone (a link)."""
    (folder / problem).symlink_to((collection / problem).resolve())
    info = [{"problem-name": problem, "language": "en", "encoding": "UTF-8"}]
    (folder / "collection-info.json").write_text(json.dumps(info), encoding="utf-8")
    return folder


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", type=Path, default=Path("../shared/data/pan19-en"))
    ap.add_argument("--problem", default="problem00001")
    ap.add_argument("--epsilon", type=float, default=6.0)
    ap.add_argument("--cache", type=Path, default=None, help="a results cache folder")
    ap.add_argument("--top", type=int, default=6)
    args = ap.parse_args()
    embeddings = load_embeddings("glove-6b-50d", vocab_size=VOCAB_SIZE)
    config = PanConfig(mechanisms=("emp-sentence",), epsilons=(args.epsilon,), utilities=())
    with tempfile.TemporaryDirectory() as tmp:
        data = one_problem(args.collection, args.problem, Path(tmp))
        collection = read_pan_collection(data)
        for name, choose in (("shipped (counts)", SHIPPED), ("nearest only", nearest_unused)):
            sentences.choose_templates = choose
            cache = None if args.cache is None else args.cache / name.split()[0]
            start = time.perf_counter()
            result = run_pan(collection, config=config, embeddings=embeddings, cache_dir=cache)
            cells = sorted(
                ((c.macro_f1, c.attacker) for c in result.cells if c.epsilon == args.epsilon),
                reverse=True,
            )
            shown = ", ".join(f"{a} {f:.3f}" for f, a in cells[: args.top])
            print(f"{name}: {shown} ({time.perf_counter() - start:.0f} s)")
    sentences.choose_templates = SHIPPED


if __name__ == "__main__":
    main()
