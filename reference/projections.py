"""Euclidean projections onto a ball and onto the intersection of two balls: the one copy every paper uses.

The papers' domains are balls: Bassily et al. (2019, Sec. 2) and Lowy & Razaviyayn project onto B(0, M); Asi, Liu
& Tian (2024) onto B(x̄, r) and, in the Corollary 2 solver, onto (X − x̄) ∩ B(0, r); Asi, Chadha, Cheng & Duchi
(2022, Algorithm 4) onto the domain intersected with the phase's ball; Menart et al. (2023) onto B(w_c, ρ).

Floating-point behaviour (what a sensitivity or a bounded-domain argument may rely on):

* :func:`project_ball` leaves rows already inside the ball (‖y − c‖ ≤ r, overflow-safe norm) **unchanged, bit for
  bit**, and maps the others to c + clip_r(y − c) with ``dpsco.reference.clipping.clip_rows``; for a ball about the
  origin ‖out‖ ≤ r holds as computed (clip_rows' guarantee); for another centre the clipped offset is shrunk by
  steps of about one ulp of c (doubling) until ‖out − c‖ ≤ r holds as computed (after 40 steps, the centre).
* Norms never overflow or underflow (entries up to 1.8e308, subnormals); a row whose offset overflows to ±inf goes
  to the boundary point in its limit direction, a row with a NaN entry to the centre: the result is finite
  whatever the row holds, so a release never raises or turns NaN on one record.
* Edges: radius 0 gives the centre, radius ∞ the input (a copy); a NaN or negative radius, or a non-finite centre,
  raises ValueError naming the parameter.

:func:`project_ball_intersection` is the exact projection onto B(c1, r1) ∩ B(c2, r2) (KKT: the point itself; the
projection onto one ball when it lies in the other; else the nearest point of the (d−2)-sphere where the two
boundary spheres meet), vectorised over rows, with its membership tests at relative tolerance 1e-12.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.clipping import clip_rows_outside, row_norms
from dpsco.reference.validation import check_positive

__all__ = ["project_ball_vector", "INTERSECTION_RTOL", "project_ball", "project_ball_intersection"]

#: relative tolerance of the membership tests of :func:`project_ball_intersection` (the intersection's boundary
#: is computed to this accuracy; the one-ball projections it returns are exact in the sense of project_ball)
INTERSECTION_RTOL = 1e-12

_EPS = float(np.finfo(np.float64).eps)


def _centre(center: Any, d: int, name: str) -> np.ndarray:
    c = np.asarray(center, dtype=np.float64)
    if c.ndim == 0 or c.shape[-1] != d:
        raise ValueError(f"{name} must have {d} coordinates (the last axis), got shape {c.shape}")
    if not np.all(np.isfinite(c)):
        raise ValueError(f"{name} must be finite")
    return c


def project_ball(Y: Any, radius: float, center: Any = None) -> np.ndarray:
    """Euclidean projection of each row of Y onto B(center, radius): y if ‖y − c‖ ≤ r, else c + r(y − c)/‖y − c‖.

    Parameters
    ----------
    Y : (d,) or (k, d) float array; rows (the last axis) are projected independently.
    radius : float ≥ 0 (0: the centre; ``inf``: the identity).
    center : None (the origin) or a finite (d,) array, or (k, d) for one centre per row.

    Returns a new float64 array of Y's shape.  Guarantees (see the module docstring): inside rows unchanged bit for
    bit; ‖out − c‖ ≤ r as computed; finite output for any row (inf → limit direction, NaN → centre).

    Raises
    ------
    ValueError : radius NaN or < 0 (naming ``radius``), centre not finite or of the wrong width (naming ``center``).
    TypeError : radius not a real number.
    """
    # a float ≥ 0 (NaN fails the comparison) is what check_positive returns unchanged: skip the call for it
    r = radius if type(radius) is float and radius >= 0.0 else check_positive(radius, "radius", allow_zero=True,
                                                                              allow_inf=True)
    Y = np.array(Y, dtype=np.float64)
    if Y.ndim == 0:
        raise ValueError("Y must have at least one axis (a (d,) vector or (k, d) rows)")
    c = None if center is None else _centre(center, Y.shape[-1], "center")
    if math.isinf(r) or Y.size == 0:
        return Y
    if Y.ndim == 1 and (c is None or c.ndim == 1):
        # one vector (the per-step call of the one-record loops): math.hypot's correctly scaled norm decides the
        # common inside case without numpy reductions (NaN and inf fall through to the general path)
        with np.errstate(over="ignore", invalid="ignore"):
            v = Y if c is None else Y - c
        if math.hypot(*v.tolist()) <= r:
            return Y
    one = Y.ndim == 1
    Y2 = Y[None, :] if one else Y.reshape(-1, Y.shape[-1])
    C2 = None if c is None else np.broadcast_to(c, Y.shape).reshape(Y2.shape)
    if C2 is None:
        V = Y2
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            V = Y2 - C2
    outside, U = clip_rows_outside(V, r)  # NaN rows count as outside (they go to the centre)
    if U is not None:
        if C2 is None:
            Y2[outside] = U
        else:
            Cs = C2[outside]
            with np.errstate(over="ignore", invalid="ignore"):
                P = Cs + U
                # c + u can round to a point a few ulps of c beyond the sphere: shrink u by a step of about one
                # ulp of c (relative to u), doubled each time, so that P moves; after 40 steps, the centre
                step = 2.0 * _EPS * (1.0 + np.max(np.abs(Cs), axis=-1) / np.maximum(np.max(np.abs(U), axis=-1),
                                                                                   np.finfo(np.float64).tiny))
                for _ in range(40):
                    bad = ~(row_norms(P - Cs) <= r)
                    if not np.any(bad):
                        break
                    U[bad] *= np.maximum(1.0 - step[bad], 0.0)[:, None]
                    P[bad] = Cs[bad] + U[bad]
                    step = np.minimum(2.0 * step, 1.0)
                else:
                    bad = ~(row_norms(P - Cs) <= r)
                    P[bad] = Cs[bad]
            Y2[outside] = P
    return Y2[0] if one else Y2.reshape(Y.shape)


def _within(P: np.ndarray, c: np.ndarray, r: float) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return row_norms(P - c) <= r * (1.0 + INTERSECTION_RTOL)


def _meeting_sphere_point(P: np.ndarray, a: np.ndarray, r: float, b: np.ndarray, s: float) -> np.ndarray:
    """The nearest point to each row of P of the (d−2)-sphere where ∂B(a, r) and ∂B(b, s) meet (rows a, b)."""
    # the sphere's offset t along e = (b − a)/Δ and its radius h, in units of sc = max(Δ, r, s) so that no square
    # overflows or underflows
    delta = row_norms(b - a)[:, None]
    e = (b - a) / delta
    sc = np.maximum(delta, max(r, s))
    dl, rr, ss = delta / sc, r / sc, s / sc
    t = (dl ** 2 + rr ** 2 - ss ** 2) / (2.0 * dl) * sc
    h = np.sqrt(np.maximum(rr ** 2 - (t / sc) ** 2, 0.0)) * sc
    W = (P - a) - np.sum((P - a) * e, axis=1, keepdims=True) * e
    nw = row_norms(W)[:, None]
    if np.any(nw == 0):  # on the axis: every point of the sphere is nearest; take one orthogonal direction
        for i in np.flatnonzero(nw[:, 0] == 0):
            u = np.zeros(P.shape[1])
            u[int(np.argmin(np.abs(e[i])))] = 1.0
            u -= (u @ e[i]) * e[i]
            W[i], nw[i] = u, row_norms(u[None, :])[0]
    return a + t * e + h * (W / nw)


def project_ball_intersection(Y: Any, c1: Any, r1: float, c2: Any, r2: float) -> np.ndarray:
    """Exact Euclidean projection of each row of Y onto B(c1, r1) ∩ B(c2, r2) (not the composition of the two
    projections, which can miss the intersection's nearest point).

    KKT leaves three cases per row: the row itself when it lies in both balls; the projection onto one ball
    (:func:`project_ball`) when that lies in the other; else the nearest point of the (d−2)-sphere where both
    boundary spheres meet.  When one ball contains the other, the projection onto the smaller one.

    Parameters
    ----------
    Y : (d,) or (k, d) float array.  c1, c2 : finite (d,) or (k, d) centres (one per row).  r1, r2 : radii ≥ 0
        (``inf``: that ball is all of R^d).

    Returns a new float64 array of Y's shape; membership holds to relative tolerance :data:`INTERSECTION_RTOL`.

    Raises
    ------
    ValueError : the balls do not intersect (‖c1 − c2‖ > r1 + r2), a NaN / negative radius or non-finite centre
        (naming it).
    """
    r1 = check_positive(r1, "r1", allow_zero=True, allow_inf=True)
    r2 = check_positive(r2, "r2", allow_zero=True, allow_inf=True)
    Y = np.array(Y, dtype=np.float64)
    if Y.ndim == 0:
        raise ValueError("Y must have at least one axis (a (d,) vector or (k, d) rows)")
    d = Y.shape[-1]
    a0, b0 = _centre(c1, d, "c1"), _centre(c2, d, "c2")
    if math.isinf(r1):
        return project_ball(Y, r2, b0)
    if math.isinf(r2):
        return project_ball(Y, r1, a0)
    one = Y.ndim == 1
    P = Y[None, :] if one else Y.reshape(-1, d)
    a = np.broadcast_to(a0, Y.shape).reshape(P.shape)
    b = np.broadcast_to(b0, Y.shape).reshape(P.shape)
    gap = row_norms(b - a)
    if np.any(gap > (r1 + r2) * (1.0 + INTERSECTION_RTOL)):
        raise ValueError(f"the balls B(c1, {r1}) and B(c2, {r2}) do not intersect (‖c1 − c2‖ = {float(np.max(gap))})")
    out = P.copy()
    nested = gap + min(r1, r2) <= max(r1, r2)      # one ball contains the other: the smaller one's projection
    if np.any(nested):
        small_c, small_r = (a, r1) if r1 <= r2 else (b, r2)
        out[nested] = project_ball(P[nested], small_r, small_c[nested])
    rest = np.flatnonzero(~nested)
    if rest.size:
        Pr, ar, br = P[rest], a[rest], b[rest]
        res = project_ball(Pr, r1, ar)           # rows inside B(c1, r1) come back unchanged
        bad = ~_within(res, br, r2)
        if np.any(bad):
            p2 = project_ball(Pr[bad], r2, br[bad])
            ok2 = _within(p2, ar[bad], r1)
            sub = res[bad]
            sub[ok2] = p2[ok2]
            both = ~ok2
            if np.any(both):
                sub[both] = _meeting_sphere_point(Pr[bad][both], ar[bad][both], r1, br[bad][both], r2)
            res[bad] = sub
        out[rest] = res
    return out[0] if one else out.reshape(Y.shape)


def project_ball_vector(v: np.ndarray, R: float) -> np.ndarray:
    """Π_{B(0,R)} of one (d,) float64 vector in a hot loop: ``v`` itself (not a copy: callers pass a temporary)
    when it lies inside with a 1e-12 relative margin, else :func:`project_ball` (which leaves inside rows
    unchanged, so both routes agree); ``R = inf`` gives a copy.  No argument checks (the caller checks R once):
    the one-sample loops of Lowy & Razaviyayn's inner solvers, where checks would cost more than the projection."""
    if not math.isfinite(R):
        return v.copy()
    if float(v @ v) <= R * R * (1.0 - 1e-12):
        return v
    return project_ball(v, R)
