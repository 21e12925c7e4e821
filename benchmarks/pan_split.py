"""A PAN run read on a split of its problems: the problems designs were chosen on, the others,
and all of them, each with its own chance line.

For every mechanism and point of ``results.json`` (written by ``authormask evaluate --protocol
pan``) it prints the strongest attacker by mean macro-F1 over the problems of each group (every
attacker of the run, plain and adaptive), a uniform guess's mean macro-F1 over the same problems,
and the reader measures pooled over the sampled texts of those problems (content recall,
retrieval, fluency as a geometric mean, MiniLM similarity). With ``--markdown`` it prints the
rows as a table.

Every utility of the run is pooled the same way (a ratio such as fluency as a geometric
mean), and each group's floors beside them (similarity: two unrelated originals; sentences and
topic holds: the originals' own value). ``--goal`` adds issue 46's six bars per row (``A``: the
strongest attacker <= chance + 0.10; ``R``: stepped retrieval >= 0.8; ``S``: stepped MiniLM
similarity >= the floor + 0.15; ``F``: cross-fitted fluency <= 1.5; ``V``: >= 90% of the output
sentences with a finite verb; ``T``: fandom accuracy >= 90% of the originals'), each written
where met and ``-`` where not, and ``--choose`` picks per mechanism the point of the tuning group
that meets the attacker bar and most of the others (ties: the largest point) and prints it on
every group.

    python benchmarks/pan_split.py RESULTS.json --tune problem00002,problem00004 [--markdown]
        [--goal] [--choose]
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
    floors: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in results.get("floor_cells", []):
        floors[f["measure"]].append(f)
    chance = results.get("chance_macro_f1", {}).get("per_problem", {})
    attackers = results["config"]["attackers"]
    rows = []
    for group, problems in groups.items():
        if not problems:  # a run of the tuning problems alone has no held-out group
            continue
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
            for measure in measures(results):
                row[measure] = _pooled(
                    [u for u in utility[(m, eps, measure)] if u["problem"] in problems], measure
                )
                row[f"floor:{measure}"] = _pooled(
                    [f for f in floors[measure] if f["problem"] in problems], measure
                )
            row["goal"] = goal(row)
            rows.append(row)
    return rows


RATIOS = ("fluency", "fluency-xfit")


def measures(results: dict[str, Any]) -> list[str]:
    """The utilities of the run, in its order."""
    names = results["config"].get("utilities") or []
    seen = {u["measure"] for u in results["utility_cells"]}
    return [m for m in names if m in seen] or sorted(seen)


def _pooled(cells: list[dict[str, Any]], measure: str) -> float | None:
    """The cells' mean weighted by their texts (a ratio: the geometric mean)."""
    n = sum(c["texts"] for c in cells)
    if not n:
        return None
    if measure in RATIOS:
        return math.exp(sum(math.log(c["mean"]) * c["texts"] for c in cells) / n)
    return sum(c["mean"] * c["texts"] for c in cells) / n


#: issue 46's bars: (letter, what it reads)
BARS = ("A", "R", "S", "F", "V", "T")


def goal(row: dict[str, Any]) -> str:
    """The bars ``row`` meets, as letters (``-`` for one it misses or cannot read)."""

    def get(key: str) -> float | None:
        value = row.get(key)
        return None if value is None else float(value)

    chance, sim, sim_floor = get("chance"), get("similarity-stepped"), get("floor:similarity")
    topic, topic_floor = get("topic-holds"), get("floor:topic-holds")
    met = {
        "A": chance is not None and row["macro_f1"] <= chance + 0.10,
        "R": (get("retrieval-stepped") or 0.0) >= 0.8,
        "S": sim is not None and sim_floor is not None and sim >= sim_floor + 0.15,
        "F": get("fluency-xfit") is not None and float(row["fluency-xfit"]) <= 1.5,
        "V": (get("sentences") or 0.0) >= 0.9,
        "T": topic is not None and topic_floor is not None and topic >= 0.9 * topic_floor,
    }
    return "".join(b if met[b] else "-" for b in BARS)


def choose(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    """Per mechanism, the point of the tuning group (``tuned on``) that meets the attacker bar
    and most of the others (ties: the largest point; none meets it: the point of the weakest
    attacker)."""
    out: dict[str, float | None] = {}
    for m in dict.fromkeys(r["mechanism"] for r in rows):
        tuned = [r for r in rows if r["group"] == "tuned on" and r["mechanism"] == m]
        meeting = [r for r in tuned if r["goal"][0] == "A"]
        if meeting:
            best = max(
                meeting,
                key=lambda r: (
                    sum(c != "-" for c in r["goal"]),
                    -1.0 if r["point"] is None else r["point"],
                ),
            )
        else:
            best = min(tuned, key=lambda r: r["macro_f1"] - (r["chance"] or 0.0))
        out[m] = best["point"]
    return out


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
    ap.add_argument("--goal", action="store_true", help="add issue 46's bars (module notes)")
    ap.add_argument("--choose", action="store_true", help="the point chosen on the tuning group")
    ap.add_argument("--measures", default=None, help="comma-separated utilities to print")
    args = ap.parse_args()
    results = json.loads(args.results.read_text(encoding="utf-8"))
    rows = summarise(results, [p for p in args.tune.split(",") if p])
    shown = args.measures.split(",") if args.measures else measures(results)
    cols = ["group", "mechanism", "point", "attacker", "macro_f1", "chance", *shown]
    if args.goal:
        cols.append("goal")
    if args.choose:
        chosen = choose(rows)
        rows = [r for r in rows if r["point"] == chosen[r["mechanism"]]]
    _print(rows, cols, markdown=args.markdown)
    floors = [f"floor:{m}" for m in shown if any(r.get(f"floor:{m}") is not None for r in rows)]
    if floors:
        print()
        groups = list(dict.fromkeys(r["group"] for r in rows))
        first = [next(r for r in rows if r["group"] == g) for g in groups]
        _print(first, ["group", *floors], markdown=args.markdown)


def _print(rows: list[dict[str, Any]], cols: list[str], *, markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
    for r in rows:
        cells = [_fmt(r.get(c)) for c in cols]
        print(("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells))


if __name__ == "__main__":
    main()
