"""dpsco.adapters: library code driven by the auditor's rng only (reproducible, independent runs, global state
untouched), and add/remove neighbours the auditors accept.  Deterministic except where stated; the optional
libraries (diffprivlib, torch, jax) are skipped when absent."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dpsco.adapters import (add_remove_claim, add_remove_neighbours, jax_seeded, sklearn_mechanism, torch_seeded)
from dpsco.verification.auditing.inputs import check_dataset, check_neighbouring_pair


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) / 3.0
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return {"X": X, "y": np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)}


def _globals():
    return np.random.get_state()[1].copy(), random.getstate()


def _assert_driven_by_rng(mechanism, data):
    """Same rng state -> same output; another state -> another output; numpy's and Python's globals untouched."""
    before = _globals()
    a = mechanism(data, np.random.default_rng(1))
    b = mechanism(data, np.random.default_rng(1))
    c = mechanism(data, np.random.default_rng(2))
    after = _globals()
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert np.array_equal(before[0], after[0]) and before[1] == after[1]
    assert a.dtype == np.float64 and a.ndim == 1
    return a


def test_sklearn_mechanism_is_seeded_from_rng():
    from sklearn.linear_model import SGDClassifier

    mech = sklearn_mechanism(lambda: SGDClassifier(max_iter=5, tol=None), ("coef_", "intercept_"))
    out = _assert_driven_by_rng(mech, _data())
    assert out.shape == (4,)  # 3 coefficients and the intercept, flattened


def test_sklearn_mechanism_refuses_an_estimator_without_random_state():
    from sklearn.linear_model import LinearRegression

    with pytest.raises(TypeError, match="estimator_factory"):
        sklearn_mechanism(LinearRegression)(_data(), np.random.default_rng(0))
    with pytest.raises(TypeError, match="attribute"):
        sklearn_mechanism(LinearRegression, attribute=())


def test_diffprivlib_logistic_regression_through_the_adapter():
    # optional: diffprivlib (not in the test extra); skipped when absent or when it does not import against the
    # installed scikit-learn
    dp = pytest.importorskip("diffprivlib", exc_type=ImportError)
    from dpsco.testing import assert_private

    mech = sklearn_mechanism(lambda: dp.models.LogisticRegression(epsilon=1.0, data_norm=1.0))
    data = _data(30)
    _assert_driven_by_rng(mech, data)
    neighbour = {"X": data["X"].copy(), "y": data["y"].copy()}
    neighbour["X"][-1], neighbour["y"][-1] = [1.0, 0.0, 0.0], -data["y"][-1]
    # diffprivlib states epsilon-DP for its logistic regression: a true claim fails with probability <= 1e-7
    assert_private(mech, data, neighbour, (1.0, 0.0), samples=100, confidence=1 - 1e-7, seed=3)


def test_torch_seeded_seeds_every_generator():
    torch = pytest.importorskip("torch")

    def fn(data, generator):
        shuffle = torch.randperm(len(data["y"]), generator=generator)  # a sampler's draw
        return torch.randn(3, generator=generator) + torch.rand(1) + float(np.random.rand()) + shuffle[0]

    state = torch.random.get_rng_state().clone()
    _assert_driven_by_rng(torch_seeded(fn), _data())
    assert torch.equal(state, torch.random.get_rng_state())  # torch's global generator restored


def test_jax_seeded_passes_a_key_from_rng():
    jax = pytest.importorskip("jax")

    def fn(data, key):
        return jax.random.normal(key, (3,)) + float(np.random.rand())

    _assert_driven_by_rng(jax_seeded(fn), _data())


def test_add_remove_neighbours_is_an_add_remove_pair():
    data = _data(5)
    big, small = add_remove_neighbours(data, {"X": [1.0, 0.0, 0.0], "y": 1})
    assert big["X"].shape == (6, 3) and np.array_equal(big["X"][:5], data["X"]) and big["y"][-1] == 1
    found = check_neighbouring_pair(check_dataset(big, "dataset"), check_dataset(small, "neighbour"), "add/remove")
    assert found["relation"] == "add/remove" and found["larger"] == "dataset"
    with pytest.raises(ValueError, match="replace-one neighbours have the same shapes"):
        check_neighbouring_pair(check_dataset(big, "d"), check_dataset(small, "n"), "replace-one")
    with pytest.raises(ValueError, match="'y'"):
        add_remove_neighbours(data, {"X": [1.0, 0.0, 0.0]})
    with pytest.raises(ValueError, match="shape"):
        add_remove_neighbours(data, {"X": [1.0, 0.0], "y": 1})
    with pytest.raises(ValueError, match="lacks"):
        add_remove_neighbours(data, {"X": [1.0, 0.0, 0.0], "y": 1, "z": 0})


def test_add_remove_claim():
    c = add_remove_claim(1.0, 1e-5)
    assert (c.notion, c.neighbouring, c.epsilon, c.delta) == ("approx-DP", "add/remove", 1.0, 1e-5)
    assert add_remove_claim(0.5, 0.0).notion == "pure-DP"
