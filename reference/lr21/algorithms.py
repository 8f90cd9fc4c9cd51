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
``tilted_erm``    Alg. 1 on the tilted objective F_τ with Δ_{F_τ} of Lemma 0.5 (Props 4.1, 4.2; Lemmas 4.1, 4.2).
``robust_erm``    Alg. 3 with the exact (closed-form) inner maximisation of ℓ2-robust logistic / least-squares
                  models, i.e. Alg. 1 on G_D (Sec. 4, Def. 1–3; privacy as Prop. 2.1 applied to G_D, spec §2.3).
``algorithm_3``   Alg. 3, adversarial training as a min-max problem, with a certified saddle-point solver
                  (extragradient) on the linear-adversary games of spec §7.4(b)/(c) (privacy "same arguments",
                  Sec. 4; utility Thm 4.1, which needs G_D smooth — spec E11).

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
a-posteriori certificate of :func:`dpsco.reference.certified.certify` (duality gap / strong-convexity gap) must
bound ‖w_T − w*‖ by √(2α/modulus); otherwise (``fallback="certified_solver"``, default) w_T is replaced by
the output of the certified solver (which certifies its own distance), or (``fallback="refuse"``)
:class:`dpsco.reference.certified.UncertifiedError` is raised.  The noise is calibrated with the public α before
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
* LR-E11 Thm 0.3/0.5 "E⟨∇F(w_T), Π(w_T + z) − w_T⟩ = 0" is false when the projection is active; we provide
  the rigorous master bounds (``master_bound_*``); ``theorem_0_3_bound`` adds the projection term (printed form
  via ``printed=True``); the final constants of Thms 0.3/0.5 survive.
* LR-E12 Thm 0.4-2b's first statement drops the factor (1 + 2s_δ) (``theorem_0_4_general_bound(printed=...)``).
* LR-E13 Thm 3.1-2's printed T and bound are √-scope garbles (``theorem_3_1_parameters/bound(printed=True)``).
* LR-E14 Supplement Thm 0.1's c is misprinted (``noise.c_delta(printed=True)``, never real).
* Integer T: ⌈·⌉ everywhere; AGD uses projected steps (Nesterov 2018, §2.2.4) so iterates stay in B(0, R).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np
from scipy.special import expit, log_expit, logsumexp

from dpsco.reference.certified import Certificate, UncertifiedError, certified_minimize, certify
from dpsco.reference.domains import Ball
from dpsco.reference.noise import NoiseCalibration, c_delta, calibrate, noise_factor, noise_moments, perturb_and_project, project_ball
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.problem import ERMProblem
from dpsco.reference.validation import (as_float_vector, check_bool, check_calibration_budget, check_choice, check_epsilon,
                         check_iterations, check_positive, check_positive_int, check_rng)

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
FALLBACKS: tuple[str, ...] = ("certified_solver", "refuse")


# ================================================================================================
# Objectives with gradient counters
# ================================================================================================


class _DataShape:
    """n and d of an objective's dataset ``X`` (n, d) (shared by the objective and game classes below)."""

    X: np.ndarray

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


@dataclass
class GLMObjective(_DataShape):
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
        """A-posteriori certificate over B(0, R) (dpsco.reference.certified; its lam is reg/2)."""
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
    t = 2.0 * L * L / (mu * a)
    if not math.isfinite(t):
        raise ValueError(f"subgradient_iterations: 2L²/(μα) overflows for lipschitz={L!r}, modulus={mu!r}, "
                         f"alpha={a!r}; increase alpha or the modulus (mu, or lam in Algorithm 2)")
    return max(1, math.ceil(t))


def agd_iterations(modulus: float, smoothness: float, radius: float, alpha: float) -> int:
    """T = ⌈√κ log((μ + β)R²/(2α))⌉, κ = β/μ (proof of Thm 2.2, Bubeck 2015 Thm 3.18); 0 if the log < 0."""
    mu, beta = check_positive(modulus, "modulus"), check_positive(smoothness, "smoothness")
    R, a = check_positive(radius, "radius"), check_positive(alpha, "alpha")
    arg = (mu + beta) * R * R / (2.0 * a)
    log_arg = math.log(arg) if math.isfinite(arg) else math.log(mu + beta) + 2.0 * math.log(R) - math.log(2.0) - math.log(a)
    if arg <= 1.0:
        return 0
    t = math.sqrt(max(beta / mu, 1.0)) * log_arg
    if not math.isfinite(t):  # κ = β/μ overflows (μ = 5e-324): math.ceil(inf) would raise OverflowError
        raise ValueError(f"agd_iterations: √κ log((μ + β)R²/(2α)) overflows for modulus={mu!r}, "
                         f"smoothness={beta!r}, alpha={a!r}; increase the modulus (mu, or lam in Algorithm 2)")
    return math.ceil(t)


def katyusha_gradient_order(n: int, kappa: float, lipschitz: float, radius: float, alpha: float) -> float:
    """(n + √(nκ)) log(LR/α): the O(·) of Thm 3.2 / Thm 0.6 (hidden constant not given; a scaling form)."""
    return (n + math.sqrt(n * kappa)) * math.log(max(lipschitz * radius / alpha, math.e))


def subgradient_method(obj: GLMObjective, modulus: float, T: int, *,
                       output: Literal["weighted", "best"] = "weighted") -> np.ndarray:
    """Projected subgradient method, η_t = 2/(μ(t+1)) (Thm 2.1; Prop. 0.1; Bubeck Thm 3.9).

    Output: the weighted average Σ_t 2t/(T(T+1)) w_t (default) or the best iterate (Prop. 0.1; costs T
    function values).  Both satisfy F − F* ≤ 2L²/(μ(T+1)) deterministically.

    Raises ValueError / TypeError for a bad ``modulus``, ``output`` or ``T`` (``T`` above
    ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    mu = check_positive(modulus, "modulus")
    T = check_iterations(T, "T", allow_zero=True)
    check_choice(output, "output", ("weighted", "best"))
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
    the iterates in B(0, R); with R = ∞ it is Bubeck's method exactly.  Raises ValueError / TypeError for bad
    inputs (``T`` above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    mu, beta = check_positive(modulus, "modulus"), check_positive(smoothness, "smoothness")
    T = check_iterations(T, "T", allow_zero=True)
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
    itself (pitfall P1): :func:`algorithm_1` certifies its output.  Raises ValueError / TypeError for bad inputs
    (``T`` above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    mu = check_positive(modulus, "modulus")
    T = check_iterations(T, "T", allow_zero=True)
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
    per-sample gradients for the snapshot, 2 per inner step.  Accuracy in expectation only (P1).  Raises
    ValueError / TypeError for bad inputs (``epochs``·2n above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    rng = check_rng(rng)
    epochs = check_iterations(epochs, "epochs", allow_zero=True)
    check_iterations(epochs * 2 * obj.n, "epochs·2n (Katyusha inner steps)", allow_zero=True,
                     remedy="pass fewer epochs (a larger alpha)")
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
                      erm: bool, printed: bool = False) -> float:
    """Thm 0.3 (Alg. 1 on 𝓗, any 𝓜), first statement (any α), with D = L/(μ[n]) + √(2α/μ), Δ_T = 2D.

    ``printed=True``: as printed, 4βD²s₀² + α (δ = 0), 2βD²s_δ² + α (δ > 0).  Its proof uses
    E⟨∇F(w_T), Π(w_T + z) − w_T⟩ = 0, which is false when the projection is active (erratum LR-E11): for d ≥ 2
    the printed form fails (tests/test_lr_errata_spec.py: exceeded on the spec's MB2 instance once s_δ is small).
    For d = 1 it holds: on a line F(Π(y)) ≤ F(y) when the minimiser lies in [−R, R].

    Default (rigorous, spec MB2(i) with the exact noise moments): the printed form for d = 1; for d ≥ 2
    α + (β/2)E‖z‖² + min{L, √(2βα)}·m₁ with (β/2)E‖z‖² = 2(1 + 1/d)βD²s₀² and m₁ = E‖z‖ = 2Ds₀ (δ = 0), resp.
    (β/2)E‖z‖² = βD²s_δ² and m₁ = √2·Ds_δ ≥ E‖z‖ (δ > 0).  Needs w_T ∈ B(0, R), which the inner step of this
    module guarantees; ‖∇F(w_T)‖ ≤ √(2βα) needs the paper's standing assumption that a global minimiser lies in
    B(0, R), ‖∇F(w_T)‖ ≤ L does not.  With the prescribed α the default stays ≤ 25.4κL²s₀²/(μ[n²]) and
    ≤ 12.7κL²s_δ²/(μ[n²]): Thm 0.3's final constants 26 and 13.5 survive (LR-E11)."""
    s = _s(d, eps, delta)
    lead = L / (mu * n) if erm else L / mu
    D = lead + math.sqrt(2.0 * alpha / mu)
    if printed or d == 1:
        return (4.0 if delta == 0 else 2.0) * beta * D**2 * s * s + alpha
    if delta == 0:
        noise_term, m1 = 2.0 * (1.0 + 1.0 / d) * beta * D**2 * s * s, 2.0 * D * s
    else:
        noise_term, m1 = beta * D**2 * s * s, math.sqrt(2.0) * D * s
    return alpha + noise_term + min(L, math.sqrt(2.0 * beta * alpha)) * m1


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
                              erm: bool, printed: bool = False) -> float:
    """Thm 0.4's bound before α is fixed: non-ERM 16.5LR√s + 32√(αLR)s^{-1/4} (δ = 0), 13LR√s + 12√(αLR)s^{-1/4};
    ERM 16.5LR√(s/n) + 16√(αLR)(n/s)^{1/4}(1 + s) (δ = 0).

    ERM δ > 0 (part 2b, condition s_δ/n ≤ 1): printed (``printed=True``) 13LR√(s/n) + 12√(αLR)(n/s)^{1/4}, which
    drops the factor (1 + 2s_δ) of its own proof and is false for large s_δ (erratum LR-E12); default (corrected)
    13LR√(s/n) + 4√(αLR)(n/s)^{1/4}(1 + 2s_δ) (MB3 with E‖z‖ ≤ s_δΔ_T gives 2√2·2^{1/4} = 3.36 ≤ 4 in front of
    (1 + 2s_δ)).  The non-ERM parts' 32 and 12 are 16(1 + s) and 4(1 + 2s) at their condition s ≤ 1."""
    s = _s(d, eps, delta)
    if not erm:
        if delta == 0:
            return 16.5 * L * R * math.sqrt(s) + 32.0 * math.sqrt(alpha * L * R) * s**-0.25
        return 13.0 * L * R * math.sqrt(s) + 12.0 * math.sqrt(alpha * L * R) * s**-0.25
    if delta == 0:
        return 16.5 * L * R * math.sqrt(s / n) + 16.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25 * (1.0 + s)
    if printed:
        return 13.0 * L * R * math.sqrt(s / n) + 12.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25
    return 13.0 * L * R * math.sqrt(s / n) + 4.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25 * (1.0 + 2.0 * s)


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
    """Thm 0.5 / 2.4: 146β^{1/3}L^{2/3}R^{4/3}(s[/n])^{2/3} (δ = 0), 27·(…) (δ > 0).

    The proof's projection step is erratum LR-E11, but these final constants (prescribed λ, α, under
    (s[/n])² ≤ L/(Rβ), L ≤ Rβ) survive the rigorous route: λR²/2 + α + ((β+λ)/2)E‖z‖² + min{L + λR,
    √(2(β+λ)α)}E‖z‖, capped by 2LR, stays ≤ 32.2·(…) (δ = 0) and ≤ 13.8·(…) (δ > 0) on the grid of
    tests/test_lr_errata_spec.py.  The theorem's *first* statement (any α; not implemented here) is false for
    d ≥ 2: tests/test_lr_errata_spec.py::test_LR_E11_theorem_0_5_first_statement_fails_for_d2_and_MB4_holds."""
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


def theorem_3_1_parameters(L: float, mu: float, n: int, d: int, eps: float, delta: float, *,
                           printed: bool = False) -> tuple[float, int]:
    """Thm 3.1: α = (L²/(μn))min{1/n, s}, T = ⌈2n·max{n, 1/s}⌉ (= ⌈2L²/(μα)⌉, the proof's count).

    ``printed=True`` returns the statement's T: δ = 0 ⌈2max{n², nε/d}⌉ (the same); δ > 0 the garbled
    "⌈2n max{n, ε/√(d(2c_δ + √ε))}⌉" read with the √ over d only, ⌈2n·max{n, ε/(√d(2c_δ + √ε))}⌉ (the reading
    that matches the printed runtime O(n√(dε))).  Since 2c + √ε ≥ c + √(c² + ε) it is ≤ the default and can stop
    before α is reached (erratum LR-E13; for comparison only — privacy needs the certified α)."""
    s = _s(d, eps, delta)
    alpha = L * L / (mu * n) * min(1.0 / n, s)
    if printed and delta > 0:
        c = c_delta(delta)
        return alpha, math.ceil(2.0 * n * max(n, eps / (math.sqrt(d) * (2.0 * c + math.sqrt(eps)))))
    return alpha, math.ceil(2.0 * n * max(n, 1.0 / s))


def theorem_3_1_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float, *,
                      printed: bool = False) -> float:
    """Thm 3.1: (L²/μ)(5/n + 9s₀/n) (δ = 0), (L²/μ)(5/n + 6s_δ/n) (δ > 0, as in the proof: Thm 0.2-2b).

    ``printed=True`` (δ > 0): the statement as typeset, (L²/μ)(5/n + 6√(d(c_δ + √(c_δ² + ε)))/(εn)) — the √
    over d(·) instead of d alone; it equals the default's term times 1/√(c_δ + √(c_δ² + ε)) and is false
    (erratum LR-E13, counterexample in tests/test_lr_errata_spec.py); for comparison only."""
    s = _s(d, eps, delta)
    if printed and delta > 0:
        c = c_delta(delta)
        return L * L / mu * (5.0 / n + 6.0 * math.sqrt(d * (c + math.sqrt(c * c + eps))) / (eps * n))
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
    """MB2(ii): E F(w_A) − F* ≤ κα + (β/2)E‖z‖² (valid with the projection, unlike Thm 0.3's step, LR-E11)."""
    return beta / modulus * alpha + 0.5 * beta * mean_sq_norm


def master_bound_lipschitz_alg2(L: float, lam: float, R: float, alpha: float, mean_norm: float) -> float:
    """MB3: E F(w_A) − F* ≤ (L + λR)(√(2α/λ) + E‖z‖) + λR²/2."""
    return (L + lam * R) * (math.sqrt(2.0 * alpha / lam) + mean_norm) + 0.5 * lam * R * R


def master_bound_smooth_alg2(beta: float, lam: float, R: float, alpha: float, mean_sq_norm: float) -> float:
    """MB4: E F(w_A) − F* ≤ λR²/2 + (β + λ)α/λ + ((β + λ)/2)E‖z‖² (valid with the projection, LR-E11)."""
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
    certified solver (or raises UncertifiedError with ``fallback="refuse"``).  Raises ValueError for a
    ``fallback`` other than "certified_solver" / "refuse" (before the inner method runs)."""
    check_choice(fallback, "fallback", FALLBACKS)
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
    distance_tol = getattr(obj, "tol_is_distance", False) or obj.loss.smooth  # applications: tol is a distance
    w2, _ = obj.certified_solution(tol=0.5 * radius_needed if distance_tol else 0.25 * alpha)
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
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
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
    erm = check_bool(erm, "erm")
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
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from mu = {mu:g} and alpha = {alpha:g} "
                             f"(method {method!r}): increase mu or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
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
    ValueError / TypeError on bad inputs, each naming the parameter: data (NaN/inf, complex, shapes, declared
    bounds violated without ``clip``), ``clip`` not a bool, ``fallback`` unknown, ``epsilon`` outside
    [EPSILON_MIN, EPSILON_MAX] or 0 < ``delta`` < DELTA_MIN (``dpsco.reference.validation``: the calibration would
    overflow), ``T`` (given or computed) above ``dpsco.reference.validation.MAX_ITERATIONS``, checked before any loop;
    UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
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
                                **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy()}, replicates=replicates)


# ================================================================================================
# Algorithm 2
# ================================================================================================


def algorithm_2_parameters(problem: ERMProblem, n: int, d: int, epsilon: float, delta: float, *,
                           method: Method | Callable[..., np.ndarray], erm: bool, lam: float | None,
                           alpha: float | None, T: int | None) -> dict[str, Any]:
    """Public parameters of Algorithm 2 on F_λ = (1/n)Σℓ + (λ/2)‖w‖² over B(0, R), L = L_ℓ on B(0, R).

    Defaults: agd/katyusha (smooth): λ, α of Thm 0.5 (ERM) / 2.4 (non-ERM); subgradient/sgd: λ, α of
    Thm 0.4 (corrected α for ERM δ > 0, LR-E5); T rigorous (⌈2(L + λR)²/(λα)⌉ or the AGD count on F_λ)."""
    erm = check_bool(erm, "erm")
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
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from lam = {lam:g} and alpha = {alpha:g} "
                             f"(method {method!r}): increase lam or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
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

    Raises
    ------
    ValueError / TypeError on bad inputs, as :func:`algorithm_1`.  In particular the inner iteration count T
    grows like 1/λ (subgradient: ⌈2(L + λR)²/(λα)⌉): a tiny ``lam`` (or ``alpha``) whose T exceeds
    ``dpsco.reference.validation.MAX_ITERATIONS`` is refused before any loop starts, naming ``lam`` and ``alpha``.
    UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
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
                                **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy()}, replicates=replicates)


# ================================================================================================
# Applications (Sec. 4): tilted ERM, ℓ2-robust GLMs, Algorithm 3
# ================================================================================================
#
# Certificates for these objectives.  Each objective below is F(w) = h(w) + (μ/2)‖w‖² over W = B(0, R)
# with h convex, so F is μ-strongly convex and for every g ∈ ∂F(w), w ∈ W:
#     F(w) − F* ≤ Γ_μ(g) := max_{v ∈ W} ⟨g, w − v⟩ − (μ/2)‖v − w‖²          (strong convexity at w)
#     (μ/2)‖w − w*‖² ≤ F(w) − F*                                             (optimality of w* over W)
# (the projected strong-convexity gap of dpsco.reference.certified, bounded by its `_reg_gap`).  The (sub)gradient
# is computed in floating point; `_reg_gap` takes an allowance e ≥ ‖fl(g) − g‖.  We use the generous
# allowance e = 64·u·(n + d + 16)·(1 + τ·max|ℓ_i|)·Σ_i|c_i|‖x_i‖ + 64u·μ‖w‖ (u = 2⁻⁵³; the (1 + τ max|ℓ|)
# factor covers the relative error of the tilted weights exp(τℓ_i − max)), a rounding allowance — not a
# machine-checked error analysis — which is ~1e-12 relative, six or more orders below every radius √(2α/μ)
# the algorithms certify.

from dpsco.reference.certified import _U as _UNIT_ROUNDOFF  # noqa: E402  (same package; reference imports only reference)
from dpsco.reference.certified import _reg_gap  # noqa: E402


def _gradient_allowance(abs_terms: float, n: int, d: int, tilt: float, reg_norm: float) -> float:
    return 64.0 * _UNIT_ROUNDOFF * ((n + d + 16) * (1.0 + tilt) * abs_terms + reg_norm)


def strong_convexity_certificate(obj: Any, w: np.ndarray) -> Certificate:
    """A-posteriori certificate for the application objectives (tilted, robust, max-of-game).

    ``obj`` provides ``subgradient_with_allowance(w) -> (g, e)`` (g ∈ ∂F(w) up to ‖fl(g) − g‖ ≤ e, not
    counted as a gradient evaluation), ``reg`` (the modulus μ), ``radius``.  Returns F(w) − F* ≤ Γ_μ and
    ‖w − w*‖ ≤ √(2Γ_μ/μ) (module comment above; dpsco.reference.certified's projected strong-convexity gap).

    Raises ValueError if ‖w‖ > R.
    """
    w = as_float_vector(w, "w", obj.d)
    R = obj.radius
    if math.isfinite(R) and float(np.linalg.norm(w)) > R:
        raise ValueError(f"w must lie in B(0, R): ‖w‖ = {float(np.linalg.norm(w))!r} > {R!r}")
    g, e = obj.subgradient_with_allowance(w)
    mu = obj.reg
    gap = _reg_gap(g, e, w, R, mu).bound
    dist = math.sqrt(2.0 * gap / mu) * (1.0 + 4.0 * _UNIT_ROUNDOFF)
    return Certificate(gap_bound=float(gap), distance_bound=float(dist), method="strong-convexity gap (reg)",
                       strong_convexity=mu, rounding_allowance=float(e),
                       details={"strong-convexity gap (reg)": {"gap": gap, "distance": dist, "gradient_error": e}})


def certified_first_order(obj: Any, tol: float, *, max_iter: int = 50_000, check_every: int = 10
                          ) -> tuple[np.ndarray, Certificate]:
    """Projected accelerated gradient (FISTA with backtracking and gradient-scheme restart; Beck & Teboulle 2009,
    O'Donoghue & Candès 2015) on F over B(0, R), stopped when ``obj.certify`` bounds ‖w − w*‖ ≤ tol.

    Used as the certified fallback solver of the application objectives (reference must not import the
    oracles; the oracles' independent Newton solver and cvxpy cross-check it).  Raises UncertifiedError if
    ``max_iter`` iterations do not reach the certificate (never returns an uncertified point); ValueError /
    TypeError for a bad ``tol``, ``max_iter`` (cap ``dpsco.reference.validation.MAX_ITERATIONS``) or ``check_every``."""
    tol = check_positive(tol, "tol")
    max_iter = check_iterations(max_iter, "max_iter")
    check_every = check_positive_int(check_every, "check_every")
    R = obj.radius
    x = np.zeros(obj.d)
    y_pt, t, Lk = x.copy(), 1.0, 1.0
    fx = obj.value(x)
    cert = obj.certify(x)
    for it in range(1, max_iter + 1):
        fy, gy = obj.value(y_pt), obj.grad(y_pt)
        while True:  # backtracking on the local Lipschitz constant of ∇F
            p = project_ball(y_pt - gy / Lk, R)
            dp = p - y_pt
            fp = obj.value(p)
            if fp <= fy + gy @ dp + 0.5 * Lk * (dp @ dp) + 1e-15 * (1.0 + abs(fy)) or Lk > 1e15:
                break
            Lk *= 2.0
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        if float((y_pt - p) @ (p - x)) > 0:  # adaptive restart (gradient scheme; O'Donoghue & Candès 2015)
            t_new = 1.0
        y_pt = project_ball(p + ((t - 1.0) / t_new) * (p - x), R)
        x, fx, t = p, fp, t_new
        Lk = max(Lk / 1.5, 1e-12)
        if it % check_every == 0:
            cert = obj.certify(_strictly_inside(x, R))
            if cert.distance_bound is not None and cert.distance_bound <= tol:
                return _strictly_inside(x, R), cert
    cert = obj.certify(_strictly_inside(x, R))
    if cert.distance_bound is not None and cert.distance_bound <= tol:
        return _strictly_inside(x, R), cert
    raise UncertifiedError(f"certified_first_order: distance bound {cert.distance_bound!r} > tol {tol!r} after "
                           f"{max_iter} iterations", certificate=cert, w=x)


# -- loss ranges (for C_τ) from declared bounds ------------------------------------------------------


def glm_loss_range(loss: Any, x_max: float, y_max: float, radius: float) -> tuple[float, float]:
    """[a_R, A_R] ⊇ {φ(⟨w, x⟩, y) : ‖w‖ ≤ R, ‖x‖ ≤ x_max, |y| ≤ y_max} (Prop. 4.1's a_R, A_R).

    logistic (y ∈ {±1}): [log(1 + e^{−x_max R}), log(1 + e^{x_max R})]; squared: [0, (x_max R + y_max)²/2].
    Raises ValueError for other losses (not needed by the applications implemented here)."""
    B = check_positive(x_max, "x_max") * check_positive(radius, "radius")
    if loss.name == "logistic":
        return float(np.logaddexp(0.0, -B)), float(np.logaddexp(0.0, B))
    if loss.name == "squared":
        return 0.0, 0.5 * (B + check_positive(y_max, "y_max", allow_zero=True)) ** 2
    raise ValueError(f"glm_loss_range: loss {loss.name!r} not supported (logistic, squared)")


# -- Tilted ERM ------------------------------------------------------------------------------------


@dataclass
class TiltedObjective(_DataShape):
    """F_τ(w) = (1/τ) log((1/n) Σ_i exp(τ ℓ_i(w))) + (reg/2)‖w‖², ℓ_i(w) = φ(⟨w, x_i⟩, y_i) (Sec. 4, TERM).

    This is the paper's F_τ for the ridge-regularised per-sample loss f = ℓ + (reg/2)‖w‖² (the common ridge
    factors out of the log-sum-exp).  ∇F_τ = Σ_i v_i ∇ℓ_i + reg·w, v = softmax(τℓ) (Li et al. 2020).
    Convex for convex ℓ (log-sum-exp is convex and nondecreasing), reg-strongly convex (Lemma 4.1).
    Shapes: X (n, d), y (n,), w (d,).  Gradient counters as :class:`GLMObjective` (a full gradient = n)."""

    loss: Any
    X: np.ndarray
    y: np.ndarray
    tau: float
    reg: float
    radius: float
    sample_gradients: int = 0
    full_gradients: int = 0
    tol_is_distance: bool = True

    def losses(self, w: np.ndarray) -> np.ndarray:
        return self.loss.phi(self.X @ w, self.y)

    def weights(self, w: np.ndarray) -> np.ndarray:
        z = self.tau * self.losses(w)
        e = np.exp(z - z.max())
        return e / e.sum()

    def value(self, w: np.ndarray) -> float:
        z = self.tau * self.losses(w)
        return float((logsumexp(z) - math.log(self.n)) / self.tau + 0.5 * self.reg * (w @ w))

    def _grad(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        s = self.X @ w
        ell = self.loss.phi(s, self.y)
        z = self.tau * ell
        v = np.exp(z - z.max())
        v /= v.sum()
        c = v * self.loss.dphi(s, self.y)
        g = self.X.T @ c + self.reg * w
        terms = float(np.sum(np.abs(c) * np.linalg.norm(self.X, axis=1)))
        return g, _gradient_allowance(terms, self.n, self.d, self.tau * float(np.max(np.abs(ell))),
                                      self.reg * float(np.linalg.norm(w)))

    def grad(self, w: np.ndarray) -> np.ndarray:
        """∇F_τ(w) (counts n per-sample gradients)."""
        self.sample_gradients += self.n
        self.full_gradients += 1
        return self._grad(w)[0]

    def subgradient_with_allowance(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        return self._grad(w)

    def sample_grad(self, w: np.ndarray, i: int) -> np.ndarray:
        raise ValueError("the tilted objective is not of ERM form: stochastic methods ('sgd', 'katyusha') do not "
                         "apply; use 'agd', 'subgradient' or a callable")

    data_sample_grad = sample_grad

    def certify(self, w: np.ndarray) -> Certificate:
        return strong_convexity_certificate(self, w)

    def certified_solution(self, tol: float) -> tuple[np.ndarray, Certificate]:
        return certified_first_order(self, tol)


def tilted_constants(problem: ERMProblem, tau: float, mu: float, *, sensitivity_mode: SensitivityMode = "paper"
                     ) -> dict[str, float]:
    """Public constants of F_τ over B(0, R) from the declared bounds (Lemmas 4.1, 4.2, 0.5).

    L_ℓ = problem.lipschitz, L = L_ℓ + μR (the Lipschitz constant of f = ℓ + (μ/2)‖w‖² on B(0, R), the paper's
    L); β_τ = β_ℓ + μ + τL_ℓ² (Lemma 4.2's statement β + L²τ applied to the data term: the ridge's gradient
    μw is common to all i and cancels in the covariance Cov_v(∇f_i) — spec §4.4; tests show the statement is
    attained); [a_R, A_R] of ℓ (``glm_loss_range``); paper mode: C_τ = e^{τ(A_R − a_R + μR²/2)} (range of f)
    and Δ_{F_τ} = 2LC_τ/(μn) (Lemma 0.5 as printed); tight mode: C_τ = e^{τ(A_R − a_R)} (range of ℓ; the ridge
    cancels in the weights) and Δ_{F_τ} = (2L_ℓ/μ)min{1, C_τ/n} (Lemma 0.5's corrected proof, spec §4.4/E8)."""
    t = check_positive(tau, "tau")
    m = check_positive(mu, "mu")
    R = problem.radius
    L_l = problem.lipschitz
    a_R, A_R = glm_loss_range(problem.loss, problem.bounds.x_max, problem.bounds.y_max, R)
    beta_l = problem.smoothness
    if sensitivity_mode == "paper":
        C = math.exp(min(t * (A_R - a_R + 0.5 * m * R * R), 700.0))
    elif sensitivity_mode == "tight":
        C = math.exp(min(t * (A_R - a_R), 700.0))
    else:
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    return {"tau": t, "mu": m, "R": R, "L_loss": L_l, "L": L_l + m * R, "a_R": a_R, "A_R": A_R, "C_tau": C,
            "beta_tau": None if beta_l is None else lemma_4_2_smoothness(beta_l + m, L_l, t)}


def tilted_erm(
    X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    tau: float, mu: float, method: Literal["agd", "subgradient"] | Callable[..., np.ndarray] = "agd",
    alpha: float | None = None, T: int | None = None, sensitivity_mode: SensitivityMode = "paper",
    gaussian: Literal["zhao", "analytic"] = "zhao", fallback: Fallback = "certified_solver", clip: bool = False,
    replicates: int | None = None,
) -> Release:
    """Private tilted ERM: Algorithm 1 on F_τ with Δ_{F_τ} of Lemma 0.5 (Props 4.1 and 4.2, Sec. 4).

    Line 1: 𝓜 on F_τ(w) = (1/τ)log((1/n)Σe^{τℓ(w, z_i)}) + (μ/2)‖w‖² over B(0, R), certified α-accurate
    (:func:`strong_convexity_certificate`).  Line 2: Δ_T = Δ_{F_τ} + 2√(2α/μ) (spec §1.5; Prop. 4.1/4.2 replace
    Alg. 1's Δ_F by Lemma 0.5's Δ_{F_τ}, pitfall P8), noise of Algorithm 1 (L2-Laplace / Zhao's Gaussian),
    w_A = Π_{B(0,R)}(w_T + ẑ).  F_τ is not of ERM form (spec U7): the 1/n in Δ_{F_τ} comes from Lemma 0.5.

    Parameters
    ----------
    X : (n, d); y : (n,); problem : ERMProblem with a logistic or squared loss (declared bounds give C_τ).
    epsilon, delta, rng : as :func:`algorithm_1`.
    tau : τ > 0, the tilt (public).  mu : μ > 0, the ridge modulus (public).
    method : "agd" (Prop. 4.2, β_τ of Lemma 4.2), "subgradient" (Prop. 4.1) or a callable ``(obj, rng) -> w``.
    alpha : default Prop. 4.2's α = (L²/(μn²))min{κ_τs², C_τ²} (agd) or Prop. 4.1's corrected α (LR-E6).
    T : default the rigorous AGD / subgradient count.  sensitivity_mode : "paper" | "tight" (see
        :func:`tilted_constants`).  fallback, gaussian, clip, replicates : as :func:`algorithm_1`.

    Returns
    -------
    Release with output (d,) or (replicates, d), claim "Prop. 4.1/4.2 (Alg. 1 with Lemma 0.5)".

    Raises
    ------
    ValueError / TypeError on bad inputs, as :func:`algorithm_1` (``T`` above
    ``dpsco.reference.validation.MAX_ITERATIONS`` included); UncertifiedError (``fallback="refuse"``).
    """
    Xa, ya, n_clipped, eps, dl, rng = _check_inputs(problem, X, y, epsilon, delta, rng, clip)
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    if replicates is not None and not (method in ("agd", "subgradient") or callable(method)):
        raise ValueError("replicates needs a deterministic method")
    if not (callable(method) or method in ("agd", "subgradient")):
        raise ValueError(f"method must be 'agd', 'subgradient' or a callable, got {method!r}")
    n, d = Xa.shape
    c = tilted_constants(problem, tau, mu, sensitivity_mode=sensitivity_mode)
    s = noise_factor(d, eps, dl)
    L, m_, C = c["L"], c["mu"], c["C_tau"]
    beta_tau = c["beta_tau"]
    if method == "agd" and beta_tau is None:
        raise ValueError("method='agd' needs a smooth loss")
    if alpha is None:
        if method == "agd":
            alpha = L * L / (m_ * n * n) * min(beta_tau / m_ * s * s, C * C)  # Prop. 4.2's proof
        else:
            alpha = proposition_4_1_alpha(L, m_, n, d, eps, dl, C)  # Prop. 4.1 (corrected for δ = 0, LR-E6)
    alpha = check_positive(alpha, "alpha")
    if T is None:
        T = (agd_iterations(m_, beta_tau, c["R"], alpha) if method == "agd"
             else subgradient_iterations(L, m_, alpha) if method == "subgradient" else 0)
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from mu = {m_:g}, tau = {c['tau']:g} and "
                             f"alpha = {alpha:g}: increase mu or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    delta_F = (lemma_0_5_sensitivity(L, m_, n, C) if sensitivity_mode == "paper"
               else lemma_0_5_sensitivity(c["L_loss"], m_, n, C, tight=True))
    p = {**c, "alpha": alpha, "T": int(T), "Delta_F": delta_F, "Delta_T": sensitivity_T(delta_F, alpha, m_),
         "sensitivity_mode": sensitivity_mode, "beta": beta_tau}
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)  # line 2's density, public inputs only
    opt_rng, noise_rng = rng.spawn(2)
    obj = TiltedObjective(problem.loss, Xa, ya, c["tau"], m_, c["R"])
    inner = certified_inner(obj, method, m_, alpha, p["T"], beta_tau, opt_rng, fallback=fallback)  # line 1
    out = _release_noise(inner.w, cal, c["R"], noise_rng, replicates)  # line 2
    assumptions = {**problem.assumptions(), **p, "noise": cal.to_dict(),
                   "data_clipping": f"{n_clipped} row(s) clipped" if n_clipped else "none"}
    claim = _claim(eps, dl, f"{PAPER}, Propositions 4.1/4.2 (Algorithm 1 on F_τ with Lemma 0.5's Δ_Fτ)",
                   assumptions, inner, alpha, m_)
    return Release(output=out, claim=claim, gradient_evaluations=inner.gradient_evaluations,
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Tilted ERM via Algorithm 1 (Lowy & Razaviyayn 2021, Sec. 4)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy()}, replicates=replicates)


# -- ℓ2-robust GLMs (adversarial training with a closed-form inner maximisation) ------------------------


def _robust_losses(kind: str, X: np.ndarray, y: np.ndarray, w: np.ndarray, rho: float) -> np.ndarray:
    s = X @ w
    nw = float(np.linalg.norm(w))
    if kind == "logistic":
        return np.logaddexp(0.0, -(y * s - rho * nw))
    return 0.5 * (np.abs(s - y) + rho * nw) ** 2


@dataclass
class RobustObjective(_DataShape):
    """G_D(w) = (1/n) Σ_i max_{‖δ_i‖ ≤ ρ} ℓ(w, (x_i + δ_i, y_i)) + (reg/2)‖w‖² for ℓ2 perturbations (Sec. 4).

    Closed-form inner maxima (Cauchy–Schwarz; spec §7.4(a)):
      logistic (y ∈ {±1}):  log(1 + exp(−y⟨w, x⟩ + ρ‖w‖)),   δ* = −ρy·w/‖w‖;
      squared:              ½(|⟨w, x⟩ − y| + ρ‖w‖)²,          δ* = ρ·sign(⟨w, x⟩ − y)·w/‖w‖.
    Both are convex in w (a nonincreasing convex φ of the concave margin y⟨w, x⟩ − ρ‖w‖; t ↦ t²/2 on t ≥ 0 of
    the convex |⟨w, x⟩ − y| + ρ‖w‖) and non-smooth at w = 0 (and, squared, where ⟨w, x_i⟩ = y_i): the
    subgradient used at w = 0 is the minimum-norm element of {a + c·u : ‖u‖ ≤ 1}.  Shapes as GLMObjective."""

    kind: str
    X: np.ndarray
    y: np.ndarray
    rho: float
    reg: float
    radius: float
    sample_gradients: int = 0
    full_gradients: int = 0
    tol_is_distance: bool = True

    def __post_init__(self) -> None:
        if self.kind not in ("logistic", "squared"):
            raise ValueError(f"kind must be 'logistic' or 'squared', got {self.kind!r}")

    @property
    def loss(self) -> Any:
        return _RobustLossTag()

    def value(self, w: np.ndarray) -> float:
        return float(np.mean(_robust_losses(self.kind, self.X, self.y, w, self.rho)) + 0.5 * self.reg * (w @ w))

    def _grad(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        s = self.X @ w
        nw = float(np.linalg.norm(w))
        if self.kind == "logistic":
            m = self.y * s - self.rho * nw
            dphi = -expit(-m)  # φ'(m) < 0, φ(m) = log(1 + e^{−m})
            c_x = dphi * self.y / self.n  # coefficient of x_i
            c_u = self.rho * float(np.mean(-dphi))  # coefficient of ∂‖w‖ (≥ 0)
        else:
            r = s - self.y
            h = np.abs(r) + self.rho * nw
            c_x = h * np.sign(r) / self.n
            c_u = self.rho * float(np.mean(h))
        a = self.X.T @ c_x
        if nw > 0:
            g = a + c_u * (w / nw)
        else:  # minimum-norm element of a + c_u·B(0, 1)
            na = float(np.linalg.norm(a))
            g = a * max(0.0, 1.0 - c_u / na) if na > 0 else a
        g = g + self.reg * w
        terms = float(np.sum(np.abs(c_x) * np.linalg.norm(self.X, axis=1))) + c_u
        return g, _gradient_allowance(terms, self.n, self.d, 0.0, self.reg * nw)

    def grad(self, w: np.ndarray) -> np.ndarray:
        self.sample_gradients += self.n
        self.full_gradients += 1
        return self._grad(w)[0]

    def subgradient_with_allowance(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        return self._grad(w)

    def certify(self, w: np.ndarray) -> Certificate:
        return strong_convexity_certificate(self, w)

    def certified_solution(self, tol: float) -> tuple[np.ndarray, Certificate]:
        return certified_first_order(self, tol)


class _RobustLossTag:
    smooth = False  # non-smooth at w = 0: the inner step's tolerance is a distance (tol_is_distance)


def robust_constants(kind: str, x_max: float, y_max: float, rho: float, mu: float,
                     radius: float | None = None) -> dict[str, float]:
    """Public constants of G_D on B(0, R) from the declared bounds (spec §7.4(a)).

    logistic: L_ℓ = x_max + ρ (global); default R = (x_max + ρ)/μ + 1 (μ‖w*‖ ≤ L_ℓ from the optimality
    condition, plus the paper's margin 1).  squared: h ≤ (x_max + ρ)R + y_max on B(0, R),
    L_ℓ = ((x_max + ρ)R + y_max)(x_max + ρ); default R = y_max/√μ + 1 (G_D(w*) ≤ G_D(0) = y²-mean/2 ≥ μ‖w*‖²/2).
    The paper's L = L_ℓ + μR (Lipschitz constant of the regularised per-sample loss on B(0, R))."""
    xm, ym = check_positive(x_max, "x_max"), check_positive(y_max, "y_max", allow_zero=True)
    r, m = check_positive(rho, "rho", allow_zero=True), check_positive(mu, "mu")
    if kind == "logistic":
        R = (xm + r) / m + 1.0 if radius is None else check_positive(radius, "radius")
        L_l = xm + r
    elif kind == "squared":
        R = ym / math.sqrt(m) + 1.0 if radius is None else check_positive(radius, "radius")
        L_l = ((xm + r) * R + ym) * (xm + r)
    else:
        raise ValueError(f"kind must be 'logistic' or 'squared', got {kind!r}")
    return {"rho": r, "mu": m, "R": R, "L_loss": L_l, "L": L_l + m * R}


def robust_erm(
    X: Any, y: Any, kind: Literal["logistic", "squared"], x_max: float, y_max: float, epsilon: float, delta: float,
    rng: np.random.Generator, *, rho: float, mu: float, radius: float | None = None,
    method: Literal["subgradient", "agd"] | Callable[..., np.ndarray] = "subgradient", alpha: float | None = None,
    T: int | None = None, sensitivity_mode: SensitivityMode = "paper", gaussian: Literal["zhao", "analytic"] = "zhao",
    fallback: Fallback = "certified_solver", replicates: int | None = None,
) -> Release:
    """Private ℓ2-robust logistic / least-squares model: Algorithm 3 with the exact inner maximisation.

    With S = B(0, ρ) the inner max of Problem (2) is closed form (:class:`RobustObjective`), so line 1 of
    Algorithm 3 is a certified α-minimiser of G_D = max_v H_D(·, v) (spec §2.3: privacy needs only
    G_D(w_T) − min G_D ≤ α, certified; concavity in v — Assumption 2, which fails here — is not needed).
    Line 2: Δ = 2L/(μn) (ERM form, paper mode, L = L_ℓ + μR) or 2L_ℓ/(μn) (tight: Lemma 0.2 with the ridge
    cancelling), Δ_T = Δ + 2√(2α/μ) (NOT the printed δ > 0 Δ + 2α/μ, LR-E3), w_A = Π_{B(0,R)}(w_T + ẑ).

    Parameters
    ----------
    X : (n, d); y : (n,) labels in {±1} (logistic) or |y| ≤ y_max (squared).
    kind : "logistic" | "squared".  x_max, y_max : declared public bounds (checked; ValueError if violated).
    rho : ρ ≥ 0, the adversary's ℓ2 budget.  mu : μ > 0.  radius : R (default :func:`robust_constants`).
    method : "subgradient" (Thm 0.2/2.1 route; G_D is Lipschitz, not smooth), "agd" (utility heuristic on the
        non-smooth G_D with the smoothness of the data term away from 0; certified anyway) or a callable.
    alpha : default (L²/(μn))min{1/n, s} (Thm 0.2/3.1's ERM choice).  Others as :func:`algorithm_1`.

    Returns Release (claim: Alg. 3 / Prop. 2.1 applied to G_D).  Raises ValueError/TypeError on bad inputs, as
    :func:`algorithm_1` (unknown ``fallback``, complex data, ``epsilon``/``delta`` outside the calibration range,
    ``T`` above ``dpsco.reference.validation.MAX_ITERATIONS``, ...), UncertifiedError.
    """
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2), got {dl}")
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    c = robust_constants(kind, x_max, y_max, rho, mu, radius)
    Xa, ya = _check_declared(X, y, c, x_max, y_max, binary=(kind == "logistic"))
    n, d = Xa.shape
    if replicates is not None and not (method in ("agd", "subgradient") or callable(method)):
        raise ValueError("replicates needs a deterministic method")
    if not (callable(method) or method in ("agd", "subgradient")):
        raise ValueError(f"method must be 'subgradient', 'agd' or a callable, got {method!r}")
    L, m_, R = c["L"], c["mu"], c["R"]
    s = noise_factor(d, eps, dl)
    if alpha is None:
        alpha = L * L / (m_ * n) * min(1.0 / n, s)
    alpha = check_positive(alpha, "alpha")
    xm = float(x_max)
    beta = (0.25 * xm * xm if kind == "logistic" else (xm + c["rho"]) ** 2) + m_  # data term away from kinks
    if T is None:
        T = subgradient_iterations(L, m_, alpha) if method == "subgradient" else (
            agd_iterations(m_, beta, R, alpha) if method == "agd" else 0)
        T = check_iterations(T, "T", allow_zero=True, remedy=f"T is computed from mu = {m_:g} and alpha = {alpha:g}: "
                             "increase mu or alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    if sensitivity_mode not in ("paper", "tight"):
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    delta_F = 2.0 * (L if sensitivity_mode == "paper" else c["L_loss"]) / (m_ * n)
    p = {**c, "kind": kind, "alpha": alpha, "T": int(T), "Delta_F": delta_F,
         "Delta_T": sensitivity_T(delta_F, alpha, m_), "sensitivity_mode": sensitivity_mode, "beta": beta}
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)
    opt_rng, noise_rng = rng.spawn(2)
    obj = RobustObjective(kind, Xa, ya, c["rho"], m_, R)
    inner = certified_inner(obj, method, m_, alpha, p["T"], beta if method == "agd" else None, opt_rng,
                            fallback=fallback)
    out = _release_noise(inner.w, cal, R, noise_rng, replicates)
    assumptions = {**p, "x_max": xm, "y_max": float(y_max), "perturbation_set": f"B(0, {c['rho']})",
                   "noise": cal.to_dict()}
    claim = _claim(eps, dl, f"{PAPER}, Algorithm 3 with exact inner maximisation (Prop. 2.1 applied to G_D; "
                   "noise Δ + 2√(2α/μ), ERRATA LR-E3)", assumptions, inner, alpha, m_)
    return Release(output=out, claim=claim, gradient_evaluations=inner.gradient_evaluations,
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm=f"Robust {kind} model via Algorithm 3 (Lowy & Razaviyayn 2021, Sec. 4)",
                   diagnostics={"certificate": inner.certificate.to_dict(), "inner_path": inner.path,
                                **inner.details},
                   nonprivate_internals={"w_T": inner.w.copy()}, replicates=replicates)


def _check_declared(X: Any, y: Any, c: dict[str, float], x_max: float, y_max: float, *, binary: bool
                    ) -> tuple[np.ndarray, np.ndarray]:
    from dpsco.reference.validation import check_data

    Xa, ya = check_data(X, y)
    tol = 1.0 + 1e-12
    if np.any(np.linalg.norm(Xa, axis=1) > float(x_max) * tol):
        raise ValueError(f"X violates the declared bound ‖x‖ ≤ x_max = {x_max}")
    if binary:
        if not np.all(np.isin(ya, (-1.0, 1.0))):
            raise ValueError("y must take values in {-1, +1} for the robust logistic model")
    elif np.any(np.abs(ya) > float(y_max) * tol):
        raise ValueError(f"y violates the declared bound |y| ≤ y_max = {y_max}")
    return Xa, ya


# -- Algorithm 3: adversarial training as a min-max problem -------------------------------------------


@dataclass(frozen=True)
class LinearAdversarialProblem:
    """Public description of the linear-adversary games of spec §7.4(b)/(c) (Sec. 4, Def. 1, Assumptions 1–3):

        H_D(w, V) = (1/n) Σ_i [ (μ/2)‖w‖² − y_i⟨w, x_i + v_i⟩ − (γ/2)‖x_i + v_i‖² ],   v_i ∈ S = B(0, r),

    over w ∈ B(0, R).  μ-strongly convex and μ-smooth in w (κ = 1); concave in V (Assumption 2), (γ/n)-strongly
    concave per block when γ > 0 (§7.4(c): G_D smooth), linear in V when γ = 0 (§7.4(b): G_D has r‖w‖, non-smooth
    at 0 — Thm 4.1's smoothness premise fails, spec E11).  Declared bounds ‖x‖ ≤ x_max, |y| ≤ y_max.
    Default R = y_max(x_max + r)/μ + 1 (Assumption 1: argmin_w H(·, V) = (1/(μn))Σ y_i(x_i + v_i)).
    Per-sample Lipschitz constant in w on B(0, R): L = μR + y_max(x_max + r) (the paper's L); data term
    L_data = y_max(x_max + r)."""

    mu: float
    r: float
    gamma: float = 0.0
    x_max: float = 1.0
    y_max: float = 1.0
    radius: float | None = None

    def __post_init__(self) -> None:
        check_positive(self.mu, "mu")
        check_positive(self.r, "r", allow_zero=True)
        check_positive(self.gamma, "gamma", allow_zero=True)
        check_positive(self.x_max, "x_max")
        check_positive(self.y_max, "y_max")
        if self.radius is not None:
            check_positive(self.radius, "radius")

    @property
    def R(self) -> float:
        return self.y_max * (self.x_max + self.r) / self.mu + 1.0 if self.radius is None else float(self.radius)

    @property
    def L_data(self) -> float:
        return self.y_max * (self.x_max + self.r)

    @property
    def L(self) -> float:
        return self.mu * self.R + self.L_data

    def game(self, X: Any, y: Any) -> "LinearAdversarialGame":
        from dpsco.reference.validation import check_data

        Xa, ya = check_data(X, y)
        if np.any(np.linalg.norm(Xa, axis=1) > self.x_max * (1 + 1e-12)):
            raise ValueError(f"X violates the declared bound ‖x‖ ≤ x_max = {self.x_max}")
        if np.any(np.abs(ya) > self.y_max * (1 + 1e-12)):
            raise ValueError(f"y violates the declared bound |y| ≤ y_max = {self.y_max}")
        return LinearAdversarialGame(self, Xa, ya)

    def to_dict(self) -> dict[str, Any]:
        return {"mu": self.mu, "r": self.r, "gamma": self.gamma, "x_max": self.x_max, "y_max": self.y_max,
                "R": self.R, "L": self.L, "L_data": self.L_data}


@dataclass
class LinearAdversarialGame(_DataShape):
    """H_D of :class:`LinearAdversarialProblem` on a dataset, with exact inner max / min oracles and counters.

    Shapes: X (n, d), y (n,), w (d,), V (n, d).  ``gradient_evaluations`` counts per-sample gradient pairs
    (∇_w, ∇_v of one record count 1; a full operator evaluation counts n)."""

    problem: LinearAdversarialProblem
    X: np.ndarray
    y: np.ndarray
    gradient_evaluations: int = 0

    @property
    def radius(self) -> float:
        return self.problem.R

    @property
    def reg(self) -> float:
        return self.problem.mu

    def value(self, w: np.ndarray, V: np.ndarray) -> float:
        P = self.problem
        Z = self.X + V
        return float(0.5 * P.mu * (w @ w) - np.mean(self.y * (Z @ w)) - 0.5 * P.gamma * np.mean(np.sum(Z * Z, 1)))

    def operator(self, w: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(∇_w H, n·∇_V H) — the V block is scaled by n (the metric ‖w‖² + (1/n)Σ‖v_i‖²)."""
        self.gradient_evaluations += self.n
        P = self.problem
        Z = self.X + V
        gw = P.mu * w - Z.T @ self.y / self.n
        gv = -self.y[:, None] * w[None, :] - P.gamma * Z
        return gw, gv

    def project_v(self, V: np.ndarray) -> np.ndarray:
        nv = np.linalg.norm(V, axis=1, keepdims=True)
        return V * np.minimum(1.0, self.problem.r / np.where(nv > 0, nv, 1.0))

    def inner_max(self, w: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        """Exact max_V H(w, V): V* (per block: Π_{B(0,r)}(−x_i − y_iw/γ) if γ > 0, −r y_i w/‖w‖ if γ = 0 — at
        w = 0 with γ = 0 every V is a maximiser and the one giving the minimum-norm Danskin gradient is used),
        G_D(w), and g = ∇_w H(w, V*) ∈ ∂G_D(w) (H(·, V*) ≤ G_D with equality at w)."""
        P = self.problem
        if P.gamma > 0:
            V = self.project_v(-self.X - self.y[:, None] * w[None, :] / P.gamma)
        else:
            nw = float(np.linalg.norm(w))
            if nw > 0:
                V = -P.r * self.y[:, None] * (w / nw)[None, :]
            else:
                m = self.X.T @ self.y / self.n
                my = float(np.mean(np.abs(self.y)))
                nm = float(np.linalg.norm(m))
                u = -m / nm * min(1.0, nm / (P.r * my)) if (nm > 0 and P.r * my > 0) else np.zeros(self.d)
                V = P.r * np.sign(self.y)[:, None] * u[None, :]  # (1/n)Σ y_i v_i = r·mean|y|·u ≈ −m
        Z = self.X + V
        g = P.mu * w - Z.T @ self.y / self.n
        return V, self.value(w, V), g

    def inner_min(self, V: np.ndarray) -> tuple[np.ndarray, float]:
        """Exact min_{w ∈ B(0,R)} H(w, V): H(·, V) = (μ/2)‖w‖² − ⟨w, b⟩ + const, minimiser Π_{B(0,R)}(b/μ)."""
        b = (self.X + V).T @ self.y / self.n
        w = project_ball(b / self.problem.mu, self.radius)
        return w, self.value(w, V)

    def subgradient_with_allowance(self, w: np.ndarray) -> tuple[np.ndarray, float]:
        _, _, g = self.inner_max(w)
        terms = float(np.sum(np.abs(self.y) * (np.linalg.norm(self.X, axis=1) + self.problem.r))) / self.n
        return g, _gradient_allowance(terms, self.n, self.d, 0.0, self.problem.mu * float(np.linalg.norm(w)))


def saddle_certificate(game: LinearAdversarialGame, w: np.ndarray, V: np.ndarray | None = None) -> Certificate:
    """Certificate of ‖w − w*(D)‖, w*(D) = argmin_{B(0,R)} G_D, for a candidate (w, V) of Algorithm 3, line 1.

    Route 1 (saddle / duality gap, Def. 4): G_D(w) − min G_D ≤ max_V H(w, ·) − min_w H(·, V) (weak duality; exact
    inner oracles).  Route 2 (Danskin): G_D is μ-strongly convex and g = ∇_w H(w, V*(w)) ∈ ∂G_D(w), so
    G_D(w) − min G_D ≤ Γ_μ(g) (projected strong-convexity gap).  The smaller gap is used and
    ‖w − w*‖ ≤ √(2·gap/μ) (μ-strong convexity of G_D, spec §2.3 (i)–(ii)).  A rounding allowance of
    64u(n + d + 16)(|G_D(w)| + |H(w', V)| + 1) is added to route 1."""
    w = as_float_vector(w, "w", game.d)
    if float(np.linalg.norm(w)) > game.radius:
        raise ValueError("w must lie in B(0, R)")
    mu = game.reg
    _, Gw, _ = game.inner_max(w)
    cands: dict[str, float] = {}
    if V is not None:
        Vp = game.project_v(np.asarray(V, dtype=float).reshape(game.n, game.d))
        _, low = game.inner_min(Vp)
        allow = 64.0 * _UNIT_ROUNDOFF * (game.n + game.d + 16) * (abs(Gw) + abs(low) + 1.0)
        cands["saddle (duality) gap"] = max(Gw - low, 0.0) + allow
    g, e = game.subgradient_with_allowance(w)
    cands["strong-convexity gap of G_D (Danskin)"] = _reg_gap(g, e, w, game.radius, mu).bound
    name = min(cands, key=cands.__getitem__)
    gap = cands[name]
    dist = math.sqrt(2.0 * gap / mu) * (1.0 + 4.0 * _UNIT_ROUNDOFF)
    return Certificate(gap_bound=float(gap), distance_bound=float(dist), method=name, strong_convexity=mu,
                       details={k: {"gap": v, "distance": math.sqrt(2 * v / mu)} for k, v in cands.items()})


def extragradient_step_size(problem: LinearAdversarialProblem) -> float:
    """η = 1/(2ℓ), ℓ = max{μ, γ} + y_max: a Lipschitz constant of the operator (∇_wH, −n∇_VH) in the metric
    ‖w‖² + (1/n)Σ‖v_i‖² (blocks μI, γI on the diagonal; coupling −(1/n)Σ y_i v_i, y_i w of norm ≤ y_max)."""
    return 0.5 / (max(problem.mu, problem.gamma) + problem.y_max)


def extragradient_iterations(problem: LinearAdversarialProblem, alpha: float) -> int:
    """T = ⌈(8ℓ/m) log(max{μD²/α, e})⌉, m = min{μ, γ} (γ > 0), D² = R² + r²: the linear rate of extragradient on
    an m-strongly monotone, ℓ-Lipschitz operator (‖z_t − z*‖² ≤ (1 − m/(8ℓ))^t ‖z_0 − z*‖² with η = 1/(2ℓ);
    Mokhtari, Ozdaglar & Pattathil 2020).  For γ = 0 (no strong concavity) the same formula with m = μ is a
    utility heuristic only.  Privacy never relies on it: the certificate gates the output (pitfall P9)."""
    a = check_positive(alpha, "alpha")
    ell = 2.0 * 0.5 / extragradient_step_size(problem)
    m = min(problem.mu, problem.gamma) if problem.gamma > 0 else problem.mu
    D2 = problem.R * problem.R + problem.r * problem.r  # no float ** (OverflowError for R >~ 1e154)
    t = 8.0 * ell / m * math.log(max(problem.mu * D2 / a, math.e))
    if not math.isfinite(t):  # μD²/α or ℓ/m overflows (α = 5e-324): math.ceil(inf) would raise OverflowError
        raise ValueError(f"extragradient_iterations: T overflows for alpha={a!r}, mu={problem.mu!r}, "
                         f"gamma={problem.gamma!r}; increase alpha (or mu, gamma)")
    return max(1, math.ceil(t))


def extragradient(game: LinearAdversarialGame, T: int, *, eta: float | None = None,
                  w0: np.ndarray | None = None, V0: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Projected extragradient (Korpelevich 1976) on B(0, R) × S^n, block steps η (w) and nη (V):

        (w', V') = Π(w − η∇_wH(w, V), V + nη∇_VH(w, V));   (w, V) ← Π(w − η∇_wH(w', V'), V + nη∇_VH(w', V')).

    Starts at (0, 0) (data-independent, spec U2).  Returns (w_T, V_T).  Raises ValueError / TypeError for a bad
    ``eta`` or ``T`` (``T`` above ``dpsco.reference.validation.MAX_ITERATIONS`` included)."""
    eta = extragradient_step_size(game.problem) if eta is None else check_positive(eta, "eta")
    T = check_iterations(T, "T", allow_zero=True)
    w = np.zeros(game.d) if w0 is None else np.array(w0, dtype=float)
    V = np.zeros((game.n, game.d)) if V0 is None else np.array(V0, dtype=float)
    R = game.radius
    for _ in range(T):
        gw, gv = game.operator(w, V)
        wh = project_ball(w - eta * gw, R)
        Vh = game.project_v(V + eta * gv)
        gw, gv = game.operator(wh, Vh)
        w = project_ball(w - eta * gw, R)
        V = game.project_v(V + eta * gv)
    return w, V


def algorithm_3_parameters(problem: LinearAdversarialProblem, n: int, d: int, epsilon: float, delta: float, *,
                           alpha: float | None, T: int | None, sensitivity_mode: SensitivityMode, erm: bool = True
                           ) -> dict[str, Any]:
    """Public parameters of Algorithm 3.  α default: Thm 4.1 (ERM: (L²/(μn²))min{κs², 1}; non-ERM without 1/n²),
    κ = β/μ = 1 (H(·, V) is μ-smooth).  Δ = 2L/(μn) (paper, ERM) or 2L_data/(μn) (tight: Lemma 0.2 on G_D, the
    ridge cancels); non-ERM: without 1/n.  Δ_T = Δ + 2√(2α/μ) (line 2 corrected, LR-E3)."""
    if sensitivity_mode not in ("paper", "tight"):
        raise ValueError(f"sensitivity_mode must be 'paper' or 'tight', got {sensitivity_mode!r}")
    erm = check_bool(erm, "erm")
    mu, L = problem.mu, problem.L
    s = noise_factor(d, epsilon, delta)
    kappa = 1.0
    if alpha is None:
        alpha = L * L / mu * min(kappa * s * s, 1.0) / (n * n if erm else 1.0)
    alpha = check_positive(alpha, "alpha")
    if T is None:
        T = check_iterations(extragradient_iterations(problem, alpha), "T", remedy=f"T is computed from alpha = {alpha:g}, "
                             f"mu = {mu:g} and gamma = {problem.gamma:g}: increase alpha, or pass a smaller T")
    else:
        T = check_iterations(T, "T", allow_zero=True, remedy="pass a smaller T")
    delta_F = 2.0 * (L if sensitivity_mode == "paper" else problem.L_data) / (mu * (n if erm else 1))
    return {**problem.to_dict(), "alpha": alpha, "T": int(T), "erm": erm, "Delta_F": delta_F,
            "Delta_T": sensitivity_T(delta_F, alpha, mu), "sensitivity_mode": sensitivity_mode, "kappa": kappa}


def _g_objective(game: LinearAdversarialGame) -> Any:
    """G_D as an objective for :func:`certified_first_order` (value, Danskin gradient, certificate)."""

    class _G:
        d, radius, reg = game.d, game.radius, game.reg

        @staticmethod
        def value(w: np.ndarray) -> float:
            return game.inner_max(w)[1]

        @staticmethod
        def grad(w: np.ndarray) -> np.ndarray:
            game.gradient_evaluations += game.n
            return game.inner_max(w)[2]

        @staticmethod
        def certify(w: np.ndarray) -> Certificate:
            return saddle_certificate(game, w, game.inner_max(w)[0])

    return _G()


def algorithm_3(
    X: Any, y: Any, problem: LinearAdversarialProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
    method: Literal["extragradient"] | Callable[..., tuple[np.ndarray, np.ndarray]] = "extragradient",
    alpha: float | None = None, T: int | None = None, sensitivity_mode: SensitivityMode = "paper", erm: bool = True,
    gaussian: Literal["zhao", "analytic"] = "zhao", fallback: Fallback = "certified_solver",
    replicates: int | None = None,
) -> Release:
    """Algorithm 3: black-box output perturbation for DP adversarial training (Lowy & Razaviyayn, Sec. 4).

    Line 1: 𝓜 returns (w_T, V_T); the privacy proof needs G_D(w_T) − min G_D ≤ α on every run, certified by
    :func:`saddle_certificate` (duality gap of Def. 4, or G_D's strong-convexity gap); accept iff
    ‖w_T − w*(D)‖ ≤ √(2α/μ), else minimise G_D with the certified first-order solver (``fallback=
    "certified_solver"``) or raise UncertifiedError (``"refuse"``).  𝓜 = extragradient (a simple certified
    replacement for the paper's Minimax-AIPP/APPA, spec U6) or a callable ``(game, rng) -> (w, V)``.
    Line 2: Δ = 2L/(μn) (ERM; 2L/μ non-ERM); Δ_T = Δ + 2√(2α/μ) for both δ = 0 and δ > 0 — the printed δ > 0
    density's Δ + 2α/μ under-noises when α/μ < 2 (ERRATA LR-E3; ``sensitivity_T(..., printed="alg3")``); the
    noise is Algorithm 1's (L2-Laplace; Zhao's Gaussian); w_A = Π_{B(0,R)}(w_T + ẑ).  Line 3: return w_A.

    Parameters
    ----------
    X : (n, d); y : (n,) — checked against the declared bounds of ``problem``.
    problem : LinearAdversarialProblem (μ, S = B(0, r), γ, bounds, R).
    epsilon, delta, rng : as :func:`algorithm_1`.  alpha, T : default Thm 4.1's α and the extragradient count.
    sensitivity_mode : "paper" | "tight" (:func:`algorithm_3_parameters`).  erm : ERM-form Δ (default).
    replicates : independent noisy outputs of one certified w_T (deterministic 𝓜 only), for auditors.

    Returns
    -------
    Release: output (d,) or (replicates, d), claim ("same arguments" as Prop. 2.1, Sec. 4), diagnostics with
    the certificate and V_T.

    Raises
    ------
    ValueError / TypeError on bad inputs, as :func:`algorithm_1` (unknown ``fallback``, complex data,
    ``epsilon``/``delta`` outside the calibration range, ``T`` above ``dpsco.reference.validation.MAX_ITERATIONS``);
    UncertifiedError (``fallback="refuse"``).
    """
    if not isinstance(problem, LinearAdversarialProblem):
        raise TypeError(f"problem must be a LinearAdversarialProblem, got {type(problem).__name__}")
    (eps, dl), rng = check_calibration_budget(epsilon, delta), check_rng(rng)
    if not dl < 0.5:
        raise ValueError(f"delta must lie in [0, 1/2), got {dl}")
    check_choice(fallback, "fallback", FALLBACKS)
    if replicates is not None:
        check_positive_int(replicates, "replicates")  # before the inner optimiser runs
    if not (callable(method) or method == "extragradient"):
        raise ValueError(f"method must be 'extragradient' or a callable, got {method!r}")
    game = problem.game(X, y)
    n, d = game.n, game.d
    p = algorithm_3_parameters(problem, n, d, eps, dl, alpha=alpha, T=T, sensitivity_mode=sensitivity_mode, erm=erm)
    cal = calibrate(p["Delta_T"], eps, dl, gaussian=gaussian)  # line 2's density from public inputs only
    opt_rng, noise_rng = rng.spawn(2)
    mu, R, a = problem.mu, problem.R, p["alpha"]
    radius_needed = math.sqrt(2.0 * a / mu)
    # line 1: run 𝓜 for T iterations to obtain an α-saddle point, then certify it
    if callable(method):
        res = method(game, opt_rng)
        w_T = as_float_vector(res[0], "optimizer output w", d)
        V_T = np.asarray(res[1], dtype=float).reshape(n, d)
    else:
        w_T, V_T = extragradient(game, p["T"])
    w_T = _strictly_inside(project_ball(w_T, R), R)
    cert = saddle_certificate(game, w_T, V_T)
    path = f"{method if isinstance(method, str) else 'user saddle solver'} (certified)"
    evals = game.gradient_evaluations
    details: dict[str, Any] = {}
    if not cert.distance_bound <= radius_needed:
        if fallback == "refuse":
            raise UncertifiedError(f"the saddle solver's w_T is not certified: distance bound {cert.distance_bound!r}"
                                   f" > √(2α/μ) = {radius_needed!r}; refusing to release", certificate=cert, w=w_T)
        details["first_certificate_distance"] = cert.distance_bound
        w_T, cert = certified_first_order(_g_objective(game), 0.5 * radius_needed)
        V_T = game.inner_max(w_T)[0]
        path = "certified minimisation of G_D (saddle solver's output was not certified)"
    out = _release_noise(w_T, cal, R, noise_rng, replicates)  # line 2: Π_{B(0,R)}(w_T + ẑ)
    inner = InnerResult(w_T, cert, path, evals, p["T"], details)
    claim = _claim(eps, dl, f"{PAPER}, Algorithm 3 (privacy by the arguments of Prop. 2.1 applied to G_D; noise "
                   "Δ + 2√(2α/μ), ERRATA LR-E3)" + ("; Theorem 0.1 (Zhao et al. 2019)" if dl > 0 and gaussian == "zhao"
                                                    else ""),
                   {**p, "noise": cal.to_dict(), "perturbation_set": f"B(0, {problem.r})"}, inner, a, mu)
    return Release(output=out, claim=claim, gradient_evaluations=game.gradient_evaluations,
                   parameters={**p, "method": method if isinstance(method, str) else "callable",
                               "noise_scale": cal.scale, "mechanism": cal.mechanism},
                   algorithm="Algorithm 3 (Lowy & Razaviyayn 2021)",
                   diagnostics={"certificate": cert.to_dict(), "inner_path": path, **details},
                   nonprivate_internals={"w_T": w_T.copy(), "V_T": V_T.copy()}, replicates=replicates)


def theorem_4_1_alpha(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 4.1's α = (L²/μ)min{κs², 1} (non-ERM), /n² (ERM)."""
    s = _s(d, eps, delta)
    return L * L / mu * min(beta / mu * s * s, 1.0) / (n * n if erm else 1.0)


__all__ += ["TiltedObjective", "RobustObjective", "LinearAdversarialProblem", "LinearAdversarialGame",
            "strong_convexity_certificate", "certified_first_order", "glm_loss_range", "tilted_constants",
            "tilted_erm", "robust_constants", "robust_erm", "saddle_certificate", "extragradient",
            "extragradient_step_size", "extragradient_iterations", "algorithm_3_parameters", "algorithm_3",
            "theorem_4_1_alpha"]
