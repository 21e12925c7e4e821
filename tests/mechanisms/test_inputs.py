"""Entities replaced before any mechanism runs (issue 30, D): the registry wraps every mechanism
that reads the text; a seeded release stays byte-identical; surrogates come from the document's
secret randomness, never from the text, and differ between documents."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from authormask.cli.mechanism_options import parameter_flag
from authormask.core import MECHANISMS, create_mechanism, release
from authormask.core.registry import create_noise_off
from authormask.mechanisms import inputs
from authormask.mechanisms.inputs import EntityDocument, EntityInputs
from authormask.text.entities import load_recogniser, public_lists

EMAIL = """Hi Maria,

I met John Smith in Paris on 3 May 2021 at Google. Smith said the budget is 12,500 pounds.
Call me at +44 20 7946 0958 or mail john.smith@acme.co.uk.

Best,
Peter Jones"""
#: what the recogniser finds in it, and must never reach a mechanism under "surrogate"
SECRETS = ("Maria", "John", "Smith", "Paris", "Google", "12,500", "7946", "0958", "acme", "Peter")


@pytest.fixture(scope="module")
def recogniser():
    return load_recogniser()


def _has(text: str, word: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def test_every_mechanism_that_reads_the_text_takes_entities_with_surrogate_by_default() -> None:
    for name, spec in MECHANISMS.items():
        params = {p.name: p for p in spec.parameters}
        if name == "random-r":  # releases uniform tokens: no word of the text
            assert "entities" not in params
            continue
        assert params["entities"].default == "surrogate", name
        assert params["entities"].choices == ("surrogate", "keep", "mask")
    assert parameter_flag("entities") == "--entities"


def test_the_command_line_offers_entities(recogniser) -> None:
    import click

    from authormask.cli.mechanism_options import mechanism_options

    @click.command()
    @mechanism_options
    def command(**options):  # pragma: no cover - only its options are read
        pass

    option = next(p for p in command.params if p.name == "entities")
    assert list(option.type.choices) == ["surrogate", "keep", "mask"]


@pytest.mark.parametrize("name", ["emp-text", "emp-doc", "emp-write", "emp-bag"])
def test_no_entity_reaches_the_mechanism(glove_20k, recogniser, name: str) -> None:
    """With the noise off, the release is what the mechanism was given: under the default no
    name, number or address of the original is in it."""
    params = {"length": 5} if name == "emp-bag" else {}
    off = create_noise_off(name, embeddings=glove_20k, **params)
    assert isinstance(off, EntityInputs) and off.entities == "surrogate"
    texts = [release([EMAIL], off, random_state=seed).texts[0] for seed in (3, 4, 5, 6)]
    lists = public_lists()
    listed = {w.lower() for w in (*lists.given_names, *lists.surnames, *lists.places)}
    for word in SECRETS:
        found = [t for t in texts if _has(t, word)]
        if word.lower() not in listed:
            assert not found, (name, word, found)
        else:  # the lists hold common names: a surrogate drawn equal to one is chance
            assert len(found) <= 1, (name, word, found)
    kept = release([EMAIL], create_noise_off(name, embeddings=glove_20k, entities="keep", **params))
    assert _has(kept.texts[0], "smith")  # the same mechanism, entities kept: the name is there


def test_surrogates_are_drawn_from_the_lists_and_the_layout_stays(glove_20k, recogniser) -> None:
    off = create_noise_off("emp-text", embeddings=glove_20k, oov="keep")
    out = release([EMAIL], off, random_state=8).texts[0]
    assert out.count("\n") == EMAIL.count("\n")
    greeting = re.match(r"Hi (\w+),", out)
    lists = public_lists()  # a person's word: a given name or a surname (docs/entities.md)
    assert greeting is not None and greeting.group(1) in (*lists.given_names, *lists.surnames)
    # the address: its surrogate of the same form has other marks (x.y@example.org has one dot
    # fewer), which emp-text releases where they stand, so its words are filled, its marks kept
    (address,) = re.findall(r"mail (\S+)\.$", out, flags=re.MULTILINE)
    assert re.sub(r"\w", "", address) == re.sub(r"\w", "", "john.smith@acme.co.uk")
    assert not {"john", "smith", "acme"} & set(re.findall(r"\w+", address.lower()))
    assert re.search(r"\+\d\d \d\d \d{4} \d{4}", out)  # the phone number's form


def test_a_seeded_release_is_byte_identical_and_does_not_depend_on_the_batch(glove_20k) -> None:
    mech = create_mechanism("emp-text", epsilon=10, embeddings=glove_20k)
    other = "Dear Olga Ivanova, the parcel left Oslo on 2 June."
    a = release([EMAIL, other], mech, random_state=42)
    b = release(
        [EMAIL, other],
        create_mechanism("emp-text", epsilon=10, embeddings=glove_20k),
        random_state=42,
    )
    c = release([EMAIL, other, "A third note from Bergen."], mech, random_state=42)
    assert a.texts == b.texts == c.texts[:2]
    assert a.statement == b.statement
    assert release([EMAIL, other], mech, random_state=43).texts != a.texts


def test_one_entity_in_two_documents_gets_independent_surrogates(glove_20k) -> None:
    off = create_noise_off("emp-text", embeddings=glove_20k, oov="keep")
    texts = release(["Dear Anna Smith, thanks."] * 12, off, random_state=5).texts
    names = {re.match(r"Dear (\w+ \w+),", t).group(1) for t in texts}  # type: ignore[union-attr]
    assert len(names) >= 10  # 12 documents, 200 x 200 names: equal only by chance
    # a word of a name outside the vocabulary (kept as written under oov="keep", not given to
    # the noise) is dropped: a surrogate there would add a content word (issue 47)
    texts = release(["Dear Anna Kowalczyk, thanks."] * 8, off, random_state=5).texts
    assert not any("Kowalczyk" in t for t in texts)
    for t in texts:  # each word of the surrogate has the kinds of the word it stands for
        assert off.kinds(t) == off.kinds("Dear Anna Kowalczyk, thanks."), t


def test_the_surrogates_are_independent_of_the_mechanism_s_noise(glove_20k) -> None:
    """The document's generator is split: the mechanism's draws come from a child of their own,
    so its output for an entity-free document is the bare mechanism's, and the surrogates do
    not change when the mechanism's epsilon does."""
    low = EntityInputs(
        create_mechanism("emp-text", epsilon=1, embeddings=glove_20k, entities="keep")
    )
    high = EntityInputs(
        create_mechanism("emp-text", epsilon=1000, embeddings=glove_20k, entities="keep")
    )
    doc_low, doc_high = low.prepare(EMAIL), high.prepare(EMAIL)
    assert isinstance(doc_low, EntityDocument) and doc_low.found >= 9
    out_low = low.perturb([doc_low], [np.random.default_rng(7)])[0]
    out_high = high.perturb([doc_high], [np.random.default_rng(7)])[0]
    # epsilon 1000: every word released as itself; the greeting's surrogate is the same draw
    greeting = re.match(r"Hi (\w+),", out_high.text)
    assert greeting is not None and greeting.group(1) in public_lists().given_names
    assert out_low.text != out_high.text


def test_keep_gives_the_mechanism_s_own_units_and_draws(glove_20k) -> None:
    bare = create_mechanism("emp-text", epsilon=5, embeddings=glove_20k, entities="keep")
    assert isinstance(bare, EntityInputs)
    inner = bare.inner
    units = list(bare.prepare_parts([EMAIL]))
    mine = bare.perturb(units, [np.random.default_rng(1)] * len(units))
    theirs = inner.perturb(list(inner.prepare_parts([EMAIL])), [np.random.default_rng(1)])
    assert mine == theirs
    assert "diagnostics" not in bare.diagnostics(units[0])  # the mechanism's own counts
    assert bare.diagnostics(units[0]) == inner.diagnostics(units[0])


def test_mask_writes_types_and_draws_nothing_for_them(glove_20k) -> None:
    off = create_noise_off("emp-text", embeddings=glove_20k, entities="mask")
    out = release([EMAIL], off, random_state=1).texts[0]
    assert out.startswith("Hi [PERSON],")
    assert "[EMAIL]" in out and "[PHONE]" in out and "[DATE]" in out
    assert not any(_has(out, w) for w in SECRETS)


@pytest.mark.parametrize("entities", ["surrogate", "keep", "mask"])
def test_the_statement_says_what_is_done_and_what_remains(glove_20k, entities: str) -> None:
    mech = create_mechanism("emp-doc", epsilon=8, embeddings=glove_20k, entities=entities)
    statement = mech.statement(seeded=True)
    policy = statement.policies["entities"]
    assert policy.startswith(entities + ":")
    bare = mech.inner.statement(seeded=True)  # type: ignore[attr-defined]
    assert {k: v for k, v in statement.policies.items() if k != "entities"} == bare.policies
    assert statement.guarantee == bare.guarantee
    if entities == "keep":
        assert "protected by its noise only" in policy
    else:
        assert "What remains: that an entity stood there and its type" in policy
        assert "en_core_web_md 3.7.1" in policy
    if entities == "surrogate":
        assert "independently of the input" in policy and "Consistent within a document" in policy
        assert public_lists().identity in policy


def test_a_length_resolved_from_every_document_uses_the_positions_given(glove_20k) -> None:
    """emp-bag with N 'shortest' sees every document first: through the wrapper, its N is
    resolved from the texts the mechanism is given (the surrogates keep its positions, so the
    text's own; the masked text's, ``[PLACE]-based``, depended on what the recogniser found)
    and the registry learns it."""
    mech = create_mechanism(
        "emp-bag", epsilon=10, embeddings=glove_20k, length="shortest", fixed_length="sample"
    )
    assert mech.needs_all_documents
    out = release([EMAIL, "Olga Ivanova moved to Oslo in 2019 with her cat."], mech, random_state=2)
    n = out.statement.parameters["N"]
    assert all(len(d.words) == n for d in out.documents)
    text = "Olga Ivanova moved to Oslo in 2019."
    resolved = mech.with_length_from([mech.prepare(text)])
    assert isinstance(resolved, EntityInputs)
    k = len(mech.inner.content_kinds(text))
    assert k == len(mech.inner.content_kinds(mech.stepped_text(text, np.random.default_rng(0))))
    assert resolved.resolved_parameters() == {"length": k}
    assert not resolved.needs_all_documents


def test_an_invisible_character_inside_a_name_does_not_hide_it(glove_20k, recogniser) -> None:
    # found: the recogniser read the raw text, so "Jo\u200bhn" was not recognised, and the
    # mechanism's own cleaning then gave it "John"
    text = "Yesterday I talked to Jo\u200bhn about the plan. We flew to Pa\u202eris in May."
    off = create_noise_off("emp-text", embeddings=glove_20k)
    out = release([text], off, random_state=3).texts[0]
    for word in ("John", "Paris"):
        assert not _has(out, word), (word, out)


def test_the_documents_of_a_batch_go_to_the_mechanism_together(glove_20k, monkeypatch) -> None:
    """With the entity step the mechanism perturbs a batch's documents in one call (one search
    and one decoding), as it does without it, not one call a document; the release is the same
    as each document's alone at its position."""
    texts = [f"Olga Petrova met Ivan in Oslo on day {i}. The river was cold." for i in range(12)]
    mech = create_mechanism("emp-write", embeddings=glove_20k, epsilon=7.0)
    calls: list[int] = []
    inner = type(mech.inner)
    real = inner.perturb

    def counting(self, documents, rngs, *, progress=None):  # type: ignore[no-untyped-def]
        calls.append(len(documents))
        return real(self, documents, rngs, progress=progress)

    monkeypatch.setattr(inner, "perturb", counting)
    together = release(texts, mech, random_state=5)
    assert len(calls) == 1 and calls[0] >= 12, calls
    # each document's draws are its own: the same text as released alone at its position
    alone = [release(texts[: i + 1], mech, random_state=5).documents[i].text for i in (0, 5, 11)]
    assert [together.documents[i].text for i in (0, 5, 11)] == alone


def _in_small_batches(glove_20k, monkeypatch) -> tuple[str, Any, type, str]:  # type: ignore[no-untyped-def]
    """A text of 40 sentences with names, emp-text with the entity step reading it in parts of
    40 words (a unit each), its mechanism's class and its release (seed 4) in one batch; then
    batches of 30 units of work, a unit or so each."""
    monkeypatch.setattr(inputs, "PART_WORDS", 40)
    text = " ".join(f"Olga Petrova saw the {w} river near Oslo." for w in ("cold", "wide") * 20)
    mech = create_mechanism("emp-text", embeddings=glove_20k, epsilon=10.0)
    whole = release([text], mech, random_state=4).documents[0].text
    monkeypatch.setattr(inputs, "PERTURB_WORK", 30)
    return text, mech, type(mech.inner), whole


def test_the_next_batch_is_prepared_while_one_is_perturbed(glove_20k, monkeypatch) -> None:
    """Under the entity step a long document is handed to the mechanism a batch at a time, and
    the next batch's units (surrogates drawn, text prepared: Python) are taken while the
    mechanism perturbs one (its search leaves the interpreter's lock): the first batch's
    perturbation waits until a unit of the next is taken, which a release that prepared after
    perturbing never did (issue 50). The release is the one made a batch at a time in order."""
    import threading

    text, mech, inner, expected = _in_small_batches(glove_20k, monkeypatch)
    real_perturb, real_units = inner.perturb, inner.units
    started, taken_meanwhile = threading.Event(), threading.Event()
    calls: list[str] = []

    def perturb(self, documents, rngs, *, progress=None):  # type: ignore[no-untyped-def]
        first = not started.is_set()
        started.set()
        calls.append(threading.current_thread().name)
        if first and not taken_meanwhile.wait(10):
            raise AssertionError("no unit of the next batch was taken meanwhile")
        return real_perturb(self, documents, rngs, progress=progress)

    def units(self, unit):  # type: ignore[no-untyped-def]
        if started.is_set():
            taken_meanwhile.set()
        return real_units(self, unit)

    monkeypatch.setattr(inner, "perturb", perturb)
    monkeypatch.setattr(inner, "units", units)
    released = release([text], mech, random_state=4).documents[0].text
    assert len(calls) >= 3, calls
    assert released == expected


def test_a_release_of_one_batch_is_perturbed_in_its_own_thread(glove_20k, monkeypatch) -> None:
    """Where the documents hold one batch (a sentence, a post), the mechanism perturbs it in
    the release's thread: a second thread cost a one-sentence release 3-8 ms (issue 50)."""
    import threading

    mech = create_mechanism("emp-text", embeddings=glove_20k, epsilon=10.0)
    inner = type(mech.inner)
    real = inner.perturb
    threads: list[str] = []

    def perturb(self, documents, rngs, *, progress=None):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread().name)
        return real(self, documents, rngs, progress=progress)

    monkeypatch.setattr(inner, "perturb", perturb)
    release(["Olga Petrova saw the cold river near Oslo."], mech, random_state=1)
    assert threads == [threading.current_thread().name]


def test_an_error_while_the_next_batch_is_prepared_stops_the_batch_at_work(
    glove_20k, monkeypatch
) -> None:
    """An error (or Ctrl-C) while the next batch is prepared ends the release with it, and the
    batch perturbed meanwhile stops at its next progress: the release does not return while a
    thread of it still perturbs, and leaves none behind."""
    import threading

    text, mech, inner, _ = _in_small_batches(glove_20k, monkeypatch)
    real_perturb, real_units = inner.perturb, inner.units
    started, failed = threading.Event(), threading.Event()
    ended: list[str] = []

    def perturb(self, documents, rngs, *, progress=None):  # type: ignore[no-untyped-def]
        started.set()
        assert failed.wait(10)  # the error comes while this batch is at work
        try:
            progress(1)  # stops here: the release was given up
            ended.append("went on")
            return real_perturb(self, documents, rngs, progress=progress)
        except BaseException:
            ended.append("stopped")
            raise

    def units(self, unit):  # type: ignore[no-untyped-def]
        if started.is_set():
            failed.set()
            raise RuntimeError("a unit that cannot be prepared")
        return real_units(self, unit)

    monkeypatch.setattr(inner, "perturb", perturb)
    monkeypatch.setattr(inner, "units", units)
    with pytest.raises(RuntimeError, match="cannot be prepared"):
        release([text], mech, random_state=4)
    assert ended == ["stopped"]
    assert not [t for t in threading.enumerate() if t.name.startswith("authormask-perturb")]


@pytest.mark.parametrize("name", ["emp-text", "emp-write"])
def test_a_documents_units_are_counted_not_held_where_the_surrogates_keep_kinds(
    glove_20k, name: str
) -> None:
    """Under ``surrogate`` (the default), where the surrogates keep the mechanism's kinds, a
    prepared document holds what its units count, not the units (issue 50: a long document's
    units, every token of it for ``emp-text``, were held until it was released: 55 MB for a
    million characters); the counts are those of its units, and a document without entities
    (its units prepared again when it is released) is released as with ``keep``."""
    mech = create_mechanism(name, epsilon=9, embeddings=glove_20k)
    assert isinstance(mech, EntityInputs) and mech.entities == "surrogate"
    (document,) = mech.prepare_parts([EMAIL])
    assert isinstance(document, EntityDocument) and document.found > 0
    assert document.masked is None
    units = list(mech.inner.prepare_parts(document.parts))
    assert mech.units(document) == sum(mech.inner.units(u) for u in units) > 0
    words = mech.diagnostics(document)
    assert words["entities_replaced"] == document.found
    for key, value in mech.inner.diagnostics(units[0]).items():
        if isinstance(value, int) and not isinstance(value, bool):
            assert words[key] == sum(mech.inner.diagnostics(u)[key] for u in units)
    masked = create_mechanism(name, epsilon=9, embeddings=glove_20k, entities="mask")
    (held,) = masked.prepare_parts([EMAIL])
    assert held.masked is not None and len(held.masked) >= 1
    plain = "the river ran past the old mill and the children watched the water for hours."
    (none,) = mech.prepare_parts([plain])
    assert none.found == 0 and none.masked is None
    ours = mech.perturb([none], [np.random.default_rng(5)])
    own = list(mech.inner.prepare_parts([plain]))
    theirs = mech.inner.perturb(own, [np.random.default_rng(5)] * len(own))
    assert [(o.text, o.words) for o in ours] == [(o.text, o.words) for o in theirs]


def test_a_long_document_makes_the_mechanism_ready_while_its_names_are_read(
    glove_20k, monkeypatch
) -> None:
    """A document of a batch of work or more has the mechanism's ``make_ready`` (its search's
    kernels loaded) called once, in a second thread, with the document's work, once its units
    are counted and while the recogniser reads on (issue 50: the first batch waited most of a
    second for the kernels, one core idle); a shorter document calls it not at all. The release
    is the one made without it."""
    import threading

    text, mech, inner, expected = _in_small_batches(glove_20k, monkeypatch)
    calls: list[tuple[str, int]] = []
    real = inner.make_ready

    def make_ready(self, work):  # type: ignore[no-untyped-def]
        calls.append((threading.current_thread().name, work))
        real(self, work)

    monkeypatch.setattr(inner, "make_ready", make_ready)
    released = release([text], mech, random_state=4)
    assert released.documents[0].text == expected
    # joined before the first batch was perturbed: its loading never runs beside the release's
    assert not [t for t in threading.enumerate() if t.name == "authormask-ready"]
    (document,) = mech.prepare_parts([text])
    assert calls[0] == ("authormask-ready", mech.units(document))
    calls.clear()
    release(["Olga Petrova saw the cold river near Oslo."], mech, random_state=1)
    assert calls == []
