"""CPU-seconds per test of the default test run, measured inside each pytest(-xdist) process.

On a shared machine the wall time of ``python -m pytest -q -n auto`` depends on what else runs; the CPU time
each test uses in its own process (``time.process_time``, plus the CPU of the child processes it waited for)
does much less.  Two modes:

    python benchmarks/suite_cpu.py run OUT.jsonl [pytest arguments ...]
        runs ``python -m pytest -p suite_cpu`` (benchmarks/ on PYTHONPATH; default arguments: ``-q -n 2 -p
        no:cacheprovider``) with this file as a plugin; one JSON line per test (id, cpu, children_cpu, wall,
        worker) goes to OUT.jsonl

    python benchmarks/suite_cpu.py summary OUT.jsonl [N]
        the totals, the N (default 20) most expensive tests and files by CPU-seconds

The figures are in docs/performance.md ("Test suite").  A module- or session-scoped fixture is charged to the
first test that uses it in each worker.
"""

from __future__ import annotations

import collections
import json
import os
import resource
import subprocess
import sys
import time

import pytest

_ENV = "DPSCO_TEST_CPU_OUT"


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 - the pytest hook signature
    out = os.environ.get(_ENV)
    c0, k0, w0 = time.process_time(), _children_cpu(), time.perf_counter()
    yield
    c1, k1, w1 = time.process_time(), _children_cpu(), time.perf_counter()
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"id": item.nodeid, "cpu": c1 - c0, "children_cpu": k1 - k0, "wall": w1 - w0,
                                 "worker": os.environ.get("PYTEST_XDIST_WORKER", "main")}) + "\n")


def summary(path: str, n: int = 20) -> str:
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    cost = [(r["cpu"] + r.get("children_cpu", 0.0), r) for r in rows]
    lines = [f"{len(rows)} tests, {sum(c for c, _ in cost):.0f} CPU-s in the test processes "
             f"(sum of per-test wall times {sum(r['wall'] for r in rows):.0f} s)", "",
             "| CPU-s | wall (s) | test |", "|---:|---:|---|"]
    lines += [f"| {c:.1f} | {r['wall']:.1f} | `{r['id']}` |" for c, r in sorted(cost, key=lambda t: -t[0])[:n]]
    files: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for c, r in cost:
        f = files[r["id"].split("::")[0]]
        f[0] += c
        f[1] += r["wall"]
        f[2] += 1
    lines += ["", "| CPU-s | wall (s) | tests | file |", "|---:|---:|---:|---|"]
    lines += [f"| {c:.1f} | {w:.1f} | {k} | `{name}` |"
              for name, (c, w, k) in sorted(files.items(), key=lambda t: -t[1][0])[:n]]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "run":
        out, extra = os.path.abspath(argv[1]), argv[2:] or ["-q", "-n", "2", "-p", "no:cacheprovider"]
        here = os.path.dirname(os.path.abspath(__file__))
        env = dict(os.environ, **{_ENV: out})
        # only this folder goes on the path (the checkout's root would make its folders importable by their bare
        # names, which tests/test_layout.py checks they are not)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [here, env.get("PYTHONPATH", "")]))
        return subprocess.call([sys.executable, "-m", "pytest", "-p", "suite_cpu", *extra],
                               cwd=os.path.dirname(here), env=env)
    if len(argv) >= 2 and argv[0] == "summary":
        print(summary(argv[1], int(argv[2]) if len(argv) > 2 else 20))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
