"""Every algorithm of Lowy & Razaviyayn: black-box output perturbation for general convex losses.

    A. Lowy, M. Razaviyayn. "Output Perturbation for Differentially Private Convex Optimization with
    Improved Population Loss Bounds, Runtimes and Applications to Private Adversarial Training."
    Proceedings of the AAAI Conference on Artificial Intelligence (AAAI 2021), with its Supplemental
    Material (arXiv:2102.04704).  Text: seeds/003; engineering spec: specs/output-perturbation-lowy-razaviyayn.md.

Algorithms
----------
``algorithm_1``   Alg. 1, output perturbation for μ-strongly convex F (privacy Prop. 2.1; utility Thms 2.1,
                  2.2, 0.2, 0.3, 3.1, 3.2).
``algorithm_2``   Alg. 2, with regularisation λ for convex F (privacy Prop. 2.2; Thms 2.3, 2.4, 0.4, 0.5, 3.3, 3.4).
NOT YET IMPLEMENTED (issue 4, open): Algorithm 3 (adversarial training) and the tilted-ERM / robust-model
objectives; their theorem functions (Thm 4.1, Props 4.1–4.2, Lemmas 0.5, 4.2) are below.

Inner methods 𝓜 (each with its iteration count as a plain function, and a gradient counter on the objective):
``subgradient_method`` (η_t = 2/(μ(t+1)), Prop. 0.1), ``accelerated_gradient`` (Nesterov AGD, Bubeck Thm 3.18),
``stochastic_subgradient_method`` (Thm 3.1/3.3), ``katyusha`` (Allen-Zhu 2018, Thm 3.2/3.4).

The domain.  Every objective is minimised over W = B(0, R) (``problem.domain``).  The paper minimises over
R^d and asks R to exceed every minimiser's norm by 1; Lemma 0.2 — the sensitivity lemma — is stated for any
closed convex W, so with constrained minimisers the sensitivity bounds hold for *every* public R and the
privacy guarantee no longer rests on R being a valid universe-wide bound (pitfall P4).  When R is valid in
the paper's sense the constrained and unconstrained minimisers coincide and nothing changes.

Privacy rests on a certificate, never on accuracy in expectation (pitfall P1)
------------------------------------------------------------------------------
The proofs of Props 2.1/2.2 need ‖w_T − w*‖ ≤ √(2α/modulus) on *every* run.  After 𝓜 returns w_T, the
a-posteriori certificate of :func:`reference.certified.certify` (duality gap / strong-convexity gap) must
bound ‖w_T − w*‖ by √(2α/modulus); otherwise (``fallback="certified_solver"``, default) w_T is replaced by
the output of the certified solver (which certifies its own distance), or (``fallback="refuse"``)
:class:`reference.certified.UncertifiedError` is raised.  The noise is calibrated with the public α before
the data is read, so the released distribution never depends on which path was taken; the claim records
the certificate.  (Which path was taken, the iteration count and the exception are side channels outside
the claim; with the theorem's T for the deterministic methods the certificate normally passes.)

Departures from the printed text (each also in ERRATA.md's LR section, with the test that shows it)
---------------------------------------------------------------------------------------------------
* LR-E1  Alg. 2 line 2 noise uses Δ_λ + 2√(2ε/λ): we use 2√(2α/λ) (proof of Prop. 2.2); printed reachable via
  ``sensitivity_T(..., printed="alg2")``.
* LR-E2  Alg. 2 line 2, δ > 0: printed density has σ_Zhao/√2; we use Zhao's σ (``noise.zhao_sigma``).
* LR-E3  Alg. 3 line 2, δ > 0: Δ + 2α/μ printed; we use Δ + 2√(2α/μ) (``printed="alg3"``).
* LR-E4  Prop. 4.2: C_τ printed, C_τ² follows from Lemma 0.5 + Thm 0.3 (``proposition_4_2_bound(printed=...)``).
* LR-E5  Thm 0.4-2b: α = LR(s_δ/n)^{3/2} breaks the constant 25 unless s_δ ≲ 1; corrected /(1 + s_δ)².
* LR-E6  Prop. 4.1 (δ = 0) α breaks the constant 9; corrected α = (L²C_τ/μ)min{C_τ/n², s₀/n}.
* LR-E7  Iteration counts that do not reach the printed α (Thm 3.3's T; Thm 2.4a's α is the larger branch
  of Thm 0.5's min): the rigorous counts are the defaults, the printed ones are separate functions.
* LR-E8  Thm 0.3/0.5 "E⟨∇F(w_T), Π(w_T + z) − w_T⟩ = 0" is false when the projection is active; we provide
  the rigorous master bounds (``master_bound_*``).
* Integer T: ⌈·⌉ everywhere; AGD uses projected steps (Nesterov 2018, §2.2.4) so iterates stay in B(0, R).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np
from scipy.special import expit, log_expit, logsumexp

from .certified import Certificate, UncertifiedError, certified_minimize, certify
from .domains import Ball
from .noise import NoiseCalibration, calibrate, noise_factor, noise_moments, perturb_and_project, project_ball
from .privacy import PrivacyClaim, Release
from .problem import ERMProblem
from .validation import (as_float_vector, check_delta, check_epsilon, check_positive, check_positive_int,
                         check_rng)

__all__ = [
    "GLMObjective", "InnerResult", "UncertifiedError", "certified_inner", "algorithm_1_parameters",
    "algorithm_2_parameters",
    "subgradient_method", "accelerated_gradient", "stochastic_subgradient_method", "katyusha",
    "subgradient_iterations", "agd_iterations", "katyusha_gradient_order",
    "sensitivity_alg1", "sensitivity_alg2", "sensitivity_T",
    "algorithm_1", "algorithm_2",
    "theorem_0_2_bound", "theorem_0_3_bound", "theorem_2_1_parameters", "theorem_2_1_bound",
    "theorem_2_2_parameters", "theorem_2_2_bound", "theorem_0_4_lambda", "theorem_0_4_alpha",
    "theorem_0_4_bound", "theorem_0_4_general_bound", "theorem_2_3_parameters", "theorem_2_3_bound",
    "theorem_0_5_lambda", "theorem_0_5_alpha", "theorem_0_5_bound", "theorem_2_4_parameters",
    "theorem_2_4_bound", "theorem_3_1_parameters", "theorem_3_1_bound", "theorem_3_2_bound",
    "theorem_3_3_parameters", "theorem_3_3_bound", "theorem_3_4_bound", "proposition_4_1_alpha",
    "proposition_4_1_bound", "proposition_4_2_bound", "lemma_0_5_sensitivity", "lemma_4_2_smoothness",
    "theorem_4_1_bound", "theorem_4_1_gradient_order",
    "master_bound_lipschitz_alg1", "master_bound_smooth_alg1", "master_bound_lipschitz_alg2",
    "master_bound_smooth_alg2", "master_bound_population",
]

PAPER = "Lowy & Razaviyayn (AAAI 2021)"
Method = Literal["subgradient", "agd", "sgd", "katyusha"]
Fallback = Literal["certified_solver", "refuse"]
SensitivityMode = Literal["paper", "tight"]


# ================================================================================================
# Objectives with gradient counters
# ================================================================================================


@dataclass
class GLMObjective:
    """F(w) = (1/n) Σ φ(⟨w, x_i⟩, y_i) + (reg/2)‖w‖² on W = B(0, R), with gradient counters.

    ``sample_gradients`` counts per-sample (sub)gradient evaluations (a full gradient counts n);
    ``full_gradients`` counts full-gradient calls.  Shapes: X (n, d), y (n,), w (d,).
    """

    loss: Any
    X: np.ndarray
    y: np.ndarray
    reg: float
    radius: float
    sample_gradients: int = 0
    full_gradients: int = 0

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def value(self, w: np.ndarray) -> float:
        return float(np.mean(self.loss.phi(self.X @ w, self.y)) + 0.5 * self.reg * (w @ w))

    def grad(self, w: np.ndarray) -> np.ndarray:
        """Full (sub)gradient ∇F(w) (counts n per-sample gradients)."""
        self.sample_gradients += self.n
        self.full_gradients += 1
        return self.X.T @ self.loss.dphi(self.X @ w, self.y) / self.n + self.reg * w

    def data_sample_grad(self, w: np.ndarray, i: int) -> np.ndarray:
        """∇φ(⟨w, x_i⟩, y_i) (data term only; counts 1)."""
        self.sample_gradients += 1
        x = self.X[i]
        return self.loss.dphi(np.array([x @ w]), self.y[i:i + 1])[0] * x

    def sample_grad(self, w: np.ndarray, i: int) -> np.ndarray:
        """∇f(w, x_i) = ∇φ(⟨w, x_i⟩, y_i) + reg·w (counts 1)."""
        return self.data_sample_grad(w, i) + self.reg * w

    def certify(self, w: np.ndarray) -> Certificate:
        """A-posteriori certificate over B(0, R) (reference.certified; its lam is reg/2)."""
        return certify(self.loss, self.X, self.y, Ball(self.radius), w, lam=0.5 * self.reg)

    def certified_solution(self, tol: float) -> tuple[np.ndarray, Certificate]:
        sol = certified_minimize(self.loss, self.X, self.y, Ball(self.radius), lam=0.5 * self.reg, tol=tol)
        return sol.w, sol.certificate


# ================================================================================================
# Inner optimisers 𝓜 and their iteration counts
# ================================================================================================


def subgradient_iterations(lipschitz: float, modulus: float, alpha: float) -> int:
    """T = ⌈2L²/(μα)⌉ (Prop. 0.1 / Aravkin et al. 2017; Bubeck 2015 Thm 3.9: error ≤ 2L²/(μ(T+1)))."""
    L, mu, a = (check_positive(lipschitz, "lipschitz"), check_positive(modulus, "modulus"),
                check_positive(alpha, "alpha"))
    return max(1, math.ceil(2.0 * L * L / (mu * a)))


def agd_iterations(modulus: float, smoothness: float, radius: float, alpha: float) -> int:
    """T = ⌈√κ log((μ + β)R²/(2α))⌉, κ = β/μ (proof of Thm 2.2, Bubeck 2015 Thm 3.18); 0 if the log < 0."""
    mu, beta = check_positive(modulus, "modulus"), check_positive(smoothness, "smoothness")
    R, a = check_positive(radius, "radius"), check_positive(alpha, "alpha")
    arg = (mu + beta) * R * R / (2.0 * a)
    return 0 if arg <= 1.0 else math.ceil(math.sqrt(max(beta / mu, 1.0)) * math.log(arg))


def katyusha_gradient_order(n: int, kappa: float, lipschitz: float, radius: float, alpha: float) -> float:
    """(n + √(nκ)) log(LR/α): the O(·) of Thm 3.2 / Thm 0.6 (hidden constant not given; a scaling form)."""
    return (n + math.sqrt(n * kappa)) * math.log(max(lipschitz * radius / alpha, math.e))


def subgradient_method(obj: GLMObjective, modulus: float, T: int, *,
                       output: Literal["weighted", "best"] = "weighted") -> np.ndarray:
    """Projected subgradient method, η_t = 2/(μ(t+1)) (Thm 2.1; Prop. 0.1; Bubeck Thm 3.9).

    Output: the weighted average Σ_t 2t/(T(T+1)) w_t (default) or the best iterate (Prop. 0.1; costs T
    function values).  Both satisfy F − F* ≤ 2L²/(μ(T+1)) deterministically."""
    mu = check_positive(modulus, "modulus")
    w = np.zeros(obj.d)  # w_1 = 0 (data-independent; spec U2)
    avg = np.zeros(obj.d)
    best, best_val = w.copy(), math.inf
    for t in range(1, T + 1):
        if output == "best":
            v = obj.value(w)
            if v < best_val:
                best, best_val = w.copy(), v
        avg += (2.0 * t / (T * (T + 1.0))) * w
        g = obj.grad(w)  # one full (sub)gradient evaluation
        w = project_ball(w - 2.0 / (mu * (t + 1.0)) * g, obj.radius)  # w_{t+1} = Π(w_t − η_t g_t)
    return avg if output == "weighted" else best


def accelerated_gradient(obj: GLMObjective, modulus: float, smoothness: float, T: int) -> np.ndarray:
    """Nesterov's AGD for μ-strongly convex, β-smooth F, constant momentum (Bubeck 2015 §3.7.1, Thm 3.18).

    x_1 = y_1 = 0, q = (√κ − 1)/(√κ + 1); y_{s+1} = Π(x_s − ∇F(x_s)/β); x_{s+1} = (1 + q)y_{s+1} − q y_s;
    returns y_{T+1}.  The projection (Nesterov 2018 §2.2.4, constant step scheme for simple sets) keeps
    the iterates in B(0, R); with R = ∞ it is Bubeck's method exactly."""
    mu, beta = check_positive(modulus, "modulus"), check_positive(smoothness, "smoothness")
    kappa = max(beta / mu, 1.0)
    q = (math.sqrt(kappa) - 1.0) / (math.sqrt(kappa) + 1.0)
    x = np.zeros(obj.d)
    y_prev = np.zeros(obj.d)
    for _ in range(T):
        y_new = project_ball(x - obj.grad(x) / beta, obj.radius)
        x = (1.0 + q) * y_new - q * y_prev
        y_prev = y_new
    return y_prev


def stochastic_subgradient_method(obj: GLMObjective, modulus: float, T: int, rng: np.random.Generator) -> np.ndarray:
    """Projected SGD, η_t = 2/(μ(t+1)), one uniform per-sample subgradient per step, weighted average
    (Thm 3.1 / 3.3; Bubeck Thm 6.2).  Accuracy holds only **in expectation** — never a privacy guarantee by
    itself (pitfall P1): :func:`algorithm_1` certifies its output."""
    mu = check_positive(modulus, "modulus")
    rng = check_rng(rng)
    w = np.zeros(obj.d)
    avg = np.zeros(obj.d)
    idx = rng.integers(0, obj.n, size=T)
    for t in range(1, T + 1):
        avg += (2.0 * t / (T * (T + 1.0))) * w
        g = obj.sample_grad(w, int(idx[t - 1]))
        w = project_ball(w - 2.0 / (mu * (t + 1.0)) * g, obj.radius)
    return avg


def katyusha(obj: GLMObjective, smoothness_data: float, epochs: int, rng: np.random.Generator) -> np.ndarray:
    """Katyusha (Allen-Zhu 2018, Alg. 1, Option II) on (1/n)Σ g_i + ψ, g_i = φ(⟨·, x_i⟩, y_i) (β-smooth),
    ψ = (σ/2)‖w‖² + ι_{B(0,R)} (σ = obj.reg), as in the proof of Thm 0.6 (spec M4).

    m = 2n, τ₂ = ½, τ₁ = min(√(mσ/(3β)), ½), a = 1/(3τ₁β); prox_{aψ}(v) = Π(v/(1 + aσ)).  Per epoch: n
    per-sample gradients for the snapshot, 2 per inner step.  Accuracy in expectation only (P1)."""
    rng = check_rng(rng)
    sigma = check_positive(obj.reg, "obj.reg")
    Lsm = check_positive(smoothness_data, "smoothness_data")
    n, d = obj.n, obj.d
    m = 2 * n
    tau2 = 0.5
    tau1 = min(math.sqrt(m * sigma / (3.0 * Lsm)), 0.5)
    a = 1.0 / (3.0 * tau1 * Lsm)
    y = np.zeros(d)
    z = np.zeros(d)
    xt = np.zeros(d)
    logw = np.arange(m) * math.log1p(a * sigma)  # (1 + aσ)^j, normalised in log space (no overflow)
    weights = np.exp(logw - logw.max())
    weights = weights / weights.sum()
    for _ in range(epochs):
        mu_s = obj.X.T @ obj.loss.dphi(obj.X @ xt, obj.y) / n  # snapshot full gradient of the data term
        obj.sample_gradients += n
        obj.full_gradients += 1
        snap_grads = obj.loss.dphi(obj.X @ xt, obj.y)  # cached φ'(⟨x̃, x_i⟩)
        acc = np.zeros(d)
        idx = rng.integers(0, n, size=m)
        for j in range(m):
            x = tau1 * z + tau2 * xt + (1.0 - tau1 - tau2) * y
            i = int(idx[j])
            gt = mu_s + obj.data_sample_grad(x, i) - snap_grads[i] * obj.X[i]
            obj.sample_gradients += 1  # ∇g_i(x̃) read from the cache, counted as an evaluation
            z_new = project_ball((z - a * gt) / (1.0 + a * sigma), obj.radius)
            y = x + tau1 * (z_new - z)  # Option II
            z = z_new
            acc += weights[j] * y
        xt = project_ball(acc, obj.radius)
    return xt


# ================================================================================================
# Sensitivities (Lemma 0.1, Alg. 1–3 line 2)
# ================================================================================================


def sensitivity_alg1(lipschitz: float, modulus: float, n: int, *, erm: bool) -> float:
    """Δ_F = 2L/(μn) (F ∈ 𝓕^ERM) or 2L/μ (Alg. 1 line 2; Lemma 0.1)."""
    L, mu = check_positive(lipschitz, "lipschitz"), check_positive(modulus, "modulus")
    return 2.0 * L / (mu * check_positive_int(n, "n")) if erm else 2.0 * L / mu


def sensitivity_alg2(lipschitz: float, lam: float, radius: float, n: int, *, erm: bool) -> float:
    """Δ_λ = 2(L + λR)/(λn) (ERM) or 2(L + λR)/λ (Alg. 2 line 2)."""
    L, lm, R = check_positive(lipschitz, "lipschitz"), check_positive(lam, "lam"), check_positive(radius, "radius")
    base = 2.0 * (L + lm * R) / lm
    return base / check_positive_int(n, "n") if erm else base


def sensitivity_T(delta_F: float, alpha: float, modulus: float, *, epsilon: float | None = None,
                  printed: Literal[False, "alg2", "alg3"] = False) -> float:
    """Δ_T = Δ + 2√(2α/modulus) (proofs of Props 2.1/2.2; spec §1.5): the sensitivity of an α-accurate w_T.

    ``printed="alg2"``: Alg. 2's printed Δ_λ + 2√(2ε/λ) (needs ``epsilon``; erratum LR-E1);
    ``printed="alg3"``: Alg. 3's printed Δ + 2α/μ (erratum LR-E3).  For comparison only."""
    D = check_positive(delta_F, "delta_F")
    a, mu = check_positive(alpha, "alpha"), check_positive(modulus, "modulus")
    if printed is False:
        return D + 2.0 * math.sqrt(2.0 * a / mu)
    if printed == "alg2":
        return D + 2.0 * math.sqrt(2.0 * check_epsilon(epsilon) / mu)
    if printed == "alg3":
        return D + 2.0 * a / mu
    raise ValueError(f"printed must be False, 'alg2' or 'alg3', got {printed!r}")


# ================================================================================================
# Theorem bounds and parameters (plain functions of public inputs)
# ================================================================================================


def _s(d: int, eps: float, delta: float) -> float:
    return noise_factor(d, eps, delta)


def theorem_0_2_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float, alpha: float, *,
                      erm: bool) -> float:
    """Thm 0.2 (Alg. 1, any 𝓜): 2√2(L²/μ[n] + L√(2α/μ))s₀ + α (δ = 0) or 2(…)s_δ + α (δ > 0)."""
    s = _s(d, eps, delta)
    lead = L * L / (mu * n) if erm else L * L / mu
    c = 2.0 * math.sqrt(2.0) if delta == 0 else 2.0
    return c * (lead + L * math.sqrt(2.0 * alpha / mu)) * s + alpha


def theorem_0_3_bound(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float, alpha: float, *,
                      erm: bool) -> float:
    """Thm 0.3 (Alg. 1 on 𝓗, any 𝓜): 4β(L/(μ[n]) + √(2α/μ))²s₀² + α (δ = 0); 2β(…)²s_δ² + α (δ > 0).
    (Its proof's projection step is erratum LR-E8: valid when the projection is inactive.)"""
    s = _s(d, eps, delta)
    lead = L / (mu * n) if erm else L / mu
    c = 4.0 if delta == 0 else 2.0
    return c * beta * (lead + math.sqrt(2.0 * alpha / mu)) ** 2 * s * s + alpha


def theorem_2_1_parameters(L: float, mu: float, d: int, eps: float, delta: float) -> tuple[float, int, int]:
    """Thm 2.1 (non-ERM, subgradient): α = L²s/μ; (T_printed, T_rigorous) = (2/s as printed: 2ε/d or
    2/s_δ, rounded up; ⌈2L²/(μα)⌉ = ⌈2/s⌉)."""
    s = _s(d, eps, delta)
    alpha = L * L * s / mu
    return alpha, math.ceil(2.0 / s), subgradient_iterations(L, mu, alpha)


def theorem_2_1_bound(L: float, mu: float, d: int, eps: float, delta: float) -> float:
    """Thm 2.1: 9L²s/μ (both δ = 0 and δ > 0 as printed; Thm 0.2 gives 6 for δ > 0)."""
    return 9.0 * L * L * _s(d, eps, delta) / mu


def theorem_2_2_parameters(L: float, mu: float, beta: float, R: float, d: int, eps: float, delta: float, *,
                           n: int = 1, erm: bool = False) -> tuple[float, int, int]:
    """Thm 2.2 (non-ERM) / Thm 0.3-2 (ERM), AGD: α = (L²/(μ[n²]))min{κs², 1};
    (T_printed = ⌈√κ log(βR²μ/L² · max{1, 1/(κs²)})⌉ (non-ERM), T_rigorous = ``agd_iterations``)."""
    s, kappa = _s(d, eps, delta), beta / mu
    alpha = L * L / mu * min(kappa * s * s, 1.0) / (n * n if erm else 1.0)
    t_pr = math.ceil(math.sqrt(kappa) * math.log(max(beta * R * R * mu / (L * L) * max(1.0, 1.0 / (kappa * s * s)),
                                                      1.0)))
    return alpha, t_pr, agd_iterations(mu, beta, R, alpha)


def theorem_2_2_bound(L: float, mu: float, beta: float, d: int, eps: float, delta: float, *, n: int = 1,
                      erm: bool = False) -> float:
    """Thm 2.2 / 0.3-2: 26κL²s²/μ (δ = 0), 13.5κL²s²/μ (δ > 0); s → s/n for ERM."""
    s = _s(d, eps, delta) / (n if erm else 1)
    return (26.0 if delta == 0 else 13.5) * (beta / mu) * L * L * s * s / mu


def theorem_0_4_lambda(L: float, R: float, n: int, d: int, eps: float, delta: float, *, erm: bool) -> float:
    """Thm 0.4: λ = L/(R√(1 + n/s)) (ERM) or L/(R√(1 + 1/s))."""
    s = _s(d, eps, delta)
    return L / (R * math.sqrt(1.0 + (n if erm else 1) / s))


def theorem_0_4_alpha(L: float, R: float, n: int, d: int, eps: float, delta: float, *, erm: bool,
                      printed: bool = False) -> float:
    """Thm 0.4: α = LRs^{3/2} (non-ERM); ERM δ = 0: LR(s₀/n)^{3/2}/(1 + s₀)²; ERM δ > 0: printed
    LR(s_δ/n)^{3/2}, corrected (default) LR(s_δ/n)^{3/2}/(1 + s_δ)² (erratum LR-E5)."""
    s = _s(d, eps, delta)
    if not erm:
        return L * R * s**1.5
    base = L * R * (s / n) ** 1.5
    if delta > 0 and printed:
        return base
    return base / (1.0 + s) ** 2


def theorem_0_4_general_bound(L: float, R: float, n: int, d: int, eps: float, delta: float, alpha: float, *,
                              erm: bool) -> float:
    """Thm 0.4's bound before α is fixed: non-ERM 16.5LR√s + 32√(αLR)s^{-1/4} (δ = 0), 13LR√s + 12√(αLR)s^{-1/4};
    ERM 16.5LR√(s/n) + 16√(αLR)(n/s)^{1/4}(1 + s) (δ = 0), 13LR√(s/n) + 12√(αLR)(n/s)^{1/4} (δ > 0, as printed)."""
    s = _s(d, eps, delta)
    if not erm:
        if delta == 0:
            return 16.5 * L * R * math.sqrt(s) + 32.0 * math.sqrt(alpha * L * R) * s**-0.25
        return 13.0 * L * R * math.sqrt(s) + 12.0 * math.sqrt(alpha * L * R) * s**-0.25
    if delta == 0:
        return 16.5 * L * R * math.sqrt(s / n) + 16.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25 * (1.0 + s)
    return 13.0 * L * R * math.sqrt(s / n) + 12.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25


def theorem_0_4_bound(L: float, R: float, n: int, d: int, eps: float, delta: float, *, erm: bool) -> float:
    """Thm 0.4 / 2.3 final constants: non-ERM 49LR√s (δ = 0), 25LR√s; ERM 33LR√(s/n), 25LR√(s/n)."""
    s = _s(d, eps, delta)
    if erm:
        return (33.0 if delta == 0 else 25.0) * L * R * math.sqrt(s / n)
    return (49.0 if delta == 0 else 25.0) * L * R * math.sqrt(s)


def theorem_2_3_parameters(L: float, R: float, d: int, eps: float, delta: float, *, n: int = 1,
                           erm: bool = False) -> tuple[float, float, int, int]:
    """Thm 2.3 / 0.4 with the subgradient method: (λ, α, T_printed = ⌈12/s²⌉, T_rigorous = ⌈2(L+λR)²/(λα)⌉)."""
    s = _s(d, eps, delta)
    lam = theorem_0_4_lambda(L, R, n, d, eps, delta, erm=erm)
    alpha = theorem_0_4_alpha(L, R, n, d, eps, delta, erm=erm)
    return lam, alpha, math.ceil(12.0 / (s * s)), subgradient_iterations(L + lam * R, lam, alpha)


def theorem_2_3_bound(L: float, R: float, d: int, eps: float, delta: float) -> float:
    """Thm 2.3: 49LR√(d/ε) (δ = 0), 25LR√s_δ (δ > 0) (= Thm 0.4 non-ERM)."""
    return theorem_0_4_bound(L, R, 1, d, eps, delta, erm=False)


def theorem_0_5_lambda(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                       erm: bool) -> float:
    """Thm 0.5: λ = (βL²/R²)^{1/3}(s/n)^{2/3} (ERM) or (βL²/R²)^{1/3}s^{2/3}."""
    s = _s(d, eps, delta) / (n if erm else 1)
    return (beta * L * L / (R * R)) ** (1.0 / 3.0) * s ** (2.0 / 3.0)


def theorem_0_5_alpha(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 0.5: α = min{L^{4/3}R^{2/3}β^{-1/3}s^{-2/3}[n^{-4/3}], β^{1/3}L^{2/3}R^{4/3}(s[/n])^{2/3}}."""
    s = _s(d, eps, delta)
    a1 = L ** (4 / 3) * R ** (2 / 3) * beta ** (-1 / 3) * s ** (-2 / 3) * (n ** (-4 / 3) if erm else 1.0)
    a2 = beta ** (1 / 3) * L ** (2 / 3) * R ** (4 / 3) * (s / (n if erm else 1)) ** (2 / 3)
    return min(a1, a2)


def theorem_0_5_bound(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 0.5 / 2.4: 146β^{1/3}L^{2/3}R^{4/3}(s[/n])^{2/3} (δ = 0), 27·(…) (δ > 0)."""
    s = _s(d, eps, delta) / (n if erm else 1)
    return (146.0 if delta == 0 else 27.0) * beta ** (1 / 3) * L ** (2 / 3) * R ** (4 / 3) * s ** (2 / 3)


def theorem_2_4_parameters(L: float, R: float, beta: float, d: int, eps: float, *, printed: bool) -> tuple[float, int]:
    """Thm 2.4a (δ = 0): printed α = L^{4/3}R^{2/3}β^{-1/3}(ε/d)^{2/3}, T = ⌈√2(βRε/(Ld))^{1/3}
    log(2(βR/L)^{4/3}(d/ε)^{2/3})⌉; ``printed=False``: Thm 0.5's α and the AGD count on F_λ (erratum LR-E7)."""
    s = d / eps
    if printed:
        alpha = L ** (4 / 3) * R ** (2 / 3) * beta ** (-1 / 3) * s ** (-2 / 3)
        T = math.ceil(math.sqrt(2) * (beta * R / (L * s)) ** (1 / 3)
                      * math.log(max(2 * (beta * R / L) ** (4 / 3) * s ** (2 / 3), 1.0)))
        return alpha, T
    lam = theorem_0_5_lambda(L, R, beta, 1, d, eps, 0.0, erm=False)
    alpha = theorem_0_5_alpha(L, R, beta, 1, d, eps, 0.0, erm=False)
    return alpha, agd_iterations(lam, beta + lam, R, alpha)


def theorem_2_4_bound(L: float, R: float, beta: float, d: int, eps: float, delta: float) -> float:
    return theorem_0_5_bound(L, R, beta, 1, d, eps, delta, erm=False)


def theorem_3_1_parameters(L: float, mu: float, n: int, d: int, eps: float, delta: float) -> tuple[float, int]:
    """Thm 3.1: α = (L²/(μn))min{1/n, s}, T = ⌈2n·max{n, 1/s}⌉ (= ⌈2L²/(μα)⌉; printed T for δ > 0 garbled, E6)."""
    s = _s(d, eps, delta)
    return L * L / (mu * n) * min(1.0 / n, s), math.ceil(2.0 * n * max(n, 1.0 / s))


def theorem_3_1_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.1: (L²/μ)(5/n + 9s₀/n) (δ = 0), (L²/μ)(5/n + 6s_δ/n) (δ > 0)."""
    s = _s(d, eps, delta)
    return L * L / mu * (5.0 / n + (9.0 if delta == 0 else 6.0) * s / n)


def theorem_3_2_bound(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.2: (L²/μ)(5/n + 26κ(s/n)²) (δ = 0), 13.5κ (δ > 0)."""
    s = _s(d, eps, delta) / n
    return L * L / mu * (5.0 / n + (26.0 if delta == 0 else 13.5) * (beta / mu) * s * s)


def theorem_3_3_parameters(L: float, R: float, n: int, d: int, eps: float, delta: float, *,
                           printed: bool) -> tuple[float, float, int]:
    """Thm 3.3 (λ not given by the paper).  ``printed=True``: Thm 0.4's ERM λ, the printed α and T
    (T = 2n²max{1, 1/s₀²} (δ = 0), 2n²ε/d (δ > 0)) — which does NOT reach α (erratum LR-E7);
    ``printed=False``: the spec's safe choice m = 1/√(1 + min{n, n/s}), λ = Lm/R, α = LRm/(32n(1+s)²),
    T = ⌈2(L + λR)²/(λα)⌉.  Returns (λ, α, T)."""
    s = _s(d, eps, delta)
    if printed:
        lam = theorem_0_4_lambda(L, R, n, d, eps, delta, erm=True)
        if delta == 0:
            alpha = L * R * (s / n) ** 1.5 / (1 + s) ** 2
            T = math.ceil(2 * n * n * max(1.0, 1.0 / (s * s)))
        else:
            alpha = L * R * (s / n) ** 1.5
            T = math.ceil(2 * n * n * eps / d)
        return lam, alpha, T
    m = 1.0 / math.sqrt(1.0 + min(n, n / s))
    lam = L * m / R
    alpha = L * R * m / (32.0 * n * (1.0 + s) ** 2)
    return lam, alpha, subgradient_iterations(L + lam * R, lam, alpha)


def theorem_3_3_bound(L: float, R: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.3: 32LR(√(s/n) + 1/√n)."""
    return 32.0 * L * R * (math.sqrt(_s(d, eps, delta) / n) + 1.0 / math.sqrt(n))


def theorem_3_4_bound(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.4: 64β^{1/3}L^{2/3}R^{4/3}(1/√n + (s/n)^{2/3})."""
    s = _s(d, eps, delta)
    return 64.0 * beta ** (1 / 3) * L ** (2 / 3) * R ** (4 / 3) * (1 / math.sqrt(n) + (s / n) ** (2 / 3))


# -- Tilted ERM (Sec. 4) ------------------------------------------------------------------------------


def lemma_0_5_sensitivity(L: float, mu: float, n: int, C_tau: float, *, tight: bool = False) -> float:
    """Lemma 0.5: Δ_{F_τ} ≤ 2LC_τ/(μn); ``tight``: (2L/μ)min{1, C_τ/n} (corrected proof, spec §4.4)."""
    if tight:
        return 2.0 * L / mu * min(1.0, C_tau / n)
    return 2.0 * L * C_tau / (mu * n)


def lemma_4_2_smoothness(beta: float, L: float, tau: float, *, proof: bool = False) -> float:
    """Lemma 4.2: β_τ = β + L²τ (statement; correct); ``proof=True``: β + 2L²τ (the proof's conclusion)."""
    return beta + (2.0 if proof else 1.0) * L * L * tau


def proposition_4_1_alpha(L: float, mu: float, n: int, d: int, eps: float, delta: float, C_tau: float, *,
                          printed: bool = False) -> float:
    """Prop. 4.1's α.  δ = 0 printed: (L²C_τ/(μn))min{1/n, C_τd/ε}; corrected (default, LR-E6) and δ > 0:
    (L²C_τ/μ)min{C_τ/n², s/n}."""
    s = _s(d, eps, delta)
    if delta == 0 and printed:
        return L * L * C_tau / (mu * n) * min(1.0 / n, C_tau * d / eps)
    return L * L * C_tau / mu * min(C_tau / n**2, s / n)


def proposition_4_1_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float, C_tau: float) -> float:
    """Prop. 4.1: 9L²C_τs/(μn)."""
    return 9.0 * L * L * C_tau * _s(d, eps, delta) / (mu * n)


def proposition_4_2_bound(L: float, mu: float, beta_tau: float, n: int, d: int, eps: float, delta: float,
                          C_tau: float, *, printed: bool = False) -> float:
    """Prop. 4.2: 26κ_τL²C_τ^k/μ (s/n)² (δ = 0), 13.5 (δ > 0); k = 1 as printed, k = 2 corrected (LR-E4)."""
    s = _s(d, eps, delta) / n
    c = C_tau if printed else C_tau**2
    return (26.0 if delta == 0 else 13.5) * (beta_tau / mu) * L * L * c / mu * s * s


# -- Adversarial training (Thm 4.1) -------------------------------------------------------------------


def theorem_4_1_bound(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 4.1 (needs G_D β-smooth, erratum E11): 26κL²s²/μ (δ = 0), 13.5κ (δ > 0), s → s/n for ERM."""
    return theorem_2_2_bound(L, mu, beta, d, eps, delta, n=n, erm=erm)


def theorem_4_1_gradient_order(L: float, mu: float, beta: float, beta_v: float, n: int, d: int, eps: float,
                               delta: float, rho: float, *, erm: bool) -> float:
    """Thm 4.1's Õ count: √(ββ_v/(L² min{κs², 1}))·√n ρ (non-ERM), × n (ERM): the scaling form."""
    s = _s(d, eps, delta)
    base = math.sqrt(beta * beta_v / (L * L * min(beta / mu * s * s, 1.0))) * math.sqrt(n) * rho
    return base * n if erm else base


# -- Rigorous master bounds (spec §4.0; exact noise moments) -----------------------------------------


def master_bound_lipschitz_alg1(L: float, alpha: float, modulus: float, mean_norm: float) -> float:
    """MB1: E F(w_A) − F* ≤ L(√(2α/μ) + E‖z‖) (no condition on the projection)."""
    return L * (math.sqrt(2.0 * alpha / modulus) + mean_norm)


def master_bound_smooth_alg1(beta: float, alpha: float, modulus: float, mean_sq_norm: float) -> float:
    """MB2(ii): E F(w_A) − F* ≤ κα + (β/2)E‖z‖² (valid with the projection; Thm 0.3's step, LR-E8)."""
    return beta / modulus * alpha + 0.5 * beta * mean_sq_norm


def master_bound_lipschitz_alg2(L: float, lam: float, R: float, alpha: float, mean_norm: float) -> float:
    """MB3: E F(w_A) − F* ≤ (L + λR)(√(2α/λ) + E‖z‖) + λR²/2."""
    return (L + lam * R) * (math.sqrt(2.0 * alpha / lam) + mean_norm) + 0.5 * lam * R * R


def master_bound_smooth_alg2(beta: float, lam: float, R: float, alpha: float, mean_sq_norm: float) -> float:
    """MB4: E F(w_A) − F* ≤ λR²/2 + (β + λ)α/λ + ((β + λ)/2)E‖z‖²."""
    return 0.5 * lam * R * R + (beta + lam) * alpha / lam + 0.5 * (beta + lam) * mean_sq_norm


def master_bound_population(L: float, sensitivity_T_value: float, empirical_bound: float) -> float:
    """MB5: E[population excess] ≤ L·Δ_T (uniform stability, Lemma 0.4) + E[empirical excess bound]."""
    return L * sensitivity_T_value + empirical_bound


# ================================================================================================
# The certified inner step (shared by Algorithms 1–3)
# ================================================================================================


@dataclass
class InnerResult:
    w: np.ndarray
    certificate: Certificate
    path: str
    gradient_evaluations: int
    T: int
    details: dict[str, Any] = field(default_factory=dict)


def _run_inner(obj: GLMObjective, method: Method | Callable[..., np.ndarray], modulus: float, T: int,
               smoothness: float | None, rng: np.random.Generator) -> np.ndarray:
    if callable(method):
        return as_float_vector(method(obj, rng), "optimizer output", obj.d)
    if method == "subgradient":
        return subgradient_method(obj, modulus, T)
    if method == "agd":
        if smoothness is None:
            raise ValueError("method='agd' needs a smooth loss")
        return accelerated_gradient(obj, modulus, smoothness, T)
    if method == "sgd":
        return stochastic_subgradient_method(obj, modulus, T, rng)
    if method == "katyusha":
        if smoothness is None:
            raise ValueError("method='katyusha' needs a smooth loss")
        return katyusha(obj, smoothness - obj.reg, T, rng)
    raise ValueError(f"method must be 'subgradient', 'agd', 'sgd', 'katyusha' or a callable, got {method!r}")


def certified_inner(obj: GLMObjective, method: Method | Callable[..., np.ndarray], modulus: float, alpha: float,
                    T: int, smoothness: float | None, rng: np.random.Generator, *,
                    fallback: Fallback = "certified_solver") -> InnerResult:
    """Line 1 of Algorithms 1–3 with the certificate the privacy proof needs (module docstring).

    Accepts w_T iff the certified ‖w_T − argmin_{B(0,R)} F‖ ≤ √(2α/modulus); otherwise falls back to the
    certified solver (or raises UncertifiedError with ``fallback="refuse"``)."""
    radius_needed = math.sqrt(2.0 * alpha / modulus)
    w = project_ball(_run_inner(obj, method, modulus, T, smoothness, rng), obj.radius)
    w = _strictly_inside(w, obj.radius)
    cert = obj.certify(w)
    evals = obj.sample_gradients
    if cert.distance_bound is not None and cert.distance_bound <= radius_needed:
        return InnerResult(w, cert, f"{method if isinstance(method, str) else 'user optimizer'} (certified)",
                           evals, T)
    if fallback == "refuse":
        raise UncertifiedError(
            f"the inner method's output is not certified α-accurate: distance bound {cert.distance_bound!r} > "
            f"√(2α/μ) = {radius_needed!r}; refusing to release (fallback='refuse')", certificate=cert, w=w)
    if fallback != "certified_solver":
        raise ValueError(f"fallback must be 'certified_solver' or 'refuse', got {fallback!r}")
    w2, _ = obj.certified_solution(tol=0.5 * radius_needed if obj.loss.smooth else 0.25 * alpha)
    cert2 = obj.certify(w2)
    if cert2.distance_bound is None or cert2.distance_bound > radius_needed:
        raise UncertifiedError(f"certified solver reached distance {cert2.distance_bound!r} > {radius_needed!r}",
                               certificate=cert2, w=w2)
    return InnerResult(w2, cert2, "certified solver (inner method's output was not certified)", evals, T,
                       {"first_certificate_distance": cert.distance_bound})


def _strictly_inside(w: np.ndarray, R: float) -> np.ndarray:
    if math.isfinite(R):
        nw = float(np.linalg.norm(w))
        if nw > R * (1 - 1e-15):
            w = w * (R * (1 - 4e-15) / nw)
    return w


# ================================================================================================
# Algorithm 1
# ================================================================================================


def _check_inputs(problem: ERMProblem, X: Any, y: Any, epsilon: Any, delta: Any, rng: Any, clip: bool
                  ) -> tuple[np.ndarray, np.ndarray, int, float, float, np.random.Generator]:
    if not isinstance(problem, ERMProblem):
        raise TypeError(f"problem must be an ERMProblem, got {type(problem).__name__}")
    eps, dl, rng = check_epsilon(epsilon), check_delta(delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2) (c_delta, Thm 0.1), got {dl}")
    if not problem.domain.bounded:
        raise ValueError("problem.domain must be a bounded ball B(0, R): the paper's R (Sec. 1)")
    Xa, ya, n_clipped = problem.check(X, y, clip=clip)
    return Xa, ya, n_clipped, eps, dl, rng


def _claim(eps: float, dl: float, source: str, assumptions: dict[str, Any], inner: InnerResult,
           alpha: float, modulus: float) -> PrivacyClaim:
    cert = inner.certificate
    cond = (f"‖w_T − w*‖ ≤ √(2α/modulus) = {math.sqrt(2 * alpha / modulus):.6g} certified a posteriori "
            f"({cert.method}; distance ≤ {cert.distance_bound:.3g}; path: {inner.path})",
            "w* = argmin over B(0, R) (Lemma 0.2 on W = B(0, R)); replace-one neighbours with n fixed")
    return PrivacyClaim(notion="pure-DP" if dl == 0 else "approx-DP", epsilon=eps, delta=dl,
                        neighbouring="replace-one", source=source, assumptions=assumptions, conditions=cond)


def _release_noise(w_T: np.ndarray, cal: NoiseCalibration, R: float, rng: np.random.Generator,
                   replicates: int | None) -> np.ndarray:
    return perturb_and_project(w_T, cal, R, rng, None if replicates is None else check_positive_int(replicates,
                                                                                                   "replicates"))


def algorithm_1_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, mu: float, *,
                           method: Method | Callable[..., np.ndarray], erm: bool, alpha: float | None,
                           T: int | None, sensitivity_mode: SensitivityMode) -> dict[str, Any]:
    """Public parameters of Algorithm 1 on F = (1/n)Σℓ + (μ/2)‖w‖² over B(0, R), before the data is read.

    L = L_ℓ + μR (Lipschitz constant of f(·, x) on B(0, R), the paper's L); β = β_ℓ + μ.  Default α and T:
    subgradient: Thm 0.2 / 2.1 (α), Prop. 0.1 (T); agd: Thm 0.3 / 2.2 (α), AGD count (T); sgd: Thm 3.1;
    katyusha: Thm 3.2's α, T = epochs = ⌈log2(LR/α)⌉ + 1 (the O(·) constant is not given; certified anyway)."""
    R = problem.radius
    L_l = problem.lipschitz
    L = L_l + mu * R
    beta_l = problem.smoothness
    beta = None if beta_l is None else beta_l + mu
    s = noise_factor(d, epsilon, delta)
    kappa = None if beta is None else beta / mu
    if alpha is None:
        if method in ("agd", "katyusha") and beta is not None:
            alpha = L * L / mu * min(kappa * s * s, 1.0) / (n * n if erm else 1.0)
        elif erm:
            alpha = L * L / (mu * n) * min(1.0 / n, s)
        else:
            alpha = L * L * s / mu
    alpha = check_positive(alpha, "alpha")
    if T is None:
        if method in ("subgradient", "sgd"):
            T = subgradient_iterations(L, mu, alpha)
        elif method == "agd":
            T = agd_iterations(mu, check_positive(beta if beta is not None else -1.0, "smoothness"), R, alpha)
        elif method == "katyusha":
            T = max(1, math.ceil(math.log2(max(L * R / alpha, 2.0)))) + 1
        else:
            T = 0
    delta_F = (2.0 * L_l if sensitivity_mode == "tight" else 2.0 * L) / (mu * (n if erm else 1))
    if sensitivity_mode not in ("paper", "tight"):
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    dT = sensitivity_T(delta_F, alpha, mu)
    return {"mu": mu, "L": L, "L_loss": L_l, "beta": beta, "R": R, "alpha": alpha, "T": int(T), "erm": erm,
            "sensitivity_mode": sensitivity_mode, "Delta_F": delta_F, "Delta_T": dT, "s": s}


def algorithm_1(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    mu: float, method: Method | Callable[..., np.ndarray] = "agd", erm: bool = True, alpha: float | None = None,
    T: int | None = None, sensitivity_mode: SensitivityMode = "paper", gaussian: Literal["zhao", "analytic"] = "zhao",
    fallback: Fallback = "certified_solver", clip: bool = False, replicates: int | None = None,
) -> Release:
    """Algorithm 1: black-box output perturbation for μ-strongly convex F (Lowy & Razaviyayn, Alg. 1).

    F(w, X) = (1/n)Σ ℓ(w, z_i) + (μ/2)‖w‖² (ERM form; ``erm=False`` uses the non-ERM Δ_F = 2L/μ, valid and
    conservative), minimised over B(0, R) = ``problem.domain``.

    Parameters
    ----------
    X : (n, d) array; y : (n,) array (declared bounds checked; ``clip`` for data-independent clipping).
    problem : ERMProblem (GLM loss ℓ, W = B(0, R), declared bounds).
    epsilon : ε > 0 (any);  delta : δ ∈ [0, ½) (δ = 0: pure DP via the L2-Laplace noise).
    rng : numpy Generator (optimiser randomness and noise come from independent child streams).
    mu : μ > 0, the ridge modulus (part of F; public).
    method : 𝓜 — "agd" (Thm 2.2 / 0.3), "subgradient" (Thm 2.1 / 0.2), "sgd" (Thm 3.1), "katyusha"
        (Thm 3.2), or a callable ``(objective, rng) -> w`` (any black-box optimiser; certified like the others).
    alpha, T : accuracy and iteration count (defaults: the theorem's; both utility constants — the noise is
        calibrated to the α used and the certificate enforces it).
    sensitivity_mode : "paper" (Δ_F = 2L/(μn), L = L_ℓ + μR) or "tight" (2L_ℓ/(μn): the ridge cancels in Lemma 0.2).
    gaussian : "zhao" (paper) or "analytic" (Balle & Wang) calibration for δ > 0.
    fallback : what to do when the certificate fails (module docstring).
    replicates : release that many independent noisy outputs of the same certified w_T ((R, d) output);
        only for deterministic 𝓜 ("agd", "subgradient", a deterministic callable), used by auditors.

    Returns
    -------
    Release: output Π_{B(0,R)}(w_T + ẑ) (d,), claim (Prop. 2.1), gradient evaluations (per-sample) counted.

    Raises
    ------
    ValueError / TypeError on bad inputs; UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    mu_ = check_positive(mu, "mu")
    n, d = Xa.shape
    if replicates is not None and method in ("sgd", "katyusha"):
        raise ValueError("replicates needs a deterministic method ('agd', 'subgradient' or a deterministic callable)")
    p = algorithm_1_parameters(problem, n, d, eps, dl, mu_, method=method, erm=erm, alpha=alpha, T=T,
                               sensitivity_mode=sensitivity_mode)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)  # line 2's density, from public inputs only
    opt_rng, noise_rng = rng.spawn(2)
    obj = GLMObjective(problem.loss, Xa, ya, mu_, p["R"])
    inner = certified_inner(obj, method, mu_, p["alpha"], p["T"], p["beta"], opt_rng, fallback=fallback)  # line 1
    out = _release_noise(inner.w, cal, p["R"], noise_rng, replicates)  # line 2: Π_{B(0,R)}(w_T + ẑ)
    assumptions = {**problem.assumptions(), **{k: v for k, v in p.items() if k != "s"}, "noise": cal.to_dict(),
                   "data_clipping": f"{n_clipped} row(s) clipped" if n_clipped else "none"}
    claim = _claim(eps, dl, f"{PAPER}, Proposition 2.1 (Algorithm 1)"
                   + ("; Theorem 0.1 (Zhao et al. 2019)" if dl > 0 and gaussian == "zhao" else ""),
                   assumptions, inner, p["alpha"], mu_)
    return Release(output=out, claim=claim, gradient_evaluations=inner.gradient_evaluations,
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Algorithm 1 (Lowy & Razaviyayn 2021)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                "w_T": inner.w.copy(), **inner.details})


# ================================================================================================
# Algorithm 2
# ================================================================================================


def algorithm_2_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, *,
                           method: Method | Callable[..., np.ndarray], erm: bool, lam: float | None,
                           alpha: float | None, T: int | None) -> dict[str, Any]:
    """Public parameters of Algorithm 2 on F_λ = (1/n)Σℓ + (λ/2)‖w‖² over B(0, R), L = L_ℓ on B(0, R).

    Defaults: agd/katyusha (smooth): λ, α of Thm 0.5 (ERM) / 2.4 (non-ERM); subgradient/sgd: λ, α of
    Thm 0.4 (corrected α for ERM δ > 0, LR-E5); T rigorous (⌈2(L + λR)²/(λα)⌉ or the AGD count on F_λ)."""
    R, L = problem.radius, problem.lipschitz
    beta_l = problem.smoothness
    smooth_method = method in ("agd", "katyusha")
    if smooth_method and beta_l is None:
        raise ValueError(f"method={method!r} needs a smooth loss")
    if lam is None:
        lam = (theorem_0_5_lambda(L, R, beta_l, n, d, epsilon, delta, erm=erm) if smooth_method
               else theorem_0_4_lambda(L, R, n, d, epsilon, delta, erm=erm))
    lam = check_positive(lam, "lam")
    if alpha is None:
        alpha = (theorem_0_5_alpha(L, R, beta_l, n, d, epsilon, delta, erm=erm) if smooth_method
                 else theorem_0_4_alpha(L, R, n, d, epsilon, delta, erm=erm))
    alpha = check_positive(alpha, "alpha")
    beta = None if beta_l is None else beta_l + lam
    if T is None:
        if method in ("subgradient", "sgd"):
            T = subgradient_iterations(L + lam * R, lam, alpha)
        elif method == "agd":
            T = agd_iterations(lam, beta, R, alpha)
        elif method == "katyusha":
            T = max(1, math.ceil(math.log2(max(L * R / alpha, 2.0)))) + 1
        else:
            T = 0
    delta_lam = sensitivity_alg2(L, lam, R, n, erm=erm)
    return {"lam": lam, "L": L, "beta": beta, "R": R, "alpha": alpha, "T": int(T), "erm": erm,
            "Delta_lambda": delta_lam, "Delta_T": sensitivity_T(delta_lam, alpha, lam),
            "s": noise_factor(d, epsilon, delta)}


def algorithm_2(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    method: Method | Callable[..., np.ndarray] = "agd", erm: bool = True, lam: float | None = None,
    alpha: float | None = None, T: int | None = None, gaussian: Literal["zhao", "analytic"] = "zhao",
    fallback: Fallback = "certified_solver", clip: bool = False, replicates: int | None = None,
) -> Release:
    """Algorithm 2: output perturbation with regularisation for convex F (Lowy & Razaviyayn, Alg. 2).

    Line 1: 𝓜 on F_λ(w) = (1/n)Σℓ(w, z_i) + (λ/2)‖w‖² over B(0, R), certified α-accurate.
    Line 2: Δ_λ = 2(L + λR)/(λn) (ERM) or 2(L + λR)/λ; Δ_T = Δ_λ + 2√(2α/λ) — NOT the printed 2√(2ε/λ)
    (LR-E1) — and the noise of Algorithm 1 with Zhao's σ — NOT the printed σ/√2 (LR-E2); w_A = Π(w_T + ẑ).

    Parameters as in :func:`algorithm_1`, plus ``lam`` (default Thm 0.5 for smooth methods, Thm 0.4
    otherwise; λ is public — never tuned on the private data).  Privacy: Prop. 2.2.  Utility: Thms 2.3,
    2.4, 0.4, 0.5, 3.3, 3.4, and MB3/MB4.
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    n, d = Xa.shape
    if replicates is not None and method in ("sgd", "katyusha"):
        raise ValueError("replicates needs a deterministic method ('agd', 'subgradient' or a deterministic callable)")
    p = algorithm_2_parameters(problem, n, d, eps, dl, method=method, erm=erm, lam=lam, alpha=alpha, T=T)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)
    opt_rng, noise_rng = rng.spawn(2)
    obj = GLMObjective(problem.loss, Xa, ya, p["lam"], p["R"])
    inner = certified_inner(obj, method, p["lam"], p["alpha"], p["T"], p["beta"], opt_rng, fallback=fallback)
    out = _release_noise(inner.w, cal, p["R"], noise_rng, replicates)
    assumptions = {**problem.assumptions(), **{k: v for k, v in p.items() if k != "s"}, "noise": cal.to_dict(),
                   "data_clipping": f"{n_clipped} row(s) clipped" if n_clipped else "none"}
    claim = _claim(eps, dl, f"{PAPER}, Proposition 2.2 (Algorithm 2; noise with α and Zhao's σ, ERRATA LR-E1/E2)",
                   assumptions, inner, p["alpha"], p["lam"])
    return Release(output=out, claim=claim, gradient_evaluations=inner.gradient_evaluations,
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Algorithm 2 (Lowy & Razaviyayn 2021)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                "w_T": inner.w.copy(), **inner.details})
