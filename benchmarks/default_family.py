"""The auditor's default statistic family against the single projection it replaced (docs/auditing.md).

Three tables, printed as markdown:

1. **Scale-only leaks.** A Gaussian mechanism whose neighbours differ only in the noise scale (σ = 1 and 1.5,
   the same mean 0, every output coordinate), in d = 1, 20 and 500: ε_lb of the default ("auto") and of the
   projection at 2·10⁴ runs per side, confidence 0.95, over R seeds, and the verdict against claims ε = 1 and 4
   (δ = 10⁻⁵).
2. **Tightness targets.** The rows of ``benchmarks/audit_targets.py`` (exact ε = 1; 1-D mechanisms) with the
   default and with the projection, side by side on the same seeds: mean ε_lb and their ratio (target: the
   default within 5 % of the projection).
3. **Soundness at the exact boundary.** False refutations over R audits of mechanisms whose claim is exactly
   their privacy (Laplace ε = 1 in d = 1; a Gaussian in d = 6 at its exact δ(ε)), for the default family and
   the learned classifier, with the Clopper–Pearson upper bound of the rate; it must stay ≤ α = 0.05.

Usage: ``python benchmarks/default_family.py [--reps R]`` (about 10 minutes at R = 40 on 2 cores).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.stats import beta as beta_dist

from dpsco.oracles.privacy_curves import gaussian_sigma
from dpsco.verification.auditing.audit import audit
from dpsco.verification.papers.harness import gaussian_exact_privacy


class ScaleGaussian:
    """N(0, s²I_d) with s = data["s"][0]: neighbours differ only in the scale of the noise."""

    def __init__(self, d: int) -> None:
        self.d = d

    def __call__(self, data, rng):  # noqa: ANN001
        return float(data["s"][0]) * rng.standard_normal(self.d)

    def sample(self, data, n, rng):  # noqa: ANN001
        return float(data["s"][0]) * rng.standard_normal((n, self.d))


class ShiftLaplace:
    def __call__(self, data, rng):  # noqa: ANN001
        return np.array([data["x"].sum() + rng.laplace()])

    def sample(self, data, n, rng):  # noqa: ANN001
        return data["x"].sum() + rng.laplace(size=(n, 1))


class ShiftGaussian:
    """N(Σx·e_1/√d·…, σ²I_d): the sum spread evenly over d coordinates (sensitivity 1 in ℓ2)."""

    def __init__(self, d: int, sigma: float) -> None:
        self.d, self.sigma = d, sigma

    def __call__(self, data, rng):  # noqa: ANN001
        return data["x"].sum() / math.sqrt(self.d) + self.sigma * rng.standard_normal(self.d)

    def sample(self, data, n, rng):  # noqa: ANN001
        return data["x"].sum() / math.sqrt(self.d) + self.sigma * rng.standard_normal((n, self.d))


S, S1 = {"x": np.array([0.0, 1.0])}, {"x": np.array([0.0, 0.0])}


def scale_table(reps: int) -> None:
    print("## scale-only leaks (sigma 1 vs 1.5, same mean; 2e4 runs per side, confidence 0.95)")
    print("| d | statistic | mean eps_lb | min | refutes eps = 1 | refutes eps = 4 | s/audit |")
    print("|---|---|---|---|---|---|---|")
    a, b = {"s": np.array([1.0])}, {"s": np.array([1.5])}
    for d in (1, 20, 500):
        for stat in ("projection", "auto"):
            vals, t0 = [], time.perf_counter()
            for seed in range(reps):
                r = audit(ScaleGaussian(d), a, b, (1.0, 1e-5), 20_000, np.random.default_rng(seed), statistic=stat,
                          power_family=None)
                vals.append(r.epsilon_lower)
            v = np.array(vals)
            print(f"| {d} | {stat} | {v.mean():.3f} | {v.min():.3f} | {np.mean(v > 1):.2f} | {np.mean(v > 4):.2f} | "
                  f"{(time.perf_counter() - t0) / reps:.2f} |")
    print()


def tightness_table(reps: int) -> None:
    sigma = gaussian_sigma(1.0, 1e-5)
    rows = [("Laplace eps=1, threshold, 1e5/side", ShiftLaplace(), (1.0, 0.0), 10**5, "threshold"),
            ("Gaussian (1,1e-5), GDP route, 1e5/side", ShiftGaussian(1, sigma), (1.0, 1e-5), 10**5, "gdp"),
            ("Gaussian (1,1e-5), threshold, 1e6/side", ShiftGaussian(1, sigma), (1.0, 1e-5), 10**6, "threshold")]
    print("## tightness targets: the default family against the projection (exact eps = 1, same seeds)")
    print("| audit | projection mean eps_lb | default mean eps_lb | ratio default/projection | R |")
    print("|---|---|---|---|---|")
    for label, mech, claim, n, est in rows:
        r_ = reps if n <= 10**5 else max(10, reps // 3)
        means = {}
        for stat in ("projection", "auto"):
            means[stat] = float(np.mean([audit(mech, S, S1, claim, n, np.random.default_rng(seed), estimator=est,
                                               statistic=stat, power_family=None).epsilon_lower
                                         for seed in range(r_)]))
        print(f"| {label} | {means['projection']:.3f} | {means['auto']:.3f} | "
              f"{means['auto'] / means['projection']:.3f} | {r_} |")
    print()


def soundness_table(reps: int) -> None:
    alpha = 0.05
    sigma = 2.0
    exact = gaussian_exact_privacy(1.0 / sigma)           # ShiftGaussian(d, σ): μ = Δ/σ with Δ = 1
    gauss_claim = (1.0, exact.delta_of_epsilon(1.0))      # exactly on its curve at ε = 1
    cases = [("Laplace eps=1, d=1, claim (1, 0)", ShiftLaplace(), (1.0, 0.0), "auto"),
             ("Gaussian mu=0.5, d=6, claim (1, delta_exact(1))", ShiftGaussian(6, sigma), gauss_claim, "auto"),
             ("Gaussian mu=0.5, d=6, claim (1, delta_exact(1))", ShiftGaussian(6, sigma), gauss_claim, "classifier")]
    print(f"## soundness at the exact boundary (confidence {1 - alpha}, 2e4 runs per side)")
    print("| mechanism | statistic | refutations / audits | Clopper-Pearson 95 % upper bound of the rate |")
    print("|---|---|---|---|")
    for label, mech, claim, stat in cases:
        k = sum(audit(mech, S, S1, claim, 20_000, np.random.default_rng(10_000 + seed), statistic=stat,
                      confidence=1 - alpha, power_family=None).refuted for seed in range(reps))
        upper = 1.0 if k == reps else float(beta_dist.ppf(0.95, k + 1, reps - k))
        print(f"| {label} | {stat} | {k} / {reps} | {upper:.3f} |")
    print()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=40)
    reps = ap.parse_args().reps
    t0 = time.perf_counter()
    scale_table(reps)
    tightness_table(reps)
    soundness_table(reps * 5)
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
