"""Names through k-ary randomized response: metric DP for the discrete metric on a public
alphabet of names.

A name ``x`` of a public alphabet ``A`` (``k`` words) is released as ``y`` with

    ``P[y | x] = 1 - lambda + lambda / k`` if ``y = x``, else ``lambda / k``,

drawn as: with probability ``lambda`` a uniform word of ``A`` (``x`` itself included), else
``x``. This is the exponential mechanism with the discrete metric ``d(x, y) = [x != y]``:
``P[y | x] = exp(-epsilon * d(x, y)) / Z`` with the same ``Z = 1 + (k - 1) exp(-epsilon)`` for
every ``x``, so ``P[y | x] <= exp(epsilon * d(x, x')) * P[y | x']`` exactly when
``lambda >= k / (exp(epsilon) - 1 + k)`` (the ratio of the two cases is ``1 + k (1 - lambda) /
lambda``). Kairouz, Oh & Viswanath (2016), k-ary randomized response; Chatzikokolakis et al.
(2013) for metric DP.

As implemented: ``lambda`` is computed in 60-digit decimal arithmetic and rounded *up* to a
double (more noise, never less), and the coin is exact for that double
(:func:`~authormask.mechanisms._exact.bernoulli_double`, fair bits only); the uniform word is an
unbiased bounded integer. So the realised ratio is at most ``exp(epsilon)`` at every epsilon
the code accepts (where the true ``lambda`` is below the smallest double, that one is used).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal, localcontext

import numpy as np
from numpy.typing import NDArray

from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._exact import bernoulli_double
from authormask.validation import check_epsilon

__all__ = ["NameKernel", "redraw_probability"]


def redraw_probability(epsilon: float, k: int) -> float:
    """The smallest double ``lambda`` at or above ``k / (exp(epsilon) - 1 + k)``: the
    probability of a uniform redraw that makes k-ary randomized response ``epsilon``-private
    (module notes).

    Parameters
    ----------
    epsilon
        Per name changed, > 0.
    k
        The alphabet's size, >= 2.

    Returns
    -------
    float
        ``lambda``, in (0, 1].

    Raises
    ------
    InvalidParameterError
        If ``k < 2``.

    Examples
    --------
    >>> redraw_probability(math.log(3.0), 2) >= 2 / 4
    True
    >>> redraw_probability(1e6, 100) > 0.0
    True
    """
    epsilon = check_epsilon(epsilon)
    if k < 2:
        raise InvalidParameterError(f"randomized response needs at least 2 names, got {k}")
    if epsilon - math.log(k) > 746.0:
        # lambda < k exp(-epsilon) / (1 - exp(-epsilon)) < exp(-746): the smallest double is
        # above it
        return math.nextafter(0.0, 1.0)
    with localcontext() as ctx:
        ctx.prec = 60
        # the 60-digit value widened by far more than its error: never below the true one
        above = Decimal(k) / (Decimal(epsilon).exp() - 1 + Decimal(k)) * (1 + Decimal(10) ** -50)
        value = float(above)
        if Decimal(value) < above:
            value = math.nextafter(value, 2.0)
    return min(value, 1.0)


class NameKernel:
    """k-ary randomized response on a public alphabet of names (module notes).

    Parameters
    ----------
    alphabet
        The public names (distinct, at least 2).
    epsilon
        Per name changed (discrete metric), > 0; ``None``: no noise (every name as itself).
    """

    def __init__(self, alphabet: Sequence[str], epsilon: float | None) -> None:
        self.alphabet = tuple(alphabet)
        if len(set(self.alphabet)) != len(self.alphabet):
            raise InvalidParameterError("the name alphabet has repeated words")
        self.index = {w: i for i, w in enumerate(self.alphabet)}
        self.epsilon = None if epsilon is None else check_epsilon(epsilon)
        self.redraw = (
            0.0 if self.epsilon is None else redraw_probability(self.epsilon, len(self.alphabet))
        )

    def keep_probability(self) -> float:
        """``P[y = x]``: the chance a name is released as itself.

        Returns
        -------
        float
            ``1 - lambda + lambda / k``.
        """
        return 1.0 - self.redraw + self.redraw / len(self.alphabet)

    def release(self, names: Sequence[str], rng: np.random.Generator) -> list[str]:
        """Each name released, drawn with ``rng`` (a coin, then a uniform index, per name, in
        order).

        Parameters
        ----------
        names
            Words of the alphabet.
        rng
            The document's generator.

        Returns
        -------
        list[str]
            The released names, in order.

        Raises
        ------
        InvalidParameterError
            If a name is not in the alphabet.
        """
        rows = np.array([self._row(w) for w in names], dtype=np.intp)
        if self.epsilon is None or len(rows) == 0:
            return [self.alphabet[int(i)] for i in rows]
        redraw: NDArray[np.bool_] = bernoulli_double(np.full(len(rows), self.redraw), rng)
        fresh = rng.integers(0, len(self.alphabet), size=len(rows))
        out = np.where(redraw, fresh, rows)
        return [self.alphabet[int(i)] for i in out]

    def _row(self, word: str) -> int:
        row = self.index.get(word)
        if row is None:
            raise InvalidParameterError(f"{word!r} is not a name of the alphabet")
        return row
