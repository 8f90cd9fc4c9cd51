"""CPU-seconds per test of the default test run, measured inside each pytest(-xdist) process.

On a shared machine the wall time of ``python -m pytest -q -n auto`` depends on what else runs; the CPU time
each test uses in its own process (``time.process_time``, plus the CPU of the child processes it waited for)
does much less.  Two modes:

    python benchmarks/suite_cpu.py run OUT.jsonl [pytest arguments ...]
        runs ``python -m pytest -p suite_cpu`` (benchmarks/ on PYTHONPATH; default arguments: ``-q -n 2 -p
        no:cacheprovider``) with this file as a plugin; one JSON line per test (id, cpu, children_cpu, wall,
        worker, and the CPU of its setup/call/teardown phases and whether it is a hypothesis test) goes to
        OUT.jsonl, and one "collection" line per pytest process (the CPU of importing the test modules)

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


def _cpu() -> float:
    return time.process_time() + _children_cpu()


def _write(row: dict) -> None:
    out = os.environ.get(_ENV)
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


_PHASES: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):  # noqa: ARG001 - the pytest hook signature
    # collection (importing every test module) happens once in each xdist worker: one "collection" row per process
    c0, w0 = _cpu(), time.perf_counter()
    yield
    _write({"id": "<collection>", "kind": "collection", "cpu": _cpu() - c0, "children_cpu": 0.0,
            "wall": time.perf_counter() - w0, "worker": os.environ.get("PYTEST_XDIST_WORKER", "main")})


def _phase(name: str):
    @pytest.hookimpl(hookwrapper=True)
    def hook(item):  # noqa: ARG001 - the pytest hook signature
        c0 = _cpu()
        yield
        _PHASES[name] = _PHASES.get(name, 0.0) + _cpu() - c0
    return hook


# CPU of the set-up (fixtures: a module- or session-scoped one is charged to the first test that uses it in each
# worker), the call and the teardown, apart
pytest_runtest_setup = _phase("setup_cpu")
pytest_runtest_call = _phase("call_cpu")
pytest_runtest_teardown = _phase("teardown_cpu")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):  # noqa: ARG001 - the pytest hook signature
    _PHASES.clear()
    c0, k0, w0 = time.process_time(), _children_cpu(), time.perf_counter()
    yield
    c1, k1, w1 = time.process_time(), _children_cpu(), time.perf_counter()
    obj = getattr(item, "obj", None)
    _write({"id": item.nodeid, "cpu": c1 - c0, "children_cpu": k1 - k0, "wall": w1 - w0,
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), **_PHASES,
            "hypothesis": bool(getattr(obj, "is_hypothesis_test", False))})


def summary(path: str, n: int = 20) -> str:
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    collections_ = [r for r in rows if r.get("kind") == "collection"]
    rows = [r for r in rows if r.get("kind") != "collection"]
    cost = [(r["cpu"] + r.get("children_cpu", 0.0), r) for r in rows]
    total = sum(c for c, _ in cost)
    lines = [f"{len(rows)} tests, {total:.0f} CPU-s in the test processes "
             f"(sum of per-test wall times {sum(r['wall'] for r in rows):.0f} s)"]
    if collections_:
        lines.append(f"collection: {sum(r['cpu'] for r in collections_):.1f} CPU-s in {len(collections_)} "
                     "process(es)")
    if rows and "setup_cpu" in rows[0]:
        setup = sum(r.get("setup_cpu", 0.0) + r.get("teardown_cpu", 0.0) for r in rows)
        hyp = [c for c, r in cost if r.get("hypothesis")]
        lines.append(f"set-up and teardown (fixtures): {setup:.1f} CPU-s; hypothesis tests: {len(hyp)} tests, "
                     f"{sum(hyp):.1f} CPU-s ({100 * sum(hyp) / max(total, 1e-9):.0f} %)")
    lines += ["", "| CPU-s | wall (s) | test |", "|---:|---:|---|"]
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
        status = subprocess.call([sys.executable, "-m", "pytest", "-p", "suite_cpu", *extra],
                                 cwd=os.path.dirname(here), env=env)
        # the whole run's CPU (pytest, its xdist workers and every descendant that was waited for): the per-test
        # rows miss the CPU of process pools started through multiprocessing's forkserver (their workers are the
        # forkserver's children, not the test process's), e.g. tests/test_verify.py's quick campaign
        print(f"whole run: {_children_cpu():.0f} CPU-s (user + system of the waited-for process tree)")
        return status
    if len(argv) >= 2 and argv[0] == "summary":
        print(summary(argv[1], int(argv[2]) if len(argv) > 2 else 20))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
