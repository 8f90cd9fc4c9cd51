"""Planted bugs of Lowy & Razaviyayn (2021) in the corpus (``dpsco.verification.mutants.corpus.CORPUS``): the
mutants of ``mutants.lr21.bugs`` and ``mutants.lr21.applications``, kind
:class:`~dpsco.verification.mutants.planted.PaperTestBug`: each is caught on a worst-case instance that the
paper's own test files build (an adversarial but certified α-accurate inner optimiser, which a generic canary
cannot supply), by an audit, an exact privacy curve or the certificate gate.  The σ/√2 copies of the output
perturbation algorithms are in ``mutants.glm_noise_corpus`` and the memorisation bug in ``mutants.corpus`` (both
shared with Bassily et al.).
"""

from __future__ import annotations

import dpsco.reference.lr21 as lr
from dpsco.verification.mutants.lr21 import applications as mlr_app
from dpsco.verification.mutants.lr21 import bugs as mlr
from dpsco.verification.mutants.planted import PaperTestBug

__all__ = ["LR21_BUGS"]

_OP = "tests/lr21/test_lr21_output_perturbation_audits.py::"
_ALG3 = "tests/lr21/test_lr21_algorithm_3.py::"
_APP = "tests/lr21/test_lr21_application_audits.py::"
_ALG1_INSTANCE = ("Algorithm 1, linear loss, n = 10, d = 1, μ = 1, W = B(0, 2), α = 0.5, tight sensitivity mode, an "
                  "adversarial but certified α-accurate inner optimiser; x_n = +1 vs −1")
_AUDIT_40K = ("black-box privacy audit (split-sample Clopper–Pearson, 40,000 runs per side, confidence 1 − 1e-6) "
              "refutes it")
_FIXED_EVENT = ("privacy audit with the event {w_A ≥ w_T(S)} fixed in advance (40,000 runs per side, confidence "
                "1 − 1e-6; miss probability ≤ 2e-12 from exact binomial tails) refutes it at δ = 0 and δ = 1e-3")

LR21_BUGS: dict[str, PaperTestBug] = {b.name: b for b in [
    PaperTestBug(
        "alg1_sensitivity_without_alpha_term", mlr.alg1_sensitivity_without_alpha_term, lr.algorithm_1, "lr21",
        "noise calibrated to Δ_F alone, dropping the 2√(2α/μ) of Prop. 2.1's Δ_T",
        "Prop. 2.1: an α-accurate w_T lies within √(2α/μ) of the minimiser, so two runs' centres are up to "
        "Δ_F + 2√(2α/μ) apart; calibrating to the exact minimiser's sensitivity forgets the inner solver's error",
        _ALG1_INSTANCE, "exact ε = 10.9 at δ = 0 (L2-Laplace; centres 2.18 apart against Δ_F = 0.2), > 10 at "
        "δ = 1e-3 (Gaussian curve); the correct release: 0.991",
        _AUDIT_40K + " at δ = 0 and δ = 1e-3", (_OP + "test_audit_refutes_sensitivity_without_alpha_term",)),
    PaperTestBug(
        "alg1_printed_alg3_term", mlr.alg1_printed_alg3_term, lr.algorithm_1, "lr21",
        "Algorithm 1's line 2 with Algorithm 3's printed sensitivity Δ + 2α/μ instead of Δ + 2√(2α/μ)",
        "ERRATA.md LR21-E3", _ALG1_INSTANCE, "exact ε = 1.817 at δ = 0 (centres 2.18 apart against 1.2)",
        _AUDIT_40K + " at δ = 0", (_OP + "test_audit_refutes_algorithm_3_printed_alpha_term",)),
    PaperTestBug(
        "alg1_uncertified_sgd", mlr.alg1_uncertified_sgd, lr.algorithm_1, "lr21",
        "SGD stopped after T steps without a certificate, noise calibrated for α (accuracy only in expectation)",
        "ERRATA.md LR21-P1 (Thms 3.1–3.4 assume accuracy in expectation)",
        "Algorithm 1, linear loss, n = 10, d = 1, μ = 1, α = 1e-4, T = 2, δ = 0; x_n = +1 vs −1",
        "the proof's premise fails: coupled centres are 4/3 apart (> Δ_T = 0.228) on exactly 10 % of index paths "
        "(the mixture over paths is still ε-DP on this instance, ERRATA.md LR21-P1)",
        "Algorithm 1's certificate gate: with method='sgd' the correct algorithm detects the uncertified iterate and "
        "releases the certified solver's point (or refuses, fallback='refuse')",
        (_OP + "test_uncertified_sgd_breaks_the_proof_premise_and_the_certificate_catches_it",)),
    PaperTestBug(
        "alg2_printed_gaussian", mlr.alg2_printed_gaussian, lr.algorithm_2, "lr21",
        "Algorithm 2's printed δ > 0 noise density, σ_Zhao/√2", "ERRATA.md LR21-E2",
        "Algorithm 2, linear loss, n = 10, d = 1, λ = 1, α = 8, δ = 1e-3, an adversarial certified α-accurate "
        "inner optimiser; the Gaussian mechanism at the worst-case shift Δ_T = 8.6",
        "not (1, 1e-3)-DP at shift Δ_T (exact Gaussian curve); nominal (1, 1e-5) is really ε = 1.16",
        "the exact Gaussian privacy curve at the worst-case shift Δ_T (a black-box audit of the test instance cannot "
        "see it: its realised shift 4 < Δ_T leaves the printed σ private there)",
        (_OP + "test_algorithm_2_exact_privacy_and_printed_sigma_erratum",
         "tests/test_noise.py::test_erratum_alg2_printed_sigma_is_not_private")),
    PaperTestBug(
        "alg2_sensitivity_without_alpha_term", mlr.alg2_sensitivity_without_alpha_term, lr.algorithm_2, "lr21",
        "Algorithm 2's noise calibrated to Δ_λ alone, dropping the 2√(2α/λ) of its Δ_T",
        "Algorithm 1's bug (alg1_sensitivity_without_alpha_term) on Algorithm 2: an α-accurate w_T lies within "
        "√(2α/λ) of the regularised minimiser (proof of Prop. 2.1 with λ for μ)",
        "Algorithm 2, linear loss, n = 10, d = 1, λ = 1, α = 8, δ = 1e-3, an adversarial certified α-accurate "
        "inner optimiser; x_n = +1 vs −1 (centres 4 apart against Δ_λ = 0.6)",
        "exact ε = 7.20 at δ = 1e-3 (Gaussian curve at shift 4); the correct release: (1, 1e-3)-DP",
        "black-box privacy audit (split-sample Clopper–Pearson, 40,000 runs per side, confidence 1 − 1e-6) "
        "refutes it at δ = 1e-3",
        ("tests/test_common_catches.py::test_audit_refutes_algorithm_2_sensitivity_without_alpha_term",)),
    PaperTestBug(
        "alg3_printed_alpha_term", mlr.alg3_printed_alpha_term, lr.algorithm_3, "lr21",
        "Algorithm 3 with its printed line-2 sensitivity Δ + 2α/μ (for both δ)", "ERRATA.md LR21-E3",
        "Algorithm 3, linear adversarial game (μ = 1, r = 0.05), n = 10, d = 1, α = 0.02, tight mode, an adversarial "
        "α-accurate saddle solver; x_n = +1 vs −1",
        "exact ε = 2.384 at δ = 0 and 1.984 at δ = 1e-3; the correct release: 0.977 at δ = 0",
        _AUDIT_40K + " at δ = 0 and δ = 1e-3", (_ALG3 + "test_audit_refutes_algorithm_3_printed_alpha_term",)),
    PaperTestBug(
        "alg3_uncertified_stochastic_eg", mlr.alg3_uncertified_stochastic_eg, lr.algorithm_3, "lr21",
        "stochastic extragradient stopped after T steps without a certificate, noise calibrated for α",
        "ERRATA.md LR21-P2 (Algorithm 3 assumes an α-saddle point from its inner solver)",
        "Algorithm 3, linear adversarial game, n = 100, d = 1, α = 1e-6, T = 1, η = 1/(2μ), δ = 0",
        "ε ≥ 16.4 (exact Laplace-mixture tails over all 100 index paths)",
        "black-box privacy audit (20,000 runs per side, confidence 1 − 1e-6) refutes it; the correct algorithm_3's "
        "certificate gate falls back or refuses",
        (_ALG3 + "test_audit_refutes_uncertified_stochastic_eg",
         _ALG3 + "test_uncertified_stochastic_eg_is_not_private_and_the_gate_catches_it")),
    PaperTestBug(
        "tilted_erm_alg1_sensitivity", mlr_app.tilted_erm_alg1_sensitivity, lr.tilted_erm, "lr21",
        "tilted ERM calibrated to Algorithm 1's ERM sensitivity Δ_F = 2L/(μn) instead of Lemma 0.5's 2LC_τ/(μn)",
        "Props 4.1/4.2 with Lemma 0.5: F_τ is not an average of per-sample losses, so Algorithm 1's ERM "
        "sensitivity does not apply (the tilt up-weights the replaced record)",
        "tilted ERM, squared loss, n = 10, d = 1, τ = 40, μ = 9, R = 1/8, α = 1.125e-4, tight mode, an adversarial "
        "certified α-accurate optimiser; y_n = +1 vs −1",
        "exact ε = 5.97 (δ = 0) and 2.69 (δ = 1e-3, clamped release); the correct release: 0.803 / 0.204",
        _FIXED_EVENT, (_APP + "test_tilted_audit_refutes_alg1_sensitivity_mutant",)),
    PaperTestBug(
        "robust_erm_printed_alpha_term", mlr_app.robust_erm_printed_alpha_term, lr.robust_erm, "lr21",
        "ℓ2-robust model (Algorithm 3 with the exact inner max) with Algorithm 3's printed Δ + 2α/μ",
        "ERRATA.md LR21-E3",
        "robust logistic, ρ = 0.05, n = 40, d = 1, μ = 1.5, α = 0.03, tight mode, an adversarial certified "
        "α-accurate optimiser; x_n = +1 vs −1",
        "exact ε = 4.80 (δ = 0) and 4.71 (δ = 1e-3); the correct release: 0.827 / 0.414",
        _FIXED_EVENT, (_APP + "test_robust_audit_refutes_printed_alpha_term_mutant",)),
]}
