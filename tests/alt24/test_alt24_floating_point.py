"""Floating point in Asi, Liu & Tian (2024)'s algorithms: after the up-front data checks every algorithm returns a
finite release on every admissible record (heavy tails: any finite magnitude), and every clipped gradient a noisy
release averages has ‖·‖ ≤ C in floating point.

The defect these tests pin down: least squares on the record [a, b] = [10, 1e308] has (⟨a, x⟩ − b)a = −1e309,
which overflowed to −inf; the old clip computed −inf·(C/inf) = NaN, the iterate became NaN and the next step
raised ("x contains NaN or infinite values") — a mid-run exception on D and a release on its neighbour, i.e.
ε = ∞.  Now the clipped gradient is computed from the record scaled by its largest magnitude (exact direction,
no overflow) and every projection and clip is ``dpsco.reference.clipping``'s.

Properties (hypothesis) compare the scaled clipped gradients with the exact value computed in rational
arithmetic (``fractions.Fraction``: the gradient exactly, its norm to 1e-30 relative by an integer square root),
so the golden values do not come from the code under test.  "‖·‖ ≤ C in floating point" is measured by
``dpsco.reference.clipping.row_norms``, the norm the clipping guarantee is stated in.  Everything here is
deterministic.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.reference.alt24.algorithms_clipped_sgd import clipped_dp_sgd
from dpsco.reference.alt24.algorithms_localization import highprob_sco, lemma_15_solver
from dpsco.reference.alt24.algorithms_localized import localized_clipped_dp_sgd
from dpsco.reference.alt24.losses import LADLoss, LeastSquaresLoss, LinearLoss, TiltedQuadraticLoss
from dpsco.reference.alt24.algorithms_one_pass import onepass_clipped_dp_sgd, onepass_clipped_sgd
from dpsco.reference.alt24.model import MomentBounds
from dpsco.reference.alt24.primitives import clip, project_ball, vector_norm
from dpsco.reference.clipping import row_norms
from dpsco.reference.domains import Ball

HUGE = 1e308


def _exact_norm(g: list[Fraction]) -> Fraction:
    """‖g‖ of a rational vector to 2^-1200 absolute (an integer square root; exact enough for subnormals)."""
    scale = 2 ** 1200
    return Fraction(math.isqrt(int(sum(v * v for v in g) * scale * scale)), scale)


def _to_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:                      # beyond the largest double: ±inf
        return math.inf if q > 0 else -math.inf


def _exact_clip(g: list[Fraction], C: float) -> np.ndarray:
    """Π_C(g) for a rational vector g, rounded to double precision at the end."""
    norm = _exact_norm(g)
    if norm == 0:
        return np.zeros(len(g))
    if norm <= Fraction(C):
        return np.array([_to_float(v) for v in g])
    return np.array([float(v * Fraction(C) / norm) for v in g])


def _close(a: np.ndarray, b: np.ndarray, C: float) -> bool:
    return bool(np.all(np.abs(a - b) <= 1e-12 * C + 1e-300))


# ---- the reported defect ----------------------------------------------------------------------------------


def test_least_squares_overflow_record_gives_a_finite_release_on_both_neighbours() -> None:
    """Defect (fixed): D has the record [10, 1e308] (least squares, d = 1), D′ a benign one: the old code raised
    on D and released on D′.  Now both release a finite point and the white-box step function gives the exact
    clipped gradient Π_C(−1e309) = −C at x = 0 (hand: sign(⟨a, 0⟩ − b)·a/|a| = −1)."""
    n, C = 6, 0.75
    D = np.tile([1.0, 0.5], (n, 1))
    D[0] = [10.0, HUGE]
    Dp = np.tile([1.0, 0.5], (n, 1))
    kw = dict(C=C, lam=1.0, T=20, sigma=0.3, radius_r=5.0, domain_radius=5.0, white_box=True)
    a = clipped_dp_sgd(D, LeastSquaresLoss(), rng=np.random.default_rng(3), **kw)
    b = clipped_dp_sgd(Dp, LeastSquaresLoss(), rng=np.random.default_rng(3), **kw)
    assert np.all(np.isfinite(a.output)) and np.all(np.isfinite(b.output))
    assert a.white_box.record_gradient(np.zeros((1, 1)), np.array([10.0, HUGE]), 0.0).tolist() == [[-C]]
    # d = 2: the exact direction −(10, 5)/‖(10, 5)‖, not the limit direction (−1, −1)/√2 of the overflowed row
    g = LeastSquaresLoss().clipped_grads_at(np.zeros((1, 2)), np.array([[10.0, 5.0, HUGE]]), C)[0, 0]
    assert _close(g, -C * np.array([10.0, 5.0]) / math.hypot(10.0, 5.0), C)


def test_every_algorithm_is_finite_on_overflowing_records() -> None:
    """The same pattern in the other algorithms: finite releases, no exception, on records whose gradients
    overflow (Algorithm 5 with C = ∞ included: Π_X maps the overflowing step to the boundary)."""
    S = np.tile([0.3, -0.2, 0.1], (16, 1))
    S[0] = [10.0, 5.0, HUGE]
    S[5] = [HUGE, HUGE, -HUGE]
    S[9] = [5e-324, 0.0, HUGE]
    ls = LeastSquaresLoss()
    x5 = onepass_clipped_sgd(S, ls, math.inf, 0.1, Ball(2.0), np.zeros(2)).output
    x5c = onepass_clipped_sgd(S, ls, 1.0, 0.1, Ball(2.0), np.zeros(2)).output
    y = lemma_15_solver(S, ls, x_bar=np.zeros(2), lam=1.0, domain_radius=2.0)
    hp = highprob_sco(np.tile(S, (40, 1)), ls, G=1.0, delta_fail=0.5, domain_radius=2.0).output
    for out in (x5, x5c, y, hp):
        assert np.all(np.isfinite(out)) and np.linalg.norm(out) <= 2.0 * (1 + 1e-12)
    # Algorithm 7 with a declared a_max (β = a_max²): records with ‖a‖ ≤ a_max and |b| up to 1e308
    T = np.tile([0.3, 0.1], (32, 1))
    T[0] = [1.0, HUGE]
    T[3] = [-1.0, -HUGE]
    kw = {"epsilon": 0.9, "delta": 0.1, "C": 1.0, "c": 32.0, "omega": 359.0, "beta": 1.0, "radius": 10.0,
          "eta": 2.0e-5}
    r = localized_clipped_dp_sgd(T, LeastSquaresLoss(a_max=1.0), np.zeros(1), rng=np.random.default_rng(0), **kw)
    assert r.halted or np.all(np.isfinite(r.output))
    # Algorithm 8 (a GLM: the linear loss, β = 0) on records of magnitude 1.7e308 (their norm overflows)
    L = np.full((8, 2), 1.7e308)
    L[1] = [-1.7e308, 5e-324]
    out = onepass_clipped_dp_sgd(L, LinearLoss(), Ball(1.0), np.zeros(2), 0.5, MomentBounds(2, (1.0, 1.0)),
                                 np.random.default_rng(1)).output
    assert np.all(np.isfinite(out)) and np.linalg.norm(out) <= 1.0 + 1e-12


# ---- properties: the clipped gradients are exact and bounded ---------------------------------------------

magnitude = st.one_of(st.floats(-HUGE * 1.79, HUGE * 1.79, allow_nan=False, allow_infinity=False),
                      st.sampled_from([0.0, 5e-324, -5e-324, 1e-300, -1e-300, HUGE, -HUGE, 1.7976931348623157e308]))


@settings(max_examples=150, deadline=None)
@given(st.lists(magnitude, min_size=3, max_size=3), st.lists(st.floats(-2.0, 2.0), min_size=2, max_size=2),
       st.sampled_from([1e-3, 1.0, 1e6]))
def test_least_squares_clipped_gradient_is_exact_and_bounded(rec, x, C) -> None:
    """Π_C((⟨a, x⟩ − b)a) is finite with ‖·‖ ≤ C in floating point always, and equals the exact rational value
    (to 1e-12·C) wherever the residual ⟨a, x⟩ − b does not cancel below 1e-3 of its terms' size Σ|a_i x_i| + |b|
    (heavier cancellation is the rounding of the loss itself — e.g. a = (1, 2⁵³), b = 2⁵³, x = (1, 1) — not an
    overflow; there the computed residual's relative error can exceed 1e-12)."""
    S = np.array([rec])
    X = np.array([x])
    g = LeastSquaresLoss().clipped_grads_at(X, S, C)[0, 0]
    a = [Fraction(v) for v in rec[:2]]
    res = sum(ai * Fraction(xi) for ai, xi in zip(a, x)) - Fraction(rec[2])
    assert np.all(np.isfinite(g)) and float(row_norms(g)) <= C
    size = sum(abs(ai * Fraction(xi)) for ai, xi in zip(a, x)) + abs(Fraction(rec[2]))
    if abs(res) >= Fraction(1, 1000) * size:
        assert _close(g, _exact_clip([res * ai for ai in a], C), C)


@settings(max_examples=150, deadline=None)
@given(st.lists(magnitude, min_size=4, max_size=4), st.lists(st.floats(-2.0, 2.0), min_size=2, max_size=2),
       st.sampled_from([0.5, 3.0]), st.sampled_from([1e-3, 1.0, 1e6]))
def test_tilted_quadratic_clipped_gradient_is_exact_and_bounded(rec, x, beta0, C) -> None:
    """Π_C(ξ + β₀(x − z)) is finite with ‖·‖ ≤ C in floating point always, and equals the exact rational value
    (to 1e-12·C) wherever the gradient does not cancel below 1e-3 of its terms' size max_i |ξ_i| + β₀(|x_i| + |z_i|)
    (heavier cancellation is rounding of the loss itself, not an overflow)."""
    g = TiltedQuadraticLoss(beta0).clipped_grads_at(np.array([x]), np.array([rec]), C)[0, 0]
    exact = [Fraction(rec[i]) + Fraction(beta0) * (Fraction(x[i]) - Fraction(rec[2 + i])) for i in range(2)]
    assert np.all(np.isfinite(g)) and float(row_norms(g)) <= C
    size = max(abs(Fraction(rec[i])) + Fraction(beta0) * (abs(Fraction(x[i])) + abs(Fraction(rec[2 + i])))
               for i in range(2))
    if _exact_norm(exact) >= Fraction(1, 1000) * size:
        assert _close(g, _exact_clip(exact, C), C)


@settings(max_examples=100, deadline=None)
@given(st.lists(magnitude, min_size=3, max_size=3), st.lists(st.floats(-2.0, 2.0), min_size=2, max_size=2))
def test_lad_subgradient_sign_is_exact(rec, x) -> None:
    """sign(⟨a, x⟩ − b) of the LAD subgradient is the exact sign (sign(0) = 1) wherever the exact residual is not
    within the sum's own rounding of 0 (relative 1e-12 of the scale m·(1 + ‖x‖₁)), even where ⟨a, x⟩ − b
    overflows or underflows."""
    g = LADLoss().grads(np.array(x), np.array([rec]))[0]
    res = sum(Fraction(a) * Fraction(xi) for a, xi in zip(rec[:2], x)) - Fraction(rec[2])
    m = max(abs(Fraction(v)) for v in rec)
    if m > 0 and abs(res) <= Fraction(1, 10**12) * m * (1 + sum(abs(Fraction(xi)) for xi in x)):
        return                                  # within rounding of 0: either sign is a valid subgradient's
    assert g.tolist() == [(1.0 if res >= 0 else -1.0) * v for v in rec[:2]]


@settings(max_examples=100, deadline=None)
@given(st.lists(magnitude, min_size=3, max_size=3), st.sampled_from([0.0, 1e-3, 1.0, 1e300]))
def test_clip_and_projection_hold_in_floating_point(v, C) -> None:
    """clip (Π_C) and project_ball are bounded by C in floating point and finite for every finite vector; within
    the bound they return the vector itself; vector_norm agrees with the exact norm to 1e-15."""
    v = np.array(v)
    out = clip(v, C)
    assert np.all(np.isfinite(out)) and float(row_norms(out)) <= C
    p = project_ball(v, np.zeros(3), C)
    assert np.all(np.isfinite(p)) and float(row_norms(p)) <= C
    true = _to_float(_exact_norm([Fraction(t) for t in v]))
    if math.isfinite(true) and true > 0:
        assert vector_norm(v) == pytest.approx(true, rel=1e-15)
    if float(row_norms(v)) <= C:
        assert np.array_equal(out, v) and np.array_equal(p, v)
