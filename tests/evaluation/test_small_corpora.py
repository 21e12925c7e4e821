"""The evaluations on the smallest corpora they accept, and what they say when a corpus is too
small for a setting; their progress callbacks count what they announce."""

from __future__ import annotations

import pytest

from authormask.datasets import Document
from authormask.datasets._base import make_corpus
from authormask.embeddings import Embeddings
from authormask.evaluation import (
    Item,
    Study,
    SweepConfig,
    applicable_measures,
    check_applicable,
    run_sweep,
)
from authormask.evaluation.protocols.bo2021 import select_documents
from authormask.evaluation.protocols.fernandes2019 import sweep_cells
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text import TextPreparer


def _study(aaac_study: Study, authors: int) -> Study:
    """The first ``authors`` authors of AAAC problem A, with invented topics (one each)."""
    keep = set(aaac_study.authors[:authors])

    def topical(items: tuple[Item, ...]) -> tuple[Item, ...]:
        return tuple(
            Item(i.item_id, i.text, i.words, i.author, f"topic-{i.author}")
            for i in items
            if i.author in keep
        )

    return Study(
        task="author",
        known=topical(aaac_study.known),
        queries=topical(aaac_study.queries),
        train=(),
        length=aaac_study.length,
        corpus=aaac_study.corpus,
    )


def test_five_nn_needs_five_references(aaac_study: Study) -> None:
    small = _study(aaac_study, 2)
    attackers, utilities = applicable_measures(small)
    assert "5nn-emd" not in utilities and "svm" in attackers
    with pytest.raises(InvalidParameterError, match="needs at least 5 reference texts; this "):
        check_applicable(small, SweepConfig(attackers=(), utilities=("5nn-emd",)))
    assert "5nn-emd" in applicable_measures(_study(aaac_study, 5))[1]


def test_two_authors_sweep_and_progress(
    aaac_study: Study, glove_20k: Embeddings, preparer: TextPreparer
) -> None:
    small = _study(aaac_study, 2)
    config = SweepConfig(
        epsilons=(None, 10.0),
        mechanisms=("emp-bag",),
        attackers=("koppel-cosine", "svm", "1nn-emd"),
        utilities=(),
        repetitions=2,
        koppel_iterations=5,
    )
    totals: list[int] = []
    steps: list[int] = []
    result = run_sweep(
        small,
        embeddings=glove_20k,
        preparer=preparer,
        config=config,
        progress=steps.append,
        on_total=totals.append,
    )
    assert totals == [sweep_cells(config)] == [len(result.cells)] == [9]  # (1 + 2 reps) x 3
    assert steps == [1] * 9
    assert all(c.total == 2 for c in result.cells)


def _corpus(docs_per_author: dict[str, int], *, splits: bool = False):
    docs = []
    for author, n in docs_per_author.items():
        for i in range(n):
            split = None if not splits else ("test" if i == n - 1 and n > 1 else "train")
            text = f"Document {i} by {author}: the committee met on Tuesday about taxes."
            docs.append(Document(f"{author}/{i}", text, author=author, split=split))
    return make_corpus("tiny", "memory", docs)


def test_release_selection_says_what_is_missing() -> None:
    with pytest.raises(InputError, match=r"at least 2 authors .*found only 'alice'"):
        select_documents(_corpus({"alice": 3}), docs_per_author=2, max_authors=None)
    with pytest.raises(InputError, match=r"author 'bob' has 1 document; .*at least 2"):
        select_documents(_corpus({"alice": 3, "bob": 1}), docs_per_author=2, max_authors=None)
    train, test = select_documents(
        _corpus({"alice": 2, "bob": 2}), docs_per_author=4, max_authors=None
    )
    assert [d.doc_id for d in train] == ["alice/0", "bob/0"]
    assert [d.doc_id for d in test] == ["alice/1", "bob/1"]


def test_release_selection_keeps_candidates_without_test_documents() -> None:
    """As in a PAN problem: an author with training texts only is a class of the classifier
    whose texts are not released."""
    corpus = _corpus({"alice": 3, "bob": 2, "carol": 1}, splits=True)
    train, test = select_documents(corpus, docs_per_author=4, max_authors=None)
    assert {d.author for d in train} == {"alice", "bob", "carol"}
    assert [d.doc_id for d in test] == ["alice/2", "bob/1"]
    no_test = _corpus({"alice": 1, "bob": 1}, splits=True)
    with pytest.raises(InputError, match="none of its 2 authors has test documents"):
        select_documents(no_test, docs_per_author=4, max_authors=None)
