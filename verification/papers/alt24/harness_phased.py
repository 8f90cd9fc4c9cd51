"""Privacy harnesses (``verification/papers/harness.py``) of Asi, Liu & Tian (2024)'s phased algorithms:
Algorithm 4 with A_Lip (``alt24.known_lip``), Algorithm 5 (``alt24.onepass_sgd``, not private), Algorithm 8
(``alt24.onepass_dp_sgd_glm``) and Appendix A's procedure (``alt24.highprob_sco``, not private).

Algorithm 4.  The linear loss f(x; s) = ⟨s, x⟩ (L̄_s = ‖s‖; every finite record admissible — one whose norm
overflows is replaced by the dummy), X = B(0, 1), n = 16, d = 2, ρ = 0.5, G = (1, 1), Theorem 2's C = L_A.  Each
noisy release is a step ĝ_t + ξ_t of A_Lip on phase i's block; replayed at D's recorded iterate with Algorithm 4's
per-record map (kept: Π_{L_A}(∇f(x; s)); replaced: the dummy's gradient 0) on D's and D′'s records, against
2L_A/n_i.  Worst pair: every record C e₁ (kept, on the bound L̄_s = C), the neighbour's record 0 −C e₁: phase 1's
T_1 steps shift by exactly 2C/n_1; μ = √(2ρ).

Algorithm 8.  The linear GLM (β = 0), X = B(0, 10), x₀ = 0, n = 16, ρ = 0.5.  The noisy releases are the phase
outputs x_i = x̄_i + N(0, σ_i²I); x̄_i is replayed from the recorded phase start with Algorithm 5 on the phase's
records (deterministic: ``onepass_clipped_sgd`` at the public C_i, η_i), on D and on D′, against Theorem 4's
2η_iC_i.  Worst pair: record 0 (first of phase 1) ±10⁶e₁, the others 0: the exact μ = ‖x̄_1(D) − x̄_1(D′)‖/σ_1
(the later phases are post-processing of x_1).

Algorithm 5 and Appendix A claim no privacy (notion "none"): their harnesses check the published fields and the
finite release; the sensitivity probe of Algorithm 5 is the replaced record's clipped step (≤ 2C, the fact
Algorithm 8's proof uses), that of Appendix A the output's distance, ≤ diam X (its gradients are not clipped).

Noise (Algorithms 4 and 8): residuals divided by each release's σ from the theorem's formula (A_Lip's
σ_i = √(2L²T_i/(n_i²ρ)), Theorem 4's σ_i = 2η_iC_i√(2/ρ)), so ``sigma`` = 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference.alt24.algorithms_known_lipschitz import known_lip_reduction, theorem_2_parameters, truncation_mask
from dpsco.reference.alt24.algorithms_localization import highprob_sco
from dpsco.reference.alt24.losses import LeastSquaresLoss, LinearLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.reference.alt24.algorithms_one_pass import onepass_clipped_dp_sgd, onepass_clipped_sgd, theorem_4_parameters
from dpsco.reference.clipping import row_norms
from dpsco.reference.domains import Ball
from dpsco.verification.papers.alt24.harness_common import extreme_vector
from dpsco.verification.papers.harness import (ExactPrivacy, NoiseSample, PrivacyHarness, SensitivityProbe,
                                               gaussian_exact_privacy)

__all__ = ["HARNESSES"]

RHO, DELTA = 0.5, 1e-6
MOMENTS = MomentBounds(2, (1.0, 1.0))
LINEAR = LinearLoss()


def _gaussian_records(rng: np.random.Generator, n: int, d: int = 2) -> np.ndarray:
    return rng.standard_normal((n, d))


# ---- Algorithm 4 ---------------------------------------------------------------------------------------------

N4, R4 = 16, 1.0
PAR4 = theorem_2_parameters(N4, 2, RHO, MOMENTS, 2.0 * R4)


def _alg4_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    return (algorithm or known_lip_reduction)(S, LINEAR, Ball(R4), RHO, MOMENTS, rng, delta=DELTA, **kw)


def _alg4_step_means(S: np.ndarray, wb: dict[str, Any], par: dict[str, Any]) -> np.ndarray:
    """(N, d) the noiseless clipped mean of every recorded step, at its recorded iterate, for records S: Algorithm
    4's map (kept iff L̄_s ≤ C: Π_{L_A}(∇f); else the dummy, gradient 0 at μ = 0) averaged over the step's phase."""
    keep = truncation_mask(S, LINEAR, par["C"], R4)
    out = np.zeros_like(np.asarray(wb["noisy_gradients"], dtype=np.float64))
    for k, (i, x) in enumerate(zip(wb["phase"], wb["iterates"])):
        ph = par["a_lip"]["phases"][int(i) - 1]
        rows = np.arange(ph["start"], ph["stop"])
        kept = rows[keep[rows]]
        if kept.size:
            out[k] = LINEAR.clipped_grads_at(np.asarray(x)[None, :], S[kept], par["L_A"])[0].sum(axis=0)
        out[k] /= ph["n_i"]
    return out


def _alg4_sigmas(wb: dict[str, Any], par: dict[str, Any]) -> np.ndarray:
    return np.array([par["a_lip"]["phases"][int(i) - 1]["sigma_i"] for i in wb["phase"]])


def _alg4_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list[SensitivityProbe]:
    rel = _alg4_run(S, np.random.default_rng(seed), white_box=True)
    wb = rel.white_box
    diff = row_norms(_alg4_step_means(S, wb, PAR4) - _alg4_step_means(S2, wb, PAR4))
    bounds = [2.0 * PAR4["L_A"] / PAR4["a_lip"]["phases"][int(i) - 1]["n_i"] for i in wb["phase"]]
    return [SensitivityProbe(f"A_Lip step {k} (phase {int(i)})", float(m), float(b))
            for k, (i, m, b) in enumerate(zip(wb["phase"], diff, bounds))]


def _alg4_exact() -> tuple[ExactPrivacy, Any]:
    C = PAR4["C"]
    S = np.tile([C, 0.0], (N4, 1))
    S2 = S.copy()
    S2[0] = [-C, 0.0]
    rel = _alg4_run(S, np.random.default_rng(0), white_box=True)
    wb = rel.white_box
    shifts = row_norms(_alg4_step_means(S, wb, PAR4) - _alg4_step_means(S2, wb, PAR4))
    z = shifts / _alg4_sigmas(wb, PAR4)
    ph1 = np.asarray(wb["phase"]) == 1
    if not (np.all(z[~ph1] == 0.0) and np.allclose(z[ph1], z[ph1][0], rtol=1e-9, atol=0.0)):
        raise AssertionError("the worst pair's shifts are not the constant 2L_A/n_1 of phase 1")
    mu = float(np.sqrt(np.sum(z * z)))
    return gaussian_exact_privacy(mu, "linear loss, records C e₁ (kept, L̄ = C), record 0 −C e₁: phase 1's T_1 "
                                      "steps shifted by 2L_A/n_1 (measured), σ_1 from A_Lip's formula"), rel


def _alg4_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    res = []
    n = 64
    par = theorem_2_parameters(n, 2, RHO, MOMENTS, 2.0 * R4)                 # 343 steps · d = 686 draws per run
    for r in range(2):
        rng = np.random.default_rng([seed, r])
        S = _gaussian_records(rng, n)
        wb = _alg4_run(S, rng, algorithm, white_box=True).white_box
        resid = np.asarray(wb["noisy_gradients"]) - _alg4_step_means(S, wb, par)
        res.append((resid / _alg4_sigmas(wb, par)[:, None]).ravel())
    return NoiseSample(np.concatenate(res), 1.0, "A_Lip: every step's noise / its phase's σ_i")


# ---- Algorithm 5 (not private) -------------------------------------------------------------------------------

N5, C5, ETA5, R5 = 16, 1.0, 0.1, 1.0
LS = LeastSquaresLoss()


def _regression(rng: np.random.Generator, n: int) -> np.ndarray:
    a = rng.standard_normal((n, 2))
    return np.column_stack([a, a @ np.array([0.5, -0.3]) + 0.1 * rng.standard_normal(n)])


def _alg5_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Any:
    return (algorithm or onepass_clipped_sgd)(S, LS, C5, ETA5, Ball(R5), np.zeros(2))


def _alg5_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list[SensitivityProbe]:
    x0 = np.zeros((1, 2))
    g = LS.clipped_grads_at(x0, S[:1], C5)[0, 0] - LS.clipped_grads_at(x0, S2[:1], C5)[0, 0]
    return [SensitivityProbe("step 1: the replaced record's clipped gradient (Algorithm 5 claims no privacy)",
                             float(row_norms(g)), 2.0 * C5)]


def _none_exact(run: Any, records: Any) -> tuple[ExactPrivacy, Any]:
    rel = run(records(np.random.default_rng(0)), np.random.default_rng(0))
    return ExactPrivacy(delta_of_epsilon=lambda e: 1.0, note="not private (claim notion 'none')"), rel


# ---- Algorithm 8 ---------------------------------------------------------------------------------------------

N8, R8 = 16, 10.0


def _alg8_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None, **kw: Any) -> Any:
    return (algorithm or onepass_clipped_dp_sgd)(S, LINEAR, Ball(R8), np.zeros(S.shape[1]), RHO, MOMENTS, rng,
                                                 delta=DELTA, **kw)


def _alg8_means(S: np.ndarray, rel: Any, par: dict[str, Any]) -> np.ndarray:
    """(I, d) x̄_i replayed from each recorded phase start on S's phase records (Algorithm 5, deterministic)."""
    starts = rel.white_box["phase_starts"]
    return np.stack([onepass_clipped_sgd(S[ph["start"]:ph["stop"]], LINEAR, ph["C_i"], ph["eta_i"], Ball(R8),
                                         start).output for ph, start in zip(par["phases"], starts)])


def _alg8_par(S: np.ndarray) -> dict[str, Any]:
    return theorem_4_parameters(S.shape[0], S.shape[1], RHO, MOMENTS, 2.0 * R8)


def _alg8_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list[SensitivityProbe]:
    rel = _alg8_run(S, np.random.default_rng(seed), white_box=True)
    par = _alg8_par(S)
    diff = row_norms(_alg8_means(S, rel, par) - _alg8_means(S2, rel, par))
    return [SensitivityProbe(f"phase {ph['i']} output", float(m), 2.0 * ph["eta_i"] * ph["C_i"])
            for ph, m in zip(par["phases"], diff)]


def _alg8_exact() -> tuple[ExactPrivacy, Any]:
    S = np.zeros((N8, 2))
    S[0, 0] = 1e6
    S2 = S.copy()
    S2[0, 0] = -1e6
    rel = _alg8_run(S, np.random.default_rng(0), white_box=True)
    par = _alg8_par(S)
    diff = row_norms(_alg8_means(S, rel, par) - _alg8_means(S2, rel, par))
    if np.any(diff[1:] != 0.0):
        raise AssertionError("only phase 1 holds the replaced record")
    mu = float(diff[0]) / par["phases"][0]["sigma_i"]
    return gaussian_exact_privacy(mu, "linear GLM, record 0 ±1e6 e₁ (first of phase 1, clipped to ±C_1e₁), the "
                                      "others 0: phase 1's mean shift (measured) over Theorem 4's σ_1"), rel


def _alg8_noise(seed: int, algorithm: Any = None) -> NoiseSample:
    res = []
    for r in range(4):                                       # 4 runs · I = 6 phases · d = 50: 1200 draws
        rng = np.random.default_rng([seed, r])
        S = 0.1 * _gaussian_records(rng, 64, 50)
        rel = _alg8_run(S, rng, algorithm, white_box=True)
        par = _alg8_par(S)
        sig = np.array([ph["sigma_i"] for ph in par["phases"]])
        res.append(((rel.white_box["phase_releases"] - _alg8_means(S, rel, par)) / sig[:, None]).ravel())
    return NoiseSample(np.concatenate(res), 1.0, "Algorithm 8: every phase output's noise / its σ_i")


# ---- Appendix A (not private) --------------------------------------------------------------------------------

NA, RA = 64, 2.0


def _hp_run(S: np.ndarray, rng: np.random.Generator, algorithm: Any = None) -> Any:
    return (algorithm or highprob_sco)(S, LS, G=1.0, delta_fail=0.5, domain_radius=RA, J_scale=0.1)


def _hp_sensitivity(S: np.ndarray, S2: np.ndarray, seed: int) -> list[SensitivityProbe]:
    a, b = _hp_run(S, np.random.default_rng(seed)), _hp_run(S2, np.random.default_rng(seed))
    return [SensitivityProbe("output (not private: no noisy release; the output stays in X)",
                             float(row_norms(a.output - b.output)), 2.0 * RA)]


HARNESSES: dict[str, PrivacyHarness] = {
    "alt24.known_lip": PrivacyHarness(
        entry="alt24.known_lip", records=lambda rng: _gaussian_records(rng, N4),
        extreme_record=lambda draw: extreme_vector(draw, 2, (PAR4["C"], -PAR4["C"])), run=_alg4_run,
        sensitivity=_alg4_sensitivity, exact_privacy=_alg4_exact, noise=_alg4_noise,
        noise_bug="known_lip_reduction_draws_sigma_over_sqrt2"),
    "alt24.onepass_sgd": PrivacyHarness(
        entry="alt24.onepass_sgd", records=lambda rng: _regression(rng, N5),
        extreme_record=lambda draw: extreme_vector(draw, 3, (C5, -C5)), run=_alg5_run,
        sensitivity=_alg5_sensitivity, exact_privacy=lambda: _none_exact(_alg5_run, lambda g: _regression(g, N5))),
    "alt24.onepass_dp_sgd_glm": PrivacyHarness(
        entry="alt24.onepass_dp_sgd_glm", records=lambda rng: _gaussian_records(rng, N8),
        extreme_record=lambda draw: extreme_vector(draw, 2), run=_alg8_run, sensitivity=_alg8_sensitivity,
        exact_privacy=_alg8_exact, noise=_alg8_noise, noise_bug="onepass_clipped_dp_sgd_draws_sigma_over_sqrt2"),
    "alt24.highprob_sco": PrivacyHarness(
        entry="alt24.highprob_sco", records=lambda rng: _regression(rng, NA),
        extreme_record=lambda draw: extreme_vector(draw, 3), run=_hp_run, sensitivity=_hp_sensitivity,
        exact_privacy=lambda: _none_exact(_hp_run, lambda g: _regression(g, NA))),
}
