"""``dpsco verify --list-checks ENTRY``: the checks and audits of a catalogue entry, without running them.

For each check or audit ``dpsco verify`` records for the entry (the keys of the committed inventory,
``dpsco.verification.mutants.catches.INVENTORY_PATH``, which lists the quick campaign's records; the common
entries' keys otherwise) it gives the record key, what it tests (the campaign's description of the common
checks, the entry's own label of its extra checks, the key and the suite's description for a suite's checks,
whose statements exist only in their records), and the
planted bug that makes it fail (``dpsco.verification.mutants.catches.CATCHES``, with the test that shows it)
or, when none can, why ("uninformative: ..." / "diagnostic: ...").
"""

from __future__ import annotations

from typing import Any

__all__ = ["COMMON_DESCRIPTIONS", "format_checks", "list_checks"]

#: what each common check of ``dpsco verify`` tests (its module docstring, steps 1-6)
COMMON_DESCRIPTIONS: dict[str, str] = {
    "audit": "black-box privacy audit of the released vector on the Fair data against a replace-one extreme "
             "neighbour (threshold events, Clopper-Pearson): epsilon lower bound vs the claimed epsilon",
    "white_box_audit": "white-box audit of every noisy gradient on the one-sided canary pair: epsilon lower bound "
                       "vs the accountant's epsilon",
    "empirical": "excess empirical risk on the Fair data (certified oracle) vs the theorem's bound on its "
                 "expectation",
    "population": "excess population risk on a synthetic instance with a known population minimiser vs the "
                  "theorem's bound",
    "rate": "the theorem's bound on a grid of n, with the fitted log-log slope next to the theorem's exponent",
    "stability": "uniform stability: coupled runs on neighbouring datasets vs the stability bound the proof uses",
}


def list_checks(entry_name: str) -> dict[str, Any]:
    """The checks of the catalogue entry ``entry_name`` as a JSON-ready dict: {"entry", "title", "paper",
    "description", "checks": [{"key", "tests", "planted_bug", "test", "note"}]}.  ValueError naming the known
    entries for an unknown name."""
    from dpsco.verification.mutants.catches import COMMON_KEYS, catch_for, load_inventory
    from dpsco.verification.papers.catalogue import CATALOGUE

    entries = {e.name: e for e in CATALOGUE}
    if entry_name not in entries:
        raise ValueError(f"--list-checks {entry_name!r} is not a catalogue entry; known: {sorted(entries)} "
                         "(dpsco verify --list-checks takes one full name)")
    entry = entries[entry_name]
    labels = dict(entry.extra_checks.labels) if entry.extra_checks is not None else {}
    inventory = load_inventory()
    if entry_name in inventory:
        keys = list(inventory[entry_name])
        order = {k: i for i, k in enumerate(COMMON_KEYS)}
        keys.sort(key=lambda k: (order.get(k, len(order)), k))
    else:
        keys = [k for k in COMMON_KEYS if k in COMMON_DESCRIPTIONS or k in labels]
    checks = []
    for key in keys:
        row = catch_for(entry_name, key)
        note = row.note if row is not None else ""
        tests = (COMMON_DESCRIPTIONS.get(key) or labels.get(key)
                 or f"{key.replace('_', ' ')}: a check of this entry's suite (its statement is in the record when "
                    "it runs; the suite's description is above)")
        checks.append({"key": key, "tests": tests,
                       "planted_bug": None if row is None else row.bug,
                       "test": None if row is None else row.test,
                       "note": note})
    suite = getattr(entry, "suite", None)
    return {"entry": entry.name, "title": entry.title, "paper": entry.paper,
            "description": getattr(suite, "description", "") if suite is not None else
            "the campaign's common checks (dpsco verify --help)",
            "checks": checks}


def format_checks(listing: dict[str, Any], width: int = 100) -> str:
    """The listing of :func:`list_checks` as plain text, lines of at most ``width`` columns."""
    import textwrap

    out = textwrap.wrap(f"{listing['entry']} ({listing['title']}, {listing['paper']}): {len(listing['checks'])} "
                        "checks and audits", width, subsequent_indent="  ")
    if listing.get("description"):
        out += textwrap.wrap(listing["description"], width, initial_indent="  ", subsequent_indent="  ")
    for c in listing["checks"]:
        out.append("")
        out.append(f"- {c['key']}")
        out += textwrap.wrap(f"tests: {c['tests']}", width, initial_indent="    ", subsequent_indent="      ",
                             break_long_words=False, break_on_hyphens=False)
        if c["planted_bug"] is not None:
            caught = f"caught: planted bug {c['planted_bug']}" + (
                f"; {c['note']}" if c["note"] and c["note"] != c["tests"] else "")
            test = str(c["test"] or "")
            shown = [test] if len(test) + 15 <= width else test.replace("::", "\n::").split("\n")
        elif c["note"]:
            caught = f"no planted bug: {c['note']}"
        else:
            caught = "no planted bug registered"
        out += textwrap.wrap(caught, width, initial_indent="    ", subsequent_indent="      ",
                             break_long_words=False, break_on_hyphens=False)
        if c["planted_bug"] is not None:
            out.append(f"    shown by: {shown[0]}")
            out += [f"      {part}" for part in shown[1:]]
    return "\n".join(out)
