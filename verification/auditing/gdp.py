"""The Gaussian-DP (f-DP) route of the auditor: a μ lower bound, its conversion to ε, and a shape check.

Notation: P, Q are the output distributions on the numerator and denominator datasets of a neighbouring
pair, E is an event fixed independently of the counts, k_p ~ Binomial(n_p, P(E)), k_q ~ Binomial(n_q, Q(E)),
and P_lo, Q_hi are one-sided Clopper–Pearson bounds at level (1 − confidence)/2 each, so that P_lo <= P(E)
and Q_hi >= Q(E) hold together with probability >= confidence (union bound).

μ_lb = Φ⁻¹(P_lo) − Φ⁻¹(Q_hi).  If the pair is μ-GDP (its trade-off function is >= G_μ, Dong, Roth & Su
2022, Def. 2.4), every test with type-I error α = Q(E) has type-II error β = 1 − P(E) >= Φ(Φ⁻¹(1 − α) − μ),
i.e. μ >= Φ⁻¹(P(E)) − Φ⁻¹(Q(E)); the right side is increasing in P(E) and decreasing in Q(E), so μ_lb <= μ
with probability >= confidence.  **As a bound on μ this is assumption-free.**  The conversion
ε_lb = ε_μ(μ_lb, δ) (Dong, Roth & Su 2022, Cor. 2.13; ``dpsco.reference.conversions.gdp_epsilon``) is a
lower bound on the mechanism's ε at δ **only if the mechanism's trade-off curve is Gaussian** (G_μ* for its
smallest μ*): then its exact ε(δ) = ε_μ(μ*, δ) >= ε_μ(μ_lb, δ).  True for the Gaussian mechanism, output
perturbation with Gaussian noise and the last iterate of full-batch noisy GD on a linear canary; false in
general (e.g. Laplace, randomised response, subsampled mechanisms).  Hence the audit never reports it as
``epsilon_lower`` nor bases a verdict on it unless the caller states the assumption
(``assume="gaussian-tradeoff"``); it is reported as ``epsilon_lower_assuming_gaussian_tradeoff`` next to
:func:`gaussian_shape_check`'s plausibility flag.

References
----------
* J. Dong, A. Roth, W. Su. Gaussian differential privacy. JRSS-B 84(1), 2022.
* M. Nasr, J. Hayes, T. Steinke, B. Balle, F. Tramèr, M. Jagielski, N. Carlini, A. Terzis. Tight auditing of
  differentially private machine learning. USENIX Security 2023 (arXiv 2302.07956) — the GDP route.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import ndtri
from scipy.stats import norm as _norm

from dpsco.reference import conversions
from dpsco.verification.auditing.clopper_pearson import confidence_bounds

__all__ = [
    "ASSUMPTIONS_STATABLE",
    "GAUSSIAN_TRADEOFF",
    "SHAPE_QUANTILES",
    "gaussian_shape_check",
    "gdp_epsilon_from_mu",
    "gdp_epsilon_lower_bound",
    "gdp_mu_lower_bound",
]


def _mu_from_bounds(p_lo: np.ndarray, q_hi: np.ndarray) -> np.ndarray:
    """max(0, Φ⁻¹(P_lo) − Φ⁻¹(Q_hi)) (0 where P_lo = 0 or Q_hi = 1; +inf where P_lo = 1 and Q_hi < 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = ndtri(p_lo) - ndtri(q_hi)
    mu = np.where(np.isnan(mu), 0.0, mu)
    return np.maximum(mu, 0.0)


def gdp_mu_lower_bound(k_p: Any, n_p: Any, k_q: Any, n_q: Any, confidence: float) -> float | np.ndarray:
    """μ_lb = max(0, Φ⁻¹(P_lo) − Φ⁻¹(Q_hi)): a lower bound on μ for any μ-GDP guarantee of the pair.

    Parameters
    ----------
    k_p, n_p : int (arrays broadcast)
        Count of the event E among n_p runs on the numerator side (TPR = k_p/n_p).
    k_q, n_q : int
        Count of E among n_q runs on the denominator side (FPR = k_q/n_q).
    confidence : float in (0, 1)

    Returns
    -------
    float or ndarray >= 0
        With probability >= ``confidence``, μ_lb <= μ for every μ such that the pair is μ-GDP, provided E
        was fixed independently of the counts.  Assumption-free (proof in the module docstring).
    """
    p_lo, q_hi = confidence_bounds(k_p, n_p, k_q, n_q, confidence)
    out = _mu_from_bounds(p_lo, q_hi)
    return float(out) if out.ndim == 0 else out


def gdp_epsilon_from_mu(mu: float, delta: float) -> float:
    """ε_μ(μ, δ) rounded *down* (a lower-bound-safe μ → ε conversion): the core
    ``dpsco.reference.conversions.gdp_epsilon(mu, delta, rounding="down")`` (Dong, Roth & Su 2022, Cor. 2.13), the
    lower end of a bisection bracket on which the rounded-down curve exceeds δ, so the returned value is ≤ the
    exact ε_μ(μ, δ).  μ ≥ 0 (``inf`` allowed), δ ∈ [0, 1); 0 at μ = 0 and ∞ at δ = 0 with μ > 0 (a μ-GDP
    mechanism with μ > 0 is not (ε, 0)-DP for any finite ε)."""
    return conversions.gdp_epsilon(mu, delta, rounding="down")


def gdp_epsilon_lower_bound(k_p: int, n_p: int, k_q: int, n_q: int, delta: float, confidence: float) -> tuple[float, float]:
    """(ε_lb, μ_lb) of the Gaussian-DP route: μ_lb from :func:`gdp_mu_lower_bound`, ε_lb = ε_μ(μ_lb, δ).

    Valid as a lower bound on the mechanism's ε at δ only under the Gaussian trade-off assumption (module
    docstring); μ_lb is valid without it.  At δ = 0, ε_lb = ∞ when μ_lb > 0 (:func:`gdp_epsilon_from_mu`).
    """
    mu = float(gdp_mu_lower_bound(k_p, n_p, k_q, n_q, confidence))
    return gdp_epsilon_from_mu(mu, delta), mu


#: the assumptions a caller may state for a verdict (``audit(..., assume=...)``, ``dpsco audit --assume``)
ASSUMPTIONS_STATABLE: tuple[str, ...] = ("gaussian-tradeoff",)
GAUSSIAN_TRADEOFF = "gaussian-tradeoff"

#: quantiles of the pooled statistic at which gaussian_shape_check evaluates μ(τ)
SHAPE_QUANTILES: tuple[float, ...] = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95, 0.98,
                                      0.99, 0.995)


def gaussian_shape_check(
    s_dataset: Any, s_neighbour: Any, *, min_count: int = 30, false_flag: float = 1e-3,
    max_tied_fraction: float = 0.05,
) -> dict[str, Any]:
    """Is a Gaussian trade-off curve plausible for this pair?  μ must be the same at every threshold.

    If the pair (P, Q) of output distributions has trade-off curve G_μ, its log-likelihood ratio is
    N(±μ²/2, μ²), so (i) neither distribution has atoms shared with the other, and (ii) for the
    likelihood-ratio statistic — in particular any increasing function of a 1-D Gaussian shift, or a fixed
    projection of N(m, σ²I) — every threshold τ gives Φ⁻¹(TPR(τ)) − Φ⁻¹(FPR(τ)) = μ.  Laplace noise gives μ(τ)
    falling from about 1.0 in the bulk to about 0.3 in the tails (ε = 1), randomised response has two atoms.

    Statistics (computed on the *selection* runs ``s_dataset``, ``s_neighbour`` of the chosen scalar statistic;
    the numerator is the side with the larger median):

    * ``tied_fraction`` = 1 − (distinct values)/(all values) of the pooled statistic.  Atoms are declared if it
      exceeds ``max_tied_fraction`` (5 %): a continuous output never has ties at float64 resolution; randomised
      response has 2 distinct values.
    * For thresholds τ_j at the pooled quantiles :data:`SHAPE_QUANTILES` (0.005, 0.01, ..., 0.995; kept if the
      event and its complement have >= ``min_count`` runs on both sides): μ_j = Φ⁻¹(TPR_j) − Φ⁻¹(FPR_j) with
      TPR_j, FPR_j the fractions of {s >= τ_j} on the numerator and denominator side, and its delta-method
      standard error se_j² = Σ p(1 − p)/(n φ(Φ⁻¹(p))²) over p ∈ {TPR_j, FPR_j}.
    * ``spread`` = max_j μ_j − min_j μ_j, and the standardised spread
      Z = max_{i<j} |μ_i − μ_j|/(se_i + se_j).  Since Var(μ_i − μ_j) <= (se_i + se_j)² (Cauchy–Schwarz), under
      a Gaussian shape each ratio is asymptotically N(0, v), v <= 1, so with the Bonferroni critical value
      z* = Φ⁻¹(1 − false_flag/(2K)), K = J(J − 1)/2 pairs, a Gaussian pair is flagged with probability
      <= ``false_flag`` (1e-3; asymptotic, normal approximation of binomial proportions).

    ``plausible`` is False if there are atoms or Z > z*, None if fewer than 3 thresholds qualify (too few runs
    to judge), True otherwise.  Plausible is not proof: a statistic that is not a monotone function of the
    likelihood ratio (e.g. a poorly trained classifier) can make a Gaussian pair look implausible, and small
    selection halves give the test little power.

    Measured (1-D sums with noise, shift 1): Laplace ε = 1 flagged in 497 of 500 checks at 2,000 runs per side
    and in 500 of 500 at 20,000 (smallest Z 14.5); the Gaussian mechanism calibrated to (1, 1e-5) in 0 of 2,000
    at either size (largest Z 3.44 against z* = 4.43).
    """
    a = np.asarray(s_dataset, dtype=np.float64).ravel()
    b = np.asarray(s_neighbour, dtype=np.float64).ravel()
    if a.size < 2 or b.size < 2 or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("gaussian_shape_check needs at least 2 finite values per side")
    numerator = "dataset" if np.median(a) >= np.median(b) else "neighbour"
    num, den = (np.sort(a), np.sort(b)) if numerator == "dataset" else (np.sort(b), np.sort(a))
    pooled = np.sort(np.concatenate([num, den]))
    N = pooled.size
    tied = 1.0 - np.unique(pooled).size / N
    atoms = bool(tied > max_tied_fraction)
    taus = np.unique(pooled[np.clip((np.asarray(SHAPE_QUANTILES) * N).astype(np.int64), 0, N - 1)])
    rows = []
    for t in taus:
        kp = int(num.size - np.searchsorted(num, t, side="left"))
        kq = int(den.size - np.searchsorted(den, t, side="left"))
        if min(kp, num.size - kp, kq, den.size - kq) < min_count:
            continue
        p, q = kp / num.size, kq / den.size
        zp, zq = float(ndtri(p)), float(ndtri(q))
        se = math.sqrt(p * (1 - p) / (num.size * _norm.pdf(zp) ** 2) + q * (1 - q) / (den.size * _norm.pdf(zq) ** 2))
        rows.append((float(t), p, q, zp - zq, se))
    out: dict[str, Any] = {
        "method": ("mu(tau) = Phi^-1(TPR) - Phi^-1(FPR) at pooled-quantile thresholds of the selection runs; "
                   "flag if max |mu_i - mu_j|/(se_i + se_j) exceeds the Bonferroni normal critical value, or if "
                   "the statistic has atoms"),
        "n_runs_per_side": [int(num.size), int(den.size)], "numerator": numerator,
        "tied_fraction": float(tied), "has_atoms": atoms, "thresholds": [r[0] for r in rows],
        "tpr": [r[1] for r in rows], "fpr": [r[2] for r in rows], "mu_at_thresholds": [r[3] for r in rows],
        "standard_errors": [r[4] for r in rows], "nominal_false_flag_probability": float(false_flag),
    }
    J = len(rows)
    if J >= 2:
        mus = np.array([r[3] for r in rows])
        ses = np.array([r[4] for r in rows])
        Z = np.abs(mus[:, None] - mus[None, :]) / (ses[:, None] + ses[None, :])
        K = J * (J - 1) // 2
        out.update(spread=float(mus.max() - mus.min()), standardised_spread=float(Z.max()),
                   critical_value=float(_norm.isf(false_flag / (2 * K))))
    else:
        out.update(spread=None, standardised_spread=None, critical_value=None)
    if atoms:
        out["plausible"] = False
        out["reason"] = (f"the statistic has atoms ({tied:.1%} of the values are ties): a pair with a Gaussian "
                         "trade-off curve has none")
    elif J < 3:
        out["plausible"] = None
        out["reason"] = f"only {J} thresholds with >= {min_count} runs in each cell: too few runs to judge the shape"
    elif out["standardised_spread"] > out["critical_value"]:
        out["plausible"] = False
        out["reason"] = (f"mu varies with the threshold from {min(r[3] for r in rows):.3g} to "
                         f"{max(r[3] for r in rows):.3g} (standardised spread {out['standardised_spread']:.3g} > "
                         f"{out['critical_value']:.3g}): not a Gaussian trade-off curve")
    else:
        out["plausible"] = True
        out["reason"] = (f"mu is constant across {J} thresholds within sampling error (spread {out['spread']:.3g}, "
                         f"standardised {out['standardised_spread']:.3g} <= {out['critical_value']:.3g})")
    return out
