"""Tightness and soundness of curve audits (dpsco.verification.auditing.curve_audit.audit_curve).

Targets (issue 11), the Gaussian mechanism N(sum, σ² = 1) on a replace-one pair at distance 1 (exactly 1-GDP
and exactly 0.5-zCDP), confidence 0.95:

* claim μ = 1 (GDP): median μ_lb >= 0.90 at 1e5 runs per side over >= 20 audits;
* claim ρ = 0.5 (zCDP): median ρ_lb >= 0.30 at 1e5 runs per side over >= 20 audits;
* soundness: the rate of "refuted" over >= 1,000 audits of a true claim per notion (GDP μ = 1, zCDP ρ = 0.5,
  approx-DP (ε_1(10⁻⁵), 10⁻⁵)) is <= 1 − confidence, reported with its Clopper–Pearson 95 % upper bound.

usage: python benchmarks/curve_audit_targets.py [--audits 20] [--runs 100000] [--soundness 1000]
       [--soundness-runs 2000] [--confidence 0.95] [--skip-tightness]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from dpsco.oracles.privacy_curves import gdp_mu_to_epsilon
from dpsco.verification.auditing.curve_audit import audit_curve
from dpsco.verification.auditing.curves import CurveClaim

DS = {"x": np.zeros(5)}
NB = {"x": np.r_[np.zeros(4), 1.0]}


class Gaussian:
    """sum(x) + N(0, σ²), with an exact batched sampler."""

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma

    def __call__(self, data: dict, rng: np.random.Generator) -> np.ndarray:
        return np.array([data["x"].sum() + rng.normal(0.0, self.sigma)])

    def sample(self, data: dict, n: int, rng: np.random.Generator) -> np.ndarray:
        return data["x"].sum() + rng.normal(0.0, self.sigma, size=n)


def tightness(claim: CurveClaim, audits: int, runs: int, seed: int = 0) -> dict:
    mus, rhos, mde = [], [], []
    for i in range(audits):
        r = audit_curve(Gaussian(1.0), DS, NB, claim, runs, np.random.default_rng([seed, i]), confidence=0.95)
        mus.append(r.mu_lower)
        if r.rho_lower is not None:
            rhos.append(r.rho_lower)
        if r.minimum_detectable is not None:
            mde.append(r.minimum_detectable.get("rho", r.minimum_detectable["value"]))
    out = {"claim": claim.describe(), "audits": audits, "runs": runs, "median_mu_lower": float(np.median(mus)),
           "min_mu_lower": float(np.min(mus)), "minimum_detectable": float(np.median(mde)) if mde else None}
    if rhos:
        out.update(median_rho_lower=float(np.median(rhos)), min_rho_lower=float(np.min(rhos)))
    return out


def soundness(claim: CurveClaim, audits: int, runs: int, seed: int = 1, confidence: float = 0.95) -> dict:
    refuted = 0
    for i in range(audits):
        r = audit_curve(Gaussian(1.0), DS, NB, claim, runs, np.random.default_rng([seed, i]), confidence=confidence,
                        power=False, rho_bound=False, sample_check_runs=0)
        refuted += r.refuted
    upper = float(stats.beta.ppf(0.95, refuted + 1, audits - refuted)) if refuted < audits else 1.0
    return {"claim": claim.describe(), "confidence": confidence, "audits": audits, "runs": runs, "refuted": refuted,
            "rate": refuted / audits, "rate_upper_95": upper}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=20)
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--soundness", type=int, default=1000)
    ap.add_argument("--soundness-runs", type=int, default=2000)
    ap.add_argument("--confidence", type=float, default=0.95, help="confidence of the soundness audits")
    ap.add_argument("--skip-tightness", action="store_true")
    a = ap.parse_args()
    t0 = time.time()
    for claim in () if a.skip_tightness else (CurveClaim.gdp(1.0), CurveClaim.zcdp(0.5)):
        print(tightness(claim, a.audits, a.runs), f"[{time.time() - t0:.0f} s]", flush=True)
    eps = gdp_mu_to_epsilon(1.0, 1e-5)  # upper end of a bisection bracket: the claim is true
    for claim in (CurveClaim.gdp(1.0), CurveClaim.zcdp(0.5), CurveClaim.approx(eps, 1e-5)):
        print(soundness(claim, a.soundness, a.soundness_runs, confidence=a.confidence), f"[{time.time() - t0:.0f} s]", flush=True)


if __name__ == "__main__":
    main()
