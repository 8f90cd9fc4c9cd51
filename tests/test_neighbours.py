"""Tests of dpsco.verification.auditing.neighbours: replace-one neighbours at the extremes of the declared data domain.

All assertions are deterministic (no sampling); invariants are checked with hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpsco.reference.domains import Ball
from dpsco.reference.losses import get_loss
from dpsco.reference.problem import DataBounds, ERMProblem
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.neighbours import canary_pair, extreme_points, replace_one_extreme


@st.composite
def bounded_dataset(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, DataBounds, int]:
    n = draw(st.integers(1, 12))
    d = draw(st.integers(1, 6))
    x_max = draw(st.floats(1e-3, 1e3))
    y_max = draw(st.floats(0.0, 10.0))
    raw = draw(arrays(np.float64, (n, d), elements=st.floats(-1, 1)))
    scale = draw(arrays(np.float64, (n,), elements=st.floats(0, 1)))
    norms = np.linalg.norm(raw, axis=1)
    X = raw / np.where(norms > 0, norms, 1.0)[:, None] * (scale * x_max)[:, None]
    y = draw(arrays(np.float64, (n,), elements=st.floats(-1, 1))) * y_max
    index = draw(st.integers(-n, n - 1))
    return X, y, DataBounds(x_max=x_max, y_max=y_max), index


@settings(max_examples=150, deadline=None)
@given(data=bounded_dataset())
def test_replace_one_extreme_is_a_replace_one_neighbour_in_the_domain(data: tuple) -> None:
    X, y, bounds, index = data
    X2, y2 = replace_one_extreme(X, y, bounds, index=index)
    assert X2.shape == X.shape and y2.shape == y.shape
    changed = np.nonzero(np.any(X2 != X, axis=1) | (y2 != y))[0]
    assert changed.tolist() == [index % X.shape[0]]  # exactly one record differs, the requested one
    i = changed[0]
    # the new record satisfies the declared bounds exactly (no tolerance) and is extreme
    assert np.linalg.norm(X2[i]) <= bounds.x_max
    assert np.linalg.norm(X2[i]) >= bounds.x_max * (1 - 1e-13)
    assert abs(y2[i]) <= bounds.y_max
    # the inputs are not modified
    assert not np.shares_memory(X2, X)


def test_replace_one_extreme_defaults_by_hand() -> None:
    b = DataBounds(x_max=2.0, y_max=1.0)
    X = np.array([[3.0 / 5, 4.0 / 5], [0.0, 0.0]])
    y = np.array([0.5, -1.0])
    X2, y2 = replace_one_extreme(X, y, b, index=0)
    np.testing.assert_allclose(X2[0], [-6.0 / 5, -8.0 / 5], rtol=1e-13)  # antipode scaled to x_max
    assert y2[0] == -1.0  # −sign(y)·y_max
    X3, y3 = replace_one_extreme(X, y, b)  # last record is 0: e₁ direction, label flipped to +y_max
    np.testing.assert_allclose(X3[1], [2.0, 0.0], rtol=1e-13)
    assert y3[1] == 1.0
    X4, y4 = replace_one_extreme(X, y, b, index=1, direction=[0.0, -5.0], label=0.25)
    np.testing.assert_allclose(X4[1], [0.0, -2.0], rtol=1e-13)
    assert y4[1] == 0.25


def test_replace_one_extreme_validation() -> None:
    b = DataBounds(x_max=1.0, y_max=1.0)
    X, y = np.eye(2), np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="x_max"):
        replace_one_extreme(2 * X, y, b)
    with pytest.raises(ValueError, match="y_max"):
        replace_one_extreme(X, 3 * y, b)
    with pytest.raises(ValueError, match="index"):
        replace_one_extreme(X, y, b, index=2)
    with pytest.raises(ValueError, match="direction"):
        replace_one_extreme(X, y, b, direction=[0.0, 0.0])
    with pytest.raises(ValueError, match="direction"):
        replace_one_extreme(X, y, b, direction=[1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="label"):
        replace_one_extreme(X, y, b, label=1.5)
    with pytest.raises(TypeError, match="bounds"):
        replace_one_extreme(X, y, (1.0, 1.0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="X"):
        replace_one_extreme(np.array([[np.nan, 0.0]]), np.array([0.0]), b)


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 6), k=st.integers(1, 40), x_max=st.floats(1e-3, 1e3))
def test_extreme_points_on_the_sphere(d: int, k: int, x_max: float) -> None:
    b = DataBounds(x_max=x_max)
    P = extreme_points(b, d, k, rng=np.random.default_rng(0))
    assert P.shape == (k, d)
    norms = np.linalg.norm(P, axis=1)
    assert np.all(norms <= x_max) and np.all(norms >= x_max * (1 - 1e-13))
    # deterministic prefix: signed axes e₁, −e₁, e₂, ...
    for j in range(min(k, 2 * d)):
        expected = np.zeros(d)
        expected[j // 2] = x_max if j % 2 == 0 else -x_max
        np.testing.assert_allclose(P[j], expected, rtol=1e-13)


def test_extreme_points_needs_rng_beyond_the_deterministic_set() -> None:
    b = DataBounds(x_max=1.0)
    assert extreme_points(b, 2, 8).shape == (8, 2)  # 4 axes + 4 diagonals
    with pytest.raises(ValueError, match="rng"):
        extreme_points(b, 2, 9)
    with pytest.raises(ValueError, match="k"):
        extreme_points(b, 2, 0)


@pytest.mark.parametrize("loss_name", ["linear", "logistic", "hinge", "squared", "huber", "absolute"])
@pytest.mark.parametrize("neighbour", ["symmetric", "null"])
def test_canary_pairs(loss_name: str, neighbour: str) -> None:
    n, d = 7, 4
    b = DataBounds(x_max=1.5, y_max=2.0)
    pair = canary_pair(n, d, b, loss_name, neighbour=neighbour)  # type: ignore[arg-type]
    loss = get_loss(loss_name)
    problem = ERMProblem(loss, Ball(3.0), b)
    for X, y in ((pair.X, pair.y), (pair.X_neighbour, pair.y_neighbour)):
        problem.check(X, y)  # inside the declared domain, labels valid for the loss
        assert np.all(X[:-1] == 0.0)  # n − 1 zero-feature records
    diff = np.nonzero(np.any(pair.X != pair.X_neighbour, axis=1) | (pair.y != pair.y_neighbour))[0]
    assert diff.tolist() == [n - 1]  # replace-one: exactly the canary differs
    np.testing.assert_allclose(pair.X[-1], [1.5, 0.0, 0.0, 0.0], rtol=1e-13)
    rng = np.random.default_rng(0)
    for _ in range(5):
        w = rng.normal(size=d)
        w *= 3.0 * rng.random() / np.linalg.norm(w)
        g, g2 = loss.grad(w, pair.X, pair.y), loss.grad(w, pair.X_neighbour, pair.y_neighbour)
        assert np.all(g[:-1] == 0.0) and np.all(g2[:-1] == 0.0)  # zero records have zero gradient
        if neighbour == "symmetric" and loss_name in ("linear", "squared"):
            # hand derivation: linear ∇ = x (negated by x → −x); squared ∇ = (⟨w,x⟩ − y)x, so flipping y
            # changes it by exactly 2·y_max·x for every w
            expected = -g[-1] if loss_name == "linear" else g[-1] + 2 * 2.0 * pair.X[-1]
            np.testing.assert_allclose(g2[-1], expected, rtol=1e-12, atol=1e-12)
    ds, nb = pair.as_datasets()
    # the auditor's neighbouring check accepts the pair
    r = audit(lambda data, rng: data["X"].sum(axis=0) + rng.normal(size=d), ds, nb, (1.0, 0.0), 4,
              np.random.default_rng(0))
    assert r.details["neighbouring"]["differing_records"] == [n - 1]


def test_canary_pair_edge_cases() -> None:
    # regression loss with y_max = 0: a label flip is void, so "symmetric" falls back to the null record
    pair = canary_pair(3, 2, DataBounds(x_max=1.0, y_max=0.0), "squared")
    np.testing.assert_array_equal(pair.X_neighbour[-1], [0.0, 0.0])
    assert "null" in pair.description
    with pytest.raises(ValueError, match="y_max"):
        canary_pair(3, 2, DataBounds(x_max=1.0, y_max=0.5), "logistic")
    with pytest.raises(ValueError, match="loss"):
        canary_pair(3, 2, DataBounds(x_max=1.0), "nonsense")
    with pytest.raises(ValueError, match="neighbour"):
        canary_pair(3, 2, DataBounds(x_max=1.0), "linear", neighbour="other")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------------------
# pair generators (issue 3); deterministic
# ---------------------------------------------------------------------------------------------------------
def test_pair_generators_are_neighbours_in_the_domain() -> None:
    from dpsco.reference.problem import DataBounds as _DB
    from dpsco.verification.auditing.inputs import check_dataset, check_neighbouring_pair
    from dpsco.verification.auditing.neighbours import add_remove_pairs, sign_flip_pairs, worst_case_pairs

    b = _DB(1.0, 1.0)
    X = np.array([[0.3, 0.4, 0.0], [0.0, 0.0, 0.5], [0.6, 0.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0])
    pairs = add_remove_pairs(X, y, b, k=2) + sign_flip_pairs(X, y, b) + worst_case_pairs(X, y, b, "linear", k=3)
    assert len(pairs) == 4 + 3 + 3
    for p in pairs:
        info = check_neighbouring_pair(check_dataset(p.dataset, "d"), check_dataset(p.neighbour, "n"), p.relation)
        assert info["relation"] == p.relation
        for side in (p.dataset, p.neighbour):
            assert np.all(np.linalg.norm(side["X"], axis=1) <= 1.0) and np.all(np.abs(side["y"]) <= 1.0)
    # linear loss at w = 0: gradient −y·x, the worst pairs reach the sensitivity 2·x_max·y_max = 2
    wc = worst_case_pairs(X, y, b, "linear", k=1)[0]
    gd = -wc.dataset["y"][-1] * wc.dataset["X"][-1] + wc.neighbour["y"][-1] * wc.neighbour["X"][-1]
    assert np.linalg.norm(gd) == pytest.approx(2.0, rel=1e-12)
    with pytest.raises(ValueError):
        sign_flip_pairs(X, y, b, index=5)
    with pytest.raises(ValueError):
        add_remove_pairs(X, y, b, labels=[2.0])
