"""The replicate axis of Lowy & Razaviyayn's stochastic inner methods, and the faster single runs.

1. ``replicates=k`` with 𝓜 = "sgd" / "katyusha" (Algorithms 1 and 2) runs k independent inner optimisations at
   once; run r draws its indices from child stream r of the optimiser stream.  So the batched rows are compared
   *number for number* with the readable single-run functions on the same child streams (equal up to
   floating-point rounding: the batched ⟨w, x_i⟩ is a row-wise sum, the single one a dot product), through the
   certificate gate (each run certified on its own, per-run fallback) and the output noise.  A planted bug —
   replicates that share one index stream — is caught by the same comparison.
2. The single runs were made cheaper (no argument checks inside the one-sample loops, one snapshot gradient
   per Katyusha epoch, the full gradient summed over distinct records, extragradient on one adversary block
   per group of records).  Copies of the functions as they were before (below, ``_old_*``) show that the
   iterates did not change beyond rounding.

No assertion here is stochastic: every input comes from a fixed seed and the comparisons are between two
computations of the same numbers, so no false-failure probability is involved (hypothesis runs derandomised).
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpsco.reference.lr21 as lr
from dpsco.reference import Ball, DataBounds, ERMProblem, LogisticLoss, SquaredLoss
from dpsco.reference.certificates import UncertifiedError
from dpsco.reference.noise import calibrate, perturb_and_project, project_ball

PROB = ERMProblem(LogisticLoss(), Ball(2.0), DataBounds(1.0, 1.0))
RTOL, ATOL = 1e-10, 1e-13  # "equal up to rounding": the iterates are O(1); rounding differences are ~1e-16


def _data(n=80, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-X @ np.ones(d))), 1.0, -1.0)
    return X, y


def _children(seed, k):
    return np.random.default_rng(seed).spawn(k)


# -- 1. batched rows = single runs on the same child streams --------------------------------------------------


def _check_rows_equal_single_runs(batched, single, obj_factory, args, k=4, seed=11):
    """Row r of ``batched(obj, *args, rngs)`` equals ``single(obj, *args, rngs[r])`` on fresh copies of the
    streams (AssertionError otherwise); also the batched gradient count is k times the single one."""
    obj_b = obj_factory()
    B = batched(obj_b, *args, _children(seed, k))
    assert B.shape == (k, obj_b.d)
    for r, g in enumerate(_children(seed, k)):
        obj_s = obj_factory()
        np.testing.assert_allclose(B[r], single(obj_s, *args, g), rtol=RTOL, atol=ATOL, err_msg=f"run {r}")
        assert obj_b.sample_gradients == k * obj_s.sample_gradients
    assert len({tuple(row) for row in B}) == k  # k different runs, not one repeated


def _shared_stream_sgd(obj, modulus, T, rngs):
    """PLANTED BUG: every replicate draws its indices from a copy of the first stream (one index path k times)."""
    return lr.stochastic_subgradient_method_replicates(obj, modulus, T, [copy.deepcopy(rngs[0]) for _ in rngs])


def _shared_stream_katyusha(obj, smoothness, epochs, rngs):
    """PLANTED BUG: as above for Katyusha."""
    return lr.katyusha_replicates(obj, smoothness, epochs, [copy.deepcopy(rngs[0]) for _ in rngs])


def _obj(n=80, d=3, seed=0, loss=None):
    X, y = _data(n, d, seed)
    return lambda: lr.GLMObjective(loss or LogisticLoss(), X, y, 0.2, 2.0)


def test_sgd_replicates_equal_single_runs_and_catch_a_shared_stream():
    _check_rows_equal_single_runs(lr.stochastic_subgradient_method_replicates, lr.stochastic_subgradient_method,
                                  _obj(), (0.2, 500))
    with pytest.raises(AssertionError):  # the same check catches replicates that share one index stream
        _check_rows_equal_single_runs(_shared_stream_sgd, lr.stochastic_subgradient_method, _obj(), (0.2, 500))


def test_katyusha_replicates_equal_single_runs_and_catch_a_shared_stream():
    _check_rows_equal_single_runs(lr.katyusha_replicates, lr.katyusha, _obj(), (0.25, 3))
    with pytest.raises(AssertionError):
        _check_rows_equal_single_runs(_shared_stream_katyusha, lr.katyusha, _obj(), (0.25, 3))


def test_replicate_blocks_do_not_change_the_rows(monkeypatch):
    """Runs are processed REPLICATE_BLOCK at a time and Katyusha gathers its records GATHER_STEPS steps at a time;
    block and gather boundaries change nothing."""
    full = lr.stochastic_subgradient_method_replicates(_obj()(), 0.2, 200, _children(3, 5))
    monkeypatch.setattr("dpsco.reference.lr21.inner_solvers.REPLICATE_BLOCK", 2)
    np.testing.assert_array_equal(lr.stochastic_subgradient_method_replicates(_obj()(), 0.2, 200, _children(3, 5)),
                                  full)
    monkeypatch.setattr("dpsco.reference.lr21.inner_solvers.GATHER_STEPS", 7)  # Katyusha's records, 7 steps at a time
    kat = lr.katyusha_replicates(_obj()(), 0.25, 2, _children(3, 3))
    monkeypatch.setattr("dpsco.reference.lr21.inner_solvers.REPLICATE_BLOCK", 256)
    monkeypatch.setattr("dpsco.reference.lr21.inner_solvers.GATHER_STEPS", 1024)
    np.testing.assert_array_equal(lr.katyusha_replicates(_obj()(), 0.25, 2, _children(3, 3)), kat)


def test_sgd_replicates_with_a_nonsmooth_squared_loss_objective():
    """Another GLM loss (squared, unbounded labels) through the same row-wise sample gradients."""
    X, y = _data(60, 2, 4)
    y = y * 0.7
    _check_rows_equal_single_runs(lr.stochastic_subgradient_method_replicates, lr.stochastic_subgradient_method,
                                  lambda: lr.GLMObjective(SquaredLoss(), X, y, 0.3, 1.5), (0.3, 300), k=3)


@pytest.mark.parametrize("method", ["sgd", "katyusha"])
def test_algorithm_1_replicates_are_single_certified_runs_plus_independent_noise(method):
    """algorithm_1(replicates=k): w_T row r = certified_inner on child r of the optimiser stream; output =
    Π(w_T + ẑ) with the k noises drawn from the noise stream, exactly as the deterministic methods' replicates."""
    X, y = _data(120, 3, 1)
    k, eps, dl, seed = 4, 1.0, 1e-5, 21
    T = 400 if method == "sgd" else None  # fewer steps than Thm 3.1's count, still certified on these seeds
    rel = lr.algorithm_1(X, y, PROB, eps, dl, np.random.default_rng(seed), mu=0.2, method=method, alpha=1e-2, T=T,
                         replicates=k)
    p = rel.parameters
    opt, noise_rng = np.random.default_rng(seed).spawn(2)
    singles = [lr.certified_inner(lr.GLMObjective(LogisticLoss(), X, y, 0.2, p["R"]), method, 0.2, p["alpha"],
                                  p["T"], p["beta"], g) for g in opt.spawn(k)]
    W = rel.nonprivate_internals["w_T"]
    np.testing.assert_allclose(W, np.stack([s.w for s in singles]), rtol=RTOL, atol=ATOL)
    cal = calibrate(p["Delta_T"], eps, dl)
    np.testing.assert_allclose(rel.output, perturb_and_project(W, cal, p["R"], noise_rng, k), rtol=RTOL, atol=ATOL)
    assert rel.output.shape == (k, 3) and rel.replicates == k
    assert rel.gradient_evaluations == singles[0].gradient_evaluations  # one run's count
    assert rel.diagnostics["gradient_evaluations_all_replicates"] == k * singles[0].gradient_evaluations
    dists = rel.diagnostics["replicate_certificate_distances"]
    assert rel.diagnostics["certificate"]["distance_bound"] == max(dists) <= math.sqrt(2 * p["alpha"] / 0.2)
    assert rel.diagnostics["replicate_paths"] == [s.path for s in singles]


# (α, T) at which, on these seeds, some runs are certified and some are not (checked below as a precondition)
MIXED = {"sgd": (1e-2, 40), "katyusha": (0.1025**2 * 0.2 / 2, 2)}


@pytest.mark.parametrize("method", ["sgd", "katyusha"])
def test_uncertified_runs_fall_back_one_by_one_or_are_refused(method):
    """Per-run gate: a run whose certificate fails releases the certified solver's point (as its single run
    would), the others keep theirs; fallback="refuse" refuses the whole record."""
    X, y = _data(120, 3, 2)
    k, seed = 6, 5
    alpha, T = MIXED[method]
    rel = lr.algorithm_1(X, y, PROB, 1.0, 1e-5, np.random.default_rng(seed), mu=0.2, method=method, alpha=alpha,
                         T=T, replicates=k)
    assert 0 < rel.diagnostics["replicate_paths"].count(lr.FALLBACK_PATH) < k  # precondition: a mix
    p = rel.parameters
    opt, _ = np.random.default_rng(seed).spawn(2)
    singles = [lr.certified_inner(lr.GLMObjective(LogisticLoss(), X, y, 0.2, p["R"]), method, 0.2, p["alpha"], T,
                                  p["beta"], g) for g in opt.spawn(k)]
    assert rel.diagnostics["replicate_paths"] == [s.path for s in singles]
    np.testing.assert_allclose(rel.nonprivate_internals["w_T"], np.stack([s.w for s in singles]), rtol=RTOL,
                               atol=ATOL)
    needed = math.sqrt(2 * p["alpha"] / 0.2)
    assert all(d <= needed for d in rel.diagnostics["replicate_certificate_distances"])
    assert set(rel.diagnostics["first_certificate_distances"]) == {
        r for r, s in enumerate(singles) if s.path == lr.FALLBACK_PATH}
    with pytest.raises(UncertifiedError, match="refusing"):
        lr.algorithm_1(X, y, PROB, 1.0, 1e-5, np.random.default_rng(seed), mu=0.2, method=method, alpha=alpha, T=T,
                       replicates=k, fallback="refuse")


@pytest.mark.parametrize("method", ["sgd", "katyusha"])
def test_algorithm_2_replicates(method):
    X, y = _data(100, 3, 3)
    rel = lr.algorithm_2(X, y, PROB, 1.0, 1e-5, np.random.default_rng(8), method=method, alpha=1e-2, replicates=3)
    p = rel.parameters
    opt, _ = np.random.default_rng(8).spawn(2)
    W = np.stack([lr.certified_inner(lr.GLMObjective(LogisticLoss(), X, y, p["lam"], p["R"]), method, p["lam"],
                                     p["alpha"], p["T"], p["beta"], g).w for g in opt.spawn(3)])
    np.testing.assert_allclose(rel.nonprivate_internals["w_T"], W, rtol=RTOL, atol=ATOL)
    assert rel.output.shape == (3, 3)


def test_replicate_inputs_are_checked():
    obj = _obj()()
    with pytest.raises(TypeError, match="rngs"):
        lr.stochastic_subgradient_method_replicates(obj, 0.2, 10, np.random.default_rng(0))
    g = np.random.default_rng(0)
    with pytest.raises(ValueError, match="rngs"):
        lr.katyusha_replicates(obj, 0.25, 1, [g, g])
    with pytest.raises(ValueError, match="rngs"):
        lr.stochastic_subgradient_method_replicates(obj, 0.2, 10, [])
    with pytest.raises(ValueError, match="method"):
        lr.certified_inner_replicates(obj, "agd", 0.2, 1e-3, 5, 0.45, _children(0, 2))
    with pytest.raises(ValueError, match="fallback"):
        lr.certified_inner_replicates(obj, "sgd", 0.2, 1e-3, 5, None, _children(0, 2), fallback="ignore")
    with pytest.raises(ValueError, match="replicates"):
        lr.algorithm_1(*_data(), PROB, 1.0, 1e-5, np.random.default_rng(0), mu=0.2, method="sgd", replicates=0)


# -- 2. the faster single runs against the functions as they were ----------------------------------------------


def _old_full_grad(obj, w):
    obj.sample_gradients += obj.n
    return obj.X.T @ obj.loss.dphi(obj.X @ w, obj.y) / obj.n + obj.reg * w


def _old_data_sample_grad(obj, w, i):
    obj.sample_gradients += 1
    x = obj.X[i]
    return obj.loss.dphi(np.array([x @ w]), obj.y[i:i + 1])[0] * x


def _old_subgradient_method(obj, mu, T):
    w, avg = np.zeros(obj.d), np.zeros(obj.d)
    for t in range(1, T + 1):
        avg += (2.0 * t / (T * (T + 1.0))) * w
        w = project_ball(w - 2.0 / (mu * (t + 1.0)) * _old_full_grad(obj, w), obj.radius)
    return avg


def _old_sgd(obj, mu, T, rng):
    w, avg = np.zeros(obj.d), np.zeros(obj.d)
    idx = rng.integers(0, obj.n, size=T)
    for t in range(1, T + 1):
        avg += (2.0 * t / (T * (T + 1.0))) * w
        g = _old_data_sample_grad(obj, w, int(idx[t - 1])) + obj.reg * w
        w = project_ball(w - 2.0 / (mu * (t + 1.0)) * g, obj.radius)
    return avg


def _old_katyusha(obj, Lsm, epochs, rng):
    n, d, sigma = obj.n, obj.d, obj.reg
    m, tau2 = 2 * n, 0.5
    tau1 = min(math.sqrt(m * sigma / (3.0 * Lsm)), 0.5)
    a = 1.0 / (3.0 * tau1 * Lsm)
    y, z, xt = np.zeros(d), np.zeros(d), np.zeros(d)
    logw = np.arange(m) * math.log1p(a * sigma)
    weights = np.exp(logw - logw.max())
    weights = weights / weights.sum()
    for _ in range(epochs):
        mu_s = obj.X.T @ obj.loss.dphi(obj.X @ xt, obj.y) / n
        snap_grads = obj.loss.dphi(obj.X @ xt, obj.y)
        acc = np.zeros(d)
        idx = rng.integers(0, n, size=m)
        for j in range(m):
            x = tau1 * z + tau2 * xt + (1.0 - tau1 - tau2) * y
            i = int(idx[j])
            gt = mu_s + _old_data_sample_grad(obj, x, i) - snap_grads[i] * obj.X[i]
            z_new = project_ball((z - a * gt) / (1.0 + a * sigma), obj.radius)
            y = x + tau1 * (z_new - z)
            z = z_new
            acc += weights[j] * y
        xt = project_ball(acc, obj.radius)
    return xt


def _old_extragradient(game, T):
    eta = lr.extragradient_step_size(game.problem)
    w, V = np.zeros(game.d), np.zeros((game.n, game.d))
    for _ in range(T):
        gw, gv = game.operator(w, V)
        wh, Vh = project_ball(w - eta * gw, game.radius), game.project_v(V + eta * gv)
        gw, gv = game.operator(wh, Vh)
        w, V = project_ball(w - eta * gw, game.radius), game.project_v(V + eta * gv)
    return w, V


def _duplicated_data(n=400, atoms=30, d=4, seed=6):
    """n draws from a finite support of ``atoms`` records (as the campaign's synthetic instances)."""
    X, y = _data(atoms, d, seed)
    idx = np.random.default_rng(seed).integers(0, atoms, size=n)
    return X[idx], y[idx]


@pytest.mark.parametrize("data", [_data(90, 3, 0), _duplicated_data()], ids=["distinct", "duplicated"])
def test_single_runs_unchanged_beyond_rounding(data):
    X, y = data
    obj = lambda: lr.GLMObjective(LogisticLoss(), X, y, 0.2, 2.0)  # noqa: E731
    np.testing.assert_allclose(lr.subgradient_method(obj(), 0.2, 300), _old_subgradient_method(obj(), 0.2, 300),
                               rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(lr.stochastic_subgradient_method(obj(), 0.2, 400, np.random.default_rng(1)),
                               _old_sgd(obj(), 0.2, 400, np.random.default_rng(1)), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(lr.katyusha(obj(), 0.25, 3, np.random.default_rng(2)),
                               _old_katyusha(obj(), 0.25, 3, np.random.default_rng(2)), rtol=RTOL, atol=ATOL)
    a, b = obj(), obj()
    lr.subgradient_method(a, 0.2, 7)
    lr.katyusha(b, 0.25, 2, np.random.default_rng(0))
    assert a.sample_gradients == 7 * len(y) and b.sample_gradients == 2 * 5 * len(y)  # counts unchanged


@pytest.mark.parametrize("loss", ["logistic", "squared", "huber", "hinge", "absolute", "linear"])
def test_one_sample_gradient_unchanged_for_every_loss(loss):
    """The one-sample gradient calls φ' on scalars now: the same numbers as the 1-element-array form."""
    from dpsco.reference import get_loss

    X, y = _data(30, 3, 9)
    obj = lr.GLMObjective(get_loss(loss), X, y, 0.3, 2.0)
    w = np.random.default_rng(0).normal(size=3)
    for i in range(30):
        np.testing.assert_array_equal(obj.sample_grad(w, i), _old_data_sample_grad(obj, w, i) + 0.3 * w)
    assert obj.sample_gradients == 60


@pytest.mark.parametrize("gamma,data", [(0.0, _data(300, 3, 4)), (0.5, _duplicated_data(300, 20, 3)),
                                        (0.5, _data(100, 3, 4))], ids=["gamma0", "gamma-dup", "gamma-distinct"])
def test_extragradient_unchanged_beyond_rounding(gamma, data):
    X, y = data
    P = lr.LinearAdversarialProblem(0.1, 0.05, gamma)
    T = 300
    g_new, g_old = P.game(X, y), P.game(X, y)
    w, V = lr.extragradient(g_new, T)
    w0, V0 = _old_extragradient(g_old, T)
    np.testing.assert_allclose(w, w0, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(V, V0, rtol=RTOL, atol=ATOL)
    assert g_new.gradient_evaluations == g_old.gradient_evaluations == 2 * T * len(y)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(n=st.integers(2, 40), atoms=st.integers(1, 40), d=st.integers(1, 4), seed=st.integers(0, 2**16),
       reg=st.floats(0.0, 2.0))
def test_full_gradient_over_distinct_records_is_the_plain_sum(n, atoms, d, seed, reg):
    """Invariant: grouping equal records changes ∇F only by rounding, and still counts n per-sample gradients."""
    rng = np.random.default_rng(seed)
    X, y = _data(atoms, d, seed)
    idx = rng.integers(0, atoms, size=n)
    obj = lr.GLMObjective(LogisticLoss(), X[idx], y[idx], reg, 2.0)
    w = rng.normal(size=d)
    plain = X[idx].T @ obj.loss.dphi(X[idx] @ w, y[idx]) / n + reg * w
    np.testing.assert_allclose(obj.grad(w), plain, rtol=1e-12, atol=1e-15)
    assert obj.sample_gradients == n and obj.full_gradients == 1


@pytest.mark.parametrize("name,T", [("lr21.alg1.sgd", 300), ("lr21.alg1.katyusha", 2)])
def test_catalogue_stochastic_entries_replicate_whole_runs(name, T):
    """The campaign draws these entries' runs over the replicate axis (``replicate_axis``); each row must be a
    run of its own — k different certified w_T, not k noisy copies of one (they are not ``deterministic``)."""
    from dpsco.verification.papers.catalogue import get_entry

    entry = get_entry(name)
    assert entry.replicate_axis and not entry.deterministic
    X, y = _data(60, 2, 7)
    rel = entry.run(X, y, PROB, 1.0, 1e-4, np.random.default_rng(0), replicates=3, **{**entry.quick_options, "T": T})
    W = rel.nonprivate_internals["w_T"]
    assert W.shape == (3, 2) and len({tuple(w) for w in W}) == 3  # small T: cheap, still certified here
    assert rel.diagnostics["replicate_paths"].count(lr.FALLBACK_PATH) == 0
