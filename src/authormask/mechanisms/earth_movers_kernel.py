"""Earth Mover's privacy, the per-word mechanism ``K`` (Fernandes, Dras & McIver 2019, Theorem 2).

:class:`EarthMoversMechanism` releases each word ``w`` as ``Vec^-1(Vec(w) + r p)``: n-dimensional
Laplace noise on its vector (radius ``Gamma(n, 1/epsilon)``, uniform direction:
:func:`~authormask.mechanisms.laplace.sample_nd_laplace`), snapped to the nearest vocabulary word
(Algorithm 1 inside Algorithm 2). Each word is released with ``epsilon * d_S``-privacy.

Also here: :class:`WordKernel`, what a per-word mechanism offers the release forms (EMP,
Mahalanobis, TEM and SanText kernels all provide it); :func:`words_perturbed`; the reference,
title and floating-point note the Earth Mover's releases state. The releases built on ``K`` are
:class:`~authormask.mechanisms.earth_movers_bag.EMPBag` and
:class:`~authormask.mechanisms.earth_movers_text.EMPText`; :mod:`authormask.mechanisms.earth_movers`
re-exports all three modules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from authormask.embeddings._base import Embeddings
from authormask.embeddings.neighbours import NearestWordIndex, shared_index
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.decoding import (
    Decoder,
    NearestDecoder,
    PosteriorDecoder,
    check_decoder,
    frequency_log_prior,
)
from authormask.mechanisms.laplace import sample_nd_laplace
from authormask.randomness import RandomState
from authormask.validation import check_epsilon

__all__ = [
    "FLOATING_POINT",
    "MAX_MEAN_NOISE",
    "REFERENCE",
    "TITLE",
    "EarthMoversMechanism",
    "WordKernel",
    "words_perturbed",
]

#: the largest mean noise length n/epsilon accepted: far below float64's range, so even a radius
#: many times its mean (probability exp(-huge)) is snapped exactly in float64
MAX_MEAN_NOISE = 1e250


REFERENCE = (
    "Fernandes, Dras & McIver, Generalised Differential Privacy for Text Document Processing, "
    "POST 2019: Theorem 2, Algorithms 1-2, Theorem 4"
)
TITLE = (
    "Earth Mover's privacy: n-dimensional Laplace noise on word vectors (radius Gamma(n, "
    "1/epsilon), uniform direction), snapped to the nearest vocabulary word"
)
FLOATING_POINT = (
    "the noisy vector is never released, only its nearest vocabulary word (certified-exact "
    "search); the Gamma radius is an exact sum of n unbounded Exp(1) draws (no cap); float64 "
    "rounding of the noisy vector (relative ~1e-16) can only move outputs whose noisy vector "
    "lies that close to a boundary between two words' cells"
)


class EarthMoversMechanism:
    """The per-word mechanism K of Theorem 2 composed with ``Vec`` and ``Vec^-1`` (Algorithm 2).

    Each word ``w`` becomes ``Vec^-1(Vec(w) + r p)``: n-dimensional Laplace noise
    (:func:`~authormask.mechanisms.laplace.sample_nd_laplace`) followed by snapping to the nearest
    vocabulary word by Euclidean distance (exact, batched: :class:`NearestWordIndex`). Snapping is
    post-processing (Lemma 3) and depends on the noisy vector only, so each word is released with
    ``epsilon * d_S``-privacy and a bag of N words with ``epsilon * N * E_{d_S}``-privacy
    (Theorems 1 and 4).

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per word (Euclidean distance of word vectors).
    index
        The vocabulary's search index (default: the shared one).
    decoder
        How a noisy vector becomes a word: ``"nearest"`` (the paper's) or ``"posterior"``.
    never_sent
        Words no input position holds (the stopwords): the posterior decoder gives them prior 0.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        index: NearestWordIndex | None = None,
        decoder: str = "nearest",
        never_sent: frozenset[str] = frozenset(),
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        self.decoder_name = check_decoder(decoder)
        #: words no input position of this kernel holds (the stopwords, at a content
        #: position): the posterior decoder gives them prior 0
        self.never_sent = frozenset(never_sent)
        smallest = embeddings.dimension * MAX_MEAN_NOISE**-1
        if self.epsilon < smallest:
            raise InvalidParameterError(
                f"epsilon must be >= {smallest:.3g} for {embeddings.dimension}-d vectors, got "
                f"{self.epsilon:g}: below it the mean noise length n/epsilon exceeds "
                f"{MAX_MEAN_NOISE:.0e}, beyond what float64 can snap exactly (and every output "
                "would be independent of the input anyway)"
            )
        if index is not None and (index.size, index.dimension) != embeddings.vectors.shape:
            raise InvalidParameterError("index was built for other embeddings")
        # built on first use (shared by every mechanism over these embeddings): a process that
        # only states or plans a release (the client of a Dask run) never builds it
        self._index: NearestWordIndex | None = index
        self._decoder: Decoder | None = None

    @property
    def decoder(self) -> Decoder:
        """What turns a noisy vector into a released word (:mod:`~authormask.mechanisms.
        decoding`): it receives the noisy vectors only."""
        if self._decoder is None:
            if self.decoder_name == "nearest":
                self._decoder = NearestDecoder(self.embeddings, index=self._index)
            else:
                prior = frequency_log_prior(self.embeddings.words, excluded=self.never_sent)
                self._decoder = PosteriorDecoder(
                    self.embeddings, epsilon=self.epsilon, log_prior=prior, index=self._index
                )
        return self._decoder

    @property
    def index(self) -> NearestWordIndex:
        if self._index is None:
            self._index = shared_index(self.embeddings)
        return self._index

    def make_ready(self, work: int) -> None:
        """Load now what snapping about ``work`` noisy vectors searches with (its decoder's
        :meth:`~authormask.mechanisms.decoding.NearestDecoder.warm`): called from a second
        thread while a release does other work; nothing it draws or releases changes.

        Parameters
        ----------
        work
            About how many vectors will be snapped.
        """
        self.decoder.warm(work)

    def noisy_vectors(
        self, rows: Sequence[int] | np.ndarray, *, random_state: RandomState = None
    ) -> np.ndarray:
        """``Vec(w) + r p`` for every row (float64), noise drawn from ``random_state``.

        Parameters
        ----------
        rows
            Vocabulary rows.
        random_state
            The noise's randomness: None, an int seed or a numpy Generator.

        Returns
        -------
        np.ndarray
            One noisy vector per row.
        """
        rows_arr = np.asarray(rows, dtype=np.intp)
        x = self.embeddings.vectors[rows_arr].astype(np.float64)
        if rows_arr.size == 0:
            return x.reshape(0, self.embeddings.dimension)
        return self.add_noise(x, random_state=random_state)

    def add_noise(self, x: np.ndarray, *, random_state: RandomState = None) -> np.ndarray:
        """``x + r p`` for every row of ``x`` (Theorem 2; another per-word noise overrides it).

        Parameters
        ----------
        x
            Vectors, one per row.
        random_state
            The noise's randomness: None, an int seed or a numpy Generator.

        Returns
        -------
        np.ndarray
            The noisy vectors.
        """
        return sample_nd_laplace(x, epsilon=self.epsilon, random_state=random_state)

    def snap(
        self, noisy: np.ndarray, *, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """``Vec^-1``: the decoded vocabulary row of every noisy vector (the exact nearest under
        the paper's decoder, :mod:`~authormask.mechanisms.decoding`).

        Parameters
        ----------
        noisy
            Noisy vectors, one per row.
        progress
            Called with the number of vectors decoded.

        Returns
        -------
        np.ndarray
            One vocabulary row per vector.
        """
        if noisy.shape[0] == 0:
            return np.zeros(0, dtype=np.intp)
        return self.decoder.decode(noisy, progress=progress)

    def perturb_indices(
        self,
        rows: Sequence[int] | np.ndarray,
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Apply K independently to vocabulary rows; returns the output rows (one per input).

        Parameters
        ----------
        rows
            Vocabulary rows.
        random_state
            The noise's randomness: None, an int seed or a numpy Generator.
        progress
            Called with the number of rows released.

        Returns
        -------
        np.ndarray
            One output row per input row.
        """
        noisy = self.noisy_vectors(rows, random_state=random_state)
        return self.snap(noisy, progress=progress)

    def perturb_words(
        self,
        words: Sequence[str],
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[str, ...]:
        """Apply K independently to each word (all words batched into one search).

        Parameters
        ----------
        words
            Vocabulary words.
        random_state
            The noise's randomness: None, an int seed or a numpy Generator.
        progress
            Called with the number of words released.

        Returns
        -------
        tuple[str, ...]
            One output word per input word.
        """
        return words_perturbed(self, words, random_state=random_state, progress=progress)

    def perturb_documents(
        self,
        documents: Sequence[Sequence[str]],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        """Perturb each document's words with its own generator; one batched search for all.

        A document's output depends on its words and its generator only, not on the batch.

        Parameters
        ----------
        documents
            Each document's vocabulary words.
        rngs
            One generator per document.
        progress
            Called with the number of words released.

        Returns
        -------
        list[tuple[str, ...]]
            Each document's output words.
        """
        noisy = [
            self.noisy_vectors([self.embeddings.index_of(w) for w in doc], random_state=rng)
            for doc, rng in zip(documents, rngs, strict=True)
        ]
        if not noisy:
            return []
        rows = self.snap(np.concatenate(noisy), progress=progress)
        vocab = self.embeddings.words
        out: list[tuple[str, ...]] = []
        pos = 0
        for doc in documents:
            out.append(tuple(vocab[int(i)] for i in rows[pos : pos + len(doc)]))
            pos += len(doc)
        return out


def words_perturbed(
    kernel: Any,
    words: Sequence[str],
    *,
    random_state: RandomState = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[str, ...]:
    """``kernel.perturb_indices`` on the rows of ``words``, as words (every per-word kernel:
    EMP, Mahalanobis, TEM, SanText).

    Parameters
    ----------
    kernel
        A per-word kernel (its ``embeddings`` and ``perturb_indices``).
    words
        Vocabulary words.
    random_state
        The noise's randomness: None, an int seed or a numpy Generator.
    progress
        Called with the number of words released.

    Returns
    -------
    tuple[str, ...]
        One output word per input word.
    """
    emb = kernel.embeddings
    rows = [emb.index_of(w) for w in words]
    out = kernel.perturb_indices(rows, random_state=random_state, progress=progress)
    return tuple(emb.words[int(i)] for i in out)


class WordKernel(Protocol):
    """A per-word mechanism as the text-mode release uses it: every word of each document is
    released independently with that document's generator (one call for a batch of documents;
    a document's output depends on its words and its generator only)."""

    embeddings: Embeddings

    def perturb_documents(
        self,
        documents: Sequence[Sequence[str]],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        """Each document's words released with its own generator.

        Parameters
        ----------
        documents
            Each document's vocabulary words.
        rngs
            One generator per document.
        progress
            Called with the number of words released.

        Returns
        -------
        list[tuple[str, ...]]
            Each document's output words.
        """
        ...
