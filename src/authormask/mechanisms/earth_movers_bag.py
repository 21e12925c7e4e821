"""Earth Mover's privacy over bags, ``emp-bag`` (Fernandes, Dras & McIver 2019, Algorithm 2).

:class:`EMPBag` reduces a document's content words to a bag of exactly N words (N is a public
parameter), perturbs each with the per-word mechanism ``K``
(:class:`~authormask.mechanisms.earth_movers_kernel.EarthMoversMechanism`) and releases the bag in
sorted order. Guarantee: ``epsilon * N * E``-privacy over bags of N words (Theorem 4).
:class:`BagUnit` is what it keeps of a document before the release; its shared parameters and
statement fields come from :class:`~authormask.mechanisms.earth_movers_text._EMPBase`.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from authormask.accounting.statement import PrivacyStatement, exact
from authormask.defaults import DEFAULT_LENGTH
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Output
from authormask.mechanisms.earth_movers_text import _counts, _EMPBase
from authormask.text.parts import split_parts
from authormask.text.prepare import FIXED_LENGTH_METHODS, PreparedDocument, TextPreparer
from authormask.validation import check_positive_int

__all__ = ["DEFAULT_LENGTH", "MAX_LENGTH", "BagUnit", "EMPBag"]

#: the largest N of ``emp-bag``: more words than any book (a bag of N words is N perturbations
#: and, under ``sample``, N draws held in memory at once); a larger N is refused, not attempted
MAX_LENGTH = 10_000_000
#: an unknown word in a bag, until the mechanism draws a word in its place (never a vocabulary
#: word: it holds a NUL, which cleaned text never does)
UNKNOWN_MARK = "\x00unknown"


@dataclass(frozen=True)
class BagUnit:
    """What ``emp-bag`` keeps of a document: its first N content words (``truncate``) or the
    counts of all its content words (``sample``, or N not yet known), the unchanged OOV words
    under ``oov="keep"``, and private counters. Its size does not grow with the document.

    Attributes
    ----------
    available
        The number of content words of the document.
    words
        Its first N content words (``truncate``), or None.
    counts
        The counts of all its content words (``sample``, or N not yet known), or None.
    kept_oov_words
        The unknown words kept as they are (``oov="keep"``).
    diagnostics
        Private counters.
    """

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


class EMPBag(_EMPBase):
    """``emp-bag``: Algorithm 2 on a bag of exactly N content words, released in sorted order.

    Parameters
    ----------
    embeddings : Embeddings
        The vocabulary and its vectors.
    epsilon : float
        Per word (Euclidean distance of word vectors).
    preparer : TextPreparer
        Tokenising, stopwords and unknown words.
    stopwords_description : str
        The public description of the stopword list.
    length
        N, a public parameter. ``"shortest"`` (the paper's choice, appendix B.1) is resolved by
        :meth:`with_length_from` to the smallest content-word count of the documents released
        together; the statement then says what that reveals.
    fixed_length
        ``truncate`` keeps the first N content words and refuses documents with fewer;
        ``sample`` draws N words i.i.d. *with replacement* from the document's own content words
        (arXiv version 5.2), so it works for any document with at least one content word.
    length_from_data : bool
        Whether N was resolved from the documents (``"shortest"``); the statement says so.
    decoder
        ``"nearest"`` or ``"posterior"``: how a noisy vector becomes a word
        (:mod:`~authormask.mechanisms.decoding`).
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
        """The document's :class:`BagUnit` (see :meth:`prepare_parts`).

        Parameters
        ----------
        text
            The document.

        Returns
        -------
        BagUnit
            Its unit.
        """
        return next(self.prepare_parts(split_parts(text)))

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[BagUnit]:
        """Read a document part by part, keeping only what the bag needs: the first N content
        words under ``truncate`` (a document with fewer is refused), the counts of every content
        word otherwise. Yields one :class:`BagUnit`.

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        BagUnit
            The document's one unit.

        Raises
        ------
        InputError
            If the document has fewer than N content words under ``truncate``.
        """
        keep_words = self.fixed_length == "truncate" and self.length is not None
        words: list[str] = []
        counts: Counter[str] = Counter()
        kept: list[str] = []
        diag: dict[str, int] = {}
        available = 0
        for doc in self._parts(parts):
            for key, value in _counts(doc).items():
                diag[key] = diag.get(key, 0) + value
            content = self._marked(doc)
            available += len(content)
            if keep_words:
                assert self.length is not None
                words.extend(content[: self.length - len(words)])
            else:
                counts.update(content)
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

    def _marked(self, doc: PreparedDocument) -> tuple[str, ...]:
        """The document's content words, each unknown word as :data:`UNKNOWN_MARK` when the
        mechanism draws one in its place (:mod:`authormask.mechanisms.unknown`)."""
        if self.unknown.fixed is not None or not doc.mapped:
            return doc.content_words
        words = list(doc.content_words)
        for i in doc.mapped:
            words[i] = UNKNOWN_MARK
        return tuple(words)

    def diagnostics(self, doc: BagUnit) -> dict[str, int]:  # type: ignore[override]
        """The document's private counts, for the run report.

        Parameters
        ----------
        doc
            A prepared unit.

        Returns
        -------
        dict[str, int]
            Its private counts, by name.
        """
        return dict(doc.diagnostics)

    def units(self, doc: BagUnit) -> int:  # type: ignore[override]
        """The words snapped for the document: N (or its count, N not yet known).

        Parameters
        ----------
        doc
            A prepared unit.

        Returns
        -------
        int
            Its units of work.
        """
        return self.length if self.length is not None else doc.available

    @property
    def needs_all_documents(self) -> bool:
        """True while N is still ``"shortest"``: the release must see every document first."""
        return self.length is None

    def resolved_parameters(self) -> dict[str, Any]:
        """``{"length": N}`` once N is known (it was "shortest" in the registry's parameters).

        Returns
        -------
        dict[str, Any]
            ``{"length": N}``, or ``{}``.
        """
        return {"length": self.length} if isinstance(self.length, int) else {}

    def with_length_from(self, documents: Iterable[BagUnit]) -> EMPBag:
        """Resolve ``length="shortest"``: N = the smallest content-word count of ``documents``
        (any iterable: a release passes them one at a time).

        Parameters
        ----------
        documents
            Every document's unit.

        Returns
        -------
        EMPBag
            The mechanism with N resolved (itself when N was given).

        Raises
        ------
        InvalidParameterError
            If there is no document.
        """
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
        """The statement of ``emp-bag``: epsilon*N*E over bags of N words.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.

        Raises
        ------
        InvalidParameterError
            If N is ``"shortest"`` and not resolved yet.
        """
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
                **self._word_policies("removed before the mechanism (not released)"),
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
        """Each document's bag of N words, drawn and perturbed, in sorted order.

        Parameters
        ----------
        documents
            The prepared units.
        rngs
            One generator per unit (its document's).
        progress
            Called with the units of work done.

        Returns
        -------
        list[Output]
            One output per unit.

        Raises
        ------
        InvalidParameterError
            If N is ``"shortest"`` and not resolved yet.
        """
        if self.length is None:
            raise InvalidParameterError("N is 'shortest' and not resolved yet")
        bags = []
        for doc, rng in zip(documents, rngs, strict=True):
            bag = self._draw_bag(doc, rng)
            marked = [i for i, w in enumerate(bag) if w == UNKNOWN_MARK]
            bags.append(self.unknown.replace(bag, marked, rng))
        perturbed = self.kernel.perturb_documents(bags, rngs, progress=progress)
        out = []
        for doc, words in zip(documents, perturbed, strict=True):
            counts = Counter(words)
            for w in doc.kept_oov_words:
                counts[w] += 1
            released = tuple(sorted(counts.elements()))
            out.append(Output(" ".join(released), released, dict(sorted(counts.items()))))
        return out
