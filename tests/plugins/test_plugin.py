"""A mechanism from another package: a tiny plugin package, "installed" by writing it and its
``dist-info`` (with an ``authormask.mechanisms`` entry point) into a folder on ``PYTHONPATH``,
no pip and no network, offered by each front end with no change in this repository:
``obfuscate``, ``audit`` and the page's API, its word vectors given by the resource its spec
declares. A broken plugin is skipped with one warning line and the command line still works.
``evaluate`` and the contract battery run a plugin built by pip in test_example_plugin.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

AUTHORMASK = Path(sys.executable).with_name("authormask")

PLUGIN = '''\
"""A mechanism from another package: Earth Mover's noise on every content word, in place."""

from authormask.mechanisms.earth_movers_spec import emp_text
from authormask.core.specs import DECODER, TEXT_PARAMETERS, MechanismSpec


def audit(name):
    """Its audit case: Earth Mover's noise on the 1-d line (the audit is imported here, when
    the audit runs, never when the registry loads this module)."""
    from authormask.audit.by_mechanism import emp_text as _emp_text_cases

    return _emp_text_cases(name)[:1]


def build(params):
    """The mechanism, from its checked parameters: emp-text's, releasing under its own name
    (the name its statement gives)."""
    mechanism = emp_text(params)
    mechanism.name = "demo"
    return mechanism


SPEC = MechanismSpec(
    "demo",
    "Demo: Earth Mover's privacy in place, from a plugin",
    (*TEXT_PARAMETERS, DECODER),
    build,
    label="Demo",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    samplers=("kernel",),
    audit="amplugin_demo:audit",
    help="a plugin's mechanism (emp-text's kernel under another name).",
)
'''

TEXT = "The quick brown fox jumps over the lazy dog near the quiet river bank."


def _install(root: Path, package: str, entry_points: str, source: str | None) -> None:
    """``package`` (its ``__init__.py`` ``source``; None: no module at all) with a
    ``dist-info`` whose ``entry_points.txt`` is ``entry_points``, under ``root``."""
    if source is not None:
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text(source)
    info = root / f"{package}-0.1.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {package.replace('_', '-')}\nVersion: 0.1\n"
    )
    info.joinpath("entry_points.txt").write_text(entry_points)


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("site")
    _install(root, "amplugin_demo", "[authormask.mechanisms]\ndemo = amplugin_demo:SPEC\n", PLUGIN)
    return root


def _run(args: list[str], path: Path, *, python: bool = False) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, *args] if python else [str(AUTHORMASK), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_obfuscate_releases_with_the_plugin_and_its_statement(
    plugin_path: Path, cache_dir: Path, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text(TEXT)
    help_text = _run(["obfuscate", "--help"], plugin_path)
    assert help_text.returncode == 0, help_text.stderr
    assert "demo: a plugin's mechanism" in " ".join(help_text.stdout.split())
    proc = _run(
        ["obfuscate", "-m", "demo", "--epsilon", "2", "--cache-dir", str(cache_dir), str(source)],
        plugin_path,
    )
    assert proc.returncode == 0, proc.stderr
    released = proc.stdout.strip()  # the release on stdout, its statement on stderr
    assert released.startswith("The ") and released != TEXT
    assert "Privacy statement" in proc.stderr and "epsilon     : 2 per word" in proc.stderr
    assert "warning: mechanism plugin" not in proc.stderr


def test_audit_runs_the_plugins_case(plugin_path: Path, cache_dir: Path) -> None:
    proc = _run(
        ["audit", "-m", "demo", "--samples", "1000", "--json", "--cache-dir", str(cache_dir)],
        plugin_path,
    )
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert (row["mechanism"], row["case"], row["passed"]) == ("demo", "line-1d", True)


SERVE = """
import json, sys
from fastapi.testclient import TestClient
import authormask as am
from authormask.serve.app import ServeSettings, _Loaded, create_app

emb = am.load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=sys.argv[1])
settings = ServeSettings(port=8765, max_chars=5_000, extra_hosts=("localhost:8765",))
client = TestClient(create_app(settings, _Loaded(emb, {})), base_url="http://127.0.0.1:8765")
listed = client.get("/api/mechanisms").json()["mechanisms"]
body = {"text": sys.argv[2], "mechanism": "demo", "epsilon": 2}
r = client.post("/api/release", content=json.dumps(body),
                headers={"Content-Type": "application/json"})
print(json.dumps({"listed": listed, "status": r.status_code, "release": r.json()}))
"""


def test_the_page_offers_and_releases_the_plugin(plugin_path: Path, cache_dir: Path) -> None:
    proc = _run(["-c", SERVE, str(cache_dir), TEXT], plugin_path, python=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    (demo,) = [m for m in out["listed"] if m["name"] == "demo"]
    assert (demo["release"], demo["epsilon_per"], demo["label"]) == ("text", "word", "Demo")
    assert out["status"] == 200, out["release"]
    assert out["release"]["text"].startswith("The ")
    assert out["release"]["statement"]["mechanism"] == "demo"


def test_a_broken_plugin_is_skipped_with_one_warning(tmp_path: Path) -> None:
    _install(
        tmp_path, "amplugin_broken", "[authormask.mechanisms]\nbroken = amplugin_gone:SPEC\n", None
    )
    proc = _run(["obfuscate", "--help"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    (line,) = [line for line in proc.stderr.splitlines() if line.strip()]
    assert "plugin 'broken'" in line and "ModuleNotFoundError" in line
    assert "emp-write" in proc.stdout


def test_a_clashing_plugin_is_refused(tmp_path: Path) -> None:
    """A plugin may neither take a built-in's name nor its seed code."""
    source = textwrap.dedent(
        """\
        from dataclasses import replace
        from authormask.core.registry import BUILTIN

        NAME = replace(BUILTIN["random-r"], seed_code=None)
        CODE = replace(BUILTIN["random-r"], name="random-r2")
        """
    )
    _install(
        tmp_path,
        "amplugin_clash",
        "[authormask.mechanisms]\nname = amplugin_clash:NAME\ncode = amplugin_clash:CODE\n",
        source,
    )
    check = "from authormask.core import mechanism_names; print(','.join(mechanism_names()))"
    proc = _run(["-c", check], tmp_path, python=True)
    assert proc.returncode == 0, proc.stderr
    assert "random-r2" not in proc.stdout.split(",")
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 2
    assert "plugin 'name'" in lines[1] and "already registered" in lines[1]
    assert "plugin 'code'" in lines[0] and "seed code 5 is random-r's" in lines[0]
