"""Synthetic distributions with exactly known population risk and certified population minimisers.

The test distributions for the utility theorems of Bassily, Feldman, Talwar, Thakurta (2019), "Private
Stochastic Convex Optimization with Optimal Rates", NeurIPS (Theorems 3.2, 4.4 and 5.3), each with the derivation
of its population loss and minimiser below.  Every distribution gives

* ``sample(n, rng) -> (X, y)``: i.i.d. draws (randomness only from the explicit generator);
* ``bounds``: the declared :class:`dpsco.reference.problem.DataBounds` (‖x‖ ≤ x_max, |y| ≤ y_max), which hold by
  construction for every draw;
* ``population_loss(w)``: L(w) = E ℓ(w, z), exactly (finite support) or in closed form (incomplete beta
  functions), with a stated absolute accuracy ``loss_accuracy``;
* ``minimiser() -> PopulationMinimum(w, value, accuracy)``: a minimiser of L over W = B(0, M) with
  L(w) − accuracy ≤ min_W L ≤ L(w) (certified or exact), and ``excess_population_risk(w)`` = L(w) − L*.

Distributions
-------------
D1  :func:`d1_logistic`   K atoms on the sphere of radius X, P(y = 1 | x_k) = σ(⟨w⋆, x_k⟩), ‖w⋆‖ = M/2,
    logistic loss.  Finite support: L is an exact weighted sum over 2K (atom, label) pairs and its
    minimiser over B_M comes from :func:`dpsco.reference.solvers.certified_minimize` on those pairs.  Since
    the model is well specified, ∇L(w⋆) = Σ_k π_k x_k (σ(⟨w⋆, x_k⟩) − p_k) = 0, so w* = w⋆ (an exact
    cross-check of the certified solver; the constraint is inactive because ‖w⋆‖ = M/2).
D2  :func:`d2_least_squares`   x ~ Unif(sphere of radius X), y = ⟨w0, x⟩ + ξ, ξ ~ Unif[−s, s].
    E xxᵀ = (X²/d) I and E ξ² = s²/3, so L(w) = (X²/2d)‖w − w0‖² + s²/6 and the minimiser over B_M is
    Proj_{B_M}(w0) (isotropic quadratic).
D3  :func:`d3_absolute`   same (x, y), absolute loss.  For fixed c = ⟨w − w0, x⟩,
    E_ξ|ξ − c| = (s² + c²)/(2s) if |c| ≤ s, |c| otherwise; this is minimised at c = 0 (median of ξ), so w0
    is the minimiser (unique: the excess is 0 iff ⟨Δ, x⟩ = 0 a.s.) and
    L(w) − L(w0) = E_x h(⟨Δ, x⟩), h(c) = c²/(2s) (|c| ≤ s), |c| − s/2 (|c| > s).
Huber :func:`huber_symmetric`   same (x, y), Huber loss H_h.  g(c) := E_ξ H_h(c − ξ) is convex and *even*
    (ξ symmetric, H_h even), so it is minimised at c = 0; hence L(w) = E_x g(⟨w − w0, x⟩) ≥ g(0) = L(w0),
    with equality only at w = w0 (g''(0) = P(|ξ| ≤ h) > 0).  With Φ(r) = ∫₀ʳ H_h, g(c) =
    (Φ(c + s) − Φ(c − s))/(2s), a piecewise cubic in c.
D5  :func:`d5_hinge`   as D1 with the hinge loss.  The population minimiser comes from the certified
    solver (Clarabel primal + numpy duality gap) on the 2K weighted pairs.  ``envelope_loss`` gives the
    exact β-Moreau envelope population loss (ℝᵈ variant, closed form per atom).
Linear :func:`linear_mean`   x = m + ρU (U uniform on the unit sphere), ℓ = ⟨w, x⟩: L(w) = ⟨w, m⟩, minimised
    over B_M at −M m/‖m‖ with L* = −M‖m‖.

The sphere expectation.  For x uniform on the sphere of radius X in ℝᵈ and a fixed Δ ≠ 0,
u = ⟨Δ, x⟩/(X‖Δ‖) has density ∝ (1 − u²)^((d−3)/2) on [−1, 1] (d ≥ 2), i.e. u² ~ Beta(1/2, (d−1)/2).
For an even function f that is a polynomial Σ_k a_k |c|^k on each piece [c_j, c_{j+1}) of [0, ∞),

    E f(a u) = Σ_j Σ_k a_k a^k E[|u|^k ; c_j ≤ a|u| < c_{j+1}],
    E[|u|^k ; p ≤ |u| < q] = B((k+1)/2, b)/B(1/2, b) · (I_{q²}((k+1)/2, b) − I_{p²}((k+1)/2, b)),  b = (d−1)/2,

with I the regularised incomplete beta function (for d = 1, |u| = 1).  These closed forms replace a 1-D
quadrature over u; the tests check them against 30-digit mpmath quadrature.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple, Sequence

import numpy as np
from numpy.polynomial import Polynomial
from scipy.special import betainc, betaln, expit

from dpsco.reference.certificates import Certificate
from dpsco.reference.solvers import certified_minimize
from dpsco.reference.domains import Ball
from dpsco.reference.losses import AbsoluteLoss, GLMLoss, HingeLoss, HuberLoss, LinearLoss, LogisticLoss, SquaredLoss
from dpsco.reference.problem import DataBounds
from dpsco.reference.validation import as_float_matrix, as_float_vector, check_positive, check_positive_int, check_rng

__all__ = [
    "uniform_sphere",
    "FiniteSupportBinary",
    "LinearMean",
    "PopulationMinimum",
    "SphereRegression",
    "SyntheticDistribution",
    "d1_logistic",
    "d2_least_squares",
    "d3_absolute",
    "d5_hinge",
    "huber_symmetric",
    "linear_mean",
    "sphere_expectation",
]

_U = 2.0**-53


class PopulationMinimum(NamedTuple):
    """(w, value, accuracy): w ∈ W and value = L(w), with value − accuracy ≤ min_W L ≤ value."""

    w: np.ndarray
    value: float
    accuracy: float


class SyntheticDistribution(ABC):
    """A distribution over z = (x, y) with an exact population risk for a fixed loss and domain B(0, M)."""

    loss: GLMLoss
    radius: float

    @property
    def domain(self) -> Ball:
        return Ball(self.radius)

    @property
    @abstractmethod
    def dim(self) -> int:
        """d."""

    @property
    @abstractmethod
    def bounds(self) -> DataBounds:
        """Declared data bounds, satisfied by every draw."""

    @property
    @abstractmethod
    def loss_accuracy(self) -> float:
        """Absolute accuracy of :meth:`population_loss` (|computed − exact| ≤ loss_accuracy)."""

    @abstractmethod
    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. draws: X (n, d), y (n,)."""

    @abstractmethod
    def population_loss(self, w: Any) -> float:
        """L(w) = E ℓ(w, z) for w (d,)."""

    @abstractmethod
    def minimiser(self) -> PopulationMinimum:
        """A certified minimiser of L over B(0, M)."""

    def excess_population_risk(self, w: Any) -> float:
        """L(w) − L* (point value; see :meth:`excess_interval` for the certified enclosure)."""
        return self.population_loss(w) - self.minimiser().value

    def excess_interval(self, w: Any) -> tuple[float, float]:
        """[lo, hi] ∋ L(w) − min_W L, from the loss accuracy and the minimiser's accuracy."""
        m = self.minimiser()
        e = self.excess_population_risk(w)
        return e - 2 * self.loss_accuracy, e + m.accuracy + 2 * self.loss_accuracy

    def _w(self, w: Any) -> np.ndarray:
        return as_float_vector(w, "w", self.dim)

    def to_dict(self) -> dict[str, Any]:
        return {"type": type(self).__name__, "loss": self.loss.to_dict(), "radius": self.radius,
                "dim": self.dim, "bounds": self.bounds.to_dict()}


def uniform_sphere(n: int, d: int, rng: np.random.Generator, radius: float | None = None) -> np.ndarray:
    """(n, d) points uniform on the sphere of the given radius (normalised Gaussians, one standard-normal draw of
    shape (n, d), redrawn rows of norm 0).  ``radius`` None: the unit directions g/‖g‖ as computed (Asi, Liu &
    Tian's and Asi, Chadha, Cheng & Duchi's instances draw these); a number: radius·g/‖g‖ with ‖x‖ ≤ radius
    guaranteed in float64 (a row that rounds above it is scaled back).  The one sphere sampler of the oracles."""
    g = rng.standard_normal((n, d))
    nrm = np.linalg.norm(g, axis=1, keepdims=True)
    while np.any(nrm == 0):  # probability zero; keep the map well defined
        bad = nrm[:, 0] == 0
        g[bad] = rng.standard_normal((int(bad.sum()), d))
        nrm = np.linalg.norm(g, axis=1, keepdims=True)
    if radius is None:
        return g / nrm
    x = radius * g / nrm
    # guard the declared bound against rounding: ‖x‖ ≤ radius exactly in float64
    over = np.linalg.norm(x, axis=1) > radius
    if np.any(over):
        x[over] *= 1.0 - 4 * _U
    return x


# ================================================================================================
# Finite support, binary labels (D1, D5)
# ================================================================================================


@dataclass(frozen=True, eq=False)
class FiniteSupportBinary(SyntheticDistribution):
    """x takes the value atoms[k] with probability atom_weights[k]; y = +1 w.p. p_pos[k], else −1.

    Parameters
    ----------
    loss : GLMLoss with binary labels (logistic, hinge)
    atoms : (K, d) array
    atom_weights : (K,) non-negative array, normalised to sum 1
    p_pos : (K,) array in [0, 1]
    radius : float, the domain radius M
    x_max : float, declared bound on ‖x‖ (≥ max ‖atom‖)

    The population loss is the exact finite sum L(w) = Σ_k π_k [p_k φ(⟨w, x_k⟩, 1) + (1 − p_k) φ(⟨w, x_k⟩, −1)]
    (correctly rounded ``fsum``; ``loss_accuracy`` is a first-order rounding bound).  The minimiser
    over B_M is certified by :func:`dpsco.reference.solvers.certified_minimize` on the 2K weighted pairs.
    """

    loss: GLMLoss
    atoms: np.ndarray
    atom_weights: np.ndarray
    p_pos: np.ndarray
    radius: float
    x_max: float
    w_star: np.ndarray | None = None
    tol: float = 1e-10

    def __post_init__(self) -> None:
        if not isinstance(self.loss, GLMLoss) or not self.loss.binary_labels:
            raise TypeError("loss must be a GLMLoss with labels in {-1, +1} (logistic or hinge)")
        A = as_float_matrix(self.atoms, "atoms")
        K = A.shape[0]
        pw = as_float_vector(self.atom_weights, "atom_weights", K)
        if np.any(pw < 0) or not pw.sum() > 0:
            raise ValueError("atom_weights must be non-negative and not all zero")
        p = as_float_vector(self.p_pos, "p_pos", K)
        if np.any((p < 0) | (p > 1)):
            raise ValueError("p_pos must lie in [0, 1]")
        M = check_positive(self.radius, "radius")
        xm = check_positive(self.x_max, "x_max")
        if np.max(np.linalg.norm(A, axis=1)) > xm:
            raise ValueError("atoms violate the declared bound ‖x‖ ≤ x_max")
        object.__setattr__(self, "atoms", A)
        object.__setattr__(self, "atom_weights", pw / math.fsum(pw.tolist()))
        object.__setattr__(self, "p_pos", p)
        object.__setattr__(self, "radius", M)
        object.__setattr__(self, "x_max", xm)

    @property
    def dim(self) -> int:
        return int(self.atoms.shape[1])

    @property
    def bounds(self) -> DataBounds:
        return DataBounds(self.x_max, 1.0)

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The 2K (atom, label) pairs with their probabilities: X2 (2K, d), y2 (2K,), weights (2K,)."""
        K = self.atoms.shape[0]
        X2 = np.vstack([self.atoms, self.atoms])
        y2 = np.concatenate([np.ones(K), -np.ones(K)])
        w2 = np.concatenate([self.atom_weights * self.p_pos, self.atom_weights * (1.0 - self.p_pos)])
        return X2, y2, w2

    @property
    def loss_accuracy(self) -> float:
        # fsum is correctly rounded; each term π·p·φ carries ≤ 3 roundings plus φ's own (≤ 8u) error,
        # and s = ⟨w, x⟩ an error ≤ γ_d ‖x‖‖w‖ (|φ'| ≤ 1 for logistic and hinge).
        return float(16 * _U * (1.0 + self.x_max * self.radius) * (self.dim + 4))

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        idx = rng.choice(self.atoms.shape[0], size=n, p=self.atom_weights)
        y = np.where(rng.random(n) < self.p_pos[idx], 1.0, -1.0)
        return self.atoms[idx].copy(), y

    def population_loss(self, w: Any) -> float:
        wv = self._w(w)
        X2, y2, w2 = self.pairs()
        return math.fsum((w2 * self.loss.phi(X2 @ wv, y2)).tolist())

    @cached_property
    def _solution(self) -> Any:
        X2, y2, w2 = self.pairs()
        return certified_minimize(self.loss, X2, y2, Ball(self.radius), weights=w2, tol=self.tol)

    @property
    def certificate(self) -> Certificate:
        """The certificate of the population minimiser (gap and, when available, distance bounds)."""
        return self._solution.certificate

    def minimiser(self) -> PopulationMinimum:
        sol = self._solution
        w = sol.w.copy()
        value = self.population_loss(w)
        return PopulationMinimum(w, value, sol.certificate.gap_bound + 2 * self.loss_accuracy)

    def envelope_loss(self, w: Any, beta: float) -> float:
        """Exact population β-Moreau envelope E ℓ_β(w, z) (ℝᵈ variant, Bassily et al. 2019, Def. 4.1)."""
        wv = self._w(w)
        b = check_positive(beta, "beta")
        X2, y2, w2 = self.pairs()
        vals = self.loss.envelope_value(np.broadcast_to(wv, X2.shape), X2, y2, b)
        return math.fsum((w2 * vals).tolist())

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update({"K": int(self.atoms.shape[0]),
                  "w_star": None if self.w_star is None else np.asarray(self.w_star).tolist()})
        return d


def _logistic_model(loss: GLMLoss, d: int, K: int, x_max: float, radius: float,
                    rng: np.random.Generator, w_star: Any | None, tol: float) -> FiniteSupportBinary:
    d = check_positive_int(d, "d")
    K = check_positive_int(K, "K")
    x_max = check_positive(x_max, "x_max")
    radius = check_positive(radius, "radius")
    rng = check_rng(rng)
    atoms = uniform_sphere(K, d, rng, x_max)
    if w_star is None:
        u = rng.standard_normal(d)
        ws = 0.5 * radius * u / np.linalg.norm(u)
    else:
        ws = as_float_vector(w_star, "w_star", d)
        if np.linalg.norm(ws) > radius:
            raise ValueError("w_star must lie in the domain B(0, radius)")
    p = expit(atoms @ ws)
    return FiniteSupportBinary(loss, atoms, np.full(K, 1.0 / K), p, radius, x_max, w_star=ws, tol=tol)


def d1_logistic(d: int, *, K: int = 200, x_max: float = 1.0, radius: float = 1.0,
                rng: np.random.Generator, w_star: Any | None = None, tol: float = 1e-10) -> FiniteSupportBinary:
    """D1 (module docstring): logistic loss, K atoms uniform on the sphere of radius x_max (drawn from ``rng``),
    P(y = 1 | x_k) = σ(⟨w⋆, x_k⟩) with ‖w⋆‖ = radius/2 (random direction unless ``w_star`` given).

    The population minimiser over B(0, radius) is w⋆ itself (well-specified model; module docstring),
    and is independently certified.
    """
    return _logistic_model(LogisticLoss(), d, K, x_max, radius, rng, w_star, tol)


def d5_hinge(d: int, *, K: int = 200, x_max: float = 1.0, radius: float = 1.0,
             rng: np.random.Generator, w_star: Any | None = None, tol: float = 1e-10) -> FiniteSupportBinary:
    """D5 (module docstring): as :func:`d1_logistic` with the hinge loss; minimiser certified by duality gap."""
    return _logistic_model(HingeLoss(), d, K, x_max, radius, rng, w_star, tol)


# ================================================================================================
# Sphere regression models (D2, D3, Huber)
# ================================================================================================


def _moment(k: int, p: float, q: float, d: int) -> float:
    """E[|u|^k ; p ≤ |u| < q] for u = first coordinate of a uniform point on S^{d−1} (0 ≤ p ≤ q ≤ ∞)."""
    if d == 1:
        return 1.0 if (p <= 1.0 < q) else 0.0
    p = min(max(p, 0.0), 1.0)
    q = min(q, 1.0)
    if q <= p:
        return 0.0
    b = 0.5 * (d - 1)
    a = 0.5 * (k + 1)
    ratio = math.exp(betaln(a, b) - betaln(0.5, b))
    return ratio * (float(betainc(a, b, q * q)) - float(betainc(a, b, p * p)))


def sphere_expectation(pieces: Sequence[tuple[float, float, Polynomial]], a: float, d: int) -> float:
    """E f(a u) for an even f given on [0, ∞) by polynomial pieces, u as in the module docstring.

    Parameters
    ----------
    pieces : sequence of (c_lo, c_hi, Polynomial in c) covering [0, ∞) in order (c_hi may be inf)
    a : float ≥ 0, the scale X‖Δ‖
    d : int ≥ 1

    Returns
    -------
    float
    """
    if a == 0.0:
        return float(pieces[0][2](0.0))
    total = []
    for lo, hi, poly in pieces:
        for k, coef in enumerate(poly.coef):
            if coef == 0.0:
                continue
            m = _moment(k, lo / a, hi / a if math.isfinite(hi) else math.inf, d)
            if m != 0.0:
                total.append(float(coef) * a**k * m)
    return math.fsum(total)


@dataclass(frozen=True, eq=False)
class SphereRegression(SyntheticDistribution):
    """x ~ Unif(sphere of radius x_max in ℝᵈ), y = ⟨w0, x⟩ + ξ, ξ ~ Unif[−s, s] independent of x.

    Supported losses: squared (D2), absolute (D3), huber (any threshold).  Declared bounds:
    ‖x‖ ≤ x_max, |y| ≤ x_max‖w0‖ + s.  ``population_loss`` is in closed form (see module docstring);
    its accuracy ``loss_accuracy`` is 1e-12·(1 + L) (validated against 30-digit quadrature in the tests;
    the incomplete beta function is accurate to ~1e-15 relative).
    """

    loss: GLMLoss
    w0: np.ndarray
    noise: float
    x_max: float
    radius: float

    def __post_init__(self) -> None:
        if self.loss.name not in ("squared", "absolute", "huber"):
            raise ValueError(f"loss must be squared, absolute or huber, got {self.loss.name}")
        w0 = as_float_vector(self.w0, "w0")
        s = check_positive(self.noise, "noise")
        xm = check_positive(self.x_max, "x_max")
        M = check_positive(self.radius, "radius")
        if self.loss.name != "squared" and np.linalg.norm(w0) > M:
            raise ValueError("w0 must lie in B(0, radius) for the absolute and Huber models "
                             "(their constrained minimiser is then w0)")
        object.__setattr__(self, "w0", w0)
        object.__setattr__(self, "noise", s)
        object.__setattr__(self, "x_max", xm)
        object.__setattr__(self, "radius", M)

    @property
    def dim(self) -> int:
        return int(self.w0.shape[0])

    @property
    def bounds(self) -> DataBounds:
        return DataBounds(self.x_max, self.x_max * float(np.linalg.norm(self.w0)) + self.noise)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        X = uniform_sphere(n, self.dim, rng, self.x_max)
        xi = rng.uniform(-self.noise, self.noise, size=n)
        y = X @ self.w0 + xi
        ymax = self.bounds.y_max
        return X, np.clip(y, -ymax, ymax)  # clip only guards float rounding at the bound

    # -- g(c) = E_ξ φ(c − ξ) as an even piecewise polynomial on [0, ∞) -----------------------------------
    @cached_property
    def _pieces(self) -> list[tuple[float, float, Polynomial]]:
        s = self.noise
        name = self.loss.name
        if name == "squared":
            # ½E(c − ξ)² = c²/2 + s²/6
            return [(0.0, math.inf, Polynomial([s * s / 6.0, 0.0, 0.5]))]
        if name == "absolute":
            return [(0.0, s, Polynomial([s / 2.0, 0.0, 1.0 / (2.0 * s)])),
                    (s, math.inf, Polynomial([0.0, 1.0]))]
        h = float(self.loss.threshold)  # type: ignore[attr-defined]
        # Φ(r) = ∫₀ʳ H_h on the three pieces of r
        phi_mid = Polynomial([0.0, 0.0, 0.0, 1.0 / 6.0])
        phi_hi = Polynomial([h**3 / 6.0, -h * h / 2.0, h / 2.0])
        phi_lo = Polynomial([-h**3 / 6.0, -h * h / 2.0, -h / 2.0])

        def piece_of(r: float) -> Polynomial:
            return phi_lo if r < -h else (phi_mid if r <= h else phi_hi)

        cuts = sorted({0.0} | {c for c in (h - s, -h - s, h + s, s - h) if c > 0})
        bounds = cuts + [math.inf]
        out = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            mid = lo + 1.0 if not math.isfinite(hi) else 0.5 * (lo + hi)
            p_plus = piece_of(mid + s)(Polynomial([s, 1.0]))
            p_minus = piece_of(mid - s)(Polynomial([-s, 1.0]))
            out.append((lo, hi, (p_plus - p_minus) / (2.0 * s)))
        return out

    @property
    def loss_accuracy(self) -> float:
        return 1e-12 * (1.0 + self.minimum_value)

    @cached_property
    def _g0(self) -> float:
        """g(0) = E_ξ φ(ξ): s²/6 (squared), s/2 (absolute), Φ(s)/s (Huber)."""
        return float(self._pieces[0][2](0.0))

    @cached_property
    def minimum_value(self) -> float:
        """L* = min over B(0, M): g(0), plus (X²/2d)‖Proj(w0) − w0‖² for the squared loss."""
        return self._g0 + self._shift_excess(self.minimiser_point)

    def _shift_excess(self, w: np.ndarray) -> float:
        """L(w) − g(0) = E g(⟨w − w0, x⟩) − g(0), computed without cancellation near w0."""
        if self.loss.name == "squared":
            return self.x_max**2 / (2 * self.dim) * float(np.sum((w - self.w0) ** 2))
        a = self.x_max * float(np.linalg.norm(w - self.w0))
        pieces = []
        for j, (lo, hi, poly) in enumerate(self._pieces):
            c = poly.coef.copy()
            c[0] = 0.0 if j == 0 else c[0] - self._g0  # first piece: its constant term is g(0) exactly
            pieces.append((lo, hi, Polynomial(c)))
        return sphere_expectation(pieces, a, self.dim)

    def population_loss(self, w: Any) -> float:
        return self._g0 + self._shift_excess(self._w(w))

    def excess_population_risk(self, w: Any) -> float:
        wv = self._w(w)
        return self._shift_excess(wv) - self._shift_excess(self.minimiser_point)

    @cached_property
    def minimiser_point(self) -> np.ndarray:
        """w0 (absolute, Huber: by symmetry) or Proj_{B_M}(w0) (squared: isotropic quadratic)."""
        return self.domain.project(self.w0) if self.loss.name == "squared" else self.w0.copy()

    def minimiser(self) -> PopulationMinimum:
        """Exact minimiser (closed form); ``accuracy`` = 2·``loss_accuracy``."""
        w = self.minimiser_point.copy()
        return PopulationMinimum(w, self.minimum_value, 2 * self.loss_accuracy)

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d.update({"w0": self.w0.tolist(), "noise": self.noise, "noise_law": "uniform[-s, s]"})
        return d


def _sphere_model(loss: GLMLoss, d: int, x_max: float, radius: float, w0: Any | None, noise: float,
                  rng: np.random.Generator | None) -> SphereRegression:
    d = check_positive_int(d, "d")
    radius = check_positive(radius, "radius")
    if w0 is None:
        if rng is None:
            raise ValueError("give w0 or an rng to draw it (‖w0‖ = radius/2)")
        u = check_rng(rng).standard_normal(d)
        w0 = 0.5 * radius * u / np.linalg.norm(u)
    return SphereRegression(loss, as_float_vector(w0, "w0", d), noise, x_max, radius)


def d2_least_squares(d: int, *, x_max: float = 1.0, radius: float = 1.0, noise: float = 0.5,
                     w0: Any | None = None, rng: np.random.Generator | None = None) -> SphereRegression:
    """D2 (module docstring): squared loss; L(w) = (X²/2d)‖w − w0‖² + s²/6 exactly."""
    return _sphere_model(SquaredLoss(), d, x_max, radius, w0, noise, rng)


def d3_absolute(d: int, *, x_max: float = 1.0, radius: float = 1.0, noise: float = 0.5,
                w0: Any | None = None, rng: np.random.Generator | None = None) -> SphereRegression:
    """D3 (module docstring): absolute loss with uniform (symmetric) noise; minimiser w0, closed-form excess."""
    return _sphere_model(AbsoluteLoss(), d, x_max, radius, w0, noise, rng)


def huber_symmetric(d: int, *, threshold: float = 1.0, x_max: float = 1.0, radius: float = 1.0,
                    noise: float = 0.5, w0: Any | None = None,
                    rng: np.random.Generator | None = None) -> SphereRegression:
    """Huber loss with uniform (symmetric) noise; minimiser w0 by symmetry (module docstring)."""
    return _sphere_model(HuberLoss(threshold), d, x_max, radius, w0, noise, rng)


# ================================================================================================
# Linear loss
# ================================================================================================


@dataclass(frozen=True, eq=False)
class LinearMean(SyntheticDistribution):
    """x = m + ρU, U uniform on the unit sphere; ℓ(w, x) = ⟨w, x⟩ (y ≡ 0 is ignored).

    L(w) = ⟨w, m⟩; over B_M the minimiser is −M m/‖m‖ and L* = −M‖m‖ (Cauchy–Schwarz).
    Declared bound ‖x‖ ≤ ‖m‖ + ρ.
    """

    mean: np.ndarray
    spread: float
    radius: float
    loss: GLMLoss = field(default_factory=LinearLoss)

    def __post_init__(self) -> None:
        m = as_float_vector(self.mean, "mean")
        if not np.linalg.norm(m) > 0:
            raise ValueError("mean must be non-zero (otherwise every w minimises L)")
        object.__setattr__(self, "mean", m)
        object.__setattr__(self, "spread", check_positive(self.spread, "spread", allow_zero=True))
        object.__setattr__(self, "radius", check_positive(self.radius, "radius"))

    @property
    def dim(self) -> int:
        return int(self.mean.shape[0])

    @property
    def bounds(self) -> DataBounds:
        return DataBounds(float(np.linalg.norm(self.mean)) * (1 + 4 * _U) + self.spread, 0.0)

    @property
    def loss_accuracy(self) -> float:
        return float(4 * (self.dim + 1) * _U * self.radius * np.sum(np.abs(self.mean)))

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        X = self.mean + uniform_sphere(n, self.dim, rng, 1.0) * self.spread
        return X, np.zeros(n)

    def population_loss(self, w: Any) -> float:
        return float(self._w(w) @ self.mean)

    def minimiser(self) -> PopulationMinimum:
        nm = float(np.linalg.norm(self.mean))
        w = -self.radius * self.mean / nm
        w = Ball(self.radius).project(w)
        return PopulationMinimum(w, self.population_loss(w), 2 * self.loss_accuracy)


def linear_mean(mean: Any, *, spread: float = 0.0, radius: float = 1.0) -> LinearMean:
    """The linear-loss distribution x = mean + spread·U (see :class:`LinearMean`)."""
    return LinearMean(as_float_vector(mean, "mean"), spread, radius)
