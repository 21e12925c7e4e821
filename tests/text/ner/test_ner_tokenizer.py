# ruff: noqa: RUF001 - the strings hold look-alike marks (curly quotes, dashes, Greek) on purpose
"""spaCy's tokenizer without spaCy (``authormask.text.ner.tokenizer``, issue 50): the same tokens,
trailing spaces, offsets and special-case norms as the packaged pipeline's own tokenizer, on the
bundled example, on strings chosen to reach every rule, and on seeded random strings."""

from __future__ import annotations

import json
import random
import re
from importlib import resources
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from authormask.text.ner.tokenizer import Tokenizer, TokenizerRules, Tokens
from authormask.text.pipeline import load_pipeline

_EXCLUDE = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "ner"]


@pytest.fixture(scope="module")
def nlp() -> Any:
    return load_pipeline(exclude=_EXCLUDE, purpose="the tokenizer's tests")


@pytest.fixture(scope="module")
def rules(nlp: Any) -> TokenizerRules:
    # read off spaCy, then through JSON, as the prepared file is
    return TokenizerRules.from_json(TokenizerRules.from_spacy(nlp.tokenizer).to_json())


@pytest.fixture(scope="module")
def tokenizer(rules: TokenizerRules) -> Tokenizer:
    # made from what a prepared recogniser keeps, read back through JSON (its expressions from
    # the code kept for them, its phrases as kept): every test below compares it with spaCy
    return Tokenizer(
        rules, prepared=json.loads(json.dumps(Tokenizer(rules).prepared(), sort_keys=True))
    )


def test_kept_expressions_are_the_very_programs_re_compiles(rules: TokenizerRules) -> None:
    plain = Tokenizer(rules)
    kept = json.loads(json.dumps(plain.prepared(), sort_keys=True))
    assert sorted(kept["expressions"]) == ["infix", "prefix", "suffix", "url_match"]
    tokenizer = Tokenizer(rules, prepared=kept)
    for name, method in (("prefix", "_prefix"), ("suffix", "_suffix"), ("infix", "_infix")):
        made, compiled = getattr(tokenizer, method).__self__, getattr(plain, method).__self__
        assert made is not compiled  # not re's cache: made from the code kept
        assert made == compiled == re.compile(getattr(rules, name))  # flags, pattern, code
    # the phrases as kept are those found again, and anything else kept is found again
    assert tokenizer._patterns == plain._patterns and len(plain._patterns) > 100
    for phrases in (None, "x", [[]], [["a", 1]], [("a",)]):
        again = Tokenizer(rules, prepared={"phrases": phrases, "expressions": 5})
        assert again._patterns == plain._patterns
    for damaged in ("x", [1, 2], 3):  # not what prepared() keeps: everything made again
        assert Tokenizer(rules, prepared=damaged)._patterns == plain._patterns  # type: ignore[arg-type]


def _differences(nlp: Any, tokenizer: Tokenizer, text: str) -> list[str]:
    """How our tokens of ``text`` differ from spaCy's (nothing: the same)."""
    doc = nlp.tokenizer(text)
    ours = tokenizer(text)
    theirs = Tokens(
        words=tuple(token.text for token in doc),
        spaces=tuple(bool(token.whitespace_) for token in doc),
        starts=tuple(token.idx for token in doc),
        norms=tuple(token.norm_ for token in doc),
    )
    problems = [
        f"{name}: ours {getattr(ours, name)!r}, spaCy's {getattr(theirs, name)!r}"
        for name in ("words", "spaces", "starts")
        if getattr(ours, name) != getattr(theirs, name)
    ]
    if problems:
        return problems
    for index, token in enumerate(doc):
        # a token's own norm differs from its lexeme's only where a special case set it
        special = token.norm_ if token.norm_ != token.lex.norm_ else None
        norm = ours.norms[index]
        if (special is not None and norm != special) or (norm is not None and norm != token.norm_):
            problems.append(
                f"token {index} {token.text!r}: norm ours {norm!r}, spaCy's {special!r}"
            )
    return problems


def test_the_bundled_example(nlp: Any, tokenizer: Tokenizer) -> None:
    text = resources.files("authormask").joinpath("data/example.txt").read_text(encoding="utf-8")
    assert _differences(nlp, tokenizer, text) == []
    assert len(tokenizer(text)) > 50


TRICKY = [
    # contractions and clitics
    "I don't know, can't say, won't go; I'm sure y'all gonna see.",
    "It's John's and the dogs' toy. He'll, she'd, we've, they're, 'tis, ain't, cannot",
    "DON'T CAN'T Won't Let's lemme gimme wanna gotta 'cause 'em ol' nothin' doin'",
    "don’t can’t won’t I’m it’s ’s ’ll ’re ’ve ’d ’’ ‘quoted’",
    "'s 'll 'S 'LL ''",
    "(don't) [can't] {won't} \"I'm\" 'you're'",
    # abbreviations, initials, times
    "The U.S. and U.K. met e.g. on Dec. 5 at 10 a.m. or 5p.m. with Mr. Smith, Mrs. Jones, Dr. No.",
    "Mr.Smith (U.S.) '90s i.e. etc. vs. v. Co. Inc. Corp. Ltd. Jan. Feb. Sept. St. Mt.",
    "10a.m. 12p.m. 3 a.m. 9am 9 AM noon. A.B.C. J. R. R. Tolkien",
    "Calif. Mass. Wash. N.Y. N.J.",
    # URLs, e-mails, handles, tags
    "See https://www.example.com/path/to/page.html?q=1&b=two#frag, or http://x.org.",
    "www.example.co.uk/a-b_c and example.com/x?y=z. ftp://files.example.net/pub/file.tar.gz",
    "Mail jane.doe+tag@example.com or bob@mail.example.org.",
    "@handle #hashtag @user_name123 #2024election RT @someone: hi",
    '(https://example.com) <http://example.com/> "www.example.com"',
    # numbers, money, units
    "1,000.50 $5 5% 10km 3x4 1-2 £3.50 €20 ¥1000 -5 +7 1/2 3:30 1e10 12th 2nd",
    "$5.00. 5.5% 100km/h 5'11\" 6ft 37°C 10,000,000 0.5 .5 5. #1 No.1",
    "1990s '90s 24/7 9/11 2-3pm 10-15% 1.5-2.0 x2 2x",
    # hyphens, slashes, dashes, ellipses
    "well-known state-of-the-art and/or his/her e-mail re-do co-op - -- --- – — ―",
    "Wait... what?! No.... Yes…Really?? Hmm.. ok!?",
    "word—word word–word word--word word - word",
    "a/b/c a\\b C++ C# .NET Node.js R&D AT&T A+ B-",
    # quotes and brackets of every kind
    "\"double\" 'single' “curly” ‘curly’ «guillemets» „low“ ‚low‘ `back` ``latex''",
    "(round) [square] {curly} <angle> ((nested)) ([mixed]) )( ][",
    # emoticons and emoji
    ":) :-( <3 :D ;) :P :'( ^_^ -_- o.O :-) (: ): =) :/ :| xD XD </3 <33",
    "I love it 😀😂 👍🏽 ❤️ 🇬🇧 🎉!! ☺ ♥",
    # whitespace
    "tabs\tand\ttabs\t\tdouble",
    "new\nline\n\nblank\r\nwindows\rold mac",
    "runs  of   spaces    here",
    "   leading and trailing   ",
    " a",
    "a ",
    "a  ",
    " ",
    "  ",
    "\n",
    "\t \n",
    " \n ",
    "non\xa0breaking\xa0\xa0space \xa0x",
    "thin\u2009space em\u2003space ideographic\u3000space",
    "\u200bzero width\u200b",
    # non-Latin scripts
    "Здравствуй, мир! Привет.",
    "こんにちは世界。東京は大きい！",
    "مرحبا بالعالم. شكرا!",
    "שלום עולם.",
    "नमस्ते दुनिया। धन्यवाद!",
    "Γειά σου Κόσμε; Ελλάδα.",
    "café naïve résumé Zürich Ångström ﬁne ﬂow",
    # words stuck to punctuation
    "hello,world end.Start a;b a:b a!b a?b",
    'end of sentence."Next',
    "(hello) [world]. {foo}, <bar>!",
    "...dots ..dots .dots dots. dots.. dots...",
    "'quoted' ''double'' 'tis 'n' rock'n'roll",
    # text ending in a special case
    "I said don't",
    "That's what it is, e.g.",
    "and it's 3 a.m.",
    "she said :)",
    "you'll",
    "U.S.",
    "Mr.",
    ":)",
    # special cases found across tokens, overlapping: the longest first, and a span left out
    # still takes its tokens (spaCy's filter)
    "(:)",
    "q.:’):>",
    "I.e.Colo.:'(:}",
    ">.<(>_<):]",
    "'ll>.>:(",
    "(:-)) :-))) (*_*) <3<3",
    # a mix, in one text
    "On Dec. 25, 2023, Mr. O'Neil (CEO of AT&T Inc.) said: \"We'll grow 5%—maybe 10%—by '25!\"",
]


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_tricky_strings(nlp: Any, tokenizer: Tokenizer, text: str) -> None:
    assert _differences(nlp, tokenizer, text) == []


def test_seeded_random_strings(nlp: Any, tokenizer: Tokenizer) -> None:
    """3,000 strings of words, marks, digits, whitespace and special cases, glued together or
    apart, each tokenized as spaCy does."""
    generator = random.Random(0)
    specials = sorted(nlp.tokenizer.rules)
    words = (
        "the a I he she it we they you dog house well known New York John O'Brien US UK "
        "state art re do co op don can won i.e e.g etc vs Mr Mrs Dr St a.m p.m"
    ).split()
    marks = list(".,;:!?'\"()[]{}<>-–—/\\@#$%^&*_+=~`|…’‘“”«»´·°§¶•")
    numbers = ["1", "2,000", "3.14", "10km", "5%", "$5", "1990s", "'90s", "24/7", "1-2", "3x4"]
    spaces = [" ", " ", " ", "  ", "\n", "\n\n", "\t", "\xa0", "\r\n", "\u2009", " \n"]
    others = ["😀", "👍🏽", "Здравствуй", "東京", "ﬁne", "https://example.com/a?b=c", "x@y.com"]
    pools = [words, marks, numbers, spaces, specials, others]
    weights = [5, 4, 2, 4, 4, 1]
    failures = []
    for case in range(3000):
        pieces = []
        for _ in range(generator.randint(1, 12)):
            pool = generator.choices(pools, weights)[0]
            pieces.append(generator.choice(pool))
            if generator.random() < 0.4:
                pieces.append(" ")
        text = "".join(pieces)
        problems = _differences(nlp, tokenizer, text)
        if problems:
            failures.append((case, text, problems))
    assert failures == []


def test_empty_text(tokenizer: Tokenizer) -> None:
    tokens = tokenizer("")
    assert (tokens.words, tokens.spaces, tokens.starts, tokens.norms) == ((), (), (), ())
    assert len(tokens) == 0


def test_a_small_cache_changes_no_token(nlp: Any, rules: TokenizerRules) -> None:
    """Chunks not kept (the cache full) are tokenized afresh, the same."""
    small = Tokenizer(rules, cache_size=1)
    for text in TRICKY[:20] * 2:
        assert _differences(nlp, small, text) == []
    with pytest.raises(ValueError, match="cache_size"):
        Tokenizer(rules, cache_size=0)


def test_rules_are_those_of_spacy(nlp: Any, rules: TokenizerRules) -> None:
    spacy_tokenizer = nlp.tokenizer
    assert rules.prefix == spacy_tokenizer.prefix_search.__self__.pattern
    assert rules.suffix == spacy_tokenizer.suffix_search.__self__.pattern
    assert rules.infix == spacy_tokenizer.infix_finditer.__self__.pattern
    assert rules.url_match == spacy_tokenizer.url_match.__self__.pattern
    assert rules.token_match is None and spacy_tokenizer.token_match is None
    assert rules.faster_heuristics is spacy_tokenizer.faster_heuristics
    assert set(rules.rules) == set(spacy_tokenizer.rules)
    assert rules.rules["don't"] == (("do", "do"), ("n't", "not"))
    assert rules.rules[":)"] == ((":)", None),)


def test_rules_json_round_trip(rules: TokenizerRules) -> None:
    text = rules.to_json()
    again = TokenizerRules.from_json(text)
    assert again == rules
    assert again.to_json() == text
    assert hash(again) == hash(rules)
    data = json.loads(text)
    assert data["rules"]["don't"] == [["do", "do"], ["n't", "not"]]
    with pytest.raises(TypeError):
        again.rules["x"] = (("x", None),)  # type: ignore[index]


@pytest.mark.parametrize(
    "change",
    [
        {"format": "something else"},
        {"version": 99},
        {"prefix": 3},
        {"faster_heuristics": "yes"},
        {"rules": []},
        {"rules": {"ab": [["a", None], ["b"]]}},
        {"rules": {"ab": [["a", None], ["c", None]]}},
    ],
    ids=["format", "version", "prefix", "heuristics", "rules", "pair", "orth"],
)
def test_from_json_refuses_what_it_did_not_write(
    rules: TokenizerRules, change: dict[str, Any]
) -> None:
    data = json.loads(rules.to_json())
    data.update(change)
    with pytest.raises(ValueError):
        TokenizerRules.from_json(json.dumps(data))


def _stub(rules: dict[str, list[dict[Any, str]]], **functions: Any) -> SimpleNamespace:
    """Something with a spaCy tokenizer's attributes."""
    names = ("prefix_search", "suffix_search", "infix_finditer", "token_match", "url_match")
    attributes = dict.fromkeys(names) | functions
    return SimpleNamespace(rules=rules, faster_heuristics=True, vocab=None, **attributes)


def test_from_spacy_refuses_other_attributes_and_functions() -> None:
    from spacy.attrs import LOWER, NORM, ORTH

    fine = TokenizerRules.from_spacy(_stub({"ab": [{ORTH: "a", NORM: "x"}, {"ORTH": "b"}]}))
    assert fine.rules == {"ab": (("a", "x"), ("b", None))}
    with pytest.raises(ValueError, match="other than ORTH and NORM"):
        TokenizerRules.from_spacy(_stub({"ab": [{ORTH: "ab", LOWER: "x"}]}))
    with pytest.raises(ValueError, match="prefix_search"):
        TokenizerRules.from_spacy(_stub({}, prefix_search=lambda string: None))
    with pytest.raises(ValueError, match="url_match"):
        TokenizerRules.from_spacy(_stub({}, url_match=re.compile("x").search))


def test_runs_without_spacy(
    nlp: Any, rules: TokenizerRules, tmp_path: Path, run_python: Any
) -> None:
    """Tokenizing imports neither spaCy nor thinc."""
    path = tmp_path / "rules.json"
    path.write_text(rules.to_json(), encoding="utf-8")
    text = "I don't know (:) U.S."
    code = f"""
        import json
        import sys
        from pathlib import Path
        from authormask.text.ner.tokenizer import Tokenizer, TokenizerRules
        rules = TokenizerRules.from_json(Path({str(path)!r}).read_text(encoding="utf-8"))
        print(json.dumps(Tokenizer(rules)({text!r}).words))
        print(json.dumps(sorted(name for name in ("spacy", "thinc") if name in sys.modules)))
        """
    words, imported = map(json.loads, run_python(code).strip().splitlines())
    assert words == [token.text for token in nlp.tokenizer(text)]
    assert imported == []
