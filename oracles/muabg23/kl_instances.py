"""Instances for Menart, Ullah, Arora, Bassily & Guzmán (2023), arXiv:2311.13447 v2, with known global minimisers
and known (γ, κ)-KL constants, plus exact stationarity oracles ‖∇F(w)‖.

Every instance is a :class:`dpsco.reference.muabg23.model.NonconvexLoss` (records = rows of X, shape (n, p)) and
adds the oracle methods

* ``global_minimum(X, w0) -> (F*, w*)``: the minimum value and the global minimiser closest to ``w0`` (the
  paper's w*, §2), **certified by problem structure** (stated in each docstring);
* ``kl_constants(region, X)``: a :class:`KLConstants` (γ, κ) valid on ``region`` (a Ball centred at w*, radius R),
  derived in the docstring or certified by the rigorous grid bound of :func:`karimi_pl_certificate`;
* ``gradient_norm(w, X)``: ‖∇F(w; S)‖ exactly (the stationarity oracle).

This module holds the shift instances; nonlinear least squares and logistic regression live in ``kl_regression``
and the Theorem 8 lower-bound pair in ``lower_bound_pair`` (both re-exported here).

Shift families f(w; x) = φ(w − x) (records = shifts x, ‖x‖ ≤ r): with identical records x_i = c, F = φ(· − c)
exactly, so every constant of φ is exact for F while privacy still covers the whole domain.  These are the
oracles' certified instances; with heterogeneous records, ``global_minimum`` refuses (no certificate).

Instances: :class:`KarimiShift` (x² + 3 sin² x, non-convex PL; Karimi, Nutini & Schmidt 2016),
:class:`PowerShift` (a‖u‖^p: exact (γ, κ)-KL with κ = p/(p − 1) — κ ≥ 2 for p ∈ (1, 2], κ ∈ (1, 2] for p ≥ 2),
:class:`PseudoHuberShift` (globally Lipschitz and smooth, PL on balls), :class:`NonlinearLeastSquares`
(over-parameterised, non-convex, global PL, F* = 0), :class:`LogisticLoss` (separable data: no minimiser, so no
KL constant — see :func:`logistic_separable_ratio`), and :class:`Theorem8Pair` (the 1-D lower-bound pair of
Theorem 8, App. C.3, reconstructed: the seed text lacks its formulas); for the other algorithms' settings
:class:`RingShift` (½(‖u‖² − 1)², KL* away from the centre, two valleys in 1-D), :class:`SharpRingShift`
(|‖u‖² − 1|, weakly convex, κ ≥ 2 on annuli) and :class:`BoundedSquareShift` (smooth, Lipschitz, no KL).

The module is one cohesive thing — the catalogue of the paper's test instances, each with its certificate —
and is kept in one file (a little over 600 lines) because the instances share the shift-family base class, the
identical-records convention and the certified-minimum interface.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from dpsco.reference.domains import Ball
from dpsco.reference.muabg23.model import KLConstants, NonconvexLoss, check_point, check_region
from dpsco.reference.validation import check_positive, check_positive_int
from dpsco.oracles.muabg23.kl_regression import LogisticLoss, NonlinearLeastSquares, logistic_separable_ratio
from dpsco.oracles.muabg23.lower_bound_pair import Theorem8Pair

__all__ = [
    "BoundedSquareShift",
    "KarimiShift",
    "LogisticLoss",
    "NonlinearLeastSquares",
    "PowerShift",
    "PseudoHuberShift",
    "RingShift",
    "SharpRingShift",
    "ShiftLoss",
    "Theorem8Pair",
    "identical_records",
    "karimi_pl_certificate",
    "logistic_separable_ratio",
]


def identical_records(c: Any, n: Any) -> np.ndarray:
    """X of shape (n, p) whose rows all equal ``c`` (shape (p,)), so that a shift family gives F = φ(· − c)."""
    c = np.asarray(c, dtype=np.float64).reshape(-1)
    n = check_positive_int(n, "n")
    return np.tile(c, (n, 1))


def _common_record(X: np.ndarray, name: str = "X") -> np.ndarray:
    if not np.all(X == X[0]):
        raise ValueError(f"{name}: the certified minimiser needs identical records (a shift family with x_i = c); "
                         "heterogeneous shifts have no certificate here")
    return X[0].copy()


class ShiftLoss(NonconvexLoss):
    """f(w; x) = φ(w − x) on 𝒳 = {‖x‖ ≤ r}; d = p.  Subclasses give ``phi(U) -> (n,)`` and ``dphi(U) -> (n, d)``
    for rows U = w − x_i, ``phi_min_norm_set`` (φ ≥ 0 with φ(u) = 0 iff u = 0 unless overridden)."""

    def __init__(self, data_radius: float) -> None:
        self.data_radius = check_positive(data_radius, "data_radius")

    def dimension(self, p: int) -> int:
        return int(p)

    def phi(self, U: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract in spirit
        raise NotImplementedError

    def dphi(self, U: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def values(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return self.phi(np.asarray(w, dtype=np.float64)[None, :] - np.asarray(X, dtype=np.float64))

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        return self.dphi(np.asarray(w, dtype=np.float64)[None, :] - np.asarray(X, dtype=np.float64))

    def gradient_norm(self, w: Any, X: Any) -> float:
        """‖∇F(w; S)‖ (exact, up to floating point)."""
        X = self.check_records(X)
        w = check_point(w, X.shape[1])
        return float(np.linalg.norm(self.gradient(w, X)))

    def global_minimum(self, X: Any, w0: Any = None) -> tuple[float, np.ndarray]:
        """(F*, w*) for identical records x_i = c: φ ≥ 0 = φ(0) uniquely, so w* = c and F* = 0 (``w0`` unused).

        Raises ValueError naming ``X`` if the records differ (no certificate)."""
        X = self.check_records(X)
        c = _common_record(X)
        return 0.0, c

    def _radius(self, region: Ball | None) -> float:
        region = check_region(region)
        return math.inf if region is None else region.radius + self.data_radius


# --------------------------------------------------------------------------------------------------------------
# Karimi, Nutini & Schmidt (2016): x^2 + 3 sin^2 x
# --------------------------------------------------------------------------------------------------------------
def _karimi_phi1(u: np.ndarray) -> np.ndarray:
    return u * u + 3.0 * np.sin(u) ** 2


def _karimi_dphi1(u: np.ndarray) -> np.ndarray:
    return 2.0 * u + 3.0 * np.sin(2.0 * u)


@lru_cache(maxsize=4)
def karimi_pl_certificate(h: float = 1e-4, u_small: float = 0.1, u_large: float = 20.0) -> tuple[float, float]:
    """A rigorous upper bound g ≥ sup_{u ≠ 0} φ₁(u)/φ₁'(u)² for φ₁(u) = u² + 3 sin² u, and the grid estimate.

    Returns ``(g_upper, g_grid)``: φ₁ ≤ g_upper·φ₁'² on R, so φ(u) = Σ_j φ₁(u_j) is (γ, 2)-KL (PL) with
    γ = √g_upper in every dimension (sum the coordinate inequalities; ‖∇φ‖² = Σ_j φ₁'(u_j)²).  φ₁ is even and φ₁'
    odd, so u > 0 suffices.  The proof has three pieces (derived here; Karimi et al. 2016 give the loose μ = 1/32):

    * 0 < u ≤ u_small: sin² u ≤ u² gives φ₁ ≤ 4u²; sin x ≥ x − x³/6 gives φ₁' ≥ 8u − 4u³, so
      φ₁/φ₁'² ≤ 4/(8 − 4u_small²)².
    * u ≥ u_large: φ₁ ≤ u² + 3 and φ₁' ≥ 2u − 3, and (u² + 3)/(2u − 3)² decreases for u > 3/2
      (its derivative has the sign of −6u − 12), so the bound at u_large holds beyond.
    * the grid [u_small, u_large] with step h: |φ₁''| = |2 + 6 cos 2u| ≤ 8, so on a cell [a, b]
      |φ₁'| ≥ (|φ₁'(a)| + |φ₁'(b)|)/2 − 4h and φ₁ ≤ (φ₁(a) + φ₁(b))/2 + M h/2 with M = (|φ₁'(a)| + |φ₁'(b)|)/2 + 4h
      (tent bounds from the two endpoints); a relative slack 1e-9 covers floating-point rounding.

    Raises ValueError if a cell's lower bound on |φ₁'| is not positive (refine h).
    """
    h = check_positive(h, "h")
    small = 4.0 / (8.0 - 4.0 * u_small ** 2) ** 2
    large = (u_large ** 2 + 3.0) / (2.0 * u_large - 3.0) ** 2
    m = int(math.ceil((u_large - u_small) / h))
    u = np.linspace(u_small, u_large, m + 1)
    step = float(np.max(np.diff(u)))
    f = _karimi_phi1(u)
    g = np.abs(_karimi_dphi1(u))
    g_low = 0.5 * (g[:-1] + g[1:]) - 4.0 * step
    if np.any(g_low <= 0):
        raise ValueError("h too coarse: a cell's lower bound on |phi'| is not positive")
    M = 0.5 * (g[:-1] + g[1:]) + 4.0 * step
    f_up = 0.5 * (f[:-1] + f[1:]) + 0.5 * M * step
    grid = float(np.max(f_up / g_low ** 2)) * (1.0 + 1e-9)
    estimate = float(np.max(f[1:] / g[1:] ** 2))
    return max(small, large, grid), estimate


class KarimiShift(ShiftLoss):
    """f(w; x) = φ(w − x), φ(u) = Σ_j (u_j² + 3 sin² u_j) (Karimi, Nutini & Schmidt 2016): non-convex, PL.

    Constants (derived): φ₁'' = 2 + 6 cos 2u ∈ [−4, 8], so L_1 = 8 and \\tilde L_1 = 4 (weakly convex);
    |φ₁'(u)| ≤ 8|u|, so L_0 on a region ‖w‖ ≤ R is 8(R + r).  The unique minimiser of φ is 0 (φ₁(u) ≥ u² > 0 for
    u ≠ 0), so for identical records x_i = c, w* = c, F* = 0.  KL: (γ, 2) with γ² = the certified bound of
    :func:`karimi_pl_certificate` (≈ 2.85; Karimi et al.'s μ = 1/32, i.e. γ = 4, is valid but loose), on all of R^d.
    Heterogeneous shifts may create spurious local minima (e.g. 1-D, shifts averaging c = 1.5), hence no
    certificate for them.
    """

    name = "karimi"

    def phi(self, U: np.ndarray) -> np.ndarray:
        return np.sum(_karimi_phi1(U), axis=1)

    def dphi(self, U: np.ndarray) -> np.ndarray:
        return _karimi_dphi1(U)

    def lipschitz(self, region: Ball | None = None) -> float:
        return 8.0 * self._radius(region)

    def smoothness(self) -> float:
        return 8.0

    def weak_convexity(self) -> float:
        return 4.0

    def kl_constants(self, region: Ball | None = None, X: Any = None) -> KLConstants:
        """(γ, 2) on all of R^d (``region`` and ``X`` are accepted for a uniform interface)."""
        check_region(region)
        return KLConstants(gamma=math.sqrt(karimi_pl_certificate()[0]), kappa=2.0)


class PowerShift(ShiftLoss):
    """f(w; x) = φ(w − x), φ(u) = a‖u‖^p (p > 1): convex, **exact** (γ, κ)-KL with equality everywhere.

    ‖∇φ(u)‖ = a p ‖u‖^{p−1}, so (γ‖∇φ‖)^κ = a‖u‖^p = φ(u) with κ = p/(p − 1) and γ = a^{−1/p}/p (derived).
    p ∈ (1, 2] gives κ ≥ 2 (the paper's §4 regime; not smooth at the minimiser for p < 2, convex hence
    \\tilde L_1-weakly convex for every \\tilde L_1 ≥ 0); p ≥ 2 gives κ ∈ (1, 2] (§3).  Growth: F − F* =
    a‖w − c‖^p, i.e. (λ, τ)-growth with τ = p and λ = a^{1/p} (Definition 4).  L_0 on ‖w‖ ≤ R:
    a p (R + r)^{p−1}; L_1 = 2a for p = 2, a p (p − 1)(R + r)^{p−2} on the region for p > 2
    (:meth:`smoothness_on`), none for p < 2 (``smoothness()`` is ``None`` unless p = 2).

    Raises ValueError/TypeError for a ≤ 0, p ≤ 1 or a bad ``data_radius``.
    """

    name = "power"

    def __init__(self, a: float = 1.0, p: float = 2.0, data_radius: float = 1.0) -> None:
        super().__init__(data_radius)
        self.a = check_positive(a, "a")
        self.p = check_positive(p, "p")
        if self.p <= 1.0:
            raise ValueError(f"p must be > 1 (a finite kappa = p/(p-1)), got {self.p}")

    def phi(self, U: np.ndarray) -> np.ndarray:
        return self.a * np.linalg.norm(U, axis=1) ** self.p

    def dphi(self, U: np.ndarray) -> np.ndarray:
        r = np.linalg.norm(U, axis=1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(r > 0, self.a * self.p * r ** (self.p - 2.0), 0.0)
        return scale * U

    def lipschitz(self, region: Ball | None = None) -> float:
        return self.a * self.p * self._radius(region) ** (self.p - 1.0)

    def smoothness(self) -> float | None:
        return 2.0 * self.a if self.p == 2.0 else None

    def smoothness_on(self, region: Ball) -> float | None:
        """L_1 over ‖w‖ ≤ R (p ≥ 2): a p (p − 1)(R + r)^{p−2}; ``None`` for p < 2."""
        if self.p < 2.0:
            return None
        return self.a * self.p * (self.p - 1.0) * self._radius(region) ** (self.p - 2.0)

    def weak_convexity(self) -> float:
        return 0.0

    def kl_constants(self, region: Ball | None = None, X: Any = None) -> KLConstants:
        check_region(region)
        return KLConstants(gamma=self.a ** (-1.0 / self.p) / self.p, kappa=self.p / (self.p - 1.0))

    def growth(self) -> tuple[float, float]:
        """(λ, τ) = (a^{1/p}, p): F(w) − F* = λ^τ ‖w − w*‖^τ exactly."""
        return self.a ** (1.0 / self.p), self.p


class PseudoHuberShift(ShiftLoss):
    """f(w; x) = φ(w − x), φ(u) = δ²(√(1 + ‖u‖²/δ²) − 1): convex, L_0 = δ and L_1 = 1 globally (derived:
    ∇φ = u/s with s = √(1 + ‖u‖²/δ²), ‖∇φ‖ < δ; ∇²φ ⪯ I/s).  PL on balls: φ/‖∇φ‖² = s²/(s + 1) (exact), increasing
    in ‖u‖, so on B_R(w*) it is (γ, 2)-KL with γ² = s_R²/(s_R + 1), s_R = √(1 + R²/δ²); it is also (R, 1)-KL there
    (convex).  No clipping is needed, so it is the default privacy-audit instance.
    """

    name = "pseudo_huber"

    def __init__(self, delta: float = 1.0, data_radius: float = 1.0) -> None:
        super().__init__(data_radius)
        self.delta = check_positive(delta, "delta")

    def phi(self, U: np.ndarray) -> np.ndarray:
        d2 = self.delta ** 2
        return d2 * (np.sqrt(1.0 + np.sum(U * U, axis=1) / d2) - 1.0)

    def dphi(self, U: np.ndarray) -> np.ndarray:
        s = np.sqrt(1.0 + np.sum(U * U, axis=1, keepdims=True) / self.delta ** 2)
        return U / s

    def lipschitz(self, region: Ball | None = None) -> float:
        check_region(region)
        return self.delta

    def smoothness(self) -> float:
        return 1.0

    def weak_convexity(self) -> float:
        return 0.0

    def kl_constants(self, region: Ball | None = None, X: Any = None, kappa: float = 2.0) -> KLConstants:
        """κ = 2: γ² = s_R²/(s_R + 1) on B_R(w*) (``region`` = Ball(R), required); κ = 1: γ = R."""
        region = check_region(region)
        if region is None or not region.bounded:
            raise ValueError("region must be a bounded Ball: pseudo-Huber is PL only on balls around w*")
        if kappa == 1.0:
            return KLConstants(gamma=region.radius, kappa=1.0)
        if kappa != 2.0:
            raise ValueError(f"kappa must be 1 or 2 for pseudo-Huber, got {kappa}")
        s = math.sqrt(1.0 + (region.radius / self.delta) ** 2)
        return KLConstants(gamma=math.sqrt(s * s / (s + 1.0)), kappa=2.0)


def _max_abs_t_sq_minus_1_times_2t(R: float) -> float:
    """max_{0 ≤ t ≤ R} 2t|t² − 1| (the radial gradient of ½(t² − 1)²): 2R(1 − R²) up to the critical point 1/√3,
    4/(3√3) from there until it is overtaken by 2R(R² − 1)."""
    inner = 2.0 * R * (1.0 - R * R) if R < 1.0 / math.sqrt(3.0) else 4.0 / (3.0 * math.sqrt(3.0))
    return max(inner, 2.0 * R * (R * R - 1.0))


class RingShift(ShiftLoss):
    """f(w; x) = φ(w − x), φ(u) = ½(‖u‖² − 1)²: non-convex, minimiser set = the unit sphere around c (identical
    records), F* = 0, w* = c + (w0 − c)/‖w0 − c‖; u = 0 is a stationary non-minimiser (F = ½).

    Derived: ∇φ = 2(‖u‖² − 1)u, so φ/‖∇φ‖² = 1/(8‖u‖²) exactly: (γ, 2)-KL* on {‖u‖ ≥ r_0} with γ² = 1/(8r_0²),
    attained everywhere on the sphere ‖u‖ = r_0.  Hessian 2(‖u‖² − 1)I + 4uuᵀ ⪰ −2I: \tilde L_1 = 2; on ‖w‖ ≤ R,
    L_1 = max(6R'² − 2, 2) and L_0 = max_{t ≤ R'} 2t|t² − 1| with R' = R + r.  1-D valley (Lemma 5 of the paper):
    for α < ½ the sub-level valley {φ ≤ α} ∩ {u > 0} is [√(1 − √(2α)), √(1 + √(2α))] (:meth:`valley`).
    """

    name = "ring"

    def phi(self, U: np.ndarray) -> np.ndarray:
        return 0.5 * (np.sum(U * U, axis=1) - 1.0) ** 2

    def dphi(self, U: np.ndarray) -> np.ndarray:
        return 2.0 * (np.sum(U * U, axis=1, keepdims=True) - 1.0) * U

    def lipschitz(self, region: Ball | None = None) -> float:
        return _max_abs_t_sq_minus_1_times_2t(self._radius(region))

    def smoothness(self) -> None:
        return None

    def smoothness_on(self, region: Ball) -> float:
        R = self._radius(region)
        return max(6.0 * R * R - 2.0, 2.0)

    def weak_convexity(self) -> float:
        return 2.0

    def global_minimum(self, X: Any, w0: Any = None) -> tuple[float, np.ndarray]:
        """(0, c + (w0 − c)/‖w0 − c‖) for identical records c; ValueError if ``w0`` = c (every sphere point ties)."""
        X = self.check_records(X)
        c = _common_record(X)
        w0 = check_point(w0, X.shape[1], "w0")
        gap = np.linalg.norm(w0 - c)
        if gap == 0:
            raise ValueError("w0 must differ from the centre c (all sphere points are then closest)")
        return 0.0, c + (w0 - c) / gap

    def kl_constants(self, region: Any = None, X: Any = None, r0: float = 0.5) -> KLConstants:
        """(γ, 2) with γ² = 1/(8 r_0²) on {‖w − c‖ ≥ r_0}."""
        r0 = check_positive(r0, "r0")
        return KLConstants(gamma=1.0 / math.sqrt(8.0 * r0 * r0), kappa=2.0)

    @staticmethod
    def valley(alpha: float) -> tuple[float, float]:
        """The 1-D valley {u > 0 : φ(u) ≤ α} = [√(1 − √(2α)), √(1 + √(2α))] for 0 < α < ½."""
        alpha = check_positive(alpha, "alpha")
        if alpha >= 0.5:
            raise ValueError(f"alpha must be < 1/2 (below the barrier phi(0) = 1/2), got {alpha}")
        return math.sqrt(1.0 - math.sqrt(2.0 * alpha)), math.sqrt(1.0 + math.sqrt(2.0 * alpha))


class SharpRingShift(ShiftLoss):
    """f(w; x) = φ(w − x), φ(u) = |‖u‖² − 1|: non-convex, non-smooth, weakly convex with \tilde L_1 = 2
    (φ + ‖u‖² = max(2‖u‖² − 1, 1) is convex); L_0 = 2(R + r) on ‖w‖ ≤ R; minimiser set = the unit sphere.

    KL* on the annulus {r_0 ≤ ‖u‖ ≤ R} for every κ ≥ 2 with γ^κ = max_t |t² − 1|/(2t)^κ over t ∈ [r_0, R]
    (‖∇φ‖ = 2t off the sphere).  Closed form (derived): (1 − t²)/(2t)^κ decreases on (0, 1); on t > 1 the
    derivative of (t² − 1)t^{−κ} has the sign of (2 − κ)t² + κ, so it increases up to t* = √(κ/(κ − 2)) (∞ for
    κ = 2) and decreases after; the max is at r_0, at min(R, t*).
    """

    name = "sharp_ring"

    def phi(self, U: np.ndarray) -> np.ndarray:
        return np.abs(np.sum(U * U, axis=1) - 1.0)

    def dphi(self, U: np.ndarray) -> np.ndarray:
        return 2.0 * np.sign(np.sum(U * U, axis=1, keepdims=True) - 1.0) * U

    def lipschitz(self, region: Ball | None = None) -> float:
        return 2.0 * self._radius(region)

    def smoothness(self) -> None:
        return None

    def weak_convexity(self) -> float:
        return 2.0

    def kl_constants(self, region: Any = None, X: Any = None, r0: float = 0.5, R: float = 2.0,
                     kappa: float = 2.0) -> KLConstants:
        r0, R = check_positive(r0, "r0"), check_positive(R, "R")
        kappa = check_positive(kappa, "kappa")
        if kappa < 2.0 or r0 >= R:
            raise ValueError(f"need kappa >= 2 and r0 < R, got kappa = {kappa}, r0 = {r0}, R = {R}")
        cands = [r0, R]
        if kappa > 2.0:
            t_star = math.sqrt(kappa / (kappa - 2.0))
            if r0 < t_star < R:
                cands.append(t_star)
        worst = max(abs(t * t - 1.0) / (2.0 * t) ** kappa for t in cands)
        return KLConstants(gamma=worst ** (1.0 / kappa), kappa=kappa)


class BoundedSquareShift(ShiftLoss):
    """f(w; x) = φ(w − x), φ(u) = Σ_j u_j²/(1 + u_j²): smooth, globally Lipschitz, no KL (plateaus).

    Derived: ψ(t) = t²/(1 + t²) has ψ' = 2t/(1 + t²)² with max 3√3/8 at t = 1/√3, so L_0 = (3√3/8)√d; ψ'' =
    (2 − 6t²)/(1 + t²)³ with |ψ''| ≤ 2 (at 0), so L_1 = 2 and \tilde L_1 = 2 (ψ'' ≥ −1/4 in fact).  The only
    stationary point is u = 0, the global minimiser (F* = 0); ‖∇F‖ → 0 as ‖u‖ → ∞ while F → d, so no (γ, κ)-KL
    holds globally (Theorem 5's setting: stationarity without KL).
    """

    name = "bounded_square"

    def __init__(self, data_radius: float, dimension: int) -> None:
        """``dimension`` = d (= p) is fixed here because L_0 = (3√3/8)√d depends on it: records with another
        number of columns are refused by :meth:`check_records`."""
        super().__init__(data_radius)
        self.record_dimension = check_positive_int(dimension, "dimension")

    def phi(self, U: np.ndarray) -> np.ndarray:
        return np.sum(U * U / (1.0 + U * U), axis=1)

    def dphi(self, U: np.ndarray) -> np.ndarray:
        return 2.0 * U / (1.0 + U * U) ** 2

    def lipschitz(self, region: Ball | None = None) -> float:
        check_region(region)
        return 3.0 * math.sqrt(3.0) / 8.0 * math.sqrt(self.record_dimension)

    def smoothness(self) -> float:
        return 2.0

    def weak_convexity(self) -> float:
        return 2.0
