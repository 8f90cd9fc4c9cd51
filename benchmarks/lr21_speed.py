"""Lowy & Razaviyayn's slow catalogue entries, before and after, side by side in one run (seconds).

Usage::

    python benchmarks/lr21_speed.py [--rounds 3] [--sgd-runs 40] [--katyusha-runs 6] [--baseline COMMIT]

"Before" is ``dpsco.reference.lr21`` as it was at ``--baseline`` (read with ``git show`` into a temporary
package; default: the commit before the replicate axis and the faster single runs), "after" is the working
tree.  Both run the catalogue entries' options (``dpsco.verification.papers.lr21.catalogue``: μ = 0.1, α = 10⁻³).

1. One run (what every population and rate run of ``dpsco verify`` costs: each uses a fresh dataset) of
   ``lr21.alg1.subgradient``, ``lr21.alg1.sgd``, ``lr21.alg1.katyusha`` and ``lr21.alg3`` on the synthetic
   instance of ``dpsco.verification.campaign.synthetic`` at n = 4000, d = 5 (D = uniform on 2,000 draws of D1,
   ‖w⋆‖ = 2, W = B(0, 2), ε = 1, δ = 1/n²).  Before and after alternate ``--rounds`` times on the same data and
   seed, so a change in the shared machine's load hits both; medians are printed, and the largest difference
   between the two w_T (the runs compute the same numbers up to rounding).
2. k runs of the stochastic entries on one dataset (the real-data checks: excess empirical risk, stability) on
   the Fair data (n = 6366, d = 9): before, k calls (no replicate axis); after, one call with
   ``replicates=k``.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dpsco.reference.lr21 as lr  # noqa: E402
from dpsco.reference import Ball, DataBounds, ERMProblem, get_loss  # noqa: E402

BASELINE = "a60800d5ec44702acded80e6031327ddd4add4b7"  # HEAD before the replicate axis of the stochastic methods
MODULES = ("__init__", "theorems", "objectives", "inner_solvers", "algorithms")
OPTIONS = {"mu": 0.1, "alpha": 1e-3}  # the catalogue's (dpsco.verification.papers.lr21.catalogue: MU_REAL, ALPHA_SUBGRADIENT)


def load_baseline(commit: str, where: Path) -> object:
    """``dpsco.reference.lr21`` at ``commit`` as the package ``lr21_baseline`` (its own imports rewritten)."""
    pkg = where / "lr21_baseline"
    pkg.mkdir()
    for mod in MODULES:
        src = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:reference/lr21/{mod}.py"], check=True,
                             capture_output=True, text=True).stdout
        (pkg / f"{mod}.py").write_text(src.replace("dpsco.reference.lr21", "lr21_baseline"), encoding="utf-8")
    sys.path.insert(0, str(where))
    return importlib.import_module("lr21_baseline")


def synthetic_data(n: int, d: int) -> tuple[np.ndarray, np.ndarray, ERMProblem]:
    """A sample of the synthetic instance the campaign uses for the objective entries (synthetic_side)."""
    from dpsco.oracles.population import d1_logistic
    from dpsco.verification.campaign.synthetic import POOL_SIZE, SYN_OBJECTIVE_RADIUS

    rng = np.random.default_rng(1)
    u = rng.standard_normal(d)
    inst = d1_logistic(d, radius=SYN_OBJECTIVE_RADIUS, rng=rng, w_star=SYN_OBJECTIVE_RADIUS * u / np.linalg.norm(u))
    PX, Py = inst.sample(POOL_SIZE, rng)
    idx = rng.integers(0, POOL_SIZE, size=n)
    return PX[idx], Py[idx], ERMProblem(get_loss("logistic"), inst.domain, inst.bounds)


def run_entry(mod: object, entry: str, X: np.ndarray, y: np.ndarray, problem: ERMProblem, seed: int,
              replicates: int | None = None) -> object:
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    if entry == "alg3":
        game = mod.LinearAdversarialProblem(0.1, 0.05, 0.0, problem.bounds.x_max, problem.bounds.y_max,
                                            radius=problem.radius)
        return mod.algorithm_3(X, y, game, 1.0, 1.0 / n**2, rng)
    kw = {} if replicates is None else {"replicates": replicates}
    return mod.algorithm_1(X, y, problem, 1.0, 1.0 / n**2, rng, method=entry, **OPTIONS, **kw)


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=4000)
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--sgd-runs", type=int, default=40)
    ap.add_argument("--katyusha-runs", type=int, default=6)
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--skip-single", action="store_true")
    ap.add_argument("--skip-replicates", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        old = load_baseline(args.baseline, Path(tmp))
        print(f"baseline {args.baseline[:10]} against the working tree; rounds alternate before/after")
        if not args.skip_single:
            X, y, problem = synthetic_data(args.n, args.d)
            print(f"\n1. one run on the synthetic instance, n = {args.n}, d = {args.d} (median of {args.rounds})")
            print(f"{'entry':<12}{'before s':>10}{'after s':>10}{'speed-up':>10}{'max |Δw_T|':>13}  path (after)")
            for entry in ("subgradient", "sgd", "katyusha", "alg3"):
                before, after, diff = [], [], 0.0
                for r in range(args.rounds):
                    tb, rb = timed(lambda: run_entry(old, entry, X, y, problem, 100 + r))
                    ta, ra = timed(lambda: run_entry(lr, entry, X, y, problem, 100 + r))
                    before.append(tb)
                    after.append(ta)
                    diff = max(diff, float(np.max(np.abs(rb.nonprivate_internals["w_T"]
                                                         - ra.nonprivate_internals["w_T"]))))
                mb, ma = statistics.median(before), statistics.median(after)
                print(f"{entry:<12}{mb:>10.2f}{ma:>10.2f}{mb / ma:>9.1f}×{diff:>13.1e}  "
                      f"{ra.diagnostics['inner_path']}", flush=True)
        if not args.skip_replicates:
            from dpsco.verification.campaign.datasets import load_fair

            real = load_fair()
            problem = ERMProblem(get_loss("logistic"), Ball(2.0), DataBounds(1.0, 1.0))  # the campaign's real problem
            print(f"\n2. k runs on the real data (n = {real.n}, d = {real.d}): k single calls before, "
                  "one call with replicates=k after")
            print(f"{'entry':<12}{'k':>4}{'before s':>10}{'after s':>10}{'speed-up':>10}  paths (after)")
            for entry, k in (("sgd", args.sgd_runs), ("katyusha", args.katyusha_runs)):
                tb, _ = timed(lambda: [run_entry(old, entry, real.X, real.y, problem, 200 + i) for i in range(k)])
                ta, ra = timed(lambda: run_entry(lr, entry, real.X, real.y, problem, 300, replicates=k))
                print(f"{entry:<12}{k:>4}{tb:>10.1f}{ta:>10.1f}{tb / ta:>9.1f}×  {ra.diagnostics['inner_path']}",
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
