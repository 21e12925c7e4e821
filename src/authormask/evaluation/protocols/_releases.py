"""How a protocol gets a mechanism's outputs: through the release layer, by registry name.

The *noise-off* release of a mechanism is the same mechanism with its noise switched off: its
deterministic preparation (tokenising, stopwords, unknown words mapped or dropped, contractions
split, N words kept and sorted for a bag) and its rendering, with every unit released as it
came in. It is obtained from the release layer as the limit epsilon -> infinity: the mechanism
at epsilon :data:`NOISE_OFF_EPSILON`. For Earth Mover's privacy the noise then has mean length
``n / 1e12`` (5e-11 for 50-d vectors), nine orders of magnitude below the distance between
any two vectors of the packaged embeddings, so every word is released as itself (the tests
check it word for word); for the exponential mechanisms it is the mechanism's most likely
output. It is the baseline row of every protocol ("none") and the form in which non-adaptive
attackers see the known texts, so that a measure compares noise with no noise, never
preparation with none.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from authormask.release import Mechanism, create_mechanism, mechanism_spec

__all__ = [
    "NOISE_OFF_EPSILON",
    "NOISE_OFF_EPSILONS",
    "build_mechanism",
    "mechanism_parameters",
    "public_parameters",
]

#: the epsilon of a noise-off release (see module docstring)
NOISE_OFF_EPSILON = 1e12
#: the epsilons a noise-off release tries, largest first: an exponential mechanism whose exact
#: sampler refuses :data:`NOISE_OFF_EPSILON` (``santext``: epsilon times its vocabulary's
#: diameter must stay within 2^40 nats) takes the largest it accepts; at 1e10 every other word
#: has probability below exp(-1e8) relative to the input word's
NOISE_OFF_EPSILONS = (NOISE_OFF_EPSILON, 1e10, 1e8)


def mechanism_parameters(
    name: str,
    epsilon: float | None,
    *,
    embeddings: Any = None,
    length: int | str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Registry parameters of ``name`` at ``epsilon`` (``None``: noise off): the embeddings and
    N are passed to mechanisms that take them (read from the registry's parameter list, never
    from the mechanism's name)."""
    takes = {p.name for p in mechanism_spec(name).parameters}
    params: dict[str, Any] = {"epsilon": NOISE_OFF_EPSILON if epsilon is None else epsilon}
    if embeddings is not None and "embeddings" in takes:
        params["embeddings"] = embeddings
    if length is not None and "length" in takes:
        params["length"] = length
    params.update(extra or {})
    return params


def build_mechanism(name: str, params: Mapping[str, Any]) -> Mechanism:
    return create_mechanism(name, **dict(params))


def public_parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as JSON (an object such as the embeddings by its identity), for cache keys."""
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
        elif isinstance(v, (set, frozenset)):
            out[k] = sorted(v)
        elif hasattr(v, "identity"):
            out[k] = v.identity.to_dict()
        elif isinstance(v, Sequence):
            out[k] = list(v)
        else:
            out[k] = repr(v)
    return out
