"""Heavy-tailed SCO instances with known population minimisers, for Asi, Liu & Tian (2024), and a certified
solver of the regularised ERM over B(0, R) ∩ B(x̄, r) (the subproblem of Lemma 5 / Corollary 2).

Asi, Liu & Tian (2024) contain no experiments; each instance below pairs a loss of
``dpsco.reference.alt24.losses`` with a heavy-tailed record law (``dpsco.oracles.alt24.heavy_tails``) and a domain
X = B(0, R), and gives

* ``sample(n, rng) -> S`` (n, p) records;
* ``moment_bounds``: a ``MomentBounds(k, G)`` with E[L_s^j] ≤ G_j^j for the exact L_s of the loss on X, and
  ``moment_bounds_exact`` (True: G_j^j = E[L_s^j] exactly; False: a valid upper bound, derivation in the class);
* ``population_risk(x)`` = F_P(x), ``minimiser()`` = x* = argmin_X F_P, ``excess(x)`` = F_P(x) − F_P(x*),
  ``minimiser_method`` ("closed form", "closed form (well-specified)" or "quadrature"), and
  ``regularised_minimiser(lam, xbar)`` = x*_{λ,x̄} = argmin_X F_P + (λ/2)‖x − x̄‖² ((7)) where closed form.

Derivations (u uniform on the unit sphere, E u = 0, E uuᵀ = I/d; Π_X the projection onto B(0, R)):

I1 linear, s = μ + r u:  F_P(x) = ⟨m, x⟩ with m = E s;  x* = −R m/‖m‖;  excess = ⟨m, x⟩ + R‖m‖;
   x*_{λ,x̄} = Π_X(x̄ − m/λ) (complete the square).  Truncation F_P^C(x) = ⟨E[s𝕀_{‖s‖≤C}], x⟩ (Algorithm 4 with
   f(·; s_0) = 0), so F_P − F_P^C has the constant gradient E[s𝕀_{‖s‖>C}]: its norm is exactly the Lipschitz
   constant that Lemma 7 bounds.
I2 mean estimation, ½‖x − s‖²:  F_P(x) = ½‖x − m‖² + ½(E‖s‖² − ‖m‖²);  x* = Π_X(m);
   x*_{λ,x̄} = Π_X((m + λx̄)/(1 + λ)).
I3 tilted quadratic, records [ξ, z], ξ = μ + r u, z ~ Unif(B(0, R_z)):  F_P(x) = ⟨m, x⟩ + (β₀/2)(‖x‖² + E‖z‖²),
   E‖z‖² = dR_z²/(d + 2);  x* = Π_X(−m/β₀);  x*_{λ,x̄} = Π_X((λx̄ − m)/(β₀ + λ)).
I4 LAD, a = r u, b = ⟨a, w*⟩ + e, e ~ N(0, τ²):  E_e|c − e| = φ(c) = τ√(2/π)e^{−c²/(2τ²)} + c(1 − 2Φ(−c/τ)), so
   F_P(x) = Ψ(‖x − w*‖), Ψ(ρ) = E_{r,t} φ(ρ r t) with t = ⟨u, e_1⟩; Ψ is increasing (φ even, convex), so x* =
   Π_X(w*).  Ψ by quadrature: Gauss–Legendre in θ (t = cos θ, weight sin^{d−2}θ) inside adaptive quadrature in r.
I5 least squares, same (a, b):  F_P(x) = (E r²/(2d))‖x − w*‖² + τ²/2;  x* = Π_X(w*);
   x*_{λ,x̄} = Π_X((σ²w* + λx̄)/(σ² + λ)), σ² = E r²/d.
I6 logistic GLM, a = r u with r Pareto truncated at M, y = ±1 with Pr[y = 1 | a] = expit(⟨a, w0⟩), s = −y a:
   the model is well specified, so F_P(x) − F_P(w0) = E_a KL(Bern(expit⟨a, w0⟩) ‖ Bern(expit⟨a, x⟩)) ≥ 0 and x* = w0
   for ‖w0‖ < R.  The excess is evaluated on a fixed pool of draws of a (common random numbers, exact in y).

Moment bounds (Assumption 1; monotone by construction, Lyapunov):  I1 L_s = ‖s‖ and I2 L_s = R + ‖s‖: exact for
μ = 0 (binomial expansion), Minkowski ‖μ‖ + (E r^j)^{1/j} otherwise.  I3 L_s = ‖ξ − β₀z‖ + β₀R ≤ ‖ξ‖ + β₀(R + R_z)
(Minkowski).  I4 L_s = ‖a‖ = r: exact.  I5 L_s = (R‖a‖ + |b|)‖a‖ ≤ (R + ‖w*‖)r² + |e|r, so
G_j ≤ (R + ‖w*‖)(E r^{2j})^{1/j} + (E|e|^j)^{1/j}(E r^j)^{1/j} (Minkowski, independence).  I6 L_s = ‖s‖expit(R‖s‖)
≤ r: G_j ≤ (E r^j)^{1/j}.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.oracles.population import uniform_sphere  # the shared sampler (re-exported)
from scipy import integrate, stats
from scipy.special import betaln, expit

from dpsco.oracles.alt24.heavy_tails import RadialLaw, RadialVector, TruncatedParetoRadius
from dpsco.reference.alt24.losses import (LADLoss, LeastSquaresLoss, LinearLoss, LogisticGLMLoss,
                                          MeanEstimationLoss, TiltedQuadraticLoss)
from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds
from dpsco.reference.projections import project_ball
from dpsco.reference.validation import as_float_vector, check_positive, check_positive_int, check_rng

__all__ = ["HeavyTailedInstance", "LADInstance", "LeastSquaresInstance", "LinearInstance", "LogisticInstance",
           "MeanEstimationInstance", "TiltedQuadraticInstance", "lad_phi", "uniform_sphere"]

_QUAD = {"epsabs": 1e-13, "epsrel": 1e-11, "limit": 400}
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(128)


def _project_ball(x: np.ndarray, R: float) -> np.ndarray:
    """Π_{B(0, R)}(x): the one core projection (dpsco.reference.projections.project_ball)."""
    return project_ball(x, R)


def _monotone(G: list[float]) -> tuple[float, ...]:
    out, run = [], 0.0
    for g in G:
        run = max(run, g)
        out.append(run)
    return tuple(out)


def _check_k(k: Any, law: RadialLaw, power: int = 1) -> int:
    k = check_positive_int(k, "k")
    if k < 2:
        raise ValueError(f"k must be >= 2 (Assumption 1), got {k}")
    if not power * k < law.tail_index:
        raise ValueError(f"k = {k} needs E r^{power * k} < ∞, but the radial law has only moments of order < "
                         f"{law.tail_index}")
    return k


class HeavyTailedInstance(ABC):
    """An instance (loss, record law, X = B(0, R), moment order k); see the module docstring."""

    name: str
    loss: HeavyTailedLoss
    radius: float
    d: int
    k: int
    moment_bounds_exact: bool
    minimiser_method: str

    @abstractmethod
    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, p) i.i.d. records."""

    @abstractmethod
    def _G(self, j: int) -> float:
        """(a bound on) (E L_s^j)^{1/j}."""

    @property
    def moment_bounds(self) -> MomentBounds:
        """MomentBounds(k, (G_1, …, G_k)) of L_s on X (exact or a valid bound: ``moment_bounds_exact``)."""
        return MomentBounds(self.k, _monotone([self._G(j) for j in range(1, self.k + 1)]))

    @abstractmethod
    def population_risk(self, x: Any) -> float:
        """F_P(x) for x (d,)."""

    @abstractmethod
    def minimiser(self) -> np.ndarray:
        """x* = argmin_{‖x‖ ≤ R} F_P(x)."""

    def excess(self, x: Any) -> float:
        """F_P(x) − F_P(x*) ≥ 0 (up to rounding)."""
        return self.population_risk(x) - self.population_risk(self.minimiser())

    def regularised_minimiser(self, lam: float, xbar: Any) -> np.ndarray:
        """x*_{λ,x̄} = argmin_X F_P(x) + (λ/2)‖x − x̄‖² ((7)); closed form where the instance has one."""
        raise NotImplementedError(f"{self.name}: no closed-form regularised population minimiser")

    def _x(self, x: Any, name: str = "x") -> np.ndarray:
        return as_float_vector(x, name, self.d)

    def _reg_args(self, lam: Any, xbar: Any) -> tuple[float, np.ndarray]:
        return check_positive(lam, "lam"), self._x(xbar, "xbar")

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "loss": self.loss.to_dict(), "radius": self.radius, "d": self.d,
                "moment_bounds": self.moment_bounds.to_dict(), "moment_bounds_exact": self.moment_bounds_exact,
                "minimiser": self.minimiser().tolist(), "minimiser_method": self.minimiser_method}


class _VectorInstance(HeavyTailedInstance):
    def __init__(self, vector: RadialVector, radius: float, k: int) -> None:
        if not isinstance(vector, RadialVector):
            raise TypeError(f"vector must be a RadialVector, got {type(vector).__name__}")
        self.vector = vector
        self.radius = check_positive(radius, "radius")
        self.d = vector.d
        self.k = _check_k(k, vector.law)
        self.moment_bounds_exact = vector.mu_norm == 0.0
        self.minimiser_method = "closed form"
        self._m = vector.mean()

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.vector.sample(n, rng)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "vector": self.vector.to_dict()}


class LinearInstance(_VectorInstance):
    """I1: f(x; s) = ⟨s, x⟩, s = μ + r u; L_s = ‖s‖.  Needs E s ≠ 0 for a unique minimiser (ValueError)."""

    name = "linear"

    def __init__(self, vector: RadialVector, radius: float, k: int) -> None:
        super().__init__(vector, radius, k)
        self.loss = LinearLoss()
        if float(np.linalg.norm(self._m)) == 0.0:
            raise ValueError("the linear instance needs E s ≠ 0 (every point of X minimises F_P = 0 otherwise)")

    def _G(self, j: int) -> float:
        return self.vector.affine_norm_moment(j, 0.0, 1.0)[0]

    def population_risk(self, x: Any) -> float:
        return float(self._m @ self._x(x))

    def minimiser(self) -> np.ndarray:
        return -self.radius * self._m / float(np.linalg.norm(self._m))

    def excess(self, x: Any) -> float:
        return float(self._m @ self._x(x)) + self.radius * float(np.linalg.norm(self._m))

    def regularised_minimiser(self, lam: float, xbar: Any) -> np.ndarray:
        lam, xbar = self._reg_args(lam, xbar)
        return _project_ball(xbar - self._m / lam, self.radius)

    def truncated_gradient(self, C: float) -> np.ndarray:
        """∇F_P^C = E[s𝕀_{‖s‖ ≤ C}] (Algorithm 4 truncation at L̄_s = ‖s‖ ≤ C, f(·; s_0) = 0)."""
        return self.vector.truncated_mean(C)

    def truncation_lipschitz(self, C: float) -> float:
        """The Lipschitz constant of F_P − F_P^C, exactly ‖E[s𝕀_{‖s‖ > C}]‖ (Lemma 7's left side)."""
        return float(np.linalg.norm(self._m - self.vector.truncated_mean(C)))

    def truncated_minimiser(self, C: float) -> np.ndarray:
        """argmin_X F_P^C = −R g/‖g‖, g = E[s𝕀_{‖s‖≤C}] (0 if g = 0)."""
        g = self.truncated_gradient(C)
        ng = float(np.linalg.norm(g))
        return np.zeros(self.d) if ng == 0 else -self.radius * g / ng

    def clipping_bias(self, C: float) -> np.ndarray:
        """E s − E Π_C(s): the population clipping bias of the linear loss (x-free; Lemma 3's b_D in mean)."""
        return self._m - self.vector.clipped_mean(C)


class MeanEstimationInstance(_VectorInstance):
    """I2: f(x; s) = ½‖x − s‖², s = μ + r u; L_s = R + ‖s‖; β = μ_sc = 1."""

    name = "mean_estimation"

    def __init__(self, vector: RadialVector, radius: float, k: int) -> None:
        super().__init__(vector, radius, k)
        _check_k(2, vector.law)  # F_P needs E r² < ∞
        self.loss = MeanEstimationLoss()
        v, law = vector, vector.law
        cross = 0.0 if v.isotropic else 2.0 * float(v.mu[0]) * law.moment(1.0)
        self._second = v.mu_norm**2 + cross + law.moment(2.0)  # E‖s‖²

    def _G(self, j: int) -> float:
        return self.vector.affine_norm_moment(j, self.radius, 1.0)[0]

    def population_risk(self, x: Any) -> float:
        x = self._x(x)
        return 0.5 * float(np.sum((x - self._m) ** 2)) + 0.5 * (self._second - float(self._m @ self._m))

    def minimiser(self) -> np.ndarray:
        return _project_ball(self._m, self.radius)

    def regularised_minimiser(self, lam: float, xbar: Any) -> np.ndarray:
        lam, xbar = self._reg_args(lam, xbar)
        return _project_ball((self._m + lam * xbar) / (1 + lam), self.radius)


    def truncated_minimiser(self, C: float, xbar: Any) -> np.ndarray:
        """argmin_X F_P^{C,μ} for Algorithm 4 with μ = 1 ((12)): samples with L̄_s = R + ‖s‖ > C are replaced by
        f(·; s_μ) = ½‖· − x̄‖², so F_P^{C,μ}(x) = ½E[‖x − s‖²𝕀_{‖s‖≤C−R}] + ½Pr[‖s‖ > C − R]‖x − x̄‖² (total weight 1)
        and its minimiser is Π_X(E[s𝕀_{‖s‖≤C−R}] + Pr[‖s‖ > C − R]·x̄).  C > 0; x̄ (d,) fixed in advance."""
        C = check_positive(C, "C")
        xbar = self._x(xbar, "xbar")
        c = C - self.radius
        if c < 0:
            return _project_ball(xbar, self.radius)
        keep = self.vector.norm_cdf(c)
        return _project_ball(self.vector.truncated_mean(c) + (1.0 - keep) * xbar, self.radius)


class TiltedQuadraticInstance(HeavyTailedInstance):
    """I3: records [ξ, z], f = ⟨ξ, x⟩ + (β₀/2)‖x − z‖², ξ = μ + r u, z ~ Unif(B(0, R_z)); β = μ_sc = β₀."""

    name = "tilted_quadratic"

    def __init__(self, xi: RadialVector, beta0: float, z_radius: float, radius: float, k: int) -> None:
        if not isinstance(xi, RadialVector):
            raise TypeError(f"xi must be a RadialVector, got {type(xi).__name__}")
        self.xi = xi
        self.loss = TiltedQuadraticLoss(beta0)
        self.beta0 = self.loss.beta0
        self.z_radius = check_positive(z_radius, "z_radius", allow_zero=True)
        self.radius = check_positive(radius, "radius")
        self.d = xi.d
        self.k = _check_k(k, xi.law)
        self.moment_bounds_exact = False
        self.minimiser_method = "closed form"
        self._m = xi.mean()

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        xi = self.xi.sample(n, rng)
        u = uniform_sphere(n, self.d, rng)
        z = u * (self.z_radius * rng.random(n) ** (1.0 / self.d))[:, None]
        return np.hstack([xi, z])

    def _G(self, j: int) -> float:
        return self.xi.affine_norm_moment(j, self.beta0 * (self.radius + self.z_radius), 1.0)[0]

    def population_risk(self, x: Any) -> float:
        x = self._x(x)
        ez2 = self.d * self.z_radius**2 / (self.d + 2)
        return float(self._m @ x) + 0.5 * self.beta0 * (float(x @ x) + ez2)

    def minimiser(self) -> np.ndarray:
        return _project_ball(-self._m / self.beta0, self.radius)

    def regularised_minimiser(self, lam: float, xbar: Any) -> np.ndarray:
        lam, xbar = self._reg_args(lam, xbar)
        return _project_ball((lam * xbar - self._m) / (self.beta0 + lam), self.radius)


class _RegressionInstance(HeavyTailedInstance):
    """a = r u (isotropic, centred), b = ⟨a, w*⟩ + e, e ~ N(0, τ²); records [a, b]."""

    def __init__(self, law: RadialLaw, d: int, w_star: Any, noise: float, radius: float, k: int,
                 power: int) -> None:
        if not isinstance(law, RadialLaw):
            raise TypeError(f"law must be a RadialLaw, got {type(law).__name__}")
        self.law = law
        self.d = check_positive_int(d, "d")
        self.a_vector = RadialVector(law, self.d)
        self.w_star = as_float_vector(w_star, "w_star", self.d).copy()
        self.noise = check_positive(noise, "noise")
        self.radius = check_positive(radius, "radius")
        self.k = _check_k(k, law, power)
        self.minimiser_method = "closed form"

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        a = self.a_vector.sample(n, rng)
        b = a @ self.w_star + self.noise * rng.standard_normal(check_positive_int(n, "n"))
        return np.hstack([a, b[:, None]])

    def minimiser(self) -> np.ndarray:
        return _project_ball(self.w_star, self.radius)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "law": self.law.to_dict(), "w_star": self.w_star.tolist(), "noise": self.noise}


def lad_phi(c: Any, tau: float) -> Any:
    """φ(c) = E|c − e| for e ~ N(0, τ²): τ√(2/π)e^{−c²/(2τ²)} + c(1 − 2Φ(−c/τ))."""
    c = np.asarray(c, dtype=np.float64)
    return tau * math.sqrt(2 / math.pi) * np.exp(-0.5 * (c / tau) ** 2) + c * (1 - 2 * stats.norm.cdf(-c / tau))


class LADInstance(_RegressionInstance):
    """I4: f = |⟨a, x⟩ − b|; L_s = ‖a‖ = r (moments exact); F_P by quadrature (module docstring)."""

    name = "lad"

    def __init__(self, law: RadialLaw, d: int, w_star: Any, noise: float, radius: float, k: int) -> None:
        super().__init__(law, d, w_star, noise, radius, k, power=1)
        self.loss = LADLoss()
        self.moment_bounds_exact = True
        self.minimiser_method = "closed form (F_P = Ψ(‖x − w*‖), Ψ increasing)"

    def _G(self, j: int) -> float:
        return self.law.moment(float(j)) ** (1.0 / j)

    def psi(self, rho: float) -> float:
        """Ψ(ρ) = E φ(ρ r t) (quadrature, relative accuracy ~1e-10)."""
        rho = check_positive(rho, "rho", allow_zero=True)
        tau, d, law = self.noise, self.d, self.law
        if rho == 0.0:
            return tau * math.sqrt(2 / math.pi)
        if d == 1:
            def inner(r: float) -> float:
                return float(law.pdf(r)) * float(lad_phi(rho * r, tau))
        else:
            th = 0.5 * math.pi * (_GL_NODES + 1)
            w = 0.5 * math.pi * _GL_WEIGHTS * np.sin(th) ** (d - 2) / math.exp(betaln(0.5, (d - 1) / 2))
            t = np.cos(th)

            def inner(r: float) -> float:
                return float(law.pdf(r)) * float(w @ lad_phi(rho * r * t, tau))
        lo = law.lower
        mid = max(lo, 1.0) * 10
        return (integrate.quad(inner, lo, mid, **_QUAD)[0] + integrate.quad(inner, mid, math.inf, **_QUAD)[0])

    def population_risk(self, x: Any) -> float:
        return self.psi(float(np.linalg.norm(self._x(x) - self.w_star)))


class LeastSquaresInstance(_RegressionInstance):
    """I5: f = ½(⟨a, x⟩ − b)²; L_s = (R‖a‖ + |b|)‖a‖ (needs E r^{2k} < ∞); F_P closed form."""

    name = "least_squares"

    def __init__(self, law: RadialLaw, d: int, w_star: Any, noise: float, radius: float, k: int) -> None:
        super().__init__(law, d, w_star, noise, radius, k, power=2)
        self.loss = LeastSquaresLoss()
        self.moment_bounds_exact = False
        self._sigma2 = law.moment(2.0) / self.d

    def _G(self, j: int) -> float:
        e_abs = stats.halfnorm(scale=self.noise).moment(j)
        return ((self.radius + float(np.linalg.norm(self.w_star))) * self.law.moment(2.0 * j) ** (1.0 / j)
                + e_abs ** (1.0 / j) * self.law.moment(float(j)) ** (1.0 / j))

    def population_risk(self, x: Any) -> float:
        x = self._x(x)
        return 0.5 * self._sigma2 * float(np.sum((x - self.w_star) ** 2)) + 0.5 * self.noise**2

    def regularised_minimiser(self, lam: float, xbar: Any) -> np.ndarray:
        lam, xbar = self._reg_args(lam, xbar)
        return _project_ball((self._sigma2 * self.w_star + lam * xbar) / (self._sigma2 + lam), self.radius)


@dataclass(frozen=True)
class _Pool:
    a: np.ndarray


class LogisticInstance(HeavyTailedInstance):
    """I6: f(x; s) = log(1 + e^{⟨s, x⟩}), s = −y a, a = r u with r ~ Pareto(α, x_m) truncated at M, y | a ~ the
    logistic model with parameter w0 (‖w0‖ < R).  β = M²/4 (declared through the loss, which refuses ‖s‖ > M).

    ``excess(x)`` is the mean KL over ``pool_size`` draws of a from a fixed SeedSequence(``pool_seed``) (common
    random numbers, exact in y); each term lies in [0, M‖x − w0‖], so the pool mean is within
    M‖x − w0‖·√(log(2/δ)/(2N)) of the true excess with probability ≥ 1 − δ (Hoeffding); ``excess_accuracy(x, δ)``."""

    name = "logistic_glm"

    def __init__(self, alpha: float, x_m: float, M: float, d: int, w0: Any, radius: float, k: int,
                 pool_size: int = 200_000, pool_seed: int = 20240101) -> None:
        self.law = TruncatedParetoRadius(alpha, x_m, M)
        self.d = check_positive_int(d, "d")
        self.loss = LogisticGLMLoss(M)
        self.radius = check_positive(radius, "radius")
        self.w0 = as_float_vector(w0, "w0", self.d).copy()
        if not float(np.linalg.norm(self.w0)) < self.radius:
            raise ValueError(f"w0 must lie inside B(0, R) (‖w0‖ < R = {self.radius}) for x* = w0")
        self.k = _check_k(k, self.law)
        self.moment_bounds_exact = False
        self.minimiser_method = "closed form (well-specified model: x* = w0)"
        self.pool_size = check_positive_int(pool_size, "pool_size")
        self._pool: _Pool | None = None
        self._pool_seed = pool_seed

    def _a(self, n: int, rng: np.random.Generator) -> np.ndarray:
        r = self.law.sample(n, rng)
        return r[:, None] * uniform_sphere(n, self.d, rng)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        a = self._a(n, rng)
        y = np.where(rng.random(n) < expit(a @ self.w0), 1.0, -1.0)
        return -y[:, None] * a

    def _G(self, j: int) -> float:
        return self.law.moment(float(j)) ** (1.0 / j)

    def _pool_a(self) -> np.ndarray:
        if self._pool is None:
            self._pool = _Pool(self._a(self.pool_size, np.random.default_rng(np.random.SeedSequence(self._pool_seed))))
        return self._pool.a

    def population_risk(self, x: Any) -> float:
        """F_P(x) on the pool: E_a[p log(1 + e^{−t}) + (1 − p) log(1 + e^{t})], t = ⟨a, x⟩, p = expit⟨a, w0⟩."""
        a = self._pool_a()
        t, p = a @ self._x(x), expit(a @ self.w0)
        return float(np.mean(p * np.logaddexp(0, -t) + (1 - p) * np.logaddexp(0, t)))

    def minimiser(self) -> np.ndarray:
        return self.w0.copy()

    def excess(self, x: Any) -> float:
        """Pool mean of KL(Bern(expit t0) ‖ Bern(expit t)) ≥ 0, t0 = ⟨a, w0⟩, t = ⟨a, x⟩."""
        a = self._pool_a()
        t, t0 = a @ self._x(x), a @ self.w0
        p = expit(t0)
        kl = p * (np.logaddexp(0, -t) - np.logaddexp(0, -t0)) + (1 - p) * (np.logaddexp(0, t) - np.logaddexp(0, t0))
        return float(np.mean(np.maximum(kl, 0.0)))

    def excess_accuracy(self, x: Any, delta: float = 1e-6) -> float:
        """Hoeffding half-width of ``excess(x)`` at confidence 1 − δ (class docstring)."""
        span = self.law.M * float(np.linalg.norm(self._x(x) - self.w0))
        return span * math.sqrt(math.log(2 / delta) / (2 * self.pool_size))
