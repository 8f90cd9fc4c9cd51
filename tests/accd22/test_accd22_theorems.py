"""Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070: the parameter formulas and bounds of
``dpsco.reference.accd22.theorems``.

Golden values are worked by hand from the paper's printed formulas (Algorithm 4 lines 1, 3, 7, 9; Algorithm 5
lines 2–6 and Theorem 6's T; Algorithm 2 line 5; Algorithm 3 line 3; Algorithm 6 lines 3–6 and the Remark after
it; Theorems 1, 2, 4, 6, 8; Propositions 2, 5; Lemma D.6; Corollary 4.1), the intermediate numbers written beside
each assertion (logarithms natural: ln 2 = 0.693147, ln 100 = 4.605170, ln 1000 = 6.907755, ln 10⁴ = 9.210340,
ln 10⁶ = 13.815511).  Literals carry 7 significant digits, so they are compared at rel = 1e-6; identities between
two formulas are compared at rel = 1e-12 (a few roundings).  Monotonicity properties run under derandomised
hypothesis.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsco.reference.accd22 import theorems as th

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)
HAND = 1e-6  # relative precision of the 7-digit hand values
EXACT = 1e-12  # relative precision of identities between formulas (a few rounded operations)


# ---- Algorithm 4 ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n, expected", [
    (1, (1, 1)),        # ln 1 = 0: k = ⌈0⌉ = 0 phases is no algorithm; at least 1
    (2, (1, 2)),        # ln 2 = 0.693 → k = 1, n0 = 2
    (3, (2, 1)),        # ln 3 = 1.099 → k = 2, n0 = ⌊3/2⌋ = 1
    (100, (5, 20)),     # ln 100 = 4.605 → k = 5, n0 = 20
    (148, (5, 29)),     # ln 148 = 4.997 → k = 5, n0 = ⌊148/5⌋ = 29
    (149, (6, 24)),     # ln 149 = 5.004 → k = 6, n0 = ⌊149/6⌋ = 24 (the remainder 5 is unused)
    (1000, (7, 142)),   # ln 1000 = 6.908 → k = 7, n0 = ⌊1000/7⌋ = 142
])
def test_algorithm_4_phases(n, expected):
    """Algorithm 4, line 1: k = ⌈log n⌉, n0 = n/k (rounded down: a public rounding)."""
    assert th.algorithm_4_phases(n) == expected


def test_algorithm_4_eta_and_sigma():
    """Algorithm 4, line 3: η_i = 2^{−4i}η; lines 7 and 9: σ_i = 4Lη_i√d/ε (Laplace), 4Lη_i√(log(1/δ))/ε."""
    assert th.algorithm_4_eta(1, 2.0) == 2.0 / 16          # 0.125
    assert th.algorithm_4_eta(2, 2.0) == 2.0 / 256         # 0.0078125
    assert th.algorithm_4_eta(3, 1.0) == 1.0 / 4096
    # L = 2, η_i = 0.125, d = 9, ε = 0.5: Laplace 4·2·0.125·3/0.5 = 6
    assert th.algorithm_4_sigma(2.0, 0.125, 9, 0.5, 0.0) == pytest.approx(6.0, rel=EXACT)
    # δ = e^{−4}: Gaussian 4·2·0.125·√4/0.5 = 4 (independent of d)
    assert th.algorithm_4_sigma(2.0, 0.125, 9, 0.5, math.exp(-4.0)) == pytest.approx(4.0, rel=EXACT)
    assert th.algorithm_4_sigma(2.0, 0.125, 1, 0.5, math.exp(-4.0)) == pytest.approx(4.0, rel=EXACT)


# ---- Algorithm 5 ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("N, kappa_lower, expected", [
    (100, 2.0, 10),   # ⌈2·4.605/1⌉ = ⌈9.21⌉ = 10
    (100, 3.0, 5),    # ⌈2·4.605/2⌉ = ⌈4.605⌉ = 5
    (100, 1.5, 19),   # ⌈2·4.605/0.5⌉ = ⌈18.42⌉ = 19
    (1000, 2.0, 14),  # ⌈2·6.908⌉ = ⌈13.82⌉ = 14
    (1, 2.0, 1),      # ln 1 = 0: at least one epoch
])
def test_algorithm_5_epochs(N, kappa_lower, expected):
    """Theorem 6: T = ⌈2 log n/(κ̲ − 1)⌉."""
    assert th.algorithm_5_epochs(N, kappa_lower) == expected


def test_algorithm_5_eta0():
    """Algorithm 5, lines 3 and 5: η_0 = (D0/(2L))·min{1/√(n0 log n0 log(1/β)), ε/(d_δ log(1/β))}, d_δ = d (δ = 0) or
    √(d log(1/δ)).  D0 = 4, L = 2 (D0/(2L) = 1), β = e^{−2} (log(1/β) = 2)."""
    b = math.exp(-2.0)
    # n0 = 100, d = 4, ε = 1: 1/√(100·4.605170·2) = 1/√921.034 = 0.03295051; ε/(4·2) = 0.125 → 0.03295051
    assert th.algorithm_5_eta0(4.0, 2.0, 100, 4, 1.0, 0.0, b) == pytest.approx(0.03295051, rel=HAND)
    # ε = 0.1: 0.1/8 = 0.0125 is the smaller
    assert th.algorithm_5_eta0(4.0, 2.0, 100, 4, 0.1, 0.0, b) == pytest.approx(0.0125, rel=EXACT)
    # δ = e^{−9}: d_δ = √(4·9) = 6, ε/(6·2) = 0.1/12 = 0.008333333
    assert th.algorithm_5_eta0(4.0, 2.0, 100, 4, 0.1, math.exp(-9.0), b) == pytest.approx(0.1 / 12, rel=EXACT)
    # n0 = 2: log 2 = 0.693 < 1 is floored at 1 (n0 ≤ e: the printed log n0 shrinks, and vanishes at n0 = 1):
    # 1/√(2·1·2) = 0.5 (against 1/√(2·0.693·2) = 0.6006 printed); ε/(d log(1/β)) = 4/2 = 2
    assert th.algorithm_5_eta0(4.0, 2.0, 2, 1, 4.0, 0.0, b) == pytest.approx(0.5, rel=EXACT)
    assert th.algorithm_5_eta0(4.0, 2.0, 1, 1, 4.0, 0.0, b) == pytest.approx(1 / math.sqrt(2.0), rel=EXACT)


# ---- Algorithm 2 / Theorem 2 ---------------------------------------------------------------------------------------

def test_algorithm_2_radius():
    """Algorithm 2, line 5: D_{i+1} = 256(L_i/λ)·max{√(log(T/β))log^{3/2}m/√m, min(d, √(d log(1/δ)))log(T/β)log m/(mε)}.
    m = 1000, T = 10, β = 0.01: log(T/β) = log m = 6.907755, √ = 2.628260, log^{3/2} m = 18.15538."""
    # statistical term 2.628260·18.15538/31.62278 = 1.508947; private term (d = 10, ε = 1) 10·47.71708/1000 = 0.4771708
    assert th.algorithm_2_radius(1.0, 1.0, 1000, 10, 0.01, 10, 1.0, 0.0) == pytest.approx(256 * 1.508947, rel=HAND)
    # L_i/λ = 3/0.5 = 6 scales it
    assert th.algorithm_2_radius(3.0, 0.5, 1000, 10, 0.01, 10, 1.0, 0.0) == pytest.approx(6 * 256 * 1.508947,
                                                                                          rel=HAND)
    # d = 1000: private term 1000·47.71708/1000 = 47.71708 dominates: 256·47.71708 = 12215.57
    assert th.algorithm_2_radius(1.0, 1.0, 1000, 10, 0.01, 1000, 1.0, 0.0) == pytest.approx(12215.57, rel=HAND)
    # δ = e^{−10}: min(1000, √(1000·10) = 100) = 100 → 256·4.771708 = 1221.557
    assert th.algorithm_2_radius(1.0, 1.0, 1000, 10, 0.01, 1000, 1.0, math.exp(-10.0)) == pytest.approx(1221.557,
                                                                                                        rel=HAND)
    # constant override: 1 instead of 256
    assert th.algorithm_2_radius(1.0, 1.0, 1000, 10, 0.01, 1000, 1.0, 0.0, constant=1.0) == pytest.approx(47.71708,
                                                                                                          rel=HAND)


def test_theorem_2_parameters_m_exceeds_n():
    """Theorem 2: β = n^{−μ}, m = 256 log²n·(H log(1/β)/λ)·max{256H/λ, d/(ε√(log n))}, T = n/m.

    n = 10⁴, d = 10, ε = 1, δ = 0, H/λ = 1, μ = 1: β = 10⁻⁴, log(1/β) = log n = 9.210340, log²n = 84.83037,
    d/(ε√(log n)) = 10/3.034854 = 3.295; the max is 256, so m = 256·84.83037·9.210340·256 = 65536·781.3172 =
    5.120436e7 ≫ n = 10⁴: T = ⌊n/m⌋ = 0 — the paper's constants leave no epoch at any practical n."""
    beta, m, T = th.theorem_2_parameters(10_000, 10, 1.0, 0.0, 1.0, 1.0, 1.0)
    assert beta == pytest.approx(1e-4, rel=EXACT)
    assert m == pytest.approx(5.120436e7, rel=HAND)
    assert 5e7 < m < 6e7 and T == 0


def test_theorem_2_parameters_small_H():
    """H = 10⁻³, λ = 1, n = 10⁶, d = 1, ε = 1, μ = 1: log n = log(1/β) = 13.81551, log²n = 190.8683;
    max{0.256, 1/√13.81551 = 0.2690424} = 0.2690424; m = 256·190.8683·(0.001·13.81551)·0.2690424 = 181.6173,
    T = ⌊10⁶/181.6173⌋ = 5506."""
    beta, m, T = th.theorem_2_parameters(10 ** 6, 1, 1.0, 0.0, 1e-3, 1.0, 1.0)
    assert beta == pytest.approx(1e-6, rel=EXACT)
    assert m == pytest.approx(181.6173, rel=HAND)
    assert T == 5506


def test_theorem_2_parameters_delta_term():
    """For δ > 0 the rest of the paper uses √(d log(1/δ)) (Algorithm 2 line 5, Proposition 3); Theorem 2 prints
    √d·log(1/δ) (``printed=True``).  n = 10⁴, d = 10⁴, ε = 0.1, δ = 10⁻⁵, H = λ = 1, μ = 1: log(1/δ) = 11.51293;
    √(d log(1/δ)) = 339.3071, /(0.1·3.034854) = 1118.034 > 256; printed 100·11.51293 = 1151.293 → 3793.568."""
    base = 256 * 84.83037 * 9.210340  # 256·log²n·H log(1/β)/λ = 200017.0
    _, m, _ = th.theorem_2_parameters(10_000, 10_000, 0.1, 1e-5, 1.0, 1.0, 1.0)
    assert m == pytest.approx(base * 1118.034, rel=HAND)
    _, m_printed, _ = th.theorem_2_parameters(10_000, 10_000, 0.1, 1e-5, 1.0, 1.0, 1.0, printed=True)
    assert m_printed == pytest.approx(base * 3793.568, rel=HAND)


def test_theorem_2_bound():
    """The proof's explicit form (L²λ/(8H²))e^{−T} + n^{−μ}HD²/2: T = 3, n = 100, μ = 1, L = 2, H = 4, λ = 1, D = 2:
    (4/128)·e^{−3} + (1/100)·4·4/2 = 0.03125·0.04978707 + 0.08 = 0.08155585."""
    assert th.theorem_2_bound(3, 100, 1.0, 2.0, 4.0, 1.0, 2.0) == pytest.approx(0.08155585, rel=HAND)


# ---- Algorithm 3 ---------------------------------------------------------------------------------------------------

def test_algorithm_3_radius_half_sample():
    """Algorithm 3, line 3: D_int = 128(L/λ)(√(log(2/β))log^{3/2}N/√N + min{d, √(d log 1/δ)}log(2/β)log N/(Nε)).
    β = 0.02: log(2/β) = log 100 = 4.605170, √ = 2.145966.  L = λ = 1, d = 10, ε = 1, δ = 0, n = 2000.

    N = ⌊n/2⌋ = 1000 (x_1 is computed from the half S_1): 2.145966·18.15538/31.62278 + 10·4.605170·6.907755/1000 =
    1.232050 + 0.3181139 = 1.550164 → 198.4210.  Printed N = n = 2000: log 2000 = 7.600902, log^{3/2} = 20.95548:
    2.145966·20.95548/44.72136 + 10·4.605170·7.600902/2000 = 1.005555 + 0.1750172 = 1.180572 → 151.1132."""
    assert th.algorithm_3_radius(1.0, 1.0, 2000, 0.02, 10, 1.0, 0.0) == pytest.approx(198.4210, rel=HAND)
    assert th.algorithm_3_radius(1.0, 1.0, 2000, 0.02, 10, 1.0, 0.0, printed=True) == pytest.approx(151.1132,
                                                                                                    rel=HAND)
    assert th.algorithm_3_radius(1.0, 1.0, 2001, 0.02, 10, 1.0, 0.0) == pytest.approx(198.4210, rel=HAND)  # ⌊2001/2⌋
    # the half-sample radius is the larger one: the rate is decreasing in N ≥ 21
    assert th.algorithm_3_radius(1.0, 1.0, 2000, 0.02, 10, 1.0, 0.0) > th.algorithm_3_radius(
        1.0, 1.0, 2000, 0.02, 10, 1.0, 0.0, printed=True)


# ---- Algorithm 6 / Theorem 8 -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("kappa, expected", [
    (2.0, 181.0193),   # 2(2^13)^{1/2} = 2·90.50967
    (3.0, 46.15199),   # 2(12288)^{1/3} = 2·23.07599
    (4.0, 22.62742),   # 2(2^14)^{1/4} = 2·11.31371 = 16√2
])
def test_c_kappa(kappa, expected):
    """The Remark after Algorithm 6: c_κ = 2(C_κκ)^{1/κ} with C_κ ≤ 2^12, and c_κ ≤ 4·2^{12/κ} (256, 64, 32)."""
    assert th.c_kappa(kappa) == pytest.approx(expected, rel=HAND)
    assert th.c_kappa(kappa) <= 4 * 2 ** (12 / kappa)
    assert th.c_kappa(2.0) <= th.ALGORITHM_2_CONSTANT  # Algorithm 2's 256 is the bound at κ = 2


def test_algorithm_6_radius():
    """Algorithm 6, lines 3–6: D_{i+1} = c_κ((L_i/λ)·max{√(log(T/β))log^{3/2}m/√m, d_δ log(T/β)log m/(mε)})^{1/(κ−1)},
    d_δ = d (δ = 0) or √(d log(1/δ)) (line 6 prints it without Algorithm 2's min with d).  m = 1000, T = 10, β = 0.01.

    κ = 3, d = 10, ε = 1, δ = 0: max = 1.508947 (statistical) → 46.15199·√1.508947 = 46.15199·1.228392 = 56.69275.
    κ = 3, d = 4, ε = 0.1, δ = e^{−16}: d_δ = √64 = 8 (> d = 4): 8·47.71708/100 = 3.817366 → 46.15199·1.953808 =
    90.17218.  (Algorithm 2's min(d, ·) would take 4 here: 1.908683.)"""
    assert th.algorithm_6_radius(1.0, 1.0, 3.0, 1000, 10, 0.01, 10, 1.0, 0.0) == pytest.approx(56.69275, rel=HAND)
    assert th.algorithm_6_radius(1.0, 1.0, 3.0, 1000, 10, 0.01, 4, 0.1, math.exp(-16.0)) == pytest.approx(
        90.17218, rel=HAND)
    assert th.localization_rate_max(1000, 10, 0.01, 4, 0.1, math.exp(-16.0)) == pytest.approx(1.908683, rel=HAND)
    # κ = 4: exponent 1/3; c_4 = 22.62742: 22.62742·1.508947^{1/3} = 22.62742·1.146986 = 25.95332
    assert th.algorithm_6_radius(1.0, 1.0, 4.0, 1000, 10, 0.01, 10, 1.0, 0.0) == pytest.approx(25.95332, rel=HAND)


@pytest.mark.parametrize("n, expected", [
    (2, (1, 2)),        # ln 2 = 0.69: T ≥ 1
    (100, (4, 25)),     # ⌊4.605⌋ = 4, m = 25
    (1000, (6, 166)),   # ⌊6.908⌋ = 6, m = ⌊1000/6⌋ = 166
])
def test_theorem_8_parameters(n, expected):
    """Theorem 8: T = log n epochs of m = n/log n samples (both rounded down)."""
    assert th.theorem_8_parameters(n) == expected


# ---- utility bounds --------------------------------------------------------------------------------------------------

def test_theorem_6_and_proposition_2_bounds():
    """Theorem 6 at κ = κ̲ = 2: (4032/λ)(L√(log(1/β))log^{3/2}n/√n + L d log(1/β) log n/(nε))².  n = 1000, d = 10,
    ε = 1, L = λ = 1, β = 0.01 (log 100 = 4.605170): 1.232050 + 0.3181139 = 1.550164, squared 2.403007 → 9688.926.

    Proposition 2: 128·L·D·(√(log(1/β))log^{3/2}n/√n + d log(1/β) log n/(nε)) with β ≤ 1/(n + d) = 1/1010:
    β = 10⁻⁴ (log 10⁴ = 9.210340, √ = 3.034854): 3.034854·18.15538/31.62278 + 10·9.210340·6.907755/1000 =
    1.742382 + 0.6362278 = 2.378609; L = 1, D = 2: 256·2.378609 = 608.9240."""
    assert th.theorem_6_bound(1000, 10, 1.0, 0.0, 1.0, 1.0, 0.01) == pytest.approx(9688.926, rel=HAND)
    assert th.proposition_2_bound(1000, 10, 1.0, 0.0, 1.0, 2.0, 1e-4) == pytest.approx(608.9240, rel=HAND)
    with pytest.raises(ValueError, match="beta"):
        th.proposition_2_bound(1000, 10, 1.0, 0.0, 1.0, 2.0, 0.01)  # 0.01 > 1/1010


def test_corollary_4_1_sample_complexity():
    """Corollary 4.1: n = α^{−ρ} + (d_δ/(ρε))log(1/α).  α = 0.01, ρ = 0.5, d = 10, ε = 1: 10 + 20·4.605170 = 102.1034;
    δ = e^{−4}: d_δ = √40 = 6.324555 → 10 + 12.64911·4.605170 = 68.25131."""
    assert th.corollary_4_1_sample_complexity(0.01, 0.5, 10, 1.0, 0.0) == pytest.approx(102.1034, rel=HAND)
    assert th.corollary_4_1_sample_complexity(0.01, 0.5, 10, 1.0, math.exp(-4.0)) == pytest.approx(68.25131,
                                                                                                   rel=HAND)


# ---- lower bounds ----------------------------------------------------------------------------------------------------

def test_theorem_1_lower_bound():
    """Theorem 1: HD²d/(96e²nε) (δ = 0, needs the construction's k = d/ε ≤ n) and HD²/(16(e + 1)nε) (d = 1,
    0 < δ < ε/6).  H = 2, D = 3, n = 100, ε = 0.5: 2·9·5/(96·7.389056·50) = 90/35467.47 = 0.002537537 (d = 5);
    18/(16·3.718282·50) = 18/2974.625 = 0.006051182."""
    assert th.theorem_1_lower_bound(100, 5, 0.5, 0.0, 2.0, 3.0) == pytest.approx(0.002537537, rel=HAND)
    assert th.theorem_1_lower_bound(100, 1, 0.5, 0.01, 2.0, 3.0) == pytest.approx(0.006051182, rel=HAND)
    with pytest.raises(ValueError, match="epsilon"):
        th.theorem_1_lower_bound(4, 5, 1.0, 0.0, 2.0, 3.0)  # nε = 4 < d = 5
    with pytest.raises(ValueError, match="d = 1"):
        th.theorem_1_lower_bound(100, 2, 0.5, 0.01, 2.0, 3.0)
    with pytest.raises(ValueError, match="delta < epsilon/6"):
        th.theorem_1_lower_bound(100, 1, 0.5, 0.09, 2.0, 3.0)  # 0.09 ≥ 0.5/6 = 0.0833


def test_theorem_4_lower_bound():
    """Theorem 4: (λD²/96)exp(−2λnε/(Hd)), needs e^{λnε/H} ≥ 2.  n = 100, d = 10, ε = 0.5, H = 2, λ = 0.1, D = 3:
    λnε/H = 2.5 ≥ ln 2; (0.9/96)·e^{−0.5} = 0.009375·0.6065307 = 0.005686225."""
    assert th.theorem_4_lower_bound(100, 10, 0.5, 2.0, 0.1, 3.0) == pytest.approx(0.005686225, rel=HAND)
    with pytest.raises(ValueError, match="lam"):
        th.theorem_4_lower_bound(100, 10, 0.5, 2.0, 0.01, 3.0)  # λnε/H = 0.25 < ln 2 = 0.693


@SETTINGS
@given(n=st.integers(1, 10 ** 6), d=st.integers(1, 50), eps=st.floats(0.01, 10.0), H=st.floats(0.01, 100.0),
       D=st.floats(0.01, 100.0))
def test_theorem_4_reproduces_theorem_1(n, d, eps, H, D):
    """Theorem 1's construction f_v = (kH/(2n))‖x − v‖² with k = d/ε copies is Theorem 4's with λ = kH/n = dH/(nε),
    i.e. k = λn/H = d/ε: then exp(−2λnε/(Hd)) = e^{−2} and (λD²/96)e^{−2} = HD²d/(96e²nε), Theorem 1's bound."""
    if n * eps < d:
        return  # Theorem 1 (δ = 0) needs k = d/ε ≤ n
    lam = d * H / (n * eps)
    assert lam * n / H == pytest.approx(d / eps, rel=EXACT)  # k
    assert th.theorem_4_lower_bound(n, d, eps, H, lam, D) == pytest.approx(
        th.theorem_1_lower_bound(n, d, eps, 0.0, H, D), rel=EXACT)


def test_proposition_5_and_lemma_d6():
    """Proposition 5: D/(nε) ≤ ω(S, 1/ε) ≤ 8HD/(λnε); n = 100, ε = 0.5, D = 2, H = 3, λ = 1.5: 2/50 = 0.04 and
    48/75 = 0.64.  Lemma D.6: 4kL/(λn); k = 3, L = 2, λ = 0.5, n = 60: 24/30 = 0.8.  The upper bound of Proposition
    5 is Lemma D.6 at k = 1/ε = 2 and L = 2HD = 12: 4·2·12/(1.5·100) = 0.64."""
    lo, hi = th.proposition_5_bounds(100, 0.5, 2.0, 3.0, 1.5)
    assert lo == pytest.approx(0.04, rel=EXACT) and hi == pytest.approx(0.64, rel=EXACT)
    assert th.lemma_d6_bound(3, 2.0, 0.5, 60) == pytest.approx(0.8, rel=EXACT)
    assert th.lemma_d6_bound(2, 12.0, 1.5, 100) == pytest.approx(hi, rel=EXACT)


# ---- monotonicity ----------------------------------------------------------------------------------------------------

def test_rate_not_monotone_below_e_cubed():
    """Why the monotonicity properties below start at n = 21: d/dn [log^{3/2}n/√n] = log^{1/2}n·(3 − log n)/(2n^{3/2})
    is positive for n < e³ = 20.09, so the rate A(n) of the upper bounds grows from n = 2 to 20 (0.408 → 1.159 in the
    first term) and decreases from n = 21 on (log n/n decreases from n = 3)."""
    assert th.localization_rate_sum(2, 0.5, 1, 1e6, 0.0) < th.localization_rate_sum(20, 0.5, 1, 1e6, 0.0)
    assert th.localization_rate_sum(21, 0.5, 1, 1e6, 0.0) > th.localization_rate_sum(22, 0.5, 1, 1e6, 0.0)


@SETTINGS
@given(n=st.integers(21, 10 ** 6), dn=st.integers(1, 10 ** 6), d=st.integers(1, 100), eps=st.floats(0.01, 10.0),
       deps=st.floats(1e-3, 10.0), delta=st.sampled_from([0.0, 1e-9, 1e-5, 0.01]))
def test_upper_bounds_decrease_in_n_and_epsilon(n, dn, d, eps, deps, delta):
    """Theorem 6, Proposition 2, Theorem 3's explicit form, the shapes of Theorem 8 and the non-interpolation rate:
    non-increasing in n (n ≥ 21, see above) and in ε."""
    n2, eps2 = n + dn, eps + deps
    beta = 1.0 / (n2 + d + 1)  # Proposition 2 needs β ≤ 1/(n + d) at both sizes
    fns = [
        lambda n_, e_: th.theorem_6_bound(n_, d, e_, delta, 1.0, 0.5, beta),
        lambda n_, e_: th.theorem_6_bound(n_, d, e_, delta, 1.0, 0.5, beta, kappa=3.0, kappa_lower=2.0),
        lambda n_, e_: th.proposition_2_bound(n_, d, e_, delta, 1.0, 2.0, beta),
        lambda n_, e_: th.non_interpolation_rate(n_, d, e_, delta, 3.0),
        lambda n_, e_: th.theorem_8_rate(n_, d, e_, delta, 4.0),
        lambda n_, e_: th.localization_rate_sum(n_, beta, d, e_, delta),
        lambda n_, e_: th.localization_rate_max(n_, 10, beta, d, e_, delta),
    ]
    for f in fns:
        base = f(n, eps)
        assert f(n2, eps) <= base * (1 + EXACT)
        assert f(n, eps2) <= base * (1 + EXACT)
    if n >= 42:  # Theorem 3's D_int uses ⌊n/2⌋ ≥ 21
        t3 = lambda n_, e_: th.theorem_3_bound(n_, d, e_, delta, 1.0, 2.0, 0.5, beta, 1.0)
        assert t3(n2, eps) <= t3(n, eps) * (1 + EXACT) and t3(n, eps2) <= t3(n, eps) * (1 + EXACT)


@SETTINGS
@given(n=st.integers(1, 10 ** 6), dn=st.integers(1, 10 ** 6), d=st.integers(1, 20), eps=st.floats(0.01, 10.0),
       deps=st.floats(1e-3, 10.0), t=st.floats(0.01, 0.99))
def test_lower_bounds_decrease_in_n_and_epsilon(n, dn, d, eps, deps, t):
    """Theorems 1, 4, 5, Proposition 5 and Lemma D.6: more samples or a larger ε never raise a lower bound."""
    n2, eps2 = n + dn, eps + deps
    pairs = [
        (lambda n_, e_: th.proposition_5_bounds(n_, e_, 2.0, 3.0, 1.5)[0]),
        (lambda n_, e_: th.proposition_5_bounds(n_, e_, 2.0, 3.0, 1.5)[1]),
        (lambda n_, e_: th.theorem_5_lower_bound(n_, e_, 2.0, t)),
        (lambda n_, e_: th.lemma_d6_bound(2, 1.0, 0.5, n_)),
    ]
    if n * eps >= d:
        pairs.append(lambda n_, e_: th.theorem_1_lower_bound(n_, d, e_, 0.0, 2.0, 3.0))
        dl = min(eps, 1.0) / 7  # δ < ε/6 at ε and at ε2 > ε, and δ < 1
        pairs.append(lambda n_, e_: th.theorem_1_lower_bound(n_, 1, e_, dl, 2.0, 3.0))
    if 0.5 * n * eps / 2.0 >= math.log(2.0):
        pairs.append(lambda n_, e_: th.theorem_4_lower_bound(n_, d, e_, 2.0, 0.5, 3.0))
    for f in pairs:
        base = f(n, eps)
        assert f(n2, eps) <= base * (1 + EXACT)
        assert f(n, eps2) <= base * (1 + EXACT)


@SETTINGS
@given(L=st.floats(1e-3, 1e3), factor=st.floats(1.0 + 1e-6, 100.0), m=st.integers(2, 10 ** 5),
       d=st.integers(1, 100), eps=st.floats(0.01, 10.0), delta=st.sampled_from([0.0, 1e-9, 0.01]),
       kappa=st.floats(2.1, 6.0))
def test_radii_increase_in_lipschitz_constant(L, factor, m, d, eps, delta, kappa):
    """Algorithms 2, 3 and 6: the next domain's radius grows with the Lipschitz constant L_i (linearly, or as
    L_i^{1/(κ−1)}), strictly."""
    L2 = L * factor
    assert th.algorithm_2_radius(L2, 0.5, m, 5, 0.01, d, eps, delta) > th.algorithm_2_radius(L, 0.5, m, 5, 0.01, d,
                                                                                             eps, delta)
    assert th.algorithm_2_radius(L2, 0.5, m, 5, 0.01, d, eps, delta) == pytest.approx(
        factor * th.algorithm_2_radius(L, 0.5, m, 5, 0.01, d, eps, delta), rel=EXACT)
    assert th.algorithm_3_radius(L2, 0.5, 2 * m, 0.01, d, eps, delta) > th.algorithm_3_radius(L, 0.5, 2 * m, 0.01, d,
                                                                                              eps, delta)
    r6, r6b = (th.algorithm_6_radius(x, 0.5, kappa, m, 5, 0.01, d, eps, delta) for x in (L, L2))
    assert r6b > r6
    assert r6b == pytest.approx(factor ** (1.0 / (kappa - 1.0)) * r6, rel=EXACT)


# ---- bad inputs ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: th.algorithm_4_phases(0), "n"),
    (lambda: th.algorithm_4_eta(0, 1.0), "i"),
    (lambda: th.algorithm_4_eta(1, -1.0), "eta"),
    (lambda: th.algorithm_4_sigma(0.0, 1.0, 2, 1.0, 0.0), "L"),
    (lambda: th.algorithm_4_sigma(1.0, 1.0, 2, 0.0, 0.0), "epsilon"),
    (lambda: th.algorithm_4_sigma(1.0, 1.0, 2, 1.0, 1.0), "delta"),
    (lambda: th.algorithm_4_sigma(1.0, 1.0, 0, 1.0, 0.0), "d"),
    (lambda: th.algorithm_5_epochs(100, 1.0), "kappa_lower"),
    (lambda: th.algorithm_5_epochs(0), "N"),
    (lambda: th.algorithm_5_eta0(1.0, 1.0, 10, 2, 1.0, 0.0, 1.0), "beta"),
    (lambda: th.algorithm_5_eta0(-1.0, 1.0, 10, 2, 1.0, 0.0, 0.1), "D0"),
    (lambda: th.algorithm_2_radius(1.0, 0.0, 100, 5, 0.1, 2, 1.0, 0.0), "lam"),
    (lambda: th.algorithm_2_radius(1.0, 1.0, 1, 5, 0.1, 2, 1.0, 0.0), "m"),
    (lambda: th.algorithm_2_radius(-1.0, 1.0, 100, 5, 0.1, 2, 1.0, 0.0), "L_i"),
    (lambda: th.algorithm_3_radius(1.0, 1.0, 3, 0.1, 2, 1.0, 0.0), "N"),  # ⌊3/2⌋ = 1: log N = 0
    (lambda: th.algorithm_6_radius(1.0, 1.0, 2.0, 100, 5, 0.1, 2, 1.0, 0.0), "kappa"),
    (lambda: th.c_kappa(0.0), "kappa"),
    (lambda: th.theorem_2_parameters(1, 2, 1.0, 0.0, 1.0, 1.0), "n"),
    (lambda: th.theorem_2_parameters(100, 2, 1.0, 0.0, 1.0, 1.0, mu=0.0), "mu"),
    (lambda: th.theorem_8_parameters(0), "n"),
    (lambda: th.theorem_4_lower_bound(100, 2, 1.0, 1.0, 1.0, -2.0), "D"),
    (lambda: th.proposition_5_bounds(100, 1.0, 2.0, 3.0, 0.0), "lam"),
    (lambda: th.lemma_d6_bound(0, 1.0, 1.0, 10), "k"),
    (lambda: th.corollary_4_1_sample_complexity(1.0, 0.5, 2, 1.0, 0.0), "alpha"),
    (lambda: th.corollary_4_1_sample_complexity(0.1, 0.0, 2, 1.0, 0.0), "rho"),
    (lambda: th.theorem_6_bound(100, 2, 1.0, 0.0, 1.0, 1.0, 0.01, kappa=1.5, kappa_lower=2.0), "kappa"),
    (lambda: th.theorem_8_rate(100, 2, 1.0, 0.0, 2.0), "kappa"),
])
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
