"""The objectives `dpsco verify` measures Lowy & Razaviyayn's algorithms on (dpsco.verification.papers.objectives).

Deterministic tests (no stochastic assertion).  Golden values come from independent solvers (cvxpy/Clarabel,
the closed form of docs/derivations.md#linear-adversarial-games) and from hand derivations written here:

* per-sample losses: for ERM-form objectives F(w) = (1/n)Σ f(w, z_i), so the mean of ``sample_losses`` over the
  dataset must equal ``build(...).value``; the tilted risk lies between the mean and the max (Jensen);
* Lipschitz constants: |f(w, z) − f(w', z)| ≤ L‖w − w'‖ on B(0, R) with L = params["L"] (the constant the
  stability bound L·Δ_T uses): ∇f = φ'·(…) + μw with |φ'| ≤ 1, ‖∇ of the ρ‖w‖ term‖ ≤ ρ;
* oracles agree with an independent solver within the sum of the certified gaps.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.oracles.lr21.output_perturbation import cvxpy_robust, cvxpy_tilted, newton_certified_minimizer
from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss
import dpsco.reference.lr21 as op
from dpsco.reference.noise import project_ball
from dpsco.verification.papers import objectives as ob
from dpsco.verification.campaign.datasets import load_fair

PARAMS = {"mu": 0.1, "R": 2.0, "tau": 1.0, "rho": 0.1, "r": 0.05, "gamma": 0.0, "x_max": 1.0, "y_max": 1.0}
SPECS = {"ridge": ob.RIDGE_LOGISTIC, "tilted": ob.TILTED_LOGISTIC, "robust": ob.ROBUST_LOGISTIC,
         "robust_squared": ob.ROBUST_SQUARED, "game": ob.LINEAR_ADVERSARIAL}


def _lipschitz(name: str, p: dict) -> float:
    """The paper's L = L_ℓ + μR of each per-sample loss on B(0, R) (hand derivation, module docstring)."""
    mu, R = p["mu"], p["R"]
    xr = p["x_max"] + p["rho"]  # robust least squares: |h| ≤ (x_max + ρ)R + y_max, ‖∇h‖ ≤ x_max + ρ
    return {"ridge": 1.0 + mu * R, "tilted": 1.0 + mu * R, "robust": xr + mu * R,
            "robust_squared": (xr * R + p["y_max"]) * xr + mu * R,
            "game": mu * R + p["y_max"] * (p["x_max"] + p["r"])}[name]


def _data(n=60, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X @ np.array([2.0, -1.0, 0.5]) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("name", ["ridge", "robust", "robust_squared", "game"])
def test_erm_form_objectives_are_means_of_their_sample_losses(name):
    X, y = _data()
    spec = SPECS[name]
    assert spec.erm_form
    obj = spec.build(X, y, PARAMS)
    W = np.random.default_rng(1).normal(size=(7, 3)) * 0.6
    means = spec.sample_losses(W, X, y, PARAMS).mean(axis=1)
    np.testing.assert_allclose(means, [obj.value(w) for w in W], rtol=1e-12, atol=1e-14)


def test_tilted_risk_lies_between_mean_and_max_of_the_sample_losses():
    X, y = _data()
    spec = SPECS["tilted"]
    assert not spec.erm_form  # not an average of per-sample losses: no population form
    obj = spec.build(X, y, PARAMS)
    W = np.random.default_rng(2).normal(size=(7, 3)) * 0.6
    f = spec.sample_losses(W, X, y, PARAMS)
    for w, fi in zip(W, f):
        assert fi.mean() - 1e-12 <= obj.value(w) <= fi.max() + 1e-12


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(SPECS)), seed=st.integers(0, 10**6))
def test_sample_losses_are_L_lipschitz_on_the_ball(name, seed):
    """|f(w, z) − f(w', z)| ≤ L‖w − w'‖ for w, w' ∈ B(0, R), ‖x‖ ≤ x_max, y = ±1: the constant of L·Δ_T."""
    rng = np.random.default_rng(seed)
    d = 4
    W = rng.normal(size=(2, d))
    W *= (PARAMS["R"] * rng.uniform(0, 1, size=2) / np.linalg.norm(W, axis=1))[:, None]
    Z = rng.normal(size=(5, d))
    Z *= (rng.uniform(0, 1, size=5) / np.linalg.norm(Z, axis=1))[:, None]
    zy = rng.choice([-1.0, 1.0], size=5)
    f = SPECS[name].sample_losses(W, Z, zy, PARAMS)
    L = _lipschitz(name, PARAMS)
    assert np.all(np.abs(f[0] - f[1]) <= L * np.linalg.norm(W[0] - W[1]) * (1 + 1e-12) + 1e-14)


def test_oracles_agree_with_independent_solvers():
    import cvxpy as cp

    X, y = _data()
    # ridge logistic: cvxpy with cp.logistic
    ridge = SPECS["ridge"].build(X, y, PARAMS)
    mr = SPECS["ridge"].minimum(ridge)
    w = cp.Variable(3)
    prob = cp.Problem(cp.Minimize(cp.sum(cp.logistic(-cp.multiply(y, X @ w))) / len(y)
                                  + 0.05 * cp.sum_squares(w)), [cp.norm(w, 2) <= 2.0])
    prob.solve(solver=cp.CLARABEL)
    assert mr.value <= ridge.value(np.asarray(w.value)) + 1e-12
    assert abs(mr.value - prob.value) <= 1e-6 and mr.gap_bound <= 1e-9
    # tilted and robust: Clarabel on the conic forms (dpsco.oracles.lr21.output_perturbation)
    for name, cvx in (("tilted", cvxpy_tilted), ("robust", cvxpy_robust), ("robust_squared", cvxpy_robust)):
        obj = SPECS[name].build(X, y, PARAMS)
        m = SPECS[name].minimum(obj)
        wc, status = cvx(obj)
        assert status == "optimal"
        wc = project_ball(wc, 2.0)
        assert m.value <= obj.value(wc) + 1e-12 and obj.value(wc) - m.value <= 1e-6 and m.gap_bound <= 1e-9
    # linear game: closed form ((‖m‖ − r)₊/μ)·m/‖m‖ (docs/derivations.md#linear-adversarial-games) against the certified first-order solver of G_D
    game = SPECS["game"].build(X, y, PARAMS)
    mg = SPECS["game"].minimum(game)
    wf, cf = op.certified_first_order(op.adversarial_objective(game.game), 1e-5)
    assert abs(game.value(wf) - mg.value) <= cf.gap_bound + mg.gap_bound + 1e-12
    mvec = X.T @ y / len(y)
    expected = (np.linalg.norm(mvec) - 0.05) / 0.1 * mvec / np.linalg.norm(mvec)
    np.testing.assert_allclose(mg.w, project_ball(expected, 2.0), atol=1e-12)


def test_robust_newton_oracle_does_not_stall_at_the_kink_on_the_real_data():
    """Regression: Newton started at 0 stalled at w ≈ 1e-14 on the Fair data (G_D(0) = log 2 = 0.6931 against the
    minimum 0.68397 that Clarabel finds at ‖w‖ = 0.360), because G_D is not differentiable at 0 and the
    curvature term ρ|φ'|/‖w‖ explodes near it.  Starting on the ray of steepest descent fixes it."""
    real = load_fair()
    obj = op.RobustObjective("logistic", real.X, real.y, 0.1, 0.1, 2.0)
    w, cert = newton_certified_minimizer(obj, 1e-9)
    wc, status = cvxpy_robust(obj)
    assert status == "optimal" and cert.distance_bound <= 1e-9
    assert obj.value(w) <= obj.value(project_ball(wc, 2.0)) + 1e-12
    assert obj.value(w) < np.log(2.0) - 5e-3  # not the kink: G_D(0) = log 2


def test_robust_newton_oracle_certifies_the_kink_when_it_is_the_minimiser():
    """If ‖(1/n)Σ y_i x_i‖/2 ≤ ρ/2 (|φ'(0)| = 1/2 for every record), the minimum-norm subgradient of G_D at 0 is 0,
    so w* = 0 exactly; here y_i x_i average to ~0 (symmetric pairs)."""
    X = np.array([[0.5, 0.1], [-0.5, -0.1], [0.2, -0.3], [-0.2, 0.3]])
    y = np.array([1.0, 1.0, -1.0, -1.0])  # Σ y_i x_i = 0
    obj = op.RobustObjective("logistic", X, y, 0.1, 0.1, 2.0)
    w, cert = newton_certified_minimizer(obj, 1e-9)
    assert np.all(w == 0) and cert.gap_bound <= 1e-20  # only the rounding allowance of the certificate


def test_adapters_pass_the_problem_bounds_and_radius_through():
    X, y = _data()
    prob = ERMProblem(get_loss("logistic"), Ball(2.0), DataBounds(1.0, 1.0))
    a = ob.robust_erm_from_problem(X, y, prob, 1.0, 1e-4, np.random.default_rng(3), rho=0.1, mu=0.1)
    b = op.robust_erm(X, y, "logistic", 1.0, 1.0, 1.0, 1e-4, np.random.default_rng(3), rho=0.1, mu=0.1, radius=2.0)
    np.testing.assert_array_equal(a.output, b.output)
    assert a.parameters["R"] == 2.0
    game = op.LinearAdversarialProblem(0.1, 0.05, 0.0, 1.0, 1.0, radius=2.0)
    c = ob.algorithm_3_from_problem(X, y, prob, 1.0, 0.0, np.random.default_rng(4), mu=0.1, r=0.05)
    e = op.algorithm_3(X, y, game, 1.0, 0.0, np.random.default_rng(4))
    np.testing.assert_array_equal(c.output, e.output)
    with pytest.raises(TypeError, match="problem"):
        ob.robust_erm_from_problem(X, y, game, 1.0, 0.0, np.random.default_rng(0), rho=0.1, mu=0.1)
    with pytest.raises(TypeError, match="problem"):
        ob.algorithm_3_from_problem(X, y, "not a problem", 1.0, 0.0, np.random.default_rng(0), mu=0.1, r=0.05)
