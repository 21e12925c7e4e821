"""The search benchmark (``benchmarks/search_limit.py``) reads the content words a release
perturbs: under the default entity step a document no longer holds its masked units (issue 50,
seventeenth session), and the benchmark stopped at its first input until it prepared them
again (eighteenth session)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from authormask.core import create_mechanism
from authormask.embeddings import Embeddings

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "search_limit.py"


def _benchmark() -> Any:
    spec = importlib.util.spec_from_file_location("search_limit_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_reads_the_words_the_release_perturbs(glove_20k: Embeddings) -> None:
    text = "Alice Walker flew to Paris with her old dog and a red suitcase.\n" * 3
    named = create_mechanism("emp-text", epsilon=10.0, embeddings=glove_20k)
    kept = create_mechanism("emp-text", epsilon=10.0, embeddings=glove_20k, entities="keep")
    rows = _benchmark().content_rows(named, glove_20k, text)
    own = _benchmark().content_rows(kept, glove_20k, text)
    assert len(rows) == len(own) > 0  # the surrogates keep the mechanism's kinds: as many
    assert all(0 <= r < len(glove_20k) for r in rows.tolist())
