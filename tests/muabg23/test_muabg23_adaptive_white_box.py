"""White-box audit of the noisy steps of Menart et al. (2023), arXiv:2311.13447 v2, Algorithm 3 (Theorem 3's
ρ-zCDP, i.e. √(2ρ)-GDP, transcript claim): the trace ``adaptive_gd(..., white_box=True)``, the transcript's
log-likelihood ratio Λ on the worst replace-one pair, the audit on the correct algorithm and on the planted bug
``adaptive_gd_paper_units``, and the suite task.

Every stochastic assertion states its false-failure probability (≤ 1e-6) and its derivation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom, norm

from dpsco.reference.muabg23.algorithms_adaptive import adaptive_gd, exact_rule
from dpsco.verification.auditing.curve_audit import curve_box, curve_refutes
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.mutants.muabg23.adaptive import adaptive_gd_paper_units
from dpsco.verification.papers.muabg23.adaptive import (BETA, RHO_AUDIT, adaptive_curve_audit, adaptive_privacy,
                                                        adaptive_white_box_audit, adaptive_white_box_llr,
                                                        white_box_threshold)
from dpsco.verification.papers.registry import SuiteInputs

N_PAIR = 8
DELTA = 2.0 / N_PAIR  # replace-one shift of every release on the pair (clipped means 1 vs 0.75)


def _pair() -> tuple[np.ndarray, np.ndarray]:
    S = np.ones((N_PAIR, 1))
    S2 = S.copy()
    S2[0, 0] = -1.0
    return S, S2


def _run(alg, X, seed, **kw):
    return alg(lambda w: X, np.zeros(X.shape[1]), rho=RHO_AUDIT, beta=BETA, L0=1.0, L1=1.0,
               rng=np.random.default_rng(seed), **kw)


def test_white_box_trace_shapes_and_bit_identical():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    grad = lambda w: w - X  # noqa: E731  (squared loss, per-sample gradients (n, d))
    kw = dict(rho=1.0, beta=0.1, L0=1.0, L1=1.0)
    for seed in range(5):
        a = adaptive_gd(grad, np.ones(3), rng=np.random.default_rng(seed), **kw)
        b = adaptive_gd(grad, np.ones(3), rng=np.random.default_rng(seed), white_box=True, **kw)
        assert a.white_box is None
        assert np.array_equal(a.output, b.output) and np.array_equal(a.trajectory, b.trajectory)
        assert a.parameters == b.parameters
        wb, T = b.white_box, b.diagnostics["steps"]
        assert wb["N"].shape == (T,) and wb["sigma"].shape == (T,) and wb["noisy_gradients"].shape == (T, 3)
        assert wb["iterates"].shape == (T + 1, 3) and isinstance(wb["sigma_hat"], float)
        assert np.array_equal(wb["N"], b.diagnostics["N_t"]) and np.array_equal(wb["sigma"], b.diagnostics["sigma_t"])
        # line 5: w_{t+1} = w_t − η · (released noisy gradient), exactly as computed
        eta = b.parameters["eta"]
        assert np.array_equal(wb["iterates"][1:], wb["iterates"][:-1] - eta * wb["noisy_gradients"])
    # mutants pass white_box through with the same draws
    S, _ = _pair()
    m0, m1 = _run(adaptive_gd_paper_units, S, 1), _run(adaptive_gd_paper_units, S, 1, white_box=True)
    assert np.array_equal(m0.output, m1.output) and m1.white_box["N"].shape == (m1.diagnostics["steps"],)
    with pytest.raises(TypeError, match="white_box"):
        adaptive_gd(grad, np.ones(3), rng=np.random.default_rng(0), white_box="yes", **kw)


def test_white_box_llr_means_by_hand():
    """Hand derivation.  On S every release's mean is m = 1, on S' it is m' = 0.75 (gap −Δ, Δ = 1/4).  Writing
    y = m + sξ on S, Λ = Σ[−Δξ/s − Δ²/(2s²)]: E[Λ | σ's] = −C with C = Σ Δ²/(2s²) over all releases; on S'
    (y = m' + sξ) Λ = Σ[Δ²/(2s²) − Δξ/s], mean +C.  At the floor σ_t = σ_min = Δ/√(2c_max) each step's C is
    c_N + c_max = ρ/2 (exact calibration), the filter admits two steps, so C = ρ = 0.5 here.

    Bound: M = Λ ± C is a martingale whose bracket Σ Δ²/s² = 2C ≤ 2ρ a.s. (the filter), so
    E e^{λM} ≤ e^{λ²ρ}; over R independent runs P(|mean M| ≥ t) ≤ 2 exp(−R t²/(4ρ)).  At
    t = √(4ρ log(4e6)/R) (R = 1500: t ≈ 0.143) this is 5e-7 per dataset; two datasets: false failure ≤ 1e-6."""
    S, S2 = _pair()
    rule = exact_rule(N_PAIR, 1, RHO_AUDIT, BETA, 1.0, 1.0)
    R = 1500
    t = math.sqrt(4 * RHO_AUDIT * math.log(4e6) / R)
    for X, sign, base in ((S, -1.0, 0), (S2, +1.0, 10 ** 6)):
        lams, Cs = [], []
        for i in range(R):
            wb = _run(adaptive_gd, X, base + i, white_box=True).white_box
            lams.append(adaptive_white_box_llr(wb, 1.0, 0.75))
            Cs.append(float(np.sum(DELTA ** 2 / (2 * wb["sigma_hat"] ** 2)) * wb["N"].size
                            + np.sum(DELTA ** 2 / (2 * wb["sigma"] ** 2))))
            if np.all(wb["sigma"] == rule.sigma_min):
                assert wb["N"].size == 2 and abs(Cs[-1] - RHO_AUDIT) < 1e-12
        assert max(Cs) <= RHO_AUDIT * (1 + 1e-12)
        assert abs(np.mean(lams) - sign * np.mean(Cs)) <= t, (np.mean(lams), np.mean(Cs), t)


def test_white_box_audit_correct_not_refuted():
    """Algorithm 3 is √(2ρ)-GDP on its transcript (fully adaptive GDP filter, Smith & Thakurta 2022) and Λ is
    a post-processing of it, so the box test at confidence 1 − 1e-6 refutes with probability ≤ 1e-6 (coverage
    of the two one-sided Clopper–Pearson bounds, curve_audit's guarantee).  False failure ≤ 1e-6."""
    rec = adaptive_white_box_audit(2000, np.random.default_rng(11), 1 - 1e-6)
    assert rec["verdict"] == "not refuted" and rec["mode"] == "white-box"
    assert 0.0 <= rec["p_value"] <= 1.0 and rec["threshold"] == white_box_threshold(RHO_AUDIT) == 0.25


M_MUTANT = 15000  # runs per side for the planted bug (miss bound below ≤ 1e-6)


def _paper_units_miss_bound(m: int, confidence: float) -> float:
    """Exact-up-to-coupling miss probability of the audit on ``adaptive_gd_paper_units``.

    Floor law: σ_t = σ_min whenever N_t ≤ ψσ_min.  Then every step is charged (Δ/2)²/σ̂² + (Δ/2)²/σ_min² = ρ/4,
    the guard ρ/2 admits three steps (checked below on a run), and the exact cost is C = 3 · ρ/2 = 0.75: given the
    floor, Λ ~ N(−C, 2C) on S and N(C, 2C) on S' (a sum of independent Gaussians with fixed scales).  A run
    leaves the floor law only if one of its ≤ 3 norm draws exceeds ψσ_min, probability ≤ e = 3Φ̄((ψσ_min − 1)/σ̂)
    (exact norm 1 on S, 0.75 on S'); coupling, the event's probabilities are P ≥ P_floor − e (numerator, S') and
    Q ≤ Q_floor + e (S).  The verdict is monotone (more numerator hits, fewer denominator hits only shrink the
    box), so with a = the 5e-7 lower quantile of Bin(m, P_floor − e) and b the 5e-7 upper quantile of
    Bin(m, Q_floor + e), if (a, b) refutes, P(miss) ≤ P(Bin < a) + P(Bin > b), computed exactly."""
    rule = exact_rule(N_PAIR, 1, RHO_AUDIT, BETA, 1.0, 1.0)
    C = 3 * RHO_AUDIT / 2
    e = 3 * norm.sf((rule.psi * rule.sigma_min - 1.0) / rule.sigma_hat)
    tau, s = white_box_threshold(RHO_AUDIT), math.sqrt(2 * C)
    P, Q = norm.sf((tau - C) / s) - e, norm.sf((tau + C) / s) + e
    a, b = int(binom.ppf(5e-7, m, P)), int(binom.isf(5e-7, m, Q))
    curve = CurveClaim(notion="GDP", mu=math.sqrt(2 * RHO_AUDIT))
    assert curve_refutes(*curve_box(a, m, b, m, confidence)[:2], curve.tradeoff)
    return float(binom.cdf(a - 1, m, P) + binom.sf(b, m, Q))


def test_white_box_refutes_paper_units():
    """The planted bug charges half of every cost and so runs three steps of exact cost ρ/2 (1.5ρ = 0.75 > ρ,
    μ = √1.5 ≈ 1.22 against the claimed 1): refuted at confidence 1 − 1e-6 with 15,000 runs per side; miss
    probability ≤ 9.3e-7 (:func:`_paper_units_miss_bound`, computed exactly)."""
    S, _ = _pair()
    rule = exact_rule(N_PAIR, 1, RHO_AUDIT, BETA, 1.0, 1.0)
    r = _run(adaptive_gd_paper_units, S, 0, white_box=True)  # seed 0: all norms below ψσ_min
    assert np.all(r.white_box["sigma"] == rule.sigma_min) and r.diagnostics["steps"] == 3
    assert abs(sum(r.diagnostics["exact_costs"]) - 1.5 * RHO_AUDIT) < 1e-12
    miss = _paper_units_miss_bound(M_MUTANT, 1 - 1e-6)
    assert miss <= 1e-6
    rec = adaptive_white_box_audit(M_MUTANT, np.random.default_rng(2024), 1 - 1e-6, algorithm=adaptive_gd_paper_units)
    assert rec["verdict"] == "refuted", rec["details"]


def test_suite_quick_returns_white_box_audit():
    seed = np.random.SeedSequence(7)
    # spawn(3)'s first two children are spawn(2)'s: the existing streams (and numbers) are unchanged
    a, b = np.random.SeedSequence(7).spawn(2), np.random.SeedSequence(7).spawn(3)[:2]
    assert all(np.array_equal(x.generate_state(4), y.generate_state(4)) for x, y in zip(a, b))
    out = adaptive_privacy(SuiteInputs("quick", seed, 0.95))
    wb = out["audits"]["adaptive_white_box"]
    assert 0.0 <= wb["p_value"] <= 1.0 and wb["mode"] == "white-box" and wb["samples"] == 300
    old = adaptive_curve_audit(300, np.random.default_rng(np.random.SeedSequence(7).spawn(2)[1]), 0.95)
    new = out["audits"]["adaptive_worst_pair_curve"]
    assert old["details"]["numerator_count"] == new["details"]["numerator_count"]
    assert old["details"]["denominator_count"] == new["details"]["denominator_count"]
