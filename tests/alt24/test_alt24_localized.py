"""Algorithm 7 (Localized-Clipped-DP-SGD) of Asi, Liu & Tian (2024), Theorem 3's parameters and Lemma 12's
conditions, the planted bugs of ``dpsco.verification.mutants.alt24.localized`` and the suite entry.

Golden parameter values come from the hand derivation written in ``test_theorem_3_golden_values``.  Privacy is
checked (a) exactly on the ⊥ channel (linear loss, β = 0: the clip counts are fixed by the data, so the
probability of ⊥ is a product of BLap survival functions, scipy's Laplace CDF), (b) by black-box audits with ⊥
as an outcome, each beside a planted bug the same check refutes, and (c) through the deterministic statements
of the proof: Lemma 11's 6Cη_i coupled-run bound (hypothesis) and the envelopes Ĉ ∈ [7C/8, 9C/8], |ν| ≤ C/4.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dpsco.reference.alt24.algorithms_localized import (LocalizedRelease, audit_outcome, check_lemma_12, lemma_12_conditions,
                                             lemma_13_conditions, localized_clipped_dp_sgd, phase_record_ranges,
                                             theorem_3_parameters, theorem_3_proof_bound)
from dpsco.reference.alt24.losses import LinearLoss, MeanEstimationLoss, TiltedQuadraticLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.verification.auditing.audit import audit
from dpsco.verification.mutants.alt24 import localized as mut
from dpsco.verification.papers.alt24 import localized as suite

CONF = 1.0 - 1e-6  # every audit below: P(refute a true claim) ≤ 1e-6 (the auditor's stated guarantee)
SET = suite.AUDIT_SETTING


def run(S, setting=SET, seed=0, **kw):
    S = np.asarray(S, dtype=np.float64)
    return localized_clipped_dp_sgd(S, LinearLoss(), np.zeros(S.shape[1]), rng=np.random.default_rng(seed),
                                    **{**setting, **kw})


# ---- Theorem 3's parameters --------------------------------------------------------------------------------


def test_theorem_3_golden_values() -> None:
    # n = 2^20 (I = 20), d = 4, ε = 0.5, δ = 1e-5, G_2 = 1, G_k = 2, k = 3, D = 2, by hand (natural logs):
    # log(15n/δ) = log(1.572864e12) = 0.452898 + 12·2.302585 = 28.083919;  its square 788.70652
    # A = 14400·4·788.70652/(2^20·0.25) = 45,429,496/262,144 = 173.29977
    # η_1 = √(4/2^20)·2/1 = (2/1024)·2 = 0.00390625
    # η_2 = (2·20/(2·2^20))·(2^20/173.29977)^{1/3} = 1.9073486e-5·6050.6484^{1/3} = 1.9073486e-5·18.222193
    #     = 3.4756075e-4 = η (< η_1)
    # C (printed) = 2·(2³·2·20/(173.29977·3.4756075e-4))^{1/4} = 2·5312.7730^{1/4} = 2·8.5374921 = 17.074984;
    # ours (erratum) 2^{1/3}·17.074984 = 1.2599210·17.074984 = 21.513132
    # c = 240·2·28.083919/0.5 = 26960.562
    # ω = (18/0.5)·√(2·26960.562·log(1.5e6)) = 36·√(53921.125·14.220976) = 36·875.67746 = 31524.389
    # β_max = 0.5^{1.5}/(24000·3.4756075e-4·2·log²(3.145728e12)) = 0.35355339/(16.682916·828.11955)
    #       = 0.35355339/13815.449 = 2.5591162e-5
    mb = MomentBounds(3, (1.0, 1.0, 2.0))
    p = theorem_3_parameters(2**20, 4, 0.5, 1e-5, mb, 2.0)
    golden = {"I": 20, "A": 173.29977, "eta_1": 0.00390625, "eta_2": 3.4756075e-4, "eta": 3.4756075e-4,
              "C": 21.513132, "c": 26960.562, "omega": 31524.389, "beta_max": 2.5591162e-5}
    for key, value in golden.items():
        assert getattr(p, key) == pytest.approx(value, rel=1e-6), key
    printed = theorem_3_parameters(2**20, 4, 0.5, 1e-5, mb, 2.0, printed=True)
    assert printed.C == pytest.approx(17.074984, rel=1e-6) and printed.c == p.c and printed.omega == p.omega
    # Theorem 3's proof: c = 2√(An), and at β = β_max every condition of Lemma 12 holds
    assert p.c == pytest.approx(2.0 * math.sqrt(p.A * 2**20), rel=1e-12)
    rows = check_lemma_12(p.C, p.c, p.omega, p.eta, p.beta_max, 2**20, 0.5, 1e-5)
    assert all(r["holds"] for r in rows.values())


def test_theorem_3_printed_C_misses_lemma_13_by_a_factor_2() -> None:
    # erratum: at η = η_2 the printed C = 2(G_k^k D I/(Aη_2))^{1/(k+1)} gives
    # 2G_k/C = G_k(Aη_2/(G_k^k D I))^{1/(k+1)} = (A/n)^{1/(2k)}, so n(2G_k/C)^k = n√(A/n) = √(An) = c/2 (c = 2√(An)):
    # Lemma 13's c/4 ≥ n(2G_k/C)^k fails by exactly 2 (the proof's "2√(An) = 4n√(A/n)" is off by 2).  At the golden
    # instance: c/4 = 6740.1 against n(2G_k/C)^k = 2^20·(4/17.074984)³ = 13480.3.  C·2^{1/k} meets it with equality.
    mb = MomentBounds(3, (1.0, 1.0, 2.0))
    key = "c/4 >= max(n (2 G_k/C)^k, 6 log n)"
    for n in (2**12, 2**20):
        for printed in (True, False):
            p = theorem_3_parameters(n, 4, 0.5, 1e-5, mb, 2.0, printed=printed)
            assert p.eta == p.eta_2
            row = lemma_13_conditions(p.C, p.c, p.omega, p.eta, p.beta_max, n, 0.5, 1e-5, mb)[key]
            assert row["rhs"] == pytest.approx(p.c / (2.0 if printed else 4.0), rel=1e-9)
            assert row["holds"] is (not printed)
    row = lemma_13_conditions(17.074984, 26960.562, 31524.389, 3.4756075e-4, 0.0, 2**20, 0.5, 1e-5, mb)[key]
    assert row["lhs"] == pytest.approx(6740.14, rel=1e-6) and row["rhs"] == pytest.approx(13480.28, rel=1e-5)


def test_theorem_3_proof_bound_by_hand() -> None:
    # n = 4 (I = 2), d = 1, ε = 0.5, δ = 0.5 (log(3/δ) = log 6 = 1.7917595), G = (1, 2) (k = 2), D = 1, C = 4, η = 1:
    # 4D²/(ηn) = 1;  ηG_2²/2 = 2;  G_k^k D I/(C/2)^{k−1} = 4·2/2 = 4;  G_2D/√n = 1;
    # σ_I = 30·4·(1/16)·√1.7917595/0.5 = 15·1.3385662 = 20.078493, G_2σ_I√d = 40.156986;
    # i = 1 (n_1 = 2, η_1 = 1/4): 3600·16·0.25·1.7917595/(2·0.25) + (1/4)·4/2 = 51602.674 + 0.5
    # total = 1 + 2 + 4 + 1 + 40.156986 + 51603.174 = 51651.331
    b = theorem_3_proof_bound(4, 1, 0.5, 0.5, MomentBounds(2, (1.0, 2.0)), 1.0, 4.0, 1.0)
    assert b == pytest.approx(51651.331, rel=1e-6)


def test_theorem_3_rounds_n_down_and_refuses_bad_inputs() -> None:
    mb = MomentBounds(2, (1.0, 1.0))
    assert theorem_3_parameters(1500, 2, 0.5, 1e-3, mb, 1.0) == theorem_3_parameters(1024, 2, 0.5, 1e-3, mb, 1.0)
    for bad, name in [((1, 2, 0.5, 1e-3, mb, 1.0), "n"), ((64, 2, 1.0, 1e-3, mb, 1.0), "epsilon"),
                      ((64, 2, 0.5, 1.0, mb, 1.0), "delta"), ((64, 0, 0.5, 1e-3, mb, 1.0), "d"),
                      ((64, 2, 0.5, 1e-3, mb, -1.0), "D")]:
        with pytest.raises(ValueError, match=name):
            theorem_3_parameters(*bad)
    with pytest.raises(TypeError, match="moments"):
        theorem_3_parameters(64, 2, 0.5, 1e-3, (2, (1.0, 1.0)), 1.0)


def test_lemma_12_conditions_refused_before_any_record_is_read() -> None:
    class Exploding(np.ndarray):  # a record array whose values must not be read
        def __array__(self, *a, **k):
            raise AssertionError("records read before Lemma 12 was checked")

    S = np.zeros((64, 1)).view(Exploding)
    with pytest.raises(ValueError, match=r"c >= \(6/epsilon\) log\(12/delta\)"):
        localized_clipped_dp_sgd(S, LinearLoss(), np.zeros(1), rng=np.random.default_rng(0), **{**SET, "c": 5.0})
    with pytest.raises(ValueError, match="1 >= 192 eta_i beta c"):
        check_lemma_12(1.0, 32.0, 359.0, 1.0, 1.0, 64, 0.9, 0.1)
    with pytest.raises(ValueError, match="C >= 8 omega_i"):
        check_lemma_12(1.0, 32.0, 359.0, 1e-3, 0.1, 64, 0.9, 0.1)
    with pytest.raises(ValueError, match="omega >= "):
        check_lemma_12(1.0, 32.0, 100.0, 1.0, 0.0, 64, 0.9, 0.1)
    for eps, dl in [(1.0, 0.1), (0.5, 1.0), (0.0, 0.1)]:
        with pytest.raises(ValueError):
            check_lemma_12(1.0, 32.0, 359.0, 1.0, 0.0, 64, eps, dl)
    # β = 0 makes ω_i = 0: the first and last conditions hold for any η, C
    rows = lemma_12_conditions(1.0, 32.0, 359.0, 1e6, 0.0, 64, 0.9, 0.1)
    assert rows["C >= 8 omega_i log(30 n_i/delta)"]["rhs"] == 0.0 and all(r["holds"] for r in rows.values())


def test_input_validation_names_the_parameter() -> None:
    S = np.zeros((64, 1))
    L = LinearLoss()
    with pytest.raises(TypeError, match="rng"):
        localized_clipped_dp_sgd(S, L, np.zeros(1), rng=0, **SET)
    with pytest.raises(ValueError, match="x0"):
        localized_clipped_dp_sgd(S, L, np.full(1, 1e3), rng=np.random.default_rng(0), **SET)
    with pytest.raises(ValueError, match="record_index"):
        run(S, record_index="overlap")
    with pytest.raises(ValueError, match="beta"):  # the loss is 1-smooth, β declared 0
        localized_clipped_dp_sgd(S, MeanEstimationLoss(), np.zeros(1), rng=np.random.default_rng(0), **SET)
    with pytest.raises(TypeError, match="loss"):
        localized_clipped_dp_sgd(S, "linear", np.zeros(1), rng=np.random.default_rng(0), **SET)
    with pytest.raises(ValueError, match="S"):
        localized_clipped_dp_sgd(np.zeros(64), L, np.zeros(1), rng=np.random.default_rng(0), **SET)


# ---- structure: phases, gradient count, β = 0, ⊥ as an outcome -----------------------------------------------


def test_phases_are_disjoint_and_the_printed_index_overlaps() -> None:
    # erratum: Line 8's (Σ_{i'∈[i]} n_{i'} + j)-th record; ours Σ_{i'<i}
    for n in (2, 3, 64, 100, 1024):
        I = int(math.floor(math.log2(n)))
        used = [j for a, b in phase_record_ranges(n) for j in range(a, b)]
        assert used == list(range(2**I - 1))  # consecutive, disjoint, each record once, 2^I − 1 ≤ n in all
        printed = phase_record_ranges(n, "printed")
        assert printed == [(2**I - (2**I >> i), 2**I) for i in range(1, I + 1)]
        if I >= 2:  # the printed blocks reuse the last records in every phase and never read the first half
            assert printed[0][1] == printed[1][1] and printed[0][0] == 2**I // 2
    # in the implementation: with the printed index the first half of the records has no effect at all
    S = np.random.default_rng(1).standard_normal((64, 2))
    S2 = S.copy()
    S2[:32] = 50.0
    a, b = run(S, record_index="printed", seed=3), run(S2, record_index="printed", seed=3)
    assert np.array_equal(a.output, b.output)
    assert a.claim.conditions and "NOT supported" in a.claim.conditions[0]
    c_, d_ = run(S, seed=3), run(S2, seed=3)
    assert not np.array_equal(c_.output, d_.output)


def test_gradient_count_and_linear_beta_zero_closed_form() -> None:
    # β = 0, linear loss, projection inactive: x_I = −Σ_i η_i Σ_j ((n_i − j)/n_i)·clip(s_{i,j}) + Σ_i ζ_i, so with
    # ζ removed (σ from the same draws) the output's mean part is a hand-computable sum.  Here only record 0
    # is non-zero (5·e_1, clipped to C = 1): mean part = −η_1 (n_1 − 1)/n_1 = −0.25·31/32.
    S, _ = suite.output_shift_pair(64)
    r = run(S, seed=7)
    assert not r.halted and r.gradient_evaluations == 63 <= 64
    rng = np.random.default_rng(7)
    noise = 0.0
    for i, ph in enumerate(r.parameters["phases"], start=1):  # the draws the algorithm makes, in its order
        assert ph["omega_i"] == 0.0 and ph["tau_i"] == 0.0
        rng.random(2)  # ĉ_i = c + BLap(3/ε, c/2): one uniform for the magnitude, one for the sign
        noise = noise + ph["sigma_i"] * rng.standard_normal(1)
    assert r.output[0] == pytest.approx(-0.25 * 31 / 32 + noise[0], abs=1e-12)
    assert r.diagnostics["clip_counts"] == [1, 0, 0, 0, 0, 0]


def test_bottom_is_an_outcome_and_halts_everything() -> None:
    S, _ = suite.bottom_pair(64, 32)  # count 32 in phase 1 against ĉ_1 ∈ [16, 48]
    seen = set()
    for seed in range(40):
        r = run(S, seed=seed)
        assert isinstance(r, LocalizedRelease)
        seen.add(r.halted)
        o = audit_outcome(r)
        performed = r.nonprivate_internals["gradient_evaluations_performed"]
        if r.halted:
            assert r.nonprivate_internals["halted_phase"] == 1 and np.all(np.isnan(r.output))
            assert o.tolist() == [1.0, 0.0, 63.0]
            assert 16 <= performed <= 32  # halted in phase 1, at the ⌈ĉ_1⌉-th clip (kept internal)
        else:
            assert o[0] == 0.0 and o[1] == r.output[0] and o[2] == 63.0 and performed == 63
        assert r.gradient_evaluations == 63  # published: the schedule's count 2^I − 1, ⊥ or not
        rec = json.loads(r.to_json())  # the publishable record: ⊥ alone or the point, and public fields
        assert rec["halted"] is r.halted and (rec["output"] is None) is r.halted
        assert "halted_phase" not in rec and rec["gradient_evaluations"] == 63
    assert seen == {True, False}  # P(⊥) = 1/2 exactly here: both seen in 40 runs except w.p. 2^-39 ≤ 1e-6


# ---- deterministic statements of the proof: envelopes and Lemma 11 ------------------------------------------

BETA = 1.0
SMOOTH = {"epsilon": 0.9, "delta": 0.1, "C": 1.0, "c": 32.0, "omega": 359.0, "beta": BETA, "radius": 10.0,
          "eta": 2.0e-5}  # η_1 β = 5e-6: 48 ω η_1 β log(30·16/δ) = 0.73 ≤ 1 and 192 η_1 β c = 0.03 ≤ 1 (n = 32)


def test_smooth_setting_meets_lemma_12() -> None:
    rows = check_lemma_12(n=32, **{k: SMOOTH[k] for k in ("C", "c", "omega", "eta", "beta", "epsilon", "delta")})
    assert all(r["holds"] for r in rows.values())


def _smooth_run(S, seed, loss=None):
    loss = loss or TiltedQuadraticLoss(BETA)
    return localized_clipped_dp_sgd(S, loss, np.zeros(loss.dimension(S.shape[1])), rng=np.random.default_rng(seed),
                                    trace=True, **SMOOTH)


def test_envelopes_hold_on_every_draw() -> None:
    # proof of Lemma 11: C ≥ 8ω_i log(30n_i/δ) makes Ĉ ∈ [7C/8, 9C/8] and |ν| ≤ C/4 for every draw (BLap's support)
    rng = np.random.default_rng(11)
    S = np.concatenate([rng.standard_normal((32, 2)) * 0.6, np.zeros((32, 2))], axis=1)  # norms around C
    C = SMOOTH["C"]
    for seed in range(30):
        r = _smooth_run(S, seed)
        for ph in r.nonprivate_internals["phases"]:
            hats = np.asarray(ph["C_hat"])
            assert np.all(hats >= 7 * C / 8) and np.all(hats <= 9 * C / 8)
            assert np.all(np.abs(ph["nu"]) <= C / 4)


def test_plain_laplace_mutant_breaks_the_envelope() -> None:
    # at the boundary C = 8ω_1 log(30n_1/δ) each ν ~ Lap(2ω_1) leaves [−C/4, C/4] w.p. exactly
    # q = exp(−(C/4)/(2ω_1)) = exp(−log(30n_1/δ)) = δ/(30 n_1); over R runs' n_1 phase-1 draws the envelope
    # holds throughout w.p. (1 − q)^{n_1 R} — the false-failure probability, asserted ≤ 1e-6 below.
    dl, n1, C, c = 0.9, 16, 1.0, 20.0
    eps = 0.9
    omega = 18 / eps * math.sqrt(2 * c * math.log(15 / dl)) * (1 + 1e-9)
    L1 = math.log(30 * n1 / dl)
    eta = 4.0 / (48 * omega * BETA * L1) * (1 - 1e-9)  # 48 ω η_1 β L1 = 1 (η_1 = η/4)
    kw = {"epsilon": eps, "delta": dl, "C": C, "c": c, "omega": omega, "beta": BETA, "eta": eta, "radius": 10.0}
    check_lemma_12(n=32, **{k: kw[k] for k in ("C", "c", "omega", "eta", "beta", "epsilon", "delta")})
    R = 500
    q = dl / (30 * n1)
    assert (1 - q) ** (n1 * R) <= 1e-6
    S = np.zeros((32, 4))
    rng = np.random.default_rng(5)
    broken = 0
    for _ in range(R):
        r = mut.localized_dp_sgd_plain_laplace(S, TiltedQuadraticLoss(BETA), np.zeros(2), rng=rng, trace=True, **kw)
        broken += r.diagnostics["envelope"][0]["max_abs_nu"] > C / 4
    assert broken >= 1
    # the same loop with bounded Laplace (the reference) never leaves the envelope
    for seed in range(100):
        r = mut.mutant_loop(S, TiltedQuadraticLoss(BETA), np.zeros(2), rng=np.random.default_rng(seed), trace=True,
                            **kw)
        assert all(e["max_abs_nu"] <= C / 4 and e["max_abs_C_hat_minus_C"] <= C / 8 for e in r.diagnostics["envelope"])


def test_mutant_loop_equals_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(2)
    S = np.concatenate([rng.standard_normal((40, 2)) * 0.7, rng.standard_normal((40, 2))], axis=1)
    for seed in range(5):
        a = _smooth_run(S, seed)
        b = mut.mutant_loop(S, TiltedQuadraticLoss(BETA), np.zeros(2), rng=np.random.default_rng(seed), **SMOOTH)
        assert a.halted == b.halted and a.gradient_evaluations == b.gradient_evaluations
        assert np.array_equal(a.output, b.output, equal_nan=True)
        assert a.diagnostics["clip_counts"] == b.diagnostics["clip_counts"]


record = st.lists(st.floats(-3.0, 3.0), min_size=4, max_size=4)


@settings(max_examples=40, deadline=None)
@given(base=st.lists(record, min_size=32, max_size=32), j0=st.integers(0, 15),
       scale=st.sampled_from([0.0, 1.0, 1e3, 1e8]), other=record, seed=st.integers(0, 2**32 - 1))
def test_lemma_11_coupled_runs(base, j0, scale, other, seed) -> None:
    # Lemma 11: neighbours differing at position j0 of phase 1, the same random draws (coupled), every step t
    # before which both counts are below their cutoffs and the clip indicators agree off j0:
    # ‖x_{1,t} − x'_{1,t}‖ ≤ 6Cη_1.  The replaced record is adversarial (norm up to 1e8·3).
    S = np.asarray(base, dtype=np.float64)
    S2 = S.copy()
    S2[j0] = np.asarray(other) * scale
    a, b = _smooth_run(S, seed), _smooth_run(S2, seed)
    pa, pb = a.nonprivate_internals["phases"][0], b.nonprivate_internals["phases"][0]
    bound = 6 * SMOOTH["C"] * SMOOTH["eta"] / 4
    ya, yb = pa["clipped"], pb["clipped"]
    steps = min(len(pa["iterates"]), len(pb["iterates"]))
    for t in range(steps):  # iterate x_{1,t+1} follows steps 1..t
        if any(ya[j] != yb[j] for j in range(t) if j != j0):
            break
        if sum(ya[:t]) >= pa["c_hat"] or sum(yb[:t]) >= pb["c_hat"]:
            break
        gap = float(np.linalg.norm(pa["iterates"][t] - pb["iterates"][t]))
        assert gap <= bound * (1 + 1e-9) + 1e-15, (t, gap, bound)


# ---- the ⊥ channel, exactly -----------------------------------------------------------------------------------


# R = 500 runs per side is a campaign; R = 100 keeps the path in the fast suite, its Hoeffding width computed
# from R at the same 1e-6 (docs/verification.md, campaign tests)
@pytest.mark.parametrize("R", [100, pytest.param(500, marks=pytest.mark.campaign)])
def test_cutoff_survival_matches_the_implementation(R) -> None:
    # P(⊥) on the ⊥ pair from the BLap survival (scipy) against the implementation's frequency over R runs:
    # Hoeffding, |freq − p| ≤ √(log(2/1e-6)/(2R)) except w.p. 1e-6.
    D, D2 = suite.bottom_pair(64, 30)
    for S in (D, D2):
        K = suite.clip_counts(S, SET)
        p_not = suite.prob_not_bottom(K, SET["c"], SET["epsilon"])
        rng = np.random.default_rng(9)
        freq = np.mean([not localized_clipped_dp_sgd(S, LinearLoss(), np.zeros(1), rng=rng, **SET).halted
                        for _ in range(R)])
        assert abs(freq - p_not) <= math.sqrt(math.log(2 / 1e-6) / (2 * R))
    # the hand value at count = c: P(ĉ > c) = 1/2 (symmetric noise)
    assert suite.cutoff_survival(32, 32.0, 0.9) == pytest.approx(0.5, abs=1e-15)
    assert suite.cutoff_survival(48, 32.0, 0.9) == 0.0 and suite.cutoff_survival(15.9, 32.0, 0.9) == 1.0


def test_bottom_channel_exact_correct_algorithm_meets_the_claim() -> None:
    # every count K = 0..2c in phase 1 against K − 1: the events {⊥}, {not ⊥} need at most the claim's δ at ε
    # (the proof gives ε/3 for this channel: P(ĉ > K − 1)/P(ĉ > K) ≤ e^{ε/3} inside the support, δ/3 at its edge)
    eps, dl, c = SET["epsilon"], SET["delta"], SET["c"]
    worst = max(suite.bottom_channel_delta(suite.prob_not_bottom([K], c, eps),
                                           suite.prob_not_bottom([K - 1], c, eps), eps) for K in range(1, 66))
    assert worst <= dl / 3  # attained at the edge of BLap's support: P(ĉ > 3c/2 − 1) ≈ 1.5e-3
    worst_third = max(suite.bottom_channel_delta(suite.prob_not_bottom([K], c, eps),
                                                 suite.prob_not_bottom([K - 1], c, eps), eps / 3) for K in range(1, 66))
    assert worst_third <= dl / 3


def _overlap_pair(n, K, m):
    """heavy records in the last 2^-m fraction's first half: under the printed index phases 1..m each count K."""
    S = np.zeros((n, 1))
    start = n - (n >> m)
    S[start:start + K, 0] = 5.0
    S2 = S.copy()
    S2[start] = 0.0
    return S, S2


def test_overlapping_phases_mutant_refuted_exactly() -> None:
    # δ = 0.01, ε = 0.9: c = ⌈(6/ε) log(12/δ)⌉ = 48.  n = 4096 and heavy records in phases 1..5 of the printed
    # index: the differing record moves the count of 5 phases, P(not ⊥) by up to e^{5ε/3} = e^{1.5} > e^{0.9}
    setting = {**SET, "delta": 0.01, "c": 48.0, "omega": 531.0}
    n, m = 4096, 5
    gaps = {}
    for name, index, alg in (("printed", "printed", mut.localized_dp_sgd_overlapping_phases),
                             ("ours", "disjoint", None)):
        best = 0.0
        for K in (40, 44, 47, 48, 50):
            D, D2 = _overlap_pair(n, K, m)
            kD, kD2 = suite.clip_counts(D, setting, index, alg), suite.clip_counts(D2, setting, index, alg)
            if index == "printed":
                assert kD[:m] == [K] * m and kD2[:m] == [K - 1] * m and sum(kD[m:]) == 0
            best = max(best, suite.bottom_channel_delta(suite.prob_not_bottom(kD, 48.0, 0.9),
                                                        suite.prob_not_bottom(kD2, 48.0, 0.9), 0.9))
        gaps[name] = best
    assert gaps["ours"] <= 0.01 < 0.02 < gaps["printed"]  # exact: refuted, ours within the claim
    # and the mutant is the printed index: the same ranges, the claim without the warning
    r = mut.localized_dp_sgd_overlapping_phases(np.zeros((64, 1)), LinearLoss(), np.zeros(1),
                                                rng=np.random.default_rng(0), **SET)
    assert [tuple(p["records"]) for p in r.parameters["phases"]] == phase_record_ranges(64, "printed")
    assert r.claim.conditions == ()


def test_retry_on_bottom_mutant_refuted_exactly() -> None:
    # the support edge: count 48 = 3c/2 in phase 1 halts on every draw (ĉ ≤ 3c/2); count 47 escapes w.p.
    # q = P(BLap(3/ε, c/2) > 15) ≈ 1.45e-3.  One release: "not ⊥" has probability 0 against q ≤ δ.  Retried up to M
    # times: 0 against 1 − (1 − q)^M > δ for M = 200 (0.25 > 0.1).
    eps, dl, c = SET["epsilon"], SET["delta"], SET["c"]
    D, D2 = suite.bottom_pair(128, 48)
    kD, kD2 = suite.clip_counts(D, SET), suite.clip_counts(D2, SET)
    assert kD[0] == 48 and kD2[0] == 47
    p, q = suite.prob_not_bottom(kD, c, eps), suite.prob_not_bottom(kD2, c, eps)
    assert p == 0.0 and 1e-3 < q < 2e-3
    assert suite.bottom_channel_delta(p, q, eps) <= dl  # the correct algorithm
    M = 200
    retried = 1 - (1 - q) ** M
    assert suite.bottom_channel_delta(p, retried, eps) > dl  # the mutant
    # the mutant does retry: on D every attempt halts, so it returns ⊥ after M attempts with M× the gradients
    r = mut.localized_dp_sgd_retry_on_bottom(D, LinearLoss(), np.zeros(1), rng=np.random.default_rng(1),
                                             max_attempts=M, **SET)
    assert r.halted and r.diagnostics["attempts"] == M
    assert 16 * M <= r.nonprivate_internals["gradient_evaluations_performed"] <= 48 * M


# ---- black-box audits with ⊥ as an outcome, each beside its planted bug --------------------------------------


def _audit(mech, pair, n, seed, **kw):
    D, D2 = pair
    claim = run(D).claim
    return audit(mech, {"S": D}, {"S": D2}, claim, n, np.random.default_rng(seed), confidence=CONF, **kw)


# the correct algorithm's audit at 600 runs per side is a campaign (`dpsco verify --only alt24.localized_dp_sgd`
# audits this pair at 2,000 runs); at 150 it keeps the path, its false failure ≤ 1e-6 (CONF) at any run count
@pytest.mark.parametrize("ok_runs", [150, pytest.param(600, marks=pytest.mark.campaign)])
def test_audit_output_shift_pair_and_data_dependent_clip_mutant(ok_runs) -> None:
    pair = suite.output_shift_pair(64)
    ok = _audit(suite.LocalizedMechanism(), pair, ok_runs, 1, statistic="norm")
    assert ok.verdict == "not refuted"  # false failure ≤ 1e-6 (CONF)
    bad = _audit(suite.LocalizedMechanism(mut.localized_dp_sgd_data_dependent_clip), pair, 300, 2, statistic="norm")
    assert bad.verdict == "refuted", bad.epsilon_lower  # neighbour's C = 1e-9: output x0 to 1e-8


# the correct algorithm's audit at 800 runs per side is a campaign (`dpsco verify --only alt24.localized_dp_sgd`
# audits this pair at 2,000 runs); at 200 it keeps the path, its false failure ≤ 1e-6 (CONF) at any run count
@pytest.mark.parametrize("ok_runs", [200, pytest.param(800, marks=pytest.mark.campaign)])
def test_audit_bottom_pair_and_fixed_cutoff_mutant(ok_runs) -> None:
    pair = suite.bottom_pair(64, 32)
    ok = _audit(suite.LocalizedMechanism(), pair, ok_runs, 3, statistic="coordinate:0")
    assert ok.verdict == "not refuted"  # false failure ≤ 1e-6 (CONF)
    bad = _audit(suite.LocalizedMechanism(mut.localized_dp_sgd_fixed_cutoff), pair, 300, 4, statistic="coordinate:0")
    assert bad.verdict == "refuted", bad.epsilon_lower  # count c halts surely, c − 1 never


# ---- the suite entry (quick budget) --------------------------------------------------------------------------


def test_suite_tasks_quick() -> None:
    from dpsco.verification.papers.registry import SuiteInputs

    (entry,) = suite.ENTRIES
    assert entry.name == "alt24.localized_dp_sgd" and set(entry.planted_bugs) == {
        *mut.MUTANTS, "localized_dp_sgd_sigma_over_100", "localized_dp_sgd_publishes_performed_count",
        "localized_clipped_dp_sgd_draws_sigma_over_sqrt2", "localized_dp_sgd_two_passes",
        "theorem_3_parameters_printed_clip"}  # the last two: the check registry's (tests/alt24/test_alt24_catches.py)
    assert entry.run is localized_clipped_dp_sgd
    for i, task in enumerate(entry.suite.tasks):
        out = task.run(SuiteInputs("quick", np.random.SeedSequence(100 + i), 0.95))
        if task.name == "exact":  # the erratum's evidence, recorded: Line 8 as printed needs δ > 0.01 here
            assert out["record"]["printed_index_refuted"]
        if task.name == "audit":  # the white-box audit's record (also checked, at another seed, by the campaign
            # test tests/alt24/test_alt24_localized_white_box.py::test_suite_audit_task_carries_the_white_box_audit)
            rec = out["audits"]["localized_white_box"]
            assert rec["mode"] == "white-box" and rec["details"]["n_test"] == suite.SIZES["quick"]["audit"]
            assert rec["verdict"] in ("refuted", "not refuted")
        assert set(out) <= {"record", "checks", "audits"}
        json.dumps(out["record"], default=float)
        for key, c in {**out["checks"], **out["audits"]}.items():
            assert 0.0 <= c["p_value"] <= 1.0
            # every check and audit passes: exact checks hold (p = 1), statistical ones are far from their
            # bounds (Hoeffding / Clopper–Pearson p-values; a true statement gives p < 1e-6 w.p. ≤ 1e-6)
            assert c["p_value"] >= 1e-6, (task.name, key, c)


@pytest.mark.campaign
def test_campaign_detection_rates() -> None:
    # 20 independent audits per variant at the unit tests' sizes, confidence 1 − 1e-8 each: the correct algorithm
    # is refuted in none of its 40 audits except w.p. ≤ 40·1e-8 = 4e-7 (the auditor's guarantee, union bound).
    # The fixed-cutoff mutant's ⊥ indicator is deterministic on this pair (1 on D, 0 on D'), so it is refuted
    # in every audit (Clopper–Pearson bounds of 150/150 against 0/150 at 1e-8 give ε_lb > 1.7 > 0.9).
    conf, audits = 1.0 - 1e-8, 20
    rows = {}
    for name, alg, pair, n, stat in [
            ("correct/output-shift", None, suite.output_shift_pair(64), 600, "norm"),
            ("correct/bottom", None, suite.bottom_pair(64, 32), 800, "coordinate:0"),
            ("data_dependent_clip", mut.localized_dp_sgd_data_dependent_clip, suite.output_shift_pair(64), 300, "norm"),
            ("fixed_cutoff", mut.localized_dp_sgd_fixed_cutoff, suite.bottom_pair(64, 32), 300, "coordinate:0")]:
        mech = suite.LocalizedMechanism() if alg is None else suite.LocalizedMechanism(alg)
        D, D2 = pair
        claim = run(D).claim
        res = [audit(mech, {"S": D}, {"S": D2}, claim, n, np.random.default_rng(1000 + i), confidence=conf,
                     statistic=stat) for i in range(audits)]
        rows[name] = (sum(r.verdict == "refuted" for r in res), float(np.median([r.epsilon_lower for r in res])))
    print(rows)
    assert rows["correct/output-shift"][0] == 0 and rows["correct/bottom"][0] == 0
    assert rows["fixed_cutoff"][0] == audits


def test_the_printed_record_index_voids_the_claim() -> None:
    """Independent review: record_index='printed' overlaps the phases (the last record is read in every phase), so
    Lemma 12's parallel composition fails and the release is only (Iε, Iδ)-DP; its claim must not keep an
    approx-DP label at the nominal (ε, δ).  Deterministic."""
    ranges = phase_record_ranges(16, "printed")
    assert all(stop == 16 for _, stop in ranges) and len(ranges) > 1      # record 15 is in every phase
    S = np.random.default_rng(1).standard_normal((64, 1))
    assert run(S, record_index="printed", seed=3).claim.notion == "none"
    assert not run(S, record_index="printed", seed=3).claim.is_private
    assert run(S, seed=3).claim.notion == "approx-DP"
