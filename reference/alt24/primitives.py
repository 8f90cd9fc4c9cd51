"""Shared primitives of Asi, Liu & Tian (2024): clipping Π_C, the bounded Laplace distribution BLap(R, τ)
(Section 5, Lemma 9) with an exact inverse-CDF sampler, Aggregate (Fact 2, [KLL+23] Claim 1), and the exact
Euclidean projection onto the intersection of two balls (the domain (X − x̄) ∩ B(0, r) of the Corollary 2
solver when X is a ball).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference import projections
from dpsco.reference.clipping import clip_rows
from dpsco.reference.validation import as_float_matrix, as_float_vector, check_positive, check_rng

__all__ = ["aggregate", "clip", "project_ball", "project_ball_intersection", "sample_bounded_laplace", "vector_norm"]


def vector_norm(v: Any) -> float:
    """‖v‖₂ of one vector v (d,), by ``math.hypot`` (scaled internally: no overflow for finite entries up to
    1.8e308 beyond the true norm's own, no underflow for subnormal entries; inf for an infinite entry, NaN for a
    NaN entry unless another is infinite).  The per-step norm of the one-record loops (Algorithms 5, 7, 8) and of
    ``project_ball``'s inside test, where a numpy reduction per step would dominate the run time; the clipping
    guarantee itself is ``dpsco.reference.clipping``'s (``clip_rows``)."""
    return math.hypot(*np.asarray(v, dtype=np.float64).ravel().tolist())


def clip(v: Any, C: float) -> np.ndarray:
    """Π_C(v) = v·min(1, C/‖v‖) with Π_C(0) = 0 (Section 1.1 notation; C = inf is the identity).

    v : (d,) or (..., d) float array (rows, the last axis, clipped independently);  C ≥ 0.  Returns a new array.
    Computed by ``dpsco.reference.clipping.clip_rows``: ‖Π_C(v)‖ ≤ C holds in floating point, norms are
    overflow-safe, a row with an infinite entry goes to C times its limit direction and a row with a NaN to 0."""
    C = check_positive(C, "C", allow_zero=True, allow_inf=True)
    v = np.asarray(v, dtype=np.float64)
    if math.isinf(C):
        return v.copy()
    if v.ndim == 1:
        return clip_rows(v[None, :], C)[0]
    return clip_rows(v, C)


def sample_bounded_laplace(R: float, tau: float, rng: np.random.Generator, size: Any = None) -> Any:
    """Draws of BLap(R, τ): Lap(R) (density ∝ exp(−|ξ|/R)) conditioned on |ξ| ≤ τ (Section 5).

    Exact inverse-CDF sampling of the magnitude, m = −R log(1 − U(1 − e^{−τ/R})), U ~ Unif[0, 1), with an
    independent fair sign.  R = 0 or τ = 0 gives 0 (a point mass: Algorithm 7 with β = 0 has ω_i = 0).

    R, τ ≥ 0 (τ = inf is plain Laplace);  size : None (a float) or an int / shape (an array).
    Raises ValueError / TypeError naming the parameter."""
    R = check_positive(R, "R", allow_zero=True)
    tau = check_positive(tau, "tau", allow_zero=True, allow_inf=True)
    rng = check_rng(rng)
    if R == 0.0 or tau == 0.0:
        return 0.0 if size is None else np.zeros(size)
    u = rng.random(size)
    sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
    # 1 − e^{−τ/R} computed as −expm1(−τ/R) (exact for small τ/R); log1p keeps the small magnitudes exact
    mass = 1.0 if math.isinf(tau) else -math.expm1(-tau / R)
    m = -R * np.log1p(-u * mass)
    out = sign * np.minimum(m, tau)  # the min guards the last ulp of rounding only
    return float(out) if size is None else out


def aggregate(points: Any, R: float) -> tuple[int, np.ndarray]:
    """Aggregate (Fact 2, [KLL+23] Claim 1): the point x_{i*} of ``points`` with the most points within 2R
    (itself included; ties → the smallest index).  If at least 0.51k of the k points lie within R of some
    unknown z, then ‖x_{i*} − z‖ ≤ 3R: x_{i*} sees ≥ 0.51k points within 2R (any good point does), so it
    shares a point with the good set, which is within R of z.  O(dk²) time.

    points : (k, d) float array;  R ≥ 0, data-independent (post-processing of already-private points).
    Returns (i*, points[i*])."""
    P = as_float_matrix(points, "points")
    R = check_positive(R, "R", allow_zero=True)
    sq = np.einsum("ij,ij->i", P, P)
    dist2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * P @ P.T, 0.0)
    # exact ties between computed distances and (2R)² are decided on the computed value: the guarantee only
    # needs counts of points within 2R up to rounding, which the 3R slack of Fact 2 absorbs
    counts = (dist2 <= (2.0 * R) ** 2).sum(axis=1)
    i = int(np.argmax(counts))  # argmax returns the first maximum
    return i, P[i].copy()


def project_ball(y: Any, center: Any, radius: float) -> np.ndarray:
    """Euclidean projection onto B(center, radius): center + Π_radius(y − center).  y : (d,) or (k, d);
    center : (d,);  radius ≥ 0.  The one core projection (``dpsco.reference.projections.project_ball``, argument
    order kept): rows inside are returned unchanged, the others are clipped by ``clip_rows``, so the result lies in
    the ball in floating point and is finite whatever y is (a point with an infinite coordinate goes to the
    boundary point in its limit direction, one with a NaN to the centre: a finite release never depends on an
    overflow upstream)."""
    return projections.project_ball(y, radius, center)


def project_ball_intersection(y: Any, c1: Any, r1: float, c2: Any, r2: float) -> np.ndarray:
    """Exact Euclidean projection of y onto B(c1, r1) ∩ B(c2, r2) (assumed non-empty).

    Not the composition of the two projections (which can miss the intersection's closest point).  The KKT
    conditions leave three cases: y itself; the projection onto one ball when it lies in the other; else the
    closest point of the (d−2)-sphere where both boundary spheres meet, c1 + a·u + h·w/‖w‖ with u the unit
    axis c1 → c2, a and h from the two radii, and w the part of y − c1 orthogonal to u.

    y, c1, c2 : (d,) float arrays;  r1, r2 ≥ 0.  Raises ValueError if the balls do not intersect.  The one core
    two-ball projection (``dpsco.reference.projections.project_ball_intersection``) for one vector."""
    y = as_float_vector(y, "y")
    c1 = as_float_vector(c1, "c1", y.size)
    c2 = as_float_vector(c2, "c2", y.size)
    return projections.project_ball_intersection(y, c1, r1, c2, r2)
