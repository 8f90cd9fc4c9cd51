"""Menart et al.'s KL instances beyond the shifts (the rest in ``kl_instances``): nonlinear least squares through a
sigmoid link and logistic regression on separable data, with their KL constants and certified minimisers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.domains import Ball
from dpsco.reference.muabg23.model import KLConstants, NonconvexLoss, check_point, check_region
from dpsco.reference.validation import as_float_matrix, check_positive

__all__ = ["LogisticLoss", "NonlinearLeastSquares", "logistic_separable_ratio"]


# --------------------------------------------------------------------------------------------------------------
# Over-parameterised non-linear least squares (non-convex, global PL, F* = 0)
# --------------------------------------------------------------------------------------------------------------
def _s(z: np.ndarray) -> np.ndarray:
    return z + 0.5 * np.sin(z)


def _s_inverse(b: np.ndarray) -> np.ndarray:
    """s⁻¹ by bisection: s is strictly increasing (s' ∈ [1/2, 3/2]) with |s(z) − z| ≤ 1/2, so z ∈ [b − 1, b + 1]."""
    lo, hi = b - 1.0, b + 1.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        below = _s(mid) < b
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


class NonlinearLeastSquares(NonconvexLoss):
    """f(w; (a, b)) = ½(s(aᵀw) − b)² with s(z) = z + ½ sin z; records [a, b] (p = d + 1), ‖a‖ ≤ a_max, |b| ≤ b_max.

    Over-parameterised (d ≥ n, A of full row rank): the minimiser set is {w : Aw = s⁻¹(b)} (s strictly increasing),
    F* = 0 and w* = w0 − A⁺(A w0 − s⁻¹(b)) (the projection of w0 onto that affine set).  Global PL (derived):
    ∇F = (1/n) Aᵀ(s'(Aw) ⊙ r) with s' ≥ 1/2, so ‖∇F‖² ≥ λ_min(AAᵀ)‖r‖²/(4n²) = λ_min(AAᵀ)F/(2n), i.e. (γ, 2)-KL
    with γ² = 2n/λ_min(AAᵀ) — a *data-dependent* constant (utility tests only; a DP algorithm must not read it).
    Non-convex: s'' = −½ sin z.  Constants on ‖w‖ ≤ R (derived; r_max = a_max R + ½ + b_max bounds |residual|):
    L_0 = 1.5 a_max r_max, L_1 = a_max²(9/4 + r_max/2), \\tilde L_1 = a_max² r_max/2.
    """

    name = "nonlinear_least_squares"

    def __init__(self, a_max: float = 1.0, b_max: float = 1.0) -> None:
        self.a_max = check_positive(a_max, "a_max")
        self.b_max = check_positive(b_max, "b_max")

    def dimension(self, p: int) -> int:
        return int(p) - 1

    def check_records(self, X: Any, name: str = "X") -> np.ndarray:
        X = as_float_matrix(X, name)
        if X.shape[1] < 2:
            raise ValueError(f"{name} must have d + 1 >= 2 columns (records [a, b])")
        if np.max(np.linalg.norm(X[:, :-1], axis=1)) > self.a_max * (1 + 1e-12):
            raise ValueError(f"{name} has a record with ||a|| > a_max = {self.a_max}")
        if np.max(np.abs(X[:, -1])) > self.b_max * (1 + 1e-12):
            raise ValueError(f"{name} has a record with |b| > b_max = {self.b_max}")
        return X

    def values(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return 0.5 * (_s(X[:, :-1] @ w) - X[:, -1]) ** 2

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        z = X[:, :-1] @ w
        return ((_s(z) - X[:, -1]) * (1.0 + 0.5 * np.cos(z)))[:, None] * X[:, :-1]

    def _r_max(self, region: Ball | None) -> float:
        region = check_region(region)
        R = math.inf if region is None else region.radius
        return self.a_max * R + 0.5 + self.b_max

    def lipschitz(self, region: Ball | None = None) -> float:
        return 1.5 * self.a_max * self._r_max(region)

    def smoothness(self) -> None:
        return None  # L_1 grows with the residual: see smoothness_on

    def smoothness_on(self, region: Ball) -> float:
        return self.a_max ** 2 * (2.25 + 0.5 * self._r_max(region))

    def weak_convexity(self) -> None:
        return None  # see weak_convexity_on

    def weak_convexity_on(self, region: Ball) -> float:
        return 0.5 * self.a_max ** 2 * self._r_max(region)

    def gradient_norm(self, w: Any, X: Any) -> float:
        X = self.check_records(X)
        return float(np.linalg.norm(self.gradient(check_point(w, X.shape[1] - 1), X)))

    def global_minimum(self, X: Any, w0: Any) -> tuple[float, np.ndarray]:
        """(0, w*) with w* the projection of ``w0`` onto {Aw = s⁻¹(b)}; ValueError if A (n × d) is not of full row
        rank n ≤ d (then F* = 0 need not be attained)."""
        X = self.check_records(X)
        A, b = X[:, :-1], X[:, -1]
        w0 = check_point(w0, A.shape[1], "w0")
        if np.linalg.matrix_rank(A) < A.shape[0]:
            raise ValueError("X: the design A must have full row rank (over-parameterised, n <= d)")
        w_star = w0 - np.linalg.pinv(A) @ (A @ w0 - _s_inverse(b))
        return 0.0, w_star

    def kl_constants(self, region: Ball | None = None, X: Any = None) -> KLConstants:
        """(γ, 2) with γ² = 2n/λ_min(AAᵀ), on all of R^d (data-dependent: pass ``X``)."""
        X = self.check_records(X)
        A = X[:, :-1]
        lam = float(np.linalg.eigvalsh(A @ A.T)[0])
        if lam <= 0:
            raise ValueError("X: A A^T is singular (the design must have full row rank)")
        return KLConstants(gamma=math.sqrt(2.0 * A.shape[0] / lam), kappa=2.0)


# --------------------------------------------------------------------------------------------------------------
# Logistic regression on separable data: no minimiser, no KL constant
# --------------------------------------------------------------------------------------------------------------
class LogisticLoss(NonconvexLoss):
    """f(w; (x, y)) = log(1 + exp(−y⟨w, x⟩)), records [x, y] with ‖x‖ ≤ r, y ∈ {−1, +1}; convex, L_0 = r,
    L_1 = r²/4.

    **Not a KL instance on separable data.**  If some u has y_i⟨u, x_i⟩ ≥ m > 0 for all i, then F(t u) → 0 = inf F
    as t → ∞ but F > 0 everywhere: no minimiser exists, so the paper's w* (§2) is undefined.  Moreover no (γ, κ)
    with κ > 1 works near the infimum: along t u, ‖∇F‖ ≤ r·F·(1 + o(1)) (each term's derivative is at most r times
    the term), so F/‖∇F‖^κ ≥ F^{1−κ}/r^κ → ∞ (:func:`logistic_separable_ratio` measures it).  Only κ = 1
    survives asymptotically.  We therefore use it only as a Lipschitz-smooth loss, not as a KL oracle.
    """

    name = "logistic"

    def __init__(self, radius: float = 1.0) -> None:
        self.radius = check_positive(radius, "radius")

    def dimension(self, p: int) -> int:
        return int(p) - 1

    def check_records(self, X: Any, name: str = "X") -> np.ndarray:
        X = as_float_matrix(X, name)
        if X.shape[1] < 2:
            raise ValueError(f"{name} must have d + 1 >= 2 columns (records [x, y])")
        if not np.all(np.abs(X[:, -1]) == 1.0):
            raise ValueError(f"{name}: labels (last column) must be -1 or +1")
        if np.max(np.linalg.norm(X[:, :-1], axis=1)) > self.radius * (1 + 1e-12):
            raise ValueError(f"{name} has a record with ||x|| > radius = {self.radius}")
        return X

    def values(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return np.logaddexp(0.0, -X[:, -1] * (X[:, :-1] @ w))

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        m = X[:, -1] * (X[:, :-1] @ w)
        return (-X[:, -1] * np.exp(-np.logaddexp(0.0, m)))[:, None] * X[:, :-1]

    def lipschitz(self, region: Ball | None = None) -> float:
        check_region(region)
        return self.radius

    def smoothness(self) -> float:
        return self.radius ** 2 / 4.0

    def weak_convexity(self) -> float:
        return 0.0


def logistic_separable_ratio(X: Any, u: Any, ts: Any, kappa: float = 2.0, radius: float = 1.0) -> np.ndarray:
    """F(t u)/‖∇F(t u)‖^κ for t in ``ts`` (logistic loss, records [x, y]); it diverges on separable data for κ > 1,
    which shows no (γ, κ)-KL constant exists (see :class:`LogisticLoss`)."""
    loss = LogisticLoss(radius)
    X = loss.check_records(X)
    u = check_point(u, X.shape[1] - 1, "u")
    out = []
    for t in np.asarray(ts, dtype=np.float64):
        w = t * u
        out.append(loss.value(w, X) / np.linalg.norm(loss.gradient(w, X)) ** kappa)
    return np.array(out)
