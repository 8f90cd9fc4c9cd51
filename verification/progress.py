"""Progress on standard error for long work: a tqdm bar (total, rate, ETA) on a terminal, log lines otherwise.

:func:`progress_bar` returns

* a tqdm bar when ``enabled`` and standard error is a terminal of non-zero width (:func:`stderr_is_terminal`:
  a pseudo-terminal of width 0 — ``COLUMNS=0``, or ``os.get_terminal_size`` reporting 0 columns, as some CI
  runners and ``script``/``expect`` sessions do — is NOT a terminal: tqdm draws nothing visible there, so the
  work would look hung);
* otherwise, when ``enabled``, a stand-in that writes one ``logging`` line (logger ``dpsco.progress`` or the
  one given) per finished task — ``desc: 3/8 task (37 %), 12 s elapsed, ETA 20 s[; postfix]`` — at INFO for
  every ``every``-th task and for the task that completes the work submitted so far (``n == total``), at DEBUG
  for the others.  So with ``every=1`` (``dpsco verify``: 140 tasks of seconds to minutes, each line names its
  task) every task shows by default, and with ``every=25`` (the hundreds of short single-run tasks of
  ``dpsco audit``/``dpsco compare``, :data:`EXECUTOR_EVERY`) the default shows a summary every 25 tasks and
  the end of each batch, while ``-v`` (DEBUG) shows one line per task.  The count is of tasks, never of time,
  so the log of a run does not depend on the machine's speed;
* a silent stand-in when not ``enabled`` (the commands pass ``enabled=False`` under ``--json`` and ``-q``, so
  machine-read output never carries progress text).

All three have ``update``/``set_postfix_str``/``close`` and a growable ``total``
(``dpsco.verification.cli.conventions.track_executor`` drives one from an executor's tasks).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

__all__ = ["EXECUTOR_EVERY", "progress_bar", "stderr_is_terminal", "terminal_columns"]

#: off a terminal, the executor-driven progress of ``dpsco audit``/``dpsco compare`` logs at INFO every this
#: many finished tasks (and at the end of each batch); each task at DEBUG (``-v``)
EXECUTOR_EVERY = 25


def terminal_columns() -> int | None:
    """The width of the terminal on standard error: ``COLUMNS`` when set to an integer, else
    ``os.get_terminal_size(stderr)``; None when neither says (e.g. a stream without a file descriptor)."""
    env = os.environ.get("COLUMNS", "").strip()
    if env:
        try:
            return int(env)
        except ValueError:
            pass
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, ValueError, OSError):  # no descriptor (captured stream), closed, not a terminal
        return None


def stderr_is_terminal() -> bool:
    """True when standard error is a terminal of non-zero width (a zero-width pseudo-terminal is not one)."""
    try:
        if not sys.stderr.isatty():
            return False
    except (AttributeError, ValueError):  # replaced or closed stream
        return False
    columns = terminal_columns()
    return columns is None or columns > 0


class _Silent:
    total: int = 0

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "_Silent":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _seconds(s: float) -> str:
    s = max(0.0, s)
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


class _LogLines(_Silent):
    """One log line per finished task: INFO every ``every``-th task and when the work submitted so far is done,
    DEBUG otherwise (module docstring)."""

    def __init__(self, total: int, desc: str, unit: str, logger: logging.Logger, every: int) -> None:
        self.total, self.desc, self.unit, self.logger = int(total or 0), desc, unit, logger
        self.every = max(1, int(every))
        self.n, self.tasks, self.postfix, self.t0 = 0, 0, "", time.monotonic()

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = str(s)

    def update(self, n: int = 1) -> None:
        self.n += n
        self.tasks += 1
        done = self.total > 0 and self.n >= self.total
        level = logging.INFO if done or self.tasks % self.every == 0 else logging.DEBUG
        if not self.logger.isEnabledFor(level):
            return
        elapsed = time.monotonic() - self.t0
        if self.total > 0:
            eta = elapsed / self.n * (self.total - self.n) if self.n else float("nan")
            text = (f"{self.desc}: {self.n}/{self.total} {self.unit} ({100 * self.n / self.total:.0f} %), "
                    f"{_seconds(elapsed)} elapsed, ETA {_seconds(eta) if eta == eta else '?'}")
        else:
            text = f"{self.desc}: {self.n} {self.unit}, {_seconds(elapsed)} elapsed"
        self.logger.log(level, text + (f"; {self.postfix}" if self.postfix else ""))


def progress_bar(total: int, desc: str, *, enabled: bool = True, unit: str = "task",
                 logger: logging.Logger | None = None, every: int = 1) -> Any:
    """A progress display of ``total`` steps (0: unknown or grown later through ``bar.total``): a tqdm bar on a
    terminal, log lines otherwise (INFO every ``every`` finished tasks and at the end, DEBUG for the others),
    nothing when not ``enabled`` (module docstring).  ValueError if ``every`` < 1."""
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every must be an integer >= 1, got {every!r}")
    if not enabled:
        return _Silent()
    if not stderr_is_terminal():
        return _LogLines(total, desc, unit, logger or logging.getLogger("dpsco.progress"), every)
    from tqdm import tqdm

    return tqdm(total=total or None, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=False)
