"""Rows of the check registry (``mutants.catches``) for Asi, Liu & Tian (2024): the suite checks and audits
``dpsco verify`` records for Clipped-DP-SGD (Algorithm 1), Aggregate-ERM (Algorithm 3), HT-SCO (Theorem 1), its
strongly convex wrapper (Corollary 3), KnownLipReduction (Algorithm 4), one-pass clipped SGD (Algorithm 5), the
bounded Laplace mechanism (Lemma 9), SVT (Algorithm 6), Localized-Clipped-DP-SGD (Algorithm 7), one-pass
Clipped-DP-SGD for GLMs (Algorithm 8) and HighProb-SCO (Theorem 5), each with the planted bug that makes it fail
and the test that shows it.

Caught: the exact checks (ρ of coupled shifts, exact Gaussian and bounded-Laplace curves, the ⊥ channel, the
published record, the gradient count of Algorithm 5) fail on the copies that change what they compute; the
measured-noise checks (``alt24_noise.noise_task``: the harness's replayed residuals, one-sided χ²) fail on every
σ/√2 copy; the black-box audits with ⊥ as an outcome and the white-box audits refute their copies.  Not caught by
any planted bug of ``CORPUS``: the utility and success-probability checks; the gradient counts other than
Algorithm 5's; the disjointness checks of Theorem 1 and Corollary 3 (Theorem 1's counts the blocks of the public
schedule, ``theorem_1_blocks``, which the overlapping-blocks copy does not change — that copy is caught by its
coupled runs' exact ρ); the audits no test runs a copy through; the exact-curve grid points where a copy stays
within the claim (``tests/test_alt24_svt.py``'s grid tests list them).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ALT24_ROWS"]

_C = "tests/test_alt24_clipped_sgd.py::"
_LOC = "tests/test_alt24_localization.py::"
_K = "tests/test_alt24_known_lipschitz.py::"
_O = "tests/test_alt24_one_pass.py::"
_S = "tests/test_alt24_svt.py::"
_L = "tests/test_alt24_localized.py::"
_MEASURED = "tests/test_alt24_measured_noise.py::test_measured_noise_catches_every_sigma_over_sqrt2_bug"
_UTILITY = ("no planted bug: a utility or success-probability claim (Hoeffding / exact binomial); every planted bug "
            "of the paper is a privacy bug, which no test runs through it")
_COUNT = "no planted bug: an exact gradient count; no test runs a planted copy of this entry through it"
_NO_AUDIT_TEST = "no planted bug: no test runs a planted copy of this entry through this audit"

#: entry (short name) → its σ/√2 copy, caught by the entry's "<short name>_measured_noise" check
_SIGMA_COPIES = {
    "clipped_dp_sgd": "clipped_dp_sgd_draws_sigma_over_sqrt2",
    "aggregate_erm": "aggregate_erm_draws_sigma_over_sqrt2",
    "ht_sco": "ht_sco_draws_sigma_over_sqrt2",
    "sc_wrapper": "sc_sco_draws_sigma_over_sqrt2",
    "known_lip": "known_lip_reduction_draws_sigma_over_sqrt2",
    "onepass_dp_sgd_glm": "onepass_clipped_dp_sgd_draws_sigma_over_sqrt2",
    "localized_dp_sgd": "localized_clipped_dp_sgd_draws_sigma_over_sqrt2",
}

ALT24_ROWS: tuple[dict[str, Any], ...] = (
    # -- measured noise of every Gaussian entry (alt24_noise.noise_task) -------------------------------------
    *(dict(entry=rf"alt24\.{short}", key=f"{short}_measured_noise", bug=bug, test=_MEASURED,
           note="measured_noise_check of the harness's replayed noise (what noise_task runs) fails on the σ/√2 copy "
                "(p < 1e-7; miss probability ≤ 1e-30 at ≥ 1,000 residuals, exact)")
      for short, bug in _SIGMA_COPIES.items()),
    # -- Clipped-DP-SGD (Algorithm 1, Corollary 1) -------------------------------------------------------------
    dict(entry=r"alt24\.clipped_dp_sgd", key="alg1_exact_rho", bug="clipped_dp_sgd_regulariser_clipped",
         test=_C + "test_mutant_regulariser_clipped_exact",
         note="the check's computation on the copy: coupled runs' noisy-gradient shift 2(C + λr)/n, ρ = shift²/(2σ²) "
              "with the public σ, = (1 + λr/C)²ρ > ρ (exact)"),
    dict(entry=r"alt24\.clipped_dp_sgd", key="alg1_measured_noise", bug="clipped_dp_sgd_sensitivity_c_over_n",
         test=_C + "test_noise_scale_matches_claim_and_mutants_refuted",
         note="the one-sided χ² test of the replayed noise against Corollary 1's σ (the check's statistic, at its "
              "1e-7 quantile) fails on the σ/2 copy (miss ≤ 1e-6, exact)"),
    dict(entry=r"alt24\.clipped_dp_sgd", key="alg1_white_box", bug="clipped_dp_sgd_sensitivity_c_over_n",
         test=_C + "test_campaign_white_box_soundness_and_power",
         note="white_box_audit on the suite's design (one-sided canary 2C e₁, n = 10, d = 2, ρ = 0.5) refutes the "
              "σ/2 copy in ≥ 30 of 40 audits (measured 40/40; campaign-marked, an empirical guard)"),
    dict(entry=r"alt24\.clipped_dp_sgd", key="alg1_count", bug=None, test=_C + "test_gradient_count_is_n_times_T",
         note=_COUNT),
    dict(entry=r"alt24\.clipped_dp_sgd", key="prop1_bound|cor1_success", bug=None,
         test=_C + "test_proposition_1_bound_linear_loss", note=_UTILITY),
    # -- Aggregate-ERM (Algorithm 3, Corollary 2) ---------------------------------------------------------------
    dict(entry=r"alt24\.aggregate_erm", key="alg3_white_box", bug=None, test=_LOC + "test_suite_tasks_quick_budget",
         note=_NO_AUDIT_TEST + " (its listed bug, the sensitivity-C/n copy, is Algorithm 1's)"),
    dict(entry=r"alt24\.aggregate_erm", key="alg3_count", bug=None, test=_LOC + "test_suite_tasks_quick_budget",
         note=_COUNT),
    dict(entry=r"alt24\.aggregate_erm", key="cor2_success", bug=None,
         test=_C + "test_corollary_2_success_probability", note=_UTILITY),
    # -- HT-SCO (Theorem 1), its strongly convex wrapper (Corollary 3), HighProb-SCO (Theorem 5) ----------------
    dict(entry=r"alt24\.ht_sco", key="thm1_disjoint", bug=None, test=_LOC + "test_overlapping_blocks_mutant_refuted",
         note="no planted bug: the check counts the blocks of the public schedule (theorem_1_blocks), which the "
              "overlapping-blocks copy does not change; the test catches that copy by its coupled runs' exact ρ "
              "(3ρ), a computation the suite does not run"),
    dict(entry=r"alt24\.sc_wrapper", key="cor3_disjoint", bug=None,
         test=_LOC + "test_corollary_3_epochs_and_disjoint_batches",
         note="no planted bug: the epochs' record ranges of the run; the entry's overlapping-blocks bug overlaps "
              "HT-SCO's blocks inside an epoch, not the epochs"),
    dict(entry=r"alt24\.(ht_sco|sc_wrapper)", key="ht_sco_black_box|ht_sco_randhie|sc_black_box", bug=None,
         test=_LOC + "test_suite_tasks_quick_budget", note=_NO_AUDIT_TEST),
    dict(entry=r"alt24\.(ht_sco|sc_wrapper|highprob_sco)", key="thm1_count|cor3_count|thm5_count", bug=None,
         test=_LOC + "test_ht_sco_uses_each_record_in_one_call_and_counts_exactly", note=_COUNT),
    dict(entry=r"alt24\.(ht_sco|highprob_sco)", key="thm1_proof_bound|thm1_rate_n|thm5_proof_bound", bug=None,
         test=_LOC + "test_population_localize_meets_corrected_proposition_2", note=_UTILITY),
    # -- KnownLipReduction (Algorithm 4 + A_Lip) ----------------------------------------------------------------
    dict(entry=r"alt24\.known_lip", key="known_lip_exact_worst_pair", bug="known_lip_sensitivity_c_over_n",
         test=_K + "test_exact_privacy_on_the_worst_pair_and_the_add_remove_sensitivity_mutant",
         note="the exact χ² law of the output's sample variance with the coupled shift (the check's computation) "
              "on the worst pair bounds the copy's μ above the claimed √(2ρ) (the χ² bound fails w.p. 1e-7)"),
    dict(entry=r"alt24\.known_lip", key="known_lip_worst_pair|known_lip_randhie", bug=None,
         test=_K + "test_black_box_audits_refute_dropping_and_a_data_dependent_threshold",
         note="no planted bug: the drop and data-dependent-clip copies are refuted by a threshold audit on pairs of "
              "their own (the test), not by these curve audits on the worst and randhie pairs"),
    dict(entry=r"alt24\.known_lip", key="known_lip_count", bug=None, test=_K + "test_replace_not_drop_and_exact_counts",
         note=_COUNT),
    dict(entry=r"alt24\.known_lip", key="known_lip_theorem_2_rate", bug=None,
         test=_K + "test_suite_tasks_at_the_quick_budget", note=_UTILITY),
    # -- one-pass clipped SGD (Algorithm 5, not private) ----------------------------------------------------------
    dict(entry=r"alt24\.onepass_sgd", key="onepass_sgd_count", bug="onepass_sgd_two_passes",
         test=_O + "test_two_pass_planted_bug_is_caught_by_the_count",
         note="the two-pass copy reports 2T gradient evaluations where the check requires exactly T"),
    dict(entry=r"alt24\.onepass_sgd", key="onepass_sgd_lemma_8", bug=None, test=_O + "test_lemma_8_terms_by_hand",
         note=_UTILITY),
    # -- bounded Laplace (Lemma 9) --------------------------------------------------------------------------------
    dict(entry=r"alt24\.blap", key=r"blap_exact_e0\.1_d.*|blap_exact_e0\.5_d(1e-06|0\.001)",
         bug="bounded_laplace_tau_without_epsilon", test=_S + "test_blap_exact_grid_points_the_short_tau_copy_fails",
         note="the exact δ(ε) at the copy's τ = Δ log(4/δ) exceeds δ at these grid points (deterministic)"),
    dict(entry=r"alt24\.blap", key=r"blap_exact_.*", bug=None,
         test=_S + "test_blap_exact_grid_points_the_short_tau_copy_fails",
         note="no planted bug: at ε = 0.9 and at (0.5, 0.1) the short-τ copy keeps δ(ε) ≤ δ (the test), and the "
              "entry lists no other bug"),
    dict(entry=r"alt24\.blap", key="blap_black_box", bug="bounded_laplace_tau_without_epsilon",
         test=_S + "test_blap_audit_passes_and_tau_bug_is_refuted",
         note="the suite's fixed-event audit (_fixed_event_audit, blap_pair, blap_event) refutes the short-τ copy "
              "(miss ≤ 1e-6, exact binomial)"),
    dict(entry=r"alt24\.blap", key="blap_envelope", bug=None, test=_S + "test_blap_envelope_catches_plain_laplace",
         note="no planted bug: the envelope fails on plain Laplace noise (the test), which is not a planted bug of "
              "this entry (sparse_vector_plain_laplace is SVT's); the short-τ copy stays inside its own τ"),
    # -- SVT (Algorithm 6) ------------------------------------------------------------------------------------------
    dict(entry=r"alt24\.svt", key=r"svt_exact_e.*_c.*_s[23]", bug="sparse_vector_without_query_noise",
         test=_S + "test_svt_exact_grid_points_the_no_query_noise_copy_fails",
         note="the exact δ(ε) of the copy's answer law exceeds δ on the non-monotone streams 2, 3 at every (ε, δ, c) "
              "(deterministic)"),
    dict(entry=r"alt24\.svt", key=r"svt_exact_.*", bug=None,
         test=_S + "test_svt_exact_grid_points_the_no_query_noise_copy_fails",
         note="no planted bug: on streams 0, 1, 4 the no-query-noise copy keeps δ(ε) ≤ δ (the test), and the "
              "plain-Laplace copy is private on every stream (tests/test_alt24_svt.py)"),
    dict(entry=r"alt24\.svt", key="svt_black_box", bug="sparse_vector_without_query_noise",
         test=_S + "test_no_query_noise_bug_refuted_exactly_and_by_the_audit",
         note="the suite's fixed-event audit (svt_pair, the event ⊥⊤) refutes the copy (miss ≤ 1e-6, exact "
              "binomial)"),
    dict(entry=r"alt24\.svt", key="svt_envelope", bug="sparse_vector_plain_laplace",
         test=_S + "test_plain_laplace_svt_is_private_but_breaks_the_envelope",
         note="the envelope |z| ≤ τ, |ξ| ≤ 2τ on the recorded draws fails on plain Laplace noise (miss < 1e-17)"),
    dict(entry=r"alt24\.svt", key="svt_halting", bug=None, test=_S + "test_sparse_vector_halts_after_c_tops",
         note="no planted bug: no planted copy answers ⊤ more than c times"),
    # -- Localized-Clipped-DP-SGD (Algorithm 7) ---------------------------------------------------------------------
    dict(entry=r"alt24\.localized_dp_sgd", key="published_record", bug="localized_dp_sgd_publishes_performed_count",
         test="tests/test_alt24_published_records.py::test_publishing_the_performed_count_is_refuted",
         note="on the leak pair at the seeds with ĉ_1 ∈ (c, c + 1] (published_record_check's design) the copy "
              "publishes 33 on D and 127 on D′: the published fields differ"),
    dict(entry=r"alt24\.localized_dp_sgd", key="exact_bottom_channel", bug="localized_dp_sgd_retry_on_bottom",
         test=_L + "test_retry_on_bottom_mutant_refuted_exactly",
         note="bottom_channel_delta (the check's computation) on the ⊥ pair at count 48 exceeds δ for the retried "
              "release (exact)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="exact_bottom_channel_disjoint_phases",
         bug="localized_dp_sgd_overlapping_phases", test=_L + "test_overlapping_phases_mutant_refuted_exactly",
         note="clip_counts with the printed index and bottom_channel_delta (the check's computation, n = 4096, "
              "m = 5) exceed δ = 0.01 for the overlapping-phases copy (exact)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="audit_output_shift_pair", bug="localized_dp_sgd_data_dependent_clip",
         test=_L + "test_audit_output_shift_pair_and_data_dependent_clip_mutant",
         note="auditing.audit.audit on the suite's output-shift pair refutes the copy (the test's statistic is "
              "'norm', the suite's RecordNorm: |⊥, point, count|)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="audit_bottom_pair", bug="localized_dp_sgd_fixed_cutoff",
         test=_L + "test_audit_bottom_pair_and_fixed_cutoff_mutant",
         note="auditing.audit.audit on the suite's ⊥ pair (count c vs c − 1) refutes the fixed cutoff (the test's "
              "statistic is the ⊥ coordinate, the suite's BottomCount: ⊥·count)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="localized_white_box", bug="localized_dp_sgd_sigma_over_100",
         test="tests/test_alt24_localized_white_box.py::test_white_box_audit_refutes_sigma_over_100",
         note="localized_white_box_audit (the suite's audit) refutes σ_i/100 (miss ≤ 1e-6, exact)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="gradient_count", bug=None,
         test=_L + "test_gradient_count_and_linear_beta_zero_closed_form",
         note="no planted bug: the retry-on-⊥ copy performs more gradients only on runs that halt, which Theorem 3's "
              "instance makes rare (P(⊥) ≤ I/n²); no test runs a copy through this check"),
    dict(entry=r"alt24\.localized_dp_sgd",
         key="theorem_3_bound|theorem_3_rate|bottom_rate|lemma_12_conditions|lemma_13_conditions", bug=None,
         test=_L + "test_theorem_3_proof_bound_by_hand", note=_UTILITY),
    # -- one-pass Clipped-DP-SGD for GLMs (Algorithm 8) ---------------------------------------------------------
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_exact_worst_pair", bug="onepass_dp_sgd_half_sigma",
         test=_O + "test_algorithm_8_exact_privacy_on_the_worst_pair_and_the_half_sigma_mutant",
         note="the exact χ² law of the sample variance with the coupled shift (the check's computation) on the worst "
              "pair bounds the σ_i/2 copy's μ above √(ρ/2) (miss < 1e-7)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_white_box", bug="onepass_dp_sgd_half_sigma_white_box",
         test="tests/test_alt24_white_box.py::test_white_box_audit_refutes_half_sigma",
         note="onepass_dp_white_box_audit (the suite's audit) refutes σ_i/2 (miss 3.1e-7, exact)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_worst_pair", bug=None,
         test="tests/test_alt24_white_box.py::test_suite_audit_tasks_quick",
         note=_NO_AUDIT_TEST + " (the σ_i/2 copies are caught by the exact check and the white-box audit)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_count", bug=None,
         test=_O + "test_algorithm_8_count_claim_and_output_in_domain", note=_COUNT),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_stability", bug=None,
         test=_O + "test_theorem_4_stability_of_algorithm_5_on_glm_neighbours",
         note="no planted bug: a deterministic check of Theorem 4's privacy step on coupled neighbours; no test runs "
              "a copy through it"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_theorem_4", bug=None,
         test="tests/test_alt24_theorems.py::test_theorem_4_coefficient_golden_and_from_the_proof", note=_UTILITY),
)
