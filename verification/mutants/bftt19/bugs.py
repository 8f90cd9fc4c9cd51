"""Planted bugs: deliberately wrong variants of our algorithms that a privacy audit must catch.

A privacy audit that never fails proves nothing.  Each mutant here reproduces a realistic bug (a bug class
seen in public DP libraries, cited where there is a public precedent, or a way to misread the paper's
pseudo-code) in a copy of the real algorithm, with everything else identical, and documents its *true*
privacy so that tests can state the margin by which it violates its claim (docs/planted-bugs.md).
The mutants keep the correct algorithm's claim: that is the point — the claim is now false.

**Never use these for anything but testing auditors.**
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

import dpsco.reference.bftt19 as o
from dpsco.reference.solvers import certified_minimize
from dpsco.reference.privacy import Release
from dpsco.verification.mutants.utility import release_last_record
from dpsco.reference.problem import ERMProblem
from dpsco.reference.white_box import NoisyGradientTrace

__all__ = ["nsgd_noise_divided_by_batch", "objp_noise_scaled_by_n"]


def nsgd_noise_divided_by_batch(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_NSGD with σ divided by the batch size m (the "noise multiplier × clip / batch" convention of
    [ACG+16] applied to Algorithm 1's σ, which already refers to the mean gradient: Algorithm 1, line 6 adds
    G_t ~ N(0, σ²I) to the *mean* of the m gradients).

    True privacy: one step on the linear canary is the with-replacement mixture pair with σ/m
    (``dpsco.oracles.privacy_curves.nsgd_one_step_canary_epsilon`` with ``sigma / m``).
    """
    correct = o.noisy_sgd(X, y, problem, epsilon, delta, np.random.default_rng(0))  # validation, parameters, claim
    p = correct.parameters
    Xa, ya, _ = problem.check(X, y)
    n, d = Xa.shape
    wbar, _ = o.nsgd_core(o.glm_gradient_oracle(problem, Xa, ya), n, d, problem.domain, T=p["T"], m=p["m"],
                          eta=p["eta"], sigma2=p["sigma2"] / p["m"] ** 2,  # BUG: σ/m instead of σ
                          clip_norm=problem.lipschitz, rng=rng, replicates=1 if replicates is None else replicates)
    return Release(output=wbar[0] if replicates is None else wbar, replicates=replicates, claim=correct.claim,
                   gradient_evaluations=p["T"] * p["m"], parameters={**p, "sigma2": p["sigma2"] / p["m"] ** 2},
                   algorithm="MUTANT: A_NSGD with σ/m")


def objp_noise_scaled_by_n(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                           rng: np.random.Generator) -> Release:
    """A_ObjP with σ² = 10L² log(1/δ)/(ε²n²): the 1/n² of output perturbation put into Algorithm 2's σ², whose
    1/n is already in the objective's ⟨G, w⟩/n (Algorithm 2, lines 1–2).

    True privacy on the linear loss: the Gaussian mechanism with replace-one sensitivity 2L on Σ z_i and noise
    standard deviation σ/n, i.e. μ = 2Ln/σ (``dpsco.oracles.privacy_curves.gaussian_epsilon(δ, 2L, σ/n)``).
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


# =================================================================================================
# The planted-bug corpus of issue 3 (registry, canaries, true ε and detection rates: planted_bugs.py)
# =================================================================================================
#
# Every NSGD-family mutant below runs ``_mutant_nsgd_core``, a copy of ``dpsco.reference.bftt19.nsgd_core``
# with keyword switches; the default of every switch is the correct algorithm (checked by a test: with all
# defaults the copy reproduces ``noisy_sgd`` bit for bit), and each public mutant flips exactly ONE switch.

__all__ += [
    "nsgd_noise_scaled_0p7",
    "nsgd_sensitivity_without_factor_2",
    "nsgd_clip_after_averaging",
    "nsgd_sampling_without_replacement",
    "nsgd_normalised_by_private_count",
    "nsgd_data_dependent_clipping",
    "nsgd_data_dependent_stopping",
    "nsgd_noise_outside_step",
    "nsgd_printed_calibration",
    "objp_inexact_warm_start",
    "objp_regulariser_dropped",
    "objp_linear_argmin",
    "objp_logistic_1d_argmin",
]

Sampling = str  # "with-replacement" (correct) | "without-replacement"


def _mutant_nsgd_core(
    X: np.ndarray, n: int, d: int, domain: Any, *, T: int, m: int, eta: float, sigma2: float, clip_norm: float,
    rng: np.random.Generator, replicates: int, grad_fn: Any, full_grad_fn: Any = None,
    sampling: Sampling = "with-replacement", clip: str = "per-sample", normaliser: str = "m",
    noise: str = "gradient", stop_tol: float | None = None, trace_out: dict[str, Any] | None = None,
) -> np.ndarray:
    """Copy of ``nsgd_core`` (average="paper") with one switch per planted bug; defaults = the correct loop.

    Switches (the non-default value is the bug):
    sampling "without-replacement": m *distinct* indices per step (a fixed-size batch drawn without
        replacement) while the claim's accountant assumes i.i.d. with-replacement draws.
    clip "mean": the batch *mean* is clipped to ``clip_norm`` instead of every per-sample gradient.
    normaliser "non-null": the batch sum is divided by the number of its non-null records (rows with
        x ≠ 0: padding excluded) instead of the public m.
    noise "iterate": w ← Proj(w − ηg + G): the noise is added to the iterate, not inside the η-scaled step.
    stop_tol: stop (per run) before any step at which the non-private full gradient ‖∇L̂(w_t)‖ ≤ stop_tol;
        the output is the average of the iterates computed so far (w_0 if none).
    trace_out: if a dict, receives "iterates" (R, T+1, d) and "noisy_gradients" (R, T, d) (the white-box view,
        as ``nsgd_core(return_noisy_gradients=True)``).
    """
    idx_rng, noise_rng = rng.spawn(2)
    sigma = math.sqrt(sigma2)
    w = np.broadcast_to(domain.project(np.zeros(d)), (replicates, d)).copy()
    total = np.zeros((replicates, d))
    steps = np.zeros(replicates)
    active = np.ones(replicates, dtype=bool)
    nonnull = np.linalg.norm(X, axis=1) > 0
    iterates, noisy = [w.copy()], []
    for _ in range(T):
        if stop_tol is not None:  # BUG (data-dependent stopping): a non-private convergence test
            active &= np.linalg.norm(full_grad_fn(w), axis=1) > stop_tol
        if sampling == "with-replacement":
            idx = idx_rng.integers(0, n, size=(replicates, m))
        else:  # BUG: m distinct indices per step
            idx = np.argsort(idx_rng.random((replicates, n)), axis=1)[:, :m]
        grads = grad_fn(w, idx)
        if clip == "per-sample":
            norms = np.linalg.norm(grads, axis=2)
            scale = np.minimum(1.0, clip_norm / np.where(norms > 0, norms, 1.0))
            grads = grads * scale[:, :, None]
        if normaliser == "m":
            g = grads.mean(axis=1)
        else:  # BUG: divide by a data-dependent count
            count = nonnull[idx].sum(axis=1)
            g = grads.sum(axis=1) / np.maximum(count, 1)[:, None]
        if clip == "mean":  # BUG: clipping after averaging
            gn = np.linalg.norm(g, axis=1, keepdims=True)
            g = g * np.minimum(1.0, clip_norm / np.where(gn > 0, gn, 1.0))
        G = sigma * noise_rng.standard_normal((replicates, d))
        if noise == "gradient":
            w_new = domain.project(w - eta * (g + G))
        else:  # BUG: noise added to the iterate (outside the η-scaled step), before the projection
            w_new = domain.project(w - eta * g + G)
        w = np.where(active[:, None], w_new, w)
        total += np.where(active[:, None], w, 0.0)
        steps += active
        if trace_out is not None:
            iterates.append(w.copy())
            noisy.append(g + G)
    if trace_out is not None:
        trace_out["iterates"], trace_out["noisy_gradients"] = np.stack(iterates, axis=1), np.stack(noisy, axis=1)
    w0 = domain.project(np.zeros(d))
    return np.where(steps[:, None] > 0, total / np.maximum(steps, 1)[:, None], w0[None, :])


def _nsgd_mutant(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator,
                 replicates: int | None, label: str, *, sigma_factor: float = 1.0, clip_to_data_max: bool = False,
                 data_clip: bool = False, stop_tol: float | None = None, white_box: bool = False,
                 **switches: Any) -> Release:
    """Shared body: parameters and claim from the correct ``noisy_sgd``; one bug from the arguments."""
    correct = o.noisy_sgd(X, y, problem, epsilon, delta, np.random.default_rng(0), clip=data_clip)
    p = dict(correct.parameters)
    L = problem.lipschitz
    if data_clip:  # the mutant that claims clip=True but does not clip the records
        Xa, ya = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    else:
        Xa, ya, _ = problem.check(X, y)
    n, d = Xa.shape
    grad_fn = o.glm_gradient_oracle(problem, Xa, ya)
    sigma2 = p["sigma2"] * sigma_factor**2
    clip_norm = L
    if clip_to_data_max:  # BUG (data-dependent clipping): C = max_i ‖∇ℓ(w_0, z_i)‖, noise scaled to C
        w0 = problem.domain.project(np.zeros(d))
        C = float(np.max(np.linalg.norm(grad_fn(w0[None, :], np.arange(n)[None, :])[0], axis=1)))
        sigma2 = p["sigma2"] * (C / L) ** 2
        clip_norm = C

    def full_grad_fn(W: np.ndarray) -> np.ndarray:
        return grad_fn(W, np.broadcast_to(np.arange(n), (W.shape[0], n))).mean(axis=1)

    R = 1 if replicates is None else int(replicates)
    trace: dict[str, Any] | None = {} if white_box else None
    wbar = _mutant_nsgd_core(Xa, n, d, problem.domain, T=p["T"], m=p["m"], eta=p["eta"], sigma2=sigma2,
                             clip_norm=clip_norm, rng=rng, replicates=R, grad_fn=grad_fn, full_grad_fn=full_grad_fn,
                             stop_tol=stop_tol, trace_out=trace, **switches)
    view = None
    if trace is not None:  # what a white-box adversary sees of the mutant (the noise it actually draws)
        view = NoisyGradientTrace(iterates=trace["iterates"], noisy_gradients=trace["noisy_gradients"],
                                  record_gradient=o.glm_record_gradient(problem, clip_norm), n=n, m=p["m"], T=p["T"],
                                  sigma=math.sqrt(sigma2), clip_norm=clip_norm, eta=p["eta"],
                                  algorithm=f"MUTANT: A_NSGD with {label}")
    return Release(output=wbar[0] if replicates is None else wbar, replicates=replicates, claim=correct.claim,
                   gradient_evaluations=p["T"] * p["m"], parameters={**p, "sigma2_used": sigma2},
                   algorithm=f"MUTANT: A_NSGD with {label}", white_box=view)


def nsgd_noise_scaled_0p7(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                          rng: np.random.Generator, *, replicates: int | None = None,
                          white_box: bool = False) -> Release:
    """A_NSGD with σ × 0.7 (a calibration off by a constant, e.g. a σ search returning the wrong end of
    its bracket; public precedent: Opacus issue #346).

    Not a violation on the T = 1 symmetric canary (exact ε 0.87 < 1: the correct algorithm's ε there is only
    0.54), but the certified σ is tight on the one-sided pair (exact ε 0.998 at claim 1), where 0.7σ gives an
    exact ε of 2.11 (planted_bugs.py)."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "σ × 0.7", sigma_factor=0.7,
                        white_box=white_box)


def nsgd_sensitivity_without_factor_2(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                      rng: np.random.Generator, *, replicates: int | None = None,
                                      white_box: bool = False) -> Release:
    """A_NSGD with σ calibrated to the add/remove sensitivity L of one record's gradient instead of the
    replace-one sensitivity 2L of the difference of two (σ/2), under the replace-one claim
    (sensitivity mis-computation: [ACG+16], behind Theorem 3.1, is stated for add/remove neighbours, the claim
    for replace-one)."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "σ/2 (sensitivity L, not 2L)",
                        sigma_factor=0.5, white_box=white_box)


def nsgd_clip_after_averaging(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                              rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """``noisy_sgd(clip=True)`` implemented by clipping the batch *mean* gradient to L instead of clipping
    the records (equivalently every per-sample gradient): one out-of-bound record then moves the mean by up
    to 2L instead of 2L/m (sensitivity mis-computation by the batch-size factor, cf. Tramèr et al. 2022,
    "Debugging differential privacy: a case study for privacy auditing").  The claim is the one
    ``noisy_sgd(clip=True)`` makes."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "mean-gradient clipping",
                        data_clip=True, clip="mean")


def nsgd_sampling_without_replacement(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                      rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_NSGD drawing m *distinct* indices per step (fixed-size batch without replacement) under the
    with-replacement claim (a sampling scheme other than the accountant's; public precedent: Opacus issue #80).

    Not a violation on the T = 1 canaries (exact ε 0.53 < 0.54 of the correct algorithm on the symmetric pair,
    0.71 on the one-sided pair: at most one copy of the canary per batch).  The violating variants of this bug
    class (shuffled epochs, cyclic batches: ε ≈ 8.3 instead of 1 at n = 10⁴, d = 10,
    ``docs/derivations.md#accountants-for-the-printed-calibration-of-algorithm-1``) need many steps and a
    trajectory (white-box) audit."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "sampling without replacement",
                        sampling="without-replacement")


def nsgd_normalised_by_private_count(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                     rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_NSGD whose batch mean divides by the number of *non-null* records in the batch (padding rows
    x = 0 excluded) instead of the public m: a private count in the normaliser (public precedents: Opacus
    issues #571 and #819).  On the null canary the mean is the
    canary's full gradient whenever it is drawn at all."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "mean over non-null records",
                        normaliser="non-null")


def nsgd_data_dependent_clipping(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                 rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_NSGD with the clipping threshold C = max_i ‖∇ℓ(w_0, z_i)‖ taken from the data ("tight clipping")
    and σ scaled by C/L: the Lipschitz constant estimated from the data, where Algorithm 1 takes L as a public
    input.  On the null canary C = 0 on the neighbour: no noise at all."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "clip threshold from the data",
                        clip_to_data_max=True)


def nsgd_data_dependent_stopping(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                                 rng: np.random.Generator, *, replicates: int | None = None,
                                 tol: float = 1e-6) -> Release:
    """A_NSGD that stops early when the non-private full gradient norm ‖∇L̂(w_t)‖ ≤ tol ("converged"),
    returning the average of the iterates so far: a stopping time chosen from the data, where Algorithm 1's T is
    a public input."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, f"early stopping at ‖∇L̂‖ ≤ {tol:g}",
                        stop_tol=tol)


def nsgd_noise_outside_step(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                            rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_NSGD with w_{t+1} = Proj_W(w_t − ηg + G_t): the noise is added to the iterate before the projection
    instead of to the gradient inside the η-scaled step, so the effective gradient noise is σ/η
    (Algorithm 1, line 6 puts G_t inside the η-scaled step)."""
    return _nsgd_mutant(X, y, problem, epsilon, delta, rng, replicates, "noise on the iterate (σ/η)",
                        noise="iterate")


def nsgd_printed_calibration(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                             rng: np.random.Generator, *, replicates: int | None = None, T: int | None = None,
                             eta: float | None = None) -> Release:
    """A_NSGD with Theorem 3.1's printed noise σ² = 8TL² log(1/δ)/(n²ε²) under the requested (ε, δ) claim:
    the behaviour before the worst-pair accountant (ERRATA.md BFTT19-E4, ``dpsco.reference.bftt19.accounting``).

    The run is the real ``noisy_sgd(..., calibration="printed")`` (same T, m, η, σ, sampling and noise
    streams); only the claim is wrong.  ``noisy_sgd`` itself, with the printed calibration, states the
    accountant's δ in its claim (honest); this mutant returns instead the claim of the correct (certified)
    ``noisy_sgd`` on the same inputs, i.e. (ε, δ) as requested — the pre-fix claim.  ``T`` and ``eta`` are
    passed to both (utility overrides; σ² and m follow T by Algorithm 1's lines 1–2).

    True privacy: at T = 1 on the one-sided pair (``dpsco.verification.auditing.neighbours.canary_pair(neighbour="one-sided")``:
    every other record shares the replaced record's gradient) one step releases a post-processing of
    Q = N(0, σ²) vs P = Σ_k Bin(m, 1/n)(k) N(2kL/m, σ²), whose exact ε at δ is where the exact T = 1 curve
    ``dpsco.reference.bftt19.accounting.nsgd_worst_pair_delta(ε, n, m, σ_printed, L, 1)`` falls to δ (e.g. 1.99 at
    n = 1000, ε = 1, δ = 1e-6; 1.56 at n = 64, δ = 1/n², the corpus instance in planted_bugs.py).
    """
    correct = o.noisy_sgd(X, y, problem, epsilon, delta, np.random.default_rng(0), T=T, eta=eta)  # its claim
    rel = o.noisy_sgd(X, y, problem, epsilon, delta, rng, T=T, eta=eta, replicates=replicates,
                      calibration="printed")
    return dataclasses.replace(rel, claim=correct.claim,  # BUG: claims (ε, δ), not the accountant's δ
                               algorithm="MUTANT: A_NSGD with the printed σ under the requested (ε, δ) claim")


# ---- objective perturbation -------------------------------------------------------------------------------


def objp_linear_argmin(X: np.ndarray, domain: Any, lam: float, G: np.ndarray) -> np.ndarray:
    """Exact minimisers of (1/n)Σ⟨x_i, w⟩ + ⟨G_r, w⟩/n + λ‖w‖² over W = B(0, M), for every row G_r of G.

    The objective is ⟨c, w⟩ + λ‖w‖² with c = (Σ x_i + G_r)/n, whose minimiser over the ball is
    Proj_W(−c/(2λ)) (the unconstrained minimiser, scaled onto the ball).  Batched fast path of the linear-loss
    audits; a test checks it against ``dpsco.reference.solvers.certified_minimize``."""
    n = X.shape[0]
    return domain.project(-(X.sum(axis=0)[None, :] + G) / (2.0 * n * lam))


def objp_logistic_1d_argmin(x: np.ndarray, y: np.ndarray, radius: float, lam: float, G: np.ndarray,
                            iterations: int = 200) -> np.ndarray:
    """Exact minimisers over [−M, M] of (1/n)Σ log(1 + e^{−y_i x_i w}) + G_r w/n + λw², for every entry G_r.

    The derivative f(w) = (1/n)Σ −y_i x_i σ(−y_i x_i w) + G_r/n + 2λw is non-decreasing (λ ≥ 0), so the
    minimiser is −M if f(−M) ≥ 0, M if f(M) ≤ 0, else the root of f, found by bisection to float resolution
    (``iterations`` halvings of 2M).  Batched fast path of the 1-D logistic audits (tested against
    ``certified_minimize``)."""
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    G = np.asarray(G, dtype=np.float64).ravel()
    n = x.size
    a = y * x
    keep = a != 0  # records with zero feature contribute nothing to f

    def f(w: np.ndarray) -> np.ndarray:
        s = a[keep][None, :] * w[:, None]
        return (-(a[keep][None, :] / (1.0 + np.exp(s))).sum(axis=1) + G) / n + 2.0 * lam * w

    lo = np.full(G.shape, -radius)
    hi = np.full(G.shape, radius)
    f_lo, f_hi = f(lo), f(hi)
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        pos = f(mid) > 0
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
        if np.all(hi - lo <= 4 * np.finfo(float).eps * radius):
            break
    w = 0.5 * (lo + hi)
    return np.where(f_lo >= 0, -radius, np.where(f_hi <= 0, radius, w))


def objp_inexact_warm_start(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                            rng: np.random.Generator, *, iterations: int = 2,
                            replicates: int | None = None) -> Release:
    """A_ObjP whose perturbed objective J is minimised *inexactly*: ``iterations`` steps of projected
    gradient descent with the safe step 0.1/L_Q (L_Q = β + 2λ, as in our Prox-SVRG), warm-started at the
    non-private minimiser of L̂ + λ‖w‖² (a common speed-up), released without a certificate or output noise
    (an inexact minimiser where Theorem 5.2's proof needs the exact argmin; public precedents: objective
    perturbation solved to a solver tolerance or by a few SGD epochs in diffprivlib and TF-Privacy).

    On the linear loss the iterate is w_K = ŵ_G + ρ^K (w_np − ŵ_G), ρ = 1 − 0.2λ/L_Q, i.e. the output of
    ObjP with G scaled by 1 − ρ^K (0.19 at K = 2): the warm start keeps the data and forgets the noise.
    (From a cold start w = 0 the iterate would be a post-processing of Σ x_i + G on this loss: harmless.)
    """
    correct = o.objective_perturbation(X, y, problem, epsilon, delta, np.random.default_rng(0))
    Xa, ya, _ = problem.check(X, y)
    n, d = Xa.shape
    lam, sigma2 = correct.parameters["lambda"], correct.parameters["sigma2"]
    R = 1 if replicates is None else int(replicates)
    G = math.sqrt(sigma2) * rng.standard_normal((R, d))  # Alg. 2, line 1
    w_np = certified_minimize(problem.loss, Xa, ya, problem.domain, lam=lam, tol=1e-12).w  # BUG: warm start
    beta = float(problem.smoothness or 0.0)
    step = 0.1 / (beta + 2.0 * lam)
    w = np.broadcast_to(w_np, (R, d)).copy()
    for _ in range(iterations):  # BUG: fixed budget, no certificate
        s = w @ Xa.T  # (R, n)
        grad = (problem.loss.dphi(s, np.broadcast_to(ya, s.shape)) @ Xa) / n + G / n + 2.0 * lam * w
        w = problem.domain.project(w - step * grad)
    return Release(output=w[0] if replicates is None else w, replicates=replicates, claim=correct.claim, gradient_evaluations=n * iterations,
                   parameters={**correct.parameters, "iterations": iterations, "step": step},
                   algorithm=f"MUTANT: A_ObjP, {iterations} warm-started GD steps instead of the exact argmin")


def objp_regulariser_dropped(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float,
                             rng: np.random.Generator, *, replicates: int | None = None) -> Release:
    """A_ObjP with the regulariser λ‖w‖² left out of the perturbed objective (the bounded W taken as
    "regularisation enough"), keeping Theorem 5.2's claim — whose proof needs λ twice: strong convexity for a
    unique minimiser, and the Jacobian-ratio bound 1 + β/(2nλ) ≤ e^{ε/2}, i.e. β ≤ εnλ (Theorem 5.2; a
    loss/regulariser scaling drift, public precedent: diffprivlib pull request #98).

    1-D logistic only (the batched exact solver ``objp_logistic_1d_argmin``)."""
    correct = o.objective_perturbation(X, y, problem, epsilon, delta, np.random.default_rng(0))
    Xa, ya, _ = problem.check(X, y)
    n, d = Xa.shape
    if d != 1 or problem.loss.name != "logistic":
        raise ValueError("objp_regulariser_dropped is implemented for the 1-D logistic canary only")
    sigma2 = correct.parameters["sigma2"]
    R = 1 if replicates is None else int(replicates)
    G = math.sqrt(sigma2) * rng.standard_normal(R)  # Alg. 2, line 1
    w = objp_logistic_1d_argmin(Xa[:, 0], ya, problem.radius, 0.0, G)[:, None]  # BUG: λ = 0
    return Release(output=w[0] if replicates is None else w, replicates=replicates, claim=correct.claim, gradient_evaluations=0,
                   parameters={**correct.parameters, "lambda_used": 0.0},
                   algorithm="MUTANT: A_ObjP without the regulariser")


# ---- "reports σ, draws σ/√2" (dpsco.verification.mutants.noise_scale) ----------------------------------------
# Each computes σ from public inputs exactly as the algorithm does, reports it (parameters, claim, white-box
# trace), and adds σ/√2: invisible to every check that reads σ from the release; caught by the measured-noise
# check of the entry's privacy harness (verification/papers/bftt19/harness.py, tests/test_glm_harness.py).
from dpsco.verification.mutants.noise_scale import under_noised  # noqa: E402

noisy_sgd_draws_sigma_over_sqrt2 = under_noised(o.noisy_sgd)
moreau_noisy_sgd_draws_sigma_over_sqrt2 = under_noised(o.moreau_noisy_sgd)
prox_noisy_sgd_draws_sigma_over_sqrt2 = under_noised(o.prox_noisy_sgd)
objective_perturbation_draws_sigma_over_sqrt2 = under_noised(o.objective_perturbation)
efficient_objective_perturbation_draws_sigma_over_sqrt2 = under_noised(o.efficient_objective_perturbation)

__all__ += ["noisy_sgd_draws_sigma_over_sqrt2", "moreau_noisy_sgd_draws_sigma_over_sqrt2",
            "prox_noisy_sgd_draws_sigma_over_sqrt2", "objective_perturbation_draws_sigma_over_sqrt2",
            "efficient_objective_perturbation_draws_sigma_over_sqrt2"]


__all__ += ["bftt19_releases_last_record"]


def bftt19_releases_last_record(X: Any, y: Any, problem: Any, epsilon: float, delta: float, rng: np.random.Generator, *,
                                algorithm: Any = None, replicates: int | None = None, **options: Any) -> Release:
    """The memorisation bug (``mutants.utility.release_last_record``: the output replaced by M·x_n/‖x_n‖) on
    ``algorithm``, any catalogue entry's run of this paper (default A_NSGD, ``o.noisy_sgd``)."""
    return release_last_record(X, y, problem, epsilon, delta, rng,
                               algorithm=o.noisy_sgd if algorithm is None else algorithm,
                               replicates=replicates, **options)
