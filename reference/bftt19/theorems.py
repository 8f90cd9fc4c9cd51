"""The parameter formulas and bounds of Bassily, Feldman, Talwar and Thakurta (2019), as plain functions.

    R. Bassily, V. Feldman, K. Talwar, A. Thakurta. "Private Stochastic Convex Optimization with Optimal
    Rates." NeurIPS 2019, arXiv:1908.09970.

Every function here maps public inputs (n, d, ε, δ, L, M, ...) to a number the paper prints: Algorithm 1's
T, m, σ², η (``theorem_3_2_parameters``), Algorithm 2's σ² and λ, Theorem 4.4's β, and every utility bound
(``theorem_3_2_bound``, ``lemma_3_3_bound``, ``lemma_3_4_stability``, ``theorem_4_4_bound``,
``lemma_5_4_bound``, ``theorem_5_3_bound``), so that the algorithms (``dpsco.reference.bftt19.algorithms``),
the tests and the reports call the paper, not a copy of it.  Nothing here touches data.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from dpsco.reference.bftt19.accounting import certified_noise_std
from dpsco.reference.validation import check_positive, check_positive_int

__all__ = [
    "PAPER",
    "PaperRegimeError",
    "rate_term",
    "theorem_3_2_T",
    "algorithm_1_noise_variance",
    "algorithm_1_batch_size",
    "theorem_3_2_smoothness_max",
    "NSGDParameters",
    "theorem_3_2_parameters",
    "theorem_3_2_bound",
    "lemma_3_3_bound",
    "lemma_3_4_stability",
    "theorem_3_2_proof_bound",
    "theorem_4_4_beta",
    "theorem_4_4_bound",
    "prox_inner_iterations",
    "algorithm_2_noise_variance",
    "theorem_5_3_lambda",
    "lemma_5_4_bound",
    "theorem_5_3_bound",
    "check_paper_regime",
    "EfficientObjPParameters",
    "efficient_objp_parameters",
]

PAPER = "Bassily, Feldman, Talwar, Thakurta (NeurIPS 2019)"


class PaperRegimeError(ValueError):
    """A privacy precondition of the paper does not hold for the given public inputs."""


# ================================================================================================
# Input conditions and the rate (Algorithms 1 and 2, Theorems 3.2 and 4.4)
# ================================================================================================


def _log_inv_delta(delta: float) -> float:
    if not (0.0 < delta < 1.0):
        raise ValueError(f"delta must lie in (0, 1) for log(1/delta), got {delta}")
    return math.log(1.0 / delta)


def check_paper_regime(n: int, epsilon: float, delta: float, algorithm: str) -> None:
    """Algorithms 1 and 2 take ε ≤ 1 and δ ≤ 1/n² as inputs; raise ``PaperRegimeError`` otherwise."""
    if epsilon > 1.0:
        raise PaperRegimeError(f"{algorithm} requires epsilon <= 1 (paper's input condition), got {epsilon}")
    if delta > 1.0 / n**2:
        raise PaperRegimeError(f"{algorithm} requires delta <= 1/n^2 = {1.0 / n**2:.3g} (paper's input "
                               f"condition), got {delta}")
    if delta <= 0.0:
        raise PaperRegimeError(f"{algorithm} requires delta > 0, got {delta}")


def rate_term(n: int, d: int, epsilon: float, delta: float) -> float:
    """max(√(d log(1/δ))/(εn), 1/√n), the optimal DP-SCO rate of Theorems 3.2 and 4.4 (without ML)."""
    return max(math.sqrt(d * _log_inv_delta(delta)) / (epsilon * n), 1.0 / math.sqrt(n))


# ================================================================================================
# Algorithm 1 (A_NSGD): Theorems 3.1 and 3.2, Lemmas 3.3 and 3.4
# ================================================================================================


def theorem_3_2_T(n: int, d: int, epsilon: float, delta: float) -> float:
    """T = min(n/8, ε²n²/(32 d log(1/δ))) (Theorem 3.2), as a real number."""
    return min(n / 8.0, epsilon**2 * n**2 / (32.0 * d * _log_inv_delta(delta)))


def algorithm_1_noise_variance(T: int, n: int, epsilon: float, delta: float, lipschitz: float) -> float:
    """σ² = 8 T L² log(1/δ)/(n² ε²) (Algorithm 1, line 1)."""
    return 8.0 * T * (lipschitz * lipschitz) * _log_inv_delta(delta) / (n**2 * epsilon**2)  # inf, not OverflowError


def algorithm_1_batch_size(n: int, epsilon: float, T: int) -> tuple[float, int]:
    """m = max(n √(ε/(4T)), 1) (Algorithm 1, line 2): (real value, ⌈real⌉ used by the implementation).

    Rounding up keeps q²T = (m/n)²T ≥ ε/4, the side condition of the accountant behind Theorem 3.1.
    """
    m_real = max(n * math.sqrt(epsilon / (4.0 * T)), 1.0)
    return m_real, min(n, math.ceil(m_real - 1e-12))


def theorem_3_2_smoothness_max(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float) -> float:
    """β_max = (L/M) min(√(n/2), εn/(2√(2d log(1/δ)))) (Theorem 3.2's smoothness hypothesis)."""
    return lipschitz / radius * min(math.sqrt(n / 2.0), epsilon * n / (2.0 * math.sqrt(2.0 * d * _log_inv_delta(delta))))


@dataclass(frozen=True)
class NSGDParameters:
    """Parameters of A_NSGD actually used (integer T and m) and the real values they came from."""

    T: int
    m: int
    eta: float
    sigma2: float  # the variance actually used (σ², see ``calibration``)
    lipschitz: float
    T_real: float
    m_real: float
    smoothness_max: float  # 2/η with the integer T: Lemma 3.4's condition η ≤ 2/β
    sigma2_printed: float = math.nan  # Algorithm 1, line 1: 8TL² log(1/δ)/(n²ε²)
    calibration: str = "certified"  # "certified": σ = max(printed, worst-pair certified); "printed": σ printed
    accountant_delta: float = math.nan  # worst-pair accountant's δ(ε) at σ (dpsco.reference.bftt19.accounting)
    printed_accountant_delta: float = math.nan  # the same at the printed σ
    printed_is_private: bool = True  # printed_accountant_delta ≤ δ

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def theorem_3_2_parameters(
    n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float,
    *, T: int | None = None, eta: float | None = None, calibration: str = "certified",
) -> NSGDParameters:
    """T, η, m, σ² of Theorem 3.2 / Algorithm 1.

    T = ⌊min(n/8, ε²n²/(32 d log(1/δ)))⌋, η = M/(L√T), m = ⌈max(n√(ε/(4T)), 1)⌉,
    σ²_printed = 8TL² log(1/δ)/(n²ε²).  ``T`` and ``eta`` may be overridden (utility constants): σ² and m are
    always computed with the T used.

    Noise (departure from the printed text, ERRATA.md BFTT19-E4): Theorem 3.1's σ²_printed is *not* (ε, δ)-DP under
    replace-one for small T (e.g. n = 1000, T = 1, ε = 1, δ = 10⁻⁶: ε = 1.99 on the worst pair).  With
    ``calibration="certified"`` (default) σ = max(σ_printed, the smallest σ that the worst-pair accountant
    certifies, ``dpsco.reference.bftt19.accounting.certified_noise_std``), so the algorithm is the paper's wherever its
    printed σ is private.  ``calibration="printed"`` keeps σ_printed; ``printed_accountant_delta`` and
    ``printed_is_private`` then say whether it is private, and the release's claim states the accountant's δ.

    Raises
    ------
    PaperRegimeError
        T < 1 (the bound is vacuous: √(d log(1/δ))/(εn) > 1/√32).
    """
    T_real = theorem_3_2_T(n, d, epsilon, delta)
    if T is None:
        T = math.floor(T_real)
        if T < 1:
            raise PaperRegimeError(
                f"Theorem 3.2 gives T = {T_real:.3f} < 1 for n={n}, d={d}, epsilon={epsilon}, delta={delta}: "
                "the regime is vacuous (excess-risk bound above the trivial 2ML)"
            )
    T = check_positive_int(T, "T")
    if eta is None:
        eta = radius / (lipschitz * math.sqrt(T))
    eta = check_positive(eta, "eta")
    m_real, m = algorithm_1_batch_size(n, epsilon, T)
    sigma2_printed = algorithm_1_noise_variance(T, n, epsilon, delta, lipschitz)
    if not math.isfinite(sigma2_printed):
        raise ValueError(f"lipschitz = {lipschitz!r} (the noise's clipping norm, from the declared bounds) makes "
                         "Algorithm 1's noise variance 8TL² log(1/δ)/(n²ε²) overflow")
    noise = certified_noise_std(n, m, T, lipschitz, epsilon, delta, math.sqrt(sigma2_printed),
                                calibration=calibration)
    sigma2 = sigma2_printed if noise.sigma == noise.sigma_printed else noise.sigma**2
    # A step η(g + G_t) has ‖g‖ ≤ L (clipped) and ‖G_t‖ ≤ σ(√d + 40) (Gaussian concentration: the excess has
    # probability < e^{−800}, zero in double precision).  Its squared norm (the projection onto W computes it)
    # must stay below the double range ~1.8e308, so the step must stay below ~1e150: a larger η made the iterate
    # inf and the released w̄_T NaN (η = 1e300).
    step_bound = eta * (lipschitz + math.sqrt(sigma2) * (math.sqrt(d) + 40.0))
    if not step_bound <= 1e150:
        raise ValueError(f"eta = {eta!r} is too large: a step η(g + G_t) can reach norm {step_bound:.3g} and overflow "
                         f"floating point (limit 1e150); Theorem 3.2's eta is M/(L√T) = "
                         f"{radius / (lipschitz * math.sqrt(T)):.3g}")
    return NSGDParameters(T=T, m=m, eta=eta, sigma2=sigma2, lipschitz=lipschitz, T_real=T_real,
                          m_real=m_real, smoothness_max=2.0 / eta, sigma2_printed=sigma2_printed,
                          calibration=noise.calibration, accountant_delta=noise.accountant_delta,
                          printed_accountant_delta=noise.printed_accountant_delta,
                          printed_is_private=noise.printed_is_private)


def theorem_3_2_bound(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float) -> float:
    """Theorem 3.2: E[excess population loss of A_NSGD] ≤ 10 M L max(√(d log(1/δ))/(εn), 1/√n)."""
    return 10.0 * radius * lipschitz * rate_term(n, d, epsilon, delta)


def lemma_3_3_bound(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float,
                    eta: float, T: int, *, sigma2: float | None = None) -> float:
    """Lemma 3.3: E[excess empirical loss] ≤ M²/(2ηT) + (ηL²/2)(16 T d log(1/δ)/(n²ε²) + 1).

    The lemma's 16Td log(1/δ)/(n²ε²) is 2dσ²/L² at the printed σ²; its proof holds for any noise variance, so
    when Algorithm 1 ran with a larger σ² (the certified calibration, ERRATA.md BFTT19-E4) pass it as ``sigma2``:
    the term becomes 2d·max(σ², σ²_printed)/L².

    Proved for the average of w_0..w_{T-1}; Algorithm 1 returns the average of w_1..w_T, which adds at most
    2ML/T (``docs/derivations.md#proof-level-excess-risk-bound-of-noisy-sgd``) — callers comparing Algorithm 1's
    output add ``2*radius*lipschitz/T``.
    """
    noise = 16.0 * T * d * _log_inv_delta(delta) / (n**2 * epsilon**2)
    if sigma2 is not None:
        noise = max(noise, 2.0 * d * check_positive(sigma2, "sigma2") / lipschitz**2)
    return radius**2 / (2.0 * eta * T) + eta * lipschitz**2 / 2.0 * (noise + 1.0)


def lemma_3_4_stability(lipschitz: float, eta: float, T: int, n: int, *, corrected: bool = True) -> float:
    """Uniform stability of A_NSGD (Lemma 3.4), valid when η ≤ 2/β.

    printed (``corrected=False``): α = L² T η / n.
    corrected (default): α = L² η (T+1) / n — the coupled-run argument for the averaged iterate
    w̄ = (1/T)Σ_{t=1..T} w_t gives E‖w̄ − w̄'‖ ≤ Lη(T+1)/n, attained by the linear loss (ERRATA.md BFTT19-E2).
    """
    return lipschitz**2 * eta * (T + 1 if corrected else T) / n


def theorem_3_2_proof_bound(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float,
                            params: NSGDParameters) -> float:
    """Proof-level bound B_3.2 for Algorithm 1's output with w_0 = 0
    (``docs/derivations.md#proof-level-excess-risk-bound-of-noisy-sgd``):
    M²/(2ηT) + (η/2)(L² + dσ²) + L²η(T+1)/n + 2ML/T."""
    T, eta = params.T, params.eta
    return (radius**2 / (2 * eta * T) + eta / 2 * (lipschitz**2 + d * params.sigma2)
            + lemma_3_4_stability(lipschitz, eta, T, n, corrected=True) + 2 * radius * lipschitz / T)


# ================================================================================================
# Section 4: A_NSGD on the β-Moreau envelope (Theorem 4.4) and A_ProxGD
# ================================================================================================


def theorem_4_4_beta(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float) -> float:
    """β = (L/M) min(√n/4, εn/(8√(d log(1/δ)))) (Theorem 4.4)."""
    return lipschitz / radius * min(math.sqrt(n) / 4.0, epsilon * n / (8.0 * math.sqrt(d * _log_inv_delta(delta))))


def theorem_4_4_bound(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float) -> float:
    """Theorem 4.4: E[excess population loss w.r.t. ℓ] ≤ 24 M L max(√(d log(1/δ))/(εn), 1/√n)."""
    return 24.0 * radius * lipschitz * rate_term(n, d, epsilon, delta)


def prox_inner_iterations(lipschitz: float, beta: float, accuracy: float, radius: float, *,
                          localized: bool = True) -> int:
    """K = ⌈4 G_φ²/ξ²⌉ (≥ 2) projected-subgradient steps on φ(v) = ℓ(v, z) + (β/2)‖v − w‖²
    (``docs/derivations.md#reconstruction-of-proxgd``).

    G_φ bounds φ's subgradients on the feasible set: L + β·diam, with diam = 2M on W (paper's count), or
    2L/β on the localised set B(w, L/β) (``localized=True``, G_φ ≤ 2L) which contains the prox because
    ‖prox(w) − w‖ ≤ L/β (``docs/derivations.md#moreau-envelope-gradients-are-bounded-by-l``).
    Rakhlin–Shamir–Sridharan (2012, Lemma 1, deterministic case) then give ‖v_K − v*‖ ≤ 2G_φ/(β√K), i.e. a
    gradient error β‖v_K − v*‖ ≤ ξ.
    """
    G = 2.0 * lipschitz if localized else lipschitz + beta * 2.0 * radius
    # (G/ξ)², not G**2/ξ**2: float ** raised OverflowError (ξ = 1e300) and ZeroDivisionError (ξ = 1e-300)
    ratio = G / accuracy
    K = 4.0 * ratio * ratio
    if not math.isfinite(K):
        raise ValueError(f"accuracy = {accuracy!r} is too small: K = ⌈4G²/ξ²⌉ overflows (G = {G!r})")
    return max(2, math.ceil(K))


# ================================================================================================
# Section 5: A_ObjP (Algorithm 2, Theorems 5.2 and 5.3) and its efficient variant
# ================================================================================================


def algorithm_2_noise_variance(lipschitz: float, epsilon: float, delta: float) -> float:
    """σ² = 10 L² log(1/δ)/ε² (Algorithm 2, line 1; no n)."""
    return 10.0 * lipschitz**2 * _log_inv_delta(delta) / epsilon**2


def _objp_root(n: int, d: int, epsilon: float, delta: float) -> float:
    return math.sqrt(2.0 / n + 4.0 * d * _log_inv_delta(delta) / (epsilon**2 * n**2))


def theorem_5_3_lambda(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float) -> float:
    """λ = (2L/M) √(2/n + 4d log(1/δ)/(ε²n²)) (Theorem 5.3)."""
    return 2.0 * lipschitz / radius * _objp_root(n, d, epsilon, delta)


def lemma_5_4_bound(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float,
                    lam: float) -> float:
    """Lemma 5.4: E_G[excess empirical loss of A_ObjP] ≤ 16 L² d log(1/δ)/(n²ε²λ) + λM²."""
    return 16.0 * lipschitz**2 * d * _log_inv_delta(delta) / (n**2 * epsilon**2 * lam) + lam * radius**2


def theorem_5_3_bound(n: int, d: int, epsilon: float, delta: float, lipschitz: float, radius: float,
                      *, printed: bool = False) -> float:
    """Theorem 5.3: E[excess population loss of A_ObjP] ≤ c·ML√(2/n + 4d log(1/δ)/(ε²n²)).

    printed=True: c = 2 as printed.  printed=False (default): c = 4, what the proof's last display gives at
    the stated λ (its λM² term alone equals the printed bound; ERRATA.md BFTT19-E3).
    """
    return (2.0 if printed else 4.0) * radius * lipschitz * _objp_root(n, d, epsilon, delta)




@dataclass(frozen=True)
class EfficientObjPParameters:
    epsilon1: float
    delta1: float
    epsilon2: float
    delta2: float
    lam: float
    sigma1_sq: float  # objective-perturbation variance (Alg. 2 with (ε1, δ1))
    radius_r: float  # certified distance to the exact perturbed minimiser
    sigma2: float  # output-noise standard deviation
    epsilon_total: float
    delta_total: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def efficient_objp_parameters(n: int, d: int, epsilon: float, delta: float, lipschitz: float,
                              radius: float) -> EfficientObjPParameters:
    """Budget split and noise of efficient ObjP
    (reconstructed: ``docs/derivations.md#reconstruction-of-efficient-objective-perturbation``).

    ε1 = ε/2, ε2 = ε/4, δ1 = δ/3, δ2 = δ/(3(1 + e^ε)); λ of Theorem 5.3 at (ε1, δ1); σ1² of Algorithm 2 at
    (ε1, δ1); r = M ε2/√(2nd log(1.25/δ2)); σ2 = r √(2 log(1.25/δ2))/ε2 (classical Gaussian mechanism with
    sensitivity r, ε2 < 1).  Composition (same derivation): (ε1 + 2ε2, e^{ε2}δ1 + (1 + e^{ε1+ε2})δ2) ≤ (ε, δ).
    """
    e1, e2 = epsilon / 2.0, epsilon / 4.0
    d1, d2 = delta / 3.0, delta / (3.0 * (1.0 + math.exp(epsilon)))
    lam = theorem_5_3_lambda(n, d, e1, d1, lipschitz, radius)
    log_term = math.log(1.25 / d2)
    r = radius * e2 / math.sqrt(2.0 * n * d * log_term)
    sigma_out = r * math.sqrt(2.0 * log_term) / e2
    eps_total = e1 + 2 * e2
    delta_total = math.exp(e2) * d1 + (1 + math.exp(e1 + e2)) * d2
    return EfficientObjPParameters(epsilon1=e1, delta1=d1, epsilon2=e2, delta2=d2, lam=lam,
                                   sigma1_sq=algorithm_2_noise_variance(lipschitz, e1, d1), radius_r=r,
                                   sigma2=sigma_out, epsilon_total=eps_total, delta_total=delta_total)
