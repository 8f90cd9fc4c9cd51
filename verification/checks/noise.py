"""Measured-noise checks: is the noise an algorithm actually added at least the noise its claim is calibrated to?

A privacy check never trusts what a release says about itself.  A copy of an algorithm that draws σ/√2 while
reporting σ passes every check that recomputes ε or ρ from the reported σ.  So the noise is *measured*: the
white-box transcript of a run gives each noisy release, the noiseless release is replayed from the transcript's
public state (the same iterate, batch and earlier releases), and the difference r (flattened over steps and
coordinates) must be i.i.d. N(0, σ²) with σ the theorem's calibration computed from public inputs.

Test.  H0: r_1..r_k i.i.d. N(0, s²) with s ≥ σ.  Statistic Q = Σ r_i²/σ², which under s = σ is χ²_k and under
s > σ is stochastically larger.  The check fails when Q < χ²_k's quantile at ``alpha``: its false-failure
probability is ≤ ``alpha`` exactly (the χ² cdf is exact; s > σ only lowers it).  Against the planted σ/√2 bug
(s² = σ²/2) with k ≥ 1,000 residuals, Q ≈ k/2 falls below the 1e-7 quantile (≈ 0.77k at k = 1,000) except
with probability < 1e-30 (Chernoff bound of χ²_k at 0.77k under scale 1/2), so the check catches it.
The scale is also tested for *over*-reporting nothing: more noise than claimed is conservative and passes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats as sps

from dpsco.verification.checks.stats import suite_check

__all__ = ["DEFAULT_ALPHA", "measured_noise_check", "miss_probability"]

#: false-failure probability of one measured-noise check (the house budget is 1e-6 per test)
DEFAULT_ALPHA = 1e-7


def measured_noise_check(residuals: Any, sigma: float, name: str = "measured_noise", *,
                         alpha: float = DEFAULT_ALPHA, label: str = "") -> dict[str, Any]:
    """One-sided χ² test of H0 "the noise drawn has standard deviation ≥ ``sigma``" (module docstring).

    residuals : (k,) float array, k ≥ 1, finite   noisy minus replayed noiseless releases
    sigma : float > 0   the calibrated standard deviation (from the theorem's formula, public inputs only)
    alpha : float in (0, 1)   the false-failure probability (exact)
    Returns a suite check dict (``dpsco.verification.checks.stats.suite_check``): ``p_value`` = P(χ²_k ≤ Q), the
    smallest level at which the data refute H0, ``estimate`` the measured scale √(Σr²/k), ``bound`` σ, and
    ``threshold`` the χ²_k quantile at ``alpha`` (in units of k).  Raises ValueError for empty or non-finite
    residuals, σ ≤ 0 or α outside (0, 1).
    """
    r = np.asarray(residuals, dtype=np.float64).ravel()
    if r.size == 0 or not np.all(np.isfinite(r)):
        raise ValueError("residuals must be a non-empty array of finite floats")
    sigma = float(sigma)
    if not (math.isfinite(sigma) and sigma > 0.0):
        raise ValueError(f"sigma must be a finite float > 0, got {sigma!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    k = int(r.size)
    # scale before squaring: the residuals of an algorithm at σ ≈ 1e-200 must not underflow
    q = float(np.sum(np.square(r / sigma)))
    p = float(sps.chi2.cdf(q, k))
    threshold = float(sps.chi2.ppf(alpha, k))
    return suite_check(name, f"the noise actually drawn has standard deviation ≥ the calibrated σ = {sigma:.6g}"
                       + (f" ({label})" if label else ""), p, math.sqrt(q / k) * sigma, sigma,
                       residuals=k, statistic=q, threshold=threshold, alpha=alpha,
                       method="one-sided chi-squared test of the replayed noise (exact)")


def miss_probability(k: int, scale: float, alpha: float = DEFAULT_ALPHA) -> float:
    """P(the check passes) when the noise has standard deviation ``scale``·σ (< 1: a planted under-noise bug):
    P(scale²·χ²_k ≥ χ²_k quantile at α), exact."""
    threshold = float(sps.chi2.ppf(alpha, int(k)))
    return float(sps.chi2.sf(threshold / float(scale) ** 2, int(k)))
