"""dpsco.reference.conversions: each privacy conversion pinned against a closed form in 50-digit mpmath (the
rounding directions), against dp_accounting (the RDP formula and the PLD accountant of the Gaussian), monotone,
and with the same defined edges everywhere (issue 26: one copy of each conversion).

Deterministic tests (no sampling): hypothesis draws inputs, every assertion is exact or carries the tolerance the
compared computation states (derived beside it)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.reference import conversions as C

mpmath.mp.dps = 50
U = 2.0 ** -53
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)
FEW = settings(max_examples=12, deadline=None, derandomize=True)

rhos = st.floats(5e-324, 1e300)   # subnormal to huge: √ρ·√L keeps the relative error bound
deltas = st.floats(1e-300, 0.999)
mus = st.floats(1e-2, 50.0)


def exact_zcdp_epsilon(rho: float, delta: float) -> mpmath.mpf:
    """ρ + 2√(ρ log(1/δ)) in 50-digit arithmetic (Bun & Steinke 2016, Prop. 1.3)."""
    r = mpmath.mpf(rho)
    return r + 2 * mpmath.sqrt(r * mpmath.log(1 / mpmath.mpf(delta)))


def exact_gdp_delta(mu: float, eps: float) -> mpmath.mpf:
    """Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) in 50-digit arithmetic (Dong, Roth & Su 2022, Cor. 2.13)."""
    m, e = mpmath.mpf(mu), mpmath.mpf(eps)
    return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


# ---- ρ-zCDP ↔ (ε, δ): the closed form ---------------------------------------------------------------------
@SETTINGS
@given(rho=rhos, delta=deltas)
def test_zcdp_epsilon_is_the_closed_form_rounded_up(rho, delta):
    """up ≥ exact ≥ down, each within 12u relative (the 5u error bound plus the 6 steps of the docstring)."""
    exact = exact_zcdp_epsilon(rho, delta)
    up, down = C.zcdp_epsilon(rho, delta), C.zcdp_epsilon(rho, delta, rounding="down")
    assert mpmath.mpf(down) <= exact <= mpmath.mpf(up)
    assert mpmath.mpf(up) <= exact * (1 + 24 * U) and mpmath.mpf(down) >= exact * (1 - 24 * U)


@SETTINGS
@given(eps=st.floats(1e-9, 1e4), delta=deltas)
def test_zcdp_rho_is_the_inverse_rounded_down(eps, delta):
    """ρ(ε, δ) = (√(L + ε) − √L)² rounded down: the exact ε of the returned ρ is ≤ ε (and so is the rounded-up
    conversion: the round trip holds in floating point), and ρ is within 32 ulps of the exact inverse."""
    rho = C.zcdp_rho(eps, delta)
    L = mpmath.log(1 / mpmath.mpf(delta))
    exact_rho = (mpmath.sqrt(L + eps) - mpmath.sqrt(L)) ** 2
    assert mpmath.mpf(rho) <= exact_rho
    assert mpmath.mpf(rho) >= exact_rho * (1 - 64 * U)
    assert exact_zcdp_epsilon(rho, delta) <= eps
    assert C.zcdp_epsilon(rho, delta) <= eps


@SETTINGS
@given(rho=rhos, rho2=rhos, delta=deltas, delta2=deltas)
def test_zcdp_epsilon_monotone(rho, rho2, delta, delta2):
    """ε increases with ρ and decreases with δ (every floating-point step of the formula is monotone)."""
    (r1, r2), (d1, d2) = sorted((rho, rho2)), sorted((delta, delta2))
    assert C.zcdp_epsilon(r1, d1) <= C.zcdp_epsilon(r2, d1)
    assert C.zcdp_epsilon(r1, d1) >= C.zcdp_epsilon(r1, d2)
    assert C.zcdp_rho(r1, d1) <= C.zcdp_rho(r2, d1)


@FEW
@given(rho=st.floats(1e-3, 50.0), delta=st.floats(1e-12, 0.1))
def test_zcdp_against_dp_accounting(rho, delta):
    """dp_accounting's RdpAccountant on a ZCDpEvent(ρ) converts with the tighter Canonne–Kamath–Steinke bound:
    its ε never exceeds the Bun–Steinke closed form.  zcdp_delta is that same conversion over ZCDP_ORDERS:
    equal to dp_accounting's compute_delta up to its rounding up (relative 1e-9 covers the ≤ 2u·(a − 1)·|terms|
    error bound at orders ≤ 1e6 where the minimum is attained for these ρ), never below it."""
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    acc = rdp.RdpAccountant(list(C.ZCDP_ORDERS))
    acc.compose(dp_event.ZCDpEvent(rho))
    assert acc.get_epsilon(delta) <= C.zcdp_epsilon(rho, delta)
    for eps in (0.1, 1.0, C.zcdp_epsilon(rho, delta)):
        ref, _ = rdp.compute_delta(C.ZCDP_ORDERS, rho * C.ZCDP_ORDERS, eps)
        got = C.zcdp_delta(eps, rho)
        assert got >= ref and got <= ref * (1 + 1e-9)
    # the B–S ε is (ε, δ)-valid for the CKS curve too (CKS is tighter at every order)
    assert C.zcdp_delta(C.zcdp_epsilon(rho, delta), rho) <= delta * (1 + 1e-9)


# ---- μ-GDP ↔ (ε, δ): the exact curve ----------------------------------------------------------------------
@SETTINGS
@given(mu=mus, frac=st.floats(0.0, 1.0))
def test_gdp_delta_rounding_directions(mu, frac):
    """down ≤ exact δ(ε) ≤ up at 50 digits, and both within 1e-6 relative where δ ≥ 1e-300 (the error bound is
    first order and doubled; measured ≤ 2e-8 over μ ∈ [1e-2, 50], ε up to μ²/2 + 38μ)."""
    eps = frac * (mu * mu / 2.0 + 38.0 * mu)
    exact = exact_gdp_delta(mu, eps)
    up, down = C.gdp_delta(mu, eps), C.gdp_delta(mu, eps, rounding="down")
    assert mpmath.mpf(down) <= exact <= mpmath.mpf(up)
    if exact >= 1e-300:
        assert mpmath.mpf(up) <= exact * (1 + mpmath.mpf(1e-6))
        assert mpmath.mpf(down) >= exact * (1 - mpmath.mpf(1e-6))


@SETTINGS
@given(mu=mus, delta=st.floats(1e-15, 0.999))
def test_gdp_epsilon_rounding_directions(mu, delta):
    """The returned bracket ends are checked on the exact curve: δ(ε_up) ≤ δ (so ε_up ≥ the exact ε, δ being
    decreasing) and δ(ε_down) ≥ δ (so ε_down ≤ it); the bracket is narrow (relative 1e-10)."""
    up, down = C.gdp_epsilon(mu, delta), C.gdp_epsilon(mu, delta, rounding="down")
    assert exact_gdp_delta(mu, up) <= delta
    if down > 0.0:
        assert exact_gdp_delta(mu, down) >= delta
    assert down <= up <= down * (1 + 1e-10) + 1e-12


@SETTINGS
@given(mu=mus, mu2=mus, delta=st.floats(1e-15, 0.9), delta2=st.floats(1e-15, 0.9))
def test_gdp_monotone(mu, mu2, delta, delta2):
    """ε increases with μ and decreases with δ; δ(ε) increases with μ.  The directed values are within 1e-10
    relative of the exact ones (previous test), so pairs closer than that are not compared."""
    (m1, m2), (d1, d2) = sorted((mu, mu2)), sorted((delta, delta2))
    if m2 > m1 * (1 + 1e-9):
        assert C.gdp_epsilon(m1, d1) <= C.gdp_epsilon(m2, d1)
        assert C.gdp_delta(m1, 1.0) <= C.gdp_delta(m2, 1.0)
    if d2 > d1 * (1 + 1e-9):
        assert C.gdp_epsilon(m1, d1) >= C.gdp_epsilon(m1, d2)


@FEW
@given(mu=st.floats(0.1, 4.0), eps=st.floats(0.0, 5.0))
def test_gdp_against_dp_accounting_pld(mu, eps):
    """μ-GDP is the Gaussian mechanism with noise multiplier 1/μ (sensitivity 1, add-or-remove, as
    ``muabg23.ledger.gaussian_event``).  dp_accounting's PLD accountant with value discretisation h is
    pessimistic: δ_pld(ε) ≥ δ(ε) − (its truncated tail mass, ≤ 1e-15) and ≤ δ(ε − h) + 1e-15, since rounding
    each privacy loss up by < h shifts the curve by < h; likewise ε_pld(δ) ∈ [ε(δ), ε(δ) + h] (1e-12 slack for
    the accountant's own float arithmetic)."""
    from dp_accounting import NeighboringRelation, dp_event
    from dp_accounting.pld import PLDAccountant

    h = 1e-3
    acc = PLDAccountant(NeighboringRelation.ADD_OR_REMOVE_ONE, value_discretization_interval=h)
    acc.compose(dp_event.GaussianDpEvent(1.0 / mu))
    got = acc.get_delta(eps)
    assert got >= C.gdp_delta(mu, eps, rounding="down") * (1 - 1e-12) - 1e-15
    assert got <= C.gdp_delta(mu, max(0.0, eps - h)) * (1 + 1e-12) + 1e-15
    for delta in (1e-10, 1e-5, 1e-2):
        e_pld = acc.get_epsilon(delta)
        assert C.gdp_epsilon(mu, delta, rounding="down") - 1e-12 <= e_pld <= C.gdp_epsilon(mu, delta) + h + 1e-12


def test_gdp_delta_is_array_capable():
    """Arrays of ε give the elementwise values (the same directed bound, vectorised)."""
    eps = np.array([[0.0, 0.5], [3.0, math.inf]])
    out = C.gdp_delta(1.5, eps)
    assert out.shape == eps.shape
    assert np.array_equal(out, np.array([[C.gdp_delta(1.5, e) for e in row] for row in eps]))
    assert out[1, 1] == 0.0
    log_out = C.gdp_log_delta(eps, 1.5)
    assert log_out.shape == eps.shape and log_out[1, 1] == -math.inf


# ---- exact rational roundings ---------------------------------------------------------------------------
@SETTINGS
@given(x=st.floats(0.0, 1e150))
def test_squares_and_roots_round_up_exactly(x):
    """μ²/2, ε²/2 and √(2ρ) are the smallest floats ≥ the exact values (rational arithmetic)."""
    from fractions import Fraction

    for f in (C.gdp_mu_to_zcdp, C.pure_dp_to_zcdp):
        r = f(x)
        assert Fraction(r) >= Fraction(x) ** 2 / 2
        assert r == 0.0 or Fraction(math.nextafter(r, 0.0)) < Fraction(x) ** 2 / 2
    mu = C.zcdp_to_gdp_mu(x)
    assert Fraction(mu) ** 2 >= 2 * Fraction(x)
    assert mu == 0.0 or Fraction(math.nextafter(mu, 0.0)) ** 2 < 2 * Fraction(x)


# ---- the edges -------------------------------------------------------------------------------------------
INF = math.inf
EDGES = [
    # (function, args, kwargs, expected)
    (C.zcdp_epsilon, (0.0, 1e-5), {}, 0.0),          # ρ = 0 → ε = 0
    (C.zcdp_epsilon, (0.0, 0.0), {}, 0.0),           # ... at any δ
    (C.zcdp_epsilon, (0.5, 0.0), {}, INF),           # δ = 0, ρ > 0 → ∞ (was ValueError / ZeroDivisionError)
    (C.zcdp_epsilon, (INF, 1e-5), {}, INF),          # ρ = ∞ → ∞
    (C.zcdp_epsilon, (0.5, 0.0), {"rounding": "down"}, INF),
    (C.zcdp_rho, (1.0, 0.0), {}, 0.0),               # the inverse at δ = 0 → ρ = 0
    (C.zcdp_rho, (0.0, 1e-5), {}, 0.0),              # ε = 0 → ρ = 0
    (C.zcdp_rho, (INF, 1e-5), {}, INF),              # ε = ∞ → ρ = ∞
    (C.zcdp_rho, (INF, 0.0), {}, INF),
    (C.gdp_epsilon, (0.0, 1e-5), {}, 0.0),           # μ = 0 → ε = 0
    (C.gdp_epsilon, (0.0, 0.0), {}, 0.0),
    (C.gdp_epsilon, (1.0, 0.0), {}, INF),            # δ = 0, μ > 0 → ∞ (notions.gdp_epsilon(1, 0) gave 38.18)
    (C.gdp_epsilon, (1.0, 0.0), {"rounding": "down"}, INF),
    (C.gdp_epsilon, (INF, 1e-5), {}, INF),           # μ = ∞ → ∞
    (C.gdp_epsilon, (1e200, 1e-5), {}, INF),         # the exact ε ≈ μ²/2 exceeds every float: up → ∞ ...
    (C.gdp_epsilon, (1e200, 1e-5), {"rounding": "down"}, float(np.finfo(np.float64).max)),  # ... down → the top
    (C.gdp_delta, (0.0, 1.0), {}, 0.0),              # μ = 0 → δ ≡ 0
    (C.gdp_delta, (INF, 3.0), {}, 1.0),              # μ = ∞ → δ ≡ 1
    (C.gdp_delta, (1.0, INF), {}, 0.0),              # ε = ∞ → δ = 0
    (C.zcdp_delta, (1.0, 0.0), {}, 0.0),             # ρ = 0 → δ ≡ 0
    (C.zcdp_delta, (1.0, INF), {}, 1.0),             # ρ = ∞ → δ ≡ 1
    (C.zcdp_to_gdp_mu, (0.0,), {}, 0.0),
    (C.zcdp_to_gdp_mu, (INF,), {}, INF),
    (C.gdp_mu_to_zcdp, (INF,), {}, INF),
    (C.pure_dp_to_zcdp, (INF,), {}, INF),
]


@pytest.mark.parametrize("fn, args, kwargs, expected", EDGES,
                         ids=[f"{f.__name__}{a}{k or ''}" for f, a, k, _ in EDGES])
def test_defined_edges(fn, args, kwargs, expected):
    assert fn(*args, **kwargs) == expected


INVALID = [
    (C.zcdp_epsilon, (float("nan"), 1e-5), ValueError, "rho"),
    (C.zcdp_epsilon, (-1.0, 1e-5), ValueError, "rho"),
    (C.zcdp_epsilon, (1.0, 1.0), ValueError, "delta"),
    (C.zcdp_epsilon, (1.0, -0.1), ValueError, "delta"),
    (C.zcdp_epsilon, (1.0, float("nan")), ValueError, "delta"),
    (C.zcdp_epsilon, (True, 1e-5), TypeError, "rho"),
    (C.zcdp_epsilon, ("1", 1e-5), TypeError, "rho"),
    (C.zcdp_epsilon, (1.0, None), TypeError, "delta"),
    (C.zcdp_rho, (-1.0, 1e-5), ValueError, "epsilon"),
    (C.zcdp_rho, (1.0, 1.5), ValueError, "delta"),
    (C.gdp_epsilon, (-1.0, 1e-5), ValueError, "mu"),
    (C.gdp_epsilon, (float("nan"), 1e-5), ValueError, "mu"),
    (C.gdp_epsilon, (1.0, 1.0), ValueError, "delta"),
    (C.gdp_epsilon, (False, 1e-5), TypeError, "mu"),
    (C.gdp_delta, (1.0, -0.5), ValueError, "epsilon"),
    (C.gdp_delta, (1.0, [0.1, float("nan")]), ValueError, "epsilon"),
    (C.gdp_delta, (1.0, True), TypeError, "epsilon"),
    (C.gdp_delta, (1.0, "0.5"), TypeError, "epsilon"),
    (C.gdp_delta, ("1", 0.5), TypeError, "mu"),
    (C.zcdp_delta, (1.0, -1.0), ValueError, "rho"),
    (C.gdp_mu_to_zcdp, (float("nan"),), ValueError, "mu"),
    (C.zcdp_to_gdp_mu, (-2.0,), ValueError, "rho"),
    (C.pure_dp_to_zcdp, (True,), TypeError, "epsilon"),
]


@pytest.mark.parametrize("fn, args, exc, name", INVALID, ids=[f"{f.__name__}{a}" for f, a, _, _ in INVALID])
def test_invalid_inputs_name_the_parameter(fn, args, exc, name):
    with pytest.raises(exc, match=name):
        fn(*args)


def test_rounding_keyword_is_checked():
    with pytest.raises(ValueError, match="rounding"):
        C.gdp_epsilon(1.0, 1e-5, rounding="nearest")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rounding"):
        C.zcdp_epsilon(1.0, 1e-5, rounding="UP")  # type: ignore[arg-type]


# ---- the old names are the core -------------------------------------------------------------------------
def test_old_names_are_the_core_objects_or_fix_a_keyword():
    """Every public old name is the core object, or a wrapper giving the same numbers (its source calls the core:
    tests/test_layout.py checks that by AST)."""
    from dpsco.oracles import mechanism_curves as mc
    from dpsco.oracles import privacy_curves as pc
    from dpsco.reference import noise
    from dpsco.reference.alt24 import theorems as a_th
    from dpsco.reference.alt24 import algorithms_clipped_sgd as clipped_sgd
    from dpsco.reference.muabg23 import ledger, theorems as m_th
    from dpsco.verification.auditing import curves, gdp

    assert a_th.zcdp_to_dp is C.zcdp_epsilon and a_th.dp_to_zcdp is C.zcdp_rho
    assert clipped_sgd.zcdp_epsilon is C.zcdp_epsilon
    assert ledger.zcdp_epsilon is C.zcdp_epsilon and ledger.zcdp_rho_for_epsilon is C.zcdp_rho
    assert ledger.gdp_delta is C.gdp_delta and ledger.gdp_epsilon is C.gdp_epsilon
    assert ledger.zcdp_to_gdp_mu is C.zcdp_to_gdp_mu and ledger.gdp_mu_to_zcdp is C.gdp_mu_to_zcdp
    assert m_th.epsilon_from_zcdp is C.zcdp_epsilon and m_th.zcdp_from_epsilon is C.zcdp_rho
    assert m_th.pure_dp_to_zcdp is C.pure_dp_to_zcdp
    assert mc.gdp_mu_to_epsilon is C.gdp_epsilon and pc.gdp_mu_to_epsilon is C.gdp_epsilon
    assert mc.gaussian_log_delta is C.gdp_log_delta and noise.gaussian_log_delta is C.gdp_log_delta
    assert curves.zcdp_delta is C.zcdp_delta and curves.rdp_delta is C.rdp_delta
    # wrappers: the same numbers
    assert mc.gdp_epsilon_to_delta(0.7, 1.3) == C.gdp_delta(1.3, 0.7)
    assert mc.gaussian_delta(0.7, 2.6, 2.0) == C.gdp_delta(1.3, 0.7)
    assert mc.gaussian_epsilon(1e-5, 2.6, 2.0) == C.gdp_epsilon(1.3, 1e-5)
    assert gdp.gdp_epsilon_from_mu(1.3, 1e-5) == C.gdp_epsilon(1.3, 1e-5, rounding="down")
    assert gdp.gdp_epsilon_from_mu(1.3, 0.0) == math.inf       # was ValueError: the defined δ = 0 edge


def test_downward_gdp_bounds_hold_where_the_first_order_model_fails():
    """Independent review's counterexamples (μ ≈ 1e18, ε ≈ 0.5μ²; ε = 1e8, μ = 2): the lower bound must stay
    below the exact value (50+-digit mpmath), and an infinite order no longer escapes as NaN."""
    import mpmath as mp

    with mp.workdps(120):
        for mu, eps in ((1.1740631032582582e18, 6.892120852162057e35), (2.0, 1e8)):
            m, e = mp.mpf(mu), mp.mpf(eps)
            exact = mp.log(mp.ncdf(m / 2 - e / m) - mp.exp(e) * mp.ncdf(-m / 2 - e / m))
            assert C.gdp_log_delta(eps, mu, rounding="down") <= exact
            assert C.gdp_log_delta(eps, mu, rounding="up") >= exact
            assert C.gdp_delta(mu, eps, rounding="down") <= mp.exp(exact)
    with pytest.raises(ValueError, match="orders"):
        C.rdp_delta(0.5, [2.0, math.inf], [1.0, 1.0])
    with pytest.raises(TypeError, match="booleans"):
        C.rdp_delta(0.5, [True, 2.0], [1.0, 1.0])


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 1e300, allow_subnormal=True), st.floats(1e-300, 1e300))
def test_gaussian_zcdp_is_rounded_up_and_scale_free(delta_, sigma):
    """ρ = ½(Δ/σ)² rounded up (exact rational check), never 0 for Δ > 0 unless the ratio underflows, and the
    one copy every paper uses."""
    from fractions import Fraction

    from dpsco.reference.alt24 import theorems as alt24_theorems
    from dpsco.reference.muabg23 import ledger

    rho = C.gaussian_zcdp(delta_, sigma)
    exact = Fraction(delta_) ** 2 / (2 * Fraction(sigma) ** 2)
    assert math.isinf(rho) or (Fraction(rho) >= exact and Fraction(math.nextafter(rho, 0.0)) < exact or rho == 0.0)
    assert alt24_theorems.gaussian_zcdp is C.gaussian_zcdp and ledger.gaussian_zcdp is C.gaussian_zcdp
    assert C.gaussian_zcdp(1e-161, 1e-161) == 0.5     # the old Δ²/(2σ²) gave 0/0 at these scales
