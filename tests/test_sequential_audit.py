"""Tests of dpsco.verification.auditing.sequential: the anytime-valid (sequential) threshold audit.

False-failure budget (house rule: <= 1e-6 per test).

* The confidence sequence itself is checked against hand-derived closed forms (uniform prior), against an
  independent numerical integration of the mixture martingale, and by an *exact* computation of its
  time-uniform miss probability on small Bernoulli horizons (dynamic programming over the count): no
  randomness.
* Soundness ("a true claim is never refuted"): at confidence 1 − 1e-6 the audit's own time-uniform guarantee
  (docs/derivations.md#anytime-valid-sequential-threshold-audit) bounds the false-refutation probability by
  1e-6 per audit.
* Power (planted bugs) with an event fixed in advance: the counts after t* test runs are exact Binomials with
  known (p, q); with probability >= 1 − 1e-6 (binomial tails, union of two) they lie in a box on which the
  bound computed here exceeds the claim, so the audit has stopped by t*.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import beta as beta_dist
from scipy.stats import binom

from dpsco.oracles.privacy_curves import gaussian_sigma
from dpsco.verification.auditing.events import Event
from dpsco.verification.auditing.sequential import (
    SequentialAuditResult,
    beta_binomial_confidence_sequence,
    beta_binomial_log_martingale,
    projected_event,
    sequential_audit,
)
from _mechanisms import GaussianSum1D, LaplaceSum

LAP_S, LAP_S1 = {"x": np.array([0.0, 0.0, 1.0])}, {"x": np.array([0.0, 0.0, 0.0])}  # sums 1 and 0


# ------------------------------------------------------------------------------------------------------
# the confidence sequence
# ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0.05, 0.025, 1e-6])
def test_golden_values_uniform_prior(alpha: float) -> None:
    # Hand derivation (a = b = 1): M_t(p0) = B(1 + k, 1 + t − k) / (p0^k (1 − p0)^(t − k)).
    # k = t = 1: M = (1/2)/p0 >= 1/α  <=>  p0 <= α/2, so L_1 = α/2 (and U_1 = 1).
    lo, hi = beta_binomial_confidence_sequence(1, 1, alpha)
    assert hi == 1.0 and alpha / 2 * (1 - 1e-9) <= lo <= alpha / 2
    for t in (1, 2, 5, 100, 10**6):
        # k = 0: M = 1/((t + 1)(1 − p0)^t) >= 1/α  <=>  p0 >= 1 − (α/(t + 1))^(1/t) = U_t; L_t = 0.
        u_hand = -math.expm1(math.log(alpha / (t + 1)) / t)
        lo, hi = beta_binomial_confidence_sequence(0, t, alpha)
        assert lo == 0.0 and u_hand <= hi <= u_hand * (1 + 1e-9)
        # k = t: by symmetry L_t = (α/(t + 1))^(1/t), U_t = 1.
        lo, hi = beta_binomial_confidence_sequence(t, t, alpha)
        assert hi == 1.0 and (1 - u_hand) * (1 - 1e-9) <= lo <= 1 - u_hand + 1e-15
    assert beta_binomial_confidence_sequence(0, 0, alpha) == (0.0, 1.0)


@pytest.mark.parametrize("k,t,a,b", [(0, 3, 1.0, 1.0), (2, 5, 0.5, 0.5), (3, 7, 2.5, 40.0), (9, 12, 7.0, 1.3)])
def test_martingale_closed_form_against_numerical_integration(k: int, t: int, a: float, b: float) -> None:
    # Independent oracle: M_t(p0) = ∫ (θ/p0)^k ((1 − θ)/(1 − p0))^(t − k) Beta(θ; a, b) dθ by quadrature.
    for p0 in (0.05, 0.3, 0.5, 0.9):
        val, _ = quad(lambda th: (th / p0) ** k * ((1 - th) / (1 - p0)) ** (t - k) * beta_dist.pdf(th, a, b), 0, 1,
                      epsabs=0, epsrel=1e-11, limit=200)
        assert beta_binomial_log_martingale(k, t, p0, a, b) == pytest.approx(math.log(val), rel=1e-8, abs=1e-9)
    # the interval ends are where ln M_t = ln(1/α), conservative side
    alpha = 0.05
    lo, hi = beta_binomial_confidence_sequence(k, t, alpha, a, b)
    lvl = math.log(1 / alpha)
    if k > 0:
        assert beta_binomial_log_martingale(k, t, lo, a, b) >= lvl - 1e-9
        assert beta_binomial_log_martingale(k, t, lo * (1 + 1e-6), a, b) < lvl
    if k < t:
        assert beta_binomial_log_martingale(k, t, hi, a, b) >= lvl - 1e-9
        assert beta_binomial_log_martingale(k, t, hi * (1 - 1e-6), a, b) < lvl


def _exact_time_uniform_miss(p: float, horizon: int, alpha: float, a: float, b: float) -> float:
    """P(∃ t <= horizon: p ∉ [L_t, U_t]) for Bernoulli(p) trials, exactly (DP over the count k of paths
    not yet excluded; the intervals are those of the code under test, the probabilities exact)."""
    alive = np.array([1.0])  # alive[k] = P(k successes so far and p covered at every time so far)
    missed = 0.0
    for t in range(1, horizon + 1):
        nxt = np.zeros(t + 1)
        nxt[:-1] += alive * (1 - p)
        nxt[1:] += alive * p
        for k in range(t + 1):
            if nxt[k] > 0:
                lo, hi = beta_binomial_confidence_sequence(k, t, alpha, a, b)
                if not (lo <= p <= hi):
                    missed += nxt[k]
                    nxt[k] = 0.0
        alive = nxt
    return missed


@pytest.mark.parametrize("p,alpha,a,b", [(0.5, 0.05, 1.0, 1.0), (0.05, 0.05, 1.0, 1.0), (0.9, 0.2, 1.0, 1.0),
                                         (0.3, 0.1, 3.0, 7.0), (0.02, 0.1, 0.2, 9.8)])
def test_exact_time_uniform_coverage(p: float, alpha: float, a: float, b: float) -> None:
    # Exact (no sampling): Ville's inequality says the miss probability over all t is <= α.
    assert _exact_time_uniform_miss(p, 80, alpha, a, b) <= alpha + 1e-12


@settings(max_examples=15, deadline=None)
@given(p=st.floats(0.001, 0.999), alpha=st.floats(0.01, 0.5), a=st.floats(0.1, 20.0), b=st.floats(0.1, 20.0))
def test_time_uniform_coverage_property(p: float, alpha: float, a: float, b: float) -> None:
    assert _exact_time_uniform_miss(p, 30, alpha, a, b) <= alpha + 1e-12


@settings(max_examples=40, deadline=None)
@given(t=st.integers(1, 2000), frac=st.floats(0, 1), alpha=st.floats(1e-8, 0.5))
def test_interval_contains_mle_and_is_ordered(t: int, frac: float, alpha: float) -> None:
    k = int(round(frac * t))
    lo, hi = beta_binomial_confidence_sequence(k, t, alpha)
    assert 0.0 <= lo <= k / t <= hi <= 1.0


# ------------------------------------------------------------------------------------------------------
# the audit
# ------------------------------------------------------------------------------------------------------
def _stops_by(t_star: int, p: float, q: float, alpha: float, eps: float, delta: float = 0.0,
              tail: float = 5e-7) -> float:
    """Failure probability of "the bound after t* test runs per side exceeds eps" under uniform priors.

    With probability >= 1 − (returned value), k_p >= k1 and k_q <= k2 (exact binomial tails); the function
    asserts that every count pair in that box gives log((L − δ)/U) > eps (checked exhaustively), so the
    audit, whose running bound is at least its value at t*, has stopped by then.
    """
    k1 = int(binom.ppf(tail, t_star, p))
    k2 = int(binom.isf(tail, t_star, q))
    fail = float(binom.cdf(k1 - 1, t_star, p) + binom.sf(k2, t_star, q))
    worst_l = min(beta_binomial_confidence_sequence(k, t_star, alpha / 2)[0] for k in range(k1, t_star + 1))
    worst_u = max(beta_binomial_confidence_sequence(k, t_star, alpha / 2)[1] for k in range(0, k2 + 1))
    assert worst_l > delta and math.log((worst_l - delta) / worst_u) > eps
    return fail


def test_planted_underscaled_laplace_is_refuted_early() -> None:
    # Planted bug: Laplace scale 1/4 (exact ε = 4) under a (1, 0) claim; event {x >= 1} fixed in advance:
    # p = P(1 + Lap(1/4) >= 1) = 1/2, q = P(Lap(1/4) >= 1) = e^{-4}/2.
    p, q, t_star = 0.5, 0.5 * math.exp(-4.0), 1000
    miss = _stops_by(t_star, p, q, 0.05, 1.0)
    assert miss <= 1e-6
    r = sequential_audit(LaplaceSum(0.25), LAP_S, LAP_S1, (1.0, 0.0), 100_000, np.random.default_rng(3),
                         event=Event(1.0, "ge", "dataset"), batch=100)
    # fails with probability <= miss <= 1e-6 (derived above)
    assert r.verdict == "refuted" and r.stopping_reason == "refuted"
    assert r.samples_used <= t_star < r.max_samples and r.samples_saved == r.max_samples - r.samples_used
    assert r.epsilon_lower > 1.0 and r.selection_samples == 0


def test_target_epsilon_is_certified_early_and_claim_not_refuted() -> None:
    # Laplace scale 1 (exact ε = 1), claim (2, 0) true, target 0.5; event {x >= 1}: p = 1/2, q = e^{-1}/2,
    # log(p/q) = 1.  Confidence 1 − 1e-7: P(refuting the true claim) <= 1e-7; P(not certified by t*) <= miss.
    alpha = 1e-7
    p, q, t_star = 0.5, 0.5 * math.exp(-1.0), 6000
    miss = _stops_by(t_star, p, q, alpha, 0.5, tail=4e-7)
    assert miss + alpha <= 1e-6
    r = sequential_audit(LaplaceSum(1.0), LAP_S, LAP_S1, (2.0, 0.0), 200_000, np.random.default_rng(4),
                         confidence=1 - alpha, event=Event(1.0, "ge", "dataset"), batch=500, target_epsilon=0.5)
    # fails with probability <= miss + 1e-7 <= 1e-6
    assert r.stopping_reason == "target certified" and r.verdict == "not refuted"
    assert 0.5 <= r.epsilon_lower <= 2.0 and r.samples_used <= t_star


def test_noiseless_mechanism_with_selection_is_refuted_after_one_batch() -> None:
    # Planted bug "noise forgotten" (deterministic output = the sum): the selection separates the two point
    # masses, every test run on S is in E and none on S' is, so the first batch refutes (no randomness).
    class Noiseless:
        def __call__(self, data, rng):
            return np.array([data["x"].sum()])

        def sample(self, data, n, rng):
            return np.full((n, 1), data["x"].sum())

    for selection in ("projected", "fixed-size"):
        r = sequential_audit(Noiseless(), LAP_S, LAP_S1, (1.0, 0.0), 10_000, np.random.default_rng(0),
                             selection_samples=300, batch=50, selection=selection)
        assert r.verdict == "refuted" and r.samples_used == 350 and r.batches == 1
        assert r.numerator_count == 50 and r.denominator_count == 0


def test_a_batch_above_the_test_budget_is_one_look_at_the_whole_budget() -> None:
    # A batch larger than the test budget left the projected selection no horizon, so a degenerate event was
    # chosen: exit 0, ε_lb = 0 on a non-private mechanism, and "batches of 10,000,000" in the summary.  Now the
    # batch is cut to the budget (9,700 test runs, one look).  Planted bug "noise forgotten": deterministic.
    class Noiseless:
        def __call__(self, data, rng):
            return np.array([data["x"].sum()])

        def sample(self, data, n, rng):
            return np.full((n, 1), data["x"].sum())

    r = sequential_audit(Noiseless(), LAP_S, LAP_S1, (1.0, 0.0), 10_000, np.random.default_rng(0),
                         selection_samples=300, batch=10_000_000)
    assert r.verdict == "refuted" and r.epsilon_lower > 1.0
    assert r.batch == 9_700 and r.batches == 1 and r.test_samples == 9_700
    assert "1 batches of 9,700" in r.summary()
    with pytest.raises(ValueError, match="horizons"):
        projected_event(np.zeros(3), np.ones(3), 0.0, 1.0, 0.025, 10, [])


def test_mechanism_without_sample_is_run_one_call_at_a_time() -> None:
    # The same planted bug as a plain function (no batched sample): every run is a single call (no randomness).
    def noiseless(data, rng):
        return np.array([data["x"].sum()])

    r = sequential_audit(noiseless, LAP_S, LAP_S1, (1.0, 0.0), 1_000, np.random.default_rng(0),
                         selection_samples=20, batch=10)
    assert r.verdict == "refuted" and r.samples_used < 1_000 and r.numerator_count == r.test_samples
    assert r.denominator_count == 0 and r.sample_consistency["checked"] is False

def test_projected_event_prefers_the_event_that_separates() -> None:
    # Selection statistics (no randomness): dataset side 0..99 plus 100 values at 1000; neighbour side 0..199.
    # {s >= τ} for τ in (199, 1000] holds for 100 of 200 dataset runs and none of the neighbour's: the only
    # events whose pessimistic projected bound grows without limit, so they must be chosen.
    s_a = np.concatenate([np.arange(100.0), np.full(100, 1000.0)])
    s_b = np.arange(200.0)
    ev, reached, score = projected_event(s_a, s_b, 0.0, 1.0, 0.025, 600, [100, 1000, 10_000])
    assert ev.tail == "ge" and ev.numerator == "dataset" and 199.0 < ev.threshold <= 1000.0
    assert reached is not None and score > 1.0


def test_correct_laplace_is_never_refuted() -> None:
    # Exactly (1, 0)-DP, claim (1, 0): refuted with probability <= 1 − confidence = 1e-6 (time-uniform).
    r = sequential_audit(LaplaceSum(1.0), LAP_S, LAP_S1, (1.0, 0.0), 40_000, np.random.default_rng(11),
                         confidence=1 - 1e-6, batch=2_000)
    assert r.verdict == "not refuted" and r.stopping_reason == "max_samples"
    assert r.samples_used == 40_000 and r.samples_saved == 0
    eps = [e for _, e in r.trajectory]
    assert eps == sorted(eps) and eps[-1] == r.epsilon_lower <= 1.0
    assert [t for t, _ in r.trajectory] == list(range(2_000, 36_001, 2_000))


def test_correct_gaussian_with_delta_is_never_refuted() -> None:
    # The Gaussian mechanism calibrated to (1, 1e-5), claim (1, 1e-5): refuted with probability <= 1e-6.
    sigma = gaussian_sigma(1.0, 1e-5, 1.0)
    r = sequential_audit(GaussianSum1D(sigma), LAP_S, LAP_S1, (1.0, 1e-5), 40_000, np.random.default_rng(12),
                         confidence=1 - 1e-6, batch=4_000)
    assert r.verdict == "not refuted" and r.samples_used == 40_000


def test_result_record_is_strict_json() -> None:
    r = sequential_audit(LaplaceSum(0.5), LAP_S, LAP_S1, (1.0, 0.0), 2_000, np.random.default_rng(5), batch=100)
    assert isinstance(r, SequentialAuditResult)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    for key in ("epsilon_lower", "verdict", "stopping_reason", "samples_used", "samples_saved", "max_samples",
                "confidence_sequence", "trajectory", "event", "sample_consistency"):
        assert key in d
    cs = d["confidence_sequence"]
    assert cs["alpha_numerator_side"] + cs["alpha_denominator_side"] == pytest.approx(0.05)
    assert d["samples_used"] == d["selection_samples"] + d["test_samples"]
    assert d["refuted"] == r.refuted == (r.verdict == "refuted")
    text = r.summary()
    assert r.verdict in text and r.stopping_reason in text and f"{r.samples_used:,}" in text


def _call(**kw):
    args = dict(mechanism=LaplaceSum(1.0), dataset=LAP_S, neighbour=LAP_S1, claim=(1.0, 0.0), max_samples=100,
                rng=np.random.default_rng(0))
    args.update(kw)
    return sequential_audit(**args)


@pytest.mark.parametrize("kw,exc,name", [
    ({"max_samples": 0}, ValueError, "max_samples"),
    ({"max_samples": 10.5}, TypeError, "max_samples"),
    ({"max_samples": 10, "selection_samples": 10}, ValueError, "max_samples"),
    ({"selection_samples": 1}, ValueError, "selection_samples"),
    ({"batch": 0}, ValueError, "batch"),
    ({"confidence": 1.5}, ValueError, "confidence"),
    ({"target_epsilon": -1.0}, ValueError, "target_epsilon"),
    ({"prior": "flat"}, ValueError, "prior"),
    ({"selection": "best"}, ValueError, "selection"),
    ({"prior_runs": 0.0}, ValueError, "prior_runs"),
    ({"event": "x >= 1"}, TypeError, "event"),
    ({"event": Event(1.0, "ge"), "selection_samples": 10}, ValueError, "selection_samples"),
    ({"rng": 0}, TypeError, "rng"),
    ({"statistic": "median"}, ValueError, "statistic"),
    ({"claim": "1.0"}, TypeError, "claim"),
])
def test_bad_inputs_name_the_parameter(kw, exc, name) -> None:
    with pytest.raises(exc, match=name):
        _call(**kw)


@pytest.mark.parametrize("args,exc,name", [
    ((-1, 3, 0.05), ValueError, "k"), ((4, 3, 0.05), ValueError, "k"), ((1, 3, 0.0), ValueError, "alpha"),
    ((1, 3, 0.05, 0.0), ValueError, "a"), ((1, 3, 0.05, 1.0, -2.0), ValueError, "b"), ((1.5, 3, 0.05), TypeError, "k"),
])
def test_confidence_sequence_bad_inputs(args, exc, name) -> None:
    with pytest.raises(exc, match=name):
        beta_binomial_confidence_sequence(*args)
