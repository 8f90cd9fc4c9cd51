"""Tests of the certified solvers and their certificates (dpsco.reference.certificates, glm_objective,
glm_certificate, solvers): certificate soundness, the solvers, refusals, conjugates, input errors.

Independent reference.  The bounds under test are ~1e-14, far below what cvxpy/Clarabel reaches (its
points are 1e-6..1e-5 away from the optimum when the ball constraint is active), so the reference
solutions here are computed in 50-digit mpmath arithmetic:

* smooth losses: Newton on the KKT system (∇F(w) + κw = 0, ‖w‖ = M when the ball is active, κ ≥ 0;
  ∇F(w) = 0 otherwise), verified by its mp residual and a positive mp Hessian, so the reference error is
  ≤ residual/λ_min (reported as ``ref_err``);
* non-smooth losses (hinge, absolute): the KKT system on the kink set, verified by an mp Fenchel duality
  gap F(w_ref) − D(α_ref) computed with conjugates re-implemented here in mp (so F* is pinned to within
  that gap independently of the code under test).

The float solution is used only as a *starting hint*; the verification of the reference is independent.
No test here is stochastic (data come from fixed seeds; hypothesis runs derandomised), so no
false-failure probabilities are involved.  The file is over 600 lines because it is one cohesive thing: the
50-digit reference and the tests that compare the certificates and solvers against it.
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dpsco.reference.certificates import Certificate, UncertifiedError
from dpsco.reference.domains import Ball
from dpsco.reference.glm_certificate import certify
from dpsco.reference.glm_objective import dual_objective, loss_conjugate, objective_gradient, objective_value
from dpsco.reference.losses import GLMLoss, get_loss
from dpsco.reference.solvers import certified_minimize

from _problems import make_problem

MP_DPS = 50  # every mp computation below runs under mp.workdps(MP_DPS) (mpmath precision is global)
MP_EPS = mp.mpf(10) ** -40


@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath precision is global state: set it for each test of this module and restore it after."""
    with mp.workdps(MP_DPS):
        yield

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# =====================================================================================================
# mpmath reference
# =====================================================================================================


class MPProblem:
    """F(w) = Σ π_i φ(⟨x_i, w⟩, y_i) + ⟨c, w⟩ + lam‖w‖² over ‖w‖ ≤ M, in mpmath, with the *same* float
    data and float weights π as the float64 code (π_i = fl(1/n))."""

    def __init__(self, loss: GLMLoss, X: np.ndarray, y: np.ndarray, M: float, lam: float,
                 c: np.ndarray | None = None, pi: np.ndarray | None = None):
        n, d = X.shape
        self.name = loss.name
        self.h = mp.mpf(float(getattr(loss, "threshold", 1.0)))
        self.X = [[mp.mpf(float(v)) for v in row] for row in X]
        self.y = [mp.mpf(float(v)) for v in y]
        self.pi = [mp.mpf(float(p)) for p in (np.full(n, 1.0 / n) if pi is None else pi)]
        self.c = [mp.mpf(float(v)) for v in (np.zeros(d) if c is None else c)]
        self.lam = mp.mpf(float(lam))
        self.M = mp.mpf(float(M)) if math.isfinite(M) else mp.inf
        self.n, self.d = n, d

    # scalar loss pieces -----------------------------------------------------------------------------
    def phi(self, s, y):
        nm = self.name
        if nm == "logistic":
            return mp.log1p(mp.exp(-y * s))
        if nm == "squared":
            return (s - y) ** 2 / 2
        if nm == "huber":
            r = abs(s - y)
            return r * r / 2 if r <= self.h else self.h * r - self.h ** 2 / 2
        if nm == "hinge":
            return max(mp.mpf(0), 1 - y * s)
        if nm == "absolute":
            return abs(y - s)
        return s  # linear

    def dphi(self, s, y):
        nm = self.name
        if nm == "logistic":
            return -y / (1 + mp.exp(y * s))
        if nm == "squared":
            return s - y
        if nm == "huber":
            return max(-self.h, min(self.h, s - y))
        return mp.mpf(1)  # linear

    def d2phi(self, s, y):
        nm = self.name
        if nm == "logistic":
            e = mp.exp(-abs(s))
            return e / (1 + e) ** 2
        if nm == "huber":
            return mp.mpf(1) if abs(s - y) <= self.h else mp.mpf(0)
        return mp.mpf(1) if nm == "squared" else mp.mpf(0)

    def conj(self, a, y):
        """φ*(a) re-derived here (not imported): ±inf outside the domain."""
        nm = self.name
        if nm in ("logistic", "hinge"):
            t = -y * a
            if t < 0 or t > 1:
                return mp.inf
            if nm == "hinge":
                return -t
            return (t * mp.log(t) if t > 0 else 0) + ((1 - t) * mp.log(1 - t) if t < 1 else 0)
        if nm == "absolute":
            return a * y if abs(a) <= 1 else mp.inf
        if nm == "huber":
            return a * a / 2 + a * y if abs(a) <= self.h else mp.inf
        if nm == "squared":
            return a * a / 2 + a * y
        return mp.mpf(0) if a == 1 else mp.inf

    # objective ---------------------------------------------------------------------------------------
    def s(self, w):
        return [mp.fsum(xi * wi for xi, wi in zip(row, w)) for row in self.X]

    def F(self, w):
        s = self.s(w)
        data = mp.fsum(p * self.phi(si, yi) for p, si, yi in zip(self.pi, s, self.y))
        return data + mp.fsum(ci * wi for ci, wi in zip(self.c, w)) + self.lam * mp.fsum(wi * wi for wi in w)

    def grad_hess(self, w):
        s = self.s(w)
        d = self.d
        g = [self.c[j] + 2 * self.lam * w[j] for j in range(d)]
        H = mp.matrix(d, d)
        for i in range(self.n):
            a = self.pi[i] * self.dphi(s[i], self.y[i])
            b = self.pi[i] * self.d2phi(s[i], self.y[i])
            for j in range(d):
                g[j] += a * self.X[i][j]
                for k in range(d):
                    H[j, k] += b * self.X[i][j] * self.X[i][k]
        for j in range(d):
            H[j, j] += 2 * self.lam
        return g, H

    def dual(self, alpha):
        """D(α) = −Σ π φ*(α) − r*(−Xᵀ(πα)), r*(u) = max_{‖v‖≤M} ⟨u − c, v⟩ − lam‖v‖²."""
        conj = mp.fsum(p * self.conj(a, yi) for p, a, yi in zip(self.pi, alpha, self.y))
        z = [-mp.fsum(self.pi[i] * alpha[i] * self.X[i][j] for i in range(self.n)) - self.c[j]
             for j in range(self.d)]
        nz = mp.sqrt(mp.fsum(t * t for t in z))
        if self.lam > 0 and nz <= 2 * self.lam * self.M:
            rstar = nz * nz / (4 * self.lam)
        elif self.M != mp.inf:
            rstar = self.M * nz - self.lam * self.M ** 2
        else:
            rstar = mp.mpf(0) if nz == 0 else mp.inf
        return -conj - rstar


def _min_eig(H):
    ev = mp.eigsy(H, eigvals_only=True)
    return min(ev[i] for i in range(ev.rows))


def _norm(v):
    return mp.sqrt(mp.fsum(t * t for t in v))


def mp_smooth_reference(P: MPProblem, hint: np.ndarray) -> tuple[list, mp.mpf, mp.mpf]:
    """(w_ref, F(w_ref), ref_err) for a smooth loss, by mp Newton on the KKT system (see module doc)."""
    d = P.d
    w = [mp.mpf(float(v)) for v in hint]
    active = P.M != mp.inf and float(np.linalg.norm(hint)) >= float(P.M) * (1 - 1e-9)
    if active:
        nw = _norm(w)
        w = [t * P.M / nw for t in w]
        g, _ = P.grad_hess(w)
        kappa = -mp.fsum(gi * wi for gi, wi in zip(g, w)) / P.M ** 2
        for _ in range(60):
            g, H = P.grad_hess(w)
            r = [g[j] + kappa * w[j] for j in range(d)] + [(mp.fsum(t * t for t in w) - P.M ** 2) / 2]
            if _norm(r) < MP_EPS:
                break
            J = mp.matrix(d + 1, d + 1)
            for j in range(d):
                for k in range(d):
                    J[j, k] = H[j, k] + (kappa if j == k else 0)
                J[j, d] = w[j]
                J[d, j] = w[j]
            step = mp.lu_solve(J, mp.matrix([-t for t in r]))
            w = [w[j] + step[j] for j in range(d)]
            kappa += step[d]
        g, H = P.grad_hess(w)
        resid = _norm([g[j] + kappa * w[j] for j in range(d)])
        if kappa >= 0:
            for j in range(d):
                H[j, j] += kappa
            lmin = _min_eig(H)
            assert lmin > 0 and resid < 1e-30
            return w, P.F(w), resid / lmin
        w = [mp.mpf(float(v)) for v in hint]  # κ < 0: the constraint is not active after all
    for _ in range(200):
        g, H = P.grad_hess(w)
        if _norm(g) < MP_EPS:
            break
        step = mp.lu_solve(H, mp.matrix([-t for t in g]))
        f0 = P.F(w)
        t = mp.mpf(1)
        slope = mp.fsum(g[j] * step[j] for j in range(d))
        while P.F([w[j] + t * step[j] for j in range(d)]) > f0 + t * slope / 4 and t > 1e-30:
            t /= 2
        w = [w[j] + t * step[j] for j in range(d)]
    g, H = P.grad_hess(w)
    lmin = _min_eig(H)
    assert lmin > 0 and _norm(g) < 1e-30
    assert P.M == mp.inf or _norm(w) <= P.M, "unconstrained minimiser outside the ball but hint was inside"
    return w, P.F(w), _norm(g) / lmin


def mp_nonsmooth_reference(P: MPProblem, hint: np.ndarray) -> tuple[list, mp.mpf, mp.mpf] | None:
    """(w_ref, F(w_ref), mp duality gap) for hinge/absolute, or None if the kink-set KKT solve fails."""
    d, n = P.d, P.n
    Xf = np.array([[float(v) for v in row] for row in P.X])
    yf = np.array([float(v) for v in P.y])
    s_h = Xf @ hint
    K = [i for i in range(n) if abs(s_h[i] - yf[i]) <= 1e-6 * (1 + abs(yf[i]))]
    if P.name == "hinge":
        side = [(-P.y[i] if yf[i] * s_h[i] < 1 else mp.mpf(0)) for i in range(n)]
    else:
        side = [mp.mpf(np.sign(s_h[i] - yf[i])) for i in range(n)]
    active = P.M != mp.inf and float(np.linalg.norm(hint)) >= float(P.M) * (1 - 1e-9)
    nK = len(K)
    w = [mp.mpf(float(v)) for v in hint]
    aK = [mp.mpf(0)] * nK
    kappa = mp.mpf(0)
    base = [P.c[j] + mp.fsum(P.pi[i] * side[i] * P.X[i][j] for i in range(n) if i not in K) for j in range(d)]
    m = d + nK + (1 if active else 0)
    for _ in range(40):
        r1 = [(2 * P.lam + kappa) * w[j] + base[j] + mp.fsum(P.pi[i] * aK[q] * P.X[i][j] for q, i in enumerate(K))
              for j in range(d)]
        r2 = [mp.fsum(P.X[i][j] * w[j] for j in range(d)) - P.y[i] for i in K]
        r = r1 + r2 + ([(mp.fsum(t * t for t in w) - P.M ** 2) / 2] if active else [])
        if _norm(r) < MP_EPS:
            break
        J = mp.matrix(m, m)
        for j in range(d):
            J[j, j] = 2 * P.lam + kappa
            for q, i in enumerate(K):
                J[j, d + q] = P.pi[i] * P.X[i][j]
                J[d + q, j] = P.X[i][j]
            if active:
                J[j, m - 1] = w[j]
                J[m - 1, j] = w[j]
        # Levenberg–Marquardt step (JᵀJ + 1e-40 I) Δ = −Jᵀr: the Newton step when J is nonsingular, a
        # minimum-norm step when the kink set is degenerate (e.g. a non-unique LP solution)
        JT = J.T
        A = JT * J
        for j in range(m):
            A[j, j] += mp.mpf(10) ** -40
        try:
            step = mp.lu_solve(A, -(JT * mp.matrix(r)))
        except ZeroDivisionError:
            return None
        w = [w[j] + step[j] for j in range(d)]
        aK = [aK[q] + step[d + q] for q in range(nK)]
        if active:
            kappa += step[m - 1]
    alpha = list(side)
    for q, i in enumerate(K):
        alpha[i] = aK[q]
    if active and _norm(w) > P.M:
        w = [t * P.M / _norm(w) for t in w]
    if not active and P.M != mp.inf and _norm(w) > P.M:
        return None
    Fw = P.F(w)
    D = P.dual(alpha)
    if not (D > -mp.inf) or Fw - D > 1e-30:
        return None
    return w, Fw, Fw - D


# =====================================================================================================
# Problem generator
# =====================================================================================================

LOSSES = ["logistic", "squared", "huber", "linear", "hinge", "absolute"]


def reference(loss, X, y, M, lam, hint, c=None, pi=None):
    P = MPProblem(loss, X, y, M, lam, c, pi)
    if loss.smooth:
        w, Fw, err = mp_smooth_reference(P, hint)
    else:
        out = mp_nonsmooth_reference(P, hint)
        assume(out is not None)
        w, Fw, err = out  # err = mp duality gap (a value error)
    return P, w, Fw, err


def dist_mp(w_float, w_ref):
    return _norm([mp.mpf(float(a)) - b for a, b in zip(w_float, w_ref)])


def _ref_distance_error(loss, lam, err):
    """How far w_ref may be from w*: err itself (smooth: residual/λ_min) or √(2·gap/(2 lam)) (non-smooth)."""
    if loss.smooth:
        return err
    return mp.sqrt(2 * max(err, 0) / (2 * mp.mpf(lam))) if lam > 0 else mp.inf


# =====================================================================================================
# Soundness of certified_minimize and certify
# =====================================================================================================

problem_strategy = st.tuples(
    st.integers(1, 4),  # d
    st.integers(5, 30),  # n
    st.integers(0, 2**32 - 1),  # seed
    st.sampled_from([0.0, 0.05]),  # lam
    st.sampled_from(["small", "large", "inf"]),  # radius kind
)


def _radius(kind: str) -> float:
    return {"small": 0.15, "large": 50.0, "inf": math.inf}[kind]


def _skip_uncertifiable(name: str, lam: float, M: float) -> None:
    # lam = 0 with M = ∞ is refused for non-smooth and linear losses (tested separately) and may have no
    # minimiser for logistic (separable data; tested separately).
    assume(not (lam == 0 and not math.isfinite(M) and name in ("hinge", "absolute", "linear", "logistic")))


@pytest.mark.parametrize("name", LOSSES)
@SETTINGS
@given(problem_strategy)
def test_certified_minimize_bounds_hold_against_mp_reference(name, params):
    d, n, seed, lam, kind = params
    M = _radius(kind)
    _skip_uncertifiable(name, lam, M)
    loss, X, y = make_problem(name, n, d, seed)
    try:
        sol = certified_minimize(loss, X, y, Ball(M), lam=lam)
    except UncertifiedError:
        # squared/huber with lam = 0, M = ∞ may be legitimately uncertifiable (flat directions when the
        # Huber inliers do not span ℝᵈ); nothing else should refuse on these small problems.
        assert lam == 0 and not math.isfinite(M) and name == "huber"
        return
    cert = sol.certificate
    assert np.linalg.norm(sol.w) <= M
    # the target is met: distance (smooth, lam > 0) or gap
    assert (cert.distance_bound if (loss.smooth and lam > 0) else cert.gap_bound) <= 1e-9
    P, w_ref, F_ref, err = reference(loss, X, y, M, lam, sol.w)
    # gap soundness: F(w) − F* ≥ F(w) − F(w_ref) − (F(w_ref) − F*) and F(w_ref) − F* ≤ err·(1 + ...)
    true_gap_lower = P.F([mp.mpf(float(v)) for v in sol.w]) - F_ref - (err if not loss.smooth else 0)
    assert cert.gap_bound >= true_gap_lower - mp.mpf(10) ** -30
    if cert.distance_bound is not None:
        ref_err = _ref_distance_error(loss, lam, err)
        assert cert.distance_bound >= dist_mp(sol.w, w_ref) - ref_err


@pytest.mark.parametrize("name", LOSSES)
@SETTINGS
@given(problem_strategy, st.sampled_from([1e-7, 1e-4, 1e-2, 0.3]), st.integers(0, 2**32 - 1))
def test_certify_at_perturbed_point_bounds_true_gap_and_distance(name, params, size, seed2):
    d, n, seed, lam, kind = params
    M = _radius(kind)
    _skip_uncertifiable(name, lam, M)
    loss, X, y = make_problem(name, n, d, seed)
    try:
        sol = certified_minimize(loss, X, y, Ball(M), lam=lam)
    except UncertifiedError:
        assume(False)
    P, w_ref, F_ref, err = reference(loss, X, y, M, lam, sol.w)
    rng = np.random.default_rng(seed2)
    delta = rng.standard_normal(d)
    wp = Ball(M).project(sol.w + size * delta / np.linalg.norm(delta))
    if math.isfinite(M) and np.linalg.norm(wp) > M:
        wp *= 1 - 2.0**-50
    cert = certify(loss, X, y, Ball(M), wp, lam=lam)
    F_p = P.F([mp.mpf(float(v)) for v in wp])
    # true gap ≥ F(wp) − F(w_ref) − (F(w_ref) − F*)
    assert cert.gap_bound >= F_p - F_ref - (err if not loss.smooth else 0) - mp.mpf(10) ** -30
    if cert.distance_bound is not None:
        assert cert.distance_bound >= dist_mp(wp, w_ref) - _ref_distance_error(loss, lam, err)


@pytest.mark.parametrize("name", LOSSES)
@settings(max_examples=10, deadline=None, derandomize=True)
@given(st.integers(1, 4), st.integers(5, 30), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.05]),
       st.sampled_from(["small", "large"]))
def test_weights_equal_duplicated_rows(name, d, n, seed, lam, kind):
    """Integer weights k_i give the same problem as repeating row i k_i times (up to float weights)."""
    M = _radius(kind)
    loss, X, y = make_problem(name, n, d, seed)
    counts = np.random.default_rng(seed + 1).integers(1, 4, size=n)
    Xr, yr = np.repeat(X, counts, axis=0), np.repeat(y, counts)
    a = certified_minimize(loss, X, y, Ball(M), lam=lam, weights=counts.astype(float), tol=1e-10)
    b = certified_minimize(loss, Xr, yr, Ball(M), lam=lam, tol=1e-10)
    # both problems are the same up to π rounding (relative 2^-52): values agree within both gaps + 1e-14
    assert abs(a.value - b.value) <= a.certificate.gap_bound + b.certificate.gap_bound + 1e-14
    if a.certificate.distance_bound is not None and b.certificate.distance_bound is not None:
        # π differs by ≤ 2^-52 relatively, moving w* by O(1e-15); allow 1e-12
        assert np.linalg.norm(a.w - b.w) <= a.certificate.distance_bound + b.certificate.distance_bound + 1e-12


# =====================================================================================================
# Golden values (hand-derived closed forms)
# =====================================================================================================


@pytest.mark.parametrize("M", [0.1, 10.0, math.inf])
def test_linear_loss_closed_form_and_tight_gap(M):
    """Linear loss: F(w) = ⟨ḡ, w⟩ + lam‖w‖², ḡ = mean x + c.  Hand derivation: w* = −ḡ/(2 lam) if
    ‖ḡ‖ ≤ 2 lam M, else −M ḡ/‖ḡ‖.  F is exactly quadratic with Hessian 2 lam I, so the strong-convexity
    gap Γ(w) equals F(w) − F* exactly: the certificate must be sound *and* tight (to rounding)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((12, 3)) / 3
    c = np.array([0.2, -0.1, 0.05])
    lam = 0.3
    loss = get_loss("linear")
    gbar = X.mean(axis=0) + c
    if np.linalg.norm(gbar) <= 2 * lam * M:
        w_star = -gbar / (2 * lam)
    else:
        w_star = -M * gbar / np.linalg.norm(gbar)
    f_star = float(gbar @ w_star + lam * w_star @ w_star)
    sol = certified_minimize(loss, X, np.zeros(12), Ball(M), lam=lam, linear=c)
    assert np.linalg.norm(sol.w - w_star) <= sol.certificate.distance_bound + 1e-15
    assert sol.certificate.distance_bound <= 1e-12
    # perturbed point: gap bound vs exact gap
    wp = Ball(M).project(w_star + np.array([0.01, -0.02, 0.03])) * (1 - 1e-15)
    true_gap = float(gbar @ wp + lam * wp @ wp) - f_star
    cert = certify(loss, X, np.zeros(12), Ball(M), wp, lam=lam, linear=c)
    assert true_gap - 1e-15 <= cert.gap_bound <= true_gap * (1 + 1e-9) + 1e-15


def test_squared_loss_unconstrained_matches_normal_equations():
    """lam = 0, M = ∞ least squares: w* solves XᵀX w = Xᵀy (computed here in mpmath)."""
    loss, X, y = make_problem("squared", 20, 3, 11)
    sol = certified_minimize(loss, X, y, Ball(math.inf))
    A = mp.matrix([[mp.fsum(mp.mpf(X[i, j]) * mp.mpf(X[i, k]) for i in range(20)) for k in range(3)]
                   for j in range(3)])
    b = mp.matrix([mp.fsum(mp.mpf(X[i, j]) * mp.mpf(y[i]) for i in range(20)) for j in range(3)])
    w_star = mp.lu_solve(A, b)
    assert sol.certificate.distance_bound is not None
    assert dist_mp(sol.w, list(w_star)) <= sol.certificate.distance_bound
    assert sol.certificate.method.startswith("local strong-convexity")


def test_logistic_duplicate_points_with_both_labels_has_minimiser():
    """Quasi-complete non-separability: every x appears with both labels, so F(w) → ∞ as ‖w‖ → ∞ and
    the lam = 0, M = ∞ minimiser exists (by symmetry of each pair it is w = 0 with x̄-weights equal):
    each pair contributes log(1+e^{−s}) + log(1+e^{s}), minimised at s = 0, so w* = 0."""
    rng = np.random.default_rng(3)
    Xh = rng.standard_normal((6, 2)) / 2
    X = np.vstack([Xh, Xh])
    y = np.concatenate([np.ones(6), -np.ones(6)])
    sol = certified_minimize(get_loss("logistic"), X, y, Ball(math.inf))
    assert np.linalg.norm(sol.w) <= sol.certificate.distance_bound <= 1e-12
    assert abs(sol.value - math.log(2)) <= 1e-15


# =====================================================================================================
# Refusals and input errors
# =====================================================================================================


def test_max_iter_too_small_raises_uncertified():
    loss, X, y = make_problem("logistic", 30, 3, 5)
    with pytest.raises(UncertifiedError) as info:
        certified_minimize(loss, X, y, Ball(0.1), lam=0.01, tol=1e-12, max_iter=1)
    assert info.value.certificate is not None
    # and with enough iterations the same problem is certified
    assert certified_minimize(loss, X, y, Ball(0.1), lam=0.01, tol=1e-12).certificate.distance_bound <= 1e-12


def test_separable_logistic_unconstrained_is_refused():
    X = np.array([[1.0, 0.0], [2.0, 0.5], [-1.0, 0.2], [-2.0, -0.3]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    with pytest.raises(ValueError, match="separable"):
        certified_minimize(get_loss("logistic"), X, y, Ball(math.inf))
    # a finite radius (or lam > 0) makes it well posed
    sol = certified_minimize(get_loss("logistic"), X, y, Ball(2.0))
    assert abs(np.linalg.norm(sol.w) - 2.0) <= 1e-12


@pytest.mark.parametrize("name", ["hinge", "absolute", "linear"])
def test_unbounded_unregularised_refused(name):
    loss, X, y = make_problem(name, 10, 2, 1)
    with pytest.raises(ValueError, match="lam"):
        certified_minimize(loss, X, y, Ball(math.inf))


@pytest.mark.parametrize(
    "kwargs, exc, word",
    [
        ({"lam": -1.0}, ValueError, "lam"),
        ({"lam": float("nan")}, ValueError, "lam"),
        ({"tol": 0.0}, ValueError, "tol"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": 2.5}, TypeError, "max_iter"),
        ({"linear": np.ones(3)}, ValueError, "linear"),
        ({"weights": -np.ones(10)}, ValueError, "weights"),
        ({"weights": np.zeros(10)}, ValueError, "weights"),
        ({"weights": np.ones(9)}, ValueError, "weights"),
    ],
)
def test_bad_inputs_name_the_parameter(kwargs, exc, word):
    loss, X, y = make_problem("logistic", 10, 2, 1)
    with pytest.raises(exc, match=word):
        certified_minimize(loss, X, y, Ball(1.0), **kwargs)


def test_bad_data_and_types():
    loss, X, y = make_problem("logistic", 10, 2, 1)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X"):
        certified_minimize(loss, Xn, y, Ball(1.0))
    with pytest.raises(ValueError, match="y"):
        certified_minimize(loss, X, (y + 1) / 2, Ball(1.0))  # {0, 1} labels
    with pytest.raises(ValueError, match="rows"):
        certified_minimize(loss, X, y[:-1], Ball(1.0))
    with pytest.raises(TypeError, match="domain"):
        certified_minimize(loss, X, y, 1.0)
    with pytest.raises(TypeError, match="loss"):
        certified_minimize("logistic", X, y, Ball(1.0))
    with pytest.raises(ValueError, match="w"):
        certify(loss, X, y, Ball(1.0), np.array([1.0, 1.0]))  # outside the ball
    with pytest.raises(ValueError, match="dual"):
        certify(loss, X, y, Ball(1.0), np.zeros(2), dual=np.zeros(3))


def test_uncertifiable_point_gives_infinite_gap():
    """lam = 0, M = ∞ and a linear loss: nothing can be certified at a non-stationary point."""
    loss = get_loss("linear")
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    cert = certify(loss, X, np.zeros(2), Ball(math.inf), np.zeros(2))
    assert cert.gap_bound == math.inf and cert.distance_bound is None


# =====================================================================================================
# Conjugates, weak duality, certificate serialisation
# =====================================================================================================


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.sampled_from(LOSSES), st.floats(-3, 3), st.floats(-1, 1), st.sampled_from([-1.0, 1.0]),
       st.floats(-2, 2))
def test_fenchel_young_inequality_and_conjugate_value(name, s, t, ysign, yreal):
    """φ(s) + φ*(α) ≥ αs for α ∈ dom φ*, and φ*(α) = sup_s αs − φ(s) (checked by 1-D maximisation)."""
    loss = get_loss(name)
    y = ysign if loss.binary_labels else yreal
    # a point of dom φ*
    alpha = {"logistic": -y * (t + 1) / 2, "hinge": -y * (t + 1) / 2, "absolute": t,
             "huber": t, "squared": 2 * t, "linear": 1.0}[name]
    conj = float(loss_conjugate(loss, np.array([alpha]), np.array([y]))[0])
    phi = float(loss.phi(np.array([s]), np.array([y]))[0])
    assert phi + conj >= alpha * s - 1e-12
    # sup_s αs − φ(s) over a grid that contains the kink s = y, plus a bounded 1-D maximisation, never
    # exceeds φ*, and comes within 1e-7 of it (α s − φ(s) is concave; logistic: the sup is approached
    # only as |s| → ∞ when t ∈ {0, 1}, so that case is checked one-sidedly)
    from scipy.optimize import minimize_scalar

    def val(z):
        z = np.atleast_1d(np.asarray(z, dtype=float))
        return alpha * z - loss.phi(z, np.full_like(z, y))

    grid = np.concatenate([np.linspace(-60, 60, 24001), [y]])
    best = float(np.max(val(grid)))
    res = minimize_scalar(lambda z: -float(val(z)[0]), bounds=(-60, 60), method="bounded",
                          options={"xatol": 1e-12})
    best = max(best, -float(res.fun))
    assert best <= conj + 1e-9
    if name != "logistic" or 0.001 < abs(alpha) < 0.999:
        assert best >= conj - 1e-7


def test_conjugate_outside_domain_is_inf():
    y = np.array([1.0])
    assert loss_conjugate(get_loss("hinge"), np.array([0.5]), y)[0] == math.inf  # t = −0.5
    assert loss_conjugate(get_loss("absolute"), np.array([1.5]), y)[0] == math.inf
    assert loss_conjugate(get_loss("linear"), np.array([0.5]), y)[0] == math.inf
    assert loss_conjugate(get_loss("huber", threshold=0.3), np.array([0.4]), y)[0] == math.inf


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.sampled_from(LOSSES), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.1]),
       st.sampled_from([0.5, math.inf]))
def test_weak_duality(name, seed, lam, M):
    """D(α) ≤ F(w) for every α ∈ dom φ* and every w ∈ W (random α, w)."""
    assume(not (lam == 0 and not math.isfinite(M)))
    loss, X, y = make_problem(name, 15, 3, seed)
    rng = np.random.default_rng(seed)
    raw = rng.uniform(-1.5, 1.5, size=15)
    if name in ("logistic", "hinge"):
        alpha = -y * np.clip(np.abs(raw) / 1.5, 0, 1)
    elif name == "absolute":
        alpha = np.clip(raw, -1, 1)
    elif name == "huber":
        alpha = np.clip(raw, -0.3, 0.3)
    elif name == "linear":
        alpha = np.ones(15)
    else:
        alpha = raw
    w = Ball(M).project(rng.standard_normal(3))
    if math.isfinite(M):
        w *= 0.999
    assert dual_objective(loss, X, y, Ball(M), alpha, lam=lam) <= objective_value(loss, X, y, w, lam=lam) + 1e-12


def test_objective_gradient_matches_finite_differences():
    loss, X, y = make_problem("logistic", 20, 3, 2)
    c = np.array([0.1, 0.2, -0.3])
    w = np.array([0.3, -0.2, 0.5])
    g = objective_gradient(loss, X, y, w, lam=0.2, linear=c)
    h = 1e-6
    fd = np.array([(objective_value(loss, X, y, w + h * e, lam=0.2, linear=c)
                    - objective_value(loss, X, y, w - h * e, lam=0.2, linear=c)) / (2 * h) for e in np.eye(3)])
    # central differences: error O(h²·|F'''|) + O(eps/h) ≤ 1e-9 here
    assert np.allclose(g, fd, atol=1e-9, rtol=0)


def test_certificate_and_solution_serialise_to_json():
    loss, X, y = make_problem("hinge", 15, 2, 4)
    sol = certified_minimize(loss, X, y, Ball(0.5), lam=0.1)
    text = json.dumps(sol.to_dict())
    back = json.loads(text)
    assert back["certificate"]["gap_bound"] == sol.certificate.gap_bound
    assert isinstance(sol.certificate, Certificate)
    assert "Clarabel" in sol.method and sol.certificate.method == "Fenchel duality gap"


def test_certify_with_explicit_dual():
    """A user-supplied dual point is used by the Fenchel route: the optimal dual α = φ'(Xw*) gives a
    vanishing gap; an arbitrary (clipped) dual still gives a valid, larger bound in the details."""
    loss, X, y = make_problem("logistic", 25, 3, 8)
    sol = certified_minimize(loss, X, y, Ball(5.0), lam=0.01)
    good = certify(loss, X, y, Ball(5.0), sol.w, lam=0.01, dual=loss.dphi(X @ sol.w, y))
    assert good.details["Fenchel duality gap"]["gap"] <= 1e-14
    bad = certify(loss, X, y, Ball(5.0), sol.w, lam=0.01, dual=np.zeros(25))
    assert bad.details["Fenchel duality gap"]["gap"] > 1e-3
    # the reported bound is the best of all routes, so it is unaffected by a poor dual
    assert bad.gap_bound == pytest.approx(good.gap_bound, rel=1e-6, abs=1e-20)


_FINITE = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.lists(st.lists(_FINITE, min_size=3, max_size=3), min_size=n,
                                                     max_size=n)))
def test_extended_column_sums_are_within_their_bound(rows: list[list[float]]) -> None:
    """sum_columns_extended (the GLM gradient certificate's sums, issue 29): the float64 result differs from the
    exact sum of the float64 entries (rational arithmetic, an independent oracle) by at most the returned bound plus
    the final rounding u|s|.  Deterministic: exact arithmetic, no tolerance."""
    from fractions import Fraction

    from dpsco.reference.certificates import UNIT_ROUNDOFF, sum_columns_extended

    A = np.array(rows, dtype=np.float64)
    s, err = sum_columns_extended(A)
    assert s.shape == err.shape == (3,) and np.all(err >= 0)
    for j in range(3):
        exact = sum((Fraction(float(v)) for v in A[:, j]), Fraction(0))
        assert abs(Fraction(float(s[j])) - exact) <= Fraction(float(err[j])) + Fraction(UNIT_ROUNDOFF) * abs(
            Fraction(float(s[j])))


def test_extended_column_sums_catch_cancellation_that_float64_loses() -> None:
    """The case the bound is for: 1e16 + 1 − 1e16 in one column.  Recursive float64 summation returns 0; the
    extended sum (x86-64: 64-bit significand) returns the exact 1, or — where longdouble is double — a result
    whose bound covers the error."""
    from dpsco.reference.certificates import sum_columns_extended

    A = np.array([[1e16], [1.0], [-1e16]])
    s, err = sum_columns_extended(A)
    assert abs(s[0] - 1.0) <= err[0]
