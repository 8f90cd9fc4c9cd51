"""White-box audit of A_NSGD's printed calibration at n = 1000, T = 1 (ERRATA.md BFTT19-E4): runs needed and throughput.

Usage::

    python benchmarks/whitebox_nsgd_audit.py [--throughput-runs 200000] [--run] [--samples N]

Instance (Bassily et al. 2019, Algorithm 1; Theorem 3.1's printed σ² = 8TL² log(1/δ)/(n²ε²)): linear loss,
n = 1000, d = 1, L = 1, claim (ε, δ) = (1, 1e-6), T = 1 (override), m = ⌈n√(ε/4)⌉ = 500, η = 1 (override),
W = B(0, 10), on the one-sided pair ``dpsco.verification.auditing.neighbours.canary_pair(neighbour="one-sided")``: every
record x_i = e₁ on the dataset, x_n = −e₁ on the neighbour.  With T = 1 the release is the first iterate
w₁ = Proj_W(−η(g + G)) = −η(g + G) (|g + G| ≤ 10 except with probability < 1e-300), g the batch-mean
gradient: g = L on the dataset, g = L − 2kL/m on the neighbour with k ~ Bin(m, 1/n) the draws of x_n.  So
w₁ ~ N(−ηL, η²σ²) vs Σ_k Bin(m, 1/n)(k) N(−ηL + 2ηkL/m, η²σ²): exactly the worst pair of
``dpsco.reference.bftt19.accounting`` (true ε = 1.99 at δ = 1e-6 for the printed σ = 0.010513).

Audit.  ``dpsco.verification.auditing.audit.audit`` with one event fixed in advance (no selection half: every run is a test
run), E = {w₁ ≥ −η(L − tσ)} with the neighbour as numerator, where σ is the printed σ (public: it is in the
release's parameters) and t maximises the exact refutation probability at the run count
(:func:`best_threshold`).  Its refutation probability is exact:
``dpsco.verification.mutants.corpus.fixed_event_refutation_probability`` on the exact P(E), Q(E) of this pair
(:func:`event_probabilities`), so the runs needed are computed, not simulated.  The same event applied to the
certified calibration (σ = 0.015087) gives its false-refutation probability (the auditor guarantees ≤ 0.05
whatever the event; the exact figure is far smaller).

Prints: the instance, the exact true ε, the miss probability against runs per side at the best event, the
runs per side for miss ≤ 1e-2 and ≤ 1e-6, the measured throughput of the real ``noisy_sgd`` (runs/s, in
chunks) and the implied wall time; with ``--run`` it also runs the audit of the printed and of the certified
calibration at ``--samples`` runs per side (default: the campaign test's 4.5e6) and prints ε_lb.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np
from scipy.special import ndtr
from scipy.stats import binom

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss  # noqa: E402
import dpsco.reference.bftt19 as o  # noqa: E402
from dpsco.reference.bftt19.accounting import nsgd_worst_pair_delta  # noqa: E402
from dpsco.verification.auditing.audit import Event, audit  # noqa: E402
from dpsco.verification.auditing.neighbours import canary_pair  # noqa: E402
from dpsco.verification.mutants.corpus import fixed_event_refutation_probability  # noqa: E402

N, EPS, DELTA, L = 1000, 1.0, 1e-6, 1.0
T, ETA, RADIUS = 1, 1.0, 10.0
CONFIDENCE = 0.95
PROBLEM = ERMProblem(LinearLoss(), Ball(RADIUS), DataBounds(L, 1.0))
M_BATCH = o.algorithm_1_batch_size(N, EPS, T)[1]  # Algorithm 1, line 2: ⌈n√(ε/(4T))⌉ = 500
SIGMA_PRINTED = math.sqrt(o.algorithm_1_noise_variance(T, N, EPS, DELTA, L))  # Algorithm 1, line 1
#: runs per side of the campaign audit and its event's standardised threshold (best_threshold(CAMPAIGN_SAMPLES)
#: on its 0.01 grid; any t fixed in advance is sound): exact miss probability 4.6e-7 (tests/bftt19/test_bftt19_whitebox_nsgd_audit.py)
CAMPAIGN_SAMPLES = 4_500_000
CAMPAIGN_T = 3.63
#: SeedSequence entropy of the campaign audits (the tests' and ``--run``'s, so both report the same ε_lb)
CAMPAIGN_SEEDS = {"printed": 20261122, "certified": 20261123}
CHUNK = 10_000


def pair() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(dataset, neighbour): all records e₁ vs the last replaced by −e₁."""
    return canary_pair(N, 1, DataBounds(L, 1.0), "linear", neighbour="one-sided").as_datasets()


class NSGDFirstIterate:
    """The real ``noisy_sgd`` at this instance (T = 1, η = 1): one run per call, ``sample`` in chunks of
    ``chunk`` replicates (each chunk's streams spawned afresh from ``rng`` by ``nsgd_core``: independent runs)."""

    def __init__(self, calibration: str, chunk: int = CHUNK) -> None:
        self.calibration, self.chunk = calibration, int(chunk)

    def _run(self, data: Mapping[str, np.ndarray], rng: np.random.Generator, replicates: int | None) -> Any:
        return o.noisy_sgd(data["X"], data["y"], PROBLEM, EPS, DELTA, rng, T=T, eta=ETA, replicates=replicates,
                           calibration=self.calibration)  # type: ignore[arg-type]

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self._run(data, rng, None).output)

    def sample(self, data: Mapping[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
        out = np.empty((n, 1))
        for start in range(0, n, self.chunk):
            r = min(self.chunk, n - start)
            out[start:start + r] = self._run(data, rng, r).output
        return out

    def sigma(self) -> float:
        ds, _ = pair()
        return math.sqrt(self._run(ds, np.random.default_rng(0), None).parameters["sigma2"])


def event(t: float, sigma: float = SIGMA_PRINTED) -> Event:
    """E = {w₁ ≥ −η(L − tσ)}, numerator: the neighbour (its draws of −e₁ move w₁ up)."""
    return Event(-ETA * (L - t * sigma), "ge", "neighbour")


def event_probabilities(t: float, sigma: float, *, sigma_event: float = SIGMA_PRINTED, n: int = N,
                        m: int = M_BATCH) -> tuple[float, float]:
    """Exact (P(E), Q(E)) of :func:`event` (threshold tσ_event) when the mechanism's noise is σ.

    Q (dataset): w₁ = −η(L + G), E ⟺ G ≤ −tσ_event: Φ(−tσ_event/σ).
    P (neighbour): w₁ = −η(L − 2kL/m + G), E ⟺ G ≤ 2kL/m − tσ_event: Σ_k Bin(m, 1/n)(k) Φ((2kL/m − tσ_event)/σ)."""
    k = np.arange(m + 1)
    p = float(binom.pmf(k, m, 1.0 / n) @ ndtr((2.0 * k * L / m - t * sigma_event) / sigma))
    return p, float(ndtr(-t * sigma_event / sigma))


def refutation_probability(samples: int, t: float, sigma: float = SIGMA_PRINTED, **kw: Any) -> float:
    """P(the fixed-event audit at ``samples`` runs per side refutes (EPS, DELTA)) when the noise is σ, exactly."""
    p, q = event_probabilities(t, sigma, **kw)
    return fixed_event_refutation_probability(p, q, samples, EPS, DELTA, CONFIDENCE)


def miss_probability(samples: int, t: float, sigma: float = SIGMA_PRINTED, **kw: Any) -> float:
    """1 − :func:`refutation_probability`: the chance that the audit does not refute."""
    return 1.0 - refutation_probability(samples, t, sigma, **kw)


@functools.lru_cache(maxsize=256)
def best_threshold(samples: int, lo: float = 2.5, hi: float = 4.5) -> tuple[float, float]:
    """(t, miss) minimising the exact miss probability of the printed calibration over t ∈ [lo, hi]: a grid of
    step 0.05, then step 0.01 around its best point (t is a power choice only: any t is sound)."""
    def best(ts: np.ndarray) -> tuple[float, float]:
        misses = [miss_probability(samples, float(t)) for t in ts]
        j = int(np.argmin(misses))
        return float(ts[j]), float(misses[j])

    t0, _ = best(np.round(np.arange(lo, hi + 1e-9, 0.05), 2))
    return best(np.round(np.arange(t0 - 0.05, t0 + 0.05 + 1e-9, 0.01), 2))


def runs_needed(target_miss: float, grid: list[int] | None = None) -> tuple[int, float, float]:
    """Smallest runs per side on ``grid`` (default 1e5..1e7 in steps of 1e5) whose best event misses with
    probability ≤ ``target_miss``: (runs, t, miss).  Raises ValueError if none on the grid does."""
    grid = list(range(100_000, 10_000_001, 100_000)) if grid is None else grid
    lo, hi = 0, len(grid) - 1  # the best event's miss decreases with the runs: bisect the grid
    if best_threshold(grid[hi])[1] > target_miss:
        raise ValueError(f"no run count up to {grid[hi]} reaches miss <= {target_miss}")
    while lo < hi:
        mid = (lo + hi) // 2
        if best_threshold(grid[mid])[1] <= target_miss:
            hi = mid
        else:
            lo = mid + 1
    t, miss = best_threshold(grid[lo])
    return grid[lo], t, miss


def throughput(runs: int, calibration: str = "printed", seed: int = 0) -> float:
    """Runs per second of the real noisy_sgd on the neighbour (the slower side: it draws from a mixture)."""
    _, nb = pair()
    mech = NSGDFirstIterate(calibration)
    t0 = time.perf_counter()
    mech.sample(nb, runs, np.random.default_rng(seed))
    return runs / (time.perf_counter() - t0)


def campaign_audit(calibration: str, samples: int = CAMPAIGN_SAMPLES, t: float = CAMPAIGN_T) -> Any:
    """The audit of ``calibration`` at ``samples`` runs per side with the event at ``t`` (seed CAMPAIGN_SEEDS).

    ``sample_check_runs=0``: the batched sampler (noisy_sgd's own ``replicates``, in chunks) is checked exactly
    instead, row for row against −η(g + G) rebuilt from the same streams (tests/bftt19/test_bftt19_whitebox_nsgd_audit.py)."""
    ds, nb = pair()
    return audit(NSGDFirstIterate(calibration), ds, nb, (EPS, DELTA), samples,
                 np.random.default_rng(np.random.SeedSequence(CAMPAIGN_SEEDS[calibration])), confidence=CONFIDENCE,
                 event=event(t), sample_check_runs=0, power_family=None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throughput-runs", type=int, default=200_000)
    ap.add_argument("--run", action="store_true", help="also run both audits (minutes)")
    ap.add_argument("--samples", type=int, default=CAMPAIGN_SAMPLES,
                    help=f"runs per side for --run (default {CAMPAIGN_SAMPLES:,}, the campaign test's)")
    args = ap.parse_args(argv)
    sigma_c = NSGDFirstIterate("certified").sigma()
    print(f"A_NSGD, linear loss, n={N}, d=1, T={T}, m={M_BATCH}, eta={ETA:g}, W=B(0,{RADIUS:g}); one-sided pair; "
          f"claim ({EPS:g}, {DELTA:g}); confidence {CONFIDENCE}")
    print(f"sigma printed {SIGMA_PRINTED:.6f} (accountant delta(1) = "
          f"{nsgd_worst_pair_delta(EPS, N, M_BATCH, SIGMA_PRINTED, L, T):.3g}); sigma certified {sigma_c:.6f} "
          f"(delta(1) = {nsgd_worst_pair_delta(EPS, N, M_BATCH, sigma_c, L, T):.3g})")
    print("\nruns/side | best t | P(E) | Q(E) | miss (printed) | false refutation (certified, same event)")
    for n_runs in (100_000, 300_000, 1_000_000, 2_000_000, 3_000_000, 4_000_000, CAMPAIGN_SAMPLES, 6_000_000):
        t, miss = best_threshold(n_runs)
        p, q = event_probabilities(t, SIGMA_PRINTED)
        false_ref = refutation_probability(n_runs, t, sigma_c)
        print(f"{n_runs:>9,} | {t:.2f} | {p:.3g} | {q:.3g} | {miss:.3g} | <= {false_ref + 4e-15:.2g}")  # 4e-15: tails
    need = {target: runs_needed(target) for target in (1e-2, 1e-6)}
    rate = throughput(args.throughput_runs)
    print(f"\nthroughput of the real noisy_sgd (chunks of {CHUNK}): {rate:,.0f} runs/s")
    for target, (n_runs, t, miss) in need.items():
        print(f"runs per side for miss <= {target:g}: {n_runs:,} (t = {t:.2f}, miss {miss:.3g}); "
              f"both sides ~ {2 * n_runs / rate:.0f} s")
    if args.run:
        n_runs = args.samples
        t = CAMPAIGN_T if n_runs == CAMPAIGN_SAMPLES else best_threshold(n_runs)[0]
        for calibration in ("printed", "certified"):
            t0 = time.perf_counter()
            res = campaign_audit(calibration, n_runs, t)
            d = res.details
            print(f"{calibration}: {res.verdict}, epsilon_lb = {res.epsilon_lower:.3f} at confidence {CONFIDENCE} "
                  f"({n_runs:,} runs/side, event t = {t:.2f}; counts {d.get('numerator_count')} vs "
                  f"{d.get('denominator_count')}, P_lo = {d.get('p_lower', math.nan):.4g}, "
                  f"Q_hi = {d.get('q_upper', math.nan):.4g}; {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
