"""Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070: the synthetic instances of
``dpsco.oracles.accd22.interpolation_instances``.

Golden values are hand derivations written beside each assertion.  Monte-Carlo checks of a population formula
use Hoeffding's inequality on a bounded per-sample loss F ∈ [0, B]: the mean of N i.i.d. draws is within
t = B·√(log(2/p)/(2N)) of its expectation with probability ≥ 1 − p.  Each Monte-Carlo test splits p = 1e-6 over
its points (union bound), so for a uniformly random seed it fails falsely with probability ≤ 1e-6; the seeds are
fixed, so the tests are reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from dpsco.oracles.accd22.interpolation_instances import (DiagonalQuadratics, DiagonalQuadraticsShifted,
                                                          InterpolatingLeastSquares, InterpolatingPowerLoss,
                                                          NoisyLeastSquares, sphere_abs_moment, uniform_sphere,
                                                          weighted_squared_distance_gradients,
                                                          weighted_squared_distance_losses)
from dpsco.oracles.accd22.lower_bound_instances import (draw_packing, lemma_d6_bound, proposition_5_bounds,
                                                        superefficiency_pair, theorem_1_approx_lower_bound,
                                                        theorem_1_instance, theorem_1_lower_bound,
                                                        theorem_4_instance, theorem_4_lower_bound)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
FALSE_FAILURE = 1e-6
N_MC = 200_000


def _hoeffding(B: float, n: int, p: float) -> float:
    """Two-sided Hoeffding deviation of the mean of n i.i.d. variables in [0, B] at level p."""
    return B * math.sqrt(math.log(2.0 / p) / (2.0 * n))


def _ball_points(m: int, d: int, R: float, rng: np.random.Generator) -> np.ndarray:
    """m points of B(0, R): half uniform in the ball, half on its boundary sphere."""
    g = rng.standard_normal((m, d))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    r = R * rng.uniform(size=(m, 1)) ** (1.0 / d)
    r[: m // 2] = R
    return g * r


def _instances():
    """One instance of each SCO class, with its record-validity check."""
    xs3 = np.array([0.3, -0.2, 0.1])
    return [
        InterpolatingLeastSquares(3, 1.5, xs3, 1.0),
        NoisyLeastSquares(3, 1.5, xs3, 1.0, 0.7),
        DiagonalQuadratics(3, 0.5, 2.0, xs3, 1.0),
        DiagonalQuadraticsShifted(3, 0.5, 2.0, xs3, 1.0, 0.4),
        InterpolatingPowerLoss(3, 1.2, 3.0, xs3, 1.0),
        InterpolatingPowerLoss(4, 0.8, 4.0, np.array([0.5, 0.0, -0.5, 0.2]), 1.5),
    ]


# ---------------------------------------------------------------------------------------------------------------
# sphere moments

def test_sphere_abs_moment_by_hand():
    """E|u_1|^p on S^{d−1}, derived by hand:
    * p = 2: Σ_i u_i² = 1 and symmetry give E u_1² = 1/d;
    * p = 4: for g ~ N(0, I_d), g = ‖g‖u with ‖g‖ ⟂ u, E g_1⁴ = 3 and E‖g‖⁴ = d(d + 2) (χ²_d moments), so
      E u_1⁴ = 3/(d(d + 2));
    * d = 3: u_1 is uniform on [−1, 1] (Archimedes), so E|u_1|^p = 1/(p + 1);
    * d = 1: u_1 = ±1, so every moment is 1."""
    for d in range(1, 30):
        assert sphere_abs_moment(d, 2) == pytest.approx(1.0 / d, rel=1e-12)
        assert sphere_abs_moment(d, 4) == pytest.approx(3.0 / (d * (d + 2)), rel=1e-12)
    for p in (0.5, 1.0, 2.5, 3.0, 7.0):
        assert sphere_abs_moment(3, p) == pytest.approx(1.0 / (p + 1.0), rel=1e-12)
        assert sphere_abs_moment(1, p) == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(ValueError, match="d"):
        sphere_abs_moment(0, 2)
    with pytest.raises(ValueError, match="p"):
        sphere_abs_moment(3, -1.0)


def test_uniform_sphere_unit_norm():
    u = uniform_sphere(500, 4, np.random.default_rng(1))
    assert u.shape == (500, 4)
    assert np.allclose(np.linalg.norm(u, axis=1), 1.0, rtol=0, atol=1e-14)


# ---------------------------------------------------------------------------------------------------------------
# declared constants, by hand

def test_constants_by_hand():
    # T1: d = 4, R_a = 2: Σ = (4/4)I, λ = 1, H = 4; x* = (0.6, 0.8, 0, 0), ‖x*‖ = 1, R = 2: L = 4·(2 + 1) = 12.
    xs = np.array([0.6, 0.8, 0.0, 0.0])
    t1 = InterpolatingLeastSquares(4, 2.0, xs, 2.0)
    assert (t1.lam, t1.H, t1.L, t1.R, t1.D, t1.kappa, t1.f_star, t1.interpolating) == pytest.approx(
        (1.0, 4.0, 12.0, 2.0, 4.0, 2.0, 0.0, True))
    # excess at x = x* + (1, 0, 0, 0): ½·1·1 = 0.5; at x*: 0.
    assert t1.excess(xs + np.array([1.0, 0, 0, 0])) == pytest.approx(0.5)
    assert t1.excess(xs) == 0.0
    # T2 with b = 0.5: f* = 0.125, L = 2·(2·3 + 0.5) = 13; same λ, H; f(x* + e_1) = 0.625.
    t2 = NoisyLeastSquares(4, 2.0, xs, 2.0, 0.5)
    assert (t2.lam, t2.H, t2.L, t2.f_star, t2.interpolating) == pytest.approx((1.0, 4.0, 13.0, 0.125, False))
    assert t2.population_risk(xs + np.array([1.0, 0, 0, 0])) == pytest.approx(0.625)
    # T3: λ₀ = 1, H = 3: λ = 2, L = 3·(2 + 1) = 9; excess at x* + (1, 1, 0, 0) = ½·2·2 = 2.
    t3 = DiagonalQuadratics(4, 1.0, 3.0, xs, 2.0)
    assert (t3.lam, t3.H, t3.L, t3.f_star) == pytest.approx((2.0, 3.0, 9.0, 0.0))
    assert t3.excess(xs + np.array([1.0, 1.0, 0, 0])) == pytest.approx(2.0)
    # shifted twin, τ = 0.5: f* = ½·4·2·0.25 = 1; L = 3·(2 + 1 + 0.5·2) = 12.
    t3s = DiagonalQuadraticsShifted(4, 1.0, 3.0, xs, 2.0, 0.5)
    assert (t3s.lam, t3s.f_star, t3s.L, t3s.interpolating) == pytest.approx((2.0, 1.0, 12.0, False))
    # T5: d = 3, κ = 4, R_a = 1: E u_1⁴ = 3/15 = 0.2, λ = 0.2; R = 1, D = 2: H = 3·1·2² = 12, L = 2³ = 8.
    # excess at ‖v‖ = 0.5: (0.2/4)·0.5⁴ = 0.003125.
    t5 = InterpolatingPowerLoss(3, 1.0, 4.0, np.zeros(3), 1.0)
    assert (t5.lam, t5.H, t5.L, t5.kappa) == pytest.approx((0.2, 12.0, 8.0, 4.0))
    assert t5.excess(np.array([0.0, 0.5, 0.0])) == pytest.approx(0.003125)
    # κ = 3, d = 3, R_a = 2: E|u_1|³ = 1/4, λ = 8/4 = 2; D = 2: H = 2·8·2 = 32, L = 8·4 = 32.
    t5b = InterpolatingPowerLoss(3, 2.0, 3.0, np.zeros(3), 1.0)
    assert (t5b.lam, t5b.H, t5b.L) == pytest.approx((2.0, 32.0, 32.0))


def test_excess_vectorised():
    rng = np.random.default_rng(2)
    for inst in _instances():
        X = _ball_points(7, inst.d, inst.R, rng)
        batch = inst.excess(X)
        assert batch.shape == (7,)
        assert np.allclose(batch, [inst.excess(x) for x in X], rtol=1e-14, atol=0)
        assert isinstance(inst.excess(X[0]), float)


@SETTINGS
@given(st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3), st.integers(0, 5))
def test_growth_holds_with_equality(coords, which):
    """κ-growth (Remark 2; Definition 2.4 for κ = 2): f(x) − f* = (λ/κ)‖x − x*‖^κ with equality."""
    inst = _instances()[which]
    x = np.zeros(inst.d)
    x[:3] = coords
    if np.linalg.norm(x) > inst.R:  # project onto X = B(0, R)
        x *= inst.R / float(np.linalg.norm(x))
    v = float(np.linalg.norm(x - inst.x_star))
    assert inst.excess(x) == pytest.approx(inst.lam / inst.kappa * v ** inst.kappa, rel=1e-12, abs=1e-300)
    assert inst.excess(inst.x_star) == 0.0


# ---------------------------------------------------------------------------------------------------------------
# population formulas against Monte Carlo (Hoeffding)

def _mc_check(inst, points, bound, seed):
    """|mean_N F(x; Z) − f(x)| ≤ Hoeffding deviation at level 1e-6/len(points), N = N_MC draws per point."""
    rng = np.random.default_rng(seed)
    Z = inst.sample(N_MC, rng)
    p = FALSE_FAILURE / len(points)
    for x in points:
        F = inst.losses(x, Z)
        B = bound(x)
        assert np.all(F >= 0.0) and np.all(F <= B * (1.0 + 1e-12))
        assert abs(float(np.mean(F)) - inst.population_risk(x)) <= _hoeffding(B, N_MC, p)


def test_least_squares_population_monte_carlo():
    """T1: F = ½⟨a, v⟩² ∈ [0, ½R_a²‖v‖²]; T2: F = ½(⟨a, v⟩ − ξ)² ∈ [0, ½(R_a‖v‖ + b)²] (Cauchy–Schwarz)."""
    xs = np.array([0.2, 0.0, -0.3, 0.1, 0.0])
    t1 = InterpolatingLeastSquares(5, 1.3, xs, 1.0)
    t2 = NoisyLeastSquares(5, 1.3, xs, 1.0, 0.6)
    points = [xs + np.array([0.5, 0.0, 0.0, 0.0, 0.0]), np.array([-0.6, 0.3, 0.2, -0.1, 0.4]), -xs]
    _mc_check(t1, points, lambda x: 0.5 * (1.3 * np.linalg.norm(x - xs)) ** 2, 10)
    _mc_check(t2, points, lambda x: 0.5 * (1.3 * np.linalg.norm(x - xs) + 0.6) ** 2, 11)


def test_diagonal_quadratics_population_monte_carlo():
    """T3: F = ½Σu_k v_k² ∈ [0, ½H‖v‖²]; shifted: F ∈ [0, ½H(‖v‖ + τ√d)²] (‖x − c‖ ≤ ‖v‖ + τ√d)."""
    xs = np.array([0.1, -0.4, 0.2])
    t3 = DiagonalQuadratics(3, 0.2, 1.8, xs, 1.0)
    t3s = DiagonalQuadraticsShifted(3, 0.2, 1.8, xs, 1.0, 0.3)
    points = [np.array([0.5, 0.5, 0.0]), np.array([-0.3, 0.1, -0.7]), xs + 0.2]
    _mc_check(t3, points, lambda x: 0.5 * 1.8 * np.linalg.norm(x - xs) ** 2, 12)
    _mc_check(t3s, points + [xs], lambda x: 0.5 * 1.8 * (np.linalg.norm(x - xs) + 0.3 * math.sqrt(3)) ** 2, 13)


def test_power_loss_population_monte_carlo():
    """T5: F = |⟨a, v⟩|^κ/κ ∈ [0, (R_a‖v‖)^κ/κ]; the excess uses E|u_1|^κ, so this also checks the moment."""
    for kappa, d, seed in ((3.0, 4, 14), (4.0, 2, 15), (2.5, 6, 16)):
        xs = np.zeros(d)
        xs[0] = 0.3
        t5 = InterpolatingPowerLoss(d, 1.4, kappa, xs, 1.0)
        points = [-xs, np.full(d, 0.7 / math.sqrt(d))]
        _mc_check(t5, points, lambda x: (1.4 * np.linalg.norm(x - xs)) ** kappa / kappa, seed)


def test_records_layout():
    rng = np.random.default_rng(3)
    xs = np.array([0.3, -0.2, 0.1])
    t1, t2, t3, t3s, t5, _ = _instances()
    Z = t1.sample(100, rng)
    assert Z.shape == (100, 4)
    assert np.allclose(np.linalg.norm(Z[:, :3], axis=1), 1.5, rtol=1e-14)
    assert np.allclose(Z[:, 3], Z[:, :3] @ xs, rtol=0, atol=1e-14)
    Z = t2.sample(100, rng)
    assert np.allclose(np.abs(Z[:, 3] - Z[:, :3] @ xs), 0.7, rtol=0, atol=1e-14)
    Z = t3.sample(100, rng)
    assert Z.shape == (100, 6)
    assert np.all(Z[:, :3] == xs) and np.all((Z[:, 3:] >= 0.5) & (Z[:, 3:] <= 2.0))
    Z = t3s.sample(100, rng)
    assert np.allclose(np.abs(Z[:, :3] - xs), 0.4, rtol=0, atol=1e-14)
    Z = t5.sample(100, rng)
    assert np.allclose(Z[:, 3], Z[:, :3] @ xs, rtol=0, atol=1e-14)


# ---------------------------------------------------------------------------------------------------------------
# L and H bounds, interpolation

@pytest.mark.parametrize("which", range(6))
def test_lipschitz_and_smoothness_bounds(which):
    """‖∇F(x; s)‖ ≤ L on X and ‖∇F(x; s) − ∇F(x'; s)‖ ≤ H‖x − x'‖ for sampled records and points of the ball
    (half of them on the boundary sphere)."""
    inst = _instances()[which]
    rng = np.random.default_rng(20 + which)
    Z = inst.sample(2000, rng)
    X = _ball_points(40, inst.d, inst.R, rng)
    Y = _ball_points(40, inst.d, inst.R, rng)
    worst_L, worst_H = 0.0, 0.0
    for x, y in zip(X, Y):
        gx, gy = inst.gradients(x, Z), inst.gradients(y, Z)
        worst_L = max(worst_L, float(np.max(np.linalg.norm(gx, axis=1))))
        worst_H = max(worst_H, float(np.max(np.linalg.norm(gx - gy, axis=1))) / float(np.linalg.norm(x - y)))
    assert worst_L <= inst.L * (1.0 + 1e-12)
    assert worst_H <= inst.H * (1.0 + 1e-9)


def test_least_squares_lipschitz_bound_attained():
    """T1: at x = −R x*/‖x*‖ with a = R_a v/‖v‖, ‖∇F‖ = R_a²‖v‖ = R_a²(R + ‖x*‖) = L exactly."""
    xs = np.array([0.6, 0.0])
    t1 = InterpolatingLeastSquares(2, 2.0, xs, 1.0)
    x = np.array([-1.0, 0.0])
    a = 2.0 * (x - xs) / np.linalg.norm(x - xs)
    Z = np.array([[a[0], a[1], a @ xs]])
    # L = 4·(1 + 0.6) = 6.4
    assert float(np.linalg.norm(t1.gradients(x, Z))) == pytest.approx(6.4)
    assert t1.L == pytest.approx(6.4)


def test_interpolation_gradients_vanish_at_x_star():
    """Definition 2.3: ∇F(x*; s) = 0 for every sample of T1, T3, T5; T2's is −ξa, of norm b·R_a = 0.7·1.5 = 1.05;
    the shifted T3's is −u ⊙ (τr) ≠ 0."""
    rng = np.random.default_rng(4)
    t1, t2, t3, t3s, t5, t5b = _instances()
    for inst in (t1, t3, t5, t5b):
        assert inst.interpolating
        G = inst.gradients(inst.x_star, inst.sample(500, rng))
        assert np.max(np.linalg.norm(G, axis=1)) <= 1e-13 * inst.L
    assert not t2.interpolating and not t3s.interpolating
    G = t2.gradients(t2.x_star, t2.sample(500, rng))
    assert np.allclose(np.linalg.norm(G, axis=1), 1.05, rtol=1e-12)
    G = t3s.gradients(t3s.x_star, t3s.sample(500, rng))
    assert np.min(np.linalg.norm(G, axis=1)) >= 0.5 * 0.4 * math.sqrt(3) * (1.0 - 1e-12)  # ‖u ⊙ τr‖ ≥ λ₀τ√d


# ---------------------------------------------------------------------------------------------------------------
# input validation

def test_bad_inputs_name_the_parameter():
    xs = np.zeros(2)
    cases = [
        (lambda: InterpolatingLeastSquares(0, 1.0, xs, 1.0), "d"),
        (lambda: InterpolatingLeastSquares(2, -1.0, xs, 1.0), "R_a"),
        (lambda: InterpolatingLeastSquares(2, 1.0, np.array([1.0, 1.0]), 1.0), "x_star"),
        (lambda: InterpolatingLeastSquares(2, 1.0, np.zeros(3), 1.0), "x_star"),
        (lambda: InterpolatingLeastSquares(2, 1.0, xs, 0.0), "R"),
        (lambda: NoisyLeastSquares(2, 1.0, xs, 1.0, 0.0), "b"),
        (lambda: DiagonalQuadratics(2, 3.0, 2.0, xs, 1.0), "lam0"),
        (lambda: DiagonalQuadratics(2, -0.1, 2.0, xs, 1.0), "lam0"),
        (lambda: DiagonalQuadratics(2, 1.0, 0.0, xs, 1.0), "H"),
        (lambda: DiagonalQuadraticsShifted(2, 1.0, 2.0, xs, 1.0, -1.0), "tau"),
        (lambda: InterpolatingPowerLoss(2, 1.0, 2.0, xs, 1.0), "kappa"),
        (lambda: InterpolatingPowerLoss(2, 1.0, float("nan"), xs, 1.0), "kappa"),
        (lambda: InterpolatingLeastSquares(2, 1.0, xs, 1.0).sample(0, np.random.default_rng(0)), "n"),
        (lambda: InterpolatingLeastSquares(2, 1.0, xs, 1.0).excess(np.zeros(3)), "x"),
        (lambda: InterpolatingLeastSquares(2, 1.0, xs, 1.0).losses(xs, np.zeros((4, 2))), "Z"),
    ]
    for build, name in cases:
        with pytest.raises(ValueError, match=name):
            build()
    with pytest.raises(TypeError, match="rng"):
        InterpolatingLeastSquares(2, 1.0, xs, 1.0).sample(3, 0)


# ---------------------------------------------------------------------------------------------------------------
# T6: Theorems 1 and 4

@SETTINGS
@given(st.integers(1, 3), st.integers(1, 5), st.integers(0, 20),
       st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3))
def test_theorem_1_empirical_objective(d, m, extra, coords):
    """f_v(x) = (1/n)Σ F(x; s) = (kH/(2n))‖x − v‖² with k = d/ε = d·m (ε = 1/m), n = k + extra; the first n − k
    records are (0, 0) (F ≡ 0) and the last k are (v, H)."""
    eps, H, D = 1.0 / m, 1.7, 2.0
    k = d * m
    n = k + extra
    v = np.array([0.4, -0.3, 0.5])[:d]
    inst = theorem_1_instance(n, d, eps, H, D, v)
    assert inst.k == k and inst.records.shape == (n, d + 1)
    assert np.all(inst.records[: n - k] == 0.0)
    assert np.all(inst.records[n - k:, :d] == v) and np.all(inst.records[n - k:, d] == H)
    x = np.asarray(coords[:d])
    by_hand = k * H / (2.0 * n) * float(np.sum((x - v) ** 2))
    assert float(np.mean(weighted_squared_distance_losses(x, inst.records))) == pytest.approx(by_hand, rel=1e-12)
    assert inst.empirical_excess(x) == pytest.approx(by_hand, rel=1e-12)
    assert inst.empirical_excess(v) == 0.0 and np.array_equal(inst.x_star, v) and inst.f_star == 0.0
    # interpolation: every record's gradient vanishes at v
    assert np.all(weighted_squared_distance_gradients(v, inst.records) == 0.0)
    assert inst.gamma == pytest.approx(D / (2.0 * math.e))


def test_theorem_1_bound_by_hand():
    """HD²d/(96e²nε) with H = 96e², D = 1, d = 2, n = 40, ε = 0.5: 2/(40·0.5) = 0.1.
    The proof's bound before simplification, τ ≥ kHγ²/(8n(1 + e^{kε}/(|V| − 1))) with k = d/ε, γ = D/(2e),
    |V| = (D/(2γ))^d = e^d, is ≥ the stated bound since 1 + e^d/(e^d − 1) ≤ 3 for d ≥ 1."""
    H = 96.0 * math.e ** 2
    inst = theorem_1_instance(40, 2, 0.5, H, 1.0, np.array([0.5, 0.0]))
    assert inst.k == 4
    assert inst.lower_bound == pytest.approx(0.1, rel=1e-12)
    assert theorem_1_lower_bound(40, 2, 0.5, H, 1.0) == pytest.approx(0.1, rel=1e-12)
    for d in range(1, 8):
        for n, eps, Hh, D in ((100, 0.25, 1.0, 1.0), (1000, 1.0, 3.0, 2.0)):
            k, gamma = d / eps, D / (2.0 * math.e)
            V = math.e ** d
            proof = k * Hh * gamma ** 2 / (8.0 * n * (1.0 + math.exp(k * eps) / (V - 1.0)))
            assert proof >= theorem_1_lower_bound(n, d, eps, Hh, D) * (1.0 - 1e-12)


@SETTINGS
@given(st.integers(1, 50), st.floats(0.001, 0.999))
def test_theorem_1_approx_bound(m, frac):
    """(ε, δ) part (d = 1, k = 1/ε = m): the proof's τ ≥ (kHD²/(8n))(e^{−kε} − k e^{−ε}δ)/(1 + e^{−kε}) is
    ≥ HD²/(16(e + 1)nε) whenever δ < ε/6 (then k e^{−ε}δ = e^{−ε}δ/ε ≤ 1/6 < 1/(2e), so the numerator is
    ≥ 1/(2e))."""
    eps = 1.0 / m
    delta = frac * eps / 6.0
    n, H, D = 200, 2.0, 3.0
    k = m
    proof = k * H * D ** 2 / (8.0 * n) * (math.exp(-k * eps) - k * math.exp(-eps) * delta) / (1.0 + math.exp(-k * eps))
    bound = theorem_1_approx_lower_bound(n, eps, delta, H, D)
    assert bound == pytest.approx(H * D ** 2 / (16.0 * (math.e + 1.0) * n * eps), rel=1e-12)
    assert proof >= bound * (1.0 - 1e-12)
    # the instance realising it: d = 1, v = ±D/2, |v − v'| = D; separation (kH/(8n))D²
    a = theorem_1_instance(n, 1, eps, H, D, np.array([D / 2]))
    assert a.k == k and a.separation(np.array([-D / 2])) == pytest.approx(k * H * D ** 2 / (8.0 * n), rel=1e-12)


def test_theorem_4_by_hand_and_consistency():
    """Theorem 4: k = λn/H, γ = (D/2)e^{−λnε/(Hd)}, bound (λD²/96)e^{−2λnε/(Hd)}.
    λ = 0.5, H = 2, n = 40 → k = 10; ε = 0.2, d = 2 → λnε/(Hd) = 1: γ = D/(2e), bound λD²e^{−2}/96 with D = 4:
    0.5·16/(96e²) = 1/(12e²).  The proof: τ ≥ λγ²/(8(1 + e^{kε}/(|V| − 1))) with |V| = e^{kε} ≥ 2, so
    e^{kε}/(e^{kε} − 1) ≤ 2 and τ ≥ λγ²/24 = the bound."""
    inst = theorem_4_instance(40, 2, 0.2, 2.0, 0.5, 4.0, np.array([1.0, -1.0]))
    assert inst.k == 10 and inst.lam == pytest.approx(0.5)
    assert inst.gamma == pytest.approx(2.0 / math.e)
    assert inst.lower_bound == pytest.approx(1.0 / (12.0 * math.e ** 2), rel=1e-12)
    assert inst.lower_bound == pytest.approx(inst.lam * inst.gamma ** 2 / 24.0, rel=1e-12)
    x = np.array([0.3, 0.2])
    assert inst.empirical_excess(x) == pytest.approx(0.25 * float(np.sum((x - inst.v) ** 2)), rel=1e-12)
    assert float(np.mean(inst.losses(x))) == pytest.approx(inst.empirical_excess(x), rel=1e-12)
    # consistency: λ = dH/(nε) reproduces Theorem 1 (k = d/ε, γ = D/(2e), same bound)
    for d, n, eps, H, D in ((1, 50, 0.5, 1.0, 2.0), (3, 90, 0.1, 2.5, 1.0), (5, 200, 0.25, 4.0, 3.0)):
        v = np.zeros(d)
        t1 = theorem_1_instance(n, d, eps, H, D, v)
        t4 = theorem_4_instance(n, d, eps, H, d * H / (n * eps), D, v)
        assert t4.k == t1.k == round(d / eps)
        assert t4.gamma == pytest.approx(t1.gamma, rel=1e-12)
        assert t4.lower_bound == pytest.approx(t1.lower_bound, rel=1e-12)
        assert theorem_4_lower_bound(n, d, eps, H, d * H / (n * eps), D) == pytest.approx(t1.lower_bound, rel=1e-12)


def test_separation_and_packing():
    """d_opt(f_v, f_w) = inf_x (f_v + f_w)/2 is attained at the midpoint and equals (kH/(8n))‖v − w‖²; draw_packing
    returns points of B(0, D/2) with pairwise distances ≥ γ."""
    rng = np.random.default_rng(5)
    n, d, eps, H, D = 60, 3, 0.1, 2.0, 2.0
    gamma = D / (2.0 * math.e)
    P = draw_packing(25, d, D, gamma, rng)
    assert 2 <= P.shape[0] <= 25 and P.shape[1] == d
    assert np.all(np.linalg.norm(P, axis=1) <= D / 2 * (1.0 + 1e-12))
    dist = np.linalg.norm(P[:, None, :] - P[None, :, :], axis=2)
    assert np.all(dist[~np.eye(P.shape[0], dtype=bool)] >= gamma)
    fv, fw = theorem_1_instance(n, d, eps, H, D, P[0]), theorem_1_instance(n, d, eps, H, D, P[1])
    mid = 0.5 * (P[0] + P[1])
    sep = fv.separation(P[1])
    assert 0.5 * (fv.empirical_excess(mid) + fw.empirical_excess(mid)) == pytest.approx(sep, rel=1e-12)
    others = _ball_points(200, d, D / 2, rng)
    assert np.all(0.5 * (fv.empirical_excess(others) + fw.empirical_excess(others)) >= sep * (1.0 - 1e-12))
    assert sep >= fv.k * H * gamma ** 2 / (8.0 * n) * (1.0 - 1e-12)


def test_lower_bound_bad_inputs():
    v = np.zeros(2)
    cases = [
        (lambda: theorem_1_instance(100, 2, 0.3, 1.0, 1.0, v), "epsilon"),  # d/ε = 6.67
        (lambda: theorem_1_instance(5, 2, 0.25, 1.0, 1.0, v), "n"),  # k = 8 > n
        (lambda: theorem_1_instance(100, 2, 0.5, 1.0, 1.0, np.array([0.6, 0.0])), "v"),  # ‖v‖ > D/2
        (lambda: theorem_1_instance(100, 2, 0.5, 1.0, 1.0, np.zeros(3)), "v"),
        (lambda: theorem_1_instance(100, 2, 0.5, -1.0, 1.0, v), "H"),
        (lambda: theorem_4_instance(100, 2, 0.5, 1.0, 0.015, 1.0, v), "lam"),  # λn/H = 1.5
        (lambda: theorem_4_instance(10, 2, 0.5, 1.0, 2.0, 1.0, v), "lam"),  # λ > H
        (lambda: theorem_4_instance(100, 2, 0.005, 1.0, 0.01, 1.0, v), "epsilon"),  # λnε/H = 0.005 < ln 2
        (lambda: theorem_1_approx_lower_bound(10, 0.6, 0.2, 1.0, 1.0), "delta"),  # δ ≥ ε/6
        (lambda: theorem_1_approx_lower_bound(10, 0.6, 0.0, 1.0, 1.0), "delta"),
        (lambda: draw_packing(5, 2, 1.0, 0.0, np.random.default_rng(0)), "gamma"),
    ]
    for build, name in cases:
        with pytest.raises(ValueError, match=name):
            build()


# ---------------------------------------------------------------------------------------------------------------
# T7: Proposition 5, Lemma D.6

@SETTINGS
@given(st.data())
def test_proposition_5_and_closed_form_minimiser(data):
    """For every n, k = 1/ε ≤ n, h_j ∈ [λ, H], x₀ ∈ [−D, 0]: D/(nε) ≤ |x*_{S'} − x₀| ≤ 8HD/(λnε) = Lemma D.6's
    4kL/(λn) with L = 2HD; the closed-form x*_{S'} is the minimiser of f_{S'} over [−D, D]."""
    n = data.draw(st.integers(1, 60), label="n")
    k = data.draw(st.integers(1, n), label="k")
    D = data.draw(st.floats(0.1, 10.0), label="D")
    H = data.draw(st.floats(0.1, 10.0), label="H")
    lam = H * data.draw(st.floats(0.01, 1.0), label="lam/H")
    x0 = -D * data.draw(st.floats(0.0, 1.0), label="-x0/D")
    fr = data.draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n), label="h fractions")
    h = np.clip(lam + (H - lam) * np.asarray(fr), lam, H)
    pair = superefficiency_pair(n, 1.0 / k, D, lam, H, x0, None, h=h)
    assert pair.k == k and pair.L == pytest.approx(2.0 * H * D)
    assert int(np.sum(np.any(pair.S != pair.S_prime, axis=1))) <= k
    lo, mid, hi = pair.proposition_5_check()
    assert lo == pytest.approx(D * k / n, rel=1e-12) and hi == pytest.approx(8.0 * H * D * k / (lam * n), rel=1e-12)
    assert lo * (1.0 - 1e-12) <= mid <= hi * (1.0 + 1e-12)
    assert hi == pytest.approx(lemma_d6_bound(k, 2.0 * H * D, lam, n), rel=1e-12)
    assert (lo, hi) == proposition_5_bounds(n, 1.0 / k, D, lam, H)
    # closed form by hand: S' keeps h_k, …, h_{n−1} (the first k are replaced by default)
    kept = float(np.sum(h[k:]))
    x_closed = (kept * x0 + k * H * D) / (kept + k * H)
    assert pair.x_star_S_prime == pytest.approx(x_closed, rel=1e-12, abs=1e-12 * D)
    assert -D <= pair.x_star_S_prime <= D and pair.x_star_S == x0
    # f_{S'}'(x) = (1/n)Σ h_j(x − s_j) vanishes at the closed form (exact up to rounding)
    Sp = pair.S_prime
    slope = float(np.mean(Sp[:, 1] * (pair.x_star_S_prime - Sp[:, 0])))
    assert abs(slope) <= 1e-12 * H * D
    res = minimize_scalar(lambda x: pair.empirical_risk(x, "S'"), bounds=(-D, D), method="bounded",
                          options={"xatol": 1e-12 * D})
    # Brent's step is limited by rounding of f near its minimum: |Δx| ≲ √(ulp(f)/curvature) ≤ 1e-5·D here
    assert abs(res.x - pair.x_star_S_prime) <= 1e-5 * D
    assert pair.empirical_risk(x0, "S") == 0.0
    assert pair.empirical_risk(x0 + 0.5 * D, "S") == pytest.approx(float(np.mean(h)) / 2 * (0.5 * D) ** 2, rel=1e-12)


def test_superefficiency_pair_by_hand():
    """n = 4, ε = 1/2 (k = 2), D = 1, λ = 1, H = 2, x₀ = −1, h = (1, 1, 2, 2), replaced = (2, 3):
    kept Σh = 2, x*_{S'} = (2·(−1) + 2·2·1)/(2 + 4) = 1/3, |Δ| = 4/3; bounds D/(nε) = 0.5, 8HD/(λnε) = 8."""
    pair = superefficiency_pair(4, 0.5, 1.0, 1.0, 2.0, -1.0, None, h=[1.0, 1.0, 2.0, 2.0], replaced=[2, 3])
    assert pair.x_star_S_prime == pytest.approx(1.0 / 3.0)
    assert pair.proposition_5_check() == pytest.approx((0.5, 4.0 / 3.0, 8.0))
    assert np.array_equal(pair.S_prime, [[-1.0, 1.0], [-1.0, 1.0], [1.0, 2.0], [1.0, 2.0]])
    assert lemma_d6_bound(2, 4.0, 1.0, 4) == pytest.approx(8.0)  # 4·2·4/(1·4)
    drawn = superefficiency_pair(30, 0.2, 1.0, 0.5, 2.0, -0.3, np.random.default_rng(6))
    assert np.all((drawn.h >= 0.5) & (drawn.h <= 2.0)) and drawn.k == 5


def test_superefficiency_bad_inputs():
    rng = np.random.default_rng(0)
    cases = [
        (lambda: superefficiency_pair(10, 0.3, 1.0, 1.0, 2.0, -0.5, rng), "epsilon"),  # 1/ε = 3.33
        (lambda: superefficiency_pair(3, 0.25, 1.0, 1.0, 2.0, -0.5, rng), "n"),  # k = 4 > n
        (lambda: superefficiency_pair(10, 0.5, 1.0, 3.0, 2.0, -0.5, rng), "lam"),  # λ > H
        (lambda: superefficiency_pair(10, 0.5, 1.0, 1.0, 2.0, 0.5, rng), "x0"),  # x₀ > 0
        (lambda: superefficiency_pair(10, 0.5, 1.0, 1.0, 2.0, -1.5, rng), "x0"),  # x₀ < −D
        (lambda: superefficiency_pair(2, 0.5, 1.0, 1.0, 2.0, -0.5, None, h=[1.0, 3.0]), "h"),
        (lambda: superefficiency_pair(4, 0.5, 1.0, 1.0, 2.0, -0.5, rng, replaced=[1, 1]), "replaced"),
        (lambda: superefficiency_pair(4, 0.5, 1.0, 1.0, 2.0, -0.5, rng, replaced=[0, 4]), "replaced"),
        (lambda: lemma_d6_bound(0, 1.0, 1.0, 5), "k"),
        (lambda: proposition_5_bounds(5, 0.5, 1.0, 0.0, 1.0), "lam"),
    ]
    for build, name in cases:
        with pytest.raises(ValueError, match=name):
            build()
    with pytest.raises(TypeError, match="rng"):
        superefficiency_pair(10, 0.5, 1.0, 1.0, 2.0, -0.5, None)
    with pytest.raises(ValueError, match="which"):
        superefficiency_pair(4, 0.5, 1.0, 1.0, 2.0, -0.5, rng).empirical_risk(0.0, "T")
