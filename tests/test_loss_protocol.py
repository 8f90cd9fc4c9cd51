"""The one ``Loss`` protocol (``dpsco.reference.loss``, issue 26): every concrete loss class of the four families —
the GLM losses of Bassily et al./Lowy & Razaviyayn, Asi, Liu & Tian's heavy-tailed losses, Menart et al.'s
non-convex losses (with the oracles' instances) and Asi, Chadha, Cheng & Duchi's convex losses — is a ``Loss``:
``values(w, data) -> (n,)`` equals the family's native per-sample value method, ``grads(w, data) -> (n, d)`` its
native gradient method, the mean of ``values`` is the family's objective where it has one, and ``grads`` is the
gradient of ``values`` (central finite differences, smooth losses).

The finite-difference tolerance (hand derivation, no fitted slack).  For a record whose f is differentiable with
β-Lipschitz gradient on the segment [w − h e_k, w + h e_k],
    |(f(w + h e_k) − f(w − h e_k))/(2h) − ∂_k f(w)| = |(1/2h) ∫_{−h}^{h} (∂_k f(w + t e_k) − ∂_k f(w)) dt| ≤ β h/2.
β is derived by hand per loss below (a bound of the Hessian's norm over the segment: data entries in [−1, 1],
w entries in [−1.5, 1.5], d ≤ 3, h = 1e-6).  Rounding: each value is computed to within δ = 1e-13·(1 + |f|)
(each loss is a few well-conditioned operations on quantities of size O(1 + |f|): at most tens of roundings of
relative size 1.1e-16, about 1e-14·(1 + |f|), kept with a 10× margin), so the difference quotient (with the step
actually taken, fl(w + h e_k) − fl(w − h e_k) ≈ 2h) errs by at most 2δ/(2h) more.  Deterministic (hypothesis properties): no stochastic assertion, hence no false-failure probability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dpsco.oracles.muabg23 import kl_instances as kli
from dpsco.oracles.muabg23 import kl_regression as klr
from dpsco.reference import losses as glm
from dpsco.reference.accd22 import extension as acc
from dpsco.reference.alt24 import losses as alt
from dpsco.reference.alt24.model import grads_at
from dpsco.reference.loss import Loss, is_loss
from dpsco.reference.muabg23 import model as mu

H = 1e-6
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _norms(A: np.ndarray) -> np.ndarray:
    return np.linalg.norm(A, axis=1)


def _labels(col: np.ndarray) -> np.ndarray:
    return np.where(col >= 0, 1.0, -1.0)


@dataclass
class Case:
    """One concrete loss: ``make()`` builds it; ``build(raw, d)`` turns raw entries (n, width(d)) in [−1, 1] into
    the family's ``data``; ``native(loss, w, data)`` = (values, grads) by the family's own methods; ``objective``
    = (F, ∇F) by the family's own mean methods, or None; ``beta(w, data)`` = (n,) β bounds on the FD segment, or
    None for a non-smooth loss (a subgradient: no finite-difference check)."""

    make: Callable[[], Any]
    width: Callable[[int], int]
    build: Callable[[np.ndarray, int], Any]
    native: Callable[[Any, np.ndarray, Any], tuple[np.ndarray, np.ndarray]]
    beta: Callable[[np.ndarray, Any], np.ndarray] | None
    objective: Callable[[Any, np.ndarray, Any], tuple[float, np.ndarray]] | None = None


# -- the GLM family (dpsco.reference.losses): data = (X, y) ----------------------------------------------------------

def _glm(make, binary: bool, phi2: float | None) -> Case:
    """ℓ = φ(⟨w, x⟩, y): Hessian φ''·xxᵀ, so β_i = sup φ''·‖x_i‖² (logistic φ'' ≤ 1/4; squared and Huber φ' is
    1-Lipschitz; linear 0)."""
    def build(raw, d):
        return raw[:, :d], (_labels(raw[:, d]) if binary else raw[:, d])

    return Case(make, lambda d: d + 1, build,
                lambda L, w, D: (L.value(w, *D), L.grad(w, *D)),
                None if phi2 is None else (lambda w, D: phi2 * _norms(D[0]) ** 2),
                lambda L, w, D: (L.mean_value(w, *D), L.mean_grad(w, *D)))


GLM = {
    "glm.LogisticLoss": _glm(glm.LogisticLoss, True, 0.25),
    "glm.SquaredLoss": _glm(glm.SquaredLoss, False, 1.0),
    "glm.HuberLoss": _glm(lambda: glm.HuberLoss(0.5), False, 1.0),
    "glm.LinearLoss": _glm(glm.LinearLoss, False, 0.0),
    "glm.HingeLoss": _glm(glm.HingeLoss, True, None),
    "glm.AbsoluteLoss": _glm(glm.AbsoluteLoss, False, None),
}


# -- heavy-tailed (dpsco.reference.alt24.losses): data = S ---------------------------------------------------------

def _alt(make, width, beta, build=lambda raw, d: raw) -> Case:
    # the native methods are the protocol's own (no adapter); the second native path is grads_at, the batched
    # gradients the algorithms use (one point)
    return Case(make, width, build, lambda L, w, S: (L.values(w, S), grads_at(L, w[None, :], S)[0]), beta)


ALT = {
    # ⟨s, x⟩: β = 0
    "alt24.LinearLoss": _alt(alt.LinearLoss, lambda d: d, lambda w, S: np.zeros(len(S))),
    # ½‖x − s‖²: Hessian I, β = 1
    "alt24.MeanEstimationLoss": _alt(alt.MeanEstimationLoss, lambda d: d, lambda w, S: np.ones(len(S))),
    # ⟨ξ, x⟩ + (β₀/2)‖x − z‖²: Hessian β₀I
    "alt24.TiltedQuadraticLoss": _alt(lambda: alt.TiltedQuadraticLoss(0.7), lambda d: 2 * d,
                                      lambda w, S: np.full(len(S), 0.7)),
    # |⟨a, x⟩ − b|: not smooth
    "alt24.LADLoss": _alt(alt.LADLoss, lambda d: d + 1, None),
    # ½(⟨a, x⟩ − b)²: Hessian aaᵀ, β = ‖a‖²
    "alt24.LeastSquaresLoss": _alt(alt.LeastSquaresLoss, lambda d: d + 1, lambda w, S: _norms(S[:, :-1]) ** 2),
    # log(1 + e^{⟨s, x⟩}): Hessian σ'(1 − σ')ssᵀ ≤ ssᵀ/4; declared ‖s‖ ≤ M = 2 ≥ √3
    "alt24.LogisticGLMLoss": _alt(lambda: alt.LogisticGLMLoss(2.0), lambda d: d,
                                  lambda w, S: 0.25 * _norms(S) ** 2),
}


# -- non-convex (dpsco.reference.muabg23.model and the oracles' instances): data = X ---------------------------------

def _mu(make, width, beta, build=lambda raw, d: raw) -> Case:
    return Case(make, width, build, lambda L, w, X: (L.values(w, X), L.grads(w, X)), beta,
                lambda L, w, X: (L.value(w, X), L.gradient(w, X)))


def _ring_beta(w, X):
    """φ = ½(‖u‖² − 1)², u = w − x: Hessian 2(‖u‖² − 1)I + 4uuᵀ, norm ≤ 2|ρ² − 1| + 4ρ² ≤ 6ρ² + 2 with
    ρ = ‖w − x‖ + h on the segment."""
    rho = _norms(w[None, :] - X) + H
    return 6.0 * rho ** 2 + 2.0


def _nlls_beta(w, X):
    """½(s(aᵀw) − b)², s(z) = z + ½ sin z: Hessian (s'² + (s − b)s'')aaᵀ with |s'| ≤ 3/2, |s''| ≤ 1/2 and
    |s(z) − b| ≤ |z| + ½ + |b|, |z| ≤ ‖a‖(‖w‖ + h)."""
    a, b = X[:, :-1], X[:, -1]
    z = _norms(a) * (np.linalg.norm(w) + H)
    return _norms(a) ** 2 * (2.25 + 0.5 * (z + 0.5 + np.abs(b)))


MU = {
    # ⟨w, x⟩: β = 0
    "muabg23.LinearLoss": _mu(lambda: mu.LinearLoss(2.0), lambda d: d, lambda w, X: np.zeros(len(X))),
    # Σ u_j² + 3 sin² u_j: φ₁'' = 2 + 6 cos 2u ∈ [−4, 8], β = 8
    "oracles.KarimiShift": _mu(lambda: kli.KarimiShift(2.0), lambda d: d, lambda w, X: np.full(len(X), 8.0)),
    # a‖u‖^p with a = 1, p = 2: Hessian 2I
    "oracles.PowerShift": _mu(lambda: kli.PowerShift(1.0, 2.0, 2.0), lambda d: d, lambda w, X: np.full(len(X), 2.0)),
    # δ²(√(1 + ‖u‖²/δ²) − 1): Hessian ≤ I
    "oracles.PseudoHuberShift": _mu(lambda: kli.PseudoHuberShift(1.0, 2.0), lambda d: d,
                                    lambda w, X: np.ones(len(X))),
    "oracles.RingShift": _mu(lambda: kli.RingShift(2.0), lambda d: d, _ring_beta),
    # |‖u‖² − 1|: not smooth
    "oracles.SharpRingShift": _mu(lambda: kli.SharpRingShift(2.0), lambda d: d, None),
    # Σ u_j²/(1 + u_j²): |ψ''| = |2 − 6t²|/(1 + t²)³ ≤ 2
    "oracles.BoundedSquareShift": _mu(lambda: kli.BoundedSquareShift(2.0, 3), lambda d: d,
                                      lambda w, X: np.full(len(X), 2.0)),
    "oracles.NonlinearLeastSquares": _mu(lambda: klr.NonlinearLeastSquares(2.0, 1.0), lambda d: d + 1, _nlls_beta),
    # log(1 + e^{−y⟨w, x⟩}): Hessian ≤ xxᵀ/4
    "oracles.LogisticLoss": _mu(lambda: klr.LogisticLoss(2.0), lambda d: d + 1, lambda w, X: 0.25 * _norms(X[:, :-1]) ** 2,
                                build=lambda raw, d: np.column_stack([raw[:, :d], _labels(raw[:, d])])),
}


# -- convex with Lipschitzian extensions (dpsco.reference.accd22.extension): data = Z --------------------------------

def _acc(make, width, beta, build=lambda raw, d: raw) -> Case:
    # native: value/grad at R = 1 point X = w[None, :]
    return Case(make, width, build, lambda L, w, Z: (L.value(w[None, :], Z)[0], L.grad(w[None, :], Z)[0]), beta)


def _glm_records(raw, d):
    return np.column_stack([raw[:, :d], _labels(raw[:, d])])


def _power_beta(w, Z):
    """|z − y|³/3: h'' = 2|z − y| ≤ 2(‖a‖(‖w‖ + h) + |y|), times ‖a‖²."""
    a, y = Z[:, :-1], Z[:, -1]
    return 2.0 * (_norms(a) * (np.linalg.norm(w) + H) + np.abs(y)) * _norms(a) ** 2


ACC = {
    # h = ½(z − y)², h'' = 1: β = ‖a‖²
    "accd22.SquaredLoss": _acc(acc.SquaredLoss, lambda d: d + 1, lambda w, Z: _norms(Z[:, :-1]) ** 2),
    # h = ½ max(0, 1 − yz)², h' 1-Lipschitz (y² = 1): β = ‖a‖²
    "accd22.SquaredHingeLoss": _acc(acc.SquaredHingeLoss, lambda d: d + 1, lambda w, Z: _norms(Z[:, :-1]) ** 2,
                                    build=_glm_records),
    # logistic h'' ≤ 1/4
    "accd22.LogisticLoss": _acc(acc.LogisticLoss, lambda d: d + 1, lambda w, Z: 0.25 * _norms(Z[:, :-1]) ** 2,
                                build=_glm_records),
    "accd22.PowerLoss": _acc(lambda: acc.PowerLoss(3.0, 2.0), lambda d: d + 1, _power_beta),
    # (h/2)‖x − s‖², h ≥ 0: Hessian hI
    "accd22.SquaredDistanceLoss": _acc(acc.SquaredDistanceLoss, lambda d: d + 1, lambda w, Z: np.abs(Z[:, -1]),
                                       build=lambda raw, d: np.column_stack([raw[:, :d], np.abs(raw[:, d])])),
    # ½ Σ u_k(x_k − c_k)², u ≥ 0: Hessian diag(u), β = max u
    "accd22.DiagonalQuadraticLoss": _acc(acc.DiagonalQuadraticLoss, lambda d: 2 * d,
                                         lambda w, Z: np.max(Z[:, Z.shape[1] // 2:], axis=1),
                                         build=lambda raw, d: np.column_stack([raw[:, :d], np.abs(raw[:, d:])])),
}

CASES: dict[str, Case] = {**GLM, **ALT, **MU, **ACC}


@st.composite
def _inputs(draw, case: Case):
    d = draw(st.integers(1, 3))
    n = draw(st.integers(1, 4))
    unit = st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=False)
    raw = draw(arrays(np.float64, (n, case.width(d)), elements=unit))
    data = case.build(raw, d)
    w = draw(arrays(np.float64, d, elements=st.floats(-1.5, 1.5, allow_nan=False, allow_subnormal=False)))
    return w, data


def _n(data: Any) -> int:
    return len(data[0]) if isinstance(data, tuple) else data.shape[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_loss_implements_the_protocol(name: str) -> None:
    case = CASES[name]
    loss = case.make()
    assert isinstance(loss, Loss) and is_loss(loss) and is_loss(type(loss))

    @SETTINGS
    @given(_inputs(case))
    def check(inputs) -> None:
        w, data = inputs
        n, d = _n(data), w.size
        v, g = loss.values(w, data), loss.grads(w, data)
        assert v.shape == (n,) and g.shape == (n, d)
        nv, ng = case.native(loss, w, data)
        np.testing.assert_array_equal(v, nv)             # the family's native value method, bit for bit
        np.testing.assert_array_equal(g, ng)             # … and its native gradient method
        if case.objective is not None:                   # averaging equals the family's objective F, ∇F
            F, dF = case.objective(loss, w, data)
            assert math.isclose(float(np.mean(v)), F, rel_tol=1e-15, abs_tol=1e-15)
            # the GLM's ∇F is Xᵀφ'/n, summed in another order: n roundings of terms ≤ max|g| (16 ulps of margin)
            np.testing.assert_allclose(np.mean(g, axis=0), dF, rtol=0,
                                       atol=16 * np.finfo(float).eps * n * (np.max(np.abs(g)) + 1e-300))
        if case.beta is None:
            return
        beta = case.beta(w, data)
        for k in range(d):
            wp, wm = w.copy(), w.copy()
            wp[k] += H
            wm[k] -= H
            fp, fm = loss.values(wp, data), loss.values(wm, data)
            step = wp[k] - wm[k]                         # the step actually taken, in floating point
            fd = (fp - fm) / step
            rounding = 2e-13 * (1.0 + np.maximum(np.abs(fp), np.abs(fm))) / step
            np.testing.assert_array_less(np.abs(fd - g[:, k]), beta * H / 2.0 + rounding + 1e-300)

    check()


def test_adapters_refuse_the_wrong_data_shape() -> None:
    X, y = np.eye(2), np.array([1.0, -1.0])
    with pytest.raises(TypeError, match="data"):
        glm.LogisticLoss().values(np.zeros(2), np.column_stack([X, y]))   # an array is not the pair (X, y)
    with pytest.raises(ValueError, match="w"):
        acc.SquaredLoss().grads(np.zeros((1, 2)), np.column_stack([X, y]))  # one (d,) point, not (R, d)
    np.testing.assert_array_equal(glm.LogisticLoss().values(np.zeros(2), [X, y]), np.full(2, math.log(2.0)))


def test_a_user_loss_is_a_loss_by_its_two_methods() -> None:
    class Quadratic:
        def values(self, w, data):
            return 0.5 * np.sum((w[None, :] - data) ** 2, axis=1)

        def grads(self, w, data):
            return w[None, :] - data

    assert isinstance(Quadratic(), Loss) and not isinstance(object(), Loss) and not is_loss(object())
