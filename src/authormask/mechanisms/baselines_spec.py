"""random-sub as the registry offers it
(:class:`~authormask.mechanisms.baselines.RandomSubstitution`: a baseline with NO differential
privacy), its spec and its factory, declared as a plugin declares its own
(``docs/adding-a-mechanism.md``). Imports no numpy: the class is imported when the mechanism is
built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import (
    CANONICAL_PARAMETERS,
    ENTITIES,
    MechanismSpec,
    Parameter,
)

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["SPEC", "random_sub"]


def random_sub(p: dict[str, Any]) -> Mechanism:
    """random-sub (:class:`~authormask.mechanisms.baselines.RandomSubstitution`).

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.baselines import RandomSubstitution

    preparer, described = _loaders.canonical(p)
    return RandomSubstitution(
        embeddings=preparer.embeddings,
        rate=p["rate"],
        preparer=preparer,
        function_words_description=described,
    )


SPEC = MechanismSpec(
    "random-sub",
    "Baseline with NO differential privacy: each word of the canonical skeleton replaced "
    "with probability rate by a uniformly random word of its class",
    (
        Parameter(
            "rate",
            "probability in [0, 1] that a word is replaced (0: the canonical form)",
            required=True,
            minimum=0.0,
            maximum=1.0,
            kind="number",
        ),
        *CANONICAL_PARAMETERS,
        ENTITIES,
    ),
    random_sub,
    label="Random substitution",
    release="text",
    epsilon_per="none",
    baseline=True,
    noise_parameter="rate",
    seed_code=10,
    audit="authormask.audit.by_mechanism:random_sub",
    help="a baseline with NO privacy guarantee (`rate`), for comparisons only.",
)
