"""The local stream: documents read part by part, released in batches, handed on as they come.

Memory does not grow with the input: a document is prepared part by part
(:mod:`authormask.core.sources`), the prepared units wait in a batch of bounded size, and each
released piece is handed to the caller at once. A mechanism's ``prepare_parts(parts)`` gives
the units of a document:

* ``emp-text`` gives one unit per part (text mode perturbs word by word);
* ``emp-bag`` gives one unit per document, keeping only its N-word bag and counters;
* by default (ER-AE, SynTF, Random-R) the whole document, joined, through ``prepare``: it is
  released document by document.

Every unit of document i draws from document i's generator in reading order
(:func:`~authormask.randomness.document_generator`), so neither the batching nor the way the text
arrives changes a seeded release. In a seeded release that generator is keyed by the digest of
the document's words too (a first pass reads the text; standard input is held in memory for it),
so one seed used for two different texts gives each its own noise.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from authormask.core.sources import Source, TextSource, words_digest
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism
from authormask.randomness import (
    RandomState,
    describe_seed,
    document_generator,
    mechanism_root,
)

__all__ = [
    "BATCH_UNITS",
    "BATCH_WORK",
    "EMPTY_RELEASE",
    "Done",
    "Piece",
    "ReleaseStream",
    "release_stream",
    "resolve_length",
    "run",
    "units_of",
]

#: the warning of a document released as an empty text (after its name, in the private report)
EMPTY_RELEASE = (
    "released as an empty text: nothing in it is what the mechanism releases (only marks, "
    "emoji or symbols, words without a vector, or no noun for a noun mechanism)"
)
#: prepared units perturbed together at most (one batched search / model pass per batch)
BATCH_UNITS = 64
#: and at most this much work (words or tokens) per batch: a batch's search and decoding hold
#: about a kilobyte a unit of work, so a text of a few thousand content words already fills
#: one, and a text ten times longer peaks where it does (16,384 held 16 MB more at the peak
#: of a 1M-character text than of its first tenth, which filled no batch: issue 50)
BATCH_WORK = 4_096
#: documents handed to the mechanism ahead of the one being read (:class:`_ReadAhead`): more
#: than a batch, so their preparation elsewhere (the entity step's recogniser in a second
#: process) runs while this process perturbs the batch before
AHEAD_DOCUMENTS = 2 * BATCH_UNITS
#: and at most this many characters of them (held in memory until read)
AHEAD_CHARS = 1 << 21
#: a document larger than this (bytes) is not read ahead: it is handed on in batches of its
#: parts when its turn comes, so it is never held twice
AHEAD_DOCUMENT_BYTES = 1 << 18


@dataclass(frozen=True)
class Piece:
    """The next piece of the released text of the document at ``position``.

    Attributes
    ----------
    position
        The document's position in the release.
    text
        The next piece of its released text.
    """

    position: int
    text: str


@dataclass(frozen=True)
class Done:
    """The document at ``position`` is released: its public figures and private diagnostics.

    Attributes
    ----------
    position
        The document's position in the release.
    bag
        The released bag of words, for the mechanisms that release one.
    figures
        Public per-output figures.
    words
        The released words (when collected), or None.
    diagnostics
        Private diagnostics (counts of words snapped, kept, ...).
    warnings
        The document's warnings.
    """

    position: int
    bag: dict[str, int] | None
    figures: dict[str, float]
    words: tuple[str, ...] | None
    diagnostics: dict[str, Any]
    warnings: tuple[str, ...] = ()


class _Located(InputError):
    """An error that already names its document."""


def _located_parts(source: Source, progress: Callable[[int], None] | None) -> Iterator[str]:
    """The parts of ``source``, counted for progress in the unit of its ``size`` (the total of
    the progress bar): what is read counts up to the size, and a document read to its end
    counts its whole size, so the bar ends at 100% whatever the ratio of characters to bytes
    (which would otherwise show, beside the statement, how much of the input was multi-byte
    or invisible)."""
    counted = 0
    try:
        for part in source.parts():
            if progress is not None:
                step = len(part) if not source.size else min(len(part), source.size - counted)
                counted += step
                if step:
                    progress(step)
            yield part
        if progress is not None and source.size > counted:
            progress(source.size - counted)
    except _Located:
        raise
    except InputError as exc:
        raise _Located(str(exc)) from None


def units_of(mechanism: Mechanism, parts: Iterator[str]) -> Iterator[Any]:
    """The prepared units of one document (see the module docstring).

    Parameters
    ----------
    mechanism
        The mechanism that prepares them.
    parts
        The document's text, part by part.

    Yields
    ------
    Any
        The units, in order.
    """
    yield from mechanism.prepare_parts(parts)


def _add(total: dict[str, Any], diag: dict[str, Any]) -> None:
    for key, value in diag.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key in total:
            total[key] += value
        else:
            total[key] = value


@dataclass
class _Doc:
    position: int
    source: Source
    rng: np.random.Generator
    diagnostics: dict[str, Any] = field(default_factory=dict)
    held: list[str] = field(default_factory=list)
    showing: bool = False
    words: list[str] | None = None
    bag: dict[str, int] | None = None
    figures: dict[str, float] = field(default_factory=dict)
    #: characters of released text so far that are not whitespace
    written: int = 0
    #: characters read so far (for progress), and those counted for progress: a unit's are
    #: counted as it is perturbed, not as it is read (a long document is read at once, for its
    #: names, and then perturbed for seconds: a bar counting reads stood still meanwhile)
    read: int = 0
    counted: int = 0


def resolve_length(
    mechanism: Mechanism, sources: Iterable[Source], *, progress: Callable[[int], None] | None
) -> Mechanism:
    """A mechanism whose parameter depends on every document (``emp-bag`` with
    ``length="shortest"``) resolved by a first pass over ``sources``.

    Parameters
    ----------
    mechanism
        The mechanism.
    sources
        The documents, read once more by the first pass.
    progress
        Unused by the first pass (None).

    Returns
    -------
    Mechanism
        ``mechanism`` itself, or resolved (its recipe too).
    """
    if not mechanism.needs_all_documents:
        return mechanism

    def units() -> Iterator[Any]:
        for source in sources:
            try:
                yield from units_of(mechanism, _located_parts(source, progress))
            except _Located:
                raise
            except InputError as exc:
                raise _Located(f"{source.name}: {exc}") from None

    resolved = mechanism.with_length_from(units())
    recipe = mechanism.recipe
    fixed = resolved.resolved_parameters()
    if recipe is not None and fixed:  # a worker builds it as resolved
        resolved.recipe = dataclasses.replace(recipe, params={**recipe.params, **fixed})
    return resolved


def run(
    sources: Sequence[Source],
    mechanism: Mechanism,
    *,
    root: np.random.SeedSequence,
    skip: frozenset[int] = frozenset(),
    collect_words: bool = False,
    progress: Callable[[int], None] | None = None,
    start: int = 0,
    work_progress: Callable[[int], None] | None = None,
    keyed: bool = True,
) -> Iterator[Piece | Done]:
    """Release ``sources`` in order (except the positions in ``skip``), yielding each document's
    pieces of text and then its :class:`Done`.

    The documents are at positions ``start``, ``start + 1``, ... of the release (a partition of
    a larger one starts further on): document i draws from the generator of its position.

    A document's pieces are held back until it has a unit with work in it (a content word, a
    token), so a document that is refused (no content words) never shows any of its text.
    ``progress`` is called with the characters released: those of the units perturbed, as the
    mechanism does its work (their share of it), and at each document's end the rest of the
    document; ``work_progress`` with the units of work done as the mechanism does them (words
    snapped, tokens drawn). Errors name the document.

    Parameters
    ----------
    sources
        The documents.
    mechanism
        The mechanism to release with.
    root
        The release's secret root.
    skip
        The positions not to read (a resumed release).
    collect_words
        Whether :class:`Done` carries the released words.
    progress
        Called with the characters released.
    start
        The release position of the first source.
    work_progress
        Called with the units of work done.
    keyed
        Whether each document's generator is keyed by the digest of its words too (a seeded
        release: one seed, two different texts, independent noise), read in a first pass.

    Yields
    ------
    Piece | Done
        Each document's pieces, then its :class:`Done`.

    Raises
    ------
    InputError
        If a document cannot be read or released (naming it).
    """
    batch = _Batch(
        mechanism, collect_words=collect_words, work_progress=work_progress, progress=progress
    )
    with contextlib.ExitStack() as stack:
        ahead: _ReadAhead | None = None
        expect = stack.enter_context(mechanism.reading_ahead(many=len(sources) - len(skip) > 1))
        if expect is not None:
            ahead = _ReadAhead(sources, start, skip, expect)
        first = True
        for position, source in enumerate(sources, start=start):
            if position in skip:
                continue
            if ahead is not None and not first:
                # the first document is read before any is handed ahead: it would wait behind
                # them (the second process reads in order), and a long one's parts are shared
                # between the processes in its turn (Recogniser.find_document)
                ahead.fill(position)
            first = False
            doc = _open(source, position, root, keyed=keyed, collect_words=collect_words)
            yield from _read(doc, mechanism, batch, counting=progress is not None)
            yield from batch.end(doc)
        yield from batch.flush()


class _ReadAhead:
    """The documents after the one being read, handed to the mechanism ahead
    (:meth:`~authormask.mechanisms._base.Mechanism.reading_ahead`): at most
    :data:`AHEAD_DOCUMENTS` of them and :data:`AHEAD_CHARS` characters beyond it. Only a source
    that can be read again and holds at most :data:`AHEAD_DOCUMENT_BYTES` is read ahead
    (standard input is read once, when its turn comes); one that fails to read is left to fail
    in its turn."""

    def __init__(
        self,
        sources: Sequence[Source],
        start: int,
        skip: frozenset[int],
        expect: Callable[[list[str]], None],
    ) -> None:
        self.sources, self.start, self.skip, self.expect = sources, start, skip, expect
        self.next = start  # the next position to hand ahead
        self.handed: list[tuple[int, int]] = []  # (position, characters) handed, not yet read
        self.chars = 0  # the characters of ``handed``

    def fill(self, position: int) -> None:
        while self.handed and self.handed[0][0] <= position:
            self.chars -= self.handed.pop(0)[1]
        self.next = max(self.next, position)
        end = self.start + len(self.sources)
        while self.next < min(end, position + AHEAD_DOCUMENTS + 1):
            if self.handed and self.chars >= AHEAD_CHARS:
                return
            at, self.next = self.next, self.next + 1
            source = self.sources[at - self.start]
            if at in self.skip or not source.rereadable or source.size > AHEAD_DOCUMENT_BYTES:
                continue
            try:
                parts = list(source.parts())
            except (InputError, OSError, ValueError):
                continue
            self.expect(parts)
            self.handed.append((at, sum(map(len, parts))))
            self.chars += self.handed[-1][1]


def _open(
    source: Source,
    position: int,
    root: np.random.SeedSequence,
    *,
    keyed: bool,
    collect_words: bool,
) -> _Doc:
    """The document at ``position`` as it is released: its source (held in memory where it can
    be read only once and its generator is keyed by its words) and its generator."""
    try:
        source, content = _keyed(source) if keyed else (source, None)
    except _Located as exc:
        raise InputError(str(exc)) from None
    doc = _Doc(position, source, document_generator(root, position, content))
    if collect_words:
        doc.words = []
    return doc


def _read(
    doc: _Doc, mechanism: Mechanism, batch: _Batch, *, counting: bool
) -> Iterator[Piece | Done]:
    """Read ``doc`` unit by unit into ``batch``, releasing each batch as it fills (with
    ``counting``, the characters read are kept in ``doc.read``, for progress); an error (of the
    document's reading or of a batch's release) names the document."""

    def read(n: int) -> None:
        doc.read += n

    try:
        for unit in units_of(mechanism, _located_parts(doc.source, read if counting else None)):
            yield from batch.add(doc, unit)
    except _Located as exc:
        raise InputError(str(exc)) from None
    except InputError as exc:
        raise InputError(f"{doc.source.name}: {exc}") from None


class _Batch:
    """The prepared units waiting to be perturbed together (at most :data:`BATCH_UNITS` of
    them and :data:`BATCH_WORK` work), each with its document; ``None`` is a document's end."""

    def __init__(
        self,
        mechanism: Mechanism,
        *,
        collect_words: bool,
        work_progress: Callable[[int], None] | None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.mechanism = mechanism
        self.collect_words = collect_words
        self.work_progress = work_progress
        self.progress = progress
        self.queue: list[tuple[_Doc, Any] | tuple[_Doc, None]] = []
        #: the characters of each queued unit's document read when it was queued
        self.read: list[int] = []
        self.work = 0

    def add(self, doc: _Doc, unit: Any) -> Iterator[Piece | Done]:
        """Queue ``unit`` of ``doc`` (its diagnostics added), and release the batch if full."""
        _add(doc.diagnostics, dict(self.mechanism.diagnostics(unit)))
        self.queue.append((doc, unit))
        self.read.append(doc.read)
        self.work += max(self.mechanism.units(unit), 1)
        if len(self.queue) >= BATCH_UNITS or self.work >= BATCH_WORK:
            yield from self.flush()

    def end(self, doc: _Doc) -> Iterator[Piece | Done]:
        """Queue the end of ``doc``, and release the batch if full."""
        self.queue.append((doc, None))
        self.read.append(doc.read)
        if len(self.queue) >= BATCH_UNITS:
            yield from self.flush()

    def flush(self) -> Iterator[Piece | Done]:
        """Perturb the queued units together and hand on each document's pieces (held back
        until it has a unit with work in it) and, at its end, its :class:`Done`."""
        mechanism, queue = self.mechanism, self.queue
        items = [(doc, unit) for doc, unit in queue if unit is not None]
        counted, finish = self._counted(items)
        outputs = (
            mechanism.perturb([u for _, u in items], [d.rng for d, _ in items], progress=counted)
            if items
            else []
        )
        it = iter(outputs)
        for doc, unit in queue:
            if unit is None:  # the document's end
                self._count(doc.read - doc.counted)
                doc.counted = doc.read
                if not doc.showing and doc.held:
                    yield Piece(doc.position, "".join(doc.held))
                yield _done(doc, mechanism)
                continue
            out = next(it)
            doc.written += len(out.text) - sum(map(str.isspace, out.text))
            if self.collect_words and doc.words is not None:
                doc.words.extend(out.words)
            doc.bag, doc.figures = out.bag, dict(out.figures)
            if doc.showing:
                if out.text:
                    yield Piece(doc.position, out.text)
            else:
                doc.held.append(out.text)
                if mechanism.units(unit) > 0:
                    doc.showing = True
                    yield Piece(doc.position, "".join(doc.held))
                    doc.held.clear()
        finish()
        queue.clear()
        self.read.clear()
        self.work = 0

    def _count(self, characters: int) -> None:
        if self.progress is not None and characters > 0:
            self.progress(characters)

    def _counted(
        self, items: list[tuple[_Doc, Any]]
    ) -> tuple[Callable[[int], None] | None, Callable[[], None]]:
        """The mechanism's ``progress`` for this batch, and what counts the rest when the batch
        is done: the units of work go on to ``work_progress``, and the characters of the
        queued units (read before each was queued, not counted yet) to ``progress``, in the
        share of the batch's work done."""
        characters = 0
        for (doc, unit), read in zip(self.queue, self.read, strict=True):
            if unit is not None and read > doc.counted:
                characters += read - doc.counted
                doc.counted = read
        total = max(self.work, 1)
        done = [0, 0]  # work, characters

        def counted(n: int) -> None:
            if self.work_progress is not None:
                self.work_progress(n)
            done[0] += n
            share = min(characters, characters * done[0] // total)
            if share > done[1]:
                self._count(share - done[1])
                done[1] = share

        def finish() -> None:
            self._count(characters - done[1])
            done[1] = characters

        if not items or (self.progress is None and self.work_progress is None):
            return None, finish
        return counted, finish


def _keyed(source: Source) -> tuple[Source, bytes]:
    """``source`` (held in memory if it can be read only once) and the digest of its words,
    which keys its generator (:func:`~authormask.randomness.document_generator`): a first pass
    over the text, before its first draw."""
    if source.rereadable:
        return source, words_digest(_located_parts(source, None))
    text = "".join(_located_parts(source, None))  # read once: held in memory for the release
    held = TextSource(source.name, source.relpath, source.size, text, source.identity)
    return held, words_digest([text])


def _done(doc: _Doc, mechanism: Mechanism) -> Done:
    warnings: list[str] = []
    if not doc.written and doc.bag is None:
        warnings.append(f"{doc.source.name}: {EMPTY_RELEASE}")
    overlap = doc.diagnostics.get("training_overlap_segments")
    if overlap:
        warnings.append(
            f"{doc.source.name}: {overlap} segment(s) occur verbatim in the model's training "
            "corpus; the guarantee does not hold for text the model was trained on"
        )
    return Done(
        position=doc.position,
        bag=doc.bag,
        figures=doc.figures,
        words=tuple(doc.words) if doc.words is not None else None,
        diagnostics=doc.diagnostics,
        warnings=tuple(warnings),
    )


class ReleaseStream:
    """A release in progress: the public ``statement`` (known before any document is read) and
    an iterator of :class:`~authormask.core.stream.Piece` and
    :class:`~authormask.core.stream.Done` events, in input order.

    Parameters
    ----------
    sources
        The documents.
    mechanism
        The mechanism to release with.
    random_state
        The secret seed: None (fresh OS entropy), an int, a numpy Generator or a SeedSequence.
    skip
        The positions not to read (a resumed release).
    collect_words
        Whether :class:`Done` carries the released words.
    progress
        Called with the characters released.
    start
        The release position of the first source.
    work_progress
        Called with the units of work done.
    root
        The secret root already drawn from ``random_state`` by the caller, or None.
    """

    def __init__(
        self,
        sources: Sequence[Source],
        mechanism: Mechanism,
        *,
        random_state: RandomState | np.random.SeedSequence = None,
        skip: frozenset[int] = frozenset(),
        collect_words: bool = False,
        progress: Callable[[int], None] | None = None,
        start: int = 0,
        work_progress: Callable[[int], None] | None = None,
        root: np.random.SeedSequence | None = None,
    ) -> None:
        if not sources:
            raise InvalidParameterError("no documents to release")
        self.seed = describe_seed(random_state)
        # ``root``: the secret root already drawn from ``random_state`` by the caller (which
        # also draws the documents' order from it); ``random_state`` still says if it is seeded
        self.mechanism = resolve_length(mechanism, sources, progress=None)
        self.statement = self.mechanism.statement(seeded=self.seed.seeded)
        # the secret seed *and* the public parameters: another epsilon is another draw
        self._root = root if root is not None else mechanism_root(random_state, self.mechanism)
        self._events = run(
            sources,
            self.mechanism,
            root=self._root,
            skip=skip,
            collect_words=collect_words,
            progress=progress,
            start=start,
            work_progress=work_progress,
            # a seeded release keys each document's noise by its words as well: one seed used
            # for two different texts draws independent noise for each
            keyed=self.seed.seeded,
        )

    def __iter__(self) -> Iterator[Piece | Done]:
        return self._events


def release_stream(
    sources: Sequence[Source],
    mechanism: Mechanism,
    *,
    random_state: RandomState | np.random.SeedSequence = None,
    skip: frozenset[int] = frozenset(),
    collect_words: bool = False,
    progress: Callable[[int], None] | None = None,
    start: int = 0,
    work_progress: Callable[[int], None] | None = None,
    root: np.random.SeedSequence | None = None,
) -> ReleaseStream:
    """Release ``sources`` (:mod:`authormask.core.sources`) one document and one part at a
    time, in bounded memory; the positions in ``skip`` are not read (a resumed release). See
    :class:`ReleaseStream`.

    Parameters
    ----------
    sources
        The documents.
    mechanism
        The mechanism to release with.
    random_state
        The secret seed: None (fresh OS entropy), an int, a numpy Generator or a SeedSequence.
    skip
        The positions not to read (a resumed release).
    collect_words
        Whether :class:`Done` carries the released words.
    progress
        Called with the characters released.
    start
        The release position of the first source.
    work_progress
        Called with the units of work done.
    root
        The secret root already drawn from ``random_state`` by the caller, or None.

    Returns
    -------
    ReleaseStream
        The release in progress.
    """
    return ReleaseStream(
        sources,
        mechanism,
        random_state=random_state,
        skip=skip,
        collect_words=collect_words,
        progress=progress,
        start=start,
        work_progress=work_progress,
        root=root,
    )
