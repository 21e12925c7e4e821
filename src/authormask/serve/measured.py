"""What an attacker achieved on fan fiction, shipped with the package for the page.

The page shows, beside "about X% of words will change", what the strongest attacker of the PAN
protocol achieved at that epsilon on ``pan19-en`` (four English fan-fiction problems of PAN
2019): a **measurement on that corpus, never a guarantee**. The table is written from the
``results.json`` of ``authormask evaluate --protocol pan`` by

    python -m authormask.serve.measured RESULTS.json [RESULTS.json ...] [--out F] [--command C]

and read by :func:`measured_at`. It holds, per mechanism and epsilon, the strongest attacker's
mean macro-F1 (``attacker``), the most accurate attacker's accuracy with its Wilson 95%
interval (``accurate_attacker``), a uniform guess's accuracy and macro-F1, and the utility, with
the command that measured them.
"""

from __future__ import annotations

import argparse
import json
import math
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = ["MEASURED", "build_table", "measured_at", "merge_tables"]

#: the packaged table (``authormask/data``)
MEASURED = "measured-pan19-en.json"
#: a measured epsilon is shown for a requested one within this factor of it
NEAREST_FACTOR = 1.5


@lru_cache(maxsize=1)
def _table() -> dict[str, Any] | None:
    resource = files("authormask").joinpath(f"data/{MEASURED}")
    if not resource.is_file():
        return None
    loaded: dict[str, Any] = json.loads(resource.read_text(encoding="utf-8"))
    return loaded


def measured_at(
    mechanism: str, epsilon: float | None, *, table: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    """The measured row of ``mechanism`` nearest to ``epsilon`` (within a factor of
    :data:`NEAREST_FACTOR`), with the corpus and the caveat; ``None`` where nothing near was
    measured. ``table``: the packaged one by default.

    Parameters
    ----------
    mechanism
        The registered name of the mechanism.
    epsilon
        The epsilon asked for, or ``None``.
    table
        The measured table, or ``None`` for the packaged one.

    Returns
    -------
    dict[str, Any] | None
        The row, with ``corpus``, ``caveat``, ``chance`` and ``noise_off``, or ``None``.
    """
    table = _table() if table is None else table
    if table is None or epsilon is None or not (epsilon > 0 and math.isfinite(epsilon)):
        return None
    rows = [r for r in table["rows"].get(mechanism, []) if r.get("epsilon")]
    if not rows:
        return None
    best = min(rows, key=lambda r: abs(math.log(r["epsilon"] / epsilon)))
    if abs(math.log(best["epsilon"] / epsilon)) > math.log(NEAREST_FACTOR):
        return None
    return {
        **best,
        "corpus": table["corpus"],
        "caveat": table["caveat"],
        "chance": table.get("chance"),
        "chance_macro_f1": table.get("chance_macro_f1"),
        "noise_off": table["noise_off"].get(mechanism),
    }


def build_table(results: dict[str, Any], *, command: str) -> dict[str, Any]:
    """The shipped table from a PAN protocol ``results.json``.

    Parameters
    ----------
    results
        The results.json object of a PAN run.
    command
        The evaluate command that measured it, recorded in the table.

    Returns
    -------
    dict[str, Any]
        The table.

    Raises
    ------
    ValueError
        If ``results`` is not a PAN run's.
    """
    if results.get("protocol") != "pan":
        raise ValueError("not the results.json of --protocol pan")
    rows: dict[str, list[dict[str, Any]]] = {}
    noise_off: dict[str, dict[str, Any]] = {}
    for row in results["summary"]:
        if row.get("rate") is not None:  # a baseline's row (random-sub): never on the page
            continue
        best = row["best"]
        # two attackers, each named beside its own figure: the strongest by macro-F1, and for
        # "named the writer of X% of texts" the most accurate (the same one where the results
        # have no separate most accurate)
        accurate = row.get("most_accurate") or best
        entry = {
            "epsilon": row["epsilon"],
            "attacker": best["attacker"],
            "macro_f1": round(best["macro_f1"], 3),
            "accurate_attacker": accurate["attacker"],
            "accuracy": round(accurate["accuracy"], 3),
            "wilson95": [round(x, 3) for x in accurate["wilson95"]],
        }
        for key in ("similarity", "utility"):
            if isinstance(row.get(key), (int, float)):
                entry["similarity"] = round(float(row[key]), 3)
            elif isinstance(row.get(key), dict) and "mean" in row[key]:
                entry["similarity"] = round(float(row[key]["mean"]), 3)
        if row["epsilon"] is None:
            noise_off[row["mechanism"]] = entry
        else:
            rows.setdefault(row["mechanism"], []).append(entry)
    chance = results.get("chance_accuracy")
    chance_f1 = results.get("chance_macro_f1")
    return {
        "corpus": "pan19-en: four English fan-fiction problems of PAN 2019 (cross-domain "
        "authorship attribution; 8-9 candidate authors each)",
        "caveat": "a measurement on that corpus with the PAN protocol's strongest attacker, "
        "never a guarantee: other texts, other attackers and longer texts can do better",
        "command": command,
        # a uniform guess: its accuracy (beside the attackers' accuracy) and its mean macro-F1
        # (beside their macro-F1)
        "chance": chance,
        "chance_macro_f1": chance_f1.get("mean") if isinstance(chance_f1, dict) else chance_f1,
        "noise_off": noise_off,
        "rows": rows,
    }


def merge_tables(tables: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs' tables as one: rows by mechanism and epsilon (a later run wins), sorted.

    Parameters
    ----------
    tables
        The tables (at least one), earliest first.

    Returns
    -------
    dict[str, Any]
        The merged table.
    """
    merged = dict(tables[0])
    rows: dict[str, dict[float, dict[str, Any]]] = {}
    noise_off: dict[str, Any] = {}
    for table in tables:
        for mech, entries in table["rows"].items():
            for entry in entries:
                rows.setdefault(mech, {})[entry["epsilon"]] = entry
        noise_off.update(table["noise_off"])
    merged["rows"] = {m: [e[k] for k in sorted(e)] for m, e in rows.items()}
    merged["noise_off"] = noise_off
    return merged


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="write the page's measured table")
    ap.add_argument("results", type=Path, nargs="+", help="results.json of PAN runs (merged)")
    ap.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parents[1] / "data" / MEASURED,
    )
    ap.add_argument("--command", default="", help="the evaluate command that measured it")
    args = ap.parse_args(argv)
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in args.results]
    table = merge_tables([build_table(r, command=args.command) for r in runs])
    tmp = args.out.with_name(args.out.name + ".tmp")
    tmp.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)


if __name__ == "__main__":
    main()
