"""Planted bugs in Menart et al. (2023)'s Algorithm 3 (adaptive noisy GD under a fully adaptive filter) and its
Theorem 5 variant (exponential-mechanism selection).  Each function has the signature of the algorithm it
breaks, one deliberate privacy bug, and the original claim; its docstring names the check that catches it
(``tests/muabg23/test_muabg23_adaptive.py`` and the ``muabg23.adaptive_gd`` / ``muabg23.adaptive_gd_em`` suites).

The reference keeps no hook for them (independent review D3: ``adaptive_gd`` lost its ``rule=`` keyword, and
line 4's σ_t no longer receives the exact gradient norm).  The four Algorithm 3 bugs run :func:`_planted_loop`,
a **copy** of the loop of ``dpsco.reference.muabg23.algorithms_adaptive.adaptive_gd_run`` whose σ̂, σ_t and charged cost
are the bug's; around it they reuse the public building blocks of the reference: ``exact_rule`` (the public
parameters), ``check_rule_representable``, ``PrivacyFilter``, ``clipped_mean_gradient`` and
``adaptive_gd_release`` (the correct algorithm's claim and published fields for the transcript).

**Never use these for anything but testing auditors.**
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

import dpsco.reference.muabg23.algorithms_adaptive as _adaptive
from dpsco.reference.clipping import row_norms
from dpsco.reference.muabg23.algorithms_adaptive import (AdaptiveRule, PrivacyFilter, adaptive_gd, adaptive_gd_em,
                                              adaptive_gd_release, check_rule_representable, clipped_mean_gradient,
                                              em_select, exact_rule)
from dpsco.reference.muabg23.ledger import gaussian_zcdp, replace_one_sensitivity
from dpsco.verification.mutants.noise_scale import ScaledNoiseGenerator
from dpsco.reference.privacy import Release
from dpsco.reference.validation import check_bool, check_positive, check_rng
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["adaptive_gd_cost_from_noisy_norm", "adaptive_gd_paper_units", "adaptive_gd_sigma_from_exact_norm",
           "adaptive_gd_noise_over_1e6", "adaptive_gd_em_temperature_without_2", "adaptive_gd_draws_sigma_over_sqrt2",
           "adaptive_gd_em_draws_sigma_over_sqrt2", "adaptive_gd_printed_claiming_rho", "adaptive_gd_noise_free",
           "adaptive_gd_em_noise_over_1e6", "em_log_probabilities_without_2"]

#: how many times the filter's own bound ⌊n√ρ/2⌋ + 1 a planted loop may run (a bug that under-charges runs
#: longer than the correct filter: half the charge runs at most twice as long, plus one step)
_STEP_SLACK = 4


def _planted_loop(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float, rng: np.random.Generator,
                  clip: bool, delta: float, white_box: bool, sigma_hat: float | None = None,
                  step_sigma: Callable[[AdaptiveRule, float, float], float] | None = None,
                  step_cost: Callable[[AdaptiveRule, float, float], float] | None = None) -> Release:
    """Algorithm 3 (exact calibration) with the bug's ``sigma_hat`` (the norm query's noise), ``step_sigma(rule,
    N_t, exact_norm)`` (line 4's σ_t; may read the exact norm) and ``step_cost(rule, σ_t, N_t)`` (line 6's charge),
    each defaulting to the correct one; the loop is a copy of ``adaptive_gd_run`` (lines 1-7), run at most
    ``_STEP_SLACK``·⌊n√ρ/2⌋ + 1 steps.  The release is ``adaptive_gd_release``'s: the correct algorithm's claim
    and published fields on the planted transcript."""
    clip, white_box = check_bool(clip, "clip"), check_bool(white_box, "white_box")
    check_rng(rng)
    w = np.asarray(w0, dtype=np.float64)
    n, d = int(np.asarray(grad(w)).shape[0]), int(w.size)
    rho, L0 = check_positive(rho, "rho"), check_positive(L0, "L0")
    rule = exact_rule(n, d, rho, beta, L0, L1)
    check_rule_representable(rule, n, d, L0, w)
    s_hat = rule.sigma_hat if sigma_hat is None else sigma_hat
    filt = PrivacyFilter(budget=rule.claim_rho)
    iterates, Ns, sigmas, exact_costs, norms, noisy = [w.copy()], [], [], [], [], []
    evaluations, cap = 0, _STEP_SLACK * rule.max_steps + 1
    while filt.spent <= rule.guard and len(Ns) < cap:                    # line 2
        g, n_eval = clipped_mean_gradient(grad, w, L0)
        evaluations += n_eval
        exact_norm = float(row_norms(g))
        N = exact_norm + s_hat * float(rng.standard_normal())            # line 3
        sigma = rule.step_sigma(N) if step_sigma is None else step_sigma(rule, N, exact_norm)   # line 4
        filt.admit(rule.step_cost(sigma) if step_cost is None else step_cost(rule, sigma, N))  # line 6
        y = g + sigma * rng.standard_normal(d)
        w = w - rule.eta * y                                              # line 5
        iterates.append(w.copy())
        noisy.append(y)
        Ns.append(N), sigmas.append(sigma), norms.append(exact_norm)
        exact_costs.append(gaussian_zcdp(rule.true_sensitivity, s_hat) + gaussian_zcdp(rule.true_sensitivity, sigma))
    run = {"iterates": np.array(iterates), "N": np.array(Ns), "sigma": np.array(sigmas), "sigma_hat": float(s_hat),
           "charged": np.array(filt.costs), "exact_costs": np.array(exact_costs), "exact_norms": np.array(norms),
           "noisy_gradients": np.array(noisy).reshape(len(noisy), d), "gradient_evaluations": evaluations}
    release = adaptive_gd_release(run, rule, n=n, rho=rho, beta=beta, L0=L0, clip=clip, delta=delta,
                                  white_box=white_box)
    release.algorithm += " [planted bug]"
    return release


def adaptive_gd_cost_from_noisy_norm(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                     rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                                     delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 whose gradient cost is read from the noisy norm, min{Δ²ψ²/(2N_t²), c_max} (the printed line 6
    form), while σ_t = max{N_t/ψ, σ_min}: a negative N_t releases at the floor σ_min but is charged little, so
    the filter under-counts and the loop continues.  Caught by ``test_cost_from_noisy_norm_overshoots`` (the
    exact replace-one cost Σ Δ²/(2σ²) of the transcript exceeds the claim's ρ, started at the minimiser)."""
    def cost(rule: AdaptiveRule, _sigma: float, N: float) -> float:
        c_max = rule.guard - rule.norm_cost
        return rule.norm_cost + min(rule.true_sensitivity ** 2 * rule.psi ** 2 / (2.0 * max(N * N, 1e-300)), c_max)
    return _planted_loop(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta,
                         white_box=white_box, step_cost=cost)


def adaptive_gd_paper_units(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                            rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                            delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 with the exact noise scales but the paper's accounting (L_0/(nσ))² (sensitivity L_0/n, App.
    D.2): every charged cost is half the replace-one cost, so the run spends ≈ 2× its claim ρ.  Caught by
    ``test_paper_units_undercount_twice`` (exact cost of the transcript > ρ on every run) and by the white-box
    audit of the transcript (``tests/muabg23/test_muabg23_adaptive_white_box.py::test_white_box_refutes_paper_units``)."""
    def cost(rule: AdaptiveRule, sigma: float, _N: float) -> float:
        half = rule.true_sensitivity / 2.0                     # the paper's "sensitivity L_0/n", Δ²/σ² convention
        return (half / rule.sigma_hat) ** 2 + (half / sigma) ** 2
    return _planted_loop(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta,
                         white_box=white_box, step_cost=cost)


def adaptive_gd_sigma_from_exact_norm(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                      rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                                      delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 that sets σ_t = max{‖∇F(w_t)‖/ψ, σ_min} from the *exact* norm (a data-dependent noise scale;
    the charged cost Δ²/(2σ_t²) still matches the noise, so a ledger check passes).  Caught by
    ``test_sigma_from_exact_norm_refuted``: on a replace-one pair whose norms differ, the first gradient release
    has different variances, and its exact Rényi divergence is infinite at finite α > ρ-zCDP's bound."""
    return _planted_loop(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta,
                         white_box=white_box, step_sigma=lambda rule, _N, exact: rule.step_sigma(exact))


def adaptive_gd_noise_over_1e6(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                               rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                               delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 with both noises (σ̂ of the norm query, σ_t of the gradient) divided by 10⁶, each step charged
    what the correct noise costs (σ_t computed from N_t as in line 4, then divided): the filter's schedule is the
    correct one and the claim unchanged, but the release is almost deterministic.  Caught by the black-box curve
    audit of w_{T+1} (``test_curve_audit_refutes_noise_over_1e6``)."""
    w = np.asarray(w0, dtype=np.float64)
    rule = exact_rule(int(np.asarray(grad(w)).shape[0]), int(w.size), rho, beta, L0, L1)
    return _planted_loop(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, clip=clip, delta=delta,
                         white_box=white_box, sigma_hat=rule.sigma_hat / 1e6,
                         step_sigma=lambda r, N, _exact: r.step_sigma(N) / 1e6,
                         step_cost=lambda r, s, _N: r.step_cost(s * 1e6))


def em_log_probabilities_without_2(norms: Any, epsilon: float, sensitivity: float) -> np.ndarray:
    """Planted bug of ``dpsco.reference.muabg23.algorithms_adaptive.em_log_probabilities`` (Theorem 5's exponential mechanism):
    log P(t) for P(t) ∝ exp(−ε‖∇F(w_t)‖/Δ), the factor 2 of the exponential mechanism's ε/(2Δ) dropped — the
    scores of ``em_log_probabilities(norms, 2ε, Δ)``, bit for bit (2ε·x/2 = ε·x in floating point), so its
    log-ratio range on the extremal score pair is 2ε (4× the claimed ε²/8-zCDP).  Same arguments and return.
    :func:`adaptive_gd_em_temperature_without_2` selects with it.  Refuted by the suite's exact bounded-range check
    (``muabg23_adaptive.em_bounded_range_check``; ``tests/muabg23/test_muabg23_catches.py``)."""
    u = np.asarray(norms, dtype=np.float64)
    if u.ndim != 1 or u.size == 0 or not np.all(np.isfinite(u)):
        raise ValueError(f"norms must be a finite non-empty vector, got shape {u.shape}")
    epsilon, sensitivity = check_positive(epsilon, "epsilon"), check_positive(sensitivity, "sensitivity")
    s = -(2.0 * epsilon) * (u / sensitivity) / 2.0      # BUG: the temperature ε/Δ instead of ε/(2Δ)
    return s - (s.max() + math.log(np.exp(s - s.max()).sum()))


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
    lp = em_log_probabilities_without_2(out.diagnostics["exact_norms"], eps, replace_one_sensitivity(L0, n))
    t_star = int(np.argmax(lp + rng.gumbel(size=lp.size)))       # em_select's Gumbel-max, on the bug's scores
    release = Release(output=out.trajectory[t_star], claim=out.claim, gradient_evaluations=out.gradient_evaluations,
                      parameters=dict(out.parameters), algorithm=out.algorithm + " [mutant]",
                      trajectory=out.trajectory, diagnostics={**out.diagnostics, "t_star": t_star},
                      nonprivate_internals=dict(out.nonprivate_internals))
    release.white_box = out.white_box
    return release


def adaptive_gd_printed_claiming_rho(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                     rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                                     delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 whose printed calibration (``calibration="printed"``: the paper's σ̂, ψ, σ_min and its
    (L_0/(nσ))² charges, App. D.2) claims Theorem 3's printed ρ instead of its exact replace-one value
    2ρ + 2√ρ/n — the paper's own accounting taken at its word.  The exact calibration is the reference's.  True:
    the printed filter charges half the replace-one cost and stops only once its charges exceed its guard ρ/2, so
    every run that the guard stops spends more than ρ (on the suite's worst pair 1.002ρ; up to 2ρ + 2√ρ/n).  Refuted by the suite's check of the
    printed calibration (exact cost of the transcript / claim, ``adaptive_printed_total``;
    ``tests/muabg23/test_muabg23_catches.py::test_printed_total_refutes_printed_noise_claiming_rho``)."""
    r = adaptive_gd(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, calibration=calibration, clip=clip,
                    delta=delta, white_box=white_box)
    if r.parameters["calibration"] != "printed":
        return r
    claim = _adaptive.adaptive_claim(float(rho), float(delta), r.claim.source + " [mutant: claims the printed ρ]",
                             dict(r.claim.assumptions))                  # BUG: ρ, not 2ρ + 2√ρ/n
    r.claim = claim
    r.algorithm += " [mutant: printed noise claiming ρ]"
    return r


def adaptive_gd_noise_free(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                           rng: np.random.Generator, calibration: str = "exact", clip: bool = True,
                           delta: float = 1e-6, white_box: bool = False) -> Release:
    """Algorithm 3 with its noise dropped (both the norm query's and the gradient's: every Gaussian draw of the
    run multiplied by 0, ``muabg23_lower_bound.ScaledNoiseGenerator`` at scale 0 on the caller's bit generator),
    claiming Theorem 3's ρ: not private at all (ε = ∞).  Refuted by the suite's Theorem 8 lower-bound check, on
    whose pair its deterministic output is the minimiser (excess 0 < ¼r^κ;
    ``tests/muabg23/test_muabg23_catches.py::test_theorem8_refutes_noise_free_adaptive_gd``)."""
    check_rng(rng)
    silent = ScaledNoiseGenerator(rng.bit_generator, 0.0)                 # BUG: no noise
    r = adaptive_gd(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=silent, calibration=calibration, clip=clip,
                    delta=delta, white_box=white_box)
    r.algorithm += " [mutant: noise dropped]"
    return r


def adaptive_gd_em_noise_over_1e6(grad: Any, w0: Any, *, rho: float, beta: float, L0: float, L1: float,
                                  rng: np.random.Generator, calibration: str = "exact", rho_em: float | None = None,
                                  clip: bool = True, delta: float = 1e-6, white_box: bool = False) -> Release:
    """The Theorem 5 variant whose Algorithm 3 part is :func:`adaptive_gd_noise_over_1e6` (both Gaussian noises
    divided by 10⁶, each step charged what the correct noise costs), then the correct exponential mechanism
    (``em_select`` at Theorem 5's ε on the exact clipped norms); the correct variant's claim ρ + ρ_EM.  Not
    private: on the audit pair the trajectories are two deterministic grids.  Refuted by the suite's black-box
    curve audit of w_{t*} (``tests/muabg23/test_muabg23_catches.py::test_em_curve_audit_refutes_noise_over_1e6``)."""
    base = adaptive_gd_noise_over_1e6(grad, w0, rho=rho, beta=beta, L0=L0, L1=L1, rng=rng, calibration=calibration,
                                      clip=clip, delta=delta, white_box=white_box)
    rho_em = rho / 2.0 if rho_em is None else check_positive(rho_em, "rho_em")
    eps = _adaptive.em_epsilon_bounded_range(rho_em)
    n = int(base.claim.assumptions["n"])
    t_star = em_select(base.diagnostics["exact_norms"], eps, replace_one_sensitivity(L0, n), rng)
    claim = _adaptive.adaptive_claim(base.claim.rho + rho_em, float(delta), "Menart et al. (2023), arXiv:2311.13447 v2, "
                             "Theorem 5 [mutant: Algorithm 3's noise / 10⁶]",
                             {**base.claim.assumptions, "rho_em": rho_em}, gaussian=False)
    release = Release(output=base.trajectory[t_star], claim=claim, gradient_evaluations=base.gradient_evaluations,
                      parameters={**base.parameters, "epsilon_em": eps, "rho_em": rho_em},
                      algorithm=base.algorithm + " + exponential mechanism [mutant]", trajectory=base.trajectory,
                      diagnostics={**base.diagnostics, "t_star": t_star},
                      nonprivate_internals=dict(base.nonprivate_internals))
    release.white_box = base.white_box
    return release


#: Planted bug (the generic σ/√2 bug, ``dpsco.verification.mutants.noise_scale.under_noised``): Algorithm 3
#: reporting σ̂ and σ_t and drawing both noises at 1/√2 of them.  Caught by the measured-noise check of the
#: replayed transcript (``test_adaptive_measured_noise_refutes_sigma_over_sqrt2``).
adaptive_gd_draws_sigma_over_sqrt2 = under_noised(adaptive_gd)

#: Planted bug: the Theorem 5 variant with Algorithm 3's noises at 1/√2 of the reported σ's (``under_noised``;
#: the exponential mechanism's Gumbel draws are untouched).  Caught by the same measured-noise check.
adaptive_gd_em_draws_sigma_over_sqrt2 = under_noised(adaptive_gd_em)
