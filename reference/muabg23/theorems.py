"""The bounds of Menart, Ullah, Arora, Bassily & Guzmán (2023), arXiv:2311.13447 v2, as plain functions.

Every function is named after its theorem / lemma / line and takes public parameters only (γ, κ, L_0, L_1,
\\tilde L_1, F_0, n, d, ρ, β).  Where the proof fixes a constant the function uses it; where the paper writes O(·)
the function returns the expression with every O-constant equal to 1 (a *shape*, for rate checks).  Where the
printed text is replaced (a calibration or a union-bound count), the printed form stays reachable through
``calibration="printed"`` and the exact one is the default ``calibration="exact"``.

The seed text lacks the algorithm boxes and most displayed formulas; the formulas below are **reconstructed**
from the proofs where said.  Natural logarithms throughout; A := log(n√ρ/β) (Algorithm 3 / Theorem 4).

Privacy conversions (Bun & Steinke 2016): ρ-zCDP ⇒ (ρ + 2√(ρ log(1/δ)), δ)-DP (Prop. 1.3); ε-DP ⇒ (ε²/2)-zCDP
(Prop. 1.4 = the paper's Lemma 14).
"""

from __future__ import annotations

import math

from dpsco.reference import conversions
from dpsco.reference.validation import check_choice, check_delta, check_positive, check_positive_int

__all__ = [
    "algorithm1_K",
    "algorithm1_beta_prime",
    "algorithm1_phase_constant",
    "algorithm2_T",
    "algorithm4_T",
    "epsilon_from_zcdp",
    "lemma1_radius",
    "lemma3_excess",
    "lemma6_kl_from_growth",
    "lemma7_growth_from_kl",
    "pure_dp_to_zcdp",
    "theorem1_floor",
    "theorem1_rate",
    "theorem2_bound",
    "theorem2_rate",
    "theorem4_A",
    "theorem4_bound",
    "theorem4_p_max",
    "theorem5_bound",
    "theorem8_conditions",
    "theorem8_lower_bound",
    "theorem8_pair_lower_bound",
    "theorem8_violated",
    "theorem9_bound",
    "zcdp_from_epsilon",
    "zcdp_from_epsilon_sufficient",
]

CALIBRATIONS = ("exact", "printed")


def _pow(base: float, exponent: float) -> float:
    """base ** exponent, or inf where the true value exceeds double precision (Python's float power raises
    OverflowError there; independent review D5)."""
    try:
        return base ** exponent
    except OverflowError:
        return math.inf


def _log_ratio(n: int, rho: float, gamma: float, L0: float, d: int = 1) -> float:
    """log(n√ρ/(γL_0√d)) as a sum of logarithms: finite for every positive finite input (the quotient under- or
    overflowed for extreme γL_0, and log(0) raised)."""
    return math.log(n) + 0.5 * math.log(rho) - math.log(gamma) - math.log(L0) - 0.5 * math.log(d)


def _kappa(kappa: float, low: float = 1.0, high: float = math.inf) -> float:
    k = check_positive(kappa, "kappa")
    if not low <= k <= high:
        raise ValueError(f"kappa must be in [{low}, {high}], got {k}")
    return k


# --------------------------------------------------------------------------------------------------------------
# conversions
# --------------------------------------------------------------------------------------------------------------
#: ε = ρ + 2√(ρ log(1/δ)): ρ-zCDP ⇒ (ε, δ)-DP (Bun & Steinke 2016, Prop. 1.3): the core conversion (rounded up)
epsilon_from_zcdp = conversions.zcdp_epsilon
#: the largest ρ with ρ + 2√(ρ log(1/δ)) ≤ ε, the inverse of epsilon_from_zcdp (the core conversion, rounded down)
zcdp_from_epsilon = conversions.zcdp_rho


def zcdp_from_epsilon_sufficient(epsilon: float, delta: float) -> float:
    """ρ = ε²/(8 log(1/δ)), the paper's "ρ = O(ε²/log(1/δ))" with a constant that suffices for ε ≤ log(1/δ)
    (then ρ + 2√(ρ log(1/δ)) = ε²/(8 log(1/δ)) + ε/√2 ≤ ε/8 + ε/√2 < ε).  ValueError if ε > log(1/δ)."""
    epsilon = check_positive(epsilon, "epsilon")
    d = check_delta(delta)
    L = math.log(1.0 / d) if d > 0.0 else math.inf     # δ = 0: ρ = 0 (as the exact inverse zcdp_from_epsilon)
    if epsilon > L:
        raise ValueError(f"epsilon must be <= log(1/delta) = {L:.4g} for this conversion, got {epsilon}")
    return epsilon ** 2 / (8.0 * L)


#: ε-DP ⇒ (ε²/2)-zCDP (Lemma 14; Bun & Steinke 2016, Prop. 1.4): the core conversion (rounded up)
pure_dp_to_zcdp = conversions.pure_dp_to_zcdp


# --------------------------------------------------------------------------------------------------------------
# Algorithm 1 / Theorem 1 (κ ∈ [1, 2]; reconstructed box)
# --------------------------------------------------------------------------------------------------------------
def algorithm1_phase_constant(gamma: float, kappa: float, L1: float, F0: float) -> float:
    """c = 1 + F_0^{(2−κ)/κ}/(64 γ² L_1) (Algorithm 1, line 2; the contraction factor of Φ̂_k per round)."""
    kappa = _kappa(kappa, 1.0, 2.0)
    gamma, L1, F0 = check_positive(gamma, "gamma"), check_positive(L1, "L1"), check_positive(F0, "F0")
    x = F0 ** ((2.0 - kappa) / (2.0 * kappa)) / gamma        # scale-free: no γ² (it over/underflowed)
    return 1.0 + x * x / 64.0 / L1


def algorithm1_K(gamma: float, kappa: float, L0: float, L1: float, F0: float, n: int, d: int, rho: float) -> int:
    """K = ⌈(1 + 64 F_0^{−(2−κ)/κ} γ² L_1)(log F_0 + κ log(n√ρ/(γ L_0 √d)))⌉, at least 1 (Algorithm 1, line 3;
    the ceiling and the clamp are ours: the paper treats K as real and K ≤ 0 is the trivial regime)."""
    kappa = _kappa(kappa, 1.0, 2.0)
    gamma, L0, L1, F0 = (check_positive(v, k) for v, k in ((gamma, "gamma"), (L0, "L0"), (L1, "L1"), (F0, "F0")))
    n, d, rho = check_positive_int(n, "n"), check_positive_int(d, "d"), check_positive(rho, "rho")
    logs = math.log(F0) + kappa * _log_ratio(n, rho, gamma, L0, d)
    if logs <= 0.0:
        return 1
    y = gamma / F0 ** ((2.0 - kappa) / (2.0 * kappa))
    K = (1.0 + 64.0 * (y * y) * L1) * logs
    if not math.isfinite(K):
        raise ValueError(f"gamma, F0, L1: K = {K} is beyond double precision at these inputs")
    return max(1, math.ceil(K))


def algorithm1_beta_prime(beta: float, K: int, gamma: float, kappa: float, L0: float, F0: float, n: int, d: int,
                          rho: float, calibration: str = "exact") -> float:
    """β' = (β/K)(γ L_0 √(K d)/(n√ρ F_0^{1/κ}))^{2−κ} (Algorithm 1, line 3, printed); the exact calibration
    divides by 4 more (each round has T_k + 1 ≤ 2T_k error events and ⌈x⌉ ≤ 2x), capped at β/K."""
    calibration = check_choice(calibration, "calibration", CALIBRATIONS)
    beta = check_delta(beta, "beta")
    K = check_positive_int(K, "K")
    kappa = _kappa(kappa, 1.0, 2.0)
    log_ratio = 0.5 * math.log(K) - _log_ratio(n, rho, gamma, L0, d) - math.log(F0) / kappa
    b = (beta / K) * math.exp((2.0 - kappa) * min(0.0, log_ratio))
    return b / 4.0 if calibration == "exact" else b


def theorem1_floor(gamma: float, kappa: float, L0: float, L1: float, F0: float, n: int, d: int, rho: float,
                   beta: float, calibration: str = "exact") -> float:
    """Φ_floor, Theorem 1's explicit bound: F(w̄) − F* ≤ Φ_floor with probability ≥ 1 − β (Algorithm 1, line 6).

    printed: min{(32 γ L_0 √(K d log(1/β'))/(n√ρ))^κ, F_0};  exact: min{(24 γ L_0 ψ √K/(n√ρ))^κ, F_0} with
    ψ = √d + √(2 log(1/β')) (a valid Gaussian-norm tail; the printed 2√(d log(1/β')) is not for small d or logs).
    """
    K = algorithm1_K(gamma, kappa, L0, L1, F0, n, d, rho)
    bp = algorithm1_beta_prime(beta, K, gamma, kappa, L0, F0, n, d, rho, calibration)
    if calibration == "printed":
        core = 32.0 * gamma * L0 * math.sqrt(K * d * math.log(1.0 / bp)) / (n * math.sqrt(rho))
    else:
        psi = math.sqrt(d) + math.sqrt(2.0 * math.log(1.0 / bp))
        core = 24.0 * gamma * L0 * psi * math.sqrt(K) / (n * math.sqrt(rho))
    return min(_pow(core, kappa), F0)


def theorem1_rate(gamma: float, kappa: float, L0: float, L1: float, F0: float, n: int, d: int, rho: float) -> float:
    """Theorem 1's Õ form (γ L_0 √(d(1 + F_0^{−(2−κ)/κ} γ² L_1))/(n√ρ))^κ (logs and constants dropped)."""
    kappa = _kappa(kappa, 1.0, 2.0)
    y = gamma / F0 ** ((2.0 - kappa) / (2.0 * kappa))
    inner = d * (1.0 + (y * y) * L1)
    return _pow(gamma * L0 * math.sqrt(inner) / (n * math.sqrt(rho)), kappa)


def lemma1_radius(gamma: float, kappa: float, L1: float, F0: float, K: int, ceilings: bool = True) -> float:
    """Lemma 1: ‖w_{k,t} − w_0‖ ≤ K F_0^{1/κ}/(4γL_1) with probability 1 (twice that with ceiled T_k, the
    default ``ceilings=True``)."""
    kappa = _kappa(kappa, 1.0, 2.0)
    r = check_positive_int(K, "K") * (F0 ** (1.0 / kappa) / gamma / 4.0 / L1)
    return 2.0 * r if ceilings else r


# --------------------------------------------------------------------------------------------------------------
# Algorithm 2 / Theorem 2, Lemma 3, Lemma 4; Algorithm 4 / Theorem 9 (κ ≥ 2)
# --------------------------------------------------------------------------------------------------------------
def algorithm2_T(gamma: float, kappa: float, L0: float, wc: float, F0: float, n: int, d: int, rho: float) -> int:
    """T = ⌈(1 + 32 F_0^{(κ−2)/κ} γ² \\tilde L_1)(log F_0 + κ log(n√ρ/(γ L_0 √d)))⌉ ≥ 1 (Algorithm 2;
    reconstructed, ceiling and clamp ours)."""
    kappa = _kappa(kappa, 2.0)
    wc = check_positive(wc, "wc")
    logs = math.log(F0) + kappa * _log_ratio(n, rho, gamma, L0, d)
    if logs <= 0.0:
        return 1
    y = gamma * F0 ** ((kappa - 2.0) / (2.0 * kappa))
    T = (1.0 + 32.0 * (y * y) * wc) * logs
    if not math.isfinite(T):
        raise ValueError(f"gamma, F0, wc: T = {T} is beyond double precision at these inputs")
    return max(1, math.ceil(T))


def _log_term(n: int, d: int, beta: float, inner: float) -> float:
    return math.log(n ** 2 * inner ** 2 / (d * beta))


def lemma3_excess(L0: float, wc: float, n: int, d: int, rho: float, beta: float) -> float:
    """Lemma 3 (O-constant 1): L_0² d log(n² log²(1/β)/(dβ))/(\\tilde L_1 n² ρ) (excess of the ρ-zCDP solver on the
    \\tilde L_1-strongly convex F_t, with probability ≥ 1 − β)."""
    beta = check_delta(beta, "beta")
    r = L0 / n                                     # scale-free: (L_0/n)², not L_0²/n²
    return r * r * d * _log_term(n, d, beta, math.log(1.0 / beta)) / wc / rho


def theorem2_bound(gamma: float, kappa: float, L0: float, n: int, d: int, rho: float, beta: float, T: int) -> float:
    """Theorem 2 (O-constant 1): (γ L_0 √(T d log(n² log²(1/β')/(dβ')))/(n√ρ))^κ with β' = β/T."""
    kappa = _kappa(kappa, 2.0)
    T = check_positive_int(T, "T")
    bp = check_delta(beta, "beta") / T
    return _pow(gamma * L0 * math.sqrt(T * d * _log_term(n, d, bp, math.log(1.0 / bp))) / (n * math.sqrt(rho)), kappa)


def theorem2_rate(gamma: float, kappa: float, L0: float, wc: float, F0: float, n: int, d: int, rho: float) -> float:
    """Theorem 2's Õ form (γ L_0 √(d(1 + F_0^{(κ−2)/κ} γ² \\tilde L_1))/(n√ρ))^κ."""
    kappa = _kappa(kappa, 2.0)
    y = gamma * F0 ** ((kappa - 2.0) / (2.0 * kappa))
    inner = d * (1.0 + (y * y) * wc)
    return _pow(gamma * L0 * math.sqrt(inner) / (n * math.sqrt(rho)), kappa)


def algorithm4_T(n: int, d: int, rho: float, beta: float) -> int:
    """T = ⌈n² ρ log²(2/β)/d⌉ (Algorithm 4 / Theorem 9; reconstructed — the printed fraction is garbled, and this
    is the choice that makes the three error terms of the proof equal the claimed rate)."""
    n, d = check_positive_int(n, "n"), check_positive_int(d, "d")
    rho, beta = check_positive(rho, "rho"), check_delta(beta, "beta")
    log_term = math.log(2.0) - math.log(beta)                 # log(2/β), finite for a subnormal β too
    T = (n * math.sqrt(rho) * log_term) * (n * math.sqrt(rho) * log_term) / d
    if not math.isfinite(T):
        raise ValueError(f"rho, beta: T = n^2 rho log^2(2/beta)/d overflows double precision at n = {n}, d = {d}, "
                         f"rho = {rho}, beta = {beta}")
    return max(1, math.ceil(T))


def theorem9_bound(L0: float, wc: float, n: int, d: int, rho: float, beta: float) -> float:
    """Theorem 9, eq. (17) (O-constant 1): L_0² d log(n² log²(2/β)/(dβ))/(\\tilde L_1 n² ρ)."""
    beta = check_delta(beta, "beta")
    r = L0 / n                                     # scale-free: (L_0/n)², not L_0²/n²
    return r * r * d * _log_term(n, d, beta, math.log(2.0 / beta)) / check_positive(wc, "wc") / rho


# --------------------------------------------------------------------------------------------------------------
# Algorithm 3 / Theorem 4 (adaptive), Theorem 5 (stationarity)
# --------------------------------------------------------------------------------------------------------------
def theorem4_A(n: int, rho: float, beta: float) -> float:
    """A = log(n√ρ/β) (Algorithm 3 / Theorem 4)."""
    n, rho, beta = check_positive_int(n, "n"), check_positive(rho, "rho"), check_delta(beta, "beta")
    return math.log(n) + 0.5 * math.log(rho) - math.log(beta)      # a sum of logarithms (no over/underflow)


def theorem4_p_max(gamma: float, kappa: float, L0: float, L1: float, F0: float, n: int, rho: float) -> float:
    """p_max = (1 + 8γ²L_1)[log F_0 + (2κ/(4 − κ)) log(n√ρ/(γL_0))] (Theorem 4; reconstructed from a garbled
    "42−κκ")."""
    kappa = _kappa(kappa, 1.0, 2.0)
    return (1.0 + 8.0 * (gamma * gamma) * L1) * (math.log(F0) + (2.0 * kappa / (4.0 - kappa))
                                                 * _log_ratio(n, rho, gamma, L0))


def theorem4_bound(gamma: float, kappa: float, L0: float, L1: float, F0: float, n: int, d: int, rho: float,
                   beta: float) -> float:
    """Theorem 4 (O-constants 1): (max{γ²,1} L_0² A/(min{L_1,1} n√ρ))^{κ/2}
    + (γ L_0 √(d A p_max)/(n√ρ))^{2κ/(4−κ)} + (p_max/(n√ρ))^{κ/(2−κ)} (the last term is 0 for κ = 2);
    p_max is clamped at ≥ 1."""
    kappa = _kappa(kappa, 1.0, 2.0)
    A = theorem4_A(n, rho, beta)
    p = max(1.0, theorem4_p_max(gamma, kappa, L0, L1, F0, n, rho))
    s = n * math.sqrt(rho)
    t1 = _pow(max(gamma, 1.0) * L0 * math.sqrt(A / (min(L1, 1.0) * s)), kappa)   # (max{γ²,1}L_0²A/(…))^{κ/2}
    t2 = _pow(gamma * L0 * math.sqrt(d * A * p) / s, 2.0 * kappa / (4.0 - kappa))
    t3 = 0.0 if kappa == 2.0 else _pow(p / s, kappa / (2.0 - kappa))
    return t1 + t2 + t3


def theorem5_bound(L0: float, L1: float, F0: float, n: int, d: int, rho: float, beta: float, T: int) -> float:
    """Theorem 5's explicit form (App. D.6): ‖∇F(w_{t*})‖ ≤ min{√(8F_0L_1/T), (6L_0√(F_0L_1 d A)/(n√ρ))^{1/2}}
    + 4L_0A/(n√ρ) + 3L_0A/(√n ρ^{1/4}) with probability ≥ 1 − 3β, T the realised number of iterations."""
    T = check_positive_int(T, "T")
    A = theorem4_A(n, rho, beta)
    s = n * math.sqrt(rho)
    first = min(math.sqrt(8.0 * F0 * L1 / T), math.sqrt(6.0 * L0 * math.sqrt(F0 * L1 * d * A) / s))
    return first + 4.0 * L0 * A / s + 3.0 * L0 * A / (math.sqrt(n) * rho ** 0.25)


# --------------------------------------------------------------------------------------------------------------
# growth ⇔ KL (Lemmas 6, 7)
# --------------------------------------------------------------------------------------------------------------
def lemma6_kl_from_growth(lam: float, tau: float) -> tuple[float, float]:
    """Lemma 6: F convex with (λ, τ)-growth (F(w) − F* ≥ λ^τ‖w − w_p‖^τ, τ > 1) is (γ, κ)-KL with γ = 1/λ and
    κ = τ/(τ − 1).  Returns (γ, κ)."""
    lam, tau = check_positive(lam, "lam"), check_positive(tau, "tau")
    if tau <= 1.0:
        raise ValueError(f"tau must be > 1, got {tau}")
    return 1.0 / lam, tau / (tau - 1.0)


def lemma7_growth_from_kl(gamma: float, kappa: float) -> tuple[float, float]:
    """Lemma 7: (γ, κ)-KL with κ > 1 implies F(w) − F* ≥ ((κ−1)/(κγ))^{κ/(κ−1)}‖w − w_p‖^{κ/(κ−1)}, i.e.
    (λ, τ)-growth with λ = (κ−1)/(κγ), τ = κ/(κ−1).  Returns (λ, τ)."""
    gamma = check_positive(gamma, "gamma")
    kappa = check_positive(kappa, "kappa")
    if kappa <= 1.0:
        raise ValueError(f"kappa must be > 1 for a growth exponent, got {kappa}")
    return (kappa - 1.0) / (kappa * gamma), kappa / (kappa - 1.0)


# --------------------------------------------------------------------------------------------------------------
# Theorem 8 (lower bound, κ ≥ 2; App. C.3)
# --------------------------------------------------------------------------------------------------------------
def theorem8_conditions(epsilon: float, delta: float) -> bool:
    """Theorem 8's hypotheses: 0 < ε ≤ ln 2 and 0 < δ ≤ (1 − e^{−ε})/16."""
    epsilon, delta = check_positive(epsilon, "epsilon"), check_delta(delta)
    return epsilon <= math.log(2.0) and delta <= (1.0 - math.exp(-epsilon)) / 16.0


def theorem8_lower_bound(n: int, epsilon: float, kappa: float) -> float:
    """Theorem 8: for every (ε, δ)-DP algorithm some dataset has E[F(A(S)) − F*] ≥ ¼(1/(nε))^κ (κ ≥ 2; under
    :func:`theorem8_conditions`)."""
    n, epsilon, kappa = check_positive_int(n, "n"), check_positive(epsilon, "epsilon"), _kappa(kappa, 2.0)
    return 0.25 * (n * epsilon) ** (-kappa)


def theorem8_pair_lower_bound(n: int, k: int, kappa: float) -> float:
    """¼ r^κ with r = k/n, for the pair of :class:`dpsco.oracles.muabg23.kl_instances.Theorem8Pair` with k differing
    records: max(E_S, E_S')[excess] ≥ ¼ r^κ for every (ε, δ)-DP algorithm with kε ≤ 1 (the group distance of
    the proof; kε = 1 gives :func:`theorem8_lower_bound`).  The proof's chain is (2a)^τ/4 with 2a = r^{κ−1},
    τ = κ/(κ−1), so (2a)^τ = r^κ (reconstructed; the seed lacks the displayed chain).  A result below it
    on both datasets proves a privacy bug."""
    n, k, kappa = check_positive_int(n, "n"), check_positive_int(k, "k"), _kappa(kappa, 2.0)
    return 0.25 * (k / n) ** kappa


def theorem8_violated(excess_S: float, excess_S_prime: float, n: int, k: int, kappa: float) -> bool:
    """True iff max(E_S, E_S')[excess] < :func:`theorem8_pair_lower_bound` (n, k, κ): the algorithm beat the
    Theorem 8 lower bound on the pair with k differing records, which no (ε, δ)-DP algorithm with kε ≤ 1 (and
    Theorem 8's δ condition) can do — a privacy bug.  The excesses are expectations: pass exact values or
    *upper* confidence bounds of Monte Carlo means (then a private algorithm is flagged only when a bound fails;
    lower bounds would flag a private algorithm whose mean sits within a half-width of the bound).  The theorem asserts the bound for *some* dataset, so the
    maximum (not the average) is compared."""
    e1 = check_positive(excess_S, "excess_S", allow_zero=True)
    e2 = check_positive(excess_S_prime, "excess_S_prime", allow_zero=True)
    return max(e1, e2) < theorem8_pair_lower_bound(n, k, kappa)
