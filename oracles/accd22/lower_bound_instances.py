"""The lower-bound instances of Asi, Chadha, Cheng & Duchi (2022): the datasets and exact bounds of Theorems 1 and 4
(a packing of the sphere, the records of each vertex), Lemma D.6 and Proposition 5's superefficiency pair (the
interpolation problems with growth and their twins are in ``interpolation_instances``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np

from dpsco.oracles.accd22.interpolation_instances import (as_points, integer_ratio, squeezed, uniform_sphere,
                                                          weighted_squared_distance_losses)
from dpsco.reference.accd22 import theorems as th
from dpsco.reference.validation import (as_float_vector, check_delta, check_epsilon, check_positive,
                                        check_positive_int, check_rng)

__all__ = [
    "theorem_1_lower_bound",
    "theorem_1_approx_lower_bound",
    "theorem_4_lower_bound",
    "LowerBoundInstance",
    "theorem_1_instance",
    "theorem_4_instance",
    "draw_packing",
    "lemma_d6_bound",
    "proposition_5_bounds",
    "SuperefficiencyPair",
    "superefficiency_pair",
]


# --------------------------------------------------------------------------------------------------------------
# T6: lower-bound datasets of Theorems 1 and 4
# --------------------------------------------------------------------------------------------------------------
def theorem_1_lower_bound(n: Any, d: Any, epsilon: Any, H: Any, D: Any) -> float:
    """Theorem 1 (δ = 0): 𝔐(X, 𝔖, ε, 0) ≥ HD²d/(96e²nε).

    The proof's instance (:func:`theorem_1_instance`) needs k = d/ε to be an integer ≤ n.
    Raises ValueError/TypeError naming the parameter."""
    return th.theorem_1_lower_bound(n, d, epsilon, 0.0, H, D)


def theorem_1_approx_lower_bound(n: Any, epsilon: Any, delta: Any, H: Any, D: Any) -> float:
    """Theorem 1 (d = 1, 0 < δ < ε/6): 𝔐(X, 𝔖, ε, δ) ≥ HD²/(16(e + 1)nε).

    The proof's instance is :func:`theorem_1_instance` with d = 1 (k = 1/ε) and v = ±D/2.
    Raises ValueError naming ``delta`` unless 0 < δ < ε/6; ValueError/TypeError naming another bad parameter."""
    if not check_delta(delta) > 0.0:
        raise ValueError(f"delta must satisfy 0 < delta < epsilon/6 (Theorem 1), got {delta}")
    return th.theorem_1_lower_bound(n, 1, epsilon, delta, H, D)


def theorem_4_lower_bound(n: Any, d: Any, epsilon: Any, H: Any, lam: Any, D: Any) -> float:
    """Theorem 4: 𝔐(X, 𝔖^λ, ε, 0) ≥ (λD²/96)·exp(−2λnε/(Hd)).

    The proof needs e^{λnε/H} ≥ 2 (checked by :func:`theorem_4_instance`).
    Raises ValueError/TypeError naming the parameter."""
    return th.theorem_4_lower_bound(n, d, epsilon, H, lam, D)


@dataclass(frozen=True, eq=False)
class LowerBoundInstance:
    """The dataset S_v = {0}^{n−k} ∪ {v}^k of Theorems 1 and 4 (App. B.1, D.1) as weighted squared-distance
    records [s, h] (n, d + 1): the first n − k rows are (0, 0) (F ≡ 0), the last k rows are (v, H).

    f_v(x) = (1/n)Σ F(x; s) = (kH/(2n))‖x − v‖² (``empirical_excess``; min 0 at v = ``x_star``); f_v has
    quadratic growth with ``lam`` = kH/n (= λ for Theorem 4).  ``gamma`` is the packing radius of the proof and
    ``lower_bound`` the theorem's bound.  Build with :func:`theorem_1_instance` or :func:`theorem_4_instance`.
    """

    theorem: str
    n: int
    d: int
    epsilon: float
    H: float
    D: float
    v: np.ndarray
    k: int
    gamma: float
    lower_bound: float
    records: np.ndarray = field(repr=False)

    @property
    def x_star(self) -> np.ndarray:
        """argmin f_v = v."""
        return self.v

    @property
    def f_star(self) -> float:
        """min f_v = 0."""
        return 0.0

    @property
    def lam(self) -> float:
        """Growth constant of f_v: kH/n (f_v = (kH/(2n))‖x − v‖²)."""
        return self.k * self.H / self.n

    @property
    def interpolating(self) -> bool:
        return True

    def losses(self, x: Any) -> np.ndarray:
        """F(x; s_i) for the n records: shape (n,)."""
        return weighted_squared_distance_losses(x, self.records)

    def empirical_excess(self, x: Any) -> float | np.ndarray:
        """f_v(x) − min f_v = (kH/(2n))‖x − v‖² for x (d,) (float) or (m, d) ((m,))."""
        X, single = as_points(x, self.d)
        V = X - self.v[None, :]
        return squeezed(0.5 * self.lam * np.einsum("ij,ij->i", V, V), single)

    def separation(self, w: Any) -> float:
        """d_opt(f_v, f_w) = inf_x (f_v(x) + f_w(x))/2 = (kH/(8n))‖v − w‖² (attained at (v + w)/2)."""
        w = as_float_vector(w, "w", self.d)
        return self.k * self.H / (8.0 * self.n) * float(np.sum((self.v - w) ** 2))


def _lower_bound_v(v: Any, d: int, D: float) -> np.ndarray:
    v = as_float_vector(v, "v", d).copy()
    if float(np.linalg.norm(v)) > 0.5 * D * (1.0 + 1e-12):
        raise ValueError(f"v must lie in the ball B(0, D/2) of diameter D = {D}, got norm {np.linalg.norm(v)}")
    v.setflags(write=False)
    return v


def _lower_bound_records(n: int, k: int, v: np.ndarray, H: float) -> np.ndarray:
    Z = np.zeros((n, v.shape[0] + 1))
    Z[n - k:, :-1] = v
    Z[n - k:, -1] = H
    return Z


def theorem_1_instance(n: Any, d: Any, epsilon: Any, H: Any, D: Any, v: Any) -> LowerBoundInstance:
    """Theorem 1's dataset S_v with k = d/ε and packing radius γ = D/(2e); ``lower_bound`` = HD²d/(96e²nε).

    Parameters
    ----------
    n : int ≥ 1; d : int ≥ 1; epsilon : float > 0 with d/ε an integer ≤ n; H : float > 0, smoothness;
    D : float > 0, diameter of the ball B(0, D/2) ⊂ X; v : (d,), ‖v‖ ≤ D/2.

    For δ > 0 (d = 1) use v = ±D/2 and :func:`theorem_1_approx_lower_bound`.
    Raises ValueError naming ``epsilon`` if d/ε is not an integer, ``n`` if d/ε > n, ``v`` if ‖v‖ > D/2.
    """
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    eps, H, D = check_epsilon(epsilon), check_positive(H, "H"), check_positive(D, "D")
    k = integer_ratio(d / eps, "epsilon", "k = d/epsilon")
    if k > n:
        raise ValueError(f"n must be >= k = d/epsilon = {k} (Theorem 1 needs n*epsilon >= d), got n = {n}")
    v = _lower_bound_v(v, d, D)
    return LowerBoundInstance("1", n, d, eps, H, D, v, k, D / (2.0 * math.e),
                              theorem_1_lower_bound(n, d, eps, H, D), _lower_bound_records(n, k, v, H))


def theorem_4_instance(n: Any, d: Any, epsilon: Any, H: Any, lam: Any, D: Any, v: Any) -> LowerBoundInstance:
    """Theorem 4's dataset S_v with k = λn/H (f_v = (λ/2)‖x − v‖²) and packing radius
    γ = (D/2)exp(−λnε/(Hd)); ``lower_bound`` = (λD²/96)exp(−2λnε/(Hd)).

    Parameters
    ----------
    n, d, epsilon, H, D, v : as for :func:`theorem_1_instance`; lam : float > 0 with λn/H an integer ≤ n.

    Raises ValueError naming ``lam`` if λn/H is not an integer or exceeds n (λ > H), ``epsilon`` if
    e^{λnε/H} < 2, ``v`` if ‖v‖ > D/2.
    """
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    eps, H = check_epsilon(epsilon), check_positive(H, "H")
    lam, D = check_positive(lam, "lam"), check_positive(D, "D")
    k = integer_ratio(lam * n / H, "lam", "k = lam*n/H")
    if k > n:
        raise ValueError(f"lam must be <= H (k = lam*n/H = {k} > n = {n})")
    if lam * n * eps / H < math.log(2.0):
        raise ValueError(f"epsilon: Theorem 4 needs exp(lam*n*epsilon/H) >= 2, got lam*n*epsilon/H = "
                         f"{lam * n * eps / H}")
    v = _lower_bound_v(v, d, D)
    gamma = 0.5 * D * math.exp(-lam * n * eps / (H * d))
    return LowerBoundInstance("4", n, d, eps, H, D, v, k, gamma, theorem_4_lower_bound(n, d, eps, H, lam, D),
                              _lower_bound_records(n, k, v, H))


def draw_packing(m: Any, d: Any, D: Any, gamma: Any, rng: np.random.Generator,
                 max_candidates: Any = 10_000) -> np.ndarray:
    """Up to ``m`` points of the ball B(0, D/2) (diameter D) with pairwise distances ≥ γ: a γ-packing.

    Greedy rejection: candidates are drawn uniformly from B(0, D/2) (direction uniform on the sphere, radius
    (D/2)U^{1/d}) and kept if at distance ≥ γ from every kept point, until ``m`` are kept or ``max_candidates``
    were tried.  Returns an (m', d) array, 1 ≤ m' ≤ m (the first candidate is always kept); any two rows v, w
    satisfy d_opt(f_v, f_w) ≥ kHγ²/(8n), the separation the proofs of Theorems 1 and 4 use.  It is a packing, not
    a maximal one: the proofs' |V| ≥ (D/(2γ))^d is not guaranteed.

    Raises ValueError/TypeError naming ``m``, ``d``, ``D``, ``gamma``, ``max_candidates`` or ``rng``.
    """
    m, d = check_positive_int(m, "m"), check_positive_int(d, "d")
    D, gamma = check_positive(D, "D"), check_positive(gamma, "gamma")
    max_candidates = check_positive_int(max_candidates, "max_candidates")
    rng = check_rng(rng)
    kept: list[np.ndarray] = []
    batch = min(max_candidates, max(64, 4 * m))
    tried = 0
    while tried < max_candidates and len(kept) < m:
        b = min(batch, max_candidates - tried)
        cand = uniform_sphere(b, d, rng) * (0.5 * D * rng.uniform(size=(b, 1)) ** (1.0 / d))
        tried += b
        for c in cand:
            if not kept or float(np.min(np.linalg.norm(np.asarray(kept) - c, axis=1))) >= gamma:
                kept.append(c)
                if len(kept) == m:
                    break
    return np.asarray(kept)


# --------------------------------------------------------------------------------------------------------------
# T7: superefficiency (Proposition 5, Theorem 5, Lemma D.6)
# --------------------------------------------------------------------------------------------------------------
def lemma_d6_bound(k: Any, L: Any, lam: Any, n: Any) -> float:
    """Lemma D.6: ‖x_S − x_{S'}‖ ≤ 4kL/(λn) when k records are replaced, f_S is λ-strongly convex and
    interpolating, F ≥ 0 is L-Lipschitz with inf F = 0.  Raises ValueError/TypeError naming the parameter."""
    return th.lemma_d6_bound(k, L, lam, n)


def proposition_5_bounds(n: Any, epsilon: Any, D: Any, lam: Any, H: Any) -> tuple[float, float]:
    """Proposition 5: (D/(nε), 8HD/(λnε)), the two sides of D/(nε) ≤ ω(S, 1/ε) ≤ 8HD/(λnε).

    Raises ValueError/TypeError naming the parameter."""
    return th.proposition_5_bounds(n, epsilon, D, H, lam)


@dataclass(frozen=True, eq=False)
class SuperefficiencyPair:
    """The pair (S, S') of Proposition 5 in d = 1 on X = [−D, D], as weighted squared-distance records [s, h]
    (n, 2): S has rows (x₀, h_j); S' equals S except that the k = 1/ε rows ``replaced`` are (D, H).

    x*_S = x₀ (``x_star_S``); x*_{S'} = (Σ_kept h_j x₀ + kHD)/(Σ_kept h_j + kH) (``x_star_S_prime``), derived in the
    module docstring.  Build with :func:`superefficiency_pair`.
    """

    n: int
    epsilon: float
    D: float
    lam: float
    H: float
    x0: float
    k: int
    h: np.ndarray = field(repr=False)
    replaced: np.ndarray
    S: np.ndarray = field(repr=False)
    S_prime: np.ndarray = field(repr=False)

    @property
    def L(self) -> float:
        """Lipschitz constant of every F(·; s) on [−D, D]: |h(x − s)| ≤ H·2D."""
        return 2.0 * self.H * self.D

    @property
    def x_star_S(self) -> float:
        """argmin f_S = x₀ (every record's minimiser; interpolating)."""
        return self.x0

    @property
    def x_star_S_prime(self) -> float:
        """argmin f_{S'} = (Σ_kept h_j x₀ + kHD)/(Σ_kept h_j + kH)."""
        keep = np.ones(self.n, dtype=bool)
        keep[self.replaced] = False
        s = float(np.sum(self.h[keep]))
        x = (s * self.x0 + self.k * self.H * self.D) / (s + self.k * self.H)
        return min(max(x, self.x0), self.D)  # a convex combination of x₀ and D; clip the rounding

    def empirical_risk(self, x: Any, which: str = "S") -> float:
        """f_S(x) (``which="S"``) or f_{S'}(x) (``which="S'"``) at a real x: (1/n) Σ (h_j/2)(x − s_j)²."""
        if which not in ("S", "S'"):
            raise ValueError(f"which must be 'S' or \"S'\", got {which!r}")
        Z = self.S if which == "S" else self.S_prime
        return float(np.mean(weighted_squared_distance_losses(np.array([float(x)]), Z)))

    def proposition_5_check(self) -> tuple[float, float, float]:
        """(D/(nε), |x*_{S'} − x₀|, 8HD/(λnε)): Proposition 5 asserts lower ≤ middle ≤ upper (for this S', a
        lower bound on ω(S, 1/ε) is ≤ the middle, and the middle ≤ ω(S, 1/ε))."""
        lo, hi = proposition_5_bounds(self.n, self.epsilon, self.D, self.lam, self.H)
        return lo, abs(self.x_star_S_prime - self.x0), hi


def superefficiency_pair(n: Any, epsilon: Any, D: Any, lam: Any, H: Any, x0: Any, rng: np.random.Generator | None,
                         *, h: Any = None, replaced: Any = None) -> SuperefficiencyPair:
    """Build Proposition 5's pair: S = {(x₀, h_j)}_{j ≤ n} with h_j ~ Unif[λ, H] (or the given ``h``), and S'
    replacing the k = 1/ε records ``replaced`` (default: the first k) by (D, H), i.e. F = (H/2)(x − D)².

    Parameters
    ----------
    n : int ≥ 1; epsilon : float > 0 with 1/ε an integer ≤ n; D : float > 0 (X = [−D, D]);
    lam, H : 0 < λ ≤ H; x0 : float in [−D, 0]; rng : numpy Generator (unused, may be None, when ``h`` is given);
    h : optional (n,) weights in [λ, H]; replaced : optional k distinct indices in [0, n).

    Raises ValueError naming ``epsilon`` (1/ε not an integer), ``n`` (1/ε > n), ``lam`` (λ > H), ``x0``, ``h``
    or ``replaced``; TypeError for ``rng`` when ``h`` is not given.
    """
    n = check_positive_int(n, "n")
    eps, D = check_epsilon(epsilon), check_positive(D, "D")
    lam, H = check_positive(lam, "lam"), check_positive(H, "H")
    if lam > H:
        raise ValueError(f"lam must be <= H = {H}, got {lam}")
    if isinstance(x0, bool) or not isinstance(x0, Real) or not math.isfinite(float(x0)):
        raise ValueError(f"x0 must be a finite real number, got {x0!r}")
    x0 = float(x0)
    if not -D <= x0 <= 0.0:
        raise ValueError(f"x0 must lie in [-D, 0] = [{-D}, 0], got {x0}")
    k = integer_ratio(1.0 / eps, "epsilon", "k = 1/epsilon")
    if k > n:
        raise ValueError(f"n must be >= k = 1/epsilon = {k}, got n = {n}")
    if h is None:
        weights = check_rng(rng).uniform(lam, H, size=n)
    else:
        weights = as_float_vector(h, "h", n).copy()
        if np.any(weights < lam) or np.any(weights > H):
            raise ValueError(f"h must lie in [lam, H] = [{lam}, {H}]")
    if replaced is None:
        idx = np.arange(k)
    else:
        idx = np.asarray(replaced)
        if (idx.ndim != 1 or idx.shape[0] != k or not np.issubdtype(idx.dtype, np.integer)
                or np.unique(idx).shape[0] != k or np.any(idx < 0) or np.any(idx >= n)):
            raise ValueError(f"replaced must be k = {k} distinct integer indices in [0, {n})")
        idx = idx.astype(np.int64)
    weights.setflags(write=False)
    S = np.column_stack([np.full(n, x0), weights])
    S_prime = S.copy()
    S_prime[idx] = (D, H)
    idx.setflags(write=False)
    S.setflags(write=False)
    S_prime.setflags(write=False)
    return SuperefficiencyPair(n, eps, D, lam, H, x0, k, weights, idx, S, S_prime)
