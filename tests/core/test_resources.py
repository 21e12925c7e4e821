"""What a front end passes a mechanism is what its spec declares (issue 48): the resources
(:attr:`Parameter.resource`) and the kind of guarantee (:attr:`MechanismSpec.guarantee`), read
by one function (:func:`resource_parameters`) in every front end, never from a parameter's
name."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from authormask.core import create_mechanism, mechanism_spec
from authormask.core.registry import MECHANISMS
from authormask.core.resources import Resources, missing_model, resource_parameters
from authormask.core.specs import EPSILON, MechanismSpec, Parameter
from authormask.embeddings import Embeddings

E, V, C = object(), 1234, Path("/cache")
REWARD, PLAIN, WORDS = object(), object(), object()
ALL = Resources(embeddings=E, vocabulary=V, models={"reward": REWARD, "plain": PLAIN}, cache=C)


def test_each_built_in_gets_the_resources_it_declares() -> None:
    assert resource_parameters(mechanism_spec("emp-write"), ALL) == {
        "embeddings": E,
        "vocab_size": V,
        "cache_dir": C,
    }
    assert resource_parameters(mechanism_spec("erae"), ALL) == {"model": REWARD}
    assert resource_parameters(mechanism_spec("ae-dp"), ALL) == {"model": PLAIN}
    # a model it may take: its words replace the embeddings'
    random_r = mechanism_spec("random-r")
    assert resource_parameters(random_r, replace(ALL, words_model=WORDS)) == {
        "model": WORDS,
        "cache_dir": C,
    }
    assert resource_parameters(random_r, ALL) == {"embeddings": E, "vocab_size": V, "cache_dir": C}
    assert resource_parameters(random_r, ALL, given={"model": "m"}) == {"cache_dir": C}
    # what the user gave is never overridden; what the front end lacks is not given
    assert resource_parameters(mechanism_spec("emp-text"), ALL, given={"embeddings": "x"}) == {
        "vocab_size": V,
        "cache_dir": C,
    }
    assert resource_parameters(mechanism_spec("emp-text"), Resources(embeddings=E)) == {
        "embeddings": E
    }
    assert missing_model(mechanism_spec("erae"), Resources()) == "reward"
    assert missing_model(mechanism_spec("erae"), ALL) is None
    assert missing_model(mechanism_spec("random-r"), Resources()) is None


def _spec(*parameters: Parameter, **kw: Any) -> MechanismSpec:
    return MechanismSpec(
        "toy", "A toy", (EPSILON, *parameters), lambda p: None,  # type: ignore[arg-type,return-value]
        epsilon_per="word", noise_parameter="epsilon", **kw,
    )  # fmt: skip


def test_the_declaration_decides_never_the_name() -> None:
    named = _spec(Parameter("embeddings", "a list of words of the plugin's own"))
    assert named.resources == ()
    assert resource_parameters(named, ALL) == {}
    vectors = _spec(Parameter("vectors", "its word vectors", resource="embeddings"))
    assert vectors.resources == ("embeddings",)
    assert resource_parameters(vectors, ALL) == {"vectors": E}
    with pytest.raises(ValueError, match="resource must be one of"):
        Parameter("lexicon", "a lexicon", resource="lexicon")
    with pytest.raises(ValueError, match="declared by two parameters"):
        _spec(Parameter("a", "", resource="embeddings"), Parameter("b", "", resource="embeddings"))
    # the JSON form says it, and reads it back
    d = vectors.to_dict()
    assert d["resources"] == ["embeddings"]
    assert MechanismSpec.from_dict(json.loads(json.dumps(d)), factory=vectors.factory) == vectors


def test_the_guarantee_is_declared() -> None:
    pure = _spec(guarantee="pure")
    assert (pure.privacy, pure.guarantee, pure.epsilon_per) == ("pure", "pure", "word")
    assert pure.to_dict()["privacy"] == "pure"
    assert MechanismSpec.from_dict(pure.to_dict(), factory=pure.factory) == pure
    # undeclared: the built-ins' convention for what epsilon measures
    assert _spec().privacy == "metric"
    assert mechanism_spec("erae").privacy == "pure" and mechanism_spec("random-r").privacy is None
    with pytest.raises(ValueError, match="guarantee must be one of"):
        _spec(guarantee="approximate")
    with pytest.raises(ValueError, match="needs an epsilon unit"):
        _spec(guarantee="none")


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch, glove_20k: Embeddings) -> MechanismSpec:
    """A registered mechanism that declares no resource (its word vectors are its own) and
    pure DP per word: front ends that passed the embeddings by a parameter's name refused it.
    (``evaluate`` builds one through a real plugin package: tests/plugins/
    test_example_plugin.py; the options of ``evaluate`` read the registry when first used.)"""

    def build(p: dict[str, Any]) -> Any:
        mech = create_mechanism(
            "emp-text", epsilon=p["epsilon"], embeddings=glove_20k, entities="keep"
        )
        mech.name = "toy"
        return mech

    spec = MechanismSpec(
        "toy", "A toy without declared resources", (EPSILON,), build, label="Toy",
        epsilon_per="word", guarantee="pure", noise_parameter="epsilon",
        audit="authormask.audit.by_mechanism:emp_text",
    )  # fmt: skip
    registered: Any = MECHANISMS
    monkeypatch.setitem(registered._all(), "toy", spec)
    return spec


def test_the_page_and_the_tables_call_the_guarantee_what_it_declares(
    toy: MechanismSpec, glove_20k: Embeddings
) -> None:
    from fastapi.testclient import TestClient

    from authormask.evaluation.protocols.bo2021.runner import _unit
    from authormask.serve.app import ServeSettings, _Loaded, create_app

    assert _unit("toy") == "per word (pure DP)"
    assert _unit("erae") == "per token (pure DP)" and _unit("emp-text") == "per word (metric DP)"
    settings = ServeSettings(port=8765, max_chars=5_000, extra_hosts=("localhost:8765",))
    client = TestClient(
        create_app(settings, _Loaded(glove_20k, {})), base_url="http://127.0.0.1:8765"
    )
    listed = {m["name"]: m for m in client.get("/api/mechanisms").json()["mechanisms"]}
    assert listed["toy"]["privacy"] == "pure" and listed["emp-text"]["privacy"] == "metric"
    assert [p["name"] for p in listed["toy"]["parameters"]] == ["epsilon"]
    # the server's own resources are never a request's
    assert "embeddings" not in [p["name"] for p in listed["emp-text"]["parameters"]]
    body = {"text": "The old river flows past the quiet town.", "mechanism": "toy", "epsilon": 3}
    r = client.post(
        "/api/release", content=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 200, r.text
    assert r.json()["text"].strip()
