"""Rows of the check registry (``mutants.catches``) for Bassily, Feldman, Talwar & Thakurta (2019): the checks
``dpsco verify`` records for A_NSGD (Algorithm 1), A_NSGD on the Moreau envelope, A_ProxGD, A_ObjP (Algorithm 2)
and efficient objective perturbation, each with the planted bug that makes it fail and the test that shows it.

The privacy audits are caught: the black-box threshold audit (``dpsco.verification.auditing.audit.audit``, the
function the campaign's audit phase calls) refutes the σ-scaling copies on canary pairs, and the white-box audit
(``dpsco.verification.auditing.white_box.white_box_audit``, the function ``campaign.audits.white_box_entry_audit``
calls) refutes the σ/2 copy on the one-sided canary design the campaign uses.  The utility checks (excess
empirical and population risk against Theorems 3.2, 4.4, 4.5, 5.3/5.4; the rate families; uniform stability,
Lemma 3.4) have no planted bug: every planted bug of the paper is a privacy bug, which leaves the excess risk and
the coupled stability differences unchanged or smaller.  The largest effect, ``nsgd_noise_outside_step`` (noise σ
on the iterate instead of ησ inside the step; η = 0.071 on the campaign's Fair data, so 14× the noise), still has
mean excess empirical risk 0.049 against Theorem 3.2's bound 0.078 there (50 runs, seed 1).  Those rows are
bug None: "cannot fail" where the bound is at least the largest possible excess (A_ProxGD: bounds 4.28, 6.16 and
stability 18.8 against excess ranges [0, 4], [0, 2] and loss differences ≤ 2ML = 4), "no planted bug" elsewhere.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BFTT19_ROWS", "CANNOT_FAIL_TEST", "CHECK_CODE_TESTS", "no_planted_bug_rows"]

_T = "tests/test_theorem_checks.py::"
#: the campaign test that reads the quick campaign's records and checks each "cannot fail" row's bounds against
#: the range of the checked quantity
CANNOT_FAIL_TEST = "tests/test_check_registry.py::test_campaign_inventory_is_committed_and_none_rows_hold"
#: the utility checks of the common entries, by the check code that computes them, with the test that shows that
#: code failing on a synthetic violation (no planted bug makes the campaign's instance of them fail)
CHECK_CODE_TESTS: tuple[tuple[str, str], ...] = (
    ("empirical|population", _T + "test_bound_check_can_fail"),
    ("rate|rate_d|rate_eps", _T + "test_rate_check_with_bounds_tests_the_bound_at_every_grid_point"),
    ("tight_rate", _T + "test_tight_rate_check_is_two_sided"),
    ("stability", _T + "test_stability_check_detects_an_exceeded_bound"),
)


def no_planted_bug_rows(entry: str, why: str, without: tuple[str, ...] = ()) -> tuple[dict[str, Any], ...]:
    """Bug-None rows ("no planted bug:") for the utility checks of the entries matching ``entry``: one per check
    code (:data:`CHECK_CODE_TESTS`, except the key families in ``without``), its test the code's own failing test
    on a synthetic violation, ``why`` the paper's reason."""
    return tuple(dict(entry=entry, key=keys, bug=None, test=test,
                      note=f"no planted bug: the check code fails on a synthetic violation (the test); {why}")
                 for keys, test in CHECK_CODE_TESTS if keys not in without)


BFTT19_ROWS: tuple[dict[str, Any], ...] = (
    dict(entry=r"bftt19\.nsgd", key="audit", bug="nsgd_noise_divided_by_batch",
         test="tests/test_audits_bftt19.py::test_nsgd_audit_refutes_the_noise_divided_by_batch_mutant",
         note="the black-box threshold audit (auditing.audit.audit, as the campaign's audit phase calls it) refutes "
              "the σ/m copy on the symmetric linear canary (n = 16, true ε ≈ 24.9); the campaign runs it on the "
              "Fair data against an extreme replace-one neighbour"),
    dict(entry=r"bftt19\.(moreau_nsgd|proxgd)", key="audit", bug="nsgd_sensitivity_without_factor_2",
         test="tests/test_planted_bugs.py::test_default_budget_audits_refute_each_visible_mutant"
              "[nsgd_sensitivity_without_factor_2]",
         note="the same threshold audit refutes the σ/2 copy of Algorithm 1's core on the one-sided canary (true "
              "ε 4.47); the catalogue lists the bug for these "
              "entries because they run that core on the envelope — the copy is A_NSGD's, not an envelope variant"),
    dict(entry=r"bftt19\.(nsgd|moreau_nsgd|proxgd)", key="white_box_audit", bug="nsgd_sensitivity_without_factor_2",
         test="tests/test_white_box_audit.py::test_fixed_event_audit_spares_the_algorithm_and_refutes_sigma_half",
         note="white_box_audit on the one-sided canary design (OneSidedCanary, n = 16, T = 1) refutes the σ/2 copy "
              "(miss probability < 1e-13, exact); the campaign runs it at n = 1000 with an event placed from pilot "
              "runs, the test with an event fixed in advance; the copy is A_NSGD's core (see the audit row)"),
    dict(entry=r"bftt19\.(objp|efficient_objp)", key="audit", bug="objp_noise_scaled_by_n",
         test="tests/test_audits_bftt19.py::test_objp_audit_refutes_the_noise_scaled_by_n_mutant",
         note="the threshold audit refutes ObjP with σ²/n² on the linear loss (exactly the Gaussian mechanism, "
              "true ε ≈ 294); efficient ObjP draws the same G, so the catalogue lists the bug for it too"),
    dict(entry=r"bftt19\.proxgd", key="empirical|population|rate|stability", bug=None, test=CANNOT_FAIL_TEST,
         note="cannot fail: at the campaign's public inputs the bounds (4.28 empirical, 6.16 population, ≥ 4.9 on "
              "the rate grid, 18.8 stability) are at least the largest excess (ranges [0, 4], [0, 2]) and the "
              "largest loss difference 2ML = 4: every Hoeffding p-value is 1, and the stability t-test needs a "
              "mean difference above 18.8"),
    *no_planted_bug_rows(r"bftt19\..*", "every planted bug of the paper is a privacy bug that leaves the excess "
                         "and the coupled differences unchanged or smaller (nsgd_noise_outside_step, 14× the noise "
                         "on the Fair data: mean excess 0.049 against the bound 0.078)"),
)
