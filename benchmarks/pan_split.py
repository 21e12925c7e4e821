"""A PAN run read on a split of its problems: the problems designs were chosen on, the others,
and all of them, each with its own chance line.

For every mechanism and point of ``results.json`` (written by ``authormask evaluate --protocol
pan``) it prints the strongest attacker by mean macro-F1 over the problems of each group (every
attacker of the run, plain and adaptive), a uniform guess's mean macro-F1 over the same problems,
and the reader measures pooled over the sampled texts of those problems (content recall,
retrieval, fluency as a geometric mean, MiniLM similarity). With ``--markdown`` it prints the
rows as a table.

    python benchmarks/pan_split.py RESULTS.json --tune problem00002,problem00004 [--markdown]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any


def _groups(results: dict[str, Any], tune: list[str]) -> dict[str, list[str]]:
    problems = sorted({c["problem"] for c in results["cells"]})
    unknown = sorted(set(tune) - set(problems))
    if unknown:
        raise SystemExit(f"pan_split: no such problem in the run: {', '.join(unknown)}")
    return {
        "tuned on": sorted(tune),
        "held out": [p for p in problems if p not in tune],
        "all": problems,
    }


def _point(cell: dict[str, Any]) -> float | None:
    value = cell.get("rate", cell.get("epsilon"))
    return None if value is None else float(value)


def summarise(results: dict[str, Any], tune: list[str]) -> list[dict[str, Any]]:
    """One row per group, mechanism and point (see the module notes)."""
    groups = _groups(results, tune)
    f1: dict[tuple[str, float | None, str, str], float] = {}
    for c in results["cells"]:
        f1[(c["mechanism"], _point(c), c["attacker"], c["problem"])] = c["macro_f1"]
    utility: dict[tuple[str, float | None, str], list[dict[str, Any]]] = defaultdict(list)
    for u in results["utility_cells"]:
        utility[(u["mechanism"], u["epsilon"], u["measure"])].append(u)
    chance = results.get("chance_macro_f1", {}).get("per_problem", {})
    attackers = results["config"]["attackers"]
    rows = []
    for group, problems in groups.items():
        for entry in results["summary"]:
            m = entry["mechanism"]
            point = entry.get("rate", entry.get("epsilon"))
            point = None if point is None else float(point)
            means = {
                a: sum(f1[(m, point, a, p)] for p in problems) / len(problems) for a in attackers
            }
            best = max(attackers, key=lambda a: (means[a], a))
            row: dict[str, Any] = {
                "group": group,
                "problems": problems,
                "mechanism": m,
                "point": point,
                "attacker": best,
                "macro_f1": means[best],
                "chance": (
                    sum(chance[p] for p in problems) / len(problems)
                    if all(p in chance for p in problems)
                    else None
                ),
            }
            # utility cells keep the raw value (a baseline's rate under "epsilon")
            eps = entry["rate"] if entry.get("rate") is not None else entry.get("epsilon")
            for measure in ("content-recall", "retrieval", "fluency", "similarity"):
                cells = [u for u in utility[(m, eps, measure)] if u["problem"] in problems]
                n = sum(u["texts"] for u in cells)
                if not n:
                    row[measure] = None
                elif measure == "fluency":
                    row[measure] = math.exp(
                        sum(math.log(u["mean"]) * u["texts"] for u in cells) / n
                    )
                else:
                    row[measure] = sum(u["mean"] * u["texts"] for u in cells) / n
            rows.append(row)
    return rows


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--tune", required=True, help="comma-separated problems designs were tuned on")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    results = json.loads(args.results.read_text(encoding="utf-8"))
    rows = summarise(results, [p for p in args.tune.split(",") if p])
    cols = ["group", "mechanism", "point", "attacker", "macro_f1", "chance"]
    cols += ["content-recall", "retrieval", "fluency", "similarity"]
    if args.markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    for r in rows:
        cells = [_fmt(r[c]) for c in cols]
        print(("| " + " | ".join(cells) + " |") if args.markdown else "  ".join(cells))


if __name__ == "__main__":
    main()
