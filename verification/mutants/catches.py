"""The planted-bug registry of the checks: every check and audit that ``dpsco verify`` records for a catalogue
entry names the planted bug that makes it fail, and the test that shows it.

A check that no planted bug can make fail proves nothing about the code it checks.  :data:`CATCHES` holds one
:class:`CheckCatch` row per family of checks (regexes on the catalogue entry's name and on the record's key), in
the papers' order (``bftt19_catches``, ``lr21_catches``, ``alt24_catches``, ``muabg23_catches``,
``accd22_catches``); :func:`catch_for` returns the first row that matches an (entry, key) pair.  The keys are
those of the campaign's results (``dpsco verify``'s ``results.json``): for the common entries (Bassily et al.,
Lowy & Razaviyayn) the check records under "audit", "white_box_audit", "empirical", "population", "rate",
"tight_rate", "rate_d", "rate_eps" and "stability" (those present), for the suite entries the keys of
``suite_checks`` and ``suite_audits`` (:data:`COMMON_KEYS`, :func:`inventory`).  The committed inventory
``check_inventory.json`` (next to this module) lists them for the quick budget; tests/test_check_registry.py
checks that every inventoried pair has a row, that every named bug is in ``corpus.CORPUS`` and listed by the
entries the row matches, and that every named test exists (and, in the campaign, regenerates the inventory).

A row's ``bug`` is None only where the record is not a pass/fail check of the implementation.  Its note then
starts with one of :data:`NONE_KINDS`, which says why:

* "diagnostic:" — the record has no pass/fail verdict;
* "uninformative:" — the campaign labels the check's pass "uninformative" (``dpsco.verification.checks.power``):
  at the quick campaign's runs it cannot fail, or cannot detect a violation of its claim by a factor of two, so
  its pass is reported as no evidence (a failure would still fail the campaign).

A "control" record (a check that states that ANOTHER check refutes a planted copy, e.g. "the measured-noise
check refutes the σ/√2 copy") names the planted bug it runs: the row's test shows that other check failing on
it.  A check fails on a planted bug when its p-value is at most :data:`FAILS_UNDER_HOLM`, which fails under
Holm's procedure at the campaign's α = 1e-3 whatever the other p-values, in any campaign of at most 1000
checks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from dpsco.verification.mutants.accd22.catches import ACCD22_ROWS
from dpsco.verification.mutants.alt24.catches import ALT24_ROWS
from dpsco.verification.mutants.bftt19.catches import BFTT19_ROWS
from dpsco.verification.mutants.lr21.catches import LR21_ROWS
from dpsco.verification.mutants.muabg23.catches import MUABG23_ROWS

__all__ = ["CATCHES", "COMMON_KEYS", "FAILS_UNDER_HOLM", "INVENTORY_PATH", "NONE_KINDS", "CheckCatch", "catch_for", "check_records",
           "inventory", "load_inventory", "none_kind", "none_rows_markdown", "write_inventory"]

#: the check records of a common (non-suite) entry in ``results.json``, in the campaign's order
COMMON_KEYS: tuple[str, ...] = ("audit", "white_box_audit", "empirical", "population", "rate", "tight_rate",
                                "rate_d", "rate_eps", "stability")
#: why a row names no planted bug (the first word of its note; module docstring)
NONE_KINDS: tuple[str, ...] = ("diagnostic:", "uninformative:")
#: a p-value at most this fails under Holm at α = 1e-3 whatever the other p-values (≤ 1000 checks: 1e-3/1000)
FAILS_UNDER_HOLM = 1e-6
#: the committed inventory of the quick campaign's (entry, key) pairs: {entry name: [keys]}
INVENTORY_PATH = Path(__file__).resolve().with_name("check_inventory.json")


@dataclass(frozen=True)
class CheckCatch:
    """One row of the registry.

    entry : regex, matched in full (``re.fullmatch``) against the catalogue entry's name.
    key : regex, matched in full against the check's or audit's key in the entry's record.
    bug : the name of the planted bug in ``dpsco.verification.mutants.corpus.CORPUS`` that makes THIS check fail
        (or its audit refute), or None for a check that cannot fail on any planted bug (the note says why:
        :data:`NONE_KINDS`).
    test : pytest node id "tests/file.py::test_name" of the test that runs this check (the same check code, or
        the same audit function on the same instance design) on that planted bug and asserts that it fails; for
        bug None, the test that shows what the note states.
    note : one line: how the check catches the bug, or why it cannot fail and what its record says.
    """

    entry: str
    key: str
    bug: str | None
    test: str
    note: str = ""

    def matches(self, entry: str, key: str) -> bool:
        """Whether this row covers the check ``key`` of the catalogue entry ``entry`` (both regexes in full)."""
        return re.fullmatch(self.entry, entry) is not None and re.fullmatch(self.key, key) is not None


def _rows(rows: tuple[Mapping[str, Any], ...]) -> tuple[CheckCatch, ...]:
    return tuple(CheckCatch(**r) for r in rows)


#: every row, in the catalogue's order of papers (Bassily et al., Lowy & Razaviyayn, Asi, Liu & Tian, Menart et
#: al., Asi, Chadha, Cheng & Duchi)
CATCHES: tuple[CheckCatch, ...] = _rows(BFTT19_ROWS + LR21_ROWS + ALT24_ROWS + MUABG23_ROWS + ACCD22_ROWS)


def catch_for(entry: str, key: str) -> CheckCatch | None:
    """The first row of :data:`CATCHES` that matches the check ``key`` of the catalogue entry ``entry``, or None.

    TypeError if ``entry`` or ``key`` is not a string."""
    if not isinstance(entry, str) or not isinstance(key, str):
        raise TypeError(f"entry and key must be strings, got {type(entry).__name__} and {type(key).__name__}")
    return next((row for row in CATCHES if row.matches(entry, key)), None)


def none_kind(row: CheckCatch) -> str | None:
    """The kind (:data:`NONE_KINDS`) a bug-None row's note starts with; None if the row names a bug or its note
    starts with no known kind."""
    if row.bug is not None:
        return None
    return next((k for k in NONE_KINDS if row.note.startswith(k)), None)


def check_records(results: Mapping[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every (entry name, key, record) of the checks and audits in a campaign's ``results`` (the parsed
    ``results.json`` of ``dpsco verify``): the common keys (:data:`COMMON_KEYS`) whose value is a record, then
    the keys of ``suite_checks`` and ``suite_audits``; in a record of the current shape
    (``campaign.results_record``), the keys of ``audits``, ``checks`` and ``planted_bugs`` that ran.  ValueError if
    ``results`` has no "records" list."""
    records = results.get("records") if isinstance(results, Mapping) else None
    if not isinstance(records, list):
        raise ValueError("results must be a dpsco verify results mapping with a 'records' list")
    for rec in records:
        name = rec["name"]
        if isinstance(rec.get("checks"), Mapping):  # the record shape of results schema version 2
            for group in ("audits", "checks", "planted_bugs"):
                for key, check in (rec.get(group) or {}).items():
                    if isinstance(check, Mapping) and check.get("verdict") not in ("skipped", "not applicable"):
                        yield name, key, check
            continue
        for key in COMMON_KEYS:
            if isinstance(rec.get(key), dict):
                yield name, key, rec[key]
        for group in ("suite_checks", "suite_audits"):
            for key, check in (rec.get(group) or {}).items():
                yield name, key, check


def inventory(results: Mapping[str, Any]) -> dict[str, list[str]]:
    """{entry name: [keys]} of every check and audit in ``results`` (:func:`check_records`), keys sorted."""
    out: dict[str, list[str]] = {}
    for name, key, _ in check_records(results):
        out.setdefault(name, []).append(key)
    return {name: sorted(keys) for name, keys in out.items()}


def load_inventory(path: str | Path = INVENTORY_PATH) -> dict[str, list[str]]:
    """The committed inventory ({entry name: [keys]}) at ``path`` (default :data:`INVENTORY_PATH`)."""
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError(f"{path}: expected a JSON object {{entry name: [keys]}}")
    return data


def none_rows_markdown(rows: tuple[CheckCatch, ...] = CATCHES) -> list[str]:
    """The Markdown table (header, separator, one line per row) of the bug-None rows of ``rows`` — the checks that
    cannot fail on any planted bug — by kind (:data:`NONE_KINDS`), with their entry and key regexes;
    docs/planted-bugs.md holds it (each row's note, in ``mutants.<paper>_catches``, says why)."""
    out = ["| kind | entries | checks |", "|---|---|---|"]
    for kind in NONE_KINDS:
        for row in rows:
            if row.bug is None and none_kind(row) == kind:
                key = row.key.replace("|", "\\|")
                out.append(f"| {kind[:-1]} | `{row.entry}` | `{key}` |")
    return out


def write_inventory(results_files: list[str], path: str | Path = INVENTORY_PATH) -> dict[str, list[str]]:
    """Merge the inventories of the ``results.json`` files (e.g. one ``dpsco verify --quick --only PAPER`` run
    per paper) and write them to ``path``, entries sorted by name.  ValueError if two files disagree on an
    entry."""
    merged: dict[str, list[str]] = {}
    for f in results_files:
        with open(f, encoding="utf-8") as fh:
            for name, keys in inventory(json.load(fh)).items():
                if name in merged and merged[name] != keys:
                    raise ValueError(f"{f}: entry {name!r} has keys {keys}, another file {merged[name]}")
                merged[name] = keys
    merged = dict(sorted(merged.items()))
    Path(path).write_text(json.dumps(merged, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return merged


if __name__ == "__main__":  # python -m dpsco.verification.mutants.catches RESULTS.json [...]
    import sys

    if len(sys.argv) < 2:
        sys.exit("usage: python -m dpsco.verification.mutants.catches RESULTS.json [RESULTS.json ...]")
    inv = write_inventory(sys.argv[1:])
    print(f"{INVENTORY_PATH}: {sum(len(k) for k in inv.values())} checks of {len(inv)} entries")
