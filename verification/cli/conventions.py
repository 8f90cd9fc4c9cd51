"""One convention for every ``dpsco`` command (``verify``, ``audit``, ``plan``, ``compare``, ``list``).

Import the shared pieces from here, so that every command behaves the same way:

* :data:`DEFAULT_CONFIDENCE` — the one default confidence level (0.95) of every command and of the Python APIs
  that default a confidence (``audit``, ``plan``, ``compare``, ``verify``'s audits).  ``--confidence C`` means
  everywhere: a correct implementation / a true claim is refuted with probability at most ``1 - C``.
* Seeds: ``--seed`` is optional everywhere (:func:`add_seed_option`).  Absent, a fresh seed is drawn from OS
  entropy (:func:`fresh_seed`: ``numpy.random.SeedSequence().entropy``); either way the seed is recorded in the
  output and :func:`announce_seed` prints ``seed: N — rerun with --seed N`` on standard error, so that any run
  can be repeated exactly.  :func:`resolve_seed` does both the parsing and the drawing.
* Errors: every argument error of a command is reported at once.  An :class:`ErrorCollector` gathers the
  messages (``errors.call(parse, text, "--flag")``, ``with errors.guard(): ...``, ``errors.add(msg)``) and
  ``errors.check()`` raises :class:`ArgumentErrors` holding all of them; :func:`report_errors` prints one line
  per error on standard error and returns exit status 2.
* Logs: :func:`get_logger` (``logging``; the global options ``-v``/``-q`` set the level through
  :func:`configure_logging`).  Results the user asked for (tables, ``--json`` records) stay on standard output;
  everything else — progress, the seed line, warnings — goes to standard error through ``logging``.
* Progress: :func:`dpsco.verification.progress.progress_bar` (re-exported here): a tqdm bar with total and ETA
  on a terminal, one log line per finished task otherwise (INFO for ``verify``'s tasks; for the hundreds of
  short tasks of ``audit``'s and ``compare``'s single runs, INFO every 25 tasks and at the end of each batch,
  DEBUG — shown by ``-v`` — for each task); :func:`track_executor` wraps an executor so that its tasks drive
  such a bar.

The campaign modules (layer below the CLI, tests/test_layout.py) do not import this module: the Python APIs
that default a confidence spell the same 0.95, and tests/test_cli_conventions.py checks that they equal
:data:`DEFAULT_CONFIDENCE`.

This module imports nothing heavy (numpy only inside :func:`fresh_seed`): ``dpsco --help`` and
``dpsco --version`` stay fast (tests/test_lazy_imports.py).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence, TypeVar

from dpsco.verification.progress import EXECUTOR_EVERY, progress_bar, stderr_is_terminal

__all__ = ["DEFAULT_CONFIDENCE", "ArgumentErrors", "ErrorCollector", "InputError", "Seed", "add_confidence_option",
           "add_seed_option", "announce_seed", "configure_logging", "fresh_seed", "get_logger", "is_quiet", "parse_confidence",
           "parse_seed", "progress_bar", "report_errors", "resolve_seed", "seed_line", "stderr_is_terminal",
           "track_executor"]

#: the one default confidence of every command (and of the Python APIs that default one): a true claim or a
#: correct implementation is refuted with probability at most 1 - DEFAULT_CONFIDENCE
DEFAULT_CONFIDENCE = 0.95

T = TypeVar("T")


class InputError(Exception):
    """Bad command-line input or failing user code; reported as a one-line error and exit status 2.

    The message is folded onto one line (user exceptions may carry multi-line messages).
    (``dpsco.verification.cli.usercode.InputError`` is this class.)
    """

    def __init__(self, message: object = "") -> None:
        super().__init__(" ".join(str(message).split()))


class ArgumentErrors(InputError, ValueError):
    """Several argument errors at once (:class:`ErrorCollector`).  ``messages`` holds one line per error; the
    exception's text is those lines joined by ``"; "``.  It is an :class:`InputError` and a ``ValueError``, so
    the handlers of every command catch it; :func:`report_errors` prints one line per message."""

    def __init__(self, messages: Sequence[str]) -> None:
        self.messages = [" ".join(str(m).split()) for m in messages]
        super().__init__("; ".join(self.messages))


class ErrorCollector:
    """Collects the argument errors of one command so that all are reported at once (exit status 2).

    ``call(fn, *args)`` returns ``fn(*args)`` or, if it raises InputError/ValueError/TypeError, records the
    message and returns ``default``; ``guard()`` is the same as a ``with`` block; ``add(msg)`` records a
    message; ``check()`` raises :class:`ArgumentErrors` with every message recorded (nothing if none)."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def __bool__(self) -> bool:
        return bool(self.messages)

    def add(self, message: object) -> None:
        if isinstance(message, ArgumentErrors):
            self.messages.extend(message.messages)
        else:
            self.messages.append(" ".join(str(message).split()))

    def call(self, fn: Callable[..., T], *args: Any, default: Any = None, **kwargs: Any) -> T | Any:
        try:
            return fn(*args, **kwargs)
        except (InputError, ValueError, TypeError) as exc:
            self.add(exc)
            return default

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        try:
            yield
        except (InputError, ValueError, TypeError) as exc:
            self.add(exc)

    def check(self) -> None:
        if self.messages:
            raise ArgumentErrors(self.messages)


def report_errors(command: str, exc: BaseException) -> int:
    """Print ``exc`` on standard error as ``dpsco COMMAND: error: ...``, one line per message of an
    :class:`ArgumentErrors`; returns 2 (the exit status of bad input)."""
    messages = exc.messages if isinstance(exc, ArgumentErrors) else [" ".join(str(exc).split())]
    for message in messages:
        print(f"dpsco {command}: error: {message}", file=sys.stderr)
    return 2


# ---------------------------------------------------------------------------------------------------- seeds


@dataclass(frozen=True)
class Seed:
    """A run's seed: ``value`` (the SeedSequence entropy, a non-negative integer) and whether it was drawn
    from OS entropy because ``--seed`` was absent (``drawn``)."""

    value: int
    drawn: bool

    def to_dict(self) -> dict[str, Any]:
        return {"seed": self.value, "seed_drawn": self.drawn}


def fresh_seed() -> int:
    """A fresh seed from OS entropy: ``numpy.random.SeedSequence().entropy`` (a 128-bit integer)."""
    import numpy as np

    return int(np.random.SeedSequence().entropy)


def parse_seed(text: Any, flag: str = "--seed") -> int:
    """``--seed`` as a non-negative integer; InputError naming ``flag`` otherwise."""
    if isinstance(text, bool):
        raise InputError(f"{flag} must be a non-negative integer, got {text!r}")
    if isinstance(text, int):
        value = text
    else:
        try:
            value = int(str(text).strip(), 10)
        except (TypeError, ValueError):
            raise InputError(f"{flag} must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise InputError(f"{flag} must be a non-negative integer, got {text!r}")
    return value


def resolve_seed(text: Any, flag: str = "--seed") -> Seed:
    """The seed of a run: ``--seed``'s value when given (:func:`parse_seed`), else a fresh one
    (:func:`fresh_seed`, ``drawn=True``)."""
    if text is None:
        return Seed(fresh_seed(), True)
    return Seed(parse_seed(text, flag), False)


def seed_line(seed: int | Seed) -> str:
    """``seed: N — rerun with --seed N``."""
    value = seed.value if isinstance(seed, Seed) else int(seed)
    return f"seed: {value} — rerun with --seed {value}"


def announce_seed(command: str, seed: Seed) -> None:
    """Log the seed line (:func:`seed_line`) on standard error when the seed was drawn (a given seed is on the
    command line already); level INFO: ``-q`` hides it, the seed is in the output record either way."""
    if seed.drawn:
        get_logger(command).info(seed_line(seed))


def add_seed_option(p: argparse.ArgumentParser, what: str = "the run's numpy SeedSequence") -> None:
    """``--seed S``, optional: a non-negative integer, the entropy of ``what``; absent, drawn from OS entropy."""
    p.add_argument("--seed", default=None, metavar="S",
                   help=f"non-negative integer entropy of {what} (default: drawn from OS entropy); recorded in the "
                        "output and printed as 'seed: S — rerun with --seed S'")


# ---------------------------------------------------------------------------------------------- confidence


def parse_confidence(text: Any, flag: str = "--confidence") -> float:
    """``--confidence`` as a float in (0, 1); InputError naming ``flag`` otherwise."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{flag} must be a number, got {text!r}") from None
    if not 0.0 < value < 1.0:  # also rejects nan
        raise InputError(f"{flag} must lie in (0, 1), got {text!r}")
    return value


def add_confidence_option(p: argparse.ArgumentParser, meaning: str = "a true claim is refuted with probability "
                                                                     "at most 1 - C") -> None:
    """``--confidence C`` with the default :data:`DEFAULT_CONFIDENCE`."""
    p.add_argument("--confidence", default=str(DEFAULT_CONFIDENCE), metavar="C",
                   help=f"confidence level in (0, 1): {meaning} (default {DEFAULT_CONFIDENCE})")


# ------------------------------------------------------------------------------------------------- logging


class _Formatter(logging.Formatter):
    """Progress and information as ``[dpsco verify 12:34:56] message``; warnings and errors as ``dpsco verify:
    warning: message`` (the form of the commands' error lines).  The logger ``dpsco.cli.verify`` prints as
    ``dpsco verify``."""

    def format(self, record: logging.LogRecord) -> str:
        name = record.name.replace("dpsco.cli.", "dpsco ").replace(".", " ")
        if record.levelno >= logging.WARNING:
            return f"{name}: {record.levelname.lower()}: {record.getMessage()}"
        stamp = self.formatTime(record, "%H:%M:%S")
        level = "" if record.levelno == logging.INFO else f"{record.levelname.lower()}: "
        return f"[{name} {stamp}] {level}{record.getMessage()}"


_HANDLER_NAME = "dpsco-cli"


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time of each record (tests and callers replace it)."""

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def configure_logging(verbose: int = 0, quiet: int = 0) -> int:
    """Set the level of the ``dpsco`` loggers from the global ``-v``/``-q`` counts: INFO by default, DEBUG with
    ``-v``, WARNING with ``-q`` (no progress, no per-task lines, no seed line), ERROR with ``-qq``.  One handler
    on standard error (installed once).  Returns the level."""
    level = min(logging.CRITICAL, max(logging.DEBUG, logging.INFO - 10 * (int(verbose) - int(quiet))))
    root = logging.getLogger("dpsco")
    root.setLevel(level)
    root.propagate = False
    if not any(getattr(h, "name", None) == _HANDLER_NAME for h in root.handlers):
        handler = _StderrHandler()
        handler.name = _HANDLER_NAME
        handler.setFormatter(_Formatter())
        root.addHandler(handler)
    return level


def get_logger(command: str) -> logging.Logger:
    """The logger of ``dpsco COMMAND`` (``dpsco.cli.COMMAND``)."""
    return logging.getLogger(f"dpsco.cli.{command}")


def is_quiet(command: str) -> bool:
    """True when ``-q`` hides INFO lines (progress bars and per-task lines are then off as well)."""
    return not get_logger(command).isEnabledFor(logging.INFO)


# ------------------------------------------------------------------------------------------------ progress


def track_executor(inner: Any, desc: str, *, enabled: bool = True, unit: str = "run",
                   task_size: Callable[[tuple[Any, ...]], int] | None = None,
                   logger: logging.Logger | None = None, every: int = EXECUTOR_EVERY) -> Any:
    """``inner`` (a :class:`~dpsco.verification.executors.Executor`) wrapped so that its tasks drive a
    :func:`progress_bar`: each batch of tasks given to ``map``/``as_completed`` adds its size to the bar's total
    (``task_size(task)`` units per task, default 1) and each finished task advances it, so the bar has a total
    and an ETA for the work submitted so far.  Closing the wrapper closes the bar and ``inner``.  Off a terminal
    (or on one of zero width), one log line per finished task: INFO every ``every`` tasks and for the task that
    ends a batch, DEBUG (``-v``) for the others."""
    from dpsco.verification.executors import TrackedExecutor

    bar = progress_bar(0, desc, enabled=enabled, unit=unit, logger=logger, every=every)
    size = task_size or (lambda task: 1)

    class _Tracked(TrackedExecutor):
        def as_completed(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
            sizes = [max(0, int(size(t))) for t in tasks]
            bar.total = (bar.total or 0) + sum(sizes)
            if hasattr(bar, "refresh"):
                bar.refresh()
            for i, r in self.inner.as_completed(fn, tasks):
                bar.update(sizes[i])
                yield i, r

    return _Tracked(inner, lambda _result: None, bar.close)
