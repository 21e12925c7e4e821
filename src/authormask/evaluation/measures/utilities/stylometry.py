"""Stylometric feature vectors and their change (Bo et al. 2021, Table 1, "Stylometric").

Bo et al. measure the L2 distance between StyloMatrix feature vectors (Ding et al. 2017; features
of Iqbal et al. 2013 and Zheng et al. 2006) before and after generation. StyloMatrix is not
packaged, so authormask computes a documented vector of the same families of context-free
features. Rates are per 100 units so that the features share a scale:

* lexical (20): mean and standard deviation of word length in characters; share of words of
  length 1, 2, ..., 15 and >15 (per 100 words); type-token ratio and hapax-legomena ratio (x100)
* character (31): letters a-z per 100 letters; digits, upper-case letters, whitespace, other
  symbols (``~@#$%^&*_+=<>[]{}/\\|``) and letters per 100 characters
* function words (160): occurrences per 100 words of each word of authormask's English stopword
  list (``authormask/data/stopwords_en.txt``)
* punctuation (11): each of ``. , ; : ! ? ' " - ( )`` per 100 characters
* structural (3): sentences, mean and standard deviation of sentence length in words
"""

from __future__ import annotations

import string
from collections import Counter
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from authormask.text.sentences import split_sentences
from authormask.text.stopwords import default_stopwords
from authormask.text.tokens import tokenize

__all__ = ["feature_names", "stylometric_change", "stylometric_vector"]

_PUNCT = ".,;:!?'\"-()"
_SYMBOLS = "~@#$%^&*_+=<>[]{}/\\|"
_FUNCTION_WORDS = tuple(sorted(default_stopwords()))


def feature_names() -> tuple[str, ...]:
    """Names of the entries of :func:`stylometric_vector`, in order.

    Returns
    -------
    tuple[str, ...]
        The names.
    """
    names = ["word_length_mean", "word_length_std"]
    names += [f"words_of_length_{i}" for i in range(1, 16)] + ["words_longer_than_15"]
    names += ["type_token_ratio", "hapax_ratio"]
    names += [f"letter_{c}" for c in string.ascii_lowercase]
    names += ["digits", "uppercase", "whitespace", "symbols", "letters"]
    names += [f"fw_{w}" for w in _FUNCTION_WORDS]
    names += [f"punct_{p}" for p in _PUNCT]
    names += ["sentences", "sentence_length_mean", "sentence_length_std"]
    return tuple(names)


def stylometric_vector(text: str) -> NDArray[np.float64]:
    """The feature vector of ``text`` (see the module docstring for the list).

    Parameters
    ----------
    text
        The text.

    Returns
    -------
    NDArray[np.float64]
        The feature vector.

    Examples
    --------
    >>> v = stylometric_vector("The cat sat. The dog ran!")
    >>> dict(zip(feature_names(), v))["fw_the"]
    np.float64(33.333333333333336)
    """
    words = [t.text for t in tokenize(text) if t.is_word]
    lowered = [w.lower() for w in words]
    n_words = max(len(words), 1)
    lengths = np.array([len(w) for w in words], dtype=np.float64) if words else np.zeros(1)
    feats: list[float] = [float(lengths.mean()), float(lengths.std())]
    hist = np.bincount(np.minimum(lengths.astype(int), 16), minlength=17)[1:17]
    feats += list(100.0 * hist / n_words)
    counts = Counter(lowered)
    feats.append(100.0 * len(counts) / n_words)
    feats.append(100.0 * sum(1 for c in counts.values() if c == 1) / n_words)
    n_chars = max(len(text), 1)
    letters = [c for c in text.lower() if c in string.ascii_lowercase]
    letter_counts = Counter(letters)
    n_letters = max(len(letters), 1)
    feats += [100.0 * letter_counts[c] / n_letters for c in string.ascii_lowercase]
    feats.append(100.0 * sum(c.isdigit() for c in text) / n_chars)
    feats.append(100.0 * sum(c.isupper() for c in text) / n_chars)
    feats.append(100.0 * sum(c.isspace() for c in text) / n_chars)
    feats.append(100.0 * sum(c in _SYMBOLS for c in text) / n_chars)
    feats.append(100.0 * sum(c.isalpha() for c in text) / n_chars)
    feats += [100.0 * counts[w] / n_words for w in _FUNCTION_WORDS]
    feats += [100.0 * text.count(p) / n_chars for p in _PUNCT]
    sent_lengths = np.array(
        [sum(1 for t in tokenize(s) if t.is_word) for s in split_sentences(text)] or [0],
        dtype=np.float64,
    )
    feats += [float(len(sent_lengths)), float(sent_lengths.mean()), float(sent_lengths.std())]
    return np.asarray(feats, dtype=np.float64)


def stylometric_change(originals: Sequence[str], released: Sequence[str]) -> NDArray[np.float64]:
    """L2 distance between the feature vectors of each (original, released) pair.

    Parameters
    ----------
    originals
        The original texts.
    released
        Their releases, in the same order.

    Returns
    -------
    NDArray[np.float64]
        One distance per pair.

    Raises
    ------
    ValueError
        If the two sequences differ in length.
    """
    if len(originals) != len(released):
        raise ValueError(f"{len(originals)} originals but {len(released)} released texts")
    return np.asarray(
        [
            float(np.linalg.norm(stylometric_vector(a) - stylometric_vector(b)))
            for a, b in zip(originals, released, strict=True)
        ]
    )
