"""Planted bugs of Asi, Chadha, Cheng & Duchi (2022, arXiv:2210.17070) in the corpus
(``dpsco.verification.mutants.corpus.CORPUS``): the mutants of ``mutants.accd22``, each with the instance on which
it shows, its exact privacy there and the test that refutes it.  Of the paper's four pitfalls (Algorithms 2, 4
and 5), three are refuted by the white-box likelihood-ratio audits of ``dpsco.verification.papers.accd22.privacy``
(the same audits pass the correct algorithms; each miss probability is computed exactly from the event's exact
probabilities), the fourth by its deterministic sensitivity check.  The twelve "reports the scale, draws it/√2"
copies of Algorithms 1–6 (Gaussian and Laplace phases) are refuted by the measured-noise checks of
``dpsco.verification.papers.accd22.noise`` (the noise replayed from the transcript against the σ_i of the public
schedule; miss probabilities computed exactly).
"""

from __future__ import annotations

import dpsco.reference.accd22.algorithms as accd22
from dpsco.verification.mutants.accd22 import bugs as ma
from dpsco.verification.mutants.planted import PaperTestBug

__all__ = ["ACCD22_BUGS"]

_T = "tests/accd22/test_accd22_privacy.py::"
_N = "tests/accd22/test_accd22_noise.py::"
_PHASES = "squared loss, X = B(0, 1), x_0 = 0, L = H = 1, ε = 1, the audit instance's n and utility overrides"
_OUTLIER = ("squared loss, d = 1, X = B(0, 1), ε = 1, δ = 0, background records (a_j, 0), the last record the "
            "outlier (1, +100) against (1, −100)")

ACCD22_BUGS: dict[str, PaperTestBug] = {b.name: b for b in [
    PaperTestBug(
        "algorithm_2_without_extension", ma.algorithm_2_without_extension, accd22.algorithm_2, "accd22",
        "Algorithm 2 on the raw gradients ∇F with L_{i+1} = H·D_{i+1} (no Lipschitzian extension)",
        "Section 4.1: L_{i+1} bounds the gradients only under interpolation; Algorithm 1's extension makes every "
        "summand L-Lipschitz on every dataset (Proposition 1.1)",
        _OUTLIER + "; n = 12, T = 2 epochs of m = 6, T5 = 3, constant = 1/4 (L_2 ≈ 0.44 against raw gradients ≈ 100)",
        "the differing phase moves by ≈ 229·L_2η: exact ε ≈ 57 (the correct algorithm: 0.25)",
        "the white-box transcript audit (fixed event, exact likelihood ratio; miss probability below 1e-14 at "
        "300 runs per side and confidence 1 − 1e-7, computed exactly)",
        (_T + "test_raw_gradients_mutant_refuted_by_the_transcript_audit",
         _T + "test_correct_algorithms_not_refuted_in_both_regimes")),
    PaperTestBug(
        "algorithm_4_clipped_gradients", ma.algorithm_4_clipped_gradients, accd22.algorithm_4, "accd22",
        "Algorithm 4 with ℓ2-clipped gradients clip(∇F, L) instead of ∇F_L on a non-GLM loss",
        "Lemma 2.1 / Definition 2.5: clipping is the extension's gradient for GLM and radial losses only; the "
        "clipped field of an anisotropic quadratic is not the gradient of a convex function",
        "DiagonalQuadraticLoss, d = 2, phase 1 of n_0 = 128 records: 127 copies of one anisotropic quadratic "
        "(curvatures 10 and 0.0049) and a far record at ±10⁴(cos 3.3272, sin 3.3272)",
        "the clipped fixed point moves by 5.13·√2·Lη in ℓ1: exact ε = 1.28ε (the extension's minimiser: 0.999·Lη, "
        "ε = 0.21ε)",
        "the deterministic sensitivity check of phase 1 (exact ε of the phase as implemented against the claim)",
        (_T + "test_clipped_gradients_mutant_refuted_by_the_sensitivity_check",)),
    PaperTestBug(
        "algorithm_5_reused_epochs", ma.algorithm_5_reused_epochs, accd22.algorithm_5, "accd22",
        "Algorithm 5 running every epoch's Algorithm 4 on the whole dataset (overlapping batches)",
        "Algorithm 5, line 8's S_i must be disjoint (ERRATA.md ACCD22-E1): privacy is parallel composition, each record "
        "in exactly one regularised ERM",
        _OUTLIER + "; n = 24, T5 = 12 (the last record enters 12 phases)",
        "12 Laplace phases of ε/4 each: exact ε = 3ε (the correct algorithm: 0.25ε)",
        "the white-box transcript audit (fixed event Λ ≥ 0.45Λ_max; miss probability 5.3e-14 at 20,000 runs per "
        "side and confidence 1 − 1e-7, computed exactly)",
        (_T + "test_reused_epochs_mutant_refuted_by_the_transcript_audit",
         _T + "test_correct_algorithms_not_refuted_in_both_regimes")),
    PaperTestBug(
        "algorithm_4_sloppy_solver", ma.algorithm_4_sloppy_solver, accd22.algorithm_4, "accd22",
        "Algorithm 4 solving each phase's ERM by one incremental pass with step 1/μ_G",
        "Algorithm 4, line 4 needs the minimiser (sensitivity Lη_i); an inexact solver adds twice its error "
        "(certified solver: ERRATA.md ACCD22-E3)",
        _OUTLIER + "; Algorithm 4 on n = 32 records (4 phases of n_0 = 8, the outlier in phase 4)",
        "phase 4 moves by Lη_4·n_0 = 8Lη_4: exact ε = 2ε (the correct phase: 0.25ε)",
        "the white-box phase audit (fixed event; miss probability below 1e-14 at 3,000 runs per side and "
        "confidence 1 − 1e-7, computed exactly)",
        (_T + "test_sloppy_solver_mutant_refuted_by_the_phase_audit",
         _T + "test_phase_audit_of_the_correct_algorithm")),
]}


def _noise_bugs() -> dict[str, PaperTestBug]:
    out = {}
    for k in range(1, 7):
        name = f"algorithm_{k}"
        correct = getattr(accd22, name)
        g = getattr(ma, f"accd22_{name}_draws_sigma_over_sqrt2")
        out[g.__name__] = PaperTestBug(
            g.__name__, g, correct, "accd22",
            f"Algorithm {k} reporting its Gaussian σ_i and drawing σ_i/√2 in every phase (the generic planted bug, "
            "mutants.noise_scale.under_noised)",
            "Algorithm 4, line 9: σ_i calibrated to the phase's sensitivity (1 + 2·SOLVER_TOL)Lη_i (ERRATA.md ACCD22-E3)",
            _PHASES + f"; δ = 1e-5, d = 12 (> log(1/δ): the Gaussian branch), {25} runs, every phase replayed",
            "every phase's μ = Δ/σ_i grows by √2: twice the ρ = μ²/2 of the calibration, beyond the claimed (ε, δ) "
            "where σ_i is the exact analytic-Gaussian σ",
            "the measured-noise check of the replayed residuals r_i/σ_i, σ_i from the public schedule (one-sided "
            "χ² at 1e-7; miss probability miss_probability(k, 1/√2) ≤ 1.5e-36 at k ≥ 1,200, exact)",
            (_N + "test_gaussian_under_noise_copies_are_caught_by_the_measured_noise_check",))
        lp = getattr(ma, f"accd22_{name}_draws_laplace_scale_over_sqrt2")
        out[lp.__name__] = PaperTestBug(
            lp.__name__, lp, correct, "accd22",
            f"Algorithm {k} reporting its Laplace scale b_i = 4L_iη_i√d/ε and drawing b_i/√2 in every phase "
            "(mutants.accd22.noise.under_noised_laplace)",
            "Algorithm 4, line 7: b_i = 4Lη_i√d/ε_i with ε_i = ε (ERRATA.md ACCD22-E2)",
            _PHASES + f"; δ = 0, d = 1, {300} runs, every phase replayed",
            "each phase's pure ε grows by √2, to √2(1 + 2·SOLVER_TOL)ε/4 = 0.39ε on the tight pair: not above the "
            "ε claim only because of the printed scale's 4× slack, and not the noise the claim's calibration states",
            "the exact Gamma(k, 1) test of Σ abs(r_i)/b_i (replayed Laplace residuals, b_i from the public schedule; "
            "false failure 1e-7; miss probability ≤ 2.8e-12 at k ≥ 1,200, exact)",
            (_N + "test_laplace_under_noise_copies_are_caught_by_the_measured_scale_check",))
    return out


ACCD22_BUGS.update(_noise_bugs())

_C = "tests/accd22/test_accd22_catches.py::"


def _check_bugs() -> dict[str, PaperTestBug]:
    """The planted bugs of the checks that no copy above makes fail (``mutants.accd22.catches``)."""
    out: dict[str, PaperTestBug] = {}
    for k in range(1, 7):
        name = f"algorithm_{k}"
        correct = getattr(accd22, name)
        nf = getattr(ma, f"accd22_{name}_without_noise")
        out[nf.__name__] = PaperTestBug(
            nf.__name__, nf, correct, "accd22",
            f"Algorithm {k} adding no noise (every Laplace and Gaussian draw is 0) while reporting its scales "
            "(mutants.accd22.noise.noise_free)",
            "Algorithm 4, line 11: x_i = x̂_i + ζ_i with fresh noise in every phase",
            "the white-box audit's interpolating pair (records (a_j, a_j x*), the last one's a replaced by 1/4) and "
            "the lower-bound instances S_v of Theorems 1 and 4 (n = 64, V = {±0.5, ±0.9})",
            "deterministic outputs: ε = ∞ on any pair whose minimisers differ (the correct algorithm: ≈ 0.12ε on the "
            "interpolating pair)",
            "the transcript audit on the interpolating pair (every event count is 2000 of 2000 against 0 of 2000: "
            "p ≤ 1e-15, deterministic) and the lower-bound checks of Theorems 1 and 4 (p ≤ 2e-14, deterministic)",
            (_C + "test_noise_free_copies_refuted_by_the_interpolating_audit",
             _C + ("test_noise_free_copy_of_algorithm_5_fails_the_lower_bound_checks" if k == 5
                   else "test_noise_free_copies_fail_the_lower_bound_checks")))
        st = getattr(ma, f"accd22_{name}_step_off_by_one")
        out[st.__name__] = PaperTestBug(
            st.__name__, st, correct, "accd22",
            f"Algorithm {k} halving its step one epoch early (Algorithm 5, line 9: η_i = 2^{{−(i+1)}}η_0; "
            "Algorithm 4, line 3: 2^{−4(i+1)}η)",
            "Algorithm 5, line 9 (η_i = 2^{−i}η_0) and Algorithm 4, line 3 (η_i = 2^{−4i}η)",
            "the measured-noise instance of the privacy suite (δ = 0, d = 1 and δ = 1e-5, d = 12)",
            "privacy-neutral (σ_i and the phase's sensitivity scale together), but every noise scale is half (1/16 "
            "for Algorithm 4) of the public schedule's",
            "the exact public-schedule check (the transcript's η_i against the schedule recomputed from public "
            "inputs); the measured-noise checks fail on it too",
            (_C + "test_step_off_by_one_copies_leave_the_public_schedule",))
    for k in (1, 5):
        raw = getattr(ma, f"algorithm_{k}_without_extension")
        out[raw.__name__] = PaperTestBug(
            raw.__name__, raw, getattr(accd22, f"algorithm_{k}"), "accd22",
            f"Algorithm {k} on the raw gradients ∇F (Algorithm 1, line 1 skipped: no Lipschitzian extension)",
            "Proposition 1.1: the extension makes every summand L-Lipschitz on every dataset",
            _OUTLIER + "; n = 24, T5 = 12 (the outlier's phase alone)",
            "the outlier's phase moves by 100·Lη: exact ε = 25ε (the correct algorithm: 0.25ε)",
            "the exact phase-sensitivity check (sensitivity 100 > 1 + 2·SOLVER_TOL)"
            + (" and Proposition 1.2's exact identity (the outlier no longer changes the output)" if k == 1 else ""),
            (_C + "test_raw_gradient_copies_fail_the_phase_sensitivity_check",)
            + ((_C + "test_algorithm_1_without_extension_fails_proposition_1_2",) if k == 1 else ()))
    for k in (2, 3, 6):
        ru = getattr(ma, f"algorithm_{k}_reused_epochs")
        out[ru.__name__] = PaperTestBug(
            ru.__name__, ru, getattr(accd22, f"algorithm_{k}"), "accd22",
            f"Algorithm {k} whose inner Algorithm 5 runs every epoch on all the records of its call (overlapping "
            "batches)",
            "Algorithm 5, line 8's S_i must be disjoint (ERRATA.md ACCD22-E1)",
            "the privacy suite's audit pairs (n = 12 or 24, T5 = 3 inner epochs)",
            "the last record enters 3 phases (each ≈ ε/4 on the outlier pair): exact ε ≈ 0.75ε, within the claim "
            "only thanks to the 4× slack",
            "the exact access-log check (a record in 3 or 5 phases, at most 1 allowed)",
            (_C + "test_reused_epoch_copies_fail_the_access_log_check",))
    r6 = ma.algorithm_6_epochs_rounded_up
    out[r6.__name__] = PaperTestBug(
        r6.__name__, r6, accd22.algorithm_6, "accd22",
        "Algorithm 6 with T = ⌈log n⌉ epochs (Theorem 8: ⌊log n⌋)", "Theorem 8: T = log n epochs of m = n/T",
        "the κ-growth task's power-loss instance (κ = 3, n = 2000, 4000)",
        "privacy-neutral (disjoint batches either way); one epoch more than the theorem's schedule",
        "the exact κ-schedule check (T = 8 against ⌊log 2000⌋ = 7)",
        (_C + "test_epochs_rounded_up_fails_the_kappa_schedule_check",))
    return out


ACCD22_BUGS.update(_check_bugs())
