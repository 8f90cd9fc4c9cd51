"""Regenerate the planted-bug detection table (docs/planted-bugs.md).

Usage::

    python benchmarks/planted_bugs.py [--audits 100] [--samples N] [--seed 20240603] [--json out.json]
                                      [--only NAME ...]

For every canary-audited entry of the corpus (``dpsco.verification.mutants.corpus.CANARY_AUDITED``; its other
entries are caught by their papers' tests, named in each entry's ``tests``): the exact true ε of the mutant
and of the correct algorithm on the corpus pair, the detection rate of the mutant over ``--audits`` independent audits
(each entry's budget, ``PlantedBug.samples`` runs per side — ``DEFAULT_SAMPLES`` unless the entry states
otherwise — or ``--samples`` for all; confidence 0.95) with its 95 % Clopper–Pearson interval, and the
correct algorithm's false-refutation rate on the same pair.  Prints a Markdown table;
``--json`` also writes the raw numbers.  All streams derive from ``--seed`` (recorded in the output).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpsco.verification.mutants.corpus import (CANARY_AUDITED, DEFAULT_CONFIDENCE, DEFAULT_SAMPLES,  # noqa: E402
                                               detection_rate)


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
    args = ap.parse_args(argv)
    rows = []
    names = args.only or list(CANARY_AUDITED)
    budget = args.samples if args.samples is not None else "per entry"
    print(f"audits={args.audits} samples/side={budget} confidence={DEFAULT_CONFIDENCE} seed={args.seed}\n")
    print("| mutant | bug | precedent | instance | claim (ε, δ) | runs/side | true ε (mutant) | true ε (correct) | "
          "detection [95% CP] | median ε_lb | correct: false refutations [95% CP] |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        b = CANARY_AUDITED[name]
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


if __name__ == "__main__":
    raise SystemExit(main())
