"""The tasks of ``dpsco verify``: one catalogue entry's checks, split into independent phases.

Each phase of an entry (:data:`PHASES`: the black-box audit, the white-box audit, the excess empirical risk,
the excess population risk, the rate in n, the entry's own checks, uniform stability) is a task
:func:`run_phase` ``(entry name, phase, budget, campaign seed, ...)`` that rebuilds everything it needs from
its arguments — the real data, the entry, its random streams — and returns a JSON-ready part of the entry's
record.  The streams are those of the entry's ``SeedSequence`` (spawned from the campaign's, child i for the
i-th catalogue entry) exactly as a single process would draw them, whatever process or machine runs the
phase: :func:`entry_streams` spells the layout out, including the children that one phase spawns before
another uses the same parent.  So a campaign's numbers do not depend on the executor, the number of
workers or the order in which phases finish (``tests/test_executors.py``).

:func:`assemble_entry` merges an entry's phase parts into its record, in a fixed order.  Checks travel as
their ``to_dict()`` forms; the campaign sets their verdicts by Holm's procedure over all entries at the end.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss
from dpsco.reference.privacy import PrivacyClaim, to_jsonable

from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.estimators import choose_estimator
from dpsco.verification.auditing.neighbours import extreme_points, replace_one_extreme
from dpsco.verification.campaign.audits import black_box_p_value, white_box_entry_audit
from dpsco.verification.campaign.datasets import RealDataset, load_fair
from dpsco.verification.campaign.synthetic import POOL_SIZE, SyntheticSide, synthetic_side
from dpsco.verification.checks.stats import add_reference_bound, mean_bound_check
from dpsco.verification.checks.theorem_checks import StabilityCheck, rate_check, stability_check
from dpsco.verification.papers.catalogue import (CATALOGUE, CatalogueEntry, ExtraCheckInputs, PublicInputs,
                                                 SuiteInputs, get_entry, run_outputs)
from dpsco.verification.papers.objectives import objective_range

__all__ = ["PHASES", "RADIUS", "EntryStreams", "PhaseBudget", "assemble_entry", "entry_phases", "entry_streams",
           "run_phase"]

RADIUS = 2.0  # M of the real-data problem (public, chosen before looking at the data)

#: the phases of one entry, in record order
PHASES = ("audit", "white_box", "empirical", "population", "rate", "extra", "stability")


@dataclass(frozen=True)
class PhaseBudget:
    """The budget-wide settings a phase needs (a picklable copy of ``verify.Budget``'s fields)."""

    name: str
    synthetic_n: int
    synthetic_d: int
    rate_grid: tuple[int, ...]
    alpha_display: float
    sample_check_runs: int | None


@dataclass(frozen=True)
class EntryStreams:
    """The random streams of one entry, as children of its ``SeedSequence`` (spawned in this order)."""

    audit: np.random.SeedSequence       # child 0 runs the probe, child 1 the white-box audit, child 2 the
    #                                     black-box audit (each child's own spawns stay in its subtree)
    empirical: np.random.SeedSequence
    population: np.random.SeedSequence  # child i: the i-th fresh dataset of the population check
    inst: np.random.SeedSequence        # the synthetic instance's atoms and w⋆
    rate: np.random.SeedSequence        # the rate check spawns its grid's streams first, then the entry's own checks
    stability: np.random.SeedSequence


def _child(s: np.random.SeedSequence, i: int) -> np.random.SeedSequence:
    """The i-th child ``s.spawn`` gives, without advancing ``s``'s counter (phases may run in any order)."""
    return np.random.SeedSequence(s.entropy, spawn_key=tuple(s.spawn_key) + (i,), pool_size=s.pool_size)


def entry_streams(seed_entropy: int, entry_index: int) -> EntryStreams:
    """The streams of the ``entry_index``-th catalogue entry of a campaign with seed ``seed_entropy``."""
    entry_seed = _child(np.random.SeedSequence(seed_entropy), entry_index)
    return EntryStreams(*(_child(entry_seed, i) for i in range(6)))


@functools.lru_cache(maxsize=1)
def _real_data() -> RealDataset:
    return load_fair()


def _real_problem() -> ERMProblem:
    return ERMProblem(get_loss("logistic"), Ball(RADIUS), DataBounds(1.0, 1.0))


def _options(entry: CatalogueEntry, budget: PhaseBudget) -> dict[str, Any]:
    return dict(entry.quick_options if budget.name == "quick" and entry.quick_options else entry.options)


def _lipschitz(release: Any) -> float:
    """The Lipschitz constant a release was calibrated with (claim assumptions, else its parameters' L)."""
    a = release.claim.assumptions
    return float(a["lipschitz"]) if "lipschitz" in a else float(release.parameters["L"])


def _fresh_rng(s: np.random.SeedSequence) -> np.random.Generator:
    """A generator from a fresh copy of ``s`` (same entropy and spawn key, no children spawned yet)."""
    return np.random.default_rng(np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key, pool_size=s.pool_size))


class _AlgorithmMechanism:
    """Adapter: the catalogue entry as a mechanism ``f(data, rng)`` with batched ``sample``."""

    def __init__(self, entry: CatalogueEntry, problem: ERMProblem, epsilon: float, delta: float,
                 options: dict[str, Any]):
        self.entry, self.problem, self.epsilon, self.delta, self.options = entry, problem, epsilon, delta, options

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return self.entry.run(data["X"], data["y"], self.problem, self.epsilon, self.delta, rng,
                              **self.options).output

    def sample(self, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        out, _ = run_outputs(self.entry, data["X"], data["y"], self.problem, self.epsilon, self.delta, rng, n,
                             self.options, chunk=self.entry.audit_chunk)
        return out


@dataclass
class _Context:
    entry: CatalogueEntry
    budget: PhaseBudget
    streams: EntryStreams
    options: dict[str, Any]
    confidence: float
    oracle: dict[str, float]  # the shared real-data oracle: {"value", "gap_bound"}
    real: RealDataset
    problem: ERMProblem

    @property
    def eps(self) -> float:
        return 1.0

    @property
    def delta(self) -> float:
        return 1.0 / self.real.n ** 2

    def probe(self) -> Any:
        """One run on the real data (stream: child 0 of the audit stream): its claim and parameters."""
        return self.entry.run(self.real.X, self.real.y, self.problem, self.eps, self.delta,
                              np.random.default_rng(_child(self.streams.audit, 0)), **self.options)

    def synthetic(self) -> SyntheticSide:
        return synthetic_side(self.entry, self.budget.synthetic_d, np.random.default_rng(self.streams.inst),
                              self.options, self.eps)

    def has_population(self, syn: SyntheticSide) -> bool:
        return syn.population is not None and self.entry.population_bound is not None


def _phase_audit(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    entry, X, y = c.entry, c.real.X, c.real.y
    k = entry.cost(c.budget.name).audit_runs
    probe = c.probe()
    claim: PrivacyClaim = probe.claim
    record: dict[str, Any] = {"claim": claim.to_dict()}
    if k == 0:
        record["audit_not_run"] = f"no audit samples in the {c.budget.name} budget" + (
            f": {entry.audit_note}" if entry.audit_note else "")
        return record, {}
    Xn, yn = replace_one_extreme(X, y, DataBounds(1.0, 1.0))
    # the strongest estimator whose assumptions hold for this release (dpsco.verification.auditing.estimators)
    choice = choose_estimator(claim, {"deterministic": entry.deterministic, "output_dimension": int(X.shape[1])})
    reason = choice.pop("reason")
    res = audit(_AlgorithmMechanism(entry, c.problem, c.eps, c.delta, c.options), {"X": X, "y": y},
                {"X": Xn, "y": yn}, claim, k, np.random.default_rng(_child(c.streams.audit, 2)),
                confidence=c.confidence,
                sample_check_runs=c.budget.sample_check_runs, **choice)
    record["audit"] = res.to_dict()
    record["audit"]["estimator_choice"] = {"estimator": choice["estimator"], "reason": reason}
    record["audit"].update({"mode": "black-box", "runs_per_side": k, "epsilon_true": None,
                            "p_value": black_box_p_value(record["audit"])})
    return record, {}


def _phase_white_box(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    runs = c.entry.cost(c.budget.name).white_box_runs
    # the strongest sound mode for noisy-gradient methods: every noisy gradient observed
    return {"white_box_audit": white_box_entry_audit(c.entry, runs, _child(c.streams.audit, 1),
                                                     confidence=c.confidence, options=c.options)}, {}


def _phase_empirical(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    """Excess empirical risk on the real data, against the certified minimum of the objective the theorem
    bounds; also the release's gradient count and parameters."""
    entry, problem, X, y = c.entry, c.problem, c.real.X, c.real.y
    n, d = X.shape
    L, M = problem.lipschitz, problem.radius
    spec = entry.objective
    if spec is None:
        value: Callable[[np.ndarray], float] = lambda w: problem.loss.mean_value(w, X, y)  # noqa: E731
        oracle_record = {"value": c.oracle["value"], "gap_bound": c.oracle["gap_bound"],
                         "objective": "empirical logistic risk L̂"}
        ref_value, emp_range = c.oracle["value"], 2 * M * L
    else:
        probe = c.probe()
        obj_real = spec.build(X, y, probe.parameters)
        orc = spec.minimum(obj_real)
        value = obj_real.value
        oracle_record = {"value": orc.value, "gap_bound": orc.gap_bound, "method": orc.method, "objective": spec.name}
        ref_value, emp_range = orc.value, objective_range(probe.parameters)
    R = entry.cost(c.budget.name).replicates
    outs, release = run_outputs(entry, X, y, problem, c.eps, c.delta, np.random.default_rng(c.streams.empirical), R,
                                c.options)
    excess = np.array([value(w) for w in outs]) - ref_value
    real_inputs = PublicInputs(n, d, c.eps, c.delta, L, M)
    check = mean_bound_check(f"{entry.name}: E[excess empirical risk] ≤ bound", np.maximum(excess, 0.0),
                             entry.empirical_bound(release, real_inputs), (0.0, emp_range), c.budget.alpha_display)
    for printed in entry.printed_bounds.get("empirical", ()):
        add_reference_bound(check, *printed(release, real_inputs))
    paper = entry.paper_gradient_count(release, real_inputs)
    # the count the run performed (a verification record): a release publishes its schedule's count, and where the
    # two differ (efficient ObjP's stages until certified) the performed one is in nonprivate_internals
    counted = int(release.nonprivate_internals.get("gradient_evaluations_performed", release.gradient_evaluations))
    record = {"empirical_oracle": oracle_record, "parameters": release.parameters, "gradient_evaluations": {
        "counted": counted,
        "paper": None if paper is None else paper[0],
        "paper_formula": None if paper is None else paper[1],
        "ratio": None if paper is None else counted / paper[0],
    }}
    return record, {"empirical": check}


def _population_release(c: _Context, syn: SyntheticSide, index: int) -> Any:
    """The ``index``-th fresh dataset's run of the population check (stream: that child of its stream)."""
    assert syn.population is not None
    return syn.population(c.budget.synthetic_n, np.random.default_rng(_child(c.streams.population, index)))


def _phase_population(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    entry, spec = c.entry, c.entry.objective
    syn = c.synthetic()
    if not c.has_population(syn):
        return {"population_not_applicable": (
            f"{spec.name if spec else 'this objective'} is not an average of a per-sample loss: the paper states "
            "only empirical bounds for it (Props 4.1, 4.2), so there is no population claim to check")}, {}
    assert entry.population_bound is not None
    ns, ds = c.budget.synthetic_n, c.budget.synthetic_d
    Rp = entry.cost(c.budget.name).population_runs
    pop = [_population_release(c, syn, i) for i in range(Rp)]
    srelease = pop[-1][1]
    Ls, Ms = _lipschitz(srelease), syn.radius
    pop_range = objective_range(srelease.parameters) if spec is not None else 2 * Ms * Ls
    syn_inputs = PublicInputs(ns, ds, c.eps, 1.0 / ns**2, Ls, Ms)
    check = mean_bound_check(f"{entry.name}: E[excess population risk] ≤ bound", [e for e, _ in pop],
                             entry.population_bound(srelease, syn_inputs), (0.0, pop_range), c.budget.alpha_display)
    for printed in entry.printed_bounds.get("population", ()):
        add_reference_bound(check, *printed(srelease, syn_inputs))
    accuracy = syn.info.get("minimiser_accuracy")
    instance = {
        "name": syn.name, "n": ns, "d": ds, "epsilon": c.eps, "delta": 1.0 / ns**2,
        "minimiser_accuracy": accuracy if accuracy is not None else syn.cache["oracle"].gap_bound,
        "distribution": syn.info["distribution"],
        **({"objective": spec.name, "pool_size": POOL_SIZE} if spec is not None else {})}
    return {"population_instance": instance}, {"population": check}


def _phase_rate(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    entry, budget = c.entry, c.budget
    if entry.rate_exponent is None:
        return {"rate_not_applicable": "no rate exponent declared for this configuration"}, {}
    syn = c.synthetic()
    use_pop = c.has_population(syn)
    draw = syn.population if use_pop else syn.empirical
    bound_fn = entry.population_bound if use_pop else entry.empirical_bound
    quantity = "population" if use_pop else "empirical (objective on S ~ Dⁿ)"
    assert draw is not None and bound_fn is not None
    ds = budget.synthetic_d
    last_release: dict[Any, Any] = {}

    def draw_excess(m: Any, rng: np.random.Generator) -> float:
        e, rel = draw(m, rng)
        last_release[m] = rel
        return e

    def bound_at(m: Any) -> float:
        rel = last_release[m]
        return bound_fn(rel, PublicInputs(m, ds, c.eps, 1.0 / m**2, _lipschitz(rel), syn.radius))

    # a priori range of one excess value (Hoeffding), from parameters that do not depend on n: the last release
    # of the population check (recomputed from its stream), else one run on the rate stream's first child
    if use_pop:
        ref = _population_release(c, syn, entry.cost(budget.name).population_runs - 1)[1]
        s_rate = c.streams.rate
    else:
        ref = draw(budget.rate_grid[0], np.random.default_rng(_child(c.streams.rate, 0)))[1]
        s_rate = _fresh_copy_after(c.streams.rate, 1)
    rate_range = objective_range(ref.parameters) if entry.objective is not None else 2 * _lipschitz(ref) * syn.radius
    rate = rate_check(f"{entry.name}: rate in n ({quantity} excess)",
                      f"{entry.utility_theorem}: E[excess] ≤ C·n^{entry.rate_exponent:.3g}",
                      entry.rate_exponent, budget.rate_grid, entry.cost(budget.name).rate_runs, draw_excess, s_rate,
                      bounds=bound_at, value_range=(0.0, rate_range))
    rate.extra["bounds"] = rate.bounds
    rate.extra["quantity"] = quantity
    return {}, {"rate": rate}


def _fresh_copy_after(s: np.random.SeedSequence, spawned: int) -> np.random.SeedSequence:
    """A fresh copy of ``s`` whose next ``spawn`` continues after its first ``spawned`` children."""
    copy = np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key, pool_size=s.pool_size)
    if spawned:
        copy.spawn(spawned)
    return copy


def _phase_extra(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    """The entry's own checks, on streams spawned from the rate stream after those the rate check spawned."""
    entry, budget = c.entry, c.budget
    assert entry.extra_checks is not None
    spawned = 0
    if entry.rate_exponent is not None:
        spawned = len(budget.rate_grid) + (0 if c.has_population(c.synthetic()) else 1)
    seed = _fresh_copy_after(c.streams.rate, spawned)
    return {}, entry.extra_checks.run(ExtraCheckInputs(budget.rate_grid, entry.cost(budget.name).rate_runs, seed))


def _phase_stability(c: _Context) -> tuple[dict[str, Any], dict[str, Any]]:
    """Coupled runs on neighbouring pairs (same seed ⇒ same batches and noise on both sides) and probe points
    at the extremes of the declared domain; the loss differences, in both orders of each pair (uniform stability
    is symmetric), are tested against the entry's bound.  The
    loss is ℓ, or the per-sample loss f of the entry's objective (Lipschitz constant parameters["L"])."""
    entry, problem, X, y = c.entry, c.problem, c.real.X, c.real.y
    R = entry.cost(c.budget.name).stability_runs
    n, d = X.shape
    bounds = problem.bounds
    seed = c.streams.stability
    probe_rng = np.random.default_rng(_child(seed, 0))
    pairs = [replace_one_extreme(X, y, bounds, index=-1), replace_one_extreme(X, y, bounds, index=0, label=y[0])]
    Zx = np.vstack([extreme_points(bounds, d, 4, rng=probe_rng), X[[-1, 0]], pairs[0][0][-1:], pairs[1][0][:1]])
    Zy = np.concatenate([np.array([1.0, -1.0, 1.0, -1.0]), y[[-1, 0]], pairs[0][1][-1:], pairs[1][1][:1]])
    coupled, release = [], None
    for i, (Xn, yn) in enumerate(pairs):
        # Coupling: each side gets a generator built from a fresh copy of the same SeedSequence (children 1, 2)
        s = _child(seed, 1 + i)
        out, release = run_outputs(entry, X, y, problem, c.eps, c.delta, _fresh_rng(s), R, c.options)
        out_n, _ = run_outputs(entry, Xn, yn, problem, c.eps, c.delta, _fresh_rng(s), R, c.options)
        coupled.append((out, out_n))
    assert release is not None
    spec = entry.objective
    largest = None
    if spec is None:
        def f(W: np.ndarray) -> np.ndarray:
            return problem.loss.phi(W @ Zx.T, Zy)
        L_f = problem.lipschitz
        largest = 2.0 * problem.radius * L_f  # |ℓ(w, z) − ℓ(w', z)| ≤ L‖w − w'‖ ≤ 2ML on W = B(0, M), ‖x‖ ≤ 1
    else:
        params = release.parameters

        def f(W: np.ndarray) -> np.ndarray:
            return spec.sample_losses(W, Zx, Zy, params)
        L_f = float(params["L"])
    diffs = [f(a) - f(b) for a, b in coupled]
    # uniform stability is symmetric (its sup runs over neighbouring S, S' in both orders): test the differences
    # ℓ(A(S), z) − ℓ(A(S'), z) and their negatives, 2k probes under the check's Bonferroni
    D = np.hstack(diffs)
    D = np.hstack([D, -D])
    corrected, printed, source = entry.stability_bound(release, PublicInputs(n, d, c.eps, c.delta, L_f,
                                                                             problem.radius))
    check: StabilityCheck = stability_check(f"{entry.name}: uniform stability", source, D, corrected,
                                            bound_printed=printed, pairs=len(pairs), largest_difference=largest)
    return {}, {"stability": check}


_PHASE_FUNCTIONS = {"audit": _phase_audit, "white_box": _phase_white_box, "empirical": _phase_empirical,
                    "population": _phase_population, "rate": _phase_rate, "extra": _phase_extra,
                    "stability": _phase_stability}


def entry_phases(entry: CatalogueEntry, budget_name: str) -> tuple[str, ...]:
    """The phases ``entry`` runs in ``budget_name`` (every phase but the white-box audit and own checks,
    which only some entries have; a suite entry's phases are its suite's tasks)."""
    if entry.suite is not None:
        return tuple(t.name for t in entry.suite.tasks)
    cost = entry.cost(budget_name)
    return tuple(p for p in PHASES
                 if (p != "white_box" or (entry.white_box and cost.white_box_runs > 0))
                 and (p != "extra" or entry.extra_checks is not None))


def run_phase(entry_name: str, phase: str, budget: PhaseBudget, seed_entropy: int, confidence: float,
              oracle: dict[str, float]) -> dict[str, Any]:
    """One phase of one entry (a task of the campaign; picklable arguments, JSON-ready result).

    Returns {"entry", "phase", "record": part of the entry's record, "checks": {key: check.to_dict()},
    "seconds": wall time of the phase in the process that ran it}.
    """
    t0 = time.time()
    entry = get_entry(entry_name)
    index = [e.name for e in CATALOGUE].index(entry_name)
    if entry.suite is not None:
        return to_jsonable({"entry": entry_name, "phase": phase, **_run_suite_task(entry, index, phase, budget.name,
                                                                                 seed_entropy, confidence),
                            "seconds": time.time() - t0})
    real = _real_data()
    ctx = _Context(entry, budget, entry_streams(seed_entropy, index), _options(entry, budget), confidence, oracle,
                   real, _real_problem())
    record, checks = _PHASE_FUNCTIONS[phase](ctx)
    return to_jsonable({"entry": entry_name, "phase": phase, "record": record,
                        "checks": {k: v.to_dict() for k, v in checks.items()}, "seconds": time.time() - t0})


def _run_suite_task(entry: CatalogueEntry, index: int, task_name: str, budget_name: str, seed_entropy: int,
                    confidence: float) -> dict[str, Any]:
    """One task of a suite entry, on child ``task index`` of the entry's stream; its result's record, checks
    (each with ``verdict`` None, set later by Holm) and audits, checked for the suite's format."""
    assert entry.suite is not None
    names = [t.name for t in entry.suite.tasks]
    if task_name not in names:
        raise ValueError(f"entry {entry.name!r} has no suite task {task_name!r}; known: {names}")
    i = names.index(task_name)
    entry_seed = _child(np.random.SeedSequence(seed_entropy), index)
    out = entry.suite.tasks[i].run(SuiteInputs(budget_name, _child(entry_seed, i), confidence))
    unknown = set(out) - {"record", "checks", "audits"}
    if unknown:
        raise ValueError(f"suite task {entry.name}.{task_name} returned unknown keys {sorted(unknown)}")
    checks = {k: (v.to_dict() if hasattr(v, "to_dict") else dict(v)) for k, v in out.get("checks", {}).items()}
    checks = {k: {**v, "verdict": None} for k, v in checks.items()}  # set by Holm over the whole campaign
    audits = {k: {"verdict": None, **dict(v)} for k, v in out.get("audits", {}).items()}
    for kind, group in (("check", checks), ("audit", audits)):
        for key, d in group.items():
            p = d.get("p_value")
            if not isinstance(p, (int, float)) or not 0.0 <= float(p) <= 1.0:
                raise ValueError(f"suite task {entry.name}.{task_name}: {kind} {key!r} needs a p_value in [0, 1], "
                                 f"got {p!r}")
    return {"record": {"suite_records": {task_name: out.get("record", {})}}, "checks": checks, "audits": audits}


def _assemble_suite_entry(entry: CatalogueEntry, rec: dict[str, Any], parts: dict[str, dict[str, Any]]) -> None:
    assert entry.suite is not None
    rec["suite"] = {"description": entry.suite.description, "tasks": [t.name for t in entry.suite.tasks]}
    rec["suite_records"], rec["suite_checks"], rec["suite_audits"] = {}, {}, {}
    for task in entry.suite.tasks:
        part = parts[task.name]
        rec["suite_records"].update(part["record"]["suite_records"])
        for group, items in (("suite_checks", part["checks"]), ("suite_audits", part.get("audits", {}))):
            clash = set(items) & set(rec[group])
            if clash:
                raise ValueError(f"entry {entry.name!r}: suite keys {sorted(clash)} appear in two tasks")
            rec[group].update(items)


def assemble_entry(entry: CatalogueEntry, budget_name: str, parts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The record of ``entry`` from the results of its phases (:func:`run_phase`, keyed by phase), in the
    record order of a single-process campaign; checks stay as dicts under their keys."""
    index = [e.name for e in CATALOGUE].index(entry.name)
    budget_options = entry.quick_options if budget_name == "quick" and entry.quick_options else entry.options
    rec: dict[str, Any] = {"name": entry.name, "title": entry.title, "paper": entry.paper,
                           "algorithm": entry.algorithm_ref, "privacy_theorem": entry.privacy_theorem,
                           "utility_theorem": entry.utility_theorem, "options": dict(budget_options),
                           "seed_spawn_key": [index]}
    if entry.suite is not None:
        _assemble_suite_entry(entry, rec, parts)
        rec["phase_seconds"] = {p: parts[p]["seconds"] for p in entry_phases(entry, budget_name)}
        rec["wall_seconds"] = float(sum(rec["phase_seconds"].values()))
        return rec
    for phase in PHASES:
        if phase in parts:
            rec.update(parts[phase]["record"])
            rec.update(parts[phase]["checks"])
    if "population" in rec:
        rec["population"]["instance"] = rec.pop("population_instance")
    rec["empirical"]["oracle"] = rec.pop("empirical_oracle")
    rec["phase_seconds"] = {p: parts[p]["seconds"] for p in PHASES if p in parts}
    rec["wall_seconds"] = float(sum(rec["phase_seconds"].values()))
    return rec
