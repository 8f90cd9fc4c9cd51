"""The measured targets of issue 3: soundness over >= 1000 repeated audits, tightness, throughput.

The tightness targets and the oracle limits quoted below are derived in
docs/derivations.md#tightness-targets-of-the-auditor.

False-failure budget (<= 1e-6 per test):

* soundness: each audit at confidence 0.95 has P(ε_lb > ε_true) <= α = 0.05 (its guarantee; for the GDP
  route because the audited mechanisms have Gaussian trade-off curves), audits are independent, so the
  violation count V is stochastically below Binomial(R, α); the test fails iff P(Bin(R, α) >= V) <= 1e-6;
* tightness: the fraction π of audits reaching the target is estimated from R independent audits; the test
  asserts "π >= π₀" by requiring at least c hits, c the largest count with P(Bin(R, π₀) < c) <= 1e-6, so a
  mechanism/auditor with π >= π₀ fails with probability <= 1e-6 (π₀ stated per test; measured π in
  docs/auditing.md);
* throughput: a wall-clock bound with a 20x margin over the measured time (0.5 s), not a stochastic claim.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy.stats import beta as beta_dist
from scipy.stats import binom

from dpsco.oracles.privacy_curves import gaussian_epsilon, gaussian_sigma, laplace_epsilon, randomized_response_epsilon
from dpsco.verification.auditing.audit import audit
from _mechanisms import GaussianSum1D as Gaussian1D, LaplaceSum as Laplace1D


class RandomizedResponse:
    """Last bit reported truthfully w.p. 3/4: exactly log 3-DP."""

    def __call__(self, data: dict, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]

    def sample(self, data: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        bit = float(data["b"][-1])
        return np.where(rng.random(n) < 0.75, bit, 1.0 - bit)[:, None]


class OutputPerturbation:
    """Output perturbation of L2-regularised linear-loss ERM, w* = (1/(λn)) Σ yᵢxᵢ, plus N(0, σ²I).

    Replace-one sensitivity ‖w*(S) − w*(S')‖ <= 2·x_max·y_max/(λn) = Δ, σ calibrated by the analytic Gaussian
    mechanism to (ε, δ) at Δ; on the label-flip pair below the difference is exactly Δ, so the exact ε at δ is
    ``gaussian_epsilon(δ, Δ, σ)``.  (A stand-in for the reference output-perturbation module.)
    """

    def __init__(self, lam: float, epsilon: float, delta: float, n: int) -> None:
        self.lam, self.n = lam, n
        self.delta_sens = 2.0 / (lam * n)
        self.sigma = gaussian_sigma(epsilon, delta, self.delta_sens)

    def _w(self, data: dict) -> np.ndarray:
        return (data["y"][:, None] * data["X"]).sum(axis=0) / (self.lam * self.n)

    def __call__(self, data: dict, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]

    def sample(self, data: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        w = self._w(data)
        return w + rng.normal(0.0, self.sigma, size=(n, w.size))


S, S1 = {"x": np.array([0.0, 1.0])}, {"x": np.array([0.0, 0.0])}
RR_S, RR_S1 = {"b": np.array([0, 1])}, {"b": np.array([0, 0])}
_X = np.array([[0.6, 0.8], [1.0, 0.0], [0.0, 1.0], [0.6, 0.8]])
OP_S, OP_S1 = {"X": _X, "y": np.array([1.0, -1.0, 1.0, 1.0])}, {"X": _X, "y": np.array([1.0, -1.0, 1.0, -1.0])}
SIG2 = gaussian_sigma(1.0, 1e-2)
OP = OutputPerturbation(0.5, 1.0, 1e-2, 4)


def _cases() -> list[tuple[str, object, dict, dict, tuple[float, float], float, str]]:
    return [
        ("Laplace eps=1", Laplace1D(1.0), S, S1, (1.0, 0.0), laplace_epsilon(1.0, 1.0), "threshold"),
        ("Gaussian (1,1e-2) threshold", Gaussian1D(SIG2), S, S1, (1.0, 1e-2), gaussian_epsilon(1e-2, 1.0, SIG2), "threshold"),
        ("Gaussian (1,1e-2) GDP route", Gaussian1D(SIG2), S, S1, (1.0, 1e-2), gaussian_epsilon(1e-2, 1.0, SIG2), "gdp"),
        ("randomised response log 3", RandomizedResponse(), RR_S, RR_S1, (math.log(3), 0.0), randomized_response_epsilon(0.75), "threshold"),
        ("output perturbation (1,1e-2) GDP route", OP, OP_S, OP_S1, (1.0, 1e-2), gaussian_epsilon(1e-2, OP.delta_sens, OP.sigma), "gdp"),
    ]


def _soundness(reps_per_case: int, n: int, confidence: float, seed: int) -> tuple[int, int, dict[str, int]]:
    seq = np.random.SeedSequence(seed)
    total, viol, per = 0, 0, {}
    for (label, mech, a, b, claim, eps_true, est), child in zip(_cases(), seq.spawn(len(_cases()))):
        v = 0
        for s in child.spawn(reps_per_case):
            r = audit(mech, a, b, claim, n, np.random.default_rng(s), confidence=confidence, estimator=est,
                      power_family=None)
            v += int(_bound(r, est) > eps_true)
        per[label] = v
        total += reps_per_case
        viol += v
    return total, viol, per


def _bound(r: object, est: str) -> float:
    """The bound whose soundness a case tests: for the GDP route the Gaussian figure (valid here: the GDP
    cases are Gaussian noise on a fixed query), which audit() no longer reports as epsilon_lower."""
    return r.epsilon_lower_assuming_gaussian_tradeoff if est == "gdp" else r.epsilon_lower  # type: ignore[attr-defined]


def _check_soundness(total: int, viol: int, alpha: float) -> None:
    # P(Bin(total, α) >= viol) must exceed 1e-6 (else the auditor is unsound at level α)
    assert binom.sf(viol - 1, total, alpha) > 1e-6, (viol, total)
    # the violation rate's own 95 % Clopper-Pearson interval, for the record
    hi = beta_dist.ppf(0.975, viol + 1, total - viol)
    assert hi < 1.0


# 5 × 200 audits is a campaign (python -m pytest -m campaign, docs/verification.md); 5 × 50 keeps the path in the fast
# suite with the same check: _check_soundness computes its binomial bound from the number of audits run
@pytest.mark.parametrize("k", [50, pytest.param(200, marks=pytest.mark.campaign)])
def test_soundness_1000_audits(k) -> None:
    # 5 mechanism/estimator cases × 200 audits = 1000 audits at confidence 0.95 (α = 0.05), 2000 runs per side.
    total, viol, per = _soundness(k, 2000, 0.95, 20240603)
    assert total == 5 * k
    _check_soundness(total, viol, 0.05)


# 5 × 100 audits is a campaign (python -m pytest -m campaign, docs/verification.md); 5 × 25 keeps the path in the fast
# suite with the same check: _check_soundness computes its binomial bound from the number of audits run (false
# failure ≤ 1e-6 at either size: 125 audits fail only if ≥ 90 violate, 500 only if ≥ 304)
@pytest.mark.parametrize("k", [25, pytest.param(100, marks=pytest.mark.campaign)])
def test_soundness_at_confidence_one_half(k) -> None:
    # A stress version: at confidence 0.5 the allowed violation rate is 0.5; 5k audits (500 in the campaign).
    total, viol, per = _soundness(k, 2000, 0.5, 7)
    assert total == 5 * k
    _check_soundness(total, viol, 0.5)


@pytest.mark.campaign
def test_soundness_campaign_5000_audits() -> None:
    total, viol, per = _soundness(1000, 5000, 0.95, 1)
    _check_soundness(total, viol, 0.05)


def _min_hits(R: int, pi0: float, fail: float = 1e-6) -> int:
    """Largest c with P(Bin(R, π₀) < c) <= fail."""
    c = 0
    while binom.cdf(c, R, pi0) <= fail:
        c += 1
    return c


def test_tightness_laplace_1e5_per_side() -> None:
    # target ε_lb >= 0.95 at 1e5 per side; asserted: P(ε_lb >= 0.95) >= 0.8 (measured 0.98 over 60 seeds)
    R = 30
    hits = sum(audit(Laplace1D(1.0), S, S1, (1.0, 0.0), 10**5, np.random.default_rng(1000 + i),
                     power_family=None).epsilon_lower >= 0.95 for i in range(R))
    assert hits >= _min_hits(R, 0.8)


def test_tightness_gaussian_gdp_1e5_per_side() -> None:
    # target ε_lb >= 0.90 (GDP route) at 1e5 per side; asserted: median >= 0.90, i.e. P(ε_lb >= 0.90) >= 0.5
    # (measured 0.80, mean 0.927, limit 0.936)
    sigma = gaussian_sigma(1.0, 1e-5)
    R = 30
    hits = sum(audit(Gaussian1D(sigma), S, S1, (1.0, 1e-5), 10**5, np.random.default_rng(2000 + i),
                     estimator="gdp", power_family=None).epsilon_lower_assuming_gaussian_tradeoff >= 0.90
               for i in range(R))
    assert hits >= _min_hits(R, 0.5)


@pytest.mark.campaign
def test_tightness_gaussian_threshold_1e6_per_side() -> None:
    # target ε_lb >= 0.70 (assumption-free) at 1e6 per side: met only in about half of the audits (median
    # 0.701, mean 0.700 over 20 seeds; limit 0.768).  Asserted: P(ε_lb >= 0.65) >= 0.5.
    sigma = gaussian_sigma(1.0, 1e-5)
    R = 20
    hits = sum(audit(Gaussian1D(sigma), S, S1, (1.0, 1e-5), 10**6, np.random.default_rng(3000 + i),
                     power_family=None).epsilon_lower >= 0.65 for i in range(R))
    assert hits >= _min_hits(R, 0.5)


# R = 60 audits at 10⁶ runs per side is a campaign (python -m pytest -m campaign, docs/verification.md); R = 20
# keeps the path in the fast suite with the same criterion computed from R (_min_hits: ≥ 8 of 20, ≥ 36 of 60)
@pytest.mark.parametrize("R", [20, pytest.param(60, marks=pytest.mark.campaign)])
def test_tightness_gaussian_threshold_1e6_claim_placed_event(R) -> None:
    # Issue-3 target "Gaussian mechanism calibrated to (1, 1e-5), assumption-free route at 1e6 per side:
    # ε_lb >= 0.70 (limit about 0.77)", met soundly with the event placed from the claim
    # (audit(..., event_from_claim="gaussian"): 1 % pilot, one event tested on 990,000 runs per side).
    # Measured over 200 seeds: mean 0.758, median 0.763, min 0.658, P(ε_lb >= 0.70) = 0.94 (docs/auditing.md).
    # Asserted: P(ε_lb >= 0.70) >= π₀ = 0.85 from R audits (fails with probability <= 1e-6 if π >= 0.85).
    sigma = gaussian_sigma(1.0, 1e-5)
    vals = [audit(Gaussian1D(sigma), S, S1, (1.0, 1e-5), 10**6, np.random.default_rng(4000 + i),
                  power_family=None, event_from_claim="gaussian").epsilon_lower for i in range(R)]
    assert sum(v >= 0.70 for v in vals) >= _min_hits(R, 0.85)


# 5 × 200 audits is a campaign (python -m pytest -m campaign, docs/verification.md); 5 × 50 keeps the path in the fast
# suite with the same check: _check_soundness computes its binomial bound from the number of audits run
@pytest.mark.parametrize("k", [50, pytest.param(200, marks=pytest.mark.campaign)])
def test_soundness_claim_placed_events_1000_audits(k) -> None:
    # The claim-placed event is sound for any mechanism: 1000 audits at confidence 0.95 over the five cases
    # above (Laplace placement for the pure-DP cases, Gaussian placement otherwise — including randomised
    # response, whose output is not Gaussian), 2000 runs per side (pilot 20).  Same binomial criterion as
    # test_soundness_1000_audits (false failure <= 1e-6).
    seq = np.random.SeedSequence(99)
    total, viol = 0, 0
    for (label, mech, a, b, claim, eps_true, est), child in zip(_cases(), seq.spawn(len(_cases()))):
        fam = "laplace" if claim[1] == 0.0 else "gaussian"
        for s in child.spawn(k):
            r = audit(mech, a, b, claim, 2000, np.random.default_rng(s), estimator=est, power_family=None,
                      event_from_claim=fam)
            viol += int(_bound(r, est) > eps_true)
            total += 1
    assert total == 5 * k
    _check_soundness(total, viol, 0.05)


def test_throughput_1e6_per_side_under_10_seconds() -> None:
    sigma = gaussian_sigma(1.0, 1e-5)
    t0 = time.perf_counter()
    r = audit(Gaussian1D(sigma), S, S1, (1.0, 1e-5), 10**6, np.random.default_rng(5))
    assert time.perf_counter() - t0 < 10.0
    assert r.samples == 10**6 and r.minimum_detectable_epsilon is not None
