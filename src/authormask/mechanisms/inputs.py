"""What a mechanism is given: entities (names, numbers, links) replaced before it runs.

:class:`EntityInputs` wraps any text mechanism (the registry wraps every mechanism that reads
the text, :mod:`authormask.core.factories`). With ``entities``:

* ``"surrogate"`` (the default): its preparation finds the document's entities
  (:class:`~authormask.text.entities.Recogniser`: input only, deterministic); its release splits
  the document's generator into two independent children (``Generator.spawn``), draws the
  surrogates with the first (:class:`~authormask.text.entities.Surrogates`) and prepares and
  perturbs the text with the surrogates in it with the second. The surrogates come from the
  release's secret randomness and public lists, never from the text: a seeded release is
  byte-identical when it is run again or resumed, and the same entity in two documents gets
  independent surrogates;
* ``"mask"``: every entity becomes its type (``[PERSON]``) in the preparation; no draw;
* ``"keep"``: the text is given to the mechanism as it is (no recogniser, the document's
  generator passed on untouched, so the release is the mechanism's own); the statement says
  that entities are not protected beyond the mechanism's noise.

Under ``surrogate`` and ``mask`` a document is one unit of the wrapper: the mechanism's own units
(a part, a canonical unit of a few thousand words) are prepared from the text with the
surrogates in it when the document is released, so the whole document's text is held until
then (a document of 64 KiB of characters or more is cut into parts for the recogniser, and a
name found in one part is taken elsewhere in that part only). The units, counts and whole-release
parameters (``emp-bag``'s N ``"shortest"``) known before the release are those of the masked
text; a surrogate text the mechanism refuses (fewer than N content words: a surrogate outside
the vocabulary dropped) is released as the masked text instead.

Guarantee: the surrogates are drawn independently of the input, so replacing is a randomised
map applied before the mechanism; the mechanism's statement holds for the text it is given,
and the statement's ``entities`` policy says what of the entities remains.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from authormask.accounting.statement import PrivacyStatement
from authormask.exceptions import InputError
from authormask.mechanisms._base import Mechanism, Output
from authormask.text.clean import clean_text
from authormask.text.entities import (
    MASKS,
    PIPELINE,
    Entity,
    PublicLists,
    Recogniser,
    Surrogates,
    check_entities_mode,
    mask_entities,
    public_lists,
)

__all__ = ["EntityDocument", "EntityInputs", "entities_policy"]


@dataclass(frozen=True)
class EntityDocument:
    """A document as :class:`EntityInputs` prepares it: its parts, the entities of each, and
    the mechanism's units of the masked text (for counts, progress and whole-release
    parameters before the release; the release itself under ``mask``).

    Attributes
    ----------
    parts
        The document's parts, cleaned.
    entities
        The entities of each part.
    masked
        The mechanism's units of the masked text.
    """

    parts: tuple[str, ...]
    entities: tuple[tuple[Entity, ...], ...]
    masked: tuple[Any, ...]

    @property
    def found(self) -> int:
        return sum(len(e) for e in self.entities)


def entities_policy(mode: str, lists: PublicLists | None = None) -> str:
    """The statement's ``entities`` policy for ``mode`` (what is done, and what remains).

    Parameters
    ----------
    mode
        ``"surrogate"``, ``"keep"`` or ``"mask"``.
    lists
        The public lists surrogates are drawn from (named in the policy), or None.

    Returns
    -------
    str
        The policy.
    """
    found = (
        f"people, places and organisations (the named-entity recogniser of spaCy {PIPELINE}: "
        "PERSON; GPE, LOC, FAC; ORG; each name found also wherever the same text stands "
        "elsewhere in the document, and each word of a person's name) and e-mail addresses, "
        "URLs, handles (@name, u/name, r/name), hashtags (#tag), codes (letters mixed with "
        "digits: postcodes, IBANs, passport and order numbers, identifiers), phone numbers, "
        "dates and numbers (patterns)"
    )
    misses = (
        "what the recogniser misses (names in lower case, unusual names and nicknames, numbers "
        "written in words, codes of fewer than four letters and digits such as B12, an address "
        "written 'jane at example.com') reaches the mechanism unchanged and is protected by its "
        "noise only"
    )
    if mode == "keep":
        return (
            "keep: names, places, organisations, numbers, dates, e-mail addresses, URLs, "
            "handles, hashtags, codes and phone numbers are given to the mechanism like any "
            "other word and are protected by its noise only (a name it releases unchanged names "
            "its bearer); give entities 'surrogate' to replace them first"
        )
    if mode == "mask":
        labels = ", ".join(dict.fromkeys(MASKS.values()))
        return (
            f"mask: before the mechanism, {found} are replaced by their type ({labels}), "
            "which the mechanism then treats as words. What remains: that an entity stood "
            f"there and its type; {misses}"
        )
    lists = lists or public_lists()
    return (
        f"surrogate: before the mechanism, {found} are replaced by surrogates drawn from the "
        "release's secret randomness and public lists, independently of the input: a person "
        "word by word by random given names and surnames, a place by a random place, an "
        "organisation by a random name or pattern filled with a random surname or place (lists: "
        f"{lists.identity}); a number, date or phone number by random digits of the same form; "
        "a code by random letters (of the same case) and digits of the same form; an e-mail "
        "address or URL by a random one at a reserved example domain; a handle or hashtag by a "
        "random given name (a subreddit by a random place) with random digits. Consistent "
        "within a document: the same entity text (and each word of a person's name) gets the "
        "same surrogate throughout one document, drawn afresh for every document, so the same "
        "entity in two documents gets independent surrogates. A surrogate has as many words "
        "as its entity, laid out with the same whitespace. What remains: "
        "that an entity stood there and its type, its number of words, the form of numbers, "
        "dates, codes and phone numbers (length and separators), and which occurrences within a "
        f"document are the same entity; {misses}"
    )


def _children(rng: np.random.Generator) -> tuple[np.random.Generator, np.random.Generator]:
    """Two independent children of a document's generator: the surrogates' and the
    mechanism's (``Generator.spawn``; from 256 bits drawn from it where its bit generator has
    no seed sequence)."""
    try:
        a, b = rng.spawn(2)
    except TypeError:  # pragma: no cover - a bit generator made without a SeedSequence
        seq = np.random.SeedSequence([int(x) for x in rng.integers(0, 2**32, size=8)])
        a, b = (np.random.Generator(np.random.PCG64(s)) for s in seq.spawn(2))
    return a, b


class EntityInputs(Mechanism):
    """``mechanism`` given texts with their entities replaced (module docstring).

    Parameters
    ----------
    mechanism : Mechanism
        Any text mechanism (built by the registry, or by hand).
    entities
        ``"surrogate"``, ``"keep"`` or ``"mask"``: what is done with names, numbers and links
        before the mechanism runs.
    recogniser
        Finds the entities (default: the packaged pipeline's, loaded at its first use).
    lists
        The public lists surrogates are drawn from (default: the packaged ones).
    """

    def __init__(
        self,
        mechanism: Mechanism,
        *,
        entities: str = "surrogate",
        recogniser: Recogniser | None = None,
        lists: PublicLists | None = None,
    ) -> None:
        self.inner = mechanism
        self.entities = check_entities_mode(entities)
        self.name: str = mechanism.name
        self._recogniser = recogniser
        self.lists = lists or public_lists()

    @property
    def embeddings(self) -> Any:
        """The public embeddings of the mechanism it hands the words to."""
        return self.inner.embeddings

    @property
    def recogniser(self) -> Recogniser:
        if self._recogniser is None:
            from authormask.text.entities import load_recogniser

            self._recogniser = load_recogniser()
        return self._recogniser

    # --- preparation (input only, deterministic) ---------------------------------------------

    def prepare(self, text: str) -> Any:
        """``keep``: the mechanism's own preparation; otherwise the document's
        :class:`EntityDocument`.

        Parameters
        ----------
        text
            The document.

        Returns
        -------
        Any
            Its prepared unit.
        """
        if self.entities == "keep":
            return self.inner.prepare(text)
        return next(iter(self.prepare_parts([text])))

    def prepare_parts(self, parts: Iterable[str]) -> Iterator[Any]:
        """``keep``: the mechanism's own units. Otherwise one :class:`EntityDocument` per
        document (the entities of every part found in batches, the masked text prepared by the
        mechanism, which refuses what it would refuse).

        Parameters
        ----------
        parts
            The document, part by part.

        Yields
        ------
        Any
            The document's units.
        """
        if self.entities == "keep":
            yield from self.inner.prepare_parts(parts)
            return
        # cleaned first (as the mechanism cleans it): a zero-width space or a bidi override
        # inside a name must not hide it from the recogniser
        texts = tuple(clean_text(p) for p in parts)
        found = tuple(self.recogniser.find_all(texts))
        masked = tuple(
            self.inner.prepare_parts(mask_entities(t, e) for t, e in zip(texts, found, strict=True))
        )
        yield EntityDocument(texts, found, masked)

    def diagnostics(self, document: Any) -> dict[str, Any]:
        """The mechanism's counts (summed over the masked units) and the entities replaced.

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        dict[str, Any]
            Its private counts, by name.
        """
        if self.entities == "keep":
            return dict(self.inner.diagnostics(document))
        out: dict[str, Any] = {}
        for unit in document.masked:
            for key, value in self.inner.diagnostics(unit).items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    out[key] = out.get(key, 0) + value
                else:
                    out[key] = value
        out["entities_replaced"] = document.found
        return out

    def units(self, document: Any) -> int:
        """The mechanism's units of work of the document.

        Parameters
        ----------
        document
            A prepared unit.

        Returns
        -------
        int
            Its units of work.
        """
        if self.entities == "keep":
            return int(self.inner.units(document))
        return sum(int(self.inner.units(u)) for u in document.masked)

    # --- whole-release parameters ---------------------------------------------------------------

    @property
    def needs_all_documents(self) -> bool:
        return bool(self.inner.needs_all_documents)

    def with_length_from(self, documents: Iterable[Any]) -> EntityInputs:
        """The mechanism's whole-release parameter resolved from the masked units.

        Parameters
        ----------
        documents
            Every document's prepared unit.

        Returns
        -------
        EntityInputs
            The mechanism, resolved.
        """
        units = documents if self.entities == "keep" else (u for d in documents for u in d.masked)
        resolved = copy.copy(self)
        resolved.inner = self.inner.with_length_from(units)
        return resolved

    def resolved_parameters(self) -> dict[str, Any]:
        """The mechanism's resolved parameters.

        Returns
        -------
        dict[str, Any]
            The parameters fixed, by name.
        """
        return dict(self.inner.resolved_parameters())

    def unchanged_probabilities(self, text: str, *, segments: int = 4) -> list[float] | None:
        """The mechanism's, for the words it is given.

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
        return self.inner.unchanged_probabilities(text, segments=segments)

    # --- release -------------------------------------------------------------------------------

    def perturb(
        self,
        documents: Sequence[Any],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        """Each document released by the mechanism, its entities replaced as ``entities`` says.

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
        if self.entities == "keep":
            return list(self.inner.perturb(documents, rngs, progress=progress))
        out: list[Output] = []
        for document, rng in zip(documents, rngs, strict=True):
            units, inner_rng = self._units(document, rng)
            outputs = self.inner.perturb(units, [inner_rng] * len(units), progress=progress)
            out.append(_joined(outputs))
        return out

    def _units(self, document: EntityDocument, rng: np.random.Generator) -> tuple[list[Any], Any]:
        """The mechanism's units of the document with its entities replaced, and the generator
        the mechanism draws from."""
        if self.entities == "mask" or document.found == 0:
            return list(document.masked), rng
        mine, theirs = _children(rng)
        surrogates = Surrogates(mine, self.lists)
        texts = [
            surrogates.text(t, e) for t, e in zip(document.parts, document.entities, strict=True)
        ]
        try:
            return list(self.inner.prepare_parts(iter(texts))), theirs
        except InputError:  # a surrogate outside the vocabulary dropped (module docstring)
            return list(document.masked), theirs

    def stepped_text(self, parts: str | Iterable[str], rng: np.random.Generator) -> str:
        """The text the mechanism is given when the document ``parts`` is released with the
        document generator ``rng``: the entity step alone, with the same surrogates the
        release draws (what the mechanism keeps, to measure a release against).

        Under ``surrogate`` the generator's first child draws the surrogates exactly as
        :meth:`perturb` draws them, so ``rng`` must be in the state the release's document
        generator is in before the release draws from it: a fresh
        :func:`~authormask.randomness.document_generator` of the same root, position and
        content (spawning children advances a generator's seed sequence, so a generator a
        release has used gives other surrogates). Under ``mask`` the text with every entity
        replaced by its type; under ``keep`` the text as it is. A document the mechanism
        refuses with its surrogates in it (a surrogate outside the vocabulary dropped below N
        content words) is released as the masked text, and that is what is returned.

        Parameters
        ----------
        parts
            The document (one string), or its parts in order as the release reads them.
        rng
            The document's generator, fresh (see above); unused under ``keep`` and ``mask``.

        Returns
        -------
        str
            The document as the mechanism is given it (cleaned, under ``surrogate`` and
            ``mask``, as the release cleans it).
        """
        texts = [parts] if isinstance(parts, str) else list(parts)
        if self.entities == "keep":
            return "".join(texts)
        document = next(iter(self.prepare_parts(texts)))
        masked = "".join(
            mask_entities(t, e) for t, e in zip(document.parts, document.entities, strict=True)
        )
        if self.entities == "mask" or document.found == 0:
            return masked
        mine, _ = _children(rng)
        surrogates = Surrogates(mine, self.lists)
        stepped = [
            surrogates.text(t, e) for t, e in zip(document.parts, document.entities, strict=True)
        ]
        try:
            list(self.inner.prepare_parts(iter(stepped)))
        except InputError:  # released as the masked text (module docstring)
            return masked
        return "".join(stepped)

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The mechanism's statement with the ``entities`` policy added.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        statement = self.inner.statement(seeded=seeded)
        policy = entities_policy(self.entities, self.lists)
        return dataclasses.replace(statement, policies={**statement.policies, "entities": policy})


def _joined(outputs: Sequence[Output]) -> Output:
    """One document's outputs, unit after unit, as one (the release stream joins them so)."""
    if len(outputs) == 1:
        return outputs[0]
    bags = [o.bag for o in outputs if o.bag is not None]
    bag: dict[str, int] | None = None
    if bags:
        bag = {}
        for b in bags:
            for word, count in b.items():
                bag[word] = bag.get(word, 0) + count
        bag = dict(sorted(bag.items()))
    return Output(
        text="".join(o.text for o in outputs),
        words=tuple(w for o in outputs for w in o.words),
        bag=bag,
        figures=dict(outputs[-1].figures) if outputs else {},
    )
