"""Content recall: the share of an original text's content words that a release keeps.

A *content word* is a word token of :func:`~authormask.text.tokens.tokenize` (punctuation
marks are not words), lower-cased (:attr:`~authormask.text.tokens.Token.lower`, so a
typographic apostrophe reads as ``'``), that is not in the project's English stopword list
(:func:`~authormask.text.stopwords.load_stopwords` ``(None)``: NLTK's 153 function words and
the seven clitics the tokenizer splits off). Words are counted as a multiset: with ``c_o(w)``
and ``c_r(w)`` the counts of ``w`` among the original's and the release's content words,

``recall = sum_w min(c_o(w), c_r(w)) / sum_w c_o(w)``,

so a word the original uses three times and the release once counts once, and a release that
repeats one word cannot score by it. Recall reads words, not positions: it applies to a
release that rewrites in place, reorders or generates text, and it is 1 exactly when every
content word of the original is kept as often. An original without content words has nothing
to lose and scores 1.

Recall is the unigram recall of ROUGE-1 (Lin 2004) restricted to content words, without
stemming: a mechanism that replaces ``walked`` with ``walking`` is charged for it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import InputError
from authormask.text.stopwords import load_stopwords
from authormask.text.tokens import tokenize

__all__ = [
    "content_counts",
    "content_recall",
    "content_recalls",
    "content_words",
    "recall_identity",
    "recall_of_counts",
]


def _stopwords() -> frozenset[str]:
    return load_stopwords(None)[0]


def recall_identity() -> dict[str, str]:
    """What content recall reads, for a run's provenance and its cache keys.

    Returns
    -------
    dict[str, str]
        The tokenizer and the stopword list, in words.
    """
    return {
        "tokenizer": "authormask.text.tokenize word tokens, lower-cased",
        "stopwords": load_stopwords(None)[1],
    }


def content_words(text: str) -> list[str]:
    """The content words of ``text``, lower-cased, in order (module docstring).

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    list[str]
        Its content words.

    Examples
    --------
    >>> content_words("The cat didn't see the Cat's 2 hats.")
    ['cat', 'see', 'cat', '2', 'hats']
    """
    stop = _stopwords()
    return [t.lower for t in tokenize(text) if t.is_word and t.lower not in stop]


def content_counts(text: str) -> Counter[str]:
    """The multiset of ``text``'s content words (read once, compared with many texts).

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    Counter[str]
        Each content word and its count.
    """
    return Counter(content_words(text))


def recall_of_counts(wanted: Counter[str], kept: Counter[str]) -> float:
    """:func:`content_recall` of two :func:`content_counts` (1 when ``wanted`` is empty).

    Parameters
    ----------
    wanted
        The content words of the original, counted.
    kept
        The content words of the release, counted.

    Returns
    -------
    float
        The share of ``wanted`` found in ``kept``, in [0, 1].
    """
    total = sum(wanted.values())
    if total == 0:
        return 1.0
    return sum(min(c, kept[w]) for w, c in wanted.items()) / total


def content_recall(original: str, release: str) -> float:
    """The share of ``original``'s content words that ``release`` keeps, as a multiset.

    Parameters
    ----------
    original
        The original text.
    release
        Its release.

    Returns
    -------
    float
        The share, in [0, 1] (1 when the original has no content word).

    Examples
    --------
    >>> content_recall("Rain, rain and more rain fell.", "Rain fell on the fields.")
    0.5
    """
    return recall_of_counts(content_counts(original), content_counts(release))


def content_recalls(originals: Sequence[str], releases: Sequence[str]) -> NDArray[np.float64]:
    """:func:`content_recall` of each pair ``(originals[i], releases[i])``.

    Parameters
    ----------
    originals
        The original texts.
    releases
        Their releases, in the same order.

    Returns
    -------
    NDArray[np.float64]
        One recall per pair.

    Raises
    ------
    InputError
        If the two sequences differ in length.
    """
    if len(originals) != len(releases):
        raise InputError(f"{len(originals)} originals but {len(releases)} releases")
    return np.asarray(
        [content_recall(o, r) for o, r in zip(originals, releases, strict=True)],
        dtype=np.float64,
    )
