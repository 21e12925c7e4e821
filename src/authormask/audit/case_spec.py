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
from typing import Any

from authormask.audit.core import AuditCase
from authormask.embeddings._base import Embeddings

__all__ = ["GLOVE_VOCAB", "CaseSpec", "Context", "core_mechanism", "core_noise_off"]

GLOVE_VOCAB = 20_000


@dataclass(frozen=True)
class Context:
    """What building a case may need (where GloVe is cached).

    Attributes
    ----------
    cache_dir
        Where GloVe is cached (``"default"``: the project's cache folder; ``None``: no cache).
    """

    cache_dir: Path | str | None = "default"

    def glove(self) -> Embeddings:
        """The GloVe vectors the cases use (``glove-6b-50d``, the first :data:`GLOVE_VOCAB` words),
        loaded once per cache folder.

        Returns
        -------
        Embeddings
            The loaded vectors.
        """
        return _load_glove(str(self.cache_dir) if self.cache_dir is not None else None)


@functools.lru_cache(maxsize=2)
def _load_glove(cache_dir: str | None) -> Embeddings:
    from authormask.embeddings import load_embeddings

    return load_embeddings("glove-6b-50d", vocab_size=GLOVE_VOCAB, cache_dir=cache_dir)


@dataclass(frozen=True)
class CaseSpec:
    """A case's names and its (lazy) builder.

    Attributes
    ----------
    mechanism
        The registered name of the mechanism audited.
    case
        The case's name (unique for the mechanism).
    build
        Builds the :class:`~authormask.audit.core.AuditCase` from a :class:`Context`; called
        only when the case runs.
    """

    mechanism: str
    case: str
    build: Callable[[Context], AuditCase]


def core_mechanism(name: str, /, **params: Any) -> Any:
    """The registered mechanism ``name`` as its guarantee is stated: built by
    :func:`~authormask.core.create_mechanism` with ``entities="keep"`` where it takes that
    parameter (the entity step replaces input words by public surrogates *before* the mechanism:
    the audit measures the mechanism on the words it is given), without its entity wrapper.

    Parameters
    ----------
    name
        The registered name of the mechanism.
    **params
        The mechanism's parameters, passed to :func:`~authormask.core.create_mechanism`.

    Returns
    -------
    Any
        The mechanism, without its entity step.
    """
    from authormask.core import create_mechanism, mechanism_spec

    if mechanism_spec(name).parameter("entities") is not None:
        params.setdefault("entities", "keep")
    return _without_entity_step(create_mechanism(name, **params))


def core_noise_off(name: str, /, **params: Any) -> Any:
    """:func:`~authormask.core.registry.create_noise_off` as :func:`core_mechanism` builds
    the mechanism: the noise-off form given the words of the text (``entities="keep"``).

    Parameters
    ----------
    name
        The registered name of the mechanism.
    **params
        The mechanism's parameters, passed to :func:`~authormask.core.registry.create_noise_off`.

    Returns
    -------
    Any
        The noise-off mechanism, without its entity step.
    """
    from authormask.core import mechanism_spec
    from authormask.core.registry import create_noise_off

    if mechanism_spec(name).parameter("entities") is not None:
        params.setdefault("entities", "keep")
    return _without_entity_step(create_noise_off(name, **params))


def _without_entity_step(mechanism: Any) -> Any:
    """The mechanism an entity step (:class:`~authormask.mechanisms.inputs.EntityInputs`) hands
    the words to, or ``mechanism`` itself when it has none."""
    from authormask.mechanisms.inputs import EntityInputs

    return mechanism.inner if isinstance(mechanism, EntityInputs) else mechanism
