"""Menart et al. (2023), arXiv:2311.13447 v2: the privacy ledger and Algorithm 1 (KL Spider).

Exact checks first: the zCDP of the mechanism as implemented on the worst-case replace-one pair (every release
at its clipped sensitivity, every round at full length) against the claim — the exact calibration is exactly
ρ, the printed noise 2.125ρ (the accounting-factor-2 erratum: Lemma 8 charges (b/(nσ))², half the exact cost).
Planted bugs (``dpsco.verification.mutants.muabg23_spider``) are refuted by the same checks.
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
from dpsco.reference.muabg23.spider import (kl_spider, kl_spider_schedule, lemma_8_printed_rho, theorem_1_bound)
from dpsco.verification.mutants.muabg23_spider import (SignedCurvatureLoss, kl_spider_data_dependent_f0,
                                                       kl_spider_extra_difference_step,
                                                       kl_spider_printed_noise_claiming_rho)
from dpsco.verification.papers.muabg23_spider import (AUDIT_PARAMS, cubic_instance, exact_worst_pair_rho,
                                                      quadratic_instance, schedules_differ, suite_tasks_quick)

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
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    r = kl_spider(X, loss, rng=np.random.default_rng(3), **P)
    assert exact_worst_pair_rho(r) == pytest.approx(P["rho"], rel=1e-12)
    assert r.claim.rho == pytest.approx(P["rho"], rel=1e-12)
    steps = r.diagnostics["steps_per_round"]
    assert r.gradient_evaluations == X.shape[0] * sum(1 + t for t in steps)  # anchor + one new point per step
    assert r.diagnostics["releases"] == [r.parameters["K"] + sum(steps)]


def test_printed_noise_mutant_refuted_exactly():
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    r = kl_spider_printed_noise_claiming_rho(X, loss, rng=np.random.default_rng(4), **P)
    assert r.claim.rho == pytest.approx(P["rho"])
    assert exact_worst_pair_rho(r) == pytest.approx(2.125 * P["rho"], rel=1e-12)  # > claim: refuted


def test_extra_step_mutant_refuted_exactly_and_loop_guard_confirmed():
    # the printed guard t ≤ T_k: on the worst-case pair no round stops early (the canary's gradients grow), so a
    # round makes T_k + 1 difference releases — one more than Lemma 8's "at most T_k" and than σ_k is calibrated
    # for; the strict guard makes exactly T_k.  Reconstructed t < T_k confirmed.
    X, loss, P = AUDIT_PARAMS["dataset"], AUDIT_PARAMS["loss"], AUDIT_PARAMS["params"]
    strict = kl_spider(X, loss, rng=np.random.default_rng(5), **P)
    assert strict.diagnostics["steps_per_round"] == list(strict.parameters["T"])
    r = kl_spider_extra_difference_step(X, loss, rng=np.random.default_rng(5), **P)
    assert r.diagnostics["steps_per_round"] == [t + 1 for t in r.parameters["T"]]
    s = kl_spider_schedule(X.shape[0], 1, **P)
    expected = P["rho"] / 2 + sum((t + 1) * P["rho"] / (2 * s.K * t) for t in s.T)
    assert exact_worst_pair_rho(r) == pytest.approx(expected, rel=1e-12)
    assert exact_worst_pair_rho(r) > r.claim.rho * 1.1  # refuted


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


def test_line_17_printed_index_never_moves_at_kappa_2():
    # κ = 2 ⇒ T_k = 1: each round takes one step to w_{k,1}; the printed w_{k+1,0} = w_{k,t−1} = w_{k,0} throws it
    # away, so the output is w_0 exactly (deterministically); the reconstructed w_{k,t} moves.  Refutes the
    # printed index.
    loss, X, P = quadratic_instance(2000, 0.5, np.random.default_rng(7))  # n√ρ = 2·10⁴: Φ_floor < F0
    printed = kl_spider(X, loss, rng=np.random.default_rng(8), line17="printed", **P)
    assert np.array_equal(printed.output, P["w0"])
    fixed = kl_spider(X, loss, rng=np.random.default_rng(8), **P)
    assert np.linalg.norm(fixed.output - P["w0"]) > 0.1


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


def test_suite_tasks_quick():
    for name, result in suite_tasks_quick().items():
        assert set(result) >= {"record", "checks", "audits"}, name
        for key, check in result["checks"].items():
            assert check["p_value"] == 1.0 or check["p_value"] > 1e-6, (name, key, check)
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

    from dpsco.reference.muabg23.spider import kl_spider_concentration

    for d in (1, 2, 5, 20, 100):
        for b in (0.9, 0.5, 1e-1, 1e-3, 1e-8):
            assert chi.sf(kl_spider_concentration(d, b, "exact"), d) <= b
            if math.log(1 / b) >= 1:
                assert chi.sf(kl_spider_concentration(d, b, "printed"), d) <= b
    assert chi.sf(kl_spider_concentration(100, 0.9, "printed"), 100) > 0.9
