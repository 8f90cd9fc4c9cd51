"""Where the independent tasks of a campaign or an audit run: this process, a local process pool, or a Dask cluster.

A *task* is a module-level function and its arguments; every task draws its randomness from a
``numpy.random.SeedSequence`` given to it as an argument (spawned from the campaign's recorded sequence), never
from a generator shared with another task.  A task's result therefore depends on its arguments only, and a
campaign's results are identical whatever runs it: :class:`SerialExecutor` (one process),
:class:`ProcessExecutor` (``--workers N`` local processes) or :class:`DaskExecutor` (``--scheduler
tcp://HOST:PORT``, the workers of a Dask cluster), with any number of workers and in any completion order
(``tests/test_executors.py`` checks it on the three).

:func:`get_executor` builds the executor the command-line options ask for: a process pool of every core by
default, the Dask cluster at ``scheduler`` when given.  :meth:`Executor.as_completed` yields ``(index,
result)`` pairs as tasks finish (for progress bars and per-entry checkpoints); :meth:`Executor.map` returns
the results in task order.  Both cancel the remaining tasks when the caller is interrupted (Ctrl-C) and
re-raise.

Process pools start their workers with the ``forkserver`` method (``spawn`` where it does not exist): a fork
of a process that already runs threads (a progress bar's, BLAS's) can deadlock.  Worker processes run BLAS
on one thread each (``OMP_NUM_THREADS`` and the like are set to 1 unless the environment already sets them),
so that N workers use N cores, not N².

Dask workers must be able to import ``dpsco`` (the same version: the scheduler does not check it) and, for
``dpsco audit``/``compare`` of user code, the user's module.  Dask is an optional dependency:
``pip install 'dpsco[dask]'``.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from numbers import Integral
from typing import Any, Callable, Iterator, Sequence

__all__ = ["DaskExecutor", "Executor", "ProcessExecutor", "SerialExecutor", "TrackedExecutor", "available_cores",
           "get_executor", "max_workers", "validate_workers"]

#: environment variables that set the thread count of the BLAS libraries numpy/scipy may be linked with
_BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                          "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

Task = tuple[Any, ...]


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform reports it), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def max_workers() -> int:
    """The most local worker processes a command starts: 8 per core, at least 64 (beyond that a pool only
    thrashes: one process per core is the default, and more only helps while runs wait on I/O)."""
    return max(64, 8 * (os.cpu_count() or 1))


def validate_workers(workers: Any, name: str = "workers") -> int | None:
    """``workers`` as an int in [1, :func:`max_workers`], or None; ValueError/TypeError naming ``name``
    otherwise (an absurd count is refused at once, before any process starts)."""
    if workers is None:
        return None
    if isinstance(workers, bool) or not isinstance(workers, Integral):
        raise TypeError(f"{name} must be an integer >= 1 or None, got {workers!r}")
    if int(workers) < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {workers}")
    if int(workers) > max_workers():
        raise ValueError(f"{name} must be at most {max_workers()} (8 local processes per core), got {workers}")
    return int(workers)


class Executor:
    """Runs independent tasks ``fn(*args)``; subclasses define :meth:`as_completed`.

    Attributes: ``kind`` ("serial", "process", "dask"), ``workers`` (tasks that can run at once),
    ``description`` (one line for reports and results files).
    """

    kind = "abstract"
    workers = 1

    @property
    def description(self) -> str:
        return f"{self.kind} ({self.workers} worker{'s' if self.workers != 1 else ''})"

    def as_completed(self, fn: Callable[..., Any], tasks: Sequence[Task]) -> Iterator[tuple[int, Any]]:
        """Yield ``(i, fn(*tasks[i]))`` for every task as it finishes (submitted in the order given: put the
        longest first).  An exception raised by a task is raised here; the tasks not yet finished are cancelled."""
        raise NotImplementedError

    def map(self, fn: Callable[..., Any], tasks: Sequence[Task]) -> list[Any]:
        """``[fn(*t) for t in tasks]``, in task order, computed by this executor."""
        out: list[Any] = [None] * len(tasks)
        for i, r in self.as_completed(fn, tasks):
            out[i] = r
        return out

    def close(self) -> None:
        """Release the executor's processes or connection (idempotent)."""

    def __enter__(self) -> "Executor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "workers": self.workers}


class SerialExecutor(Executor):
    """Every task in this process, one after the other, in the order given."""

    kind = "serial"

    def as_completed(self, fn: Callable[..., Any], tasks: Sequence[Task]) -> Iterator[tuple[int, Any]]:
        for i, t in enumerate(tasks):
            yield i, fn(*t)


def _process_context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


class ProcessExecutor(Executor):
    """A local pool of ``workers`` processes (``concurrent.futures.ProcessPoolExecutor``, forkserver start).

    Tasks and their results are pickled: ``fn`` must be a module-level function and its arguments picklable.
    The pool is created on first use and kept until :meth:`close`.
    """

    kind = "process"

    def __init__(self, workers: int | None = None):
        w = validate_workers(workers)
        self.workers = available_cores() if w is None else w
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            for var in _BLAS_THREAD_VARIABLES:  # inherited by the workers, which import numpy afresh
                os.environ.setdefault(var, "1")
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=_process_context())
        return self._pool

    def as_completed(self, fn: Callable[..., Any], tasks: Sequence[Task]) -> Iterator[tuple[int, Any]]:
        pool = self._get_pool()
        futures: dict[Future[Any], int] = {pool.submit(fn, *t): i for i, t in enumerate(tasks)}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in sorted(done, key=futures.__getitem__):
                    yield futures[f], f.result()
        except BaseException:  # a task failed or the caller was interrupted: stop the rest now
            self._terminate()
            raise

    def _terminate(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # running tasks are not waited for: a campaign's entry may run for minutes (the processes mapping is
        # an implementation detail of ProcessPoolExecutor, hence the getattr)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in processes:
            p.terminate()
        for p in processes:
            p.join(timeout=10)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskExecutor(Executor):
    """The workers of a Dask cluster (``distributed.Client``): a scheduler address ``tcp://HOST:PORT``, or a
    ``distributed.Client`` the caller owns (it is not closed by :meth:`close`).

    Each task is submitted with ``pure=False`` and a priority that keeps the order given (longest first).
    Raises ImportError with the install command if ``distributed`` is missing, ValueError for an address that
    is not ``tcp://``, ``tls://`` or ``inproc://``, OSError if the scheduler cannot be reached within
    ``timeout`` seconds.
    """

    kind = "dask"

    def __init__(self, scheduler: Any, timeout: float = 30.0):
        try:
            import distributed
        except ImportError:  # pragma: no cover - the test extra installs it
            raise ImportError("--scheduler needs Dask's distributed package: pip install 'dpsco[dask]'") from None
        if isinstance(scheduler, distributed.Client):
            self._client, self._owned = scheduler, False
            self.address = str(scheduler.scheduler.address)
        else:
            if not isinstance(scheduler, str) or not scheduler.startswith(("tcp://", "tls://", "inproc://")):
                raise ValueError(f"scheduler must be a Dask scheduler address such as tcp://HOST:8786, "
                                 f"got {scheduler!r}")
            try:
                self._client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise OSError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
            self._owned, self.address = True, scheduler
        self.workers = max(1, sum(w.get("nthreads", 1) for w in
                                  self._client.scheduler_info().get("workers", {}).values()))

    @property
    def description(self) -> str:
        return f"dask at {self.address} ({self.workers} worker threads)"

    def as_completed(self, fn: Callable[..., Any], tasks: Sequence[Task]) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed as dask_as_completed

        futures = {self._client.submit(fn, *t, pure=False, priority=len(tasks) - i): i for i, t in enumerate(tasks)}
        try:
            with self._client.as_current():  # the client is not the process-wide default (set_as_default=False)
                # with_results: the results are gathered by the client's event loop as tasks finish, not by one
                # blocking round trip per task from this thread (that serialised 4 workers to ~1.6×, issue 29)
                done = dask_as_completed(list(futures), with_results=True, raise_errors=True)
            for f, result in done:
                yield futures[f], result
        finally:
            self._client.cancel([f for f in futures if not f.done()])

    def close(self) -> None:
        if self._owned and self._client is not None:
            self._client.close()
            self._client = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "workers": self.workers, "scheduler": self.address}


class TrackedExecutor(Executor):
    """Another executor, calling ``callback(result)`` in this process as each task finishes (a progress bar's
    update); closing it calls ``on_close`` (the bar's) and closes the other."""

    def __init__(self, inner: Executor, callback: Callable[[Any], None], on_close: Callable[[], None] | None = None):
        self.inner, self.callback, self.on_close = inner, callback, on_close
        self.kind, self.workers = inner.kind, inner.workers

    @property
    def description(self) -> str:
        return self.inner.description

    def as_completed(self, fn: Callable[..., Any], tasks: Sequence[Task]) -> Iterator[tuple[int, Any]]:
        for i, r in self.inner.as_completed(fn, tasks):
            self.callback(r)
            yield i, r

    def close(self) -> None:
        if self.on_close is not None:
            self.on_close()
        self.inner.close()

    def to_dict(self) -> dict[str, Any]:
        return self.inner.to_dict()


def get_executor(workers: int | None = None, scheduler: Any = None) -> Executor:
    """The executor the options ask for: the Dask cluster at ``scheduler`` if given (``workers`` must then be
    None: the cluster has its own), else this process for ``workers`` = 1, else a process pool of ``workers``
    processes (default: every available core)."""
    w = validate_workers(workers)
    if scheduler is not None:
        if w is not None:
            raise ValueError("workers and scheduler exclude each other: a Dask cluster has its own workers")
        return DaskExecutor(scheduler)
    if w == 1:
        return SerialExecutor()
    return ProcessExecutor(w)
