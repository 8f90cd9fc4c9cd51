"""Privacy audits of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (``verification/papers/accd22_privacy``):
the correct Algorithms 1–6 are not refuted by the white-box transcript audits (interpolating and non-interpolating
pairs), the one-phase audit of Algorithm 4 passes the correct phase, and each planted bug of
``verification/mutants/accd22`` is refuted by the same audit or check.

False-failure budget (≤ 1e-6 per test):
* every audit runs at confidence CONF = 1 − 1e-7 with its event fixed in advance, so an algorithm that satisfies
  its claim on the pair is refuted with probability ≤ 1e-7 per audit (Clopper–Pearson, both bounds together;
  docs/derivations.md#soundness-of-the-sample-split-threshold-audit); a test with m such audits fails falsely with
  probability ≤ m·1e-7.  That the correct algorithms do satisfy the claim on these pairs is checked exactly beside
  (the transcript's exact ε from the same minimisers);
* a mutant's audit misses with a probability computed exactly: the event's probabilities under the mutant as
  implemented (closed form for one Laplace phase; for a sum of Laplace phases, bounds from an exact convolution,
  ``laplace_llr_event_bounds``, checked here against the closed form) give the counts' binomial laws, and
  ``mutants.exact.fixed_event_refutation_probability`` sums the audit's own refutation rule over them;
* the instances keep every noisy centre far inside its domain: a projection (which would change a run's
  minimisers) has probability below e^{-50} per run, negligible against the figures above;
* the clipping check, the access-log and sensitivity checks are deterministic.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from dpsco.reference.accd22.algorithms import SOLVER_TOL
from dpsco.verification.auditing.clopper_pearson import epsilon_lower_bound
from dpsco.verification.mutants.accd22.bugs import (algorithm_2_without_extension, algorithm_4_clipped_gradients,
                                               algorithm_4_sloppy_solver, algorithm_5_reused_epochs)
from dpsco.verification.mutants.exact import fixed_event_refutation_probability, rule_refutation_probability
from dpsco.verification.papers.accd22 import privacy as ap
from dpsco.verification.papers.registry import SuiteInputs

CONF = 1.0 - 1e-7
EPS = 1.0
#: the claim's bound on one phase's exact ε (Proposition 2's calibration, 4× slack, certified solver)
PHASE_BOUND = (1.0 + 2.0 * SOLVER_TOL) * EPS / 4.0
RUNS = 5_000


def _hoeffding(n: int, p: float = 1e-7) -> float:
    """Two-sided Hoeffding radius of a frequency of n Bernoulli draws at level p."""
    return math.sqrt(math.log(2.0 / p) / (2.0 * n))


@pytest.mark.parametrize("name", ap.ALGORITHMS)
def test_correct_algorithms_not_refuted_in_both_regimes(name):
    """The reference algorithm's transcript audit passes on the interpolating and the outlier pair; its exact ε is
    that of one phase (≤ (1 + 2·SOLVER_TOL)ε/4), the last record lies in exactly one phase, and the differing phase
    moves by ≤ (1 + 2·SOLVER_TOL)Lη_i.  False failure ≤ 2e-7 (two audits at confidence 1 − 1e-7; the rest exact)."""
    for i, regime in enumerate(ap.REGIMES):
        rec = ap.transcript_white_box_audit(name, regime, RUNS, np.random.default_rng(100 + i), CONF)
        assert rec["algorithm"] == name and rec["bug"] is None
        assert rec["verdict"] == "not refuted", rec  # probability ≤ 1e-7 under the (exactly checked) claim
        assert rec["p_value"] > 1e-7 and rec["epsilon_lower"] <= EPS
        assert rec["epsilon_exact"] <= PHASE_BOUND  # exact: one phase's loss, ≈ ε/4 on the outlier pair
        assert rec["coverage"] == {"max_phases_per_record": 1, "phases_with_last_record": 1}
        assert rec["differing_phases"] == 1 and rec["sensitivity_max"] <= 1.0 + 2.0 * SOLVER_TOL
        assert rec["claim"] == {"epsilon": EPS, "delta": 0.0, "source": rec["claim"]["source"]}
        if regime == "non_interpolating":  # the tight instance: the extension's gradients are ±L
            assert 0.999 * EPS / 4 <= rec["epsilon_exact"] and rec["sensitivity_max"] >= 0.999


def test_phase_audit_of_the_correct_algorithm():
    """One phase of Algorithm 4 (d = 1, outlier ±100 in phase 4 of 4): exact ε = 0.99999·ε/4; not refuted at
    confidence 1 − 1e-7 (false failure ≤ 1e-7); the event's exact probabilities match the counts (Hoeffding at
    1e-7 per side: ≤ 2e-7); and the audit is tight: at 200,000 runs per side ε_lb ≥ 0.7·ε/4, which fails with
    probability 3.8e-15 (exact binomial sum of the rule ε_lb < 0.7ε/4 at the event's exact probabilities).  Total
    false failure ≤ 4e-7.  The Gaussian branch (δ = 0.5 > e^{-1}: d = 1 > log(1/δ)) is not refuted either (≤ 1e-7)."""
    rec = ap.phase_white_box_audit(RUNS, np.random.default_rng(1), CONF)
    ph = rec["phase"]
    assert rec["verdict"] == "not refuted" and rec["p_value"] > 1e-7
    assert ph["index"] == 4 and (ph["start"], ph["stop"]) == (24, 32) and ph["noise"] == "laplace"
    assert 0.9999 * EPS / 4 <= ph["epsilon_exact"] <= ph["claimed_bound"] == PHASE_BOUND
    assert ph["epsilon_exact"] == pytest.approx(ph["epsilon_exact_claimed_model"], rel=1e-12)
    p, q = ph["event_probability_numerator"], ph["event_probability_denominator"]
    lam, th = ph["epsilon_exact"], ap.THETA  # one Laplace phase, implementation = claimed model: closed form
    assert p == pytest.approx(1 - 0.5 * math.exp(-(1 - th) * lam / 2), rel=1e-9)
    assert q == pytest.approx(0.5 * math.exp(-(1 + th) * lam / 2), rel=1e-9)
    r = _hoeffding(RUNS)
    assert abs(rec["counts"]["numerator"] / RUNS - p) <= r and abs(rec["counts"]["denominator"] / RUNS - q) <= r
    n_big = 200_000
    tight = ap.phase_white_box_audit(n_big, np.random.default_rng(2), CONF)
    assert tight["verdict"] == "not refuted"  # ≤ 1e-7
    fail = 1.0 - rule_refutation_probability(
        p, q, n_big, lambda kp, kq: epsilon_lower_bound(kp[:, None], n_big, kq[None, :], n_big, 0.0, CONF)
        >= 0.7 * EPS / 4)
    assert fail <= 1e-6
    assert tight["epsilon_lower"] >= 0.7 * EPS / 4  # fails with probability `fail` (3.8e-15)
    gauss = ap.phase_white_box_audit(RUNS, np.random.default_rng(3), CONF, delta=0.5)
    assert gauss["noise"] == "gaussian" and gauss["verdict"] == "not refuted"  # ≤ 1e-7
    assert gauss["phase"]["mu_exact"] == pytest.approx(gauss["phase"]["mu_claimed_model"], rel=1e-12)


def test_sloppy_solver_mutant_refuted_by_the_phase_audit():
    """``algorithm_4_sloppy_solver`` (one incremental pass, step 1/μ_G): phase 4 (n_0 = 8) moves by 8Lη_4, exact
    ε = 8ε/4 = 2ε.  The same phase audit refutes it at 3,000 runs per side; the miss probability, 1 − the exact
    refutation probability at the event's exact probabilities under the mutant (P = 0.805, Q = 0.174), is below
    1e-14 (asserted ≤ 1e-6 below).  The counts match those probabilities (Hoeffding at 1e-7 per side)."""
    n = 3_000
    rec = ap.phase_white_box_audit(n, np.random.default_rng(4), CONF, bug="incremental_solver")
    assert rec["algorithm"] == algorithm_4_sloppy_solver.__name__
    ph = rec["phase"]
    assert ph["shift_over_L_eta"] == pytest.approx(8.0, rel=1e-9)
    assert ph["epsilon_exact"] == pytest.approx(2.0 * EPS, rel=1e-9) and ph["epsilon_exact"] > EPS
    assert ph["epsilon_exact_claimed_model"] <= PHASE_BOUND  # the claimed model is the correct phase
    p, q = ph["event_probability_numerator"], ph["event_probability_denominator"]
    miss = 1.0 - fixed_event_refutation_probability(p, q, n, EPS, 0.0, CONF)
    assert miss <= 1e-6
    assert rec["verdict"] == "refuted" and rec["epsilon_lower"] > EPS  # misses with probability `miss`
    assert rec["p_value"] < 1e-7
    r = _hoeffding(n)  # false failure ≤ 2e-7
    assert abs(rec["counts"]["numerator"] / n - p) <= r and abs(rec["counts"]["denominator"] / n - q) <= r


def test_laplace_event_bounds_against_the_closed_form():
    """``laplace_llr_event_bounds`` brackets the closed form of one phase, P = 1 − ½e^{−(1−θ)λ/2},
    Q = ½e^{−(1+θ)λ/2}, to within the grid's width; for r equal phases it is monotone in r (deterministic)."""
    th = ap.THETA
    for lam in (0.05, 0.25, 1.0, 5.0):
        p_lo, q_hi = ap.laplace_llr_event_bounds([lam])
        p, q = 1 - 0.5 * math.exp(-(1 - th) * lam / 2), 0.5 * math.exp(-(1 + th) * lam / 2)
        assert p_lo <= p <= p_lo + 1e-3 and q_hi - 1e-3 <= q <= q_hi
        assert ap.single_phase_event_probabilities(0.0, lam, lam, 1.0, "laplace") == pytest.approx(p, rel=1e-12)
        assert ap.single_phase_event_probabilities(0.0, lam, 0.0, 1.0, "laplace") == pytest.approx(q, rel=1e-12)
    ratios = [math.log(np.divide(*ap.laplace_llr_event_bounds([0.25] * r))) for r in (1, 4, 12)]
    assert ratios == sorted(ratios)


def test_reused_epochs_mutant_refuted_by_the_transcript_audit():
    """``algorithm_5_reused_epochs`` (every epoch on the whole dataset) at n = 24, T5 = 12: the outlier enters 12
    phases of λ = ε/4 each, exact ε = 3ε.  The transcript audit refutes it at 20,000 runs per side: with the
    event's probabilities bounded by the exact convolution of 12 Laplace likelihood ratios (P ≥ 0.1207,
    Q ≤ 0.0230), the miss probability is 5.3e-14 (asserted ≤ 1e-6).  The λ_i are the same in every run up to the
    rounding of x̂ − c (the phase problem is affine in its centre); the bounds are taken at the smallest λ_i over
    the runs with their total range as ``spread``, so they hold for each run."""
    n = 20_000
    rec = ap.transcript_white_box_audit("algorithm_5", "non_interpolating", n, np.random.default_rng(5), CONF,
                                        bug="reused_epochs")
    assert rec["algorithm"] == algorithm_5_reused_epochs.__name__
    assert rec["differing_phases"] == 12 and rec["coverage"]["max_phases_per_record"] == 12
    lam_lo, lam_hi = np.array(rec["phase_lambda_min"]), np.array(rec["phase_lambda_max"])
    spread = float(np.sum(lam_hi - lam_lo))  # rounding of x̂ − c at |c| ≫ Lη_i: ~1e-8 over all runs
    assert spread <= 1e-6
    assert np.allclose(lam_lo, EPS / 4, rtol=1e-3)
    assert rec["epsilon_exact"] == pytest.approx(12 * EPS / 4, rel=1e-3)
    p_lo, q_hi = ap.laplace_llr_event_bounds(lam_lo, spread=spread)  # valid for every run's λ
    miss = 1.0 - fixed_event_refutation_probability(p_lo, q_hi, n, EPS, 0.0, CONF)
    assert miss <= 1e-6
    assert rec["verdict"] == "refuted" and rec["epsilon_lower"] > EPS  # misses with probability ≤ `miss`
    assert rec["p_value"] < 1e-7


def test_raw_gradients_mutant_refuted_by_the_transcript_audit():
    """``algorithm_2_without_extension`` on the outlier pair (n = 12, T = 2, m = 6, T5 = 3, constant = 1/4): in
    epoch 2 the raw gradient ≈ 100 of the outlier meets L_2 = H·D_2 ≈ 0.44, and its phase moves by ≈ 229·L_2η:
    exact ε ≈ 57.  Refuted at 300 runs per side; one Laplace phase with λ ≈ 57.3 in every run (affine phase
    problem) gives P = 1 − ½e^{−(1−θ)λ/2}, Q = ½e^{−(1+θ)λ/2} exactly and a miss probability below 1e-14 (asserted
    ≤ 1e-6)."""
    n = 300
    rec = ap.transcript_white_box_audit("algorithm_2", "non_interpolating", n, np.random.default_rng(6), CONF,
                                        bug="raw_gradients")
    assert rec["algorithm"] == algorithm_2_without_extension.__name__
    assert rec["differing_phases"] == 1
    lam_lo, lam_hi = rec["phase_lambda_min"][0], rec["phase_lambda_max"][0]
    assert lam_hi - lam_lo <= 1e-6 * lam_hi and lam_lo > 50  # one Laplace phase: P, Q below increase / decrease in λ
    assert rec["epsilon_exact"] > 50 * EPS and rec["sensitivity_max"] > 100
    th = ap.THETA
    p, q = 1 - 0.5 * math.exp(-(1 - th) * lam_lo / 2), 0.5 * math.exp(-(1 + th) * lam_lo / 2)
    miss = 1.0 - fixed_event_refutation_probability(p, q, n, EPS, 0.0, CONF)
    assert miss <= 1e-6
    assert rec["verdict"] == "refuted" and rec["epsilon_lower"] > EPS  # misses with probability `miss`


def test_clipped_gradients_mutant_refuted_by_the_sensitivity_check():
    """``algorithm_4_clipped_gradients`` on the fixed DiagonalQuadraticLoss pair: phase 1's clipped "ERM" moves by
    5.13·√2·Lη_1 in ℓ1 (exact ε = 1.28ε > ε) — its converged fixed points by 5.04·√2·Lη_1 — while the extension's
    minimiser moves by 0.999·Lη_1 ≤ (1 + 2·SOLVER_TOL)Lη_1 (exact ε = 0.21ε): the check fails for the mutant and
    holds for the reference.  Deterministic."""
    mut = ap.clipping_sensitivity_check(bug="clipped_gradients")
    assert mut["algorithm"] == algorithm_4_clipped_gradients.__name__
    assert mut["p_value"] == 0.0 and mut["estimate"] > 1.25 * EPS and mut["bound"] == EPS
    assert mut["implementation"]["shift_l1_over_sqrt_d_L_eta"] > 5.0
    fp = mut["fixed_points"]
    assert max(fp["residuals"]) < 1e-9 and fp["epsilon_exact"] > 1.2 * EPS
    assert mut["extension_within_bound"] and mut["extension"]["shift_l2_over_L_eta"] <= 1.0 + 2.0 * SOLVER_TOL
    assert mut["phase"]["n0"] == 128 and mut["phase"]["noise"] == "laplace"
    ok = ap.clipping_sensitivity_check()
    assert ok["p_value"] == 1.0 and ok["estimate"] <= PHASE_BOUND and ok["algorithm"] == "algorithm_4"
    assert ok["implementation"] == ok["extension"]


@pytest.mark.parametrize("name", ap.ALGORITHMS)
def test_privacy_task_quick_budget(name):
    """The suite task: picklable, both regimes' audits with p-values, exact checks that hold; not refuted; the two
    measured-noise checks pass and refute their planted copies.  False failure ≤ 5e-7 (two audits, three for
    Algorithm 4, at confidence 1 − 1e-7; two measured-noise checks at α = 1e-7, exact; the rest exact — the planted
    copies' misses, ≤ 2.8e-12 each, computed exactly in ``accd22_noise``, are asserted ≤ 1e-6 below)."""
    task = ap.privacy_task(name)
    assert pickle.loads(pickle.dumps(task)) is task
    out = task(SuiteInputs("quick", np.random.SeedSequence(7), CONF))
    assert set(out) == {"record", "checks", "audits"}
    keys = {f"{name}_white_box_{r}" for r in ap.REGIMES} | ({"algorithm_4_phase_white_box"}
                                                           if name == "algorithm_4" else set())
    assert set(out["audits"]) == keys
    for a in out["audits"].values():
        assert 0.0 <= a["p_value"] <= 1.0 and a["runs_per_side"] == ap.SIZES["quick"]["runs"]
        assert a["verdict"] == "not refuted"  # ≤ 1e-7 each
    measured = {f"{name}_measured_laplace_noise", f"{name}_measured_gaussian_noise"}
    assert {f"{name}_disjoint_phases", f"{name}_phase_sensitivity", f"{name}_public_schedule",
            f"{name}_laplace_under_noise_caught", f"{name}_gaussian_under_noise_caught"} | measured <= set(out["checks"])
    for key, c in out["checks"].items():
        assert c["verdict"] is None
        if key in measured:
            assert c["p_value"] >= 1e-7 and c["residuals"] >= 1000  # false failure ≤ 1e-7 each (exact tests)
        else:
            assert c["p_value"] == 1.0 and c["method"] == "exact"
    for kind in ("laplace", "gaussian"):
        assert out["record"]["measured_noise"][kind]["planted_miss_probability"] <= 1e-6
    with pytest.raises(ValueError, match="algorithm_name"):
        ap.privacy_task("algorithm_7")


def test_audits_validate_their_inputs():
    with pytest.raises(ValueError, match="regime"):
        ap.transcript_white_box_audit("algorithm_1", "sometimes", 10, np.random.default_rng(0), CONF)
    with pytest.raises(ValueError, match="algorithm_name"):
        ap.transcript_white_box_audit("algorithm_9", "interpolating", 10, np.random.default_rng(0), CONF)
    with pytest.raises(ValueError, match="bug"):
        ap.transcript_white_box_audit("algorithm_1", "interpolating", 10, np.random.default_rng(0), CONF,
                                      bug="off_by_one")
    with pytest.raises(ValueError, match="bug"):
        ap.clipping_sensitivity_check(bug="reused_epochs")
    with pytest.raises(TypeError, match="_bug"):
        algorithm_5_reused_epochs(np.zeros((4, 2)), None, None, 1.0, 1.0, np.zeros(1), 1.0, 0.0,
                                  np.random.default_rng(0), _bug=None)


def test_planted_bugs_task_in_verify_refutes_all_four():
    """The `dpsco verify` task of the four planted bugs (the same audits as the tests above at the same sizes, at the
    campaign's confidence 0.95 — refutation is only likelier than at 1 − 1e-7): every "refuted" check holds.  A
    miss of any one has probability ≤ 1e-13 (the miss probabilities computed exactly above), so this test fails
    falsely with probability ≤ 4e-13."""
    from dpsco.verification.papers.registry import SuiteInputs

    out = ap.planted_bugs_task(SuiteInputs("quick", np.random.SeedSequence(17), 0.95))
    assert set(out["checks"]) == {"algorithm_4_sloppy_solver_refuted", "algorithm_5_reused_epochs_refuted",
                                  "algorithm_2_without_extension_refuted", "algorithm_4_clipped_gradients_refuted"}
    assert all(c["p_value"] == 1.0 for c in out["checks"].values())
