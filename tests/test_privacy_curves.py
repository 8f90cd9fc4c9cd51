"""Tests of dpsco.oracles.privacy_curves and dpsco.oracles.mechanism_curves: exact privacy curves of noise
mechanisms.

Everything here is deterministic (no sampling), so there is no false-failure probability to budget; golden
values come from docs/derivations.md (cited), from hand derivations in the test, or from an independent
computation (mpmath at 30 or 50 digits, scipy quad, dp_accounting).
"""

from __future__ import annotations

import math

import dp_accounting as dpa
import mpmath
import numpy as np
import pytest
from dp_accounting import dp_event
from dp_accounting.privacy_accountant import NeighboringRelation
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.integrate import quad
from scipy.stats import norm

from dpsco.oracles.privacy_curves import (
    gaussian_delta,
    gaussian_epsilon,
    gaussian_sigma,
    gdp_epsilon_to_delta,
    gdp_mu_to_epsilon,
    laplace_delta,
    laplace_epsilon,
    mixture_gaussian_delta,
    mixture_gaussian_delta_max,
    nsgd_one_step_canary_delta,
    nsgd_one_step_canary_epsilon,
    randomized_response_epsilon,
    subsampled_gaussian_epsilon,
)


# ------------------------------------------------------------------------------------------------------
# Gaussian mechanism
# ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n, eps, delta, expected",
    [(10_000, 1.0, 1e-8, 0.7403), (1_000, 1.0, 1e-6, 0.7012), (2_000, 0.5, 2.5e-7, 0.3425)],
)
@pytest.mark.parametrize("L", [1.0, 3.0])
def test_objective_perturbation_linear_loss_golden(n: int, eps: float, delta: float, expected: float, L: float) -> None:
    # docs/derivations.md#objective-perturbation-with-a-linear-loss: ObjP with a linear loss is the Gaussian
    # mechanism with sensitivity 2L and σ² = 10 L² log(1/δ)/ε² (n does not enter); exact ε at the target δ
    # (30-digit mpmath: 0.740337, 0.701198, 0.342509), tolerance 1e-4.
    sigma = math.sqrt(10 * L**2 * math.log(1 / delta) / eps**2)
    got = gaussian_epsilon(delta, 2 * L, sigma)
    assert abs(got - expected) <= 1e-4
    assert gaussian_delta(got, 2 * L, sigma) <= delta  # conservative end of the bracket


def test_gaussian_delta_at_zero_is_total_variation() -> None:
    # Hand derivation: δ(0) = Φ(μ/2) − Φ(−μ/2) = 2Φ(μ/2) − 1 = TV(N(μ,1), N(0,1)).
    for mu in (0.1, 1.0, 4.0):
        assert gaussian_delta(0.0, mu, 1.0) == pytest.approx(2 * norm.cdf(mu / 2) - 1, rel=1e-13, abs=1e-16)


@pytest.mark.parametrize("eps, mu", [(0.5, 1.0), (3.0, 1.0), (30.0, 1.0), (30.0, 5.0), (200.0, 10.0), (1.0, 0.05)])
def test_gaussian_delta_matches_mpmath(eps: float, mu: float) -> None:
    # Independent computation of Balle–Wang's formula at 50 significant digits: checks the log-space
    # evaluation where the two terms cancel or underflow in double precision (δ down to ~1e-300).
    mpmath.mp.dps = 50
    a = mpmath.mpf(mu) / 2 - mpmath.mpf(eps) / mu
    b = -mpmath.mpf(mu) / 2 - mpmath.mpf(eps) / mu
    exact = mpmath.ncdf(a) - mpmath.exp(eps) * mpmath.ncdf(b)
    got = gaussian_delta(eps, mu, 1.0)
    assert got == pytest.approx(float(exact), rel=1e-9)
    assert got > 0


def test_gaussian_delta_vectorised_and_edge_cases() -> None:
    eps = np.array([[0.0, 0.5], [1.0, np.inf]])
    out = gaussian_delta(eps, 1.0, 1.0)
    assert isinstance(out, np.ndarray) and out.shape == (2, 2)
    assert out[1, 1] == 0.0
    assert out[0, 1] == pytest.approx(gaussian_delta(0.5, 1.0, 1.0))
    assert isinstance(gaussian_delta(0.5, 1.0, 1.0), float)
    assert gaussian_delta(2.0, 0.0, 1.0) == 0.0  # zero sensitivity: identical distributions
    assert gaussian_epsilon(1e-6, 0.0, 1.0) == 0.0
    assert gaussian_epsilon(0.0, 1.0, 1.0) == math.inf  # never (ε, 0)-DP


def test_gaussian_sigma_golden_and_conservative() -> None:
    # Analytic-GM calibration of (1, 1e-5) with sensitivity 1 is σ = 3.7306 (Balle & Wang 2018, Theorem 8,
    # solved independently in 30-digit mpmath: 3.730632).
    s = gaussian_sigma(1.0, 1e-5)
    assert abs(s - 3.7306) < 1e-4
    assert gaussian_delta(1.0, 1.0, s) <= 1e-5
    assert gaussian_delta(1.0, 1.0, s * (1 - 1e-9)) > 1e-5 * (1 - 1e-6)  # and it is (nearly) the smallest
    assert gaussian_sigma(1.0, 1e-5, sensitivity=2.0) == pytest.approx(2 * s, rel=1e-10)


@settings(max_examples=60, deadline=None)
@given(
    e1=st.floats(0, 20),
    e2=st.floats(0, 20),
    sens=st.floats(1e-3, 10),
    s1=st.floats(1e-2, 50),
    s2=st.floats(1e-2, 50),
)
def test_gaussian_delta_monotone(e1: float, e2: float, sens: float, s1: float, s2: float) -> None:
    # δ(ε) is nonincreasing in ε (H_γ decreases in γ) and in σ (post-processing: more noise).
    lo, hi = sorted((e1, e2))
    assert gaussian_delta(hi, sens, s1) <= gaussian_delta(lo, sens, s1) * (1 + 1e-12) + 1e-300
    small, big = sorted((s1, s2))
    assert gaussian_delta(lo, sens, big) <= gaussian_delta(lo, sens, small) * (1 + 1e-12) + 1e-300


@settings(max_examples=40, deadline=None)
@given(d=st.floats(1e-12, 0.5), mu=st.floats(1e-2, 20))
@example(d=1e-12, mu=18.558604932815914)  # a CI draw: exp(log δ) rounded one ulp above d
def test_gaussian_epsilon_round_trip(d: float, mu: float) -> None:
    e = gaussian_epsilon(d, mu, 1.0)
    assert gaussian_delta(e, mu, 1.0) <= d
    if e > 0:
        assert gaussian_delta(max(0.0, e - 1e-9 * max(1.0, e)), mu, 1.0) >= d * (1 - 1e-6)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_gaussian_agrees_with_dp_accounting_pld(sigma: float) -> None:
    # dp_accounting's PLD of the Gaussian mechanism (sensitivity 1) is a pessimistic discretisation:
    # exact <= PLD, and (measured) within 1e-12 absolute of the closed form.
    acc = dpa.pld.PLDAccountant()
    acc.compose(dp_event.GaussianDpEvent(sigma))
    for eps in (0.0, 0.5, 1.0, 3.0):
        exact = gaussian_delta(eps, 1.0, sigma)
        pld = acc.get_delta(eps)
        assert exact - 1e-15 <= pld <= exact + 1e-12
    assert acc.get_epsilon(1e-6) == pytest.approx(gaussian_epsilon(1e-6, 1.0, sigma), rel=1e-6, abs=1e-6)


def test_gdp_conversion_is_gaussian_with_unit_sigma() -> None:
    for mu in (0.5, 1.0, 2.0):
        assert gdp_epsilon_to_delta(1.0, mu) == pytest.approx(gaussian_delta(1.0, 3 * mu, 3.0), rel=1e-12)
        assert gdp_mu_to_epsilon(mu, 1e-5) == pytest.approx(gaussian_epsilon(1e-5, 7 * mu, 7.0), rel=1e-10)
    # Dong–Roth–Su Cor. 2.13 at μ = 1: δ(0) = 2Φ(1/2) − 1
    assert gdp_epsilon_to_delta(0.0, 1.0) == pytest.approx(2 * norm.cdf(0.5) - 1, rel=1e-13)


# ------------------------------------------------------------------------------------------------------
# Laplace and randomized response
# ------------------------------------------------------------------------------------------------------
def test_laplace_and_randomized_response() -> None:
    assert laplace_epsilon(2.0, 4.0) == 0.5
    assert randomized_response_epsilon(0.75) == pytest.approx(math.log(3.0), rel=1e-15)
    assert randomized_response_epsilon(0.25) == pytest.approx(math.log(3.0), rel=1e-15)
    assert randomized_response_epsilon(0.5) == 0.0
    for p in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="p"):
            randomized_response_epsilon(p)


@pytest.mark.parametrize("eps", [0.0, 0.3, 0.9, 1.0, 1.5])
def test_laplace_delta_matches_quadrature(eps: float) -> None:
    # Independent computation: ∫ (p − e^ε q)_+ for P = Lap(1, 1), Q = Lap(0, 1) by adaptive quadrature,
    # with the kinks of the integrand (0, 1 and the crossing (1 + ε)/2) as breakpoints.
    p = lambda x: 0.5 * math.exp(-abs(x - 1.0))  # noqa: E731
    q = lambda x: 0.5 * math.exp(-abs(x))  # noqa: E731
    val = quad(lambda x: max(0.0, p(x) - math.exp(eps) * q(x)), -40, 40, points=[0.0, (1 + eps) / 2, 1.0], limit=400, epsabs=1e-13)[0]
    assert laplace_delta(eps, 1.0, 1.0) == pytest.approx(val, abs=1e-10)


# ------------------------------------------------------------------------------------------------------
# Gaussian mixtures
# ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("a, b, sigma", [(1.0, 0.0, 1.0), (0.3, -0.2, 0.2), (-2.0, 3.0, 1.5)])
def test_mixture_single_component_is_gaussian(a: float, b: float, sigma: float) -> None:
    eps = np.array([0.0, 0.1, 1.0, 5.0])
    got = mixture_gaussian_delta(eps, [1.0], [a], [b], sigma)
    np.testing.assert_allclose(got, gaussian_delta(eps, abs(a - b), sigma), rtol=1e-10, atol=1e-300)


def _quad_hockey(w: list[float], a: list[float], b: list[float], sigma: float, eps: float) -> float:
    """Independent computation: adaptive quadrature of (p − e^ε q)_+ between its kinks.

    The kinks (zeros of p − e^ε q) are located by a dense sign scan (2·10⁵ points) and Brent's method, so
    quad only sees smooth pieces (without them it misses kinks at the 1e-6 level).
    """
    from scipy.optimize import brentq

    p = lambda x: sum(wk * norm.pdf(x, ak, sigma) for wk, ak in zip(w, a))  # noqa: E731
    q = lambda x: sum(wk * norm.pdf(x, bk, sigma) for wk, bk in zip(w, b))  # noqa: E731
    f = lambda x: p(x) - math.exp(eps) * q(x)  # noqa: E731
    lo, hi = min(a + b) - 15 * sigma, max(a + b) + 15 * sigma
    xs = np.linspace(lo, hi, 200_001)
    vals = sum(wk * norm.pdf(xs, ak, sigma) for wk, ak in zip(w, a)) - math.exp(eps) * sum(
        wk * norm.pdf(xs, bk, sigma) for wk, bk in zip(w, b)
    )
    idx = np.nonzero(np.sign(vals[1:]) * np.sign(vals[:-1]) < 0)[0]
    kinks = [brentq(f, xs[i], xs[i + 1], xtol=1e-15) for i in idx]
    edges = [lo, *kinks, hi]
    total = 0.0
    for l, u in zip(edges[:-1], edges[1:]):
        if f(0.5 * (l + u)) > 0:
            total += quad(f, l, u, epsabs=1e-14, epsrel=1e-12, limit=200)[0]
    return total


@pytest.mark.parametrize(
    "w, a, b, sigma",
    [
        ([0.5, 0.5], [1.0, -1.0], [0.0, 0.0], 1.0),  # V = 2 sign changes
        ([0.3, 0.4, 0.3], [-2.0, 0.0, 3.0], [1.0, -1.0, 0.5], 0.7),  # several crossings
        ([0.2, 0.8], [0.0, 0.0], [0.5, -0.5], 0.3),
    ],
)
@pytest.mark.parametrize("eps", [0.0, 0.2, 1.0])
def test_mixture_matches_quadrature(w: list[float], a: list[float], b: list[float], sigma: float, eps: float) -> None:
    got = mixture_gaussian_delta(eps, w, a, b, sigma)
    assert got == pytest.approx(_quad_hockey(w, a, b, sigma, eps), abs=1e-9)
    both = mixture_gaussian_delta_max(eps, w, a, b, sigma)
    assert both == pytest.approx(max(got, _quad_hockey(w, b, a, sigma, eps)), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(
    e1=st.floats(0, 3),
    e2=st.floats(0, 3),
    w0=st.floats(0.05, 0.95),
    shift=st.floats(0.05, 3),
)
def test_mixture_monotone_and_mirror_symmetric(e1: float, e2: float, w0: float, shift: float) -> None:
    w = [w0, 1 - w0]
    a, b = [0.0, shift], [0.0, -shift]
    lo, hi = sorted((e1, e2))
    assert mixture_gaussian_delta(hi, w, a, b, 1.0) <= mixture_gaussian_delta(lo, w, a, b, 1.0) + 1e-15
    # mirror image x -> -x swaps P and Q
    assert mixture_gaussian_delta(lo, w, a, b, 1.0) == pytest.approx(mixture_gaussian_delta(lo, w, b, a, 1.0), abs=1e-14)


def test_mixture_validation() -> None:
    with pytest.raises(ValueError, match="sum to 1"):
        mixture_gaussian_delta(0.1, [0.5, 0.4], [0, 1], [0, 0], 1.0)
    with pytest.raises(ValueError, match="means_p"):
        mixture_gaussian_delta(0.1, [0.5, 0.5], [0], [0, 0], 1.0)
    with pytest.raises(ValueError, match="sigma"):
        mixture_gaussian_delta(0.1, [1.0], [0], [1], 0.0)
    with pytest.raises(ValueError, match="epsilon"):
        mixture_gaussian_delta(-0.1, [1.0], [0], [1], 1.0)
    with pytest.raises(ValueError, match="weights"):
        mixture_gaussian_delta(0.1, [1.5, -0.5], [0, 1], [0, 0], 1.0)


# ------------------------------------------------------------------------------------------------------
# One step of with-replacement subsampled noisy SGD on the linear canary
# ------------------------------------------------------------------------------------------------------
def _canary_mpmath(eps: float, n: int, m: int, sigma: float) -> float:
    """Independent 50-digit computation: root of the (monotone) log-likelihood ratio, then CDF tails."""
    mpmath.mp.dps = 50
    ks = range(0, 40)
    p = [mpmath.binomial(m, k) * mpmath.mpf(1) / n**k * (1 - mpmath.mpf(1) / n) ** (m - k) for k in ks]
    mean = [mpmath.mpf(k) / m for k in ks]

    def f(x: mpmath.mpf) -> mpmath.mpf:
        num = mpmath.fsum(pk * mpmath.exp(-((x - mk) ** 2) / (2 * sigma**2)) for pk, mk in zip(p, mean))
        den = mpmath.fsum(pk * mpmath.exp(-((x + mk) ** 2) / (2 * sigma**2)) for pk, mk in zip(p, mean))
        return mpmath.log(num) - mpmath.log(den) - eps

    x0 = mpmath.findroot(f, (mpmath.mpf(-1), mpmath.mpf(2)), solver="anderson")
    sf = lambda z: mpmath.ncdf(-z)  # noqa: E731
    return float(
        mpmath.fsum(pk * sf((x0 - mk) / sigma) for pk, mk in zip(p, mean))
        - mpmath.exp(eps) * mpmath.fsum(pk * sf((x0 + mk) / sigma) for pk, mk in zip(p, mean))
    )


@pytest.mark.parametrize(
    "n, delta, reference_value",
    [(10_000, 1e-8, 3.2e-12), (2_000, 2.5e-7, 9.4e-11)],
)
def test_nsgd_one_step_canary_golden(n: int, delta: float, reference_value: float) -> None:
    # docs/derivations.md#accountants-for-the-printed-calibration-of-algorithm-1 (T = 1 rows): ε = 0.1, L = 1,
    # m = ceil(n sqrt(ε/(4T))), σ² = 8 T L² log(1/δ)/(n² ε²); exact δ(0.1) of the symmetric pair.
    eps, T = 0.1, 1
    m = math.ceil(n * math.sqrt(eps / (4 * T)))
    assert m == {10_000: 1582, 2_000: 317}[n]
    sigma = math.sqrt(8 * T * math.log(1 / delta) / (n**2 * eps**2))
    got = nsgd_one_step_canary_delta(eps, n, m, sigma, 1.0)
    # the reference values have two significant digits
    assert abs(got / reference_value - 1) < 0.02
    # independent 50-digit computation (binomial truncated at k < 40: tail < 1e-40 here)
    assert got == pytest.approx(_canary_mpmath(eps, n, m, sigma), rel=1e-6)
    assert got <= delta  # so Theorem 3.1's target (0.1, δ) holds exactly for T = 1
    e = nsgd_one_step_canary_epsilon(delta, n, m, sigma, 1.0)
    assert e < eps
    assert nsgd_one_step_canary_delta(e, n, m, sigma, 1.0) <= delta


def test_nsgd_canary_degenerate_cases_are_gaussian() -> None:
    # Hand derivation: with n = 1 the canary is drawn k = m times, so the mean gradient is ±L exactly and
    # the step is the Gaussian mechanism with sensitivity 2L.
    for m in (1, 3):
        for eps in (0.0, 0.5, 2.0):
            assert nsgd_one_step_canary_delta(eps, 1, m, 0.7, 1.5) == pytest.approx(
                gaussian_delta(eps, 3.0, 0.7), rel=1e-10
            )
    # null neighbour with n = 1: N(L, σ²) vs N(0, σ²): sensitivity L
    assert nsgd_one_step_canary_delta(0.5, 1, 2, 0.7, 1.5, neighbour="null") == pytest.approx(
        gaussian_delta(0.5, 1.5, 0.7), rel=1e-10
    )


def test_nsgd_canary_null_neighbour_is_weaker_than_symmetric() -> None:
    # The null pair is a "half" of the symmetric one: its δ is smaller at every ε.
    n, m, sigma = 1000, 50, 0.02
    for eps in (0.0, 0.1, 0.5):
        sym = nsgd_one_step_canary_delta(eps, n, m, sigma, 1.0)
        null = nsgd_one_step_canary_delta(eps, n, m, sigma, 1.0, neighbour="null")
        assert null <= sym


# ------------------------------------------------------------------------------------------------------
# Poisson-subsampled Gaussian via dp_accounting (the table of
# docs/derivations.md#accountants-for-the-printed-calibration-of-algorithm-1)
# ------------------------------------------------------------------------------------------------------
# (n, d, ε, δ, T, m, ratio add/remove (z), ratio replace-one as sensitivity 2L (z/2))
ACCOUNTANT_TABLE = [
    (1000, 10, 1.0, 1e-6, 125, 45, 0.428, 0.964),
    (10000, 10, 1.0, 1e-8, 1250, 142, 0.436, 0.934),
    (100000, 10, 1.0, 1e-10, 12500, 448, 0.444, 0.931),
    (10000, 10, 0.5, 1e-8, 1250, 100, 0.420, 0.884),
    (2000, 1000, 1.0, 2.5e-7, 8, 354, 0.477, 1.172),
    (10000, 20000, 1.0, 1e-8, 8, 1768, 0.492, 1.194),
    (10000, 1000, 0.1, 1e-8, 1, 1582, 0.562, 1.012),
]
INTEGER_ORDERS = list(range(2, 257))  # the table's accountant: integer orders 2..256, Balle et al. 2020 conversion


@pytest.mark.parametrize("row", ACCOUNTANT_TABLE, ids=lambda r: f"n{r[0]}-T{r[4]}")
def test_subsampled_gaussian_reproduces_the_accountant_table(row: tuple) -> None:
    n, d, eps, delta, T, m, r_ar, r_ro = row
    z = math.sqrt(2 * math.log(1 / delta) / eps)  # z = mσ/L with σ² = 8TL² log(1/δ)/(n²ε²), q²T = ε/4
    q = m / n
    got_ar = subsampled_gaussian_epsilon(z, q, T, delta, orders=INTEGER_ORDERS) / eps
    got_ro = subsampled_gaussian_epsilon(z, q, T, delta, neighbouring="replace-one", orders=INTEGER_ORDERS) / eps
    assert abs(got_ar - r_ar) <= 0.01
    assert abs(got_ro - r_ro) <= 0.01
    # More RDP orders can only lower the bound (min over a superset).
    assert subsampled_gaussian_epsilon(z, q, T, delta) <= got_ar * eps * (1 + 1e-12)


@pytest.mark.parametrize("row", [ACCOUNTANT_TABLE[0], ACCOUNTANT_TABLE[4], ACCOUNTANT_TABLE[6]],
                         ids=["T125", "T8", "T1"])
def test_replace_one_convention_is_conservative(row: tuple) -> None:
    # The documented replace-one convention (add/remove with z/2) must never be below dp_accounting's
    # native replace-one PLD of the Poisson-subsampled Gaussian (symmetric pair (1−q)N(0)+qN(±1)).
    n, d, eps, delta, T, m, *_ = row
    z = math.sqrt(2 * math.log(1 / delta) / eps)
    q = m / n
    native = dpa.pld.PLDAccountant(NeighboringRelation.REPLACE_ONE)
    native.compose(dp_event.SelfComposedDpEvent(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(z)), T))
    eps_native = native.get_epsilon(delta)
    eps_pld = subsampled_gaussian_epsilon(z, q, T, delta, neighbouring="replace-one", accountant="pld")
    eps_rdp = subsampled_gaussian_epsilon(z, q, T, delta, neighbouring="replace-one")
    assert eps_native <= eps_pld <= eps_rdp * (1 + 1e-9)


def test_pld_one_step_matches_exact_mixture() -> None:
    # T = 1: the add/remove Poisson-subsampled Gaussian is the pair ((1−q)N(0,z²) + qN(1,z²), N(0,z²));
    # its exact ε (our mixture oracle, max over both directions) must be <= the pessimistic PLD ε and close.
    z, q, delta = 1.2, 0.1, 1e-6
    w = [1 - q, q]
    exact_delta = lambda e: float(mixture_gaussian_delta_max(e, w, [0.0, 1.0], [0.0, 0.0], z))  # noqa: E731
    pld_eps = subsampled_gaussian_epsilon(z, q, 1, delta, accountant="pld")
    assert exact_delta(pld_eps) <= delta * (1 + 1e-6)
    assert exact_delta(pld_eps - 2e-3) > delta  # PLD discretisation 1e-4 costs < 2e-3 in ε here


@settings(max_examples=8, deadline=None)
@given(
    z=st.floats(0.6, 5.0),
    q=st.floats(0.001, 0.5),
    t1=st.integers(1, 200),
    t2=st.integers(1, 200),
)
def test_subsampled_gaussian_monotone(z: float, q: float, t1: int, t2: int) -> None:
    # Composition can only increase ε; more noise or less sampling can only decrease it.
    lo, hi = sorted((t1, t2))
    e_lo = subsampled_gaussian_epsilon(z, q, lo, 1e-6)
    assert e_lo <= subsampled_gaussian_epsilon(z, q, hi, 1e-6) * (1 + 1e-9) + 1e-12
    assert subsampled_gaussian_epsilon(1.5 * z, q, lo, 1e-6) <= e_lo * (1 + 1e-9) + 1e-12
    assert subsampled_gaussian_epsilon(z, q / 2, lo, 1e-6) <= e_lo * (1 + 1e-9) + 1e-12


def test_subsampled_gaussian_validation() -> None:
    with pytest.raises(ValueError, match="sampling_probability"):
        subsampled_gaussian_epsilon(1.0, 1.5, 10, 1e-5)
    with pytest.raises(ValueError, match="neighbouring"):
        subsampled_gaussian_epsilon(1.0, 0.1, 10, 1e-5, neighbouring="swap")
    with pytest.raises(ValueError, match="accountant"):
        subsampled_gaussian_epsilon(1.0, 0.1, 10, 1e-5, accountant="prv")
    with pytest.raises(ValueError, match="noise_multiplier"):
        subsampled_gaussian_epsilon(0.0, 0.1, 10, 1e-5)
    with pytest.raises(TypeError, match="steps"):
        subsampled_gaussian_epsilon(1.0, 0.1, 1.5, 1e-5)
    with pytest.raises(ValueError, match="delta"):
        subsampled_gaussian_epsilon(1.0, 0.1, 10, 1.0)
    assert subsampled_gaussian_epsilon(1.0, 0.1, 10, 0.0) == math.inf


def test_curve_input_validation() -> None:
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_delta(-1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_delta([0.1, float("nan")], 1.0, 1.0)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_delta(1.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="sensitivity"):
        gaussian_delta(1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="delta"):
        gaussian_epsilon(1.0, 1.0, 1.0)
    with pytest.raises(TypeError, match="delta"):
        gaussian_epsilon("0.1", 1.0, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="scale"):
        laplace_epsilon(1.0, 0.0)
    with pytest.raises(ValueError, match="neighbour"):
        nsgd_one_step_canary_delta(0.1, 10, 2, 1.0, 1.0, neighbour="other")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n must"):
        nsgd_one_step_canary_delta(0.1, 0, 2, 1.0, 1.0)
