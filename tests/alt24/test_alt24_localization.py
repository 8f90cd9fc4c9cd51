"""Localization of Asi, Liu & Tian (2024): Algorithm 2, Algorithm 3, HT-SCO (Theorem 1), the Corollary 3 wrapper and
Appendix A (Theorem 5).  Golden parameters are derived by hand below; privacy is checked exactly (parallel
composition over disjoint blocks: coupled runs on a worst-case pair change exactly one block's trace, by exactly
2C/n per step); the overlapping-blocks planted bug is refuted the same way.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpsco.reference.alt24.algorithms_clipped_sgd import corollary_1_parameters
from dpsco.reference.alt24.algorithms_localization import (aggregate_erm, corollary_3_epochs, enclosing_ball_of_intersection,
                                                highprob_sco, ht_sco, lemma_15_solver, population_localize, sc_sco,
                                                theorem_1_blocks, theorem_1_gradient_count, theorem_1_parameters,
                                                theorem_5_parameters)
from dpsco.reference.alt24.losses import LinearLoss, MeanEstimationLoss
from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds
from dpsco.verification.mutants.alt24 import clipped as mut

M1 = MomentBounds(2, (1.0, 1.0))


class TaggedLinear(HeavyTailedLoss):
    """Linear loss on records [s, tag]: logs the set of tags of every gradient call (which records a call saw)."""

    name = "tagged linear (test)"
    glm = True

    def __init__(self) -> None:
        self.calls: list[frozenset] = []
        self.rows = 0

    def dimension(self, p: int) -> int:
        return p - 1

    def grads(self, x, S):
        S = np.asarray(S)
        self.calls.append(frozenset(S[:, -1].astype(int).tolist()))
        self.rows += S.shape[0]
        return S[:, :-1].copy()

    def values(self, x, S):
        return np.asarray(S)[:, :-1] @ np.asarray(x)


def heavy_records(rng, n, mu, alpha=3.5):
    u = rng.standard_normal((n, mu.size))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    return mu + (rng.pareto(alpha, n) + 1.0)[:, None] * u


# ---- Theorem 1's parameters and blocks ----------------------------------------------------------------------

def test_theorem_1_parameters_golden():
    # δ = 0.1: J(1) = J(2) = ⌈400 ln 20⌉ = ⌈1198.29⌉ = 1199; 2²·1199 = 4796 ≤ 10⁴; J(3) = ⌈400 ln 30⌉ = 1361 and
    # 2³·1361 = 10888 > 10⁴, so I = 2, J = 1199, m = 4, m_i = (2, 1).  k = 2, G = (1, 1), d = 2, ρ = 1, D = 2:
    # Δ = 3·46·((√2/4)^{1/2} + 1/√4), λ = Δ/2, λ_i = 32^iλ, R_i = Δ4^i/λ_i = D/8^i.
    p = theorem_1_parameters(10_000, 2, 1.0, M1, 0.1, 2.0)
    assert (p.I, p.J, p.m, p.m_i) == (2, 1199, 4, (2, 1))
    Delta = 138.0 * ((math.sqrt(2) / 4) ** 0.5 + 0.5)
    assert p.Delta == pytest.approx(Delta, rel=1e-13) and p.lam == pytest.approx(Delta / 2, rel=1e-13)
    assert p.lam_i == pytest.approx((32 * Delta / 2, 1024 * Delta / 2), rel=1e-13)
    assert p.R_i == pytest.approx((2 / 8, 2 / 64), rel=1e-13)
    assert p.deviations == ()
    q = theorem_1_parameters(10_000, 2, 1.0, M1, 0.1, 2.0, J_scale=0.01, C_rp=1.0)
    assert len(q.deviations) == 2 and all("utility" in s for s in q.deviations)
    assert theorem_1_parameters(100, 2, 1.0, M1, 0.1, 2.0).trivial  # 2·J(1) = 2398 > 100


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 20_000), st.floats(1e-3, 1.0), st.floats(1e-3, 0.5))
def test_blocks_pairwise_disjoint(n, J_scale, delta):
    """Invariant (parallel composition): the I·J blocks D_i^j are pairwise disjoint row ranges inside [0, n),
    |D_i^j| = m_i, and each portion uses m − 1 rows."""
    p = theorem_1_parameters(n, 3, 0.5, M1, delta, 1.0, J_scale=J_scale)
    blocks = theorem_1_blocks(p)
    used = np.zeros(n, dtype=int)
    for i, j, a, b in blocks:
        assert 0 <= a < b <= n and b - a == p.m_i[i - 1]
        used[a:b] += 1
    assert used.max(initial=0) <= 1
    assert used.sum() == p.J * (p.m - 1) if p.I else used.sum() == 0


def test_ht_sco_uses_each_record_in_one_call_and_counts_exactly():
    """Every gradient call of HT-SCO sees exactly one block; the blocks are pairwise disjoint (each record in at
    most one Corollary 2 call: the parallel-composition premise), and the count is Σ_i J·m_i·T_i."""
    rng = np.random.default_rng(0)
    n = 64
    S = np.column_stack([heavy_records(rng, n, np.array([0.5, -0.2])), np.arange(n)])
    loss = TaggedLinear()
    rel = ht_sco(S, loss, rho=1.0, moments=M1, delta_fail=0.1, domain_radius=1.0, rng=rng, J_scale=0.005)
    p = theorem_1_parameters(n, 2, 1.0, M1, 0.1, 2.0, J_scale=0.005)
    assert (p.I, p.J, p.m) == (3, 7, 8)  # J(3) = ⌈2 ln 30⌉ = 7, 8·7 = 56 ≤ 64 < 16·⌈2 ln 40⌉
    blocks = sorted(set(loss.calls), key=min)
    assert len(blocks) == p.I * p.J
    assert sum(len(b) for b in blocks) == len(set().union(*blocks))  # pairwise disjoint
    # Σ_i J m_i ⌈max(m_i, m_i²ρ/d)⌉ with m_i = 4, 2, 1, ρ = 1, d = 2: 7·(4·8 + 2·2 + 1·1) = 259
    assert rel.gradient_evaluations == theorem_1_gradient_count(p) == 7 * (4 * 8 + 2 * 2 + 1 * 1) == loss.rows
    assert np.linalg.norm(rel.output) <= 1.0 + 1e-9
    assert rel.claim.notion == "zCDP" and rel.claim.rho == 1.0 and rel.claim.neighbouring == "replace-one"
    assert rel.parameters["records_used"] == 7 * 7


def test_ht_sco_trivial_regime_returns_x0():
    rel = ht_sco(np.ones((10, 2)), LinearLoss(), rho=1.0, moments=M1, delta_fail=0.1, domain_radius=1.0,
                 x0=[0.3, 0.0], rng=np.random.default_rng(0))
    assert np.array_equal(rel.output, [0.3, 0.0]) and rel.gradient_evaluations == 0


# ---- privacy: exact, by coupled runs ------------------------------------------------------------------------

def test_aggregate_erm_parallel_composition_exact():
    """J = 3 blocks of n = 6 records M e_1 (linear loss, M ≥ C); the neighbour replaces record 8 (block 2) by
    −M e_1.  Coupled runs (same generator; gradients do not consume it): blocks 1 and 3 release identical noisy
    gradients, block 2's differ by exactly (2C/n) e_1 at every step — one Gaussian composition of exactly ρ."""
    n, J, d, rho = 6, 3, 2, 0.5
    p = corollary_1_parameters(n, d, rho, M1, 1.0)
    D = np.zeros((n * J, d))
    D[:, 0] = 2.0 * p.C
    Dp = D.copy()
    Dp[8, 0] = -2.0 * p.C
    kw = dict(x_bar=[0.0, 0.0], lam=1.0, J=J, rho=rho, R=0.1, moments=M1, domain_radius=1e6, white_box=True)
    a = aggregate_erm(D, LinearLoss(), rng=np.random.default_rng(2), **kw)
    b = aggregate_erm(Dp, LinearLoss(), rng=np.random.default_rng(2), **kw)
    for j in (0, 2):
        assert np.array_equal(a.white_box[j].noisy_gradients, b.white_box[j].noisy_gradients)
    diff = a.white_box[1].noisy_gradients - b.white_box[1].noisy_gradients
    assert np.allclose(diff[..., 0], 2 * p.C / n, rtol=1e-12) and np.allclose(diff[..., 1], 0.0, atol=1e-12)
    rho_exact = p.T * (2 * p.C / n) ** 2 / (2 * a.white_box[1].sigma ** 2)
    assert rho_exact == pytest.approx(a.claim.rho, rel=1e-12)
    assert a.gradient_evaluations == J * n * p.T
    # dp_accounting's view of the claim's event equals μ = √(2ρ) Gaussian DP (one call holds the record)
    mu = math.sqrt(2 * rho)
    from scipy.optimize import brentq
    f = lambda e: stats.norm.cdf(-e / mu + mu / 2) - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2) - 1e-6
    eps = brentq(f, 0, 50)
    assert eps <= a.claim.event_epsilon(1e-6) <= eps * 1.01 + 1e-3 and a.claim.epsilon >= eps


def test_overlapping_blocks_mutant_refuted():
    """The mutant's phases all start at their portion's first row, so record 0 is in I = 3 Corollary 2 calls.
    Worst-case pair for record 0 (every record M e_1, record 0 replaced by −M e_1; linear loss, gradients
    x-free): in coupled runs exactly the three calls holding record 0 change, each by (2C_i/m_i) e_1 at every
    step, so the noisy-gradient view composes to 3ρ (Lemma 1) > ρ claimed.  The correct HT-SCO's blocks never
    share a record (``test_blocks_pairwise_disjoint``), so the same pair changes one call: ρ."""
    n, d, rho = 64, 2, 1.0
    kw = dict(rho=rho, moments=M1, delta_fail=0.1, domain_radius=1e3, J_scale=0.005, replicates=2)
    p = theorem_1_parameters(n, d, rho, M1, 0.1, 2e3, J_scale=0.005)
    Cmax = max(corollary_1_parameters(mi, d, rho, M1, 1.0).C for mi in p.m_i)
    D = np.zeros((n, d))
    D[:, 0] = 2 * Cmax
    Dp = D.copy()
    Dp[0, 0] = -2 * Cmax
    a = mut.ht_sco_overlapping_blocks(D, LinearLoss(), rng=np.random.default_rng(3), **kw)
    b = mut.ht_sco_overlapping_blocks(Dp, LinearLoss(), rng=np.random.default_rng(3), **kw)
    holding = [blk for blk in a.parameters["blocks"] if blk[2] <= 0 < blk[3]]
    assert len(holding) == p.I == 3
    rho_true = 0.0
    for i in range(p.I):
        for j in range(p.J):
            ta, tb = a.white_box[i][j], b.white_box[i][j]
            diff = ta.noisy_gradients - tb.noisy_gradients
            if np.any(diff != 0):
                assert np.allclose(diff[..., 0], 2 * ta.clip_norm / ta.n, rtol=1e-12)
                rho_true += ta.T * (2 * ta.clip_norm / ta.n) ** 2 / (2 * ta.sigma ** 2)
    assert rho_true == pytest.approx(3 * a.claim.rho, rel=1e-12)


# ---- Algorithm 2 (Proposition 2 with its corrected constants) ----------------------------------------------

def test_population_localize_meets_corrected_proposition_2():
    """Exact-oracle harness on mean estimation, F_P(x) = ½‖x − μ‖² + const on X = B(0, R): the solver returns
    x*_i = Π_X((μ + λ_i x_{i−1})/(1 + λ_i)) plus an error of norm exactly Δ4^i/λ_i pointing away from μ.
    Proposition 2 as corrected (sum indices: the i = 1 term ≤ λ_1D²/2 = 16λD², the rest ≤ 16Δ²/λ):
    F_P(x_I) − F_P(x*) ≤ G_1Δ/(λ8^I) + 16Δ²/λ + 16λD², G_1 = R + ‖μ‖ (F_P's Lipschitz constant on X)."""
    R, mu = 1.0, np.array([0.3, 0.4])
    F = lambda x: 0.5 * float(np.sum((x - mu) ** 2))
    for lam, Delta, I in [(0.05, 0.01, 3), (0.5, 0.2, 2), (0.01, 0.001, 4)]:
        def solve(i, x_prev, lam_i, acc):
            y = (mu + lam_i * x_prev) / (1 + lam_i)
            star = y * min(1.0, R / np.linalg.norm(y))
            away = star - mu
            return star + acc * away / max(np.linalg.norm(away), 1e-300)

        xI, path = population_localize(np.zeros(2), lam, I, Delta, solve)
        assert len(path) == I + 1
        D, G1 = 2 * R, R + np.linalg.norm(mu)
        bound = G1 * Delta / (lam * 8 ** I) + 16 * Delta ** 2 / lam + 16 * lam * D ** 2
        assert F(xI) - F(mu) <= bound


# ---- Corollary 3 wrapper ------------------------------------------------------------------------------------

def test_corollary_3_epochs_and_disjoint_batches():
    # n = 2000: log₂ 2000 = 10.97, log₂ 10.97 = 3.46, ⌈·⌉ + 1 = 5 epochs of 400 records
    assert corollary_3_epochs(2000) == 5 and corollary_3_epochs(16) == 3  # log₂ log₂ 16 = 2
    rng = np.random.default_rng(4)
    S = heavy_records(rng, 2000, np.array([0.3, 0.1]))
    m = MomentBounds(2, (3.0, 3.0))
    rel = sc_sco(S, MeanEstimationLoss(), rho=1.0, moments=m, mu=1.0, delta_fail=0.1, domain_radius=1.0, C_sco=1.0,
                 rng=rng, J_scale=0.01)
    ranges = [e["records"] for e in rel.parameters["epoch_records"]]
    assert ranges == [[400 * e, 400 * (e + 1)] for e in range(5)]  # consecutive, disjoint
    # the epoch domains are private values (post-processing of earlier epochs): kept, never published
    log = rel.nonprivate_internals["epoch_log"]
    assert [e["records"] for e in log] == ranges and "epoch_log" not in rel.to_json()
    assert all(set(e) == {"epoch", "records", "I", "J"} for e in rel.parameters["epoch_records"])
    assert np.linalg.norm(rel.output) <= 1.0 + 1e-12 and rel.claim.rho == 1.0
    with pytest.raises(ValueError, match="mu"):
        sc_sco(S, LinearLoss(), rho=1.0, moments=m, mu=1.0, delta_fail=0.1, domain_radius=1.0, C_sco=1.0, rng=rng)
    with pytest.raises(ValueError, match="C_sco"):
        sc_sco(S, MeanEstimationLoss(), rho=1.0, moments=m, mu=1.0, delta_fail=0.1, domain_radius=1.0, C_sco=0.0,
               rng=rng)


@settings(max_examples=80, deadline=None)
@given(st.floats(0.1, 3.0), st.floats(0.05, 3.0), st.floats(0.0, 4.0), st.integers(0, 2**32 - 1))
def test_enclosing_ball_contains_the_intersection(r1, r2, dist, seed):
    """Every point of B(c1, r1) ∩ B(c2, r2) lies in the returned ball, whose radius is ≤ min(r1, r2)."""
    rng = np.random.default_rng(seed)
    c1 = rng.standard_normal(3)
    u = rng.standard_normal(3)
    c2 = c1 + dist * u / np.linalg.norm(u)
    if dist > r1 + r2:
        return
    c, r = enclosing_ball_of_intersection(c1, r1, c2, r2)
    assert r <= min(r1, r2) + 1e-12
    P = c1 + r1 * rng.uniform(-1, 1, (4000, 3))
    P = P[(np.linalg.norm(P - c1, axis=1) <= r1) & (np.linalg.norm(P - c2, axis=1) <= r2)]
    assert np.all(np.linalg.norm(P - c, axis=1) <= r + 1e-9)


# ---- Appendix A (Theorem 5) ---------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.integers(200, 10**6), st.floats(0.1, 10.0), st.floats(1e-4, 0.5), st.floats(0.01, 1.0))
def test_theorem_5_radii_meet_condition_8(n, G, delta, J_scale):
    """Aggregate within 3R_i of x*_i must satisfy (8): 3R_i = 90G/(λ_i√T_i) ≤ Δ4^i/λ_i for every phase i."""
    try:
        p = theorem_5_parameters(n, G, delta, 2.0, J_scale=J_scale)
    except ValueError:
        return
    for i, (lam_i, R_i, T_i) in enumerate(zip(p.lam_i, p.R_i, p.T_i), start=1):
        assert 3 * R_i <= p.Delta * 4 ** i / lam_i * (1 + 1e-12)
    assert p.J * sum(p.T_i) <= n


def test_highprob_sco_not_private_and_counts():
    rng = np.random.default_rng(6)
    S = heavy_records(rng, 3000, np.array([0.5, 0.0]))
    rel = highprob_sco(S, LinearLoss(), G=3.0, delta_fail=0.1, domain_radius=1.0, J_scale=0.1)
    p = theorem_5_parameters(3000, 3.0, 0.1, 2.0, J_scale=0.1)
    assert rel.claim.notion == "none" and not rel.claim.is_private
    assert rel.gradient_evaluations == p.J * sum(p.T_i) <= 3000
    assert np.linalg.norm(rel.output) <= 1.0 + 1e-12


def test_lemma_15_solver_success_rate():
    """Lemma 15's role: P(‖x̄ − x*‖ ≤ 30G/(λ√T)) ≥ 4/5, x* = argmin_X ⟨μ, x⟩ + (λ/2)‖x − x̄‖² = Π_X(x̄ − μ/λ)
    for the linear loss with s = μ + r u (r radial Pareto α = 3.5: E‖s‖² = ‖μ‖² + α/(α − 2) =: G²).  Fails only
    if the Clopper–Pearson upper bound (level 1e-7) of the success rate over 100 runs is below 0.8:
    false-failure probability ≤ 1e-7."""
    rng = np.random.default_rng(7)
    mu, lam, T, R = np.array([0.5, -0.5]), 2.0, 64, 1.0
    G = math.sqrt(float(mu @ mu) + 3.5 / 1.5)
    x_bar = np.array([0.2, 0.1])
    y = x_bar - mu / lam
    x_star = y * min(1.0, R / np.linalg.norm(y))
    wins = sum(np.linalg.norm(lemma_15_solver(heavy_records(rng, T, mu), LinearLoss(), x_bar=x_bar, lam=lam,
                                              domain_radius=R) - x_star) <= 30 * G / (lam * math.sqrt(T))
               for _ in range(100))
    upper = stats.beta.ppf(1 - 1e-7, wins + 1, 100 - wins) if wins < 100 else 1.0
    assert upper >= 0.8, wins


def test_bad_input_is_refused():
    S = np.ones((40, 2))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="delta_fail"):
        ht_sco(S, LinearLoss(), rho=1.0, moments=M1, delta_fail=1.5, domain_radius=1.0, rng=rng)
    with pytest.raises(TypeError, match="moments"):
        ht_sco(S, LinearLoss(), rho=1.0, moments=(2, 1.0), delta_fail=0.1, domain_radius=1.0, rng=rng)
    with pytest.raises(ValueError, match="J_scale"):
        theorem_1_parameters(100, 2, 1.0, M1, 0.1, 1.0, J_scale=0.0)
    with pytest.raises(ValueError, match="x0"):
        ht_sco(S, LinearLoss(), rho=1.0, moments=M1, delta_fail=0.1, domain_radius=1.0, rng=rng, x0=[3.0, 0.0])
    with pytest.raises(ValueError, match="J"):
        aggregate_erm(np.ones((7, 2)), LinearLoss(), x_bar=[0, 0], lam=1.0, J=2, rho=1.0, R=1.0, moments=M1,
                      domain_radius=1.0, rng=rng)
    with pytest.raises(TypeError, match="rng"):
        aggregate_erm(np.ones((8, 2)), LinearLoss(), x_bar=[0, 0], lam=1.0, J=2, rho=1.0, R=1.0, moments=M1,
                      domain_radius=1.0, rng=1)
    with pytest.raises(ValueError, match="n"):
        theorem_5_parameters(10, 1.0, 0.1, 1.0)


# ---- the catalogue suite (quick budget) ---------------------------------------------------------------------

# campaign: `dpsco verify --quick --only alt24` runs these tasks (and the other alt24 entries'); the fast suite
# runs them all in tests/test_verify.py::test_verify_quick_end_to_end (docs/verification.md, campaign tests)
@pytest.mark.campaign
def test_suite_tasks_quick_budget():
    """Every task of the five entries at the quick budget returns {"record", "checks", "audits"} (JSON-ready),
    every check dict carries name/statement/p_value/verdict, and nothing is refuted: each check's p-value is
    ≥ 1e-8 (a valid p-value is ≤ 1e-8 with probability ≤ 1e-8 when its statement holds; the audits run at
    confidence 1 − 1e-8, so each refutes a true claim with probability ≤ 1e-8).  Fewer than 30 checks and
    audits in all: false-failure probability ≤ 3e-7 by the union bound."""
    import json

    from dpsco.verification.papers.alt24.localization import ENTRIES
    from dpsco.verification.papers.registry import SuiteInputs

    assert [e.name for e in ENTRIES] == ["alt24.clipped_dp_sgd", "alt24.aggregate_erm", "alt24.ht_sco",
                                         "alt24.sc_wrapper", "alt24.highprob_sco"]
    for e in ENTRIES:
        assert e.paper == "Asi, Liu & Tian (2024)" and e.planted_bugs
        for i, task in enumerate(e.suite.tasks):
            out = task.run(SuiteInputs("quick", np.random.SeedSequence([2024, i]), 1 - 1e-8))
            json.dumps(out)
            assert set(out) == {"record", "checks", "audits"}
            for key, c in out["checks"].items():
                assert {"name", "statement", "p_value", "verdict"} <= set(c), key
                assert c["p_value"] >= 1e-8, (e.name, key, c)
            for key, a in out["audits"].items():
                assert a["verdict"] == "not refuted" and a["p_value"] >= 1e-8, (e.name, key)
