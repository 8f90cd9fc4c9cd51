"""Planted bugs for the Sec. 4 applications of Lowy & Razaviyayn's output perturbation (tilted ERM, ℓ2-robust GLMs).

Each mutant runs the correct release (``dpsco.reference.lr21.tilted_erm`` / ``robust_erm``) to get its
certified w_T, then re-noises w_T with one realistic bug in the line-2 sensitivity, and keeps the correct
release's privacy claim (which is now false).  The optimiser, the certificate, the projection and the claim are
untouched, so an audit that refutes a mutant has found exactly the planted bug.  **Never use these for anything
but testing auditors.**  Not registered in any corpus; the audits are ``tests/lr21/test_lr21_application_audits.py``.

Exact privacy of a mutant.  The released value is Π_{B(0,R)}(w_T + z), z the L2-Laplace (δ = 0) or Gaussian
(δ > 0) noise of ``dpsco.reference.noise`` at the mutant's (too small) scale.  For a neighbouring pair with centres
w_T(S), w_T(S') at distance t: δ = 0 — exactly (t/b)-DP with b = Δ_mutant/ε (``dpsco.oracles.lr21.output_perturbation.
l2_laplace_epsilon``; in d = 1 the projection does not lower it while both centres are strictly inside
B(0, R), since the privacy loss is t/b on the whole interval [w_T(S), R]); δ > 0 — the Gaussian curve with shift
t and the mutant's σ, clamped to [−R, R] in d = 1 (``dpsco.verification.mutants.corpus.release_epsilon``; the unclamped
Balle–Wang curve, ``dpsco.oracles.privacy_curves``, is an upper bound).

* :func:`tilted_erm_alg1_sensitivity` — tilted ERM with Algorithm 1's ERM sensitivity Δ_F = 2L/(μn) in place of
  Lemma 0.5's Δ_{F_τ} = 2LC_τ/(μn) (tight mode: 2L_ℓ/(μn) instead of (2L_ℓ/μ)min{1, C_τ/n}).  The
  tilt up-weights the high-loss record (weight up to min{1, C_τ/n} instead of 1/n), so the tilted minimiser moves
  up to C_τ times further than an ERM minimiser when one record is replaced.  On the test instance (d = 1,
  squared loss, n = 10, τ = 40, μ = 9, R = 1/8, α = 1.125e-4, outlier label +1 vs −1, tight mode) the certified
  centres are 0.2089 apart against the mutant's Δ_T = 0.025 + 0.01 = 0.035: exactly ε = 5.97 at δ = 0 (claim 1;
  the correct release: 0.803) and ε = 2.69 at δ = 1e-3 (clamped; correct: 0.204).
* :func:`robust_erm_printed_alpha_term` — the ℓ2-robust model (Algorithm 3 with the exact inner maximisation)
  with Algorithm 3's printed line-2 sensitivity Δ + 2α/μ instead of Δ + 2√(2α/μ) (erratum LR21-E3), for both δ.
  On the test instance (d = 1, robust logistic, ρ = 0.05, n = 40, μ = 1.5, α = 0.03, tight mode, x_n = +1 vs −1, an adversarial but certified α-accurate 𝓜) the centres are 0.3596 apart
  against Δ + 2α/μ = 0.035 + 0.04 = 0.075: exactly ε = 4.80 at δ = 0 (correct Δ_T = 0.435: 0.827) and ε = 4.71 at
  δ = 1e-3 (correct: 0.414, clamped release).

The exact values are recomputed (not copied) by the tests.  Derivations (Lemma 0.5 and Props 4.1/4.2; the robust
GLMs): docs/derivations.md#sensitivity-and-smoothness-of-the-tilted-objective,
docs/derivations.md#closed-form-inner-maximisation-of-robust-glms.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference import noise
import dpsco.reference.lr21 as op
from dpsco.reference.privacy import Release

__all__ = ["robust_erm_printed_alpha_term", "tilted_erm_alg1_sensitivity"]


def _renoise(correct: Release, sensitivity: float, epsilon: float, delta: float, rng: np.random.Generator,
             replicates: int | None, label: str, gaussian: str) -> Release:
    """Line 2 again on the correct release's certified w_T, with the noise calibrated to ``sensitivity``."""
    cal = noise.calibrate(sensitivity, epsilon, delta, gaussian=gaussian)  # type: ignore[arg-type]
    w_T = correct.nonprivate_internals["w_T"]
    out = noise.perturb_and_project(w_T, cal, correct.parameters["R"], rng, replicates)
    return Release(output=out, replicates=replicates, claim=correct.claim, gradient_evaluations=correct.gradient_evaluations,
                   parameters={**correct.parameters, "noise_scale": cal.scale, "Delta_T": sensitivity},
                   algorithm=f"MUTANT: {label}", diagnostics=correct.diagnostics,
                   nonprivate_internals={"w_T": np.array(w_T, copy=True)})


def tilted_erm_alg1_sensitivity(X: Any, y: Any, problem: Any, epsilon: float, delta: float,
                                rng: np.random.Generator, *, replicates: int | None = None,
                                **options: Any) -> Release:
    """Tilted ERM with Algorithm 1's ERM sensitivity Δ_F = 2L/(μn) — no C_τ factor.

    What is wrong: Props 4.1/4.2 run Algorithm 1 on F_τ, which is not of ERM form; its sensitivity is
    Lemma 0.5's Δ_{F_τ} = 2LC_τ/(μn) (tight: (2L_ℓ/μ)min{1, C_τ/n}), not Algorithm 1's 2L/(μn) (tight: 2L_ℓ/(μn),
    the ``sensitivity_mode``'s own L as in ``algorithm_1_parameters``).  The α term 2√(2α/μ) is kept.
    True ε on the test instance: 5.97 (δ = 0), 2.69 (δ = 1e-3, clamped release); module docstring.
    Same signature as :func:`dpsco.reference.lr21.tilted_erm`."""
    gaussian = options.get("gaussian", "zhao")
    correct = op.tilted_erm(X, y, problem, epsilon, delta, np.random.default_rng(0), **options)
    p = correct.parameters
    n = int(np.asarray(X).shape[0])
    L = p["L"] if p["sensitivity_mode"] == "paper" else p["L_loss"]
    delta_F = op.sensitivity_alg1(L, p["mu"], n, erm=True)  # BUG: Alg. 1's ERM Δ_F, C_τ dropped
    return _renoise(correct, op.sensitivity_T(delta_F, p["alpha"], p["mu"]), epsilon, delta, rng, replicates,
                    "tilted ERM with Algorithm 1's Δ_F = 2L/(μn) (no C_τ)", gaussian)


def robust_erm_printed_alpha_term(X: Any, y: Any, kind: str, x_max: float, y_max: float, epsilon: float,
                                  delta: float, rng: np.random.Generator, *, replicates: int | None = None,
                                  **options: Any) -> Release:
    """ℓ2-robust model with Algorithm 3's printed sensitivity Δ + 2α/μ (erratum LR21-E3), for both δ.

    What is wrong: an α-accurate w_T is only √(2α/μ) from w*(D) (strong convexity of G_D), so two such points are
    up to Δ + 2√(2α/μ) apart; the printed 2α/μ is smaller whenever α/μ < 2 (here 0.04 vs 0.4).
    True ε on the test instance: 4.80 (δ = 0), 4.71 (δ = 1e-3); module docstring.
    Same signature as :func:`dpsco.reference.lr21.robust_erm`."""
    gaussian = options.get("gaussian", "zhao")
    correct = op.robust_erm(X, y, kind, x_max, y_max, epsilon, delta, np.random.default_rng(0),  # type: ignore[arg-type]
                            **options)
    p = correct.parameters
    sens = op.sensitivity_T(p["Delta_F"], p["alpha"], p["mu"], printed="alg3")  # BUG (LR21-E3): Δ + 2α/μ
    return _renoise(correct, sens, epsilon, delta, rng, replicates, "robust model with the printed Δ + 2α/μ (LR21-E3)",
                    gaussian)
