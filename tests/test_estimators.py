"""Tests of dpsco.verification.auditing.estimators: GDP, hockey-stick δ-side, one-run, family audits, statistics.

False-failure budget (house rule <= 1e-6 per test): soundness assertions run at confidence 1 − 1e-6 (or the
family's overall confidence 1 − 1e-6), so the estimator's own guarantee bounds a false refutation by 1e-6
(the GDP route's guarantee holds here because the audited mechanisms have Gaussian trade-off curves).  Power
assertions use violations so large that, conditional on the chosen event, the test-half counts would have
to deviate by more than 5 standard deviations (binomial tail <= 1e-6, bounded in each test by scipy's exact
binomial quantiles) to miss; the computations are in the tests.  Golden values come from independent
formulas (scipy.stats.beta/norm) and the one-run saturation table of
docs/derivations.md#one-run-saturation-of-a-perfect-attacker.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import beta, binom, norm

from dpsco.oracles.privacy_curves import gaussian_sigma, gdp_mu_to_epsilon, laplace_delta
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.estimators import (
    audit_family,
    gaussian_likelihood_ratio,
    gdp_epsilon_lower_bound,
    gdp_mu_lower_bound,
    hockey_stick_delta_lower_bound,
    likelihood_ratio_statistic,
    one_run_audit,
    one_run_epsilon_lower_bound,
    one_run_p_value,
    one_run_saturation,
    p_value_of_counts,
)

from _mechanisms import GaussianSum1D as Gaussian1D, LaplaceSum as Laplace1D


def rr_loop(data: dict, rng: np.random.Generator) -> np.ndarray:
    """Randomised response on the last bit, truthful w.p. 3/4 (exactly log 3-DP); no ``sample``."""
    bit = float(data["b"][-1])
    return np.array([bit if rng.random() < 0.75 else 1.0 - bit])


S, S1 = {"x": np.array([0.0, 1.0])}, {"x": np.array([0.0, 0.0])}
SIG = gaussian_sigma(1.0, 1e-5)


# ---------------------------------------------------------------------------------------------------------
# count-level formulas against independent computations
# ---------------------------------------------------------------------------------------------------------
def test_gdp_mu_golden() -> None:
    for kp, kq, n in [(600, 400, 1000), (9000, 100, 10000), (51, 49, 100)]:
        p_lo = beta.ppf(0.025, kp, n - kp + 1)
        q_hi = beta.ppf(0.975, kq + 1, n - kq)
        expected = max(0.0, norm.ppf(p_lo) - norm.ppf(q_hi))
        assert gdp_mu_lower_bound(kp, n, kq, n, 0.95) == pytest.approx(expected, rel=1e-9, abs=1e-12)
        eps, mu = gdp_epsilon_lower_bound(kp, n, kq, n, 1e-5, 0.95)
        assert mu == pytest.approx(expected, rel=1e-9, abs=1e-12)
        ref = gdp_mu_to_epsilon(expected, 1e-5) if expected > 0 else 0.0
        assert eps <= ref and eps == pytest.approx(ref, rel=1e-9)
    assert gdp_mu_lower_bound(0, 100, 50, 100, 0.95) == 0.0
    # δ = 0 is a defined edge of the core conversion (dpsco.reference.conversions.gdp_epsilon), no longer a
    # ValueError: a μ-GDP pair with μ > 0 is not (ε, 0)-DP for any finite ε, so the lower bound is ∞ (μ_lb > 0
    # here) and 0 where μ_lb = 0; audit(estimator="gdp") still refuses δ = 0 up front (test_estimator_validation)
    eps0, mu0 = gdp_epsilon_lower_bound(600, 1000, 400, 1000, 0.0, 0.95)
    assert mu0 > 0.0 and eps0 == math.inf
    assert gdp_epsilon_lower_bound(0, 100, 50, 100, 0.0, 0.95) == (0.0, 0.0)


def test_hockey_stick_golden() -> None:
    kp, kq, n, eps = 700, 100, 1000, 1.0
    expected = beta.ppf(0.025, kp, n - kp + 1) - math.e * beta.ppf(0.975, kq + 1, n - kq)
    assert hockey_stick_delta_lower_bound(kp, n, kq, n, eps, 0.95) == pytest.approx(expected, rel=1e-9)
    assert hockey_stick_delta_lower_bound(10, n, 500, n, eps, 0.95) == 0.0
    with pytest.raises(ValueError):
        hockey_stick_delta_lower_bound(1, 2, 1, 2, -1.0, 0.95)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 3000), fp=st.floats(0, 1), fq=st.floats(0, 1), eps=st.floats(0, 5))
def test_bounds_monotone_in_counts(n: int, fp: float, fq: float, eps: float) -> None:
    # More events on the numerator side / fewer on the denominator side never lower a bound.
    kp, kq = int(fp * n), int(fq * n)
    mu = gdp_mu_lower_bound(kp, n, kq, n, 0.95)
    hs = hockey_stick_delta_lower_bound(kp, n, kq, n, eps, 0.95)
    assert mu >= 0 and 0 <= hs <= 1
    if kp < n:
        assert gdp_mu_lower_bound(kp + 1, n, kq, n, 0.95) >= mu - 1e-12
        assert hockey_stick_delta_lower_bound(kp + 1, n, kq, n, eps, 0.95) >= hs - 1e-12
    if kq > 0:
        assert gdp_mu_lower_bound(kp, n, kq - 1, n, 0.95) >= mu - 1e-12


def test_one_run_saturation_reproduces_the_saturation_table() -> None:
    # The table of docs/derivations.md#one-run-saturation-of-a-perfect-attacker, first computed with independent
    # code (scipy's binomial tail, bisection on ε): m × true ε.
    table = {100: [0.13, 0.61, 1.47, 2.72, 3.02], 1000: [0.39, 0.88, 1.83, 3.60, 5.35],
             10000: [0.47, 0.96, 1.95, 3.87, 7.00]}
    for m, row in table.items():
        got = [one_run_saturation(m, e) for e in (0.5, 1, 2, 4, 8)]
        assert np.allclose(got, row, atol=0.005), (m, got)


def test_one_run_p_value_formula() -> None:
    q = math.exp(1.0) / (1 + math.exp(1.0))
    assert one_run_p_value(100, 50, 40, 1.0, 0.0) == pytest.approx(binom.sf(39, 50, q), rel=1e-12)
    # δ-correction by hand for a tiny case: 2mδ·max_i P[v − i <= B < v]/i
    m, r, v, e, d = 10, 6, 5, 0.5, 1e-3
    q = math.exp(e) / (1 + math.exp(e))
    alpha = max((binom.cdf(v - 1, r, q) - binom.cdf(v - i - 1, r, q)) / i for i in range(1, v + 1))
    assert one_run_p_value(m, r, v, e, d) == pytest.approx(binom.sf(v - 1, r, q) + 2 * m * d * alpha, rel=1e-12)
    assert one_run_p_value(5, 3, 0, 1.0, 0.0) == 1.0
    # ε_lb: the p-value at ε_lb is <= 1 − confidence, just above it is not
    e_lb = one_run_epsilon_lower_bound(1000, 200, 170, 0.0, 0.95)
    assert one_run_p_value(1000, 200, 170, e_lb, 0.0) <= 0.05 < one_run_p_value(1000, 200, 170, e_lb + 1e-6, 0.0)
    with pytest.raises(ValueError):
        one_run_p_value(10, 11, 1, 1.0, 0.0)


def test_p_value_of_counts_matches_the_bound() -> None:
    from dpsco.verification.auditing.audit import epsilon_lower_bound

    p = p_value_of_counts(400, 1000, 100, 1000, 1.0, 0.0)
    assert 0 < p < 1
    assert float(epsilon_lower_bound(400, 1000, 100, 1000, 0.0, 1 - p * 1.001)) > 1.0
    assert float(epsilon_lower_bound(400, 1000, 100, 1000, 0.0, 1 - p * 0.999)) <= 1.0
    assert p_value_of_counts(100, 1000, 100, 1000, 1.0, 0.0) == 1.0


# ---------------------------------------------------------------------------------------------------------
# estimators through audit()
# ---------------------------------------------------------------------------------------------------------
def test_gdp_route_true_claim_not_refuted_and_labelled() -> None:
    # Gaussian mechanism: Gaussian trade-off curve, so the GDP guarantee applies: P(refute) <= 1e-6.
    r = audit(Gaussian1D(SIG), S, S1, (1.0, 1e-5), 20_000, np.random.default_rng(1), confidence=1 - 1e-6,
              estimator="gdp", epsilon_true=1.0)
    assert not r.refuted and r.estimator_kind == "gdp"
    assert r.mu_lower is not None and r.mu_lower <= 1 / SIG
    # no assumption stated: the verdict rests on the assumption-free bound, the GDP figure has its own label
    assert r.assumption is None and r.verdict_basis.startswith("refuted iff epsilon_lower ")
    assert r.epsilon_lower_assuming_gaussian_tradeoff is not None
    assert "Gaussian" in r.assumptions and "ONLY IF" in r.assumptions
    assert r.epsilon_true == 1.0 and r.tightness_ratio == pytest.approx(r.epsilon_lower)
    assert r.details["n_selection"] == 4000  # default selection fraction 0.2 for the GDP route
    json.dumps(r.to_dict())
    assert "μ lower bound" in r.summary()


def test_gdp_route_refutes_a_noise_too_small_by_3() -> None:
    # σ/3 gives μ = 0.804 (exact ε at 1e-5: 4.1).  With 10^4 test runs per side at the chosen event the
    # CP bounds move by < 0.04 in μ at the 1e-6 binomial quantiles, far from the μ ≈ 0.29 needed to
    # exceed ε = 1; checked below with exact binomial quantiles of the chosen event.
    # The verdict rests on the Gaussian figure only when the assumption is stated (true here: Gaussian noise
    # on a fixed sum); the GDP event is in details["gdp"].
    r = audit(Gaussian1D(SIG / 3), S, S1, (1.0, 1e-5), 12_500, np.random.default_rng(2), estimator="gdp",
              assume="gaussian-tradeoff")
    g = r.details["gdp"]
    tau, tail, num = g["threshold"], g["tail"], g["numerator"]
    s = SIG / 3
    pr = {m: (norm.sf(tau, m, s) if tail == "ge" else norm.cdf(tau, m, s)) for m in (0.0, 1.0)}
    p, q = (pr[1.0], pr[0.0]) if num == "dataset" else (pr[0.0], pr[1.0])
    n = r.details["n_test"]
    kp, kq = int(binom.ppf(5e-7, n, p)), int(binom.isf(5e-7, n, q))
    assert gdp_epsilon_lower_bound(kp, n, kq, n, 1e-5, 0.95)[0] > 1.0  # guaranteed region, prob >= 1 − 1e-6
    assert r.refuted and r.assumption is not None and r.assumption["name"] == "gaussian-tradeoff"
    assert r.epsilon_lower_assuming_gaussian_tradeoff > 1.0


def test_hockey_stick_delta_side() -> None:
    # Laplace with ε0 = 2 has δ(1) = 1 − e^{−1/2} = 0.393: a (1, 0.05) claim is false; a (1, 0.5) claim is true.
    true_delta = float(laplace_delta(1.0, 1.0, 0.5))
    r = audit(Laplace1D(0.5), S, S1, (1.0, 0.05), 20_000, np.random.default_rng(3), estimator="hockey-stick")
    assert r.delta_lower is not None and 0.05 < r.delta_lower <= true_delta
    assert r.refuted and r.estimator_kind == "hockey-stick"
    # selected event: P(E) − e Q(E) at the chosen event is >= 0.3 (checked exactly); with n_test = 10^4 the
    # CP bounds are within 0.02 of the truth at the 1e-6 binomial quantiles, so δ_lb > 0.05 except w.p. 1e-6.
    tau = r.threshold
    p, q = (0.5 * math.exp(-(tau - 1) / 0.5) if tau > 1 else 1 - 0.5 * math.exp((tau - 1) / 0.5)), 0.5 * math.exp(-tau / 0.5)
    if r.details["tail"] == "ge" and r.details["numerator"] == "dataset":
        n = r.details["n_test"]
        kp, kq = int(binom.ppf(5e-7, n, p)), int(binom.isf(5e-7, n, q))
        assert hockey_stick_delta_lower_bound(kp, n, kq, n, 1.0, 0.95) > 0.05
    ok = audit(Laplace1D(0.5), S, S1, (1.0, 0.5), 20_000, np.random.default_rng(4), estimator="hockey-stick",
               confidence=1 - 1e-6)
    assert not ok.refuted and ok.delta_lower <= true_delta


def test_estimator_validation() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="estimator"):
        audit(Gaussian1D(1.0), S, S1, (1.0, 1e-5), 100, rng, estimator="nope")
    with pytest.raises(ValueError, match="delta > 0"):
        audit(Gaussian1D(1.0), S, S1, (1.0, 0.0), 100, rng, estimator="gdp")
    with pytest.raises(ValueError, match="epsilon_true"):
        audit(Gaussian1D(1.0), S, S1, (1.0, 1e-5), 100, rng, epsilon_true=-1.0)
    with pytest.raises(ValueError, match="power_family"):
        audit(Gaussian1D(1.0), S, S1, (1.0, 1e-5), 100, rng, power_family="cauchy")
    with pytest.raises(ValueError, match="workers"):
        audit(Gaussian1D(1.0), S, S1, (1.0, 1e-5), 100, rng, workers=0)


def test_power_report_is_recorded() -> None:
    r = audit(Laplace1D(1.0), S, S1, (1.0, 0.0), 2000, np.random.default_rng(5))
    assert r.minimum_detectable_epsilon is not None and r.minimum_detectable_epsilon > 1.0
    assert r.details["power"]["family"] == "laplace" and "planning figure" in r.details["power"]["statement"]


def test_process_pool_gives_the_serial_result() -> None:
    # the single runs are split into tasks by their number alone, each on its own child stream: a pool of 2
    # processes draws exactly the rows this process draws
    RR = ({"b": np.array([0, 1])}, {"b": np.array([0, 0])})
    a = audit(rr_loop, *RR, (math.log(3), 0.0), 400, np.random.default_rng(6), workers=2, power_family=None)
    b = audit(rr_loop, *RR, (math.log(3), 0.0), 400, np.random.default_rng(6), workers=None, power_family=None)
    def untimed(d: dict) -> dict:
        return {k: untimed(v) if isinstance(v, dict) else v for k, v in d.items() if "seconds" not in k}

    assert untimed(a.to_dict()) == untimed(b.to_dict()) and "tasks" in a.details["sampler"]


def test_likelihood_ratio_and_logistic_statistics() -> None:
    # 2-D Gaussian pair: the exact LLR is the optimal statistic; a logistic classifier learns it.
    class G2:
        def __call__(self, data, rng):  # noqa: ANN001
            return data["x"].sum(axis=0) + rng.normal(0, 1.0, size=2)

        def sample(self, data, n, rng):  # noqa: ANN001
            return data["x"].sum(axis=0) + rng.normal(0, 1.0, size=(n, 2))

    A, B = {"x": np.array([[0.0, 0.0], [3.0, 3.0]])}, {"x": np.zeros((2, 2))}
    llr = gaussian_likelihood_ratio([3.0, 3.0], [0.0, 0.0], 1.0)
    X = np.array([[1.0, 2.0], [0.0, 0.0]])
    generic = likelihood_ratio_statistic(lambda Z: norm.logpdf(Z - 3.0).sum(axis=1), lambda Z: norm.logpdf(Z).sum(axis=1))
    assert np.allclose(llr(X), generic(X))
    # μ = 3√2 = 4.24: exact ε at δ = 1e-5 is ~13; claim ε = 1 refuted with either statistic (margin: the
    # plug-in bound of any reasonable event is > 3, i.e. > 20 binomial standard deviations from ε = 1).
    for stat in (llr, "logistic"):
        r = audit(G2(), A, B, (1.0, 1e-5), 4000, np.random.default_rng(7), statistic=stat, power_family=None)
        assert r.refuted


# ---------------------------------------------------------------------------------------------------------
# family audits (multiplicity control)
# ---------------------------------------------------------------------------------------------------------
class LeakyOnSecondPair:
    """Laplace(1) of sum(x), except that it adds 5·x[1] without noise: private on pair 0, not on pair 1."""

    def sample(self, data, n, rng):  # noqa: ANN001
        return data["x"].sum() + 5.0 * data["x"][1] + rng.laplace(0.0, 1.0, size=n)

    def __call__(self, data, rng):  # noqa: ANN001
        return self.sample(data, 1, rng)


PAIRS = [({"x": np.array([1.0, 0.0])}, {"x": np.array([0.0, 0.0])}, "first record"),
         ({"x": np.array([0.0, 1.0])}, {"x": np.array([0.0, 0.0])}, "second record")]


@pytest.mark.parametrize("method", ["select", "bonferroni"])
def test_family_true_claim_not_refuted(method: str) -> None:
    # Laplace(1) of the sum is exactly 1-DP on both pairs: at overall confidence 1 − 1e-6 the union over
    # 2 pairs × 2 statistics stays within 1e-6 (proof in audit_family's docstring).
    r = audit_family(Laplace1D(1.0), PAIRS, (1.0, 0.0), 5000, np.random.default_rng(8),
                     statistics=("projection", "norm"), method=method, confidence=1 - 1e-6)
    assert not r.refuted and r.n_family == 4
    json.dumps(r.to_dict())
    assert "family audit" in r.summary()


@pytest.mark.parametrize("method", ["select", "bonferroni"])
def test_family_finds_the_leaky_pair(method: str) -> None:
    # On pair 1 the outputs are Lap(6, 1) vs Lap(0, 1): ε = 6.  A claim of 1 is refuted by > 10 σ margins.
    r = audit_family(LeakyOnSecondPair(), PAIRS, (1.0, 0.0), 5000, np.random.default_rng(9), method=method)
    assert r.refuted and "second record" in r.details["best_member"]
    if method == "bonferroni":
        flags = {m["pair"]: m["refutes_holm"] for m in r.members}
        assert flags["second record"] and not flags["first record"]


def test_family_gdp_p_values_come_from_the_bound_that_decides() -> None:
    # A μ-GDP claim on the GDP route: each member's verdict is μ_lb > μ (assumption-free); its Holm p-value used
    # to test the threshold event against ε instead, so a member could refute through one bound and count as
    # "not refuting" through the other (family-wise error up to 2α).  Now the p-value is that of the μ bound:
    # p ≤ α_member iff the member refutes (up to the bisection's 1e-6 relative width).  Planted false claim:
    # N(sum, 1) on pairs at distance 1 is exactly 1-GDP; the claim says μ = 0.3 (ε at δ = 1e-5 from μ = 0.3).
    # Deterministic given the seed: the assertion is the identity between the two computations, not a rate.
    from dpsco.oracles.privacy_curves import gdp_mu_to_epsilon
    from dpsco.reference.privacy import PrivacyClaim
    from dpsco.verification.auditing.family import p_value_of_counts

    claim = PrivacyClaim("GDP", gdp_mu_to_epsilon(0.3, 1e-5), 1e-5, "replace-one", "planted", mu=0.3)
    r = audit_family(Gaussian1D(1.0), PAIRS, claim, 4000, np.random.default_rng(21), estimator="gdp",
                     statistics=("projection",), method="bonferroni", confidence=0.95)
    alpha_member = 1.0 - r.details["member_confidence"]
    assert r.refuted
    for m in r.members:
        refuted = m["verdict_at_member_level"] == "refuted"
        assert refuted == (m["p_value"] <= alpha_member * (1 + 1e-5)), m
    with pytest.raises(ValueError, match="claim_mu"):
        p_value_of_counts(10, 100, 1, 100, 1.0, 1e-5, estimator="gdp-mu")
    # the μ p-value against the bound directly: refutes at a iff p ≤ a
    p = p_value_of_counts(600, 1000, 300, 1000, 1.0, 1e-5, estimator="gdp-mu", claim_mu=0.5)
    from dpsco.verification.auditing.gdp import gdp_mu_lower_bound
    assert gdp_mu_lower_bound(600, 1000, 300, 1000, 1 - p * 1.01) > 0.5 >= gdp_mu_lower_bound(600, 1000, 300, 1000,
                                                                                                 1 - p / 1.01)


def test_family_validation() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError):
        audit_family(Laplace1D(1.0), [], (1.0, 0.0), 100, rng)
    with pytest.raises(ValueError, match="method"):
        audit_family(Laplace1D(1.0), PAIRS, (1.0, 0.0), 100, rng, method="fdr")


# ---------------------------------------------------------------------------------------------------------
# one-run audit
# ---------------------------------------------------------------------------------------------------------
def _rr_canaries(eps: float):  # noqa: ANN202
    keep = math.exp(eps) / (1 + math.exp(eps))

    def run(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        # each canary's membership released by ε-DP randomised response (exactly ε-DP per canary, and the
        # canaries are independent, so the whole release is ε-DP w.r.t. each canary)
        flip = rng.random(mask.size) >= keep
        return np.where(flip, ~mask, mask).astype(float) + 1e-3 * rng.standard_normal(mask.size)

    return run


def test_one_run_sound_and_saturating() -> None:
    # true ε = 1: claim ε = 1 not refuted at confidence 1 − 1e-6 (Steinke et al. Thm 3.1).
    r = one_run_audit(_rr_canaries(1.0), 2000, np.random.default_rng(10), confidence=1 - 1e-6, claim_epsilon=1.0)
    assert not r.refuted and r.epsilon_lower <= 1.0
    # true ε = 8 with m = 1000: refutes ε = 1, but saturates far below 8 (ceiling ≈ 5.35, see
    # docs/derivations.md#one-run-saturation-of-a-perfect-attacker)
    r8 = one_run_audit(_rr_canaries(8.0), 1000, np.random.default_rng(11), claim_epsilon=1.0, guesses=[(500, 500)])
    ceiling = one_run_epsilon_lower_bound(1000, 1000, 1000, 0.0, 0.95)  # all 1000 guesses right: ≈ 5.8
    assert r8.refuted and r8.epsilon_lower <= ceiling < 6.0
    assert r8.saturation == pytest.approx(one_run_saturation(1000, 1.0))  # ceiling at the *claimed* ε
    json.dumps(r8.to_dict())
    assert "saturation" in r8.summary()
    with pytest.raises(ValueError):
        one_run_audit(_rr_canaries(1.0), 10, np.random.default_rng(0), guesses=[(8, 8)])


# ---------------------------------------------------------------------------------------------------------
# claim-placed events and the estimator choice
# ---------------------------------------------------------------------------------------------------------
from dpsco.reference.privacy import PrivacyClaim  # noqa: E402
from dpsco.verification.auditing.estimators import (  # noqa: E402
    audit_kwargs,
    choose_estimator,
    claim_event,
    claim_optimal_threshold,
    location_scale,
)


def test_claim_optimal_threshold_matches_a_brute_force_search() -> None:
    # Deterministic: an independent brute-force over a fine linear grid of t with the same expected-count
    # criterion (z = 0) must not beat the function's optimum by more than the grid resolution allows.
    from dpsco.oracles.privacy_curves import gaussian_sigma as gs
    from dpsco.verification.auditing.audit import epsilon_lower_bound

    n = 990_000
    opt = claim_optimal_threshold("gaussian", 1.0, 1e-5, n, pessimism=0.0)
    mu = 1.0 / gs(1.0, 1e-5, 1.0)
    assert opt["shift"] == pytest.approx(mu, rel=1e-12)
    t = np.linspace(2.0, 4.5, 2501)
    P, Q = norm.sf(t - mu), norm.sf(t)
    e = epsilon_lower_bound(np.round(P * n).astype(int), n, np.round(Q * n).astype(int), n, 1e-5, 0.95)
    assert opt["expected_bound"] >= float(np.max(e)) - 2e-3
    assert abs(opt["t"] - t[int(np.argmax(e))]) < 0.2
    # pessimistic placement is shallower (less count noise), still near-optimal in expectation
    robust = claim_optimal_threshold("gaussian", 1.0, 1e-5, n)
    assert robust["t"] < opt["t"] and robust["q"] > opt["q"]
    # Laplace: the pure-DP optimum sits at or above the shift (only there is the ratio e^ε)
    lap = claim_optimal_threshold("laplace", 1.0, 0.0, 99_000)
    assert lap["shift"] == pytest.approx(1.0) and lap["t"] >= 0.9
    # GDP route: bulk events
    g = claim_optimal_threshold("gaussian", 1.0, 1e-5, 80_000, route="gdp")
    assert -1.0 < g["t"] < 1.5


def test_claim_optimal_threshold_validation() -> None:
    with pytest.raises(ValueError, match="family"):
        claim_optimal_threshold("cauchy", 1.0, 1e-5, 100)
    with pytest.raises(ValueError, match="delta > 0"):
        claim_optimal_threshold("gaussian", 1.0, 0.0, 100)
    with pytest.raises(ValueError, match="n_test"):
        claim_optimal_threshold("gaussian", 1.0, 1e-5, 0)
    with pytest.raises(ValueError, match="route"):
        claim_optimal_threshold("gaussian", 1.0, 1e-5, 100, route="one-run")
    with pytest.raises(ValueError, match="pessimism"):
        claim_optimal_threshold("gaussian", 1.0, 1e-5, 100, pessimism=-1.0)
    with pytest.raises(ValueError, match="epsilon"):
        claim_optimal_threshold("laplace", 0.0, 0.0, 100)


def test_claim_event_is_fixed_from_public_information() -> None:
    # Purely from the claim + public location/scale: no samples; tested on all runs of an audit.  Laplace
    # scale 0.5 (exact ε = 2) against a claimed ε = 1 on 20,000 runs: the event {x ≥ 1·... } placed for the
    # claim; conditional on nothing (the event is fixed), ε_lb >= the 1e-6 floor computed from exact Laplace
    # tails and binomial quantiles (union of two tails, <= 1e-6), which exceeds the claim.
    from dpsco.verification.auditing.audit import epsilon_lower_bound

    ev = claim_event((1.0, 0.0), "laplace", 20_000, location=0.0, scale=0.5)
    assert ev.tail == "ge" and ev.numerator == "dataset"
    assert ev.threshold == pytest.approx(0.5 * claim_optimal_threshold("laplace", 1.0, 0.0, 20_000)["t"])

    def lap_sf(x: float, m: float, b: float) -> float:
        z = (x - m) / b
        return 0.5 * math.exp(-z) if z >= 0 else 1 - 0.5 * math.exp(z)

    p, q = lap_sf(ev.threshold, 1.0, 0.5), lap_sf(ev.threshold, 0.0, 0.5)
    kp, kq = int(binom.ppf(5e-7, 20_000, p)), int(binom.isf(5e-7, 20_000, q))
    floor = float(epsilon_lower_bound(kp, 20_000, kq, 20_000, 0.0, 0.95))
    assert floor > 1.0
    r = audit(Laplace1D(0.5), {"x": np.array([0.0, 1.0])}, {"x": np.array([0.0, 0.0])}, (1.0, 0.0), 20_000,
              np.random.default_rng(3), event=ev)
    assert r.epsilon_lower >= floor and r.refuted
    with pytest.raises(ValueError, match="scale"):
        claim_event((1.0, 0.0), "laplace", 100, location=0.0, scale=0.0)
    with pytest.raises(ValueError, match="location"):
        claim_event((1.0, 0.0), "laplace", 100, location=float("nan"), scale=1.0)


def test_location_scale() -> None:
    v = np.array([1.0, 2.0, 3.0, 10.0])
    assert location_scale(v, "gaussian") == (pytest.approx(4.0), pytest.approx(float(np.std(v, ddof=1))))
    assert location_scale(v, "laplace") == (pytest.approx(2.5), pytest.approx((1.5 + 0.5 + 0.5 + 7.5) / 4))
    assert location_scale(np.ones(5), "gaussian")[1] == 1.0
    with pytest.raises(ValueError):
        location_scale([1.0], "gaussian")


def _claim(delta: float, assumptions: dict | None = None) -> PrivacyClaim:
    return PrivacyClaim(notion="approx-DP" if delta > 0 else "pure-DP", epsilon=1.0, delta=delta,
                        neighbouring="replace-one", source="test", assumptions=assumptions or {})


def test_choose_estimator_gdp_only_when_every_condition_is_declared() -> None:
    full = {"noise": "gaussian", "deterministic": True, "post_processing": "none"}
    c = choose_estimator(_claim(1e-5), full)
    assert c["estimator"] == "gdp" and c["statistic"] == "projection" and "Gaussian" in c["reason"]
    # each missing condition falls back to the assumption-free route, and says why
    for key, bad, why in (("noise", "laplace", "noise"), ("deterministic", False, "deterministic"),
                          ("post_processing", "projection onto B(0, 1)", "post-processing")):
        c = choose_estimator(_claim(1e-5), {**full, key: bad})
        assert c["estimator"] == "threshold" and why in c["reason"]
    c = choose_estimator(_claim(0.0), full)
    assert c["estimator"] == "threshold" and "delta = 0" in c["reason"]
    assert choose_estimator((1.0, 1e-5))["estimator"] == "threshold"


def test_choose_estimator_reads_output_perturbation_claims() -> None:
    # Lowy-Razaviyayn claims record the noise and the projection radius R: Gaussian noise but a finite
    # projection Π_{B(0,R)} => the threshold route (post-processing can lower the exact ε below ε_μ(μ, δ)).
    a = {"noise": {"mechanism": "gaussian", "scale": 2.0}, "R": 3.0}
    c = choose_estimator(_claim(1e-5, a), {"deterministic": True})
    assert c["estimator"] == "threshold" and "projection onto B(0, 3)" in c["reason"]
    c = choose_estimator(_claim(1e-5, {**a, "R": math.inf}), {"deterministic": True})
    assert c["estimator"] == "gdp"
    # 1-D outputs with a declared family get a claim-placed event
    c = choose_estimator(_claim(0.0, {"noise": {"mechanism": "l2-laplace"}}), {"output_dimension": 1})
    assert c["estimator"] == "threshold" and c["event_from_claim"] == "laplace"
    kwargs, reason = audit_kwargs(_claim(1e-5), {**full_info(), "output_dimension": 1})
    # the GDP route now states the Gaussian trade-off assumption it rests on (and why), so audit() records it
    assume_reason = kwargs.pop("assume_reason")
    assert "deterministic" in assume_reason and "post-processing" in assume_reason
    assert kwargs == {"estimator": "gdp", "statistic": "projection", "event_from_claim": "gaussian",
                      "assume": "gaussian-tradeoff"}
    assert "reason" not in kwargs and reason
    with pytest.raises(TypeError, match="mechanism_info"):
        choose_estimator(_claim(1e-5), ["noise"])  # type: ignore[arg-type]


def full_info() -> dict:
    return {"noise": "gaussian", "deterministic": True, "post_processing": "none"}


def test_gdp_conversion_is_unsound_after_post_processing() -> None:
    # Why choose_estimator refuses the GDP route after post-processing (deterministic computation): the
    # binary post-processing g(x) = 1{x >= t} of the Gaussian pair N(μ,1) vs N(0,1) keeps μ* = μ (its single
    # non-trivial test has Φ⁻¹(P) − Φ⁻¹(Q) = μ) but its exact ε at δ is log((P − δ)/Q) < ε_μ(δ).
    mu, delta, t = 1.0, 1e-5, 0.5
    P, Q = norm.sf(t - mu), norm.sf(t)
    assert ndtri_diff(P, Q) == pytest.approx(mu, rel=1e-9)
    eps_binary = max(math.log((P - delta) / Q), math.log((1 - Q - delta) / (1 - P)))
    assert gdp_mu_to_epsilon(mu, delta) > eps_binary + 1.0


def ndtri_diff(p: float, q: float) -> float:
    return float(norm.ppf(p) - norm.ppf(q))
