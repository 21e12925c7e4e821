from __future__ import annotations

import pytest

from authormask.embeddings import Embeddings, load_embeddings


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def glove_20k(cache_dir) -> Embeddings:
    """Real GloVe 6B 50-d vectors, restricted to the 20,000 most frequent words."""
    return load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=cache_dir)


@pytest.fixture(scope="session")
def spacy_md(cache_dir) -> Embeddings:
    return load_embeddings("spacy-md-300d", cache_dir=cache_dir)
