"""The privacy audit: valid on the real mechanisms, powerful against broken ones.

Every broken variant lives here (never in the library). Each is audited with exactly the code and
the configuration of the default run (same neighbouring inputs, same sample size, same per-case
confidence) and must be flagged, while the real mechanism passes with the same seed. All seeds
are fixed, so nothing here is flaky.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import authormask.mechanisms.laplace as laplace
from authormask.audit import (
    AUDITORS,
    DEFAULT_SAMPLES,
    EMP_EPSILON_LINE,
    AuditError,
    audit_case,
    audit_mechanisms,
    audit_plan,
    audit_sampler,
    case_confidence,
    clopper_pearson_lower,
    clopper_pearson_upper,
    emp_bag_sampler,
    emp_text_sampler,
    epsilon_lower_bound,
    line_embeddings,
)
from authormask.audit.case_spec import core_mechanism
from authormask.audit.cases import Context
from authormask.core import mechanism_names
from authormask.exceptions import InvalidParameterError

SEED = 7
#: The per-case confidence of a default run (Bonferroni over all its cases).
CONFIDENCE = case_confidence(0.95, len(audit_plan()))


def _case(mechanism: str, name: str) -> Any:
    (spec,) = [s for s in AUDITORS[mechanism] if s.case == name]
    return spec.build(Context())


def _line_mechanism(kind: str, epsilon: float, **extra: Any) -> Any:
    params: dict[str, Any] = {
        "epsilon": epsilon,
        "embeddings": line_embeddings(),
        "vocab_size": None,
        "stopwords": "none",
        **extra,
    }
    if kind == "emp-text":
        params["oov_map_to"] = "zero"
    return core_mechanism(kind, **params)


# --- the statistics ---------------------------------------------------------------------------


def test_clopper_pearson_matches_closed_forms() -> None:
    # k = 0: the upper bound solves (1 - p)^n = alpha; k = n: the lower bound solves p^n = alpha
    n, alpha = 50, 0.01
    assert clopper_pearson_upper(0, n, alpha)[()] == pytest.approx(1 - alpha ** (1 / n))
    assert clopper_pearson_lower(n, n, alpha)[()] == pytest.approx(alpha ** (1 / n))
    assert clopper_pearson_lower(0, n, alpha)[()] == 0.0
    assert clopper_pearson_upper(n, n, alpha)[()] == 1.0
    lo, hi = clopper_pearson_lower(30, 100, 0.025)[()], clopper_pearson_upper(30, 100, 0.025)[()]
    assert lo < 0.3 < hi


def test_lower_bound_is_valid_at_its_confidence() -> None:
    """Randomised response with log ratio exactly 1 on both outputs: over 400 independent audits
    the bound exceeds the truth in at most 5% of them (the procedure's guarantee)."""
    rng = np.random.default_rng(0)
    p = math.e / (1 + math.e)
    over = 0
    bounds = []
    for _ in range(400):
        a = (rng.random(4000) < p).astype(int)
        b = (rng.random(4000) < 1 - p).astype(int)
        lb = epsilon_lower_bound(a, b, confidence=0.95).epsilon_lower_bound
        bounds.append(lb)
        over += lb > 1.0
    assert over <= 0.05 * 400
    assert np.median(bounds) > 0.75  # and it has power


def test_identical_distributions_give_zero() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 50, 20_000), rng.integers(0, 50, 20_000)
    assert epsilon_lower_bound(a, b).epsilon_lower_bound == 0.0


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidParameterError):
        epsilon_lower_bound([0, 1, 0, 1], [0, 1, 0], confidence=0.95)
    with pytest.raises(InvalidParameterError):
        epsilon_lower_bound([0, 1, 0, 1], [0, 1, 0, 1], confidence=1.0)
    with pytest.raises(InvalidParameterError):
        audit_mechanisms(["bogus"])
    with pytest.raises(InvalidParameterError):
        audit_sampler(
            lambda x, n, rng: np.zeros(n, dtype=np.int64), (0, 1), epsilon_stated=1.0, samples=2
        )


def test_every_registered_mechanism_has_an_auditor(monkeypatch: pytest.MonkeyPatch) -> None:
    assert set(mechanism_names()) <= set(AUDITORS)
    assert {s.mechanism for s in audit_plan()} == set(mechanism_names())
    monkeypatch.delitem(AUDITORS, "syntf")
    with pytest.raises(AuditError, match="syntf"):
        audit_plan()
    with pytest.raises(AuditError, match="syntf"):
        audit_mechanisms(["emp-bag"], samples=100)


def test_sampler_must_return_one_integer_code_per_draw() -> None:
    with pytest.raises(RuntimeError, match="outputs for"):
        audit_sampler(
            lambda x, n, rng: np.zeros(n + 1, dtype=np.int64), (0, 1), epsilon_stated=1, samples=10
        )
    with pytest.raises(RuntimeError, match="integer"):
        audit_sampler(lambda x, n, rng: np.zeros(n), (0, 1), epsilon_stated=1, samples=10)


# --- the real mechanisms: valid, and the tight case has power ---------------------------------


@pytest.mark.parametrize(("mechanism", "name"), [("emp-bag", "line-1d"), ("emp-text", "line-1d")])
def test_tight_line_case_has_power(mechanism: str, name: str) -> None:
    """On the 1-d line the bound eps*d is attained: at the default sample size the audit's lower
    bound is at least 60% of it (and never above it)."""
    result = audit_case(
        _case(mechanism, name), samples=DEFAULT_SAMPLES, confidence=CONFIDENCE, random_state=SEED
    )
    assert result.passed
    assert result.epsilon_stated == pytest.approx(EMP_EPSILON_LINE)
    assert 0.6 * result.epsilon_stated <= result.epsilon_lower_bound <= result.epsilon_stated
    assert "right" in result.event or "left" in result.event


def test_bag_of_two_uses_the_emd_bound() -> None:
    result = audit_case(
        _case("emp-bag", "line-1d-N2"),
        samples=DEFAULT_SAMPLES,
        confidence=CONFIDENCE,
        random_state=SEED,
    )
    assert result.epsilon_stated == pytest.approx(2 * EMP_EPSILON_LINE)  # eps * N * E, E = d = 1
    assert result.passed
    assert result.epsilon_lower_bound >= 0.6 * result.epsilon_stated


def test_token_mechanisms_pass_with_power() -> None:
    results = audit_mechanisms(
        ["erae", "ae-dp", "syntf", "random-r"], samples=50_000, random_state=SEED
    )
    by = {(r.mechanism, r.case): r for r in results}
    assert all(r.passed for r in results)
    for kind in ("erae", "ae-dp", "syntf"):
        r = by[(kind, "extreme-K10")]
        # the exact loss of the K=10 pair is 1 + ln((1 + 9e) / (e + 9)) = 1.776
        assert 1.4 <= r.epsilon_lower_bound <= 2.0
        assert r.event.startswith(("{token 0}", "{o0}"))
    assert by[("random-r", "uniform-K1000")].epsilon_lower_bound == 0.0
    assert by[("random-r", "uniform-K1000")].epsilon_stated == 0.0


def test_the_erae_audit_draws_one_neighbour_on_the_sparse_path() -> None:
    """Trained models' rows (20,000 outputs) take the exact sampler's sparse path: the K=2048
    case puts r there and r' on the dense path, so the audit (which must pass: see
    test_token_mechanisms_pass_with_power) measures both."""
    from authormask.mechanisms import exponential as em

    case = _case("erae", "extreme-K2048")
    c = case.epsilon_stated / 2.0  # sensitivity 1
    paths = []
    for row in case.neighbours:
        bottom = np.array([row.min()])
        split = em._sparse_rows(row[None, :], em._band_top(bottom, c), bottom, c)
        paths.append(split is not None and bool(split[0][0]))
    assert paths == [True, False]


def test_results_are_reproducible_and_per_case(cache_dir: Any) -> None:
    a = audit_mechanisms(["emp-text"], samples=2000, random_state=3, cache_dir=cache_dir)
    b = audit_mechanisms(["emp-text"], samples=2000, random_state=3, cache_dir=cache_dir)
    assert a == b
    c = audit_mechanisms(
        ["emp-text", "random-r"], samples=2000, random_state=3, cache_dir=cache_dir
    )
    # a case's draws depend on the seed and its name only (the confidence on the run's size)
    assert (a[0].count_likely, a[0].count_unlikely) == (c[0].count_likely, c[0].count_unlikely)


# --- broken variants: each must be flagged ----------------------------------------------------


def _flagged(result: Any) -> None:
    assert not result.passed
    assert result.epsilon_lower_bound > result.epsilon_stated


@pytest.mark.parametrize("kind", ["emp-bag", "emp-text"])
def test_flags_doubled_epsilon(kind: str) -> None:
    """(1) The mechanism runs at 2*eps while the statement says eps*d."""
    extra = {"length": 1} if kind == "emp-bag" else {}
    real = _line_mechanism(kind, EMP_EPSILON_LINE, **extra)
    broken = _line_mechanism(kind, 2 * EMP_EPSILON_LINE, **extra)
    make = emp_bag_sampler if kind == "emp-bag" else emp_text_sampler
    neighbours: tuple[Any, Any] = (("zero",), ("one",)) if kind == "emp-bag" else ("zero", "one")
    stated = EMP_EPSILON_LINE * 1.0  # eps * d, d = 1
    kwargs: dict[str, Any] = {
        "epsilon_stated": stated,
        "samples": DEFAULT_SAMPLES,
        "confidence": CONFIDENCE,
        "random_state": SEED,
    }
    ok = audit_sampler(make(real), neighbours, **kwargs)
    bad = audit_sampler(make(broken), neighbours, **kwargs)
    assert ok.passed
    _flagged(bad)
    assert bad.epsilon_lower_bound > 1.5 * stated  # the true loss is 2 * stated


def test_flags_non_uniform_noise_direction(monkeypatch: pytest.MonkeyPatch) -> None:
    """(2) Directions biased toward +x (abs of the first coordinate), run end to end through the
    real emp-text mechanism (prepare, perturb, n-d Laplace, snapping)."""
    real = audit_case(
        _case("emp-text", "line-1d"),
        samples=DEFAULT_SAMPLES,
        confidence=CONFIDENCE,
        random_state=SEED,
    )
    original = laplace.sample_unit_directions

    def biased(size: int, *, dimension: int, random_state: Any = None) -> Any:
        d = original(size, dimension=dimension, random_state=random_state)
        d[:, 0] = np.abs(d[:, 0])
        return d

    monkeypatch.setattr(laplace, "sample_unit_directions", biased)
    broken = audit_case(
        _case("emp-text", "line-1d"),
        samples=DEFAULT_SAMPLES,
        confidence=CONFIDENCE,
        random_state=SEED,
    )
    assert real.passed
    _flagged(broken)


def test_flags_input_dependent_snapping() -> None:
    """(3) Snapping returns the input word whenever the noisy vector lies within 0.8 of it."""
    mech = _line_mechanism("emp-bag", EMP_EPSILON_LINE, length=1)
    kernel = mech.kernel
    vectors = kernel.embeddings.vectors.astype(np.float64)

    def sticky(bag: Any, n: int, rng: np.random.Generator) -> Any:
        rows = np.full(n, kernel.embeddings.index_of(bag[0]), dtype=np.intp)
        noisy = kernel.noisy_vectors(rows, random_state=rng)
        out = kernel.snap(noisy)
        near = np.linalg.norm(noisy - vectors[rows], axis=1) < 0.8
        out[near] = rows[near]
        return out.astype(np.int64)

    case = _case("emp-bag", "line-1d")
    kwargs: dict[str, Any] = {
        "epsilon_stated": case.epsilon_stated,
        "samples": DEFAULT_SAMPLES,
        "confidence": CONFIDENCE,
        "random_state": SEED,
        "labels": case.labels,
    }
    assert audit_sampler(case.sampler, case.neighbours, **kwargs).passed
    broken = audit_sampler(sticky, case.neighbours, **kwargs)
    _flagged(broken)
    assert "zero" in broken.event or "one" in broken.event


def test_flags_float_truncated_exponential_mechanism() -> None:
    """(4) Probabilities rounded down to multiples of 2^-10 before inverse-CDF sampling: in the
    K=1000 case at epsilon 2, token 0 has probability 3.7e-4 < 2^-10 under r' (unreachable) but
    2e-3 under r, which the audit sees at the default sample size."""
    from authormask.mechanisms.exponential import exponential_probabilities

    case = _case("erae", "extreme-K1000")
    grid = 2.0**-10

    def truncated(rating: Any, n: int, rng: np.random.Generator) -> Any:
        p = exponential_probabilities(
            np.clip(np.asarray(rating, dtype=np.float64), 0.0, 1.0),
            epsilon=case.epsilon_stated,
            sensitivity=1.0,
        )
        cdf = np.cumsum(np.floor(p / grid) * grid)
        u = rng.random(n) * cdf[-1]
        return np.minimum(np.searchsorted(cdf, u, side="right"), p.size - 1).astype(np.int64)

    _, rp = case.neighbours
    assert exponential_probabilities(rp, epsilon=2.0, sensitivity=1.0)[0] < grid
    kwargs: dict[str, Any] = {
        "epsilon_stated": case.epsilon_stated,
        "samples": DEFAULT_SAMPLES,
        "confidence": CONFIDENCE,
        "random_state": SEED,
        "slack": case.slack,
        "labels": case.labels,
    }
    assert audit_sampler(case.sampler, case.neighbours, **kwargs).passed
    broken = audit_sampler(truncated, case.neighbours, **kwargs)
    _flagged(broken)
    assert broken.count_unlikely == 0
    assert broken.event == "{token 0} likelier under x"


def test_declared_slack_is_tiny() -> None:
    for kind in ("erae", "ae-dp", "syntf", "random-r"):
        for spec in AUDITORS[kind]:
            assert 0.0 <= spec.build(Context()).slack < 1e-6
