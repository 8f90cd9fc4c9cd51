"""Atomic output: single files and whole directories, so that a reader never sees a half-written or mixed set.

* :func:`atomic_write_text` / :func:`atomic_write_bytes` / :func:`atomic_open`: write to a temporary file in
  the target's directory (same filesystem), flush and fsync it, then ``os.replace`` it over the target.  On any
  error the temporary file is removed and the target is untouched.  The file gets the mode a plain
  ``open(path, "w")`` would give it (0o666 minus the umask; an existing target keeps its mode).
* :func:`check_output_directory`: before any long computation, check that a directory can be created (or
  replaced) at a path; raises :class:`OutputError` with a one-line message otherwise.
* :func:`staged_directory`: build a directory's whole content in a temporary sibling, then swap it in: a
  missing target is renamed into place; an existing one is renamed aside, the new one renamed in, and the
  old one deleted (restored if the second rename fails).  A reader sees the old set or the new set, never a
  mixture.  Only a directory whose entries are all among ``allowed_names`` (the files the caller writes) is
  ever replaced, so a directory holding anything else (``--out .``, say) is refused, never deleted.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from typing import IO, Any, Collection, Iterator

__all__ = ["OutputError", "atomic_open", "atomic_write_bytes", "atomic_write_text", "check_output_directory",
           "exclusive_output", "staged_directory"]

_TMP_PREFIX = ".tmp-"  # temporary files; entries with this prefix are leftovers of interrupted writes


class OutputError(ValueError):
    """An output path cannot be written (the commands report it as bad input: exit status 2)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _default_mode(path: str, base: int) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return base & ~_umask()


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", *, encoding: str | None = None) -> Iterator[IO[Any]]:
    """``with atomic_open(path, "w") as fh: ...``: ``fh`` is a temporary file next to ``path``, moved over
    ``path`` (``os.replace``) when the block ends without an exception; removed otherwise.

    ``mode`` is ``"w"`` (text; ``encoding`` defaults to UTF-8) or ``"wb"``.  ``np.save(fh, a)`` and
    ``fig.savefig(fh, format="png")`` work on ``fh`` as on any file object.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=_TMP_PREFIX, suffix="-" + os.path.basename(target))
    try:
        os.chmod(tmp, _default_mode(target, 0o666))
        if mode == "w":
            fh: IO[Any] = os.fdopen(fd, "w", encoding=encoding or "utf-8", newline="")
        else:
            fh = os.fdopen(fd, "wb")
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, "w", encoding=encoding) as fh:
        fh.write(text)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_open`)."""
    with atomic_open(path, "wb") as fh:
        fh.write(data)


def _foreign_entries(directory: str, allowed_names: Collection[str], allowed_dirs: Collection[str] = ()) -> list[str]:
    def ours(e: str) -> bool:
        full = os.path.join(directory, e)
        return (e.startswith(_TMP_PREFIX) or (e in allowed_names and os.path.isfile(full))
                or (e in allowed_dirs and os.path.isdir(full) and not os.path.islink(full)))

    return sorted(e for e in os.listdir(directory) if not ours(e))


def check_output_directory(path: str | os.PathLike[str], allowed_names: Collection[str], *,
                           option: str = "--out", allowed_dirs: Collection[str] = ()) -> str:
    """Check that :func:`staged_directory` can later create or replace the directory ``path``.

    Returns the directory's absolute path with symbolic links resolved (what will be replaced).  Raises
    :class:`OutputError` (a one-line message naming ``option`` and the cause) if ``path`` is an existing
    non-directory, holds entries other than the files ``allowed_names`` and the directories ``allowed_dirs``
    (e.g. ``dpsco verify``'s checkpoints), or if no file can be created in its parent
    (or, when the parent is missing, in its nearest existing ancestor: the missing directories are created
    only at write time).  The check creates and removes one empty temporary directory.
    """
    raw = os.fspath(path)
    if not raw:
        raise OutputError(f"{option} must not be empty")
    target = os.path.realpath(os.path.abspath(raw))
    what = f"{option} {raw!r}"
    if os.path.lexists(target) and not os.path.isdir(target):
        raise OutputError(f"{what} exists and is not a directory")
    if os.path.isdir(target):
        try:
            foreign = _foreign_entries(target, allowed_names, allowed_dirs)
        except OSError as exc:
            raise OutputError(f"{what}: cannot list the directory ({exc.strerror or exc})") from None
        if foreign:
            shown = ", ".join(foreign[:5]) + (", ..." if len(foreign) > 5 else "")
            raise OutputError(
                f"{what} holds entries this command did not write ({shown}); it replaces the directory as a "
                "whole, so choose a new or empty directory or a previous report directory")
    parent = os.path.dirname(target)
    probe_dir = parent
    while not os.path.lexists(probe_dir):
        up = os.path.dirname(probe_dir)
        if up == probe_dir:
            break
        probe_dir = up
    if not os.path.isdir(probe_dir):
        raise OutputError(f"{what}: {probe_dir!r} is not a directory")
    try:
        probe = tempfile.mkdtemp(dir=probe_dir, prefix=_TMP_PREFIX + "probe-")
        os.rmdir(probe)
    except OSError as exc:
        raise OutputError(f"{what}: cannot create files in {probe_dir!r} ({exc.strerror or exc})") from None
    return target


def _swap_in(staged: str, target: str) -> None:
    try:
        os.rename(staged, target)  # target missing (or an empty directory, which POSIX rename replaces)
        return
    except OSError:
        if not os.path.isdir(target):
            raise
    old = os.path.join(os.path.dirname(target), f"{_TMP_PREFIX}old-{uuid.uuid4().hex[:12]}-{os.path.basename(target)}")
    os.rename(target, old)
    try:
        os.rename(staged, target)
    except BaseException:
        os.rename(old, target)  # put the previous set back
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def staged_directory(path: str | os.PathLike[str], allowed_names: Collection[str], *,
                     option: str = "--out", allowed_dirs: Collection[str] = ()) -> Iterator[str]:
    """``with staged_directory(out, names) as tmp:`` write the files (only names in ``names``) into ``tmp``;
    when the block ends without an exception the directory ``tmp`` replaces ``out`` as a whole (module
    docstring).  On an exception ``tmp`` is deleted and ``out`` is untouched.

    Raises :class:`OutputError` (before the block runs) as :func:`check_output_directory` does; an existing
    ``out`` may hold the directories ``allowed_dirs``, which the swap removes with the rest.
    """
    target = check_output_directory(path, allowed_names, option=option, allowed_dirs=allowed_dirs)
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=f"{_TMP_PREFIX}new-", suffix="-" + os.path.basename(target))
    try:
        os.chmod(tmp, _default_mode(target, 0o777))
        yield tmp
        for name in os.listdir(tmp):  # flush the files to disk before they become visible under ``out``
            if name not in allowed_names:
                raise OutputError(f"internal error: unexpected file {name!r} written to the report directory")
            fd = os.open(os.path.join(tmp, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _swap_in(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


@contextlib.contextmanager
def exclusive_output(path: str | os.PathLike[str], command: str = "dpsco verify") -> Iterator[None]:
    """Hold an exclusive lock on the output directory ``path`` for the duration of the block.

    The lock is an ``fcntl.flock`` on the hidden file ``.<name>.dpsco.lock`` beside ``path`` (not inside it:
    the directory is replaced as a whole at the end), so two runs writing the same ``--out`` cannot both
    proceed and one's results silently replace the other's; the operating system releases it when the process
    ends, however it ends.  Raises OutputError naming ``path`` if another process holds it.  Where
    ``fcntl`` does not exist (Windows) the block runs unlocked.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    target = os.path.abspath(os.fspath(path))
    parent, name = os.path.split(target.rstrip(os.sep))
    try:
        os.makedirs(parent or ".", exist_ok=True)
        fd = os.open(os.path.join(parent, f".{name}.dpsco.lock"), os.O_RDWR | os.O_CREAT, 0o666 & ~_umask())
    except OSError as exc:
        raise OutputError(f"--out {os.fspath(path)!r}: cannot create its lock file ({exc})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"--out {os.fspath(path)!r} is being written by another {command} run; wait for it "
                              "or choose another --out") from None
        yield
    finally:
        os.close(fd)
