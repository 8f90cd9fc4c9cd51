"""Planted bugs in Menart et al. (2023)'s Algorithm 3 (adaptive noisy GD under a fully adaptive filter) and its
Theorem 5 variant (exponential-mechanism selection).  Each function has the signature of the algorithm it
breaks, one deliberate privacy bug, and the original claim; its docstring names the check that catches it
(``tests/test_muabg23_adaptive.py`` and the ``muabg23.adaptive_gd`` / ``muabg23.adaptive_gd_em`` suites).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from dpsco.reference.muabg23.adaptive import (adaptive_gd, adaptive_gd_em, em_select, exact_rule,
                                              norm_query_cost_line6)
from dpsco.reference.muabg23.ledger import replace_one_sensitivity
from dpsco.reference.privacy import Release
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["adaptive_gd_cost_from_noisy_norm", "adaptive_gd_paper_units", "adaptive_gd_sigma_from_exact_norm",
           "adaptive_gd_noise_over_1e6", "adaptive_gd_em_temperature_without_2", "adaptive_gd_draws_sigma_over_sqrt2",
           "adaptive_gd_em_draws_sigma_over_sqrt2"]


def _n_d(grad: Any, w0: Any) -> tuple[int, int]:
    w = np.asarray(w0, dtype=np.float64)
    return int(np.asarray(grad(w)).shape[0]), int(w.size)


def adaptive_gd_cost_from_noisy_norm(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                     rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                                     delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 whose gradient cost is read from the noisy norm, min{Δ²ψ²/(2N_t²), c_max} (the printed line 6
    form), while σ_t = max{N_t/ψ, σ_min}: a negative N_t releases at the floor σ_min but is charged little, so
    the filter under-counts and the loop continues.  Caught by ``test_cost_from_noisy_norm_overshoots`` (the
    exact replace-one cost Σ Δ²/(2σ²) of the transcript exceeds the claim's ρ, started at the minimiser)."""
    n, d = _n_d(grad, w0)
    base = exact_rule(n, d, rho, beta, L0, L1)
    c_n, c_max = norm_query_cost_line6(n, rho), rho / 2.0 - norm_query_cost_line6(n, rho)
    delta_s, psi = base.true_sensitivity, base.psi
    rule = replace(base, name="exact-cost-from-N", step_cost=lambda _s, N: c_n + min(
        delta_s ** 2 * psi ** 2 / (2.0 * max(N * N, 1e-300)), c_max))
    return adaptive_gd(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta, rule=rule,
                       white_box=white_box)


def adaptive_gd_paper_units(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                            rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                            delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 with the exact noise scales but the paper's accounting (L_0/(nσ))² (sensitivity L_0/n, App.
    D.2): every charged cost is half the replace-one cost, so the run spends ≈ 2× its claim ρ.  Caught by
    ``test_paper_units_undercount_twice`` (exact cost of the transcript > ρ on every run) and by the white-box
    audit of the transcript (``tests/test_muabg23_adaptive_white_box.py::test_white_box_refutes_paper_units``).
    ``white_box`` is passed through to ``adaptive_gd``."""
    n, d = _n_d(grad, w0)
    base = exact_rule(n, d, rho, beta, L0, L1)
    half = base.true_sensitivity / 2.0
    rule = replace(base, name="exact-paper-units", step_cost=lambda s, _N: (
        (half / base.sigma_hat) ** 2 + (half / s) ** 2))
    return adaptive_gd(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta, rule=rule,
                       white_box=white_box)


def adaptive_gd_sigma_from_exact_norm(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                      rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                                      delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 that sets σ_t = max{‖∇F(w_t)‖/ψ, σ_min} from the *exact* norm (a data-dependent noise scale;
    the charged cost Δ²/(2σ_t²) still matches the noise, so a ledger check passes).  Caught by
    ``test_sigma_from_exact_norm_refuted``: on a replace-one pair whose norms differ, the first gradient release
    has different variances, and its exact Rényi divergence is infinite at finite α > ρ-zCDP's bound."""
    n, d = _n_d(grad, w0)
    base = exact_rule(n, d, rho, beta, L0, L1)
    psi, s_min = base.psi, base.sigma_min
    rule = replace(base, name="exact-sigma-from-exact-norm", step_sigma=lambda _N, exact: max(exact / psi, s_min))
    return adaptive_gd(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta, rule=rule,
                       white_box=white_box)


def adaptive_gd_noise_over_1e6(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                               rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                               delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 with both noises (σ̂ of the norm query, σ_t of the gradient) divided by 10⁶, each step charged
    what the correct noise costs (σ_t computed from N_t as in line 4, then divided): the filter's schedule is the
    correct one and the claim unchanged, but the release is almost deterministic.  Caught by the black-box curve
    audit of w_{T+1} (``test_curve_audit_refutes_noise_over_1e6``)."""
    n, d = _n_d(grad, w0)
    base = exact_rule(n, d, rho, beta, L0, L1)
    rule = replace(base, name="exact-noise-over-1e6", sigma_hat=base.sigma_hat / 1e6,
                   step_sigma=lambda N, exact: base.step_sigma(N, exact) / 1e6,
                   step_cost=lambda s, N: base.step_cost(s * 1e6, N))
    return adaptive_gd(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta, rule=rule,
                       white_box=white_box)


def adaptive_gd_em_temperature_without_2(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                         rng: np.random.Generator, calibration: str = "exact",
                                         rho_em: float | None = None, clip: bool = True,
                                         delta: float = 1e-6, white_box: bool = False) -> Release:
    """Theorem 5 with P(t) ∝ exp(−ε‖∇F(w_t)‖/Δ) (the factor 2 of the exponential mechanism dropped): the
    selection is 2ε-DP, its bounded range 2ε, i.e. 4× the claimed ε²/8; its release reports the correct ε.
    Caught by the measured selection check (``test_em_measured_selection_refutes_temperature_without_2``: the
    selection frequency on a fixed score vector against Theorem 5's temperature recomputed from public inputs,
    exact binomial test)."""
    out = adaptive_gd_em(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, calibration=calibration,
                         rho_em=rho_em, clip=clip, delta=delta, white_box=white_box)
    n = out.claim.assumptions["n"]
    eps = out.parameters["epsilon_em"]
    t_star = em_select(out.diagnostics["exact_norms"], 2.0 * eps, replace_one_sensitivity(L0, n), rng)
    release = Release(output=out.trajectory[t_star], claim=out.claim, gradient_evaluations=out.gradient_evaluations,
                      parameters=dict(out.parameters), algorithm=out.algorithm + " [mutant]",
                      trajectory=out.trajectory, diagnostics={**out.diagnostics, "t_star": t_star},
                      nonprivate_internals=dict(out.nonprivate_internals))
    release.white_box = out.white_box
    return release


#: Planted bug (the generic σ/√2 bug, ``dpsco.verification.mutants.noise_scale.under_noised``): Algorithm 3
#: reporting σ̂ and σ_t and drawing both noises at 1/√2 of them.  Caught by the measured-noise check of the
#: replayed transcript (``test_adaptive_measured_noise_refutes_sigma_over_sqrt2``).
adaptive_gd_draws_sigma_over_sqrt2 = under_noised(adaptive_gd)

#: Planted bug: the Theorem 5 variant with Algorithm 3's noises at 1/√2 of the reported σ's (``under_noised``;
#: the exponential mechanism's Gumbel draws are untouched).  Caught by the same measured-noise check.
adaptive_gd_em_draws_sigma_over_sqrt2 = under_noised(adaptive_gd_em)
