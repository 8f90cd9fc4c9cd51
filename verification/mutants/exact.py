"""Exact computations behind the planted-bug corpus (``dpsco.verification.mutants.corpus``): the exact
privacy of a clamped 1-D release (:func:`release_delta`, :func:`release_epsilon`), and the exact refutation
probability of an audit whose event is fixed in advance (:func:`fixed_event_refutation_probability`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp, ndtr
from scipy.stats import binom

from dpsco.verification.auditing.audit import epsilon_lower_bound

__all__ = ["DEFAULT_CONFIDENCE", "fixed_event_refutation_probability", "release_delta", "release_epsilon",
           "rule_refutation_probability"]

#: the confidence of one corpus audit
DEFAULT_CONFIDENCE = 0.95


def _tail(tau: float, weights: np.ndarray, means: np.ndarray, s: float) -> float:
    """P(X ≥ τ) for X ~ Σ w_k N(means_k, s²)."""
    return float(weights @ ndtr((means - tau) / s))


def _one_direction(eps: float, wp: np.ndarray, a: np.ndarray, wq: np.ndarray, b: np.ndarray, s: float,
                   lo: float, hi: float) -> float:
    """sup over events {clip(X, lo, hi) ≥ τ} of P − e^ε Q, for a pair whose likelihood ratio p/q increases in x."""
    lwp, lwq = np.log(np.where(wp > 0, wp, 1e-300)), np.log(np.where(wq > 0, wq, 1e-300))

    def h(x: float) -> float:
        return float(logsumexp(lwp - (x - a) ** 2 / (2 * s * s)) - logsumexp(lwq - (x - b) ** 2 / (2 * s * s)) - eps)

    if h(hi) <= 0:
        tau = hi
    elif h(lo) >= 0:
        tau = lo
    else:
        tau = brentq(h, lo, hi, xtol=1e-14, rtol=1e-15)
    return max(0.0, _tail(tau, wp, a, s) - math.exp(eps) * _tail(tau, wq, b, s))


def release_delta(eps: float, weights_p: Any, means_p: Any, weights_q: Any, means_q: Any, s: float,
                  lo: float = -math.inf, hi: float = math.inf) -> float:
    """Exact δ(ε) = max over both directions of H_{e^ε} for the releases clip(X, lo, hi), X ~ P or Q.

    P = Σ w_k N(a_k, s²), Q = Σ v_k N(b_k, s²) must have a likelihood ratio monotone in x (true for every pair
    used here: the with-replacement canary mixtures, their null versions and the Gaussian mechanism).  Then the
    optimal events of a monotone post-processing are half-lines, so the hockey-stick divergence of the clamped
    release is the sup over thresholds τ ∈ (lo, hi] of P(X ≥ τ) − e^ε Q(X ≥ τ) (and the mirror direction),
    attained at τ = the root of log p/q = ε clamped to [lo, hi]; the tails are exact normal CDF sums.
    """
    wp, a = np.asarray(weights_p, float), np.asarray(means_p, float)
    wq, b = np.asarray(weights_q, float), np.asarray(means_q, float)
    lo_, hi_ = (max(lo, -1e6), min(hi, 1e6))
    fwd = _one_direction(eps, wp, a, wq, b, s, lo_, hi_)
    bwd = _one_direction(eps, wq, -b, wp, -a, s, -hi_, -lo_)  # events {X ≤ τ} of Q vs P, mirrored
    return max(fwd, bwd)


def release_epsilon(delta: float, *args: Any, **kwargs: Any) -> float:
    """Smallest ε with :func:`release_delta` ≤ δ (bisection to 1e-9, conservative end)."""
    f = lambda e: release_delta(e, *args, **kwargs)  # noqa: E731
    if f(0.0) <= delta:
        return 0.0
    hi = 1.0
    while f(hi) > delta:
        hi *= 2.0
        if hi > 1e4:
            return math.inf
    lo = 0.0
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if f(mid) <= delta else (mid, hi)
    return hi


def fixed_event_refutation_probability(p: float, q: float, n: int, epsilon: float, delta: float,
                                       confidence: float = DEFAULT_CONFIDENCE, *, tail_mass: float = 1e-15) -> float:
    """Exact probability that ``audit(..., event=E)`` refutes an (ε, δ) claim, for a fixed event E.

    With an event fixed in advance every run is a test run: the counts are K_p ~ Bin(n, p) on the numerator
    side (p = its P(E)) and K_q ~ Bin(n, q) on the other, independent, and the audit refutes iff
    ``epsilon_lower_bound(K_p, n, K_q, n, δ, confidence)`` > ε (the auditor's own bound, so the rule is the
    audit's).  That bound increases in K_p and decreases in K_q, so the probability is
    Σ_{k_q} P(K_q = k_q)·P(K_p ≥ k*(k_q)), summed over the central range of each binomial; the mass left out
    (≤ ``tail_mass`` per tail and side) is counted as "not refuted", so the result is exact to within
    4·``tail_mass`` below.

    Parameters
    ----------
    p, q : float in [0, 1], the event's probability on the numerator and the denominator side.
    n : int ≥ 1, runs per side.
    epsilon : float ≥ 0, delta : float in [0, 1), the claim;  confidence : the audit's confidence.
    """
    return rule_refutation_probability(
        p, q, n, lambda kp, kq: epsilon_lower_bound(kp[:, None], n, kq[None, :], n, delta, confidence) > epsilon,
        tail_mass=tail_mass)


def rule_refutation_probability(p: float, q: float, n: int, refutes: Any, *, tail_mass: float = 1e-15) -> float:
    """P(refutes(K_p, K_q)) for independent K_p ~ Bin(n, p), K_q ~ Bin(n, q), summed over the central range
    of each binomial (the mass left out, ≤ ``tail_mass`` per tail and side, counts as "not refuted": exact to
    within 4·``tail_mass`` below).  ``refutes(kp, kq)``: (|kp|, |kq|) bool array for count vectors kp, kq —
    an audit's decision rule for an event fixed in advance."""
    n = int(n)
    if n < 1 or not (0.0 <= p <= 1.0 and 0.0 <= q <= 1.0):
        raise ValueError(f"need n >= 1 and p, q in [0, 1], got n={n}, p={p}, q={q}")
    kp = np.arange(int(binom.ppf(tail_mass, n, p)), int(binom.isf(tail_mass, n, p)) + 2)
    kq = np.arange(int(binom.ppf(tail_mass, n, q)), int(binom.isf(tail_mass, n, q)) + 2)
    kp, kq = kp[(kp >= 0) & (kp <= n)], kq[(kq >= 0) & (kq <= n)]
    return float(binom.pmf(kp, n, p) @ np.asarray(refutes(kp, kq), dtype=float) @ binom.pmf(kq, n, q))
