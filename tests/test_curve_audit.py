"""Curve audits (dpsco.verification.auditing.curves, curve_audit): trade-off curves of GDP, (ε, δ)-DP, zCDP, RDP
and dp_accounting events, the box-below-curve test, the strongest refuted parameters, and fast audits of
Gaussian and Laplace mechanisms (each "refuted" case is the planted bug beside a "not refuted" one).

Golden values are derived by hand in the comments (or come from scipy.stats / dp_accounting as independent
oracles).  Stochastic assertions state their false-failure probability beside them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dp_accounting import GaussianDpEvent, LaplaceDpEvent
from dp_accounting.rdp.rdp_privacy_accountant import compute_delta

from dpsco.reference.privacy import PrivacyClaim
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.clopper_pearson import epsilon_lower_bound
from dpsco.verification.auditing.curve_audit import (
    audit_curve,
    curve_box,
    curve_refutes,
    epsilon_lower_from_box,
    mu_lower_from_box,
    rho_lower_from_box,
)
from dpsco.verification.auditing.curves import (
    ZCDP_ORDERS,
    CurveClaim,
    dp_tradeoff,
    family_tradeoff,
    gdp_tradeoff,
    rdp_delta,
    zcdp_delta,
)
from dpsco.verification.auditing.events import Event

from _mechanisms import GaussianSum1D, LaplaceSum

SETTINGS = settings(max_examples=40, deadline=None)
DS = {"x": np.zeros(5)}
NB = {"x": np.r_[np.zeros(4), 1.0]}  # replace-one neighbours, sum differs by 1 (sensitivity 1)


# ------------------------------------------------------------------------------------------------ curves
def test_gdp_curve_golden_values() -> None:
    # μ = 1, α = 1/2: Φ⁻¹(1/2) = 0, f = Φ(−1).  At α = Φ(−μ/2): Φ⁻¹(1 − α) = μ/2, f = Φ(−μ/2) = α (the
    # symmetric point).  μ = 0: f = 1 − α.
    assert gdp_tradeoff(0.5, 1.0) == pytest.approx(stats.norm.cdf(-1.0), abs=1e-15)
    a = stats.norm.cdf(-1.5)
    assert gdp_tradeoff(a, 3.0) == pytest.approx(a, rel=1e-12)
    np.testing.assert_allclose(gdp_tradeoff(np.array([0.0, 0.3, 1.0]), 0.0), [1.0, 0.7, 0.0], atol=1e-15)


def test_dp_curve_golden_values() -> None:
    # ε = log 2, δ = 0.1: α = 0.2: 1 − 0.1 − 2·0.2 = 0.5 vs ½(0.9 − 0.2) = 0.35 -> 0.5;
    # α = 0.6: 0.9 − 1.2 < 0, ½(0.3) = 0.15 -> 0.15; α = 0.95: both < 0 -> 0.
    np.testing.assert_allclose(dp_tradeoff(np.array([0.2, 0.6, 0.95]), math.log(2), 0.1), [0.5, 0.15, 0.0],
                               atol=1e-15)
    # the family of two pairs (log 2, 0.1) and (0, 0.3): at α = 0.6 the second gives 1 − 0.3 − 0.6 = 0.1 < 0.15,
    # at α = 0.2 it gives 0.5 = the first; at α = 0.5 the first gives max(0.9 − 1, ½·0.4) = 0.2, the second 0.2.
    np.testing.assert_allclose(family_tradeoff(np.array([0.2, 0.6, 0.5]), [math.log(2), 0.0], [0.1, 0.3]),
                               [0.5, 0.15, 0.2], atol=1e-15)


@SETTINGS
@given(rho=st.floats(1e-3, 5.0), eps=st.floats(0.0, 40.0))
def test_zcdp_delta_is_dp_accountings_conversion(rho: float, eps: float) -> None:
    # independent oracle: dp_accounting.rdp.compute_delta over the same orders (CKS20 Prop. 12)
    want = compute_delta(list(ZCDP_ORDERS), list(rho * ZCDP_ORDERS), eps)[0]
    assert zcdp_delta(eps, rho) == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_rdp_delta_matches_dp_accounting_on_given_orders() -> None:
    orders, rdp = [1.5, 2.0, 4.0, 16.0, 64.0], [0.1, 0.3, 0.9, 4.0, 20.0]
    for eps in (0.0, 0.5, 2.0, 6.0):
        assert rdp_delta(eps, orders, rdp) == pytest.approx(compute_delta(orders, rdp, eps)[0], rel=1e-12)


@SETTINGS
@given(rho=st.floats(0.01, 3.0), eps=st.floats(0.0, 12.0), alpha=st.floats(0.0, 1.0))
def test_zcdp_curve_dominates_each_of_its_pairs(rho: float, eps: float, alpha: float) -> None:
    # f is the sup over a 512-point ε grid: at an ε off the grid the pair's curve may exceed it by the grid's
    # gap, measured < 4e-5 (ρ = 0.5, 1000 ε values × 2001 α values); 1e-3 is the tolerance.
    f = CurveClaim.zcdp(rho).tradeoff(alpha)
    assert f >= dp_tradeoff(alpha, eps, float(zcdp_delta(eps, rho))) - 1e-3


@SETTINGS
@given(rho=st.floats(0.01, 3.0), a=st.floats(0.0, 1.0), b=st.floats(0.0, 1.0), drho=st.floats(0.0, 1.0))
def test_zcdp_curve_is_monotone_nested_and_below_the_gaussian(rho: float, a: float, b: float, drho: float) -> None:
    lo, hi = min(a, b), max(a, b)
    c, c2 = CurveClaim.zcdp(rho), CurveClaim.zcdp(rho + drho)
    f = c.tradeoff(np.array([lo, hi]))
    assert f[0] >= f[1]  # non-increasing in α
    assert c2.tradeoff(lo) <= f[0] + 1e-15  # nested: a larger ρ claims less
    # validity: the Gaussian mechanism N(μ, 1) vs N(0, 1) is exactly μ²/2-zCDP and its curve is G_μ, so the curve
    # implied by ρ-zCDP can never lie above G_{√(2ρ)}
    assert f[0] <= gdp_tradeoff(lo, math.sqrt(2 * rho)) + 1e-12


def test_rdp_curve_claim_of_a_linear_rdp_curve_is_the_zcdp_curve() -> None:
    # ρ-zCDP is by definition the RDP curve a ↦ ρa: given on the same orders, the two claims have one curve
    al = np.linspace(0.0, 1.0, 101)
    c = CurveClaim.rdp_curve(ZCDP_ORDERS, 0.3 * ZCDP_ORDERS)
    np.testing.assert_array_equal(c.tradeoff(al), CurveClaim.zcdp(0.3).tradeoff(al))
    with pytest.raises(ValueError, match="orders"):
        CurveClaim.rdp_curve([0.5, 2.0], [0.1, 0.2])


def test_event_curve_of_a_gaussian_is_close_below_g_mu() -> None:
    # GaussianDpEvent(σ) on replace-one: sensitivity 2, μ = 2/σ; PLD is pessimistic: f <= G_μ, and close to it
    c = CurveClaim.from_event(GaussianDpEvent(2.0), "REPLACE_ONE")
    al = np.linspace(0.0, 1.0, 41)
    f, g = c.tradeoff(al), gdp_tradeoff(al, 1.0)
    assert np.all(f <= g + 1e-12)
    assert np.max(g - f) < 0.02


def test_zcdp_event_goes_through_the_rdp_accountant() -> None:
    # dp_accounting's PLD accountant does not take ZCDpEvent; the RDP accountant over the same orders does, and
    # its conversion is the one of zcdp_delta (CKS20 Prop. 12), so the curves agree to rounding
    from dp_accounting import ZCDpEvent

    al = np.linspace(0.0, 1.0, 51)
    c = CurveClaim.from_event(ZCDpEvent(0.5), "ADD_OR_REMOVE_ONE")
    np.testing.assert_allclose(c.delta_of_epsilon(np.array([0.5, 2.0, 5.0])), zcdp_delta(np.array([0.5, 2.0, 5.0]), 0.5),
                               rtol=1e-9)
    np.testing.assert_allclose(c.tradeoff(al), CurveClaim.zcdp(0.5).tradeoff(al), atol=1e-3)


def test_curve_claim_normalisation_and_errors() -> None:
    assert CurveClaim.from_privacy_claim(PrivacyClaim("GDP", 1.0, 1e-5, "replace-one", "s", mu=0.7)).mu == 0.7
    assert CurveClaim.from_privacy_claim(PrivacyClaim("zCDP", 1.0, 1e-5, "replace-one", "s", rho=0.2)).rho == 0.2
    c = CurveClaim.from_privacy_claim(PrivacyClaim("pure-DP", 2.0, 0.0, "add/remove", "s"))
    assert (c.notion, c.epsilon, c.delta, c.neighbouring) == ("approx-DP", 2.0, 0.0, "add/remove")
    ev = PrivacyClaim("approx-DP", 1.0, 1e-5, "replace-one", "s", event=LaplaceDpEvent(1.0),
                      event_neighbouring="REPLACE_ONE")
    assert CurveClaim.from_privacy_claim(ev, use_event=True).notion == "event"
    with pytest.raises(ValueError, match="mu"):
        CurveClaim.gdp(-1.0)
    with pytest.raises(TypeError, match="rho"):
        CurveClaim.zcdp("0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="notion"):
        CurveClaim("Renyi")
    with pytest.raises(ValueError, match="event_neighbouring"):
        CurveClaim.from_event(LaplaceDpEvent(1.0), "NEIGHBOURS")
    with pytest.raises(ValueError, match="no parameter or event"):
        CurveClaim.from_privacy_claim(PrivacyClaim("zCDP", 1.0, 1e-5, "replace-one", "s"))


# ------------------------------------------------------------------------------------------------ the box test
BOXES = st.tuples(st.integers(1, 10**6), st.floats(0, 1), st.floats(0, 1)).map(
    lambda t: (t[0], int(t[1] * t[0]), int(t[2] * t[0])))


@SETTINGS
@given(box=BOXES, conf=st.sampled_from([0.9, 0.95, 1 - 1e-6]))
def test_mu_lower_closed_form_equals_bisection(box: tuple[int, int, int], conf: float) -> None:
    n, kp, kq = box
    a, b, p_lo, q_hi = curve_box(kp, n, kq, n, conf)
    mu = mu_lower_from_box(p_lo, q_hi)
    lo, hi = 0.0, 50.0
    if not curve_refutes(a, b, lambda x: gdp_tradeoff(x, 0.0)):
        assert mu == 0.0
        return
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if curve_refutes(a, b, lambda x: gdp_tradeoff(x, mid)) else (lo, mid)
    assert mu == pytest.approx(lo, abs=1e-7)


@SETTINGS
@given(box=BOXES, conf=st.sampled_from([0.9, 0.95, 1 - 1e-6]), delta=st.sampled_from([0.0, 1e-5, 0.01, 0.2]))
def test_epsilon_lower_coincides_with_the_threshold_route(box: tuple[int, int, int], conf: float, delta: float) -> None:
    n, kp, kq = box
    a, b, p_lo, q_hi = curve_box(kp, n, kq, n, conf)
    eps = epsilon_lower_from_box(p_lo, q_hi, delta)
    thr = epsilon_lower_bound(kp, n, kq, n, delta, conf)  # the existing route, same counts
    comp = epsilon_lower_bound(n - kq, n, n - kp, n, delta, conf)  # complement event, other direction
    assert eps >= thr  # bit-identical term: never below the threshold route
    if thr > comp:  # (on a tie the complement term, equal up to rounding, may be the larger by an ulp)
        assert eps == thr
    assert eps == pytest.approx(max(thr, comp), rel=1e-9, abs=1e-12)
    # and it is the edge of the curve test: ε < ε_lb refuted, ε > ε_lb not
    if 0 < eps < 30:
        assert curve_refutes(a, b, lambda x: dp_tradeoff(x, eps * (1 - 1e-6), delta))
    if eps < 30:
        assert not curve_refutes(a, b, lambda x: dp_tradeoff(x, eps * (1 + 1e-6) + 1e-9, delta))


def test_rho_lower_is_refuted_and_the_edge() -> None:
    # counts of a Gaussian μ = 2 event (p = 1/2, q = Φ(−2)) at n = 1e5
    n = 100_000
    a, b, _, _ = curve_box(n // 2, n, int(n * stats.norm.cdf(-2.0)), n, 0.95)
    rho = rho_lower_from_box(a, b)
    assert 0.5 < rho < 2.0  # μ_lb ≈ 1.9 -> the GDP ρ would be ≈ 1.8; the zCDP curve is lower, so ρ_lb is below
    assert curve_refutes(a, b, CurveClaim.zcdp(rho).tradeoff)
    assert not curve_refutes(a, b, CurveClaim.zcdp(rho * (1 + 1e-4)).tradeoff)


# ------------------------------------------------------------------------------------------------ audits
def test_audit_curve_approx_reuses_the_threshold_audit_bit_for_bit() -> None:
    mech = GaussianSum1D(1.0)
    r = audit_curve(mech, DS, NB, (1.0, 1e-5), 4000, np.random.default_rng(7), power=False)
    t = audit(mech, DS, NB, (1.0, 1e-5), 4000, np.random.default_rng(7), power_family=None)
    assert r.base.epsilon_lower == t.epsilon_lower and r.base.details["event"] == t.details["event"]
    assert r.epsilon_lower >= t.epsilon_lower
    assert r.refuted == (r.epsilon_lower > 1.0)


@pytest.mark.parametrize("claim", [CurveClaim.gdp(1.0), CurveClaim.zcdp(0.5)])
def test_gaussian_mechanism_true_claim_not_refuted(claim: CurveClaim) -> None:
    # σ = 1, Δ = 1: exactly 1-GDP and 0.5-zCDP.  False failure <= 1 − confidence = 1e-6 (the guarantee).
    r = audit_curve(GaussianSum1D(1.0), DS, NB, claim, 20_000, np.random.default_rng(11), confidence=1 - 1e-6)
    assert r.verdict == "not refuted", r.summary()
    assert r.minimum_detectable is not None and r.minimum_detectable["value"] > 1.0
    d = r.to_dict()
    assert d["claim"]["notion"] == claim.notion and d["verdict"] == "not refuted" and "mu_lower" in d


def _refuting_counts(n: int, p: float, q: float, claim: CurveClaim, conf: float) -> float:
    """Miss probability of a fixed event with P(E) = p, Q(E) = q on n runs per side: a = p·n − 6·sd and
    b = q·n + 6·sd counts give a box below the claim's curve (checked here), and CP bounds are monotone in the
    counts, so a miss needs k_p < a or k_q > b: probability <= Bin(n, p).cdf(a − 1) + Bin(n, q).sf(b)."""
    a = int(math.floor(n * p - 6 * math.sqrt(n * p * (1 - p))))
    b = int(math.ceil(n * q + 6 * math.sqrt(n * q * (1 - q))))
    al, be, _, _ = curve_box(a, n, b, n, conf)
    assert curve_refutes(al, be, claim.tradeoff), "the planted bug is not detectable at these sizes"
    return float(stats.binom.cdf(a - 1, n, p) + stats.binom.sf(b, n, q))


@pytest.mark.parametrize("claim", [CurveClaim.gdp(1.0), CurveClaim.zcdp(0.5)])
def test_planted_bug_gaussian_half_sigma_refuted(claim: CurveClaim) -> None:
    # planted bug: σ/2 (μ = 2).  Fixed event {s >= 1}, numerator the neighbour (sum 1): p = 1/2, q = Φ(−2).
    n, conf = 20_000, 0.999
    miss = _refuting_counts(n, 0.5, stats.norm.cdf(-2.0), claim, conf)
    assert miss <= 1e-6  # the false-failure probability of the assertion below (derived, printed on failure)
    r = audit_curve(GaussianSum1D(0.5), DS, NB, claim, n, np.random.default_rng(3), confidence=conf,
                    event=Event(1.0, "ge", "neighbour"), power=False)
    assert r.verdict == "refuted", (miss, r.summary())
    if claim.notion == "zCDP":
        assert r.rho_lower is not None and r.rho_lower > 0.5


def test_laplace_under_zcdp_not_refuted_and_planted_bug_refuted() -> None:
    # Laplace(ε = 1) is pure 1-DP, hence ε²/2 = 0.5-zCDP (Bun & Steinke 2016, Prop. 1.4): never refuted at
    # confidence 1 − 1e-6 (false failure <= 1e-6).
    claim = CurveClaim.zcdp(0.5)
    r = audit_curve(LaplaceSum(1.0), DS, NB, claim, 20_000, np.random.default_rng(5), confidence=1 - 1e-6)
    assert r.verdict == "not refuted", r.summary()
    # planted bug: scale 1/3 (ε = 3).  Event {s >= 1/2}, numerator the neighbour: p = 1 − ½e^{−3/2}, q = ½e^{−3/2}.
    q = 0.5 * math.exp(-1.5)
    miss = _refuting_counts(20_000, 1 - q, q, claim, 0.999)
    assert miss <= 1e-6  # false-failure probability of the next assertion
    bug = audit_curve(LaplaceSum(1 / 3), DS, NB, claim, 20_000, np.random.default_rng(5), confidence=0.999,
                      event=Event(0.5, "ge", "neighbour"), power=False)
    assert bug.verdict == "refuted", (miss, bug.summary())


def test_event_claim_audit() -> None:
    # GaussianDpEvent(2) on replace-one is the 1-GDP Gaussian: σ = 1 not refuted (false failure <= 1e-6)
    claim = CurveClaim.from_event(GaussianDpEvent(2.0), "REPLACE_ONE")
    r = audit_curve(GaussianSum1D(1.0), DS, NB, claim, 10_000, np.random.default_rng(9), confidence=1 - 1e-6,
                    power=False)
    assert r.verdict == "not refuted", r.summary()
    # planted bug σ/2, fixed event as above
    miss = _refuting_counts(10_000, 0.5, stats.norm.cdf(-2.0), claim, 0.999)
    assert miss <= 1e-6  # false-failure probability of the next assertion
    bug = audit_curve(GaussianSum1D(0.5), DS, NB, claim, 10_000, np.random.default_rng(9), confidence=0.999,
                      event=Event(1.0, "ge", "neighbour"), power=False)
    assert bug.verdict == "refuted"


def test_audit_curve_input_errors() -> None:
    with pytest.raises(TypeError, match="claim"):
        audit_curve(GaussianSum1D(1.0), DS, NB, "gdp:1", 100, np.random.default_rng(0))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="confidence"):
        audit_curve(GaussianSum1D(1.0), DS, NB, CurveClaim.gdp(1.0), 100, np.random.default_rng(0), confidence=1.0)


# ------------------------------------------------------------------------------------------------ campaign
@pytest.mark.campaign
@pytest.mark.parametrize("claim, target", [(CurveClaim.gdp(1.0), 0.90), (CurveClaim.zcdp(0.5), 0.30)])
def test_campaign_tightness_targets(claim: CurveClaim, target: float) -> None:
    # Issue 11's targets, Gaussian mechanism σ = 1 (exactly 1-GDP, 0.5-zCDP), 1e5 runs per side, 20 audits,
    # confidence 0.95: median μ_lb >= 0.90, median ρ_lb >= 0.30.  Measured (benchmarks/curve_audit_targets.py):
    # 0.984 and 0.322.  False failure: not derived (a median of 20 audits against a target below the measured
    # median by > 3 of its standard deviations across seeds); this is a campaign test, not the default suite.
    vals = []
    for i in range(20):
        r = audit_curve(GaussianSum1D(1.0), DS, NB, claim, 100_000, np.random.default_rng([2026, i]), power=False)
        vals.append(r.rho_lower if claim.notion == "zCDP" else r.mu_lower)
    assert np.median(vals) >= target, vals


@pytest.mark.campaign
def test_campaign_soundness_1000_audits_per_notion() -> None:
    # 1,000 audits of a true claim per notion at confidence 0.95 (2,000 runs per side, exact sampler): the count
    # of refutations V ~ Bin(1000, p) with p <= 0.05; P(Bin(1000, 0.05) >= 87) < 1e-6, so V >= 87 is evidence of
    # unsoundness with false-failure probability < 1e-6.
    assert stats.binom.sf(86, 1000, 0.05) < 1e-6
    from dpsco.oracles.privacy_curves import gdp_mu_to_epsilon

    for claim in (CurveClaim.gdp(1.0), CurveClaim.zcdp(0.5), CurveClaim.approx(gdp_mu_to_epsilon(1.0, 1e-5), 1e-5)):
        v = sum(audit_curve(GaussianSum1D(1.0), DS, NB, claim, 2000, np.random.default_rng([7, i]), power=False,
                            rho_bound=False, sample_check_runs=0).refuted for i in range(1000))
        assert v < 87, (claim.describe(), v)
