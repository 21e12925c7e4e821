"""The entity step never changes what a mechanism's guarantee counts (issue 47, W1).

An auditor found pairs of texts that differ only in what emp-write's statement calls
unreleased (casing, a word outside the noun lexicon, a function word) where the recogniser's
decision changed K, the number of nouns released: ``Wow`` / ``WOW`` (K 0 / 1), ``He`` /
``Oluwaseun`` (1 / 2), ``NASA said`` / ``NASA SAID`` (1 / 2), ``1999`` / ``away`` (K + 1 in a
tenth of releases). Surrogates are now adjusted to the mechanism's content kinds: each word
the mechanism would release becomes a surrogate of the same kind, each other word is dropped.
"""

from __future__ import annotations

import numpy as np
import pytest

from authormask.core import create_mechanism
from authormask.mechanisms import inputs
from authormask.mechanisms.inputs import word_parts

#: the auditor's pairs (each differs only in what the statement calls unreleased)
PAIRS = [
    ("Wow, it ran!", "WOW, it ran!"),
    ("He ran to the house.", "Oluwaseun ran to the house."),
    ("NASA said it.", "NASA SAID it."),
    ("In 1999 we left the farm.", "In away we left the farm."),
]
#: texts with every kind of entity: names in and outside the lexicon, places, organisations,
#: a capitalised common noun taken for a name, numbers, a date, an address
TEXTS = [
    "Oluwaseun Adebayo met John Smith at the Bank of England in London on 3 May 2021.",
    "The DOG and the CAT ran to Paris; Mary Jones wrote to jane.doe@example.com at 10:30.",
    "Harry told Hermione that Dumbledore had left Hogwarts with 12 books and 3 owls.",
    "Call Acme Widgets Ltd on 020 7946 0958 about order AB12345 before Friday.",
]
SEEDS = range(12)


def _released(mechanism, text: str, seed: int) -> int:
    unit = mechanism.prepare(text)
    return len(mechanism.perturb([unit], [np.random.default_rng(seed)])[0].words)


@pytest.fixture(scope="module")
def mechanisms():
    return {name: create_mechanism(name, epsilon=7) for name in ("emp-write", "emp-text")}


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_the_auditors_pairs_release_as_many_nouns(mechanisms, a: str, b: str) -> None:
    m = mechanisms["emp-write"]
    assert m.entities == "surrogate"  # the user's default
    counts_a = [_released(m, a, s) for s in SEEDS]
    counts_b = [_released(m, b, s) for s in SEEDS]
    assert counts_a == counts_b, (a, counts_a, b, counts_b)
    assert len(set(counts_a)) == 1  # K is a function of the text, never of the draw


@pytest.mark.parametrize("name", ["emp-write", "emp-text"])
@pytest.mark.parametrize("text", TEXTS)
def test_the_stepped_text_has_the_kinds_of_the_original(mechanisms, name: str, text: str) -> None:
    m = mechanisms[name]
    want = m.inner.content_kinds(text)
    assert want, text
    for seed in SEEDS:
        stepped = m.stepped_text(text, np.random.default_rng(seed))
        assert stepped != text  # the step ran
        assert m.inner.content_kinds(stepped) == want, (seed, stepped)
        assert _released(m, text, seed) == len(want)


def test_a_name_the_mechanism_would_not_release_is_dropped(mechanisms) -> None:
    m = mechanisms["emp-write"]
    assert m.inner.content_kinds("Oluwaseun") == ()  # outside the noun lexicon
    for seed in SEEDS:
        stepped = m.stepped_text("He saw Oluwaseun at the house.", np.random.default_rng(seed))
        assert stepped.split() == "He saw at the house.".split(), stepped  # none in its place
        # where a sentence starts, a word of no position keeps the sentence cut before it
        stepped = m.stepped_text("He ran. Oluwaseun ran to the house.", np.random.default_rng(seed))
        assert stepped == "He ran. Someone ran to the house.", stepped
        assert m.inner.content_kinds(stepped) == m.inner.content_kinds(
            "He ran. He ran to the house."
        )


def test_emp_sentence_keeps_nouns_and_names_apart() -> None:
    """emp-sentence counts K nouns and M names (a word of the public name alphabet): a
    capitalised common noun taken for a name stays a noun, a listed name a name."""
    m = create_mechanism("emp-sentence", epsilon=7)
    text = "The DOG barked at Harry Smith in the garden."
    want = m.inner.content_kinds(text)
    assert "noun" in want and "name" in want
    for seed in SEEDS:
        stepped = m.stepped_text(text, np.random.default_rng(seed))
        assert m.inner.content_kinds(stepped) == want, stepped


def test_the_statement_says_what_the_recogniser_reads_and_changes(mechanisms) -> None:
    for m in mechanisms.values():
        policy = m.statement(seeded=False).policies["entities"]
        assert "casing, punctuation" in policy
        assert "never change the number of positions" in policy


def test_the_recognisers_parts_are_cut_by_words_not_layout() -> None:
    """W1b: four extra spaces per sentence moved the 64 KiB part boundary of a long text with
    the same nouns, and a name was then released 44 of 120 times instead of 0. Parts are cut
    by words now: the same words in any layout give the same cuts."""
    sentence = "Mary Smith walked the old dog to the market in Leeds."
    plain = " ".join([sentence] * 1300)  # 13,000 words: two parts
    spaced = "    \n".join([sentence] * 1300)
    assert len(plain) > 1 << 16  # long enough that a cut by characters falls inside
    cuts = [[part.split() for part in word_parts([text])] for text in (plain, spaced)]
    assert len(cuts[0]) == 2 and cuts[0] == cuts[1]


def test_the_entity_step_reads_its_own_word_parts(mechanisms, monkeypatch) -> None:
    """Whatever parts a text arrives in, the recogniser reads the parts of its words."""
    monkeypatch.setattr(inputs, "PART_WORDS", 40)
    text = " ".join(["Mary Smith walked the old dog to the market in Leeds."] * 10)
    pieces = [text[i : i + 150] for i in range(0, len(text), 150)]
    document = next(iter(mechanisms["emp-write"].prepare_parts(pieces)))
    assert document.parts == word_parts([text], 40) and len(document.parts) == 3


@pytest.mark.parametrize(
    ("a", "b"),
    [("NASA said it.", "NASA SAID it."), ("Wow, it ran!", "WOW, it ran!")],
)
def test_texts_differing_only_in_unreleased_words_release_the_same_bytes(
    mechanisms, a: str, b: str
) -> None:
    """Under one document generator, two texts that differ only in what the statement calls
    unreleased (here the casing of a word emp-write never releases, which the recogniser takes
    into a name) are released byte-identically: the step draws a surrogate from the entity type's
    words whatever the entity's length (``NASA`` and ``NASA SAID`` are organisations of one and
    two words, and drew from other patterns before)."""
    m = mechanisms["emp-write"]
    for seed in range(8):
        out = [m.perturb([m.prepare(t)], [np.random.default_rng(seed)])[0] for t in (a, b)]
        assert out[0].text == out[1].text and out[0].words == out[1].words, (seed, out)


def test_a_person_read_as_a_noun_stays_a_person() -> None:
    """emp-sentence reads "stiles" as a noun (a lexicon noun outside its name alphabet): its
    surrogate is a noun too, and a common noun for a person, never a word of an organisation
    ("Railways", "Logistics" before)."""
    m = create_mechanism("emp-sentence", epsilon=7)
    assert m.inner.content_kinds("Stiles") == ("noun",)
    people = {w.lower() for w in inputs.TYPE_NOUNS["person nouns"]}
    seen = set()
    text = "Derek told Stiles to run."
    for seed in SEEDS:
        stepped = m.stepped_text(text, np.random.default_rng(seed))
        first, _, third = stepped.split()[:3]
        assert first.lower() in people and third.lower() in people, stepped
        assert m.inner.content_kinds(stepped) == m.inner.content_kinds(text)
        seen.add(first)
    assert len(seen) > 1  # drawn, not fixed


def test_a_name_found_in_one_part_is_replaced_in_every_part(monkeypatch) -> None:
    """Issue 47: a long document is read by the recogniser in parts; a name it found in one
    part (a person's given name) is replaced where it stands alone in another part too."""
    from authormask.text.entities import load_recogniser

    first, second = "Mr. Sage Morrow knocked twice.", "Sage laughed at the joke."
    recogniser = load_recogniser()
    assert not recogniser.find(second)  # alone, the recogniser does not take it for a name
    found = recogniser.find_document((first + " ", second))
    assert [e.text for e in found[1]] == ["Sage"] and found[1][0].kind == "person"
    # through the entity step, the parts cut by words (here 5 a part)
    monkeypatch.setattr(inputs, "PART_WORDS", 5)
    m = create_mechanism("emp-write", epsilon=7)
    stepped = m.stepped_text(first + " " + second, np.random.default_rng(0))
    assert "Sage" not in stepped and "Morrow" not in stepped, stepped


#: the independent audit's pairs (issue 47): each pair reads the same without the entity step
#: (the same K and skeleton), and the recogniser found a name in one text only
AUDIT_PAIRS = [
    # a name inside a hyphenated token: "Scotland-based" (an unknown word) was dropped
    ("A London-based lawyer.", "A LONDON-BASED LAWYER."),
    ("She moved to Stratford-upon-Avon.", "She moved to stratford-upon-avon."),
    # a name's function word and marks: emp-doc and emp-text release them where they stand
    ("He joined the Department of Justice.", "he joined the department of justice."),
    ("Earth, Wind & Fire played.", "earth, wind & fire played."),
    ("We saw the Statue of Liberty.", "We saw the Statue of Sadness."),
    # a number inside a token: "1349s"; a clitic after a name
    ("In the 1990s Tom's dog ran.", "in the 1990s tom's dog ran."),
    # the re-audit: a function word of emp-doc's class outside the stopword list ("ai",
    # "dare"); a handle's and a link's marks (their fills had "/"); a sentence cut moved by an
    # initial's or an abbreviation's surrogate, or by a name dropped where a sentence starts
    ("Ai Weiwei made art.", "ai weiwei made art."),
    ("Virginia Dare was born in 1587.", "virginia dare was born in 1587."),
    ("Thanks @john_smith for this.", "Thanks @ john_smith for this."),
    ("See bbc.co.uk today.", "See bbc.co.ukk today."),
    ("I met J. Smith today.", "i met j. smith today."),
    ("They met at St. Petersburg today.", "they met at st. petersburg today."),
    ("He left. Oluwaseun arrived.", "He left. Everyone arrived."),
    # the third audit: a sentence start after an opening quote, a capital outside A-Z, a full
    # stop outside the recogniser's span, a dotted abbreviation, a link at a sentence start; an
    # initial that is a function word (an e-mail whose fill the tokeniser reads as one token:
    # test_an_address_filled_keeps_its_positions)
    ("He left. Oluwaseun arrived.", 'He left. "Oluwaseun arrived."'),
    ("He left. Émile arrived.", "He left. émile arrived."),
    ("I met Malcolm X. He was kind.", "I met Malcolm x. He was kind."),
    ("He moved to the U.S. Then he left.", "He moved to the u.s. Then he left."),
    ("He left. John@mail.com wrote.", "He left. Everyone wrote."),
    ("We met A. Smith there.", "We met A. Class there."),
]


def _skeleton(m, text: str) -> list[str]:
    """The marks and function words of ``text`` that ``m`` gives no noise, in order (what
    emp-doc and emp-text release where they stand)."""
    from authormask.text.prepare import NEGATION_AUXILIARIES
    from authormask.text.stopwords import default_stopwords
    from authormask.text.tokens import tokenize

    function = default_stopwords() | NEGATION_AUXILIARIES
    # emp-text reads a link as its words and marks; the canonical tokens read it as one token
    compounds = m.name != "emp-text"
    return [
        t.lower
        for t in tokenize(text, compounds=compounds)
        if not t.is_word or (t.lower in function and not m.inner.content_kinds(t.text))
    ]


@pytest.mark.parametrize("name", ["emp-write", "emp-doc", "emp-text", "emp-sentence"])
@pytest.mark.parametrize(("a", "b"), AUDIT_PAIRS)
def test_the_step_keeps_tokens_and_skeleton(name: str, a: str, b: str) -> None:
    """An entity is replaced on the mechanism's tokens: K, the kinds and the skeleton of the
    text the mechanism is given are those of the text without the step, for both texts of
    each audit pair (they differed: ``Department of Justice`` lost its ``of`` and ``department
    of justice`` kept it; ``London-based`` gave K 1 and ``LONDON-BASED`` K 2), and so are its
    sentences (emp-sentence's S: ``J.`` became ``Roger.``, a cut)."""
    from authormask.text.sentences import split_sentences

    m = create_mechanism(name, epsilon=7)
    assert any(m.recogniser.find(t) for t in (a, b))  # a name found in one of them at least
    for text in (a, b):
        want = m.inner.content_kinds(text)
        for seed in range(6):
            stepped = m.stepped_text(text, np.random.default_rng(seed))
            assert m.inner.content_kinds(stepped) == want, (text, stepped)
            assert _skeleton(m, stepped) == _skeleton(m, text), (text, stepped)
            assert len(split_sentences(stepped)) == len(split_sentences(text)), stepped


def test_a_token_longer_than_any_reach_is_widened_whole() -> None:
    """The re-audit: the step looked 256 characters around a name for its token's ends, so a
    name inside a longer hyphenated token was cut out of it and K changed (3 against 1)."""
    m = create_mechanism("emp-write", epsilon=7)
    for name in ("Oluwaseun", "Quietly"):
        text = f"I love {name}. The dog-{'x' * 255}-{name}-{'x' * 255}-cat slept."
        want = m.inner.content_kinds(text)
        for seed in range(3):
            stepped = m.stepped_text(text, np.random.default_rng(seed))
            assert m.inner.content_kinds(stepped) == want, (name, seed)


def test_on_tokens_widens_to_the_token_and_merges() -> None:
    from authormask.text.entities import Entity

    text = "The Paris-London train left at 5pm."
    entities = [Entity(4, 9, "place", "Paris"), Entity(10, 16, "place", "London")]
    assert inputs.on_tokens(text, entities) == [Entity(4, 16, "place", "Paris-London")]
    five = [Entity(31, 32, "number", "5")]
    assert inputs.on_tokens(text, five) == [Entity(31, 34, "number", "5pm")]
    # a clitic is its own token: the name ends where it stood
    assert inputs.on_tokens("Tom's.", [Entity(0, 3, "person", "Tom")])[0].text == "Tom"


def test_emp_bag_counts_the_text_not_the_masked_text() -> None:
    """emp-bag at N = K: with ``London-based`` the masked text (``[PLACE]-based``) had one
    content word fewer, so the all-caps text was refused and the other released as the masked
    text (``based`` in the bag) in most draws. Both are released now, from their surrogates."""
    filler = " ".join(["cat table chair window garden river forest mountain apple bread"] * 4)
    m = create_mechanism("emp-bag", epsilon=5, length=40)
    for text in (
        "A London-based lawyer. " + filler + ".",
        "A LONDON-BASED LAWYER. " + filler + ".",
    ):
        assert len(m.inner.content_kinds(text)) == 42
        for seed in range(4):
            stepped = m.stepped_text(text, np.random.default_rng(seed))
            assert "[" not in stepped and len(m.inner.content_kinds(stepped)) == 42, stepped
            assert _released(m, text, seed) == 40


def test_the_statement_names_what_the_recogniser_reads_where_it_says_unreleased(
    mechanisms,
) -> None:
    for m in mechanisms.values():
        statement = m.statement(seeded=False)
        assert "entity step reads the text as written" in statement.released_unchanged
        assert "London-based" in statement.policies["entities"]


@pytest.mark.parametrize("name", ["emp-write", "emp-doc", "emp-text"])
def test_an_address_filled_keeps_its_positions(name: str) -> None:
    """The third audit: ``o'neil@mail.com`` filled word by word became a valid e-mail, one token
    (emp-write K 2 against 5, emp-doc 4 tokens against 8, by a space). A fill the tokeniser
    reads as other positions is not taken (its marks may still differ: listed words joined by
    "/", said in the statement)."""
    m = create_mechanism(name, epsilon=7)
    for text in ("Mail o'neil@mail.com today.", "Mail o'neil@ mail.com today."):
        want = m.inner.content_kinds(text)
        for seed in range(4):
            stepped = m.stepped_text(text, np.random.default_rng(seed))
            assert m.inner.content_kinds(stepped) == want, (text, stepped)


def test_word_parts_cuts_as_counting_word_by_word() -> None:
    """A document of fewer words than a part is one part without its words counted one by
    one; either way the parts are those of counting words (runs of non-whitespace, Unicode
    whitespace as ``\\s`` reads it) one by one, checked against that count on random texts
    of spaces, line breaks, no-break and ideographic spaces."""
    import random
    import re

    word = re.compile(r"\S+\s*")

    def counted(parts: list[str], words: int) -> tuple[str, ...]:
        text = "".join(parts)
        out, start, count = [], 0, 0
        for m in word.finditer(text, len(text) - len(text.lstrip())):
            count += 1
            if count == words:
                out.append(text[start : m.end()])
                start, count = m.end(), 0
        if start < len(text) or not out:
            out.append(text[start:])
        return tuple(out)

    rng = random.Random(7)
    alphabet = ["a", "bc", " ", "  ", "\n", "\u00a0", "\u2028", "\t", "\u3000", "\u00e9", "\x1c"]
    for _ in range(5000):
        parts = [
            "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
            for _ in range(rng.randint(1, 3))
        ]
        words = rng.randint(1, 6)
        assert word_parts(parts, words) == counted(parts, words), (parts, words)
