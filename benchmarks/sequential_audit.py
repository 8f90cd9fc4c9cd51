"""Measure the sequential (anytime-valid) audit against the fixed-size audit (numbers in docs/auditing.md).

Run: python benchmarks/sequential_audit.py [--reps R]

1. Violations.  Laplace noise on a 1-D sum (sensitivity 1) under a (1, 0) claim, with exact ε = 2 (2×) and
   ε = 1.2 (1.2×); and the Gaussian mechanism calibrated to (2, 1e-5) under a (1, 1e-5) claim.  For each:
   R sequential audits (confidence 0.95, fixed selection phase, batches) report how many runs per side they
   used; the fixed-size ``audit()`` is run R times at each n of a grid (×√2 steps) to find the smallest n
   at which at least 90 % of its audits refute.  Compared: that n against the 90 % quantile of the runs the
   sequential audit used (the n by which 90 % of sequential audits had refuted), and the median.
2. Price of anytime validity.  A true claim (Laplace exact ε = 1, claim (1, 0); Gaussian calibrated to
   (1, 1e-5), claim (1, 1e-5)): the sequential audit runs to ``max_samples``; its final ε_lb against the
   fixed-size audit's at the same number of runs per side (means over R seeds).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from dpsco.oracles.privacy_curves import gaussian_sigma
from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.sequential import sequential_audit

S, S1 = {"x": np.array([0.0, 0.0, 1.0])}, {"x": np.array([0.0, 0.0, 0.0])}


class Noise1D:
    def __init__(self, kind: str, scale: float) -> None:
        self.kind, self.scale = kind, scale

    def _noise(self, rng: np.random.Generator, size=None):  # noqa: ANN001, ANN202
        return rng.laplace(0.0, self.scale, size) if self.kind == "laplace" else rng.normal(0.0, self.scale, size)

    def __call__(self, data, rng):  # noqa: ANN001
        return np.array([data["x"].sum() + self._noise(rng)])

    def sample(self, data, n, rng):  # noqa: ANN001
        return data["x"].sum() + self._noise(rng, n)


def _fixed_n_for_power(mech: Noise1D, claim, reps: int, n0: int, power: float = 0.9) -> tuple[int, float]:
    n = n0
    while True:
        hits = sum(audit(mech, S, S1, claim, n, np.random.default_rng(10_000 + s), power_family=None).verdict
                   == "refuted" for s in range(reps))
        if hits >= power * reps:
            return n, hits / reps
        n = int(round(n * math.sqrt(2)))


def violations(reps: int) -> None:
    print("| mechanism (claim) | exact ε | selection + batch | event criterion | refuted | median runs | 90 % quantile "
          "| fixed audit(): runs for 90 % power | fixed / sequential (90 %) |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = [
        ("Laplace (1, 0)", "laplace", 0.5, 2.0, (1.0, 0.0), 500, 100, 200_000, 100),
        ("Laplace (1, 0)", "laplace", 1 / 1.2, 1.2, (1.0, 0.0), 2_000, 500, 1_000_000, 500),
        ("Gaussian (1, 1e-5)", "gaussian", gaussian_sigma(2.0, 1e-5, 1.0), 2.0, (1.0, 1e-5), 10_000, 5_000,
         4_000_000, 5_000),
    ]
    for name, kind, scale, eps_true, claim, n_sel, batch, n_max, n0 in rows:
        mech = Noise1D(kind, scale)
        n_fix, pw = _fixed_n_for_power(mech, claim, reps, n0)
        for criterion in ("projected", "fixed-size"):
            used, hits, t0 = [], 0, time.perf_counter()
            for s in range(reps):
                r = sequential_audit(mech, S, S1, claim, n_max, np.random.default_rng(s), selection_samples=n_sel,
                                     batch=batch, selection=criterion)
                used.append(r.samples_used)
                hits += r.verdict == "refuted"
            t_seq = (time.perf_counter() - t0) / reps
            q90 = int(np.quantile(used, 0.9, method="higher"))
            print(f"| {name} | {eps_true:g} | {n_sel:,} + {batch:,} | {criterion} | {hits}/{reps} | "
                  f"{int(np.median(used)):,} | {q90:,} | {n_fix:,} (power {pw:.2f}) | {n_fix / q90:.2f} |"
                  f"  ({t_seq:.2f} s per sequential audit)", flush=True)


def price(reps: int) -> None:
    print("\n| mechanism (true claim) | runs per side | sequential final ε_lb (mean, min) | fixed audit() ε_lb "
          "(mean, min) | seq. refuted |")
    print("|---|---|---|---|---|")
    rows = [
        ("Laplace exact ε = 1, claim (1, 0)", Noise1D("laplace", 1.0), (1.0, 0.0), 10_000, 100),
        ("Laplace exact ε = 1, claim (1, 0)", Noise1D("laplace", 1.0), (1.0, 0.0), 100_000, 1_000),
        ("Gaussian calibrated to (1, 1e-5), claim (1, 1e-5)", Noise1D("gaussian", gaussian_sigma(1.0, 1e-5, 1.0)),
         (1.0, 1e-5), 1_000_000, 10_000),
    ]
    for name, mech, claim, n, batch in rows:
        seq, fix, ref = [], [], 0
        for s in range(reps):
            r = sequential_audit(mech, S, S1, claim, n, np.random.default_rng(s), batch=batch)
            seq.append(r.epsilon_lower)
            ref += r.verdict == "refuted"
            fix.append(audit(mech, S, S1, claim, n, np.random.default_rng(5_000 + s), power_family=None).epsilon_lower)
        print(f"| {name} | {n:,} | {np.mean(seq):.3f}, {np.min(seq):.3f} | {np.mean(fix):.3f}, {np.min(fix):.3f} "
              f"| {ref}/{reps} |", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args()
    violations(args.reps)
    price(args.reps)
