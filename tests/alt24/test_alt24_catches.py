"""Every pass/fail check of Asi, Liu & Tian (2024) names the planted bug that makes it fail (``mutants.alt24.catches``):
the suite's own task functions (``verification/papers/alt24_*.py``) run on the planted copies of
``verification/mutants/alt24/clipped.py``, ``alt24_known_lip.py``, ``alt24_localized.py`` and
``alt24_svt.py`` (the reference function the task calls is swapped for the copy with
``monkeypatch``; the task's code, instance design and sizes are unchanged unless a comment says which loop
was shortened and why the conclusion does not depend on it), and the check must fail: p-value ≤
``catches.FAILS_UNDER_HOLM`` (1e-6).  The checks the campaign labels "uninformative" are shown unable to fail
at the campaign's inputs from their own numbers (``checks.power``).

Exact checks (counts, disjointness) are deterministic: no false-failure probability.  The audits on the
noise-dropped copies run deterministic mechanisms (every Gaussian draw is 0, the data fixed), so their outcome
counts, and the p-value, are fixed numbers: miss probability 0.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsco.verification.checks.power import uninformative_reason
from dpsco.verification.mutants.alt24 import clipped as mc
from dpsco.verification.mutants.alt24 import known_lip as mk
from dpsco.verification.mutants.alt24 import localized as ml
from dpsco.verification.mutants.alt24.clipped import ht_sco_overlapping_blocks
from dpsco.verification.mutants.catches import FAILS_UNDER_HOLM
from dpsco.verification.papers.alt24 import known_lip as K
from dpsco.verification.papers.alt24 import localization as L
from dpsco.verification.papers.alt24.power import bound_above_range
from dpsco.verification.papers.registry import SuiteInputs

QUICK = lambda seed: SuiteInputs("quick", np.random.SeedSequence(seed), 0.95)  # noqa: E731 (the campaign's default)


def _fails(check: dict) -> None:
    assert check["p_value"] <= FAILS_UNDER_HOLM, check


# ---- exact counts: off-by-one schedules and loops that skip their last block or phase ------------------------

def test_alg1_count_fails_on_one_step_too_many(monkeypatch):
    """``alg1_exact`` (n = 12, the worst pair) on Corollary 1's solver with T + 1 steps: n(T + 1) ≠ n·T (exact)."""
    ok = L.alg1_exact(QUICK(1))["checks"]["alg1_count"]
    assert ok["p_value"] == 1.0
    monkeypatch.setattr(L, "corollary_1_solver", mc.corollary_1_solver_one_step_too_many)
    bad = L.alg1_exact(QUICK(1))["checks"]["alg1_count"]
    _fails(bad)
    assert bad["estimate"] == ok["estimate"] + 12  # one more step of n = 12 gradients


def test_alg3_count_fails_when_the_last_block_is_skipped(monkeypatch):
    """``alg3_bounds`` on Algorithm 3 skipping block J: (J − 1)·n·T ≠ J·n·T (exact).  The task's Corollary 2
    success loop (``reps`` runs) feeds only ``cor2_success``; it is cut to 1 run here (``_sizes``)."""
    monkeypatch.setattr(L, "_sizes", lambda inputs: {**L.SIZES["quick"], "reps": 1})
    ok = L.alg3_bounds(QUICK(2))["checks"]["alg3_count"]
    assert ok["p_value"] == 1.0
    monkeypatch.setattr(L, "aggregate_erm", mc.aggregate_erm_skips_last_block)
    bad = L.alg3_bounds(QUICK(2))["checks"]["alg3_count"]
    _fails(bad)
    # cor2_success is uninformative whatever the runs: Corollary 2's radius (C_rp = 46) exceeds X's diameter 6
    assert "diameter" in uninformative_reason(L.alg3_bounds(QUICK(2))["checks"]["cor2_success"])
    assert bad["estimate"] == 2 * ok["estimate"] / 3  # J = 3 blocks, one skipped


def _ht_bounds_without_excess_runs(monkeypatch):
    # the task's excess runs (_ht_excess, 10 HT-SCO runs) feed only thm1_proof_bound; the count and the
    # disjointness checks read the task's one further run, which is unchanged
    monkeypatch.setattr(L, "_ht_excess", lambda n, rng, moments, alpha=L.ALPHA: 0.0)
    return L.ht_bounds(QUICK(3))["checks"]


def test_thm1_count_fails_when_the_last_phase_is_skipped(monkeypatch):
    """``ht_bounds`` (n = 256) on HT-SCO stopping one phase early: Σ_{i<I} ≠ Σ_{i≤I} J·m_i·T_i (exact)."""
    ok = _ht_bounds_without_excess_runs(monkeypatch)
    assert ok["thm1_count"]["p_value"] == 1.0
    # thm1_proof_bound is uninformative whatever the runs: the proof's bound exceeds the largest excess 2R‖μ‖
    assert ok["thm1_proof_bound"]["bound"] >= 2 * L.R_DOMAIN * float(np.linalg.norm(L.MU))
    assert "cannot fail" in uninformative_reason(ok["thm1_proof_bound"])
    monkeypatch.setattr(L, "ht_sco", mc.ht_sco_skips_last_phase)
    _fails(_ht_bounds_without_excess_runs(monkeypatch)["thm1_count"])


def test_thm1_disjoint_fails_on_overlapping_blocks(monkeypatch):
    """``ht_bounds`` on the overlapping-blocks copy: the blocks the run used (published) put the first record of
    each portion in all I phases, used.max() = I > 1 (exact)."""
    ok = _ht_bounds_without_excess_runs(monkeypatch)["thm1_disjoint"]
    assert ok["p_value"] == 1.0
    monkeypatch.setattr(L, "ht_sco", ht_sco_overlapping_blocks)
    bad = _ht_bounds_without_excess_runs(monkeypatch)["thm1_disjoint"]
    _fails(bad)
    assert bad["estimate"] >= 2


def test_thm5_count_fails_when_the_last_phase_is_skipped(monkeypatch):
    """``highprob_bounds`` (n = 2048) on HighProb-SCO stopping one phase early: J·Σ_{i<I} T_i ≠ J·Σ_{i≤I} T_i."""
    monkeypatch.setattr(L, "_sizes", lambda inputs: {**L.SIZES["quick"], "reps": 2})  # reps = max(10, ·): 10 runs
    ok = L.highprob_bounds(QUICK(4))["checks"]
    assert ok["thm5_count"]["p_value"] == 1.0
    # thm5_proof_bound is uninformative whatever the runs: Proposition 2's bound exceeds 2R‖μ‖
    assert "cannot fail" in uninformative_reason(ok["thm5_proof_bound"])
    monkeypatch.setattr(L, "highprob_sco", mc.highprob_sco_skips_last_phase)
    _fails(L.highprob_bounds(QUICK(4))["checks"]["thm5_count"])


def test_cor3_disjoint_fails_when_every_epoch_reuses_the_first_batch(monkeypatch):
    """``sc_bounds`` (n = 512, 5 epochs) on the wrapper reading S[0:n'] in every epoch: the published record
    ranges overlap (exact).  ``cor3_count`` stays uninformative there: its cap is far above twice the count."""
    out = L.sc_bounds(QUICK(5))["checks"]
    assert out["cor3_disjoint"]["p_value"] == 1.0
    assert uninformative_reason(out["cor3_count"]) is not None and out["cor3_count"]["p_value"] == 1.0
    monkeypatch.setattr(L, "sc_sco", mc.sc_sco_reuses_first_batch)
    _fails(L.sc_bounds(QUICK(5))["checks"]["cor3_disjoint"])


# ---- audits: the noise term dropped (deterministic releases) --------------------------------------------------

def _refuted(audit: dict) -> None:
    assert audit["verdict"] == "refuted" and audit["p_value"] <= FAILS_UNDER_HOLM, \
        {k: audit.get(k) for k in ("verdict", "p_value")}


def test_alg3_white_box_refutes_sigma_from_all_records(monkeypatch):
    """``alg3_audit`` at the campaign's size (500 white-box runs per side; the canary's block of n = 8, J = 3) on
    Algorithm 3 calibrating σ with N = J·n records (σ/3, each block 9ρ-zCDP).  Deterministic at this seed.  The
    miss probability over seeds is NOT derived: the event is placed from pilot runs; measured, 11 of 12 seeds
    refute at p ≤ 4e-10 and one placement misses (p = 1)."""
    monkeypatch.setattr(L, "aggregate_erm", mc.aggregate_erm_sigma_from_all_records)
    _refuted(L.alg3_audit(QUICK(0))["audits"]["alg3_white_box"])


@pytest.mark.campaign
def test_ht_sco_black_box_audits_refute_the_noise_dropped_copy(monkeypatch):
    """``ht_audit`` at the campaign's size (150 runs per side on the worst-case pair, 75 on randhie) on HT-SCO
    without noise: deterministic outputs that differ between the sides, so every test run of one side falls in
    the selected event and none of the other (miss 0): p = 1.9e-11 on the worst pair; on randhie p = 6.2e-6,
    the smallest p-value 75 runs per side can give (refuted at the audit's confidence 0.95, above 1e-6)."""
    monkeypatch.setattr(L, "ht_sco", mc.ht_sco_noise_dropped)
    audits = L.ht_audit(QUICK(7))["audits"]
    _refuted(audits["ht_sco_black_box"])
    randhie = audits["ht_sco_randhie"]
    assert randhie["verdict"] == "refuted" and randhie["p_value"] <= 1e-5, randhie["p_value"]


def test_sc_black_box_audits_a_constant_release_at_the_campaigns_inputs():
    """``sc_audit``'s pair (n = 48: 4 epochs of 12 records < 2·J(1), HT-SCO's trivial regime I = 0 in each) makes
    no gradient call: the release is X's centre on both datasets for every seed, so no copy that keeps that
    regime can be refuted; the record says so (``uninformative_at_inputs``).  Deterministic."""
    from dpsco.reference.alt24.algorithms_localization import sc_sco
    from dpsco.reference.alt24.losses import MeanEstimationLoss

    D, Dp = L._pair(48, 50.0, index=0)
    for S in (D, Dp):
        for seed in range(3):
            rel = sc_sco(S, MeanEstimationLoss(), rng=np.random.default_rng(seed), **L._sc_kw())
            assert rel.gradient_evaluations == 0 and np.array_equal(rel.output, np.zeros(2))
    rec = L.sc_audit(QUICK(8))["audits"]["sc_black_box"]
    assert rec["verdict"] == "not refuted" and "trivial regime" in rec["uninformative_at_inputs"]


@pytest.mark.campaign
def test_known_lip_audits_refute_the_noise_dropped_copy(monkeypatch):
    """``known_lip_audit`` at the campaign's size (the worst pair, 300 runs per side, and the randhie pair, 150) on
    Algorithm 4 without noise: deterministic outputs that differ between the sides (miss 0); measured p ≤ 1e-6
    already at 100 runs per side."""
    monkeypatch.setattr(K, "known_lip_reduction", mk.known_lip_reduction_noise_dropped)
    audits = K.known_lip_audit(QUICK(9))["audits"]
    _refuted(audits["known_lip_worst_pair"])
    _refuted(audits["known_lip_randhie"])


def test_onepass_dp_worst_pair_refutes_the_noise_dropped_copy(monkeypatch):
    """``onepass_dp_audit``'s black-box curve audit (linear GLM, n = 64, ±10⁶e₁ first in phase 1) on Algorithm 8
    without noise, at 100 runs per side instead of 300 (and 50 white-box runs, 20 χ² runs, which feed other
    checks): deterministic outputs that differ between the sides (miss 0)."""
    monkeypatch.setitem(K.SIZES, "quick", {**K.SIZES["quick"], "audit": 100, "white_box": 50, "chi2": 20})
    monkeypatch.setattr(K, "onepass_clipped_dp_sgd", mk.onepass_clipped_dp_sgd_noise_dropped)
    _refuted(K.onepass_dp_audit(QUICK(10))["audits"]["onepass_dp_worst_pair"])


# ---- Algorithms 4, 7, 8: counts and Lemma 13 ----------------------------------------------------------------

def test_known_lip_count_fails_on_phase_slices_off_by_one(monkeypatch):
    """``known_lip_bounds`` (n = 128) on Algorithm 4 whose phases slice S[start:stop − 1]: real + dummy =
    Σ(n_i − 1)T_i ≠ Σ n_iT_i, the published schedule (exact)."""
    assert K.known_lip_bounds(QUICK(11))["checks"]["known_lip_count"]["p_value"] == 1.0
    monkeypatch.setattr(K, "known_lip_reduction", mk.known_lip_phase_slice_off_by_one)
    _fails(K.known_lip_bounds(QUICK(11))["checks"]["known_lip_count"])


def test_onepass_dp_count_fails_when_the_last_phase_takes_the_rest(monkeypatch):
    """``onepass_dp_bounds`` (n = 1024, 2^I − 1 = 1023) on Algorithm 8 whose last phase runs to the end of the
    data: 1024 ≠ 1023 gradient evaluations (exact).  The task's utility loop runs 2 datasets instead of 8
    (``reps``; the count is the same on every run)."""
    monkeypatch.setitem(K.SIZES, "quick", {**K.SIZES["quick"], "reps": 2})
    ok = K.onepass_dp_bounds(QUICK(12))["checks"]
    assert ok["onepass_dp_count"]["p_value"] == 1.0
    # onepass_dp_theorem_4 is uninformative whatever the runs: the corrected bound exceeds the clipped range's top 2
    assert ok["onepass_dp_theorem_4"]["bound"] >= 2.0 and "cannot fail" in uninformative_reason(ok["onepass_dp_theorem_4"])
    monkeypatch.setattr(K, "onepass_clipped_dp_sgd", mk.onepass_dp_sgd_last_phase_takes_the_rest)
    bad = K.onepass_dp_bounds(QUICK(12))["checks"]["onepass_dp_count"]
    _fails(bad)
    assert bad["estimate"] == 1024


def test_onepass_dp_stability_is_uninformative_at_the_campaigns_inputs():
    """``onepass_dp_bounds``'s coupled-run stability check: the largest ratio on its logistic-GLM neighbours is
    far below 1/2, so a copy whose coupled difference is twice the reference's passes; the record says so.
    Deterministic (the data are drawn from the task's seed)."""
    chk = K.onepass_dp_bounds(QUICK(12))["checks"]["onepass_dp_stability"]
    assert chk["p_value"] == 1.0 and 2 * chk["estimate"] <= 1.0
    assert "twice the reference" in uninformative_reason(chk)


def test_localized_gradient_count_fails_on_two_passes(monkeypatch):
    """``task_bounds`` of Algorithm 7 (n = 1024, 4 runs) on the copy running each phase twice: 2·(2^I − 1) = 2046
    per-sample gradients on a run that does not halt > n (exact; the copy's runs at the task's seeds do not
    halt, so the count is 2046 — asserted)."""
    from dpsco.verification.papers.alt24 import localized as LZ

    ok = LZ.task_bounds(QUICK(13))["checks"]
    assert ok["gradient_count"]["p_value"] == 1.0
    # theorem_3_bound is uninformative: the proof's bound exceeds the largest excess 2R‖m‖ = 2 (checks.power)
    assert "cannot fail" in uninformative_reason(ok["theorem_3_bound"])
    monkeypatch.setattr(LZ, "localized_clipped_dp_sgd", ml.localized_dp_sgd_two_passes)
    bad = LZ.task_bounds(QUICK(13))["checks"]["gradient_count"]
    _fails(bad)
    assert bad["estimate"] == 2046


def test_lemma_13_conditions_fail_on_the_printed_clip(monkeypatch):
    """``task_bounds`` of Algorithm 7 with Theorem 3's printed C (ERRATA): at η = η_2, n(2G_k/C)^k = c/2 > c/4,
    so the check's Lemma 13 conditions fail (exact).  Lemma 12's check, the ⊥ rate and the bound are the other
    records of the same run."""
    from dpsco.verification.papers.alt24 import localized as LZ

    monkeypatch.setattr(LZ, "theorem_3_parameters", ml.theorem_3_parameters_printed_clip)
    out = LZ.task_bounds(QUICK(13))["checks"]
    _fails(out["lemma_13_conditions"])
    assert out["lemma_12_conditions"]["p_value"] == 1.0  # Lemma 12 is free of C at β = 0


def test_lemma_12_and_bottom_rate_cannot_fail_at_the_campaigns_inputs():
    """Lemma 12's check: Algorithm 7 refuses (ValueError) parameters that violate Lemma 12 before reading any
    record — ω without its factor √2 is refused — so every run of the task already satisfies it.  The ⊥ rate:
    at twice the bound 2I/n² a halt shows in the task's 4 runs with probability 1 − (1 − 2I/n²)^4 < 1e-4.
    Both records say so (``uninformative_at_inputs``).  Deterministic."""
    import dataclasses

    from dpsco.reference.alt24.algorithms_localized import localized_clipped_dp_sgd, theorem_3_parameters
    from dpsco.reference.alt24.losses import LinearLoss
    from dpsco.verification.papers.alt24 import localized as LZ

    out = LZ.task_bounds(QUICK(13))["checks"]
    assert "check_lemma_12" in uninformative_reason(out["lemma_12_conditions"])
    bottom = out["bottom_rate"]
    reps = 4
    assert 1.0 - (1.0 - 2.0 * bottom["bound"]) ** reps < 1e-4
    assert "twice the bound" in uninformative_reason(bottom)
    u = LZ.UTILITY
    _, _, mb = LZ.heavy_tailed_linear_instance(2, np.random.default_rng(0), d=u["d"])
    p = theorem_3_parameters(1024, u["d"], u["epsilon"], u["delta"], mb, 2.0 * u["radius"])
    bad = dataclasses.replace(p, omega=p.omega / np.sqrt(2.0))
    with pytest.raises(ValueError, match="Lemma 12"):
        localized_clipped_dp_sgd(np.zeros((1024, u["d"])), LinearLoss(), np.zeros(u["d"]), eta=bad.eta, C=bad.C,
                                 c=bad.c, omega=bad.omega, beta=0.0, epsilon=u["epsilon"], delta=u["delta"],
                                 radius=u["radius"], rng=np.random.default_rng(0))


# ---- Lemma 9 and Algorithm 6 ----------------------------------------------------------------------------------

def test_blap_exact_fails_on_tau_without_log(monkeypatch):
    """``blap_exact`` with the copy's τ = Δ/ε (``bounded_laplace_tau_without_log``): the exact δ(ε) exceeds δ at
    every grid point the short-τ copy of ε leaves inside the claim (ε = 0.9, and (0.5, 0.1)); deterministic."""
    from dpsco.verification.mutants.alt24.svt import bounded_laplace_tau_without_log, lemma_9_tau_without_log
    from dpsco.verification.papers.alt24 import svt as V

    rel = bounded_laplace_tau_without_log(0.0, 1.0, 0.9, 0.1, np.random.default_rng(0))
    assert abs(float(rel.output[0])) <= 1.0 / 0.9  # the copy's support is [−Δ/ε, Δ/ε]
    assert all(c["p_value"] == 1.0 for c in V.blap_exact(QUICK(14))["checks"].values())
    monkeypatch.setattr(V, "lemma_9_tau", lemma_9_tau_without_log)
    out = V.blap_exact(QUICK(14))["checks"]
    for key in ("blap_exact_e0.9_d1e-06", "blap_exact_e0.9_d0.001", "blap_exact_e0.9_d0.1", "blap_exact_e0.5_d0.1"):
        _fails(out[key])


def test_blap_envelope_fails_on_doubled_parameters(monkeypatch):
    """``blap_envelope`` (1,000 draws at ε = 0.5, δ = 1e-3) on the mechanism drawing BLap(2R, 2τ): each draw
    exceeds τ with probability q = (e^{−τ/2R} − e^{−τ/R})/(1 − e^{−τ/R}) (τ/R = log(4/δ)); the check passes
    only if no draw does, miss probability (1 − q)^1000 < 1e-6 (asserted below, exact)."""
    from dpsco.verification.mutants.alt24.svt import bounded_laplace_doubled_parameters
    from dpsco.verification.papers.alt24 import svt as V

    t = np.log(4.0 / V.BLAP_INSTANCE["delta"])
    q = (np.exp(-t / 2) - np.exp(-t)) / (1 - np.exp(-t))
    draws = V.SIZES["quick"]["env"] // 20
    assert (1 - q) ** draws < 1e-6
    monkeypatch.setattr(V, "bounded_laplace_mechanism", bounded_laplace_doubled_parameters)
    _fails(V.blap_envelope(QUICK(15))["checks"]["blap_envelope"])


def test_svt_halting_fails_on_halting_one_top_late(monkeypatch):
    """``svt_envelope`` (1,000 runs on the zero stream, L = 0, c = 1, T = 3) on SVT halting after c + 1 answers ⊤:
    a run answers ⊤⊤ with probability ≥ P(ξ_1 ≥ z_1)·P(ξ_2 ≥ z_2) = 1/4 (symmetric continuous noise, z redrawn
    after a ⊤), so the check misses with probability ≤ (3/4)^1000 < 1e-124 (exact bound)."""
    from dpsco.verification.mutants.alt24.svt import sparse_vector_halts_one_top_late
    from dpsco.verification.papers.alt24 import svt as V

    monkeypatch.setattr(V, "private_sparse_vector", sparse_vector_halts_one_top_late)
    out = V.svt_envelope(QUICK(16))["checks"]
    _fails(out["svt_halting"])
    assert out["svt_envelope"]["p_value"] == 1.0  # the noise itself is Algorithm 6's


def test_svt_exact_on_monotone_and_single_query_pairs_cannot_fail_on_the_noise_bugs():
    """The exact check on the monotone pairs (0, 1) and the single query (4): δ(ε) stays ≤ δ without the query
    noise and at R = Δ/ε, both of which the mixed pair 2 refutes at c = 2 (the reason is computed per check in
    ``svt_exact``).  Deterministic (exact laws)."""
    from dpsco.verification.papers.alt24 import svt as V

    for j in (0, 4):
        a, b = V.SVT_STREAMS[j]
        assert V._benign_stream_reason(a, b, 1, 0.9, 0.01) is not None
    a, b = V.SVT_STREAMS[2]
    assert V._benign_stream_reason(a, b, 2, 0.9, 0.01) is None


# ---- utility checks the campaign labels "uninformative" (checks.power, from their own numbers) ------------------

def test_prop1_and_cor1_cannot_fail_at_the_campaigns_inputs(monkeypatch):
    """``alg1_bounds``: Proposition 1's bound (b_D exact) exceeds the largest gap of the clipped range, and
    Corollary 1's radius (C_erm = √640) exceeds X's diameter 2R = 4: neither depends on the number of runs, cut
    from 20 to 2 here (``_sizes``).  Deterministic."""
    monkeypatch.setattr(L, "_sizes", lambda inputs: {**L.SIZES["quick"], "reps": 2})
    out = L.alg1_bounds(QUICK(17))["checks"]
    assert out["prop1_bound"]["bound"] >= out["prop1_bound"]["value_range"][1]
    assert "cannot fail" in uninformative_reason(out["prop1_bound"])
    assert "diameter" in uninformative_reason(out["cor1_success"])


def test_rate_checks_cannot_detect_twice_their_bounds_at_the_campaigns_inputs():
    """Theorem 1's rate (every proof bound on the quick grid ≥ the largest excess 2R‖μ‖: computed from public
    inputs), Theorem 2's rate of Algorithm 4 and Theorem 3's rate of Algorithm 7 (their tasks at the quick
    budget), and Lemma 8's bound of Algorithm 5 (8 runs): ``checks.power`` labels each.  Deterministic."""
    from dpsco.verification.papers.alt24 import localized as LZ

    top = 2 * L.R_DOMAIN * float(np.linalg.norm(L.MU))
    assert min(L._proof_bound(n, L._moments(3)) for n in (256, 512)) >= top
    for check in (K.known_lip_rate(QUICK(18))["checks"]["known_lip_theorem_2_rate"],
                  LZ.task_rate(QUICK(19))["checks"]["theorem_3_rate"],
                  K.onepass_sgd_bounds(QUICK(20))["checks"]["onepass_sgd_lemma_8"]):
        assert check["p_value"] > FAILS_UNDER_HOLM and uninformative_reason(check) is not None, check["name"]


def test_proof_bounds_cannot_fail_at_the_campaigns_inputs():
    """Theorem 1's proof bound (``thm1_proof_bound`` at n = 256; ``thm1_rate_n`` on the quick grid 256, 512) and
    Theorem 5's (``thm5_proof_bound`` at n = 2048, Proposition 2 at Theorem 5's parameters) exceed the largest
    excess 2R‖μ‖ of the linear instance, from public inputs only; the tasks state it
    (``alt24_power.bound_above_range``) and ``checks.power`` labels the rate check from its bounds.  Deterministic."""
    import math

    from dpsco.reference.alt24 import theorems as th
    from dpsco.reference.alt24.algorithms_localization import theorem_5_parameters

    top = 2 * L.R_DOMAIN * float(np.linalg.norm(L.MU))
    m = L._moments(3)
    assert all(L._proof_bound(n, m) >= top for n in (256, 512))
    G = math.sqrt(float(L.MU @ L.MU) + L.ALPHA / (L.ALPHA - 2))
    p = theorem_5_parameters(2048, G, L.DELTA_FAIL, 2 * L.R_DOMAIN, J_scale=0.1)
    b5 = th.proposition_2_bound(float(np.linalg.norm(L.MU)), p.Delta, p.lam, p.I, 2 * L.R_DOMAIN)
    assert b5 >= top and bound_above_range(b5, top) is not None
    assert bound_above_range(0.5 * top, top) is None
