"""White-box curve audits of Menart et al. (2023), arXiv:2311.13447 v2, Algorithm 4 (Theorem 9) and Algorithm 2
(Theorem 2), and the black-box curve audit of Theorem 5's exponential-mechanism output.

The white-box audits (``verification.papers.muabg23_proximal``) see every noisy gradient on the worst replace-one
pair (f(w; x) = L_0⟨w, x⟩, n = 4 copies of e_1 vs the last replaced by −e_1) and test the claimed-model
log-likelihood ratio S = Σ_t (y_t − 1/2)/ζ² at the event {S ≥ μ²} fixed in advance.  Hand derivation of the
statistic's law: with the mean subgradient 2L_0/n apart on the two datasets, each normalised step is
y_t = (ĝ_t − L_0)·n/(2L_0) (projected on u = −e_1), y_t ~ N(0, ζ_run²) on S and N(1, ζ_run²) on S',
ζ_run = nσ_run/(2L_0).  Over k = T−1 (resp. T(T_4 − 1)) steps the mean ȳ ~ N(0, 1/μ_run²), resp. N(1, 1/μ_run²),
μ_run² = k/ζ_run²; S ≥ μ_claim² ⇔ ȳ ≥ 3/2 (S = k(ȳ − 1/2)/ζ_claim² and k/ζ_claim² = μ_claim²).  So the event
has probability p = Φ̄(μ_run/2) on S' and q = Φ̄(3μ_run/2) on S, and the counts are Binomial(N, p), (N, q):
the audit's refutation probability is computed exactly below by applying its own rule (``curve_box``,
``curve_refutes``) to every pair of counts.  The planted bugs ``noisy_gd_paper_accounting`` and
``proximal_point_paper_accounting`` run at σ_claim/√2 (exactly 2ρ-zCDP): μ_run = √2 μ_claim = √2 at ρ = 1/2.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from dpsco.verification.auditing.curve_audit import curve_box, curve_refutes
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.mutants.muabg23.proximal import (noisy_gd_paper_accounting,
                                                         proximal_point_paper_accounting)
from dpsco.verification.papers.muabg23 import adaptive as ma
from dpsco.verification.papers.muabg23 import proximal as mp
from dpsco.verification.papers.registry import SuiteInputs

CONFIDENCE = 1.0 - 1e-6
RUNS = 20_000          # correct algorithms (false failure ≤ 1 − CONFIDENCE = 1e-6 each, the audit's guarantee)
MUTANT_RUNS = 40_000   # planted bugs: exact miss probability 2.95e-9 (20,000 runs: 1.7e-2), computed below
RHO = mp.AUDIT_RHO     # 1/2: μ_claim = 1


def _refutation_probability(N: int, mu_run: float, rho_claim: float, confidence: float) -> float:
    """P(refuted) of the fixed-event white-box audit with N runs per side when the run's composed μ is
    ``mu_run`` (module docstring): Σ_{k_q} Bin(N, q)(k_q) · P(Bin(N, p) ≥ k_p*(k_q)), where k_p*(k_q) is the
    least numerator count that refutes (refutation is monotone: increasing in k_p, decreasing in k_q, so
    k_p* is non-decreasing in k_q and is found by one sweep).  Counts k_q of probability ≤ 1e-16 are dropped
    (counted as not refuted): the result is a lower bound of the exact probability, by ≤ N·1e-16."""
    f = CurveClaim.zcdp(rho_claim).tradeoff
    p, q = float(stats.norm.sf(mu_run / 2.0)), float(stats.norm.sf(1.5 * mu_run))
    kq = np.arange(N + 1)
    pq = stats.binom.pmf(kq, N, q)
    ks = kq[pq > 1e-16]

    def refutes(kp: int, k: int) -> bool:
        return curve_refutes(*curve_box(kp, N, int(k), N, confidence)[:2], f)

    lo, hi = 0, N + 1                          # k_p*(first k_q) by bisection, then the sweep
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if refutes(mid, ks[0]) else (mid + 1, hi)
    total, kp = 0.0, lo
    for k in ks:
        while kp <= N and not refutes(kp, k):
            kp += 1
        if kp > N:
            break
        total += float(pq[k]) * float(stats.binom.sf(kp - 1, N, p))
    return total


def test_fixed_event_by_hand() -> None:
    # ρ = 1/2 ⇒ μ = 1: τ = μ² = 1; claimed-model probabilities Φ̄(1/2) = 0.3085375387259869 and
    # Φ̄(3/2) = 0.0668072012688581 (standard normal table values, 16 digits)
    claim = noisy_gd_paper_accounting(np.ones((4, 1)), mp._linear, np.zeros(1), RHO, mp.BETA, mp.L0, mp.LT,
                                      np.random.default_rng(0)).claim
    ev = mp.white_box_event(claim, 1000, 0.95)
    assert ev.upper and ev.threshold == 1.0
    assert abs(ev.model_p - 0.3085375387259869) < 1e-12 and abs(ev.model_q - 0.0668072012688581) < 1e-12


def test_planted_bugs_run_at_sigma_over_root_2() -> None:
    # the mutants' recorded σ against their claim's event: GaussianDpEvent(σ_claim·n/L_0) (REPLACE_ONE), so the
    # claimed ζ = σ_claim·n/(2L_0) and μ_claim² = k/ζ² = 2ρ; the runs' σ² is half of σ_claim² (2ρ spent)
    rng = np.random.default_rng(0)
    S = np.ones((mp.AUDIT_N, 1))
    a = noisy_gd_paper_accounting(S, mp._linear, np.zeros(1), RHO, mp.BETA, mp.L0, mp.LT, rng, white_box=True)
    b = proximal_point_paper_accounting(S, mp._linear, np.zeros(1), RHO, mp.BETA, mp.L0, mp.LT, mp.ALG2_F0,
                                        mp.ALG2_GAMMA, mp.ALG2_KAPPA, rng, inner_steps=mp.ALG2_INNER, white_box=True)
    for rel in (a, b):
        ev = rel.claim.event
        sigma_claim = ev.event.noise_multiplier * mp.L0 / mp.AUDIT_N
        zeta_claim = sigma_claim * mp.AUDIT_N / (2 * mp.L0)
        assert ev.count == rel.white_box.T
        assert math.isclose(ev.count / zeta_claim ** 2, 2 * RHO, rel_tol=1e-12)
        assert math.isclose(rel.white_box.sigma ** 2, sigma_claim ** 2 / 2, rel_tol=1e-12)
        assert rel.claim.rho == RHO
    assert a.white_box.T == 71 and b.white_box.T == 103 * 2   # T = ⌈16·0.5·log²20⌉ = 72; T = 103 calls × 2


def test_exact_refutation_probabilities() -> None:
    # under the claim (μ_run = μ_claim = 1) the fixed-event audit refutes with probability ≤ 1e-6 (its guarantee;
    # here computed exactly); the planted bugs (μ_run = √2) are missed with probability ≤ 1e-6
    assert _refutation_probability(RUNS, 1.0, RHO, CONFIDENCE) <= 1e-6
    miss = 1.0 - _refutation_probability(MUTANT_RUNS, math.sqrt(2.0), RHO, CONFIDENCE)
    assert miss <= 1e-6, miss


def test_correct_algorithms_not_refuted() -> None:
    # each assertion fails with probability ≤ 1 − CONFIDENCE = 1e-6 (white_box_audit's guarantee for a true claim;
    # docs/derivations.md#soundness-of-the-box-below-curve-test)
    for fn in (mp.noisy_gd_white_box_audit, mp.proximal_point_white_box_audit):
        rec = fn(RUNS, np.random.default_rng(2026), CONFIDENCE)
        assert rec["verdict"] == "not refuted", rec
        assert 1e-6 < rec["p_value"] <= 1.0
        assert rec["runs_per_side"] == RUNS and rec["pilot_runs_per_side"] == 0


def test_noisy_gd_white_box_refutes_paper_accounting() -> None:
    # planted bug noisy_gd_paper_accounting (exactly 2ρ under the ρ claim): missed with probability
    # 1 − _refutation_probability(40000, √2, 1/2, 1 − 1e-6) ≤ 1e-6 (test_exact_refutation_probabilities)
    rec = mp.noisy_gd_white_box_audit(MUTANT_RUNS, np.random.default_rng(7), CONFIDENCE,
                                      algorithm=noisy_gd_paper_accounting)
    assert rec["verdict"] == "refuted" and rec["p_value"] < 1e-6, rec
    assert rec["white_box"]["algorithm"] == "noisy_gd_paper_accounting"


def test_proximal_point_white_box_refutes_paper_accounting() -> None:
    # planted bug proximal_point_paper_accounting (exactly 2ρ): the same exact miss probability ≤ 1e-6
    rec = mp.proximal_point_white_box_audit(MUTANT_RUNS, np.random.default_rng(8), CONFIDENCE,
                                            algorithm=proximal_point_paper_accounting)
    assert rec["verdict"] == "refuted" and rec["p_value"] < 1e-6, rec


# campaign: `dpsco verify --quick --only muabg23.noisy_gd`, `--only muabg23.proximal_point` and `--only
# muabg23.adaptive_gd_em` run these three tasks; the fast suite runs them in
# tests/test_verify.py::test_verify_quick_end_to_end, which asserts that every audit of a suite entry stands and every
# check passes (docs/verification.md, campaign tests)
@pytest.mark.campaign
def test_suite_tasks_quick_return_audits_with_p_values() -> None:
    # three audits at confidence 1 − 2e-7: each refutes a true claim with probability ≤ 2e-7; the four
    # statistical checks (the measured noise of the noisy_gd, proximal_point and adaptive_em runs: one-sided χ²,
    # P(p < 1e-7) = 1e-7 exactly; the exponential mechanism's selection frequency: two-sided exact binomial,
    # P(p < 1e-7) ≤ 1e-7) each fail with probability ≤ 1e-7; noisy_gd_mutants_refuted needs the paper-accounting
    # mutant's measured noise below 1e-7, which it misses with probability miss_probability(4·287, 1/√2)
    # < 1e-30.  Union bound: ≤ 6e-7 + 4e-7 + 1e-30 ≤ 1e-6.  The exact checks are deterministic.
    conf = 1.0 - 2e-7
    cases = [(mp.noisy_gd_privacy, "noisy_gd_white_box"), (mp.proximal_point_privacy, "proximal_point_white_box"),
             (ma.adaptive_em_privacy, "adaptive_em_worst_pair_curve")]
    for i, (task, key) in enumerate(cases):
        out = task(SuiteInputs("quick", np.random.SeedSequence([23, i]), conf))
        json.dumps(out, default=str)
        assert set(out) == {"record", "checks", "audits"} and set(out["audits"]) == {key}
        a = out["audits"][key]
        assert 0.0 <= a["p_value"] <= 1.0 and a["verdict"] == "not refuted", (key, a)
        for c in out["checks"].values():
            if c["name"] in ("noisy_gd_measured_noise", "proximal_point_measured_noise", "adaptive_measured_noise",
                             "adaptive_em_selection"):
                assert c["p_value"] >= 1e-7, c
            else:
                assert c["p_value"] == 1.0, c
