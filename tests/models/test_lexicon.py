"""The public noun lexicon: which words emp-write releases under content="nouns"."""

from __future__ import annotations

from collections import Counter

import numpy as np

from authormask.embeddings import Embeddings
from authormask.models.lexicon import build_noun_lexicon, load_noun_lexicon, tag_counts


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
    lex = build_noun_lexicon(emb, tags, "toy corpus", "toy==1")
    # kitten and jog take their nearest tagged word's part; zork is like no tagged word
    assert lex.nouns == {"cat", "dog", "look", "kitten", "zork"}
    again = build_noun_lexicon(emb, dict(reversed(tags.items())), "toy corpus", "toy==1")
    assert again.nouns_sha256 == lex.nouns_sha256
    assert "5 words" in lex.describe() and lex.nouns_sha256 in lex.describe()


def test_tags_are_read_in_context() -> None:
    tags = tag_counts(["They run home. We run. I saw a cat. The cat ran."])
    assert tags["run"]["VERB"] == 2 and tags["cat"]["NOUN"] == 2
    assert tags["they"]["PRON"] == 1


def test_the_packaged_lexicon_separates_nouns_from_verbs(glove_20k: Embeddings) -> None:
    lex = load_noun_lexicon(glove_20k)
    assert {"house", "water", "hand", "door", "phone"} <= lex.nouns
    assert not {"walked", "quickly", "beautiful", "said", "okay"} & lex.nouns
    assert load_noun_lexicon(glove_20k) is lex
