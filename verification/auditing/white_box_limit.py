"""The information limit of a white-box threshold audit: the largest ε_lb any threshold test can certify.

A white-box audit (:func:`dpsco.verification.auditing.white_box.white_box_audit`) counts, among R runs per
side, the runs whose statistic falls in one event E, and certifies ε_lb = log((P_lo − δ)/Q_hi) from the two
one-sided Clopper–Pearson bounds, each at level (1 − c)/2.  Whatever the statistic, the event has some pair
(P(E), Q(E)) on the mechanism's privacy curve or inside it; by the Neyman–Pearson lemma the pairs on the
curve are those of the likelihood-ratio events {L ≥ τ} (neighbour as numerator) and {L ≤ τ} (dataset as
numerator), L the privacy loss of the whole transcript.  So, at the expected counts (⌊R·P⌋ and ⌈R·Q⌉), no
threshold test of any statistic certifies more than

    ε_limit(R, c, δ) = max over τ and the two directions of  log((P_lo(⌊R·P_τ⌋) − δ) / Q_hi(⌈R·Q_τ⌉)),

which is what :func:`threshold_limit` computes.  It is a property of the design (the pair, the mechanism,
R, c, δ), not of the auditor; the audit's own ε_lb fluctuates around its value at the chosen τ.

The privacy-loss distribution is computed exactly for the claimed model of
:class:`~dpsco.verification.auditing.white_box.ClaimedStep`: one step observes y ~ N(0, ζ²) on the dataset
and y ~ Σ_k w_k N(k, ζ²) on the neighbour (the one-sided canary's per-draw shift 1; Bassily et al. 2019,
Algorithm 1 with Theorem 3.2's sampling, whose accountant composes the same mixture T times).  The per-step
loss ℓ(y) = log Σ_k w_k e^{(2ky − k²)/(2ζ²)} is rounded to a grid of width h; the rounded per-step loss is
itself a statistic of the transcript, and its T-fold sums under both sides are computed exactly (up to the
quadrature of y and the FFT's rounding, ~1e-13) by convolution.  So every (P, Q) pair used is achievable by
a real threshold test, and the computed limit approaches the Neyman–Pearson limit as h → 0 (it changes by
< 10⁻³ between h = 2·10⁻³ and 10⁻³ at the instance of docs/performance.md).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import logsumexp

from dpsco.verification.auditing.clopper_pearson import epsilon_lower_bound

__all__ = ["composed_loss_pmfs", "threshold_limit", "runs_for_ratio"]


def composed_loss_pmfs(step: Any, h: float = 1e-3, y_points: int = 400_001) -> tuple[np.ndarray, np.ndarray,
                                                                                       np.ndarray]:
    """(s, P, Q): the grid of the T-step rounded privacy loss and its pmf on the neighbour (P) and on the
    dataset (Q), for the claimed model ``step`` (ζ, k, w, T) with per-draw shift 1.

    h : loss grid width (> 0);  y_points : quadrature points of y over [−12ζ, k_max + 12ζ].
    """
    z, k, w, T = float(step.zeta), np.asarray(step.k, float), np.asarray(step.w, float), int(step.steps)
    if not (h > 0 and z > 0 and T >= 1):
        raise ValueError(f"h, zeta and steps must be positive, got {h}, {z}, {T}")
    ys = np.linspace(-12.0 * z, k[-1] + 12.0 * z, int(y_points))
    dy = ys[1] - ys[0]
    log_q = -ys ** 2 / (2 * z * z)
    with np.errstate(divide="ignore"):  # a weight 0 is a component of probability 0: log 0 = −inf
        logw = np.log(w / w.sum())
    log_p = logsumexp(logw[None, :] - (ys[:, None] - k[None, :]) ** 2 / (2 * z * z), axis=1)
    norm = dy / (math.sqrt(2 * math.pi) * z)
    loss = log_p - log_q
    lo = int(np.floor(loss.min() / h))
    idx = np.round(loss / h).astype(np.int64) - lo
    bins = int(idx.max()) + 1
    p1 = np.bincount(idx, np.exp(log_p) * norm, bins)
    q1 = np.bincount(idx, np.exp(log_q) * norm, bins)
    size = T * (bins - 1) + 1
    nfft = 1 << int(math.ceil(math.log2(size)))
    P = np.maximum(np.fft.irfft(np.fft.rfft(p1, nfft) ** T, nfft)[:size], 0.0)
    Q = np.maximum(np.fft.irfft(np.fft.rfft(q1, nfft) ** T, nfft)[:size], 0.0)
    return (np.arange(size) + T * lo) * h, P, Q


def _limit(P: np.ndarray, Q: np.ndarray, s: np.ndarray, runs: int, delta: float,
           confidence: float) -> dict[str, Any]:
    best: dict[str, Any] = {"epsilon_lower": -math.inf}
    up_p, up_q = np.cumsum(P[::-1])[::-1], np.cumsum(Q[::-1])[::-1]
    lo_p, lo_q = np.cumsum(P), np.cumsum(Q)
    for direction, num, den in (("S >= tau, neighbour as numerator", up_p, up_q),
                                ("S <= tau, dataset as numerator", lo_q, lo_p)):
        ok = np.flatnonzero((num * runs >= 1) & (num < 1))
        if ok.size == 0:
            continue

        def bounds(sel: np.ndarray) -> np.ndarray:
            return np.asarray(epsilon_lower_bound(np.floor(runs * num[sel]), runs,
                                                  np.minimum(np.ceil(runs * den[sel]), runs), runs, delta,
                                                  confidence))

        # every 64th threshold, then every threshold within 256 grid steps of the best of those
        coarse = ok[::64]
        c = int(coarse[int(np.argmax(bounds(coarse)))])
        sel = ok[(ok >= c - 256) & (ok <= c + 256)]
        e = bounds(sel)
        i = int(np.argmax(e))
        if e[i] > best["epsilon_lower"]:
            best = {"epsilon_lower": float(e[i]), "event": direction, "threshold": float(s[sel[i]]),
                    "probability_numerator": float(num[sel[i]]), "probability_denominator": float(den[sel[i]])}
    best.update({"runs_per_side": int(runs), "delta": float(delta), "confidence": float(confidence)})
    return best


def threshold_limit(step: Any, runs: int, delta: float, confidence: float, h: float = 1e-3) -> dict[str, Any]:
    """The largest ε_lb any threshold test certifies at ``runs`` per side with the expected counts (module
    docstring): {"epsilon_lower", "event", "threshold", "probability_numerator", "probability_denominator",
    "runs_per_side", "delta", "confidence"}; also "epsilon_true", the ε at which the exact composed curve
    reaches δ (a cross-check of the accountant's ε_true).

    step : a :class:`~dpsco.verification.auditing.white_box.ClaimedStep`;  runs : int ≥ 1;  delta ∈ [0, 1);
    confidence ∈ (0, 1);  h : loss grid width.  The maximum over τ is searched on every 64th grid point, then
    on every point within 256 of the best (the CP bound of the expected counts is unimodal in τ up to the
    steps of the rounded counts, which move it by < 10⁻³ here).
    """
    s, P, Q = composed_loss_pmfs(step, h)
    out = _limit(P, Q, s, int(runs), float(delta), float(confidence))
    out["epsilon_true"] = curve_epsilon(s, P, Q, float(delta))
    return out


def curve_epsilon(s: np.ndarray, P: np.ndarray, Q: np.ndarray, delta: float) -> float:
    """The smallest ε with Σ (P − e^ε Q)₊ ≤ δ on the composed pmfs (bisection to 1e-9)."""
    def excess(e: float) -> float:
        return float(np.sum(np.maximum(P - math.exp(e) * Q, 0.0))) - delta

    lo, hi = 0.0, float(s[-1]) + 1.0
    if excess(lo) <= 0:
        return 0.0
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return hi


def runs_for_ratio(step: Any, target: float, delta: float, confidence: float, h: float = 1e-3,
                   max_runs: int = 10**9) -> int:
    """The smallest runs per side (to 1 %) at which :func:`threshold_limit` reaches ``target`` (an ε value);
    ``max_runs`` if it does not by then."""
    s, P, Q = composed_loss_pmfs(step, h)

    def reach(r: int) -> bool:
        return _limit(P, Q, s, r, delta, confidence)["epsilon_lower"] >= target

    lo, hi = 1, 1000
    while not reach(hi):
        lo, hi = hi, hi * 2
        if hi >= max_runs:
            return int(max_runs)
    while hi - lo > max(1, lo // 100):
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if reach(mid) else (mid, hi)
    return int(hi)
