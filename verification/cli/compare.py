"""dpsco compare: test another implementation of a catalogued algorithm against ours.

usage: dpsco compare MODULE:CALLABLE --against NAME [--instance fair|synthetic|harness] [--samples N]
                     [--audit-samples N] [--white-box-pilot-runs N] [--seed S] [--confidence C] [--epsilon E]
                     [--delta D] [--json]
       dpsco compare --against NAME --show-signature [--json]

Every catalogue entry that releases a private output is comparable (`dpsco list`).  Each declares its compare
signature (--show-signature prints it): what the candidate receives, the instance, what is compared.

MODULE is a dotted module path or a path to a .py file; CALLABLE names the implementation under test.  For the
entries of Bassily et al. and Lowy & Razaviyayn it has the signature of the catalogue's run functions, and
receives the entry's options BY NAME (e.g. mu=0.1, method="agd" for lr21.alg1):

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
For the entries of Asi, Liu & Tian, Menart et al. and Asi, Chadha, Cheng & Duchi (verified by their own suites)
the candidate is a drop-in for the reference function: the entry's privacy harness calls it by keyword with
exactly the arguments it passes the reference (--show-signature lists them by name, with the parameters they
resolve to) on the harness's instance ("harness"); (a) compares the released outcome (⊥ as an outcome where the
paper releases it), (b) tests that the candidate's excess on the harness's objective (the entry's utility measure,
--show-signature) is not stochastically larger than the reference's (one-sided KS), and checks the paper's bound
where one is declared at the harness's inputs, (c) checks every notion of the claim against the exact privacy of
the paper's mechanism on the worst-case pair and audits the candidate there.
A faithful implementation is refuted with probability at most 1 - C (default C = 0.95).  Without --seed a fresh
seed is drawn, recorded in the output and printed on stderr ("seed: S — rerun with --seed S").  "not refuted" is not a proof of
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

from dpsco.verification.papers.signatures import signature_registry
from dpsco.verification.campaign.compare import INSTANCES, CandidateError, compare
from dpsco.verification.campaign.compare_suite import SuiteCandidateError
from dpsco.verification.cli.conventions import (DEFAULT_CONFIDENCE, add_seed_option, announce_seed, get_logger,
                                                is_quiet, resolve_seed, track_executor)
from dpsco.verification.campaign.compare import candidate_is_vectorised
from dpsco.verification.auditing.clopper_pearson import CLOPPER_PEARSON_MAX_N
from dpsco.verification.cli.usercode import InputError, UserMechanism, load_mechanism, running
from dpsco.verification.executors import Executor, get_executor

__all__ = ["HARNESS_SAMPLES", "LOGISTIC_SAMPLES", "configure_parser", "run"]

#: default runs of each implementation: the logistic entries (vectorised, ~1 s per 2000 runs of ours) and the
#: suite-verified entries (one harness run each, 1-360 ms: 500 runs keep a comparison within minutes)
LOGISTIC_SAMPLES, HARNESS_SAMPLES = 2000, 500


def _task_runs(task: tuple[object, ...]) -> int:
    """Runs in one task of ``campaign.compare.candidate_outputs`` (its last element: one seed per run)."""
    seeds = task[-1] if task else None
    return len(seeds) if isinstance(seeds, (list, tuple)) else 1


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``compare`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("target", metavar="MODULE:CALLABLE", nargs="?", default=None,
                   help="implementation under test (--show-signature: its interface for --against NAME)")
    p.add_argument("--against", required=True, metavar="NAME",
                   help="catalogue entry to compare with (`dpsco list`: every comparable entry)")
    p.add_argument("--show-signature", action="store_true",
                   help="print the entry's compare signature (the candidate's inputs by name, the instance, what is "
                        "compared) and exit")
    p.add_argument("--instance", default=None, choices=INSTANCES + ("harness",),
                   help="'fair' (built-in real data, default for Bassily et al. and Lowy & Razaviyayn), 'synthetic' "
                        "(n = 500, d = 3; faster) or 'harness' (the only instance of the suite-verified entries)")
    p.add_argument("--samples", default=None, metavar="N",
                   help="runs of each implementation (>= 4; default 2000, 500 for the suite-verified entries)")
    p.add_argument("--audit-samples", default=None, metavar="N",
                   help="runs per side of the privacy audit (default: --samples)")
    p.add_argument("--white-box-pilot-runs", default=None, metavar="N",
                   help="pilot runs per side placing the white-box audit's event, when the candidate's Release "
                        "carries its transcript (family (d); default: the auditor's; power only)")
    add_seed_option(p, "the comparison's SeedSequence")
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


def _show_signature(signature: Any, as_json: bool) -> int:
    """Print the entry's compare signature (with one recorded harness call for the suite-verified entries)."""
    recorded = None
    if signature.calling == "harness":
        from dpsco.verification.campaign.compare_suite import recorded_call

        recorded = recorded_call(signature)
    if as_json:
        record = signature.to_dict()
        if recorded is not None:
            record["recorded_call"] = recorded
        print(json.dumps(record, allow_nan=False, default=str))
    else:
        print(signature.to_text(recorded))
    return 0


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco compare``; returns the exit status (0 not refuted, 1 refuted, 2 bad input)."""
    executor: Executor | None = None
    try:
        samples = None if args.samples is None else _num(args.samples, "--samples", integer=True)
        audit_samples = None if args.audit_samples is None else _num(args.audit_samples, "--audit-samples",
                                                                       integer=True)
        pilot = (None if args.white_box_pilot_runs is None
                 else _num(args.white_box_pilot_runs, "--white-box-pilot-runs", integer=True))
        if pilot is not None and pilot < 1:
            raise InputError(f"--white-box-pilot-runs must be an integer >= 1, got {args.white_box_pilot_runs!r}")
        for flag, value, text in (("--samples", samples, args.samples),
                                  ("--audit-samples", audit_samples, args.audit_samples)):
            if value is not None and not 4 <= value <= CLOPPER_PEARSON_MAX_N:
                raise InputError(f"{flag} must be an integer in [4, {CLOPPER_PEARSON_MAX_N:.0e}] (the validated "
                                 f"range of the Clopper-Pearson bounds), got {text!r}")
        seed_obj = resolve_seed(args.seed)
        seed = seed_obj.value
        confidence = _num(args.confidence, "--confidence")
        if not (0.0 < confidence < 1.0):
            raise InputError(f"--confidence must lie in (0, 1), got {args.confidence!r}")
        eps = None if args.epsilon is None else _num(args.epsilon, "--epsilon")
        if eps is not None and eps <= 0:
            raise InputError(f"--epsilon must be > 0, got {args.epsilon!r}")
        delta = None if args.delta is None else _num(args.delta, "--delta")
        if delta is not None and not (0.0 <= delta < 1.0):
            raise InputError(f"--delta must lie in [0, 1), got {args.delta!r}")
        signatures = signature_registry()
        comparable = [name for name, sig in signatures.items() if sig.comparable]
        if args.against not in signatures:
            raise InputError(f"--against {args.against!r} is not a catalogue entry; comparable entries: {comparable}")
        signature = signatures[args.against]
        if args.show_signature:
            return _show_signature(signature, args.json)
        if not signature.comparable:
            raise InputError(f"--against {args.against!r} is not comparable: {signature.reason}")
        if args.target is None:
            raise InputError("MODULE:CALLABLE is required (except with --show-signature)")
        instance = args.instance
        if signature.calling == "harness":
            bad = [flag for flag, v in (("--epsilon", args.epsilon), ("--delta", args.delta),
                                         ("--workers", args.workers), ("--scheduler", args.scheduler),
                                         ("--white-box-pilot-runs", args.white_box_pilot_runs)) if v is not None]
            if instance not in (None, "harness"):
                bad.append(f"--instance {instance}")
            if bad:
                raise InputError(f"--against {args.against!r} runs on its harness's instance with the claim the "
                                 f"candidate's Release states (--show-signature): {', '.join(bad)} not available")
            instance = "harness"
        elif instance is None:
            instance = "fair"
        elif instance == "harness":
            raise InputError(f"--instance harness is for the suite-verified entries; {args.against!r} runs on 'fair' or "
                             "'synthetic'")
        if samples is None:
            samples = HARNESS_SAMPLES if signature.calling == "harness" else LOGISTIC_SAMPLES
        candidate = load_mechanism(args.target)
        if not callable(candidate):
            raise InputError(f"{args.target} is not callable")
        announce_seed("compare", seed_obj)
        workers = None if args.workers is None else _num(args.workers, "--workers", integer=True)
        if workers is not None and workers < 1:
            raise InputError(f"--workers must be >= 1, got {args.workers!r}")
        if workers is not None and args.scheduler is not None:
            raise InputError("--workers and --scheduler exclude each other: a Dask cluster has its own workers")
        vectorised = candidate_is_vectorised(candidate) if signature.calling == "logistic" else True
        runner = candidate
        if not vectorised:  # single runs go to the executor (a vectorised one runs in this process)
            try:
                inner = get_executor(workers, args.scheduler)
            except (ImportError, OSError, ValueError) as exc:
                raise InputError(f"--scheduler: {exc}") from None
            # tasks of campaign.compare.candidate_outputs: (..., seeds), one run per seed; the bar's total grows
            # with each batch, so it has an ETA; off a terminal, one log line per task (progress.py)
            executor = track_executor(inner, "runs", enabled=not args.json and not is_quiet("compare"), unit="run",
                                      task_size=_task_runs, logger=get_logger("compare"))
            if inner.kind != "serial":
                runner = UserMechanism(args.target)
        try:
            with running(f"the implementation {args.target}"):
                result = compare(runner, args.against, instance=instance, samples=samples,
                                 audit_samples=audit_samples, seed=seed, confidence=confidence,
                                 claimed_epsilon=eps, claimed_delta=delta, candidate_name=args.target,
                                 workers=executor, vectorised=vectorised, white_box_pilot_runs=pilot)
        except InputError:
            raise
        except (CandidateError, SuiteCandidateError, ValueError, TypeError) as exc:
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
