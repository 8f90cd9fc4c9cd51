"""The separable-margin instances of ``dpsco.oracles.accd22.margin_instances`` (squared hinge, Asi, Chadha, Cheng & Duchi
2022, Definition 2.3 with a solution set): exact population risks on the finite support, interpolation, growth,
the exact distance to the solution set, and the twin's closed forms (hand derivations in the comments)."""

from __future__ import annotations

import itertools

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.oracles.accd22.margin_instances import FlippedSquaredHinge, SeparableSquaredHinge
from dpsco.reference.accd22 import Ball, SquaredHingeLoss, algorithm_1

LOSS = SquaredHingeLoss()


def _support(d: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The 4d support points (s e_k, ±s) with their probabilities: k uniform, s = ±1 with ½, label flipped w.p. q."""
    Z, w = [], []
    for k, s, flip in itertools.product(range(d), (-1.0, 1.0), (False, True)):
        a = np.zeros(d)
        a[k] = s
        Z.append(np.r_[a, -s if flip else s])
        w.append((1.0 / d) * 0.5 * (q if flip else 1.0 - q))
    return np.array(Z), np.array(w)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(d=st.integers(1, 4), q=st.floats(0.0, 0.45), seed=st.integers(0, 2 ** 16))
def test_population_risk_is_the_exact_expectation_over_the_support(d: int, q: float, seed: int) -> None:
    R = np.sqrt(d) + 0.5
    x = np.random.default_rng(seed).uniform(-2.0, 2.0, size=(5, d))
    Z, w = _support(d, q)
    exact = LOSS.value(x, Z) @ w  # E F(x; s) over the finite support, computed by the loss itself
    if q == 0.0:
        assert np.allclose(SeparableSquaredHinge(d, R).excess(x), exact, rtol=1e-12, atol=1e-15)
    else:
        inst = FlippedSquaredHinge(d, R, q)
        assert np.allclose(inst.population_risk(x), exact, rtol=1e-12, atol=1e-15)


def test_interpolation_at_the_margin_point_and_every_point_of_the_orthant() -> None:
    inst = SeparableSquaredHinge(3, 2.5)
    Z = inst.sample(200, np.random.default_rng(0))
    assert np.allclose(np.linalg.norm(Z[:, :-1], axis=1), 1.0)  # ‖a‖ = 1: H = 1
    for x in (inst.x_star, np.array([1.0, 1.5, 1.2])):  # both in O ∩ B(0, 2.5)
        assert np.all(LOSS.value(x[None], Z) == 0.0) and np.all(LOSS.grad(x[None], Z) == 0.0)
    twin = FlippedSquaredHinge(3, 2.5, 0.2)
    Zt = twin.sample(200, np.random.default_rng(1))
    assert np.max(np.abs(LOSS.grad(twin.x_star[None], Zt))) > 0.1  # not interpolating


def test_twin_closed_forms_by_hand() -> None:
    # g(t) = ½[(1 − q)(1 − t)² + q(1 + t)²] on [−1, 1]: g'(t) = −(1 − q)(1 − t) + q(1 + t) = 0 ⇔ t = 1 − 2q;
    # g(t*) = ½[(1 − q)(2q)² + q(2 − 2q)²] = 2q(1 − q); g'' = 1, so g(t) − g(t*) = ½(t − t*)².
    q, d = 0.15, 2
    twin = FlippedSquaredHinge(d, 2.0, q)
    assert np.allclose(twin.x_star, 0.7) and twin.f_star == pytest.approx(2 * 0.15 * 0.85)
    x = np.random.default_rng(2).uniform(-1.0, 1.0, size=(20, d))
    assert np.allclose(twin.excess(x), np.sum((x - 0.7) ** 2, axis=1) / (2 * d), rtol=1e-12, atol=1e-15)
    assert np.all(twin.excess(np.random.default_rng(3).uniform(-3, 3, size=(50, d))) >= -1e-15)


def test_distance_to_the_solution_set_and_growth() -> None:
    d, R = 2, 1.6
    inst = SeparableSquaredHinge(d, R)
    xs = np.random.default_rng(4).uniform(-1.5, 1.5, size=(12, d))
    dist = inst.dist_to_solution_set(xs)
    dist_orthant = np.linalg.norm(np.maximum(xs, 1.0) - xs, axis=1)
    # growth with respect to the orthant, exactly: f − f* = (1/(2d))·dist(x, O)²
    assert np.allclose(inst.excess(xs), dist_orthant ** 2 / (2 * d), rtol=1e-12)
    assert np.all(dist >= dist_orthant - 1e-12)  # X* = O ∩ X ⊂ O
    for x, dd in zip(xs, dist):
        z = cp.Variable(d)
        cp.Problem(cp.Minimize(cp.sum_squares(z - x)), [z >= 1, cp.norm(z) <= R]).solve(solver=cp.CLARABEL)
        # Clarabel's default tolerances (gap 1e-8 on the squared distance) place the distance to ~1e-4 at a
        # point where the ball constraint is active (the objective is flat to second order along the sphere)
        assert abs(np.linalg.norm(z.value - x) - dd) <= 2e-4


def test_algorithms_run_on_the_margin_instances() -> None:
    inst = SeparableSquaredHinge(2, 2.0)
    Z = inst.sample(400, np.random.default_rng(5))
    rel = algorithm_1(Z, LOSS, Ball(inst.R, center=np.zeros(2)), inst.L, inst.H, np.zeros(2), 1.0, 0.0,
                      np.random.default_rng(6), replicates=4)
    assert rel.output.shape == (4, 2) and np.all(np.linalg.norm(rel.output, axis=1) <= inst.R * (1 + 1e-12))


@pytest.mark.parametrize("kw, name", [(dict(d=2, R=1.0), "R"), (dict(d=0, R=3.0), "d")])
def test_bad_inputs(kw: dict, name: str) -> None:
    with pytest.raises((ValueError, TypeError), match=name):
        SeparableSquaredHinge(**kw)
    with pytest.raises(ValueError, match="q"):
        FlippedSquaredHinge(2, 3.0, 0.6)
