"""The replicate axis of A_ObjP and efficient objective perturbation (Bassily et al. 2019, Algorithm 2 and Sec. 5)
against their single runs, which are the reference.

Stream layout (``dpsco.reference.bftt19.objp_replicates``): replicate r of a call with ``replicates=k`` on
``default_rng(s)`` consumes ``default_rng(s).spawn(k)[r]`` exactly as a single call consumes its generator.  So the
two paths solve the *same* perturbed objectives, and their outputs must agree within the sum of their certified
distances to the common exact minimiser (triangle inequality; for the efficient variant the step-3 noise is also
the same, and the projection onto W is non-expansive).  Every assertion is such a certified inequality on fixed
seeds: deterministic, no false-failure probability to budget.

Planted bug: a generator whose ``spawn(k)`` hands every replicate the same child stream (a batched version that
reuses one perturbation, one index stream and one output noise for all replicates); the same comparison refutes it.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpsco.reference.bftt19 as o
import dpsco.reference.bftt19.objp as alg
from dpsco.reference import Ball, DataBounds, ERMProblem, LogisticLoss
from dpsco.reference.bftt19.objp_replicates import batched_certificates
from dpsco.reference.solvers import certified_minimize


def logistic_data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-X @ np.ones(d))), 1.0, -1.0)
    return X, y


def problem(M: float = 2.0) -> ERMProblem:
    return ERMProblem(LogisticLoss(), Ball(M), DataBounds(1.0, 1.0))


N, D = 400, 3
EPS, DELTA = 1.0, 1.0 / N**2
OBJP, EFFICIENT = o.objective_perturbation, o.efficient_objective_perturbation


class OneStreamGenerator(np.random.Generator):
    """PLANTED BUG: ``spawn(k)`` returns k copies of one child, so every replicate draws the same G (and, for the
    efficient variant, the same SVRG indices and output noise)."""

    def spawn(self, n_children: int) -> list[np.random.Generator]:
        child = super().spawn(1)[0]
        return [copy.deepcopy(child) for _ in range(n_children)]


def _distance(release) -> float:
    return float(release.diagnostics["certificate"]["distance_bound"])


def _disagreements(fn, X, y, prob, seed: int, k: int, rng=None, **kw) -> np.ndarray:
    """‖batched_r − single_r‖ minus the certified allowance (batched worst distance + single row's distance) for
    r < k: every entry ≤ 0 when the paths solve the same objectives.  ``rng``: the batched call's generator
    (default ``default_rng(seed)``); single run r uses ``default_rng(seed).spawn(k)[r]``."""
    batched = fn(X, y, prob, EPS, 1.0 / X.shape[0] ** 2, rng or np.random.default_rng(seed), replicates=k, **kw)
    assert batched.replicates == k and batched.output.shape == (k, X.shape[1])
    children = np.random.default_rng(seed).spawn(k)
    out = []
    for r in range(k):
        single = fn(X, y, prob, EPS, 1.0 / X.shape[0] ** 2, children[r], **kw)
        out.append(np.linalg.norm(batched.output[r] - single.output) - (_distance(batched) + _distance(single)))
    return np.array(out)


# -- same numbers from the same seeds ---------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [OBJP, EFFICIENT], ids=["objp", "efficient_objp"])
def test_batched_rows_are_the_single_runs_of_their_child_streams(fn):
    X, y = logistic_data(N, D)
    gaps = _disagreements(fn, X, y, problem(), seed=11, k=5)
    assert np.all(gaps <= 0), gaps  # certified: both within their distance bounds of the same minimiser


@pytest.mark.parametrize("fn", [OBJP, EFFICIENT], ids=["objp", "efficient_objp"])
def test_planted_bug_one_perturbation_for_all_replicates_is_caught(fn):
    X, y = logistic_data(N, D)
    buggy = OneStreamGenerator(np.random.PCG64(np.random.SeedSequence(11)))  # same entropy as default_rng(11)
    gaps = _disagreements(fn, X, y, problem(), seed=11, k=5, rng=buggy)
    assert gaps[0] <= 0  # row 0 uses child 0 in both paths: still agrees
    assert np.all(gaps[1:] > 0), gaps  # rows 1..4 reuse child 0's perturbation: refuted


def test_rows_on_the_boundary_of_W_fall_back_to_the_single_run_solver_and_still_agree():
    """Small n and a small ball: the perturbed unconstrained minimisers leave W = B(0, 0.1), the batched Newton
    cannot certify them, and the single-run solver (multiplier search) takes over, to the same tolerance."""
    X, y = logistic_data(60, 2, seed=3)
    prob = problem(M=0.1)
    kw = dict(lam=0.01, override_preconditions=True)  # a small λ: ‖G/n‖/(2λ + curvature) ≫ 0.1
    r = OBJP(X, y, prob, EPS, 1.0 / 60**2, np.random.default_rng(5), replicates=4, **kw)
    assert r.diagnostics["single_run_fallbacks"] >= 1
    assert np.all(np.linalg.norm(r.output, axis=1) <= 0.1)
    gaps = _disagreements(OBJP, X, y, prob, seed=5, k=4, **kw)
    assert np.all(gaps <= 0), gaps


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 4), d=st.integers(1, 4))
def test_property_objp_rows_agree_with_single_runs(seed, k, d):
    X, y = logistic_data(150, d, seed=seed % 1000)
    gaps = _disagreements(OBJP, X, y, problem(), seed=seed, k=k)
    assert np.all(gaps <= 0), gaps


def test_batched_certificate_claim_and_rows():
    X, y = logistic_data(N, D)
    r = OBJP(X, y, problem(), EPS, DELTA, np.random.default_rng(2), replicates=3, solver_tol=1e-9)
    assert _distance(r) <= 1e-9  # every row certified to solver_tol; the diagnostics carry the worst
    assert r.diagnostics["certified"] is True
    # the claim states the solver's public target, never the certificate reached (a function of the data)
    assert "1e-09" in " ".join(r.claim.conditions) and f"{_distance(r):.3g}" not in " ".join(r.claim.conditions)
    assert r.claim.notion == "approx-DP" and r.claim.epsilon == EPS
    assert len({tuple(row) for row in r.output}) == 3
    one = OBJP(X, y, problem(), EPS, DELTA, np.random.default_rng(2), replicates=1)
    assert one.output.shape == (1, D)


# -- the batched certificate covers the true distance --------------------------------------------------------------


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-2, 1e-5, 1e-8, 1e-11]))
def test_batched_certificate_bounds_the_distance_to_an_independently_solved_minimiser(seed, scale):
    """Points at distance ~scale from the minimisers of three perturbed objectives: the batched bound must cover
    ‖w − ŵ‖ ≥ ‖w − w_ref‖ − dist_ref, with w_ref the single-run solver's point certified to 1e-13 (its own,
    independent fsum certificate)."""
    rng = np.random.default_rng(seed)
    X, y = logistic_data(200, 3, seed=seed % 997)
    lam = 0.05
    C = rng.normal(size=(3, 3)) * 0.05
    refs = [certified_minimize(LogisticLoss(), X, y, Ball(2.0), lam=lam, linear=c, tol=1e-13) for c in C]
    W = np.stack([s.w for s in refs]) + scale * rng.normal(size=(3, 3))
    certs = batched_certificates(LogisticLoss(), X, y, Ball(2.0), W, lam=lam, linear=C)
    for w, s, cert in zip(W, refs, certs):
        assert cert.distance_bound is not None
        assert cert.distance_bound >= np.linalg.norm(w - s.w) - s.certificate.distance_bound
        # informative too: the bound is ≤ ‖∇F(w)‖/μ ≤ (β_F/μ)·‖w − ŵ‖ with β_F ≤ 1/4 + 2λ (‖x‖ ≤ 1) and μ = 2λ, so
        # ≤ 3.5·‖w − ŵ‖, plus the rounding allowance (≤ 1e-13/μ here)
        assert cert.distance_bound <= 3.5 * (np.linalg.norm(w - s.w) + s.certificate.distance_bound) * (1 + 1e-6) + 1e-11


# -- validation before any work ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [OBJP, EFFICIENT], ids=["objp", "efficient_objp"])
@pytest.mark.parametrize("bad", [0, -2, 2.0, "3", True, [2]])
def test_bad_replicates_fail_before_any_work(fn, bad, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("work started before replicates was validated")

    for name in ("batched_objp_minimize", "batched_prox_svrg", "certified_or_best", "certify"):
        monkeypatch.setattr(alg, name, boom)
    X, y = logistic_data(50, 2)
    with pytest.raises((ValueError, TypeError), match="replicates"):
        fn(X, y, problem(), EPS, 1.0 / 50**2, np.random.default_rng(0), replicates=bad)


# -- the real data of dpsco verify ----------------------------------------------------------------------------------


def test_fair_data_rows_agree_with_single_runs():
    """The catalogue's instance (Fair, n = 6366, d = 9, W = B(0, 2), ε = 1, δ = 1/n²): three rows of each."""
    from dpsco.verification.campaign.datasets import load_fair

    data = load_fair()
    for fn in (OBJP, EFFICIENT):
        gaps = _disagreements(fn, data.X, data.y, problem(), seed=4, k=3)
        assert np.all(gaps <= 0), (fn.__name__, gaps)
    assert math.isfinite(float(gaps.max()))
