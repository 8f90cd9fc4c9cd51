"""Batched (``replicates=R``) against one-run-at-a-time A_NSGD, side by side in one run: runs per second.

Usage::

    python benchmarks/replicate_axis.py [--batched-runs 20000] [--single-runs 500] [--chunk 2000] [--d 10]

Instance: the white-box audit's (``benchmarks/white_box_targets.py``): A_NSGD
(``dpsco.reference.bftt19.noisy_sgd``, Bassily et al. 2019, Algorithm 1), linear loss, n = 1000, d = ``--d``,
W = B(0, 1), ε = 1, δ = 10⁻⁶ (T = 125, m = 45), on the one-sided canary's neighbour.  The two timings
alternate (single, batched, single, batched) so that a change in the shared machine's load hits both; the
ratio of the medians is printed.  Both paths run the same loop (``nsgd_core``); a single run is
``replicates=None``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dpsco.reference.bftt19 as o  # noqa: E402
from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss  # noqa: E402

PROBLEM = ERMProblem(LinearLoss(), Ball(1.0), DataBounds(1.0, 1.0))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batched-runs", type=int, default=20_000)
    ap.add_argument("--single-runs", type=int, default=500)
    ap.add_argument("--chunk", type=int, default=2_000)
    ap.add_argument("--d", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    n = 1000
    X = np.zeros((n, args.d))
    X[:, 0] = 1.0
    X[-1, 0] = -1.0
    y = np.zeros(n)
    rng = np.random.default_rng(0)
    o.noisy_sgd(X, y, PROBLEM, 1.0, 1e-6, rng)  # calibration cached, imports warm
    single, batched = [], []
    for _ in range(args.rounds):
        t0 = time.perf_counter()
        for _ in range(args.single_runs):
            o.noisy_sgd(X, y, PROBLEM, 1.0, 1e-6, rng)
        single.append(args.single_runs / (time.perf_counter() - t0))
        t0 = time.perf_counter()
        done = 0
        while done < args.batched_runs:
            r = min(args.chunk, args.batched_runs - done)
            o.noisy_sgd(X, y, PROBLEM, 1.0, 1e-6, rng, replicates=r)
            done += r
        batched.append(args.batched_runs / (time.perf_counter() - t0))
    s, b = statistics.median(single), statistics.median(batched)
    print(f"A_NSGD, linear loss, n = {n}, d = {args.d}, T = 125, m = 45; {args.rounds} alternating rounds")
    print(f"one run at a time: {s:,.0f} runs/s (rounds: {', '.join(f'{v:,.0f}' for v in single)})")
    print(f"batched, chunks of {args.chunk:,}: {b:,.0f} runs/s (rounds: {', '.join(f'{v:,.0f}' for v in batched)})")
    print(f"ratio batched/single: {b / s:.1f}x (target >= 20x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
