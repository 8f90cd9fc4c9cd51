"""Tests of dpsco.verification.auditing.neighbours: replace-one neighbours at the extremes of the declared data domain.

All assertions are deterministic (no sampling); invariants are checked with hypothesis.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpsco.reference.domains import Ball
from dpsco.reference.losses import get_loss
from dpsco.reference.problem import DataBounds, ERMProblem
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.neighbours import (canary_pair, extreme_points, replace_one_extreme)
from dpsco.verification.auditing.neighbour_pairs import (sign_flip_pairs, worst_case_pairs)


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
    from dpsco.verification.auditing.neighbour_pairs import (add_remove_pairs, sign_flip_pairs, worst_case_pairs)

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


# ---------------------------------------------------------------------------------------------------------
# box domains and the issue-11 regressions; deterministic
# ---------------------------------------------------------------------------------------------------------
@st.composite
def box_dataset(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, "BoxBounds", int]:
    from dpsco.verification.auditing.neighbours import BoxBounds

    n = draw(st.integers(1, 8))
    d = draw(st.integers(1, 5))
    lo = np.array([draw(st.floats(-100, 100)) for _ in range(d)])
    hi = lo + np.array([draw(st.floats(0, 100)) for _ in range(d)])
    y_lo = draw(st.floats(-10, 10))
    y_hi = y_lo + draw(st.floats(0, 10))
    u = draw(arrays(np.float64, (n, d), elements=st.floats(0, 1)))
    X = np.clip(lo + u * (hi - lo), lo, hi)
    y = np.clip(y_lo + draw(arrays(np.float64, (n,), elements=st.floats(0, 1))) * (y_hi - y_lo), y_lo, y_hi)
    scalar = draw(st.booleans()) and d >= 1
    b = BoxBounds(float(lo.min()), float(hi.max()), y_lo, y_hi) if scalar else BoxBounds(tuple(lo), tuple(hi), y_lo, y_hi)
    return X, y, b, draw(st.integers(-n, n - 1))


@settings(max_examples=150, deadline=None)
@given(data=box_dataset(), use_direction=st.booleans())
def test_replace_one_extreme_stays_in_a_box(data: tuple, use_direction: bool) -> None:
    # regression (issue 11): the ball rule (the antipode) leaves an asymmetric box; the box rule is a corner
    from dpsco.verification.auditing.neighbours import in_domain

    X, y, b, index = data
    lo, hi = b.limits(X.shape[1])
    direction = np.where(np.arange(X.shape[1]) % 2 == 0, 1.0, -1.0) if use_direction else None
    X2, y2 = replace_one_extreme(X, y, b, index=index, direction=direction)
    i = index % X.shape[0]
    assert in_domain(X2[i:i + 1], y2[i:i + 1], b)  # exactly, no tolerance
    others = np.arange(X.shape[0]) != i
    assert np.array_equal(X2[others], X[others]) and np.array_equal(y2[others], y[others])
    if direction is None:
        # every coordinate at an endpoint, the farther one from the record (so the move is maximal)
        assert np.all((X2[i] == lo) | (X2[i] == hi))
        assert np.all(np.abs(X2[i] - X[i]) >= np.maximum(X[i] - lo, hi - X[i]) * (1 - 1e-15))
    assert y2[i] in (b.y_lo, b.y_hi)


def test_box_extremes_by_hand() -> None:
    from dpsco.verification.auditing.neighbours import (BoxBounds, n_deterministic_extreme_points)
    from dpsco.verification.auditing.neighbour_pairs import add_remove_pairs

    b = BoxBounds((-1.0, 0.0), (3.0, 2.0), 0.0, 1.0)
    # corners in lexicographic (lo, hi) order, all-lo first
    np.testing.assert_array_equal(extreme_points(b, 2, 4), [[-1, 0], [-1, 2], [3, 0], [3, 2]])
    with pytest.raises(ValueError, match="corners"):
        extreme_points(b, 2, 5)
    # a degenerate coordinate (lo = hi) halves the corners
    assert n_deterministic_extreme_points(BoxBounds((0.0, 1.0), (2.0, 1.0)), 2) == 2
    # d' = 13 > 12: the documented subset of 2 + 2·13 corners, then rng-driven ones
    big = BoxBounds(0.0, 1.0)
    assert n_deterministic_extreme_points(big, 13) == 28
    P = extreme_points(big, 13, 30, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(P[0], np.zeros(13))
    np.testing.assert_array_equal(P[1], np.ones(13))
    np.testing.assert_array_equal(P[2], np.eye(13)[0])
    assert np.all((P == 0) | (P == 1))
    X, y = np.array([[1.0, 0.5]]), np.array([0.2])
    # x = (1, 0.5): farther endpoints −1 (|1 − (−1)| = 2 = |3 − 1|, a tie goes to lo) and 2; label 0.2 → 1
    X2, y2 = replace_one_extreme(X, y, b)
    np.testing.assert_array_equal(X2[0], [-1.0, 2.0])
    assert y2[0] == 1.0
    with pytest.raises(ValueError, match="label"):
        replace_one_extreme(X, y, b, label=-0.5)
    with pytest.raises(ValueError, match="box"):
        replace_one_extreme(X + 5, y, b)
    # sign flips that leave the box are skipped: (−1, −0.5) is outside, (1, 0.5) with y −0.2 too
    assert sign_flip_pairs(X, y, b) == []
    ar = add_remove_pairs(X, y, b)  # no rng needed: the 4 corners × the 2 labels
    assert len(ar) == 8 and all(np.all((p.dataset["X"][-1] == [-1, 0]) | (p.dataset["X"][-1] == [3, 2]))
                                for p in ar)


def test_box_bounds_validation() -> None:
    from dpsco.verification.auditing.neighbours import BoxBounds

    assert BoxBounds(0, 1).to_dict() == {"x_lo": 0.0, "x_hi": 1.0, "y_lo": 0.0, "y_hi": 0.0}
    assert BoxBounds([0, -1], 2).dimension == 2 and BoxBounds(0, 1).dimension is None
    for kwargs, match in (({"x_lo": 1.0, "x_hi": 0.0}, "x_lo"), ({"x_lo": 0.0, "x_hi": math.inf}, "x_hi"),
                          ({"x_lo": (0.0, 1.0), "x_hi": (1.0,)}, "coordinates"),
                          ({"x_lo": 0.0, "x_hi": 1.0, "y_lo": 1.0, "y_hi": 0.0}, "y_lo"),
                          ({"x_lo": [[0.0]], "x_hi": 1.0}, "x_lo"), ({"x_lo": 0.0, "x_hi": 1.0, "y_lo": (0.0,)}, "y_lo")):
        with pytest.raises(ValueError, match=match):
            BoxBounds(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="x_lo"):
        BoxBounds("a", 1.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="x_lo"):
        BoxBounds(True, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="coordinates"):
        BoxBounds((0.0, 0.0), (1.0, 1.0)).limits(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        BoxBounds(0, 1).x_lo = 2.0  # type: ignore[misc]


@pytest.mark.parametrize("loss_name", ["linear", "squared", "logistic"])
def test_worst_case_pairs_on_1d_data_need_no_rng(loss_name: str) -> None:
    # regression (issue 11): d = 1 asked extreme_points for 4 points of which only 2 exist without an rng
    # ("pass rng for random ones"), which `dpsco audit --pairs worst-case` cannot pass
    from dpsco.verification.auditing.neighbours import BoxBounds

    X, y = np.array([[0.5], [-0.25]]), np.array([1.0, -1.0])
    pairs = worst_case_pairs(X, y, DataBounds(1.0, 1.0), loss_name)
    assert len(pairs) == 3
    if loss_name == "linear":
        # linear loss at w = 0: ∇ = −y·x, the 2 extreme points ±1 × labels ±1 give gradients ±1: the best
        # difference is 2 = 2·x_max·y_max (hand)
        assert float(pairs[0].label.split("difference ")[1].split()[0]) == pytest.approx(2.0, rel=1e-12)
    box_pairs = worst_case_pairs(X, y, BoxBounds(-1.0, 3.0, -1.0, 1.0), loss_name)
    assert len(box_pairs) == 3
    for p in box_pairs:
        assert set(p.dataset["X"][-1]) <= {-1.0, 3.0} and set(p.neighbour["X"][-1]) <= {-1.0, 3.0}


def test_add_remove_pair_with_an_empty_side() -> None:
    """One record against none is an add/remove pair (the smaller side has zero records); the row comparison
    reshaped (0, -1), which numpy refuses, and raised instead (found by hypothesis in tests/test_adapters.py)."""
    import numpy as np

    from dpsco.verification.auditing.inputs import check_neighbouring_pair

    one = {"X": np.ones((1, 3)), "y": np.ones(1)}
    none = {"X": np.ones((0, 3)), "y": np.ones(0)}
    info = check_neighbouring_pair(one, none, "add/remove")
    assert info["relation"] == "add/remove" and info["larger"] == "dataset"
    assert check_neighbouring_pair(none, none, "replace-one")["differing_records"] == []
