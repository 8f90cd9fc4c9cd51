"""Menart et al. (2023), arXiv:2311.13447 v2: after the up-front checks, every muabg23 algorithm returns a finite
release and never raises, whatever its per-sample gradients do (ERRATA.md, MU section; CHANGELOG.md).

A per-sample gradient that overflows to ±inf, that is NaN (a user oracle at an admissible point), or whose norm
overflows although its entries are finite (entries ≈ 1e300) goes through the reference clipping
(``dpsco.reference.clipping``: inf rows to C times the unit vector of their infinite entries' signs, NaN rows to
0, large finite rows scaled without overflow) and the last fail-safe ``enforce_norm_bound``.  So a record whose
gradient is +inf·e₁ gives, with the same seed, exactly the release of a record whose gradient is the clipped
value C·e₁, and a NaN record exactly that of a zero-gradient record: the sensitivity bound holds and nothing
non-finite reaches a release.  Before this change these runs returned NaN or raised mid-run (FilterOverflow in
Algorithm 3).  All assertions are deterministic (the same seed on both datasets; bitwise equality).
"""

from __future__ import annotations

import numpy as np
import pytest

from dpsco.reference.muabg23.algorithms_adaptive import adaptive_gd, adaptive_gd_em
from dpsco.reference.muabg23.algorithms_proximal import noisy_regularised_gd, proximal_point
from dpsco.reference.muabg23.algorithms_spider import kl_spider

BIG = 1e300


class ProductLoss:
    """Records (v, a, b) ∈ R^{d+2}: per-sample gradient a·v + b·v (w-independent).  (v = BIG·e₁, a = BIG, b = 0)
    overflows to +inf·e₁; (v = BIG·e₁, a = BIG, b = −BIG) is inf − inf = NaN; (v = BIG·e₁, a = 1, b = 0) is finite
    with an overflowing norm."""

    def __init__(self, d: int) -> None:
        self.d = d

    def dimension(self, p: int) -> int:
        return p - 2

    def grads(self, w: np.ndarray, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        v = X[:, :self.d]
        return X[:, self.d:self.d + 1] * v + X[:, self.d + 1:self.d + 2] * v


def _records(n: int, d: int, first: list[float]) -> np.ndarray:
    X = np.zeros((n, d + 2))
    X[:, 0], X[:, d] = 0.5, 1.0                      # gradient 0.5·e₁ for every other record
    X[0] = first
    return X


E1_C = [1.0, 0.0, 1.0, 0.0]                         # gradient exactly 1·e₁ = the clipped value at C = L₀ = 1
CASES = {"inf": [BIG, 0.0, BIG, 0.0], "nan": [BIG, 0.0, BIG, -BIG], "large": [BIG, 0.0, 1.0, 0.0]}
EQUIVALENT = {"inf": E1_C, "nan": [0.0, 0.0, 0.0, 0.0], "large": E1_C}


@pytest.mark.parametrize("case", sorted(CASES))
def test_kl_spider_non_finite_gradient_is_its_clipped_value(case):
    loss = ProductLoss(2)
    P = dict(rho=0.25, beta=0.1, F0=0.5, gamma=1.0, kappa=1.5, L0=1.0, L1=1e-3)
    a = kl_spider(_records(16, 2, CASES[case]), loss, rng=np.random.default_rng(1), white_box=True, **P)
    b = kl_spider(_records(16, 2, EQUIVALENT[case]), loss, rng=np.random.default_rng(1), white_box=True, **P)
    assert np.all(np.isfinite(a.output)) and np.all(np.isfinite(a.white_box.noisy_gradients))
    assert np.array_equal(a.output, b.output) and np.array_equal(a.trajectory, b.trajectory)
    c = kl_spider(_records(16, 2, CASES[case]), loss, rng=np.random.default_rng(1), clip=False, **P)
    assert np.array_equal(c.output, a.output)       # clip=False: the fail-safe clips at the same bound


def _oracle(first: list[float], n: int = 8):
    G = np.zeros((n, 2))
    G[:, 0] = 0.5
    v = np.array(first[:2])
    with np.errstate(all="ignore"):
        G[0] = first[2] * v + first[3] * v
    return lambda w: G.copy()


@pytest.mark.parametrize("algorithm", [adaptive_gd, adaptive_gd_em])
@pytest.mark.parametrize("case", sorted(CASES))
def test_adaptive_non_finite_gradient_is_its_clipped_value(algorithm, case):
    # a user oracle returning inf / NaN / an overflowing-norm row at an admissible point: before, the NaN mean
    # made the charged cost NaN and the filter raised FilterOverflow mid-run
    kw = dict(rho=0.5, beta=0.1, L0=1.0, L1=1.0)
    a = algorithm(_oracle(CASES[case]), np.zeros(2), rng=np.random.default_rng(2), white_box=True, **kw)
    b = algorithm(_oracle(EQUIVALENT[case]), np.zeros(2), rng=np.random.default_rng(2), white_box=True, **kw)
    assert np.all(np.isfinite(a.output)) and np.all(np.isfinite(a.trajectory))
    assert np.all(np.isfinite(a.white_box["N"])) and np.all(np.isfinite(a.white_box["noisy_gradients"]))
    assert np.array_equal(a.output, b.output) and np.array_equal(a.trajectory, b.trajectory)
    c = algorithm(_oracle(CASES[case]), np.zeros(2), rng=np.random.default_rng(2), clip=False, **kw)
    assert np.array_equal(c.output, a.output)


def _subgradient(first: list[float]):
    def sub(W: np.ndarray, X: np.ndarray) -> np.ndarray:
        G = np.zeros((np.shape(W)[0], X.shape[0], 2))
        G[:, :, 0] = 0.5
        v = np.array(first[:2])
        with np.errstate(all="ignore"):
            G[:, 0] = first[2] * v + first[3] * v
        return G
    return sub


@pytest.mark.parametrize("case", sorted(CASES))
def test_noisy_gd_and_proximal_point_non_finite_subgradient_is_its_clipped_value(case):
    # before: a row of norm inf was scaled by bound/inf = 0 — NaN for an inf row (inf·0), and a finite row of
    # overflowing norm became 0 instead of its clipped value
    X = np.zeros((8, 2))
    for run in (lambda sub, rng: noisy_regularised_gd(X, sub, np.zeros(2), 0.05, 0.1, 1.0, 1.0, rng),
                lambda sub, rng: proximal_point(X, sub, np.zeros(2), 0.05, 0.1, 1.0, 1.0, 1.0, 1.0, 2.0, rng)):
        a = run(_subgradient(CASES[case]), np.random.default_rng(3))
        b = run(_subgradient(EQUIVALENT[case]), np.random.default_rng(3))
        assert np.all(np.isfinite(a.output)) and np.array_equal(a.output, b.output)


def test_kl_spider_refuses_non_finite_records_before_any_noise():
    loss = ProductLoss(2)
    X = _records(16, 2, [np.inf, 0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="X"):
        kl_spider(X, loss, 0.25, 0.1, 0.5, 1.0, 1.5, 1.0, 1e-3, np.random.default_rng(0))
