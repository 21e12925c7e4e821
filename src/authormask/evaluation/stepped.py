"""The entity-stepped originals of a release: each text as the mechanism was given it, after the
entity step (:class:`~authormask.mechanisms.inputs.EntityInputs`) and before its noise, with
the *same surrogates* the release drew.

A release under ``entities="surrogate"`` replaces names, places, numbers and links by random
surrogates before the mechanism runs. Measured against the raw original, a release loses every
name it never had (what the user keeps); measured against the entity-stepped original, it is
credited with what the mechanism keeps of the text it was given. An evaluation reports both
(issue 46 A). :func:`entity_stepped_texts` rebuilds, for a seeded release, each document's
generator exactly as :func:`authormask.core.release` builds it (the release's root from the
seed and the mechanism's public statement, the document's position and the digest of its
words: :func:`~authormask.randomness.document_generator`) and hands it, fresh, to
:meth:`~authormask.mechanisms.inputs.EntityInputs.stepped_text`, which spawns it as the release
does: the same generator gives the same surrogates.
"""

from __future__ import annotations

from collections.abc import Sequence

from authormask.core.sources import TextSource, words_digest
from authormask.core.stream import resolve_length
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import Mechanism
from authormask.mechanisms.inputs import EntityInputs
from authormask.randomness import describe_seed, document_generator, mechanism_root

__all__ = ["entity_mode", "entity_stepped_texts"]


def entity_mode(mechanism: Mechanism) -> str | None:
    """What ``mechanism`` does with entities before it runs: ``"surrogate"``, ``"mask"`` or
    ``"keep"`` for a mechanism behind the entity step (every registry mechanism that reads the
    text), ``None`` for one that is not (``random-r`` releases no word of its input).

    Parameters
    ----------
    mechanism
        A mechanism, as the registry builds it.

    Returns
    -------
    str | None
        Its entity mode, or ``None``.
    """
    return mechanism.entities if isinstance(mechanism, EntityInputs) else None


def entity_stepped_texts(
    texts: Sequence[str],
    mechanism: Mechanism,
    *,
    random_state: int,
    only: Sequence[int] | None = None,
) -> list[str]:
    """Each of ``texts`` as ``mechanism`` was given it when ``release(texts, mechanism,
    random_state=random_state)`` released them (module docstring): the same positions, the
    same generators, the same surrogates. A mechanism that is not behind the entity step, or
    whose ``entities`` is ``"keep"``, is given the texts as they are.

    Parameters
    ----------
    texts
        Every document of the release, in the release's order (a document's generator depends
        on its position, and a mechanism that fixes N from its inputs on all of them).
    mechanism
        The mechanism the release was made with (registry-built).
    random_state
        The release's integer seed (an unseeded release's surrogates cannot be drawn again).
    only
        The positions to return, in this order (default: every one); the others are not read
        by the recogniser.

    Returns
    -------
    list[str]
        The entity-stepped texts of ``only`` (or of every position).

    Raises
    ------
    InvalidParameterError
        If ``random_state`` is not an integer seed, or a position is out of range.
    """
    if isinstance(random_state, bool) or not isinstance(random_state, int):
        raise InvalidParameterError(
            f"the entity-stepped texts of a release need its integer seed, got {random_state!r}"
        )
    positions = list(range(len(texts))) if only is None else [int(i) for i in only]
    for i in positions:
        if not 0 <= i < len(texts):
            raise InvalidParameterError(f"position {i} is not one of {len(texts)} texts")
    mode = entity_mode(mechanism)
    if mode is None or mode == "keep":
        return [texts[i] for i in positions]
    sources = [TextSource(str(i + 1), str(i + 1), len(t), t) for i, t in enumerate(texts)]
    resolved = resolve_length(mechanism, sources, progress=None)
    assert isinstance(resolved, EntityInputs)  # resolving keeps the wrapper
    seeded = describe_seed(random_state).seeded
    root = mechanism_root(random_state, resolved)
    out = []
    for i in positions:
        parts = list(sources[i].parts())
        content = words_digest(parts) if seeded else None
        out.append(resolved.stepped_text(parts, document_generator(root, i, content)))
    return out
