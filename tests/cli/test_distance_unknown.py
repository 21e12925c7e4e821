"""``authormask distance`` reads unknown words (no vector) by the rule releases use
(:mod:`authormask.mechanisms.unknown`: two unknown words at distance 0, an unknown word at most
``max_u d(u, v)`` from a word ``v``, ``u`` over the words the release can draw), so the bound
it prints is the one the statement gives (independent audit: it dropped them, and a name was
then at distance 0 from every word, or its bag shorter than the release's)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from authormask.embeddings import Embeddings
from authormask.mechanisms.unknown import UnknownWords
from authormask.text.stopwords import default_stopwords

Invoke = Callable[[list[str]], tuple[int, str, str]]
#: two words no embedding has
ZORB, QUIN = "Zorblaxian", "Quentinorax"


@pytest.fixture()
def distance(cache_dir: Path, invoke: Invoke, tmp_path: Path) -> Callable[..., dict]:
    def run(a: str, b: str, *args: str) -> dict:
        pa, pb = tmp_path / "a.txt", tmp_path / "b.txt"
        pa.write_text(a, encoding="utf-8")
        pb.write_text(b, encoding="utf-8")
        code, out, err = invoke(
            ["distance", str(pa), str(pb), *args, "--json", "--cache-dir", str(cache_dir),
             "--vocab-size", "20000"]
        )  # fmt: skip
        assert code == 0, err
        return json.loads(out)

    return run


def _farthest(glove: Embeddings, word: str) -> float:
    """``max_u d(u, word)`` over the words a release draws in an unknown word's place."""
    draws = UnknownWords(glove, excluded=default_stopwords(), fixed=None).cdf
    support = np.diff(np.concatenate([[0.0], draws])) > 0
    vectors = glove.vectors[support].astype(np.float64)
    v = glove.lookup([word])[0].astype(np.float64)
    return float(np.sqrt(((vectors - v) ** 2).sum(axis=1)).max())


def test_two_unknown_words_are_at_distance_zero(distance: Callable[..., dict]) -> None:
    res = distance(f"{ZORB} approved the budget.", f"{QUIN} approved the budget.", "-e", "1")
    assert res["unknown_a"] == res["unknown_b"] == 1 and res["oov"] == "map"
    assert res["words_a"] == res["words_b"] == 3  # the unknown word is in the bag
    assert res["emd"] == 0.0 and res["document_epsilon"] == 0.0


def test_an_unknown_word_is_at_its_farthest_drawn_word(
    distance: Callable[..., dict], glove_20k: Embeddings
) -> None:
    """One bag holds an unknown word where the other holds ``president``: E is the cheaper of
    the two matchings, the unknown word costing ``max_u d(u, v)`` against ``v``."""
    res = distance(f"{ZORB} approved.", "President approved.", "-e", "2")
    far = _farthest(glove_20k, "president")
    d = float(
        np.linalg.norm(glove_20k.lookup(["president"])[0] - glove_20k.lookup(["approved"])[0])
    )
    far_approved = _farthest(glove_20k, "approved")
    expected = min(far, far_approved + d) / 2
    assert res["words_a"] == res["words_b"] == 2 and res["unknown_a"] == 1
    assert res["emd"] == pytest.approx(expected, rel=1e-6)
    assert res["document_epsilon"] == pytest.approx(2 * 2 * expected, rel=1e-6)
    assert res["emd"] > 0.5  # dropping it gave E({approved}, {president, approved}) ~ d / 2


def test_drop_and_a_fixed_word_are_the_other_release_rules(
    distance: Callable[..., dict], glove_20k: Embeddings
) -> None:
    dropped = distance(f"{ZORB} approved.", "President approved.", "--oov", "drop")
    assert dropped["words_a"] == 1 and dropped["unknown_a"] == 0
    fixed = distance(f"{ZORB} approved.", "Unknown approved.", "--oov-map-to", "unknown")
    assert fixed["emd"] == 0.0 and fixed["words_a"] == 2


def test_the_text_output_names_the_rule(cache_dir: Path, invoke: Invoke, tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(f"{ZORB} approved the budget.", encoding="utf-8")
    b.write_text("The president approved the budget.", encoding="utf-8")
    code, out, err = invoke(
        ["distance", str(a), str(b), "--cache-dir", str(cache_dir), "--vocab-size", "20000"]
    )
    assert code == 0, err
    assert "unknown words (no vector): 1 in A, 0 in B" in out
    assert "max_u d(u, v)" in out
    code, _, err = invoke(
        ["distance", str(a), str(b), "--oov", "drop", "--oov-map-to", "unknown",
         "--cache-dir", str(cache_dir), "--vocab-size", "20000"]
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "--oov-map-to" in err
