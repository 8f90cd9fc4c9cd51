"""Rows of the check registry (``mutants.catches``) for Asi, Liu & Tian (2024): the suite checks and audits
``dpsco verify`` records for Clipped-DP-SGD (Algorithm 1), Aggregate-ERM (Algorithm 3), HT-SCO (Theorem 1), its
strongly convex wrapper (Corollary 3), KnownLipReduction (Algorithm 4), one-pass clipped SGD (Algorithm 5), the
bounded Laplace mechanism (Lemma 9), SVT (Algorithm 6), Localized-Clipped-DP-SGD (Algorithm 7), one-pass
Clipped-DP-SGD for GLMs (Algorithm 8) and HighProb-SCO (Theorem 5), each with the planted bug that makes it fail
and the test that shows it.

Caught: the exact checks (ρ of coupled shifts, exact Gaussian and bounded-Laplace curves, the ⊥ channel, the
published record, every gradient count, the disjointness of blocks and epochs, Lemma 13's conditions, SVT's halting)
fail on the copies that change what they compute; the measured-noise checks (``alt24_noise.noise_task``: the
harness's replayed residuals, one-sided χ²) fail on every σ/√2 copy; the black-box and white-box audits refute
their copies (the noise-dropped copies deterministically).  ``tests/alt24/test_alt24_catches.py`` runs the suite's own
task functions on the copies added for this registry (``mutants.alt24.clipped``, ``alt24_known_lip``,
``alt24_localized``, ``alt24_svt``).  Uninformative at the quick campaign's inputs (labelled by the campaign,
``checks.power``): the utility bounds and success probabilities whose bound or radius exceeds the largest value
the quantity can take, the rate checks that cannot see twice their bound, the ⊥ rate, Lemma 12's conditions
(Algorithm 7 refuses a violation before reading a record), Corollary 3's loose count cap, Algorithm 8's stability
ratio, SVT's exact check on monotone and single-query pairs, and the Corollary 3 wrapper's audit, whose pair puts
every epoch in HT-SCO's trivial regime (a constant release).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ALT24_ROWS"]

_C = "tests/alt24/test_alt24_clipped_sgd.py::"
_K = "tests/alt24/test_alt24_known_lipschitz.py::"
_O = "tests/alt24/test_alt24_one_pass.py::"
_S = "tests/alt24/test_alt24_svt.py::"
_L = "tests/alt24/test_alt24_localized.py::"
_MEASURED = "tests/alt24/test_alt24_measured_noise.py::test_measured_noise_catches_every_sigma_over_sqrt2_bug"
_R = "tests/alt24/test_alt24_catches.py::"

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
    dict(entry=r"alt24\.clipped_dp_sgd", key="alg1_count", bug="corollary_1_solver_one_step_too_many",
         test=_R + "test_alg1_count_fails_on_one_step_too_many",
         note="alg1_exact (the suite's task) on Corollary 1's solver with T + 1 steps: n(T + 1) ≠ n·T gradient "
              "evaluations (exact)"),
    dict(entry=r"alt24\.clipped_dp_sgd", key="prop1_bound|cor1_success", bug=None,
         test=_R + "test_prop1_and_cor1_cannot_fail_at_the_campaigns_inputs",
         note="uninformative: Proposition 1's bound (18.4) exceeds the largest gap of its range (3.83), and "
              "Corollary 1's radius (C_erm = √640: 39.5) exceeds X's diameter 4, so no run can fail either"),
    # -- Aggregate-ERM (Algorithm 3, Corollary 2) ---------------------------------------------------------------
    dict(entry=r"alt24\.aggregate_erm", key="alg3_white_box", bug="aggregate_erm_sigma_from_all_records",
         test=_R + "test_alg3_white_box_refutes_sigma_from_all_records",
         note="alg3_audit (500 white-box runs per side) refutes blocks calibrated with N = J·n records (σ/3, 9ρ per "
              "block) at p ≤ 4e-10 in 11 of 12 seeds measured; the pilot-placed event misses once: miss probability "
              "not derived"),
    dict(entry=r"alt24\.aggregate_erm", key="alg3_count", bug="aggregate_erm_skips_last_block",
         test=_R + "test_alg3_count_fails_when_the_last_block_is_skipped",
         note="alg3_bounds on Algorithm 3 skipping block J: (J − 1)·n·T ≠ J·n·T gradient evaluations (exact)"),
    dict(entry=r"alt24\.aggregate_erm", key="cor2_success", bug=None,
         test=_R + "test_alg3_count_fails_when_the_last_block_is_skipped",
         note="uninformative: Corollary 2's radius (C_rp = 46: 38.0) exceeds the diameter 6 of the domain that holds "
              "the output and x*, so every run succeeds"),
    # -- HT-SCO (Theorem 1), its strongly convex wrapper (Corollary 3), HighProb-SCO (Theorem 5) ----------------
    dict(entry=r"alt24\.ht_sco", key="thm1_disjoint", bug="ht_sco_overlapping_blocks",
         test=_R + "test_thm1_disjoint_fails_on_overlapping_blocks",
         note="ht_bounds reads the blocks the run used (published): the overlapping copy puts the first record of "
              "each portion in all I phases (exact)"),
    dict(entry=r"alt24\.sc_wrapper", key="cor3_disjoint", bug="sc_sco_reuses_first_batch",
         test=_R + "test_cor3_disjoint_fails_when_every_epoch_reuses_the_first_batch",
         note="sc_bounds on the wrapper reading S[0:n'] in every epoch: the published record ranges overlap (exact)"),
    dict(entry=r"alt24\.ht_sco", key="ht_sco_black_box|ht_sco_randhie", bug="ht_sco_noise_dropped",
         test=_R + "test_ht_sco_black_box_audits_refute_the_noise_dropped_copy",
         note="ht_audit at the campaign's runs refutes HT-SCO without noise deterministically (miss 0): p = 1.9e-11 on "
              "the worst pair; on randhie p = 6.2e-6, the smallest its 75 runs per side allow (campaign-marked)"),
    dict(entry=r"alt24\.sc_wrapper", key="sc_black_box", bug=None,
         test=_R + "test_sc_black_box_audits_a_constant_release_at_the_campaigns_inputs",
         note="uninformative: at the audit's n = 48 every epoch (12 records < 2·J(1)) is in HT-SCO's trivial regime, "
              "so the audited release is X's centre on both datasets (the record's uninformative_at_inputs)"),
    dict(entry=r"alt24\.ht_sco", key="thm1_count", bug="ht_sco_skips_last_phase",
         test=_R + "test_thm1_count_fails_when_the_last_phase_is_skipped",
         note="ht_bounds on HT-SCO stopping one phase early: Σ_{i<I} ≠ Σ_{i≤I} J·m_i·T_i (exact)"),
    dict(entry=r"alt24\.sc_wrapper", key="cor3_count", bug=None,
         test=_R + "test_cor3_disjoint_fails_when_every_epoch_reuses_the_first_batch",
         note="uninformative: the cap max(n², n³ρ/d) = 3.4e7 is above twice the largest count, so a copy doing twice "
              "the work passes (computed per run in sc_bounds)"),
    dict(entry=r"alt24\.highprob_sco", key="thm5_count", bug="highprob_sco_skips_last_phase",
         test=_R + "test_thm5_count_fails_when_the_last_phase_is_skipped",
         note="highprob_bounds on HighProb-SCO stopping one phase early: J·Σ_{i<I} T_i ≠ J·Σ_{i≤I} T_i (exact)"),
    dict(entry=r"alt24\.(ht_sco|highprob_sco)", key="thm1_proof_bound|thm1_rate_n|thm5_proof_bound", bug=None,
         test=_R + "test_proof_bounds_cannot_fail_at_the_campaigns_inputs",
         note="uninformative: Proposition 2's bound at Theorem 1's (7.0e3) and Theorem 5's (4.2e2) parameters exceeds "
              "the largest excess 2R‖μ‖ = 1.34 of the linear instance at every n, so no run can fail"),
    # -- KnownLipReduction (Algorithm 4 + A_Lip) ----------------------------------------------------------------
    dict(entry=r"alt24\.known_lip", key="known_lip_exact_worst_pair", bug="known_lip_sensitivity_c_over_n",
         test=_K + "test_exact_privacy_on_the_worst_pair_and_the_add_remove_sensitivity_mutant",
         note="the exact χ² law of the output's sample variance with the coupled shift (the check's computation) "
              "on the worst pair bounds the copy's μ above the claimed √(2ρ) (the χ² bound fails w.p. 1e-7)"),
    dict(entry=r"alt24\.known_lip", key="known_lip_worst_pair|known_lip_randhie",
         bug="known_lip_reduction_noise_dropped", test=_R + "test_known_lip_audits_refute_the_noise_dropped_copy",
         note="known_lip_audit refutes Algorithm 4 without noise on both pairs deterministically (miss 0; p ≤ 1e-6 "
              "already at 100 runs per side; campaign-marked at the campaign's 300 / 150)"),
    dict(entry=r"alt24\.known_lip", key="known_lip_count", bug="known_lip_phase_slice_off_by_one",
         test=_R + "test_known_lip_count_fails_on_phase_slices_off_by_one",
         note="known_lip_bounds on phases sliced S[start:stop − 1]: real + dummy = Σ(n_i − 1)T_i ≠ Σ n_iT_i (exact)"),
    dict(entry=r"alt24\.known_lip", key="known_lip_theorem_2_rate", bug=None,
         test=_R + "test_rate_checks_cannot_detect_twice_their_bounds_at_the_campaigns_inputs",
         note="uninformative: the bound is 3 × the pilot's excess scaled by rate(n)/rate(32) ≥ 1.29 × the pilot on "
              "the grid, so an excess that never decreases passes (stated by the task)"),
    # -- one-pass clipped SGD (Algorithm 5, not private) ----------------------------------------------------------
    dict(entry=r"alt24\.onepass_sgd", key="onepass_sgd_count", bug="onepass_sgd_two_passes",
         test=_O + "test_two_pass_planted_bug_is_caught_by_the_count",
         note="the two-pass copy reports 2T gradient evaluations where the check requires exactly T"),
    dict(entry=r"alt24\.onepass_sgd", key="onepass_sgd_lemma_8", bug=None,
         test=_R + "test_rate_checks_cannot_detect_twice_their_bounds_at_the_campaigns_inputs",
         note="uninformative: at 8 runs on [0, 2] Hoeffding detects only an excess of 3.72 above the bound 0.504"),
    # -- bounded Laplace (Lemma 9) --------------------------------------------------------------------------------
    dict(entry=r"alt24\.blap", key=r"blap_exact_e0\.1_d.*|blap_exact_e0\.5_d(1e-06|0\.001)",
         bug="bounded_laplace_tau_without_epsilon", test=_S + "test_blap_exact_grid_points_the_short_tau_copy_fails",
         note="the exact δ(ε) at the copy's τ = Δ log(4/δ) exceeds δ at these grid points (deterministic)"),
    dict(entry=r"alt24\.blap", key=r"blap_exact_.*", bug="bounded_laplace_tau_without_log",
         test=_R + "test_blap_exact_fails_on_tau_without_log",
         note="blap_exact with the copy's τ = Δ/ε: the exact δ(ε) exceeds δ at ε = 0.9 and at (0.5, 0.1) "
              "(deterministic)"),
    dict(entry=r"alt24\.blap", key="blap_black_box", bug="bounded_laplace_tau_without_epsilon",
         test=_S + "test_blap_audit_passes_and_tau_bug_is_refuted",
         note="the suite's fixed-event audit (_fixed_event_audit, blap_pair, blap_event) refutes the short-τ copy "
              "(miss ≤ 1e-6, exact binomial)"),
    dict(entry=r"alt24\.blap", key="blap_envelope", bug="bounded_laplace_doubled_parameters",
         test=_R + "test_blap_envelope_fails_on_doubled_parameters",
         note="blap_envelope (1,000 draws) on BLap(2R, 2τ): a draw beyond τ has probability 0.0153, miss "
              "(1 − 0.0153)^1000 < 1e-6 (exact)"),
    # -- SVT (Algorithm 6) ------------------------------------------------------------------------------------------
    dict(entry=r"alt24\.svt", key=r"svt_exact_e.*_c.*_s[23]", bug="sparse_vector_without_query_noise",
         test=_S + "test_svt_exact_grid_points_the_no_query_noise_copy_fails",
         note="the exact δ(ε) of the copy's answer law exceeds δ on the non-monotone streams 2, 3 at every (ε, δ, c) "
              "(deterministic)"),
    dict(entry=r"alt24\.svt", key=r"svt_exact_.*", bug=None,
         test=_R + "test_svt_exact_on_monotone_and_single_query_pairs_cannot_fail_on_the_noise_bugs",
         note="uninformative: on the monotone pairs 0, 1 and the single query 4 δ(ε) stays ≤ δ without the query noise "
              "and at the textbook scale R = Δ/ε, both of which the mixed pairs refute (stated per check)"),
    dict(entry=r"alt24\.svt", key="svt_black_box", bug="sparse_vector_without_query_noise",
         test=_S + "test_no_query_noise_bug_refuted_exactly_and_by_the_audit",
         note="the suite's fixed-event audit (svt_pair, the event ⊥⊤) refutes the copy (miss ≤ 1e-6, exact "
              "binomial)"),
    dict(entry=r"alt24\.svt", key="svt_envelope", bug="sparse_vector_plain_laplace",
         test=_S + "test_plain_laplace_svt_is_private_but_breaks_the_envelope",
         note="the envelope |z| ≤ τ, |ξ| ≤ 2τ on the recorded draws fails on plain Laplace noise (miss < 1e-17)"),
    dict(entry=r"alt24\.svt", key="svt_halting", bug="sparse_vector_halts_one_top_late",
         test=_R + "test_svt_halting_fails_on_halting_one_top_late",
         note="svt_envelope (1,000 runs on the zero stream, c = 1) on SVT halting after c + 1 tops: ⊤⊤ with "
              "probability ≥ 1/4 per run, miss ≤ (3/4)^1000 (exact bound)"),
    # -- Localized-Clipped-DP-SGD (Algorithm 7) ---------------------------------------------------------------------
    dict(entry=r"alt24\.localized_dp_sgd", key="published_record", bug="localized_dp_sgd_publishes_performed_count",
         test="tests/alt24/test_alt24_published_records.py::test_publishing_the_performed_count_is_refuted",
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
         test="tests/alt24/test_alt24_localized_white_box.py::test_white_box_audit_refutes_sigma_over_100",
         note="localized_white_box_audit (the suite's audit) refutes σ_i/100 (miss ≤ 1e-6, exact)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="gradient_count", bug="localized_dp_sgd_two_passes",
         test=_R + "test_localized_gradient_count_fails_on_two_passes",
         note="task_bounds on Algorithm 7 with two passes per phase: 2046 performed gradients > n = 1024 (exact)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="lemma_13_conditions", bug="theorem_3_parameters_printed_clip",
         test=_R + "test_lemma_13_conditions_fail_on_the_printed_clip",
         note="task_bounds with Theorem 3's printed C: n(2G_k/C)^k = c/2 > c/4 at η = η_2 (exact)"),
    dict(entry=r"alt24\.localized_dp_sgd", key="theorem_3_bound|theorem_3_rate", bug=None,
         test=_R + "test_localized_gradient_count_fails_on_two_passes",
         note="uninformative: the proof's bound (145 at n = 1024, larger on the rate grid) exceeds the largest excess "
              "2R‖m‖ = 2, so no run can fail"),
    dict(entry=r"alt24\.localized_dp_sgd", key="bottom_rate|lemma_12_conditions", bug=None,
         test=_R + "test_lemma_12_and_bottom_rate_cannot_fail_at_the_campaigns_inputs",
         note="uninformative: a ⊥ rate of twice I/n² shows a halt in 4 runs with probability < 1e-4; Algorithm 7 "
              "refuses a Lemma 12 violation before reading a record, so its runs satisfy it"),
    # -- one-pass Clipped-DP-SGD for GLMs (Algorithm 8) ---------------------------------------------------------
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_exact_worst_pair", bug="onepass_dp_sgd_half_sigma",
         test=_O + "test_algorithm_8_exact_privacy_on_the_worst_pair_and_the_half_sigma_mutant",
         note="the exact χ² law of the sample variance with the coupled shift (the check's computation) on the worst "
              "pair bounds the σ_i/2 copy's μ above √(ρ/2) (miss < 1e-7)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_white_box", bug="onepass_dp_sgd_half_sigma_white_box",
         test="tests/alt24/test_alt24_white_box.py::test_white_box_audit_refutes_half_sigma",
         note="onepass_dp_white_box_audit (the suite's audit) refutes σ_i/2 (miss 3.1e-7, exact)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_worst_pair", bug="onepass_clipped_dp_sgd_noise_dropped",
         test=_R + "test_onepass_dp_worst_pair_refutes_the_noise_dropped_copy",
         note="onepass_dp_audit's black-box curve audit refutes Algorithm 8 without noise deterministically (miss 0; "
              "p ≤ 1e-6 at 100 runs per side, the campaign runs 300)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_count", bug="onepass_dp_sgd_last_phase_takes_the_rest",
         test=_R + "test_onepass_dp_count_fails_when_the_last_phase_takes_the_rest",
         note="onepass_dp_bounds on Algorithm 8 whose last phase takes the leftover records: 1024 ≠ 2^I − 1 = 1023 "
              "(exact)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_stability", bug=None,
         test=_R + "test_onepass_dp_stability_is_uninformative_at_the_campaigns_inputs",
         note="uninformative: the largest coupled ratio on its logistic-GLM neighbours is 0.02 ≤ 1/2, so a copy "
              "with twice the difference passes (stated by the task)"),
    dict(entry=r"alt24\.onepass_dp_sgd_glm", key="onepass_dp_theorem_4", bug=None,
         test=_R + "test_onepass_dp_count_fails_when_the_last_phase_takes_the_rest",
         note="uninformative: Theorem 4's corrected bound (3.3) exceeds the clipped excess range's top 2"),
)
