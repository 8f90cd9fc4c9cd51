"""dpsco plan: samples per side needed for a privacy audit to certify r·ε (prior-art §A.0 as a command).

usage: dpsco plan --family laplace|gaussian|randomized-response --epsilon E [--delta D] --target-ratio r
                  [--route threshold|gdp] [--confidence C] [--selection-fraction F] [--grid exact|quarter-decade]
                  [--n-max N] [--json]

The mechanism is the family's 1-D mechanism whose exact ε at δ = D is E (Laplace scale, Gaussian σ by the
analytic calibration, randomised-response probability).  n_test is the number of test runs per side at which
the expected ε lower bound (expected counts, best event in hindsight, one-sided Clopper-Pearson at
(1 - C)/2 each) first reaches r·E; samples_per_side = n_test/(1 - F) for a split-sample audit.  A planning
figure, not a guarantee (verification.planning).  n_test is searched up to N (default 1e10, at most 1e12,
the validated range of the Clopper-Pearson bounds); when the target is not reached there, the plan says so
and prints the expected ε_lb at N and at 1e12.

exit status: 0 success, 2 bad input (a one-line error on stderr).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from .planning import FAMILIES, ROUTES, samples_needed

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
                   help="exact integer n, or the 10^(j/4) grid of prior-art A.0")
    p.add_argument("--n-max", default="1e10", metavar="N",
                   help="search limit for n_test, runs per side (default 1e10; at most 1e12, the validated range "
                        "of the Clopper-Pearson bounds)")
    p.add_argument("--json", action="store_true", help="print one JSON record")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco plan``; returns 0, or 2 on bad input."""
    try:
        vals = {}
        for name, text in (("--epsilon", args.epsilon), ("--delta", args.delta), ("--target-ratio", args.target_ratio),
                           ("--confidence", args.confidence), ("--selection-fraction", args.selection_fraction)):
            try:
                vals[name] = float(text)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number, got {text!r}") from None
        n_max_text = getattr(args, "n_max", "1e10")
        try:
            n_max_f = float(n_max_text)
        except (TypeError, ValueError):
            raise ValueError(f"--n-max must be a number, got {n_max_text!r}") from None
        if not (math.isfinite(n_max_f) and n_max_f >= 1.0 and n_max_f == int(n_max_f)):
            raise ValueError(f"--n-max must be a whole number >= 1, got {n_max_text!r}")
        plan = samples_needed(args.family, vals["--epsilon"], vals["--delta"], vals["--target-ratio"],
                              route=args.route, confidence=vals["--confidence"],
                              selection_fraction=vals["--selection-fraction"], grid=args.grid,
                              n_max=int(n_max_f))
    except (ValueError, TypeError) as exc:
        print(f"dpsco plan: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(plan.to_dict()) if args.json else plan.summary())
    return 0
