"""Executors: a campaign's numbers do not depend on where its tasks run, and an interrupted campaign resumes.

The executors (``dpsco.verification.executors``) run the same tasks in this process, in a local process pool
and on a Dask ``LocalCluster`` with 2 worker processes; every task draws from a SeedSequence it is given, so
the results must be equal, not close.  ``dpsco verify`` is interrupted with SIGINT after its first
checkpoints and resumed; the resumed results equal an uninterrupted run's.  These tests are deterministic.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpsco.verification.auditing.audit import audit
from dpsco.verification.auditing.samples import task_sizes
from dpsco.verification.campaign import verify
from dpsco.verification.cli.main import main
from dpsco.verification.executors import (DaskExecutor, ProcessExecutor, SerialExecutor, TrackedExecutor,
                                          get_executor, validate_workers)

from _mechanisms import LaplaceSum

ONLY = "lr21.robust"  # two cheap entries (ℓ2-robust logistic regression and least squares): 10 tasks


def noisy_draws(n: int, seed: np.random.SeedSequence) -> np.ndarray:
    """A task: n standard normals from its own stream."""
    return np.random.default_rng(seed).standard_normal(n)


class LoopLaplace:
    """sum(x) + Lap(1) without a batched sample(): the auditor's single runs go to the executor."""

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        return LaplaceSum(1.0)(data, rng)


def _strip(o: Any) -> Any:
    """A results record without what depends on the machine: timings and provenance."""
    if isinstance(o, dict):
        return {k: _strip(v) for k, v in o.items()
                if k not in ("provenance", "solve_time") and "seconds" not in k}
    if isinstance(o, list):
        return [_strip(v) for v in o]
    return o


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as c:
        yield c


def test_the_three_executors_return_the_same_results(cluster) -> None:
    seeds = np.random.SeedSequence(7).spawn(12)
    tasks = [(5 + i, s) for i, s in enumerate(seeds)]
    expected = [noisy_draws(*t) for t in tasks]
    with ProcessExecutor(2) as pool, DaskExecutor(cluster.scheduler_address) as dask:
        for ex in (SerialExecutor(), pool, dask):
            got = ex.map(noisy_draws, tasks)
            assert all(np.array_equal(a, b) for a, b in zip(got, expected)), ex.description
            order = [i for i, _ in ex.as_completed(noisy_draws, tasks)]
            assert sorted(order) == list(range(len(tasks)))
        assert dask.workers == 2 and pool.workers == 2


def test_an_audit_of_single_runs_is_the_same_on_every_executor(cluster) -> None:
    S, S1 = {"x": np.zeros(5)}, {"x": np.r_[np.zeros(4), 1.0]}
    runs = 600  # 256 tasks of 2–3 runs per side
    assert sorted(set(task_sizes(runs))) == [2, 3] and len(task_sizes(runs)) == 256
    results = []
    with DaskExecutor(cluster.scheduler_address) as dask:
        for workers in (None, 1, 2, dask):
            r = audit(LoopLaplace(), S, S1, (1.0, 0.0), runs, np.random.default_rng(11), workers=workers)
            results.append(_strip(r.to_dict()))
    assert all(r == results[0] for r in results[1:])


class LoopClippedMean:
    """mean(clip(X[:, 0], 0, 1)) + Lap(1/(nε)) without a batched sample(), for the pair-search and family audits."""

    def __call__(self, data: dict[str, np.ndarray], rng: np.random.Generator) -> np.ndarray:
        x = np.clip(np.asarray(data["X"], dtype=np.float64)[:, 0], 0.0, 1.0)
        return np.array([x.mean() + rng.laplace(0.0, 1.0 / x.size)])


def test_pair_search_and_family_audits_are_the_same_on_every_executor(cluster) -> None:
    """Pilots and tests of a pair search (issue 29) and of a family audit run on the executor they are given, and
    the rows — hence every number of the result — are those of a run in this process."""
    from dpsco.verification.auditing.estimators import audit_family
    from dpsco.verification.auditing.neighbours import BoxBounds
    from dpsco.verification.auditing.pair_search import pair_search_audit

    rng0 = np.random.default_rng(3)
    data = {"X": rng0.uniform(0.0, 1.0, (6, 1)), "y": rng0.uniform(0.0, 1.0, 6)}
    box = BoxBounds((0.0,), (1.0,), 0.0, 1.0)
    nb = {"X": np.r_[data["X"][:-1], [[1.0]]], "y": data["y"].copy()}
    search, family = [], []
    with DaskExecutor(cluster.scheduler_address) as dask:
        for workers in (None, 2, dask):
            r = pair_search_audit(LoopClippedMean(), data, box, (1.0, 0.0), 40, 300, np.random.default_rng(5),
                                  max_candidates=3, workers=workers)
            search.append(_strip(r.to_dict()))
            f = audit_family(LoopClippedMean(), [(data, nb)], (1.0, 0.0), 300, np.random.default_rng(6),
                             n_pilot=40, workers=workers)
            family.append(_strip(f.to_dict()))
    assert all(r == search[0] for r in search[1:])
    assert all(f == family[0] for f in family[1:])


def test_verify_is_the_same_on_every_executor(tmp_path: Path, cluster) -> None:
    out = {}
    for name, workers in (("serial", 1), ("pool", 2)):
        res = verify.run_verification(budget="quick", out=str(tmp_path / name), only=ONLY, quiet=True,
                                      formats=("md",), workers=workers)
        out[name] = _strip(res)
        assert res["provenance"]["executor"]["kind"] == {"serial": "serial", "pool": "process"}[name]
    # the command line on the Dask cluster
    assert main(["verify", "--quick", "--quiet", "--only", ONLY, "--out", str(tmp_path / "dask"), "--format", "md",
                 "--scheduler", cluster.scheduler_address, "--seed", str(verify.DEFAULT_SEED)]) == 0  # the API's seed
    dask = json.loads((tmp_path / "dask" / "results.json").read_text())
    assert dask["provenance"]["executor"]["kind"] == "dask"
    assert out["serial"] == out["pool"] == _strip(dask)


def _cli(*args: str) -> list[str]:
    # Ctrl-C's handler restored first: a process started from a background job of a non-interactive shell (as CI
    # runners may start the suite) inherits SIGINT ignored, and Python then leaves it ignored (a fresh-clone run
    # launched with `&` sent the signal, and the campaign finished with exit 0)
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from dpsco.verification.cli.main import main; sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-c", code, *args]


#: a slow phase keeps the campaign running long after its first checkpoint (Katyusha's quick stability phase
#: takes about 15 s, its other phases 1–6 s), so the SIGINT lands mid-campaign even on a starved machine
SLOW_ONLY = "alg1.katyusha"


def _finished(checkpoints: Path) -> list[str]:
    return sorted(p.name for p in checkpoints.glob("*.json") if not p.name.startswith("."))


def test_resume_after_sigint_gives_the_uninterrupted_results(tmp_path: Path) -> None:
    out = tmp_path / "report"
    # the API's default seed, so that the fresh run below compares; the --resume run without --seed reads it back
    # from the checkpoints (a campaign without --seed draws a fresh one)
    args = ["verify", "--quick", "--only", SLOW_ONLY, "--out", str(out), "--format", "md", "--workers", "2",
            "--seed", str(verify.DEFAULT_SEED)]
    proc = subprocess.Popen(_cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    checkpoints = out / "checkpoints"
    deadline = time.time() + 300
    # wait for a finished checkpoint: pathlib's glob also matches the hidden ".tmp-…-entry.phase.json" staging file
    # of an atomic write, which an interrupt removes (a fresh-clone run once signalled on one and saved none)
    while time.time() < deadline and proc.poll() is None and not _finished(checkpoints):
        time.sleep(0.02)
    assert proc.poll() is None, "the campaign ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "--resume" in err and "interrupted" in err
    saved = _finished(checkpoints)
    assert 1 <= len(saved) < 5, saved
    assert not (out / "results.json").exists()
    # a run with other options refuses the checkpoints rather than mixing them in
    assert main(["verify", "--quick", "--quiet", "--only", SLOW_ONLY, "--out", str(out), "--seed", "5", "--resume",
                 "--workers", "1"]) == 2
    assert main(["verify", "--quick", "--quiet", "--only", SLOW_ONLY, "--out", str(out), "--format", "md",
                 "--resume", "--workers", "1"]) == 0
    resumed = json.loads((out / "results.json").read_text())
    assert resumed["provenance"]["tasks_resumed"] == len(saved)
    assert not checkpoints.exists()  # the finished report replaced the directory, checkpoints included
    fresh = verify.run_verification(budget="quick", out=str(tmp_path / "fresh"), only=SLOW_ONLY, quiet=True,
                                    formats=("md",), workers=1)
    assert _strip(resumed) == _strip(fresh)


def test_executor_options_are_checked() -> None:
    assert validate_workers(None) is None and validate_workers(3) == 3
    for bad in (0, -1):
        with pytest.raises(ValueError, match="workers"):
            validate_workers(bad)
    for bad in (True, 1.5, "2"):
        with pytest.raises(TypeError, match="workers"):
            validate_workers(bad)
    with pytest.raises(ValueError, match="exclude"):
        get_executor(2, "tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="scheduler"):
        DaskExecutor("http://example.org")
    pytest.importorskip("distributed")
    with pytest.raises(OSError, match="cannot reach"):
        DaskExecutor("tcp://127.0.0.1:9", timeout=1.0)  # nothing listens on the discard port
    assert isinstance(get_executor(1), SerialExecutor) and isinstance(get_executor(2), ProcessExecutor)
    seen: list[Any] = []
    tracked = TrackedExecutor(SerialExecutor(), seen.append)
    assert tracked.map(noisy_draws, [(2, np.random.SeedSequence(1))])[0].shape == (2,) and len(seen) == 1


def test_a_closure_needs_workers_1(tmp_path: Path) -> None:
    S, S1 = {"x": np.zeros(3)}, {"x": np.r_[0.0, 0.0, 1.0]}
    with pytest.raises(TypeError, match="picklable"):
        audit(lambda d, r: np.array([r.normal()]), S, S1, (1.0, 0.0), 50, np.random.default_rng(0), workers=2)


def test_verify_cli_rejects_bad_executor_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for extra, why in ((["--workers", "0"], "--workers"), (["--workers", "2", "--scheduler", "tcp://h:1"], "exclude"),
                       (["--scheduler", "http://h:1"], "--scheduler")):
        assert main(["verify", "--quick", "--quiet", "--only", ONLY, "--out", str(tmp_path / "r"), *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and why in err[0], err


def test_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from dpsco.verification import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, enabled, shown in ((Terminal(), True, True), (Terminal(), False, False),  # --json / --quiet
                                   (io.StringIO(), True, False)):                        # a file or a pipe
        monkeypatch.setattr(sys, "stderr", stream)
        bar = progress.progress_bar(3, "runs", enabled=enabled)
        bar.update(3)
        bar.close()
        assert bool(stream.getvalue()) == shown, (enabled, stream.getvalue())
