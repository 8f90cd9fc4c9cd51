"""The auditor's default statistic: a family chosen on the selection half (location, scale, extremes, a learned
classifier), so that a leak in the *scale* of the noise is seen by default.

* Membership (deterministic): which members the family has for k = 1, 4…100 and > 100 coordinates.
* The choice on a scale-only leak (deterministic): selection halves of norm exactly 1 and exactly 2 in random
  directions, whose pooled median is exactly 0 by construction (each run is paired with its antipode), so the
  scale member ‖x − c‖ separates them perfectly and has the largest possible selection score; the family keeps
  it (ties go to the earlier member, and only the scale member precedes the others).  The power of the test
  half given the chosen event is the threshold audit's, tested elsewhere; measured power on Gaussian scale
  leaks is in docs/auditing.md (benchmarks/default_family.py).
* Soundness at the exact boundary (stochastic): audits of a mechanism whose claim is exactly its privacy refute
  with probability ≤ α each (the sample split's guarantee: the family is chosen on the selection half only), so
  over R independent audits the count of refutations is stochastically ≤ Binomial(R, α).  The test fails if it
  exceeds the Binomial(R, α) quantile at 1 − 1e-7: false-failure probability ≤ 1e-7 per case.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.statistics import (CLASSIFIER_MAX_DIM, CLASSIFIER_MIN_DIM, family_members,
                                                    parse_statistic)
from dpsco.verification.papers.harness import gaussian_exact_privacy


def test_family_membership():
    rng = np.random.default_rng(0)
    one = family_members(rng.standard_normal((50, 1)), rng.standard_normal((50, 1)), 1)
    assert [d.split(" ")[0] for _, d, _ in one] == ["the", "distance"]   # identity, |x − c|
    for k, expect in ((3, 3), (CLASSIFIER_MIN_DIM, 4), (CLASSIFIER_MAX_DIM, 4), (CLASSIFIER_MAX_DIM + 1, 3)):
        members = family_members(rng.standard_normal((50, k)), rng.standard_normal((50, k)), k)
        assert len(members) == expect, (k, [d for _, d, _ in members])
    assert parse_statistic("auto") == ("auto", None) and parse_statistic("classifier") == ("classifier", None)


def _antipodal_sphere(n: int, d: int, r: float, rng: np.random.Generator) -> np.ndarray:
    g = rng.standard_normal((n, d))
    u = r * g / np.linalg.norm(g, axis=1, keepdims=True)
    return np.vstack([u, -u])   # every run with its antipode: the coordinate-wise median is exactly 0


@pytest.mark.parametrize("d", [20, 500])
def test_the_family_chooses_the_scale_member_on_a_scale_only_leak(d):
    from dpsco.verification.auditing.statistics import select_statistic_and_event

    rng = np.random.default_rng(d)
    sel_a, sel_b = _antipodal_sphere(1000, d, 1.0, rng), _antipodal_sphere(1000, d, 2.0, rng)
    fn, desc, info, event, score, _ = select_statistic_and_event("auto", None, sel_a, sel_b, d, 1e-5, 0.025, 600,
                                                                 "threshold", 4.0)
    assert desc.startswith("distance to the pooled selection median (scale)"), (desc, info["family"])
    s_a, s_b = fn(sel_a), fn(sel_b)
    assert np.allclose(s_a, 1.0) and np.allclose(s_b, 2.0)            # perfectly separated
    projection = next(m for m in info["family"] if m["statistic"].startswith("projection"))
    assert score > projection["selection_score"]


class ShiftLaplace:
    def __call__(self, data, rng):
        return np.array([data["x"].sum() + rng.laplace()])

    def sample(self, data, n, rng):
        return data["x"].sum() + rng.laplace(size=(n, 1))


class ShiftGaussian:
    def __init__(self, d: int, sigma: float) -> None:
        self.d, self.sigma = d, sigma

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def sample(self, data, n, rng):
        return data["x"].sum() / math.sqrt(self.d) + self.sigma * rng.standard_normal((n, self.d))


S, S1 = {"x": np.array([0.0, 1.0])}, {"x": np.array([0.0, 0.0])}


@pytest.mark.parametrize("case", ["laplace-auto", "gaussian-auto", "gaussian-classifier"])
def test_false_refutations_at_the_exact_boundary_stay_within_alpha(case):
    alpha, reps = 0.2, 60
    if case == "laplace-auto":
        mech, claim, stat = ShiftLaplace(), (1.0, 0.0), "auto"
    else:   # N(·, 2²I_6) with an ℓ2 shift of 1: μ = 0.5; the claim is its exact δ at ε = 1
        mech, claim = ShiftGaussian(6, 2.0), (1.0, gaussian_exact_privacy(0.5).delta_of_epsilon(1.0))
        stat = case.split("-")[1]
    k = sum(audit(mech, S, S1, claim, 2000, np.random.default_rng(7_000 + i), statistic=stat,
                  confidence=1 - alpha, power_family=None).refuted for i in range(reps))
    # false failure ≤ 1e-7: under soundness k is stochastically ≤ Binomial(reps, alpha)
    assert k <= binom.ppf(1 - 1e-7, reps, alpha), (case, k)
