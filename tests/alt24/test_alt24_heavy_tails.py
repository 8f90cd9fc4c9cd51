"""Asi, Liu & Tian (2024) heavy tails: the radial laws with exact partial moments and the heavy-tailed vectors
(``dpsco.oracles.alt24.heavy_tails``; Fact 1 and its erratum), and the real data ``randhie``
(``dpsco.verification.papers.alt24.data``).

Golden values are hand derivations written beside each assertion.  Monte Carlo checks state their false-failure
probability (≤ 1e-6 per test) from a finite-sample bound in a comment.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpsco.oracles.alt24.heavy_tails import (LomaxRadius, ParetoRadius, RadialVector, StudentTRadius,
                                       TruncatedParetoRadius, fact1_bound, sphere_marginal_cdf)
from dpsco.reference.alt24.primitives import clip
from dpsco.verification.papers.alt24 import data as alt24_data

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
    """E[s𝕀_{‖s‖≤C}], E[Π_C(s)] and Pr[‖s‖ ≤ C] (quadrature / closed form) against N = 200,000 draws at C ∈ {1, 3}:
    every coordinate of the first two lies in [−C, C], the indicator in [0, 1], so each of the ≤ 2·(2·4 + 1) = 18
    comparisons uses a Hoeffding half-width at δ = 5e-8 (union bound: false-failure probability ≤ 9e-7)."""
    rng = np.random.default_rng(99)
    N, delta = 200_000, 5e-8
    S = vec.sample(N, rng)
    ns = np.linalg.norm(S, axis=1)
    for C in (1.0, 3.0):
        h = _hoeffding(2 * C, N, delta)
        np.testing.assert_array_less(np.abs((S * (ns <= C)[:, None]).mean(axis=0) - vec.truncated_mean(C)), h)
        np.testing.assert_array_less(np.abs(clip(S, C).mean(axis=0) - vec.clipped_mean(C)), h)
        assert abs(np.mean(ns <= C) - vec.norm_cdf(C)) <= _hoeffding(1.0, N, delta)


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


# ---------------------------------------------------------------------------------------------------------------
# the real data: randhie


@pytest.fixture(scope="module")
def randhie():
    return alt24_data.load_randhie()


def test_randhie_records_and_public_scaling(randhie):
    """n = 20,190 (statsmodels' codebook), d = 10, ‖a‖ ≤ 1 (10 entries in [−1, 1], /√10), intercept entry 1/√10,
    b a non-negative integer count; the scaling is the public map z = (2v − lo − hi)/(hi − lo)."""
    S = randhie.S
    assert S.shape == (20_190, 11) and randhie.d == 10
    A, b = S[:, :-1], S[:, -1]
    assert np.all(np.linalg.norm(A, axis=1) <= 1 + 1e-12)
    np.testing.assert_allclose(A[:, -1], 1 / math.sqrt(10), rtol=1e-15)
    assert np.all(b >= 0) and np.all(b == np.round(b))
    assert np.all(np.abs(A[:, :-1]) * math.sqrt(10) <= 1 + 1e-12)
    # idp ∈ {0, 1} maps to {−1, +1}/√10
    assert set(np.unique(np.round(A[:, 1] * math.sqrt(10), 12))) <= {-1.0, 1.0}


def test_randhie_declared_bounds_hand_values(randhie):
    """LAD: L_s = ‖a‖ ≤ 1 surely, G_j = 1.  Least squares on B(0, 20): G_j = R + (E b^j)^{1/j} under the declared
    negative binomial (mean m = 5, shape θ = 0.5): E b = 5, E b² = Var + m² = m + m²/θ + m² = 5 + 50 + 25 = 80, so
    G_1 = 25, G_2 = 20 + √80; G_3, G_4 against a direct sum Σ_b b^j pmf(b) over b ≤ 20,000."""
    mb = randhie.moment_bounds
    assert mb["lad"].G == (1.0, 1.0, 1.0, 1.0)
    ls = mb["least_squares"]
    assert ls.G_1 == pytest.approx(25.0, rel=1e-12) and ls.G_2 == pytest.approx(20 + math.sqrt(80), rel=1e-12)
    bb = np.arange(20_001, dtype=np.float64)
    pmf = stats.nbinom.pmf(bb, 0.5, 0.5 / 5.5)
    for j in (3, 4):
        assert ls.G_j(j) == pytest.approx(20 + math.fsum(bb**j * pmf) ** (1 / j), rel=1e-9)


def test_randhie_declared_bounds_not_violated(randhie):
    """Diagnostic, not used by any algorithm: the empirical (1/n Σ L_s^j)^{1/j} stay below the declared G_j (ratios
    measured 0.92 for LAD and 0.78 → 0.60 (j = 1 → 4) for least squares at R = 20)."""
    diag = randhie.diagnostics()
    for name in ("lad", "least_squares"):
        assert all(r <= 1.0 for r in diag[name]["ratio"]), diag[name]
    assert randhie.to_dict()["moment_bounds"]["lad"]["G"] == [1.0] * 4


def test_randhie_out_of_range_value_is_refused(monkeypatch):
    from statsmodels.datasets import randhie as sm_randhie

    real = sm_randhie.load_pandas

    def bad():
        ds = real()
        ds.data.loc[0, "lncoins"] = 5.0  # > ln 101
        return ds

    monkeypatch.setattr(sm_randhie, "load_pandas", bad)
    with pytest.raises(ValueError, match="lncoins"):
        alt24_data.load_randhie()
    with pytest.raises(ValueError, match="loss"):
        alt24_data.declared_moment_bounds("logistic", 1.0)
    with pytest.raises(ValueError, match="radius"):
        alt24_data.declared_moment_bounds("lad", -1.0)


@pytest.mark.campaign
@pytest.mark.parametrize("law", LAWS, ids=lambda l: type(l).__name__)
def test_fact1_sides_on_a_C_grid_at_ten_million_draws(law):
    """Campaign (excluded from the default run): the two sides of Fact 1 on a grid of C against N = 10⁷ draws, via
    the bounded statistics E min(r, T) − E min(r, C) = E(r − C)_+ − E(r − T)_+ (in [0, T − C]) and
    E[r𝕀_{C<r≤T}] (in [0, T]), T = 50; empirical-Bernstein half-widths (Maurer & Pontil 2009) at δ = 5e-8 for each of
    the 2 × 6 comparisons (false failure ≤ 6e-7)."""
    rng = np.random.default_rng(31)
    N, T, delta = 10_000_000, 50.0, 5e-8
    r = law.sample(N, rng)
    for C in np.geomspace(max(law.lower, 0.2), 20.0, 6):
        z = np.minimum(r, T) - np.minimum(r, C)
        exact = law.mean_excess(C) - law.mean_excess(T)
        assert abs(z.mean() - exact) <= _bernstein(z, T - C, delta)
        z = r * ((r > C) & (r <= T))
        assert abs(z.mean() - law.interval_moment(1, C, T)) <= _bernstein(z, T, delta)


def _bernstein(z, span, delta):
    """Two-sided empirical Bernstein half-width (Maurer & Pontil 2009, Theorem 4): √(2V log(4/δ)/n) +
    7 span log(4/δ)/(3(n − 1))."""
    n, L = z.size, math.log(4 / delta)
    return math.sqrt(2 * np.var(z, ddof=1) * L / n) + 7 * span * L / (3 * (n - 1))
