"""Pair search on the planted asymmetric-bound bug (issue 11): how often it is refuted, ε_lb, runs, time.

The mechanism is the one of tests/test_pair_search.py: mean(clip(x₀, −0.5, 2.5)) + Laplace noise on a 20-record
dataset in the box [−0.5, 2.5] × [0, 1], labels in [0, 1].  Bug: sensitivity 2|lo|/n = 1/n (exact ε on the
worst pair, the record moving between the two endpoints: 3); correct: (hi − lo)/n = 3/n (ε <= 1 on every
pair).  Claim (1, 0), confidence 0.95.  Rows:

* ``pair search``: ``pair_search_audit`` with 2,000 pilot runs per side per candidate, 2·10⁴ test runs per side;
* ``--pairs extreme`` / ``--pairs sign-flip``: ``audit_family(method="select")`` on the pairs the CLI generates
  today from the ball ‖x‖ <= 2.69 that holds the box (same runs per side: 2·10⁴ pilot, 2·10⁴ test);
* ``box extreme``: the same on the box-aware ``replace_one_extreme`` pair (farthest corner).

Usage: ``python benchmarks/pair_search.py [--reps R]``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from dpsco.reference.problem import DataBounds
from dpsco.verification.auditing.family import audit_family
from dpsco.verification.auditing.neighbours import (BoxBounds, replace_one_extreme)
from dpsco.verification.auditing.neighbour_pairs import sign_flip_pairs
from dpsco.verification.auditing.pair_search import pair_search_audit

LO, HI = -0.5, 2.5


class ClippedMean:
    def __init__(self, num: float) -> None:
        self.num = num

    def location_scale(self, data: dict) -> tuple[float, float]:
        x = np.clip(np.asarray(data["X"], dtype=np.float64)[:, 0], LO, HI)
        return float(x.mean()), self.num / x.size

    def __call__(self, data: dict, rng: np.random.Generator) -> np.ndarray:
        return self.sample(data, 1, rng)[0]

    def sample(self, data: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        m, b = self.location_scale(data)
        return (m + rng.laplace(0.0, b, size=n))[:, None]


def dataset() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(11)
    X = np.column_stack([rng.uniform(LO, HI, 20), rng.uniform(0.0, 1.0, 20)])
    X[-1] = [0.3, 0.7]
    return {"X": X, "y": rng.uniform(0.0, 1.0, 20)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    reps = ap.parse_args().reps
    data = dataset()
    box = BoxBounds((LO, 0.0), (HI, 1.0), 0.0, 1.0)
    ball = DataBounds(math.hypot(HI, 1.0), 1.0)
    X, y = data["X"], data["y"]
    ext = [(data, {"X": a, "y": b}, "extreme") for a, b in (replace_one_extreme(X, y, ball),
                                                             replace_one_extreme(X, y, ball, label=float(y[-1])))]
    flips = [p.as_tuple() for p in sign_flip_pairs(X, y, ball)]
    Xb, yb = replace_one_extreme(X, y, box)
    box_ext = [(data, {"X": Xb, "y": yb}, "box extreme")]
    print(f"| audit | mechanism | refuted | mean ε_lb | min ε_lb | max ε_lb | chosen pair exact ε | runs | s/audit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, num in (("bug (1/n)", 2 * abs(LO)), ("correct (3/n)", HI - LO)):
        mech = ClippedMean(num)
        rows: dict[str, list] = {"pair search": [], "--pairs extreme": [], "--pairs sign-flip": [], "box extreme": []}
        for seed in range(reps):
            t = time.perf_counter()
            r = pair_search_audit(mech, data, box, (1.0, 0.0), 2_000, 20_000, np.random.default_rng(seed))
            (m1, b1), (m2, _) = mech.location_scale(r.chosen_pair.dataset), mech.location_scale(r.chosen_pair.neighbour)
            rows["pair search"].append((r.refuted, r.epsilon_lower, abs(m1 - m2) / b1, r.runs["total"],
                                        time.perf_counter() - t))
            for label, pairs in (("--pairs extreme", ext), ("--pairs sign-flip", flips), ("box extreme", box_ext)):
                t = time.perf_counter()
                f = audit_family(mech, pairs, (1.0, 0.0), 20_000, np.random.default_rng(10_000 + seed), n_pilot=20_000)
                ds, nb = next((a, b) for a, b, lab in pairs if lab == f.details["best_member"].split(" / ")[0])
                (m1, b1), (m2, _) = mech.location_scale(ds), mech.location_scale(nb)
                runs = 2 * 20_000 * len(pairs) + 2 * 20_000
                rows[label].append((f.refuted, f.epsilon_lower, abs(m1 - m2) / b1, runs, time.perf_counter() - t))
        for label, rr in rows.items():
            ref = sum(v[0] for v in rr)
            e = [v[1] for v in rr]
            ch = sorted({round(v[2], 3) for v in rr})
            print(f"| {label} | {name} | {ref}/{len(rr)} | {np.mean(e):.3f} | {min(e):.3f} | {max(e):.3f} | "
                  f"{', '.join(f'{c:g}' for c in ch)} | {rr[0][3]:,} | {np.mean([v[4] for v in rr]):.2f} |")


if __name__ == "__main__":
    main()
