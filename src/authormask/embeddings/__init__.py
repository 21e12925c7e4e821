"""Word embeddings: packaged named sets, file loaders, identities and exact nearest-word search."""

from authormask.embeddings._base import Embeddings, EmbeddingsIdentity
from authormask.embeddings.cache import default_cache_dir
from authormask.embeddings.neighbours import NearestWordIndex, brute_force_nearest
from authormask.embeddings.registry import (
    DEFAULT_EMBEDDINGS,
    KNOWN_EMBEDDINGS,
    EmbeddingsInfo,
    load_embeddings,
)
from authormask.embeddings.vocabulary import (
    DEFAULT_FILTER,
    VOCABULARY_FILTERS,
    describe_filter,
    is_plain_word,
    is_word_like,
)

__all__ = [
    "DEFAULT_EMBEDDINGS",
    "DEFAULT_FILTER",
    "KNOWN_EMBEDDINGS",
    "VOCABULARY_FILTERS",
    "Embeddings",
    "EmbeddingsIdentity",
    "EmbeddingsInfo",
    "NearestWordIndex",
    "brute_force_nearest",
    "default_cache_dir",
    "describe_filter",
    "is_plain_word",
    "is_word_like",
    "load_embeddings",
]
