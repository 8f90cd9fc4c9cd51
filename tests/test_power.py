"""The "uninformative" label (``dpsco.verification.checks.power``): a pass without the power to fail on a
violation of the claim by a factor of two is not reported as a pass, and the label is recomputed from the
record's numbers on --resume / --from.

Golden numbers are hand derivations written here (Hoeffding: the check fails for sure only beyond
detectable = 2·(b − a)·√(log(1/α)/(2R)) above the bound).  Deterministic except the last test, whose draws
are seeded and whose assertion has a stated false-failure probability.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

from dpsco.verification.campaign.rederive import InconsistentRecordError, rederive_campaign
from dpsco.verification.checks.power import UNINFORMATIVE, label_uninformative, uninformative_reason
from dpsco.verification.checks.stats import mean_bound_check, suite_check
from dpsco.verification.checks.theorem_checks import rate_check_from_values, stability_check


def test_bound_check_power_by_hand():
    # A_NSGD's empirical check at the quick budget (the example): range [0, 4], R = 20, α = 1e-3:
    # detectable = 2·4·√(log(1000)/40) = 3.3245 > bound 0.078 → a mean of 2 × 0.078 passes: uninformative
    det = 2 * 4 * math.sqrt(math.log(1e3) / 40)
    c = mean_bound_check("x", np.full(20, 0.03), 0.078, (0.0, 4.0), 1e-3).to_dict()
    assert c["detectable_excess"] == pytest.approx(det, rel=1e-12) and abs(det - 3.3245) < 1e-4
    assert "twice the bound" in uninformative_reason(c)
    # the same check with enough runs to see 2 × bound: R ≥ log(1/α)·(2·4/0.078)²/2 = 36,338
    R = math.ceil(math.log(1e3) * (2 * 4 / 0.078) ** 2 / 2)
    c = mean_bound_check("x", np.full(R, 0.03), 0.078, (0.0, 4.0), 1e-3).to_dict()
    assert c["detectable_excess"] <= 0.078 and uninformative_reason(c) is None
    # a bound at or above the top of the range cannot fail whatever the runs
    c = mean_bound_check("x", np.full(10**6, 0.03), 4.28, (0.0, 4.0), 1e-3).to_dict()
    assert uninformative_reason(c).startswith("cannot fail")


def test_rate_and_stability_power():
    values = [[0.1] * 4, [0.08] * 4, [0.05] * 4]
    noisy = [[v * (1 + 0.01 * i) for i, v in enumerate(vals)] for vals in values]  # a slope fit needs variance
    upper = rate_check_from_values("r", "t", -0.5, [250, 500, 1000], noisy, bounds=[0.6, 0.4, 0.3],
                                   value_range=(0.0, 2.0)).to_dict()
    # detectable at every point: 2·√(log(3/1e-3)/8) = 2.0 > the largest bound 0.6
    assert upper["detectable_bound_excess"] == pytest.approx(2 * math.sqrt(math.log(3e3) / 8), rel=1e-12)
    assert "any grid point" in uninformative_reason(upper)
    loose = rate_check_from_values("r", "t", -0.5, [250, 500, 1000], noisy, bounds=[4.9, 5.3, 6.2],
                                   value_range=(0.0, 2.0)).to_dict()
    assert uninformative_reason(loose).startswith("cannot fail")
    # lr21.alg2's quick rate: bounds 2.60, 2.00 at or above the range's top 2 cannot be exceeded, and at the last
    # point the detectable excess 2·√(log(3000)/8) = 2.0 > 1.56: no grid point can see twice its bound
    mixed = rate_check_from_values("r", "t", -0.5, [250, 500, 1000], noisy, bounds=[2.6, 2.0, 1.56],
                                   value_range=(0.0, 2.0)).to_dict()
    assert "any grid point" in uninformative_reason(mixed)
    seen = rate_check_from_values("r", "t", -0.5, [250, 500, 1000], [v * 50 for v in noisy], bounds=[2.6, 2.0, 1.56],
                                  value_range=(0.0, 2.0)).to_dict()  # 200 runs: detectable 2·√(log(3000)/400) = 0.28
    assert seen["detectable_bound_excess"] < 1.56 and uninformative_reason(seen) is None
    tight = rate_check_from_values("r", "t", -0.5, [250, 500, 1000], noisy, bounds=[0.6, 0.4, 0.3],
                                   value_range=(0.0, 2.0), kind="tight").to_dict()
    assert uninformative_reason(tight) is None  # its slope test has its own power (its interval is reported)
    rng = np.random.default_rng(1)
    D = rng.normal(0.0, 1e-4, size=(50, 3))
    st = stability_check("s", "t", D, 0.01).to_dict()
    assert st["detectable_excess"] < 0.01 and uninformative_reason(st) is None
    st = stability_check("s", "t", D, 18.8, largest_difference=4.0).to_dict()
    assert uninformative_reason(st).startswith("cannot fail")
    st = stability_check("s", "t", D * 1e3, 0.01).to_dict()  # se ≈ 0.014: cannot see 2 × 0.01
    assert "twice the bound" in uninformative_reason(st)


def test_suite_check_states_its_reason_and_only_a_pass_is_relabelled():
    c = suite_check("c", "s", 1.0, uninformative="a band containing 0")
    assert c["uninformative_at_inputs"] == "a band containing 0" and uninformative_reason(c) == "a band containing 0"
    with pytest.raises(ValueError, match="uninformative"):
        suite_check("c", "s", 1.0, uninformative="  ")
    failed = {**suite_check("c", "s", 0.0, uninformative="weak"), "verdict": "fail"}
    passed = {**suite_check("c", "s", 1.0, uninformative="weak"), "verdict": "pass"}
    plain = {**suite_check("c", "s", 1.0), "verdict": "pass"}
    assert label_uninformative([failed, passed, plain]) == 1
    assert failed["verdict"] == "fail" and passed["verdict"] == UNINFORMATIVE and plain["verdict"] == "pass"
    assert passed["uninformative"] == "weak"
    with pytest.raises(TypeError, match="mapping"):
        uninformative_reason([1, 2])  # type: ignore[arg-type]


def _results(check: dict, verdict: str = "pass") -> dict:
    return {"records": [{"name": "e", "empirical": check}], "alpha_campaign": 1e-3, "audit_confidence": 0.95,
            "verdict": verdict, "failed": [] if verdict == "pass" else ["e"]}


def test_rederive_recomputes_the_label():
    weak = mean_bound_check("x", np.full(20, 0.03), 0.078, (0.0, 4.0), 1e-3).to_dict()
    labelled = {**weak, "verdict": UNINFORMATIVE, "uninformative": uninformative_reason(weak)}
    assert rederive_campaign({**_results(labelled), "uninformative_checks": 1}, ("empirical",)) == ("pass", [])
    # a stored "pass" for a check without power is refused (the label is recomputed, not believed) ...
    with pytest.raises(InconsistentRecordError, match="uninformative"):
        rederive_campaign(_results({**weak, "verdict": "pass"}), ("empirical",))
    # ... and so is an "uninformative" the numbers do not support, or a count that disagrees with the records
    strong = mean_bound_check("x", np.full(40_000, 0.03), 0.078, (0.0, 4.0), 1e-3).to_dict()
    with pytest.raises(InconsistentRecordError, match="pass"):
        rederive_campaign(_results({**strong, "verdict": UNINFORMATIVE}), ("empirical",))
    with pytest.raises(InconsistentRecordError, match="uninformative_checks"):
        rederive_campaign({**_results(copy.deepcopy(labelled)), "uninformative_checks": 0}, ("empirical",))
    # a failing check stays a failure however weak its power
    bad = mean_bound_check("x", np.full(20, 4.0), 0.078, (0.0, 4.0), 1e-3).to_dict()
    assert rederive_campaign(_results({**bad, "verdict": "fail"}, "fail"), ("empirical",)) == ("fail", ["e"])


def test_the_label_matches_what_the_check_can_see():
    """The criterion's meaning, by simulation: at a true mean of twice the bound an informative Hoeffding check
    fails in most runs, an uninformative one in none.  Draws are Bernoulli on {0, 4} with mean 2·bound; the
    informative check (R = 40,000) fails whenever the sample mean exceeds bound + r, r = 4·√(log(1000)/80000)
    = 0.0372 < bound = 0.078, so it misses only if the mean of 40,000 draws falls 0.041 below its expectation:
    probability ≤ exp(−2·40000·0.041²/16) = 2.3e-4 per trial by Hoeffding; the assertion needs ≥ 18 of 20 trials
    to fail: false-failure probability ≤ C(20, 3)·(2.3e-4)³ < 1e-8.  The uninformative one (R = 20) needs a
    sample mean above 0.078 + 1.66, i.e. ≥ 9 of 20 draws at 4 when each is 4 with probability 0.039:
    P ≥ 9 ≤ C(20, 9)·0.039⁹ < 3.6e-8 per trial, so "fails in no trial" has false-failure probability < 7.2e-7."""
    rng = np.random.default_rng(20261127)
    bound = 0.078
    fails = {20: 0, 40_000: 0}
    for R in fails:
        for _ in range(20):
            x = 4.0 * (rng.random(R) < 2 * bound / 4.0)
            c = mean_bound_check("x", x, bound, (0.0, 4.0), 1e-3)
            fails[R] += c.verdict == "fail"
    assert uninformative_reason(mean_bound_check("x", np.zeros(20), bound, (0.0, 4.0), 1e-3).to_dict())
    assert uninformative_reason(mean_bound_check("x", np.zeros(40_000), bound, (0.0, 4.0), 1e-3).to_dict()) is None
    assert fails[40_000] >= 18 and fails[20] == 0


def test_an_audit_is_relabelled_only_on_a_stated_reason_and_rederive_agrees():
    audit = {"p_value": 1.0, "confidence": 0.95, "verdict": "not refuted", "epsilon_lower": 0.0,
             "claim": {"epsilon": 1.0, "delta": 1e-5}, "uninformative_at_inputs": "the release is constant (0 steps)"}
    refuted = {**audit, "p_value": 0.0, "verdict": "refuted", "epsilon_lower": 2.0}
    plain = {k: v for k, v in audit.items() if k != "uninformative_at_inputs"}
    assert label_uninformative([audit, refuted, plain], audits=True) == 1
    assert audit["verdict"] == UNINFORMATIVE and refuted["verdict"] == "refuted" and plain["verdict"] == "not refuted"
    results = {"records": [{"name": "e", "suite_audits": {"a": audit}}], "alpha_campaign": 1e-3,
               "audit_confidence": 0.95, "verdict": "pass", "failed": [], "uninformative_audits": 1}
    assert rederive_campaign(results, ()) == ("pass", [])
    with pytest.raises(InconsistentRecordError, match="uninformative"):
        rederive_campaign({**results, "records": [{"name": "e", "suite_audits": {
            "a": {**audit, "verdict": "not refuted"}}}]}, ())
