"""Menart et al. (2023), arXiv:2311.13447 v2: regression tests for the independent privacy review's findings
D1–D5 (dpsco.reference.muabg23).  Each test failed on the code the review read and passes now.

* D1 — the zCDP cost Δ²/(2σ²) was computed as Δ·Δ/(2σ·σ), and σ as √(L_0²·…): at a tiny public L_0 (≈ 1e-160)
  the squares are subnormal, the filter of Algorithm 3 charged 0.28 for releases that cost 1.98 (claim 0.5), and
  at 1e-162 it raised ZeroDivisionError.  Every claim is now checked against the ρ of the releases as drawn,
  recomputed in exact arithmetic (mpmath, 60 digits) from the σ's the run used, at L_0 ∈ {1e-160, 1e-161,
  1e-162, 1, 1e150}; the problems are the same problem rescaled (f ↦ L_0 f), so the mechanism is scale-equivariant
  and the exact ρ is the same at every scale.
* D2 — ``NonconvexLoss.check_records`` used ``np.linalg.norm``, which overflowed for an admissible record of norm
  > 1.34e154 (refused: a refusal that depends on one record) and underflowed below 1e-154.
* D3 — ``adaptive_gd(rule=...)`` existed only for the planted bugs (and handed σ_t the exact gradient norm).
* D4 — Algorithm 3's hard cap 10n + 10 was below the filter's own bound ⌊n√ρ/2⌋ + 1 for ρ ≳ 400: RuntimeError
  mid-run on some data and not on its neighbour.
* D5 — extreme public constants raised mid-run (OverflowError, ZeroDivisionError) or gave a NaN budget; now they
  work or are refused by a ValueError naming the parameter before any noise is drawn.

Every assertion is deterministic (fixed seeds, exact arithmetic): false-failure probability 0.
"""

from __future__ import annotations

import inspect
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.reference.muabg23 import algorithms_adaptive as adaptive

from dpsco.reference.muabg23 import algorithms_proximal as proximal
from dpsco.reference.muabg23.algorithms_adaptive import (AdaptiveRule, adaptive_gd, adaptive_gd_em, iteration_cap_theorem3,
                                              loss_oracle)
from dpsco.reference.muabg23.ledger import gaussian_zcdp, printed_cost_unit_sensitivity
from dpsco.reference.muabg23.model import LinearLoss
from dpsco.reference.muabg23.algorithms_proximal import noisy_regularised_gd, proximal_point
from dpsco.reference.muabg23.algorithms_spider import kl_spider, kl_spider_schedule

N, D = 20, 2
E1 = np.eye(D)[0]
SCALES = (1e-160, 1e-161, 1e-162, 1.0, 1e150)
REL = 1e-12      # floating point against 60-digit arithmetic: a few ulps per operation, far below 1e-12


@pytest.fixture(autouse=True)
def _sixty_digits():
    """mpmath at 60 significant digits for this module's tests (restored afterwards)."""
    with mpmath.workdps(60):
        yield


class _Lin:
    """f(w; x) = ⟨w, x⟩ without a declared domain (records are the gradients)."""

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return np.array(X, dtype=np.float64, copy=True)


def _lin(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.broadcast_to(X[None], (np.atleast_2d(W).shape[0],) + X.shape).copy()


def _records(L0: float) -> np.ndarray:
    """Every record L_0 e_1, on the declared Lipschitz bound: with the neighbour's last record −L_0 e_1 every
    release of every algorithm moves by its full replace-one sensitivity."""
    return np.tile(L0 * E1, (N, 1))


def _half_sq(delta, sigma):
    """½(Δ/σ)² in 60-digit arithmetic."""
    r = mpmath.mpf(delta) / mpmath.mpf(sigma)
    return r * r / 2


def _close(x: float, exact) -> bool:
    return abs(mpmath.mpf(x) - exact) <= REL * abs(exact)


# ---- D1: the claims equal the exact ρ of the releases as drawn, at every scale ------------------------------

def test_d1_gaussian_cost_is_exact_at_tiny_and_huge_scales():
    # The review's numbers: gaussian_zcdp(1e-161, 2e-161) returned 0.12346 (true 1/8) and raised below 1.5e-162.
    assert gaussian_zcdp(1e-161, 2e-161) == 0.125
    for s in (1e-300, 1e-200, 1e-162, 1.0, 1e154, 1e200, 1e300):
        assert _close(gaussian_zcdp(0.3 * s, s), _half_sq(0.3 * s, s))
        assert _close(printed_cost_unit_sensitivity(0.3 * s, 7, s), (mpmath.mpf(0.3 * s) / 7 / mpmath.mpf(s)) ** 2)


@pytest.mark.parametrize("calibration", ["exact", "printed"])
@pytest.mark.parametrize("L0", SCALES)
def test_d1_adaptive_gd_charges_the_exact_cost_at_every_scale(L0, calibration):
    # Algorithm 3 on the worst pair (all records L0 e1 vs the last at −L0 e1): both queries move by Δ = 2L0/n at
    # every state, so the transcript's exact ρ is Σ_t ½(Δ/σ̂)² + ½(Δ/σ_t)² over the σ's drawn (the white-box
    # record), in 60-digit arithmetic.  Exact calibration: each step is charged exactly that, and the total is
    # ≤ the claim ρ; printed: charged the paper's (L0/(nσ))² per release, total exact cost ≤ 2ρ + 2√ρ/n.  Before:
    # at L0 = 1e-161 charged 0.28 for 1.98 (claim 0.5); at 1e-162 ZeroDivisionError.
    rho = 0.5
    X = _records(L0)
    rel = adaptive_gd(lambda w: X.copy(), np.zeros(D), rho=rho, beta=0.1, L0=L0, L1=1.0,
                      rng=np.random.default_rng(0), calibration=calibration, white_box=True)
    wb, delta = rel.white_box, 2 * mpmath.mpf(L0) / N
    exact = [_half_sq(delta, wb["sigma_hat"]) + _half_sq(delta, s) for s in wb["sigma"]]
    if calibration == "exact":
        charged = rel.diagnostics["charged_costs"]
        assert all(_close(c, e) for c, e in zip(charged, exact))
        assert sum(exact) <= mpmath.mpf(rel.claim.rho) * (1 + REL) and rel.claim.rho == rho
    else:
        unit = [(mpmath.mpf(L0) / N / mpmath.mpf(wb["sigma_hat"])) ** 2 + (mpmath.mpf(L0) / N / mpmath.mpf(s)) ** 2
                for s in wb["sigma"]]
        assert all(_close(c, u) for c, u in zip(rel.diagnostics["charged_costs"], unit))
        assert sum(exact) <= mpmath.mpf(rel.claim.rho) * (1 + REL)
        assert rel.claim.rho == pytest.approx(2 * rho + 2 * math.sqrt(rho) / N, rel=1e-15)
    # scale-equivariance: the same seed at L0 = 1 gives the same number of steps and σ's scaled by L0
    ref = adaptive_gd(lambda w: _records(1.0), np.zeros(D), rho=rho, beta=0.1, L0=1.0, L1=1.0,
                      rng=np.random.default_rng(0), calibration=calibration, white_box=True).white_box
    assert wb["sigma"].size == ref["sigma"].size
    assert np.allclose(wb["sigma"] / L0, ref["sigma"], rtol=1e-12, atol=0.0)
    assert np.all(np.isfinite(rel.output))


@pytest.mark.parametrize("L0", SCALES)
def test_d1_adaptive_gd_em_claim_at_every_scale(L0):
    # Theorem 5's variant: Algorithm 3's part charged exactly (as above) and the claim ρ + ρ_EM = 0.75.
    X = _records(L0)
    rel = adaptive_gd_em(lambda w: X.copy(), np.zeros(D), rho=0.5, beta=0.1, L0=L0, L1=1.0,
                         rng=np.random.default_rng(1), white_box=True)
    wb, delta = rel.white_box, 2 * mpmath.mpf(L0) / N
    exact = [_half_sq(delta, wb["sigma_hat"]) + _half_sq(delta, s) for s in wb["sigma"]]
    assert all(_close(c, e) for c, e in zip(rel.diagnostics["charged_costs"], exact))
    assert sum(exact) <= mpmath.mpf(0.5) * (1 + REL) and rel.claim.rho == 0.75
    assert np.all(np.isfinite(rel.output))


@pytest.mark.parametrize("calibration, factor", [("exact", 1.0), ("printed", 2.125)])
@pytest.mark.parametrize("L0", SCALES)
def test_d1_kl_spider_claim_is_the_exact_rho_at_every_scale(L0, calibration, factor):
    # Algorithm 1 on f ↦ L0 f (κ = 2: γ = 1/√L0, L1 = L0, F0 = L0; the schedule in w is the same at every scale).
    # The exact ρ of its accounted releases: K anchors at Δ = 2L0/n with σ̂ and R_k differences at 2L1 s_k/n with
    # σ_k (the schedule's, i.e. the σ's drawn), in 60-digit arithmetic.  It equals the claim, and the claim is ρ
    # (exact) or 2.125ρ (printed, ERRATA.md MUABG23-E2).  Before: claim 0.889 at L0 = 1e-160 for a true 1.
    rho = 1.0
    rel = kl_spider(_records(L0), _Lin(), rho, 0.1, L0, 1.0 / math.sqrt(L0), 2.0, L0, L0,
                    np.random.default_rng(0), w0=np.zeros(D), calibration=calibration)
    p = rel.parameters
    exact = p["K"] * _half_sq(2 * mpmath.mpf(L0) / N, p["sigma_hat"])
    for R, s, sg in zip(p["releases_per_round"], p["step"], p["sigma"]):
        exact += R * _half_sq(2 * mpmath.mpf(L0) * mpmath.mpf(s) / N, sg)
    assert _close(rel.claim.rho, exact)
    assert rel.claim.rho == pytest.approx(factor * rho, rel=1e-12)
    assert rel.claim.mu == pytest.approx(math.sqrt(2 * factor * rho), rel=1e-12)
    assert np.all(np.isfinite(rel.output))


@pytest.mark.parametrize("calibration", ["exact", "printed"])
@pytest.mark.parametrize("L0", SCALES)
def test_d1_noisy_gd_and_proximal_point_claims_at_every_scale(L0, calibration):
    # Algorithm 4 (l̃1 = L0: the same problem at every scale): the σ drawn is Theorem 9's L0·√(2(T−1)/(n²ρ)) (exact)
    # or L0·√(4T/(n²ρ)) (printed), recomputed here in 60 digits, and the claim is the exact (T−1)·½(2L0/(nσ))² = ρ
    # (exact) or (T−1)ρ/(2T) (printed).  Algorithm 2 (outer T = 2 and T4 = 60 public overrides; F0 = L0,
    # γ = 1/√L0): T·(T4−1)·½(2L0/(nσ))² = ρ.  Before: σ = 2.99496e-160 for 2.995e-160 and a claim of 0.494 for a
    # true 0.500013 at L0 = 1e-160; OverflowError at L0 ≥ 1.4e154.
    rho = 0.5
    X = _records(L0)
    gd = noisy_regularised_gd(X, _lin, np.zeros(D), rho, 0.1, L0, L0, np.random.default_rng(0), calibration=calibration)
    T, sigma = gd.parameters["T"], gd.parameters["sigma"]
    want = mpmath.mpf(L0) * (mpmath.sqrt(2 * (T - 1) / mpmath.mpf(rho)) if calibration == "exact"
                             else mpmath.sqrt(4 * T / mpmath.mpf(rho))) / N
    assert _close(sigma, want)
    exact = (T - 1) * _half_sq(2 * mpmath.mpf(L0) / N, sigma)
    assert _close(gd.claim.rho, exact)
    assert gd.claim.rho == pytest.approx(rho if calibration == "exact" else (T - 1) * rho / (2 * T), rel=1e-12)
    pp = proximal_point(X, _lin, np.zeros(D), rho, 0.1, L0, L0, L0, 1.0 / math.sqrt(L0), 2.0,
                        np.random.default_rng(0), calibration=calibration, outer_steps=2, inner_steps=60)
    exact = 2 * 59 * _half_sq(2 * mpmath.mpf(L0) / N, pp.parameters["sigma"])
    assert _close(pp.claim.rho, exact)
    if calibration == "exact":
        assert pp.claim.rho == pytest.approx(rho, rel=1e-12)
    assert np.all(np.isfinite(gd.output)) and np.all(np.isfinite(pp.output))


# ---- D2: the data-domain check is overflow- and underflow-safe -----------------------------------------------

def test_d2_check_records_accepts_every_admissible_record_and_refuses_the_others():
    # LinearLoss(1e300): a record of norm 1e200 is inside the domain (np.linalg.norm gave inf: refused before);
    # LinearLoss(1e-170): a record of norm 3e-170 is outside (np.linalg.norm gave 0: accepted before).
    X = np.array([[1e200, 0.0], [0.0, -1e300], [6e299, 8e299]])
    assert LinearLoss(1e300).check_records(X) is not None
    with pytest.raises(ValueError, match="X"):
        LinearLoss(1e300).check_records(np.array([[1e300, 1e300]]))       # norm √2·1e300
    with pytest.raises(ValueError, match="X"):
        LinearLoss(1e-170).check_records(np.array([[3e-170, 0.0]]))
    assert LinearLoss(1e-170).check_records(np.array([[6e-171, 8e-171]])) is not None


@settings(max_examples=40, deadline=None)
@given(log_r=st.floats(-300, 300), frac=st.floats(0.0, 1.0), angle=st.floats(0.0, 2 * math.pi))
def test_d2_records_inside_the_radius_are_always_admissible(log_r, frac, angle):
    # Hypothesis: a record of norm frac·r (frac ≤ 1) at any radius r = 10^log_r is admitted (deterministic).
    r = 10.0 ** log_r
    x = frac * r * np.array([math.cos(angle), math.sin(angle)])
    LinearLoss(r).check_records(x[None, :])


def test_d2_kl_spider_and_adaptive_gd_release_on_an_admissible_huge_record():
    # The review's pair: records e1, and the neighbour with its last record 1e200·e1, both inside the domain
    # r = 1e300; L0 = 1 is a public clip.  Both release (before: D′ raised "norm inf > 1e+300", a refusal that
    # depends on one record), and the published fields agree except the output.
    X = np.tile(E1, (N, 1))
    Xp = X.copy()
    Xp[-1] = 1e200 * E1
    loss = LinearLoss(1e300)
    runs = [kl_spider(Z, loss, 1.0, 0.1, 1.0, 1.0, 2.0, 1.0, 1.0, np.random.default_rng(0)) for Z in (X, Xp)]
    runs2 = [adaptive_gd(loss_oracle(loss, Z), np.zeros(D), rho=0.5, beta=0.1, L0=1.0, L1=1.0,
                         rng=np.random.default_rng(0)) for Z in (X, Xp)]
    for a, b in (runs, runs2):
        assert np.all(np.isfinite(a.output)) and np.all(np.isfinite(b.output))
        da, db = a.to_dict(), b.to_dict()
        da.pop("output"), db.pop("output")
        assert da == db


# ---- D3: no planted-bug hook in the reference -----------------------------------------------------------------

def test_d3_no_keyword_or_callable_that_only_switches_a_bug_on():
    # adaptive_gd / adaptive_gd_em lost ``rule=``; AdaptiveRule holds numbers (σ_t reads the released N_t only);
    # Algorithm 4's inner loop lost ``noisy_steps`` ("a mutant may pass more").
    for fn in (adaptive_gd, adaptive_gd_em):
        assert "rule" not in inspect.signature(fn).parameters
    with pytest.raises(TypeError):
        adaptive_gd(lambda w: _records(1.0), np.zeros(D), rho=0.5, beta=0.1, L0=1.0, L1=1.0,
                    rng=np.random.default_rng(0), rule=None)
    assert list(inspect.signature(AdaptiveRule.step_sigma).parameters) == ["self", "N"]
    assert list(inspect.signature(AdaptiveRule.step_cost).parameters) == ["self", "sigma"]
    rule = adaptive.exact_rule(N, D, 0.5, 0.1, 1.0, 1.0)
    assert not any(callable(getattr(rule, f)) for f in rule.__dataclass_fields__)
    assert "noisy_steps" not in inspect.signature(proximal._run_algorithm_4).parameters


def test_d3_planted_bugs_are_separate_functions_with_the_correct_claim():
    # The four Algorithm 3 planted bugs live in verification/mutants and state the correct algorithm's claim.
    from dpsco.verification.mutants.muabg23 import adaptive as ma

    X = _records(1.0)
    good = adaptive_gd(lambda w: X.copy(), np.zeros(D), rho=0.5, beta=0.1, L0=1.0, L1=1.0,
                       rng=np.random.default_rng(0))
    for name in ("adaptive_gd_cost_from_noisy_norm", "adaptive_gd_paper_units", "adaptive_gd_sigma_from_exact_norm",
                 "adaptive_gd_noise_over_1e6"):
        fn = getattr(ma, name)
        assert fn.__module__ == "dpsco.verification.mutants.muabg23.adaptive"
        bad = fn(lambda w: X.copy(), np.zeros(D), rho=0.5, beta=0.1, L0=1.0, L1=1.0, rng=np.random.default_rng(0))
        assert bad.claim.rho == good.claim.rho and bad.claim.mu == good.claim.mu


# ---- D4: Algorithm 3 never raises when its filter admits more than 10n + 10 steps ----------------------------

def test_d4_the_step_cap_is_the_filters_own_bound():
    # n = 20, ρ = 1000: the filter admits up to ⌊n√ρ/2⌋ + 1 = 317 steps, the old hard cap was 10n + 10 = 210, and
    # D = 20 × e1 raised RuntimeError on 20/20 seeds while D′ (last record −e1) released.  Now both release, within
    # the filter's bound, and publish the same fields.
    n, rho = 20, 1000.0
    assert iteration_cap_theorem3(n, rho) == 317 > 10 * n + 10
    X = np.tile(E1, (n, 1))
    Xp = X.copy()
    Xp[-1] = -E1
    for seed in range(2):
        a, b = (adaptive_gd(lambda w, Z=Z: Z.copy(), np.zeros(D), rho=rho, beta=0.1, L0=1.0, L1=1.0,
                            rng=np.random.default_rng(seed)) for Z in (X, Xp))
        assert max(a.diagnostics["steps"], b.diagnostics["steps"]) > 10 * n + 10
        assert a.diagnostics["steps"] <= 317 and b.diagnostics["steps"] <= 317
        assert a.parameters["max_steps"] == 317
        da, db = a.to_dict(), b.to_dict()
        da.pop("output"), db.pop("output")
        assert da == db


# ---- D5: extreme public constants work, or are refused up front naming the parameter --------------------------

_SPIDER_BIG_RHO = (1e300, 0.1, 1.0, 1e150, 2.0, 1.0, 1e-300)      # ρ, β, F0, γ, κ, L0, L1 (K = 345 rounds)

_D5_CASES = {
    # name: (call(rng), None if it must release, else a parameter its ValueError must name)
    "adaptive L0=1.4e154": (lambda r: adaptive_gd(lambda w: _records(1.4e154), np.zeros(D), rho=0.5, beta=0.1,
                                                  L0=1.4e154, L1=1.0, rng=r), None),
    "adaptive L0=1e200": (lambda r: adaptive_gd(lambda w: _records(1e200), np.zeros(D), rho=0.5, beta=0.1,
                                                L0=1e200, L1=1.0, rng=r), None),
    "adaptive L0=1e-300": (lambda r: adaptive_gd(lambda w: _records(1e-300), np.zeros(D), rho=0.5, beta=0.1,
                                                 L0=1e-300, L1=1.0, rng=r), None),
    "adaptive rho=1e300": (lambda r: adaptive_gd(lambda w: _records(1.0), np.zeros(D), rho=1e300, beta=0.1, L0=1.0,
                                                 L1=1.0, rng=r), "rho"),
    "adaptive L1=1e-308": (lambda r: adaptive_gd(lambda w: _records(1.0), np.zeros(D), rho=0.5, beta=0.1, L0=1.0,
                                                 L1=1e-308, rng=r), "L1"),
    "adaptive_gd_em rho_em=1e308": (lambda r: adaptive_gd_em(lambda w: _records(1.0), np.zeros(D), rho=0.5,
                                                             beta=0.1, L0=1.0, L1=1.0, rng=r, rho_em=1e308), "rho_em"),
    "kl_spider rho=1e300": (lambda r: kl_spider(_records(1.0), _Lin(), *_SPIDER_BIG_RHO, r, w0=np.zeros(D)), None),
    "kl_spider L0=1e156": (lambda r: kl_spider(_records(1e156), _Lin(), 1.0, 0.1, 1.0, 1e-156, 2.0, 1e156, 1.0, r,
                                               w0=np.zeros(D)), None),
    "kl_spider L1=1e-308": (lambda r: kl_spider(_records(1.0), _Lin(), 1.0, 0.1, 1.0, 1.0, 2.0, 1.0, 1e-308, r,
                                                w0=np.zeros(D)), "L1"),
    "kl_spider rho=1e100 kappa=1.5": (lambda r: kl_spider(_records(1.0), _Lin(), 1e100, 0.1, 1.0, 1.0, 1.5, 1.0,
                                                          1.0, r, w0=np.zeros(D)), "rho"),
    "noisy_gd L0=1e154": (lambda r: noisy_regularised_gd(_records(1e154), _lin, np.zeros(D), 0.5, 0.1, 1e154, 1.0, r),
                          None),
    "noisy_gd L0=1e200": (lambda r: noisy_regularised_gd(_records(1e200), _lin, np.zeros(D), 0.5, 0.1, 1e200, 1.0, r),
                          None),
    "noisy_gd L0=1e300": (lambda r: noisy_regularised_gd(_records(1e300), _lin, np.zeros(D), 0.5, 0.1, 1e300, 1.0, r),
                          "L0"),
    "noisy_gd rho=1e100": (lambda r: noisy_regularised_gd(_records(1.0), _lin, np.zeros(D), 1e100, 0.1, 1.0, 1.0, r),
                           "rho"),
    "proximal_point gamma=1e300": (lambda r: proximal_point(_records(1.0), _lin, np.zeros(D), 0.5, 0.1, 1.0, 1.0, 1.0,
                                                            1e300, 2.0, r), None),
    "proximal_point l1_tilde=1e100": (lambda r: proximal_point(_records(1.0), _lin, np.zeros(D), 0.5, 0.1, 1.0, 1e100,
                                                               1.0, 1.0, 2.0, r), "l1_tilde"),
    "proximal_point rho=1.7e308": (lambda r: proximal_point(_records(1.0), _lin, np.zeros(D), 1.7e308, 0.1, 1.0, 1.0,
                                                            1.0, 1.0, 2.0, r), "rho"),
}


@pytest.mark.parametrize("name", sorted(_D5_CASES))
def test_d5_extreme_public_constants_work_or_are_refused_up_front(name):
    # Before: OverflowError mid-run in Algorithm 3 (L0 ≳ 1.4e154, rows_within_bound's bound²), RuntimeError at
    # ρ = 1e300, ZeroDivisionError in kl_spider at ρ = 1e300, a NaN budget at L0 = 1e156, OverflowError in
    # Algorithm 4 at L0 ≥ 1e154 and in Algorithm 2 at γ = 1e300.  Now a run releases a finite output under a finite
    # claim, or a ValueError names the parameter and the generator is untouched (no noise drawn).
    call, refused = _D5_CASES[name]
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    if refused is None:
        rel = call(rng)
        assert np.all(np.isfinite(rel.output)) and math.isfinite(rel.claim.rho) and rel.claim.rho > 0
    else:
        with pytest.raises(ValueError, match=refused):
            call(rng)
        assert rng.bit_generator.state == state


def test_d5_schedule_at_rho_1e300_is_finite():
    # kl_spider_schedule(ρ = 1e300)'s exact cost used to raise ZeroDivisionError (subnormal σ²): now exactly ρ.
    s = kl_spider_schedule(N, D, 1e300, 0.1, 1.0, 1.0, 2.0, 1.0, 1.0)
    assert s.exact_rho() == pytest.approx(1e300, rel=1e-12)
