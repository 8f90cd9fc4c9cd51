"""Planted bugs in Algorithm 1 (Clipped-DP-SGD) of Asi, Liu & Tian (2024) and its Corollary 1 calibration.

Each function is a copy of the correct algorithm (``dpsco.reference.alt24.algorithms_clipped_sgd``) with ONE deliberate
privacy bug and the correct algorithm's claim (ρ-zCDP, replace-one): the claim is now false.  Each docstring
names the bug and the check that refutes it (``tests/alt24/test_alt24_clipped_sgd.py``; the campaign's suite in
``dpsco.verification.papers.alt24.localization``; the exact arguments: docs/derivations.md#exact-privacy-of-clipped-dp-sgds-noisy-gradients).
Inputs are checked as the correct algorithm checks them.

**Never use these for anything but testing auditors.**
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpsco.reference.alt24 import algorithms_clipped_sgd as cs
from dpsco.reference.alt24 import algorithms_localization as loc
from dpsco.reference.alt24.model import HeavyTailedLoss, MomentBounds, check_records
from dpsco.reference.alt24.primitives import aggregate, clip
from dpsco.reference.privacy import PrivacyClaim, Release
from dpsco.reference.validation import check_iterations, check_rng
from dpsco.reference.white_box import NoisyGradientTrace
from dpsco.verification.mutants.alt24.registry import ScaledGenerator, noise_dropped
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["aggregate_erm_draws_sigma_over_sqrt2", "aggregate_erm_sigma_from_all_records", "aggregate_erm_skips_last_block",
           "corollary_1_solver_one_step_too_many", "highprob_sco_skips_last_phase", "ht_sco_noise_dropped",
           "ht_sco_skips_last_phase", "sc_sco_reuses_first_batch", "clipped_dp_sgd_data_dependent_clip",
           "clipped_dp_sgd_draws_sigma_over_sqrt2", "clipped_dp_sgd_noise_clipped",
           "clipped_dp_sgd_regulariser_clipped", "clipped_dp_sgd_sensitivity_c_over_n",
           "clipped_dp_sgd_sigma_from_fewer_steps", "ht_sco_draws_sigma_over_sqrt2", "ht_sco_overlapping_blocks",
           "sc_sco_draws_sigma_over_sqrt2"]


def _checked(S: Any, loss: HeavyTailedLoss, C: float, lam: float, T: int, sigma: float, radius_r: float,
             domain_radius: float, rng: np.random.Generator, delta: float) -> Release:
    check_rng(rng)
    check_iterations(T, "T")
    """The correct algorithm's input checks and claim, from a one-step dry run on the same inputs."""
    return cs.clipped_dp_sgd(np.asarray(S, dtype=np.float64)[:1], loss, C=C, lam=lam, T=1, sigma=sigma,
                             radius_r=radius_r, domain_radius=domain_radius, rng=np.random.default_rng(0),
                             delta=delta)


def _release(S: np.ndarray, loss: HeavyTailedLoss, step_gradient: Callable[[np.ndarray], np.ndarray],
             record_gradient: Callable[..., np.ndarray], *, C_claim: float, lam_prox: float, T: int,
             sigma_drawn: float, sigma_claim: float, radius_r: float, domain_radius: float, rng: np.random.Generator,
             delta: float, white_box: bool, replicates: int | None, name: str,
             noisy_map: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
             lam_eta: float | None = None) -> Release:
    n, d = S.shape[0], loss.dimension(S.shape[1])
    eta = cs.proposition_1_step_sizes(lam_prox if lam_eta is None else lam_eta, T)
    lam_step = lam_prox
    project = cs.two_ball_projector(np.zeros(d), domain_radius, np.zeros(d), radius_r)
    R = 1 if replicates is None else int(replicates)
    rng = check_rng(rng)
    x = np.zeros((R, d))
    acc = np.zeros((R, d))
    its, noisy = [x.copy()], []
    for t in range(T):
        acc += (t + 4.0) * x
        xi = sigma_drawn * rng.standard_normal((R, d)) if sigma_drawn > 0 else np.zeros((R, d))
        g = step_gradient(x)
        v = g + xi if noisy_map is None else noisy_map(g, xi)
        x = project((x - eta[t] * v) / (1.0 + eta[t] * lam_step))
        if white_box:
            its.append(x.copy())
            noisy.append(v)
    out = acc / (T * (T + 7) / 2.0)
    trace = None
    if white_box:
        trace = NoisyGradientTrace(iterates=np.stack(its, axis=1), noisy_gradients=np.stack(noisy, axis=1),
                                   record_gradient=record_gradient, n=n, m=n, T=T, sigma=max(sigma_drawn, 1e-300),
                                   clip_norm=C_claim, eta=float(eta[0]), sampling="full-batch", algorithm=name)
    return Release(output=out[0] if replicates is None else out,
                   claim=cs.clipped_dp_sgd_claim(n, T, C_claim, sigma_claim, delta), gradient_evaluations=n * T,
                   parameters={"n": n, "d": d, "C": C_claim, "T": T, "sigma": sigma_claim, "lam": lam_prox},
                   algorithm=name, replicates=replicates, white_box=trace)


def clipped_dp_sgd_regulariser_clipped(S: Any, loss: HeavyTailedLoss, *, C: float, lam: float, T: int, sigma: float,
                                       radius_r: float, domain_radius: float, rng: np.random.Generator,
                                       delta: float = 1e-6, white_box: bool = False,
                                       replicates: int | None = None) -> Release:
    """Algorithm 1 with the regulariser inside the clip: ĝ_t = (1/n)Σ Π_{C+λr}(∇f_i(x_t) + λx_t) and a plain
    projected step Π_X(x_t − η_t(ĝ_t + ξ_t)) (the threshold raised to C + λr so that the regulariser, of norm
    ≤ λr on B(r), is not clipped away); σ and the claim still for sensitivity 2C/n.

    BUG: the clipped regularised gradients have norm up to C + λr, so the replace-one sensitivity is
    2(C + λr)/n; at x_0 = 0 on the pair ±M e_1 (M ≥ C + λr) the first step's mean shifts by exactly
    2(C + λr)/n.  Refuted exactly (T = 1, coupled runs: ρ_true = (1 + λr/C)²ρ > ρ) in
    ``tests/alt24/test_alt24_clipped_sgd.py::test_mutant_regulariser_clipped_exact`` and by the white-box audit.
    Domain: X = B(0, domain_radius) ∩ B(0, r)."""
    S_, d = check_records(S, loss)
    _checked(S_, loss, C, lam, T, sigma, radius_r, domain_radius, rng, delta)
    C_big = C + lam * radius_r

    def step(Y: np.ndarray) -> np.ndarray:
        return clip(cs.grads_at(loss, Y, S_) + lam * Y[:, None, :], C_big).mean(axis=1)  # BUG: λx inside the clip

    def record(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        W = np.asarray(W, dtype=np.float64)
        return clip(cs.grads_at(loss, W, np.asarray(x, dtype=np.float64)[None, :])[:, 0] + lam * W, C_big)

    rel = _release(S_, loss, step, record, C_claim=C, lam_prox=0.0, lam_eta=lam, T=T, sigma_drawn=sigma, sigma_claim=sigma,
                   radius_r=radius_r, domain_radius=domain_radius, rng=rng, delta=delta, white_box=white_box,
                   replicates=replicates, name="MUTANT: Clipped-DP-SGD with λx inside the clip")
    return rel


def clipped_dp_sgd_noise_clipped(S: Any, loss: HeavyTailedLoss, *, C: float, lam: float, T: int, sigma: float,
                                 radius_r: float, domain_radius: float, rng: np.random.Generator, delta: float = 1e-6,
                                 white_box: bool = False, replicates: int | None = None) -> Release:
    """Algorithm 1 with the clip moved after the noise: v_t = Π_C((1/n)Σ∇f_i(x_t) + ξ_t) (the noisy mean
    clipped, the per-sample gradients not), σ and the claim for sensitivity 2C/n.

    BUG: the unclipped mean has unbounded sensitivity under heavy tails (2M/n for a record ±M e_1); clipping
    after the noise is post-processing of a non-private value.  On the pair D = n zero records, D' = D with
    one record M e_1 (M/n ≫ C) the released v_0 is Π_C(ξ) against ≈ C e_1.  Refuted in
    ``tests/alt24/test_alt24_clipped_sgd.py::test_mutant_noise_clipped`` (exact probability bounds on the event
    {v_0·e_1 > 0.8C}) and by the white-box audit.  Domain: B(0, domain_radius) ∩ B(0, r)."""
    S_, d = check_records(S, loss)
    _checked(S_, loss, C, lam, T, sigma, radius_r, domain_radius, rng, delta)

    def step(Y: np.ndarray) -> np.ndarray:
        return cs.grads_at(loss, Y, S_).mean(axis=1)  # BUG: no per-sample clip

    def record(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        return clip(cs.grads_at(loss, np.asarray(W, dtype=np.float64), np.asarray(x, dtype=np.float64)[None, :])[:, 0], C)

    return _release(S_, loss, step, record, C_claim=C, lam_prox=lam, T=T, sigma_drawn=sigma, sigma_claim=sigma,
                    radius_r=radius_r, domain_radius=domain_radius, rng=rng, delta=delta, white_box=white_box,
                    replicates=replicates, name="MUTANT: Clipped-DP-SGD clipping the noisy mean",
                    noisy_map=lambda g, xi: clip(g + xi, C))  # BUG: clip after the noise


def _corollary_1_mutant(S: Any, loss: HeavyTailedLoss, lam: float, rho: float, moments: MomentBounds,
                        domain_radius: float, rng: np.random.Generator, delta: float, white_box: bool,
                        replicates: int | None, *, sigma_factor: float = 1.0, T_sigma_factor: float = 1.0,
                        data_clip: bool = False, name: str) -> Release:
    S_, d = check_records(S, loss)
    n = S_.shape[0]
    p = cs.corollary_1_parameters(n, d, rho, moments, lam)
    C_run = p.C
    if data_clip:  # BUG (data-dependent C): the largest per-sample gradient norm at x_0 = 0
        C_run = float(np.linalg.norm(cs.grads_at(loss, np.zeros((1, d)), S_)[0], axis=1).max())
    T_sigma = max(1, int(math.floor(p.T * T_sigma_factor)))
    sigma = sigma_factor * math.sqrt(2.0 * C_run * C_run * T_sigma / (n * n * rho))

    def step(Y: np.ndarray) -> np.ndarray:
        return clip(cs.grads_at(loss, Y, S_), C_run).mean(axis=1)

    def record(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
        return clip(cs.grads_at(loss, np.asarray(W, dtype=np.float64), np.asarray(x, dtype=np.float64)[None, :])[:, 0],
                    C_run)

    rel = _release(S_, loss, step, record, C_claim=p.C, lam_prox=lam, T=p.T, sigma_drawn=sigma, sigma_claim=p.sigma,
                   radius_r=domain_radius, domain_radius=domain_radius, rng=rng, delta=delta, white_box=white_box,
                   replicates=replicates, name=name)
    rel.parameters.update({"sigma_drawn_is_secret": True})
    return rel


def clipped_dp_sgd_sensitivity_c_over_n(S: Any, loss: HeavyTailedLoss, *, lam: float, rho: float,
                                        moments: MomentBounds, domain_radius: float, rng: np.random.Generator,
                                        delta: float = 1e-6, white_box: bool = False,
                                        replicates: int | None = None) -> Release:
    """Corollary 1's solver with σ² = C²T/(2n²ρ): the add/remove sensitivity C/n of the clipped mean under the
    replace-one claim (sensitivity 2C/n), i.e. σ halved and ρ_true = 4ρ.

    Refuted by the exact noise check (chi-square lower tail of the drawn noise against the claimed σ²) in
    ``tests/alt24/test_alt24_clipped_sgd.py::test_mutants_noise_scale_refuted`` and by the white-box audit."""
    return _corollary_1_mutant(S, loss, lam, rho, moments, domain_radius, rng, delta, white_box, replicates,
                               sigma_factor=0.5, name="MUTANT: Clipped-DP-SGD with sensitivity C/n")


def clipped_dp_sgd_sigma_from_fewer_steps(S: Any, loss: HeavyTailedLoss, *, lam: float, rho: float,
                                          moments: MomentBounds, domain_radius: float, rng: np.random.Generator,
                                          delta: float = 1e-6, white_box: bool = False,
                                          replicates: int | None = None) -> Release:
    """Corollary 1's solver with σ² = 2C²(T/2)/(n²ρ) while T steps run (σ from a T smaller than the T run):
    ρ_true = 2ρ.  Refuted by the exact noise check in
    ``tests/alt24/test_alt24_clipped_sgd.py::test_mutants_noise_scale_refuted`` and by the white-box audit."""
    return _corollary_1_mutant(S, loss, lam, rho, moments, domain_radius, rng, delta, white_box, replicates,
                               T_sigma_factor=0.5, name="MUTANT: Clipped-DP-SGD with σ from T/2 steps")


def clipped_dp_sgd_data_dependent_clip(S: Any, loss: HeavyTailedLoss, *, lam: float, rho: float,
                                       moments: MomentBounds, domain_radius: float, rng: np.random.Generator,
                                       delta: float = 1e-6, white_box: bool = False,
                                       replicates: int | None = None) -> Release:
    """Corollary 1's solver with a data-dependent clip threshold C = max_i ‖∇f(0; s_i)‖ (and σ calibrated to it),
    the claim unchanged.

    BUG: C, hence σ, is read from the data.  On D = n zero records of the linear loss C = 0, σ = 0 and the
    output is the point x̂ = 0; on the neighbour with one record e_1, C = 1 and the output is Gaussian: P_D(x̂ = 0)
    = 1, P_D'(x̂ = 0) = 0, so δ(ε) = 1 at every ε.  Refuted exactly in
    ``tests/alt24/test_alt24_clipped_sgd.py::test_mutant_data_dependent_clip_exact``."""
    return _corollary_1_mutant(S, loss, lam, rho, moments, domain_radius, rng, delta, white_box, replicates,
                               data_clip=True, name="MUTANT: Clipped-DP-SGD with C = max gradient norm")


def ht_sco_overlapping_blocks(S: Any, loss: HeavyTailedLoss, *, rho: float, moments: MomentBounds,
                              delta_fail: float, domain_radius: float, rng: np.random.Generator,
                              J_scale: float = 1.0, C_rp: float = 46.0, delta: float = 1e-6,
                              replicates: int | None = None) -> Release:
    """HT-SCO (Theorem 1) with overlapping blocks: phase i uses the first m_i records of each portion,
    D_i^j = rows (j−1)m … (j−1)m + m_i − 1, instead of the next unused m_i (the "reuse the data each phase"
    slip); the full ρ per call and the claim ρ are kept.

    BUG: the first record of each portion enters all I phases' Corollary 2 calls; on the worst-case pair for
    that record the I noisy-gradient traces compose to I·ρ (each call is exactly ρ on it, Lemma 1), not ρ.
    Refuted in ``tests/alt24/test_alt24_localization.py::test_overlapping_blocks_mutant_refuted`` (its recorded
    blocks put a record in I calls; coupled runs show I differing traces, each exactly ρ)."""
    S_, d = check_records(S, loss)
    rng = check_rng(rng)
    p = loc.theorem_1_parameters(S_.shape[0], d, rho, moments, delta_fail, 2.0 * domain_radius, J_scale=J_scale,
                                 C_rp=C_rp)
    blocks = [(i, j, (j - 1) * p.m, (j - 1) * p.m + mi) for j in range(1, p.J + 1)
              for i, mi in enumerate(p.m_i, start=1)]  # BUG: every phase starts at the portion's first row
    reps = 1 if replicates is None else int(replicates)
    X = np.zeros((reps, d))
    count, traces = 0, []
    for i in range(1, p.I + 1):
        idx = np.concatenate([np.arange(a, b) for (ii, _, a, b) in blocks if ii == i])
        rel = loc.aggregate_erm(S_[idx], loss, x_bar=X if replicates is not None else X[0], lam=p.lam_i[i - 1],
                                J=p.J, rho=rho, R=p.R_i[i - 1], moments=moments, domain_radius=domain_radius,
                                rng=rng, delta=delta, white_box=True, replicates=replicates)
        X = np.atleast_2d(rel.output)
        count += rel.gradient_evaluations
        traces.append(rel.white_box)
    return Release(output=X[0] if replicates is None else X, claim=loc.theorem_1_claim(rho, delta, p),
                   gradient_evaluations=count, parameters={**p.to_dict(), "blocks": [list(b) for b in blocks]},
                   algorithm="MUTANT: HT-SCO with overlapping blocks", replicates=replicates,
                   white_box=tuple(traces))


# ---- "reports σ, draws σ/√2" (``noise_scale.under_noised``): invisible to every check that reads σ -----------
# Each reports the correct σ and claim and adds σ/√2 (ρ_true = 2ρ); caught by the measured-noise check of the
# entry's harness (``dpsco.verification.papers.alt24.harness_sgd``: the noise replayed from the white-box trace
# against Corollary 1's σ), tests/alt24/test_alt24_measured_noise.py, with its exact miss probability.

#: Algorithm 1 drawing σ/√2 (``alt24.clipped_dp_sgd``)
clipped_dp_sgd_draws_sigma_over_sqrt2 = under_noised(cs.clipped_dp_sgd)
#: Algorithm 3 (every block's Corollary 2 call) drawing σ/√2 (``alt24.aggregate_erm``)
aggregate_erm_draws_sigma_over_sqrt2 = under_noised(loc.aggregate_erm)
#: the Theorem 1 pipeline (every phase's calls) drawing σ/√2 (``alt24.ht_sco``)
ht_sco_draws_sigma_over_sqrt2 = under_noised(loc.ht_sco)
#: the Corollary 3 wrapper (every epoch's calls) drawing σ/√2 (``alt24.sc_wrapper``)
sc_sco_draws_sigma_over_sqrt2 = under_noised(loc.sc_sco)


# ---- the check registry's copies (``mutants.alt24.catches``, ``tests/alt24/test_alt24_catches.py``) -----------------
# An off-by-one schedule, loops that skip their last block or phase, a reused batch, σ from the wrong record count
# and the noise term dropped: each makes one suite check or audit of ``alt24_localization`` fail.

#: the Theorem 1 pipeline without its Gaussian noise (``alt24.ht_sco``; its black-box audits)
ht_sco_noise_dropped = noise_dropped(loc.ht_sco)


def corollary_1_solver_one_step_too_many(S: Any, loss: HeavyTailedLoss, *, lam: float, rho: float,
                                         moments: MomentBounds, domain_radius: float, rng: np.random.Generator,
                                         delta: float = 1e-6, white_box: bool = False,
                                         replicates: int | None = None) -> Release:
    """Corollary 1's solver running T + 1 steps (an off-by-one loop bound, ``range(T + 1)``) with σ and the claim
    computed for Corollary 1's T.  BUG: n(T + 1) gradient evaluations where Corollary 1 prescribes n·T, and one
    more Gaussian step than σ accounts for (ρ_true = (T + 1)ρ/T).  Caught by the suite's exact count
    ``alg1_count`` (``alt24_localization.alg1_exact``)."""
    S_, d = check_records(S, loss)
    p = cs.corollary_1_parameters(S_.shape[0], d, rho, moments, lam)
    rel = cs.clipped_dp_sgd(S_, loss, C=p.C, lam=p.lam, T=p.T + 1, sigma=p.sigma, radius_r=domain_radius,
                            domain_radius=domain_radius, rng=rng, delta=delta, white_box=white_box,
                            replicates=replicates)
    rel.claim = cs.clipped_dp_sgd_claim(S_.shape[0], p.T, p.C, p.sigma, delta)  # BUG: the claim of T steps
    rel.algorithm = "MUTANT: Corollary 1's solver with T + 1 steps"
    return rel


def aggregate_erm_skips_last_block(S: Any, loss: HeavyTailedLoss, *, x_bar: Any, lam: float, J: int, rho: float,
                                   R: float, moments: MomentBounds, domain_radius: float, rng: np.random.Generator,
                                   domain_center: Any = None, delta: float = 1e-6, white_box: bool = False,
                                   replicates: int | None = None) -> Release:
    """Algorithm 3 whose block loop stops one block early (``range(J − 1)``): block D^J is never solved and the
    output aggregates J − 1 points.  BUG: (J − 1)·n·T gradient evaluations where Algorithm 3 makes J·n·T (and
    Fact 2's aggregation guarantee, which needs J points, is lost).  Caught by the suite's exact count
    ``alg3_count`` (``alt24_localization.alg3_bounds``).  ValueError if J < 2 (nothing would run)."""
    S_, _ = check_records(S, loss)
    if int(J) < 2:
        raise ValueError("J must be at least 2 for this mutant (J − 1 blocks run)")
    n = S_.shape[0] // int(J)
    rel = loc.aggregate_erm(S_[:(int(J) - 1) * n], loss, x_bar=x_bar, lam=lam, J=int(J) - 1, rho=rho, R=R,
                            moments=moments, domain_radius=domain_radius, domain_center=domain_center, rng=rng,
                            delta=delta, white_box=white_box, replicates=replicates)   # BUG: block J skipped
    rel.algorithm = "MUTANT: Aggregate-ERM skipping its last block"
    return rel


def aggregate_erm_sigma_from_all_records(S: Any, loss: HeavyTailedLoss, *, J: int, rng: np.random.Generator,
                                         **kw: Any) -> Release:
    """Algorithm 3 whose blocks calibrate σ² = 2C²T/(N²ρ) with the total record count N = J·n in place of the
    block size n (C and T at the block size): every block draws σ/J and reports σ.  BUG: parallel composition
    needs each block's own sensitivity 2C/n, so each block is J²ρ-zCDP.  Caught by the white-box audit
    ``alg3_white_box`` (``alt24_localization.alg3_audit``; J = 3 there: σ/3)."""
    g = ScaledGenerator(check_rng(rng).bit_generator, 1.0 / int(J))              # BUG: σ·n/N = σ/J
    rel = loc.aggregate_erm(S, loss, J=J, rng=g, **kw)
    rel.algorithm = "MUTANT: Aggregate-ERM with σ from all J·n records"
    return rel


def ht_sco_skips_last_phase(S: Any, loss: HeavyTailedLoss, *, rho: float, moments: MomentBounds, delta_fail: float,
                            domain_radius: float, rng: np.random.Generator, J_scale: float = 1.0,
                            C_rp: float = loc.C_RP_DERIVED, delta: float = 1e-6,
                            replicates: int | None = None) -> Release:
    """HT-SCO (Theorem 1) whose phase loop stops one phase early (``range(1, I)``): x_{I−1} is released.  BUG:
    Σ_{i<I} J·m_i·T_i gradient evaluations where Theorem 1 prescribes Σ_{i≤I} (and Proposition 2's last
    localisation step is lost).  Caught by the suite's exact count ``thm1_count`` (``ht_bounds``)."""
    S_, d = check_records(S, loss)
    rng = check_rng(rng)
    p = loc.theorem_1_parameters(S_.shape[0], d, rho, moments, delta_fail, 2.0 * domain_radius, J_scale=J_scale,
                                 C_rp=C_rp)
    blocks = loc.theorem_1_blocks(p)
    reps = 1 if replicates is None else int(replicates)
    X = np.zeros((reps, d))
    count = 0
    for i in range(1, p.I):                                   # BUG: range(1, I + 1)
        idx = np.concatenate([np.arange(a, b) for (ii, _, a, b) in blocks if ii == i])
        rel = loc.aggregate_erm(S_[idx], loss, x_bar=X if replicates is not None else X[0], lam=p.lam_i[i - 1],
                                J=p.J, rho=rho, R=p.R_i[i - 1], moments=moments, domain_radius=domain_radius,
                                rng=rng, delta=delta, replicates=replicates)
        X = np.atleast_2d(rel.output)
        count += rel.gradient_evaluations
    return Release(output=X[0] if replicates is None else X, claim=loc.theorem_1_claim(rho, delta, p),
                   gradient_evaluations=count, parameters={**p.to_dict(), "blocks": [list(b) for b in blocks]},
                   algorithm="MUTANT: HT-SCO skipping its last phase", replicates=replicates)


def highprob_sco_skips_last_phase(S: Any, loss: HeavyTailedLoss, *, G: float, delta_fail: float,
                                  domain_radius: float, J_scale: float = 1.0) -> Release:
    """Appendix A's HighProb-SCO (Theorem 5) whose phase loop stops one phase early (``range(1, I)``).  BUG:
    J·Σ_{i<I} T_i queries where Theorem 5's procedure makes J·Σ_{i≤I} T_i.  Caught by the suite's exact count
    ``thm5_count`` (``highprob_bounds``)."""
    S_, d = check_records(S, loss)
    p = loc.theorem_5_parameters(S_.shape[0], G, delta_fail, 2.0 * domain_radius, J_scale=J_scale)
    x, offset, count = np.zeros(d), 0, 0
    for i in range(1, p.I):                                   # BUG: range(1, I + 1)
        Ti = p.T_i[i - 1]
        pts = []
        for _ in range(p.J):
            pts.append(loc.lemma_15_solver(S_[offset:offset + Ti], loss, x_bar=x, lam=p.lam_i[i - 1],
                                           domain_radius=domain_radius))
            offset += Ti
            count += Ti
        x = aggregate(np.stack(pts), p.R_i[i - 1])[1]
    claim = PrivacyClaim(notion="none", epsilon=float("inf"), delta=1.0, neighbouring="replace-one",
                         source="MUTANT of Asi, Liu & Tian (2024), Appendix A (non-private)")
    return Release(output=x, claim=claim, gradient_evaluations=count,
                   parameters=p.to_dict(), algorithm="MUTANT: HighProb-SCO skipping its last phase")


def sc_sco_reuses_first_batch(S: Any, loss: HeavyTailedLoss, **kw: Any) -> Release:
    """The Corollary 3 wrapper whose every epoch reads the first batch S[0:n'] (the slice ``S[e·n':(e+1)·n']``
    written ``S[0:n']``), publishing the record ranges it read.  BUG: each record of the first batch enters every
    epoch's HT-SCO run, so the epochs compose sequentially (J_e·ρ on that record) instead of in parallel.  Caught
    by the suite's exact check ``cor3_disjoint`` (``sc_bounds``: the epochs' published record ranges)."""
    S_, _ = check_records(S, loss)
    n = S_.shape[0]
    Je = loc.corollary_3_epochs(n)
    n_e = n // Je
    reused = np.vstack([S_[:n_e]] * Je + [S_[Je * n_e:]])     # BUG: epoch e reads rows 0..n'−1
    rel = loc.sc_sco(reused, loss, **kw)
    for e in rel.parameters["epoch_records"]:
        e["records"] = [0, n_e]                                # the rows each epoch actually read
    rel.algorithm = "MUTANT: Corollary 3 wrapper reusing the first batch in every epoch"
    return rel
