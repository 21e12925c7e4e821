"""The writer's word classes are prepared once into the cache folder (issue 50: fitting them
was most of the writer's start-up, on every release)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from authormask.models import writer as writer_module
from authormask.models.writer import SkeletonWriter, load_writer
from authormask.text.stopwords import default_stopwords


def test_prepared_classes_are_read_not_fitted(glove_20k, tmp_path: Path, monkeypatch) -> None:
    words = frozenset(default_stopwords())
    monkeypatch.setattr(writer_module, "_WRITERS", {})
    first = load_writer(glove_20k, words, cache_dir=tmp_path)
    (prepared,) = tmp_path.glob("writer-classes-*.npy")

    def no_fit(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("fitted again")

    monkeypatch.setattr(writer_module, "_WRITERS", {})
    monkeypatch.setattr(SkeletonWriter, "_fit_classes", no_fit)
    second = load_writer(glove_20k, words, cache_dir=tmp_path)
    assert np.array_equal(second.word_class, first.word_class)
    assert second.identity == first.identity

    # a damaged or foreign file is not read (it is fitted again and written again)
    rows = len(glove_20k)
    assert writer_module._read_classes(prepared, rows) is not None
    bad = tmp_path / "bad.npy"
    bad.write_bytes(prepared.read_bytes()[:200])
    assert writer_module._read_classes(bad, rows) is None
    np.save(bad, np.full(rows, writer_module.CLASSES, dtype=np.int16))  # a class out of range
    assert writer_module._read_classes(bad, rows) is None
    np.save(bad, first.word_class.astype(np.int64))  # another type
    assert writer_module._read_classes(bad, rows) is None
