from __future__ import annotations

from collections import Counter

import pytest

from authormask.embeddings import Embeddings
from authormask.exceptions import InputError, InvalidParameterError
from authormask.text import TextPreparer, fixed_length_bag, tokenize

SNIPPET = "The President meets the press in Chicago, zxqvbnm!"


def test_tokenize_keeps_offsets() -> None:
    text = "Don't stop: state-of-the-art."
    toks = tokenize(text)
    assert [t.text for t in toks] == ["Do", "n't", "stop", ":", "state-of-the-art", "."]
    assert all(text[t.start : t.end] == t.text for t in toks)


def test_contractions_are_stopwords_and_stems_content(glove_20k: Embeddings) -> None:
    doc = TextPreparer(glove_20k).prepare("The President\u2019s aides don't know; we'll see.")
    assert doc.content_words == ("president", "aides", "know", "see")
    assert doc.count("oov-dropped") == 0
    words = [t.lower for t, r in zip(doc.tokens, doc.roles, strict=True) if r == "stopword"]
    assert words == ["the", "'s", "do", "n't", "we", "'ll"]


def test_bag_mode_order_and_removal(glove_20k: Embeddings) -> None:
    doc = TextPreparer(glove_20k).prepare("Markets fell, and we're told it can't last!")
    assert doc.content_words == ("markets", "fell", "told", "last")
    assert doc.bag == Counter(doc.content_words)


def test_negative_contraction_is_a_stopword_as_a_whole(glove_20k: Embeddings) -> None:
    text = "It could rain but couldn\u2019t snow, and won't."
    doc = TextPreparer(glove_20k).prepare(text)
    assert doc.content_words == ("could", "rain", "snow")
    assert [t.text for t in doc.tokens if t.lower in ("could", "wo")] == ["could", "could", "wo"]
    doc = TextPreparer(glove_20k, stopwords={"and"}).prepare(text)
    assert "wo" in doc.content_words and doc.content_words.count("could") == 2


def test_map_makes_every_non_stopword_a_content_position(glove_20k: Embeddings) -> None:
    text = "Mr Zxqvbnm's firm, Qwfpgj-Arst Ltd, won't say 19960823 y'all."
    doc = TextPreparer(glove_20k, oov="map").prepare(text)
    words = [i for i, t in enumerate(doc.tokens) if t.is_word and doc.roles[i] != "stopword"]
    assert list(doc.content_positions) == words
    mapped = [doc.tokens[i].text for i in doc.content_positions if doc.roles[i] == "oov-mapped"]
    assert mapped == ["Zxqvbnm", "Qwfpgj-Arst", "19960823", "y'all"]
    assert all(
        w == "unknown"
        for w, i in zip(doc.content_words, doc.content_positions, strict=True)
        if doc.roles[i] == "oov-mapped"
    )
    assert set(doc.roles) == {"content", "stopword", "punctuation", "oov-mapped"}
    # the mechanism draws a word at the listed positions (tests/mechanisms/test_unknown.py)
    roles = [doc.roles[i] for i in doc.content_positions]
    assert list(doc.mapped) == [k for k, r in enumerate(roles) if r == "oov-mapped"]


def test_paper_example_bag(glove_20k: Embeddings) -> None:
    doc = TextPreparer(glove_20k).prepare("The President meets the press in Chicago")
    assert doc.bag == Counter({"president": 1, "meets": 1, "press": 1, "chicago": 1})


@pytest.mark.parametrize(
    ("policy", "content", "kept"),
    [
        ("drop", ("president", "meets", "press", "chicago"), ()),
        ("keep", ("president", "meets", "press", "chicago"), ("zxqvbnm",)),
        ("map", ("president", "meets", "press", "chicago", "unknown"), ()),
    ],
)
def test_oov_policies(
    glove_20k: Embeddings, policy: str, content: tuple[str, ...], kept: tuple[str, ...]
) -> None:
    doc = TextPreparer(glove_20k, oov=policy).prepare(SNIPPET)
    assert doc.content_words == content
    assert doc.kept_oov_words == kept
    assert doc.count("stopword") == 3 and doc.count("punctuation") == 2


def test_custom_and_no_stopwords(glove_20k: Embeddings) -> None:
    doc = TextPreparer(glove_20k, stopwords=set()).prepare("the press")
    assert doc.content_words == ("the", "press")
    doc = TextPreparer(glove_20k, stopwords={"press"}).prepare("the press")
    assert doc.content_words == ("the",)


def test_empty_and_contentless_documents(glove_20k: Embeddings) -> None:
    prep = TextPreparer(glove_20k)
    with pytest.raises(InputError, match="empty"):
        prep.prepare("   \n\t")
    with pytest.raises(InputError, match="no content words"):
        prep.prepare("the and of , !")


def test_bad_policy(glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match="oov policy"):
        TextPreparer(glove_20k, oov="guess")
    with pytest.raises(InvalidParameterError, match="oov_map_to"):
        TextPreparer(glove_20k, oov="map", oov_map_to="zxqvbnm")


def test_fixed_length_truncate_and_sample() -> None:
    words = ("a", "b", "c", "a")
    t = fixed_length_bag(words, length=3)
    assert t.words == ("a", "b", "c") and t.not_released == 1
    s = fixed_length_bag(words, length=4000 // 1000, method="sample", random_state=0)
    assert len(s.words) == 4 and set(s.words) <= set(words)
    big = fixed_length_bag(words, length=4, method="sample", random_state=1)
    assert big.not_released == 0


def test_sampled_bag_follows_word_distribution() -> None:
    words = ("a",) * 3 + ("b",)
    draws = [
        fixed_length_bag(words, length=4, method="sample", random_state=s).words for s in range(500)
    ]
    share_a = sum(d.count("a") for d in draws) / 2000
    assert abs(share_a - 0.75) < 5 * (0.75 * 0.25 / 2000) ** 0.5


@pytest.mark.parametrize("n", [0, -3])
def test_bad_length(n: int) -> None:
    with pytest.raises(InvalidParameterError, match="length N must be an integer >= 1"):
        fixed_length_bag(("a",), length=n)


def test_length_larger_than_document() -> None:
    with pytest.raises(InputError, match="N=5 is larger than the document's 2"):
        fixed_length_bag(("a", "b"), length=5)


def test_only_listed_auxiliaries_before_nt_are_stopwords(glove_20k) -> None:
    """A name or any other word glued to n't stays a content word (it is perturbed)."""
    from authormask.text.prepare import NEGATION_AUXILIARIES

    doc = TextPreparer(glove_20k, oov="map").prepare("Smithn't needn't wasn't Chicago can't")
    roles = {t.text: r for t, r in zip(doc.tokens, doc.roles, strict=True)}
    assert roles["Smith"] != "stopword" and roles["Chicago"] == "content"
    assert roles["need"] == roles["was"] == roles["ca"] == "stopword"
    assert {"need", "ca", "wo"} <= NEGATION_AUXILIARIES and "smith" not in NEGATION_AUXILIARIES
