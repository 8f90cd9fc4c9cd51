"""Tests of dpsco.reference.noise: calibration formulas (golden values), exact samplers (distribution tests),
exact privacy of the mechanisms (dpsco.oracles.lr21.output_perturbation) and the printed Algorithm 2 σ erratum.

False-failure budget.  Distribution tests use fixed seeds; each states its false-failure probability as the
p-value threshold of a test whose null is exactly true for a correct sampler (KS / chi-square are exact or
asymptotically exact at these sizes).  Per test ≤ 1e-6 (Bonferroni over the tests in one function).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpsco.oracles.lr21.output_perturbation import (gaussian_exact_delta, l2_laplace_epsilon, printed_alg2_exact_epsilon,
                                         zhao_exact_epsilon)
from dpsco.oracles.privacy_curves import gaussian_delta
from dpsco.reference import noise

P_THRESHOLD = 1e-7  # per KS/chi-square test; ≤ 4 tests per function ⇒ ≤ 4e-7 < 1e-6


def test_c_delta_and_sigma_golden_values():
    """δ = 1e-5, ε = 1, Δ = 1: c_δ = 3.1822, σ_Zhao = 4.609; ε = 5: σ = 1.000; ε = 50: 0.1547 (Zhao et al.'s
    formula evaluated independently in 30-digit mpmath: 3.18224, 4.60886, 1.00007, 0.154664).  c_δ is also
    recomputed here in 50-digit mpmath (√log(2/(√1.00016 − 1)) = 3.1822431 ...)."""
    import mpmath as mp
    mp.mp.dps = 50
    c_ref = float(mp.sqrt(mp.log(2 / (mp.sqrt(16 * mp.mpf("1e-5") + 1) - 1))))
    assert noise.c_delta(1e-5) == pytest.approx(c_ref, rel=1e-13)
    assert c_ref == pytest.approx(3.1822, abs=1e-4)
    assert noise.zhao_sigma(1.0, 1.0, 1e-5) == pytest.approx(4.609, abs=5e-4)
    assert noise.zhao_sigma(1.0, 5.0, 1e-5) == pytest.approx(1.000, abs=5e-4)
    assert noise.zhao_sigma(1.0, 50.0, 1e-5) == pytest.approx(0.1547, abs=5e-5)
    c = noise.c_delta(1e-5)
    assert noise.zhao_sigma(1.0, 1.0, 1e-5, printed_alg2=True) == pytest.approx((c + math.sqrt(c * c + 1)) / 2,
                                                                               rel=1e-15)
    assert noise.c_delta(0.5 - 1e-12) == pytest.approx(0.0, abs=1e-5)
    # classical σ = √(2 log(1.25e5)) = 4.84481; analytic 3.73063 (Balle & Wang's Theorem 8 in mpmath)
    assert noise.classical_gaussian_sigma(1.0, 0.5, 1e-5) == pytest.approx(2 * 4.84481, abs=1e-4)
    assert noise.analytic_gaussian_sigma(1.0, 1.0, 1e-5) == pytest.approx(3.731, abs=2e-3)


def test_noise_factor_golden():
    assert noise.noise_factor(4, 2.0, 0.0) == 2.0
    c = noise.c_delta(1e-5)
    assert noise.noise_factor(4, 2.0, 1e-5) == pytest.approx(2 * (c + math.sqrt(c * c + 2)) / 2, rel=1e-15)


def test_bad_inputs_raise_naming_the_parameter():
    with pytest.raises(ValueError, match="delta"):
        noise.c_delta(0.5)
    with pytest.raises(ValueError, match="delta"):
        noise.calibrate(1.0, 1.0, 0.6)
    with pytest.raises(ValueError, match="sensitivity"):
        noise.calibrate(-1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        noise.calibrate(1.0, 0.0, 0.0)
    with pytest.raises(TypeError, match="rng"):
        noise.sample_l2_laplace(3, 1.0, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="epsilon"):
        noise.classical_gaussian_sigma(1.0, 1.5, 1e-5)
    with pytest.raises(ValueError, match="gaussian"):
        noise.calibrate(1.0, 1.0, 1e-3, gaussian="nope")  # type: ignore[arg-type]


@pytest.mark.parametrize("d", [1, 3, 10])
def test_l2_laplace_sampler_radius_and_direction(d):
    """‖z‖ ~ Gamma(d, b) (KS); z/‖z‖ uniform on the sphere: its first coordinate u₁ has the law of
    2·Beta((d−1)/2, (d−1)/2) − 1 for d ≥ 2 (KS), and for d = 1 the sign is fair (exact binomial test)."""
    b = 0.7
    z = noise.sample_l2_laplace(d, b, np.random.default_rng(100 + d), size=40_000)
    r = np.linalg.norm(z, axis=1)
    assert stats.kstest(r, stats.gamma(a=d, scale=b).cdf).pvalue > P_THRESHOLD
    u1 = z[:, 0] / r
    if d == 1:
        assert stats.binomtest(int((u1 > 0).sum()), len(u1)).pvalue > P_THRESHOLD
    else:
        beta = stats.beta((d - 1) / 2, (d - 1) / 2)
        assert stats.kstest((u1 + 1) / 2, beta.cdf).pvalue > P_THRESHOLD
    # d = 1 is Laplace(b): KS against scipy's Laplace
    if d == 1:
        assert stats.kstest(z[:, 0], stats.laplace(scale=b).cdf).pvalue > P_THRESHOLD


def test_gaussian_sampler_and_moments():
    """Per-coordinate KS vs N(0, σ²) and ‖z‖²/σ² ~ χ²_d (KS); exact moments of noise_moments checked by
    the same laws' closed forms (independent: scipy's chi distribution mean)."""
    d, s = 5, 1.3
    z = noise.sample_gaussian(d, s, np.random.default_rng(7), size=40_000)
    assert stats.kstest(z[:, 2], stats.norm(scale=s).cdf).pvalue > P_THRESHOLD
    assert stats.kstest((z**2).sum(axis=1) / s**2, stats.chi2(d).cdf).pvalue > P_THRESHOLD
    cal = noise.NoiseCalibration("gaussian", 1.0, 1.0, 1e-5, s, "test")
    m1, m2 = noise.noise_moments(cal, d)
    assert m1 == pytest.approx(s * stats.chi(d).mean(), rel=1e-13)
    assert m2 == pytest.approx(d * s * s, rel=1e-15)
    cal0 = noise.calibrate(2.0, 4.0, 0.0)
    m1, m2 = noise.noise_moments(cal0, d)
    g = stats.gamma(a=d, scale=0.5)
    assert m1 == pytest.approx(g.mean(), rel=1e-13) and m2 == pytest.approx(g.moment(2), rel=1e-13)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(1e-8, 0.49), st.floats(0.05, 200.0))
def test_zhao_sigma_is_private_on_the_exact_curve(delta, eps):
    """Theorem 0.1 (Zhao et al., Thm 5): Zhao's σ satisfies δ_σ(ε) ≤ δ on the exact Gaussian curve (sensitivity 1)."""
    sigma = noise.zhao_sigma(1.0, eps, delta)
    assert gaussian_delta(eps, 1.0, sigma) <= delta * (1 + 1e-9)
    assert noise.analytic_gaussian_sigma(1.0, eps, delta) <= sigma * (1 + 1e-12)


def test_erratum_alg2_printed_sigma_is_not_private():
    """ERRATA.md LR21-E2: Algorithm 2's printed density has σ_Zhao/√2.  Exact Gaussian curve (checked
    independently in 30-digit mpmath): nominal (1, 1e-5) is really ε ≈ 1.16 at δ = 1e-5, i.e. δ(1) ≈ 7.4e-5 >
    1e-5; nominal 5 → 6.57; Zhao's own σ realises 0.793 at nominal 1."""
    assert printed_alg2_exact_epsilon(1.0, 1e-5) == pytest.approx(1.16, abs=0.01)
    assert printed_alg2_exact_epsilon(5.0, 1e-5) == pytest.approx(6.57, abs=0.01)
    s = noise.zhao_sigma(1.0, 1.0, 1e-5, printed_alg2=True)
    assert gaussian_exact_delta(1.0, 1.0, s) == pytest.approx(7.4e-5, rel=0.02)
    assert zhao_exact_epsilon(1.0, 1e-5) == pytest.approx(0.793, abs=2e-3)


def test_l2_laplace_exact_privacy_loss_is_attained():
    """Exact ε = t/b: the empirical log density ratio along the ray beyond a reaches t/b (hand derivation in
    dpsco.oracles.lr21.output_perturbation), never exceeds it anywhere (random points)."""
    rng = np.random.default_rng(3)
    a, a2, b = np.array([0.3, -0.2, 0.1]), np.array([-0.4, 0.5, 0.0]), 0.9
    t = float(np.linalg.norm(a - a2))
    o = rng.normal(size=(10_000, 3)) * 3
    loss = (np.linalg.norm(o - a2, axis=1) - np.linalg.norm(o - a, axis=1)) / b
    assert loss.max() <= t / b + 1e-12
    u = (a - a2) / t
    ray = a + 5.0 * u
    assert (np.linalg.norm(ray - a2) - np.linalg.norm(ray - a)) / b == pytest.approx(t / b, rel=1e-12)
    assert l2_laplace_epsilon(t, b) == pytest.approx(t / b)


def test_perturb_and_project_stays_in_ball_and_is_identity_inside():
    rng = np.random.default_rng(5)
    cal = noise.calibrate(1.0, 0.5, 0.0)
    out = noise.perturb_and_project(np.zeros(4), cal, 1.5, rng, size=1000)
    assert np.all(np.linalg.norm(out, axis=1) <= 1.5 * (1 + 1e-15))
    w = np.array([0.1, 0.2])
    assert np.array_equal(noise.project_ball(w, 1.0), w)
