"""Generic against fast clipped-mean path of Algorithm 1's noisy-gradient algorithms, side by side: ms per run.

Usage::

    python benchmarks/noisy_gradient_speed.py [--replicates 1000] [--prox-replicates 500] [--rounds 2]
                                              [--only nsgd,moreau,proxgd]

Instance: the built-in Fair data (``dpsco.verification.campaign.datasets.load_fair``: n = 6366, d = 9), logistic
loss, W = B(0, 2), ε = 1, δ = 1/n², the parameters of the catalogue entries ``bftt19.nsgd``,
``bftt19.moreau_nsgd`` and ``bftt19.proxgd`` (A_ProxGD with accuracy ξ = 0.5): T = 795, m = 113.

"old" is the code before the fast path: ``nsgd_core`` given a plain callable (the generic path: (R, m, d)
per-sample gradients, ``clip_per_sample``, mean): for A_NSGD the previous gradient closure
(``old_glm_grad_fn``), for the Moreau envelope the previous logistic prox (``OldProxLogisticLoss``: safeguarded
Newton on every entry, masked copies in ``prox``), both kept verbatim below, and for A_ProxGD the unchanged
``approximate_envelope_gradient``.
"new" is ``nsgd_core`` given the oracle object (``dpsco.reference.bftt19.gradients``, its ``clipped_mean``)
with the current ``LogisticLoss.prox_scalar``.  Both runs use the same generator seed, so they draw the same
indices and noise; the largest |old − new| of the R outputs and the two clipping counts are printed too.
Timings alternate (old, new, old, new, ...) so a change of the shared machine's load hits both; the
medians per run are printed with their ratio.  The calibration (σ from the PLD accountant, about 0.5 s per call)
is done once, outside the timings.

Measured on the shared 2-core machine (load 2–6 from other jobs), 23 Nov 2026, numpy 2.4:

=========================  ====  =========  =========  ========  ====================
algorithm                  R     old ms/run new ms/run speed-up  max |old − new|
=========================  ====  =========  =========  ========  ====================
A_NSGD                     1000  14.3       5.2        2.8×      6.7e-16
A_NSGD on Moreau envelope  1000  66.6       16.2       4.1×      1.1e-14
A_ProxGD (ξ = 0.5)         500   1497       142        10.6×     5.6e-16
=========================  ====  =========  =========  ========  ====================

(medians of 2 alternating rounds; A_ProxGD one round, its old path takes 12 minutes; no clipping events on
either path.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpsco.reference.bftt19 as o  # noqa: E402
from dpsco.reference import Ball, DataBounds, ERMProblem  # noqa: E402
from dpsco.reference.bftt19.gradients import (ApproximateEnvelopeGradientOracle, EnvelopeGradientOracle,  # noqa: E402
                                              GLMGradientOracle)
from dpsco.reference.losses import LogisticLoss  # noqa: E402
from dpsco.verification.campaign.datasets import load_fair  # noqa: E402


class OldProxLogisticLoss(LogisticLoss):
    """The logistic loss with the prox of the previous version (verbatim): the reference "old" timing."""

    def prox(self, W: np.ndarray, X: np.ndarray, y: np.ndarray, beta: float) -> np.ndarray:
        W = np.broadcast_to(np.asarray(W, dtype=np.float64), X.shape)
        a = np.einsum("ij,ij->i", W, X)
        r = np.einsum("ij,ij->i", X, X)
        out = W.copy()
        nz = r > 0
        if np.any(nz):
            t = r[nz] / beta
            s = self.prox_scalar(a[nz], y[nz], t)
            out[nz] = W[nz] - ((a[nz] - s) / r[nz])[:, None] * X[nz]
        return out

    def prox_scalar(self, a: np.ndarray, y: np.ndarray, t: np.ndarray) -> np.ndarray:
        a, y, t = np.broadcast_arrays(np.asarray(a, float), np.asarray(y, float), np.asarray(t, float))
        lo, hi = a - t, a + t
        s = a.copy()
        f_prev = np.full_like(s, np.inf)
        tol_f = 8 * np.finfo(float).eps * np.maximum.reduce([np.ones_like(s), np.abs(a), t])
        for _ in range(200):
            f = s - a + t * self.dphi(s, y)
            active = np.abs(f) > tol_f * np.maximum(1.0, np.abs(s))
            if not np.any(active):
                break
            lo = np.where(f < 0, s, lo)
            hi = np.where(f > 0, s, hi)
            newton = s - f / (1.0 + t * self.d2phi(s, y))
            use_newton = (newton > lo) & (newton < hi) & (np.abs(f) <= 0.5 * np.abs(f_prev))
            f_prev = f
            s = np.where(active, np.where(use_newton, newton, 0.5 * (lo + hi)), s)
            if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(s))):
                break
        return s


def old_glm_grad_fn(loss: Any, X: np.ndarray, y: np.ndarray) -> Any:
    """The previous ``glm_gradient_oracle`` (verbatim): a closure, so ``nsgd_core`` takes the generic path."""

    def grad_fn(W: np.ndarray, idx: np.ndarray) -> np.ndarray:
        Xb = X[idx]  # (R, m, d)
        s = np.einsum("rmd,rd->rm", Xb, W)
        return loss.dphi(s, y[idx])[:, :, None] * Xb

    return grad_fn


def _setup(which: str, X: np.ndarray, y: np.ndarray) -> tuple[Any, Any, dict[str, Any], float]:
    """(old grad_fn, new oracle, nsgd_core parameters, clip norm) for one algorithm, parameters from a
    single public call (replicates=1) so that they are the algorithm's own."""
    problem = ERMProblem(LogisticLoss(), Ball(2.0), DataBounds(1.0, 1.0))
    n = X.shape[0]
    args = (X, y, problem, 1.0, 1.0 / n**2, np.random.default_rng(0))
    if which == "nsgd":
        p = o.noisy_sgd(*args, replicates=1).parameters
        new = GLMGradientOracle(problem.loss, X, y)
        return old_glm_grad_fn(problem.loss, X, y), new, p, problem.lipschitz
    elif which == "moreau":
        rel = o.moreau_noisy_sgd(*args, replicates=1)
        p = rel.parameters
        new = EnvelopeGradientOracle(problem.loss, X, y, p["beta"])
        old_oracle = EnvelopeGradientOracle(OldProxLogisticLoss(), X, y, p["beta"])
        clip = 2.0 * problem.lipschitz  # lipschitz_envelope="paper"
        return old_oracle.__call__, new, p, clip
    else:
        rel = o.prox_noisy_sgd(*args, replicates=1, accuracy=0.5)
        p = rel.parameters
        new = ApproximateEnvelopeGradientOracle(problem.loss, X, y, p["beta"], p["inner_iterations"],
                                                domain=problem.domain, local_radius=problem.lipschitz / p["beta"])
        clip = 2.0 * problem.lipschitz + p["accuracy"]
    return new.__call__, new, p, clip  # a bound __call__ has no clipped_mean: the generic path


def _run(grad_fn: Any, p: dict[str, Any], clip: float, n: int, d: int, R: int, seed: int) -> tuple[np.ndarray, int, float]:
    t0 = time.perf_counter()
    wbar, info = o.nsgd_core(grad_fn, n, d, Ball(2.0), T=p["T"], m=p["m"], eta=p["eta"], sigma2=p["sigma2"],
                             clip_norm=clip, rng=np.random.default_rng(seed), replicates=R)
    return wbar, info["clip_events"], time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--prox-replicates", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", default="nsgd,moreau,proxgd")
    args = ap.parse_args(argv)
    real = load_fair()
    X, y = np.asarray(real.X, dtype=np.float64), np.asarray(real.y, dtype=np.float64)
    n, d = X.shape
    for which in args.only.split(","):
        old, new, p, clip = _setup(which, X, y)
        R = args.prox_replicates if which == "proxgd" else args.replicates
        times: dict[str, list[float]] = {"old": [], "new": []}
        for rnd in range(args.rounds):
            w_old, c_old, t_old = _run(old, p, clip, n, d, R, seed=rnd)
            w_new, c_new, t_new = _run(new, p, clip, n, d, R, seed=rnd)
            times["old"].append(t_old / R * 1e3)
            times["new"].append(t_new / R * 1e3)
            print(f"{which:7s} round {rnd}: old {t_old / R * 1e3:8.2f} ms/run, new {t_new / R * 1e3:8.2f} ms/run, "
                  f"max|old − new| = {np.max(np.abs(w_old - w_new)):.2e}, clip events {c_old} / {c_new}", flush=True)
        mo, mn = statistics.median(times["old"]), statistics.median(times["new"])
        print(f"{which:7s} T = {p['T']}, m = {p['m']}, R = {R}: median old {mo:.2f} ms/run, new {mn:.2f} ms/run, "
              f"speed-up {mo / mn:.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
