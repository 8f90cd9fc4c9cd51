"""CPU microseconds per call of the core clipping and projection helpers, this checkout against another one.

    python benchmarks/core_fast_paths.py [--base DIR] [--calls 10000] [--rounds 2]

``--base DIR``: a directory holding another version of the package as ``DIR/dpsco`` (e.g. made by
``mkdir -p /tmp/base/dpsco && git archive 72e457e | tar -x -C /tmp/base/dpsco``); both versions are timed in
subprocesses (``PYTHONPATH``), alternating, ``--rounds`` times each.  Timer: ``time.process_time`` (CPU seconds of
the process, the measure that does not depend on what else runs on a shared machine).  The cases are the shapes of
the hot loops (issue 29): lr21.alg3's adversary block (project_ball of (6, 5) rows that lie outside), a one-vector
projection inside and outside, row norms of one vector and of a (64, 9) batch, clipping and the fail-safe on it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CASES = r'''
import json, sys, time
import numpy as np
from dpsco.reference.clipping import clip_rows, enforce_norm_bound, row_norms
from dpsco.reference.projections import project_ball
rng = np.random.default_rng(0)
V_out = rng.normal(size=(6, 5)) * 3
V_half = np.vstack([rng.normal(size=(3, 5)) * 3, rng.normal(size=(3, 5)) * 0.1])
v_in, v_out, v5, B = rng.normal(size=5) * 0.1, rng.normal(size=5) * 3, rng.normal(size=5), rng.normal(size=(64, 9))
cases = {
    "project_ball, (6, 5) rows all outside": lambda: project_ball(V_out, 1.0),
    "project_ball, (6, 5) rows half outside": lambda: project_ball(V_half, 1.0),
    "project_ball, (5,) inside": lambda: project_ball(v_in, 1.0),
    "project_ball, (5,) outside": lambda: project_ball(v_out, 1.0),
    "row_norms, (5,)": lambda: row_norms(v5),
    "row_norms, (64, 9)": lambda: row_norms(B),
    "clip_rows, (64, 9) at 2": lambda: clip_rows(B, 2.0),
    "enforce_norm_bound, (64, 9) at 10 (no-op)": lambda: enforce_norm_bound(B, 10.0),
}
n = int(sys.argv[1])
out = {}
for k, f in cases.items():
    t = time.process_time()
    for _ in range(n):
        f()
    out[k] = 1e6 * (time.process_time() - t) / n
print(json.dumps(out))
'''


def _time(path: str | None, calls: int) -> dict[str, float]:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = path
    res = subprocess.run([sys.executable, "-c", CASES, str(calls)], env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(res.stdout)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", default=None, help="directory holding another version as DIR/dpsco")
    p.add_argument("--calls", type=int, default=10000)
    p.add_argument("--rounds", type=int, default=2)
    a = p.parse_args()
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    this = os.path.dirname(here) if os.path.basename(here) == "dpsco" else None  # a checkout named dpsco
    base_t: list[dict[str, float]] = []
    this_t: list[dict[str, float]] = []
    for _ in range(a.rounds):
        if a.base:
            base_t.append(_time(a.base, a.calls))
        this_t.append(_time(this, a.calls))
    best = lambda ts, k: min(t[k] for t in ts)  # noqa: E731 — the least disturbed round
    if a.base:
        print("| call | base (µs) | this version (µs) | ratio |\n|---|---|---|---|")
        for k in this_t[0]:
            print(f"| {k} | {best(base_t, k):.1f} | {best(this_t, k):.1f} | {best(base_t, k) / best(this_t, k):.1f}× |")
    else:
        print("| call | µs |\n|---|---|")
        for k in this_t[0]:
            print(f"| {k} | {best(this_t, k):.1f} |")


if __name__ == "__main__":
    main()
