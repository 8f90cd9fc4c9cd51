"""A-posteriori optimality certificates: the certificate, the refusal, and the floating-point model they share.

An algorithm whose privacy proof assumes an exact (or α-accurate) minimiser gets a point *together with a
certificate* that bounds F(w) − F* and ‖w − w*‖, and refuses (:class:`UncertifiedError`) to go on without one:
the proofs need the bound on every run, so it must be certified a posteriori, never assumed from a solver's
accuracy in expectation.  This module holds what every certificate shares:

* :class:`Certificate` and :class:`UncertifiedError`;
* the projected strong-convexity gap Γ_μ (:func:`regulariser_gap`, below);
* the floating-point model (:data:`UNIT_ROUNDOFF`, :func:`rounding_gamma`, :func:`fsum_array`,
  :func:`fsum_columns`, :func:`sum_columns_extended`).

The certificates of particular objectives build on it: :mod:`dpsco.reference.glm_certificate` (the GLM objective
of :mod:`dpsco.reference.glm_objective`; Fenchel duality gap, strong-convexity and local-curvature gaps) and the
application objectives of :mod:`dpsco.reference.lr21` (tilted, ℓ2-robust and adversarial risks).  The solvers
that produce certified points are in :mod:`dpsco.reference.solvers`.

The projected strong-convexity gap.  On W = B(0, M) and for a (sub)gradient g at a feasible w,

    Γ_μ(g) := max_{v ∈ W} ⟨−g, v − w⟩ − (μ/2)‖v − w‖²

bounds F(w) − F* whenever F is μ-strongly convex (μ = 0: the Frank–Wolfe gap M‖g‖ + ⟨g, w⟩), and then
(μ/2)‖w − w*‖² ≤ F(w) − F* (optimality of w* over W) gives ‖w − w*‖ ≤ √(2Γ_μ/μ).  Γ is evaluated through its
exact Lagrangian dual Γ_μ(g) = min_{κ ≥ 0} κ(M² − ‖w‖²)/2 + ‖g + κw‖²/(2(μ + κ)): every κ gives a valid upper
bound, and the terms are computed without cancellation even when w sits on the sphere.

Floating point.  Certificate sums are computed with ``math.fsum`` (correctly rounded), or, for the n·d
gradient sums of the GLM certificate, in extended precision with the summation's error bound added
(:func:`sum_columns_extended`); every
bound carries a first-order rounding allowance (Higham, *Accuracy and Stability of Numerical Algorithms*,
2nd ed., §3.1: |fl(xᵀw) − xᵀw| ≤ γ_d |x|ᵀ|w|, γ_k = ku/(1 − ku), u = 2⁻⁵³), inflated by a factor of 2;
the elementary functions (exp, log1p, expit) are assumed accurate to 8u relative; eigenvalues from the
backward-stable ``eigvalsh`` are corrected by 10·d·u·‖H‖.  A certificate is therefore a bound for the
problem with the float64 data as given.

References: Boyd & Vandenberghe, *Convex Optimization* (2004), §5 (Lagrange/Fenchel duality); Nesterov,
*Lectures on Convex Optimization* (2018), Thm 2.1.10/2.2.7 (strong convexity bounds).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

__all__ = [
    "UNIT_ROUNDOFF",
    "Certificate",
    "RegulariserGap",
    "UncertifiedError",
    "fsum_array",
    "fsum_columns",
    "sum_columns_extended",
    "regulariser_gap",
    "rounding_gamma",
]

#: unit roundoff u of float64
UNIT_ROUNDOFF = 2.0**-53
_U = UNIT_ROUNDOFF


def rounding_gamma(k: float) -> float:
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


def _jsonable_float(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


def fsum_columns(A: np.ndarray) -> np.ndarray:
    """Correctly rounded column sums of a 2-D array (math.fsum per column)."""
    return np.array([math.fsum(col) for col in A.T.tolist()]) if A.shape[0] else np.zeros(A.shape[1])


#: unit roundoff of ``numpy.longdouble`` (2⁻⁶⁴ for the x87 80-bit format; float64's 2⁻⁵³ where longdouble is double)
UNIT_ROUNDOFF_LONGDOUBLE = float(np.finfo(np.longdouble).eps) / 2.0


def sum_columns_extended(A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column sums of a 2-D float64 array accumulated in ``numpy.longdouble``, and a bound on that accumulation's error.

    Returns ``(s, err)``, both (d,): ``s_ld`` is the column sum accumulated in extended precision (any order), and
    ``err`` ≥ |s_ld − Σ_i A[i, j]| by Higham's bound for summation in any order (*Accuracy and Stability of
    Numerical Algorithms*, 2nd ed., (4.4)): |ŝ − s| ≤ γ_{n−1} Σ_i |a_i|, with γ at the longdouble unit roundoff
    :data:`UNIT_ROUNDOFF_LONGDOUBLE`, doubled like :func:`rounding_gamma`, and Σ|a_i| (computed in float64)
    inflated by (1 + γ_n) for its own rounding.  ``s`` is ``s_ld`` rounded to float64: the caller adds that last
    rounding, ≤ u|s|.  Where longdouble is double the bound is float64's γ_{n−1}, valid but looser.

    This replaced :func:`fsum_columns` in the GLM gradient certificate (issue 29): on x86_64 the two give the
    same float64 sums in practice (extended precision leaves ~11 guard bits), at a fraction of the time
    (``math.fsum`` over n·d Python floats was most of the oracle's time at n = 10⁴, d = 50).
    """
    A = np.asarray(A, dtype=np.float64)
    n = A.shape[0]
    if n == 0:
        return np.zeros(A.shape[1]), np.zeros(A.shape[1])
    s = A.sum(axis=0, dtype=np.longdouble).astype(np.float64)
    k = float(n)
    gamma_ld = 2.0 * k * UNIT_ROUNDOFF_LONGDOUBLE / (1.0 - k * UNIT_ROUNDOFF_LONGDOUBLE)
    err = gamma_ld * np.abs(A).sum(axis=0) * (1.0 + rounding_gamma(k))
    return s, err


def fsum_array(a: np.ndarray) -> float:
    """Correctly rounded sum of all entries of ``a`` (math.fsum)."""
    return math.fsum(np.asarray(a, dtype=np.float64).ravel().tolist())


@dataclass(frozen=True)
class RegulariserGap:
    """What :func:`regulariser_gap` returns."""

    bound: float  # upper bound on Γ_μ(g_t) for every ‖g_t − g‖ ≤ e
    vhat_dist: float  # upper bound on ‖Proj_W(w − g_t/μ) − w‖ (μ > 0), else nan


def regulariser_gap(g: np.ndarray, e: float, w: np.ndarray, M: float, mu: float) -> RegulariserGap:
    """Upper bound on Γ_μ(g_t) = max_{v ∈ B(0,M)} ⟨−g_t, v − w⟩ − (μ/2)‖v − w‖², ‖g_t − g‖ ≤ e.

    Uses the Lagrangian bound B(κ) = κ(M² − ‖w‖²)/2 + (‖g + κw‖ + e)²/(2(μ + κ)), valid for every κ ≥ 0
    (add (κ/2)(M² − ‖v‖²) ≥ 0 and maximise over all v); min_κ B(κ) = Γ_μ(g) when e = 0.

    Parameters: g (d,) the computed (sub)gradient, e ≥ ‖fl(g) − g‖ its error bound, w (d,) the feasible point,
    M the radius of W (may be inf), μ ≥ 0.  Returns :class:`RegulariserGap` (``bound`` ≥ 0, may be inf;
    ``vhat_dist`` bounds ‖Proj_W(w − g_t/μ) − w‖ for μ > 0, nan otherwise).
    """
    d = w.shape[0]
    nw = float(np.linalg.norm(w))
    ng = float(np.linalg.norm(g))
    grow = 1.0 + rounding_gamma(d + 3)
    if not math.isfinite(M):
        if mu > 0:
            bound = (ng * grow + e) ** 2 / (2 * mu) * (1 + 4 * _U)
            return RegulariserGap(bound, (ng * grow + e) / mu * (1 + 4 * _U))
        return RegulariserGap(0.0 if (ng == 0 and e == 0) else math.inf, math.nan)
    nw_lo = nw * (1.0 - rounding_gamma(d + 2))
    slack = max(M - nw_lo, 0.0) * (M + nw * (1.0 + rounding_gamma(d + 2)))  # ≥ M² − ‖w‖²

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
        return RegulariserGap(math.inf, vhat_dist)
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
    return RegulariserGap(max(best, 0.0), vhat_dist)
