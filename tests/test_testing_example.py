"""Example: dpsco's assertions in your own test suite (docs/testing.md includes this file verbatim).

Every stochastic assertion states its false-failure probability: the probability that it fails although the
code under test is correct.  For the dpsco assertions it is 1 − confidence, by the validity of the audit or test
each one wraps (docs/testing.md).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from dpsco import Ball, DataBounds, ERMProblem, LogisticLoss, PrivacyClaim, lr21
from dpsco.adapters import NoisyGradientTranscript, add_remove_neighbours
from dpsco.reference.bftt19.accounting import nsgd_worst_pair_epsilon
from dpsco.reference.conversions import gdp_epsilon
from dpsco.testing import assert_claim_covers, assert_private, assert_transcript_private

CONFIDENCE = 1 - 1e-7  # each assertion below fails a correct implementation with probability <= 1e-7


# -- 1. a black-box mechanism f(data, rng) -> array, audited in every notion its claim states -----------------
NOISE = 2.0  # the Gaussian sum below is (1/NOISE)-GDP under add/remove (sensitivity 1)


def noisy_sum(data, rng):
    """The sum of the records clipped to [-1, 1], plus N(0, NOISE²); all randomness from rng."""
    return np.array([np.clip(data["x"], -1.0, 1.0).sum() + rng.normal(0.0, NOISE)])


# optional: n independent runs at once (the auditor checks it against single runs before using it)
noisy_sum.sample = lambda data, n, rng: (np.clip(data["x"], -1.0, 1.0).sum()
                                         + rng.normal(0.0, NOISE, size=(n, 1)))


def test_noisy_sum_is_private_under_add_remove():
    mu, delta = 1.0 / NOISE, 1e-5
    claim = PrivacyClaim(notion="GDP", mu=mu, epsilon=gdp_epsilon(mu, delta), delta=delta,
                         neighbouring="add/remove", source="Gaussian mechanism, sensitivity 1")
    # the pair: 20 records at 0, and the same with one extreme record (x = 1) added
    dataset, neighbour = add_remove_neighbours({"x": np.zeros(20)}, {"x": 1.0})
    # two notions (mu and (eps, delta)), each audited at 1 - 5e-8: false failure <= 1e-7 in all
    assert_private(noisy_sum, neighbour, dataset, claim, samples=20_000, confidence=CONFIDENCE, seed=1)


# -- 2. a tiny hand-written DP-SGD that returns its transcript: the white-box hook ----------------------------
N, M, T, C, SIGMA, ETA, RADIUS = 10, 4, 5, 1.0, 2.0, 0.5, 1.0
DELTA = 1e-5
# its claim: T steps of m with-replacement draws, noise SIGMA on the batch mean (the accountant of A_NSGD,
# Bassily et al. 2019, Algorithm 1, which is this step)
EPSILON = nsgd_worst_pair_epsilon(DELTA, N, M, SIGMA, C, T)


def clipped_logistic_gradients(W, X, y):
    """Row i: the logistic-loss gradient of record (X[i], y[i]) at W[i], clipped to norm <= C."""
    G = (-y * expit(-y * np.einsum("kd,kd->k", W, X)))[:, None] * X
    norms = np.linalg.norm(G, axis=1, keepdims=True)
    return G * np.minimum(1.0, C / np.maximum(norms, 1e-300))


def dp_sgd(data, rng):
    X, y = data["X"], data["y"]
    w = np.zeros(X.shape[1])
    iterates, noisy, batches = [w], [], []
    for _ in range(T):
        batch = rng.integers(0, len(y), size=M)  # m indices drawn with replacement
        g = clipped_logistic_gradients(np.tile(w, (M, 1)), X[batch], y[batch]).mean(axis=0)
        g = g + rng.normal(0.0, SIGMA, size=g.shape)
        w = w - ETA * g
        w = w * min(1.0, RADIUS / max(np.linalg.norm(w), 1e-300))  # projection onto the ball
        iterates.append(w)
        noisy.append(g)
        batches.append(batch)
    return NoisyGradientTranscript(iterates=np.array(iterates), noisy_gradients=np.array(noisy),
                                   batches=np.array(batches), sigma=SIGMA, clip_norm=C,
                                   gradient=clipped_logistic_gradients, eta=ETA, algorithm="tiny DP-SGD")


def test_dp_sgd_transcript_is_private():
    # the canary pair: N copies of record, against the same with the last replaced by replacement;
    # white-box audit at 1 - 5e-8 and measured noise at 1 - 5e-8: false failure <= 1e-7
    assert_transcript_private(dp_sgd, (EPSILON, DELTA), n=N, record=(np.array([1.0, 0.0]), 1.0),
                              replacement=(np.array([-1.0, 0.0]), 1.0), samples=1000,
                              confidence=CONFIDENCE, seed=2, pilot_runs=200)


# -- 3. a release publishes only what its claim covers (deterministic) ----------------------------------------
def test_output_perturbation_release_publishes_only_its_claim():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 2)) / 2.0
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.sign(rng.normal(size=50))
    X2, y2 = X.copy(), y.copy()
    X2[-1], y2[-1] = [-1.0, 0.0], -y[-1]  # a neighbour: the last record replaced by an extreme one
    problem = ERMProblem(LogisticLoss(), Ball(1.0), DataBounds(x_max=1.0, y_max=1.0))
    # Lowy & Razaviyayn 2021, Algorithm 1 (output perturbation), at the same public inputs and seed
    release = lr21.algorithm_1(X, y, problem, 1.0, 1e-5, np.random.default_rng(4), mu=0.1)
    neighbour_release = lr21.algorithm_1(X2, y2, problem, 1.0, 1e-5, np.random.default_rng(4), mu=0.1)
    assert_claim_covers(release, neighbour_release=neighbour_release)
