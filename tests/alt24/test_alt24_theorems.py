"""The bounds of Asi, Liu & Tian (2024) (``dpsco.reference.alt24.theorems``): golden values derived by hand here,
the errata's counter-examples computed with scipy (quadrature, closed forms), and the proof devices (Lemmas 14,
16, 18) as properties.  Deterministic: no test here samples, so none has a false-failure probability."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpsco.reference.alt24 import theorems as th


# ---- conversions ---------------------------------------------------------------------------------------------

def test_conversions_golden():
    # ρ = 1/2, δ = e^{-2}: ε = 1/2 + 2√(1/2·2) = 2.5
    assert th.zcdp_to_dp(0.5, math.exp(-2.0)) == pytest.approx(2.5, rel=1e-14)
    # inverse: ε = 2.5, log(1/δ) = 2: (√4.5 − √2)² = 0.5
    assert th.dp_to_zcdp(2.5, math.exp(-2.0)) == pytest.approx(0.5, rel=1e-12)
    # Gaussian: Δ = 2, σ = 1 → 4/2 = 2
    assert th.gaussian_zcdp(2.0, 1.0) == 2.0


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-4, 50.0), st.floats(1e-12, 0.5))
def test_dp_to_zcdp_inverts_zcdp_to_dp(eps, delta):
    assert th.zcdp_to_dp(th.dp_to_zcdp(eps, delta), delta) == pytest.approx(eps, rel=1e-9)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="delta"):
        th.zcdp_to_dp(0.5, 1.0)
    with pytest.raises(ValueError, match="k"):
        th.fact_1_clip_bias_bound(1.0, 1.0, 1.0)
    with pytest.raises(TypeError, match="n"):
        th.theorem_4_bound(1.0, 1.0, 3, 1.0, 2, 10.5, 0.5)
    with pytest.raises(ValueError, match="rho"):
        th.lower_bound_shape(1.0, 1.0, 3, 1.0, 2, 10, -1.0)
    with pytest.raises(TypeError, match="printed"):
        th.proposition_2_bound(1.0, 1.0, 1.0, 1, 1.0, printed="yes")


# ---- Fact 1 and Lemma 7 errata -----------------------------------------------------------------------------

def test_fact_1_middle_inequality_erratum_pareto():
    """Pareto(α = 10, x_m = 1), C = 1, k = 3: E[X𝕀_{X≥1}] = E X = α/(α−1) = 10/9 (scipy quadrature below);
    G³ = E X³ = α/(α−3) = 10/7, so the printed G^k/((k−1)C^{k−1}) = 5/7 ≈ 0.714 < 10/9 ≈ 1.11."""
    X = stats.pareto(b=10.0)
    truth = integrate.quad(lambda x: x * X.pdf(x), 1.0, np.inf)[0]
    G3 = X.moment(3)
    assert truth == pytest.approx(10.0 / 9.0, rel=1e-9) and G3 == pytest.approx(10.0 / 7.0, rel=1e-9)
    G = G3 ** (1.0 / 3.0)
    printed = th.fact_1_tail_mean_bound(G, 3, 1.0, printed=True)
    corrected = th.fact_1_tail_mean_bound(G, 3, 1.0)
    assert printed == pytest.approx(5.0 / 7.0, rel=1e-12) and truth > printed  # the printed bound fails
    assert truth <= corrected == pytest.approx(10.0 / 7.0, rel=1e-12)
    # the outer inequality is fine: E(X − C)_+ = 1/9 ≤ 5/7
    outer = integrate.quad(lambda x: (x - 1.0) * X.pdf(x), 1.0, np.inf)[0]
    assert outer == pytest.approx(1.0 / 9.0, rel=1e-9) and outer <= th.fact_1_clip_bias_bound(G, 3, 1.0)


@pytest.mark.parametrize("alpha,C,k", [(10.0, 1.0, 3), (6.0, 1.0, 3), (8.0, 1.0, 4), (3.5, 1.0, 3), (3.5, 2.0, 3),
                                       (2.5, 1.5, 2)])
def test_lemma_7_truncation_constant_on_linear_pareto(alpha, C, k):
    """Linear loss f(x; s) = ⟨s, x⟩, s = r·e₁, r ~ Pareto(α, 1), L̄_s = r: ∇(F_P − F_P^C) = E[s𝕀_{r>C}] is constant,
    so the Lipschitz constant is exactly E[r𝕀_{r>C}] (quadrature).  The corrected constant always holds; the
    printed one fails at C = x_m for k ≥ 3 once (α − k)(k − 1) > α − 1 (equal to the corrected one at k = 2)."""
    X = stats.pareto(b=alpha)
    lip = integrate.quad(lambda r: r * X.pdf(r), C, np.inf)[0]
    G_k = X.moment(k) ** (1.0 / k)
    assert lip <= th.lemma_7_lipschitz(G_k, k, C) * (1 + 1e-12)
    printed = th.lemma_7_lipschitz(G_k, k, C, printed=True)
    if k == 2:
        assert printed == pytest.approx(th.lemma_7_lipschitz(G_k, k, C), rel=1e-14)
    if C == 1.0 and (alpha - k) * (k - 1) > alpha - 1:  # E r = α/(α−1) > G_k^k/(k−1) = α/((α−k)(k−1))
        assert lip > printed  # the printed (k − 1) denominator is wrong here
    # Proposition 3 inherits the constant
    assert th.proposition_3_bound(0.0, G_k, k, C, 2.0) == pytest.approx(2.0 * th.lemma_7_lipschitz(G_k, k, C))


# ---- Proposition 2 with an exact oracle ----------------------------------------------------------------------

def _localize(mu, x0, R, lam, I, Delta, adversarial):
    """Algorithm 2 on F_P(x) = ½‖x − μ‖² over X = B(0, R) with exact x*_i = Π_X((μ + λ_i x_{i−1})/(1 + λ_i)) (the
    objective is (1+λ_i)/2·‖x − (μ + λ_i x_{i−1})/(1+λ_i)‖² + const) and errors of norm Δ4^i/λ_i pointing away
    from μ (adversarial) or none; returns F_P(x_I) − F_P(x*), x* = μ (‖μ‖ < R)."""
    x = np.asarray(x0, dtype=float)
    for i in range(1, I + 1):
        lam_i = lam * 32.0**i
        c = (mu + lam_i * x) / (1.0 + lam_i)
        xs = c * min(1.0, R / np.linalg.norm(c)) if np.linalg.norm(c) > 0 else c
        if adversarial:
            away = xs - mu
            u = away / np.linalg.norm(away) if np.linalg.norm(away) > 0 else np.array([1.0, 0.0])
            y = xs + Delta * 4.0**i / lam_i * u
            x = y * min(1.0, R / np.linalg.norm(y))  # projecting onto X only moves y closer to x*_i ∈ X
        else:
            x = xs
    return 0.5 * float(np.sum((x - mu) ** 2))


def test_proposition_2_printed_bound_violated_corrected_holds():
    """x_0 = −R e₁, μ = R e₁/2 (D = 2R, G_1 = max‖x − μ‖ = 1.5R), λ = 1/32 so λ_1 = 1: exact phase 1 gives
    x*_1 − μ = (λ_1/(1+λ_1))(x_0 − μ), gap ½·¼·(1.5R)² = 0.28R² at Δ → 0; printed λD²/2 = R²/16 = 0.0625R²."""
    R, lam = 1.0, 1.0 / 32.0
    mu, x0 = np.array([0.5, 0.0]), np.array([-1.0, 0.0])
    gap = _localize(mu, x0, R, lam, 1, 0.0, False)
    assert gap == pytest.approx(0.5 * 0.25 * 1.5**2, rel=1e-12)
    G1, D = 1.5 * R, 2.0 * R
    assert gap > th.proposition_2_bound(G1, 0.0, lam, 1, D, printed=True)
    assert gap <= th.proposition_2_bound(G1, 0.0, lam, 1, D)


@pytest.mark.parametrize("lam", [1e-4, 1e-3, 1.0 / 32, 0.2, 1.0])
@pytest.mark.parametrize("Delta", [0.0, 1e-4, 1e-2, 0.1])
@pytest.mark.parametrize("I", [1, 2, 4])
def test_proposition_2_corrected_bound_on_a_grid(lam, Delta, I):
    R = 1.0
    rng = np.random.default_rng(1000 + I)  # fixed instances; deterministic test
    for _ in range(5):
        mu = rng.normal(size=2)
        mu *= rng.uniform(0, 0.9) * R / np.linalg.norm(mu)
        x0 = rng.normal(size=2)
        x0 *= R / np.linalg.norm(x0)
        G1 = R + np.linalg.norm(mu)
        gap = _localize(mu, x0, R, lam, I, Delta, True)
        assert gap <= th.proposition_2_bound(G1, Delta, lam, I, 2 * R) * (1 + 1e-12) + 1e-15


# ---- Theorem 4's coefficient -------------------------------------------------------------------------------

def test_theorem_4_coefficient_golden_and_from_the_proof():
    # hand: k = 2: 4·2^{1/2} + 2^{5/2} = 8√2; k = 3: 4·2 + 2^3 = 16; k → ∞: 16 + 16 = 32
    assert th.theorem_4_coefficient(2) == pytest.approx(8 * math.sqrt(2), rel=1e-14)
    assert th.theorem_4_coefficient(3) == pytest.approx(16.0, rel=1e-14)
    assert th.theorem_4_coefficient(1e9) == pytest.approx(32.0, rel=1e-7)
    # evaluate the proof's two G_k terms numerically at η_2 and divide by G_k D (√d/(n√ρ))^{1−1/k}
    for k, n, d, rho, G, D in [(2, 4096, 3, 0.5, 2.0, 1.5), (3, 2**20, 10, 0.1, 5.0, 2.0),
                               (6, 2**12, 1, 2.0, 1.0, 0.3)]:
        eta2 = (1 / n) * (n**2 * rho / (32 * d)) ** ((k - 1) / (2 * k)) * 2 ** ((k + 1) / (2 * k)) * D / G
        terms = 4 * D**2 / (eta2 * n) + 2 * eta2 ** ((k - 1) / (k + 1)) * (G**k * D) ** (2 / (k + 1)) \
            * (32 * d / (rho * n)) ** ((k - 1) / (k + 1))
        rate = G * D * (math.sqrt(d) / (n * math.sqrt(rho))) ** (1 - 1 / k)
        assert terms / rate == pytest.approx(th.theorem_4_coefficient(k), rel=1e-10)
    # the printed 26 does not cover the proof at k = 4 after n_eff ≥ n/2: 19.03·2^{3/4} = 32.0
    assert th.theorem_4_coefficient(4) * 2 ** 0.75 > 26.0


def test_theorem_4_bound_uses_n_eff():
    G2, Gk, k, D, d, rho = 1.0, 2.0, 3, 2.0, 4, 0.5
    n, n_eff = 1000, 512
    hand = (G2 * D * math.sqrt(8 / n_eff) + 16.0 * Gk * D * (math.sqrt(d) / (n_eff * math.sqrt(rho))) ** (2 / 3)
            + 5 * Gk * D / n_eff**2)
    assert th.theorem_4_bound(G2, Gk, k, D, d, n, rho) == pytest.approx(hand, rel=1e-12)
    printed = 4 * G2 * D / math.sqrt(n) + 26 * Gk * D * (math.sqrt(d) / (n * math.sqrt(rho))) ** (2 / 3)
    assert th.theorem_4_bound(G2, Gk, k, D, d, n, rho, printed=True) == pytest.approx(printed, rel=1e-12)


# ---- other golden values -------------------------------------------------------------------------------------

def test_golden_values_of_simple_bounds():
    assert th.C_ERM**2 == pytest.approx(640.0)
    assert th.C_REG_POP >= 2 * math.sqrt(70) + math.sqrt(800)  # 45.02 (docs/derivations.md)
    # Proposition 1: C = 2, d = 5, λ = 0.1, n = 100, ρ = 0.5, b_D = 0.3, r = 1, T = 400:
    # 32·4·5/(0.1·10⁴·0.5) = 1.28; 0.09/0.1 = 0.9; 7·0.1/400 = 0.00175 (printed: 7·0.1/100 = 0.007)
    assert th.proposition_1_bound(2.0, 5, 0.1, 100, 0.5, 0.3, 1.0, 400) == pytest.approx(1.28 + 0.9 + 0.00175)
    assert th.proposition_1_bound(2.0, 5, 0.1, 100, 0.5, 0.3, 1.0, 400, printed=True) == pytest.approx(2.187)
    # Proposition 2 corrected: G_1 = 1, Δ = 0.1, λ = 0.5, I = 1, D = 2: 0.1/(0.5·8) + 16·0.01/0.5 + 16·0.5·4
    assert th.proposition_2_bound(1.0, 0.1, 0.5, 1, 2.0) == pytest.approx(0.025 + 0.32 + 32.0)
    assert th.proposition_2_bound(1.0, 0.1, 0.5, 1, 2.0, printed=True) == pytest.approx(0.025 + 0.005 + 1.0)
    # Lemma 3 at G_k = 2, k = 3, C = 4: 5·8/(2·16) = 1.25;  Lemma 4: 2·3/0.5 = 12;  Lemma 6: 2·3/4 = 1.5
    assert th.lemma_3_bias_bound(2.0, 3, 4.0) == pytest.approx(1.25)
    assert th.lemma_4_radius(3.0, 0.5) == 12.0 and th.lemma_6_lipschitz_lower_bound(2.0, 3.0) == 1.5
    # Lemma 8 vs Corollary 4: distance 1, η = 0.1, T = 50, G_2 = 1, G_k = 2, k = 3, C = 4, D = 2
    assert th.lemma_8_bound(1.0, 0.1, 50, 1.0, 2.0, 3, 4.0, 2.0) == pytest.approx(0.1 + 0.05 + 8 * 2 / (2 * 16))
    assert th.corollary_4_bound(1.0, 0.1, 50, 1.0, 2.0, 3, 4.0, 2.0) == pytest.approx(0.1 + 0.2 + 8 * 2 / (2 * 4))
    # Theorem 2 (μ = 0) is the lower-bound shape times C_HT
    assert th.theorem_2_bound(2.0, 1.0, 3, 2.0, 4, 1000, 0.5, C_HT=3.0) == pytest.approx(
        3.0 * th.lower_bound_shape(1.0, 2.0, 3, 2.0, 4, 1000, 0.5))
    # Theorem 1 with δ = e^{-1}: log(1/δ) = 1, so it equals the lower-bound shape times C_sco
    assert th.theorem_1_bound(2.0, 1.0, 3, 2.0, 4, 1000, 0.5, math.exp(-1), C_sco=1.0) == pytest.approx(
        th.lower_bound_shape(1.0, 2.0, 3, 2.0, 4, 1000, 0.5))


# ---- proof devices -------------------------------------------------------------------------------------------

def _clip1(u):
    n = np.linalg.norm(u)
    return u if n <= 1 else u / n


@pytest.mark.parametrize("C", [0.5, 1.0, 3.0, 100.0])
def test_lemma_16_counterexample(C):
    """Hand: ‖h‖² = ((2C+1)² + C²(2C+1))/(C+1)² = (2C+1)(C+1)²/(C+1)² = 2C+1 > 1, so Π_1(h) = h/√(2C+1), and
    v − (g − h) = C(−C, √(2C+1))/(C+1) has norm C; C = 0.5 gives 0.649 after clipping."""
    out = th.lemma_16_counterexample(C)
    h = np.array([(2 * C + 1) / (C + 1), C * math.sqrt(2 * C + 1) / (C + 1)])
    v, g = np.array([-C, 0.0]), np.array([1.0, 0.0])
    assert np.linalg.norm(h) ** 2 == pytest.approx(2 * C + 1)
    assert out["before"] == pytest.approx(C, rel=1e-12)
    after = np.linalg.norm(v - (g - h / math.sqrt(2 * C + 1)))
    assert out["after"] == pytest.approx(after, rel=1e-12) and after > C and out["counterexample"]
    if C == 0.5:
        assert after == pytest.approx(0.6493, abs=1e-4)


def test_lemma_16_is_no_counterexample_at_c_zero():
    out = th.lemma_16_counterexample(0.0)
    assert out["before"] == 0.0 and out["after"] == 0.0 and not out["counterexample"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=3, max_size=3), st.lists(st.floats(-5, 5), min_size=3, max_size=3),
       st.floats(0, 1), st.floats(-10, 10), st.floats(0, 20))
def test_lemma_14_clipping_keeps_glm_steps_contractive(v, g, theta, s_prime, C):
    v, g = np.array(v), np.array(g)
    gg = float(g @ g)
    a = theta * 2 * float(v @ g) / gg if gg > 1e-12 else 0.0  # ‖v − a g‖ ≤ ‖v‖ ⇔ a between 0 and 2⟨v,g⟩/‖g‖²
    x_prime = np.zeros(3)
    first, second, third = th.lemma_14_clipped_step(s_prime + a, s_prime, v, x_prime, g, C)
    assert second <= first * (1 + 1e-9) + 1e-9  # the premise, by construction
    assert third <= first * (1 + 1e-9) + 1e-9   # Lemma 14's conclusion


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 40), st.floats(0.1, 5.0), st.integers(1, 12))
def test_lemma_18_drift_accounting(seed, T, C, c):
    """Operation pairs: contractive = the same random rotation-and-shrink on both; the jump = translations by
    a, a' with ‖a − a'‖ ≤ C; drifts = translations differing by ≤ ζ = C/c.  ‖ψ^j(x₀) − ϕ^j(x₀)‖ ≤ a_jζ + b_jC ≤ 2C."""
    rng = np.random.default_rng(seed)
    zeta = C / c
    kinds = ["contractive"] * T
    slots = rng.permutation(T)
    n_drift = int(rng.integers(0, min(c, T) + 1))
    for j in slots[:n_drift]:
        kinds[j] = "drift"
    if T > n_drift and rng.random() < 0.8:
        kinds[slots[n_drift]] = "jump"
    bounds = th.lemma_18_drift_bounds(kinds, C, zeta)
    x = y = np.zeros(3)
    for j, kind in enumerate(kinds):
        if kind == "contractive":
            Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            s, b = rng.uniform(0, 1), rng.normal(size=3)
            x, y = s * Q @ x + b, s * Q @ y + b
        else:
            r = C if kind == "jump" else zeta
            u = rng.normal(size=3)
            a = rng.normal(size=3)
            x, y = x + a, y + a + r * rng.uniform(0, 1) * u / np.linalg.norm(u)
        assert np.linalg.norm(x - y) <= bounds[j] * (1 + 1e-9) + 1e-9
    assert np.all(bounds <= 2 * C * (1 + 1e-12))


def test_lemma_18_refuses_broken_premises():
    with pytest.raises(ValueError, match="at most one"):
        th.lemma_18_drift_bounds(["jump", "jump"], 1.0, 0.5)
    with pytest.raises(ValueError, match="drift"):
        th.lemma_18_drift_bounds(["drift"] * 3, 1.0, 0.5)
    with pytest.raises(ValueError, match="kinds"):
        th.lemma_18_drift_bounds(["other"], 1.0, 0.5)
