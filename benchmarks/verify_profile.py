"""Where `dpsco verify` spends its CPU: CPU seconds per entry and phase, and a profile of the largest entries.

    python benchmarks/verify_profile.py [--budget quick] [--seed 7] [--only PATTERN] [--profile 4] [--top 15]
                                        [--profile-entries A,B,...] [--no-table] [--progress]

Runs every phase of every catalogue entry (or those whose name contains ``--only``) in this one process, one
after the other, exactly as ``dpsco.verification.campaign.phases.run_phase`` runs them as tasks of ``dpsco verify``
(same arguments, same streams: the numbers are those of ``dpsco verify --budget B --seed S``), with BLAS on one
thread as in the campaign's workers.  Each phase is timed in CPU seconds of this process
(``time.process_time``: user + system, the measure that does not depend on what else runs on a shared machine)
and in wall seconds.  Prints the table of entries, largest first, with each entry's largest phases; then, for
the ``--profile`` largest entries (or ``--profile-entries``), reruns their phases under cProfile (timer: this
process's CPU time; cProfile's own overhead inflates many small calls) and prints the
``--top`` functions by own time and the ``--top`` of this repository's functions by cumulative time.

The campaign's own overheads (importing the catalogue, the real data's certified oracle, writing reports) are
timed once and printed apart.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
           "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # as the campaign's workers (dpsco.verification.executors), before numpy loads

import argparse  # noqa: E402
import cProfile  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402


def _clock() -> tuple[float, float]:
    return time.process_time(), time.perf_counter()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--budget", default="quick", choices=("quick", "standard", "paper"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--only", default=None, help="entries whose name contains this string")
    p.add_argument("--profile", type=int, default=4, help="profile this many of the largest entries (0: none)")
    p.add_argument("--profile-entries", default=None, help="comma-separated entries to profile instead")
    p.add_argument("--top", type=int, default=15, help="functions shown per profile")
    p.add_argument("--no-table", action="store_true", help="skip the timing pass (profile --profile-entries only)")
    p.add_argument("--progress", action="store_true",
                   help="print each entry's CPU seconds to stderr as it finishes (a partial run still tells)")
    a = p.parse_args()

    c0, w0 = _clock()
    from dpsco.oracles.minimizers import certified_oracle
    from dpsco.reference import Ball, get_loss
    from dpsco.verification.campaign.datasets import load_fair
    from dpsco.verification.campaign.phases import RADIUS, entry_phases, run_phase
    from dpsco.verification.campaign.verify import AUDIT_CONFIDENCE, BUDGETS, _phase_budget
    from dpsco.verification.papers.catalogue import CATALOGUE
    c1, w1 = _clock()
    entries = [e for e in CATALOGUE if a.only is None or a.only in e.name]
    real = load_fair()
    oracle = certified_oracle(get_loss("logistic"), real.X, real.y, Ball(RADIUS), cross_check=a.budget != "quick")
    oracle_values = {"value": oracle.value, "gap_bound": oracle.gap_bound}
    c2, w2 = _clock()
    pb = _phase_budget(BUDGETS[a.budget])
    print(f"dpsco verify --budget {a.budget} --seed {a.seed}: {len(entries)} entries, one process, BLAS on one "
          f"thread; load average {os.getloadavg()[0]:.1f} at the start")
    print(f"imports {c1 - c0:.1f} CPU s ({w1 - w0:.1f} s wall); real data and its certified oracle "
          f"{c2 - c1:.1f} CPU s ({w2 - w1:.1f} s wall)\n", flush=True)

    def run(name: str, phase: str) -> None:
        run_phase(name, phase, pb, a.seed, AUDIT_CONFIDENCE, oracle_values)

    cpu: dict[str, dict[str, float]] = defaultdict(dict)
    wall: dict[str, float] = defaultdict(float)
    if not a.no_table:
        for e in entries:
            for phase in entry_phases(e, a.budget):
                s0, t0 = _clock()
                run(e.name, phase)
                s1, t1 = _clock()
                cpu[e.name][phase] = s1 - s0
                wall[e.name] += t1 - t0
            if a.progress:
                print(f"{e.name} {sum(cpu[e.name].values()):.2f} CPU s", file=sys.stderr, flush=True)
        total = sum(sum(v.values()) for v in cpu.values())
        order = sorted(cpu, key=lambda n: -sum(cpu[n].values()))
        print(f"| entry | CPU s | share | wall s | largest phases (CPU s) |")
        print("|---|---|---|---|---|")
        for n in order:
            s = sum(cpu[n].values())
            top = sorted(cpu[n].items(), key=lambda kv: -kv[1])[:3]
            print(f"| {n} | {s:.1f} | {100 * s / total:.0f} % | {wall[n]:.1f} | "
                  + ", ".join(f"{ph} {v:.1f}" for ph, v in top) + " |")
        print(f"| **all {len(order)} entries** | **{total:.1f}** | | **{sum(wall.values()):.1f}** | |\n",
              flush=True)
    if a.profile_entries:
        targets = [s.strip() for s in a.profile_entries.split(",") if s.strip()]
    else:
        targets = sorted(cpu, key=lambda n: -sum(cpu[n].values()))[:a.profile]
    by_name = {e.name: e for e in CATALOGUE}
    import dpsco
    here = os.path.dirname(os.path.abspath(dpsco.__file__))  # the package root (this checkout, or another on the path)
    for name in targets:
        prof = cProfile.Profile(time.process_time)  # CPU seconds, as the table (wall would count the other jobs)
        s0, _ = _clock()
        prof.enable()
        for phase in entry_phases(by_name[name], a.budget):
            run(name, phase)
        prof.disable()
        s1, _ = _clock()
        st = pstats.Stats(prof)
        print(f"### {name}: {s1 - s0:.1f} CPU s under cProfile")
        rows = []
        for (file, line, fn), (cc, nc, tt, ct, _callers) in st.stats.items():  # type: ignore[attr-defined]
            rows.append((tt, ct, nc, _short(file, here), line, fn))
        print(f"\ntop {a.top} by own time:\n")
        print("| own s | cumulative s | calls | function |")
        print("|---|---|---|---|")
        for tt, ct, nc, f, line, fn in sorted(rows, key=lambda r: -r[0])[:a.top]:
            print(f"| {tt:.2f} | {ct:.2f} | {nc} | `{f}:{line}({fn})` |")
        print(f"\ntop {a.top} of dpsco's functions by cumulative time (below the phase functions):\n")
        print("| cumulative s | own s | calls | function |")
        print("|---|---|---|---|")
        mine = [r for r in rows if not r[3].startswith(("<", "/", "~")) and "campaign/phases.py" not in r[3]
                and "benchmarks/" not in r[3]]
        for tt, ct, nc, f, line, fn in sorted(mine, key=lambda r: -r[1])[:a.top]:
            print(f"| {ct:.2f} | {tt:.2f} | {nc} | `{f}:{line}({fn})` |")
        print(flush=True)


def _short(file: str, here: str) -> str:
    """A path relative to the repository (dpsco's own files), else the last two parts (numpy, scipy, ...)."""
    real = os.path.realpath(file)
    root = os.path.realpath(here)
    if real.startswith(root + os.sep):
        return os.path.relpath(real, root)
    if file.startswith("<") or file == "~":
        return file
    parts = real.split(os.sep)
    return "~/" + "/".join(parts[-2:])


if __name__ == "__main__":
    main()
