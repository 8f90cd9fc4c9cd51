"""The one copy of each shared core concept (issue 26): projections (dpsco.reference.projections), per-row clipping
(dpsco.reference.clipping.clip_rows_each), the noise-calibration names, and the old public names kept as the core
objects or thin wrappers.  Deterministic property tests (hypothesis): no stochastic assertion, hence no
false-failure probability to state.  Closed forms: Π_B(c, r)(y) = c + (y − c)·min(1, r/‖y − c‖); the two-ball
projection against cvxpy (an independent convex solver) on small cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpsco.reference import projections
from dpsco.reference.clipping import clip_rows, clip_rows_each, row_norms
from dpsco.reference.projections import project_ball, project_ball_intersection

finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
moderate = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
radii = st.one_of(st.floats(min_value=1e-300, max_value=1e300), st.sampled_from([1e-300, 1.0, 1e300]))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _vec(elements: st.SearchStrategy, d: int | None = None) -> st.SearchStrategy:
    return st.integers(1, 6).flatmap(lambda k: arrays(np.float64, d or k, elements=elements)) if d is None else \
        arrays(np.float64, d, elements=elements)


# -- ball projection -------------------------------------------------------------------------------------------

@SETTINGS
@given(_vec(finite), radii)
def test_projection_about_the_origin_is_bounded_idempotent_and_the_closed_form(y, r) -> None:
    p = project_ball(y, r)
    assert np.all(np.isfinite(p))
    assert row_norms(p[None, :])[0] <= r                          # the bound, as computed, in float64
    np.testing.assert_array_equal(project_ball(p, r), p)         # idempotent: inside points are returned as they are
    ny = row_norms(y[None, :])[0]
    if ny <= r:
        np.testing.assert_array_equal(p, y)                      # inside: unchanged bit for bit
    else:  # the closed form r·y/‖y‖, to a few ulps (computed with the overflow-safe scaling)
        m = np.max(np.abs(y))
        u = y / m
        expected = r * (u / math.sqrt(float(u @ u)))
        np.testing.assert_allclose(p, expected, rtol=1e-14, atol=0)


@SETTINGS
@given(st.integers(1, 4).flatmap(lambda d: st.tuples(_vec(moderate, d), _vec(moderate, d))),
       st.floats(min_value=0.0, max_value=1e3))
def test_projection_about_a_centre_is_bounded_and_nearest(yc, r) -> None:
    y, c = yc
    p = project_ball(y, r, c)
    assert row_norms((p - c)[None, :])[0] <= r                  # in the ball as computed (after the ulp shrink)
    np.testing.assert_array_equal(project_ball(p, r, c), p)
    # nearest point: no point of the ball on a grid of directions is closer than p (brute force, d small)
    rng = np.random.default_rng(0)
    Q = rng.standard_normal((400, y.size))
    Q = c + r * rng.random((400, 1)) ** (1 / y.size) * Q / np.linalg.norm(Q, axis=1, keepdims=True)
    assert np.linalg.norm(p - y) <= np.min(np.linalg.norm(Q - y, axis=1)) * (1 + 1e-12) + 1e-9


def test_projection_edges() -> None:
    y = np.array([3.0, 4.0])
    np.testing.assert_array_equal(project_ball(y, 0.0), [0.0, 0.0])            # radius 0: the centre
    np.testing.assert_array_equal(project_ball(y, 0.0, [1.0, 1.0]), [1.0, 1.0])
    np.testing.assert_array_equal(project_ball(y, math.inf), y)                 # radius inf: the identity
    np.testing.assert_array_equal(project_ball(np.zeros(3), 1.0), np.zeros(3))  # zero vector
    for bad in (math.nan, -1.0):
        with pytest.raises(ValueError, match="radius"):
            project_ball(y, bad)
    with pytest.raises(ValueError, match="center"):
        project_ball(y, 1.0, [math.nan, 0.0])
    with pytest.raises(ValueError, match="center"):
        project_ball(y, 1.0, [0.0, 0.0, 0.0])
    # rows that overflowed go to the boundary in their limit direction; NaN rows to the centre; finite always
    P = project_ball(np.array([[np.inf, 0.0], [np.nan, 1.0], [1e300, 1e300], [5e-324, 0.0]]), 2.0)
    np.testing.assert_allclose(P[0], [2.0, 0.0])
    np.testing.assert_array_equal(P[1], [0.0, 0.0])
    np.testing.assert_allclose(P[2], [math.sqrt(2.0), math.sqrt(2.0)], rtol=1e-15)
    np.testing.assert_array_equal(P[3], [5e-324, 0.0])
    # y − c overflows (1e308 − (−1e308)): still bounded and finite
    q = project_ball(np.array([1e308, 0.0]), 1.0, np.array([-1e308, 0.0]))
    assert np.all(np.isfinite(q)) and row_norms((q - [-1e308, 0.0])[None, :])[0] <= 1.0


# -- two-ball projection ---------------------------------------------------------------------------------------

def _cvxpy_two_ball(y, c1, r1, c2, r2):
    import cvxpy as cp

    x = cp.Variable(y.size)
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x - y)), [cp.norm(x - c1) <= r1, cp.norm(x - c2) <= r2])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return np.asarray(x.value), prob.status


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 3).flatmap(lambda d: st.tuples(*(arrays(np.float64, d, elements=st.floats(-3, 3))
                                                       for _ in range(3)))),
       st.floats(0.2, 3.0), st.floats(0.2, 3.0))
def test_two_ball_projection_matches_cvxpy(yab, r1, r2) -> None:
    y, c1, c2 = yab
    if np.linalg.norm(c1 - c2) > 0.9 * (r1 + r2):  # keep a non-empty intersection with some interior
        c2 = c1 + (c2 - c1) * 0.9 * (r1 + r2) / max(np.linalg.norm(c2 - c1), 1e-300) * 0.9
    p = project_ball_intersection(y, c1, r1, c2, r2)
    assert np.linalg.norm(p - c1) <= r1 * (1 + 1e-12) and np.linalg.norm(p - c2) <= r2 * (1 + 1e-12)
    if np.linalg.norm(y - c1) <= r1 and np.linalg.norm(y - c2) <= r2:
        np.testing.assert_allclose(p, y, rtol=0, atol=1e-12)  # a feasible point is its own projection (to the rounding of its feasibility test)
        return
    q, status = _cvxpy_two_ball(y, c1, r1, c2, r2)
    # cvxpy is the oracle only where Clarabel reports an optimal solve: at y = 0 on the sphere of B((0, 1), 1)
    # inside B(0, 3) it returned (0, 2.8e-4) as "optimal_inaccurate"
    assume(status == "optimal")
    # both are the unique nearest point; cvxpy's interior-point answer is accurate to ~1e-6 at these scales
    np.testing.assert_allclose(p, q, atol=1e-5)
    assert np.linalg.norm(p - y) <= np.linalg.norm(q - y) + 1e-9


def test_two_ball_edges_and_rows() -> None:
    with pytest.raises(ValueError, match="do not intersect"):
        project_ball_intersection([0.0, 0.0], [0.0, 0.0], 1.0, [3.0, 0.0], 1.0)
    with pytest.raises(ValueError, match="r2"):
        project_ball_intersection([0.0, 0.0], [0.0, 0.0], 1.0, [0.5, 0.0], math.nan)
    y = np.array([0.5, 3.0])
    np.testing.assert_array_equal(project_ball_intersection(y, [0, 0], math.inf, [0, 0], 1.0), project_ball(y, 1.0))
    # nested balls: the smaller one's projection
    np.testing.assert_array_equal(project_ball_intersection(y, [0, 0], 5.0, [0, 0.5], 1.0),
                                  project_ball(y, 1.0, [0.0, 0.5]))
    # both constraints active: the meeting point of the two unit circles about 0 and (1, 0) nearest (0.5, 5) is
    # (1/2, √3/2) (hand derivation: the circles meet at x = 1/2, y = ±√(1 − 1/4))
    p = project_ball_intersection([0.5, 5.0], [0.0, 0.0], 1.0, [1.0, 0.0], 1.0)
    np.testing.assert_allclose(p, [0.5, math.sqrt(0.75)], rtol=1e-15)
    # rows with their own centres equal the one-row calls
    rng = np.random.default_rng(1)
    Y, C1 = rng.normal(size=(20, 3)) * 3, rng.normal(size=(20, 3)) * 0.3
    rows = project_ball_intersection(Y, C1, 1.5, np.zeros(3), 1.0)
    for i in range(20):
        np.testing.assert_array_equal(rows[i], project_ball_intersection(Y[i], C1[i], 1.5, np.zeros(3), 1.0))


# -- clipping ----------------------------------------------------------------------------------------------------

@SETTINGS
@given(st.integers(1, 5).flatmap(lambda d: arrays(np.float64, (4, d), elements=finite)),
       arrays(np.float64, 4, elements=st.floats(1e-300, 1e300)))
def test_per_row_clipping_bound_and_direction(G, bounds) -> None:
    out = clip_rows_each(G, bounds)
    assert np.all(row_norms(out) <= bounds)
    for g, o, b in zip(G, out, bounds):
        np.testing.assert_array_equal(o, clip_rows(g[None, :], b)[0])   # the core clipping row by row
        if row_norms(g[None, :])[0] > b and np.any(g):                  # the direction is kept
            m = np.max(np.abs(g))
            cos = float((g / m) @ (o / np.max(np.abs(o)))) / (row_norms((g / m)[None])[0] *
                                                               row_norms((o / np.max(np.abs(o)))[None])[0])
            assert cos >= 1 - 1e-12
    with pytest.raises(ValueError, match="bounds"):
        clip_rows_each(G, bounds[:2])


# -- old public names are the core objects or thin wrappers ---------------------------------------------------

def test_old_projection_names_agree_with_the_core() -> None:
    from dpsco.reference import noise
    from dpsco.reference.accd22 import phase
    from dpsco.reference.alt24 import primitives
    from dpsco.reference.alt24.algorithms_clipped_sgd import two_ball_projector
    from dpsco.reference.domains import Ball

    rng = np.random.default_rng(2)
    Y = rng.normal(size=(50, 4)) * 3
    c = rng.normal(size=4) * 0.2
    core = project_ball(Y, 1.3)
    np.testing.assert_array_equal(Ball(1.3).project(Y), core)
    np.testing.assert_array_equal(noise.project_ball(Y, 1.3), core)
    np.testing.assert_array_equal(primitives.project_ball(Y, c, 1.3), project_ball(Y, 1.3, c))
    two = project_ball_intersection(Y, c, 1.3, np.zeros(4), 1.0)
    np.testing.assert_array_equal(two_ball_projector(c, 1.3, np.zeros(4), 1.0)(Y), two)
    np.testing.assert_array_equal(phase.project_balls(Y, [(c, 1.3), (np.zeros(4), 1.0)]), two)
    np.testing.assert_array_equal(primitives.project_ball_intersection(Y[0], c, 1.3, np.zeros(4), 1.0), two[0])
    assert projections.project_ball is project_ball


def test_one_noise_calibration_type() -> None:
    from dpsco.reference import noise
    from dpsco.reference.bftt19 import accounting

    assert accounting.NoiseCalibration is accounting.CertifiedNoiseStd                    # the old name kept
    assert accounting.CertifiedNoiseStd.__name__ != noise.NoiseCalibration.__name__        # no two such classes
    assert noise.NoiseCalibration.__name__ == "NoiseCalibration"
