"""`dpsco verify` entries of Menart et al. (2023), arXiv:2311.13447 v2, Algorithm 2 (``muabg23.proximal_point``)
and Algorithm 4 (``muabg23.noisy_gd``), verified by their own suites (``EntrySuite``):

* privacy: the exact zCDP of the run as implemented on the worst-case replace-one pair (f(w; x) = L_0⟨w, x⟩,
  S = n copies of e_1, S' with the last record −e_1: the mean subgradients differ by exactly 2L_0/n at every
  iterate), measured from the white-box trace (steps actually taken, σ actually recorded) against the claim's ρ,
  and the planted bugs refuted by the same computation (exact checks: p-value 1 holds / 0 fails);
* utility (Algorithm 4): Theorem 9's bound with constant 1 at every grid n on F̃(w) = L_0⟨w, x̄⟩ + L̃_1‖w‖²
  (closed-form minimiser −L_0x̄/(2L̃_1), excess L̃_1‖w − w*‖² ∈ [0, L_0²/L̃_1]) with the slope reported;
* counts and schedule (Algorithm 2): gradient evaluations = T(T_4 − 1)n exactly, T equal on neighbours.
No black-box audit runs: the exact worst-pair computation decides the claim (a Gaussian composition).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference.muabg23.proximal import noisy_regularised_gd, proximal_point, theorem_9_bound
from dpsco.verification.checks.theorem_checks import rate_check
from dpsco.verification.mutants.muabg23_proximal import (noisy_gd_one_step_more, noisy_gd_paper_accounting,
                                                         proximal_point_data_dependent_f0)
from dpsco.verification.papers.registry import BudgetCost, CatalogueEntry, EntrySuite, SuiteInputs, SuiteTask
from dpsco.verification.checks.stats import exact_check

__all__ = ["ENTRIES", "noisy_gd_privacy", "noisy_gd_rate", "proximal_point_privacy"]

PAPER = "Menart et al. (2023)"
L0, LT, RHO, BETA = 1.0, 1.0, 0.5, 0.1
SIZES: dict[str, dict[str, Any]] = {
    "quick": {"n": 8, "grid": (8, 16), "rate_runs": 4},
    "standard": {"n": 10, "grid": (8, 16, 32), "rate_runs": 10},
    "paper": {"n": 16, "grid": (8, 16, 32, 64), "rate_runs": 40},
}


def _linear(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    return np.broadcast_to(L0 * X[None, :, :], (np.shape(W)[0],) + X.shape).copy()


def _pair(n: int) -> tuple[np.ndarray, np.ndarray]:
    S = np.zeros((n, 1))
    S[:, 0] = 1.0
    S2 = S.copy()
    S2[-1, 0] = -1.0
    return S, S2


def _worst_pair_rho(release: Any, n: int) -> float:
    """Σ over the trace's noisy steps of ‖ḡ_S(w_t) − ḡ_S'(w_t)‖²/(2σ²) (the exact zCDP of the run as taken)."""
    tr = release.white_box
    e = np.zeros(tr.iterates.shape[2])
    e[0] = 1.0
    total = 0.0
    for t in range(tr.T):
        W = tr.iterates[:, t]
        diff = (tr.record_gradient(W, e, 0.0) - tr.record_gradient(W, -e, 0.0)) / n
        total += float(np.max(np.sum(diff ** 2, axis=1))) / (2.0 * tr.sigma ** 2)
    return total


def noisy_gd_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Exact worst-pair zCDP of Algorithm 4 (exact and printed calibrations) and of its two planted bugs."""
    n = SIZES[inputs.budget]["n"]
    S, _ = _pair(n)
    rngs = [np.random.default_rng(s) for s in inputs.seed.spawn(4)]
    common = dict(replicates=2, white_box=True)
    runs = {"exact": noisy_regularised_gd(S, _linear, np.zeros(1), RHO, BETA, L0, LT, rngs[0], **common),
            "printed": noisy_regularised_gd(S, _linear, np.zeros(1), RHO, BETA, L0, LT, rngs[1],
                                            calibration="printed", **common),
            "paper_accounting": noisy_gd_paper_accounting(S, _linear, np.zeros(1), RHO, BETA, L0, LT, rngs[2],
                                                          **common),
            "one_step_more": noisy_gd_one_step_more(S, _linear, np.zeros(1), RHO, BETA, L0, LT, rngs[3], **common)}
    rho = {k: _worst_pair_rho(r, n) for k, r in runs.items()}
    tol = 1e-9
    checks = {
        "noisy_gd_exact_privacy": exact_check("noisy_gd_exact_privacy", "exact worst-pair ρ of the run ≤ claimed ρ "
                                         "(Theorem 9, exact calibration; deterministic)",
                                         rho["exact"] <= runs["exact"].claim.rho * (1 + tol), rho["exact"],
                                         runs["exact"].claim.rho),
        "noisy_gd_printed_privacy": exact_check("noisy_gd_printed_privacy", "printed σ² = 4L_0²T/(n²ρ): exact ρ = "
                                           "(T−1)ρ/(2T) ≤ claim (the printed noise spends < ρ/2)",
                                           rho["printed"] <= runs["printed"].claim.rho * (1 + tol)
                                           and rho["printed"] < RHO / 2, rho["printed"], runs["printed"].claim.rho),
        "noisy_gd_mutants_refuted": exact_check("noisy_gd_mutants_refuted", "both planted bugs exceed their claimed ρ "
                                           "on the worst pair (paper accounting: 2ρ; one step more: ρT/(T−1))",
                                           rho["paper_accounting"] > RHO * (1 + 1e-6)
                                           and rho["one_step_more"] > RHO * (1 + 1e-6),
                                           min(rho["paper_accounting"], rho["one_step_more"]), RHO),
        "noisy_gd_count": exact_check("noisy_gd_count", "gradient evaluations = (T−1)·n (exact)",
                                 runs["exact"].gradient_evaluations == (runs["exact"].parameters["T"] - 1) * n,
                                 runs["exact"].gradient_evaluations, (runs["exact"].parameters["T"] - 1) * n)}
    return {"record": {"n": n, "rho": RHO, "rho_measured": rho, "T": runs["exact"].parameters["T"]},
            "checks": checks, "audits": {}}


def _alg4_excess(n: Any, rng: np.random.Generator) -> float:
    S = np.ones((int(n), 1))
    out = noisy_regularised_gd(S, _linear, np.zeros(1), RHO, BETA, L0, LT, rng).output
    return float(LT * np.sum((out + L0 / (2 * LT)) ** 2))


def noisy_gd_rate(inputs: SuiteInputs) -> dict[str, Any]:
    """Theorem 9's bound (constant 1) at every grid n, slope reported."""
    sz = SIZES[inputs.budget]
    check = rate_check("noisy_gd_theorem_9_rate", "Theorem 9", -2.0, sz["grid"], sz["rate_runs"], _alg4_excess,
                       inputs.seed, kind="upper", bounds=lambda n: theorem_9_bound(int(n), 1, RHO, BETA, L0, LT),
                       value_range=(0.0, L0 ** 2 / LT), bound_constant=1.0, tolerance=0.5)
    d = check.to_dict()
    d["statement"] = "E[F̃(w̄) − F̃(w*)] ≤ L_0²d log(n² log²(2/β)/(dβ))/(L̃_1 n²ρ) at every grid n (Theorem 9, c = 1)"
    d["verdict"] = None
    return {"record": {"rho": RHO, "beta": BETA}, "checks": {"noisy_gd_theorem_9_rate": d}, "audits": {}}


def proximal_point_privacy(inputs: SuiteInputs) -> dict[str, Any]:
    """Exact worst-pair zCDP of Algorithm 2, its count, and the data-dependent-F_0 bug's schedule leak."""
    n = SIZES[inputs.budget]["n"]
    S, S2 = _pair(n)
    S3 = S.copy()
    S3[-1, 0] = 3.0
    rngs = [np.random.default_rng(s) for s in inputs.seed.spawn(4)]
    args = (np.zeros(1), 1.0, BETA, L0, LT, 1.0, 1.0, 3.0)
    kw = dict(inner_steps=3, replicates=2, white_box=True)
    rel = proximal_point(S, _linear, *args, rngs[0], **kw)
    rel2 = proximal_point(S2, _linear, *args, rngs[1], **kw)
    b1 = proximal_point_data_dependent_f0(S, _linear, *args, rngs[2], **kw)
    b2 = proximal_point_data_dependent_f0(S3, _linear, *args, rngs[3], **kw)
    rho = _worst_pair_rho(rel, n)
    T, T4 = rel.parameters["T"], rel.parameters["T4"]
    checks = {
        "proximal_point_exact_privacy": exact_check("proximal_point_exact_privacy", "exact worst-pair ρ of the run ≤ "
                                               "claimed ρ (Theorem 2 with Algorithm 4 inside; deterministic)",
                                               rho <= rel.claim.rho * (1 + 1e-9), rho, rel.claim.rho),
        "proximal_point_schedule": exact_check("proximal_point_schedule", "outer T equal on neighbours (public schedule)"
                                          "; the data-dependent-F_0 bug's T differs (transcript lengths differ)",
                                          T == rel2.parameters["T"] and b1.parameters["T"] != b2.parameters["T"],
                                          abs(b1.parameters["T"] - b2.parameters["T"]), 0.0),
        "proximal_point_count": exact_check("proximal_point_count", "gradient evaluations = T(T_4 − 1)n (exact)",
                                       rel.gradient_evaluations == T * (T4 - 1) * n, rel.gradient_evaluations,
                                       T * (T4 - 1) * n)}
    return {"record": {"n": n, "T": T, "T4": T4, "rho_measured": rho}, "checks": checks, "audits": {}}


def _costs() -> dict[str, BudgetCost]:
    return {b: BudgetCost(audit_runs=0, replicates=1, rate_runs=max(2, sz["rate_runs"]), stability_runs=1)
            for b, sz in SIZES.items()}


_AUDIT_NOTE = ("no black-box audit runs: a composition of Gaussian steps, decided exactly on the worst-case "
               "replace-one pair from the run's own white-box trace")

ENTRIES: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name="muabg23.proximal_point", title="Private proximal point method (κ ≥ 2)", paper=PAPER,
        algorithm_ref="Algorithm 2 (reconstructed), Algorithm 4 as inner solver",
        privacy_theorem="Theorem 2 (ρ-zCDP; exact calibration by default)",
        utility_theorem="Theorem 2 (rate not checked in the suite: T·T_4 grows as n²)", run=proximal_point,
        costs=_costs(), planted_bugs=("proximal_point_data_dependent_f0",), rate_exponent=None,
        notes="Inner calls clip per-sample subgradients at L_0; the schedule depends on public inputs only.",
        audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(SuiteTask("privacy", proximal_point_privacy, 1.0),),
                         description="exact worst-pair zCDP from the trace; schedule on neighbours; exact count")),
    CatalogueEntry(
        name="muabg23.noisy_gd", title="Noisy projected GD on the regularised problem", paper=PAPER,
        algorithm_ref="Algorithm 4 (reconstructed)", privacy_theorem="Theorem 9 (ρ-zCDP; exact calibration by "
        "default, printed σ spends (T−1)ρ/(2T))", utility_theorem="Theorem 9, eq. (17)", run=noisy_regularised_gd,
        costs=_costs(), planted_bugs=("noisy_gd_paper_accounting", "noisy_gd_one_step_more"), rate_exponent=None,
        notes="Per-sample clipping at L_0 (no-op under the paper's assumption).", audit_note=_AUDIT_NOTE,
        suite=EntrySuite(tasks=(SuiteTask("privacy", noisy_gd_privacy, 1.0), SuiteTask("rate", noisy_gd_rate, 3.0)),
                         description="exact worst-pair zCDP (both calibrations, two planted bugs); Theorem 9 at "
                                     "every grid n with slope")),
)
