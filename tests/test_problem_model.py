"""Problem model: projections, losses (gradients, constants, prox, Moreau envelope), claims, validation.

All tests here are deterministic (hypothesis-generated inputs, no sampling-based assertions).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpsco.reference import (
    AbsoluteLoss, Ball, DataBounds, ERMProblem, HingeLoss, HuberLoss, LinearLoss, LogisticLoss, PrivacyClaim,
    SquaredLoss, get_loss,
)
from dpsco.reference.validation import check_delta, check_epsilon, check_rng

LOSSES = [LogisticLoss(), SquaredLoss(), HuberLoss(0.5), HingeLoss(), AbsoluteLoss(), LinearLoss()]
floats = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


def vec(d: int) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, d, elements=floats)


# -- projection --------------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(w=vec(4), v=vec(4), radius=st.floats(0.01, 20))
def test_ball_projection_properties(w, v, radius):
    ball = Ball(radius)
    p = ball.project(w)
    assert np.linalg.norm(p) <= radius * (1 + 1e-12)  # feasibility
    if np.linalg.norm(w) <= radius:
        assert np.array_equal(p, w)  # identity on W
    assert np.allclose(ball.project(p), p, rtol=0, atol=1e-12 * max(1.0, radius))  # idempotent
    # non-expansive
    assert np.linalg.norm(p - ball.project(v)) <= np.linalg.norm(w - v) * (1 + 1e-12) + 1e-12
    # variational inequality: <w − p, u − p> ≤ 0 for every u in W (test u = projected v)
    u = ball.project(v)
    assert np.dot(w - p, u - p) <= 1e-9 * (1 + np.linalg.norm(w) * np.linalg.norm(v))


def test_ball_rejects_bad_radius():
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="radius"):
            Ball(bad)
    with pytest.raises(TypeError, match="radius"):
        Ball("1")  # type: ignore[arg-type]


# -- losses ------------------------------------------------------------------------------------------------


def _labels(loss, raw):
    return np.where(raw >= 0, 1.0, -1.0) if loss.binary_labels else raw


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: l.name)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_gradient_matches_finite_differences(loss, data):
    d = 3
    w = data.draw(vec(d))
    x = data.draw(vec(d))
    yv = _labels(loss, np.array([data.draw(st.floats(-3, 3))]))
    X = x[None, :]
    g = loss.grad(w, X, yv)[0]
    s = float(x @ w)
    # kinks of φ(·, y) in s: hinge at ys = 1 (s = y for y = ±1), absolute at s = y, Huber(h=0.5) at s = y ± 0.5
    kinks = {"hinge": [yv[0]], "absolute": [yv[0]], "huber": [yv[0] - 0.5, yv[0] + 0.5]}.get(loss.name, [])
    assume(all(abs(s - k) > 1e-3 for k in kinks))  # finite differences are only meaningful away from kinks
    h = 1e-6
    fd = np.array([(loss.value(w + h * e, X, yv)[0] - loss.value(w - h * e, X, yv)[0]) / (2 * h) for e in np.eye(d)])
    assert np.allclose(g, fd, rtol=1e-5, atol=1e-5 * (1 + np.abs(fd).max()))


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: l.name)
@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_lipschitz_constant_bounds_gradients_on_declared_domain(loss, data):
    """‖∇ℓ(w, z)‖ ≤ L for all ‖w‖ ≤ M, ‖x‖ ≤ X_max, |y| ≤ Y_max (what the privacy proofs use)."""
    d = 3
    x_max, y_max, M = data.draw(st.floats(0.1, 5)), data.draw(st.floats(0.0, 5)), data.draw(st.floats(0.1, 5))
    ball = Ball(M)
    w = ball.project(data.draw(vec(d)))
    x = data.draw(vec(d))
    nx = np.linalg.norm(x)
    x = x * min(1.0, x_max / nx) if nx > 0 else x
    yv = np.array([data.draw(st.floats(-y_max, y_max))]) if y_max > 0 else np.array([0.0])
    if loss.binary_labels:
        yv = np.array([1.0 if yv[0] >= 0 else -1.0])
        y_max = 1.0
    L = loss.lipschitz(x_max, y_max, M)
    assert np.linalg.norm(loss.grad(w, x[None, :], yv)[0]) <= L * (1 + 1e-12)


def test_declared_constants_hand_derived():
    # docs/derivations.md#lipschitz-and-smoothness-constants-of-the-losses:
    # logistic L = X, β = X²/4; squared L = X(XM + Y), β = X²; hinge/absolute L = X
    assert LogisticLoss().lipschitz(2.0, 1.0, 3.0) == 2.0 and LogisticLoss().smoothness(2.0) == 1.0
    assert SquaredLoss().lipschitz(2.0, 1.5, 3.0) == 2.0 * (2.0 * 3.0 + 1.5) and SquaredLoss().smoothness(2.0) == 4.0
    assert HingeLoss().lipschitz(2.0, 1.0, 3.0) == 2.0 and HingeLoss().smoothness(2.0) is None
    assert AbsoluteLoss().lipschitz(2.0, 1.0, 3.0) == 2.0 and AbsoluteLoss().smoothness(2.0) is None
    assert HuberLoss(0.5).lipschitz(2.0, 1.0, 3.0) == 1.0 and HuberLoss(0.5).smoothness(2.0) == 4.0
    assert LogisticLoss.hessian_rank_le_1 and SquaredLoss.hessian_rank_le_1
    assert not HuberLoss.hessian_rank_le_1 and not HingeLoss.hessian_rank_le_1


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: l.name)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_prox_optimality_and_envelope_properties(loss, data):
    """Lemma 4.3 (Bassily et al. 2019) for the R^d envelope, and the prox's optimality condition.

    * prox optimality: β(w − v) ∈ ∂ℓ(v, z) — checked through the 1-D condition on s = ⟨v, x⟩;
    * f_β ≤ f ≤ f_β + L²/(2β) (property 2);
    * ‖∇f_β‖ ≤ L (sharp, docs/derivations.md#moreau-envelope-gradients-are-bounded-by-l) ≤ 2L (property 1 as
      printed);
    * ∇f_β is β-Lipschitz (property 1) and matches finite differences of f_β (property 3).
    """
    d = 3
    beta = data.draw(st.floats(0.1, 10))
    w, w2, x = data.draw(vec(d)), data.draw(vec(d)), data.draw(vec(d))
    assume(np.linalg.norm(x) > 1e-3)
    yv = _labels(loss, np.array([data.draw(st.floats(-3, 3))]))
    X = x[None, :]
    x_max = float(np.linalg.norm(x))
    # the R^d envelope needs a globally Lipschitz loss: skip the squared loss (its L is only on a ball)
    if loss.name == "squared":
        M = 10 * math.sqrt(3)
        L = loss.lipschitz(x_max, abs(float(yv[0])), M)
    else:
        L = loss.lipschitz(x_max, max(abs(float(yv[0])), 1e-12), math.inf)
    v = loss.prox(w, X, yv, beta)[0]
    # optimality: v minimises ℓ(v) + β/2‖v − w‖²; compare with perturbed points
    obj = lambda u: loss.value(u, X, yv)[0] + beta / 2 * np.sum((u - w) ** 2)  # noqa: E731
    rng = np.random.default_rng(0)
    for _ in range(20):
        u = v + rng.normal(size=d) * 10.0 ** rng.uniform(-6, 0)
        assert obj(v) <= obj(u) + 1e-9 * (1 + abs(obj(u)))
    fb = loss.envelope_value(w, X, yv, beta)[0]
    f = loss.value(w, X, yv)[0]
    assert fb <= f + 1e-9 * (1 + abs(f))
    if loss.name != "squared":
        assert f <= fb + L**2 / (2 * beta) + 1e-9 * (1 + abs(f))
        g = loss.envelope_grad(w, X, yv, beta)[0]
        assert np.linalg.norm(g) <= L * (1 + 1e-9) + 1e-12
    g1 = loss.envelope_grad(w, X, yv, beta)[0]
    g2 = loss.envelope_grad(w2, X, yv, beta)[0]
    assert np.linalg.norm(g1 - g2) <= beta * np.linalg.norm(w - w2) * (1 + 1e-9) + 1e-9
    h = 1e-6
    fd = np.array([(loss.envelope_value(w + h * e, X, yv, beta)[0] - loss.envelope_value(w - h * e, X, yv, beta)[0]) / (2 * h)
                   for e in np.eye(d)])
    assert np.allclose(g1, fd, rtol=1e-4, atol=1e-4 * (1 + np.abs(fd).max()))


def test_hinge_envelope_closed_form_hand_derived():
    # docs/derivations.md#lipschitz-and-smoothness-constants-of-the-losses: hinge envelope = 0 (a ≥ 1);
    # β(1−a)²/(2r) (1 − r/β < a < 1); 1 − a − r/(2β) (a ≤ 1 − r/β)
    loss, beta = HingeLoss(), 2.0
    x, y = np.array([[1.0, 0.0]]), np.array([1.0])  # r = 1
    for a, expected in [(1.5, 0.0), (0.75, beta * 0.25**2 / 2), (-1.0, 1 - (-1.0) - 1 / (2 * beta))]:
        w = np.array([a, 0.3])
        assert math.isclose(loss.envelope_value(w, x, y, beta)[0], expected, rel_tol=1e-12, abs_tol=1e-15)


def test_get_loss():
    assert get_loss("logistic").name == "logistic"
    assert get_loss("huber", threshold=2.0).threshold == 2.0
    with pytest.raises(ValueError, match="loss must be one of"):
        get_loss("nope")
    with pytest.raises(ValueError, match="threshold"):
        HuberLoss(-1.0)


# -- problem, declared bounds, validation ------------------------------------------------------------------


def _problem(loss=None, x_max=1.0, y_max=1.0, M=1.0):
    return ERMProblem(loss or LogisticLoss(), Ball(M), DataBounds(x_max, y_max))


def test_declared_bounds_are_checked_not_estimated():
    p = _problem()
    X = np.array([[0.6, 0.8], [2.0, 0.0]])
    y = np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="X violates the declared bound"):
        p.check(X, y)
    Xc, yc, n_clipped = p.check(X, y, clip=True)
    assert n_clipped == 1 and np.allclose(np.linalg.norm(Xc, axis=1), [1.0, 1.0])
    assert np.array_equal(Xc[0], X[0])  # rows within the bound are untouched
    ps = _problem(SquaredLoss(), y_max=0.5)
    with pytest.raises(ValueError, match="y violates the declared bound"):
        ps.check(np.zeros((2, 2)), np.array([0.1, 0.9]))


@pytest.mark.parametrize(
    "X, y, match",
    [
        (np.array([[np.nan, 0.0]]), np.array([1.0]), "X contains NaN"),
        (np.array([[np.inf, 0.0]]), np.array([1.0]), "X contains NaN or infinite"),
        (np.zeros((0, 2)), np.zeros(0), "X is empty"),
        (np.zeros(3), np.zeros(3), "X must be a 2-D array"),
        (np.zeros((3, 2)), np.ones(2), "same number of rows"),
        (np.zeros((2, 2)), np.array([1.0, np.nan]), "y contains NaN"),
        (np.zeros((2, 2)), np.array([1.0, 0.5]), "y must take values in"),
    ],
)
def test_bad_data_raise_naming_the_parameter(X, y, match):
    with pytest.raises(ValueError, match=match):
        _problem().check(X, y)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_epsilon(bad):
    with pytest.raises(ValueError, match="epsilon"):
        check_epsilon(bad)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 2.0, float("nan")])
def test_bad_delta(bad):
    with pytest.raises(ValueError, match="delta"):
        check_delta(bad)


def test_rng_must_be_a_generator():
    with pytest.raises(TypeError, match="rng"):
        check_rng(42)
    with pytest.raises(TypeError, match="epsilon"):
        check_epsilon("1")


def test_claim_roundtrip_and_validation():
    c = PrivacyClaim("approx-DP", 1.0, 1e-6, "replace-one", "paper, Thm 1", {"L": 1.0}, ("cond",))
    assert PrivacyClaim.from_dict(c.to_dict()) == c
    with pytest.raises(ValueError, match="notion"):
        PrivacyClaim("dp", 1.0, 0.0, "replace-one", "x")
    with pytest.raises(ValueError, match="neighbouring"):
        PrivacyClaim("approx-DP", 1.0, 0.0, "swap", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta must be 0"):
        PrivacyClaim("pure-DP", 1.0, 1e-5, "replace-one", "x")
    with pytest.raises(ValueError, match="epsilon"):
        PrivacyClaim("approx-DP", 0.0, 1e-5, "replace-one", "x")


def test_release_serialises_only_what_the_claim_covers():
    """Release.to_dict/to_json never contain nonprivate_internals (e.g. the unperturbed minimiser), and leave
    the data-dependent diagnostics out unless asked, labelled as not covered by the claim."""
    import json

    from dpsco.reference import Release

    claim = PrivacyClaim("approx-DP", 1.0, 1e-6, "replace-one", "paper, Thm 1")
    secret = np.array([0.123456789, -0.987654321])
    r = Release(output=np.zeros(2), claim=claim, gradient_evaluations=3, parameters={"T": 1}, algorithm="x",
                diagnostics={"certificate": {"gap": 1e-12}}, nonprivate_internals={"w_T": secret})
    text = r.to_json()
    assert "0.123456789" not in text and "w_T" not in text and "certificate" not in text
    assert "w_T" not in repr(r)
    # diagnostics are computed from the data: a release never publishes them, only a labelled verification record
    with pytest.raises(ValueError, match="include_diagnostics"):
        r.to_dict(include_diagnostics=True)
    labelled = r.to_verification_record(include_diagnostics=True)
    assert labelled["not_a_private_release"] and "diagnostics_not_covered_by_the_claim" in labelled
    assert "w_T" not in json.dumps(labelled)
