"""A-posteriori certificate for the GLM objective of :mod:`dpsco.reference.glm_objective` (:func:`certify`).

Valid for any feasible w, however it was found.  Write F(w) = Σ π_i φ_i(⟨x_i, w⟩) + r(w) with
r(w) = ⟨c, w⟩ + lam‖w‖² + ι{‖w‖ ≤ M}.

1. **Fenchel duality gap** (every loss, every dual point α with α_i ∈ dom φ_i*):
   D(α) = −Σ π_i φ_i*(α_i) − r*(−Xᵀ(πα)) ≤ F*, so F(w) − F* ≤ F(w) − D(α).  The gap is evaluated as
   the sum of the non-negative Fenchel–Young terms, which avoids the cancellation of F(w) − D(α)::

       F(w) − D(α) = Σ π_i [φ_i(s_i) + φ_i*(α_i) − α_i s_i] + Γ_{2·lam}(g_α),   g_α = Xᵀ(πα) + c + 2·lam·w,

   where Γ_μ is the projected strong-convexity gap of :mod:`dpsco.reference.certificates` (the Fenchel–Young
   gap of r).
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

Every bound carries the rounding allowance of :mod:`dpsco.reference.certificates`, so the certificate holds for
the problem with the float64 data and float64 weights π as given (uniform weights are π_i = fl(1/n)).

References: Boyd & Vandenberghe, *Convex Optimization* (2004), §5; Nesterov, *Lectures on Convex
Optimization* (2018), Thm 2.1.10/2.2.7 (strong convexity bounds).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import expit

from dpsco.reference.certificates import UNIT_ROUNDOFF as _U
from dpsco.reference.certificates import (Certificate, fsum_array, regulariser_gap, rounding_gamma,
                                         sum_columns_extended)
from dpsco.reference.domains import Ball
from dpsco.reference.glm_objective import GLMProblem, clip_dual, fenchel_young, prepare_problem
from dpsco.reference.losses import GLMLoss
from dpsco.reference.validation import as_float_vector

__all__ = ["certify", "certify_problem"]

#: losses whose (generalised) second derivative has a computable lower bound on intervals
_LOCAL_CURVATURE_LOSSES = ("logistic", "squared", "huber")


def _gram_abs_fro_upper(P: GLMProblem, p: np.ndarray) -> float:
    """An upper bound on ‖|X|ᵀ diag(p) |X|‖_F (p ≥ 0), the scale of the rounding error of the Gram matrix Xᵀdiag(p)X.

    ‖Σ_i p_i |x_i||x_i|ᵀ‖_F ≤ Σ_i p_i ‖|x_i||x_i|ᵀ‖_F = Σ_i p_i ‖x_i‖² (triangle inequality; a rank-one matrix's
    Frobenius norm is the product of the norms), computed in O(n) and inflated by (1 + γ_{d+n+2}) for its own
    rounding.  It replaced the exact ‖·‖_F of a second d×d Gram product (issue 29: two of the certificate's four
    Gram products); |X| has non-negative entries, so its Gram matrix is close to rank one and the bound is
    within a small factor of the exact norm, a factor that multiplies an allowance of order γ_{n+2} ≈ 2nu."""
    return float(np.dot(p, P.row_norms * P.row_norms)) * (1.0 + rounding_gamma(P.d + P.n + 2))


def _smoothness_upper(P: GLMProblem) -> float | None:
    """β_F ≥ sup ‖∇²F‖ (upper curvature of the data term + 2 lam), or None for non-smooth losses."""
    b = P.loss.phi_smoothness()
    if b is None or not P.loss.smooth:
        return None
    A = (P.X.T * P.pi) @ P.X
    lmax = float(np.linalg.eigvalsh(A)[-1])
    fro = float(np.linalg.norm(A))
    fro_abs = _gram_abs_fro_upper(P, P.pi)
    lmax_safe = lmax + 10 * P.d * _U * fro + rounding_gamma(P.n + 2) * fro_abs
    return b * lmax_safe * (1 + 4 * _U) + 2 * P.lam


def _curvature_lower(P: GLMProblem, lo: np.ndarray, hi: np.ndarray) -> np.ndarray | None:
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


def _min_eig_lower(P: GLMProblem, m: np.ndarray) -> float:
    """Certified lower bound on λ_min(Σ π_i m_i x_i x_iᵀ) + 2 lam (m ≥ 0)."""
    pm = P.pi * m
    A = (P.X.T * pm) @ P.X
    lmin = float(np.linalg.eigvalsh(A)[0])
    fro = float(np.linalg.norm(A))
    fro_abs = _gram_abs_fro_upper(P, pm)
    return lmin - 10 * P.d * _U * fro - rounding_gamma(P.n + 2) * fro_abs + 2 * P.lam * (1 - 2 * _U)


def _local_modulus(P: GLMProblem, w: np.ndarray, s: np.ndarray, e_s: np.ndarray, g: np.ndarray, e: float
                   ) -> tuple[float, float] | None:
    """(μ_r, r) such that F is μ_r-strongly convex on B(w, r) and every minimiser over W lies in B(w, r).

    Containment: for v ∈ W with ‖v − w‖ = r, F(v) ≥ F(w) − min(‖g_t‖r, Γ_0(g_t)) + μ_r r²/2 > F(w), so the
    (convex) sublevel set {v ∈ W : F(v) ≤ F(w)} lies inside B(w, r).  None when not certifiable.
    """
    if P.loss.name not in _LOCAL_CURVATURE_LOSSES:
        return None

    def mu_of(r: float) -> float:
        rad = P.row_norms * r * (1 + rounding_gamma(P.d + 2)) + e_s
        m = _curvature_lower(P, s - rad, s + rad)
        assert m is not None
        return _min_eig_lower(P, m)

    mu0 = mu_of(0.0)
    if not mu0 > 0:
        return None
    ng_t = float(np.linalg.norm(g)) * (1 + rounding_gamma(P.d + 2)) + e
    fw_t = regulariser_gap(g, e, w, P.M, 0.0).bound
    rho = min(2 * ng_t / mu0, math.sqrt(2 * fw_t / mu0) if math.isfinite(fw_t) else math.inf)
    r_min = 1e-12 * (1.0 + float(np.linalg.norm(w)))
    for factor in (2.0, 8.0, 32.0):
        r = max(factor * rho, r_min)
        mu_r = mu_of(r)
        if mu_r > 0 and min(ng_t * r, fw_t) < 0.5 * mu_r * r * r * (1 - 1e-9):
            return mu_r, r
    return None


def _rounding_s(P: GLMProblem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = P.X @ w
    e_s = rounding_gamma(P.d + 1) * (P.absX @ np.abs(w)) + _U * np.abs(s)
    return s, e_s


def _grad_with_error(P: GLMProblem, w: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, float]:
    """g = Xᵀ(πα) + c + 2 lam w and e ≥ ‖fl(g) − g‖.

    Xᵀ(πα) is summed in extended precision (:func:`~dpsco.reference.certificates.sum_columns_extended`), whose
    error bound joins the per-term allowances (the products' rounding, the three additions, the final rounding)."""
    pa = P.pi * a
    xs, xs_err = sum_columns_extended(P.X * pa[:, None])
    g = xs + P.c + 2 * P.lam * w
    comp = (3 * _U * (P.absX.T @ np.abs(pa)) + xs_err + 2 * _U * (np.abs(P.c) + 2 * P.lam * np.abs(w))
            + 2 * _U * np.abs(g))
    return g, float(np.linalg.norm(comp)) * (1 + rounding_gamma(P.d))


def certify_problem(P: GLMProblem, w: np.ndarray, dual: np.ndarray | None) -> Certificate:
    """:func:`certify` for a prepared problem and a feasible w (d,) (neither validated); ``dual`` as there."""
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
            a = clip_dual(P.loss, a, P.y)
            fy, fy_err = fenchel_young(P.loss, s, a, P.y, e_s)
            fy_sum = fsum_array(P.pi * fy)
            fy_allow = fsum_array(P.pi * fy_err) + 2 * _U * fsum_array(P.pi * np.abs(fy))
            g_a, e_a = _grad_with_error(P, w, a)
            R = regulariser_gap(g_a, e_a, w, M, mu_glob)
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
        e_true = e_g + float(np.linalg.norm(P.absX.T @ (P.pi * dev))) * (1 + rounding_gamma(P.n + 2))
        beta_F = _smoothness_upper(P)
        moduli: list[tuple[float, str]] = []
        if mu_glob > 0 or math.isfinite(M):
            moduli.append((mu_glob, "strong-convexity gap (2*lam)" if mu_glob > 0 else "Frank-Wolfe gap (lam = 0)"))
        loc = _local_modulus(P, w, s, e_s, g, e_true)
        if loc is not None and loc[0] > mu_glob:
            moduli.append((loc[0], "local strong-convexity gap (data curvature)"))
            details["local modulus"] = {"mu_r": loc[0], "r": loc[1]}
        for mu, name in moduli:
            R = regulariser_gap(g, e_true, w, M, mu)
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


def _refined_duals(P: GLMProblem, w: np.ndarray, s: np.ndarray) -> list[np.ndarray]:
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


def _check_feasible(P: GLMProblem, w: np.ndarray) -> None:
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
    P = prepare_problem(loss, X, y, domain, lam, linear, weights)
    wv = as_float_vector(w, "w", P.d)
    _check_feasible(P, wv)
    a = None if dual is None else as_float_vector(dual, "dual", P.n)
    return certify_problem(P, wv, a)
