"""The GLM objective of the certified solvers, its rounding-aware evaluation, convex conjugates and Fenchel dual.

The objective (``weights`` default to the uniform π_i = 1/n)::

    F(w) = Σ_i π_i φ(⟨w, x_i⟩, y_i) + ⟨c, w⟩ + lam·‖w‖²,      w ∈ W = B(0, M)

for any :class:`dpsco.reference.losses.GLMLoss` φ (logistic, squared, huber, hinge, absolute, linear), a linear
term ``c`` (``linear``, default 0), ``lam ≥ 0`` and a radius ``M ∈ (0, ∞]``.

Here: the validated problem (:class:`GLMProblem`, built by :func:`prepare_problem`) shared by the certificate
(:mod:`dpsco.reference.glm_certificate`) and the solvers (:mod:`dpsco.reference.solvers`); F(w) with a
first-order rounding bound (:func:`objective_value_with_error`, model of :mod:`dpsco.reference.certificates`);
∇F; the convex conjugates φ* (:func:`loss_conjugate`), the Fenchel–Young gaps φ(s) + φ*(α) − αs evaluated
without cancellation (:func:`fenchel_young`) and the Fenchel dual D(α) ≤ F* (:func:`dual_objective`).

Reference: Boyd & Vandenberghe, *Convex Optimization* (2004), §5 (Lagrange/Fenchel duality).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import log_expit, xlogy

from dpsco.reference.certificates import UNIT_ROUNDOFF as _U
from dpsco.reference.certificates import fsum_array, rounding_gamma
from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.losses import GLMLoss
from dpsco.reference.validation import as_float_vector, check_data, check_positive

__all__ = [
    "GLMProblem",
    "clip_dual",
    "dual_objective",
    "fenchel_young",
    "loss_conjugate",
    "objective_gradient",
    "objective_value",
    "objective_value_with_error",
    "prepare_problem",
    "value_and_error",
]


@dataclass(frozen=True)
class GLMProblem:
    """A validated instance of F (module docstring), as :func:`prepare_problem` builds it.

    Attributes: ``loss`` φ; ``X`` (n, d) and ``y`` (n,) float64; ``pi`` (n,) weights summing to 1; ``c`` (d,)
    linear term; ``lam`` ≥ 0; ``M`` the radius of W (may be inf); ``absX`` = |X| and ``row_norms`` = (‖x_i‖)_i,
    cached for the rounding bounds.
    """

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


def prepare_problem(
    loss: Any, X: Any, y: Any, domain: Any, lam: Any, linear: Any, weights: Any
) -> GLMProblem:
    """Validate the inputs of F and build its :class:`GLMProblem` (π normalised with ``math.fsum``).

    Raises TypeError (``loss`` not a GLMLoss, ``domain`` not a Ball) or ValueError (``domain`` not centred at 0,
    bad data or labels, lam < 0, bad ``linear`` or ``weights``), naming the parameter.
    """
    if not isinstance(loss, GLMLoss):
        raise TypeError(f"loss must be a GLMLoss, got {type(loss).__name__}")
    require_centred(domain, "domain")  # F is minimised over B(0, M) (the GLMProblem keeps M only)
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
    return GLMProblem(loss, Xa, ya, pi, c, lam_f, float(domain.radius), np.abs(Xa), np.linalg.norm(Xa, axis=1))


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
    P = prepare_problem(loss, X, y, Ball(np.inf), lam, linear, weights)
    wv = as_float_vector(w, "w", P.d)
    return value_and_error(P, wv)


def value_and_error(P: GLMProblem, w: np.ndarray) -> tuple[float, float]:
    """(F(w), e) with |F(w) − fl(F(w))| ≤ e for a prepared problem; w: (d,) (not validated)."""
    s = P.X @ w
    e_s = rounding_gamma(P.d + 1) * (P.absX @ np.abs(w)) + _U * np.abs(s)
    phi = P.loss.phi(s, P.y)
    slope = _phi_slope_bound(P, s)
    terms = P.pi * phi
    lin = fsum_array(P.c * w)
    nw2 = fsum_array(w * w)
    value = fsum_array(terms) + lin + P.lam * nw2
    err = (
        fsum_array(P.pi * (8 * _U * np.abs(phi) + slope * e_s))
        + 2 * _U * fsum_array(np.abs(terms))
        + rounding_gamma(P.d + 2) * (fsum_array(np.abs(P.c * w)) + P.lam * nw2)
        + 4 * _U * abs(value)
    )
    return float(value), float(err)


def _phi_slope_bound(P: GLMProblem, s: np.ndarray) -> np.ndarray:
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
    P = prepare_problem(loss, X, y, Ball(np.inf), lam, linear, weights)
    wv = as_float_vector(w, "w", P.d)
    return P.X.T @ (P.pi * P.loss.dphi(P.X @ wv, P.y)) + P.c + 2.0 * P.lam * wv


def clip_dual(loss: GLMLoss, a: np.ndarray, y: np.ndarray) -> np.ndarray:
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


def fenchel_young(loss: GLMLoss, s: np.ndarray, a: np.ndarray, y: np.ndarray, e_s: np.ndarray
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
    P = prepare_problem(loss, X, y, domain, lam, linear, weights)
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
    return float(-fsum_array(np.where(P.pi > 0, P.pi * conj, 0.0)) - rstar)
