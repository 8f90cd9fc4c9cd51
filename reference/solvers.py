"""Certified minimisers: points that come with an a-posteriori certificate, or an :class:`UncertifiedError`.

Algorithms that need the *exact* minimiser (objective perturbation, output perturbation, localisation) get
it from :func:`certified_minimize`, which returns a point together with the certificate of
:func:`dpsco.reference.glm_certificate.certify` and refuses (:class:`UncertifiedError`) to return an
uncertified answer: the certificate, not the solver, is what the privacy proofs rely on.

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

:func:`certified_first_order` is the certified solver for any other strongly convex objective over a ball that
brings its own ``certify`` (the tilted, ℓ2-robust and adversarial risks of :mod:`dpsco.reference.lr21`):
projected accelerated gradient, stopped when the objective's certificate reaches the tolerance.

References: Boyd & Vandenberghe, *Convex Optimization* (2004), §9.5 (Newton); Moré & Sorensen (1983),
"Computing a trust region step", SIAM J. Sci. Stat. Comput. 4(3); Beck & Teboulle (2009), "A fast iterative
shrinkage-thresholding algorithm", SIAM J. Imaging Sci. 2(1); O'Donoghue & Candès (2015), "Adaptive restart for
accelerated gradient schemes", Found. Comput. Math. 15.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpsco.reference.certificates import UNIT_ROUNDOFF as _U
from dpsco.reference.certificates import Certificate, UncertifiedError
from dpsco.reference.domains import Ball
from dpsco.reference.glm_certificate import certify_problem
from dpsco.reference.glm_objective import GLMProblem, clip_dual, prepare_problem, value_and_error
from dpsco.reference.losses import GLMLoss
from dpsco.reference.noise import project_ball
from dpsco.reference.validation import check_iterations, check_positive, check_positive_int

__all__ = ["CertifiedSolution", "certified_first_order", "certified_minimize", "strictly_inside"]


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

    def __init__(self, P: GLMProblem):
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


def _recession_direction(P: GLMProblem) -> bool:
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


def _solve_smooth(P: GLMProblem, max_iter: int) -> tuple[np.ndarray, int, str]:
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


def _polish_nonsmooth(P: GLMProblem, w: np.ndarray, alpha: np.ndarray, tau: float
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
    aK = clip_dual(P.loss, alpha, P.y)[K]
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
    return _into_ball(w, P.M), clip_dual(P.loss, alpha_new, P.y)


def _solve_nonsmooth(P: GLMProblem, tol: float) -> tuple[np.ndarray, int, str, Certificate]:
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
        cert = certify_problem(P, wv, alpha)
        if best is None or cert.gap_bound < best[2].gap_bound:
            best = (wv, total_iters, cert)
        for tau in (1e-7, 1e-5, 1e-3):
            pol = _polish_nonsmooth(P, wv, alpha, tau)
            if pol is None:
                continue
            cert_p = certify_problem(P, pol[0], pol[1])
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
    P = prepare_problem(loss, X, y, domain, lam, linear, weights)
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
        cert = certify_problem(P, w, None)
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
    value, _ = value_and_error(P, w)
    return CertifiedSolution(w=w, value=value, certificate=cert, iterations=iters, method=method)


# ================================================================================================
# Certified first-order solver for objectives with their own certificate
# ================================================================================================


def strictly_inside(w: np.ndarray, R: float) -> np.ndarray:
    """w scaled onto ‖w‖ = R(1 − 4e-15) if its norm exceeds R(1 − 1e-15), else w itself (R = inf: w).

    Pulls a projected point a few ulps inside B(0, R), so that the a-posteriori certificates, which refuse a
    point whose float norm exceeds R, accept it.  w: (d,) array."""
    if math.isfinite(R):
        nw = float(np.linalg.norm(w))
        if nw > R * (1 - 1e-15):
            w = w * (R * (1 - 4e-15) / nw)
    return w


def certified_first_order(obj: Any, tol: float, *, max_iter: int = 50_000, check_every: int = 10
                          ) -> tuple[np.ndarray, Certificate]:
    """Projected accelerated gradient (FISTA with backtracking and gradient-scheme restart; Beck & Teboulle 2009,
    O'Donoghue & Candès 2015) on F over B(0, R), stopped when ``obj.certify`` bounds ‖w − w*‖ ≤ tol.

    ``obj`` provides ``value(w)``, ``grad(w)`` ((d,) arrays), ``certify(w) -> Certificate``, ``radius`` R and
    ``d``.  Starts at 0.  Returns (w, certificate) with ‖w‖ < R and ``certificate.distance_bound`` ≤ tol.
    Used as the certified fallback solver of the application objectives of :mod:`dpsco.reference.lr21` (the
    reference never imports the oracles; their independent Newton solver and cvxpy cross-check it).  Raises
    UncertifiedError if
    ``max_iter`` iterations do not reach the certificate (never returns an uncertified point); ValueError /
    TypeError for a bad ``tol``, ``max_iter`` (cap ``dpsco.reference.validation.MAX_ITERATIONS``) or ``check_every``."""
    tol = check_positive(tol, "tol")
    max_iter = check_iterations(max_iter, "max_iter")
    check_every = check_positive_int(check_every, "check_every")
    R = obj.radius
    x = np.zeros(obj.d)
    y_pt, t, Lk = x.copy(), 1.0, 1.0
    fx = obj.value(x)
    cert = obj.certify(x)
    for it in range(1, max_iter + 1):
        fy, gy = obj.value(y_pt), obj.grad(y_pt)
        while True:  # backtracking on the local Lipschitz constant of ∇F
            p = project_ball(y_pt - gy / Lk, R)
            dp = p - y_pt
            fp = obj.value(p)
            if fp <= fy + gy @ dp + 0.5 * Lk * (dp @ dp) + 1e-15 * (1.0 + abs(fy)) or Lk > 1e15:
                break
            Lk *= 2.0
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        if float((y_pt - p) @ (p - x)) > 0:  # adaptive restart (gradient scheme; O'Donoghue & Candès 2015)
            t_new = 1.0
        y_pt = project_ball(p + ((t - 1.0) / t_new) * (p - x), R)
        x, fx, t = p, fp, t_new
        Lk = max(Lk / 1.5, 1e-12)
        if it % check_every == 0:
            cert = obj.certify(strictly_inside(x, R))
            if cert.distance_bound is not None and cert.distance_bound <= tol:
                return strictly_inside(x, R), cert
    cert = obj.certify(strictly_inside(x, R))
    if cert.distance_bound is not None and cert.distance_bound <= tol:
        return strictly_inside(x, R), cert
    raise UncertifiedError(f"certified_first_order: distance bound {cert.distance_bound!r} > tol {tol!r} after "
                           f"{max_iter} iterations", certificate=cert, w=x)
