"""Asi, Liu & Tian (2024), Algorithm 4 (KnownLipReduction) with A_Lip and Theorem 2's threshold: parameters,
replacement (not dropping) with exact gradient counts, refusals, the exact privacy of the worst replace-one
pair with a planted noise bug, black-box audits refuting the drop-heavy and data-dependent-C bugs, and the
(13)-vs-text erratum (the dummy (μ/2)‖x − x̄‖² is μD-Lipschitz)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpsco.reference import Ball
from dpsco.reference.alt24 import HeavyTailedLoss, MomentBounds
from dpsco.reference.alt24.algorithms_known_lipschitz import (a_lip_parameters, known_lip_reduction, lipschitz_dpsco,
                                                   theorem_2_clip, theorem_2_parameters, truncation_mask)
from dpsco.verification.auditing.audit import audit
from dpsco.verification.mutants.alt24.known_lip import (known_lip_calibrate_with_c, known_lip_data_dependent_clip,
                                                        known_lip_drop_heavy, known_lip_sensitivity_c_over_n)


class Linear(HeavyTailedLoss):
    """f(x; s) = ⟨s, x⟩, L̄_s = ‖s‖."""
    name = "linear"
    glm = True

    def grads(self, x, S):
        return np.array(S, dtype=np.float64, copy=True)

    def values(self, x, S):
        return S @ x

    def lipschitz_bound(self, S, radius):
        return np.linalg.norm(S, axis=1)

    def smoothness(self, radius):
        return 0.0


class TiltedQuadratic(HeavyTailedLoss):
    """f(x; a) = ⟨a, x⟩ + (μ/2)‖x‖²: μ-strongly convex, L̄_a = ‖a‖ + μR (exact max of ‖a + μx‖ on B(0, R))."""
    name = "tilted"

    def __init__(self, mu):
        self.mu = mu

    def grads(self, x, S):
        return S + self.mu * x[None, :]

    def values(self, x, S):
        return S @ x + 0.5 * self.mu * float(x @ x)

    def lipschitz_bound(self, S, radius):
        return np.linalg.norm(S, axis=1) + self.mu * radius

    def strong_convexity(self):
        return self.mu


BOUNDS = MomentBounds(3, (1.0, 1.0, 2.0))


def test_theorem_2_clip_golden():
    # C = G_k(n√ρ/√d)^{1/k} at n = 10⁴, ρ = 1/2, d = 10, G_3 = 2: n√ρ/√d = 10⁴·√(1/20) = 2236.07,
    # its cube root 13.0766, C = 26.153 (= G_k(n²ρ/d)^{1/(2k)}: (5·10⁶)^{1/6} = 13.0766)
    assert theorem_2_clip(10**4, 10, 0.5, BOUNDS) == pytest.approx(2 * (10**4 * math.sqrt(0.05)) ** (1 / 3))
    assert theorem_2_clip(10**4, 10, 0.5, BOUNDS) == pytest.approx(26.1532, abs=1e-4)
    p = theorem_2_parameters(10**4, 10, 0.5, BOUNDS, D=2.0, mu=20.0)
    assert p["L_A"] == pytest.approx(40.0) and p["regime_ok"]           # max(C, μD) = max(26.15, 40)
    assert theorem_2_parameters(10**4, 10, 0.5, BOUNDS, D=2.0)["L_A"] == pytest.approx(p["C"])


def test_a_lip_parameters_by_hand():
    # n = 8, d = 2, ρ = 1/2, L = 4, G_2 = 1, D = 2: η = 2·min(1/√8, √0.5/(4√2)) = 2·0.125 = 0.25;
    # phases n_i = 4, 2, 1 on [0,4), [4,6), [6,7); T_i = max(n_i, n_i²/4) = 4, 2, 1;
    # σ_1² = 2·16·4/(16·0.5) = 16, λ_1 = 1/(η/4·4) = 4
    p = a_lip_parameters(8, 2, 0.5, 4.0, 1.0, 2.0)
    assert p["eta"] == pytest.approx(0.25)
    assert [(q["n_i"], q["start"], q["stop"], q["T_i"]) for q in p["phases"]] == [(4, 0, 4, 4), (2, 4, 6, 2),
                                                                                 (1, 6, 7, 1)]
    assert p["phases"][0]["sigma_i"] == pytest.approx(4.0) and p["phases"][0]["lambda_i"] == pytest.approx(4.0)
    assert p["total_gradients"] == 4 * 4 + 2 * 2 + 1


def test_replace_not_drop_and_exact_counts():
    # n = 8 with heavy records at 1 and 5 (L̄ = 10 > C = 3): real gradients = Σ_i T_i·(kept in block i)
    # = 4·3 + 2·1 + 1·1 = 15; dummies 4·1 + 2·1 = 6; total Σ n_iT_i = 21 (T_i = 4, 2, 1 at ρ = 1/2, d = 2)
    S = np.full((8, 2), 0.5)
    S[1] = [10.0, 0.0]
    S[5] = [0.0, -10.0]
    rel = known_lip_reduction(S, Linear(), Ball(1.0), 0.5, BOUNDS, np.random.default_rng(0), C=3.0)
    assert rel.nonprivate_internals["gradient_evaluations_performed"] == 15
    assert rel.diagnostics["dummy_gradient_evaluations"] == 6
    # published: the schedule's count Σ n_iT_i, real and dummy alike (the split reveals the replaced records)
    assert rel.gradient_evaluations == rel.parameters["a_lip"]["total_gradients"] == 21
    assert rel.diagnostics["replaced"] == 2
    assert np.linalg.norm(rel.output) <= 1.0 + 1e-12
    c = rel.claim
    assert c.notion == "zCDP" and c.rho == 0.5 and c.mu == pytest.approx(1.0) and not c.conditions
    assert truncation_mask(S, Linear(), 3.0, 1.0).tolist() == [True, False, True, True, True, False, True, True]


def test_refusals():
    S = np.ones((4, 2))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="strong convexity"):
        known_lip_reduction(S, Linear(), Ball(1.0), 0.5, BOUNDS, rng, mu=1.0)
    with pytest.raises(ValueError, match="x_bar"):
        known_lip_reduction(S, TiltedQuadratic(1.0), Ball(1.0), 0.5, BOUNDS, rng, mu=1.0, x_bar=[3.0, 0.0])
    with pytest.raises(ValueError, match="lipschitz"):
        lipschitz_dpsco(S, Linear(), Ball(1.0), 0.5, 1.0, 1.0, rng)          # L̄ = √2 > L = 1
    with pytest.raises(ValueError, match="rho"):
        known_lip_reduction(S, Linear(), Ball(1.0), 0.0, BOUNDS, rng)
    with pytest.raises(TypeError, match="bounds"):
        known_lip_reduction(S, Linear(), Ball(1.0), 0.5, (3, 1.0), rng)
    with pytest.raises(ValueError, match="at least 2"):
        known_lip_reduction(S[:1], Linear(), Ball(1.0), 0.5, BOUNDS, rng)


def _worst_pair(C=2.0, n=16, d=2):
    S = np.zeros((n, d))
    S2 = S.copy()
    S[0, 0], S2[0, 0] = C, -C
    return S, S2


# A_Lip's steps scale with η = D·min(1/(G_2√n), √ρ/(L√d)): with G_2 = 10³ (a valid, loose public bound) the
# shift and the noise shrink together (μ unchanged) and the iterates stay far inside X = B(0, 1), so no projection
# is active and the output is exactly Gaussian (asserted below).
BIG = MomentBounds(3, (1e3, 1e3, 1e3))


def _exact_mu(mechanism, S, S2, runs, alpha, C=2.0, rho=0.5):
    """μ of the pair (S, S2) for the linear loss with no projection active: every map is affine in the noise
    with scalar coefficients, so the output is an isotropic Gaussian N(m, s²I) on each side with the same s, and
    the pair's exact μ = ‖m − m'‖/s.  ‖m − m'‖: one coupled run (same seed ⇒ same standard normal draws).
    s: Σ‖o_j − ō‖²/s² ~ χ²_{d(runs−1)} (exact), giving s_up with P(s_up < s) = alpha.
    Returns (μ_lower = ‖Δ‖/s_up, μ_upper = ‖Δ‖/s_low)
    (docs/derivations.md#exact-gaussian-check-of-a-worst-replace-one-pair)"""
    d = S.shape[1]
    X = Ball(1.0)
    a = mechanism(S, Linear(), X, rho, BIG, np.random.default_rng(3), C=C).output
    b = mechanism(S2, Linear(), X, rho, BIG, np.random.default_rng(3), C=C).output
    delta = float(np.linalg.norm(a - b))
    gen = np.random.default_rng(4)
    outs = np.array([mechanism(S, Linear(), X, rho, BIG, gen, C=C).output for _ in range(runs)])
    assert np.linalg.norm(outs, axis=1).max() < 0.05       # far inside X: no projection was active
    ss = float(np.sum((outs - outs.mean(axis=0)) ** 2))
    dof = d * (runs - 1)
    return (delta / math.sqrt(ss / stats.chi2.ppf(alpha, dof)),
            delta / math.sqrt(ss / stats.chi2.ppf(1 - alpha, dof)))


def test_exact_privacy_on_the_worst_pair_and_the_add_remove_sensitivity_mutant():
    mu_claim = math.sqrt(2 * 0.5)                           # ρ-zCDP ⇔ √(2ρ)-GDP for this Gaussian mechanism
    # worst pair: kept records +C e₁ vs −C e₁ first in phase 1, the rest 0.  False failure: the chi-square
    # bound fails with probability 1e-7 (exact for the Gaussian output).
    lo, hi = _exact_mu(known_lip_reduction, *_worst_pair(), 300, 1e-7)
    assert lo <= mu_claim
    print(f"Algorithm 4 + A_Lip worst pair: μ ∈ [{lo:.3f}, {hi:.3f}], claim {mu_claim:.3f}")
    # planted bug (σ for the add/remove sensitivity L/n_i): the same check refutes it; it misses only if the
    # chi-square bound fails (probability 1e-7), given the correct μ ≥ 0.9·claim measured (benchmark: 0.93)
    lo_m, _ = _exact_mu(known_lip_sensitivity_c_over_n, *_worst_pair(), 300, 1e-7)
    assert lo_m > mu_claim


def _mech(fn, C, rho, delta):
    def run(data, rng):
        return fn(data["S"], Linear(), Ball(1.0), rho, BOUNDS, rng, C=C, delta=delta).output
    return run


def test_black_box_audits_refute_dropping_and_a_data_dependent_threshold():
    rho, delta, conf = 0.05, 1e-3, 1 - 1e-7                 # false failure of each correct audit ≤ 1e-7
    claim = known_lip_reduction(np.zeros((2, 2)), Linear(), Ball(1.0), rho, BOUNDS, np.random.default_rng(0),
                                C=1.5, delta=delta).claim
    # dropping: (kept e₁, 0) vs (heavy 5e₁, 0): the dropped neighbour has n' = 1, no phase, output 0 exactly,
    # while the other side's output is never 0 (probability 1): the test half separates perfectly and
    # ε_lb = log((CP_lo(300/300) − δ)/CP_hi(0/300)) ≈ 2.8 > ε = 1.23 deterministically (miss probability 0)
    A = {"S": np.array([[1.0, 0.0], [0.0, 0.0]])}
    B = {"S": np.array([[5.0, 0.0], [0.0, 0.0]])}
    for fn, refuted in ((known_lip_reduction, False), (known_lip_drop_heavy, True)):
        res = audit(_mech(fn, 1.5, rho, delta), A, B, claim, 600, np.random.default_rng(7), confidence=conf,
                    statistic="norm")
        assert (res.verdict == "refuted") is refuted, (fn.__name__, res.epsilon_lower)
    # data-dependent C = max L̄_s: (e₁ × 16) vs (−10⁶e₁, e₁ × 15).  With G_2 = 10³ (η = D/(G_2√n), free of L)
    # the mutant's noise scales with its own C: 10⁶ times larger on the neighbour, whose outputs sit on ∂X
    # while the other side's stay near 0.  The correct algorithm (C = 1.5 public) replaces the heavy record.
    # Miss probability: a neighbour output falls inside X with probability ≈ 5e-7 (2-D Gaussian of scale ~10³
    # inside the unit ball); it takes ≥ 3 such runs of 400 to pull ε_lb below 1.23: probability < 1e-12.
    S = np.tile([1.0, 0.0], (16, 1))
    S2 = S.copy()
    S2[0] = [-1e6, 0.0]

    def mech(fn):
        return lambda data, rng: fn(data["S"], Linear(), Ball(1.0), rho, BIG, rng, C=1.5, delta=delta).output

    for fn, refuted in ((known_lip_reduction, False), (known_lip_data_dependent_clip, True)):
        res = audit(mech(fn), {"S": S}, {"S": S2}, claim, 400, np.random.default_rng(8), confidence=conf,
                    statistic="norm")
        assert (res.verdict == "refuted") is refuted, (fn.__name__, res.epsilon_lower)


def test_erratum_13_dummy_lipschitz_and_calibration_with_c():
    # (13) asks C ≥ μD, the text C ≥ μD/4.  The dummy (μ/2)‖x − x̄‖² has ‖∇‖ = μ‖x − x̄‖ up to μD on X: with
    # C < μD it is not C-Lipschitz, so A's C-Lipschitz premise fails — confirmed, hence L_A = max(C, μD).
    mu, R, C = 1.0, 1.0, 1.5                                 # μD = 2 > C
    xb = np.array([R, 0.0])
    x = np.array([-R, 0.0])
    assert np.linalg.norm(mu * (x - xb)) == pytest.approx(2.0) and 2.0 > C
    # What A_Lip's privacy needs is the per-step difference of clipped gradients (clip at L_A = 2) between any
    # kept record and the dummy, at every x ∈ X.  On the family f = ⟨a, x⟩ + (μ/2)‖x‖² with L̄ = ‖a‖ + μR ≤ C,
    # ∇f − ∇dummy = a + μx̄ (constant), of norm ≤ ‖a‖ + μR ≤ C: a grid over a, x̄, x confirms it, so C-calibration
    # (the planted known_lip_calibrate_with_c) is *not* a violation on this family — recorded, not a refutation.
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(2000):
        a = rng.standard_normal(2)
        a *= rng.uniform(0, C - mu * R) / np.linalg.norm(a)
        xbar = rng.standard_normal(2)
        xbar *= rng.uniform(0, R) / np.linalg.norm(xbar)
        xx = rng.standard_normal(2)
        xx *= rng.uniform(0, R) / np.linalg.norm(xx)
        g_kept = a + mu * xx
        g_dummy = mu * (xx - xbar)
        for g in (g_kept, g_dummy):
            assert np.linalg.norm(g) <= 2.0 + 1e-12             # never clipped at L_A = max(C, μD) = 2
        worst = max(worst, float(np.linalg.norm(g_kept - g_dummy)))
    assert worst <= C + 1e-12
    # and the mutant runs with the original claim (the same parameters as the correct algorithm)
    S = np.array([[0.3, 0.0], [5.0, 0.0], [0.0, 0.2], [0.1, 0.1]])
    m = known_lip_calibrate_with_c(S, TiltedQuadratic(mu), Ball(R), 0.5, BOUNDS, np.random.default_rng(1), C=C,
                                   mu=mu, x_bar=xb)
    ok = known_lip_reduction(S, TiltedQuadratic(mu), Ball(R), 0.5, BOUNDS, np.random.default_rng(1), C=C, mu=mu,
                             x_bar=xb)
    assert m.claim == ok.claim and ok.parameters["L_A"] == pytest.approx(2.0)


def test_lipschitz_dpsco_runs_and_counts():
    S = np.random.default_rng(1).standard_normal((10, 3))
    S /= np.linalg.norm(S, axis=1, keepdims=True)
    rel = lipschitz_dpsco(S, Linear(), Ball(1.0), 0.5, 1.0, 1.0, np.random.default_rng(2))
    # n = 10: phases n_i = 5, 2, 1 with T_i = ⌈max(n_i, n_i²ρ/d)⌉ = 5, 2, 1 → 25 + 4 + 1 = 30 gradients
    assert rel.gradient_evaluations == 30 and np.linalg.norm(rel.output) <= 1.0 + 1e-12
    assert rel.nonprivate_internals["gradient_evaluations_performed"] == 30


# campaign: `dpsco verify --quick --only alt24.known_lip` and `--only alt24.onepass` run these tasks; the fast
# suite runs them all in tests/test_verify.py::test_verify_quick_end_to_end (docs/verification.md, campaign tests)
@pytest.mark.campaign
def test_suite_tasks_at_the_quick_budget():
    # every task of the three entries returns the suite format and every check passes (p ≥ 1e-3 on a fixed
    # seed; the exact checks are 1.0, the statistical ones were measured at p ≥ 0.89 on these seeds)
    import json

    from dpsco.verification.papers.alt24.known_lip import ENTRIES
    from dpsco.verification.papers.registry import SuiteInputs

    assert [e.name for e in ENTRIES] == ["alt24.known_lip", "alt24.onepass_sgd", "alt24.onepass_dp_sgd_glm"]
    for e in ENTRIES:
        for i, task in enumerate(e.suite.tasks):
            out = task.run(SuiteInputs("quick", np.random.SeedSequence(100 + i), 0.95))
            json.dumps(out)
            assert set(out) == {"record", "checks", "audits"}
            for key, chk in out["checks"].items():
                assert {"name", "statement", "p_value", "verdict"} <= set(chk) and chk["verdict"] is None
                assert chk["p_value"] >= 1e-3, (e.name, key, chk)
            for key, a in out["audits"].items():
                assert a["p_value"] >= 1e-3 and a["verdict"] == "not refuted", (e.name, key)


def test_strongly_convex_branch_uses_the_dummy_and_l_a():
    # μ = 1 mean estimation on B(0, 1): L̄_s = R + ‖s‖; with C = 1.5 < μD = 2, records with ‖s‖ > 0.5 become the
    # dummy ½‖x − x̄‖² and A_Lip runs at L_A = max(C, μD) = 2
    from dpsco.reference.alt24.losses import MeanEstimationLoss

    S = np.array([[0.2, 0.0], [3.0, 0.0], [0.0, 0.4], [0.0, -9.0], [0.1, 0.1], [0.3, 0.0], [0.0, 0.0], [2.0, 2.0]])
    rel = known_lip_reduction(S, MeanEstimationLoss(), Ball(1.0), 0.5, BOUNDS, np.random.default_rng(0), C=1.5,
                              mu=1.0, x_bar=[1.0, 0.0])
    assert rel.parameters["L_A"] == pytest.approx(2.0) and rel.diagnostics["replaced"] == 3
    # phases [0,4), [4,6), [6,7) with T_i = 4, 2, 1: dummies at 1, 3 (phase 1) → 4·2 = 8; real 4·2 + 2·2 + 1 = 13
    assert rel.diagnostics["dummy_gradient_evaluations"] == 8
    assert rel.nonprivate_internals["gradient_evaluations_performed"] == 13 and rel.gradient_evaluations == 21
    assert np.linalg.norm(rel.output) <= 1.0 + 1e-12


def test_published_record_does_not_reveal_replaced_records():
    """Defect (fixed): Algorithm 4 published gradient_evaluations = the number of real-record gradients, which
    counts the records replaced by the dummy (and its claim's conditions said so).  On a kept/replaced pair at
    the same seed every published field but the output must agree: the count is now the schedule's Σ n_iT_i
    (public), the performed count lives in nonprivate_internals, and the claim carries no excusing condition.
    Deterministic (same seed on both sides)."""
    S = np.full((8, 2), 0.5)
    S2 = S.copy()
    S2[0] = [10.0, 0.0]                                          # L̄ = 10 > C = 3: replaced by the dummy
    for seed in range(3):
        a = known_lip_reduction(S, Linear(), Ball(1.0), 0.5, BOUNDS, np.random.default_rng(seed), C=3.0)
        b = known_lip_reduction(S2, Linear(), Ball(1.0), 0.5, BOUNDS, np.random.default_rng(seed), C=3.0)
        ra, rb = a.to_dict(), b.to_dict()
        ra.pop("output"), rb.pop("output")
        assert ra == rb
        assert a.to_json().count("gradient_evaluations") == 1 and not a.claim.conditions
        # T_1 = 4 steps of phase 1 each computed one gradient of record 0 on D and none on D′
        assert (a.nonprivate_internals["gradient_evaluations_performed"]
                - b.nonprivate_internals["gradient_evaluations_performed"]) == 4
        with pytest.raises(ValueError, match="include_diagnostics"):
            a.to_dict(include_diagnostics=True)


def test_heavy_records_are_replaced_not_refused_and_the_release_is_finite():
    """An admissible heavy record (finite, any magnitude) whose L̄_s overflows to inf is replaced by the dummy
    (inf > C), never refused mid-run (before: ValueError "lipschitz_bound must give one finite L̄_s"), and the
    release is finite — least squares records [a, b] with |b| = 1e308 and ‖a‖ up to 1.3e308."""
    from dpsco.reference.alt24.losses import LeastSquaresLoss

    S = np.full((8, 3), 0.5)
    S[0] = [10.0, 1.0, 1e308]
    S[3] = [1e308, -1e308, 5e-324]
    rel = known_lip_reduction(S, LeastSquaresLoss(), Ball(1.0), 0.5, BOUNDS, np.random.default_rng(0), C=3.0)
    assert np.all(np.isfinite(rel.output)) and rel.diagnostics["replaced"] == 2
    assert truncation_mask(S, LeastSquaresLoss(), 3.0, 1.0).tolist() == [False] + [True] * 2 + [False] + [True] * 4
