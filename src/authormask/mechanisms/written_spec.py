"""emp-write as the registry offers it (:class:`~authormask.mechanisms.written.EMPWrite`:
Earth Mover's privacy on the content words, the rest written by a public model), its spec and
its factory, declared as a plugin declares its own (``docs/adding-a-mechanism.md``). Imports no
numpy: the class, the writer and the lexicon are imported when the mechanism is built."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from authormask.defaults import CONTENT, MAX_WEIGHT, PRIOR_WEIGHT
from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import (
    CACHE,
    EMBEDDINGS,
    ENTITIES,
    RECOMMENDED,
    VOCAB,
    MechanismSpec,
    Parameter,
)

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["SPEC", "emp_write"]


def emp_write(p: dict[str, Any]) -> Mechanism:
    """emp-write (:class:`~authormask.mechanisms.written.EMPWrite`) with its writer.

    Parameters
    ----------
    p
        The mechanism's checked parameters, by name.

    Returns
    -------
    Mechanism
        The mechanism.
    """
    from authormask.mechanisms.written import EMPWrite, all_function_words
    from authormask.models.writer import load_writer

    emb, words, described = _loaders.vectors_and_words(p)
    released = None
    if p["content"] == "nouns":
        lexicon = _loaders.noun_lexicon(emb, words, p["cache_dir"])
        released = (lexicon.nouns, lexicon.describe())
    return EMPWrite(
        embeddings=emb,
        epsilon=p["epsilon"],
        function_words=words,
        function_words_description=described,
        writer=load_writer(
            emb, all_function_words(words), released, cache_dir=p["cache_dir"] or "default"
        ),
        decoder=p["decoder"],
        prior_weight=p["prior_weight"],
        released=released,
    )


SPEC = MechanismSpec(
    "emp-write",
    "Earth Mover's privacy on the content words, in order; function words, punctuation "
    "and sentence boundaries written by a public language model from the released words",
    (
        RECOMMENDED,
        EMBEDDINGS,
        VOCAB,
        CACHE,
        Parameter(
            "stopwords",
            "the function words, never released (the public writer writes its own): "
            "'english', a file of words, or a set of words",
            default="english",
        ),
        Parameter(
            "content",
            "which words are released: nouns (only the nouns of a public lexicon; the "
            "public writer writes everything else, verbs and adjectives too) or words "
            "(every content word)",
            default=CONTENT,
            choices=("nouns", "words"),
        ),
        Parameter(
            "decoder",
            "how the noisy vectors become words: context (the most probable word "
            "sequence under a public language model), posterior or nearest; all "
            "post-processing, same guarantee",
            default="context",
            choices=("context", "posterior", "nearest"),
        ),
        Parameter(
            "prior_weight",
            "weight (> 0) of the public language model against the noise in the context "
            "decoder: above 1, common words are kept and rare ones replaced more often "
            "(post-processing, same guarantee)",
            default=PRIOR_WEIGHT,
            minimum=0.0,
            exclusive_minimum=True,
            maximum=MAX_WEIGHT,
            kind="number",
        ),
        ENTITIES,
    ),
    emp_write,
    label="Earth Mover's (written)",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=11,
    samplers=("kernel",),
    audit="authormask.audit.by_mechanism:emp_write",
    help="readable text whose guarantee covers the skeleton: only the content words are "
    "perturbed and released, in order; function words, punctuation and sentence "
    "boundaries are written by a public language model from the released words "
    "(`decoder` context).",
)
