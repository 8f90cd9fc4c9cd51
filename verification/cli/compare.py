"""dpsco compare: test another implementation of a catalogued algorithm against ours.

usage: dpsco compare MODULE:CALLABLE --against NAME [--instance fair|synthetic] [--samples N]
                     [--audit-samples N] [--seed S] [--confidence C] [--epsilon E] [--delta D] [--json]

MODULE is a dotted module path or a path to a .py file; CALLABLE names the implementation under test,
with the signature of the catalogue's run functions:

    f(X, y, problem, epsilon, delta, rng, **options) -> Release | array

X (n, d), y (n,), problem a dpsco.reference.problem.ERMProblem (loss, W = B(0, M), declared bounds; use
problem.lipschitz and problem.radius), rng a numpy Generator that must be the only source of randomness.
It returns a dpsco.reference.privacy.Release (its claim is audited) or the (d,) output (the claim audited is then
(--epsilon, --delta)-DP, replace-one; default: the instance's ε and δ).  If f has a parameter named
`replicates`, it is called with replicates=k and must return k independent runs as a (k, d) output.

Both implementations run N times on the instance ("fair": the built-in Fair data, n = 6366, d = 9, logistic
loss, W = B(0, 2), ε = 1, δ = 1/n², as `dpsco verify`; "synthetic": D1 logistic, n = 500, d = 3, faster), and
three families of tests are applied, each at α/3 with α = 1 − C:
  (a) equality of the output distributions: energy distance with a permutation null, and Kolmogorov-Smirnov
      tests per coordinate and on the distance to the certified minimiser with Holm's correction
      (Bonferroni-combined);
  (b) excess empirical risk of both implementations (certified oracle) against the catalogue entry's bound
      on its expectation (one-sided Hoeffding);
  (c) a privacy audit of the candidate at its claimed ε against a replace-one extreme neighbour.
A faithful implementation is refuted with probability at most 1 - C.  "not refuted" is not a proof of
correctness: the output reports the power of each test (docs/compare.md: measured detection rates).

User code: a dotted MODULE is imported with the current directory at the front of sys.path (as python -m
does).  What the implementation prints goes to stderr: stdout carries only the result (e.g. the --json record).

exit status: 0 not refuted, 1 refuted, 2 bad input (a one-line error on stderr), including an implementation
that raises or calls sys.exit (at import or when run); 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from dpsco.verification.papers.catalogue import CATALOGUE
from dpsco.verification.campaign.compare import DEFAULT_CONFIDENCE, DEFAULT_SEED, INSTANCES, CandidateError, compare
from dpsco.verification.campaign.compare import candidate_is_vectorised
from dpsco.verification.auditing.clopper_pearson import CLOPPER_PEARSON_MAX_N
from dpsco.verification.cli.usercode import InputError, UserMechanism, load_mechanism, running
from dpsco.verification.executors import Executor, TrackedExecutor, get_executor
from dpsco.verification.progress import progress_bar

__all__ = ["configure_parser", "run"]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``compare`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("target", metavar="MODULE:CALLABLE",
                   help="implementation f(X, y, problem, epsilon, delta, rng, **options) -> Release | array")
    p.add_argument("--against", required=True, metavar="NAME",
                   help="catalogue entry to compare with: " + ", ".join(e.name for e in CATALOGUE if e.suite is None))
    p.add_argument("--instance", default="fair", choices=INSTANCES,
                   help="'fair' (built-in real data, default) or 'synthetic' (n = 500, d = 3; faster)")
    p.add_argument("--samples", default="2000", metavar="N", help="runs of each implementation (>= 4; default 2000)")
    p.add_argument("--audit-samples", default=None, metavar="N",
                   help="runs per side of the privacy audit (default: --samples)")
    p.add_argument("--seed", default=str(DEFAULT_SEED), metavar="S",
                   help=f"non-negative integer entropy of the SeedSequence (default {DEFAULT_SEED}); recorded")
    p.add_argument("--confidence", default=str(DEFAULT_CONFIDENCE), metavar="C",
                   help=f"1 - overall false-refutation probability, in (0, 1) (default {DEFAULT_CONFIDENCE})")
    p.add_argument("--epsilon", default=None, metavar="E",
                   help="claimed ε audited when the callable returns an array (default: the instance's ε)")
    p.add_argument("--delta", default=None, metavar="D",
                   help="claimed δ audited when the callable returns an array (default: the instance's δ)")
    p.add_argument("--workers", default=None, metavar="N",
                   help="processes that run an implementation without `replicates` (default: every core; 1: this "
                        "process); the result does not depend on it")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run its runs on a Dask cluster (pip install 'dpsco[dask]'; the workers must import the "
                        "implementation's module); not with --workers")
    p.add_argument("--json", action="store_true", help="print one JSON record instead of a summary")
    p.set_defaults(run=run)


def _num(text: Any, name: str, *, integer: bool = False) -> Any:
    try:
        v = int(str(text), 10) if integer else float(text)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be {'an integer' if integer else 'a number'}, got {text!r}") from None
    if not integer and not math.isfinite(v):
        raise InputError(f"{name} must be finite, got {text!r}")
    return v


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco compare``; returns the exit status (0 not refuted, 1 refuted, 2 bad input)."""
    executor: Executor | None = None
    try:
        samples = _num(args.samples, "--samples", integer=True)
        audit_samples = None if args.audit_samples is None else _num(args.audit_samples, "--audit-samples",
                                                                       integer=True)
        for flag, value, text in (("--samples", samples, args.samples),
                                  ("--audit-samples", audit_samples, args.audit_samples)):
            if value is not None and not 4 <= value <= CLOPPER_PEARSON_MAX_N:
                raise InputError(f"{flag} must be an integer in [4, {CLOPPER_PEARSON_MAX_N:.0e}] (the validated "
                                 f"range of the Clopper-Pearson bounds), got {text!r}")
        seed = _num(args.seed, "--seed", integer=True)
        if seed < 0:
            raise InputError(f"--seed must be a non-negative integer, got {args.seed!r}")
        confidence = _num(args.confidence, "--confidence")
        if not (0.0 < confidence < 1.0):
            raise InputError(f"--confidence must lie in (0, 1), got {args.confidence!r}")
        eps = None if args.epsilon is None else _num(args.epsilon, "--epsilon")
        if eps is not None and eps <= 0:
            raise InputError(f"--epsilon must be > 0, got {args.epsilon!r}")
        delta = None if args.delta is None else _num(args.delta, "--delta")
        if delta is not None and not (0.0 <= delta < 1.0):
            raise InputError(f"--delta must lie in [0, 1), got {args.delta!r}")
        comparable = [e.name for e in CATALOGUE if e.suite is None]
        if args.against not in comparable:
            raise InputError(f"--against {args.against!r} is not a catalogue entry that compare supports; known: "
                              f"{comparable}")
        candidate = load_mechanism(args.target)
        if not callable(candidate):
            raise InputError(f"{args.target} is not callable")
        workers = None if args.workers is None else _num(args.workers, "--workers", integer=True)
        if workers is not None and workers < 1:
            raise InputError(f"--workers must be >= 1, got {args.workers!r}")
        if workers is not None and args.scheduler is not None:
            raise InputError("--workers and --scheduler exclude each other: a Dask cluster has its own workers")
        vectorised = candidate_is_vectorised(candidate)
        runner = candidate
        if not vectorised:  # single runs go to the executor (a vectorised one runs in this process)
            try:
                inner = get_executor(workers, args.scheduler)
            except (ImportError, OSError, ValueError) as exc:
                raise InputError(f"--scheduler: {exc}") from None
            bar = progress_bar(0, "runs", enabled=not args.json, unit="run")
            executor = TrackedExecutor(inner, lambda res: bar.update(len(res[0])), bar.close)
            if inner.kind != "serial":
                runner = UserMechanism(args.target)
        try:
            with running(f"the implementation {args.target}"):
                result = compare(runner, args.against, instance=args.instance, samples=samples,
                                 audit_samples=audit_samples, seed=seed, confidence=confidence,
                                 claimed_epsilon=eps, claimed_delta=delta, candidate_name=args.target,
                                 workers=executor, vectorised=vectorised)
        except InputError:
            raise
        except (CandidateError, ValueError, TypeError) as exc:
            raise InputError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - e.g. the implementation's output object raised on conversion
            raise InputError(f"while running {args.target}: {type(exc).__name__}: {exc}") from None
    except InputError as exc:
        print(f"dpsco compare: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if executor is not None:
            executor.close()
    if args.json:
        print(json.dumps(result.to_dict(), allow_nan=False))
    else:
        print(result.summary())
    return result.exit_status
