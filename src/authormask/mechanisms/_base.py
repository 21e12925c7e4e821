"""The base class of every release mechanism, what it returns for one document, and its
noise-off form."""

from __future__ import annotations

import contextlib
import copy
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from authormask.accounting.statement import PrivacyStatement
from authormask.exceptions import InvalidParameterError

__all__ = ["IdentityKernel", "Mechanism", "NoiseOff", "Output"]


@dataclass(frozen=True)
class Output:
    """One released document.

    ``text`` is what is published; ``words`` the released words or tokens (the sorted bag for a
    bag, the perturbed content words or generated tokens in reading order otherwise); ``bag`` the
    released bag as counts (bag mechanisms only). ``figures`` are public per-output numbers that
    are functions of the released output alone (ER-AE's ``tokens`` l and ``epsilon_total``), so
    publishing them reveals nothing beyond the output; the statement's ``per_output`` names them.

    Attributes
    ----------
    text
        The published text.
    words
        The released words or tokens.
    bag
        The released bag as counts (bag mechanisms only).
    figures
        Public per-output numbers, functions of the released output alone.
    """

    text: str
    words: tuple[str, ...]
    bag: dict[str, int] | None = None
    figures: dict[str, float] = field(default_factory=dict)


class Mechanism:
    """A mechanism as the release layer sees it (EMP bag, text and doc, ER-AE, AE-DP, SynTF,
    Random-R, the peers, the random-sub baseline).

    Every mechanism implements:

    * ``prepare(text)``: deterministic and public-parameter-only; turns a text into the unit
      the mechanism perturbs, or raises :class:`~authormask.exceptions.InputError`;
    * ``perturb(units, rngs)``: releases each prepared unit with its document's generator, so a
      document's output never depends on the batch it was released in;
    * ``statement(seeded=...)``: the public statement, a function of the parameters only;
    * ``diagnostics(unit)``: private per-document counts for the run report;
    * ``units(unit)``: the work it takes (words snapped, tokens drawn), for progress.

    Its optional abilities are declared here with their defaults, so the release layer and the
    front ends call them on every mechanism and never probe for them:

    * ``prepare_parts(parts)``: the units of one document that arrives part by part; by
      default the whole document, joined, through ``prepare`` (a mechanism released document by
      document: ER-AE, SynTF, Random-R); text mode gives one unit per part, a bag one unit per
      document holding only its counters;
    * ``needs_all_documents``, ``with_length_from(units)`` and ``resolved_parameters()``: a
      parameter that depends on the whole release (``emp-bag`` with N ``"shortest"``), the
      mechanism with it resolved from every document's units, and the value it was resolved
      to; by default none, the mechanism itself and nothing;
    * ``make_ready(work)``: load what perturbing that much work needs (a search's compiled
      kernels) while the release does other work; by default nothing;
    * ``unchanged_probabilities(text)``: the exact probability that each token is released
      as itself, where the mechanism can compute its output distribution; by default None;
    * ``content_kinds(text)``: the kind of each position ``text`` alone gives the mechanism's
      noise (in order: ``"content"``, or for ``emp-sentence`` ``"noun"`` and ``"name"``), by
      its own public rule; the entity step keeps them (:mod:`authormask.mechanisms.inputs`);
      by default None (the mechanism does not say, and its statement says the step may change
      them);
    * ``without_noise()``: the mechanism with its samplers replaced by :class:`IdentityKernel`
      (what :class:`NoiseOff` releases), for a mechanism whose registry spec declares its
      samplers; by default it has none and refuses;
    * ``recipe``: how :func:`~authormask.core.create_mechanism` built it (a
      :class:`~authormask.core.registry.Recipe`), so another process (a Dask worker) can
      build it again; ``None`` for a mechanism built by hand.
    """

    name: str
    #: how the registry built it (set by ``create_mechanism``); None: built by hand
    recipe: Any = None
    #: the public word vectors it perturbs with (its statement names them; the plain
    #: statement's worked example reads them); None where it has none (a token model's)
    embeddings: Any = None

    def prepare(self, text: str) -> Any:
        """The unit the mechanism perturbs, from a text (deterministic, public parameters only).

        Parameters
        ----------
        text
            The document (or a part of it).

        Returns
        -------
        Any
            The prepared unit.

        Raises
        ------
        NotImplementedError
            Every mechanism implements it.
        """
        raise NotImplementedError

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[Any]:
        """The units of one document arriving in ``parts``: by default one, the whole text.

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        Any
            The document's prepared units.
        """
        yield self.prepare("".join(parts))

    def reading_ahead(
        self, *, many: bool = True
    ) -> contextlib.AbstractContextManager[Callable[[list[str]], None] | None]:
        """A block within which a release hands the mechanism the parts of documents it will
        read later (the function yielded), so that it can prepare them elsewhere meanwhile
        (the entity step reads their names in a second process: :mod:`authormask.text.ahead`);
        by default None: nothing is read ahead. What is read ahead must change nothing the
        mechanism releases, only when it is ready.

        Parameters
        ----------
        many
            Whether the release has more than one document (one document gains from reading
            elsewhere only where that is ready already).

        Returns
        -------
        contextlib.AbstractContextManager[Callable[[list[str]], None] | None]
            The block, yielding the function or None.
        """
        return contextlib.nullcontext(None)

    def make_ready(self, work: int) -> None:
        """Load now what perturbing about ``work`` units of work needs (a search's compiled
        kernels), so that the release's first batch does not wait for it; by default nothing.
        A release calls it from a second thread while it does other work (the entity step,
        while the recogniser reads a long document), so it must be thread-safe and change
        nothing the mechanism draws or releases, only when it is ready.

        Parameters
        ----------
        work
            About how many units of work the release will perturb.
        """

    def perturb(
        self,
        documents: Sequence[Any],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Release each prepared unit with its document's generator.

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
        NotImplementedError
            Every mechanism implements it.
        """
        raise NotImplementedError

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The public privacy statement, a function of the parameters only.

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
        NotImplementedError
            Every mechanism implements it.
        """
        raise NotImplementedError

    def diagnostics(self, document: Any) -> dict[str, Any]:
        """Private per-document counts of a prepared unit, for the run report.

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        dict[str, Any]
            The counts, by name.

        Raises
        ------
        NotImplementedError
            Every mechanism implements it.
        """
        raise NotImplementedError

    def units(self, document: Any) -> int:
        """Units of work of a prepared document (words snapped or tokens drawn), for progress.

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        int
            The units of work.

        Raises
        ------
        NotImplementedError
            Every mechanism implements it.
        """
        raise NotImplementedError

    #: how its text is written from its released words, beyond putting each where it stood
    #: (:meth:`rendering`): "draws" (the rendering draws from the document's generator after
    #: the noise, so the noise-off text depends on the seed; its words do not), "own-forms"
    #: (released words are written in forms of their own: a noun's number, a verb's tense),
    #: "lemmas" (released words are lemmas, not necessarily words of the input)
    RENDERING: frozenset[str] = frozenset()

    def rendering(self) -> frozenset[str]:
        """How its text is written from its released words (:attr:`RENDERING`): what the
        contract battery (:mod:`authormask.testing`) allows its noise-off text.

        Returns
        -------
        frozenset[str]
            Among "draws", "own-forms" and "lemmas".
        """
        return self.RENDERING

    def released_words(self, document: Any) -> tuple[str, ...]:
        """The words a prepared document gives the mechanism's samplers, in reading order: what
        its noise-off form releases (a bag's N words, each content word in place, a canonical
        skeleton's words). The contract battery (:mod:`authormask.testing`) checks the
        noise-off release against it.

        Parameters
        ----------
        document
            A prepared unit (:meth:`prepare`).

        Returns
        -------
        tuple[str, ...]
            Its words.

        Raises
        ------
        NotImplementedError
            A mechanism with a noise-off form implements it.
        """
        raise NotImplementedError(
            f"{type(self).__name__} does not say what a prepared unit releases "
            "(Mechanism.released_words)"
        )

    @property
    def needs_all_documents(self) -> bool:
        """Whether a parameter is resolved from every document (:meth:`with_length_from`)."""
        return False

    def with_length_from(self, documents: Iterable[Any]) -> Mechanism:
        """The mechanism with a whole-release parameter resolved from every document's units
        (only called when :attr:`needs_all_documents`).

        Parameters
        ----------
        documents
            Every document's prepared units.

        Returns
        -------
        Mechanism
            The resolved mechanism (by default itself).
        """
        return self

    def resolved_parameters(self) -> dict[str, Any]:
        """The registry parameters :meth:`with_length_from` fixed (``{"length": N}``), so that
        another process builds the mechanism as resolved; by default none.

        Returns
        -------
        dict[str, Any]
            The parameters fixed, by name.
        """
        return {}

    def unchanged_probabilities(self, text: str, *, segments: int = 4) -> list[float] | None:
        """The exact probability that each token of the first ``segments`` segments of
        ``text`` is released as itself, for a mechanism that can compute its output
        distribution (the token mechanisms); by default None: its change rate is measured by
        releasing a probe instead (:func:`authormask.evaluation.calibration.expected_change`).

        Parameters
        ----------
        text
            The text.
        segments
            The number of segments looked at.

        Returns
        -------
        list[float] | None
            One probability per token, or None.
        """
        return None

    def content_kinds(self, text: str) -> tuple[str, ...] | None:
        """The kind of each position ``text`` read alone gives the mechanism's noise, in
        order (what its guarantee counts: emp-write's K nouns, emp-text's content words), by
        its own public rule; by default None: the mechanism does not say.

        Parameters
        ----------
        text
            A word or a few words (an entity's).

        Returns
        -------
        tuple[str, ...] | None
            One kind per position, or None.
        """
        return None

    def without_noise(self) -> Mechanism:
        """A copy of this mechanism with each of its samplers (its per-word kernels, as its
        registry spec's ``samplers`` names them) replaced by an :class:`IdentityKernel`:
        everything else (preparation, rendering, N) is its own. :class:`NoiseOff` wraps it
        with its statement. By default a mechanism has no noise-off form.

        Raises ``InvalidParameterError``.

        Returns
        -------
        Mechanism
            The copy, for a mechanism that has a noise-off form.

        Raises
        ------
        InvalidParameterError
            By default: the mechanism has no noise-off form.
        """
        raise InvalidParameterError(f"{self.name} has no noise-off form without its sampler")


# --- the noise switched off ---------------------------------------------------------------------


class IdentityKernel:
    """A per-word sampler with its noise switched off: every word is released as itself, with no
    draw and no search. It stands in for a word-level mechanism's kernel in its noise-off form
    (:class:`NoiseOff`), whichever way the mechanism calls its kernel: ``perturb_documents``
    (emp-text, emp-bag and the peers), ``perturb_indices``, or ``noisy_vectors`` followed by
    ``snap`` (emp-doc) or ``snap_sequences`` (emp-write), where the "noisy vector" of a row is
    the row itself, one column that ``snap`` reads back. No generator is read."""

    def __init__(self, embeddings: Any) -> None:
        self.embeddings = embeddings

    def make_ready(self, work: int) -> None:
        """Nothing to load: no search."""

    def perturb_documents(
        self,
        documents: Sequence[Sequence[str]],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        out = [tuple(doc) for doc, _ in zip(documents, rngs, strict=True)]
        if progress is not None:
            progress(sum(len(doc) for doc in out))
        return out

    def perturb_indices(
        self,
        rows: Sequence[int] | np.ndarray,
        *,
        random_state: Any = None,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        out = np.asarray(rows, dtype=np.intp).copy()
        if progress is not None:
            progress(int(out.size))
        return out

    def noisy_vectors(self, rows: Sequence[int] | np.ndarray, *, random_state: Any = None) -> Any:
        return np.asarray(rows, dtype=np.intp).reshape(-1, 1)

    def snap(self, noisy: np.ndarray, *, progress: Callable[[int], None] | None = None) -> Any:
        out = np.asarray(noisy, dtype=np.intp).reshape(-1)
        if progress is not None:
            progress(int(out.size))
        return out

    def snap_sequences(
        self, noisy: list[np.ndarray], *, progress: Callable[[int], None] | None = None
    ) -> list[np.ndarray]:
        """Each document's rows, as ``snap`` reads them (``emp-write``)."""
        return [self.snap(z, progress=progress) for z in noisy]


class NoiseOff(Mechanism):
    """A word-level mechanism with its noise switched off: its own deterministic preparation
    (tokenising, stopwords, unknown words mapped, contractions split, the canonical skeleton, N
    words kept) and rendering, released by its :meth:`~Mechanism.without_noise` form (its
    samplers, declared in its registry spec, replaced by :class:`IdentityKernel`), so every
    unit is released as itself without drawing noise. It gives the text the mechanism gives in
    the limit epsilon -> infinity, without the cost of the sampler (an exponential mechanism
    over the vocabulary scores every word of it for every input word).

    Built by :func:`authormask.core.create_noise_off`, for evaluation (the baseline row of a
    sweep). It is NOT private and has no epsilon (:attr:`epsilon` is None): its statement says
    so (no epsilon, no guarantee). It offers the abilities of :class:`Mechanism`, each handed
    to the mechanism (``inner``, its noise-off form) explicitly; nothing else of it.
    """

    #: there is no noise, so no epsilon: the statement says none
    epsilon: None = None

    def __init__(self, mechanism: Mechanism) -> None:
        self.inner: Any = mechanism.without_noise()
        self.name: str = mechanism.name
        #: the mechanism with its noise: its statement is the one this form's derives from
        self.noisy = mechanism

    @property
    def embeddings(self) -> Any:
        """The public embeddings of the mechanism (its statement names them), or None."""
        return getattr(self.inner, "embeddings", None)

    def prepare(self, text: str) -> Any:
        return self.inner.prepare(text)

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[Any]:
        yield from self.inner.prepare_parts(parts)

    @property
    def needs_all_documents(self) -> bool:
        return bool(self.inner.needs_all_documents)

    def perturb(
        self,
        documents: Sequence[Any],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        out: list[Output] = self.inner.perturb(documents, rngs, progress=progress)
        return out

    def diagnostics(self, document: Any) -> dict[str, Any]:
        out: dict[str, Any] = self.inner.diagnostics(document)
        return out

    def units(self, document: Any) -> int:
        return int(self.inner.units(document))

    def released_words(self, document: Any) -> tuple[str, ...]:
        return tuple(self.inner.released_words(document))

    def rendering(self) -> frozenset[str]:
        return frozenset(self.inner.rendering())

    def content_kinds(self, text: str) -> tuple[str, ...] | None:
        kinds: tuple[str, ...] | None = self.inner.content_kinds(text)
        return kinds

    def resolved_parameters(self) -> dict[str, Any]:
        out: dict[str, Any] = self.inner.resolved_parameters()
        return out

    def with_length_from(self, documents: Iterable[Any]) -> NoiseOff:
        """N resolved from the documents (``emp-bag`` with N ``"shortest"``), noise still off."""
        documents = list(documents)
        resolved = copy.copy(self)
        resolved.inner = self.inner.with_length_from(documents)
        resolved.noisy = self.noisy.with_length_from(documents)  # the statement states N
        return resolved

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The mechanism's own statement (:attr:`noisy`: its title, reference, embeddings,
        model and policies), with what the noise gave replaced by what its absence gives: no
        epsilon, no guarantee, no bound; so any mechanism that states one has a noise-off
        statement, whatever else it holds (issue 48).

        Parameters
        ----------
        seeded
            Whether the release is seeded.

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        base = self.noisy.statement(seeded=seeded)
        return dataclasses.replace(
            base,
            mechanism=self.name,
            title=f"{base.title}; here with its noise switched off",
            epsilon=None,
            epsilon_unit="none: the noise is switched off (NO differential-privacy guarantee)",
            guarantee=(
                "NONE. The noise is switched off: every unit's words are released as the "
                "mechanism's deterministic preparation gives them (the limit epsilon -> "
                "infinity; what a mechanism draws besides its noise, such as emp-write's "
                "public writer or a word in place of an unknown one, is still drawn), for "
                "comparison only"
            ),
            document_bound="none (no differential-privacy guarantee)",
            released_unchanged="everything the mechanism's preparation keeps; every word of it",
            parameters={"noise": "off"},
            floating_point="not applicable: no noise is drawn",
            per_output=None,
            caveats=("the noise is off: use it to judge mechanisms, never to protect a text",),
        )
