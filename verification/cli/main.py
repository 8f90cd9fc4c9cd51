"""The ``dpsco`` command line.

Subcommands
-----------
verify   run the catalogue of algorithms on the built-in real data and a synthetic instance, with privacy
         audits and checks of the papers' bounds; writes ``results.json`` and ``report.md``.
audit    empirically audit the privacy claim of any importable mechanism on a pair of neighbouring datasets.
plan     samples per side an audit needs to certify r·ε for a mechanism family.
compare  test another implementation of a catalogued algorithm against ours (output distribution, utility
         bound, privacy audit).

Global options: ``--version``; ``-v``/``--verbose`` (more log lines on stderr) and ``-q``/``--quiet`` (no progress,
no per-task lines, no seed line; ``-qq``: errors only), given before or after the command
(dpsco.verification.cli.conventions: the conventions every command shares).

Exit status: 0 success (audit/compare: nothing refuted), 1 a check failed or a claim was refuted, 2 bad input
(one line on stderr naming the option, nothing on stdout; usage errors such as an unknown choice or a missing
argument included; also user code that raises or calls sys.exit), 130 interrupted (Ctrl-C).  If the reader of standard output
goes away (``dpsco ... | head``) the command ends quietly with status 141 (128 + SIGPIPE).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Iterable, NoReturn, Sequence

__all__ = ["COMMANDS", "build_parser", "main", "version"]

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


def version() -> str:
    """The installed dpsco's version (importlib.metadata), or "unknown" when it is not installed."""
    import importlib.metadata as md

    try:
        return md.version("dpsco")
    except md.PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: prints ``dpsco VERSION`` and exits 0; the version is looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print dpsco's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"dpsco {version()}")
        parser.exit(0)


def _add_verbosity(p: argparse.ArgumentParser, default: object) -> None:
    """-v/--verbose and -q/--quiet (counts).  On the subcommands the default is SUPPRESS, so that ``dpsco -q
    verify`` and ``dpsco verify -q`` both work."""
    p.add_argument("-v", "--verbose", action="count", default=default,
                   help="more log lines on stderr (repeatable); off a terminal, audit and compare then log every "
                        "finished task of their runs (default: every 25th task and the end of each batch)")
    p.add_argument("-q", "--quiet", action="count", default=default,
                   help="fewer log lines on stderr: no progress, no per-task lines, no seed line (-qq: errors only)")


#: the subcommands: (module that configures and runs it, one-line help).  A module is imported only when its
#: command is parsed, so ``dpsco --help`` loads no auditor, catalogue, cvxpy or matplotlib
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("dpsco.verification.cli.verify",
               "run every catalogued algorithm with its privacy audit and bound checks"),
    "audit": ("dpsco.verification.cli.audit", "audit the privacy claim of any mechanism f(data, rng) -> array"),
    "plan": ("dpsco.verification.cli.plan", "samples per side an audit needs to certify r·ε"),
    "compare": ("dpsco.verification.cli.compare", "test another implementation of a catalogued algorithm against ours"),
    "list": ("dpsco.verification.cli.list", "every catalogue entry: paper, algorithm, whether dpsco compare accepts it"),
}


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The ``dpsco`` parser with its four subcommands (each module's docstring is its ``--help`` text).

    commands : the subcommands whose module is imported and whose options are configured (default: all); the
        others are listed with their one-line help only (``dpsco --help`` needs nothing more).  ValueError for an
        unknown name."""
    wanted = set(COMMANDS) if commands is None else set(commands)
    unknown = wanted - set(COMMANDS)
    if unknown:
        raise ValueError(f"unknown commands {sorted(unknown)}; known: {sorted(COMMANDS)}")
    parser = _Parser(
        prog="dpsco",
        description="dpsco: reference implementation of differentially private convex optimisation, "
        "with certified oracles, empirical privacy auditors and statistical checks of the papers' theorems.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    _add_verbosity(parser, 0)
    sub = parser.add_subparsers(dest="command", required=True, metavar="{" + ",".join(COMMANDS) + "}")
    for name, (module_name, help_text) in COMMANDS.items():
        if name not in wanted:
            sub.add_parser(name, help=help_text)
            continue
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=help_text, description=module.__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        _add_verbosity(p, argparse.SUPPRESS)
        module.configure_parser(p)
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
    args_list = list(sys.argv[1:] if argv is None else argv)
    # only the command being run is imported: the first argument that is not a global option names it
    command = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser([command] if command in COMMANDS else [])
    try:
        try:
            args = parser.parse_args(args_list)  # --help is printed here
        except SystemExit as exc:  # --help (0) or a usage error (2, one line already on stderr): a status, as below
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        from dpsco.verification.cli.conventions import configure_logging

        configure_logging(getattr(args, "verbose", 0) or 0, getattr(args, "quiet", 0) or 0)
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
