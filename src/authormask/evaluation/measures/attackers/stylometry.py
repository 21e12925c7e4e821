"""``stylometry``: classic stylometric features and multinomial logistic regression.

What it reads (the text lower-cased and split by the project's tokenizer,
:func:`authormask.text.tokens`, clitics such as ``n't`` being words of their own):

* **function words**: the relative frequency (per word) of each word of the project's default
  function-word list (:func:`authormask.text.stopwords.default_stopwords`, 160 words, the list
  ``emp-doc`` keeps as its function-word class), after Mosteller & Wallace (1964, *Inference and
  Disputed Authorship: The Federalist*: the rates of frequent function words) and Burrows (1987;
  2002, "Delta", the most frequent words' standardised rates);
* **word lengths**: the share of words of 1, 2, ..., 14 and 15 or more characters (Mendenhall
  1887, "The characteristic curves of composition");
* **sentence lengths**: the mean, standard deviation and 10/25/50/75/90% quantiles of the words
  per sentence, sentences ending at ``.``, ``!`` or ``?`` (Yule 1939, "On sentence-length as a
  statistical characteristic of style in prose"), and the number of sentences per word;
* **punctuation**: the rate per word of each mark of :data:`PUNCTUATION` and of every other
  punctuation token together.

These are fewer than the stylometric vector of the ``bo2021`` utility
(:mod:`authormask.evaluation.measures.utilities.stylometry`, which also counts letters, digits
and vocabulary richness): an attacker here reads nothing of the words' spelling but their
length.

How it decides: every feature is standardised (mean 0, variance 1 over the known texts) and a
multinomial logistic regression (L2, ``C``) names the author. It never reads a content word, so a
mechanism that replaces content words but keeps function words, punctuation and sentence
structure leaves it what it reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InvalidParameterError
from authormask.randomness import RandomState
from authormask.text.stopwords import default_stopwords
from authormask.text.tokens import tokenize

__all__ = [
    "PUNCTUATION",
    "SENTENCE_ENDS",
    "StylometryAttacker",
    "feature_names",
    "stylometric_features",
]

#: the punctuation marks counted one by one (any other punctuation token is counted together)
PUNCTUATION = (
    ".",
    ",",
    ";",
    ":",
    "!",
    "?",
    "'",
    '"',
    "(",
    ")",
    "-",
    "\u2013",  # en dash
    "\u2014",  # em dash
    "\u2026",  # ellipsis
    "\u2018",
    "\u2019",
    "\u201c",
    "\u201d",
    "*",
    "/",
)
#: the marks that end a sentence
SENTENCE_ENDS = frozenset({".", "!", "?"})
#: word lengths 1 .. 15, the last bin holding every longer word too
MAX_WORD_LENGTH = 15
_QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def feature_names(function_words: Sequence[str]) -> list[str]:
    """The names of :func:`stylometric_features`' columns, in order.

    Parameters
    ----------
    function_words
        The function words, in the order of the features.

    Returns
    -------
    list[str]
        The column names.
    """
    return [
        *(f"fw:{w}" for w in function_words),
        *(f"len:{n}" for n in range(1, MAX_WORD_LENGTH + 1)),
        "sent:mean",
        "sent:sd",
        *(f"sent:q{round(100 * q)}" for q in _QUANTILES),
        "sent:per-word",
        *(f"punct:{p}" for p in PUNCTUATION),
        "punct:other",
    ]


def stylometric_features(text: str, function_words: Sequence[str]) -> np.ndarray:
    """The feature vector of ``text`` (module docstring), ``function_words`` in a fixed order.

    A text without words gives zeros.

    Parameters
    ----------
    text
        The text.
    function_words
        The function words whose rates are read, in order.

    Returns
    -------
    np.ndarray
        The feature vector.

    Examples
    --------
    >>> x = stylometric_features("I saw it. It was big!", ["i", "it", "was"])
    >>> [round(float(v), 3) for v in x[:3]]  # rates of i, it, was among 6 words
    [0.167, 0.333, 0.167]
    >>> float(x[3 + MAX_WORD_LENGTH])  # mean sentence length: 3 words, 3 words
    3.0
    """
    index = {w: j for j, w in enumerate(function_words)}
    punct_index = {p: j for j, p in enumerate(PUNCTUATION)}
    fw = np.zeros(len(function_words))
    lengths = np.zeros(MAX_WORD_LENGTH)
    punct = np.zeros(len(PUNCTUATION) + 1)
    sentences: list[int] = []
    in_sentence = 0
    words = 0
    for t in tokenize(text.lower()):
        if t.is_word:
            words += 1
            in_sentence += 1
            j = index.get(t.lower)
            if j is not None:
                fw[j] += 1
            lengths[min(len(t.text), MAX_WORD_LENGTH) - 1] += 1
            continue
        punct[punct_index.get(t.text, len(PUNCTUATION))] += 1
        if t.text in SENTENCE_ENDS and in_sentence:
            sentences.append(in_sentence)
            in_sentence = 0
    if in_sentence:
        sentences.append(in_sentence)
    if words == 0:
        return np.zeros(len(function_words) + MAX_WORD_LENGTH + 3 + len(_QUANTILES) + len(punct))
    per_sentence = np.asarray(sentences, dtype=np.float64)
    sentence_stats = np.concatenate(
        (
            [per_sentence.mean(), per_sentence.std()],
            np.quantile(per_sentence, _QUANTILES),
            [len(sentences) / words],
        )
    )
    return np.concatenate((fw / words, lengths / words, sentence_stats, punct / words))


class StylometryAttacker:
    """Function-word rates, word- and sentence-length statistics and punctuation rates,
    standardised, and multinomial logistic regression (see module docstring).

    Parameters
    ----------
    c
        The inverse L2 penalty of the logistic regression (> 0).
    function_words
        The words whose rates are read, or ``None`` for the default stopwords.
    random_state
        Kept for the common interface (the solver is deterministic).

    Raises
    ------
    InvalidParameterError
        If ``c`` is not above 0.
    """

    def __init__(
        self,
        *,
        c: float = 0.1,
        function_words: frozenset[str] | None = None,
        random_state: RandomState = None,
    ) -> None:
        if not c > 0:
            raise InvalidParameterError(f"logistic regression C must be > 0, got {c!r}")
        self.c = float(c)
        words = default_stopwords() if function_words is None else function_words
        self.function_words = tuple(sorted(words))
        self.random_state = random_state  # the solver (lbfgs) is deterministic
        self.name = "stylometry"
        self._scaler: Any = None
        self._model: Any = None

    def features(self, texts: Sequence[str]) -> np.ndarray:
        """One row of :func:`stylometric_features` per text (unscaled).

        Parameters
        ----------
        texts
            The texts.

        Returns
        -------
        np.ndarray
            One row per text.
        """
        return np.stack([stylometric_features(t, self.function_words) for t in texts])

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> StylometryAttacker:
        """Standardise the known texts' features and train the logistic regression.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        StylometryAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes.
        """
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        check_training(items, labels, "stylometry attacker")
        self._scaler = StandardScaler()
        x = self._scaler.fit_transform(self.features([i.text for i in items]))
        self._model = LogisticRegression(C=self.c, max_iter=5000).fit(x, list(labels))
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the most probable author of each text.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            The author of each text and its probability.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if self._model is None:
            raise InvalidParameterError("stylometry attacker: call fit before predict")
        x = self._scaler.transform(self.features([i.text for i in items]))
        proba = np.asarray(self._model.predict_proba(x), dtype=np.float64)
        classes = [str(c) for c in self._model.classes_]
        best = np.argmax(proba, axis=1)
        return Predictions(
            tuple(classes[int(b)] for b in best),
            tuple(float(proba[i, b]) for i, b in enumerate(best)),
        )
