"""Rows of the check registry (``mutants.catches``) for Asi, Chadha, Cheng & Duchi (2022): the suite checks and
audits ``dpsco verify`` records for Algorithms 1–6 (``verification/papers/accd22*.py``), each with the planted bug
that makes it fail and the test that shows it.

Caught: the white-box transcript audits on the non-interpolating (outlier) pair refute the copy without the
Lipschitzian extension and the copy with overlapping batches, and on the interpolating pair the noise-free copies
(``accd22_algorithm_k_without_noise``); the exact checks computed from the same audit records — the access log
(``*_disjoint_phases``) and the differing phase's sensitivity (``*_phase_sensitivity``) — fail on the
overlapping-batches copies and on the raw-gradient copies of each algorithm; Algorithm 4's one-phase audit and
exact phase ε fail on the sloppy-solver copy; the measured-noise checks (Gaussian χ², Laplace Gamma) fail on each
algorithm's "reports the scale, draws it/√2" copies; the public-schedule check on the step-halving off-by-one
copies; Proposition 1.2's identity on Algorithm 1 without the extension; Theorem 8's κ schedule on T = ⌈log n⌉;
the lower bounds of Theorems 1 and 4 on the noise-free copies.  The "…_caught" and "…_refuted" exact checks are
controls: each names the planted copy that another check refutes, and the test that shows it
(tests/accd22/test_accd22_catches.py for the new ones).

Uninformative at the quick budget (3 grid points × 20 runs; ``accd22_utility.slope_uninformative`` and
``mean_bound_uninformative`` compute the reason from the record's numbers): the headline and adaptivity shape
checks.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ACCD22_ROWS"]

_P = "tests/accd22/test_accd22_privacy.py::"
_N = "tests/accd22/test_accd22_noise.py::"
_RAW = _P + "test_raw_gradients_mutant_refuted_by_the_transcript_audit"
_REUSED = _P + "test_reused_epochs_mutant_refuted_by_the_transcript_audit"
_SLOPPY = _P + "test_sloppy_solver_mutant_refuted_by_the_phase_audit"
_C = "tests/accd22/test_accd22_catches.py::"
_NOISE_TEST = {"laplace": _N + "test_laplace_under_noise_copies_are_caught_by_the_measured_scale_check",
               "gaussian": _N + "test_gaussian_under_noise_copies_are_caught_by_the_measured_noise_check"}
_NOISE_BUG = {"laplace": "draws_laplace_scale_over_sqrt2", "gaussian": "draws_sigma_over_sqrt2"}


def _noise_rows() -> tuple[dict[str, Any], ...]:
    """The measured-noise checks of Algorithm k, each caught by its own under-noised copy (k = 1..6)."""
    rows: list[dict[str, Any]] = []
    for k in range(1, 7):
        rows.append(dict(
            entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_measured_laplace_noise",
            bug=f"accd22_algorithm_{k}_draws_laplace_scale_over_sqrt2",
            test=_N + "test_laplace_under_noise_copies_are_caught_by_the_measured_scale_check",
            note="laplace_scale_check (the suite's check) on the copy's replayed residuals r_i/b_i, b_i from the "
                 "public schedule: p < 1e-7 (miss probability ≤ 2.8e-12 at ≥ 1,200 residuals, exact)"))
        rows.append(dict(
            entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_measured_gaussian_noise",
            bug=f"accd22_algorithm_{k}_draws_sigma_over_sqrt2",
            test=_N + "test_gaussian_under_noise_copies_are_caught_by_the_measured_noise_check",
            note="measured_noise_check (the suite's check) on the copy's replayed residuals r_i/σ_i, σ_i from the "
                 "public schedule: p < 1e-7 (miss probability ≤ 1.5e-36 at ≥ 1,200 residuals, exact)"))
        for kind in ("laplace", "gaussian"):
            rows.append(dict(
                entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_{kind}_under_noise_caught",
                bug=f"accd22_algorithm_{k}_{_NOISE_BUG[kind]}", test=_NOISE_TEST[kind],
                note=f"control — states that the measured {kind} check refutes this copy on fresh draws (the test "
                     "shows that check failing on it; miss ≤ 2.8e-12, exact)"))
    return tuple(rows)


def _per_algorithm_rows() -> tuple[dict[str, Any], ...]:
    """The checks of Algorithm k caught by Algorithm k's own copies (tests/accd22/test_accd22_catches.py)."""
    rows: list[dict[str, Any]] = []
    for k in range(1, 7):
        nf = f"accd22_algorithm_{k}_without_noise"
        lb = _C + ("test_noise_free_copy_of_algorithm_5_fails_the_lower_bound_checks" if k == 5
                   else "test_noise_free_copies_fail_the_lower_bound_checks")
        rows += [
            dict(entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_white_box_interpolating", bug=nf,
                 test=_C + "test_noise_free_copies_refuted_by_the_interpolating_audit",
                 note="transcript_white_box_audit on the interpolating pair (the suite's, 2,000 runs per side) refutes "
                      "the noise-free copy: counts 2000/2000 vs 0/2000, p ≤ 1e-15, deterministic (miss 0)"),
            dict(entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_public_schedule",
                 bug=f"accd22_algorithm_{k}_step_off_by_one", test=_C + "test_step_off_by_one_copies_leave_the_public_schedule",
                 note="measured_noise_checks (the suite's code) on the copy: its η_i are half the public schedule's "
                      "(1/16 for Algorithm 4), the exact check is false"),
            dict(entry=rf"accd22\.algorithm_{k}", key=rf"accd22_algorithm_{k}_theorem_[14]", bug=nf, test=lb,
                 note="lower_bound_statistic (the suite check's numbers, 200 runs per v) on the noise-free copy: "
                      "p ≤ 2e-14, deterministic outputs (miss 0)"),
            dict(entry=rf"accd22\.algorithm_{k}", key=rf"accd22_algorithm_{k}_theorem_[14]_control_caught", bug=nf,
                 test=lb, note="control — states that the lower-bound check refutes the noise-free copy (the suite "
                               "runs this corpus copy; the test shows p ≤ 2e-14, deterministic)"),
        ]
        if k in (1, 5):
            rows.append(dict(
                entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_phase_sensitivity",
                bug=f"algorithm_{k}_without_extension", test=_C + "test_raw_gradient_copies_fail_the_phase_sensitivity_check",
                note="access_and_sensitivity_checks (the suite's) on the copy's audit records: the outlier's phase moves "
                     "by 100·L_iη_i > 1 + 2·SOLVER_TOL (exact)"))
        if k in (2, 3, 6):
            rows.append(dict(
                entry=rf"accd22\.algorithm_{k}", key=f"algorithm_{k}_disjoint_phases",
                bug=f"algorithm_{k}_reused_epochs", test=_C + "test_reused_epoch_copies_fail_the_access_log_check",
                note="access_and_sensitivity_checks (the suite's) on the copy's audit records: a record in 3 phases "
                     "(5 for Algorithm 3), at most 1 allowed (exact)"))
    return tuple(rows)


_A4_CONTROLS = ("algorithm_4_sloppy_solver", "algorithm_5_reused_epochs", "algorithm_2_without_extension",
                "algorithm_4_clipped_gradients")


ACCD22_ROWS: tuple[dict[str, Any], ...] = (
    # -- white-box audits ------------------------------------------------------------------------------------
    dict(entry=r"accd22\.algorithm_[15]", key=r"algorithm_[15]_white_box_non_interpolating",
         bug="algorithm_5_reused_epochs", test=_REUSED,
         note="transcript_white_box_audit (the suite's audit) on the outlier pair refutes Algorithm 5 with every "
              "epoch on the whole data (exact ε = 3ε; miss 5.3e-14); Algorithm 1 runs Algorithm 5 (M = Algorithm "
              "5 on the extension), so the catalogue lists the bug for it — the copy is Algorithm 5's"),
    dict(entry=r"accd22\.algorithm_[2346]", key=r"algorithm_[2346]_white_box_non_interpolating",
         bug="algorithm_2_without_extension", test=_RAW,
         note="transcript_white_box_audit on the outlier pair refutes Algorithm 2 on the raw gradients (exact ε ≈ "
              "57; miss < 1e-14); the catalogue lists the bug for Algorithms 3, 4 and 6 too — the copy is "
              "Algorithm 2's"),
    dict(entry=r"accd22\.algorithm_4", key="algorithm_4_phase_white_box", bug="algorithm_4_sloppy_solver",
         test=_SLOPPY,
         note="phase_white_box_audit (the suite's one-phase audit) refutes the one-pass solver: phase 4 moves by "
              "8Lη_4, exact ε = 2ε (miss < 1e-14)"),
    # -- exact checks computed from the audit records ------------------------------------------------------
    dict(entry=r"accd22\.algorithm_[145]", key=r"algorithm_[145]_disjoint_phases", bug="algorithm_5_reused_epochs",
         test=_REUSED,
         note="the test asserts the audit record's coverage: the last record lies in 12 phases, where the suite's "
              "exact check requires at most 1 (the copy is Algorithm 5's; see the audit row)"),
    dict(entry=r"accd22\.algorithm_[2346]", key=r"algorithm_[2346]_phase_sensitivity",
         bug="algorithm_2_without_extension", test=_RAW,
         note="the test asserts the audit record's sensitivity_max > 100 L_iη_i, where the suite's exact check "
              "requires ≤ (1 + 2·SOLVER_TOL) (the copy is Algorithm 2's; see the audit row)"),
    dict(entry=r"accd22\.algorithm_4", key="algorithm_4_phase_exact_epsilon", bug="algorithm_4_sloppy_solver",
         test=_SLOPPY,
         note="the test asserts the phase record's epsilon_exact = 2ε > (1 + 2·SOLVER_TOL)ε/4, the suite's exact "
              "check's bound"),
    # -- measured noise ------------------------------------------------------------------------------------------
    *_noise_rows(),
    *_per_algorithm_rows(),
    # -- planted-bug controls of Algorithm 4's suite --------------------------------------------------------------
    *(dict(entry=r"accd22\.algorithm_4", key=f"{b}_refuted", bug=b,
           test=_P + "test_planted_bugs_task_in_verify_refutes_all_four",
           note="control — states that the audit (the clipping sensitivity check) refutes this planted copy; the "
                "test shows it refuted (misses ≤ 1e-13, exact)") for b in _A4_CONTROLS),
    # -- utility ---------------------------------------------------------------------------------------------------
    dict(entry=r"accd22\.algorithm_1", key="accd22_proposition_1_2", bug="algorithm_1_without_extension",
         test=_C + "test_algorithm_1_without_extension_fails_proposition_1_2",
         note="extension_identity_task (the suite's) on the copy: it equals Algorithm 5 on F on the outlier data "
              "too (gap 0), so the exact identity's second half is false"),
    dict(entry=r"accd22\.algorithm_2", key=r"accd22_headline_(interpolating|twin)", bug=None,
         test=_C + "test_utility_shape_checks_are_uninformative_at_the_quick_budget",
         note="uninformative: at the quick budget (3 grid points × 20 runs) the interpolating slope check cannot "
              "detect half the claimed exponent (detectable slope excess ≈ 1.8–2.0 > 1.5), and the twin's band "
              "[−2, 0] contains the slope 0 of a loop that never runs (reasons computed from each record)"),
    dict(entry=r"accd22\.algorithm_3", key=r"accd22_adaptive_(interpolating|twin)", bug=None,
         test=_C + "test_utility_shape_checks_are_uninformative_at_the_quick_budget",
         note="uninformative: at the quick budget the slope check cannot detect half the claimed exponent "
              "(detectable excess ≈ 1.8 > 1.25), and the twin's Hoeffding check on [0, 9/8] at 20 runs cannot "
              "detect a mean of twice its bound 1/8 (detectable excess 0.50; reasons computed from each record)"),
    dict(entry=r"accd22\.algorithm_6", key="accd22_kappa_schedule", bug="algorithm_6_epochs_rounded_up",
         test=_C + "test_epochs_rounded_up_fails_the_kappa_schedule_check",
         note="kappa_growth_task (the suite's) on the copy: T = ⌈log n⌉ = 8, 9 against ⌊log n⌋ = 7, 8 (exact)"),
)
