"""Batched (``replicates=k``) against one-run-at-a-time A_ObjP and efficient objective perturbation on the Fair data
of ``dpsco verify``, side by side in one run: milliseconds per run.

Usage::

    python benchmarks/objp_replicates.py [--objp-single 100] [--objp-batched 2000] [--objp-chunk 1000]
                                         [--eff-single 6] [--eff-batched 600] [--eff-chunk 600]
                                         [--rounds 2] [--threads N]

Instance: the catalogue's (``dpsco.verification.papers.bftt19.catalogue``, entries ``bftt19.objp`` and
``bftt19.efficient_objp``): Fair (n = 6366, d = 9), logistic loss, W = B(0, 2), ε = 1, δ = 1/n²; A_ObjP is
Bassily et al. (2019), Algorithm 2, efficient ObjP its Prox-SVRG variant (Sec. 5).  The single and batched timings
alternate (single, batched, single, batched) so that a change in the shared machine's load hits both; the ratio
of the medians is printed, with the worst certified distance of the batched rows.  ``--threads`` sets
OPENBLAS/OMP/MKL_NUM_THREADS before numpy loads (``dpsco verify``'s workers run one thread each).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def _args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--objp-single", type=int, default=100)
    ap.add_argument("--objp-batched", type=int, default=2000)
    ap.add_argument("--objp-chunk", type=int, default=1000)
    ap.add_argument("--eff-single", type=int, default=6)
    ap.add_argument("--eff-batched", type=int, default=600)
    ap.add_argument("--eff-chunk", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None)
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _args(argv)
    if args.threads is not None:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import numpy as np

    import dpsco.reference.bftt19 as o
    from dpsco.reference import Ball, DataBounds, ERMProblem, LogisticLoss
    from dpsco.verification.campaign.datasets import load_fair

    data = load_fair()
    X, y, n = data.X, data.y, data.n
    prob = ERMProblem(LogisticLoss(), Ball(2.0), DataBounds(1.0, 1.0))
    eps, delta = 1.0, 1.0 / n**2
    rng = np.random.default_rng(0)
    print(f"Fair n = {n}, d = {data.d}, logistic, W = B(0, 2), eps = 1, delta = 1/n^2; {args.rounds} alternating "
          f"rounds; BLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'default')} on {os.cpu_count()} CPUs")
    for name, fn, n_single, n_batched, chunk in (
            ("A_ObjP", o.objective_perturbation, args.objp_single, args.objp_batched, args.objp_chunk),
            ("efficient ObjP", o.efficient_objective_perturbation, args.eff_single, args.eff_batched,
             args.eff_chunk)):
        fn(X, y, prob, eps, delta, rng, replicates=2)  # imports and caches warm
        single, batched, worst = [], [], 0.0
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            for _ in range(n_single):
                fn(X, y, prob, eps, delta, rng)
            single.append((time.perf_counter() - t0) / n_single * 1e3)
            t0 = time.perf_counter()
            done = 0
            while done < n_batched:
                k = min(chunk, n_batched - done)
                r = fn(X, y, prob, eps, delta, rng, replicates=k)
                worst = max(worst, r.diagnostics["certificate"]["distance_bound"])
                done += k
            batched.append((time.perf_counter() - t0) / n_batched * 1e3)
        s, b = statistics.median(single), statistics.median(batched)
        print(f"{name}: one run at a time {s:.2f} ms/run (rounds: {', '.join(f'{v:.2f}' for v in single)}; "
              f"{n_single} runs each)")
        print(f"{name}: batched, chunks of {chunk}: {b:.3f} ms/run (rounds: {', '.join(f'{v:.3f}' for v in batched)}; "
              f"{n_batched} runs each); worst certified distance {worst:.3g}")
        print(f"{name}: ratio single/batched {s / b:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
