"""What the audit's table of cases is made of: :class:`CaseSpec` (a case's names and its lazy
builder) and :class:`Context` (what a builder may need: where GloVe is cached).

The builders live by mechanism family (:mod:`~authormask.audit.cases_earth_movers`,
:mod:`~authormask.audit.cases_tokens`, :mod:`~authormask.audit.cases_peers`); the table itself is
:data:`authormask.audit.cases.AUDITORS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from authormask.audit.core import AuditCase
from authormask.embeddings._base import Embeddings

__all__ = ["GLOVE_VOCAB", "CaseSpec", "Context"]

GLOVE_VOCAB = 20_000


@dataclass(frozen=True)
class Context:
    """What building a case may need (where GloVe is cached)."""

    cache_dir: Path | str | None = "default"

    def glove(self) -> Embeddings:
        return _load_glove(str(self.cache_dir) if self.cache_dir is not None else None)


@functools.lru_cache(maxsize=2)
def _load_glove(cache_dir: str | None) -> Embeddings:
    from authormask.embeddings import load_embeddings

    return load_embeddings("glove-6b-50d", vocab_size=GLOVE_VOCAB, cache_dir=cache_dir)


@dataclass(frozen=True)
class CaseSpec:
    """A case's names and its (lazy) builder."""

    mechanism: str
    case: str
    build: Callable[[Context], AuditCase]
