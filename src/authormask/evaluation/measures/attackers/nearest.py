"""Same-representation inference (Fernandes et al. 2019, section 6): k nearest reference texts
by the Earth Mover's distance between bags of word vectors (Definition 2, ``d_S`` = Euclidean
distance between embeddings). k = 1 is the author attacker (SRauth), k = 5 the topic classifier
(SRtopic).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.spatial.distance import cdist

from authormask.accounting.emd import pot
from authormask.embeddings._base import Embeddings
from authormask.evaluation.measures._base import Predictions, check_training
from authormask.evaluation.study import Item
from authormask.exceptions import InputError, InvalidParameterError
from authormask.validation import check_positive_int

__all__ = ["NearestNeighbourClassifier", "bag_distances"]


def _histogram(words: Sequence[str], embeddings: Embeddings) -> tuple[np.ndarray, np.ndarray]:
    counts = Counter(w for w in words if w in embeddings)
    if not counts:
        raise InputError(
            "a text has no words with a vector; its Earth Mover's distance is undefined"
        )
    vocab = sorted(counts)
    weights = np.array([counts[w] for w in vocab], dtype=np.float64)
    return embeddings.lookup(vocab).astype(np.float64), weights / weights.sum()


def bag_distances(
    queries: Sequence[Sequence[str]], references: Sequence[Sequence[str]], embeddings: Embeddings
) -> np.ndarray:
    """Matrix of Earth Mover's distances E(query_i, reference_j) between bags of words.

    Bags are histograms over their distinct words (weights = relative counts), which gives the
    same value as the N x N assignment of Definition 2 for bags of equal size, at less cost.

    Parameters
    ----------
    queries
        The query bags of words.
    references
        The reference bags of words.
    embeddings
        The word vectors; words without one are left out.

    Returns
    -------
    np.ndarray
        The distances, one row per query and one column per reference.
    """
    hq = [_histogram(q, embeddings) for q in queries]
    hr = [_histogram(r, embeddings) for r in references]
    out = np.empty((len(hq), len(hr)))
    ot = pot()
    for i, (xq, wq) in enumerate(hq):
        for j, (xr, wr) in enumerate(hr):
            cost = cdist(xq, xr)
            out[i, j] = float(ot.emd2(wq, wr, cost, numItermax=1_000_000))
    return out


def _nearest(
    query: tuple[np.ndarray, np.ndarray],
    refs: Sequence[tuple[np.ndarray, np.ndarray]],
    k: int,
) -> list[tuple[float, int]]:
    """The k nearest references by exact EMD, as ``(distance, index)`` sorted ascending.

    Exact EMDs are computed in increasing order of the relaxed lower bound of Kusner et al.
    (2015, RWMD: each side's mass moved to its nearest point on the other side); the search stops
    once the bound exceeds the k-th best distance, so the answer equals the full computation.
    """
    xq, wq = query
    costs = [cdist(xq, xr) for xr, _ in refs]
    bounds = np.array(
        [
            max(float(wq @ c.min(axis=1)), float(wr @ c.min(axis=0)))
            for c, (_, wr) in zip(costs, refs, strict=True)
        ]
    )
    found: list[tuple[float, int]] = []
    ot = pot()
    for j in np.argsort(bounds, kind="stable"):
        if len(found) >= k and bounds[j] > found[k - 1][0]:
            break
        value = float(ot.emd2(wq, refs[int(j)][1], costs[int(j)], numItermax=1_000_000))
        found.append((value, int(j)))
        found.sort()
    return found[:k]


class NearestNeighbourClassifier:
    """k-NN by Earth Mover's distance; majority label of the k nearest, ties to the nearest.

    ``n_jobs`` threads search queries in parallel (POT's solver releases the GIL).

    Parameters
    ----------
    embeddings
        The word vectors of the Earth Mover's distance.
    k
        The nearest reference texts that vote.
    name
        The classifier's name, or ``None`` for ``<k>nn-emd``.
    n_jobs
        The threads that search queries in parallel.
    """

    def __init__(
        self, embeddings: Embeddings, *, k: int = 1, name: str | None = None, n_jobs: int = 2
    ) -> None:
        self.embeddings = embeddings
        self.k = check_positive_int(k, name="k")
        self.n_jobs = check_positive_int(n_jobs, name="n_jobs")
        self.name = name or f"{k}nn-emd"
        self._refs: list[tuple[np.ndarray, np.ndarray]] = []
        self._labels: list[str] = []

    def fit(self, items: Sequence[Item], labels: Sequence[str]) -> NearestNeighbourClassifier:
        """Keep the reference texts' bags of words as histograms of vectors.

        Parameters
        ----------
        items
            The reference texts.
        labels
            The label of each reference text.

        Returns
        -------
        NearestNeighbourClassifier
            The classifier itself, trained.

        Raises
        ------
        InputError
            If ``items`` and ``labels`` differ in length or name fewer than 2 classes, or a
            text has no word with a vector.
        InvalidParameterError
            If ``k`` is larger than the number of reference texts.
        """
        check_training(items, labels, f"{self.k}-NN")
        if self.k > len(items):
            raise InvalidParameterError(f"k={self.k} is larger than the {len(items)} references")
        self._refs = [_histogram(item.words, self.embeddings) for item in items]
        self._labels = list(labels)
        return self

    def predict(self, items: Sequence[Item]) -> Predictions:
        """Label each text by the majority of its ``k`` nearest reference texts.

        Parameters
        ----------
        items
            The texts to label.

        Returns
        -------
        Predictions
            The majority label of each text and its distance to the nearest reference.

        Raises
        ------
        InvalidParameterError
            If ``fit`` has not been called.
        """
        if not self._refs:
            raise InvalidParameterError("k-NN: call fit before predict")
        queries = [_histogram(item.words, self.embeddings) for item in items]
        with ThreadPoolExecutor(max_workers=self.n_jobs) as pool:
            results = list(pool.map(lambda q: _nearest(q, self._refs, self.k), queries))
        labels: list[str | None] = []
        scores: list[float] = []
        for nearest in results:
            votes = Counter(self._labels[j] for _, j in nearest)
            top = max(votes.values())
            # ties between labels go to the label of the nearest tied reference
            winner = next(self._labels[j] for _, j in nearest if votes[self._labels[j]] == top)
            labels.append(winner)
            scores.append(nearest[0][0])
        return Predictions(tuple(labels), tuple(scores))
