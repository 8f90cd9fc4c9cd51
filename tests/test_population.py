"""Tests of dpsco.oracles.population: closed forms, Monte-Carlo agreement, minimiser optimality, bounds.

Stochastic assertions (Monte Carlo) use Hoeffding's inequality: for i.i.d. losses in an interval of
length R, P(|mean_n − E| ≥ t) ≤ 2 exp(−2 n t² / R²).  Each Monte-Carlo test makes at most 4 such
assertions at level δ = 2.5e-7 each, t = R √(log(2/δ) / (2n)), so its false-failure probability is
≤ 4 · 2.5e-7 = 1e-6 (union bound).  All seeds are fixed.
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.oracles.minimizers import cvxpy_minimize
from dpsco.oracles.population import (
    FiniteSupportBinary,
    PopulationMinimum,
    SphereRegression,
    d1_logistic,
    d2_least_squares,
    d3_absolute,
    d5_hinge,
    huber_symmetric,
    linear_mean,
)
from dpsco.reference.glm_objective import objective_gradient
from dpsco.reference.domains import Ball

MP_DPS = 30  # mp computations run under mp.workdps(MP_DPS) (mpmath precision is global)
DELTA = 2.5e-7  # per assertion; ≤ 4 assertions per test → ≤ 1e-6 per test
N_MC = 200_000


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath precision is global state: set it for each test of this module and restore it after."""
    with mp.workdps(MP_DPS):
        yield


def hoeffding_t(R: float, n: int = N_MC, delta: float = DELTA) -> float:
    """Half-width t with P(|mean − E| ≥ t) ≤ delta for n i.i.d. values in an interval of length R."""
    return R * math.sqrt(math.log(2 / delta) / (2 * n))


# -----------------------------------------------------------------------------------------------------
# independent mpmath quadrature of the sphere models (θ-substitution u = cos θ, density ∝ sin^{d−2} θ)
# -----------------------------------------------------------------------------------------------------


def _mp_phi_and_antiderivative(dist: SphereRegression):
    """φ and Φ(r) = ∫₀ʳ φ for the test's own mp reference (Φ derived by hand, checked below by quadrature)."""
    name = dist.loss.name
    if name == "absolute":
        return (lambda r: abs(r)), (lambda r: r * abs(r) / 2), [mp.mpf(0)]
    if name == "squared":
        return (lambda r: r * r / 2), (lambda r: r ** 3 / 6), []
    h = mp.mpf(dist.loss.threshold)

    def phi(r):
        return r * r / 2 if abs(r) <= h else h * abs(r) - h * h / 2

    def Phi(r):  # ∫₀ʳ: r³/6 inside, then h³/6 + ∫_h^|r| (h t − h²/2) dt, odd
        a = abs(r)
        v = a ** 3 / 6 if a <= h else h ** 3 / 6 + h * (a * a - h * h) / 2 - h * h * (a - h) / 2
        return v if r >= 0 else -v

    return phi, Phi, [-h, h]


def mp_g(dist: SphereRegression, c) -> mp.mpf:
    """g(c) = E_ξ φ(c − ξ) = (Φ(c + s) − Φ(c − s)) / (2s), ξ ~ U[−s, s]."""
    _, Phi, _ = _mp_phi_and_antiderivative(dist)
    s = mp.mpf(dist.noise)
    return (Phi(c + s) - Phi(c - s)) / (2 * s)


def mp_sphere_loss(dist: SphereRegression, w: np.ndarray) -> mp.mpf:
    """E g(⟨w − w0, x⟩) by 1-D mp quadrature in θ (u = cos θ, density ∝ sin^{d−2} θ on [0, π]),
    split at the θ where a|cos θ| crosses a breakpoint of g."""
    d = dist.dim
    s = mp.mpf(dist.noise)
    a = mp.mpf(dist.x_max) * mp.sqrt(mp.fsum(mp.mpf(float(t)) ** 2 for t in (w - dist.w0)))
    _, _, kinks = _mp_phi_and_antiderivative(dist)
    if d == 1:
        return (mp_g(dist, a) + mp_g(dist, -a)) / 2
    cuts = {abs(k + e) for k in kinks for e in (-s, s)}
    ths = {mp.mpf(0), mp.pi / 2, mp.pi}
    for c in cuts:
        if 0 < c < a:
            t = mp.acos(c / a)
            ths |= {t, mp.pi - t}
    Z = mp.beta(mp.mpf(1) / 2, mp.mpf(d - 1) / 2)
    return mp.quad(lambda th: mp_g(dist, a * mp.cos(th)) * mp.sin(th) ** (d - 2), sorted(ths)) / Z


@pytest.mark.parametrize("model", ["d2", "d3", "huber_narrow", "huber_wide"])
def test_mp_reference_g_matches_direct_integral(model):
    """The hand-derived antiderivative used by the reference equals (1/2s)∫_{c−s}^{c+s} φ (mp.quad)."""
    dist = SPHERE_MODELS[model](3, np.random.default_rng(0), 0.7)
    phi, _, kinks = _mp_phi_and_antiderivative(dist)
    s = mp.mpf(dist.noise)
    for c in (mp.mpf(0), mp.mpf("0.05"), mp.mpf("-0.6"), mp.mpf("1.3"), mp.mpf("-2.9")):
        pts = sorted(set([c - s, c + s] + [k for k in kinks if c - s < k < c + s]))
        assert abs(mp_g(dist, c) - mp.quad(phi, pts) / (2 * s)) <= mp.mpf(10) ** -25


SPHERE_MODELS = {
    "d2": lambda d, rng, s: d2_least_squares(d, rng=rng, noise=s),
    "d3": lambda d, rng, s: d3_absolute(d, rng=rng, noise=s),
    "huber_narrow": lambda d, rng, s: huber_symmetric(d, threshold=0.2, rng=rng, noise=s),
    "huber_wide": lambda d, rng, s: huber_symmetric(d, threshold=1.5, rng=rng, noise=s),
}


@pytest.mark.parametrize("model", sorted(SPHERE_MODELS))
@pytest.mark.parametrize("d", [1, 2, 3, 7])
@pytest.mark.parametrize("noise", [0.3, 1.7])
def test_sphere_closed_form_matches_mp_quadrature(model, d, noise):
    rng = np.random.default_rng(d)
    dist = SPHERE_MODELS[model](d, rng, noise)
    for scale in (1e-4, 0.2, 0.9, 3.0):
        u = rng.standard_normal(d)
        w = dist.w0 + scale * u / np.linalg.norm(u)
        ref = mp_sphere_loss(dist, w)
        assert abs(dist.population_loss(w) - ref) <= dist.loss_accuracy
        # the excess is computed directly; check it too (L* = L(w0) here since ‖w0‖ = M/2)
        assert abs(dist.excess_population_risk(w) - (ref - mp_sphere_loss(dist, dist.w0))) <= 2 * dist.loss_accuracy


def test_golden_small_deviation_closed_forms():
    """Hand derivations for ‖Δ‖ small, Δ = w − w0, a = X‖Δ‖, E⟨Δ, x⟩² = a²/d:
    D3: if a ≤ s, h(c) = c²/(2s) on the whole range, so excess = a²/(2 s d).
    Huber: if a + s ≤ h, every residual stays in the quadratic zone: excess = a²/(2d) (as least squares).
    D2: excess = a²/(2d) always (module docstring of dpsco.oracles.population)."""
    d, X, s = 5, 1.0, 0.5
    w0 = np.array([0.1, 0.2, -0.1, 0.0, 0.3])
    delta = np.array([0.01, -0.02, 0.0, 0.03, 0.01])
    a2 = float(np.sum(delta**2))
    D3 = d3_absolute(d, w0=w0, noise=s, x_max=X)
    assert D3.excess_population_risk(w0 + delta) == pytest.approx(a2 / (2 * s * d), rel=1e-13)
    H = huber_symmetric(d, threshold=1.0, w0=w0, noise=s, x_max=X)
    assert H.excess_population_risk(w0 + delta) == pytest.approx(a2 / (2 * d), rel=1e-13)
    assert H.minimiser().value == pytest.approx(s * s / 6, rel=1e-14)  # g(0) = E ξ²/2 when s ≤ h
    D2 = d2_least_squares(d, w0=w0, noise=s, x_max=X)
    assert D2.population_loss(w0 + delta) == pytest.approx(a2 / (2 * d) + s * s / 6, rel=1e-14)
    assert D3.minimiser().value == pytest.approx(s / 2, rel=1e-15)


def test_d2_projection_when_w0_outside_ball():
    """Isotropic quadratic: the minimiser over B_M is Proj(w0) and L* = s²/6 + (X²/2d)(‖w0‖ − M)²."""
    w0 = np.array([2.0, 0.0])
    D = d2_least_squares(2, w0=w0, radius=1.0, noise=0.3, x_max=1.0)
    m = D.minimiser()
    assert np.allclose(m.w, [1.0, 0.0])
    assert m.value == pytest.approx(0.09 / 6 + 1.0 / 4, rel=1e-14)
    assert D.excess_population_risk(m.w) == 0.0


# -----------------------------------------------------------------------------------------------------
# Monte Carlo (Hoeffding; see module docstring for the false-failure budget)
# -----------------------------------------------------------------------------------------------------


def _mc_check(dist, w, R, seed):
    X, y = dist.sample(N_MC, np.random.default_rng(seed))
    emp = float(np.mean(dist.loss.value(w, X, y)))
    t = hoeffding_t(R)
    assert abs(emp - dist.population_loss(w)) <= t + dist.loss_accuracy
    return emp, t


def test_mc_d1_logistic():
    D = d1_logistic(3, K=50, rng=np.random.default_rng(1))
    for w in (D.minimiser().w, np.array([0.5, -0.5, 0.3])):
        # logistic loss at ‖w‖ ≤ 1, ‖x‖ ≤ 1 lies in [0, log(1 + e^{‖w‖})]
        _mc_check(D, w, math.log1p(math.exp(np.linalg.norm(w))), seed=10)


def test_mc_d5_hinge():
    D = d5_hinge(3, K=50, rng=np.random.default_rng(2))
    for w in (D.minimiser().w, np.array([0.5, -0.5, 0.3])):
        _mc_check(D, w, 1 + np.linalg.norm(w), seed=11)  # hinge ∈ [0, 1 + ‖w‖‖x‖]


def test_mc_d2_least_squares_and_planted_error():
    D = d2_least_squares(4, rng=np.random.default_rng(3), noise=0.5)
    Y = D.bounds.y_max
    w = np.array([0.3, -0.2, 0.1, 0.4])
    R = 0.5 * (np.linalg.norm(w) + Y) ** 2  # squared loss ∈ [0, ½(‖w‖X + Y)²]
    emp, t = _mc_check(D, w, R, seed=12)
    _mc_check(D, D.w0, 0.5 * (np.linalg.norm(D.w0) + Y) ** 2, seed=13)
    # power against a planted error (E ξ² taken as s² instead of s²/3: L too large by s²/3 = 0.0833):
    # the gap to the wrong value exceeds 2t + accuracy, so the MC test would reject it (same δ).
    wrong = D.population_loss(w) + 0.5**2 / 3
    assert abs(emp - wrong) > t


def test_mc_d3_absolute_and_huber():
    D3 = d3_absolute(3, rng=np.random.default_rng(4), noise=0.4)
    w = D3.w0 + np.array([0.3, 0.0, -0.2])
    R = np.linalg.norm(w) + D3.bounds.y_max  # |y − ⟨w, x⟩| ≤ ‖w‖ + Y
    emp, t = _mc_check(D3, w, R, seed=14)
    # planted error: the excess with h(c) = c²/s (no ½) is off by ≥ 0.01 here, ≫ 2t
    assert abs(emp - (D3.population_loss(w) + D3.excess_population_risk(w))) > t
    H = huber_symmetric(3, threshold=0.3, rng=np.random.default_rng(5), noise=0.4)
    wh = H.w0 + np.array([-0.3, 0.2, 0.1])
    _mc_check(H, wh, 0.3 * (np.linalg.norm(wh) + H.bounds.y_max), seed=15)  # Huber ≤ h|r|
    _mc_check(H, H.w0, 0.3 * (np.linalg.norm(H.w0) + H.bounds.y_max), seed=16)


def test_mc_linear():
    D = linear_mean([0.3, -0.4, 0.2], spread=0.5, radius=2.0)
    w = np.array([1.0, 0.5, -0.5])
    X, _ = D.sample(N_MC, np.random.default_rng(17))
    R = 2 * np.linalg.norm(w) * D.bounds.x_max  # ⟨w, x⟩ ∈ [−‖w‖X, ‖w‖X]
    assert abs(float(np.mean(X @ w)) - D.population_loss(w)) <= hoeffding_t(R)


# -----------------------------------------------------------------------------------------------------
# Minimisers
# -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [2, 5, 10])
def test_d1_minimiser_is_w_star_within_certificate(d):
    """Well-specified logistic model: ∇L(w⋆) = Σ π_k x_k (σ(⟨w⋆, x_k⟩) − p_k) = 0 exactly, so the
    certified minimiser must be within its certified distance of w⋆ (up to the rounding of p_k)."""
    D = d1_logistic(d, rng=np.random.default_rng(d))
    m = D.minimiser()
    cert = D.certificate
    assert cert.distance_bound is not None
    # p_k = fl(σ(⟨w⋆, x_k⟩)) moves the minimiser by ≤ ‖δp‖·‖x‖/μ ≲ 1e-15/μ; allow 1e-12
    assert np.linalg.norm(m.w - D.w_star) <= cert.distance_bound + 1e-12
    assert m.accuracy <= 1e-9
    X2, y2, w2 = D.pairs()
    assert np.linalg.norm(objective_gradient(D.loss, X2, y2, D.w_star, weights=w2)) <= 1e-15


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1), st.floats(1e-3, 1.0))
def test_minimisers_are_not_beaten(seed, size):
    """L(w) ≥ L* − accuracy for random w in the ball, for every distribution (hypothesis)."""
    rng = np.random.default_rng(seed)
    dists = [
        d1_logistic(3, K=40, rng=np.random.default_rng(1)),
        d5_hinge(3, K=40, rng=np.random.default_rng(2)),
        d2_least_squares(3, rng=np.random.default_rng(3)),
        d3_absolute(3, rng=np.random.default_rng(4)),
        huber_symmetric(3, threshold=0.3, rng=np.random.default_rng(5)),
        linear_mean([0.3, -0.4, 0.2], spread=0.5),
    ]
    for D in dists:
        m = D.minimiser()
        u = rng.standard_normal(3)
        w = Ball(D.radius).project(m.w + size * u / np.linalg.norm(u))
        assert D.population_loss(w) >= m.value - m.accuracy
        lo, hi = D.excess_interval(w)
        assert hi >= 0


def test_d5_minimiser_against_cvxpy():
    """Independent conic solve of the same weighted 2K-pair problem cannot beat the certified value."""
    D = d5_hinge(4, K=60, rng=np.random.default_rng(8))
    m = D.minimiser()
    X2, y2, w2 = D.pairs()
    w_c, status, _ = cvxpy_minimize(D.loss, X2, y2, D.domain, weights=w2)
    w_c = Ball(D.radius).project(w_c)
    assert status == "optimal"
    assert D.population_loss(w_c) >= m.value - m.accuracy
    assert m.accuracy <= 1e-9


def test_envelope_below_loss_and_converges():
    D = d5_hinge(3, K=30, rng=np.random.default_rng(9))
    w = np.array([0.2, -0.1, 0.4])
    L = D.population_loss(w)
    vals = [D.envelope_loss(w, b) for b in (1.0, 10.0, 100.0, 1e4)]
    assert all(v <= L + 1e-15 for v in vals)
    assert all(a <= b + 1e-15 for a, b in zip(vals, vals[1:]))  # increasing in β
    # hinge envelope: ℓ − ℓ_β ≤ L²/(2β) with L = ‖x‖ ≤ 1 (Bassily et al. 2019, Lemma 4.3)
    assert L - vals[-1] <= 1 / (2 * 1e4) + 1e-15


def test_linear_minimiser_closed_form():
    D = linear_mean([0.3, 0.4], spread=0.2, radius=2.0)
    m = D.minimiser()
    assert np.allclose(m.w, [-1.2, -1.6], rtol=0, atol=1e-15)
    assert m.value == pytest.approx(-1.0, rel=1e-15)
    assert D.excess_population_risk(np.zeros(2)) == pytest.approx(1.0, rel=1e-15)


# -----------------------------------------------------------------------------------------------------
# Declared bounds, sampling, inputs
# -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [
    lambda: d1_logistic(4, rng=np.random.default_rng(0)),
    lambda: d5_hinge(4, rng=np.random.default_rng(0)),
    lambda: d2_least_squares(4, rng=np.random.default_rng(0), noise=0.7),
    lambda: d3_absolute(4, rng=np.random.default_rng(0)),
    lambda: huber_symmetric(4, rng=np.random.default_rng(0)),
    lambda: linear_mean([0.3, 0.1, 0.0, -0.2], spread=0.7),
])
def test_samples_respect_declared_bounds(make):
    D = make()
    X, y = D.sample(20_000, np.random.default_rng(1))
    assert X.shape == (20_000, D.dim) and y.shape == (20_000,)
    assert np.all(np.linalg.norm(X, axis=1) <= D.bounds.x_max)
    assert np.all(np.abs(y) <= D.bounds.y_max)
    D.loss.check_labels(y)
    json.dumps(D.to_dict())
    assert isinstance(D.minimiser(), PopulationMinimum)


def test_sampling_is_reproducible():
    D = d3_absolute(3, rng=np.random.default_rng(0))
    a = D.sample(100, np.random.default_rng(42))
    b = D.sample(100, np.random.default_rng(42))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def test_bad_inputs():
    with pytest.raises(ValueError, match="w0"):
        d3_absolute(2, w0=[2.0, 0.0], radius=1.0)
    with pytest.raises(ValueError, match="n"):
        d2_least_squares(2, rng=np.random.default_rng(0)).sample(0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng"):
        d2_least_squares(2, rng=np.random.default_rng(0)).sample(5, 3)
    with pytest.raises(ValueError, match="noise"):
        d2_least_squares(2, noise=-1.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="w"):
        d2_least_squares(2, rng=np.random.default_rng(0)).population_loss(np.zeros(3))
    with pytest.raises(ValueError, match="p_pos"):
        FiniteSupportBinary(d1_logistic(2, rng=np.random.default_rng(0)).loss, np.eye(2), np.ones(2),
                            np.array([0.5, 1.5]), 1.0, 1.0)
    with pytest.raises(ValueError, match="mean"):
        linear_mean([0.0, 0.0])
