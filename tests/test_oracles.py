"""Tests of dpsco.oracles.minimizers: cvxpy cross-check, agreement checking (with planted bugs), excess risk.

Deterministic (fixed seeds; no stochastic assertion, so no false-failure probability is involved).
cvxpy solves are kept small (n ≤ 40, d ≤ 3): ~10–50 ms each.
"""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest

import dpsco.oracles.minimizers as om
from dpsco.oracles.minimizers import (
    ExcessRisk,
    OracleError,
    OracleResult,
    certified_oracle,
    cvxpy_minimize,
    excess_empirical_risk,
    problem_key,
)
from dpsco.reference.domains import Ball
from dpsco.reference.losses import get_loss
from dpsco.reference.solvers import CertifiedSolution, certified_minimize

from _problems import make_problem

LOSSES = ["logistic", "squared", "huber", "linear", "hinge", "absolute"]
MP_DPS = 40

@pytest.fixture(autouse=True)
def _mp_precision():
    """mpmath precision is global state: set it for each test of this module and restore it after."""
    with mp.workdps(MP_DPS):
        yield


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("lam, M", [(0.0, 0.2), (0.0, 20.0), (0.05, 0.2), (0.05, math.inf)])
def test_certified_oracle_agrees_with_cvxpy(name, lam, M):
    loss, X, y = make_problem(name, seed=LOSSES.index(name))
    res = certified_oracle(loss, X, y, Ball(M), lam=lam)
    assert isinstance(res, OracleResult)
    assert res.cvxpy_status == "optimal"
    assert res.agreement["agree"] is True
    assert res.agreement["value_difference"] <= res.agreement["value_allowed"]
    assert res.lower_bound <= res.value
    assert res.certificate.gap_bound <= 1e-9
    if "distance" in res.agreement:
        assert res.agreement["distance"] <= res.agreement["distance_allowed"]
    json.dumps(res.to_dict())  # serialisable


def test_cvxpy_minimize_refuses_non_optimal_status():
    loss, X, y = make_problem("logistic")
    with pytest.raises(OracleError, match="optimal"):
        cvxpy_minimize(loss, X, y, Ball(0.2), solver_options={"max_iter": 1})


def test_cvxpy_minimize_returns_optimal_and_numpy_value():
    loss, X, y = make_problem("squared")
    w, status, value = cvxpy_minimize(loss, X, y, Ball(10.0), lam=0.1)
    assert status == "optimal"
    assert value == pytest.approx(float(np.mean(0.5 * (X @ w - y) ** 2) + 0.1 * w @ w), rel=1e-14)


def _fake_solver(shift: np.ndarray):
    """A planted bug: the certified solver returns a shifted point but keeps the optimum's certificate."""
    real = certified_minimize

    def fake(*args, **kwargs) -> CertifiedSolution:
        sol = real(*args, **kwargs)
        w = sol.w + shift
        return CertifiedSolution(w, sol.value, sol.certificate, sol.iterations, sol.method)

    return fake


def test_disagreement_in_distance_is_detected(monkeypatch):
    loss, X, y = make_problem("squared")
    monkeypatch.setattr(om, "certified_minimize", _fake_solver(np.array([1e-4, 0.0, 0.0])))
    with pytest.raises(OracleError, match="disagree"):
        certified_oracle(loss, X, y, Ball(math.inf), lam=0.05)


def test_disagreement_in_value_is_detected(monkeypatch):
    """lam = 0 (distance certificates may be absent): a shift that changes F by ≫ the gaps is caught."""
    loss, X, y = make_problem("absolute")
    monkeypatch.setattr(om, "certified_minimize", _fake_solver(np.array([0.0, -0.05, 0.05])))
    with pytest.raises(OracleError, match="disagree"):
        certified_oracle(loss, X, y, Ball(20.0))


def test_no_cross_check_mode():
    loss, X, y = make_problem("logistic")
    res = certified_oracle(loss, X, y, Ball(1.0), cross_check=False)
    assert res.cvxpy_status is None and res.cvxpy_w is None and res.agreement == {}


# -----------------------------------------------------------------------------------------------------
# excess_empirical_risk
# -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("M", [0.1, 10.0, math.inf])
def test_excess_interval_contains_exact_value_linear_loss(M):
    """Linear loss, hand-derived optimum: F(w) = ⟨ḡ, w⟩ + lam‖w‖², ḡ = mean x;
    w* = −ḡ/(2 lam) if ‖ḡ‖ ≤ 2 lam M else −Mḡ/‖ḡ‖.  The exact excess (evaluated in mpmath) must lie in
    [lo, hi], including for a point outside W (negative excess possible)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((15, 3)) / 2
    y = np.zeros(15)
    lam = 0.2
    loss = get_loss("linear")
    gbar = [mp.fsum(mp.mpf(X[i, j]) for i in range(15)) / 15 for j in range(3)]
    ng = mp.sqrt(mp.fsum(g * g for g in gbar))
    w_star = [-g / (2 * lam) for g in gbar] if ng <= 2 * lam * mp.mpf(M) else [-mp.mpf(M) * g / ng for g in gbar]

    def F(w):
        return mp.fsum(g * mp.mpf(float(v)) for g, v in zip(gbar, w)) + mp.mpf(lam) * mp.fsum(
            mp.mpf(float(v)) ** 2 for v in w)

    F_star = mp.fsum(g * v for g, v in zip(gbar, w_star)) + mp.mpf(lam) * mp.fsum(v * v for v in w_star)
    res = certified_oracle(loss, X, y, Ball(M), lam=lam, cross_check=False)
    for w in (res.w, np.array([0.05, -0.02, 0.01]), np.array([3.0, 4.0, -1.0])):
        ex = excess_empirical_risk(loss, X, y, Ball(M), w, lam=lam, oracle_result=res)
        assert isinstance(ex, ExcessRisk)
        true = F(w) - F_star
        assert ex.lo <= true <= ex.hi
        assert ex.hi - ex.lo <= 1e-13


def test_excess_at_oracle_point_and_key_mismatch():
    loss, X, y = make_problem("logistic")
    res = certified_oracle(loss, X, y, Ball(1.0), cross_check=False)
    ex = excess_empirical_risk(loss, X, y, Ball(1.0), res.w, oracle_result=res)
    assert ex.lo == 0.0 and 0.0 <= ex.hi <= res.certificate.gap_bound + 1e-14
    with pytest.raises(ValueError, match="different problem"):
        excess_empirical_risk(loss, X, y, Ball(1.0), res.w, lam=0.1, oracle_result=res)
    with pytest.raises(ValueError, match="different problem"):
        excess_empirical_risk(loss, X[:-1], y[:-1], Ball(1.0), res.w, oracle_result=res)
    # computed on the fly when no oracle result is given
    ex2 = excess_empirical_risk(loss, X, y, Ball(1.0), np.zeros(3))
    assert ex2.lo > 0 and ex2.hi - ex2.lo <= 1e-12


def test_problem_key_distinguishes_problems():
    loss, X, y = make_problem("logistic")
    k = problem_key(loss, X, y, Ball(1.0))
    assert k == problem_key(loss, X.copy(), y.copy(), Ball(1.0))
    assert k != problem_key(loss, X, y, Ball(2.0))
    assert k != problem_key(loss, X, y, Ball(1.0), weights=np.arange(1.0, 26.0))
    assert k != problem_key(get_loss("hinge"), X, y, Ball(1.0))


def test_bad_inputs():
    loss, X, y = make_problem("logistic")
    with pytest.raises(ValueError, match="lam"):
        certified_oracle(loss, X, y, Ball(1.0), lam=-1)
    with pytest.raises(TypeError, match="domain"):
        cvxpy_minimize(loss, X, y, "ball")
    with pytest.raises(ValueError, match="w"):
        excess_empirical_risk(loss, X, y, Ball(1.0), np.zeros(4))
    with pytest.raises(TypeError, match="oracle_result"):
        excess_empirical_risk(loss, X, y, Ball(1.0), np.zeros(3), oracle_result={"w": 0})
