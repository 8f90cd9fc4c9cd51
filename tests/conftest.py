"""Test-wide settings.

BLAS runs on one thread per test process (unless the environment says otherwise), as the ``dpsco`` commands
run it: under ``pytest -n auto`` every core already runs a test, and a threaded BLAS on a busy machine made
small products 100–700× slower (``docs/performance.md``).  Set before any test module imports numpy.
"""

import os
import sys

# the papers' test folders (tests/<paper>/) import the shared helpers (_mechanisms, _problems, _fuzz) by name
_TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _TESTS)
# and a test may import another room's test module by name (e.g. its worst-case instance builders)
sys.path[1:1] = sorted(os.path.join(_TESTS, d) for d in os.listdir(_TESTS)
                       if os.path.isdir(os.path.join(_TESTS, d)) and not d.startswith((".", "_")))

# ---- hypothesis: the same examples on every run ------------------------------------------------------------------
# A property test must not pass or fail by the luck of its random examples ("no flaky tests"): by default every
# run draws the same examples (derandomize, no example database), so a CI run is reproducible.  To search afresh
# for counter-examples, run with HYPOTHESIS_PROFILE=explore (random examples, the local database), and turn what
# it finds into @example cases.
from hypothesis import settings as _hypothesis_settings

_hypothesis_settings.register_profile("ci", derandomize=True, database=None)
_hypothesis_settings.register_profile("explore", derandomize=False)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


# ---- the longest test files first ---------------------------------------------------------------------------------
# Collection order is alphabetical, which put the longest item of the run (tests/test_verify.py's whole quick
# campaign, about 180 CPU-s on a pool of its own) near the end: on 2 cores one xdist worker ran it alone while the
# other had nothing left to do (784 s of wall time for 1,164 CPU-s on 2 idle cores).  Longest first is the classic
# makespan heuristic: these files run at the start of the first worker's chunk, and the rest of the suite fills the
# other worker and, later, both (docs/performance.md, "Test suite").  The order within a file is unchanged, so
# module-scoped fixtures are set up as before; every worker sorts the same way, so xdist's collections agree.
_LONGEST_FILES = ("tests/test_verify.py", "tests/test_executors.py", "tests/alt24/test_alt24_white_box.py",
                  "tests/test_api_docs.py", "tests/lr21/test_lr21_algorithm_3.py",
                  "tests/accd22/test_accd22_privacy.py")


def pytest_collection_modifyitems(config, items):  # noqa: ARG001 - the pytest hook signature
    rank = {name: i for i, name in enumerate(_LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # stable: same order otherwise


# ---- expensive results computed once per test run ----------------------------------------------------------------
# Under pytest-xdist (`-n auto`) a module- or session-scoped fixture runs once in EVERY worker that executes one of
# its tests, and the load scheduler spreads a module's tests over the workers.  `run_once` makes a real campaign run
# once per test run: the first worker to ask takes a lock in the run's shared temporary root, computes, and marks
# the result done; the others wait on the lock and reuse it (docs/performance.md, "Test suite").

import contextlib
import json
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: every worker computes its own copy, as before
    fcntl = None


def _shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary directory of this test run that every xdist worker shares (the run's own basetemp without
    xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _locked(path: Path):
    with open(path, "a") as fh:
        if fcntl is not None:
            fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fh, fcntl.LOCK_UN)


def run_once(tmp_path_factory: pytest.TempPathFactory, key: str, compute) -> tuple[object, Path]:
    """``compute(directory) -> JSON value`` run once per test run into ``<shared root>/<key>/``; returns (value,
    directory).  Callers treat the directory as read-only (copy it before editing)."""
    root = _shared_root(tmp_path_factory) if fcntl is not None else tmp_path_factory.mktemp(key)
    directory, done = root / key, root / f"{key}.done.json"
    with _locked(root / f"{key}.lock"):
        if not done.exists():
            directory.mkdir(exist_ok=True)
            value = compute(directory)
            done.write_text(json.dumps(value))
    return json.loads(done.read_text()), directory


@pytest.fixture(scope="session")
def quick_campaign_lr21_alg2(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path]:
    """``dpsco verify --quick --only lr21.alg2 --seed 20191208`` (the default seed of the campaign module) with all
    three report formats, run once per test run; (exit status, report directory).  Shared by
    tests/test_verify_errors.py, tests/test_verify_trust.py and tests/test_results_schema.py, each of which copies
    the directory before use."""
    from dpsco.verification.cli.main import main

    def compute(directory: Path) -> int:
        return main(["verify", "--quick", "--quiet", "--only", "lr21.alg2", "--seed", "20191208",
                     "--out", str(directory / "report"), "--format", "md", "--format", "html", "--format", "latex"])

    status, directory = run_once(tmp_path_factory, "quick-campaign-lr21.alg2", compute)
    return int(status), directory / "report"


@pytest.fixture(scope="module")
def quick_campaign_copy(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                        quick_campaign_lr21_alg2: tuple[int, Path]) -> Path:
    """This test module's own copy of :func:`quick_campaign_lr21_alg2`'s report directory (the module may edit it),
    after checking that the campaign ran lr21.alg2 and passed or failed (exit status 0 or 1)."""
    import shutil

    status, src = quick_campaign_lr21_alg2
    assert "lr21.alg2" in json.loads((src / "results.json").read_text())["records"][0]["name"]
    assert status in (0, 1)
    out = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]) / "report"
    shutil.copytree(src, out)
    return out
