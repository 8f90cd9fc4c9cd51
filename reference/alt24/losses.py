"""Per-sample losses for the heavy-tailed private SCO problem of Asi, Liu & Tian (2024), Section 2 (Assumption 1,
Assumption 2), with exact gradients, values and sample Lipschitz constants on the domain X = B(0, R).

Asi, Liu & Tian (2024) contain no experiments, so these are our test instances, chosen so that every constant
the paper's theorems read (L_s, β, μ, the GLM structure (23)) is known exactly:

* ``LinearLoss``          f(x; s) = ⟨s, x⟩                    GLM σ(t) = t,  β = 0,  μ = 0,   L_s = ‖s‖
* ``MeanEstimationLoss``  f(x; s) = ½‖x − s‖²                 β = 1,  μ = 1,   L_s = R + ‖s‖
* ``TiltedQuadraticLoss`` f(x; [ξ, z]) = ⟨ξ, x⟩ + (β₀/2)‖x − z‖²  β = μ = β₀,  L_s = ‖ξ − β₀z‖ + β₀R
* ``LADLoss``             f(x; [a, b]) = |⟨a, x⟩ − b|          not smooth,     L_s = ‖a‖
* ``LeastSquaresLoss``    f(x; [a, b]) = ½(⟨a, x⟩ − b)²        β = max‖a‖² (declared, optional), L_s = (R‖a‖ + |b|)‖a‖
* ``LogisticGLMLoss``     f(x; s) = log(1 + e^{⟨s, x⟩}), s = −y·a   GLM,  β = M²/4 for a declared ‖s‖ ≤ M,
                          L_s = ‖s‖·expit(R‖s‖)

Every ``lipschitz_bound(S, R)`` is the exact L_s = max_{‖x‖ ≤ R} ‖∇f(x; s)‖ (so it is Assumption 2's L̄_s with
equality).  Where a constant is declared (the logistic M, the least-squares a_max), a record that violates
it is refused with a ValueError: a β or L̄_s that the data could break would silently void the privacy
premises of Algorithms 7 and 8 (Theorem 3 needs β-smoothness for every s, Theorem 4 a smooth GLM).

Non-differentiable points use the subgradient with sign(0) = 1 (the paper's convention, Section 1.1; footnote 5
allows any subgradient).  Everything is vectorised over the records (no Python loop over rows).

Floating point.  Records are any finite floats (heavy tails: magnitudes up to 1.8e308 are admissible where no
bound is declared).  Norms are computed overflow- and underflow-safe (``dpsco.reference.clipping.row_norms``), and
the clipped gradients Π_C(∇f) that the private algorithms average (``clipped_grads_at``) hold ‖·‖ ≤ C in floating
point: where a product gradient ((⟨a, x⟩ − b)a, ξ + β₀(x − z)) overflows on a finite record, it is recomputed from
the record scaled by its largest magnitude m (the gradient is m²·u resp. m·u with u finite), and clipped without
forming the overflowing product (:func:`_clip_scaled`), so its direction is exact and no NaN can arise.

Shapes: x (d,), S (n, p); ``dimension(p)`` gives d (p for s-records, p − 1 for [a, b], p/2 for [ξ, z]).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit

from dpsco.reference.alt24.model import HeavyTailedLoss, check_records
from dpsco.reference.clipping import clip_rows, row_norms
from dpsco.reference.validation import as_float_vector, check_data, check_positive

__all__ = ["LADLoss", "LeastSquaresLoss", "LinearLoss", "LogisticGLMLoss", "MeanEstimationLoss",
           "TiltedQuadraticLoss", "logistic_records"]

# a declared norm bound is enforced up to this relative slack (rounding in a caller's rescaling)
_NORM_RTOL = 1e-12


def _prepare(loss: HeavyTailedLoss, x: Any, S: Any) -> tuple[np.ndarray, np.ndarray]:
    """(x, S) checked: S a finite (n, p) float array, x a finite (d,) vector with d = loss.dimension(p)."""
    S, d = check_records(S, loss)
    x = as_float_vector(x, "x", length=d)
    return x, S


def _sign(t: np.ndarray) -> np.ndarray:
    """sign with sign(0) = 1 (Asi, Liu & Tian (2024), Section 1.1)."""
    return np.where(t >= 0, 1.0, -1.0)


def _record_scale(*parts: np.ndarray) -> np.ndarray:
    """(n,) the largest magnitude m of each record over ``parts`` (each (n, ·)), and 1 where it is 0."""
    m = np.max(np.concatenate([np.abs(p).reshape(p.shape[0], -1) for p in parts], axis=1), axis=1)
    return np.where(m > 0, m, 1.0)


def _clip_scaled(U: np.ndarray, factors: tuple[np.ndarray, ...], C: float) -> np.ndarray:
    """Π_C(f_1·…·f_k·U) row-wise (last axis) for finite rows U and finite factors f_j > 0 broadcast against
    U.shape[:-1], without forming the product where it would overflow: ‖f·u‖ = f‖u‖ is compared with C in
    logarithms; rows within C are multiplied out factor by factor (every partial product is bounded by the
    larger of ‖u‖ and the final norm ≤ C), the others are C·u/‖u‖ (u rescaled to max-magnitude 1 first).
    ``clip_rows`` then guarantees ‖·‖ ≤ C in floating point.  C ≥ 0 finite."""
    U = np.asarray(U, dtype=np.float64)
    if C == 0.0:
        return np.zeros_like(U)
    nu = row_norms(U)
    with np.errstate(divide="ignore"):
        log_norm = np.log(nu) + sum(np.log(np.broadcast_to(f, nu.shape)) for f in factors)
    inside = (nu == 0.0) | (log_norm <= math.log(C))
    out = np.empty_like(U)
    if np.any(inside):
        v = U.copy()
        for f in factors:
            v = v * np.broadcast_to(f, nu.shape)[..., None]
        out[inside] = v[inside]
    outside = ~inside
    if np.any(outside):
        W = U[outside]
        W = W / np.max(np.abs(W), axis=-1, keepdims=True)
        out[outside] = C * (W / row_norms(W)[..., None])
    return clip_rows(out, C)


class LinearLoss(HeavyTailedLoss):
    """f(x; s) = ⟨s, x⟩: the GLM (23) with σ(t) = t.  ∇f = s for every x, so L_s = ‖s‖ (x-free), β = 0, μ = 0.

    Records S (n, d); x (d,).  The clipping bias b_D of (6) is ‖(1/n)Σ(s_i − Π_C(s_i))‖, independent of x."""

    name = "linear"
    glm = True

    def link(self, t: Any) -> np.ndarray:
        """σ(t) = t (the GLM link of (23))."""
        return np.asarray(t, dtype=np.float64)

    def link_derivative(self, t: Any) -> np.ndarray:
        """σ'(t) = 1."""
        return np.ones_like(np.asarray(t, dtype=np.float64))

    def grads(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        return S.copy()

    def values(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        return S @ x

    def lipschitz_bound(self, S: Any, radius: float) -> np.ndarray:
        S, _ = check_records(S, self)
        check_positive(radius, "radius", allow_zero=True)
        return row_norms(S)

    def smoothness(self, radius: float) -> float:
        return 0.0

    def strong_convexity(self) -> float:
        return 0.0


class MeanEstimationLoss(HeavyTailedLoss):
    """f(x; s) = ½‖x − s‖²: ∇f = x − s; L_s = max_{‖x‖ ≤ R} ‖x − s‖ = R + ‖s‖ (attained at x = −R s/‖s‖, or any
    ‖x‖ = R when s = 0); β = 1, μ = 1.  Records S (n, d); x (d,)."""

    name = "mean_estimation"

    def grads(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        return x[None, :] - S

    def values(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        return 0.5 * np.sum((x[None, :] - S) ** 2, axis=1)

    def lipschitz_bound(self, S: Any, radius: float) -> np.ndarray:
        S, _ = check_records(S, self)
        radius = check_positive(radius, "radius", allow_zero=True)
        return radius + row_norms(S)

    def smoothness(self, radius: float) -> float:
        return 1.0

    def strong_convexity(self) -> float:
        return 1.0


class TiltedQuadraticLoss(HeavyTailedLoss):
    """f(x; [ξ, z]) = ⟨ξ, x⟩ + (β₀/2)‖x − z‖²: a smooth, β₀-strongly convex loss with a heavy-tailed linear part.

    Records S (n, 2d) = [ξ, z]; x (d,).  ∇f = ξ + β₀(x − z), so L_s = max_{‖x‖ ≤ R} ‖ξ − β₀z + β₀x‖ =
    ‖ξ − β₀z‖ + β₀R (exact); β = μ = β₀ for every record.  beta0 > 0 finite (ValueError / TypeError)."""

    name = "tilted_quadratic"

    def __init__(self, beta0: float) -> None:
        self.beta0 = check_positive(beta0, "beta0")

    def dimension(self, p: int) -> int:
        if p % 2:
            raise ValueError(f"S must have an even number of columns [ξ, z] for the tilted quadratic, got {p}")
        return p // 2

    def _split(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = S.shape[1] // 2
        return S[:, :d], S[:, d:]

    def grads(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        xi, z = self._split(S)
        with np.errstate(over="ignore"):          # a heavy record's gradient may overflow: ±inf, never NaN
            return xi + self.beta0 * (x[None, :] - z)

    def clipped_grads_at(self, X: Any, S: Any, C: float) -> np.ndarray:
        """(R, n, d) Π_C(ξ + β₀(x_r − z)) with ‖·‖ ≤ C in floating point; a row that overflows is recomputed as
        m·(ξ/m + β₀(x/m − z/m)), m the record's largest magnitude, and clipped without forming the product."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        G = np.stack([self.grads(x, S) for x in X])           # validates S and every x
        bad = ~np.all(np.isfinite(G), axis=-1)
        if np.any(bad):
            xi, z = self._split(np.asarray(S, dtype=np.float64))
            m = _record_scale(xi, z)
            r, i = np.nonzero(bad)
            U = xi[i] / m[i, None] + self.beta0 * (X[r] / m[i, None] - z[i] / m[i, None])
            G[r, i] = _clip_scaled(U, (m[i],), C)
        return clip_rows(G, C)

    def values(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        xi, z = self._split(S)
        return xi @ x + 0.5 * self.beta0 * np.sum((x[None, :] - z) ** 2, axis=1)

    def lipschitz_bound(self, S: Any, radius: float) -> np.ndarray:
        S, _ = check_records(S, self)
        radius = check_positive(radius, "radius", allow_zero=True)
        xi, z = self._split(S)
        with np.errstate(over="ignore"):          # ‖ξ − β₀z‖ beyond 1.8e308 is inf: above every finite clip
            return row_norms(xi - self.beta0 * z) + self.beta0 * radius

    def smoothness(self, radius: float) -> float:
        return self.beta0

    def strong_convexity(self) -> float:
        return self.beta0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "beta0": self.beta0}


class _RegressionLoss(HeavyTailedLoss):
    """Records [a, b] (n, d + 1): covariates a (n, d), response b (n,); x (d,)."""

    def dimension(self, p: int) -> int:
        return p - 1

    @staticmethod
    def _split(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return S[:, :-1], S[:, -1]


class LADLoss(_RegressionLoss):
    """Least absolute deviation f(x; [a, b]) = |⟨a, x⟩ − b|.  Subgradient sign(⟨a, x⟩ − b)·a with sign(0) = 1, so
    ‖∇f‖ = ‖a‖ everywhere: L_s = ‖a‖ exactly (for any R); not smooth (β = None), μ = 0."""

    name = "lad"

    def _residual_sign(self, x: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """sign(⟨a, x⟩ − b), computed on the record scaled by its largest magnitude m (the sign is scale-free):
        ⟨a/m, x⟩ − b/m neither overflows (as ⟨a, x⟩ − b does for |b| near 1e308) nor underflows to 0 (as it does
        for subnormal records), so the sign is the exact one up to the rounding of the sum itself."""
        m = _record_scale(a, b[:, None])
        with np.errstate(under="ignore"):
            return _sign((a / m[:, None]) @ x - b / m)

    def grads(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        a, b = self._split(S)
        return self._residual_sign(x, a, b)[:, None] * a

    def values(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        a, b = self._split(S)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.abs(a @ x - b)

    def lipschitz_bound(self, S: Any, radius: float) -> np.ndarray:
        S, _ = check_records(S, self)
        check_positive(radius, "radius", allow_zero=True)
        return row_norms(self._split(S)[0])


class LeastSquaresLoss(_RegressionLoss):
    """Least squares f(x; [a, b]) = ½(⟨a, x⟩ − b)²: ∇f = (⟨a, x⟩ − b)a; L_s = max_{‖x‖ ≤ R} |⟨a, x⟩ − b|·‖a‖ =
    (R‖a‖ + |b|)‖a‖ (attained at x = −sign(b)R a/‖a‖).  Hessian a aᵀ, so f(·; s) is ‖a‖²-smooth: a uniform β
    exists only for a declared bound ‖a‖ ≤ a_max (β = a_max²); without one, ``smoothness`` is None.  Records
    with ‖a‖ > a_max are refused (ValueError).  μ = 0 (a aᵀ is singular for d ≥ 2)."""

    name = "least_squares"

    def __init__(self, a_max: float | None = None) -> None:
        self.a_max = None if a_max is None else check_positive(a_max, "a_max")

    def check_declared(self, S: np.ndarray) -> None:
        """Every record has ‖a‖ ≤ a_max (when declared), up to a relative 1e-12 (ValueError otherwise)."""
        if self.a_max is not None:
            norms = row_norms(self._split(np.asarray(S, dtype=np.float64))[0])
            bad = np.flatnonzero(~(norms <= self.a_max * (1 + _NORM_RTOL)))
            if bad.size:
                raise ValueError(f"S row {int(bad[0])} has ‖a‖ = {norms[bad[0]]:.6g} > the declared a_max = "
                                 f"{self.a_max:.6g}: the declared smoothness β = a_max² would not hold")

    def _checked(self, S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self._split(S)  # the declared range is checked by check_records (check_declared)

    def grads(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        a, b = self._checked(S)
        with np.errstate(over="ignore", invalid="ignore"):   # a heavy record's gradient may overflow
            return (a @ x - b)[:, None] * a

    def clipped_grads_at(self, X: Any, S: Any, C: float) -> np.ndarray:
        """(R, n, d) Π_C((⟨a, x_r⟩ − b)a) with ‖·‖ ≤ C in floating point; a row that overflows (±inf or NaN) is
        recomputed as m²·(⟨a/m, x⟩ − b/m)(a/m), m = max(‖a‖_∞, |b|), and clipped without forming the product."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        G = np.stack([self.grads(x, S) for x in X])           # validates S and every x
        bad = ~np.all(np.isfinite(G), axis=-1)
        if np.any(bad):
            a, b = self._split(np.asarray(S, dtype=np.float64))
            m = _record_scale(a, b[:, None])
            r, i = np.nonzero(bad)
            a_s = a[i] / m[i, None]
            res = np.einsum("kd,kd->k", a_s, X[r]) - b[i] / m[i]
            G[r, i] = _clip_scaled(res[:, None] * a_s, (m[i], m[i]), C)
        return clip_rows(G, C)

    def values(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        a, b = self._checked(S)
        with np.errstate(over="ignore", invalid="ignore"):
            return 0.5 * (a @ x - b) ** 2

    def lipschitz_bound(self, S: Any, radius: float) -> np.ndarray:
        S, _ = check_records(S, self)
        radius = check_positive(radius, "radius", allow_zero=True)
        a, b = self._checked(S)
        na = row_norms(a)
        with np.errstate(over="ignore"):          # beyond 1.8e308 the bound is inf: above every finite clip
            return (radius * na + np.abs(b)) * na

    def smoothness(self, radius: float) -> float | None:
        return None if self.a_max is None else self.a_max ** 2

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "a_max": self.a_max}


class LogisticGLMLoss(HeavyTailedLoss):
    """Logistic loss as the GLM (23): f(x; s) = σ(⟨s, x⟩), σ(t) = log(1 + e^t), s = −y·a (``logistic_records``).

    ∇f = expit(⟨s, x⟩)·s; σ'' = expit(1 − expit) ≤ 1/4, so f(·; s) is ‖s‖²/4-smooth and β = M²/4 holds for
    every record with ‖s‖ ≤ M, the declared public bound (M > 0 finite).  Records with ‖s‖ > M are refused
    (ValueError): Theorem 4's privacy premise (β ≤ 2/η, Algorithm 8) rests on β holding for all s.
    L_s = max_{‖x‖ ≤ R} expit(⟨s, x⟩)‖s‖ = expit(R‖s‖)‖s‖ (exact, expit increasing); μ = 0.
    Records S (n, d); x (d,)."""

    name = "logistic_glm"
    glm = True

    def __init__(self, M: float) -> None:
        self.M = check_positive(M, "M")

    def link(self, t: Any) -> np.ndarray:
        """σ(t) = log(1 + e^t), computed as logaddexp(0, t) (no overflow)."""
        return np.logaddexp(0.0, np.asarray(t, dtype=np.float64))

    def link_derivative(self, t: Any) -> np.ndarray:
        """σ'(t) = expit(t)."""
        return expit(np.asarray(t, dtype=np.float64))

    def check_declared(self, S: np.ndarray) -> None:
        """Every record has ‖s‖ ≤ M, up to a relative 1e-12 (ValueError otherwise)."""
        self._checked(np.asarray(S, dtype=np.float64))

    def _checked(self, S: np.ndarray) -> np.ndarray:
        norms = row_norms(S)
        bad = np.flatnonzero(~(norms <= self.M * (1 + _NORM_RTOL)))
        if bad.size:
            raise ValueError(f"S row {int(bad[0])} has ‖s‖ = {norms[bad[0]]:.6g} > the declared M = {self.M:.6g}: "
                             "the declared smoothness β = M²/4 would not hold for it")
        return norms

    def grads(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        with np.errstate(over="ignore", invalid="ignore"):   # ‖s‖ ≤ M: overflow only for M‖x‖ > 1.8e308
            return expit(S @ x)[:, None] * S

    def values(self, x: Any, S: Any) -> np.ndarray:
        x, S = _prepare(self, x, S)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.logaddexp(0.0, S @ x)

    def lipschitz_bound(self, S: Any, radius: float) -> np.ndarray:
        S, _ = check_records(S, self)
        radius = check_positive(radius, "radius", allow_zero=True)
        norms = self._checked(S)
        return expit(radius * norms) * norms

    def smoothness(self, radius: float) -> float:
        return self.M ** 2 / 4.0

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "M": self.M}


def logistic_records(A: Any, y: Any) -> np.ndarray:
    """GLM records s_i = −y_i a_i of the logistic loss log(1 + e^{−y⟨a, x⟩}) = σ(⟨s, x⟩).

    A (n, d) finite floats; y (n,) with entries in {−1, +1} (ValueError otherwise).  Returns S (n, d)."""
    A, y = check_data(A, y)
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("y must have entries in {-1, +1}")
    return -y[:, None] * A
