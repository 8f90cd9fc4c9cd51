"""Checks of the papers' claims as calibrated tests: bounds with constants, rates, uniform stability.

Every check is a one-sided test of a null hypothesis *implied by the theorem* and yields a p-value, so a
campaign can control its family-wise false-failure probability with Holm's procedure
(``statsmodels.stats.multitest.multipletests``).  A check "fails" only when the data contradict the theorem
significantly; each record also states its power (the smallest violation it would detect).

* **Bound** (``mean_bound_check`` in ``stats``): H0 E[excess] ≤ bound.  Exact finite-sample p-value from
  Hoeffding's inequality for variables in a known range: p = exp(−2R(X̄ − bound)²/(b − a)²) if X̄ > bound.
* **Rate** (``rate_check``): replicate runs on a grid of n (or d, ε).  What a theorem of the form
  E[excess] ≤ B(x) implies on a finite grid is B(x) at *every* grid point — not a slope: an excess far below
  its bound may decay more slowly than the bound and still satisfy the theorem for every x.  So the verdict
  is the family of bound checks over the grid (exact Hoeffding p-values, Bonferroni over the grid), and the
  slope of log excess on log x (statsmodels OLS, HC3) is *reported* with its confidence interval next to the
  theorem's exponent, as a diagnostic.  Only for designated *tight* instances, where a hand derivation shows
  E[excess] ∝ x^e, is the slope itself tested: H0 |slope − e| ≤ tol (asymptotic t p-value, tol a declared
  tolerance for the misspecification of the power-law model on a finite grid), combined with the bound family
  by Bonferroni.  Example: the 1-D instance ℓ(w, z) = −zw on W = [−M, M] with P[z = 1] = (1 + p)/2, p = 1/√n,
  whose population excess is exactly p(M − w), so that noisy SGD, which attains the 1/√n term of Bassily et
  al. 2019, Thm. 3.2, has excess ∝ n^(−1/2) there.
* **Stability** (``stability_check``): coupled runs on neighbouring datasets sharing all randomness; for each
  probe point z the mean of ℓ(A(S), z) − ℓ(A(S'), z) against the stability bound the proof uses (e.g. Lemma
  3.4 of Bassily et al. 2019, corrected as in ERRATA.md BFTT19-E2).  One-sided t-tests per probe with Bonferroni over
  probes (asymptotic).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Literal, Sequence

import numpy as np
from scipy import stats as sps

__all__ = [
    "RateCheck",
    "StabilityCheck",
    "apply_holm",
    "fit_log_slope",
    "hoeffding_p_value",
    "rate_check",
    "rate_check_from_values",
    "stability_check",
]

#: floor applied to excess values before taking logs (an excess of exactly 0 only occurs in degenerate runs)
LOG_FLOOR = 1e-12


def hoeffding_p_value(mean: float, bound: float, value_range: float, replicates: int) -> float:
    """Exact one-sided p-value of H0: E X ≤ bound from R samples in a range of width ``value_range``."""
    if mean <= bound or value_range <= 0:
        return 1.0
    return float(math.exp(-2.0 * replicates * (mean - bound) ** 2 / value_range**2))


def fit_log_slope(n_values: Sequence[float], excess: Sequence[float]) -> dict[str, float]:
    """OLS of log(excess) on log(n) with HC3 standard errors (statsmodels).

    Returns slope, its standard error, intercept, residual degrees of freedom and the number of points.
    """
    import statsmodels.api as sm

    n_arr = np.asarray(n_values, dtype=np.float64)
    e_arr = np.maximum(np.asarray(excess, dtype=np.float64), LOG_FLOOR)
    if n_arr.shape != e_arr.shape or n_arr.ndim != 1:
        raise ValueError("n_values and excess must be 1-D arrays of the same length")
    if len(np.unique(n_arr)) < 2:
        raise ValueError("n_values must contain at least two distinct sample sizes")
    design = sm.add_constant(np.log(n_arr))
    fit = sm.OLS(np.log(e_arr), design).fit(cov_type="HC3")
    return {"slope": float(fit.params[1]), "se": float(fit.bse[1]), "intercept": float(fit.params[0]),
            "df": float(fit.df_resid), "points": int(n_arr.size)}


@dataclass
class RateCheck:
    """A convergence-rate claim tested by log–log regression over a grid of n."""

    name: str
    theorem: str
    exponent: float
    tolerance: float
    kind: Literal["upper", "lower", "tight"]
    n_grid: list[float]  # the grid of the swept parameter (n by default; see ``variable``)
    mean_excess: list[float]
    replicates: int
    slope: float
    se: float
    intercept: float
    ci_low: float
    ci_high: float
    ci_level: float
    p_value: float
    detectable_excess: float = 0.0  # slope violation beyond the tolerance detected with prob. ≈ 1/2 at α = 1e-3
    variable: str = "n"
    bounds: list[float] | None = None  # the theorem's bound B(x) at each grid point
    value_range: tuple[float, float] | None = None  # range of one excess value (Hoeffding)
    bound_p_value: float = 1.0  # Bonferroni over the grid of exact Hoeffding p-values of H0: E[excess](x) ≤ B(x)
    slope_p_value: float = 1.0  # asymptotic p-value of the slope hypothesis (a diagnostic unless kind == "tight")
    detectable_bound_excess: float = 0.0  # excess over B(x) detected at the smallest grid point, α = 1e-3
    bound_constant: float | None = None  # C of the theorem's bound C·n^exponent, for plots
    verdict: str = "pending"
    method: str = "OLS of log excess on log n (statsmodels, HC3); asymptotic t p-value"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rate_check(name: str, theorem: str, exponent: float, n_grid: Sequence[float], replicates: int,
               draw_excess: Callable[[Any, np.random.Generator], float], seed: np.random.SeedSequence, *,
               tolerance: float = 0.1, kind: Literal["upper", "lower", "tight"] = "upper", ci_level: float = 0.95,
               bound_constant: float | None = None, variable: str = "n",
               bounds: Sequence[float] | Callable[[Any], float] | None = None,
               value_range: tuple[float, float] | None = None,
               progress: Callable[[str], None] | None = None) -> RateCheck:
    """Run ``draw_excess(x, rng)`` ``replicates`` times for each grid value x (each on its own spawned stream),
    fit the log–log slope and test the theorem's exponent in the swept ``variable`` (n, d or ε).

    kind "upper": H0 slope ≤ exponent + tolerance (the theorem bounds E[excess] by C·x^exponent with the
    excess required to *decay at least that fast*, e.g. n^−1/2, or to *grow at most that fast*, e.g. d^1/2);
    "lower": H0 slope ≥ exponent − tolerance (for a bound that blows up as x → 0, e.g. ε^−1: a steeper
    growth contradicts it); "tight": H0 |slope − exponent| ≤ tolerance (Bonferroni over the two sides).
    For "upper"/"lower" the slope test is a diagnostic (``slope_p_value``); the check's ``p_value`` is that of
    the bound family (``bounds`` B(x) at each grid point, excess values in ``value_range``) — the hypothesis the
    theorem implies.  For "tight" the two are combined by Bonferroni.  Without ``bounds`` the slope test is the
    check (legacy behaviour; asymptotic).
    """
    if kind not in ("upper", "lower", "tight"):
        raise ValueError(f"kind must be 'upper', 'lower' or 'tight', got {kind!r}")
    if replicates < 2:
        raise ValueError(f"replicates must be >= 2, got {replicates}")
    grid = [int(x) if float(x).is_integer() else float(x) for x in n_grid]
    streams = seed.spawn(len(grid))
    values = []
    for n, s in zip(grid, streams):
        if progress:
            progress(f"{name}: {variable} = {n}, {replicates} runs")
        values.append([float(draw_excess(n, np.random.default_rng(c))) for c in s.spawn(replicates)])
    return rate_check_from_values(name, theorem, exponent, grid, values, tolerance=tolerance, kind=kind,
                                  ci_level=ci_level, bound_constant=bound_constant, variable=variable, bounds=bounds,
                                  value_range=value_range)


def rate_check_from_values(name: str, theorem: str, exponent: float, n_grid: Sequence[float],
                           values: Sequence[Sequence[float]], *, tolerance: float = 0.1,
                           kind: Literal["upper", "lower", "tight"] = "upper", ci_level: float = 0.95,
                           bound_constant: float | None = None, variable: str = "n",
                           bounds: Sequence[float] | Callable[[Any], float] | None = None,
                           value_range: tuple[float, float] | None = None) -> RateCheck:
    """:func:`rate_check` on excess values already drawn: ``values[i]`` holds the independent runs at
    ``n_grid[i]`` (the same number at every grid point, ≥ 2) — for algorithms that draw their replicates
    together (vectorised).  Same tests, same record."""
    if kind not in ("upper", "lower", "tight"):
        raise ValueError(f"kind must be 'upper', 'lower' or 'tight', got {kind!r}")
    grid = [int(x) if float(x).is_integer() else float(x) for x in n_grid]
    if len(values) != len(grid) or len({len(v) for v in values}) != 1:
        raise ValueError("values needs one sequence per grid point, all of the same length")
    replicates = len(values[0])
    if replicates < 2:
        raise ValueError(f"replicates must be >= 2, got {replicates}")
    ns, ex, means = [], [], []
    for n, vals in zip(grid, values):
        vals = [float(v) for v in vals]
        ns += [n] * replicates
        ex += vals
        means.append(float(np.mean(vals)))
    fit = fit_log_slope(ns, ex)
    t = sps.t(df=fit["df"])
    half = t.ppf(0.5 + ci_level / 2) * fit["se"]
    p_upper = float(t.sf((fit["slope"] - (exponent + tolerance)) / fit["se"]))
    p_lower = float(t.cdf((fit["slope"] - (exponent - tolerance)) / fit["se"]))
    p_slope = {"upper": p_upper, "lower": p_lower, "tight": min(1.0, 2.0 * min(p_upper, p_lower))}[kind]
    p_bound, detect = 1.0, 0.0
    if callable(bounds):  # evaluated after the draws (a bound may depend on parameters the runs computed)
        bounds = [float(bounds(x)) for x in grid]
    if bounds is not None:
        if value_range is None or len(bounds) != len(grid):
            raise ValueError("bounds needs one value per grid point and a value_range")
        width = value_range[1] - value_range[0]
        p_bound = min(1.0, len(grid) * min(hoeffding_p_value(m, b, width, replicates) for m, b in zip(means, bounds)))
        detect = width * math.sqrt(math.log(len(grid) / 1e-3) / (2 * replicates))
        p = min(1.0, 2.0 * min(p_bound, p_slope)) if kind == "tight" else p_bound
    else:
        p = p_slope
    return RateCheck(name=name, theorem=theorem, exponent=exponent, tolerance=tolerance, kind=kind, n_grid=grid,
                     mean_excess=means, replicates=replicates, slope=fit["slope"], se=fit["se"],
                     intercept=fit["intercept"], ci_low=fit["slope"] - half, ci_high=fit["slope"] + half,
                     ci_level=ci_level, p_value=p, detectable_excess=float(t.isf(1e-3) * fit["se"]),
                     variable=variable, bounds=None if bounds is None else [float(b) for b in bounds],
                     value_range=value_range, bound_p_value=p_bound, slope_p_value=p_slope,
                     detectable_bound_excess=detect, bound_constant=bound_constant)


@dataclass
class StabilityCheck:
    """Uniform stability measured by coupled runs, against the bound the proof uses."""

    name: str
    theorem: str
    bound: float
    bound_printed: float | None
    estimate: float  # max over probes of the mean loss difference
    per_probe_mean: list[float]
    per_probe_se: list[float]
    pairs: int
    replicates: int
    p_value: float
    detectable_excess: float
    largest_difference: float | None = None  # the largest loss difference the domain allows (2·M·L), if known
    verdict: str = "pending"
    method: str = ("coupled runs (same seed ⇒ same batches and noise); one-sided t-test per probe point, "
                   "Bonferroni over probes; asymptotic")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def stability_check(name: str, theorem: str, differences: np.ndarray, bound: float, *,
                    bound_printed: float | None = None, pairs: int = 1, alpha_power: float = 1e-3,
                    largest_difference: float | None = None) -> StabilityCheck:
    """Test H0: sup_z E[ℓ(A(S), z) − ℓ(A(S'), z)] ≤ bound from coupled differences.

    ``differences``: (R, k) array, row r = one coupled pair of runs (possibly pooled over neighbouring pairs),
    column j = probe point z_j.  ``detectable_excess`` is the excess over the bound at which the per-probe test
    rejects with probability about 1/2 at level ``alpha_power`` (Bonferroni-adjusted): z_{α/k}·max se.
    """
    D = np.asarray(differences, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] < 2:
        raise ValueError("differences must be an (R, k) array with R >= 2")
    R, k = D.shape
    means = D.mean(axis=0)
    ses = D.std(axis=0, ddof=1) / math.sqrt(R)
    t = sps.t(df=R - 1)
    pvals = []
    for mu, se in zip(means, ses):
        if se == 0:
            pvals.append(0.0 if mu > bound else 1.0)
        else:
            pvals.append(float(t.sf((mu - bound) / se)))
    p = min(1.0, k * min(pvals))
    return StabilityCheck(name=name, theorem=theorem, bound=float(bound), bound_printed=bound_printed,
                          estimate=float(means.max()), per_probe_mean=means.tolist(), per_probe_se=ses.tolist(),
                          pairs=pairs, replicates=R, p_value=p,
                          detectable_excess=float(t.isf(alpha_power / k) * ses.max()),
                          largest_difference=None if largest_difference is None else float(largest_difference))


def apply_holm(checks: Sequence[Any], alpha: float) -> None:
    """Set each check's ``verdict`` ("pass"/"fail") by Holm's step-down procedure at family-wise level α
    over their ``p_value`` attributes (statsmodels ``multipletests(method="holm")``)."""
    from statsmodels.stats.multitest import multipletests

    if not checks:
        return
    reject = multipletests([c.p_value for c in checks], alpha=alpha, method="holm")[0]
    for c, r in zip(checks, reject):
        c.verdict = "fail" if r else "pass"
