"""``emp-doc``: Earth Mover's privacy on every word of a canonical skeleton.

``emp-text`` perturbs the content words and releases the rest as written: function words,
punctuation, layout and capitalisation, which is where a writer's style lives (on fan fiction,
measured in ``docs/emp-doc.md``, an attacker still names the writer from them). ``emp-doc``
releases readable text that leaves far less of the writer unchanged:

* **content words** go through the per-word mechanism of Fernandes, Dras & McIver (Theorem 2:
  n-dimensional Laplace noise, radius Gamma(n, 1/epsilon), uniform direction) and are decoded to
  a vocabulary word (Algorithm 2's nearest word, or the posterior decoder), as in ``emp-text``
  (unknown words are mapped to a fixed word and perturbed);
* **function words** (the stopword list) go through the same noise with their own epsilon
  ``function_epsilon`` and are decoded *within their closed class*: the released word is the
  function word nearest to the noisy vector (or the class's posterior choice), so the grammar's
  shape survives while which function words the writer uses does not;
* **the skeleton is canonical** (:mod:`authormask.text.canonical`): whitespace and line breaks,
  typographic variants, repeated marks and casing are normalised before anything else, and the
  text is rendered from the canonical tokens alone.

Guarantee. Each word position is an independent use of a metric-DP mechanism: the content
mechanism is ``epsilon * d``-private and the function-word mechanism ``function_epsilon * d``-
private on its class (decoding is post-processing, Lemma 3). For two documents with the same
canonical skeleton (the same number of tokens, the same marks, function words and content words
at the same positions), by sequential composition,
``P[out | v] <= exp(epsilon * sum_content d(v_i, v'_i) + function_epsilon * sum_function
d(f_j, f'_j)) * P[out | v']`` (eq. 6 of the paper, over both classes).

Its spec (emp-doc) and factory, as the registry offers it:
:mod:`~authormask.mechanisms.document_spec`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.mechanisms.decoding import check_decoder
from authormask.mechanisms.earth_movers_kernel import (
    FLOATING_POINT,
    REFERENCE,
    EarthMoversMechanism,
)
from authormask.mechanisms.unknown import UnknownWords, describe_unknown_policy
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.canonical import UNIT_WORDS, CanonicalPreparer, CanonicalUnit, render_canonical
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY
from authormask.text.parts import split_parts
from authormask.text.stopwords import list_words
from authormask.text.token_rules import CANONICAL_RULES
from authormask.validation import check_epsilon

__all__ = [
    "FUNCTION_EPSILON_RATIO",
    "CanonicalMechanism",
    "EMPDoc",
    "function_word_embeddings",
    "marks_policy",
]

#: function_epsilon when none is given: epsilon / 4. Function words carry the writer's style
#: and little of the meaning, so they get the stronger guarantee (measured on pan19-en:
#: docs/emp-doc.md)
FUNCTION_EPSILON_RATIO = 0.25

TITLE = (
    "Earth Mover's privacy on every word of a canonical skeleton: content words perturbed over "
    "the vocabulary, function words within their closed class, layout, marks and casing "
    "normalised"
)


def marks_policy(marks: str) -> str:
    """The statement's line on punctuation.

    Parameters
    ----------
    marks
        ``"canonical"`` or ``"minimal"``.

    Returns
    -------
    str
        The policy.
    """
    if marks == "minimal":
        return (
            "minimal: '?' released as '?', '.' and '!' as '.', quotation marks (opening or "
            "closing) and inch marks as '\"', every other mark as ','"
        )
    return "canonical: each mark released after normalisation"


def function_words_policy(description: str, preparer: CanonicalPreparer, fate: str) -> str:
    """The statement's line on the function words: the list as given (``description``) and the
    closed class the preparer classifies with, word by word (the very set it uses), and
    ``fate``, what is done with a word of the class."""
    rule = "the listed words with a vector" + (
        ", and with n't the auxiliaries of negative contractions wherever they stand"
        if preparer.negation
        else ""
    )
    return (
        f"listed: {description}; the class used ({rule}), whose every word {fate}: "
        f"{list_words(preparer.function_words)}"
    )


def function_word_embeddings(embeddings: Embeddings, words: frozenset[str]) -> Embeddings:
    """The sub-vocabulary of ``words`` (in the embeddings' frequency order): the closed class a
    function word is decoded into.

    Parameters
    ----------
    embeddings
        The embeddings.
    words
        The function words.

    Returns
    -------
    Embeddings
        The function words that have a vector, with their vectors.
    """
    rows = sorted(embeddings.index_of(w) for w in words if w in embeddings)
    return Embeddings(
        name=f"{embeddings.name} (function words)",
        source=embeddings.source,
        words=tuple(embeddings.words[i] for i in rows),
        vectors=embeddings.vectors[rows],
        vocabulary_filter=None,
    )


class CanonicalMechanism(Mechanism):
    """What every mechanism over the canonical skeleton shares (``emp-doc``, ``random-sub``):
    its preparation, in units of :data:`UNIT_WORDS` words, and its private counts."""

    preparer: CanonicalPreparer

    def prepare(self, text: str) -> CanonicalUnit:
        """The canonical unit of a text of at most :data:`UNIT_WORDS` words.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        CanonicalUnit
            Its unit.
        """
        return self.preparer.prepare(text)

    def released_words(self, document: CanonicalUnit) -> tuple[str, ...]:
        """The skeleton's words in reading order: content and function words, marks left out.

        Parameters
        ----------
        document
            A canonical unit.

        Returns
        -------
        tuple[str, ...]
            Its words.
        """
        content, function = iter(document.content_words), iter(document.function_words)
        return tuple(
            next(content if k == "content" else function) for k in document.kinds if k != "mark"
        )

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[CanonicalUnit]:
        """Canonical units of :data:`UNIT_WORDS` words, whatever the parts were.

        Parameters
        ----------
        parts
            The document, part by part.

        Returns
        -------
        Iterator[CanonicalUnit]
            Its units, in order.
        """
        return self.preparer.units(parts)

    def prepare_text(self, text: str) -> list[CanonicalUnit]:
        """Every canonical unit of a text of any length.

        Parameters
        ----------
        text
            The text.

        Returns
        -------
        list[CanonicalUnit]
            Its units, in order.
        """
        return list(self.preparer.units(split_parts(text)))

    def diagnostics(self, unit: CanonicalUnit) -> dict[str, int]:
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

    def units(self, unit: CanonicalUnit) -> int:
        """The unit's words, the work it takes.

        Parameters
        ----------
        unit
            A prepared unit.

        Returns
        -------
        int
            Its units of work.
        """
        return unit.words

    def content_kinds(self, text: str) -> tuple[str, ...]:
        """One ``"content"`` per content position of ``text`` (its canonical content words).

        Parameters
        ----------
        text
            A word or a few words.

        Returns
        -------
        tuple[str, ...]
            One kind per position.
        """
        if not text.strip():
            return ()
        try:
            units = list(self.preparer.units([text]))
        except InputError:  # no word at all (a mark alone): no position
            return ()
        return ("content",) * sum(len(u.content_words) for u in units)

    @functools.cached_property
    def unknown(self) -> UnknownWords:
        """What an unknown word is fed as (:mod:`authormask.mechanisms.unknown`)."""
        return UnknownWords(
            self.preparer.embeddings,
            excluded=self.preparer.function_words,
            fixed=self.preparer.oov_map_to,
        )

    def _content(self, unit: CanonicalUnit, rng: np.random.Generator) -> tuple[str, ...]:
        """The content words fed to the mechanism: the unit's, each unknown word replaced
        (nothing drawn when it has none)."""
        return self.unknown.replace(unit.content_words, unit.mapped, rng)


class EMPDoc(CanonicalMechanism):
    """``emp-doc`` (module notes).

    Parameters
    ----------
    embeddings : Embeddings
        The content words' vocabulary and every word's vector.
    epsilon : float
        Per content word (Euclidean distance of word vectors).
    preparer : CanonicalPreparer
        The canonical skeleton and the function-word class.
    function_words_description : str
        The public description of the function-word list.
    function_epsilon
        Per function word; default ``epsilon * FUNCTION_EPSILON_RATIO`` (epsilon / 4).
    decoder
        ``"nearest"`` or ``"posterior"``: how a noisy vector becomes a word
        (:mod:`~authormask.mechanisms.decoding`); default ``posterior`` (post-processing: the
        guarantee is the same, more words survive).
    """

    name = "emp-doc"
    title = TITLE
    reference = REFERENCE
    floating_point = FLOATING_POINT

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: CanonicalPreparer,
        function_words_description: str,
        function_epsilon: float | None = None,
        decoder: str = "posterior",
    ) -> None:
        self.embeddings = embeddings
        self.epsilon = check_epsilon(epsilon)
        self.function_epsilon = (
            self.epsilon * FUNCTION_EPSILON_RATIO
            if function_epsilon is None
            else check_epsilon(function_epsilon, name="`function_epsilon`")
        )
        self.preparer = preparer
        self.function_words_description = function_words_description
        self.decoder = check_decoder(decoder)
        self.kernel = EarthMoversMechanism(
            embeddings,
            epsilon=self.epsilon,
            decoder=self.decoder,
            never_sent=preparer.function_words,
        )
        self.function_embeddings = function_word_embeddings(embeddings, preparer.function_words)
        self.function_kernel = EarthMoversMechanism(
            self.function_embeddings, epsilon=self.function_epsilon, decoder=self.decoder
        )

    def without_noise(self) -> EMPDoc:
        """This mechanism with its two samplers, the content words' and the function words'
        kernels (``samplers=("kernel", "function_kernel")`` in its registry spec), replaced by
        the identity.

        Returns
        -------
        EMPDoc
            The copy.
        """
        off = copy.copy(self)
        off.kernel = IdentityKernel(self.kernel.embeddings)  # type: ignore[assignment]
        off.function_kernel = IdentityKernel(self.function_kernel.embeddings)  # type: ignore[assignment]
        return off

    def make_ready(self, work: int) -> None:
        """Load now what snapping about ``work`` content words searches with (its content
        kernel's :meth:`~authormask.mechanisms.earth_movers_kernel.EarthMoversMechanism.
        make_ready`; the function words' vocabulary is searched without it); nothing drawn or
        released changes.

        Parameters
        ----------
        work
            About how many words will be snapped.
        """
        self.kernel.make_ready(work)

    # --- release ---------------------------------------------------------------------------

    def perturb(
        self,
        documents: Sequence[CanonicalUnit],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Every unit's content words, then its function words, drawn from its generator in that
        order (so a unit's output never depends on the batch), decoded in two batched calls.

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
        """
        emb, fem = self.embeddings, self.function_embeddings
        content_noise: list[np.ndarray] = []
        function_noise: list[np.ndarray] = []
        for unit, rng in zip(documents, rngs, strict=True):
            content_noise.append(
                self.kernel.noisy_vectors(
                    [emb.index_of(w) for w in self._content(unit, rng)], random_state=rng
                )
            )
            function_noise.append(
                self.function_kernel.noisy_vectors(
                    [fem.index_of(w) for w in unit.function_words], random_state=rng
                )
            )
        if not documents:
            return []
        content_rows = self.kernel.snap(np.concatenate(content_noise), progress=progress)
        function_rows = self.function_kernel.snap(np.concatenate(function_noise), progress=progress)
        out: list[Output] = []
        c = f = 0
        for unit in documents:
            content = tuple(
                emb.words[int(i)] for i in content_rows[c : c + len(unit.content_words)]
            )
            function = tuple(
                fem.words[int(i)] for i in function_rows[f : f + len(unit.function_words)]
            )
            c += len(content)
            f += len(function)
            words = _in_order(unit, content, function)
            out.append(Output(render_canonical(unit, content, function), words))
        return out

    # --- statement -------------------------------------------------------------------------

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement of ``emp-doc``: its two epsilons and the skeleton it publishes.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps, feps = self.epsilon, self.function_epsilon
        e = self.embeddings.identity
        n_function = len(self.function_embeddings)
        policies: dict[str, Any] = {
            "invisible characters": INVISIBLE_CHARACTERS_POLICY,
            "function words": function_words_policy(
                self.function_words_description,
                self.preparer,
                "is perturbed with function_epsilon and released as a word of the class",
            ),
            "unknown words": describe_unknown_policy(self.preparer.oov_map_to),
            "skeleton": "canonical: Unicode NFKC; typographic quotes, apostrophes and dashes as "
            "one ASCII mark each; a number with its inner '.', ',', ':' and a '%' after it, a "
            "URL and an e-mail address one word each (a content word, mapped when it has no "
            "vector); each quotation mark opening or closing by the characters on its two "
            "sides (an ambiguous one by whether a quotation is open, forgotten at a blank line), "
            "a '\"' after a digit an inch mark; a run of sentence ends as its first, a repeated "
            "mark as one (quotation and inch marks and brackets excepted); words lower-cased, "
            "sentences capitalised; one space between tokens, one paragraph",
            "contractions": "split into a word and a clitic (do + n't); a piece is a "
            "function word when it is in the class",
            "tokens": CANONICAL_RULES,
            "marks": marks_policy(self.preparer.marks),
        }
        if self.decoder != "nearest":
            policies["decoder"] = (
                f"content words: {self.kernel.decoder.describe()}; function words: "
                f"{self.function_kernel.decoder.describe()}"
            )
        return PrivacyStatement(
            randomness=SEEDED if seeded else UNSEEDED,
            mechanism=self.name,
            title=self.title,
            reference=self.reference,
            epsilon=eps,
            epsilon_unit=(
                f"per word (Euclidean distance between {e.dimension}-d word vectors of {e.name}); "
                f"function words with function_epsilon = {exact(feps)}"
            ),
            embeddings=e.to_dict(),
            model=None,
            floating_point=self.floating_point,
            version=__version__,
            guarantee=(
                f"metric DP over the words of a canonical skeleton (eq. 6 over both classes): for "
                "documents v, v' with the same canonical skeleton, P[out | v] <= "
                f"exp({exact(eps)} * sum_content d(v_i, v'_i) + {exact(feps)} * sum_function "
                "d(f_j, f'_j)) * P[out | v']; word order is released, so the bag-level "
                "epsilon*N*E bound of Theorem 4 does not apply"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {exact(eps)} * sum over content positions i of "
                f"d(v_i, v'_i) + {exact(feps)} * sum over function-word positions j of "
                "d(f_j, f'_j)"
            ),
            released_unchanged=(
                "the canonical skeleton: the number of tokens; which positions hold a content "
                "word, a function word or a punctuation mark; the marks themselves after "
                "normalisation (so the sentence boundaries, which sentences are questions under "
                "either marks policy, the quotations and inch marks). Not released: "
                "whitespace, line breaks and paragraphs, typographic variants, repeated marks, "
                "capitalisation"
            ),
            parameters={
                "content words": "every content position, perturbed in place",
                "function words": f"every function-word position, perturbed within the class "
                f"of {n_function} function words",
                "function_epsilon": feps,
                "unit": f"{UNIT_WORDS} words (noise is drawn unit by unit; public constant)",
            },
            policies=policies,
            caveats=(
                "the canonical skeleton is released unchanged: the guarantee only compares "
                "documents that share it (its length, its marks and where its function words "
                "are)",
                "a function word is perturbed only within the function-word class: the bound "
                "compares function words with function words",
            ),
        )


def _in_order(
    unit: CanonicalUnit, content: Sequence[str], function: Sequence[str]
) -> tuple[str, ...]:
    """The released words in reading order."""
    c, f = iter(content), iter(function)
    return tuple(next(c) if k == "content" else next(f) for k in unit.kinds if k != "mark")
