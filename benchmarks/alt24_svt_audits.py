"""Black-box audits of Asi, Liu & Tian's bounded Laplace mechanism (Lemma 9) and SVT with bounded Laplace noise
(Algorithm 6) and of their planted bugs: refutation rates over repeated audits, plus the exact ε of each
variant on the audited pair (numbers quoted in docs/auditing.md).

Run: python benchmarks/alt24_svt_audits.py [--audits A] [--runs N] [--confidence C] [--variants 0,1,...]

Instances (``dpsco.verification.papers.alt24.svt``): Lemma 9 at ε = 0.5, δ = 1e-3 on S(D) = 0 vs S(D') = 1 with
the fixed event {output ≤ Δ − Δ log(4/δ)}; Algorithm 6 at ε = 0.9, δ = 0.01, c = 1, T = 3 on the streams
(0, 1, 0) / (1, 0, 1) with the fixed event "⊥⊤".  Each audit: N runs per side, all test runs, one-sided
Clopper–Pearson bounds at the given confidence.  Also prints the exact ε (at the claim's δ) of the correct
SVT and of the SVT with R calibrated without √c on all-at-threshold streams, c = T ∈ {4, 8, 12}.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from dpsco.reference.alt24 import algorithms_svt as svt
from dpsco.verification.auditing.events import Event
from dpsco.verification.mutants.alt24 import svt as mut
from dpsco.verification.papers.alt24 import svt as suite
from dpsco.verification.papers.registry import SuiteInputs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=100)
    ap.add_argument("--runs", type=int, default=4000)
    ap.add_argument("--confidence", type=float, default=0.95)
    ap.add_argument("--variants", type=str, default="", help="comma-separated indices (0-4) of the variants to run")
    a = ap.parse_args()
    i9, i10 = suite.BLAP_INSTANCE, suite.SVT_INSTANCE
    blap_claim = svt.bounded_laplace_mechanism(0.0, 1.0, i9["epsilon"], i9["delta"], np.random.default_rng(0)).claim
    svt_claim = svt.private_sparse_vector([0.0] * 3, 1.0, 1, 0.0, i10["epsilon"], i10["delta"],
                                         np.random.default_rng(0)).claim
    D9, Dp9 = suite.blap_pair()
    D10, Dp10 = suite.svt_pair()
    variants = [
        ("Lemma 9 (correct)", suite.BlapMechanism(), D9, Dp9, blap_claim, suite.blap_event(), "projection"),
        ("Lemma 9, tau without 1/eps", suite.BlapMechanism(mut.bounded_laplace_tau_without_epsilon), D9, Dp9,
         blap_claim, suite.blap_event(), "projection"),
        ("Algorithm 6 (correct)", suite.SvtMechanism(), D10, Dp10, svt_claim, Event(0.5, "ge", "dataset"),
         suite.svt_event_statistic),
        ("Algorithm 6, no query noise", suite.SvtMechanism(mut.sparse_vector_without_query_noise), D10, Dp10,
         svt_claim, Event(0.5, "ge", "dataset"), suite.svt_event_statistic),
        ("Algorithm 6, plain Laplace", suite.SvtMechanism(mut.sparse_vector_plain_laplace), D10, Dp10,
         svt_claim, Event(0.5, "ge", "dataset"), suite.svt_event_statistic),
    ]
    root = np.random.SeedSequence(20261123)
    inputs = SuiteInputs("standard", root, a.confidence)
    chosen = {int(v) for v in a.variants.split(",")} if a.variants else set(range(len(variants)))
    for k, (name, mech, D, Dp, claim, event, stat) in enumerate(variants):
        if k not in chosen:
            continue
        t0 = time.process_time()
        seeds = root.spawn(a.audits)
        recs = [suite._fixed_event_audit(mech, D, Dp, claim, a.runs, event, stat, inputs, s) for s in seeds]
        refuted = sum(r["verdict"] == "refuted" for r in recs)
        eps_lb = np.array([r["epsilon_lower"] for r in recs], dtype=float)
        print(f"{name:32s} refuted {refuted:4d}/{a.audits}  mean eps_lb {np.mean(eps_lb):.3f}  "
              f"max {np.max(eps_lb):.3f}  ({time.process_time() - t0:.1f} CPU s)")
    # exact ε of the pairs
    e9 = {"correct": svt.bounded_laplace_epsilon(i9["delta"], 1.0, 1 / i9["epsilon"],
                                                 svt.lemma_9_tau(1.0, i9["epsilon"], i9["delta"])),
          "tau without 1/eps": svt.bounded_laplace_epsilon(i9["delta"], 1.0, 1 / i9["epsilon"],
                                                           math.log(4 / i9["delta"]))}
    print("exact eps at delta, Lemma 9:", e9)
    p = svt.lemma_10_parameters(1.0, 1, 3, i10["epsilon"], i10["delta"])
    a3, b3 = (0.0, 1.0, 0.0), (1.0, 0.0, 1.0)
    print("exact eps at delta, Algorithm 6 pair:",
          {"correct": svt.svt_epsilon(i10["delta"], a3, b3, 1, 0.0, p["R"], p["tau"]),
           "no query noise": svt.discrete_epsilon(i10["delta"], mut.without_query_noise_law(a3, 1, 0.0, p["R"], p["tau"]),
                                                  mut.without_query_noise_law(b3, 1, 0.0, p["R"], p["tau"])),
           "plain Laplace": svt.svt_epsilon(i10["delta"], a3, b3, 1, 0.0, p["R"], math.inf)})
    for c in (4, 8, 12):
        p = svt.lemma_10_parameters(1.0, c, c, i10["epsilon"], i10["delta"])
        z, o = (0.0,) * c, (1.0,) * c
        R0 = p["R"] / math.sqrt(c)
        e_ok = svt.svt_epsilon(i10["delta"], z, o, c, 0.0, p["R"], p["tau"])
        e_bug = svt.svt_epsilon(i10["delta"], z, o, c, 0.0, R0, R0 * math.log(10 * c / i10["delta"]))
        print(f"c = T = {c}: exact eps at delta, correct {e_ok:.4f}, R without sqrt(c) {e_bug:.4f}"
              f" (claim {i10['epsilon']})")


if __name__ == "__main__":
    main()
