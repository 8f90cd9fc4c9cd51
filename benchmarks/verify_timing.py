"""`dpsco verify` before and after: time per entry of an earlier commit and of this checkout, in one run.

    python benchmarks/verify_timing.py --base REV [--budget standard] [--workers N] [--skip-base]

The earlier commit REV is checked out in a temporary git worktree and imported from there (the repository
root is the package ``dpsco``, so a directory holding a link ``dpsco -> worktree`` on PYTHONPATH imports it);
each version runs ``dpsco verify --budget B --only`` nothing else, one after the other on the same machine:
first REV (one process, as it was), then this checkout (``--workers``, default every core).  Prints each
entry's seconds (REV: its record's wall time; this checkout: the sum of its phases' wall times, and the
campaign's wall time), the totals, the CPU utilisation of this checkout's run (CPU seconds over wall × workers,
from results.json) and how many runs each entry made in both, so "no fewer runs" can be read off.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CLI = "import sys; from dpsco.verification.cli.main import main; sys.exit(main(sys.argv[1:]))"


def _run(pythonpath: str | None, out: str, budget: str, extra: list[str]) -> tuple[float, dict]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", _CLI, "verify", "--budget", budget, "--quiet", "--out", out, *extra],
                   env=env, check=False, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    print(f"  {'this checkout' if pythonpath is None else 'base'}: {wall:.0f} s; 1-minute load average "
          f"{load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end", flush=True)
    with open(os.path.join(out, "results.json"), encoding="utf-8") as fh:
        return wall, json.load(fh)


def _runs(rec: dict) -> int:
    """Runs an entry's record says it made (audit sides, white-box sides, replicates, population, rate, stability).
    Reads the record shape of results schema version 2 (audits / checks) and the one before it."""
    if isinstance(rec.get("checks"), dict):
        rec = {**rec["audits"], **rec["checks"]}
    total = 0
    for key in ("audit", "white_box_audit"):
        a = rec.get(key) or {}
        total += 2 * int(a.get("runs_per_side") or 0)
    total += int((rec.get("empirical") or {}).get("replicates", 0) or 0)
    total += int((rec.get("population") or {}).get("replicates", 0) or 0)
    for key in ("rate", "tight_rate", "rate_d", "rate_eps"):
        r = rec.get(key) or {}
        total += int(r.get("replicates", 0) or 0) * len(r.get("n_grid") or [])
    s = rec.get("stability") or {}
    total += 2 * int(s.get("pairs", 0) or 0) * int(s.get("replicates", 0) or 0)
    return total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", required=True, help="the earlier commit (e.g. the one before the executors)")
    p.add_argument("--budget", default="standard")
    p.add_argument("--workers", type=int, default=None)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="dpsco-verify-timing-")
    tree = os.path.join(work, "tree")
    subprocess.run(["git", "-C", HERE, "worktree", "add", "--detach", tree, a.base], check=True,
                   capture_output=True)
    try:
        pkg = os.path.join(work, "pkg")
        os.makedirs(pkg)
        os.symlink(tree, os.path.join(pkg, "dpsco"))
        print(f"dpsco verify --budget {a.budget}: {a.base} (one process), then this checkout "
              f"({'every core' if a.workers is None else f'{a.workers} workers'}), on {os.cpu_count()} CPUs",
              flush=True)
        wall_old, old = _run(pkg, os.path.join(work, "old"), a.budget, [])
        extra = [] if a.workers is None else ["--workers", str(a.workers)]
        wall_new, new = _run(None, os.path.join(work, "new"), a.budget, extra)
    finally:
        subprocess.run(["git", "-C", HERE, "worktree", "remove", "--force", tree], check=False, capture_output=True)
    old_by = {r["name"]: r for r in old["records"]}
    print(f"\n{'entry':28s} {'before s':>9s} {'after s':>9s} {'ratio':>7s} {'runs before':>12s} {'runs after':>11s}")
    for r in new["records"]:
        o = old_by.get(r["name"])
        before = o["wall_seconds"] if o else float("nan")
        print(f"{r['name']:28s} {before:9.1f} {r['wall_seconds']:9.1f} {before / r['wall_seconds']:6.1f}× "
              f"{_runs(o) if o else 0:12,d} {_runs(r):11,d}")
    pv = new["provenance"]
    print(f"\nwall clock: before {wall_old:.0f} s ({wall_old / 60:.1f} min), after {wall_new:.0f} s "
          f"({wall_new / 60:.1f} min): {wall_old / wall_new:.1f}×")
    print(f"after: {pv['executor']}; CPU utilisation {pv.get('cpu_utilisation')} (CPU s {pv.get('cpu_seconds')}), "
          f"task utilisation {pv.get('task_utilisation')}; verdicts before {old['verdict']}, after {new['verdict']}")


if __name__ == "__main__":
    main()
