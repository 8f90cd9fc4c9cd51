"""Loading and running user code for ``dpsco audit`` and ``dpsco compare``.

One loader for both subcommands, with the same rules:

* ``MODULE:CALLABLE`` names a dotted module (imported with the current directory at the front of
  ``sys.path``, as ``python -m`` does, so ``dpsco audit mech:f`` finds ``./mech.py``) or a path to a ``.py``
  file, and a (possibly dotted) attribute of it.
* While user code is imported or run (``running``), its standard output goes to standard error, so that
  the command's own output (e.g. the ``--json`` record) is the only thing on standard output.
* ``sys.exit(...)`` / ``raise SystemExit`` in user code is bad input (``InputError``, exit status 2), never a
  silent exit with the user's status (which would read as "not refuted").  Exceptions raised while importing
  are ``InputError`` too; ``KeyboardInterrupt`` is not caught (it interrupts the command).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import argparse
import sys
from typing import Any, Iterator

from dpsco.verification.cli.conventions import InputError, get_logger, is_quiet, track_executor
from dpsco.verification.executors import Executor, get_executor, max_workers

__all__ = ["InputError", "UserMechanism", "cwd_on_sys_path", "load_mechanism", "running", "runs_executor"]


def _describe_exit(code: object) -> str:
    return "raised SystemExit" if code is None else f"called sys.exit({code!r})"


@contextlib.contextmanager
def running(what: str) -> Iterator[None]:
    """Run user code: its stdout goes to stderr; SystemExit becomes ``InputError`` naming ``what``."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    except SystemExit as exc:
        raise InputError(
            f"{what} {_describe_exit(exc.code)}; user code must return its output, not exit the process"
        ) from None


def cwd_on_sys_path() -> None:
    """Put the current directory at the front of ``sys.path`` unless it is already there (``python -m``)."""
    cwd = os.getcwd()
    if not sys.path or os.path.abspath(sys.path[0] or os.curdir) != cwd:
        sys.path.insert(0, cwd)


def load_mechanism(target: str) -> Any:
    """Resolve ``MODULE:CALLABLE`` (dotted module or path to a .py file).  Raises ``InputError``.

    A dotted module is imported with the current directory at the front of ``sys.path``.  The import runs
    under ``running`` (stdout to stderr, ``sys.exit`` reported as bad input).
    """
    module_part, sep, attr = str(target).rpartition(":")
    if not sep or not module_part or not attr:
        raise InputError(f"mechanism must be given as MODULE:CALLABLE, got {target!r}")
    if module_part.endswith(".py") or os.path.sep in module_part or os.path.isfile(module_part):
        if not os.path.isfile(module_part):
            raise InputError(f"mechanism file not found: {module_part}")
        mod_name = "_dpsco_audit_target_" + os.path.splitext(os.path.basename(module_part))[0].replace("-", "_")
        spec = importlib.util.spec_from_file_location(mod_name, module_part)
        if spec is None or spec.loader is None:
            raise InputError(f"cannot load {module_part} as a Python module")
        module = importlib.util.module_from_spec(spec)
        # registered before execution (the importlib recipe), so that e.g. @dataclass in the file works
        sys.modules[mod_name] = module
        cwd_on_sys_path()
        try:
            with running(f"importing {module_part}"):
                spec.loader.exec_module(module)
        except InputError:
            sys.modules.pop(mod_name, None)
            raise
        except Exception as exc:  # noqa: BLE001 - any failure while importing user code is bad input
            sys.modules.pop(mod_name, None)
            raise InputError(f"error while importing {module_part}: {type(exc).__name__}: {exc}") from None
    else:
        cwd_on_sys_path()
        try:
            with running(f"importing module {module_part!r}"):
                module = importlib.import_module(module_part)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise InputError(f"cannot import module {module_part!r}: {type(exc).__name__}: {exc}") from None
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"{module_part} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not (callable(obj) or callable(getattr(obj, "sample", None))):
        raise InputError(f"{target} is not callable (expected f(data, rng) -> array)")
    return obj


class UserMechanism:
    """The user's ``MODULE:CALLABLE`` as a picklable callable (a mechanism ``f(data, rng)``, a candidate of
    ``dpsco compare``; arguments are passed through): it travels to worker processes (or Dask workers) as its
    target and the directory it was named from, and is loaded there on first use (:func:`load_mechanism`).
    What it prints goes to stderr; an exit (SystemExit) travels back to the command, which reports it as bad
    input.  On a Dask cluster the module must be importable by the workers."""

    def __init__(self, target: str, cwd: str | None = None):
        module_part, _, attr = str(target).rpartition(":")
        if module_part.endswith(".py") or os.path.sep in module_part:  # a file: found from any directory
            target = f"{os.path.abspath(module_part)}:{attr}"
        self.target, self.cwd = str(target), cwd or os.getcwd()
        self._fn: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"target": self.target, "cwd": self.cwd}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.target, self.cwd, self._fn = state["target"], state["cwd"], None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        with contextlib.redirect_stdout(sys.stderr):
            if self._fn is None:
                if self.cwd not in sys.path:  # a dotted module is looked up where it was named, as python -m does
                    sys.path.insert(0, self.cwd)
                self._fn = load_mechanism(self.target)
            return self._fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"UserMechanism({self.target!r})"


def _task_runs(task: tuple[Any, ...]) -> int:
    """Runs in one of the auditor's tasks ``(mechanism, data, k, seed)``: k (1 for any other shape)."""
    k = task[2] if len(task) >= 3 else 1
    return int(k) if isinstance(k, (int,)) or hasattr(k, "__index__") else 1


def runs_executor(args: argparse.Namespace, mechanism: Any, target: str, quiet: bool) -> tuple[Any, Executor | None]:
    """(mechanism, executor) for the auditor's single runs: a mechanism with ``sample`` runs in this process;
    otherwise the runs go to ``--workers`` local processes (default every core) or the ``--scheduler`` cluster,
    as :class:`~dpsco.verification.cli.usercode.UserMechanism` (loaded by each worker), with a progress bar on a
    terminal unless ``quiet`` (--json).  Raises InputError for a bad --workers/--scheduler."""
    workers = getattr(args, "workers", None)
    scheduler = getattr(args, "scheduler", None)
    if workers is not None:
        try:
            workers = int(str(workers), 10)
        except ValueError:
            raise InputError(f"--workers must be an integer, got {args.workers!r}") from None
        if not 1 <= workers <= max_workers():
            raise InputError(f"--workers must be an integer in [1, {max_workers()}] (8 local processes per core), "
                             f"got {args.workers!r}")
        if scheduler is not None:
            raise InputError("--workers and --scheduler exclude each other: a Dask cluster has its own workers")
    if callable(getattr(mechanism, "sample", None)):
        return mechanism, None  # one vectorised call, in this process
    try:
        ex = get_executor(workers, scheduler)
    except (ImportError, OSError, ValueError) as exc:
        raise InputError(f"--scheduler: {exc}") from None
    # the auditor's tasks are (mechanism, data, k, seed): k runs each (dpsco.verification.auditing.samples)
    tracked = track_executor(ex, "runs", enabled=not quiet and not is_quiet("audit"), unit="run",
                             task_size=_task_runs, logger=get_logger("audit"))
    return (mechanism if ex.kind == "serial" else UserMechanism(target)), tracked
