"""Progress on standard error for long work: a tqdm bar (total, rate, ETA) on a terminal, log lines otherwise.

:func:`progress_bar` returns

* a tqdm bar when ``enabled`` and standard error is a terminal of non-zero width (:func:`stderr_is_terminal`:
  a pseudo-terminal of width 0 — ``COLUMNS=0``, or ``os.get_terminal_size`` reporting 0 columns, as some CI
  runners and ``script``/``expect`` sessions do — is NOT a terminal: tqdm draws nothing visible there, so the
  work would look hung);
* otherwise, when ``enabled``, a stand-in that writes one ``logging`` line (INFO, logger ``dpsco.progress`` or
  the one given) per finished task — ``desc: 3/8 task (37 %), 12 s elapsed, ETA 20 s[, postfix]`` — at most one
  line per ``min_interval`` seconds (the last one is always written);
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

__all__ = ["progress_bar", "stderr_is_terminal", "terminal_columns"]


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
    """One log line per finished task (at most one per ``min_interval`` seconds; the last always)."""

    def __init__(self, total: int, desc: str, unit: str, logger: logging.Logger, min_interval: float) -> None:
        self.total, self.desc, self.unit, self.logger, self.min_interval = int(total or 0), desc, unit, logger, \
            float(min_interval)
        self.n, self.postfix, self.t0, self.last = 0, "", time.monotonic(), -float("inf")

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        self.postfix = str(s)

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        done = self.total > 0 and self.n >= self.total
        if not done and now - self.last < self.min_interval:
            return
        self.last = now
        elapsed = now - self.t0
        if self.total > 0:
            eta = elapsed / self.n * (self.total - self.n) if self.n else float("nan")
            text = (f"{self.desc}: {self.n}/{self.total} {self.unit} ({100 * self.n / self.total:.0f} %), "
                    f"{_seconds(elapsed)} elapsed, ETA {_seconds(eta) if eta == eta else '?'}")
        else:
            text = f"{self.desc}: {self.n} {self.unit}, {_seconds(elapsed)} elapsed"
        self.logger.info(text + (f"; {self.postfix}" if self.postfix else ""))


def progress_bar(total: int, desc: str, *, enabled: bool = True, unit: str = "task",
                 logger: logging.Logger | None = None, min_interval: float = 0.0) -> Any:
    """A progress display of ``total`` steps (0: unknown or grown later through ``bar.total``): a tqdm bar on a
    terminal, log lines otherwise, nothing when not ``enabled`` (module docstring)."""
    if not enabled:
        return _Silent()
    if not stderr_is_terminal():
        return _LogLines(total, desc, unit, logger or logging.getLogger("dpsco.progress"), min_interval)
    from tqdm import tqdm

    return tqdm(total=total or None, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=False)
