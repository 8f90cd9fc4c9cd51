"""Rows of the check registry (``mutants.catches``) for Menart et al. (2023): the suite checks and audits
``dpsco verify`` records for KL Spider (Algorithm 1), the private proximal point method (Algorithm 2), noisy GD on
the regularised problem (Algorithm 4) and adaptive noisy GD (Algorithm 3, with Theorem 5's exponential-mechanism
output), each with the planted bug that makes it fail and the test that shows it.

Caught: the exact zCDP of a transcript (σ's from the public schedule) fails on the copies that make more releases
or charge half the cost; the measured-noise checks (``muabg23_noise.measured_noise`` of the replayed residuals)
fail on the σ/√2 copies; the white-box audits refute the copies calibrated to the paper's (L₀/(nσ))² accounting;
the black-box curve audit of adaptive GD refutes its copy with noise/10⁶; the selection-frequency test refutes the
exponential mechanism without its factor 2.  Not caught by any planted bug of ``CORPUS``: the utility checks
(Theorems 1, 2, 4, 5, 9), the gradient counts, the printed-calibration checks (their bugs are the printed
calibrations themselves, which the reference runs), the exponential mechanism's bounded range and worst-pair
audit, and Theorem 8's lower bound, whose planted bugs — the algorithms with their noise removed
(``verification/papers/muabg23_lower_bound.py``'s ScaledNoiseGenerator at scale 0) — are not ``CORPUS`` entries.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MUABG23_ROWS"]

_SP = "tests/test_muabg23_spider.py::"
_PR = "tests/test_muabg23_proximal.py::"
_AD = "tests/test_muabg23_adaptive.py::"
_WB = "tests/test_muabg23_white_box.py::"
_EM = "tests/test_muabg23_em.py::"
_LB = "tests/test_muabg23_lower_bound.py::"
_UTILITY = ("no planted bug: a utility claim checked at every grid n (Hoeffding) or with high probability "
            "(binomial); every planted bug of the paper is a privacy bug, which no test runs through it")

MUABG23_ROWS: tuple[dict[str, Any], ...] = (
    # -- KL Spider (Algorithm 1) ---------------------------------------------------------------------------------
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_exact_rho", bug="kl_spider_extra_difference_step",
         test=_SP + "test_extra_step_mutant_refuted_exactly",
         note="transcript_rho (the suite's check) of the copy with T_k + 1 difference releases per round is ρ/2 + "
              "Σ_k (T_k + 1)ρ/(2KT_k) > 1.1ρ on the audit instance (exact)"),
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_measured_noise_(anchors|differences)",
         bug="kl_spider_draws_sigma_over_sqrt2", test=_SP + "test_spider_measured_noise_refutes_sigma_over_sqrt2",
         note="spider_measured_noise (the suite's two checks) on the σ/√2 copy: both p < 1e-7 (miss probability "
              "≤ 1e-6 each at ≥ 1,000 residuals, exact)"),
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_white_box", bug="kl_spider_printed_noise_claiming_rho",
         test=_SP + "test_white_box_audit_refutes_printed_noise",
         note="white_box_audit with the suite's run and design refutes the printed noise under Theorem 1's claim "
              "(true μ 1.03 against 0.71; 20,000 runs per side; campaign-marked test)"),
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_count", bug=None, test=_SP + "test_release_claim_exact_and_count",
         note="no planted bug: an exact count (performed n·Σ(1 + steps_k), published n·(K + ΣT_k)); no test runs a "
              "copy through it"),
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_theorem_1_(whp|rate|rate_kappa_1_5)", bug=None,
         test=_SP + "test_theorem_1_bound_on_pl_quadratic", note=_UTILITY),
    # -- noisy GD on the regularised problem (Algorithm 4) ---------------------------------------------------------
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_exact_privacy", bug="noisy_gd_one_step_more",
         test=_PR + "test_algorithm_4_planted_bugs_refuted_by_the_same_check",
         note="the exact worst-pair ρ of the copy's transcript, Σ‖ḡ_S − ḡ_S′‖²/(2σ²) over the steps taken with σ "
              "from Theorem 9's formula (the suite check's sum, recomputed in the test), is ρT/(T − 1) > ρ"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_measured_noise", bug="noisy_regularised_gd_draws_sigma_over_sqrt2",
         test=_PR + "test_noisy_gd_measured_noise_refutes_sigma_over_sqrt2",
         note="measured_noise of proximal_residuals (the suite's check) on the σ/√2 copy: p < 1e-7 (miss ≤ 1e-6, "
              "exact)"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_white_box", bug="noisy_gd_paper_accounting",
         test=_WB + "test_noisy_gd_white_box_refutes_paper_accounting",
         note="the suite's white-box curve audit (fixed event) refutes σ² = L₀²(T−1)/(n²ρ), truly 2ρ-zCDP (miss "
              "3.0e-9 at 40,000 runs per side, exact)"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_mutants_refuted", bug=None,
         test=_PR + "test_algorithm_4_planted_bugs_refuted_by_the_same_check",
         note="control: states that the exact-ρ and measured-noise checks refute the two planted copies; it fails "
              "only if those checks lose their power, never on a bug of the algorithm"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_printed_privacy", bug=None,
         test=_PR + "test_exact_calibration_spends_rho_and_printed_under_half",
         note="no planted bug: checks that the printed calibration (which the reference runs as an option) spends "
              "< ρ/2; no test runs a copy through it"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_count", bug=None, test=_PR + "test_suite_tasks_at_quick_budget",
         note="no planted bug: an exact count (T − 1)·n; no test runs a copy through it"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_theorem_9_rate", bug=None,
         test=_PR + "test_theorem_9_rate_on_linear_regularised_instance", note=_UTILITY),
    # -- proximal point (Algorithm 2) ------------------------------------------------------------------------------
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_measured_noise",
         bug="proximal_point_draws_sigma_over_sqrt2",
         test=_PR + "test_proximal_point_measured_noise_refutes_sigma_over_sqrt2",
         note="measured_noise of proximal_residuals (the suite's check) on the σ/√2 copy: p < 1e-7 (miss ≤ 1e-6, "
              "exact)"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_white_box", bug="proximal_point_paper_accounting",
         test=_WB + "test_proximal_point_white_box_refutes_paper_accounting",
         note="the suite's white-box curve audit of every noisy gradient refutes the paper-accounting copy (truly "
              "2ρ; miss 3.0e-9 at 40,000 runs per side, exact)"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_exact_privacy", bug=None,
         test=_PR + "test_algorithm_2_exact_rho_and_schedule_from_public_inputs",
         note="no planted bug: the exact worst-pair ρ with σ from the public formula; no test runs a copy through "
              "it (the noise copies are caught by the measured noise and the audit, the data-dependent F₀ by the "
              "schedule)"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_schedule", bug=None,
         test=_PR + "test_algorithm_2_exact_rho_and_schedule_from_public_inputs",
         note="control: its second half states that the data-dependent-F₀ copy's T differs on (S, S3) (the test); "
              "no test runs a copy through its first half (T equal on S, S2 and to the public schedule)"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_count", bug=None,
         test=_PR + "test_suite_tasks_at_quick_budget",
         note="no planted bug: an exact count T(T₄ − 1)n; no test runs a copy through it"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_theorem_2_rate", bug=None,
         test=_PR + "test_theorem_2_rate_task_bounds_by_hand", note=_UTILITY),
    # -- adaptive GD (Algorithm 3) and its exponential-mechanism output (Theorem 5) -----------------------------
    dict(entry=r"muabg23\.adaptive_gd", key="adaptive_filter_total", bug="adaptive_gd_paper_units",
         test=_AD + "test_paper_units_undercount_twice",
         note="exact_transcript_cost (the suite's check; σ's recomputed from the released N_t) of the copy that "
              "charges the paper's units is twice its charge and > ρ on every run (deterministic)"),
    dict(entry=r"muabg23\.adaptive_gd", key="adaptive_measured_noise", bug="adaptive_gd_draws_sigma_over_sqrt2",
         test=_AD + "test_adaptive_measured_noise_refutes_sigma_over_sqrt2",
         note="measured_noise of adaptive_residuals (the suite's check) on the σ/√2 copy: p < 1e-7 (miss ≤ 1e-6, "
              "exact)"),
    dict(entry=r"muabg23\.adaptive_gd", key="adaptive_worst_pair_curve", bug="adaptive_gd_noise_over_1e6",
         test=_AD + "test_curve_audit_refutes_noise_over_1e6",
         note="the suite's black-box curve audit of w_{T+1} refutes both noises divided by 10⁶ (miss ≤ 1e-6 at "
              "2,000 runs per side, derived in the test)"),
    dict(entry=r"muabg23\.adaptive_gd", key="adaptive_white_box", bug="adaptive_gd_paper_units",
         test="tests/test_muabg23_adaptive_white_box.py::test_white_box_refutes_paper_units",
         note="the suite's white-box audit of the noisy steps refutes the paper-units copy (≈ 2ρ)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_measured_noise_em",
         bug="adaptive_gd_em_draws_sigma_over_sqrt2", test=_EM + "test_em_measured_noise_refutes_sigma_over_sqrt2",
         note="the measured-noise check of Algorithm 3's releases on the σ/√2 copy of the Theorem 5 variant: p < "
              "1e-7 (miss ≤ 1e-6, exact)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_em_selection", bug="adaptive_gd_em_temperature_without_2",
         test=_EM + "test_em_measured_selection_refutes_temperature_without_2",
         note="em_selection_check (the suite's two-sided exact binomial test) refutes the temperature without its "
              "factor 2 (miss ≤ 1e-6 at 700 runs, exact)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_filter_total_em", bug=None,
         test=_AD + "test_filter_never_overshoots",
         note="no planted bug: the entry's planted bugs (the exponential mechanism's temperature, the σ/√2 copy) "
              "leave the filter's charges as they are; the paper-units copy is the adaptive_gd entry's"),
    dict(entry=r"muabg23\.adaptive_gd(_em)?", key="adaptive_printed_total(_em)?", bug=None,
         test=_AD + "test_exact_and_printed_parameters_by_hand",
         note="no planted bug: checks that the printed calibration (an option of the reference) stays within its "
              "own claim 2ρ + 2√ρ/n; no test runs a copy through it"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_em_bounded_range", bug=None,
         test=_AD + "test_em_worst_pair_attains_epsilon",
         note="no planted bug: an exact computation of the reference's exponential-mechanism log-ratio range at "
              "public inputs; the temperature copy is caught by the selection test, not here"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_em_worst_pair_curve", bug=None,
         test=_EM + "test_em_worst_pair_is_realised_by_the_implementation",
         note="no planted bug: no test runs a planted copy through the worst-pair curve audit of the Theorem 5 "
              "variant"),
    dict(entry=r"muabg23\.adaptive_gd(_em)?", key=r"adaptive_(theorem_4_rate|em_theorem_5_rate)", bug=None,
         test=_AD + "test_suite_tasks_at_quick_budget", note=_UTILITY),
    # -- Theorem 8's lower bound, every entry ----------------------------------------------------------------------
    dict(entry=r"muabg23\..*", key=r".*_theorem8", bug=None, test=_LB + "test_non_private_variant_is_caught",
         note="no planted bug: the check fails on the algorithms with their noise removed (ScaledNoiseGenerator at "
              "scale 0; the test), which are not CORPUS entries nor listed by the entries"),
)
