"""The dataset interface: documents with text, author, optional topic and optional split."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from authormask.exceptions import InputError

__all__ = ["SPLITS", "Corpus", "Document"]

SPLITS = ("train", "test")


@dataclass(frozen=True)
class Document:
    """One text. ``author`` and ``topic`` are labels (``None`` when the corpus has none);
    ``split`` is ``"train"`` (known material), ``"test"`` (unknown material) or ``None``.

    Attributes
    ----------
    doc_id
        The document's id, unique in its corpus.
    text
        Its text.
    author
        Its author's label, or None.
    topic
        Its topic's label, or None.
    split
        ``"train"``, ``"test"`` or None.
    """

    doc_id: str
    text: str
    author: str | None = None
    topic: str | None = None
    split: str | None = None


@dataclass(frozen=True)
class Corpus:
    """A named, ordered collection of documents and where it came from.

    ``source`` says where the data was read from (a path or a package with its version) so that
    results can name their data exactly.

    Attributes
    ----------
    name
        The corpus's name.
    source
        Where it was read from.
    documents
        Its documents, in order (at least one; ids unique).
    description
        What it is, in one line.
    """

    name: str
    source: str
    documents: tuple[Document, ...]
    description: str = ""

    def __post_init__(self) -> None:
        if not self.documents:
            raise InputError(f"dataset {self.name!r} has no documents ({self.source})")
        seen: set[str] = set()
        for doc in self.documents:
            if doc.doc_id in seen:
                raise InputError(f"dataset {self.name!r}: duplicate document id {doc.doc_id!r}")
            seen.add(doc.doc_id)
            if doc.split is not None and doc.split not in SPLITS:
                raise InputError(
                    f"dataset {self.name!r}: document {doc.doc_id!r} has split {doc.split!r}; "
                    f"expected one of {', '.join(SPLITS)} or none"
                )

    def __len__(self) -> int:
        return len(self.documents)

    @property
    def authors(self) -> tuple[str, ...]:
        """Distinct authors, sorted."""
        return tuple(sorted({d.author for d in self.documents if d.author is not None}))

    @property
    def topics(self) -> tuple[str, ...]:
        """Distinct topics, sorted."""
        return tuple(sorted({d.topic for d in self.documents if d.topic is not None}))

    @property
    def has_splits(self) -> bool:
        return any(d.split is not None for d in self.documents)

    def select(self, *, split: str | None = None, author: str | None = None) -> list[Document]:
        """Documents of one split and/or author, in corpus order.

        Parameters
        ----------
        split
            The split to keep, or None (every split).
        author
            The author to keep, or None (every author).

        Returns
        -------
        list[Document]
            The documents.
        """
        return [
            d
            for d in self.documents
            if (split is None or d.split == split) and (author is None or d.author == author)
        ]

    def summary(self) -> dict[str, object]:
        """Counts for reports: documents, authors, topics, splits.

        Returns
        -------
        dict[str, object]
            ``name``, ``source``, ``documents``, ``authors``, ``topics`` and ``splits``.
        """
        return {
            "name": self.name,
            "source": self.source,
            "documents": len(self.documents),
            "authors": len(self.authors),
            "topics": dict(sorted(Counter(d.topic for d in self.documents if d.topic).items())),
            "splits": dict(sorted(Counter(d.split or "none" for d in self.documents).items())),
        }


def make_corpus(
    name: str, source: str, documents: Sequence[Document], description: str = ""
) -> Corpus:
    """Build a :class:`Corpus`, rejecting empty documents with a message naming them."""
    empty = [d.doc_id for d in documents if not d.text.strip()]
    if empty:
        more = f" and {len(empty) - 3} more" if len(empty) > 3 else ""
        raise InputError(
            f"dataset {name!r}: empty document(s) {', '.join(empty[:3])}{more} ({source})"
        )
    return Corpus(name=name, source=source, documents=tuple(documents), description=description)
