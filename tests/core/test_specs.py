"""The spec declares, nobody guesses (issue 31 A): what each registry spec declares (what the
release is, what epsilon measures, its seed code, its noise-off form, its audit cases, its help),
its parameters checked once at the boundary against their declared intervals, and the bugs of
the review, each with a test that failed before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from authormask.audit.case_spec import core_noise_off
from authormask.audit.cases import AUDITORS
from authormask.core import mechanism_names, mechanism_spec
from authormask.core.registry import (
    MECHANISMS,
    check_parameters,
    create_mechanism,
    create_noise_off,
    recipe_of,
)
from authormask.core.specs import EPSILON, MechanismSpec, Parameter
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols._common import mechanism_code
from authormask.exceptions import AuthormaskError, InvalidParameterError
from authormask.mechanisms._base import NoiseOff

#: the seed code of every built-in mechanism: its position in the registry before the code was
#: declared, which every seeded evaluation output depends on (they must never change)
SEED_CODES = {
    "emp-bag": 0,
    "emp-text": 1,
    "erae": 2,
    "ae-dp": 3,
    "syntf": 4,
    "random-r": 5,
    "mahalanobis": 6,
    "tem": 7,
    "santext": 8,
    "emp-doc": 9,
    "random-sub": 10,
    "emp-write": 11,
    "emp-sentence": 12,
    "emp-event": 13,
}


def test_the_seed_codes_are_declared_and_unchanged() -> None:
    assert {n: mechanism_spec(n).seed_code for n in mechanism_names()} == SEED_CODES
    assert {n: mechanism_code(n) for n in mechanism_names()} == SEED_CODES


def test_a_seed_code_does_not_depend_on_the_registry_order() -> None:
    """The code is the spec's, not its position: a registry listed in another order gives every
    mechanism the same code."""
    reordered = dict(reversed(list(MECHANISMS.items())))
    assert [s.code for s in reordered.values()] == [SEED_CODES[n] for n in reordered]
    # a spec that declares none (one registered from another package) derives its code from
    # its name, never from where it is registered
    plugin = MechanismSpec("plugin-x", "x", (), MECHANISMS["random-r"].factory)
    assert plugin.code == MechanismSpec("plugin-x", "y", (), plugin.factory).code
    assert plugin.code not in SEED_CODES.values()


def test_what_each_mechanism_releases_is_declared() -> None:
    declared = {n: (s.release, s.epsilon_per, s.baseline) for n, s in MECHANISMS.items()}
    assert declared == {
        "emp-bag": ("bag", "word", False),
        "emp-text": ("text", "word", False),
        "erae": ("generated", "token", False),
        "ae-dp": ("generated", "token", False),
        "syntf": ("generated", "token", False),
        "random-r": ("generated", "none", False),
        "mahalanobis": ("text", "word", False),
        "tem": ("text", "word", False),
        "santext": ("text", "word", False),
        "emp-doc": ("text", "word", False),
        "random-sub": ("text", "none", True),
        "emp-write": ("text", "word", False),
        "emp-sentence": ("text", "word", False),
        "emp-event": ("text", "word", False),
    }
    assert [n for n, s in MECHANISMS.items() if s.sweeps_rate] == ["random-sub"]
    assert {n: s.privacy for n, s in MECHANISMS.items() if s.epsilon_per == "token"} == {
        "erae": "pure",
        "ae-dp": "pure",
        "syntf": "pure",
    }


def test_a_spec_that_contradicts_itself_is_refused() -> None:
    factory = MECHANISMS["emp-text"].factory
    with pytest.raises(ValueError, match="release must be one of"):
        MechanismSpec("x", "x", (EPSILON,), factory, release="tokens", epsilon_per="word")
    with pytest.raises(ValueError, match="epsilon_per"):
        MechanismSpec("x", "x", (EPSILON,), factory, epsilon_per="word")  # no noise parameter
    with pytest.raises(ValueError, match="noise-off"):
        MechanismSpec("x", "x", (), factory, samplers=("kernel",))
    with pytest.raises(ValueError, match="module:function"):
        spec = MECHANISMS["emp-text"]
        MechanismSpec.from_dict({**spec.to_dict(), "audit": "no-colon"}, factory=factory)


def test_the_spec_json_names_every_declaration() -> None:
    d = json.loads(json.dumps(MECHANISMS["emp-doc"].to_dict()))
    assert {
        "release",
        "epsilon_per",
        "seed_code",
        "samplers",
        "model_kind",
        "audit",
        "help",
    } <= set(d)
    assert d["samplers"] == ["kernel", "function_kernel"] and d["seed_code"] == 9
    assert json.loads(json.dumps(MECHANISMS["erae"].to_dict()))["model_kind"] == "reward"
    assert all("kind" in p for spec in MECHANISMS.values() for p in spec.to_dict()["parameters"])


def test_epsilon_is_declared_and_checked_exclusive() -> None:
    """The rule is epsilon > 0: the spec says so (JSON Schema's ``exclusive_minimum``, never a
    closed ``minimum`` of 0), and the boundary refuses 0 itself."""
    for spec in MECHANISMS.values():
        epsilon = spec.parameter("epsilon")
        if epsilon is None:
            continue
        d = epsilon.to_dict()
        assert d["exclusive_minimum"] == 0.0 and "minimum" not in d, spec.name
        assert not epsilon.contains(0.0) and epsilon.contains(1e-300)
        assert epsilon.describe_range() == "> 0"
    with pytest.raises(InvalidParameterError, match=r"^`epsilon` must be a finite number > 0"):
        check_parameters("emp-text", epsilon=0.0)


@pytest.mark.parametrize(
    ("name", "params", "named", "allowed"),
    [
        ("emp-text", {"epsilon": -1}, "epsilon", "> 0"),
        ("emp-text", {"epsilon": float("nan")}, "epsilon", "> 0"),
        ("emp-text", {"epsilon": 2, "vocab_size": 0}, "vocab_size", ">= 1"),
        ("emp-doc", {"epsilon": 2, "function_epsilon": 0}, "function_epsilon", "> 0"),
        ("mahalanobis", {"epsilon": 2, "regularization": 1.5}, "regularization", "in [0, 1]"),
        ("random-sub", {"rate": 2}, "rate", "in [0, 1]"),
        ("syntf", {"epsilon": 2, "max_length": 0}, "max_length", ">= 1"),
        ("emp-bag", {"epsilon": 2, "length": 2.5}, "length", "'shortest'"),
        ("emp-write", {"prior_weight": 0}, "prior_weight", "in (0, 100]"),
    ],
)
def test_the_declared_intervals_are_checked_once_at_the_boundary(
    name: str, params: dict[str, Any], named: str, allowed: str
) -> None:
    """``Parameter.minimum`` and ``maximum`` were declared and never enforced: the registry's
    one check of what a front end gives left ranges to each mechanism's constructor, so
    ``check_parameters`` (what the command line and the page call before anything is loaded)
    passed them."""
    with pytest.raises(InvalidParameterError) as info:
        check_parameters(name, **params)
    message = str(info.value)
    assert message.startswith(f"`{named}` must be ") and allowed in message
    assert "\n" not in message


def test_the_boundary_gives_each_number_its_type() -> None:
    values = check_parameters("emp-bag", epsilon=3, length=7.0, vocab_size="2000")
    assert values["epsilon"] == 3.0 and isinstance(values["epsilon"], float)
    assert values["length"] == 7 and isinstance(values["length"], int)
    assert values["vocab_size"] == 2000
    assert check_parameters("emp-bag", epsilon=3, length="shortest")["length"] == "shortest"


def test_a_parameter_round_trips_with_every_bound() -> None:
    p = Parameter(
        "p", "h", default=0.5, minimum=0.0, maximum=1.0, exclusive_maximum=True, kind="number"
    )
    assert Parameter.from_dict(json.loads(json.dumps(p.to_dict()))) == p
    assert p.describe_range() == "in [0, 1)" and p.contains(0.0) and not p.contains(1.0)
    with pytest.raises(InvalidParameterError, match=r"must be a finite number in \[0, 1\), got 1"):
        p.check(1)
    with pytest.raises(ValueError, match="numeric kind"):
        Parameter("q", "h", minimum=0.0)


# --- the noise-off form ----------------------------------------------------------------------


def test_the_noise_off_form_has_no_epsilon(glove_20k: Embeddings) -> None:
    """It carried a placeholder epsilon 1.0 (``off.epsilon``, through a catch-all attribute
    lookup, and the recipe of the mechanism it wrapped) while its statement said it had
    none."""
    off = core_noise_off("emp-text", embeddings=glove_20k, vocab_size=None)
    assert isinstance(off, NoiseOff)
    assert off.epsilon is None and off.statement(seeded=True).epsilon is None
    assert off.inner.recipe is None  # no recipe of the mechanism at a placeholder epsilon
    recipe = recipe_of(create_noise_off("emp-text", embeddings=glove_20k, entities="keep"))
    assert "epsilon" not in recipe.params and recipe.noise_off


def test_the_noise_off_form_offers_the_mechanism_interface_only(glove_20k: Embeddings) -> None:
    """No catch-all: what it is not declared to offer is not handed on by name."""
    off = core_noise_off("emp-doc", embeddings=glove_20k, vocab_size=None)
    assert isinstance(off, NoiseOff) and off.embeddings is glove_20k
    with pytest.raises(AttributeError):
        off.kernel  # noqa: B018
    # the mechanism's own noise-off method switches off the samplers its spec declares
    assert off.inner.kernel is not off.inner.function_kernel
    assert type(off.inner.kernel).__name__ == "IdentityKernel"


# --- the audit cases are the spec's ---------------------------------------------------------


def test_the_audit_table_is_read_from_the_specs() -> None:
    assert set(AUDITORS) == set(mechanism_names())
    for name, spec in MECHANISMS.items():
        assert spec.audit is not None and spec.audit.startswith("authormask.audit.")
        assert {c.mechanism for c in AUDITORS[name]} == {name}


# --- unknown words under drop --------------------------------------------------------------


def test_oov_map_to_is_refused_where_it_is_not_read(glove_20k: Embeddings) -> None:
    """``emp-bag`` accepted any ``oov_map_to`` under ``oov`` drop (or keep), even a word not in
    the vocabulary, and ignored it: the word is read only under ``oov`` map."""
    common: dict[str, Any] = {"epsilon": 5, "embeddings": glove_20k, "vocab_size": None}
    for oov in ("drop", "keep"):
        with pytest.raises(InvalidParameterError) as info:
            create_mechanism("emp-bag", **common, oov=oov, oov_map_to="qzxvq")
        message = str(info.value)
        assert message.startswith("`oov_map_to` is read only under `oov` 'map'")
        assert repr(oov) in message
    with pytest.raises(InvalidParameterError, match="oov_map_to"):
        create_mechanism("emp-text", **common, oov="keep", oov_map_to="the")
    # under map it is read (and checked: a word of the vocabulary)
    assert create_mechanism("emp-bag", **common, oov="map", oov_map_to="the") is not None
    with pytest.raises(InvalidParameterError, match="vocabulary"):
        create_mechanism("emp-bag", **common, oov="map", oov_map_to="qzxvq")
    # a mechanism without an oov policy always maps, and always reads it
    assert create_mechanism("emp-doc", **common, oov_map_to="budget") is not None


def test_oov_map_to_under_drop_is_one_line_on_the_command_line(
    invoke: Any, cache_dir: Path, tmp_path: Path
) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("The committee approved the budget for schools and hospitals.")
    code, _, err = invoke(
        ["obfuscate", str(doc), "-m", "emp-bag", "-e", "5", "-N", "3", "--oov-map-to", "the",
         "--vocab-size", "20000", "--cache-dir", str(cache_dir)]
    )  # fmt: skip
    assert code != 0 and err.count("\n") == 1
    assert err.startswith("authormask: error: --oov-map-to is read only under --oov 'map'")


# --- what a path names --------------------------------------------------------------------


def test_a_bad_path_names_its_parameter(tmp_path: Path) -> None:
    """A missing vector file, model directory or word list raised an error that did not name the
    parameter (``unknown embeddings '...'``, ``model directory not found: ...``), so no front
    end could show its own option for it."""
    cases = [
        ("emp-text", {"epsilon": 1, "embeddings": str(tmp_path / "missing.vec")}, "embeddings"),
        ("erae", {"epsilon": 1, "model": str(tmp_path / "no-model")}, "model"),
        ("random-r", {"model": str(tmp_path / "no-model")}, "model"),
        (
            "emp-text",
            {"epsilon": 1, "embeddings": "glove-6b-50d", "stopwords": str(tmp_path / "no.txt")},
            "stopwords",
        ),
    ]
    for name, params, parameter in cases:
        with pytest.raises(AuthormaskError) as info:
            create_mechanism(name, **params)
        assert str(info.value).startswith(f"`{parameter}`: "), str(info.value)


def test_a_bad_path_names_its_option(invoke: Any, cache_dir: Path, tmp_path: Path) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("The committee approved the budget.")
    for args, option in (
        (["--embeddings", str(tmp_path / "missing.vec")], "--embeddings"),
        (["-m", "erae", "--model", str(tmp_path / "no-model")], "--model"),
    ):
        code, _, err = invoke(
            ["obfuscate", str(doc), "-e", "5", *args, "--cache-dir", str(cache_dir)]
        )
        assert code != 0 and err.count("\n") == 1
        assert err.startswith(f"authormask: error: {option}: "), err


def test_every_number_a_mechanism_takes_has_a_finite_range() -> None:
    """issue 49, D3: `prior_weight` 1e308 was accepted and a one-sentence release ran for over
    ten minutes. A weight or threshold has a declared maximum; an epsilon is any finite number
    above 0 (its guarantee holds at every one)."""
    import math

    from authormask.core.registry import MECHANISMS, check_parameters

    for name, spec in MECHANISMS.items():
        for p in spec.parameters:
            if p.kind != "number" or p.name.endswith("epsilon"):
                continue
            assert p.maximum is not None and math.isfinite(p.maximum), (name, p.name)
            needed = {"epsilon": 1.0} if spec.parameter("epsilon") is not None else {}
            with pytest.raises(InvalidParameterError, match=p.name):
                check_parameters(name, **needed, **{p.name: 1e308})
