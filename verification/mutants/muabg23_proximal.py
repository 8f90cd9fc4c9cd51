"""Planted bugs of Menart et al. (2023), arXiv:2311.13447 v2, Algorithms 2 and 4
(``dpsco.reference.muabg23.proximal``).  Each keeps the correct algorithm's claim and has one realistic bug:

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
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from dpsco.reference.muabg23.ledger import zcdp_epsilon
from dpsco.reference.muabg23.proximal import (algorithm_2_outer_steps, noisy_regularised_gd, proximal_point,
                                              theorem_9_steps)
from dpsco.reference.privacy import Release

__all__ = ["noisy_gd_paper_accounting", "noisy_gd_one_step_more", "proximal_point_paper_accounting",
           "proximal_point_data_dependent_f0"]


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
    """Mutant of ``noisy_regularised_gd``: the loop runs t = 1..T (T noisy steps); σ and claim for T−1."""
    return noisy_regularised_gd(X, subgradient, w_c, rho, beta, L0, l1_tilde, rng, _extra_steps=1, **kwargs)


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
    """Mutant of ``proximal_point``: F_0 := L_0·max_i ‖w_0 − x_i‖ (read from the data) sets line 1's T."""
    start = np.asarray(w0, dtype=np.float64)

    def f0_from_data(data: np.ndarray) -> float:
        return max(1e-12, float(L0 * np.max(np.linalg.norm(data - start, axis=1))))

    return proximal_point(X, subgradient, w0, rho, beta, L0, l1_tilde, F0, gamma, kappa, rng,
                          _schedule_data=f0_from_data, **kwargs)
