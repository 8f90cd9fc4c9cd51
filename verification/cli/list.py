"""dpsco list: every catalogue entry with its paper, algorithm and whether ``dpsco compare`` accepts it.

usage: dpsco list [--json]

One row per catalogue entry, in the catalogue's order: the entry's name (what --against takes), the paper, the
algorithm (the paper's Algorithm / Theorem), whether it is comparable (every entry that releases a private output
is; the two non-private procedures of Asi, Liu & Tian are not, and the row says why) and the calling convention
of its compare signature ("logistic": f(X, y, problem, epsilon, delta, rng, **options); "harness": a drop-in
for the reference function, called by the entry's privacy harness).  `dpsco compare --against NAME
--show-signature` prints one entry's signature in full.

exit status: 0.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

__all__ = ["configure_parser", "rows", "run", "table"]


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``list`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("--json", action="store_true", help="print one JSON record per entry (a JSON list)")
    p.set_defaults(run=run)


def rows() -> list[dict[str, Any]]:
    """One dict per catalogue entry: name, paper, algorithm, comparable (bool), calling, reason (why not)."""
    from dpsco.verification.papers.catalogue import CATALOGUE
    from dpsco.verification.papers.signatures import signature_registry

    sigs = signature_registry()
    out = []
    for e in CATALOGUE:
        sig = sigs.get(e.name)
        out.append({"name": e.name, "paper": e.paper, "algorithm": e.algorithm_ref,
                    "comparable": bool(sig is not None and sig.comparable),
                    "calling": None if sig is None else sig.calling,
                    "reason": "no compare signature declared" if sig is None else ("" if sig.comparable else sig.reason)})
    return out


def table(records: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table (entry, paper, algorithm, comparable, calling)."""
    head = ("entry", "paper", "algorithm", "comparable", "calling")
    body = [(r["name"], r["paper"], r["algorithm"], "yes" if r["comparable"] else "no",
             (r["calling"] or "-") + ("" if r["comparable"] else f"  ({r['reason']})")) for r in records]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(len(head) - 1)]
    lines = []
    for row in [head, *body]:
        lines.append("  ".join(str(v).ljust(w) for v, w in zip(row[:-1], widths)) + "  " + str(row[-1]))
    n_yes = sum(r["comparable"] for r in records)
    lines.append(f"{len(records)} entries, {n_yes} comparable (dpsco compare --against NAME --show-signature)")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco list``; returns 0."""
    records = rows()
    print(json.dumps(records, allow_nan=False) if args.json else table(records))
    return 0
