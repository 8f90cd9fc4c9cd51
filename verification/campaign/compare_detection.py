"""Detection rates of ``dpsco compare`` on planted implementations (docs/compare.md "Planted implementations").

* :func:`detection_campaign`: Bassily et al.'s A_NSGD, one faithful and four wrong implementations
  (``dpsco.verification.mutants.bftt19.implementations``) on the synthetic logistic instance.
* :func:`harness_detection`: the newer papers' independent implementations (``dpsco.verification.mutants.<paper>.
  implementations``: ``IMPLEMENTATIONS`` {entry: {variant: callable}}), each compared with its entry on the entry's
  harness instance.

Each returns, per variant, the number of repetitions refuted, the rate with its two-sided 95 % Clopper–Pearson
interval (``scipy.stats.binomtest(...).proportion_ci(method="exact")``), the refutations per family and the median
wall time (``harness_detection`` also the median CPU time of a comparison, which does not depend on the load of a
shared machine).  ``benchmarks/compare_detection.py`` runs them and prints the tables.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Mapping

import numpy as np
from scipy.stats import binomtest

from dpsco.reference.privacy import Release
from dpsco.reference.problem import ERMProblem
from dpsco.verification.campaign.compare import build_instance, compare
from dpsco.verification.mutants.bftt19 import implementations as nsgd

__all__ = ["detection_campaign", "harness_detection"]


def detection_campaign(reps: int = 50, *, samples: int = 2000, confidence: float = 0.99, seed: int = 20240501,
                       variants: tuple[str, ...] = nsgd.VARIANTS, progress: Any = None) -> dict[str, Any]:
    """Refutation rates of ``dpsco compare`` for each planted variant over ``reps`` independent repetitions.

    One synthetic instance (D1 logistic, n = 500, d = 3) is built from ``seed``; repetition r of a variant
    uses compare seed = ``seed`` + 1 + r (independent streams).  Returns, per variant, the number refuted,
    the rate with its two-sided 95 % Clopper–Pearson interval (``scipy.stats.binomtest``), the refutations
    per family, the median wall time, and the largest KS statistic seen (min over repetitions).
    """
    inst = build_instance("synthetic", np.random.SeedSequence(seed))
    out: dict[str, Any] = {"reps": reps, "samples": samples, "confidence": confidence, "seed": seed,
                           "instance": inst.to_dict(), "variants": {}}
    for v in variants:
        def cand(X: Any, y: Any, problem: ERMProblem, epsilon: float, delta: float, rng: np.random.Generator, *,
                 replicates: int | None = None, _v: str = v) -> Release:
            return nsgd.nsgd_variant(X, y, problem, epsilon, delta, rng, variant=_v, replicates=replicates)

        refuted, fams, times, min_d = 0, {"two_sample": 0, "utility": 0, "audit": 0}, [], math.inf
        for r in range(reps):
            t0 = time.perf_counter()
            res = compare(cand, instance=inst, samples=samples, seed=seed + 1 + r, confidence=confidence,
                          candidate_name=v)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            refuted += int(res.refuted)
            fams["two_sample"] += int(res.two_sample["reject"])
            fams["utility"] += int(res.utility["candidate"]["verdict"] == "fail")
            fams["audit"] += int(res.audit is not None and res.audit["verdict"] == "refuted")
            min_d = min(min_d, max(t["statistic"] for t in res.two_sample["ks"]["tests"]))
        ci = binomtest(refuted, reps).proportion_ci(0.95, method="exact")
        out["variants"][v] = {"refuted": refuted, "reps": reps, "rate": refuted / reps,
                              "ci95": [float(ci.low), float(ci.high)], "by_family": fams,
                              "median_seconds": float(np.median(times)), "min_max_ks_statistic": float(min_d)}
        if progress is not None:
            progress(v, out["variants"][v])
    return out


def harness_detection(entry: str, variants: Mapping[str, Callable[..., Any]], reps: int, *, samples: int,
                      confidence: float, seed: int = 20261127, audit_samples: int | None = None,
                      progress: Callable[[str, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Refutation rates of ``compare(variant, entry)`` over ``reps`` repetitions (compare seed ``seed`` + r), for
    each of ``variants`` (name -> candidate in the entry's harness convention).  ``by_family`` counts the
    repetitions refuted by each family: (a) ``two_sample``, (b) ``utility`` (the one-sided KS test of the excess or
    the paper's bound, ``compare_suite.utility_family``; 0 where the entry declares no measure), (c)(i)
    ``claim_vs_exact``, (c)(ii) ``audit``, and ``nonfinite`` outcomes; one repetition may count in several."""
    out: dict[str, Any] = {"entry": entry, "reps": reps, "samples": samples, "confidence": confidence, "seed": seed,
                           "variants": {}}
    for name, fn in variants.items():
        refuted, times, cpu = 0, [], []
        fams = {"two_sample": 0, "utility": 0, "claim_vs_exact": 0, "audit": 0, "nonfinite": 0}
        for r in range(reps):
            t0, c0 = time.perf_counter(), time.process_time()
            res = compare(fn, entry, samples=samples, audit_samples=audit_samples or samples, seed=seed + r,
                          confidence=confidence, candidate_name=name)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            refuted += int(res.refuted)
            fams["two_sample"] += int(res.two_sample["reject"])
            fams["utility"] += int(bool((res.utility or {}).get("reject", False)))   # family (b); absent: 0
            fams["claim_vs_exact"] += int(res.audit["claim_vs_exact"]["verdict"] == "refuted")
            fams["audit"] += int(res.audit.get("verdict") == "refuted")
            fams["nonfinite"] += int(any("non-finite" in x for x in res.refuted_by))
        ci = binomtest(refuted, reps).proportion_ci(0.95, method="exact")
        out["variants"][name] = {"refuted": refuted, "reps": reps, "rate": refuted / reps,
                                 "ci95": [float(ci.low), float(ci.high)], "by_family": fams,
                                 "median_seconds": float(np.median(times)),
                                 "median_cpu_seconds": float(np.median(cpu))}
        if progress is not None:
            progress(name, out["variants"][name])
    return out
