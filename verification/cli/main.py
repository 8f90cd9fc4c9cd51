"""The ``dpsco`` command line.

Subcommands
-----------
verify   run the catalogue of algorithms on the built-in real data and a synthetic instance, with privacy
         audits and checks of the papers' bounds; writes ``results.json`` and ``report.md``.
audit    empirically audit the privacy claim of any importable mechanism on a pair of neighbouring datasets.
plan     samples per side an audit needs to certify r·ε for a mechanism family.
compare  test another implementation of a catalogued algorithm against ours (output distribution, utility
         bound, privacy audit).

Exit status: 0 success (audit/compare: nothing refuted), 1 a check failed or a claim was refuted, 2 bad input
(one line on stderr naming the option, nothing on stdout; usage errors such as an unknown choice or a missing
argument included; also user code that raises or calls sys.exit), 130 interrupted (Ctrl-C).  If the reader of standard output
goes away (``dpsco ... | head``) the command ends quietly with status 141 (128 + SIGPIPE).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn, Sequence

from dpsco.verification.campaign import verify
from dpsco.verification.cli import audit as audit_cli
from dpsco.verification.cli import compare as compare_cli
from dpsco.verification.cli import plan as plan_cli

__all__ = ["build_parser", "main"]

_EPILOG = """\
exit status: 0 success (audit, compare: claim not refuted), 1 a check failed or a claim was refuted,
  2 bad input (a one-line error on stderr naming the option, nothing on stdout), including user code that
  raises or calls sys.exit; 130 interrupted.
  If the reader of standard output goes away (dpsco ... | head), the command ends quietly with status 141
  (128 + SIGPIPE, as a command killed by SIGPIPE).

user code (audit, compare): MODULE:CALLABLE is imported with the current directory at the front of sys.path
  (as python -m does); whatever it prints goes to standard error, so standard output carries only dpsco's
  result (e.g. the --json record)."""


class _Parser(argparse.ArgumentParser):
    """argparse with the commands' error convention: a usage error is ONE line on stderr (status 2), naming the
    option, as every other bad input is; the full usage is one ``--help`` away.  (argparse's default prints the
    whole usage block first: for ``dpsco audit`` that is a dozen lines before the error.)  Subparsers inherit
    the class."""

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {' '.join(str(message).split())} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``dpsco`` parser with its four subcommands (each module's docstring is its ``--help`` text)."""
    parser = _Parser(
        prog="dpsco",
        description="dpsco: reference implementation of differentially private convex optimisation, "
        "with certified oracles, empirical privacy auditors and statistical checks of the papers' theorems.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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


def _stdout_closed() -> int:
    """The reader of stdout went away (e.g. ``dpsco ... | head``): end quietly, as the Python docs advise
    (https://docs.python.org/3/library/signal.html#note-on-sigpipe): point stdout at devnull so that the
    interpreter's final flush does not raise again.  The status is 141 (128 + SIGPIPE, what a command killed
    by SIGPIPE reports), not 1: the output was cut, and 1 would read as "refuted"."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (e.g. captured)
        pass
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dpsco``; returns the exit status (see the module docstring)."""
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)  # --help is printed here
        except SystemExit as exc:  # --help (0) or a usage error (2, one line already on stderr): a status, as below
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        status = int(args.run(args))
        sys.stdout.flush()  # with buffered stdout a closed pipe is reported here, not at interpreter exit
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted", file=sys.stderr)
        return 130
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
