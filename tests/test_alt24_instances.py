"""Asi, Liu & Tian (2024) test instances: the per-sample losses (``dpsco.reference.alt24.losses``), the heavy-tailed
generators with exact moments and the population oracles (``dpsco.oracles.heavy_tails``), and the real data
``randhie`` (``dpsco.verification.papers.alt24_data``).

Golden values are hand derivations written beside each assertion.  Monte Carlo checks state their false-failure
probability (≤ 1e-6 per test) from a finite-sample bound in a comment.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate

from dpsco.oracles.heavy_tails import (LomaxRadius, ParetoRadius, RadialVector, StudentTRadius,
                                       TruncatedParetoRadius, fact1_bound, sphere_marginal_cdf)
from dpsco.reference.alt24.primitives import clip
from dpsco.reference.alt24.losses import (LADLoss, LeastSquaresLoss, LinearLoss, LogisticGLMLoss,
                                          MeanEstimationLoss, TiltedQuadraticLoss, logistic_records)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)

# ---------------------------------------------------------------------------------------------------------------
# losses


def _loss_and_records(kind: str, rng: np.random.Generator, n: int, d: int):
    """A loss and (n, p) records with heavy-ish scale variation (norms over several orders of magnitude)."""
    scale = np.exp(rng.uniform(-2, 2, size=(n, 1)))
    if kind == "linear":
        return LinearLoss(), rng.normal(size=(n, d)) * scale
    if kind == "mean":
        return MeanEstimationLoss(), rng.normal(size=(n, d)) * scale
    if kind == "tilted":
        return TiltedQuadraticLoss(0.7), np.hstack([rng.normal(size=(n, d)) * scale, rng.normal(size=(n, d))])
    if kind in ("lad", "ls"):
        S = np.hstack([rng.normal(size=(n, d)) * scale, rng.normal(size=(n, 1)) * 3])
        return (LADLoss() if kind == "lad" else LeastSquaresLoss()), S
    if kind == "logistic":
        S = rng.normal(size=(n, d)) * scale
        M = float(np.max(np.linalg.norm(S, axis=1)))
        return LogisticGLMLoss(M), S
    raise AssertionError(kind)


KINDS = ("linear", "mean", "tilted", "lad", "ls", "logistic")


@SETTINGS
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**32 - 1), d=st.integers(1, 5))
def test_gradients_match_central_differences(kind, seed, d):
    """Deterministic property: ∇f(x; s) equals the central difference of f (all losses are C² except LAD at its
    kink, where the difference is skipped when the kink lies within the step)."""
    rng = np.random.default_rng(seed)
    loss, S = _loss_and_records(kind, rng, 6, d)
    x = rng.normal(size=d)
    G = loss.grads(x, S)
    assert G.shape == (6, d)
    h = 1e-6
    for j in range(d):
        e = np.zeros(d)
        e[j] = h
        fd = (loss.values(x + e, S) - loss.values(x - e, S)) / (2 * h)
        scale = 1 + np.abs(loss.values(x, S)) + np.linalg.norm(S, axis=1) ** 2
        ok = np.ones(6, dtype=bool)
        if kind == "lad":  # skip rows whose kink ⟨a, x⟩ = b lies within ±h‖a‖ of x
            a, b = S[:, :-1], S[:, -1]
            ok = np.abs(a @ x - b) > 2 * h * np.linalg.norm(a, axis=1)
        np.testing.assert_allclose(G[ok, j], fd[ok], rtol=0, atol=1e-5 * scale[ok].max())


@SETTINGS
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 2**32 - 1), d=st.integers(1, 5),
       R=st.floats(0.1, 10.0))
def test_lipschitz_bound_is_the_exact_max_over_the_ball(kind, seed, d, R):
    """‖∇f(x; s)‖ ≤ L̄_s at random points of B(0, R), and L̄_s is attained at the maximiser named in each loss's
    docstring (so L̄_s = L_s, Assumption 2 with equality)."""
    rng = np.random.default_rng(seed)
    loss, S = _loss_and_records(kind, rng, 5, d)
    Lbar = loss.lipschitz_bound(S, R)
    assert Lbar.shape == (5,)
    for _ in range(5):
        u = rng.normal(size=d)
        x = u / np.linalg.norm(u) * R * rng.uniform() ** (1 / d)
        norms = np.linalg.norm(loss.grads(x, S), axis=1)
        assert np.all(norms <= Lbar * (1 + 1e-12))
    # the maximiser for each record: evaluate row by row (one-row datasets)
    for i in range(5):
        s = S[i]
        if kind == "linear" or kind == "lad":
            xs = np.zeros(d)
        elif kind == "mean":
            xs = -R * s / np.linalg.norm(s)
        elif kind == "tilted":
            v = s[:d] - 0.7 * s[d:]
            xs = R * v / np.linalg.norm(v)
        elif kind == "ls":
            a, b = s[:-1], s[-1]
            xs = -np.sign(b) * R * a / np.linalg.norm(a)
        else:
            xs = R * s / np.linalg.norm(s)
        g = np.linalg.norm(loss.grads(xs, s[None, :])[0])
        np.testing.assert_allclose(g, Lbar[i], rtol=1e-12)


def test_hand_values():
    """Hand-computed values, d = 2, x = (1, 2)."""
    x = np.array([1.0, 2.0])
    # linear: ⟨(3, −1), x⟩ = 1; ∇ = s; L = √10
    S = np.array([[3.0, -1.0]])
    assert LinearLoss().values(x, S)[0] == 1.0
    assert LinearLoss().lipschitz_bound(S, 5.0)[0] == pytest.approx(np.sqrt(10))
    # mean: ½‖(1,2) − (3,−1)‖² = ½(4 + 9) = 6.5; ∇ = (−2, 3); L = R + √10
    assert MeanEstimationLoss().values(x, S)[0] == 6.5
    np.testing.assert_array_equal(MeanEstimationLoss().grads(x, S)[0], [-2.0, 3.0])
    assert MeanEstimationLoss().lipschitz_bound(S, 2.0)[0] == pytest.approx(2 + np.sqrt(10))
    # tilted, β₀ = 2, ξ = (1, 0), z = (0, 1): ⟨ξ, x⟩ + ‖x − z‖² = 1 + (1 + 1) = 3; ∇ = ξ + 2(x − z) = (3, 2)
    T = TiltedQuadraticLoss(2.0)
    R4 = np.array([[1.0, 0.0, 0.0, 1.0]])
    assert T.values(x, R4)[0] == 3.0
    np.testing.assert_array_equal(T.grads(x, R4)[0], [3.0, 2.0])
    # L = ‖ξ − 2z‖ + 2R = √5 + 2R
    assert T.lipschitz_bound(R4, 1.5)[0] == pytest.approx(np.sqrt(5) + 3)
    # LAD / LS with a = (1, 1), b = 5: residual 3 − 5 = −2
    AB = np.array([[1.0, 1.0, 5.0]])
    assert LADLoss().values(x, AB)[0] == 2.0
    np.testing.assert_array_equal(LADLoss().grads(x, AB)[0], [-1.0, -1.0])
    assert LeastSquaresLoss().values(x, AB)[0] == 2.0
    np.testing.assert_array_equal(LeastSquaresLoss().grads(x, AB)[0], [-2.0, -2.0])
    # L = (R√2 + 5)√2 = 2R + 5√2
    assert LeastSquaresLoss().lipschitz_bound(AB, 3.0)[0] == pytest.approx(6 + 5 * np.sqrt(2))
    # sign(0) = 1 at the kink: a = (1, 1), b = 3
    np.testing.assert_array_equal(LADLoss().grads(x, np.array([[1.0, 1.0, 3.0]]))[0], [1.0, 1.0])
    # logistic: s = (0, 0) → log 2, ∇ = 0; s = (−1, 0.5): t = 0 → log 2, ∇ = s/2
    Lg = LogisticGLMLoss(2.0)
    S2 = np.array([[0.0, 0.0], [-1.0, 0.5]])
    np.testing.assert_allclose(Lg.values(x, S2), [np.log(2), np.log(2)], rtol=1e-15)
    np.testing.assert_allclose(Lg.grads(x, S2)[1], [-0.5, 0.25], rtol=1e-15)
    assert Lg.smoothness(1.0) == 1.0  # M²/4 = 4/4
    np.testing.assert_array_equal(logistic_records(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0])),
                                  [[-1.0, -2.0], [3.0, 4.0]])


def test_declared_constants_and_flags():
    assert LinearLoss().glm and LogisticGLMLoss(1.0).glm and not LADLoss().glm
    assert LinearLoss().smoothness(1.0) == 0.0 and LinearLoss().strong_convexity() == 0.0
    assert MeanEstimationLoss().smoothness(1.0) == 1.0 and MeanEstimationLoss().strong_convexity() == 1.0
    assert TiltedQuadraticLoss(0.3).smoothness(1.0) == 0.3 and TiltedQuadraticLoss(0.3).strong_convexity() == 0.3
    assert LADLoss().smoothness(1.0) is None and LeastSquaresLoss().smoothness(1.0) is None
    assert LeastSquaresLoss(a_max=2.0).smoothness(1.0) == 4.0
    assert LinearLoss().dimension(4) == 4 and LADLoss().dimension(4) == 3 and TiltedQuadraticLoss(1).dimension(4) == 2


def test_bad_inputs_are_refused_naming_the_parameter():
    x = np.zeros(2)
    with pytest.raises(ValueError, match="M"):
        LogisticGLMLoss(1.0).grads(x, np.array([[3.0, 0.0]]))
    with pytest.raises(ValueError, match="M"):
        LogisticGLMLoss(1.0).lipschitz_bound(np.array([[3.0, 0.0]]), 1.0)
    with pytest.raises(ValueError, match="a_max"):
        LeastSquaresLoss(a_max=1.0).values(x, np.array([[3.0, 0.0, 1.0]]))
    with pytest.raises(ValueError, match="beta0"):
        TiltedQuadraticLoss(0.0)
    with pytest.raises(TypeError, match="M"):
        LogisticGLMLoss("1")
    with pytest.raises(ValueError, match="even"):
        TiltedQuadraticLoss(1.0).grads(x, np.ones((2, 3)))
    with pytest.raises(ValueError, match="x"):
        LinearLoss().grads(np.zeros(3), np.ones((2, 2)))
    with pytest.raises(ValueError, match="S"):
        LinearLoss().grads(x, np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="radius"):
        MeanEstimationLoss().lipschitz_bound(np.ones((1, 2)), -1.0)
    with pytest.raises(ValueError, match="y"):
        logistic_records(np.ones((2, 2)), np.array([1.0, 0.0]))


# ---------------------------------------------------------------------------------------------------------------
# radial laws: exact partial moments against scipy and Monte Carlo

LAWS = (ParetoRadius(10.0, 1.0), ParetoRadius(3.5, 2.0), LomaxRadius(4.5, 1.3), StudentTRadius(4.5, 3, 0.7),
        TruncatedParetoRadius(3.0, 1.0, 20.0))


def _hoeffding(span: float, n: int, delta: float) -> float:
    """Two-sided Hoeffding half-width for the mean of n i.i.d. variables in an interval of length ``span``:
    Pr[|mean − E| ≥ h] ≤ δ for h = span·√(log(2/δ)/(2n))."""
    return span * math.sqrt(math.log(2 / delta) / (2 * n))


@pytest.mark.parametrize("law", LAWS, ids=lambda l: type(l).__name__)
def test_moments_and_partial_moments_match_scipy(law):
    """Deterministic: E r^j and T_1(C) = E[r𝕀_{r>C}], E(r − C)_+, Pr[r > C] against scipy's own distribution
    (moments by scipy's ``expect``/``moment``; tails by adaptive quadrature of its pdf)."""
    D, g = law.scipy_distribution()
    for j in (1, 2, 3):
        if j >= law.tail_index:
            assert law.moment(j) == math.inf
            continue
        ref = D.expect(lambda v: g(v) ** j)
        assert law.moment(j) == pytest.approx(ref, rel=1e-8)
    for C in (0.5, 1.0, 2.5, 7.0):
        # substitute r = g(v): E[h(r)] = ∫ h(g(v)) pdf_D(v) dv over the support, split at the threshold
        v_c = {ParetoRadius: C, LomaxRadius: C, TruncatedParetoRadius: C}.get(type(law))
        if v_c is None:  # Student-t: r = √(σ²d F)
            v_c = C * C / (law.scale**2 * law.d)
        lo, hi = D.support()
        start = max(lo, v_c)
        ref_tail = ref_excess = 0.0
        if start < hi:
            ref_tail = integrate.quad(lambda v: g(v) * D.pdf(v), start, hi, limit=400, epsabs=1e-13)[0]
            ref_excess = integrate.quad(lambda v: (g(v) - C) * D.pdf(v), start, hi, limit=400, epsabs=1e-13)[0]
        assert law.tail_mean(C) == pytest.approx(ref_tail, rel=1e-7, abs=1e-12)
        assert law.mean_excess(C) == pytest.approx(ref_excess, rel=1e-7, abs=1e-12)
        assert law.sf(C) == pytest.approx(float(D.sf(v_c)), rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("law", LAWS, ids=lambda l: type(l).__name__)
def test_samplers_match_the_closed_forms(law):
    """Monte Carlo, N = 200,000 draws, three bounded statistics per law, each checked with a Hoeffding half-width
    at δ = 1e-7 (union bound: the test's false-failure probability is ≤ 3e-7):
    Pr[r > C] (in [0, 1]), E min(r, T) = E r − E(r − T)_+ (in [0, T]), E[r𝕀_{C < r ≤ T}] = T_1(C) − T_1(T) (in
    [0, T])."""
    rng = np.random.default_rng(1234)
    N, delta = 200_000, 1e-7
    r = law.sample(N, rng)
    assert np.all(np.isfinite(r)) and np.all(r >= law.lower)
    C, T = 1.5 * max(law.lower, 0.5), 6.0 * max(law.lower, 0.5)
    assert abs(np.mean(r > C) - law.sf(C)) <= _hoeffding(1.0, N, delta)
    assert abs(np.mean(np.minimum(r, T)) - (law.moment(1) - law.mean_excess(T))) <= _hoeffding(T, N, delta)
    assert abs(np.mean(r * ((r > C) & (r <= T))) - law.interval_moment(1, C, T)) <= _hoeffding(T, N, delta)


def test_pareto_hand_values_and_the_fact1_counterexample():
    """Hand derivation (Pareto α = 10, x_m = 1, C = 1; r ≥ 1 surely): E r = α/(α − 1) = 10/9, so
    E(r − C)_+ = E r − 1 = 1/9 and E[r𝕀_{r>1}] = E r = 10/9; E r³ = α/(α − 3) = 10/7 = G_3³.  Fact 1 prints
    E[‖X‖𝕀_{‖X‖≥C}] ≤ G³/((k − 1)C^{k−1}) = (10/7)/2 = 5/7 < 10/9: the middle inequality is false for k = 3; the outer
    one (1/9 ≤ 5/7) and the corrected middle bound G³/C² = 10/7 ≥ 10/9 hold."""
    law = ParetoRadius(10.0, 1.0)
    assert law.mean_excess(1.0) == pytest.approx(1 / 9, rel=1e-14)
    assert law.tail_mean(1.0) == pytest.approx(10 / 9, rel=1e-14)
    assert law.moment(3) == pytest.approx(10 / 7, rel=1e-14)
    b = fact1_bound(law.moment(3) ** (1 / 3), 3, 1.0)
    assert b["printed"] == pytest.approx(5 / 7, rel=1e-13)
    assert law.tail_mean(1.0) > b["printed"]  # the printed middle inequality fails (erratum)
    assert law.mean_excess(1.0) <= b["printed"]  # the outer inequality holds
    assert law.tail_mean(1.0) <= b["corrected"]
    # C ≥ x_m closed forms: E(r − C)_+ = x_m^α C^{1−α}/(α − 1), E[r𝕀] = α x_m^α C^{1−α}/(α − 1); C = 2
    assert law.mean_excess(2.0) == pytest.approx(2.0**-9 / 9, rel=1e-12)
    assert law.tail_mean(2.0) == pytest.approx(10 * 2.0**-9 / 9, rel=1e-12)
    # Lomax α = 3, x_m = 1: E r = Γ(2)Γ(2)/Γ(3) = 1/2, E r² = Γ(3)Γ(1)/Γ(3) = 1; E(r − C)_+ = (1 + C)^{−2}/2
    lo = LomaxRadius(3.0, 1.0)
    assert lo.moment(1) == pytest.approx(0.5, rel=1e-13) and lo.moment(2) == pytest.approx(1.0, rel=1e-13)
    assert lo.mean_excess(1.0) == pytest.approx(0.125, rel=1e-12)
    # Student-t radius, d = 1, ν = 3, σ = 1: r = |t_3|, E|t_3| = 2√3/π, E t_3² = ν/(ν − 2) = 3
    st = StudentTRadius(3.0, 1)
    assert st.moment(1) == pytest.approx(2 * math.sqrt(3) / math.pi, rel=1e-12)
    assert st.moment(2) == pytest.approx(3.0, rel=1e-12)
    assert ParetoRadius(3.0).moment(3) == math.inf


@settings(max_examples=30, deadline=None, derandomize=True)
@given(alpha=st.floats(2.1, 12.0), k=st.integers(2, 6), C=st.floats(0.2, 20.0))
def test_fact1_outer_inequality_holds_and_corrected_middle_bound_holds(alpha, k, C):
    """Property (exact closed forms): for radial Pareto with E r^k ≤ G^k (α > k), E(r − C)_+ ≤ G^k/((k − 1)C^{k−1})
    (Fact 1's outer inequality) and E[r𝕀_{r>C}] ≤ G^k/C^{k−1} (the corrected middle bound)."""
    if alpha <= k:
        return
    law = ParetoRadius(alpha, 1.0)
    b = fact1_bound(law.moment(k) ** (1 / k), k, C)
    assert law.mean_excess(C) <= b["printed"] * (1 + 1e-12)
    assert law.tail_mean(C) <= b["corrected"] * (1 + 1e-12)


def test_sphere_marginal():
    """d = 3: ⟨u, e⟩ is uniform on [−1, 1] (Archimedes), so Pr[⟨u, e⟩ ≤ t] = (1 + t)/2."""
    np.testing.assert_allclose(sphere_marginal_cdf(np.array([-1.0, -0.3, 0.0, 0.8, 1.0]), 3),
                               [0.0, 0.35, 0.5, 0.9, 1.0], rtol=1e-13, atol=1e-15)


VECTORS = (RadialVector(ParetoRadius(4.5, 1.0), 3, [1.0, -0.5, 0.2]),
           RadialVector(LomaxRadius(3.5, 1.0), 2, [0.3, 0.1]),
           RadialVector(StudentTRadius(3.5, 4), 4, [2.0, 0.0, 0.0, 0.0]),
           RadialVector(ParetoRadius(3.5, 1.0), 1, [0.7]),
           RadialVector(ParetoRadius(3.5, 1.0), 2, [0.7, 0.4], isotropic=False))


@pytest.mark.parametrize("vec", VECTORS, ids=lambda v: f"{type(v.law).__name__}-d{v.d}-iso{v.isotropic}")
def test_truncated_and_clipped_means_match_monte_carlo(vec):
    """E[s𝕀_{‖s‖≤C}] and E[Π_C(s)] (quadrature / closed form) against N = 200,000 draws at C ∈ {1, 3}: every
    coordinate of both statistics lies in [−C, C], so each of the 2·2·d ≤ 16 comparisons uses a Hoeffding half-width
    at δ = 5e-8 (union bound: false-failure probability ≤ 8e-7)."""
    rng = np.random.default_rng(99)
    N, delta = 200_000, 5e-8
    S = vec.sample(N, rng)
    ns = np.linalg.norm(S, axis=1)
    for C in (1.0, 3.0):
        h = _hoeffding(2 * C, N, delta)
        np.testing.assert_array_less(np.abs((S * (ns <= C)[:, None]).mean(axis=0) - vec.truncated_mean(C)), h)
        np.testing.assert_array_less(np.abs(clip(S, C).mean(axis=0) - vec.clipped_mean(C)), h)


def test_vector_hand_values_and_moment_bounds():
    """μ = 0: E‖s‖^j = E r^j exactly (G_j exact); mean estimation's L_s = R + r, E(R + r)² = R² + 2R E r + E r²
    (Pareto α = 4, x_m = 1: E r = 4/3, E r² = 2; R = 1: 1 + 8/3 + 2 = 17/3).  u = e_1, μ = 0, C ≥ 1:
    E[s𝕀_{‖s‖≤C}] = E[r𝕀_{r≤C}] e_1 = (E r − α C^{1−α}/(α − 1)) e_1."""
    v = RadialVector(ParetoRadius(4.0, 1.0), 3)
    G2, exact = v.affine_norm_moment(2, 1.0, 1.0)
    assert exact and G2 == pytest.approx(math.sqrt(17 / 3), rel=1e-13)
    G3, exact = v.affine_norm_moment(3)
    assert exact and G3 == pytest.approx(4.0 ** (1 / 3), rel=1e-13)  # E r³ = α/(α − 3) = 4
    w = RadialVector(ParetoRadius(4.0, 1.0), 2, [0.5, 0.0])
    Gm, exact = w.affine_norm_moment(2)
    assert not exact and Gm == pytest.approx(0.5 + math.sqrt(2), rel=1e-13)  # Minkowski
    e = RadialVector(ParetoRadius(4.0, 1.0), 2, isotropic=False)
    np.testing.assert_allclose(e.truncated_mean(2.0), [4 / 3 - 4 * 2.0**-3 / 3, 0.0], rtol=1e-12)
    np.testing.assert_allclose(v.truncated_mean(2.0), 0.0, atol=0)  # μ = 0, isotropic: symmetric


def test_heavy_tail_bad_inputs():
    with pytest.raises(ValueError, match="alpha"):
        ParetoRadius(-1.0)
    with pytest.raises(TypeError, match="x_m"):
        LomaxRadius(2.0, "1")
    with pytest.raises(ValueError, match="M"):
        TruncatedParetoRadius(2.0, 1.0, 0.5)
    with pytest.raises(ValueError, match="mu"):
        RadialVector(ParetoRadius(3.0), 2, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="dimension"):
        RadialVector(StudentTRadius(3.0, 2), 3)
    with pytest.raises(TypeError, match="rng"):
        ParetoRadius(3.0).sample(3, 0)
    with pytest.raises(ValueError, match="k"):
        fact1_bound(1.0, 1.0, 1.0)
