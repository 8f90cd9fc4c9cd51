"""Detection rates of ``dpsco compare`` on the planted implementations of the newer papers (docs/compare.md).

Usage: python benchmarks/compare_detection.py [REPS] [SAMPLES] [CONFIDENCE] [OUT.json] [PAPERS]
(defaults 20, 500, 0.95, no file, "alt24,accd22"; "muabg23" adds Menart et al.'s).  For every entry of
``verification/mutants/<paper>/implementations.py`` ``IMPLEMENTATIONS`` (alt24.blap, alt24.svt,
accd22.algorithm_4, accd22.algorithm_5, muabg23.noisy_gd, muabg23.adaptive_gd), each variant is compared with its entry REPS times
(compare seed 20261127 + r, SAMPLES runs per side for the two-sample test and per side of the audit) by
``dpsco.verification.campaign.compare_detection.harness_detection``; prints one markdown row per variant with
the rate and its two-sided 95 % Clopper-Pearson interval (scipy ``binomtest(...).proportion_ci(method="exact")``),
the refutations by family — (a) two-sample, (b) utility, (c)(i) claim vs exact, (c)(ii) audit — and the median
CPU seconds of one comparison, and writes the JSON record to OUT.json when given.  (Bassily et al.'s table:
``detection_campaign`` of the same module, ``pytest -m campaign tests/test_compare.py::test_detection_campaign``.)
"""

from __future__ import annotations

import json
import sys

from dpsco.verification.campaign.compare_detection import harness_detection
from dpsco.verification.mutants.accd22.implementations import IMPLEMENTATIONS as ACCD22
from dpsco.verification.mutants.alt24.implementations import IMPLEMENTATIONS as ALT24
from dpsco.verification.mutants.muabg23.implementations import IMPLEMENTATIONS as MUABG23

PAPERS = {"alt24": ALT24, "accd22": ACCD22, "muabg23": MUABG23}


def main(argv: list[str]) -> int:
    reps = int(argv[0]) if argv else 20
    samples = int(argv[1]) if len(argv) > 1 else 500
    confidence = float(argv[2]) if len(argv) > 2 else 0.95
    out_path = argv[3] if len(argv) > 3 and argv[3] != "-" else None
    papers = argv[4].split(",") if len(argv) > 4 else ["alt24", "accd22"]
    implementations = {e: v for p in papers for e, v in PAPERS[p].items()}
    records = []
    print("| entry | variant | refuted / reps | rate (95 % CI) | by family (two-sample / utility / claim vs exact / "
          "audit) | median CPU s |")
    print("|---|---|---|---|---|---|")
    for entry, variants in implementations.items():
        def row(name: str, v: dict, _entry: str = entry) -> None:
            f = v["by_family"]
            print(f"| `{_entry}` | {name} | {v['refuted']} / {v['reps']} | {v['rate']:.2f} "
                  f"({v['ci95'][0]:.2f}–{v['ci95'][1]:.2f}) | {f['two_sample']} / {f['utility']} / {f['claim_vs_exact']} / "
                  f"{f['audit']} | {v['median_cpu_seconds']:.1f} |", flush=True)
        records.append(harness_detection(entry, variants, reps, samples=samples, confidence=confidence,
                                         progress=row))
    if out_path:
        with open(out_path, "w") as fh:
            json.dump(records, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
