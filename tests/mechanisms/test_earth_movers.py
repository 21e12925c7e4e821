from __future__ import annotations

import numpy as np
import pytest

from authormask import obfuscate_texts
from authormask.embeddings import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text import TextPreparer

TEXT = (
    "The committee approved the budget on Tuesday. Critics said the plan would raise taxes, "
    "while supporters argued that schools and hospitals needed the money."
)


def test_large_epsilon_keeps_words_small_epsilon_changes_them(glove_20k: Embeddings) -> None:
    big = obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=200.0, mode="text", random_state=0)[
        0
    ]
    assert big.text == TEXT
    small = obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=1.0, mode="text", random_state=0)[
        0
    ]
    doc = TextPreparer(glove_20k).prepare(TEXT)
    out_doc = [
        t.lower
        for t in TextPreparer(glove_20k, stopwords=set()).prepare(small.text).tokens
        if t.is_word
    ]
    assert small.text != TEXT
    changed = sum(w not in out_doc for w in doc.content_words)
    assert changed >= len(doc.content_words) * 0.8


def test_text_mode_keeps_skeleton(glove_20k: Embeddings) -> None:
    res = obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=5.0, mode="text", random_state=3)[0]
    assert res.text.startswith("The ")  # stopword kept, capitalisation kept
    assert res.text.count(",") == TEXT.count(",") and res.text.endswith(".")
    st = res.statement
    assert st.mode == "text" and st.counts.stopwords > 0 and st.counts.punctuation == 3
    assert "skeleton" in " ".join(st.caveats)


def test_bag_mode_statement_and_sorted_output(glove_20k: Embeddings) -> None:
    res = obfuscate_texts(
        [TEXT, TEXT + " Extra words appear here."],
        embeddings=glove_20k,
        epsilon=10.0,
        random_state=1,
    )
    n = len(TextPreparer(glove_20k).prepare(TEXT).content_words)
    for r in res:
        words = r.text.split()
        assert words == sorted(words) and len(words) == n  # default N: the shortest document
        assert r.bag is not None and sum(r.bag.values()) == n
        d = r.statement.to_dict()
        assert d["epsilon"] == 10.0 and d["length"] == n and d["mode"] == "bag"
        assert f"10*{n}*E-privacy" in d["guarantee"]
        assert d["embeddings"]["words_sha256"] == glove_20k.identity.words_sha256
        assert d["seed"] == "seeded (1)" and d["version"]
    assert res[1].statement.counts.not_released_by_fixed_length == 3


def test_unseeded_statement_and_reproducibility(glove_20k: Embeddings) -> None:
    a = obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=3.0, random_state=9)[0]
    b = obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=3.0, random_state=9)[0]
    c = obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=3.0)[0]
    assert a.text == b.text
    assert c.statement.seed.startswith("unseeded")


def test_kept_oov_words_are_declared(glove_20k: Embeddings) -> None:
    prep = TextPreparer(glove_20k, oov="keep")
    res = obfuscate_texts(
        ["Zxqvbnm approved the budget"],
        embeddings=glove_20k,
        epsilon=5.0,
        preparer=prep,
        random_state=0,
    )[0]
    assert "zxqvbnm" in res.text.split()
    assert res.statement.counts.oov_kept_unprotected == 1
    assert any("NOT protected" in c for c in res.statement.caveats)


def test_bad_parameters(glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match="bag mode only"):
        obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=1.0, mode="text", length=3)
    with pytest.raises(InvalidParameterError, match="bag mode only"):
        obfuscate_texts(
            [TEXT], embeddings=glove_20k, epsilon=1.0, mode="text", fixed_length="sample"
        )
    with pytest.raises(InputError, match="larger than"):
        obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=1.0, length=1000)
    with pytest.raises(InvalidParameterError, match="mode"):
        obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=1.0, mode="poem")
    with pytest.raises(InvalidParameterError, match="epsilon"):
        obfuscate_texts([TEXT], embeddings=glove_20k, epsilon=float("nan"))


def test_output_distribution_of_one_word_changes_with_epsilon(glove_20k: Embeddings) -> None:
    from authormask.mechanisms import EarthMoversMechanism

    row = glove_20k.index_of("budget")
    same = []
    for eps in (5.0, 15.0, 40.0):
        out = EarthMoversMechanism(glove_20k, epsilon=eps).perturb_indices(
            np.full(2000, row), random_state=0
        )
        same.append(float(np.mean(out == row)))
    assert same[0] < same[1] < same[2] and same[2] > 0.95


def test_shared_index_must_match_embeddings(glove_20k: Embeddings) -> None:
    from authormask.embeddings import NearestWordIndex
    from authormask.mechanisms import EarthMoversMechanism

    index = NearestWordIndex(glove_20k.vectors)
    a = EarthMoversMechanism(glove_20k, epsilon=5.0, index=index)
    b = EarthMoversMechanism(glove_20k, epsilon=50.0, index=index)
    assert a.index is b.index
    with pytest.raises(InvalidParameterError, match="other embeddings"):
        EarthMoversMechanism(glove_20k.restrict(100), epsilon=5.0, index=index)
