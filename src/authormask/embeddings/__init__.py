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

__all__ = [
    "DEFAULT_EMBEDDINGS",
    "KNOWN_EMBEDDINGS",
    "Embeddings",
    "EmbeddingsIdentity",
    "EmbeddingsInfo",
    "NearestWordIndex",
    "brute_force_nearest",
    "default_cache_dir",
    "load_embeddings",
]
