"""Menart et al. (2023), arXiv:2311.13447 v2: the privacy ledger and Algorithm 1 (KL Spider).

Exact checks first: the zCDP of the mechanism as implemented on the worst-case replace-one pair (every release
at its clipped sensitivity, every round at full length) against the claim — the exact calibration is exactly
ρ, the printed noise 2.125ρ (the accounting-factor-2 erratum: Lemma 8 charges (b/(nσ))², half the exact cost).
Planted bugs (``dpsco.verification.mutants.muabg23.spider``) are refuted by the same checks.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.reference.muabg23.ledger import (PrivacyBudgetExceeded, PrivacyLedger, gaussian_zcdp, gdp_delta,
                                            gdp_epsilon, printed_cost_unit_sensitivity, replace_one_sensitivity,
                                            zcdp_epsilon, zcdp_rho_for_epsilon, zcdp_to_gdp_mu)
from dpsco.reference.muabg23.algorithms_spider import (kl_spider, kl_spider_schedule, lemma_8_printed_rho, theorem_1_bound)
from dpsco.verification.mutants.muabg23.spider import (SignedCurvatureLoss, kl_spider_data_dependent_f0,
                                                       kl_spider_extra_difference_step,
                                                       kl_spider_printed_noise_claiming_rho)
from dpsco.verification.papers.muabg23.spider import (AUDIT_PARAMS, QuadraticLoss, cubic_instance, quadratic_instance,
                                                      schedules_differ, suite_tasks_quick, transcript_rho)

# ---- the ledger ---------------------------------------------------------------------------------------------


def test_gaussian_costs_by_hand():
    # Δ = 2b/n = 2·3/10 = 0.6; ρ = Δ²/(2σ²) = 0.36/(2·0.09) = 2; printed (b/(nσ))² = (0.3/0.3)² = 1 = ρ/2
    assert replace_one_sensitivity(3.0, 10) == pytest.approx(0.6)
    assert gaussian_zcdp(0.6, 0.3) == pytest.approx(2.0)
    assert printed_cost_unit_sensitivity(3.0, 10, 0.3) == pytest.approx(1.0)
    assert zcdp_to_gdp_mu(2.0) == pytest.approx(2.0)
    # ε = ρ + 2√(ρ log(1/δ)) at ρ = 1, δ = e^{-4}: 1 + 2·2 = 5; inverse (√(4+5) − √4)² = 1
    assert zcdp_epsilon(1.0, math.exp(-4.0)) == pytest.approx(5.0)
    assert zcdp_rho_for_epsilon(5.0, math.exp(-4.0)) == pytest.approx(1.0)


def test_gdp_curve_against_scipy_definition():
    from scipy.stats import norm

    mu, eps = 1.3, 0.7
    assert gdp_delta(mu, eps) == pytest.approx(norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2))
    assert gdp_delta(mu, gdp_epsilon(mu, 1e-5)) == pytest.approx(1e-5, rel=1e-6)


def test_ledger_refuses_before_the_release():
    ledger = PrivacyLedger(1.0)
    ledger.charge("a", 0.6, 0.6)                      # ρ = 0.5
    ledger.charge("b", 0.6, 0.6)                      # ρ = 1.0 exactly: admitted
    with pytest.raises(PrivacyBudgetExceeded, match="refused"):
        ledger.charge("c", 1e-3, 1.0)
    assert len(ledger.releases) == 2 and ledger.spent == pytest.approx(1.0)
    assert ledger.mu == pytest.approx(math.sqrt(2.0))
    with pytest.raises(ValueError, match="rho_total"):
        PrivacyLedger(0.0)
    with pytest.raises(ValueError, match="sigma"):
        ledger.can_afford(1.0, 0.0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0.01, 10.0), st.floats(0.01, 10.0)), min_size=1, max_size=20),
       st.floats(0.01, 100.0))
def test_ledger_never_overspends(releases, budget):
    ledger = PrivacyLedger(budget)
    for j, (s, sig) in enumerate(releases):
        try:
            ledger.charge(str(j), s, sig)
        except PrivacyBudgetExceeded:
            pass
        assert ledger.spent <= budget * (1 + 1e-9)
        assert ledger.mu == pytest.approx(math.sqrt(2 * ledger.spent), rel=1e-9)


# ---- the schedule: golden values by hand ---------------------------------------------------------------------


def test_schedule_golden_kappa_2():
    # κ = 2 (PL): n = 100, d = 1, ρ = 1, γ = 1, L0 = 1, L1 = 1/64, F0 = 1 = (γL0)².
    # line 2: c = 1 + F0^0/(64·1·(1/64)) = 2.  line 3: K = ⌈(1 + 64·1·(1/64))·(log 1 + 2 log(100/1))⌉
    #   = ⌈2·2·log 100⌉ = ⌈18.42⌉ = 19.  line 4 (exact): σ̂ = 2·√19/100.  line 7: T_k = 1 (exponent 0);
    # σ_k = Φ̂_k^{1/2}·√19/(2·100); s_k = Φ̂_k^{1/2}/(4·(1/64)) = 16 Φ̂_k^{1/2}.
    s = kl_spider_schedule(100, 1, 1.0, 0.1, 1.0, 1.0, 2.0, 1.0, 1.0 / 64)
    assert s.c == pytest.approx(2.0)
    assert s.K == 19
    assert s.sigma_hat == pytest.approx(2 * math.sqrt(19) / 100)
    assert s.T == (1,) * 19
    # β' = (β/(4K))·(γL0√(Kd)/(n√ρF0^{1/κ}))^0 = 0.1/76 before the union-bound check; Σ(T_k+1) = 38 and
    # 0.1/76·38 = 0.05 ≤ 0.1: kept.  ψ = 1 + √(2 log 760); floor = min((24ψ√19/100)², 1)
    assert s.beta_prime == pytest.approx(0.1 / 76)
    psi = 1 + math.sqrt(2 * math.log(760))
    floor = min((24 * psi * math.sqrt(19) / 100) ** 2, 1.0)
    assert s.phi_floor == pytest.approx(floor)
    phi = [max(0.5 ** k, floor) for k in range(1, 20)]  # Φ̂_k = max(Φ̂_{k−1}/2, floor)
    assert s.phi == pytest.approx(tuple(phi))
    assert s.step == pytest.approx(tuple(16 * math.sqrt(p) for p in phi))
    assert s.sigma == pytest.approx(tuple(math.sqrt(p) * math.sqrt(19) / 200 for p in phi))
    assert s.threshold == pytest.approx(tuple(7 * math.sqrt(p) / 8 for p in phi))
    assert theorem_1_bound(s) == pytest.approx(phi[-1])


def test_schedule_golden_kappa_1_5_round_lengths():
    # κ = 3/2: T_k = ⌈(F0/Φ̂_k)^{1/3}⌉; with F0 = 1 and Φ̂_k = c^{-k} until the floor
    s = kl_spider_schedule(10**4, 1, 1.0, 0.1, 1.0, 1.0, 1.5, 1.0, 1.0 / 64)
    c = 1 + 1.0 / (64 * (1 / 64))  # F0^{1/3} = 1
    assert s.c == pytest.approx(c)
    for k, (p, t) in enumerate(zip(s.phi, s.T), start=1):
        assert p == pytest.approx(max(c ** -k, s.phi_floor))
        assert t == math.ceil((1.0 / p) ** (1 / 3) - 1e-12)


def test_schedule_refuses_bad_inputs():
    with pytest.raises(ValueError, match="kappa"):
        kl_spider_schedule(100, 1, 1.0, 0.1, 1.0, 1.0, 2.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="F0"):
        kl_spider_schedule(100, 1, 1.0, 0.1, 2.0, 1.0, 2.0, 1.0, 1.0)  # F0 > (γL0)^κ = 1
    with pytest.raises(ValueError, match="beta"):
        kl_spider_schedule(100, 1, 1.0, 1.5, 1.0, 1.0, 2.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="calibration"):
        kl_spider_schedule(100, 1, 1.0, 0.1, 1.0, 1.0, 2.0, 1.0, 1.0, calibration="paper")


def test_union_bound_of_the_exact_calibration():
    # every step's error event: β'·Σ_k(T_k + 1) ≤ β (a round has its anchor and T_k differences)
    for kappa in (1.0, 1.25, 1.5, 2.0):
        s = kl_spider_schedule(5000, 3, 0.5, 0.05, 1.0, 1.0, kappa, 1.0, 0.05)
        assert s.beta_prime * sum(t + 1 for t in s.T) <= s.beta * (1 + 1e-12)


# ---- exact privacy on the worst-case pair --------------------------------------------------------------------


@pytest.mark.parametrize("kappa", [1.0, 1.5, 2.0])
def test_exact_calibration_is_exactly_rho(kappa):
    # anchors K·(2L0/n)²/(2σ̂²) = K·ρ/(2K); differences Σ_k T_k·ρ/(2KT_k) = ρ/2: total ρ (exact arithmetic)
    s = kl_spider_schedule(2000, 2, 0.3, 0.1, 1.0, 1.0, kappa, 1.0, 0.2)
    assert s.exact_rho() == pytest.approx(0.3, rel=1e-12)


@pytest.mark.parametrize("kappa", [1.0, 1.5, 2.0])
def test_printed_calibration_is_2_125_rho_erratum(kappa):
    # printed σ̂ = L0√K/(n√ρ): anchors K·(2L0/n)²/(2L0²K/(n²ρ)) = 2ρ; differences (Φ̂^{1/κ}/(2γn))²/(2σ_k²) with
    # σ_k = Φ̂^{1/κ}√(KT_k)/(γn√ρ): ρ/(8KT_k) each, ρ/8 in all.  Lemma 8's own charge is 2ρ; Theorem 1 says ρ.
    s = kl_spider_schedule(2000, 2, 0.3, 0.1, 1.0, 1.0, kappa, 1.0, 0.2, calibration="printed")
    assert s.exact_rho() == pytest.approx(2.125 * 0.3, rel=1e-12)
    assert lemma_8_printed_rho(s) == pytest.approx(2.0 * 0.3, rel=1e-12)
    # the same with the exact accountant (dp_accounting PLD) on the release's claim: ε at δ = 1e-6 matches the
    # GDP curve of μ = √(2·2.125ρ), not that of √(2ρ)
    r = kl_spider(np.tile([1.0, 0.0, -1.0], (50, 1)), SignedCurvatureLoss(1.0, 0.01), 0.3, 0.1, 1.0, 1.0, kappa,
                  1.0, 0.01, np.random.default_rng(0), calibration="printed")
    assert r.claim.rho == pytest.approx(2.125 * 0.3, rel=1e-12)
    eps_pld = r.claim.event_epsilon(1e-6)
    assert eps_pld == pytest.approx(gdp_epsilon(math.sqrt(2 * 2.125 * 0.3), 1e-6), abs=0.02)
    assert eps_pld > gdp_epsilon(math.sqrt(2 * 0.3), 1e-6) + 0.5


def test_release_claim_exact_and_count():
    # Exact: on the worst pair every release is at its clipped sensitivity; a run whose rounds all run full makes
    # K anchors and Σ T_k differences, whose exact cost with the σ's of the public schedule is ρ.  The published
    # count is the schedule's n(K + Σ T_k) (public); the count performed n·Σ(1 + steps_k) is not published.
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    r = kl_spider(X, loss, rng=np.random.default_rng(3), white_box=True, **P)
    steps = r.diagnostics["steps_per_round"]
    assert steps == list(r.parameters["T"])                                  # no round stopped early (this seed)
    assert transcript_rho(r, P) == pytest.approx(P["rho"], rel=1e-12)
    assert r.claim.rho == pytest.approx(P["rho"], rel=1e-12)
    n = X.shape[0]
    assert r.nonprivate_internals["gradient_evaluations_performed"] == n * sum(1 + t for t in steps)
    assert r.gradient_evaluations == n * (r.parameters["K"] + sum(r.parameters["T"]))
    assert r.diagnostics["releases"] == [r.parameters["K"] + sum(steps)]


def test_printed_noise_mutant_refuted_by_measured_noise():
    # The mutant draws the printed σ̂ = L0√K/(n√ρ), half the exact calibration's, while claiming Theorem 1's ρ
    # (true 2.125ρ).  The measured-noise check of the anchors against the exact σ̂ recomputed from public inputs
    # refutes it: residual scale 1/2, k = runs·K·d anchors (every round has its anchor); the check misses with
    # probability miss_probability(k, 1/2), computed exactly below (≤ 1e-6).  The correct algorithm passes
    # except with probability ≤ 1e-7 per check (two checks: ≤ 2e-7).
    from dpsco.verification.checks.noise import miss_probability
    from dpsco.verification.papers.muabg23.spider import NOISE_D, noise_instance, spider_measured_noise

    runs = 60
    bad = spider_measured_noise(runs, np.random.default_rng(4), algorithm=kl_spider_printed_noise_claiming_rho)
    k = bad["kl_spider_measured_noise_anchors"]["residuals"]
    K = kl_spider_schedule(20, NOISE_D, **noise_instance(np.random.default_rng(0))[1]).K
    assert k == runs * K * NOISE_D and miss_probability(k, 0.5) <= 1e-6
    assert bad["kl_spider_measured_noise_anchors"]["p_value"] < 1e-7
    good = spider_measured_noise(runs, np.random.default_rng(4))
    assert all(c["p_value"] >= 1e-7 for c in good.values())


def test_spider_measured_noise_refutes_sigma_over_sqrt2():
    # kl_spider_draws_sigma_over_sqrt2 (under_noised): every release's noise at σ/√2, σ reported.  Both checks
    # (anchors, differences) measure scale 1/√2; k_a = runs·K·d anchors, k_d ≥ 1000 differences (asserted);
    # the miss probability of each is miss_probability(k, 1/√2) (exact, asserted ≤ 1e-6).
    from dpsco.verification.checks.noise import miss_probability
    from dpsco.verification.mutants.muabg23.spider import kl_spider_draws_sigma_over_sqrt2
    from dpsco.verification.papers.muabg23.spider import spider_measured_noise

    bad = spider_measured_noise(100, np.random.default_rng(5), algorithm=kl_spider_draws_sigma_over_sqrt2)
    for check in bad.values():
        assert check["residuals"] >= 1000 and miss_probability(check["residuals"], 2 ** -0.5) <= 1e-6
        assert check["p_value"] < 1e-7


def test_extra_step_mutant_refuted_exactly():
    # The printed guard t ≤ T_k with the reconstructed line 17 (w_{k,t}): the mutant, claiming ρ for its
    # transcript.  On the worst-case pair no round stops early (the canary's gradients grow; asserted), so a
    # round makes T_k + 1 difference releases: the exact cost of the transcript of releases made, with the public
    # schedule's σ_k, is ρ/2 + Σ_k (T_k + 1)ρ/(2KT_k) > ρ.  (Its output depends on T_k of them: the last is never
    # read, test_mu3_…; the bug is one of the transcript the claim covers.)  Exact.
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    strict = kl_spider(X, loss, rng=np.random.default_rng(5), **P)
    assert strict.diagnostics["steps_per_round"] == list(strict.parameters["T"])
    r = kl_spider_extra_difference_step(X, loss, rng=np.random.default_rng(5), white_box=True, **P)
    assert r.diagnostics["steps_per_round"] == [t + 1 for t in r.parameters["T"]]
    s = kl_spider_schedule(X.shape[0], 1, **P)
    expected = P["rho"] / 2 + sum((t + 1) * P["rho"] / (2 * s.K * t) for t in s.T)
    assert transcript_rho(r, P) == pytest.approx(expected, rel=1e-12)
    assert transcript_rho(r, P) > r.claim.rho * 1.1  # refuted


class _ShiftedNormals(np.random.Generator):
    """A Generator whose standard_normal call number j returns its draw plus ``shifts[j]`` (every other draw is
    the parent's): moves the noise of chosen releases and nothing else."""

    def __init__(self, seed: int, shifts: dict[int, float]) -> None:
        super().__init__(np.random.PCG64(seed))
        self.shifts, self.count = dict(shifts), 0

    def standard_normal(self, *args, **kwargs):  # noqa: D102
        out = super().standard_normal(*args, **kwargs)
        self.count += 1
        return out + self.shifts.get(self.count - 1, 0.0)


def _release_calls(T, per_round):
    """Indices of the standard_normal calls of each round's anchor and differences (one call per release)."""
    calls, j = [], 0
    for t in T:
        calls.append(list(range(j, j + 1 + per_round(t))))
        j += 1 + per_round(t)
    return calls


def test_mu3_printed_guard_makes_a_dead_release_and_lemma_8_count_holds_for_the_output():
    # ERRATA MUABG23-E3, with the printed box exactly as printed (guard t ≤ T_k AND line 17 w_{k,t−1}).  On the worst
    # pair every round runs full (asserted): T_k + 1 updates and difference releases, and the round returns
    # w_{k,T_k}.  (a) Its last release Δ_{k,T_k+1} is dead: moving its noise by 10⁶ moves the transcript but
    # neither the output nor any iterate.  (b) Its other T_k releases are live: zeroing ∇_{k,T_k} (moving the
    # noise of Δ_{k,T_k}) stops the round at t = T_k and changes the output.  So what the printed box publishes
    # depends on the K anchors and T_k differences per round — Lemma 8's count holds for the output; the
    # transcript of releases *made* has T_k + 1 per round (charged by loop_guard="printed").  (c) The
    # reconstructed guard t < T_k makes T_k releases, of which the last is dead in the same way (T_k − 1 reach
    # the output): Lemma 8's count of releases made.  (d) The printed guard with the reconstructed line 17 (the
    # planted bug kl_spider_extra_difference_step) also has a dead last release: it differs from the printed
    # box in the point a round returns, not in how many releases reach the output.  Deterministic: the seed
    # (7: every round runs full in all three variants) fixes every draw and the shifts are the only change.
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    s = kl_spider_schedule(X.shape[0], 1, **P)
    box = dict(loop_guard="printed", line17="printed")

    def run(shifts, **kw):
        return kl_spider(X, loss, rng=_ShiftedNormals(7, shifts), white_box=True, **kw, **P)

    for kw, per_round in ((box, lambda t: t + 1), (dict(loop_guard="printed"), lambda t: t + 1),
                          ({}, lambda t: t)):
        base = run({}, **kw)
        assert base.diagnostics["steps_per_round"] == [per_round(t) for t in s.T]     # full rounds
        calls = _release_calls(s.T, per_round)
        dead = run({c[-1]: 1e6 for c in calls}, **kw)
        assert np.max(np.abs(dead.white_box.noisy_gradients - base.white_box.noisy_gradients)) > 1e5
        assert np.array_equal(dead.output, base.output) and np.array_equal(dead.trajectory, base.trajectory)
    # (b): the printed box's release Δ_{1,T_1} of round 1 is live (it decides where round 1 stops)
    base = run({}, **box)
    calls = _release_calls(s.T, lambda t: t + 1)
    slot = s.T[0]                                          # ∇_{1,T_1} = the partial sum up to release slot T_1
    total = sum(base.white_box.noisy_gradients[0, j, 0] / base.white_box.iterates[0, j, 2] for j in range(slot + 1))
    stopped = run({calls[0][slot]: -total / s.sigma[0]}, **box)      # ∇_{1,T_1} → 0: round 1 stops at t = T_1
    assert stopped.diagnostics["steps_per_round"][0] == s.T[0]
    assert not np.array_equal(stopped.output, base.output)


def test_mu4_printed_box_returns_the_uncertified_point_when_a_round_stops_early():
    # ERRATA MUABG23-E4, with the printed box exactly as printed.  F(w) = (L1/2)w² (n = 10 records at 0, d = 1), exactly
    # (γ, 2)-KL with γ = 1/√(2L1), F0 = (γL0)², ρ = 1e8 (Φ_floor ≪ F0).  Start at w0 with ∇F(w0) = G0 = 1.06·S,
    # S = Φ_floor^{1/2}/γ, so F(w0) − F* = 1.1236·Φ_floor > Φ̂_K = Φ_floor (Theorem 1's bound).  In every round
    # either the test fails at t = 0 (G0 < 7S_k/8) or the step (length s_k, ‖∇F‖ drops by S_k/4) brings the
    # gradient to G0 − S_k/4 < 7S_k/8 (since G0 < 9S_k/8 for every S_k ≥ S): the round stops early at t = 1 and
    # the printed index returns w_{k,0}, throwing away the step the test certifies.  So the printed box
    # returns w0 exactly, above Theorem 1's bound, unless in some round the noisy test errs; the probability
    # of that is at most the union bound computed below over the rounds (Gaussian tails of the noise
    # σ̂ + σ_k of ∇_{k,1}), asserted ≤ 1e-6.  The reconstructed box (t < T_k, w_{k,t}) keeps each step and meets
    # the bound with probability ≥ 1 − β = 1 − 1e-7 (Theorem 1).  Total false failure ≤ 1.1e-6.
    from scipy.stats import norm

    L1, L0, n, rho, beta, kappa = 1.0, 1.0, 10, 1e8, 1e-7, 2.0
    gamma = 1.0 / math.sqrt(2.0 * L1)
    F0 = (gamma * L0) ** 2
    s = kl_spider_schedule(n, 1, rho, beta, F0, gamma, kappa, L0, L1)
    S = math.sqrt(s.phi_floor) / gamma
    G0 = 1.06 * S
    assert s.phi_floor < F0 / 100 and G0 - S / 4 < 7 * S / 8
    miss = 0.0
    for k in range(s.K):
        g1, sd = abs(G0 - L1 * s.step[k]), math.hypot(s.sigma_hat, s.sigma[k])
        miss += norm.sf((s.threshold[k] - g1) / sd) + norm.sf((s.threshold[k] + g1) / sd)
    assert miss <= 1e-6
    w0 = np.array([G0 / L1])
    X = np.zeros((n, 1))
    args = (X, QuadraticLoss(L1), rho, beta, F0, gamma, kappa, L0, L1)
    printed = kl_spider(*args, np.random.default_rng(8), w0=w0, loop_guard="printed", line17="printed")
    assert np.array_equal(printed.output, w0)
    assert 0.5 * L1 * float(w0 @ w0) > theorem_1_bound(s)                      # the printed output violates Thm 1
    assert max(printed.diagnostics["steps_per_round"]) == 1                    # every round stopped by t = 1
    fixed = kl_spider(*args, np.random.default_rng(8), w0=w0)
    assert 0.5 * L1 * float(fixed.output @ fixed.output) <= theorem_1_bound(s)


def test_data_dependent_f0_mutant_refuted_exactly():
    D, D2 = AUDIT_PARAMS["pair"]
    loss, P = AUDIT_PARAMS["loss"], dict(AUDIT_PARAMS["params"])
    P["F0"] = 1.0  # = (γL0)^κ; the mutant's F0 = min(1, (γ‖∇F(w0)‖)^κ): 1 on D, 0.9^1.5 on D2 (hand)
    a = kl_spider_data_dependent_f0(D, loss, rng=np.random.default_rng(6), **P)
    b = kl_spider_data_dependent_f0(D2, loss, rng=np.random.default_rng(6), **P)
    assert schedules_differ(a, b)  # noise scales differ on the pair: D_α = ∞ at large α, no finite ρ
    c = kl_spider(D, loss, rng=np.random.default_rng(6), **P)
    e = kl_spider(D2, loss, rng=np.random.default_rng(6), **P)
    assert not schedules_differ(c, e)  # the correct algorithm: identical public schedule


def test_theorem_1_bound_on_pl_quadratic():
    # F(w) = (L1/2)‖w − x̄‖² + const, (γ, 2)-KL with γ² = 1/(2L1).  Theorem 1 (explicit form, exact constants):
    # F(w̄) − F* ≤ Φ̂_K with probability ≥ 1 − β = 1 − 1e-7 per run; 3 runs: false failure ≤ 3e-7.
    # Non-trivial: Φ̂_K < F0 / 2 at every n (asserted).
    for n in (1000, 2000, 4000):
        loss, X, P = quadratic_instance(n, 1e-7, np.random.default_rng(n))
        r = kl_spider(X, loss, rng=np.random.default_rng(n + 1), **P)
        xbar = X.mean(axis=0)
        excess = 0.5 * loss.L1 * float(np.sum((r.output - xbar) ** 2))
        bound = theorem_1_bound(kl_spider_schedule(n, X.shape[1], P["rho"], P["beta"], P["F0"], P["gamma"],
                                                   P["kappa"], P["L0"], P["L1"]))
        assert bound < P["F0"] / 2
        assert excess <= bound


def test_theorem_1_bound_on_kappa_1_5_cubic():
    # F(w) = (a/3)‖w‖³, (γ, 3/2)-KL (γ^{3/2} = √2/3 ≥ a^{-1/2}/3); F(w̄) ≤ Φ̂_K w.p. ≥ 1 − 1e-7 (false failure
    # ≤ 1e-7); non-trivial: Φ̂_K < F(w0)/10 (asserted); the trajectory stays in the unit ball, where L0 = 3/2, L1 = 3
    loss, X, P = cubic_instance(2000, 1e-7, np.random.default_rng(12))
    r = kl_spider(X, loss, rng=np.random.default_rng(13), **P)
    a = 1.0 + float(X.mean())
    Q = {k: v for k, v in P.items() if k != "w0"}
    bound = theorem_1_bound(kl_spider_schedule(2000, 2, **Q))
    assert bound < a / 3 * 0.9 ** 3 / 10
    assert a / 3 * np.linalg.norm(r.output) ** 3 <= bound
    assert np.linalg.norm(r.trajectory, axis=1).max() <= 1.0


def test_input_validation():
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    with pytest.raises(ValueError, match="line17"):
        kl_spider(X, loss, rng=np.random.default_rng(0), line17="t-1", **P)
    with pytest.raises(TypeError, match="rng"):
        kl_spider(X, loss, rng=0, **P)
    with pytest.raises(ValueError, match="X"):
        kl_spider(np.ones(3), loss, rng=np.random.default_rng(0), **P)
    with pytest.raises(TypeError, match="loss"):
        kl_spider(X, object(), rng=np.random.default_rng(0), **P)


# campaign: `dpsco verify --quick --only muabg23.kl_spider` runs these tasks; the fast suite runs them in
# tests/test_verify.py::test_verify_quick_end_to_end (docs/verification.md, campaign tests)
@pytest.mark.campaign
def test_suite_tasks_quick():
    # Exact checks have p-value 1/0.  The statistical ones (Theorem 1 w.h.p. binomial, the two rate checks, the two
    # measured-noise checks — exact one-sided χ² — and the lower-bound task's) have valid p-values; six of them,
    # each asserted > 1.5e-7: false failure ≤ 9e-7 (union bound).  The audits' verdicts are at the suite's
    # confidence (seeded, deterministic here).
    for name, result in suite_tasks_quick().items():
        assert set(result) >= {"record", "checks", "audits"}, name
        for key, check in result["checks"].items():
            assert check["p_value"] == 1.0 or check["p_value"] > 1.5e-7, (name, key, check)
        for key, audit in result["audits"].items():
            assert audit["verdict"] != "refuted", (name, key, audit)


@pytest.mark.campaign
def test_white_box_audit_refutes_printed_noise():
    # White-box audit (20,000 runs per side, confidence 1 − 1e-6) on the worst-case pair: the exact calibration
    # is not refuted (false refutation ≤ 1e-6 by the audit's soundness,
    # docs/derivations.md#soundness-of-the-white-box-audit); the printed noise under Theorem 1's claim
    # (true μ = √(2·2.125ρ) = 1.03 vs claimed 0.71) is refuted.
    from dpsco.verification.auditing.white_box import white_box_audit

    A = AUDIT_PARAMS
    for mech, refuted in ((kl_spider, False), (kl_spider_printed_noise_claiming_rho, True)):
        def run(data, R, rng, mech=mech):
            return mech(data["X"], A["loss"], rng=rng, replicates=R, white_box=True, **A["params"]).white_box

        claim = mech(A["dataset"], A["loss"], rng=np.random.default_rng(0), **A["params"]).claim
        res = white_box_audit(run, A["design"], claim, 20_000, np.random.default_rng(11), confidence=1 - 1e-6)
        assert (res.verdict == "refuted") == refuted, res.to_dict()


def test_runs_on_the_shared_model_interface():
    # the package's NonconvexLoss (records = rows of X): its data-domain check runs before the data is used
    from dpsco.reference.muabg23.model import LinearLoss

    X = np.random.default_rng(0).normal(size=(50, 3))
    X /= 1.5 * np.linalg.norm(X, axis=1, keepdims=True)
    r = kl_spider(X, LinearLoss(), 1.0, 0.1, 0.5, 1.0, 1.5, 1.0, 0.1, np.random.default_rng(1))
    assert r.claim.rho == pytest.approx(1.0, rel=1e-12) and r.output.shape == (3,)
    with pytest.raises(ValueError, match="X"):
        kl_spider(3 * X, LinearLoss(), 1.0, 0.1, 0.5, 1.0, 1.5, 1.0, 0.1, np.random.default_rng(1))


def test_concentration_factor_exact_vs_printed():
    # exact (scipy.stats.chi, the law of ‖N(0, I_d)‖): ψ = √d + √(2 log(1/β')) is a valid tail bound for every d
    # and β'; the printed 2√(d log(1/β')) is valid once log(1/β') ≥ 1 on this grid but not for every β'
    # (d = 100, β' = 0.9: P(‖Z‖ > 6.49) ≈ 1 > 0.9)
    from scipy.stats import chi

    from dpsco.reference.muabg23.algorithms_spider import kl_spider_concentration

    for d in (1, 2, 5, 20, 100):
        for b in (0.9, 0.5, 1e-1, 1e-3, 1e-8):
            assert chi.sf(kl_spider_concentration(d, b, "exact"), d) <= b
            if math.log(1 / b) >= 1:
                assert chi.sf(kl_spider_concentration(d, b, "printed"), d) <= b
    assert chi.sf(kl_spider_concentration(100, 0.9, "printed"), 100) > 0.9
