"""emp-sentence as the registry offers it
(:class:`~authormask.mechanisms.sentences.EMPSentence`: Earth Mover's privacy on sentences, a
public bank's, and on their nouns), its spec and its factory, declared as a plugin declares its
own (``docs/adding-a-mechanism.md``). Imports no numpy: the class, the bank and emp-write's noun
mechanism are imported when the mechanism is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authormask.defaults import MAX_WEIGHT, NAME_WEIGHT, PRIOR_WEIGHT, SENTENCE_WEIGHT
from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import (
    CACHE,
    EMBEDDINGS,
    ENTITIES,
    SENTENCE_RECOMMENDED,
    VOCAB,
    MechanismSpec,
    Parameter,
)
from authormask.mechanisms.written_spec import emp_write

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["SPEC", "emp_sentence"]


def emp_sentence(p: dict[str, Any]) -> Mechanism:
    """emp-sentence (:class:`~authormask.mechanisms.sentences.EMPSentence`) with its noun
    mechanism (emp-write's, content nouns) and the public sentence bank.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.sentences import EMPSentence
    from authormask.models.sentence_bank import load_sentence_bank

    words = emp_write({**p, "content": "nouns"})
    written: Any = words
    names, alphabet = _loaders.public_names(written.released[0])
    cache = "default" if p["cache_dir"] is None else p["cache_dir"]
    return EMPSentence(
        words=written,
        bank=load_sentence_bank(cache_dir=cache),
        epsilon=p["epsilon"],
        sentence_weight=p["sentence_weight"],
        names=names,
        name_alphabet=alphabet,
        name_weight=p["name_weight"],
    )


SPEC = MechanismSpec(
    "emp-sentence",
    "Earth Mover's privacy on each sentence (snapped to a real sentence of a public "
    "bank) and on each noun (put in that sentence's noun slots), in order",
    (
        SENTENCE_RECOMMENDED,
        EMBEDDINGS,
        VOCAB,
        CACHE,
        Parameter(
            "stopwords",
            "the function words, never released as nouns: 'english', a file of words, "
            "or a set of words",
            default="english",
        ),
        Parameter(
            "decoder",
            "how the nouns' noisy vectors become words: context (the most probable "
            "sequence under a public language model), posterior or nearest; all "
            "post-processing, same guarantee",
            default="context",
            choices=("context", "posterior", "nearest"),
        ),
        Parameter(
            "prior_weight",
            "weight (> 0) of the public language model against the noise in the context "
            "decoder (post-processing, same guarantee)",
            default=PRIOR_WEIGHT,
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_WEIGHT,
            kind="number",
        ),
        Parameter(
            "sentence_weight",
            "weight (> 0) of a sentence's distance against a noun's: each sentence gets "
            "sentence_weight * epsilon per unit of sentence distance",
            default=SENTENCE_WEIGHT,
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_WEIGHT,
            kind="number",
        ),
        Parameter(
            "name_weight",
            "weight (> 0) of a name changed against a unit of noun distance: each name "
            "of the public name lists goes through randomized response at name_weight * "
            "epsilon",
            default=NAME_WEIGHT,
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_WEIGHT,
            kind="number",
        ),
        ENTITIES,
    ),
    emp_sentence,
    label="Earth Mover's (sentences)",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=12,
    samplers=("kernel", "sentence_noise", "name_noise"),
    audit="authormask.audit.by_mechanism:emp_sentence",
    help="readable text made of real sentences: each sentence snapped, after "
    "Earth Mover's noise, to a sentence of a public bank, with the document's noisy "
    "nouns in its noun slots (`sentence_weight`).",
)
