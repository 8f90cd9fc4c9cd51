"""White-box audits of Asi, Liu & Tian's Algorithm 1 (Clipped-DP-SGD, Corollary 1's parameters) and its planted
bugs: detection rates over repeated audits (numbers quoted in docs/auditing.md).

Run: python benchmarks/alt24_clipped_white_box.py [--audits A] [--runs N]

Instance: the linear loss, n = 10 records in d = 2, ρ = 0.5 (T = 25 steps), λ = 1; the one-sided canary of
``dpsco.verification.auditing.white_box`` (n copies of z, the neighbour's last record z').  For the correct
algorithm and the noise-scale bugs z = 2C e_1, z' = −z (the worst-case pair); for the clip-after-noise bug
z = 0, z' = 100·C·n e_1 (the unclipped mean moves by 100C).  Each audit: N runs per side, confidence 0.95.
Prints, per variant, the number of audits that refute the ρ-zCDP claim and the mean ε lower bound and ρ_lb.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dpsco.reference.alt24.algorithms_clipped_sgd import corollary_1_parameters, corollary_1_solver
from dpsco.reference.alt24.losses import LinearLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.verification.auditing.white_box import OneSidedCanary, white_box_audit
from dpsco.verification.mutants.alt24 import clipped as mut

N_REC, D, RHO, LAM = 10, 2, 0.5, 1.0
MOMENTS = MomentBounds(2, (1.0, 1.0))
P = corollary_1_parameters(N_REC, D, RHO, MOMENTS, LAM)
KW = dict(lam=LAM, rho=RHO, moments=MOMENTS, domain_radius=1e6)


def _cor1(fn):  # noqa: ANN001, ANN202
    def run(data, R, rng):  # noqa: ANN001, ANN202
        return fn(data["X"], LinearLoss(), rng=rng, white_box=True, replicates=R, **KW).white_box
    return run


def _noise_clipped(data, R, rng):  # noqa: ANN001, ANN202
    return mut.clipped_dp_sgd_noise_clipped(data["X"], LinearLoss(), C=P.C, lam=LAM, T=P.T, sigma=P.sigma,
                                            radius_r=1e6, domain_radius=1e6, rng=rng, white_box=True,
                                            replicates=R).white_box


def _regulariser_clipped(data, R, rng):  # noqa: ANN001, ANN202
    return mut.clipped_dp_sgd_regulariser_clipped(data["X"], LinearLoss(), C=P.C, lam=LAM, T=P.T, sigma=P.sigma,
                                                  radius_r=2.0, domain_radius=2.0, rng=rng, white_box=True,
                                                  replicates=R).white_box


def variants():  # noqa: ANN201
    z = np.array([2.0 * P.C, 0.0])
    worst = OneSidedCanary(N_REC, (z, 0.0), (-z, 0.0))
    far = OneSidedCanary(N_REC, (np.zeros(D), 0.0), (np.array([100.0 * P.C * N_REC, 0.0]), 0.0))
    claim = corollary_1_solver(np.tile(z, (N_REC, 1)), LinearLoss(), rng=np.random.default_rng(0), **KW).claim
    return [("correct (Corollary 1)", _cor1(corollary_1_solver), worst, claim),
            ("sensitivity C/n (σ/2)", _cor1(mut.clipped_dp_sgd_sensitivity_c_over_n), worst, claim),
            ("σ from T/2 steps", _cor1(mut.clipped_dp_sgd_sigma_from_fewer_steps), worst, claim),
            ("λx inside the clip at C + λr (r = 2)", _regulariser_clipped, worst, claim),
            ("clip after the noise", _noise_clipped, far, claim)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=20)
    ap.add_argument("--runs", type=int, default=10_000)
    args = ap.parse_args()
    print(f"Algorithm 1, n = {N_REC}, d = {D}, rho = {RHO}, T = {P.T}, C = {P.C:.4f}, sigma = {P.sigma:.4f}; "
          f"{args.audits} audits x {args.runs} runs per side, confidence 0.95")
    for name, run, design, claim in variants():
        t0 = time.perf_counter()
        res = [white_box_audit(run, design, claim, args.runs, np.random.default_rng(seed), confidence=0.95)
               for seed in range(args.audits)]
        refuted = sum(r.verdict == "refuted" for r in res)
        eps = np.mean([r.epsilon_lower for r in res])
        rho_lb = np.mean([(r.curve or {}).get("rho_lower") or 0.0 for r in res])
        print(f"{name:40s} refuted {refuted}/{args.audits}  mean eps_lb {eps:.3f} (eps_true {res[0].epsilon_true:.3f} "
              f"claim {claim.epsilon:.3f})  mean rho_lb {rho_lb:.3f} (claim {claim.rho})  "
              f"{(time.perf_counter() - t0) / args.audits:.2f} s/audit", flush=True)


if __name__ == "__main__":
    main()
