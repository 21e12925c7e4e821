"""One contract, every mechanism (issue 31 B, issue 48): the battery the package ships
(:mod:`authormask.testing`), run over every name of the registry
(:func:`~authormask.core.mechanism_names`), as scikit-learn's ``parametrize_with_checks`` runs
one over every estimator, so a new mechanism is tested by being registered. The battery is the
one a plugin's own tests import; here it builds mechanisms with the session's GloVe and tiny
models (each trained only when a check needs it)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from authormask.core.registry import MECHANISMS, mechanism_names
from authormask.embeddings import Embeddings
from authormask.testing import (
    CHECKS,
    Battery,
    BatteryError,
    check_mechanism,
    parameters,
    parametrize_with_checks,
)

#: the session fixture of a trained model of each kind
MODELS = {"reward": "tiny_erae_dir", "plain": "tiny_aedp_dir"}


class _SessionModels(Mapping[str, Any]):
    """The session's tiny models, each asked of pytest when a check first reads it."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request

    def __getitem__(self, kind: str) -> Any:
        return self._request.getfixturevalue(MODELS[kind])

    def __iter__(self) -> Iterator[str]:
        return iter(MODELS)

    def __len__(self) -> int:
        return len(MODELS)


@pytest.fixture
def battery(request: pytest.FixtureRequest, cache_dir: Path, glove_20k: Embeddings) -> Battery:
    return Battery(cache_dir, glove_20k, _SessionModels(request))


@parametrize_with_checks()
def test_contract(name: str, check: Any, battery: Battery) -> None:
    check(name, battery)


def test_every_model_kind_of_the_registry_has_a_model() -> None:
    """No mechanism the battery cannot build: every kind of model a spec requires is one the
    battery trains (and the session here provides)."""
    kinds = {spec.model_kind for spec in MECHANISMS.values()} - {None}
    assert kinds <= set(MODELS)


def test_a_broken_mechanism_fails_the_battery_saying_what(
    battery: Battery, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The battery can fail: a mechanism whose statement holds its input is caught, and
    check_mechanism stops at the first check that fails, saying which mechanism and what."""
    from authormask.core import create_mechanism
    from authormask.core.specs import EMBEDDINGS, EPSILON, MechanismSpec

    class Leaky:
        def __init__(self, inner: Any) -> None:
            self._inner = inner
            self.seen = ""

        def __getattr__(self, attr: str) -> Any:
            return getattr(self._inner, attr)

        def prepare_parts(self, parts: Any) -> Any:
            for part in parts:
                self.seen = part.split()[1]  # an input word, kept for the statement
                yield from self._inner.prepare_parts([part])

        def statement(self, *, seeded: bool) -> Any:
            from dataclasses import replace

            st = self._inner.statement(seeded=seeded)
            return replace(st, mechanism="leaky", caveats=(*st.caveats, self.seen))

    def build(p: dict[str, Any]) -> Any:
        mech = Leaky(create_mechanism("emp-text", entities="keep", **p))
        mech.name = "leaky"
        return mech

    spec = MechanismSpec(
        "leaky", "A mechanism that publishes an input word", (EPSILON, EMBEDDINGS), build,
        label="Leaky", epsilon_per="word", noise_parameter="epsilon",
        audit="authormask.audit.by_mechanism:emp_text", help="leaks.",
    )  # fmt: skip
    registered: Any = MECHANISMS
    monkeypatch.setitem(registered._all(), "leaky", spec)
    with pytest.raises(BatteryError, match="leaky: the statement"):
        check_mechanism("leaky", battery)
    assert CHECKS[0].__name__ == "check_statement"


@pytest.mark.parametrize("name", mechanism_names())
def test_every_mechanism_releases_on_dask_the_bytes_it_releases_here(
    name: str, battery: Battery, tmp_path: Path, dask_cluster: Any, aaac_texts: list[str]
) -> None:
    """The Dask engine runs every registered mechanism, as the local engine does (issue 48,
    item 4): a dataset of three records (the first 120 words of three real texts: enough
    content words for every mechanism's N) released by workers that rebuild the mechanism from
    its recipe is byte for byte the local release, its statement too."""
    import authormask as am
    from authormask.core.executors import Engine
    from authormask.core.table_outputs import write_table_release
    from authormask.core.tables import TableInput

    path = tmp_path / "in.jsonl"
    records = [
        {"id": f"r{i}", "text": " ".join(t.split()[:120])} for i, t in enumerate(aaac_texts[:3])
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    mechanism = am.create_mechanism(name, **parameters(name, battery))
    cluster, _ = dask_cluster
    out: dict[str, bytes] = {}
    for engine in ("local", "dask"):
        target = tmp_path / f"{engine}.jsonl"
        write_table_release(
            TableInput.open(path, text_column="text", id_column="id"),
            mechanism,
            target,
            random_state=5,
            report_path=tmp_path / f"{engine}.report",
            partition_records=1,
            engine=Engine("dask", scheduler=cluster.scheduler_address)
            if engine == "dask"
            else None,
        )
        out[engine] = target.read_bytes()
        out[engine + " statement"] = (tmp_path / f"{engine}.jsonl.privacy.json").read_bytes()
    assert out["dask"] == out["local"]
    assert out["dask statement"] == out["local statement"]
    assert len(out["local"].splitlines()) == len(records)


def _handed_on_alone(
    mechanism: Any, documents: list[Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[tuple[str, tuple[str, ...]]], list[tuple[str, tuple[str, ...]]], list[int]]:
    """The seeded release of ``documents`` with the default batches, then with every unit
    handed to the mechanism alone, and the number of units in each call of the second."""
    import numpy as np

    from authormask.mechanisms import inputs

    def release() -> list[tuple[str, tuple[str, ...]]]:
        rngs = [np.random.default_rng(11 + i) for i in range(len(documents))]
        return [(o.text, o.words) for o in mechanism.perturb(documents, rngs)]

    batched = release()
    monkeypatch.setattr(inputs, "PERTURB_WORK", 1)
    calls: list[int] = []
    inner_perturb = mechanism.inner.perturb

    def counted(units: Any, rngs: Any, **kw: Any) -> Any:
        calls.append(len(units))
        return inner_perturb(units, rngs, **kw)

    monkeypatch.setattr(mechanism.inner, "perturb", counted)
    return batched, release(), calls


def _with_entity_step() -> list[str]:
    """The registered mechanisms that read the text behind the entity step."""
    from authormask.core import mechanism_spec

    return [
        n
        for n in mechanism_names()
        if any(p.name == "entities" for p in mechanism_spec(n).parameters)
    ]


@pytest.mark.parametrize("name", _with_entity_step())
def test_every_mechanism_releases_the_same_however_the_entity_step_batches_its_units(
    name: str, battery: Battery, aaac_texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the entity step the units of a batch's documents go to the mechanism at most
    ``PERTURB_WORK`` units of work at a time (issue 50: a long document's memory is a batch's),
    so a release must not depend on where those calls are cut: three seeded documents (120
    words of real essays each, with names) released with each unit handed on alone are byte for
    byte the release with the default batches."""
    import authormask as am
    from authormask.mechanisms import inputs

    mechanism = am.create_mechanism(name, **parameters(name, battery))
    assert isinstance(mechanism, inputs.EntityInputs)
    assert mechanism.entities == "surrogate"
    texts = [" ".join(t.split()[:120]) + " Kofi Annan spoke in Geneva." for t in aaac_texts[:3]]
    documents = [next(iter(mechanism.prepare_parts([t]))) for t in texts]
    assert all(d.found > 0 for d in documents)
    batched, alone, calls = _handed_on_alone(mechanism, documents, monkeypatch)
    assert alone == batched
    assert calls == [1, 1, 1]


@pytest.mark.parametrize("name", ["emp-text", "emp-write"])
def test_a_long_document_is_released_the_same_however_its_units_are_handed_on(
    name: str, battery: Battery, aaac_texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One document of many units (the units cut at 128 words here, to keep the test small:
    a real one is cut at 4,096), released with every unit handed on alone, is byte for byte
    the release with the default batches: its units draw in order from one generator."""
    import authormask as am
    from authormask.mechanisms import inputs, written
    from authormask.text import canonical

    monkeypatch.setattr(written, "UNIT_WORDS", 128)
    monkeypatch.setattr(canonical, "UNIT_WORDS", 128)
    monkeypatch.setattr(inputs, "PART_WORDS", 128)
    mechanism = am.create_mechanism(name, **parameters(name, battery))
    text = "\n\n".join(aaac_texts[:3]) + "\n\nMargaret Thatcher met Kofi Annan in Geneva."
    (document,) = mechanism.prepare_parts([text])
    units = list(mechanism.inner.prepare_parts(document.parts))
    assert document.found > 0 and len(units) > 3
    batched, alone, calls = _handed_on_alone(mechanism, [document], monkeypatch)
    assert alone == batched
    assert calls == [1] * len(units)
