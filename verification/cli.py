"""The ``dpsco`` command line.

Subcommands
-----------
verify   run the catalogue of algorithms on the built-in real data and a synthetic instance, with privacy
         audits and checks of the papers' bounds; writes ``results.json`` and ``report.md``.
audit    empirically audit the privacy claim of any importable mechanism on a pair of neighbouring datasets.
plan     samples per side an audit needs to certify r·ε for a mechanism family.
compare  test another implementation of a catalogued algorithm against ours (output distribution, utility
         bound, privacy audit).

Exit status: 0 success (audit/compare: nothing refuted), 1 a check failed or a claim was refuted, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    from . import audit_cli, compare_cli, plan_cli, verify

    parser = argparse.ArgumentParser(
        prog="dpsco",
        description="dpsco: reference implementation of differentially private convex optimisation, "
        "with certified oracles, empirical privacy auditors and statistical checks of the papers' theorems.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="{verify,audit,plan,compare}")
    verify.configure_parser(
        sub.add_parser("verify", help="run every catalogued algorithm with its privacy audit and bound checks",
                       description=verify.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    )
    audit_cli.configure_parser(
        sub.add_parser("audit", help="audit the privacy claim of any mechanism f(data, rng) -> array",
                       description=audit_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    )
    plan_cli.configure_parser(
        sub.add_parser("plan", help="samples per side an audit needs to certify r·ε",
                       description=plan_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    )
    compare_cli.configure_parser(
        sub.add_parser("compare", help="test another implementation of a catalogued algorithm against ours",
                       description=compare_cli.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
