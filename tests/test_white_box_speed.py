"""Issue 29: the auditor's per-run path and the white-box audit's chunks, made cheaper without changing a number.

False-failure budget: every test here is deterministic (bit-for-bit comparisons of rows and statistics drawn
from the same streams, and numerical identities of exact distributions); no test has a stochastic assertion.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import pytest
from scipy.special import ndtr

import dpsco.reference.bftt19 as o
from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
from dpsco.verification.auditing.clopper_pearson import epsilon_lower_bound
from dpsco.verification.auditing.inputs import as_real_output
from dpsco.verification.auditing.samples import draw, task_sizes
from dpsco.verification.auditing.white_box import (ClaimedStep, OneSidedCanary, _statistics_of_sides, claimed_step,
                                                   llr_statistic, white_box_audit)
from dpsco.verification.auditing.white_box_limit import _limit, composed_loss_pmfs, curve_epsilon, threshold_limit
from dpsco.verification.executors import ProcessExecutor


# ------------------------------------------------------------------ draw: the rows of the previous path, bit for bit
class Outputs:
    """A plain mechanism (no ``sample``) whose output type is chosen by ``kind`` (picklable)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> Any:
        v = float(data["x"].sum()) + rng.laplace()
        if self.kind == "float":
            return v
        if self.kind == "float64":
            return np.float64(v)
        if self.kind == "array":
            return np.array([v, rng.standard_normal()])
        if self.kind == "float32":
            return np.float32(v)
        if self.kind == "int":
            return int(rng.integers(0, 100))
        if self.kind == "list":
            return [v, 2.0 * v]
        if self.kind == "0d":
            return np.array(v)
        if self.kind == "mixed":  # a float first, then arrays: the general path takes over mid-task
            return v if rng.random() < 0.5 else np.array([v])
        raise AssertionError(self.kind)


def legacy_rows(mechanism: Any, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
    """The per-run path before issue 29, written out: same task split and seeds as ``draw``, one
    ``as_real_output(...).ravel()`` per run, one ``np.stack`` of every row."""
    sizes = task_sizes(n)
    seeds = np.random.SeedSequence(int(rng.integers(0, 2**63))).spawn(len(sizes))
    rows = []
    for k, s in zip(sizes, seeds):
        r = np.random.default_rng(s)
        rows.extend(as_real_output(mechanism(data, r)).ravel() for _ in range(k))
    return np.stack(rows)


DATA = {"x": np.array([0.0, 1.0, 0.5])}


@pytest.mark.parametrize("kind", ["float", "float64", "array", "float32", "int", "list", "0d", "mixed"])
@pytest.mark.parametrize("n", [1, 7, 300, 1000])
def test_draw_rows_are_bit_identical_to_the_previous_per_run_path(kind: str, n: int) -> None:
    new, _ = draw(Outputs(kind), DATA, n, np.random.default_rng(11), "dataset")
    old = legacy_rows(Outputs(kind), DATA, n, np.random.default_rng(11))
    assert new.dtype == np.float64 and new.shape == old.shape
    assert np.array_equal(new.view(np.uint64), old.view(np.uint64))  # bit for bit (deterministic)


def test_draw_rows_are_the_same_in_a_process_pool() -> None:
    old = legacy_rows(Outputs("float"), DATA, 2000, np.random.default_rng(5))
    with ProcessExecutor(2) as pool:
        new, _ = draw(Outputs("float"), DATA, 2000, np.random.default_rng(5), "dataset", workers=pool)
    assert np.array_equal(new.view(np.uint64), old.view(np.uint64))


class Widths:
    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> Any:
        return rng.random() if rng.random() < 0.9 else np.zeros(2)


def test_draw_still_names_inconsistent_sizes_and_refuses_complex_outputs() -> None:
    with pytest.raises(ValueError, match=r"inconsistent sizes \(1 and 2\)"):
        draw(Widths(), DATA, 500, np.random.default_rng(0), "neighbour")
    with pytest.raises(ValueError, match="complex"):
        draw(lambda d, r: complex(r.random(), 1.0), DATA, 10, np.random.default_rng(0), "dataset")
    with pytest.raises(ValueError, match="NaN or infinite"):
        draw(lambda d, r: float("nan"), DATA, 10, np.random.default_rng(0), "dataset")


# ------------------------------------------------------------------ the white-box chunks: same S on every executor
PROBLEM = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(1.0, 1.0))
CANARY = OneSidedCanary(16, (np.array([1.0]), 0.0), (np.array([-1.0]), 0.0))


class NSGDRun:
    """White-box runs of A_NSGD at n = 16, (ε, δ) = (1, 1/256) (picklable for the process pool)."""

    def __call__(self, data: Mapping[str, np.ndarray], R: int, rng: np.random.Generator) -> Any:
        return o.noisy_sgd(data["X"], data["y"], PROBLEM, 1.0, 1 / 256, rng, replicates=R, white_box=True).white_box


def _claim() -> Any:
    ds, _ = CANARY.datasets()
    return o.noisy_sgd(ds["X"], ds["y"], PROBLEM, 1.0, 1 / 256, np.random.default_rng(0)).claim


def test_chunk_i_draws_from_child_i_and_the_pool_gives_the_same_statistics() -> None:
    step = claimed_step(_claim())
    sides = list(CANARY.datasets())
    S_serial, params = _statistics_of_sides(NSGDRun(), sides, CANARY, step, 230, 100,
                                            [np.random.default_rng(1), np.random.default_rng(2)], None)
    with ProcessExecutor(2) as pool:
        S_pool, _ = _statistics_of_sides(NSGDRun(), sides, CANARY, step, 230, 100,
                                         [np.random.default_rng(1), np.random.default_rng(2)], pool)
    # the reference, written out: chunks of 100, 100, 30; chunk i of side j on child i of rng j
    for j, (data, seed) in enumerate(zip(sides, (1, 2))):
        kids = np.random.default_rng(seed).spawn(3)
        ref = np.concatenate([llr_statistic(*CANARY.observe(NSGDRun()(data, R, g)), step)
                              for R, g in zip((100, 100, 30), kids)])
        assert np.array_equal(S_serial[j], ref) and np.array_equal(S_pool[j], ref)  # deterministic
    assert params["n"] == 16 and params["T"] == step.steps


def test_white_box_audit_is_the_same_with_workers() -> None:
    kw = dict(confidence=0.95, epsilon_true=False, chunk=64, pilot_runs=64, model_draws=20_000)
    a = white_box_audit(NSGDRun(), CANARY, _claim(), 150, np.random.default_rng(9), **kw)
    with ProcessExecutor(2) as pool:
        b = white_box_audit(NSGDRun(), CANARY, _claim(), 150, np.random.default_rng(9), workers=pool, **kw)
    assert a.counts == b.counts and a.event == b.event and a.parameters == b.parameters  # deterministic


def test_a_local_run_is_refused_with_a_pool_in_words() -> None:
    def run(data, R, rng):  # a closure: not picklable
        return NSGDRun()(data, R, rng)

    with pytest.raises(TypeError, match="picklable"):
        white_box_audit(run, CANARY, _claim(), 10, np.random.default_rng(0), workers=2, pilot_runs=8,
                        model_draws=20_000, epsilon_true=False)


# ------------------------------------------------------------------ the information limit
def test_limit_of_one_gaussian_step_matches_the_closed_form() -> None:
    """T = 1, every draw shifts by 1 (k = 1 w.p. 1): y ~ N(0, ζ²) vs N(1, ζ²), loss ℓ(y) = (2y − 1)/(2ζ²).  The
    likelihood-ratio events are {y ≥ t}: P = Φ((1 − t)/ζ), Q = Φ(−t/ζ) (hand derivation)."""
    zeta, runs, delta, conf, h = 0.5, 10_000, 1e-5, 0.95, 1e-4
    step = ClaimedStep(zeta, np.array([0.0, 1.0]), np.array([0.0, 1.0]), 1)
    s, P, Q = composed_loss_pmfs(step, h)
    # the event {rounded loss ≥ s_i} is {ℓ ≥ s_i − h/2}, i.e. y ≥ t_i = ((s_i − h/2)·2ζ² + 1)/2
    t = ((s - h / 2) * 2 * zeta**2 + 1) / 2
    tail_p, tail_q = np.cumsum(P[::-1])[::-1], np.cumsum(Q[::-1])[::-1]
    # y-quadrature (Riemann sum, step 1.75e-5) against Φ: error ≤ step × max density ≈ 1.4e-5
    assert np.max(np.abs(tail_p - ndtr((1 - t) / zeta))) < 2e-5
    assert np.max(np.abs(tail_q - ndtr(-t / zeta))) < 2e-5
    lim = threshold_limit(step, runs, delta, conf, h)
    i = int(np.argmin(np.abs(s - lim["threshold"])))
    # the reported ε_lb is the CP bound of the closed-form probabilities at its own threshold, up to the
    # quadrature (a count can move by one where R·P or R·Q sits within 1e-5·R of an integer: not here)
    e = float(epsilon_lower_bound(math.floor(runs * ndtr((1 - t[i]) / zeta)), runs,
                                  math.ceil(runs * ndtr(-t[i] / zeta)), runs, delta, conf))
    assert abs(lim["epsilon_lower"] - e) < 1e-12
    # the exact Gaussian curve's ε at δ (Balle & Wang 2018, Theorem 8) against the composed pmfs
    mu = 1.0 / zeta
    eps_true = lim["epsilon_true"]
    d = ndtr(mu / 2 - eps_true / mu) - math.exp(eps_true) * ndtr(-mu / 2 - eps_true / mu)
    assert abs(d - delta) < 1e-6  # the rounding of the loss to h = 1e-4 moves δ(ε) by ≲ h·|dδ/dε| ≲ 1e-6


def test_limit_epsilon_true_matches_the_accountant_and_the_limit_grows_with_runs() -> None:
    claim = _claim()
    step = claimed_step(claim)
    s, P, Q = composed_loss_pmfs(step)
    assert abs(P.sum() - 1) < 1e-9 and abs(Q.sum() - 1) < 1e-9
    # dp_accounting's PLD (pessimistic, its own discretisation) is an independent computation of the same curve
    assert abs(curve_epsilon(s, P, Q, claim.delta) - claim.event_epsilon(claim.delta)) < 2e-2
    small, large = (_limit(P, Q, s, r, claim.delta, 0.95)["epsilon_lower"] for r in (10_000, 1_000_000))
    assert 0 < small < large < claim.event_epsilon(claim.delta)
