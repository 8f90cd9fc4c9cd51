"""Certified minimisers of regularised, ball-constrained GLM objectives.

The objective (``weights`` default to the uniform π_i = 1/n)::

    F(w) = Σ_i π_i φ(⟨w, x_i⟩, y_i) + ⟨c, w⟩ + lam·‖w‖²,      w ∈ W = B(0, M)

for any :class:`dpsco.reference.losses.GLMLoss` φ (logistic, squared, huber, hinge, absolute, linear), a linear
term ``c`` (``linear``, default 0), ``lam ≥ 0`` and a radius ``M ∈ (0, ∞]``.

Algorithms that need the *exact* minimiser (objective perturbation, output perturbation, localisation) get
it from :func:`certified_minimize`, which returns a point together with an a-posteriori certificate and
refuses (:class:`UncertifiedError`) to return an uncertified answer (DESIGN.md, "Exact means certified").

How the point is found (the certificate does not depend on it)
--------------------------------------------------------------
* Smooth losses (logistic, squared, huber, linear): damped Newton in float64 with Armijo backtracking.
  If the unconstrained minimiser lies in W we are done.  Otherwise the ball constraint is active and we
  solve the secular equation ‖w(ν)‖ = M for the multiplier ν > 0, where w(ν) minimises the strongly
  convex F + (ν/2)‖w‖² (each w(ν) by warm-started Newton; ν by safeguarded Newton on 1/‖w(ν)‖ − 1/M,
  the Moré–Sorensen form, with a geometric-bisection fallback inside a bracket).  KKT: w* = w(ν*).
* Non-smooth losses (hinge, absolute): Newton does not apply.  The primal point comes from cvxpy/Clarabel
  on the auxiliary-variable formulation ``min Σ π_i φ(s_i) + r(w)  s.t.  s = Xw``; the dual variable of
  the equality constraint gives α_i = −(dual_i)/π_i ∈ ∂φ(s_i).  Both losses are piecewise linear with
  their kink at s = y, so the KKT conditions restricted to the kink set K = {i : s_i ≈ y_i} form a square
  (bi)linear system in (w, α_K, κ); a few Newton/least-squares steps on it ("active-set polish") bring
  the point to float precision.  Every candidate (Clarabel's raw point and the polished ones) is then
  certified by an *independent numpy duality gap* and the best is kept (Clarabel's own status and
  tolerances are not trusted: ``optimal_inaccurate`` candidates are allowed here because only the numpy
  certificate decides).

The certificate (:func:`certify`, valid for any feasible w, however it was found)
-----------------------------------------------------------------------------------
Write F(w) = Σ π_i φ_i(⟨x_i, w⟩) + r(w) with r(w) = ⟨c, w⟩ + lam‖w‖² + ι{‖w‖ ≤ M}.

1. **Fenchel duality gap** (every loss, every dual point α with α_i ∈ dom φ_i*):
   D(α) = −Σ π_i φ_i*(α_i) − r*(−Xᵀ(πα)) ≤ F*, so F(w) − F* ≤ F(w) − D(α).  The gap is evaluated as
   the sum of the non-negative Fenchel–Young terms, which avoids the cancellation of F(w) − D(α)::

       F(w) − D(α) = Σ π_i [φ_i(s_i) + φ_i*(α_i) − α_i s_i] + Γ_{2·lam}(g_α),   g_α = Xᵀ(πα) + c + 2·lam·w,

   where Γ_μ(g) := max_{v∈W} ⟨−g, v − w⟩ − (μ/2)‖v − w‖² is the Fenchel–Young gap of r.  For μ = 0 this is
   the Frank–Wolfe gap M‖g‖ + ⟨g, w⟩.  Γ is evaluated through its (exact) Lagrangian dual
   Γ_μ(g) = min_{κ ≥ 0} κ(M² − ‖w‖²)/2 + ‖g + κw‖²/(2(μ + κ)): every κ gives a valid upper bound, and the
   terms are computed without cancellation even when w sits on the sphere.
2. **Strong-convexity gap** (smooth losses): with g = ∇F(w) and F μ-strongly convex,
   F* ≥ F(w) − Γ_μ(g).  For α = φ'(Xw) the Fenchel–Young terms of the loss vanish and route 1 gives
   exactly this bound with μ = 2·lam ("data curvature ignored", conservative).
   The *local* modulus μ_r = λ_min(Σ π_i m_i x_i x_iᵀ) + 2·lam, with m_i the infimum of φ'' over the
   interval that ⟨x_i, v⟩ sweeps for v ∈ B(w, r), is also tried (logistic, squared, huber; it gives
   distance bounds even for lam = 0 and certifies existence of a minimiser when M = ∞):
   if min(‖g‖·r, Γ_0(g)) < μ_r r²/2 then every minimiser lies in B(w, r) (and one exists, even for
   M = ∞), and the bounds below hold with μ = μ_r.
3. **Distance** (μ > 0, from route 1 or 2): F(w) − F* ≥ (μ/2)‖w − w*‖² gives ‖w − w*‖ ≤ √(2·gap/μ).
   For smooth losses with an (upper) smoothness constant β_F of F we also use the linear bound
   ‖w − w*‖ ≤ (1 + √(β_F/μ − 1))·‖v̂ − w‖, v̂ = Proj_W(w − g/μ), which does not lose a square root when
   the constraint is active.  Proof: with Q(v) = F(w) + ⟨g, v − w⟩ + (μ/2)‖v − w‖², v̂ = argmin_W Q,
   F(w*) ≥ Q(w*) ≥ Q(v̂) + (μ/2)‖w* − v̂‖² and F(w*) ≤ F(v̂) ≤ Q(v̂) + ((β_F − μ)/2)‖v̂ − w‖².

Floating point.  All certificate sums are computed with ``math.fsum`` (correctly rounded), and every
bound carries a first-order rounding allowance (Higham, *Accuracy and Stability of Numerical Algorithms*,
2nd ed., §3.1: |fl(xᵀw) − xᵀw| ≤ γ_d |x|ᵀ|w|, γ_k = ku/(1 − ku), u = 2⁻⁵³), inflated by a factor of 2;
the elementary functions (exp, log1p, expit) are assumed accurate to 8u relative; eigenvalues from the
backward-stable ``eigvalsh`` are corrected by 10·d·u·‖H‖.  The certificate is therefore a bound for the
problem with the float64 data and float64 weights π as given (uniform weights are π_i = fl(1/n)).

References: Boyd & Vandenberghe, *Convex Optimization* (2004), §5 (Lagrange/Fenchel duality), §9.5
(Newton); Moré & Sorensen (1983), "Computing a trust region step", SIAM J. Sci. Stat. Comput. 4(3);
Nesterov, *Lectures on Convex Optimization* (2018), Thm 2.1.10/2.2.7 (strong convexity bounds).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
from scipy.special import expit, log_expit, xlogy

from dpsco.reference.domains import Ball
from dpsco.reference.losses import GLMLoss
from dpsco.reference.validation import as_float_vector, check_data, check_positive, check_positive_int

__all__ = [
    "Certificate",
    "CertifiedSolution",
    "UncertifiedError",
    "certified_minimize",
    "certify",
    "dual_objective",
    "loss_conjugate",
    "objective_gradient",
    "objective_value",
    "objective_value_with_error",
]

#: unit roundoff of float64
_U = 2.0**-53
#: losses whose (generalised) second derivative has a computable lower bound on intervals
_LOCAL_CURVATURE_LOSSES = ("logistic", "squared", "huber")


def _gamma(k: float) -> float:
    """Higham's γ_k = k·u/(1 − k·u), doubled (our safety factor)."""
    return 2.0 * k * _U / (1.0 - k * _U)


class UncertifiedError(RuntimeError):
    """Raised when no certificate meeting the requested tolerance could be produced.

    The oracle refuses to return an uncertified answer.  The attribute ``certificate`` holds the best
    certificate reached (or ``None``), ``w`` the corresponding point.
    """

    def __init__(self, message: str, certificate: "Certificate | None" = None, w: np.ndarray | None = None):
        super().__init__(message)
        self.certificate = certificate
        self.w = w


@dataclass(frozen=True)
class Certificate:
    """An a-posteriori optimality certificate for a feasible point w.

    Attributes
    ----------
    gap_bound : float
        Certified F(w) − F* ≤ gap_bound (≥ 0; ``inf`` if nothing could be certified).
    distance_bound : float or None
        Certified ‖w − w*‖ ≤ distance_bound; ``None`` when no strong-convexity modulus is available
        (then the minimiser need not be unique).
    method : str
        The bound that gave ``gap_bound``, e.g. ``"Fenchel duality gap"``,
        ``"strong-convexity gap (2*lam)"``, ``"local strong-convexity gap (data curvature)"``.
    strong_convexity : float
        Modulus μ used for ``distance_bound`` (2·lam, a certified local modulus, or 0).
    rounding_allowance : float
        The part of ``gap_bound`` that is a floating-point allowance (already included).
    details : mapping
        Every bound that was computed (for transparency), keyed by method.
    """

    gap_bound: float
    distance_bound: float | None
    method: str
    strong_convexity: float
    rounding_allowance: float = 0.0
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "gap_bound": _jsonable_float(self.gap_bound),
            "distance_bound": None if self.distance_bound is None else _jsonable_float(self.distance_bound),
            "method": self.method,
            "strong_convexity": self.strong_convexity,
            "rounding_allowance": self.rounding_allowance,
            "details": {k: {kk: _jsonable_float(vv) if isinstance(vv, float) else vv for kk, vv in v.items()}
                        for k, v in self.details.items()},
        }


@dataclass(frozen=True)
class CertifiedSolution:
    """Result of :func:`certified_minimize`.

    Attributes
    ----------
    w : (d,) float array
        The certified point, ‖w‖ ≤ M.
    value : float
        F(w) (float64 evaluation).
    certificate : Certificate
    iterations : int
        Newton steps (smooth losses, all inner solves counted) or Clarabel iterations (non-smooth).
    method : str
        How w was found.
    """

    w: np.ndarray
    value: float
    certificate: Certificate
    iterations: int
    method: str

    @property
    def lower_bound(self) -> float:
        """A certified lower bound on F*: value − gap_bound (up to the rounding of ``value``)."""
        return self.value - self.certificate.gap_bound

    def to_dict(self) -> dict[str, Any]:
        return {
            "w": np.asarray(self.w).tolist(),
            "value": self.value,
            "certificate": self.certificate.to_dict(),
            "iterations": int(self.iterations),
            "method": self.method,
        }


def _jsonable_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


# ================================================================================================
# Problem set-up and validation
# ================================================================================================


@dataclass(frozen=True)
class _Problem:
    loss: GLMLoss
    X: np.ndarray
    y: np.ndarray
    pi: np.ndarray
    c: np.ndarray
    lam: float
    M: float
    absX: np.ndarray
    row_norms: np.ndarray

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


def _prepare(
    loss: Any, X: Any, y: Any, domain: Any, lam: Any, linear: Any, weights: Any
) -> _Problem:
    if not isinstance(loss, GLMLoss):
        raise TypeError(f"loss must be a GLMLoss, got {type(loss).__name__}")
    if not isinstance(domain, Ball):
        raise TypeError(f"domain must be a Ball, got {type(domain).__name__}")
    Xa, ya = check_data(X, y)
    loss.check_labels(ya)
    lam_f = check_positive(lam, "lam", allow_zero=True)
    n, d = Xa.shape
    c = np.zeros(d) if linear is None else as_float_vector(linear, "linear", d)
    if weights is None:
        pi = np.full(n, 1.0 / n)
    else:
        wts = as_float_vector(weights, "weights", n)
        if np.any(wts < 0):
            raise ValueError("weights must be non-negative")
        tot = math.fsum(wts.tolist())
        if not tot > 0:
            raise ValueError("weights must not all be zero")
        pi = wts / tot
    return _Problem(loss, Xa, ya, pi, c, lam_f, float(domain.radius), np.abs(Xa), np.linalg.norm(Xa, axis=1))


def _fsum_cols(A: np.ndarray) -> np.ndarray:
    """Correctly rounded column sums of a 2-D array (math.fsum per column)."""
    return np.array([math.fsum(col) for col in A.T.tolist()]) if A.shape[0] else np.zeros(A.shape[1])


def _fsum(a: np.ndarray) -> float:
    return math.fsum(np.asarray(a, dtype=np.float64).ravel().tolist())


# ================================================================================================
# Objective
# ================================================================================================


def objective_value(
    loss: GLMLoss,
    X: Any,
    y: Any,
    w: Any,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
) -> float:
    """F(w) = Σ π_i φ(⟨w, x_i⟩, y_i) + ⟨c, w⟩ + lam‖w‖² (π_i = 1/n unless ``weights``).

    Parameters
    ----------
    loss : GLMLoss
    X : (n, d) array;  y : (n,) array
    w : (d,) array (the domain is not checked here)
    lam : float ≥ 0
    linear : (d,) array or None (c = 0)
    weights : (n,) non-negative array, not all zero, or None; normalised to sum 1.

    Returns
    -------
    float
        Evaluated with a correctly rounded (fsum) sum over samples.

    Raises
    ------
    ValueError, TypeError
        Bad shapes, non-finite entries, labels outside the loss's label set, lam < 0, bad weights.
    """
    return objective_value_with_error(loss, X, y, w, lam=lam, linear=linear, weights=weights)[0]


def objective_value_with_error(
    loss: GLMLoss,
    X: Any,
    y: Any,
    w: Any,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
) -> tuple[float, float]:
    """(F(w), e) with |F(w) − fl(F(w))| ≤ e, a first-order rounding bound (see the module docstring).

    Same parameters and errors as :func:`objective_value`.
    """
    P = _prepare(loss, X, y, Ball(np.inf), lam, linear, weights)
    wv = as_float_vector(w, "w", P.d)
    return _value_and_error(P, wv)


def _value_and_error(P: _Problem, w: np.ndarray) -> tuple[float, float]:
    s = P.X @ w
    e_s = _gamma(P.d + 1) * (P.absX @ np.abs(w)) + _U * np.abs(s)
    phi = P.loss.phi(s, P.y)
    slope = _phi_slope_bound(P, s)
    terms = P.pi * phi
    lin = _fsum(P.c * w)
    nw2 = _fsum(w * w)
    value = _fsum(terms) + lin + P.lam * nw2
    err = (
        _fsum(P.pi * (8 * _U * np.abs(phi) + slope * e_s))
        + 2 * _U * _fsum(np.abs(terms))
        + _gamma(P.d + 2) * (_fsum(np.abs(P.c * w)) + P.lam * nw2)
        + 4 * _U * abs(value)
    )
    return float(value), float(err)


def _phi_slope_bound(P: _Problem, s: np.ndarray) -> np.ndarray:
    """|φ'| bound near s (for propagating the rounding of s = ⟨x, w⟩)."""
    name = P.loss.name
    if name == "squared":
        return np.abs(s - P.y) + 1.0
    if name == "huber":
        return np.full_like(s, P.loss.threshold)  # type: ignore[attr-defined]
    return np.ones_like(s)


def objective_gradient(
    loss: GLMLoss,
    X: Any,
    y: Any,
    w: Any,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
) -> np.ndarray:
    """∇F(w) = Σ π_i φ'(⟨w, x_i⟩, y_i) x_i + c + 2·lam·w, shape (d,).

    For non-smooth losses (hinge, absolute) this is the subgradient given by ``loss.dphi``.  Same
    parameters and errors as :func:`objective_value`.
    """
    P = _prepare(loss, X, y, Ball(np.inf), lam, linear, weights)
    wv = as_float_vector(w, "w", P.d)
    return P.X.T @ (P.pi * P.loss.dphi(P.X @ wv, P.y)) + P.c + 2.0 * P.lam * wv


# ================================================================================================
# Convex conjugates φ* and Fenchel–Young gaps, keyed by loss.name
# ================================================================================================


def _clip_dual(loss: GLMLoss, a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Project α onto dom φ*(·, y) (a closed interval)."""
    name = loss.name
    if name in ("logistic", "hinge"):
        return -y * np.clip(-y * a, 0.0, 1.0)
    if name == "absolute":
        return np.clip(a, -1.0, 1.0)
    if name == "huber":
        h = loss.threshold  # type: ignore[attr-defined]
        return np.clip(a, -h, h)
    if name == "squared":
        return np.asarray(a, dtype=np.float64).copy()
    if name == "linear":
        return np.ones_like(np.asarray(a, dtype=np.float64))
    raise NotImplementedError(f"no convex conjugate implemented for the {name} loss")


def loss_conjugate(loss: GLMLoss, alpha: Any, y: Any) -> np.ndarray:
    """φ*(α, y) = sup_s α s − φ(s, y), elementwise (``inf`` outside the domain).

    ========  ===============================  ==============================================
    loss      dom φ*                           φ*(α)
    ========  ===============================  ==============================================
    logistic  α = −y t, t ∈ [0, 1]             t log t + (1 − t) log(1 − t)
    squared   ℝ                                α²/2 + α y
    huber(h)  |α| ≤ h                          α²/2 + α y
    hinge     α = −y t, t ∈ [0, 1]             −t
    absolute  |α| ≤ 1                          α y
    linear    α = 1                            0
    ========  ===============================  ==============================================

    Parameters
    ----------
    loss : GLMLoss;  alpha, y : (n,) arrays.

    Returns
    -------
    (n,) float array.
    """
    a = np.asarray(alpha, dtype=np.float64)
    yv = np.asarray(y, dtype=np.float64)
    name = loss.name
    with np.errstate(invalid="ignore"):
        if name in ("logistic", "hinge"):
            t = -yv * a
            inside = (t >= 0) & (t <= 1)
            val = xlogy(t, t) + xlogy(1 - t, 1 - t) if name == "logistic" else -t
        elif name == "absolute":
            inside = np.abs(a) <= 1
            val = a * yv
        elif name == "huber":
            inside = np.abs(a) <= loss.threshold  # type: ignore[attr-defined]
            val = 0.5 * a * a + a * yv
        elif name == "squared":
            inside = np.ones(a.shape, dtype=bool)
            val = 0.5 * a * a + a * yv
        elif name == "linear":
            inside = a == 1.0
            val = np.zeros_like(a)
        else:
            raise NotImplementedError(f"no convex conjugate implemented for the {name} loss")
    return np.where(inside, val, np.inf)


def _fenchel_young(loss: GLMLoss, s: np.ndarray, a: np.ndarray, y: np.ndarray, e_s: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Fenchel–Young gaps φ(s) + φ*(α) − α s ≥ 0 (α ∈ dom φ*), computed without cancellation.

    Returns (values, error bounds) where the error bound covers the rounding of the evaluation *and*
    an error e_s in s (|FY(s') − FY(s)| ≤ |φ'(ξ) − α|·|s' − s|).
    """
    name = loss.name
    if name == "logistic":
        t = np.clip(-y * a, 0.0, 1.0)
        m = y * s
        t1, t2 = xlogy(t, t), -t * log_expit(-m)
        t3, t4 = xlogy(1 - t, 1 - t), -(1 - t) * log_expit(m)
        fy = t1 + t2 + t3 + t4  # = KL(Bern(t) ‖ Bern(σ(−m)))
        err = 16 * _U * (np.abs(t1) + np.abs(t2) + np.abs(t3) + np.abs(t4) + 1.0) + 2.0 * e_s
        return fy, err
    if name == "hinge":
        t = np.clip(-y * a, 0.0, 1.0)
        m = 1.0 - y * s
        fy = np.maximum(m, 0.0) - t * m
        err = 4 * _U * (np.abs(m) + 1.0) + 2.0 * e_s
        return fy, err
    if name == "absolute":
        r = s - y
        fy = np.abs(r) - a * r
        err = 4 * _U * (np.abs(r) + np.abs(y) + np.abs(s)) + 2.0 * e_s
        return fy, err
    if name == "squared":
        r = s - y - a
        fy = 0.5 * r * r
        err = 4 * _U * (np.abs(s) + np.abs(y) + np.abs(a)) * (np.abs(r) + 1.0) + (np.abs(r) + e_s) * e_s
        return fy, err
    if name == "huber":
        h = loss.threshold  # type: ignore[attr-defined]
        rho = s - y
        sg = np.sign(rho)
        inner = np.abs(rho) <= h
        outer_val = 0.5 * (a - h * sg) ** 2 + (h - a * sg) * (np.abs(rho) - h)
        fy = np.where(inner, 0.5 * (rho - a) ** 2, outer_val)
        scale = np.abs(s) + np.abs(y) + np.abs(a) + h
        err = 8 * _U * scale * (scale + 1.0) + 2 * h * e_s + e_s * e_s
        return fy, err
    if name == "linear":
        return np.zeros_like(s), np.zeros_like(s)
    raise NotImplementedError(f"no Fenchel–Young gap implemented for the {name} loss")


def dual_objective(
    loss: GLMLoss,
    X: Any,
    y: Any,
    domain: Ball,
    alpha: Any,
    *,
    lam: float = 0.0,
    linear: Any = None,
    weights: Any = None,
) -> float:
    """Fenchel dual D(α) = −Σ π_i φ*(α_i, y_i) − r*(−Xᵀ(πα)) ≤ F* (weak duality).

    r*(u) = max_{‖v‖ ≤ M} ⟨u − c, v⟩ − lam‖v‖², in closed form with z = u − c: ‖z‖²/(4 lam) if
    ‖z‖ ≤ 2 lam M, else M‖z‖ − lam M² (lam = 0: M‖z‖; M = ∞ and lam = 0: 0 if z = 0 else ∞).

    Parameters
    ----------
    alpha : (n,) array; entries outside dom φ* give D = −∞.  Other parameters as in :func:`certify`.

    Returns
    -------
    float (may be −inf).
    """
    P = _prepare(loss, X, y, domain, lam, linear, weights)
    a = as_float_vector(alpha, "alpha", P.n)
    conj = loss_conjugate(P.loss, a, P.y)
    if not np.all(np.isfinite(conj[P.pi > 0])):
        return -math.inf
    z = -(P.X.T @ (P.pi * a)) - P.c
    nz = float(np.linalg.norm(z))
    M, lam_ = P.M, P.lam
    if lam_ > 0 and nz <= 2 * lam_ * M:
        rstar = nz * nz / (4 * lam_)
    elif math.isfinite(M):
        rstar = M * nz - lam_ * M * M
    else:
        rstar = 0.0 if nz == 0 else math.inf
    return float(-_fsum(np.where(P.pi > 0, P.pi * conj, 0.0)) - rstar)


# ================================================================================================
# Certificates
# ================================================================================================


@dataclass(frozen=True)
class _RegGap:
    bound: float  # upper bound on Γ_μ(g_t) for every ‖g_t − g‖ ≤ e
    vhat_dist: float  # upper bound on ‖Proj_W(w − g_t/μ) − w‖ (μ > 0), else nan


def _reg_gap(g: np.ndarray, e: float, w: np.ndarray, M: float, mu: float) -> _RegGap:
    """Upper bound on Γ_μ(g_t) = max_{v ∈ B(0,M)} ⟨−g_t, v − w⟩ − (μ/2)‖v − w‖², ‖g_t − g‖ ≤ e.

    Uses the Lagrangian bound B(κ) = κ(M² − ‖w‖²)/2 + (‖g + κw‖ + e)²/(2(μ + κ)), valid for every κ ≥ 0
    (add (κ/2)(M² − ‖v‖²) ≥ 0 and maximise over all v); min_κ B(κ) = Γ_μ(g) when e = 0.
    """
    d = w.shape[0]
    nw = float(np.linalg.norm(w))
    ng = float(np.linalg.norm(g))
    grow = 1.0 + _gamma(d + 3)
    if not math.isfinite(M):
        if mu > 0:
            bound = (ng * grow + e) ** 2 / (2 * mu) * (1 + 4 * _U)
            return _RegGap(bound, (ng * grow + e) / mu * (1 + 4 * _U))
        return _RegGap(0.0 if (ng == 0 and e == 0) else math.inf, math.nan)
    nw_lo = nw * (1.0 - _gamma(d + 2))
    slack = max(M - nw_lo, 0.0) * (M + nw * (1.0 + _gamma(d + 2)))  # ≥ M² − ‖w‖²

    def B(kappa: float) -> float:
        if mu + kappa <= 0:
            return 0.0 if (ng == 0 and e == 0) else math.inf
        # ‖fl(g + κw) − (g + κw)‖ ≤ u‖g + κw‖ + u(1 + u)κ‖w‖: an absolute term, since g + κw cancels
        nn = float(np.linalg.norm(g + kappa * w)) * grow + 2 * _U * (kappa * nw + ng) + e
        return (0.5 * kappa * slack + nn * nn / (2 * (mu + kappa))) * (1 + 8 * _U)

    cands = [0.0] if mu > 0 else []
    if nw > 0:
        a = -float(g @ w) / nw
        if a > 0:
            cands.append(a / nw)
    cands.append((ng * grow + e) / M)
    vhat_dist = math.nan
    if mu > 0:
        z = w - g / mu
        nz = float(np.linalg.norm(z))
        if nz > M:
            cands.append(mu * (nz / M - 1.0))
            diff = (M / nz - 1.0) * w - (M / nz) * (g / mu)
            vhat_dist = float(np.linalg.norm(diff)) * grow + 8 * _U * (M + ng / mu)
        else:
            vhat_dist = ng / mu * grow + 8 * _U * (M + ng / mu)
        vhat_dist += e / mu
    # κ = ∞ (M = 5e-324 made (‖g‖ + e)/M overflow) is no multiplier: B(∞) evaluated ∞·0 = NaN; dropping a
    # candidate only loosens the bound, and κ = 0 (μ > 0) or the bound ∞ remains
    cands = [k for k in cands if math.isfinite(k)]
    if not cands:
        return _RegGap(math.inf, vhat_dist)
    vals = [(B(k), k) for k in cands]
    best, kbest = min(vals)
    # refine κ by a few golden-section steps on the convex function B around the best candidate
    if math.isfinite(best) and kbest > 0:
        lo, hi = kbest / 4, kbest * 4
        gr = (math.sqrt(5) - 1) / 2
        x1, x2 = hi - gr * (hi - lo), lo + gr * (hi - lo)
        f1, f2 = B(x1), B(x2)
        for _ in range(40):
            if f1 < f2:
                hi, x2, f2 = x2, x1, f1
                x1 = hi - gr * (hi - lo)
                f1 = B(x1)
            else:
                lo, x1, f1 = x1, x2, f2
                x2 = lo + gr * (hi - lo)
                f2 = B(x2)
        best = min(best, f1, f2)
    return _RegGap(max(best, 0.0), vhat_dist)


def _smoothness_upper(P: _Problem) -> float | None:
    """β_F ≥ sup ‖∇²F‖ (upper curvature of the data term + 2 lam), or None for non-smooth losses."""
    b = P.loss.phi_smoothness()
    if b is None or not P.loss.smooth:
        return None
    A = (P.X.T * P.pi) @ P.X
    lmax = float(np.linalg.eigvalsh(A)[-1])
    fro = float(np.linalg.norm(A))
    fro_abs = float(np.linalg.norm((P.absX.T * P.pi) @ P.absX))
    lmax_safe = lmax + 10 * P.d * _U * fro + _gamma(P.n + 2) * fro_abs
    return b * lmax_safe * (1 + 4 * _U) + 2 * P.lam


def _curvature_lower(P: _Problem, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
    """m_i ≤ inf of (generalised) φ''(·, y_i) over [lo_i, hi_i] (i.e. φ' − m_i·id nondecreasing there)."""
    name = P.loss.name
    if name == "logistic":
        t = np.maximum(np.abs(lo), np.abs(hi))
        return expit(t) * expit(-t) * (1 - 16 * _U)
    if name == "squared":
        return np.ones_like(lo)
    if name == "huber":
        h = P.loss.threshold  # type: ignore[attr-defined]
        y = P.y
        ok_lo = (lo - y) >= -h + 4 * _U * (np.abs(lo) + np.abs(y) + h)
        ok_hi = (hi - y) <= h - 4 * _U * (np.abs(hi) + np.abs(y) + h)
        return (ok_lo & ok_hi).astype(np.float64)
    return None


def _min_eig_lower(P: _Problem, m: np.ndarray) -> float:
    """Certified lower bound on λ_min(Σ π_i m_i x_i x_iᵀ) + 2 lam (m ≥ 0)."""
    pm = P.pi * m
    A = (P.X.T * pm) @ P.X
    lmin = float(np.linalg.eigvalsh(A)[0])
    fro = float(np.linalg.norm(A))
    fro_abs = float(np.linalg.norm((P.absX.T * pm) @ P.absX))
    return lmin - 10 * P.d * _U * fro - _gamma(P.n + 2) * fro_abs + 2 * P.lam * (1 - 2 * _U)


def _local_modulus(P: _Problem, w: np.ndarray, s: np.ndarray, e_s: np.ndarray, g: np.ndarray, e: float
                   ) -> tuple[float, float] | None:
    """(μ_r, r) such that F is μ_r-strongly convex on B(w, r) and every minimiser over W lies in B(w, r).

    Containment: for v ∈ W with ‖v − w‖ = r, F(v) ≥ F(w) − min(‖g_t‖r, Γ_0(g_t)) + μ_r r²/2 > F(w), so the
    (convex) sublevel set {v ∈ W : F(v) ≤ F(w)} lies inside B(w, r).  None when not certifiable.
    """
    if P.loss.name not in _LOCAL_CURVATURE_LOSSES:
        return None

    def mu_of(r: float) -> float:
        rad = P.row_norms * r * (1 + _gamma(P.d + 2)) + e_s
        m = _curvature_lower(P, s - rad, s + rad)
        assert m is not None
        return _min_eig_lower(P, m)

    mu0 = mu_of(0.0)
    if not mu0 > 0:
        return None
    ng_t = float(np.linalg.norm(g)) * (1 + _gamma(P.d + 2)) + e
    fw_t = _reg_gap(g, e, w, P.M, 0.0).bound
    rho = min(2 * ng_t / mu0, math.sqrt(2 * fw_t / mu0) if math.isfinite(fw_t) else math.inf)
    r_min = 1e-12 * (1.0 + float(np.linalg.norm(w)))
    for factor in (2.0, 8.0, 32.0):
        r = max(factor * rho, r_min)
        mu_r = mu_of(r)
        if mu_r > 0 and min(ng_t * r, fw_t) < 0.5 * mu_r * r * r * (1 - 1e-9):
            return mu_r, r
    return None


def _rounding_s(P: _Problem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = P.X @ w
    e_s = _gamma(P.d + 1) * (P.absX @ np.abs(w)) + _U * np.abs(s)
    return s, e_s


def _grad_with_error(P: _Problem, w: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, float]:
    """g = Xᵀ(πα) + c + 2 lam w (fsum) and e ≥ ‖fl(g) − g‖."""
    pa = P.pi * a
    g = _fsum_cols(P.X * pa[:, None]) + P.c + 2 * P.lam * w
    comp = 3 * _U * (P.absX.T @ np.abs(pa)) + 2 * _U * (np.abs(P.c) + 2 * P.lam * np.abs(w)) + 2 * _U * np.abs(g)
    return g, float(np.linalg.norm(comp)) * (1 + _gamma(P.d))


def _certify(P: _Problem, w: np.ndarray, dual: np.ndarray | None) -> Certificate:
    s, e_s = _rounding_s(P, w)
    lam, M = P.lam, P.M
    mu_glob = 2.0 * lam
    details: dict[str, dict[str, Any]] = {}
    cands: list[tuple[float, float | None, float, str, float]] = []  # gap, dist, mu, method, allowance

    # -- route 1: Fenchel duality gap -----------------------------------------------------------
    if dual is not None or not P.loss.smooth:
        if dual is not None:
            duals = [np.asarray(dual, dtype=np.float64)]
        else:  # non-smooth, no dual given: the subgradient φ'(s) and kink-set least-squares refinements
            duals = [P.loss.dphi(s, P.y).astype(np.float64)] + _refined_duals(P, w, s)
        best1: tuple[float, float, float, float] | None = None
        for a in duals:
            a = _clip_dual(P.loss, a, P.y)
            fy, fy_err = _fenchel_young(P.loss, s, a, P.y, e_s)
            fy_sum = _fsum(P.pi * fy)
            fy_allow = _fsum(P.pi * fy_err) + 2 * _U * _fsum(P.pi * np.abs(fy))
            g_a, e_a = _grad_with_error(P, w, a)
            R = _reg_gap(g_a, e_a, w, M, mu_glob)
            gap = max(fy_sum, 0.0) + fy_allow + R.bound
            if best1 is None or gap < best1[0]:
                best1 = (gap, fy_sum, R.bound, fy_allow)
        assert best1 is not None
        gap, fy_sum, rb, fy_allow = best1
        dist = math.sqrt(2 * gap / mu_glob) if mu_glob > 0 else None
        details["Fenchel duality gap"] = {"gap": gap, "distance": dist, "loss_fenchel_young": fy_sum,
                                          "regulariser_gap": rb, "allowance": fy_allow}
        cands.append((gap, dist, mu_glob if dist is not None else 0.0, "Fenchel duality gap", fy_allow))

    # -- route 2: strong convexity at the gradient (smooth losses) --------------------------------
    if P.loss.smooth:
        a = P.loss.dphi(s, P.y)
        g, e_g = _grad_with_error(P, w, a)
        beta_phi = P.loss.phi_smoothness() or 0.0
        dev = 8 * _U * np.abs(a) + beta_phi * e_s  # |fl(φ'(fl s)) − φ'(s)|
        e_true = e_g + float(np.linalg.norm(P.absX.T @ (P.pi * dev))) * (1 + _gamma(P.n + 2))
        beta_F = _smoothness_upper(P)
        moduli: list[tuple[float, str]] = []
        if mu_glob > 0 or math.isfinite(M):
            moduli.append((mu_glob, "strong-convexity gap (2*lam)" if mu_glob > 0 else "Frank-Wolfe gap (lam = 0)"))
        loc = _local_modulus(P, w, s, e_s, g, e_true)
        if loc is not None and loc[0] > mu_glob:
            moduli.append((loc[0], "local strong-convexity gap (data curvature)"))
            details["local modulus"] = {"mu_r": loc[0], "r": loc[1]}
        for mu, name in moduli:
            R = _reg_gap(g, e_true, w, M, mu)
            gap = R.bound
            dist: float | None = None
            if mu > 0:
                dist = math.sqrt(2 * gap / mu) * (1 + 4 * _U)
                if beta_F is not None and math.isfinite(R.vhat_dist):
                    kappa = 1.0 + math.sqrt(max(beta_F / mu - 1.0, 0.0))
                    dist = min(dist, kappa * R.vhat_dist * (1 + 8 * _U))
            details[name] = {"gap": gap, "distance": dist, "mu": mu, "gradient_error": e_true}
            cands.append((gap, dist, mu if dist is not None else 0.0, name, 0.0))

    if not cands:
        return Certificate(math.inf, None, "none", 0.0, 0.0, details)
    best_gap = min(cands, key=lambda c: c[0])
    dists = [c for c in cands if c[1] is not None]
    if dists:
        best_d = min(dists, key=lambda c: c[1])  # type: ignore[arg-type, return-value]
        dist_bound, mu_used = best_d[1], best_d[2]
    else:
        dist_bound, mu_used = None, 0.0
    return Certificate(
        gap_bound=float(best_gap[0]),
        distance_bound=None if dist_bound is None else float(dist_bound),
        method=best_gap[3],
        strong_convexity=float(mu_used),
        rounding_allowance=float(best_gap[4]),
        details=details,
    )


def _refined_duals(P: _Problem, w: np.ndarray, s: np.ndarray) -> list[np.ndarray]:
    """Candidate dual points for the piecewise-linear losses (hinge, absolute; kink at s = y) at w.

    For each threshold τ, the samples with |s_i − y_i| ≤ τ(1 + |y_i|) (the kink set K) get α_K from the
    box-constrained least squares min ‖base + X_Kᵀ(π_K α_K) + κ w‖ (κ ≥ 0 only when w is on the sphere),
    the others keep α_i = φ'(s_i).  Any α ∈ dom φ* gives a valid bound; this only makes it small when w is
    near-optimal but was not produced with a dual (e.g. a cvxpy point or a user's implementation).
    """
    if P.loss.name not in ("hinge", "absolute"):
        return []
    from scipy.optimize import lsq_linear

    a0 = P.loss.dphi(s, P.y).astype(np.float64)
    on_sphere = math.isfinite(P.M) and float(np.linalg.norm(w)) >= P.M * (1 - 1e-6)
    out = []
    seen: set[bytes] = set()
    for tau in (1e-10, 1e-8, 1e-6, 1e-4):
        K = (np.abs(s - P.y) <= tau * (1.0 + np.abs(P.y))) & (P.pi > 0)
        key = K.tobytes()
        nK = int(K.sum())
        if nK == 0 or nK > 2000 or key in seen:
            continue
        seen.add(key)
        free = ~K
        base = P.X[free].T @ (P.pi[free] * a0[free]) + P.c + 2 * P.lam * w
        if P.loss.name == "hinge":
            lo = np.minimum(-P.y[K], 0.0)
            hi = np.maximum(-P.y[K], 0.0)
        else:
            lo, hi = -np.ones(nK), np.ones(nK)
        A = P.X[K].T * P.pi[K]
        if on_sphere:
            A = np.hstack([A, w[:, None]])
            lo = np.append(lo, 0.0)
            hi = np.append(hi, np.inf)
        res = lsq_linear(A, -base, bounds=(lo, hi), method="bvls")
        a = a0.copy()
        a[K] = res.x[:nK]
        out.append(a)
    return out


def _check_feasible(P: _Problem, w: np.ndarray) -> None:
    if math.isfinite(P.M) and float(np.linalg.norm(w)) > P.M:
        raise ValueError(f"w must lie in the domain: ‖w‖ = {float(np.linalg.norm(w))!r} > radius {P.M!r}")


def certify(
    loss: GLMLoss,
    X: Any,
    y: Any,
    domain: Ball,
    w: Any,
    *,
    lam: float = 0.0,
    linear: Any = None,
    dual: Any = None,
    weights: Any = None,
) -> Certificate:
    """A-posteriori certificate for a feasible point w of F over W = B(0, M).

    Computes every applicable bound of the module docstring (Fenchel duality gap at ``dual``; for
    non-smooth losses without ``dual``, at α = φ'(Xw) and at kink-set least-squares refinements of it;
    strong-convexity gap with μ = 2·lam; local strong-convexity gap with the certified data-curvature
    modulus; the linear distance bound via smoothness) and returns the smallest gap and the smallest
    distance.  Independent of how w was obtained, so it can certify a user's own solver output.

    Parameters
    ----------
    loss : GLMLoss
    X : (n, d) array;  y : (n,) array
    domain : Ball
    w : (d,) array with ‖w‖ ≤ M (computed float64 norm).
    lam : float ≥ 0;  linear : (d,) array or None;  weights : (n,) array or None (see objective_value).
    dual : (n,) array or None
        A dual point α; it is first clipped to dom φ* (see :func:`loss_conjugate`).

    Returns
    -------
    Certificate
        ``gap_bound`` = ``inf`` and ``distance_bound`` = None when nothing can be certified (e.g. lam = 0,
        M = ∞ and no local curvature).

    Raises
    ------
    ValueError, TypeError
        Bad inputs (naming the parameter); w outside the domain.
    """
    P = _prepare(loss, X, y, domain, lam, linear, weights)
    wv = as_float_vector(w, "w", P.d)
    _check_feasible(P, wv)
    a = None if dual is None else as_float_vector(dual, "dual", P.n)
    return _certify(P, wv, a)


# ================================================================================================
# Solvers
# ================================================================================================


def _into_ball(w: np.ndarray, M: float) -> np.ndarray:
    """Project onto B(0, M) and pull strictly inside by a few ulps so that the float norm is ≤ M."""
    if not math.isfinite(M):
        return w
    d = w.shape[0]
    target = M * (1.0 - (2 * d + 8) * _U)
    nw = float(np.linalg.norm(w))
    if nw > target:
        w = w * (target / nw)
        k = 0
        while float(np.linalg.norm(w)) > M and k < 10:
            w = w * (1 - 4 * _U)
            k += 1
    return w


class _Smooth:
    """Value, gradient, Hessian of F_ν(w) = data(w) + ⟨c, w⟩ + (lam + ν/2)‖w‖² (float64, fast path)."""

    def __init__(self, P: _Problem):
        self.P = P

    def val_grad(self, w: np.ndarray, nu: float) -> tuple[float, np.ndarray]:
        P = self.P
        s = P.X @ w
        q = P.lam + 0.5 * nu
        f = float(P.pi @ P.loss.phi(s, P.y) + P.c @ w + q * (w @ w))
        g = P.X.T @ (P.pi * P.loss.dphi(s, P.y)) + P.c + 2 * q * w
        return f, g

    def hess(self, w: np.ndarray, nu: float) -> np.ndarray:
        P = self.P
        h = P.loss.d2phi(P.X @ w, P.y)
        H = (P.X.T * (P.pi * h)) @ P.X
        H[np.diag_indices_from(H)] += 2 * P.lam + nu
        return H


def _newton_direction(H: np.ndarray, g: np.ndarray) -> np.ndarray:
    try:
        L = np.linalg.cholesky(H)
        p = -np.linalg.solve(L.T, np.linalg.solve(L, g))
        if np.all(np.isfinite(p)):
            return p
    except np.linalg.LinAlgError:
        pass
    # singular / indefinite through rounding: eigen-decomposition with a floored spectrum
    ev, V = np.linalg.eigh(H)
    floor = max(float(ev[-1]), 1.0) * 1e-12
    return -(V @ ((V.T @ g) / np.maximum(ev, floor)))


def _newton(S: _Smooth, w0: np.ndarray, nu: float, budget: list[int], max_iter: int,
            diverge_norm: float | None = None) -> tuple[np.ndarray, str]:
    """Damped Newton on F_ν from w0.  Returns (w, status) with status in
    {"converged", "budget", "diverged"}; "converged" also covers stalling at float precision."""
    w = w0.copy()
    f, g = S.val_grad(w, nu)
    stall = 0
    best_ng = float(np.linalg.norm(g))
    while True:
        if budget[0] >= max_iter:
            return w, "budget"
        H = S.hess(w, nu)
        p = _newton_direction(H, g)
        slope = float(g @ p)
        np_ = float(np.linalg.norm(p))
        if not (slope < 0) or np_ <= 4 * _U * max(float(np.linalg.norm(w)), 1e-300):
            return w, "converged"
        ng = float(np.linalg.norm(g))
        t = 1.0
        accepted = False
        while t > 1e-20:
            wn = w + t * p
            fn, gn = S.val_grad(wn, nu)
            if np.isfinite(fn) and (
                fn <= f + 1e-4 * t * slope
                or (float(np.linalg.norm(gn)) < ng and fn <= f + 8 * _U * (abs(f) + 1.0))
            ):
                accepted = True
                break
            t *= 0.5
        budget[0] += 1
        if not accepted:
            return w, "converged"  # no float-representable progress along the Newton direction
        ngn = float(np.linalg.norm(gn))
        # at the float noise floor F no longer decreases and ‖∇F‖ no longer halves: stop
        if fn >= f - 8 * _U * abs(f) and ngn > 0.5 * best_ng:
            stall += 1
        else:
            stall = 0
        best_ng = min(best_ng, ngn)
        w, f, g = wn, fn, gn
        if stall >= 2:
            return w, "converged"
        if diverge_norm is not None and float(np.linalg.norm(w)) > diverge_norm:
            return w, "diverged"


def _solve_multiplier(S: _Smooth, w_start: np.ndarray, budget: list[int], max_iter: int
                      ) -> tuple[np.ndarray, float]:
    """Find ν > 0 with ‖w(ν)‖ = M, w(ν) = argmin F + (ν/2)‖w‖² (the active-constraint KKT point)."""
    P = S.P
    M = P.M
    _, g0 = S.val_grad(np.zeros(P.d), 0.0)
    ng0 = float(np.linalg.norm(g0))
    if ng0 == 0.0:
        return np.zeros(P.d), 0.0
    # ν_hi: F_ν is (2 lam + ν)-strongly convex, so ‖w(ν)‖ ≤ ‖∇F(0)‖/(2 lam + ν) ≤ M.
    nu_hi = ng0 / M
    nu_lo = 0.0
    w = _into_ball(w_start, M)
    nu = nu_hi
    best_w, best_nu = w, nu
    for _ in range(200):
        w, status = _newton(S, w, nu, budget, max_iter)
        psi = float(np.linalg.norm(w))
        best_w, best_nu = w, nu
        if abs(psi - M) <= 4 * (P.d + 2) * _U * M or status == "budget":
            break
        if psi > M:
            nu_lo = nu
        else:
            nu_hi = nu
        if nu_lo > 0 and (nu_hi - nu_lo) <= 4 * _U * nu_hi:
            break
        if nu_lo == 0 and nu < 1e-14 * ng0 / M:
            # ‖w(ν)‖ < M down to ν ≈ 0: the constraint is not active after all (lam = 0 case).
            w, _ = _newton(S, w, 0.0, budget, max_iter)
            return w, 0.0
        # Newton on f(ν) = 1/ψ(ν) − 1/M;  f'(ν) = ⟨w, H_ν⁻¹ w⟩ / ψ³
        H = S.hess(w, nu)
        q = _newton_direction(H, -w)  # H⁻¹ w  (the direction routine returns −H⁻¹·arg)
        fval = 1.0 / psi - 1.0 / M
        fder = float(w @ q) / psi**3
        nu_new = nu - fval / fder if fder > 0 else math.nan
        if not (nu_lo < nu_new < nu_hi) or not math.isfinite(nu_new):
            nu_new = math.sqrt(nu_lo * nu_hi) if nu_lo > 0 else nu_hi / 10.0
        nu = nu_new
    return best_w, best_nu


def _recession_direction(P: _Problem) -> bool:
    """True iff (by LP) the logistic objective with lam = 0 on R^d has a direction of non-increase
    v ≠ 0: y_i⟨x_i, v⟩ ≥ 0 for all i, ⟨c, v⟩ ≤ 0, with some strict inequality (then F has no minimiser)."""
    from scipy.optimize import linprog

    A = P.y[:, None] * P.X  # rows y_i x_i
    mask = P.pi > 0
    A = A[mask]
    obj = -(P.pi[mask] @ A) + P.c  # minimise −(Σ π_i y_i x_i·v) + c·v
    A_ub = np.vstack([-A, P.c[None, :]])
    b_ub = np.zeros(A_ub.shape[0])
    res = linprog(obj, A_ub=A_ub, b_ub=b_ub, bounds=[(-1.0, 1.0)] * P.d, method="highs")
    if res.status != 0:
        return False
    v = res.x
    margins = A @ v
    scale = float(np.max(P.row_norms)) * math.sqrt(P.d)
    return bool(-res.fun > 1e-9 * scale and np.min(margins) >= -1e-12 * scale and P.c @ v <= 1e-12 * scale)


def _solve_smooth(P: _Problem, max_iter: int) -> tuple[np.ndarray, int, str]:
    S = _Smooth(P)
    budget = [0]
    d = P.d
    w0 = np.zeros(d)
    M = P.M
    if P.loss.name == "linear" and P.lam == 0:
        # F is linear: the minimiser over the ball is −M·ḡ/‖ḡ‖ (phase 1 would diverge at once).
        w, _ = _solve_multiplier(S, w0, budget, max_iter)
        return w, budget[0], "damped Newton + multiplier search (active ball)"
    # lam = 0: the unconstrained problem may have no minimiser (e.g. separable logistic data, where Newton
    # creeps outwards for ever); leaving 2M is taken as the sign that the ball constraint is active.  If it
    # is not after all, the multiplier search finds ‖w(ν)‖ < M as ν → 0 and falls back to ν = 0.
    diverge = None if (not math.isfinite(M) or P.lam > 0) else 2.0 * M
    w, status = _newton(S, w0, 0.0, budget, max_iter, diverge_norm=diverge)
    if not math.isfinite(M) or (status != "diverged" and float(np.linalg.norm(w)) <= M):
        return w, budget[0], "damped Newton (unconstrained minimiser in W)"
    start = w if status == "converged" else w0
    w, _nu = _solve_multiplier(S, start, budget, max_iter)
    return w, budget[0], "damped Newton + multiplier search (active ball)"


def _polish_nonsmooth(P: _Problem, w: np.ndarray, alpha: np.ndarray, tau: float
                      ) -> tuple[np.ndarray, np.ndarray] | None:
    """Active-set polish of a near-optimal point for the piecewise-linear losses (hinge, absolute).

    Both have their kink at s = y_i.  With K = {i : |s_i − y_i| ≤ τ(1 + |y_i|)} (samples at the kink)
    and the other samples' slopes a_i = φ'(s_i) frozen, the KKT conditions are the square system

        (2 lam + κ) w + c + Σ_{i∉K} π_i a_i x_i + Σ_{i∈K} π_i α_i x_i = 0,
        ⟨x_i, w⟩ = y_i  (i ∈ K),          ‖w‖² = M²  (only if the ball is active, unknown κ ≥ 0),

    solved by a few Newton steps (least squares if degenerate).  The result is only a *candidate*: it is
    kept by the caller only if its numpy certificate is better.  Returns (w, α) or None.
    """
    s = P.X @ w
    K = np.abs(s - P.y) <= tau * (1.0 + np.abs(P.y))
    K &= P.pi > 0
    nK = int(K.sum())
    if nK > 2000:
        return None
    a = P.loss.dphi(s, P.y).astype(np.float64)
    aK = _clip_dual(P.loss, alpha, P.y)[K]
    free = ~K
    base = P.X[free].T @ (P.pi[free] * a[free]) + P.c
    XK = P.X[K]
    piK = P.pi[K]
    g = base + XK.T @ (piK * aK) + 2 * P.lam * w
    nw2 = float(w @ w)
    kappa = max(-float(g @ w) / nw2, 0.0) if nw2 > 0 else 0.0
    active = math.isfinite(P.M) and float(np.linalg.norm(w)) >= P.M * (1 - 1e-6) and kappa > 0
    if not active:
        kappa = 0.0
    d = P.d
    for _ in range(8):
        r1 = (2 * P.lam + kappa) * w + base + XK.T @ (piK * aK)
        r2 = XK @ w - P.y[K]
        res = [r1, r2]
        rows = [np.hstack([(2 * P.lam + kappa) * np.eye(d), XK.T * piK] + ([w[:, None]] if active else [])),
                np.hstack([XK, np.zeros((nK, nK))] + ([np.zeros((nK, 1))] if active else []))]
        if active:
            res.append(np.array([0.5 * (nw2 - P.M * P.M)]))
            rows.append(np.hstack([w[None, :], np.zeros((1, nK)), np.zeros((1, 1))]))
        J = np.vstack(rows)
        rhs = -np.concatenate(res)
        try:
            step = np.linalg.lstsq(J, rhs, rcond=None)[0]
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(step)):
            return None
        w = w + step[:d]
        aK = aK + step[d:d + nK]
        if active:
            kappa = max(kappa + float(step[-1]), 0.0)
        nw2 = float(w @ w)
        if float(np.linalg.norm(step)) <= 8 * _U * (1.0 + float(np.linalg.norm(w))):
            break
    alpha_new = a.copy()
    alpha_new[K] = aK
    return _into_ball(w, P.M), _clip_dual(P.loss, alpha_new, P.y)


def _solve_nonsmooth(P: _Problem, tol: float) -> tuple[np.ndarray, int, str, Certificate]:
    import cvxpy as cp

    mask = P.pi > 0
    Xm, ym, pim = P.X[mask], P.y[mask], P.pi[mask]
    n_m = Xm.shape[0]
    w = cp.Variable(P.d)
    s = cp.Variable(n_m)
    if P.loss.name == "hinge":
        terms = cp.pos(1 - cp.multiply(ym, s))
    elif P.loss.name == "absolute":
        terms = cp.abs(ym - s)
    else:  # pragma: no cover - guarded by the caller
        raise NotImplementedError(P.loss.name)
    obj = pim @ terms + P.c @ w
    if P.lam > 0:
        obj = obj + P.lam * cp.sum_squares(w)
    cons = [s == Xm @ w]
    if math.isfinite(P.M):
        cons.append(cp.norm(w, 2) <= P.M)
    prob = cp.Problem(cp.Minimize(obj), cons)
    best: tuple[np.ndarray, int, Certificate] | None = None
    total_iters = 0
    for opts in ({}, {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "max_iter": 400}):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                prob.solve(solver="CLARABEL", **opts)
        except cp.error.SolverError:
            continue
        try:
            total_iters += int(prob.solver_stats.num_iters or 0)
        except (AttributeError, TypeError):
            pass
        if prob.status not in ("optimal", "optimal_inaccurate") or w.value is None:
            continue
        wv = _into_ball(np.asarray(w.value, dtype=np.float64), P.M)
        alpha = P.loss.dphi(P.X @ wv, P.y).astype(np.float64)
        if cons[0].dual_value is not None:
            alpha[mask] = -np.asarray(cons[0].dual_value, dtype=np.float64) / pim
        cert = _certify(P, wv, alpha)
        if best is None or cert.gap_bound < best[2].gap_bound:
            best = (wv, total_iters, cert)
        for tau in (1e-7, 1e-5, 1e-3):
            pol = _polish_nonsmooth(P, wv, alpha, tau)
            if pol is None:
                continue
            cert_p = _certify(P, pol[0], pol[1])
            if cert_p.gap_bound < best[2].gap_bound:
                best = (pol[0], total_iters, cert_p)
        if best[2].gap_bound <= tol:
            break
    if best is None:
        raise UncertifiedError("Clarabel returned no usable primal point for the non-smooth problem")
    return best[0], total_iters, "Clarabel primal (auxiliary s = Xw) + numpy Fenchel duality gap", best[2]


def certified_minimize(
    loss: GLMLoss,
    X: Any,
    y: Any,
    domain: Ball,
    *,
    lam: float = 0.0,
    linear: Any = None,
    tol: float = 1e-9,
    max_iter: int = 200,
    weights: Any = None,
) -> CertifiedSolution:
    """Certified minimiser of F(w) = Σ π_i φ(⟨w, x_i⟩, y_i) + ⟨c, w⟩ + lam‖w‖² over W = B(0, M).

    Parameters
    ----------
    loss : GLMLoss
    X : (n, d) array;  y : (n,) array (labels in the loss's label set)
    domain : Ball, radius M ∈ (0, ∞]
    lam : float ≥ 0
    linear : (d,) array or None
        The linear term c (default 0).
    tol : float > 0
        Target of the certificate: the distance bound ‖w − w*‖ when the loss is smooth and lam > 0;
        otherwise the gap bound F(w) − F*.  For non-smooth losses the target is always the gap bound
        (their distance bound √(2·gap/(2 lam)) loses a square root).  Measured (n ≤ 6366, d ≤ 8, ‖x‖ ≤ 1):
        smooth losses reach distance bounds ~1e-14 and gaps ≤ 1e-16 (the local-curvature certificate);
        hinge/absolute reach gaps ~1e-15..1e-14 after the active-set polish (distance ~1e-6 for lam = 0.01),
        against ~1e-11..1e-7 for Clarabel's raw point.
    max_iter : int ≥ 1
        Budget of Newton steps (all inner solves together); unused for non-smooth losses.
    weights : (n,) array or None
        Sample weights (non-negative, not all zero), normalised to sum 1; default uniform.

    Returns
    -------
    CertifiedSolution

    Raises
    ------
    UncertifiedError
        The certificate at the best point found does not meet ``tol`` (e.g. ``max_iter`` too small).
    ValueError, TypeError
        Bad inputs, naming the parameter; an objective without a minimiser (logistic, lam = 0, M = ∞ on
        (quasi-)separable data; linear loss with lam = 0 and M = ∞); a non-smooth loss with lam = 0 and
        M = ∞ (no duality-gap certificate exists: the dual constraint Xᵀπα = −c must hold exactly).
    """
    P = _prepare(loss, X, y, domain, lam, linear, weights)
    tol_f = check_positive(tol, "tol")
    max_it = check_positive_int(max_iter, "max_iter")
    unbounded = not math.isfinite(P.M)
    if unbounded and P.lam == 0:
        if not P.loss.smooth:
            raise ValueError(
                f"the {P.loss.name} loss with lam = 0 and an unbounded domain cannot be certified "
                "(no duality-gap certificate); use lam > 0 or a finite domain radius"
            )
        if P.loss.name == "linear":
            raise ValueError("the linear loss with lam = 0 has no minimiser on an unbounded domain; "
                             "use lam > 0 or a finite domain radius")
        if P.loss.name == "logistic" and _recession_direction(P):
            raise ValueError(
                "the data (X, y) are (quasi-)separable: the logistic objective with lam = 0 has no "
                "minimiser on an unbounded domain; use lam > 0 or a finite domain radius"
            )
    if P.loss.smooth:
        w, iters, method = _solve_smooth(P, max_it)
        w = _into_ball(w, P.M)
        cert = _certify(P, w, None)
    else:
        w, iters, method, cert = _solve_nonsmooth(P, tol_f)
    use_distance = P.loss.smooth and P.lam > 0
    achieved = cert.distance_bound if use_distance else cert.gap_bound
    if achieved is None or not achieved <= tol_f:
        what = "distance" if use_distance else "gap"
        raise UncertifiedError(
            f"certified {what} bound {achieved!r} does not meet tol = {tol_f!r} after {iters} iterations "
            f"({method}); certificate: {cert.method}, gap ≤ {cert.gap_bound!r}, distance ≤ {cert.distance_bound!r}",
            certificate=cert,
            w=w,
        )
    value, _ = _value_and_error(P, w)
    return CertifiedSolution(w=w, value=value, certificate=cert, iterations=iters, method=method)
