"""Planted bugs of Menart et al. (2023), arXiv:2311.13447 v2, Algorithms 2 and 4
(``dpsco.reference.muabg23.algorithms_proximal``).  Each keeps the correct algorithm's claim and has one realistic bug:

* :func:`noisy_gd_paper_accounting` — σ calibrated with the paper's per-release charge (L_0/(nσ))² (the
  add/remove-style sensitivity L_0/n with a Δ²/σ² convention) instead of the exact replace-one (2L_0/n)²/(2σ²):
  σ² = L_0²(T−1)/(n²ρ), exactly 2ρ-zCDP under the ρ claim.
* :func:`noisy_gd_one_step_more` — T noisy steps, accounted for T−1: exactly ρ·T/(T−1).
* :func:`proximal_point_paper_accounting` — every inner call of Algorithm 2 calibrated with the same per-release
  charge (L_0/(nσ))²: σ² = L_0²(T_4−1)T/(n²ρ), exactly 2ρ-zCDP under the ρ claim (the schedule T, T_4 is the
  correct one, computed at ρ).
* :func:`proximal_point_data_dependent_f0` — Algorithm 2's outer T computed from F_0 = L_0·max_i ‖w_0 − x_i‖, a
  bound read from the data: neighbouring datasets get different schedules, so the transcript (T·(T_4 − 1)
  noisy gradients) differs in length and no finite ρ holds for it.
* :func:`proximal_point_one_call_more` — Algorithm 2's outer loop runs T + 1 calls of Algorithm 4 (an off-by-one
  in line 3's loop), each calibrated and charged for ρ/T: exactly ρ(T + 1)/T-zCDP under the ρ claim, and
  (T + 1)(T_4 − 1)n gradients performed and reported against the schedule's T(T_4 − 1)n.
* :data:`noisy_regularised_gd_draws_sigma_over_sqrt2`, :data:`proximal_point_draws_sigma_over_sqrt2` — the
  generic "reports σ, draws σ/√2" bug (``mutants.noise_scale.under_noised``): exactly 2ρ-zCDP under the ρ claim,
  invisible to any check that reads σ from the release; caught by the measured-noise check.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

import dpsco.reference.muabg23.algorithms_proximal as proximal
from dpsco.reference.muabg23.ledger import zcdp_epsilon
from dpsco.reference.muabg23.algorithms_proximal import (algorithm_2_outer_steps, noisy_regularised_gd, proximal_point,
                                              theorem_9_steps)
from dpsco.reference.privacy import Release
from dpsco.verification.mutants.noise_scale import under_noised

__all__ = ["noisy_gd_paper_accounting", "noisy_gd_one_step_more", "proximal_point_paper_accounting",
           "proximal_point_data_dependent_f0", "noisy_regularised_gd_draws_sigma_over_sqrt2",
           "proximal_point_draws_sigma_over_sqrt2", "proximal_point_one_call_more"]


def noisy_gd_paper_accounting(X: Any, subgradient: Any, w_c: Any, rho: float, beta: float, L0: float,
                              l1_tilde: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``noisy_regularised_gd``: σ² = L_0²(T−1)/(n²ρ) (the paper's (L_0/(nσ))² charge); claim ρ."""
    from dp_accounting import dp_event

    n, d = np.shape(X)
    delta = kwargs.get("delta", 1e-6)
    T = kwargs.pop("steps", None) or theorem_9_steps(n, d, rho, beta)
    # the exact σ at budget 2ρ equals the paper-accounting σ at budget ρ
    release = noisy_regularised_gd(X, subgradient, w_c, 2.0 * rho, beta, L0, l1_tilde, rng, steps=T, **kwargs)
    sigma_claimed = math.sqrt(2.0 * L0 ** 2 * (T - 1) / (n * n * rho))
    claim = dataclasses.replace(release.claim, rho=rho, mu=math.sqrt(2.0 * rho), epsilon=zcdp_epsilon(rho, delta),
                                event=dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(sigma_claimed * n / L0),
                                                                   T - 1))
    release.claim = claim
    return release


def noisy_gd_one_step_more(X: Any, subgradient: Any, w_c: Any, rho: float, beta: float, L0: float,
                           l1_tilde: float, rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``noisy_regularised_gd``: the loop runs t = 1..T (T noisy steps); σ and claim for T−1.  The
    correct algorithm's release (run on a throwaway generator) gives the claim, the schedule and σ; the loop below
    is Algorithm 4's (reference pieces only: ``clipped_subgradients``, ``theorem_9_step_size``), one step longer,
    so that the reference keeps no mutant hook."""
    from dpsco.reference.white_box import NoisyGradientTrace

    correct = noisy_regularised_gd(X, subgradient, w_c, rho, beta, L0, l1_tilde, np.random.default_rng(0),
                                   **{**kwargs, "white_box": False})
    Xa = np.asarray(X, dtype=np.float64)
    n, d = Xa.shape
    T, sigma, lt = int(correct.parameters["T"]), float(correct.parameters["sigma"]), float(l1_tilde)
    R = kwargs.get("replicates")
    centre = np.tile(np.asarray(w_c, dtype=np.float64), (1 if R is None else R, 1))
    radius = L0 / (2.0 * lt)
    w, weighted, steps = centre.copy(), centre.copy(), []
    for t in range(1, T + 1):                                     # BUG: T noisy steps (Algorithm 4 takes T − 1)
        G, _ = proximal.clipped_subgradients(np.asarray(subgradient(w, Xa), dtype=np.float64), L0)
        noisy = G.mean(axis=1) + rng.normal(0.0, sigma, size=w.shape)
        steps.append((w.copy(), noisy))
        off = w - proximal.theorem_9_step_size(t, lt) * (noisy + 2.0 * lt * (w - centre)) - centre
        norm = np.linalg.norm(off, axis=1, keepdims=True)
        w = centre + off * np.minimum(1.0, radius / np.where(norm > 0, norm, 1.0))
        weighted += (t + 1) * w
    K = T + 1
    out = weighted * (2.0 / (K * (K + 1)))
    release = dataclasses.replace(correct, output=out if R is not None else out[0], gradient_evaluations=T * n,
                                  white_box=None)
    if kwargs.get("white_box"):
        def record_gradient(W: np.ndarray, x: np.ndarray, y: float) -> np.ndarray:
            G = np.asarray(subgradient(np.atleast_2d(W), np.atleast_2d(x)), dtype=np.float64)
            return proximal.clipped_subgradients(G, L0)[0][:, 0, :]

        its = np.stack([s_[0] for s_ in steps] + [steps[-1][0]], axis=1)
        release.white_box = NoisyGradientTrace(
            iterates=its, noisy_gradients=np.stack([s_[1] for s_ in steps], axis=1), record_gradient=record_gradient,
            n=n, m=n, T=T, sigma=sigma, clip_norm=L0, eta=proximal.theorem_9_step_size(1, lt), sampling="full-batch",
            algorithm="Algorithm 4 (Menart et al. 2023) [mutant: one step more]")
    return release


def proximal_point_paper_accounting(X: Any, subgradient: Any, w0: Any, rho: float, beta: float, L0: float,
                                    l1_tilde: float, F0: float, gamma: float, kappa: float, rng: np.random.Generator,
                                    **kwargs: Any) -> Release:
    """Mutant of ``proximal_point`` (Algorithm 2, Theorem 2).  BUG: each of the T calls of Algorithm 4 takes
    σ² = L_0²(T_4−1)T/(n²ρ) — the paper's (L_0/(nσ))² charge per release, half the replace-one cost
    (2L_0/n)²/(2σ²) — so the run is exactly 2ρ-zCDP while the claim (ρ, and its event's σ) is the correct one's.
    The schedule (T, T_4) is the correct algorithm's at ρ (public overrides ``outer_steps``, ``inner_steps``
    honoured).  Same arguments and return as ``proximal_point`` (exact calibration)."""
    from dp_accounting import dp_event

    n, d = np.shape(X)
    delta = kwargs.get("delta", 1e-6)
    T = kwargs.pop("outer_steps", None) or algorithm_2_outer_steps(n, d, rho, F0, gamma, kappa, L0, l1_tilde)
    T4 = kwargs.pop("inner_steps", None) or theorem_9_steps(n, d, rho / T, beta / T)
    # the exact σ at budget 2ρ equals the paper-accounting σ at budget ρ (same T, T_4)
    release = proximal_point(X, subgradient, w0, 2.0 * rho, beta, L0, l1_tilde, F0, gamma, kappa, rng,
                             outer_steps=T, inner_steps=T4, **kwargs)
    sigma_claimed = math.sqrt(2.0 * L0 ** 2 * (T4 - 1) * T / (n * n * rho))
    release.claim = dataclasses.replace(
        release.claim, rho=rho, mu=math.sqrt(2.0 * rho), epsilon=zcdp_epsilon(rho, delta),
        event=dp_event.SelfComposedDpEvent(dp_event.GaussianDpEvent(sigma_claimed * n / L0), T * (T4 - 1)))
    return release


def proximal_point_data_dependent_f0(X: Any, subgradient: Any, w0: Any, rho: float, beta: float, L0: float,
                                     l1_tilde: float, F0: float, gamma: float, kappa: float,
                                     rng: np.random.Generator, **kwargs: Any) -> Release:
    """Mutant of ``proximal_point``: F_0 := L_0·max_i ‖w_0 − x_i‖ (read from the data) sets line 1's T (passed as
    the "public" F_0)."""
    start = np.asarray(w0, dtype=np.float64)
    f0_data = max(1e-12, float(L0 * np.max(np.linalg.norm(np.asarray(X, dtype=np.float64) - start, axis=1))))
    return proximal_point(X, subgradient, w0, rho, beta, L0, l1_tilde, f0_data, gamma, kappa, rng, **kwargs)


def proximal_point_one_call_more(X: Any, subgradient: Any, w0: Any, rho: float, beta: float, L0: float,
                                 l1_tilde: float, F0: float, gamma: float, kappa: float, rng: np.random.Generator,
                                 **kwargs: Any) -> Release:
    """Mutant of ``proximal_point`` (Algorithm 2, Theorem 2).  BUG (off-by-one in line 3's loop): T + 1 calls of
    Algorithm 4, each at the correct σ for ρ/T; the claim, schedule and published parameters are the correct
    algorithm's (from a run on a throwaway generator), the count reported is the one performed,
    (T + 1)(T_4 − 1)n.  Exactly ρ(T + 1)/T-zCDP on the worst pair.  The loop below is Algorithm 2's with the
    reference's own inner solver (``proximal._run_algorithm_4``), so the reference keeps no mutant hook.  Refuted
    by the suite's exact worst-pair ρ and exact count (``tests/muabg23/test_muabg23_catches.py``)."""
    correct = proximal_point(X, subgradient, w0, rho, beta, L0, l1_tilde, F0, gamma, kappa, np.random.default_rng(0),
                             **{**kwargs, "white_box": False})
    Xa = np.asarray(X, dtype=np.float64)
    n = Xa.shape[0]
    T, T4, sigma = int(correct.parameters["T"]), int(correct.parameters["T4"]), float(correct.parameters["sigma"])
    R = kwargs.get("replicates")
    w = np.tile(np.asarray(w0, dtype=np.float64), (1 if R is None else R, 1))
    steps: list[tuple[np.ndarray, np.ndarray]] | None = [] if kwargs.get("white_box") else None
    for _ in range(T + 1):                                        # BUG: T + 1 calls (Algorithm 2 makes T)
        w, _clipped = proximal.run_algorithm_4(Xa, subgradient, w, L0, float(l1_tilde), T4, sigma, rng, steps)
    release = dataclasses.replace(correct, output=w if R is not None else w[0],
                                  gradient_evaluations=(T + 1) * (T4 - 1) * n, white_box=None,
                                  algorithm=correct.algorithm + " [mutant: one call more]")
    if steps:
        release.white_box = proximal.algorithm_4_trace(Xa, subgradient, steps, n, sigma, L0,
                                            proximal.theorem_9_step_size(1, float(l1_tilde)),
                                            "Algorithm 2 (Menart et al. 2023) [mutant: one call more]")
    return release


#: Planted bug (the generic σ/√2 bug, ``dpsco.verification.mutants.noise_scale.under_noised``): Algorithm 4
#: reporting Theorem 9's σ and drawing σ/√2.  Caught by the measured-noise check of the replayed noisy
#: gradients (``test_noisy_gd_measured_noise_refutes_sigma_over_sqrt2``).
noisy_regularised_gd_draws_sigma_over_sqrt2 = under_noised(noisy_regularised_gd)

#: Planted bug: Algorithm 2 whose every inner call of Algorithm 4 draws σ/√2 while reporting σ.  Caught by the
#: same check (``test_proximal_point_measured_noise_refutes_sigma_over_sqrt2``).
proximal_point_draws_sigma_over_sqrt2 = under_noised(proximal_point)
