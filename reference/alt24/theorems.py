"""The bounds of Asi, Liu & Tian (2024) as plain functions of the paper's symbols, and its proof devices.

Every function evaluates one printed result (Fact, Lemma, Proposition, Corollary, Theorem) at public inputs;
the algorithms' tests and ``dpsco verify`` check measured errors against them.  Where the printed statement
is wrong the corrected form is the default and ``printed=True`` gives the printed one (ERRATA.md has the
evidence; ``tests/alt24/test_alt24_theorems.py`` the counter-examples).  Universal constants the paper leaves
unspecified (C_sco, C_HT, C_Lip, C_smooth) are explicit arguments; the two the paper's pipeline needs as
numbers (C_erm of Corollary 1, C_reg-pop of Corollary 2) have derived defaults (docs/derivations.md).

Symbols: k ≥ 2 moment order (real k > 1 accepted where the proof allows), G_j moment bounds (E L_s^j ≤ G_j^j),
C clip or truncation threshold, D = diam X, d dimension, n sample count, ρ zCDP parameter (the paper's
"CDP"), ε, δ approximate-DP parameters (δ of Theorem 1, Corollary 3 and Theorem 5 is a failure probability).
All functions return floats and raise ValueError / TypeError naming a bad argument.

Proof devices: Lemma 14 (clipping keeps a GLM step contractive), Lemma 16 (it does not in general; C > 0),
Lemma 18 (drift accounting of coupled operation sequences).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from dpsco.reference import conversions
from dpsco.reference.validation import as_float_vector, check_bool, check_positive, check_positive_int

__all__ = [
    "C_ERM", "C_REG_POP",
    "zcdp_to_dp", "dp_to_zcdp", "gaussian_zcdp",
    "fact_1_clip_bias_bound", "fact_1_tail_mean_bound", "lemma_2_lipschitz", "lemma_3_bias_bound",
    "lemma_3_expected_bias_bound", "lemma_4_radius", "lemma_5_distance_bound", "lemma_5_expected_gap",
    "lemma_6_lipschitz_lower_bound", "lemma_7_lipschitz", "lemma_8_bound", "corollary_4_bound", "lemma_13_bound",
    "proposition_1_bound", "corollary_1_radius", "corollary_2_radius", "proposition_2_bound",
    "proposition_3_bound", "proposition_4_bound", "theorem_1_bound", "corollary_3_bound", "theorem_2_bound",
    "theorem_3_bound", "theorem_3_intermediate_bound", "theorem_4_coefficient", "theorem_4_bound",
    "theorem_5_bound", "lower_bound_shape",
    "lemma_14_clipped_step", "lemma_16_counterexample", "lemma_18_drift_bounds",
]

#: Corollary 1's constant, derived (docs/derivations.md#constants-of-corollaries-1-and-2-of-asi-liu-and-tian)
C_ERM = math.sqrt(640.0)
#: Corollary 2's constant C_reg-pop, derived (same section): 2√70 + √800 ≈ 45.02, rounded up
C_REG_POP = 46.0


def _k(k: Any, *, integer: bool = False) -> float:
    if integer:
        return float(check_positive_int(k, "k"))
    k = check_positive(k, "k")
    if k <= 1.0:
        raise ValueError(f"k must be > 1, got {k}")
    return k


def _log_inv(delta: Any, name: str = "delta") -> float:
    d = check_positive(delta, name)
    if d >= 1.0:
        raise ValueError(f"{name} must lie in (0, 1), got {d}")
    return math.log(1.0 / d)


def _priv(d: Any, n: Any, rho: Any) -> float:
    """√d/(n√ρ), the private rate's base."""
    return math.sqrt(check_positive_int(d, "d")) / (check_positive_int(n, "n") * math.sqrt(check_positive(rho, "rho")))


# ---- conversions (Lemma 1; Bun & Steinke 2016) ------------------------------------------------------------


#: ε of ρ-zCDP at δ, ρ + 2√(ρ log(1/δ)) (Lemma 1 (2) at the best Rényi order α* = 1 + √(log(1/δ)/ρ); Bun &
#: Steinke 2016, Prop. 1.3): the core conversion, rounded up (dpsco.reference.conversions)
zcdp_to_dp = conversions.zcdp_epsilon
#: the largest ρ with zcdp_to_dp(ρ, δ) ≤ ε, (√(log(1/δ) + ε) − √log(1/δ))², rounded down (the core inverse)
dp_to_zcdp = conversions.zcdp_rho


gaussian_zcdp = conversions.gaussian_zcdp  # the one copy (reference.conversions): ½(Δ/σ)², rounded up


# ---- clipping and truncation bias (Section 2-4) ----------------------------------------------------------


def fact_1_clip_bias_bound(G: float, k: float, C: float) -> float:
    """Fact 1 (outer inequality; Barber & Duchi 2014, Lemma 3): E‖Π_C(X) − X‖ = E(‖X‖ − C)_+ ≤
    G^k/((k−1)C^{k−1}) when E‖X‖^k ≤ G^k.  Correct as printed (∫_C^∞ Pr[‖X‖ > t] dt ≤ ∫_C^∞ G^k t^{−k} dt)."""
    k = _k(k)
    return check_positive(G, "G", allow_zero=True) ** k / ((k - 1.0) * check_positive(C, "C") ** (k - 1.0))


def fact_1_tail_mean_bound(G: float, k: float, C: float, *, printed: bool = False) -> float:
    """Fact 1's middle quantity E[‖X‖𝕀_{‖X‖≥C}] ≤ G^k/C^{k−1} (Markov: ‖X‖ ≤ ‖X‖^k/C^{k−1} on the event).

    The paper prints ≤ G^k/((k−1)C^{k−1}) (``printed=True``), false for k ≥ 3: Pareto(α = 10, x_m = 1),
    C = 1, k = 3 has E[X𝕀_{X≥1}] = 10/9 > (10/7)/2 (ERRATA.md, tests/alt24/test_alt24_theorems.py)."""
    k = _k(k)
    G = check_positive(G, "G", allow_zero=True)
    C = check_positive(C, "C")
    return G**k / (((k - 1.0) if check_bool(printed, "printed") else 1.0) * C ** (k - 1.0))


def lemma_2_lipschitz(G_1: float) -> float:
    """Lemma 2: F_P is G_1-Lipschitz on X (Jensen: ‖∇F_P‖ ≤ E L_s ≤ G_1)."""
    return check_positive(G_1, "G_1", allow_zero=True)


def lemma_3_bias_bound(G_k: float, k: float, C: float) -> float:
    """Lemma 3: with probability ≥ 4/5 over D ~ P^n, the clipping bias (6) b_D ≤ 5G_k^k/((k−1)C^{k−1})
    (Markov on E b_D ≤ E(L_s − C)_+, Fact 1's outer inequality)."""
    return 5.0 * fact_1_clip_bias_bound(G_k, k, C)


def lemma_3_expected_bias_bound(G_k: float, k: float, C: float) -> float:
    """The proof of Lemma 3: E b_D ≤ E(L_s − C)_+ ≤ G_k^k/((k−1)C^{k−1})."""
    return fact_1_clip_bias_bound(G_k, k, C)


def lemma_4_radius(G_1: float, lam: float) -> float:
    """Lemma 4: ‖x̄ − x*_{λ,x̄}‖ ≤ 2G_1/λ (the regularised population minimiser (7) stays near the centre)."""
    return 2.0 * check_positive(G_1, "G_1", allow_zero=True) / check_positive(lam, "lam")


def lemma_5_distance_bound(G_2: float, lam: float, n: int) -> float:
    """Lemma 5: with probability ≥ 0.95, the restricted regularised ERM minimiser y is within
    90G_2/(λ√n) of x*_{λ,x̄}."""
    return 90.0 * check_positive(G_2, "G_2", allow_zero=True) / (check_positive(lam, "lam")
                                                                 * math.sqrt(check_positive_int(n, "n")))


def lemma_5_expected_gap(G_2: float, lam: float, n: int) -> float:
    """The proof of Lemma 5: E[regularised population gap of y] ≤ 20G_2²/(λn)."""
    return 20.0 * check_positive(G_2, "G_2", allow_zero=True) ** 2 / (check_positive(lam, "lam")
                                                                      * check_positive_int(n, "n"))


def lemma_6_lipschitz_lower_bound(mu: float, D: float) -> float:
    """Lemma 6: an L-Lipschitz, μ-strongly convex f on X with diam X = D has L ≥ μD/4."""
    return check_positive(mu, "mu", allow_zero=True) * check_positive(D, "D", allow_zero=True) / 4.0


def lemma_7_lipschitz(G_k: float, k: float, C: float, *, strongly_convex: bool = False,
                      printed: bool = False) -> float:
    """Lemma 7: F_P − F_P^C is G_k^k/C^{k−1}-Lipschitz, and F_P − F_P^{C,μ} is (G_k^k/C^{k−1} + 4G_k^{k+1}/C^k)-
    Lipschitz (``strongly_convex=True``).

    Truncation drops the whole gradient of a sample with L̄_s > C, so the bias is E[L̄_s𝕀_{L̄_s>C}], Fact 1's
    middle quantity, not the clipping bias: the printed (k−1) in the denominator (``printed=True``) is wrong
    for k ≥ 3 (linear loss, s = r·e_1 with r ~ Pareto(10, 1), C = 1, k = 3: exact constant 10/9 > 5/7)."""
    k = _k(k)
    G_k = check_positive(G_k, "G_k", allow_zero=True)
    C = check_positive(C, "C")
    first = fact_1_tail_mean_bound(G_k, k, C, printed=printed)
    return first + (4.0 * G_k ** (k + 1.0) / C**k if check_bool(strongly_convex, "strongly_convex") else 0.0)


def lemma_8_bound(distance: float, eta: float, T: int, G_2: float, G_k: float, k: float, C: float,
                  D: float) -> float:
    """Lemma 8 (Algorithm 5, D ~ P^T, u ∈ X independent of D, distance = ‖x_0 − u‖):
    E[F_P(x̂) − F_P(u)] ≤ ‖x_0 − u‖²/(2ηT) + ηG_2²/2 + G_k^k D/((k−1)C^{k−1})."""
    T = check_positive_int(T, "T")
    eta = check_positive(eta, "eta")
    return (check_positive(distance, "distance", allow_zero=True) ** 2 / (2.0 * eta * T)
            + eta * check_positive(G_2, "G_2", allow_zero=True) ** 2 / 2.0
            + fact_1_clip_bias_bound(G_k, k, C) * check_positive(D, "D", allow_zero=True))


def corollary_4_bound(distance: float, eta: float, T: int, G_2: float, G_k: float, k: float, C: float,
                      D: float) -> float:
    """Corollary 4 (Algorithm 5 with Π_{C,Ĉ_t}, Ĉ_t ≥ C/2 independent of s_{t+1}):
    E[F_P(x̂) − F_P(u)] ≤ ‖x_0 − u‖²/(2ηT) + 2ηG_2² + G_k^k D/((k−1)(C/2)^{k−1})."""
    T = check_positive_int(T, "T")
    eta = check_positive(eta, "eta")
    return (check_positive(distance, "distance", allow_zero=True) ** 2 / (2.0 * eta * T)
            + 2.0 * eta * check_positive(G_2, "G_2", allow_zero=True) ** 2
            + fact_1_clip_bias_bound(G_k, k, check_positive(C, "C") / 2.0) * check_positive(D, "D", allow_zero=True))


def lemma_13_bound(distance: float, eta_i: float, n_i: int, G_2: float, G_k: float, k: float, C: float, D: float,
                   n: int) -> float:
    """Lemma 13 (phase i of Algorithm 7, any x ∈ X, distance = ‖x − x_{i−1}‖): E[F_P(x̄_i) − F_P(x)] ≤
    ‖x − x_{i−1}‖²/(2η_i n_i) + 2η_iG_2² + G_k^k D/((k−1)(C/2)^{k−1}) + G_2D/n²
    (under C ≥ 8ω_i log(30n_i/δ) and c/4 ≥ max(n(2G_k/C)^k, 6 log n), which the caller checks)."""
    n = check_positive_int(n, "n")
    return (corollary_4_bound(distance, eta_i, n_i, G_2, G_k, k, C, D)
            + check_positive(G_2, "G_2", allow_zero=True) * check_positive(D, "D", allow_zero=True) / n**2)


# ---- Algorithm 1 and localisation (Section 3) ------------------------------------------------------------


def proposition_1_bound(C: float, d: int, lam: float, n: int, rho: float, b_D: float, r: float, T: int, *,
                        printed: bool = False) -> float:
    """Proposition 1 (Algorithm 1 with η_t = 4/(λ(t+1)), σ² = 2C²T/(n²ρ), T ≥ max(n, n²ρ/d)):
    E[F_{D,λ}(x̂) − F_{D,λ}(x*)] ≤ 32C²d/(λn²ρ) + b_D²/λ + 7λr²/T.

    The statement prints 7λr²/n (``printed=True``); the proof gives 7λr²/T, which is smaller since T ≥ n."""
    lam = check_positive(lam, "lam")
    n = check_positive_int(n, "n")
    T = check_positive_int(T, "T")
    last = n if check_bool(printed, "printed") else T
    return (32.0 * check_positive(C, "C", allow_zero=True) ** 2 * check_positive_int(d, "d")
            / (lam * n**2 * check_positive(rho, "rho"))
            + check_positive(b_D, "b_D", allow_zero=True) ** 2 / lam
            + 7.0 * lam * check_positive(r, "r", allow_zero=True) ** 2 / last)


def corollary_1_radius(G_k: float, k: float, lam: float, d: int, n: int, rho: float, r: float, *,
                       C_erm: float = C_ERM) -> float:
    """Corollary 1: with probability ≥ 3/5 over D ~ P^n and Algorithm 1 at C = G_k(25n²ρ/(32d))^{1/(2k)},
    ‖x̂ − x*_{D,λ}‖ ≤ C_erm·(G_k/λ·(√d/(n√ρ))^{1−1/k} + r/√n).

    C_erm = √640 is derived, not printed (the paper leaves it universal):
    docs/derivations.md#constants-of-corollaries-1-and-2-of-asi-liu-and-tian."""
    k = _k(k)
    lam = check_positive(lam, "lam")
    return check_positive(C_erm, "C_erm") * (check_positive(G_k, "G_k", allow_zero=True) / lam
                                             * _priv(d, n, rho) ** (1.0 - 1.0 / k)
                                             + check_positive(r, "r", allow_zero=True) / math.sqrt(n))


def corollary_2_radius(G_k: float, G_2: float, k: float, lam: float, d: int, n: int, rho: float, *,
                       C_rp: float = C_REG_POP) -> float:
    """Corollary 2: with probability ≥ 0.55, the solver's output is within
    C_reg-pop·(G_k/λ·(√d/(n√ρ))^{1−1/k} + G_2/(λ√n)) of x*_{λ,x̄} (7).

    C_reg-pop = 46 is derived, not printed:
    docs/derivations.md#constants-of-corollaries-1-and-2-of-asi-liu-and-tian."""
    k = _k(k)
    lam = check_positive(lam, "lam")
    return check_positive(C_rp, "C_rp") * (check_positive(G_k, "G_k", allow_zero=True) / lam
                                           * _priv(d, n, rho) ** (1.0 - 1.0 / k)
                                           + check_positive(G_2, "G_2", allow_zero=True) / (lam * math.sqrt(n)))


def proposition_2_bound(G_1: float, Delta: float, lam: float, I: int, D: float, *, printed: bool = False) -> float:
    """Proposition 2 (Algorithm 2, λ_i = 32^iλ, ‖x_i − x*_i‖ ≤ Δ4^i/λ_i):
    F_P(x_I) − F_P(x*) ≤ G_1Δ/(λ8^I) + 16Δ²/λ + 16λD².

    The paper prints G_1Δ/(λ8^I) + Δ²/(4λ) + λD²/2 (``printed=True``): its sum Σ_i (λ_i/2)‖x*_{i−1} − x_{i−1}‖²
    has i = 1 term ≤ λ_1D²/2 = 16λD² and i ≥ 2 terms ≤ 16Δ²/λ·2^{1−i}, not λD²/2 and Δ²/(4λ)."""
    lam = check_positive(lam, "lam")
    I = check_positive_int(I, "I")
    G_1 = check_positive(G_1, "G_1", allow_zero=True)
    Delta = check_positive(Delta, "Delta", allow_zero=True)
    D = check_positive(D, "D", allow_zero=True)
    first = G_1 * Delta / (lam * 8.0**I)
    if check_bool(printed, "printed"):
        return first + Delta**2 / (4.0 * lam) + lam * D**2 / 2.0
    return first + 16.0 * Delta**2 / lam + 16.0 * lam * D**2


# ---- rates (Sections 3-5, Appendix A) --------------------------------------------------------------------


def proposition_3_bound(err_A: float, G_k: float, k: float, C: float, D: float, *, mu: float = 0.0,
                        printed: bool = False) -> float:
    """Proposition 3 (Algorithm 4 with a C-Lipschitz ρ-CDP algorithm A of error Err(A) on P^C):
    μ = 0: E[F_P(x) − F_P(x*)] ≤ Err(A) + G_k^k D/C^{k−1};
    μ > 0: Err(A) + b_1(2b_1/μ + √(2Err(A)/μ)), b_1 = G_k^k/C^{k−1} + 4G_k^{k+1}/C^k (Lemma 7's constant).

    Corrected with Lemma 7: the printed (k−1) in G_k^k/((k−1)C^{k−1}) (``printed=True``) bounds clipping,
    not truncation."""
    err = check_positive(err_A, "err_A", allow_zero=True)
    mu = check_positive(mu, "mu", allow_zero=True)
    D = check_positive(D, "D", allow_zero=True)
    if mu == 0.0:
        return err + lemma_7_lipschitz(G_k, k, C, printed=printed) * D
    b1 = lemma_7_lipschitz(G_k, k, C, strongly_convex=True, printed=printed)
    return err + b1 * (2.0 * b1 / mu + math.sqrt(2.0 * err / mu))


def proposition_4_bound(G_2: float, D: float, n: int, L: float, d: int, rho: float, *, C_Lip: float,
                        mu: float = 0.0) -> float:
    """Proposition 4 (an L-Lipschitz ρ-CDP SCO algorithm A_Lip, Feldman, Koren & Talwar 2020):
    μ = 0: C_Lip·(G_2D/√n + LD√d/(n√ρ));  μ > 0: C_Lip·(G_2²/(μn) + L²d/(μn²ρ)).  C_Lip is unspecified."""
    n = check_positive_int(n, "n")
    G_2 = check_positive(G_2, "G_2", allow_zero=True)
    L = check_positive(L, "L", allow_zero=True)
    mu = check_positive(mu, "mu", allow_zero=True)
    u = _priv(d, n, rho)
    if mu == 0.0:
        D = check_positive(D, "D", allow_zero=True)
        return check_positive(C_Lip, "C_Lip") * (G_2 * D / math.sqrt(n) + L * D * u)
    return check_positive(C_Lip, "C_Lip") * (G_2**2 / (mu * n) + L**2 * u**2 / mu)


def theorem_1_bound(G_k: float, G_2: float, k: float, D: float, d: int, n: int, rho: float, delta: float, *,
                    C_sco: float) -> float:
    """Theorem 1 (with probability ≥ 1 − δ, δ a failure probability): F_P(x) − F_P(x*) ≤
    C_sco·(G_kD(√d log(1/δ)/(n√ρ))^{1−1/k} + G_2D√(log(1/δ)/n)).  C_sco is unspecified."""
    k = _k(k)
    L = _log_inv(delta)
    D = check_positive(D, "D", allow_zero=True)
    return check_positive(C_sco, "C_sco") * (
        check_positive(G_k, "G_k", allow_zero=True) * D * (_priv(d, n, rho) * L) ** (1.0 - 1.0 / k)
        + check_positive(G_2, "G_2", allow_zero=True) * D * math.sqrt(L / n))


def corollary_3_bound(G_k: float, G_2: float, k: float, mu: float, d: int, n: int, rho: float, delta: float, *,
                      C_sco: float) -> float:
    """Corollary 3 (μ-strongly convex samples, probability ≥ 1 − δ): F_P(x) − F_P(x*) ≤
    C_sco·((G_k²/μ)(d log³(1/δ)/(n²ρ))^{1−1/k} + (G_2²/μ) log(1/δ)/n)."""
    k = _k(k)
    L = _log_inv(delta)
    mu = check_positive(mu, "mu")
    return check_positive(C_sco, "C_sco") * (
        check_positive(G_k, "G_k", allow_zero=True) ** 2 / mu * (_priv(d, n, rho) ** 2 * L**3) ** (1.0 - 1.0 / k)
        + check_positive(G_2, "G_2", allow_zero=True) ** 2 / mu * L / n)


def theorem_2_bound(G_k: float, G_2: float, k: float, D: float, d: int, n: int, rho: float, *, C_HT: float,
                    mu: float = 0.0) -> float:
    """Theorem 2 (known Lipschitz, Algorithm 4 at C = G_k(n√ρ/√d)^{1/k}):
    μ = 0: E ≤ C_HT(G_2D/√n + G_kD(√d/(n√ρ))^{1−1/k});  μ > 0: C_HT(G_2²/(μn) + (G_k²/μ)(d/(n²ρ))^{1−1/k}).
    The proof gives C_HT = C_Lip + 2 (μ = 0) and C_Lip + 61 (μ > 0); the caller passes C_HT."""
    k = _k(k)
    n = check_positive_int(n, "n")
    mu = check_positive(mu, "mu", allow_zero=True)
    G_k = check_positive(G_k, "G_k", allow_zero=True)
    G_2 = check_positive(G_2, "G_2", allow_zero=True)
    u = _priv(d, n, rho)
    if mu == 0.0:
        D = check_positive(D, "D", allow_zero=True)
        return check_positive(C_HT, "C_HT") * (G_2 * D / math.sqrt(n) + G_k * D * u ** (1.0 - 1.0 / k))
    return check_positive(C_HT, "C_HT") * (G_2**2 / (mu * n) + G_k**2 / mu * (u**2) ** (1.0 - 1.0 / k))


def theorem_3_bound(G_k: float, G_2: float, k: float, D: float, d: int, n: int, epsilon: float, delta: float, *,
                    C_smooth: float) -> float:
    """Theorem 3 ((ε, δ)-DP Algorithm 7, β-smooth samples with (20)): E[F_P(x_I) − F_P(x*)] ≤
    C_smooth·(G_2D/√n + G_kD(√(d log³(n/δ))/(nε))^{1−1/k}).  C_smooth is unspecified."""
    k = _k(k)
    n = check_positive_int(n, "n")
    eps = check_positive(epsilon, "epsilon")
    L = math.log(n) + _log_inv(delta)
    D = check_positive(D, "D", allow_zero=True)
    base = math.sqrt(check_positive_int(d, "d") * L**3) / (n * eps)
    return check_positive(C_smooth, "C_smooth") * (check_positive(G_2, "G_2", allow_zero=True) * D / math.sqrt(n)
                                                   + check_positive(G_k, "G_k", allow_zero=True) * D
                                                   * base ** (1.0 - 1.0 / k))


def theorem_3_intermediate_bound(D: float, eta: float, n: int, G_2: float, A: float, G_k: float, k: float, I: int,
                                 sigma_I: float, d: int) -> float:
    """The proof of Theorem 3 before the parameter choice: E[F_P(x_I) − F_P(x*)] ≤ 4D²/(ηn) + ηG_2²
    + 2(Aη)^{(k−1)/(k+1)}(G_k^k D I)^{2/(k+1)} + G_2D/√n + G_2σ_I√d, with A = 14400 d log²(15n/δ)/(nε²)."""
    k = _k(k)
    n = check_positive_int(n, "n")
    eta = check_positive(eta, "eta")
    D = check_positive(D, "D", allow_zero=True)
    G_2 = check_positive(G_2, "G_2", allow_zero=True)
    return (4.0 * D**2 / (eta * n) + eta * G_2**2
            + 2.0 * (check_positive(A, "A") * eta) ** ((k - 1.0) / (k + 1.0))
            * (check_positive(G_k, "G_k", allow_zero=True) ** k * D * check_positive_int(I, "I")) ** (2.0 / (k + 1.0))
            + G_2 * D / math.sqrt(n) + G_2 * check_positive(sigma_I, "sigma_I", allow_zero=True)
            * math.sqrt(check_positive_int(d, "d")))


def theorem_4_coefficient(k: float) -> float:
    """The G_k coefficient the proof of Theorem 4 actually reaches at the sample count n_eff it runs on:
    4·2^{2−3/k} + 2^{1+3(k−1)/k} (4D²/(η_2 n) and 2η_2^{(k−1)/(k+1)}(G_k^kD)^{2/(k+1)}(32d/(ρn))^{(k−1)/(k+1)} at
    η_2 = (1/n)(n²ρ/(32d))^{(k−1)/(2k)}2^{(k+1)/(2k)}D/G_k); 11.3 at k = 2, 16 at k = 3, → 32 as k → ∞.
    The proof's last line claims 8."""
    k = _k(k)
    return 4.0 * 2.0 ** (2.0 - 3.0 / k) + 2.0 ** (1.0 + 3.0 * (k - 1.0) / k)


def theorem_4_bound(G_2: float, G_k: float, k: float, D: float, d: int, n: int, rho: float, *,
                    printed: bool = False) -> float:
    """Theorem 4 (Algorithm 8 on a β-smooth GLM), the bound its proof gives on the n_eff = 2^⌊log₂ n⌋ samples
    it uses: E[F_P(x_I) − F_P(x*)] ≤ G_2D√(8/n_eff) + (4·2^{2−3/k} + 2^{1+3(k−1)/k})·G_kD(√d/(n_eff√ρ))^{1−1/k}
    + 5G_kD/n_eff².

    Printed (``printed=True``): 4G_2D/√n + 26G_kD(√d/(n√ρ))^{1−1/k}.  Its 26 does not follow from the proof
    for k ≥ 4 (the coefficient times 2^{1−1/k} from n_eff ≥ n/2 is 32.0 at k = 4, → 64)."""
    k = _k(k)
    n = check_positive_int(n, "n")
    G_2 = check_positive(G_2, "G_2", allow_zero=True)
    G_k = check_positive(G_k, "G_k", allow_zero=True)
    D = check_positive(D, "D", allow_zero=True)
    if check_bool(printed, "printed"):
        return 4.0 * G_2 * D / math.sqrt(n) + 26.0 * G_k * D * _priv(d, n, rho) ** (1.0 - 1.0 / k)
    n_eff = 2 ** (n.bit_length() - 1)
    return (G_2 * D * math.sqrt(8.0 / n_eff) + theorem_4_coefficient(k) * G_k * D * _priv(d, n_eff, rho)
            ** (1.0 - 1.0 / k) + 5.0 * G_k * D / n_eff**2)


def theorem_5_bound(G: float, D: float, n: int, delta: float, *, C_sco: float) -> float:
    """Theorem 5 (non-private, Appendix A; E‖g‖² ≤ G², probability ≥ 1 − δ):
    (f + ψ)(x) − (f + ψ)(x*) ≤ C_sco·GD√(log(1/δ)/n)."""
    return check_positive(C_sco, "C_sco") * check_positive(G, "G", allow_zero=True) * check_positive(
        D, "D", allow_zero=True) * math.sqrt(_log_inv(delta) / check_positive_int(n, "n"))


def lower_bound_shape(G_2: float, G_k: float, k: float, D: float, d: int, n: int, rho: float) -> float:
    """The shape of the lower bound (2) (Lowy & Razaviyayn 2023), constant 1:
    G_2D/√n + G_kD(√d/(n√ρ))^{1−1/k}.  Ω(·) of this holds for ρ-CDP algorithms; a plausibility curve only."""
    k = _k(k)
    n = check_positive_int(n, "n")
    D = check_positive(D, "D", allow_zero=True)
    return (check_positive(G_2, "G_2", allow_zero=True) * D / math.sqrt(n)
            + check_positive(G_k, "G_k", allow_zero=True) * D * _priv(d, n, rho) ** (1.0 - 1.0 / k))


# ---- proof devices (Appendix B and C) ----------------------------------------------------------------------


def lemma_14_clipped_step(s: float, s_prime: float, x: Any, x_prime: Any, g: Any, C: float) -> tuple[float, float,
                                                                                                        float]:
    """Lemma 14 (GLM steps stay contractive under clipping): the three norms ‖x − x'‖,
    ‖(x − s g) − (x' − s' g)‖ and ‖(x − t g) − (x' − t' g)‖ with t = sign(s)min(|s|, C), t' likewise.

    The lemma: if the second is ≤ the first, so is the third (for any C ≥ 0).  x, x', g : (d,) arrays;
    s, s' real; C ≥ 0."""
    for name, v in (("s", s), ("s_prime", s_prime)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v):
            raise ValueError(f"{name} must be a finite real, got {v!r}")
    x = as_float_vector(x, "x")
    x_prime = as_float_vector(x_prime, "x_prime", x.size)
    g = as_float_vector(g, "g", x.size)
    C = check_positive(C, "C", allow_zero=True)
    t = math.copysign(min(abs(s), C), s) if s != 0 else 0.0
    tp = math.copysign(min(abs(s_prime), C), s_prime) if s_prime != 0 else 0.0
    v = x - x_prime
    return (float(np.linalg.norm(v)), float(np.linalg.norm(v - (s - s_prime) * g)),
            float(np.linalg.norm(v - (t - tp) * g)))


def lemma_16_counterexample(C: float) -> dict[str, Any]:
    """Lemma 16's two-dimensional counter-example to Conjecture 1 (clipping at 1 can break a contractive step):
    v = (−C, 0), g = (1, 0), h = ((2C+1)/(C+1), C√(2C+1)/(C+1)).

    Returns {"v", "g", "h": (2,) arrays, "before": ‖v − (g − h)‖ (= C = ‖v‖), "after":
    ‖v − (Π_1(g) − Π_1(h))‖, "counterexample": after > ‖v‖}.  A counter-example for every C > 0; at C = 0 both
    sides are 0 (the printed "any C ≥ 0" is wrong there; ERRATA.md).  C ≥ 0."""
    C = check_positive(C, "C", allow_zero=True)
    v = np.array([-C, 0.0])
    g = np.array([1.0, 0.0])
    h = np.array([(2.0 * C + 1.0) / (C + 1.0), C * math.sqrt(2.0 * C + 1.0) / (C + 1.0)])

    def clip1(u: np.ndarray) -> np.ndarray:
        nu = float(np.linalg.norm(u))
        return u if nu <= 1.0 else u / nu

    before = float(np.linalg.norm(v - (g - h)))
    after = float(np.linalg.norm(v - (clip1(g) - clip1(h))))
    return {"v": v, "g": g, "h": h, "before": before, "after": after, "norm_v": float(np.linalg.norm(v)),
            "counterexample": after > float(np.linalg.norm(v))}


def lemma_18_drift_bounds(kinds: Sequence[str], C: float, zeta: float) -> np.ndarray:
    """Lemma 18's induction: the bound Δ_j ≤ a_jζ + b_jC on ‖ψ^j(x_0) − ϕ^j(x_0)‖ after each of T coupled
    operation pairs, where a_j counts the (2C, ζ)-contractive pairs ("drift") and b_j the (∞, C)-contractive
    pair ("jump") among the first j; "contractive" pairs add nothing.  Every entry is ≤ 2C.

    kinds : sequence of "contractive" | "jump" | "drift";  C > 0;  ζ > 0.  Returns (T,) float array.
    Raises ValueError if the sequence breaks the lemma's conditions (more than one jump, more than
    c = ⌊C/ζ⌋ drifts)."""
    C = check_positive(C, "C")
    zeta = check_positive(zeta, "zeta")
    # ⌊C/ζ⌋ up to rounding: with ζ = C/c computed in floating point, C/ζ can land one ulp below the integer c
    c = math.floor(C / zeta * (1.0 + 4.0 * np.finfo(np.float64).eps))
    a = b = 0
    out = np.empty(len(kinds))
    for j, kind in enumerate(kinds):
        if kind == "drift":
            a += 1
        elif kind == "jump":
            b += 1
        elif kind != "contractive":
            raise ValueError(f"kinds[{j}] must be 'contractive', 'jump' or 'drift', got {kind!r}")
        if b > 1:
            raise ValueError("kinds: Lemma 18 allows at most one (∞, C)-contractive pair ('jump')")
        if a > c:
            raise ValueError(f"kinds: Lemma 18 allows at most c = ⌊C/ζ⌋ = {c} (2C, ζ)-contractive pairs ('drift')")
        out[j] = a * zeta + b * C
    return out
