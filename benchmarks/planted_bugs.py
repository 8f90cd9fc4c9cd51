"""Regenerate the planted-bug detection table (docs/planted-bugs.md).

Usage::

    python benchmarks/planted_bugs.py [--audits 100] [--samples N] [--seed 20240603] [--json out.json]
                                      [--only NAME ...] [--notion approx|curve|gdp|zcdp|all]

For every canary-audited entry of the corpus (``dpsco.verification.mutants.corpus.CANARY_AUDITED``; its other
entries are caught by their papers' tests, named in each entry's ``tests``): the exact true ε of the mutant
and of the correct algorithm on the corpus pair, the detection rate of the mutant over ``--audits`` independent audits
(each entry's budget, ``PlantedBug.samples`` runs per side — ``DEFAULT_SAMPLES`` unless the entry states
otherwise — or ``--samples`` for all; confidence 0.95) with its 95 % Clopper–Pearson interval, and the
correct algorithm's false-refutation rate on the same pair.  Prints a Markdown table;
``--json`` also writes the raw numbers.  All streams derive from ``--seed`` (recorded in the output).

With ``--notion`` it prints the per-notion table instead (docs/planted-bugs.md, "Detection rates per notion"):
for each notion asked (``all``: approx, curve, gdp, zcdp), every audited entry (``corpus.AUDITED``: the
canary-audited corpus and the μ-GDP / ρ-zCDP entries of ``mutants.notions``) whose claim has that notion's
curve — "approx": the (ε, δ) threshold audit; "curve": the curve audit against the claim's dp_accounting
event; "gdp" / "zcdp": the curve audit against the claimed μ-GDP / ρ-zCDP curve — with the exact true ε at
the claim's δ (approx, curve), μ (gdp) or ρ (zcdp) of mutant and correct mechanism, the detection rate, the
median lower bound (ε_lb, μ_lb or ρ_lb) and the correct mechanism's false-refutation rate.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpsco.verification.mutants.corpus import (AUDITED, CANARY_AUDITED, DEFAULT_CONFIDENCE,  # noqa: E402
                                               DEFAULT_SAMPLES, NOTIONS, detection_rate, notion_curve)


def _fmt_eps(x: float) -> str:
    if math.isnan(x):
        return "n/c"
    if math.isinf(x):
        return "∞"
    return f"{x:.3g}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--audits", type=int, default=100)
    ap.add_argument("--samples", type=int, default=None,
                    help=f"runs per side for every entry (default: each entry's, {DEFAULT_SAMPLES} unless stated)")
    ap.add_argument("--seed", type=int, default=20240603)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--notion", choices=NOTIONS + ("all",), default=None,
                    help="print the per-notion table for this notion (all: every notion)")
    args = ap.parse_args(argv)
    if args.notion is not None:
        return _per_notion(args)
    rows = []
    names = args.only or list(CANARY_AUDITED)
    budget = args.samples if args.samples is not None else "per entry"
    print(f"audits={args.audits} samples/side={budget} confidence={DEFAULT_CONFIDENCE} seed={args.seed}\n")
    print("| mutant | bug | precedent | instance | claim (ε, δ) | runs/side | true ε (mutant) | true ε (correct) | "
          "detection [95% CP] | median ε_lb | correct: false refutations [95% CP] |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        b = AUDITED[name]
        te, ce = b.true_epsilon(), b.correct_epsilon()
        r = detection_rate(name, args.audits, args.samples, args.seed, which="mutant")
        c = detection_rate(name, args.audits, args.samples, args.seed, which="correct")
        rows.append({"name": name, "bug": b.bug, "precedent": b.precedent, "instance": b.instance,
                     "epsilon": b.epsilon, "delta": b.delta, "samples": r.samples, "true_epsilon": str(te) if not math.isfinite(te) else te,
                     "correct_epsilon": str(ce) if not math.isfinite(ce) else ce, "visible": b.visible,
                     "note": b.true_privacy_note,
                     "mutant": {"refuted": r.refuted, "audits": r.audits, "lower": r.lower, "upper": r.upper,
                                "median_epsilon_lower": r.epsilon_lower_median, "seconds": r.seconds},
                     "correct": {"refuted": c.refuted, "audits": c.audits, "lower": c.lower, "upper": c.upper,
                                 "median_epsilon_lower": c.epsilon_lower_median, "seconds": c.seconds}})
        print(f"| `{name}` | {b.bug} | {b.precedent} | {b.instance} | ({b.epsilon:g}, {b.delta:.3g}) | "
              f"{r.samples:,} | {_fmt_eps(te)} | {_fmt_eps(ce)} | {r.refuted}/{r.audits} [{r.lower:.3f}, {r.upper:.3f}] | "
              f"{r.epsilon_lower_median:.2f} | {c.refuted}/{c.audits} [{c.lower:.3f}, {c.upper:.3f}] |", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"audits": args.audits, "samples": budget, "seed": args.seed,
                                         "confidence": DEFAULT_CONFIDENCE, "rows": rows}, indent=1))
    return 0


_LB = {"approx": "ε_lb", "curve": "ε_lb", "gdp": "μ_lb", "zcdp": "ρ_lb"}


def _claim_text(claim, notion: str) -> str:
    if notion == "approx":
        return f"({claim.epsilon:.3g}, {claim.delta:.3g})-DP"
    if notion == "curve":
        return f"{type(claim.event).__name__} ({claim.event_neighbouring}), at δ = {claim.delta:.3g}"
    return f"μ = {claim.mu:g}" if notion == "gdp" else f"ρ = {claim.rho:g}"


def _per_notion(args: argparse.Namespace) -> int:
    notions = NOTIONS if args.notion == "all" else (args.notion,)
    names = args.only or list(AUDITED)
    budget = args.samples if args.samples is not None else "per entry"
    print(f"audits={args.audits} samples/side={budget} confidence={DEFAULT_CONFIDENCE} seed={args.seed}\n")
    print("| notion | mutant | claim | runs/side | true (mutant) | true (correct) | detection [95% CP] | "
          "median lower bound | correct: false refutations [95% CP] |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows, skipped = [], []
    for notion in notions:
        for name in names:
            b = AUDITED[name]
            ds, _ = b.pair()
            claim = b.mechanism("mutant").claim(ds)
            try:
                notion_curve(claim, notion, name)
            except ValueError as exc:
                skipped.append(f"{notion} {name}: {exc}")
                continue
            if notion in ("gdp", "zcdp"):
                te, ce = b.true_parameter(), b.correct_parameter()
            else:
                te, ce = b.true_epsilon(), b.correct_epsilon()
            r = detection_rate(name, args.audits, args.samples, args.seed, which="mutant", notion=notion)
            c = detection_rate(name, args.audits, args.samples, args.seed, which="correct", notion=notion)
            rows.append({"notion": notion, "name": name, "claim": _claim_text(claim, notion), "samples": r.samples,
                         "true": str(te) if not math.isfinite(te) else te,
                         "correct_true": str(ce) if not math.isfinite(ce) else ce, "parameter": r.parameter,
                         "mutant": {"refuted": r.refuted, "audits": r.audits, "lower": r.lower, "upper": r.upper,
                                    "median_lower_bound": r.lower_median, "seconds": r.seconds},
                         "correct": {"refuted": c.refuted, "audits": c.audits, "lower": c.lower, "upper": c.upper,
                                     "median_lower_bound": c.lower_median, "seconds": c.seconds}})
            print(f"| {notion} | `{name}` | {_claim_text(claim, notion)} | {r.samples:,} | {_fmt_eps(te)} | "
                  f"{_fmt_eps(ce)} | {r.refuted}/{r.audits} [{r.lower:.3f}, {r.upper:.3f}] | "
                  f"{_LB[notion]} {r.lower_median:.2f} | {c.refuted}/{c.audits} [{c.lower:.3f}, {c.upper:.3f}] |",
                  flush=True)
    if skipped:
        print("\nnot audited under a notion (no such curve):")
        for line in skipped:
            print(f"- {line}")
    if args.json:
        args.json.write_text(json.dumps({"audits": args.audits, "samples": budget, "seed": args.seed,
                                         "confidence": DEFAULT_CONFIDENCE, "notions": list(notions), "rows": rows,
                                         "skipped": skipped}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
