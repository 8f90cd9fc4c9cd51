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

Where it runs: every entry is split into its phases (``dpsco.verification.campaign.phases``), which run as
independent tasks on every local core by default (``--workers N``), or on a Dask cluster (``--scheduler
tcp://HOST:PORT``); each task's streams come from the campaign's seed, so the numbers do not depend on the
executor.  Each finished task is checkpointed in ``DIR/checkpoints``; after an interruption ``--resume`` runs
only the missing ones (``dpsco.verification.campaign.checkpoints``).  Progress: a bar with total and ETA on a
terminal; one log line per finished task otherwise (a terminal of zero width counts as none); ``-q`` hides both.
Without ``--seed`` the campaign's seed is drawn from OS entropy, printed ("seed: S — rerun with --seed S") and
recorded in results.json (provenance.seed); ``--resume`` without ``--seed`` reuses the checkpoints' seed.
``--list-checks ENTRY`` lists an entry's checks and audits without running them.

Output: ``--out DIR`` is checked before anything is computed (exit 2 if it cannot be created or replaced).
results.json and the reports are then written as one set: built in a temporary directory next to DIR and
swapped in, so DIR never mixes files of two runs.  An existing DIR is replaced only if it holds nothing but
files verify writes (results.json, report.md, report.html, tables.tex); anything else is refused.  If the
set cannot be written at the end, results.json is saved elsewhere and the message says where.

Exit status: 0 if no check failed and no audit refuted a claim, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import json
import logging
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from dpsco.reference import Ball, get_loss
from dpsco.reference.privacy import to_jsonable

from dpsco.verification.executors import Executor, get_executor, validate_workers
from dpsco.verification.progress import progress_bar
from dpsco.verification.papers.catalogue import BUDGET_NAMES, CATALOGUE, CatalogueEntry, extra_check_labels
from dpsco.verification.campaign.audits import WHITE_BOX_INSTANCE, apply_holm_to_audits
from dpsco.verification.campaign.checkpoints import CHECKPOINT_DIR, clear_checkpoints, load_checkpoints, save_checkpoint
from dpsco.verification.campaign.datasets import load_fair
from dpsco.verification.campaign.fileio import (OutputError, atomic_write_text, check_output_directory, exclusive_output,
                                               staged_directory)
from dpsco.verification.campaign.phases import RADIUS, PhaseBudget, assemble_entry, entry_phases, run_phase
from dpsco.verification.campaign.rederive import rederive_campaign
from dpsco.verification.campaign.report_html import format_html
from dpsco.verification.campaign.report_latex import format_latex
from dpsco.verification.campaign.report_markdown import format_markdown
from dpsco.verification.campaign.report_table import format_table
from dpsco.verification.campaign.results_record import (SCHEMA_VERSION, decode_nonfinite, encode_nonfinite,
                                                        record_power, shape_record, upgrade_results, validate_results)
from dpsco.verification.checks.power import label_uninformative
from dpsco.verification.checks.theorem_checks import apply_holm

__all__ = ["Budget", "BUDGETS", "REPORT_DIRS", "REPORT_FILES", "print_summary", "regenerate_reports", "run_verification",
           "write_reports"]

DEFAULT_SEED = 20191208  # NeurIPS 2019 opening day; any fixed integer would do — it is recorded
CAMPAIGN_ALPHA = 1e-3
# the one default confidence of every command, dpsco.verification.cli.conventions.DEFAULT_CONFIDENCE (the campaign
# layer does not import the CLI's; tests/test_cli_conventions.py checks that the two are equal)
AUDIT_CONFIDENCE = 0.95
_log = logging.getLogger("dpsco.cli.verify")  # dpsco.verification.cli.conventions.get_logger("verify")


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


#: record keys of every check: the common ones and the entries' own (``ExtraChecks``)
CHECK_KEYS = ("empirical", "population", "rate", *(key for key, _ in extra_check_labels(CATALOGUE)), "stability")


def _progress(msg: str, quiet: bool) -> None:
    """A log line (INFO, logger dpsco.cli.verify: ``-q`` hides it) unless ``quiet``."""
    if not quiet:
        _log.info(msg)


def _phase_budget(b: Budget) -> PhaseBudget:
    return PhaseBudget(b.name, b.synthetic_n, b.synthetic_d, tuple(b.rate_grid), b.alpha_display,
                       b.sample_check_runs)


#: rough relative cost of each phase, to start the longest tasks first (the makespan on few workers is
#: set by the last long task to start); any order gives the same numbers
_PHASE_WEIGHT = {"audit": 6, "stability": 5, "population": 4, "white_box": 3, "rate": 3, "extra": 2, "empirical": 1}


def _task_order(entries: Sequence[CatalogueEntry], budget: str) -> list[tuple[str, str]]:
    """(entry, phase) pairs, heaviest first: by the phase's weight times the entry's runs in that phase."""
    def weight(e: CatalogueEntry, phase: str) -> float:
        if e.suite is not None:  # a suite task's weight estimates its seconds in the standard budget
            return 100.0 * next(t.weight for t in e.suite.tasks if t.name == phase)
        c = e.cost(budget)
        runs = {"audit": 2 * c.audit_runs / 100 if e.replicate_axis else 2 * c.audit_runs,
                "white_box": c.white_box_runs / 1000, "stability": 4 * c.stability_runs,
                "population": c.population_runs, "rate": c.rate_runs * 5, "extra": c.rate_runs * 10,
                "empirical": c.replicates / 100 if e.replicate_axis else c.replicates}[phase]
        return _PHASE_WEIGHT[phase] * max(runs, 1.0)

    tasks = [(e.name, p) for e in entries for p in entry_phases(e, budget)]
    by_name = {e.name: e for e in entries}
    return sorted(tasks, key=lambda t: -weight(by_name[t[0]], t[1]))


class _CheckView:
    """A check's dict as the object Holm's procedure reads and writes (``p_value``, ``verdict``)."""

    def __init__(self, d: dict[str, Any]):
        self._d = d

    @property
    def p_value(self) -> float:
        return float(self._d["p_value"])

    @property
    def verdict(self) -> Any:
        return self._d.get("verdict")

    @verdict.setter
    def verdict(self, value: str) -> None:
        self._d["verdict"] = value


def _campaign_key(budget: str, seed: int, confidence: float) -> dict[str, Any]:
    """What a checkpoint must share to be resumed: the options that change numbers and the code that computes
    them — a digest of the installed package's source files, which notices every edit (a git commit plus a bare
    "+dirty" flag did not, and outside git only the version was compared)."""
    return {"budget": budget, "seed": seed, "confidence": confidence, "dpsco": _versions()["dpsco"],
            "source_sha256": source_digest()}


#: the installed package's root (the folder of dpsco/__init__.py: this file is verification/campaign/verify.py)
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def source_digest(root: str | None = None) -> str:
    """SHA-256 of the installed dpsco package's source (``root``, default :data:`PACKAGE_ROOT`): every ``.py``
    and ``.json`` file of ``dpsco``, ``dpsco.reference``, ``dpsco.oracles`` and ``dpsco.verification`` (relative
    path and bytes, in sorted order).  Any change to the code that computes a campaign's numbers changes it."""
    import hashlib

    root = PACKAGE_ROOT if root is None else root
    h = hashlib.sha256()
    files = [os.path.join(root, "__init__.py")]
    for sub in ("reference", "oracles", "verification"):
        for base, dirs, names in os.walk(os.path.join(root, sub)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [os.path.join(base, n) for n in names if n.endswith((".py", ".json"))]
    for path in sorted(files):
        h.update(os.path.relpath(path, root).replace(os.sep, "/").encode())
        h.update(b"\0")
        with open(path, "rb") as fh:
            h.update(fh.read())
        h.update(b"\0")
    return h.hexdigest()


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
"""Every file ``dpsco verify`` writes into ``--out``: with :data:`REPORT_DIRS`, the only entries a directory may
hold to be replaced."""
REPORT_DIRS = frozenset({CHECKPOINT_DIR})
"""The directories ``dpsco verify`` writes into ``--out`` while it runs (checkpoints, gone once it completes)."""


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
    readable = decode_nonfinite(results)  # the reports read non-finite numbers as floats
    files = [("results.json", text)] + [(_REPORT_WRITERS[f][0], _REPORT_WRITERS[f][1](readable)) for f in formats]
    with staged_directory(out, REPORT_FILES, allowed_dirs=REPORT_DIRS) as tmp:
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
        _log.error(note)
        raise


def run_verification(*, budget: str = "standard", out: str = "dpsco-report", seed: int = DEFAULT_SEED,
                     only: str | None = None, quiet: bool = False, confidence: float = AUDIT_CONFIDENCE,
                     alpha: float = CAMPAIGN_ALPHA, formats: Sequence[str] = ("md", "html"),
                     workers: int | None = None, scheduler: Any = None, resume: bool = False,
                     executor: Executor | None = None) -> dict[str, Any]:
    """Run the campaign and write ``results.json`` and the reports to ``out`` as one set (:func:`write_reports`).

    ``budget``: "quick" | "standard" | "paper" (sample sizes, replicates, grids).  ``confidence``: confidence
    of each privacy audit (a correct algorithm is refuted with probability ≤ 1 − confidence).  ``alpha``:
    family-wise false-failure probability of all checks of the papers' claims together (Holm).

    Where the phases run (``dpsco.verification.executors``): ``executor`` if given, else the Dask cluster at
    ``scheduler`` (``tcp://HOST:PORT``), else ``workers`` local processes (default: every core; 1: this
    process).  The numbers do not depend on it.  Each finished phase is checkpointed in ``out/checkpoints``;
    ``resume=True`` reuses the checkpoints of the same campaign (``dpsco.verification.campaign.checkpoints``)
    and runs only the rest.  On Ctrl-C the checkpoints stay and KeyboardInterrupt propagates.

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
    validate_workers(workers)
    _check_formats(formats)
    check_output_directory(out, REPORT_FILES, allowed_dirs=REPORT_DIRS)  # fail now, not after the campaign
    with exclusive_output(out):   # a second run on the same --out is refused, never silently overwritten
        return _run_locked(budget=budget, out=out, seed=seed, only=only, quiet=quiet, confidence=confidence,
                           alpha=alpha, formats=formats, workers=workers, scheduler=scheduler, resume=resume,
                           executor=executor)


def _run_locked(*, budget: str, out: str, seed: int, only: str | None, quiet: bool, confidence: float, alpha: float,
                formats: Sequence[str], workers: int | None, scheduler: Any, resume: bool,
                executor: Executor | None) -> dict[str, Any]:
    """The campaign of :func:`run_verification`, while it holds the lock on ``out``."""
    key = _campaign_key(budget, seed, confidence)
    done = load_checkpoints(out, key) if resume else {}
    from dpsco.oracles.minimizers import certified_oracle

    t0, cpu0 = time.time(), _cpu_seconds()
    b = BUDGETS[budget]
    entries = [e for e in CATALOGUE if only is None or only in e.name]
    if not entries:
        raise ValueError(f"--only {only!r} matches no catalogue entry; known: {[e.name for e in CATALOGUE]}")
    ss = np.random.SeedSequence(seed)
    real = load_fair()
    oracle = None
    if any(e.suite is None for e in entries):  # suite entries bring their own data and oracles
        _progress(f"real data: {real.name}, n = {real.n}, d = {real.d}; certified oracle for min L̂ over "
                  f"B(0, {RADIUS})", quiet)
        oracle = certified_oracle(get_loss("logistic"), real.X, real.y, Ball(RADIUS), cross_check=budget != "quick")
    oracle_values = {"value": math.nan, "gap_bound": math.nan} if oracle is None else {
        "value": oracle.value, "gap_bound": oracle.gap_bound}
    tasks = _task_order(entries, budget)
    todo = [t for t in tasks if t not in done]
    if not resume:
        clear_checkpoints(out)
    own = executor is None
    ex = get_executor(workers, scheduler) if own else executor
    assert ex is not None
    _progress(f"{len(tasks)} tasks ({len(entries)} entries), {len(tasks) - len(todo)} from checkpoints; "
              f"running on {ex.description}", quiet)
    results = dict(done)
    pb = _phase_budget(b)
    args = [(name, phase, pb, seed, confidence, oracle_values)
            for name, phase in todo]
    # a bar with total and ETA on a terminal; one log line per finished task otherwise (also under a zero-width
    # pseudo-terminal, which is not a terminal: dpsco.verification.progress)
    bar = progress_bar(len(todo), "campaign", enabled=not quiet, logger=_log)
    checkpointing = True
    try:
        for i, res in ex.as_completed(run_phase, args):
            if checkpointing:
                try:
                    save_checkpoint(out, key, res)
                except OSError as exc:  # the campaign goes on; only --resume loses (said once)
                    checkpointing = False
                    _log.warning(f"cannot save checkpoints in {out!r} ({exc}); the campaign continues without them")
            results[todo[i]] = res
            bar.set_postfix_str(f"{res['entry']} {res['phase']} done in {res['seconds']:.0f} s")
            bar.update(1)
        wall, cpu = time.time() - t0, _cpu_seconds() - cpu0  # before the workers exit with their CPU times
    except KeyboardInterrupt:
        bar.close()
        _log.error(f"interrupted; {len(results)} of {len(tasks)} tasks are saved in "
                   f"{os.path.join(out, CHECKPOINT_DIR)}: continue with the same options and --resume")
        raise
    finally:
        bar.close()
        if own:
            ex.close()
    records = [assemble_entry(e, budget, {p: results[(e.name, p)] for p in entry_phases(e, budget)})
               for e in entries]
    all_checks = [_CheckView(r[k]) for r in records for k in CHECK_KEYS if isinstance(r.get(k), dict)]
    all_checks += [_CheckView(c) for r in records for c in r.get("suite_checks", {}).values()]
    apply_holm(all_checks, alpha)
    # a pass without the power to fail on a violation of the claim by a factor of two is not evidence
    uninformative = label_uninformative([c._d for c in all_checks])
    audits = [a for rec in records for a in (rec.get("audit"), rec.get("white_box_audit")) if a is not None]
    audits += [a for rec in records for a in rec.get("suite_audits", {}).values()]
    apply_holm_to_audits(audits, 1.0 - confidence)  # all audits of the run: one family-wise α (Holm)
    uninformative_audits = label_uninformative(audits, audits=True)
    failed = sorted({r["name"] for r in records for key_ in CHECK_KEYS
                     if (r.get(key_) or {}).get("verdict") == "fail"}
                    | {r["name"] for r in records for key_ in ("audit", "white_box_audit")
                       if (r.get(key_) or {}).get("verdict") == "refuted"}
                    | {r["name"] for r in records for c in r.get("suite_checks", {}).values()
                       if c.get("verdict") == "fail"}
                    | {r["name"] for r in records for a in r.get("suite_audits", {}).values()
                       if a.get("verdict") == "refuted"})
    busy = sum(results[t]["seconds"] for t in todo)
    # one record shape for every entry (results_record): claim, audits, checks, planted_bugs, power, provenance
    shaped = [shape_record(r, CHECK_KEYS) for r in records]
    cannot_refute = sum(1 for r in shaped for p in r["power"].values() if p.get("can_refute") is False)
    results_json = {
        "schema_version": SCHEMA_VERSION,
        "budget": b.name,
        "seed_entropy": str(ss.entropy),
        "epsilon": 1.0,
        "delta": 1.0 / real.n**2,
        "radius": RADIUS,
        "checks": len(all_checks),
        "uninformative_checks": uninformative,
        "uninformative_audits": uninformative_audits,
        "audits_that_cannot_refute": cannot_refute,
        "alpha_campaign": alpha,
        "audit_confidence": confidence,
        "audit_family": {"audits": len(audits), "family_wise_alpha": 1.0 - confidence, "method": "holm",
                         "white_box_instance": WHITE_BOX_INSTANCE.to_dict()},
        "dataset": real.to_dict(),
        "oracle": None if oracle is None else oracle.to_dict(),
        "records": shaped,
        "verdict": "fail" if failed else "pass",
        "failed": failed,
        "provenance": {"versions": _versions(), "git_commit": _git_commit(), "machine": platform.platform(),
                       "processor": platform.machine(), "cpu_count": os.cpu_count(),
                       "executor": ex.to_dict(), "tasks": len(tasks), "tasks_resumed": len(tasks) - len(todo),
                       "wall_seconds": wall,
                       # CPU seconds of this process and its local workers over the run, and that over
                       # wall × workers: how busy the executor kept the cores (None on Dask: remote CPUs)
                       "cpu_seconds": None if ex.kind == "dask" else cpu,
                       "cpu_utilisation": cpu / (wall * ex.workers) if wall > 0 and ex.kind != "dask" else None,
                       # the same from the tasks' own wall times: Σ task seconds / (wall × workers)
                       "task_seconds": busy, "task_utilisation": busy / (wall * ex.workers) if wall > 0 else None,
                       "command": " ".join(sys.argv), "seed": seed,
                       "seed_entropy": str(ss.entropy), "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
    }
    results_json = encode_nonfinite(to_jsonable(results_json))  # ∞, NaN: {"value": null, "reason": ...}
    try:
        validate_results(results_json)
    except ValueError as exc:  # a bug of ours: say so, but never lose the campaign's numbers
        print(f"dpsco verify: warning: results.json does not match its published schema ({exc})", file=sys.stderr)
    _write_campaign(results_json, out, formats)
    return results_json


def _check_power(results: dict[str, Any]) -> None:
    """Refuse a results.json whose stored power figures differ from those recomputed from its records (a stored
    figure is believed only if it can be recomputed: campaign.rederive)."""
    for rec in results["records"]:
        want = encode_nonfinite(record_power(rec))
        stored = rec.get("power") or {}
        if stored != want:
            bad = sorted(k for k in set(want) | set(stored) if stored.get(k) != want.get(k))
            raise ValueError(f"{rec.get('name')}: power {bad[:3]} differs from the figures recomputed from its records")


def _cpu_seconds() -> float:
    """CPU seconds (user + system) of this process, its reaped children and its live descendants (the
    process pool's workers, children of the forkserver: psutil reads them while they run)."""
    import resource

    import psutil

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    for child in psutil.Process().children(recursive=True):
        try:
            t = child.cpu_times()
        except psutil.Error:  # ended meanwhile
            continue
        total += t.user + t.system
    return total


def regenerate_reports(from_json: str, out: str, formats: Sequence[str], wide: bool = False) -> int:
    """``dpsco verify --from RESULTS_JSON``: check the file, re-derive its verdicts, write the reports into
    ``out`` and print the table; returns the exit status (0 pass, 1 fail).  ValueError (one line naming --from
    or --out) for an unusable file or directory."""
    check_output_directory(out, REPORT_FILES, allowed_dirs=REPORT_DIRS)
    try:
        with open(from_json, encoding="utf-8") as fh:
            text = fh.read()
        results = json.loads(text)
    except (OSError, ValueError) as exc:  # ValueError: JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"cannot read --from {from_json!r}: {exc}") from None
    try:
        # a file of the shape before schema version 2 is reshaped (and written in the current shape)
        results, upgraded = upgrade_results(results, CHECK_KEYS)
        validate_results(results)
        verdict, _failed = rederive_campaign(decode_nonfinite(results), CHECK_KEYS)   # nothing stored is believed that can be recomputed
        _check_power(results)
    except ValueError as exc:
        raise ValueError(f"--from {from_json!r} is not a usable dpsco results.json: {exc}") from None
    if upgraded:
        print(f"dpsco verify: --from {from_json!r} has the record shape before schema version "
              f"{SCHEMA_VERSION}; its results.json copy is written in the current shape", file=sys.stderr)
    try:
        with exclusive_output(out):
            written = write_reports(results, out, formats, results_text=None if upgraded else text)
    except OutputError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError) as exc:
        raise ValueError(f"--from {from_json!r}: cannot render the reports from it "
                         f"({type(exc).__name__}: {exc})") from None
    print(format_table(decode_nonfinite(results), wide=wide))
    print("\nregenerated: " + ", ".join(written))
    return 0 if verdict == "pass" else 1


def print_summary(results: dict[str, Any], out: str, formats: Sequence[str], wide: bool = False) -> int:
    """The terminal table and verdict line of a finished campaign; returns its exit status (0 pass, 1 fail)."""
    print(format_table(decode_nonfinite(results), wide=wide))
    print(f"\nverdict: {results['verdict']}  (results: {os.path.join(out, 'results.json')}, reports: "
          f"{', '.join(formats)} in {out}, {results['provenance']['wall_seconds']:.0f} s)")
    return 0 if results["verdict"] == "pass" else 1
