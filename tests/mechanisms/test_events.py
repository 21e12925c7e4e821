"""emp-event: Earth Mover's privacy on the events of a text, written as plain sentences."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from authormask.audit.by_mechanism import emp_event
from authormask.audit.case_spec import Context
from authormask.audit.core import audit_case
from authormask.core import create_mechanism, release
from authormask.core.registry import create_noise_off
from authormask.embeddings import Embeddings
from authormask.mechanisms.events import (
    FRAMES,
    OBJECT_FORM,
    PRONOUNS,
    EMPEvent,
    Event,
    common_verbs,
    verb_lexicon,
    write_events,
)
from authormask.mechanisms.names import redraw_probability

P_FLOOR = 1e-6  # statistical tests fail only below this p-value (fixed seeds: never flaky)

STORY = (
    "The captain walked to the harbour at dawn. He found the boat and repaired the nets.\n\n"
    "The storm was seen by the fishermen. His daughter waited at the door with a lamp."
)


@pytest.fixture(scope="module")
def mech(glove_20k: Embeddings) -> EMPEvent:
    m = create_mechanism("emp-event", epsilon=6.0, embeddings=glove_20k, entities="keep")
    inner = m.inner if hasattr(m, "inner") else m
    assert isinstance(inner, EMPEvent)
    return inner


def _events(mech: EMPEvent, text: str) -> list[tuple[str, str, str, str]]:
    return [(e.agent, e.verb, e.frame, e.theme) for e in mech.prepare(text).events]


def test_the_rule_reads_agent_verb_frame_and_theme(mech: EMPEvent) -> None:
    assert _events(mech, STORY) == [
        ("captain", "walk", "to", "harbour"),
        ("he", "find", "direct", "boat"),
        ("he", "repair", "direct", "nets"),  # a conjoined verb takes its head's subject
        ("fishermen", "see", "direct", "storm"),  # a passive: the by-object is the agent
        ("daughter", "wait", "at", "door"),
    ]


def test_pronouns_are_read_in_their_subject_form_and_missing_arguments_stand_in(
    mech: EMPEvent,
) -> None:
    assert _events(mech, "She thanked him.") == [("she", "thank", "direct", "he")]
    assert _events(mech, "Run!") == [("someone", "run", "none", "something")]


def test_layout_moves_no_event(mech: EMPEvent) -> None:
    spread = STORY.replace(" ", "   ").replace(".", ".\n\n\t")
    assert mech.prepare(spread).events == mech.prepare(STORY).events


def test_the_writing_is_plain_past_sentences() -> None:
    events = [
        Event("captain", "walk", "to", "harbour"),
        Event("he", "find", "direct", "boat"),
        Event("he", "repair", "direct", "net"),
        Event("i", "see", "direct", "she"),
        Event("she", "thank", "direct", "i"),  # "me", never "I", as an object
        Event("anna", "sing", "none", "something"),
    ]
    text = write_events(events, frozenset({"anna"}))
    assert text == (
        "The captain walked to the harbour. He found the boat and repaired the net. "
        "I saw her. She thanked me. Anna sang."
    )


def test_the_noise_off_form_writes_the_texts_own_events(glove_20k: Embeddings) -> None:
    off = create_noise_off("emp-event", embeddings=glove_20k, entities="keep")
    out = release([STORY], off, random_state=1).texts[0]
    assert out.startswith("The captain walked to the harbour. He found the boat and repaired")
    assert "The fishermen saw the storm." in out


def test_released_words_come_from_the_public_lexicons(mech: EMPEvent) -> None:
    unit = mech.prepare(STORY)
    rngs = [np.random.default_rng(s) for s in range(40)]
    outs = mech.perturb([unit] * 40, rngs)
    past = {
        w: v
        for v in mech.verbs_out
        for w in [write_events([Event("i", v, "none", "i")], frozenset()).split()[1][:-1]]
    }
    for o in outs:
        for sentence_words in (o.words,):
            for w in sentence_words:
                assert (
                    w in mech.arguments_out
                    or w in mech.name_kernel.index  # type: ignore[union-attr]
                    or w in past
                    or w in OBJECT_FORM.values()
                ), w
        assert all(w in o.text.lower() for w in o.words)
    assert len({o.text for o in outs}) > 30  # the noise is drawn


def test_the_verb_and_argument_noise_is_theorem_2(mech: EMPEvent) -> None:
    """The radius of the noise is Gamma(n, 1/epsilon) (KS against the analytic law)."""
    emb = mech.embeddings
    for kernel in (mech.verb_kernel, mech.argument_kernel):
        assert kernel.epsilon == 6.0
        row = emb.index_of("walk")
        noisy = kernel.noisy_vectors([row] * 4000, random_state=np.random.default_rng(3))
        radius = np.linalg.norm(noisy - emb.vectors[row].astype(np.float64), axis=1)
        p = stats.kstest(radius, stats.gamma(a=emb.dimension, scale=1 / 6.0).cdf).pvalue
        assert p > P_FLOOR


def test_frames_go_through_randomized_response_at_frame_weight_times_epsilon(
    glove_20k: Embeddings,
) -> None:
    m = create_mechanism("emp-event", epsilon=4.0, frame_weight=0.5, embeddings=glove_20k)
    inner: EMPEvent = m.inner if hasattr(m, "inner") else m
    k = len(FRAMES)
    lam = redraw_probability(2.0, k)
    assert inner.frame_kernel.redraw == lam
    out = inner.frame_kernel.release(["with"] * 20_000, np.random.default_rng(5))
    kept = sum(f == "with" for f in out)
    expected = 20_000 * (1 - lam + lam / k)
    assert stats.binomtest(kept, 20_000, expected / 20_000).pvalue > P_FLOOR


def test_the_statement_depends_on_the_parameters_only(glove_20k: Embeddings) -> None:
    a = create_mechanism("emp-event", epsilon=6.0, embeddings=glove_20k)
    b = create_mechanism("emp-event", epsilon=6.0, embeddings=glove_20k)
    ra = release([STORY], a, random_state=1)
    rb = release(["A man sang."], b, random_state=2)
    assert ra.statement.to_dict() == rb.statement.to_dict()
    s = ra.statement.to_dict()
    assert "number E of events" in s["released_unchanged"]
    assert "harbour" not in str(s) and "captain" not in str(s)


def test_lexicons_are_public_rules() -> None:
    verbs, described = verb_lexicon()
    common, _ = common_verbs()
    assert {"walk", "find", "repair", "see", "wait"} <= verbs
    assert common <= verbs and len(common) > 1000
    assert "harbour" not in common and str(len(verbs)) in described
    assert set(PRONOUNS) >= {"he", "she", "they", "someone", "something"}


def test_every_case_of_the_audit_holds(cache_dir) -> None:
    ctx = Context(cache_dir=cache_dir)
    for spec in emp_event("emp-event"):
        case = spec.build(ctx)
        result = audit_case(case, samples=4000, random_state=7)
        assert result.passed and result.epsilon_lower_bound <= case.epsilon_stated, spec.case
        if spec.case == "frames-rr":  # tight: the bound is approached
            assert result.epsilon_lower_bound > 0.5 * case.epsilon_stated


def test_a_text_met_again_is_not_parsed_again(mech: EMPEvent, monkeypatch) -> None:
    from authormask.mechanisms import events

    calls = []
    real = events.document_events

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(events, "document_events", counting)
    events.remember_events(4096)  # the default (a page's test in this process may have set 0)
    text = "A lone sailor mended the sail at noon."
    first = mech.prepare(text)
    assert mech.prepare(text) == first and len(calls) == 1
    events.remember_events(0)  # as authormask serve sets it: nothing is remembered
    try:
        assert mech.prepare(text) == first and mech.prepare(text) == first
        assert len(calls) == 3
    finally:
        events.remember_events(4096)


def test_invisible_characters_move_no_event(mech: EMPEvent) -> None:
    """A reviewer's find: with --entities keep, a zero-width space inside 'captain' turned the
    agent into 'someone' and a soft hyphen dropped the event; the statement says they are
    removed first."""
    hidden = "The cap\u200btain wal\xadked to the har\u200dbour."
    assert mech.prepare(hidden).events == mech.prepare("The captain walked to the harbour.").events


def test_a_long_text_is_parsed_in_parts_of_words(mech: EMPEvent, monkeypatch) -> None:
    from authormask.mechanisms import events

    monkeypatch.setattr(events, "PART_WORDS", 6)
    text = "The captain walked to the harbour. He found the boat at dawn."
    assert _events(mech, text) == [
        ("captain", "walk", "to", "harbour"),
        ("he", "find", "direct", "boat"),
    ]


def test_parses_remembered_are_those_of_the_same_parser(glove_20k: Embeddings) -> None:
    """Two mechanisms with the same lexicons but another parser never share a parse."""
    from authormask.mechanisms import events

    events.remember_events(4096)
    real = create_mechanism("emp-event", epsilon=6.0, embeddings=glove_20k, entities="keep").inner

    class Blind:  # a parser that finds nothing
        def __call__(self, text: str) -> list[object]:
            return []

    blind = EMPEvent(
        embeddings=glove_20k,
        epsilon=6.0,
        nouns=real.arguments - frozenset(PRONOUNS),
        nouns_description="",
        verbs=real.verbs,
        verbs_description="",
        names=real.names,
        name_alphabet=real.name_kernel.alphabet,
        pipeline=Blind(),
    )
    assert blind._rule is real._rule  # the same lexicons: only the parser differs
    text = "The pilot landed the plane."
    assert real.prepare(text).events and not blind.prepare(text).events
    assert not blind.prepare("A sailor mended the sail.").events
    assert real.prepare("A sailor mended the sail.").events
