"""Calibrated checks of the papers' claims: Hoeffding bound checks, log–log rate checks, stability checks, Holm.

Each check must pass on data generated under its null and fail on a planted violation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.verification.checks.stats import add_reference_bound, hoeffding_radius, mean_bound_check
from dpsco.verification.checks.theorem_checks import (apply_holm, hoeffding_p_value, rate_check,
                                                     rate_check_from_values, stability_check)


@settings(max_examples=200, deadline=None)
@given(mean=st.floats(0, 1), bound=st.floats(0.01, 1), R=st.integers(1, 10_000), alpha=st.floats(1e-9, 0.5))
def test_hoeffding_p_value_agrees_with_the_confidence_bound(mean, bound, R, alpha):
    """p < α ⇔ LCB > bound (same inequality read two ways), and p is monotone in the mean."""
    r = hoeffding_radius(1.0, R, alpha)
    p = hoeffding_p_value(mean, bound, 1.0, R)
    assert (p < alpha) == (mean - r > bound) or math.isclose(mean - r, bound, abs_tol=1e-12)
    assert hoeffding_p_value(mean + 0.1, bound, 1.0, R) <= p


def test_bound_check_can_fail():
    # planted violation: E X = 0.5 > bound 0.3, R = 2000 in [0, 1]; the check fails unless the mean deviates
    # by more than 0.2 − r(1e-6) ≈ 0.117 below its expectation: P ≤ exp(−2·2000·0.083²) < 1e-11 (Hoeffding)
    x = np.random.default_rng(1).uniform(0.0, 1.0, 2000)
    assert mean_bound_check("planted", x, 0.3, (0.0, 1.0), 1e-6).verdict == "fail"
    # and passes under the null (bound 0.6 > E X = 0.5): false failure ≤ 1e-6 by construction
    assert mean_bound_check("null", x, 0.6, (0.0, 1.0), 1e-6).verdict == "pass"


def test_reference_bounds_are_reported_and_never_set_the_verdict():
    """Hand derivation: 100 samples equal to 1 in [0, 2], α = 1e-3: LCB = 1 − 2√(log(1000)/200) = 0.6283.
    A printed bound 0.5 is contradicted (LCB > 0.5; p = exp(−2·100·0.5²/2²) = exp(−12.5)); 0.9 is not (p = 1
    only if mean ≤ bound, else exp(−2·100·0.1²/4) = exp(−0.5)).  The verdict stays that of the check's own bound."""
    c = mean_bound_check("c", np.ones(100), 1.2, (0.0, 2.0), 1e-3)
    add_reference_bound(c, "printed", 0.5)
    add_reference_bound(c, "other", 0.9)
    assert c.verdict == "pass" and math.isclose(c.lcb, 1 - 2 * math.sqrt(math.log(1000) / 200), rel_tol=1e-12)
    (a, b) = c.reference_bounds
    assert a["exceeded"] and math.isclose(a["p_value"], math.exp(-12.5), rel_tol=1e-12) and a["ratio"] == 2.0
    assert not b["exceeded"] and math.isclose(b["p_value"], math.exp(-0.5), rel_tol=1e-12)
    assert c.to_dict()["reference_bounds"][0]["label"] == "printed"


def _power_law(exponent: float, noise: float = 0.3):
    def draw(n: int, rng: np.random.Generator) -> float:
        return 2.0 * n**exponent * math.exp(noise * rng.standard_normal())

    return draw


GRID = (250, 500, 1000, 2000, 4000)


def test_rate_check_passes_at_the_theorem_rate_and_fails_a_slower_one():
    """log excess = log 2 + e·log n + 0.3·N(0, 1): OLS on 5×30 points has se(slope) ≈ 0.3/√(150·var(log n)) ≈ 0.026.

    * true e = −0.5, H0 slope ≤ −0.4: a false failure at level 1e-6 needs the estimate ≥ ~4.9 se above the
      boundary, i.e. ≥ 8.7 se above the truth: probability < 1e-17 (Gaussian log-errors: OLS t is exact; HC3
      differs by O(1/N)).
    * planted e = −0.1 (a bug that stalls the decay): the estimate exceeds the boundary by ~11 se, so the
      check fails at 1e-6 unless the estimate is ≥ 6 se below the truth: probability < 1e-9.
    """
    ok = rate_check("null", "theorem", -0.5, GRID, 30, _power_law(-0.5), np.random.SeedSequence(7))
    bad = rate_check("planted", "theorem", -0.5, GRID, 30, _power_law(-0.1), np.random.SeedSequence(8))
    apply_holm([ok], 1e-6)
    apply_holm([bad], 1e-6)
    assert ok.verdict == "pass" and bad.verdict == "fail"
    assert ok.ci_low < -0.5 < ok.ci_high  # the interval covers the truth (95 %, reported only)
    # a faster decay than the theorem's exponent is consistent with an upper bound: passes
    fast = rate_check("fast", "theorem", -0.5, GRID, 30, _power_law(-1.0), np.random.SeedSequence(9))
    apply_holm([fast], 1e-6)
    assert fast.verdict == "pass"


def test_rate_check_with_bounds_tests_the_bound_at_every_grid_point():
    """With the theorem's bounds B(n) given, the verdict tests E[excess](n) ≤ B(n) at every grid point (exact
    Hoeffding, Bonferroni over the grid) and the slope is only reported.  Excess values here are in [0, 1],
    B(n) = 3·n^−0.5, R = 1000 runs per grid point.

    * null: mean 0.1·n^−0.1 — a *slower* decay than the bound's n^−0.5, yet below B(n) on the whole grid
      (0.0436 ≤ 0.0474 at n = 4000, the tightest point): the theorem holds and the check must pass; false
      failure ≤ 1e-6 by the Hoeffding p-values and Holm.
    * planted: mean 0.9·n^−0.1 exceeds B(n) by ≥ 0.34 at n = 4000; missing it needs the mean there to fall
      ≥ 0.34 − 0.088 (the Hoeffding radius at 1e-6/5) below its expectation: probability ≤ exp(−2·1000·0.25²)
      < 1e-50."""
    bounds = lambda n: 3.0 * n**-0.5  # noqa: E731

    def flat(c):
        return lambda n, rng: min(1.0, c * n**-0.1 * (0.5 + rng.random()))  # mean c·n^−0.1, values in [0, 1]

    ok = rate_check("null", "t", -0.5, GRID, 1000, flat(0.1), np.random.SeedSequence(12), bounds=bounds,
                    value_range=(0.0, 1.0))
    bad = rate_check("planted", "t", -0.5, GRID, 1000, flat(0.9), np.random.SeedSequence(13), bounds=bounds,
                     value_range=(0.0, 1.0))
    apply_holm([ok, bad], 1e-6)
    assert ok.verdict == "pass" and bad.verdict == "fail"
    assert ok.slope_p_value < 1e-6  # the slope alone (−0.1 vs −0.5) would have "failed" a correct implementation
    assert ok.bounds == [bounds(n) for n in GRID]


def test_tight_rate_check_is_two_sided():
    """kind "tight": a faster decay (−1.0) than the tight exponent (−0.5 ± 0.1) is also a violation
    (estimate ~15 se below the lower boundary: false pass probability < 1e-9 at level 1e-6)."""
    fast = rate_check("fast", "tight", -0.5, GRID, 30, _power_law(-1.0), np.random.SeedSequence(10), kind="tight")
    ok = rate_check("ok", "tight", -0.5, GRID, 30, _power_law(-0.5), np.random.SeedSequence(11), kind="tight")
    apply_holm([fast, ok], 1e-6)
    assert fast.verdict == "fail" and ok.verdict == "pass"


def test_stability_check_detects_an_exceeded_bound():
    """Differences N(μ, 0.01²), R = 400, k = 3 probes: se = 5e-4.  Null μ = 0.009 < bound 0.01 (2 se
    below): a false failure at 1e-6 needs ≥ ~5.2 + 2 se: probability < 1e-12.  Planted μ = 0.02 (the printed
    constant off by 2×): 20 se above: missed with probability < 1e-40."""
    rng = np.random.default_rng(3)
    null = stability_check("null", "Lemma", rng.normal(0.009, 0.01, (400, 3)), 0.01)
    planted = stability_check("planted", "Lemma", rng.normal(0.02, 0.01, (400, 3)), 0.01)
    apply_holm([null, planted], 1e-6)
    assert null.verdict == "pass" and planted.verdict == "fail"
    assert planted.detectable_excess > 0


def test_holm_matches_statsmodels_and_validates():
    from statsmodels.stats.multitest import multipletests

    class C:
        def __init__(self, p):
            self.p_value, self.verdict = p, "pending"

    ps = [0.001, 0.02, 0.03, 0.5, 1e-7]
    cs = [C(p) for p in ps]
    apply_holm(cs, 0.05)
    assert [c.verdict == "fail" for c in cs] == list(multipletests(ps, 0.05, method="holm")[0])
    with pytest.raises(ValueError, match="kind"):
        rate_check("x", "t", -0.5, GRID, 3, _power_law(-0.5), np.random.SeedSequence(0), kind="both")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="differences"):
        stability_check("x", "t", np.zeros((1, 2)), 1.0)


def test_rate_check_from_values_is_rate_check_on_the_same_draws():
    # the vectorised route (values drawn beforehand) gives the record rate_check gives on the same values
    def draw(n, rng):
        return float(n ** -0.5 * (1.0 + 0.1 * rng.standard_normal()))

    seed = np.random.SeedSequence(11)
    a = rate_check("r", "T", -0.5, (10, 40, 160), 5, draw, seed, bounds=lambda n: 2 * n ** -0.5, value_range=(0, 2))
    vals = [[draw(n, np.random.default_rng(c)) for c in s.spawn(5)]
            for n, s in zip((10, 40, 160), np.random.SeedSequence(11).spawn(3))]
    b = rate_check_from_values("r", "T", -0.5, (10, 40, 160), vals, bounds=lambda n: 2 * n ** -0.5, value_range=(0, 2))
    assert a.to_dict() == b.to_dict()
    with pytest.raises(ValueError, match="values"):
        rate_check_from_values("r", "T", -0.5, (10, 40), [[1.0, 2.0]])
    with pytest.raises(ValueError, match="replicates"):
        rate_check_from_values("r", "T", -0.5, (10, 40), [[1.0], [2.0]])
