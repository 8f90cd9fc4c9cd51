"""Drawing the runs of a mechanism under audit, and checking a batched sampler against single runs.

:func:`draw` produces ``n`` flattened outputs of a mechanism on one dataset: by its vectorised
``sample(data, n, rng)`` when it has one, otherwise by a loop of ``mechanism(data, rng)`` (optionally in a
process pool).  :func:`checked_draw` adds the consistency check of a batched sampler
(:func:`sampler_consistency`), which the audit runs before it uses the rows of ``sample``.

**Batched samplers are checked, not trusted.**  Before the rows of ``mechanism.sample(data, n, rng)`` are
used, up to ``sample_check_runs`` reference runs of ``mechanism(data, rng)`` (of ``sample(data, 1, rng)``
when the object is not callable) are drawn from an independent child stream and compared with the sample
rows: a two-sample Kolmogorov–Smirnov distance per coordinate (or per random projection when k > 16) against a
Dvoretzky–Kiefer–Wolfowitz–Massart critical value, and the rate of identical rows in disjoint consecutive
pairs (Fisher's exact test).  If sample and __call__ draw independent rows from the same distribution, the
check fails with probability <= 1e-7 per audit (both sides together; exact finite-sample bounds,
Bonferroni).  On failure :class:`SampleInconsistencyError` (a ``ValueError``) is raised: the auditor cannot
know which of the two is the intended mechanism — a noiseless ``__call__`` beside a correct ``sample`` is as
wrong as a ``sample`` that reuses one noise draw for the whole batch — and looping over ``__call__`` instead
could take hours without the user knowing.

References
----------
P. Massart. The tight constant in the Dvoretzky–Kiefer–Wolfowitz inequality. Annals of Probability 18(3),
1990.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

import numpy as np
from scipy.stats import fisher_exact, ks_2samp

from dpsco.verification.auditing.inputs import as_real_output
from dpsco.verification.executors import Executor, ProcessExecutor, SerialExecutor, validate_workers

__all__ = [
    "Mechanism",
    "SAMPLE_CHECK_FALSE_ALARM",
    "SAMPLE_CHECK_RUNS",
    "SampleInconsistencyError",
    "MAX_TASKS",
    "SingleRuns",
    "checked_draw",
    "combine_checks",
    "draw",
    "sampler_consistency",
    "task_sizes",
]


@runtime_checkable
class Mechanism(Protocol):
    """A randomised mechanism under audit.

    ``__call__(data, rng) -> array``: one run on ``data`` (a mapping from names to arrays), all randomness
    drawn from ``rng`` (a ``numpy.random.Generator``); the output is any array, flattened by the auditor.
    Optionally ``sample(data, n, rng) -> (n, k) array``: ``n`` *independent* runs at once (vectorised).
    """

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray: ...


#: the runs of a mechanism without ``sample`` are drawn in at most this many tasks (a number fixed by n alone,
#: so that the draws do not depend on the executor or its number of workers)
MAX_TASKS = 256


def task_sizes(n: int) -> list[int]:
    """How ``n`` single runs are split into tasks: min(n, :data:`MAX_TASKS`) tasks of sizes differing by ≤ 1."""
    k = min(int(n), MAX_TASKS)
    return [n // k + (1 if i < n % k else 0) for i in range(k)] if k > 0 else []


def _task_runs(mechanism: Any, data: dict[str, np.ndarray], n: int, seed: np.random.SeedSequence) -> list[np.ndarray]:
    """A task: ``n`` runs of ``mechanism`` on ``data``, all drawing from one generator built from ``seed``."""
    rng = np.random.default_rng(seed)
    return [as_real_output(mechanism(data, rng)).ravel() for _ in range(n)]


def executor_for(workers: Any) -> tuple[Executor, bool]:
    """(executor, owned): ``workers`` itself if it is an Executor, else this process (None, 1) or a local pool.

    The caller closes the executor when ``owned``; an audit that draws several times (pilots, a family, a pair
    search) starts it once and passes it to every :func:`draw` and ``audit``."""
    if isinstance(workers, Executor):
        return workers, False
    w = validate_workers(workers)
    return (SerialExecutor() if w is None or w == 1 else ProcessExecutor(w)), True


def _check_picklable(mechanism: Any, data: dict[str, np.ndarray]) -> None:
    import pickle

    try:
        pickle.dumps(mechanism)
    except Exception as exc:  # PicklingError, AttributeError (local objects), TypeError
        raise TypeError(f"workers > 1 runs the mechanism in other processes, so it must be picklable (a module-level "
                        f"function or an instance of a module-level class); {mechanism!r} is not ({exc}). "
                        "Use workers=1, or a Dask executor (cloudpickle)") from None


def draw(
    mechanism: Any, data: dict[str, np.ndarray], n: int, rng: np.random.Generator, side: str,
    workers: int | Executor | None = None, progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, str]:
    """``n`` runs of ``mechanism`` on ``data`` as an (n, k) float array of flattened outputs, and how they were drawn.

    ``mechanism.sample(data, n, rng)`` if the mechanism has a callable ``sample`` (one call, in this process);
    otherwise ``mechanism(data, rng)`` run by tasks (:func:`task_sizes`), task i drawing from child i of a
    ``SeedSequence`` whose entropy is one draw from ``rng``.  The tasks run on ``workers``: an
    :class:`~dpsco.verification.executors.Executor` (a Dask cluster, say), an int (1: this process; more: a
    local process pool of that size) or None (this process).  The rows are the same whatever runs them.
    ``progress(k)`` is called with the number of runs of each finished task.  ``side`` ("dataset",
    "neighbour") names the side in errors.

    Raises
    ------
    ValueError
        Outputs of inconsistent sizes, an empty output, NaN or infinite values, or a ``sample`` result without
        ``n`` rows.
    """
    sample = getattr(mechanism, "sample", None)
    if callable(sample):
        out = as_real_output(sample(data, n, rng), f"mechanism.sample(data, {n}, rng) on the {side}")
        if out.ndim == 0 or out.shape[0] != n:
            raise ValueError(f"mechanism.sample(data, {n}, rng) on the {side} must return an array with {n} rows, got shape {out.shape}")
        out = out.reshape(n, -1)
        how = "batched (mechanism.sample)"
    else:
        sizes = task_sizes(n)
        seeds = np.random.SeedSequence(int(rng.integers(0, 2**63))).spawn(len(sizes))
        ex, owned = executor_for(workers)
        if ex.kind == "process":
            _check_picklable(mechanism, data)
        chunks: list[list[np.ndarray]] = [[] for _ in sizes]
        try:
            for i, rows_i in ex.as_completed(_task_runs, [(mechanism, data, k, s) for k, s in zip(sizes, seeds)]):
                chunks[i] = rows_i
                if progress is not None:
                    progress(len(rows_i))
        finally:
            if owned:
                ex.close()
        rows = [r for c in chunks for r in c]
        widths = sorted({r.size for r in rows})
        if len(widths) > 1:
            raise ValueError(f"mechanism outputs on the {side} have inconsistent sizes ({widths[0]} and {widths[1]})")
        out = np.stack(rows) if rows else np.empty((0, 0))
        how = (f"single runs mechanism(data, rng) in {len(sizes)} tasks (task i: child i of a SeedSequence drawn "
               "from rng; the same rows on any executor)")
    if out.shape[1] == 0:
        raise ValueError(f"mechanism output on the {side} is empty")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"mechanism output on the {side} contains NaN or infinite values")
    return out, how


#: overall false-alarm probability of the sampler check of one audit (both sides together)
SAMPLE_CHECK_FALSE_ALARM = 1e-7
#: reference runs of mechanism(data, rng) per side before a batched sample() is used (default cap)
SAMPLE_CHECK_RUNS = 200
_SAMPLE_CHECK_MIN_RUNS = 6
_SAMPLE_CHECK_MIN_SECONDS = 2.0
_SAMPLE_CHECK_TIME_FRACTION = 0.1
_SAMPLE_CHECK_MAX_PROJECTIONS = 16
_SAMPLE_CHECK_MAX_ROWS = 20_000


class SampleInconsistencyError(ValueError):
    """``mechanism.sample`` disagrees with ``mechanism(data, rng)``: the audit refuses to use it.

    Raised by :func:`checked_draw` (so by :func:`dpsco.verification.auditing.audit.audit`) when
    :func:`sampler_consistency` fails; the message is one line naming the side and the problem.  A
    ``ValueError``, so ``dpsco audit`` reports it as bad input (exit status 2).
    """


def _child_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator that leaves ``rng``'s own stream untouched (``Generator.spawn``) if possible."""
    try:
        return rng.spawn(1)[0]
    except (AttributeError, TypeError, ValueError):
        return np.random.default_rng(int(rng.integers(0, 2**63)))


def _reference_runs(
    mechanism: Any, data: dict[str, np.ndarray], m: int, rng: np.random.Generator, side: str,
    time_budget: float | None,
) -> tuple[np.ndarray, str, bool]:
    """Up to ``m`` single runs (``mechanism(data, rng)``, else ``sample(data, 1, rng)``), one per call.

    With ``time_budget`` (seconds), stops early once that much time has passed and at least
    ``_SAMPLE_CHECK_MIN_RUNS`` runs are done (the stopping rule never looks at the outputs).
    """
    if callable(mechanism):
        def one(r: np.random.Generator) -> np.ndarray:
            return as_real_output(mechanism(data, r)).ravel()
        how = "mechanism(data, rng)"
    else:
        def one(r: np.random.Generator) -> np.ndarray:
            out = as_real_output(mechanism.sample(data, 1, r), "mechanism.sample(data, 1, rng)")
            if out.ndim == 0 or out.shape[0] != 1:
                raise ValueError(f"mechanism.sample(data, 1, rng) on the {side} must return 1 row, got shape {out.shape}")
            return out.reshape(-1)
        how = "sample(data, 1, rng), one call per run (the object is not callable)"
    rows: list[np.ndarray] = []
    t0 = time.perf_counter()
    stopped = False
    for i in range(m):
        if time_budget is not None and i >= _SAMPLE_CHECK_MIN_RUNS and time.perf_counter() - t0 > time_budget:
            stopped = True
            break
        row = one(rng)
        if rows and row.size != rows[0].size:
            raise ValueError(f"mechanism outputs on the {side} have inconsistent sizes ({rows[0].size} and {row.size})")
        rows.append(row)
    out = np.stack(rows)
    if out.shape[1] == 0 or not np.all(np.isfinite(out)):
        raise ValueError(f"mechanism output on the {side} is empty or contains NaN or infinite values")
    return out, how, stopped


def _pair_collisions(rows: np.ndarray) -> tuple[int, int]:
    """(number of identical rows among the disjoint consecutive pairs (0,1), (2,3), ..., number of pairs)."""
    p = rows.shape[0] // 2
    if p == 0:
        return 0, 0
    return int(np.sum(np.all(rows[0:2 * p:2] == rows[1:2 * p:2], axis=1))), p


def _duplicate_rows(rows: np.ndarray, max_rows: int = 200_000) -> int:
    """Rows (among the first ``max_rows``) equal to an earlier row."""
    r = np.ascontiguousarray(rows[:max_rows])
    keys = r.view(np.dtype((np.void, r.dtype.itemsize * r.shape[1]))).ravel()
    return int(r.shape[0] - np.unique(keys).size)


def sampler_consistency(
    sample_rows: Any, reference_rows: Any, *, alpha: float = SAMPLE_CHECK_FALSE_ALARM,
    rng: np.random.Generator | None = None,
) -> dict[str, Any]:
    """Do the rows of a batched sampler look like independent single runs?  Two exact tests, level ``alpha``.

    ``sample_rows`` (N, k) come from ``mechanism.sample``; ``reference_rows`` (m, k) from m separate single
    runs.  Null hypothesis H₀: all rows are independent draws of one distribution F on R^k.

    1. *Marginal law*: for each of J projections (the k coordinates if k <= 16, else 16 random unit
       directions drawn from ``rng``), the two-sample Kolmogorov–Smirnov distance D_j
       (``scipy.stats.ks_2samp``; sample rows capped at the first 20,000) is compared with
       t_m + t_N, t_n = sqrt(log(4J/a)/(2n)), a = alpha/2.  By the Dvoretzky–Kiefer–Wolfowitz inequality with
       Massart's constant, P(sup|F̂_n − F| > t_n) <= a/(2J) for each sample (any F, continuous or not), so
       under H₀ P(some D_j > t_m + t_N) <= a (union bound over 2J events).
    2. *Duplicated rows*: among the disjoint consecutive pairs (rows 0-1, 2-3, ...) of each set, count the
       pairs of identical rows.  Under H₀ the two counts are independent Binomial(pairs, c) with the same
       collision probability c = Σ_x F({x})², so Fisher's exact two-sided test of equal rates has level
       <= a whatever c is (0 for continuous outputs, 1/2 for a fair bit).  A sampler that reuses one noise
       draw for the batch makes every sample pair identical; a noiseless ``__call__`` makes every reference
       pair identical.

    Total false-alarm probability under H₀: <= alpha (exact, finite-sample; no asymptotics).  Not detected:
    dependence between rows that keeps the marginal law and produces no identical rows (e.g. antithetic
    pairs), and differences too small for m reference runs (the power grows with m).

    Returns
    -------
    dict with ``consistent`` (bool), ``problem`` (one line, or None), the KS distances and critical values,
    the pair-collision counts, the Fisher p-value, duplicate-row counts (rows equal to an earlier row, among
    the first 200,000) and the false-alarm probability ``alpha``.
    """
    S = np.asarray(sample_rows, dtype=np.float64)
    R = np.asarray(reference_rows, dtype=np.float64)
    if S.ndim != 2 or R.ndim != 2 or S.shape[0] < 1 or R.shape[0] < 1:
        raise ValueError("sample_rows and reference_rows must be non-empty 2-D arrays")
    a = float(alpha) / 2.0
    info: dict[str, Any] = {"false_alarm_probability": float(alpha), "reference_runs": int(R.shape[0]),
                            "sample_rows": int(S.shape[0])}
    if S.shape[1] != R.shape[1]:
        info.update(consistent=False, problem=(f"sample() rows have {S.shape[1]} values but single runs have "
                                               f"{R.shape[1]}"))
        return info
    k = S.shape[1]
    if k <= _SAMPLE_CHECK_MAX_PROJECTIONS:
        P = np.eye(k)
        info["projections"] = "coordinates"
    else:
        g = rng if rng is not None else np.random.default_rng(0)
        P = g.standard_normal((k, _SAMPLE_CHECK_MAX_PROJECTIONS))
        P /= np.linalg.norm(P, axis=0, keepdims=True)
        info["projections"] = f"{_SAMPLE_CHECK_MAX_PROJECTIONS} random unit directions"
    J = P.shape[1]
    Ss, Rs = S[:_SAMPLE_CHECK_MAX_ROWS] @ P, R @ P
    log_term = math.log(4.0 * J / a)
    crit = math.sqrt(log_term / (2.0 * Rs.shape[0])) + math.sqrt(log_term / (2.0 * Ss.shape[0]))
    dists = [float(ks_2samp(Ss[:, j], Rs[:, j]).statistic) for j in range(J)]
    worst = int(np.argmax(dists))
    ks_ok = dists[worst] <= crit
    kc_s, pc_s = _pair_collisions(S)
    kc_r, pc_r = _pair_collisions(R)
    fisher_p = 1.0
    if pc_s > 0 and pc_r > 0:
        fisher_p = float(fisher_exact([[kc_s, pc_s - kc_s], [kc_r, pc_r - kc_r]], alternative="two-sided").pvalue)
    dup_ok = fisher_p > a
    info.update({
        "ks_distance": dists, "ks_critical_value": crit, "ks_level": a, "marginal_law_consistent": bool(ks_ok),
        "identical_pairs_sample": [kc_s, pc_s], "identical_pairs_reference": [kc_r, pc_r],
        "fisher_p_value": fisher_p, "fisher_level": a, "duplicate_rate_consistent": bool(dup_ok),
        "duplicate_rows_sample": _duplicate_rows(S), "duplicate_rows_reference": _duplicate_rows(R),
    })
    problems = []
    if not dup_ok:
        which = "sample() rows" if kc_s / pc_s > kc_r / pc_r else "single runs"
        problems.append(f"{which} repeat identical outputs far more often (identical consecutive pairs: sample() "
                        f"{kc_s}/{pc_s}, single runs {kc_r}/{pc_r}; Fisher p = {fisher_p:.3g} <= {a:.3g}), e.g. "
                        "one noise draw reused for a whole batch, or no noise in one of them")
    if not ks_ok:
        what = f"coordinate {worst}" if info["projections"] == "coordinates" else f"projection {worst}"
        problems.append(f"the distributions differ ({what}: Kolmogorov-Smirnov distance {dists[worst]:.3g} > "
                        f"{crit:.3g}, the DKW critical value at level {a:.3g})")
    info["consistent"] = not problems
    info["problem"] = "; ".join(problems) if problems else None
    return info


class SingleRuns:
    """The mechanism's ``__call__`` alone (hides ``sample``), picklable for the process pool."""

    def __init__(self, mechanism: Any) -> None:
        self.mechanism = mechanism

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> Any:
        return self.mechanism(data, rng)


def checked_draw(
    mechanism: Any, data: dict[str, np.ndarray], n: int, rng: np.random.Generator, side: str,
    workers: int | None, check_runs: int | None,
) -> tuple[np.ndarray, str, dict[str, Any]]:
    """:func:`draw`, plus the consistency check of a batched ``sample``: (rows, how, check record).

    ``check_runs``: reference single runs per side (None: up to :data:`SAMPLE_CHECK_RUNS`, stopping early
    once max(2 s, a tenth of the ``sample`` call's time) has passed; 0: no check, the sampler is trusted
    unchecked).  When ``n`` is no larger than the check would need, ``sample`` is not used at all.  The
    reference runs come from a child stream of ``rng`` (``Generator.spawn``), so ``rng``'s own stream is the
    same with or without the check.  Raises :class:`SampleInconsistencyError` if the check fails.
    """
    m = SAMPLE_CHECK_RUNS if check_runs is None else int(check_runs)
    if callable(mechanism) and callable(getattr(mechanism, "sample", None)) and 0 < n <= m:
        # a check would cost at least as many single runs as the audit needs: use single runs only
        out, how = draw(SingleRuns(mechanism), data, n, rng, side, workers)
        return out, how + "; sample() not used (no more runs than the consistency check would need)", {
            "checked": False, "reason": f"sample() not used: {n} runs <= {m} reference runs of the check"}
    t = time.perf_counter()
    out, how = draw(mechanism, data, n, rng, side, workers)
    elapsed = time.perf_counter() - t
    if not how.startswith("batched"):
        return out, how, {"checked": False, "reason": "no batched sample(): every run is a single run"}
    if check_runs == 0:
        return out, how, {"checked": False, "trusted_unchecked": True,
                          "reason": "disabled by the caller (sample_check_runs=0): sample() trusted unchecked"}
    budget = None if check_runs is not None else max(_SAMPLE_CHECK_MIN_SECONDS, _SAMPLE_CHECK_TIME_FRACTION * elapsed)
    child = _child_rng(rng)  # independent of the audit's own stream, which it leaves untouched
    ref, ref_how, stopped = _reference_runs(mechanism, data, m, child, side, budget)
    info = sampler_consistency(out, ref, alpha=SAMPLE_CHECK_FALSE_ALARM / 2.0, rng=child)
    info.update(checked=True, reference=ref_how, stopped_by_time_budget=stopped,
                time_budget_seconds=budget)
    if not info["consistent"]:
        raise SampleInconsistencyError(
            f"mechanism.sample(data, n, rng) is inconsistent with single runs of {ref_how} on the {side}: "
            f"{info['problem']} (false-alarm probability <= {SAMPLE_CHECK_FALSE_ALARM:g}); no verdict from this "
            "sampler: fix sample() so that it returns n independent runs, or remove it")
    return out, how, info


def combine_checks(check_a: dict[str, Any], check_b: dict[str, Any], how: str) -> dict[str, Any]:
    """The audit's ``sample_consistency`` record from the two sides' check records of :func:`checked_draw`."""
    if not check_a.get("checked"):
        return {"checked": False, "reason": check_a.get("reason"),
                **({"trusted_unchecked": True} if check_a.get("trusted_unchecked") else {})}
    return {"checked": True, "consistent": bool(check_a["consistent"] and check_b["consistent"]),
            "false_alarm_probability": SAMPLE_CHECK_FALSE_ALARM,
            "on_failure": "the audit raises SampleInconsistencyError (dpsco audit: exit 2); no verdict",
            "dataset": check_a, "neighbour": check_b}


#: entropy of the two identical generators of :func:`reproducibility_check` (fixed: the probe never touches the
#: audit's own stream, so the audit's numbers are the same with or without it)
REPRODUCIBILITY_ENTROPY = 20240901


def reproducibility_check(mechanism: Any, data: dict[str, np.ndarray]) -> dict[str, Any]:
    """Two runs of ``mechanism`` on ``data`` from two identical generators must give identical outputs.

    A mechanism that draws from global state (``np.random.*``, ``random``, ``os.urandom``) instead of the
    ``rng`` it is given gives different outputs: then the same seed does not reproduce its audit, and runs made
    in forked worker processes may share that global state (dependent runs, which void the audit's binomial
    bounds).  Returns {"reproducible": bool, "runs": 2, "note": str}; the generators come from
    :data:`REPRODUCIBILITY_ENTROPY`, never from the audit's stream."""
    def one() -> np.ndarray:
        r = np.random.default_rng(np.random.SeedSequence(REPRODUCIBILITY_ENTROPY))
        if callable(mechanism):
            return as_real_output(mechanism(data, r)).ravel()
        return as_real_output(mechanism.sample(data, 1, r), "mechanism.sample(data, 1, rng)").ravel()

    a, b = one(), one()
    same = a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))
    note = ("two runs from identical generators agree" if same else
            "two runs from identical generators DIFFER: the mechanism draws randomness from somewhere other than "
            "the rng it is given (np.random.*, random, os.urandom, a library's own generator), so the same seed "
            "will not reproduce this audit; seed every generator from rng (docs/auditing.md)")
    return {"reproducible": same, "runs": 2, "note": note}
