"""The writer's caches are bounded (issue 50: memory flat in input length). A long text met
ever more contexts and kept every gap law and trigram probability it computed (about 55 MB
after a million characters); now each cache holds two generations of at most half its bound,
and what is kept changes the time a text takes, never its text."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from authormask.models import writer as writer_module
from authormask.models.writer import load_writer
from authormask.text.stopwords import default_stopwords


@pytest.fixture(scope="module")
def writer(glove_20k, tmp_path_factory: pytest.TempPathFactory):
    return load_writer(
        glove_20k, frozenset(default_stopwords()), cache_dir=tmp_path_factory.mktemp("w")
    )


def _fresh(writer):
    """A copy of the writer with empty caches of its own."""
    mine = copy.copy(writer)
    mine._log_p, mine._log_p_old, mine._gap_laws, mine._gap_laws_old = {}, {}, {}, {}
    return mine


def test_a_long_text_keeps_at_most_the_bounds_and_writes_what_unbounded_caches_write(
    writer, glove_20k, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 3,000 real words in an order of the vocabulary: many contexts
    words = [w for w in glove_20k.words[200:4000] if w.isalpha()][:3000]
    unbounded = _fresh(writer)
    monkeypatch.setattr(writer_module, "GAP_LAWS", 10**9)
    monkeypatch.setattr(writer_module, "LOG_PROBABILITIES", 10**9)
    expected = unbounded.write(words, np.random.default_rng(3))
    many_laws = len(unbounded._gap_laws)
    many_probabilities = len(unbounded._log_p)
    assert many_laws > 400 and many_probabilities > 4000  # the text met many contexts

    monkeypatch.setattr(writer_module, "GAP_LAWS", 200)
    monkeypatch.setattr(writer_module, "LOG_PROBABILITIES", 2000)
    bounded = _fresh(writer)
    held_laws: list[int] = []
    held_probabilities: list[int] = []
    law = bounded._gap_law

    def watched(*args: str):
        out = law(*args)
        held_laws.append(len(bounded._gap_laws) + len(bounded._gap_laws_old))
        held_probabilities.append(len(bounded._log_p) + len(bounded._log_p_old))
        return out

    bounded._gap_law = watched
    assert bounded.write(words, np.random.default_rng(3)) == expected
    assert max(held_laws) <= 200
    # a turn happens after a law is computed: at most one law's probabilities beyond the bound
    one_law = 3 * writer_module.CANDIDATES * (writer_module.MAX_GAP_RELEASED + 1)
    assert 1000 < max(held_probabilities) <= 2000 + one_law
