"""Privacy audits of A_NSGD and A_ObjP at small size, each beside a planted-bug mutant the same audit refutes.

False-failure budget.  For the correct algorithms the audit runs at confidence 1 − 1e-6: by the auditor's
guarantee (dpsco.verification.auditing.audit, module docstring) a mechanism satisfying its (ε, δ) claim is refuted with
probability ≤ 1e-6.  That the correct algorithms do satisfy their claims *on these instances* is checked
first, deterministically, with the exact privacy curves (dpsco.oracles.privacy_curves).  For the mutants, the
exact curves show the true ε far above the claim, and the audit must refute; with fixed seeds the outcome is
deterministic, and the comments state the expected margin so a reader can see it is not luck.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpsco.oracles.privacy_curves import gaussian_epsilon, nsgd_one_step_canary_epsilon
from dpsco.reference import Ball, DataBounds, ERMProblem, LinearLoss
import dpsco.reference.bftt19 as o
from dpsco.verification.auditing.audit import audit
from dpsco.verification.mutants.bftt19.bugs import nsgd_noise_divided_by_batch, objp_noise_scaled_by_n

CONFIDENCE = 1 - 1e-6

# -- A_NSGD on the linear canary: n − 1 zero records and z_n = +L vs −L (the symmetric pair) -----------------
N_NSGD, EPS, L = 16, 1.0, 1.0
DELTA_NSGD = 1.0 / N_NSGD**2
PROB_NSGD = ERMProblem(LinearLoss(), Ball(10.0), DataBounds(L, 1.0))


def canary(sign: float) -> dict[str, np.ndarray]:
    X = np.zeros((N_NSGD, 1))
    X[-1, 0] = sign * L
    return {"X": X, "y": np.zeros(N_NSGD)}


class NSGDMechanism:
    def __init__(self, algorithm):
        self.algorithm = algorithm

    def __call__(self, data, rng):
        return self.algorithm(data["X"], data["y"], PROB_NSGD, EPS, DELTA_NSGD, rng).output

    def sample(self, data, n, rng):
        return self.algorithm(data["X"], data["y"], PROB_NSGD, EPS, DELTA_NSGD, rng, replicates=n).output


def test_nsgd_instance_parameters_and_true_epsilon():
    """Theorem 3.2's parameters here: T = ⌊min(2, 256/(32·log 256))⌋ = 1, m = ⌈16·√(1/4)⌉ = 8,
    σ²_printed = 8·log(256)/256.  That printed σ is not (1, 1/256)-DP on the worst-case replace-one pair
    (every other record sharing the replaced record's gradient: δ(1) = 0.0060 > 0.0039, ERRATA.md BFTT19-E4), so the
    certified calibration raises it.  One step on the canary releases a post-processing of the
    with-replacement mixture pair, so the exact curve gives the true ε of the release."""
    p = o.theorem_3_2_parameters(N_NSGD, 1, EPS, DELTA_NSGD, L, 10.0)
    assert (p.T, p.m) == (1, 8) and math.isclose(p.sigma2_printed, 8 * math.log(256) / 256, rel_tol=1e-12)
    assert not p.printed_is_private and p.sigma2 > p.sigma2_printed and p.accountant_delta <= DELTA_NSGD
    true_eps = nsgd_one_step_canary_epsilon(DELTA_NSGD, N_NSGD, p.m, math.sqrt(p.sigma2), L)
    assert true_eps <= EPS  # the correct algorithm satisfies its claim on this instance
    mutant_eps = nsgd_one_step_canary_epsilon(DELTA_NSGD, N_NSGD, p.m, math.sqrt(p.sigma2) / p.m, L)
    assert mutant_eps > 3 * EPS  # the planted bug violates it by a wide margin


def test_nsgd_audit_does_not_refute_the_correct_algorithm():
    # false-failure probability ≤ 1e-6: the auditor's guarantee at CONFIDENCE, given the previous test's
    # exact check that the mechanism is (ε, δ)-DP on this pair
    res = audit(NSGDMechanism(o.noisy_sgd), canary(+1), canary(-1), (EPS, DELTA_NSGD), 100_000,
                np.random.default_rng(np.random.SeedSequence(1001)), confidence=CONFIDENCE)
    assert res.verdict == "not refuted", res.summary()


def test_nsgd_audit_refutes_the_noise_divided_by_batch_mutant():
    # true ε of the mutant ≈ 24.9 (exact curve); with σ/8 the per-count shift 1/8 is ~2.4 noise standard
    # deviations, so tail events of one side are orders of magnitude rarer on the other: this seed gives
    # ε_lb ≈ 5.4 at 1e5 runs per side (the correct algorithm: true ε ≈ 0.59, ε_lb ≈ 0.33).
    res = audit(NSGDMechanism(nsgd_noise_divided_by_batch), canary(+1), canary(-1), (EPS, DELTA_NSGD), 100_000,
                np.random.default_rng(np.random.SeedSequence(1002)), confidence=CONFIDENCE)
    assert res.verdict == "refuted", res.summary()
    assert res.epsilon_lower > 1.5 * EPS


# -- A_ObjP on the linear loss: exactly the Gaussian mechanism with sensitivity 2L --------------------------
# (docs/derivations.md#objective-perturbation-with-a-linear-loss)
N_OBJP, D_OBJP = 100, 2
DELTA_OBJP = 1.0 / N_OBJP**2
PROB_OBJP = ERMProblem(LinearLoss(), Ball(1e3), DataBounds(L, 1.0))


def objp_data(sign: float) -> dict[str, np.ndarray]:
    X = np.zeros((N_OBJP, D_OBJP))
    X[-1, 0] = sign * L
    return {"X": X, "y": np.zeros(N_OBJP)}


class ObjPMechanism:
    def __init__(self, algorithm):
        self.algorithm = algorithm

    def __call__(self, data, rng):
        return self.algorithm(data["X"], data["y"], PROB_OBJP, EPS, DELTA_OBJP, rng).output


def test_objp_true_epsilon_of_correct_and_mutant():
    """Linear loss: ŵ = Proj(−(Σ z_i + G)/(2nλ)) is post-processing of Σ z_i + G, a Gaussian mechanism with
    replace-one sensitivity 2L and standard deviation σ (mutant: σ/n)."""
    sigma = math.sqrt(o.algorithm_2_noise_variance(L, EPS, DELTA_OBJP))
    assert gaussian_epsilon(DELTA_OBJP, 2 * L, sigma) <= EPS
    assert gaussian_epsilon(DELTA_OBJP, 2 * L, sigma / N_OBJP) > 20 * EPS


def test_objp_audit_does_not_refute_the_correct_algorithm():
    # false-failure probability ≤ 1e-6 (auditor's guarantee; the mechanism is DP by the previous test)
    res = audit(ObjPMechanism(o.objective_perturbation), objp_data(+1), objp_data(-1), (EPS, DELTA_OBJP), 4_000,
                np.random.default_rng(np.random.SeedSequence(2001)), confidence=CONFIDENCE)
    assert res.verdict == "not refuted", res.summary()


def test_objp_audit_refutes_the_noise_scaled_by_n_mutant():
    # true ε ≈ 294 (correct algorithm: 0.63): the two output distributions are Gaussians 2L/(σ/n) ≈ 17
    # standard deviations apart, so a threshold between them separates all 2,000 test runs per side and
    # ε_lb ≈ log(1/Q_hi) with Q_hi the Clopper–Pearson bound for 0/2000 at 5e-7: ≈ log(2000/14.5) ≈ 4.9.
    res = audit(ObjPMechanism(objp_noise_scaled_by_n), objp_data(+1), objp_data(-1), (EPS, DELTA_OBJP), 4_000,
                np.random.default_rng(np.random.SeedSequence(2002)), confidence=CONFIDENCE)
    assert res.verdict == "refuted", res.summary()
    assert res.epsilon_lower > 3 * EPS
