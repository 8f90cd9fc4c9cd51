"""``--pairs search`` on the executors (issue 29): a 2 ms/run mechanism, 2·10⁴ test runs per side, 8 candidates.

The mechanism is the planted asymmetric-bound bug of ``benchmarks/pair_search.py`` (mean(clip(x₀, −0.5, 2.5)) +
Laplace noise at sensitivity 1/n) without a batched ``sample()`` and with a CPU-bound 2 ms of work per run (a
busy loop, like a small scikit-learn-style fit: it occupies a core, so workers help only up to the cores).  The
audit is the CLI's: ``pair_search_audit`` with ``max_candidates=8``, the CLI's default pilot (runs/10 = 2,000 per
side per candidate) and 2·10⁴ fresh runs per side for the test, confidence 0.95.  Rows, side by side in one run:

* ``workers=1``: every run in this process (what ``--pairs search`` did before issue 29);
* ``workers=N``: the pilots and the test on a local pool of N processes (``--workers N``; the CLI's default is
  every core).

The two rows must give the same ε_lb and chosen pair (the rows drawn are the same on any executor), which the
script asserts.  Usage: ``python benchmarks/pair_search_workers.py [--workers 2] [--runs 20000] [--ms 2]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpsco.verification.auditing.neighbours import BoxBounds
from dpsco.verification.auditing.pair_search import pair_search_audit
from pair_search import HI, LO, dataset  # the planted bug's dataset and box (benchmarks/ is the script's folder)


class SlowClippedMean:
    """The planted bug (sensitivity 1/n instead of 3/n) with ``ms`` milliseconds of CPU work per run."""

    def __init__(self, ms: float) -> None:
        self.seconds = ms / 1000.0

    def __call__(self, data: dict, rng: np.random.Generator) -> np.ndarray:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < self.seconds:
            pass
        x = np.clip(np.asarray(data["X"], dtype=np.float64)[:, 0], LO, HI)
        return np.array([x.mean() + rng.laplace(0.0, 1.0 / x.size)])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=20_000)
    ap.add_argument("--ms", type=float, default=2.0)
    a = ap.parse_args()
    box = BoxBounds((LO, 0.0), (HI, 1.0), 0.0, 1.0)
    rows = []
    for w in (1, a.workers):
        t0 = time.perf_counter()
        r = pair_search_audit(SlowClippedMean(a.ms), dataset(), box, (1.0, 0.0), max(2, a.runs // 10), a.runs,
                              np.random.default_rng(2029), confidence=0.95, max_candidates=8, workers=w)
        rows.append((w, time.perf_counter() - t0, r))
    base = rows[0][2]
    for _, _, r in rows[1:]:
        assert r.epsilon_lower == base.epsilon_lower and r.chosen == base.chosen, "executors disagree"
    print(f"pair search, {a.ms:g} ms/run, {len(base.candidates)} candidates, {base.runs['pilot']:,} pilot + "
          f"{base.runs['test']:,} test runs (ε_lb {base.epsilon_lower:.3f}, {base.verdict})")
    print("| workers | wall s | speed-up |\n|---:|---:|---:|")
    for w, t, _ in rows:
        print(f"| {w} | {t:.1f} | {rows[0][1] / t:.2f}× |")


if __name__ == "__main__":
    main()
