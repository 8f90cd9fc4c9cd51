"""Planted bugs of Asi, Liu & Tian (2024) in the corpus (``dpsco.verification.mutants.corpus.CORPUS``): each
mutant of ``mutants.alt24.clipped`` (Algorithm 1, Theorem 1), ``mutants.alt24.known_lip`` (Algorithms 4, 5, 8),
``mutants.alt24.svt`` (Lemma 9, Algorithm 6), ``mutants.alt24.localized`` (Algorithm 7, with its white-box trace) and
``mutants.alt24.white_box`` (Algorithm 8 with its white-box trace), with the instance on
which it shows, its true privacy there and the test that catches it (the mutants' docstrings give the
derivations).  Most are refuted exactly — the privacy curve of the mechanism as implemented on the worst-case
replace-one pair — rather than by sampling; the rest by audits with fixed events or with ⊥ as an outcome.
Every Gaussian algorithm also has its "reports σ, draws σ/√2" copy (``noise_scale.under_noised``), refuted by the
measured-noise check of the entry's privacy harness (``dpsco.verification.papers.alt24.harness``) with the exact
miss probability stated in its entry.
"""

from __future__ import annotations

import dpsco.reference.alt24.algorithms_clipped_sgd as clipped
import dpsco.reference.alt24.algorithms_known_lipschitz as known_lip
import dpsco.reference.alt24.algorithms_localization as localization
import dpsco.reference.alt24.algorithms_localized as localized
import dpsco.reference.alt24.algorithms_one_pass as one_pass
import dpsco.reference.alt24.algorithms_svt as svt
from dpsco.reference.alt24.algorithms_localized import theorem_3_parameters
from dpsco.verification.mutants.alt24 import clipped as mc
from dpsco.verification.mutants.alt24 import known_lip as mk
from dpsco.verification.mutants.alt24 import localized as ml
from dpsco.verification.mutants.alt24 import svt as ms
from dpsco.verification.mutants.alt24 import white_box as mw
from dpsco.verification.mutants.planted import PaperTestBug

__all__ = ["ALT24_BUGS"]

_C = "tests/alt24/test_alt24_clipped_sgd.py::"
_LOC = "tests/alt24/test_alt24_localization.py::"
_K = "tests/alt24/test_alt24_known_lipschitz.py::"
_O = "tests/alt24/test_alt24_one_pass.py::"
_S = "tests/alt24/test_alt24_svt.py::"
_L = "tests/alt24/test_alt24_localized.py::"
_R = "tests/alt24/test_alt24_catches.py::"
_PAIR = "linear loss, n − 1 records sharing the replaced record's clipped gradient, the replaced one ±M e₁ (M ≥ C)"

ALT24_BUGS: dict[str, PaperTestBug] = {b.name: b for b in [
    PaperTestBug(
        "clipped_dp_sgd_regulariser_clipped", mc.clipped_dp_sgd_regulariser_clipped, clipped.clipped_dp_sgd, "alt24",
        "Algorithm 1 with the regulariser λx inside the per-sample clip (threshold C + λr)",
        "Algorithm 1, line 5 and the text before (6): only the loss gradients are clipped", _PAIR + ", T = 1",
        "exactly (1 + λr/C)²ρ-zCDP (coupled runs: the first mean shifts by 2(C + λr)/n); the correct one: ρ",
        "the exact ρ of the coupled runs' shift against the claim", (_C + "test_mutant_regulariser_clipped_exact",)),
    PaperTestBug(
        "clipped_dp_sgd_noise_clipped", mc.clipped_dp_sgd_noise_clipped, clipped.clipped_dp_sgd, "alt24",
        "Algorithm 1 clipping the noisy mean gradient instead of each per-sample gradient",
        "pitfall: clipping after the noise is post-processing of an unbounded-sensitivity mean",
        "n zero records vs one record M e₁ with M/n ≫ C",
        "not private: the released step is Π_C(ξ) on one side and ≈ C e₁ on the other",
        "exact probability bounds on the event {v₀·e₁ > 0.8C}", (_C + "test_mutant_noise_clipped",)),
    PaperTestBug(
        "clipped_dp_sgd_sensitivity_c_over_n", mc.clipped_dp_sgd_sensitivity_c_over_n, clipped.clipped_dp_sgd, "alt24",
        "σ² = C²T/(2n²ρ): the add/remove sensitivity C/n under the replace-one claim (2C/n)",
        "Proposition 1's sensitivity 2C/n (replace-one)", _PAIR, "exactly 4ρ-zCDP; the correct one: ρ",
        "the exact noise check: a chi-square lower tail of the drawn noise against the claimed σ²",
        (_C + "test_noise_scale_matches_claim_and_mutants_refuted",)),
    PaperTestBug(
        "clipped_dp_sgd_sigma_from_fewer_steps", mc.clipped_dp_sgd_sigma_from_fewer_steps, clipped.clipped_dp_sgd,
        "alt24", "σ² computed for T/2 steps while T steps run", "Corollary 1: σ² = 2C²T/(n²ρ) with the T run",
        _PAIR, "exactly 2ρ-zCDP; the correct one: ρ", "the exact noise check (chi-square lower tail)",
        (_C + "test_noise_scale_matches_claim_and_mutants_refuted",)),
    PaperTestBug(
        "clipped_dp_sgd_data_dependent_clip", mc.clipped_dp_sgd_data_dependent_clip, clipped.clipped_dp_sgd, "alt24",
        "C = max_i ‖∇f(0; s_i)‖ read from the data (σ follows it)",
        "pitfall: C must be a function of public inputs (Corollary 1's G_k)",
        "linear loss, n zero records vs one record e₁", "δ(ε) = 1 at every ε (a point mass at 0 against a Gaussian)",
        "the exact curve on that pair", (_C + "test_mutant_data_dependent_clip_exact",)),
    PaperTestBug(
        "ht_sco_overlapping_blocks", mc.ht_sco_overlapping_blocks, localization.ht_sco, "alt24",
        "Theorem 1's blocks D_i^j overlap: phase i reuses the first m_i records of each portion",
        "Theorem 1's proof: parallel composition needs pairwise-disjoint blocks",
        "the worst-case pair for the first record of a portion", "I·ρ-zCDP (I noisy traces, each exactly ρ)",
        "the recorded block usage and the coupled runs' differing traces", (_LOC + "test_overlapping_blocks_mutant_refuted",)),
    PaperTestBug(
        "known_lip_drop_heavy", mk.known_lip_drop_heavy, known_lip.known_lip_reduction, "alt24",
        "Algorithm 4 dropping the records with L̄_s > C instead of replacing them by the dummy",
        "Algorithm 4 and (11)/(13): the dummy keeps n, so neighbours stay neighbours",
        "n = 2: (one kept record, one zero record) vs (one heavy record, one zero record)",
        "ε = ∞: the dropped side outputs x₀ exactly, a point mass the correct algorithm never produces",
        "black-box audit", (_K + "test_black_box_audits_refute_dropping_and_a_data_dependent_threshold",)),
    PaperTestBug(
        "known_lip_data_dependent_clip", mk.known_lip_data_dependent_clip, known_lip.known_lip_reduction, "alt24",
        "Algorithm 4 with C = max_s L̄_s read from the data", "Theorem 2: C = G_k(n√ρ/√d)^{1/k}, public",
        "all records small vs one record with a huge L̄", "not private: the noise scale differs by orders of magnitude",
        "black-box audit (norm statistic)", (_K + "test_black_box_audits_refute_dropping_and_a_data_dependent_threshold",)),
    PaperTestBug(
        "known_lip_sensitivity_c_over_n", mk.known_lip_sensitivity_c_over_n, known_lip.known_lip_reduction, "alt24",
        "A_Lip's noise with the add/remove sensitivity L_A/n_i instead of 2L_A/n_i",
        "replace-one neighbours (Definitions 1–3)", "linear loss, kept records ±C e₁ first in phase 1",
        "Gaussian shift μ ≈ 2√(2ρ), above the claimed √(2ρ)", "the exact worst-pair Gaussian check",
        (_K + "test_exact_privacy_on_the_worst_pair_and_the_add_remove_sensitivity_mutant",)),
    PaperTestBug(
        "known_lip_calibrate_with_c", mk.known_lip_calibrate_with_c, known_lip.known_lip_reduction, "alt24",
        "μ > 0: A_Lip's noise calibrated with C instead of L_A = max(C, μD)", "(13) vs the text (C ≥ μD vs μD/4)",
        "tilted-quadratic family, a kept record against the dummy (μ/2)‖x − x̄‖²",
        "not a violation on this family: a kept record's gradient stays within C of the dummy's (recorded as the "
        "erratum's evidence; the default calibrates with L_A anyway)",
        "the exact worst-pair computation (does not refute it: invisible)",
        (_K + "test_erratum_13_dummy_lipschitz_and_calibration_with_c",), visible=False),
    PaperTestBug(
        "onepass_dp_sgd_half_sigma", mk.onepass_dp_sgd_half_sigma, one_pass.onepass_clipped_dp_sgd, "alt24",
        "Algorithm 8 with σ_i/2", "Theorem 4's privacy step: the phase average moves by ≤ 2η_iC_i",
        "linear GLM, the differing record first in phase 1, clipped gradients ±C₁e₁",
        "Gaussian shift μ ≈ 1.97√(ρ/2) against the claimed √(ρ/2)", "the exact worst-pair Gaussian check",
        (_O + "test_algorithm_8_exact_privacy_on_the_worst_pair_and_the_half_sigma_mutant",)),
    PaperTestBug(
        "onepass_dp_sgd_half_sigma_white_box", mw.onepass_dp_sgd_half_sigma_white_box, one_pass.onepass_clipped_dp_sgd,
        "alt24", "Algorithm 8 with σ_i/2, recording its trace of noisy phase outputs",
        "Theorem 4's privacy step: the phase average moves by ≤ 2η_iC_i",
        "linear GLM, n = 64, the differing record ±10⁶e₁ first in phase 1; the adversary sees every noisy phase "
        "output and its start", "white-box shift μ ≈ 2 × 0.484 against the claimed √(ρ/2) = 0.5",
        "white-box curve audit of the likelihood-ratio statistic (2,500 runs per side; miss probability 3.1e-7)",
        ("tests/alt24/test_alt24_white_box.py::test_white_box_audit_refutes_half_sigma",)),
    PaperTestBug(
        "onepass_sgd_two_passes", mk.onepass_sgd_two_passes, one_pass.onepass_clipped_sgd, "alt24",
        "Algorithm 5 making two passes (each record used twice)",
        "Lemma 8 needs s_{t+1} independent of x_t; Algorithm 8 needs disjoint phases",
        "any dataset (Algorithm 5 claims no privacy)", "not applicable (not private); 2T gradients instead of T",
        "the exact gradient-count check", (_O + "test_two_pass_planted_bug_is_caught_by_the_count",)),
    PaperTestBug(
        "bounded_laplace_tau_without_epsilon", ms.bounded_laplace_tau_without_epsilon, svt.bounded_laplace_mechanism,
        "alt24", "τ = Δ log(4/δ) instead of (Δ/ε) log(4/δ)", "Lemma 9's truncation threshold",
        "S(D) = 0 vs S(D') = Δ = 1, ε = 0.5, δ = 1e-3",
        "δ(ε) ≥ 5.2e-3 > δ at every ε (support mismatch)", "the exact curve and a fixed-event black-box audit",
        (_S + "test_blap_audit_passes_and_tau_bug_is_refuted",)),
    PaperTestBug(
        "sparse_vector_without_query_noise", ms.sparse_vector_without_query_noise, svt.private_sparse_vector, "alt24",
        "Algorithm 6 without the query noise (Line 5)", "the classic broken SVT (Lyu, Su & Li 2017)",
        "streams (L, L + Δ) vs (L + Δ, L), c = 1, T = 3, ε = 0.9",
        "δ(ε) ≥ P(0 < z ≤ Δ) ≈ 0.029 > δ = 0.01 at every ε", "the exact curve of the answer sequences and the audit",
        (_S + "test_no_query_noise_bug_refuted_exactly_and_by_the_audit",)),
    PaperTestBug(
        "sparse_vector_plain_laplace", ms.sparse_vector_plain_laplace, svt.private_sparse_vector, "alt24",
        "Algorithm 6 with plain Laplace noise (τ = ∞)", "Section 5: bounded Laplace gives Algorithm 7's envelopes",
        "the adversarial streams; the recorded noise draws",
        "private for SVT alone (Laplace SVT is (ε, δ/5)-DP); the envelope (every noise draw within [−τ, τ]) that Algorithm 7 needs fails",
        "the envelope check on the recorded draws", (_S + "test_plain_laplace_svt_is_private_but_breaks_the_envelope",)),
    PaperTestBug(
        "localized_dp_sgd_overlapping_phases", ml.localized_dp_sgd_overlapping_phases,
        localized.localized_clipped_dp_sgd, "alt24", "Line 8's printed index Σ_{i'∈[i]} n_{i'} + j (phases overlap)",
        "Algorithm 7, Line 8 (erratum: Σ_{i'<i})", "a differing record that flips a clip in several phases",
        "P(not ⊥) moves by e^{mε/3} over m phases: > e^ε·P + δ for m ≥ 4", "the exact ⊥-channel check",
        (_L + "test_overlapping_phases_mutant_refuted_exactly",)),
    PaperTestBug(
        "localized_dp_sgd_plain_laplace", ml.localized_dp_sgd_plain_laplace, localized.localized_clipped_dp_sgd,
        "alt24", "plain Laplace for Ĉ and ν (no truncation)", "Lemma 11's envelopes need bounded Laplace",
        "traced runs under Lemma 12's conditions", "the envelopes Ĉ ∈ [7C/8, 9C/8], ν ∈ [−C/4, C/4] fail with positive "
        "probability, and with them the 6Cη_i sensitivity bound", "the envelope check on traced runs",
        (_L + "test_plain_laplace_mutant_breaks_the_envelope",)),
    PaperTestBug(
        "localized_dp_sgd_retry_on_bottom", ml.localized_dp_sgd_retry_on_bottom, localized.localized_clipped_dp_sgd,
        "alt24", "rerun on ⊥ with fresh randomness and release the first point", "⊥ is a released outcome",
        "one dataset halts on every draw of ĉ_i, its neighbour escapes with BLap's tail probability q",
        "P(not ⊥) = 0 against 1 − (1 − q)^attempts > δ", "the exact ⊥-channel check",
        (_L + "test_retry_on_bottom_mutant_refuted_exactly",)),
    PaperTestBug(
        "localized_dp_sgd_fixed_cutoff", ml.localized_dp_sgd_fixed_cutoff, localized.localized_clipped_dp_sgd,
        "alt24", "ĉ_i = c without its BLap(3/ε, c/2) noise", "Lemma 12's proof: the noisy cutoff hides the count",
        "the ⊥ pair: counts c vs c − 1", "not private: one side halts surely, the other never",
        "black-box audit with ⊥ as an outcome", (_L + "test_audit_bottom_pair_and_fixed_cutoff_mutant",)),
    PaperTestBug(
        "localized_dp_sgd_data_dependent_clip", ml.localized_dp_sgd_data_dependent_clip,
        localized.localized_clipped_dp_sgd, "alt24", "C = the largest per-sample gradient norm at x₀",
        "Theorem 3's C is public", "the output-shift pair: one record M e₁ against 0, the rest 0",
        "not private: the neighbour's output is x₀ to 1e-8", "black-box audit",
        (_L + "test_audit_output_shift_pair_and_data_dependent_clip_mutant",)),
    PaperTestBug(
        "localized_dp_sgd_sigma_over_100", ml.localized_dp_sgd_sigma_over_100, localized.localized_clipped_dp_sgd,
        "alt24", "Line 28's Gaussian noise at σ_i/100, the (ε, δ) claim unchanged",
        "Algorithm 7, Line 28: σ_i = 30Cη_i√log(3/δ)/ε", "the output-shift pair at n = 16 (one record 5e₁ against 0, "
        "the rest 0), phase 1's noisy output seen white-box",
        "phase 1's shift is 0.0142σ_i under the claim, 1.42 noise scales under the bug: the event {Λ ≥ 0.75b²} has "
        "probability 0.361 against 0.0376, beyond e^0.9·P + 0.1", "white-box audit of the phase outputs (Λ, fixed "
        "event); miss probability 6.7e-9 at 3000 runs, computed exactly",
        ("tests/alt24/test_alt24_localized_white_box.py::test_white_box_audit_refutes_sigma_over_100",)),
    PaperTestBug(
        "localized_dp_sgd_publishes_performed_count", ml.localized_dp_sgd_publishes_performed_count,
        localized.localized_clipped_dp_sgd, "alt24",
        "Algorithm 7 publishing the gradient count it performed (the step at which ⊥ happened) and the halting phase",
        "Algorithm 7, Lines 20–21: the paper releases ⊥ alone; Release.gradient_evaluations is the schedule's count",
        "c + 1 = 33 clipped records first in phase 1 against the neighbour's 33rd set to 0 (linear loss, β = 0, "
        "ε = 0.9, δ = 0.1, n = 128)",
        "δ ≥ P(c < ĉ_1 ≤ c + 1) = 0.131 > δ = 0.1 at ε = 0.9: the published count 33 has probability 0 on the "
        "neighbour; the correct release publishes 2^I − 1 = 127 always",
        "the exact law of the published count (BLap's CDF) checked on runs of the mutant, and the audit of the whole "
        "published record (audit_outcome: ⊥, point and count; statistic ⊥·count) in the suite",
        ("tests/alt24/test_alt24_published_records.py::test_publishing_the_performed_count_is_refuted",)),
    # -- the check registry's copies (mutants.alt24.catches): each makes one more suite check or audit fail --------
    PaperTestBug(
        "corollary_1_solver_one_step_too_many", mc.corollary_1_solver_one_step_too_many, clipped.corollary_1_solver,
        "alt24", "Corollary 1's solver running T + 1 steps (off-by-one loop bound) with σ and the claim for T",
        "Corollary 1: T = ⌈max(n, n²ρ/d)⌉ steps, n·T sample gradients", "the suite's worst pair (alg1_exact, n = 12)",
        "(T + 1)ρ/T-zCDP against the claimed ρ; n(T + 1) gradients against n·T",
        "the suite's exact count alg1_count (deterministic)", (_R + "test_alg1_count_fails_on_one_step_too_many",)),
    PaperTestBug(
        "aggregate_erm_skips_last_block", mc.aggregate_erm_skips_last_block, localization.aggregate_erm, "alt24",
        "Algorithm 3's block loop stopping one block early (range(J − 1)): block D^J never solved",
        "Algorithm 3, lines 3–7: J disjoint blocks, Aggregate of J points (Fact 2)",
        "alg3_bounds: J = 3 blocks of n = 30 records", "ρ-zCDP (fewer blocks); (J − 1)·n·T gradients against J·n·T",
        "the suite's exact count alg3_count (deterministic)",
        (_R + "test_alg3_count_fails_when_the_last_block_is_skipped",)),
    PaperTestBug(
        "aggregate_erm_sigma_from_all_records", mc.aggregate_erm_sigma_from_all_records, localization.aggregate_erm,
        "alt24", "Algorithm 3's blocks calibrating σ with the total record count N = J·n (σ/J drawn, σ reported)",
        "Corollary 2 per block with the block's own n (parallel composition)",
        "alg3_audit: the one-sided canary in the last of J = 3 blocks of 8 records", "J²ρ-zCDP per block (9ρ)",
        "the suite's white-box audit alg3_white_box (refuted at p ≤ 4e-10 in 11 of 12 seeds measured; the event's "
        "placement uses pilot runs, so the miss probability is not derived)",
        (_R + "test_alg3_white_box_refutes_sigma_from_all_records",)),
    PaperTestBug(
        "ht_sco_skips_last_phase", mc.ht_sco_skips_last_phase, localization.ht_sco, "alt24",
        "HT-SCO's phase loop stopping one phase early (range(1, I)): x_{I−1} released",
        "Theorem 1 / Algorithm 2: I phases, Σ_{i≤I} J·m_i·T_i gradients", "ht_bounds: n = 256",
        "ρ-zCDP (fewer disjoint calls); Σ_{i<I} J·m_i·T_i gradients against Σ_{i≤I}",
        "the suite's exact count thm1_count (deterministic)",
        (_R + "test_thm1_count_fails_when_the_last_phase_is_skipped",)),
    PaperTestBug(
        "ht_sco_noise_dropped", mc.ht_sco_noise_dropped, localization.ht_sco, "alt24",
        "HT-SCO without its Gaussian noise (every Corollary 2 call's noise term dropped), σ and the claim reported",
        "Corollary 1: ĝ_t + N(0, σ²I) in every step", "ht_audit: the worst-case pair (n = 64) and the randhie pair",
        "ε = ∞: a deterministic release that differs on the two datasets",
        "the suite's black-box audits ht_sco_black_box (p = 1.9e-11 at 150 runs per side) and ht_sco_randhie "
        "(p = 6.2e-6, the smallest its 75 runs per side allow), deterministic",
        (_R + "test_ht_sco_black_box_audits_refute_the_noise_dropped_copy",)),
    PaperTestBug(
        "highprob_sco_skips_last_phase", mc.highprob_sco_skips_last_phase, localization.highprob_sco, "alt24",
        "Appendix A's HighProb-SCO stopping one phase early (range(1, I))",
        "Theorem 5: J·Σ_{i≤I} T_i queries", "highprob_bounds: n = 2048",
        "not private (Appendix A); J·Σ_{i<I} T_i queries against J·Σ_{i≤I} T_i",
        "the suite's exact count thm5_count (deterministic)",
        (_R + "test_thm5_count_fails_when_the_last_phase_is_skipped",)),
    PaperTestBug(
        "sc_sco_reuses_first_batch", mc.sc_sco_reuses_first_batch, localization.sc_sco, "alt24",
        "the Corollary 3 wrapper reading the first batch S[0:n'] in every epoch (publishing those record ranges)",
        "Corollary 3: epochs on disjoint batches (parallel composition)", "sc_bounds: n = 512, 5 epochs",
        "J_e·ρ-zCDP on a record of the first batch (sequential composition of the epochs)",
        "the suite's exact check cor3_disjoint on the published record ranges (deterministic)",
        (_R + "test_cor3_disjoint_fails_when_every_epoch_reuses_the_first_batch",)),
    PaperTestBug(
        "known_lip_phase_slice_off_by_one", mk.known_lip_phase_slice_off_by_one, known_lip.known_lip_reduction,
        "alt24", "Algorithm 4 + A_Lip slicing each phase's records S[start:stop − 1] (the phase's last record unused)",
        "Proposition 4: every phase's n_i records, Σ n_i·T_i gradients", "known_lip_bounds: n = 128",
        "ρ-zCDP (a record fewer per phase, same noise); Σ(n_i − 1)T_i gradients against the published Σ n_iT_i",
        "the suite's exact count known_lip_count (deterministic)",
        (_R + "test_known_lip_count_fails_on_phase_slices_off_by_one",)),
    PaperTestBug(
        "known_lip_reduction_noise_dropped", mk.known_lip_reduction_noise_dropped, known_lip.known_lip_reduction,
        "alt24", "Algorithm 4 + A_Lip without its Gaussian noise, σ_i and the claim reported",
        "Proposition 4: N(0, σ_i²I) in every step", "known_lip_audit: the worst pair (n = 16) and the randhie pair",
        "ε = ∞: a deterministic release that differs on the two datasets",
        "the suite's curve audits known_lip_worst_pair and known_lip_randhie (deterministic counts)",
        (_R + "test_known_lip_audits_refute_the_noise_dropped_copy",)),
    PaperTestBug(
        "onepass_dp_sgd_last_phase_takes_the_rest", mk.onepass_dp_sgd_last_phase_takes_the_rest,
        one_pass.onepass_clipped_dp_sgd, "alt24",
        "Algorithm 8 whose last phase runs to the end of the data (the n − (2^I − 1) leftover records appended)",
        "Theorem 4: phases of n/2^i records, 2^I − 1 gradients", "onepass_dp_bounds: n = 1024",
        "phase I's average moves by more than its σ_I is calibrated for; n gradients against 2^I − 1",
        "the suite's exact count onepass_dp_count (deterministic)",
        (_R + "test_onepass_dp_count_fails_when_the_last_phase_takes_the_rest",)),
    PaperTestBug(
        "onepass_clipped_dp_sgd_noise_dropped", mk.onepass_clipped_dp_sgd_noise_dropped,
        one_pass.onepass_clipped_dp_sgd, "alt24", "Algorithm 8 without its Gaussian noise, σ_i and the claim reported",
        "Algorithm 8, lines 9–10: x_i = x̄_i + N(0, σ_i²I)", "onepass_dp_audit: the worst pair (n = 64, ±10⁶e₁)",
        "ε = ∞: a deterministic release that differs on the two datasets",
        "the suite's black-box curve audit onepass_dp_worst_pair (deterministic counts)",
        (_R + "test_onepass_dp_worst_pair_refutes_the_noise_dropped_copy",)),
    PaperTestBug(
        "localized_dp_sgd_two_passes", ml.localized_dp_sgd_two_passes, localized.localized_clipped_dp_sgd, "alt24",
        "Algorithm 7 running each phase's loop twice over its records", "Algorithm 7: one gradient per record (≤ n)",
        "task_bounds: Theorem 3's instance, n = 1024",
        "every record enters its phase's average twice; 2(2^I − 1) gradients on a run that does not halt",
        "the suite's exact check gradient_count (performed gradients ≤ n; deterministic)",
        (_R + "test_localized_gradient_count_fails_on_two_passes",)),
    PaperTestBug(
        "theorem_3_parameters_printed_clip", ml.theorem_3_parameters_printed_clip, theorem_3_parameters, "alt24",
        "Theorem 3's parameters with the printed C = 2(G_k^kDI/(Aη))^{1/(k+1)}",
        "ERRATA: Lemma 13's c/4 ≥ n(2G_k/C)^k needs C's factor 2^{1+1/k}", "task_bounds: Theorem 3's instance",
        "privacy unchanged (Lemma 12 is free of C at β = 0); Lemma 13's no-⊥ condition fails by a factor 2",
        "the suite's exact check lemma_13_conditions (deterministic)",
        (_R + "test_lemma_13_conditions_fail_on_the_printed_clip",)),
    PaperTestBug(
        "bounded_laplace_tau_without_log", ms.bounded_laplace_tau_without_log, svt.bounded_laplace_mechanism, "alt24",
        "τ = Δ/ε (Lemma 9's factor log(4/δ) dropped)", "Lemma 9's truncation threshold τ = (Δ/ε) log(4/δ)",
        "S(D) = 0 vs S(D') = Δ on the exact check's (ε, δ) grid",
        "δ(ε) > δ at every grid point except (0.1, 0.1) (support mismatch)",
        "the suite's exact checks blap_exact_* with the copy's τ (deterministic)",
        (_R + "test_blap_exact_fails_on_tau_without_log",)),
    PaperTestBug(
        "bounded_laplace_doubled_parameters", ms.bounded_laplace_doubled_parameters, svt.bounded_laplace_mechanism,
        "alt24", "Lemma 9's mechanism drawing BLap(2R, 2τ) (Algorithm 6's query-noise parameters)",
        "Lemma 9: BLap(R, τ); Lemma 11 needs ‖ξ‖ ≤ τ on every draw", "blap_envelope: 1,000 draws, ε = 0.5, δ = 1e-3",
        "not less private; the envelope ‖ξ‖ ≤ τ fails with probability 0.0153 per draw",
        "the suite's envelope check blap_envelope (miss (1 − 0.0153)^1000 < 1e-6, exact)",
        (_R + "test_blap_envelope_fails_on_doubled_parameters",)),
    PaperTestBug(
        "sparse_vector_halts_one_top_late", ms.sparse_vector_halts_one_top_late, svt.private_sparse_vector, "alt24",
        "Algorithm 6 halting after c + 1 answers ⊤ (count > c)", "Algorithm 6, Line 4: halt once count = c",
        "svt_envelope: the zero stream, L = 0, c = 1, T = 3, 1,000 runs",
        "c + 1 noisy comparisons answer ⊤ where Lemma 10 pays for c",
        "the suite's exact check svt_halting (miss ≤ (3/4)^1000, exact bound)",
        (_R + "test_svt_halting_fails_on_halting_one_top_late",)),
    *[PaperTestBug(
        name, mutant, correct, "alt24", f"{what} reporting σ and drawing σ/√2 (noise_scale.under_noised)",
        "the noise actually drawn must match the theorem's calibration; a check that recomputes privacy from the σ "
        "the release reports cannot see this", instance, true, "the measured-noise check of the entry's harness "
        f"(one-sided χ² of the noise replayed from the white-box trace against the theorem's σ, false failure 1e-7): "
        f"miss probability {miss} (miss_probability({k}, 1/√2), exact)",
        ("tests/alt24/test_alt24_measured_noise.py::test_measured_noise_catches_every_sigma_over_sqrt2_bug",
         "tests/test_privacy_contract.py::test_measured_noise_passes_and_the_sigma_over_sqrt2_bug_fails"))
      for name, mutant, correct, what, instance, true, k, miss in (
          ("clipped_dp_sgd_draws_sigma_over_sqrt2", mc.clipped_dp_sgd_draws_sigma_over_sqrt2,
           clipped.clipped_dp_sgd, "Algorithm 1", "least squares, n = 16, d = 2, ρ = 0.5, 10 replicates: every "
           "noisy gradient", "exactly 2ρ-zCDP; the correct one: ρ", 1280, "4.2e-40"),
          ("aggregate_erm_draws_sigma_over_sqrt2", mc.aggregate_erm_draws_sigma_over_sqrt2,
           localization.aggregate_erm, "Algorithm 3", "least squares, J = 4 blocks of 4 records, 40 replicates: every "
           "block's noisy gradients", "exactly 2ρ-zCDP; the correct one: ρ", 1280, "4.2e-40"),
          ("ht_sco_draws_sigma_over_sqrt2", mc.ht_sco_draws_sigma_over_sqrt2, localization.ht_sco,
           "the Theorem 1 pipeline", "least squares, n = 64 (I = 3, J = 7), 11 replicates: every call's noisy "
           "gradients over its σ", "exactly 2ρ-zCDP; the correct one: ρ", 1078, "2.8e-31"),
          ("sc_sco_draws_sigma_over_sqrt2", mc.sc_sco_draws_sigma_over_sqrt2, localization.sc_sco,
           "the Corollary 3 wrapper", "tilted quadratic, n = 256 (4 epochs, I = 3, J = 4), 5 runs: every call's "
           "noisy gradients over its σ", "exactly 2ρ-zCDP; the correct one: ρ", 1120, "4.4e-33"),
          ("known_lip_reduction_draws_sigma_over_sqrt2", mk.known_lip_reduction_draws_sigma_over_sqrt2,
           known_lip.known_lip_reduction, "Algorithm 4 (A_Lip)", "linear loss, n = 64, d = 2, 2 runs: every A_Lip "
           "step's noise over its phase's σ_i", "exactly 2ρ-zCDP; the correct one: ρ", 1372, "3.1e-44"),
          ("onepass_clipped_dp_sgd_draws_sigma_over_sqrt2", mk.onepass_clipped_dp_sgd_draws_sigma_over_sqrt2,
           one_pass.onepass_clipped_dp_sgd, "Algorithm 8", "linear GLM, n = 64, d = 50, 4 runs: every phase "
           "output's noise over its σ_i", "exactly ρ/2-zCDP (μ = √ρ); the correct one: ρ/4", 1200, "1.5e-36"),
          ("localized_clipped_dp_sgd_draws_sigma_over_sqrt2", ml.localized_clipped_dp_sgd_draws_sigma_over_sqrt2,
           localized.localized_clipped_dp_sgd, "Algorithm 7 (Line 28)", "linear loss, β = 0, n = 64, d = 100, 2 "
           "runs: every phase output's noise over Line 28's σ_i", "the Gaussian channel's μ multiplied by √2 (the "
           "(ε, δ) claim is loose there: not a violation of the stated (ε, δ) on the audited pairs)", 1200,
           "1.5e-36"))],
]}
