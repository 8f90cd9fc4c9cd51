"""Shared pieces of the public-API fuzzing (tests/test_fuzz_api.py, tests/test_fuzz_claims.py): the algorithms
under test, generated datasets, a per-call wall-clock limit and the fields every release must satisfy."""

from __future__ import annotations

import contextlib
import inspect
import math
import signal
from typing import Callable

import numpy as np

from dpsco.reference import Release
import dpsco.reference.bftt19 as o
import dpsco.reference.lr21 as op
from dpsco.reference.privacy import NEIGHBOURING_RELATIONS, NOTIONS

N, D = 16, 2
CALL_SECONDS = 20.0  # the slowest valid call here takes < 1 s; a first NSGD calibration at T >= 2 takes ~7 s


def dataset(n: int = N, d: int = D, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X *= (rng.uniform(0.2, 1.0, size=n) / np.linalg.norm(X, axis=1))[:, None]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * X @ np.ones(d))), 1.0, -1.0)
    return X, y


BFTT = ["noisy_sgd", "moreau_noisy_sgd", "prox_noisy_sgd", "objective_perturbation",
        "efficient_objective_perturbation"]
LR = ["algorithm_1", "algorithm_2", "tilted_erm", "robust_erm", "algorithm_3"]


def public_algorithms() -> dict[str, Callable[..., Release]]:
    found = {}
    for module in (o, op):
        for name in module.__all__:
            f = getattr(module, name)
            # the catalogue's calling-convention adapters (robust_erm_from_problem, algorithm_3_from_problem) read
            # three public fields of `problem` and delegate: the algorithms they call are fuzzed themselves
            if not inspect.isfunction(f) or name.endswith("_from_problem"):
                continue
            sig = inspect.signature(f)
            if list(sig.parameters)[:2] == ["X", "y"] and sig.return_annotation in ("Release", Release):
                found[name] = f
    return found


ALGORITHMS = public_algorithms()


class CallTimeout(BaseException):
    """A call exceeded CALL_SECONDS of CPU time (a BaseException, so that no ``except Exception`` inside
    swallows it)."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Interrupt the block after ``seconds`` of this process's CPU time (ITIMER_PROF: user + system), not of
    wall-clock time: under ``pytest -n auto`` other tests (some start worker pools of their own) share the
    cores, and a wall-clock limit would then fail a call that is merely waiting for a core."""
    if not hasattr(signal, "setitimer"):  # pragma: no cover - non-POSIX
        yield
        return

    def on_alarm(signum, frame):
        raise CallTimeout(f"the call did not finish within {seconds} s of CPU time")

    previous = signal.signal(signal.SIGPROF, on_alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def check_sane(r: Release, name: str) -> None:
    """Fields every release must satisfy, whatever the algorithm."""
    c = r.claim
    assert c.notion in NOTIONS and c.notion != "none", c.notion  # no override was asked for
    assert isinstance(c.epsilon, float) and 0.0 < c.epsilon < math.inf
    assert isinstance(c.delta, float) and 0.0 <= c.delta < 1.0
    assert c.neighbouring in NEIGHBOURING_RELATIONS
    assert (c.notion == "pure-DP") == (c.delta == 0.0)
    out = np.asarray(r.output)
    assert out.dtype == np.float64 and np.all(np.isfinite(out)), out
    R = r.parameters.get("R", None)
    if R is None:  # Bassily et al.: W = B(0, M) from the problem
        R = r.claim.assumptions["domain"]["radius"]
    # math.hypot: exact to an ulp (np.linalg.norm squares tiny entries into subnormals and lost 4% at R = 7e-162);
    # 1e-321 absolute: for a subnormal R the coordinates of the projection round to multiples of 5e-324
    norms = [math.hypot(*row) for row in np.atleast_2d(out)]
    assert max(norms) <= R * (1 + 1e-12) + 1e-321, (max(norms), R)
