"""Earth Mover's privacy for text (Fernandes, Dras & McIver 2019, Algorithms 1-2, Theorem 4).

Two release mechanisms share the per-word mechanism ``K`` (:class:`EarthMoversMechanism`):

* :class:`EMPBag` (``emp-bag``): Algorithm 2. The document's content words are reduced to a bag of
  exactly N words (N is a public parameter), each is perturbed, and the bag is released in
  sorted order. Guarantee: ``epsilon * N * E``-privacy over bags of N words (Theorem 4).
* :class:`EMPText` (``emp-text``): the same per-word mechanism applied in place to every content
  position of the text; the skeleton (stopwords, punctuation, whitespace, positions and
  capitalisation) is released unchanged. Guarantee: ``epsilon * sum_i d(v_i, v'_i)`` between
  documents with the same skeleton (eq. 6).

Both compute their :class:`~authormask.accounting.statement.PrivacyStatement` from their
parameters alone; per-document counts are diagnostics for the private run report.
"""

from __future__ import annotations

import copy
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.defaults import DEFAULT_LENGTH
from authormask.embeddings._base import Embeddings
from authormask.embeddings.neighbours import NearestWordIndex, shared_index
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism, Output
from authormask.mechanisms.decoding import (
    Decoder,
    NearestDecoder,
    PosteriorDecoder,
    check_decoder,
    frequency_log_prior,
)
from authormask.mechanisms.laplace import sample_nd_laplace
from authormask.randomness import SEEDED, UNSEEDED, RandomState
from authormask.text.parts import split_parts
from authormask.text.prepare import (
    FIXED_LENGTH_METHODS,
    NEGATION_AUXILIARIES,
    PreparedDocument,
    TextPreparer,
)
from authormask.text.render import render_text
from authormask.validation import check_epsilon, check_positive_int

__all__ = [
    "DEFAULT_LENGTH",
    "MAX_LENGTH",
    "BagUnit",
    "EMPBag",
    "EMPText",
    "EarthMoversMechanism",
    "WordKernel",
]

logger = logging.getLogger(__name__)

#: the largest mean noise length n/epsilon accepted: far below float64's range, so even a radius
#: many times its mean (probability exp(-huge)) is snapped exactly in float64
MAX_MEAN_NOISE = 1e250

#: the largest N of ``emp-bag``: more words than any book (a bag of N words is N perturbations
#: and, under ``sample``, N draws held in memory at once); a larger N is refused, not attempted
MAX_LENGTH = 10_000_000


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

    def noisy_vectors(
        self, rows: Sequence[int] | np.ndarray, *, random_state: RandomState = None
    ) -> np.ndarray:
        """``Vec(w) + r p`` for every row (float64), noise drawn from ``random_state``."""
        rows_arr = np.asarray(rows, dtype=np.intp)
        x = self.embeddings.vectors[rows_arr].astype(np.float64)
        if rows_arr.size == 0:
            return x.reshape(0, self.embeddings.dimension)
        return self.add_noise(x, random_state=random_state)

    def add_noise(self, x: np.ndarray, *, random_state: RandomState = None) -> np.ndarray:
        """``x + r p`` for every row of ``x`` (Theorem 2; another per-word noise overrides it)."""
        return sample_nd_laplace(x, epsilon=self.epsilon, random_state=random_state)

    def snap(
        self, noisy: np.ndarray, *, progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """``Vec^-1``: the decoded vocabulary row of every noisy vector (the exact nearest under
        the paper's decoder, :mod:`~authormask.mechanisms.decoding`)."""
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
        """Apply K independently to vocabulary rows; returns the output rows (one per input)."""
        noisy = self.noisy_vectors(rows, random_state=random_state)
        return self.snap(noisy, progress=progress)

    def perturb_words(
        self,
        words: Sequence[str],
        *,
        random_state: RandomState = None,
        progress: Callable[[int], None] | None = None,
    ) -> tuple[str, ...]:
        """Apply K independently to each word (all words batched into one search)."""
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
    EMP, Mahalanobis, TEM, SanText)."""
    emb = kernel.embeddings
    rows = [emb.index_of(w) for w in words]
    out = kernel.perturb_indices(rows, random_state=random_state, progress=progress)
    return tuple(emb.words[int(i)] for i in out)


def _counts(doc: PreparedDocument) -> dict[str, int]:
    return {
        "tokens": len(doc.tokens),
        "content_words": len(doc.content_words),
        "stopwords": doc.count("stopword"),
        "punctuation": doc.count("punctuation"),
        "oov_dropped": doc.count("oov-dropped"),
        "oov_kept_unprotected": doc.count("oov-kept"),
        "oov_mapped": doc.count("oov-mapped"),
    }


@dataclass(frozen=True)
class BagUnit:
    """What ``emp-bag`` keeps of a document: its first N content words (``truncate``) or the
    counts of all its content words (``sample``, or N not yet known), the unchanged OOV words
    under ``oov="keep"``, and private counters. Its size does not grow with the document."""

    available: int
    words: tuple[str, ...] | None
    counts: dict[str, int] | None
    kept_oov_words: tuple[str, ...]
    diagnostics: dict[str, int] = field(default_factory=dict)

    @property
    def content_words(self) -> tuple[str, ...]:
        """The content words kept (the first N under ``truncate``; the distinct words in order
        of first appearance otherwise)."""
        if self.words is not None:
            return self.words
        return tuple(self.counts or ())


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
    ) -> list[tuple[str, ...]]: ...


class _EMPBase(Mechanism):
    """Shared parameters and preparation of the word-level release mechanisms (the two Earth
    Mover's mechanisms here; the peer mechanisms of :mod:`authormask.mechanisms.peers` reuse
    :class:`EMPText` with their own per-word kernel, title, reference and statement)."""

    name = ""
    title = TITLE
    reference = REFERENCE
    floating_point = FLOATING_POINT

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        decoder: str = "nearest",
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        self.preparer = preparer
        self.stopwords_description = stopwords_description
        self.decoder = check_decoder(decoder)
        self.kernel: Any = self._make_kernel()

    def _make_kernel(self) -> WordKernel:
        """The per-word mechanism (Earth Mover's privacy here)."""
        return EarthMoversMechanism(
            self.embeddings,
            epsilon=self.epsilon,
            decoder=self.decoder,
            never_sent=self.preparer.stopwords,
        )

    def _decoder_policies(self) -> dict[str, str]:
        """The decoder, in the statement's policies: only when it is not the paper's, so the
        statements of the paper's mechanisms are unchanged."""
        if self.decoder == "nearest":
            return {}
        return {"decoder": str(self.kernel.decoder.describe())}

    def prepare(self, text: str) -> PreparedDocument:
        """Tokenise and classify (deterministic; raises ``InputError`` on unusable text)."""
        return self.preparer.prepare(text)

    def diagnostics(self, doc: PreparedDocument) -> dict[str, int]:
        """Private per-document counts (never part of the public statement)."""
        return _counts(doc)

    def units(self, doc: PreparedDocument) -> int:
        """Words this document sends through the search (for progress)."""
        return len(doc.content_words)

    def _parts(self, parts: Iterable[str]) -> Iterator[PreparedDocument]:
        """Prepare a document part by part; refuse it at its end if no part had a content word."""
        content = 0
        tokens = 0
        for part in parts:
            doc = self.preparer.prepare(part, require_content=False)
            content += len(doc.content_words)
            tokens += len(doc.tokens)
            yield doc
        if content == 0:
            raise InputError(
                "document has no content words left after removing punctuation, stopwords and "
                f"out-of-vocabulary words ({tokens} tokens)"
            )

    def _oov_policy(self) -> str:

        return {
            "drop": "drop (removed before the mechanism, not released)",
            "keep": "keep (released unchanged, NOT protected)",
            "map": f"map (replaced by {self.preparer.oov_map_to!r}, which is then perturbed)",
        }[self.preparer.oov]

    def _unit(self) -> str:
        e = self.embeddings.identity
        return f"per word (Euclidean distance between {e.dimension}-d word vectors of {e.name})"

    def _statement(self, *, seeded: bool, **fields: Any) -> PrivacyStatement:
        """The fields both EMP mechanisms share, plus their own (``fields``)."""
        return PrivacyStatement(
            randomness=SEEDED if seeded else UNSEEDED,
            mechanism=self.name,
            title=self.title,
            reference=self.reference,
            epsilon=self.epsilon,
            epsilon_unit=self._unit(),
            embeddings=self.embeddings.identity.to_dict(),
            model=None,
            floating_point=self.floating_point,
            version=__version__,
            **fields,
        )


class EMPBag(_EMPBase):
    """``emp-bag``: Algorithm 2 on a bag of exactly N content words, released in sorted order.

    Parameters
    ----------
    length : int or "shortest"
        N, a public parameter. ``"shortest"`` (the paper's choice, appendix B.1) is resolved by
        :meth:`with_length_from` to the smallest content-word count of the documents released
        together; the statement then says what that reveals.
    fixed_length : {"truncate", "sample"}
        ``truncate`` keeps the first N content words and refuses documents with fewer;
        ``sample`` draws N words i.i.d. *with replacement* from the document's own content words
        (arXiv version 5.2), so it works for any document with at least one content word.
    """

    name = "emp-bag"

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        length: int | str = DEFAULT_LENGTH,
        fixed_length: str = "truncate",
        length_from_data: bool = False,
        decoder: str = "nearest",
    ) -> None:
        super().__init__(
            embeddings=embeddings,
            epsilon=epsilon,
            preparer=preparer,
            stopwords_description=stopwords_description,
            decoder=decoder,
        )
        if fixed_length not in FIXED_LENGTH_METHODS:
            raise InvalidParameterError(
                f"fixed_length must be one of {', '.join(FIXED_LENGTH_METHODS)}, "
                f"got {fixed_length!r}"
            )
        self.fixed_length = fixed_length
        self.length: int | None
        if length == "shortest":
            self.length = None
        else:
            self.length = check_positive_int(length, name="`length` N", maximum=MAX_LENGTH)
        self.length_from_data = length_from_data

    def prepare(self, text: str) -> BagUnit:  # type: ignore[override]
        """The document's :class:`BagUnit` (see :meth:`prepare_parts`)."""
        return next(self.prepare_parts(split_parts(text)))

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[BagUnit]:
        """Read a document part by part, keeping only what the bag needs: the first N content
        words under ``truncate`` (a document with fewer is refused), the counts of every content
        word otherwise. Yields one :class:`BagUnit`."""
        keep_words = self.fixed_length == "truncate" and self.length is not None
        words: list[str] = []
        counts: Counter[str] = Counter()
        kept: list[str] = []
        diag: dict[str, int] = {}
        available = 0
        for doc in self._parts(parts):
            for key, value in _counts(doc).items():
                diag[key] = diag.get(key, 0) + value
            available += len(doc.content_words)
            if keep_words:
                assert self.length is not None
                words.extend(doc.content_words[: self.length - len(words)])
            else:
                counts.update(doc.content_words)
            kept.extend(doc.kept_oov_words)
        if keep_words and self.length is not None and available < self.length:
            raise InputError(
                f"has {available} content words, fewer than N={self.length}: give a smaller "
                "`length`, or `fixed_length` sample (draws N words with replacement)"
            )
        yield BagUnit(
            available=available,
            words=tuple(words) if keep_words else None,
            counts=None if keep_words else dict(counts),
            kept_oov_words=tuple(kept),
            diagnostics=diag,
        )

    def diagnostics(self, doc: BagUnit) -> dict[str, int]:  # type: ignore[override]
        return dict(doc.diagnostics)

    def units(self, doc: BagUnit) -> int:  # type: ignore[override]
        return self.length if self.length is not None else doc.available

    @property
    def needs_all_documents(self) -> bool:
        """True while N is still ``"shortest"``: the release must see every document first."""
        return self.length is None

    def resolved_parameters(self) -> dict[str, Any]:
        """``{"length": N}`` once N is known (it was "shortest" in the registry's parameters)."""
        return {"length": self.length} if isinstance(self.length, int) else {}

    def with_length_from(self, documents: Iterable[BagUnit]) -> EMPBag:
        """Resolve ``length="shortest"``: N = the smallest content-word count of ``documents``
        (any iterable: a release passes them one at a time)."""
        if self.length is not None:
            return self
        smallest = min((d.available for d in documents), default=None)
        if smallest is None:
            raise InvalidParameterError("length 'shortest' needs at least one document")
        resolved = copy.copy(self)
        resolved.length = smallest
        resolved.length_from_data = True
        return resolved

    def _draw_bag(self, unit: BagUnit, rng: np.random.Generator) -> tuple[str, ...]:
        """The N words fed to the mechanism: the first N (``truncate``), or N i.i.d. draws with
        replacement from the document's content words (``sample``: each draw picks word w with
        probability count(w) / total, as drawing a uniform position of the document does)."""
        assert self.length is not None
        if unit.words is not None:
            return unit.words[: self.length]
        counts = unit.counts or {}
        if self.fixed_length == "truncate":  # N resolved after preparation ("shortest")
            raise InvalidParameterError("prepare the documents again once N is resolved")
        vocab = list(counts)
        cumulative = np.cumsum(np.fromiter(counts.values(), dtype=np.int64, count=len(vocab)))
        picks = rng.integers(0, int(cumulative[-1]), size=self.length)
        rows = np.searchsorted(cumulative, picks, side="right")
        return tuple(vocab[int(i)] for i in rows)

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        if self.length is None:
            raise InvalidParameterError(
                "N is 'shortest' and not resolved yet (the release resolves it from the documents)"
            )
        eps, n = self.epsilon, self.length
        fixed = {
            "truncate": "truncate: the first N content words (appendix B.1); documents with "
            "fewer than N content words are refused",
            "sample": "sample: N i.i.d. draws with replacement from the document's content "
            "words (arXiv version 5.2)",
        }[self.fixed_length]
        caveats = []
        if self.fixed_length == "sample":
            caveats.append(
                "bags were sampled: between the bags fed to the mechanism the bound is "
                "epsilon*N*E; between source documents with word distributions p, p' it holds "
                "with E replaced by the bottleneck distance W_inf(p, p') >= E"
            )
        if self.length_from_data:
            caveats.append(
                f"N={n} was chosen as the smallest content-word count of the documents released "
                "together (--length shortest): it reveals that every one of them had at least "
                f"{n} content words and one had exactly {n}; state N explicitly to avoid this"
            )
        unchanged = (
            "no word of the text: stopwords, punctuation and content words beyond the N "
            "chosen are removed, and the bag is written in sorted order (no word order)"
        )
        if self.preparer.oov == "keep":
            unchanged += "; out-of-vocabulary words are appended unchanged (NOT protected)"
            caveats.append(
                "out-of-vocabulary words are released unchanged and are NOT protected; the "
                "bound only compares documents that contain the same such words"
            )
        return self._statement(
            seeded=seeded,
            guarantee=(
                f"{exact(eps)}*N*E-privacy over bags of N={n} words (Theorem 4): for any two "
                f"documents whose prepared bags b, b' have N={n} words and any output c, "
                f"P[c | b] <= exp({exact(eps)} * {n} * E(b, b')) * P[c | b'], E = Earth Mover's "
                f"distance with Euclidean word distances in {self.embeddings.identity.name}"
            ),
            document_bound=f"epsilon_doc(b, b') = {exact(eps * n)} * E(b, b')",
            released_unchanged=unchanged,
            parameters={"N": n, "fixed length": fixed},
            policies={
                "stopwords": f"{self.stopwords_description}; removed before the mechanism "
                "(not released)",
                "unknown words": self._oov_policy(),
                **self._decoder_policies(),
            },
            caveats=tuple(caveats),
        )

    def perturb(
        self,
        documents: Sequence[BagUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        if self.length is None:
            raise InvalidParameterError("N is 'shortest' and not resolved yet")
        bags = [self._draw_bag(doc, rng) for doc, rng in zip(documents, rngs, strict=True)]
        perturbed = self.kernel.perturb_documents(bags, rngs, progress=progress)
        out = []
        for doc, words in zip(documents, perturbed, strict=True):
            counts = Counter(words)
            for w in doc.kept_oov_words:
                counts[w] += 1
            released = tuple(sorted(counts.elements()))
            out.append(Output(" ".join(released), released, dict(sorted(counts.items()))))
        return out


class EMPText(_EMPBase):
    """``emp-text``: K applied in place to every content position; the skeleton is kept.

    Unknown words must be mapped (the default) or kept: dropping them would leave holes that
    reveal where and how many there were, so ``oov="drop"`` is refused.
    """

    name = "emp-text"

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        decoder: str = "nearest",
    ) -> None:
        if preparer.oov == "drop":
            raise InvalidParameterError(
                f"{self.name} cannot drop unknown words: the gaps would reveal where and how "
                "many there were; use oov 'map' (the default: perturb a fixed word in their "
                "place) or 'keep' (unprotected)"
            )
        super().__init__(
            embeddings=embeddings,
            epsilon=epsilon,
            preparer=preparer,
            stopwords_description=stopwords_description,
            decoder=decoder,
        )

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[PreparedDocument]:
        """One prepared unit per part (text mode perturbs word by word); a document with no
        content word at all is refused at its end."""
        return self._parts(parts)

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        eps = self.epsilon
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{exact(eps)}*M-privacy over sequences of content words (eq. 6): for "
                f"documents v, v' with the same skeleton, P[out | v] <= "
                f"exp({exact(eps)} * sum_i d(v_i, v'_i)) * "
                "P[out | v']; word order is released, so the bag-level epsilon*N*E bound of "
                "Theorem 4 does not apply (sum_i d(v_i, v'_i) >= N * E)"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {exact(eps)} * sum over content positions i of d(v_i, v'_i)"
            ),
            parameters={"content words": "every content position, perturbed in place"},
        )

    def _text_statement(
        self,
        *,
        seeded: bool,
        guarantee: str,
        document_bound: str,
        parameters: dict[str, Any],
        caveats: Sequence[str] = (),
    ) -> PrivacyStatement:
        """The statement of an in-place text release: the skeleton it keeps, its policies and
        caveats, with the per-word mechanism's ``guarantee``, ``document_bound`` and
        ``parameters`` (shared with the peer mechanisms of :mod:`authormask.mechanisms.peers`)."""
        caveats = [
            "text mode releases the skeleton unchanged: stopwords, punctuation, whitespace and "
            "layout, the positions of content words and their capitalisation; the guarantee only "
            "compares documents that share it",
            *caveats,
        ]
        unchanged = (
            "the skeleton: stopwords, punctuation, whitespace and line breaks, the positions of "
            "content words and their capitalisation pattern"
        )
        if self.preparer.oov == "keep":
            unchanged += "; out-of-vocabulary words (NOT protected)"
            caveats.append(
                "out-of-vocabulary words are released unchanged and are NOT protected; the "
                "bound only compares documents that contain the same such words at the same "
                "positions"
            )
        return self._statement(
            seeded=seeded,
            guarantee=guarantee,
            document_bound=document_bound,
            released_unchanged=unchanged,
            parameters=parameters,
            policies={
                "stopwords": f"{self.stopwords_description}; passed through unchanged (part "
                "of the released skeleton)",
                "unknown words": self._oov_policy(),
                **self._decoder_policies(),
                "contractions": "split into a word and a clitic ('s, n't, 'm, 'll, 're, 've, "
                "'d: do + n't, president + 's); the clitic is a stopword, and so is the "
                f"auxiliary before n't when it is one of a fixed list of "
                f"{len(NEGATION_AUXILIARIES)} (ca, wo, do, need, ...); any other word is "
                "perturbed",
            },
            caveats=tuple(caveats),
        )

    def perturb(
        self,
        documents: Sequence[PreparedDocument],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        perturbed = self.kernel.perturb_documents(
            [d.content_words for d in documents], rngs, progress=progress
        )
        return [
            Output(render_text(doc, words), words)
            for doc, words in zip(documents, perturbed, strict=True)
        ]
