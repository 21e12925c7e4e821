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


def test_a_prepared_lexicons_hash_is_that_of_its_sorted_words_in_any_order(
    glove_20k, tmp_path: Path, monkeypatch
) -> None:
    """The lexicon's SHA-256 (in the statement) is that of its sorted words, a line each: read
    from the file's first line where the file holds them sorted, computed again where a file
    holds them in another order (one written by hand with its first line made to match)."""
    import hashlib
    import random

    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    built = load_noun_lexicon(glove_20k, frozenset({"the"}), cache_dir=tmp_path)
    expected = hashlib.sha256("\n".join(sorted(built.nouns)).encode("utf-8")).hexdigest()
    assert built.nouns_sha256 == expected
    (prepared,) = tmp_path.glob("nouns-*.txt")
    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    assert load_noun_lexicon(glove_20k, frozenset({"the"}), cache_dir=tmp_path) == built
    head, _, body = prepared.read_text(encoding="utf-8").partition("\n")
    lines = body.split("\n")
    random.Random(0).shuffle(lines)
    shuffled = "\n".join(lines)
    digest = hashlib.sha256(shuffled.encode("utf-8")).hexdigest()
    prepared.write_text(f"{head.rpartition(' ')[0]} {digest}\n{shuffled}", encoding="utf-8")
    monkeypatch.setattr(lexicon_module, "_LEXICONS", {})
    read = load_noun_lexicon(glove_20k, frozenset({"the"}), cache_dir=tmp_path)
    assert read.nouns == built.nouns and read.nouns_sha256 == expected
