"""Planted bugs in Asi, Liu & Tian (2024)'s known-Lipschitz reduction (Algorithm 4 with A_Lip) and its
one-pass DP-SGD for GLMs (Algorithm 8).  Each function has the signature of the algorithm it breaks, one
deliberate privacy bug, and the original claim; its docstring names the check that catches it
(``tests/alt24/test_alt24_known_lipschitz.py``, ``tests/alt24/test_alt24_one_pass.py`` and the ``alt24.known_lip`` /
``alt24.onepass_dp_sgd_glm`` suites).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpsco.reference.alt24 import MomentBounds
from dpsco.reference.alt24.algorithms_known_lipschitz import (a_lip_parameters, known_lip_reduction, phased_noisy_gd,
                                                   truncation_mask)
from dpsco.reference.alt24.model import HeavyTailedLoss, check_records
from dpsco.reference.alt24.algorithms_one_pass import onepass_clipped_dp_sgd, onepass_loop, onepass_clipped_sgd, theorem_4_parameters
from dpsco.reference.alt24.primitives import project_ball
from dpsco.reference.domains import Ball
from dpsco.reference.privacy import Release
from dpsco.reference.validation import check_rng
from dpsco.verification.mutants.alt24.registry import noise_dropped
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["known_lip_phase_slice_off_by_one", "known_lip_reduction_noise_dropped",
           "onepass_clipped_dp_sgd_noise_dropped", "onepass_dp_sgd_last_phase_takes_the_rest", "known_lip_drop_heavy", "known_lip_data_dependent_clip", "known_lip_calibrate_with_c",
           "known_lip_reduction_draws_sigma_over_sqrt2", "known_lip_sensitivity_c_over_n",
           "onepass_clipped_dp_sgd_draws_sigma_over_sqrt2", "onepass_dp_sgd_half_sigma", "onepass_sgd_two_passes"]


def known_lip_drop_heavy(S: Any, loss: Any, domain: Ball, rho: float, bounds: MomentBounds,
                         rng: np.random.Generator, *, C: float | None = None, mu: float = 0.0, x_bar: Any = None,
                         x0: Any = None, delta: float = 1e-6) -> Release:
    """Algorithm 4 that **drops** the records with L̄_s > C instead of replacing them by the dummy (so n
    changes: D^C and D'^C are no longer neighbours of one size, and A_Lip's phase structure and noise depend on
    how many records were dropped).  Caught by the black-box audit on the pair (one kept record, one zero
    record) vs (one heavy record, one zero record): with n = 2 the dropped dataset has n' = 1, no phase runs
    and the output is x_0 exactly, a point mass the correct algorithm never produces (ε = ∞)."""
    S = np.asarray(S, dtype=np.float64)
    ref = known_lip_reduction(S, loss, domain, rho, bounds, rng=np.random.default_rng(0), C=C, mu=mu,
                              x_bar=x_bar, x0=x0, delta=delta)                 # parameters and claim only
    keep = truncation_mask(S, loss, ref.parameters["C"], domain.radius)
    Sk = S[keep]
    d = ref.output.shape[0]
    start = np.zeros(d) if x0 is None else np.asarray(x0, dtype=np.float64)
    if Sk.shape[0] < 2:
        out = start.copy()
    else:
        par = a_lip_parameters(Sk.shape[0], d, rho, ref.parameters["L_A"], bounds.G_2, domain.diameter)
        out, _, _ = phased_noisy_gd(lambda x, a, b: (loss.grads(x, Sk[a:b]), b - a, 0), par, d, domain.radius,
                                    rng, start, clip_norm=ref.parameters["L_A"])
    return Release(output=out, claim=ref.claim, gradient_evaluations=0, parameters=ref.parameters,
                   algorithm="MUTANT drop-heavy " + ref.algorithm)


def known_lip_data_dependent_clip(S: Any, loss: Any, domain: Ball, rho: float, bounds: MomentBounds,
                                  rng: np.random.Generator, *, C: float | None = None, mu: float = 0.0,
                                  x_bar: Any = None, x0: Any = None, delta: float = 1e-6) -> Release:
    """Algorithm 4 with a **data-dependent** threshold C = max_s L̄_s (nothing is replaced and the noise scale
    follows the largest record).  Caught by the black-box audit on the pair (all records small) vs (one record
    with a huge L̄): the noise standard deviation, and so ‖output − x_0‖, differs by orders of magnitude."""
    S = np.asarray(S, dtype=np.float64)
    Lbar = np.asarray(loss.lipschitz_bound(S, domain.radius), dtype=np.float64)
    return known_lip_reduction(S, loss, domain, rho, bounds, rng, C=float(max(Lbar.max(), 1e-12)), mu=mu,
                               x_bar=x_bar, x0=x0, delta=delta)


def known_lip_calibrate_with_c(S: Any, loss: Any, domain: Ball, rho: float, bounds: MomentBounds,
                               rng: np.random.Generator, *, C: float | None = None, mu: float = 0.0,
                               x_bar: Any = None, x0: Any = None, delta: float = 1e-6) -> Release:
    """Algorithm 4 with μ > 0 whose A_Lip noise is calibrated with C instead of L_A = max(C, μD) while the
    gradients are clipped at L_A (so the dummies (μ/2)‖x − x̄‖², μD-Lipschitz, pass unclipped): the printed
    (13)/text inconsistency taken at face value.  Checked by the exact worst-pair computation of
    ``tests/alt24/test_alt24_known_lipschitz.py`` (a kept record against a dummy): whether it is a violation depends
    on how far a kept record's gradient can be from the dummy's, see the test."""
    S = np.asarray(S, dtype=np.float64)
    ref = known_lip_reduction(S, loss, domain, rho, bounds, rng=np.random.default_rng(0), C=C, mu=mu,
                              x_bar=x_bar, x0=x0, delta=delta)
    p = ref.parameters
    d = ref.output.shape[0]
    keep = truncation_mask(S, loss, p["C"], domain.radius)
    xb = np.zeros(d) if x_bar is None else np.asarray(x_bar, dtype=np.float64)
    par = a_lip_parameters(S.shape[0], d, rho, p["C"], bounds.G_2, domain.diameter)   # the bug: L = C

    def block(x: np.ndarray, a: int, b: int) -> tuple[np.ndarray, int, int]:
        g = np.broadcast_to(p["mu"] * (x - xb), (b - a, d)).copy()
        idx = np.flatnonzero(keep[a:b])
        if idx.size:
            g[idx] = loss.grads(x, S[a:b][idx])
        return g, int(idx.size), int(b - a - idx.size)

    start = np.zeros(d) if x0 is None else np.asarray(x0, dtype=np.float64)
    out, real, _ = phased_noisy_gd(block, par, d, domain.radius, rng, start, clip_norm=p["L_A"])
    return Release(output=out, claim=ref.claim, gradient_evaluations=real, parameters=p,
                   algorithm="MUTANT calibrate-with-C " + ref.algorithm)


def known_lip_sensitivity_c_over_n(S: Any, loss: Any, domain: Ball, rho: float, bounds: MomentBounds,
                                   rng: np.random.Generator, *, C: float | None = None, mu: float = 0.0,
                                   x_bar: Any = None, x0: Any = None, delta: float = 1e-6) -> Release:
    """Algorithm 4 whose A_Lip noise uses the add/remove sensitivity L_A/n_i of the clipped mean instead of the
    replace-one 2L_A/n_i (σ_i halved), with the original replace-one ρ-zCDP claim.  Caught by the exact
    worst-pair check (linear loss, kept records ±C e₁ first in phase 1): μ of the Gaussian output ≈ 2× the
    correct one, above the claimed √(2ρ)."""
    S = np.asarray(S, dtype=np.float64)
    ref = known_lip_reduction(S, loss, domain, rho, bounds, rng=np.random.default_rng(0), C=C, mu=mu,
                              x_bar=x_bar, x0=x0, delta=delta)
    p = ref.parameters
    d = ref.output.shape[0]
    keep = truncation_mask(S, loss, p["C"], domain.radius)
    xb = np.zeros(d) if x_bar is None else np.asarray(x_bar, dtype=np.float64)
    par = a_lip_parameters(S.shape[0], d, rho, p["L_A"] / 2.0, bounds.G_2, domain.diameter)  # the bug: L/2
    par["phases"] = [dict(ph, sigma_i=q["sigma_i"]) for ph, q in
                     zip(p["a_lip"]["phases"], par["phases"])]            # same steps, half the noise

    def block(x: np.ndarray, a: int, b: int) -> tuple[np.ndarray, int, int]:
        g = np.broadcast_to(p["mu"] * (x - xb), (b - a, d)).copy()
        idx = np.flatnonzero(keep[a:b])
        if idx.size:
            g[idx] = loss.grads(x, S[a:b][idx])
        return g, int(idx.size), int(b - a - idx.size)

    start = np.zeros(d) if x0 is None else np.asarray(x0, dtype=np.float64)
    out, real, _ = phased_noisy_gd(block, par, d, domain.radius, rng, start, clip_norm=p["L_A"])
    return Release(output=out, claim=ref.claim, gradient_evaluations=real, parameters=p,
                   algorithm="MUTANT sensitivity-C/n " + ref.algorithm)


def onepass_dp_sgd_half_sigma(S: Any, loss: Any, domain: Ball, x0: Any, rho: float, bounds: MomentBounds,
                              rng: np.random.Generator, *, beta: float | None = None, delta: float = 1e-6,
                              project: bool = True) -> Release:
    """Algorithm 8 with σ_i/2 (the sensitivity of one clipped step, ηC, taken for the phase average's 2η_iC_i)
    and the original ρ/4-zCDP claim.  Caught by the exact worst-pair check (linear GLM, differing record first
    in phase 1, clipped gradients ±C_1e₁): the Gaussian output's μ = 2η_1C_1(1 − 1/n_1)/√(Σσ_i²/4) ≈ 1.97√(ρ/2)
    exceeds the claimed √(ρ/2)."""
    ref = onepass_clipped_dp_sgd(S, loss, domain, x0, rho, bounds, np.random.default_rng(0), beta=beta,
                                 delta=delta, project=project)      # checks and claim of the correct algorithm
    S = np.asarray(S, dtype=np.float64)
    par = theorem_4_parameters(S.shape[0], ref.output.shape[0], rho, bounds, domain.diameter)
    R = domain.radius
    x = np.asarray(x0, dtype=np.float64).copy()
    for ph in par["phases"]:
        nx = float(np.linalg.norm(x))
        start = x * (R / nx) if (project and nx > R) else x
        xbar = onepass_clipped_sgd(S[ph["start"]:ph["stop"]], loss, ph["C_i"], ph["eta_i"], domain,
                                   start).output
        x = xbar + 0.5 * ph["sigma_i"] * rng.standard_normal(xbar.shape[0])       # the bug: σ_i/2
    nx = float(np.linalg.norm(x))
    out = x * (R / nx) if (project and nx > R) else x
    return Release(output=out, claim=ref.claim, gradient_evaluations=ref.gradient_evaluations,
                   parameters=ref.parameters, algorithm="MUTANT half-sigma " + ref.algorithm)



def onepass_sgd_two_passes(S: Any, loss: Any, C: float, eta: float, domain: Ball, x0: Any, *,
                           clip_thresholds: Any = None) -> Release:
    """Algorithm 5 that makes **two passes** over its T records (each record used twice, 2T gradients), the
    reuse that breaks Lemma 8's independence of s_{t+1} from x_t (and, inside Algorithm 8, the disjointness of
    the phases).  Not private to begin with (Algorithm 5 claims nothing); caught by the exact count check of
    the ``alt24.onepass_sgd`` suite (gradient evaluations = T)."""
    S = np.asarray(S, dtype=np.float64)
    rel = onepass_clipped_sgd(np.concatenate([S, S]), loss, C, eta, domain, x0,
                              clip_thresholds=None if clip_thresholds is None else np.concatenate(
                                  [np.asarray(clip_thresholds, dtype=np.float64)] * 2))
    return Release(output=rel.output, claim=rel.claim, gradient_evaluations=rel.gradient_evaluations,
                   parameters=rel.parameters, algorithm="MUTANT two-passes " + rel.algorithm)


# ---- "reports σ, draws σ/√2" (``noise_scale.under_noised``) --------------------------------------------------
# Each reports the correct σ and claim and adds σ/√2; caught by the measured-noise check of the entry's harness
# (``dpsco.verification.papers.alt24.harness_phased``: every step's / phase's noise replayed, against the
# theorem's σ), tests/alt24/test_alt24_measured_noise.py, with its exact miss probability.

#: Algorithm 4 (A_Lip's steps) drawing σ_i/√2 (``alt24.known_lip``)
known_lip_reduction_draws_sigma_over_sqrt2 = under_noised(known_lip_reduction)
#: Algorithm 8 (every phase output) drawing σ_i/√2 (``alt24.onepass_dp_sgd_glm``)
onepass_clipped_dp_sgd_draws_sigma_over_sqrt2 = under_noised(onepass_clipped_dp_sgd)


# ---- the check registry's copies (``mutants.alt24.catches``, ``tests/alt24/test_alt24_catches.py``) -----------------

#: Algorithm 4 (A_Lip) without its Gaussian noise (``alt24.known_lip``; its curve audits)
known_lip_reduction_noise_dropped = noise_dropped(known_lip_reduction)
#: Algorithm 8 without its Gaussian noise (``alt24.onepass_dp_sgd_glm``; its black-box curve audit)
onepass_clipped_dp_sgd_noise_dropped = noise_dropped(onepass_clipped_dp_sgd)


def known_lip_phase_slice_off_by_one(S: Any, loss: HeavyTailedLoss, domain: Any, rho: float, bounds: MomentBounds,
                                     rng: np.random.Generator, *, C: float | None = None, mu: float = 0.0,
                                     x_bar: Any = None, x0: Any = None, delta: float = 1e-6) -> Release:
    """Algorithm 4 + A_Lip whose phase blocks are sliced ``S[start:stop − 1]`` (an off-by-one slice end): the last
    record of every phase is never used while the mean still divides by n_i.  BUG: real + dummy gradient
    evaluations Σ (n_i − 1)·T_i where A_Lip's schedule (published) is Σ n_i·T_i.  Caught by the suite's exact
    count ``known_lip_count`` (``alt24_known_lip.known_lip_bounds``)."""
    ref = known_lip_reduction(S, loss, domain, rho, bounds, np.random.default_rng(0), C=C, mu=mu, x_bar=x_bar,
                                 x0=x0, delta=delta)                   # input checks, parameters and claim only
    S_, d = check_records(S, loss)
    R = domain.radius
    xb = np.zeros(d) if x_bar is None else np.asarray(x_bar, dtype=np.float64)
    start = np.zeros(d) if x0 is None else np.asarray(x0, dtype=np.float64)
    par = ref.parameters
    keep = truncation_mask(S_, loss, par["C"], R)
    kept_rows = np.flatnonzero(keep)

    def block(xc: np.ndarray, a: int, b: int) -> tuple[np.ndarray, int, int]:
        b = b - 1                                                       # BUG: S[start:stop − 1]
        g = np.zeros((b - a, d))
        if mu > 0.0:
            g[:] = mu * (xc - xb)
        sel = kept_rows[(kept_rows >= a) & (kept_rows < b)]
        if sel.size:
            g[sel - a] = loss.clipped_grads_at(xc[None, :], S_[sel], par["L_A"])[0]
        return g, int(sel.size), int(b - a - sel.size)

    out, real, dummy = phased_noisy_gd(block, par["a_lip"], d, R, check_rng(rng), start, clip_norm=par["L_A"])
    return Release(output=out, claim=ref.claim, gradient_evaluations=ref.gradient_evaluations, parameters=par,
                   algorithm="MUTANT: Algorithm 4 with phase slices off by one",
                   diagnostics={"replaced": ref.diagnostics["replaced"], "dummy_gradient_evaluations": dummy},
                   nonprivate_internals={"gradient_evaluations_performed": real})


def onepass_dp_sgd_last_phase_takes_the_rest(S: Any, loss: HeavyTailedLoss, domain: Any, x0: Any, rho: float,
                                             bounds: MomentBounds, rng: np.random.Generator, *,
                                             beta: float | None = None, delta: float = 1e-6,
                                             project: bool = True) -> Release:
    """Algorithm 8 whose last phase runs to the end of the data (``stop = n``: the n − (2^I − 1) leftover records
    appended to phase I) with phase I's η_I, C_I and σ_I, publishing the count it makes.  BUG: n gradient
    evaluations where Theorem 4's schedule makes 2^I − 1 (and phase I's average moves by more than 2η_IC_I·n_I/
    (its length), outside the privacy step's calibration).  Caught by the suite's exact count
    ``onepass_dp_count`` (``alt24_known_lip.onepass_dp_bounds``: n = 1024, 2^I − 1 = 1023)."""
    ref = onepass_clipped_dp_sgd(S, loss, domain, x0, rho, bounds, np.random.default_rng(0), beta=beta,
                                    delta=delta, project=project)     # input checks, parameters and claim only
    S_ = np.asarray(S, dtype=np.float64)
    d = ref.output.shape[0]
    R = domain.radius
    phases = [dict(ph) for ph in ref.parameters["phases"]]
    phases[-1]["stop"] = S_.shape[0]                                    # BUG: the leftover records join phase I
    x = np.asarray(x0, dtype=np.float64).copy()
    rng = check_rng(rng)
    for ph in phases:
        start = project_ball(x, np.zeros(d), R) if project else x
        xbar, _, _ = onepass_loop(S_[ph["start"]:ph["stop"]], loss, ph["C_i"], ph["eta_i"], R, start, None)
        x = xbar + ph["sigma_i"] * rng.standard_normal(d)
    out = project_ball(x, np.zeros(d), R) if project else x
    return Release(output=out, claim=ref.claim, gradient_evaluations=sum(p["stop"] - p["start"] for p in phases),
                   parameters={**ref.parameters, "phases": phases},
                   algorithm="MUTANT: Algorithm 8 whose last phase takes the leftover records")
