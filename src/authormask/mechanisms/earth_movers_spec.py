"""The Earth Mover's mechanisms of Fernandes et al. (2019) as the registry offers them: emp-bag
(:class:`~authormask.mechanisms.earth_movers.EMPBag`, Algorithm 2: a bag of N noisy words) and
emp-text (:class:`~authormask.mechanisms.earth_movers.EMPText`: every content word in place),
their specs and their factories, declared as a plugin declares its own
(``docs/adding-a-mechanism.md``). Imports no numpy: the classes are imported when a mechanism
is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authormask.defaults import DEFAULT_LENGTH
from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import (
    CACHE,
    DECODER,
    EMBEDDINGS,
    ENTITIES,
    EPSILON,
    OOV_MAP_TO,
    STOPWORDS,
    TEXT_PARAMETERS,
    VOCAB,
    MechanismSpec,
    Parameter,
)

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["EMP_BAG", "EMP_TEXT", "emp_bag", "emp_text"]


def emp_bag(p: dict[str, Any]) -> Mechanism:
    """emp-bag (:class:`~authormask.mechanisms.earth_movers.EMPBag`) from its parameters.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.earth_movers import EMPBag

    preparer, described = _loaders.preparer(p)
    return EMPBag(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        stopwords_description=described,
        length=p["length"],
        fixed_length=p["fixed_length"],
        decoder=p["decoder"],
    )


def emp_text(p: dict[str, Any]) -> Mechanism:
    """emp-text (:class:`~authormask.mechanisms.earth_movers.EMPText`).

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.earth_movers import EMPText

    preparer, described = _loaders.preparer(p)
    return EMPText(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        stopwords_description=described,
        decoder=p["decoder"],
    )


EMP_BAG = MechanismSpec(
    "emp-bag",
    "Earth Mover's privacy (Fernandes et al. 2019, Algorithm 2): a bag of N noisy words",
    (
        EPSILON,
        EMBEDDINGS,
        VOCAB,
        CACHE,
        Parameter(
            "length",
            "N, the number of words per bag (a public parameter), or 'shortest' (the "
            "smallest document of the release; the statement says what that reveals)",
            default=DEFAULT_LENGTH,
            minimum=1,
            kind="count",
        ),
        Parameter(
            "fixed_length",
            "truncate (first N content words) or sample (N draws with replacement)",
            default="truncate",
            choices=("truncate", "sample"),
        ),
        STOPWORDS,
        Parameter(
            "oov",
            "unknown words: drop, keep (NOT protected) or map",
            default="drop",
            choices=("drop", "keep", "map"),
        ),
        OOV_MAP_TO,
        DECODER,
        ENTITIES,
    ),
    emp_bag,
    label="Earth Mover's (bag)",
    release="bag",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=0,
    samplers=("kernel",),
    per_word_form="emp-text",
    audit="authormask.audit.by_mechanism:emp_bag",
    help="a bag of N noisy words (Fernandes et al., Algorithm 2; guarantee epsilon*N*E over bags).",
)

EMP_TEXT = MechanismSpec(
    "emp-text",
    "Earth Mover's privacy in place: every content word perturbed, the skeleton kept",
    (*TEXT_PARAMETERS, DECODER, ENTITIES),
    emp_text,
    label="Earth Mover's (text)",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=1,
    samplers=("kernel",),
    audit="authormask.audit.by_mechanism:emp_text",
    help="every content word replaced in place, stopwords, punctuation and layout kept (readable).",
)
