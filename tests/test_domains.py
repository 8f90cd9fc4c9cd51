"""The one ``Ball`` type (``dpsco.reference.domains``, issue 26): B(c, M) with an optional centre, pinned against the
closed form Π_B(c, M)(w) = c + Π_B(0, M)(w − c) and against the pre-issue-26 behaviour of ``Ball(M)``; every entry
point of the papers whose calibration assumes W = B(0, M) refuses a ball with another centre before it reads data
or draws noise; Asi, Chadha, Cheng & Duchi's algorithms run on it (their centred domain, formerly ``BallDomain``).

Deterministic (hypothesis properties and fixed inputs): no stochastic assertion, hence no false-failure
probability to state.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpsco.reference.domains import Ball, require_centred
from dpsco.reference.projections import project_ball

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
moderate = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)
radii = st.one_of(st.floats(min_value=1e-3, max_value=1e3), st.sampled_from([1e-300, 1.0, 1e300]))
EPS = np.finfo(np.float64).eps
OFF_CENTRE = [0.5, 0.0]


def _pair(elements: st.SearchStrategy) -> st.SearchStrategy:
    return st.integers(1, 5).flatmap(lambda d: st.tuples(arrays(np.float64, d, elements=elements),
                                                         arrays(np.float64, d, elements=elements)))


# -- the type -----------------------------------------------------------------------------------------------------

@SETTINGS
@given(_pair(moderate), st.floats(min_value=1e-3, max_value=1e3))
def test_projection_onto_a_centred_ball_is_the_centre_plus_the_projection_of_the_offset(wc, r) -> None:
    w, c = wc
    p = Ball(r, center=c).project(w)
    q = c + project_ball(w - c, r)  # the closed form Π_B(c, r)(w) = c + Π_B(0, r)(w − c)
    # the two differ only by the rounding of (w − c) + c against w (inside points are returned bit for bit by
    # the first, re-added by the second): at most 2 ulps of max(|w|, |c|) per coordinate (two roundings)
    np.testing.assert_allclose(p, q, rtol=0, atol=float(4 * EPS * max(1.0, np.max(np.abs(w)), np.max(np.abs(c)))))
    assert np.linalg.norm(p - c) <= r * (1 + 1e-12)


@SETTINGS
@given(_pair(moderate), st.floats(min_value=1e-3, max_value=1e3))
def test_contains_and_project_agree(wc, r) -> None:
    w, c = wc
    for ball, off in ((Ball(r, center=c), w - c), (Ball(r), w)):
        dist = float(np.linalg.norm(off))
        p = ball.project(w)
        assert ball.contains(p, rtol=1e-12)                     # the projection lies in the ball (to rounding)
        if dist <= r * (1 - 1e-12):                             # clearly inside: contained, returned bit for bit
            assert ball.contains(w)
            np.testing.assert_array_equal(p, w)
        elif dist > r * (1 + 1e-12):                            # clearly outside: not contained, moved to the sphere
            assert not ball.contains(w)
            centre = np.zeros_like(w) if ball.center is None else ball.center
            # p = fl(c + v) with ‖v‖ = r(1 ± O(u)): each coordinate rounds by ≤ u|c_i + v_i|, and p − c rounds again,
            # so ‖(p − c) − v‖ ≤ u(‖c‖₂ + 2r) + O(u²) — in the 2-norm of c (the max-norm bound missed √d: d = 5,
            # c = 142·1, r = 1/32 measured 1.7e-13 against 1.3e-13); EPS = 2u, so 4·EPS = 8u leaves room
            assert abs(np.linalg.norm(p - centre) - r) <= 1e-12 * r + 4 * EPS * (float(np.linalg.norm(centre)) + r)


@SETTINGS
@given(st.integers(1, 5).flatmap(lambda d: arrays(np.float64, st.sampled_from([(d,), (3, d)]), elements=finite)),
       radii)
def test_ball_without_centre_is_the_old_ball(w, r) -> None:
    """Ball(M) is exactly the pre-issue-26 type: project = project_ball(w, M) bit for bit, contains = ‖w‖ ≤
    M(1 + rtol) with numpy's norm, to_dict {"type": "ball", "radius": M}, diameter 2M, bounded iff M finite."""
    b = Ball(r)
    np.testing.assert_array_equal(b.project(w), project_ball(w, r))
    if w.ndim == 1:
        with np.errstate(over="ignore"):  # numpy's norm overflows to inf beyond ~1.3e154, as it always did here
            assert b.contains(w, 1e-9) == bool(np.linalg.norm(w) <= r * (1 + 1e-9))
    assert b.to_dict() == {"type": "ball", "radius": r}
    assert b.diameter == 2.0 * r and b.bounded and b.d is None and b.centred_at_origin
    assert b == Ball(r) and hash(b) == hash(Ball(r)) and repr(b) == f"Ball({r!r})"


def test_unbounded_ball_and_value_semantics() -> None:
    b = Ball(math.inf)
    assert not b.bounded and b.diameter == math.inf
    np.testing.assert_array_equal(b.project(np.array([1e300, -3.0])), [1e300, -3.0])
    c = Ball(2.0, center=[1.0, -1.0])
    assert c.d == 2 and not c.centred_at_origin
    assert c.to_dict() == {"type": "ball", "radius": 2.0, "center": [1.0, -1.0]}
    assert c == Ball(2.0, center=np.array([1.0, -1.0])) and hash(c) == hash(Ball(2.0, center=(1.0, -1.0)))
    assert c != Ball(2.0) and c != Ball(2.0, center=[1.0, -1.0, 0.0]) and c != "ball"
    assert Ball(1.0, center=[0.0, 0.0]).centred_at_origin          # an explicit zero centre is the origin
    assert repr(c) == "Ball(2.0, center=[1.0, -1.0])"
    np.testing.assert_array_equal(c.project(np.array([1.0, -1.0])), [1.0, -1.0])
    np.testing.assert_allclose(c.project(np.array([1.0, 4.0])), [1.0, 1.0], rtol=0, atol=4 * EPS)


def test_ball_is_immutable_and_validated() -> None:
    src = np.array([1.0, 2.0])
    b = Ball(1.0, center=src)
    src[0] = 99.0                                                # the ball keeps its own copy
    assert b.center.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError):
        b.center[0] = 5.0                                        # read-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.radius = 2.0  # type: ignore[misc]
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="radius"):
            Ball(bad)
    with pytest.raises(TypeError, match="radius"):
        Ball("1")  # type: ignore[arg-type]
    for bad_c, err in (([math.nan, 0.0], ValueError), ([math.inf], ValueError), ([], ValueError),
                       ([[0.0, 1.0]], ValueError), (["a"], TypeError), (object(), TypeError)):
        with pytest.raises(err, match="center"):
            Ball(1.0, center=bad_c)
    with pytest.raises(ValueError, match="center"):
        Ball(1.0, center=[0.0, 0.0]).project(np.zeros(3))        # wrong dimension against an explicit centre


def test_require_centred() -> None:
    b = Ball(3.0)
    assert require_centred(b) is b and require_centred(Ball(3.0, center=[0.0])) == Ball(3.0, center=[0.0])
    with pytest.raises(ValueError, match=r"region must be centred at 0 \(B\(0, M\), Bassily et al\. Sec\. 2\)"):
        require_centred(Ball(1.0, center=OFF_CENTRE), "region")
    with pytest.raises(TypeError, match="domain"):
        require_centred(1.0)


# -- every entry point that assumes B(0, M) refuses a centred ball, before any noise -------------------------------

def _entry_points():
    """(label, call(domain, rng)) for every public function or class taking a Ball whose calibration assumes the
    origin as centre."""
    from dpsco.oracles import minimizers
    from dpsco.reference.alt24 import algorithms_known_lipschitz as akl, algorithms_one_pass as aop
    from dpsco.reference.alt24.losses import LinearLoss as AltLinear
    from dpsco.reference.alt24.model import MomentBounds
    from dpsco.reference.bftt19 import gradients, objp_replicates
    from dpsco.reference.bftt19.algorithms import nsgd_core
    from dpsco.reference.glm_certificate import certify
    from dpsco.reference.glm_objective import prepare_problem
    from dpsco.reference.losses import LinearLoss, LogisticLoss
    from dpsco.reference.muabg23.model import LinearLoss as MuLinear
    from dpsco.reference.problem import DataBounds, ERMProblem
    from dpsco.reference.solvers import certified_minimize

    X = np.array([[0.6, 0.0], [0.0, -0.6], [0.3, 0.3], [-0.2, 0.1]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    S = X.copy()
    mb = MomentBounds(2, (1.0, 1.0))
    grad = lambda W, idx: np.zeros(idx.shape + (2,))  # noqa: E731
    return [
        ("ERMProblem", lambda dom, rng: ERMProblem(LinearLoss(), dom, DataBounds(1.0, 1.0))),
        ("prepare_problem", lambda dom, rng: prepare_problem(LogisticLoss(), X, y, dom, 0.1, None, None)),
        ("certified_minimize", lambda dom, rng: certified_minimize(LogisticLoss(), X, y, dom, lam=0.1)),
        ("certify", lambda dom, rng: certify(LogisticLoss(), X, y, dom, np.zeros(2), lam=0.1)),
        ("nsgd_core", lambda dom, rng: nsgd_core(grad, 4, 2, dom, T=2, m=1, eta=0.1, sigma2=1.0, clip_norm=1.0,
                                                 rng=rng)),
        ("approximate_envelope_gradient", lambda dom, rng: gradients.approximate_envelope_gradient(
            LinearLoss(), np.zeros((1, 2)), X[:1], y[:1], 1.0, 3, domain=dom, local_radius=None)),
        ("ApproximateEnvelopeGradientOracle", lambda dom, rng: gradients.ApproximateEnvelopeGradientOracle(
            LinearLoss(), X, y, 1.0, 3, domain=dom, local_radius=None)),
        ("certified_or_best", lambda dom, rng: objp_replicates.certified_or_best(
            LogisticLoss(), X, y, dom, lam=0.1, linear=np.zeros(2), tol=1e-8)),
        ("batched_certificates", lambda dom, rng: objp_replicates.batched_certificates(
            LogisticLoss(), X, y, dom, np.zeros((1, 2)), lam=0.1, linear=np.zeros((1, 2)))),
        ("batched_objp_minimize", lambda dom, rng: objp_replicates.batched_objp_minimize(
            LogisticLoss(), X, y, dom, lam=0.1, linear=np.zeros((1, 2)), tol=1e-8)),
        ("cvxpy_minimize/problem_key", lambda dom, rng: minimizers.problem_key(LogisticLoss(), X, y, dom)),
        ("alt24 lipschitz_dpsco", lambda dom, rng: akl.lipschitz_dpsco(S, AltLinear(), dom, 0.5, 1.0, 1.0, rng)),
        ("alt24 known_lip_reduction", lambda dom, rng: akl.known_lip_reduction(S, AltLinear(), dom, 0.5, mb, rng)),
        ("alt24 onepass_clipped_sgd", lambda dom, rng: aop.onepass_clipped_sgd(S, AltLinear(), 1.0, 0.1, dom,
                                                                              np.zeros(2))),
        ("alt24 onepass_clipped_dp_sgd", lambda dom, rng: aop.onepass_clipped_dp_sgd(S, AltLinear(), dom,
                                                                                    np.zeros(2), 0.5, mb, rng)),
        ("muabg23 lipschitz(region)", lambda dom, rng: MuLinear().lipschitz(dom)),
    ]


@pytest.mark.parametrize("label,call", _entry_points(), ids=[e[0] for e in _entry_points()])
def test_entry_points_assuming_the_origin_refuse_a_centred_ball_before_any_noise(label, call) -> None:
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=r"(domain|region) must be centred at 0 \(B\(0, M\)"):
        call(Ball(1.0, center=OFF_CENTRE), rng)
    assert rng.bit_generator.state == state                        # refused before any draw
    call(Ball(1.0, center=[0.0, 0.0]), np.random.default_rng(0))   # an explicit zero centre is B(0, M): accepted
    call(Ball(1.0), np.random.default_rng(0))


# -- Asi, Chadha, Cheng & Duchi: the same type, with a centre ------------------------------------------------------

def test_accd22_runs_on_the_core_ball() -> None:
    from dpsco.reference.accd22 import SquaredLoss, algorithm_4

    Z = np.column_stack([np.eye(4)[:, :2] * 0.5, np.full(4, 0.1)])
    args = (1.0, 1.0, np.zeros(2), 1.0, 0.0)
    a = algorithm_4(Z, SquaredLoss(), Ball(1.0, center=np.zeros(2)), *args, np.random.default_rng(3)).output
    b = algorithm_4(Z, SquaredLoss(), Ball(1.0), *args, np.random.default_rng(3)).output
    np.testing.assert_array_equal(a, b)                  # Ball(r) is B(0, r) in the dimension of x0
    c = Ball(0.5, center=[2.0, -1.0])                    # a centred domain (x0 = its centre) stays supported
    out = algorithm_4(Z, SquaredLoss(), c, 1.0, 1.0, c.center, 1.0, 0.0, np.random.default_rng(3)).output
    assert c.contains(out, rtol=1e-12)
    with pytest.raises(ValueError, match="domain must be a bounded ball"):
        algorithm_4(Z, SquaredLoss(), Ball(math.inf), *args, np.random.default_rng(3))
    with pytest.raises(TypeError, match="domain"):
        algorithm_4(Z, SquaredLoss(), 1.0, *args, np.random.default_rng(3))
