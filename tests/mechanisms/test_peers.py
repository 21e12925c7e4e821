"""The peer word-level mechanisms (Mahalanobis, TEM, SanText): samplers against their analytic
distributions (fixed seeds, p about 1e-6, and tests that reject a wrong law), the certified
distances, the privacy bound on real GloVe words, statements, registry, CLI and audit."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import authormask as am
from authormask.audit.case_spec import core_mechanism
from authormask.embeddings import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.exponential import EXACT_SAMPLER_GAMMA, implemented_probabilities
from authormask.mechanisms.peers import (
    MahalanobisMechanism,
    SanTextMechanism,
    TruncatedExponentialMechanism,
    WordDistances,
    diameter_bound,
    regularized_covariance,
    tem_default_gamma,
)

P_MIN = 1e-6
DRAWS = 100_000
TEXT = (
    "The committee approved the budget on Tuesday. Critics said the plan would raise taxes, "
    "while supporters argued that schools and hospitals needed the money."
)


def _mech(name: str, emb: Embeddings, **params):
    return core_mechanism(name, embeddings=emb, vocab_size=None, **params)


@pytest.fixture(scope="module")
def glove_2k(glove_20k: Embeddings) -> Embeddings:
    return glove_20k.restrict(2_000)


@pytest.fixture(scope="module")
def tiny() -> Embeddings:
    """12 words in R^3 (seeded), a few of them close to w0 and the others far from it."""
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(12, 3)) * 1.5
    vectors[1:4] = vectors[0] + rng.normal(size=(3, 3)) * 0.3  # near w0: inside gamma
    words = tuple(f"w{i}" for i in range(12))
    return Embeddings(name="tiny-3d", source="test", words=words, vectors=vectors)


def _draw_counts(kernel, word: str, n: int, seed: int) -> np.ndarray:
    row = kernel.embeddings.index_of(word)
    out = kernel.perturb_indices(np.full(n, row), random_state=seed)
    return np.bincount(out, minlength=len(kernel.embeddings))


def _chisquare(counts: np.ndarray, p: np.ndarray) -> float:
    """Chi-square p-value of ``counts`` against the probabilities ``p`` (cells with an expected
    count below 5 pooled)."""
    expected = p * counts.sum()
    small = expected < 5
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return float(stats.chisquare(obs, exp).pvalue)


def _euclid(emb: Embeddings, row: int) -> np.ndarray:
    v = emb.vectors.astype(np.float64)
    return np.sqrt(((v - v[row]) ** 2).sum(axis=1))


# --- TEM ----------------------------------------------------------------------------------------


def _tem_algorithm_1_law(emb: Embeddings, row: int, epsilon: float, gamma: float) -> np.ndarray:
    """The output law of Carvalho et al.'s Algorithm 1, written out from the paper: scores
    ``-d`` on L_w, ``-gamma + 2 ln|V \\ L_w| / epsilon`` for bottom; the Gumbel(2/eps) argmax is
    the softmax of ``epsilon * score / 2``; bottom's mass is shared uniformly by V \\ L_w."""
    d = _euclid(emb, row)
    inside = d <= gamma
    outside = int((~inside).sum())
    scores = list(-d[inside])
    if outside:
        scores.append(-gamma + 2 * math.log(outside) / epsilon)
    w = np.exp(epsilon * np.array(scores) / 2)
    w /= w.sum()
    p = np.zeros(len(emb))
    p[inside] = w[: int(inside.sum())]
    if outside:
        p[~inside] = w[-1] / outside
    return p


def _tem_algorithm_1_simulated(
    emb: Embeddings, row: int, epsilon: float, gamma: float, n: int, seed: int
) -> np.ndarray:
    """Algorithm 1 literally, with floating-point Gumbel noise (test-only reference)."""
    rng = np.random.default_rng(seed)
    d = _euclid(emb, row)
    inside = np.flatnonzero(d <= gamma)
    outside = np.flatnonzero(d > gamma)
    scores = np.append(-d[inside], -gamma + 2 * math.log(outside.size) / epsilon)
    noisy = scores + rng.gumbel(scale=2 / epsilon, size=(n, scores.size))
    winner = noisy.argmax(axis=1)
    out = np.where(
        winner < inside.size,
        inside[np.minimum(winner, inside.size - 1)],
        outside[rng.integers(0, outside.size, size=n)],
    )
    return np.bincount(out, minlength=len(emb))


def test_tem_law_is_algorithm_1(tiny: Embeddings) -> None:
    """One exact draw with P[y] ~ exp(-eps min(d, gamma) / 2) is the paper's Gumbel argmax over
    L_w and bottom followed by a uniform word outside L_w: the two laws agree exactly, and the
    literal algorithm's draws fit it."""
    eps, gamma = 3.0, 1.0
    kernel = TruncatedExponentialMechanism(tiny, epsilon=eps, gamma=gamma)
    law = _tem_algorithm_1_law(tiny, 0, eps, gamma)
    assert 2 <= kernel.candidates("w0").size < len(tiny)  # both branches of Algorithm 1 used
    np.testing.assert_allclose(kernel.probabilities("w0"), law, rtol=1e-12)
    literal = _tem_algorithm_1_simulated(tiny, 0, eps, gamma, DRAWS, seed=1)
    assert _chisquare(literal, law) > P_MIN


def test_tem_draws_fit_the_law_and_the_test_has_power(tiny: Embeddings) -> None:
    eps, gamma = 3.0, 1.0
    kernel = TruncatedExponentialMechanism(tiny, epsilon=eps, gamma=gamma)
    counts = _draw_counts(kernel, "w0", DRAWS, seed=2)
    assert _chisquare(counts, _tem_algorithm_1_law(tiny, 0, eps, gamma)) > P_MIN
    untruncated = SanTextMechanism(tiny, epsilon=eps).probabilities("w0")
    assert _chisquare(counts, untruncated) < P_MIN  # truncation changes the law, visibly
    assert _chisquare(counts, _tem_algorithm_1_law(tiny, 0, 2 * eps, gamma)) < P_MIN


def test_tem_exact_sampler_reaches_far_words_with_their_probability(tiny: Embeddings) -> None:
    """The implemented law (exact fractions) is within exp(+-gamma_exp) of the ideal one, for
    every word, including those reached only through bottom."""
    kernel = TruncatedExponentialMechanism(tiny, epsilon=40.0, gamma=1.0)
    ratings = kernel.ratings([0])[0]
    exact = implemented_probabilities(ratings, epsilon=40.0, sensitivity=1.0)
    ideal = kernel.probabilities("w0")
    for p_exact, p_ideal in zip(exact, ideal, strict=True):
        assert p_exact > 0
        assert abs(math.log(float(p_exact) / p_ideal)) <= EXACT_SAMPLER_GAMMA + 1e-15


def test_tem_default_gamma_keeps_the_output_in_l_w(glove_20k: Embeddings) -> None:
    """gamma = (2/eps) ln((1 - beta)(K - 1)/beta), rounded up: P[output outside L_w] <= beta."""
    for eps in (2.0, 10.0):
        kernel = TruncatedExponentialMechanism(glove_20k, epsilon=eps)
        exact_gamma = (2 / eps) * math.log(0.999 * (len(glove_20k) - 1) / 0.001)
        assert exact_gamma <= kernel.gamma <= exact_gamma * 1.001
        assert kernel.gamma == tem_default_gamma(eps, len(glove_20k))
        for word in ("budget", "the", "marvelous"):
            p = kernel.probabilities(word)
            inside = kernel.candidates(word)
            assert 1.0 - p[inside].sum() <= 0.001 + 1e-12


def test_tem_privacy_bound_on_real_words(glove_2k: Embeddings) -> None:
    """P[y | w] <= exp(eps * min(d(w, w'), gamma)) P[y | w'] for every pair of 300 real GloVe
    words and every output (ideal law), and the bound is used: some pair comes within 1%."""
    emb = glove_2k.restrict(300)
    eps, gamma = 4.0, 2.5
    kernel = TruncatedExponentialMechanism(emb, epsilon=eps, gamma=gamma)
    logp = np.log(np.array([kernel.probabilities(w) for w in emb.words]))
    d = np.array([_euclid(emb, i) for i in range(len(emb))])
    worst = (logp[:, None, :] - logp[None, :, :]).max(axis=2)  # (w, w') -> max_y log ratio
    allowed = eps * np.minimum(d, gamma)
    assert np.all(worst <= allowed + 1e-9)
    assert np.all(worst <= eps * gamma + 1e-9)  # epsilon*gamma-DP between any two words


def test_tem_refuses_bad_gamma_and_tiny_vocabularies(
    glove_20k: Embeddings, glove_2k: Embeddings
) -> None:
    for bad in (0, -1.0, float("inf"), float("nan"), True, "two"):
        with pytest.raises(
            InvalidParameterError, match=r"`gamma` must be a finite number in \(0, 1e\+06\]"
        ):
            _mech("tem", glove_20k, epsilon=1.0, gamma=bad)
    with pytest.raises(InvalidParameterError, match="at least 2"):
        TruncatedExponentialMechanism(glove_2k.restrict(1), epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="2\\^40"):
        TruncatedExponentialMechanism(glove_2k, epsilon=1e15, gamma=10.0)


# --- SanText ------------------------------------------------------------------------------------


def test_santext_draws_fit_exp_minus_half_eps_d(tiny: Embeddings) -> None:
    """P[y | x] ~ exp(-eps d(x, y) / 2) (Yue et al.); the factor 1/2 is visible in the data."""
    eps = 2.0
    kernel = SanTextMechanism(tiny, epsilon=eps)
    d = _euclid(tiny, 0)
    law = np.exp(-eps * d / 2) / np.exp(-eps * d / 2).sum()
    np.testing.assert_allclose(kernel.probabilities("w0"), law, rtol=1e-12)
    counts = _draw_counts(kernel, "w0", DRAWS, seed=3)
    assert _chisquare(counts, law) > P_MIN
    wrong = np.exp(-eps * d) / np.exp(-eps * d).sum()
    assert _chisquare(counts, wrong) < P_MIN


def test_santext_privacy_bound_on_real_words(glove_2k: Embeddings) -> None:
    emb = glove_2k.restrict(300)
    eps = 1.5
    kernel = SanTextMechanism(emb, epsilon=eps)
    logp = np.log(np.array([kernel.probabilities(w) for w in emb.words]))
    d = np.array([_euclid(emb, i) for i in range(len(emb))])
    worst = (logp[:, None, :] - logp[None, :, :]).max(axis=2)
    assert np.all(worst <= eps * d + 1e-9)
    assert np.all(d <= kernel.diameter)
    assert kernel.diameter <= 2 * d.max()  # the bound is not vacuous


def test_santext_draws_on_glove_fit_the_law(glove_2k: Embeddings) -> None:
    kernel = SanTextMechanism(glove_2k, epsilon=3.0)
    counts = _draw_counts(kernel, "budget", 40_000, seed=4)
    assert _chisquare(counts, kernel.probabilities("budget")) > P_MIN


# --- certified distances ------------------------------------------------------------------------


def _exact_squared(a: np.ndarray, b: np.ndarray) -> Fraction:
    return sum(
        ((Fraction(float(x)) - Fraction(float(y))) ** 2 for x, y in zip(a, b, strict=True)),
        Fraction(0),
    )


def test_certified_distances_on_real_vectors(glove_2k: Embeddings) -> None:
    dist = WordDistances(glove_2k.vectors)
    rows = np.array([0, 17, 500, 1999], dtype=np.intp)
    d = dist(rows)
    assert np.all(d[np.arange(4), rows] == 0.0)  # a word's distance to itself is exactly 0
    rho = dist.relative_error
    cols = np.random.default_rng(0).choice(len(glove_2k), 150, replace=False)
    for i, r in enumerate(rows):
        for j in cols:
            exact = _exact_squared(glove_2k.vectors[r], glove_2k.vectors[j])
            if exact == 0:
                assert d[i, j] == 0.0
                continue
            ratio = Fraction(float(d[i, j])) ** 2 / exact  # (1 +- rho)^2
            assert (1 - rho) ** 2 <= ratio <= (1 + rho) ** 2


def test_near_duplicates_are_recomputed_where_the_screen_would_fail() -> None:
    """Two vectors a few float32 ulps apart: the product screen cancels catastrophically (its
    relative error is far above rho) and the certified distance is still within rho."""
    base = np.random.default_rng(3).normal(size=50).astype(np.float32) * 3
    near = np.nextafter(base, np.float32(np.inf))
    near[5:] = base[5:]
    vectors = np.stack([base, near, -base])
    dist = WordDistances(vectors)
    d = dist(np.array([0], dtype=np.intp))[0]
    exact = math.sqrt(_exact_squared(base, near))
    assert abs(d[1] - exact) <= dist.relative_error * exact
    v = vectors.astype(np.float64)
    screen = math.sqrt(max(v[0] @ v[0] + v[1] @ v[1] - 2 * v[0] @ v[1], 0.0))
    assert abs(screen - exact) > dist.relative_error * exact


def test_diameter_bound_is_an_upper_bound(glove_2k: Embeddings) -> None:
    emb = glove_2k.restrict(400)
    v = emb.vectors.astype(np.float64)
    largest = max(float(np.sqrt(((v - v[i]) ** 2).sum(axis=1)).max()) for i in range(len(v)))
    assert largest <= diameter_bound(emb) <= 2 * largest


# --- Mahalanobis --------------------------------------------------------------------------------


def test_regularized_covariance_is_the_papers(glove_2k: Embeddings) -> None:
    v = glove_2k.vectors.astype(np.float64)
    n = v.shape[1]
    sigma = np.cov(v, rowvar=False)
    sigma *= n / np.trace(sigma)
    for lam in (0.0, 0.3, 1.0):
        got = regularized_covariance(glove_2k.vectors, lam)
        np.testing.assert_allclose(got, lam * sigma + (1 - lam) * np.eye(n), rtol=1e-10, atol=1e-12)
        assert np.trace(got) == pytest.approx(n)
    kernel = MahalanobisMechanism(glove_2k, epsilon=5.0, regularization=0.3)
    np.testing.assert_allclose(kernel.root @ kernel.root, kernel.covariance, atol=1e-12)
    assert np.array_equal(kernel.root, kernel.root.T)


def test_mahalanobis_noise_is_elliptical_laplace(glove_2k: Embeddings) -> None:
    """Z = Y S X: whitened by S^-1 it is the n-dimensional Laplace noise of Theorem 2 of
    Fernandes et al. (radius Gamma(n, 1/eps), direction uniform); unwhitened it is not."""
    eps, n = 4.0, glove_2k.dimension
    kernel = MahalanobisMechanism(glove_2k, epsilon=eps, regularization=0.8)
    z = kernel.noise(20_000, random_state=5)
    w = z @ np.linalg.inv(kernel.root)  # S symmetric: rows of (S^-1 z)^T
    radius = np.linalg.norm(w, axis=1)
    gamma_n = stats.gamma(a=n, scale=1 / eps)
    assert stats.kstest(radius, gamma_n.cdf).pvalue > P_MIN
    u = w / radius[:, None]
    for e in np.eye(n)[:3]:
        t = (1 + u @ e) / 2
        assert stats.kstest(t, stats.beta((n - 1) / 2, (n - 1) / 2).cdf).pvalue > P_MIN
    assert stats.kstest(np.linalg.norm(z, axis=1), gamma_n.cdf).pvalue < P_MIN
    # the metric of the guarantee: d_R(x, y) = sqrt((x - y)^T Sigma_lambda^-1 (x - y))
    a, b = glove_2k.words[10], glove_2k.words[20]
    diff = glove_2k.lookup([a])[0].astype(np.float64) - glove_2k.lookup([b])[0]
    direct = math.sqrt(diff @ np.linalg.solve(kernel.covariance, diff))
    assert kernel.distance(a, b) == pytest.approx(direct, rel=1e-12)
    assert kernel.distance(a, a) == 0.0


def test_mahalanobis_in_one_dimension_is_laplace_then_snap() -> None:
    """In 1-d Sigma_lambda = 1: the cells of left/zero/one/right get exactly the 1-d Laplace
    masses (density eps/2 e^{-eps |z|} around the input)."""
    from authormask.audit.cases import line_embeddings

    emb = line_embeddings()
    eps = 2.0
    kernel = MahalanobisMechanism(emb, epsilon=eps, regularization=0.7)
    assert kernel.root.tolist() == [[1.0]]
    cut = np.array([-np.inf, -0.1, 0.5, 1.1, np.inf])  # cell boundaries (midpoints)

    def cdf(t: np.ndarray) -> np.ndarray:  # Laplace(0, 1/eps) around the input zero
        return np.where(t < 0, 0.5 * np.exp(eps * t), 1 - 0.5 * np.exp(-eps * t))

    law = np.diff(cdf(cut))
    counts = _draw_counts(kernel, "zero", DRAWS, seed=6)
    assert _chisquare(counts, law) > P_MIN


def test_mahalanobis_with_lambda_zero_is_earth_movers(glove_20k: Embeddings) -> None:
    """lambda = 0: S = I exactly, so the same generator gives emp-text's output word for word
    (a release keys its generator by its own statement too, so they are compared here on one
    generator)."""
    maha = _mech("mahalanobis", glove_20k, epsilon=3.0, regularization=0.0)
    emp = _mech("emp-text", glove_20k, epsilon=3.0)

    def words(mech: object) -> tuple[str, ...]:
        units = list(mech.prepare_parts([TEXT]))  # type: ignore[attr-defined]
        gen = np.random.default_rng(8)
        out = mech.perturb(units, [gen] * len(units))  # type: ignore[attr-defined]
        return tuple(w for o in out for w in o.words)

    a, b = words(maha), words(emp)
    assert a == b and len(a) > 3
    assert am.release([TEXT], maha, random_state=8).texts[0] != TEXT


def test_mahalanobis_refuses_singular_covariance_and_bad_lambda(glove_20k: Embeddings) -> None:
    flat = Embeddings(
        name="flat",
        source="test",
        words=("a", "b", "c"),
        vectors=np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], dtype=np.float32),
    )
    with pytest.raises(InvalidParameterError, match="singular"):
        MahalanobisMechanism(flat, epsilon=1.0, regularization=1.0)
    MahalanobisMechanism(flat, epsilon=1.0, regularization=0.999)  # regularized: fine
    for bad in (-0.1, 1.5, float("nan"), True, "x"):
        with pytest.raises(
            InvalidParameterError, match=r"`regularization` must be a finite number in \[0, 1\]"
        ):
            _mech("mahalanobis", glove_20k, epsilon=1.0, regularization=bad)


# --- the release layer --------------------------------------------------------------------------

PEERS = {
    "mahalanobis": {"regularization": 0.5},
    "tem": {"gamma": 2.0},
    "santext": {},
}


@pytest.mark.parametrize("name", sorted(PEERS))
def test_in_place_release_keeps_the_skeleton(glove_20k: Embeddings, name: str) -> None:
    text = "The  Budget,\n\tapproved on TUESDAY -- by Zxqvbnm's committee.\n\n"
    big = am.release([TEXT], _mech(name, glove_20k, epsilon=500.0, **PEERS[name]), random_state=0)
    assert big.texts[0] == TEXT  # nearly noiseless: every word kept
    mech = _mech(name, glove_20k, epsilon=1.0, **PEERS[name])
    res = am.release([text, TEXT], mech, random_state=3)
    out = res.texts[0]
    assert re.findall(r"\s+", out) == re.findall(
        r"\s+", text.replace("\t", " ")
    )  # a tab as a space
    assert out.startswith("The  ") and out.endswith(".\n\n") and "--" in out
    assert "zxqvbnm" not in out.lower()  # the unknown word is mapped and perturbed
    changed = sum(
        a != b
        for a, b in zip(mech.prepare(TEXT).content_words, res.documents[1].words, strict=True)
    )
    assert changed >= 8  # at epsilon 1 most content words change
    alone = am.release([text], mech, random_state=3)
    assert alone.texts[0] == out  # a document's output does not depend on the batch


@pytest.mark.parametrize("name", sorted(PEERS))
def test_statement_names_the_paper_and_public_parameters_only(
    glove_20k: Embeddings, name: str
) -> None:
    mech = _mech(name, glove_20k, epsilon=7.0, **PEERS[name])
    a = am.release(["budget"], mech, random_state=1).statement
    b = am.release([TEXT, "Zxqvbnm, money!"], mech, random_state=99).statement
    assert a == b and a.to_json() == b.to_json()
    text = a.describe()
    assert a.mechanism == name
    author = {"mahalanobis": "Xu, Aggarwal", "tem": "Carvalho, Vasiloudis", "santext": "Yue, Du"}
    assert author[name] in a.reference
    unit = {"mahalanobis": "d_R", "tem": "min(d(w, w'), 2)", "santext": "d_euc(w, w')"}
    assert unit[name] in a.guarantee
    assert "exp(7 *" in a.guarantee and a.epsilon == 7.0
    assert a.embeddings is not None and a.embeddings["vectors_sha256"] in text
    assert "99" not in text and "seeded" in a.randomness


def test_statement_numbers_match_a_direct_computation(glove_20k: Embeddings) -> None:
    st = _mech("mahalanobis", glove_20k, epsilon=3.0, regularization=0.36).statement(seeded=False)
    euclid = float(re.search(r"also (\S+)\*d_2-privacy", st.guarantee)[1])
    assert 3.0 / math.sqrt(0.64) <= euclid <= 3.0 / math.sqrt(0.64) * 1.001
    tem = _mech("tem", glove_20k, epsilon=5.0)
    st = tem.statement(seeded=False)
    assert f"min(d(w, w'), {tem.gamma:g})" in st.guarantee and "beta = 0.001" in str(st.parameters)
    slack = float(re.search(r"at most (\S+) more", st.document_bound)[1])
    assert tem.kernel.slack() <= slack <= 1e-9
    san = _mech("santext", glove_20k, epsilon=5.0).statement(seeded=False)
    assert re.search(r"D <= [0-9.]+", san.guarantee)


def test_registry_cli_end_to_end(cache_dir: Path, invoke) -> None:
    fast = ["--cache-dir", str(cache_dir), "--vocab-size", "20000"]
    for name, flags in (
        ("mahalanobis", ["--regularization", "0.5"]),
        ("tem", ["--gamma", "3"]),
        ("santext", []),
    ):
        code, out, err = invoke(["obfuscate", "-m", name, "-e", "10", "--seed", "1", *flags, *fast])
        assert code == 0, err
        assert len(out.split()) > 50  # the bundled example, released
        assert f"mechanism   : {name}: " in err and "Privacy statement" in err
    code, _, err = invoke(["obfuscate", "-m", "santext", "-e", "1", "--gamma", "2"])
    assert code != 0 and "--gamma does not apply to --mechanism santext" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = invoke(["obfuscate", "-m", "mahalanobis", "-e", "1", "--regularization", "2"])
    assert code != 0 and "--regularization" in err and len(err.strip().splitlines()) == 1
    code, _, err = invoke(["obfuscate", "-m", "tem", "-e", "1", "--regularization", "0.1"])
    assert code != 0 and "does not apply to --mechanism tem" in err


def test_audit_cases_pass_and_have_power(cache_dir: Path) -> None:
    from authormask.audit import audit_mechanisms

    results = audit_mechanisms(
        ["mahalanobis", "tem", "santext"], samples=40_000, random_state=3, cache_dir=cache_dir
    )
    assert {r.mechanism for r in results} == set(PEERS)
    for r in results:
        assert r.passed, r
    bound = {(r.mechanism, r.case): r.epsilon_lower_bound for r in results}
    assert bound[("mahalanobis", "line-1d")] > 1.6  # stated 2, attained
    assert bound[("tem", "cluster-1d")] > 1.2 and bound[("santext", "cluster-1d")] > 1.2
    assert bound[("tem", "truncated-1d")] > 0.3  # stated eps*gamma = 1
