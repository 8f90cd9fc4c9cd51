"""Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070: the inner solver of Algorithm 4 (line 4's regularised ERM
over the phase's domain, lines 6–9's noise) in ``dpsco.reference.accd22.algorithms``.

References are computed here, independently of the code under test: cvxpy (Clarabel) solves each convex problem,
and its solution is then polished by Newton's method (scipy ``root``) on the KKT equations of an active set, with
an a-posteriori certificate.  The polishing is needed: at a point on a sphere the objective is flat to second
order along the constraint, so Clarabel's stopping rule (duality gap ≤ 1e-8) only pins the point down to about
√(gap/μ) — up to 3e-4 on these problems, far above the 1e-6 we compare at.

Certificate (used by :func:`_kkt_reference`).  Let G be μ-strongly convex, K = {x : g_i(x) ≤ 0} with
g_i(x) = ½(‖x − c_i‖² − r_i²), x_f ∈ K, λ ≥ 0 and r = ∇G(x_f) + Σ_i λ_i(x_f − c_i).  For x ∈ K, convexity of g_i gives
⟨x_f − c_i, x − x_f⟩ ≤ g_i(x) − g_i(x_f) ≤ |g_i(x_f)|, so ⟨∇G(x_f), x − x_f⟩ ≥ −‖r‖‖x − x_f‖ − s with
s = Σ_i λ_i|g_i(x_f)|; at x = x* = argmin_K G, adding ⟨∇G(x*), x_f − x*⟩ ≥ 0 and strong convexity give
μ‖x_f − x*‖² ≤ ‖r‖‖x_f − x*‖ + s, hence ‖x_f − x*‖ ≤ ‖r‖/μ + √(s/μ).  A Newton-polished KKT point, moved into K by a
rounding-level shrink towards an interior point, certifies itself to ≈ 1e-8 (the √ of a rounding-level s).
"""

from __future__ import annotations

import itertools
import math

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import root
from scipy.stats import norm

from dpsco.reference.accd22.algorithms import SOLVER_TOL, phase_noise, project_balls, solve_phase, solver_steps
from dpsco.reference.accd22.extension import DiagonalQuadraticLoss, SquaredLoss

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True)
EPS = float(np.finfo(np.float64).eps)
#: a reference accepted by :func:`_kkt_reference` is certified this close to the exact minimiser
REF_CERTIFIED = 1e-7


def _vec(k: int, lo: float, hi: float) -> st.SearchStrategy[np.ndarray]:
    return st.lists(st.floats(lo, hi, allow_nan=False, allow_infinity=False), min_size=k,
                    max_size=k).map(np.array)


def _feasible(x: np.ndarray, centres: list[np.ndarray], radii: list[float]) -> bool:
    return all(np.linalg.norm(x - c) <= r for c, r in zip(centres, radii))


def _kkt_reference(grad, mu: float, centres: list[np.ndarray], radii: list[float], x0: np.ndarray,
                   lam0: np.ndarray, interior: np.ndarray) -> tuple[np.ndarray, float]:
    """argmin of a μ-strongly convex G over ∩_i B(c_i, r_i), to a certified accuracy (module docstring).

    From cvxpy's (x0, λ0), Newton on the KKT equations ∇G(x) + Σ_{i∈A}λ_i(x − c_i) = 0, g_i(x) = 0 (i ∈ A) for each
    active set A (cvxpy's own first); the first point with λ_A ≥ 0 whose certificate ‖r‖/μ + √(s/μ) is
    ≤ REF_CERTIFIED is returned with that bound (any such point is within the bound of x*, whatever A was)."""
    d, k = x0.size, len(centres)
    guess = tuple(i for i in range(k) if lam0[i] > 1e-9)
    sets = sorted(itertools.chain.from_iterable(itertools.combinations(range(k), m) for m in range(k + 1)),
                  key=lambda A: (A != guess, len(A)))
    for A in sets:
        def kkt(v, A=A):
            x, lam = v[:d], v[d:]
            g = grad(x) + sum((lam[j] * (x - centres[i]) for j, i in enumerate(A)), np.zeros(d))
            return np.r_[g, [0.5 * (np.sum((x - centres[i]) ** 2) - radii[i] ** 2) for i in A]]

        sol = root(kkt, np.r_[x0, lam0[list(A)]], method="hybr", options={"xtol": 1e-15})
        x, lam = sol.x[:d], sol.x[d:]
        if np.any(lam < 0) or not np.all(np.isfinite(sol.x)):
            continue
        t, xf = 0.0, x
        while not _feasible(xf, centres, radii) and t < 1e-6:  # rounding-level shrink into K
            t = max(2 * t, 1e-16)
            xf = interior + (1.0 - t) * (x - interior)
        if not _feasible(xf, centres, radii):
            continue
        r = grad(xf) + sum((lam[j] * (xf - centres[i]) for j, i in enumerate(A)), np.zeros(d))
        s = sum(lam[j] * 0.5 * abs(np.sum((xf - centres[i]) ** 2) - radii[i] ** 2) for j, i in enumerate(A))
        bound = float(np.linalg.norm(r)) / mu + math.sqrt(s / mu)
        if bound <= REF_CERTIFIED:
            return xf, bound
    raise AssertionError("no certified KKT point near cvxpy's solution")


# ---- project_balls -------------------------------------------------------------------------------------------------

@st.composite
def ball_pairs(draw):
    """(p, a, r, b, s) in d ∈ {1, 2, 3}: radii in [0.1, 3], centres in [−3, 3]^d, ‖a − b‖ ≤ 0.95(r + s) (b pulled
    towards a otherwise: the lens has an interior, so the certificate's shrink point exists), p in [−6, 6]^d."""
    d = draw(st.integers(1, 3))
    a, b, p = draw(_vec(d, -3.0, 3.0)), draw(_vec(d, -3.0, 3.0)), draw(_vec(d, -6.0, 6.0))
    r, s = draw(st.floats(0.1, 3.0)), draw(st.floats(0.1, 3.0))
    gap = float(np.linalg.norm(b - a))
    if gap > 0.95 * (r + s):
        b = a + (b - a) * (0.95 * (r + s) / gap)
    return p, a, r, b, s


def _lens_interior(a: np.ndarray, r: float, b: np.ndarray, s: float) -> np.ndarray:
    """A point strictly inside both balls: the middle of their overlap on the axis a → b."""
    gap = float(np.linalg.norm(b - a))
    if gap == 0.0:
        return a.copy()
    e = (b - a) / gap
    lo, hi = max(-r, gap - s), min(r, gap + s)
    return a + 0.5 * (lo + hi) * e


def _cvxpy_projection(p, a, r, b, s):
    z = cp.Variable(p.size)
    cons = [cp.norm(z - a) <= r, cp.norm(z - b) <= s]
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(z - p)), cons).solve(solver=cp.CLARABEL)
    # the SOC constraint ‖z − c‖ ≤ r has multiplier λ' on (z − c)/‖z − c‖; ours, on g = ½(‖z − c‖² − r²), is λ'/r
    lam = np.array([float(cons[0].dual_value) / r, float(cons[1].dual_value) / s])
    return np.asarray(z.value, dtype=np.float64), lam


@SETTINGS
@given(case=ball_pairs())
def test_project_balls_matches_cvxpy(case):
    """project_balls against the projection min ½‖z − p‖² s.t. both balls (cvxpy/Clarabel, KKT-polished, certified
    within 1e-7; μ = 1).  Tolerance 1e-6: the closed form computes the circle's radius h = √(r² − t²), which loses
    up to √EPS·r ≈ 1.5e-8·3 when the circle is small (cancellation), plus the reference's 1e-7; any wrong branch
    (a projection onto one sphere that leaves the other ball, a wrong circle point) is off by far more."""
    p, a, r, b, s = case
    z_code = project_balls(p[None], [(a, r), (b, s)])[0]
    assert np.linalg.norm(z_code - a) <= r * (1 + 1e-12) and np.linalg.norm(z_code - b) <= s * (1 + 1e-12)
    z_cvx, lam = _cvxpy_projection(p, a, r, b, s)
    z_ref, _ = _kkt_reference(lambda z: z - p, 1.0, [a, b], [r, s], z_cvx, lam, _lens_interior(a, r, b, s))
    assert np.linalg.norm(z_code - z_ref) <= 1e-6


@pytest.mark.parametrize("p, a, r, b, s, expected", [
    # inside both: unchanged
    ([0.5, 0.0], [0.0, 0.0], 1.0, [1.0, 0.0], 1.0, [0.5, 0.0]),
    # both spheres: ball a alone would give (0, 1), outside B((1, 0), 1) (distance √2); ball b alone
    # (1, 0) + (−1, 3)/√10 = (0.684, 0.949), outside B(0, 1) (norm 1.170); so z is on the circle ‖z‖ = ‖z − (1, 0)‖ = 1,
    # whose points are (1/2, ±√3/2): the nearer to (0, 3) is (1/2, √3/2)
    ([0.0, 3.0], [0.0, 0.0], 1.0, [1.0, 0.0], 1.0, [0.5, math.sqrt(3.0) / 2]),
    # on the axis beyond b: (3, 0) projects onto ball a's sphere at (1, 0), inside B((1, 0), 1)
    ([3.0, 0.0], [0.0, 0.0], 1.0, [1.0, 0.0], 1.0, [1.0, 0.0]),
    # ball b inside ball a: the projection onto b, (2 + 0.5·(3, 4)/5) = (2.3, 0.4)
    ([5.0, 4.0], [0.0, 0.0], 5.0, [2.0, 0.0], 0.5, [2.3, 0.4]),
    # 1-D: [−1, 1] ∩ [0.5, 2.5] = [0.5, 1]: −5 → 0.5, 5 → 1
    ([-5.0], [0.0], 1.0, [1.5], 1.0, [0.5]),
    ([5.0], [0.0], 1.0, [1.5], 1.0, [1.0]),
])
def test_project_balls_by_hand(p, a, r, b, s, expected):
    """Projections worked by hand (the three regimes: feasible, one sphere, the circle of both; and 1-D)."""
    z = project_balls(np.array([p]), [(np.array(a), r), (np.array(b), s)])[0]
    np.testing.assert_allclose(z, expected, rtol=0, atol=4 * EPS * 5)


def test_project_balls_rejects_disjoint_balls():
    with pytest.raises(ValueError, match="do not intersect"):
        project_balls(np.zeros((1, 2)), [(np.zeros(2), 1.0), (np.array([3.0, 0.0]), 1.0)])
    with pytest.raises(ValueError, match="one or two balls"):
        project_balls(np.zeros((1, 2)), [(np.zeros(2), 1.0)] * 3)


# ---- solver_steps ----------------------------------------------------------------------------------------------------

def test_solver_steps_by_hand():
    """L = H = 1, η = 0.1, b = 10, tol = 0.05: μ = 2/(ηb) = 2, q = H/(H + 2μ) = 1/5, r0 = L/μ = 0.5, target = 0.005;
    K = ⌈ln(0.005/0.5)/ln(0.2)⌉ = ⌈4.60517/1.60944⌉ = ⌈2.861⌉ = 3."""
    assert solver_steps(1.0, 1.0, 0.1, 10, 0.05) == 3
    # H = 0 (linear summands): one step from the centre is exact
    assert solver_steps(1.0, 0.0, 0.1, 10, 0.05) == 1


@SETTINGS
@given(L=st.floats(0.01, 100.0), H=st.floats(1e-3, 100.0), eta=st.floats(1e-4, 10.0), b=st.integers(1, 1000),
       tol=st.floats(1e-6, 0.5))
def test_solver_steps_certificate(L, H, eta, b, tol):
    """K is the smallest count with q^K·r0 ≤ tol·Lη (q = H/(H + 2μ), r0 = L/μ = Lηb/2, μ = 2/(ηb)): the contraction of
    projected gradient with step 2/(μ + β) from the centre, whose distance to the minimiser is ≤ L/μ."""
    K = solver_steps(L, H, eta, b, tol)
    mu = 2.0 / (eta * b)
    q, r0, target = H / (H + 2 * mu), L / mu, tol * L * eta
    assert q ** K * r0 <= target * (1 + 1e-12)
    if K > 1:
        assert q ** (K - 1) * r0 > target * (1 - 1e-12)


# ---- solve_phase against cvxpy ---------------------------------------------------------------------------------------

@st.composite
def erm_cases(draw):
    """A squared-loss phase: d ∈ {1, 2, 3}, b ∈ [2, 8] records (a ∈ [−2, 2]^d with ‖a‖ ≥ 0.1, y ∈ [−20, 20]),
    L ∈ [0.1, 3], η ∈ [0.01, 2], domain B(0, R0) ∩ B(c, D) with the centre c, ‖c‖ ≤ 0.9R0 (Algorithm 5, line 10)."""
    d, b = draw(st.integers(1, 3)), draw(st.integers(2, 8))
    A = np.array([draw(_vec(d, -2.0, 2.0)) for _ in range(b)])
    assume(np.all(np.linalg.norm(A, axis=1) >= 0.1))
    y = draw(_vec(b, -20.0, 20.0))
    L, eta = draw(st.floats(0.1, 3.0)), draw(st.floats(0.01, 2.0))
    R0, D = draw(st.floats(0.5, 5.0)), draw(st.floats(0.1, 5.0))
    c = draw(_vec(d, -1.0, 1.0))
    nc = float(np.linalg.norm(c))
    if nc > 0.9:
        c = c * (0.9 / nc)
    return np.c_[A, y], L, eta, c * R0, R0, D


@SETTINGS
@given(case=erm_cases())
def test_solve_phase_matches_cvxpy(case):
    """Algorithm 4, line 4: x̂ = argmin over B(0, R0) ∩ B(c, D) of G(x) = (1/b)Σ_j F_L(x; s_j) + (1/(ηb))‖x − c‖²,
    F_L the extension of the squared loss: ½·huber(⟨a_j, x⟩ − y_j, M_j) with M_j = L/‖a_j‖ in cvxpy's convention
    (huber(u, M) = u² for |u| ≤ M, 2M|u| − M² beyond).  The solver certifies ‖x̂ − x*‖ ≤ SOLVER_TOL·Lη; the reference
    is certified within 1e-7 (μ_G = 2/(ηb)), so the comparison allows SOLVER_TOL·Lη + 1e-6."""
    Z, L, eta, c, R0, D = case
    A, y = Z[:, :-1], Z[:, -1]
    b, d = A.shape
    M = L / np.linalg.norm(A, axis=1)
    mu = 2.0 / (eta * b)
    loss = SquaredLoss()
    H = float(np.max(np.sum(A ** 2, axis=1)))  # the extension of ½(⟨a, x⟩ − y)² is ‖a‖²-smooth
    balls = [(np.zeros(d), R0), (c, D)]
    x_hat, K = solve_phase(loss.extended_grad, Z, L, H, eta, c[None], balls)
    assert K == solver_steps(L, H, eta, b, SOLVER_TOL)

    x = cp.Variable(d)
    G = sum(0.5 * cp.huber(A[j] @ x - y[j], M[j]) for j in range(b)) / b + cp.sum_squares(x - c) / (eta * b)
    cons = [cp.norm(x) <= R0, cp.norm(x - c) <= D]
    cp.Problem(cp.Minimize(G), cons).solve(solver=cp.CLARABEL)
    lam = np.array([float(cons[0].dual_value) / R0, float(cons[1].dual_value) / D])

    def grad_G(v):  # ∇G written out here: (1/b)Σ clip(⟨a_j, v⟩ − y_j, ±M_j)a_j + (2/(ηb))(v − c)
        return np.clip(A @ v - y, -M, M) @ A / b + mu * (v - c)

    x_cvx = np.asarray(x.value, dtype=np.float64)
    x_ref, _ = _kkt_reference(grad_G, mu, [np.zeros(d), c], [R0, D], x_cvx, lam, c)
    assert np.linalg.norm(x_hat[0] - x_ref) <= SOLVER_TOL * L * eta + 1e-6


# ---- the sensitivity lemma -------------------------------------------------------------------------------------------

@st.composite
def neighbours(draw, loss):
    """(Z, Z′, j): b ∈ [2, 10] records of ``loss`` in d ∈ {1, 2, 3} and a copy with record j replaced, by an
    adversarial outlier (y = ±1e6 for the squared loss, c = ±1e6·1 for the diagonal quadratic) or a fresh record."""
    d, b = draw(st.integers(1, 3)), draw(st.integers(2, 10))

    def record():
        if isinstance(loss, SquaredLoss):
            a = draw(_vec(d, -2.0, 2.0))
            return np.r_[a, draw(st.floats(-20.0, 20.0))]
        return np.r_[draw(_vec(d, -3.0, 3.0)), draw(_vec(d, 0.0, 10.0))]

    Z = np.array([record() for _ in range(b)])
    j = draw(st.integers(0, b - 1))
    kind = draw(st.sampled_from(["+outlier", "-outlier", "fresh"]))
    new = record()
    if kind != "fresh":
        sign = 1.0 if kind == "+outlier" else -1.0
        if isinstance(loss, SquaredLoss):
            new[-1] = sign * 1e6
        else:
            new[:d] = sign * 1e6
    Zp = Z.copy()
    Zp[j] = new
    return Z, Zp


@pytest.mark.parametrize("loss", [SquaredLoss(), DiagonalQuadraticLoss()], ids=["squared", "diagonal_quadratic"])
@SETTINGS
@given(data=st.data(), L=st.floats(0.1, 3.0), eta=st.floats(0.01, 2.0), R0=st.floats(0.5, 5.0),
       D=st.floats(0.1, 5.0))
def test_sensitivity_lemma(loss, data, L, eta, R0, D):
    """Replacing one record moves the exact minimiser by ≤ Lη: G is μ-strongly convex (μ = 2/(ηb)) and the two
    objectives differ by (1/b)(F_L(·; s) − F_L(·; s′)), whose gradient is ≤ 2L/b, so μ‖x − x′‖ ≤ 2L/b, i.e.
    ‖x − x′‖ ≤ Lη.  With the solver's certified error SOLVER_TOL·Lη on each side: ≤ (1 + 2·SOLVER_TOL)Lη.  Two
    centres at once (the replicate axis), both inside B(0, R0); the domain B(0, R0) ∩ B(c_r, D).  The relative
    1e-12 covers rounding of iterates of size ≤ R0 ≤ 5 against Lη ≥ 1e-3."""
    Z, Zp = data.draw(neighbours(loss))
    d = loss.dim(Z)
    C = np.array([data.draw(_vec(d, -1.0, 1.0)) for _ in range(2)])
    C *= 0.9 * R0 / np.maximum(np.linalg.norm(C, axis=1, keepdims=True), 1.0)
    H = float(max(np.max(loss.extension_smoothness(Z, L)), np.max(loss.extension_smoothness(Zp, L))))
    balls = [(np.zeros(d), R0), (C, D)]
    x, _ = solve_phase(loss.extended_grad, Z, L, H, eta, C, balls)
    xp, _ = solve_phase(loss.extended_grad, Zp, L, H, eta, C, balls)
    assert np.all(np.linalg.norm(x - xp, axis=1) <= (1 + 2 * SOLVER_TOL) * L * eta * (1 + 1e-12))


def _outlier_pair(Y: float, b: int = 50) -> tuple[np.ndarray, np.ndarray]:
    """1-D squared loss: b − 1 background records (a, y) = (1, 0) at the centre c = 0, and (1, +Y) or (1, −Y)."""
    Z = np.array([[1.0, 0.0]] * (b - 1) + [[1.0, Y]])
    Zp = Z.copy()
    Zp[-1, 1] = -Y
    return Z, Zp


def test_sensitivity_nearly_attained_by_an_outlier_pair():
    """L = 1, η = 1e-3, b = 50, Y = 1e6, domain B(0, 1), centre 0.  At the minimiser |x − Y| ≫ M = L/‖a‖ = 1, so the
    outlier's extended gradient is clip(x − Y, −1, 1) = −1 (for +Y); the background gradients x stay inside the
    quadratic region.  G′(x) = (1/b)((b − 1)x − L) + (2/(ηb))x = 0 gives x = Lη/(2 + η(b − 1)) = 1e-3/2.049 =
    4.880430e-4, and −4.880430e-4 for −Y: a shift of 2Lη/(2 + η(b − 1)) = 0.9760859·Lη ≥ 0.9Lη (the background's
    curvature η(b − 1) = 0.049 against 2 is all that separates it from Lη)."""
    L, eta, b = 1.0, 1e-3, 50
    Z, Zp = _outlier_pair(1e6, b)
    balls = [(np.zeros(1), 1.0)]
    C = np.zeros((1, 1))
    x, _ = solve_phase(SquaredLoss().extended_grad, Z, L, 1.0, eta, C, balls)
    xp, _ = solve_phase(SquaredLoss().extended_grad, Zp, L, 1.0, eta, C, balls)
    shift = float(abs(x[0, 0] - xp[0, 0]))
    predicted = 2 * L * eta / (2 + eta * (b - 1))
    assert predicted == pytest.approx(0.9760859 * L * eta, rel=1e-6)
    assert abs(shift - predicted) <= 2 * SOLVER_TOL * L * eta  # each solve within SOLVER_TOL·Lη of its minimiser
    assert shift >= 0.9 * L * eta
    assert shift <= (1 + 2 * SOLVER_TOL) * L * eta


def test_raw_gradients_break_the_sensitivity_bound():
    """Negative control: the same pair with the raw gradient x − (±Y) (no extension).  The unconstrained minimiser is
    (b − 1)x + x ∓ Y + (2/η)x = 0, x = ±Yη/(ηb + 2) = ±1e3/2.05 = ±487.8, so over B(0, 1) the minimisers are ±1 (the
    first step, of length 2/(2μ + H)·Y/b = 0.0247·2e4 = 494, already leaves the ball): a shift of 2 = 2000·Lη."""
    L, eta, b = 1.0, 1e-3, 50
    Z, Zp = _outlier_pair(1e6, b)
    balls = [(np.zeros(1), 1.0)]
    C = np.zeros((1, 1))
    raw = lambda X, Zb, Lc: SquaredLoss().grad(X, Zb)  # noqa: E731 — the solver's grad signature, ignoring L
    x, _ = solve_phase(raw, Z, L, 1.0, eta, C, balls)
    xp, _ = solve_phase(raw, Zp, L, 1.0, eta, C, balls)
    assert float(x[0, 0]) == pytest.approx(1.0, abs=1e-12) and float(xp[0, 0]) == pytest.approx(-1.0, abs=1e-12)
    assert abs(x[0, 0] - xp[0, 0]) >= 1000 * L * eta


# ---- phase noise -----------------------------------------------------------------------------------------------------

def _gaussian_delta(eps: float, mu: float) -> tuple[float, float]:
    """(δ(ε), rounding bound) of the Gaussian mechanism with μ = Δ/σ: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Balle & Wang
    2018), by scipy's norm.cdf; the subtraction can lose 4·EPS times the larger term."""
    first = float(norm.cdf(-eps / mu + mu / 2))
    second = math.exp(eps) * float(norm.cdf(-eps / mu - mu / 2))
    return first - second, 4 * EPS * max(first, second)


def test_phase_noise_laplace():
    """Algorithm 4, line 7: Laplace scale 4Lη_i√d/ε per coordinate.  L = 2, η_i = 0.125, d = 9, ε = 0.5:
    4·2·0.125·3/0.5 = 6.  For δ > 0 with d ≤ log(1/δ) the Laplace branch (ε-DP, hence (ε, δ)-DP, with less noise: the
    min(d, √(d log(1/δ))) of Algorithm 2, line 5 presumes this choice) is used too: δ = e^{−10}, d = 9 ≤ 10."""
    assert phase_noise(2.0, 0.125, 9, 0.5, 0.0) == ("laplace", pytest.approx(6.0, rel=4 * EPS),
                                                    pytest.approx(6.0, rel=4 * EPS))
    kind, sigma, printed = phase_noise(2.0, 0.125, 9, 0.5, math.exp(-10.0))
    assert kind == "laplace" and sigma == pytest.approx(6.0, rel=4 * EPS) and printed == sigma


@SETTINGS
@given(L=st.floats(0.1, 10.0), eta=st.floats(1e-4, 1.0), d=st.integers(1, 60), eps=st.floats(0.05, 20.0),
       log_inv_delta=st.floats(0.01, 23.0))
def test_phase_noise_gaussian_satisfies_the_exact_curve(L, eta, d, eps, log_inv_delta):
    """Algorithm 4, line 9, where d > log(1/δ): σ ≥ the printed 4Lη√(log(1/δ))/ε and the exact Gaussian curve at the
    solver's sensitivity (1 + 2·SOLVER_TOL)Lη is ≤ δ at σ (checked with scipy, up to its rounding).  σ is the printed
    one when that already satisfies the curve; otherwise the smallest that does (the analytic Gaussian σ, returned
    as the upper end of a bisection of relative width ≤ 1e-15; 1e-4 below it the curve exceeds δ)."""
    delta = math.exp(-log_inv_delta)
    kind, sigma, printed = phase_noise(L, eta, d, eps, delta)
    if d <= log_inv_delta:
        assert kind == "laplace" and sigma == printed
        return
    assert kind == "gaussian"
    assert printed == pytest.approx(4 * L * eta * math.sqrt(log_inv_delta) / eps, rel=8 * EPS)
    sens = (1 + 2 * SOLVER_TOL) * L * eta
    assert sigma >= printed
    curve, rnd = _gaussian_delta(eps, sens / sigma)
    assert curve <= delta + rnd
    printed_curve, printed_rnd = _gaussian_delta(eps, sens / printed)
    if printed_curve <= delta - printed_rnd:
        assert sigma == printed
    elif sigma > printed:
        below, below_rnd = _gaussian_delta(eps, sens / (sigma * (1 - 1e-4)))
        assert below > delta + below_rnd


def test_printed_gaussian_sigma_fails_the_exact_curve():
    """Where the printed σ alone is not private: (ε, δ) = (10, 0.9), d = 1 (> log(1/0.9) = 0.10536: Gaussian branch).
    By hand, with Lη = 1: σ = 4√0.1053605/10 = 4·0.3245929/10 = 0.1298371; the solver's sensitivity 1.1 gives
    μ = 1.1/0.1298371 = 8.472152, ε/μ = 1.180338, μ/2 = 4.236076:
    δ(ε) = Φ(3.055738) − e^{10}Φ(−5.416414) = 0.9988775 − 22026.47·3.0403e-8 = 0.9988775 − 0.0006697 = 0.9982 > 0.9.
    It fails even at the exact sensitivity 1 (μ = 7.701956: Φ(2.552650) − e^{10}Φ(−5.149316) = 0.99465 − 0.00288 =
    0.9918).  Why large ε: the printed σ ∝ 1/ε makes μ = Δ/σ ∝ ε while ε/μ = 4√(log(1/δ))/1.1 stays fixed, so
    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) → 1 as ε grows (the second term decays like e^{ε − μ²/8}, μ² ∝ ε²): for
    every δ < 1 it fails from some ε on, the sooner the smaller log(1/δ).  Not at (ε, δ) = (1, 0.5), though: there
    μ = 0.3303087 and δ(ε) = Φ(−2.862) − eΦ(−3.193) = 0.0021028 − 0.0019162 = 1.9e-4 ≤ 0.5, so the printed
    σ = 4√(ln 2) = 3.330218 is kept."""
    kind, sigma, printed = phase_noise(1.0, 1.0, 1, 10.0, 0.9)
    assert kind == "gaussian"
    assert printed == pytest.approx(0.1298371, rel=1e-6)
    printed_curve, rnd = _gaussian_delta(10.0, 1.1 / printed)
    assert printed_curve == pytest.approx(0.9982078, rel=1e-6)
    assert printed_curve > 0.9 + rnd
    exact_sens_curve, _ = _gaussian_delta(10.0, 1.0 / printed)
    assert exact_sens_curve == pytest.approx(0.9917752, rel=1e-6) and exact_sens_curve > 0.9
    assert sigma > printed
    curve, rnd = _gaussian_delta(10.0, 1.1 / sigma)
    assert curve <= 0.9 + rnd
    # (ε, δ) = (1, 0.5): the printed σ passes, and is returned
    kind, sigma, printed = phase_noise(1.0, 1.0, 1, 1.0, 0.5)
    assert kind == "gaussian" and sigma == printed == pytest.approx(4 * math.sqrt(math.log(2.0)), rel=8 * EPS)
    assert _gaussian_delta(1.0, 1.1 / printed)[0] == pytest.approx(1.865875e-4, rel=1e-5)


@pytest.mark.parametrize("args, error, name", [
    ((1.0, 1.0, 2, 1.0, -0.1), ValueError, "delta"),
    ((1.0, 1.0, 2, 1.0, 1.0), ValueError, "delta"),
    ((1.0, 1.0, 2, 1.0, None), TypeError, "delta"),
    ((1.0, 1.0, 2, 0.0, 0.1), ValueError, "epsilon"),
    ((1.0, 1.0, 0, 1.0, 0.1), ValueError, "d"),
    ((-1.0, 1.0, 2, 1.0, 0.0), ValueError, "L"),
    ((1.0, 0.0, 2, 1.0, 0.0), ValueError, "eta_i"),
])
def test_phase_noise_rejects_bad_inputs(args, error, name):
    """phase_noise is public: a bad input raises the repository's named error before the branch on log(1/δ) (a
    negative δ used to reach math.log and raise an unnamed "math domain error")."""
    with pytest.raises(error, match=rf"\b{name}\b"):
        phase_noise(*args)
