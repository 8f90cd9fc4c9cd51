"""Every pass/fail check of Asi, Chadha, Cheng & Duchi (2022) names the planted bug that makes it fail
(``verification/mutants/accd22/catches.py``): the checks that no earlier planted copy reached, each run — the same
check code the suite task runs, on the same instance design — on its planted bug of ``mutants.accd22``, and the
utility shape checks that the campaign labels "uninformative" at the quick budget, with the numbers that say why.

False-failure / miss budget (each test ≤ 1e-6):
* the planted copies here are caught by exact checks (access log, sensitivity, public schedule, κ schedule,
  Proposition 1.2: deterministic statements about the transcript or the outputs) or on deterministic outputs (the
  noise-free copies: every run identical, so the audit's counts and the lower-bound p-values are fixed numbers):
  miss probability 0;
* the correct algorithms' transcript audits run at confidence 1 − 1e-7 (false failure ≤ 1e-7 each: six per test,
  6e-7); the correct algorithms' exact checks are deterministic;
* the uninformative tests assert arithmetic on the records' own numbers (no sampling assertion).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from dpsco.verification.checks.theorem_checks import hoeffding_p_value, rate_check_from_values
from dpsco.verification.mutants.accd22 import bugs as ma
from dpsco.verification.mutants.accd22.bugs import (algorithm_1_without_extension, algorithm_6_epochs_rounded_up)
from dpsco.verification.mutants.catches import FAILS_UNDER_HOLM
from dpsco.verification.papers.accd22 import noise as an
from dpsco.verification.papers.accd22 import privacy as ap
from dpsco.verification.papers.accd22 import utility as u
from dpsco.verification.papers.registry import SuiteInputs

CONF = 1.0 - 1e-7
#: the quick campaign's runs per side of each transcript audit (the suite's inputs)
RUNS = ap.SIZES["quick"]["runs"]
QUICK = SuiteInputs("quick", np.random.SeedSequence(2022), 0.95)


def _audits(name: str, bug: str | None, seed: int) -> list[dict]:
    """The suite's two transcript audits of ``name`` (both regimes, quick runs) on the reference or a planted bug."""
    return [ap.transcript_white_box_audit(name, regime, RUNS, np.random.default_rng(seed + i), CONF, bug=bug)
            for i, regime in enumerate(ap.REGIMES)]


NOISE_FREE = ("accd22_algorithm_1_without_noise", "accd22_algorithm_2_without_noise", "accd22_algorithm_3_without_noise",
              "accd22_algorithm_4_without_noise", "accd22_algorithm_5_without_noise", "accd22_algorithm_6_without_noise")


def test_noise_free_copies_refuted_by_the_interpolating_audit():
    """accd22_algorithm_k_without_noise (k = 1..6: accd22_algorithm_1_without_noise, accd22_algorithm_2_without_noise,
    accd22_algorithm_3_without_noise, accd22_algorithm_4_without_noise, accd22_algorithm_5_without_noise,
    accd22_algorithm_6_without_noise) on the interpolating pair, the suite's audit at the quick 2,000 runs per
    side: every noisy output is the phase's minimiser, so Λ = +Λ_max on the neighbour's side and −Λ_max on the
    dataset's (Λ_max > 0: the replaced record moves the minimiser off x*), the event counts are 2000/2000 against
    0/2000 and the p-value is ≤ 1e-15 — deterministic (miss probability 0).  The reference passes the same audit
    (false failure ≤ 1e-7 each, 6e-7 in all, confidence 1 − 1e-7)."""
    noise_free = ("accd22_algorithm_1_without_noise", "accd22_algorithm_2_without_noise",
                  "accd22_algorithm_3_without_noise", "accd22_algorithm_4_without_noise",
                  "accd22_algorithm_5_without_noise", "accd22_algorithm_6_without_noise")
    assert noise_free == NOISE_FREE
    for k, bug in enumerate(noise_free, start=1):
        name = f"algorithm_{k}"
        mutant = getattr(ma, bug)
        assert ma.MUTANTS[(name, "without_noise")] is mutant and mutant.__name__ == bug
        rec = ap.transcript_white_box_audit(name, "interpolating", RUNS, np.random.default_rng(k), CONF,
                                            bug="without_noise")
        assert rec["algorithm"] == bug
        assert rec["counts"]["numerator"] == RUNS and rec["counts"]["denominator"] == 0
        assert rec["p_value"] <= FAILS_UNDER_HOLM and rec["verdict"] == "refuted"
        ok = ap.transcript_white_box_audit(name, "interpolating", RUNS, np.random.default_rng(10 + k), CONF)
        assert ok["verdict"] == "not refuted"  # false failure ≤ 1e-7


def _lower_bound_fails(k: int) -> None:
    """The lower-bound checks of Theorems 1 and 4 (``lower_bound_statistic``: the numbers of the suite's check, at
    the quick budget's 200 runs per v) on accd22_algorithm_k_without_noise: outputs deterministic and within 0.036
    of v, truncated excess ≤ 0.0324c, p-value exp(−2R((bound − m)/c)²) ≤ 2e-14 < 1e-6 — deterministic (miss
    probability 0)."""
    mutant = getattr(ma, NOISE_FREE[k - 1])
    for theorem in ("theorem_1", "theorem_4"):
        r = u.lower_bound_statistic(f"algorithm_{k}", theorem, u.LB_RUNS["quick"], np.random.SeedSequence(k), mutant)
        assert max(r["means"]) <= 0.0324 * r["truncation"]
        assert r["p_value"] <= FAILS_UNDER_HOLM, (k, theorem, r["p_value"])


def test_noise_free_copy_of_algorithm_5_fails_the_lower_bound_checks():
    """:func:`_lower_bound_fails` for accd22_algorithm_5_without_noise (≈ 1.5 s; all six: the campaign test below).
    The same numbers make the suite's "…_control_caught" records, which run these corpus copies (asserted: the
    suite's control is the corpus copy, not an unmarked one).  (The reference passes: test_accd22_utility.py.)"""
    assert ma.accd22_algorithm_5_without_noise.__name__ == NOISE_FREE[4]
    _lower_bound_fails(5)
    import inspect

    assert 'getattr(_mutants, f"accd22_{algorithm}_without_noise")' in inspect.getsource(u._lower_bound)


@pytest.mark.campaign
def test_noise_free_copies_fail_the_lower_bound_checks():
    """:func:`_lower_bound_fails` for accd22_algorithm_1_without_noise … accd22_algorithm_6_without_noise (≈ 10 s).
    Deterministic."""
    for k in range(1, 7):
        _lower_bound_fails(k)


def test_step_off_by_one_copies_leave_the_public_schedule():
    """accd22_algorithm_1_step_off_by_one … accd22_algorithm_6_step_off_by_one through ``measured_noise_checks``
    (the suite's code, its instance and runs): the exact check "<name>_public_schedule" is false (every η_i is half
    the schedule's, 1/16 for Algorithm 4); the measured-noise checks fail on it too (its noise is half the public
    schedule's).  The reference's transcripts follow the schedule (exact)."""
    copies = ("accd22_algorithm_1_step_off_by_one", "accd22_algorithm_2_step_off_by_one",
              "accd22_algorithm_3_step_off_by_one", "accd22_algorithm_4_step_off_by_one",
              "accd22_algorithm_5_step_off_by_one", "accd22_algorithm_6_step_off_by_one")
    for k, bug in enumerate(copies, start=1):
        name = f"algorithm_{k}"
        mutant = getattr(ma, bug)
        assert mutant.__name__ == bug
        checks, _ = an.measured_noise_checks(name, ap.INSTANCES[name], np.random.SeedSequence(k), algorithm=mutant)
        assert checks[f"{name}_public_schedule"]["p_value"] == 0.0
        ref, _ = an.measured_noise_checks(name, ap.INSTANCES[name], np.random.SeedSequence(k))
        assert ref[f"{name}_public_schedule"]["p_value"] == 1.0


def test_raw_gradient_copies_fail_the_phase_sensitivity_check():
    """``algorithm_1_without_extension`` / ``algorithm_5_without_extension`` (raw ∇F): on the outlier pair the
    differing phase moves by 100·Lη_i (raw gradient ±100 against L = 1), so the suite's exact check
    (``access_and_sensitivity_checks`` on the two regimes' audit records) is false; the reference's holds."""
    for name, mutant in (("algorithm_1", ma.algorithm_1_without_extension),
                         ("algorithm_5", ma.algorithm_5_without_extension)):
        recs = _audits(name, "raw_gradients", 20)
        assert recs[0]["algorithm"] == mutant.__name__
        assert recs[1]["sensitivity_max"] > 99.0
        checks = ap.access_and_sensitivity_checks(name, recs)
        assert checks[f"{name}_phase_sensitivity"]["p_value"] == 0.0
        assert checks[f"{name}_disjoint_phases"]["p_value"] == 1.0  # the batches are still disjoint
        ok = ap.access_and_sensitivity_checks(name, _audits(name, None, 30))  # false failure ≤ 2e-7 (audits unused)
        assert ok[f"{name}_phase_sensitivity"]["p_value"] == 1.0


def test_algorithm_1_without_extension_fails_proposition_1_2():
    """Proposition 1.2's exact check (``extension_identity_task``) on ``algorithm_1_without_extension``: it equals
    Algorithm 5 on F on the outlier data too (max gap 0), so "the extension acts" is false; the reference passes."""
    bad = u.extension_identity_task(QUICK, algorithm=algorithm_1_without_extension)
    assert bad["checks"]["accd22_proposition_1_2"]["p_value"] == 0.0 and bad["record"]["max_gap_with_outlier"] == 0.0
    assert bad["record"]["identical_on_lipschitz_data"]
    assert u.extension_identity_task(QUICK)["checks"]["accd22_proposition_1_2"]["p_value"] == 1.0


def test_reused_epoch_copies_fail_the_access_log_check():
    """``algorithm_k_reused_epochs`` (k = 2, 3, 6; inner epochs on all the records of their call): the suite's exact
    access-log check on the two regimes' audit records is false (a record in 3 phases, 5 for Algorithm 3's first
    half); the reference's holds."""
    copies = {2: "algorithm_2_reused_epochs", 3: "algorithm_3_reused_epochs", 6: "algorithm_6_reused_epochs"}
    for k, bug in copies.items():
        name = f"algorithm_{k}"
        recs = _audits(name, "reused_epochs", 40 + k)
        assert recs[0]["algorithm"] == bug == getattr(ma, bug).__name__
        assert recs[0]["coverage"]["max_phases_per_record"] >= 3
        assert ap.access_and_sensitivity_checks(name, recs)[f"{name}_disjoint_phases"]["p_value"] == 0.0
        ok = ap.access_and_sensitivity_checks(name, _audits(name, None, 50 + k))
        assert ok[f"{name}_disjoint_phases"]["p_value"] == 1.0


def test_epochs_rounded_up_fails_the_kappa_schedule_check():
    """``algorithm_6_epochs_rounded_up`` in the κ-growth task (the suite's code at the quick grid n = 2000, 4000):
    T = ⌈log n⌉ = 8, 9 against Theorem 8's ⌊log n⌋ = 7, 8 — the exact check is false; the reference passes."""
    assert math.ceil(math.log(2000)) == 8 and math.floor(math.log(2000)) == 7
    bad = u.kappa_growth_task(QUICK, algorithm=algorithm_6_epochs_rounded_up)
    assert bad["checks"]["accd22_kappa_schedule"]["p_value"] == 0.0
    assert u.kappa_growth_task(QUICK)["checks"]["accd22_kappa_schedule"]["p_value"] == 1.0


def test_utility_shape_checks_are_uninformative_at_the_quick_budget():
    """The headline and adaptivity checks at the quick budget (3 grid points × 20 runs) state why a pass is no
    evidence, from their own numbers:
    * slope ≤ exponent (interpolating instances): a slope of exponent/2 (half the claimed rate) would be refuted
      only with p = t.sf((|exponent|/2)/se) > 1e-3 (the most lenient Holm level);
    * the twin's tight band [−2, 0] contains 0: a constant excess (a loop that never runs: here x_0 = 0 on every
      run, excess 1/8 plus a 1e-9 jitter so that the fit has a variance) passes it;
    * the twin's Hoeffding check: a mean of twice the bound (1/4) gives p ≥ 1e-3 at 20 runs on [0, 9/8].
    Exact arithmetic on the records (no sampling assertion)."""
    head = u.headline_task(QUICK)["checks"]
    adapt = u.adaptivity_task(QUICK)["checks"]
    for rec in (head["accd22_headline_interpolating"], adapt["accd22_adaptive_interpolating"]):
        assert "half the claimed exponent" in rec["uninformative_at_inputs"]
        t = sps.t(df=len(rec["n_grid"]) * rec["replicates"] - 2)
        assert t.sf((abs(rec["exponent"]) / 2.0) / rec["se"]) > 1e-3
    twin = head["accd22_headline_twin"]
    assert "contains 0" in twin["uninformative_at_inputs"]
    jitter = np.random.default_rng(0).uniform(-1e-9, 1e-9, size=(3, 20))
    never = rate_check_from_values("never_runs", "Theorem 6", twin["exponent"], twin["n_grid"], 0.125 + jitter,
                                   kind="tight", tolerance=twin["tolerance"])
    assert never.p_value > 1e-3  # the loop that never runs passes the twin's band
    rec = adapt["accd22_adaptive_twin"]
    assert "twice the bound" in rec["uninformative_at_inputs"]
    bound, runs = rec["bound"], u.SIZES["quick"]["runs"]
    assert min(1.0, 3 * hoeffding_p_value(2.0 * bound, bound, u._RANGE[1], runs)) >= 1e-3
