"""Koppel, Schler & Argamon (2011), "Authorship attribution in the wild", as used by
Fernandes et al. (2019, section 6 and appendix B.2).

Each text is a vector of character n-gram counts (default 4-grams) taken *within*
whitespace-separated words (words shorter than n count as one feature), over the
``n_features`` most frequent n-grams of the known texts (default 20,000, the PAN reproduction's
setting). Each of ``iterations`` rounds (default 100) draws a random ``feature_fraction`` of the
features (default one half) and, for every candidate, a random window of the candidate's text as
long as the snippet; the candidate most similar to the snippet (cosine, as the seed paper
describes, or min-max, the reproduction's choice) wins the round. The author with the largest
share of wins is predicted; if that share is below ``threshold`` the answer is "don't know".

Unlike the widely used reproduction (pan-webis-de/koppel11), the snippet's words are kept
separated, so no n-gram spans two words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import RandomState, check_random_state
from authormask.validation import check_positive_int

__all__ = ["SIMILARITIES", "KoppelAttacker", "word_ngrams"]

SIMILARITIES = ("cosine", "minmax")


def word_ngrams(word: str, n: int) -> list[str]:
    """Character n-grams inside one word; a word of at most n characters is one feature.

    Parameters
    ----------
    word
        The word.
    n
        The n-gram order.

    Returns
    -------
    list[str]
        The n-grams, in order.

    Examples
    --------
    >>> word_ngrams("colour", 3)
    ['col', 'olo', 'lou', 'our']
    >>> word_ngrams("an", 3)
    ['an']
    """
    if len(word) <= n:
        return [word]
    return [word[i : i + n] for i in range(len(word) - n + 1)]


class KoppelAttacker:
    """Koppel et al. (2011) random-subspace nearest-text attribution (see module docstring).

    Parameters
    ----------
    similarity
        ``"cosine"`` or ``"minmax"`` (:data:`SIMILARITIES`).
    ngram
        The character n-gram order.
    n_features
        The most frequent n-grams of the known texts kept as features.
    iterations
        The random rounds.
    feature_fraction
        The share of the features each round draws, in (0, 1].
    threshold
        The share of wins below which the answer is "don't know", in [0, 1].
    random_state
        The seed of the rounds' draws.

    Raises
    ------
    InvalidParameterError
        If ``similarity`` is unknown, or ``feature_fraction`` or ``threshold`` is out of range.
    """

    def __init__(
        self,
        *,
        similarity: str = "cosine",
        ngram: int = 4,
        n_features: int = 20_000,
        iterations: int = 100,
        feature_fraction: float = 0.5,
        threshold: float = 0.0,
        random_state: RandomState = None,
    ) -> None:
        if similarity not in SIMILARITIES:
            raise InvalidParameterError(
                f"similarity must be one of {', '.join(SIMILARITIES)}, got {similarity!r}"
            )
        if not 0.0 < feature_fraction <= 1.0:
            raise InvalidParameterError(
                f"feature fraction must be in (0, 1], got {feature_fraction!r}"
            )
        if not 0.0 <= threshold <= 1.0:
            raise InvalidParameterError(f"threshold must be in [0, 1], got {threshold!r}")
        self.similarity = similarity
        self.ngram = check_positive_int(ngram, name="n-gram size")
        self.n_features = check_positive_int(n_features, name="number of features")
        self.iterations = check_positive_int(iterations, name="iterations")
        self.feature_fraction = float(feature_fraction)
        self.threshold = float(threshold)
        self.random_state = random_state
        self.name = f"koppel-{similarity}"
        self._features: dict[str, int] = {}
        self._labels: list[str] = []
        self._token_rows: list[sp.csr_matrix] = []

    def _token_matrix(self, tokens: Sequence[str]) -> sp.csr_matrix:
        """Rows = tokens, columns = features, entries = n-gram counts of that token."""
        rows: list[int] = []
        cols: list[int] = []
        cache: dict[str, list[int]] = {}
        for r, tok in enumerate(tokens):
            ids = cache.get(tok)
            if ids is None:
                ids = [
                    self._features[g] for g in word_ngrams(tok, self.ngram) if g in self._features
                ]
                cache[tok] = ids
            rows.extend([r] * len(ids))
            cols.extend(ids)
        data = np.ones(len(rows), dtype=np.float64)
        m = sp.csr_matrix((data, (rows, cols)), shape=(len(tokens), len(self._features)))
        m.sum_duplicates()
        return m

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> KoppelAttacker:
        """Keep the ``n_features`` most frequent n-grams of the known texts and each text's n-gram
        counts per word.

        Parameters
        ----------
        items
            The known texts.
        labels
            The author of each known text.

        Returns
        -------
        KoppelAttacker
            The attacker itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes,
            or the known texts have no words.
        """
        check_training(items, labels, "Koppel attacker")
        token_lists = [item.text.split() for item in items]
        counts: Counter[str] = Counter()
        for tokens in token_lists:
            for tok in tokens:
                counts.update(word_ngrams(tok, self.ngram))
        if not counts:
            raise InputError("Koppel attacker: the known texts have no words")
        top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: self.n_features]
        self._features = {g: i for i, (g, _) in enumerate(top)}
        self._labels = list(labels)
        self._token_rows = [self._token_matrix(tokens) for tokens in token_lists]
        return self

    def _similarities(self, q: np.ndarray, k: np.ndarray) -> np.ndarray:
        if self.similarity == "cosine":
            num = q @ k.T
            den = np.linalg.norm(q, axis=1)[:, None] * np.linalg.norm(k, axis=1)[None, :]
            cos: np.ndarray = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
            return cos
        # min-max: sum(min)/sum(max) with min = (a+b-|a-b|)/2 and max = (a+b+|a-b|)/2
        l1 = cdist(q, k, metric="cityblock")
        s = q.sum(axis=1)[:, None] + k.sum(axis=1)[None, :]
        minmax: np.ndarray = np.divide(s - l1, s + l1, out=np.zeros_like(l1), where=(s + l1) > 0)
        return minmax

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Name the author of each text by the share of random rounds its known text wins.

        Parameters
        ----------
        items
            The texts to attribute.

        Returns
        -------
        Predictions
            The author with the largest share of wins (``None`` below ``threshold``) and that
            share.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if not self._features:
            raise InvalidParameterError("Koppel attacker: call fit before predict")
        rng = check_random_state(self.random_state)
        n_feat = len(self._features)
        subset = max(1, int(n_feat * self.feature_fraction))
        cand_lens = np.array([m.shape[0] for m in self._token_rows])
        stacked = sp.vstack(self._token_rows, format="csr")
        offsets = np.concatenate([[0], np.cumsum(cand_lens)[:-1]])
        queries = [self._token_matrix(item.text.split()) for item in items]
        # group queries by the window length they need (min of snippet and shortest text)
        lengths = [max(1, min(q.shape[0], int(cand_lens.min()))) for q in queries]
        labels_out: list[str | None] = [None] * len(items)
        scores_out = [0.0] * len(items)
        author_names = sorted(set(self._labels))
        author_of = np.array([author_names.index(a) for a in self._labels])
        for length in sorted(set(lengths)):
            members = [i for i, L in enumerate(lengths) if L == length]
            qmat = np.vstack([np.asarray(queries[i][:length].sum(axis=0)).ravel() for i in members])
            wins = np.zeros((len(members), len(author_names)), dtype=np.int64)
            for _ in range(self.iterations):
                feats = np.sort(rng.choice(n_feat, size=subset, replace=False))
                starts = rng.integers(0, cand_lens - length + 1)
                rows = np.concatenate(
                    [np.arange(o + s, o + s + length) for o, s in zip(offsets, starts, strict=True)]
                )
                cols = np.repeat(np.arange(len(cand_lens)), length)
                select = sp.csr_matrix(
                    (np.ones(rows.size), (cols, rows)), shape=(len(cand_lens), stacked.shape[0])
                )
                kmat = (select @ stacked).toarray()[:, feats]
                sims = self._similarities(qmat[:, feats], kmat)
                best = author_of[np.argmax(sims, axis=1)]
                np.add.at(wins, (np.arange(len(members)), best), 1)
            for row, i in enumerate(members):
                top = int(np.argmax(wins[row]))
                share = float(wins[row, top]) / self.iterations
                scores_out[i] = share
                labels_out[i] = author_names[top] if share >= self.threshold else None
        return Predictions(tuple(labels_out), tuple(scores_out))
