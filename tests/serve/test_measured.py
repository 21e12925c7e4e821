"""The page's measured table: built from a PAN results.json, looked up by epsilon."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authormask.serve.measured import build_table, main, measured_at, merge_tables


def _results() -> dict:
    def row(mech: str, eps: float | None, f1: float, acc: float, sim: float) -> dict:
        return {
            "mechanism": mech,
            "epsilon": eps,
            "best": {
                "attacker": "typed-svm",
                "macro_f1": f1,
                "accuracy": acc,
                "correct": 1,
                "total": 2,
                "wilson95": [acc - 0.1, acc + 0.1],
            },
            "similarity": sim,
        }

    return {
        "protocol": "pan",
        "summary": [
            row("emp-doc", None, 0.6, 0.7, 0.9),
            row("emp-doc", 10.0, 0.4, 0.5, 0.7),
            row("emp-doc", 5.0, 0.2, 0.25, 0.5),
        ],
        "collection": {},
    }


def test_the_nearest_measured_epsilon_is_shown_with_its_caveat() -> None:
    table = build_table(_results(), command="authormask evaluate --protocol pan ...")
    near = measured_at("emp-doc", 9.0, table=table)
    assert near is not None and near["epsilon"] == 10.0
    assert near["accuracy"] == 0.5 and near["similarity"] == 0.7
    assert near["noise_off"]["accuracy"] == 0.7
    assert "never a guarantee" in near["caveat"]
    assert measured_at("emp-doc", 6.0, table=table)["epsilon"] == 5.0  # type: ignore[index]
    # nothing measured near: no figure at all, rather than a far one
    assert measured_at("emp-doc", 30.0, table=table) is None
    assert measured_at("emp-doc", 2.0, table=table) is None
    assert measured_at("emp-text", 10.0, table=table) is None


def test_only_pan_results_make_a_table(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--protocol pan"):
        build_table({"protocol": "fernandes2019"}, command="")
    src = tmp_path / "results.json"
    src.write_text(json.dumps(_results()), encoding="utf-8")
    out = tmp_path / "table.json"
    main([str(src), "--out", str(out), "--command", "cmd"])
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["command"] == "cmd" and len(written["rows"]["emp-doc"]) == 2
    # two runs merge: rows by epsilon, sorted
    other = _results()
    other["summary"] = [
        {**other["summary"][1], "mechanism": "emp-text"},
        {**other["summary"][2], "epsilon": 7.0},
    ]
    src2 = tmp_path / "results2.json"
    src2.write_text(json.dumps(other), encoding="utf-8")
    main([str(src), str(src2), "--out", str(out)])
    merged = json.loads(out.read_text(encoding="utf-8"))
    assert [r["epsilon"] for r in merged["rows"]["emp-doc"]] == [5.0, 7.0, 10.0]
    assert [r["epsilon"] for r in merged["rows"]["emp-text"]] == [10.0]


def test_each_figure_names_its_own_attacker() -> None:
    # the packaged table named the most accurate attacker (adaptive-pan-baseline) beside the
    # macro-F1 of another (typed-svm): each figure now carries the attacker that scored it
    results = _results()
    results["summary"][1]["most_accurate"] = {
        "attacker": "pan-baseline",
        "accuracy": 0.55,
        "wilson95": [0.5, 0.6],
    }
    results["chance_accuracy"] = 0.1
    results["chance_macro_f1"] = {"mean": 0.07, "p95": 0.09}
    near = measured_at("emp-doc", 10.0, table=build_table(results, command=""))
    assert near is not None
    assert near["attacker"] == "typed-svm" and near["macro_f1"] == 0.4
    assert near["accurate_attacker"] == "pan-baseline" and near["accuracy"] == 0.55
    assert near["chance"] == 0.1 and near["chance_macro_f1"] == 0.07


#: the published runs the packaged table is built from, earliest first (a later run's rows win)
RUNS = ("pan19-en-defaults", "pan19-en-a6d0545")


def test_the_packaged_table_is_what_the_published_runs_give() -> None:
    """The packaged table is the published runs' (the noise-off rows of the defaults run, the
    epsilons of the later run the README quotes): before, it was the earlier run alone, and
    `explain` and the page quoted emp-write at 7 scoring 0.192 where the README said 0.178."""
    from importlib.resources import files

    root = Path(__file__).resolve().parents[2]
    paths = [root / f"docs/results/{run}/results.json" for run in RUNS]
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in paths]
    packaged = json.loads(
        files("authormask").joinpath("data/measured-pan19-en.json").read_text(encoding="utf-8")
    )
    rebuilt = merge_tables([build_table(run, command=packaged["command"]) for run in runs])
    assert rebuilt == packaged
    assert all(f"docs/results/{run}" in packaged["command"] for run in RUNS)
    # and the figures are the latest run's: the named attacker scored that macro-F1 there
    run = runs[-1]
    by_row = {(r["mechanism"], r["epsilon"]): r for r in run["summary"]}
    for mech, rows in packaged["rows"].items():
        for row in rows:
            best = by_row[(mech, row["epsilon"])]["best"]
            assert (row["attacker"], row["macro_f1"]) == (
                best["attacker"],
                round(best["macro_f1"], 3),
            )
