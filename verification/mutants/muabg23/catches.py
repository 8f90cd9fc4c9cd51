"""Rows of the check registry (``mutants.catches``) for Menart et al. (2023): the suite checks and audits
``dpsco verify`` records for KL Spider (Algorithm 1), the private proximal point method (Algorithm 2), noisy GD on
the regularised problem (Algorithm 4) and adaptive noisy GD (Algorithm 3, with Theorem 5's exponential-mechanism
output), each with the planted bug that makes it fail and the test that shows it.

Caught: the exact zCDP of a transcript (σ's from the public schedule) fails on the copies that make more releases
(one difference step, one noisy step, one outer call more) or charge half the cost; the gradient counts on the
same copies; the measured-noise checks (``muabg23_noise.measured_noise`` of the replayed residuals) fail on the
σ/√2 copies; the white-box audits refute the copies calibrated to the paper's (L₀/(nσ))² accounting; the printed-
calibration checks refute the printed noise claiming ρ (Algorithm 3) and the one-step-more copy at the printed
calibration (Algorithm 4); the black-box curve audits refute the copies with noise/10⁶; the selection-frequency
test and the exact bounded range refute the exponential mechanism without its factor 2; Theorem 1's w.h.p. check
refutes KL Spider returning its start w₀; Theorem 8's lower bound refutes Algorithm 3 with its noise dropped.
Uninformative at the quick budget (bug None, the campaign labels the pass; tests/muabg23/test_muabg23_catches.py shows
why): every rate check (Theorems 1, 2, 4, 5, 9: Hoeffding ranges far above the bounds, or bounds above the range)
and Theorem 8's lower bound for the algorithms whose noise-free copy it passes (all but Algorithm 3).
"""

from __future__ import annotations

from typing import Any

__all__ = ["MUABG23_ROWS"]

_SP = "tests/muabg23/test_muabg23_spider.py::"
_PR = "tests/muabg23/test_muabg23_proximal.py::"
_AD = "tests/muabg23/test_muabg23_adaptive.py::"
_WB = "tests/muabg23/test_muabg23_white_box.py::"
_EM = "tests/muabg23/test_muabg23_em.py::"
_LB = "tests/muabg23/test_muabg23_lower_bound.py::"
_CA = "tests/muabg23/test_muabg23_catches.py::"
_RATE = ("uninformative: a rate check whose Hoeffding range at the quick budget's runs makes its detectable excess "
         "exceed every bound of its grid (a true mean of twice the bound passes; checks.power labels the record "
         "from its own numbers)")

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
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_count", bug="kl_spider_extra_difference_step",
         test=_CA + "test_kl_spider_count_refutes_extra_step",
         note="kl_spider_hp_checks (the suite's code) on the copy with one more difference release per round: its "
              "published count n·(K + Σ(T_k + 1)) ≠ the schedule's n·(K + ΣT_k) on every run (exact)"),
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_theorem_1_whp", bug="kl_spider_returns_start",
         test=_CA + "test_theorem_1_whp_refutes_returning_the_start",
         note="kl_spider_hp_checks (the suite's 6 runs at n = 1000) on the copy that returns w_0: excess ≥ 0.08 > "
              "Φ̂_K = 0.062 on every run, binomial p = 0.05⁶ = 1.6e-8 (miss probability 0)"),
    dict(entry=r"muabg23\.kl_spider", key="kl_spider_theorem_1_(rate|rate_kappa_1_5)", bug=None,
         test=_CA + "test_kl_spider_rate_checks_are_uninformative_at_quick",
         note=_RATE + "; here a range top of 1601 (κ = 2) and 1.4e5 (κ = 3/2) at 2 runs per point against bounds "
              "≤ 0.062"),
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
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_mutants_refuted", bug="noisy_gd_one_step_more",
         test=_PR + "test_algorithm_4_planted_bugs_refuted_by_the_same_check",
         note="control — the exact worst-pair ρ refutes the planted copy with one step more (ρT/(T − 1) > ρ) and "
              "the measured noise the paper-accounting copy; the test shows both refutations"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_printed_privacy", bug="noisy_gd_one_step_more",
         test=_CA + "test_noisy_gd_checks_refute_one_step_more",
         note="noisy_gd_checks (the suite's code) on the one-step-more copy at the printed calibration: exact ρ = "
              "ρ/2 > its claim (T − 1)ρ/(2T), and not < ρ/2 (exact)"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_count", bug="noisy_gd_one_step_more",
         test=_CA + "test_noisy_gd_checks_refute_one_step_more",
         note="noisy_gd_checks (the suite's code) on the one-step-more copy: T·n gradients reported against the "
              "schedule's (T − 1)·n (exact)"),
    dict(entry=r"muabg23\.noisy_gd", key="noisy_gd_theorem_9_rate", bug=None,
         test=_CA + "test_noisy_gd_rate_is_uninformative_at_quick",
         note=_RATE + "; here the range [0, 1] at 4 runs per point: detectable excess 0.975 > largest bound 0.27"),
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
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_exact_privacy", bug="proximal_point_one_call_more",
         test=_CA + "test_proximal_point_checks_refute_one_call_more",
         note="proximal_point_checks (the suite's code) on the copy whose outer loop makes T + 1 calls: exact "
              "worst-pair ρ(T + 1)/T > ρ (exact)"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_schedule", bug="proximal_point_data_dependent_f0",
         test=_PR + "test_algorithm_2_exact_rho_and_schedule_from_public_inputs",
         note="control — states that the data-dependent-F₀ copy's T differs on (S, S3), beside T equal on S, S2 "
              "and the public schedule; the test shows the copy's schedules differ"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_count", bug="proximal_point_one_call_more",
         test=_CA + "test_proximal_point_checks_refute_one_call_more",
         note="proximal_point_checks (the suite's code) on the one-call-more copy: (T + 1)(T₄ − 1)n gradients "
              "reported against T(T₄ − 1)n (exact)"),
    dict(entry=r"muabg23\.proximal_point", key="proximal_point_theorem_2_rate", bug=None,
         test=_CA + "test_proximal_point_rate_cannot_fail_at_quick",
         note="uninformative: cannot fail at the quick grid (n = 8, 16): every bound (Theorem 2 + βF₀, ≥ 4.1) is "
              "at least the cap 1 of the capped excess (checks.power labels the record from its own numbers)"),
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
         test="tests/muabg23/test_muabg23_adaptive_white_box.py::test_white_box_refutes_paper_units",
         note="the suite's white-box audit of the noisy steps refutes the paper-units copy (≈ 2ρ)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_measured_noise_em",
         bug="adaptive_gd_em_draws_sigma_over_sqrt2", test=_EM + "test_em_measured_noise_refutes_sigma_over_sqrt2",
         note="the measured-noise check of Algorithm 3's releases on the σ/√2 copy of the Theorem 5 variant: p < "
              "1e-7 (miss ≤ 1e-6, exact)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_em_selection", bug="adaptive_gd_em_temperature_without_2",
         test=_EM + "test_em_measured_selection_refutes_temperature_without_2",
         note="em_selection_check (the suite's two-sided exact binomial test) refutes the temperature without its "
              "factor 2 (miss ≤ 1e-6 at 700 runs, exact)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_filter_total_em", bug="adaptive_gd_paper_units",
         test=_CA + "test_privacy_checks_refute_paper_units_and_printed_claim",
         note="privacy_checks (the suite's code; the Theorem 5 entry's filter check runs Algorithm 3, its first "
              "part) on the paper-units copy: exact cost 1.5ρ > ρ (exact)"),
    dict(entry=r"muabg23\.adaptive_gd(_em)?", key="adaptive_printed_total(_em)?",
         bug="adaptive_gd_printed_claiming_rho", test=_CA + "test_privacy_checks_refute_paper_units_and_printed_claim",
         note="privacy_checks (the suite's code, with and without the Theorem 5 keys) on the printed calibration "
              "claiming ρ: exact cost / claim = 1.002 > 1 (its half-cost charges exceed the guard ρ/2; exact)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_em_bounded_range", bug="em_log_probabilities_without_2",
         test=_CA + "test_em_bounded_range_refutes_scores_without_2",
         note="em_bounded_range_check (the suite's code) on the scores without the factor 2 (the temperature "
              "copy's): log-ratio range 2ε > ε (exact)"),
    dict(entry=r"muabg23\.adaptive_gd_em", key="adaptive_em_worst_pair_curve", bug="adaptive_gd_em_noise_over_1e6",
         test=_CA + "test_em_curve_audit_refutes_noise_over_1e6",
         note="the suite's black-box curve audit of w_{t*} refutes the copy with Algorithm 3's noises / 10⁶ at "
              "2,000 runs per side (the standard budget's; miss ≤ 1e-6 derived in the campaign-marked test); at the "
              "quick budget's 300 it does not"),
    dict(entry=r"muabg23\.adaptive_gd(_em)?", key=r"adaptive_(theorem_4_rate|em_theorem_5_rate)", bug=None,
         test=_AD + "test_suite_tasks_at_quick_budget",
         note=_RATE + "; here the constant ĉ is calibrated on pilot runs and 10 runs per point give a detectable "
              "excess of 1.27 (range [0, 2]) and 0.63 (range [0, 1]) against largest bounds 0.020 and 0.35"),
    # -- Theorem 8's lower bound, every entry ----------------------------------------------------------------------
    dict(entry=r"muabg23\.adaptive_gd", key="adaptive_gd_theorem8", bug="adaptive_gd_noise_free",
         test=_CA + "test_theorem8_refutes_noise_free_adaptive_gd",
         note="the suite's Theorem 8 task (200 runs per dataset) on Algorithm 3 with its noise dropped: excess 0 "
              "on both datasets, p = e^{−25} = 1.4e-11 (deterministic, miss probability 0)"),
    dict(entry=r"muabg23\..*", key=r".*_theorem8", bug=None,
         test=_CA + "test_theorem8_is_uninformative_where_the_noise_free_copy_passes",
         note="uninformative: at the quick budget's 200 runs per dataset the Hoeffding half-width is 0.743·¼r^κ, "
              "and these algorithms with their noise removed (ε = ∞) have excess ≥ 0.395·¼r^κ (KL Spider's schedule "
              "cannot even reach a/2: 1.65·¼r^κ), so the check passes them surely; the task states it "
              "(muabg23_lower_bound.noise_free_reason, from the check's numbers)"),
)
