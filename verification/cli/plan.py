"""dpsco plan: samples per side needed for a privacy audit to certify r·ε (the sample-cost table as a command).

usage: dpsco plan --family laplace|gaussian|randomized-response --epsilon E [--delta D] --target-ratio r
                  [--estimator threshold|gdp] [--confidence C] [--selection-fraction F] [--grid exact|quarter-decade]
                  [--n-max N] [--json]

The mechanism is the family's 1-D mechanism whose exact ε at δ = D is E (Laplace scale, Gaussian σ by the
analytic calibration, randomised-response probability).  n_test is the number of test runs per side at which
the expected ε lower bound (expected counts, best event in hindsight, one-sided Clopper-Pearson at
(1 - C)/2 each) first reaches r·E; samples_per_side = n_test/(1 - F) for a split-sample audit.  A planning
figure, not a guarantee (dpsco.verification.auditing.planning;
docs/derivations.md#sample-cost-of-an-oracle-threshold-audit).  n_test is searched up to N (default 1e10, at
most 1e12, the validated range of the Clopper-Pearson bounds); when the target is not reached there, the plan
says so and prints the expected ε_lb at N and at 1e12.

--estimator names the audit's estimator as ``dpsco audit --estimator`` does (threshold: assumption-free; gdp: the
Gaussian-DP route, valid for --family gaussian only).  ``--route`` is its former name: still accepted, with a
deprecation warning on stderr.  plan draws no random numbers (expected counts), so it takes no --seed.

exit status: 0 success, 2 bad input (one line on stderr per bad option, all reported at once).
"""

from __future__ import annotations

import argparse
import json
import math

from dpsco.verification.auditing.clopper_pearson import CLOPPER_PEARSON_MAX_N
from dpsco.verification.auditing.planning import FAMILIES, ROUTES, samples_needed
from dpsco.verification.cli.conventions import (ErrorCollector, InputError, add_confidence_option, get_logger,
                                              parse_confidence, report_errors)

__all__ = ["configure_parser", "run"]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``plan`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("--family", required=True, choices=FAMILIES, help="mechanism family")
    p.add_argument("--epsilon", required=True, metavar="E", help="exact ε of the mechanism at δ (> 0)")
    p.add_argument("--delta", default="0", metavar="D", help="δ in [0, 1) (default 0; gaussian needs > 0)")
    p.add_argument("--target-ratio", required=True, metavar="r", help="certify r·ε, r in (0, 1)")
    p.add_argument("--estimator", default=None, choices=ROUTES,
                   help="the audit's estimator, as dpsco audit --estimator: threshold (assumption-free, default) or "
                        "gdp (Gaussian trade-off; --family gaussian only)")
    p.add_argument("--route", default=None, choices=ROUTES, help="deprecated name of --estimator")
    add_confidence_option(p, "the audit's lower bound holds with probability at least C")
    p.add_argument("--selection-fraction", default="0.5", metavar="F", help="selection split in [0, 1) (default 0.5)")
    p.add_argument("--grid", default="exact", choices=("exact", "quarter-decade"),
                   help="exact integer n, or the 10^(j/4) grid of the sample-cost table in docs/auditing.md")
    p.add_argument("--n-max", default="1e10", metavar="N",
                   help="search limit for n_test, runs per side (default 1e10; at most 1e12, the validated range "
                        "of the Clopper-Pearson bounds)")
    p.add_argument("--json", action="store_true", help="print one JSON record")
    p.set_defaults(run=run)


def _number(text: object, name: str) -> float:
    try:
        v = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {text!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {text!r}")
    return v


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)


def _estimator(args: argparse.Namespace) -> str:
    """--estimator, or its deprecated alias --route (a warning on stderr); ValueError if they disagree."""
    estimator, route = getattr(args, "estimator", None), getattr(args, "route", None)
    if route is not None:
        get_logger("plan").warning("--route is deprecated: use --estimator (the same values, as in dpsco audit)")
        if estimator is not None and estimator != route:
            raise ValueError(f"--route {route} contradicts --estimator {estimator} (--route is the deprecated name of "
                             "--estimator: give only --estimator)")
    return estimator or route or "threshold"


def _validated(args: argparse.Namespace) -> dict[str, float]:
    """The arguments of samples_needed, each checked here so that an error names the option as typed; every
    error is collected and reported at once (ArgumentErrors)."""
    errors = ErrorCollector()
    eps = errors.call(_number, args.epsilon, "--epsilon")
    if eps is not None:
        errors.call(_check, eps > 0, f"--epsilon must be > 0, got {args.epsilon!r}")
    delta = errors.call(_number, args.delta, "--delta")
    if delta is not None:
        delta += 0.0  # -0 -> 0
        errors.call(_check, 0.0 <= delta < 1.0, f"--delta must lie in [0, 1), got {args.delta!r}")
    ratio = errors.call(_number, args.target_ratio, "--target-ratio")
    if ratio is not None:
        errors.call(_check, 0.0 < ratio < 1.0, f"--target-ratio must lie in (0, 1), got {args.target_ratio!r}")
    conf = errors.call(parse_confidence, args.confidence)
    frac = errors.call(_number, args.selection_fraction, "--selection-fraction")
    if frac is not None:
        frac += 0.0
        errors.call(_check, 0.0 <= frac < 1.0,
                    f"--selection-fraction must lie in [0, 1), got {args.selection_fraction!r}")
    n_max_text = getattr(args, "n_max", "1e10")
    n_max_f = None
    try:
        n_max_f = float(n_max_text)
    except (TypeError, ValueError):
        errors.add(f"--n-max must be a number, got {n_max_text!r}")
    if n_max_f is not None:
        if not (math.isfinite(n_max_f) and n_max_f >= 1.0 and n_max_f == int(n_max_f)):
            errors.add(f"--n-max must be a whole number >= 1, got {n_max_text!r}")
        elif n_max_f > CLOPPER_PEARSON_MAX_N:
            errors.add(f"--n-max must be at most {CLOPPER_PEARSON_MAX_N:.0e} (the validated range of the "
                       f"Clopper-Pearson bounds), got {n_max_text!r}")
    estimator = errors.call(_estimator, args)
    if estimator == "gdp" and args.family != "gaussian":
        errors.add(f"--estimator gdp assumes a Gaussian trade-off curve: it is not valid for --family {args.family} "
                   "(its ε would not be a lower bound)")
    if args.family == "gaussian" and delta == 0.0:
        errors.add("--family gaussian needs --delta > 0 (the Gaussian mechanism is never (ε, 0)-DP)")
    errors.check()
    return {"epsilon": eps, "delta": delta, "target_ratio": ratio, "confidence": conf, "selection_fraction": frac,
            "n_max": n_max_f, "estimator": estimator}


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco plan``; returns 0, or 2 on bad input."""
    try:
        v = _validated(args)
        plan = samples_needed(args.family, v["epsilon"], v["delta"], v["target_ratio"], route=v["estimator"],
                              confidence=v["confidence"], selection_fraction=v["selection_fraction"], grid=args.grid,
                              n_max=int(v["n_max"]))
    except (ValueError, TypeError, InputError) as exc:
        return report_errors("plan", exc)
    print(json.dumps(plan.to_dict()) if args.json else plan.summary())
    return 0
