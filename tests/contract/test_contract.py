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
