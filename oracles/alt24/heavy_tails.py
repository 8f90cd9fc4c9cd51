"""Heavy-tailed random vectors with exact moments, for the instances of Asi, Liu & Tian (2024) (Assumption 1:
only k moments of the sample Lipschitz constants are bounded).

A *radial law* is the law of a radius r ≥ 0 with closed-form partial moments

    T_j(C) := E[r^j 𝕀_{r > C}]     (j ≥ 0 real, C ≥ 0),

from which everything else follows: E r^j = T_j(0), the tail mean E[r𝕀_{r>C}] = T_1(C), and the mean excess
E(r − C)_+ = ∫_C^∞ Pr[r > t] dt = T_1(C) − C·Pr[r > C].  These are the two sides of Fact 1 of Asi, Liu & Tian
(2024) (from Barber & Duchi 2014, Lemma 3): E‖Π_C(X) − X‖ = E(‖X‖ − C)_+ ≤ E[‖X‖𝕀_{‖X‖≥C}] ≤
G^k/((k − 1)C^{k−1}).  The outer inequality holds; the middle one fails for k ≥ 3 (radial Pareto α = 10, x_m = 1,
C = 1: E(r − C)_+ = 1/9, E[r𝕀_{r>C}] = 10/9 > 5/7 = G_3³/(2·1²); ERRATA.md).

Laws (each also a scipy.stats distribution, which the tests check the closed forms against):

* ``ParetoRadius(alpha, x_m)``: Pr[r > t] = (x_m/t)^α, t ≥ x_m (scipy ``pareto(α, scale=x_m)``).  For C ≥ x_m,
  T_j(C) = α x_m^α C^{j−α}/(α − j); for C < x_m, T_j(C) = E r^j = α x_m^j/(α − j) (j < α; +inf otherwise).
  Sampled as x_m·U^{−1/α} with U = 1 − Unif[0, 1) ∈ (0, 1] clipped below at 1e-300 (never inf).
* ``LomaxRadius(alpha, x_m)``: Pr[r > t] = (1 + t/x_m)^{−α} (scipy ``lomax(α, scale=x_m)``).  With V = (1 +
  r/x_m)^{−1} ~ Beta(α, 1): T_j(C) = x_m^j α B(α − j, j + 1) I_{v_C}(α − j, j + 1), v_C = (1 + C/x_m)^{−1}
  (I the regularised incomplete beta); T_j(0) = x_m^j Γ(j+1)Γ(α−j)/Γ(α).
* ``TruncatedParetoRadius(alpha, x_m, M)``: Pareto conditioned on r ≤ M (bounded: the logistic instance, whose
  declared smoothness β = M²/4 needs ‖s‖ ≤ M).
* ``StudentTRadius(nu, d, scale)``: r = ‖s − μ‖ for the multivariate Student-t s = μ + σZ√(ν/W), Z ~ N(0, I_d),
  W ~ χ²_ν; r²/(σ²d) ~ F(d, ν) (scipy ``f``).  With B = X/(X + W) ~ Beta(a, b), a = d/2, b = ν/2, r² = σ²νB/(1 − B):
  T_j(C) = (σ²ν)^{j/2} B(a + j/2, b − j/2)/B(a, b) · (1 − I_{x_C}(a + j/2, b − j/2)), x_C = C²/(C² + σ²ν) (j < ν).

``RadialVector(law, d, mu, isotropic)``: s = μ + r·u with u uniform on the unit sphere (``isotropic=True``) or
u = e_1 (``isotropic=False``).  It gives samples, valid moment bounds of ‖s‖ (exact when μ = 0, Minkowski
otherwise), and for the linear loss the truncated mean E[s𝕀_{‖s‖≤C}] (closed form for u = e_1 and d = 1; 1-D
quadrature in r with the sphere marginal in closed form otherwise) and the clipped mean E[Π_C(s)] (quadrature).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import integrate, stats
from scipy.special import betainc, betaln

from dpsco.reference.validation import as_float_vector, check_positive, check_positive_int, check_rng

__all__ = ["LomaxRadius", "ParetoRadius", "RadialLaw", "RadialVector", "StudentTRadius", "TruncatedParetoRadius",
           "fact1_bound", "sphere_marginal_cdf"]

_U_MIN = 1e-300
_QUAD = {"epsabs": 1e-13, "epsrel": 1e-11, "limit": 400}
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(96)


def _check_order(j: Any) -> float:
    return check_positive(j, "j", allow_zero=True)


def _check_C(C: Any) -> float:
    return check_positive(C, "C", allow_zero=True)


class RadialLaw(ABC):
    """A law of r ≥ 0 with closed-form partial moments T_j(C) = E[r^j 𝕀_{r > C}] (module docstring)."""

    @property
    @abstractmethod
    def tail_index(self) -> float:
        """E r^j < ∞ iff j < tail_index."""

    @property
    @abstractmethod
    def lower(self) -> float:
        """The lower end of the support."""

    @abstractmethod
    def tail_moment(self, j: float, C: float) -> float:
        """T_j(C) = E[r^j 𝕀_{r > C}] (+inf if j ≥ tail_index); j ≥ 0, C ≥ 0."""

    @abstractmethod
    def sf(self, t: Any) -> Any:
        """Pr[r > t]."""

    @abstractmethod
    def pdf(self, t: Any) -> Any:
        """The density of r."""

    @abstractmethod
    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. draws of r (float64, finite)."""

    @abstractmethod
    def scipy_distribution(self) -> Any:
        """(frozen scipy.stats distribution D, g) with r = g(D-draw): the independent reference for tests."""

    def moment(self, j: float) -> float:
        """E r^j (+inf if j ≥ tail_index)."""
        return self.tail_moment(j, 0.0)

    def tail_mean(self, C: float) -> float:
        """E[r𝕀_{r > C}] (the middle quantity of Fact 1)."""
        return self.tail_moment(1.0, C)

    def mean_excess(self, C: float) -> float:
        """E(r − C)_+ = E‖Π_C(X) − X‖ for ‖X‖ = r (the left side of Fact 1) = T_1(C) − C·Pr[r > C]."""
        C = _check_C(C)
        return max(self.tail_moment(1.0, C) - C * float(self.sf(C)), 0.0)

    def interval_moment(self, j: float, p: float, q: float) -> float:
        """E[r^j 𝕀_{p < r ≤ q}] for 0 ≤ p ≤ q (= T_j(p) − T_j(q))."""
        if q <= p:
            return 0.0
        return max(self.tail_moment(j, max(p, 0.0)) - self.tail_moment(j, q), 0.0)

    def cdf_interval(self, p: float, q: float) -> float:
        """Pr[p < r ≤ q]."""
        if q <= p:
            return 0.0
        return max(float(self.sf(max(p, 0.0))) - float(self.sf(q)), 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {"law": type(self).__name__, **{k: v for k, v in vars(self).items()}}


def _uniform_open(size: int, rng: np.random.Generator) -> np.ndarray:
    """U ∈ (0, 1], clipped below at 1e-300 so that U^{−1/α} stays finite."""
    return np.maximum(1.0 - rng.random(size), _U_MIN)


@dataclass(frozen=True)
class ParetoRadius(RadialLaw):
    """Pareto(α, x_m): Pr[r > t] = (x_m/t)^α for t ≥ x_m; α > 0, x_m > 0 (ValueError / TypeError naming them)."""

    alpha: float
    x_m: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", check_positive(self.alpha, "alpha"))
        object.__setattr__(self, "x_m", check_positive(self.x_m, "x_m"))

    @property
    def tail_index(self) -> float:
        return self.alpha

    @property
    def lower(self) -> float:
        return self.x_m

    def tail_moment(self, j: float, C: float) -> float:
        j, C = _check_order(j), _check_C(C)
        a, xm = self.alpha, self.x_m
        if j >= a:
            return math.inf
        if C <= xm:
            return a * xm**j / (a - j)
        # ∫_C^∞ t^j α x_m^α t^{−α−1} dt = α x_m^α C^{j−α}/(α − j)
        return a * xm**a * C ** (j - a) / (a - j)

    def sf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        out = np.where(t <= self.x_m, 1.0, (self.x_m / np.maximum(t, self.x_m)) ** self.alpha)
        return float(out) if out.ndim == 0 else out

    def pdf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        dens = self.alpha * self.x_m**self.alpha / np.maximum(t, self.x_m) ** (self.alpha + 1)
        out = np.where(t < self.x_m, 0.0, dens)
        return float(out) if out.ndim == 0 else out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        return self.x_m * _uniform_open(size, rng) ** (-1.0 / self.alpha)

    def scipy_distribution(self) -> Any:
        return stats.pareto(self.alpha, scale=self.x_m), lambda v: v


@dataclass(frozen=True)
class LomaxRadius(RadialLaw):
    """Lomax(α, x_m) (Pareto II): Pr[r > t] = (1 + t/x_m)^{−α}, t ≥ 0; α > 0, x_m > 0."""

    alpha: float
    x_m: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", check_positive(self.alpha, "alpha"))
        object.__setattr__(self, "x_m", check_positive(self.x_m, "x_m"))

    @property
    def tail_index(self) -> float:
        return self.alpha

    @property
    def lower(self) -> float:
        return 0.0

    def tail_moment(self, j: float, C: float) -> float:
        j, C = _check_order(j), _check_C(C)
        a, xm = self.alpha, self.x_m
        if j >= a:
            return math.inf
        v_c = 1.0 / (1.0 + C / xm)
        # r = x_m(1 − V)/V, V ~ Beta(α, 1): E[((1−V)/V)^j 𝕀_{V < v_C}] = α ∫_0^{v_C} (1 − v)^j v^{α−j−1} dv
        return xm**j * a * math.exp(betaln(a - j, j + 1.0)) * float(betainc(a - j, j + 1.0, v_c))

    def sf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        out = (1.0 + np.maximum(t, 0.0) / self.x_m) ** (-self.alpha)
        return float(out) if out.ndim == 0 else out

    def pdf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        out = np.where(t < 0, 0.0, self.alpha / self.x_m * (1.0 + np.maximum(t, 0.0) / self.x_m) ** (-self.alpha - 1))
        return float(out) if out.ndim == 0 else out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        return self.x_m * np.expm1(-np.log(_uniform_open(size, rng)) / self.alpha)

    def scipy_distribution(self) -> Any:
        return stats.lomax(self.alpha, scale=self.x_m), lambda v: v


@dataclass(frozen=True)
class StudentTRadius(RadialLaw):
    """r = ‖σZ√(ν/W)‖, the radius of a d-variate Student-t with ν degrees of freedom and scale σ (r²/(σ²d) ~
    F(d, ν)).  ν > 0, d ≥ 1 integer, scale > 0."""

    nu: float
    d: int
    scale: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "nu", check_positive(self.nu, "nu"))
        object.__setattr__(self, "d", check_positive_int(self.d, "d"))
        object.__setattr__(self, "scale", check_positive(self.scale, "scale"))

    @property
    def tail_index(self) -> float:
        return self.nu

    @property
    def lower(self) -> float:
        return 0.0

    def tail_moment(self, j: float, C: float) -> float:
        j, C = _check_order(j), _check_C(C)
        if j >= self.nu:
            return math.inf
        a, b, s2nu = self.d / 2.0, self.nu / 2.0, self.scale**2 * self.nu
        x_c = C * C / (C * C + s2nu)
        ratio = math.exp(betaln(a + j / 2, b - j / 2) - betaln(a, b))
        upper = 1.0 - float(betainc(a + j / 2, b - j / 2, x_c)) if x_c > 0 else 1.0
        return s2nu ** (j / 2) * ratio * upper

    def sf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        out = stats.f.sf(np.maximum(t, 0.0) ** 2 / (self.scale**2 * self.d), self.d, self.nu)
        return float(out) if np.ndim(out) == 0 else out

    def pdf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        c = self.scale**2 * self.d
        tp = np.maximum(t, 0.0)
        out = np.where(t < 0, 0.0, stats.f.pdf(tp**2 / c, self.d, self.nu) * 2 * tp / c)
        return float(out) if np.ndim(out) == 0 else out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        z2 = rng.chisquare(self.d, size)
        w = np.maximum(rng.chisquare(self.nu, size), _U_MIN)
        return self.scale * np.sqrt(z2 * self.nu / w)

    def scipy_distribution(self) -> Any:
        c = self.scale**2 * self.d
        return stats.f(self.d, self.nu), lambda v: np.sqrt(c * np.asarray(v))


@dataclass(frozen=True)
class TruncatedParetoRadius(RadialLaw):
    """Pareto(α, x_m) conditioned on r ≤ M (x_m < M): density α x_m^α r^{−α−1}/Z on [x_m, M], Z = 1 − (x_m/M)^α
    (scipy ``truncpareto(α, M/x_m, scale=x_m)``).  Bounded, so every moment is finite:
    T_j(C) = α x_m^α (M^{j−α} − c^{j−α})/((j − α)Z), c = max(C, x_m) (α log(M/c)·x_m^α/Z when j = α).
    Sampled by inversion, r = x_m(1 − UZ)^{−1/α}."""

    alpha: float
    x_m: float
    M: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "alpha", check_positive(self.alpha, "alpha"))
        object.__setattr__(self, "x_m", check_positive(self.x_m, "x_m"))
        object.__setattr__(self, "M", check_positive(self.M, "M"))
        if not self.M > self.x_m:
            raise ValueError(f"M must exceed x_m, got M = {self.M}, x_m = {self.x_m}")

    @property
    def _Z(self) -> float:
        return -math.expm1(self.alpha * math.log(self.x_m / self.M))

    @property
    def tail_index(self) -> float:
        return math.inf

    @property
    def lower(self) -> float:
        return self.x_m

    def tail_moment(self, j: float, C: float) -> float:
        j, C = _check_order(j), _check_C(C)
        a, xm, M = self.alpha, self.x_m, self.M
        if C >= M:
            return 0.0
        c = max(C, xm)
        if abs(j - a) < 1e-12:
            return a * xm**a * math.log(M / c) / self._Z
        return a * xm**a * (M ** (j - a) - c ** (j - a)) / ((j - a) * self._Z)

    def sf(self, t: Any) -> Any:
        t = np.clip(np.asarray(t, dtype=np.float64), self.x_m, self.M)
        out = ((self.x_m / t) ** self.alpha - (self.x_m / self.M) ** self.alpha) / self._Z
        out = np.clip(out, 0.0, 1.0)
        return float(out) if out.ndim == 0 else out

    def pdf(self, t: Any) -> Any:
        t = np.asarray(t, dtype=np.float64)
        inside = (t >= self.x_m) & (t <= self.M)
        tt = np.clip(t, self.x_m, self.M)
        out = np.where(inside, self.alpha * self.x_m**self.alpha * tt ** (-self.alpha - 1) / self._Z, 0.0)
        return float(out) if out.ndim == 0 else out

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        u = rng.random(size)
        return np.minimum(self.x_m * (1.0 - u * self._Z) ** (-1.0 / self.alpha), self.M)

    def scipy_distribution(self) -> Any:
        return stats.truncpareto(self.alpha, self.M / self.x_m, scale=self.x_m), lambda v: v


def fact1_bound(G_k: float, k: float, C: float) -> dict[str, float]:
    """The two right-hand sides around Fact 1 of Asi, Liu & Tian (2024) for E‖X‖^k ≤ G^k and C > 0:

    ``printed`` = G^k/((k − 1)C^{k−1}) (a valid bound on E(‖X‖ − C)_+, and what Fact 1 prints for E[‖X‖𝕀_{‖X‖≥C}]);
    ``corrected`` = G^k/C^{k−1} (Markov: ‖X‖𝕀_{‖X‖≥C} ≤ ‖X‖^k/C^{k−1}), the valid bound on E[‖X‖𝕀_{‖X‖≥C}]
    used for Lemma 7 and Proposition 3 (truncation drops whole samples)."""
    G_k, k, C = check_positive(G_k, "G_k"), check_positive(k, "k"), check_positive(C, "C")
    if k <= 1:
        raise ValueError(f"k must be > 1 (Fact 1), got {k}")
    return {"printed": G_k**k / ((k - 1) * C ** (k - 1)), "corrected": G_k**k / C ** (k - 1)}


def sphere_marginal_cdf(t: Any, d: int) -> Any:
    """Pr[⟨u, e⟩ ≤ t] for u uniform on the unit sphere of ℝ^d, d ≥ 2: ((⟨u, e⟩ + 1)/2 ~ Beta((d−1)/2, (d−1)/2))."""
    d = check_positive_int(d, "d")
    if d < 2:
        raise ValueError("d must be >= 2 for a continuous sphere marginal")
    h = (d - 1) / 2.0
    return betainc(h, h, np.clip((np.asarray(t, dtype=np.float64) + 1) / 2, 0.0, 1.0))


def _sphere_partial_t(t0: float, d: int) -> float:
    """E[⟨u, e⟩ 𝕀_{⟨u, e⟩ ≤ t0}] = −(1 − t0²)^{(d−1)/2} / ((d − 1) B(1/2, (d−1)/2)) for d ≥ 2."""
    t0 = min(max(t0, -1.0), 1.0)
    return -((1 - t0 * t0) ** ((d - 1) / 2)) / ((d - 1) * math.exp(betaln(0.5, (d - 1) / 2)))


@dataclass(frozen=True)
class RadialVector:
    """s = μ + r·u: r ~ ``law`` independent of u, u uniform on the unit sphere of ℝ^d (``isotropic``) or u = e_1.

    law : RadialLaw;  d ≥ 1;  mu : (d,) finite (default 0);  isotropic : bool.
    E s = μ + E r·E u = μ for the isotropic vector (E r < ∞ needed), μ + E r·e_1 otherwise."""

    law: RadialLaw
    d: int
    mu: Any = None
    isotropic: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.law, RadialLaw):
            raise TypeError(f"law must be a RadialLaw, got {type(self.law).__name__}")
        d = check_positive_int(self.d, "d")
        mu = np.zeros(d) if self.mu is None else as_float_vector(self.mu, "mu", d).copy()
        mu.setflags(write=False)
        if not isinstance(self.isotropic, (bool, np.bool_)):
            raise TypeError(f"isotropic must be a bool, got {type(self.isotropic).__name__}")
        if isinstance(self.law, StudentTRadius) and self.law.d != d:
            raise ValueError(f"a Student-t radius must have the vector's dimension: law.d = {self.law.d}, d = {d}")
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "mu", mu)

    @property
    def mu_norm(self) -> float:
        return float(np.linalg.norm(self.mu))

    def directions(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, d) unit vectors u (uniform on the sphere, or e_1)."""
        if not self.isotropic:
            out = np.zeros((n, self.d))
            out[:, 0] = 1.0
            return out
        g = rng.standard_normal((n, self.d))
        nrm = np.linalg.norm(g, axis=1, keepdims=True)
        while np.any(nrm == 0):  # probability zero; keeps the map defined
            bad = nrm[:, 0] == 0
            g[bad] = rng.standard_normal((int(bad.sum()), self.d))
            nrm = np.linalg.norm(g, axis=1, keepdims=True)
        return g / nrm

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, d) i.i.d. draws of s."""
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        r = self.law.sample(n, rng)
        return self.mu[None, :] + r[:, None] * self.directions(n, rng)

    def mean(self) -> np.ndarray:
        """E s (requires E r < ∞)."""
        m1 = self.law.moment(1.0)
        if not math.isfinite(m1):
            raise ValueError("E r is infinite: the vector has no mean")
        if self.isotropic:
            return self.mu.copy()
        out = self.mu.copy()
        out[0] += m1
        return out

    def affine_norm_moment(self, j: int, a: float = 0.0, b: float = 1.0) -> tuple[float, bool]:
        """(G, exact): G ≥ (E (a + b‖s‖)^j)^{1/j}, with equality (``exact``) when μ = 0 (binomial expansion in the
        exact moments E r^i), else the Minkowski bound a + b(‖μ‖ + (E r^j)^{1/j}).  j ≥ 1 integer, a, b ≥ 0."""
        j = check_positive_int(j, "j")
        a = check_positive(a, "a", allow_zero=True)
        b = check_positive(b, "b", allow_zero=True)
        mj = self.law.moment(float(j))
        if not math.isfinite(mj):
            return math.inf, True
        if self.mu_norm == 0.0:
            total = math.fsum(math.comb(j, i) * a ** (j - i) * b**i * self.law.moment(float(i)) for i in range(j + 1))
            return total ** (1.0 / j), True
        return a + b * (self.mu_norm + mj ** (1.0 / j)), False

    def norm_cdf(self, c: float) -> float:
        """Pr[‖s‖ ≤ c], c ≥ 0 (closed form for u = e_1 and d = 1; quadrature in r of the sphere marginal otherwise).
        With L̄_s = a + b‖s‖ it gives the surviving mass Pr[L̄_s ≤ C] of Algorithm 4's truncation."""
        c = _check_C(c)
        law = self.law
        if not self.isotropic or self.d == 1:
            signs = (1.0,) if not self.isotropic else (1.0, -1.0)
            return sum(law.cdf_interval(*self._line_interval(sg, c)) for sg in signs) / len(signs)
        m = self.mu_norm
        if m == 0.0:
            return 1.0 - float(law.sf(c))
        d = self.d

        def integrand(r: float) -> float:
            t0 = (c * c - m * m - r * r) / (2 * m * r) if r > 0 else (math.inf if m <= c else -math.inf)
            return float(law.pdf(r)) * float(sphere_marginal_cdf(t0, d))

        lo, hi = max(abs(m - c), law.lower), m + c
        val = 1.0 - float(law.sf(c - m)) if c > m else 0.0
        if hi > lo:
            val += integrate.quad(integrand, lo, hi, **_QUAD)[0]
        return min(max(val, 0.0), 1.0)

    # ----- the linear loss: truncated and clipped means (Lemma 3, Lemma 7, Proposition 3) -----------------

    def _line_interval(self, sign: float, C: float) -> tuple[float, float]:
        """The r-interval [r₋, r₊] (r ≥ 0) where ‖μ + sign·r·e_1‖ ≤ C; (0, 0) if empty."""
        m1 = sign * float(self.mu[0])
        disc = m1 * m1 - self.mu_norm**2 + C * C
        if disc < 0:
            return 0.0, 0.0
        lo, hi = -m1 - math.sqrt(disc), -m1 + math.sqrt(disc)
        return max(lo, 0.0), max(hi, 0.0)

    def truncated_mean(self, C: float) -> np.ndarray:
        """E[s𝕀_{‖s‖ ≤ C}] (d,), C ≥ 0: ∇F_P^C of the linear loss truncated at L̄_s = ‖s‖ ≤ C (Algorithm 4, (10)).

        u = e_1 or d = 1: closed form (the event is an r-interval; partial moments T_0, T_1).  Isotropic d ≥ 2:
        the component along μ̂ (the others vanish by symmetry), 1-D quadrature in r of the closed-form sphere
        marginal: ‖s‖ ≤ C ⟺ ⟨u, μ̂⟩ ≤ t₀(r) = (C² − ‖μ‖² − r²)/(2‖μ‖r)."""
        C = _check_C(C)
        law = self.law
        if not self.isotropic or self.d == 1:
            signs = (1.0,) if not self.isotropic else (1.0, -1.0)
            out = np.zeros(self.d)
            for sg in signs:
                lo, hi = self._line_interval(sg, C)
                # the event is lo ≤ r ≤ hi; r is continuous, so the interval's ends carry no mass
                p = law.cdf_interval(lo, hi)
                m = law.interval_moment(1.0, lo, hi)
                out += (self.mu * p + sg * m * np.eye(self.d)[0]) / len(signs)
            return out
        m = self.mu_norm
        if m == 0.0:
            return np.zeros(self.d)
        d = self.d

        def integrand(r: float) -> float:
            if r <= 0:
                return float(law.pdf(r)) * m * (1.0 if m <= C else 0.0)
            t0 = (C * C - m * m - r * r) / (2 * m * r)
            p = float(sphere_marginal_cdf(t0, d))
            return float(law.pdf(r)) * (m * p + r * _sphere_partial_t(t0, d))

        # r < C − m: ‖s‖ ≤ m + r < C surely, contributing μ·Pr[r < C − m] (E u = 0); r > m + C or r < m − C:
        # ‖s‖ ≥ |m − r| > C, no contribution; in between, the sphere marginal above (1-D quadrature in r)
        lo, hi = max(abs(m - C), law.lower), m + C
        val = m * (1.0 - float(law.sf(C - m))) if C > m else 0.0
        if hi > lo:
            val += integrate.quad(integrand, lo, hi, **_QUAD)[0]
        return val * self.mu / m

    def clipped_mean(self, C: float) -> np.ndarray:
        """E[Π_C(s)] (d,), C > 0, by quadrature: E s − E[(1 − C/‖s‖)_+ s].  The clipping bias of Lemma 3's
        population version is E s − E Π_C(s) (exact for the linear loss, where ∇f = s)."""
        C = check_positive(C, "C")
        law = self.law
        mean = self.mean()
        if not self.isotropic or self.d == 1:
            signs = (1.0,) if not self.isotropic else (1.0, -1.0)
            excess = np.zeros(self.d)
            e1 = np.eye(self.d)[0]
            for sg in signs:
                lo, hi = self._line_interval(sg, C)

                def comp(r: float, k: int, sg: float = sg) -> float:
                    s = self.mu + sg * r * e1
                    ns = float(np.linalg.norm(s))
                    return float(law.pdf(r)) * max(1 - C / ns, 0.0) * s[k] if ns > 0 else 0.0

                for k in range(self.d):
                    pieces = []
                    if lo > law.lower:
                        pieces.append((law.lower, lo))
                    pieces.append((max(hi, law.lower), math.inf))
                    excess[k] += sum(integrate.quad(comp, a_, b_, args=(k,), **_QUAD)[0] for a_, b_ in pieces
                                     if b_ > a_) / len(signs)
            return mean - excess
        m = self.mu_norm
        if m == 0.0:
            return np.zeros(self.d)
        d = self.d
        norm_c = math.exp(betaln(0.5, (d - 1) / 2))

        def inner(r: float) -> float:
            # E_u[(1 − C/‖s‖)_+ ⟨s, μ̂⟩] over θ ∈ [0, θ₀] where ‖s‖ > C ⟺ cos θ > t₀(r)
            t0 = (C * C - m * m - r * r) / (2 * m * r) if r > 0 else (-math.inf if m > C else math.inf)
            if t0 >= 1:
                return 0.0
            th0 = math.acos(max(t0, -1.0))
            th = 0.5 * th0 * (_GL_NODES + 1)
            t = np.cos(th)
            ns = np.sqrt(np.maximum(m * m + 2 * m * r * t + r * r, 0.0))
            g = np.maximum(1 - C / np.maximum(ns, 1e-300), 0.0) * (m + r * t) * np.sin(th) ** (d - 2)
            return float(law.pdf(r)) * 0.5 * th0 * float(_GL_WEIGHTS @ g) / norm_c

        split = m + C
        lo = law.lower
        val = 0.0
        if split > lo:
            val += integrate.quad(inner, lo, split, **_QUAD)[0]
        val += integrate.quad(inner, max(split, lo), math.inf, **_QUAD)[0]
        return mean - val * self.mu / m

    def to_dict(self) -> dict[str, Any]:
        return {"law": self.law.to_dict(), "d": self.d, "mu": self.mu.tolist(), "isotropic": bool(self.isotropic)}
