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
from authormask.exceptions import InputError, InvalidParameterError
from authormask.randomness import (
    RandomState,
    describe_seed,
    document_generator,
    root_seed_sequence,
)
from authormask.release._base import Mechanism

__all__ = ["PRIVATE_BANNER", "Release", "ReleasedDocument", "RunReport", "release"]

logger = logging.getLogger(__name__)

PRIVATE_BANNER = (
    "# PRIVATE run report of authormask: DO NOT PUBLISH. It holds the seed, source names and "
    "per-document counts, which identify the inputs; publish only the texts and the privacy "
    "statement."
)

#: documents perturbed together (one batched nearest-word search / model pass per batch)
BATCH_DOCUMENTS = 64


@dataclass(frozen=True)
class ReleasedDocument:
    """One released document: its public id, the released text and public per-output figures."""

    id: str
    text: str
    words: tuple[str, ...]
    bag: dict[str, int] | None = None
    figures: dict[str, float] = field(default_factory=dict)

    def record(self, statement: PrivacyStatement) -> dict[str, Any]:
        """The public JSONL record: the id, the output and the (shared) statement."""
        rec: dict[str, Any] = {"id": self.id, "mechanism": statement.mechanism, "text": self.text}
        if self.bag is not None:
            rec["bag"] = self.bag
        rec.update(self.figures)
        rec["privacy"] = statement.to_dict()
        return rec


@dataclass(frozen=True)
class RunReport:
    """What a release must NOT publish: the seed, sources, per-document counts and warnings."""

    mechanism: str
    seed: int | None
    seeded: bool
    documents: tuple[dict[str, Any], ...]
    warnings: tuple[str, ...]
    version: str = __version__

    def to_dict(self) -> dict[str, Any]:
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
        """The report file: a first line that says it is private, then JSON."""
        return PRIVATE_BANNER + "\n" + json.dumps(self.to_dict(), indent=2) + "\n"


@dataclass(frozen=True)
class Release:
    """The outputs of one release, its public statement and its private report."""

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
    on_total: Callable[[int], None] | None = None,
) -> Release:
    """Release ``texts`` with ``mechanism`` (see :func:`authormask.create_mechanism`).

    Parameters
    ----------
    texts : iterable of str
        The documents.
    mechanism : Mechanism
        A registered mechanism with its public parameters.
    random_state : None, int, numpy Generator or SeedSequence
        The release's secret root: ``None`` (default) draws fresh OS entropy; an int seed makes
        the release reproducible (keep it secret: the statement says only "seeded"). Document i
        draws from a generator derived from the root and i alone.
    ids : sequence of str, optional
        Public ids of the documents (default "1", "2", ...). Never use file names that could
        identify the author.
    sources : sequence of str, optional
        Where each document came from; kept in the private report only.
    progress : callable, optional
        Called with units of work done (words snapped or tokens generated).
    on_total : callable, optional
        Called once, after every document is prepared, with the total units of work.

    Returns
    -------
    Release
        ``documents`` (id, text, released words), the public ``statement`` (identical for every
        input released with the same parameters) and the private ``report``.
    """
    if isinstance(texts, str):
        raise InvalidParameterError("texts must be a sequence of strings, not one string")
    docs = list(texts)
    if not docs:
        raise InvalidParameterError("no documents to release")
    if ids is not None and len(ids) != len(docs):
        raise InvalidParameterError(f"{len(ids)} ids for {len(docs)} documents")
    if sources is not None and len(sources) != len(docs):
        raise InvalidParameterError(f"{len(sources)} sources for {len(docs)} documents")
    labels = list(ids) if ids is not None else [str(i + 1) for i in range(len(docs))]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError("document ids must be unique")
    names = list(sources) if sources is not None else labels
    seed_info = describe_seed(random_state)
    root = root_seed_sequence(random_state)
    prepared = []
    for name, text in zip(names, docs, strict=True):
        if not isinstance(text, str):
            raise InputError(f"{name}: a document must be a string, got {type(text).__name__}")
        try:
            prepared.append(mechanism.prepare(text))
        except InputError as exc:
            raise InputError(f"{name}: {exc}") from None
    resolve = getattr(mechanism, "with_length_from", None)
    if resolve is not None and getattr(mechanism, "needs_all_documents", False):
        mechanism = resolve(prepared)
    statement = mechanism.statement(seeded=seed_info.seeded)
    if on_total is not None:
        on_total(sum(mechanism.units(doc) for doc in prepared))
    released: list[ReleasedDocument] = []
    reports: list[dict[str, Any]] = []
    warnings: list[str] = []
    for start in range(0, len(prepared), BATCH_DOCUMENTS):
        batch = prepared[start : start + BATCH_DOCUMENTS]
        rngs = [document_generator(root, start + i) for i in range(len(batch))]
        outputs = mechanism.perturb(batch, rngs, progress=progress)
        for i, (doc, out) in enumerate(zip(batch, outputs, strict=True)):
            pos = start + i
            released.append(
                ReleasedDocument(labels[pos], out.text, out.words, out.bag, out.figures)
            )
            diag = dict(mechanism.diagnostics(doc))
            reports.append({"id": labels[pos], "source": names[pos], **diag})
            overlap = diag.get("training_overlap_segments")
            if overlap:
                warnings.append(
                    f"{names[pos]}: {overlap} segment(s) occur verbatim in the model's training "
                    "corpus; the guarantee does not hold for text the model was trained on"
                )
    report = RunReport(
        mechanism=statement.mechanism,
        seed=seed_info.seed,
        seeded=seed_info.seeded,
        documents=tuple(reports),
        warnings=tuple(warnings),
    )
    logger.info("released %d document(s) with %s", len(released), statement.mechanism)
    return Release(tuple(released), statement, report)
