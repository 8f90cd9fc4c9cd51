"""Power figures of the suites' own checks: what a check could have detected at the runs it used.

A suite task stores one of these dicts under its check's ``power`` key (``stats.suite_check(..., power=...)``);
``campaign.results_record.check_power`` shows it beside the verdict.  Each is derived from the check's own
finite-sample test, never from a simulation:

* :func:`hoeffding_lower_power` — "max over m components of E[min(X, c)] ≥ B" from R runs per component
  (intersection-union of one-sided Hoeffding tests on [0, c], p = max_v exp(−2R((B − m_v)/c)²));
* :func:`binomial_upper_power` — "P(event) ≤ p" from R runs (exact one-sided binomial p-value P(Bin(R, p) ≥ x));
* :func:`binomial_lower_power` — "P(success) ≥ p" from R runs (exact one-sided binomial p-value
  P(Bin(R, p) ≤ x));
* :func:`laplace_scale_power` — the measured-Laplace-noise check (exact Gamma(k, 1) test of Σ|r_i|/b_i): its
  exact miss probability for a planted copy that draws the noise at a fraction of the reported scale;
* :func:`hoeffding_upper_power` — "E[X] ≤ B at each of m points" (Hoeffding on [0, top], Bonferroni);
* :func:`binomial_two_sided_power` — a two-sided exact binomial test of a selection probability;
* :func:`gaussian_mu_power` — "μ ≤ μ_claim" for Gaussian outputs from the exact χ² law of their sample variance;
* :func:`exact_power` — a statement decided without sampling (counts, closed forms, exact privacy curves).

**When a check surely fails.** The campaign decides every check by Holm's procedure at α = 1e-3 over at most 1000
checks: a p-value ≤ :data:`SURE_FAIL` = 1e-6 fails whatever the other p-values (the same threshold as
``mutants.catches.FAILS_UNDER_HOLM``).  Every figure here is computed at that threshold, so it holds whatever the
other checks of the campaign did; a smaller threshold of the check's own (``alpha``) is used where it has one.

**Detection probability.** A "minimum detectable" value is detected with probability ≥ 1 − :data:`MISS` =
1 − 1e-6 (the same as ``stats.mean_bound_check``'s ``detectable_excess``).  Each figure also gives
``power_at_factor_2``: the probability (exact for the binomial tests, a Hoeffding lower bound otherwise) that the
check fails on a violation of its claim by a factor of two (half a lower bound, twice an upper bound), and
``reaches_claim``: whether that violation is detected with probability ≥ 1/2 — the campaign's "uninformative"
criterion (``checks.power``) — so a report can say which passes are evidence.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from scipy import stats
from scipy.special import gammaincc, gammainccinv

__all__ = ["MISS", "SURE_FAIL", "binomial_lower_power", "binomial_two_sided_power", "binomial_upper_power",
           "exact_power", "gaussian_mu_power", "hoeffding_lower_power", "hoeffding_upper_power",
           "laplace_scale_power", "release_claim"]

#: a p-value at most this fails under Holm at α = 1e-3 over ≤ 1000 checks, whatever the other p-values
SURE_FAIL = 1e-6
#: the miss probability at which a "minimum detectable" violation is stated
MISS = 1e-6


def _threshold(alpha: float | None) -> float:
    t = SURE_FAIL if alpha is None else min(float(alpha), SURE_FAIL)
    if not 0.0 < t < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    return t


def _runs(runs: Any, name: str = "runs") -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise ValueError(f"{name} must be a positive integer, got {runs!r}")
    return runs


def exact_power(note: str, reaches_claim: bool = True) -> dict[str, Any]:
    """The power figure of a statement decided exactly (no sampling error): any violation in the cases it
    evaluates fails it.  ``note``: what is computed exactly; ``reaches_claim`` False where the task knows that
    the cases it evaluates cannot show a violation by a factor of two (its stated "uninformative" reason)."""
    return {"kind": "exact", "note": str(note), "reaches_claim": bool(reaches_claim)}


def gaussian_mu_power(mu_claim: float, dof: int, alpha: float | None = None) -> dict[str, Any]:
    """Power of the exact-law check of μ = Δ/s ≤ ``mu_claim`` for Gaussian outputs N(m, s²I) (Δ = ‖m − m'‖ from
    a coupled run; SS = Σ‖o_j − ō‖², SS/s² ~ χ²_dof; p-value P(χ²_dof ≤ SS·μ_claim²/Δ²)).  At a true μ = κ·μ_claim
    the statistic is χ²_dof/κ², so the check surely fails (p ≤ t = min(alpha, SURE_FAIL)) with probability
    P(χ²_dof ≤ q_t·κ²), q_t the χ²_dof quantile at t — exact.  ``minimum_detectable_mu``: κ*·μ_claim with
    P(χ²_dof ≤ q_t·κ*²) = 1 − MISS; ``power_at_factor_2``: the probability at κ = 2."""
    mu, k, t = float(mu_claim), _runs(dof, "dof"), _threshold(alpha)
    if not (mu > 0 and math.isfinite(mu)):
        raise ValueError(f"mu_claim must be finite and > 0, got {mu_claim!r}")
    q = float(stats.chi2.ppf(t, k))
    kappa = math.sqrt(float(stats.chi2.ppf(1.0 - MISS, k)) / q)
    p2 = float(stats.chi2.cdf(4.0 * q, k))
    return {"kind": "exact law", "parameter": "mu", "claim": mu, "minimum_detectable_mu": kappa * mu,
            "minimum_detectable_ratio": kappa, "detection_probability": 1.0 - MISS, "fail_threshold": t,
            "dof": k, "power_at_factor_2": p2, "reaches_claim": bool(p2 >= 0.5),
            "note": "exact χ² law of the sample variance: the smallest true μ failing the check w.p. ≥ 1 − 1e-6; "
                    "power_at_factor_2: P(fail) at μ = 2·claim"}


def _hoeffding_setup(bound: float, scale: float, runs: int, components: int, alpha: float, scale_name: str
                     ) -> tuple[float, float, int, int, float, Callable[[float], float]]:
    """(B, c, R, m, t, r) of the Hoeffding power figures: the bound, the range c of the truncated or bounded
    variable, the runs, the components, the failing threshold t and the one-sided Hoeffding radius
    r(a) = c·√(log(1/a)/(2R)).  ValueError for non-positive or non-finite ``bound`` / ``scale``."""
    B, c = float(bound), float(scale)
    R, m = _runs(runs), _runs(components, "components")
    if not (B > 0 and c > 0 and math.isfinite(B) and math.isfinite(c)):
        raise ValueError(f"bound and {scale_name} must be finite and > 0, got {bound!r}, {scale!r}")

    def r(a: float) -> float:
        return c * math.sqrt(math.log(1.0 / a) / (2.0 * R))

    return B, c, R, m, _threshold(alpha), r


def hoeffding_lower_power(bound: float, truncation: float, runs: int, components: int = 1,
                          alpha: float | None = None) -> dict[str, Any]:
    """Power of "max over ``components`` of E[min(X, c)] ≥ ``bound``" tested from ``runs`` runs per component
    (one-sided Hoeffding on [0, c], c = ``truncation``, intersection-union: p = max_v exp(−2R((B − m_v)/c)²)).

    With t = min(alpha, SURE_FAIL), the check fails when every m_v < B − r(t), r(a) = c·√(log(1/a)/(2R)).  If
    every true mean is at most B − s with s = r(t) + r(MISS/m), each m_v exceeds B − r(t) with probability
    ≤ MISS/m (Hoeffding), so the check fails with probability ≥ 1 − MISS: ``minimum_detectable_shortfall`` = s
    (``minimum_detectable_mean`` B − s; None when s ≥ B: not even a mean of 0 is detected at that probability).
    At a violation by a factor of two (every true mean ≤ B/2) it fails with probability ≥ ``power_at_factor_2``
    = 1 − m·exp(−2R((B/2 − r(t))/c)²) (0 when B/2 ≤ r(t): no guarantee).  ValueError for non-positive inputs."""
    B, c, R, m, t, r = _hoeffding_setup(bound, truncation, runs, components, alpha, "truncation")
    s = r(t) + r(MISS / m)
    gap = B / 2.0 - r(t)
    p2 = max(0.0, 1.0 - m * math.exp(-2.0 * R * (gap / c) ** 2)) if gap > 0 else 0.0
    return {"kind": "bound", "direction": "lower", "minimum_detectable_shortfall": s,
            "minimum_detectable_mean": B - s if s < B else None, "detection_probability": 1.0 - MISS, "fail_threshold": t,
            "runs": R, "components": m, "truncation": c, "bound": B, "power_at_factor_2": p2,
            "reaches_claim": bool(p2 >= 0.5),
            "note": "smallest shortfall B − E (every component) failing the check w.p. ≥ 1 − 1e-6 (Hoeffding, "
                    "intersection-union); power_at_factor_2: a lower bound on P(fail) at E = B/2"}


def binomial_upper_power(p: float, runs: int, alpha: float | None = None) -> dict[str, Any]:
    """Power of "P(event) ≤ ``p``" tested from ``runs`` runs by the exact p-value P(Bin(R, p) ≥ x) (x events).

    The check fails when x ≥ x* (the smallest count whose p-value is ≤ t = min(alpha, SURE_FAIL); None when no
    count up to R is: it cannot fail).  ``minimum_detectable_rate``: the smallest true rate q with
    P(Bin(R, q) ≥ x*) ≥ 1 − MISS (exact; 1 when none below 1); ``power_at_factor_2``: P(Bin(R, min(1, 2p)) ≥
    x*), exact."""
    R, t = _runs(runs), _threshold(alpha)
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p!r}")
    xs = [x for x in range(1, R + 1) if stats.binom.sf(x - 1, R, p) <= t]
    x_star = xs[0] if xs else None
    out: dict[str, Any] = {"kind": "rate", "direction": "upper", "runs": R, "bound": p, "fail_threshold": t,
                           "fail_at_count": x_star, "detection_probability": 1.0 - MISS}
    if x_star is None:
        out.update(minimum_detectable_rate=None, power_at_factor_2=0.0, reaches_claim=False,
                   note=f"cannot fail: even {R} events of {R} runs have p-value above {t:g}")
        return out
    out["minimum_detectable_rate"] = _solve_rate(lambda q: float(stats.binom.sf(x_star - 1, R, q)))
    p2 = float(stats.binom.sf(x_star - 1, R, min(1.0, 2.0 * p)))
    out.update(power_at_factor_2=p2, reaches_claim=bool(p2 >= 0.5),
               note=f"fails at ≥ {x_star} events of {R}; minimum_detectable_rate: the true rate failing it w.p. "
                    "≥ 1 − 1e-6 (exact binomial); power_at_factor_2: P(fail) at twice the bound")
    return out


def binomial_lower_power(p: float, runs: int, alpha: float | None = None) -> dict[str, Any]:
    """Power of "P(success) ≥ ``p``" tested from ``runs`` runs by the exact p-value P(Bin(R, p) ≤ x) (x wins).

    The check fails when x ≤ x* (the largest count whose p-value is ≤ t; None: it cannot fail).
    ``maximum_detectable_rate``: the largest true success probability q with P(Bin(R, q) ≤ x*) ≥ 1 − MISS (0
    when none above 0); ``power_at_factor_2``: P(Bin(R, p/2) ≤ x*) (a success probability half the claim),
    exact."""
    R, t = _runs(runs), _threshold(alpha)
    p = float(p)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must lie in [0, 1], got {p!r}")
    xs = [x for x in range(0, R) if stats.binom.cdf(x, R, p) <= t]
    x_star = xs[-1] if xs else None
    out: dict[str, Any] = {"kind": "rate", "direction": "lower", "runs": R, "bound": p, "fail_threshold": t,
                           "fail_at_count": x_star, "detection_probability": 1.0 - MISS}
    if x_star is None:
        out.update(maximum_detectable_rate=None, power_at_factor_2=0.0, reaches_claim=False,
                   note=f"cannot fail: even 0 successes of {R} runs have p-value above {t:g}")
        return out
    out["maximum_detectable_rate"] = 1.0 - _solve_rate(lambda q: float(stats.binom.cdf(x_star, R, 1.0 - q)))
    p2 = float(stats.binom.cdf(x_star, R, p / 2.0))
    out.update(power_at_factor_2=p2, reaches_claim=bool(p2 >= 0.5),
               note=f"fails at ≤ {x_star} successes of {R}; maximum_detectable_rate: the true success probability "
                    "failing it w.p. ≥ 1 − 1e-6 (exact binomial); power_at_factor_2: P(fail) at half the claim")
    return out


def _solve_rate(power: Any) -> float | None:
    """The smallest q in (0, 1] with power(q) ≥ 1 − MISS, power increasing in q (bisection to 1e-12); None if
    power(1) < 1 − MISS."""
    if power(1.0) < 1.0 - MISS:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if power(mid) >= 1.0 - MISS:
            hi = mid
        else:
            lo = mid
    return hi


def laplace_scale_power(residuals: int, scale: float = 2 ** -0.5, alpha: float | None = None) -> dict[str, Any]:
    """Power of the measured-Laplace-noise check (statistic S = Σ|r_i|/b_i over k = ``residuals`` replayed
    residuals; S ~ Gamma(k, 1) for Laplace noise at the public scales b_i; p-value P(Gamma(k, 1) ≤ S)).  It surely
    fails when S ≤ q, the Gamma(k, 1) quantile at t = min(alpha, SURE_FAIL).  A planted copy drawing its noise
    at ``scale``·b_i (default 1/√2: the corpus's ``*_draws_laplace_scale_over_sqrt2``) has S ~ Gamma(k, scale)
    and passes with the exact probability P(Gamma(k, 1) > q/scale) (``miss_probability_scale``);
    ``largest_scale_caught``: the scale fraction s* caught with probability ≥ 1 − MISS (P(Gamma(k, 1) > q/s*)
    = MISS); ``power_at_factor_2``: P(fail) at half the scale, exact.  ValueError for k < 1 or a scale outside
    (0, 1)."""
    k = _runs(residuals, "residuals")
    s, t = float(scale), _threshold(alpha)
    if not 0 < s < 1:
        raise ValueError(f"scale must lie in (0, 1), got {scale!r}")
    q = float(stats.gamma.ppf(t, k))
    miss = float(gammaincc(k, q / s))
    s_star = q / float(gammainccinv(k, MISS))
    return {"kind": "measured noise", "residuals": k, "fail_threshold": t, "statistic_threshold": q,
            "planted_scale": s, "miss_probability_scale": miss, "largest_scale_caught": min(1.0, s_star),
            "detection_probability": 1.0 - MISS, "power_at_factor_2": 1.0 - float(gammaincc(k, 2.0 * q)),
            "reaches_claim": bool(miss <= 0.5),
            "note": f"exact: a copy drawing Laplace noise at {s:.4g}× the public scale passes with probability "
                    "miss_probability_scale; power_at_factor_2: P(fail) at half the scale"}


def hoeffding_upper_power(bound: float, top: float, runs: int, components: int = 1,
                          alpha: float | None = None) -> dict[str, Any]:
    """Power of "E[X] ≤ ``bound`` at each of ``components`` points" whose p-value is m·max_v p_v (p_v the
    one-sided Hoeffding p-value on [0, ``top``] from ``runs`` runs: fails only when every point's p_v ≤ t/m,
    t = min(alpha, SURE_FAIL)).  If every true mean is ≥ B + s, s = r(t/m) + r(MISS/m), r(a) = top·√(log(1/a)/
    (2R)), the check fails with probability ≥ 1 − MISS: ``minimum_detectable_excess`` = s; ``power_at_factor_2``
    ≥ 1 − m·exp(−2R((B − r(t/m))/top)²) at every mean = 2B (0 when B ≤ r(t/m) or 2B > top: no guarantee)."""
    B, c, R, m, t, r = _hoeffding_setup(bound, top, runs, components, alpha, "top")
    s = r(t / m) + r(MISS / m)
    gap = B - r(t / m)
    p2 = max(0.0, 1.0 - m * math.exp(-2.0 * R * (gap / c) ** 2)) if gap > 0 and 2 * B <= c else 0.0
    return {"kind": "bound", "direction": "upper", "minimum_detectable_excess": s, "detection_probability":
            1.0 - MISS, "fail_threshold": t, "runs": R, "components": m, "value_range": [0.0, c], "bound": B,
            "power_at_factor_2": p2, "reaches_claim": bool(p2 >= 0.5),
            "note": "smallest excess E − B (at every point) failing the check w.p. ≥ 1 − 1e-6 (Hoeffding, "
                    "Bonferroni); power_at_factor_2: a lower bound on P(fail) at E = 2B"}


def binomial_two_sided_power(p: float, runs: int, p_alternative: float, alpha: float | None = None
                             ) -> dict[str, Any]:
    """Power of the two-sided exact binomial test of "the success probability is ``p``" (p-value
    2·min(P(X ≤ x), P(X ≥ x)), capped at 1) from ``runs`` runs: the exact probability that it surely fails
    (p-value ≤ t) when the true probability is ``p_alternative`` (``power_at_alternative``; the alternative a
    planted bug would give), and ``minimum_detectable_deviation``: the smallest |q − p| (q on either side)
    detected with probability ≥ 1 − MISS.  Runs = 0 (the count is data-dependent): no power."""
    t = _threshold(alpha)
    R = int(runs)
    p, q = float(p), float(p_alternative)
    out: dict[str, Any] = {"kind": "rate", "direction": "two-sided", "runs": R, "bound": p, "alternative": q,
                           "fail_threshold": t, "detection_probability": 1.0 - MISS}
    if R < 1:
        out.update(power_at_alternative=0.0, minimum_detectable_deviation=None, reaches_claim=False,
                   note="no runs: the test cannot fail")
        return out
    x = range(R + 1)
    fails = [k for k in x if min(1.0, 2.0 * min(float(stats.binom.cdf(k, R, p)), float(stats.binom.sf(k - 1, R, p))))
             <= t]

    def power(qq: float) -> float:
        return float(sum(stats.binom.pmf(k, R, qq) for k in fails))

    lo_fail = [k for k in fails if k < R * p]
    hi_fail = [k for k in fails if k > R * p]
    devs = []
    if hi_fail:
        q_hi = _solve_rate(lambda qq: float(stats.binom.sf(min(hi_fail) - 1, R, qq)))
        if q_hi is not None:
            devs.append(q_hi - p)
    if lo_fail:
        q_lo = _solve_rate(lambda qq: float(stats.binom.cdf(max(lo_fail), R, 1.0 - qq)))
        if q_lo is not None:
            devs.append(p - (1.0 - q_lo))  # the largest q below p detected: 1 − q_lo
    pa = power(q)
    out.update(power_at_alternative=pa, minimum_detectable_deviation=min(devs) if devs else None,
               reaches_claim=bool(pa >= 0.5),
               note="exact binomial: power_at_alternative = P(fail) at the alternative's selection probability")
    return out


def release_claim(claim: Any) -> dict[str, Any]:
    """The claim of a release in its own notion, for an audit record that tested the (ε, δ) it implies (a
    white-box audit converts a ρ-zCDP or μ-GDP claim to (ε, δ) at the claim's δ): {"notion", "epsilon",
    "delta", "neighbouring", "source"} and "rho" / "mu" where the claim states one.  ``claim``: a
    ``reference.privacy.PrivacyClaim``.  The campaign record shows it as the entry's claim
    (``campaign.results_record``: ρ-zCDP shows ρ and the (ε, δ) it implies with δ)."""
    out: dict[str, Any] = {"notion": str(claim.notion), "epsilon": float(claim.epsilon),
                           "delta": float(claim.delta), "neighbouring": str(claim.neighbouring),
                           "source": str(claim.source)}
    for key in ("rho", "mu"):
        if getattr(claim, key, None) is not None:
            out[key] = float(getattr(claim, key))
    return out
