"""Sentences: the share of a text's sentences that have a finite verb, read by spaCy's parse.

A reader follows a story through clauses: someone *did* something. A release that keeps nouns
and drops verbs ("His mouth yell words on the mouth. Good assault") has sentences without a
finite verb, which no other utility measure sees (MiniLM similarity and content recall read
words, the fluency judge reads word order). This measure reads the sentences as the packaged
spaCy pipeline (``en_core_web_md``, :func:`~authormask.text.pipeline.load_pipeline`) splits and
tags them:

* a *sentence* is a span of the dependency parser's sentence segmentation that holds at least
  one alphabetic token (a run of marks, "...", is not one);
* it *has a finite verb* when one of its tokens has the morphological feature ``VerbForm=Fin``
  (spaCy's attribute ruler sets it from the tag) or one of the tags ``VBD`` (past), ``VBP``,
  ``VBZ`` (present) or ``MD`` (modal);
* a text's value is the share of its sentences with a finite verb (0 for a text without a
  sentence), and a set of texts is summarised by the mean of those shares.

Prose is not 100%: dialogue has verbless lines ("Yes.", "Oh, Harry."), so the measure is read
beside the original's share (the PAN protocol reports both). Lower-cased text parses
differently from cased text; a release the mechanism lower-cases is read as it is released.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FINITE_TAGS",
    "SENTENCES_DESCRIPTION",
    "finite_verb_shares",
    "sentences_identity",
]

#: the Penn Treebank tags of a finite verb (besides the morphological feature VerbForm=Fin)
FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
#: one line for tables and provenance
SENTENCES_DESCRIPTION = (
    "per text the share of its sentences (spaCy en_core_web_md's parse; a sentence holds an "
    "alphabetic token) with a finite verb (a token with VerbForm=Fin, or tag VBD, VBP, VBZ or "
    "MD); the mean over texts"
)
#: the pipeline's components this measure does not need
_EXCLUDE = ["ner", "lemmatizer"]

_LOCK = threading.Lock()
_PARSER: list[Any] = []


def _parser() -> Any:
    """The packaged pipeline with its tagger and parser (loaded once per process)."""
    with _LOCK:
        if not _PARSER:
            from authormask.text.pipeline import load_pipeline

            _PARSER.append(load_pipeline(exclude=_EXCLUDE, purpose="the sentences measure"))
        return _PARSER[0]


def sentences_identity() -> dict[str, Any]:
    """What the measure reads besides the texts, for a cache key and a run's provenance: the
    pipeline's name and version, spaCy's version and the rule.

    Returns
    -------
    dict[str, Any]
        ``pipeline``, ``spacy`` and ``rule``.
    """
    import importlib.metadata

    nlp = _parser()
    return {
        "pipeline": f"{nlp.meta.get('lang', '')}_{nlp.meta.get('name', '')}=="
        f"{nlp.meta.get('version', '')}",
        "spacy": importlib.metadata.version("spacy"),
        "rule": SENTENCES_DESCRIPTION,
    }


def _has_finite_verb(sentence: Any) -> bool:
    return any(
        "Fin" in token.morph.get("VerbForm") or token.tag_ in FINITE_TAGS for token in sentence
    )


def finite_verb_shares(texts: Sequence[str], *, nlp: Any = None) -> NDArray[np.float64]:
    """Per text, the share of its sentences that have a finite verb (module docstring).

    Parameters
    ----------
    texts
        The texts.
    nlp
        A spaCy pipeline with a tagger and a parser (default: the packaged one).

    Returns
    -------
    NDArray[np.float64]
        One share in [0, 1] per text (0 for a text without a sentence).

    Examples
    --------
    >>> shares = finite_verb_shares(["She ran home. Then the rain.", "Good assault."])
    >>> [round(float(s), 2) for s in shares]
    [0.5, 0.0]
    """
    pipeline = _parser() if nlp is None else nlp
    out = np.zeros(len(texts), dtype=np.float64)
    for i, doc in enumerate(pipeline.pipe(list(texts), batch_size=16)):
        sentences = [s for s in doc.sents if any(t.is_alpha for t in s)]
        if sentences:
            out[i] = sum(_has_finite_verb(s) for s in sentences) / len(sentences)
    return out
