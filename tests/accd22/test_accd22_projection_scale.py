"""The phases' ball projections at every magnitude (independent review, medium): ``np.linalg.norm`` returned inf
beyond ~1.34e154, so a far point was "projected" onto the ball's centre and a phase on a huge public domain
moved by 10·Lη instead of ≤ 1.1·Lη (ε ≥ 1.97 measured against a claim of 1).

Golden values by scale equivariance: multiplying points, centres and radii by 2^k (exact in binary floating point
while nothing overflows) multiplies the projection by 2^k, so the projection at 1e150–1e300 must equal 2^k times
the projection at ordinary scale — a hand derivation, not the code's own output.  Deterministic.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsco.reference.accd22.phase import project_balls


@pytest.mark.parametrize("k", [0, 500, 700, 900, 1000, -900])
def test_one_ball_projection_is_scale_equivariant(k):
    rng = np.random.default_rng(1)
    P = rng.standard_normal((50, 3)) * 4.0
    c = np.array([0.5, -0.25, 1.0])
    base = project_balls(P, [(c, 1.5)])
    s = 2.0 ** k
    scaled = project_balls(P * s, [(c * s, 1.5 * s)])
    np.testing.assert_allclose(scaled, base * s, rtol=1e-12, atol=0.0)
    assert np.all(np.isfinite(scaled))


@pytest.mark.parametrize("k", [0, 500, 900, -900])
def test_two_ball_projection_is_scale_equivariant(k):
    rng = np.random.default_rng(2)
    P = rng.standard_normal((200, 3)) * 3.0
    a, b = np.zeros(3), np.array([1.5, 0.0, 0.0])
    base = project_balls(P, [(a, 1.0), (b, 1.0)])            # both spheres active for many rows
    s = 2.0 ** k
    scaled = project_balls(P * s, [(a * s, 1.0 * s), (b * s, 1.0 * s)])
    np.testing.assert_allclose(scaled, base * s, rtol=1e-9, atol=1e-12 * s)
    assert np.all(np.isfinite(scaled))


def test_a_far_point_is_projected_onto_the_sphere_not_the_centre():
    out = project_balls(np.array([[1e300, 0.0]]), [(np.zeros(2), 1e155)])
    np.testing.assert_allclose(out, [[1e155, 0.0]], rtol=1e-15)
