"""Rows of the check registry (``mutants.catches``) for Bassily, Feldman, Talwar & Thakurta (2019): the checks
``dpsco verify`` records for A_NSGD (Algorithm 1), A_NSGD on the Moreau envelope, A_ProxGD, A_ObjP (Algorithm 2)
and efficient objective perturbation, each with the planted bug that makes it fail and the test that shows it.

The privacy audits are caught: the black-box threshold audit (``dpsco.verification.auditing.audit.audit``, the
function the campaign's audit phase calls) refutes the σ-scaling copies on canary pairs, and the white-box audit
(``dpsco.verification.auditing.white_box.white_box_audit``, the function ``campaign.audits.white_box_entry_audit``
calls) refutes the σ/2 copy on the one-sided canary design the campaign uses.  Uniform stability (Lemma 3.4,
Lemma 5.5, both orders of each neighbouring pair) refutes the memorisation bug ``bftt19_releases_last_record``
(``mutants.utility.release_last_record``) on every entry but A_ProxGD.  The utility checks (excess empirical and
population risk against Theorems 3.2, 4.4, 4.5, 5.3/5.4; the rate families) are "uninformative" at the quick
budget (``dpsco.verification.checks.power``): their Hoeffding ranges make the detectable excess exceed the bound
at 4–20 runs, and on the real data no output can fail the empirical check at all (the logistic loss on ‖x‖ ≤ 1,
‖w‖ ≤ 2 is at most log(1 + e²) = 2.13, below the 2.4 needed for p ≤ 1e-6 at 20 runs); A_ProxGD's bounds exceed
the largest possible excess.  The tight 1/√n instance's slope test cannot detect a slope off by a factor of two
(tests/test_common_catches.py), and the check says so in its record.
"""

from __future__ import annotations

from typing import Any

from dpsco.verification.mutants.utility import CANNOT_FAIL_TEST, LAST_RECORD_NOTE, LAST_RECORD_TEST

__all__ = ["BFTT19_ROWS"]

BFTT19_ROWS: tuple[dict[str, Any], ...] = (
    dict(entry=r"bftt19\.nsgd", key="audit", bug="nsgd_noise_divided_by_batch",
         test="tests/bftt19/test_bftt19_audits.py::test_nsgd_audit_refutes_the_noise_divided_by_batch_mutant",
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
         test="tests/bftt19/test_bftt19_audits.py::test_objp_audit_refutes_the_noise_scaled_by_n_mutant",
         note="the threshold audit refutes ObjP with σ²/n² on the linear loss (exactly the Gaussian mechanism, "
              "true ε ≈ 294); efficient ObjP draws the same G, so the catalogue lists the bug for it too"),
    dict(entry=r"bftt19\.proxgd", key="empirical|population|rate|stability", bug=None, test=CANNOT_FAIL_TEST,
         note="uninformative: cannot fail — at the campaign's public inputs the bounds (4.28 empirical, 6.16 "
              "population, ≥ 4.91 on the rate grid, 18.8 stability) are at least the largest excess (ranges [0, 4], "
              "[0, 2]) and the largest loss difference 2ML = 4 (even release_last_record passes: "
              "tests/test_common_catches.py::test_stability_of_proxgd_cannot_fail)"),
    dict(entry=r"bftt19\.(nsgd|moreau_nsgd|objp|efficient_objp)", key="stability",
         bug="bftt19_releases_last_record", test=LAST_RECORD_TEST, note=LAST_RECORD_NOTE),
    dict(entry=r"bftt19\..*", key="empirical|population|rate|rate_d|rate_eps", bug=None, test=CANNOT_FAIL_TEST,
         note="uninformative: at the quick budget the Hoeffding check cannot detect a mean of twice the bound "
              "(detectable excess 3.32/4.7 empirical, 1.66/2.35 population, 1.6–2.0 on the rate grids against bounds "
              "0.076–1.52, at 20, 10, 4 or 6 runs); on the real data no output can fail the empirical check (loss ≤ "
              "log(1 + e²) = 2.13 < the 2.4 that p ≤ 1e-6 needs); gross bugs (labels negated, 14× the noise) pass"),
    dict(entry=r"bftt19\.nsgd", key="tight_rate", bug=None,
         test="tests/test_common_catches.py::test_tight_rate_is_uninformative_at_the_quick_grid",
         note="uninformative: the slope test on the tight 1/√n instance (3 grid points × 4 runs) cannot detect a "
              "slope off by a factor of two (tolerance 0.1 + detectable 4.1·se ≈ 0.6 > 0.25 at se ≈ 0.13–0.16); "
              "a release whose law does not depend on n has slope −1/2 exactly, and one that resolves the instance "
              "keeps its sampling noise (P[p̂ < 0] ≈ 0.16), so no planted bug reaches p ≤ 1e-6; the record says so"),
)
