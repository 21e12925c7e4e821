"""Earth Mover's privacy in place, ``emp-text`` (Fernandes, Dras & McIver 2019, eq. 6), and the
base of the word-level release mechanisms.

* :class:`_EMPBase`: what every word-level release shares (parameters, preparation, the
  per-word kernel, the fields of the statement); ``emp-bag``
  (:mod:`~authormask.mechanisms.earth_movers_bag`) builds on it too.
* :class:`EMPText` (``emp-text``): the per-word mechanism ``K``
  (:class:`~authormask.mechanisms.earth_movers_kernel.EarthMoversMechanism`) applied in place to
  every content position of the text; the skeleton (stopwords, punctuation, whitespace,
  positions and capitalisation) is released unchanged. Guarantee: ``epsilon * sum_i d(v_i,
  v'_i)`` between documents with the same skeleton (eq. 6). The peer mechanisms
  (:mod:`authormask.mechanisms.peer_texts`) subclass it with their own per-word kernel.

The statement is computed from the parameters alone; per-document counts are diagnostics for
the private run report.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement, exact
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.mechanisms.decoding import check_decoder
from authormask.mechanisms.earth_movers_kernel import (
    FLOATING_POINT,
    REFERENCE,
    TITLE,
    EarthMoversMechanism,
    WordKernel,
)
from authormask.mechanisms.unknown import UnknownWords, describe_unknown_policy
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.clean import INVISIBLE_CHARACTERS_POLICY
from authormask.text.prepare import NEGATION_AUXILIARIES, PreparedDocument, TextPreparer
from authormask.text.render import render_text
from authormask.text.stopwords import list_words
from authormask.text.token_rules import TEXT_RULES
from authormask.validation import check_epsilon

__all__ = ["EMPText"]


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
        self.unknown = UnknownWords(
            embeddings, excluded=preparer.stopwords, fixed=preparer.oov_map_to
        )

    def _make_kernel(self) -> WordKernel:
        """The per-word mechanism (Earth Mover's privacy here)."""
        return EarthMoversMechanism(
            self.embeddings,
            epsilon=self.epsilon,
            decoder=self.decoder,
            never_sent=self.preparer.stopwords,
        )

    def without_noise(self) -> _EMPBase:
        """This mechanism with its per-word kernel (its one sampler, ``samplers=("kernel",)``
        in its registry spec) replaced by the identity."""
        off = copy.copy(self)
        off.kernel = IdentityKernel(self.kernel.embeddings)
        return off

    def make_ready(self, work: int) -> None:
        """Load now what snapping about ``work`` words searches with (its kernel's
        ``make_ready``, where it has one: the Earth Mover's kernel's loads the search's compiled
        kernels); nothing drawn or released changes.

        Parameters
        ----------
        work
            About how many words will be snapped.
        """
        ready = getattr(self.kernel, "make_ready", None)
        if ready is not None:
            ready(work)

    def _decoder_policies(self) -> dict[str, str]:
        """The decoder, in the statement's policies: only when it is not the paper's, so the
        statements of the paper's mechanisms are unchanged."""
        if self.decoder == "nearest":
            return {}
        return {"decoder": str(self.kernel.decoder.describe())}

    def prepare(self, text: str) -> PreparedDocument:
        """Tokenise and classify (deterministic; raises ``InputError`` on unusable text)."""
        return self.preparer.prepare(text)

    def released_words(self, document: Any) -> tuple[str, ...]:
        """Its content words, in order (in place; a bag's N words).

        Parameters
        ----------
        document
            A prepared document (a bag's unit).

        Returns
        -------
        tuple[str, ...]
            Its words.
        """
        return tuple(document.content_words)

    def diagnostics(self, doc: PreparedDocument) -> dict[str, int]:
        """Private per-document counts (never part of the public statement)."""
        return _counts(doc)

    def units(self, doc: PreparedDocument) -> int:
        """Words this document sends through the search (for progress)."""
        return len(doc.content_words)

    def content_kinds(self, text: str) -> tuple[str, ...]:
        """One ``"content"`` per content position of ``text`` (a vocabulary word that is no
        stopword; under ``oov="map"`` every word that is no stopword).

        Parameters
        ----------
        text
            A word or a few words.

        Returns
        -------
        tuple[str, ...]
            One kind per position.
        """
        doc = self.preparer.prepare(text, require_content=False)
        return ("content",) * len(doc.content_words)

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

    def _word_policies(self, fate: str) -> dict[str, str]:
        """The statement's lines on the stopwords (``fate``: what is done with them) and on the
        contractions, built from the very sets the preparer classifies with."""
        words = self.preparer.stopwords
        listed = f"{self.stopwords_description}; {fate}"
        if words:
            listed += f": {list_words(words)}"
        if "n't" in words:
            contractions = (
                "split into a word and a clitic ('s, n't, 'm, 'll, 're, 've, 'd: do + n't, "
                "president + 's); a clitic in the list is a stopword, and so is the word before "
                f"n't when it is one of the {len(NEGATION_AUXILIARIES)} auxiliaries "
                f"{' '.join(sorted(NEGATION_AUXILIARIES))}; any other word before n't is not"
            )
        else:
            contractions = (
                "split into a word and a clitic ('s, n't, 'm, 'll, 're, 've, 'd: do + n't, "
                "president + 's); each is a stopword only if it is in the list"
            )
        return {"stopwords": listed, "contractions": contractions, "tokens": TEXT_RULES}

    def _oov_policy(self) -> str:

        return {
            "drop": "drop (removed before the mechanism, not released)",
            "keep": "keep (released unchanged, NOT protected)",
            "map": describe_unknown_policy(self.preparer.oov_map_to),
        }[self.preparer.oov]

    def _unit(self) -> str:
        e = self.embeddings.identity
        return f"per word (Euclidean distance between {e.dimension}-d word vectors of {e.name})"

    def _statement(
        self, *, seeded: bool, policies: dict[str, str], **fields: Any
    ) -> PrivacyStatement:
        """The fields both EMP mechanisms share, plus their own (``policies`` after the line on
        invisible characters, and ``fields``)."""
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
            policies={"invisible characters": INVISIBLE_CHARACTERS_POLICY, **policies},
            **fields,
        )


class EMPText(_EMPBase):
    """``emp-text``: K applied in place to every content position; the skeleton is kept.

    Unknown words must be mapped (the default) or kept: dropping them would leave holes that
    reveal where and how many there were, so ``oov="drop"`` is refused.

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per content word (Euclidean distance of word vectors).
    preparer
        Tokenising, stopwords and unknown words (``oov="drop"`` is refused).
    stopwords_description
        The public description of the stopword list.
    decoder
        How a noisy vector becomes a word: ``"nearest"`` or ``"posterior"``.
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
        content word at all is refused at its end.

        Parameters
        ----------
        parts
            The document, part by part.

        Returns
        -------
        Iterator[PreparedDocument]
            One prepared unit per part.
        """
        return self._parts(parts)

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement of ``emp-text``: epsilon*M-privacy over sequences of content words.

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
            "the skeleton: stopwords, punctuation and every other character outside a word "
            "(symbols, emoji with their modifiers, currency signs), whitespace and line breaks, "
            "the positions of "
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
                **self._word_policies("passed through unchanged (part of the released skeleton)"),
                "unknown words": self._oov_policy(),
                **self._decoder_policies(),
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
        """Each unit's content words perturbed in place, the rest of the text kept.

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
        words = [
            self.unknown.replace(d.content_words, d.mapped, rng)
            for d, rng in zip(documents, rngs, strict=True)
        ]
        perturbed = self.kernel.perturb_documents(words, rngs, progress=progress)
        return [
            Output(render_text(doc, words), words)
            for doc, words in zip(documents, perturbed, strict=True)
        ]
