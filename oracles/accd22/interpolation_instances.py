"""Synthetic instances with exactly known minimisers and excess for Asi, Chadha, Cheng & Duchi (2022), "Private
optimization in the interpolation regime: faster rates and hardness results", arXiv:2210.17070.

The paper has no experiments; the instances below are the test problems of its upper bounds (Theorems 2, 3, 8
and 9: interpolation, quadratic or κ-growth), of its lower bounds (Theorems 1 and 4, App. B.1 and D.1) and of
its superefficiency result (Proposition 5, Theorem 5, Lemma D.6).

Records are float arrays Z of shape (n, p) in three fixed layouts (other modules rely on them):

* GLM records Z = [a, y], shape (n, d + 1): feature a = Z[:, :d], label y = Z[:, d];
* weighted squared-distance records Z = [s, h], shape (n, d + 1): F(x; (s, h)) = (h/2)‖x − s‖², h ≥ 0;
* diagonal-quadratic records Z = [c, u], shape (n, 2d): F(x; (c, u)) = ½ Σ_k u_k (x_k − c_k)², u ≥ 0.

The module is one cohesive thing — the catalogue of the paper's test instances (T1–T3, T5 for the upper
bounds, T6 for Theorems 1 and 4, T7 for Proposition 5), each with its exact answers — and is kept in one file
(about 900 lines) because the instances share the record layouts, the domain conventions and the validation.

Every SCO instance is a frozen dataclass on the domain X = B(0, R) (diameter D = 2R) with ``sample(n, rng)``,
the exact population excess ``excess(x)`` (x of shape (d,) or (m, d)), the minimiser ``x_star``, the minimum
``f_star`` and the declared public constants ``H`` (per-sample smoothness), ``lam`` (growth constant),
``L`` (Lipschitz bound of every sample function on X), ``R``, ``D``, ``kappa`` and ``interpolating``.
Growth is f(x) − f* ≥ (λ/2) dist(x, X*)² for κ = 2 (Definition 2.4) and f(x) − f* ≥ (λ/κ)‖x − x*‖^κ for
κ-growth (Remark 2); every instance here satisfies it **with equality**.

Derivations (u uniform on the unit sphere S^{d−1}, so E u = 0, E uuᵀ = I/d; v := x − x*):

T1 :class:`InterpolatingLeastSquares`: a = R_a u, y = ⟨a, x*⟩, F = ½(⟨a, x⟩ − y)² = ½⟨a, v⟩²; f(x) = ½vᵀΣv,
   Σ = E aaᵀ = (R_a²/d)I, f* = 0, λ = R_a²/d; ∇²F = aaᵀ so H = R_a²; ‖∇F‖ = |⟨a, v⟩|‖a‖ ≤ R_a²‖v‖ ≤
   R_a²(R + ‖x*‖) = L on X; ∇F(x*; s) = 0 for every s (interpolation, Definition 2.3).
T2 :class:`NoisyLeastSquares`: y = ⟨a, x*⟩ + ξ, ξ = b·Rademacher independent of a; F = ½(⟨a, v⟩ − ξ)², so
   f(x) = ½vᵀΣv + b²/2 (the cross term E⟨a, v⟩ξ vanishes), f* = b²/2, same x*, λ, H;
   ‖∇F‖ ≤ R_a(R_a(R + ‖x*‖) + b) = L; ∇F(x*; s) = −ξa ≠ 0: not interpolating.
T3 :class:`DiagonalQuadratics`: c = x*, u ~ Unif[λ₀, H]^d; f(x) = ½ Σ_k E[u_k] v_k² = (λ/2)‖v‖² with
   λ = (λ₀ + H)/2, f* = 0; ∇²F = diag(u) ⪯ H I; ‖∇F‖ = ‖u ⊙ v‖ ≤ H‖v‖ ≤ H(R + ‖x*‖) = L; interpolating.
   :class:`DiagonalQuadraticsShifted`: c = x* + τ r, r Rademacher^d independent of u; E[u_k(x_k − c_k)²] =
   E[u_k]·E[(v_k − τ r_k)²] = E[u_k](v_k² + τ²), so the minimiser is x*, the excess (λ/2)‖v‖² and
   f* = ½ Σ_k E[u_k] τ² = dλτ²/2; ‖∇F‖ ≤ H‖x − c‖ ≤ H(R + ‖x*‖ + τ√d) = L; not interpolating.
T5 :class:`InterpolatingPowerLoss`: a = R_a u, y = ⟨a, x*⟩, F = |⟨a, v⟩|^κ/κ (κ > 2). By rotation invariance
   ⟨u, v⟩ has the law of ‖v‖u_1, so f(x) = (R_a^κ/κ) E|u_1|^κ ‖v‖^κ = (λ/κ)‖v‖^κ with λ = R_a^κ E|u_1|^κ,
   f* = 0 and E|u_1|^p = Γ(d/2)Γ((p + 1)/2)/(√π Γ((d + p)/2)) (:func:`sphere_abs_moment`; u_1² ~ Beta(½, (d−1)/2)).
   With z = ⟨a, v⟩: ∇F = |z|^{κ−2}z a, ‖∇F‖ ≤ R_a^κ‖v‖^{κ−1}; ∇²F = (κ − 1)|z|^{κ−2}aaᵀ, ‖∇²F‖ ≤
   (κ − 1)R_a^κ‖v‖^{κ−2}; on X, ‖v‖ ≤ R + ‖x*‖ ≤ D, so L = R_a^κ D^{κ−1} and H = (κ − 1)R_a^κ D^{κ−2}.

T6, the lower-bound datasets of Theorems 1 and 4 (App. B.1, D.1): weighted squared-distance records
S_v = {0}^{n−k} ∪ {v}^k with weight h = 0 on the zero records (F ≡ 0 there, the paper's 1{s ≠ 0}) and h = H on
the k records at v, so f_v(x) = (1/n) Σ F(x; s) = (kH/(2n))‖x − v‖², minimised at v with value 0; every sample
gradient vanishes at v (interpolation).  d_opt(f_v, f_w) = inf_x (f_v + f_w)/2 = (kH/(8n))‖v − w‖² (attained at
the midpoint).  Theorem 1: k = d/ε, γ = D/(2e), |V| ≥ (D/(2γ))^d = e^d and the bound HD²d/(96e²nε) (pure), or,
for d = 1 and 0 < δ < ε/6, k = 1/ε and HD²/(16(e + 1)nε).  Theorem 4: k = λn/H (so f_v = (λ/2)‖x − v‖²),
γ = (D/2)exp(−λnε/(Hd)), e^{λnε/H} ≥ 2 and the bound (λD²/96)exp(−2λnε/(Hd)).  With λ = dH/(nε) Theorem 4's
instance is Theorem 1's (k = d/ε, γ = D/(2e), same bound).

T7, the superefficiency pair of Proposition 5 (d = 1, X = [−D, D]): S has weighted squared-distance records
(s_j, h_j) = (x₀, h_j), h_j ∈ [λ, H], x₀ ∈ [−D, 0] (interpolating, inf F = 0, f_S is mean(h)-strongly convex,
mean(h) ≥ λ, and 2HD-Lipschitz on X); S' replaces k = 1/ε records by (D, H), i.e. (H/2)(x − D)² (the paper's
choice when the largest minimiser is ≤ 0).  f_{S'} is a quadratic with minimiser
x*_{S'} = (Σ_kept h_j x₀ + kHD)/(Σ_kept h_j + kH), a convex combination of x₀ and D, so it lies in X.  Then
|x*_{S'} − x₀| = kH(D − x₀)/(Σ_kept h_j + kH): D − x₀ ≥ D and Σ_kept h_j + kH ≤ nH give the lower side
D/(nε) = kD/n; D − x₀ ≤ 2D and Σ_kept h_j + kH ≥ (n − k)λ + kλ = nλ give 2kHD/(λn) ≤ 8HD/(λnε) (Lemma D.6's
4kL/(λn) with L = 2HD).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import gammaln

from dpsco.oracles.population import uniform_sphere as _shared_uniform_sphere
from dpsco.reference.validation import as_float_matrix, as_float_vector, check_positive, check_positive_int, check_rng

__all__ = [
    "DiagonalQuadratics",
    "DiagonalQuadraticsShifted",
    "InterpolatingLeastSquares",
    "InterpolatingPowerLoss",
    "NoisyLeastSquares",
    "sphere_abs_moment",
    "uniform_sphere",
    "weighted_squared_distance_gradients",
    "weighted_squared_distance_losses",
]

#: Relative tolerance with which a ratio such as d/ε must be an integer (3/0.1 = 30.000000000000004 in floating
#: point); the rounded integer is used.
_INTEGER_RTOL = 1e-9


# --------------------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------------------
def sphere_abs_moment(d: Any, p: Any) -> float:
    """E|u_1|^p for u uniform on the unit sphere S^{d−1} ⊂ R^d: Γ(d/2)Γ((p + 1)/2)/(√π Γ((d + p)/2)).

    (u_1² ~ Beta(½, (d − 1)/2) for d ≥ 2; the formula gives 1 at d = 1, where u_1 = ±1.)

    Parameters
    ----------
    d : int ≥ 1, the dimension.
    p : real > 0, the moment order.

    Raises ValueError (TypeError) naming ``d`` or ``p`` for a bad value (type).
    """
    d = check_positive_int(d, "d")
    p = check_positive(p, "p")
    return float(math.exp(gammaln(d / 2.0) + gammaln((p + 1.0) / 2.0) - 0.5 * math.log(math.pi)
                          - gammaln((d + p) / 2.0)))


def uniform_sphere(n: Any, d: Any, rng: np.random.Generator) -> np.ndarray:
    """(n, d) i.i.d. directions uniform on the unit sphere S^{d−1} (normalised standard Gaussians).

    Raises ValueError/TypeError naming ``n``, ``d`` or ``rng``."""
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    return _shared_uniform_sphere(n, d, check_rng(rng))


def as_points(x: Any, d: int, name: str = "x") -> tuple[np.ndarray, bool]:
    """``x`` (d,) or (m, d) as a float (m, d) array, and whether it was a single point."""
    arr = np.asarray(x)
    if arr.ndim == 1:
        return as_float_vector(arr, name, d)[None, :], True
    X = as_float_matrix(arr, name)
    if X.shape[1] != d:
        raise ValueError(f"{name} must have shape ({d},) or (m, {d}), got {X.shape}")
    return X, False


def _records(Z: Any, p: int, name: str = "Z") -> np.ndarray:
    Z = as_float_matrix(Z, name)
    if Z.shape[1] != p:
        raise ValueError(f"{name} must have {p} columns, got shape {Z.shape}")
    return Z


def _center(x_star: Any, d: int, R: float, name: str = "x_star") -> np.ndarray:
    x = as_float_vector(x_star, name, d).copy()
    if float(np.linalg.norm(x)) > R:
        raise ValueError(f"{name} must lie in the domain B(0, R) with R = {R}, got norm {np.linalg.norm(x)}")
    x.setflags(write=False)
    return x


def integer_ratio(value: float, name: str, what: str) -> int:
    """round(value) if value is an integer ≥ 1 up to relative error 1e-9; ValueError naming ``name`` otherwise."""
    k = round(value)
    if k < 1 or abs(value - k) > _INTEGER_RTOL * max(1.0, abs(value)):
        raise ValueError(f"{name}: {what} = {value!r} must be a positive integer")
    return int(k)


def squeezed(values: np.ndarray, single: bool) -> float | np.ndarray:
    return float(values[0]) if single else values


def weighted_squared_distance_losses(x: Any, Z: Any) -> np.ndarray:
    """F(x; (s, h)) = (h/2)‖x − s‖² for every record of Z = [s, h] (n, d + 1) at x (d,): shape (n,).

    Raises ValueError naming ``x`` or ``Z`` for bad shapes or non-finite entries."""
    Z = as_float_matrix(Z, "Z")
    d = Z.shape[1] - 1
    if d < 1:
        raise ValueError(f"Z must have d + 1 >= 2 columns, got shape {Z.shape}")
    x = as_float_vector(x, "x", d)
    diff = x[None, :] - Z[:, :d]
    return 0.5 * Z[:, d] * np.einsum("ij,ij->i", diff, diff)


def weighted_squared_distance_gradients(x: Any, Z: Any) -> np.ndarray:
    """∇F(x; (s, h)) = h(x − s) for every record of Z = [s, h] (n, d + 1) at x (d,): shape (n, d)."""
    Z = as_float_matrix(Z, "Z")
    d = Z.shape[1] - 1
    if d < 1:
        raise ValueError(f"Z must have d + 1 >= 2 columns, got shape {Z.shape}")
    x = as_float_vector(x, "x", d)
    return Z[:, d:] * (x[None, :] - Z[:, :d])


# --------------------------------------------------------------------------------------------------------------
# SCO instances on X = B(0, R)
# --------------------------------------------------------------------------------------------------------------
class _BallInstance:
    """Shared members of the SCO instances (X = B(0, R), D = 2R)."""

    d: int
    R: float
    x_star: np.ndarray

    @property
    def D(self) -> float:
        """Diameter of X = B(0, R): 2R."""
        return 2.0 * self.R

    @property
    def f_star(self) -> float:  # overridden by the non-interpolating twins
        """f* = min_X f."""
        return 0.0

    def excess(self, x: Any) -> float | np.ndarray:  # pragma: no cover - overridden
        raise NotImplementedError

    def population_risk(self, x: Any) -> float | np.ndarray:
        """f(x) = f* + excess(x), for x (d,) (float) or (m, d) ((m,))."""
        return self.excess(x) + self.f_star

    def _v(self, x: Any) -> tuple[np.ndarray, bool]:
        X, single = as_points(x, self.d)
        return X - self.x_star[None, :], single

    def _n_rng(self, n: Any, rng: Any) -> tuple[int, np.random.Generator]:
        return check_positive_int(n, "n"), check_rng(rng)


class _LeastSquares(_BallInstance):
    """GLM records [a, y]; F = ½(⟨a, x⟩ − y)²."""

    R_a: float

    @property
    def H(self) -> float:
        """Per-sample smoothness ‖aaᵀ‖ ≤ R_a²."""
        return self.R_a ** 2

    @property
    def lam(self) -> float:
        """Quadratic-growth constant λ = λ_min(Σ) = R_a²/d (f − f* = (λ/2)‖x − x*‖² exactly)."""
        return self.R_a ** 2 / self.d

    @property
    def kappa(self) -> float:
        return 2.0

    def excess(self, x: Any) -> float | np.ndarray:
        """f(x) − f* = ½vᵀΣv = (R_a²/(2d))‖x − x*‖² for x (d,) (float) or (m, d) ((m,))."""
        V, single = self._v(x)
        return squeezed(0.5 * self.lam * np.einsum("ij,ij->i", V, V), single)

    def _a(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.R_a * uniform_sphere(n, self.d, rng)

    def residuals(self, x: Any, Z: Any) -> np.ndarray:
        """⟨a, x⟩ − y for every record of Z (n, d + 1) at x (d,): shape (n,)."""
        Z = _records(Z, self.d + 1)
        x = as_float_vector(x, "x", self.d)
        return Z[:, : self.d] @ x - Z[:, self.d]

    def losses(self, x: Any, Z: Any) -> np.ndarray:
        """F(x; (a, y)) = ½(⟨a, x⟩ − y)²: shape (n,)."""
        return 0.5 * self.residuals(x, Z) ** 2

    def gradients(self, x: Any, Z: Any) -> np.ndarray:
        """∇F(x; (a, y)) = (⟨a, x⟩ − y)a: shape (n, d)."""
        Z = _records(Z, self.d + 1)
        return self.residuals(x, Z)[:, None] * Z[:, : self.d]


@dataclass(frozen=True, eq=False)
class InterpolatingLeastSquares(_LeastSquares):
    """T1: interpolating least squares on X = B(0, R) (the main instance of Theorems 2 and 3, Lemma C.1).

    a = R_a·u with u uniform on S^{d−1}, y = ⟨a, x*⟩ exactly, F(x; (a, y)) = ½(⟨a, x⟩ − y)².  Population
    excess ½vᵀΣv with Σ = (R_a²/d)I, v = x − x*; f* = 0; λ = R_a²/d; H = R_a²; L = R_a²(R + ‖x*‖)
    (derivation in the module docstring).  Records: GLM layout [a, y], shape (n, d + 1).

    Parameters
    ----------
    d : int ≥ 1, dimension.
    R_a : float > 0, feature norm (every ‖a‖ = R_a).
    x_star : (d,) array, the interpolating minimiser, ‖x*‖ ≤ R.
    R : float > 0, domain radius.

    Raises ValueError/TypeError naming the parameter (``d``, ``R_a``, ``x_star``, ``R``).
    """

    d: int
    R_a: float
    x_star: np.ndarray
    R: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", check_positive_int(self.d, "d"))
        object.__setattr__(self, "R_a", check_positive(self.R_a, "R_a"))
        object.__setattr__(self, "R", check_positive(self.R, "R"))
        object.__setattr__(self, "x_star", _center(self.x_star, self.d, self.R))

    @property
    def L(self) -> float:
        """Lipschitz bound on X: R_a²(R + ‖x*‖)."""
        return self.R_a ** 2 * (self.R + float(np.linalg.norm(self.x_star)))

    @property
    def interpolating(self) -> bool:
        return True

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, d + 1) i.i.d. records [a, y], y = ⟨a, x*⟩."""
        n, rng = self._n_rng(n, rng)
        a = self._a(n, rng)
        return np.column_stack([a, a @ self.x_star])


@dataclass(frozen=True, eq=False)
class NoisyLeastSquares(_LeastSquares):
    """T2: the non-interpolating twin of T1 (adaptivity in Theorem 3).

    As :class:`InterpolatingLeastSquares` with y = ⟨a, x*⟩ + ξ, ξ = b·Rademacher independent of a.  Excess
    ½vᵀΣv (same x*, λ, H), f* = b²/2, L = R_a(R_a(R + ‖x*‖) + b); ∇F(x*; s) = −ξa, of norm bR_a ≠ 0.

    Parameters
    ----------
    d, R_a, x_star, R : as for T1.
    b : float > 0, noise amplitude.

    Raises ValueError/TypeError naming the parameter.
    """

    d: int
    R_a: float
    x_star: np.ndarray
    R: float
    b: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", check_positive_int(self.d, "d"))
        object.__setattr__(self, "R_a", check_positive(self.R_a, "R_a"))
        object.__setattr__(self, "R", check_positive(self.R, "R"))
        object.__setattr__(self, "x_star", _center(self.x_star, self.d, self.R))
        object.__setattr__(self, "b", check_positive(self.b, "b"))

    @property
    def L(self) -> float:
        """Lipschitz bound on X: R_a(R_a(R + ‖x*‖) + b)."""
        return self.R_a * (self.R_a * (self.R + float(np.linalg.norm(self.x_star))) + self.b)

    @property
    def f_star(self) -> float:
        """f* = E ξ²/2 = b²/2."""
        return 0.5 * self.b ** 2

    @property
    def interpolating(self) -> bool:
        return False

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, d + 1) i.i.d. records [a, y], y = ⟨a, x*⟩ + b·Rademacher."""
        n, rng = self._n_rng(n, rng)
        a = self._a(n, rng)
        xi = self.b * (2.0 * rng.integers(0, 2, size=n) - 1.0)
        return np.column_stack([a, a @ self.x_star + xi])


class _Diagonal(_BallInstance):
    """Diagonal-quadratic records [c, u]; F = ½ Σ_k u_k (x_k − c_k)²."""

    lam0: float
    H: float

    @property
    def lam(self) -> float:
        """λ = E u_k = (λ₀ + H)/2 (f − f* = (λ/2)‖x − x*‖² exactly)."""
        return 0.5 * (self.lam0 + self.H)

    @property
    def kappa(self) -> float:
        return 2.0

    def _check(self) -> None:
        object.__setattr__(self, "d", check_positive_int(self.d, "d"))
        object.__setattr__(self, "H", check_positive(self.H, "H"))
        lam0 = check_positive(self.lam0, "lam0", allow_zero=True)
        if lam0 > self.H:
            raise ValueError(f"lam0 must be <= H = {self.H}, got {lam0}")
        object.__setattr__(self, "lam0", lam0)
        object.__setattr__(self, "R", check_positive(self.R, "R"))
        object.__setattr__(self, "x_star", _center(self.x_star, self.d, self.R))

    def excess(self, x: Any) -> float | np.ndarray:
        """f(x) − f* = ½ Σ_k E[u_k] v_k² = (λ/2)‖x − x*‖² for x (d,) (float) or (m, d) ((m,))."""
        V, single = self._v(x)
        return squeezed(0.5 * self.lam * np.einsum("ij,ij->i", V, V), single)

    def _u(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(self.lam0, self.H, size=(n, self.d))

    def losses(self, x: Any, Z: Any) -> np.ndarray:
        """F(x; (c, u)) = ½ Σ_k u_k (x_k − c_k)²: shape (n,)."""
        Z = _records(Z, 2 * self.d)
        x = as_float_vector(x, "x", self.d)
        diff = x[None, :] - Z[:, : self.d]
        return 0.5 * np.sum(Z[:, self.d:] * diff * diff, axis=1)

    def gradients(self, x: Any, Z: Any) -> np.ndarray:
        """∇F(x; (c, u)) = u ⊙ (x − c): shape (n, d)."""
        Z = _records(Z, 2 * self.d)
        x = as_float_vector(x, "x", self.d)
        return Z[:, self.d:] * (x[None, :] - Z[:, : self.d])


@dataclass(frozen=True, eq=False)
class DiagonalQuadratics(_Diagonal):
    """T3: per-sample diagonal quadratics with a common minimiser (H/λ < 2).

    Records [c, u] (n, 2d) with c = x* for every sample and u ~ Unif[λ₀, H]^d.  Population f(x) =
    ½ Σ_k ((λ₀ + H)/2) v_k², f* = 0, λ = (λ₀ + H)/2, per-sample smoothness H, L = H(R + ‖x*‖); interpolating.

    Parameters
    ----------
    d : int ≥ 1.
    lam0 : float, 0 ≤ λ₀ ≤ H.
    H : float > 0.
    x_star : (d,), ‖x*‖ ≤ R.
    R : float > 0.

    Raises ValueError/TypeError naming the parameter.
    """

    d: int
    lam0: float
    H: float
    x_star: np.ndarray
    R: float

    def __post_init__(self) -> None:
        self._check()

    @property
    def L(self) -> float:
        """Lipschitz bound on X: H(R + ‖x*‖)."""
        return self.H * (self.R + float(np.linalg.norm(self.x_star)))

    @property
    def interpolating(self) -> bool:
        return True

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, 2d) i.i.d. records [x*, u], u ~ Unif[λ₀, H]^d."""
        n, rng = self._n_rng(n, rng)
        return np.column_stack([np.tile(self.x_star, (n, 1)), self._u(n, rng)])


@dataclass(frozen=True, eq=False)
class DiagonalQuadraticsShifted(_Diagonal):
    """The non-interpolating twin of T3: c = x* + τ·Rademacher^d per sample, u ~ Unif[λ₀, H]^d independent.

    E[u_k (x_k − c_k)²] = E[u_k](v_k² + τ²), so the population minimiser is x*, the excess is
    ½ Σ_k E[u_k] v_k² = (λ/2)‖v‖² with λ = (λ₀ + H)/2, and f* = ½ Σ_k E[u_k]τ² = dλτ²/2.
    L = H(R + ‖x*‖ + τ√d) (‖x − c‖ ≤ ‖x − x*‖ + τ√d).  Not interpolating (∇F(x*; s) = −τ u ⊙ r ≠ 0).

    Parameters
    ----------
    d, lam0, H, x_star, R : as for :class:`DiagonalQuadratics`.
    tau : float > 0, shift amplitude.

    Raises ValueError/TypeError naming the parameter.
    """

    d: int
    lam0: float
    H: float
    x_star: np.ndarray
    R: float
    tau: float

    def __post_init__(self) -> None:
        self._check()
        object.__setattr__(self, "tau", check_positive(self.tau, "tau"))

    @property
    def L(self) -> float:
        """Lipschitz bound on X: H(R + ‖x*‖ + τ√d)."""
        return self.H * (self.R + float(np.linalg.norm(self.x_star)) + self.tau * math.sqrt(self.d))

    @property
    def f_star(self) -> float:
        """f* = ½ Σ_k E[u_k] τ² = dλτ²/2."""
        return 0.5 * self.d * self.lam * self.tau ** 2

    @property
    def interpolating(self) -> bool:
        return False

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, 2d) i.i.d. records [x* + τr, u], r Rademacher^d, u ~ Unif[λ₀, H]^d."""
        n, rng = self._n_rng(n, rng)
        r = 2.0 * rng.integers(0, 2, size=(n, self.d)) - 1.0
        c = self.x_star[None, :] + self.tau * r
        return np.column_stack([c, self._u(n, rng)])


@dataclass(frozen=True, eq=False)
class InterpolatingPowerLoss(_BallInstance):
    """T5: interpolating κ-growth instance (Algorithm 6, Theorem 8): F(x; (a, y)) = |⟨a, x⟩ − y|^κ/κ.

    a = R_a·u, u uniform on S^{d−1}, y = ⟨a, x*⟩; κ > 2 (the paper uses κ ∈ {3, 4}).  Excess exactly
    (R_a^κ/κ)·E|u_1|^κ·‖v‖^κ = (λ/κ)‖v‖^κ with λ = R_a^κ E|u_1|^κ (:func:`sphere_abs_moment`), so κ-growth
    (Remark 2) holds with equality; f* = 0.  On X (D = 2R): H = (κ − 1)R_a^κ D^{κ−2}, L = R_a^κ D^{κ−1}.
    Records: GLM layout [a, y], shape (n, d + 1).

    Parameters
    ----------
    d : int ≥ 1.
    R_a : float > 0.
    kappa : float > 2.
    x_star : (d,), ‖x*‖ ≤ R.
    R : float > 0.

    Raises ValueError/TypeError naming the parameter.
    """

    d: int
    R_a: float
    kappa: float
    x_star: np.ndarray
    R: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", check_positive_int(self.d, "d"))
        object.__setattr__(self, "R_a", check_positive(self.R_a, "R_a"))
        kappa = check_positive(self.kappa, "kappa")
        if kappa <= 2.0:
            raise ValueError(f"kappa must be > 2 (Algorithm 6 / Theorem 8 regime), got {kappa}")
        object.__setattr__(self, "kappa", kappa)
        object.__setattr__(self, "R", check_positive(self.R, "R"))
        object.__setattr__(self, "x_star", _center(self.x_star, self.d, self.R))

    @property
    def moment(self) -> float:
        """E|u_1|^κ."""
        return sphere_abs_moment(self.d, self.kappa)

    @property
    def lam(self) -> float:
        """κ-growth constant λ = R_a^κ E|u_1|^κ (f − f* = (λ/κ)‖x − x*‖^κ exactly)."""
        return self.R_a ** self.kappa * self.moment

    @property
    def H(self) -> float:
        """Per-sample smoothness on X: (κ − 1)R_a^κ D^{κ−2}."""
        return (self.kappa - 1.0) * self.R_a ** self.kappa * self.D ** (self.kappa - 2.0)

    @property
    def L(self) -> float:
        """Lipschitz bound on X: R_a^κ D^{κ−1}."""
        return self.R_a ** self.kappa * self.D ** (self.kappa - 1.0)

    @property
    def interpolating(self) -> bool:
        return True

    def excess(self, x: Any) -> float | np.ndarray:
        """f(x) − f* = (λ/κ)‖x − x*‖^κ for x (d,) (float) or (m, d) ((m,))."""
        V, single = self._v(x)
        return squeezed(self.lam / self.kappa * np.linalg.norm(V, axis=1) ** self.kappa, single)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, d + 1) i.i.d. records [a, y], y = ⟨a, x*⟩."""
        n, rng = self._n_rng(n, rng)
        a = self.R_a * uniform_sphere(n, self.d, rng)
        return np.column_stack([a, a @ self.x_star])

    def residuals(self, x: Any, Z: Any) -> np.ndarray:
        """z = ⟨a, x⟩ − y: shape (n,)."""
        Z = _records(Z, self.d + 1)
        x = as_float_vector(x, "x", self.d)
        return Z[:, : self.d] @ x - Z[:, self.d]

    def losses(self, x: Any, Z: Any) -> np.ndarray:
        """F = |z|^κ/κ: shape (n,)."""
        return np.abs(self.residuals(x, Z)) ** self.kappa / self.kappa

    def gradients(self, x: Any, Z: Any) -> np.ndarray:
        """∇F = |z|^{κ−2} z a: shape (n, d)."""
        Z = _records(Z, self.d + 1)
        z = self.residuals(x, Z)
        return (np.abs(z) ** (self.kappa - 2.0) * z)[:, None] * Z[:, : self.d]
