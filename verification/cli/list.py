"""dpsco list: every catalogue entry with its paper, algorithm and whether ``dpsco compare`` accepts it.

usage: dpsco list [--json] [--wide]

One row per catalogue entry, in the catalogue's order: the entry's name (what --against takes), the paper, the
algorithm (the paper's Algorithm / Theorem), whether it is comparable (every entry that releases a private output
is; the two non-private procedures of Asi, Liu & Tian are not, and the row says why) and the calling convention
of its compare signature ("logistic": f(X, y, problem, epsilon, delta, rng, **options); "harness": a drop-in
for the reference function, called by the entry's privacy harness).  `dpsco compare --against NAME
--show-signature` prints one entry's signature in full.

The table fits 100 columns: the paper is abbreviated (first author, "et al." for three or more, year) and the
algorithm wraps onto continuation lines under its column, as does the reason an entry is not comparable.
``--wide`` prints one line per entry with the paper and algorithm in full (about 250 columns); ``--json`` every
field in full.

exit status: 0.
"""

from __future__ import annotations

import argparse
import json
import re
import textwrap
from typing import Any

__all__ = ["WIDTH", "configure_parser", "rows", "run", "short_paper", "table", "wide_table"]

#: the width of the default table (the command line's convention for terminal output)
WIDTH = 100


def configure_parser(p: argparse.ArgumentParser) -> None:
    """Add the ``list`` arguments to ``p`` and set ``run`` as its handler."""
    p.add_argument("--json", action="store_true", help="print one JSON record per entry (a JSON list)")
    p.add_argument("--wide", action="store_true",
                   help="one line per entry, paper and algorithm in full (about 250 columns); by default the "
                        "table fits 100 columns (paper abbreviated, algorithm wrapped)")
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


def _footer(records: list[dict[str, Any]]) -> str:
    n_yes = sum(r["comparable"] for r in records)
    return f"{len(records)} entries, {n_yes} comparable (dpsco compare --against NAME --show-signature)"


def wide_table(records: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table, one line per entry, every field in full (``--wide``)."""
    head = ("entry", "paper", "algorithm", "comparable", "calling")
    body = [(r["name"], r["paper"], r["algorithm"], "yes" if r["comparable"] else "no",
             (r["calling"] or "-") + ("" if r["comparable"] else f"  ({r['reason']})")) for r in records]
    widths = [max(len(str(x[i])) for x in [head, *body]) for i in range(len(head) - 1)]
    lines = []
    for row in [head, *body]:
        lines.append("  ".join(str(v).ljust(w) for v, w in zip(row[:-1], widths)) + "  " + str(row[-1]))
    lines.append(_footer(records))
    return "\n".join(lines)


def short_paper(paper: str) -> str:
    """``paper`` abbreviated for the narrow table: the authors before the parenthesis, shortened to the first
    author plus "et al." when there are three or more, then the year, e.g. "Bassily, Feldman, Talwar, Thakurta
    (NeurIPS 2019)" -> "Bassily et al. 2019", "Lowy & Razaviyayn (AAAI 2021)" -> "Lowy & Razaviyayn 2021"."""
    authors = paper.split("(")[0].strip()
    years = re.findall(r"(?:19|20)\d\d", paper)
    names = [a.strip() for a in re.split(r",|&|\band\b", authors) if a.strip()]
    if len(names) >= 3:
        authors = f"{names[0]} et al."
    return f"{authors} {years[-1]}" if years else authors


def table(records: list[dict[str, Any]], width: int = WIDTH) -> str:
    """The rows as a text table of at most ``width`` columns: entry, paper (:func:`short_paper`), algorithm
    (wrapped onto continuation lines), comparable, calling; an entry that is not comparable has its reason on
    the continuation lines, wrapped under the algorithm column.  Every line of an entry after its first starts
    with blanks, so the first word of every non-blank-led line is an entry name."""
    head = ("entry", "paper", "algorithm", "comparable", "calling")
    papers = [short_paper(r["paper"]) for r in records]
    w_name = max(len(head[0]), *(len(r["name"]) for r in records))
    w_paper = max(len(head[1]), *(len(p) for p in papers))
    w_cmp, w_call = len(head[3]), max(len(head[4]), *(len(r["calling"] or "-") for r in records))
    w_alg = width - (w_name + w_paper + w_cmp + w_call + 2 * 4)
    if w_alg < 20:
        raise ValueError(f"width: {width} columns leave {w_alg} for the algorithm column (need at least 20)")

    def line(name: str, paper: str, alg: str, cmp_: str, call: str) -> str:
        return "  ".join((name.ljust(w_name), paper.ljust(w_paper), alg.ljust(w_alg), cmp_.ljust(w_cmp),
                          call)).rstrip()

    lines = [line(*head)]
    for r, paper in zip(records, papers):
        alg = textwrap.wrap(r["algorithm"], w_alg, break_on_hyphens=False) or [""]
        if not r["comparable"]:
            alg += textwrap.wrap(f"not comparable: {r['reason']}", w_alg, initial_indent="",
                                 subsequent_indent="  ", break_on_hyphens=False)
        for i, chunk in enumerate(alg):
            if i == 0:
                lines.append(line(r["name"], paper, chunk, "yes" if r["comparable"] else "no", r["calling"] or "-"))
            else:
                lines.append(line("", "", chunk, "", ""))
    lines.append(_footer(records))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Execute ``dpsco list``; returns 0."""
    records = rows()
    if args.json:
        print(json.dumps(records, allow_nan=False))
    else:
        print(wide_table(records) if getattr(args, "wide", False) else table(records))
    return 0
