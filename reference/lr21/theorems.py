"""Lowy & Razaviyayn's parameter choices and bounds, as plain functions of public inputs.

The sensitivities (Lemma 0.1, Lemma 0.5, Algorithms 1–3 line 2), the iteration counts of the inner methods
(Prop. 0.1, the AGD and Katyusha counts), every theorem's α, λ and T (Thms 0.2–0.5, 2.1–2.4, 3.1–3.4, 4.1;
Props 4.1, 4.2) and bound, and the master bounds MB1–MB5 (docs/derivations.md#master-bounds-for-output-perturbation)
that hold for any parameters.  Every bound is written in the noise factor s (``dpsco.reference.noise.noise_factor``):
s₀ = d/ε (δ = 0), s_δ = √d(c_δ + √(c_δ² + ε))/ε (δ ∈ (0, ½)).  Where the printed statement is wrong, the
default is the corrected form and ``printed=True`` gives the printed one (ERRATA.md, LR section).
"""

from __future__ import annotations

import math
from typing import Literal

from dpsco.reference.noise import c_delta, noise_factor
from dpsco.reference.validation import check_epsilon, check_positive, check_positive_int

__all__ = [
    "SensitivityMode", "subgradient_iterations", "agd_iterations", "katyusha_gradient_order",
    "sensitivity_alg1", "sensitivity_alg2", "sensitivity_T",
    "theorem_0_2_bound", "theorem_0_3_bound", "theorem_2_1_parameters", "theorem_2_1_bound",
    "theorem_2_2_parameters", "theorem_2_2_bound", "theorem_0_4_lambda", "theorem_0_4_alpha",
    "theorem_0_4_bound", "theorem_0_4_general_bound", "theorem_2_3_parameters", "theorem_2_3_bound",
    "theorem_0_5_lambda", "theorem_0_5_alpha", "theorem_0_5_bound", "theorem_2_4_parameters",
    "theorem_2_4_bound", "theorem_3_1_parameters", "theorem_3_1_bound", "theorem_3_2_bound",
    "theorem_3_3_parameters", "theorem_3_3_bound", "theorem_3_4_bound", "lemma_0_5_sensitivity",
    "lemma_4_2_smoothness", "proposition_4_1_alpha", "proposition_4_1_bound", "proposition_4_2_bound",
    "theorem_4_1_alpha", "theorem_4_1_bound", "theorem_4_1_gradient_order",
    "master_bound_lipschitz_alg1", "master_bound_smooth_alg1", "master_bound_lipschitz_alg2",
    "master_bound_smooth_alg2", "master_bound_population",
]

#: "paper": the paper's Δ (L the Lipschitz constant of the regularised per-sample loss); "tight": Lemma 0.2 with the
#: regulariser cancelling (docs/derivations.md#tight-sensitivities-the-regulariser-cancels)
SensitivityMode = Literal["paper", "tight"]


# ================================================================================================
# Iteration counts of the inner methods
# ================================================================================================


def subgradient_iterations(lipschitz: float, modulus: float, alpha: float) -> int:
    """T = ⌈2L²/(μα)⌉ (Prop. 0.1 / Aravkin et al. 2017; Bubeck 2015 Thm 3.9: error ≤ 2L²/(μ(T+1)))."""
    L, mu, a = (check_positive(lipschitz, "lipschitz"), check_positive(modulus, "modulus"),
                check_positive(alpha, "alpha"))
    t = 2.0 * L * L / (mu * a)
    if not math.isfinite(t):
        raise ValueError(f"subgradient_iterations: 2L²/(μα) overflows for lipschitz={L!r}, modulus={mu!r}, "
                         f"alpha={a!r}; increase alpha or the modulus (mu, or lam in Algorithm 2)")
    return max(1, math.ceil(t))


def agd_iterations(modulus: float, smoothness: float, radius: float, alpha: float) -> int:
    """T = ⌈√κ log((μ + β)R²/(2α))⌉, κ = β/μ (proof of Thm 2.2, Bubeck 2015 Thm 3.18); 0 if the log < 0."""
    mu, beta = check_positive(modulus, "modulus"), check_positive(smoothness, "smoothness")
    R, a = check_positive(radius, "radius"), check_positive(alpha, "alpha")
    arg = (mu + beta) * R * R / (2.0 * a)
    log_arg = math.log(arg) if math.isfinite(arg) else math.log(mu + beta) + 2.0 * math.log(R) - math.log(2.0) - math.log(a)
    if arg <= 1.0:
        return 0
    t = math.sqrt(max(beta / mu, 1.0)) * log_arg
    if not math.isfinite(t):  # κ = β/μ overflows (μ = 5e-324): math.ceil(inf) would raise OverflowError
        raise ValueError(f"agd_iterations: √κ log((μ + β)R²/(2α)) overflows for modulus={mu!r}, "
                         f"smoothness={beta!r}, alpha={a!r}; increase the modulus (mu, or lam in Algorithm 2)")
    return math.ceil(t)


def katyusha_gradient_order(n: int, kappa: float, lipschitz: float, radius: float, alpha: float) -> float:
    """(n + √(nκ)) log(LR/α): the O(·) of Thm 3.2 / Thm 0.6 (hidden constant not given; a scaling form)."""
    return (n + math.sqrt(n * kappa)) * math.log(max(lipschitz * radius / alpha, math.e))


# ================================================================================================
# Sensitivities (Lemma 0.1, Alg. 1–3 line 2)
# ================================================================================================


def sensitivity_alg1(lipschitz: float, modulus: float, n: int, *, erm: bool) -> float:
    """Δ_F = 2L/(μn) (F ∈ 𝓕^ERM) or 2L/μ (Alg. 1 line 2; Lemma 0.1)."""
    L, mu = check_positive(lipschitz, "lipschitz"), check_positive(modulus, "modulus")
    return 2.0 * L / (mu * check_positive_int(n, "n")) if erm else 2.0 * L / mu


def sensitivity_alg2(lipschitz: float, lam: float, radius: float, n: int, *, erm: bool) -> float:
    """Δ_λ = 2(L + λR)/(λn) (ERM) or 2(L + λR)/λ (Alg. 2 line 2)."""
    L, lm, R = check_positive(lipschitz, "lipschitz"), check_positive(lam, "lam"), check_positive(radius, "radius")
    base = 2.0 * (L + lm * R) / lm
    return base / check_positive_int(n, "n") if erm else base


def sensitivity_T(delta_F: float, alpha: float, modulus: float, *, epsilon: float | None = None,
                  printed: Literal[False, "alg2", "alg3"] = False) -> float:
    """Δ_T = Δ + 2√(2α/modulus) (proofs of Props 2.1/2.2): the sensitivity of an α-accurate w_T.

    ``printed="alg2"``: Alg. 2's printed Δ_λ + 2√(2ε/λ) (needs ``epsilon``; erratum LR21-E1);
    ``printed="alg3"``: Alg. 3's printed Δ + 2α/μ (erratum LR21-E3).  For comparison only."""
    D = check_positive(delta_F, "delta_F")
    a, mu = check_positive(alpha, "alpha"), check_positive(modulus, "modulus")
    if printed is False:
        return D + 2.0 * math.sqrt(2.0 * a / mu)
    if printed == "alg2":
        return D + 2.0 * math.sqrt(2.0 * check_epsilon(epsilon) / mu)
    if printed == "alg3":
        return D + 2.0 * a / mu
    raise ValueError(f"printed must be False, 'alg2' or 'alg3', got {printed!r}")


# ================================================================================================
# Theorem bounds and parameters (plain functions of public inputs)
# ================================================================================================


def _s(d: int, eps: float, delta: float) -> float:
    return noise_factor(d, eps, delta)


def theorem_0_2_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float, alpha: float, *,
                      erm: bool) -> float:
    """Thm 0.2 (Alg. 1, any 𝓜): 2√2(L²/μ[n] + L√(2α/μ))s₀ + α (δ = 0) or 2(…)s_δ + α (δ > 0)."""
    s = _s(d, eps, delta)
    lead = L * L / (mu * n) if erm else L * L / mu
    c = 2.0 * math.sqrt(2.0) if delta == 0 else 2.0
    return c * (lead + L * math.sqrt(2.0 * alpha / mu)) * s + alpha


def theorem_0_3_bound(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float, alpha: float, *,
                      erm: bool, printed: bool = False) -> float:
    """Thm 0.3 (Alg. 1 on 𝓗, any 𝓜), first statement (any α), with D = L/(μ[n]) + √(2α/μ), Δ_T = 2D.

    ``printed=True``: as printed, 4βD²s₀² + α (δ = 0), 2βD²s_δ² + α (δ > 0).  Its proof uses
    E⟨∇F(w_T), Π(w_T + z) − w_T⟩ = 0, which is false when the projection is active (erratum LR21-E11): for d ≥ 2
    the printed form fails (tests/lr21/test_lr21_errata_spec.py: exceeded on the instance of ERRATA.md LR21-E11 once s_δ is
    small).
    For d = 1 it holds: on a line F(Π(y)) ≤ F(y) when the minimiser lies in [−R, R].

    Default (rigorous, MB2(i) of docs/derivations.md#master-bounds-for-output-perturbation with the exact noise
    moments): the printed form for d = 1; for d ≥ 2
    α + (β/2)E‖z‖² + min{L, √(2βα)}·m₁ with (β/2)E‖z‖² = 2(1 + 1/d)βD²s₀² and m₁ = E‖z‖ = 2Ds₀ (δ = 0), resp.
    (β/2)E‖z‖² = βD²s_δ² and m₁ = √2·Ds_δ ≥ E‖z‖ (δ > 0).  Needs w_T ∈ B(0, R), which the inner step of this
    module guarantees; ‖∇F(w_T)‖ ≤ √(2βα) needs the paper's standing assumption that a global minimiser lies in
    B(0, R), ‖∇F(w_T)‖ ≤ L does not.  With the prescribed α the default stays ≤ 25.4κL²s₀²/(μ[n²]) and
    ≤ 12.7κL²s_δ²/(μ[n²]): Thm 0.3's final constants 26 and 13.5 survive (LR21-E11)."""
    s = _s(d, eps, delta)
    lead = L / (mu * n) if erm else L / mu
    D = lead + math.sqrt(2.0 * alpha / mu)
    if printed or d == 1:
        return (4.0 if delta == 0 else 2.0) * beta * D**2 * s * s + alpha
    if delta == 0:
        noise_term, m1 = 2.0 * (1.0 + 1.0 / d) * beta * D**2 * s * s, 2.0 * D * s
    else:
        noise_term, m1 = beta * D**2 * s * s, math.sqrt(2.0) * D * s
    return alpha + noise_term + min(L, math.sqrt(2.0 * beta * alpha)) * m1


def theorem_2_1_parameters(L: float, mu: float, d: int, eps: float, delta: float) -> tuple[float, int, int]:
    """Thm 2.1 (non-ERM, subgradient): α = L²s/μ; (T_printed, T_rigorous) = (2/s as printed: 2ε/d or
    2/s_δ, rounded up; ⌈2L²/(μα)⌉ = ⌈2/s⌉)."""
    s = _s(d, eps, delta)
    alpha = L * L * s / mu
    return alpha, math.ceil(2.0 / s), subgradient_iterations(L, mu, alpha)


def theorem_2_1_bound(L: float, mu: float, d: int, eps: float, delta: float) -> float:
    """Thm 2.1: 9L²s/μ (both δ = 0 and δ > 0 as printed; Thm 0.2 gives 6 for δ > 0)."""
    return 9.0 * L * L * _s(d, eps, delta) / mu


def theorem_2_2_parameters(L: float, mu: float, beta: float, R: float, d: int, eps: float, delta: float, *,
                           n: int = 1, erm: bool = False) -> tuple[float, int, int]:
    """Thm 2.2 (non-ERM) / Thm 0.3-2 (ERM), AGD: α = (L²/(μ[n²]))min{κs², 1};
    (T_printed = ⌈√κ log(βR²μ/L² · max{1, 1/(κs²)})⌉ (non-ERM), T_rigorous = ``agd_iterations``)."""
    s, kappa = _s(d, eps, delta), beta / mu
    alpha = L * L / mu * min(kappa * s * s, 1.0) / (n * n if erm else 1.0)
    t_pr = math.ceil(math.sqrt(kappa) * math.log(max(beta * R * R * mu / (L * L) * max(1.0, 1.0 / (kappa * s * s)),
                                                      1.0)))
    return alpha, t_pr, agd_iterations(mu, beta, R, alpha)


def theorem_2_2_bound(L: float, mu: float, beta: float, d: int, eps: float, delta: float, *, n: int = 1,
                      erm: bool = False) -> float:
    """Thm 2.2 / 0.3-2: 26κL²s²/μ (δ = 0), 13.5κL²s²/μ (δ > 0); s → s/n for ERM."""
    s = _s(d, eps, delta) / (n if erm else 1)
    return (26.0 if delta == 0 else 13.5) * (beta / mu) * L * L * s * s / mu


def theorem_0_4_lambda(L: float, R: float, n: int, d: int, eps: float, delta: float, *, erm: bool) -> float:
    """Thm 0.4: λ = L/(R√(1 + n/s)) (ERM) or L/(R√(1 + 1/s))."""
    s = _s(d, eps, delta)
    return L / (R * math.sqrt(1.0 + (n if erm else 1) / s))


def theorem_0_4_alpha(L: float, R: float, n: int, d: int, eps: float, delta: float, *, erm: bool,
                      printed: bool = False) -> float:
    """Thm 0.4: α = LRs^{3/2} (non-ERM); ERM δ = 0: LR(s₀/n)^{3/2}/(1 + s₀)²; ERM δ > 0: printed
    LR(s_δ/n)^{3/2}, corrected (default) LR(s_δ/n)^{3/2}/(1 + s_δ)² (erratum LR21-E5)."""
    s = _s(d, eps, delta)
    if not erm:
        return L * R * s**1.5
    base = L * R * (s / n) ** 1.5
    if delta > 0 and printed:
        return base
    return base / (1.0 + s) ** 2


def theorem_0_4_general_bound(L: float, R: float, n: int, d: int, eps: float, delta: float, alpha: float, *,
                              erm: bool, printed: bool = False) -> float:
    """Thm 0.4's bound before α is fixed: non-ERM 16.5LR√s + 32√(αLR)s^{-1/4} (δ = 0), 13LR√s + 12√(αLR)s^{-1/4};
    ERM 16.5LR√(s/n) + 16√(αLR)(n/s)^{1/4}(1 + s) (δ = 0).

    ERM δ > 0 (part 2b, condition s_δ/n ≤ 1): printed (``printed=True``) 13LR√(s/n) + 12√(αLR)(n/s)^{1/4}, which
    drops the factor (1 + 2s_δ) of its own proof and is false for large s_δ (erratum LR21-E12); default (corrected)
    13LR√(s/n) + 4√(αLR)(n/s)^{1/4}(1 + 2s_δ) (MB3 with E‖z‖ ≤ s_δΔ_T gives 2√2·2^{1/4} = 3.36 ≤ 4 in front of
    (1 + 2s_δ)).  The non-ERM parts' 32 and 12 are 16(1 + s) and 4(1 + 2s) at their condition s ≤ 1."""
    s = _s(d, eps, delta)
    if not erm:
        if delta == 0:
            return 16.5 * L * R * math.sqrt(s) + 32.0 * math.sqrt(alpha * L * R) * s**-0.25
        return 13.0 * L * R * math.sqrt(s) + 12.0 * math.sqrt(alpha * L * R) * s**-0.25
    if delta == 0:
        return 16.5 * L * R * math.sqrt(s / n) + 16.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25 * (1.0 + s)
    if printed:
        return 13.0 * L * R * math.sqrt(s / n) + 12.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25
    return 13.0 * L * R * math.sqrt(s / n) + 4.0 * math.sqrt(alpha * L * R) * (n / s) ** 0.25 * (1.0 + 2.0 * s)


def theorem_0_4_bound(L: float, R: float, n: int, d: int, eps: float, delta: float, *, erm: bool) -> float:
    """Thm 0.4 / 2.3 final constants: non-ERM 49LR√s (δ = 0), 25LR√s; ERM 33LR√(s/n), 25LR√(s/n)."""
    s = _s(d, eps, delta)
    if erm:
        return (33.0 if delta == 0 else 25.0) * L * R * math.sqrt(s / n)
    return (49.0 if delta == 0 else 25.0) * L * R * math.sqrt(s)


def theorem_2_3_parameters(L: float, R: float, d: int, eps: float, delta: float, *, n: int = 1,
                           erm: bool = False) -> tuple[float, float, int, int]:
    """Thm 2.3 / 0.4 with the subgradient method: (λ, α, T_printed = ⌈12/s²⌉, T_rigorous = ⌈2(L+λR)²/(λα)⌉)."""
    s = _s(d, eps, delta)
    lam = theorem_0_4_lambda(L, R, n, d, eps, delta, erm=erm)
    alpha = theorem_0_4_alpha(L, R, n, d, eps, delta, erm=erm)
    return lam, alpha, math.ceil(12.0 / (s * s)), subgradient_iterations(L + lam * R, lam, alpha)


def theorem_2_3_bound(L: float, R: float, d: int, eps: float, delta: float) -> float:
    """Thm 2.3: 49LR√(d/ε) (δ = 0), 25LR√s_δ (δ > 0) (= Thm 0.4 non-ERM)."""
    return theorem_0_4_bound(L, R, 1, d, eps, delta, erm=False)


def theorem_0_5_lambda(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                       erm: bool) -> float:
    """Thm 0.5: λ = (βL²/R²)^{1/3}(s/n)^{2/3} (ERM) or (βL²/R²)^{1/3}s^{2/3}."""
    s = _s(d, eps, delta) / (n if erm else 1)
    return (beta * L * L / (R * R)) ** (1.0 / 3.0) * s ** (2.0 / 3.0)


def theorem_0_5_alpha(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 0.5: α = min{L^{4/3}R^{2/3}β^{-1/3}s^{-2/3}[n^{-4/3}], β^{1/3}L^{2/3}R^{4/3}(s[/n])^{2/3}}."""
    s = _s(d, eps, delta)
    a1 = L ** (4 / 3) * R ** (2 / 3) * beta ** (-1 / 3) * s ** (-2 / 3) * (n ** (-4 / 3) if erm else 1.0)
    a2 = beta ** (1 / 3) * L ** (2 / 3) * R ** (4 / 3) * (s / (n if erm else 1)) ** (2 / 3)
    return min(a1, a2)


def theorem_0_5_bound(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 0.5 / 2.4: 146β^{1/3}L^{2/3}R^{4/3}(s[/n])^{2/3} (δ = 0), 27·(…) (δ > 0).

    The proof's projection step is erratum LR21-E11, but these final constants (prescribed λ, α, under
    (s[/n])² ≤ L/(Rβ), L ≤ Rβ) survive the rigorous route: λR²/2 + α + ((β+λ)/2)E‖z‖² + min{L + λR,
    √(2(β+λ)α)}E‖z‖, capped by 2LR, stays ≤ 32.2·(…) (δ = 0) and ≤ 13.8·(…) (δ > 0) on the grid of
    tests/lr21/test_lr21_errata_spec.py.  The theorem's *first* statement (any α; not implemented here) is false for
    d ≥ 2: tests/lr21/test_lr21_errata_spec.py::test_LR21_E11_theorem_0_5_first_statement_fails_for_d2_and_MB4_holds."""
    s = _s(d, eps, delta) / (n if erm else 1)
    return (146.0 if delta == 0 else 27.0) * beta ** (1 / 3) * L ** (2 / 3) * R ** (4 / 3) * s ** (2 / 3)


def theorem_2_4_parameters(L: float, R: float, beta: float, d: int, eps: float, *, printed: bool) -> tuple[float, int]:
    """Thm 2.4a (δ = 0): printed α = L^{4/3}R^{2/3}β^{-1/3}(ε/d)^{2/3}, T = ⌈√2(βRε/(Ld))^{1/3}
    log(2(βR/L)^{4/3}(d/ε)^{2/3})⌉; ``printed=False``: Thm 0.5's α and the AGD count on F_λ (erratum LR21-E7)."""
    s = d / eps
    if printed:
        alpha = L ** (4 / 3) * R ** (2 / 3) * beta ** (-1 / 3) * s ** (-2 / 3)
        T = math.ceil(math.sqrt(2) * (beta * R / (L * s)) ** (1 / 3)
                      * math.log(max(2 * (beta * R / L) ** (4 / 3) * s ** (2 / 3), 1.0)))
        return alpha, T
    lam = theorem_0_5_lambda(L, R, beta, 1, d, eps, 0.0, erm=False)
    alpha = theorem_0_5_alpha(L, R, beta, 1, d, eps, 0.0, erm=False)
    return alpha, agd_iterations(lam, beta + lam, R, alpha)


def theorem_2_4_bound(L: float, R: float, beta: float, d: int, eps: float, delta: float) -> float:
    return theorem_0_5_bound(L, R, beta, 1, d, eps, delta, erm=False)


def theorem_3_1_parameters(L: float, mu: float, n: int, d: int, eps: float, delta: float, *,
                           printed: bool = False) -> tuple[float, int]:
    """Thm 3.1: α = (L²/(μn))min{1/n, s}, T = ⌈2n·max{n, 1/s}⌉ (= ⌈2L²/(μα)⌉, the proof's count).

    ``printed=True`` returns the statement's T: δ = 0 ⌈2max{n², nε/d}⌉ (the same); δ > 0 the garbled
    "⌈2n max{n, ε/√(d(2c_δ + √ε))}⌉" read with the √ over d only, ⌈2n·max{n, ε/(√d(2c_δ + √ε))}⌉ (the reading
    that matches the printed runtime O(n√(dε))).  Since 2c + √ε ≥ c + √(c² + ε) it is ≤ the default and can stop
    before α is reached (erratum LR21-E13; for comparison only — privacy needs the certified α)."""
    s = _s(d, eps, delta)
    alpha = L * L / (mu * n) * min(1.0 / n, s)
    if printed and delta > 0:
        c = c_delta(delta)
        return alpha, math.ceil(2.0 * n * max(n, eps / (math.sqrt(d) * (2.0 * c + math.sqrt(eps)))))
    return alpha, math.ceil(2.0 * n * max(n, 1.0 / s))


def theorem_3_1_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float, *,
                      printed: bool = False) -> float:
    """Thm 3.1: (L²/μ)(5/n + 9s₀/n) (δ = 0), (L²/μ)(5/n + 6s_δ/n) (δ > 0, as in the proof: Thm 0.2-2b).

    ``printed=True`` (δ > 0): the statement as typeset, (L²/μ)(5/n + 6√(d(c_δ + √(c_δ² + ε)))/(εn)) — the √
    over d(·) instead of d alone; it equals the default's term times 1/√(c_δ + √(c_δ² + ε)) and is false
    (erratum LR21-E13, counterexample in tests/lr21/test_lr21_errata_spec.py); for comparison only."""
    s = _s(d, eps, delta)
    if printed and delta > 0:
        c = c_delta(delta)
        return L * L / mu * (5.0 / n + 6.0 * math.sqrt(d * (c + math.sqrt(c * c + eps))) / (eps * n))
    return L * L / mu * (5.0 / n + (9.0 if delta == 0 else 6.0) * s / n)


def theorem_3_2_bound(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.2: (L²/μ)(5/n + 26κ(s/n)²) (δ = 0), 13.5κ (δ > 0)."""
    s = _s(d, eps, delta) / n
    return L * L / mu * (5.0 / n + (26.0 if delta == 0 else 13.5) * (beta / mu) * s * s)


def theorem_3_3_parameters(L: float, R: float, n: int, d: int, eps: float, delta: float, *,
                           printed: bool) -> tuple[float, float, int]:
    """Thm 3.3 (λ not given by the paper).  ``printed=True``: Thm 0.4's ERM λ, the printed α and T
    (T = 2n²max{1, 1/s₀²} (δ = 0), 2n²ε/d (δ > 0)) — which does NOT reach α (erratum LR21-E7);
    ``printed=False``: the safe choice of docs/derivations.md#a-safe-lambda-for-theorem-33,
    m = 1/√(1 + min{n, n/s}), λ = Lm/R, α = LRm/(32n(1+s)²),
    T = ⌈2(L + λR)²/(λα)⌉.  Returns (λ, α, T)."""
    s = _s(d, eps, delta)
    if printed:
        lam = theorem_0_4_lambda(L, R, n, d, eps, delta, erm=True)
        if delta == 0:
            alpha = L * R * (s / n) ** 1.5 / (1 + s) ** 2
            T = math.ceil(2 * n * n * max(1.0, 1.0 / (s * s)))
        else:
            alpha = L * R * (s / n) ** 1.5
            T = math.ceil(2 * n * n * eps / d)
        return lam, alpha, T
    m = 1.0 / math.sqrt(1.0 + min(n, n / s))
    lam = L * m / R
    alpha = L * R * m / (32.0 * n * (1.0 + s) ** 2)
    return lam, alpha, subgradient_iterations(L + lam * R, lam, alpha)


def theorem_3_3_bound(L: float, R: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.3: 32LR(√(s/n) + 1/√n)."""
    return 32.0 * L * R * (math.sqrt(_s(d, eps, delta) / n) + 1.0 / math.sqrt(n))


def theorem_3_4_bound(L: float, R: float, beta: float, n: int, d: int, eps: float, delta: float) -> float:
    """Thm 3.4: 64β^{1/3}L^{2/3}R^{4/3}(1/√n + (s/n)^{2/3})."""
    s = _s(d, eps, delta)
    return 64.0 * beta ** (1 / 3) * L ** (2 / 3) * R ** (4 / 3) * (1 / math.sqrt(n) + (s / n) ** (2 / 3))


# -- Tilted ERM (Sec. 4) ---------------------------------------------------------------------------


def lemma_0_5_sensitivity(L: float, mu: float, n: int, C_tau: float, *, tight: bool = False) -> float:
    """Lemma 0.5: Δ_{F_τ} ≤ 2LC_τ/(μn); ``tight``: (2L/μ)min{1, C_τ/n} (corrected proof,
    docs/derivations.md#sensitivity-and-smoothness-of-the-tilted-objective)."""
    if tight:
        return 2.0 * L / mu * min(1.0, C_tau / n)
    return 2.0 * L * C_tau / (mu * n)


def lemma_4_2_smoothness(beta: float, L: float, tau: float, *, proof: bool = False) -> float:
    """Lemma 4.2: β_τ = β + L²τ (statement; correct); ``proof=True``: β + 2L²τ (the proof's conclusion)."""
    return beta + (2.0 if proof else 1.0) * L * L * tau


def proposition_4_1_alpha(L: float, mu: float, n: int, d: int, eps: float, delta: float, C_tau: float, *,
                          printed: bool = False) -> float:
    """Prop. 4.1's α.  δ = 0 printed: (L²C_τ/(μn))min{1/n, C_τd/ε}; corrected (default, LR21-E6) and δ > 0:
    (L²C_τ/μ)min{C_τ/n², s/n}."""
    s = _s(d, eps, delta)
    if delta == 0 and printed:
        return L * L * C_tau / (mu * n) * min(1.0 / n, C_tau * d / eps)
    return L * L * C_tau / mu * min(C_tau / n**2, s / n)


def proposition_4_1_bound(L: float, mu: float, n: int, d: int, eps: float, delta: float, C_tau: float) -> float:
    """Prop. 4.1: 9L²C_τs/(μn)."""
    return 9.0 * L * L * C_tau * _s(d, eps, delta) / (mu * n)


def proposition_4_2_bound(L: float, mu: float, beta_tau: float, n: int, d: int, eps: float, delta: float,
                          C_tau: float, *, printed: bool = False) -> float:
    """Prop. 4.2: 26κ_τL²C_τ^k/μ (s/n)² (δ = 0), 13.5 (δ > 0); k = 1 as printed, k = 2 corrected (LR21-E4)."""
    s = _s(d, eps, delta) / n
    c = C_tau if printed else C_tau**2
    return (26.0 if delta == 0 else 13.5) * (beta_tau / mu) * L * L * c / mu * s * s


# -- Adversarial training (Thm 4.1) ----------------------------------------------------------------


def theorem_4_1_alpha(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 4.1's α = (L²/μ)min{κs², 1} (non-ERM), /n² (ERM)."""
    s = _s(d, eps, delta)
    return L * L / mu * min(beta / mu * s * s, 1.0) / (n * n if erm else 1.0)


def theorem_4_1_bound(L: float, mu: float, beta: float, n: int, d: int, eps: float, delta: float, *,
                      erm: bool) -> float:
    """Thm 4.1 (needs G_D β-smooth, erratum LR21-E9): 26κL²s²/μ (δ = 0), 13.5κ (δ > 0), s → s/n for ERM."""
    return theorem_2_2_bound(L, mu, beta, d, eps, delta, n=n, erm=erm)


def theorem_4_1_gradient_order(L: float, mu: float, beta: float, beta_v: float, n: int, d: int, eps: float,
                               delta: float, rho: float, *, erm: bool) -> float:
    """Thm 4.1's Õ count: √(ββ_v/(L² min{κs², 1}))·√n ρ (non-ERM), × n (ERM): the scaling form."""
    s = _s(d, eps, delta)
    base = math.sqrt(beta * beta_v / (L * L * min(beta / mu * s * s, 1.0))) * math.sqrt(n) * rho
    return base * n if erm else base


# -- Master bounds (docs/derivations.md#master-bounds-for-output-perturbation; exact noise moments) ---


def master_bound_lipschitz_alg1(L: float, alpha: float, modulus: float, mean_norm: float) -> float:
    """MB1: E F(w_A) − F* ≤ L(√(2α/μ) + E‖z‖) (no condition on the projection)."""
    return L * (math.sqrt(2.0 * alpha / modulus) + mean_norm)


def master_bound_smooth_alg1(beta: float, alpha: float, modulus: float, mean_sq_norm: float) -> float:
    """MB2(ii): E F(w_A) − F* ≤ κα + (β/2)E‖z‖² (valid with the projection, unlike Thm 0.3's step, LR21-E11)."""
    return beta / modulus * alpha + 0.5 * beta * mean_sq_norm


def master_bound_lipschitz_alg2(L: float, lam: float, R: float, alpha: float, mean_norm: float) -> float:
    """MB3: E F(w_A) − F* ≤ (L + λR)(√(2α/λ) + E‖z‖) + λR²/2."""
    return (L + lam * R) * (math.sqrt(2.0 * alpha / lam) + mean_norm) + 0.5 * lam * R * R


def master_bound_smooth_alg2(beta: float, lam: float, R: float, alpha: float, mean_sq_norm: float) -> float:
    """MB4: E F(w_A) − F* ≤ λR²/2 + (β + λ)α/λ + ((β + λ)/2)E‖z‖² (valid with the projection, LR21-E11)."""
    return 0.5 * lam * R * R + (beta + lam) * alpha / lam + 0.5 * (beta + lam) * mean_sq_norm


def master_bound_population(L: float, sensitivity_T_value: float, empirical_bound: float) -> float:
    """MB5: E[population excess] ≤ L·Δ_T (uniform stability, Lemma 0.4) + E[empirical excess bound]."""
    return L * sensitivity_T_value + empirical_bound
