"""``emp-write``: Earth Mover's privacy on the content words; everything else written by a public
language model.

``emp-doc`` perturbs every word but releases its canonical skeleton unchanged: how many tokens,
which positions hold a content word, a function word or a mark, and the marks. That skeleton is
the writer's signature: on held-out fan fiction an attacker reading only the class sequence of
the release scores mean macro-F1 0.41 at epsilon 7, 8 and 10, as well as on the noise-off text.
``emp-write`` releases nothing of it:

* **content words** (with ``content="nouns"``, the default, the words of a public noun
  lexicon, :mod:`authormask.models.lexicon`; with ``content="words"``, every word that is not a
  function word; in reading order) go through the per-word mechanism of Fernandes, Dras &
  McIver (Theorem 2: n-dimensional Laplace noise, radius Gamma(n, 1/epsilon), uniform
  direction), each once, in order;
* **decoding with context** (the ``context`` decoder, default): the noisy vectors of a document
  become the word sequence that maximises ``log P_LM(w_1..w_K) - epsilon * sum_i ||z_i -
  Vec(w_i)||`` (:class:`~authormask.mechanisms.decoding.SequenceDecoder`; a public class bigram
  model times Zipf's law within each class); ``posterior`` and ``nearest`` decode each word
  alone;
* **the rest is written** (:class:`~authormask.models.writer.SkeletonWriter`): function words
  (with ``content="nouns"`` every word that is not a noun: verbs, adjectives, adverbs too),
  punctuation, sentence boundaries and capitals are drawn by a public class trigram model
  trained on packaged public text, from the *released* content words and the document's
  generator (after its noise) only. The writer never sees the document.

Words without a vector (names, typos, rare words outside the vocabulary) are dropped in the
preparation; function words, marks, layout and casing are read only to be discarded.

Guarantee. Each content position is an independent use of the ``epsilon * d``-private per-word
mechanism; the decoder and the writer are functions of the noisy vectors, public data and
independent randomness (post-processing, Lemma 3). For two documents with the same number K of
content words, by sequential composition (eq. 6 of the paper),
``P[out | v] <= exp(epsilon * sum_i d(v_i, v'_i)) * P[out | v']``. What is released of the
document beyond the noisy words is K (and so the number of units of :data:`UNIT_WORDS` content
words a long document is cut into). Word order is released, so the bag-level ``epsilon*N*E``
bound of Theorem 4 does not apply.

Its spec (emp-write) and factory, as the registry offers it:
:mod:`~authormask.mechanisms.written_spec`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import TYPE_CHECKING, Any

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.defaults import PRIOR_WEIGHT
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.mechanisms.decoding import (
    PosteriorDecoder,
    SequenceDecoder,
    bounded_groups,
    frequency_log_prior,
)
from authormask.mechanisms.earth_movers_kernel import FLOATING_POINT, EarthMoversMechanism
from authormask.models.writer import SkeletonWriter, render_tokens
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.canonical import canonical_tokens
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY
from authormask.text.parts import split_parts
from authormask.text.prepare import NEGATION_AUXILIARIES
from authormask.text.stopwords import list_words
from authormask.text.token_rules import CANONICAL_RULES
from authormask.text.tokens import CLITICS
from authormask.validation import check_epsilon

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "UNIT_WORDS",
    "WRITE_DECODERS",
    "ContentPreparer",
    "ContentUnit",
    "ContextKernel",
    "EMPWrite",
]

#: content words per unit of a long document (the unit of batching and of noise draws)
UNIT_WORDS = 4096
#: how the noisy vectors become words: with the public model's context, or one by one
WRITE_DECODERS = ("context", "posterior", "nearest")

#: the paper's results the guarantee rests on (the bag-level Theorem 4 does not apply)
REFERENCE = (
    "Fernandes, Dras & McIver, Generalised Differential Privacy for Text Document Processing, "
    "POST 2019: Theorem 2 (the per-word mechanism), eq. 6 (composition over positions), Lemma 3 "
    "(post-processing); the decoder and the writer are authormask's"
)
#: the floating-point note of the decoders that choose among candidates
CANDIDATE_FLOATING_POINT = (
    "the noisy vector is never released; the Gamma radius is an exact sum of n unbounded Exp(1) "
    "draws (no cap); the decoder chooses among the 32 words nearest to the noisy vector, found "
    "by a float32 screen (not certified exact) and scored in float64: a deterministic function "
    "of the noisy vector, so post-processing whatever its rounding"
)

TITLE = (
    "Earth Mover's privacy on the content words (by default the nouns), in order; every other "
    "word, punctuation and sentence boundaries written by a public language model from the "
    "released words"
)


@dataclass(frozen=True)
class ContentUnit:
    """Up to :data:`UNIT_WORDS` content words of a document, in order; ``first``: the unit opens
    its document. ``diagnostics`` are private counts.

    Attributes
    ----------
    words
        The content words, in order.
    first
        Whether the unit opens its document.
    diagnostics
        Private counts.
    """

    words: tuple[str, ...]
    first: bool
    diagnostics: dict[str, int] = field(default_factory=dict)


def all_function_words(listed: frozenset[str]) -> frozenset[str]:
    """The words that are never content words: ``listed`` (the stopwords), the clitics the
    tokeniser splits off (``'s``, ``n't``, ...) and the auxiliaries left before ``n't``
    (``ca`` of ``can't``, ``wo`` of ``won't``), which are halves of function words."""
    return frozenset(listed) | frozenset(CLITICS) | NEGATION_AUXILIARIES


class ContentPreparer:
    """A document's content words (module notes): canonical tokens, lower-cased; a word is a
    function word if it is in :func:`all_function_words` of ``function_words``, else a content
    word, kept if it has a vector in ``embeddings`` and dropped otherwise.

    Parameters
    ----------
    embeddings
        The content words' vocabulary.
    function_words
        The listed function words (with the clitics: :func:`all_function_words`).
    released
        The only words that may be content words (``content="nouns"``: a public noun
        lexicon), or ``None`` for every word with a vector; a word outside it is read only to be
        discarded, like a function word.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        function_words: frozenset[str],
        released: frozenset[str] | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.function_words = all_function_words(function_words)
        self.released = released

    def units(self, parts: Iterable[str]) -> Iterator[ContentUnit]:
        """The content units of a document arriving in ``parts``; a document without content
        words (K = 0, whatever else it holds) is one empty unit, released as an empty text.

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        ContentUnit
            The units, in order.
        """
        state: Any = None  # the reading state of the canonical tokeniser between parts
        pending: list[str] = []
        vocabulary, row_of = self.embeddings.words, self.embeddings.index_of
        counts = {"words": 0, "function_words": 0, "not_released": 0, "dropped": 0}  # private
        first = True
        for part in parts:
            toks, state = canonical_tokens(part) if state is None else canonical_tokens(part, state)
            for is_word, tok in toks:
                if not is_word:
                    continue
                counts["words"] += 1
                if tok in self.function_words:
                    counts["function_words"] += 1
                elif self.released is not None and tok not in self.released:
                    counts["not_released"] += 1
                elif tok in self.embeddings:
                    # the vocabulary's own string, shared by every occurrence: a unit holds 8
                    # bytes a content word, not a string of its own (issue 50: a long
                    # document's units are held until it is released)
                    pending.append(vocabulary[row_of(tok)])
                    if len(pending) == UNIT_WORDS:
                        yield self._unit(pending, first, counts)
                        pending, first = [], False
                        counts = dict.fromkeys(counts, 0)
                else:
                    counts["dropped"] += 1
        if pending or first:
            yield self._unit(pending, first, counts)

    @staticmethod
    def _unit(words: list[str], first: bool, counts: dict[str, int]) -> ContentUnit:
        return ContentUnit(
            tuple(words),
            first,
            {"content_words": len(words), **counts},
        )


class ContextKernel:
    """The sampler of ``emp-write``: Earth Mover's noise on each content word (Theorem 2) and a
    decoder that sees the noisy vectors only (:meth:`snap_sequences`).

    Parameters
    ----------
    embeddings
        The content words' vocabulary and vectors.
    epsilon
        Per content word.
    decoder
        ``"context"``, ``"posterior"`` or ``"nearest"``.
    writer
        The public language model whose prior the ``context`` decoder uses.
    never_sent
        The words no content position holds (prior 0).
    prior_weight
        The weight of the writer's prior, > 0.
    nearest_allowed
        With the ``nearest`` decoder: the nearest word a content position may hold (not in
        ``never_sent``; ``content="nouns"``), found among the candidates of the posterior
        decoder with a flat prior, rather than the nearest word of the vocabulary.
    never_sent_rows
        ``never_sent`` as one flag per word of the vocabulary, where the caller has it.
    """

    def __init__(
        self,
        embeddings: Embeddings,
        *,
        epsilon: float,
        decoder: str,
        writer: SkeletonWriter,
        never_sent: frozenset[str],
        prior_weight: float = PRIOR_WEIGHT,
        nearest_allowed: bool = False,
        never_sent_rows: NDArray[np.bool_] | None = None,
    ) -> None:
        if decoder not in WRITE_DECODERS:
            raise InvalidParameterError(
                f"decoder must be one of {', '.join(WRITE_DECODERS)}, got {decoder!r}"
            )
        self.embeddings = embeddings
        self.decoder_name = decoder
        self.noise = EarthMoversMechanism(
            embeddings,
            epsilon=epsilon,
            decoder="posterior" if decoder == "context" else decoder,
            never_sent=never_sent,
        )
        self._sequence: SequenceDecoder | None = None
        self._nearest_allowed: PosteriorDecoder | None = None
        self.nearest_allowed = nearest_allowed and decoder == "nearest"
        self._writer = writer
        self._never_sent = never_sent
        self._never_sent_rows = never_sent_rows
        self.prior_weight = prior_weight
        if decoder == "context":  # checked now, not at the first release
            SequenceDecoder.check_weight(prior_weight)

    @property
    def epsilon(self) -> float:
        return self.noise.epsilon

    @property
    def sequence_decoder(self) -> SequenceDecoder:
        if self._sequence is None:
            zipf = frequency_log_prior(
                self.embeddings.words,
                excluded=self._never_sent,
                excluded_rows=self._never_sent_rows,
            )
            classes, transitions, within = self._writer.content_prior(zipf)
            self._sequence = SequenceDecoder(
                self.embeddings,
                epsilon=self.epsilon,
                classes=classes,
                transitions=transitions,
                within=within,
                prior_name=(
                    "class bigram over consecutive content words times Zipf on the embeddings' "
                    "frequency ranks within each class, from the writer (the statement's model: "
                    f"tokens sha256 {self._writer.identity.tokens_sha256[:16]})"
                ),
                weight=self.prior_weight,
                index=self.noise.index,
            )
        return self._sequence

    def describe(self) -> str:
        """The public description of the decoder (for the statement).

        Returns
        -------
        str
            The description.
        """
        if self.decoder_name == "context":
            return self.sequence_decoder.describe()
        if self.nearest_allowed:
            return self.nearest_allowed_decoder.describe()
        return self.noise.decoder.describe()

    def make_ready(self, work: int) -> None:
        """Load now what decoding about ``work`` noisy vectors uses (the context decoder's
        Viterbi kernel and search, or the nearest decoders' search); nothing drawn or released
        changes.

        Parameters
        ----------
        work
            About how many vectors will be decoded.
        """
        if self.decoder_name == "context":
            self.sequence_decoder.warm(work)
        elif self.nearest_allowed:
            self.nearest_allowed_decoder.warm(work)
        else:
            self.noise.make_ready(work)

    @property
    def nearest_allowed_decoder(self) -> PosteriorDecoder:
        """The ``nearest`` decoder under ``nearest_allowed``: a flat prior over the words a
        content position may hold, so ``argmax -epsilon * ||z - Vec(w)||`` among them."""
        if self._nearest_allowed is None:
            excluded = frequency_log_prior(
                self.embeddings.words,
                excluded=self._never_sent,
                excluded_rows=self._never_sent_rows,
            )
            flat = np.where(np.isfinite(excluded), 0.0, -np.inf)
            self._nearest_allowed = PosteriorDecoder(
                self.embeddings,
                epsilon=self.epsilon,
                log_prior=flat,
                prior_name="flat over the words a content position may hold (so the nearest of "
                "them)",
                index=self.noise.index,
            )
        return self._nearest_allowed

    def noisy_vectors(self, rows: Sequence[int] | np.ndarray, *, random_state: Any = None) -> Any:
        """``Vec(w) + r p`` for every row (Earth Mover's noise).

        Parameters
        ----------
        rows
            Vocabulary rows.
        random_state
            The noise's randomness: None, an int seed or a numpy Generator.

        Returns
        -------
        Any
            One noisy vector per row.
        """
        return self.noise.noisy_vectors(rows, random_state=random_state)

    def snap_sequences(
        self, noisy: list[np.ndarray], *, progress: Callable[[int], None] | None = None
    ) -> list[np.ndarray]:
        """Each document's decoded rows, from its noisy vectors alone.

        Parameters
        ----------
        noisy
            Each document's noisy vectors.
        progress
            Called with the number of vectors decoded.

        Returns
        -------
        list[np.ndarray]
            Each document's vocabulary rows.
        """
        if self.decoder_name == "context":
            return self.sequence_decoder.decode_sequences(noisy, progress=progress)
        sizes = np.cumsum([len(z) for z in noisy])[:-1]
        flat = np.concatenate(noisy) if noisy else np.zeros((0, self.embeddings.dimension))
        if self.nearest_allowed:
            rows = (
                self.nearest_allowed_decoder.decode(flat, progress=progress)
                if len(flat)
                else np.zeros(0, dtype=np.intp)
            )
            return list(np.split(rows, sizes))
        return list(np.split(self.noise.snap(flat, progress=progress), sizes))


class EMPWrite(Mechanism):
    """``emp-write`` (module notes).

    Parameters
    ----------
    embeddings : Embeddings
        The content words' vocabulary and every word's vector.
    epsilon : float
        Per content word (Euclidean distance of word vectors).
    function_words
        The words that are not content words (with the clitics); never released.
    function_words_description : str
        Their public description (for the statement).
    writer : SkeletonWriter
        The public language model that writes the rest and gives the decoder its prior.
    decoder
        ``"context"``, ``"posterior"`` or ``"nearest"``: how noisy vectors become words;
        default ``context``.
    prior_weight : float
        The weight of the writer's prior in the ``context`` decoder, > 0
        (:class:`~authormask.mechanisms.decoding.SequenceDecoder`); default
        :data:`PRIOR_WEIGHT`.
    released
        ``content="nouns"``: the only words that are content words and their public
        description (:class:`~authormask.models.lexicon.NounLexicon`); the writer must have
        been trained with the same. ``None`` (default): every word with a vector that is not a
        function word.
    """

    #: its writer draws the function words, marks and sentence ends from the document's
    #: generator after the noise (post-processing): its noise-off text depends on the seed
    RENDERING = frozenset({"draws"})

    name = "emp-write"
    title = TITLE
    reference = REFERENCE

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        function_words: frozenset[str],
        function_words_description: str,
        writer: SkeletonWriter,
        decoder: str = "context",
        prior_weight: float = PRIOR_WEIGHT,
        released: tuple[frozenset[str], str] | None = None,
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        if (released is None) != (writer.released is None) or (
            released is not None
            and released[0] is not writer.released  # the same set (comparing takes 3 ms)
            and released[0] != writer.released
        ):
            raise InvalidParameterError("the writer was trained for other released words")
        self.released = released
        self.preparer = ContentPreparer(
            embeddings,
            function_words=function_words,
            released=None if released is None else released[0],
        )
        never_sent = self.preparer.function_words
        never_sent_rows = None
        if released is not None:
            # the vocabulary's 100,000 words tested once, in C (a flag a row: the words never
            # sent, for the decoder's prior, which would test each word again), and the words
            # taken by their flags (a row's word is found without a lookup a word: 13 ms)
            words = embeddings.words
            sent = np.fromiter(map(released[0].__contains__, words), dtype=bool, count=len(words))
            never_sent_rows = ~sent
            never_sent = never_sent | frozenset(compress(words, never_sent_rows.tolist()))
            for word in self.preparer.function_words:
                if word in embeddings:
                    never_sent_rows[embeddings.index_of(word)] = True
        self.function_words_description = function_words_description
        self.writer = writer
        self.decoder = decoder
        self.floating_point = (
            FLOATING_POINT
            if decoder == "nearest" and released is None
            else CANDIDATE_FLOATING_POINT
        )
        self.kernel = ContextKernel(
            embeddings,
            epsilon=self.epsilon,
            decoder=decoder,
            writer=writer,
            never_sent=never_sent,
            prior_weight=prior_weight,
            nearest_allowed=released is not None,
            never_sent_rows=never_sent_rows,
        )

    def without_noise(self) -> EMPWrite:
        """This mechanism with its kernel (its one sampler, ``samplers=("kernel",)`` in its
        registry spec) replaced by the identity; its public writer still writes.

        Returns
        -------
        EMPWrite
            The copy.
        """
        off = copy.copy(self)
        off.kernel = IdentityKernel(self.kernel.embeddings)  # type: ignore[assignment]
        return off

    def make_ready(self, work: int) -> None:
        """Load now what decoding about ``work`` content words uses (its kernel's
        :meth:`ContextKernel.make_ready`); nothing drawn or released changes.

        Parameters
        ----------
        work
            About how many content words will be released.
        """
        self.kernel.make_ready(work)

    # --- preparation ------------------------------------------------------------------------

    def prepare(self, text: str) -> ContentUnit:
        """The content unit of a text of at most :data:`UNIT_WORDS` content words.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        ContentUnit
            Its unit.

        Raises
        ------
        InvalidParameterError
            If the text has more than one unit.
        """
        units = list(self.preparer.units([text]))
        if len(units) != 1:
            raise InvalidParameterError("prepare takes a text of one unit; use prepare_parts()")
        return units[0]

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[ContentUnit]:
        """The content units of a document arriving in ``parts``.

        Parameters
        ----------
        parts
            The document, part by part.

        Returns
        -------
        Iterator[ContentUnit]
            Its units, in order.
        """
        return self.preparer.units(parts)

    def prepare_text(self, text: str) -> list[ContentUnit]:
        """Every content unit of a text of any length.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        list[ContentUnit]
            Its units, in order.
        """
        return list(self.preparer.units(split_parts(text)))

    def content_kinds(self, text: str) -> tuple[str, ...]:
        """One ``"content"`` per content word of ``text`` (a word of the noun lexicon with a
        vector, with ``content="nouns"``).

        Parameters
        ----------
        text
            A word or a few words.

        Returns
        -------
        tuple[str, ...]
            One kind per position.
        """
        return ("content",) * sum(len(u.words) for u in self.preparer.units([text]))

    def diagnostics(self, unit: ContentUnit) -> dict[str, int]:
        """The unit's private counts, for the run report.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        dict[str, int]
            Its private counts, by name.
        """
        return dict(unit.diagnostics)

    def released_words(self, unit: ContentUnit) -> tuple[str, ...]:
        """Its content words (the released nouns), in order.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        tuple[str, ...]
            Its words.
        """
        return tuple(unit.words)

    def units(self, unit: ContentUnit) -> int:
        """The unit's content words, the work it takes.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        int
            Its units of work.
        """
        return len(unit.words)

    # --- release ----------------------------------------------------------------------------

    def perturb(
        self,
        documents: Sequence[ContentUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Each unit draws from its generator its noise (in word order) and, right after it, the
        seed of the writer's own generator, so a unit's draws never depend on the batch it is
        released in; the words are decoded from the noisy vectors alone, then written.

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
        ValueError
            If there is not one generator per unit.
        """
        if len(rngs) != len(documents):
            raise ValueError(f"{len(documents)} units but {len(rngs)} generators")
        # the units in groups of at most UNIT_WORDS content words (or one unit): what a group
        # holds (its noisy vectors, their candidates) is bounded by that, not by the batch
        # (issue 50: memory flat in input length); a unit's draws are its generator's alone,
        # so the same draws however the units are grouped
        out: list[Output] = []
        for group in bounded_groups([len(u.words) for u in documents], UNIT_WORDS):
            out.extend(self._perturb_group(documents, rngs, group, progress))
        return out

    def _perturb_group(
        self,
        documents: Sequence[ContentUnit],
        rngs: Sequence[np.random.Generator],
        group: list[int],
        progress: Callable[[int], None] | None,
    ) -> list[Output]:
        """:meth:`perturb` of the units ``group`` (positions in ``documents``)."""
        emb = self.embeddings
        noisy: list[np.ndarray] = []
        writer_seeds: list[int] = []
        for i in group:
            rng = rngs[i]
            rows_in = [emb.index_of(w) for w in documents[i].words]
            noisy.append(self.kernel.noisy_vectors(rows_in, random_state=rng))
            writer_seeds.append(int(rng.integers(0, 2**63 - 1)))
        rows = self.kernel.snap_sequences(noisy, progress=progress)
        out: list[Output] = []
        for i, seed, r in zip(group, writer_seeds, rows, strict=True):
            unit = documents[i]
            words = tuple(emb.words[int(row)] for row in r)
            tokens = self.writer.write(words, np.random.default_rng(seed))
            out.append(Output(render_tokens(tokens, first=unit.first), words))
        return out

    # --- statement --------------------------------------------------------------------------

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement of ``emp-write``: epsilon per content word.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps = self.epsilon
        e = self.embeddings.identity
        w = self.writer.identity
        return PrivacyStatement(
            randomness=SEEDED if seeded else UNSEEDED,
            mechanism=self.name,
            title=self.title,
            reference=REFERENCE,
            epsilon=eps,
            epsilon_unit=(
                f"per content word (Euclidean distance between {e.dimension}-d word vectors of "
                f"{e.name})"
            ),
            embeddings=e.to_dict(),
            model={"writer": "class trigram writer", **w.to_dict()},
            floating_point=self.floating_point,
            version=__version__,
            guarantee=(
                "metric DP over the content words (eq. 6): for documents v, v' with the same "
                f"number K of content words, P[out | v] <= exp({exact(eps)} * sum_i d(v_i, "
                "v'_i)) * P[out | v']; the decoder and the writer are post-processing (Lemma 3); "
                "word order is released, so the bag-level epsilon*N*E bound of Theorem 4 does "
                "not apply"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {exact(eps)} * sum over content positions i of "
                "d(v_i, v'_i) (documents with the same number of content words)"
            ),
            released_unchanged=(
                "the number K of content words, so roughly the document's length (and how many "
                f"units of {UNIT_WORDS} content words it is cut into; a document with K = 0 is "
                "released as an empty text); the content words' order, through their noisy "
                "versions. Not released: its function words, punctuation, sentence boundaries, "
                "capitals and layout, which a public language model writes from the released "
                "words"
                if self.released is None
                else "the number K of content words (the words of the noun lexicon: K is how "
                "many of them the document uses, so roughly its length, and how many units of "
                f"{UNIT_WORDS} it is cut into; a document with K = 0 is released as an empty "
                "text); their order, through their noisy versions. Not released: every word "
                "outside the lexicon (verbs, adjectives, adverbs, function words), punctuation, "
                "sentence boundaries, capitals and layout, which a public language model writes "
                "from the released words"
            ),
            parameters={
                "content words": (
                    "every content word with a vector, perturbed once, in order"
                    if self.released is None
                    else "only the words of a public noun lexicon (every other word is read "
                    "only to be discarded, and written by the writer), each with a vector, "
                    f"perturbed once, in order: {self.released[1]}"
                ),
                "unit": f"{UNIT_WORDS} content words (noise is drawn unit by unit; public "
                "constant)",
            },
            policies={
                "invisible characters": INVISIBLE_CHARACTERS_POLICY,
                "function words": f"listed: {self.function_words_description}; the words never "
                "taken for content words (the listed words, the clitics and the auxiliaries "
                "of negative contractions, wherever they stand"
                + ("" if self.released is None else "; and every word outside the noun lexicon")
                + "), never released (what stands between two content words is written by the "
                f"writer): {list_words(self.preparer.function_words)}",
                "tokens": f"canonical tokens: {CANONICAL_RULES}",
                "unknown words": "dropped (a word without a vector is not released and not "
                "counted in K)",
                "decoder": self.kernel.describe(),
                "writer": (
                    "function words"
                    if self.released is None
                    else "every word that is not a released noun (verbs, adjectives, adverbs, "
                    "function words)"
                )
                + ", marks (. , ; : ? ! -), sentence boundaries and capitals drawn by the public "
                "writer from the released content words and the document's generator only: the "
                f"class trigram writer of the statement's model (tokens sha256 "
                f"{w.tokens_sha256[:16]})",
            },
            caveats=(
                "K, the number of content words, is released: the guarantee compares documents "
                "with the same K, position by position, so a text with one content word more "
                "or less is not covered, and one inserted and one deleted word shift every "
                "later position (the bound then sums the distances of all of them)",
                "the content words are released in their order: a writer's choice of words "
                "(and of rare words) is protected only as far as epsilon * d bounds it",
                *(
                    ()
                    if self.released is None
                    else (
                        "the noun lexicon is a rule by word, not by use: a word that is a noun "
                        "in some of its uses (look, smile) is released wherever it stands, and "
                        "names are nouns (the entity step, if on, replaces them first)",
                    )
                ),
            ),
        )
