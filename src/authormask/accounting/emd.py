"""Earth Mover's (Word Mover's) distance between bags of vectors (Definition 3, eqs. 1-2)."""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError

__all__ = ["EMDResult", "earth_movers_distance", "word_movers_distance"]


@dataclass(frozen=True)
class EMDResult:
    """The distance ``E(X, Y)`` and how it was solved.

    ``method`` is ``"assignment"`` for equal-size bags (Lemma A1 / Theorem A1: an optimal flow is
    a permutation, so the LP reduces to a linear assignment solved exactly by scipy) and
    ``"transport"`` otherwise (exact network simplex of POT, ``ot.emd2``).

    Attributes
    ----------
    distance
        The Earth Mover's distance.
    size_a
        The number of vectors of the first bag.
    size_b
        The number of vectors of the second bag.
    method
        ``"assignment"`` or ``"transport"``: how it was solved.
    """

    distance: float
    size_a: int
    size_b: int
    method: str


#: POT's backends other than numpy's, which it imports (torch: 2 s and 200 MB) unless told not to
_POT_BACKENDS_OFF = (
    "POT_BACKEND_DISABLE_PYTORCH",
    "POT_BACKEND_DISABLE_JAX",
    "POT_BACKEND_DISABLE_TENSORFLOW",
    "POT_BACKEND_DISABLE_CUPY",
)
_POT_LOCK = threading.Lock()
_POT: Any = None


def pot() -> Any:
    """POT (``ot``), imported with only its numpy backend where it is not imported yet: every
    transport here is solved on numpy arrays, and POT's import otherwise imports torch, JAX,
    TensorFlow and CuPy where they are installed (torch: 2 of its 5 seconds and 200 MB). The
    switches are POT's own environment variables, set while it is imported and restored after
    (a variable the user set is left as it is); once imported, POT is as it was imported.

    Returns
    -------
    Any
        The ``ot`` module.
    """
    global _POT
    if _POT is not None:
        return _POT
    with _POT_LOCK:  # one import, and no thread sees a module still being initialised
        if _POT is None:
            if "ot" in sys.modules:  # imported before, as its importer chose
                import ot
            else:
                saved = {k: os.environ.get(k) for k in _POT_BACKENDS_OFF}
                try:
                    for k in _POT_BACKENDS_OFF:
                        os.environ.setdefault(k, "1")
                    import ot
                finally:
                    for k, v in saved.items():
                        if v is None:
                            os.environ.pop(k, None)
                        else:
                            os.environ[k] = v
            _POT = ot
    return _POT


def earth_movers_distance(a: ArrayLike, b: ArrayLike) -> EMDResult:
    """E_{d2}(X, Y) for bags given as arrays of vectors (one row per word occurrence).

    Each occurrence carries mass ``1/|X|`` (resp. ``1/|Y|``) as in eq. (2); the ground metric is
    the Euclidean distance.

    Parameters
    ----------
    a
        The first bag: one row per word occurrence.
    b
        The second bag, of the same dimension.

    Returns
    -------
    EMDResult
        The distance and the method that solved it.

    Raises
    ------
    InputError
        If a bag is empty or the bags' dimensions differ.

    Examples
    --------
    >>> earth_movers_distance([[0.0], [1.0]], [[1.0], [3.0]]).distance
    1.5
    """
    x = np.atleast_2d(np.asarray(a, dtype=np.float64))
    y = np.atleast_2d(np.asarray(b, dtype=np.float64))
    if x.shape[0] == 0 or y.shape[0] == 0 or x.size == 0 or y.size == 0:
        raise InputError("Earth Mover's distance needs two non-empty bags")
    if x.shape[1] != y.shape[1]:
        raise InputError(f"bags have different dimensions: {x.shape[1]} and {y.shape[1]}")
    # SciPy is imported when a distance is computed, not by a release that only states it
    from scipy.optimize import linear_sum_assignment
    from scipy.spatial.distance import cdist

    cost: NDArray[np.float64] = cdist(x, y, metric="euclidean")
    if x.shape[0] == y.shape[0]:
        rows, cols = linear_sum_assignment(cost)
        value = float(cost[rows, cols].sum() / x.shape[0])
        return EMDResult(value, x.shape[0], y.shape[0], "assignment")
    ot = pot()  # POT pulls in scikit-learn: imported only when a transport is solved

    wa = np.full(x.shape[0], 1.0 / x.shape[0])
    wb = np.full(y.shape[0], 1.0 / y.shape[0])
    value = float(ot.emd2(wa, wb, cost))
    return EMDResult(value, x.shape[0], y.shape[0], "transport")


def word_movers_distance(
    bag_a: Iterable[str] | Counter[str], bag_b: Iterable[str] | Counter[str], embeddings: Embeddings
) -> EMDResult:
    """E_{d_S}(b, b') between two bags of words, ``d_S = dist_Vec`` (Definition 2).

    Parameters
    ----------
    bag_a
        The first bag: its words (repeated for each occurrence) or a Counter.
    bag_b
        The second bag.
    embeddings
        The vectors of the words.

    Returns
    -------
    EMDResult
        The distance between the bags' vectors.

    Raises
    ------
    InputError
        If a word has no vector in ``embeddings``.
    """
    words_a = list(bag_a.elements()) if isinstance(bag_a, Counter) else list(bag_a)
    words_b = list(bag_b.elements()) if isinstance(bag_b, Counter) else list(bag_b)
    missing = [w for w in words_a + words_b if w not in embeddings]
    if missing:
        raise InputError(f"words without a vector in {embeddings.name}: {missing[:5]}")
    return earth_movers_distance(embeddings.lookup(words_a), embeddings.lookup(words_b))
