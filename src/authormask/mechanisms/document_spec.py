"""emp-doc as the registry offers it (:class:`~authormask.mechanisms.document.EMPDoc`: Earth
Mover's privacy on every word of a canonical skeleton), its spec and its factory, declared as a
plugin declares its own (``docs/adding-a-mechanism.md``). Imports no numpy: the class is
imported when the mechanism is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import (
    CANONICAL_PARAMETERS,
    DOC_DECODER,
    ENTITIES,
    EPSILON,
    MechanismSpec,
    Parameter,
)

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["SPEC", "emp_doc"]


def emp_doc(p: dict[str, Any]) -> Mechanism:
    """emp-doc (:class:`~authormask.mechanisms.document.EMPDoc`) from its parameters.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.document import EMPDoc

    preparer, described = _loaders.canonical(p)
    return EMPDoc(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        function_words_description=described,
        function_epsilon=p["function_epsilon"],
        decoder=p["decoder"],
    )


SPEC = MechanismSpec(
    "emp-doc",
    "Earth Mover's privacy on every word of a canonical skeleton: content words over the "
    "vocabulary, function words within their class; layout, marks and casing normalised",
    (
        EPSILON,
        Parameter(
            "function_epsilon",
            "epsilon per function word (> 0; default: epsilon / 4: function words carry "
            "style more than meaning)",
            default=None,
            minimum=0.0,
            exclusive_minimum=True,
            kind="number",
        ),
        *CANONICAL_PARAMETERS,
        DOC_DECODER,
        ENTITIES,
    ),
    emp_doc,
    label="Earth Mover's (doc)",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=9,
    samplers=("kernel", "function_kernel"),
    audit="authormask.audit.by_mechanism:emp_doc",
    help="readable text whose guarantee covers style: every word perturbed (function "
    "words within their class, `function_epsilon`), layout, marks and casing made "
    "canonical; its skeleton (where function words and marks stand) is released "
    "unchanged.",
)
