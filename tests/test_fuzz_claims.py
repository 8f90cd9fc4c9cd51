"""Fuzzing: no input yields a release of Algorithm 1 (Bassily et al. 2019) whose claim is false.

For generated (n, d, ε, δ, T, calibration, variant), the released claim's δ must be at least the exact δ(ε) of the
noise actually used on the worst-case replace-one pair (ERRATA.md E4).  At T = 1 the exact curve comes from
the quadrature oracle (``dpsco.oracles.privacy_curves``), which shares no code with the calibration; at T ≥ 2 from
the PLD accountant, itself checked against quadrature in tests/test_accounting.py.  Deterministic.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpsco.oracles.privacy_curves import nsgd_worst_pair_delta_quadrature
from dpsco.reference import Ball, DataBounds, ERMProblem
import dpsco.reference.bftt19 as o
from dpsco.reference.accounting import nsgd_worst_pair_delta
from dpsco.reference.losses import HingeLoss, LogisticLoss


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(16, 400),
    d=st.integers(1, 4),
    eps=st.floats(0.2, 1.0),
    delta_factor=st.floats(1e-3, 1.0),
    T=st.integers(1, 3),
    calibration=st.sampled_from(["certified", "printed"]),
    variant=st.sampled_from(["nsgd", "moreau", "prox"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_no_release_of_algorithm_1_claims_a_false_delta(n, d, eps, delta_factor, T, calibration, variant, seed):
    delta = delta_factor / n**2
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(rng.uniform(size=n) < 0.5, -1.0, 1.0)
    if variant == "nsgd":
        prob = ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(1.0, 1.0))
        r = o.noisy_sgd(X, y, prob, eps, delta, rng, T=T, calibration=calibration)
    elif variant == "moreau":
        prob = ERMProblem(HingeLoss(), Ball(1.0), DataBounds(1.0, 1.0))
        r = o.moreau_noisy_sgd(X, y, prob, eps, delta, rng, T=T, calibration=calibration)
    else:
        prob = ERMProblem(HingeLoss(), Ball(1.0), DataBounds(1.0, 1.0))
        r = o.prox_noisy_sgd(X, y, prob, eps, delta, rng, T=T, calibration=calibration, accuracy=0.5)
    p = r.parameters
    c = r.claim
    assert c.epsilon == eps and c.neighbouring == "replace-one"
    sigma, L_noise = math.sqrt(p["sigma2"]), p["lipschitz"]
    if T == 1:
        true_delta = nsgd_worst_pair_delta_quadrature(eps, n, p["m"], sigma, L_noise, 1)
    else:
        true_delta = nsgd_worst_pair_delta(eps, n, p["m"], sigma, L_noise, T)
    assert true_delta <= c.delta * (1 + 1e-9), (true_delta, c.delta)
    if calibration == "certified":
        assert c.delta == delta  # the requested guarantee, achieved
    else:
        assert p["sigma2"] == p["sigma2_printed"]  # the paper's noise, with an honest δ
