"""Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070: the Lipschitzian extensions of
``dpsco.reference.accd22.extension`` (Definition 2.5, eq. (2); Lemma 2.1; Algorithm 1, line 1).

Every closed form F_L(x; s) = inf_y {F(y; s) + L‖x − y‖} is checked against a minimisation done here,
independently of the code under test:

* GLM losses F(x; (a, y)) = h(⟨a, x⟩; y): for y' = x + (w − ⟨a, x⟩)a/‖a‖² + (a component orthogonal to a), the
  orthogonal part only adds to ‖x − y'‖, so F_L(x) = min_w h(w) + M|z − w| with z = ⟨a, x⟩ and M = L/‖a‖.  The
  one-dimensional objective is minimised by bounded Brent on each side of its kink w = z, plus the kink itself.
* the radial and the diagonal-quadratic losses: the d-dimensional problem in cvxpy (Clarabel).

Tolerances are written beside each assertion; ``EPS`` is the float64 machine epsilon and ``_ROUND`` a
conservative count of rounded operations in one loss evaluation.  Hypothesis runs derandomised (fixed examples).
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize_scalar

from dpsco.reference.accd22.extension import (ConvexLoss, DiagonalQuadraticLoss, GLMLoss, LogisticLoss, PowerLoss,
                                              SquaredDistanceLoss, SquaredHingeLoss, SquaredLoss, check_records)
from dpsco.reference.clipping import clip_rows, row_norms

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
EPS = float(np.finfo(np.float64).eps)
#: an upper count of the rounded floating-point operations behind one value of a loss or its extension (inner
#: product over d ≤ 3 coordinates, the 1-D formula, or the bisection's last iterate); each contributes ≤ EPS·scale
_ROUND = 64

LOSSES: list[ConvexLoss] = [SquaredLoss(), SquaredHingeLoss(), LogisticLoss(), PowerLoss(3, a_max=10.0),
                            PowerLoss(4, a_max=10.0),
                            SquaredDistanceLoss(), DiagonalQuadraticLoss()]
IDS = ["squared", "squared_hinge", "logistic", "power3", "power4", "squared_distance", "diagonal_quadratic"]
GLMS = [loss for loss in LOSSES if isinstance(loss, GLMLoss)]
GLM_IDS = [i for i, loss in zip(IDS, LOSSES) if isinstance(loss, GLMLoss)]


# ---- data --------------------------------------------------------------------------------------------------------

def _vec(k: int, lo: float, hi: float) -> st.SearchStrategy[list[float]]:
    return st.lists(st.floats(lo, hi, allow_nan=False, allow_infinity=False), min_size=k, max_size=k)


@st.composite
def cases(draw, loss: ConvexLoss, n: int = 2, R: int = 2):
    """(X (R, d), Z (n, p), L) for ``loss``: points in [−5, 5]^d, d ∈ {1, 2, 3}, L ∈ [0.05, 5]."""
    d = draw(st.integers(1, 3))
    X = np.array(draw(_vec(R * d, -5.0, 5.0))).reshape(R, d)
    rows = []
    for _ in range(n):
        if isinstance(loss, GLMLoss):
            a = np.array(draw(_vec(d, -3.0, 3.0)))
            assume(np.linalg.norm(a) >= 0.05)  # a = 0 (M = ∞) has its own test below
            if isinstance(loss, (SquaredHingeLoss, LogisticLoss)):
                y = draw(st.sampled_from([-1.0, 1.0]))
            else:
                y = draw(st.floats(-5.0, 5.0))
            rows.append(np.r_[a, y])
        elif isinstance(loss, SquaredDistanceLoss):
            rows.append(np.r_[draw(_vec(d, -3.0, 3.0)), draw(st.floats(0.0, 5.0))])
        else:
            rows.append(np.r_[draw(_vec(d, -3.0, 3.0)), draw(_vec(d, 0.0, 10.0))])
    L = draw(st.floats(0.05, 5.0))
    return X, np.array(rows), L


def _hand_smoothness(loss: ConvexLoss, z: np.ndarray, L: float) -> float:
    """The smoothness of F_L(·; z) derived by hand (used for the finite-difference tolerances, independently of
    ``extension_smoothness``): ‖a‖²·sup h_M'' for GLMs (1 for squared and squared hinge, 1/4 for logistic,
    (κ − 1)r_M^{κ−2} with r_M = M^{1/(κ−1)} for the power loss, the curvature at the edge of the region |h'| ≤ M);
    h for the radial loss; max_k u_k for the diagonal quadratic (an infimal convolution keeps H-smoothness)."""
    if isinstance(loss, GLMLoss):
        na = float(np.linalg.norm(z[:-1]))
        if na == 0.0:
            return 0.0
        if isinstance(loss, PowerLoss):
            rM = (L / na) ** (1.0 / (loss.kappa - 1.0))
            return na ** 2 * (loss.kappa - 1.0) * rM ** (loss.kappa - 2.0)
        return na ** 2 * (0.25 if isinstance(loss, LogisticLoss) else 1.0)
    if isinstance(loss, SquaredDistanceLoss):
        return float(z[-1])
    return float(np.max(z[z.size // 2:]))


def _round_tol(values: np.ndarray, L: float, X: np.ndarray) -> float:
    """Absolute rounding error of one extended value: _ROUND·EPS·(|F_L| + L·(1 + ‖x‖)) — the relative error of the
    formula, plus the absolute error of ⟨a, x⟩ (or x − s) times the slope (≤ L) of F_L."""
    return _ROUND * EPS * (float(np.max(np.abs(values))) + L * (1.0 + float(np.max(np.abs(X))) * 3.0))


# ---- independent brute-force extensions ---------------------------------------------------------------------------

def _brute_glm(loss: GLMLoss, x: np.ndarray, z: np.ndarray, L: float) -> tuple[float, float]:
    """(min_w h(w) + M|⟨a, x⟩ − w|, a certified bound on how far above the minimum it may be).

    φ(w) = h(w) + M|t − w| is convex with one kink at w = t = ⟨a, x⟩; on each side it is C^{1,1}.  Candidates:
    φ(t) (exact if the minimiser is the kink) and bounded Brent on [t − B, t] and [t, t + B] (the minimiser lies
    within B = |t| + |y| + 60 of t: it is between t and the set where |h'| ≤ M, i.e. within |t − y| + 1 of t for the
    squared, hinge and power losses, and at yw = log((1 − M)/M), |·| ≤ 60 for M ≥ e^{−59}, for the logistic loss).
    Brent stops with the minimiser inside a bracket of half-width ≤ 2(√EPS·|w| + xatol/3); at an interior
    stationary point φ(ŵ) − φ(w*) ≤ (H_loc/2)·Δw², H_loc the curvature of h near w*."""
    a, y = z[:-1], float(z[-1])
    na = float(np.linalg.norm(a))
    M = L / na
    t = float(a @ x)

    def phi(w: float) -> float:
        return float(loss.h(np.array(w), np.array(y))) + M * abs(t - w)

    B = abs(t) + abs(y) + 60.0
    xatol = 1e-12
    best = phi(t)
    for lo, hi in ((t - B, t), (t, t + B)):
        r = minimize_scalar(phi, bounds=(lo, hi), method="bounded", options={"xatol": xatol})
        best = min(best, float(r.fun))
    dw = 2.0 * (math.sqrt(EPS) * (abs(t) + B) + xatol / 3.0)
    if isinstance(loss, PowerLoss):  # h'' = (κ−1)|w − y|^{κ−2} near w* (|w* − y| ≤ r_M), within dw ≤ 1 of it
        H_loc = (loss.kappa - 1.0) * (M ** (1.0 / (loss.kappa - 1.0)) + 1.0) ** (loss.kappa - 2.0)
    else:
        H_loc = 1.0  # squared, squared hinge: h'' ≤ 1; logistic: h'' ≤ 1/4
    return best, 0.5 * H_loc * dw ** 2


def _brute_cvxpy(loss: ConvexLoss, x: np.ndarray, z: np.ndarray, L: float) -> float:
    """F(ŷ) + L‖x − ŷ‖ evaluated here at Clarabel's minimiser ŷ of the d-dimensional problem (an upper bound of F_L
    by definition; Clarabel's stopping rule — duality gap and residuals ≤ 1e-8, absolute or relative — makes it
    exceed the infimum by at most about 1e-8·(1 + |F_L|))."""
    d = x.size
    yv = cp.Variable(d)
    if isinstance(loss, SquaredDistanceLoss):
        F = 0.5 * float(z[-1]) * cp.sum_squares(yv - z[:-1])
    else:
        F = 0.5 * cp.sum(cp.multiply(z[d:], cp.square(yv - z[:d])))
    cp.Problem(cp.Minimize(F + L * cp.norm(x - yv, 2))).solve(solver=cp.CLARABEL)
    y_hat = np.asarray(yv.value, dtype=np.float64)
    return float(loss.value(y_hat[None], z[None])[0, 0] + L * np.linalg.norm(x - y_hat))


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_extended_value_matches_brute_force(loss, data):
    """(a) Definition 2.5: the closed-form F_L equals min_y F(y; s) + L‖x − y‖ computed independently.

    One side is exact: F_L is an infimum, so F_L ≤ φ(ŷ) for the brute force's ŷ (up to rounding, _round_tol).  The
    other side is the brute force's certified suboptimality: (H_loc/2)Δw² for the 1-D Brent search (≤ 1e-9 here),
    and 1e-7·(1 + |F_L|) for Clarabel (ten times its default 1e-8 gap/feasibility tolerances, which act on the
    conic reformulation whose epigraph variables are scaled by L and the curvatures)."""
    X, Z, L = data.draw(cases(loss))
    ext = loss.extended_value(X, Z, L)
    assert ext.shape == (X.shape[0], Z.shape[0])
    for r in range(X.shape[0]):
        for j in range(Z.shape[0]):
            rnd = _round_tol(ext[r, j:j + 1], L, X[r])
            if isinstance(loss, GLMLoss):
                brute, above = _brute_glm(loss, X[r], Z[j], L)
            else:
                brute, above = _brute_cvxpy(loss, X[r], Z[j], L), 1e-7 * (1.0 + abs(ext[r, j]))
            assert ext[r, j] <= brute + rnd
            assert brute - ext[r, j] <= above + rnd


def test_glm_brute_force_reduction_by_hand():
    """The 1-D reduction on one case worked by hand: squared loss, a = (3, 4) (‖a‖ = 5), y = 0, x = (1, 1), L = 5:
    z = 7, M = 1, |z − y| = 7 > M, so F_L = M·7 − M²/2 = 6.5 (the Huber branch); F(x) = 49/2 = 24.5."""
    Z = np.array([[3.0, 4.0, 0.0]])
    x = np.array([1.0, 1.0])
    assert SquaredLoss().extended_value(x[None], Z, 5.0)[0, 0] == pytest.approx(6.5, rel=4 * EPS)
    assert SquaredLoss().value(x[None], Z)[0, 0] == pytest.approx(24.5, rel=4 * EPS)
    brute, above = _brute_glm(SquaredLoss(), x, Z[0], 5.0)
    assert abs(brute - 6.5) <= above + _ROUND * EPS * 6.5


# ---- gradients ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
@SETTINGS
@given(data=st.data(), dirs=_vec(9, -1.0, 1.0))
def test_extended_grad_is_the_derivative_of_extended_value(loss, data, dirs):
    """(b) ⟨∇F_L(x), v⟩ equals the central difference (F_L(x + hv) − F_L(x − hv))/(x₊ − x₋) along 3 unit directions.

    F_L has an H-Lipschitz gradient (H by hand, :func:`_hand_smoothness`), so the central difference differs from the
    directional derivative by at most H·h/2 (each one-sided Taylor remainder is ≤ Hh²/2); rounding adds
    2·_round_tol/(2h).  h = 1e-5 balances the two (≈ 5e-6·H against ≈ 1e-9·(|F_L| + L‖x‖))."""
    X, Z, L = data.draw(cases(loss))
    d = X.shape[1]
    V = np.array(dirs[:3 * d]).reshape(3, d)
    assume(np.all(np.linalg.norm(V, axis=1) > 0.1))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    G = loss.extended_grad(X, Z, L)
    assert G.shape == (X.shape[0], Z.shape[0], d)
    h = 1e-5
    for v in V:
        Xp, Xm = X + h * v, X - h * v
        fp, fm = loss.extended_value(Xp, Z, L), loss.extended_value(Xm, Z, L)
        step = np.linalg.norm(Xp - Xm, axis=1)[:, None]  # the steps actually taken (x ± hv are rounded)
        fd = (fp - fm) / step
        for j in range(Z.shape[0]):
            H = _hand_smoothness(loss, Z[j], L)
            rnd = _round_tol(np.r_[fp[:, j], fm[:, j]], L, X)
            tol = H * h / 2.0 + 2.0 * rnd / step[:, 0] + 4 * EPS * L  # + rounding of ⟨∇F_L, v⟩ (d ≤ 3 terms)
            assert np.all(np.abs(fd[:, j] - G[:, j, :] @ v) <= tol)


# ---- Lemma 2.1 ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_lemma_2_1(loss, data):
    """(c) Lemma 2.1 on pairs of points: ‖∇F_L‖ ≤ L exactly as computed (every ``extended_grad`` ends with the
    fail-safe ``enforce_norm_bound``; the τ-search returns the lower end of its bracket); F_L is L-Lipschitz (2.1.1)
    and midpoint convex (2.1.2); F_L ≤ F (take y = x in eq. (2)).  Value comparisons allow the rounding of each
    value (_round_tol)."""
    X, Z, L = data.draw(cases(loss, R=2))
    x, xp = X[0:1], X[1:2]
    G = loss.extended_grad(X, Z, L)
    assert np.all(row_norms(G) <= L)
    f, fp = loss.extended_value(x, Z, L)[0], loss.extended_value(xp, Z, L)[0]
    fmid = loss.extended_value(0.5 * (x + xp), Z, L)[0]
    rnd = _round_tol(np.r_[f, fp, fmid], L, X)
    assert np.all(np.abs(f - fp) <= L * np.linalg.norm(x - xp) + 2 * rnd)
    assert np.all(fmid <= 0.5 * (f + fp) + 2 * rnd)
    F = loss.value(X, Z)
    assert np.all(loss.extended_value(X, Z, L) <= F + _ROUND * EPS * (np.abs(F) + L * (1 + 3 * np.max(np.abs(X)))))


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
@SETTINGS
@given(data=st.data(), slack=st.floats(0.0, 2.0))
def test_lemma_2_1_extension_inactive_where_gradient_small(loss, data, slack):
    """(c) Lemma 2.1.3–4: where ‖∇F(x)‖ ≤ L, F_L(x) = F(x) and ∇F_L(x) = ∇F(x).  L = (1 + slack)·‖∇F(x)‖ (slack = 0
    puts x on the boundary of the region); rtol 1e-12 covers the rounding of the branch test at the boundary (there
    the two branches differ by O((rounding)²) in value and O(rounding) in gradient)."""
    X, Z, _ = data.draw(cases(loss, n=1, R=1))
    g = loss.grad(X, Z)[0, 0]
    L = max(float(np.linalg.norm(g)) * (1.0 + slack), 1e-3)
    np.testing.assert_allclose(loss.extended_value(X, Z, L), loss.value(X, Z), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(loss.extended_grad(X, Z, L), loss.grad(X, Z), rtol=1e-12, atol=1e-12 * L)


@SETTINGS
@given(data=st.data())
def test_lemma_2_1_3_logistic_is_its_own_extension_when_lipschitz(data):
    """Lemma 2.1.3: |h'| < 1 for the logistic loss, so F is ‖a‖-Lipschitz and F_L = F everywhere once L ≥ ‖a‖."""
    X, Z, _ = data.draw(cases(LogisticLoss(), n=1, R=2))
    L = float(np.linalg.norm(Z[0, :-1]))
    np.testing.assert_array_equal(LogisticLoss().extended_value(X, Z, L), LogisticLoss().value(X, Z))
    np.testing.assert_array_equal(LogisticLoss().extended_grad(X, Z, L), LogisticLoss().grad(X, Z))


@pytest.mark.parametrize("loss", GLMS, ids=GLM_IDS)
def test_zero_feature_vector(loss):
    """a = 0: F(·; (0, y)) = h(0; y) is constant (0-Lipschitz), so F_L = F, ∇F_L = 0 and the smoothness is 0."""
    y = 1.0
    Z = np.array([[0.0, 0.0, y]])
    X = np.array([[1.0, -2.0], [3.0, 0.5]])
    np.testing.assert_array_equal(loss.extended_value(X, Z, 0.7), loss.value(X, Z))
    np.testing.assert_array_equal(loss.extended_grad(X, Z, 0.7), np.zeros((2, 1, 2)))
    assert loss.extension_smoothness(Z, 0.7)[0] == 0.0


# ---- clipping versus the extension -------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", [lo for lo in LOSSES if not isinstance(lo, DiagonalQuadraticLoss)],
                         ids=[i for i in IDS if i != "diagonal_quadratic"])
@SETTINGS
@given(data=st.data())
def test_extension_gradient_is_clipping_for_glm_and_radial(loss, data):
    """(d) For GLMs ∇F_L = clip(h', −M, M)·a = ∇F·min(1, L/‖∇F‖) since ‖∇F‖ = |h'|‖a‖ and M = L/‖a‖; for the radial
    loss ∇F_L(x) = L(x − s)/‖x − s‖ beyond r = L/h, again the clipped ∇F.  The two computations round differently
    (L/‖a‖ then a product, against L/‖∇F‖): a few ulps, rtol 1e-13."""
    X, Z, L = data.draw(cases(loss))
    np.testing.assert_allclose(loss.extended_grad(X, Z, L), clip_rows(loss.grad(X, Z), L), rtol=1e-13,
                               atol=1e-13 * L)


def test_diagonal_quadratic_extension_is_not_clipping():
    """(d) U = diag(10, 0.1), c = 0, L = 1, x = (1, 5).  ∇F(x) = Ux = (10, 0.5), ‖Ux‖ = √100.25 = 10.0125 > L.

    By hand: y(x) = x − (U + τI)^{−1}Ux minimises F(y) + L‖x − y‖ with τ > 0 from τ‖(U + τI)^{−1}Ux‖ = L, i.e.
    g(τ) = τ²(100/(10 + τ)² + 0.25/(0.1 + τ)²) = 1.  τ = 0.975: (9.75/10.975)² + (0.4875/1.075)² = 0.78922 +
    0.20565 = 0.99487 < 1; τ = 0.98: (9.8/10.98)² + (0.49/1.08)² = 0.79661 + 0.20585 = 1.00246 > 1; so τ ≈ 0.978,
    and ∇F_L = τ(U + τI)^{−1}Ux = (10τ/(10 + τ), 0.5τ/(0.1 + τ)) ≈ (9.78/10.978, 0.489/1.078) = (0.891, 0.454).
    Clipping instead rescales Ux: (10, 0.5)/10.0125 = (0.999, 0.050) — a different direction (the extension's
    gradient is ∇F(y(x)), at the nearest point where ‖∇F‖ = L, not ∇F(x) shortened).

    The golden values are recomputed here with scipy's brentq (to 1e-15 relative); the extension's τ comes from
    its own bisection on log τ to the stated bracket 2⁻³⁶, so the gradients agree to its stated tolerance
    ``grad_rtol``·L ≈ 1.5e-11 (plus rounding, 1e-14)."""
    U = np.array([10.0, 0.1])
    x = np.array([1.0, 5.0])
    Ux = U * x
    tau = brentq(lambda t: t * np.linalg.norm(Ux / (U + t)) - 1.0, 1e-9, 100.0, xtol=1e-15, rtol=1e-15)
    assert 0.975 < tau < 0.98  # the bracket found by hand
    golden_ext = tau * Ux / (U + tau)
    golden_clip = Ux / np.linalg.norm(Ux)
    np.testing.assert_allclose(golden_ext, [0.891, 0.454], atol=5e-4)  # the hand values, rounded to 3 digits
    np.testing.assert_allclose(golden_clip, [0.999, 0.050], atol=5e-4)
    y = x - Ux / (U + tau)
    golden_value = 0.5 * np.sum(U * y ** 2) + np.linalg.norm(x - y)  # F(y(x)) + L‖x − y(x)‖

    loss = DiagonalQuadraticLoss()
    Z = np.array([[0.0, 0.0, 10.0, 0.1]])
    ext = loss.extended_grad(x[None], Z, 1.0)[0, 0]
    clip = clip_rows(loss.grad(x[None], Z), 1.0)[0, 0]
    assert np.linalg.norm(ext - golden_ext) <= loss.grad_rtol * 1.0 + 1e-14
    np.testing.assert_allclose(clip, golden_clip, rtol=1e-14)
    # F(y) + L‖x − y‖ at the returned τ: first-order stationary in y, so the τ error enters at second order
    assert loss.extended_value(x[None], Z, 1.0)[0, 0] == pytest.approx(golden_value, rel=1e-12)
    assert np.linalg.norm(ext - clip) > 0.4  # ≈ ‖(−0.108, 0.404)‖ = 0.418: not a rounding difference


# ---- smoothness --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
@SETTINGS
@given(data=st.data(), dirs=_vec(9, -1.0, 1.0), t=st.sampled_from([1e-3, 1e-2, 1e-1, 1.0]))
def test_extension_smoothness_bounds_second_differences(loss, data, dirs, t):
    """(e) For F_L with an H-Lipschitz gradient, 0 ≤ (F_L(x + tv) − 2F_L(x) + F_L(x − tv))/t² ≤ H‖v‖² (convexity
    and the integral form of Taylor's theorem) at every step t; ``extension_smoothness`` must give such an H.
    Rounding of the three values adds 4·_round_tol/t²."""
    X, Z, L = data.draw(cases(loss))
    d = X.shape[1]
    V = np.array(dirs[:3 * d]).reshape(3, d)
    assume(np.all(np.linalg.norm(V, axis=1) > 0.1))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    H = loss.extension_smoothness(Z, L)
    assert H.shape == (Z.shape[0],)
    public = loss.smoothness_bound(L)  # PowerLoss: (κ − 1)a_max^{κ/(κ−1)}L^{(κ−2)/(κ−1)} ≥ every record's H
    assert public is None or np.all(H <= public * (1 + 1e-12))
    f0 = loss.extended_value(X, Z, L)
    for v in V:
        fp, fm = loss.extended_value(X + t * v, Z, L), loss.extended_value(X - t * v, Z, L)
        second = (fp - 2 * f0 + fm) / t ** 2
        rnd = 4 * _round_tol(np.r_[fp.ravel(), fm.ravel(), f0.ravel()], L, X + t) / t ** 2
        assert np.all(second <= H[None, :] + rnd)
        assert np.all(second >= -rnd)


@pytest.mark.parametrize("loss, Z, x, v", [
    # squared: |z − y| = |0.07 ± 0.05| ≤ M = 2, F_L = ½⟨a, x⟩² is quadratic along a/‖a‖ with curvature ‖a‖² = 25
    (SquaredLoss(), np.array([[3.0, 4.0, 0.0]]), np.array([0.01, 0.01]), np.array([0.6, 0.8])),
    # squared hinge: y = 1, z = ⟨a, x⟩ = 0.07 ± 0.05, 0 < 1 − z ≤ M = L/‖a‖ = 10/5 = 2: curvature ‖a‖² = 25
    (SquaredHingeLoss(), np.array([[3.0, 4.0, 1.0]]), np.array([0.01, 0.01]), np.array([0.6, 0.8])),
    # radial: h = 2, inside h·r ≤ L: F_L = ‖x − s‖² with curvature h = 2 in every direction
    (SquaredDistanceLoss(), np.array([[0.0, 0.0, 2.0]]), np.array([0.1, 0.2]), np.array([0.6, 0.8])),
    # diagonal quadratic: inside ‖U(x − c)‖ ≤ L, curvature max u = 7 along e_2
    (DiagonalQuadraticLoss(), np.array([[0.0, 0.0, 0.5, 7.0]]), np.array([0.1, 0.1]), np.array([0.0, 1.0])),
])
def test_extension_smoothness_is_attained(loss, Z, x, v):
    """(e) The bound is not vacuous: on a quadratic piece the second difference equals it (exactly, up to the
    rounding 4·_round_tol/t²).  L = 10 keeps x ± tv (t = 1e-2) inside the piece in each case."""
    L, t = 10.0, 1e-2
    X = x[None]
    f = [loss.extended_value(X + s * t * v, Z, L)[0, 0] for s in (1.0, 0.0, -1.0)]
    second = (f[0] - 2 * f[1] + f[2]) / t ** 2
    H = loss.extension_smoothness(Z, L)[0]
    assert H == pytest.approx({SquaredLoss: 25.0, SquaredHingeLoss: 25.0, SquaredDistanceLoss: 2.0,
                               DiagonalQuadraticLoss: 7.0}[type(loss)], rel=4 * EPS)
    assert abs(second - H) <= 4 * _round_tol(np.array(f), L, X + t) / t ** 2


@pytest.mark.parametrize("kappa", [3.0, 4.0])
def test_power_extension_smoothness_is_attained_at_r_M(kappa):
    """(e) For the power loss h_M'' = (κ − 1)r^{κ−2} grows up to r_M = M^{1/(κ−1)} and vanishes beyond, so the bound
    (κ − 1)r_M^{κ−2}‖a‖² is approached just inside r_M.  a = (1, 0), y = 0, L = 4: M = 4, r_M = 4^{1/(κ−1)}
    (2 for κ = 3, 4^{1/3} = 1.5874 for κ = 4).  At z = r_M − 2t the points z ± t stay inside, where F_L = |z|^κ/κ and
    the second difference is exactly 2z (κ = 3) or 3z² + t²/2 (κ = 4) — both ≥ (κ − 1)r_M^{κ−2}(1 − 2t/r_M)^{κ−2}."""
    t = 1e-3
    L = 4.0
    rM = L ** (1.0 / (kappa - 1.0))
    loss = PowerLoss(kappa)
    Z = np.array([[1.0, 0.0, 0.0]])
    H = loss.extension_smoothness(Z, L)[0]
    assert H == pytest.approx((kappa - 1.0) * rM ** (kappa - 2.0), rel=1e-14)  # 4 (κ = 3), 3·4^{2/3} = 7.5595 (κ = 4)
    z = rM - 2 * t
    f = [loss.extended_value(np.array([[z + s * t, 0.0]]), Z, L)[0, 0] for s in (1.0, 0.0, -1.0)]
    second = (f[0] - 2 * f[1] + f[2]) / t ** 2
    rnd = 4 * _round_tol(np.array(f), L, np.array([[rM]])) / t ** 2
    assert H * (1.0 - 2 * t / rM) ** (kappa - 2.0) - rnd <= second <= H + rnd


# ---- bad records ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_check_records_rejects_bad_arrays(loss):
    """(f) NaN / infinite entries, the wrong width for the dimension, an empty or 1-D array: ValueError naming the
    parameter (``name``)."""
    good = np.ones((3, loss.width(2)))
    assert check_records(good, loss, 2, name="S").shape == (3, loss.width(2))
    bad_nan = good.copy()
    bad_nan[1, 0] = np.nan
    with pytest.raises(ValueError, match="S contains NaN"):
        check_records(bad_nan, loss, 2, name="S")
    bad_inf = good.copy()
    bad_inf[0, 0] = np.inf
    with pytest.raises(ValueError, match="S contains NaN or infinite"):
        check_records(bad_inf, loss, 2, name="S")
    with pytest.raises(ValueError, match=f"S must have {loss.width(2)} columns"):
        check_records(np.ones((3, loss.width(2) + 2)), loss, 2, name="S")
    with pytest.raises(ValueError, match="S is empty"):
        check_records(np.ones((0, loss.width(2))), loss, 2, name="S")
    with pytest.raises(ValueError, match="S must be a 2-D"):
        check_records(np.ones(loss.width(2)), loss, 2, name="S")
    with pytest.raises(TypeError, match="S must be a numeric"):
        check_records([["a", "b", "c", "d"]], loss, 2, name="S")


@pytest.mark.parametrize("loss", [SquaredHingeLoss(), LogisticLoss()], ids=["squared_hinge", "logistic"])
@pytest.mark.parametrize("label", [0.0, 0.5, 2.0, -1.5])
def test_check_records_rejects_labels_not_pm1(loss, label):
    """(f) Labels of the margin losses must be ±1."""
    Z = np.array([[1.0, 2.0, 1.0], [0.5, -1.0, label]])
    with pytest.raises(ValueError, match=r"Z: .*labels must be -1 or \+1"):
        check_records(Z, loss, 2)


def test_check_records_rejects_negative_curvatures():
    """(f) Negative weights h of the radial loss and negative curvatures u of the diagonal quadratic (F would be
    concave along them)."""
    with pytest.raises(ValueError, match=r"Z: SquaredDistanceLoss weights h .* must be >= 0"):
        check_records(np.array([[0.0, 0.0, 1.0], [1.0, 1.0, -0.1]]), SquaredDistanceLoss(), 2)
    with pytest.raises(ValueError, match=r"Z: DiagonalQuadraticLoss curvatures u must be >= 0"):
        check_records(np.array([[0.0, 0.0, 1.0, -2.0]]), DiagonalQuadraticLoss(), 2)
    with pytest.raises(ValueError, match=r"Z: DiagonalQuadraticLoss records are \[c, u\] with an even width"):
        check_records(np.ones((2, 3)), DiagonalQuadraticLoss())


def test_check_records_rejects_power_features_beyond_a_max():
    """(f) PowerLoss's declared a_max bounds the feature norms (its public smoothness bound depends on it):
    ‖(3, 4)‖ = 5 > a_max = 4.9 is refused, 5 ≤ 5 accepted."""
    Z = np.array([[3.0, 4.0, 0.0]])
    with pytest.raises(ValueError, match=r"Z: .*a_max = 4\.9"):
        check_records(Z, PowerLoss(3, a_max=4.9), 2)
    assert check_records(Z, PowerLoss(3, a_max=5.0), 2).shape == (1, 3)


@pytest.mark.parametrize("kappa", [1.5, 0.0, -3.0, float("nan")])
def test_power_loss_rejects_kappa_below_two(kappa):
    with pytest.raises(ValueError, match="kappa"):
        PowerLoss(kappa)
