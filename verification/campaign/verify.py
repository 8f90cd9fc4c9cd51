"""dpsco verify: run every catalogued algorithm with its privacy audit and checks of the papers' claims.

For each algorithm of the catalogue:

1. **privacy audits**: on real data, statsmodels' Fair (1978) survey (n = 6366, d = 9, logistic loss,
   features scaled by their public codebook ranges), against a replace-one neighbour that swaps the last
   record for an extreme point of the declared data domain, a black-box threshold audit (Clopper–Pearson) of
   the released parameter vector: ε_lb vs the claimed ε; for noisy-gradient methods also a white-box audit
   of every noisy gradient on the one-sided canary pair (``dpsco.verification.campaign.audits``), with the
   accountant's ε_true beside ε_lb.  All audits of a run are corrected together (Holm, family-wise
   1 − ``--confidence``);
2. **excess empirical risk** on the real data against the certified oracle (min over W of the empirical
   loss), against the theorem's bound on its expectation;
3. **excess population risk** on a synthetic instance whose population minimiser the oracle knows, against
   the theorem's bound;
4. **rate**: the theorem's bound at every point of a grid of n, with the fitted log–log slope reported next to
   the theorem's exponent; an entry may add checks of its own (``CatalogueEntry.extra_checks``: A_NSGD's
   bound on grids of d and ε, and its slope tested on a hand-derived tight 1/√n instance);
5. **uniform stability**: coupled runs on neighbouring datasets against the stability bound the proof uses;
6. **gradient evaluations** counted, against the paper's claim.

Every entry declares its sample sizes per budget (``CatalogueEntry.costs``); this module holds only the
budget-wide settings (:data:`BUDGETS`) and never branches on an entry's name.  Checks 2–5 are one-sided tests
of hypotheses implied by the theorems (dpsco.verification.checks.theorem_checks); their family-wise
false-failure probability is ``--alpha`` (Holm).  Audits "refute" by Holm's procedure on their p-values,
so that a correct implementation is refuted anywhere in the run with probability ≤ 1 − ``--confidence``;
each audit's ε_lb is reported at the per-audit confidence.  A pass never proves privacy or the theorem;
each record states the power of its check.  Every random stream is spawned from one recorded ``SeedSequence``.
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
from dpsco.reference.privacy import PrivacyClaim, to_jsonable

from dpsco.verification.auditing.audit import audit
from dpsco.verification.papers.catalogue import (BUDGET_NAMES, CATALOGUE, CatalogueEntry, ExtraCheckInputs,
                                                 PublicInputs, extra_check_labels, run_outputs)
from dpsco.verification.papers.objectives import objective_range
from dpsco.verification.campaign.audits import (WHITE_BOX_INSTANCE, apply_holm_to_audits, black_box_p_value,
                                               white_box_entry_audit)
from dpsco.verification.campaign.datasets import load_fair
from dpsco.verification.campaign.synthetic import POOL_SIZE, synthetic_side
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
    """The budget-wide settings of a campaign; each entry's sample sizes are its own (``entry.cost(name)``,
    :class:`dpsco.verification.papers.catalogue.BudgetCost`)."""

    name: str
    synthetic_n: int
    synthetic_d: int
    rate_grid: tuple[int, ...]
    alpha_display: float = 1e-3  # level of the per-check confidence intervals shown in reports
    # single runs that check an entry's batched sample() before its audit uses it (dpsco.verification.auditing.audit;
    # None: the auditor's default, 0: no check, recorded in the audit result as trusted unchecked)
    sample_check_runs: int | None = None


BUDGETS = {
    "quick": Budget(
        name="quick", synthetic_n=1000, synthetic_d=5, rate_grid=(250, 500, 1000),
        # the quick budget is a smoke run: the check of the catalogue's batched sample() against single runs
        # (up to 2 minutes, mostly lr21.alg3's 7 s runs) is left to the standard and paper budgets
        sample_check_runs=0,
    ),
    "standard": Budget(
        name="standard", synthetic_n=4000, synthetic_d=5, rate_grid=(250, 500, 1000, 2000, 4000),
        # the check of the catalogue's batched sample() against single runs is left to the paper budget: with
        # fewer audit runs than the check's reference runs (ProxGD: 150) the auditor would drop sample() and
        # run every run alone (ProxGD's audit then takes over 15 minutes instead of seconds)
        sample_check_runs=0,
    ),
    "paper": Budget(
        name="paper", synthetic_n=8000, synthetic_d=5, rate_grid=(250, 500, 1000, 2000, 4000, 8000, 16000),
    ),
}
assert tuple(BUDGETS) == BUDGET_NAMES  # every entry declares its cost in each of these budgets


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
        out, _ = run_outputs(self.entry, data["X"], data["y"], self.problem, self.epsilon, self.delta, rng, n,
                             self.options, chunk=self.entry.audit_chunk)
        return out


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


def _fresh_rng(s: np.random.SeedSequence) -> np.random.Generator:
    """A generator from a fresh copy of ``s`` (same entropy and spawn key, no children spawned yet)."""
    return np.random.default_rng(np.random.SeedSequence(s.entropy, spawn_key=s.spawn_key))


#: record keys of every check: the common ones and the entries' own (``ExtraChecks``)
CHECK_KEYS = ("empirical", "population", "rate", *(key for key, _ in extra_check_labels(CATALOGUE)), "stability")


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
    corrected, printed, source = entry.stability_bound(release, PublicInputs(n, d, eps, delta, L_f, problem.radius))
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
    cost = entry.cost(budget.name)
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
    k = cost.audit_runs
    Xn, yn = replace_one_extreme(X, y, DataBounds(1.0, 1.0))
    probe = entry.run(X, y, problem, eps, delta, np.random.default_rng(s_audit.spawn(1)[0]), **options)
    claim: PrivacyClaim = probe.claim
    record["claim"] = claim.to_dict()
    if k > 0:
        _progress(f"{entry.name}: privacy audit, {k} runs per side", quiet)
        # the strongest estimator whose assumptions hold for this release (dpsco.verification.auditing.estimators)
        info = {"deterministic": entry.deterministic, "output_dimension": int(X.shape[1])}
        choice = choose_estimator(claim, info)
        reason = choice.pop("reason")
        res = audit(_AlgorithmMechanism(entry, problem, eps, delta, options), {"X": X, "y": y}, {"X": Xn, "y": yn},
                    claim, k, np.random.default_rng(s_audit), confidence=confidence,
                    sample_check_runs=budget.sample_check_runs, **choice)
        record["audit"] = res.to_dict()
        record["audit"]["estimator_choice"] = {"estimator": choice["estimator"], "reason": reason}
        record["audit"].update({"mode": "black-box", "runs_per_side": k, "epsilon_true": None,
                                "p_value": black_box_p_value(record["audit"])})
    else:
        record["audit_not_run"] = f"no audit samples in the {budget.name} budget" + (
            f": {entry.audit_note}" if entry.audit_note else "")
    if entry.white_box and cost.white_box_runs > 0:  # the strongest sound mode: every noisy gradient observed
        _progress(f"{entry.name}: white-box audit, {cost.white_box_runs} runs per side", quiet)
        record["white_box_audit"] = white_box_entry_audit(entry, cost.white_box_runs, s_audit.spawn(1)[0],
                                                          confidence=confidence, options=options)
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
    R = cost.replicates
    _progress(f"{entry.name}: excess empirical risk, {R} runs", quiet)
    excess, release = _excess_samples(entry, X, y, problem, eps, delta, np.random.default_rng(s_emp), R, options,
                                      value, ref_value)
    real_inputs = PublicInputs(n, d, eps, delta, L, M)
    checks["empirical"] = mean_bound_check(f"{entry.name}: E[excess empirical risk] ≤ bound",
                                           np.maximum(excess, 0.0), entry.empirical_bound(release, real_inputs),
                                           (0.0, emp_range), budget.alpha_display)
    for printed in entry.printed_bounds.get("empirical", ()):
        add_reference_bound(checks["empirical"], *printed(release, real_inputs))
    record["empirical_oracle"] = oracle_record
    # 3. excess population risk on the synthetic instance
    ns, ds = budget.synthetic_n, budget.synthetic_d
    syn = synthetic_side(entry, ds, np.random.default_rng(s_inst), options, eps)
    srelease = None
    if syn.population is not None and entry.population_bound is not None:
        Rp = cost.population_runs
        _progress(f"{entry.name}: excess population risk on {syn.name}, {Rp} fresh datasets of n = {ns}", quiet)
        pop = [syn.population(ns, np.random.default_rng(c)) for c in s_pop.spawn(Rp)]
        srelease = pop[-1][1]
        Ls, Ms = _lipschitz(srelease), syn.radius
        pop_range = objective_range(srelease.parameters) if spec is not None else 2 * Ms * Ls
        syn_inputs = PublicInputs(ns, ds, eps, 1.0 / ns**2, Ls, Ms)
        checks["population"] = mean_bound_check(
            f"{entry.name}: E[excess population risk] ≤ bound", [e for e, _ in pop],
            entry.population_bound(srelease, syn_inputs), (0.0, pop_range), budget.alpha_display)
        for printed in entry.printed_bounds.get("population", ()):
            add_reference_bound(checks["population"], *printed(srelease, syn_inputs))
        accuracy = syn.info.get("minimiser_accuracy")
        record["population_instance"] = {
            "name": syn.name, "n": ns, "d": ds, "epsilon": eps, "delta": 1.0 / ns**2,
            "minimiser_accuracy": accuracy if accuracy is not None else syn.cache["oracle"].gap_bound,
            "distribution": syn.info["distribution"],
            **({"objective": spec.name, "pool_size": POOL_SIZE} if spec is not None else {})}
    else:
        record["population_not_applicable"] = (
            f"{spec.name if spec else 'this objective'} is not an average of a per-sample loss: the paper states "
            "only empirical bounds for it (Props 4.1, 4.2), so there is no population claim to check")
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
            return bound_fn(rel, PublicInputs(m, ds, eps, 1.0 / m**2, _lipschitz(rel), syn.radius))

        # a priori range of one excess value (Hoeffding): the parameters it needs do not depend on n
        ref = srelease if srelease is not None else draw(budget.rate_grid[0], np.random.default_rng(s_rate.spawn(1)[0]))[1]
        rate_range = objective_range(ref.parameters) if spec is not None else 2 * _lipschitz(ref) * syn.radius
        rate = rate_check(f"{entry.name}: rate in n ({quantity} excess)",
                          f"{entry.utility_theorem}: E[excess] ≤ C·n^{entry.rate_exponent:.3g}",
                          entry.rate_exponent, budget.rate_grid, cost.rate_runs, draw_excess, s_rate,
                          bounds=bound_at, value_range=(0.0, rate_range),
                          progress=None if quiet else (lambda msg: _progress(msg, quiet)))
        rate.extra["bounds"] = rate.bounds
        rate.extra["quantity"] = quantity
        checks["rate"] = rate

    if entry.extra_checks is not None:  # the entry's own checks, on streams spawned from s_rate after the rate's
        _progress(f"{entry.name}: own checks {list(entry.extra_checks.keys)}", quiet)
        checks.update(entry.extra_checks.run(ExtraCheckInputs(budget.rate_grid, cost.rate_runs, s_rate)))
    # 5. uniform stability by coupled runs on the real data
    R_stab = cost.stability_runs
    _progress(f"{entry.name}: uniform stability, {R_stab} coupled runs × 2 pairs", quiet)
    checks["stability"] = _stability(entry, X, y, problem, eps, delta, s_stab, R_stab, options)
    # 6. gradient evaluations
    paper = entry.paper_gradient_count(release, real_inputs)
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
    audits = [a for rec, _ in records for a in (rec.get("audit"), rec.get("white_box_audit")) if a is not None]
    apply_holm_to_audits(audits, 1.0 - confidence)  # all audits of the run: one family-wise α (Holm)
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
                    | {r["name"] for r in out_records for key in ("audit", "white_box_audit")
                       if (r.get(key) or {}).get("verdict") == "refuted"})
    results = {
        "budget": b.name,
        "seed_entropy": str(ss.entropy),
        "epsilon": 1.0,
        "delta": 1.0 / real.n**2,
        "radius": RADIUS,
        "checks": len(all_checks),
        "alpha_campaign": alpha,
        "audit_confidence": confidence,
        "audit_family": {"audits": len(audits), "family_wise_alpha": 1.0 - confidence, "method": "holm",
                         "white_box_instance": WHITE_BOX_INSTANCE.to_dict()},
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
