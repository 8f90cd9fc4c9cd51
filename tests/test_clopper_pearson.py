"""Clopper–Pearson bounds for n up to 1e12, and the planning figures built on them.

Deterministic (no sampling), so no false-failure budget.  The defining property of the bounds is checked
against binomial tails evaluated independently of the implementation's root-finding:

* exactly, with mpmath (finite sums of the binomial pmf, or quadrature of the beta density), for fixed cases;
* with scipy.special.betainc/betaincc (the forward function), for hypothesis-drawn (k, n, α), together with
  two approximations whose error is bounded rigorously: Poisson (Barbour–Hall: the total-variation
  distance between Bin(n, p) and Poisson(np) is at most p) and normal (Berry–Esseen with C = 0.4748).

"The root within one double": the lower bound p satisfies P(Bin(n, p) >= k) <= α and
P(Bin(n, p⁺) >= k) >= α, p⁺ the next double above p; the upper bound q satisfies P(Bin(n, q) <= k) <= α and
P(Bin(n, q⁻) <= k) >= α — each up to a relative TOL of the tail, which covers the 1e-9 to which the
implementation accepts scipy's inverse and the evaluation error of the tails.
"""

from __future__ import annotations

import argparse
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betainc, betaincc, gammainc, gammaincc, ndtr
from scipy.stats import beta as beta_dist

from dpsco.verification.auditing.audit import CLOPPER_PEARSON_MAX_N, clopper_pearson_lower, clopper_pearson_upper
from dpsco.verification.cli.plan import configure_parser
from dpsco.verification.auditing.planning import expected_epsilon_lower_bound, samples_needed

TOL = 2e-9
BERRY_ESSEEN_C = 0.4748  # Shevtsova (2011), i.i.d. summands


# ------------------------------------------------------------------------------------------------------
# independent tails
# ------------------------------------------------------------------------------------------------------
def _mp_tail_ge(k: int, n: int, p: float) -> mp.mpf:
    """P(Bin(n, p) >= k), exactly (mpmath, 50 digits): a finite pmf sum when min(k, n − k) <= 3000, else
    quadrature of the beta density (P(Bin(n, p) >= k) = I_p(k, n − k + 1))."""
    with mp.workdps(50):
        pm = mp.mpf(p)
        if k == 0:
            return mp.mpf(1)
        if k <= 3000:  # 1 − Σ_{j<k} pmf(j)
            term = mp.power(1 - pm, n)
            s = term
            for j in range(k - 1):
                term *= mp.mpf(n - j) / (j + 1) * pm / (1 - pm)
                s += term
            return 1 - s
        if n - k <= 3000:  # Σ_{j>=k} pmf(j), from j = n down
            term = mp.power(pm, n)
            s = term
            for j in range(n, k, -1):  # pmf(j − 1) = pmf(j) · j/(n − j + 1) · (1 − p)/p
                term *= mp.mpf(j) / (n - j + 1) * (1 - pm) / pm
                s += term
            return s
        a, b = mp.mpf(k), mp.mpf(n - k + 1)
        log_b = mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)
        sd = mp.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        lo = max(mp.mpf(0), pm - 80 * sd)
        pts = [lo] + [pm - j * sd for j in (40, 20, 10, 5, 2, 1, 0.5) if pm - j * sd > lo] + [pm]
        return mp.quad(lambda t: mp.exp((a - 1) * mp.log(t) + (b - 1) * mp.log1p(-t) - log_b), pts)


def _mp_tail_le(k: int, n: int, q: float) -> mp.mpf:
    """P(Bin(n, q) <= k) = P(Bin(n, 1 − q) >= n − k), exactly."""
    with mp.workdps(50):
        if k == n:
            return mp.mpf(1)
        if k + 1 <= 3000 or n - k - 1 <= 3000:
            return 1 - _mp_tail_ge(k + 1, n, q)
        return _mp_tail_ge(n - k, n, 1 - mp.mpf(q))  # quadrature on the mirrored law (1 − q in mpmath)


def _next_up(x: float) -> float:
    return float(np.nextafter(x, 2.0))


def _next_down(x: float) -> float:
    return float(np.nextafter(x, -1.0))


# ------------------------------------------------------------------------------------------------------
# regression: scipy's beta quantile is wrong by about 2x at a = 1000 for large b
# ------------------------------------------------------------------------------------------------------
def test_old_quantile_was_wrong_and_new_bound_is_exact() -> None:
    n, k, a = 10**9, 1000, 0.025
    old = float(beta_dist.ppf(a, k, n - k + 1))  # what clopper_pearson_lower used to return
    new = clopper_pearson_lower(k, n, a)
    # Exact tails: at the old value the bound is certain (tail 1, not α); at the new one it is α.
    assert float(_mp_tail_ge(k, n, old)) > 0.999
    assert float(_mp_tail_ge(k, n, new)) == pytest.approx(a, rel=TOL)
    assert new == pytest.approx(9.3897304659e-07, rel=1e-9)  # Poisson limit gammaincinv(1000, α)/n ≈ 9.38973e-7
    # the upper bound's quantile had the same defect at k + 1 = 1000, already for n = 1e7
    q = clopper_pearson_upper(999, 10**7, 0.005)
    assert float(_mp_tail_le(999, 10**7, q)) == pytest.approx(0.005, rel=TOL)


# ------------------------------------------------------------------------------------------------------
# exact (mpmath) checks at fixed cases, up to n = 1e12
# ------------------------------------------------------------------------------------------------------
EXACT_CASES = [
    (1, 10**12, 0.025), (10, 10**12, 0.025), (1000, 10**12, 0.025), (1000, 10**9, 1e-6),
    (999, 10**10, 0.3), (2500, 10**12, 0.9), (10**6, 10**12, 0.025), (5 * 10**8, 10**9, 0.025),
    (5 * 10**11, 10**12, 0.005), (10**12 - 5, 10**12, 0.025), (10**12 - 1, 10**12, 0.7),
    (10**12, 10**12, 0.025), (0, 10**12, 0.025), (17, 40, 0.025), (123_456, 10**11, 1e-4),
]


@pytest.mark.parametrize("k,n,alpha", EXACT_CASES)
def test_bounds_solve_the_exact_binomial_tail(k: int, n: int, alpha: float) -> None:
    if k > 0:
        p = clopper_pearson_lower(k, n, alpha)
        assert 0.0 < p < 1.0 or (k == n and p <= 1.0)
        assert float(_mp_tail_ge(k, n, p)) <= alpha * (1 + TOL)
        assert float(_mp_tail_ge(k, n, _next_up(p))) >= alpha * (1 - TOL)
    else:
        assert clopper_pearson_lower(k, n, alpha) == 0.0
    if k < n:
        q = clopper_pearson_upper(k, n, alpha)
        assert 0.0 < q <= 1.0
        assert float(_mp_tail_le(k, n, q)) <= alpha * (1 + TOL)
        assert float(_mp_tail_le(k, n, _next_down(q))) >= alpha * (1 - TOL)
    else:
        assert clopper_pearson_upper(k, n, alpha) == 1.0


# ------------------------------------------------------------------------------------------------------
# property tests up to n = 1e12
# ------------------------------------------------------------------------------------------------------
@st.composite
def _counts(draw: st.DrawFn) -> tuple[int, int]:
    n = min(CLOPPER_PEARSON_MAX_N, max(1, int(round(10 ** draw(st.floats(0.0, 12.0))))))
    kind = draw(st.sampled_from(["small", "fraction", "near-n"]))
    if kind == "small":
        k = min(n, draw(st.integers(0, 5000)))
    elif kind == "near-n":
        k = max(0, n - draw(st.integers(0, 5000)))
    else:
        k = min(n, int(draw(st.floats(0.0, 1.0)) * n))
    return k, n


_alphas = st.one_of(st.floats(1e-10, 0.5), st.floats(0.5, 1.0 - 1e-6), st.sampled_from([0.025, 0.005, 0.05]))


def _check_root(tail_at_x: float, comp_at_x: float, tail_at_nb: float, comp_at_nb: float, alpha: float) -> None:
    """tail(x) <= α <= tail(neighbour), to a relative TOL of min(α, 1 − α) (compared on that side)."""
    if alpha <= 0.5:
        assert tail_at_x <= alpha * (1 + TOL), (tail_at_x, alpha)
        assert tail_at_nb >= alpha * (1 - TOL), (tail_at_nb, alpha)
    else:
        assert comp_at_x >= (1 - alpha) * (1 - TOL), (comp_at_x, alpha)
        assert comp_at_nb <= (1 - alpha) * (1 + TOL), (comp_at_nb, alpha)


@settings(max_examples=300, deadline=None)
@given(kn=_counts(), alpha=_alphas)
def test_lower_bound_property(kn: tuple[int, int], alpha: float) -> None:
    k, n = kn
    p = clopper_pearson_lower(k, n, alpha)
    if k == 0:
        assert p == 0.0
        return
    assert 0.0 < p <= 1.0
    # forward function: P(Bin(n, p) >= k) = I_p(k, n − k + 1), complement 1 − I_p
    up = _next_up(p)
    _check_root(betainc(k, n - k + 1, p), betaincc(k, n - k + 1, p),
                betainc(k, n - k + 1, up), betaincc(k, n - k + 1, up), alpha)
    # Poisson: P(Poisson(np) >= k) = gammainc(k, np); |binomial tail − Poisson tail| <= p (Barbour–Hall)
    assert abs(gammainc(k, n * p) - alpha) <= p + TOL * alpha + 1e-12
    # Berry–Esseen at x = k − 1/2: |P(X <= k − 1) − Φ((k − 1/2 − np)/σ)| <= C (p² + q²)/√(npq)
    if 0.0 < p < 1.0:
        s = math.sqrt(n * p * (1 - p))
        bound = BERRY_ESSEEN_C * (p * p + (1 - p) ** 2) / s
        assert abs(ndtr((n * p - (k - 0.5)) / s) - alpha) <= bound + 1e-9
    # monotone in k
    if k < n:
        assert clopper_pearson_lower(k + 1, n, alpha) >= p


@settings(max_examples=300, deadline=None)
@given(kn=_counts(), alpha=_alphas)
def test_upper_bound_property(kn: tuple[int, int], alpha: float) -> None:
    k, n = kn
    q = clopper_pearson_upper(k, n, alpha)
    if k == n:
        assert q == 1.0
        return
    assert 0.0 < q <= 1.0
    # P(Bin(n, q) <= k) = 1 − I_q(k + 1, n − k) = betaincc; its complement is betainc
    dn = _next_down(q)
    _check_root(betaincc(k + 1, n - k, q), betainc(k + 1, n - k, q),
                betaincc(k + 1, n - k, dn), betainc(k + 1, n - k, dn), alpha)
    # Poisson: P(Poisson(nq) <= k) = gammaincc(k + 1, nq), within q of the binomial tail
    assert abs(gammaincc(k + 1, n * q) - alpha) <= q + TOL * alpha + 1e-12
    if 0.0 < q < 1.0:
        s = math.sqrt(n * q * (1 - q))
        bound = BERRY_ESSEEN_C * (q * q + (1 - q) ** 2) / s
        assert abs(ndtr((k + 0.5 - n * q) / s) - alpha) <= bound + 1e-9
    if k > 0:
        assert clopper_pearson_upper(k - 1, n, alpha) <= q


@settings(max_examples=200, deadline=None)
@given(kn=_counts(), a1=_alphas, a2=_alphas)
def test_monotone_in_alpha_and_ordered(kn: tuple[int, int], a1: float, a2: float) -> None:
    # A larger α gives a tighter interval: the lower bound rises and the upper bound falls.  The slack of a
    # relative 1e-8 in the bound covers the 1e-9 tail tolerance at which scipy's inverse is accepted (a
    # deterministic numerical tolerance, not a probability).
    k, n = kn
    lo_a, hi_a = sorted((a1, a2))
    assert clopper_pearson_lower(k, n, lo_a) <= clopper_pearson_lower(k, n, hi_a) * (1 + 1e-8)
    assert clopper_pearson_upper(k, n, lo_a) * (1 + 1e-8) >= clopper_pearson_upper(k, n, hi_a)
    if lo_a <= 0.5:  # a one-sided level <= 1/2 on each side: the interval is not inverted
        assert clopper_pearson_lower(k, n, lo_a) <= clopper_pearson_upper(k, n, lo_a)
        assert clopper_pearson_lower(k, n, lo_a) <= k / n <= clopper_pearson_upper(k, n, lo_a)


def test_vectorised_equals_scalar_and_range_is_enforced() -> None:
    n = 10**12
    ks = np.array([0, 1, 10, 999, 1000, 1001, 10**6, n // 2, n - 1, n])
    lo, hi = clopper_pearson_lower(ks, n, 0.025), clopper_pearson_upper(ks, n, 0.025)
    assert list(lo) == [clopper_pearson_lower(int(k), n, 0.025) for k in ks]
    assert list(hi) == [clopper_pearson_upper(int(k), n, 0.025) for k in ks]
    assert np.all(np.diff(lo) > 0) and np.all(np.diff(hi) > 0)
    for f in (clopper_pearson_lower, clopper_pearson_upper):
        with pytest.raises(ValueError, match="validated range"):
            f(5, CLOPPER_PEARSON_MAX_N + 1, 0.025)


# ------------------------------------------------------------------------------------------------------
# planning with tiny ε (reported: n_test = 5.6e9 with "expected ε_lb 0.9459" for ε = 1e-6)
# ------------------------------------------------------------------------------------------------------
def test_expected_bound_never_exceeds_a_tiny_epsilon() -> None:
    assert expected_epsilon_lower_bound("laplace", 1e-6, 0.0, 5_623_051_170) <= 1e-6  # was 0.9459
    vals = [expected_epsilon_lower_bound("laplace", 1e-2, 0.0, n) for n in (10**6, 10**8, 10**10)]
    assert 0.0 < vals[0] < vals[1] < vals[2] <= 1e-2
    # ε − ε_lb at n = 1e10 ≈ 2·z·√((1 − p)/(np)) with z = Φ⁻¹(0.975), p ≈ 1/2 (the best event {x > 1}):
    # 3.92e-5 (normal approximation of the Clopper–Pearson widths)
    assert 1e-2 - vals[2] == pytest.approx(2 * 1.959964 * math.sqrt(0.5 / (0.5 * 1e10)), rel=0.05)


def _plan(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    configure_parser(p)
    a = p.parse_args(argv)
    return int(a.run(a))


def test_plan_refuses_a_target_beyond_the_validated_range(capsys: pytest.CaptureFixture[str]) -> None:
    assert _plan(["--family", "laplace", "--epsilon", "1e-6", "--target-ratio", "0.9", "--n-max", "1e6"]) == 0
    out = capsys.readouterr().out
    assert "NOT REACHED" in out and "validated range" in out and "0.9459" not in out
    plan = samples_needed("laplace", 1e-6, 0.0, 0.9, n_max=10**6)
    assert plan.n_test is None and plan.epsilon_lower_at_validated_max is not None
    assert plan.epsilon_lower_at_validated_max < plan.target_epsilon
    # n_max beyond the validated range is a usage error (exit 2), as is a non-integer one
    assert _plan(["--family", "laplace", "--epsilon", "1", "--target-ratio", "0.9", "--n-max", "2e12"]) == 2
    assert "validated range" in capsys.readouterr().err
    assert _plan(["--family", "laplace", "--epsilon", "1", "--target-ratio", "0.9", "--n-max", "inf"]) == 2
    # an off-grid n_max is evaluated itself: the grid stops at 3162 (below the target), 4000 reaches it
    plan = samples_needed("laplace", 1.0, 0.0, 0.9, n_max=4000)
    assert plan.n_test is not None and 3162 < plan.n_test <= 4000
    assert plan.expected_epsilon_lower is not None and plan.expected_epsilon_lower >= 0.9
