"""Progress on standard error for long work: a tqdm bar on a terminal, nothing otherwise.

:func:`progress_bar` returns a tqdm bar when ``enabled`` and standard error is a terminal, else a silent
stand-in with the same ``update``/``set_postfix_str``/``close`` methods.  The commands pass ``enabled=False``
under ``--json`` and ``--quiet``, so machine-read output never carries progress text.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["progress_bar", "stderr_is_terminal"]


def stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "_Silent":
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def progress_bar(total: int, desc: str, *, enabled: bool = True, unit: str = "task") -> Any:
    """A progress bar of ``total`` steps on stderr (tqdm), or a silent stand-in (module docstring)."""
    if not (enabled and stderr_is_terminal()):
        return _Silent()
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True, leave=False)
