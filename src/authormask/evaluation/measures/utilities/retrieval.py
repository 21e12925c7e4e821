"""What a similarity is worth: retrieval of a release's own original among the originals, and
the similarity floor of unrelated texts. Both read document vectors (unit rows, e.g. MiniLM's,
:meth:`~authormask.evaluation.measures.utilities.similarity.SentenceSimilarity.embed`), so
the texts are embedded once for every measure.

* **Retrieval**: release ``i`` is *retrieved* when its most similar original (largest cosine)
  among ``originals`` is its own original ``i`` (a tie with its own counts for it). The share
  of retrieved releases is 1 when every release stays closer to its source than to any other
  text of the set, and a uniform guess scores ``1 / len(originals)``.
* **Similarity floor**: the mean cosine of two *different* originals of the set, over all
  ``k (k - 1) / 2`` pairs: what two unrelated texts of the same collection already share
  (topic, genre, register). A release's similarity to its original means something only above
  it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import InputError

__all__ = ["retrieval_hits", "similarity_floor"]


def _unit_rows(vectors: NDArray[np.float64], name: str) -> NDArray[np.float64]:
    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2:
        raise InputError(f"{name} must be a matrix of row vectors, got shape {v.shape}")
    return v


def retrieval_hits(
    originals: NDArray[np.float64],
    releases: NDArray[np.float64],
    own: Sequence[int] | None = None,
) -> NDArray[np.bool_]:
    """Per release (row ``i`` of ``releases``), whether its most similar row of ``originals``
    (by dot product: the cosine of unit rows) is its own original, row ``own[i]`` (row ``i``
    without ``own``; ties count as a hit).

    Parameters
    ----------
    originals
        The originals' unit vectors, one row each: every original the releases are searched
        among, their own and the others.
    releases
        The releases' unit vectors.
    own
        The row of ``originals`` that is each release's own original, or ``None``: then
        ``originals`` and ``releases`` are in the same order and of the same size.

    Returns
    -------
    NDArray[np.bool_]
        One flag per release.

    Raises
    ------
    InputError
        If either is not a matrix, their shapes differ (without ``own``), or ``own`` does not
        name one row of ``originals`` per release.

    Examples
    --------
    >>> o = np.eye(3)
    >>> retrieval_hits(o, o).tolist(), retrieval_hits(o, o[[1, 0, 2]]).tolist()
    ([True, True, True], [False, False, True])
    >>> retrieval_hits(o, o[[2, 0]], own=[2, 1]).tolist()
    [True, False]
    """
    a = _unit_rows(originals, "originals")
    b = _unit_rows(releases, "releases")
    if own is None:
        if a.shape != b.shape:
            raise InputError(f"{a.shape[0]} originals but {b.shape[0]} releases")
        rows = np.arange(b.shape[0])
    else:
        rows = np.asarray(own, dtype=np.int64).reshape(-1)
        if rows.shape[0] != b.shape[0] or a.shape[1] != b.shape[1]:
            raise InputError(f"{rows.shape[0]} own originals named for {b.shape[0]} releases")
        if rows.size and (rows.min() < 0 or rows.max() >= a.shape[0]):
            raise InputError(f"an own original outside the {a.shape[0]} originals")
    sims = b @ a.T
    mine = sims[np.arange(b.shape[0]), rows]
    return np.asarray(mine >= sims.max(axis=1))


def similarity_floor(originals: NDArray[np.float64]) -> NDArray[np.float64]:
    """The cosine of every pair ``i < j`` of different rows of ``originals`` (unit rows), in
    row-major order; empty for fewer than two rows.

    Parameters
    ----------
    originals
        The unit vectors, one row each.

    Returns
    -------
    NDArray[np.float64]
        The cosines.

    Raises
    ------
    InputError
        If ``originals`` is not a matrix.

    Examples
    --------
    >>> similarity_floor(np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])).round(2).tolist()
    [0.6, 0.0, 0.8]
    """
    a = _unit_rows(originals, "originals")
    upper = np.triu_indices(a.shape[0], k=1)
    return np.asarray((a @ a.T)[upper], dtype=np.float64)
