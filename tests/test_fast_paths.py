"""The fast clipped-mean path of Algorithm 1's gradient oracles and the Newton logistic prox against their
references.

``dpsco.reference.bftt19.gradients``: every oracle's ``clipped_mean`` must give what ``nsgd_core``'s generic path
(per-sample gradients, ``clip_per_sample``, mean) gives: same random streams (so same indices and noise), outputs,
trajectories and white-box noisy gradients within 1e-12, and exactly the same clipping counts, with and without
clipping, for one and several replicates and across several replicate blocks.  ``LogisticLoss.prox_scalar``
(Newton) against the previous safeguarded Newton–bisection (kept verbatim below), the optimality condition
s − a + tφ'(s) = 0, and 50-digit roots from mpmath.  All checks are deterministic (fixed seeds, no statistical
assertion): no false-failure probability to state.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpsco.reference.bftt19 as o
from dpsco.reference import (AbsoluteLoss, Ball, DataBounds, ERMProblem, HingeLoss, HuberLoss, LinearLoss,
                             LogisticLoss, SquaredLoss)
from dpsco.reference.bftt19 import gradients as gr

TOL = 1e-12  # generic against fast: max absolute difference of outputs, trajectories, noisy gradients


def _data(n: int, d: int, seed: int, *, binary: bool, zero_rows: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= (rng.random(n) ** 0.3 / np.linalg.norm(X, axis=1))[:, None]  # ‖x‖ ≤ 1, many near 1
    X[:zero_rows] = 0.0
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0) if binary else rng.uniform(-1, 1, n)
    return X, y


LOSSES = [LogisticLoss(), HingeLoss(), SquaredLoss(), LinearLoss(), HuberLoss(0.5), AbsoluteLoss()]


def _oracle(kind: str, loss, X, y):
    if kind == "glm":
        return gr.GLMGradientOracle(loss, X, y)
    if kind == "moreau":
        return gr.EnvelopeGradientOracle(loss, X, y, beta=3.0)
    return gr.ApproximateEnvelopeGradientOracle(loss, X, y, beta=3.0, K=6, domain=Ball(1.0), local_radius=1.0 / 3.0)


def _both(oracle, n, d, clip_norm, R, seed, **kw):
    """nsgd_core on the oracle (fast path) and on a plain callable (generic path), same seed."""
    args = dict(T=7, m=5, eta=0.3, sigma2=0.01, clip_norm=clip_norm, replicates=R, return_noisy_gradients=True,
                **kw)
    fast = o.nsgd_core(oracle, n, d, Ball(1.0), rng=np.random.default_rng(seed), **args)
    generic = o.nsgd_core(lambda W, idx: oracle(W, idx), n, d, Ball(1.0), rng=np.random.default_rng(seed), **args)
    return fast, generic


def _assert_same(fast, generic):
    (wf, inf), (wg, ing) = fast, generic
    assert np.max(np.abs(wf - wg)) <= TOL
    assert inf["clip_events"] == ing["clip_events"]  # exactly
    assert np.max(np.abs(inf["trajectory"] - ing["trajectory"])) <= TOL
    assert np.max(np.abs(inf["noisy_gradients"] - ing["noisy_gradients"])) <= TOL


@pytest.mark.parametrize("kind", ["glm", "moreau", "proxgd"])
@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: l.name)
@pytest.mark.parametrize("R", [1, 9])
@pytest.mark.parametrize("clip_norm", [0.35, 10.0], ids=["clipping", "no-clipping"])
def test_fast_clipped_mean_equals_generic_path(kind, loss, R, clip_norm, monkeypatch):
    # small blocks, so that R = 9 runs over several blocks, some with clipping and some without
    monkeypatch.setattr(gr, "BLOCK_ELEMENTS", 40)
    n, d = 60, 4
    X, y = _data(n, d, 3, binary=loss.binary_labels, zero_rows=2)
    oracle = _oracle(kind, loss, X, y)
    for seed in (0, 1, 2):
        fast, generic = _both(oracle, n, d, clip_norm, R, seed)
        _assert_same(fast, generic)
        if clip_norm == 10.0:
            assert fast[1]["clip_events"] == 0
    if clip_norm == 0.35 and kind == "glm" and loss.name in ("linear", "squared", "logistic"):
        assert generic[1]["clip_events"] > 0  # the clipping branch was exercised


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(["glm", "moreau", "proxgd"]), loss=st.sampled_from(LOSSES), n=st.integers(1, 12),
       d=st.integers(1, 4), R=st.integers(1, 5), m=st.integers(1, 6), clip_norm=st.floats(0.01, 5.0),
       block=st.integers(1, 200), seed=st.integers(0, 2**32 - 1))
def test_clipped_mean_property(kind, loss, n, d, R, m, clip_norm, block, seed):
    """oracle.clipped_mean(W, idx, C) = (clip_per_sample(oracle(W, idx), C) mean, count), any shapes and blocks."""
    rng = np.random.default_rng(seed)
    X, y = _data(n, d, seed % 1000, binary=loss.binary_labels, zero_rows=int(rng.integers(0, 2)))
    oracle = _oracle(kind, loss, X, y)
    W = rng.normal(size=(R, d)) * rng.uniform(0.0, 1.0)
    idx = rng.integers(0, n, size=(R, m))
    old_block = gr.BLOCK_ELEMENTS
    gr.BLOCK_ELEMENTS = block
    try:
        g, k = oracle.clipped_mean(W, idx, clip_norm)
    finally:
        gr.BLOCK_ELEMENTS = old_block
    grads, k_ref = o.clip_per_sample(oracle(W, idx), clip_norm)
    assert k == k_ref and np.max(np.abs(g - grads.mean(axis=1))) <= TOL


def test_clip_counts_at_the_threshold():
    """Records whose gradient norm sits at C, within rounding of C·(1 + 1e-9) (the clipping test's slack) and
    just above it: the fast path hands those blocks to the generic path, so the counts are the generic ones."""
    C = 0.7
    norms = np.array([C, C * (1 + 1e-9) * (1 - 1e-15), C * (1 + 1e-9), C * (1 + 1e-9) * (1 + 1e-15), C * (1 + 2e-9),
                      0.5 * C, 2 * C])
    X = np.stack([norms, np.zeros_like(norms)], axis=1) @ np.array([[0.6, 0.8], [-0.8, 0.6]])  # rotated rows
    oracle = gr.GLMGradientOracle(LinearLoss(), X, np.zeros(len(norms)))  # ∇ℓ = x: ‖∇‖ = ‖x‖
    W = np.zeros((len(norms), 2))
    idx = np.arange(len(norms))[:, None] * np.ones((1, 3), dtype=int)  # replicate r sees record r three times
    g, k = oracle.clipped_mean(W, idx, C)
    grads, k_ref = o.clip_per_sample(oracle(W, idx), C)
    assert k == k_ref and k >= 6  # the last two rows at least (3 samples each) are clipped
    assert np.max(np.abs(g - grads.mean(axis=1))) <= TOL


@pytest.mark.parametrize("average", ["paper", "standard"])
def test_glm_fast_path_is_bit_identical_to_generic_on_this_numpy(average):
    """A_NSGD: the fast path sums the same products in the same order (documented in gradients.py); the
    requirement is 1e-12, and the planted-bug corpus relies on bit equality for d = 1."""
    for d in (1, 5):
        X, y = _data(50, d, 4, binary=True)
        oracle = gr.GLMGradientOracle(LogisticLoss(), X, y)
        fast, generic = _both(oracle, 50, d, 10.0, 6, 11, average=average)
        assert np.array_equal(fast[0], generic[0]) and np.array_equal(fast[1]["trajectory"], generic[1]["trajectory"])


def test_non_localised_proxgd_takes_the_generic_path():
    X, y = _data(40, 3, 5, binary=True)
    oracle = gr.ApproximateEnvelopeGradientOracle(HingeLoss(), X, y, beta=2.0, K=5, domain=Ball(1.0), local_radius=None)
    assert oracle.coefficients(np.zeros((2, 3)), np.zeros((2, 4), dtype=int), X[np.zeros((2, 4), dtype=int)]) is None
    fast, generic = _both(oracle, 40, 3, 0.5, 3, 0)
    assert np.array_equal(fast[0], generic[0]) and fast[1]["clip_events"] == generic[1]["clip_events"]


def _generic_only(monkeypatch):
    monkeypatch.setattr(gr.ParallelGradientOracle, "clipped_mean", None)  # nsgd_core: getattr(...) is None


@pytest.mark.parametrize("seed", [0, 1])
def test_public_algorithms_agree_with_their_generic_path(seed, monkeypatch):
    """noisy_sgd, moreau_noisy_sgd, prox_noisy_sgd: output, trajectory, white-box trace and clip counts."""
    n = 200
    X, y = _data(n, 3, 6, binary=True)
    logistic = ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(1.0, 1.0))
    hinge = ERMProblem(HingeLoss(), Ball(1.0), DataBounds(1.0, 1.0))
    calls = [
        (o.noisy_sgd, logistic, dict(T=12, return_trajectory=True)),
        (o.moreau_noisy_sgd, hinge, dict(T=12, return_trajectory=True)),
        (o.moreau_noisy_sgd, logistic, dict(T=12, lipschitz_envelope="sharp")),
        (o.prox_noisy_sgd, hinge, dict(T=4, accuracy=1.0)),
        (o.prox_noisy_sgd, logistic, dict(T=4, accuracy=1.0)),
    ]
    for R in (None, 4):
        fast = [f(X, y, p, 1.0, 1.0 / n**2, np.random.default_rng(seed), replicates=R, white_box=True, **kw)
                for f, p, kw in calls]
        with monkeypatch.context() as mp:
            _generic_only(mp)
            generic = [f(X, y, p, 1.0, 1.0 / n**2, np.random.default_rng(seed), replicates=R, white_box=True, **kw)
                       for f, p, kw in calls]
        for a, b in zip(fast, generic):
            assert np.max(np.abs(a.output - b.output)) <= TOL
            assert a.diagnostics["clip_events"] == b.diagnostics["clip_events"]
            assert np.max(np.abs(a.white_box.noisy_gradients - b.white_box.noisy_gradients)) <= TOL
            assert np.max(np.abs(a.white_box.iterates - b.white_box.iterates)) <= TOL
            if a.trajectory is not None:
                assert np.max(np.abs(a.trajectory - b.trajectory)) <= TOL


def test_glm_gradient_oracle_is_still_a_plain_gradfn():
    """Callers that use the oracle as a GradFn (the planted-bug corpus) get the (R, m, d) gradients."""
    X, y = _data(30, 2, 7, binary=True)
    grad_fn = o.glm_gradient_oracle(ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(1.0, 1.0)), X, y)
    W = np.array([[0.3, -0.2], [0.0, 0.5]])
    idx = np.array([[0, 3, 3], [29, 1, 0]])
    G = grad_fn(W, idx)
    for r in range(2):
        for j in range(3):  # ∇ℓ = φ'(⟨w, x⟩, y)·x with φ'(s, y) = −y/(1 + e^{ys}), by hand
            x, yy = X[idx[r, j]], y[idx[r, j]]
            np.testing.assert_allclose(G[r, j], -yy / (1 + math.exp(yy * (W[r] @ x))) * x, rtol=1e-13, atol=1e-15)


# -- the logistic prox -------------------------------------------------------------------------------------


def _old_logistic_prox_scalar(a, y, t):
    """The previous LogisticLoss.prox_scalar (safeguarded Newton–bisection), verbatim: the reference."""
    loss = LogisticLoss()
    a, y, t = np.broadcast_arrays(np.asarray(a, float), np.asarray(y, float), np.asarray(t, float))
    lo, hi = a - t, a + t
    s = a.copy()
    f_prev = np.full_like(s, np.inf)
    tol_f = 8 * np.finfo(float).eps * np.maximum.reduce([np.ones_like(s), np.abs(a), t])
    for _ in range(200):
        f = s - a + t * loss.dphi(s, y)
        active = np.abs(f) > tol_f * np.maximum(1.0, np.abs(s))
        if not np.any(active):
            break
        lo = np.where(f < 0, s, lo)
        hi = np.where(f > 0, s, hi)
        newton = s - f / (1.0 + t * loss.d2phi(s, y))
        use_newton = (newton > lo) & (newton < hi) & (np.abs(f) <= 0.5 * np.abs(f_prev))
        f_prev = f
        s = np.where(active, np.where(use_newton, newton, 0.5 * (lo + hi)), s)
        if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(s))):
            break
    return s


def _scale(a, t, s):
    """The size of the terms of f(s) = s − a + tφ'(s): the unit of 'machine precision' for the residual."""
    return np.maximum(np.maximum(1.0, np.abs(a)), t) * np.maximum(1.0, np.abs(s))


def _check_logistic_prox(a, y, t):
    loss = LogisticLoss()
    s = loss.prox_scalar(a, y, t)
    resid = s - a + t * loss.dphi(s, y)  # the optimality condition of argmin φ(s) + (s − a)²/(2t)
    assert np.all(np.abs(resid) <= 32 * np.finfo(float).eps * _scale(a, t, s))
    old = _old_logistic_prox_scalar(a, y, t)
    # both roots have |f| ≤ 8 ulps·scale and f' ≥ 1: they differ by at most the sum of the two residual bounds
    assert np.all(np.abs(s - old) <= 32 * np.finfo(float).eps * _scale(a, t, s))
    return s


@pytest.mark.parametrize("t_scale", [0.0, 1e-8, 0.1, 1.0, 1.99, 2.0, 3.0, 50.0, 1e6])
def test_logistic_prox_newton_against_old_and_optimality(t_scale):
    rng = np.random.default_rng(int(t_scale * 1000) % 2**32)
    k = 5000
    a = rng.normal(size=k) * rng.choice([1e-3, 1.0, 30.0, 1e4], size=k)
    y = rng.choice([-1.0, 1.0], size=k)
    t = t_scale * rng.random(k)
    s = _check_logistic_prox(a, y, t)
    assert s.shape == a.shape


def test_logistic_prox_mixed_steps_and_shapes():
    rng = np.random.default_rng(8)
    a = rng.normal(size=(20, 7)) * 5
    y = rng.choice([-1.0, 1.0], size=(20, 7))
    t = np.where(rng.random((20, 7)) < 0.5, 0.05, 40.0)  # both the Newton and the safeguarded branch
    s = _check_logistic_prox(a, y, t)
    assert s.shape == (20, 7)
    s0 = LogisticLoss().prox_scalar(a[3, 4], y[3, 4], t[3, 4])  # scalars broadcast, shape ()
    assert np.shape(s0) == () and abs(float(s0) - s[3, 4]) <= 1e-15 * max(1.0, abs(s[3, 4]))


@settings(max_examples=200, deadline=None)
@given(a=st.floats(-1e6, 1e6), t=st.floats(0.0, 1e6), y=st.sampled_from([-1.0, 1.0]))
def test_logistic_prox_property(a, t, y):
    _check_logistic_prox(np.array([a]), np.array([y]), np.array([t]))


def test_logistic_prox_against_50_digit_roots():
    """Independent oracle: the root of s − a + t·(−y/(1 + e^{ys})) by mpmath at 50 digits."""
    mpmath.mp.dps = 50
    rng = np.random.default_rng(9)
    cases = [(float(a), float(yy), float(t)) for a, yy, t in
             zip(rng.normal(size=12) * 3, rng.choice([-1.0, 1.0], 12), np.concatenate([rng.random(6) * 0.2,
                                                                                          rng.random(6) * 20]))]
    a, y, t = (np.array(v) for v in zip(*cases))
    s = LogisticLoss().prox_scalar(a, y, t)
    for (ai, yi, ti), si in zip(cases, s):
        root = mpmath.findroot(lambda u: u - ai - ti * yi / (1 + mpmath.exp(yi * u)), (ai - ti, ai + ti),
                               solver="anderson")
        assert abs(si - float(root)) <= 16 * np.finfo(float).eps * max(1.0, abs(ai), ti)


@pytest.mark.parametrize("loss", LOSSES, ids=lambda l: l.name)
def test_prox_without_masks_equals_the_masked_rows(loss):
    """GLMLoss.prox: the all-nonzero-rows shortcut computes the same rows as the masked path (bitwise), and
    for the closed-form losses the prox satisfies its optimality condition."""
    X, y = _data(30, 3, 10, binary=loss.binary_labels)
    W = np.random.default_rng(11).normal(size=(30, 3))
    Xz = np.vstack([X, np.zeros((1, 3))])  # a zero row forces the masked path
    V = loss.prox(W, X, y, 2.5)
    Vz = loss.prox(np.vstack([W, np.ones((1, 3))]), Xz, np.append(y, 1.0), 2.5)
    assert np.array_equal(V, Vz[:-1]) and np.array_equal(Vz[-1], np.ones(3))
    if loss.smooth:  # ∇ℓ(v) + β(v − w) = 0 at v = prox(w)
        G = loss.dphi(np.einsum("ij,ij->i", V, X), y)[:, None] * X
        assert np.max(np.abs(G + 2.5 * (V - W))) <= 1e-12
