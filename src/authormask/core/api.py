"""``release``: the one entry point through which every front end runs a mechanism."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from authormask._version import __version__
from authormask.accounting.statement import PrivacyStatement
from authormask.core.executors import Engine, check_engine
from authormask.core.journal import PRIVATE_BANNER
from authormask.core.partitioned import release_on
from authormask.core.sources import Source, TextSource
from authormask.core.stream import Piece, ReleaseStream, release_stream, resolve_length
from authormask.exceptions import InputError, InvalidParameterError
from authormask.mechanisms._base import Mechanism
from authormask.randomness import RandomState, describe_seed, mechanism_root

__all__ = [
    "PRIVATE_BANNER",
    "Release",
    "ReleasedDocument",
    "RunReport",
    "release",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReleasedDocument:
    """One released document: its public id, the released text and public per-output figures.

    Attributes
    ----------
    id
        The document's public id (given, or its position).
    text
        The released text.
    words
        The released words, in order.
    bag
        The released bag of words (word -> count), for the mechanisms that release one.
    figures
        Public per-output figures (such as the length released), written beside the text.
    """

    id: str
    text: str
    words: tuple[str, ...]
    bag: dict[str, int] | None = None
    figures: dict[str, float] = field(default_factory=dict)

    def record(self, statement: PrivacyStatement) -> dict[str, Any]:
        """The public JSONL record: the id, the output and the (shared) statement.

        Parameters
        ----------
        statement
            The release's privacy statement, shared by every document.

        Returns
        -------
        dict[str, Any]
            The record: ``id``, ``mechanism``, ``text``, the bag if any, the figures and
            ``privacy``.
        """
        rec: dict[str, Any] = {"id": self.id, "mechanism": statement.mechanism, "text": self.text}
        if self.bag is not None:
            rec["bag"] = self.bag
        rec.update(self.figures)
        rec["privacy"] = statement.to_dict()
        return rec


@dataclass(frozen=True)
class RunReport:
    """What a release must NOT publish: the seed, sources, per-document counts and warnings.

    Attributes
    ----------
    mechanism
        The mechanism's registered name.
    seed
        The seed the release was drawn with (None if fresh OS entropy): secret.
    seeded
        Whether a seed was given.
    documents
        One dict of private counts per document.
    warnings
        The warnings raised while releasing.
    version
        The authormask version that made the release.
    """

    mechanism: str
    seed: int | None
    seeded: bool
    documents: tuple[dict[str, Any], ...]
    warnings: tuple[str, ...]
    version: str = __version__

    def to_dict(self) -> dict[str, Any]:
        """The report as a JSON-ready dict, marked ``private``.

        Returns
        -------
        dict[str, Any]
            ``private``, ``mechanism``, ``seeded``, ``seed``, ``version``, ``warnings``,
            ``documents``.
        """
        return {
            "private": True,
            "mechanism": self.mechanism,
            "seeded": self.seeded,
            "seed": self.seed,
            "version": self.version,
            "warnings": list(self.warnings),
            "documents": list(self.documents),
        }

    def to_text(self) -> str:
        """The report file: a first line that says it is private, then JSON.

        Returns
        -------
        str
            The private banner line, then the report as indented JSON.
        """
        return PRIVATE_BANNER + "\n" + json.dumps(self.to_dict(), indent=2) + "\n"


@dataclass(frozen=True)
class Release:
    """The outputs of one release, its public statement and its private report.

    Attributes
    ----------
    documents
        The released documents, in input order.
    statement
        The public privacy statement.
    report
        The private run report.
    """

    documents: tuple[ReleasedDocument, ...]
    statement: PrivacyStatement
    report: RunReport

    def __iter__(self) -> Any:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)

    @property
    def texts(self) -> list[str]:
        return [d.text for d in self.documents]


def release(
    texts: Iterable[str],
    mechanism: Mechanism,
    *,
    random_state: RandomState | np.random.SeedSequence = None,
    ids: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    progress: Callable[[int], None] | None = None,
    engine: str | Engine | None = None,
    work_progress: Callable[[int], None] | None = None,
) -> Release:
    """Release ``texts`` with ``mechanism`` (see :func:`authormask.create_mechanism`).

    The documents are released by the local streaming engine (:mod:`authormask.core.stream`)
    and collected in memory; for inputs larger than memory use :func:`release_stream`.

    Parameters
    ----------
    texts
        The documents.
    mechanism : Mechanism
        A registered mechanism with its public parameters.
    random_state
        The release's secret root: ``None`` (default) draws fresh OS entropy; an int seed makes
        the release reproducible (keep it secret: the statement says only "seeded"). Document i
        draws from a generator derived from the root, i and (seeded) the digest of its words.
    ids
        Public ids of the documents (default "1", "2", ...). Never use file names that could
        identify the author.
    sources
        Where each document came from; kept in the private report only.
    progress
        Called with the number of characters read, as the release goes (on Dask, once per
        partition, as each comes back).
    work_progress
        Called with the units of work done (words snapped, tokens drawn) as the mechanism does
        them: the local engine only (refused with another engine, whose workers do the work).
    engine
        ``"local"``, ``"dask"`` or an :class:`~authormask.core.executors.Engine`: where the
        documents are released: in this process (default), or in partitions on a Dask cluster
        (``Engine("dask", workers=2)``, or ``scheduler=ADDRESS``), with the same outputs for a
        seeded release. The mechanism must come from :func:`~authormask.core.create_mechanism`
        (each worker builds it once from its name and parameters).

    Returns
    -------
    Release
        ``documents`` (id, text, released words), the public ``statement`` (identical for every
        input released with the same parameters) and the private ``report``.

    Raises
    ------
    InputError
        If a document is not a string.
    InvalidParameterError
        If ``texts`` is one string or empty, or ``ids``/``sources`` do not match the documents.
    """
    inputs = _inputs(texts, ids, sources)
    chosen = _chosen_engine(engine, work_progress)
    if chosen.kind != "local":
        srcs, labels, names = inputs.sources, inputs.labels, inputs.names
        return _release_on(chosen, srcs, labels, names, mechanism, random_state, progress)
    stream = release_stream(
        inputs.sources,
        mechanism,
        random_state=random_state,
        collect_words=True,
        progress=progress,
        work_progress=work_progress,
    )
    return _collected(stream, inputs)


@dataclass(frozen=True)
class _Inputs:
    """The documents to release, checked: each as a source, its public id (label) and its
    name in the private report."""

    sources: list[Source]
    labels: list[str]
    names: list[str]


def _inputs(
    texts: Iterable[str], ids: Sequence[str] | None, sources: Sequence[str] | None
) -> _Inputs:
    """The documents checked (a sequence of strings, not empty, one id and source each) and
    labelled (:class:`_Inputs`)."""
    if isinstance(texts, str):
        raise InvalidParameterError("texts must be a sequence of strings, not one string")
    docs = list(texts)
    if not docs:
        raise InvalidParameterError("no documents to release")
    names = _check_labels(len(docs), ids, sources)
    labels = list(ids) if ids is not None else [str(i + 1) for i in range(len(docs))]
    srcs: list[Source] = []
    for name, text in zip(names, docs, strict=True):
        if not isinstance(text, str):
            raise InputError(f"{name}: a document must be a string, got {type(text).__name__}")
        srcs.append(TextSource(name, name, len(text), text))
    return _Inputs(srcs, labels, names)


def _chosen_engine(
    engine: str | Engine | None, work_progress: Callable[[int], None] | None
) -> Engine:
    """The engine checked; ``work_progress`` is refused on an engine other than the local one."""
    chosen = check_engine(engine)
    if chosen.kind != "local":
        if work_progress is not None:
            raise InvalidParameterError(
                "work_progress is reported by the local engine only (the workers of "
                f"{chosen.describe()} do the work); use progress, reported per partition"
            )
    return chosen


def _collected(stream: ReleaseStream, inputs: _Inputs) -> Release:
    """The local stream's documents collected in memory, with the private report."""
    labels, names = inputs.labels, inputs.names
    pieces: dict[int, list[str]] = {}
    released: list[ReleasedDocument] = []
    reports: list[dict[str, Any]] = []
    warnings: list[str] = []
    for event in stream:
        if isinstance(event, Piece):
            pieces.setdefault(event.position, []).append(event.text)
            continue
        pos = event.position
        released.append(
            ReleasedDocument(
                labels[pos],
                "".join(pieces.pop(pos, [])),
                event.words or (),
                event.bag,
                event.figures,
            )
        )
        reports.append({"id": labels[pos], "source": names[pos], **event.diagnostics})
        warnings.extend(event.warnings)
    report = RunReport(
        mechanism=stream.statement.mechanism,
        seed=stream.seed.seed,
        seeded=stream.seed.seeded,
        documents=tuple(reports),
        warnings=tuple(warnings),
    )
    logger.info("released %d document(s) with %s", len(released), stream.statement.mechanism)
    return Release(tuple(released), stream.statement, report)


def _release_on(
    engine: Engine,
    srcs: list[Source],
    labels: list[str],
    names: list[str],
    mechanism: Mechanism,
    random_state: RandomState | np.random.SeedSequence,
    progress: Callable[[int], None] | None = None,
) -> Release:
    seed = describe_seed(random_state)
    mechanism = resolve_length(mechanism, srcs, progress=None)
    statement = mechanism.statement(seeded=seed.seeded)
    rows: dict[int, dict[str, Any]] = {}
    warnings: list[str] = []
    for start, part_rows, result in release_on(
        engine, srcs, mechanism, root=mechanism_root(random_state, mechanism), seeded=seed.seeded
    ):
        rows.update((start + i, row) for i, row in enumerate(part_rows))
        warnings.extend(result.warnings)
        if progress is not None:  # the characters read, as the local engine reports them
            progress(result.characters)
    released = []
    reports = []
    for pos in range(len(srcs)):
        row = rows[pos]
        released.append(
            ReleasedDocument(
                labels[pos],
                row["text"],
                tuple(row["words"] or ()),
                row.get("bag"),
                {k: v for k, v in row.items() if k not in _ROW_FIELDS},
            )
        )
        reports.append({"id": labels[pos], "source": names[pos], **row["diagnostics"]})
    report = RunReport(
        mechanism=statement.mechanism,
        seed=seed.seed,
        seeded=seed.seeded,
        documents=tuple(reports),
        warnings=tuple(warnings),
    )
    logger.info("released %d document(s) on %s", len(released), engine.describe())
    return Release(tuple(released), statement, report)


_ROW_FIELDS = frozenset({"id", "text", "bag", "words", "diagnostics"})


def _check_labels(n: int, ids: Sequence[str] | None, sources: Sequence[str] | None) -> list[str]:
    if ids is not None and len(ids) != n:
        raise InvalidParameterError(f"{len(ids)} ids for {n} documents")
    if sources is not None and len(sources) != n:
        raise InvalidParameterError(f"{len(sources)} sources for {n} documents")
    labels = list(ids) if ids is not None else [str(i + 1) for i in range(n)]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError("document ids must be unique")
    return list(sources) if sources is not None else labels
