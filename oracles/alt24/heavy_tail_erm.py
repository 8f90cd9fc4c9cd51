"""Certified minimiser of the regularised empirical risk of Asi, Liu & Tian (2024) over a two-ball domain:

    F(x) = (1/n) Σ_i f(x; s_i) + (λ/2)‖x − x̄‖²   over   K = B(0, R) ∩ B(x̄, r)   (r = ∞: K = B(0, R)),

the restricted ERM of Lemma 5 and the (shifted) objective of Algorithm 1 inside the Corollary 2 solver (x̄ = 0,
r = ∞ gives F_{D,λ} of (5) over X = B(0, R), Proposition 1 / Corollary 1).

Methods (``CertifiedERM.method``):

* "closed form": mean estimation, the linear loss (λ > 0) and the tilted quadratic have F = (κ/2)‖x − c‖² + const
  (κ = 1 + λ, λ, β₀ + λ; c the completed-square centre), so argmin_K F = Π_K(c), the exact projection onto the
  two-ball intersection (``dpsco.reference.alt24.primitives.project_ball_intersection``).  The linear loss at
  λ = 0 is a linear minimisation over K, solved exactly (``linear_minimiser``).
* "cvxpy": least squares, logistic GLM and LAD are solved by cvxpy (Clarabel), the point projected onto K
  (exactly feasible), and certified independently of the solver:
  - smooth losses: the Frank–Wolfe gap ⟨∇F(x̂), x̂ − y⟩ with y = argmin_K ⟨∇F(x̂), y⟩ (exact), an upper bound on
    F(x̂) − min_K F by convexity;
  - LAD: the Lagrangian dual bound D(v) = min_K (1/n)Σ v_i(⟨a_i, x⟩ − b_i) + (λ/2)‖x − x̄‖² ≤ min_K F for any
    v ∈ [−1, 1]^n (|z| = max_{|v|≤1} vz), evaluated exactly (isotropic quadratic: a projection), with v from
    the residual signs and the solver's multipliers (whichever bound is higher).

Every result carries ``gap`` (a certified bound on F(x̂) − min_K F, rounding slack included) and, for λ > 0,
``distance`` = √(2 gap/λ) ≥ ‖x̂ − argmin_K F‖ (F is λ-strongly convex).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.alt24.losses import (LADLoss, LeastSquaresLoss, LinearLoss, LogisticGLMLoss,
                                          MeanEstimationLoss, TiltedQuadraticLoss)
from dpsco.reference.alt24.model import HeavyTailedLoss, check_records
from dpsco.reference.alt24.primitives import project_ball_intersection
from dpsco.reference.validation import as_float_vector, check_positive

__all__ = ["CertifiedERM", "certified_regularised_erm", "linear_minimiser", "regularised_objective"]


@dataclass(frozen=True)
class CertifiedERM:
    """x ∈ K, value = F(x), gap ≥ F(x) − min_K F, distance ≥ ‖x − argmin_K F‖ (inf when λ = 0), method."""

    x: np.ndarray
    value: float
    gap: float
    distance: float
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {"x": self.x.tolist(), "value": self.value, "gap": self.gap, "distance": self.distance,
                "method": self.method}


def regularised_objective(loss: HeavyTailedLoss, S: Any, lam: float, xbar: Any, x: Any) -> float:
    """F(x) = (1/n)Σ f(x; s_i) + (λ/2)‖x − x̄‖² (math.fsum of the per-sample values)."""
    x = np.asarray(x, dtype=np.float64)
    vals = loss.values(x, S)
    return math.fsum(vals) / vals.size + 0.5 * lam * float(np.sum((x - np.asarray(xbar, dtype=np.float64)) ** 2))


def _gradient(loss: HeavyTailedLoss, S: np.ndarray, lam: float, xbar: np.ndarray, x: np.ndarray) -> np.ndarray:
    return loss.grads(x, S).mean(axis=0) + lam * (x - xbar)


def linear_minimiser(g: Any, R: float, center: Any, r: float) -> np.ndarray:
    """argmin_{y ∈ B(0, R) ∩ B(center, r)} ⟨g, y⟩, exactly (the domain assumed non-empty).

    KKT: the minimiser over one ball (−R ĝ, or center − r ĝ) if it lies in the other ball; otherwise it lies
    on both spheres, in the hyperplane ⟨y, ĉ⟩ = h (h = (R² − r² + ‖c‖²)/(2‖c‖)), at h ĉ − ρ g_⊥/‖g_⊥‖ with
    ρ = √(R² − h²) and g_⊥ the part of g orthogonal to ĉ."""
    g = as_float_vector(g, "g")
    c = as_float_vector(center, "center", g.size)
    ng = float(np.linalg.norm(g))
    if ng == 0.0:  # every point of K minimises; Π_{B(0,R)}(c) ∈ K (‖c‖ − R ≤ r when K ≠ ∅)
        nc = float(np.linalg.norm(c))
        return c.copy() if nc <= R else c * (R / nc)
    gh = g / ng
    tol = 1e-12 * (1 + R + (0.0 if math.isinf(r) else r))
    y1 = -R * gh
    if math.isinf(r) or np.linalg.norm(y1 - c) <= r + tol:
        return y1
    y2 = c - r * gh
    if np.linalg.norm(y2) <= R + tol:
        return y2
    nc = float(np.linalg.norm(c))
    ch = c / nc
    h = (R * R - r * r + nc * nc) / (2 * nc)
    rho = math.sqrt(max(R * R - h * h, 0.0))
    gp = g - float(g @ ch) * ch
    ngp = float(np.linalg.norm(gp))
    if ngp == 0.0:
        return h * ch
    return h * ch - rho * gp / ngp


def _lad_dual_bound(S: np.ndarray, lam: float, xbar: np.ndarray, R: float, r: float, v: np.ndarray) -> float:
    """D(v) = min_K (1/n)Σ v_i(⟨a_i, x⟩ − b_i) + (λ/2)‖x − x̄‖² for v ∈ [−1, 1]^n (exact minimisation)."""
    A, b = S[:, :-1], S[:, -1]
    n = S.shape[0]
    q = A.T @ v / n
    if lam > 0:
        x = project_ball_intersection(xbar - q / lam, np.zeros_like(xbar), R, xbar, r)
    else:
        x = linear_minimiser(q, R, xbar, r)
    return float(q @ x) - math.fsum(v * b) / n + 0.5 * lam * float(np.sum((x - xbar) ** 2))


def _cvxpy_solve(loss: HeavyTailedLoss, S: np.ndarray, lam: float, xbar: np.ndarray, R: float, r: float
                 ) -> tuple[np.ndarray, np.ndarray | None]:
    import cvxpy as cp

    n, d = S.shape[0], loss.dimension(S.shape[1])
    x = cp.Variable(d)
    cons = [cp.norm(x, 2) <= R]
    if not math.isinf(r):
        cons.append(cp.norm(x - xbar, 2) <= r)
    reg = 0.5 * lam * cp.sum_squares(x - xbar)
    eq = None
    if isinstance(loss, LeastSquaresLoss):
        data = 0.5 * cp.sum_squares(S[:, :-1] @ x - S[:, -1]) / n
    elif isinstance(loss, LogisticGLMLoss):
        data = cp.sum(cp.logistic(S @ x)) / n
    elif isinstance(loss, LADLoss):
        z = cp.Variable(n)
        eq = z == S[:, :-1] @ x - S[:, -1]
        cons.append(eq)
        data = cp.sum(cp.abs(z)) / n
    else:  # pragma: no cover - guarded by the caller
        raise TypeError(f"no cvxpy form for the loss {loss.name}")
    prob = cp.Problem(cp.Minimize(data + reg), cons)
    with warnings.catch_warnings():  # "solution may be inaccurate": the certificate below decides, not the solver
        warnings.simplefilter("ignore", UserWarning)
        prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-11, tol_gap_rel=1e-11, tol_feas=1e-11)
    if x.value is None:
        raise RuntimeError(f"cvxpy returned no solution ({prob.status})")
    dual = None if eq is None or eq.dual_value is None else np.asarray(eq.dual_value, dtype=np.float64)
    return np.asarray(x.value, dtype=np.float64), dual


def certified_regularised_erm(loss: HeavyTailedLoss, S: Any, lam: float, xbar: Any, R: float,
                              r: float = math.inf) -> CertifiedERM:
    """argmin of F(x) = (1/n)Σ f(x; s_i) + (λ/2)‖x − x̄‖² over B(0, R) ∩ B(x̄, r), with a certificate (module
    docstring).  loss : one of the six losses of ``dpsco.reference.alt24.losses``;  S (n, p) records;  λ ≥ 0;
    x̄ (d,);  R > 0;  r > 0 (inf allowed).  Raises ValueError / TypeError naming the parameter (also if K is
    empty, or λ = 0 for a loss whose minimiser needs strong convexity to be certified by distance)."""
    S, d = check_records(S, loss)
    lam = check_positive(lam, "lam", allow_zero=True)
    xbar = as_float_vector(xbar, "xbar", d)
    R = check_positive(R, "R")
    r = check_positive(r, "r", allow_inf=True)
    zero = np.zeros(d)
    if float(np.linalg.norm(xbar)) > R + r:
        raise ValueError(f"the domain B(0, R) ∩ B(xbar, r) is empty (‖xbar‖ = {np.linalg.norm(xbar)} > R + r)")
    centre = None
    if isinstance(loss, MeanEstimationLoss):
        centre = (S.mean(axis=0) + lam * xbar) / (1 + lam)
    elif isinstance(loss, LinearLoss) and lam > 0:
        centre = xbar - S.mean(axis=0) / lam
    elif isinstance(loss, TiltedQuadraticLoss):
        xi, z = S[:, :d], S[:, d:]
        centre = (loss.beta0 * z.mean(axis=0) + lam * xbar - xi.mean(axis=0)) / (loss.beta0 + lam)
    if centre is not None:
        x = project_ball_intersection(centre, zero, R, xbar, r)
        method = "closed form"
    elif isinstance(loss, LinearLoss):
        x = linear_minimiser(S.mean(axis=0), R, xbar, r)
        method = "closed form"
    elif isinstance(loss, (LeastSquaresLoss, LogisticGLMLoss, LADLoss)):
        x_raw, dual = _cvxpy_solve(loss, S, lam, xbar, R, r)
        x = project_ball_intersection(x_raw, zero, R, xbar, r)
        method = "cvxpy"
    else:
        raise TypeError(f"loss must be one of the alt24 losses, got {type(loss).__name__}")
    value = regularised_objective(loss, S, lam, xbar, x)
    slack = 1e-12 * (1.0 + abs(value)) + 1e-15 * S.shape[0]
    if isinstance(loss, LADLoss):
        res = S[:, :-1] @ x - S[:, -1]
        candidates = [np.where(res >= 0, 1.0, -1.0)]
        if method == "cvxpy" and dual is not None:
            n = S.shape[0]
            candidates += [np.clip(n * dual, -1, 1), np.clip(-n * dual, -1, 1)]
        lower = max(_lad_dual_bound(S, lam, xbar, R, r, v) for v in candidates)
        gap = max(value - lower, 0.0) + slack
    else:
        g = _gradient(loss, S, lam, xbar, x)
        y = linear_minimiser(g, R, xbar, r)
        gap = max(float(g @ (x - y)), 0.0) + slack
    distance = math.sqrt(2 * gap / lam) if lam > 0 else math.inf
    return CertifiedERM(x=x, value=value, gap=gap, distance=distance, method=method)
