"""Unknown words under ``oov="map"``: what the mechanism is fed in their place.

A word with no vector cannot be perturbed. The paper-era policy fed a *fixed* vocabulary word in
its place (``oov_map_to``, ``"unknown"``) and perturbed it; at the epsilons where text stays
readable that word comes back as itself, so a release said ``Hi Unknown,`` and showed exactly
where a rare word (a name, a code, a typo) stood.

The default here (``oov_map_to=None``) feeds, at each unknown position, a content word **drawn
at random** from the vocabulary by Zipf's law on its frequency ranks (``P(rank r) ∝ 1/(r+1)``,
the function words excluded), with a child of the document's secret generator, independently of
the unknown word itself; the drawn word is then perturbed like any other. The position then looks
like any content word.

Guarantee (the choice is written down because the paper does not treat unknown words): the
drawn word ``U`` does not depend on the input, so the output law at an unknown position is the
mixture ``sum_u pi(u) K(u)``. Two unknown words have the same law (distance 0). For an unknown
word and a vocabulary word ``v``, ``K(u) <= exp(eps d(u, v)) K(v)`` for every ``u`` gives
``sum_u pi(u) K(u) <= exp(eps max_u d(u, v)) K(v)``, and the reverse the same way: the unknown
word sits at distance at most ``max_u d(u, v)`` (the vocabulary's farthest word from ``v``) from
``v``. A fixed ``oov_map_to`` keeps the paper-era policy (distance ``d(oov_map_to, v)``).

The draw uses ``Generator.spawn`` on the document's generator only when the document has an
unknown word, so a document without one is released exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from authormask.embeddings._base import Embeddings
from authormask.mechanisms.decoding import frequency_log_prior

__all__ = ["UnknownWords", "describe_unknown_policy"]


def describe_unknown_policy(oov_map_to: str | None) -> str:
    """The statement's line on unknown words under ``oov="map"``.

    Parameters
    ----------
    oov_map_to
        The fixed word unknown words become, or None (drawn).

    Returns
    -------
    str
        The policy.
    """
    if oov_map_to is not None:
        return (
            f"map (replaced by {oov_map_to!r}, which is then perturbed; at high epsilon the "
            "release shows that word where an unknown word stood)"
        )
    return (
        "map (each is replaced by a content word drawn at random by Zipf's law on the "
        "vocabulary's frequency ranks, with the release's secret generator and independently of "
        "the unknown word, then perturbed like any other: two unknown words are "
        "indistinguishable, and an unknown word is at distance at most max_u d(u, v) from a "
        "word v)"
    )


class UnknownWords:
    """Replace the unknown positions of a document's content words (module notes).

    ``excluded`` are never drawn (the function words); ``fixed`` is a fixed ``oov_map_to``
    (then nothing is replaced: the preparer already put it there).

    Parameters
    ----------
    embeddings
        The vocabulary a replacement is drawn from.
    excluded
        The words never drawn (the function words).
    fixed
        A fixed ``oov_map_to``, or None.
    """

    def __init__(
        self, embeddings: Embeddings, *, excluded: frozenset[str], fixed: str | None
    ) -> None:
        self.embeddings = embeddings
        self.excluded = excluded
        self.fixed = fixed
        self._cdf: NDArray[np.float64] | None = None

    @property
    def cdf(self) -> NDArray[np.float64]:
        if self._cdf is None:
            # the decoders' Zipf prior on frequency ranks, the excluded words at prior 0
            weights = np.exp(frequency_log_prior(self.embeddings.words, excluded=self.excluded))
            if not np.any(weights > 0):
                weights[:] = 1.0
            cdf = np.cumsum(weights)
            self._cdf = cdf / cdf[-1]
        return self._cdf

    def replace(
        self, words: Sequence[str], mapped: Sequence[int], rng: np.random.Generator
    ) -> tuple[str, ...]:
        """``words`` with each position in ``mapped`` replaced by a drawn content word.

        Parameters
        ----------
        words
            A document's content words.
        mapped
            The positions of its unknown words.
        rng
            The document's generator (a child of it draws the words).

        Returns
        -------
        tuple[str, ...]
            The words, the unknown ones replaced.
        """
        if self.fixed is not None or not mapped:
            return tuple(words)
        child = rng.spawn(1)[0]
        rows = np.searchsorted(self.cdf, child.random(len(mapped)), side="right")
        rows = np.minimum(rows, len(self.embeddings) - 1)
        out = list(words)
        vocab = self.embeddings.words
        for i, r in zip(mapped, rows, strict=True):
            out[i] = vocab[int(r)]
        return tuple(out)
