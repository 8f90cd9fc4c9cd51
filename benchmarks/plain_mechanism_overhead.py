"""The auditor's own overhead on a plain Python mechanism (no ``sample()``), against the time spent inside it.

Usage::

    python benchmarks/plain_mechanism_overhead.py [--runs 1000000] [--busy 0,100] [--seed 20261127]
                                                  [--profile] [--skip-legacy]

Mechanism: the Laplace mechanism on a sum, written as a user would (``float(sum) + rng.laplace(0, 1/ε)``,
one run per call, no ``sample``), optionally followed by a busy loop of ``--busy`` empty iterations (a
mechanism of known, fixed cost; no clock reads inside it, whose own cost, 0.44 µs each here, would blur the
split).  Both figures come from the same run:

* ``mechanism`` — the CPU seconds (``time.process_time``) of the same number of calls of the mechanism in a
  bare ``for`` loop, without the auditor (the loop itself costs ~0.03 µs per call);
* ``auditor`` — the CPU seconds of the whole ``audit`` call minus the above: task split, output conversion,
  stacking the rows, the threshold statistics, the Clopper–Pearson bounds, the report.

The audit runs in this process (``workers=1``) so that every CPU second is this process's.  Same claim
(ε, δ) = (1, 0), confidence 0.95, ``power_family=None``, the same seed for every row of the table.

Before the table, the draw path alone (``dpsco.verification.auditing.samples.draw``) is timed against the
previous per-run path (``legacy_draw``: ``as_real_output(out).ravel()`` per run, then ``np.stack`` of every
row), alternating, with the same seed; the rows must be bit-identical (checked here, and in
tests/test_white_box_plain_overhead.py).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpsco.verification.auditing.audit import audit  # noqa: E402
from dpsco.verification.auditing.inputs import as_real_output  # noqa: E402
from dpsco.verification.auditing.samples import draw, task_sizes  # noqa: E402

EPS = 1.0


class TimedLaplace:
    """Laplace mechanism on the sum of ``data["x"]`` (sensitivity 1), scale 1/ε, then ``busy`` empty loop
    iterations (a fixed extra cost); ``calls`` counts the calls."""

    def __init__(self, busy: int = 0) -> None:
        self.busy = int(busy)
        self.calls = 0

    def __call__(self, data: Mapping[str, np.ndarray], rng: np.random.Generator) -> float:
        self.calls += 1
        out = float(data["x"].sum()) + rng.laplace(0.0, 1.0 / EPS)
        for _ in range(self.busy):
            pass
        return out


def bare_calls(busy: int, calls: int, seed: int) -> float:
    """CPU seconds of ``calls`` calls of the mechanism in a bare loop (no auditor): the time inside it."""
    ds, _ = pair()
    mech, rng = TimedLaplace(busy), np.random.default_rng(seed)
    c0 = time.process_time()
    for _ in range(calls):
        mech(ds, rng)
    return time.process_time() - c0


def pair() -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Neighbouring datasets of 10 records in [0, 1]: all zeros, and the last record 1."""
    x = np.zeros(10)
    return {"x": x}, {"x": np.r_[x[:-1], 1.0]}


def legacy_draw(mechanism: Any, data: dict[str, np.ndarray], n: int, rng: np.random.Generator) -> np.ndarray:
    """The per-run path before issue 29 (in this process): one ``as_real_output(...).ravel()`` per run, a list
    of 10⁶ rows, one ``np.stack``; same task split and seeds as :func:`draw`."""
    sizes = task_sizes(n)
    seeds = np.random.SeedSequence(int(rng.integers(0, 2**63))).spawn(len(sizes))
    rows = []
    for k, s in zip(sizes, seeds):
        r = np.random.default_rng(s)
        rows.extend(as_real_output(mechanism(data, r)).ravel() for _ in range(k))
    return np.stack(rows)


def time_draws(n: int, seed: int, busy: int, repeats: int = 2) -> dict[str, Any]:
    """CPU seconds of :func:`draw` and :func:`legacy_draw` (alternating, ``repeats`` each) and bit-identity."""
    ds, _ = pair()
    out: dict[str, Any] = {"new": [], "legacy": []}
    rows = {}
    for _ in range(repeats):
        for name in ("legacy", "new"):
            mech = TimedLaplace(busy)
            c0 = time.process_time()
            if name == "new":
                rows[name] = draw(mech, ds, n, np.random.default_rng(seed), "dataset")[0]
            else:
                rows[name] = legacy_draw(mech, ds, n, np.random.default_rng(seed))
            out[name].append(time.process_time() - c0)
    out["bit_identical"] = bool(rows["new"].shape == rows["legacy"].shape
                                and np.array_equal(rows["new"].view(np.uint64), rows["legacy"].view(np.uint64)))
    return out


def time_audit(n: int, seed: int, busy: int, profile: bool = False) -> dict[str, Any]:
    """One audit of (1, 0) at ``n`` runs per side in this process: CPU total, inside the mechanism, ε_lb."""
    ds, nb = pair()
    mech = TimedLaplace(busy)
    prof = cProfile.Profile() if profile else None
    c0, w0 = time.process_time(), time.perf_counter()
    if prof is not None:
        prof.enable()
    res = audit(mech, ds, nb, (EPS, 0.0), n, np.random.default_rng(seed), power_family=None, workers=1)
    if prof is not None:
        prof.disable()
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    inside = bare_calls(busy, mech.calls, seed)
    info = {"cpu": cpu, "wall": wall, "mechanism": inside, "calls": mech.calls, "auditor": cpu - inside,
            "epsilon_lower": res.epsilon_lower}
    if prof is not None:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(14)
        info["profile"] = s.getvalue()
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1_000_000)
    ap.add_argument("--busy", default="0,100", help="empty loop iterations per call, comma-separated")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--profile", action="store_true", help="print a cProfile of the audit (slows it down)")
    ap.add_argument("--skip-legacy", action="store_true")
    args = ap.parse_args(argv)
    import os
    print(f"load average {os.getloadavg()}; runs per side {args.runs:,}; times are CPU seconds of this process")
    for busy in (int(b) for b in args.busy.split(",")):
        if not args.skip_legacy:
            d = time_draws(args.runs, args.seed, busy)
            new, old = min(d["new"]), min(d["legacy"])
            m = bare_calls(busy, args.runs, args.seed)
            print(f"busy {busy} | draw of one side: legacy {old:.2f} s (path {old - m:.2f}) | new {new:.2f} s "
                  f"(path {new - m:.2f}) | mechanism alone {m:.2f} s | path ratio "
                  f"{(old - m) / max(new - m, 1e-9):.1f}x | rows bit-identical: {d['bit_identical']}")
        a = time_audit(args.runs, args.seed, busy, args.profile)
        print(f"busy {busy} | audit, 2 x {args.runs:,} runs: CPU {a['cpu']:.2f} s (wall {a['wall']:.2f}); "
              f"inside the mechanism {a['mechanism']:.2f} s ({a['calls']:,} calls, "
              f"{a['mechanism'] / a['calls'] * 1e6:.2f} us/call); auditor {a['auditor']:.2f} s = "
              f"{a['auditor'] / a['calls'] * 1e6:.2f} us/run = {100 * a['auditor'] / a['mechanism']:.1f} % of the "
              f"mechanism; eps_lb {a['epsilon_lower']:.4f}")
        if args.profile:
            print(a["profile"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
