"""Separable-margin interpolation problems with known solution sets, and their non-interpolating twin, for the
algorithms of Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070 (squared hinge loss; the interpolation condition
of Definition 2.3 with a solution *set*, not a point).

Records are GLM records Z = [a, y] (n, d + 1) for ``dpsco.reference.accd22.SquaredHingeLoss``:
F(x; (a, y)) = ½ max(0, 1 − y⟨a, x⟩)².  The support is the 2d points (±e_k, ±1), drawn uniformly over k:

* :class:`SeparableSquaredHinge` (interpolating): (e_k, +1) or (−e_k, −1) with probability ½ each — both have
  y⟨a, x⟩ = x_k — so f(x) = (1/d)Σ_k ½(1 − x_k)_+².  Every x of the orthant O = {x : x_k ≥ 1 ∀k} zeroes every
  sample's loss and gradient: the solution set is X* = O ∩ X (a polyhedron meeting a ball, not a point), f* = 0.
  Growth: f(x) − f* = (1/(2d))·dist(x, O)², exactly; dist(x, X*) ≥ dist(x, O), with equality where the
  projection onto O lies in X (so the quadratic growth of Definition 2.4 with λ = 1/d holds wherever
  Π_O(x) ∈ X, and with a smaller, Hoffman-type constant elsewhere: it is not given in closed form).
  :meth:`SeparableSquaredHinge.dist_to_solution_set` computes dist(x, O ∩ X) exactly (the projection onto an
  orthant ∩ ball by bisection on the ball's multiplier).
* :class:`FlippedSquaredHinge` (the twin): the label flipped with probability q ∈ (0, ½) — y⟨a, x⟩ = −x_k — so
  f(x) = (1/d)Σ_k g(x_k) with g(t) = ½[(1 − q)(1 − t)_+² + q(1 + t)_+²]: minimiser t* = 1 − 2q in (−1, 1) for
  every coordinate, g(t*) = 2q(1 − q), and g(t) − g(t*) = ½(t − t*)² on [−1, 1] (exact piecewise form below);
  no point interpolates (at t* the two labels' derivatives are −2q and 2 − 2q, neither 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.validation import check_positive, check_positive_int, check_rng

__all__ = ["FlippedSquaredHinge", "SeparableSquaredHinge"]


def _points(x: Any, d: int) -> tuple[np.ndarray, bool]:
    X = np.asarray(x, dtype=np.float64)
    single = X.ndim == 1
    X = np.atleast_2d(X)
    if X.shape[1] != d or not np.all(np.isfinite(X)):
        raise ValueError(f"x must be finite points of dimension {d}, got shape {np.shape(x)}")
    return X, single


def _sample(n: Any, d: int, rng: Any, flip: float) -> np.ndarray:
    n, rng = check_positive_int(n, "n"), check_rng(rng)
    k = rng.integers(0, d, size=n)
    s = rng.choice([-1.0, 1.0], size=n)  # (s e_k, s): y⟨a, x⟩ = x_k
    y = s * np.where(rng.random(n) < flip, -1.0, 1.0)
    A = np.zeros((n, d))
    A[np.arange(n), k] = s
    return np.c_[A, y]


@dataclass(frozen=True)
class _Margin:
    """Shared by both instances: d ≥ 1, X = B(0, R) with R > √d (the margin point (1, …, 1) inside), ‖a‖ = 1 so
    H = 1, the Lipschitz constant on X L = 1 + R (|1 ∓ x_k| ≤ 1 + R), λ = 1/d."""

    d: int
    R: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", check_positive_int(self.d, "d"))
        R = check_positive(self.R, "R")
        if not R > np.sqrt(self.d):
            raise ValueError(f"R must exceed √d = {np.sqrt(self.d):.4g} (the margin point must lie inside X)")
        object.__setattr__(self, "R", R)

    H = 1.0

    @property
    def L(self) -> float:
        return 1.0 + self.R

    @property
    def lam(self) -> float:
        return 1.0 / self.d


@dataclass(frozen=True)
class SeparableSquaredHinge(_Margin):
    """The interpolating separable-margin instance (module docstring).  d ≥ 1; R > √d: the domain X = B(0, R)
    contains the margin point (1, …, 1), an interpolating minimiser.  Per-sample smoothness H = 1 (‖a‖ = 1),
    Lipschitz constant on X: L = 1 + R.  ``lam`` = 1/d is the growth constant with respect to the orthant
    (exact), see the module docstring for X*."""

    interpolating = True
    f_star = 0.0

    @property
    def x_star(self) -> np.ndarray:
        """One interpolating minimiser: the margin point (1, …, 1)."""
        return np.ones(self.d)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n records [a, y] (n, d + 1)."""
        return _sample(n, self.d, rng, 0.0)

    def excess(self, x: Any) -> float | np.ndarray:
        """f(x) − f* = (1/(2d))‖(1 − x)_+‖² for x (d,) or (m, d)."""
        X, single = _points(x, self.d)
        out = 0.5 * np.sum(np.maximum(0.0, 1.0 - X) ** 2, axis=1) / self.d
        return float(out[0]) if single else out

    def dist_to_solution_set(self, x: Any) -> float | np.ndarray:
        """dist(x, O ∩ B(0, R)) exactly: the projection is max(x, 1) when it lies in the ball; otherwise it is
        Π_O(x/(1 + τ)) with the ball's multiplier τ > 0 found by bisection on ‖max(x/(1 + τ), 1)‖ = R (a
        decreasing function of τ; KKT of min ½‖z − x‖² + (τ/2)(‖z‖² − R²) over O)."""
        X, single = _points(x, self.d)
        P = np.maximum(X, 1.0)
        out = np.linalg.norm(P - X, axis=1)
        for i in np.flatnonzero(np.linalg.norm(P, axis=1) > self.R):
            lo, hi = 0.0, 1.0
            while np.linalg.norm(np.maximum(X[i] / (1 + hi), 1.0)) > self.R:
                hi *= 2.0
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                if np.linalg.norm(np.maximum(X[i] / (1 + mid), 1.0)) > self.R:
                    lo = mid
                else:
                    hi = mid
            out[i] = np.linalg.norm(np.maximum(X[i] / (1 + hi), 1.0) - X[i])
        return float(out[0]) if single else out


@dataclass(frozen=True)
class FlippedSquaredHinge(_Margin):
    """The non-interpolating twin: labels flipped with probability q ∈ (0, ½) (module docstring).  Minimiser
    x* = (1 − 2q)·(1, …, 1) (inside X for R > √d), f* = 2q(1 − q), strongly convex with λ = 1/d on [−1, 1]^d;
    H = 1, L = 1 + R on X = B(0, R)."""

    q: float

    def __post_init__(self) -> None:
        super().__post_init__()
        q = check_positive(self.q, "q")
        if not q < 0.5:
            raise ValueError(f"q must lie in (0, 1/2), got {q}")
        object.__setattr__(self, "q", q)

    interpolating = False

    @property
    def x_star(self) -> np.ndarray:
        return np.full(self.d, 1.0 - 2.0 * self.q)

    @property
    def f_star(self) -> float:
        return 2.0 * self.q * (1.0 - self.q)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """n records [a, y] (n, d + 1), each label flipped with probability q."""
        return _sample(n, self.d, rng, self.q)

    def population_risk(self, x: Any) -> float | np.ndarray:
        """f(x) = (1/d)Σ_k ½[(1 − q)(1 − x_k)_+² + q(1 + x_k)_+²]."""
        X, single = _points(x, self.d)
        g = 0.5 * ((1 - self.q) * np.maximum(0.0, 1 - X) ** 2 + self.q * np.maximum(0.0, 1 + X) ** 2)
        out = np.sum(g, axis=1) / self.d
        return float(out[0]) if single else out

    def excess(self, x: Any) -> float | np.ndarray:
        """f(x) − f*, exact (= (1/(2d))‖x − x*‖² on [−1, 1]^d)."""
        r = self.population_risk(x)
        return r - self.f_star
