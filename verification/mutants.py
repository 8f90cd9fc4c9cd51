"""Planted bugs: deliberately wrong variants of our algorithms that a privacy audit must catch.

A privacy audit that never fails proves nothing (DESIGN.md).  Each mutant here reproduces a realistic bug
(prior-art.md B.9, spec optimal-rates §9.1) in a copy of the real algorithm, with everything else identical,
and documents its *true* privacy so that tests can state the margin by which it violates its claim.
The mutants keep the correct algorithm's claim: that is the point — the claim is now false.

**Never use these for anything but testing auditors.**
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reference import optimal_rates as o
from reference.certified import certified_minimize
from reference.privacy import Release
from reference.problem import ERMProblem

__all__ = ["nsgd_noise_divided_by_batch", "objp_noise_scaled_by_n"]


def nsgd_noise_divided_by_batch(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_NSGD with σ divided by the batch size m (the "noise multiplier × clip / batch" convention of
    [ACG+16] applied to Algorithm 1's σ, which already refers to the mean gradient; spec §9.1 item 2).

    True privacy: one step on the linear canary is the with-replacement mixture pair with σ/m
    (``oracles.privacy_curves.nsgd_one_step_canary_epsilon`` with ``sigma / m``).
    """
    correct = o.noisy_sgd(X, y, problem, epsilon, delta, np.random.default_rng(0))  # validation, parameters, claim
    p = correct.parameters
    Xa, ya, _ = problem.check(X, y)
    n, d = Xa.shape
    wbar, _ = o.nsgd_core(o._glm_grad_fn(problem, Xa, ya), n, d, problem.domain, T=p["T"], m=p["m"], eta=p["eta"],
                          sigma2=p["sigma2"] / p["m"] ** 2,  # BUG: σ/m instead of σ
                          clip_norm=problem.lipschitz, rng=rng, replicates=1 if replicates is None else replicates)
    return Release(output=wbar[0] if replicates is None else wbar, claim=correct.claim,
                   gradient_evaluations=p["T"] * p["m"], parameters={**p, "sigma2": p["sigma2"] / p["m"] ** 2},
                   algorithm="MUTANT: A_NSGD with σ/m")


def objp_noise_scaled_by_n(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                           rng: np.random.Generator) -> Release:
    """A_ObjP with σ² = 10L² log(1/δ)/(ε²n²): the 1/n² of output perturbation put into Algorithm 2's σ², whose
    1/n is already in the objective's ⟨G, w⟩/n (spec §9.1 item 6(iv)).

    True privacy on the linear loss: the Gaussian mechanism with replace-one sensitivity 2L on Σ z_i and noise
    standard deviation σ/n, i.e. μ = 2Ln/σ (``oracles.privacy_curves.gaussian_epsilon(δ, 2L, σ/n)``).
    """
    correct = o.objective_perturbation(X, y, problem, epsilon, delta, np.random.default_rng(0))
    Xa, ya, _ = problem.check(X, y)
    n, d = Xa.shape
    lam = correct.parameters["lambda"]
    sigma2 = correct.parameters["sigma2"] / n**2  # BUG
    G = math.sqrt(sigma2) * rng.standard_normal(d)
    sol = certified_minimize(problem.loss, Xa, ya, problem.domain, lam=lam, linear=G / n, tol=1e-10)
    return Release(output=sol.w, claim=correct.claim, gradient_evaluations=0,
                   parameters={**correct.parameters, "sigma2": sigma2}, algorithm="MUTANT: A_ObjP with σ²/n²")
