"""The public statement depends on the public parameters only: a property test over many pairs
of different inputs, every mechanism and every format."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import authormask as am
from authormask.embeddings import Embeddings

WORDS = ["budget", "committee", "taxes", "schools", "river", "bridge", "Cables", "money"]
STOP = ["the", "and", "of", "a", "was", "don't", "it's"]
OTHER = [",", ".", "!", "...", "Zxqvbnm", "Qwrtplk's", "42", "\n", "\n\n", "  "]

text_strategy = st.lists(st.sampled_from(WORDS + STOP + OTHER), min_size=0, max_size=60).map(
    lambda parts: " ".join(["budget", *parts, "money"])
)


@pytest.fixture(scope="module")
def mechanisms(glove_20k: Embeddings, tiny_erae_dir, tiny_aedp_dir) -> dict[str, am.Mechanism]:
    emb = {"embeddings": glove_20k, "vocab_size": None}
    return {
        "emp-bag": am.create_mechanism(
            "emp-bag", epsilon=7, length=5, fixed_length="sample", **emb
        ),
        "emp-text": am.create_mechanism("emp-text", epsilon=7, **emb),
        "syntf": am.create_mechanism("syntf", epsilon=7, output_size=500, **emb),
        "random-r": am.create_mechanism("random-r", output_size=500, **emb),
        "erae": am.create_mechanism("erae", epsilon=7, model=tiny_erae_dir),
        "ae-dp": am.create_mechanism("ae-dp", epsilon=7, model=tiny_aedp_dir),
        "mahalanobis": am.create_mechanism("mahalanobis", epsilon=7, **emb),
        "tem": am.create_mechanism("tem", epsilon=7, **emb),
        "santext": am.create_mechanism("santext", epsilon=7, **emb),
        "emp-doc": am.create_mechanism("emp-doc", epsilon=7, decoder="posterior", **emb),
        "random-sub": am.create_mechanism("random-sub", rate=0.5, **emb),
        "emp-write": am.create_mechanism("emp-write", epsilon=7, **emb),
        "emp-sentence": am.create_mechanism("emp-sentence", epsilon=7, **emb),
        "emp-event": am.create_mechanism("emp-event", epsilon=7, **emb),
    }


def _published(rel: am.Release) -> tuple[str, str, str]:
    st_ = rel.statement
    return st_.describe(), st_.to_json(), json.dumps(rel.documents[0].record(st_)["privacy"])


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(a=text_strategy, b=text_strategy, seeded=st.booleans())
def test_statement_is_identical_for_any_two_inputs(
    mechanisms, a: str, b: str, seeded: bool
) -> None:
    for mech in mechanisms.values():
        ra = am.release([a], mech, random_state=1 if seeded else None)
        rb = am.release([b, a], mech, random_state=2 if seeded else None)
        assert _published(ra) == _published(rb)


def test_statement_never_holds_the_seed_or_counts(mechanisms) -> None:
    text = "The budget, the committee and the taxes! " * 3
    for name, mech in mechanisms.items():
        rel = am.release([text], mech, random_state=987654321)
        published = rel.statement.to_json() + rel.statement.describe()
        assert "987654321" not in published
        assert "seeded (reproducible; keep the seed secret)" in published
        assert rel.report.seed == 987654321  # the private report keeps it
        assert "counts" not in rel.statement.to_dict() and "tokens" not in rel.statement.to_dict()
        assert rel.statement.mechanism == name


def test_every_registered_mechanism_is_covered(mechanisms) -> None:
    assert set(am.mechanism_names()) == set(mechanisms)


def test_random_r_takes_no_epsilon(glove_20k: Embeddings) -> None:
    with pytest.raises(am.InvalidParameterError, match="does not take 'epsilon'"):
        am.create_mechanism("random-r", epsilon=1.0, embeddings=glove_20k)


def test_import_authormask_stays_light() -> None:
    """The release layer is imported by every front end: it must not pull in torch, POT or
    scikit-learn (each command imports what it needs when it runs)."""
    import subprocess
    import sys

    code = (
        "import sys, authormask; "
        "print(','.join(m for m in ('torch', 'ot', 'sklearn', 'fasttext') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_am_release_is_the_entry_point_whatever_was_imported_first() -> None:
    import subprocess
    import sys

    code = (
        "from authormask.core import create_mechanism; import authormask.core.api; "
        "import authormask as am; print(callable(am.release) and am.release.__name__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "release"
