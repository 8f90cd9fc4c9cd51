"""The privacy harnesses of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (``verification/papers/
accd22_harness.py``), each exercised once on the cases that broke the claims before (ERRATA.md ACCD22-E17, ACCD22-E18): the
record c = (0, ±1e90), u = (1, 1e-80), and the radial record at c = (∓1.7e308, 0), u = (H, H).  The generic
contract over these harnesses is ``tests/test_privacy_contract.py``; this file checks the accd22 pieces it relies
on: the exact product-Laplace curve against an independent integral, the worst pair, the published fields, the
sensitivity probes, and the Gaussian-branch noise replay.

False-failure budget: everything is deterministic except the measured-noise half (one-sided χ² at 1e-7 per entry,
exact; the σ/√2 copy's miss probability miss_probability(1200, 1/√2) = 1.5e-36, computed first): ≤ 6e-7 total.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import integrate

from dpsco.reference.accd22.algorithms import SOLVER_TOL
from dpsco.verification.checks.noise import DEFAULT_ALPHA, measured_noise_check, miss_probability
from dpsco.verification.mutants.accd22 import bugs as mutants
from dpsco.verification.papers.accd22 import harness as hm
from dpsco.verification.papers.catalogue import CATALOGUE

NAMES = sorted(hm.HARNESSES)
ACCD22_E17 = (np.array([0.0, 1e90, 1.0, 1e-80]), np.array([0.0, -1e90, 1.0, 1e-80]))
RADIAL = (np.array([-1.7e308, 0.0, 1.0, 1.0]), np.array([1.7e308, 0.0, 1.0, 1.0]))


def _swap(D: np.ndarray, rec: np.ndarray) -> np.ndarray:
    out = D.copy()
    out[0] = rec
    return out


def test_one_harness_per_entry():
    assert set(NAMES) == {e.name for e in CATALOGUE if e.name.startswith("accd22.")}
    for name, h in hm.HARNESSES.items():
        assert h.entry == name and h.noise is not None and h.noise_bug in mutants.__all__


@pytest.mark.parametrize("name", NAMES)
def test_published_fields_finite_release_and_sensitivity_on_the_extreme_pairs(name):
    """On a benign background with record 0 the ACCD22-E17 record (or the radial record at the float limit) and its
    neighbour: identical published fields but the output, finite outputs, and every phase's ℓ1 shift at the
    recorded centre within the claim's √d(1 + 2·SOLVER_TOL)L_iη_i (the phase holding record 0 differs)."""
    h = hm.HARNESSES[name]
    base = h.records(np.random.default_rng(0))
    for a, b in (ACCD22_E17, RADIAL):
        D, D2 = _swap(base, a), _swap(base, b)
        r1, r2 = h.run(D, np.random.default_rng(7)), h.run(D2, np.random.default_rng(7))
        assert np.all(np.isfinite(r1.output)) and np.all(np.isfinite(r2.output))
        p1, p2 = r1.to_dict(), r2.to_dict()
        p1.pop("output")
        p2.pop("output")
        assert json.dumps(p1, sort_keys=True, default=str) == json.dumps(p2, sort_keys=True, default=str)
        probes = h.sensitivity(D, D2, 7)
        assert probes and all(p.holds for p in probes), [p for p in probes if not p.holds]
        assert probes[0].measured > 0.5 * probes[0].bound / (math.sqrt(2) * (1 + 2 * SOLVER_TOL))
        assert all(p.measured == 0.0 for p in probes[1:] if "records 0:" not in p.label)


def test_extreme_record_draws_are_admissible():
    """Every kind of extreme record (hypothesis draws) is finite with curvatures in [0, H]: it passes the
    algorithms' up-front checks."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=40, deadline=None, derandomize=True, database=None)
    @given(st.data())
    def check(data):
        r = hm.extreme_record(data.draw)
        assert r.shape == (4,) and np.all(np.isfinite(r)) and np.all((r[2:] >= 0) & (r[2:] <= hm.PUBLIC["H"]))

    check()


def _delta_by_noise_integral(lam1: float, lam2: float, eps: float) -> float:
    """δ(ε) = ∫ max(0, p(w) − e^ε q(w)) dw over the noise, with p the product of two Laplace(0, 1) densities and q
    that of Laplace(λ₁, 1) ⊗ Laplace(λ₂, 1): an independent formulation (the densities, not the loss law)."""
    def f(w2: float, w1: float) -> float:
        p = 0.25 * math.exp(-abs(w1) - abs(w2))
        q = 0.25 * math.exp(-abs(w1 - lam1) - abs(w2 - lam2))
        return max(0.0, p - math.exp(eps) * q)

    pts = sorted({0.0, lam1, lam2})
    val = 0.0
    edges = [-40.0, *pts, 40.0]
    for a1, b1 in zip(edges, edges[1:]):
        for a2, b2 in zip(edges, edges[1:]):
            v, _ = integrate.dblquad(f, a1, b1, a2, b2, epsabs=1e-12, epsrel=1e-10)
            val += v
    return val


def test_laplace_product_curve_against_the_noise_integral():
    """:func:`laplace_product_delta` (the law of the privacy loss, one quadrature) against the hockey-stick
    divergence integrated over the two noise coordinates (a double integral, tails beyond ±40 below e^{−40});
    λ₂ = 0 gives the one-dimensional curve 1 − e^{(ε − λ₁)/2} of ``harness.laplace_exact_privacy``."""
    for lam1, lam2 in ((0.125, 0.125), (0.2, 0.05)):
        curve = hm.laplace_product_delta(lam1, lam2)
        for eps in (0.0, 0.1, 0.2, 0.3):
            assert curve(eps) == pytest.approx(_delta_by_noise_integral(lam1, lam2, eps), abs=1e-8)
        assert curve(lam1 + lam2) == 0.0
    one = hm.laplace_product_delta(0.3, 0.0)
    for eps in (0.0, 0.1, 0.29):
        assert one(eps) == pytest.approx(1.0 - math.exp((eps - 0.3) / 2.0), rel=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_exact_privacy_on_the_worst_pair_backs_the_claim(name):
    """The worst pair (far diagonal records, record 0 flipped) differs in phase 1 by ≈ Lη_1(1, 1)/√2: λ_k ≈ ε/8
    each, pure ε ≈ ε/4 ≤ the claim's ε; δ(ε) = 0 at the claim's ε; the claim's dp_accounting event (one Laplace
    at (1 + 2·SOLVER_TOL)ε/4) dominates the exact curve on a grid."""
    exact, rel = hm.HARNESSES[name].exact_privacy()
    claim = rel.claim
    assert 0.24 <= exact.pure_epsilon <= (1 + 2 * SOLVER_TOL) / 4 * claim.epsilon
    assert exact.delta_of_epsilon(claim.epsilon) == 0.0
    for eps in (0.0, 0.05, 0.1, 0.2, 0.3):
        event = claim.event_delta(eps) if eps > 0 else float(claim._event_accountant().get_delta(0.0))
        assert event >= exact.delta_of_epsilon(eps) - 1e-9  # the PLD accountant rounds pessimistically


@pytest.mark.parametrize("name", NAMES)
def test_gaussian_branch_noise_replay(name):
    """The Gaussian branch (δ = 1e-5, d = 12): 1,200 replayed residuals of phase 1 pass the one-sided χ² check at
    σ_1 from the public schedule (≤ 1e-7), and the planted σ/√2 copy named by the harness fails it (miss ≤ 1.5e-36,
    computed first); σ is the same number for both (public inputs)."""
    h = hm.HARNESSES[name]
    ok = h.noise(5)
    assert ok.residuals.size >= 1000 and miss_probability(ok.residuals.size, 1 / math.sqrt(2)) <= 1e-6
    assert measured_noise_check(ok.residuals, ok.sigma)["p_value"] >= DEFAULT_ALPHA
    bad = h.noise(5, algorithm=getattr(mutants, h.noise_bug))
    assert bad.sigma == ok.sigma
    assert measured_noise_check(bad.residuals, bad.sigma)["p_value"] < DEFAULT_ALPHA
