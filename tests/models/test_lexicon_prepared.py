"""The noun lexicon is prepared once into the cache folder (issue 50: every release built it
again, 4.8 s and a peak of 861 MB on the one-sentence path)."""

from __future__ import annotations

from pathlib import Path

import pytest

from authormask.models import lexicon as lexicon_module
from authormask.models.lexicon import load_noun_lexicon


def test_a_prepared_lexicon_is_read_not_built(glove_20k, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    built = load_noun_lexicon(glove_20k, frozenset({"the"}), cache_dir=tmp_path)
    (prepared,) = tmp_path.glob("nouns-*.txt")
    assert prepared.read_text(encoding="utf-8").startswith("authormask noun lexicon 1 sha256 ")

    def no_build(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    monkeypatch.setattr(lexicon_module, "build_noun_lexicon", no_build)
    read = load_noun_lexicon(glove_20k, frozenset({"the"}), cache_dir=tmp_path)
    assert read == built and read.describe() == built.describe()
    # other function words: another file, built (not the first one's words)
    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    with pytest.raises(AssertionError, match="built again"):
        load_noun_lexicon(glove_20k, frozenset({"a"}), cache_dir=tmp_path)


def test_an_edited_prepared_lexicon_is_rebuilt(glove_20k, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    built = load_noun_lexicon(glove_20k, cache_dir=tmp_path)
    (prepared,) = tmp_path.glob("nouns-*.txt")
    text = prepared.read_text(encoding="utf-8")
    prepared.write_text(text + "\nplanted", encoding="utf-8")  # a word added by hand
    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    again = load_noun_lexicon(glove_20k, cache_dir=tmp_path)
    assert "planted" not in again.nouns and again == built
    assert prepared.read_text(encoding="utf-8") == text  # and written again whole
