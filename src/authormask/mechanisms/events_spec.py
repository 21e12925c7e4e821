"""emp-event as the registry offers it (:class:`~authormask.mechanisms.events.EMPEvent`: Earth
Mover's privacy on the text's events, written as plain sentences), its spec and its factory,
declared as a plugin declares its own (``docs/adding-a-mechanism.md``). Imports no numpy: the
class and the lexicons are imported when the mechanism is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authormask.defaults import FRAME_WEIGHT, MAX_WEIGHT, NAME_WEIGHT
from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import (
    CACHE,
    EMBEDDINGS,
    ENTITIES,
    EVENT_RECOMMENDED,
    VOCAB,
    MechanismSpec,
    Parameter,
)

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["SPEC", "emp_event"]


def emp_event(p: dict[str, Any]) -> Mechanism:
    """emp-event (:class:`~authormask.mechanisms.events.EMPEvent`) with emp-write's noun
    lexicon, the public verb lexicon and the public name alphabet.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.events import EMPEvent, common_verbs, verb_lexicon
    from authormask.mechanisms.written import all_function_words

    emb, function_words, _ = _loaders.vectors_and_words(p)
    lexicon = _loaders.noun_lexicon(emb, function_words, p["cache_dir"])
    names, alphabet = _loaders.public_names(lexicon.nouns)
    verbs, verbs_described = verb_lexicon()
    common, common_described = common_verbs()
    return EMPEvent(
        embeddings=emb,
        epsilon=p["epsilon"],
        nouns=lexicon.nouns,
        nouns_description=lexicon.describe(),
        verbs=verbs - all_function_words(function_words),
        verbs_description=verbs_described + " (function words never)",
        common=common,
        common_description=common_described,
        names=names,
        name_alphabet=alphabet,
        name_weight=p["name_weight"],
        frame_weight=p["frame_weight"],
    )


SPEC = MechanismSpec(
    "emp-event",
    "Earth Mover's privacy on each event of the text (its agent, verb and theme; names "
    "and frames by randomized response), written as plain sentences",
    (
        EVENT_RECOMMENDED,
        EMBEDDINGS,
        VOCAB,
        CACHE,
        Parameter(
            "stopwords",
            "the function words, never released as nouns or verbs: 'english', a file "
            "of words, or a set of words",
            default="english",
        ),
        Parameter(
            "name_weight",
            "weight (> 0) of a name changed against a unit of word distance: each name "
            "of the public name lists goes through randomized response at name_weight * "
            "epsilon",
            default=NAME_WEIGHT,
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_WEIGHT,
            kind="number",
        ),
        Parameter(
            "frame_weight",
            "weight (> 0) of a frame changed (direct object, a preposition, none) "
            "against a unit of word distance: randomized response at frame_weight * "
            "epsilon",
            default=FRAME_WEIGHT,
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_WEIGHT,
            kind="number",
        ),
        ENTITIES,
    ),
    emp_event,
    label="Earth Mover's (events)",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=13,
    samplers=("argument_kernel", "verb_kernel", "name_noise", "frame_noise"),
    audit="authormask.audit.by_mechanism:emp_event",
    help="readable text of the text's own events: each clause's agent, verb and theme "
    "perturbed (Earth Mover's noise) and written as a plain sentence in the past tense.",
)
