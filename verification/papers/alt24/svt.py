"""Catalogue entries of Asi, Liu & Tian (2024), Section 5.1: the bounded Laplace mechanism (Lemma 9,
``alt24.blap``) and SVT with bounded Laplace noise (Algorithm 6, Lemma 10, ``alt24.svt``).

Each entry runs its own suite (``EntrySuite``): exact privacy curves on the worst-case pairs against the
claims (exact piecewise integration for Lemma 9; every answer sequence of Algorithm 6 for T ≤ 3), a black-box
audit on a fixed event chosen from the public parameters (all runs are test runs; p-value from the counts),
and the deterministic noise envelopes |ξ| ≤ τ that Algorithm 7 relies on.  The planted bugs of
``dpsco.verification.mutants.alt24.svt`` are refuted by these same checks (tests/alt24/test_alt24_svt.py).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpsco.reference.alt24.algorithms_svt import (bounded_laplace_delta, bounded_laplace_epsilon, bounded_laplace_mechanism,
                                       discrete_delta, discrete_epsilon, lemma_9_tau, lemma_10_parameters,
                                       private_sparse_vector, sparse_vector_answer_law,
                                       svt_output_distribution)
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.events import Event
from dpsco.verification.auditing.family import p_value_of_counts
from dpsco.verification.papers.registry import BudgetCost, CatalogueEntry, EntrySuite, SuiteInputs, SuiteTask
from dpsco.verification.checks.stats import exact_check

__all__ = ["BLAP_INSTANCE", "ENTRIES", "SVT_INSTANCE", "BlapMechanism", "SvtMechanism", "blap_audit",
           "blap_envelope", "blap_exact", "svt_audit", "svt_envelope", "svt_exact", "svt_event_statistic"]

PAPER = "Asi, Liu & Tian (2024)"
#: Lemma 9 audit instance: S(D) = Σ records ∈ [0, 1] (Δ = 1), D all zeros, D' one record 1
BLAP_INSTANCE = {"epsilon": 0.5, "delta": 1e-3, "sensitivity": 1.0, "n": 4}
#: Algorithm 6 audit instance: q_i(D) = Σ_records x_{·,i} (Δ = 1), L = 0, c = 1, T = 3; the records (0,1,0)
#: and (1,0,1) give the streams (0, 1, 0) and (1, 0, 1): every query moved by Δ
SVT_INSTANCE = {"epsilon": 0.9, "delta": 0.01, "sensitivity": 1.0, "c": 1, "L": 0.0}
SVT_EVENT = (0.0, 1.0, -1.0)  # ⊥⊤ then halted

#: runs per side of the black-box audits, noise draws of the envelope checks
SIZES = {"quick": {"bb": 4000, "env": 20000}, "standard": {"bb": 20000, "env": 200000},
         "paper": {"bb": 200000, "env": 2000000}}


def _sizes(inputs: SuiteInputs) -> dict[str, int]:
    return SIZES.get(inputs.budget, SIZES["standard"])


def _fixed_event_audit(mech: Any, D: dict, Dp: dict, claim: Any, runs: int, event: Event, statistic: Any,
                       inputs: SuiteInputs, seed: np.random.SeedSequence) -> dict[str, Any]:
    res = audit(mech, D, Dp, claim, runs, np.random.default_rng(seed), confidence=inputs.confidence, event=event,
                statistic=statistic, power_family=None)
    rec = res.to_dict()
    d = rec.get("details") or {}
    try:
        p = p_value_of_counts(int(d["numerator_count"]), int(d["n_test"]), int(d["denominator_count"]),
                              int(d["n_test"]), float(claim.epsilon), float(claim.delta))
    except (KeyError, TypeError, ValueError):
        p = 1.0
    rec["p_value"] = float(p)
    return rec


# ---- Lemma 9 ----------------------------------------------------------------------------------------------

class BlapMechanism:
    """S(D) + BLap: ``run(value, sensitivity, epsilon, delta, rng)`` on S(D) = Σ data["s"] (records in [0, 1])."""

    def __init__(self, run: Any = bounded_laplace_mechanism, **kw: Any) -> None:
        self.run, self.kw = run, kw

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        k = {"epsilon": BLAP_INSTANCE["epsilon"], "delta": BLAP_INSTANCE["delta"], **self.kw}
        return np.asarray(self.run(float(np.sum(data["s"])), BLAP_INSTANCE["sensitivity"], k["epsilon"],
                                   k["delta"], rng).output)


def blap_pair() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    D = np.zeros(BLAP_INSTANCE["n"])
    Dp = D.copy()
    Dp[-1] = 1.0
    return {"s": D}, {"s": Dp}


def blap_event() -> Event:
    """{output ≤ Δ − Δ log(4/δ)}: fixed from public parameters (the support edge a τ without 1/ε would leave)."""
    s, delta = BLAP_INSTANCE["sensitivity"], BLAP_INSTANCE["delta"]
    return Event(threshold=s - s * math.log(4.0 / delta), tail="le", numerator="dataset")


def blap_exact(inputs: SuiteInputs) -> dict[str, Any]:
    """Exact privacy curve of the Lemma 9 mechanism as implemented (R = Δ/ε, τ = (Δ/ε) log(4/δ)) on the pair
    at distance Δ, at a grid of (ε, δ): δ(ε) ≤ δ; the exact ε at δ recorded."""
    checks, rows = {}, []
    for eps in (0.1, 0.5, 0.9):
        for delta in (1e-6, 1e-3, 0.1):
            R, tau = 1.0 / eps, lemma_9_tau(1.0, eps, delta)
            d_exact = bounded_laplace_delta(eps, 1.0, R, tau)
            rows.append({"epsilon": eps, "delta": delta, "tau": tau, "delta_exact": d_exact,
                         "epsilon_exact": bounded_laplace_epsilon(delta, 1.0, R, tau)})
            checks[f"blap_exact_e{eps}_d{delta:g}"] = exact_check(
                f"Lemma 9: exact δ(ε) ≤ δ at ε = {eps}, δ = {delta:g}",
                "Lemma 9: S + BLap(Δ/ε, (Δ/ε)log(4/δ)) is (ε, δ)-DP", d_exact <= delta, d_exact, delta)
    eps, delta = BLAP_INSTANCE["epsilon"], BLAP_INSTANCE["delta"]
    d_bug = bounded_laplace_delta(eps, 1.0, 1.0 / eps, math.log(4.0 / delta))
    return {"record": {"grid": rows, "mutant_tau_without_epsilon_delta_exact": d_bug}, "checks": checks,
            "audits": {}}


def blap_audit(inputs: SuiteInputs) -> dict[str, Any]:
    """Black-box audit of Lemma 9's claim (ε = 0.5, δ = 1e-3) on S(D) = 0 vs S(D') = 1 with the fixed event
    {output ≤ Δ − Δ log(4/δ)} (Clopper–Pearson, all runs test runs)."""
    seed, = inputs.seed.spawn(1)
    D, Dp = blap_pair()
    claim = bounded_laplace_mechanism(0.0, 1.0, BLAP_INSTANCE["epsilon"], BLAP_INSTANCE["delta"],
                                      np.random.default_rng(0)).claim
    rec = _fixed_event_audit(BlapMechanism(), D, Dp, claim, _sizes(inputs)["bb"], blap_event(), "projection",
                             inputs, seed)
    return {"record": {"instance": BLAP_INSTANCE, "event_threshold": blap_event().threshold}, "checks": {},
            "audits": {"blap_black_box": rec}}


def blap_envelope(inputs: SuiteInputs) -> dict[str, Any]:
    """Every noise draw of the mechanism lies in [−τ, τ] (deterministic: the support of BLap; Algorithm 7's
    Lemma 11 needs it on every draw)."""
    seed, = inputs.seed.spawn(1)
    rng = np.random.default_rng(seed)
    eps, delta = BLAP_INSTANCE["epsilon"], BLAP_INSTANCE["delta"]
    n = _sizes(inputs)["env"] // 20
    noise = np.array([bounded_laplace_mechanism(0.0, 1.0, eps, delta, rng).output[0] for _ in range(n)])
    tau = lemma_9_tau(1.0, eps, delta)
    worst = float(np.max(np.abs(noise)))
    return {"record": {"draws": n, "max_abs_noise": worst, "tau": tau},
            "checks": {"blap_envelope": exact_check("Lemma 9: every noise draw satisfies |ξ| ≤ τ",
                                               "BLap(R, τ) is supported on [−τ, τ] (Section 5)", worst <= tau,
                                               worst, tau)}, "audits": {}}


# ---- Algorithm 6 ------------------------------------------------------------------------------------------

def svt_event_statistic(X: np.ndarray) -> np.ndarray:
    """1 where the answer sequence is ⊥⊤ (then halted), else 0: the event of the no-query-noise refutation."""
    return np.all(np.asarray(X, dtype=np.float64) == np.array(SVT_EVENT), axis=1).astype(np.float64)


class SvtMechanism:
    """Algorithm 6 on q_i(D) = Σ_records data["x"][:, i] (records in [0, 1]^T: Δ = 1) at SVT_INSTANCE."""

    def __init__(self, run: Any = private_sparse_vector) -> None:
        self.run = run

    def __call__(self, data: Any, rng: np.random.Generator) -> np.ndarray:
        q = np.sum(np.asarray(data["x"], dtype=np.float64), axis=0)
        i = SVT_INSTANCE
        return np.asarray(self.run(q, i["sensitivity"], i["c"], i["L"], i["epsilon"], i["delta"], rng).output)


def svt_pair() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    D = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    Dp = np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    return {"x": D}, {"x": Dp}


#: indices of SVT_STREAMS whose pair is monotone (every query moved the same way) or a single query: there no copy
#: with a wrong noise structure or scale short of a ~30× under-noising moves δ(ε) (svt_exact states it per check)
_BENIGN_STREAMS = (0, 1, 4)

#: adversarial stream pairs (D, D') of the exact check: all queries at the threshold, moved by ±Δ, and mixed
SVT_STREAMS = (((0.0, 0.0, 0.0), (1.0, 1.0, 1.0)), ((0.0, 0.0, 0.0), (-1.0, -1.0, -1.0)),
               ((0.0, 1.0, 0.0), (1.0, 0.0, 1.0)), ((1.0, 0.0, 0.0), (0.0, 1.0, 1.0)), ((0.0,), (1.0,)))


def _benign_stream_reason(a: Any, b: Any, c: int, eps: float, delta: float) -> str | None:
    """Why the exact check on the stream pair (a, b) cannot fail on the planted noise bugs of Algorithm 6: its δ(ε)
    stays ≤ δ both without the query noise (the classic broken SVT, which the mixed pairs refute) and at the
    textbook scale R = Δ/ε, τ = R log(10T/δ) (Lemma 10's factor 6√(c log(5/δ)) dropped, which the mixed pairs
    refute at c = 2); None when either copy fails here."""
    p = lemma_10_parameters(1.0, c, len(a), eps, delta)
    no_query = discrete_delta(eps, sparse_vector_answer_law(a, c, 0.0, p["R"], p["tau"], 0.0, 0.0),
                              sparse_vector_answer_law(b, c, 0.0, p["R"], p["tau"], 0.0, 0.0))
    R = 1.0 / eps
    tau = R * math.log(10.0 * len(a) / delta)
    classic = discrete_delta(eps, svt_output_distribution(a, c, 0.0, R, tau),
                             svt_output_distribution(b, c, 0.0, R, tau))
    if max(no_query, classic) > delta:
        return None
    return (f"cannot fail on the planted noise bugs: on this monotone or single-query pair δ(ε) stays ≤ δ = "
            f"{delta:g} without the query noise ({no_query:.3g}) and at the textbook scale R = Δ/ε ({classic:.3g}), "
            "both of which the mixed pairs refute")


def svt_exact(inputs: SuiteInputs) -> dict[str, Any]:
    """Exact δ(ε) of Algorithm 6 as implemented (Lemma 10's R, τ) on adversarial streams with T ≤ 3, c ∈ {1, 2},
    at (ε, δ) ∈ {(0.9, 0.01), (0.5, 1e-3)}: every answer sequence enumerated, δ(ε) ≤ δ; exact ε recorded."""
    checks, rows = {}, []
    for eps, delta in ((0.9, 0.01), (0.5, 1e-3)):
        for c in (1, 2):
            for j, (a, b) in enumerate(SVT_STREAMS):
                p = lemma_10_parameters(1.0, c, len(a), eps, delta)
                P = svt_output_distribution(a, c, 0.0, p["R"], p["tau"])
                Q = svt_output_distribution(b, c, 0.0, p["R"], p["tau"])
                d_exact = discrete_delta(eps, P, Q)
                rows.append({"epsilon": eps, "delta": delta, "c": c, "stream": list(a), "neighbour": list(b),
                             "delta_exact": d_exact, "epsilon_exact_at_delta": discrete_epsilon(delta, P, Q)})
                checks[f"svt_exact_e{eps}_c{c}_s{j}"] = exact_check(
                    f"Lemma 10: exact δ(ε) ≤ δ, ε = {eps}, δ = {delta:g}, c = {c}, streams {a} / {b}",
                    "Lemma 10: Algorithm 6 with R ≥ (6Δ/ε)√(c log(5/δ)), τ ≥ R log(10T/δ) is (ε, δ)-DP",
                    d_exact <= delta, d_exact, delta)
                if j in _BENIGN_STREAMS:
                    why = _benign_stream_reason(a, b, c, eps, delta)
                    if why is not None:
                        checks[f"svt_exact_e{eps}_c{c}_s{j}"]["uninformative_at_inputs"] = why
    return {"record": {"rows": rows}, "checks": checks, "audits": {}}


def svt_audit(inputs: SuiteInputs) -> dict[str, Any]:
    """Black-box audit of Lemma 10's claim (ε = 0.9, δ = 0.01, c = 1, T = 3) on the streams (0, 1, 0) /
    (1, 0, 1) with the fixed event "⊥⊤" (the answer sequence is the output)."""
    seed, = inputs.seed.spawn(1)
    D, Dp = svt_pair()
    i = SVT_INSTANCE
    claim = private_sparse_vector([0.0, 0.0, 0.0], i["sensitivity"], i["c"], i["L"], i["epsilon"], i["delta"],
                                  np.random.default_rng(0)).claim
    rec = _fixed_event_audit(SvtMechanism(), D, Dp, claim, _sizes(inputs)["bb"],
                             Event(threshold=0.5, tail="ge", numerator="dataset"), svt_event_statistic, inputs, seed)
    return {"record": {"instance": SVT_INSTANCE, "event": list(SVT_EVENT)}, "checks": {},
            "audits": {"svt_black_box": rec}}


def svt_envelope(inputs: SuiteInputs) -> dict[str, Any]:
    """Every threshold draw |z| ≤ τ and query draw |ξ| ≤ 2τ, and at most c answers ⊤ (deterministic)."""
    seed, = inputs.seed.spawn(1)
    rng = np.random.default_rng(seed)
    i = SVT_INSTANCE
    q = np.zeros(3)
    p = lemma_10_parameters(1.0, i["c"], 3, i["epsilon"], i["delta"])
    worst_z = worst_x = 0.0
    max_tops = 0
    runs = _sizes(inputs)["env"] // 20
    for _ in range(runs):
        rel = private_sparse_vector(q, 1.0, i["c"], i["L"], i["epsilon"], i["delta"], rng)
        worst_z = max(worst_z, max(abs(z) for z in rel.nonprivate_internals["threshold_noise"]))
        worst_x = max(worst_x, max(abs(x) for x in rel.nonprivate_internals["query_noise"]))
        max_tops = max(max_tops, int(np.sum(rel.output == 1.0)))
    ok = worst_z <= p["tau"] and worst_x <= 2 * p["tau"]
    return {"record": {"runs": runs, "max_abs_threshold_noise": worst_z, "max_abs_query_noise": worst_x,
                       "tau": p["tau"], "max_answers_top": max_tops},
            "checks": {"svt_envelope": exact_check("Algorithm 6: |threshold noise| ≤ τ and |query noise| ≤ 2τ on every draw",
                                              "BLap(R, τ), BLap(2R, 2τ) supports (Lines 3, 5, 14)", ok,
                                              max(worst_z / p["tau"], worst_x / (2 * p["tau"])), 1.0),
                       "svt_halting": exact_check("Algorithm 6: at most c answers ⊤", "Line 4: halt once count = c",
                                             max_tops <= i["c"], max_tops, i["c"])}, "audits": {}}


def _costs(runs: dict[str, int]) -> dict[str, BudgetCost]:
    return {b: BudgetCost(audit_runs=runs[b], replicates=1, rate_runs=2, stability_runs=1) for b in SIZES}


ENTRIES: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        name="alt24.blap", title="Bounded Laplace mechanism", paper=PAPER, algorithm_ref="Section 5.1 (BLap)",
        privacy_theorem="Lemma 9 ((ε, δ)-DP, ε, δ ∈ (0, 1))", utility_theorem="(none: a primitive of Algorithm 7)",
        run=bounded_laplace_mechanism, costs=_costs({b: SIZES[b]["bb"] for b in SIZES}),
        planted_bugs=("bounded_laplace_tau_without_epsilon", "bounded_laplace_tau_without_log",
                      "bounded_laplace_doubled_parameters"),
        notes="τ = (Δ/ε) log(4/δ); ε ≥ 1 or a shorter τ refused unless unsafe_tau (then the claim is void)",
        suite=EntrySuite(tasks=(SuiteTask("exact", blap_exact, 0.2), SuiteTask("audit", blap_audit, 1.0),
                                SuiteTask("envelope", blap_envelope, 0.5)),
                         description="exact privacy curve (piecewise integration) ≤ δ on a grid; black-box audit "
                                     "on the support-edge event; noise envelope |ξ| ≤ τ")),
    CatalogueEntry(
        name="alt24.svt", title="SVT with bounded Laplace noise", paper=PAPER, algorithm_ref="Algorithm 6",
        privacy_theorem="Lemma 10 ((ε, δ)-DP, ε, δ ∈ (0, 1))", utility_theorem="(none: a primitive of Algorithm 7)",
        run=private_sparse_vector, costs=_costs({b: SIZES[b]["bb"] for b in SIZES}),
        planted_bugs=("sparse_vector_without_query_noise", "sparse_vector_plain_laplace",
                      "sparse_vector_halts_one_top_late"),
        notes="Lemma 10's R = (6Δ/ε)√(c log(5/δ)), τ = R log(10T/δ); output (T,) in {1 ⊤, 0 ⊥, −1 halted}",
        suite=EntrySuite(tasks=(SuiteTask("exact", svt_exact, 0.5), SuiteTask("audit", svt_audit, 1.0),
                                SuiteTask("envelope", svt_envelope, 0.5)),
                         description="exact δ(ε) over every answer sequence on adversarial streams (T ≤ 3) ≤ δ; "
                                     "black-box audit on the event ⊥⊤; noise envelopes and halting")),
)
