"""The rows of a prepared vocabulary's words (``authormask.embeddings._base._WordRows``): looked
up by bisection of the words in sorted order, then, after ``WORD_LOOKUPS`` lookups, by a dict;
the same rows as a dict of every word throughout, and an order that is not the words' refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from authormask.embeddings import Embeddings
from authormask.embeddings._base import WORD_LOOKUPS, _WordRows
from authormask.exceptions import EmbeddingsError


def _order(words: tuple[str, ...]) -> np.ndarray:
    return np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)


def test_a_prepared_vocabulary_looks_words_up_by_bisection_then_by_a_dict(
    glove_20k: Embeddings,
) -> None:
    words = glove_20k.words
    assert isinstance(glove_20k._index, _WordRows)  # loaded from its prepared entry
    rows = _WordRows.of_prepared(words, _order(words))
    expected = {w: i for i, w in enumerate(words)}
    absent = ["", "not-a-glove-word-xyz", "The", "zzzzzzzz", "\x00", "ünïcode-absent"]
    assert len(words) > WORD_LOOKUPS  # the lookups below cross to the dict
    bisected = rows._sorted is not None
    for n, word in enumerate([*absent, *words, *absent]):
        assert rows.get(word) == expected.get(word), word
        assert (word in rows) == (word in expected)
        if n == WORD_LOOKUPS // 4:  # two lookups a word
            assert rows._table is None and bisected
    assert rows._table is not None and rows._sorted is None  # the dict now, the words dropped
    assert len(rows) == len(words)
    with pytest.raises(KeyError):
        rows["not-a-glove-word-xyz"]
    for other in (None, 3, b"the", ["the"]):
        assert other not in rows and rows.get(other) is None


def test_the_vocabulary_answers_as_before(glove_20k: Embeddings) -> None:
    assert "the" in glove_20k and glove_20k.index_of("the") == glove_20k.words.index("the")
    assert "not-a-glove-word-xyz" not in glove_20k
    with pytest.raises(KeyError):
        glove_20k.index_of("not-a-glove-word-xyz")
    picked = ["river", "the", "satellite"]
    assert np.array_equal(
        glove_20k.lookup(picked), glove_20k.vectors[[glove_20k.words.index(w) for w in picked]]
    )


@pytest.mark.parametrize(
    ("words", "order"),
    [
        (("b", "a", "c"), [1, 0, 0]),  # a row twice (and one missing)
        (("b", "a", "c"), [0, 1, 2]),  # not the words' order
        (("a", "b", "a"), [0, 2, 1]),  # a word twice
        (("a", "b"), [0, 2]),  # a row it has not
        (("a", "b"), [-1, 1]),
        (("a", "b"), [0]),  # not a row per word
        (("a", "b"), [[0, 1]]),
        (("a", "b"), [0.0, 1.0]),
    ],
)
def test_an_order_that_is_not_the_words_is_refused(words: tuple[str, ...], order: Any) -> None:
    with pytest.raises(EmbeddingsError):
        _WordRows.of_prepared(words, np.array(order))


def test_an_entry_whose_order_is_not_its_words_is_rebuilt(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from authormask.embeddings import load_embeddings, registry

    cache = tmp_path / "cache"
    first = load_embeddings("glove-6b-50d", vocab_size=1000, cache_dir=cache)
    stored = registry.write_entry

    def reversed_order(path: Path, header: Any, arrays: Any) -> bool:  # another order
        return stored(path, header, {**arrays, "order": arrays["order"][::-1].copy()})

    (entry,) = cache.glob("*.K1000.*.vocab")
    entry.unlink()
    monkeypatch.setattr(registry, "write_entry", reversed_order)
    registry.load_embeddings("glove-6b-50d", vocab_size=1000, cache_dir=cache)
    monkeypatch.setattr(registry, "write_entry", stored)
    again = load_embeddings("glove-6b-50d", vocab_size=1000, cache_dir=cache)
    assert again.words == first.words
    assert "ignoring unusable prepared vocabulary" in caplog.text
    assert again.index_of("the") == first.words.index("the")
