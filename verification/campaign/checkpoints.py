"""Checkpoints of ``dpsco verify``: each finished phase of each entry saved in ``--out``, for ``--resume``.

While a campaign runs, every phase result (``dpsco.verification.campaign.phases.run_phase``) is written
atomically to ``OUT/checkpoints/<entry>.<phase>.json`` together with the campaign's *key* (budget, seed,
confidence, dpsco version and git commit): an interrupted campaign (Ctrl-C, a lost machine) keeps every
phase it finished.  ``dpsco verify --resume`` with the same options reads the checkpoints whose key matches
and runs only the missing phases; a checkpoint of another campaign is refused with a one-line error naming
the difference, never mixed in.  Since every phase draws from its own streams of the campaign's seed, a
resumed campaign's numbers equal those of an uninterrupted one (``tests/test_executors.py``).  When the
campaign completes, the report directory replaces ``OUT`` as a whole and the checkpoints go with it
(results.json holds everything).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from dpsco.verification.campaign.fileio import OutputError, atomic_write_text
from dpsco.verification.campaign.rederive import InconsistentRecordError, check_phase_result

__all__ = ["CHECKPOINT_DIR", "CheckpointError", "checkpoint_path", "clear_checkpoints", "load_checkpoints",
           "save_checkpoint"]

CHECKPOINT_DIR = "checkpoints"
_NAME = re.compile(r"^(?P<entry>[A-Za-z0-9_.]+)\.(?P<phase>[a-z_]+)\.json$")


class CheckpointError(OutputError):
    """A checkpoint cannot be used: another campaign's, unreadable, or a foreign file in the directory."""


def checkpoint_path(out: str, entry: str, phase: str) -> str:
    return os.path.join(out, CHECKPOINT_DIR, f"{entry}.{phase}.json")


def save_checkpoint(out: str, key: dict[str, Any], result: dict[str, Any]) -> None:
    """Write one phase result with the campaign key (atomically: a checkpoint is whole or absent)."""
    os.makedirs(os.path.join(out, CHECKPOINT_DIR), exist_ok=True)
    atomic_write_text(checkpoint_path(out, result["entry"], result["phase"]),
                      json.dumps({"campaign": key, "result": result}, allow_nan=False))


def _listing(out: str) -> list[str]:
    directory = os.path.join(out, CHECKPOINT_DIR)
    if not os.path.isdir(directory):
        return []
    names = sorted(os.listdir(directory))
    foreign = [n for n in names if not (_NAME.match(n) or n.startswith(".tmp-"))]
    if foreign:
        raise CheckpointError(f"--out {out!r}: {CHECKPOINT_DIR}/ holds files dpsco verify did not write "
                              f"({', '.join(foreign[:3])}); move them away")
    return [n for n in names if _NAME.match(n)]


def load_checkpoints(out: str, key: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """The phase results saved in ``out`` by the campaign ``key``, keyed by (entry, phase).

    Raises CheckpointError naming the file and the first differing field if a checkpoint belongs to another
    campaign (other budget, seed, confidence, dpsco version or source digest), cannot be read, or holds an audit
    whose stored verdict, bound or p-value disagrees with its own numbers.
    """
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for name in _listing(out):
        path = os.path.join(out, CHECKPOINT_DIR, name)
        try:
            with open(path, encoding="utf-8") as fh:
                saved = json.load(fh)
            their, result = saved["campaign"], saved["result"]
            entry, phase = result["entry"], result["phase"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CheckpointError(f"--resume: cannot read the checkpoint {path!r} ({exc})") from None
        diff = [k for k in sorted(set(key) | set(their)) if key.get(k) != their.get(k)]
        if diff:
            k = diff[0]
            raise CheckpointError(f"--resume: {path!r} belongs to another campaign ({k} {their.get(k)!r}, this run "
                                  f"{key.get(k)!r}); rerun with the same options, or without --resume")
        try:   # a stored verdict is believed only if its numbers give it (dpsco.verification.campaign.rederive)
            check_phase_result(result, f"--resume: {path!r}")
        except InconsistentRecordError as exc:
            raise CheckpointError(f"{exc}; delete the checkpoint or rerun without --resume") from None
        found[(entry, phase)] = result
    return found


def clear_checkpoints(out: str) -> None:
    """Remove the checkpoints of an earlier campaign (a run without ``--resume`` starts afresh)."""
    for name in _listing(out):
        os.remove(os.path.join(out, CHECKPOINT_DIR, name))
