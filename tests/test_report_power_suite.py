"""Power beside every suite check (issue 28): the figures of ``verification/checks/power_figures.py``, derived
from each check's own finite-sample test, checked against hand derivations; the campaign record shows them
(``results_record.check_power``), the suites' white-box audits carry the release's claim in its own notion, and a
record whose campaign ran no planted bug says so.  Deterministic: no stochastic assertion in this file."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsco.verification.campaign import results_record as rr
from dpsco.verification.campaign.report_common import claim_text, power_text
from dpsco.verification.checks import power_figures as pf


# ------------------------------------------------------------------------------------------ the figures by hand
def test_hoeffding_lower_power_by_hand() -> None:
    # R = 200 runs per side, c = 1, m = 2 sides, t = 1e-6: r(a) = √(ln(1/a)/(2R));
    # r(1e-6) = √(13.8155/400) = 0.185846, r(5e-7) = √(14.5087/400) = 0.190451 → s = 0.376297
    p = pf.hoeffding_lower_power(0.289, 1.0, 200, 2)
    assert p["minimum_detectable_shortfall"] == pytest.approx(0.376297, abs=2e-6)
    assert p["minimum_detectable_mean"] is None  # s > B: not even a mean of 0 is detected at 1 − 1e-6
    assert p["power_at_factor_2"] == 0.0 and p["reaches_claim"] is False  # B/2 = 0.1445 < r(t) = 0.1858
    # R = 20000: r(1e-6) = 0.018585; at E = B/2 = 0.5 the bound 1 − 2·exp(−2R(0.5 − 0.018585)²) = 1 (to 1e-300)
    q = pf.hoeffding_lower_power(1.0, 1.0, 20000, 2)
    assert q["power_at_factor_2"] == 1.0 and q["reaches_claim"] is True
    with pytest.raises(ValueError, match="runs"):
        pf.hoeffding_lower_power(1.0, 1.0, 0)


def test_hoeffding_upper_power_by_hand() -> None:
    # top 2, R = 100, m = 4, t = 1e-6: r(2.5e-7) = 2√(ln(4e6)/200) = 2√(15.201805/200) = 2·0.275697 = 0.551395,
    # and r(MISS/m) is the same: s = 1.102789
    p = pf.hoeffding_upper_power(0.5, 2.0, 100, 4)
    assert p["minimum_detectable_excess"] == pytest.approx(1.102789, abs=2e-6)
    assert p["reaches_claim"] is False  # B = 0.5 < r(t/m) = 0.55: a mean of 2B is not surely detected


def test_binomial_powers_by_hand() -> None:
    # P(success) ≥ 0.6 from 20 runs: P(Bin(20, .6) ≤ 1) = .4^20 + 20·.6·.4^19 = 3.2985e-7 ≤ 1e-6 and
    # P(≤ 2) adds 190·.36·.4^18 = 4.70e-6: it fails at ≤ 1 success.  At half the claim (0.3):
    # P(Bin(20, .3) ≤ 1) = .7^20 + 6·.7^19 = 7.9792e-4 + 6.8393e-3 = 7.6373e-3
    p = pf.binomial_lower_power(0.6, 20)
    assert p["fail_at_count"] == 1
    assert p["power_at_factor_2"] == pytest.approx(0.7 ** 20 + 6 * 0.7 ** 19, rel=1e-12)
    assert p["reaches_claim"] is False
    # P(event) ≤ 0.01 from 20 runs: fails at x* events, the smallest with P(Bin(20, .01) ≥ x*) ≤ 1e-6;
    # P(≥ 5) ≈ C(20,5)·1e-10 = 1.55e-6 > 1e-6 and P(≥ 6) ≈ C(20,6)·1e-12 = 3.9e-8: x* = 6
    q = pf.binomial_upper_power(0.01, 20)
    assert q["fail_at_count"] == 6
    rate = q["minimum_detectable_rate"]  # by definition P(Bin(20, rate) ≥ 6) = 1 − 1e-6
    assert stats.binom.sf(5, 20, rate) == pytest.approx(1 - 1e-6, abs=1e-9)
    # a bound no count can refute: P(Bin(4, 0.5) ≥ 4) = 1/16 > 1e-6
    assert pf.binomial_upper_power(0.5, 4)["fail_at_count"] is None


def test_two_sided_binomial_power_has_exact_size() -> None:
    p = pf.binomial_two_sided_power(0.5, 700, 0.5)
    assert p["power_at_alternative"] <= 1e-6  # the rejection region's probability under H0 (exact size)
    far = pf.binomial_two_sided_power(0.5, 700, 0.75)
    assert far["power_at_alternative"] > 0.999 and far["reaches_claim"] is True
    assert pf.binomial_two_sided_power(0.5, 0, 0.75)["reaches_claim"] is False


def test_laplace_and_gaussian_powers_by_hand() -> None:
    # S ~ Gamma(k, 1), fails when S ≤ q = Gamma(k, 1)⁻¹(1e-6); a copy at scale s passes w.p. P(Gamma(k, 1) > q/s)
    k = 1000
    q = stats.gamma.ppf(1e-6, k)
    p = pf.laplace_scale_power(k)
    assert p["miss_probability_scale"] == pytest.approx(stats.gamma.sf(q * math.sqrt(2.0), k), rel=1e-9)
    assert stats.gamma.sf(q / p["largest_scale_caught"], k) == pytest.approx(1e-6, rel=1e-6)
    # the room's own derivation of the same miss probability (accd22 noise, at its level 1e-6) agrees
    from dpsco.verification.papers.accd22.noise import laplace_miss_probability

    assert p["miss_probability_scale"] == pytest.approx(laplace_miss_probability(k, 2 ** -0.5, 1e-6), rel=1e-9)
    # μ ≤ μ_claim from the χ² law: at μ = κ·μ_claim the check fails w.p. P(χ²_dof ≤ q_t κ²)
    g = pf.gaussian_mu_power(1.0, 400)
    qt = stats.chi2.ppf(1e-6, 400)
    assert stats.chi2.cdf(qt * g["minimum_detectable_ratio"] ** 2, 400) == pytest.approx(1 - 1e-6, abs=1e-9)
    assert g["power_at_factor_2"] == pytest.approx(stats.chi2.cdf(4 * qt, 400), rel=1e-12)


# ------------------------------------------------------------------------------------- the suites record them
def test_suite_checks_record_their_power() -> None:
    from dpsco.verification.papers.accd22.noise import laplace_scale_check
    from dpsco.verification.papers.muabg23.adaptive import em_bounded_range_check, em_selection_check

    lap = laplace_scale_check(np.ones(1500))
    sel = em_selection_check({"two_candidates": 700, "selected_1": 400})
    rng_ = em_bounded_range_check()
    for c, kind in ((lap, "measured noise"), (sel, "rate"), (rng_, "exact")):
        shown = rr.check_power({**c, "verdict": "pass"})
        assert shown["kind"] == kind and shown["informative"] is True, shown
        assert power_text(shown) not in ("", "not recorded"), shown
    # the planted temperature-without-2 doubles the EM's exponent: at 700 runs the test catches it for sure
    assert sel["power"]["power_at_alternative"] > 1 - 1e-6


def test_a_check_without_a_figure_is_still_not_recorded() -> None:
    assert rr.check_power({"verdict": "pass", "p_value": 0.5})["kind"] == "not recorded"


# ------------------------------------------------------------------------ the claim in its notion, planted bugs
def _suite_rec(audits: dict) -> dict:
    return {"name": "muabg23.noisy_gd", "title": "t", "paper": "p", "algorithm": "a", "privacy_theorem": "T",
            "suite": {"description": "", "tasks": ["x"]}, "suite_audits": audits, "suite_checks": {}}


def test_white_box_suite_audit_shows_the_release_claim_in_its_notion() -> None:
    from dpsco.reference.privacy import PrivacyClaim

    claim = PrivacyClaim(notion="zCDP", epsilon=5.7565, delta=1e-6, neighbouring="replace-one", source="Theorem 9",
                         rho=0.5)
    audit = {"verdict": "not refuted", "p_value": 1.0, "claim": {"epsilon": 5.7565, "delta": 1e-6},
             "release_claim": pf.release_claim(claim)}
    rec = rr.shape_record(_suite_rec({"noisy_gd_white_box": audit}), ())
    assert rec["claim"]["notion"] == "zCDP" and rec["claim"]["rho"] == 0.5
    assert claim_text(rec["claim"]).startswith("ρ = 0.5 (zCDP) ⇒ (ε, δ) = (5.76, 1e-06)")
    # without it, the tested (ε, δ) is all the record can show (the old behaviour)
    old = rr.shape_record(_suite_rec({"noisy_gd_white_box": {k: v for k, v in audit.items()
                                                             if k != "release_claim"}}), ())
    assert "rho" not in old["claim"]


def test_common_record_says_no_planted_bug_was_run() -> None:
    rec = rr.shape_record({"name": "bftt19.nsgd", "title": "t", "paper": "p", "algorithm": "a",
                           "privacy_theorem": "T", "claim": None,
                           "audit": {"verdict": "not refuted", "claim": {"epsilon": 1.0, "delta": 1e-6}},
                           "empirical": {"verdict": "pass", "mean": 0.1, "lcb": 0.0, "bound": 1.0,
                                         "detectable_excess": 0.1}}, ("empirical",))
    assert rec["planted_bugs"] == {}
    why = rec["planted_bugs_not_run"]
    assert "runs no planted bug" in why and "--list-checks bftt19.nsgd" in why and "none is shown as caught" in why


def test_a_suite_check_that_runs_a_bug_is_a_planted_bug_check() -> None:
    # muabg23's proximal_point_schedule runs the data-dependent-F_0 bug in the campaign: it is not "none run"
    check = {"verdict": None, "p_value": 1.0, "statement": "outer T equal on neighbours (public schedule); the "
             "data-dependent-F_0 bug's T differs (transcript lengths differ)"}
    rec = rr.shape_record({**_suite_rec({}), "suite_checks": {"proximal_point_schedule": check,
                                                              "debugging": {"verdict": None, "p_value": 1.0,
                                                                            "statement": "debugging output"}}}, ())
    assert list(rec["planted_bugs"]) == ["proximal_point_schedule"] and list(rec["checks"]) == ["debugging"]
    assert "planted_bugs_not_run" not in rec


def test_reports_say_when_no_planted_bug_was_run() -> None:
    from dpsco.verification.campaign.report_html import _entry
    from dpsco.verification.campaign.report_markdown import entry_lines

    rec = rr.shape_record({"name": "bftt19.nsgd", "title": "t", "paper": "p", "algorithm": "a", "privacy_theorem": "T",
                           "claim": None}, ())
    assert any(line.startswith("* planted bugs: none run by this campaign") for line in entry_lines(rec))
    rows = _entry(rec)["rows"]
    assert [r["verdict"] for r in rows if r["key"] == "planted_bugs"] == ["none run"]
