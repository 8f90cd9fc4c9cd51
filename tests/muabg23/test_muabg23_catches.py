"""Every pass/fail check of Menart et al. (2023), arXiv:2311.13447 v2, names the planted bug that makes it fail
(``dpsco.verification.mutants.muabg23.catches``), or says why it is uninformative at the quick campaign's inputs.

Each test runs THE SAME check code the suite task runs (the helper the task itself calls, on the same instance
design and public inputs) on a planted copy and asserts that the check fails with p ≤ ``FAILS_UNDER_HOLM`` (1e-6,
which fails under Holm whatever the other checks) — for an exact check, that the exact statement is false — and,
where cheap, that the correct algorithm passes the same code.  Miss probabilities are stated beside each assertion
(most are 0: the check is exact, or the planted copy is deterministic).  The "uninformative" tests compute, at the
campaign's inputs, the power that the check lacks.

False-failure probabilities: the correct algorithms' passes below are exact statements (probability 0 of a false
failure) except test_theorem_1_whp_refutes_returning_the_start (binomial, ≤ 1.6e-8) and
test_em_curve_audit_refutes_noise_over_1e6 (the audit's coverage is not asserted there: only the mutant runs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsco.oracles.muabg23.kl_instances import Theorem8Pair
from dpsco.reference.muabg23.algorithms_adaptive import em_log_probabilities, exact_rule, printed_rule
from dpsco.reference.muabg23.algorithms_proximal import algorithm_2_outer_steps, theorem_2_bound
from dpsco.reference.muabg23.algorithms_spider import kl_spider_schedule, theorem_1_bound
from dpsco.verification.checks.power import uninformative_reason
from dpsco.verification.mutants.catches import FAILS_UNDER_HOLM
from dpsco.verification.mutants.muabg23.adaptive import (adaptive_gd_em_noise_over_1e6, adaptive_gd_noise_free,
                                                         adaptive_gd_paper_units, adaptive_gd_printed_claiming_rho,
                                                         em_log_probabilities_without_2)
from dpsco.verification.mutants.muabg23.proximal import noisy_gd_one_step_more, proximal_point_one_call_more
from dpsco.verification.mutants.muabg23.spider import kl_spider_extra_difference_step, kl_spider_returns_start
from dpsco.verification.papers.muabg23 import adaptive as ma
from dpsco.verification.papers.muabg23 import lower_bound as lb
from dpsco.verification.papers.muabg23 import proximal as mp
from dpsco.verification.papers.muabg23 import spider as ms
from dpsco.verification.papers.registry import SuiteInputs


def _quick(seed: int) -> SuiteInputs:
    return SuiteInputs("quick", np.random.SeedSequence(seed), 0.95)


# -- Algorithm 1 (KL Spider) --------------------------------------------------------------------------------------


def test_kl_spider_count_refutes_extra_step():
    """``kl_spider_hp_checks`` (the code of the suite's "kl_spider_count") on the copy whose loop guard makes one
    more difference release per round: its published count is the releases it makes, n·(K + Σ_k(T_k + 1)), not
    the schedule's n·(K + Σ_k T_k) — false on every run (K ≥ 1): exact, miss probability 0.  Two runs at the
    suite's n = 1000 (the quick budget runs 6; the verdict is the same on each run).  The reference passes."""
    n, beta = ms.SIZES["quick"]["grid"][0], 0.05
    bad = ms.kl_spider_hp_checks(np.random.SeedSequence(11), 2, n, beta, algorithm=kl_spider_extra_difference_step)
    assert bad["kl_spider_count"]["p_value"] == 0.0 <= FAILS_UNDER_HOLM
    good = ms.kl_spider_hp_checks(np.random.SeedSequence(11), 2, n, beta)
    assert good["kl_spider_count"]["p_value"] == 1.0


def test_theorem_1_whp_refutes_returning_the_start():
    """The suite's Theorem 1 w.h.p. check (``kl_spider_hp_checks``, 6 runs at n = 1000: the quick budget's) on the
    copy that returns w_0.  Its excess is (L_1/2)‖w_0 − x̄‖² ≥ (0.5 − 0.1)²/2 = 0.08 on every run (records in the
    ball of radius 0.1, w_0 = (0.5, 0)), above Φ̂_K (asserted below), so all 6 runs violate: p = P(Bin(6, 0.05)
    ≥ 6) = 0.05⁶ = 1.5625e-8 ≤ 1e-6, deterministically (miss probability 0).  The reference at the same 6 runs
    fails falsely only if all 6 violate, probability ≤ 0.05⁶ = 1.6e-8 under Theorem 1."""
    n, beta, reps = ms.SIZES["quick"]["grid"][0], 0.05, ms.SIZES["quick"]["reps"]
    bound = theorem_1_bound(kl_spider_schedule(n, 2, 100.0, beta, 0.5, 1.0 / math.sqrt(2.0), 2.0, 1.0, 1.0))
    assert bound < 0.5 * (0.5 - 0.1) ** 2  # 0.0618 < 0.08
    bad = ms.kl_spider_hp_checks(np.random.SeedSequence(12), reps, n, beta, algorithm=kl_spider_returns_start)
    assert bad["violations"] == reps == 6
    assert bad["kl_spider_theorem_1_whp"]["p_value"] == pytest.approx(0.05 ** 6, rel=1e-9)
    assert bad["kl_spider_theorem_1_whp"]["p_value"] <= FAILS_UNDER_HOLM
    good = ms.kl_spider_hp_checks(np.random.SeedSequence(12), reps, n, beta)
    assert good["kl_spider_theorem_1_whp"]["p_value"] > FAILS_UNDER_HOLM  # false failure ≤ 1.6e-8


def test_kl_spider_rate_checks_are_uninformative_at_quick():
    """Theorem 1's rate checks at the quick budget (grid n = 1000, 2000, 4000 and its first two for the cubic; 2 runs
    per point): the suite's Hoeffding range is [0, hi] with hi = (L_1/2)(‖w_0 − x̄‖ + Σ_k T_k s_k)^κ at the
    smallest n (1601 on the quadratic, 1.4e5 on the cubic: Lemma 1, every step has length s_k), so the detectable
    excess of ``theorem_checks.rate_check``, hi·√(log(k/10⁻³)/(2·2)), exceeds every bound (≤ 0.062) by 10⁴×: a true
    mean of twice the bound passes surely.  Computed by hand from the public schedules (the task runs 6 s);
    ``checks.power.uninformative_reason`` labels such a record."""
    sz, beta = ms.SIZES["quick"], 0.05
    s_max = kl_spider_schedule(sz["grid"][0], 2, 100.0, beta, 0.5, 1.0 / math.sqrt(2.0), 2.0, 1.0, 1.0)
    P = {k: v for k, v in ms.cubic_instance(2, beta, np.random.default_rng(0))[2].items() if k != "w0"}
    s_c = kl_spider_schedule(sz["grid"][0], 2, **P)
    cases = {"kl_spider_theorem_1_rate": (0.5 * (0.6 + sum(t * st for t, st in zip(s_max.T, s_max.step))) ** 2,
                                          [ms._bound(m) for m in sz["grid"]]),
             "kl_spider_theorem_1_rate_kappa_1_5": (
                 0.5 * (0.9 + sum(t * st for t, st in zip(s_c.T, s_c.step))) ** 3,
                 [ms._bound_cubic(m) for m in sz["grid"][:-1]])}
    for key, (hi, bounds) in cases.items():
        detect = hi * math.sqrt(math.log(len(bounds) / 1e-3) / (2 * sz["rate_runs"]))
        assert hi > 1000 and detect > 1e4 * max(bounds), (key, hi, bounds)
        rec = {"kind": "upper", "bounds": bounds, "value_range": [0.0, hi], "detectable_bound_excess": detect,
               "replicates": sz["rate_runs"]}
        assert "twice the bound" in uninformative_reason(rec), key


# -- Algorithm 4 (noisy GD on the regularised problem) ---------------------------------------------------------


def test_noisy_gd_checks_refute_one_step_more():
    """``noisy_gd_checks`` (the suite's exact checks of Algorithm 4, n = 8, ρ = 0.5) with the copy that takes T
    noisy steps for T − 1 accounted, at both calibrations: "noisy_gd_exact_privacy" (exact ρ of the steps taken,
    ρT/(T − 1) > ρ), "noisy_gd_printed_privacy" (printed: Tρ/(2T) = ρ/2 > its claim (T − 1)ρ/(2T), and not
    < ρ/2) and "noisy_gd_count" (T·n reported, (T − 1)·n prescribed) are all false — exact, miss probability 0.
    The reference passes all three (exact)."""
    n = mp.SIZES["quick"]["n"]
    bad, runs, rho, _ = mp.noisy_gd_checks(n, np.random.SeedSequence(21).spawn(4), algorithm=noisy_gd_one_step_more)
    T = runs["exact"].parameters["T"]
    assert rho["exact"] == pytest.approx(mp.RHO * T / (T - 1), rel=1e-9)
    assert rho["printed"] == pytest.approx(mp.RHO / 2, rel=1e-9)
    for key in ("noisy_gd_exact_privacy", "noisy_gd_printed_privacy", "noisy_gd_count"):
        assert bad[key]["p_value"] == 0.0 <= FAILS_UNDER_HOLM, key
    good, *_ = mp.noisy_gd_checks(n, np.random.SeedSequence(21).spawn(4))
    for key in ("noisy_gd_exact_privacy", "noisy_gd_printed_privacy", "noisy_gd_count", "noisy_gd_mutants_refuted"):
        assert good[key]["p_value"] == 1.0, key


def test_noisy_gd_rate_is_uninformative_at_quick():
    """Theorem 9's rate at the quick budget (grid n = 8, 16, 4 runs per point) on the range [0, L_0²/L̃_1] = [0, 1]:
    the detectable excess of ``theorem_checks.rate_check``, 1·√(log(2/10⁻³)/(2·4)) = 0.975, exceeds the largest
    bound (Theorem 9 at n = 8, 0.27), so a true mean of twice the bound passes.  By hand from the public bound."""
    sz = mp.SIZES["quick"]
    bounds = [mp.theorem_9_bound(n, 1, mp.RHO, mp.BETA, mp.L0, mp.LT) for n in sz["grid"]]
    detect = (mp.L0 ** 2 / mp.LT) * math.sqrt(math.log(len(bounds) / 1e-3) / (2 * sz["rate_runs"]))
    assert detect == pytest.approx(0.97474, rel=1e-4) and detect > max(bounds) == pytest.approx(0.2705, rel=1e-3)
    rec = {"kind": "upper", "bounds": bounds, "value_range": [0.0, 1.0], "detectable_bound_excess": detect,
           "replicates": sz["rate_runs"]}
    assert "twice the bound" in uninformative_reason(rec)


# -- Algorithm 2 (proximal point) -------------------------------------------------------------------------------


def test_proximal_point_checks_refute_one_call_more():
    """``proximal_point_checks`` (the suite's exact checks of Algorithm 2, n = 8, ρ = 1, T_4 = 3) with the copy
    whose outer loop makes T + 1 calls: "proximal_point_exact_privacy" (ρ(T + 1)/T > ρ) and
    "proximal_point_count" ((T + 1)(T_4 − 1)n ≠ T(T_4 − 1)n) are false — exact, miss probability 0.  The
    schedule check still passes (the copy publishes the correct schedule), and the reference passes all three."""
    n = mp.SIZES["quick"]["n"]
    bad, rel, rho, _ = mp.proximal_point_checks(n, np.random.SeedSequence(31).spawn(4),
                                                algorithm=proximal_point_one_call_more)
    T = rel.parameters["T"]
    assert rho == pytest.approx(rel.claim.rho * (T + 1) / T, rel=1e-9)
    for key in ("proximal_point_exact_privacy", "proximal_point_count"):
        assert bad[key]["p_value"] == 0.0 <= FAILS_UNDER_HOLM, key
    good, *_ = mp.proximal_point_checks(n, np.random.SeedSequence(31).spawn(4))
    for key in ("proximal_point_exact_privacy", "proximal_point_count", "proximal_point_schedule"):
        assert good[key]["p_value"] == 1.0, key


def test_proximal_point_rate_cannot_fail_at_quick():
    """Theorem 2's rate check at the quick grid n = 8, 16 (ρ = 4, κ = 3): every bound (Theorem 2 with a = 1, plus
    βF_0) is at least the cap 1 of the capped excess min(F(w_T) − F*, F_0), so no outcome can fail it.  Computed by
    hand from the public schedule (T from line 1), without running the algorithm (the task runs 32 s)."""
    p = mp.RATE_INSTANCE
    bounds = []
    for n in mp.RATE_SIZES["quick"]["grid"]:
        T = algorithm_2_outer_steps(n, 1, p["rho"], p["F0"], p["gamma"], p["kappa"], p["L0"], p["l1_tilde"])
        bounds.append(theorem_2_bound(n, 1, p["rho"], p["beta"], p["gamma"], p["kappa"], p["L0"], T)
                      + p["beta"] * mp.RATE_CAP)
    assert min(bounds) >= mp.RATE_CAP
    assert uninformative_reason({"kind": "upper", "bounds": bounds, "value_range": [0.0, mp.RATE_CAP],
                                 "detectable_bound_excess": 0.97}).startswith("cannot fail")


# -- Algorithm 3 and Theorem 5 ---------------------------------------------------------------------------------


def test_privacy_checks_refute_paper_units_and_printed_claim():
    """``privacy_checks`` (the suite's exact checks of Algorithm 3; for Theorem 5 its "_em" keys, computed by the
    same code on Algorithm 3, its first part) at the quick budget's 10 runs:

    * ``adaptive_gd_paper_units`` (charges half the replace-one cost): the filter stops once its charges exceed
      the guard ρ/2, so the exact cost of every transcript exceeds ρ (0.75 = 1.5ρ here) — "adaptive_filter_total"
      and "adaptive_filter_total_em" false;
    * ``adaptive_gd_printed_claiming_rho`` (the printed calibration claiming ρ): its charges are half the
      replace-one cost and exceed the printed guard ρ/2 when the filter stops, so the exact cost exceeds the
      claim ρ — "adaptive_printed_total" and "adaptive_printed_total_em" false.

    Exact checks of seeded runs: the failures are exact statements (p = 0); miss probability 0 as long as one of
    the 10 runs is stopped by its guard rather than its step cap (asserted: mean steps below the cap)."""
    inp = _quick(41)
    assert exact_rule(400, 2, 0.5, 0.1, 1.0, 1.0).guard == printed_rule(400, 2, 0.5, 0.1, 1.0, 1.0).guard == 0.25
    units = ma.privacy_checks(inp, True, algorithm=adaptive_gd_paper_units)["checks"]
    assert units["adaptive_filter_total_em"]["p_value"] == 0.0 <= FAILS_UNDER_HOLM
    assert units["adaptive_filter_total_em"]["estimate"] > 0.5
    for em in (False, True):
        out = ma.privacy_checks(inp, em, algorithm=adaptive_gd_printed_claiming_rho)
        key = "adaptive_printed_total" + ("_em" if em else "")
        assert out["checks"][key]["p_value"] == 0.0 <= FAILS_UNDER_HOLM, key
        assert out["checks"][key]["estimate"] > 1.0
        assert out["record"]["mean_steps"] < printed_rule(400, 2, 0.5, 0.1, 1.0, 1.0).max_steps
        # the copy's exact calibration is the reference's: the filter check passes it (exact)
        assert out["checks"]["adaptive_filter_total" + ("_em" if em else "")]["p_value"] == 1.0


def test_em_bounded_range_refutes_scores_without_2():
    """``em_bounded_range_check`` (the suite's exact check, n = 400, ρ_EM = 0.25: ε = √2) with the scoring
    function without its factor 2: the log-ratio range on (Δ, Δ) vs (2Δ, 0) is 2ε > ε (by hand: the scores
    differ by ε·(Δ/Δ) = ε at t = 0 and −ε at t = 1 with the factor 2 dropped, range 2ε) — exact, miss 0.
    The reference's range is ε (equality: the extremal pair attains the bound)."""
    bad = ma.em_bounded_range_check(log_probabilities=em_log_probabilities_without_2)
    assert bad["p_value"] == 0.0 <= FAILS_UNDER_HOLM
    assert bad["estimate"] == pytest.approx(2.0 * math.sqrt(2.0), rel=1e-12)
    good = ma.em_bounded_range_check(log_probabilities=em_log_probabilities)
    assert good["p_value"] == 1.0 and good["estimate"] == pytest.approx(math.sqrt(2.0), rel=1e-12)


@pytest.mark.campaign
def test_em_curve_audit_refutes_noise_over_1e6():
    """The suite's black-box curve audit of w_{t*} (``adaptive_em_curve_audit``, n = 8, records e_1 vs −e_1,
    ρ = 0.5) at 2,000 runs per side (the standard budget's; at the quick budget's 300 it is not refuted) on the
    Theorem 5 copy whose Algorithm 3 noises are divided by 10⁶.  Campaign-marked (about 8 s).

    Miss probability, derived as in tests/muabg23/test_muabg23_adaptive.py::test_curve_audit_refutes_noise_over_1e6: the
    filter stops after T = 2 steps on both datasets (asserted there, same rule), N_t lies within 1e-4 of the exact
    norm except with probability 2Φ(−100) per draw, and the scores (exact clipped norms, 1 on S, 0.75 on S') are
    equal along each trajectory, so t* is uniform on {0, 1, 2}: w_{t*} ∈ {0, −0.5, −1} on S and {0, −0.375,
    −0.75} on S' (η = 1/2), each within 1e-4.  The cluster at −1 has probability 1/3 on S and 0 on S'; the
    selection half scores the event separating it best (count c vs 0, c ~ Bin(m_sel, 1/3)), at the edge order
    statistic of the c cluster draws, which a fresh cluster draw falls inside with probability ≥ 1/2 except with
    probability 2^(−c).  The test half then counts k ~ Bin(m, ≥ 1/6) against 0 and refutes once k ≥ k*.  Total
    miss ≤ P(Bin(m_sel, 1/3) < c₀) + 2^(−c₀) + P(Bin(m, 1/6) < k*) + (draws)·2Φ(−100), asserted ≤ 1e-6."""
    from dpsco.verification.auditing.curve_audit import curve_box, curve_refutes
    from dpsco.verification.auditing.curves import CurveClaim

    runs, conf = 2000, 0.95
    rec = ma.adaptive_em_curve_audit(runs, np.random.default_rng(17), conf, algorithm=adaptive_gd_em_noise_over_1e6)
    m, m_sel = int(rec["details"]["n_test"]), int(rec["details"]["n_selection"])
    f = CurveClaim.zcdp(ma.RHO_AUDIT * 1.5).tradeoff          # the claim ρ + ρ_EM = 0.75
    k_star = next(k for k in range(m + 1) if curve_refutes(*curve_box(k, m, 0, m, conf)[:2], f))
    c0 = 60
    draws = 2 * runs * 2 * 3
    miss = (stats.binom.cdf(c0 - 1, m_sel, 1.0 / 3.0) + 2.0 ** -c0 + stats.binom.cdf(k_star - 1, m, 1.0 / 6.0)
            + draws * 2 * stats.norm.cdf(-100.0))
    assert miss <= 1e-6, (m, m_sel, k_star, miss)
    assert rec["verdict"] == "refuted", rec["details"]
    assert rec["p_value"] <= FAILS_UNDER_HOLM


# -- Theorem 8's lower bound -------------------------------------------------------------------------------------


def test_theorem8_refutes_noise_free_adaptive_gd():
    """The suite's Theorem 8 task (``run_lower_bound_task``, quick: 200 runs per dataset) on Algorithm 3 with its
    noise dropped: its output is deterministic with excess 0 on both datasets, so both UCBs are h = 0.743·¼r^κ
    < ¼r^κ and p = exp(−2·200·(¼)²) = e^{−25} = 1.4e-11 ≤ 1e-6 — miss probability 0 (deterministic).  The task
    does not state that it cannot fail (its noise-free copy is what fails); it states (issue 28) that at these runs
    it cannot detect a mean of half the bound, so a pass is labelled uninformative — a failure stays a failure."""
    out = lb.run_lower_bound_task("adaptive_gd", _quick(51), adaptive_gd_noise_free)
    chk = out["checks"]["adaptive_gd_theorem8"]
    assert out["record"]["mean_S"] == out["record"]["mean_S_prime"] == 0.0
    assert chk["p_value"] == pytest.approx(math.exp(-25.0), rel=1e-9) and chk["p_value"] <= FAILS_UNDER_HOLM
    assert chk["uninformative_at_inputs"].startswith("cannot detect a mean of half the bound")
    assert chk["power"]["reaches_claim"] is False
    ref = lb.lower_bound_task("adaptive_gd")(_quick(51))["checks"]["adaptive_gd_theorem8"]
    assert ref["uninformative_at_inputs"].startswith("cannot detect a mean of half the bound")
    assert ref["p_value"] > FAILS_UNDER_HOLM  # false failure ≤ α = 1e-6


@pytest.mark.parametrize("key, e0", [("kl_spider", 1.6464), ("proximal_point", 0.3950),
                                     ("noisy_regularised_gd", 0.3950), ("adaptive_gd_em", 2.0)])
def test_theorem8_is_uninformative_where_the_noise_free_copy_passes(key, e0):
    """At the quick budget's R = 200 the Hoeffding half-width is h = r^κ√(ln 10⁶/400) = 0.743·¼r^κ, and the check
    fails only if max(truncated mean) + h < ¼r^κ.  With all noise removed (ε = ∞) these algorithms' deterministic
    excess e₀ is 1.646 (KL Spider: its schedule moves w by less than a/2, so no output can fail), 0.395, 0.395
    and 2 (Theorem 5 selects w_0) × ¼r^κ: e₀ + h ≥ ¼r^κ, so the check passes even them — it cannot see a privacy
    bug of these algorithms at these runs.  The task states it (``noise_free_reason``) and the check passes."""
    out = lb.lower_bound_task(key)(_quick(52))
    chk, rec = out["checks"][f"{key}_theorem8"], out["record"]
    assert rec["half_width_S"] / rec["bound"] == pytest.approx(4.0 * math.sqrt(math.log(1e6) / 400.0), rel=1e-9)
    why = chk.get("uninformative_at_inputs")
    assert why is not None and why.startswith("cannot fail") and f"{e0:.3g}·¼r^κ" in why, why
    assert uninformative_reason(chk) == why
    pair = Theorem8Pair(lb.INSTANCE["n"], lb.INSTANCE["k"], lb.INSTANCE["kappa"])
    if key == "kl_spider":  # the reach of the schedule, Σ_k T_k s_k < a/2: every output has excess ≥ r·a/2 = ¼r^κ
        P = lb.algorithm_parameters(pair)
        s = kl_spider_schedule(pair.n, 1, lb.group_budget(pair.k)["rho"], P["beta"], P["F0"], P["gamma"],
                               P["kappa"], P["L0"], P["L1"])
        assert sum(t * st for t, st in zip(s.T, s.step)) < pair.a / 2
