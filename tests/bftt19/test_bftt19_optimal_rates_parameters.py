"""Golden values of every parameter formula of Bassily et al. (2019).

The golden numbers (L = M = 1) are the paper's formulas evaluated independently of this code, in 30-digit
arithmetic (mpmath), and printed here to 6–11 significant digits; where noted, hand derivations written here
or in docs/derivations.md.  Tolerance: half a unit of the last printed digit.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpsco.reference.bftt19 as o

CASES = [
    # n, d, eps, delta
    (10_000, 10, 1.0, 1e-8),
    (2_000, 1_000, 0.5, 2.5e-7),
    (1_000, 5, 1.0, 1e-6),
]


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def assert_printed(value: float, golden: str) -> None:
    """``value`` rounds to the printed ``golden`` string: |value − golden| ≤ half a unit of its last digit."""
    mantissa, _, exponent = golden.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    half_ulp = 0.5 * 10.0 ** (-decimals + (int(exponent) if exponent else 0))
    assert abs(value - float(golden)) <= half_ulp * (1 + 1e-9), (value, golden)


@pytest.mark.parametrize(
    "case, T, m, sigma2, eta",
    [
        (CASES[0], 1250, 142, "1.8420680744e-3", "0.0282842712"),
        (CASES[1], 2, 500, "2.4322887871e-4", "0.7071067812"),
        (CASES[2], 125, 45, "1.3815510558e-2", "0.0894427191"),
    ],
)
def test_theorem_3_2_parameters_golden(case, T, m, sigma2, eta):
    n, d, eps, delta = case
    p = o.theorem_3_2_parameters(n, d, eps, delta, 1.0, 1.0)
    assert p.T == T
    assert p.m == m
    assert_printed(p.sigma2_printed, sigma2)  # Algorithm 1, line 1 as printed
    # the noise used is the printed one wherever that is private, and never less (ERRATA.md BFTT19-E4)
    assert p.sigma2 >= p.sigma2_printed
    assert p.accountant_delta <= delta
    if p.printed_is_private:
        assert p.sigma2 == p.sigma2_printed
    assert_printed(p.eta, eta)
    # β_max with the integer T is 2/η (Lemma 3.4's condition η ≤ 2/β), by definition 2L√T/M
    # (docs/derivations.md#algorithm-1-parameter-identities)
    assert math.isclose(p.smoothness_max, 2 * math.sqrt(T), rel_tol=1e-12)


@pytest.mark.parametrize(
    "case, beta_real, bound",
    [(CASES[0], "70.710678", "0.1"), (CASES[1], "2.867526", "1.232956"), (CASES[2], "22.360680", "0.3162278")],
)
def test_theorem_3_2_bound_and_smoothness(case, beta_real, bound):
    n, d, eps, delta = case
    assert_printed(o.theorem_3_2_smoothness_max(n, d, eps, delta, 1.0, 1.0), beta_real)
    assert_printed(o.theorem_3_2_bound(n, d, eps, delta, 1.0, 1.0), bound)


@pytest.mark.parametrize(
    "case, printed, corrected",
    [(CASES[0], "0.0035355339", "0.0035383623"), (CASES[1], "0.0007071068", "0.0010606602"),
     (CASES[2], "0.0111803399", "0.0112697826")],
)
def test_lemma_3_4_golden(case, printed, corrected):
    n, d, eps, delta = case
    p = o.theorem_3_2_parameters(n, d, eps, delta, 1.0, 1.0)
    assert_printed(o.lemma_3_4_stability(1.0, p.eta, p.T, n, corrected=False), printed)
    assert_printed(o.lemma_3_4_stability(1.0, p.eta, p.T, n, corrected=True), corrected)


def test_lemma_3_3_golden():
    # Lemma 3.3's RHS = 0.0288052868 for n=1e4, d=10, eps=1, delta=1e-8, L=M=1 with Theorem 3.2's parameters
    n, d, eps, delta = CASES[0]
    p = o.theorem_3_2_parameters(n, d, eps, delta, 1.0, 1.0)
    assert_printed(o.lemma_3_3_bound(n, d, eps, delta, 1.0, 1.0, p.eta, p.T), "0.0288052868")


@pytest.mark.parametrize(
    "case, beta, gap, bound",
    [(CASES[0], "25", "0.02", "0.24"), (CASES[1], "1.013824", "0.4931824", "2.959094"),
     (CASES[2], "7.905694", "0.0632456", "0.7589466")],
)
def test_theorem_4_4_golden(case, beta, gap, bound):
    n, d, eps, delta = case
    b = o.theorem_4_4_beta(n, d, eps, delta, 1.0, 1.0)
    assert_printed(b, beta)
    assert_printed(1.0 / (2 * b), gap)  # L²/(2β)
    assert_printed(o.theorem_4_4_bound(n, d, eps, delta, 1.0, 1.0), bound)


@pytest.mark.parametrize(
    "case, lam, sigma2, cap, printed, corrected",
    [
        # 4·ML·√(·) = 2 × 0.02880057446 (not 2 × 0.0288006 = 0.0576012, which doubles a rounded value)
        # = 0.0576011489, which rounds to 0.0576011 at the printed precision.
        (CASES[0], "0.0288005745", "184.20680744", "288.005745", "0.0288006", "0.0576011"),
        (CASES[1], "0.4972211567", "608.07219676", "497.221157", "0.4972212", "0.9944423"),
        (CASES[2], "0.0954213857", "138.15510558", "95.421386", "0.0954214", "0.1908428"),
    ],
)
def test_objective_perturbation_golden(case, lam, sigma2, cap, printed, corrected):
    n, d, eps, delta = case
    lam_ = o.theorem_5_3_lambda(n, d, eps, delta, 1.0, 1.0)
    assert_printed(lam_, lam)
    assert_printed(o.algorithm_2_noise_variance(1.0, eps, delta), sigma2)
    assert_printed(eps * n * lam_, cap)
    assert_printed(o.theorem_5_3_bound(n, d, eps, delta, 1.0, 1.0, printed=True), printed)
    assert_printed(o.theorem_5_3_bound(n, d, eps, delta, 1.0, 1.0, printed=False), corrected)


def test_gradient_count_golden():
    # T·m gradient evaluations: n=1e4, d=10, eps=1, delta=1e-8 -> 1250*142 = 177,500; n=1000, d=5 -> 125*45 = 5625
    p = o.theorem_3_2_parameters(10_000, 10, 1.0, 1e-8, 1.0, 1.0)
    assert p.T * p.m == 177_500
    p = o.theorem_3_2_parameters(1_000, 5, 1.0, 1e-6, 1.0, 1.0)
    assert p.T * p.m == 5_625


def test_vacuous_regime_refused():
    # T_real = eps^2 n^2 / (32 d log(1/delta)) < 1  -> PaperRegimeError
    with pytest.raises(o.PaperRegimeError, match="T ="):
        o.theorem_3_2_parameters(100, 1000, 0.5, 1e-4, 1.0, 1.0)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(16, 10**7),
    d=st.integers(1, 10**4),
    eps=st.floats(0.01, 1.0),
    log_inv_delta_extra=st.floats(0.0, 30.0),
)
def test_algorithm_1_identities(n, d, eps, log_inv_delta_extra):
    """docs/derivations.md#algorithm-1-parameter-identities: q²T ≥ ε/4 with ⌈m⌉, z = mσ/L ≥ √(2 log(1/δ)/ε),
    β_max(T_real) = 2/η(T_real), and the Theorem 3.2 smoothness bound ≥ 2/η with the integer T (flooring T
    only lowers 2L√T/M)."""
    delta = math.exp(-(2 * math.log(n) + log_inv_delta_extra))  # delta <= 1/n^2
    T_real = o.theorem_3_2_T(n, d, eps, delta)
    if T_real < 1:
        return
    # the printed formulas (Algorithm 1, lines 1-2) with the integer T; the certified noise is never smaller
    # than the printed one (checked in test_theorem_3_2_parameters_golden and tests/bftt19/test_bftt19_accounting.py)
    T = math.floor(T_real)
    m = o.algorithm_1_batch_size(n, eps, T)[1]
    sigma2 = o.algorithm_1_noise_variance(T, n, eps, delta, 1.0)
    q = m / n
    assert q**2 * T >= eps / 4 * (1 - 1e-12) or m == n
    z = m * math.sqrt(sigma2)
    assert z >= math.sqrt(2 * math.log(1 / delta) / eps) * (1 - 1e-12) or m == n
    # β_max of Theorem 3.2 equals 2L√T_real/M exactly
    assert math.isclose(o.theorem_3_2_smoothness_max(n, d, eps, delta, 1.0, 1.0), 2 * math.sqrt(T_real), rel_tol=1e-9)
    assert 2.0 / (1.0 / math.sqrt(T)) <= 2 * math.sqrt(T_real) * (1 + 1e-12)  # 2/η with η = M/(L√T)
    # Theorem 5.3's exact privacy condition β ≤ εnλ equals (2L/M)√(2nε² + 4d log(1/δ)) (ERRATA.md BFTT19-E6)
    lam = o.theorem_5_3_lambda(n, d, eps, delta, 1.0, 1.0)
    assert math.isclose(eps * n * lam, 2 * math.sqrt(2 * n * eps**2 + 4 * d * math.log(1 / delta)), rel_tol=1e-9)
    # Lemma 5.4 at Theorem 5.3's λ is ≤ the corrected Theorem 5.3 bound minus the stability term
    assert o.lemma_5_4_bound(n, d, eps, delta, 1.0, 1.0, lam) <= o.theorem_5_3_bound(n, d, eps, delta, 1.0, 1.0) * (1 + 1e-12)


def test_theorem_5_3_printed_constant_is_the_lambda_M2_term_alone():
    """ERRATA BFTT19-E3: at the stated λ, the proof's term λM² alone equals the printed bound 2ML√(·), so the proof's
    final display A/λ + λM² (A = 4L²(2/n + 4d log(1/δ)/(ε²n²))) is 2× the printed bound."""
    for n, d, eps, delta in CASES:
        lam = o.theorem_5_3_lambda(n, d, eps, delta, 1.0, 1.0)
        printed = o.theorem_5_3_bound(n, d, eps, delta, 1.0, 1.0, printed=True)
        A = 4 * (2 / n + 4 * d * math.log(1 / delta) / (eps**2 * n**2))
        assert math.isclose(lam * 1.0**2, printed, rel_tol=1e-12)
        assert math.isclose(A / lam + lam, 2 * printed, rel_tol=1e-12)
        assert math.isclose(A / lam + lam, o.theorem_5_3_bound(n, d, eps, delta, 1.0, 1.0), rel_tol=1e-12)


def test_efficient_objp_budget_composes_within_target():
    # docs/derivations.md#reconstruction-of-efficient-objective-perturbation: the split gives at most
    # (eps, 0.71 delta) for eps <= 1
    for eps in (0.1, 0.5, 1.0):
        p = o.efficient_objp_parameters(10_000, 10, eps, 1e-8, 1.0, 1.0)
        assert math.isclose(p.epsilon_total, eps, rel_tol=1e-12)
        assert p.delta_total <= 0.71 * 1e-8
        # σ2 √d = M/√n (same derivation)
        assert math.isclose(p.sigma2 * math.sqrt(10), 1 / math.sqrt(10_000), rel_tol=1e-12)


def test_paper_regime_checks():
    with pytest.raises(o.PaperRegimeError, match="epsilon <= 1"):
        o.check_paper_regime(100, 1.5, 1e-5, "A_NSGD")
    with pytest.raises(o.PaperRegimeError, match="delta <= 1/n"):
        o.check_paper_regime(10_000, 1.0, 1e-5, "A_NSGD")
