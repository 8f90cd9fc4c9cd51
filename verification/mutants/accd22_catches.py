"""Rows of the check registry (``mutants.catches``) for Asi, Chadha, Cheng & Duchi (2022): the suite checks and
audits ``dpsco verify`` records for Algorithms 1–6 (``verification/papers/accd22*.py``), each with the planted bug
that makes it fail and the test that shows it.

Caught: the white-box transcript audits on the non-interpolating (outlier) pair refute the copy without the
Lipschitzian extension and the copy with overlapping batches; the exact checks computed from the same audit
records — the access log (``*_disjoint_phases``) and the differing phase's sensitivity (``*_phase_sensitivity``)
— fail on them (the tests assert the record's coverage and sensitivity the checks compare with their bounds);
Algorithm 4's one-phase audit and exact phase ε fail on the sloppy-solver copy; the measured-noise checks
(Gaussian χ², Laplace Gamma) fail on each algorithm's "reports the scale, draws it/√2" copies.

Not caught by any planted bug of ``CORPUS``: the audits on the interpolating pair (the raw and the extended
gradients agree there); the access-log and sensitivity checks of the entries whose planted bugs do not touch them;
the public-schedule check; Proposition 1.2's identity; the utility shape checks (headline, adaptivity, κ-growth
schedule); the lower bounds of Theorems 1 and 4, whose planted control, the noise-free copy
(``mutants.accd22_noise.noise_free``), the same task refutes but which is not a ``CORPUS`` entry.  The
"…_caught" and "…_refuted" exact checks are controls: they state that another check refutes a planted copy.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ACCD22_ROWS"]

_P = "tests/test_accd22_privacy.py::"
_N = "tests/test_accd22_noise.py::"
_U = "tests/test_accd22_utility.py::"
_RAW = _P + "test_raw_gradients_mutant_refuted_by_the_transcript_audit"
_REUSED = _P + "test_reused_epochs_mutant_refuted_by_the_transcript_audit"
_SLOPPY = _P + "test_sloppy_solver_mutant_refuted_by_the_phase_audit"


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
    return tuple(rows)


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
    dict(entry=r"accd22\.algorithm_[1-6]", key=r"algorithm_[1-6]_white_box_interpolating", bug=None,
         test=_P + "test_correct_algorithms_not_refuted_in_both_regimes",
         note="no planted bug: no test runs a planted copy through the audit on the interpolating pair; the "
              "paper's planted bugs are shown on the outlier pair (the *_non_interpolating rows), where the "
              "replaced record's raw gradient exceeds the schedule's L_i"),
    # -- exact checks computed from the audit records ------------------------------------------------------
    dict(entry=r"accd22\.algorithm_[145]", key=r"algorithm_[145]_disjoint_phases", bug="algorithm_5_reused_epochs",
         test=_REUSED,
         note="the test asserts the audit record's coverage: the last record lies in 12 phases, where the suite's "
              "exact check requires at most 1 (the copy is Algorithm 5's; see the audit row)"),
    dict(entry=r"accd22\.algorithm_[236]", key=r"algorithm_[236]_disjoint_phases", bug=None,
         test=_P + "test_correct_algorithms_not_refuted_in_both_regimes",
         note="no planted bug: the overlapping-batches copy is Algorithm 5's, which these entries do not list; the "
              "access-log check is exact (coverage from the transcript)"),
    dict(entry=r"accd22\.algorithm_[2346]", key=r"algorithm_[2346]_phase_sensitivity",
         bug="algorithm_2_without_extension", test=_RAW,
         note="the test asserts the audit record's sensitivity_max > 100 L_iη_i, where the suite's exact check "
              "requires ≤ (1 + 2·SOLVER_TOL) (the copy is Algorithm 2's; see the audit row)"),
    dict(entry=r"accd22\.algorithm_[15]", key=r"algorithm_[15]_phase_sensitivity", bug=None,
         test=_P + "test_correct_algorithms_not_refuted_in_both_regimes",
         note="no planted bug: the raw-gradient copy is Algorithm 2's, which these entries do not list, and no "
              "test shows their listed bugs (overlapping batches, σ/√2 copies) moving a phase beyond L_iη_i"),
    dict(entry=r"accd22\.algorithm_4", key="algorithm_4_phase_exact_epsilon", bug="algorithm_4_sloppy_solver",
         test=_SLOPPY,
         note="the test asserts the phase record's epsilon_exact = 2ε > (1 + 2·SOLVER_TOL)ε/4, the suite's exact "
              "check's bound"),
    # -- measured noise ------------------------------------------------------------------------------------------
    *_noise_rows(),
    dict(entry=r"accd22\.algorithm_[1-6]", key=r"algorithm_[1-6]_(laplace|gaussian)_under_noise_caught", bug=None,
         test=_N + "test_measured_noise_checks_of_the_suite",
         note="control: states that the measured check refutes the σ/√2 (b/√2) copy on fresh draws; it fails "
              "only if that check loses its power (miss ≤ 2.8e-12, exact), never on a bug of the algorithm"),
    dict(entry=r"accd22\.algorithm_[1-6]", key=r"algorithm_[1-6]_public_schedule", bug=None,
         test=_N + "test_public_schedule_by_hand",
         note="no planted bug: no test shows a planted copy leaving the (L_i, η_i) schedule in its transcript "
              "(the σ/√2 copies report the schedule's scale by construction); the check is exact"),
    # -- planted-bug controls of Algorithm 4's suite --------------------------------------------------------------
    dict(entry=r"accd22\.algorithm_4",
         key=r"(algorithm_4_sloppy_solver|algorithm_5_reused_epochs|algorithm_2_without_extension"
             r"|algorithm_4_clipped_gradients)_refuted", bug=None,
         test=_P + "test_planted_bugs_task_in_verify_refutes_all_four",
         note="control: states that the audits (the clipping sensitivity check) refute the four planted copies; "
              "it fails only if those lose their power (misses ≤ 1e-13, exact), never on a bug of the algorithm"),
    # -- utility and lower bounds ------------------------------------------------------------------------------
    dict(entry=r"accd22\.algorithm_[1-6]", key=r"accd22_algorithm_[1-6]_theorem_[14]_control_caught", bug=None,
         test=_U + "test_lower_bound_sanity_check_passes_algorithm_5_and_catches_its_noise_free_copy",
         note="control: states that the lower-bound check refutes the noise-free copy (deterministic outputs: "
              "miss probability 0 once its p-value is below 1e-6)"),
    dict(entry=r"accd22\.algorithm_[1-6]", key=r"accd22_algorithm_[1-6]_theorem_[14]", bug=None,
         test=_U + "test_lower_bound_check_can_now_fail_and_could_not_before",
         note="no planted bug: the check fails on the noise-free copy (mutants.accd22_noise.noise_free; the "
              "…_control_caught control), which is neither a CORPUS entry nor listed by the entries; no test "
              "runs a CORPUS copy through it"),
    dict(entry=r"accd22\.algorithm_1", key="accd22_proposition_1_2", bug=None,
         test=_U + "test_proposition_1_2_identity",
         note="no planted bug: an exact identity between the reference Algorithms 1 and 5 on L-Lipschitz data "
              "(shared seed); no planted copy enters it"),
    dict(entry=r"accd22\.algorithm_2", key=r"accd22_headline_(interpolating|twin)", bug=None,
         test=_U + "test_headline_task_record_and_figure",
         note="no planted bug: the slope checks of the headline claim (near-exponential on interpolation, "
              "polynomial on the twin); every planted bug of the paper is a privacy bug"),
    dict(entry=r"accd22\.algorithm_3", key=r"accd22_adaptive_(interpolating|twin)", bug=None,
         test=_U + "test_algorithm_3_keeps_a_polynomial_envelope_on_the_twin",
         note="no planted bug: the adaptivity checks (slope on interpolation, mean excess below the start's on "
              "the twin); every planted bug of the paper is a privacy bug"),
    dict(entry=r"accd22\.algorithm_6", key="accd22_kappa_schedule", bug=None,
         test=_U + "test_kappa_growth_schedule_and_envelope",
         note="no planted bug: an exact check of Theorem 8's schedule T = ⌊log n⌋, m = ⌊n/T⌋; no planted copy "
              "changes the schedule"),
)
