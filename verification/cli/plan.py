"""dpsco plan: samples per side needed for a privacy audit to certify r·ε (the sample-cost table as a command).

usage: dpsco plan --family laplace|gaussian|randomized-response --epsilon E [--delta D] --target-ratio r
                  [--route threshold|gdp] [--confidence C] [--selection-fraction F] [--grid exact|quarter-decade]
                  [--n-max N] [--json]

The mechanism is the family's 1-D mechanism whose exact ε at δ = D is E (Laplace scale, Gaussian σ by the
analytic calibration, randomised-response probability).  n_test is the number of test runs per side at which
the expected ε lower bound (expected counts, best event in hindsight, one-sided Clopper-Pearson at
(1 - C)/2 each) first reaches r·E; samples_per_side = n_test/(1 - F) for a split-sample audit.  A planning
figure, not a guarantee (dpsco.verification.auditing.planning;
docs/derivations.md#sample-cost-of-an-oracle-threshold-audit).  n_test is searched up to N (default 1e10, at
most 1e12, the validated range of the Clopper-Pearson bounds); when the target is not reached there, the plan
says so and prints the expected ε_lb at N and at 1e12.

exit status: 0 success, 2 bad input (a one-line error on stderr naming the option).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from dpsco.verification.auditing.clopper_pearson import CLOPPER_PEARSON_MAX_N
from dpsco.verification.auditing.planning import FAMILIES, ROUTES, samples_needed

__all__ = ["configure_parser", "run"]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``plan`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("--family", required=True, choices=FAMILIES, help="mechanism family")
    p.add_argument("--epsilon", required=True, metavar="E", help="exact ε of the mechanism at δ (> 0)")
    p.add_argument("--delta", default="0", metavar="D", help="δ in [0, 1) (default 0; gaussian needs > 0)")
    p.add_argument("--target-ratio", required=True, metavar="r", help="certify r·ε, r in (0, 1)")
    p.add_argument("--route", default="threshold", choices=ROUTES, help="threshold (assumption-free) or gdp")
    p.add_argument("--confidence", default="0.95", metavar="C", help="confidence in (0, 1) (default 0.95)")
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


def _validated(args: argparse.Namespace) -> dict[str, float]:
    """The arguments of samples_needed, each checked here so that an error names the option as typed."""
    eps = _number(args.epsilon, "--epsilon")
    if eps <= 0:
        raise ValueError(f"--epsilon must be > 0, got {args.epsilon!r}")
    delta = _number(args.delta, "--delta") + 0.0  # -0 -> 0
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"--delta must lie in [0, 1), got {args.delta!r}")
    ratio = _number(args.target_ratio, "--target-ratio")
    if not 0.0 < ratio < 1.0:
        raise ValueError(f"--target-ratio must lie in (0, 1), got {args.target_ratio!r}")
    conf = _number(args.confidence, "--confidence")
    if not 0.0 < conf < 1.0:
        raise ValueError(f"--confidence must lie in (0, 1), got {args.confidence!r}")
    frac = _number(args.selection_fraction, "--selection-fraction") + 0.0
    if not 0.0 <= frac < 1.0:
        raise ValueError(f"--selection-fraction must lie in [0, 1), got {args.selection_fraction!r}")
    n_max_text = getattr(args, "n_max", "1e10")
    try:
        n_max_f = float(n_max_text)
    except (TypeError, ValueError):
        raise ValueError(f"--n-max must be a number, got {n_max_text!r}") from None
    if not (math.isfinite(n_max_f) and n_max_f >= 1.0 and n_max_f == int(n_max_f)):
        raise ValueError(f"--n-max must be a whole number >= 1, got {n_max_text!r}")
    if n_max_f > CLOPPER_PEARSON_MAX_N:
        raise ValueError(f"--n-max must be at most {CLOPPER_PEARSON_MAX_N:.0e} (the validated range of the "
                         f"Clopper-Pearson bounds), got {n_max_text!r}")
    if args.route == "gdp" and args.family != "gaussian":
        raise ValueError(f"--route gdp assumes a Gaussian trade-off curve: it is not valid for --family {args.family} "
                         "(its ε would not be a lower bound)")
    if args.family == "gaussian" and delta == 0.0:
        raise ValueError("--family gaussian needs --delta > 0 (the Gaussian mechanism is never (ε, 0)-DP)")
    return {"epsilon": eps, "delta": delta, "target_ratio": ratio, "confidence": conf, "selection_fraction": frac,
            "n_max": n_max_f}


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco plan``; returns 0, or 2 on bad input."""
    try:
        v = _validated(args)
        plan = samples_needed(args.family, v["epsilon"], v["delta"], v["target_ratio"], route=args.route,
                              confidence=v["confidence"], selection_fraction=v["selection_fraction"], grid=args.grid,
                              n_max=int(v["n_max"]))
    except (ValueError, TypeError) as exc:
        print(f"dpsco plan: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(json.dumps(plan.to_dict()) if args.json else plan.summary())
    return 0
