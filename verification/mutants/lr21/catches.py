"""Rows of the check registry (``mutants.catches``) for Lowy & Razaviyayn (2021): the checks ``dpsco verify``
records for output perturbation (Algorithm 1 and its inner-method variants, Algorithm 2), tilted ERM, the
ℓ2-robust models and adversarial training (Algorithm 3), each with the planted bug that makes it fail and the test
that shows it.

The black-box audits are caught on the worst-case instances the paper's tests build (an adversarial but certified
α-accurate inner optimiser), by the same threshold audit (``dpsco.verification.auditing.audit.audit``) the
campaign runs on the Fair data; Algorithm 2's by its copy calibrated without the α-term of Δ_T
(``alg2_sensitivity_without_alpha_term``).  Its printed-density bug (``alg2_printed_gaussian``, ERRATA.md LR21-E2)
shows only at the worst-case shift Δ_T, which no audited pair realises, and is caught by the exact Gaussian curve;
its σ/√2 copy by the measured-noise check of its harness.
Uniform stability (Prop. 2.1's and its applications' bounds, both orders of each neighbouring pair) refutes the
memorisation bug ``lr21_releases_last_record`` (``mutants.utility.release_last_record``) on every entry.  The
utility checks are "uninformative" at the quick budget (``dpsco.verification.checks.power``): their Hoeffding
ranges make the detectable excess exceed the bound at 3–20 runs, or the bounds exceed the largest possible excess
(the inner-method variants of Algorithm 1: bounds 18.7, 13.6 and ≥ 13.1 on the rate grid against the excess
range [0, 4.8]; tilted ERM's rate bounds ≥ 6.97).
"""

from __future__ import annotations

from typing import Any

from dpsco.verification.mutants.utility import CANNOT_FAIL_TEST, LAST_RECORD_NOTE, LAST_RECORD_TEST

__all__ = ["LR21_ROWS"]

_OP = "tests/lr21/test_lr21_output_perturbation_audits.py::"
_APP = "tests/lr21/test_lr21_application_audits.py::"
_AUDIT = ("the threshold audit (auditing.audit.audit, the campaign's black-box audit on the Fair data) refutes it "
          "on the paper tests' worst-case instance")

LR21_ROWS: tuple[dict[str, Any], ...] = (
    dict(entry=r"lr21\.alg1(\..*)?", key="audit", bug="alg1_sensitivity_without_alpha_term",
         test=_OP + "test_audit_refutes_sensitivity_without_alpha_term",
         note=_AUDIT + " (n = 10, adversarial certified α-accurate optimiser; exact ε 10.9 at δ = 0, > 10 at "
              "δ = 1e-3); the bug drops Prop. 2.1's 2√(2α/μ) whatever the inner method"),
    dict(entry=r"lr21\.alg2", key="audit", bug="alg2_sensitivity_without_alpha_term",
         test="tests/test_common_catches.py::test_audit_refutes_algorithm_2_sensitivity_without_alpha_term",
         note=_AUDIT + " (n = 10, λ = 1, α = 8, δ = 1e-3, adversarial certified α-accurate optimiser; centres 4 "
              "apart against Δ_λ = 0.6: exact ε 7.20); the printed-density bug alg2_printed_gaussian needs the "
              "worst-case shift Δ_T, which no audited pair realises, and is caught by the exact curve"),
    dict(entry=r"lr21\.tilted", key="audit", bug="tilted_erm_alg1_sensitivity",
         test=_APP + "test_tilted_audit_refutes_alg1_sensitivity_mutant",
         note=_AUDIT + " with an event fixed in advance (τ = 40, squared loss; exact ε 5.97 at δ = 0)"),
    dict(entry=r"lr21\.robust(_squared)?", key="audit", bug="robust_erm_printed_alpha_term",
         test=_APP + "test_robust_audit_refutes_printed_alpha_term_mutant",
         note=_AUDIT + " with an event fixed in advance (robust logistic, ρ = 0.05; exact ε 4.80 at δ = 0); the "
              "least-squares entry shares the line-2 calibration the bug changes"),
    dict(entry=r"lr21\.alg3", key="audit", bug="alg3_printed_alpha_term",
         test="tests/lr21/test_lr21_algorithm_3.py::test_audit_refutes_algorithm_3_printed_alpha_term",
         note=_AUDIT + " (linear adversarial game, adversarial α-saddle solver; exact ε 2.38 at δ = 0)"),
    dict(entry=r"lr21\..*", key="stability", bug="lr21_releases_last_record", test=LAST_RECORD_TEST,
         note=LAST_RECORD_NOTE),
    dict(entry=r"lr21\.alg1\.(subgradient|sgd|katyusha)", key="empirical|population|rate", bug=None,
         test=CANNOT_FAIL_TEST,
         note="uninformative: cannot fail — at the campaign's public inputs the bounds (18.7 empirical, 13.6 "
              "population, ≥ 13.1 on the rate grid: α = 0.01 makes Prop. 2.1's α-terms dominate) exceed the excess "
              "range [0, 4.8], so every Hoeffding p-value is 1"),
    dict(entry=r"lr21\.tilted", key="rate", bug=None, test=CANNOT_FAIL_TEST,
         note="uninformative: cannot fail — tilted ERM's bounds on the rate grid (24.8, 13.2, 6.97) exceed the "
              "excess range [0, 4.8], so every Hoeffding p-value is 1"),
    dict(entry=r"lr21\.(alg2|robust_squared)", key="rate", bug=None, test=CANNOT_FAIL_TEST,
         note="uninformative: no grid point can fail — bounds (2.60, 2.00, 1.56) on the range [0, 2] (Algorithm 2) "
              "and (29.1, 15.4, 8.09) on [0, 14.9] (robust least squares): the first two are at least the top, and "
              "at n = 1000 p ≤ 1e-6 needs a mean 2.2 (resp. 16.6) above the bound, beyond the range (6 runs)"),
    dict(entry=r"lr21\..*", key="empirical|population|rate", bug=None, test=CANNOT_FAIL_TEST,
         note="uninformative: at the quick budget the Hoeffding check cannot detect a mean of twice the bound "
              "(detectable excess 3.3–12.4 against bounds 0.19–8.1 at 6 or 20 runs; rate grids 3.9–5.8 against "
              "largest bounds 3.0–3.6 at 3 or 6 runs); gross bugs (labels negated, all records the last) pass"),
)
