"""White-box and curve audits of Asi, Liu & Tian (2024)'s zCDP claims (Algorithms 4 and 8).

* Algorithm 8's white-box view (every phase's noisy output x_i = x̄_i + N(0, σ_i² I), ``white_box=True``) is
  audited by the claimed-model likelihood ratio Λ (``alt24_known_lip.WhiteBoxAlg8``) against the ρ/4-zCDP
  curve; the planted bug σ_i/2 (``onepass_dp_sgd_half_sigma_white_box``) is refuted by the same audit, with a
  miss probability computed exactly here (fixed event, Gaussian Λ, binomial counts).
* The suite tasks return curve audits with p-values.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from dpsco.reference.alt24.losses import LinearLoss
from dpsco.reference.alt24.algorithms_one_pass import onepass_clipped_dp_sgd, theorem_4_parameters
from dpsco.reference.domains import Ball
from dpsco.verification.auditing.curve_audit import curve_box, curve_refutes
from dpsco.verification.auditing.curves import CurveClaim
from dpsco.verification.mutants.alt24.white_box import onepass_dp_sgd_half_sigma_white_box
from dpsco.verification.papers.alt24 import known_lip as kl
from dpsco.verification.papers.registry import SuiteInputs
from dpsco.verification.auditing.curve_audit import curve_p_value


def test_white_box_trace_is_the_phase_outputs() -> None:
    S, _ = kl._worst_pair(64, 2, 1e6)
    a = onepass_clipped_dp_sgd(S, LinearLoss(), Ball(1e9), np.zeros(2), 0.5, kl.BOUNDS_AUDIT,
                               np.random.default_rng(5), white_box=True)
    b = onepass_clipped_dp_sgd(S, LinearLoss(), Ball(1e9), np.zeros(2), 0.5, kl.BOUNDS_AUDIT,
                               np.random.default_rng(5))
    assert b.white_box is None
    wb = a.white_box
    I = a.parameters["I"]
    assert wb["phase_releases"].shape == (I, 2) and wb["phase_starts"].shape == (I, 2)
    np.testing.assert_array_equal(wb["phase_releases"][-1], a.output)   # projection inactive
    np.testing.assert_array_equal(a.output, b.output)                   # same noise draws, same output
    np.testing.assert_array_equal(wb["phase_starts"][1:], wb["phase_releases"][:-1])
    with pytest.raises(TypeError, match="white_box"):
        onepass_clipped_dp_sgd(S, LinearLoss(), Ball(1e9), np.zeros(2), 0.5, kl.BOUNDS_AUDIT,
                               np.random.default_rng(5), white_box=1)


def test_white_box_mu_of_the_worst_pair_by_hand() -> None:
    # hand derivation: linear loss, records 0 except ±10⁶e₁ at position 0 → clipped ±C_1e₁; phase 1 averages
    # x_0..x_{n_1−1}, of which n_1 − 1 are moved by ∓η_1C_1: ‖m − m'‖ = 2η_1C_1(n_1 − 1)/n_1; σ_1 = 2η_1C_1√(2/ρ)
    # ⇒ b = (1 − 1/n_1)√(ρ/2); later phases see identical records.  n = 64: n_1 = 32, ρ = 0.5 ⇒ b = 31/64.
    S, S2 = kl._worst_pair(64, 2, 1e6)
    b = kl.WhiteBoxAlg8(S, S2).exact_mu()
    assert b == pytest.approx((1 - 1 / 32) * math.sqrt(0.5 / 2), rel=1e-12)
    par = theorem_4_parameters(64, 2, 0.5, kl.BOUNDS_AUDIT, 2e9)
    assert par["phases"][0]["n_i"] == 32


def _exact_miss(n: int, b: float, noise: float, rho: float, confidence: float) -> float:
    """P(not refuted) of the fixed-event curve audit when y ~ N(0, noise²) on S, N(b, noise²) on S2 (Λ ≥ τ ⇔
    y ≥ 1.25 b): exact, summing the binomial law of the two counts (refutation is monotone in each count)."""
    f = CurveClaim.zcdp(rho).tradeoff
    p = stats.norm.sf((1.25 * b - b) / noise)
    q = stats.norm.sf(1.25 * b / noise)
    kq = np.arange(n + 1)
    pq = stats.binom.pmf(kq, n, q)
    total = float(pq[pq <= 1e-16].sum())       # counts we skip: counted as misses (conservative)
    for k in kq[pq > 1e-16]:
        lo, hi = 0, n + 1
        while lo < hi:
            mid = (lo + hi) // 2
            a, bb, _, _ = curve_box(mid, n, int(k), n, confidence)
            if curve_refutes(a, bb, f):
                hi = mid
            else:
                lo = mid + 1
        total += float(pq[k]) * float(stats.binom.cdf(lo - 1, n, p))
    return total


def test_white_box_audit_refutes_half_sigma() -> None:
    # planted bug: σ_i/2, so y ~ N(·, 1/4) in the claimed units; exact miss probability of this audit at 2,500
    # runs per side, confidence 0.95: computed below (≈ 3.1e-7 ≤ 1e-6), so this assertion fails with
    # probability ≤ 1e-6
    n, b = 2500, 31 / 32 * math.sqrt(0.5 / 2)   # the hand-derived b of the test above
    miss = _exact_miss(n, b, 0.5, 0.125, 0.95)
    assert miss <= 1e-6
    rec = kl.onepass_dp_white_box_audit(n, np.random.default_rng(20261123), confidence=0.95,
                                        algorithm=onepass_dp_sgd_half_sigma_white_box)
    assert rec["verdict"] == "refuted" and rec["p_value"] <= 0.05


# campaign: `dpsco verify --quick --only alt24.known_lip` and `--only alt24.onepass_dp` run these two tasks; the fast
# suite runs them in tests/test_verify.py::test_verify_quick_end_to_end (docs/verification.md, campaign tests)
@pytest.mark.campaign
def test_suite_audit_tasks_quick() -> None:
    # true claims: each audit refutes with probability ≤ 1 − confidence = 1e-7 (curve audits' guarantee; the
    # exact Gaussian check's p-value is uniform-or-larger under H₀, so p ≤ 1e-7 has probability ≤ 1e-7); four
    # audits and two checks: false failure ≤ 6e-7
    conf = 1 - 1e-7
    keys = set()
    for task in (kl.onepass_dp_audit, kl.known_lip_audit):
        out = task(SuiteInputs("quick", np.random.SeedSequence(11), conf))
        keys |= set(out["audits"])
        json.dumps(out)
        assert set(out) == {"record", "checks", "audits"}
        for a in out["audits"].values():
            assert 0.0 <= a["p_value"] <= 1.0 and a["verdict"] == "not refuted"
            assert a["p_value"] > 1 - conf
        for c in out["checks"].values():
            assert c["p_value"] > 1 - conf
    assert keys == {"onepass_dp_worst_pair", "onepass_dp_white_box", "known_lip_worst_pair", "known_lip_randhie"}


def test_curve_p_value_is_monotone_and_matches_the_verdict() -> None:
    f = CurveClaim.zcdp(0.125).tradeoff
    assert curve_p_value(500, 1000, 500, 1000, f) == 1.0
    p = curve_p_value(900, 1000, 100, 1000, f)
    assert p < 1e-10
    a, bb, _, _ = curve_box(900, 1000, 100, 1000, 1 - 2 * p)
    assert curve_refutes(a, bb, f)
