"""Scale targets of the executors, measured side by side in one run.

    python benchmarks/scale_targets.py memory [--runs 10000000]
    python benchmarks/scale_targets.py dask [--runs 400] [--ms 20] [--workers 1,2] [--sleep]

memory: an audit (``dpsco.verification.auditing.audit``) of a vectorised scalar mechanism (sum + Laplace
    noise, ``sample`` drawing all runs in one call) at ``--runs`` runs per side, in a fresh subprocess so that
    its peak resident memory (``ru_maxrss``) is the audit's own; prints the wall time and the peak.
    Target: ≤ 60 s and ≤ 2 GiB at 10⁷ runs per side.
dask: the same audit of a mechanism without ``sample`` whose single run burns ``--ms`` milliseconds of CPU
    (a numpy loop, not a sleep: sleeping would scale whatever the cores), on a Dask ``LocalCluster`` of 1 then
    2 worker processes (one thread each), alternating, 3 repetitions each; prints the median times, their
    ratio and checks that the two results are identical.  Target: ≥ 1.6× with 2 workers.
    ``--workers 1,4 --sleep`` (issue 29): 4 workers against 1 on a machine that has the cores, simulated here
    (2 cores) by a mechanism that *waits* ``--ms`` milliseconds per run (``time.sleep``: the run occupies a
    worker, not a core, as it would on a 4-core machine).  Target: ≥ 3× with 4 workers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np

CALIBRATION_N = 20_000


class BusyLaplace:
    """sum(x) + Lap(1) after about ``ms`` milliseconds of CPU work (a module-level class: picklable)."""

    def __init__(self, ms: float, reps: int):
        self.ms, self.reps = ms, reps

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        v = np.arange(CALIBRATION_N, dtype=np.float64)
        acc = 0.0
        for _ in range(self.reps):
            acc += float(np.sin(v).sum())
        return np.array([data["x"].sum() + rng.laplace(0.0, 1.0) + 0.0 * acc])


class SleepyLaplace:
    """sum(x) + Lap(1) after waiting ``ms`` milliseconds (a run that holds a worker but not a core)."""

    def __init__(self, ms: float):
        self.ms = ms

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        time.sleep(self.ms / 1000.0)
        return np.array([data["x"].sum() + rng.laplace(0.0, 1.0)])


def _untimed(d: dict) -> dict:
    """An audit record without its timings (which differ from run to run)."""
    return {k: _untimed(v) if isinstance(v, dict) else v for k, v in d.items() if "seconds" not in k}


def _calibrate(ms: float) -> int:
    """Repetitions of the inner loop that take about ``ms`` milliseconds here."""
    m = BusyLaplace(ms, 50)
    t = time.perf_counter()
    for _ in range(5):
        m({"x": np.zeros(2)}, np.random.default_rng(0))
    per_rep = (time.perf_counter() - t) / (5 * 50)
    return max(1, round(ms / 1000 / per_rep))


_MEMORY_CHILD = """
import json, resource, sys, time
import numpy as np
sys.path.insert(0, {tests!r})
from _mechanisms import LaplaceSum
from dpsco.verification.auditing.audit import audit
n = {runs}
S, S1 = {{"x": np.zeros(10)}}, {{"x": np.r_[np.zeros(9), 1.0]}}
t = time.perf_counter()
r = audit(LaplaceSum(1.0), S, S1, (1.0, 0.0), n, np.random.default_rng(1), power_family=None)
wall = time.perf_counter() - t
print(json.dumps({{"wall": wall, "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "epsilon_lower": r.epsilon_lower}}))
"""


def memory(runs: int) -> None:
    import os

    tests = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests")
    out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD.format(tests=tests, runs=runs)], check=True,
                         capture_output=True, text=True)
    rec = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"vectorised Laplace audit, {runs:,} runs per side: {rec['wall']:.1f} s, peak RSS "
          f"{rec['maxrss_mib']:.0f} MiB, ε_lb = {rec['epsilon_lower']:.4f} (claim ε = 1, exact ε = 1)")
    print(f"targets: ≤ 60 s ({'met' if rec['wall'] <= 60 else 'MISSED'}), ≤ 2048 MiB "
          f"({'met' if rec['maxrss_mib'] <= 2048 else 'MISSED'})")


def dask(runs: int, ms: float, repetitions: int, workers: tuple[int, ...] = (1, 2), sleep: bool = False) -> None:
    from distributed import LocalCluster

    from dpsco.verification.auditing.audit import audit
    from dpsco.verification.executors import DaskExecutor

    mech = SleepyLaplace(ms) if sleep else BusyLaplace(ms, _calibrate(ms))
    t = time.perf_counter()
    for _ in range(10):
        mech({"x": np.zeros(2)}, np.random.default_rng(0))
    per_run = (time.perf_counter() - t) / 10
    S, S1 = {"x": np.zeros(10)}, {"x": np.r_[np.zeros(9), 1.0]}
    times: dict[int, list[float]] = {w: [] for w in workers}
    results: dict[int, dict] = {}
    clusters = {w: LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None,
                                silence_logs=40) for w in workers}
    try:
        executors = {w: DaskExecutor(c.scheduler_address) for w, c in clusters.items()}
        for _ in range(repetitions):
            for w in workers:
                t = time.perf_counter()
                r = audit(mech, S, S1, (1.0, 0.0), runs, np.random.default_rng(5), workers=executors[w],
                          power_family=None)
                times[w].append(time.perf_counter() - t)
                results[w] = _untimed(r.to_dict())
        for ex in executors.values():
            ex.close()
    finally:
        for c in clusters.values():
            c.close()
    med = {w: statistics.median(times[w]) for w in workers}
    kind = "waiting (sleep)" if sleep else "CPU-bound"
    print(f"audit of a {per_run * 1e3:.1f} ms/run {kind} mechanism without sample(), {runs} runs per side "
          f"({2 * runs} runs), Dask LocalCluster, medians of {repetitions}:")
    base = med[workers[0]]
    print("  " + "   ".join(f"{w} worker{'s' if w > 1 else ''}: {med[w]:.1f} s ({base / med[w]:.2f}×)"
                           for w in workers))
    same = all(results[w] == results[workers[0]] for w in workers)
    print(f"  identical results with {', '.join(map(str, workers))} workers (timings aside): {same}")
    if not same:
        for w in workers[1:]:
            print(f"  differing keys ({w}):", sorted(k for k in results[workers[0]]
                                                    if results[workers[0]][k] != results[w].get(k)))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="what", required=True)
    m = sub.add_parser("memory")
    m.add_argument("--runs", type=int, default=10_000_000)
    d = sub.add_parser("dask")
    d.add_argument("--runs", type=int, default=400)
    d.add_argument("--ms", type=float, default=20.0)
    d.add_argument("--repetitions", type=int, default=3)
    d.add_argument("--workers", default="1,2", help="comma-separated worker counts, the first is the baseline")
    d.add_argument("--sleep", action="store_true", help="runs wait instead of computing (simulates the cores)")
    a = p.parse_args()
    if a.what == "memory":
        memory(a.runs)
    else:
        dask(a.runs, a.ms, a.repetitions, tuple(int(w) for w in a.workers.split(",")), a.sleep)


if __name__ == "__main__":
    main()
