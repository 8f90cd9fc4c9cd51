"""``dpsco verify``'s command line: its options, their checks (every error at once) and the handler that runs
the campaign (dpsco.verification.campaign.verify) or regenerates its reports.  The ``--help`` text is the
campaign module's docstring.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from typing import Iterable

from dpsco.verification.campaign import verify as campaign
from dpsco.verification.campaign.checkpoints import CHECKPOINT_DIR
from dpsco.verification.cli.conventions import (DEFAULT_CONFIDENCE, ErrorCollector, Seed, add_seed_option,
                                              announce_seed, is_quiet, parse_confidence, report_errors, resolve_seed)
from dpsco.verification.executors import max_workers

__doc__ = campaign.__doc__  # noqa: A001 - dpsco verify --help prints the campaign's description

__all__ = ["add_verify_options", "campaign_seed", "check_arguments", "configure_parser", "run"]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``verify`` options to ``p`` and set ``run`` as its handler."""
    add_verify_options(p, campaign.BUDGETS, DEFAULT_CONFIDENCE, campaign.CAMPAIGN_ALPHA)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco verify``; returns the exit status (0 pass, 1 a check failed or an audit refuted, 2 bad
    input)."""
    formats = args.formats or ["md", "html"]
    quiet = bool(getattr(args, "quiet", 0)) or is_quiet("verify")
    wide = bool(getattr(args, "wide", False))
    try:
        budget = check_arguments(args, DEFAULT_CONFIDENCE, campaign.CAMPAIGN_ALPHA)
        if args.list_checks is not None:
            from dpsco.verification.cli.list_checks import format_checks, list_checks

            listing = list_checks(args.list_checks)
            print(json.dumps(listing) if args.json else format_checks(listing))
            return 0
        if args.from_json is not None:
            return campaign.regenerate_reports(args.from_json, args.out, formats, wide=wide)
        seed = campaign_seed(args, CHECKPOINT_DIR)
        if not quiet:
            announce_seed("verify", seed)
        results = campaign.run_verification(budget=budget, out=args.out, seed=seed.value, only=args.only,
                                            quiet=quiet, confidence=args.confidence, alpha=args.alpha,
                                            formats=formats, workers=args.workers, scheduler=args.scheduler,
                                            resume=args.resume)
    except (ImportError, OSError) as exc:  # --scheduler: distributed missing, scheduler unreachable
        if args.scheduler is None:
            raise
        print(f"dpsco verify: error: --scheduler: {str(exc).replace(chr(10), ' ')}", file=sys.stderr)
        return 2
    except ValueError as exc:
        return report_errors("verify", exc)
    return campaign.print_summary(results, args.out, formats, wide=wide)


def add_verify_options(p: argparse.ArgumentParser, budgets: Iterable[str], confidence: float, alpha: float) -> None:
    """The options of ``dpsco verify`` (``-q``/``-v`` are the global options, cli/main.py)."""
    p.add_argument("--budget", choices=sorted(budgets), default=None,
                   help="sample sizes: quick (a smoke run: about 2 minutes and 190 CPU-seconds, measured alone on 2 "
                        "cores; longer when they are shared), standard (default: about 7.5 minutes and 865 "
                        "CPU-seconds, likewise; see README), paper (hours)")
    p.add_argument("--quick", action="store_true", help="shorthand for --budget quick (not with another --budget)")
    p.add_argument("--out", default="dpsco-report", metavar="DIR",
                   help="output directory for results.json and the reports (default: dpsco-report/); checked "
                        "before computing (exit 2 if it cannot be written), then written as one set and swapped in "
                        "whole. An existing DIR is replaced only if it holds nothing but files verify writes")
    p.add_argument("--format", dest="formats", action="append", choices=["md", "html", "latex"], default=None,
                   help="report formats to write, repeatable (default: md and html; latex writes tables.tex)")
    p.add_argument("--from", dest="from_json", metavar="RESULTS_JSON", default=None,
                   help="regenerate the reports from an existing results.json without recomputing (copied into "
                        "--out with them); a file missing a key the reports need is refused (exit 2)")
    add_seed_option(p, "the campaign's SeedSequence (with --resume: the interrupted campaign's)")
    p.add_argument("--only", metavar="PATTERN", default=None,
                   help="run only catalogue entries whose name contains PATTERN (e.g. 'objp')")
    p.add_argument("--confidence", default=str(confidence), metavar="C",
                   help=f"confidence of the privacy audits, in (0, 1): a correct implementation is refuted anywhere "
                        f"in the run with probability at most 1 - C (default: {confidence})")
    p.add_argument("--alpha", default=str(alpha), metavar="A",
                   help=f"family-wise false-failure probability of all checks of the papers' claims (Holm) "
                        f"(default: {alpha})")
    p.add_argument("--workers", default=None, metavar="N",
                   help="local worker processes that run the campaign's tasks (default: every core; 1: this process "
                        "only); the results do not depend on it")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the tasks on the Dask cluster whose scheduler listens there (pip install 'dpsco[dask]'; "
                        "every worker needs the same dpsco); not with --workers")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted campaign from the checkpoints in --out (same options required); "
                        "without it a run starts afresh")
    p.add_argument("--list-checks", default=None, metavar="ENTRY", dest="list_checks",
                   help="list the checks and audits of the catalogue entry ENTRY (what each tests, the planted bug "
                        "that makes it fail or why none can) without running them")
    p.add_argument("--json", action="store_true", help="with --list-checks: print the listing as one JSON record")
    p.add_argument("--wide", action="store_true",  # the report helper's flag (campaign/report_table.py)
                   help="print the full summary table (every check's numbers; wider than 100 columns) instead of "
                        "the compact one")


def check_arguments(args: argparse.Namespace, confidence: float, alpha: float) -> str:
    """Check every option before anything is read or computed, reporting all errors at once (ArgumentErrors, a
    ValueError: one line per option); returns the budget and leaves --confidence, --alpha, --workers parsed."""
    errors = ErrorCollector()
    if args.quick and args.budget not in (None, "quick"):
        errors.add(f"--quick means --budget quick; it contradicts --budget {args.budget}")
    if args.seed is not None:
        errors.call(resolve_seed, args.seed)
    args.confidence = errors.call(parse_confidence, args.confidence, "--confidence", default=confidence)
    args.alpha = errors.call(parse_confidence, args.alpha, "--alpha", default=alpha)
    if args.from_json is not None and not args.from_json:
        errors.add("--from must name a results.json file, got ''")
    if args.workers is not None:
        text, args.workers = args.workers, None
        try:
            args.workers = int(str(text), 10)
        except ValueError:
            pass
        if args.workers is None or not 1 <= args.workers <= max_workers():
            errors.add(f"--workers must be an integer in [1, {max_workers()}] (8 local processes per core), got "
                       f"{text!r}")
    if args.workers is not None and args.scheduler is not None:
        errors.add("--workers and --scheduler exclude each other: a Dask cluster has its own workers")
    if args.scheduler is not None and not args.scheduler.startswith(("tcp://", "tls://", "inproc://")):
        errors.add(f"--scheduler must be a Dask scheduler address such as tcp://HOST:8786, got {args.scheduler!r}")
    if args.from_json is not None and (args.resume or args.scheduler is not None or args.workers is not None):
        errors.add("--from regenerates reports without computing: it takes no --resume, --workers or --scheduler")
    if args.list_checks is None and args.json:
        errors.add("--json applies only with --list-checks (the campaign writes results.json into --out)")
    errors.check()
    return "quick" if args.quick else args.budget or "standard"


def campaign_seed(args: argparse.Namespace, checkpoint_dir: str) -> Seed:
    """--seed, else (--resume) the interrupted campaign's seed from its checkpoints, else a fresh one."""
    if args.seed is None and args.resume:
        for path in sorted(glob.glob(os.path.join(args.out, checkpoint_dir, "*.json"))):
            try:
                with open(path, encoding="utf-8") as fh:
                    return resolve_seed(json.load(fh)["campaign"]["seed"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return resolve_seed(args.seed)
