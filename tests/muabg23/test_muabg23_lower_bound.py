"""The Theorem 8 lower-bound check (Menart et al. 2023, arXiv:2311.13447 v2, App. C.3) of the catalogue algorithms:
``dpsco.verification.papers.muabg23.lower_bound``.

Error probabilities (house budget 1e-6 per stochastic assertion):
* a private algorithm passes: the check flags a violation only if the one-sided Hoeffding upper confidence
  bound (UCB, level α = 1e-6, range [0, r^κ]) of *both* truncated means falls below ¼r^κ.  For every ρ-zCDP
  algorithm at ``group_budget(k)`` at least one truncated mean is ≥ ¼r^κ (the module's derivation: ≥ 0.296 r^κ
  at n = 200, k = 10, checked in ``test_zcdp_truncated_bound_exceeds_theorem8``), and its UCB lies below its mean
  with probability ≤ exp(−2R h²/B²) = α (Hoeffding 1963, h = B√(log(1/α)/(2R))).  False failure ≤ 1e-6.
* the non-private variants (all noise removed) are deterministic: every replicate returns the same output
  (asserted), so the sample means equal the exact excess e₀ and the check's verdict is a deterministic
  function of e₀ and R — miss probability exactly 0 once e₀ + h < ¼r^κ (asserted with the numbers).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpsco.oracles.muabg23.kl_instances import Theorem8Pair
from dpsco.reference.muabg23 import theorems as th
from dpsco.verification.papers.muabg23 import lower_bound as lb
from dpsco.verification.papers.registry import SuiteInputs

N, K, KAPPA = 200, 10, 2.0
BOUND = 0.25 * (K / N) ** KAPPA  # ¼ r^κ = ¼ · 0.05² = 6.25e-4


def test_group_budget_by_hand():
    """ε = 1/10, δ = (1 − e^{−0.1})/16 (1 − 10⁻⁶) = 0.0951626/16 = 0.00594766; L = ln(1/δ) = 5.12479;
    ρ + 2√(ρL) = ε is a quadratic in √ρ: √ρ = √(L + ε) − √L = 2.285781 − 2.263800 = 0.021980, ρ = 4.8313e-4
    (shrunk by 10⁻⁹).  Group of k = 10: k²ρ = 0.048313."""
    b = lb.group_budget(K)
    delta = (1.0 - math.exp(-0.1)) / 16.0 * (1.0 - 1e-6)
    L = math.log(1.0 / delta)
    rho = (math.sqrt(L + 0.1) - math.sqrt(L)) ** 2 * (1.0 - 1e-9)
    assert delta == pytest.approx(0.00594766, rel=1e-5)
    assert L == pytest.approx(5.12479, rel=1e-5)
    assert b["rho"] == pytest.approx(rho, rel=1e-12)
    assert b["rho"] == pytest.approx(4.8313e-4, rel=1e-4)
    assert b["rho_group"] == pytest.approx(100 * rho, rel=1e-12)
    # the conversion really gives (ε, δ) with ε ≤ 1/k and Theorem 8's conditions
    eps = b["rho"] + 2.0 * math.sqrt(b["rho"] * L)
    assert eps <= 0.1 and b["epsilon_of_rho"] == pytest.approx(eps, rel=1e-12)
    assert th.theorem8_conditions(eps, b["delta"])
    assert b["delta"] <= (1.0 - math.exp(-eps)) / 16.0
    with pytest.raises(ValueError, match="k must be >= 2"):
        lb.group_budget(1)


def test_zcdp_truncated_bound_exceeds_theorem8():
    """At ρ_g = k²ρ = 0.048313 and ε_g = 0.8: δ_g = exp(−(0.8 − 0.048313)²/(4·0.048313)) = exp(−2.92413) = 0.05371,
    r^κ(1 − δ_g)/(1 + e^{0.8}) = 0.0025 · 0.94629/3.22554 = 7.3342e-4 ≥ ¼r^κ = 6.25e-4: one ε_g already proves the
    truncated bound the check relies on; the grid maximum is at least that."""
    rg = lb.group_budget(K)["rho_group"]
    d = math.exp(-(0.8 - rg) ** 2 / (4 * rg))
    assert d == pytest.approx(0.05371, rel=1e-3)
    one_point = 0.0025 * (1 - d) / (1 + math.exp(0.8))
    assert one_point == pytest.approx(7.3342e-4, rel=1e-3)
    best = lb.zcdp_pair_lower_bound(0.05, KAPPA, rg)
    assert best >= one_point * (1 - 1e-3) and best >= BOUND
    assert best <= 0.0025 / 2  # (1 − δ)/(1 + e^ε) < ½


def test_loss_matches_pair_derivative_and_is_clip_bounded():
    """The per-sample derivatives average to Theorem8Pair.derivative (independent code) on both datasets, and
    are bounded by L_0 = 1 for |w| ≤ ½ + a (the algorithms clip outside)."""
    pair = Theorem8Pair(N, K, KAPPA)
    loss = lb.Theorem8Loss(pair)
    W = np.linspace(-1.0, 1.0, 401)
    for X in pair.datasets():
        by_rows = np.array([loss.grads(np.array([w]), X).mean() for w in W])
        assert np.allclose(by_rows, pair.derivative(W, X), atol=1e-12)
        assert np.allclose(loss.subgradient(W[:, None], X).mean(axis=1)[:, 0], by_rows, atol=1e-12)
    inside = W[np.abs(W) <= 0.5 + pair.a]
    S, _ = pair.datasets()
    assert np.max(np.abs(loss.subgradient(inside[:, None], np.array([[1.0], [-1.0]])))) <= 1.0 + 1e-12
    assert S.shape == (N, 1)


def test_theorem8_check_by_hand():
    """B = r^κ = 0.0025, ¼r^κ = 6.25e-4, α = 1e-6.  R = 200: h = 0.0025·√(ln(10⁶)/400) = 0.0025·0.185846 =
    4.64615e-4.  Means 0.00125 (S) and 0 (S'): UCB_S = 0.00171462 ≥ 6.25e-4 → no violation, p = max(1, ·) = 1.
    R = 10000, both 1.25e-4: h = 0.0025·√(13.81551/20000) = 6.57065e-5, UCBs 1.90707e-4 < 6.25e-4 → violated,
    p = exp(−2·10⁴·(5e-4)²/0.0025²) = e^{−800} = 0.  Values above B are truncated (1.0 → 0.0025)."""
    r1 = lb.theorem8_check(np.full(200, 0.00125), np.zeros(200), N, K, KAPPA)
    assert r1["bound"] == pytest.approx(BOUND) and r1["truncation"] == pytest.approx(0.0025)
    assert r1["half_width_S"] == pytest.approx(4.64615e-4, rel=1e-5)
    assert r1["ucb_S"] == pytest.approx(0.00171462, rel=1e-5)
    assert not r1["violated"] and r1["p_value"] == 1.0
    r2 = lb.theorem8_check(np.full(10000, 1.25e-4), np.full(10000, 1.25e-4), N, K, KAPPA)
    assert r2["ucb_S_prime"] == pytest.approx(1.90707e-4, rel=1e-5)
    assert r2["violated"] and r2["p_value"] < 1e-300
    r3 = lb.theorem8_check(np.array([1.0, 0.0]), np.array([0.0, 0.0]), N, K, KAPPA)
    assert r3["truncated_mean_S"] == pytest.approx(0.00125) and r3["mean_S"] == pytest.approx(0.5)
    # the p-value and the verdict agree: violated iff p < α
    for r in (r1, r2, r3):
        assert r["violated"] == (r["p_value"] < lb.ALPHA)
    with pytest.raises(ValueError, match="excess_S"):
        lb.theorem8_check(np.array([-1.0]), np.zeros(3), N, K, KAPPA)


@pytest.mark.parametrize("key", lb.ALGORITHMS)
def test_each_catalogue_algorithm_passes(key):
    """Each catalogue algorithm at its claimed ρ (group_budget(10)) on both datasets, R = 200 (the quick task):
    no violation.  False failure ≤ α = 1e-6 (module docstring; Hoeffding on the dataset whose truncated mean is
    ≥ ¼r^κ)."""
    out = lb.lower_bound_task(key)(SuiteInputs("quick", np.random.SeedSequence(20261123), 0.95))
    rec, chk = out["record"], out["checks"][f"{key}_theorem8"]
    assert not rec["violated"]
    assert chk["p_value"] >= lb.ALPHA
    assert rec["replicates_S"] == lb.SIZES["quick"]["reps"]


def _noise_free(key: str, rho_factor: float = 1.0, R: int = 2) -> tuple[float, float]:
    """The deterministic excesses (e₀ on S, on S') of ``key`` with every Gaussian/Gumbel draw multiplied by 0,
    run at ρ·rho_factor; asserts that the R replicates coincide (so the check's means are exactly e₀)."""
    pair = Theorem8Pair(N, K, KAPPA)
    rng = lb.ScaledNoiseGenerator(np.random.PCG64(7), 0.0)
    eS, eT = lb.pair_excesses(key, pair, lb.group_budget(K)["rho"] * rho_factor, R, rng)
    assert np.ptp(eS) == 0.0 and np.ptp(eT) == 0.0
    return float(eS[0]), float(eT[0])


@pytest.mark.parametrize("key, rho_factor, e0", [
    ("proximal_point", 1.0, 0.3950), ("noisy_regularised_gd", 1.0, 0.3950), ("adaptive_gd", 1.0, 0.0),
    ("kl_spider", 1e3, 0.2322)])
def test_non_private_variant_is_caught(key, rho_factor, e0):
    """Planted bug: the same algorithm with its noise removed (a ScaledNoiseGenerator of scale 0), still claiming
    ρ (KL Spider: also the schedule of 10³ρ, i.e. ρ read in the wrong units, since at ρ its schedule keeps every
    step below a/2 — see test_spider_noise_free_at_rho_is_not_caught).  The run is deterministic, so at the
    standard budget's R = 2000 the UCB is e₀ + h with h = 0.0025·√(ln 10⁶/4000) = 1.4692e-4 = 0.235·¼r^κ and
    the check flags it iff e₀ < 0.765·¼r^κ: miss probability exactly 0 (e₀/(¼r^κ) ≈ 0.395, 0.395, 0, 0.232)."""
    eS, eT = _noise_free(key, rho_factor)
    assert max(eS, eT) / BOUND == pytest.approx(e0, abs=1e-3)
    R = lb.SIZES["standard"]["reps"]
    res = lb.theorem8_check(np.full(R, eS), np.full(R, eT), N, K, KAPPA)
    assert res["half_width_S"] == pytest.approx(1.4692e-4, rel=1e-3)
    assert res["violated"] and res["p_value"] < lb.ALPHA
    if key != "kl_spider":  # the vectorised / cheap ones: the full R-replicate run gives the same verdict
        pair = Theorem8Pair(N, K, KAPPA)
        rng = lb.ScaledNoiseGenerator(np.random.PCG64(8), 0.0)
        full = lb.theorem8_check(*lb.pair_excesses(key, pair, lb.group_budget(K)["rho"], R, rng), N, K, KAPPA)
        assert full["violated"]


def test_noise_free_variants_the_check_cannot_see():
    """Documented limits (deterministic): at the Theorem 8 budget KL Spider's schedule (F_0 = r²/2, floor = F_0)
    moves w by one step √Φ̂/8 < a/2 whatever its noise, so its noise-free run stays at excess 1.646·¼r^κ; and
    Theorem 5's selection picks the iterate with the smallest (clipped) gradient norm, which ties at r between
    w_0 = 0 and w_1 and picks w_0 (excess r²/2 = 2·¼r^κ) once the Gumbel noise is removed."""
    assert max(_noise_free("kl_spider")) / BOUND == pytest.approx(1.6464, abs=1e-3)
    assert max(_noise_free("adaptive_gd_em")) / BOUND == pytest.approx(2.0, abs=1e-9)


def test_tasks_quick_are_well_formed():
    """Every task at "quick": the record has the pair, ρ, (ε, δ), means, bounds; json-serialisable."""
    for key in lb.ALGORITHMS:
        out = lb.lower_bound_task(key)(SuiteInputs("quick", np.random.SeedSequence(5), 0.95))
        assert set(out) == {"record", "checks", "audits"} and out["audits"] == {}
        assert set(out["checks"]) == {f"{key}_theorem8"}
        rec = out["record"]
        for field in ("n", "k", "kappa", "a", "rho", "epsilon", "delta", "mean_S", "mean_S_prime", "ucb_S",
                      "ucb_S_prime", "lcb_S", "lcb_S_prime", "bound", "zcdp_truncated_bound"):
            assert field in rec
        assert (rec["n"], rec["k"], rec["kappa"]) == (N, K, KAPPA) and rec["bound"] == pytest.approx(BOUND)
        assert rec["epsilon"] <= 1.0 / K and th.theorem8_conditions(rec["epsilon"], rec["delta"])
        json.loads(json.dumps(out, default=float))
    with pytest.raises(ValueError, match="algorithm_key"):
        lb.lower_bound_task("sgd")
