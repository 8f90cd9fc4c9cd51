"""Planted bugs of Menart et al. (2023, arXiv:2311.13447 v2) in the corpus
(``dpsco.verification.mutants.corpus.CORPUS``): the mutants of ``mutants.muabg23.spider`` (Algorithm 1),
``mutants.muabg23.proximal`` (Algorithms 2 and 4) and ``mutants.muabg23.adaptive`` (Algorithm 3, Theorem 5),
each with the instance on which it shows, its true privacy there and the test that refutes it.  They are refuted
by what the mechanism did, never by what its release says about itself: the exact zCDP of the transcript on the
worst-case replace-one pair (f = L₀⟨w, x⟩ with the replaced record at ±e₁; the number of releases measured, the
σ's recomputed from public inputs), the schedules on a neighbouring pair, the noise actually drawn (the
measured-noise checks of ``verification/papers/muabg23/noise.py``; the σ/√2 bugs of each of the five noisy
algorithms), or the exponential mechanism's measured selection frequencies; the noise-scale bugs also by
white-box audits.
"""

from __future__ import annotations

import dpsco.reference.muabg23.algorithms_adaptive as adaptive
import dpsco.reference.muabg23.algorithms_proximal as proximal
import dpsco.reference.muabg23.algorithms_spider as spider
from dpsco.verification.mutants.muabg23 import adaptive as ma
from dpsco.verification.mutants.muabg23 import proximal as mp
from dpsco.verification.mutants.muabg23 import spider as msp
from dpsco.verification.mutants.planted import PaperTestBug

__all__ = ["MUABG23_BUGS"]

_SP = "tests/muabg23/test_muabg23_spider.py::"
_PR = "tests/muabg23/test_muabg23_proximal.py::"
_AD = "tests/muabg23/test_muabg23_adaptive.py::"
_WB = "tests/muabg23/test_muabg23_white_box.py::"
_EM = "tests/muabg23/test_muabg23_em.py::"
_CA = "tests/muabg23/test_muabg23_catches.py::"
_SQRT2 = "reporting σ and drawing σ/√2 (the generic planted bug, mutants.noise_scale.under_noised)"
_MEASURED = ("a release is never trusted about itself: the noise drawn is measured (one-sided χ² of the replayed "
             "residuals, checks.noise.measured_noise_check)")
_PAIR = "linear loss f = L₀⟨w, x⟩, the replaced record at +e₁ against −e₁ (every release at its full replace-one shift)"
_PAPER_UNITS = "the paper's accounting (L₀/(nσ))² per release (sensitivity L₀/n), half the replace-one cost"

MUABG23_BUGS: dict[str, PaperTestBug] = {b.name: b for b in [
    PaperTestBug(
        "kl_spider_printed_noise_claiming_rho", msp.kl_spider_printed_noise_claiming_rho, spider.kl_spider, "muabg23",
        "Algorithm 1 with the printed noise scales σ̂, σ_k and Theorem 1's claim ρ", _PAPER_UNITS, _PAIR,
        "exactly 2.125ρ-zCDP (2ρ from the K anchors, ρ/8 from the difference steps)",
        "the measured-noise check of the anchors against the exact σ̂ recomputed from public inputs (residual scale "
        "1/2; miss probability computed exactly, ≤ 1e-6 at 60 runs) and a white-box audit at 20,000 runs per side "
        "(campaign-marked)",
        (_SP + "test_printed_noise_mutant_refuted_by_measured_noise", _SP + "test_white_box_audit_refutes_printed_noise")),
    PaperTestBug(
        "kl_spider_data_dependent_f0", msp.kl_spider_data_dependent_f0, spider.kl_spider, "muabg23",
        "F₀ tightened from the data, min{F₀, (γ‖∇F(w₀; S)‖)^κ}, so the whole schedule reads S",
        "Algorithm 1's inputs must be public (the schedule is fixed before the data is touched)",
        "a neighbouring pair whose gradients at w₀ differ", "no finite ρ: the schedules (noise scales, number of "
        "releases) differ between neighbours", "the exact check of the schedules",
        (_SP + "test_data_dependent_f0_mutant_refuted_exactly",)),
    PaperTestBug(
        "kl_spider_extra_difference_step", msp.kl_spider_extra_difference_step, spider.kl_spider, "muabg23",
        "the loop guard t ≤ T_k with line 17's w_{k,t} (T_k + 1 difference releases per round, σ_k calibrated for T_k)",
        "Algorithm 1's loop guard (reconstructed t < T_k, Lemma 8's count of releases made; ERRATA.md MUABG23-E3)", _PAIR,
        "the transcript of releases it makes (the white-box view the claim covers) is ρ/2 + Σ_k (T_k + 1)ρ/(2KT_k) "
        "> ρ; its output and iterates depend on T_k differences per round (the last release is dead), so the "
        "published output alone is ρ-zCDP",
        "the exact ρ of the transcript (releases made, σ_k from the public schedule)",
        (_SP + "test_extra_step_mutant_refuted_exactly",)),
    PaperTestBug(
        "noisy_gd_paper_accounting", mp.noisy_gd_paper_accounting, proximal.noisy_regularised_gd, "muabg23",
        "Algorithm 4 with σ² = L₀²(T−1)/(n²ρ)", _PAPER_UNITS, _PAIR, "exactly 2ρ-zCDP",
        "the measured-noise check against Theorem 9's σ from public inputs (residual scale 1/√2; miss probability "
        "computed exactly) and the suite's white-box curve audit (n = 4, fixed event; miss probability "
        "3.0e-9 at 40,000 runs per side and confidence 1 − 1e-6, computed exactly)",
        (_PR + "test_algorithm_4_planted_bugs_refuted_by_the_same_check",
         _PR + "test_white_box_audit_passes_algorithm_4_and_refutes_paper_accounting",
         _WB + "test_noisy_gd_white_box_refutes_paper_accounting")),
    PaperTestBug(
        "noisy_gd_one_step_more", mp.noisy_gd_one_step_more, proximal.noisy_regularised_gd, "muabg23",
        "Algorithm 4 running T noisy steps with σ and the claim for T − 1", "off-by-one in the step count", _PAIR,
        "exactly ρT/(T − 1)-zCDP", "the exact worst-pair check",
        (_PR + "test_algorithm_4_planted_bugs_refuted_by_the_same_check",)),
    PaperTestBug(
        "proximal_point_paper_accounting", mp.proximal_point_paper_accounting, proximal.proximal_point, "muabg23",
        "Algorithm 2 with every inner call's σ² = L₀²(T₄−1)T/(n²ρ) (Algorithm 4's σ at the paper's charge)",
        _PAPER_UNITS, _PAIR, "exactly 2ρ-zCDP",
        "the suite's white-box curve audit of every noisy gradient (n = 4, fixed event; miss probability 3.0e-9 at "
        "40,000 runs per side and confidence 1 − 1e-6, computed exactly)",
        (_WB + "test_proximal_point_white_box_refutes_paper_accounting",)),
    PaperTestBug(
        "proximal_point_data_dependent_f0", mp.proximal_point_data_dependent_f0, proximal.proximal_point, "muabg23",
        "Algorithm 2 with F₀ := L₀·max_i ‖w₀ − x_i‖ read from the data (sets line 1's T)",
        "Algorithm 2's schedule must come from public inputs", "a neighbouring pair with a far record",
        "no finite ρ: the number of outer steps differs between neighbours", "the exact check of the schedules",
        (_PR + "test_algorithm_2_exact_rho_and_schedule_from_public_inputs",)),
    PaperTestBug(
        "adaptive_gd_cost_from_noisy_norm", ma.adaptive_gd_cost_from_noisy_norm, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3 charging the gradient release by the noisy norm N_t (line 6 as printed)",
        "a privacy filter needs each cost fixed before its release (Whitehouse et al. 2022)",
        "a dataset whose gradient vanishes at the start (N_t often ≤ 0)",
        "the exact cost of the transcript exceeds ρ (the filter under-counts)",
        "the exact replace-one cost of the transcript, σ's recomputed from the released N_t (at least one of 70 "
        "runs; miss probability ≤ 1e-6)",
        (_AD + "test_cost_from_noisy_norm_overshoots",)),
    PaperTestBug(
        "adaptive_gd_paper_units", ma.adaptive_gd_paper_units, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3 with the exact noise but the paper's per-release charge", _PAPER_UNITS, _PAIR,
        "≈ 2ρ: every charged cost is half the true one",
        "the exact replace-one cost of the transcript (σ's recomputed from the released N_t); the white-box audit "
        "of the noisy steps (Λ of all releases)",
        (_AD + "test_paper_units_undercount_twice",
         "tests/muabg23/test_muabg23_adaptive_white_box.py::test_white_box_refutes_paper_units")),
    PaperTestBug(
        "adaptive_gd_sigma_from_exact_norm", ma.adaptive_gd_sigma_from_exact_norm, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3 setting σ_t from the exact gradient norm", "noise scales must not read the data",
        "a replace-one pair whose gradient norms differ", "no finite ρ: the first release's variances differ",
        "the exact Rényi divergence of the first release", (_AD + "test_sigma_from_exact_norm_refuted",)),
    PaperTestBug(
        "adaptive_gd_noise_over_1e6", ma.adaptive_gd_noise_over_1e6, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3 with both noises divided by 10⁶, each step charged what the correct noise costs",
        "too little noise for the claimed ρ (a calibration off by a large factor)",
        "linear loss, n = 8, d = 1, records e₁ vs −e₁ at position 0; output w_{T+1}",
        "not private: the outputs on the two datasets are separated clusters",
        "the suite's black-box curve audit of w_{T+1} (miss probability derived ≤ 1e-6 at 2,000 runs per side)",
        (_AD + "test_curve_audit_refutes_noise_over_1e6",)),
    PaperTestBug(
        "adaptive_gd_em_temperature_without_2", ma.adaptive_gd_em_temperature_without_2, adaptive.adaptive_gd_em,
        "muabg23", "Theorem 5's exponential mechanism without its factor 2 (its release reports the correct ε)",
        "the exponential mechanism's ε/(2Δ)",
        "a fixed score vector (0.5, 0) (an oracle scoring the t-th point it is asked about), n = 8, ρ = 0.5",
        "2ε-DP selection: 4× the claimed ε²/8-zCDP",
        "the measured selection frequency against Theorem 5's temperature recomputed from public inputs "
        "(two-sided exact binomial test at 1e-7; miss probability computed exactly, ≤ 1e-6 at 700 runs)",
        (_EM + "test_em_measured_selection_refutes_temperature_without_2",)),
    PaperTestBug(
        "kl_spider_draws_sigma_over_sqrt2", msp.kl_spider_draws_sigma_over_sqrt2, spider.kl_spider, "muabg23",
        "Algorithm 1 " + _SQRT2, _MEASURED,
        "SignedCurvatureLoss records, n = 20, d = 10, 100 runs; every anchor and difference replayed from the "
        "white-box trace", "exactly 2ρ-zCDP under the ρ claim",
        "the measured-noise checks of the anchors and the differences against σ̂, σ_k recomputed from public "
        "inputs (miss probability miss_probability(k, 1/√2) ≤ 1e-6, computed exactly)",
        (_SP + "test_spider_measured_noise_refutes_sigma_over_sqrt2",)),
    PaperTestBug(
        "noisy_regularised_gd_draws_sigma_over_sqrt2", mp.noisy_regularised_gd_draws_sigma_over_sqrt2,
        proximal.noisy_regularised_gd, "muabg23", "Algorithm 4 " + _SQRT2, _MEASURED, _PAIR + "; n = 10, 4 runs",
        "exactly 2ρ-zCDP under the ρ claim",
        "the measured-noise check against Theorem 9's σ from public inputs (miss probability ≤ 1e-6, exact)",
        (_PR + "test_noisy_gd_measured_noise_refutes_sigma_over_sqrt2",)),
    PaperTestBug(
        "proximal_point_draws_sigma_over_sqrt2", mp.proximal_point_draws_sigma_over_sqrt2, proximal.proximal_point,
        "muabg23", "Algorithm 2 " + _SQRT2 + ", in every inner call", _MEASURED, _PAIR + "; n = 8, T_4 = 3, 3 runs",
        "exactly 2ρ-zCDP under the ρ claim",
        "the measured-noise check against Theorem 9's σ at ρ/T from public inputs (miss probability ≤ 1e-6, exact)",
        (_PR + "test_proximal_point_measured_noise_refutes_sigma_over_sqrt2",)),
    PaperTestBug(
        "adaptive_gd_draws_sigma_over_sqrt2", ma.adaptive_gd_draws_sigma_over_sqrt2, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3 " + _SQRT2 + " (the norm query's and the gradient's)", _MEASURED,
        "pseudo-Huber records, n = 400, d = 3, 40 runs; every release replayed from the transcript",
        "exactly 2ρ-zCDP under the ρ claim (every release at half its charged variance)",
        "the measured-noise check against σ̂ and σ_t = max{N_t/ψ, σ_min} recomputed from the released N_t "
        "(miss probability ≤ 1e-6, exact)", (_AD + "test_adaptive_measured_noise_refutes_sigma_over_sqrt2",)),
    PaperTestBug(
        "adaptive_gd_em_draws_sigma_over_sqrt2", ma.adaptive_gd_em_draws_sigma_over_sqrt2, adaptive.adaptive_gd_em,
        "muabg23", "the Theorem 5 variant " + _SQRT2 + " (Algorithm 3's noises; the exponential mechanism untouched)",
        _MEASURED, "pseudo-Huber records, n = 400, d = 3, 40 runs; every release replayed from the transcript",
        "Algorithm 3's part exactly 2ρ-zCDP: 2ρ + ρ_EM under the ρ + ρ_EM claim",
        "the measured-noise check of Algorithm 3's releases (miss probability ≤ 1e-6, exact)",
        (_EM + "test_em_measured_noise_refutes_sigma_over_sqrt2",)),
    PaperTestBug(
        "kl_spider_returns_start", msp.kl_spider_returns_start, spider.kl_spider, "muabg23",
        "Algorithm 1 returning the public start w_0 instead of its last iterate (the wrong variable returned: the "
        "loop's work never reaches the output)", "a utility bug: the output must be the algorithm's last iterate",
        "the suite's PL quadratic (w_0 = (0.5, 0), records in the ball of radius 0.1), n = 1000, 6 runs",
        "private (the output is public) and useless: excess ≥ 0.08 > Φ̂_K = 0.0618 on every run",
        "the suite's Theorem 1 w.h.p. check (6 violations of 6 runs: binomial p = 0.05⁶ = 1.6e-8; miss probability "
        "0, every run violates)", (_CA + "test_theorem_1_whp_refutes_returning_the_start",)),
    PaperTestBug(
        "proximal_point_one_call_more", mp.proximal_point_one_call_more, proximal.proximal_point, "muabg23",
        "Algorithm 2's outer loop making T + 1 calls of Algorithm 4, each calibrated for ρ/T (off-by-one in line 3)",
        "off-by-one in the outer loop", _PAIR + "; n = 8, T_4 = 3, 3 runs", "exactly ρ(T + 1)/T-zCDP",
        "the suite's exact worst-pair ρ of the steps taken and its exact gradient count (T + 1)(T_4 − 1)n ≠ "
        "T(T_4 − 1)n (deterministic)", (_CA + "test_proximal_point_checks_refute_one_call_more",)),
    PaperTestBug(
        "adaptive_gd_printed_claiming_rho", ma.adaptive_gd_printed_claiming_rho, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3's printed calibration (σ̂, ψ, σ_min and charges of App. D.2) claiming Theorem 3's printed ρ "
        "instead of its exact value 2ρ + 2√ρ/n", _PAPER_UNITS, "linear loss, n = 400, d = 2, records e₁ with one "
        "replaced by −e₁ (every release at its full replace-one shift), 10 runs",
        "more than ρ on every run the filter's guard stops (its charges are half the replace-one cost and exceed "
        "the guard ρ/2; 1.002ρ on this pair), up to 2ρ + 2√ρ/n, under a ρ claim",
        "the suite's printed-calibration check (exact cost of each transcript, σ's recomputed by the printed rule "
        "from the released N_t, over the claim; deterministic)",
        (_CA + "test_privacy_checks_refute_paper_units_and_printed_claim",)),
    PaperTestBug(
        "adaptive_gd_noise_free", ma.adaptive_gd_noise_free, adaptive.adaptive_gd, "muabg23",
        "Algorithm 3 with its noise dropped (every Gaussian draw × 0), claiming ρ",
        "a forgotten noise draw (the release is the noiseless iterate)",
        "Theorem 8's pair (n = 200, k = 10 differing records, κ = 2) at ρ = 4.83e-4, 200 runs per dataset",
        "not private (ε = ∞): its output is the deterministic minimiser of each dataset",
        "the suite's Theorem 8 lower-bound check (excess 0 on both datasets: p = e^{−25} = 1.4e-11; miss "
        "probability 0, deterministic)", (_CA + "test_theorem8_refutes_noise_free_adaptive_gd",)),
    PaperTestBug(
        "adaptive_gd_em_noise_over_1e6", ma.adaptive_gd_em_noise_over_1e6, adaptive.adaptive_gd_em, "muabg23",
        "the Theorem 5 variant whose Algorithm 3 part has both noises divided by 10⁶ (each step charged what the "
        "correct noise costs), then the correct exponential mechanism",
        "too little noise for the claimed ρ (a calibration off by a large factor)",
        "linear loss, n = 8, d = 1, records e₁ vs −e₁ at position 0; output w_{t*}",
        "not private: w_{t*} is uniform on {0, −0.5, −1} on one dataset and on {0, −0.375, −0.75} on the other",
        "the suite's black-box curve audit of w_{t*} at 2,000 runs per side (the standard budget's; miss "
        "probability derived ≤ 1e-6 in the test; at the quick budget's 300 it is not refuted)",
        (_CA + "test_em_curve_audit_refutes_noise_over_1e6",)),
    PaperTestBug(
        "em_log_probabilities_without_2", ma.em_log_probabilities_without_2, adaptive.em_log_probabilities,
        "muabg23", "Theorem 5's exponential-mechanism scores exp(−ε‖∇F(w_t)‖/Δ), the factor 2 of ε/(2Δ) dropped "
        "(the scoring function of adaptive_gd_em_temperature_without_2)", "the exponential mechanism's ε/(2Δ)",
        "the extremal score pair (Δ, Δ) vs (2Δ, 0), n = 400, ρ = 0.5 (ρ_EM = 0.25)",
        "2ε-bounded-range: 4× the claimed ε²/8-zCDP",
        "the suite's exact bounded-range check (log-ratio range 2ε > ε; deterministic)",
        (_CA + "test_em_bounded_range_refutes_scores_without_2",)),
]}
