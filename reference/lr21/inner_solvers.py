"""The inner methods 𝓜 of Lowy & Razaviyayn's Algorithms 1–3 and the certified inner step (line 1).

``subgradient_method`` (η_t = 2/(μ(t+1)), Prop. 0.1), ``accelerated_gradient`` (Nesterov AGD, Bubeck Thm 3.18),
``stochastic_subgradient_method`` (Thm 3.1/3.3), ``katyusha`` (Allen-Zhu 2018, Thm 3.2/3.4) and, for
Algorithm 3, ``extragradient``.  Their iteration counts are in :mod:`dpsco.reference.lr21.theorems` (the saddle
solver's here).  ``certified_inner`` runs 𝓜 and accepts its output only with the certificate the privacy proof
needs (:mod:`dpsco.reference.lr21`, "Privacy rests on a certificate").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Literal

import numpy as np

from dpsco.reference.certificates import Certificate, UncertifiedError
from dpsco.reference.lr21.objectives import GLMObjective, LinearAdversarialGame, LinearAdversarialProblem
from dpsco.reference.noise import project_ball
from dpsco.reference.solvers import strictly_inside
from dpsco.reference.validation import (as_float_vector, check_choice, check_iterations, check_positive,
                                        check_rng)

__all__ = ["Method", "Fallback", "FALLBACKS", "subgradient_method", "accelerated_gradient",
           "stochastic_subgradient_method", "katyusha", "InnerResult", "certified_inner", "extragradient_step_size",
           "extragradient_iterations", "extragradient"]

Method = Literal["subgradient", "agd", "sgd", "katyusha"]
Fallback = Literal["certified_solver", "refuse"]
FALLBACKS: tuple[str, ...] = ("certified_solver", "refuse")


# ================================================================================================
# Inner optimisers 𝓜 of Algorithms 1 and 2
# ================================================================================================


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
    w = np.zeros(obj.d)  # w_1 = 0 (data-independent)
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
    itself: :func:`dpsco.reference.lr21.algorithm_1` certifies its output.  Raises ValueError / TypeError for bad inputs
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
    ψ = (σ/2)‖w‖² + ι_{B(0,R)} (σ = obj.reg), as in the proof of Thm 0.6.

    m = 2n, τ₂ = ½, τ₁ = min(√(mσ/(3β)), ½), a = 1/(3τ₁β); prox_{aψ}(v) = Π(v/(1 + aσ)).  Per epoch: n
    per-sample gradients for the snapshot, 2 per inner step.  Accuracy in expectation only (certified by the caller).  Raises
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
# The certified inner step (shared by Algorithms 1–3)
# ================================================================================================


@dataclass
class InnerResult:
    """Outcome of :func:`certified_inner`: the certified point ``w`` (d,), its ``certificate``, the ``path`` taken
    (the inner method, or the certified solver when the method's output was not certified), the per-sample
    ``gradient_evaluations`` of 𝓜, its iteration count ``T`` and ``details`` (e.g. the first certificate's
    distance when the fallback ran)."""

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
    """Line 1 of Algorithms 1–3 with the certificate the privacy proof needs (:mod:`dpsco.reference.lr21`).

    Accepts w_T iff the certified ‖w_T − argmin_{B(0,R)} F‖ ≤ √(2α/modulus); otherwise falls back to the
    certified solver (or raises UncertifiedError with ``fallback="refuse"``).  Raises ValueError for a
    ``fallback`` other than "certified_solver" / "refuse" (before the inner method runs)."""
    check_choice(fallback, "fallback", FALLBACKS)
    radius_needed = math.sqrt(2.0 * alpha / modulus)
    w = project_ball(_run_inner(obj, method, modulus, T, smoothness, rng), obj.radius)
    w = strictly_inside(w, obj.radius)
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


# ================================================================================================
# The saddle-point solver of Algorithm 3
# ================================================================================================


def extragradient_step_size(problem: LinearAdversarialProblem) -> float:
    """η = 1/(2ℓ), ℓ = max{μ, γ} + y_max: a Lipschitz constant of the operator (∇_wH, −n∇_VH) in the metric
    ‖w‖² + (1/n)Σ‖v_i‖² (blocks μI, γI on the diagonal; coupling −(1/n)Σ y_i v_i, y_i w of norm ≤ y_max)."""
    return 0.5 / (max(problem.mu, problem.gamma) + problem.y_max)


def extragradient_iterations(problem: LinearAdversarialProblem, alpha: float) -> int:
    """T = ⌈(8ℓ/m) log(max{μD²/α, e})⌉, m = min{μ, γ} (γ > 0), D² = R² + r²: the linear rate of extragradient on
    an m-strongly monotone, ℓ-Lipschitz operator (‖z_t − z*‖² ≤ (1 − m/(8ℓ))^t ‖z_0 − z*‖² with η = 1/(2ℓ);
    Mokhtari, Ozdaglar & Pattathil 2020).  For γ = 0 (no strong concavity) the same formula with m = μ is a
    utility heuristic only.  Privacy never relies on it: the certificate gates the output."""
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

    Starts at (0, 0) (data-independent).  Returns (w_T, V_T).  Raises ValueError / TypeError for a bad
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
