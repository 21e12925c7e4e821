"""Names, numbers and links found and replaced (issue 30, D): the packaged spaCy pipeline's
recogniser and the patterns, the public lists, and surrogates drawn from a generator alone."""

from __future__ import annotations

import itertools
import re
from typing import Any

import numpy as np
import pytest

from authormask.exceptions import InvalidParameterError
from authormask.text.entities import (
    DOMAINS,
    MASKS,
    Entity,
    Surrogates,
    check_entities_mode,
    find_patterns,
    load_recogniser,
    mask_entities,
    public_lists,
)

EMAIL = """Hi Maria,

I met John Smith in Paris on 3 May 2021 at Google. Smith said the budget is 12,500 pounds.
Call me at +44 20 7946 0958 or mail john.smith@acme.co.uk, see https://acme.co.uk/team.

Best,
Peter Jones
Acme Corporation"""


@pytest.fixture(scope="session")
def recogniser():
    """The packaged pipeline's recogniser (loaded once per process: seconds)."""
    return load_recogniser()


def _record_reads(monkeypatch: pytest.MonkeyPatch, on_read: Any) -> None:
    """The packaged recogniser, with ``on_read`` called with the texts of each of its batches."""
    import authormask.text.entities as entities

    real = entities._pipeline()

    class Recording:
        def pipe(self, texts):
            texts = list(texts)
            on_read(texts)
            return real.pipe(texts)

    monkeypatch.setattr(entities, "_pipeline", lambda: Recording())


def _found(recogniser, text: str) -> dict[str, str]:
    return {e.text: e.kind for e in recogniser.find(text)}


def test_patterns_find_each_kind_without_overlaps() -> None:
    text = (
        "Mail jo.k@example.org or see www.example.org/a on 2024-06-18 and 3rd of March 2020; "
        "call +1 416 555 0193 about 1,250.50 units at 10:30."
    )
    found = [(e.kind, e.text) for e in find_patterns(text)]
    assert found == [
        ("email", "jo.k@example.org"),
        ("url", "www.example.org/a"),
        ("date", "2024-06-18"),
        ("date", "3rd of March 2020"),
        ("phone", "+1 416 555 0193"),
        ("number", "1,250.50"),
        ("number", "10:30"),
    ]
    for e in find_patterns(text):
        assert text[e.start : e.end] == e.text


def test_a_short_run_of_digits_is_a_number_not_a_phone() -> None:
    assert [e.kind for e in find_patterns("room 4 12 and 555-1234")] == [
        "number",
        "number",
        "phone",
    ]


def test_the_recogniser_finds_people_places_organisations_and_patterns(recogniser) -> None:
    found = _found(recogniser, EMAIL)
    assert found["Maria"] == "person"
    assert found["John Smith"] == "person"
    assert found["Paris"] == "place"
    assert found["Google"] == "organisation"
    assert found["3 May 2021"] == "date"
    assert found["12,500"] == "number"
    assert found["+44 20 7946 0958"] == "phone"
    assert found["john.smith@acme.co.uk"] == "email"
    assert found["https://acme.co.uk/team"] == "url"
    # the signature: one entity per line, so the layout stays
    assert found["Peter Jones"] in ("person", "organisation")
    assert all("\n" not in text for text in found)


def test_a_name_found_once_is_taken_wherever_it_stands(recogniser) -> None:
    """The recogniser finds ``Raman`` in the name and once alone; ``Raman?`` and ``RAMAN`` are
    taken because the name was found, the word ``raman`` in lower case is not."""
    text = "Meeting with Priya Raman. Raman? Notes: raman, Raman. RAMAN!"
    entities = recogniser.find(text)
    assert [e.text for e in entities] == ["Priya Raman", "Raman", "Raman", "RAMAN"]
    assert entities[0].kind == "person"
    # no overlaps, in text order, spans exact
    for a, b in itertools.pairwise(entities):
        assert a.end <= b.start
    assert all(text[e.start : e.end] == e.text for e in entities)


def test_the_recogniser_is_deterministic_and_batched_as_one_by_one(recogniser) -> None:
    texts = [EMAIL, "Nothing to see here.", "Dear Olga Ivanova, welcome to Oslo."]
    assert list(recogniser.find_all(texts, batch_size=2)) == [recogniser.find(t) for t in texts]


def test_a_text_read_again_is_not_read_by_the_pipeline_again(recogniser, monkeypatch) -> None:
    """The same story at the next epsilon of an evaluation costs no second recognition."""
    import authormask.text.entities as entities

    entities.remember_texts(4096)  # a page built in this process remembers none
    text = "Dear Ingrid Halvorsen, the ferry from Bergen leaves at noon. " * 3
    first = recogniser.find(text)
    read: list[str] = []
    _record_reads(monkeypatch, read.extend)
    again = list(recogniser.find_all([text, "Olga flew to Oslo.", text]))
    assert again[0] == first == again[2]
    assert read == ["Olga flew to Oslo."]
    assert {e.text for e in first} >= {"Ingrid Halvorsen", "Bergen"}


def test_the_public_lists_are_packaged_and_large() -> None:
    lists = public_lists()
    for entries in (lists.given_names, lists.surnames, lists.places):
        assert len(entries) >= 150
        assert len(set(entries)) == len(entries)
    assert len(lists.organisations) >= 30
    assert all("{" not in e or "{surname}" in e or "{place}" in e for e in lists.organisations)
    assert re.search(r"sha256 [0-9a-f]{16}", lists.identity)


def test_surrogates_depend_on_the_generator_not_on_the_entity() -> None:
    """Two different names at the same place in two documents, drawn with generators of the
    same seed, get the same surrogate: nothing of the name itself is read."""
    for kind, a, b in (
        ("person", "Maria", "Xavier"),
        ("place", "Paris", "Reykjavik"),
        ("organisation", "Google", "Siemens"),
        ("organisation", "Acme Corporation", "Hollis Grange"),
        ("email", "jo@acme.org", "someone.else@mail.example"),
    ):
        one = Surrogates(np.random.default_rng(5)).surrogate(Entity(0, len(a), kind, a))
        two = Surrogates(np.random.default_rng(5)).surrogate(Entity(0, len(b), kind, b))
        assert one == two, kind
        assert one not in (a, b)


def test_surrogates_are_consistent_within_a_document_and_drawn_afresh_for_the_next() -> None:
    lists = public_lists()
    doc = Surrogates(np.random.default_rng(11))
    full = doc.surrogate(Entity(0, 10, "person", "John Smith"))
    given, surname = full.split()
    assert given in lists.given_names and surname in lists.surnames
    assert doc.surrogate(Entity(0, 5, "person", "Smith")) == surname  # the same word
    assert doc.surrogate(Entity(0, 4, "person", "John")) == given
    # two different people of one document get different names while the list lasts
    others = {doc.surrogate(Entity(0, 4, "person", f"P{i}")) for i in range(100)}
    assert len(others) == 100 and given not in others
    place = doc.surrogate(Entity(0, 5, "place", "Paris"))
    assert doc.surrogate(Entity(0, 5, "place", "PARIS")) == place.upper()
    # the next document draws afresh: over 20 documents, one name gets many surrogates
    drawn = {
        Surrogates(np.random.default_rng(100 + i)).surrogate(Entity(0, 5, "person", "Maria"))
        for i in range(20)
    }
    assert len(drawn) >= 15


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("number", "12,500.75"),
        ("number", "2021"),
        ("phone", "+44 20 7946 0958"),
        ("phone", "(020) 7946-0958"),
    ],
)
def test_numbers_keep_their_form_with_random_digits(kind: str, text: str) -> None:
    form = re.sub(r"\d", "d", text)
    seen = set()
    for seed in range(20):
        out = Surrogates(np.random.default_rng(seed)).surrogate(Entity(0, len(text), kind, text))
        assert re.sub(r"\d", "d", out) == form
        if kind == "number":  # a run of several digits never starts with 0
            assert all(not run.startswith("0") for run in re.findall(r"\d{2,}", out))
        seen.add(out)
    assert len(seen) == 20


def test_dates_get_random_numbers_and_months_in_the_same_style() -> None:
    for seed in range(20):
        s = Surrogates(np.random.default_rng(seed))
        iso = s.surrogate(Entity(0, 10, "date", "2021-05-03"))
        assert re.fullmatch(r"(19[7-9]\d|20[0-2]\d)-(0[1-9]|1[0-2])-(0[1-9]|1[0-2])", iso)
        long = s.surrogate(Entity(0, 13, "date", "3rd of March 2020"))
        m = re.fullmatch(r"(\d+)(st|nd|rd|th) of ([A-Z][a-z]+) (\d{4})", long)
        assert m is not None, long
        day = int(m.group(1))
        assert m.group(2) == {1: "st", 2: "nd", 3: "rd"}.get(day if day < 4 else 0, "th")
        assert (
            m.group(3)
            in (
                "January February March April May June July August September October November "
                "December"
            ).split()
        )
        short = s.surrogate(Entity(0, 8, "date", "Jan 2020"))
        assert re.fullmatch(r"[A-Z][a-z]{2} \d{4}", short), short


def test_a_month_alone_is_a_date_where_the_recogniser_reads_one(recogniser) -> None:
    # a newcomer's "in June" was left as written: the patterns take a month with a day or a
    # year only; the recogniser's DATE decides, so a verb or an adjective stays
    months = set(
        "January February March April May June July August September October November "
        "December".split()
    )

    def dates(text: str) -> list[str]:
        return [e.text for e in recogniser.find(text) if e.kind == "date"]

    assert dates("We met in June and again last March.") == ["June", "March"]
    assert dates("The report is due in August.") == ["August"]
    assert dates("IN JUNE WE LEFT.") == ["JUNE"]
    assert dates("May I come in? We march on.") == []
    assert dates("He was august and wise.") == []  # lower case: no month, whatever it reads
    assert dates("April Smith came in May 2020.") == ["May 2020"]  # a person, then a date
    drawn = set()
    for seed in range(80):
        s = Surrogates(np.random.default_rng(seed))
        word = s.surrogate(Entity(0, 4, "date", "June"))
        assert word in months, word
        drawn.add(word)
        assert s.surrogate(Entity(0, 4, "date", "JUNE")).isupper()
    assert drawn == months  # every month is drawn: not the entity's own


def test_a_weekday_is_part_of_a_date_and_gets_a_random_weekday() -> None:
    # a newcomer's "last Tuesday" and "Saturday, 14 March 2026" kept their weekdays (which, with
    # the day and month, can give the year); a weekday is now a date, alone or before one
    found = [
        (e.kind, e.text) for e in find_patterns("See you last Tuesday, or Saturday, 14 March 2026.")
    ]
    assert found == [("date", "Tuesday"), ("date", "Saturday, 14 March 2026")]
    assert [e.text for e in find_patterns("on mondays and FRIDAY")] == ["mondays", "FRIDAY"]
    assert find_patterns("Sundays are for monday-ish moods")[0].text == "Sundays"
    days = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
    drawn = set()
    for seed in range(60):
        s = Surrogates(np.random.default_rng(seed))
        full = s.surrogate(Entity(0, 23, "date", "Saturday, 14 March 2026"))
        m = re.fullmatch(r"([A-Z][a-z]+), (\d+) ([A-Z][a-z]+) (\d{4})", full)
        assert m is not None and m.group(1) in days, full
        drawn.add(m.group(1))
        assert s.surrogate(Entity(0, 7, "date", "tuesday")).islower()
    assert drawn == set(days)  # every weekday is drawn: not the entity's own


def test_links_become_addresses_at_reserved_example_domains() -> None:
    s = Surrogates(np.random.default_rng(3))
    email = s.surrogate(Entity(0, 16, "email", "jo.k@company.com"))
    local, domain = email.split("@")
    assert domain in DOMAINS and "." in local and "jo" not in local.split(".")
    url = s.surrogate(Entity(0, 25, "url", "https://acme.co.uk/team/7"))
    assert re.fullmatch(r"https://www\.example\.(com|org|net)/[a-z]+", url)
    assert re.fullmatch(
        r"www\.example\.(com|org|net)", s.surrogate(Entity(0, 9, "url", "www.x.io"))
    )


def test_mask_writes_each_entity_s_type(recogniser) -> None:
    masked = mask_entities(EMAIL, recogniser.find(EMAIL))
    for word in ("Maria", "John", "Smith", "Paris", "Google", "12,500", "acme", "7946"):
        assert word not in masked
    assert "Hi [PERSON]," in masked
    assert masked.count(MASKS["person"]) + masked.count(MASKS["organisation"]) >= 5
    assert MASKS["email"] in masked and MASKS["url"] in masked and MASKS["phone"] in masked
    assert masked.count("\n") == EMAIL.count("\n")


def test_surrogate_text_keeps_the_layout_and_leaves_no_entity(recogniser) -> None:
    entities = recogniser.find(EMAIL)
    out = Surrogates(np.random.default_rng(1)).text(EMAIL, entities)
    for e in entities:
        assert not re.search(rf"(?<!\w){re.escape(e.text)}(?!\w)", out), e
    assert out.count("\n") == EMAIL.count("\n")
    assert out.startswith("Hi ") and "\n\nBest,\n" in out


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(InvalidParameterError, match="entities must be one of surrogate"):
        check_entities_mode("remove")


def test_a_name_found_in_lower_case_is_taken_in_lower_case_too(recogniser) -> None:
    """A name the recogniser found written in lower case (``negan``) is taken wherever it stands
    so; a name found only with a capital never takes the lower-case word."""
    text = "negan waved. Later the negan fans met Rose, who rose early."
    found = [Entity(0, 5, "person", "negan"), Entity(38, 42, "person", "Rose")]
    taken = {(e.start, e.text) for e in recogniser._elsewhere(text, found)}
    assert (0, "negan") in taken and (23, "negan") in taken
    assert (38, "Rose") in taken and all(t != "rose" for _, t in taken)


def _elsewhere_by_definition(recogniser, text: str, named: list[Entity]) -> list[Entity]:
    """The docstring's rule read literally: each form's own whole-word pattern, in any case,
    over the whole text (longest form first), kept where it starts with a capital or stands as
    it was found (the forms are the recogniser's own)."""
    forms, seen = recogniser._forms(named)
    out = []
    for form in sorted(forms, key=len, reverse=True):
        pattern = re.compile(rf"(?<!\w){re.escape(form)}(?!\w)", re.IGNORECASE)
        out.extend(
            Entity(m.start(), m.end(), forms[form], m.group(0))
            for m in pattern.finditer(text)
            if m.group(0)[0].isupper() or m.group(0) in seen
        )
    return out


@pytest.mark.parametrize(
    "text",
    [
        "a a a. A a a, a-a a_a",
        "Irmak \u0131rmak IRMAK irmak \u0130rmak Irmak's",
        "Stra\u00dfe strasse STRASSE \u017ftra\u00dfe Strasse-Nord",
        "John Smith met Smith and SMITH and smith. John-Smith, JohnSmith, (John) 'Smith'",
        "Ann Ann-Marie Ann Marie ann Ann Ann Ann",
        "New York New York York new york Newyork",
        "Kelvin \u212aelvin KELVIN kelvin",
        EMAIL,
    ],
)
def test_other_occurrences_are_those_of_each_form_s_own_pattern(recogniser, text: str) -> None:
    """Every other occurrence of a name is found where the name's own whole-word pattern (in any
    case, no overlaps) finds it, in the same order: one pass a length of form finds the places
    (a speed-up), including letters whose case folds outside ASCII (a dotless i, a long s, the
    Kelvin sign)."""
    spans = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"\w+(?:[ -]\w+)?", text)]
    for k in range(30):
        rng = np.random.default_rng(k)
        named = [
            Entity(a, b, str(rng.choice(["person", "place", "organisation"])), w)
            for a, b, w in spans
            if rng.random() < 0.4
        ]
        assert recogniser._elsewhere(text, named) == _elsewhere_by_definition(
            recogniser, text, named
        )


# --- links written without a scheme, and e-mail addresses written so that a robot misses them


@pytest.mark.parametrize(
    ("text", "kind", "found"),
    [
        ("see example.com/path for more", "url", "example.com/path"),
        ("at acme.co.uk/team/7?x=1.", "url", "acme.co.uk/team/7?x=1"),
        ("Visit acme-corp.com today", "url", "acme-corp.com"),
        ("Visit acme.co.uk.", "url", "acme.co.uk"),
        ("(mirror at files.example.net:8080/a)", "url", "files.example.net:8080/a"),
        ("see www.example.org today", "url", "www.example.org"),
        ("WWW.EXAMPLE.ORG", "url", "WWW.EXAMPLE.ORG"),
        ("mail jane [at] example [dot] com now", "email", "jane [at] example [dot] com"),
        ("mail jane(at)example.com now", "email", "jane(at)example.com"),
        ("mail jane at example dot com now", "email", "jane at example dot com"),
        ("JANE AT EXAMPLE DOT COM", "email", "JANE AT EXAMPLE DOT COM"),
        (
            "j.doe {at} mail {dot} example {dot} org.",
            "email",
            "j.doe {at} mail {dot} example {dot} org",
        ),
        ("jane[at]example[dot]co[dot]uk", "email", "jane[at]example[dot]co[dot]uk"),
        ("jane <AT> example <DOT> com", "email", "jane <AT> example <DOT> com"),
        ("jane@example[dot]com", "email", "jane@example[dot]com"),
        ("jane (at) example.org", "email", "jane (at) example.org"),
    ],
)
def test_links_without_a_scheme_and_obfuscated_addresses_are_found(
    text: str, kind: str, found: str
) -> None:
    """Found by an independent audit: a URL without a scheme (``example.com/path``) and an
    e-mail address written against robots (``jane [at] example [dot] com``) were not found, so
    they reached the mechanism as words (and a domain as a word is often out of vocabulary)."""
    entities = [(e.kind, e.text) for e in find_patterns(text)]
    assert (kind, found) in entities, entities
    for e in find_patterns(text):
        assert text[e.start : e.end] == e.text


@pytest.mark.parametrize(
    "text",
    [
        "look at this dot",
        "I looked at the dot com bubble.",
        "We met at noon. The dot on the map was red.",
        "He stared at a dot com ad.",
        "Let's look at it dot by dot.",
        "Read the report.pdf and main.py first.",
        "e.g. this, i.e. that; a.m. or p.m., U.S. and Ph.D. students.",
        "The end.Then it started again.",
        "Version 1.2.3/4 and 3.5/10 scores.",
        "He was at home. Dot arrived at six.",
        "at example dot",
        "jane at example dot c0m",
    ],
)
def test_ordinary_prose_is_not_a_link(text: str) -> None:
    assert [e for e in find_patterns(text) if e.kind in ("email", "url")] == []


def test_an_obfuscated_address_gets_a_surrogate_of_as_many_words() -> None:
    """The surrogate of an address written with spaces keeps its words and whitespace (the
    layout and word count stay, as for every surrogate), writes its separators one way
    (``[at]``, ``[dot]``) whatever the entity used, and is at a reserved example domain; one
    written without spaces becomes a plain address."""
    for text in (
        "jane [at] example [dot] com",
        "jane at example dot com",
        "JANE  (AT)  EXAMPLE {dot} COM",
        "j.doe [at] mail [dot] example [dot] org",
        "jane (at) example.org",
    ):
        for seed in range(5):
            out = Surrogates(np.random.default_rng(seed)).surrogate(
                Entity(0, len(text), "email", text)
            )
            assert re.findall(r"\s+", out) == re.findall(r"\s+", text), (text, out)
            assert "jane" not in out.lower() and "doe" not in out.lower()
            assert re.fullmatch(r"[a-z]+\.[a-z]+\s+\[at\]\s+\S.*", out), out
            plain = re.sub(r"\s*\[dot\]\s*", ".", re.sub(r"\s*\[at\]\s*", "@", out))
            assert re.fullmatch(r"[a-z]+\.[a-z]+@([a-z]+\.)*example\.(com|org|net)", plain), out
    one = Surrogates(np.random.default_rng(1)).surrogate(
        Entity(0, 19, "email", "jane(at)example.com")
    )
    local, domain = one.split("@")
    assert domain in DOMAINS and "." in local
    # two spellings of one address are two entities (their texts differ), each at a reserved domain
    s = Surrogates(np.random.default_rng(2))
    url = s.surrogate(Entity(0, 16, "url", "example.com/path"))
    assert re.fullmatch(r"example\.(com|org|net)/[a-z]+", url), url
    assert re.fullmatch(r"example\.(com|org|net)", s.surrogate(Entity(0, 10, "url", "acme.co.uk")))


def test_the_recogniser_takes_obfuscated_addresses_before_names(recogniser) -> None:
    text = "Write to Jane Doe at jane [at] acme-mail [dot] com or see acme-mail.com/jobs."
    found = _found(recogniser, text)
    assert found["jane [at] acme-mail [dot] com"] == "email"
    assert found["acme-mail.com/jobs"] == "url"
    out = Surrogates(np.random.default_rng(3)).text(text, recogniser.find(text))
    assert "jane" not in out.lower() and "acme" not in out.lower()
    assert len(out.split()) == len(text.split())


@pytest.mark.parametrize(
    "text",
    [
        "It rose this year.it was a good year.",
        "Shares of DTK.CN and BCE.TO fell.",
        "See Section 2.3.US rules apply.",
    ],
)
def test_a_run_on_sentence_or_a_ticker_is_not_a_link(text: str) -> None:
    """Found on Reuters C50: ``year.it`` (a missing space) and the stock code ``DTK.CN`` read
    as hosts."""
    assert [e for e in find_patterns(text) if e.kind == "url"] == []
    assert [e.text for e in find_patterns("see corriere.it/news or www.corriere.it")] == [
        "corriere.it/news",
        "www.corriere.it",
    ]


def test_windows_cover_every_word_once_and_cut_after_sentence_ends() -> None:
    from authormask.text.entities import recognition_windows

    rng = np.random.default_rng(3)
    words = [f"w{i}" + ("." if rng.random() < 0.05 else "") for i in range(5000)]
    text = "  ".join(" ".join(words[i : i + 7]) + "\n" for i in range(0, 5000, 7))
    windows = recognition_windows(text, words=300)
    covered = [w for a, b in windows for w in text[a:b].split()]
    assert covered == text.split()  # every word once, in order
    assert all(len(text[a:b].split()) <= 300 for a, b in windows)
    assert all(text[a:b] == text[a:b].strip() for a, b in windows)
    # every window but the last ends a sentence where its second half has a sentence end
    for a, b in windows[:-1]:
        inside = text[a:b].split()
        if any(w.endswith(".") for w in inside[len(inside) // 2 :]):
            assert inside[-1].endswith(".")
    assert recognition_windows("A short text.") == [(0, len("A short text."))]


def test_the_recogniser_never_reads_more_than_a_window_at_once(recogniser, monkeypatch) -> None:
    """A long text is read in windows of at most WINDOW_WORDS words (issue 50: the recogniser's
    memory grows with the words it reads at once, 364 MB more for a part of 8,192 words); the
    names of every window are found, at their places in the text."""
    import authormask.text.entities as entities

    monkeypatch.setattr(entities, "_SEEN_TEXTS", 0)  # read it, even if read before
    sentence = "Dear Ingrid Halvorsen, the ferry from Bergen leaves at noon for the island. "
    text = sentence * 400  # 5,200 words
    batches: list[int] = []
    _record_reads(monkeypatch, lambda texts: batches.append(sum(len(t.split()) for t in texts)))
    found = recogniser.find(text)
    assert len(batches) >= 5
    assert max(batches) <= entities.WINDOW_WORDS + 2 * entities.WINDOW_OVERLAP
    people = [e for e in found if e.text == "Ingrid Halvorsen"]
    places = [e for e in found if e.text == "Bergen"]
    assert len(people) == len(places) == 400
    assert all(text[e.start : e.end] == e.text for e in found)


def test_the_names_trie_finds_the_positions_of_the_plain_alternation() -> None:
    """``_any_of`` writes the alternation of a document's names as a trie (issue 50: thousands
    of names in one long document took seconds a part): the same positions, case and
    whole-word rules included, as ``form1|form2|...``."""
    import random

    from authormask.text.entities import _any_of

    rng = random.Random(1)
    for trial in range(400):
        length = rng.randint(1, 5)
        forms = tuple(
            {
                "".join(rng.choice("abé'-. ") for _ in range(length))
                for _ in range(rng.randint(1, 15))
            }
        )
        text = "".join(rng.choice("abcABÉé'- .\n") for _ in range(400))
        plain = re.compile(
            rf"(?<!\w)(?=(?:{'|'.join(re.escape(f) for f in forms)})(?!\w))", re.IGNORECASE
        )
        want = [m.start() for m in plain.finditer(text)]
        assert [m.start() for m in _any_of(forms).finditer(text)] == want, (trial, forms)


def test_a_name_across_a_window_cut_is_read_whole(recogniser, monkeypatch) -> None:
    """A cut at the word limit (lines without a sentence end: chat, lists, notes) fell between
    ``Stephen`` and ``King``, and ``King`` stayed in the text (found by review); each window is
    read with words of its neighbours, so the name is found whole, as in the whole text."""
    import authormask.text.entities as entities

    monkeypatch.setattr(entities, "_SEEN_TEXTS", 0)
    text = "- ok see you then\n" * 204 + "- i met Stephen King at the station\n"
    text += "- ok see you then\n" * 10
    windows = entities.recognition_windows(text)
    assert len(windows) == 2 and text[windows[0][0] : windows[0][1]].endswith("Stephen")
    found = recogniser.find(text)
    monkeypatch.setattr(entities, "WINDOW_WORDS", 10**6)
    whole = recogniser.find(text + " ")  # another text: read again, in one window
    assert [(e.text, e.kind) for e in found] == [(e.text, e.kind) for e in whole]
    assert ("Stephen King", "person") in [(e.text, e.kind) for e in found]


def test_a_text_is_read_in_batches_of_its_own_whatever_is_read_beside_it(
    recogniser, monkeypatch
) -> None:
    """The recogniser's products are numpy's (issue 50), whose sums for one row may depend on
    how many rows the batch holds: so a batch never mixes texts, and a text is read in the same
    batches whether it is read alone, among others (a second process reads a whole document's
    parts at once) or after them; what is found in it is its own."""
    import authormask.text.entities as entities

    monkeypatch.setattr(entities, "_SEEN_TEXTS", 0)  # read each, even if read before
    calls: list[list[str]] = []
    _record_reads(monkeypatch, calls.append)
    short = "Kofi Annan met Ingrid Halvorsen in Geneva. They spoke of Bergen."
    long = "Dear Ingrid Halvorsen, the ferry from Bergen leaves at noon for the island. " * 120
    other = "Margaret Thatcher flew to Oslo on Tuesday with Jean-Paul Sartre."

    third = "Oslo was cold when the delegation from Lagos arrived with Maria Santos."

    def batches_of(texts: list[str], which: str) -> tuple[list[list[str]], tuple[Entity, ...]]:
        calls.clear()
        found = list(recogniser.find_all(texts))
        mine = [c for c in calls if any(piece in which for piece in c)]
        return mine, found[texts.index(which)]

    for text in (short, long):
        alone, found_alone = batches_of([text], text)
        among, found_among = batches_of([other, text, third], text)
        assert alone == among and found_alone == found_among
        for call in calls:  # no batch reads two texts
            assert any(all(piece in t for piece in call) for t in (other, text, third))
    assert len(batches_of([long], long)[0]) >= 2  # the long one: several windows, its own


def test_entities_are_taken_as_one_by_one_comparison_takes_them() -> None:
    """The sorted index of entities taken (issue 50: quadratic in a long document's names)
    keeps exactly what comparing each new entity with every one taken keeps."""
    from authormask.text.entities import Entity, _take, _Taken

    rng = np.random.default_rng(5)
    for _ in range(200):
        taken = _Taken()
        plain: list[Entity] = []
        for _ in range(int(rng.integers(1, 60))):
            start = int(rng.integers(0, 100))
            e = Entity(start, start + int(rng.integers(0, 8)), "person", "x")
            kept = e.start < e.end and not any(e.start < o.end and o.start < e.end for o in plain)
            if kept:
                plain.append(e)
            assert _take(taken, e) == kept
        assert list(taken) == plain
        for _ in range(20):  # and the spans overlapping a stretch are those found one by one
            start = int(rng.integers(0, 100))
            end = start + int(rng.integers(1, 30))
            spans = sorted((o.start, o.end) for o in plain if o.start < end and start < o.end)
            assert taken.overlapping(start, end) == spans


def test_other_occurrences_are_every_whole_word_match_of_each_form() -> None:
    """The other occurrences of names (found in one pass for every form since issue 50, where
    a long document's many lengths of names took a pass each) are, form by form, longest
    first, every whole-word match in any case, as a form's own pattern finds them: in
    non-ASCII text and forms too (a dotless i, a long s, the Kelvin sign, a ligature)."""
    from authormask.text.entities import Entity, Recogniser

    recogniser = Recogniser()
    # a dotless i, a long s, the Kelvin sign, a fullwidth I
    names = ["İstanbul", "\u0131van", "Straße", "Kelvin Smith", "Smith", "\u017fam", "SAM", "Ann",
             "Anna", "Anna-Lena", "Ōsaka", "O'Neill", "Ivan", "ǅemal", "Jo"]  # fmt: skip
    pieces = [*names, "ivan", "IVAN", "sam", "strasse", "istanbul", "\u212aelvin smith",
              "smithy", "_smith", "Ann_", "annA", "ǆemal", "\uff29van", "jo", "Jo-Jo"]  # fmt: skip
    rng = np.random.default_rng(9)

    def reference(text: str, named: list[Entity]) -> list[Entity]:
        forms, seen = recogniser._forms(named)
        out = []
        for form in sorted(forms, key=len, reverse=True):
            pattern = re.compile(rf"(?<!\w){re.escape(form)}(?!\w)", re.IGNORECASE)
            end = 0
            for at in range(len(text)):
                if at >= end and pattern.match(text, at):
                    end = at + len(form)
                    if text[at].isupper() or text[at:end] in seen:
                        out.append(Entity(at, end, forms[form], text[at:end]))
        return out

    for _ in range(300):
        words = rng.choice(pieces, size=int(rng.integers(1, 25)))
        gaps = rng.choice([" ", "", ",", "\n", "-"], size=len(words))
        text = "".join(w + g for w, g in zip(words, gaps, strict=True))
        chosen = rng.choice(names, size=int(rng.integers(1, 5)))
        named = [Entity(0, len(n), str(rng.choice(["person", "place"])), str(n)) for n in chosen]
        assert recogniser._elsewhere(text, named) == reference(text, named)
