"""Asi, Chadha, Cheng & Duchi (2022), arXiv:2210.17070: the errata ACCD22-E1–ACCD22-E15 of ``dpsco.reference.accd22``
(ERRATA.md, section "Asi, Chadha, Cheng & Duchi (2022)"), each confirmed or refuted by a test below.

* ACCD22-E1   Algorithm 5, line 8: the printed batch indices of epoch i = 0 are ≤ 0; ours are disjoint; the clamped
        printed reading puts s_1..s_{n_0} into two phases (exact ε doubles, still ≤ ε by the 4× Laplace slack).
* ACCD22-E2   Algorithm 4, line 7: ε_i = ε; the exact per-phase ε on the tight 1-D pair is ≈ ε/4 ≤ ε.
* ACCD22-E3   Algorithm 4, line 9: the printed Gaussian σ fails its exact curve at large ε or δ near 1.
* ACCD22-E4   Algorithm 4, line 11: an unprojected noisy point makes Algorithm 5's next domain empty.
* ACCD22-E5   Algorithm 3, line 2: Algorithm 1 runs on (X, L, x_0).
* ACCD22-E6   the inner Algorithm 5's epoch count (Theorems 6, 7) is recorded.
* ACCD22-E7   Algorithm 5, lines 3, 5: log n_0 = 0 at n_0 = 1.
* ACCD22-E8   Theorem 2 (δ > 0): √d·log(1/δ) against √(d log(1/δ)).
* ACCD22-E9   Algorithm 2, line 5 and Algorithm 3, line 3: 256 and 128 are below what Theorem 6's 4032 needs.
* ACCD22-E10  Theorems 2, 3, 9: the printed prefactor L·D against the proofs' explicit forms (a mismatch; Theorem 2's
        statement survives, Theorem 3.2's differs from its proof by an unbounded factor).
* ACCD22-E11  Algorithm 6 without the extension is not private on non-interpolating data.
* ACCD22-E12  Algorithm 3, line 3: A(n, ·) instead of A(n/2, ·).
* ACCD22-E13  Theorem 9.1: "ε-DP" for the δ > 0 algorithm.
* ACCD22-E14  Theorem 8: "quadratic growth" and the sample complexity (d/(εα))^{(κ−2)/κ}.
* ACCD22-E15  eq. (4): exp(+Θ̃(nλ²/H²)).

Everything is deterministic: closed forms, the exact Gaussian privacy curve (scipy.stats.norm), and white-box
transcripts of seeded runs whose per-phase sensitivities are recomputed with ``Transcript.phase_minimisers``.
No Monte Carlo estimate is compared with a threshold.

The tight pair used throughout (docs/derivations.md, "Sensitivity of Algorithm 4's phase"): squared loss
F(x; (a, y)) = ½(ax − y)², d = 1, every record (1, Y) with Y = 10⁶ and the neighbour with one record (1, −Y).
On the domain (|x| ≤ 1) the extension F_L (L = 1) has the constant gradient ∓L for these records, so each phase's
objective is a linear term plus (1/(ηb))(x − c)²: its minimiser moves by exactly Lη when one record flips, at
every centre c where the domain constraint is inactive, and the solver's iterates are affine in c.  The per-phase
ε computed at the recorded centres is therefore the same at every interior centre, not a value of one path: a
lower bound on the phase's exact pure-DP ε (attained by outputs beyond both minimisers), which the certified
bound (1 + 2tol)ε/4 caps from above.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from dpsco.reference.accd22 import algorithms as al
from dpsco.reference.accd22 import theorems as th
from dpsco.reference.accd22.extension import SquaredLoss
from dpsco.verification.mutants.accd22.bugs import RAW_GRADIENTS

LOSS = SquaredLoss()
TOL = al.SOLVER_TOL
Y_OUT = 1e6  # the outlier label: |x − y| ≫ M = L/|a| on the domain, so ∇F_L = ∓L there
DOM1 = al.Ball(1.0, center=np.zeros(1))


def _outlier_data(n: int) -> np.ndarray:
    """n records (1, Y): every extended gradient is −L on the domain (a linear phase objective)."""
    return np.tile([1.0, Y_OUT], (n, 1))


def _flip(Z: np.ndarray, *idx: int) -> np.ndarray:
    """The neighbour: the records at ``idx`` replaced by (1, −Y) (gradient +L on the domain)."""
    Zp = Z.copy()
    for i in idx:
        Zp[i] = [1.0, -Y_OUT]
    return Zp


def _phase_eps(tr: al.Transcript, phase: al.PhaseRecord, Z: np.ndarray, Zp: np.ndarray) -> float:
    """The pure-DP ε of one Laplace phase on (Z, Zp): ‖x̂(Z) − x̂(Zp)‖₁/σ at the recorded centres (one row)."""
    a = tr.phase_minimisers(phase, Z)
    b = tr.phase_minimisers(phase, Zp)
    return float(np.sum(np.abs(a - b))) / phase.sigma


def _gauss_delta(eps: float, mu: float) -> float:
    """The exact Gaussian curve δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = Δ/σ (Balle & Wang 2018, Thm 8),
    evaluated in log space with scipy.stats.norm (e^ε overflows for the large ε of ACCD22-E3 otherwise)."""
    a = norm.logcdf(mu / 2.0 - eps / mu)
    b = eps + norm.logcdf(-mu / 2.0 - eps / mu)
    return math.exp(a) * -math.expm1(min(b - a, 0.0))


# =============================================================================================================
# ACCD22-E1 — Algorithm 5, line 8: batch indices
# =============================================================================================================

def test_ACCD22_E1_printed_indices_are_nonpositive_and_ours_are_disjoint():
    """Printed S_i = (s_{1+(i−1)n_0}, …, s_{i n_0}) for i = 0, …, T−1: epoch 0 reads s_{1−n_0}..s_0 (all ≤ 0) and
    the last block s_{(T−1)n_0+1..T n_0} is never read.  Ours: s_{i n_0+1..(i+1)n_0}: every used index enters
    exactly one phase, and the ⌊n/T_5⌋·T_5 records of the epochs are all used (here n_0 = 6 splits into
    k = ⌈log 6⌉ = 2 phases of 3, so no record of an epoch is dropped) — the n − T_5·n_0 = 2 last ones are not."""
    n = 50
    rel = al.algorithm_5(_outlier_data(n), LOSS, DOM1, 1.0, 1.0, [0.0], 1.0, 0.0, np.random.default_rng(0),
                         white_box=True)
    T5, n0 = rel.parameters["T5"], rel.parameters["n0"]
    assert (T5, n0) == (8, 6)  # T_5 = ⌈2 log 50⌉ = ⌈7.82⌉ = 8 (Theorem 6), n_0 = ⌊50/8⌋ = 6
    printed = [(1 + (i - 1) * n0, i * n0) for i in range(T5)]  # 1-based first and last index
    assert printed[0] == (-5, 0) and max(printed[0]) <= 0
    assert max(hi for _, hi in printed) == (T5 - 1) * n0  # indices 43..48 are never read
    count = np.zeros(n, dtype=int)
    for p in rel.white_box.phases:
        count[p.start:p.stop] += 1
    assert np.all(count[:T5 * n0] == 1) and np.all(count[T5 * n0:] == 0)
    assert len(rel.white_box.phases) == T5 * 2


def test_ACCD22_E1_clamped_printed_reading_doubles_the_exact_epsilon():
    """The clamped printed reading runs epochs 0 and 1 both on s_1..s_{n_0} (epoch i ≥ 1 on
    s_{(i−1)n_0+1..i n_0}).  It is *exactly* our algorithm on S̃ = (s_1..s_{n_0}, s_1..s_{n_0},
    s_{n_0+1}, …, s_{(T_5−1)n_0}), and the neighbour that replaces s_1 changes S̃ at positions 0 and n_0.  With
    Laplace noise the transcript's pure-DP ε on the tight pair is Σ|Δ_i|/σ_i over the phases whose batch changed
    (all others have identical conditional laws).  Each term is ε/4·(1 ± 2·SOLVER_TOL) (ACCD22-E2), so the printed
    reading costs ≈ ε/2, twice ours — and still ≤ ε: the 4× slack of the Laplace scale absorbs a record used in up
    to 3 phases.  The erratum is an index typo whose clamped misreading is *not* a privacy violation here."""
    eps, n0, T5 = 1.0, 6, 8
    S = _outlier_data(T5 * n0)
    S_prime = _flip(S, 0)
    S_tilde = np.concatenate([S[:n0], S[:n0], S[n0:(T5 - 1) * n0]])
    S_tilde_prime = np.concatenate([S_prime[:n0], S_prime[:n0], S_prime[n0:(T5 - 1) * n0]])
    assert S_tilde.shape == S.shape

    def run(Z):
        return al.algorithm_5(Z, LOSS, DOM1, 1.0, 1.0, [0.0], eps, 0.0, np.random.default_rng(1), T5=T5,
                              white_box=True).white_box

    ours, printed = run(S), run(S_tilde)
    eps_ours = {p.start: _phase_eps(ours, p, S, S_prime) for p in ours.phases}
    eps_printed = {p.start: _phase_eps(printed, p, S_tilde, S_tilde_prime) for p in printed.phases}
    assert [s for s, e in eps_ours.items() if e > 0] == [0]  # one phase (epoch 0, phase 1) holds s_1
    assert [s for s, e in eps_printed.items() if e > 0] == [0, n0]  # first phase of epochs 0 and 1
    lo, hi = (1 - 2 * TOL) * eps / 4, (1 + 2 * TOL) * eps / 4  # per-phase range (certified solver, ACCD22-E2)
    assert lo <= eps_ours[0] <= hi
    total_printed = sum(eps_printed.values())
    assert 2 * lo <= total_printed <= 2 * hi
    ratio = total_printed / eps_ours[0]
    assert 2 * lo / hi <= ratio <= 2 * hi / lo
    assert ratio == pytest.approx(2.0, abs=0.01)  # measured 2.0036: epoch 1's η is half, its solver factor closer to 1
    assert total_printed <= eps  # the honest part: still within the claim


# =============================================================================================================
# ACCD22-E2 — Algorithm 4, line 7: ε_i
# =============================================================================================================

def test_ACCD22_E2_each_phase_is_at_most_a_quarter_of_epsilon():
    """ε_i = ε.  For every phase, the neighbour that flips that phase's first record changes that phase only
    (ACCD22-E1), and its exact ε is |x̂(S) − x̂(S′)|/σ_i ∈ [(1 − 2tol), (1 + 2tol)]·ε/4: the bound Lη of
    docs/derivations.md ("Sensitivity of Algorithm 4's phase") is attained up to the certified solver tolerance,
    and σ_i = 4Lη_i√d/ε leaves the 4× slack.  Also in d = 2 along the diagonal (‖Δ‖₁ = √2‖Δ‖₂, the ℓ1 worst case
    of the √d in σ_i)."""
    eps = 0.7
    Z = _outlier_data(50)
    tr = al.algorithm_5(Z, LOSS, DOM1, 1.0, 1.0, [0.0], eps, 0.0, np.random.default_rng(2),
                        white_box=True).white_box
    assert len(tr.phases) == 16
    for p in tr.phases:
        e = _phase_eps(tr, p, Z, _flip(Z, p.start))
        assert (1 - 2 * TOL) * eps / 4 <= e <= (1 + 2 * TOL) * eps / 4 <= eps
        assert p.sigma == pytest.approx(4.0 * 1.0 * p.eta * 1.0 / eps, rel=1e-12)  # ε_i = ε, d = 1

    # d = 2: records a = (1, 1)/√2, y = ±Y; the minimiser moves along (1, 1)/√2 by Lη
    a = np.array([1.0, 1.0]) / math.sqrt(2.0)
    Z2 = np.tile(np.concatenate([a, [Y_OUT]]), (50, 1))
    dom2 = al.Ball(1.0, center=np.zeros(2))
    tr2 = al.algorithm_5(Z2, LOSS, dom2, 1.0, 1.0, [0.0, 0.0], eps, 0.0, np.random.default_rng(3),
                         white_box=True).white_box
    for p in tr2.phases:
        Zp = Z2.copy()
        Zp[p.start, -1] = -Y_OUT
        e = _phase_eps(tr2, p, Z2, Zp)
        assert (1 - 2 * TOL) * eps / 4 <= e <= (1 + 2 * TOL) * eps / 4


def test_ACCD22_E2_random_data_stays_below_the_bound():
    """Non-tight data (fixed seed): least-squares records with a few outliers, d = 3.  For each phase the
    neighbour replaces its first record by an outlier; ‖Δ‖₁/σ_i ≤ (1 + 2tol)ε/4 ≤ ε."""
    rng = np.random.default_rng(4)
    n, d, eps = 50, 3, 1.3
    A = rng.standard_normal((n, d))
    A /= np.maximum(1.0, np.linalg.norm(A, axis=1, keepdims=True))  # ‖a‖ ≤ 1: H = 1 is a valid smoothness
    y = A @ np.array([0.3, -0.2, 0.1]) + np.where(rng.uniform(size=n) < 0.2, 50.0, 0.0)
    Z = np.column_stack([A, y])
    dom = al.Ball(1.0, center=np.zeros(d))
    tr = al.algorithm_5(Z, LOSS, dom, 1.0, 1.0, np.zeros(d), eps, 0.0, np.random.default_rng(5),
                        white_box=True).white_box
    for p in tr.phases:
        Zp = Z.copy()
        Zp[p.start] = np.concatenate([-A[p.start], [-80.0]])
        assert _phase_eps(tr, p, Z, Zp) <= (1 + 2 * TOL) * eps / 4


# =============================================================================================================
# ACCD22-E3 — Algorithm 4, line 9: the printed Gaussian σ
# =============================================================================================================

EPS_GRID = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 100.0, 300.0, 1000.0)
DELTA_GRID = (1e-10, 1e-5, 1e-3, 0.1, 0.5, 0.9)


def test_ACCD22_E3_printed_gaussian_sigma_fails_at_large_epsilon_and_phase_noise_repairs_it():
    """σ_i = 4Lη_i√(log(1/δ))/ε against the exact curve at the exact sensitivity Lη_i (μ = ε/(4√(log 1/δ))).

    Grid ε ∈ {0.1, …, 1000} × δ ∈ {1e-10, …, 0.9}: the printed σ is private in every cell with ε ≤ 5 (the usual
    regime: the erratum is real but narrow) and fails in cells with ε ≥ 10 — e.g. (ε, δ) = (300, 1e-5):
    δ(300) = 5.2·10⁻³ ≫ 10⁻⁵ (for large ε, μ grows like ε while ε/μ stays 4√(log 1/δ), and δ(ε) → 1).  The
    printed σ fails for ε above 253.95 at δ = 1e-5, 7.22 at δ = 0.9, 2.36 at δ = 0.99.
    ``phase_noise`` returns a σ that passes the curve at the implemented sensitivity (1 + 2tol)Lη_i in every
    cell (and keeps the printed one where that already passes)."""
    L, eta, d = 1.0, 1e-3, 5
    failing = []
    for eps in EPS_GRID:
        for delta in DELTA_GRID:
            printed = th.algorithm_4_sigma(L, eta, d, eps, delta)
            assert printed == pytest.approx(4 * L * eta * math.sqrt(math.log(1 / delta)) / eps, rel=1e-12)
            if _gauss_delta(eps, L * eta / printed) > delta:
                failing.append((eps, delta))
            # the Gaussian branch runs where d > log(1/δ) (below, the Laplace branch is ε-DP with less noise);
            # its σ does not depend on d, so d_g = the smallest such dimension tests the same formula
            d_g = max(d, math.floor(math.log(1 / delta)) + 1)
            kind, sigma, printed2 = al.phase_noise(L, eta, d_g, eps, delta)
            assert kind == "gaussian" and printed2 == printed and sigma >= printed
            assert _gauss_delta(eps, (1 + 2 * TOL) * L * eta / sigma) <= delta * (1 + 1e-9)  # rounding of the
            # bisection's bracket end in σ: analytic_gaussian_sigma returns the feasible end, 1e-9 is float slack
    assert failing, "no failing cell: the erratum would be refuted"
    assert min(e for e, _ in failing) >= 10.0  # private wherever ε ≤ 5 on the grid
    assert (300.0, 1e-5) in failing
    mu = 300.0 / (4 * math.sqrt(math.log(1e5)))
    assert 5e-3 < _gauss_delta(300.0, mu) < 5.5e-3  # 5.19e-3 = Φ(−2.52) − e^{300}Φ(−24.6) = 5.86e-3 − 0.68e-3
    kind, sigma, printed = al.phase_noise(L, eta, 12, 300.0, 1e-5)  # d = 12 > log(1e5) = 11.5: Gaussian branch
    assert kind == "gaussian" and sigma > printed  # repaired
    assert al.phase_noise(L, eta, 11, 300.0, 1e-5)[0] == "laplace"  # d ≤ log(1/δ): the Laplace branch
    # where the printed σ starts failing: log δ(ε) − log δ along μ = ε/(4√(log 1/δ)) changes sign once (checked
    # on a 200-point grid below the root); brentq to 1e-9
    for delta, lo, hi in ((1e-5, 253.9, 254.0), (0.9, 7.22, 7.23), (0.99, 2.35, 2.36)):
        c = 4 * math.sqrt(math.log(1 / delta))
        g = lambda e: math.log(max(_gauss_delta(e, e / c), 1e-300)) - math.log(delta)
        root = brentq(g, 0.5, 2000.0, xtol=1e-9)
        assert lo < root < hi
        assert all(g(e) < 0 for e in np.linspace(0.5, root * (1 - 1e-6), 200))
    # the "4× slack" of the Laplace branch does not carry over: at sensitivity 4Lη and (1, 1e-5) the printed σ
    # has δ(1) = 4.1e-5 > 1e-5 — an inexact solver with tolerance ≥ 1.5Lη would break the Gaussian branch
    p = th.algorithm_4_sigma(L, eta, d, 1.0, 1e-5)
    assert 3e-5 < _gauss_delta(1.0, 4 * L * eta / p) < 5e-5
    assert _gauss_delta(1.0, (1 + 2 * TOL) * L * eta / p) < 1e-12  # the implemented tolerance is far inside


# =============================================================================================================
# ACCD22-E4 — unprojected noisy outputs empty the next domain
# =============================================================================================================

def test_ACCD22_E4_unprojected_point_empties_the_next_domain_and_projection_keeps_it():
    """Algorithm 5 on n = 2 records (T_5 = ⌈2 log 2⌉ = 2, n_0 = 1, Algorithm 4 with k = 1 phase), X = [−1, 1],
    L = H = 1, ε = 1, δ = 0, β = 1/(n + d) = 1/3 (Theorem 6's condition holds).  The only phase of epoch 0 adds
    Laplace noise of scale 4Lη_1/ε = D_0/(8 log 3) = 0.2276 (η_0's ε/(d log(1/β)) branch).  The printed
    x_1 = x̂_1 + ζ_1 with |x_1| > r + D_1 = 1 + 1 makes X_1 = X ∩ B(x_1, D_1) empty (probability e^{−8.79} per
    run; 20000 seeded replicates hold one).  The implementation centres epoch 1 at Π_X(x_1) ∈ X, so its domain
    contains that centre."""
    R = 20000
    Z = np.array([[1.0, 0.0], [1.0, 0.0]])
    rel = al.algorithm_5(Z, LOSS, DOM1, 1.0, 1.0, [0.0], 1.0, 0.0, np.random.default_rng(0), white_box=True,
                         replicates=R)
    p0, p1 = rel.white_box.phases
    assert p0.sigma == pytest.approx(2.0 / (8.0 * math.log(3.0)), rel=1e-12)
    D1 = p1.balls[1][1]
    assert D1 == pytest.approx(1.0)  # D_1 = 2^{−1}·D_0 (radius, as line 10 prints)
    escaped = np.flatnonzero(np.abs(p0.noisy[:, 0] - DOM1.center[0]) > DOM1.radius + D1)
    assert escaped.size >= 1
    j = int(escaped[0])
    x1 = p0.noisy[j]
    assert abs(x1[0]) > 2.0
    with pytest.raises(ValueError, match="do not intersect"):  # the printed domain is empty
        al.project_balls(np.zeros((1, 1)), [(DOM1.center, DOM1.radius), (x1, D1)])
    centre = p1.centers[j]
    assert centre[0] == pytest.approx(math.copysign(1.0, x1[0]))  # Π_X(x_1): the boundary point
    assert np.linalg.norm(centre - DOM1.center) <= DOM1.radius * (1 + 1e-12)  # centre ∈ X ∩ B(centre, D_1)
    assert np.all(np.abs(rel.output) <= 1.0 + 1e-12)  # every replicate's output lies in X


# =============================================================================================================
# ACCD22-E5, ACCD22-E6, ACCD22-E13 — documentation tests on the recorded parameters and claims
# =============================================================================================================

def _alg3_data(n: int = 64, d: int = 2) -> np.ndarray:
    rng = np.random.default_rng(6)
    A = rng.standard_normal((n, d))
    A /= np.maximum(1.0, np.linalg.norm(A, axis=1, keepdims=True))
    return np.column_stack([A, A @ np.array([0.2, -0.1])])


def test_ACCD22_E5_algorithm_3_line_2_runs_on_X_L_x0():
    """Printed line 2: Algorithm 1 "with constraint set X_i, Lipschitz constant L_i, initial point x_{i−1}" —
    symbols bound only inside Algorithm 2's loop.  Ours: (X, L, x_0) and T_5 = ⌈2 log(n/2)⌉ (ACCD22-E6): every phase of
    the first half has the top-level L, the first phase is centred at x_0 on the domain X."""
    Z = _alg3_data()
    dom = al.Ball(1.0, center=np.zeros(2))
    x0 = np.array([0.1, 0.0])
    rel = al.algorithm_3(Z, LOSS, dom, 3.0, 1.0, 0.5, x0, 1.0, 0.0, np.random.default_rng(0), m=8, white_box=True)
    P = rel.parameters
    assert P["L"] == 3.0 and P["T5_first_half"] == th.algorithm_5_epochs(32) == 7  # ⌈2 log 32⌉ = ⌈6.93⌉
    first = [p for p in rel.white_box.phases if p.stop <= 32]
    assert len(first) == 7 * 2  # n_0 = ⌊32/7⌋ = 4, k = ⌈log 4⌉ = 2
    assert all(p.L == 3.0 for p in first)
    c, r = first[0].balls[0]
    assert np.allclose(c, dom.center) and r == dom.radius
    assert np.allclose(first[0].centers, x0)
    assert all(p.start >= 32 for p in rel.white_box.phases if p not in first)  # disjoint halves


def test_ACCD22_E6_inner_algorithm_5_epochs_are_theorem_6s():
    """Algorithms 2, 3, 6 do not say how many epochs their inner Algorithm 5 runs; ours is Theorem 6's
    ⌈2 log N/(κ̲ − 1)⌉ with N the call's sample size (κ̲ = 2 for Algorithms 2 and 3, κ for Algorithm 6), recorded
    in the release and visible in the transcript's phase count."""
    Z = _alg3_data(64)
    dom = al.Ball(1.0, center=np.zeros(2))
    r2 = al.algorithm_2(Z, LOSS, dom, 3.0, 1.0, 0.5, [0.0, 0.0], 1.0, 0.0, np.random.default_rng(0), m=16,
                        white_box=True)
    assert r2.parameters["T5"] == math.ceil(2 * math.log(16)) == 6
    k4 = th.algorithm_4_phases(16 // 6)[0]  # n_0 = 2, k = ⌈log 2⌉ = 1
    assert len(r2.white_box.phases) == r2.parameters["T"] * 6 * k4
    r3 = al.algorithm_3(Z, LOSS, dom, 3.0, 1.0, 0.5, [0.0, 0.0], 1.0, 0.0, np.random.default_rng(0), m=8)
    assert r3.parameters["T5"] == math.ceil(2 * math.log(8)) == 5
    assert r3.parameters["T5_first_half"] == math.ceil(2 * math.log(32)) == 7
    r6 = al.algorithm_6(Z, LOSS, dom, 3.0, 1.0, 0.5, 3.0, [0.0, 0.0], 1.0, 0.0, np.random.default_rng(0))
    m6 = r6.parameters["m"]
    assert (r6.parameters["T"], m6) == (4, 16)  # Theorem 8: T = ⌊log 64⌋ = 4, m = 16
    assert r6.parameters["T5"] == math.ceil(2 * math.log(m6) / (3.0 - 1.0)) == 3


def test_ACCD22_E13_theorem_9_claim_is_approx_dp():
    """Theorem 9.1 prints "Algorithm 3 is ε-DP" for the δ > 0 algorithm (Gaussian noise where d > log(1/δ),
    never pure DP).  The claim of ``algorithm_3`` with δ > 0 is (ε, δ)-DP with that δ, and pure ε-DP for δ = 0.
    (Here d = 2 ≤ log(1/δ) for δ ≤ e^{−2}: the Laplace branch — ε-DP, hence (ε, δ)-DP — at δ = 1e-5; δ = 0.5 gives
    log 2 < d and the Gaussian branch.)"""
    Z = _alg3_data()
    dom = al.Ball(1.0, center=np.zeros(2))
    for delta, notion, kind in ((0.5, "approx-DP", "gaussian"), (1e-5, "approx-DP", "laplace"),
                                (0.0, "pure-DP", "laplace")):
        rel = al.algorithm_3(Z, LOSS, dom, 3.0, 1.0, 0.5, [0.0, 0.0], 1.0, delta, np.random.default_rng(0), m=8,
                             white_box=True)
        assert rel.claim.notion == notion and rel.claim.epsilon == 1.0 and rel.claim.delta == delta
        assert "Theorem 9.1" in rel.claim.source
        assert {p.noise for p in rel.white_box.phases} == {kind}


# =============================================================================================================
# ACCD22-E7, ACCD22-E8 — formulas
# =============================================================================================================

def test_ACCD22_E7_eta0_floors_log_n0():
    """Printed η_0 = (D_0/(2L))·min{1/√(n_0 log(n_0) log(1/β)), ε/(d log(1/β))}: at n_0 = 1, log n_0 = 0 and the
    first term is 1/0 (Python raises; IEEE gives +inf, which the min then silently ignores); at n_0 = 2 it is
    1/√(log 2) = 1.20× larger than with log n_0 floored at 1.  From n_0 = 3 (log 3 > 1) the two agree."""
    D0, L, d, eps, beta = 2.0, 1.0, 1, 100.0, 0.01  # large ε: the first (statistical) branch is the min

    def printed(n0):
        return D0 / (2 * L) * min(1.0 / math.sqrt(n0 * math.log(n0) * math.log(1 / beta)),
                                  eps / (d * math.log(1 / beta)))

    with pytest.raises(ZeroDivisionError):
        printed(1)
    ours1 = th.algorithm_5_eta0(D0, L, 1, d, eps, 0.0, beta)
    assert math.isfinite(ours1)
    assert ours1 == pytest.approx(D0 / (2 * L) / math.sqrt(math.log(1 / beta)), rel=1e-12)
    assert printed(2) / th.algorithm_5_eta0(D0, L, 2, d, eps, 0.0, beta) == pytest.approx(
        1 / math.sqrt(math.log(2)), rel=1e-12)
    for n0 in (3, 10, 1000):
        assert th.algorithm_5_eta0(D0, L, n0, d, eps, 0.0, beta) == pytest.approx(printed(n0), rel=1e-12)


def test_ACCD22_E8_theorem_2_delta_term():
    """Theorem 2 (δ > 0) prints m with √d·log(1/δ); Algorithm 2 line 5, Theorem 7 and eq. (4) use
    √(d log(1/δ)).  The two differ by √(log(1/δ)) (4.80 at δ = 10⁻¹⁰); ``printed=True`` reaches the printed m."""
    n, d, eps, delta, H, lam = 10**4, 10**6, 0.1, 1e-10, 1.0, 1.0
    ln = math.log(n)
    _, m_ours, _ = th.theorem_2_parameters(n, d, eps, delta, H, lam)
    _, m_printed, _ = th.theorem_2_parameters(n, d, eps, delta, H, lam, printed=True)
    # hand: the d-term dominates both maxima (√(10⁶·23.03)/(0.1·√9.21) = 15811 > 256)
    base = 256 * ln**2 * (H * ln / lam)  # β = 1/n: log(1/β) = log n
    assert m_ours == pytest.approx(base * math.sqrt(d * math.log(1 / delta)) / (eps * math.sqrt(ln)), rel=1e-12)
    assert m_printed == pytest.approx(base * math.sqrt(d) * math.log(1 / delta) / (eps * math.sqrt(ln)), rel=1e-12)
    assert m_printed / m_ours == pytest.approx(math.sqrt(math.log(1 / delta)), rel=1e-12)
    assert 4.79 < m_printed / m_ours < 4.81
    # δ = 0: both readings are d
    assert th.theorem_2_parameters(n, 10, 1.0, 0.0, H, lam) == th.theorem_2_parameters(n, 10, 1.0, 0.0, H, lam,
                                                                                        printed=True)


# =============================================================================================================
# ACCD22-E9 — the localisation constants against Theorem 6's 4032
# =============================================================================================================

C_MAX_FORM = 2 * math.sqrt(2 * 4 * th.THEOREM_6_CONSTANT)  # 359.2
C_SUM_FORM = 2 * math.sqrt(2 * th.THEOREM_6_CONSTANT)  # 179.6


def _required_constant(bound: float, lam: float, L: float, rate: float) -> float:
    """The c with c·(L/λ)·rate/2 = √(2·bound/λ): quadratic growth (λ/2)‖x − x*‖² ≤ f(x) − f* ≤ bound puts x*
    within √(2·bound/λ) of x, and the next domain is the ball of *radius* D/2 around x."""
    return 2.0 * math.sqrt(2.0 * bound / lam) * lam / (L * rate)


def test_ACCD22_E9_algorithm_2_needs_359_and_algorithm_3_needs_180():
    """Theorem 6 (κ = κ̲ = 2) bounds f(x) − f* by (4032/λ)L²(t_1 + t_2)² — a *sum* of the statistical term t_1
    and the privacy term t_2.  Algorithm 2's radius uses M = max(t_1, t_2) (Lemma C.1 writes Theorem 6 with a
    max); since t_1 + t_2 ≤ 2M, containment for every parameter needs c ≥ 2√(2·4·4032) = 359.2 > 256, attained
    where t_1 = t_2.  Where one term dominates (min/max < 256/179.6 − 1 = 0.425) the printed 256 is enough.
    Algorithm 3's A is the sum itself, so c ≥ 2√(2·4032) = 179.6 > 128 at every parameter point.  (Utility
    only: no privacy quantity depends on these constants.)"""
    assert C_MAX_FORM == pytest.approx(359.199, abs=1e-3) and C_SUM_FORM == pytest.approx(179.600, abs=1e-3)
    assert th.ALGORITHM_2_CONSTANT == 256.0 < C_MAX_FORM
    assert th.ALGORITHM_3_CONSTANT == 128.0 < C_SUM_FORM
    L, lam, d, m, T, beta = 2.0, 0.5, 10, 1000, 5, 0.01
    lt = math.log(T / beta)
    t1 = math.sqrt(lt) * math.log(m) ** 1.5 / math.sqrt(m)
    eps_bal = d * lt * math.log(m) / (m * t1)  # t_2 = t_1
    for eps, expect in ((eps_bal, C_MAX_FORM), (100.0 * eps_bal, None), (0.01 * eps_bal, None)):
        M = th.localization_rate_max(m, T, beta, d, eps, 0.0)
        bound = th.theorem_6_bound(m, d, eps, 0.0, L, lam, beta / T)  # Theorem 6 at Algorithm 1's β/T
        c_req = _required_constant(bound, lam, L, M)
        t2 = d * lt * math.log(m) / (m * eps)
        assert c_req == pytest.approx(C_SUM_FORM * (t1 + t2) / max(t1, t2), rel=1e-12)
        if expect is not None:
            assert c_req == pytest.approx(expect, rel=1e-9) and c_req > th.ALGORITHM_2_CONSTANT
        else:
            assert min(t1, t2) / max(t1, t2) < 0.4254 and c_req < th.ALGORITHM_2_CONSTANT
    # Algorithm 3: x_1 from N = n/2 records with β/2; A(N, β/2) is Theorem 6's inner sum exactly
    n = 2000
    for eps in (0.01, 1.0, 100.0):
        A = th.localization_rate_sum(n // 2, beta / 2, d, eps, 0.0)
        bound = th.theorem_6_bound(n // 2, d, eps, 0.0, L, lam, beta / 2)
        assert _required_constant(bound, lam, L, A) == pytest.approx(C_SUM_FORM, rel=1e-12)


# =============================================================================================================
# ACCD22-E10 — the printed prefactor L·D
# =============================================================================================================

def test_ACCD22_E10_proof_terms_against_the_printed_prefactor():
    """Theorem 2's proof ends with (L²λ/(8H²))e^{−T} + β·HD²/2; Theorem 3.2/9.2's with (H/2)D_int² =
    8192·H·L²A²/λ² (on the good event); the statements print L·D·(…).

    (a) βHD²/2 > β·LD, i.e. HD > 2L, does happen under interpolation and quadratic growth — not with quadratics
    (their L is H·max‖x − x*‖ ≥ HD/2) but with the Huber loss F(x) = h_τ(x) = ½x² (|x| ≤ τ), τ|x| − τ²/2 beyond:
    L = τ, H = 1, on X = [−R, R] with x* = 0 the growth constant is λ = (2τR − τ²)/R² (the growth ratio
    (τr − τ²/2)/(r²/2) decreases in r ≥ τ).  τ = 1, R = 10: HD²/2 = 200 > LD = 20.  The printed β-term is still
    right: f − f* ≤ L·‖x − x*‖ ≤ LD on X, so the proof's HD²/2 step is loose, not the statement (9.5 here).
    (b) The first term is ≤ (LD/8)e^{−T} under interpolation when L is the best Lipschitz constant on X:
    L ≤ HD (∇F(x*; s) = 0) and λ ≤ H.  (For a looser input L ≫ HD the proof's L² term is not ≤ L·D·(…).)
    (c) Theorem 3.2's explicit form over the printed L·D·A² is 8192·H·L/(λ²D), unbounded in the problem
    constants (below: F(x; s) = (λ/2)x² + Gsx, s = ±1, on [−1, 1]: H = λ, L = λ + G), so no absolute constant
    hidden in Õ reconciles them.  Confirmed as a proof/statement mismatch; Theorem 2's statement survives (a, b),
    Theorem 3.2's is not refuted (that would need a lower bound)."""
    tau, R = 1.0, 10.0
    L, H, D = tau, 1.0, 2 * R
    lam = (2 * tau * R - tau**2) / R**2
    x = np.linspace(-R, R, 20001)
    f = LOSS.extended_value(x[:, None], np.array([[1.0, 0.0]]), tau)[:, 0]  # ½·Huber_τ: the extension at L = τ
    assert np.all(f >= lam / 2 * x**2 - 1e-12)  # λ-quadratic growth on X
    assert np.max(np.abs(np.diff(f) / np.diff(x))) <= L + 1e-12  # L-Lipschitz
    assert H * D**2 / 2 == 200.0 and L * D == 20.0 and H * D > 2 * L
    assert f.max() == pytest.approx(tau * R - tau**2 / 2) and f.max() <= L * D  # the Lipschitz step
    n, mu = 10**4, 1.0
    assert th.theorem_2_bound(3, n, mu, L, H, lam, D) - L**2 * lam / (8 * H**2) * math.exp(-3) == pytest.approx(
        n**-mu * H * D**2 / 2, rel=1e-12)
    # (b)
    for T in (1, 5, 20):
        assert L**2 * lam / (8 * H**2) * math.exp(-T) <= L * D / 8 * math.exp(-T)
    # (c)
    lam3, Rb, eps, beta, d = 1.0, 1.0, 1.0, 0.01, 5
    ratios = []
    for G in (1.0, 100.0, 1e4):
        L3, H3, D3 = lam3 * Rb + G, lam3, 2 * Rb
        A = th.localization_rate_sum(n // 2, beta / 2, d, eps, 0.0)
        explicit = th.theorem_3_bound(n, d, eps, 0.0, L3, H3, lam3, beta, D3) - beta / 2 * H3 * D3**2 / 2
        assert explicit == pytest.approx(8192 * H3 * L3**2 * A**2 / lam3**2, rel=1e-12)
        ratios.append(explicit / (L3 * D3 * A**2))
        assert ratios[-1] == pytest.approx(8192 * H3 * L3 / (lam3**2 * D3), rel=1e-12)
    assert ratios[2] / ratios[0] == pytest.approx((1 + 1e4) / 2, rel=1e-12)  # linear in G: unbounded


# =============================================================================================================
# ACCD22-E11 — Algorithm 6 needs the extension
# =============================================================================================================

def test_ACCD22_E11_algorithm_6_without_extension_breaks_the_laplace_calibration():
    """Algorithm 6 on interpolating data S (records (1, 0), x* = 0; d = 1, n = 60: T = 4 epochs of m = 15, κ = 3)
    and its neighbour S′ whose record in the last phase is the outlier (1, 10⁵) (not interpolating).  With raw
    gradients (``mutants.accd22.RAW_GRADIENTS``, what the printed box says) the last phase's exact sensitivity at the recorded
    centre is 3.68 ≈ 10⁵·η/2 = 25.7·L_Tη (the outlier's gradient x − 10⁵ is ≫ L_T = H·D_T = 1945), beyond the
    4L_Tη that σ = 4L_Tη/ε tolerates: the exact ε of that phase is 6.43ε.  With the extension (default) the same
    pair moves the minimiser by ≤ (1 + 2tol)L_Tη (measured 0.49·L_Tη).  On S itself the two runs are identical
    (Proposition 1.2: the extension is inactive on L_i-Lipschitz data, shared seed)."""
    n, eps = 60, 1.0
    S = np.column_stack([np.ones(n), np.zeros(n)])
    runs = {}
    for bug in (None, "raw_gradients"):  # the printed box: the reference's run with the raw-gradient oracle
        parts = al.REFERENCE_PARTS if bug is None else RAW_GRADIENTS
        runs[bug] = al.run_with_parts("algorithm_6", parts, S, LOSS, DOM1, 1.0, 1.0, 1.0, 3.0, [0.5], eps, 0.0,
                                      np.random.default_rng(0), white_box=True)
    assert np.array_equal(runs[None].output, runs["raw_gradients"].output)
    assert (runs[None].parameters["T"], runs[None].parameters["m"]) == (4, 15)
    for bug, rel in runs.items():
        tr = rel.white_box
        last = tr.phases[-1]
        assert last.L == rel.parameters["epochs"][-1]["L_i"] > 1.0  # L_T = H·D_T
        S_prime = S.copy()
        S_prime[last.start] = [1.0, 1e5]
        delta = float(np.abs(tr.phase_minimisers(last, S) - tr.phase_minimisers(last, S_prime))[0, 0])
        exact_eps = delta / last.sigma
        if bug is None:
            assert delta <= (1 + 2 * TOL) * last.L * last.eta
            assert exact_eps <= (1 + 2 * TOL) * eps / 4
        else:
            assert delta > 4 * last.L * last.eta  # the Laplace calibration's tolerance is exceeded
            assert exact_eps > eps
            assert 6.0 < exact_eps / eps < 7.0  # measured 6.43: the shift 3.68 ≪ the domain radius 486 (inactive)


# =============================================================================================================
# ACCD22-E12 — Algorithm 3 line 3 uses n
# =============================================================================================================

def test_ACCD22_E12_printed_radius_uses_n_instead_of_n_over_2():
    """D_int = 128(L/λ)A(N, β/2) with N = n/2 = |S_1| (ours) or N = n (printed).  Per term, A(n)/A(n/2) is
    r_1 = (1/√2)(log n/log(n/2))^{3/2} (statistical) and r_2 = log n/(2 log(n/2)) (privacy), so the printed
    radius is smaller by a factor between them (→ 1/√2 and 1/2 as n grows): 0.56–0.83 at n = 1000.  Together with
    ACCD22-E9 the effective constant drops further below the 179.6 containment needs."""
    L, lam, beta, d = 1.0, 1.0, 0.01, 10
    for n in (100, 1000, 10**6):
        r1 = (math.log(n) / math.log(n / 2)) ** 1.5 / math.sqrt(2)
        r2 = math.log(n) / (2 * math.log(n / 2))
        for eps in (0.01, 1.0, 100.0):
            ratio = th.algorithm_3_radius(L, lam, n, beta, d, eps, 0.0, printed=True) / th.algorithm_3_radius(
                L, lam, n, beta, d, eps, 0.0)
            assert min(r1, r2) - 1e-12 <= ratio <= max(r1, r2) + 1e-12 and ratio < 1
    assert 0.55 < math.log(1000) / (2 * math.log(500)) < 0.56 and 0.82 < (
        math.log(1000) / math.log(500)) ** 1.5 / math.sqrt(2) < 0.83
    Z = _alg3_data()
    dom = al.Ball(1.0, center=np.zeros(2))
    kw = dict(m=8)
    r_ours = al.algorithm_3(Z, LOSS, dom, 3.0, 1.0, 0.5, [0.0, 0.0], 1.0, 0.0, np.random.default_rng(0), **kw)
    r_pr = al.algorithm_3(Z, LOSS, dom, 3.0, 1.0, 0.5, [0.0, 0.0], 1.0, 0.0, np.random.default_rng(0),
                          printed_radius=True, **kw)
    b = r_ours.parameters["beta"]
    assert r_ours.parameters["D_int"] == pytest.approx(th.algorithm_3_radius(3.0, 0.5, 64, b, 2, 1.0, 0.0))
    assert r_pr.parameters["D_int"] == pytest.approx(th.algorithm_3_radius(3.0, 0.5, 64, b, 2, 1.0, 0.0,
                                                                           printed=True))
    assert r_pr.parameters["D_int"] < r_ours.parameters["D_int"]


# =============================================================================================================
# ACCD22-E14 — Theorem 8's growth condition and sample complexity
# =============================================================================================================

def test_ACCD22_E14_theorem_8_sample_complexity_is_linear_in_d():
    """Rate r(n) = (1/√n + d/(nε))^{κ/(κ−2)} ≤ α ⟺ 1/√n + d/(nε) ≤ a := α^{(κ−2)/κ}; both terms ≤ a/2 suffice, so
    n = 4α^{−2(κ−2)/κ} + 2(d/ε)α^{−(κ−2)/κ} gives r ≤ α exactly, and n_c = α^{−2(κ−2)/κ} + (d/ε)α^{−(κ−2)/κ}
    gives r ≤ 2^{κ/(κ−2)}α — linear in d/ε.  The printed max{α^{−2(κ−2)/κ}, (d/(εα))^{(κ−2)/κ}} grows like
    d^{(κ−2)/κ}: at κ = 3, α = 10⁻³, d/ε = 10⁴ it is n = 216, where r = 10⁵ = 10⁸α.  (Theorem 8 also prints
    "quadratic growth (Definition 2.4)" though its exponent κ/(κ−2) needs κ > 2: ``theorem_8_rate`` refuses
    κ = 2, where κ/(κ−2) is undefined.)"""
    with pytest.raises(ValueError, match="kappa > 2"):
        th.theorem_8_rate(100, 1, 1.0, 0.0, 2.0)
    eps = 1.0
    for kappa in (3.0, 4.0, 6.0):
        for alpha in (1e-2, 1e-3):
            for d in (10, 10**4):
                p = (kappa - 2) / kappa
                n_c = alpha ** (-2 * p) + d / eps * alpha ** (-p)
                n_suff = 4 * alpha ** (-2 * p) + 2 * d / eps * alpha ** (-p)
                assert th.theorem_8_rate(math.ceil(n_suff), d, eps, 0.0, kappa) <= alpha
                assert th.theorem_8_rate(math.ceil(n_c), d, eps, 0.0, kappa) <= 2 ** (kappa / (kappa - 2)) * alpha
    kappa, alpha, d = 3.0, 1e-3, 10**4
    p = 1 / 3
    n_printed = max(alpha ** (-2 * p), (d / (eps * alpha)) ** p)
    assert n_printed == pytest.approx(215.443, rel=1e-5)
    r = th.theorem_8_rate(math.ceil(n_printed), d, eps, 0.0, kappa)
    assert r > 1e7 * alpha
    # d-dependence: doubling d doubles the privacy part of n_c but multiplies the printed one by 2^{1/3}
    n_c = lambda dd: alpha ** (-2 * p) + dd / eps * alpha ** (-p)
    n_p = lambda dd: max(alpha ** (-2 * p), (dd / (eps * alpha)) ** p)
    assert (n_c(2 * d) - alpha ** (-2 * p)) / (n_c(d) - alpha ** (-2 * p)) == pytest.approx(2.0, rel=1e-12)
    assert n_p(2 * d) / n_p(d) == pytest.approx(2 ** p, rel=1e-12)


# =============================================================================================================
# ACCD22-E15 — eq. (4)'s sign
# =============================================================================================================

def test_ACCD22_E15_equation_4_sign():
    """Eq. (4) (Theorem 2, δ > 0) prints LD(n^{−μ} + exp(+Θ̃(nλ²/H²)) + exp(−Θ̃(λnε/(H√(d log(1/δ)))))); eq. (3)
    and Theorem 9.3 (the δ > 0 form of the same bound) print exp(−Θ̃(nλ²/H²)).  The proof gives e^{−T} with
    T = n/m and m's first branch, T = nλ²/(65536μH² log³n) (Theorem 2's m with log(1/β) = μ log n): with the
    printed sign that term increases with n and exceeds 1, so eq. (4) would bound the excess by more than L·D,
    which every point of X already satisfies (f − f* ≤ L·D): vacuous.  With the minus sign (eq. (3)) it decreases,
    as ``theorem_2_bound`` does in T.  Confirmed: a missing minus sign."""
    lam, H, mu, L, D = 1.0, 1.0, 1.0, 1.0, 2.0
    Texp = lambda n: n * lam**2 / (65536 * mu * H**2 * math.log(n) ** 3)
    ns = [10**k for k in range(7, 12)]  # T(10¹¹) = 94 (exp(+T) is still a finite float)
    printed4 = [math.exp(+Texp(n)) for n in ns]
    eq3 = [math.exp(-Texp(n)) for n in ns]
    assert all(b > a for a, b in zip(printed4, printed4[1:])) and printed4[-1] > 1.0
    assert all(b < a for a, b in zip(eq3, eq3[1:])) and eq3[-1] < 1e-3
    assert L * D * printed4[-1] > L * D  # the printed bound exceeds the trivial sup_X (f − f*) ≤ LD
    # the proof's explicit form (theorem_2_bound) decreases in T
    vals = [th.theorem_2_bound(T, 10**6, mu, L, H, lam, D) for T in (1, 2, 4, 8)]
    assert all(b < a for a, b in zip(vals, vals[1:]))


# =============================================================================================================
# ACCD22-E16 — "roughly n/log n epochs with log n samples each" (the text after Theorem 2)
# =============================================================================================================

def test_ACCD22_E16_theorem_2_epochs_have_log_cubed_samples_not_log_n():
    """Theorem 2's m = 256·log²n·(H log(1/β)/λ)·max{256H/λ, d/(ε√(log n))} with β = n^{−μ}: log(1/β) = μ log n, so
    where the first branch of the max is taken m = 65536·μ·(H/λ)²·log³n — Θ(log³n) samples per epoch and
    T = n/m = Θ(n/log³n) epochs, not the text's "n/log n epochs with log n samples each".  By hand: m/log³n is
    the constant 65536μ(H/λ)² on the whole grid (H/λ = 1, μ = 1, d/ε small), while m/log n grows like log²n."""
    for n in (10 ** 4, 10 ** 6, 10 ** 8, 10 ** 10):
        _, m, _ = th.theorem_2_parameters(n, 1, 1000.0, 0.0, 1.0, 1.0, 1.0)  # d/ε = 1e-3: the 256H/λ branch
        assert m / math.log(n) ** 3 == pytest.approx(65536.0, rel=1e-12)
    ratios = [th.theorem_2_parameters(n, 1, 1000.0, 0.0, 1.0, 1.0, 1.0)[1] / math.log(n) for n in (10 ** 4, 10 ** 8)]
    assert ratios[1] / ratios[0] == pytest.approx((math.log(1e8) / math.log(1e4)) ** 2, rel=1e-12)  # = 4
