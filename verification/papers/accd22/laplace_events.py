"""Exact event probabilities for compositions of one-dimensional Laplace phases (the transcript audits of Asi,
Chadha, Cheng & Duchi's Laplace-noise algorithms, ``privacy.py``): bounds on P(Λ ≥ θΣλ_j) on either side of a
neighbouring pair, by exact convolution of the rounded per-phase privacy-loss laws."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["THETA", "laplace_llr_event_bounds"]

#: the Laplace event's fraction of Λ_max (fixed in advance).
#: θ = 0.45, not 1/2: a sum of r Laplace phases with equal λ has atoms at Λ = (r − 2j)λ, and θ·r must avoid them
#: (θ = 1/2, r = 12 puts an atom of mass ≈ 0.025 on the boundary, decided by floating-point rounding)
THETA = 0.45


def laplace_llr_event_bounds(lambdas: Any, theta: float = THETA, bins_per_lambda: int = 2000,
                             spread: float = 0.0) -> tuple[float, float]:
    """(P_lower, Q_upper): bounds of the probabilities of E = {Λ ≥ θΣλ_j} on the neighbour side (P) and on the
    dataset side (Q) when Λ = Σ_j ℓ_j is the exact likelihood ratio of independent one-dimensional Laplace
    phases with privacy losses λ_j = |Δ_j|/σ_j (each ℓ_j = |w + λ_j| − |w|, w ~ Lap(1), on the neighbour side;
    −ℓ_j in law on the dataset side).

    ℓ_j has atoms ½ at λ_j and ½e^{−λ_j} at −λ_j and density ¼e^{(ℓ−λ_j)/2} in between.  Each ℓ_j is rounded
    down to the grid hℤ (h = min λ_j/``bins_per_lambda``) and the rounded laws are convolved exactly; since
    hΣ⌊ℓ_j/h⌋ ≤ Λ, P_lower = P(hK ≥ θΣλ_j) ≤ P and Q = P(Λ ≤ −θΣλ_j) ≤ P(hK ≤ −θΣλ_j) = Q_upper (each also moved
    by 1e-12 against rounding of the sums).  A miss probability computed with (P_lower, Q_upper) bounds the true
    one (the audit's refutation probability increases in P and decreases in Q).

    ``spread`` ≥ 0: the bounds then hold for every λ′ with λ_j ≤ λ′_j and Σ_j(λ′_j − λ_j) ≤ spread (e.g. λ_j the
    smallest value over runs, spread the sum of the ranges).  ℓ_j is 1-Lipschitz in λ_j for a fixed w, so under
    the coupling Σℓ(λ′) ≥ Σℓ(λ) − spread, and E′ ⊇ {Σℓ(λ) ≥ θΣλ + (1 + θ)spread} on the neighbour side,
    {Σℓ(λ′) ≤ −θΣλ′} ⊆ {Σℓ(λ) ≤ −θΣλ + spread} on the other: the thresholds move by those amounts."""
    lam = np.asarray(lambdas, dtype=np.float64).reshape(-1)
    if lam.size == 0 or np.any(lam <= 0):
        raise ValueError("lambdas must be positive")
    h = float(lam.min()) / int(bins_per_lambda)

    def cdf_lt(s: np.ndarray, lj: float) -> np.ndarray:  # P(ℓ < s)
        return np.where(s <= -lj, 0.0, np.where(s > lj, 1.0, 0.5 * np.exp((np.minimum(s, lj) - lj) / 2.0)))

    pmf, k0 = np.array([1.0]), 0
    for lj in lam:
        lo, hi = math.floor(-lj / h), math.floor(lj / h)
        k = np.arange(lo, hi + 1)
        m = cdf_lt((k + 1) * h, lj) - cdf_lt(k * h, lj)
        pmf, k0 = np.convolve(pmf, m), k0 + lo
    t = theta * float(lam.sum())
    grid = (k0 + np.arange(pmf.size)) * h
    sp = float(spread)
    if not sp >= 0.0:
        raise ValueError(f"spread must be >= 0, got {spread!r}")
    p_lower = float(pmf[grid >= t + (1.0 + theta) * sp].sum()) - 1e-12
    q_upper = float(pmf[grid <= -t + sp].sum()) + 1e-12
    return max(p_lower, 0.0), min(q_upper, 1.0)
