"""The files of a run and how they are written: every protocol's reports (results.json,
table.md, table.csv, its PNGs and report.html) are rendered first (:func:`run_files`), then
written together atomically (:func:`write_report_files`, through :mod:`authormask._io`), never
over existing reports unless asked."""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from authormask._io import atomic_path, write_atomic
from authormask.evaluation.reports.html import HTML_FILE, run_html
from authormask.exceptions import InputError

__all__ = [
    "FRONTIER_FILE",
    "REPORT_FILES",
    "check_output_dir",
    "run_files",
    "write_report_files",
    "write_run_reports",
]

#: the files every run writes
REPORT_FILES = ("results.json", "table.md", "table.csv", "plot.png", HTML_FILE)
#: the frontier plot of a sweep, written beside them when the sweep has attackers and a frontier
#: utility
FRONTIER_FILE = "frontier.png"


def run_files(
    *,
    results: Mapping[str, Any],
    markdown: str,
    csv: str,
    figures: Mapping[str, bytes],
    config: Mapping[str, Any],
    statements: Mapping[str, Any],
    title: str | None = None,
) -> dict[str, str | bytes]:
    """A run's files, rendered: results.json (``results``), table.md, table.csv, the
    ``figures`` (name -> PNG) and report.html, which holds all of them
    (:func:`~authormask.evaluation.reports.html.run_html`).

    Parameters
    ----------
    results
        results.json's object.
    markdown
        table.md.
    csv
        table.csv.
    figures
        The figures, name -> PNG.
    config
        The run's config, shown in report.html.
    statements
        The public privacy statements, shown in report.html.
    title
        report.html's title, or ``None`` for table.md's heading.

    Returns
    -------
    dict[str, str | bytes]
        File name -> its contents.
    """
    files: dict[str, str | bytes] = {
        "results.json": json.dumps(results, indent=2) + "\n",
        "table.md": markdown,
        "table.csv": csv,
        **figures,
    }
    files[HTML_FILE] = run_html(files, config, statements, title=title)
    return files


def check_output_dir(folder: Path, *, force: bool) -> None:
    """Refuse a folder that already holds reports, unless ``force``.

    Parameters
    ----------
    folder
        The output folder.
    force
        Whether existing reports may be replaced.

    Raises
    ------
    InputError
        If ``folder`` is not a folder, or holds reports and ``force`` is not given.
    """
    if folder.exists() and not folder.is_dir():
        raise InputError(f"output {folder} exists and is not a folder")
    existing = [n for n in (*REPORT_FILES, FRONTIER_FILE) if (folder / n).exists()]
    if existing and not force:
        raise InputError(f"{folder} already holds {', '.join(existing)}; use `force` to overwrite")


def write_report_files(
    folder: str | Path, files: Mapping[str, str | bytes], *, force: bool = False
) -> list[Path]:
    """Write ``files`` (name -> text or bytes) into ``folder``, refusing existing reports
    unless ``force`` (:func:`check_output_dir`) and never replacing a link, folder, FIFO or
    device.

    Everything is rendered before this is called; every file is written to a temporary name
    beside its target and renamed only once all are written, so an error leaves no
    half-written report.

    Parameters
    ----------
    folder
        The output folder (created if missing).
    files
        File name -> its contents.
    force
        Whether existing reports may be replaced.

    Returns
    -------
    list[Path]
        The paths written.
    """
    out = Path(folder)
    check_output_dir(out, force=force)
    texts = {out / name: data for name, data in files.items() if isinstance(data, str)}
    with ExitStack() as stack:
        for name, data in files.items():
            if isinstance(data, bytes):
                tmp = stack.enter_context(atomic_path(out / name, force=True))
                tmp.write_bytes(data)
        write_atomic(texts, force=True)
    return [out / name for name in files]


def write_run_reports(
    folder: str | Path, files: Mapping[str, str | bytes], *, force: bool = False
) -> list[Path]:
    """A sweep's or a PAN run's files, written by :func:`write_report_files`; a frontier.png
    left in ``folder`` by an earlier report is removed when this run has none (it would
    describe another run).

    Parameters
    ----------
    folder
        The output folder (created if missing).
    files
        File name -> its contents.
    force
        Whether existing reports may be replaced.

    Returns
    -------
    list[Path]
        The paths written.
    """
    paths = write_report_files(folder, files, force=force)
    stale = Path(folder) / FRONTIER_FILE
    if FRONTIER_FILE not in files and stale.is_file() and not stale.is_symlink():
        stale.unlink()
    return paths
