"""One contract, every mechanism (issue 31 B): a battery run over every name of the registry
(:func:`~authormask.core.mechanism_names`), as scikit-learn's ``parametrize_with_checks``
runs one over every estimator, so a new mechanism is tested by being registered.

Every check builds the mechanism from its registry spec alone: the parameters a user must give
are derived from the spec (a value inside the range of a number, the first of its choices);
only what names something that must exist (word vectors, a trained model) comes from the small
tables below. A registered mechanism whose required parameter the battery cannot supply fails
every check with a message saying what to add; it is never skipped.

The contracts:

1. its statement is public: JSON, byte-identical whatever the input and the seed, known before
   any input (``mechanism.statement``), and holds no input word, no seed digit and no path;
2. the seed never leaks: not in a released text, word, bag, figure or statement;
3. same seed, same bytes (two mechanisms built alike); another seed, another release;
4. a bad value of a number or of a choice is refused by an ``InvalidParameterError`` of one
   line that names the parameter, the value and what is allowed (so is a parameter given where
   the spec declares it is not read, :attr:`~authormask.core.specs.Parameter.only_with`);
5. the noise-off form releases the mechanism's own preparation, whatever the seed (a mechanism
   without one is refused cleanly, and declares no samplers);
6. it has an audit case, and a cheap one passes with a few thousand draws;
7. its spec round-trips: its JSON form is stable, reads back as the same spec, and describes
   exactly the parameters ``create_mechanism`` takes, their kinds, defaults, ranges and
   choices; what it declares of the mechanism (what the release is, what epsilon measures,
   its seed code, its noise-off form, its audit cases, its help) is consistent with the
   mechanism it builds.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

import authormask
from authormask.audit.case_spec import Context
from authormask.audit.cases import AUDITORS
from authormask.audit.core import audit_case
from authormask.core import Release, mechanism_names, mechanism_spec, release
from authormask.core.registry import (
    BUILTIN,
    MECHANISMS,
    ParameterMismatchError,
    Recipe,
    check_parameters,
    create_mechanism,
    create_noise_off,
    recipe_of,
)
from authormask.core.specs import MechanismSpec, Parameter
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, Mechanism, NoiseOff
from authormask.mechanisms.inputs import EntityDocument, EntityInputs

# --- what the battery releases -------------------------------------------------------------

#: the secret seed of the releases: its digits must never be published
SEED = 8_675_309_123
#: other seeds: at least one must give another release of a mechanism with noise
OTHER_SEEDS = (11, 12, 13)
#: words planted in the inputs; no statement may hold them
MARKERS = ("elephant", "submarine")
#: two inputs of 80 words, every word in the 20,000 most frequent of GloVe and no entity the
#: recogniser finds (so the noise-off form is the preparation itself), with at least 40 content
#: words (``emp-bag``'s default N)
TEXT_A = (
    "The committee approved the budget for schools and hospitals after a long afternoon of "
    "debate. Critics said the plan would raise taxes across the river valley, while supporters "
    "argued that the money was needed to repair roads, bridges and old buildings. Teachers "
    "asked for smaller classes and better books; nurses asked for more beds and modern "
    "equipment. The elephant painted on the library wall was cleaned, and the garden behind "
    "the station was planted with trees, flowers and vegetables for the summer market."
)
TEXT_B = (
    "A quiet village near the mountains welcomed travellers every spring. Local growers sold "
    "cheese, bread and honey in the square, and children played beside the fountain until "
    "evening. The old submarine museum by the harbour opened its doors again, showing maps, "
    "engines and letters written by sailors to their families. Visitors walked along the "
    "coast, watched the boats return with fish, and listened to music in the small church on "
    "the hill before dinner was served in the crowded restaurant."
)

# --- the parameters the battery cannot derive from a spec ----------------------------------

#: a parameter given to every mechanism that takes it, required or not (the defaults load all
#: 400,000 GloVe words): the session's real GloVe, its 20,000 most frequent words, all kept
RESOURCES: dict[str, Callable[[MechanismSpec, pytest.FixtureRequest], Any]] = {
    "embeddings": lambda spec, request: request.getfixturevalue("glove_20k"),
    "vocab_size": lambda spec, request: None,
}
#: the session fixture of a trained model of each :attr:`MechanismSpec.model_kind`
MODELS = {"reward": "tiny_erae_dir", "plain": "tiny_aedp_dir"}


def _model(spec: MechanismSpec, request: pytest.FixtureRequest) -> Any:
    if spec.model_kind not in MODELS:
        _cannot_supply(spec, "model", f"no tiny model of kind {spec.model_kind!r} in MODELS")
    return request.getfixturevalue(MODELS[spec.model_kind])


#: a required parameter that names something that must exist, and how to supply it
REQUIRED_RESOURCES: dict[str, Callable[[MechanismSpec, pytest.FixtureRequest], Any]] = {
    "model": _model,
}
#: where a derived number sits above a lower bound that is its only bound (``epsilon`` > 0:
#: 5, enough noise that two seeds give two releases)
ABOVE_MINIMUM = 5


def _cannot_supply(spec: MechanismSpec, parameter: str, why: str) -> NoReturn:
    pytest.fail(
        f"the contract battery cannot build {spec.name!r}: it cannot supply its required "
        f"parameter {parameter!r} ({why}). Add a value for it to REQUIRED_RESOURCES (or a "
        f"model kind to MODELS) in {Path(__file__).name}, or give the parameter a range or "
        "choices in the registry spec that a valid value can be derived from",
        pytrace=False,
    )


def _derived(spec: MechanismSpec, p: Parameter) -> Any:
    """A valid value of required parameter ``p`` from its spec alone: the first of its choices,
    or a number inside its range."""
    if p.choices:
        return p.choices[0]
    if p.kind in ("number", "int", "count") and p.minimum is not None:
        if p.maximum is not None:
            middle = (p.minimum + p.maximum) / 2
            return middle if p.kind == "number" else math.ceil(middle)
        return p.minimum + ABOVE_MINIMUM
    _cannot_supply(spec, p.name, f"kind {p.kind!r}, with neither a range nor choices")


def parameters(name: str, request: pytest.FixtureRequest, *, noise: bool = True) -> dict[str, Any]:
    """The parameters the battery builds mechanism ``name`` with: every required one (derived,
    or from the tables), the resources, and nothing else (the defaults are a user's).
    ``noise=False``: those of its noise-off form (no epsilon)."""
    spec = mechanism_spec(name)
    out: dict[str, Any] = {}
    for p in spec.parameters:
        if p.name in RESOURCES:
            out[p.name] = RESOURCES[p.name](spec, request)
        elif p.required and p.name in REQUIRED_RESOURCES:
            out[p.name] = REQUIRED_RESOURCES[p.name](spec, request)
        elif p.required:
            out[p.name] = _derived(spec, p)
    if not noise:
        out.pop("epsilon", None)
    return out


def supplied(name: str) -> frozenset[str]:
    """The parameters the battery gives from its tables (not derived from the spec)."""
    spec = mechanism_spec(name)
    return frozenset(
        p.name
        for p in spec.parameters
        if p.name in RESOURCES or (p.required and p.name in REQUIRED_RESOURCES)
    )


def build(name: str, request: pytest.FixtureRequest, **extra: Any) -> Mechanism:
    return create_mechanism(name, **{**parameters(name, request), **extra})


def build_noise_off(name: str, request: pytest.FixtureRequest) -> Mechanism:
    return create_noise_off(name, **parameters(name, request, noise=False))


names = pytest.mark.parametrize("name", mechanism_names())

# --- what is published --------------------------------------------------------------------


def published(rel: Release) -> str:
    """Everything a release publishes, as one string: every record (text, bag, figures and
    statement, as JSON) and the statement's human form."""
    records = [json.dumps(d.record(rel.statement), allow_nan=False) for d in rel.documents]
    words = [" ".join(d.words) for d in rel.documents]
    return "\n".join([*records, *words, rel.statement.describe()])


def statement_forms(rel: Release) -> tuple[str, str, str]:
    """The statement as published: JSON, the human form, and as each record carries it."""
    st = rel.statement
    records = {json.dumps(d.record(st)["privacy"], allow_nan=False) for d in rel.documents}
    assert len(records) == 1, "the documents of one release carry different statements"
    return st.to_json(), st.describe(), records.pop()


def private_paths(request: pytest.FixtureRequest, params: dict[str, Any]) -> Iterator[str]:
    """Paths no statement may hold: the parameters given as paths, the cache, the home, the
    working and temporary folders."""
    for value in params.values():
        if isinstance(value, (str, Path)) and os.sep in str(value):
            yield str(value)
    yield str(request.getfixturevalue("cache_dir"))
    yield str(Path(authormask.__file__).parent)
    yield str(Path.home())
    yield os.getcwd()
    yield tempfile.gettempdir()


def assert_public(text: str, name: str, paths: list[str]) -> None:
    for marker in MARKERS:
        assert marker not in text.lower(), f"{name}: the statement holds input word {marker!r}"
    for sentence in (*TEXT_A.split(". "), *TEXT_B.split(". ")):
        assert sentence.lower()[:30] not in text.lower(), f"{name}: the statement holds input"
    assert str(SEED) not in text, f"{name}: the statement holds the seed"
    for path in paths:
        if len(path.strip(os.sep)) < 3:  # a root or home of "/": nothing to find
            continue
        assert path not in text, f"{name}: the statement holds the path {path!r}"


# --- 1. the statement ---------------------------------------------------------------------


@names
def test_statement_is_public_and_input_independent(
    name: str, request: pytest.FixtureRequest
) -> None:
    params = parameters(name, request)
    mech = build(name, request)
    a = release([TEXT_A], mech, random_state=SEED)
    b = release([TEXT_B], mech, random_state=OTHER_SEEDS[0])
    ab = release([TEXT_B, TEXT_A], build(name, request), random_state=OTHER_SEEDS[1])
    assert statement_forms(a) == statement_forms(b) == statement_forms(ab), (
        f"{name}: the statement depends on the input or the seed"
    )
    st = a.statement
    assert st.mechanism == name
    assert json.loads(json.dumps(st.to_dict(), allow_nan=False)) == json.loads(st.to_json())
    if not mech.needs_all_documents:  # known before any input is seen
        assert st == mech.statement(seeded=True)
    paths = list(private_paths(request, params))
    for form in statement_forms(a):
        assert_public(form, name, paths)
    # unseeded: identical too, and says so
    u1 = release([TEXT_A], mech, random_state=None)
    u2 = release([TEXT_B], mech, random_state=None)
    assert statement_forms(u1) == statement_forms(u2)
    assert u1.statement.randomness != st.randomness
    seeded, unseeded = st.to_dict(), u1.statement.to_dict()
    assert {k for k in seeded if seeded[k] != unseeded[k]} == {"randomness"}
    if mechanism_spec(name).has_noise_off:
        off = build_noise_off(name, request)
        oa = release([TEXT_A], off, random_state=SEED)
        ob = release([TEXT_B], off, random_state=OTHER_SEEDS[0])
        assert statement_forms(oa) == statement_forms(ob)
        assert oa.statement.epsilon is None and oa.statement.mechanism == name
        for form in statement_forms(oa):
            assert_public(form, name, paths)


# --- 2. the seed --------------------------------------------------------------------------


@names
def test_seed_never_leaks(name: str, request: pytest.FixtureRequest) -> None:
    forms = [build(name, request)]
    if mechanism_spec(name).has_noise_off:
        forms.append(build_noise_off(name, request))
    for mech in forms:
        rel = release([TEXT_A, TEXT_B], mech, random_state=SEED)
        out = published(rel)
        for digits in (str(SEED), f"{SEED:x}", f"{SEED:_}", f"{SEED:,}"):
            assert digits not in out, f"{name}: the seed ({digits}) is published"
        assert rel.report.seed == SEED and rel.report.seeded  # the private report keeps it


# --- 3. reproducibility -------------------------------------------------------------------


@names
def test_same_seed_same_bytes_other_seed_other_release(
    name: str, request: pytest.FixtureRequest
) -> None:
    first = release([TEXT_A, TEXT_B], build(name, request), random_state=SEED)
    again = release([TEXT_A, TEXT_B], build(name, request), random_state=SEED)
    assert published(first) == published(again), f"{name}: one seed, two releases"
    others = (  # lazily: the first that differs ends it
        release([TEXT_A, TEXT_B], build(name, request), random_state=s).texts for s in OTHER_SEEDS
    )
    assert any(texts != first.texts for texts in others), (
        f"{name}: seeds {SEED} and {OTHER_SEEDS} give the same release of 80-word texts: its "
        "noise does not depend on the seed"
    )
    if mechanism_spec(name).has_noise_off:
        off = release([TEXT_A, TEXT_B], build_noise_off(name, request), random_state=SEED)
        off2 = release([TEXT_A, TEXT_B], build_noise_off(name, request), random_state=SEED)
        assert published(off) == published(off2)


# --- 4. bad parameters --------------------------------------------------------------------


def invalid_values(p: Parameter) -> list[Any]:
    """Values of ``p`` outside what its spec allows: not a number, not finite, a boolean,
    outside the range, not a whole number, not one of the choices."""
    if p.choices is not None:
        return ["bogus", p.choices[0].upper() + "!", 1]
    if p.kind not in ("number", "int", "count"):
        return []
    out: list[Any] = [math.nan, math.inf, -math.inf, "abc", True]
    if p.minimum is not None:
        out.append(p.minimum if p.exclusive_minimum else p.minimum - 1)
        out.append(p.minimum - 1.5)
    if p.maximum is not None:
        out += [p.maximum + 1, p.maximum + 0.5]
    if p.kind in ("int", "count"):
        out += [1.5, "7.5"]
    if p.kind == "count":
        out.append("longest")
    return out


def assert_refused(
    make: Callable[[], Any], name: str, p: Parameter, value: Any, *, mentions: list[str]
) -> None:
    with pytest.raises(InvalidParameterError) as info:
        make()
    message = str(info.value)
    where = f"{name}, {p.name}={value!r}"
    assert "\n" not in message, f"{where}: the error is not one line: {message!r}"
    assert re.search(rf"(?<![\w-]){re.escape(p.name)}(?![\w-])", message), (
        f"{where}: the error does not name the parameter: {message!r}"
    )
    for text in mentions:
        assert text in message, f"{where}: the error does not say {text!r}: {message!r}"


@names
def test_bad_parameters_are_one_line_errors_naming_them(
    name: str, request: pytest.FixtureRequest
) -> None:
    spec = mechanism_spec(name)
    base = parameters(name, request)
    checked = 0
    for p in spec.parameters:
        # what is allowed: every choice, or the range
        allowed = list(p.choices) if p.choices else [p.describe_range() or ""]
        for value in invalid_values(p):
            shown = [repr(value)] if isinstance(value, (str, float)) else []
            assert_refused(
                lambda p=p, value=value: create_mechanism(name, **{**base, p.name: value}),
                name,
                p,
                value,
                mentions=[m for m in (*allowed, *shown) if m],
            )
            if spec.has_noise_off and p.name != "epsilon":
                off = parameters(name, request, noise=False)
                assert_refused(
                    lambda p=p, value=value, off=off: create_noise_off(
                        name, **{**off, p.name: value}
                    ),
                    name,
                    p,
                    value,
                    mentions=[],
                )
            checked += 1
    assert checked or not any(p.choices or p.minimum is not None for p in spec.parameters)
    # a parameter declared to be read only with another's value is refused without it
    for p in spec.parameters:
        if p.only_with is None or (other := spec.parameter(p.only_with[0])) is None:
            continue
        for choice in [c for c in other.choices or () if c != p.only_with[1]]:
            given = {**base, other.name: choice, p.name: "the"}
            assert_refused(
                lambda given=given: create_mechanism(name, **given),
                name,
                p,
                "the",
                mentions=[repr(choice), repr(p.only_with[1])],
            )
    if "epsilon" in spec.parameter_names and spec.has_noise_off:
        off = parameters(name, request, noise=False)
        epsilon = next(p for p in spec.parameters if p.name == "epsilon")
        assert_refused(
            lambda: create_noise_off(name, **off, epsilon=1.0), name, epsilon, 1.0, mentions=[]
        )


# --- 5. the noise-off form ----------------------------------------------------------------


#: mechanisms whose rendering draws from the document's generator after the noise
#: (post-processing): their noise-off text depends on the seed, its words do not
RENDERING_DRAWS = {
    "emp-write": "its writer draws the function words, marks and sentence ends",
}
#: mechanisms that write their released words in forms of their own (post-processing of the
#: released lemmas): their words are in their text, not necessarily in the input
OWN_FORMS = {
    "emp-event": "it writes each verb in the simple past and a pronoun in its subject form",
    "emp-sentence": "it writes each noun in the number of the template's noun it stands for",
}
#: of those, the mechanisms whose released words are not all words of the input (lemmas)
NOT_INPUT_WORDS = {"emp-event": "its verbs are released as lemmas"}


def _written(word: str, text: str) -> bool:
    """Whether ``word`` is in ``text`` in one of its forms (lemminflect's table)."""
    from lemminflect import getAllInflections, getAllLemmas

    forms = {word}
    for lemmas in getAllLemmas(word).values():
        for lemma in lemmas:
            forms |= {f for fs in getAllInflections(lemma).values() for f in fs}
    return any(f.lower() in text for f in forms)


def prepared_words(unit: Any, name: str) -> tuple[str, ...]:
    """The words a prepared unit feeds the mechanism's samplers, in reading order."""
    if isinstance(unit, EntityDocument):
        assert unit.found == 0, f"{name}: the battery's text has entities: {unit.entities}"
        return tuple(w for u in unit.masked for w in prepared_words(u, name))
    assert not getattr(unit, "mapped", ()), f"{name}: the battery's text has unknown words"
    kinds = getattr(unit, "kinds", None)
    if kinds is not None and hasattr(unit, "function_words"):  # a canonical skeleton
        content, function = iter(unit.content_words), iter(unit.function_words)
        return tuple(next(content if k == "content" else function) for k in kinds if k != "mark")
    if hasattr(unit, "content_words"):  # in place, or the N words of a bag
        return tuple(unit.content_words)
    if isinstance(getattr(unit, "words", None), tuple):  # the content words, in order
        return tuple(unit.words)
    pytest.fail(
        f"{name}: the battery does not know what a prepared {type(unit).__name__} releases; "
        f"teach prepared_words in {Path(__file__).name}",
        pytrace=False,
    )


@names
def test_noise_off_releases_the_preparation(name: str, request: pytest.FixtureRequest) -> None:
    spec = mechanism_spec(name)
    if not spec.has_noise_off:  # refused in one line, and nothing declared to switch off
        with pytest.raises(InvalidParameterError, match=f"^{name} has no noise-off form"):
            build_noise_off(name, request)
        assert spec.samplers == ()
        return
    off = build_noise_off(name, request)
    vocabulary = set(re.findall(r"[a-z]+", TEXT_A.lower()))
    units = list(off.prepare_parts([TEXT_A]))
    expected = tuple(w for unit in units for w in prepared_words(unit, name))
    assert expected, f"{name}: the battery's text prepares to nothing"
    first = release([TEXT_A], off, random_state=SEED)
    others = [
        release([TEXT_A], build_noise_off(name, request), random_state=seed)
        for seed in OTHER_SEEDS[:2]
    ]
    for other in others:  # the preparation is the input's: no seed changes it
        assert other.documents[0].words == first.documents[0].words, (
            f"{name}: the words of the noise-off release depend on the seed"
        )
    same_text = all(other.texts == first.texts for other in others)
    if name in RENDERING_DRAWS:
        assert not same_text, (
            f"{name}: its noise-off text no longer depends on the seed; remove it from "
            "RENDERING_DRAWS"
        )
    else:
        assert same_text, (
            f"{name}: the noise-off text depends on the seed; if its rendering draws on "
            "purpose (post-processing), name it in RENDERING_DRAWS"
        )
    (doc,) = first.documents
    if doc.bag is None:
        assert doc.words == expected, f"{name}: the noise-off form changed a prepared word"
    else:
        assert Counter(doc.words) == Counter(expected) == Counter(doc.bag)
        assert list(doc.words) == sorted(doc.words)
    if name not in NOT_INPUT_WORDS:
        assert set(doc.words) <= vocabulary, f"{name}: words not in the input were released"
    text = doc.text.lower()
    if name in OWN_FORMS:
        assert all(_written(w, text) for w in doc.words), f"{name}: a released word is not written"
    else:
        assert all(w in text for w in doc.words), f"{name}: a released word is not in its text"


# --- 6. the audit -------------------------------------------------------------------------

#: draws per input of the cheap case (a fixed seed: it passes or fails the same way every run)
AUDIT_SAMPLES = 2000


@names
def test_audit_case_runs_and_passes(name: str, cache_dir: Path) -> None:
    cases = AUDITORS.get(name, ())
    assert cases, (
        f"{name} has no audit case: add its neighbouring inputs to authormask.audit.cases.AUDITORS"
    )
    assert {c.mechanism for c in cases} == {name}
    assert len({c.case for c in cases}) == len(cases), f"{name}: two audit cases share a name"
    cheap = [c for c in cases if not any(k in c.case for k in ("glove", "forged"))]
    spec = (cheap or list(cases))[0]
    result = audit_case(
        spec.build(Context(cache_dir=cache_dir)), samples=AUDIT_SAMPLES, random_state=7
    )
    assert (result.mechanism, result.case) == (name, spec.case)
    assert math.isfinite(result.epsilon_lower_bound) and result.epsilon_lower_bound >= 0
    assert result.passed, (
        f"{name}/{spec.case}: lower bound {result.epsilon_lower_bound} above the stated "
        f"{result.epsilon_stated} + {result.slack}"
    )


# --- 7. the spec --------------------------------------------------------------------------


def in_range(p: Parameter, value: Any) -> bool:
    if isinstance(value, str):  # 'shortest', a count's other value
        return True
    return p.contains(value)


@names
def test_spec_round_trips(name: str, request: pytest.FixtureRequest) -> None:
    spec = mechanism_spec(name)
    d = spec.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text) == d and json.dumps(spec.to_dict(), allow_nan=False) == text
    assert d["name"] == name and d["label"] and d["title"]
    listed = [p["name"] for p in d["parameters"]]
    assert listed == list(spec.parameter_names) and len(set(listed)) == len(listed)
    assert MechanismSpec.from_dict(d, factory=spec.factory) == spec, f"{name} does not round-trip"
    for p, pd in zip(spec.parameters, d["parameters"], strict=True):
        assert pd["kind"] == p.kind
        if p.required or json.dumps(p.default) == json.dumps(pd["default"]):
            assert Parameter.from_dict(pd) == p, f"{name}: {p.name} does not round-trip"
        assert p.kind in ("text", "int", "number", "path", "count")
        if p.default is not None and not p.required:
            assert p.choices is None or p.default in p.choices, f"{name}: {p.name}'s default"
            assert in_range(p, p.default), f"{name}: {p.name}'s default is out of its range"
    # the spec is what the registry checks: every parameter it lists, and no other
    given = parameters(name, request)
    assert tuple(check_parameters(name, **given)) == spec.parameter_names
    with pytest.raises(ParameterMismatchError, match="no_such_parameter") as info:
        create_mechanism(name, **given, no_such_parameter=1)
    assert info.value.takes == spec.parameter_names
    for p in spec.parameters:
        if p.required:
            with pytest.raises(ParameterMismatchError) as info:
                create_mechanism(name, **{k: v for k, v in given.items() if k != p.name})
            assert info.value.missing == (p.name,) and p.name in str(info.value)
    # the defaults it publishes are the ones it uses, and every choice it offers is taken
    mech = build(name, request)
    statement = mech.statement(seeded=True)
    explicit = {
        pd["name"]: pd["default"]
        for pd in d["parameters"]
        if not pd["required"] and pd["default"] is not None and pd["name"] not in supplied(name)
    }
    assert build(name, request, **explicit).statement(seeded=True) == statement
    for p in spec.parameters:
        for choice in p.choices or ():
            json.dumps(build(name, request, **{p.name: choice}).statement(seeded=True).to_dict())
        if p.kind == "number" and p.minimum is not None and p.name not in supplied(name):
            edges = [p.maximum] if p.maximum is not None else []
            if not p.exclusive_minimum:
                edges.append(p.minimum)
            for value in edges:  # the closed ends of its range are accepted
                build(name, request, **{p.name: value})
    # the recipe another process builds it from gives the same mechanism
    recipe = recipe_of(mech)
    assert recipe == Recipe(name, {k: v for k, v in given.items() if v is not None})
    assert recipe.build().statement(seeded=True) == statement
    # what the spec declares of the mechanism is consistent
    assert (spec.privacy is None) == ("epsilon" not in spec.parameter_names) or spec.baseline
    assert spec.privacy in ("metric", "pure", None)
    assert spec.takes_epsilon == ("epsilon" in spec.parameter_names)
    if spec.model_kind is not None:
        assert any(p.name == "model" and p.required for p in spec.parameters)
    if spec.per_word_form is not None:
        assert spec.per_word_form in MECHANISMS
    assert spec.help and spec.audit is not None, f"{name} declares no help or no audit cases"
    # a seed code no other mechanism has: a built-in declares it (its seeded outputs depend on
    # it); a plugin may, or takes the one derived from its name
    if name in BUILTIN:
        assert isinstance(spec.seed_code, int) and spec.code == spec.seed_code
    assert [n for n in MECHANISMS if MECHANISMS[n].code == spec.code] == [name]
    # what it releases is what its release holds: a bag of N words, or text
    rel = release([TEXT_A], mech, random_state=SEED)
    assert (rel.documents[0].bag is not None) == (spec.release == "bag")
    # what epsilon measures is what its statement says
    if spec.epsilon_per == "none":
        assert statement.epsilon in (None, 0.0)
    else:
        assert statement.epsilon == check_parameters(name, **given)["epsilon"]
        assert spec.epsilon_per in statement.epsilon_unit
    # the noise-off form switches off exactly the samplers the spec declares
    if spec.has_noise_off:
        off: Any = build_noise_off(name, request)
        if isinstance(off, EntityInputs):  # the entity step hands the words to the noise-off form
            off = off.inner
        assert isinstance(off, NoiseOff) and off.epsilon is None
        switched = {a for a, v in vars(off.inner).items() if isinstance(v, IdentityKernel)}
        assert switched == set(spec.samplers), f"{name}: switched off {switched}"


def test_the_tables_name_parameters_of_registered_mechanisms() -> None:
    """No stale entry: every parameter the battery supplies is one a mechanism takes."""
    taken = {p.name for spec in MECHANISMS.values() for p in spec.parameters}
    assert set(RESOURCES) | set(REQUIRED_RESOURCES) <= taken
    kinds = {spec.model_kind for spec in MECHANISMS.values()} - {None}
    assert kinds <= set(MODELS)
