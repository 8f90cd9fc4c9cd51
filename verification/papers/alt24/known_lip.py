"""Catalogue entries (``dpsco verify``) for Asi, Liu & Tian (2024)'s known-Lipschitz reduction (Algorithm 4 with
A_Lip, Theorem 2), one-pass clipped SGD (Algorithm 5, Lemma 8) and one-pass clipped DP-SGD for GLMs
(Algorithm 8, Theorem 4).  Each entry is verified by its own suite of tasks (``EntrySuite``):

* ``audit`` — the ρ-zCDP claims audited as claimed: black-box *curve* audits
  (``dpsco.verification.auditing.curve_audit.audit_curve``: refuted iff the Clopper–Pearson box lies below the
  claim's zCDP trade-off curve; the audit dict's p-value, :func:`curve_p_value`, is the smallest 1 − confidence
  at which the same counts refute) on the worst replace-one pair (linear loss, the differing record first in
  phase 1 with gradients ±C e₁, projection inactive), and an exact Gaussian check of the pair: the output is an
  isotropic Gaussian N(m, s²I) on both sides (every map is affine in the noise), the shift ‖m − m'‖ is read
  exactly from one coupled run (same seed) and s from fresh runs by the exact χ² law of the sample variance;
  the check's p-value is that of H₀ "μ = ‖m − m'‖/s ≤ the claimed μ"
  (docs/derivations.md#exact-gaussian-check-of-a-worst-replace-one-pair).  The (ε, δ) threshold audits these
  replace tested one point of the same curve and added nothing.  Algorithm 8 is also audited **white-box**
  (:class:`WhiteBoxAlg8`): the adversary sees every phase's noisy output x_i = x̄_i + N(0, σ_i² I)
  (``white_box=True``) and tests the claimed-model likelihood ratio of the whole trace on a fixed event; on the
  worst pair its μ under the claimed noise is (1 − 1/n_1)√(ρ/2) = 0.484 against the claimed 0.5, so the audit
  is tight, and the σ_i/2 bug is refuted.  Algorithm 4 is
  also audited (curve audit) on the real data ``randhie`` (least squares, declared L̄ and G_j of
  ``dpsco.verification.papers.alt24.data``): 15 records plus, at position 0, the kept record of largest
  L̄_s ≤ C vs the record of largest L̄_s (replaced by the dummy).
* ``bounds`` — the theorem's expectation bound on a heavy-tailed linear instance (radial Pareto, closed-form
  excess), with the Hoeffding check of ``dpsco.verification.checks.stats``; the exact gradient counts.
* ``rate`` (Algorithm 4) — Theorem 2's rate G_2D/√n + G_kD(√d/(n√ρ))^{1−1/k} at every grid point, its
  constant C_HT (unspecified in the paper) calibrated on independent pilot runs at the smallest n (3× the
  pilot ratio), so the check tests that the ratio to the rate stays bounded.

Budgets: "standard" ≈ 51 s of CPU for the three entries together (measured on a loaded 2-core machine: the
known_lip audit task, with randhie, 19 s; the onepass_dp audit task 24 s, of which ≈ 13 s the white-box audit's
2,000 runs per side); "quick" ≈ 9 s.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from scipy import stats

from dpsco.oracles.alt24.heavy_tail_instances import LinearInstance
from dpsco.oracles.alt24.heavy_tails import ParetoRadius, RadialVector
from dpsco.reference.alt24.algorithms_known_lipschitz import known_lip_reduction, theorem_2_clip
from dpsco.reference.alt24.losses import LinearLoss, LogisticGLMLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.reference.alt24.algorithms_one_pass import (lemma_8_terms, onepass_clipped_dp_sgd, onepass_clipped_sgd,
                                            theorem_4_parameters)
from dpsco.reference.alt24.theorems import theorem_4_bound
from dpsco.reference.domains import Ball
from dpsco.verification.auditing.curve_audit import CurveAuditResult, audit_curve, curve_p_value
from dpsco.verification.auditing.events import Event
from dpsco.verification.checks.power_figures import exact_power, gaussian_mu_power
from dpsco.verification.checks.stats import mean_bound_check, suite_check
from dpsco.verification.checks.theorem_checks import rate_check
from dpsco.verification.papers.alt24.data import load_randhie
from dpsco.verification.papers.alt24.noise import known_lip_noise, onepass_dp_noise
from dpsco.verification.papers.registry import BudgetCost, CatalogueEntry, EntrySuite, SuiteInputs, SuiteTask

__all__ = ["ENTRIES", "SIZES", "WhiteBoxAlg8", "known_lip_audit", "known_lip_bounds",
           "known_lip_rate", "onepass_sgd_bounds", "onepass_dp_audit", "onepass_dp_bounds",
           "onepass_dp_white_box_audit", "white_box_event"]

PAPER = "Asi, Liu & Tian (2024)"

# runs per task and budget: audit runs per side, χ² runs of the exact check, replicates of the bound checks,
# rate grid and runs per grid point
SIZES: dict[str, dict[str, Any]] = {
    "quick": {"audit": 300, "white_box": 150, "randhie": 150, "chi2": 100, "reps": 8, "grid": (32, 64, 128), "rate_runs": 3,
              "n_bound": 128, "n_onepass": 512, "n_dp": 1024},
    "standard": {"audit": 2000, "white_box": 2000, "randhie": 1000, "chi2": 300, "reps": 30, "grid": (64, 128, 256, 512),
                 "rate_runs": 6, "n_bound": 256, "n_onepass": 2048, "n_dp": 4096},
    "paper": {"audit": 20000, "white_box": 20000, "randhie": 10000, "chi2": 1000, "reps": 100, "grid": (64, 128, 256, 512, 1024),
              "rate_runs": 20, "n_bound": 512, "n_dp": 16384, "n_onepass": 8192},
}

RHO_AUDIT, DELTA_AUDIT = 0.5, 1e-5
RHO_UTIL = 0.1
BOUNDS_AUDIT = MomentBounds(3, (1.0, 1.0, 2.0))


def _instance() -> LinearInstance:
    """I1: f(x; s) = ⟨s, x⟩, s = e₁ + r·u, r ~ Pareto(3.5, 1) (k = 3 finite moments), d = 3, X = B(0, 1);
    exact G_j from the radial law; x* = −e₁, excess ⟨e₁, x⟩ + 1 ∈ [0, 2]."""
    return LinearInstance(RadialVector(ParetoRadius(3.5, 1.0), 3, mu=[1.0, 0.0, 0.0]), 1.0, 3)


def _from(check: Any, statement: str) -> dict[str, Any]:
    d = check.to_dict()
    d["statement"] = statement
    d["verdict"] = None
    return d


def _worst_pair(n: int, d: int, M: float) -> tuple[np.ndarray, np.ndarray]:
    S = np.zeros((n, d))
    S2 = S.copy()
    S[0, 0], S2[0, 0] = M, -M
    return S, S2


def _gaussian_pair_check(name: str, run: Any, S: np.ndarray, S2: np.ndarray, mu_claim: float, runs: int,
                         rng: np.random.Generator) -> dict[str, Any]:
    """Exact-law check of μ ≤ ``mu_claim`` on a pair whose outputs are N(m, s²I), N(m', s²I) (module docstring):
    Δ = ‖m − m'‖ from one coupled run, Σ‖o_j − ō‖²/s² ~ χ²_{d(runs−1)}; p-value of H₀ s ≥ Δ/μ_claim is
    P(χ² ≤ Σ‖o_j − ō‖²·μ_claim²/Δ²)."""
    seed = int(rng.integers(2**63))
    delta = float(np.linalg.norm(run(S, np.random.default_rng(seed)) - run(S2, np.random.default_rng(seed))))
    outs = np.array([run(S, rng) for _ in range(runs)])
    ss = float(np.sum((outs - outs.mean(axis=0)) ** 2))
    dof = outs.shape[1] * (runs - 1)
    p = 1.0 if delta == 0.0 else float(stats.chi2.cdf(ss * mu_claim**2 / delta**2, dof))
    mu_hat = delta / math.sqrt(ss / dof) if ss > 0 else math.inf
    return suite_check(name, f"the worst replace-one pair's Gaussian output has μ = ‖m − m'‖/s ≤ {mu_claim:.4g} "
                  "(exact χ² law of the sample variance; shift from a coupled run)", p, mu_hat, mu_claim,
                  shift=delta, runs=runs, max_output_norm=float(np.linalg.norm(outs, axis=1).max()),
                  power=gaussian_mu_power(mu_claim, dof))


def _audit_dict(res: CurveAuditResult) -> dict[str, Any]:
    """A curve audit's record with the p-value of its verdict (:func:`curve_p_value` of its test counts)."""
    rec = res.to_dict()
    det = res.details
    n = int(det["n_test"])
    rec["p_value"] = curve_p_value(int(det["numerator_count"]), n, int(det["denominator_count"]), n,
                                   res.claim.tradeoff)
    return rec


# ---- Algorithm 4 + A_Lip ---------------------------------------------------------------------------------

# A_Lip's steps scale with η = D·min(1/(G_2√n), √ρ/(L√d)): with the loose (valid) public bound G_2 = 10³ the
# shift and the noise shrink together (μ unchanged) and no projection onto X = B(0, 1) is ever active, so the
# output is exactly Gaussian (the record keeps the largest output norm seen)
BOUNDS_ALIP = MomentBounds(3, (1e3, 1e3, 1e3))


def _alg4(S: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return known_lip_reduction(S, LinearLoss(), Ball(1.0), RHO_AUDIT, BOUNDS_ALIP, rng, C=2.0,
                               delta=DELTA_AUDIT).output


def _alg4_mechanism(data: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    return _alg4(np.asarray(data["S"]), rng)


N_RANDHIE = 16


@lru_cache(maxsize=1)
def _randhie() -> Any:
    return load_randhie()


@lru_cache(maxsize=1)
def _randhie_pair() -> tuple[np.ndarray, np.ndarray, float]:
    """randhie records 1..15 (least squares, B's declared L̄ and G_j, X = B(0, 20)) with position 0 (phase 1)
    holding either the kept record of largest L̄_s ≤ C (Theorem 2's C at n = 16) or the record of largest L̄_s
    (> C: replaced by the dummy) — the pair "one neighbour's record is heavy"."""
    r = _randhie()
    loss, b = r.losses["least_squares"], r.moment_bounds["least_squares"]
    C = theorem_2_clip(N_RANDHIE, r.d, RHO_AUDIT, b)
    L = loss.lipschitz_bound(r.S, r.radius)
    kept = r.S[int(np.argmax(np.where(L <= C, L, -np.inf)))]
    heavy = r.S[int(np.argmax(L))]
    base = r.S[1:N_RANDHIE]
    return np.vstack([kept, base]), np.vstack([heavy, base]), C


def _alg4_randhie(data: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    r = _randhie()
    return known_lip_reduction(np.asarray(data["S"]), r.losses["least_squares"], Ball(r.radius), RHO_AUDIT,
                               r.moment_bounds["least_squares"], rng, delta=DELTA_AUDIT).output


def known_lip_audit(inp: SuiteInputs) -> dict[str, Any]:
    """Audits of Algorithm 4 + A_Lip: the worst pair (n = 16, kept records ±2e₁ first in phase 1) and a randhie
    pair (least squares with helper data's declared L̄, one neighbour's record heavy)."""
    sz = SIZES[inp.budget]
    s_audit, s_exact, s_randhie = inp.seed.spawn(3)
    S, S2 = _worst_pair(16, 2, 2.0)
    claim = known_lip_reduction(S, LinearLoss(), Ball(1.0), RHO_AUDIT, BOUNDS_ALIP, np.random.default_rng(0),
                                C=2.0, delta=DELTA_AUDIT).claim
    res = audit_curve(_alg4_mechanism, {"S": S}, {"S": S2}, claim, sz["audit"], np.random.default_rng(s_audit),
                      confidence=inp.confidence, power=False)
    exact = _gaussian_pair_check("exact_worst_pair", _alg4, S, S2, math.sqrt(2 * RHO_AUDIT), sz["chi2"],
                                 np.random.default_rng(s_exact))
    A, B, C = _randhie_pair()
    r = _randhie()
    claim_r = known_lip_reduction(A, r.losses["least_squares"], Ball(r.radius), RHO_AUDIT,
                                  r.moment_bounds["least_squares"], np.random.default_rng(0), delta=DELTA_AUDIT).claim
    res_r = audit_curve(_alg4_randhie, {"S": A}, {"S": B}, claim_r, sz["randhie"], np.random.default_rng(s_randhie),
                        confidence=inp.confidence, power=False)
    return {"record": {"pair": "linear loss, n = 16, records ±2e₁ at position 0 (phase 1), others 0; G_2 = 10³, "
                               "X = B(0, 1)",
                       "rho": RHO_AUDIT, "claim_epsilon": claim.epsilon, "audit": "curve audits of the ρ-zCDP "
                       "claim (box below the zCDP trade-off curve), replacing the (ε, δ) threshold audits (a point "
                       "of the same curve)", "mu_lower": res.mu_lower, "rho_lower": res.rho_lower,
                       "randhie_pair": "randhie records 1..15 + (kept record of largest L̄ ≤ C | record of "
                                       "largest L̄, replaced) at position 0; least squares, B(0, 20)",
                       "randhie_C": C, "randhie_mu_lower": res_r.mu_lower, "randhie_rho_lower": res_r.rho_lower},
            "checks": {"known_lip_exact_worst_pair": exact},
            "audits": {"known_lip_worst_pair": _audit_dict(res), "known_lip_randhie": _audit_dict(res_r)}}


def known_lip_bounds(inp: SuiteInputs) -> dict[str, Any]:
    """Exact counts of Algorithm 4 + A_Lip (real + dummy = Σ n_iT_i ≤ max(n², n³ρ/d)), replace-not-drop."""
    sz = SIZES[inp.budget]
    inst = _instance()
    rng = np.random.default_rng(inp.seed)
    n = sz["n_bound"]
    S = inst.sample(n, rng)
    rel = known_lip_reduction(S, inst.loss, Ball(inst.radius), RHO_UTIL, inst.moment_bounds, rng)
    real = rel.nonprivate_internals["gradient_evaluations_performed"]
    total = real + rel.diagnostics["dummy_gradient_evaluations"]
    expected = sum(p["n_i"] * p["T_i"] for p in rel.parameters["a_lip"]["phases"])
    cap = max(n**2, n**3 * RHO_UTIL / inst.d)
    ok = total == expected == rel.gradient_evaluations and total <= cap
    return {"record": {"n": n, "real": real, "dummy": rel.diagnostics["dummy_gradient_evaluations"],
                       "replaced": rel.diagnostics["replaced"], "C": rel.parameters["C"]},
            "checks": {"known_lip_count": suite_check(
                "known_lip_count", "real + dummy gradient evaluations = Σ_i n_iT_i = the published count (public) ≤ "
                "max(n², n³ρ/d) (Proposition 4's count with C_Lip = 1; exact)", 1.0 if ok else 0.0, total,
                min(expected, cap), power=exact_power("counted exactly from the public schedule and the runs"))},
            "audits": {}}


def _alg4_excess(n: Any, rng: np.random.Generator) -> float:
    inst = _instance()
    S = inst.sample(int(n), rng)
    rel = known_lip_reduction(S, inst.loss, Ball(inst.radius), RHO_UTIL, inst.moment_bounds, rng)
    return float(np.clip(inst.excess(rel.output), 0.0, 2.0))


def _theorem_2_rate(n: int, inst: LinearInstance) -> float:
    b = inst.moment_bounds
    D = 2 * inst.radius
    return b.G_2 * D / math.sqrt(n) + b.G_k * D * (math.sqrt(inst.d) / (n * math.sqrt(RHO_UTIL))) ** (1 - 1 / b.k)


def known_lip_rate(inp: SuiteInputs) -> dict[str, Any]:
    """Theorem 2 at every grid point: E[excess] ≤ ĉ·rate(n), ĉ = 3 × the pilot ratio at the smallest n."""
    sz = SIZES[inp.budget]
    inst = _instance()
    pilot_seed, test_seed = inp.seed.spawn(2)
    n0 = sz["grid"][0]
    pilot = [_alg4_excess(n0, np.random.default_rng(s)) for s in pilot_seed.spawn(sz["rate_runs"])]
    c_hat = 3.0 * max(float(np.mean(pilot)), 1e-3) / _theorem_2_rate(n0, inst)
    check = rate_check("known_lip_theorem_2_rate", "Theorem 2", -0.5, sz["grid"], sz["rate_runs"], _alg4_excess,
                       test_seed, kind="upper", bounds=lambda n: c_hat * _theorem_2_rate(int(n), inst),
                       value_range=(0.0, 2.0), bound_constant=c_hat)
    rate = _from(check, "E[F_P(x) − F_P(x*)] ≤ Ĉ_HT·(G_2D/√n + G_kD(√d/(n√ρ))^{1−1/k}) at every grid n")
    # the bound is 3 × the pilot's excess scaled by rate(n)/rate(n_0): a copy whose excess does not decrease with n
    # (e.g. a loop that never runs) passes when 3·rate(n_max)/rate(n_0) ≥ 1 (public; checks.power)
    shrink = _theorem_2_rate(int(sz["grid"][-1]), inst) / _theorem_2_rate(int(n0), inst)
    if 3.0 * shrink >= 1.0:
        rate["uninformative_at_inputs"] = (
            f"cannot detect an excess that does not decrease with n: the bound is 3 × the pilot's excess at n = {n0} "
            f"times rate(n)/rate({n0}) ≥ {3.0 * shrink:.3g} × the pilot's excess on the whole grid")
    return {"record": {"c_hat": c_hat, "pilot_mean": float(np.mean(pilot)), "rho": RHO_UTIL},
            "checks": {"known_lip_theorem_2_rate": rate},
            "audits": {}}


# ---- Algorithm 5 -----------------------------------------------------------------------------------------

def onepass_sgd_bounds(inp: SuiteInputs) -> dict[str, Any]:
    """Lemma 8 on I1 with u = x*, x_0 = 0, η = D/(G_2√T), C = G_k T^{1/(2k)} (public), and the exact count T."""
    sz = SIZES[inp.budget]
    inst = _instance()
    b = inst.moment_bounds
    T = sz["n_onepass"]
    D = 2 * inst.radius
    eta = D / (b.G_2 * math.sqrt(T))
    C = b.G_k * T ** (1.0 / (2 * b.k))
    terms = lemma_8_terms(T, eta, C, float(np.linalg.norm(inst.minimiser())), b, D)
    vals, counts = [], []
    for s in inp.seed.spawn(sz["reps"]):
        rng = np.random.default_rng(s)
        rel = onepass_clipped_sgd(inst.sample(T, rng), inst.loss, C, eta, Ball(inst.radius), np.zeros(inst.d))
        vals.append(float(np.clip(inst.excess(rel.output), 0.0, 2.0)))
        counts.append(rel.gradient_evaluations)
    check = mean_bound_check("onepass_sgd_lemma_8", vals, terms["total"], (0.0, 2.0))
    ok = all(c == T for c in counts)
    return {"record": {"T": T, "eta": eta, "C": C, "lemma_8_terms": terms, "mean_excess": float(np.mean(vals))},
            "checks": {"onepass_sgd_lemma_8": _from(check, "E[F_P(x̂) − F_P(x*)] ≤ ‖x_0 − x*‖²/(2ηT) + ηG_2²/2 + "
                                                            "G_k^kD/((k−1)C^{k−1}) (Lemma 8)"),
                       "onepass_sgd_count": suite_check("onepass_sgd_count", "gradient evaluations = T exactly "
                                                   "(one per record)", 1.0 if ok else 0.0, max(counts), T,
                                                   power=exact_power("counted exactly in every run"))},
            "audits": {}}


# ---- Algorithm 8 -----------------------------------------------------------------------------------------

def _alg8(S: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return onepass_clipped_dp_sgd(S, LinearLoss(), Ball(1e9), np.zeros(S.shape[1]), RHO_AUDIT, BOUNDS_AUDIT, rng,
                                  delta=DELTA_AUDIT).output


def _alg8_mechanism(data: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    return _alg8(np.asarray(data["S"]), rng)


class WhiteBoxAlg8:
    """The white-box adversary of Algorithm 8 on a fixed replace-one pair (S, S2), as a mechanism
    ``f(data, rng) -> (1,)`` for :func:`~dpsco.verification.auditing.curve_audit.audit_curve`.

    It runs ``algorithm`` (Algorithm 8's signature with ``white_box=True``: the reference or a planted bug) on
    ``data["S"]`` and sees every noisy phase output x_i and its start (``Release.white_box``).  Knowing both
    datasets, it recomputes each phase's noiseless average on either side from the observed start (Algorithm 5
    is deterministic: ``onepass_clipped_sgd`` with the public C_i, η_i), m_i = x̄_i(S; start), m'_i =
    x̄_i(S2; start), and returns the claimed-model log-likelihood ratio of the whole trace

        Λ = Σ_i [b_i y_i − b_i²/2],   y_i = ⟨x_i − m_i, u_i⟩/σ_i,   b_i = ‖m'_i − m_i‖/σ_i,   u_i = (m'_i − m_i)/‖·‖,

    with the public σ_i of Theorem 4's formulas (phases whose records agree on both sides add 0).  Under
    the claim's model Λ ~ N(−B²/2, B²) on S and N(B²/2, B²) on S2, B² = Σ b_i²: a Gaussian shift of μ = B.
    Λ is a post-processing of the white-box view, which the claim covers (Theorem 4's proof bounds every phase
    output given the previous ones), so a curve audit of Λ against the claim is sound."""

    def __init__(self, S: np.ndarray, S2: np.ndarray, algorithm: Any = onepass_clipped_dp_sgd) -> None:
        self.S, self.S2, self.algorithm = np.asarray(S, dtype=float), np.asarray(S2, dtype=float), algorithm
        # the phases (records, C_i, η_i, σ_i) from Theorem 4's formulas at the public inputs, never from a release
        self.par = theorem_4_parameters(self.S.shape[0], self.S.shape[1], RHO_AUDIT, BOUNDS_AUDIT, Ball(1e9).diameter)

    def _means(self, ph: dict[str, Any], start: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x̄_i(S; start), x̄_i(S2; start)) of phase ``ph``, cached by (phase, start): deterministic."""
        key = (ph["i"], np.asarray(start, dtype=float).tobytes())
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            a, b = ph["start"], ph["stop"]
            if len(cache) > 64:
                cache.clear()
            cache[key] = tuple(onepass_clipped_sgd(D[a:b], LinearLoss(), ph["C_i"], ph["eta_i"], Ball(1e9),
                                                   start).output for D in (self.S, self.S2))
        return cache[key]

    def run(self, S: np.ndarray, rng: np.random.Generator) -> Any:
        return self.algorithm(S, LinearLoss(), Ball(1e9), np.zeros(S.shape[1]), RHO_AUDIT, BOUNDS_AUDIT, rng,
                              delta=DELTA_AUDIT, white_box=True)

    def __call__(self, data: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
        rel = self.run(np.asarray(data["S"], dtype=float), rng)
        wb = rel.white_box
        lam = 0.0
        for i, ph in enumerate(self.par["phases"]):
            a, b = ph["start"], ph["stop"]
            if np.array_equal(self.S[a:b], self.S2[a:b]):
                continue
            m, m2 = self._means(ph, wb["phase_starts"][i])
            diff = m2 - m
            norm = float(np.linalg.norm(diff))
            if norm == 0.0:
                continue
            y = float((wb["phase_releases"][i] - m) @ diff) / (norm * ph["sigma_i"])
            bi = norm / ph["sigma_i"]
            lam += bi * y - 0.5 * bi * bi
        return np.array([lam])

    def exact_mu(self) -> float:
        """B = ‖(b_i)‖ from one run on S (the shifts do not depend on the run for the linear loss): the μ of Λ's
        Gaussian shift if the noise is as claimed — σ_i from Theorem 4's formula (public inputs), not from the
        release."""
        rel = self.run(self.S, np.random.default_rng(0))
        tot = 0.0
        for i, ph in enumerate(self.par["phases"]):
            m, m2 = self._means(ph, rel.white_box["phase_starts"][i])
            tot += float(np.sum((m2 - m) ** 2)) / ph["sigma_i"] ** 2
        return math.sqrt(tot)


def white_box_event(b: float) -> Event:
    """The white-box audit's event, placed from the claimed model only (no run): E = {Λ ≥ τ} with the
    neighbour as numerator, τ = 0.75·b² (i.e. y ≥ 1.25·b in the one differing phase), b = the pair's μ under the
    claimed noise (:meth:`WhiteBoxAlg8.exact_mu`).  Fixed in advance, so every run is a test run."""
    return Event(threshold=0.75 * b * b, tail="ge", numerator="neighbour")


def onepass_dp_white_box_audit(runs: int, rng: np.random.Generator, *, confidence: float = 0.95,
                               algorithm: Any = onepass_clipped_dp_sgd) -> dict[str, Any]:
    """White-box curve audit of Algorithm 8's ρ/4-zCDP claim (``algorithm``: the reference or a planted bug with
    its signature and ``white_box``) on the worst pair (:func:`_worst_pair`, n = 64, ±10⁶e₁ first in phase 1):
    the statistic Λ of :class:`WhiteBoxAlg8`, ``runs`` per side, all of them testing :func:`white_box_event`.  Returns the audit record with its p-value and
    the pair's exact white-box μ under the claimed noise."""
    S, S2 = _worst_pair(64, 2, 1e6)
    mech = WhiteBoxAlg8(S, S2, algorithm)
    claim = onepass_clipped_dp_sgd(S, LinearLoss(), Ball(1e9), np.zeros(2), RHO_AUDIT, BOUNDS_AUDIT,
                                   np.random.default_rng(0), delta=DELTA_AUDIT).claim
    b = mech.exact_mu()
    event = white_box_event(b)
    res = audit_curve(mech, {"S": S}, {"S": S2}, claim, runs, rng, confidence=confidence, power=False,
                      statistic="coordinate:0", event=event)
    rec = _audit_dict(res)
    rec["white_box"] = {"view": "every phase's noisy output x_i = x̄_i + N(0, σ_i² I) and its start",
                        "statistic": "claimed-model log-likelihood ratio Λ of the phase outputs",
                        "mu_claimed": math.sqrt(2.0 * claim.rho), "mu_exact_claimed_noise": mech.exact_mu(),
                        "algorithm": getattr(algorithm, "__name__", str(algorithm))}
    return rec


def onepass_dp_audit(inp: SuiteInputs) -> dict[str, Any]:
    """Audits of Algorithm 8 on the worst pair (linear GLM, n = 64, ±10⁶e₁ first in phase 1: clipped to ±C_1e₁);
    the claim is ρ/4-zCDP (μ = √(ρ/2)): a black-box curve audit of the output, a white-box curve audit of every
    phase's noisy output (:class:`WhiteBoxAlg8`), and the exact Gaussian check."""
    sz = SIZES[inp.budget]
    s_audit, s_exact, s_wb = inp.seed.spawn(3)
    S, S2 = _worst_pair(64, 2, 1e6)
    claim = onepass_clipped_dp_sgd(S, LinearLoss(), Ball(1e9), np.zeros(2), RHO_AUDIT, BOUNDS_AUDIT,
                                   np.random.default_rng(0), delta=DELTA_AUDIT).claim
    res = audit_curve(_alg8_mechanism, {"S": S}, {"S": S2}, claim, sz["audit"], np.random.default_rng(s_audit),
                      confidence=inp.confidence, power=False)
    exact = _gaussian_pair_check("exact_worst_pair", _alg8, S, S2, math.sqrt(RHO_AUDIT / 2), sz["chi2"],
                                 np.random.default_rng(s_exact))
    wb = onepass_dp_white_box_audit(sz["white_box"], np.random.default_rng(s_wb), confidence=inp.confidence)
    return {"record": {"pair": "linear GLM, n = 64, records ±10⁶e₁ at position 0 (phase 1), others 0",
                       "rho_input": RHO_AUDIT, "rho_claimed": claim.rho, "claim_epsilon": claim.epsilon,
                       "audit": "curve audits of the ρ/4-zCDP claim (box below the zCDP trade-off curve): the "
                                "output (black-box) and every phase's noisy output (white-box)",
                       "mu_lower": res.mu_lower, "rho_lower": res.rho_lower,
                       "white_box_mu_lower": wb["mu_lower"], "white_box_rho_lower": wb["rho_lower"],
                       "white_box_mu_exact": wb["white_box"]["mu_exact_claimed_noise"]},
            "checks": {"onepass_dp_exact_worst_pair": exact},
            "audits": {"onepass_dp_worst_pair": _audit_dict(res), "onepass_dp_white_box": wb}}


def onepass_dp_bounds(inp: SuiteInputs) -> dict[str, Any]:
    """Theorem 4's corrected bound on I1 (a GLM with β = 0), the exact count 2^I − 1 ≤ n, and the coupled-run
    stability ‖x̄_1 − x̄'_1‖ ≤ 2η_1C_1 of Theorem 4's privacy step on logistic-GLM neighbours (‖s‖ ≤ M)."""
    sz = SIZES[inp.budget]
    inst = _instance()
    b = inst.moment_bounds
    n = sz["n_dp"]
    D = 2 * inst.radius
    s_util, s_stab = inp.seed.spawn(2)
    vals, counts = [], []
    for s in s_util.spawn(sz["reps"]):
        rng = np.random.default_rng(s)
        rel = onepass_clipped_dp_sgd(inst.sample(n, rng), inst.loss, Ball(inst.radius), np.zeros(inst.d), RHO_UTIL,
                                     b, rng)
        vals.append(float(np.clip(inst.excess(rel.output), 0.0, 2.0)))
        counts.append(rel.gradient_evaluations)
    bound = theorem_4_bound(b.G_2, b.G_k, b.k, D, inst.d, n, RHO_UTIL)
    printed = theorem_4_bound(b.G_2, b.G_k, b.k, D, inst.d, n, RHO_UTIL, printed=True)
    check = mean_bound_check("onepass_dp_theorem_4", vals, bound, (0.0, 2.0))
    n_eff = 2 ** (n.bit_length() - 1)
    ok = all(c == n_eff - 1 for c in counts) and n_eff - 1 <= n
    # stability: logistic GLM records with ‖s‖ ≤ M, β = M²/4 ≤ 2/η; phase 1 of Algorithm 8 on coupled neighbours
    rng = np.random.default_rng(s_stab)
    M = 2.0
    loss = LogisticGLMLoss(M)
    par = theorem_4_parameters(n, inst.d, RHO_UTIL, b, D)
    ph = par["phases"][0]
    worst = 0.0
    for _ in range(max(2, sz["reps"] // 4)):
        Sn = rng.standard_normal((ph["n_i"], inst.d))
        Sn *= (M * rng.uniform(0, 1, (ph["n_i"], 1))) / np.linalg.norm(Sn, axis=1, keepdims=True)
        S2 = Sn.copy()
        j = int(rng.integers(ph["n_i"]))
        S2[j] = -Sn[j] * M / max(float(np.linalg.norm(Sn[j])), 1e-12)
        x0 = np.zeros(inst.d)
        a = onepass_clipped_sgd(Sn, loss, ph["C_i"], ph["eta_i"], Ball(inst.radius), x0).output
        c = onepass_clipped_sgd(S2, loss, ph["C_i"], ph["eta_i"], Ball(inst.radius), x0).output
        worst = max(worst, float(np.linalg.norm(a - c)) / (2 * ph["eta_i"] * ph["C_i"]))
    stab_ok = worst <= 1.0 + 1e-9 and M**2 / 4 <= par["two_over_eta"]
    return {"record": {"n": n, "n_eff": n_eff, "mean_excess": float(np.mean(vals)), "bound_corrected": bound,
                       "bound_printed": printed, "stability_ratio_max": worst, "beta": M**2 / 4,
                       "two_over_eta": par["two_over_eta"]},
            "checks": {"onepass_dp_theorem_4": _from(check, "E[F_P(x_I) − F_P(x*)] ≤ G_2D√(8/n_eff) + (4·2^{2−3/k} "
                                                              "+ 2^{1+3(k−1)/k})G_kD(√d/(n_eff√ρ))^{1−1/k} + "
                                                              "5G_kD/n_eff² (Theorem 4, corrected constants)"),
                       "onepass_dp_count": suite_check("onepass_dp_count", "gradient evaluations = 2^I − 1 ≤ n (exact)",
                                                  1.0 if ok else 0.0, max(counts), n_eff - 1,
                                                  power=exact_power("counted exactly in every run")),
                       "onepass_dp_stability": suite_check(
                           "onepass_dp_stability", "‖x̄_1 − x̄'_1‖ ≤ 2η_1C_1 on coupled logistic-GLM neighbours with "
                           "β = M²/4 ≤ 2/η (Theorem 4's privacy step; deterministic)", 1.0 if stab_ok else 0.0,
                           worst, 1.0, power=exact_power(
                               "deterministic: the coupled differences are computed exactly on every neighbour pair",
                               reaches_claim=worst > 0.5), uninformative=(
                               f"cannot detect a copy whose coupled difference is twice the reference's: the largest "
                               f"ratio ‖x̄_1 − x̄'_1‖/(2η_1C_1) on these neighbours is {worst:.3g} ≤ 1/2")
                           if worst <= 0.5 else None)},
            "audits": {}}


def _costs(name: str) -> dict[str, BudgetCost]:
    out = {}
    for budget, sz in SIZES.items():
        audit_runs = sz["audit"] if name != "onepass_sgd" else 0
        white_box_runs = sz["white_box"] if name == "onepass_dp_sgd_glm" else 0
        out[budget] = BudgetCost(audit_runs=audit_runs, replicates=sz["reps"], rate_runs=max(2, sz["rate_runs"]),
                                 stability_runs=1, white_box_runs=white_box_runs)
    return out


ENTRIES: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name="alt24.known_lip", title="KnownLipReduction + A_Lip", paper=PAPER,
        algorithm_ref="Algorithm 4 (A_Lip: phased noisy clipped GD, Proposition 4)",
        privacy_theorem="Proposition 3 + Proposition 4 (ρ-zCDP; A_Lip calibrated at L_A = max(C, μD))",
        utility_theorem="Theorem 2 (C_HT measured), Proposition 3 (Lemma 7 corrected)",
        run=known_lip_reduction, costs=_costs("known_lip"),
        planted_bugs=("known_lip_drop_heavy", "known_lip_data_dependent_clip", "known_lip_sensitivity_c_over_n",
                      "known_lip_reduction_draws_sigma_over_sqrt2", "known_lip_phase_slice_off_by_one",
                      "known_lip_reduction_noise_dropped"),
        rate_exponent=-0.5,
        notes=("Records with L̄_s > C are replaced by a dummy (never dropped); A_Lip clips per-sample gradients at "
               "L_A, so privacy does not rest on the L̄ declaration.  Audits: the synthetic worst pair (linear "
               "loss) and a randhie pair (least squares, one neighbour's record heavy)."),
        suite=EntrySuite(tasks=(SuiteTask("audit", known_lip_audit, 20.0), SuiteTask("bounds", known_lip_bounds, 0.1),
                                SuiteTask("rate", known_lip_rate, 2.5), SuiteTask("noise", known_lip_noise, 0.3)),
                         description=("black-box zCDP curve audits (worst pair, randhie pair) + exact Gaussian check on "
                                      "the worst replace-one pair; exact "
                                      "gradient counts; Theorem 2's rate at every grid n on a radial-Pareto linear "
                                      "instance (k = 3); measured noise of every A_Lip step"))),
    CatalogueEntry(
        name="alt24.onepass_sgd", title="OnePass-Clipped-SGD (not private)", paper=PAPER,
        algorithm_ref="Algorithm 5 (and Corollary 4's Π_{C,Ĉ})", privacy_theorem="none (non-private building block)",
        utility_theorem="Lemma 8", run=onepass_clipped_sgd, costs=_costs("onepass_sgd"),
        planted_bugs=("onepass_sgd_two_passes",), rate_exponent=None,
        notes="Non-private: no audit.  Lemma 8 with u = x* on a radial-Pareto linear instance; count = T exactly.",
        audit_note="Algorithm 5 claims no privacy",
        suite=EntrySuite(tasks=(SuiteTask("bounds", onepass_sgd_bounds, 1.2),),
                         description="Lemma 8's expectation bound (Hoeffding) and the exact gradient count T")),
    CatalogueEntry(
        name="alt24.onepass_dp_sgd_glm", title="OnePass-Clipped-DP-SGD for GLMs", paper=PAPER,
        algorithm_ref="Algorithm 8", privacy_theorem="Theorem 4 (claims ρ/4-zCDP, what the proof gives)",
        utility_theorem="Theorem 4 (corrected constants)", run=onepass_clipped_dp_sgd,
        costs=_costs("onepass_dp_sgd_glm"), planted_bugs=("onepass_dp_sgd_half_sigma", "onepass_dp_sgd_half_sigma_white_box",
                                                          "onepass_clipped_dp_sgd_draws_sigma_over_sqrt2",
                                                          "onepass_dp_sgd_last_phase_takes_the_rest",
                                                          "onepass_clipped_dp_sgd_noise_dropped"),
        rate_exponent=None,
        notes=("Each phase starts at Π_X(x_{i−1}) and the output is Π_X(x_I) (errata).  Non-GLMs and β > 2/η are "
               "refused.  The white-box audit sees every noisy phase output (white_box=True); its planted bug is "
               "onepass_dp_sgd_half_sigma_white_box (σ_i/2 with the trace)."),
        suite=EntrySuite(tasks=(SuiteTask("audit", onepass_dp_audit, 24.0),
                                SuiteTask("bounds", onepass_dp_bounds, 4.0), SuiteTask("noise", onepass_dp_noise, 0.2)),
                         description=("black-box and white-box (every noisy phase output) zCDP curve audits + exact "
                                      "Gaussian check on the worst pair (linear GLM); "
                                      "Theorem 4's corrected bound; exact count 2^I − 1; coupled-run stability of "
                                      "the privacy step on logistic-GLM neighbours; measured noise of every phase "
                                      "output"))),
)
