"""dpsco verify: run every catalogued algorithm with its privacy audit and checks of the papers' claims.

For each algorithm of the catalogue:

1. **privacy audit** on real data: statsmodels' Fair (1978) survey (n = 6366, d = 9, logistic loss,
   features scaled by their public codebook ranges), against a replace-one neighbour that swaps the last
   record for an extreme point of the declared data domain; black-box threshold audit (Clopper–Pearson) of
   the released parameter vector: ε_lb vs the claimed ε;
2. **excess empirical risk** on the real data against the certified oracle (min over W of the empirical
   loss), against the theorem's bound on its expectation;
3. **excess population risk** on a synthetic instance whose population minimiser the oracle knows, against
   the theorem's bound;
4. **rate**: the theorem's bound at every point of a grid of n (for A_NSGD also of d and ε, spec T-3.2d),
   with the fitted log–log slope reported next to the theorem's exponent; for A_NSGD the slope itself is
   tested on the hand-derived tight 1/√n instance of spec T-3.2c;
5. **uniform stability**: coupled runs on neighbouring datasets against the stability bound the proof uses;
6. **gradient evaluations** counted, against the paper's claim.

Checks 2–5 are one-sided tests of hypotheses implied by the theorems (dpsco.verification.checks.theorem_checks); their
family-wise false-failure probability is ``--alpha`` (Holm).  Audits "refute" only if ε_lb > ε (probability
≤ 1 − ``--confidence`` each for a correct implementation).  A pass never proves privacy or the theorem; each
record states the power of its check.  Every random stream is spawned from one recorded ``SeedSequence``.
``--from results.json`` regenerates the reports without recomputing (the file is checked first: a missing or
mistyped key is a one-line error, exit 2).

Output: ``--out DIR`` is checked before anything is computed (exit 2 if it cannot be created or replaced).
results.json and the reports are then written as one set: built in a temporary directory next to DIR and
swapped in, so DIR never mixes files of two runs.  An existing DIR is replaced only if it holds nothing but
files verify writes (results.json, report.md, report.html, tables.tex); anything else is refused.  If the
set cannot be written at the end, results.json is saved elsewhere and the message says where.

Exit status: 0 if no check failed and no audit refuted a claim, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss
from dpsco.reference.bftt19 import noisy_sgd, theorem_3_2_bound
from dpsco.reference.privacy import PrivacyClaim, to_jsonable

from dpsco.verification.auditing.audit import audit
from dpsco.verification.papers.catalogue import CATALOGUE, CatalogueEntry, run_outputs
from dpsco.verification.papers.objectives import objective_range
from dpsco.verification.campaign.datasets import load_fair
from dpsco.verification.auditing.estimators import choose_estimator
from dpsco.verification.campaign.fileio import OutputError, atomic_write_text, check_output_directory, staged_directory
from dpsco.verification.auditing.neighbours import extreme_points, replace_one_extreme
from dpsco.verification.campaign.report import check_results, format_html, format_latex, format_markdown, format_table
from dpsco.verification.checks.stats import add_reference_bound, mean_bound_check
from dpsco.verification.checks.theorem_checks import StabilityCheck, apply_holm, rate_check, stability_check

__all__ = ["Budget", "BUDGETS", "REPORT_FILES", "configure_parser", "run", "run_verification", "write_reports"]

DEFAULT_SEED = 20191208  # NeurIPS 2019 opening day; any fixed integer would do — it is recorded
CAMPAIGN_ALPHA = 1e-3
RADIUS = 2.0  # M of the real-data problem (public, chosen before looking at the data)
AUDIT_CONFIDENCE = 0.95


@dataclass(frozen=True)
class Budget:
    """Sample sizes of a campaign.  ``audit_samples`` is per side; 0 for an algorithm skips its audit."""

    name: str
    audit_samples: dict[str, int]
    replicates: dict[str, int]
    synthetic_n: int
    synthetic_d: int
    rate_grid: tuple[int, ...]
    rate_replicates: int
    stability_replicates: int
    alpha_display: float = 1e-3  # level of the per-check confidence intervals shown in reports
    population_replicates: dict[str, int] | None = None  # per-entry override of ``replicates`` (fresh datasets)
    entry_rate_replicates: dict[str, int] | None = None  # per-entry override of ``rate_replicates``
    entry_stability_replicates: dict[str, int] | None = None  # per-entry override of ``stability_replicates``
    # single runs that check an entry's batched sample() before its audit uses it (dpsco.verification.auditing.audit;
    # None: the auditor's default, 0: no check, recorded in the audit result as trusted unchecked)
    sample_check_runs: int | None = None

    def population_runs(self, name: str) -> int:
        return (self.population_replicates or {}).get(name, self.replicates[name])

    def rate_runs(self, name: str) -> int:
        return (self.entry_rate_replicates or {}).get(name, self.rate_replicates)

    def stability_runs(self, name: str) -> int:
        """Coupled runs per neighbouring pair; costly algorithms get fewer (at most their replicates)."""
        cap = (self.entry_stability_replicates or {}).get(name, self.stability_replicates)
        return min(cap, self.replicates[name])


BUDGETS = {
    "quick": Budget(
        name="quick",
        audit_samples={"bftt19.nsgd": 600, "bftt19.moreau_nsgd": 400, "bftt19.proxgd": 60,
                       "bftt19.objp": 200, "bftt19.efficient_objp": 100, "lr21.alg1": 2000, "lr21.alg2": 2000,
                       "lr21.tilted": 2000, "lr21.robust": 2000, "lr21.alg3": 2000, "lr21.alg1.subgradient": 2000,
                       "lr21.alg1.sgd": 0, "lr21.alg1.katyusha": 0, "lr21.robust_squared": 2000},
        replicates={"bftt19.nsgd": 20, "bftt19.moreau_nsgd": 20, "bftt19.proxgd": 5, "bftt19.objp": 20,
                    "bftt19.efficient_objp": 10, "lr21.alg1": 20, "lr21.alg2": 20, "lr21.tilted": 20,
                    "lr21.robust": 20, "lr21.alg3": 20, "lr21.alg1.subgradient": 20, "lr21.alg1.sgd": 6,
                    "lr21.alg1.katyusha": 2, "lr21.robust_squared": 20},
        synthetic_n=1000, synthetic_d=5, rate_grid=(250, 500, 1000), rate_replicates=6, stability_replicates=20,
        population_replicates={"lr21.alg3": 6, "lr21.alg1.subgradient": 6},
        entry_rate_replicates={"bftt19.proxgd": 3, "lr21.alg3": 3, "lr21.alg1.subgradient": 3, "lr21.alg1.sgd": 3,
                               "lr21.alg1.katyusha": 2},
        # the quick budget is a smoke run: the check of the catalogue's batched sample() against single runs
        # (up to 2 minutes, mostly lr21.alg3's 7 s runs) is left to the standard and paper budgets
        sample_check_runs=0,
    ),
    "standard": Budget(
        name="standard",
        audit_samples={"bftt19.nsgd": 8000, "bftt19.moreau_nsgd": 3000, "bftt19.proxgd": 150,
                       "bftt19.objp": 4000, "bftt19.efficient_objp": 600, "lr21.alg1": 20000, "lr21.alg2": 20000,
                       "lr21.tilted": 20000, "lr21.robust": 20000, "lr21.alg3": 20000,
                       "lr21.alg1.subgradient": 20000, "lr21.alg1.sgd": 0, "lr21.alg1.katyusha": 0,
                       "lr21.robust_squared": 20000},
        replicates={"bftt19.nsgd": 200, "bftt19.moreau_nsgd": 200, "bftt19.proxgd": 20, "bftt19.objp": 200,
                    "bftt19.efficient_objp": 100, "lr21.alg1": 200, "lr21.alg2": 200, "lr21.tilted": 200,
                    "lr21.robust": 200, "lr21.alg3": 200, "lr21.alg1.subgradient": 200, "lr21.alg1.sgd": 40,
                    "lr21.alg1.katyusha": 6, "lr21.robust_squared": 200},
        synthetic_n=4000, synthetic_d=5, rate_grid=(250, 500, 1000, 2000, 4000), rate_replicates=20,
        stability_replicates=100,
        population_replicates={"lr21.alg3": 40, "lr21.alg1.subgradient": 12, "lr21.alg1.katyusha": 4},
        entry_rate_replicates={"bftt19.proxgd": 4, "lr21.alg3": 10, "lr21.alg1.subgradient": 4, "lr21.alg1.sgd": 6,
                               "lr21.alg1.katyusha": 2},
        entry_stability_replicates={"lr21.alg1.sgd": 10, "lr21.alg1.katyusha": 2},
        # the check of the catalogue's batched sample() against single runs is left to the paper budget: with
        # fewer audit runs than the check's reference runs (ProxGD: 150) the auditor would drop sample() and
        # run every run alone (ProxGD's audit then takes over 15 minutes instead of seconds)
        sample_check_runs=0,
    ),
    "paper": Budget(
        name="paper",
        audit_samples={"bftt19.nsgd": 100000, "bftt19.moreau_nsgd": 40000, "bftt19.proxgd": 1000,
                       "bftt19.objp": 40000, "bftt19.efficient_objp": 10000, "lr21.alg1": 200000,
                       "lr21.alg2": 200000, "lr21.tilted": 200000, "lr21.robust": 200000, "lr21.alg3": 200000,
                       "lr21.alg1.subgradient": 200000, "lr21.alg1.sgd": 2000, "lr21.alg1.katyusha": 500,
                       "lr21.robust_squared": 200000},
        replicates={"bftt19.nsgd": 1000, "bftt19.moreau_nsgd": 1000, "bftt19.proxgd": 100, "bftt19.objp": 1000,
                    "bftt19.efficient_objp": 500, "lr21.alg1": 1000, "lr21.alg2": 1000, "lr21.tilted": 1000,
                    "lr21.robust": 1000, "lr21.alg3": 1000, "lr21.alg1.subgradient": 1000, "lr21.alg1.sgd": 300,
                    "lr21.alg1.katyusha": 50, "lr21.robust_squared": 1000},
        synthetic_n=8000, synthetic_d=5, rate_grid=(250, 500, 1000, 2000, 4000, 8000, 16000), rate_replicates=100,
        stability_replicates=1000,
        population_replicates={"lr21.alg3": 200, "lr21.alg1.subgradient": 100, "lr21.alg1.katyusha": 30},
        entry_rate_replicates={"bftt19.proxgd": 30, "lr21.alg3": 50, "lr21.alg1.subgradient": 30, "lr21.alg1.sgd": 50,
                               "lr21.alg1.katyusha": 10},
        entry_stability_replicates={"lr21.alg1.sgd": 100, "lr21.alg1.katyusha": 20},
    ),
}


def _progress(msg: str, quiet: bool) -> None:
    if not quiet:
        print(f"[dpsco verify {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def _real_problem(entry: CatalogueEntry, X: np.ndarray) -> ERMProblem:
    return ERMProblem(get_loss("logistic"), Ball(RADIUS), DataBounds(1.0, 1.0))


class _AlgorithmMechanism:
    """Adapter: the catalogue entry as a mechanism ``f(data, rng)`` with batched ``sample``."""

    def __init__(self, entry: CatalogueEntry, problem: ERMProblem, epsilon: float, delta: float,
                 options: dict[str, Any]):
        self.entry, self.problem, self.epsilon, self.delta, self.options = entry, problem, epsilon, delta, options

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return self.entry.run(data["X"], data["y"], self.problem, self.epsilon, self.delta, rng,
                              **self.options).output

    def sample(self, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        # output perturbation with a deterministic inner step: one optimisation gives any number of outputs
        chunk = 500 if self.entry.name == "bftt19.proxgd" else 20000 if self.entry.name.startswith("lr21.") else 2000
        out, _ = run_outputs(self.entry, data["X"], data["y"], self.problem, self.epsilon, self.delta, rng, n,
                             self.options, chunk=chunk)
        return out


def synthetic_instance(loss_name: str, d: int, rng: np.random.Generator) -> tuple[str, Any]:
    """The synthetic distribution with a certified population minimiser used for ``loss_name``.

    logistic: D1 (finite support, well-specified logistic model, spec §7.2); hinge: D5 (finite support).
    ``rng`` draws the atoms and w⋆ (once per campaign).
    """
    from dpsco.oracles.population import d1_logistic, d5_hinge

    if loss_name == "logistic":
        return "D1 logistic (200 atoms)", d1_logistic(d, rng=rng)
    if loss_name == "hinge":
        return "D5 hinge (200 atoms)", d5_hinge(d, rng=rng)
    raise ValueError(f"no synthetic instance for loss {loss_name!r}")


def _excess_samples(entry: CatalogueEntry, X: np.ndarray, y: np.ndarray, problem: ERMProblem, eps: float,
                    delta: float, rng: np.random.Generator, R: int, options: dict[str, Any],
                    value: Callable[[np.ndarray], float], reference_value: float) -> tuple[np.ndarray, Any]:
    outs, release = run_outputs(entry, X, y, problem, eps, delta, rng, R, options)
    values = np.array([value(w) for w in outs])
    return values - reference_value, release


def _lipschitz(release: Any) -> float:
    """The Lipschitz constant a release was calibrated with (claim assumptions, else its parameters' L)."""
    a = release.claim.assumptions
    return float(a["lipschitz"]) if "lipschitz" in a else float(release.parameters["L"])


POOL_SIZE = 2000  # D = uniform on this many synthetic draws, for objectives without a closed-form population
SYN_OBJECTIVE_RADIUS = 2.0  # W = B(0, 2) and ‖w⋆‖ = 2 for the synthetic instance of the objective entries


@dataclass
class _Synthetic:
    """The synthetic side of one entry: a population draw (fresh S ~ Dⁿ, one run, exact excess population
    risk) when the entry's objective has a population form, else None; and an empirical draw (excess of the
    entry's objective on the drawn S against its certified minimum), used for rates without a population."""

    name: str
    info: dict[str, Any]
    radius: float  # M of the synthetic problem's W = B(0, M)
    population: Callable[[int, np.random.Generator], tuple[float, Any]] | None
    empirical: Callable[[int, np.random.Generator], tuple[float, Any]] | None
    cache: dict[str, Any]  # the pool objective and its certified minimum, once computed


def _population_draw(entry: CatalogueEntry, inst: Any, options: dict[str, Any], eps: float
                     ) -> Callable[[int, np.random.Generator], tuple[float, Any]]:
    """One replicate of the population check: a fresh S ~ D^n, one run, its exact excess population risk."""
    sprob = ERMProblem(get_loss(entry.synthetic_loss), inst.domain, inst.bounds)

    def draw(n: int, rng: np.random.Generator) -> tuple[float, Any]:
        Xs, ys = inst.sample(n, rng)
        rel = entry.run(Xs, ys, sprob, eps, 1.0 / n**2, rng, **options)
        return max(float(inst.excess_population_risk(rel.output)), 0.0), rel

    return draw


def _synthetic(entry: CatalogueEntry, d: int, rng: np.random.Generator, options: dict[str, Any], eps: float
               ) -> _Synthetic:
    """The synthetic instance of ``entry``: D1/D5 with their exact population minimisers for the empirical
    logistic/hinge risk; for an entry with its own objective (dpsco.verification.papers.objectives), D = uniform on a pool of
    ``POOL_SIZE`` draws of D1, whose population objective is the objective on the pool (ERM form), certified
    by the same oracle; the tilted risk has no population form (``population`` is None)."""
    spec = entry.objective
    if spec is not None:
        # a stronger signal than D1's default ‖w⋆‖ = 1/2: with ρ = 0.1 (robust) or r = 0.05 (game) the robust
        # minimiser of the default instance is w = 0, the kink of G_D; here ‖E[yx]‖ ≈ 0.18 > ρ, r.
        from dpsco.oracles.population import d1_logistic

        u = rng.standard_normal(d)
        inst_name, inst = (f"D1 logistic (200 atoms, ‖w⋆‖ = {SYN_OBJECTIVE_RADIUS})",
                           d1_logistic(d, radius=SYN_OBJECTIVE_RADIUS, rng=rng,
                                       w_star=SYN_OBJECTIVE_RADIUS * u / np.linalg.norm(u)))
    else:
        inst_name, inst = synthetic_instance(entry.synthetic_loss, d, rng)
    if spec is None:
        return _Synthetic(inst_name, {"minimiser_accuracy": inst.minimiser().accuracy, "distribution": inst.to_dict()},
                          inst.domain.radius, _population_draw(entry, inst, options, eps), None, {})
    PX, Py = inst.sample(POOL_SIZE, rng)
    sprob = ERMProblem(get_loss(entry.synthetic_loss), inst.domain, inst.bounds)
    cache: dict[str, Any] = {}

    def run_on_sample(n: int, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray, Any]:
        idx = g.integers(0, POOL_SIZE, size=n)  # S ~ Dⁿ, D uniform on the pool
        rel = entry.run(PX[idx], Py[idx], sprob, eps, 1.0 / n**2, g, **options)
        return PX[idx], Py[idx], rel

    def population(n: int, g: np.random.Generator) -> tuple[float, Any]:
        _, _, rel = run_on_sample(n, g)
        if "oracle" not in cache:  # the objective's parameters (μ, τ, ρ, r, R) do not depend on n
            obj = spec.build(PX, Py, rel.parameters)
            cache["objective"], cache["oracle"] = obj, spec.minimum(obj)
        return max(cache["objective"].value(rel.output) - cache["oracle"].value, 0.0), rel

    def empirical(n: int, g: np.random.Generator) -> tuple[float, Any]:
        Xs, ys, rel = run_on_sample(n, g)
        obj = spec.build(Xs, ys, rel.parameters)
        return max(obj.value(rel.output) - spec.minimum(obj).value, 0.0), rel

    info = {"distribution": inst.to_dict(), "pool_size": POOL_SIZE, "objective": spec.name}
    return _Synthetic(f"{inst_name}: D = uniform on {POOL_SIZE} draws", info, inst.domain.radius,
                      population if spec.erm_form else None, empirical, cache)


def _tight_instance_draw(n: int, rng: np.random.Generator) -> float:
    """Spec T-3.2c: 1-D, W = [−1, 1], ℓ(w, z) = −zw, P[z = 1] = (1 + p)/2 with p = 1/√n, so
    L(w) = −pw, w* = M = 1 and the excess is p(1 − w).  A_NSGD attains, and cannot beat, the 1/√n rate."""
    from dpsco.reference import Ball as _Ball, LinearLoss

    p = 1.0 / math.sqrt(n)
    z = np.where(rng.random(n) < (1 + p) / 2, 1.0, -1.0)
    prob = ERMProblem(LinearLoss(), _Ball(1.0), DataBounds(1.0, 1.0))
    rel = noisy_sgd((-z)[:, None], np.zeros(n), prob, 1.0, 1.0 / n**2, rng)  # ℓ = ⟨w, x⟩ with x = −z
    return p * (1.0 - float(rel.output[0]))


def _fresh_rng(s: np.random.SeedSequence) -> np.random.Generator:
    """A generator from a fresh copy of ``s`` (same entropy and spawn key, no children spawned yet)."""
    return np.random.default_rng(np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key))


def _privacy_term_draw(n: int, d: int, epsilon: float, rng: np.random.Generator) -> float:
    """Spec T-3.2d: ℓ(w, z) = −⟨w, z⟩ with z = e₁ deterministic on W = B(0, 1) (population = empirical, w* = e₁),
    so the excess of A_NSGD's output is 1 − ⟨w̄, e₁⟩; in Theorem 3.2's privacy regime (4d log(1/δ) > ε²n) the
    bound is 10ML√(d log(1/δ))/(εn): the excess may grow at most like √d and like 1/ε."""
    from dpsco.reference import Ball as _Ball, LinearLoss

    X = np.zeros((n, d))
    X[:, 0] = -1.0  # ℓ = ⟨w, x⟩ with x = −e₁
    prob = ERMProblem(LinearLoss(), _Ball(1.0), DataBounds(1.0, 1.0))
    rel = noisy_sgd(X, np.zeros(n), prob, epsilon, 1.0 / n**2, rng)
    return 1.0 - float(rel.output[0])


CHECK_KEYS = ("empirical", "population", "rate", "tight_rate", "rate_d", "rate_eps", "stability")
PRIVACY_SWEEP_N = 4000
PRIVACY_SWEEP_D_GRID = (16, 64, 256, 1024)  # ε = 0.5: regime P for every d on the grid
PRIVACY_SWEEP_EPS_GRID = (0.125, 0.25, 0.5, 1.0)  # d = 64: regime P for every ε on the grid


def _stability(entry: CatalogueEntry, X: np.ndarray, y: np.ndarray, problem: ERMProblem, eps: float, delta: float,
               seed: np.random.SeedSequence, R: int, options: dict[str, Any]) -> StabilityCheck:
    """Coupled runs on neighbouring pairs (same seed ⇒ same batches and noise on both sides) and probe points
    at the extremes of the declared domain; the loss differences are tested against the entry's bound.  The
    loss is ℓ, or the per-sample loss f of the entry's objective (Lipschitz constant parameters["L"])."""
    n, d = X.shape
    bounds = problem.bounds
    probe_rng = np.random.default_rng(seed.spawn(1)[0])
    pairs = [replace_one_extreme(X, y, bounds, index=-1), replace_one_extreme(X, y, bounds, index=0, label=y[0])]
    Zx = np.vstack([extreme_points(bounds, d, 4, rng=probe_rng), X[[-1, 0]], pairs[0][0][-1:], pairs[1][0][:1]])
    Zy = np.concatenate([np.array([1.0, -1.0, 1.0, -1.0]), y[[-1, 0]], pairs[0][1][-1:], pairs[1][1][:1]])
    coupled, release = [], None
    for (Xn, yn), s in zip(pairs, seed.spawn(len(pairs))):
        # Coupling: each side gets a generator built from a *fresh copy* of the same SeedSequence.  (Reusing
        # one SeedSequence object would not couple: Generator.spawn advances that object's child counter.)
        out, release = run_outputs(entry, X, y, problem, eps, delta, _fresh_rng(s), R, options)
        out_n, _ = run_outputs(entry, Xn, yn, problem, eps, delta, _fresh_rng(s), R, options)
        coupled.append((out, out_n))
    assert release is not None
    spec = entry.objective
    if spec is None:
        def f(W: np.ndarray) -> np.ndarray:
            return problem.loss.phi(W @ Zx.T, Zy)
        L_f = problem.lipschitz
    else:
        params = release.parameters

        def f(W: np.ndarray) -> np.ndarray:
            return spec.sample_losses(W, Zx, Zy, params)
        L_f = float(params["L"])
    diffs = [f(a) - f(b) for a, b in coupled]
    corrected, printed, source = entry.stability_bound(release, n, d, eps, delta, L_f, problem.radius)
    return stability_check(f"{entry.name}: uniform stability", source, np.hstack(diffs), corrected,
                           bound_printed=printed, pairs=len(pairs))


def verify_entry(entry: CatalogueEntry, budget: Budget, seed: np.random.SeedSequence, *, confidence: float,
                 quiet: bool, real: Any, real_oracle: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Run every check of one catalogue entry.

    Returns (record, checks): the JSON-ready record and the check objects (keyed like the record) whose
    verdicts the campaign sets by Holm's procedure.
    """
    t0 = time.time()
    s_audit, s_emp, s_pop, s_inst, s_rate, s_stab = seed.spawn(6)
    options = dict(entry.quick_options if budget.name == "quick" and entry.quick_options else entry.options)
    X, y = real.X, real.y
    n, d = X.shape
    eps, delta = 1.0, 1.0 / n**2
    problem = _real_problem(entry, X)
    L, M = problem.lipschitz, problem.radius
    record: dict[str, Any] = {"name": entry.name, "title": entry.title, "paper": entry.paper,
                              "algorithm": entry.algorithm_ref, "privacy_theorem": entry.privacy_theorem,
                              "utility_theorem": entry.utility_theorem, "options": options,
                              "seed_spawn_key": list(seed.spawn_key)}
    checks: dict[str, Any] = {}

    # 1. privacy audit on the real data
    k = budget.audit_samples.get(entry.name, 0)
    Xn, yn = replace_one_extreme(X, y, DataBounds(1.0, 1.0))
    probe = entry.run(X, y, problem, eps, delta, np.random.default_rng(s_audit.spawn(1)[0]), **options)
    claim: PrivacyClaim = probe.claim
    record["claim"] = claim.to_dict()
    if k > 0:
        _progress(f"{entry.name}: privacy audit, {k} runs per side", quiet)
        # the strongest estimator whose assumptions hold for this release (dpsco.verification.auditing.estimators)
        info = {"deterministic": entry.name.startswith("lr21.") and options.get("method", "agd") in ("agd", "subgradient"),
                "output_dimension": int(X.shape[1])}
        choice = choose_estimator(claim, info)
        reason = choice.pop("reason")
        res = audit(_AlgorithmMechanism(entry, problem, eps, delta, options), {"X": X, "y": y}, {"X": Xn, "y": yn},
                    claim, k, np.random.default_rng(s_audit), confidence=confidence,
                    sample_check_runs=budget.sample_check_runs, **choice)
        record["audit"] = res.to_dict()
        record["audit"]["estimator_choice"] = {"estimator": choice["estimator"], "reason": reason}
    else:
        record["audit_not_run"] = f"no audit samples in the {budget.name} budget" + (
            f": {entry.audit_note}" if entry.audit_note else "")
    # 2. excess empirical risk on the real data, against the certified minimum of the objective the theorem bounds
    spec = entry.objective
    if spec is None:
        value: Callable[[np.ndarray], float] = lambda w: problem.loss.mean_value(w, X, y)  # noqa: E731
        oracle_record = {"value": real_oracle.value, "gap_bound": real_oracle.gap_bound,
                         "objective": "empirical logistic risk L̂"}
        ref_value, emp_range = real_oracle.value, 2 * M * L
    else:
        obj_real = spec.build(X, y, probe.parameters)
        orc = spec.minimum(obj_real)
        value = obj_real.value
        oracle_record = {"value": orc.value, "gap_bound": orc.gap_bound, "method": orc.method, "objective": spec.name}
        ref_value, emp_range = orc.value, objective_range(probe.parameters)
    R = budget.replicates[entry.name]
    _progress(f"{entry.name}: excess empirical risk, {R} runs", quiet)
    excess, release = _excess_samples(entry, X, y, problem, eps, delta, np.random.default_rng(s_emp), R, options,
                                      value, ref_value)
    checks["empirical"] = mean_bound_check(f"{entry.name}: E[excess empirical risk] ≤ bound",
                                           np.maximum(excess, 0.0), entry.empirical_bound(release, n, d, eps, delta, L, M),
                                           (0.0, emp_range), budget.alpha_display)
    for printed in entry.printed_bounds.get("empirical", ()):
        add_reference_bound(checks["empirical"], *printed(release, n, d, eps, delta, L, M))
    record["empirical_oracle"] = oracle_record
    # 3. excess population risk on the synthetic instance
    ns, ds = budget.synthetic_n, budget.synthetic_d
    syn = _synthetic(entry, ds, np.random.default_rng(s_inst), options, eps)
    srelease = None
    if syn.population is not None and entry.population_bound is not None:
        Rp = budget.population_runs(entry.name)
        _progress(f"{entry.name}: excess population risk on {syn.name}, {Rp} fresh datasets of n = {ns}", quiet)
        pop = [syn.population(ns, np.random.default_rng(c)) for c in s_pop.spawn(Rp)]
        srelease = pop[-1][1]
        Ls, Ms = _lipschitz(srelease), syn.radius
        pop_range = objective_range(srelease.parameters) if spec is not None else 2 * Ms * Ls
        checks["population"] = mean_bound_check(
            f"{entry.name}: E[excess population risk] ≤ bound", [e for e, _ in pop],
            entry.population_bound(srelease, ns, ds, eps, 1.0 / ns**2, Ls, Ms), (0.0, pop_range), budget.alpha_display)
        for printed in entry.printed_bounds.get("population", ()):
            add_reference_bound(checks["population"], *printed(srelease, ns, ds, eps, 1.0 / ns**2, Ls, Ms))
        accuracy = syn.info.get("minimiser_accuracy")
        record["population_instance"] = {
            "name": syn.name, "n": ns, "d": ds, "epsilon": eps, "delta": 1.0 / ns**2,
            "minimiser_accuracy": accuracy if accuracy is not None else syn.cache["oracle"].gap_bound,
            "distribution": syn.info["distribution"],
            **({"objective": spec.name, "pool_size": POOL_SIZE} if spec is not None else {})}
    else:
        record["population_not_applicable"] = (
            f"{spec.name if spec else 'this objective'} is not an average of a per-sample loss: the paper states "
            "only empirical bounds for it (Props 4.1, 4.2; spec U7), so there is no population claim to check")
    # 4. rate in n on the synthetic instance
    if entry.rate_exponent is None:
        record["rate_not_applicable"] = "no rate exponent declared for this configuration"
    else:
        use_pop = syn.population is not None and entry.population_bound is not None
        draw = syn.population if use_pop else syn.empirical
        bound_fn = entry.population_bound if use_pop else entry.empirical_bound
        quantity = "population" if use_pop else "empirical (objective on S ~ Dⁿ)"
        assert draw is not None and bound_fn is not None
        last_release: dict[Any, Any] = {}

        def draw_excess(m: Any, rng: np.random.Generator) -> float:
            e, rel = draw(m, rng)
            last_release[m] = rel
            return e

        def bound_at(m: Any) -> float:
            rel = last_release[m]
            return bound_fn(rel, m, ds, eps, 1.0 / m**2, _lipschitz(rel), syn.radius)

        # a priori range of one excess value (Hoeffding): the parameters it needs do not depend on n
        ref = srelease if srelease is not None else draw(budget.rate_grid[0], np.random.default_rng(s_rate.spawn(1)[0]))[1]
        rate_range = objective_range(ref.parameters) if spec is not None else 2 * _lipschitz(ref) * syn.radius
        rate = rate_check(f"{entry.name}: rate in n ({quantity} excess)",
                          f"{entry.utility_theorem}: E[excess] ≤ C·n^{entry.rate_exponent:.3g}",
                          entry.rate_exponent, budget.rate_grid, budget.rate_runs(entry.name), draw_excess, s_rate,
                          bounds=bound_at, value_range=(0.0, rate_range),
                          progress=None if quiet else (lambda msg: _progress(msg, quiet)))
        rate.extra["bounds"] = rate.bounds
        rate.extra["quantity"] = quantity
        checks["rate"] = rate

    if entry.name == "bftt19.nsgd":
        s_tight, s_d, s_eps = s_rate.spawn(3)
        # L = M = 1 on these instances; every excess lies in [0, 2ML] = [0, 2]
        nb = PRIVACY_SWEEP_N
        checks["tight_rate"] = rate_check("bftt19.nsgd: tight 1/√n instance (spec T-3.2c)",
                                          "Thm 3.2 is attained: excess ∝ n^-1/2", -0.5, budget.rate_grid,
                                          budget.rate_replicates, _tight_instance_draw, s_tight, kind="tight",
                                          bounds=lambda m: theorem_3_2_bound(m, 1, 1.0, 1.0 / m**2, 1.0, 1.0),
                                          value_range=(0.0, 2.0))
        checks["rate_d"] = rate_check(
            "bftt19.nsgd: growth in d (spec T-3.2d)", "Thm 3.2, privacy term √(d log(1/δ))/(εn)", 0.5,
            PRIVACY_SWEEP_D_GRID, budget.rate_replicates,
            lambda dd, rng: _privacy_term_draw(nb, int(dd), 0.5, rng), s_d, kind="upper", variable="d",
            bounds=lambda dd: theorem_3_2_bound(nb, int(dd), 0.5, 1.0 / nb**2, 1.0, 1.0), value_range=(0.0, 2.0))
        checks["rate_eps"] = rate_check(
            "bftt19.nsgd: growth as ε → 0 (spec T-3.2d)", "Thm 3.2, privacy term √(d log(1/δ))/(εn)", -1.0,
            PRIVACY_SWEEP_EPS_GRID, budget.rate_replicates,
            lambda e, rng: _privacy_term_draw(nb, 64, float(e), rng), s_eps, kind="lower", variable="ε",
            bounds=lambda e: theorem_3_2_bound(nb, 64, float(e), 1.0 / nb**2, 1.0, 1.0), value_range=(0.0, 2.0))
    # 5. uniform stability by coupled runs on the real data
    R_stab = budget.stability_runs(entry.name)
    _progress(f"{entry.name}: uniform stability, {R_stab} coupled runs × 2 pairs", quiet)
    checks["stability"] = _stability(entry, X, y, problem, eps, delta, s_stab, R_stab, options)
    # 6. gradient evaluations
    paper = entry.paper_gradient_count(release, n, d, eps, delta)
    record["gradient_evaluations"] = {
        "counted": int(release.gradient_evaluations),
        "paper": None if paper is None else paper[0],
        "paper_formula": None if paper is None else paper[1],
        "ratio": None if paper is None else release.gradient_evaluations / paper[0],
    }
    record["parameters"] = release.parameters
    record["wall_seconds"] = time.time() - t0
    return record, checks


def _git_commit() -> str | None:
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for pkg in ("dpsco", "numpy", "scipy", "cvxpy", "clarabel", "statsmodels", "dp-accounting", "matplotlib"):
        try:
            out[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


_REPORT_WRITERS = {"md": ("report.md", format_markdown), "html": ("report.html", format_html),
                   "latex": ("tables.tex", format_latex)}
REPORT_FILES = frozenset({"results.json"} | {name for name, _ in _REPORT_WRITERS.values()})
"""Every file ``dpsco verify`` writes into ``--out``: the only entries a directory may hold to be replaced."""


def _check_formats(formats: Sequence[str]) -> None:
    unknown = [f for f in formats if f not in _REPORT_WRITERS]
    if unknown:
        raise ValueError(f"unknown report format(s) {unknown}; known: {sorted(_REPORT_WRITERS)}")


def write_reports(results: dict[str, Any], out: str, formats: Sequence[str], *,
                  results_text: str | None = None) -> list[str]:
    """Write the report directory ``out`` as a whole: results.json and the reports in ``formats``.

    results.json is ``results_text`` verbatim when given (``--from``: a copy of the source), else ``results``
    serialised.  The reports are rendered first, then every file is written into a temporary directory next
    to ``out`` that replaces ``out`` in one swap (dpsco.verification.campaign.fileio.staged_directory): ``out`` holds the
    previous set or the new one, never a mixture.  Raises OutputError (a ValueError) if ``out`` cannot be
    written, leaving it untouched.  Returns the paths written.
    """
    _check_formats(formats)
    text = json.dumps(results, indent=2, allow_nan=False) if results_text is None else results_text
    files = [("results.json", text)] + [(_REPORT_WRITERS[f][0], _REPORT_WRITERS[f][1](results)) for f in formats]
    with staged_directory(out, REPORT_FILES) as tmp:
        for name, body in files:
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as fh:
                fh.write(body)
    return [os.path.join(out, name) for name, _ in files]


def _save_elsewhere(text: str, out: str) -> str | None:
    """Save results.json somewhere writable when ``out`` cannot be written (next to it, else the temp dir)."""
    name = f"dpsco-results-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    for directory in (os.path.dirname(os.path.abspath(out)), tempfile.gettempdir()):
        try:
            path = os.path.join(directory, name)
            atomic_write_text(path, text)
            return path
        except OSError:
            continue
    return None


def _write_campaign(results: dict[str, Any], out: str, formats: Sequence[str]) -> None:
    """write_reports for a campaign just computed: if it fails, results.json is saved elsewhere first."""
    text = json.dumps(results, indent=2, allow_nan=False)
    try:
        write_reports(results, out, formats, results_text=text)
    except BaseException as exc:
        saved = _save_elsewhere(text, out)
        note = (f"the results were saved to {saved} (regenerate the reports with: dpsco verify --from {saved} "
                f"--out DIR)" if saved else "the results could not be saved anywhere")
        if isinstance(exc, (OSError, OutputError)):
            raise OutputError(f"cannot write the report directory {out!r} ({exc}); {note}") from exc
        print(f"dpsco verify: {note}", file=sys.stderr)
        raise


def run_verification(*, budget: str = "standard", out: str = "dpsco-report", seed: int = DEFAULT_SEED,
                     only: str | None = None, quiet: bool = False, confidence: float = AUDIT_CONFIDENCE,
                     alpha: float = CAMPAIGN_ALPHA, formats: Sequence[str] = ("md", "html")) -> dict[str, Any]:
    """Run the campaign and write ``results.json`` and the reports to ``out`` as one set (:func:`write_reports`).

    ``budget``: "quick" | "standard" | "paper" (sample sizes, replicates, grids).  ``confidence``: confidence
    of each privacy audit (a correct algorithm is refuted with probability ≤ 1 − confidence).  ``alpha``:
    family-wise false-failure probability of all checks of the papers' claims together (Holm).

    ``out`` is checked before anything is computed (OutputError, a ValueError, if it cannot be created or
    replaced).  If writing fails at the end anyway, results.json is saved next to ``out`` or in the temporary
    directory and the error says where.
    """
    if budget not in BUDGETS:
        raise ValueError(f"budget must be one of {sorted(BUDGETS)}, got {budget!r}")
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    _check_formats(formats)
    check_output_directory(out, REPORT_FILES)  # fail now, not after the campaign
    from dpsco.oracles.minimizers import certified_oracle

    t0 = time.time()
    b = BUDGETS[budget]
    entries = [e for e in CATALOGUE if only is None or only in e.name]
    if not entries:
        raise ValueError(f"--only {only!r} matches no catalogue entry; known: {[e.name for e in CATALOGUE]}")
    ss = np.random.SeedSequence(seed)
    children = dict(zip([e.name for e in CATALOGUE], ss.spawn(len(CATALOGUE))))
    real = load_fair()
    _progress(f"real data: {real.name}, n = {real.n}, d = {real.d}; certified oracle for min L̂ over B(0, {RADIUS})",
              quiet)
    oracle = certified_oracle(get_loss("logistic"), real.X, real.y, Ball(RADIUS), cross_check=budget != "quick")
    records, all_checks = [], []
    for entry in entries:
        rec, checks = verify_entry(entry, b, children[entry.name], confidence=confidence, quiet=quiet, real=real,
                                   real_oracle=oracle)
        records.append((rec, checks))
        all_checks += list(checks.values())
    apply_holm(all_checks, alpha)
    out_records = []
    for rec, checks in records:
        for key, c in checks.items():
            rec[key] = c.to_dict()
        if "population" in rec:
            rec["population"]["instance"] = rec.pop("population_instance")
        rec["empirical"]["oracle"] = rec.pop("empirical_oracle")
        out_records.append(rec)
    failed = sorted({r["name"] for r in out_records for key in CHECK_KEYS
                     if (r.get(key) or {}).get("verdict") == "fail"}
                    | {r["name"] for r in out_records if (r.get("audit") or {}).get("verdict") == "refuted"})
    results = {
        "budget": b.name,
        "seed_entropy": str(ss.entropy),
        "epsilon": 1.0,
        "delta": 1.0 / real.n**2,
        "radius": RADIUS,
        "checks": len(all_checks),
        "alpha_campaign": alpha,
        "audit_confidence": confidence,
        "dataset": real.to_dict(),
        "oracle": oracle.to_dict(),
        "records": out_records,
        "verdict": "fail" if failed else "pass",
        "failed": failed,
        "provenance": {"versions": _versions(), "git_commit": _git_commit(), "machine": platform.platform(),
                       "processor": platform.machine(), "cpu_count": os.cpu_count(),
                       "wall_seconds": time.time() - t0, "command": " ".join(sys.argv), "seed": seed,
                       "seed_entropy": str(ss.entropy), "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
    }
    results = to_jsonable(results)
    _write_campaign(results, out, formats)
    return results


def configure_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", choices=sorted(BUDGETS), default=None,
                   help="sample sizes: quick (about 2 minutes on 2 cores), standard (default, under 20 minutes), "
                        "paper (hours)")
    p.add_argument("--quick", action="store_true", help="shorthand for --budget quick (not with another --budget)")
    p.add_argument("--out", default="dpsco-report", metavar="DIR",
                   help="output directory for results.json and the reports (default: dpsco-report/); checked "
                        "before computing (exit 2 if it cannot be written), then written as one set and swapped in "
                        "whole. An existing DIR is replaced only if it holds nothing but files verify writes")
    p.add_argument("--format", dest="formats", action="append", choices=["md", "html", "latex"], default=None,
                   help="report formats to write, repeatable (default: md and html; latex writes tables.tex)")
    p.add_argument("--from", dest="from_json", metavar="RESULTS_JSON", default=None,
                   help="regenerate the reports from an existing results.json without recomputing (copied into "
                        "--out with them); a file missing a key the reports need is refused (exit 2)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, metavar="INT",
                   help=f"entropy of the campaign's SeedSequence (default: {DEFAULT_SEED}); recorded in results.json")
    p.add_argument("--only", metavar="PATTERN", default=None,
                   help="run only catalogue entries whose name contains PATTERN (e.g. 'objp')")
    p.add_argument("--confidence", type=float, default=AUDIT_CONFIDENCE, metavar="C",
                   help=f"confidence of each privacy audit, in (0, 1) (default: {AUDIT_CONFIDENCE})")
    p.add_argument("--alpha", type=float, default=CAMPAIGN_ALPHA, metavar="A",
                   help=f"family-wise false-failure probability of all checks of the papers' claims (Holm) "
                        f"(default: {CAMPAIGN_ALPHA})")
    p.add_argument("--quiet", action="store_true", help="no progress messages on stderr")
    p.set_defaults(run=run)


def _check_arguments(args: argparse.Namespace) -> str:
    """Check the options before anything is read or computed; returns the budget.  Raises ValueError with a
    one-line message naming the option (argparse has already checked the choices and that --seed is an int and
    --confidence, --alpha floats)."""
    budget = args.budget or "standard"
    if args.quick and args.budget not in (None, "quick"):
        raise ValueError(f"--quick means --budget quick; it contradicts --budget {args.budget}")
    if args.seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {args.seed}")
    for name, value in (("--confidence", args.confidence), ("--alpha", args.alpha)):
        if not (0.0 < value < 1.0):  # also rejects nan
            raise ValueError(f"{name} must lie in (0, 1), got {value}")
    if args.from_json is not None and not args.from_json:
        raise ValueError("--from must name a results.json file, got ''")
    return "quick" if args.quick else budget


def run(args: argparse.Namespace) -> int:
    formats = args.formats or ["md", "html"]
    try:
        budget = _check_arguments(args)
        if args.from_json is not None:
            check_output_directory(args.out, REPORT_FILES)
            try:
                with open(args.from_json, encoding="utf-8") as fh:
                    text = fh.read()
                results = json.loads(text)
            except (OSError, ValueError) as exc:  # ValueError: JSONDecodeError, UnicodeDecodeError
                raise ValueError(f"cannot read --from {args.from_json!r}: {exc}") from None
            try:
                check_results(results)
            except ValueError as exc:
                raise ValueError(f"--from {args.from_json!r} is not a usable dpsco results.json: {exc}") from None
            try:
                written = write_reports(results, args.out, formats, results_text=text)
            except OutputError:
                raise
            except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as exc:
                raise ValueError(f"--from {args.from_json!r}: cannot render the reports from it "
                                 f"({type(exc).__name__}: {exc})") from None
            print(format_table(results["records"]))
            print("\nregenerated: " + ", ".join(written))
            return 0 if results.get("verdict") == "pass" else 1
        results = run_verification(budget=budget, out=args.out, seed=args.seed, only=args.only, quiet=args.quiet,
                                   confidence=args.confidence, alpha=args.alpha, formats=formats)
    except ValueError as exc:
        print(f"dpsco verify: error: {str(exc).replace(chr(10), ' ')}", file=sys.stderr)
        return 2
    print(format_table(results["records"]))
    print(f"\nverdict: {results['verdict']}  (results: {os.path.join(args.out, 'results.json')}, reports: "
          f"{', '.join(formats)} in {args.out}, {results['provenance']['wall_seconds']:.0f} s)")
    return 0 if results["verdict"] == "pass" else 1
