"""Exact answers for Lowy & Razaviyayn's output perturbation (``dpsco.reference.lr21``).

Exact privacy of the noise mechanisms of ``dpsco.reference.noise``
-------------------------------------------------------------
* **L2-Laplace (δ = 0)**, density ∝ exp(−‖z‖/b) around centres a, a' with ‖a − a'‖ = t: the privacy loss
  log p(o − a)/p(o − a') = (‖o − a'‖ − ‖o − a‖)/b ≤ t/b by the triangle inequality, with equality for every
  o = a + r·u, u = (a − a')/t, r ≥ 0 (a set of positive measure once thickened: the loss is continuous and
  its supremum t/b is approached on open sets).  Hence the mechanism is exactly (t/b)-DP: ε_exact = t/b,
  and δ(ε) > 0 for every ε < t/b.  (``l2_laplace_epsilon``.)  The projection Π_{B(0,R)} is post-processing.
* **Gaussian**: the exact curve δ(ε) of Balle & Wang 2018 (``dpsco.oracles.privacy_curves.gaussian_delta``) with
  shift t and the σ actually used; ``zhao_exact_epsilon`` / ``printed_alg2_exact_epsilon`` evaluate what
  the paper's printed σ formulas really guarantee at sensitivity Δ.

Certified minimisers of the application objectives (tilted ERM, ℓ2-robust GLMs; Sec. 4)
-------------------------------------------------------------------------------------
``newton_certified_minimizer``: damped Newton with the analytic Hessian (below), and for an active ball
constraint a multiplier search (min F + (ν/2)‖w‖², bisection on ν until ‖w(ν)‖ = R: KKT of the constrained
problem), then the a-posteriori certificate of ``dpsco.reference.lr21.strong_convexity_certificate``
(refuses — UncertifiedError — if it does not reach ``tol``).  Independent of the reference's first-order solver;
``cvxpy_tilted`` / ``cvxpy_robust`` (Clarabel, must report ``optimal``) are the independent cross-checks.

Hessians.  Tilted: ∇²F_τ = Σ v_i φ''_i x_i x_iᵀ + τ(Σ v_i g_i g_iᵀ − ḡḡᵀ) + μI with g_i = φ'_i x_i, ḡ = Σ v_i g_i
(Li et al. 2020; docs/derivations.md#sensitivity-and-smoothness-of-the-tilted-objective).  Robust logistic, m_i = y_i⟨w, x_i⟩ − ρ‖w‖, ∇m_i = y_i x_i − ρû, ∇²m_i = −ρ(I − ûûᵀ)/‖w‖:
∇²ℓ_i = φ''(m_i)∇m_i∇m_iᵀ + φ'(m_i)∇²m_i.  Robust squared, h_i = |s_i − y_i| + ρ‖w‖: ∇²ℓ_i = ∇h_i∇h_iᵀ + h_iρ(I − ûûᵀ)/‖w‖
(away from the kinks).

Algorithm 3 games (docs/derivations.md#linear-adversarial-games): ``linear_game_minimizer`` gives w*(D) of the
linear game (γ = 0) in closed form (((‖m‖ − r)₊/μ)·m/‖m‖, m = (1/n)Σy_ix_i, y ∈ {±1}) and of the strongly concave
game (γ > 0) by cvxpy (quad_over_lin dual form).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import dpsco.reference.lr21 as op
from dpsco.reference import noise
from dpsco.reference.certificates import Certificate, UncertifiedError
from dpsco.reference.noise import project_ball
from dpsco.reference.solvers import strictly_inside
from dpsco.reference.validation import check_positive

from dpsco.oracles.privacy_curves import gaussian_delta, gaussian_epsilon

__all__ = ["gaussian_exact_delta", "l2_laplace_epsilon", "printed_alg2_exact_epsilon", "zhao_exact_epsilon",
           "objective_hessian", "newton_certified_minimizer", "cvxpy_tilted", "cvxpy_robust",
           "linear_game_minimizer", "laplace_mixture_epsilon_lower"]


def l2_laplace_epsilon(shift: float, scale: float) -> float:
    """Exact ε of z ↦ a + Lap_2(b) vs a' + Lap_2(b), ‖a − a'‖ = ``shift``, b = ``scale``: shift/b."""
    return check_positive(shift, "shift", allow_zero=True) / check_positive(scale, "scale")


def gaussian_exact_delta(epsilon: float, shift: float, sigma: float) -> float:
    """Exact δ(ε) of the Gaussian output perturbation with centre distance ``shift`` (Balle & Wang 2018)."""
    return float(gaussian_delta(epsilon, shift, sigma))


def zhao_exact_epsilon(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Smallest ε' with δ_σ(ε') ≤ δ for Zhao's σ at (ε, δ, Δ): what Theorem 0.1 actually delivers (≤ ε)."""
    return gaussian_epsilon(delta, sensitivity, noise.zhao_sigma(sensitivity, epsilon, delta))


def printed_alg2_exact_epsilon(epsilon: float, delta: float, sensitivity: float = 1.0) -> float:
    """Same for Algorithm 2's printed density (σ_Zhao/√2, erratum LR21-E2): exceeds ε (not private)."""
    return gaussian_epsilon(delta, sensitivity, noise.zhao_sigma(sensitivity, epsilon, delta, printed_alg2=True))


# ================================================================================================
# Certified minimisers of the application objectives
# ================================================================================================


def objective_hessian(obj: Any, w: np.ndarray) -> np.ndarray:
    """Analytic Hessian (d, d) of a TiltedObjective or RobustObjective at w (w ≠ 0 for the robust ones)."""
    X, y = obj.X, obj.y
    d = X.shape[1]
    if isinstance(obj, op.TiltedObjective):
        s = X @ w
        v = obj.weights(w)
        dphi, d2 = obj.loss.dphi(s, y), obj.loss.d2phi(s, y)
        G = X * dphi[:, None]
        gbar = v @ G
        H = (X.T * (v * d2)) @ X + obj.tau * ((G.T * v) @ G - np.outer(gbar, gbar))
        return H + obj.reg * np.eye(d)
    if isinstance(obj, op.RobustObjective):
        nw = float(np.linalg.norm(w))
        if nw == 0:
            raise ValueError("the robust objectives are not twice differentiable at w = 0")
        u = w / nw
        Pp = (np.eye(d) - np.outer(u, u)) / nw
        s = X @ w
        rho = obj.rho
        if obj.kind == "logistic":
            m = y * s - rho * nw
            p = 1.0 / (1.0 + np.exp(-m))
            dphi, d2 = -(1.0 - p), p * (1.0 - p)
            Gm = X * y[:, None] - rho * u[None, :]
            H = (Gm.T * d2) @ Gm / len(y) + float(np.mean(dphi)) * (-rho) * Pp
        else:
            r = s - y
            h = np.abs(r) + rho * nw
            Gh = X * np.sign(r)[:, None] + rho * u[None, :]
            H = Gh.T @ Gh / len(y) + float(np.mean(h)) * rho * Pp
        return H + obj.reg * np.eye(d)
    raise TypeError(f"objective_hessian: unsupported objective {type(obj).__name__}")


def _newton(obj: Any, nu: float, w0: np.ndarray, max_iter: int = 60) -> np.ndarray:
    """Damped Newton (Armijo backtracking) on F + (ν/2)‖w‖² from w0."""
    w = w0.copy()
    f = lambda z: obj.value(z) + 0.5 * nu * (z @ z)  # noqa: E731
    for _ in range(max_iter):
        if isinstance(obj, op.RobustObjective) and np.linalg.norm(w) == 0:
            w = w + 1e-3 * np.ones_like(w) / np.sqrt(len(w))
        g = obj.subgradient_with_allowance(w)[0] + nu * w
        H = objective_hessian(obj, w) + nu * np.eye(len(w))
        step = np.linalg.solve(H, g)
        dec = float(g @ step)
        if dec <= 1e-28 * max(1.0, abs(f(w))):
            break
        if dec < 1e-10:  # quadratic-convergence region: full steps (the Armijo test is below rounding here)
            w = w - step
            continue
        t, fw = 1.0, f(w)
        while f(w - t * step) > fw - 0.25 * t * dec and t > 1e-12:
            t *= 0.5
        w = w - t * step
    return w


def _start(obj: Any) -> np.ndarray:
    """Starting point of Newton.  Tilted: 0.  Robust: G_D is not differentiable at 0 and the curvature term
    ρ|φ'|(I − uuᵀ)/‖w‖ explodes near it, so Newton started near 0 can stall there; start instead at the
    minimiser of G_D on the ray of steepest descent from 0 (−g₀, g₀ the minimum-norm subgradient at 0; a 1-D
    bounded scalar minimisation, scipy).  Every later Armijo step keeps G_D below G_D(w₀) < G_D(0), away from
    the kink.  If g₀ = 0, then 0 is the minimiser and is returned."""
    w0 = np.zeros(obj.d)
    if not isinstance(obj, op.RobustObjective):
        return w0
    g0 = obj.subgradient_with_allowance(w0)[0]
    ng = float(np.linalg.norm(g0))
    if ng == 0.0:
        return w0
    from scipy.optimize import minimize_scalar

    u = -g0 / ng
    res = minimize_scalar(lambda t: obj.value(t * u), bounds=(0.0, obj.radius), method="bounded",
                          options={"xatol": 1e-10 * obj.radius})
    return float(res.x) * u


def newton_certified_minimizer(obj: Any, tol: float = 1e-6) -> tuple[np.ndarray, Certificate]:
    """Certified minimiser of a TiltedObjective / RobustObjective over B(0, R) (module docstring).

    Returns (w, certificate) with certificate.distance_bound ≤ tol, or raises UncertifiedError."""
    tol = check_positive(tol, "tol")
    R = obj.radius
    w0 = _start(obj)
    if isinstance(obj, op.RobustObjective) and not np.any(w0):
        cert = op.strong_convexity_certificate(obj, w0)  # 0 is the minimiser (minimum-norm subgradient 0)
        if cert.distance_bound <= tol:
            return w0, cert
    w = _newton(obj, 0.0, w0)
    if np.linalg.norm(w) > R:  # active constraint: find ν ≥ 0 with ‖w(ν)‖ = R (KKT)
        lo, hi = 0.0, 1.0
        while np.linalg.norm(_newton(obj, hi, w)) > R:
            hi *= 2.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            wm = _newton(obj, mid, w)
            if np.linalg.norm(wm) > R:
                lo = mid
            else:
                hi, w = mid, wm
            if hi - lo <= 1e-15 * max(1.0, hi):
                break
        w = _newton(obj, hi, w)
    w = strictly_inside(project_ball(w, R), R)
    cert = op.strong_convexity_certificate(obj, w)
    if not cert.distance_bound <= tol:
        raise UncertifiedError(f"Newton oracle: certified distance {cert.distance_bound!r} > tol {tol!r}",
                               certificate=cert, w=w)
    return w, cert


def cvxpy_tilted(obj: Any) -> tuple[np.ndarray, str]:
    """cvxpy/Clarabel: min (μ/2)‖w‖² + (1/τ)(log_sum_exp(τℓ_i(w)) − log n) s.t. ‖w‖ ≤ R (DCP: log_sum_exp is convex
    and nondecreasing, τℓ_i convex).

    Logistic ℓ via cp.logistic, squared via cp.square.  Returns (w, status)."""
    import cvxpy as cp

    n, d = obj.X.shape
    w = cp.Variable(d)
    s = obj.X @ w
    if obj.loss.name == "logistic":
        ell = cp.logistic(-cp.multiply(obj.y, s))
    elif obj.loss.name == "squared":
        ell = 0.5 * cp.square(s - obj.y)
    else:
        raise ValueError(f"cvxpy_tilted: loss {obj.loss.name!r} not supported")
    F = 0.5 * obj.reg * cp.sum_squares(w) + (cp.log_sum_exp(obj.tau * ell) - math.log(n)) / obj.tau
    prob = cp.Problem(cp.Minimize(F), [cp.norm(w, 2) <= obj.radius])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return np.asarray(w.value, dtype=float), prob.status


def cvxpy_robust(obj: Any) -> tuple[np.ndarray, str]:
    """cvxpy/Clarabel for G_D of RobustObjective (docs/derivations.md#closed-form-inner-maximisation-of-robust-glms):
    logistic via
    cp.logistic(−y⊙(Xw) + ρ‖w‖); squared via the epigraph t ≥ |Xw − y| + ρ‖w‖, sum_squares(t)/(2n)."""
    import cvxpy as cp

    n, d = obj.X.shape
    w = cp.Variable(d)
    cons = [cp.norm(w, 2) <= obj.radius]
    if obj.kind == "logistic":
        data = cp.sum(cp.logistic(-cp.multiply(obj.y, obj.X @ w) + obj.rho * cp.norm(w, 2))) / n
    else:
        t = cp.Variable(n)
        cons.append(t >= cp.abs(obj.X @ w - obj.y) + obj.rho * cp.norm(w, 2))
        data = cp.sum_squares(t) / (2 * n)
    prob = cp.Problem(cp.Minimize(data + 0.5 * obj.reg * cp.sum_squares(w)), cons)
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    return np.asarray(w.value, dtype=float), prob.status


def linear_game_minimizer(game: Any) -> np.ndarray:
    """w*(D) = argmin_{B(0,R)} G_D for LinearAdversarialGame (docs/derivations.md#linear-adversarial-games).
    γ = 0, y ∈ {±1}: closed form,
    ((‖m‖ − r)₊/μ)·m/‖m‖ projected onto B(0, R) (G_D is isotropic-quadratic plus r‖w‖, so the projection of the
    unconstrained minimiser is the constrained one); γ > 0: cvxpy with the dual form of the inner maximum."""
    P = game.problem
    X, y, n = game.X, game.y, game.n
    if P.gamma == 0:
        if not np.all(np.abs(y) == 1):
            raise ValueError("closed form needs y ∈ {±1}")
        m = X.T @ y / n
        nm = float(np.linalg.norm(m))
        w = np.zeros(game.d) if nm <= P.r else (nm - P.r) / P.mu * m / nm
        return project_ball(w, game.radius)
    import cvxpy as cp

    w = cp.Variable(game.d)
    t = cp.Variable(n, nonneg=True)
    terms = [cp.quad_over_lin(t[i] * X[i] - y[i] * w, P.gamma + t[i]) / 2 - t[i] / 2 * (X[i] @ X[i] - P.r ** 2)
             for i in range(n)]
    prob = cp.Problem(cp.Minimize(0.5 * P.mu * cp.sum_squares(w) + sum(terms) / n), [cp.norm(w, 2) <= game.radius])
    prob.solve(solver=cp.CLARABEL)
    if prob.status != "optimal":
        raise RuntimeError(f"cvxpy status {prob.status}")
    return np.asarray(w.value, dtype=float)


def laplace_mixture_epsilon_lower(centres_p: Any, centres_q: Any, scale: float) -> float:
    """Pure-DP ε lower bound of 1-d mixtures P = mean_j Lap(a_j, b), Q = mean_j Lap(a'_j, b) (uniform weights):
    the privacy loss log p(o)/q(o) tends, as o → ±∞, to log(Σ e^{±a_j/b}/Σ e^{±a'_j/b}) (every density ∝ e^{−|o − a|/b}),
    and is approached on sets of positive measure; the max over both tails and both directions is ≤ the exact ε."""
    a = np.asarray(centres_p, dtype=float) / scale
    b = np.asarray(centres_q, dtype=float) / scale
    from scipy.special import logsumexp as lse

    vals = [lse(a) - lse(b), lse(-a) - lse(-b)]
    return float(max(max(vals), max(-v for v in vals)))
